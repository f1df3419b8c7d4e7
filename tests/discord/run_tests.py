#!/usr/bin/env python3
"""rlyeh run against the fake Discord: a full three-player game through slash
commands and buttons, an Elder Signs game to its end, then the same under every gateway and HTTP fault, the
replay of an event after a resume, SIGTERM, and a refused token.

Usage: run_tests.py RLYEH FAKEDISCORD
Asserts on what the fake recorded: the bodies the bot really sent."""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

RLYEH, FAKE = sys.argv[1], sys.argv[2]
TOKEN = "test-token.abc123"
APP = "1000"
GUILD = "500"
CHANNEL = "600"
ES_CHANNEL = "601"
USERS = {"alice": "1001", "bob": "1002", "carol": "1003"}
NAMES = {v: k for k, v in USERS.items()}

passed = 0
failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL", what, flush=True)
    return cond


class Fake:
    def __init__(self, tmp):
        self.portfile = os.path.join(tmp, "port")
        self.proc = subprocess.Popen(
            [FAKE, "--port", "0", "--portfile", self.portfile, "--token", TOKEN,
             "--app-id", APP, "--heartbeat-ms", "500"],
            stdout=open(os.path.join(tmp, "fake.out"), "w"), stderr=subprocess.STDOUT)
        for _ in range(200):
            if os.path.exists(self.portfile) and open(self.portfile).read().strip():
                break
            time.sleep(0.05)
        self.port = int(open(self.portfile).read().strip())
        self.base = "http://127.0.0.1:%d" % self.port
        self.next = 0

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            text = r.read().decode()
            return json.loads(text) if text else None

    def state(self):
        return self.call("GET", "/_fake/state")

    def log(self):
        """New log entries since the last call."""
        out = self.call("GET", "/_fake/log?since=%d" % self.next)
        self.next = out["next"]
        return out["entries"]

    def all_log(self):
        return self.call("GET", "/_fake/log?since=0")["entries"]

    def dispatch(self, d):
        return self.call("POST", "/_fake/dispatch", {"t": "INTERACTION_CREATE", "d": d})

    def fault(self, f):
        return self.call("POST", "/_fake/fault", f)

    def stop(self):
        try:
            self.call("POST", "/_fake/shutdown", {})
        except Exception:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Bot:
    def __init__(self, tmp, fake, name="bot", extra_env=None, args=()):
        self.err = os.path.join(tmp, name + ".err")
        env = dict(os.environ)
        env.update({
            "RLYEH_TOKEN": TOKEN,
            "RLYEH_API_URL": fake.base + "/api/v10",
            "RLYEH_DATABASE": os.path.join(tmp, "rlyeh.db"),
            "RLYEH_TURN_TIMEOUT": "0",
            "RLYEH_LOG_LEVEL": "debug",
        })
        for k, v in (extra_env or {}).items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        self.proc = subprocess.Popen([RLYEH, "run"] + list(args), env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=open(self.err, "w"))

    def stderr(self):
        return open(self.err).read()


def wait(cond, seconds=10.0, what="condition"):
    end = time.time() + seconds
    while time.time() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.05)
    check(False, "timed out waiting for " + what)
    return None


def connected(fake):
    return lambda: fake.state().get("connected")


ids = iter(range(880000000000000000, 890000000000000000, 7))


def member(user):
    return {"user": {"id": user, "username": NAMES[user], "global_name": NAMES[user]},
            "permissions": "0"}


def slash(user, name, options=None, locale="en-US", channel=CHANNEL):
    iid = str(next(ids))
    d = {"id": iid, "application_id": APP, "type": 2, "token": "tok" + iid,
         "version": 1, "guild_id": GUILD, "channel_id": channel, "member": member(user),
         "locale": locale, "guild_locale": "en-US",
         "data": {"id": "77", "name": name, "type": 1}}
    if options:
        d["data"]["options"] = options
    return d


