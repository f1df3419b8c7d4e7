#!/usr/bin/env python3
"""Load benchmark of `rlyeh run` against the fake Discord (tests/fake/fakediscord.c).

Each run starts a fresh fake and a fresh daemon with an empty database (in the environment its
systemd unit gives it: the unit's Environment= lines), waits until the
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

With --scale the same scenario runs, in turn and with the same seed, on three
configurations: one daemon on SQLite (the yardstick), one on PostgreSQL, and two on PostgreSQL
owning shards 0-0/2 and 1-1/2; the tables are spread over --guilds guilds of both shards. The
PostgreSQL cluster is a throwaway one (tests/pg/cluster.sh) that this script starts and stops,
with a fresh database for each run. The last lines are each configuration's medians and its
ratios against SQLite, and a Markdown table on stderr.
  tests/bench/load.py --scale --scenario steady --channels 200 --duration 20 --repeat 3

With --peers client,core the same load runs, round after round and with the same seed, on
rlyeh and on a discord.js bot that answers the tables with rlyeh's messages (tests/bench/peer:
discord.js 14 Client, @discordjs/core 2; install it with `cd tests/bench/peer && npm ci`):
steady at saturation and games, each; the last lines are each one's medians, and a Markdown
table on stderr sets them side by side (interactions/s, p50/p99, CPU ms per interaction, RSS
idle and with the games) with the ratios rlyeh / peer.
  tests/bench/load.py --peers client,core --repeat 3

Only the Python standard library is used (and psql with --scale, node with --peers)."""
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


def unit_environment():
    """The variables systemd/rlyeh.service.in sets (its Environment= lines), so that the
    daemon runs as the service does."""
    env = {}
    with open(os.path.join(ROOT, "systemd", "rlyeh.service.in")) as f:
        for line in f:
            if line.startswith("Environment="):
                key, _, value = line[len("Environment="):].strip().partition("=")
                env[key] = value
    return env


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
    p.add_argument("--seed", type=int, default=0,
                   help="the generator's random seed of the first run, the next runs +1 each "
                        "(0: drawn once from the clock)")
    p.add_argument("--perf", metavar="FILE",
                   help="record the daemon with `perf record --call-graph dwarf` during the "
                        "load into FILE")
    p.add_argument("--wrapper", default="",
                   help="a command line that runs the daemon, e.g. "
                        "\"valgrind --tool=callgrind --callgrind-out-file=cg.out\" "
                        "(the memory figures are then the wrapper's)")
    p.add_argument("--baseline", metavar="RLYEH",
                   help="another daemon binary run in alternation with --rlyeh (a yardstick)")
    p.add_argument("--scale", action="store_true",
                   help="run SQLite (1 process), PostgreSQL (1 process) and PostgreSQL "
                        "(2 processes, shards 0-0/2 and 1-1/2) in turn")
    p.add_argument("--configs", default="sqlite-1,pg-1,pg-2",
                   help="with --scale, the configurations to run, in this order (the first is "
                        "the yardstick): sqlite-1, pg-1, pg-2 (default: all three)")
    p.add_argument("--guilds", type=int, default=None,
                   help="guilds the tables are spread over, alternately on shards 0 and 1 of 2 "
                        "(default: 8 with --scale, else the one guild 500)")
    p.add_argument("--keep", action="store_true", help="keep each run's directory")
    p.add_argument("--durability", choices=("full", "normal", "both"), default=None,
                   help="the daemon's durability key; both: full and normal in alternation, "
                        "with the ratios full / normal")
    p.add_argument("--peers", metavar="LIST",
                   help="run rlyeh and discord.js peers (tests/bench/peer) in alternation: "
                        "client (discord.js 14 Client), core (@discordjs/core 2), "
                        "e.g. client,core; each round runs steady (saturated: rate 0 unless "
                        "--rate) and games, and a Markdown table comes last on stderr")
    p.add_argument("--node", default="node", help="with --peers, the node binary")
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
             "--heartbeat-ms", "41250", "--max-concurrency", "2"],
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
    def __init__(self, path, fake, tmp, wrapper="", database=None, shards=None, name="rlyeh",
                 durability=None):
        """database: a PostgreSQL URI (None: an SQLite file in tmp); shards: "A-B/N" or None;
        durability: the durability key (None: the default)."""
        # A wrapped daemon (valgrind) is slow to stop and writes its profile as it exits.
        self.grace = 300 if wrapper else 30
        self.db = database or os.path.join(tmp, "rlyeh.db")
        self.err = os.path.join(tmp, name + ".err")
        env = dict(os.environ)
        env.update(unit_environment())
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.health = s.getsockname()[1]
        env.update({"RLYEH_TOKEN": TOKEN, "RLYEH_API_URL": fake.base + "/api/v10",
                    "RLYEH_DATABASE": self.db, "RLYEH_TURN_TIMEOUT": "0",
                    "RLYEH_LOG_LEVEL": "warning", "RLYEH_HEALTH_PORT": str(self.health),
                    "STATE_DIRECTORY": tmp})
        if shards:
            env["RLYEH_SHARDS"] = shards
        if durability:
            env["RLYEH_DURABILITY"] = durability
        self.proc = subprocess.Popen(wrapper.split() + [path, "run"], env=env, cwd=tmp,
                                     stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=open(self.err, "w"))

    def log_counts(self):
        """(errors, warnings) the daemon logged (syslog levels 3 and 4 on stderr)."""
        try:
            lines = open(self.err, errors="replace").read().splitlines()
        except OSError:
            return 0, 0
        return (sum(1 for l in lines if l.startswith(("<0>", "<1>", "<2>", "<3>"))),
                sum(1 for l in lines if l.startswith("<4>")))

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
        if self.db.startswith("postgresql:"):
            rows = Postgres.sql(self.db, "SELECT pg_database_size(current_database())")
            return int(rows[0][0]) if rows else 0
        return sum(os.path.getsize(self.db + s) for s in ("", "-wal")
                   if os.path.exists(self.db + s))

    def games_by_state(self):
        """{state: count} read from the database (0 lobby, 1 playing, 2 finished, 3 aborted)."""
        if self.db.startswith("postgresql:"):
            rows = Postgres.sql(self.db, "SELECT state, count(*) FROM games GROUP BY state")
            return {int(r[0]): int(r[1]) for r in rows if len(r) == 2}
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


