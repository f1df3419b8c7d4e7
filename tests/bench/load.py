#!/usr/bin/env python3
"""Load benchmark of `rlyeh run` against the fake Discord (tests/fake/fakediscord.c).

Each run starts a fresh fake and a fresh daemon with an empty database, waits until the
daemon's gateway session is up, starts the fake's load generator (POST /_fake/load), samples
the daemon's memory from /proc while it runs, and prints one JSON line. With --repeat K the
scenario runs K times and a last line gives the median of each figure.

Scenarios:
  steady  CHANNELS tables play at once; dispatches paced at RATE interactions/s (0: as fast
          as the answers allow, CONCURRENCY in flight at most) for DURATION seconds.
  burst   the same, alternating one second at full speed and one second idle.
  games   GAMES tables are opened, joined and started, then left in progress; reports the
          daemon's memory with that many games in progress.

Usage examples (from the repository root, after a Release build in build/):
  tests/bench/load.py --scenario steady --channels 200 --duration 20 --rate 5300
  tests/bench/load.py --scenario burst --channels 200 --duration 20 --repeat 3
  tests/bench/load.py --scenario games --games 10000 --repeat 3
  tests/bench/load.py --channels 50 --duration 10 --rate 0 --repeat 3 --baseline OLD/rlyeh

Each line also counts the HTTP requests the daemon made during the load, by route (the
interaction callback, the interaction's webhook: follow-ups and edits, a channel message
created, a channel message edited, GETs, others), and per interaction answered. With
--baseline the runs alternate between the daemon and the baseline binary (the same scenario,
the same seed), each line says which ran, and the last lines are each one's medians and the
ratios daemon / baseline.

Only the Python standard library is used."""
import argparse
import json
import os
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TOKEN = "bench-token.abc123"
APP = "1000"
MIB = 1024.0 * 1024.0


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scenario", choices=("steady", "burst", "games"), default="steady")
    p.add_argument("--rlyeh", default=os.path.join(ROOT, "build", "rlyeh"),
                   help="the daemon (default: build/rlyeh)")
    p.add_argument("--fake", default=os.path.join(ROOT, "build", "tests", "fakediscord"),
                   help="the fake Discord (default: build/tests/fakediscord)")
    p.add_argument("--channels", type=int, default=200, help="tables playing at once")
    p.add_argument("--duration", type=float, default=20, help="seconds of load (steady, burst)")
    p.add_argument("--rate", type=float, default=None,
                   help="target interactions/s, 0 = as fast as the answers allow "
                        "(default: 5000 for steady, 0 otherwise)")
    p.add_argument("--concurrency", type=int, default=64, help="interactions in flight at most")
    p.add_argument("--computer", type=float, default=0.5,
                   help="share of the tables with a computer player (0 to 1)")
    p.add_argument("--slash", type=float, default=0.0,
                   help="share of the Eye choices and responses typed as slash commands rather "
                        "than clicked (0 to 1)")
    p.add_argument("--games", type=int, default=10000, help="games left in progress (games)")
    p.add_argument("--games-timeout", type=float, default=1800,
                   help="seconds allowed to open the games (games)")
    p.add_argument("--repeat", type=int, default=1, help="runs; the last line is their median")
    p.add_argument("--seed", type=int, default=0, help="the generator's random seed (0: time)")
    p.add_argument("--perf", metavar="FILE",
                   help="record the daemon with `perf record --call-graph dwarf` during the "
                        "load into FILE")
    p.add_argument("--wrapper", default="",
                   help="a command line that runs the daemon, e.g. "
                        "\"valgrind --tool=callgrind --callgrind-out-file=cg.out\" "
                        "(the memory figures are then the wrapper's)")
    p.add_argument("--baseline", metavar="RLYEH",
                   help="another daemon binary run in alternation with --rlyeh (a yardstick)")
    p.add_argument("--keep", action="store_true", help="keep each run's directory")
    p.add_argument("--durability", choices=("full", "normal", "both"), default=None,
                   help="the daemon's durability key; both: full and normal in alternation, "
                        "with the ratios full / normal")
    p.add_argument("--verbose", action="store_true", help="progress on stderr")
    return p.parse_args()


