#!/usr/bin/env python3
"""Checks that the peer answers the load generator's interactions as rlyeh does.

Plays the same scripted tables through the fake Discord against `rlyeh run` and against each
peer flavour (client, core), one bot at a time: alice /open, bob clicks Join, carol /join, alice
clicks Add computer (the second table only) and Start, then the player whose move the table
shows clicks one of its buttons until "Game over", then alice /rematch, bob /status, one more
move. For each bot it collects the requests the bot made for each interaction and checks:

  - the fake saw no protocol violation from the bot;
  - every interaction got its callback, and the same kinds of request as rlyeh's for the same
    interaction kind (callback type 4 / 7 / private, follow-up, edit of the previous table);
  - every table is one the load generator reads: an embed whose title, description and fields
    are rlyeh's templates, buttons whose custom_ids are GAME:MOVE:ACTION with rlyeh's actions
    and labels, the lobby bodies equal to rlyeh's (but the computer player's name);
  - every line of a message's content is one of rlyeh's narration lines.

Usage (from the repository root, after `cd tests/bench/peer && npm ci`):
  tests/bench/peer/check.py [--fake build/tests/fakediscord] [--rlyeh build/rlyeh]
Prints one line per check and "N passed, N failed" last; exits 1 if any failed."""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
TOKEN = "check-token.abc123"
APP = "1000"
GUILD = "500"
NAMES = {"801": "alice", "802": "bob", "803": "carol"}
UA = {"User-Agent": "DiscordBot (check, 1)", "Authorization": "Bot " + TOKEN}

N = r"(alice|bob|carol|\S+-bot-1)"
FACE = r"(Yellow Sign|Tentacle|Elder Sign|Cthulhu)"
LINES = [re.compile("^%s$" % p) for p in (
    r"The game begins: %s casts first\." % N,
    r"Rematch! Same table, the previous winner casts first\.",
    r"Rematch! Same table; Cthulhu won the last game, so the first Caster is drawn\.",
    r"Turn \d+: %s curses %s\." % (N, N),
    r"%s rolls: (%s|Eye)\." % (N, FACE),
    r"%s responds: (%s|Eye)\." % (N, FACE),
    r"The Eye becomes: %s\." % FACE,
    r"%s loses 1 sanity to Cthulhu\." % N,
    r"%s loses 1 sanity to Cthulhu: the Caster, %s, is mad and may not keep the Tentacle's "
    r"token \(R6\)\." % (N, N),
    r"%s takes 1 sanity back from Cthulhu\." % N,
    r"%s takes 1 sanity from %s\." % (N, N),
    r"Nothing happens\.",
    r"%s goes mad!" % N,
    r"%s is sane again\." % N,
    r"%s is the last sane cultist and wins!" % N,
    r"Everyone is mad: Cthulhu wins!",
    r"<@80[123]> — The table waits for you to (curse a Victim: /curse <victim>|respond: "
    r"/respond|choose what the Eye becomes: /eye <Yellow Sign\|Tentacle\|Elder Sign\|Cthulhu>)"
    r"\.",
)]
DESCRIPTIONS = [re.compile("^%s$" % p) for p in (
    r"Game: cthulhu-dice — \d at the table\. Join with /join; the owner adds computer players "
    r"with /addbot and starts with /start\.(\n• %s( \(owner\)| \(computer, \w+\))?)+" % N,
    r"%s is the Caster: choose a Victim with /curse <victim>\." % N,
    r"%s rolled the Eye: choose a face with /eye <face>\." % N,
    r"%s, the Victim, responds to %s: /respond\." % (N, N),
    r"Game over: (%s|Cthulhu) wins\." % N,
)]
BUTTONS = {"join": (1, "Join"), "addbot": (2, "Add computer"), "start": (1, "Start"),
           "leave": (4, "Leave"), "respond": (1, "Respond"), "rematch": (1, "Rematch"),
           "eye:yellow-sign": (1, "Yellow Sign"), "eye:tentacle": (1, "Tentacle"),
           "eye:elder-sign": (1, "Elder Sign"), "eye:cthulhu": (1, "Cthulhu")}

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL", what, flush=True)
    return cond


