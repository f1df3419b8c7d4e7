#!/usr/bin/env python3
"""Power-loss test: while Cthulhu Dice games are played through the fake
Discord, the daemon runs its database over the power-cut test VFS
(RLYEH_TEST_POWERLOSS_UNDO: every write not yet synced has its replaced bytes
in an undo file). At a random instant the daemon is killed with SIGKILL and
the power "goes": the undo records are applied newest first to the database,
write-ahead log and journal (every unsynced write is undone), the shared-memory
index is dropped, and the daemon starts again and play goes on, ROUNDS times.
After each cut, on a copy of the files: PRAGMA integrity_check is ok and every
move a table message showed is in the database. The daemon must come back up
(it refuses to start when a stored game does not load), and at the end every
game finishes.

With --expect-loss the daemon runs with durability = normal and the test
passes only when some announced move is lost: the check can fail.

Usage: powerloss_test.py RLYEH FAKEDISCORD [ROUNDS] [--expect-loss]"""
import os
import random
import shutil
import signal
import sqlite3
import struct
import sys
import tempfile
import time

import run_tests as rt
from crash_test import absorb, send, slash_in, step

ARGS = [a for a in sys.argv[3:] if not a.startswith("--")]
EXPECT_LOSS = "--expect-loss" in sys.argv
ROUNDS = int(ARGS[0]) if ARGS else 200
CHANNELS = ["701", "702", "703"]


def undo_records(path):
    """The records of the undo file still standing (not forgotten by a sync
    of their file), oldest first. A torn last record is dropped: its real
    write had not started."""
    try:
        data = open(path, "rb").read()
    except FileNotFoundError:
        return []
    pending = {}
    order = []
    i = 0
    while i < len(data):
        if i + 5 > len(data):
            break
        kind = data[i:i + 1]
        (plen,) = struct.unpack_from("=I", data, i + 1)
        j = i + 5 + plen
        if j > len(data):
            break
        name = data[i + 5:j].decode()
        if kind == b"S":
            pending[name] = []
            i = j
            continue
        if kind != b"W" or j + 20 > len(data):
            break
        off, oldsize, n = struct.unpack_from("=qqI", data, j)
        if j + 20 + n > len(data):
            break
        rec = (len(order), name, off, oldsize, data[j + 20:j + 20 + n])
        order.append(rec)
        pending.setdefault(name, []).append(rec)
        i = j + 20 + n
    return sorted((r for recs in pending.values() for r in recs), key=lambda r: r[0])


def power_cut(tmp, undo):
    """Undoes every unsynced write, newest first; returns (records, bytes)."""
    recs = undo_records(undo)
    nbytes = 0
    for _, name, off, oldsize, old in reversed(recs):
        if not os.path.exists(name):
            continue
        with open(name, "r+b") as f:
            if old:
                f.seek(off)
                f.write(old)
            f.truncate(oldsize)
        nbytes += len(old)
    if os.path.exists(undo):
        os.remove(undo)
    shm = os.path.join(tmp, "rlyeh.db-shm")
    if os.path.exists(shm):
        os.remove(shm)
    return len(recs), nbytes


def after_cut(tmp, best):
    """On a copy of the files as the cut left them: (integrity, moves by game)."""
    check_dir = os.path.join(tmp, "check")
    shutil.rmtree(check_dir, ignore_errors=True)
    os.mkdir(check_dir)
    for suffix in ("", "-wal", "-journal"):
        src = os.path.join(tmp, "rlyeh.db" + suffix)
        if os.path.exists(src):
            shutil.copyfile(src, os.path.join(check_dir, "rlyeh.db" + suffix))
    db = sqlite3.connect(os.path.join(check_dir, "rlyeh.db"))
    try:
        integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
        moves = dict(db.execute("SELECT id, moves FROM games"))
    finally:
        db.close()
    return integrity, moves


