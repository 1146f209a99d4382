# apache-own.sh: sourced by wiki-site.sh and autoindex-site.sh, which each run
# Apache httpd as a process of its own on loopback (configuration, pid file
# and logs under DIR; nothing of /etc/apache2 read or changed).

# apache_head DIR PORT RUNUSER MPM: prints what both configurations share —
# the server's own files under DIR, 127.0.0.1:PORT, the user it serves as,
# the MPM (event, prefork), the core modules, the request log read by the
# check scripts (time, request line, status, Location, User-Agent, tab
# separated: DIR/access.log) and "deny everything" for /.
apache_head() {
    m=/usr/lib/apache2/modules
    cat <<EOF
ServerRoot "$1"
DefaultRuntimeDir "$1/run"
PidFile "$1/run/apache2.pid"
Mutex file:$1/run default
Listen 127.0.0.1:$2
ServerName 127.0.0.1
User $3
Group $(id -gn "$3")
ErrorLog "$1/error.log"
LogLevel warn
LoadModule mpm_$4_module $m/mod_mpm_$4.so
LoadModule authz_core_module $m/mod_authz_core.so
LoadModule dir_module $m/mod_dir.so
LoadModule mime_module $m/mod_mime.so
TypesConfig /etc/mime.types
LogFormat "%{%s}t\t%r\t%>s\t%{Location}o\t%{User-Agent}i" plain
CustomLog "$1/access.log" plain
<Directory />
    AllowOverride None
    Require all denied
</Directory>
EOF
}

# apache_start CONF URL AGENT: checks the configuration, starts the server and
# waits (10 s at most) for URL to answer 200, asked as AGENT; returns 1 if it
# does not.
apache_start() {
    apache2 -f "$1" -t
    apache2 -f "$1" -k start
    for _ in $(seq 50); do
        [ "$(curl -s -o /dev/null -w '%{http_code}' -A "$3" "$2")" = 200 ] && return 0
        sleep 0.2
    done
    return 1
}