def click(user, custom_id, message_id="9000", channel=CHANNEL):
    iid = str(next(ids))
    return {"id": iid, "application_id": APP, "type": 3, "token": "tok" + iid,
            "version": 1, "guild_id": GUILD, "channel_id": channel, "member": member(user),
            "locale": "en-US", "guild_locale": "en-US",
            "message": {"id": message_id, "channel_id": channel},
            "data": {"custom_id": custom_id, "component_type": 2}}


def modal_submit(user, custom_id, text, message_id="9000", channel=CHANNEL):
    """A modal's submission (interaction type 5) with one text input."""
    iid = str(next(ids))
    return {"id": iid, "application_id": APP, "type": 5, "token": "tok" + iid,
            "version": 1, "guild_id": GUILD, "channel_id": channel, "member": member(user),
            "locale": "en-US", "guild_locale": "en-US",
            "message": {"id": message_id, "channel_id": channel},
            "data": {"custom_id": custom_id, "components": [
                {"type": 1, "components": [{"type": 4, "custom_id": "text", "value": text}]}]}}


class Table:
    """What the players see: the newest table (embed + buttons) sent to the channel."""

    def __init__(self):
        self.embed = None
        self.components = []
        self.message_id = "9000"

    def absorb(self, entries):
        for e in entries:
            if e.get("kind") != "http" or not e.get("body"):
                continue
            try:
                body = json.loads(e["body"])
            except ValueError:
                continue
            data = body.get("data", body) if isinstance(body, dict) else None
            if not isinstance(data, dict):
                continue
            embeds = data.get("embeds")
            if embeds:
                self.embed = embeds[0]
                self.components = data.get("components", [])
                # A channel message's id is in the response; the fake returns it to the bot.

    def text(self):
        return (self.embed or {}).get("description", "")

    def buttons(self):
        return [b for row in self.components for b in row.get("components", [])]


def interact(fake, table, d, expect_callbacks=1):
    """Sends one interaction, waits for its callback, returns its body."""
    path = "/api/v10/interactions/%s/%s/callback" % (d["id"], d["token"])
    fake.dispatch(d)
    found = []

    def answered():
        entries = fake.log()
        table.absorb(entries)
        found.extend(e for e in entries if e.get("kind") == "http" and e.get("path") == path)
        return found

    wait(answered, 10, "the callback of interaction " + d["id"])
    time.sleep(0.15)  # followups and table edits
    table.absorb(fake.log())
    if not found:
        return None
    check(found[0].get("status") == 204, "callback accepted (%s)" % found[0].get("status"))
    return json.loads(found[0]["body"])


def whose_turn(table):
    """(user, action, custom_id) of the move the table waits for."""
    text = table.text()
    buttons = table.buttons()
    for name, uid in USERS.items():
        if text.startswith(name + " is the Caster"):
            b = [x for x in buttons if ":curse:" in x["custom_id"]]
            return uid, "curse", b[0]["custom_id"] if b else None
        if text.startswith(name + " rolled the Eye"):
            b = [x for x in buttons if ":eye:" in x["custom_id"]]
            return uid, "eye", b[0]["custom_id"] if b else None
        if text.startswith(name + ", the Victim"):
            b = [x for x in buttons if ":respond" in x["custom_id"]]
            return uid, "respond", b[0]["custom_id"] if b else None
    return None, None, None


def play_move(fake, table, use_slash):
    uid, action, custom = whose_turn(table)
    if not check(uid is not None, "a move is awaited: " + table.text()[:80]):
        return False
    if use_slash and action == "curse":
        victim = [b["custom_id"].split(":")[3] for b in table.buttons() if ":curse:" in b["custom_id"]]
        label = [b["label"] for b in table.buttons() if ":curse:" in b["custom_id"]][0]
        body = interact(fake, table, slash(uid, "curse", [{"name": "victim", "type": 6, "value": USERS[label]}]))
    elif use_slash and action == "respond":
        body = interact(fake, table, slash(uid, "respond"))
    elif use_slash and action == "eye":
        body = interact(fake, table, slash(uid, "eye", [{"name": "face", "type": 3, "value": "tentacle"}]))
    else:
        body = interact(fake, table, click(uid, custom))
    ok = body is not None and body.get("type") in (4, 7)
    if ok and body.get("data", {}).get("flags") == 64:
        ok = check(False, "a legal move was refused: " + json.dumps(body)[:200])
    return ok


