#!/usr/bin/env python3
"""The manual pages against the program: every command of `rlyeh --help`,
every long option of `rlyeh COMMAND --help` (and of the sources' option
tables), every configuration key (the environment table of config.c, the
example configuration, and what `rlyeh check-config` accepts) is in the
pages, and nothing the pages name as a command, option or key is missing
from the program. Then every page renders with man and groff without a
warning, and the systemd units point at the pages.

Usage: manpages.py RLYEH SOURCE_DIR MAN_BUILD_DIR"""
import glob
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile

rlyeh, src, mandir = sys.argv[1:4]
failures = []
passes = 0


def check(ok, what):
    global passes
    if ok:
        passes += 1
    else:
        failures.append(what)
        print("FAIL " + what)


def same(found, expected, what):
    missing = sorted(expected - found)
    extra = sorted(found - expected)
    check(not missing, "%s: missing from the manual page: %s" % (what, " ".join(missing)))
    check(not extra, "%s: in the manual page but not in the program: %s" % (what, " ".join(extra)))


def run(*args, env=None):
    p = subprocess.run([rlyeh, *args], stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=60, env=env)
    return p.returncode, p.stdout, p.stderr


def sections(text, level):
    """Splits scdoc source into {heading: body} at '#'*level headings."""
    out, name = {}, None
    mark = "#" * level + " "
    for line in text.splitlines():
        if line.startswith(mark):
            name = line[len(mark):].strip()
            out[name] = []
        elif line.startswith("# ") and level > 1:
            name = None
        elif name is not None:
            out[name].append(line)
    return {k: "\n".join(v) for k, v in out.items()}


page1 = open(os.path.join(src, "man/rlyeh.1.scd")).read()
page5 = open(os.path.join(src, "man/rlyeh.conf.5.scd")).read()
page8 = open(os.path.join(src, "man/rlyeh.service.8.scd")).read()
pages = page1 + page5 + page8

# Commands: the program's list and the dispatcher's table.
rc, out, _ = run("--help")
check(rc == 0, "rlyeh --help exits 0")
listed = set(re.findall(r"^  ([a-z][a-z-]+) ", out.split("Commands:")[1], re.M)) - {"rlyeh"}
table = set(re.findall(r'\{ "([a-z-]+)", [a-z_]+ \}', open(os.path.join(src, "src/app/main.c")).read()))
check(listed == table, "rlyeh --help lists the dispatcher's commands (%s vs %s)" % (sorted(listed), sorted(table)))
documented = sections(sections(page1, 1).get("COMMANDS", ""), 2)
same(set(documented), listed | table, "commands")

# Options: each command's --help against its subsection of rlyeh(1).
all_documented = set()
for cmd in sorted(listed | table):
    rc, out, _ = run(cmd, "--help")
    check(rc == 0, "rlyeh %s --help exits 0" % cmd)
    # Options of the program, not of the PostgreSQL tools its help quotes.
    own = "\n".join(l for l in out.splitlines() if not re.match(r"\s*(pg_\w+|psql)\b", l))
    given = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", own)) - {"--help"}
    body = documented.get(cmd, "")
    options = set(re.findall(r"^\*(--[a-z][a-z0-9-]*)\*", body, re.M))
    all_documented |= options
    same(options, given, "options of rlyeh %s" % cmd)
# Every option in the sources' tables is documented somewhere.
source_options = set()
for path in glob.glob(os.path.join(src, "src/**/*.c"), recursive=True):
    text = open(path).read()
    source_options |= {"--" + o for o in re.findall(r'\{ "([a-z][a-z0-9-]*)", (?:required|no|optional)_argument', text)}
    source_options |= set(re.findall(r'strcmp\(argv\[i\], "(--[a-z][a-z0-9-]*)"\)', text))
source_options -= {"--help"}
missing = sorted(source_options - all_documented)
check(not missing, "options in the sources but in no command's section of rlyeh(1): " + " ".join(missing))
for opt in ("--help", "--version"):
    check(re.search(r"^\*%s\*" % opt, sections(page1, 1).get("GLOBAL OPTIONS", ""), re.M) is not None,
          "rlyeh(1) documents the global %s" % opt)

# Every policy of every game is in the description of sim --policy.
policy_text = re.search(r"^\*--policy\*.*?(?=^\*--)", documented.get("sim", ""), re.M | re.S)
policy_text = policy_text.group(0) if policy_text else ""
for path in glob.glob(os.path.join(src, "src/core/**/*.c"), recursive=True):
    table = re.search(r"policies\[\] = \{(.*?)\};", open(path).read(), re.S)
    for name in re.findall(r'\{ "([a-z0-9-]+)", ', table.group(1)) if table else []:
        check("*%s*" % name in policy_text, "rlyeh(1) names the policy %s under sim --policy" % name)

