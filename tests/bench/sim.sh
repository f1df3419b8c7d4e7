#!/bin/sh
# Engine benchmark: 3-player `random` Cthulhu Dice games per second, on one
# thread and on every core, median of REPEATS runs of GAMES games each.
# Usage: tests/bench/sim.sh [RLYEH] [GAMES] [REPEATS]
set -eu
rlyeh=${1:-build/rlyeh}
games=${2:-20000000}
repeats=${3:-5}
cores=$(nproc 2>/dev/null || echo 1)
for threads in 1 "$cores"; do
	i=0
	rates=""
	while [ "$i" -lt "$repeats" ]; do
		r=$("$rlyeh" sim --players 3 --games "$games" --seed "$((i + 1))" --threads "$threads" |
			sed 's/.*"games_per_s":\([0-9]*\).*/\1/')
		rates="$rates $r"
		i=$((i + 1))
	done
	median=$(printf '%s\n' $rates | sort -n | sed -n "$(((repeats + 1) / 2))p")
	echo "threads=$threads games=$games runs:$rates median_games_per_s=$median"
done
