#!/usr/bin/env python3
"""Gateway shards against the fake Discord: the bot is in 40 guilds and the fake wants at most
12 per shard, so GET /gateway/bot recommends 4; rlyeh run (shards = auto) runs them in one
process, IDENTIFYs taking turns (max_concurrency 2: shards 0 and 1 at once, 2 and 3 one 5 s turn
later; the fake refuses a start too soon). Cthulhu Dice is played in a channel of every guild,
each guild's interactions arriving on its own shard only. One shard's connection is closed with
4000 (resumed), 4009 (identified anew) and dropped without a close frame (resumed) while the
other shards keep their connections and their games go on; every game finishes. /healthz is 503
naming the shards not ready while they wait their turn, 200 once all are; /metrics has each
shard's gauges. Then: a bad shards value is refused at start (exit 2, naming the key), and a
bot with too few shards (unsharded, or 2) is closed with 4011 and exits 4 saying what to set.

Usage: shard_test.py RLYEH FAKEDISCORD"""
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

import run_tests as rt
from guilds import GUILDS, SHARDS, Players, in_channel, live, shard_of

PER_SHARD = 12
CHANNEL_OF = {g: str(710000 + k) for k, g in enumerate(GUILDS)}
GUILD_OF = {c: g for g, c in CHANNEL_OF.items()}
DROPPED = 1  # the shard whose connection is closed


def in_guild(d, guild):
    return in_channel(d, guild, CHANNEL_OF[guild])


def moves(db_path):
    """channel -> moves of its newest game, from the database."""
    db = sqlite3.connect(db_path, timeout=10)
    try:
        rows = db.execute("SELECT channel, moves, state FROM games ORDER BY id").fetchall()
    finally:
        db.close()
    return {c: (m, s) for c, m, s in rows}


def sessions(fake, since=0):
    return [e for e in fake.all_log() if e.get("kind") == "gw_session" and e["n"] >= since]


def wait_shards(fake, what, seconds=30):
    return rt.wait(lambda: len(live(fake)) == SHARDS and live(fake), seconds, what)


def test_refused_config(tmp, fake):
    for args, env, needle in ((["--shards", "4/4"], {}, "shards: '4/4': shard ids run from 0 to N-1"),
                              ([], {"RLYEH_SHARDS": "0-9"}, "RLYEH_SHARDS: shards: '0-9': expected auto, A-B/N"),
                              (["--shards", "3-1/4"], {}, "A must not be above B")):
        bot = rt.Bot(tmp, fake, "refused", extra_env=env, args=args)
        code = bot.proc.wait(timeout=10)
        err = bot.stderr()
        rt.check(code == 2 and needle in err, "%s %s refused at start: exit %s, %r" % (args, env, code, err.strip()))
    rt.check(not live(fake), "a refused configuration does not connect")


