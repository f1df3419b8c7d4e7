#!/bin/sh
# Valgrind memcheck over the integration tests: the daemon against the fake
# Discord (the end-to-end suite, the shard tests), the scripted terminal
# games, and board games simulated, one after another (the shard test's 40
# guilds under valgrind do not keep up beside another memcheck). Any invalid
# access or definite leak fails. Usage: valgrind.sh RLYEH FAKEDISCORD TESTS_DIR
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
# the daemon runs several times slower under valgrind: the Python tests' waits stretch
export RLYEH_TEST_SLOW=3
want=0
# part NAME AT_LEAST WHAT CMD...: runs CMD (its output into $tmp/NAME.out),
# counts it passed or failed, and wants at least AT_LEAST more processes to
# have run under valgrind
part() {
	name=$1 at_least=$2 what=$3
	shift 3
	want=$((want + at_least))
	started=$(date +%s)
	if "$@" >"$tmp/$name.out" 2>&1; then
		passes=$((passes + 1))
	else
		echo "FAIL $what under valgrind:"
		grep "^FAIL" "$tmp/$name.out" | head -5
		tail -5 "$tmp/$name.out"
		failures=$((failures + 1))
	fi
	echo "valgrind: $name took $(($(date +%s) - started)) s"
}
# The board game engine: uninitialised reads change games silently, and
# the sanitizer build does not see them.
board() {
	"$tmp/rlyeh" sim --game cthulhu --players 4 --games 12 --seed 1 &&
		"$tmp/rlyeh" sim --game cthulhu --players 3 --games 2 --seed 2 --rounds 40 --policy random
}
part e2e 8 "the end-to-end tests" python3 "$tests/discord/run_tests.py" "$tmp/rlyeh" "$fake"
part shards 4 "the shard tests" python3 "$tests/discord/shard_test.py" "$tmp/rlyeh" "$fake"
part console 2 "the console tests" "$tests/console.sh" "$tmp/rlyeh" "$tests/golden"
part board 2 "the board game simulation" board
runs=$(ls "$tmp/logs" | wc -l)
for f in "$tmp"/logs/*.log; do
	if [ -s "$f" ]; then
		echo "FAIL valgrind reported:"; head -40 "$f"
		failures=$((failures + 1))
	fi
done
[ "$runs" -ge "$want" ] && passes=$((passes + 1)) || {
	echo "FAIL $runs processes ran under valgrind, at least $want wanted"; failures=$((failures + 1)); }
echo "valgrind: $runs processes checked"
echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
