#!/bin/sh
# Valgrind memcheck over the integration tests: the daemon against the fake
# Discord (the end-to-end suite, e2e; the shard tests, shards), the scripted
# terminal games (console), and board games simulated (board). Any invalid
# access or definite leak fails. ctest runs the parts as two tests, side by
# side. Usage: valgrind.sh RLYEH FAKEDISCORD TESTS_DIR [PART...] (default: all)
set -u
rlyeh=$1
fake=$2
tests=$3
shift 3
parts=${*:-e2e shards console board}
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
# the daemon runs several times slower under valgrind: the Python tests' waits stretch
export RLYEH_TEST_SLOW=3
part() {
	case " $parts " in *" $1 "*) ;; *) return 1 ;; esac
	echo "valgrind: $1" >&2
	started=$(date +%s)
}
took() { echo "valgrind: $1 took $(($(date +%s) - started)) s"; }
want=0
if part e2e; then
	want=$((want + 8))
	python3 "$tests/discord/run_tests.py" "$tmp/rlyeh" "$fake" >"$tmp/e2e.out" 2>&1 && passes=$((passes + 1)) || {
		echo "FAIL the end-to-end tests under valgrind:"; grep "^FAIL" "$tmp/e2e.out" | head -5; tail -3 "$tmp/e2e.out"; failures=$((failures + 1)); }
	took e2e
fi
if part shards; then
	want=$((want + 4))
	python3 "$tests/discord/shard_test.py" "$tmp/rlyeh" "$fake" >"$tmp/shards.out" 2>&1 && passes=$((passes + 1)) || {
		echo "FAIL the shard tests under valgrind:"; grep "^FAIL" "$tmp/shards.out" | head -5; tail -3 "$tmp/shards.out"; failures=$((failures + 1)); }
	took shards
fi
if part console; then
	want=$((want + 2))
	"$tests/console.sh" "$tmp/rlyeh" "$tests/golden" >"$tmp/console.out" 2>&1 && passes=$((passes + 1)) || {
		echo "FAIL the console tests under valgrind:"; tail -5 "$tmp/console.out"; failures=$((failures + 1)); }
	took console
fi
# The board game engine: uninitialised reads change games silently, and
# the sanitizer build does not see them.
if part board; then
	want=$((want + 2))
	"$tmp/rlyeh" sim --game cthulhu --players 4 --games 12 --seed 1 >"$tmp/board.out" 2>&1 &&
		"$tmp/rlyeh" sim --game cthulhu --players 3 --games 2 --seed 2 --rounds 40 --policy random \
			>>"$tmp/board.out" 2>&1 && passes=$((passes + 1)) || {
		echo "FAIL the board game simulation under valgrind:"; tail -5 "$tmp/board.out"; failures=$((failures + 1)); }
	took board
fi
runs=$(ls "$tmp/logs" | wc -l)
for f in "$tmp"/logs/*.log; do
	if [ -s "$f" ]; then
		echo "FAIL valgrind reported:"; head -40 "$f"
		failures=$((failures + 1))
	fi
done
[ "$want" -gt 0 ] && [ "$runs" -ge "$want" ] && passes=$((passes + 1)) || {
	echo "FAIL $runs processes ran under valgrind (parts: $parts), at least $want wanted"; failures=$((failures + 1)); }
echo "valgrind: $runs processes checked"
echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
