#!/usr/bin/env python3
"""Soak benchmark: load, faults and kills together (a benchmark, not a CI test).

One fake Discord (tests/fake/fakediscord.c) and one daemon on one database. First the
capacity is measured (the fake's load generator as fast as the answers allow, --capacity-s
seconds) unless --rate is given; then for --duration seconds the generator runs at
--share (default 0.5) of that capacity while
  * the fake injects a fault every --fault-every seconds, in turn: per-route 429s, a global
    429, 500/502/503 answers, slow replies (--slow-ms), a gateway close (code 4000, an abrupt
    close without a close frame, or op 7 reconnect);
  * the daemon is SIGKILLed every --kill-every seconds and started again --restart-s later, as
    systemd does with Restart=on-failure and RestartSec (an exit of its own is restarted too,
    and counted).
At the end: interactions sent and answered, unanswered (in flight at a kill or refused as
answered too late), lost (moves whose buttons were shown but that are not in the database:
must be 0), doubled (second answers to one interaction: must be 0), p50/p99/max latency of
the answers, PRAGMA integrity_check, and every --sample-s seconds the daemon's RSS and open
file descriptors. One JSON line per sample on stderr with --verbose; the summary as JSON on
stdout. Exit status 1 when something was lost or doubled or the database is damaged.

Usage (from the repository root, after a Release build in build-release/):
  tests/bench/soak.py --rlyeh build-release/rlyeh --fake build-release/tests/fakediscord
  tests/bench/soak.py --duration 60 --kill-every 10 ...     (a shorter run)

Only the Python standard library is used."""
import argparse
import json
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import load  # noqa: E402  (the fake's wrapper and the memory helpers)

