#!/bin/sh
# The rlyeh command line: help, version, exit statuses, sim JSON and replay
# (every game) from a file and from standard input. Usage: cli.sh RLYEH GOLDEN_DIR
set -u
rlyeh=$1
golden=$2
config=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
passes=0

check() { # check NAME WANT_STATUS COMMAND...
	name=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" -ne "$want" ]; then
		echo "FAIL $name: exit $got, want $want"; cat "$tmp/err"
		failures=$((failures + 1))
		return 1
	fi
	passes=$((passes + 1))
	return 0
}

expect_out() { # expect_out NAME PATTERN: the last command's stdout matches
	if ! grep -q -- "$2" "$tmp/out"; then
		echo "FAIL $1: stdout lacks $2"; cat "$tmp/out"
		failures=$((failures + 1))
	fi
}

expect_err() {
	if ! grep -q -- "$2" "$tmp/err"; then
		echo "FAIL $1: stderr lacks $2"; cat "$tmp/err"
		failures=$((failures + 1))
	fi
}

check version 0 "$rlyeh" --version && expect_out version '^rlyeh [0-9]'
check help 0 "$rlyeh" --help && expect_out help 'sim'
check no-command 2 "$rlyeh"
check unknown-command 2 "$rlyeh" fly
check sim-help 0 "$rlyeh" sim --help && expect_out sim-help '--players' && expect_out sim-help 'elder-signs'
expect_out sim-help 'in cthulhu the first' && expect_out sim-help 'first_player'
check console-help 0 "$rlyeh" console --help && expect_out console-help '--seed'
check export-help 0 "$rlyeh" export --help && expect_out export-help 'replay script'
check console-bad-lang 2 "$rlyeh" console --lang fr
check export-no-game 2 "$rlyeh" export
check replay-help 0 "$rlyeh" replay --help && expect_out replay-help 'response_eye'

check sim 0 "$rlyeh" sim --players 4 --games 2000 --seed 9 --policy heuristic,random,random,random
grep -q first_player "$tmp/out" && { echo "FAIL sim: turn order keys for cthulhu-dice"; failures=$((failures + 1)); }
expect_out sim '"players":4,'
expect_out sim '"games":2000,'
expect_out sim '"seats":\[[0-9.]*,[0-9.]*,[0-9.]*,[0-9.]*\]'
expect_out sim '"cthulhu":'
expect_out sim '"mean_turns":'
expect_out sim '"games_per_s":'
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert abs(sum(d["seats"])+d["cthulhu"]-1) < 1e-5' "$tmp/out" \
	|| { echo "FAIL sim: not JSON or rates do not sum to 1"; failures=$((failures + 1)); }
check sim-rival 0 "$rlyeh" sim --variant rival-cults --cultists 3 --games 1000 --policy heuristic,random
expect_out sim-rival '"player_wins":'
check sim-es 0 "$rlyeh" sim --game elder-signs --players 4 --games 2000 --seed 9 --policy expect,greedy-2,greedy-2,greedy-2
expect_out sim-es '"game":"elder-signs"'
expect_out sim-es '"policies":\["expect","greedy-2","greedy-2","greedy-2"\]'
expect_out sim-es '"mean_points_per_turn":'
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert abs(sum(d["seats"])-1) < 1e-5 and d["cthulhu"] == 0 and 1 < d["mean_points_per_turn"] < 4' "$tmp/out" \
	|| { echo "FAIL sim-es: not JSON, rates do not sum to 1 or points out of range"; failures=$((failures + 1)); }
# "ev" ignores the scores, so points per turn are its exact 2.5136 (4 standard errors: 0.02).
check sim-es-ev 0 "$rlyeh" sim --game elder-signs --players 2 --games 20000 --seed 3 --policy ev,best
expect_out sim-es-ev '"policies":\["ev","best"\]'
check sim-es-ev-alone 0 "$rlyeh" sim --game elder-signs --players 2 --games 20000 --seed 3 --policy ev
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert abs(d["mean_points_per_turn"] - 2.5136) < 0.02' "$tmp/out" \
	|| { echo "FAIL sim-es-ev-alone: points per turn of ev off 2.5136"; failures=$((failures + 1)); }
