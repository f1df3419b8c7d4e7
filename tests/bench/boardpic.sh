#!/bin/sh
# The board game against a yardstick in one run: this build (NEW) and
# another (OLD: by default the branch `main` of this repository, built in
# Release from `git archive` under /tmp) run in alternation, ROUNDS rounds:
#  - engine: `rlyeh sim --game cthulhu --players 4 --threads 1`, GAMES games
#    (seed = the round), games per second (as tests/bench/cthulhu.sh);
#  - play: a seeded terminal game (alice and two computer players, into
#    round 5, as tests/bench/picture.sh), milliseconds per table message,
#    every one with a new map and its PNG written;
#  - status: /status asked N times on that game's last position, each
#    answer the same map with its PNG written, milliseconds per message;
#  - picture: ctpicture_png alone (tests/bench/boardpng.c, compiled against
#    each tree's include/ and libraries): 100 positions of a seeded game
#    (seed = the round) drawn once each (a new map), then again (the same
#    map), microseconds per picture.
# Prints every run, then per figure the medians, NEW / OLD (for times
# OLD / NEW: above 1 is faster), the median of each round's own ratio, and
# the load average before and after.
# Usage: tests/bench/boardpic.sh [NEW_RLYEH] [ROUNDS] [GAMES] [N]
#   NEW_RLYEH's directory is its build directory (default build-release).
#   OLD_RLYEH=path of another build's rlyeh (its build directory with
#   librlyeh_board.a, its tree above it) instead of building OLD_REF
#   (default main).
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
new=$(realpath "${1:-$repo/build-release/rlyeh}")
rounds=${2:-5}
games=${3:-2000}
n=${4:-200}
tmp=$(mktemp -d /tmp/rlyeh-boardpic-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

old=${OLD_RLYEH:-}
if [ -z "$old" ]; then
	ref=${OLD_REF:-main}
	mkdir "$tmp/src"
	git -C "$repo" archive "$ref" | tar -x -C "$tmp/src"
	cmake -S "$tmp/src" -B "$tmp/src/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build "$tmp/src/build" --target rlyeh -j2 >/dev/null
	old=$tmp/src/build/rlyeh
fi
old=$(realpath "$old")

# boardpng TREE BUILD_DIR OUT: the picture benchmark against one tree, in
# that tree's own spelling (board_* before the ct prefix, ctpicture_* after).
boardpng() {
	cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -I"$1/include" "$1/tests/bench/boardpng.c" \
		"$2/librlyeh_board.a" "$2/librlyeh_core.a" \
		$(pkg-config --cflags --libs cairo fontconfig libpng) -lm -lpthread -o "$3"
}
boardpng "$(dirname "$(dirname "$old")")" "$(dirname "$old")" "$tmp/boardpng-old"
boardpng "$repo" "$(dirname "$new")" "$tmp/boardpng-new"

now_ns() { date +%s%N; }

# play BIN DIR: the game into round 5; prints microseconds per pictured message.
play() {
	mkdir -p "$2"
	{
		printf 'alice: /open cthulhu cap:30\nalice: /addbot\nalice: /addbot\nalice: /start\n'
		i=0
		while [ "$i" -lt 60 ]; do
			printf 'alice: /pick 1\nalice: /confirm 1\nalice: /tokens alternate\n'
			i=$((i + 1))
		done
	} >"$2/setup.in"
	s=$(now_ns)
	(cd "$2" && "$1" console --db game.db --seed 42 --timeout 0 --pictures pictures \
		<setup.in >setup.txt 2>&1)
	e=$(now_ns)
	grep -q "round [5-9]" "$2/setup.txt" || { echo "the game did not reach round 5" >&2; exit 1; }
	k=$(grep -c 'picture: ' "$2/setup.txt")
	echo $(((e - s) / k / 1000))
}

# status BIN DIR: /status N times; prints microseconds per message.
status() {
	i=0
	while [ "$i" -lt "$n" ]; do
		printf 'alice: /status\n'
		i=$((i + 1))
	done >"$2/status.in"
	s=$(now_ns)
	(cd "$2" && "$1" console --db game.db --seed 42 --timeout 0 --pictures pictures \
		<status.in >status.txt 2>&1)
	e=$(now_ns)
	[ "$(grep -c 'picture: ' "$2/status.txt")" -eq "$n" ] ||
		{ echo "not every answer had its picture" >&2; exit 1; }
	echo $(((e - s) / n / 1000))
}

sim() {
	"$1" sim --game cthulhu --players 4 --games "$games" --seed "$2" --threads 1 |
		sed 's/.*"games_per_s":\([0-9]*\).*/\1/'
}

load0=$(uptime)
: >"$tmp/runs"
r=1
while [ "$r" -le "$rounds" ]; do
	for who in old new; do
		bin=$old
		[ "$who" = new ] && bin=$new
		d="$tmp/$who-$r"
		g=$(sim "$bin" "$r")
		p=$(play "$bin" "$d")
		q=$(status "$bin" "$d")
		pic=$("$tmp/boardpng-$who" "$r" 100)
		a=$(echo "$pic" | sed 's/.*new_map_us=\([0-9]*\).*/\1/')
		b=$(echo "$pic" | sed 's/.*same_map_us=\([0-9]*\).*/\1/')
		echo "round=$r build=$who sim_games_per_s=$g play_us_per_msg=$p status_us_per_msg=$q" \
			"picture_new_map_us=$a picture_same_map_us=$b" | tee -a "$tmp/runs"
	done
	r=$((r + 1))
done
load1=$(uptime)

median() { # build field
	grep "build=$1 " "$tmp/runs" | sed "s/.* $2=\([0-9]*\).*/\1/" | sort -n |
		sed -n "$(((rounds + 1) / 2))p"
}
for f in sim_games_per_s play_us_per_msg status_us_per_msg picture_new_map_us picture_same_map_us; do
	o=$(median old $f)
	w=$(median new $f)
	case $f in
	sim_*) ratio=$(awk -v a="$w" -v b="$o" 'BEGIN { printf "%.2f", a / b }') ;;
	*) ratio=$(awk -v a="$o" -v b="$w" 'BEGIN { printf "%.2f", a / (b > 0 ? b : 1) }') ;;
	esac
	# the same ratio per round (old and new ran next to each other), its median
	pair=$(r=1; while [ "$r" -le "$rounds" ]; do
		a=$(grep "^round=$r build=old " "$tmp/runs" | sed "s/.* $f=\([0-9]*\).*/\1/")
		b=$(grep "^round=$r build=new " "$tmp/runs" | sed "s/.* $f=\([0-9]*\).*/\1/")
		case $f in
		sim_*) awk -v a="$b" -v b="$a" 'BEGIN { printf "%.3f\n", a / b }' ;;
		*) awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f\n", a / (b > 0 ? b : 1) }' ;;
		esac
		r=$((r + 1))
	done | sort -n | sed -n "$(((rounds + 1) / 2))p")
	echo "$f: old=$o new=$w speedup=$ratio (median of the rounds' own ratios: $pair)"
done
echo "old=$old new=$new rounds=$rounds games=$games status_n=$n"
echo "load before:$load0"
echo "load after: $load1"
