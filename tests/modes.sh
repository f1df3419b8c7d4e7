#!/bin/sh
# File modes under umask 022: the databases (with their -wal and -shm
# files), backups and restored copies are 0600, the folders made for them
# and for the console's pictures 0700, the pictures 0600.
# Usage: modes.sh RLYEH GOLDEN_DIR
set -u
rlyeh=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
golden=$(cd "$2" && pwd)/console
tmp=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
passes=0
failures=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL $*"; failures=$((failures + 1)); }
unset RLYEH_DATABASE RLYEH_API_URL RLYEH_TOKEN RLYEH_TOKEN_FILE CREDENTIALS_DIRECTORY
umask 022

mode() { # mode FILE WANT
	got=$(stat -c %a "$1" 2>/dev/null)
	[ "$got" = "$2" ] && ok || bad "$1: mode ${got:-missing}, expected $2"
}

# The console makes the database and its folders.
printf '/open\n/join\n' | "$rlyeh" console --db "$tmp/a/b/g.db" --timeout 0 >/dev/null 2>&1 ||
	bad "console"
mode "$tmp/a" 700
mode "$tmp/a/b" 700
mode "$tmp/a/b/g.db" 600

# The daemon's database, log and shared memory while it runs.
RLYEH_TOKEN=MTIz.abc RLYEH_DATABASE=$tmp/d.db RLYEH_API_URL=http://127.0.0.1:9 \
	"$rlyeh" run </dev/null >"$tmp/run.out" 2>&1 &
pid=$!
i=0
while [ $i -lt 100 ] && [ ! -e "$tmp/d.db-shm" ]; do sleep 0.05; i=$((i + 1)); done
mode "$tmp/d.db" 600
mode "$tmp/d.db-wal" 600
mode "$tmp/d.db-shm" 600
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
pid=""

# A backup, and a restore into a new file.
"$rlyeh" backup "$tmp/backup.db" --db "$tmp/a/b/g.db" >/dev/null || bad "backup"
mode "$tmp/backup.db" 600
"$rlyeh" restore "$tmp/backup.db" --db "$tmp/restored.db" >/dev/null || bad "restore"
mode "$tmp/restored.db" 600

# The console's pictures of a board game.
mkdir "$tmp/run"
(cd "$tmp/run" && "$rlyeh" console --db "$tmp/run/c.db" --seed 42 --timeout 0 \
	--pictures pictures/of/game <"$golden/cthulhu-en.txt" >/dev/null 2>&1) || bad "console pictures"
mode "$tmp/run/pictures" 700
mode "$tmp/run/pictures/of/game" 700
n=0
for f in "$tmp/run/pictures/of/game"/*.png; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	mode "$f" 600
done
[ $n -gt 0 ] && ok || bad "the console wrote no picture"

echo "$passes passed, $failures failed"
[ $failures -eq 0 ]
