#!/bin/sh
# Valgrind memcheck over the integration tests: the daemon against the fake
# Discord, the scripted terminal games, and board games simulated. Any invalid access or definite
# leak fails. Usage: valgrind.sh RLYEH FAKEDISCORD TESTS_DIR
set -u
rlyeh=$1
fake=$2
tests=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! command -v valgrind >/dev/null 2>&1; then
	echo "valgrind is missing (scripts/deps installs it)"
	echo "0 passed, 1 failed"
	exit 1
fi
mkdir "$tmp/logs"
cat >"$tmp/rlyeh" <<EOT
#!/bin/sh
exec valgrind --quiet --error-exitcode=99 --leak-check=full \
	--errors-for-leak-kinds=definite,indirect --log-file=$tmp/logs/%p.log "$rlyeh" "\$@"
EOT
chmod +x "$tmp/rlyeh"
passes=0
failures=0
python3 "$tests/discord/run_tests.py" "$tmp/rlyeh" "$fake" >"$tmp/e2e.out" 2>&1 && passes=$((passes + 1)) || {
	echo "FAIL the end-to-end tests under valgrind:"; grep "^FAIL" "$tmp/e2e.out" | head -5; tail -3 "$tmp/e2e.out"; failures=$((failures + 1)); }
python3 "$tests/discord/shard_test.py" "$tmp/rlyeh" "$fake" >"$tmp/shards.out" 2>&1 && passes=$((passes + 1)) || {
	echo "FAIL the shard tests under valgrind:"; grep "^FAIL" "$tmp/shards.out" | head -5; tail -3 "$tmp/shards.out"; failures=$((failures + 1)); }
"$tests/console.sh" "$tmp/rlyeh" "$tests/golden" >"$tmp/console.out" 2>&1 && passes=$((passes + 1)) || {
	echo "FAIL the console tests under valgrind:"; tail -5 "$tmp/console.out"; failures=$((failures + 1)); }
# The board game engine: uninitialised reads change games silently, and
# the sanitizer build does not see them.
"$tmp/rlyeh" sim --game cthulhu --players 4 --games 12 --seed 1 >"$tmp/board.out" 2>&1 &&
	"$tmp/rlyeh" sim --game cthulhu --players 3 --games 2 --seed 2 --rounds 40 --policy random \
		>>"$tmp/board.out" 2>&1 && passes=$((passes + 1)) || {
	echo "FAIL the board game simulation under valgrind:"; tail -5 "$tmp/board.out"; failures=$((failures + 1)); }
runs=$(ls "$tmp/logs" | wc -l)
for f in "$tmp"/logs/*.log; do
	if [ -s "$f" ]; then
		echo "FAIL valgrind reported:"; head -40 "$f"
		failures=$((failures + 1))
	fi
done
[ "$runs" -ge 10 ] && passes=$((passes + 1)) || { echo "FAIL only $runs processes ran under valgrind"; failures=$((failures + 1)); }
echo "valgrind: $runs processes checked"
echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
