#!/usr/bin/env python3
"""Shard ownership against the fake Discord and a throwaway PostgreSQL (tests/pg/with_cluster.sh
sets RLYEH_TEST_DATABASE): daemon A runs shards 0-1/4, B runs 2-3/4 and S is a standby for 0-3/4
(standby = true). Cthulhu Dice is played in 40 guilds (10 a shard); a daemon that owns shards is
killed with SIGKILL mid-game, KILLS times, and started again with its own configuration (it then
waits, as its shards are owned elsewhere). After each kill every shard is live again within a
bound (the takeover time is measured and printed), each taken-over shard RESUMEd its session from
the database, and in the end every game is stored finished, no interaction was answered twice,
no game's log has a gap or a repeat, the fake saw no protocol violation, and the all-servers
ratings kept as games ended equal those rebuilt from the stored games from nothing.

What the players were shown is checked against `rlyeh export` of every game: the moves each
channel was told (curse, roll, Eye, response lines of the bot's messages) are exactly those of the
exported game, in order, none missing or doubled across the takeovers; only a channel's newest
message has buttons; the all-servers leaderboard that /leaderboard all shows, and the stored
ratings, equal the Weng-Lin Plackett-Luce ratings computed here from the exported games in the
order they were rated. The daemons run with a turn timeout: the owner of one guild is killed while
its awaited player's timer runs, and the move times out on the process that took the shard over,
which takes the buttons off the table the dead owner showed. The standby's /healthz and /metrics
say it is a standby owning no shard. Last, with every daemon stopped, two processes with
shards = auto: the first owns every shard (1 for 40 guilds), the second waits, a command is
answered once, and the second takes over when the first is killed.

Usage: failover_test.py RLYEH FAKEDISCORD [KILLS]"""
import json
import math
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

import run_tests as rt
from guilds import GUILDS, SHARDS, Players, in_channel, live

KILLS = int(sys.argv[3]) if len(sys.argv) > 3 else 20
RANGES = {"A": ("0-1/4", False), "B": ("2-3/4", False), "S": ("0-3/4", True)}
CHANNEL_OF = {g: str(720000 + k) for k, g in enumerate(GUILDS)}
BOUND_S = 10.0  # the takeover must be done within this
TIMEOUT_S = 8  # the daemons' turn timeout
TIMED = GUILDS[3]  # on shard 0: its player stops while its owner is killed
FACES = {"yellow-sign": "Yellow Sign", "tentacle": "Tentacle", "elder-sign": "Elder Sign",
         "cthulhu": "Cthulhu", "eye": "Eye"}
MOVE_LINE = re.compile(r"^(Turn \d+: \S+ curses \S+\.|\S+ rolls: [A-Za-z ]+\.|The Eye becomes: [A-Za-z ]+\."
                       r"|\S+ responds: [A-Za-z ]+\.)$")


def in_guild(d, guild):
    return in_channel(d, guild, CHANNEL_OF[guild])


def sql(uri, query):
    out = subprocess.run(["psql", "-X", "-At", "-d", uri, "-c", query], capture_output=True, text=True,
                         timeout=20)
    rt.check(out.returncode == 0, "psql %s: %s" % (query, out.stderr.strip()))
    return [line.split("|") for line in out.stdout.splitlines() if line]


def daemon(tmp, fake, uri, role, n):
    shards, standby = RANGES[role]
    env = {"RLYEH_DATABASE": uri, "RLYEH_SHARDS": shards, "RLYEH_LOG_LEVEL": "info",
           "RLYEH_TURN_TIMEOUT": str(TIMEOUT_S)}
    if standby:
        env["RLYEH_STANDBY"] = "true"
    if role == "S" and n == 0:
        env["RLYEH_HEALTH_PORT"] = str(HEALTH_PORT)
    bot = rt.Bot(tmp, fake, "%s%d" % (role, n), extra_env=env)
    bot.role = role
    return bot


def free_port():
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        return so.getsockname()[1]


HEALTH_PORT = free_port()


def health(path):
    """(status, body) of the standby's health port."""
    try:
        with rt.urllib.request.urlopen("http://127.0.0.1:%d%s" % (HEALTH_PORT, path), timeout=5) as r:
            return r.status, r.read().decode()
    except rt.urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError:
        return 0, ""