class Run:
    """A fake and one bot: "rlyeh" or a peer flavour."""

    def __init__(self, args, bot):
        self.tmp = tempfile.mkdtemp(prefix="peer-check-")
        pf = os.path.join(self.tmp, "port")
        self.fake = subprocess.Popen(
            [args.fake, "--port", "0", "--portfile", pf, "--token", TOKEN, "--app-id", APP,
             "--heartbeat-ms", "41250"], stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.tmp, "fake.err"), "w"))
        for _ in range(200):
            if os.path.exists(pf) and open(pf).read().strip():
                break
            time.sleep(0.05)
        self.base = "http://127.0.0.1:%s" % open(pf).read().strip()
        env = dict(os.environ)
        err = open(os.path.join(self.tmp, "bot.err"), "w")
        if bot == "rlyeh":
            env.update({"RLYEH_TOKEN": TOKEN, "RLYEH_API_URL": self.base + "/api/v10",
                        "RLYEH_DATABASE": os.path.join(self.tmp, "rlyeh.db"),
                        "RLYEH_TURN_TIMEOUT": "0", "RLYEH_LOG_LEVEL": "warning",
                        "STATE_DIRECTORY": self.tmp})
            cmd = [args.rlyeh, "run"]
        else:
            env.update({"DISCORD_TOKEN": TOKEN, "DISCORD_API": self.base + "/api"})
            cmd = [args.node, os.path.join(HERE, "peer.js"), bot]
        self.bot = subprocess.Popen(cmd, env=env, cwd=self.tmp, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=err)
        self.next = 0
        self.ids = 880000000000000000
        self.live = None
        self.channel = "700000000000000001"
        end = time.time() + 30
        while time.time() < end and not any(
                e["kind"] == "http" and e["method"] == "PUT" and e["path"].endswith("/commands")
                for e in self.call("GET", "/_fake/log?since=0")["entries"]):
            time.sleep(0.1)
        time.sleep(0.3)
        self.setup = self.log()

    def call(self, method, path, body=None, headers=None):
        req = urllib.request.Request(self.base + path, method=method,
                                     data=json.dumps(body).encode() if body is not None else None,
                                     headers=dict(headers or {}, **{"Content-Type":
                                                                    "application/json"}))
        with urllib.request.urlopen(req, timeout=10) as f:
            text = f.read().decode()
        return json.loads(text) if text else None

    def log(self):
        out = self.call("GET", "/_fake/log?since=%d" % self.next)
        self.next = out["next"]
        return out["entries"]

    def send(self, user, what, click=False, options=None):
        """Dispatches one interaction; returns the log entries it caused once quiet."""
        self.ids += 7
        iid = str(self.ids)
        d = {"id": iid, "type": 3 if click else 2, "token": "tok" + iid, "guild_id": GUILD,
             "channel_id": self.channel,
             "member": {"user": {"id": user, "username": NAMES[user],
                                 "global_name": NAMES[user]}}}
        if click:
            d["data"] = {"custom_id": what, "component_type": 2}
            d["message"] = {"id": self.live, "channel_id": self.channel}
        else:
            d["data"] = {"id": "77", "name": what, "type": 1}
            if options:
                d["data"]["options"] = options
        self.call("POST", "/_fake/dispatch", {"t": "INTERACTION_CREATE", "d": d})
        entries, quiet = [], 0
        end = time.time() + 5
        while time.time() < end and quiet < 3:
            time.sleep(0.1)
            new = self.log()
            entries += new
            quiet = 0 if new or not any(
                e["kind"] == "http" and e["path"].endswith("/callback") for e in entries) \
                else quiet + 1
        # (not the requests this script makes to find message ids)
        return [e for e in entries if e["kind"] == "violation" and "(check, 1)" not in e["what"]
                or e["kind"] == "http" and (e.get("headers") or {}).get("User-Agent") != UA[
                    "User-Agent"]]

    def original(self, token):
        req = urllib.request.Request(
            self.base + "/api/v10/webhooks/%s/%s/messages/@original" % (APP, token), headers=UA)
        with urllib.request.urlopen(req, timeout=5) as f:
            return json.loads(f.read())["id"]

    def newest_message(self):
        req = urllib.request.Request(
            self.base + "/api/v10/channels/%s/messages?limit=1" % self.channel, headers=UA)
        with urllib.request.urlopen(req, timeout=5) as f:
            return json.loads(f.read())[0]["id"]

    def stop(self):
        self.bot.terminate()
        try:
            self.bot.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.bot.kill()
        try:
            self.call("POST", "/_fake/shutdown", {})
        except OSError:
            pass
        self.fake.wait(timeout=10)
        shutil.rmtree(self.tmp, ignore_errors=True)


