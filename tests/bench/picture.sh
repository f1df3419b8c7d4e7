#!/bin/sh
# The cost of a CTHULHU!!! table message with its map: a seeded terminal game
# is played into round 5 (alice and two computer players), then /status is
# asked N times; each answer renders the table's text, the map as text and
# as a PNG, and writes the PNG. Prints the milliseconds per table message.
# Usage: tests/bench/picture.sh RLYEH [N]   (a Release build, e.g. build/rlyeh)
set -eu
rlyeh=$(realpath "$1")
n=${2:-200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
{
	printf 'alice: /open cthulhu cap:30\nalice: /addbot\nalice: /addbot\nalice: /start\n'
	i=0
	while [ "$i" -lt 60 ]; do
		printf 'alice: /pick 1\nalice: /confirm 1\nalice: /tokens alternate\n'
		i=$((i + 1))
	done
} | "$rlyeh" console --db game.db --seed 42 --timeout 0 --pictures pictures >setup.txt 2>&1
grep -q "round [5-9]" setup.txt || { echo "the game did not reach round 5" >&2; exit 1; }
i=0
while [ "$i" -lt "$n" ]; do
	printf 'alice: /status\n'
	i=$((i + 1))
done >status.txt
start=$(date +%s%N)
"$rlyeh" console --db game.db --seed 42 --timeout 0 --pictures pictures <status.txt >out.txt 2>&1
end=$(date +%s%N)
[ "$(grep -c 'picture: ' out.txt)" -eq "$n" ] || { echo "not every answer had its picture" >&2; exit 1; }
echo "$n table messages with the map: $(( (end - start) / n / 1000 )) us each ($(wc -c <"$(ls -t pictures/*.png | head -n 1)") bytes of PNG)"