def told(fake, channel):
    """The public messages of a channel, oldest first, as the fake stored them."""
    msgs = [m for m in rt.api(fake, "GET", "/channels/%s/messages" % channel) if rt.public(m)]
    return list(reversed(msgs))


def replay(game, names):
    """Plays an exported Cthulhu Dice game (classic) by the rules (shared/rules/cthulhu-dice.md):
    (the lines the table announces its moves with, the winning seat or None when Cthulhu won)."""
    n = game["players"]
    sanity, pool, caster = [3] * n, 0, game["first"]
    lines, winner = [], None

    def apply(face, roller, victim):
        nonlocal pool
        target = victim if roller == caster else caster
        if face == "yellow-sign":
            if sanity[target] > 0:
                sanity[target] -= 1
                pool += 1
        elif face == "tentacle":  # the Caster takes from the Victim; mad, to the pool (R5, R6)
            if sanity[victim] > 0:
                sanity[victim] -= 1
                if sanity[caster] > 0:
                    sanity[caster] += 1
                else:
                    pool += 1
        elif face == "elder-sign":
            if pool > 0:
                pool -= 1
                sanity[roller] += 1
        elif face == "cthulhu":  # the mad lose nothing (R7)
            for i in range(n):
                if sanity[i] > 0:
                    sanity[i] -= 1
                    pool += 1

    for k, t in enumerate(game["turns"]):
        v = t["victim"]
        lines.append("Turn %d: %s curses %s." % (k + 1, names[caster], names[v]))
        lines.append("%s rolls: %s." % (names[caster], FACES[t["curse"]]))
        curse = t["curse"]
        if curse == "eye":
            curse = t["curse_eye"]
            lines.append("The Eye becomes: %s." % FACES[curse])
        apply(curse, caster, v)
        lines.append("%s responds: %s." % (names[v], FACES[t["response"]]))
        response = t["response"]
        if response == "eye":
            response = t["response_eye"]
            lines.append("The Eye becomes: %s." % FACES[response])
        apply(response, v, v)
        sane = [i for i in range(n) if sanity[i] > 0]
        if len(sane) <= 1:
            winner = sane[0] if sane else None
            rt.check(k == len(game["turns"]) - 1, "the exported game ends with its last turn")
            break
        caster = (caster + 1) % n
    rt.check(sum(sanity) + pool == 3 * n, "the tokens are conserved")
    return lines, winner


MU, SIGMA, BETA, KAPPA, TAU = 25.0, 25.0 / 3, 25.0 / 6, 0.0001, 25.0 / 300


def rate(r, rank):
    """Weng-Lin Plackett-Luce (OpenSkill's defaults) for teams of one: [(mu, sigma)] after a game
    of the players r with places rank (0 first; equal places tie)."""
    n = len(r)
    s = [math.sqrt(sig * sig + TAU * TAU) for _, sig in r]
    c = math.sqrt(sum(x * x + BETA * BETA for x in s))
    x = [mu / c for mu, _ in r]
    out = []
    for i in range(n):
        omega = delta = 0.0
        for q in range(n):
            if rank[q] > rank[i]:
                continue
            sum_q = sum(math.exp(x[j]) for j in range(n) if rank[j] >= rank[q])
            tied = sum(1 for j in range(n) if rank[j] == rank[q])
            p = min(math.exp(x[i]) / sum_q, 1.0)
            delta += p * (1 - p) / tied
            omega += ((1 - p) if q == i else -p) / tied
        omega *= s[i] * s[i] / c
        delta *= s[i] * s[i] / (c * c) * (s[i] / c)
        out.append((r[i][0] + omega, s[i] * math.sqrt(max(1 - delta, KAPPA))))
    return out