def kinds(entries):
    """The kinds of request a bot made for one interaction, in order."""
    out = []
    for e in entries:
        if e["kind"] != "http":
            continue
        body = json.loads(e["body"]) if e.get("body") else {}
        if e["path"].endswith("/callback"):
            priv = (body.get("data") or {}).get("flags", 0) & 64
            out.append("callback %s%s" % (body.get("type"), " private" if priv else ""))
        elif e["method"] == "POST" and "/webhooks/" in e["path"]:
            out.append("follow-up")
        elif e["method"] == "PATCH" and "/webhooks/" in e["path"]:
            out.append("edit %s" % ",".join(sorted(k for k in body if k not in (
                "tts", "enforce_nonce") or body[k] is not False)))
        else:
            out.append("%s %s" % (e["method"], re.sub(r"\d{6,}", ":id", e["path"])))
    return out


def table_body(entries):
    """The public table among the requests (a body with an embed and buttons), or None."""
    for e in entries:
        if e["kind"] != "http" or not e.get("body"):
            continue
        body = json.loads(e["body"])
        if e["path"].endswith("/callback"):
            if body.get("type") not in (4, 7) or (body["data"].get("flags", 0) & 64):
                continue
            body = body["data"]
        if body.get("embeds") and body.get("components"):
            # discord.js sends the defaults "tts": false and "enforce_nonce": false
            return e, {k: v for k, v in body.items()
                       if not (k in ("tts", "enforce_nonce") and v is False)}
    return None, None


def check_table(bot, body, what):
    e0 = body["embeds"][0]
    check(re.match(r"^(A table is open|Cthulhu Dice — turn \d+)$", e0.get("title", "")),
          "%s: %s: embed title %r" % (bot, what, e0.get("title")))
    check(any(p.match(e0.get("description", "")) for p in DESCRIPTIONS),
          "%s: %s: embed description %r" % (bot, what, e0.get("description")))
    for f in e0.get("fields", []):
        check(re.match(r"^(\d+ sanity|mad)( · (Caster|Victim))?$", f["value"]),
              "%s: %s: field %r" % (bot, what, f))
    for line in (body.get("content") or "").split("\n") if body.get("content") else []:
        check(any(p.match(line) for p in LINES), "%s: %s: content line %r" % (bot, what, line))
    for row in body["components"]:
        for b in row["components"]:
            m = re.match(r"^\d+:\d+:(.+)$", b.get("custom_id", ""))
            ok = m and (m.group(1) in BUTTONS and BUTTONS[m.group(1)] == (b["style"], b["label"])
                        or re.match(r"^curse:#\d$", m.group(1)) and b["style"] == 4)
            check(ok, "%s: %s: button %r" % (bot, what, b))


