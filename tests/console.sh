#!/bin/sh
# The terminal game end to end: golden transcripts in English and Dutch, the
# export -> replay round trip, and a kill -9 in the middle of a game followed
# by a restart that finishes it exactly as an uninterrupted run does.
# Usage: console.sh RLYEH GOLDEN_DIR
set -u
rlyeh=$1
golden=$2/console
tmp=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
passes=0
failures=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL $*"; failures=$((failures + 1)); }

sql() { # sql DB QUERY: prints the first column of every row
	python3 -c 'import sqlite3,sys
for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]): print(r[0])' "$1" "$2"
}

play() { # play LANG DB < script
	"$rlyeh" console --db "$2" --seed 42 --timeout 0 --lang "$1"
}

for lang in en nl; do
	play "$lang" "$tmp/$lang.db" <"$golden/game-$lang.txt" >"$tmp/$lang.out" 2>"$tmp/$lang.err"
	if cmp -s "$tmp/$lang.out" "$golden/game-$lang.out"; then ok; else
		bad "transcript $lang differs from $golden/game-$lang.out:"
		diff "$golden/game-$lang.out" "$tmp/$lang.out" | head -20
	fi
	[ -s "$tmp/$lang.err" ] && bad "console $lang wrote to stderr: $(cat "$tmp/$lang.err")"
	[ "$(sql "$tmp/$lang.db" 'PRAGMA integrity_check')" = ok ] && ok || bad "integrity $lang"
done

# The stored game, exported and replayed, ends as the store says.
if "$rlyeh" export 1 --db "$tmp/en.db" >"$tmp/game.json"; then ok; else bad "export"; fi
"$rlyeh" replay "$tmp/game.json" >"$tmp/replay.out" || bad "replay of the export"
winner=$(sql "$tmp/en.db" 'SELECT winner FROM games WHERE id = 1')
case "$winner" in
-1) want='{"winner":"cthulhu"}' ;;
*) want="{\"winner\":$winner}" ;;
esac
if tail -n 1 "$tmp/replay.out" | grep -q "\"result\":$want}"; then ok; else
	bad "replayed result $(tail -n 1 "$tmp/replay.out"), stored winner $winner"
fi
turns=$(grep -c . "$tmp/replay.out")
[ "$turns" -gt 0 ] && ok || bad "no turns exported"
"$rlyeh" export 99 --db "$tmp/en.db" >/dev/null 2>&1 && bad "export of a missing game succeeded" || ok

# kill -9 mid-game, restart, finish: the same game as without the kill.
head -n 8 "$golden/game-en.txt" >"$tmp/first.txt"
tail -n +9 "$golden/game-en.txt" >"$tmp/rest.txt"
mkfifo "$tmp/fifo"
play en "$tmp/k.db" <"$tmp/fifo" >"$tmp/k1.out" 2>&1 &
pid=$!
exec 3>"$tmp/fifo"
cat "$tmp/first.txt" >&3
i=0
until grep -q "Turn 3: heuristic-bot-1 curses alice." "$tmp/k1.out" 2>/dev/null; do
	i=$((i + 1))
	[ "$i" -gt 100 ] && break
	sleep 0.1
done
kill -9 "$pid"
wait "$pid" 2>/dev/null
pid=""
exec 3>&-
play en "$tmp/k.db" <"$tmp/rest.txt" >"$tmp/k2.out" 2>&1
"$rlyeh" export 1 --db "$tmp/k.db" >"$tmp/k.json" || bad "export after restart"
if cmp -s "$tmp/game.json" "$tmp/k.json"; then ok; else
	bad "the restarted game differs from the uninterrupted one"
	diff "$tmp/game.json" "$tmp/k.json" | head
fi
# What the restarted process printed is the tail of the uninterrupted transcript.
if tail -n "$(wc -l <"$tmp/k2.out")" "$golden/game-en.out" | cmp -s - "$tmp/k2.out"; then ok; else
	bad "the restarted transcript differs"
	diff "$tmp/k2.out" "$golden/game-en.out" | head
fi
[ "$(sql "$tmp/k.db" 'PRAGMA integrity_check')" = ok ] && ok || bad "integrity after kill"
[ "$(sql "$tmp/k.db" 'SELECT state FROM games WHERE id = 1')" = 2 ] && ok || bad "not finished"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
