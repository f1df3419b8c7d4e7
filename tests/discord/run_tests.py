#!/usr/bin/env python3
"""rlyeh run against the fake Discord: a full three-player game through slash
commands and buttons, an Elder Signs game to its end, a CTHULHU!!! board game to its end (menus,
modals, private hands, tile previews, the map as an uploaded PNG), then the same under every gateway
and HTTP fault, the replay of an event after a resume, SIGTERM, and a refused token.

Usage: run_tests.py RLYEH FAKEDISCORD
Asserts on what the fake recorded: the bodies the bot really sent."""
import json
import re
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
    def __init__(self, tmp, args=()):
        self.portfile = os.path.join(tmp, "port")
        self.proc = subprocess.Popen(
            [FAKE, "--port", "0", "--portfile", self.portfile, "--token", TOKEN,
             "--app-id", APP, "--heartbeat-ms", "1000"] + list(args),
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

    def stop(self, timeout=10):
        """SIGTERM, then SIGKILL after timeout seconds: the exit status, None when killed."""
        if self.proc.poll() is not None:
            return self.proc.returncode
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None


# RLYEH_TEST_SLOW stretches every wait for a condition (valgrind.sh sets it: the daemon runs
# several times slower there, and more so on a loaded machine); a condition met returns at once.
SLOW = max(1.0, float(os.environ.get("RLYEH_TEST_SLOW", "1")))


def wait(cond, seconds=10.0, what="condition"):
    end = time.time() + seconds * SLOW
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


LIVE = {}  # channel id -> the id of the newest public message seen there (Table.refresh)


def click(user, custom_id, message_id=None, channel=CHANNEL):
    """A click on a button of message_id (default: the channel's live message)."""
    iid = str(next(ids))
    message_id = message_id or LIVE.get(channel, "9000")
    return {"id": iid, "application_id": APP, "type": 3, "token": "tok" + iid,
            "version": 1, "guild_id": GUILD, "channel_id": channel, "member": member(user),
            "locale": "en-US", "guild_locale": "en-US",
            "message": {"id": message_id, "channel_id": channel},
            "data": {"custom_id": custom_id, "component_type": 2}}


def modal_submit(user, custom_id, text, message_id=None, channel=CHANNEL):
    """A modal's submission (interaction type 5) with one text input, opened from a button of
    message_id (default: the channel's live message)."""
    iid = str(next(ids))
    message_id = message_id or LIVE.get(channel, "9000")
    return {"id": iid, "application_id": APP, "type": 5, "token": "tok" + iid,
            "version": 1, "guild_id": GUILD, "channel_id": channel, "member": member(user),
            "locale": "en-US", "guild_locale": "en-US",
            "message": {"id": message_id, "channel_id": channel},
            "data": {"custom_id": custom_id, "components": [
                {"type": 1, "components": [{"type": 4, "custom_id": "text", "value": text}]}]}}


def autocomplete(user, name, option, typed, locale="en-US", channel=CHANNEL):
    """An autocomplete interaction (type 4): /name with `option` being typed, holding `typed`."""
    iid = str(next(ids))
    return {"id": iid, "application_id": APP, "type": 4, "token": "tok" + iid,
            "version": 1, "guild_id": GUILD, "channel_id": channel, "member": member(user),
            "locale": locale, "guild_locale": "en-US",
            "data": {"id": "77", "name": name, "type": 1,
                     "options": [{"type": 3, "name": option, "value": typed, "focused": True}]}}


def api(fake, method, path):
    """A request to the fake's HTTP API as a bot client makes one (with its token)."""
    req = urllib.request.Request(fake.base + "/api/v10" + path, method=method, headers={
        "Authorization": "Bot " + TOKEN, "User-Agent": "DiscordBot (https://example.invalid, 1)"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read().decode())


def public(message):
    return not (message.get("flags") or 0) & 64


def pinged(message):
    """The user ids a stored message notified (Discord's mentions of a created message)."""
    return sorted(u["id"] for u in message.get("mentions") or [])


def bot_requests(entries):
    """The requests the daemon made (not the test's own reads), with their bodies."""
    out = []
    for e in entries:
        if e.get("kind") != "http" or not e.get("path", "").startswith("/api/v10/") or e.get("method") == "GET":
            continue
        out.append((e, body_of(e)))
    return out


class Table:
    """What the players of one channel see: the bot's public messages as the fake stored them,
    the newest being the live table. Each look checks what a channel must always show: only the
    newest public message has buttons; a message made since the last look called the awaited
    human (allowed_mentions naming exactly them) and nobody else was pinged; at most two requests
    made the change (the new live message and the freeze of the one before)."""

    def __init__(self, fake, channel=CHANNEL, quiet_users=(), players=()):
        self.fake = fake
        self.channel = channel
        self.embed = None
        self.components = []
        self.content = ""
        self.message_id = None
        self.seen = set()          # message ids already looked at
        self.quiet_users = set(quiet_users)  # players who said /notify off
        self.players = set(players) | set(USERS.values())  # the user ids that may be called
        # players whose names whose_turn cannot read: the awaited one is not known then
        self.unknown = bool(set(players) - set(USERS.values()))
        self.calls = {}            # user id -> times called
        self.looks = 0
        # while faults are injected: requests are retried and answers come late, so a look
        # waits (3 s at most) for the freeze and does not count requests
        self.faults = False

    def refresh(self):
        msgs = [m for m in api(self.fake, "GET", "/channels/%s/messages" % self.channel) if public(m)]
        if not msgs:
            return []
        newest = msgs[0]
        self.embed = (newest.get("embeds") or [None])[0]
        self.components = newest.get("components") or []
        self.content = newest.get("content") or ""
        self.message_id = newest["id"]
        LIVE[self.channel] = newest["id"]
        return msgs

    def look(self, entries, awaited=None, what="", token=None):
        """Reads the channel after a move whose requests are among `entries` (those of the
        interaction `token`, and edits); `awaited` the user id whose move the table now waits
        for (None: nobody, or a computer)."""
        msgs = self.refresh()
        self.looks += 1
        if not msgs:
            return
        # a loaded machine may pause the daemon longer than settle's quiet spell: what must
        # hold is the channel's state once the move is done, so a look waits (3 s at most)
        # for the freeze of the table before and for the live table calling the awaited player
        def unsettled(msgs):
            stale = [m["id"] for m in msgs[1:] if m.get("components")]
            calling = (awaited not in USERS.values() or awaited in self.quiet_users
                       or ("<@%s>" % awaited) in msgs[0].get("content", "")
                       or all(m["id"] in self.seen for m in msgs))
            return stale or not calling
        end = time.time() + 3
        while unsettled(msgs) and time.time() < end:
            time.sleep(0.05)
            msgs = self.refresh()
        fresh = [m for m in msgs if m["id"] not in self.seen]
        self.seen.update(m["id"] for m in msgs)
        stale = [m["id"] for m in msgs[1:] if m.get("components")]
        check(not stale, "%s: every earlier table message has no buttons (%s still do)" % (what, stale))
        for m in fresh:
            who = pinged(m)
            check(not m.get("mention_everyone") and not m.get("mention_roles")
                  and all((u == awaited or (self.unknown and awaited is None and len(who) == 1))
                          and u not in self.quiet_users for u in who),
                  "%s: a new message pings nobody but the awaited player %s: %s" % (what, awaited, who))
        reqs = bot_requests(entries)
        for e, body in reqs:
            data = (body.get("data") if isinstance(body, dict) and "type" in body else body) or {}
            am = data.get("allowed_mentions") if isinstance(data, dict) else None
            if am is None:
                continue
            users = am.get("users", [])
            content = data.get("content") or ""
            check(am.get("parse") == [] and not am.get("roles") and len(users) <= 1
                  and all(u in self.players and "<@%s>" % u in content for u in users)
                  and not set(users) & self.quiet_users,
                  "%s: allowed_mentions allows one player called in the text at most: %s" % (what, am))
        if awaited in USERS.values() and fresh and awaited not in self.quiet_users:
            called = [m for m in fresh if pinged(m) == [awaited]]
            if check(called, "%s: a new message calls %s: %s" % (what, NAMES.get(awaited), [m.get("content", "")[-80:] for m in fresh])):
                self.calls[awaited] = self.calls.get(awaited, 0) + 1
                check(msgs[0]["id"] == called[-1]["id"] and ("<@%s>" % awaited) in msgs[0].get("content", ""),
                      "%s: the newest message is the live table calling %s" % (what, NAMES.get(awaited)))
        if awaited is not None and fresh:
            check(self.embed is not None and self.components,
                  "%s: the newest message is the live table with the move's buttons" % what)
        made = {(e["method"], e["path"]) for e, body in reqs
                if not (isinstance(body, dict) and ((body.get("data") or {}).get("flags") == 64 or body.get("flags") == 64))
                and (e["method"] == "PATCH" or (token and token in e["path"]))}
        check(len(made) <= 2 or self.faults, "%s: at most 2 public requests a move (%d: %s)" % (what, len(made),
              [(m, p[:70]) for m, p in made]))

    def text(self):
        return (self.embed or {}).get("description", "")

    def buttons(self):
        return [b for row in self.components for b in row.get("components", [])]


def settle(fake, clicked, seen=(), seconds=5.0, ms=120):
    """The log entries from now until the daemon has gone quiet; after the answer to a click
    (type 7), not before the follow-up holding the new live message was posted (it may be among
    the entries `seen` already)."""
    got = list(seen)
    end = time.time() + seconds
    last = time.time()
    while time.time() < end:
        time.sleep(0.02)
        more = fake.log()
        got.extend(more)
        if bot_requests(more):  # heartbeats and the test's own reads do not count
            last = time.time()
        made = not clicked or any(e.get("kind") == "http" and e.get("method") == "POST"
                                  and "/webhooks/" in e.get("path", "") for e in got)
        if made and time.time() - last >= ms / 1000.0:
            break
    return got[len(seen):]


def interact(fake, table, d, expect_callbacks=1):
    """Sends one interaction, waits for its callback and what follows it, looks at the channel;
    returns the callback's body."""
    path = "/api/v10/interactions/%s/%s/callback" % (d["id"], d["token"])
    fake.log()
    fake.dispatch(d)
    entries = []

    def answered():
        entries.extend(fake.log())
        return [e for e in entries if e.get("kind") == "http" and e.get("path") == path]

    wait(answered, 10, "the callback of interaction " + d["id"])
    found = [e for e in entries if e.get("kind") == "http" and e.get("path") == path]
    if not found:
        return None
    body = json.loads(found[0]["body"])
    entries.extend(settle(fake, body.get("type") == 7, entries))
    check(found[0].get("status") in (200, 204), "callback accepted (%s)" % found[0].get("status"))
    table.refresh()
    table.look(entries, whose_turn(table)[0] or es_waiting(table)[0], "/%s" % (d["data"].get("name") or d["data"].get("custom_id")),
               d["token"])
    return body


def whose_turn(table):
    """(user, action, custom_id) of the move the table waits for (a player's name, or one of
    their cultists' in Rival Cults)."""
    text = table.text()
    buttons = table.buttons()
    first = text.split("\n")[0]
    for pattern, action, key in ((" is the Caster", "curse", ":curse:"), (" rolled the Eye", "eye", ":eye:"),
                                 (", the Victim", "respond", ":respond")):
        if pattern not in first:
            continue
        who = first.split(pattern)[0]
        name = who.rsplit("-", 1)[0] if who.rsplit("-", 1)[-1].isdigit() else who
        if name in USERS:
            b = [x for x in buttons if key in x["custom_id"]]
            return USERS[name], action, b[0]["custom_id"] if b else None
    return None, None, None


def play_move(fake, table, use_slash):
    uid, action, custom = whose_turn(table)
    if not check(uid is not None, "a move is awaited: " + table.text()[:80]):
        return False
    if use_slash and action == "curse":
        label = [b["label"] for b in table.buttons() if ":curse:" in b["custom_id"]][0]
        name, _, k = label.rpartition("-") if label.rpartition("-")[2].isdigit() else (label, "", "")
        if name in USERS:  # Rival Cults: the player and which of their cultists
            opts = [{"name": "victim", "type": 6, "value": USERS[name]}]
            if k:
                opts.append({"name": "cultist", "type": 4, "value": int(k)})
            body = interact(fake, table, slash(uid, "curse", opts))
        else:  # a computer player is not a user: its button
            body = interact(fake, table, click(uid, custom, table.message_id))
    elif use_slash and action == "respond":
        body = interact(fake, table, slash(uid, "respond"))
    elif use_slash and action == "eye":
        body = interact(fake, table, slash(uid, "eye", [{"name": "face", "type": 3, "value": "tentacle"}]))
    else:
        body = interact(fake, table, click(uid, custom, table.message_id))
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
    clicked = table.message_id
    body = interact(fake, table, click(USERS["bob"], join[0]))
    check(body and body["type"] == 7 and body["data"] == {"components": []},
          "a lobby button's answer takes that message's buttons off (type 7): %s" % body)
    check(table.message_id != clicked and "bob" in table.text(), "the new lobby is a new live message")
    body = interact(fake, table, slash(USERS["carol"], "notify", [{"name": "calls", "type": 3, "value": "off"}]))
    check(body and body["data"].get("flags") == 64 and "no longer call you" in body["data"]["content"],
          "carol turns calls off, privately: %s" % body)
    body = interact(fake, table, slash(USERS["carol"], "join"))
    check(body and body["type"] == 4, "carol joins by slash command")
    body = interact(fake, table, slash(USERS["alice"], "start", [{"name": "first", "type": 6, "value": USERS["alice"]}]))
    check(whose_turn(table)[0] == USERS["alice"], "alice casts first")
    check(("<@%s>" % USERS["alice"]) in table.content, "the live table calls alice: " + table.content[-120:])


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
    check(table.calls.get(USERS["alice"], 0) > 0 and table.calls.get(USERS["bob"], 0) > 0
          and not table.calls.get(USERS["carol"]),
          "alice and bob were called, carol (calls off) never: %s" % table.calls)
    return moves


RC_CHANNEL = "603"


def test_rival_cults_game(fake):
    """Rival Cults (two players, two cultists each) through slash commands and buttons, to the
    end, in a channel of its own."""
    table = Table(fake, RC_CHANNEL)
    body = interact(fake, table, slash(USERS["alice"], "open", [
        {"name": "variant", "type": 3, "value": "rival-cults"},
        {"name": "cultists", "type": 4, "value": 2}], channel=RC_CHANNEL))
    check(body and body["type"] == 4 and table.embed, "a Rival Cults lobby opens")
    join = [b["custom_id"] for b in table.buttons() if b["custom_id"].endswith(":join")]
    body = interact(fake, table, click(USERS["bob"], join[0], channel=RC_CHANNEL))
    check(body and body["type"] == 7, "bob joins by button")
    interact(fake, table, slash(USERS["alice"], "start", [{"name": "first", "type": 6, "value": USERS["bob"]}],
                                channel=RC_CHANNEL))
    check(whose_turn(table)[0] == USERS["bob"], "bob's cultist casts first: " + table.text()[:80])
    moves = 0
    while not game_over(table) and moves < 300:
        uid, action, custom = whose_turn(table)
        if not check(uid is not None and custom, "a Rival Cults move is awaited: " + table.text()[:80]):
            break
        if moves % 2:
            body = interact(fake, table, click(uid, custom, channel=RC_CHANNEL))
        elif action == "curse":
            label = [b["label"] for b in table.buttons() if ":curse:" in b["custom_id"]][0]
            name, _, k = label.rpartition("-")
            body = interact(fake, table, slash(uid, "curse", [{"name": "victim", "type": 6, "value": USERS[name]},
                                                              {"name": "cultist", "type": 4, "value": int(k)}],
                                               channel=RC_CHANNEL))
        elif action == "eye":
            body = interact(fake, table, slash(uid, "eye", [{"name": "face", "type": 3, "value": "yellow-sign"}],
                                               channel=RC_CHANNEL))
        else:
            body = interact(fake, table, slash(uid, "respond", channel=RC_CHANNEL))
        if not check(body and body.get("type") in (4, 7) and (body.get("data") or {}).get("flags") != 64,
                     "a legal Rival Cults move is accepted: %s" % json.dumps(body)[:200]):
            break
        moves += 1
    check(game_over(table), "the Rival Cults game ended (%d moves)" % moves)
    check(table.calls.get(USERS["alice"], 0) > 0 and table.calls.get(USERS["bob"], 0) > 0,
          "both Rival Cults players were called: %s" % table.calls)
    # /log tells the game again, privately, page 1 the newest; a page past the end is refused.
    live = table.message_id
    body = interact(fake, table, slash(USERS["carol"], "log", channel=RC_CHANNEL))
    content = ((body or {}).get("data") or {}).get("content", "")
    check(body and body["type"] == 4 and body["data"].get("flags") == 64
          and "The game so far — page 1 of " in content and "curses" in content,
          "/log answers privately with the last page: %s" % json.dumps(body)[:300])
    body = interact(fake, table, slash(USERS["carol"], "log", [{"name": "page", "type": 4, "value": 999}],
                                       channel=RC_CHANNEL))
    check(body and body["data"].get("flags") == 64 and "There is no page 999" in body["data"].get("content", ""),
          "/log page:999 is refused privately: %s" % json.dumps(body)[:300])
    check(table.message_id == live, "/log leaves the channel as it was")


def es_waiting(table):
    """(user, points at stake, chance of being downed) of the Elder Signs decision awaited."""
    text = table.text()
    for name, uid in USERS.items():
        if text.startswith(name + ": /roll to roll again ("):
            pct = int(text.split("(")[1].split("%")[0])
            stake = int(text.split("/retreat to bank ")[1].split(" ")[0].rstrip("."))
            return uid, stake, pct
    return None, 0, 0


def test_elder_signs_game(fake, table):
    """Elder Signs through slash commands and buttons, to the end, in a channel of its own."""
    body = interact(fake, table, slash(USERS["alice"], "open", [{"name": "game", "type": 3, "value": "elder-signs"}], channel=ES_CHANNEL))
    check(body and body["type"] == 4 and "elder-signs" in table.text(), "an Elder Signs lobby opens")
    join = [b["custom_id"] for b in table.buttons() if b["custom_id"].endswith(":join")]
    body = interact(fake, table, click(USERS["bob"], join[0], channel=ES_CHANNEL))
    check(body and body["type"] == 7, "bob joins by button")
    # /addbot's policy is completed with this table's game's policies only (callback type 8).
    body = interact(fake, table, autocomplete(USERS["alice"], "addbot", "policy", "", channel=ES_CHANNEL))
    check(body == {"type": 8, "data": {"choices": [
        {"name": "greedy-2", "value": "greedy-2", "name_localizations": {"nl": "greedy-2"}},
        {"name": "expect (default)", "value": "expect", "name_localizations": {"nl": "expect (standaard)"}},
        {"name": "ev", "value": "ev", "name_localizations": {"nl": "ev"}},
        {"name": "best", "value": "best", "name_localizations": {"nl": "best"}}]}},
          "/addbot at an Elder Signs table offers greedy-2, expect, ev and best: %s" % json.dumps(body)[:300])
    body = interact(fake, table, autocomplete(USERS["bob"], "addbot", "policy", "EXP", locale="nl", channel=ES_CHANNEL))
    check(body and [(c["name"], c["value"]) for c in body["data"]["choices"]] == [("expect (standaard)", "expect")],
          "what was typed filters the policies, named in the user's language: %s" % json.dumps(body)[:300])
    body = interact(fake, table, autocomplete(USERS["alice"], "addbot", "policy", "", channel="603"))
    check(body and [c["value"] for c in body["data"]["choices"]] == ["random", "heuristic", "solver"],
          "without a table, the default game's policies: %s" % json.dumps(body)[:300])
    d = autocomplete(USERS["alice"], "addbot", "policy", "", channel=ES_CHANNEL)
    del d["data"]["options"][0]["focused"]
    body = interact(fake, table, d)
    check(body == {"type": 8, "data": {"choices": []}},
          "an autocomplete that cannot be read gets no choices: %s" % json.dumps(body)[:300])
    body = interact(fake, table, slash(USERS["alice"], "addbot", [{"name": "policy", "type": 3, "value": "greedy-2"}], channel=ES_CHANNEL))
    check(body and "greedy-2-bot-1" in table.text(), "a greedy-2 computer sits down")
    body = interact(fake, table, slash(USERS["alice"], "start", [{"name": "first", "type": 6, "value": USERS["alice"]}], channel=ES_CHANNEL))
    # the table follows the answer to /start; a slow daemon (valgrind) may post it after the
    # answer's quiet spell
    wait(lambda: table.refresh() is not None and (table.embed or {}).get("title", "").startswith("Elder Signs — round 1"),
         10, "the Elder Signs table after /start")
    check(table.embed and table.embed.get("title", "").startswith("Elder Signs — round 1"),
          "the table is an Elder Signs table: %s" % (table.embed or {}).get("title"))
    names = [f["name"] for f in (table.embed or {}).get("fields", [])]
    check({"alice", "bob", "greedy-2-bot-1", "Clue dice in hand", "Elder Signs at stake", "Tentacles", "The bag"} <= set(names),
          "the table shows the seats, the hand, the stash, the Tentacles and the bag: %s" % names)
    uid, stake, pct = es_waiting(table)
    # alice opens; her first roll may down her at once, and then it is bob's turn
    check("alice opens every round" in table.content and uid in (USERS["alice"], USERS["bob"]),
          "alice plays first: " + table.content[:120])
    other = USERS["bob"] if uid == USERS["alice"] else USERS["alice"]
    ids = [b["custom_id"] for b in table.buttons()]
    check(len(ids) == 2 and ids[0].endswith(":roll") and ids[1].endswith(":retreat"), "roll and retreat buttons: %s" % ids)
    check([b["style"] for b in table.buttons()] == [1, 2], "roll is primary, retreat secondary")
    body = interact(fake, table, slash(other, "roll", channel=ES_CHANNEL))
    check(body and body["data"].get("flags") == 64 and "Not your turn: it is %s's." % NAMES[uid] in json.dumps(body),
          "a roll out of turn is refused privately, naming whose turn it is")
    gid, move = ids[0].split(":")[0], int(ids[0].split(":")[1])
    body = interact(fake, table, click(uid, "%s:%d:roll" % (gid, move + 1), channel=ES_CHANNEL))
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


# Display names holding Discord markdown, each with what the bot must send for it (escaped).
MARKDOWN_NAMES = [
    ("**bold**", r"\*\*bold\*\*"),
    ("__under__", r"\_\_under\_\_"),
    ("*it*", r"\*it\*"),
    ("_it_", r"\_it\_"),
    ("~~gone~~", r"\~\~gone\~\~"),
    ("[t](https://u.example)", r"\[t\](https://u.example)"),
    ("`code`", r"\`code\`"),
    ("||spoiler||", r"\|\|spoiler\|\|"),
    ("> quote", r"\> quote"),
    ("# heading", r"\# heading"),
    ("- item", r"\- item"),
    ("<@1001> @everyone", r"\<\@1001\> \@everyone"),
]


def texts_of(body):
    """(markdown texts, plain labels) of a message body or callback: content, embed title,
    description and fields; button and menu labels."""
    data = body.get("data", body) if isinstance(body, dict) else {}
    if not isinstance(data, dict):
        return [], []
    md = [data.get("content") or ""]
    for e in data.get("embeds") or []:
        md += [e.get("title") or "", e.get("description") or ""]
        md += [f.get(k) or "" for f in e.get("fields") or [] for k in ("name", "value")]
    labels = []
    for row in data.get("components") or []:
        for c in row.get("components") or []:
            labels.append(c.get("label") or "")
            labels += [o.get("label") or "" for o in c.get("options") or []]
    return md, labels


def test_markdown_names(fake):
    """Twelve players whose names hold markdown open, fill and start a table: every text the
    bot sends shows each name escaped, every button label shows it as it is."""
    uids = [str(2001 + k) for k in range(len(MARKDOWN_NAMES))]
    channel = "605"
    table = Table(fake, channel, players=uids)
    start = len(fake.all_log())

    def as_player(k, d):
        d["member"] = {"user": {"id": uids[k], "username": "player%d" % k,
                                "global_name": MARKDOWN_NAMES[k][0]}, "permissions": "0"}
        return d

    body = interact(fake, table, as_player(0, slash(USERS["alice"], "open", channel=channel)))
    check(body and body["type"] == 4, "a table opened by a player named %s" % MARKDOWN_NAMES[0][0])
    for k in range(1, len(uids)):
        interact(fake, table, as_player(k, slash(USERS["alice"], "join", channel=channel)))
    interact(fake, table, as_player(0, slash(USERS["alice"], "start",
                                             [{"name": "first", "type": 6, "value": uids[0]}], channel=channel)))
    md, labels = [], []
    for e in fake.all_log()[start:]:
        if e.get("kind") == "http" and e.get("body") and e["path"].startswith("/api/v10/"):
            try:
                m, l = texts_of(json.loads(e["body"]))
            except ValueError:
                continue
            md += m
            labels += l
    said = "\n".join(md)
    for raw, escaped in MARKDOWN_NAMES:
        check(escaped in said, "the name %r is sent escaped as %r" % (raw, escaped))
        # a raw name inside its escaped form does not count ("- item" is in "\- item")
        check(raw not in said.replace(escaped, ""), "the name %r is never sent unescaped" % raw)
    curse = [b["label"] for b in table.buttons() if ":curse:" in b.get("custom_id", "")]
    check(set(curse) == {raw for raw, _ in MARKDOWN_NAMES[1:]},
          "the curse buttons are labelled with the names as they are: %s" % curse)
    check(not any("\\" in l for l in labels), "no label shows a backslash: %s" % labels[:12])
    body = interact(fake, table, as_player(0, slash(USERS["alice"], "abort", channel=channel)))
    check(body and body["type"] == 4, "the table is closed")


# ---- CTHULHU!!! (the board game) at a table of its own ----

CT_CHANNEL = "602"
CT_SETTINGS = "confirm:on window:off cap:40"
PNG_MIN, PNG_MAX = 1024, 8 << 20


def ct_id(custom_id):
    """(game, move, action, arg) of a custom_id "game:move:action[:arg]" ("?" of a prompt dropped)."""
    parts = custom_id.lstrip("?").split(":")
    return int(parts[0]), int(parts[1]), parts[2], parts[3] if len(parts) > 3 else None


def components_of(message):
    """The buttons and the select menus of a message object."""
    items = [c for row in message.get("components", []) for c in row.get("components", [])]
    return [c for c in items if c.get("type") == 2], [c for c in items if c.get("type") == 3]


def body_of(entry):
    try:
        return json.loads(entry.get("body") or "null")
    except ValueError:
        return None


def ct_title(entry):
    """The title of the CTHULHU!!! table a request carries (a callback's data or a message body), or None."""
    body = body_of(entry)
    if not isinstance(body, dict):
        return None
    data = body.get("data", body) if "type" in body and "data" in body else body
    embeds = data.get("embeds") if isinstance(data, dict) else None
    if embeds and embeds[0].get("title", "").startswith("CTHULHU!!!"):
        return embeds[0]["title"]
    return None


class CtTable:
    """alice at a CTHULHU!!! table with two computer players, in a channel of its own: what she
    sees is what the fake stored (the table message, her private replies), what the daemon sent
    is the fake's log."""

    def __init__(self, fake, tmp, rng):
        self.fake = fake
        self.db = os.path.join(tmp, "rlyeh.db")
        self.rng = rng
        self.entries = []
        fake.log()  # what came before is the other tests'
        self.alice = USERS["alice"]
        self.msg_id = None      # the table message
        self.open_token = None  # the interaction whose response became the table message
        self.gid = None
        self.start_at = 0       # index in entries where this table's game began
        self.clicked = {}       # interaction id -> (message id, private) it came from
        self.previews = 0
        self.old = []           # custom ids of earlier tables
        self.path = []          # squares alice walked this turn, from the narration
        self.said = 0           # narration read up to this entry
        self.stats = {"decisions": 0, "hand": 0, "walks": 0, "steps": 0, "tokens": 0,
                      "custom": 0, "pages": 0, "back": 0, "refused_walks": 0}
        self.done = {}
        self.refused = False    # stale and forged buttons were tried
        self.view = Table(fake, CT_CHANNEL)  # the channel as alice sees it
        self.view.seen.update(m["id"] for m in self.view.refresh())  # an earlier game's
        self.looked = 0         # entries the view has checked up to

    # -- the fake --

    def pull(self):
        self.entries.extend(self.fake.log())

    def quiet(self, ms=30, limit=3.0):
        """Waits until the daemon has sent nothing for ms (its follow-ups and edits are out)."""
        end = time.time() + limit
        n = len(self.entries)
        last = time.time()
        while time.time() < end:
            time.sleep(0.02)
            self.pull()
            if len(self.entries) != n:
                n, last = len(self.entries), time.time()
            elif time.time() - last >= ms / 1000.0:
                return

    def message(self, mid=None):
        return self.fake.call("GET", "/_fake/message?id=" + (mid or self.msg_id))

    def table(self):
        """The live table: the newest public message of the channel. A long stretch of computer
        moves is told pass by pass (64 moves each) before the table comes: a newest message
        without an embed is narration, and the table follows (5 s at most)."""
        end = time.time() + 5
        while True:
            msgs = [m for m in self.api_get("/channels/%s/messages" % CT_CHANNEL) if public(m)]
            if msgs[0].get("embeds") or time.time() > end:
                break
            time.sleep(0.05)
            self.quiet()
        self.msg_id = msgs[0]["id"]
        LIVE[CT_CHANNEL] = self.msg_id
        return msgs[0]

    def api_get(self, path):
        """A GET of the HTTP API as a bot makes one: how the test learns a response's message id,
        as the daemon itself does (GET .../messages/@original)."""
        req = urllib.request.Request(self.fake.base + "/api/v10" + path, method="GET", headers={
            "Authorization": "Bot " + TOKEN, "User-Agent": "DiscordBot (https://example.invalid, 1)"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read().decode())

    def original(self, d):
        return self.api_get("/webhooks/%s/%s/messages/@original" % (APP, d["token"]))["id"]

    def moves(self):
        db = sqlite3.connect(self.db, timeout=5)
        try:
            row = db.execute("SELECT moves, state FROM games WHERE id = ?", (self.gid,)).fetchone()
        finally:
            db.close()
        return row

    # -- interactions --

    def send(self, d, what, message=None, private=False):
        """Dispatches d (from `message`, a private reply when `private`), waits for its callback
        and the daemon to go quiet; returns the callback's body."""
        path = "/api/v10/interactions/%s/%s/callback" % (d["id"], d["token"])
        if message is not None:
            d["message"] = {"id": message, "channel_id": CT_CHANNEL}
            if private:
                d["message"]["flags"] = 64  # as Discord sends a component of an ephemeral message
        self.clicked[d["id"]] = (message, private)
        start = len(self.entries)
        self.fake.dispatch(d)
        end = time.time() + 10
        cb = None
        while cb is None and time.time() < end:
            self.pull()
            cb = next((e for e in self.entries[start:] if e.get("kind") == "http" and e.get("path") == path), None)
            if cb is None:
                time.sleep(0.02)
        if not check(cb is not None, "cthulhu: %s is answered" % what):
            return None
        check(cb.get("status") in (200, 204), "cthulhu: %s: the callback is accepted (%s)" % (what, cb.get("status")))
        self.quiet()
        return body_of(cb)

    def private(self, body, what):
        """Checks that an answer is a private reply (type 4, flags 64); returns its data."""
        ok = check(body is not None and body.get("type") == 4 and body.get("data", {}).get("flags") == 64,
                   "cthulhu: %s is answered privately: %s" % (what, json.dumps(body)[:300]))
        return body["data"] if ok else None

    def click(self, custom_id, what, message=None, private=False, user=None):
        d = click(user or self.alice, custom_id, channel=CT_CHANNEL)
        return d, self.send(d, what, message or self.msg_id, private)

    def choose(self, custom_id, value, what, message=None, private=False):
        d = click(self.alice, custom_id, channel=CT_CHANNEL)
        d["data"] = {"custom_id": custom_id, "component_type": 3, "values": [value]}
        return d, self.send(d, what, message or self.msg_id, private)

    def submit(self, custom_id, text, what):
        d = modal_submit(self.alice, custom_id, text, channel=CT_CHANNEL)
        return d, self.send(d, what, self.msg_id)

    # -- the table changing --

    def snapshot(self):
        self.table()
        m = self.message()
        return (self.msg_id, json.dumps(m["message"], sort_keys=True),
                [(a["filename"], a["sha1"]) for a in m["attachments"]])

    def moved_on(self, before, what):
        """Checks that a new live table followed `before` (the one before lost its buttons, the
        awaited player was called, nobody else pinged) and shows the newest map, the only file
        it keeps: the picture of the last table request, a PNG (the fake reads its signature and
        IHDR)."""
        end = time.time() + 5
        while True:
            now = self.snapshot()
            if now[0] != before[0] or time.time() > end:
                break
            time.sleep(0.02)
        if not check(now[0] != before[0], "cthulhu: %s posts a new live table" % what):
            return False
        self.quiet()
        t = self.table()
        over = "game over" in ((t.get("embeds") or [{}])[0].get("title") or "")
        self.view.look(self.entries[self.looked:], None if over or not t.get("components") else self.alice,
                       "cthulhu: " + what)
        self.looked = len(self.entries)
        m = self.message()
        sent = [e for e in self.entries[self.start_at:] if e.get("kind") == "http" and ct_title(e)]
        files = sent[-1].get("files") or [{}] if sent else [{}]
        att = m["attachments"]
        emb = m["message"].get("embeds") or [{}]
        check(len(att) == 1 and att[0]["sha1"] == files[0].get("sha1") and att[0]["filename"] == files[0].get("filename")
              and att[0]["content_type"] == "image/png" and att[0]["width"] > 0 and att[0]["height"] > 0
              and emb[0].get("image", {}).get("url") == "attachment://" + att[0]["filename"],
              "cthulhu: after %s the table keeps one picture, the new map (%s; sent %s)" % (what, att, files[0]))
        return True

    def unchanged(self, before, moves, what):
        time.sleep(0.1)
        self.quiet()
        check(self.snapshot() == before, "cthulhu: %s changes nothing on the table" % what)
        check(self.moves() == moves, "cthulhu: %s writes no move (%s -> %s)" % (what, moves, self.moves()))

    # -- opening --

    def open(self):
        d = slash(self.alice, "open", [{"name": "game", "type": 3, "value": "cthulhu"},
                                       {"name": "settings", "type": 3, "value": CT_SETTINGS}], channel=CT_CHANNEL)
        body = self.send(d, "/open cthulhu settings:" + CT_SETTINGS)
        check(body and body["type"] == 4 and "Game: cthulhu" in json.dumps(body), "cthulhu: a lobby opens")
        for k in range(2):
            # a lobby command answers with the lobby anew: the last one is the table message
            d = slash(self.alice, "addbot", channel=CT_CHANNEL)
            body = self.send(d, "/addbot")
        self.open_token = d["token"]
        lobby = self.table()
        check("baseline-bot-2" in lobby["embeds"][0]["description"], "cthulhu: two computer players sit down")
        self.gid = ct_id(components_of(lobby)[0][0]["custom_id"])[0]
        self.start_at = len(self.entries)
        self.looked = len(self.entries)
        before = self.snapshot()
        body = self.send(slash(self.alice, "start", channel=CT_CHANNEL), "/start")
        content = body["data"].get("content", "") if body else ""
        # the narration's last lines when all of it does not fit (an ellipsis heads them)
        check(body and body["type"] == 4 and ("The game begins" in content or content.startswith("\u2026\n"))
              and len(content) <= 2000, "cthulhu: the game begins: %r" % content[:200])
        self.moved_on(before, "/start")
        check(self.table()["embeds"][0]["title"].startswith("CTHULHU!!! — round"), "cthulhu: the lobby became the table")
        db = sqlite3.connect(self.db, timeout=5)
        packed = db.execute("SELECT per_player FROM games WHERE id = ?", (self.gid,)).fetchone()[0]
        db.close()
        # ctplay.h: bits 0-9 the cap, bit 11 confirmation off, bits 12-17 the window + 1
        check(packed & 1023 == 40 and not packed >> 11 & 1 and (packed >> 12 & 63) == 1,
              "cthulhu: the settings are the table's (%#x)" % packed)

    # -- one decision --

    def play(self):
        t = self.table()
        buttons, selects = components_of(t)
        desc = t["embeds"][0].get("description", "")
        ids = [b["custom_id"] for b in buttons] + [s["custom_id"] for s in selects]
        if not check(ids, "cthulhu: the table offers something: " + desc[-200:]):
            return False
        move = ct_id(ids[0])[1]
        check(all(ct_id(i)[:2] == (self.gid, move) for i in ids), "cthulhu: every component names the game and move: %s" % ids)
        check(t.get("attachments") is not None and "map-%d-%d.png" % (self.gid, move) in json.dumps(t), "cthulhu: the map of this move is shown")
        self.old.extend(i for i in ids if not i.startswith("?"))
        acts = {ct_id(i)[2] for i in ids}
        before = self.snapshot()
        self.stats["decisions"] += 1
        self.narration()
        if selects and ct_id(selects[0]["custom_id"])[2] == "place":
            return self.place(selects[0], buttons, before)
        if "tokens" in acts:
            return self.tokens(buttons, before)
        if "move" in acts:
            return self.walk(buttons, desc, before)
        if "relics" in acts:
            return self.relics([b for b in buttons if ct_id(b["custom_id"])[2] == "relics"][0], before)
        hidden = [b for b in buttons if ct_id(b["custom_id"])[2] == "hand" and ct_id(b["custom_id"])[3]]
        # A disabled button (Spend n bullets without the bullets, C11) cannot be clicked.
        public = [b for b in buttons if ct_id(b["custom_id"])[2] == "pick" and not b.get("disabled")]
        if hidden and (not public or not self.done.get("hand:" + ct_id(hidden[0]["custom_id"])[3]) or self.rng.random() < 0.4):
            return self.hand(hidden[0], before)
        if selects:
            s = selects[0]
            _, body = self.choose(s["custom_id"], self.rng.choice(s["options"])["value"], "a choice from the menu")
            return self.moved_on(before, "a choice from the menu")
        if not check(public, "cthulhu: a decision with buttons: %s" % ids):
            return False
        b = self.rng.choice(public)
        _, body = self.click(b["custom_id"], "the button " + b["label"])
        check(body and body["type"] == 7 and "flags" not in body["data"],
              "cthulhu: a button of the table updates it (type 7): %s" % json.dumps(body)[:200])
        return self.moved_on(before, "the button " + b["label"])

    def narration(self):
        """alice's squares this turn, from what the table was told."""
        for e in self.entries[self.said:]:
            body = body_of(e) if e.get("kind") == "http" else None
            if not isinstance(body, dict):
                continue
            text = (body.get("data") or body).get("content") or ""
            for line in text.split("\n"):
                if line.endswith(": alice plays.") or line.startswith("alice is put on "):
                    self.path = []
                if line.startswith("alice moves "):  # folded: "alice moves 1,0 → 1,-1 (3 left), …"
                    self.path.extend(re.findall(r"-?\d+,-?\d+", line.split(" (")[0]))
                elif line.startswith("alice is put on "):
                    self.path.append(line.split()[4].rstrip("."))
        self.said = len(self.entries)

    def place(self, menu, buttons, before):
        """C6: a tile option from the menu (a page of it at times), its private preview with a
        picture, Back once, then Confirm."""
        cid = menu["custom_id"]
        gid, move, _, _ = ct_id(cid)
        values = [o["value"] for o in menu["options"]]
        check(0 < len(values) <= 25 and all(len(o["label"]) <= 100 for o in menu["options"]), "cthulhu: a menu of at most 25 options")
        nxt = [b for b in buttons if ct_id(b["custom_id"])[2] == "page"]
        moves = self.moves()
        where, private = self.msg_id, False
        if nxt and not self.done.get("page"):
            # ▶: the next page, privately: its menu is chosen from
            self.done["page"] = True
            self.stats["pages"] += 1
            d, body = self.click(nxt[0]["custom_id"], "the next page of tile options")
            data = self.private(body, "the next page")
            _, sel = components_of(data) if data else ([], [])
            if check(sel and ct_id(sel[0]["custom_id"])[:3] == (gid, move, "place") and sel[0]["options"],
                     "cthulhu: the next page is a menu of tile options"):
                values = [o["value"] for o in sel[0]["options"]]
                check(not set(values) & {o["value"] for o in menu["options"]}, "cthulhu: the next page holds other options")
                cid, where, private = sel[0]["custom_id"], self.original(d), True
            self.unchanged(before, moves, "a page of options")
        value = self.rng.choice(values)
        d, body = self.choose(cid, value, "tile option " + value, where, private)
        data = self.private(body, "a tile option (the preview)")
        if not data:
            return False
        preview = self.preview(d, body, value)
        self.unchanged(before, moves, "a preview")
        if not self.done.get("back"):
            # Back: the menu again, privately; the same option from it gives the preview again
            self.done["back"] = True
            self.stats["back"] += 1
            back = [b for b in components_of(data)[0] if b["label"] == "Back"]
            if check(back, "cthulhu: the preview has Back"):
                d, body = self.click(back[0]["custom_id"], "Back", preview, True)
                again = self.private(body, "Back")
                sel = components_of(again)[1] if again else []
                if check(sel and value in [o["value"] for o in sel[0]["options"]], "cthulhu: Back shows the menu again"):
                    mid = self.original(d)
                    d, body = self.choose(sel[0]["custom_id"], value, "the option again", mid, True)
                    if self.private(body, "the option again (the preview)"):
                        data = body["data"]
                        preview = self.preview(d, body, value)
                self.unchanged(before, moves, "Back")
        confirm = [b for b in components_of(data)[0] if b["label"] == "Confirm"]
        if not check(confirm and confirm[0]["custom_id"] == "%d:%d:confirm:%s" % (gid, move, value),
                     "cthulhu: the preview has Confirm for option %s: %s" % (value, confirm)):
            return False
        d, body = self.click(confirm[0]["custom_id"], "Confirm", preview, True)
        self.from_private(d, body, preview, "Confirm")
        return self.moved_on(before, "Confirm")

    def preview(self, d, body, value):
        """The preview reply: a picture of its own; returns the reply's message id."""
        self.previews += 1
        data = body["data"]
        cb = [e for e in self.entries if e.get("path", "").startswith("/api/v10/interactions/%s/" % d["id"])]
        files = cb[-1].get("files") if cb else None
        name = "preview-%d-%d-%s.png" % (self.gid, ct_id(data["components"][0]["components"][0]["custom_id"])[1], value)
        check(files and len(files) == 1 and files[0]["name"] == "files[0]" and files[0]["filename"] == name
              and files[0]["content_type"] == "image/png" and PNG_MIN < files[0]["size"] < PNG_MAX
              and data.get("attachments") == [{"id": 0, "filename": name}]
              and cb[-1]["headers"].get("Content-Type", "").startswith("multipart/form-data"),
              "cthulhu: the preview carries its picture %s: %s %s" % (name, files, data.get("attachments")))
        mid = self.original(d)
        stored = self.message(mid)
        check(len(stored["attachments"]) == 1 and stored["attachments"][0]["width"] > 0
              and stored["attachments"][0]["sha1"] == (files or [{}])[0].get("sha1"),
              "cthulhu: the preview's picture is a PNG: %s" % stored["attachments"])
        return mid

    def from_private(self, d, body, mid, what):
        """A move made from a button of a private reply is answered publicly, and the private
        reply does not become the table (only one player would see it)."""
        check(body and body["type"] == 4 and "flags" not in body["data"] and body["data"].get("content"),
              "cthulhu: %s from a private reply is told to the table: %s" % (what, json.dumps(body)[:200]))
        reply = self.message(mid)["message"]
        check(not any((e.get("title") or "").startswith("CTHULHU!!!") for e in reply.get("embeds") or []),
              "cthulhu: %s leaves the private reply as it was, not turned into the table" % what)

    def tokens(self, buttons, before):
        """C7: a building's tokens by a pattern button, or once by Custom (a modal)."""
        self.stats["tokens"] += 1
        custom = [b for b in buttons if b["custom_id"].startswith("?")]
        if custom and not self.done.get("custom"):
            self.done["custom"] = True
            self.stats["custom"] += 1
            _, body = self.click(custom[0]["custom_id"], "Custom tokens")
            ok = check(body and body.get("type") == 9 and body["data"]["custom_id"] == custom[0]["custom_id"],
                       "cthulhu: Custom opens a modal: %s" % json.dumps(body)[:200])
            if ok:
                field = body["data"]["components"][0]["components"][0]
                pattern = field.get("placeholder", "")
                check(pattern and set(pattern) <= set("HB") and field.get("max_length") == len(pattern),
                      "cthulhu: the modal asks for one H or B per square: %s" % field)
                _, body = self.submit(custom[0]["custom_id"], pattern.replace("H", "b", 1), "a custom pattern")
                check(body and body["type"] == 7, "cthulhu: the pattern updates the table: %s" % json.dumps(body)[:200])
                return self.moved_on(before, "a custom token pattern")
        pick = [b for b in buttons if ct_id(b["custom_id"])[2] == "tokens" and ct_id(b["custom_id"])[3]]
        choice = self.rng.choice(pick)
        _, body = self.click(choice["custom_id"], choice["label"])
        return self.moved_on(before, "the tokens " + choice["label"])

    def walk(self, buttons, desc, before):
        """C9, C10: a step by an arrow or Stop, at random; back to the square before by a
        destination typed in the Move modal (turn after turn until one is taken; a bad one is
        refused first)."""
        left = int(desc.split("alice: ")[-1].split(" squares left")[0]) if "squares left" in desc else 0
        dirs = [b for b in buttons if ct_id(b["custom_id"])[2] == "pick" and b["label"][0] in "↑→↓←"]
        stop = [b for b in buttons if b["label"] == "Stop"]
        prompt = [b for b in buttons if b["custom_id"].startswith("?")]
        check(stop and prompt and prompt[0]["label"] == "Move", "cthulhu: a walk offers Move and Stop: %s" % [b["label"] for b in buttons])
        if len(self.path) >= 2 and left >= 1 and prompt and not self.done.get("walked") \
                and self.done.get("walk tries", 0) < 6:
            self.done["walk tries"] = self.done.get("walk tries", 0) + 1
            _, body = self.click(prompt[0]["custom_id"], "Move")
            check(body and body.get("type") == 9 and body["data"]["components"][0]["components"][0]["type"] == 4,
                  "cthulhu: Move opens a modal: %s" % json.dumps(body)[:200])
            if not self.done.get("bad walk"):
                self.done["bad walk"] = True
                moves = self.moves()
                for text, what in (("99,99", "no square of the map"), ("north", "not gx,gy")):
                    _, body = self.submit(prompt[0]["custom_id"], text, "a destination that is " + what)
                    data = self.private(body, "a destination that is " + what)
                    check(data and "not a square of the map" in data.get("content", ""), "cthulhu: %s is refused: %s" % (text, data))
                self.unchanged(before, moves, "a bad destination")
            to = self.path[-2]
            _, body = self.submit(prompt[0]["custom_id"], " %s " % to, "the destination " + to)
            if body and body["type"] == 4 and body["data"].get("flags") == 64:
                self.stats["refused_walks"] += 1  # out of reach after all (a wall, an activated site)
                self.unchanged(before, self.moves(), "an unreachable destination")
            else:
                check(body and body["type"] == 7, "cthulhu: a destination updates the table: %s" % json.dumps(body)[:200])
                self.done["walked"] = True
                self.stats["walks"] += 1
                return self.moved_on(before, "the walk to " + to)
        # after a fight on the way: Continue to the destination (C10)
        more = [b for b in buttons if ct_id(b["custom_id"])[2] == "move" and ct_id(b["custom_id"])[3]]
        b = self.rng.choice(dirs + stop + more)  # as the random policy would
        if b in dirs:
            self.stats["steps"] += 1
        if b in more:
            self.stats["continued"] = self.stats.get("continued", 0) + 1
        _, body = self.click(b["custom_id"], b["label"])
        check(body and body["type"] == 7, "cthulhu: %s updates the table" % b["label"])
        return self.moved_on(before, b["label"])

    def hand(self, button, before):
        """C4: a decision that would show a card: the hand privately, its buttons, one of them."""
        kind = ct_id(button["custom_id"])[3]
        self.done["hand:" + kind] = True
        moves = self.moves()
        d, body = self.click(button["custom_id"], button["label"])
        data = self.private(body, button["label"])
        if not data:
            return False
        self.unchanged(before, moves, "the hand")
        check("alice: " in data.get("content", "") and data.get("components"),
              "cthulhu: the reply is alice's hand with the decision's options: %s" % json.dumps(data)[:300])
        picks, sel = components_of(data)
        picks = [b for b in picks if ct_id(b["custom_id"])[2] == "pick"]
        cards = [b for b in picks if b["label"].startswith(("Play ", "Discard "))]
        listed = [o for o in (sel[0]["options"] if sel else []) if o["label"].startswith(("Play ", "Discard "))]
        if not cards and not listed:
            # C14: asked whatever the hand holds, the menu says that no card can be played now
            if not check("You have no card you can play now." in data.get("content", "") and picks,
                         "cthulhu: the hand lists the cards to %s, or says none can be played: %s"
                         % (kind, json.dumps(data)[:300])):
                return False
            self.stats["no card"] = self.stats.get("no card", 0) + 1
            mid = self.original(d)
            d, body = self.click(picks[0]["custom_id"], picks[0]["label"], mid, True)
            self.from_private(d, body, mid, "a choice without a card")
            return self.moved_on(before, "a choice without a card")
        mid = self.original(d)
        self.stats["hand"] += 1
        if cards:
            b = self.rng.choice(cards)
            d, body = self.click(b["custom_id"], b["label"], mid, True)
        else:
            d, body = self.choose(sel[0]["custom_id"], listed[0]["value"], "a card from the menu", mid, True)
        self.from_private(d, body, mid, "a card from the hand")
        return self.moved_on(before, "a card from the hand")

    def relics(self, button, before):
        """C8: after a defeat, the private picker: + per type until Confirm, then Confirm."""
        moves = self.moves()
        d, body = self.click(button["custom_id"], button["label"])
        for _ in range(40):
            data = self.private(body, button["label"])
            if not data:
                return False
            self.unchanged(before, moves, "the relic picker")
            picks, _ = components_of(data)
            confirm = [b for b in picks if ct_id(b["custom_id"])[2] == "lose"]
            if confirm:
                mid = self.original(d)
                self.stats["relics"] = self.stats.get("relics", 0) + 1
                d, body = self.click(confirm[0]["custom_id"], "Confirm", mid, True)
                self.from_private(d, body, mid, "the relics lost")
                return self.moved_on(before, "the relics lost")
            plus = [b for b in picks if b["label"].startswith("+ ")]
            if not check(plus, "cthulhu: the relic picker offers a type to add: %s" % json.dumps(data)[:300]):
                return False
            mid = self.original(d)
            b = self.rng.choice(plus)
            d, body = self.click(b["custom_id"], b["label"], mid, True)
        return check(False, "cthulhu: the relic picker never offered Confirm")

    # -- refusals --

    def refusals(self):
        """C18: stale and forged buttons are refused privately and change nothing."""
        t = self.table()
        buttons, selects = components_of(t)
        ids = [b["custom_id"] for b in buttons] + [s["custom_id"] for s in selects]
        gid, move, _, _ = ct_id(ids[0])
        before, moves = self.snapshot(), self.moves()
        stale = [i for i in self.old if ct_id(i)[1] < move]
        check(stale, "cthulhu: buttons of earlier moves were seen")
        cases = [(stale[0], "That button belongs to an earlier move."),
                 (stale[-1], "That button belongs to an earlier move."),
                 ("%d:%d:pick:1" % (gid + 1000, move), "That button belongs to a game that is over."),
                 ("%d:garbage:pick:1" % gid, "could not be read"),
                 ("%d:%d:pick:99" % (gid, move), "'99' is not an option"),
                 ("%d:%d:pick:0" % (gid, move), "'0' is not an option"),
                 ("%d:%d:nonsense:1" % (gid, move), "could not be read")]
        for cid, said in cases:
            _, body = self.click(cid, "the button " + cid)
            data = self.private(body, "the stale or forged button " + cid)
            check(data and said in data.get("content", ""), "cthulhu: %s is refused (%s): %s" % (cid, said, data and data.get("content")))
        _, body = self.choose("%d:%d:place" % (gid, move), "99", "a forged tile option")
        self.private(body, "a forged tile option 99")
        _, body = self.click("%d:%d:pick:1" % (gid, move), "bob's click", user=USERS["bob"])
        self.private(body, "a click of someone not at the table")
        mine = [b for b in buttons if b["label"] == "My hand"]
        if check(mine and mine[0]["custom_id"] == "%d:%d:hand" % (gid, move), "cthulhu: the table has My hand"):
            _, body = self.click(mine[0]["custom_id"], "My hand")
            data = self.private(body, "My hand")
            check(data and data.get("content") and data.get("components"),
                  "cthulhu: My hand shows alice's hand and options: %s" % json.dumps(data)[:300])
        self.unchanged(before, moves, "stale and forged buttons")

    # -- the game --

    def game(self):
        self.open()
        while self.stats["decisions"] < 400:
            t = self.table()
            if "game over" in t["embeds"][0]["title"]:
                break
            if not self.refused and self.stats["decisions"] >= 3:
                self.refused = True
                self.refusals()
            if not self.play():
                break
        return self.table()

    def check_sent(self):
        """Every table request of the game: multipart/form-data whose payload_json lists the map
        as attachment 0 and shows it as the embed's image, files[0] that PNG; all of them edits of
        the one table message; private replies flagged 64."""
        tables = [e for e in self.entries[self.start_at:] if e.get("kind") == "http" and ct_title(e)]
        check(len(tables) >= self.stats["decisions"], "cthulhu: a table message per decision (%d, %d decisions)"
              % (len(tables), self.stats["decisions"]))
        bad = []
        for e in tables:
            body = body_of(e)
            data = body["data"] if "data" in body and "type" in body else body
            files = e.get("files") or []
            att = data.get("attachments") or [{}]
            name = att[0].get("filename", "")
            where = e["method"] + " " + e["path"]
            problems = []
            if not e.get("headers", {}).get("Content-Type", "").startswith("multipart/form-data"):
                problems.append("not multipart")
            if len(att) != 1 or att[0].get("id") != 0 or not name.startswith("map-%d-" % self.gid) or not name.endswith(".png"):
                problems.append("attachments %s" % data.get("attachments"))
            if data["embeds"][0].get("image", {}).get("url") != "attachment://" + name:
                problems.append("image %s" % data["embeds"][0].get("image"))
            if len(files) != 1 or files[0].get("name") != "files[0]" or files[0].get("filename") != name \
                    or files[0].get("content_type") != "image/png" or not PNG_MIN < files[0].get("size", 0) < PNG_MAX:
                problems.append("files %s" % files)
            items = [c for row in data.get("components") or [] for c in row.get("components", [])]
            if items and name != "map-%d-%d.png" % (self.gid, ct_id(items[0]["custom_id"])[1]):
                problems.append("map %s for %s" % (name, items[0]["custom_id"]))
            if e["path"].endswith("/callback"):
                iid = e["path"].split("/")[4]
                if body.get("type") != 4 or self.clicked.get(iid, (None, True))[0] is not None \
                        and not self.clicked.get(iid)[1]:
                    problems.append("a callback of type %s from %s" % (body.get("type"), self.clicked.get(iid)))
            elif e["method"] != "POST" or not (e["path"].startswith("/api/v10/webhooks/%s/" % APP)
                                               or e["path"] == "/api/v10/channels/%s/messages" % CT_CHANNEL):
                problems.append("not a new live table message")
            if e.get("status") not in (200, 204):
                problems.append("status %s" % e.get("status"))
            if problems:
                bad.append((where, problems))
        check(not bad, "cthulhu: every table request carries its map and edits the table message: %s" % bad[:3])
        sent = [e for e in self.entries[self.start_at:] if e.get("kind") == "http"]
        check(all(e.get("status") in (200, 204) for e in sent),
              "cthulhu: Discord accepted every request: %s" % [(e["method"], e["path"], e["status"]) for e in sent if e.get("status") not in (200, 204)][:3])


def test_cthulhu_game(fake, tmp):
    """CTHULHU!!! from /open with settings to the end: alice answers every decision by the
    table's buttons and menus, the Move and Custom modals, her private hand and the tile
    previews; stale and forged clicks are refused; what the daemon sent is checked. Returns
    the number of games played to their end."""
    import random
    t0 = time.time()
    rng = random.Random(2024)
    attempts, finished = 5, 0
    for attempt in range(attempts):
        ct = CtTable(fake, tmp, rng)
        final = ct.game()
        ct.check_sent()
        desc = final["embeds"][0].get("description", "")
        moves, state = ct.moves()
        if "round cap is reached" in desc:
            # C19: stopped unfinished, no rematch; rare, so play another
            check(state == 3 and not [b for b in components_of(final)[0] if ":rematch" in b["custom_id"]],
                  "cthulhu: a capped game is kept unfinished, without a rematch")
            continue
        finished += 1
        if not ct.done.get("walk tries") and attempt < attempts - 1:
            # the daemon draws each game's seed, and in a rare one alice never walks far
            # enough to walk back: play another
            print("cthulhu: game %d offered no walk back; another game" % (attempt + 1))
            continue
        break
    check("game over" in final["embeds"][0]["title"] and
          any(s in desc for s in ("Kingsport is saved", "the King in Yellow arrives", "nobody wins")),
          "cthulhu: the game ended: %s" % desc[-300:])
    buttons = components_of(final)[0]
    check([ct_id(b["custom_id"])[2] for b in buttons] == ["rematch"], "cthulhu: the last table has the rematch button: %s" % buttons)
    check(state == 2, "cthulhu: the game is stored finished (state %s)" % state)
    db = sqlite3.connect(ct.db, timeout=5)
    kinds = dict(db.execute("SELECT kind, count(*) FROM events WHERE game_id = ? GROUP BY kind", (ct.gid,)).fetchall())
    mine = db.execute("SELECT count(*) FROM events WHERE game_id = ? AND kind = 'choice' AND actor = 0", (ct.gid,)).fetchone()[0]
    db.close()
    check(kinds.get("roll", 0) > 0 and kinds.get("choice", 0) > 0, "cthulhu: the log holds rolls and choices: %s" % kinds)
    check(mine >= ct.stats["decisions"], "cthulhu: alice's choices are logged (%d for %d decisions)" % (mine, ct.stats["decisions"]))
    st = ct.stats
    check(ct.refused, "cthulhu: stale and forged buttons were tried")
    check(ct.done.get("walk tries", 0) > 0, "cthulhu: a walk back along alice's path (read from the narration) was tried")
    check(st["hand"] >= 1 and ct.previews >= 2 and st["back"] == 1 and st["steps"] + st["walks"] >= 1,
          "cthulhu: the hand, previews, Back and a walk were used: %s, %d previews" % (st, ct.previews))
    print("cthulhu: %d decisions in %.1f s (%s, %d previews, %d attempt(s))"
          % (st["decisions"], time.time() - t0, st, ct.previews, attempt + 1), flush=True)
    return finished


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
    table.faults = True
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
    code = bot.stop()
    check(code == 0, "SIGTERM: exit status 0 (%s)" % code)
    closes = [e for e in fake.all_log() if e.get("kind") == "gw_close"]
    check(closes and closes[-1].get("by") == "client" and closes[-1].get("code") not in (1000, 1001),
          "SIGTERM: the gateway is closed with a resumable code (%s)" % (closes[-1] if closes else None))
    puts_after = len([e for e in fake.all_log() if e.get("kind") == "http" and e["method"] == "PUT"])
    check(puts_after == puts_before, "unchanged commands are not registered again")


def rematch_after_restart(fake, table):
    """/rematch of the channel's finished game, which the started daemon does not keep in
    memory: it is taken up and starts a new game."""
    old_game = int(table.buttons()[0]["custom_id"].split(":")[0]) if table.buttons() else 0
    seen = len(fake.all_log())
    body = interact(fake, table, slash(USERS["alice"], "rematch"))
    check(body and body["data"].get("flags") != 64,
          "/rematch after the restart is accepted: %s" % (body and body["data"]))
    check(not game_over(table) and "Rematch!" in json.dumps(fake.all_log()[seen:]),
          "the rematch after the restart started a game: %s" % table.text()[:200])
    new_game = int(table.buttons()[0]["custom_id"].split(":")[0]) if table.buttons() else 0
    check(new_game > old_game, "the rematch is a new game (%d after %d)" % (new_game, old_game))


def test_restart_freezes(tmp, fake, table):
    """After a stop (SIGTERM) and a start, the first table of a channel still takes the buttons
    off the one the channel showed before the stop; a game that ended before a stop is
    rematched after the start."""
    bot = Bot(tmp, fake, "bot8")
    wait(connected(fake), 15, "the restarted bot connects")
    table.refresh()
    before = table.message_id
    check(table.components, "before the restart the channel's live table has buttons")
    over = game_over(table)
    if over:
        rematch_after_restart(fake, table)
    else:
        play_move(fake, table, use_slash=True)
    check(table.message_id != before, "a new live table after the restart")
    old = api(fake, "GET", "/channels/%s/messages/%s" % (CHANNEL, before))
    check(not old.get("components"), "the table shown before the restart lost its buttons: %s"
          % old.get("components"))
    if not over:
        # the game played to its end, a stop and a start: the rematch is taken up
        for _ in range(300):
            if game_over(table) or not play_move(fake, table, use_slash=False):
                break
        if check(game_over(table), "the game before the second restart ended"):
            bot.proc.send_signal(signal.SIGTERM)
            check(bot.proc.wait(timeout=10) == 0, "the restarted bot stops cleanly")
            bot = Bot(tmp, fake, "bot8b")
            wait(connected(fake), 15, "the bot connects again")
            table.refresh()
            rematch_after_restart(fake, table)
    bot.proc.send_signal(signal.SIGTERM)
    check(bot.proc.wait(timeout=10) == 0, "the restarted bot stops cleanly")


def test_no_session_starts(tmp, fake):
    """GET /gateway/bot says no session starts are left: the bot waits reset_after."""
    # long enough that the daemon asks before the reset: 5 s, stretched by
    # RLYEH_TEST_SLOW like every wait (under valgrind its start-up alone can take 5 s)
    window = 5.0 * SLOW
    fake.fault({"no_session_starts_ms": int(window * 1000)})
    t0 = time.time()
    bot = Bot(tmp, fake, "bot7")
    wait(connected(fake), 30, "the bot connects once the session starts reset")
    elapsed = time.time() - t0
    check(elapsed >= window - 0.2, "no session starts left: waited %.1f s before IDENTIFY" % elapsed)
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
    table = Table(fake, "604")
    body = interact(fake, table, slash(USERS["carol"], "help", channel="604"))
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
    # A response time per interaction answered, none for the other requests:
    # the command registration, and the follow-up that posts the lobby a
    # click on Join makes (its callback only takes the clicked buttons off).
    body = interact(fake, table, slash(USERS["carol"], "open", channel="604"))
    join = [b["custom_id"] for b in table.buttons() if b["custom_id"].endswith(":join")]
    check(len(join) == 1, "a lobby to join in 604")
    body = interact(fake, table, click(USERS["bob"], join[0], channel="604"))
    check(body and body["type"] == 7, "the click on Join answered by type 7")

    def timed_count():
        _, metrics = http_get("http://127.0.0.1:%d/metrics" % port)
        m = re.search(r"^rlyeh_response_seconds_count (\d+)$", metrics or "", re.M)
        return int(m.group(1)) if m else -1
    wait(lambda: timed_count() >= 3, 5, "three response times")
    time.sleep(0.3)
    check(timed_count() == 3, "/metrics times the 3 interactions answered, not the other "
          "requests: %d" % timed_count())
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
    code = bot.stop(timeout=30)
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


def test_batched_commits(tmp):
    """Interactions that come together are committed together: under the fake's unpaced load
    (64 in flight), a commit takes several interactions, where one pass of the event loop
    took one or two."""
    sub = os.path.join(tmp, "batched")
    os.makedirs(sub)
    fake = Fake(sub)
    port = free_port()
    bot = Bot(sub, fake, "bot9", {"RLYEH_HEALTH_PORT": str(port), "RLYEH_LOG_LEVEL": "warning"})
    try:
        wait(connected(fake), 15, "the bot connects")
        time.sleep(0.5)
        fake.call("POST", "/_fake/load", {"channels": 64, "duration_s": 3, "mode": "steady",
                                          "rate": 0, "concurrency": 64, "keep_open": False,
                                          "computer": 0.5, "slash": 0, "seed": 5, "guild": "500"})
        wait(lambda: not fake.call("GET", "/_fake/load")["running"], 60, "the load ends")
        st = fake.call("GET", "/_fake/load")
        status, text = http_get("http://127.0.0.1:%d/metrics" % port)
        commits = [float(l.split()[-1]) for l in text.splitlines()
                   if l.startswith("rlyeh_commits_total")]
        check(status == 200 and commits, "/metrics has rlyeh_commits_total")
        per = st["answered"] / commits[0] if commits and commits[0] else 0
        # At least a full round of the 64 in flight (a slow run, under valgrind, answers
        # few more).
        check(st["answered"] >= 64, "the load is answered: %d answered, %d errors, %d timeouts"
              % (st["answered"], st["errors"], st["timeouts"]))
        check(per >= 4, "several interactions per commit under load: %.2f (%d answered, %d commits)"
              % (per, st["answered"], commits[0] if commits else 0))
        check(st["violations"] == 0, "no violation under load")
    finally:
        bot.stop()
        fake.stop()
    check(TOKEN not in bot.stderr(), "the token is not in the log of bot9")


def timed(fn, *args):
    """Runs one part of the test and says how long it took (on stderr)."""
    t0 = time.time()
    out = fn(*args)
    print("%s: %.1f s" % (fn.__name__, time.time() - t0), file=sys.stderr, flush=True)
    return out


def main():
    tmp = tempfile.mkdtemp(prefix="rlyeh-discord-")
    fake = Fake(tmp)
    bot = None
    try:
        bot = Bot(tmp, fake)
        wait(connected(fake), 15, "the bot connects")
        table = Table(fake, CHANNEL, quiet_users={USERS["carol"]})
        timed(test_full_game, fake, table)
        timed(test_elder_signs_game, fake, Table(fake, ES_CHANNEL))
        timed(test_rival_cults_game, fake)
        timed(test_markdown_names, fake)
        ct_finished = timed(test_cthulhu_game, fake, tmp)
        timed(test_faults, fake, table, tmp)
        timed(test_locked_database, fake, table, tmp)
        timed(test_stalled_api, fake, table, bot)
        check(bot.proc.poll() is None, "the bot survived every fault")
        bot.proc.send_signal(signal.SIGTERM)
        check(bot.proc.wait(timeout=10) == 0, "stopped cleanly")
        timed(test_bodies, fake)
        db = sqlite3.connect(os.path.join(tmp, "rlyeh.db"))
        check(db.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "database integrity")
        finished = db.execute("SELECT count(*) FROM games WHERE state = 2").fetchone()[0]
        check(finished >= 1, "finished games are stored (%d)" % finished)
        es = db.execute("SELECT count(*) FROM games WHERE game = 'elder-signs' AND state = 2").fetchone()[0]
        check(es == 1, "the Elder Signs game is stored finished (%d)" % es)
        ct = db.execute("SELECT count(*) FROM games WHERE game = 'cthulhu' AND state = 2").fetchone()[0]
        check(ct == ct_finished, "every CTHULHU!!! game played to its end is stored finished (%d of %d)"
              % (ct, ct_finished))
        db.close()
        timed(test_sigterm, tmp, fake)
        timed(test_restart_freezes, tmp, fake, table)
        timed(test_no_session_starts, tmp, fake)
        timed(test_systemd_health_reload_compress, tmp, fake)
        timed(test_intents_refused, tmp, fake)
        timed(test_token_refused, tmp, fake)
        timed(test_shutdown_with_stalled_api, tmp, fake)
        timed(test_batched_commits, tmp)
        for name in ("bot", "bot2", "bot3", "bot4", "bot5", "bot6", "bot7", "bot8"):
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
