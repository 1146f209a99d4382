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
. "$(dirname "$(realpath "$0")")/apache-own.sh"
{
    echo "# autoindex-site.sh: $ROOT listed on 127.0.0.1:$PORT, nothing of /etc/apache2."
    apache_head "$DIR" "$PORT" "$RUNUSER" event
    cat <<EOF
LoadModule autoindex_module /usr/lib/apache2/modules/mod_autoindex.so
AddDefaultCharset UTF-8
DocumentRoot "$ROOT"
<Directory "$ROOT">
    Options +Indexes +FollowSymLinks
    Require all granted
</Directory>
# As Debian's mods-available/autoindex.conf has it, icons aside.
IndexOptions FancyIndexing VersionSort HTMLTable NameWidth=* DescriptionWidth=* Charset=UTF-8
IndexIgnore .??* *~ *# RCS CVS *,v *,t
EOF
} > "$CONF"
if apache_start "$CONF" "http://127.0.0.1:$PORT/" autoindex-site.sh; then
    echo "$ROOT listed on http://127.0.0.1:$PORT/ (stop: $0 $DIR $PORT stop); requests in $DIR/access.log" >&2
    exit 0
fi
echo "autoindex-site.sh: no answer; see $DIR/error.log" >&2
exit 1
