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

Usage: failover_test.py RLYEH FAKEDISCORD [KILLS]"""
import os
import signal
import subprocess
import sys
import tempfile
import time

import run_tests as rt

SHARDS = 4
KILLS = int(sys.argv[3]) if len(sys.argv) > 3 else 20
GUILDS = [str(((k + 1) << 22) | 77) for k in range(40)]  # guild k on shard (k + 1) % 4
RANGES = {"A": ("0-1/4", False), "B": ("2-3/4", False), "S": ("0-3/4", True)}
CHANNEL_OF = {g: str(720000 + k) for k, g in enumerate(GUILDS)}
BOUND_S = 10.0  # the takeover must be done within this


def in_guild(d, guild):
    d["guild_id"] = guild
    d["channel_id"] = CHANNEL_OF[guild]
    return d


def live(fake):
    return {x["shard"]: x["conn"] for x in fake.state()["live"] if x.get("shard") is not None}


def sql(uri, query):
    out = subprocess.run(["psql", "-X", "-At", "-d", uri, "-c", query], capture_output=True, text=True,
                         timeout=20)
    rt.check(out.returncode == 0, "psql %s: %s" % (query, out.stderr.strip()))
    return [line.split("|") for line in out.stdout.splitlines() if line]


class Players:
    def __init__(self, fake):
        self.fake = fake
        self.tables = {g: rt.Table(fake, CHANNEL_OF[g]) for g in GUILDS}
        self.clicked = {}

    def open_all(self):
        for g in GUILDS:
            for user, cmd in (("alice", "open"), ("bob", "join"), ("carol", "join")):
                self.fake.dispatch(in_guild(rt.slash(rt.USERS[user], cmd), g))
        time.sleep(0.5)
        for g in GUILDS:
            self.fake.dispatch(in_guild(rt.slash(rt.USERS["alice"], "start"), g))

    def step(self):
        over = 0
        for g in GUILDS:
            t = self.tables[g]
            t.refresh()
            if rt.game_over(t):
                over += 1
                continue
            uid, _, custom = rt.whose_turn(t)
            if not custom:
                continue
            last = self.clicked.get(g)
            if last and last[0] == t.message_id and time.time() - last[1] < 4:
                continue
            rt.LIVE[t.channel] = t.message_id
            self.fake.dispatch(in_guild(rt.click(uid, custom, t.message_id, t.channel), g))
            self.clicked[g] = (t.message_id, time.time())
        return over


def daemon(tmp, fake, uri, role, n):
    shards, standby = RANGES[role]
    env = {"RLYEH_DATABASE": uri, "RLYEH_SHARDS": shards, "RLYEH_LOG_LEVEL": "info"}
    if standby:
        env["RLYEH_STANDBY"] = "true"
    bot = rt.Bot(tmp, fake, "%s%d" % (role, n), extra_env=env)
    bot.role = role
    return bot


def owned(bot):
    """The shards a daemon owns now, from its log."""
    have = set()
    for line in bot.stderr().splitlines():
        for s in range(SHARDS):
            if "shard %d of %d: owned here" % (s, SHARDS) in line:
                have.add(s)
            elif "shard %d of %d: no longer owned here" % (s, SHARDS) in line:
                have.discard(s)
    return have


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

        players = Players(fake)
        players.open_all()
        rt.wait(lambda: all(rt.whose_turn(t)[0] for t in players.tables.values() if t.refresh() is not None),
                30, "a game started in every guild")
        took = []
        resumed = identified = 0
        for k in range(KILLS):
            for _ in range(2):
                players.step()
                time.sleep(0.3)
            owners = [r for r in sorted(live_bots) if owned(live_bots[r])]
            role = owners[k % len(owners)]
            victim = live_bots[role]
            lost = owned(victim)
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

        answered = {}
        for e in fake.all_log():
            p = e.get("path") or ""
            if e.get("kind") == "http" and p.endswith("/callback") and 200 <= (e.get("status") or 0) < 300:
                iid = p.split("/")[-3]
                answered[iid] = answered.get(iid, 0) + 1
        twice = [i for i, n in answered.items() if n > 1]
        rt.check(answered and not twice, "no interaction answered twice (%d answered, twice: %s)"
                 % (len(answered), twice[:5]))
        bad = [e for e in fake.all_log() if e.get("kind") == "violation"]
        rt.check(not bad, "no protocol violation: %s" % bad[:3])
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