check sim-es-default 0 "$rlyeh" sim --game elder-signs --players 2 --games 100 && expect_out sim-es-default '"policies":\["greedy-2","greedy-2"\]'
grep -q mean_points_per_turn "$tmp/out" || { echo "FAIL sim-es-default: no mean_points_per_turn"; failures=$((failures + 1)); }
check sim-cd-no-points 0 "$rlyeh" sim --games 10
grep -q mean_points_per_turn "$tmp/out" && { echo "FAIL sim-cd-no-points: points for cthulhu-dice"; failures=$((failures + 1)); }
check sim-es-rival 2 "$rlyeh" sim --game elder-signs --variant rival-cults && expect_err sim-es-rival 'variant of cthulhu-dice'
check sim-board 0 "$rlyeh" sim --game cthulhu --players 3 --games 20 --seed 4
expect_out sim-board '"game":"cthulhu"'
expect_out sim-board '"policies":\["baseline","baseline","baseline"\]'
expect_out sim-board '"rounds_cap":200,'
expect_out sim-board '"saved":[0-9.]*,"summoned":[0-9.]*,"capped":[0-9.]*,"all_eliminated":[0-9.]*,'
expect_out sim-board '"mean_rounds":[0-9.]*,"mean_vp":\[[0-9.]*,[0-9.]*,[0-9.]*\]'
expect_out sim-board '"first_player":[0-9.]*,"second_player":[0-9.]*,"third_player":[0-9.]*,"cthulhu"'
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); o=[d[k+"_player"] for k in ("first","second","third")]; assert "fourth_player" not in d and abs(sum(o)-sum(d["seats"])) < 1e-5 and abs(sum(o)+d["cthulhu"]-1) < 1e-5' "$tmp/out" \
	|| { echo "FAIL sim-board: wins by turn order missing or not adding up to the wins by seat"; failures=$((failures + 1)); }
check sim-board-cap 0 "$rlyeh" sim --game cthulhu --players 2 --games 5 --rounds 1 --policy random
expect_out sim-board-cap '"capped":1.000000,'
check sim-board-default 0 "$rlyeh" sim --game cthulhu --games 2 && expect_out sim-board-default '"players":4,'
check sim-board-players 2 "$rlyeh" sim --game cthulhu --players 7 && expect_err sim-board-players 'invalid table'
check sim-rounds-other 2 "$rlyeh" sim --rounds 5 && expect_err sim-rounds-other 'for --game cthulhu'
check sim-rounds-bad 2 "$rlyeh" sim --game cthulhu --rounds 0 && expect_err sim-rounds-bad 'expected 1 to 10000'
check sim-bad-game 2 "$rlyeh" sim --game chess && expect_err sim-bad-game "got 'chess'"
check sim-es-policy 2 "$rlyeh" sim --game elder-signs --policy heuristic && expect_err sim-es-policy "unknown policy 'heuristic'"
check sim-bad-players 2 "$rlyeh" sim --players 1 && expect_err sim-bad-players 'expected 2 to 12'
check sim-bad-games 2 "$rlyeh" sim --games 0
check sim-bad-seed 2 "$rlyeh" sim --seed -1
check sim-bad-policy 2 "$rlyeh" sim --policy clever && expect_err sim-bad-policy "unknown policy 'clever'"
check sim-policy-count 2 "$rlyeh" sim --players 3 --policy random,random
check sim-rival-players 2 "$rlyeh" sim --variant rival-cults --players 3
check sim-cultists-classic 2 "$rlyeh" sim --cultists 2
check sim-bad-variant 2 "$rlyeh" sim --variant solo
check sim-extra-arg 2 "$rlyeh" sim extra

check replay-file 0 "$rlyeh" replay "$golden/replay/classic-3.json"
cmp -s "$tmp/out" "$golden/replay/classic-3.out" || { echo "FAIL replay-file: output differs"; failures=$((failures + 1)); }
check replay-stdin 0 sh -c "\"$rlyeh\" replay - < \"$golden/replay/rival-2.json\""
cmp -s "$tmp/out" "$golden/replay/rival-2.out" || { echo "FAIL replay-stdin: output differs"; failures=$((failures + 1)); }
printf '{"players":3,"turns":[{"victim":0,"curse":"tentacle","response":"tentacle"}]}' >"$tmp/bad.json"
check replay-refused 1 "$rlyeh" replay "$tmp/bad.json" && expect_err replay-refused 'turn 1: the Caster'
check replay-es-file 0 "$rlyeh" replay "$golden/replay/es-tiebreak.json"
cmp -s "$tmp/out" "$golden/replay/es-tiebreak.out" || { echo "FAIL replay-es-file: output differs"; failures=$((failures + 1)); }
printf '{"game":"elder-signs","players":2,"turns":[{"seat":1,"throws":[]}]}' >"$tmp/bad-es.json"
check replay-es-refused 1 "$rlyeh" replay "$tmp/bad-es.json" && expect_err replay-es-refused "turn 1: it is seat 0's turn"
check replay-help-es 0 "$rlyeh" replay --help && expect_out replay-help-es 'library:elder-sign'
check replay-ct-file 0 "$rlyeh" replay "$golden/replay/ct-capped.json"
cmp -s "$tmp/out" "$golden/replay/ct-capped.out" || { echo "FAIL replay-ct-file: output differs"; failures=$((failures + 1)); }
printf '{"game":"cthulhu","players":2,"moves":[1,0,0,0,0,0,0,{"leave":0},{"leave":0}]}' >"$tmp/bad-ct.json"
check replay-ct-refused 1 "$rlyeh" replay "$tmp/bad-ct.json" && expect_err replay-ct-refused 'move 9: seat 0 cannot leave'
grep -c '"turn":1,' "$tmp/out" | grep -qx 1 || { echo "FAIL replay-ct-refused: the turn before the refused move is not written"; failures=$((failures + 1)); }
check replay-help-ct 0 "$rlyeh" replay --help && expect_out replay-help-ct '"game":"cthulhu"'
check export-help-ct 0 "$rlyeh" export --help && expect_out export-help-ct '"game":"cthulhu"'
check replay-missing-file 2 "$rlyeh" replay "$tmp/none.json"
check replay-two-files 2 "$rlyeh" replay a b

