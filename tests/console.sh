#!/bin/sh
# The terminal game end to end: golden transcripts in English and Dutch (Cthulhu
# Dice and Elder Signs), the export -> replay round trip of both games, and a
# kill -9 in the middle of a game followed by a restart that
# finishes it exactly as an uninterrupted run does.
# Usage: console.sh RLYEH GOLDEN_DIR
set -u
rlyeh=$1
golden=$2/console
tmp=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
passes=0
failures=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL $*"; failures=$((failures + 1)); }

sql() { # sql DB QUERY: prints the first column of every row
	python3 -c 'import sqlite3,sys
for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]): print(r[0])' "$1" "$2"
}

play() { # play LANG DB < script
	"$rlyeh" console --db "$2" --seed 42 --timeout 0 --lang "$1"
}

for game in game elder-signs; do
	for lang in en nl; do
		t=$game-$lang
		play "$lang" "$tmp/$t.db" <"$golden/$t.txt" >"$tmp/$t.out" 2>"$tmp/$t.err"
		if cmp -s "$tmp/$t.out" "$golden/$t.out"; then ok; else
			bad "transcript $t differs from $golden/$t.out:"
			diff "$golden/$t.out" "$tmp/$t.out" | head -20
		fi
		[ -s "$tmp/$t.err" ] && bad "console $t wrote to stderr: $(cat "$tmp/$t.err")"
		[ "$(sql "$tmp/$t.db" 'PRAGMA integrity_check')" = ok ] && ok || bad "integrity $t"
	done
done

# The stored game, exported and replayed, ends as the store says.
if "$rlyeh" export 1 --db "$tmp/game-en.db" >"$tmp/game.json"; then ok; else bad "export"; fi
"$rlyeh" replay "$tmp/game.json" >"$tmp/replay.out" || bad "replay of the export"
winner=$(sql "$tmp/game-en.db" 'SELECT winner FROM games WHERE id = 1')
case "$winner" in
-1) want='{"winner":"cthulhu"}' ;;
*) want="{\"winner\":$winner}" ;;
esac
if tail -n 1 "$tmp/replay.out" | grep -q "\"result\":$want}"; then ok; else
	bad "replayed result $(tail -n 1 "$tmp/replay.out"), stored winner $winner"
fi
turns=$(grep -c . "$tmp/replay.out")
[ "$turns" -gt 0 ] && ok || bad "no turns exported"
"$rlyeh" export 99 --db "$tmp/game-en.db" >/dev/null 2>&1 && bad "export of a missing game succeeded" || ok

# An Elder Signs game exports with its game named, its turns and the stored
# winner, and replays to the end the store recorded: a line per turn, the
# last one with the stored winner and the exported scores.
for lang in en nl; do
	db=$tmp/elder-signs-$lang.db
	if "$rlyeh" export 1 --db "$db" >"$tmp/es-$lang.json"; then ok; else bad "export es $lang"; fi
	[ "$(sql "$db" 'SELECT state FROM games WHERE id = 1')" = 2 ] && ok || bad "es $lang not finished"
	python3 - "$tmp/es-$lang.json" "$(sql "$db" 'SELECT winner FROM games WHERE id = 1')" <<'PY' && ok || bad "es $lang export"
import json, sys
g = json.load(open(sys.argv[1]))
assert g["game"] == "elder-signs" and g["winner"] == int(sys.argv[2]), g
assert g["turns"] and all(t["end"] in ("retreat", "downed") and t["throws"] for t in g["turns"])
assert max(g["scores"]) == g["scores"][g["winner"]]
PY
	if "$rlyeh" replay "$tmp/es-$lang.json" >"$tmp/es-$lang.out" 2>"$tmp/es-replay.err"; then ok; else
		bad "replay of the elder-signs export ($lang): $(cat "$tmp/es-replay.err")"
	fi
	python3 - "$tmp/es-$lang.json" "$tmp/es-$lang.out" <<'PY' && ok || bad "es $lang replay differs from its export"
