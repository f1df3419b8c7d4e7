#!/usr/bin/env python3
"""Crash test: while games are played through the fake Discord, the daemon is
killed with SIGKILL at random instants and restarted, KILLS times. Then:
no move that was announced is lost (every move number a table message showed
is in the database), no move is applied twice (each game's log replays to its
stored state: the daemon refuses to start otherwise, and the exported script
replays), PRAGMA integrity_check is ok, and every game finishes.

Usage: crash_test.py RLYEH FAKEDISCORD [KILLS]"""
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

import run_tests as rt

KILLS = int(sys.argv[3]) if len(sys.argv) > 3 else 200
CHANNELS = ["601", "602", "603"]


CHANNEL_OF = {}  # interaction id -> channel


def send(fake, d):
    CHANNEL_OF[d["id"]] = d["channel_id"]
    fake.dispatch(d)


def slash_in(channel, user, name, options=None):
    d = rt.slash(user, name, options)
    d["channel_id"] = channel
    return d


def click_in(channel, user, custom):
    d = rt.click(user, custom)
    d["channel_id"] = channel
    return d


def channel_of(path):
    m = re.search(r"/channels/(\d+)/", path)
    if m:
        return m.group(1)
    m = re.search(r"/interactions/(\d+)/", path) or re.search(r"/webhooks/\d+/tok(\d+)", path)
    return CHANNEL_OF.get(m.group(1)) if m else None


def absorb(entries, tables, best):
    """Follows each channel's newest table and the highest announced move per game."""
    for e in entries:
        if e.get("kind") != "http" or not e.get("body") or not (200 <= (e.get("status") or 0) < 300):
            continue
        for m in re.finditer(r'"custom_id":"(\d+):(\d+):', e["body"]):
            game, move = int(m.group(1)), int(m.group(2))
            best[game] = max(best.get(game, 0), move)
        if '"embeds"' not in e["body"]:
            continue
        try:
            body = json.loads(e["body"])
        except ValueError:
            continue
        data = body.get("data", body) if isinstance(body, dict) else {}
        embeds = data.get("embeds") or []
        ch = channel_of(e["path"])
        if embeds and ch in tables:
            tables[ch].embed = embeds[0]
            tables[ch].components = data.get("components", [])


def step(fake, tables, started, more):
    """One move at every table: opens and starts a 3-player game where none was
    started, plays the move a table awaits, and asks for a rematch of a finished
    game while more games are wanted."""
    for c, t in tables.items():
        if not started[c]:
            send(fake, slash_in(c, rt.USERS["alice"], "open"))
            for u in ("bob", "carol"):
                send(fake, slash_in(c, rt.USERS[u], "join"))
            send(fake, slash_in(c, rt.USERS["alice"], "start"))
            started[c] = True
        elif rt.game_over(t):
            if more:
                send(fake, slash_in(c, rt.USERS["alice"], "rematch"))
        else:
            uid, action, custom = rt.whose_turn(t)
            if custom:
                send(fake, click_in(c, uid, custom))


def main():
    tmp = tempfile.mkdtemp(prefix="rlyeh-crash-")
    fake = rt.Fake(tmp)
    rng = random.Random(1234)
    tables = {c: rt.Table(fake, c) for c in CHANNELS}
    best = {}
    bot = rt.Bot(tmp, fake, "crash")
    rt.wait(rt.connected(fake), 15, "first connection")
    kills = 0
    started = {c: False for c in CHANNELS}
    deadline = time.time() + 600
    try:
        while time.time() < deadline:
            if kills >= KILLS and all(rt.game_over(t) for t in tables.values()):
                break
            step(fake, tables, started, kills < KILLS)
            time.sleep(rng.uniform(0.0, 0.08))
            absorb(fake.log(), tables, best)
            if kills < KILLS and rng.random() < 0.5:
                bot.proc.send_signal(signal.SIGKILL)
                bot.proc.wait()
                kills += 1
                bot = rt.Bot(tmp, fake, "crash")
                rt.wait(rt.connected(fake), 15, "reconnection after kill %d" % kills)
                for c in CHANNELS:
                    send(fake, slash_in(c, rt.USERS["carol"], "status"))
                time.sleep(0.05)
                absorb(fake.log(), tables, best)
        absorb(fake.log(), tables, best)
    finally:
        bot.stop()
        fake.stop()
    rt.check(kills == KILLS, "killed %d times" % kills)
    db = sqlite3.connect(os.path.join(tmp, "rlyeh.db"))
    rt.check(db.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "integrity after %d kills" % kills)
    moves = dict(db.execute("SELECT id, moves FROM games"))
    lost = {g: (m, moves.get(g)) for g, m in best.items() if moves.get(g) is None or moves[g] < m}
    rt.check(not lost, "no announced move is lost (%d games announced): %s" % (len(best), list(lost.items())[:5]))
    open_games = db.execute("SELECT count(*) FROM games WHERE state IN (0, 1)").fetchone()[0]
    finished_db = db.execute("SELECT count(*) FROM games WHERE state = 2").fetchone()[0]
    rt.check(finished_db >= len(CHANNELS), "games finished: %d" % finished_db)
    # Every stored game replays from its log to its stored state.
    for (gid,) in db.execute("SELECT id FROM games WHERE state = 2"):
        out = subprocess.run([rt.RLYEH, "export", str(gid), "--db", os.path.join(tmp, "rlyeh.db")],
                             capture_output=True, text=True)
        rep = subprocess.run([rt.RLYEH, "replay", "-"], input=out.stdout, capture_output=True, text=True)
        if not rt.check(out.returncode == 0 and rep.returncode == 0, "game %d replays" % gid):
            break
    db.close()
    rt.check(open_games == 0, "every game finished (%d still open)" % open_games)
    print("kills %d, games %d (finished %d), announced moves %d, logged moves %d" % (
        kills, len(moves), finished_db, sum(best.values()), sum(moves.values())))
    print("%d passed, %d failed" % (rt.passed, rt.failed))
    if rt.failed:
        print("logs in", tmp)
    sys.exit(1 if rt.failed else 0)


if __name__ == "__main__":
    main()