def test_four_shards(tmp, fake, db_path):
    port = rt.free_port()
    t0 = time.time()
    mark = fake.call("GET", "/_fake/log?since=0")["next"]
    bot = rt.Bot(tmp, fake, "bot", extra_env={"RLYEH_HEALTH_PORT": str(port), "RLYEH_LOG_LEVEL": "info"})
    # Shards 0 and 1 (buckets 0 and 1) start at once; 2 and 3 wait their bucket's 5 s.
    rt.wait(lambda: len(live(fake)) >= 2, 15, "the first two shards")
    status, text = rt.http_get("http://127.0.0.1:%d/healthz" % port)
    m = re.search(r'"shards_not_ready":\[([0-9,]*)\]', text)
    rt.check(status == 503 and '"gateway":"not ready"' in text and m and {"2", "3"} <= set(m.group(1).split(",")),
             "/healthz while shards 2 and 3 wait their turn: %s %s" % (status, text.strip()))
    wait_shards(fake, "four shards")
    took = time.time() - t0
    starts = [e for e in sessions(fake, mark) if e["how"] == "identify"]
    rt.check(sorted(e["shard"] for e in starts) == [0, 1, 2, 3] and all(e["shards"] == SHARDS for e in starts),
             "shards = auto: IDENTIFY shard [i, 4] for i in 0..3: %s" % [(e["shard"], e["shards"]) for e in starts])
    print("four shards ready in %.1f s" % took, file=sys.stderr)
    ident = {}
    for e in [e for e in fake.all_log() if e["n"] >= mark]:
        if e.get("kind") == "gw_in" and e.get("op") == 2:
            ident[e["d"]["shard"][0]] = e
    rt.check(set(ident) == {0, 1, 2, 3}, "an IDENTIFY per shard")
    # READY and GUILD_CREATE: each shard gets its own guilds only.
    log = fake.all_log()
    conns = live(fake)
    for shard, conn in conns.items():
        got = [e for e in log if e.get("kind") == "gw_out" and e.get("conn") == conn and e.get("t") == "GUILD_CREATE"]
        rt.check(len(got) == sum(1 for g in GUILDS if shard_of(g) == shard),
                 "shard %d: GUILD_CREATE for its %d guilds (%d)" % (shard, len(GUILDS) // SHARDS, len(got)))
    rt.wait(lambda: rt.http_get("http://127.0.0.1:%d/healthz" % port)[0] == 200, 10, "/healthz ready")
    status, text = rt.http_get("http://127.0.0.1:%d/healthz" % port)
    rt.check(status == 200 and '"shards":4' in text and '"shards_not_ready":[]' in text,
             "/healthz with every shard ready: %s %s" % (status, text.strip()))
    rt.wait(lambda: "rlyeh_shard_heartbeat_latency_seconds{shard=\"3\"}" in rt.http_get("http://127.0.0.1:%d/metrics" % port)[1],
            10, "a heartbeat ACK on shard 3")
    status, text = rt.http_get("http://127.0.0.1:%d/metrics" % port)
    for i in range(SHARDS):
        rt.check('rlyeh_shard_ready{shard="%d"} 1' % i in text and 'rlyeh_shard_state{shard="%d"} 5' % i in text
                 and 'rlyeh_shard_reconnects_total{shard="%d"} 0' % i in text,
                 "/metrics: shard %d ready, state 5, no reconnection" % i)
    rt.check("rlyeh_gateway_ready 1" in text, "/metrics: the gateway as a whole is ready")

    players = Players(fake, CHANNEL_OF)
    players.open_all()
    if not rt.wait(lambda: all(rt.whose_turn(t)[0] for t in players.tables.values() if t.refresh() is not None),
                   20, "a game started in all 40 guilds"):
        for g, t in players.tables.items():
            msgs = t.refresh()
            if not rt.whose_turn(t)[0]:
                rt.check(False, "no move awaited in guild %s: %d messages, the newest %r" % (g, len(msgs), [
                    ((m.get("content") or "")[:60], (m.get("embeds") or [{}])[0].get("description", "")[:120])
                    for m in msgs[:3]]))
    handled = {}
    for e in [e for e in fake.all_log() if e["n"] >= mark]:
        if e.get("kind") == "gw_out" and e.get("t") == "INTERACTION_CREATE":
            handled.setdefault(e["conn"], 0)
            handled[e["conn"]] = handled[e["conn"]] + 1
    rt.check(all(handled.get(conns[s], 0) >= 4 * len(GUILDS) // SHARDS for s in range(SHARDS)),
             "every shard carried its guilds' interactions: %s" % {s: handled.get(c) for s, c in conns.items()})

    # One shard drops three ways; the others keep their connections and their games go on.
    others = [g for g in GUILDS if shard_of(g) != DROPPED]
    mine = [g for g in GUILDS if shard_of(g) == DROPPED]
    for fault, how in (({"close": 4000}, "resume"), ({"close": 4009}, "identify"),
                       ({"close": "abrupt"}, "resume")):
        before_conns = live(fake)
        before = moves(db_path)
        mark_f = fake.call("GET", "/_fake/log?since=0")["next"]
        f = dict(fault)
        f["shard"] = DROPPED
        # its new connection waits 3 s for HELLO (stretched as the waits are): it stays away
        f["hello_delay_ms"] = int(3000 * rt.SLOW)
        rt.check(fake.fault(f).get("applied") == 1, "%s on shard %d only" % (fault, DROPPED))
        rt.wait(lambda: DROPPED not in live(fake), 5, "shard %d gone" % DROPPED)
        # While it is away the other shards' games are played, and moves are made in its guilds
        # too (kept by the fake for a RESUME, lost with the session after 4009).
        going = [g for g in others if before[CHANNEL_OF[g]][1] != 2]
        players.step(going)
        players.step([g for g in mine if before[CHANNEL_OF[g]][1] != 2])
        rt.wait(lambda: all(moves(db_path)[CHANNEL_OF[g]][0] > before[CHANNEL_OF[g]][0] for g in going),
                10, "the other shards' games advance")
        after = moves(db_path)
        away = DROPPED not in live(fake)
        advanced = sum(after[CHANNEL_OF[g]][0] > before[CHANNEL_OF[g]][0] for g in going)
        rt.check(going and advanced == len(going) and away,
                 "after %s: %d of the other shards' %d games going advanced while shard %d was away (%s)"
                 % (fault, advanced, len(going), DROPPED, away))
        back = rt.wait(lambda: [e for e in sessions(fake, mark_f) if e.get("shard") == DROPPED], 20,
                       "shard %d back after %s" % (DROPPED, fault))
        rt.check(back and back[0]["how"] == how and len(back) == 1,
                 "after %s shard %d did a %s: %s" % (fault, DROPPED, how.upper(), [e["how"] for e in back or []]))
        if back and how == "resume":
            replayed = [e for e in fake.all_log() if e["n"] >= mark_f and e.get("kind") == "gw_out"
                        and e.get("conn") == back[0]["conn"] and e.get("replay")]
            rt.check(any(e.get("t") == "INTERACTION_CREATE" for e in replayed),
                     "after %s the moves made while away were replayed on the RESUME (%d)" % (fault, len(replayed)))
        others_new = [e for e in sessions(fake, mark_f) if e.get("shard") != DROPPED]
        now_conns = live(fake)
        rt.check(not others_new and all(now_conns.get(s) == before_conns.get(s) for s in range(SHARDS) if s != DROPPED),
                 "after %s the other shards kept their connections (%s -> %s)" % (fault, before_conns, now_conns))
        def mine_advanced():
            players.step([g for g in mine if after[CHANNEL_OF[g]][1] != 2])
            time.sleep(0.2)
            return sum(moves(db_path)[CHANNEL_OF[g]][0] > after[CHANNEL_OF[g]][0] for g in mine) >= 1
        rt.wait(mine_advanced, 15, "shard %d's games go on after %s" % (DROPPED, fault))
    status, text = rt.http_get("http://127.0.0.1:%d/metrics" % port)
    m = re.search(r'rlyeh_shard_reconnects_total\{shard="%d"\} (\d+)' % DROPPED, text)
    rt.check(m and int(m.group(1)) >= 3, "/metrics: shard %d reconnected 3 times (%s)" % (DROPPED, m and m.group(1)))
    rt.check(all('rlyeh_shard_reconnects_total{shard="%d"} 0' % s in text for s in range(SHARDS) if s != DROPPED),
             "/metrics: the other shards never reconnected")

    # Every game to its end.
    end = time.time() + 60
    while time.time() < end and players.step() < len(GUILDS):
        time.sleep(0.15)
    over = sum(rt.game_over(t) for t in players.tables.values())
    rt.check(over == len(GUILDS), "every game finished (%d of %d)" % (over, len(GUILDS)))
    db = moves(db_path)
    rt.check(all(db[CHANNEL_OF[g]][1] == 2 for g in GUILDS), "every game is stored finished")
    bot.proc.send_signal(signal.SIGTERM)
    rt.check(bot.proc.wait(timeout=15) == 0, "the sharded bot stops cleanly")
    err = bot.stderr()
    rt.check("shards 0-3 of 4 here (2 session starts per 5 s)" in err, "the log says which shards run")


def test_spacing(fake):
    """The fake's view of every session start: none too soon in its bucket."""
    log = fake.all_log()
    bad = [e for e in log if e.get("kind") == "violation"]
    rt.check(not bad, "no protocol violation (IDENTIFY spacing included): %s" % bad[:3])
    starts = {}
    for e in log:
        if e.get("kind") == "gw_session" and e["how"] == "identify":
            starts.setdefault(e["shard"] % 2, []).append(e["n"])
    rt.check(len(starts.get(0, [])) == 2 and len(starts.get(1, [])) == 3,
             "IDENTIFYs per bucket: 2 in bucket 0, 3 in bucket 1 (%s)" % starts)


def test_unsharded_over_limit(tmp, fake):
    time.sleep(5.5)  # bucket 0's last start was the sharded bot's
    bot = rt.Bot(tmp, fake, "unsharded", args=["--shards", "0/1"])
    try:
        code = bot.proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        bot.proc.kill()
        code = None
    err = bot.stderr()
    rt.check(code == 4, "an unsharded bot in 40 guilds (12 a shard): exit status 4 (%s)" % code)
    rt.check("4011" in err and "too many guilds for 1 shard(s): set shards = auto" in err,
             "4011: the log says what to set: %s" % [l for l in err.splitlines() if "4011" in l])
    refused = [e for e in fake.all_log() if e.get("kind") == "gw_refused"]
    rt.check(len(refused) == 1 and refused[0]["code"] == 4011 and refused[0]["guilds"] == 40,
             "the fake refused it with 4011 (%s)" % refused)
    # Two shards of 20 guilds each are too few as well: shard 0's 4011 stops shard 1 too.
    time.sleep(5.5)
    bot = rt.Bot(tmp, fake, "two", args=["--shards", "0-1/2"])
    try:
        code = bot.proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        bot.proc.kill()
        code = None
    err = bot.stderr()
    rt.check(code == 4 and "too many guilds for 2 shard(s): set shards = auto or a bigger count than 2" in err,
             "shards = 0-1/2 in 40 guilds: 4011, exit 4 (%s): %s" % (code, [l for l in err.splitlines() if "4011" in l]))
    rt.check("stopping every shard" in err, "one shard refused for good stops them all")


def main():
    tmp = tempfile.mkdtemp(prefix="rlyeh-shards-")
    t0 = time.time()
    # the heartbeat interval stretched by RLYEH_TEST_SLOW like every wait: under
    # valgrind four shards' daemon can miss an ACK inside 1 s and rightly reconnect,
    # which the check that no other shard reconnects would then count
    fake = rt.Fake(tmp, ["--guilds-per-shard", str(PER_SHARD), "--max-concurrency", "2",
                         "--strict-starts", "1", "--heartbeat-ms", str(int(1000 * rt.SLOW))])
    try:
        out = fake.call("POST", "/_fake/guilds", {"ids": GUILDS})
        rt.check(out["guilds"] == 40, "the bot is in 40 guilds")
        gb = rt.api(fake, "GET", "/gateway/bot")
        rt.check(gb["shards"] == SHARDS and gb["session_start_limit"]["max_concurrency"] == 2,
                 "GET /gateway/bot recommends 4 shards, 2 starts per 5 s: %s" % gb)
        test_refused_config(tmp, fake)
        test_four_shards(tmp, fake, os.path.join(tmp, "rlyeh.db"))
        test_spacing(fake)
        test_unsharded_over_limit(tmp, fake)
        err = open(os.path.join(tmp, "bot.err")).read()
        rt.check(rt.TOKEN not in err, "the token is not in the log")
    finally:
        fake.stop()
    print("%d passed, %d failed (%.1f s)" % (rt.passed, rt.failed, time.time() - t0))
    if rt.failed:
        print("logs in", tmp)
    sys.exit(1 if rt.failed else 0)


if __name__ == "__main__":
    main()
