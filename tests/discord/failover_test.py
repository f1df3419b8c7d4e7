#!/usr/bin/env python3
"""Shard ownership against the fake Discord and a throwaway PostgreSQL (tests/pg/with_cluster.sh
sets RLYEH_TEST_DATABASE): an owner runs shards 0-1/2 and a standby waits for the same range
(standby = true). Cthulhu Dice is played in 8 guilds (4 a shard); the owner is killed with SIGKILL
mid-game, KILLS times, started again each time as the next standby. Each time the standby owns
both shards within a bound (the takeover time is measured and printed), RESUMEs their sessions
from the database, and the games go on to their end: every game is stored finished, no
interaction was answered twice and the fake saw no protocol violation.

Usage: failover_test.py RLYEH FAKEDISCORD [KILLS]"""
import os
import signal
import subprocess
import sys
import tempfile
import time

import run_tests as rt

SHARDS = 2
KILLS = int(sys.argv[3]) if len(sys.argv) > 3 else 1
GUILDS = [str(((k + 1) << 22) | 77) for k in range(8)]  # guild k on shard (k + 1) % 2
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


def daemon(tmp, fake, uri, name, standby):
    env = {"RLYEH_DATABASE": uri, "RLYEH_SHARDS": "0-1/%d" % SHARDS, "RLYEH_LOG_LEVEL": "info"}
    if standby:
        env["RLYEH_STANDBY"] = "true"
    return rt.Bot(tmp, fake, name, extra_env=env)


def owns_both(bot):
    err = bot.stderr()
    return all("shard %d of %d: owned here" % (s, SHARDS) in err for s in range(SHARDS))


def main():
    uri = os.environ.get("RLYEH_TEST_DATABASE")
    if not uri:
        print("SKIP: RLYEH_TEST_DATABASE is not set (run under tests/pg/with_cluster.sh)")
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="rlyeh-failover-")
    t0 = time.time()
    fake = rt.Fake(tmp, ["--max-concurrency", "2"])
    bots = []
    try:
        rt.check(fake.call("POST", "/_fake/guilds", {"ids": GUILDS})["guilds"] == len(GUILDS),
                 "the bot is in %d guilds" % len(GUILDS))
        owner = daemon(tmp, fake, uri, "owner0", False)
        bots.append(owner)
        rt.wait(lambda: len(live(fake)) == SHARDS, 20, "the owner's two shards")
        rt.wait(lambda: owns_both(owner), 5, "the owner's log says it owns both")
        standby = daemon(tmp, fake, uri, "standby0", True)
        bots.append(standby)
        time.sleep(4)
        rt.check("owned here" not in standby.stderr() and standby.proc.poll() is None,
                 "the standby waits and owns nothing while the owner lives")

        players = Players(fake)
        players.open_all()
        rt.wait(lambda: all(rt.whose_turn(t)[0] for t in players.tables.values() if t.refresh() is not None),
                20, "a game started in every guild")
        took = []
        for k in range(KILLS):
            for _ in range(3):
                players.step()
                time.sleep(0.3)
            mark = fake.call("GET", "/_fake/log?since=0")["next"]
            owner.proc.send_signal(signal.SIGKILL)
            owner.proc.wait(timeout=10)
            killed = time.time()
            rt.wait(lambda: owns_both(standby), BOUND_S, "the standby owning both shards (kill %d)" % (k + 1))
            rt.wait(lambda: len(live(fake)) == SHARDS, BOUND_S, "both shards live again (kill %d)" % (k + 1))
            took.append(time.time() - killed)
            hows = [e["how"] for e in fake.all_log() if e["n"] >= mark and e.get("kind") == "gw_session"]
            rt.check(sorted(hows) == ["resume", "resume"],
                     "kill %d: the standby RESUMEd both sessions from the database (%s)" % (k + 1, hows))
            # The killed owner comes back as the next standby.
            owner, standby = standby, daemon(tmp, fake, uri, "standby%d" % (k + 1), True)
            bots.append(standby)
        print("takeover after SIGKILL: %s s (max %.2f)" % (", ".join("%.2f" % x for x in took), max(took)),
              file=sys.stderr)
        rt.check(max(took) < BOUND_S, "every takeover within %.0f s (max %.2f s)" % (BOUND_S, max(took)))

        end = time.time() + 90
        while time.time() < end and players.step() < len(GUILDS):
            time.sleep(0.15)
        over = sum(rt.game_over(t) for t in players.tables.values())
        rt.check(over == len(GUILDS), "every game finished (%d of %d)" % (over, len(GUILDS)))
        states = sql(uri, "SELECT state, count(*) FROM games GROUP BY state")
        rt.check(states == [["2", str(len(GUILDS))]], "every game is stored finished: %s" % states)

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
        for b in bots:
            if b.proc.poll() is None:
                b.proc.send_signal(signal.SIGTERM)
        for b in bots:
            code = b.proc.wait(timeout=15)
            rt.check(code in (0, -signal.SIGKILL), "a daemon stopped cleanly (%s)" % code)
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