def log(args, *what):
    if args.verbose:
        print("load.py:", *what, file=sys.stderr, flush=True)


class Fake:
    def __init__(self, path, tmp):
        portfile = os.path.join(tmp, "port")
        self.err = os.path.join(tmp, "fake.err")
        self.proc = subprocess.Popen(
            [path, "--port", "0", "--portfile", portfile, "--token", TOKEN, "--app-id", APP,
             "--heartbeat-ms", "41250"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(self.err, "w"))
        for _ in range(200):
            if os.path.exists(portfile) and open(portfile).read().strip():
                break
            if self.proc.poll() is not None:
                raise RuntimeError("the fake exited: " + open(self.err).read())
            time.sleep(0.05)
        self.port = int(open(portfile).read().strip())
        self.base = "http://127.0.0.1:%d" % self.port

    def call(self, method, path, body=None, timeout=10):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                text = r.read().decode()
        except urllib.error.HTTPError as e:
            raise RuntimeError("%s %s: %d %s" % (method, path, e.code, e.read().decode()))
        return json.loads(text) if text else None

    def stop(self):
        try:
            self.call("POST", "/_fake/shutdown", {}, timeout=3)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Daemon:
    def __init__(self, path, fake, tmp, wrapper="", durability=None):
        # A wrapped daemon (valgrind) is slow to stop and writes its profile as it exits.
        self.grace = 300 if wrapper else 30
        self.db = os.path.join(tmp, "rlyeh.db")
        self.err = os.path.join(tmp, "rlyeh.err")
        env = dict(os.environ)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.health = s.getsockname()[1]
        env.update({"RLYEH_TOKEN": TOKEN, "RLYEH_API_URL": fake.base + "/api/v10",
                    "RLYEH_DATABASE": self.db, "RLYEH_TURN_TIMEOUT": "0",
                    "RLYEH_LOG_LEVEL": "warning", "RLYEH_HEALTH_PORT": str(self.health)})
        if durability:
            env["RLYEH_DURABILITY"] = durability
        self.proc = subprocess.Popen(wrapper.split() + [path, "run"], env=env,
                                     stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=open(self.err, "w"))

    def status(self):
        """VmRSS and VmHWM in bytes (None once the process is gone)."""
        out = {}
        try:
            with open("/proc/%d/status" % self.proc.pid) as f:
                for line in f:
                    if line.startswith(("VmRSS:", "VmHWM:")):
                        k, v = line.split(":", 1)
                        out[k] = int(v.split()[0]) * 1024
        except OSError:
            return None
        return out

    def metrics(self):
        """The daemon's /metrics samples without labels, as {name: value}."""
        out = {}
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % self.health,
                                        timeout=5) as r:
                for line in r.read().decode().splitlines():
                    parts = line.split()
                    if len(parts) == 2 and not line.startswith("#") and "{" not in parts[0]:
                        out[parts[0]] = float(parts[1])
        except (OSError, ValueError):
            pass
        return out

    def db_bytes(self):
        return sum(os.path.getsize(self.db + s) for s in ("", "-wal")
                   if os.path.exists(self.db + s))

    def games_by_state(self):
        """{state: count} read from the database (0 lobby, 1 playing, 2 finished, 3 aborted)."""
        try:
            db = sqlite3.connect("file:%s?mode=ro" % self.db, uri=True, timeout=10)
            rows = db.execute("SELECT state, count(*) FROM games GROUP BY state").fetchall()
            db.close()
            return {int(s): n for s, n in rows}
        except sqlite3.Error:
            return {}

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(timeout=self.grace)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


class Sampler(threading.Thread):
    """The daemon's RSS every 100 ms."""

    def __init__(self, daemon):
        super().__init__(daemon=True)
        self.d = daemon
        self.max_rss = 0
        self.hwm = 0
        self.stopped = threading.Event()

    def run(self):
        while not self.stopped.is_set():
            self.sample()
            self.stopped.wait(0.1)

    def sample(self):
        st = self.d.status()
        if st:
            self.max_rss = max(self.max_rss, st.get("VmRSS", 0))
            self.hwm = max(self.hwm, st.get("VmHWM", 0))
        return st


