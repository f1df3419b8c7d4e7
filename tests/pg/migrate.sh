#!/bin/sh
# rlyeh migrate-store end to end, on the PostgreSQL server of
# RLYEH_TEST_DATABASE (run under tests/pg/with_cluster.sh): an SQLite
# database of finished games copied into a new PostgreSQL database answers
# the same (the export of every game, /leaderboard and /stats) and keeps
# the count of game ids; a non-empty target, a missing source and a path as
# target are refused; backup and restore of a postgresql:// database point
# to pg_dump and pg_restore.
# Usage: migrate.sh RLYEH GOLDEN_DIR
set -u
rlyeh=$1
golden=$2/console
: "${RLYEH_TEST_DATABASE:?run under tests/pg/with_cluster.sh}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passes=0
failures=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL $*"; failures=$((failures + 1)); }

sql() { # sql DB QUERY: prints the first column of every row
	python3 -c 'import sqlite3,sys
for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]): print(r[0])' "$1" "$2"
}

psql_bin=$(pg_config --bindir 2>/dev/null)/psql
[ -x "$psql_bin" ] || psql_bin=psql
query="${RLYEH_TEST_DATABASE#*\?}"
newdb() { # newdb NAME: creates a database and prints its URI
	"$psql_bin" -qAt -d "$RLYEH_TEST_DATABASE" -c "CREATE DATABASE $1" >/dev/null &&
		echo "postgresql:///$1?$query"
}

play() { # play DB < script (in $tmp: the console keeps files beside its database)
	(cd "$tmp" && "$rlyeh" console --db "$1" --seed 42 --timeout 0 --lang en)
}

src=$tmp/src.db
for t in game-en game-en game-nl elder-signs-en elder-signs-en elder-signs-nl game-en; do
	play "$src" <"$golden/$t.txt" >/dev/null 2>&1
done
# One more left open, so that an unfinished game is copied too.
printf 'alice: /open\nbob: /join\n' | play "$src" >/dev/null 2>&1
# Text COPY must carry as it is: tabs, backslashes, line ends, "\N", UTF-8.
python3 -c 'import sqlite3,sys
db = sqlite3.connect(sys.argv[1])
db.execute("INSERT INTO settings (key, value) VALUES (?, ?)", ("odd", "a\tb\\c\nd\re \u00c6rwyn \\N"))
db.commit()' "$src"
odd=$(sql "$src" "SELECT hex(value) FROM settings WHERE key = 'odd'")
games=$(sql "$src" 'SELECT count(*) FROM games')
[ "$games" -ge 6 ] && ok || bad "only $games games were played"

dst=$(newdb copy1) && ok || bad "cannot create a database"
if "$rlyeh" migrate-store "$src" "$dst" >"$tmp/m.out" 2>&1; then ok; else
	bad "migrate-store: $(cat "$tmp/m.out")"
fi

there=$("$psql_bin" -qAt -d "$dst" -c "SELECT upper(encode(convert_to(value, 'UTF8'), 'hex')) FROM settings WHERE key = 'odd'")
[ -n "$odd" ] && [ "$odd" = "$there" ] && ok || bad "odd text: $odd in SQLite, $there copied"

# Every game exports the same from both.
for id in $(sql "$src" 'SELECT id FROM games ORDER BY id'); do
	"$rlyeh" export "$id" --db "$src" >"$tmp/a.json" 2>&1
	"$rlyeh" export "$id" --db "$dst" >"$tmp/b.json" 2>&1
	if [ -s "$tmp/a.json" ] && cmp -s "$tmp/a.json" "$tmp/b.json"; then ok; else
		bad "export of game $id differs"
		diff "$tmp/a.json" "$tmp/b.json" | head -5
	fi
done

# The same answers, read from the stored ratings of each.
ask='alice: /leaderboard
alice: /leaderboard elder-signs
alice: /stats
bob: /stats alice
alice: /leaderboard nl'
printf '%s\n' "$ask" | play "$src" >"$tmp/a.txt" 2>&1
printf '%s\n' "$ask" | play "$dst" >"$tmp/b.txt" 2>&1
grep -q '^(only alice sees this) 1\. ' "$tmp/a.txt" && ok || bad "nobody ranked: $(head -5 "$tmp/a.txt")"
if cmp -s "$tmp/a.txt" "$tmp/b.txt"; then ok; else
	bad "the answers differ"
	diff "$tmp/a.txt" "$tmp/b.txt" | head -10
fi

# The count of game ids ever given comes along: the next game gets the
# same id on either.
made=$(sql "$src" "SELECT seq FROM sqlite_sequence WHERE name = 'games'")
there=$("$psql_bin" -qAt -d "$dst" -c 'SELECT last FROM game_ids')
[ "$made" = "$there" ] && ok || bad "games made: $made in SQLite, $there copied"
next=$((made + 1))

# A target that is not empty is refused and left as it was.
if "$rlyeh" migrate-store "$src" "$dst" >"$tmp/m2.out" 2>&1; then
	bad "a second copy into the same database succeeded"
else
	grep -q 'not empty' "$tmp/m2.out" && ok || bad "refusal: $(cat "$tmp/m2.out")"
fi
"$rlyeh" export "$next" --db "$dst" >/dev/null 2>&1 && bad "game $next exists before it was opened" || ok

# Refusals: a missing source, a path as target.
dst2=$(newdb copy2)
"$rlyeh" migrate-store "$tmp/none.db" "$dst2" >"$tmp/m3.out" 2>&1 && bad "a missing source was copied" || ok
grep -q 'no such database file' "$tmp/m3.out" && ok || bad "missing source: $(cat "$tmp/m3.out")"
"$rlyeh" migrate-store "$src" "$tmp/other.db" >"$tmp/m4.out" 2>&1 && bad "a file target was accepted" || ok
[ ! -e "$tmp/other.db" ] && ok || bad "a file target was created"

# backup and restore of a PostgreSQL database say what to use instead.
"$rlyeh" backup "$tmp/b.db" --db "$dst" >"$tmp/b.out" 2>&1 && bad "backup of postgresql:// succeeded" || ok
grep -q 'pg_dump' "$tmp/b.out" && ok || bad "backup message: $(cat "$tmp/b.out")"
"$rlyeh" restore "$src" --db "$dst" >"$tmp/r.out" 2>&1 && bad "restore into postgresql:// succeeded" || ok
grep -q 'pg_restore' "$tmp/r.out" && ok || bad "restore message: $(cat "$tmp/r.out")"
"$rlyeh" migrate-store --help | grep -q 'empty' && ok || bad "migrate-store --help"
"$rlyeh" --help | grep -q 'migrate-store' && ok || bad "rlyeh --help lacks migrate-store"

echo "migrate: $passes passed, $failures failed"
[ "$failures" -eq 0 ]
