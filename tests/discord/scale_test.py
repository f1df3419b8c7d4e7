#!/usr/bin/env python3
"""Two rlyeh processes on one PostgreSQL database and one token, against one fake Discord: shards
0-1/4 in one, 2-3/4 in the other (the fake allows 2 session starts per 5 s and refuses one too
soon). Games in 200 channels of 40 guilds, with a 2 s turn timeout, make the bots post far more
than 50 channel messages a second together; the fake, counting every client, never sees more
than 50 requests in a second outside the interaction routes, nor two IDENTIFYs of one bucket
within 5 s. A global 429 forced on one process holds the other too.

Usage: scale_test.py RLYEH FAKEDISCORD (RLYEH_TEST_DATABASE: the PostgreSQL database, as
tests/pg/with_cluster.sh sets it)"""
import os
import sys
import tempfile
import time

import run_tests as rt
from guilds import GUILDS, SHARDS, in_channel, live, shard_of

PER_GUILD = 5
CHANNELS = [(g, str(720000 + 10 * k + c)) for k, g in enumerate(GUILDS) for c in range(PER_GUILD)]
LIMIT = 50
RETRY_AFTER = 2.0


def glob(fake):
    return fake.state()["global"]


def open_games(fake):
    for g, c in CHANNELS:
        for user, cmd in (("alice", "open"), ("bob", "join"), ("carol", "join")):
            fake.dispatch(in_channel(rt.slash(rt.USERS[user], cmd, channel=c), g, c))
    time.sleep(1.0)
    for g, c in CHANNELS:
        fake.dispatch(in_channel(rt.slash(rt.USERS["alice"], "start", channel=c), g, c))


def main():
    db = os.environ.get("RLYEH_TEST_DATABASE")
    if not db:
        print("SKIP: RLYEH_TEST_DATABASE is not set (run through tests/pg/with_cluster.sh)")
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="rlyeh-scale-")
    t0 = time.time()
    fake = rt.Fake(tmp, ["--max-concurrency", "2", "--strict-starts", "1"])
    bots = []
    try:
        rt.check(fake.call("POST", "/_fake/guilds", {"ids": GUILDS})["guilds"] == 40, "40 guilds")
        env = {"RLYEH_DATABASE": db, "RLYEH_TURN_TIMEOUT": "2", "RLYEH_LOG_LEVEL": "info"}
        for name, shards in (("a", "0-1/4"), ("b", "2-3/4")):
            bots.append(rt.Bot(tmp, fake, name, extra_env=env, args=["--shards", shards]))
        rt.wait(lambda: len(live(fake)) == SHARDS, 40, "four shards in two processes")
        log = fake.all_log()
        bad = [e["what"] for e in log if e.get("kind") == "violation"]
        rt.check(not bad, "no violation while both processes start (IDENTIFY spacing): %s" % bad[:3])
        starts = sorted(e["shard"] for e in log if e.get("kind") == "gw_session" and e["how"] == "identify")
        rt.check(starts == [0, 1, 2, 3], "one IDENTIFY per shard, none refused: %s" % starts)
        for b in bots:
            rt.check(b.proc.poll() is None, "both processes run")
        for name in ("a", "b"):
            err = open(os.path.join(tmp, name + ".err")).read()
            rt.check("2 processes, 20 requests/s each" in err,
                     "process %s keeps to half the global limit: %s" %
                     (name, [l for l in err.splitlines() if "shared limits" in l]))
        fake.call("POST", "/_fake/global_reset")
        before = glob(fake)["requests"]
        open_games(fake)
        # The timeouts post in every channel every 2 s: about 100 requests/s wanted.
        samples = []
        end = time.time() + 12
        while time.time() < end:
            g = glob(fake)
            samples.append((g["now_ms"], g["requests"]))
            time.sleep(0.1)
        g = glob(fake)
        sent = g["requests"] - before
        rate = (samples[-1][1] - samples[0][1]) * 1000.0 / max(1, samples[-1][0] - samples[0][0])
        coarse = max(n2 - n1 for t1, n1 in samples for t2, n2 in samples if 0 < t2 - t1 <= 1000)
        print("load: %d counted requests, %.1f/s over 12 s, peak %d in one second (%d ms after "
              "the load began; %d in one second sampled every 100 ms)" %
              (sent, rate, g["peak_per_s"], g["peak_at_ms"] - samples[0][0], coarse), file=sys.stderr)
        rt.check(rate > 0.7 * LIMIT, "the load needs more than one process's share (%.1f/s)" % rate)
        rt.check(0 < g["peak_per_s"] <= LIMIT,
                 "at most %d requests in any second from both processes (peak %d)" % (LIMIT, g["peak_per_s"]))

        # A global 429 on a channel of process a (shards 0-1): b holds too.
        g_a, c_a = next((g_, c) for g_, c in CHANNELS if shard_of(g_) in (0, 1))
        fake.fault({"http": {"status": 429, "global": True, "retry_after": RETRY_AFTER,
                             "prefix": "/api/v10/channels/"}})
        rt.wait(lambda: glob(fake)["fault_429_at_ms"] > 0, 10, "the global 429")
        samples = []
        end = time.time() + RETRY_AFTER + 1.5
        while time.time() < end:
            g = glob(fake)
            samples.append((g["now_ms"], g["requests"]))
            time.sleep(0.05)
        at = glob(fake)["fault_429_at_ms"]
        held = [n for t, n in samples if at + 400 <= t <= at + RETRY_AFTER * 1000 - 100]
        after = [n for t, n in samples if t >= at + RETRY_AFTER * 1000 + 300]
        rt.check(len(held) >= 5 and held[-1] - held[0] <= 1,
                 "no process sends during the global 429's retry_after (%s)" %
                 (held[-1] - held[0] if held else None))
        rt.check(after and held and after[-1] > held[-1], "both go on after it")
        errs = {n: open(os.path.join(tmp, n + ".err")).read() for n in ("a", "b")}
        heard = [n for n in errs if "another process got a global 429" in errs[n]]
        rt.check(len(heard) == 1, "the process without the 429 heard of it from the other: %s" % heard)
        bad = [e["what"] for e in fake.all_log() if e.get("kind") == "violation"]
        rt.check(not bad, "no violation: %s" % bad[:3])
        for b in bots:
            rt.check(b.proc.poll() is None, "both processes still run")
    finally:
        for b in bots:
            if b.proc.poll() is None:
                b.proc.terminate()
        for b in bots:
            try:
                b.proc.wait(timeout=20)
            except Exception:
                b.proc.kill()
        fake.stop()
    print("%d passed, %d failed (%.1f s)" % (rt.passed, rt.failed, time.time() - t0))
    if rt.failed:
        print("logs in", tmp)
    sys.exit(1 if rt.failed else 0)


if __name__ == "__main__":
    main()