# Configuration keys: config.c's table, the example, and rlyeh.conf(5).
config_c = open(os.path.join(src, "src/app/config.c")).read()
env_table = re.search(r"env_keys\[\] = \{(.*?)\};", config_c, re.S).group(1)
keys_code = set(re.findall(r'"([a-z_]+)"', env_table))
keys_applied = set(re.findall(r'strcmp\(key, "([a-z_]+)"\) == 0', config_c)) - {"token"}
check(keys_code == keys_applied, "config.c reads from the environment every key it applies (%s)" % sorted(keys_code ^ keys_applied))
example = open(os.path.join(src, "config/rlyeh.conf")).read()
keys_example = set(re.findall(r"^#?([a-z_]+) =", example, re.M))
check(keys_example == keys_code, "the example configuration has every key (%s)" % sorted(keys_example ^ keys_code))
keys_page = set(re.findall(r"^\*([a-z_]+)\* = ", sections(page5, 1).get("KEYS", ""), re.M))
same(keys_page, keys_code | keys_applied, "configuration keys")
# The program itself: a documented key is known to check-config, a made-up one is not.
tmp = tempfile.mkdtemp()
env = {k: v for k, v in os.environ.items() if not k.startswith("RLYEH_") and k != "CREDENTIALS_DIRECTORY"}
try:
    for key in sorted(keys_page) + ["not_a_key"]:
        path = os.path.join(tmp, "c.conf")
        with open(path, "w") as f:
            f.write("%s = \x7f\n" % key)
        rc, out, err = run("check-config", path, env=env)
        unknown = "unknown key '%s'" % key in err
        check(unknown == (key == "not_a_key"), "check-config knows the key %s: %s" % (key, (out + err).strip()))
finally:
    shutil.rmtree(tmp)
env_page = set(re.findall(r"\*(RLYEH_[A-Z_]+)\*", sections(page5, 1).get("ENVIRONMENT", "")))
same(env_page, {"RLYEH_" + k.upper() for k in keys_code} | {"RLYEH_TOKEN"}, "environment variables of rlyeh.conf(5)")
# Every RLYEH_ variable any page names exists.
getenvs = set()
for path in glob.glob(os.path.join(src, "src/**/*.c"), recursive=True):
    getenvs |= set(re.findall(r'getenv\("(RLYEH_[A-Z_]+)"\)', open(path).read()))
known = {"RLYEH_" + k.upper() for k in keys_code} | getenvs | {"RLYEH_KEY"}
named = set(re.findall(r"RLYEH_[A-Z_]*[A-Z]", pages))
check(not (named - known), "variables the pages name but the program does not read: %s" % sorted(named - known))

# Rendering: man and groff without a warning.
rendered = sorted(glob.glob(os.path.join(mandir, "*.gz")))
check(len(rendered) == 3, "three rendered pages in %s (%s)" % (mandir, rendered))
for page in rendered:
    roff = gzip.open(page).read()
    env = dict(os.environ, LC_ALL="C.UTF-8", MANWIDTH="80")
    p = subprocess.run(["man", "--warnings", "-E", "UTF-8", "-l", page], capture_output=True, env=env)
    check(p.returncode == 0 and not p.stderr, "man -l %s: %s" % (page, p.stderr.decode()))
    text = p.stdout.decode()
    check("NAME" in text and "SEE ALSO" in text, "%s renders its NAME and SEE ALSO" % page)
    p = subprocess.run(["groff", "-ww", "-man", "-z"], input=roff, capture_output=True)
    check(p.returncode == 0 and not p.stderr, "groff -ww %s: %s" % (page, p.stderr.decode()))

# The units point at the pages.
for unit in ("rlyeh.service.in", "rlyeh@.service.in"):
    text = open(os.path.join(src, "systemd", unit)).read()
    docs = re.findall(r"^Documentation=(.*)$", text, re.M)
    refs = " ".join(docs).split()
    check(refs == ["man:rlyeh(1)", "man:rlyeh.conf(5)", "man:rlyeh.service(8)"],
          "%s: Documentation= names the three pages (%s)" % (unit, refs))

print("%d passed, %d failed" % (passes, len(failures)))
sys.exit(1 if failures else 0)
