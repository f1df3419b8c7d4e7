#!/bin/sh
# The database on a full disk (a 300 KiB tmpfs), then on a read-only one
# (refused at start with a clear message). Moves on a full disk are refused,
# change nothing, and play resumes from the last stored move with room again. Usage: diskfull.sh RLYEH
set -u
rlyeh=$1
tmp=$(mktemp -d)
fs=$tmp/fs
mkdir "$fs"
cleanup() { exec 3>&- 2>/dev/null; umount "$fs" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
if ! mount -t tmpfs -o size=300k tmpfs "$fs" 2>"$tmp/mount.err"; then
	echo "FAIL cannot mount a small tmpfs (needs root): $(cat "$tmp/mount.err")"
	echo "0 passed, 1 failed"
	exit 1
fi
passes=0
failures=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL $*"; failures=$((failures + 1)); }
mkfifo "$tmp/in"
"$rlyeh" console --db "$fs/rlyeh.db" --seed 3 --timeout 0 <"$tmp/in" >"$tmp/out" 2>&1 &
pid=$!
exec 3>"$tmp/in"
say() { printf '%s\n' "$1" >&3; sleep 0.05; }
# Fill the disk: open and abort tables until a write is refused.
i=0
while [ $i -lt 400 ] && ! grep -q "could not be saved" "$tmp/out"; do
	say "alice: /open"
	say "bob: /join"
	say "alice: /abort"
	i=$((i + 1))
done
grep -q "could not be saved" "$tmp/out" && ok || bad "the disk never filled"
lines=$(wc -l <"$tmp/out")
# The disk filled on whichever command: the channel may still hold a table.
say "alice: /abort"
say "carol: /open"
sleep 0.2
tail -n +"$((lines + 1))" "$tmp/out" | grep -q "could not be saved" && ok || bad "a move on a full disk was not refused"
tail -n +"$((lines + 1))" "$tmp/out" | grep -q "A table is open" && bad "a refused move was announced" || ok
# Room again: the same command now works.
mount -o remount,size=8m "$fs" && ok || bad "remount"
say "alice: /abort"
lines=$(wc -l <"$tmp/out")
say "carol: /open"
say "dave: /join"
say "carol: /start carol"
say "carol: /curse dave"
sleep 0.3
tail -n +"$((lines + 1))" "$tmp/out" | grep -q "Turn 1: carol curses dave." && ok || { bad "play did not resume"; tail -5 "$tmp/out"; }
# Remove dave's turn from the picture: the game is stored, the process ends.
exec 3>&-
wait "$pid"
python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("PRAGMA integrity_check").fetchone()[0])' "$fs/rlyeh.db" | grep -qx ok && ok || bad "integrity"
# A read-only filesystem: refused at start with a clear message, nothing lost.
mount -o remount,ro "$fs" && ok || bad "remount read-only"
printf 'dave: /status\n' | "$rlyeh" console --db "$fs/rlyeh.db" --timeout 0 >"$tmp/ro.out" 2>"$tmp/ro.err"
status=$?
[ "$status" -eq 1 ] && grep -q "$fs/rlyeh.db" "$tmp/ro.err" && ok || { bad "read-only start: exit $status, $(cat "$tmp/ro.err")"; }
mount -o remount,rw "$fs" && ok || bad "remount read-write"
printf 'dave: /respond\n' | "$rlyeh" console --db "$fs/rlyeh.db" --timeout 0 >"$tmp/rw.out" 2>&1
grep -q "dave responds" "$tmp/rw.out" && ok || { bad "the game did not go on after read-only"; tail -3 "$tmp/rw.out"; }
echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
