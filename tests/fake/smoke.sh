#!/bin/sh
# Smoke test of the fake Discord: HTTP API, gateway, control endpoints, file uploads, interactions
# as Discord sends them, the interaction routes without Authorization, ?with_response, mentions
# and whom they ping, edits that drop buttons, the load generator on live and frozen tables.
# Usage: smoke.sh FAKEDISCORD
set -u
FAKE=${1:?usage: smoke.sh FAKEDISCORD}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fakediscord-smoke.XXXXXX")
trap 'kill "$PID" 2>/dev/null; rm -rf "$TMP"' EXIT INT TERM

"$FAKE" --port 0 --portfile "$TMP/port" --token smoke-token --app-id 1000 --heartbeat-ms 300 \
	>"$TMP/fake.out" 2>&1 &
PID=$!

python3 - "$TMP/port" <<'EOF'
import base64, hashlib, json, os, socket, struct, sys, threading, time, urllib.error, urllib.request, zlib

portfile = sys.argv[1]
for _ in range(100):
    if os.path.exists(portfile) and open(portfile).read().strip():
        break
    time.sleep(0.05)
else:
    print("the fake did not write its port file")
    print("0 passed, 1 failed")
    sys.exit(1)
PORT = int(open(portfile).read())
BASE = "http://127.0.0.1:%d" % PORT
TOKEN = "smoke-token"
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL", what, flush=True)
    return cond


