#!/bin/sh
# Engine benchmark for the CTHULHU!!! board game: whole games per second of
# 4 `baseline` players on one thread (round cap 200, C19), median of REPEATS
# runs of GAMES games each, seeds 1..REPEATS.
# Usage: tests/bench/cthulhu.sh [RLYEH] [GAMES] [REPEATS]
set -eu
rlyeh=${1:-build/rlyeh}
games=${2:-5000}
repeats=${3:-5}
i=0
rates=""
while [ "$i" -lt "$repeats" ]; do
	r=$("$rlyeh" sim --game cthulhu --players 4 --games "$games" --seed "$((i + 1))" --threads 1 |
		sed 's/.*"games_per_s":\([0-9]*\).*/\1/')
	rates="$rates $r"
	i=$((i + 1))
done
median=$(printf '%s\n' $rates | sort -n | sed -n "$(((repeats + 1) / 2))p")
echo "game=cthulhu players=4 policy=baseline threads=1 games=$games runs:$rates median_games_per_s=$median"