def shown_and_exported(fake, uri):
    """Every game exported with `rlyeh export`: the moves each channel was told are the exported
    game's, and the all-servers leaderboard (as /leaderboard all shows it, and as stored) is the one
    computed here from the exported games in the order they were rated."""
    games = sql(uri, "SELECT id, channel, rated FROM games WHERE state = 2 ORDER BY rated")
    members = {}
    for gid, idx, player, name, place, cthulhu in sql(uri, "SELECT game_id, idx, player, name, place, cthulhu "
                                                           "FROM members ORDER BY game_id, idx"):
        members.setdefault(gid, []).append((player, name, int(place), int(cthulhu)))
    players = {}  # id -> [name, mu, sigma, games, wins, cthulhu]
    wrong_moves, wrong_places, stale, full = [], [], [], []
    for gid, channel, rated in games:
        out = subprocess.run([rt.RLYEH, "export", gid, "--db", uri], capture_output=True, text=True, timeout=30)
        if not rt.check(out.returncode == 0, "rlyeh export %s: %s" % (gid, out.stderr.strip())):
            continue
        game = json.loads(out.stdout)
        seats = members[gid]
        lines, winner = replay(game, [name for _, name, _, _ in seats])
        msgs = told(fake, channel)
        if len(msgs) >= 50:
            full.append(channel)
        stale += [m["id"] for m in msgs[:-1] if m.get("components")]
        shown = [line for m in msgs for line in (m.get("content") or "").split("\n") if MOVE_LINE.match(line)]
        if shown != lines:
            wrong_moves.append((gid, [x for x in shown if x not in lines or shown.count(x) > lines.count(x)][:3],
                                [x for x in lines if x not in shown or lines.count(x) > shown.count(x)][:3]))
        places = [0 if winner == i else 1 for i in range(len(seats))]  # Cthulhu won: nobody first
        if places != [p for _, _, p, _ in seats] or [int(winner is None)] * len(seats) != [c for _, _, _, c in seats]:
            wrong_places.append((gid, winner, seats))
        # The leaderboard's rules (docs/playing.md, "Records and ranking"): the winner first, the others tie
        # second; when Cthulhu wins, all tie.
        who = [players.setdefault(p, [name, MU, SIGMA, 0, 0, 0]) for p, name, _, _ in seats]
        for w, i in zip(who, range(len(seats))):
            w[0] = seats[i][1]
            w[3] += 1
            w[4] += winner == i
            w[5] += winner is None
        after = rate([(w[1], w[2]) for w in who], [0 if winner is None or winner == i else 1 for i in range(len(who))])
        for w, (mu, sigma) in zip(who, after):
            w[1], w[2] = mu, sigma
    rt.check(not full, "every channel's messages are all seen (fewer than 50): %s" % full)
    rt.check(len(games) == len(GUILDS) and not wrong_moves,
             "each channel was told every move of its exported game once, in order (%d games; wrong: %s)"
             % (len(games), wrong_moves[:2]))
    rt.check(not stale, "only a channel's newest message has buttons (%s still do)" % stale[:5])
    rt.check(not wrong_places, "the stored places are those of the exported games: %s" % wrong_places[:2])
    stored = {p: (float(mu), float(sigma), int(n), int(w), int(c)) for p, mu, sigma, n, w, c in sql(
        uri, "SELECT player, mu, sigma, games, wins, cthulhu FROM ratings WHERE scope = '' AND span = 0 "
             "AND game = 'cthulhu-dice'")}
    far = [p for p, v in players.items() if p not in stored or abs(stored[p][0] - v[1]) > 1e-9
           or abs(stored[p][1] - v[2]) > 1e-9 or stored[p][2:] != tuple(v[3:])]
    rt.check(players and len(stored) == len(players) and not far,
             "the stored all-servers ratings are those computed from the exports (%s differ: %s / %s)"
             % (far, [stored.get(p) for p in far], [players[p] for p in far]))
    # What /leaderboard all shows: rank, name, rating (mu - 3 sigma), mu, sigma, games, wins.
    ranked = sorted((p for p in players if players[p][3] >= 3),
                    key=lambda p: (-(players[p][1] - 3 * players[p][2]), -players[p][3], p))
    want = ["%d. %s — rating %.1f (μ %.1f, σ %.2f): %d %s · %d %s (%.0f%%) · %d %s to Cthulhu"
            % (k + 1, v[0], v[1] - 3 * v[2], v[1], v[2], v[3], "game" if v[3] == 1 else "games", v[4],
               "win" if v[4] == 1 else "wins", 100.0 * v[4] / v[3], v[5], "loss" if v[5] == 1 else "losses")
            for k, v in enumerate(players[p] for p in ranked)]
    d = in_guild(rt.slash(rt.USERS["carol"], "leaderboard", [{"name": "scope", "type": 3, "value": "all"}]),
                 GUILDS[5])
    path = "/api/v10/interactions/%s/%s/callback" % (d["id"], d["token"])
    fake.dispatch(d)
    got = rt.wait(lambda: [e for e in fake.all_log() if e.get("kind") == "http" and e.get("path") == path],
                  15, "the answer to /leaderboard all")
    content = ((json.loads(got[0]["body"]) if got else {}).get("data") or {}).get("content", "")
    lines = [x for x in content.split("\n") if re.match(r"^\d+\. ", x)]
    print("/leaderboard all, as shown and as computed from %d exported games:\n%s" % (len(games), content),
          file=sys.stderr)
    rt.check(content.startswith("Leaderboard of all servers") and lines == want,
             "/leaderboard all shows the leaderboard computed from the exported games:\n%s\nwanted:\n%s"
             % (content, "\n".join(want)))