def http(method, path, body=None, token=TOKEN, raw=None):
    """(status, headers, parsed JSON body or None)."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    headers = {"User-Agent": "DiscordBot (smoke, 1)"}
    if data is not None:
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = "Bot " + token
    req = urllib.request.Request(BASE + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            status, hdrs, text = r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        status, hdrs, text = e.code, e.headers, e.read()
    return status, hdrs, json.loads(text) if text else None


def ctl(method, path, body=None):
    return http(method, path, body, token=None)[2]


class WS:
    """A minimal websocket client: handshake, masked frames, reassembly."""

    def __init__(self, path="/?v=10&encoding=json"):
        self.s = socket.create_connection(("127.0.0.1", PORT), timeout=5)
        key = base64.b64encode(os.urandom(16)).decode()
        self.s.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
                        "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                        "Sec-WebSocket-Version: 13\r\n\r\n" % (path, PORT, key)).encode())
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            chunk = self.s.recv(4096)
            if not chunk:
                raise EOFError("handshake")
            self.buf += chunk
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        self.lock, self.done = threading.Lock(), False
        self.status = int(head.split()[1])
        self.inflater = zlib.decompressobj() if "zlib-stream" in path else None

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.s.recv(65536)
            if not chunk:
                raise EOFError("closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def send_frame(self, opcode, payload):
        head = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack("!Q", n)
        mask = os.urandom(4)
        self.s.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def send(self, obj):
        with self.lock:
            self.send_frame(1, json.dumps(obj).encode())

    def beat(self, every=0.2):
        """Heartbeats from a thread until the connection closes (ACKs are left unread)."""
        def run():
            while not self.done:
                try:
                    self.send({"op": 1, "d": None})
                except OSError:
                    return
                time.sleep(every)
        threading.Thread(target=run, daemon=True).start()

    def recv_message(self):
        """(opcode, payload) of the next complete message; answers pings."""
        data, first = b"", None
        while True:
            b0, b1 = self._read(2)
            op, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._read(8))[0]
            payload = self._read(n)
            if op == 9:
                with self.lock:
                    self.send_frame(10, payload)
                continue
            if op == 8:
                return 8, payload
            if op != 0:
                first = op
            data += payload
            if b0 & 0x80:
                return first, data

    def recv(self):
        """The next gateway payload as JSON (("close", code) for a close frame)."""
        op, data = self.recv_message()
        if op == 8:
            return ("close", struct.unpack("!H", data[:2])[0] if len(data) >= 2 else None)
        if self.inflater is not None:
            data = self.inflater.decompress(data)
        return json.loads(data)

    def recv_until(self, cond, limit=50):
        for _ in range(limit):
            m = self.recv()
            if isinstance(m, tuple) or cond(m):
                return m
        return None

    def close(self, code=4000):
        self.done = True
        try:
            self.send_frame(8, struct.pack("!H", code))
            self.s.close()
        except OSError:
            pass


def interaction(iid, kind=2, message_id=None):
    d = {"id": iid, "application_id": "1000", "type": kind, "token": "tok" + iid, "version": 1,
         "guild_id": "500", "channel_id": "600", "locale": "en-US",
         "member": {"user": {"id": "1001", "username": "alice"}, "permissions": "0"},
         "data": {"id": "77", "name": "open", "type": 1}}
    if message_id:
        d["message"] = {"id": message_id, "channel_id": "600"}
        d["data"] = {"custom_id": "g:1:join", "component_type": 2}
    return d


t0 = time.time()
try:
    # HTTP API: token, gateway URL, rate-limit headers, unknown routes.
    st, hd, gw = http("GET", "/api/v10/gateway/bot")
    check(st == 200 and gw["url"] == "ws://127.0.0.1:%d" % PORT, "GET /gateway/bot: %s %s" % (st, gw))
    check(gw and gw["session_start_limit"]["max_concurrency"] == 1, "session_start_limit")
    check(hd.get("X-RateLimit-Limit") == "5" and hd.get("X-RateLimit-Bucket"), "rate-limit headers")
    st, _, body = http("GET", "/api/v10/gateway/bot", token=None)
    check(st == 401 and body == {"message": "401: Unauthorized", "code": 0}, "no token: 401 (%s)" % st)
    st, _, _ = http("GET", "/api/v10/gateway/bot", token="wrong")
    check(st == 401, "wrong token: 401 (%s)" % st)
    st, _, body = http("GET", "/api/v10/nowhere")
    check(st == 404 and body["code"] == 0, "unknown route: 404 (%s)" % st)

    # Gateway: HELLO, IDENTIFY -> READY, HEARTBEAT -> ACK.
    ws = WS()
    check(ws.status == 101, "websocket upgrade (%s)" % ws.status)
    hello = ws.recv()
    check(hello["op"] == 10 and hello["d"]["heartbeat_interval"] == 300, "HELLO: %s" % hello)
    ws.send({"op": 2, "d": {"token": TOKEN, "intents": 0,
                            "properties": {"os": "linux", "browser": "smoke", "device": "smoke"}}})
    identified = time.time()
    ready = ws.recv()
    check(ready["op"] == 0 and ready["t"] == "READY" and ready["s"] == 1, "READY: %s" % ready)
    check(ready["d"]["user"]["id"] == "1000" and ready["d"]["session_id"], "READY user and session")
    check(ready["d"]["resume_gateway_url"].startswith("ws://127.0.0.1:%d" % PORT), "resume URL")
    ws.send({"op": 1, "d": 1})
    ack = ws.recv()
    check(ack["op"] == 11, "HEARTBEAT ACK: %s" % ack)
    state = ctl("GET", "/_fake/state")
    check(state["connected"] and state["identifies"] == 1 and state["sessions"] == 1,
          "state after IDENTIFY: %s" % state)

    # A dispatched interaction arrives with the next sequence number.
    res = ctl("POST", "/_fake/dispatch", {"t": "INTERACTION_CREATE", "d": interaction("880001")})
    check(res == {"s": 2}, "dispatch answer: %s" % res)
    ev = ws.recv_until(lambda m: m.get("op") == 0)
    check(ev and ev["t"] == "INTERACTION_CREATE" and ev["s"] == 2 and ev["d"]["id"] == "880001",
          "INTERACTION_CREATE with s 2: %s" % ev)

    # The callback is accepted once; the second answer is refused.
    cb = {"type": 4, "data": {"content": "hello", "embeds": [{"title": "t", "description": "d"}],
                              "components": [{"type": 1, "components": [
                                  {"type": 2, "style": 1, "label": "Join", "custom_id": "g:1:join"}]}]}}
    path = "/api/v10/interactions/880001/tok880001/callback"
    st, _, body = http("POST", path, cb)
    check(st == 204 and body is None, "first callback: 204 (%s %s)" % (st, body))
    st, _, body = http("POST", path, cb)
    check(st == 400 and body == {"message": "Interaction has already been acknowledged.",
                                 "code": 40060}, "second callback: 400 (%s %s)" % (st, body))

    # A 429 fault is answered as Discord does.
    ok = ctl("POST", "/_fake/fault", {"http": {"status": 429, "retry_after": 0.3, "global": False,
                                               "count": 1, "path_prefix": "/api/v10/channels"}})
    check(ok.get("ok") is True, "fault accepted: %s" % ok)
    msg = {"content": "table"}
    st, hd, body = http("POST", "/api/v10/channels/600/messages", msg)
    check(st == 429 and body and body.get("retry_after") == 0.3 and body.get("global") is False,
          "429 body: %s %s" % (st, body))
    check(hd.get("Retry-After") and hd.get("X-RateLimit-Scope") == "user", "429 headers")
    st, _, body = http("POST", "/api/v10/channels/600/messages", msg)
    check(st == 200 and body and body.get("id") and body.get("channel_id") == "600",
          "message after the 429: %s %s" % (st, body))

    # The log holds all of it.
    log = ctl("GET", "/_fake/log?since=0")
    entries = log["entries"]
    check(log["next"] == len(entries) and [e["n"] for e in entries] == list(range(len(entries))),
          "log numbering")
    kinds = [e["kind"] for e in entries]
    for k in ("http", "gw_open", "gw_in", "gw_out"):
        check(k in kinds, "log has %s entries" % k)
    ident = [e for e in entries if e["kind"] == "gw_in" and e["op"] == 2]
    check(ident and ident[0]["d"]["token"] == "<token>", "IDENTIFY logged, token redacted")
    cbs = [e for e in entries if e["kind"] == "http" and e["path"] == path]
    check([e["status"] for e in cbs] == [204, 400], "callbacks logged: %s" % [e.get("status") for e in cbs])
    check(cbs and json.loads(cbs[0]["body"]) == cb and cbs[0]["headers"].get("Authorization") == "<token>",
          "callback body and redacted token logged")
    noauth = [e for e in entries if e["kind"] == "http" and e["status"] == 401]
    check(len(noauth) == 2 and "Authorization" not in noauth[0]["headers"]
          and noauth[1]["headers"]["Authorization"] == "<wrong>", "401s logged")
    faulted = [e for e in entries if e["kind"] == "http_fault" and e["status"] == 429]
    check(len(faulted) == 1, "the 429 is logged as http_fault")
    outs = [e for e in entries if e["kind"] == "gw_out" and e.get("t") == "INTERACTION_CREATE"]
    check(outs and outs[0]["s"] == 2, "dispatch logged")
    since = ctl("GET", "/_fake/log?since=%d" % (log["next"] - 1))
    check(len(since["entries"]) == 1 and since["entries"][0]["n"] == log["next"] - 1, "log since=N")
    # Files: multipart/form-data on the routes that make or edit a message.
    def png(w, h, seed):
        def chunk(kind, data):
            return (struct.pack("!I", len(data)) + kind + data
                    + struct.pack("!I", zlib.crc32(kind + data) & 0xffffffff))
        rows = b"".join(b"\x00" + bytes((seed + x + y) % 256 for x in range(3 * w)) for y in range(h))
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack("!IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))

    def form(payload, files, boundary="smoke-7f3a", raw_payload=None, close=True):
        """(body, Content-Type) with payload_json and files [(name, filename, type, bytes)]."""
        b = boundary.encode()
        out = b""
        if payload is not None or raw_payload is not None:
            data = raw_payload if raw_payload is not None else json.dumps(payload).encode()
            out += (b"--" + b + b'\r\nContent-Disposition: form-data; name="payload_json"\r\n'
                    b"Content-Type: application/json\r\n\r\n" + data + b"\r\n")
        for name, filename, ctype, data in files:
            out += b"--" + b + ('\r\nContent-Disposition: form-data; name="%s"; filename="%s"\r\n'
                                % (name, filename)).encode()
            if ctype:
                out += ("Content-Type: %s\r\n" % ctype).encode()
            out += b"\r\n" + data + b"\r\n"
        if close:
            out += b"--" + b + b"--\r\n"
        return out, "multipart/form-data; boundary=" + boundary

    def post_form(method, path, payload, files, token=TOKEN, **kw):
        body, ctype = form(payload, files, **kw)
        headers = {"User-Agent": "DiscordBot (smoke, 1)", "Content-Type": ctype}
        if token:
            headers["Authorization"] = "Bot " + token
        req = urllib.request.Request(BASE + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                status, text = r.status, r.read()
        except urllib.error.HTTPError as e:
            status, text = e.code, e.read()
        return status, json.loads(text) if text else None

    def stored(mid):
        return ctl("GET", "/_fake/message?id=%s" % mid)

    def sha1(data):
        return hashlib.sha1(data).hexdigest()

    png1, png2, png3 = png(3, 2, 1), png(4, 4, 2), png(5, 1, 3)
    board = {"title": "Move 1", "image": {"url": "attachment://board.png"}}
    st, msg = post_form("POST", "/api/v10/channels/600/messages",
                        {"content": "the map", "embeds": [board],
                         "attachments": [{"id": 0, "filename": "board.png"}]},
                        [("files[0]", "board.png", "image/png", png1)])
    check(st == 200 and msg["embeds"][0]["image"]["url"] == "attachment://board.png",
          "a message with a picture: %s %s" % (st, msg))
    check(msg and msg["attachments"] == [], "a picture that an embed uses is not listed: %s"
          % (msg and msg["attachments"]))
    mid = msg["id"]
    s1 = stored(mid)["attachments"]
    check(len(s1) == 1 and s1[0]["filename"] == "board.png" and s1[0]["size"] == len(png1)
          and s1[0]["sha1"] == sha1(png1) and s1[0]["content_type"] == "image/png"
          and (s1[0]["width"], s1[0]["height"]) == (3, 2), "the picture as stored: %s" % s1)
    ent = [e for e in ctl("GET", "/_fake/log?since=0")["entries"]
           if e["kind"] == "http" and e["path"] == "/api/v10/channels/600/messages"][-1]
    check(json.loads(ent["body"])["attachments"] == [{"id": 0, "filename": "board.png"}]
          and ent["files"] == [{"name": "files[0]", "filename": "board.png", "content_type": "image/png",
                                "size": len(png1), "sha1": sha1(png1)}],
          "the log holds payload_json as the body and the files described: %s" % ent)

    # An edit replaces the picture: attachments lists what stays, new files by placeholder.
    st, msg = post_form("PATCH", "/api/v10/channels/600/messages/" + mid,
                        {"embeds": [dict(board, title="Move 2")],
                         "attachments": [{"id": 0, "filename": "board.png"}]},
                        [("files[0]", "board.png", "image/png", png2)])
    s2 = stored(mid)["attachments"]
    check(st == 200 and len(s2) == 1 and s2[0]["sha1"] == sha1(png2) and s2[0]["id"] != s1[0]["id"]
          and (s2[0]["width"], s2[0]["height"]) == (4, 4), "an edit replaces the picture: %s %s" % (st, s2))
    st, _, msg = http("PATCH", "/api/v10/channels/600/messages/" + mid,
                   {"content": "kept", "attachments": [{"id": s2[0]["id"]}]})
    check(st == 200 and stored(mid)["attachments"] == s2, "a JSON edit keeps a listed attachment")
    st, msg = post_form("PATCH", "/api/v10/channels/600/messages/" + mid, {"content": "appended"},
                        [("files[0]", "legend.png", "image/png", png3)])
    s3 = stored(mid)["attachments"]
    check(st == 200 and [a["filename"] for a in s3] == ["board.png", "legend.png"]
          and [a["filename"] for a in msg["attachments"]] == ["legend.png"]
          and msg["attachments"][0]["size"] == len(png3) and msg["attachments"][0]["width"] == 5,
          "an edit without attachments appends: %s %s" % (s3, msg and msg["attachments"]))

    # Interactions and their webhooks take files too.
    ctl("POST", "/_fake/dispatch", {"t": "INTERACTION_CREATE", "d": interaction("880002")})
    st, body = post_form("POST", "/api/v10/interactions/880002/tok880002/callback",
                         {"type": 4, "data": {"embeds": [board],
                                              "attachments": [{"id": "0", "filename": "board.png"}]}},
                         [("files[0]", "board.png", "image/png", png1)])
    check(st == 204, "a callback (type 4) with a picture: %s %s" % (st, body))
    st, _, orig = http("GET", "/api/v10/webhooks/1000/tok880002/messages/@original")
    check(st == 200 and stored(orig["id"])["attachments"][0]["sha1"] == sha1(png1),
          "the original response has the picture")
    st, msg = post_form("PATCH", "/api/v10/webhooks/1000/tok880002/messages/@original",
                        {"attachments": [{"id": 7, "filename": "board.png"}]},
                        [("files[7]", "board.png", "image/png", png2)])
    check(st == 200 and [a["sha1"] for a in stored(orig["id"])["attachments"]] == [sha1(png2)],
          "editing @original replaces the picture (placeholder 7): %s %s" % (st, msg))
    st, msg = post_form("POST", "/api/v10/webhooks/1000/tok880002",
                        {"content": "a followup", "attachments": [{"id": 0, "filename": "key.png"}]},
                        [("files[0]", "key.png", "image/png", png3)])
    check(st == 200 and [(a["filename"], a["size"], a["content_type"]) for a in msg["attachments"]]
          == [("key.png", len(png3), "image/png")], "a followup with a file: %s %s" % (st, msg))
    ctl("POST", "/_fake/dispatch", {"t": "INTERACTION_CREATE", "d": interaction("880003", 3, mid)})
    st, body = post_form("POST", "/api/v10/interactions/880003/tok880003/callback",
                         {"type": 7, "data": {"embeds": [board],
                                              "attachments": [{"id": 0, "filename": "board.png"}]}},
                         [("files[0]", "board.png", "image/png", png1)])
    check(st == 204 and [a["sha1"] for a in stored(mid)["attachments"]] == [sha1(png1)],
          "a callback (type 7) replaces the clicked message's picture: %s %s" % (st, body))

    # What Discord would refuse: 400 (413 for a file over the limit), a violation each,
    # nothing changed.
    before = ctl("GET", "/_fake/state")["violations"]
    chan = "/api/v10/channels/600/messages"
    bad = [
        ("an id with no files[n]", "POST", chan,
         {"content": "x", "attachments": [{"id": 1, "filename": "board.png"}]},
         [("files[0]", "board.png", "image/png", png1)], {}, 400),
        ("an embed naming no attachment", "POST", chan,
         {"embeds": [{"image": {"url": "attachment://missing.png"}}],
          "attachments": [{"id": 0, "filename": "board.png"}]},
         [("files[0]", "board.png", "image/png", png1)], {}, 400),
        ("image/png without the PNG signature", "POST", chan,
         {"content": "x", "attachments": [{"id": 0, "filename": "board.png"}]},
         [("files[0]", "board.png", "image/png", b"GIF89a not a png")], {}, 400),
        ("a file not listed in attachments", "POST", chan,
         {"content": "x", "attachments": [{"id": 0, "filename": "board.png"}]},
         [("files[0]", "board.png", "image/png", png1), ("files[1]", "b.png", "image/png", png2)], {}, 400),
        ("keeping an attachment the message has not", "PATCH", chan + "/" + mid,
         {"attachments": [{"id": "123456789012345678"}]}, [], {}, 400),
        ("eleven files", "POST", chan,
         {"content": "x"}, [("files[%d]" % i, "f%d.png" % i, "image/png", png1) for i in range(11)], {}, 400),
        ("a text file in an embed", "POST", chan,
         {"embeds": [{"image": {"url": "attachment://notes.txt"}}],
          "attachments": [{"id": 0, "filename": "notes.txt"}]},
         [("files[0]", "notes.txt", "text/plain", b"notes")], {}, 400),
        ("a file without a filename", "POST", chan, {"content": "x"},
         [("files[0]", "", "image/png", png1)], {}, 400),
        ("a field that is neither", "POST", chan, {"content": "x"},
         [("file", "board.png", "image/png", png1)], {}, 400),
        ("no close delimiter", "POST", chan, {"content": "x"},
         [("files[0]", "board.png", "image/png", png1)], {"close": False}, 400),
        ("no payload_json", "POST", chan, None,
         [("files[0]", "board.png", "image/png", png1)], {}, 400),
        ("payload_json not JSON", "POST", chan, None,
         [("files[0]", "board.png", "image/png", png1)], {"raw_payload": b"{nope"}, 400),
        ("files on a route without them", "PUT", "/api/v10/applications/1000/commands", [],
         [("files[0]", "board.png", "image/png", png1)], {}, 400),
        ("files with callback type 5", "POST", "/api/v10/interactions/880004/tok880004/callback",
         {"type": 5}, [("files[0]", "board.png", "image/png", png1)], {}, 400),
        ("a file over 10 MiB", "POST", chan, {"content": "x"},
         [("files[0]", "big.bin", "application/octet-stream", b"\0" * (10 * 1024 * 1024 + 1))], {}, 413),
    ]
    ctl("POST", "/_fake/dispatch", {"t": "INTERACTION_CREATE", "d": interaction("880004")})
    count = len([m for m in http("GET", chan)[2]])
    for what, method, path, payload, files, kw, want in bad:
        st, body = post_form(method, path, payload, files, **kw)
        check(st == want and isinstance(body, dict) and isinstance(body.get("code"), int)
              and body.get("message"), "%s: %s %s" % (what, st, body))
        if want == 413:
            check(body["code"] == 40005, "413 with code 40005: %s" % body)
    check(ctl("GET", "/_fake/state")["violations"] == before + len(bad),
          "one violation each: %d" % (ctl("GET", "/_fake/state")["violations"] - before))
    check(len(http("GET", chan)[2]) == count and [a["sha1"] for a in stored(mid)["attachments"]]
          == [sha1(png1)], "refused requests change nothing")
    viols = [e["what"] for e in ctl("GET", "/_fake/log?since=0")["entries"] if e["kind"] == "violation"]
    for words in ("id 1 is no files[1]", "missing.png", "PNG signature", "files[1] is not listed",
                  "no attachment of the message", "11 files", "only .jpg", "no filename",
                  "neither payload_json nor files[n]", "malformed multipart", "without a payload_json",
                  "payload_json is not JSON", "takes no files", "type 5 carries no files",
                  "a file over"):
        check(any(words in v for v in viols), "a violation says: " + words)
    ws.close()

    # A shard id not below the count: closed with 4010, no session (nor a session start).
    ws = WS()
    ws.recv()
    ws.send({"op": 2, "d": {"token": TOKEN, "intents": 0, "shard": [1, 1],
                            "properties": {"os": "linux", "browser": "smoke", "device": "smoke"}}})
    m = ws.recv_until(lambda m: False, 5)
    check(m == ("close", 4010), "IDENTIFY with shard [1, 1]: closed with 4010 (%s)" % (m,))
    ws.close()

    # A new session (after the 5 s Discord asks between IDENTIFYs), sharded: READY as Discord
    # sends it, with the guild seen in dispatches as unavailable.
    time.sleep(max(0.0, 5.2 - (time.time() - identified)))
    ws = WS()
    ws.recv()
    ws.send({"op": 2, "d": {"token": TOKEN, "intents": 0, "shard": [0, 1],
                            "properties": {"os": "linux", "browser": "smoke", "device": "smoke"}}})
    ready = ws.recv()
    ws.beat()
    rd = ready.get("d", {})
    check(ready.get("t") == "READY" and rd.get("v") == 10 and rd.get("shard") == [0, 1]
          and rd.get("application") == {"id": "1000", "flags": 0}
          and {"id": "500", "unavailable": True} in rd.get("guilds", [])
          and rd.get("user", {}).get("bot") is True and rd.get("session_id")
          and rd.get("resume_gateway_url"), "READY with shard, guilds, application: %s" % rd)

    def dispatched(d):
        """Dispatches d and returns the INTERACTION_CREATE's d as the bot receives it."""
        ctl("POST", "/_fake/dispatch", {"t": "INTERACTION_CREATE", "d": d})
        ev = ws.recv_until(lambda m: m.get("op") == 0 and m.get("t") == "INTERACTION_CREATE")
        return ev["d"] if isinstance(ev, dict) else {}

    # 1. An interaction carries every field of Discord's Interaction object; what the test gave
    # stays as it was.
    d = dispatched(interaction("880010"))
    want = ("id", "application_id", "type", "data", "guild", "guild_id", "channel", "channel_id",
            "member", "token", "version", "app_permissions", "locale", "guild_locale",
            "entitlements", "authorizing_integration_owners", "context", "attachment_size_limit")
    check(all(k in d for k in want) and "user" not in d,
          "a guild interaction has every field: missing %s" % [k for k in want if k not in d])
    check(d.get("guild") == {"id": "500", "locale": "en-US", "features": []}
          and d.get("version") == 1 and d.get("entitlements") == [] and d.get("context") == 0
          and d.get("authorizing_integration_owners") == {"0": "500"}
          and isinstance(d.get("app_permissions"), str) and d["app_permissions"].isdigit()
          and d.get("attachment_size_limit") == 10 * 1024 * 1024, "guild fields: %s" % d)
    ch = d.get("channel", {})
    check(ch.get("id") == "600" and ch.get("type") == 0 and ch.get("guild_id") == "500"
          and ch.get("name") and ch.get("permissions", "").isdigit(), "partial channel: %s" % ch)
    mem = d.get("member", {})
    u = mem.get("user", {})
    check(u.get("id") == "1001" and u.get("username") == "alice" and u.get("discriminator") == "0"
          and "global_name" in u and "avatar" in u and "public_flags" in u,
          "the member's user completed, its username kept: %s" % u)
    check(mem.get("permissions") == "0" and mem.get("roles") == [] and mem.get("joined_at")
          and mem.get("deaf") is False and mem.get("mute") is False and mem.get("flags") == 0
          and mem.get("pending") is False and "nick" in mem and "avatar" in mem,
          "the member completed, its permissions kept: %s" % mem)
    dm = interaction("880011")
    for k in ("guild_id", "member"):
        dm.pop(k)
    dm["user"] = {"id": "1009", "username": "dora"}
    d = dispatched(dm)
    check(d.get("context") == 1 and "guild" not in d and "guild_locale" not in d
          and "member" not in d and d.get("user", {}).get("discriminator") == "0"
          and d.get("authorizing_integration_owners") == {"0": "0"}
          and d.get("channel", {}).get("type") == 1 and d.get("locale") == "en-US",
          "a DM interaction: user, context 1, a DM channel: %s" % d)

    # A table message: content, a picture in its embed, buttons.
    buttons = [{"type": 1, "components": [
        {"type": 2, "style": 1, "label": "Join", "custom_id": "5:1:join"}]}]
    st, table = post_form("POST", "/api/v10/channels/600/messages",
                          {"content": "table", "embeds": [board], "components": buttons,
                           "attachments": [{"id": 0, "filename": "board.png"}]},
                          [("files[0]", "board.png", "image/png", png1)])
    tid = table["id"]
    d = dispatched(interaction("880012", 3, tid))
    check(d.get("message", {}).get("id") == tid and d["message"].get("components") == buttons
          and d["message"].get("content") == "table"
          and d["message"].get("embeds") == table["embeds"],
          "a click carries the clicked message as stored: %s" % d.get("message"))

    # 2. The interaction routes take the interaction's token alone.
    st, _, body = http("POST", "/api/v10/interactions/880010/tok880010/callback",
                       {"type": 4, "data": {"content": "no auth"}}, token=None)
    check(st == 204 and body is None, "a callback without Authorization: 204 (%s %s)" % (st, body))
    st, _, orig = http("GET", "/api/v10/webhooks/1000/tok880010/messages/@original", token=None)
    check(st == 200 and orig and orig["content"] == "no auth", "GET @original without Authorization: %s" % st)
    st, _, fu = http("POST", "/api/v10/webhooks/1000/tok880010", {"content": "follow"}, token=None)
    check(st == 200 and fu and fu["content"] == "follow", "a followup without Authorization: %s" % st)
    st, _, body = http("PATCH", "/api/v10/webhooks/1000/tok880010/messages/" + fu["id"],
                       {"content": "followed"}, token=None)
    check(st == 200 and body["content"] == "followed", "editing a followup without Authorization: %s" % st)
    st, _, body = http("PATCH", "/api/v10/webhooks/1000/tok880010/messages/@original",
                       {"content": "edited"}, token="wrong")
    check(st == 401, "a wrong bot token on a webhook route: 401 (%s)" % st)
    for method, path in (("GET", "/api/v10/channels/600/messages"),
                         ("POST", "/api/v10/channels/600/messages"),
                         ("PUT", "/api/v10/applications/1000/commands")):
        st, _, _ = http(method, path, {"content": "x"} if method != "GET" else None, token=None)
        check(st == 401, "%s %s without Authorization: 401 (%s)" % (method, path, st))
    ent = [e for e in ctl("GET", "/_fake/log?since=0")["entries"]
           if e["kind"] == "http" and e["path"] == "/api/v10/interactions/880010/tok880010/callback"]
    check(ent and ent[-1]["status"] == 204 and "Authorization" not in ent[-1]["headers"],
          "the log shows the callback came without Authorization")

    # 3. ?with_response=true: an InteractionCallbackResponse with the message made or updated.
    ctl("POST", "/_fake/dispatch", {"t": "INTERACTION_CREATE", "d": interaction("880020")})
    st, _, res = http("POST", "/api/v10/interactions/880020/tok880020/callback?with_response=true",
                      {"type": 4, "data": {"content": "<@1001> your turn", "components": buttons}},
                      token=None)
    it, rs = (res or {}).get("interaction", {}), (res or {}).get("resource", {})
    msg = rs.get("message", {})
    check(st == 200 and it.get("id") == "880020" and it.get("type") == 2
          and it.get("response_message_id") == msg.get("id") and msg.get("id")
          and it.get("response_message_loading") is False
          and it.get("response_message_ephemeral") is False and rs.get("type") == 4
          and msg.get("content") == "<@1001> your turn" and msg.get("components") == buttons,
          "type 4 with_response: %s %s" % (st, res))
    check(msg == stored(msg.get("id", "0"))["message"], "the resource is the message as stored")
    check([m.get("id") for m in msg.get("mentions", [])] == ["1001"]
          and msg["mentions"][0].get("username") == "alice", "its mentions: %s" % msg.get("mentions"))
    nid = msg.get("id")
    ctl("POST", "/_fake/dispatch", {"t": "INTERACTION_CREATE", "d": interaction("880021", 3, nid)})
    st, _, res = http("POST", "/api/v10/interactions/880021/tok880021/callback?with_response=true",
                      {"type": 7, "data": {"components": []}}, token=None)
    rs = (res or {}).get("resource", {})
    check(st == 200 and rs.get("type") == 7 and rs.get("message", {}).get("id") == nid
          and res["interaction"].get("response_message_id") == nid
          and rs["message"].get("components") == [] and rs["message"].get("content") == "<@1001> your turn"
          and [m["id"] for m in rs["message"].get("mentions", [])] == ["1001"]
          and rs["message"].get("edited_timestamp"),
          "type 7 with_response removing the buttons only: %s %s" % (st, res))
    ctl("POST", "/_fake/dispatch", {"t": "INTERACTION_CREATE", "d": interaction("880022")})
    st, res = post_form("POST", "/api/v10/interactions/880022/tok880022/callback?with_response=true",
                        {"type": 4, "data": {"embeds": [board], "components": buttons, "flags": 64,
                                             "attachments": [{"id": 0, "filename": "board.png"}]}},
                        [("files[0]", "board.png", "image/png", png2)], token=None)
    msg = (res or {}).get("resource", {}).get("message", {})
    check(st == 200 and res["interaction"].get("response_message_ephemeral") is True
          and msg.get("flags") == 64 and msg.get("embeds") == [board]
          and [a["sha1"] for a in stored(msg["id"])["attachments"]] == [sha1(png2)],
          "type 4 with_response and a file (ephemeral): %s %s" % (st, res))
    ctl("POST", "/_fake/dispatch", {"t": "INTERACTION_CREATE", "d": interaction("880023", 3, tid)})
    st, res = post_form("POST", "/api/v10/interactions/880023/tok880023/callback?with_response=true",
                        {"type": 7, "data": {"attachments": [{"id": 0, "filename": "board.png"}]}},
                        [("files[0]", "board.png", "image/png", png3)], token=None)
    msg = (res or {}).get("resource", {}).get("message", {})
    check(st == 200 and res["resource"]["type"] == 7 and msg.get("id") == tid
          and msg.get("components") == buttons and msg.get("content") == "table"
          and [a["sha1"] for a in stored(tid)["attachments"]] == [sha1(png3)],
          "type 7 with_response and a file: %s %s" % (st, res))
    ctl("POST", "/_fake/dispatch", {"t": "INTERACTION_CREATE", "d": interaction("880024")})
    st, _, body = http("POST", "/api/v10/interactions/880024/tok880024/callback?with_response=maybe",
                       {"type": 4, "data": {"content": "x"}})
    check(st == 400, "with_response=maybe: 400 (%s %s)" % (st, body))
    st, _, body = http("POST", "/api/v10/interactions/880024/tok880024/callback?with_response=false",
                       {"type": 5})
    check(st == 204 and body is None, "with_response=false: 204 (%s %s)" % (st, body))

    # 4. Mentions as Discord computes them, and whom each request pinged.
    def last_entry(path):
        return [e for e in ctl("GET", "/_fake/log?since=0")["entries"]
                if e["kind"] == "http" and e["path"] == path][-1]

    text = "<@1001> <@!1002> <@&77> @everyone and <@1001> again, not <@x> nor <@1003"
    cases = [
        ("no allowed_mentions: all of them", None, ["1001", "1002"], ["77"], True),
        ("parse [] and users", {"parse": [], "users": ["1002", "1005"]}, ["1002"], [], False),
        ("parse []", {"parse": []}, [], [], False),
        ("users alone", {"users": ["1001"]}, ["1001"], [], False),
        ("parse users and everyone", {"parse": ["users", "everyone"]}, ["1001", "1002"], [], True),
        ("parse roles, users by id", {"parse": ["roles"], "users": ["1002"]}, ["1002"], ["77"], False),
    ]
    for what, am, users, roles, everyone in cases:
        body = {"content": text}
        if am is not None:
            body["allowed_mentions"] = am
        st, _, m = http("POST", chan, body)
        e = last_entry(chan)
        check(st == 200 and [u["id"] for u in m["mentions"]] == users and m["mention_roles"] == roles
              and m["mention_everyone"] is everyone, "%s: %s %s" % (what, st, m))
        check(e.get("pinged") == users and e.get("pinged_roles") == roles
              and e.get("pinged_everyone") is everyone, "%s: the log's pinged: %s" % (what, e))
    st, _, m = http("POST", chan, {"content": "<@1001> <@1002>"})
    check(m["mentions"][0].get("username") == "alice" and m["mentions"][1] == {"id": "1002"},
          "a known user's object, an unknown one's id: %s" % m["mentions"])
    before = len(http("GET", chan)[2])
    for what, am in (("parse users and users", {"parse": ["users"], "users": ["1001"]}),
                     ("parse roles and roles", {"parse": ["roles"], "roles": ["77"]}),
                     ("101 users", {"users": [str(2000 + i) for i in range(101)]}),
                     ("an unknown type", {"parse": ["channels"]})):
        st, _, body = http("POST", chan, {"content": text, "allowed_mentions": am})
        check(st == 400 and body.get("code") == 50035, "%s: 400 (%s %s)" % (what, st, body))
    check(len(http("GET", chan)[2]) == before, "refused mentions create nothing")
    st, _, body = http("POST", chan, {"content": "x", "allowed_mentions": {"users": [str(2000 + i) for i in range(100)]}})
    check(st == 200, "100 users are allowed (%s)" % st)
    st, _, fu = http("POST", "/api/v10/webhooks/1000/tok880020",
                     {"content": "<@1001> <@1002>", "allowed_mentions": {"parse": [], "users": ["1002"]}},
                     token=None)
    e = last_entry("/api/v10/webhooks/1000/tok880020")
    check(st == 200 and [u["id"] for u in fu["mentions"]] == ["1002"] and e.get("pinged") == ["1002"],
          "a followup pings whom its allowed_mentions allow: %s %s" % (fu, e.get("pinged")))
    st, _, ed = http("PATCH", "/api/v10/webhooks/1000/tok880020/messages/" + fu["id"],
                     {"content": "<@1001> now", "allowed_mentions": {"parse": ["users"]}}, token=None)
    e = last_entry("/api/v10/webhooks/1000/tok880020/messages/" + fu["id"])
    check(st == 200 and ed["content"] == "<@1001> now" and [u["id"] for u in ed["mentions"]] == ["1002"]
          and e.get("pinged") == [], "an edit notifies no one, the mentions stay: %s %s" % (ed, e.get("pinged")))
    e = last_entry("/api/v10/interactions/880020/tok880020/callback")
    check(e.get("pinged") == ["1001"], "the type 4 callback's log entry: pinged %s" % e.get("pinged"))
    e = last_entry("/api/v10/interactions/880021/tok880021/callback")
    check(e.get("pinged") == [], "the type 7 callback's log entry: pinged %s" % e.get("pinged"))
    st, _, _ = http("PATCH", "/api/v10/webhooks/1000/tok880024/messages/@original",
                    {"content": "<@1001> deferred"})
    e = last_entry("/api/v10/webhooks/1000/tok880024/messages/@original")
    check(st == 200 and e.get("pinged") == ["1001"], "a deferred response's first edit pings: %s" % e.get("pinged"))
    st, _, _ = http("PATCH", "/api/v10/webhooks/1000/tok880024/messages/@original",
                    {"content": "<@1001> <@1002> deferred again"})
    e = last_entry("/api/v10/webhooks/1000/tok880024/messages/@original")
    check(st == 200 and e.get("pinged") == [], "its second edit pings no one: %s" % e.get("pinged"))

    # 5. An edit changes what it gives: components [] removes the buttons, the rest stays.
    def same_but_buttons(before, after):
        keep = ("content", "embeds", "attachments", "mentions", "flags")
        return (after["components"] == [] and before["components"] != []
                and all(before[k] == after[k] for k in keep))

    def with_table(post):
        """A message made by post() with content, a picture and buttons; its id."""
        st, m = post({"content": "live", "embeds": [board], "components": buttons,
                      "attachments": [{"id": 0, "filename": "board.png"}]},
                     [("files[0]", "board.png", "image/png", png1)])
        return m["id"]

    ctl("POST", "/_fake/dispatch", {"t": "INTERACTION_CREATE", "d": interaction("880030")})

    def original(payload, files):
        st, _ = post_form("POST", "/api/v10/interactions/880030/tok880030/callback",
                          {"type": 4, "data": payload}, files)
        return st, http("GET", "/api/v10/webhooks/1000/tok880030/messages/@original")[2]

    targets = [
        ("channel", with_table(lambda p, f: post_form("POST", chan, p, f)),
         lambda mid: chan + "/" + mid),
        ("@original", with_table(original),
         lambda mid: "/api/v10/webhooks/1000/tok880030/messages/@original"),
        ("followup", with_table(lambda p, f: post_form("POST", "/api/v10/webhooks/1000/tok880030", p, f)),
         lambda mid: "/api/v10/webhooks/1000/tok880030/messages/" + mid),
    ]
    for what, mid, path in targets:
        old = stored(mid)
        st, _, body = http("PATCH", path(mid), {"components": []})
        new = stored(mid)
        check(st == 200 and same_but_buttons(old["message"], new["message"])
              and old["attachments"] == new["attachments"] and body == new["message"],
              "PATCH %s with components [] keeps the rest: %s %s" % (what, st, new))
    mid = targets[0][1]
    ctl("POST", "/_fake/dispatch", {"t": "INTERACTION_CREATE", "d": interaction("880031", 3, mid)})
    http("PATCH", chan + "/" + mid, {"components": buttons})
    old = stored(mid)
    st, _, _ = http("POST", "/api/v10/interactions/880031/tok880031/callback",
                    {"type": 7, "data": {"components": []}}, token=None)
    new = stored(mid)
    check(st == 204 and same_but_buttons(old["message"], new["message"])
          and old["attachments"] == new["attachments"], "type 7 with components [] keeps the rest: %s" % new)

    # 6. The load generator: a table per move; it clicks the newest table with buttons and
    # counts the requests by kind. This script plays the bot for a few moves.
    st, _, res = http("POST", "/_fake/load", {"channels": 1, "duration_s": 30, "seed": 7}, token=None)
    check(st == 200 and res.get("ok"), "a load run starts: %s %s" % (st, res))
    sent = {"callback": 0, "webhook": 0, "channel_create": 0, "channel_edit": 0, "get": 0}

    def table_body(move):
        return {"embeds": [{"title": "Lobby", "description": "Lobby\n\n\u2022 alice"}],
                "components": [{"type": 1, "components": [
                    {"type": 2, "style": 1, "label": "Join", "custom_id": "42:%d:join" % move}]}]}

    def load_event():
        """The next INTERACTION_CREATE of the load generator (its channels are 7000...)."""
        ev = ws.recv_until(lambda m: m.get("op") == 0 and m.get("t") == "INTERACTION_CREATE"
                           and m["d"].get("channel_id", "").startswith("7"), 100)
        return ev["d"] if isinstance(ev, dict) else {}

    def callback(d, body, query=""):
        sent["callback"] += 1
        path = "/api/v10/interactions/%s/%s/callback%s" % (d["id"], d["token"], query)
        return http("POST", path, body, token=None)[2]

    def clicked(d, mid):
        m = d.get("message", {})
        return (d.get("type") == 3 and m.get("id") == mid and d["data"]["custom_id"].endswith(":join")
                and m.get("components", [{}])[0].get("components", [{}])[0].get("custom_id")
                == d["data"]["custom_id"])

    d = load_event()  # /open: the table comes with the callback
    check(d.get("type") == 2 and d["data"]["name"] == "open", "the load run opens a table: %s" % d)
    t1 = callback(d, {"type": 4, "data": table_body(1)}, "?with_response=true")["resource"]["message"]["id"]
    d = load_event()  # a click on it: that table frozen, the next one a followup
    check(clicked(d, t1), "the click is on the table of the callback, buttons and all: %s" % d.get("message"))
    callback(d, {"type": 7, "data": {"components": []}})
    sent["webhook"] += 1
    t2 = http("POST", "/api/v10/webhooks/1000/" + d["token"], table_body(2), token=None)[2]["id"]
    d = load_event()
    check(clicked(d, t2), "the next click is on the followup's table: %s" % d.get("message"))
    # A table in a channel message that loses its buttons at once: not to be clicked.
    cid = d["channel_id"]
    sent["channel_create"] += 1
    t3 = http("POST", "/api/v10/channels/%s/messages" % cid, table_body(3))[2]["id"]
    for mid in (t3, t2):
        sent["channel_edit"] += 1
        http("PATCH", "/api/v10/channels/%s/messages/%s" % (cid, mid), {"components": []})
    sent["get"] += 1
    http("GET", "/api/v10/channels/%s/messages/%s" % (cid, t3))
    callback(d, {"type": 6})
    d = load_event()
    check(d.get("type") == 2 and d["data"]["name"] == "status",
          "no click on a frozen table: it asks for /status (%s)" % d.get("message", d.get("data")))
    # /status shows the table privately: with no live public table, that one is clicked.
    t4 = callback(d, {"type": 4, "data": dict(table_body(4), flags=64)},
                  "?with_response=true")["resource"]["message"]["id"]
    d = load_event()
    check(clicked(d, t4) and d["message"].get("flags") == 64,
          "then a click on the private table /status showed: %s" % d.get("message"))
    callback(d, {"type": 6})
    ctl("POST", "/_fake/load", {"stop": True})
    for _ in range(100):
        st = ctl("GET", "/_fake/load")
        if not st["running"]:
            break
        time.sleep(0.1)
    reqs = st.get("requests", {})
    check(not st["running"] and all(reqs.get(k) == v for k, v in sent.items()) and reqs.get("other") == 0
          and reqs.get("total") == sum(sent.values()),
          "load status counts the requests by kind: %s, sent %s" % (reqs, sent))
    check(st.get("answered", 0) >= 4 and abs(st.get("requests_per_interaction", 0)
                                             - reqs.get("total", 0) / st["answered"]) < 1e-9,
          "requests per interaction: %s" % st.get("requests_per_interaction"))
    ws.close()
finally:
    try:
        check(ctl("POST", "/_fake/shutdown", {}) == {"ok": True}, "shutdown")
    except Exception as e:
        check(False, "shutdown: %s" % e)
print("%d passed, %d failed (%.1f s)" % (passed, failed, time.time() - t0))
sys.exit(1 if failed else 0)
EOF
rc=$?
# The fake exits on its own after /_fake/shutdown (sanitizer builds take a moment).
i=0
while [ "$i" -lt 100 ] && kill -0 "$PID" 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
if kill -0 "$PID" 2>/dev/null; then
	echo "FAIL the fake did not exit after /_fake/shutdown"
	rc=1
fi
if [ "$rc" -ne 0 ]; then
	echo "--- fake output"
	cat "$TMP/fake.out"
fi
exit "$rc"