def main():
    tmp = tempfile.mkdtemp(prefix="rlyeh-powerloss-")
    undo = os.path.join(tmp, "rlyeh.db.undo")
    env = {"RLYEH_TEST_POWERLOSS_UNDO": undo,
           "RLYEH_TEST_POWERLOSS_SYNC_US": "2000",
           "RLYEH_DURABILITY": "normal" if EXPECT_LOSS else "full"}
    fake = rt.Fake(tmp)
    rng = random.Random(4321)
    tables = {c: rt.Table(fake, c) for c in CHANNELS}
    best = {}
    started = {c: False for c in CHANNELS}
    seen = {c: None for c in CHANNELS}  # the table message last seen, and for how many passes
    stalled = {c: 0 for c in CHANNELS}
    rounds = undone_rounds = undone_records = undone_bytes = 0
    lost_moves = lost_games = announced = 0
    bad_integrity = []
    t0 = time.time()
    bot = rt.Bot(tmp, fake, "powerloss", env)
    rt.wait(rt.connected(fake), 15, "first connection")
    deadline = time.time() + 600
    try:
        while time.time() < deadline:
            # With durability = normal the cuts are the check: games that
            # lost their start are not played to their end.
            if rounds >= ROUNDS and (EXPECT_LOSS or all(rt.game_over(t) for t in tables.values())):
                break
            step(fake, tables, started, rounds < ROUNDS)
            # Half the cuts land within 15 ms of the commands, while the
            # daemon is still writing them.
            cut = rounds < ROUNDS and rng.random() < 0.5
            time.sleep(rng.uniform(0.0, 0.015) if cut and rng.random() < 0.5 else rng.uniform(0.0, 0.08))
            absorb(fake.log(), tables, best)
            for c in CHANNELS:
                # A cut that took the channel's game (durability = normal)
                # leaves a table nobody can play: open a new game there.
                now = repr((tables[c].embed, tables[c].components))
                stalled[c] = stalled[c] + 1 if now == seen[c] else 0
                seen[c] = now
                if stalled[c] > 40 and not (rounds >= ROUNDS and rt.game_over(tables[c])):
                    started[c] = False
                    stalled[c] = 0
                    send(fake, slash_in(c, rt.USERS["carol"], "status"))
            if cut:
                bot.proc.send_signal(signal.SIGKILL)
                bot.proc.wait()
                rounds += 1
                if os.environ.get("POWERLOSS_VERBOSE"):
                    print("round", rounds, round(time.time() - t0, 1), flush=True)
                absorb(fake.log(), tables, best)
                n, nbytes = power_cut(tmp, undo)
                if n:
                    undone_rounds += 1
                    undone_records += n
                    undone_bytes += nbytes
                integrity, moves = after_cut(tmp, best)
                if integrity != "ok":
                    bad_integrity.append((rounds, integrity))
                announced = max(announced, sum(best.values()))
                for g, m in list(best.items()):
                    have = moves.get(g)
                    if have is None or have < m:
                        lost_games += 1
                        lost_moves += m - have if have is not None else m + 1
                        if not EXPECT_LOSS:
                            print("round %d: game %d announced move %d, stored %s" % (rounds, g, m, have))
                        # Play goes on from what the disk kept.
                        if have is None:
                            del best[g]
                        else:
                            best[g] = have
                bot = rt.Bot(tmp, fake, "powerloss", env)
                if not rt.wait(rt.connected(fake), 15, "restart after cut %d" % rounds):
                    print(bot.stderr()[-2000:])
                    break
                for c in CHANNELS:
                    send(fake, slash_in(c, rt.USERS["carol"], "status"))
                time.sleep(0.05)
                absorb(fake.log(), tables, best)
        absorb(fake.log(), tables, best)
    finally:
        bot.stop()
        fake.stop()
    elapsed = time.time() - t0
    rt.check(rounds == ROUNDS, "power cuts: %d" % rounds)
    rt.check(not bad_integrity, "integrity after every cut: %s" % bad_integrity[:3])
    db = sqlite3.connect(os.path.join(tmp, "rlyeh.db"))
    rt.check(db.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "integrity at the end")
    moves = dict(db.execute("SELECT id, moves FROM games"))
    open_games = db.execute("SELECT count(*) FROM games WHERE state IN (0, 1)").fetchone()[0]
    finished = db.execute("SELECT count(*) FROM games WHERE state = 2").fetchone()[0]
    db.close()
    announced = max(announced, sum(best.values()))
    if EXPECT_LOSS:
        rt.check(lost_games > 0, "durability = normal loses announced moves (%d games behind)" % lost_games)
    else:
        rt.check(lost_moves == 0, "no announced move lost (%d lost in %d games)" % (lost_moves, lost_games))
        lost = {g: (m, moves.get(g)) for g, m in best.items() if moves.get(g) is None or moves[g] < m}
        rt.check(not lost, "every announced move stored at the end: %s" % list(lost.items())[:5])
        rt.check(open_games == 0, "every game finished (%d still open)" % open_games)
        rt.check(finished >= len(CHANNELS), "games finished: %d" % finished)
    print("durability %s: %d power cuts (%d with unsynced writes undone: %d records, %d bytes), "
          "games %d (finished %d), announced moves %d, games behind what was shown %d "
          "(%d moves or starts lost), %.1f s" % (
              env["RLYEH_DURABILITY"], rounds, undone_rounds, undone_records, undone_bytes,
              len(moves), finished, announced, lost_games, lost_moves, elapsed))
    print("%d passed, %d failed" % (rt.passed, rt.failed))
    if rt.failed:
        print("logs in", tmp)
    sys.exit(1 if rt.failed else 0)


if __name__ == "__main__":
    main()