import json, sys
g = json.load(open(sys.argv[1]))
lines = [json.loads(l) for l in open(sys.argv[2])]
assert len(lines) == len(g["turns"]), (len(lines), len(g["turns"]))
for t, l in zip(g["turns"], lines):
    assert {k: l[k] for k in t} == t, (t, l)
assert lines[-1]["scores"] == g["scores"] and lines[-1]["result"] == {"winner": g["winner"]}
PY
done

# ---- CTHULHU!!!: export -> replay round trip ----
# The owner opens a table with computer players, starts and leaves at once
# (a "leave" move of the log): the computer seats play it to its end. One
# table without a cap (stored finished, with its winner) and one with
# cap:3 (stopped by the cap: stored unfinished). Each exports every move of
# its log, replays with the invariants checked after each, and ends as the
# store recorded it (games.winner, the end event); the export's claimed
# end, winners and VP hold. A table still in the lobby exports no moves.
ct_table() { # ct_table NAME SETTINGS BOTS: plays the table into $tmp/ct-NAME.db
	{
		printf 'alice: /open cthulhu %s\n' "$2"
		i=0
		while [ "$i" -lt "$3" ]; do
			printf 'alice: /addbot\n'
			i=$((i + 1))
		done
		printf 'alice: /start\nalice: /leave\n'
	} | "$rlyeh" console --db "$tmp/ct-$1.db" --seed 42 --timeout 0 >"$tmp/ct-$1.txt" 2>"$tmp/ct-$1.err"
	[ -s "$tmp/ct-$1.err" ] && bad "console ct-$1 wrote to stderr: $(cat "$tmp/ct-$1.err")"
}
ct_round_trip() { # ct_round_trip NAME SETTINGS BOTS
	ct_table "$1" "$2" "$3"
	db=$tmp/ct-$1.db
	if "$rlyeh" export 1 --db "$db" >"$tmp/ct-$1.json"; then ok; else bad "export ct-$1"; fi
	if "$rlyeh" replay "$tmp/ct-$1.json" >"$tmp/ct-$1.out" 2>"$tmp/ct-replay.err"; then ok; else
		bad "replay of the cthulhu export ct-$1: $(cat "$tmp/ct-replay.err")"
	fi
	python3 - "$db" "$tmp/ct-$1.json" "$tmp/ct-$1.out" "$2" <<'PY' && ok || bad "ct-$1: the replay differs from the store"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
g = json.load(open(sys.argv[2]))
lines = [json.loads(l) for l in open(sys.argv[3])]
state, winner, moves, per_player = db.execute(
    "SELECT state, winner, moves, per_player FROM games WHERE id = 1").fetchone()
members = db.execute("SELECT COUNT(*) FROM members WHERE game_id = 1").fetchone()[0]
end = db.execute("SELECT actor, value, detail FROM events WHERE game_id = 1 AND kind = 'end'").fetchall()
logged = db.execute("SELECT COUNT(*) FROM events WHERE game_id = 1 AND (kind IN ('roll', 'choice')"
                    " OR (kind = 'leave' AND value >= 0))").fetchone()[0]
cap = int(sys.argv[4][4:]) if sys.argv[4].startswith("cap:") else 0
assert g["game"] == "cthulhu" and g["players"] == members and g["cap"] == cap == per_player & 1023, g
# every move of the log, in order; the owner's leave among them
assert len(g["moves"]) == moves == logged, (len(g["moves"]), moves, logged)
assert [m for m in g["moves"] if isinstance(m, dict)] == [{"leave": 0}], g["moves"]
# a line per completed turn, then the last one with the result
last, turns = lines[-1], lines[:-1]
assert last["moves"] == moves and last["turns"] == len(turns) > 0, last
assert [t["turn"] for t in turns] == list(range(1, len(turns) + 1))
assert last["vp"] == g["vp"] and last["out"][:1] == [0], (last, g["vp"])
r = last["result"]
assert r is not None and r["end"] == g["end"] and r["winners"] == g["winners"], (r, g)
assert len(end) == 1, end
if cap:
    # C19: stopped by the cap, stored unfinished without a winner
    assert r["end"] == "capped" and r["winner"] == -1 and "winner" not in g, (r, g)
    assert state == 3 and end[0] == (-1, -1, "unfinished"), (state, end)
    assert last["round"] == cap and all(t["round"] <= cap for t in turns), last
else:
    # finished: the stored winner is the replayed one, and the end event's
    assert r["end"] in ("saved", "summoned", "nobody"), r
    assert state == 2 and g["winner"] == winner == r["winner"], (state, winner, r, g)
    assert end[0][1] == winner and end[0][0] == winner, end
    assert winner == -1 or r["winners"] == [winner], (winner, r)
PY
	[ "$(sql "$db" 'PRAGMA integrity_check')" = ok ] && ok || bad "integrity ct-$1"
}
ct_round_trip free '' 1
ct_round_trip capped cap:3 2
printf 'alice: /open cthulhu cap:5\n' | "$rlyeh" console --db "$tmp/ct-lobby.db" --timeout 0 >/dev/null 2>&1
if [ "$("$rlyeh" export 1 --db "$tmp/ct-lobby.db")" = '{"game":"cthulhu","players":1,"cap":5,"revision":1,"moves":[]}' ]; then ok; else
	bad "export of a cthulhu lobby: $("$rlyeh" export 1 --db "$tmp/ct-lobby.db" 2>&1)"
