#!/usr/bin/env python3
"""The cost of the database checks at start and on demand.

Builds a database of GAMES finished games (default 10,000 and 100,000):
one Cthulhu Dice and one Elder Signs game are played with `rlyeh console`
(real rows: games, members, event logs), then copied with SQL under new ids,
servers and channels, alternating, until there are GAMES. Then it times,
REPEATS times each (the median printed), PRAGMA quick_check (what `rlyeh
run` and `rlyeh console` do at start), `rlyeh check-db` (PRAGMA
integrity_check, the whole process) and, as the yardstick, reading every
page of the file (cat > /dev/null) with the file cached. The load average
goes with it: the machine may be shared.

Usage: tests/bench/dbcheck.py [--rlyeh build-release/rlyeh] [--repeat 3] [GAMES...]
"""
import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def play(rlyeh, db, script, channel):
    with open(os.path.join(ROOT, "tests", "golden", "console", script + ".txt"), "rb") as f:
        subprocess.run([rlyeh, "console", "--db", db, "--seed", "42", "--timeout", "0",
                        "--channel", channel], input=f.read(), stdout=subprocess.DEVNULL,
                       check=True)


def build(rlyeh, path, games):
    play(rlyeh, path, "game-en", "t1")
    play(rlyeh, path, "elder-signs-en", "t2")
    db = sqlite3.connect(path)
    templates = [r[0] for r in db.execute("SELECT id FROM games ORDER BY id")]
    cols = [r[1] for r in db.execute("PRAGMA table_info(games)")]
    base = max(templates)
    exprs = []
    for c in cols:
        exprs.append({"id": "s.n + %d" % base, "server": "'g' || (s.n % 100)",
                      "channel": "'c' || s.n", "rated": "0"}.get(c, "t." + c))
    db.execute("BEGIN")
    seq = ("WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < %d) "
           % (games - len(templates)))
    pick = "t.id = CASE s.n %% 2 WHEN 0 THEN %d ELSE %d END" % (templates[0], templates[-1])
    db.execute("INSERT INTO games (%s) %s SELECT %s FROM s JOIN games t ON %s"
               % (", ".join(cols), seq, ", ".join(exprs), pick))
    for table in ("members", "events"):
        tcols = [r[1] for r in db.execute("PRAGMA table_info(%s)" % table)]
        sel = ["s.n + %d" % base if c == "game_id" else "x." + c for c in tcols]
        db.execute("INSERT INTO %s (%s) %s SELECT %s FROM s JOIN %s x ON x.game_id = "
                   "CASE s.n %% 2 WHEN 0 THEN %d ELSE %d END"
                   % (table, ", ".join(tcols), seq, ", ".join(sel), table, templates[0],
                      templates[-1]))
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    n = db.execute("SELECT count(*) FROM games").fetchone()[0]
    ev = db.execute("SELECT count(*) FROM events").fetchone()[0]
    db.close()
    return n, ev


def timed(fn, repeat):
    out = []
    for _ in range(repeat):
        t = time.monotonic()
        fn()
        out.append(time.monotonic() - t)
    return statistics.median(out)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rlyeh", default=os.path.join(ROOT, "build-release", "rlyeh"))
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("games", type=int, nargs="*", default=[10000, 100000])
    args = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="rlyeh-dbcheck-")
    try:
        for games in args.games:
            path = os.path.join(tmp, "g%d.db" % games)
            n, ev = build(args.rlyeh, path, games)
            size = os.path.getsize(path)

            def read_all():
                with open(path, "rb") as f:
                    while f.read(1 << 20):
                        pass

            def pragma(which):
                db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
                r = db.execute("PRAGMA %s" % which).fetchone()[0]
                db.close()
                assert r == "ok", r

            def check_db():
                subprocess.run([args.rlyeh, "check-db", "--db", path], check=True,
                               stdout=subprocess.DEVNULL)

            read_all()
            t_read = timed(read_all, args.repeat)
            t_quick = timed(lambda: pragma("quick_check"), args.repeat)
            t_full = timed(lambda: pragma("integrity_check"), args.repeat)
            t_cmd = timed(check_db, args.repeat)
            print("%d games, %d events, %.1f MB: read %.3f s, quick_check %.3f s (%.0fx the "
                  "read), integrity_check %.3f s (%.0fx), rlyeh check-db %.3f s; load %s"
                  % (n, ev, size / 1e6, t_read, t_quick, t_quick / t_read, t_full,
                     t_full / t_read, t_cmd, " ".join("%.2f" % x for x in os.getloadavg())))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
