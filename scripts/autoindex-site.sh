#!/bin/sh
# autoindex-site.sh DIR PORT [ROOT] | DIR PORT stop: Apache httpd's own file
# listings (mod_autoindex, Options +Indexes, FancyIndexing as Debian's
# default configuration sets it: every listing links its sort orders,
# "?C=N;O=D") over ROOT (default /usr/share/doc) on 127.0.0.1:PORT, as a
# process of its own: configuration, pid file and logs under DIR, nothing
# of /etc/apache2 read or changed. Every request is logged to
# DIR/access.log (time, request line, status, Location, User-Agent, tab
# separated), which scripts/autoindex-check.py reads.
#
# Needs (Debian 12): apache2. Then:
#   doppel crawl --once --seed http://127.0.0.1:PORT/ --data D --parallelism 4 --max-pages 3000
#   doppel export --data D > D.jsonl; scripts/autoindex-check.py DIR D.jsonl
set -eu
DIR=$(realpath -m "${1:?usage: autoindex-site.sh DIR PORT [ROOT|stop]}")
PORT=${2:?usage: autoindex-site.sh DIR PORT [ROOT|stop]}
CONF=$DIR/apache2.conf
if [ "${3:-}" = stop ]; then
    apache2 -f "$CONF" -k stop
    exit 0
fi
ROOT=$(realpath "${3:-/usr/share/doc}")
command -v apache2 >/dev/null || { echo "autoindex-site.sh: apache2 is missing: apt-get install apache2" >&2; exit 1; }
RUNUSER=www-data
[ "$(id -u)" = 0 ] || RUNUSER=$(id -un)
mkdir -p "$DIR/run"
M=/usr/lib/apache2/modules
cat > "$CONF" <<EOF
# autoindex-site.sh: $ROOT listed on 127.0.0.1:$PORT, nothing of /etc/apache2.
ServerRoot "$DIR"
DefaultRuntimeDir "$DIR/run"
PidFile "$DIR/run/apache2.pid"
Mutex file:$DIR/run default
Listen 127.0.0.1:$PORT
ServerName 127.0.0.1
User $RUNUSER
Group $(id -gn "$RUNUSER")
ErrorLog "$DIR/error.log"
LogLevel warn
LoadModule mpm_event_module $M/mod_mpm_event.so
LoadModule authz_core_module $M/mod_authz_core.so
LoadModule dir_module $M/mod_dir.so
LoadModule mime_module $M/mod_mime.so
LoadModule autoindex_module $M/mod_autoindex.so
TypesConfig /etc/mime.types
AddDefaultCharset UTF-8
LogFormat "%{%s}t\t%r\t%>s\t%{Location}o\t%{User-Agent}i" plain
CustomLog "$DIR/access.log" plain
DocumentRoot "$ROOT"
<Directory />
    AllowOverride None
    Require all denied
</Directory>
<Directory "$ROOT">
    Options +Indexes +FollowSymLinks
    Require all granted
</Directory>
# As Debian's mods-available/autoindex.conf has it, icons aside.
IndexOptions FancyIndexing VersionSort HTMLTable NameWidth=* DescriptionWidth=* Charset=UTF-8
IndexIgnore .??* *~ *# RCS CVS *,v *,t
EOF
apache2 -f "$CONF" -t
apache2 -f "$CONF" -k start
for _ in $(seq 50); do
    if [ "$(curl -s -o /dev/null -w '%{http_code}' -A autoindex-site.sh "http://127.0.0.1:$PORT/")" = 200 ]; then
        echo "$ROOT listed on http://127.0.0.1:$PORT/ (stop: $0 $DIR $PORT stop); requests in $DIR/access.log" >&2
        exit 0
    fi
    sleep 0.2
done
echo "autoindex-site.sh: no answer; see $DIR/error.log" >&2
exit 1