def game_over(table):
    return "Game over" in table.text()


def start_game(fake, table):
    body = interact(fake, table, slash(USERS["alice"], "open"))
    check(body and body["type"] == 4 and body["data"]["embeds"], "the lobby is a message with an embed")
    join = [b["custom_id"] for b in table.buttons() if b["custom_id"].endswith(":join")]
    check(len(join) == 1, "the lobby has a join button")
    body = interact(fake, table, click(USERS["bob"], join[0]))
    check(body and body["type"] == 7, "a lobby button updates the message in place")
    body = interact(fake, table, slash(USERS["carol"], "join"))
    check(body and body["type"] == 4, "carol joins by slash command")
    body = interact(fake, table, slash(USERS["alice"], "start", [{"name": "first", "type": 6, "value": USERS["alice"]}]))
    check(whose_turn(table)[0] == USERS["alice"], "alice casts first")


def test_full_game(fake, table):
    start_game(fake, table)
    # Refusals: wrong player, stale button, forged button.
    uid, action, custom = whose_turn(table)
    other = USERS["bob"] if uid != USERS["bob"] else USERS["carol"]
    body = interact(fake, table, slash(other, "respond"))
    check(body and body["data"].get("flags") == 64, "a move out of turn is refused privately")
    gid, move = custom.split(":")[0], int(custom.split(":")[1])
    body = interact(fake, table, click(uid, "%s:%d:curse:#1" % (gid, move - 1 if move else 99)))
    check(body and body["data"].get("flags") == 64, "a stale button is refused privately")
    body = interact(fake, table, click(uid, "not-a-button"))
    check(body and body["data"].get("flags") == 64, "a forged button is refused privately")
    # A button that asks for text ("?" + its id) is answered with a modal; its
    # submission is the button's command with the text: here the Caster's
    # curse of another player, as /curse victim:<id> would be.
    body = interact(fake, table, click(uid, "?%s:%d:curse" % (gid, move)))
    check(body and body.get("type") == 9 and body["data"]["custom_id"] == "?%s:%d:curse" % (gid, move)
          and body["data"]["components"][0]["components"][0]["type"] == 4,
          "a click on a button that asks for text opens a modal: %s" % json.dumps(body)[:200])
    body = interact(fake, table, modal_submit(uid, "?%s:%d:curse" % (gid, move), " %s " % other))
    check(body and body.get("type") == 7 and body["data"].get("flags") is None,
          "the modal's text plays the move, updating the table: %s" % json.dumps(body)[:200])
    check(whose_turn(table)[1] != "curse" or whose_turn(table)[0] != uid, "the curse was cast")
    moves = 0
    while not game_over(table) and moves < 300:
        if not play_move(fake, table, use_slash=moves % 3 == 0):
            break
        moves += 1
    check(game_over(table), "the game ended (%d moves)" % moves)
    return moves


def es_waiting(table):
    """(user, points at stake, chance of being downed) of the Elder Signs decision awaited."""
    text = table.text()
    for name, uid in USERS.items():
        if text.startswith(name + ": /roll to roll again ("):
            pct = int(text.split("(")[1].split("%")[0])
            stake = int(text.rstrip(".").rsplit(" ", 1)[1])
            return uid, stake, pct
    return None, 0, 0