def cpu_seconds(pid):
    """User + system CPU time of a process so far (0 once it is gone)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def machine_cpu_seconds():
    """CPU seconds spent by the whole machine so far (all cores, idle and iowait excluded)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return (sum(v[:8]) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")


def wait_for(cond, seconds, what):
    end = time.time() + seconds
    while time.time() < end:
        try:
            if cond():
                return
        except Exception:
            pass
        time.sleep(0.05)
    raise RuntimeError("timed out waiting for " + what)


def one_run(args, index, binary=None, durability=None):
    tmp = tempfile.mkdtemp(prefix="rlyeh-load-")
    fake = Fake(args.fake, tmp)
    daemon = None
    perf = None
    try:
        daemon = Daemon(binary or args.rlyeh, fake, tmp, args.wrapper, durability)
        wait_for(lambda: fake.call("GET", "/_fake/state")["connected"], 60, "the gateway session")
        # The command registration and the first requests settle first.
        time.sleep(0.5)
        sampler = Sampler(daemon)
        sampler.start()
        games = args.scenario == "games"
        if args.rate is not None:
            rate = args.rate
        else:
            rate = 5000 if args.scenario == "steady" else 0
        body = {"channels": args.games if games else args.channels,
                "duration_s": args.games_timeout if games else args.duration,
                "mode": "burst" if args.scenario == "burst" else "steady",
                "rate": rate, "concurrency": args.concurrency, "keep_open": games,
                "computer": args.computer, "slash": args.slash, "guild": "500"}
        if args.seed:
            body["seed"] = args.seed + index
        if args.perf:
            perf = subprocess.Popen(["perf", "record", "-F", "999", "--call-graph", "dwarf",
                                     "-o", args.perf, "-p", str(daemon.proc.pid)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        log(args, "run %d: %s" % (index + 1, json.dumps(body)))
        cpu0 = (cpu_seconds(daemon.proc.pid), cpu_seconds(fake.proc.pid), machine_cpu_seconds())
        fake.call("POST", "/_fake/load", body)
        limit = time.time() + body["duration_s"] + 60
        while True:
            time.sleep(0.5)
            st = fake.call("GET", "/_fake/load")
            log(args, "sent %d answered %d errors %d timeouts %d games_open %d"
                % (st["sent"], st["answered"], st["errors"], st["timeouts"], st["games_open"]))
            if not st["running"]:
                break
            if daemon.proc.poll() is not None:
                raise RuntimeError("the daemon exited: %s" % open(daemon.err).read()[-2000:])
            if time.time() > limit:
                fake.call("POST", "/_fake/load", {"stop": True})
        cpu = (cpu_seconds(daemon.proc.pid) - cpu0[0], cpu_seconds(fake.proc.pid) - cpu0[1],
               machine_cpu_seconds() - cpu0[2])
        if perf:
            perf.send_signal(signal.SIGINT)
            perf.wait()
        if games:
            # What the daemon holds with the games in progress, once its queue is idle.
            time.sleep(2)
        end = sampler.sample() or {}
        metrics = daemon.metrics()
        sampler.stopped.set()
        sampler.join()
        states = daemon.games_by_state()
        result = {
            "scenario": args.scenario,
            "run": index + 1,
            "channels": body["channels"],
            "duration_s": round(st["sending_s"], 3),
            "rate_target": rate,
            "concurrency": args.concurrency,
            "slash": args.slash,
            "sent": st["sent"],
            "answered": st["answered"],
            "interactions_per_s": round(st["rate"], 1),
            "p50_ms": st["p50_ms"],
            "p99_ms": st["p99_ms"],
            "p999_ms": st["p999_ms"],
            "max_ms": st["max_ms"],
            "mean_ms": round(st["mean_ms"], 3),
            "generator_gap_ms": round(st["gap_mean_ms"], 3),
            "errors": st["errors"],
            "timeouts": st["timeouts"],
            "peak_rss_mib": round(max(sampler.hwm, end.get("VmHWM", 0)) / MIB, 2),
            "rss_end_mib": round(end.get("VmRSS", 0) / MIB, 2),
            "db_mib": round(daemon.db_bytes() / MIB, 2),
            "games_finished": st["games_finished"],
            "games_in_progress": st["games_open"],
            "games_in_progress_db": states.get(1, 0),
            "violations": st["violations"],
            # Interactions per database commit (the daemon commits them in batches).
            "per_commit": round(st["answered"] / metrics["rlyeh_commits_total"], 2)
            if metrics.get("rlyeh_commits_total") else None,
            # CPU seconds per second of load: 1.0 is one core busy.
            "daemon_cpu": round(cpu[0] / max(st["elapsed_s"], 1e-9), 2),
            "fake_cpu": round(cpu[1] / max(st["elapsed_s"], 1e-9), 2),
            # Everything else on the machine (this script included): a busy machine skews runs.
            "other_cpu": round(max(cpu[2] - cpu[0] - cpu[1], 0) / max(st["elapsed_s"], 1e-9), 2),
        }
        if args.scenario == "burst":
            result["busy_s"] = round(st["busy_s"], 3)
            result["busy_interactions_per_s"] = round(st["busy_rate"], 1)
        if st["timeouts"] or st["channels_broken"]:
            result["channels_broken"] = st["channels_broken"]
        # The HTTP requests the daemon made, by route, and per interaction answered.
        if "requests" in st:
            result["requests"] = st["requests"]
            result["requests_per_interaction"] = round(st["requests_per_interaction"], 3)
        result["answered_per_s"] = st["per_s"]
        return result
    finally:
        if perf and perf.poll() is None:
            perf.send_signal(signal.SIGINT)
            perf.wait()
        if daemon:
            daemon.stop()
        fake.stop()
        if args.keep:
            print("load.py: run directory kept:", tmp, file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


MEDIAN_KEYS = ("duration_s", "sent", "answered", "interactions_per_s", "busy_interactions_per_s",
               "requests_per_interaction",
               "p50_ms", "p99_ms", "p999_ms", "max_ms", "errors", "timeouts", "peak_rss_mib",
               "rss_end_mib", "db_mib", "games_finished", "games_in_progress",
               "games_in_progress_db", "violations", "daemon_cpu", "fake_cpu", "other_cpu")


def median_line(runs):
    out = {"scenario": runs[0]["scenario"], "median_of": len(runs)}
    for k in ("channels", "rate_target", "concurrency", "slash"):
        out[k] = runs[0][k]
    for k in MEDIAN_KEYS:
        if k in runs[0]:
            out[k] = statistics.median(r[k] for r in runs)
    return out


RATIO_KEYS = ("interactions_per_s", "p50_ms", "p99_ms", "requests_per_interaction", "peak_rss_mib",
              "daemon_cpu")


def main():
    args = parse_args()
    for path in (args.rlyeh, args.fake) + ((args.baseline,) if args.baseline else ()):
        if not os.access(path, os.X_OK):
            sys.exit("load.py: %s is not an executable (see --rlyeh, --fake, --baseline)" % path)
    if args.durability == "both":
        if args.baseline:
            sys.exit("load.py: --durability both and --baseline do not go together")
        daemons = [("full", args.rlyeh, "full"), ("normal", args.rlyeh, "normal")]
    else:
        daemons = [("rlyeh", args.rlyeh, args.durability)] + (
            [("baseline", args.baseline, args.durability)] if args.baseline else [])
    pair = len(daemons) > 1
    runs = {name: [] for name, _, _ in daemons}
    for i in range(args.repeat):
        for name, binary, durability in daemons:
            r = one_run(args, i, binary, durability)
            if durability:
                r["durability"] = durability
            if pair:
                r["daemon"] = name
            runs[name].append(r)
            line = dict(r)
            if not args.verbose:
                line.pop("answered_per_s")
            print(json.dumps(line), flush=True)
    medians = {}
    for name, _, _ in daemons:
        if args.repeat > 1 or pair:
            medians[name] = median_line(runs[name])
            if pair:
                medians[name]["daemon"] = name
            print(json.dumps(medians[name]), flush=True)
    if pair:
        first, second = daemons[0][0], daemons[1][0]
        a, b = medians[first], medians[second]
        print(json.dumps({"ratio": "%s / %s" % (first, second), **{
            k: round(a[k] / b[k], 3) for k in RATIO_KEYS if a.get(k) and b.get(k)}}), flush=True)


if __name__ == "__main__":
    main()