MIB = 1024.0 * 1024.0


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rlyeh", default=os.path.join(load.ROOT, "build-release", "rlyeh"))
    p.add_argument("--fake", default=os.path.join(load.ROOT, "build-release", "tests",
                                                  "fakediscord"))
    p.add_argument("--duration", type=float, default=600, help="seconds of soak (default 600)")
    p.add_argument("--channels", type=int, default=200)
    p.add_argument("--concurrency", type=int, default=64)
    p.add_argument("--computer", type=float, default=0.5)
    p.add_argument("--rate", type=float, default=None,
                   help="interactions/s (default: --share of the measured capacity)")
    p.add_argument("--share", type=float, default=0.5)
    p.add_argument("--capacity-s", type=float, default=15)
    p.add_argument("--kill-every", type=float, default=30)
    p.add_argument("--restart-s", type=float, default=1.0, help="like systemd's RestartSec")
    p.add_argument("--fault-every", type=float, default=3.0)
    p.add_argument("--slow-ms", type=int, default=1500)
    p.add_argument("--sample-s", type=float, default=5.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--keep", action="store_true", help="keep the run's directory")
    p.add_argument("--verbose", action="store_true")
    return p.parse_args()


class Daemon:
    """`rlyeh run` on the soak's database; started again after each kill."""

    def __init__(self, path, fake, tmp):
        self.path = path
        self.db = os.path.join(tmp, "rlyeh.db")
        self.errpath = os.path.join(tmp, "rlyeh.err")
        self.env = dict(os.environ)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.env.update({"RLYEH_TOKEN": load.TOKEN, "RLYEH_API_URL": fake.base + "/api/v10",
                         "RLYEH_DATABASE": self.db, "RLYEH_TURN_TIMEOUT": "0",
                         "RLYEH_LOG_LEVEL": "warning", "RLYEH_HEALTH_PORT": str(port)})
        self.proc = None
        self.starts = 0
        self.start()

    def start(self):
        err = open(self.errpath, "a")
        self.proc = subprocess.Popen([self.path, "run"], env=self.env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=err)
        err.close()
        self.starts += 1

    def alive(self):
        return self.proc.poll() is None

    def kill(self):
        if self.alive():
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def sample(self):
        """(VmRSS bytes, open fds) or None once the process is gone."""
        pid = self.proc.pid
        try:
            rss = 0
            with open("/proc/%d/status" % pid) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        rss = int(line.split()[1]) * 1024
            return rss, len(os.listdir("/proc/%d/fd" % pid))
        except OSError:
            return None


FAULTS = [
    ("429", {"http": {"status": 429, "count": 5, "retry_after": 0.3,
                      "path_prefix": "/api/v10/"}}),
    ("500", {"http": {"status": 500, "count": 3, "path_prefix": "/api/v10/"}}),
    ("slow", None),  # delay_ms from --slow-ms
    ("close", {"close": 4000}),
    ("502", {"http": {"status": 502, "count": 3, "path_prefix": "/api/v10/"}}),
    ("429 global", {"http": {"status": 429, "count": 2, "retry_after": 0.5, "global": True,
                             "path_prefix": "/api/v10/channels/"}}),
    ("abrupt", {"close": "abrupt"}),
    ("503", {"http": {"status": 503, "count": 3, "path_prefix": "/api/v10/"}}),
    ("reconnect", {"op": 7}),
]


def log(args, what):
    if args.verbose:
        print(json.dumps(what), file=sys.stderr, flush=True)


def wait_connected(fake, seconds):
    end = time.time() + seconds
    while time.time() < end:
        try:
            if fake.call("GET", "/_fake/state")["connected"]:
                return True
        except Exception:
            pass
        time.sleep(0.05)
    return False


def run_load(fake, body, until_done=True):
    fake.call("POST", "/_fake/load", body)
    if not until_done:
        return None
    while True:
        time.sleep(0.5)
        st = fake.call("GET", "/_fake/load")
        if not st["running"]:
            return st


def main():
    args = parse_args()
    for path in (args.rlyeh, args.fake):
        if not os.access(path, os.X_OK):
            sys.exit("soak.py: %s is not an executable (see --rlyeh, --fake)" % path)
    rng = random.Random(args.seed)
    tmp = tempfile.mkdtemp(prefix="rlyeh-soak-")
    fake = load.Fake(args.fake, tmp)
    daemon = Daemon(args.rlyeh, fake, tmp)
    summary = {}
    samples = []
    failed = False
    try:
        if not wait_connected(fake, 60):
            sys.exit("soak.py: the daemon never connected: " + open(daemon.errpath).read())
        time.sleep(0.5)
        base = {"channels": args.channels, "mode": "steady", "concurrency": args.concurrency,
                "computer": args.computer, "guild": "500"}
        capacity = None
        rate = args.rate
        if rate is None:
            st = run_load(fake, dict(base, duration_s=args.capacity_s, rate=0,
                                     seed=args.seed))
            capacity = st["rate"]
            rate = round(capacity * args.share, 1)
            log(args, {"capacity_per_s": capacity, "soak_rate": rate})
        run_load(fake, dict(base, duration_s=args.duration, rate=rate, seed=args.seed + 1),
                 until_done=False)
        t0 = time.time()
        next_kill = t0 + args.kill_every
        next_fault = t0 + args.fault_every
        next_sample = t0
        kills = exits = faults = 0
        fault_counts = {}
        fi = 0
        down_since = None
        while True:
            now = time.time()
            st = fake.call("GET", "/_fake/load")
            if not st["running"]:
                break
            if down_since is None and not daemon.alive():
                exits += 1  # an exit of its own: restarted like a failure
                down_since = now
                log(args, {"t": round(now - t0, 1), "exit": daemon.proc.returncode,
                           "stderr": open(daemon.errpath).read()[-500:]})
            if down_since is not None and now - down_since >= args.restart_s:
                daemon.start()
                down_since = None
            sending = now - t0 < args.duration
            if sending and now >= next_kill and down_since is None:
                daemon.kill()
                kills += 1
                down_since = now
                next_kill = now + args.kill_every
            if sending and now >= next_fault:
                name, body = FAULTS[fi % len(FAULTS)]
                fi += 1
                if body is None:
                    body = {"http": {"delay_ms": args.slow_ms, "count": 10,
                                     "path_prefix": "/api/v10/"}}
                try:
                    fake.call("POST", "/_fake/fault", body)
                    faults += 1
                    fault_counts[name] = fault_counts.get(name, 0) + 1
                except RuntimeError:
                    pass
                next_fault = now + args.fault_every * rng.uniform(0.5, 1.5)
            if now >= next_sample:
                s = daemon.sample() if down_since is None else None
                if s:
                    samples.append({"t_s": round(now - t0, 1), "rss_mib": round(s[0] / MIB, 2),
                                    "fds": s[1], "answered": st["answered"]})
                    log(args, samples[-1])
                next_sample = now + args.sample_s
            time.sleep(0.05)
        if down_since is not None:
            daemon.start()
        wait_connected(fake, 60)
        st = fake.call("GET", "/_fake/load?games=1")
        # the fake's violations of Discord's rules, by kind (numbers taken out)
        kinds = {}
        for e in fake.call("GET", "/_fake/log?since=0", timeout=60)["entries"]:
            if e.get("kind") == "violation":
                k = re.sub(r"\d+", "N", e.get("what", ""))[:160]
                kinds[k] = kinds.get(k, 0) + 1
        time.sleep(1)
        rc = daemon.stop()
        db = sqlite3.connect(daemon.db)
        integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
        moves = dict(db.execute("SELECT id, moves FROM games"))
        states = dict(db.execute("SELECT state, count(*) FROM games GROUP BY state").fetchall())
        db.close()
        lost = [(g, m, moves.get(g)) for g, m in st.get("announced", [])
                if moves.get(int(g)) is None or moves[int(g)] < m]
        rss = [s["rss_mib"] for s in samples]
        fds = [s["fds"] for s in samples]
        unanswered = st["sent"] - st["answered"]
        summary = {
            "duration_s": args.duration, "channels": args.channels,
            "capacity_per_s": capacity, "rate_target": rate,
            "kills": kills, "own_exits": exits, "starts": daemon.starts,
            "faults": faults, "fault_kinds": fault_counts,
            "sent": st["sent"], "answered": st["answered"],
            "answered_per_s": round(st["rate"], 1),
            "unanswered": unanswered, "timeouts": st["timeouts"], "errors": st["errors"],
            "late": st["late"], "doubled": st["doubled"],
            "games_announced": st["games_announced"], "games_finished": st["games_finished"],
            "games_db_by_state": {str(k): v for k, v in states.items()},
            "lost_moves": len(lost), "lost_examples": lost[:5],
            "p50_ms": st["p50_ms"], "p99_ms": st["p99_ms"], "p999_ms": st["p999_ms"],
            "max_ms": st["max_ms"],
            "violations": st["violations"], "channels_broken": st["channels_broken"],
            "violation_kinds": sorted(kinds.items(), key=lambda kv: -kv[1])[:8],
            "integrity": integrity, "exit_on_sigterm": rc,
            "rss_mib_first": rss[0] if rss else None, "rss_mib_max": max(rss) if rss else None,
            "rss_mib_last": rss[-1] if rss else None,
            "fds_min": min(fds) if fds else None, "fds_max": max(fds) if fds else None,
            "rss_over_time": [(s["t_s"], s["rss_mib"], s["fds"]) for s in samples[::6]],
        }
        failed = bool(lost) or st["doubled"] > 0 or integrity != "ok"
        print(json.dumps(summary), flush=True)
    finally:
        if daemon.alive():
            daemon.stop()
        fake.stop()
        if args.keep or failed:
            print("soak.py: run directory kept:", tmp, file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