def test_elder_signs_game(fake, table):
    """Elder Signs through slash commands and buttons, to the end, in a channel of its own."""
    body = interact(fake, table, slash(USERS["alice"], "open", [{"name": "game", "type": 3, "value": "elder-signs"}], channel=ES_CHANNEL))
    check(body and body["type"] == 4 and "elder-signs" in table.text(), "an Elder Signs lobby opens")
    join = [b["custom_id"] for b in table.buttons() if b["custom_id"].endswith(":join")]
    body = interact(fake, table, click(USERS["bob"], join[0], channel=ES_CHANNEL))
    check(body and body["type"] == 7, "bob joins by button")
    body = interact(fake, table, slash(USERS["alice"], "addbot", [{"name": "policy", "type": 3, "value": "greedy-2"}], channel=ES_CHANNEL))
    check(body and "greedy-2-bot-1" in table.text(), "a greedy-2 computer sits down")
    body = interact(fake, table, slash(USERS["alice"], "start", [{"name": "first", "type": 6, "value": USERS["alice"]}], channel=ES_CHANNEL))
    check(table.embed and table.embed.get("title", "").startswith("Elder Signs — round 1"), "the table is an Elder Signs table")
    names = [f["name"] for f in (table.embed or {}).get("fields", [])]
    check({"alice", "bob", "greedy-2-bot-1", "Clue dice in hand", "Elder Signs at stake", "Tentacles", "The bag"} <= set(names),
          "the table shows the seats, the hand, the stash, the Tentacles and the bag: %s" % names)
    uid, stake, pct = es_waiting(table)
    check(uid == USERS["alice"], "alice plays first: " + table.text()[:80])
    ids = [b["custom_id"] for b in table.buttons()]
    check(len(ids) == 2 and ids[0].endswith(":roll") and ids[1].endswith(":retreat"), "roll and retreat buttons: %s" % ids)
    check([b["style"] for b in table.buttons()] == [1, 2], "roll is primary, retreat secondary")
    body = interact(fake, table, slash(USERS["bob"], "roll", channel=ES_CHANNEL))
    check(body and body["data"].get("flags") == 64 and "Not your turn: it is alice's." in json.dumps(body),
          "a roll out of turn is refused privately, naming whose turn it is")
    gid, move = ids[0].split(":")[0], int(ids[0].split(":")[1])
    body = interact(fake, table, click(USERS["alice"], "%s:%d:roll" % (gid, move + 1), channel=ES_CHANNEL))
    check(body and body["data"].get("flags") == 64, "a button of another move is refused")
    decisions = 0
    while "Game over" not in table.text() and decisions < 300:
        uid, stake, pct = es_waiting(table)
        if not check(uid is not None, "a decision is awaited: " + table.text()[:80]):
            break
        action = "retreat" if stake >= 3 or (pct >= 35 and stake > 0) else "roll"
        if decisions % 4 == 3:
            body = interact(fake, table, slash(uid, action, channel=ES_CHANNEL))
        else:
            custom = [b["custom_id"] for b in table.buttons() if b["custom_id"].endswith(":" + action)]
            body = interact(fake, table, click(uid, custom[0], channel=ES_CHANNEL))
        if not check(body and body.get("type") in (4, 7) and body.get("data", {}).get("flags") != 64,
                     "a legal %s is accepted: %s" % (action, json.dumps(body)[:200])):
            break
        decisions += 1
    check("Game over" in table.text(), "the Elder Signs game ended (%d decisions)" % decisions)
    check([b["custom_id"].split(":")[2] for b in table.buttons()] == ["rematch"], "a rematch button when over")
    said = " ".join(e.get("body", "") for e in fake.all_log() if e.get("kind") == "http")
    for line in ("alice draws a ", "Library die: ", " retreats and banks ", "Round 1 is over.", " wins with "):
        check(line in said, "the narration told: " + line)