def owned(bot, count=SHARDS):
    """The shards (of count) a daemon owns now, from its log."""
    have = set()
    for line in bot.stderr().splitlines():
        for s in range(count):
            if "shard %d of %d: owned here" % (s, count) in line:
                have.add(s)
            elif "shard %d of %d: no longer owned here" % (s, count) in line:
                have.discard(s)
    return have


def answered_once(fake, uri_guild, what):
    """Sends /leaderboard in a guild: exactly one process answers it."""
    d = in_guild(rt.slash(rt.USERS["bob"], "leaderboard"), uri_guild)
    path = "/api/v10/interactions/%s/%s/callback" % (d["id"], d["token"])
    fake.dispatch(d)
    rt.wait(lambda: [e for e in fake.all_log() if e.get("kind") == "http" and e.get("path") == path],
            15, "the answer to " + what)
    time.sleep(1)  # a second answer, were there one, would come as fast as the first
    n = len([e for e in fake.all_log() if e.get("kind") == "http" and e.get("path") == path])
    rt.check(n == 1, "%s: answered once (%d)" % (what, n))


def auto_shards(tmp, fake, uri, bots):
    """shards = auto on PostgreSQL: the count is Discord's recommendation (1 for 40 guilds) and
    every shard is wanted by every process, owned through the database: the first process owns
    them, the second waits and takes them over when the first is killed."""
    env = {"RLYEH_DATABASE": uri, "RLYEH_LOG_LEVEL": "info", "RLYEH_SHARDS": None}
    first = rt.Bot(tmp, fake, "auto0", extra_env=env)
    bots.append(first)
    rt.wait(lambda: owned(first, 1) == {0} and len(live(fake)) == 1, 20, "shards = auto: the first process owning shard 0 of 1")
    second = rt.Bot(tmp, fake, "auto1", extra_env=env)
    bots.append(second)
    rt.wait(lambda: "shards 0-0 of 1: owned through the database" in second.stderr(), 15, "the second process started")
    answered_once(fake, GUILDS[0], "shards = auto, two processes")
    rt.check(owned(second, 1) == set() and second.proc.poll() is None, "shards = auto: the second process waits")
    first.proc.send_signal(signal.SIGKILL)
    first.proc.wait(timeout=10)
    rt.wait(lambda: owned(second, 1) == {0} and len(live(fake)) == 1, BOUND_S, "shards = auto: the second process taking shard 0 over")
    answered_once(fake, GUILDS[1], "shards = auto, after the takeover")
    second.proc.send_signal(signal.SIGTERM)
    rt.check(second.proc.wait(timeout=15) == 0, "it stops cleanly")