fi
# ---- end of the CTHULHU!!! round trip ----

# ---- names: letters, digits and _-. only, and none of a computer player ----
# A name with a character outside those (U+202E turns the text around, an
# accented letter) is refused with the rule and changes nothing; a human may
# not join under the name of a computer player at the table.
out=$(printf 'alice: /open\nalice: /addbot heuristic\nbo\342\200\256b: /join\nJos\303\251: /join\nheuristic-bot-1: /join\nbob: /join\n' |
	"$rlyeh" console --db "$tmp/names.db" --seed 1 --timeout 0 2>&1)
[ "$(printf '%s\n' "$out" | grep -c "^console: a name is 1-32 letters, digits, '_', '-' or '.'$")" = 2 ] && ok ||
	bad "names outside letters, digits and _-. are refused: $out"
printf '%s\n' "$out" | grep -q "heuristic-bot-1 is the name of a computer player at this table" && ok ||
	bad "a human takes a computer player's name: $out"
[ "$(sql "$tmp/names.db" "SELECT group_concat(name, ',') FROM (SELECT name FROM members ORDER BY idx)")" = "alice,heuristic-bot-1,bob" ] && ok ||
	bad "members after the refused names: $(sql "$tmp/names.db" 'SELECT name FROM members')"

# ---- CTHULHU!!!: golden transcripts (cthulhu-en, cthulhu-nl) ----
# A seeded game that alice types to its end (cap:4) against a computer
# player, in English and in Dutch. The transcript is golden, the map's text
# form and the pictures' paths included: the console runs in a directory of
# its own with --pictures pictures, so the printed paths are relative and
# stable. Every picture printed is a PNG file there (and every file there was
# printed); the game is stored stopped by the cap; and no line meant for
# everyone names a card of alice's hand (ct_private, below, which is also
# shown to fail on a transcript with a leak put in).
ct_rlyeh=$(realpath "$rlyeh")
cat >"$tmp/ct-private.py" <<'PY'
# ct-private.py OUT LANG: exits 1 naming the first line that shows alice's
# hand to everyone. alice's hand is what her private /hand views list; a
# public line may name one of those cards only to say it is played, used,
# discarded or taken up (it leaves the hand), or in a seat's cards in play
# or the effects in force;
# a draw is never named; the public "cards N" of alice is what her view lists.
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
nl = sys.argv[2] == "nl"
private = re.compile(r"^\((only alice sees this|alleen alice ziet dit)\) ?")
title, empty = ("== Je hand ==", "Geen kaarten.") if nl else ("== Your hand ==", "No cards.")
verbs = (("speelt ", "gebruikt ", "legt ", "met ", "grijpt naar ") if nl else
         ("plays ", "uses ", "discards ", "with ", "takes up "))