def faults():
    return [
        ("abrupt close", {"close": "abrupt"}),
        ("close 4000", {"close": 4000}),
        ("close 4009 (new session)", {"close": 4009}),
        ("op 7 reconnect", {"op": 7}),
        ("op 9 resumable", {"op": 9, "d": True}),
        ("op 9 not resumable", {"op": 9, "d": False}),
        ("withheld ACKs", {"withhold_acks": 2}),
        ("server heartbeat request", {"heartbeat_request": True}),
        ("429 on callbacks", {"http": {"status": 429, "retry_after": 0.3, "global": False, "count": 1,
                                       "path_prefix": "/api/v10/interactions"}}),
        ("global 429", {"http": {"status": 429, "retry_after": 0.2, "global": True, "count": 1,
                                 "path_prefix": "/api/v10/"}}),
        ("502 on messages", {"http": {"status": 502, "count": 2, "path_prefix": "/api/v10/webhooks"}}),
        ("slow replies", {"http": {"delay_ms": 600, "count": 2, "path_prefix": "/api/v10/"}}),
        ("malformed frame", {"malformed_frame": True}),
        ("oversized frame", {"oversized_frame": 5 * 1024 * 1024}),
    ]


def test_faults(fake, table, tmp):
    body = interact(fake, table, slash(USERS["alice"], "rematch"))
    check(body is not None, "rematch")
    for name, f in faults():
        if game_over(table):
            interact(fake, table, slash(USERS["alice"], "rematch"))
        before = fake.state()
        fake.fault(f)
        if "close" in f or "op" in f or "withhold_acks" in f or "oversized_frame" in f:
            # The bot reconnects (resume or a new session) on its own.
            wait(lambda: fake.state()["resumes"] + fake.state()["identifies"] >
                 before["resumes"] + before["identifies"], 20, name + ": reconnection")
            wait(connected(fake), 20, name + ": connected again")
        ok = play_move(fake, table, use_slash=False)
        check(ok, "a move after the fault: " + name)
    # A dispatch delivered twice (as after a resume) is applied once.
    if game_over(table):
        interact(fake, table, slash(USERS["alice"], "rematch"))
    uid, action, custom = whose_turn(table)
    d = click(uid, custom)
    interact(fake, table, d)
    fake.dispatch(d)
    time.sleep(0.5)
    entries = [e for e in fake.all_log() if e.get("kind") == "http"
               and e.get("path", "").startswith("/api/v10/interactions/%s/" % d["id"])]
    check(len(entries) == 1, "a replayed interaction is answered once (%d)" % len(entries))
    # Interactions dispatched while the bot is away are delivered on resume, answered once.
    fake.fault({"close": "abrupt"})
    uid, action, custom = whose_turn(table)
    if custom:
        d = click(uid, custom)
        interact(fake, table, d)


def test_locked_database(fake, table, tmp):
    """A locked database: the move is refused privately, nothing is announced,
    and the same move works once the lock is gone."""
    if game_over(table):
        interact(fake, table, slash(USERS["alice"], "rematch"))
    uid, action, custom = whose_turn(table)
    before = table.text()
    db = sqlite3.connect(os.path.join(tmp, "rlyeh.db"), timeout=5, isolation_level=None)
    db.execute("BEGIN EXCLUSIVE")
    body = interact(fake, table, click(uid, custom))
    db.execute("ROLLBACK")
    db.close()
    check(body and body["data"].get("flags") == 64 and "could not be saved" in body["data"]["content"],
          "a locked database refuses the move privately: %s" % (body and body["data"].get("content")))
    check(table.text() == before, "nothing was announced while the database was locked")
    ok = play_move(fake, table, use_slash=False)
    check(ok, "the move works once the database is free")


