#!/usr/bin/env python3
"""The documentation holds together: every relative link and anchor in README.md
and docs/*.md resolves (GitHub's heading slugs), the README stays under 250
lines, no tracked text file keeps a merge-conflict marker, and the source tree
in docs/architecture.md matches src/: every source file there is named in it,
in its folder, and every file it names exists.
Usage: docs_check.py SOURCE_DIR"""
import glob
import os
import re
import subprocess
import sys
import unicodedata

root = sys.argv[1]
files = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
README_MAX_LINES = 250


def slug(h):
    h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", h)
    h = h.strip().lower()
    out = []
    for ch in h:
        if ch in " -_" or unicodedata.category(ch)[0] in "LN":
            out.append("-" if ch == " " else ch)
    return "".join(out)


def anchors(path):
    seen, res, fence = {}, set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
            continue
        m = re.match(r"(#{1,6}) (.*)", line)
        if m and not fence:
            s = slug(m.group(2))
            n = seen.get(s, 0)
            seen[s] = n + 1
            res.add(s if n == 0 else "%s-%d" % (s, n))
    return res


bad = total = 0
for f in files:
    text = open(f, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"``.*?``", "X", text)
    text = re.sub(r"`[^`\n]*`", "X", text)
    for m in re.finditer(r"!?\[(?:[^\[\]]|`[^`]*`)*\]\(([^)\s]+)\)", text):
        target = m.group(1)
        if re.match(r"[a-z]+:", target):
            continue
        total += 1
        path, _, frag = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        if not os.path.exists(dest):
            print("FAIL %s: missing file %s" % (os.path.relpath(f, root), target))
            bad += 1
            continue
        if frag and (not dest.endswith(".md") or frag not in anchors(dest)):
            print("FAIL %s: missing anchor %s" % (os.path.relpath(f, root), target))
            bad += 1

lines = sum(1 for _ in open(os.path.join(root, "README.md"), encoding="utf-8"))
if lines >= README_MAX_LINES:
    print("FAIL README.md has %d lines (under %d wanted)" % (lines, README_MAX_LINES))
    bad += 1

try:
    tracked = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True,
                             check=True).stdout.split()
except (OSError, subprocess.CalledProcessError):
    tracked = [os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "**", "*"),
                                                           recursive=True)
               if "/build" not in p]
marker = re.compile(r"^(<<<<<<< |>>>>>>> |=======$)", re.M)
for rel in tracked:
    p = os.path.join(root, rel)
    if not os.path.isfile(p) or rel.startswith("tests/golden/"):
        continue
    try:
        text = open(p, encoding="utf-8").read()
    except UnicodeDecodeError:
        continue
    m = marker.search(text)
    if m:
        print("FAIL %s:%d: a merge-conflict marker" % (rel, text.count("\n", 0, m.start()) + 1))
        bad += 1

# The tree in docs/architecture.md: indentation gives the folder under src/.
arch = open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8").read()
tree = re.search(r"```\n(include/rlyeh/.*?)```", arch, re.S).group(1)
named, stack, top = set(), [], False
for line in tree.splitlines():
    m = re.match(r"( *)(\S+)", line)
    if not m:
        continue
    depth, first = len(m.group(1)) // 2, m.group(2)
    if len(m.group(1)) >= 17:  # a description goes on
        cells = line if top else ""
    elif first.endswith("/"):
        stack = stack[:depth] + [first]
        # a top folder's own files may be named in its description
        top = depth == 0
        cells = line if top else ""
    elif 0 < depth <= len(stack):
        stack, top = stack[:depth], False
        cells = line.strip().split("  ")[0]  # the first column: the files
    else:
        continue
    if stack and stack[0].startswith("src/"):
        for name in re.findall(r"\b([a-z_0-9]+\.c)\b", cells):
            named.add("".join(stack) + name)
present = {os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "src", "**", "*.c"),
                                                       recursive=True)}
for f in sorted(present - named):
    print("FAIL docs/architecture.md: the source tree does not name %s" % f)
    bad += 1
for f in sorted(named):
    if not os.path.exists(os.path.join(root, f)):
        print("FAIL docs/architecture.md: the source tree names %s, which does not exist" % f)
        bad += 1

print("%d files, %d relative links, README %d lines, %d source files in the tree, %d failures"
      % (len(files), total, lines, len(named), bad))
sys.exit(1 if bad else 0)
