#!/bin/sh
# The engine against a plain loop: `rlyeh sim --players 3 --policy random
# --threads 1` and tests/bench/cdloop.c (the same rules and random numbers,
# no game interface, no events), PAIRS pairs of runs of GAMES games each,
# interleaved (the one that goes first alternates), seed k for pair k.
# First checks that both give the same seats, cthulhu and mean_turns for the
# same seeds (2 to 12 players); then prints each run's games/s (wall clock,
# and per CPU second of the process), the median of each, the median of the
# per-pair ratios rlyeh / loop, and the load average before and after.
# Build in Release first.
# With --instructions, the same comparison by instructions per game under
# callgrind instead (GAMES games, default 200,000, less a run of one game,
# which takes out the start of each process): the machine's load does not
# change it.
# Usage: tests/bench/engine.sh [BUILD_DIR] [GAMES] [PAIRS]
#        tests/bench/engine.sh --check [BUILD_DIR]   (the check alone; exit 1 on a difference)
#        tests/bench/engine.sh --instructions [BUILD_DIR] [GAMES]
set -eu
mode="time"
case "${1:-}" in
--check)
	mode=check
	shift
	;;
--instructions)
	mode=instructions
	shift
	;;
esac
build=${1:-build}
if [ "$mode" = instructions ]; then
	games=${2:-200000}
else
	games=${2:-5000000}
fi
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
[ "$mode" != check ] || exit 0

# Instructions the program runs for G games (callgrind's Ir).
instructions() {
	g=$1
	shift
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" --games "$g" 2>&1 >/dev/null |
		sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}

if [ "$mode" = instructions ]; then
	command -v valgrind >/dev/null || { echo "engine.sh: --instructions needs valgrind"; exit 1; }
	set -- "$rlyeh" sim --players 3 --seed 1 --policy random --threads 1
	r=$(($(instructions "$games" "$@") - $(instructions 1 "$@")))
	set -- "$loop" --players 3 --seed 1
	l=$(($(instructions "$games" "$@") - $(instructions 1 "$@")))
	awk -v r="$r" -v l="$l" -v g="$games" 'BEGIN {
		printf "games=%d instructions per game: rlyeh %.1f, loop %.1f, ratio rlyeh/loop %.3f (loop / rlyeh instructions)\n",
			g, r / (g - 1), l / (g - 1), l / r }'
	exit 0
fi

# One run: "WALL_GAMES_PER_S CPU_GAMES_PER_S", the second from the process's
# user + system time (/usr/bin/time), steadier than the wall clock on a
# shared machine; "-" without /usr/bin/time.
run() {
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >"$tmp/out"
		cpu=$(awk -v g="$games" '{ s = $1 + $2; printf "%.0f", (s > 0 ? g / s : 0) }' "$tmp/time")
	else
		"$@" >"$tmp/out"
		cpu=-
	fi
	echo "$(rate <"$tmp/out") $cpu"
}

lowest() {
	printf '%s\n' "$@" | sort -g | head -n 1
}

highest() {
	printf '%s\n' "$@" | sort -g | tail -n 1
}

median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

ratio() {
	awk -v r="$1" -v l="$2" 'BEGIN { if (r == "-" || l + 0 == 0) print "-"; else printf "%.3f", r / l }'
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "load before: $(uptime)"
k=1
wall_r=""
wall_l=""
cpu_r=""
cpu_l=""
wall_x=""
cpu_x=""
while [ "$k" -le "$pairs" ]; do
	if [ $((k % 2)) -eq 1 ]; then
		l=$(run "$loop" --players 3 --games "$games" --seed "$k")
		r=$(run "$rlyeh" sim --players 3 --games "$games" --seed "$k" --policy random --threads 1)
	else
		r=$(run "$rlyeh" sim --players 3 --games "$games" --seed "$k" --policy random --threads 1)
		l=$(run "$loop" --players 3 --games "$games" --seed "$k")
	fi
	set -- $r $l
	wx=$(ratio "$1" "$3")
	cx=$(ratio "$2" "$4")
	echo "pair $k: rlyeh $1 games/s ($2 per CPU second), loop $3 games/s ($4 per CPU second)," \
		"ratio $wx (CPU $cx)"
	wall_r="$wall_r $1"
	cpu_r="$cpu_r $2"
	wall_l="$wall_l $3"
	cpu_l="$cpu_l $4"
	wall_x="$wall_x $wx"
	cpu_x="$cpu_x $cx"
	k=$((k + 1))
done
echo "load after: $(uptime)"
echo "games=$games pairs=$pairs medians:"
echo "  wall: rlyeh $(median $wall_r) games/s, loop $(median $wall_l) games/s," \
	"ratio rlyeh/loop $(median $wall_x) (range $(lowest $wall_x)-$(highest $wall_x))"
echo "  CPU:  rlyeh $(median $cpu_r) games/s, loop $(median $cpu_l) games/s," \
	"ratio rlyeh/loop $(median $cpu_x) (range $(lowest $cpu_x)-$(highest $cpu_x))"