def rss_kb(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def test_stalled_api(fake, table, bot):
    """A stalled HTTP API: requests wait in a bounded queue, memory stays flat,
    the daemon keeps serving the gateway and catches up when the API does."""
    rss0 = rss_kb(bot.proc.pid)
    fake.fault({"http": {"delay_ms": 2500, "count": 40, "path_prefix": "/api/v10/"}})
    for i in range(40):
        fake.dispatch(slash(USERS["carol"], "help"))
    time.sleep(0.5)
    check(bot.proc.poll() is None, "alive while the API stalls")
    check(fake.state().get("connected"), "the gateway stays connected while the API stalls")
    time.sleep(3.5)
    rss1 = rss_kb(bot.proc.pid)
    check(rss1 < rss0 + 8192, "memory stays flat during the stall (%d -> %d KiB)" % (rss0, rss1))
    body = interact(fake, table, slash(USERS["carol"], "help"))
    check(body and body["type"] == 4, "answers again once the API does")
    answered = [e for e in fake.all_log() if e.get("kind") == "http"
                and e.get("path", "").endswith("/callback") and e.get("delay_ms")]
    check(len(answered) >= 30, "the stalled callbacks were all sent (%d)" % len(answered))


def test_bodies(fake):
    """Every request the bot sent: documented shapes, token and user agent."""
    entries = fake.all_log()
    https = [e for e in entries if e.get("kind") == "http" and e["path"].startswith("/api/v10/")]
    check(len(https) > 20, "the bot used the HTTP API (%d requests)" % len(https))
    for e in https:
        h = e.get("headers", {})
        if not check(h.get("Authorization") == "<token>", "Authorization on " + e["path"]):
            break
        if not check(h.get("User-Agent", "").startswith("DiscordBot ("), "User-Agent " + h.get("User-Agent", "")):
            break
    violations = [e for e in entries if e.get("kind") == "violation"]
    check(not violations, "no protocol violations: %s" % violations[:3])
    callbacks = {}
    for e in https:
        if e["path"].endswith("/callback"):
            callbacks[e["path"]] = callbacks.get(e["path"], 0) + 1
    check(all(n == 1 for n in callbacks.values()), "every interaction answered exactly once")
    puts = [e for e in https if e["method"] == "PUT" and e["path"].endswith("/commands")]
    check(len(puts) == 1, "commands registered once (%d)" % len(puts))
    if puts:
        cmds = json.loads(puts[0]["body"])
        names = {c["name"] for c in cmds}
        check({"curse", "eye", "respond", "roll", "retreat", "open", "join", "leaderboard", "stats"} <= names,
              "the slash commands are registered")
        check(all(c.get("name_localizations", {}).get("nl") for c in cmds), "every command has an nl name")
    identify = [e for e in entries if e.get("kind") == "gw_in" and e.get("op") == 2]
    check(identify and identify[0]["d"].get("intents") == 0, "IDENTIFY with intents 0")


def test_sigterm(tmp, fake):
    bot = Bot(tmp, fake, "bot2")
    wait(connected(fake), 15, "the restarted bot connects")
    puts_before = len([e for e in fake.all_log() if e.get("kind") == "http" and e["method"] == "PUT"])
    time.sleep(0.5)
    bot.proc.send_signal(signal.SIGTERM)
    try:
        code = bot.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        bot.proc.kill()
        code = None
    check(code == 0, "SIGTERM: exit status 0 (%s)" % code)
    closes = [e for e in fake.all_log() if e.get("kind") == "gw_close"]
    check(closes and closes[-1].get("by") == "client" and closes[-1].get("code") not in (1000, 1001),
          "SIGTERM: the gateway is closed with a resumable code (%s)" % (closes[-1] if closes else None))
    puts_after = len([e for e in fake.all_log() if e.get("kind") == "http" and e["method"] == "PUT"])
    check(puts_after == puts_before, "unchanged commands are not registered again")


def test_no_session_starts(tmp, fake):
    """GET /gateway/bot says no session starts are left: the bot waits reset_after."""
    # long enough that even a daemon under valgrind asks before the reset
    fake.fault({"no_session_starts_ms": 5000})
    t0 = time.time()
    bot = Bot(tmp, fake, "bot7")
    wait(connected(fake), 30, "the bot connects once the session starts reset")
    elapsed = time.time() - t0
    check(elapsed >= 4.8, "no session starts left: waited %.1f s before IDENTIFY" % elapsed)
    check("no session starts left" in bot.stderr(), "no session starts left: said in the log")
    bad = [e for e in fake.all_log() if e.get("kind") == "violation"
           and "no session starts" in json.dumps(e)]
    check(not bad, "no IDENTIFY without session starts: %s" % bad[:1])
    bot.proc.send_signal(signal.SIGTERM)
    check(bot.proc.wait(timeout=10) == 0, "stopped cleanly")


def test_token_refused(tmp, fake):
    bot = Bot(tmp, fake, "bot3")
    wait(connected(fake), 15, "the bot connects")
    fake.fault({"close": 4004})
    try:
        code = bot.proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        bot.proc.kill()
        code = None
    check(code == 3, "close 4004: exit status 3 (%s)" % code)
    err = bot.stderr()
    check("4004" in err and "token" in err, "close 4004: one clear log line")


def free_port():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def http_get(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_systemd_health_reload_compress(tmp, fake):
    """sd_notify READY/WATCHDOG/STOPPING, /healthz and /metrics, SIGHUP, zlib-stream."""
    import socket
    sock_path = os.path.join(tmp, "notify")
    ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    ns.bind(sock_path)
    ns.settimeout(0.2)
    port = free_port()
    conf = os.path.join(tmp, "rlyeh.conf")
    with open(conf, "w") as f:
        f.write("turn_timeout = 0\nlog_level = info\ncompress = true\nhealth_port = %d\n" % port)
    bot = Bot(tmp, fake, "bot4", {"NOTIFY_SOCKET": sock_path, "WATCHDOG_USEC": "400000",
                                  "RLYEH_TURN_TIMEOUT": None, "RLYEH_LOG_LEVEL": None},
              ["--config", conf])
    notes = []
    reading = [True]

    # A unix datagram socket queues only a few messages: read them as they
    # come, or a slow run fills the queue and later notices are dropped.
    def reader():
        while reading[0]:
            try:
                notes.append(ns.recv(4096).decode())
            except OSError:
                pass
    threading.Thread(target=reader, daemon=True).start()

    def note(word):
        def got():
            return any(word in n for n in list(notes))
        return got

    check(wait(note("READY=1"), 15, "READY=1"), "systemd: READY=1 once the gateway is ready")
    check(fake.state().get("connected"), "systemd: READY came with the gateway connected")
    check(any("STATUS=" in n for n in notes), "systemd: STATUS= lines")
    count = len([n for n in notes if "WATCHDOG=1" in n])
    time.sleep(1.0)
    note("WATCHDOG=1")()
    check(len([n for n in notes if "WATCHDOG=1" in n]) >= count + 2, "systemd: WATCHDOG=1 pings")
    opens = [e for e in fake.all_log() if e.get("kind") == "gw_open"]
    check(opens and "compress=zlib-stream" in opens[-1].get("query", ""), "zlib-stream asked for")
    table = Table()
    body = interact(fake, table, slash(USERS["carol"], "help"))
    check(body and body["data"].get("flags") == 64 and "/curse" in body["data"]["content"],
          "a command answered over a compressed gateway")
    status, text = http_get("http://127.0.0.1:%d/healthz" % port)
    check(status == 200 and '"gateway":"ready"' in text and '"database":"writable"' in text,
          "/healthz: %s %s" % (status, text.strip()))
    status, text = http_get("http://127.0.0.1:%d/metrics" % port)
    check(status == 200 and "rlyeh_gateway_ready 1" in text
          and 'rlyeh_interactions_total{command="help"} 1' in text
          and "rlyeh_response_seconds_count" in text and "rlyeh_games_in_progress" in text,
          "/metrics in Prometheus text format")
    status, _ = http_get("http://127.0.0.1:%d/nothing" % port)
    check(status == 404, "unknown health paths are 404")
    with open(conf, "w") as f:
        f.write("turn_timeout = 7\nlog_level = info\ncompress = true\nhealth_port = %d\n" % port)
    bot.proc.send_signal(signal.SIGHUP)
    check(wait(lambda: "turn timeout 7 s" in bot.stderr(), 5, "reload"), "SIGHUP reloads the timeout")
    with open(conf, "w") as f:
        f.write("turn_timeout = never\n")
    bot.proc.send_signal(signal.SIGHUP)
    check(wait(lambda: "reload refused" in bot.stderr(), 5, "refused reload"),
          "SIGHUP with a bad file keeps the running configuration")
    check(bot.proc.poll() is None, "still running after the reloads")
    bot.proc.send_signal(signal.SIGTERM)
    code = bot.proc.wait(timeout=10)
    check(code == 0, "stopped cleanly (%s)" % code)
    check(wait(note("STOPPING=1"), 2, "STOPPING=1"), "systemd: STOPPING=1")
    reading[0] = False
    ns.close()


def test_shutdown_with_stalled_api(tmp, fake):
    """SIGTERM while the API stalls: the daemon still exits within its bound."""
    bot = Bot(tmp, fake, "bot6")
    wait(connected(fake), 15, "the bot connects")
    fake.fault({"http": {"delay_ms": 60000, "count": 100, "path_prefix": "/api/v10/"}})
    for i in range(20):
        fake.dispatch(slash(USERS["carol"], "help"))
    time.sleep(1)
    start = time.time()
    bot.proc.send_signal(signal.SIGTERM)
    try:
        code = bot.proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        bot.proc.kill()
        code = None
    took = time.time() - start
    check(code == 0 and took < 15, "SIGTERM with a stalled API: exit %s after %.1f s" % (code, took))


def test_intents_refused(tmp, fake):
    bot = Bot(tmp, fake, "bot5")
    wait(connected(fake), 15, "the bot connects")
    fake.fault({"close": 4014})
    try:
        code = bot.proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        bot.proc.kill()
        code = None
    check(code == 4, "close 4014: exit status 4 (%s)" % code)


def main():
    tmp = tempfile.mkdtemp(prefix="rlyeh-discord-")
    fake = Fake(tmp)
    bot = None
    try:
        bot = Bot(tmp, fake)
        wait(connected(fake), 15, "the bot connects")
        table = Table()
        test_full_game(fake, table)
        test_elder_signs_game(fake, Table())
        test_faults(fake, table, tmp)
        test_locked_database(fake, table, tmp)
        test_stalled_api(fake, table, bot)
        check(bot.proc.poll() is None, "the bot survived every fault")
        bot.proc.send_signal(signal.SIGTERM)
        check(bot.proc.wait(timeout=10) == 0, "stopped cleanly")
        test_bodies(fake)
        db = sqlite3.connect(os.path.join(tmp, "rlyeh.db"))
        check(db.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "database integrity")
        finished = db.execute("SELECT count(*) FROM games WHERE state = 2").fetchone()[0]
        check(finished >= 1, "finished games are stored (%d)" % finished)
        es = db.execute("SELECT count(*) FROM games WHERE game = 'elder-signs' AND state = 2").fetchone()[0]
        check(es == 1, "the Elder Signs game is stored finished (%d)" % es)
        db.close()
        test_sigterm(tmp, fake)
        test_no_session_starts(tmp, fake)
        test_systemd_health_reload_compress(tmp, fake)
        test_intents_refused(tmp, fake)
        test_token_refused(tmp, fake)
        test_shutdown_with_stalled_api(tmp, fake)
        for name in ("bot", "bot2", "bot3", "bot4", "bot5", "bot6", "bot7"):
            path = os.path.join(tmp, name + ".err")
            if os.path.exists(path):
                check(TOKEN not in open(path).read(), "the token is not in the log of " + name)
    finally:
        if bot and bot.proc.poll() is None:
            bot.proc.kill()
        fake.stop()
    print("%d passed, %d failed" % (passed, failed))
    if failed:
        print("logs in", tmp)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