class Postgres:
    """A throwaway PostgreSQL cluster (tests/pg/cluster.sh), a fresh database for each run."""

    SCRIPT = os.path.join(ROOT, "tests", "pg", "cluster.sh")

    def __init__(self):
        # cluster.sh makes the folder; the name only has to be free.
        self.dir = tempfile.mktemp(prefix="rlyeh-bench-pg.")
        out = subprocess.run([self.SCRIPT, "start", self.dir], capture_output=True, text=True)
        if out.returncode:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise RuntimeError("cluster.sh start: %s" % out.stderr.strip())
        self.uri = out.stdout.strip().splitlines()[-1]
        self.n = 0

    @staticmethod
    def sql(uri, query):
        """The rows of a query, as lists of strings; raises on an error."""
        out = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-d", uri, "-c",
                              query], capture_output=True, text=True, timeout=60)
        if out.returncode:
            raise RuntimeError("psql %s: %s" % (query, out.stderr.strip()))
        return [line.split("|") for line in out.stdout.splitlines() if line]

    def create(self):
        """(name, URI) of a new empty database."""
        self.n += 1
        name = "bench%d" % self.n
        self.sql(self.uri, "CREATE DATABASE %s" % name)
        return name, self.uri.replace("postgresql:///postgres?", "postgresql:///%s?" % name, 1)

    def drop(self, name):
        try:
            self.sql(self.uri, "DROP DATABASE IF EXISTS %s WITH (FORCE)" % name)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            print("load.py:", e, file=sys.stderr)

    def cpu(self):
        """{pid: CPU seconds} of the postmaster (its reaped children included, key 0 for
        those) and of each of its live children."""
        try:
            pm = int(open(os.path.join(self.dir, "data", "postmaster.pid")).readline())
        except (OSError, ValueError):
            return {}
        out = {}
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % d) as f:
                    v = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            pid = int(d)
            if pid == pm:
                out[pid] = (int(v[11]) + int(v[12])) / os.sysconf("SC_CLK_TCK")
                out[0] = (int(v[13]) + int(v[14])) / os.sysconf("SC_CLK_TCK")
            elif int(v[1]) == pm:
                out[pid] = (int(v[11]) + int(v[12])) / os.sysconf("SC_CLK_TCK")
        return out

    @staticmethod
    def cpu_delta(before, after):
        """CPU seconds the cluster spent between two cpu() snapshots: a child gone in between
        counts in the postmaster's reaped time with all it ever spent."""
        return (sum(t - before.get(p, 0.0) for p, t in after.items())
                - sum(t for p, t in before.items() if p not in after))

    def stop(self, keep=False):
        """Stops the cluster and removes it (keep: its server log is kept, and named)."""
        if keep:
            fd, path = tempfile.mkstemp(prefix="rlyeh-bench-pg-", suffix=".log")
            os.close(fd)
            try:
                shutil.copyfile(os.path.join(self.dir, "server.log"), path)
                print("load.py: the PostgreSQL server's log kept:", path, file=sys.stderr)
            except OSError:
                pass
        subprocess.run([self.SCRIPT, "stop", self.dir], capture_output=True)


