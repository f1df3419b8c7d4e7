#!/bin/sh
# The engine against a plain loop: `rlyeh sim --players 3 --policy random
# --threads 1` and tests/bench/cdloop.c (the same rules and random numbers,
# no game interface, no events), PAIRS pairs of runs of GAMES games each,
# interleaved (the one that goes first alternates), seed k for pair k.
# First checks that both give the same seats, cthulhu and mean_turns for the
# same seeds (2 to 12 players); then prints each run's games/s, the median of
# each, the median of the per-pair ratios rlyeh / loop, and the load average
# before and after. Build in Release first.
# Usage: tests/bench/engine.sh [BUILD_DIR] [GAMES] [PAIRS]
#        tests/bench/engine.sh --check [BUILD_DIR]   (the check alone; exit 1 on a difference)
set -eu
check_only=0
if [ "${1:-}" = "--check" ]; then
	check_only=1
	shift
fi
build=${1:-build}
games=${2:-5000000}
pairs=${3:-7}
rlyeh=$build/rlyeh
loop=$build/tests/bench_cdloop

outcome() {
	sed -n 's/.*\("seats":\[[^]]*\],"cthulhu":[0-9.]*,"mean_turns":[0-9.]*\).*/\1/p'
}

rate() {
	sed -n 's/.*"games_per_s":\([0-9]*\).*/\1/p'
}

# Same seeds, same outcome. With 1,000,000 games a rate printed to six
# decimals is the exact count of wins.
failures=0
for spec in "3 1000000 1" "3 1000000 2" "2 200000 3" "5 200000 4" "12 100000 5"; do
	set -- $spec
	a=$("$rlyeh" sim --players "$1" --games "$2" --seed "$3" --policy random --threads 1 | outcome)
	b=$("$loop" --players "$1" --games "$2" --seed "$3" | outcome)
	if [ -z "$a" ] || [ "$a" != "$b" ]; then
		echo "DIFFER players=$1 games=$2 seed=$3: rlyeh {$a} loop {$b}"
		failures=$((failures + 1))
	else
		echo "same players=$1 games=$2 seed=$3: $a"
	fi
done
[ "$failures" -eq 0 ] || exit 1
[ "$check_only" -eq 0 ] || exit 0

echo "load before: $(uptime)"
k=1
rates_r=""
rates_l=""
ratios=""
while [ "$k" -le "$pairs" ]; do
	if [ $((k % 2)) -eq 1 ]; then
		l=$("$loop" --players 3 --games "$games" --seed "$k" | rate)
		r=$("$rlyeh" sim --players 3 --games "$games" --seed "$k" --policy random --threads 1 | rate)
	else
		r=$("$rlyeh" sim --players 3 --games "$games" --seed "$k" --policy random --threads 1 | rate)
		l=$("$loop" --players 3 --games "$games" --seed "$k" | rate)
	fi
	ratio=$(awk -v r="$r" -v l="$l" 'BEGIN { printf "%.3f", r / l }')
	echo "pair $k: rlyeh $r games/s, loop $l games/s, ratio $ratio"
	rates_r="$rates_r $r"
	rates_l="$rates_l $l"
	ratios="$ratios $ratio"
	k=$((k + 1))
done
echo "load after: $(uptime)"

median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
lo=$(printf '%s\n' $ratios | sort -g | head -n 1)
hi=$(printf '%s\n' $ratios | sort -g | tail -n 1)
echo "games=$games pairs=$pairs median rlyeh_games_per_s=$(median $rates_r)" \
	"loop_games_per_s=$(median $rates_l) ratio_rlyeh_over_loop=$(median $ratios) (range $lo-$hi)"