def play(run, bot, addbot, seed, channel):
    """One scripted table in channel; returns [(interaction kind, request kinds, table body)]."""
    rng = random.Random(seed)
    run.channel = channel
    run.live = None
    out = []

    def step(user, what, click=False, options=None, label=None):
        entries = run.send(user, what, click, options)
        for e in entries:
            if e["kind"] == "violation" and "check, 1" not in json.dumps(e):
                check(False, "%s: %s: violation %s" % (bot, label or what, e["what"]))
        ks = kinds(entries)
        check(any(k.startswith("callback") for k in ks),
              "%s: %s: answered (%s)" % (bot, label or what, ks))
        e, body = table_body(entries)
        if body is not None:
            check_table(bot, body, label or what)
            if e["path"].endswith("/callback") and json.loads(e["body"])["type"] == 4:
                run.live = run.original(e["path"].split("/")[5])
            else:
                run.live = run.newest_message()
        out.append((label or what, ks, body))
        return body

    body = step("801", "open")
    prefix = body["components"][0]["components"][0]["custom_id"].split(":")[0]
    body = step("802", "%s:0:join" % prefix, True, label="join (click)") or body
    body = step("803", "join", label="join (slash)") or body
    lobby = body
    if addbot:
        body = step("801", "%s:0:addbot" % prefix, True, label="addbot (click)") or body
    body = step("801", "%s:0:start" % prefix, True, label="start (click)") or body
    rematched = False
    for _ in range(200):
        d = body["embeds"][0]["description"]
        ids = [b["custom_id"] for r in body["components"] for b in r["components"]]
        if d.startswith("Game over"):
            if rematched:
                break
            rematched = True
            body = step("801", "rematch", label="rematch (slash)") or body
            step("802", "status", label="status (slash)")
            continue
        actor = next(u for u, n in NAMES.items() if d.startswith(n + " ") or
                     d.startswith(n + ","))
        part = (":curse:" if " is the Caster" in d else ":eye:" if " rolled the Eye" in d
                else ":respond")
        body = step(actor, rng.choice([i for i in ids if part in i]), True,
                    label=part.strip(":") + " (click)") or body
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--fake", default=os.path.join(ROOT, "build", "tests", "fakediscord"))
    p.add_argument("--rlyeh", default=os.path.join(ROOT, "build", "rlyeh"))
    p.add_argument("--node", default="node")
    p.add_argument("--peers", default="client,core")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    args.fake, args.rlyeh = os.path.abspath(args.fake), os.path.abspath(args.rlyeh)
    if not os.path.isdir(os.path.join(HERE, "node_modules")):
        sys.exit("check.py: the peer is not installed: cd tests/bench/peer && npm ci")
    results = {}
    for bot in ["rlyeh"] + args.peers.split(","):
        run = Run(args, bot)
        try:
            check(not [e for e in run.setup if e["kind"] == "violation"],
                  "%s: no violation while connecting (%s)" % (bot, [
                      e["what"] for e in run.setup if e["kind"] == "violation"]))
            results[bot] = (play(run, bot, False, args.seed, "700000000000000001") +
                            play(run, bot, True, args.seed + 1, "700000000000000002"))
        finally:
            run.stop()
        print("%s: %d interactions answered" % (bot, len(results[bot])), flush=True)
    # The same kinds of request for the same kind of interaction as rlyeh.
    ref = {}
    for what, ks, _ in results["rlyeh"]:
        ref.setdefault(what, set()).add(tuple(ks))
    for bot in args.peers.split(","):
        for what, ks, _ in results[bot]:
            check(tuple(ks) in ref.get(what, set()),
                  "%s: %s: requests %s, rlyeh's %s" % (bot, what, ks, sorted(ref.get(what, []))))
        # The lobbies: the same bodies as rlyeh's but the game ids and the computer's name.
        def lobbies(b):
            norm = [re.sub(r'"\d+:0:', '"G:0:', re.sub(r"\S+-bot-1 \(computer, \w+\)", "BOT",
                                                       json.dumps(body)))
                    for _, _, body in results[b]
                    if body and body["embeds"][0]["title"] == "A table is open"]
            return norm
        mine, theirs = lobbies(bot), lobbies("rlyeh")
        check(len(mine) == len(theirs) and len(mine) >= 7,
              "%s: %d lobby tables, rlyeh %d" % (bot, len(mine), len(theirs)))
        for a, b in zip(mine, theirs):
            check(a == b, "%s: lobby body %s, rlyeh's %s" % (bot, a, b))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
