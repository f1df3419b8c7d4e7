#!/usr/bin/env python3
"""A damaged database is refused and never written to.

Plays real games into a database with the console, then damages copies of
it in several ways (bytes flipped or overwritten in the header, in b-tree
page headers, cell pointers, the free list, a whole page) and checks that
`rlyeh console` and `rlyeh run` refuse to start (run with exit status 5),
naming the file and `rlyeh restore`, that `rlyeh check-db` says damaged
(exit 1), and that the file's bytes are the same afterwards. Then a sweep
of random damage: whatever is refused is left as it was. The intact
database is accepted by all three.

Usage: damaged.py RLYEH GOLDEN_DIR
"""
import hashlib
import os
import random
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile

RLYEH, GOLDEN = sys.argv[1], sys.argv[2]
passes = failures = 0


def ok(cond, what):
    global passes, failures
    if cond:
        passes += 1
    else:
        failures += 1
        print("FAIL", what)


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def run(args, env=None, stdin=b""):
    e = dict(os.environ)
    for k in list(e):
        if k.startswith("RLYEH_"):
            del e[k]
    e.update(env or {})
    p = subprocess.run([RLYEH] + args, input=stdin, capture_output=True, env=e, timeout=60)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def page_size(path):
    with open(path, "rb") as f:
        head = f.read(100)
    size = struct.unpack(">H", head[16:18])[0]
    return 65536 if size == 1 else size


def btree_pages(path):
    """(name, root page) of every table and index."""
    db = sqlite3.connect(path)
    rows = db.execute("SELECT name, rootpage FROM sqlite_schema WHERE rootpage > 0").fetchall()
    db.close()
    return rows


def leaf_pages(path):
    """Page numbers whose first byte is a b-tree leaf page type."""
    size = page_size(path)
    with open(path, "rb") as f:
        data = f.read()
    out = []
    for n in range(2, len(data) // size + 1):
        if data[(n - 1) * size] in (0x0D, 0x0A):
            out.append(n)
    return out


def poke(path, offset, data):
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


def make_database(tmp):
    db = os.path.join(tmp, "real.db")
    for i, script in enumerate(["game-en", "elder-signs-en", "game-nl", "cthulhu-en",
                                "game-en", "elder-signs-nl"]):
        with open(os.path.join(GOLDEN, "console", script + ".txt"), "rb") as f:
            rc, _, err = run(["console", "--db", db, "--seed", str(40 + i), "--timeout", "0",
                              "--channel", "c%d" % i], stdin=f.read())
        ok(rc == 0, "playing %s: exit %d %s" % (script, rc, err))
    ok(not os.path.exists(db + "-wal") or os.path.getsize(db + "-wal") == 0,
       "the console left its log checkpointed")
    return db


def refused(path, label):
    """The three commands on a damaged file: refused, file unchanged."""
    before = digest(path)
    rc, out, err = run(["check-db", "--db", path])
    ok(rc == 1 and "damaged" in err and "rlyeh restore" in err,
       "%s: check-db exit %d: %s%s" % (label, rc, out, err))
    rc, out, err = run(["console", "--db", path, "--timeout", "0"], stdin=b"/open\n")
    ok(rc == 1 and path in err and "rlyeh restore" in err and "damaged" in err and out == "",
       "%s: console exit %d: %s %s" % (label, rc, out, err))
    rc, out, err = run(["run"], env={"RLYEH_DATABASE": path, "RLYEH_TOKEN": "abc.def",
                                     "RLYEH_API_URL": "http://127.0.0.1:9"})
    ok(rc == 5 and path in err and "rlyeh restore" in err,
       "%s: run exit %d: %s" % (label, rc, err))
    ok(digest(path) == before, "%s: the damaged file was written to" % label)
    wal = path + "-wal"
    ok(not os.path.exists(wal) or os.path.getsize(wal) == 0, "%s: a log was written" % label)


def main():
    tmp = tempfile.mkdtemp(prefix="rlyeh-damaged-")
    try:
        real = make_database(tmp)
        size = page_size(real)
        roots = dict(btree_pages(real))
        leaves = leaf_pages(real)
        ok(len(leaves) >= 4, "the database has leaf pages (%d)" % len(leaves))

        # The intact database: accepted.
        rc, out, err = run(["check-db", "--db", real])
        ok(rc == 0 and "intact" in out, "intact: check-db exit %d %s %s" % (rc, out, err))
        copy = os.path.join(tmp, "intact.db")
        shutil.copy(real, copy)
        rc, out, err = run(["console", "--db", copy, "--timeout", "0", "--channel", "new"],
                           stdin=b"/open\n")
        ok(rc == 0 and err == "", "intact: console exit %d %s" % (rc, err))

        events = roots["events"]
        leaf = leaves[len(leaves) // 2]
        patterns = {
            # The file's magic string: not a database at all.
            "header-magic": [(0, b"SQLite format 4\0")],
            # The page type of the events table's root page.
            "page-type": [((events - 1) * size, b"\x00")],
            # A leaf page's cell count and first cell pointers, past the page end.
            "cell-pointers": [((leaf - 1) * size + 3, b"\x00\x40\xff\xff\xff\xff\xff\xff")],
            # The free list: a trunk that is a table's own page.
            "freelist": [(32, struct.pack(">II", events, 1))],
            # A whole page zeroed.
            "zero-page": [((leaves[0] - 1) * size, b"\0" * size)],
            # Flipped bits over a leaf page's header and cell pointer array.
            "bit-flips": [((leaves[-1] - 1) * size + i, bytes([0x5A])) for i in range(1, 24, 3)],
        }
        for label, writes in patterns.items():
            path = os.path.join(tmp, label + ".db")
            shutil.copy(real, path)
            with open(path, "rb") as f:
                data = bytearray(f.read())
            for offset, b in writes:
                if label == "bit-flips":
                    data[offset] ^= b[0]
                else:
                    data[offset:offset + len(b)] = b
            with open(path, "wb") as f:
                f.write(data)
            refused(path, label)

        # Random damage over every leaf page: what quick_check finds is
        # refused and left alone; the rest opens (and is counted).
        rng = random.Random(21)
        found = 0
        rounds = 30
        for i in range(rounds):
            path = os.path.join(tmp, "random%d.db" % i)
            shutil.copy(real, path)
            page = rng.choice(leaves)
            offset = (page - 1) * size + rng.randrange(0, 16)
            with open(path, "rb") as f:
                data = bytearray(f.read())
            for k in range(8):
                data[offset + k] ^= rng.randrange(1, 256)
            with open(path, "wb") as f:
                f.write(data)
            before = digest(path)
            rc, _, err = run(["console", "--db", path, "--timeout", "0"], stdin=b"")
            if rc == 1 and "damaged" in err:
                found += 1
                ok(digest(path) == before, "random%d: refused but written to" % i)
        print("random damage to leaf page headers: %d of %d refused at start" % (found, rounds))
        ok(found >= rounds // 2, "quick_check found %d of %d" % (found, rounds))
    finally:
        shutil.rmtree(tmp)
    print("%d passed, %d failed" % (passes, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