def main():
    uri = os.environ.get("RLYEH_TEST_DATABASE")
    if not uri:
        print("SKIP: RLYEH_TEST_DATABASE is not set (run under tests/pg/with_cluster.sh)")
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="rlyeh-failover-")
    t0 = time.time()
    fake = rt.Fake(tmp, ["--max-concurrency", "2"])
    bots = []
    live_bots = {}
    try:
        rt.check(fake.call("POST", "/_fake/guilds", {"ids": GUILDS})["guilds"] == len(GUILDS),
                 "the bot is in %d guilds" % len(GUILDS))
        live_bots["A"] = daemon(tmp, fake, uri, "A", 0)
        rt.wait(lambda: owned(live_bots["A"]) == {0, 1}, 10, "A owning shards 0 and 1")
        time.sleep(5.5)  # the next session starts in the same buckets: one turn later
        live_bots["B"] = daemon(tmp, fake, uri, "B", 0)
        rt.wait(lambda: owned(live_bots["B"]) == {2, 3}, 10, "B owning shards 2 and 3")
        rt.wait(lambda: len(live(fake)) == SHARDS, 20, "four shards live")
        live_bots["S"] = daemon(tmp, fake, uri, "S", 0)
        bots.extend(live_bots.values())
        time.sleep(4)
        rt.check(not owned(live_bots["S"]) and live_bots["S"].proc.poll() is None,
                 "the standby waits and owns nothing while the owners live")
        code, body = health("/healthz")
        rt.check(code == 200 and json.loads(body or "{}").get("gateway") == "standby"
                 and json.loads(body).get("shards") == 0,
                 "the standby's /healthz says standby, no shard: %d %s" % (code, body.strip()))
        code, body = health("/metrics")
        rt.check(code == 200 and "\nrlyeh_standby 1\n" in body and "\nrlyeh_shards_owned 0\n" in body
                 and "\nrlyeh_gateway_ready 0\n" in body,
                 "the standby's /metrics: rlyeh_standby 1, rlyeh_shards_owned 0, not ready")

        players = Players(fake, CHANNEL_OF)
        players.open_all()
        rt.wait(lambda: all(rt.whose_turn(t)[0] for t in players.tables.values() if t.refresh() is not None),
                30, "a game started in every guild")
        took = []
        resumed = identified = 0
        timed = {}  # the timeout across a kill: the table shown, when, by whom
        tt = players.tables[TIMED]

        def timed_out():
            """The message telling TIMED's channel that its awaited move timed out, once made."""
            for m in told(fake, CHANNEL_OF[TIMED]):
                if int(m["id"]) > int(timed["table"]) and "took too long" in (m.get("content") or ""):
                    return m
            return None

        for k in range(KILLS):
            for _ in range(2):
                players.step()
                time.sleep(0.3)
            owners = [r for r in sorted(live_bots) if owned(live_bots[r])]
            role = owners[k % len(owners)]
            victim = live_bots[role]
            lost = owned(victim)
            if k == 0:
                # TIMED's player stops once the table awaits them; its owner is killed then.
                rt.check(0 in lost, "the first kill is of shard 0's owner")
                players.paused.add(TIMED)

                def awaiting():
                    tt.refresh()
                    last = players.clicked.get(TIMED)
                    return (rt.whose_turn(tt)[2] and not (last and last[0] == tt.message_id)
                            and tt.message_id)
                timed["table"] = rt.wait(awaiting, 20, "the timed guild's table awaiting a move")
                timed["killed"] = time.time()
            elif "table" in timed and "seen" not in timed and timed_out():
                timed["seen"] = time.time()
                players.paused.discard(TIMED)
            mark = fake.call("GET", "/_fake/log?since=0")["next"]
            victim.proc.send_signal(signal.SIGKILL)
            victim.proc.wait(timeout=10)
            killed = time.time()

            def taken():
                have = set()
                for r, b in live_bots.items():
                    if b is not victim:
                        have |= owned(b)
                return lost <= have and len(live(fake)) == SHARDS
            ok = rt.wait(taken, BOUND_S, "shards %s owned again after kill %d" % (sorted(lost), k + 1))
            took.append(time.time() - killed)
            hows = [e["how"] for e in fake.all_log() if e["n"] >= mark and e.get("kind") == "gw_session"]
            resumed += hows.count("resume")
            identified += hows.count("identify")
            rt.check(ok and len(hows) == len(lost),
                     "kill %d (%s, shards %s): a session taken up per shard (%s)" % (k + 1, role, sorted(lost), hows))
            live_bots[role] = daemon(tmp, fake, uri, role, k + 1)
            bots.append(live_bots[role])
        if took:
            print("takeover after SIGKILL over %d kills: max %.2f s, mean %.2f s" % (len(took), max(took),
                  sum(took) / len(took)), file=sys.stderr)
            rt.check(max(took) < BOUND_S, "every takeover within %.0f s (max %.2f s)" % (BOUND_S, max(took)))
        rt.check(resumed > 0 and identified == 0,
                 "the sessions taken over were resumed (%d resumes, %d identifies)" % (resumed, identified))

        if "table" in timed and "seen" not in timed and rt.wait(timed_out, TIMEOUT_S + 2 * BOUND_S,
                                                                  "the timeout in the timed guild"):
            timed["seen"] = time.time()
        players.paused.discard(TIMED)
        if "table" in timed:
            m = timed_out()
            gone = rt.api(fake, "GET", "/channels/%s/messages/%s" % (CHANNEL_OF[TIMED], timed["table"]))
            rt.check(m is not None and "seen" in timed and timed["seen"] - timed["killed"] < TIMEOUT_S + 2 * BOUND_S,
                     "the move awaited when its owner was killed timed out on the new owner (%.1f s after the kill)"
                     % (timed.get("seen", 0) - timed["killed"]))
            print("the move awaited at kill 1 timed out %.1f s after it (turn timeout %d s)"
                  % (timed.get("seen", 0) - timed["killed"], TIMEOUT_S), file=sys.stderr)
            rt.check(not gone.get("components"),
                     "the table the killed owner showed lost its buttons: %s" % gone.get("components"))
            rt.check(m is not None and "seen" in timed and " took too long: the computer made that move." in m["content"],
                     "the timeout was told: %s" % (m or {}).get("content", "")[:120])
            logged = sql(uri, "SELECT count(*) FROM events e JOIN games g ON g.id = e.game_id "
                              "WHERE g.channel = '%s' AND e.kind = 'timeout'" % CHANNEL_OF[TIMED])
            rt.check(logged and int(logged[0][0]) >= 1, "the timeout is in the game's log (%s)" % logged)
        end = time.time() + 120
        while time.time() < end and players.step() < len(GUILDS):
            time.sleep(0.15)
        over = sum(rt.game_over(t) for t in players.tables.values())
        rt.check(over == len(GUILDS), "every game finished (%d of %d)" % (over, len(GUILDS)))
        states = sql(uri, "SELECT state, count(*) FROM games GROUP BY state")
        rt.check(states == [["2", str(len(GUILDS))]], "every game is stored finished: %s" % states)
        gaps = sql(uri, "SELECT game_id FROM events GROUP BY game_id HAVING max(seq) <> count(*) "
                        "OR count(DISTINCT seq) <> count(*)")
        rt.check(not gaps, "every game's log runs 1..n without a gap or a repeat (%s)" % gaps)

        # Every callback the fake received, accepted or not: a second answer from another process
        # would be refused by the fake, and is counted here all the same.
        answered, refused = {}, []
        for e in fake.all_log():
            p = e.get("path") or ""
            if e.get("kind") == "http" and p.endswith("/callback"):
                iid = p.split("/")[-3]
                answered[iid] = answered.get(iid, 0) + 1
                if not 200 <= (e.get("status") or 0) < 300:
                    refused.append((iid, e.get("status")))
        twice = [i for i, n in answered.items() if n > 1]
        rt.check(answered and not twice and not refused,
                 "no interaction answered twice (%d answered, twice: %s, refused: %s)"
                 % (len(answered), twice[:5], refused[:5]))
        bad = [e for e in fake.all_log() if e.get("kind") == "violation"]
        rt.check(not bad, "no protocol violation: %s" % bad[:3])
        shown_and_exported(fake, uri)
        for b in live_bots.values():
            b.proc.send_signal(signal.SIGTERM)
        for b in live_bots.values():
            rt.check(b.proc.wait(timeout=15) == 0, "%s stops cleanly" % b.role)

        # The all-servers ratings kept as games ended in three processes are those rebuilt from
        # the stored games by one process from nothing.
        board = ("SELECT game, span, starts, player, games, wins, cthulhu, round(mu::numeric, 9), "
                 "round(sigma::numeric, 9) FROM ratings WHERE scope = '' ORDER BY 1, 2, 3, 4")
        kept = sql(uri, board)
        sql(uri, "UPDATE settings SET value = 'build' WHERE key = 'ratings'")
        again = daemon(tmp, fake, uri, "A", 99)
        bots.append(again)
        rt.wait(lambda: owned(again) == {0, 1}, 15, "a daemon started over the finished games")
        again.proc.send_signal(signal.SIGTERM)
        rt.check(again.proc.wait(timeout=15) == 0, "it stops cleanly")
        rebuilt = sql(uri, board)
        rt.check(kept and kept == rebuilt and sql(uri, "SELECT value FROM settings WHERE key = 'ratings'") == [["built"]],
                 "the all-servers ratings (%d rows) equal those rebuilt from the stored games (%d rows)"
                 % (len(kept), len(rebuilt)))
        auto_shards(tmp, fake, uri, bots)
    finally:
        for b in bots:
            if b.proc.poll() is None:
                b.proc.kill()
        fake.stop()
    print("%d passed, %d failed (%.1f s)" % (rt.passed, rt.failed, time.time() - t0))
    if rt.failed:
        print("logs in", tmp)
    sys.exit(1 if rt.failed else 0)


if __name__ == "__main__":
    main()