# The daemon without a token explains, and suggests the terminal game.
check run-no-token 2 env -u RLYEH_TOKEN -u CREDENTIALS_DIRECTORY "$rlyeh" run </dev/null && expect_err run-no-token 'rlyeh console'
# In a terminal, run without a token plays there: a pseudo-terminal, /help, then end of input.
if env -u RLYEH_TOKEN -u CREDENTIALS_DIRECTORY HOME="$tmp/home" XDG_DATA_HOME= python3 - "$rlyeh" <<'EOT'
import os, pty, select, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "run"])
out, sent, end = b"", False, time.time() + 20
while time.time() < end:
    r, _, _ = select.select([fd], [], [], 0.2)
    if r:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    if not sent and b"this terminal" in out:
        os.write(fd, b"/help\n")
        sent = True
    if sent and b"/leaderboard" in out:
        os.write(fd, b"\x04")
        break
_, status = os.waitpid(pid, 0)
ok = sent and b"/leaderboard" in out and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
sys.exit(0 if ok else 1)
EOT
then passes=$((passes + 1)); else echo "FAIL run without a token in a terminal does not play there"; failures=$((failures + 1)); fi
check run-help 0 "$rlyeh" run --help && expect_out run-help 'SIGTERM'

# Configuration: the shipped example is valid; a bad file names file and line.
check check-config-example 0 "$rlyeh" check-config "$config"
printf 'database = x.db\nspeed = 9\n' >"$tmp/bad.conf"
check check-config-bad 1 "$rlyeh" check-config "$tmp/bad.conf" && expect_err check-config-bad "$tmp/bad.conf:2: unknown key 'speed'"
RLYEH_TOKEN=sekrit-token check check-config-token 0 "$rlyeh" check-config "$config" && expect_out check-config-token 'token found'
grep -q sekrit "$tmp/out" "$tmp/err" && { echo "FAIL check-config printed the token"; failures=$((failures + 1)); }

# Backup while in use, restore refused while in use, restore when free.
printf 'alice: /open\nbob: /join\nalice: /start alice\nalice: /curse bob\n' |
	"$rlyeh" console --db "$tmp/live.db" --seed 5 --timeout 0 >/dev/null 2>&1
mkfifo "$tmp/fifo"
"$rlyeh" console --db "$tmp/live.db" --timeout 0 <"$tmp/fifo" >/dev/null 2>&1 &
holder=$!
exec 4>"$tmp/fifo"
sleep 0.3
check backup 0 "$rlyeh" backup "$tmp/copy.db" --db "$tmp/live.db"
check backup-exists 1 "$rlyeh" backup "$tmp/copy.db" --db "$tmp/live.db"
check restore-in-use 1 "$rlyeh" restore "$tmp/copy.db" --db "$tmp/live.db" && expect_err restore-in-use 'stop the daemon first'
exec 4>&-
wait "$holder"
echo junk >"$tmp/junk.db"
check restore-junk 1 "$rlyeh" restore "$tmp/junk.db" --db "$tmp/live.db"
"$rlyeh" export 1 --db "$tmp/live.db" >"$tmp/before.json"
printf 'bob: /abort\nalice: /abort\n' | "$rlyeh" console --db "$tmp/live.db" --timeout 0 >/dev/null 2>&1
check restore 0 "$rlyeh" restore "$tmp/copy.db" --db "$tmp/live.db"
"$rlyeh" export 1 --db "$tmp/live.db" >"$tmp/after.json"
cmp -s "$tmp/before.json" "$tmp/after.json" && passes=$((passes + 1)) || { echo "FAIL the restored game differs"; failures=$((failures + 1)); }
printf 'bob: /status\n' | "$rlyeh" console --db "$tmp/live.db" --timeout 0 >"$tmp/status.txt" 2>&1
grep -q 'bob, the Victim, responds to alice' "$tmp/status.txt" && passes=$((passes + 1)) || { echo "FAIL the restored game does not resume"; cat "$tmp/status.txt"; failures=$((failures + 1)); }

# The solver: a sim with it, its fallback beyond 6 cultists, analyze's help
# (the full analyze takes a minute in Debug; tests/bench/solve.sh runs it).
check sim-solver 0 "$rlyeh" sim --players 3 --games 300 --seed 9 --policy solver,heuristic,random
expect_out sim-solver '"solver","heuristic","random"'
check sim-solver-7 0 "$rlyeh" sim --players 7 --games 20 --seed 9 --policy solver
expect_err sim-solver-7 'solver plays as heuristic'
check analyze-help 0 "$rlyeh" analyze --help
expect_out analyze-help 'perfect play'

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