draw = re.compile(r"\S+ trekt " if nl else r"\S+ draws ")
draw_ok = re.compile(r"\S+ (trekt een kaart|trekt \d+ kaart(?:en)?|trekt de tegel .+)\." if nl else
                     r"\S+ (draws a card|draws \d+ cards?|draws the tile .+)\.")
in_play = re.compile(r" · (in het spel|in play): [^·]*")
effects = re.compile(r"^(van kracht deze beurt|in effect this turn): .*")
count = re.compile(r"^[▶•] (?:\S+ \d )?alice: .*· (kaarten|cards) (\d+)")
def fail(i, why):
    print("line %d: %s: %s" % (i + 1, why, lines[i]))
    sys.exit(1)
hand, views, public = set(), 0, None
for i, l in enumerate(lines):
    if private.match(l):
        if private.sub("", l) == title:
            body = private.sub("", lines[i + 1])
            cards = [] if body == empty else body.split(", ")
            if public is None or int(public.group(2)) != len(cards):
                fail(i + 1, "alice's view of her hand and the table's count differ")
            hand |= set(cards)
            views += 1
        continue
    m = count.match(l)
    public = m or public
    if draw.search(l) and not draw_ok.fullmatch(l):
        fail(i, "a draw names what was drawn")
    rest = effects.sub("", in_play.sub("", l))
    for c in hand:
        # a card of the hand is named only as it leaves it: played, used,
        # discarded or taken up
        for m in re.finditer(re.escape(c), rest):
            if not rest[:m.start()].endswith(verbs):
                fail(i, "a public line names a card of alice's hand")
if views < 5 or len(hand) < 5:
    print("too little to check: %d views of the hand, %d cards" % (views, len(hand)))
    sys.exit(1)
PY
for lang in en nl; do
	t=cthulhu-$lang
	mkdir "$tmp/$t"
	(cd "$tmp/$t" && "$ct_rlyeh" console --db game.db --seed 42 --timeout 0 --lang "$lang" \
		--pictures pictures) <"$golden/$t.txt" >"$tmp/$t.out" 2>"$tmp/$t.err"
	if cmp -s "$tmp/$t.out" "$golden/$t.out"; then ok; else
		bad "transcript $t differs from $golden/$t.out:"
		diff "$golden/$t.out" "$tmp/$t.out" | head -20
	fi
	[ -s "$tmp/$t.err" ] && bad "console $t wrote to stderr: $(cat "$tmp/$t.err")"
	[ "$(sql "$tmp/$t/game.db" 'PRAGMA integrity_check')" = ok ] && ok || bad "integrity $t"
	# C19: stopped by the cap, kept unfinished
	[ "$(sql "$tmp/$t/game.db" 'SELECT state FROM games WHERE id = 1')" = 3 ] && ok ||
		bad "$t: the game is not stored stopped by the cap"
	python3 - "$tmp/$t.out" "$tmp/$t" <<'PY' && ok || bad "$t: its pictures"
import os, re, sys
out, run = sys.argv[1], sys.argv[2]
paths = re.findall(r"(?:picture|afbeelding): (\S+)$", open(out, encoding="utf-8").read(), re.M)
assert len(paths) >= 20 and len(set(paths)) == len(paths), paths
assert any("/preview-" in p for p in paths) and any("/map-" in p for p in paths), paths
# the game leaves its latest picture of each kind: the last path printed per
# kind and game is on disk, and nothing else
latest = {}
for p in paths:
    assert p.startswith("pictures/") and p.endswith(".png"), p
    latest[re.match(r"pictures/([a-z]+-\d+-)", p).group(1)] = p
for p in latest.values():
    with open(os.path.join(run, p), "rb") as f:
        head = f.read(8)
        f.seek(0, 2)
        assert head == b"\x89PNG\r\n\x1a\n" and f.tell() > 1000, p
