#!/bin/sh
# wiki-site.sh DIR PORT [stop]: a real MediaWiki (Debian's mediawiki 1.39) on
# 127.0.0.1:PORT, served by Apache httpd with mod_php as a process of its own
# (its configuration, pid file, logs and SQLite database all under DIR; no
# file of /etc is read or changed), filled with ~580 articles of real
# documentation (scripts/wiki-pages.py: the Python manual and the Debian
# Reference through pandoc), second revisions, talk pages, redirects and 10
# copies. Writes DIR/truth.json (the ground truth) and logs every request to
# DIR/access.log (time, request line, status, Location, User-Agent, tab
# separated), which scripts/wiki-check.py reads. "stop" stops the server.
#
# Needs (Debian 12): mediawiki php-sqlite3 libapache2-mod-php apache2 pandoc
# python3-doc debian-reference-en sqlite3. Building takes ~10 minutes (pandoc,
# then MediaWiki parsing every page on import); a second run reuses what is
# built. Run as root (Apache binds the port, then serves as www-data) or as
# a user that may start apache2 (then give DIR to that user).
#
# Then: doppel crawl --once --seed http://127.0.0.1:PORT/ --data D --parallelism 4
set -eu
DIR=$(realpath -m "${1:?usage: wiki-site.sh DIR PORT [stop]}")
PORT=${2:?usage: wiki-site.sh DIR PORT [stop]}
MW=/usr/share/mediawiki
HERE=$(dirname "$(realpath "$0")")
CONF=$DIR/apache2.conf

if [ "${3:-}" = stop ]; then
    apache2 -f "$CONF" -k stop
    exit 0
fi

for f in $MW/maintenance/install.php /usr/lib/apache2/modules/libphp8.2.so \
    /usr/share/doc/python3-doc/html/library/index.html /usr/share/debian-reference/ch01.en.html; do
    [ -e "$f" ] || { echo "wiki-site.sh: $f is missing: apt-get install mediawiki php-sqlite3 libapache2-mod-php apache2 pandoc python3-doc debian-reference-en sqlite3" >&2; exit 1; }
done
for c in pandoc sqlite3 apache2 php; do
    command -v $c >/dev/null || { echo "wiki-site.sh: $c is missing" >&2; exit 1; }
done
RUNUSER=www-data
[ "$(id -u)" = 0 ] || RUNUSER=$(id -un)

mkdir -p "$DIR/data" "$DIR/cache" "$DIR/run"
echo "converting the documentation (pandoc)…" >&2
python3 "$HERE/wiki-pages.py" "$DIR"

if [ ! -e "$DIR/LocalSettings.php" ]; then
    # The administrator's password is random and kept nowhere: nobody logs in.
    PASS=$DIR/.pass
    umask 077
    head -c 24 /dev/urandom | base64 > "$PASS"
    umask 022
    php $MW/maintenance/install.php --quiet --dbtype sqlite --dbpath "$DIR/data" --dbname wiki \
        --server "http://127.0.0.1:$PORT" --scriptpath "" --confpath "$DIR" --passfile "$PASS" \
        --skins MonoBook,Timeless "Intranet Wiki" Admin
    rm -f "$PASS"
    cat >> "$DIR/LocalSettings.php" <<EOF

# wiki-site.sh: articles at /index.php/Title; caches in APCu, not in the
# SQLite database that the server's processes share; no jobs run on views.
\$wgUsePathInfo = true;
\$wgArticlePath = "/index.php/\$1";
\$wgCacheDirectory = "$DIR/cache";
\$wgMainCacheType = CACHE_ACCEL;
\$wgParserCacheType = CACHE_ACCEL;
\$wgSessionCacheType = CACHE_ACCEL;
\$wgJobRunRate = 0;
\$wgEnableUploads = false;
EOF
    echo "importing $(grep -c '<page>' "$DIR/dump.xml") pages (MediaWiki parses each)…" >&2
    MW_CONFIG_FILE=$DIR/LocalSettings.php nice php $MW/maintenance/importDump.php --conf "$DIR/LocalSettings.php" "$DIR/dump.xml" >&2
    MW_CONFIG_FILE=$DIR/LocalSettings.php php $MW/maintenance/edit.php --conf "$DIR/LocalSettings.php" \
        --user Admin --summary "The teams' pages" "Main Page" < "$DIR/mainpage.txt" >&2
    MW_CONFIG_FILE=$DIR/LocalSettings.php php $MW/maintenance/rebuildrecentchanges.php --conf "$DIR/LocalSettings.php" >/dev/null
    MW_CONFIG_FILE=$DIR/LocalSettings.php php $MW/maintenance/initSiteStats.php --conf "$DIR/LocalSettings.php" --update >/dev/null
fi

# Every page of the truth is a page of the wiki (MediaWiki may have
# normalized a title differently from wiki-pages.py).
sqlite3 "$DIR/data/wiki.sqlite" "select page_namespace, page_title from page" > "$DIR/pages.txt"
python3 - "$DIR" <<'EOF'
import json, sys
d = sys.argv[1]
have = set()
for line in open(f'{d}/pages.txt', encoding='utf-8'):
    ns, title = line.rstrip('\n').split('|', 1)
    have.add(('Talk:' if ns == '1' else '') + title.replace('_', ' '))
truth = json.load(open(f'{d}/truth.json', encoding='utf-8'))
missing = [p['title'] for p in truth['pages'] if p['title'] not in have]
if missing:
    sys.exit(f'wiki-site.sh: {len(missing)} pages of truth.json are not in the wiki: {missing[:10]}')
print(f"{len(truth['pages'])} pages of truth.json in the wiki ({len(have)} pages there, redirects included)", file=sys.stderr)
EOF

chown -R "$RUNUSER" "$DIR/data" "$DIR/cache"
. "$HERE/apache-own.sh"
{
    echo "# wiki-site.sh: MediaWiki on 127.0.0.1:$PORT, nothing of /etc/apache2."
    apache_head "$DIR" "$PORT" "$RUNUSER" prefork
    cat <<EOF
LoadModule env_module /usr/lib/apache2/modules/mod_env.so
LoadModule php_module /usr/lib/apache2/modules/libphp8.2.so
StartServers 4
MinSpareServers 2
MaxSpareServers 6
MaxRequestWorkers 6
DocumentRoot $MW
DirectoryIndex index.php
AcceptPathInfo On
SetEnv MW_CONFIG_FILE $DIR/LocalSettings.php
php_admin_value memory_limit 512M
php_admin_value apc.shm_size 128M
<Directory $MW>
    Require all granted
</Directory>
<FilesMatch "\.php$">
    SetHandler application/x-httpd-php
</FilesMatch>
EOF
} > "$CONF"
if apache_start "$CONF" "http://127.0.0.1:$PORT/index.php/Main_Page" wiki-site.sh; then
    echo "MediaWiki on http://127.0.0.1:$PORT/ (stop: $0 $DIR $PORT stop); requests in $DIR/access.log, truth in $DIR/truth.json" >&2
    exit 0
fi
echo "wiki-site.sh: the wiki does not answer; see $DIR/error.log" >&2
exit 1
