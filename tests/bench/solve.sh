#!/bin/sh
# Solver benchmark: values, solve times, memory and exploitability for 2-6
# cultists and Rival Cults 2x2, 2x3 (rlyeh analyze), then tournaments of
# solver (the equilibrium's mixed profile, drawn from each game's seeded
# stream) against heuristic and random with the solver's seat rotated,
# GAMES games a seat (seed 7). Every `rlyeh sim` solves its table anew.
# Usage: tests/bench/solve.sh path/to/rlyeh [GAMES]   (use a Release build)
set -eu
RLYEH=${1:?usage: solve.sh path/to/rlyeh [games]}
GAMES=${2:-20000}

echo "## Solve (rlyeh analyze)"
/usr/bin/time -f "analyze: %e s, max RSS %M KB" "$RLYEH" analyze

echo
echo "## Tournaments: solver in one seat, the field in the others; $GAMES games a seat"
echo "(SE: standard error of the solver's rate, and of its lead over a field seat: per game"
echo " the solver's win minus a field seat's share of the field's wins)"
echo "| players | field | solver wins | a field seat wins | Cthulhu | solver's lead |"
echo "| --- | --- | --- | --- | --- | --- |"
for n in 3 4 5 6; do
	for field in heuristic random; do
		hero=0
		other=0
		cth=0
		seat=0
		while [ "$seat" -lt "$n" ]; do
			pol=$(python3 -c "print(','.join('solver' if i == $seat else '$field' for i in range($n)))")
			out=$("$RLYEH" sim --players "$n" --games "$GAMES" --seed 7 --policy "$pol")
			set -- $(echo "$out" | python3 -c "
import json, sys
d = json.load(sys.stdin)
s = d['seats']
print(s[$seat], (1 - d['cthulhu'] - s[$seat]) / ($n - 1), d['cthulhu'])")
			hero=$(python3 -c "print($hero + $1)")
			other=$(python3 -c "print($other + $2)")
			cth=$(python3 -c "print($cth + $3)")
			seat=$((seat + 1))
		done
		python3 -c "
import math
n, g = $n, $GAMES
p, o, c = $hero / n, $other / n, $cth / n
f = 1 - p - c  # the field's wins
se_p = math.sqrt(p * (1 - p) / (n * g))
d = p - f / (n - 1)
se_d = math.sqrt((p + f / (n - 1) ** 2 - d * d) / (n * g))
print('| %d | $field | %.4f ± %.4f | %.4f | %.4f | %+.4f ± %.4f |' % (n, p, se_p, o, c, d, se_d))"
	done
done