on_disk = sorted("pictures/" + n for n in os.listdir(os.path.join(run, "pictures")))
assert on_disk == sorted(latest.values()), set(on_disk) ^ set(latest.values())
PY
	if python3 "$tmp/ct-private.py" "$tmp/$t.out" "$lang" >"$tmp/$t.private"; then ok; else
		bad "$t shows alice's hand to everyone: $(cat "$tmp/$t.private")"
	fi
	# The check can fail: alice's hand listed on a public line, or a draw
	# that names its card, are caught.
	python3 - "$tmp/$t.out" "$tmp/$t.leak1" "$tmp/$t.leak2" "$lang" <<'PY' || bad "$t: no leaks made"
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
nl = sys.argv[4] == "nl"
title = "== Je hand ==" if nl else "== Your hand =="
prefix = re.compile(r"^\((only alice sees this|alleen alice ziet dit)\) ?")
i = next(i for i, l in enumerate(lines) if prefix.sub("", l) == title)
card = prefix.sub("", lines[i + 1]).split(", ")[0]
one = lines[:]
one[i + 1] = prefix.sub("", one[i + 1])
two = lines[:]
j = next(j for j in range(i, len(lines)) if re.fullmatch(r"alice (draws a card|trekt een kaart|draws \d+ cards?|trekt \d+ kaart(?:en)?)\.", lines[j]))
two[j] = "alice %s %s." % ("trekt" if nl else "draws", card)
for path, ls in ((sys.argv[2], one), (sys.argv[3], two)):
    open(path, "w", encoding="utf-8").write("\n".join(ls) + "\n")
PY
	for leak in "leak1:names a card of alice's hand" "leak2:a draw names what was drawn"; do
		if ! python3 "$tmp/ct-private.py" "$tmp/$t.${leak%%:*}" "$lang" >"$tmp/$t.caught" &&
			grep -q "${leak#*:}" "$tmp/$t.caught"; then ok; else
			bad "$t: ${leak%%:*} not caught: $(cat "$tmp/$t.caught")"
		fi
	done
done
# ---- end of the CTHULHU!!! golden transcripts ----

# kill -9 mid-game, restart, finish: the same game as without the kill.
head -n 8 "$golden/game-en.txt" >"$tmp/first.txt"
tail -n +9 "$golden/game-en.txt" >"$tmp/rest.txt"
mkfifo "$tmp/fifo"
play en "$tmp/k.db" <"$tmp/fifo" >"$tmp/k1.out" 2>&1 &
pid=$!
exec 3>"$tmp/fifo"
cat "$tmp/first.txt" >&3
i=0
until grep -q "Turn 3: heuristic-bot-1 curses alice." "$tmp/k1.out" 2>/dev/null; do
	i=$((i + 1))
	[ "$i" -gt 100 ] && break
	sleep 0.1
done
kill -9 "$pid"
wait "$pid" 2>/dev/null
pid=""
exec 3>&-
play en "$tmp/k.db" <"$tmp/rest.txt" >"$tmp/k2.out" 2>&1
"$rlyeh" export 1 --db "$tmp/k.db" >"$tmp/k.json" || bad "export after restart"
if cmp -s "$tmp/game.json" "$tmp/k.json"; then ok; else
	bad "the restarted game differs from the uninterrupted one"
	diff "$tmp/game.json" "$tmp/k.json" | head
fi
# What the restarted process printed is the tail of the uninterrupted transcript.
if tail -n "$(wc -l <"$tmp/k2.out")" "$golden/game-en.out" | cmp -s - "$tmp/k2.out"; then ok; else
	bad "the restarted transcript differs"
	diff "$tmp/k2.out" "$golden/game-en.out" | head
fi
[ "$(sql "$tmp/k.db" 'PRAGMA integrity_check')" = ok ] && ok || bad "integrity after kill"
[ "$(sql "$tmp/k.db" 'SELECT state FROM games WHERE id = 1')" = 2 ] && ok || bad "not finished"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