class Sampler(threading.Thread):
    """The daemon's RSS every 100 ms."""

    def __init__(self, daemon):
        super().__init__(daemon=True)
        self.d = daemon
        self.max_rss = 0
        self.hwm = 0
        self.first_rss = None  # the first sample: the process idle, its session up
        self.stopped = threading.Event()

    def run(self):
        while not self.stopped.is_set():
            self.sample()
            self.stopped.wait(0.1)

    def sample(self):
        st = self.d.status()
        if st:
            if self.first_rss is None:
                self.first_rss = st.get("VmRSS", 0)
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


def shard_guilds(n):
    """n guild ids, alternately on shards 0 and 1 of 2 ((id >> 22) % 2, as Discord shards)."""
    return [str(((k + 1) << 22) | 500) for k in range(n)]


def live_sessions(fake):
    return len(fake.call("GET", "/_fake/state")["live"])


def one_run(args, index, config):
    """One run of the scenario on config {"name", "binary", "pg" (a Postgres or None),
    "processes" (1 or 2)}; returns its result line."""
    tmp = tempfile.mkdtemp(prefix="rlyeh-load-")
    fake = Fake(args.fake, tmp)
    daemons = []
    perf = None
    pg = config.get("pg")
    dbname = None
    try:
        guilds = shard_guilds(args.guilds) if args.guilds else None
        if guilds:
            fake.call("POST", "/_fake/guilds", {"ids": guilds})
        database = None
        if pg:
            dbname, database = pg.create()
        procs = config.get("processes", 1)
        for k in range(procs):
            shards = "%d-%d/%d" % (k, k, procs) if procs > 1 else None
            daemons.append(config.get("start", Daemon)(
                config["binary"], fake, tmp, args.wrapper, database, shards,
                "rlyeh%d" % k if procs > 1 else "rlyeh", config.get("durability", args.durability)))
            if k + 1 < procs:
                # The first one makes the schema alone.
                wait_for(lambda: live_sessions(fake) >= k + 1, 60, "the gateway session")
        wait_for(lambda: live_sessions(fake) >= procs, 60, "the gateway sessions")
        # The command registration and the first requests settle first.
        time.sleep(0.5)
        samplers = [Sampler(d) for d in daemons]
        for sm in samplers:
            sm.start()
        games = args.scenario == "games"
        if args.rate is not None:
            rate = args.rate
        else:
            rate = 5000 if args.scenario == "steady" else 0
        body = {"channels": args.games if games else args.channels,
                "duration_s": args.games_timeout if games else args.duration,
                "mode": "burst" if args.scenario == "burst" else "steady",
                "rate": rate, "concurrency": args.concurrency, "keep_open": games,
                "computer": args.computer, "slash": args.slash, "seed": args.seed + index}
        if guilds:
            body["guilds"] = guilds
        else:
            body["guild"] = "500"
        if args.perf:
            perf = subprocess.Popen(["perf", "record", "-F", "999", "--call-graph", "dwarf",
                                     "-o", args.perf, "-p",
                                     ",".join(str(d.proc.pid) for d in daemons)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        log(args, "run %d, %s: %s" % (index + 1, config["name"], json.dumps(body)))

        def cpu_now():
            return ([cpu_seconds(d.proc.pid) for d in daemons], cpu_seconds(fake.proc.pid),
                    machine_cpu_seconds(), pg.cpu() if pg else {})

        cpu0 = cpu_now()
        fake.call("POST", "/_fake/load", body)
        limit = time.time() + body["duration_s"] + 60
        while True:
            time.sleep(0.5)
            st = fake.call("GET", "/_fake/load")
            log(args, "sent %d answered %d errors %d timeouts %d games_open %d"
                % (st["sent"], st["answered"], st["errors"], st["timeouts"], st["games_open"]))
            if not st["running"]:
                break
            for d in daemons:
                if d.proc.poll() is not None:
                    raise RuntimeError("the daemon exited: %s" % open(d.err).read()[-2000:])
            if time.time() > limit:
                fake.call("POST", "/_fake/load", {"stop": True})
        cpu1 = cpu_now()
        by_process = [b - a for a, b in zip(cpu0[0], cpu1[0])]
        cpu = (sum(by_process), cpu1[1] - cpu0[1], cpu1[2] - cpu0[2],
               Postgres.cpu_delta(cpu0[3], cpu1[3]) if pg else 0.0)
        if perf:
            perf.send_signal(signal.SIGINT)
            perf.wait()
        if games:
            # What the daemon holds with the games in progress, once its queue is idle.
            time.sleep(2)
        ends = [sm.sample() or {} for sm in samplers]
        metrics = [d.metrics() for d in daemons]
        for sm in samplers:
            sm.stopped.set()
            sm.join()
        states = daemons[0].games_by_state()
        commits = sum(m.get("rlyeh_commits_total", 0) for m in metrics)
        elapsed = max(st["elapsed_s"], 1e-9)
        result = {
            "scenario": args.scenario,
            "run": index + 1,
            "channels": body["channels"],
            "duration_s": round(st["sending_s"], 3),
            "rate_target": rate,
            "concurrency": args.concurrency,
            "slash": args.slash,
            "seed": body["seed"],
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
            # With several processes: the sum of their peaks, and of their RSS at the end.
            "peak_rss_mib": round(sum(max(sm.hwm, e.get("VmHWM", 0))
                                      for sm, e in zip(samplers, ends)) / MIB, 2),
            "rss_end_mib": round(sum(e.get("VmRSS", 0) for e in ends) / MIB, 2),
            "db_mib": round(daemons[0].db_bytes() / MIB, 2),
            "games_finished": st["games_finished"],
            "games_in_progress": st["games_open"],
            "games_in_progress_db": states.get(1, 0),
            "violations": st["violations"],
            # Interactions per database commit (the daemon commits them in batches).
            "per_commit": round(st["answered"] / commits, 2) if commits else None,
            "db_errors": sum(int(m.get("rlyeh_database_errors_total", 0)) for m in metrics),
            "log_errors": sum(d.log_counts()[0] for d in daemons),
            "log_warnings": sum(d.log_counts()[1] for d in daemons),
            # CPU seconds per second of load: 1.0 is one core busy (all the daemons together).
            "daemon_cpu": round(cpu[0] / elapsed, 2),
            # The daemons' CPU (user + system) per interaction answered, in milliseconds.
            "cpu_ms_per_interaction": round(cpu[0] * 1000.0 / st["answered"], 4)
            if st["answered"] else None,
            "fake_cpu": round(cpu[1] / elapsed, 2),
            # Everything else on the machine (this script included): a busy machine skews runs.
            "other_cpu": round(max(cpu[2] - cpu[0] - cpu[1] - cpu[3], 0) / elapsed, 2),
        }
        if pg:
            # The PostgreSQL server's processes (counted out of other_cpu).
            result["postgres_cpu"] = round(cpu[3] / elapsed, 2)
        if len(daemons) > 1:
            # Each process's share of the answers, from its /metrics.
            result["answered_by_process"] = [
                int(sum(v for k, v in m.items() if k.startswith("rlyeh_response_seconds_count")))
                for m in metrics]
            result["daemon_cpu_by_process"] = [round(t / elapsed, 2) for t in by_process]
        if args.scenario == "burst":
            result["busy_s"] = round(st["busy_s"], 3)
            result["busy_interactions_per_s"] = round(st["busy_rate"], 1)
        if st["timeouts"] or st["channels_broken"]:
            result["channels_broken"] = st["channels_broken"]
        # The HTTP requests the daemon made, by route, and per interaction answered.
        if "requests" in st:
            result["requests"] = st["requests"]
            result["requests_per_interaction"] = round(st["requests_per_interaction"], 3)
        # The idle RSS (once the session is up, before the load).
        result["rss_idle_mib"] = round(sum(sm.first_rss or 0 for sm in samplers) / MIB, 2)
        result["answered_per_s"] = st["per_s"]
        return result
    finally:
        if perf and perf.poll() is None:
            perf.send_signal(signal.SIGINT)
            perf.wait()
        for d in daemons:
            d.stop()
        fake.stop()
        if dbname and not args.keep:
            pg.drop(dbname)
        if args.keep:
            print("load.py: run directory kept:", tmp, file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


MEDIAN_KEYS = ("duration_s", "sent", "answered", "interactions_per_s", "busy_interactions_per_s",
               "requests_per_interaction",
               "p50_ms", "p99_ms", "p999_ms", "max_ms", "mean_ms", "errors", "timeouts",
               "peak_rss_mib", "rss_end_mib", "db_mib", "games_finished", "games_in_progress",
               "games_in_progress_db", "violations", "db_errors", "log_errors", "log_warnings",
               "daemon_cpu", "cpu_ms_per_interaction", "postgres_cpu", "fake_cpu", "other_cpu",
               "rss_idle_mib")


def median_line(runs):
    out = {"scenario": runs[0]["scenario"], "median_of": len(runs)}
    for k in ("channels", "rate_target", "concurrency", "slash"):
        out[k] = runs[0][k]
    for k in MEDIAN_KEYS:
        if k in runs[0] and all(r.get(k) is not None for r in runs):
            out[k] = statistics.median(r[k] for r in runs)
    return out


RATIO_KEYS = ("interactions_per_s", "p50_ms", "p99_ms", "requests_per_interaction", "peak_rss_mib",
              "daemon_cpu", "cpu_ms_per_interaction")


def uptime():
    """The load averages (1, 5, 15 minutes) as `uptime` shows them."""
    try:
        return open("/proc/loadavg").read().split()[:3]
    except OSError:
        return []


def table(configs, medians, ratios, load_before, load_after, args):
    """A Markdown table of the medians and the ratios against the first configuration."""
    rows = ["", "%s, %d channels, %g s, rate %s, %d runs each, seeds %d..%d; load average "
            "%s before, %s after; %d cores" %
            (args.scenario, args.channels, args.duration,
             "%g" % (args.rate if args.rate is not None else
                     5000 if args.scenario == "steady" else 0), args.repeat,
             args.seed, args.seed + args.repeat - 1, " ".join(load_before),
             " ".join(load_after), os.cpu_count() or 0), "",
            "| configuration | interactions/s | p50 ms | p99 ms | × interactions/s | × p99 "
            "| errors | timeouts | daemon CPU | postgres CPU | fake CPU | other CPU |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    rate_key = "busy_interactions_per_s" if args.scenario == "burst" else "interactions_per_s"
    for c in configs:
        m, r = medians[c["name"]], ratios.get(c["name"], {})
        rows.append("| %s | %.0f | %.2f | %.2f | %s | %s | %g | %g | %.2f | %s | %.2f | %.2f |" % (
            c["label"], m[rate_key], m["p50_ms"], m["p99_ms"],
            "%.2f" % r[rate_key] if rate_key in r else "1", "%.2f" % r["p99_ms"]
            if "p99_ms" in r else "1", m["errors"], m["timeouts"], m["daemon_cpu"],
            "%.2f" % m["postgres_cpu"] if "postgres_cpu" in m else "-", m["fake_cpu"],
            m["other_cpu"]))
    if args.scenario == "burst":
        rows.append("")
        rows.append("(burst: interactions/s over the busy seconds alone)")
    return "\n".join(rows)


# The discord.js peer (--peers): the same load on a Cthulhu Dice bot written with discord.js
# (tests/bench/peer, installed with `npm ci` there), run in alternation with rlyeh.

PEER_DIR = os.path.join(ROOT, "tests", "bench", "peer")
PEER_LABELS = {"client": "discord.js 14 `Client`", "core": "@discordjs/core 2"}
PEER_PACKAGES = {"client": ("discord.js",), "core": ("@discordjs/core", "@discordjs/ws",
                                                    "@discordjs/rest")}


class Peer(Daemon):
    """A peer bot (flavour "client" or "core") against the fake, in place of a Daemon: the same
    interface; no database, no metrics."""

    NODE = "node"

    def __init__(self, flavour, fake, tmp, wrapper="", database=None, shards=None,
                 name="rlyeh", durability=None):
        self.grace = 10
        self.db = ""
        self.err = os.path.join(tmp, "peer-%s.err" % flavour)
        env = dict(os.environ)
        env.update({"DISCORD_TOKEN": TOKEN, "DISCORD_API": fake.base + "/api",
                    "NODE_ENV": "production"})
        self.proc = subprocess.Popen([self.NODE, os.path.join(PEER_DIR, "peer.js"), flavour],
                                     env=env, cwd=tmp, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=open(self.err, "w"))

    def log_counts(self):
        """(interactions it failed to answer, 0), from its stderr."""
        try:
            lines = open(self.err, errors="replace").read().splitlines()
        except OSError:
            return 0, 0
        return sum(1 for l in lines if l.startswith("peer: ") and not l.startswith("peer: {")), 0

    def metrics(self):
        return {}

    def db_bytes(self):
        return 0

    def games_by_state(self):
        return {}


def peer_versions():
    """{package: version} of the installed peer packages, and node's version."""
    out = {}
    for pkgs in PEER_PACKAGES.values():
        for pkg in pkgs:
            try:
                with open(os.path.join(PEER_DIR, "node_modules", pkg, "package.json")) as f:
                    out[pkg] = json.load(f)["version"]
            except (OSError, ValueError, KeyError):
                out[pkg] = None
    try:
        out["node"] = subprocess.run([Peer.NODE, "--version"], capture_output=True, text=True,
                                     timeout=30).stdout.strip()
    except OSError:
        out["node"] = None
    return out


def peer_table(names, med, load_before, load_after, args, versions):
    """The side-by-side Markdown table: rlyeh, each peer, and rlyeh ÷ each peer."""
    peers = names[1:]
    steady = {n: med[(n, "steady")] for n in names}
    games = {n: med[(n, "games")] for n in names}

    def ratio(a, b):
        return "%.2f" % (a / b) if a is not None and b else "-"

    def num(v, fmt):
        return fmt % v if v is not None else "-"

    head = ["figure", "rlyeh"] + [PEER_LABELS[p] for p in peers] + [
        "rlyeh ÷ %s" % PEER_LABELS[p] for p in peers]
    rows = []

    def add(figure, cells, ratios):
        rows.append("| %s |" % " | ".join([figure] + cells + ratios))

    add("saturated interactions/s", [num(steady[n]["interactions_per_s"], "%.0f") for n in names],
        [ratio(steady["rlyeh"]["interactions_per_s"], steady[p]["interactions_per_s"])
         for p in peers])
    add("p50 / p99 ms at that load",
        ["%.1f / %.1f" % (steady[n]["p50_ms"], steady[n]["p99_ms"]) for n in names],
        ["%s / %s" % (ratio(steady["rlyeh"]["p50_ms"], steady[p]["p50_ms"]),
                      ratio(steady["rlyeh"]["p99_ms"], steady[p]["p99_ms"])) for p in peers])
    add("CPU ms per interaction",
        [num(steady[n].get("cpu_ms_per_interaction"), "%.3f") for n in names],
        [ratio(steady["rlyeh"].get("cpu_ms_per_interaction"), steady[p].get("cpu_ms_per_interaction"))
         for p in peers])
    add("RSS idle, and with %s games, MiB" % format(args.games, ","),
        ["%.1f / %.1f" % (games[n]["rss_idle_mib"], games[n]["rss_end_mib"]) for n in names],
        ["%s / %s" % (ratio(games["rlyeh"]["rss_idle_mib"], games[p]["rss_idle_mib"]),
                      ratio(games["rlyeh"]["rss_end_mib"], games[p]["rss_end_mib"]))
         for p in peers])
    add("games in progress (of %s)" % format(args.games, ","),
        ["%.0f" % games[n]["games_in_progress"] for n in names], ["" for p in peers])
    add("errors / timeouts / protocol violations (saturated; games)",
        ["%g / %g / %g; %g / %g / %g" % tuple(m[n][k] for m in (steady, games)
                                          for k in ("errors", "timeouts", "violations"))
         for n in names], ["" for p in peers])
    rate = args.rate if args.rate is not None else 0
    lines = ["",
             "`tests/bench/load.py --peers %s --repeat %d --channels %d --duration %g%s "
             "--games %d`: medians of %d interleaved runs each, seeds %d..%d; steady %s, "
             "concurrency %d, %g%% of the tables with a computer player; load average %s "
             "before, %s after; %d cores. The peers keep their state in memory only (no "
             "database), roll the die with Math.random and run node %s, %s."
             % (args.peers, args.repeat, args.channels, args.duration,
                " --rate %g" % rate if rate else "", args.games, args.repeat, args.seed,
                args.seed + args.repeat - 1,
                "saturated (rate 0)" if not rate else "at rate %g" % rate, args.concurrency,
                args.computer * 100, " ".join(load_before), " ".join(load_after),
                os.cpu_count() or 0, versions.get("node"),
                ", ".join("%s %s" % (k, v) for k, v in versions.items() if k != "node")),
             "",
             "| %s |" % " | ".join(head),
             "| --- |" + " ---: |" * (len(head) - 1)] + rows
    return "\n".join(lines)


def run_peers(args):
    """--peers: rounds of (rlyeh, each peer) x (steady, games), the medians of each, and the
    side-by-side table on stderr."""
    peers = [p for p in args.peers.split(",") if p]
    if not peers or any(p not in PEER_LABELS for p in peers) or len(set(peers)) < len(peers):
        sys.exit("load.py: --peers: a list of client, core")
    if args.scale or args.baseline or args.durability == "both" or args.guilds:
        sys.exit("load.py: --peers goes alone (not with --scale, --baseline, --durability "
                 "both, --guilds)")
    if not os.path.isdir(os.path.join(PEER_DIR, "node_modules")):
        sys.exit("load.py: the peer is not installed: cd tests/bench/peer && npm ci")
    Peer.NODE = args.node
    if not args.seed:
        args.seed = int(time.time()) % 1000000 + 1
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda n, f: sys.exit(128 + n))
    versions = peer_versions()
    configs = [{"name": "rlyeh", "binary": args.rlyeh}] + [
        {"name": p, "binary": p, "start": Peer} for p in peers]
    scenarios = []
    for scenario in ("steady", "games"):
        sub = argparse.Namespace(**vars(args))
        sub.scenario = scenario
        sub.rate = (args.rate if args.rate is not None else 0) if scenario == "steady" else 0
        sub.perf = None
        scenarios.append(sub)
    load_before = uptime()
    runs = {}
    for i in range(args.repeat):
        for c in configs:
            for sub in scenarios:
                r = one_run(sub, i, c)
                r["config"] = c["name"]
                runs.setdefault((c["name"], sub.scenario), []).append(r)
                line = dict(r)
                if not args.verbose:
                    line.pop("answered_per_s")
                print(json.dumps(line), flush=True)
    load_after = uptime()
    med = {}
    for c in configs:
        for sub in scenarios:
            m = median_line(runs[(c["name"], sub.scenario)])
            m["config"] = c["name"]
            med[(c["name"], sub.scenario)] = m
            print(json.dumps(m), flush=True)
    print(peer_table([c["name"] for c in configs], med, load_before, load_after, args,
                     versions), file=sys.stderr, flush=True)


def main():
    args = parse_args()
    # The daemons run in their run's directory.
    args.rlyeh, args.fake = os.path.abspath(args.rlyeh), os.path.abspath(args.fake)
    if args.baseline:
        args.baseline = os.path.abspath(args.baseline)
    for path in (args.rlyeh, args.fake) + ((args.baseline,) if args.baseline else ()):
        if not os.access(path, os.X_OK):
            sys.exit("load.py: %s is not an executable (see --rlyeh, --fake, --baseline)" % path)
    if args.peers:
        return run_peers(args)
    if args.scale and args.baseline:
        sys.exit("load.py: --scale and --baseline do not go together")
    if args.scale and args.durability == "both":
        sys.exit("load.py: --scale and --durability both do not go together")
    if args.guilds is None:
        args.guilds = 8 if args.scale else 0
    if args.guilds < 0 or args.guilds > 64:
        sys.exit("load.py: --guilds: 1 to 64")
    if not args.seed:
        # One seed for every configuration of a round: the same tables and moves.
        args.seed = int(time.time()) % 1000000 + 1
    # A signal ends the script through its finally clauses (the cluster is stopped).
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda n, f: sys.exit(128 + n))
    pg = None
    try:
        if args.scale:
            pg = Postgres() if "pg-" in args.configs else None
            configs = [
                {"name": "sqlite-1", "label": "SQLite, 1 process", "binary": args.rlyeh},
                {"name": "pg-1", "label": "PostgreSQL, 1 process", "binary": args.rlyeh,
                 "pg": pg},
                {"name": "pg-2", "label": "PostgreSQL, 2 processes (shards 0-0/2, 1-1/2)",
                 "binary": args.rlyeh, "pg": pg, "processes": 2}]
            names = args.configs.split(",")
            if not names or any(n not in [c["name"] for c in configs] for n in names):
                sys.exit("load.py: --configs: a list of sqlite-1, pg-1, pg-2")
            configs = [next(c for c in configs if c["name"] == n) for n in names]
        elif args.durability == "both":
            if args.baseline:
                sys.exit("load.py: --durability both and --baseline do not go together")
            configs = [{"name": "full", "binary": args.rlyeh, "durability": "full"},
                       {"name": "normal", "binary": args.rlyeh, "durability": "normal"}]
        else:
            configs = [{"name": "rlyeh", "binary": args.rlyeh}]
            if args.baseline:
                configs.append({"name": "baseline", "binary": args.baseline})
        several = len(configs) > 1 or args.scale
        load_before = uptime()
        runs = {c["name"]: [] for c in configs}
        for i in range(args.repeat):
            for c in configs:
                r = one_run(args, i, c)
                if several:
                    r["daemon" if args.baseline else "config"] = c["name"]
                if c.get("durability", args.durability):
                    r["durability"] = c.get("durability", args.durability)
                runs[c["name"]].append(r)
                line = dict(r)
                if not args.verbose:
                    line.pop("answered_per_s")
                print(json.dumps(line), flush=True)
        load_after = uptime()
        medians = {}
        for c in configs:
            if args.repeat > 1 or several:
                medians[c["name"]] = median_line(runs[c["name"]])
                if several:
                    medians[c["name"]]["daemon" if args.baseline else "config"] = c["name"]
                if args.scale:
                    medians[c["name"]]["load_average"] = load_after
                print(json.dumps(medians[c["name"]]), flush=True)
        ratios = {}
        if args.durability == "both":
            a, b = medians["full"], medians["normal"]
            print(json.dumps({"ratio": "full / normal", **{
                k: round(a[k] / b[k], 3) for k in RATIO_KEYS if a.get(k) and b.get(k)}}),
                flush=True)
        if args.baseline:
            a, b = medians["rlyeh"], medians["baseline"]
            print(json.dumps({"ratio": "rlyeh / baseline", **{
                k: round(a[k] / b[k], 3) for k in RATIO_KEYS if a.get(k) and b.get(k)}}),
                flush=True)
        if args.scale:
            b = medians[configs[0]["name"]]
            for c in configs[1:]:
                a = medians[c["name"]]
                ratios[c["name"]] = {k: round(a[k] / b[k], 3)
                                     for k in RATIO_KEYS + ("busy_interactions_per_s",)
                                     if a.get(k) and b.get(k)}
                print(json.dumps({"ratio": "%s / %s" % (c["name"], configs[0]["name"]),
                                  **ratios[c["name"]]}), flush=True)
            print(table(configs, medians, ratios, load_before, load_after, args),
                  file=sys.stderr, flush=True)
    finally:
        if pg:
            pg.stop(args.keep)


if __name__ == "__main__":
    main()
