#!/bin/sh
# Elder Signs tournaments: each policy in every seat in turn against a
# field of another policy, at 2 and 4 players; prints its win rate over all
# seats with the standard error and the fair share 1/players.
# Usage: tests/bench/esigns.sh [RLYEH] [GAMES] [SEED] [THREADS]
#   GAMES per seat (default 200000), SEED of the dice (default 1).
set -eu
rlyeh=${1:-build/rlyeh}
games=${2:-200000}
seed=${3:-1}
threads=${4:-$(nproc 2>/dev/null || echo 1)}

# duel PLAYERS POLICY FIELD: POLICY in each seat in turn, FIELD elsewhere.
duel() {
	n=$1
	seat=0
	rates=""
	while [ "$seat" -lt "$n" ]; do
		list=""
		s=0
		while [ "$s" -lt "$n" ]; do
			if [ "$s" -eq "$seat" ]; then p=$2; else p=$3; fi
			list="${list:+$list,}$p"
			s=$((s + 1))
		done
		r=$("$rlyeh" sim --game elder-signs --players "$n" --games "$games" --seed "$seed" \
			--threads "$threads" --policy "$list" |
			sed 's/.*"seats":\[\([^]]*\)\].*/\1/' | cut -d, -f$((seat + 1)))
		rates="$rates $r"
		seat=$((seat + 1))
	done
	echo "$rates" | awk -v n="$n" -v g="$games" -v a="$2" -v b="$3" '{
		m = 0; v = 0
		for (i = 1; i <= NF; i++) { m += $i; v += $i * (1 - $i) / g }
		m /= NF; se = sqrt(v) / NF
		printf "players=%d %-8s vs %-8s win=%.4f se=%.4f fair=%.4f edge=%+.4f (%.1f se) seats:%s\n",
			n, a, b, m, se, 1 / n, m - 1 / n, (m - 1 / n) / se, $0
	}'
}

for n in 2 4; do
	duel "$n" expect greedy-2
	duel "$n" ev expect
	duel "$n" best expect
	duel "$n" best greedy-2
	duel "$n" best ev
done
