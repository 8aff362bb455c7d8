#!/usr/bin/env python3
"""Everyday agent tasks replayed through aitools and through the shell, on a real
repository: calls, failed calls, silent failures and bytes printed per task.

Usage: benches/everyday.py REPO [RIPGREP] [--bin PATH/TO/aitools] [--show]

REPO is a checkout of a Python project (the tasks are written for pallets/flask:
`git clone https://github.com/pallets/flask /tmp/flask`); it is copied, never
changed. RIPGREP, optional, is a checkout of BurntSushi/ripgrep for five more
tasks (a file's history, a grep across a tree with binary test data, a Cargo.toml
change, a failing test binary's output, a CRLF region); it needs rustc. Without
REPO the script says so and exits 0. The binary defaults to
target/release/aitools, else target/debug/aitools.

Every byte a call prints (stdout + stderr) is context an agent pays for, so bytes
are the measure; a call fails when it exits non-zero (aitools' 3, a partial answer,
is not a failure); a write that exits 0 and changes nothing is a silent failure; each
route's end state is checked (ok / WRONG). The shell route is what a careful agent
types: it checks its writes with grep, as nothing tells it a sed did nothing, and
reverts a bad change by finding its hunk in `git diff` (the `git checkout` an agent
often reaches for also destroys the good edit: it is run and printed, not counted).
"""

import hashlib
import json
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile

FLASK_HELPERS = "src/flask/helpers.py"
SHOW = False
# Routes shown for transparency below the table, not counted: task name -> (label, route).
EXTRA = {}


class Route:
    """One task run through one route in its own copy of the repository."""

    def __init__(self, repo, tool, state):
        self.root = repo
        self.tool = tool
        self.state = state
        self.calls = 0
        self.failed = 0
        self.silent = 0
        self.bytes = 0
        self.last = None

    def _run(self, argv, stdin=None, shell=False, writes=None, extra=None):
        before = self.digest(writes) if writes else None
        env = dict(os.environ, XDG_STATE_HOME=self.state, **(extra or {}))
        p = subprocess.run(
            argv,
            input=stdin,
            cwd=self.root,
            env=env,
            shell=shell,
            capture_output=True,
        )
        self.calls += 1
        self.bytes += len(p.stdout) + len(p.stderr)
        if p.returncode not in (0, 3):
            self.failed += 1
        elif writes and self.digest(writes) == before:
            self.silent += 1
        self.last = p
        if SHOW:
            shown = argv if isinstance(argv, str) else " ".join(argv[1:] if argv[0] == self.tool else argv)
            print(f"--- {os.path.basename(os.path.dirname(self.root))} $ {shown[:120]}", file=sys.stderr)
            sys.stderr.write((p.stdout + p.stderr).decode(errors="replace"))
        return p

    def aitools(self, *args, stdin=None, writes=None):
        p = self._run([self.tool, *args], stdin=stdin, writes=writes)
        text = p.stdout if p.stdout else p.stderr
        try:
            return json.loads(text)
        except ValueError:
            return {}

    def sh(self, script, stdin=None, writes=None):
        return self._run(script, stdin=stdin, shell=True, writes=writes)

    def digest(self, paths):
        h = hashlib.sha256()
        for p in paths:
            with open(os.path.join(self.root, p), "rb") as f:
                h.update(f.read())
        return h.hexdigest()

    def read(self, path):
        with open(os.path.join(self.root, path), "rb") as f:
            return f.read()


# ------------------------------------------------------------------ the tasks
# Each task: setup(root) prepares the copy, aitools(r) and shell(r) are the two
# routes, check(r) says whether the end state is right.


def t_definition():
    want = b"def get_send_file_max_age(self, filename: str | None) -> int | None:"

    def ai(r):
        # No PATH: read finds the one file that defines it.
        r.aitools("read", "--symbol", "Flask.get_send_file_max_age")
        r.ok = want.decode() in r.last.stdout.decode()

    def sh(r):
        p = r.sh("grep -rn 'def get_send_file_max_age' src")
        first = p.stdout.decode().splitlines()[0]
        path, line = first.split(":")[:2]
        # The end is not known: an agent reads a screenful.
        r.sh(f"sed -n '{line},{int(line) + 40}p' {path}")
        r.ok = want in r.last.stdout

    return "find and read a definition", None, ai, sh, lambda r: r.ok


def t_rename():
    old, new = "get_debug_flag", "is_debug_enabled"

    def ai(r):
        d = r.aitools("replace", f"\\b{old}\\b", new, "src", "tests", "--dry-run")
        n = str(d.get("expect_count", 0))
        r.aitools("replace", f"\\b{old}\\b", new, "src", "tests", "--expect-count", n)

    def sh(r):
        r.sh(f"grep -rlw {old} src tests | xargs sed -i 's/\\b{old}\\b/{new}/g'")
        r.sh(f"grep -rnw {new} src tests")

    def check(r):
        left = subprocess.run(["grep", "-rlw", old, "src", "tests"], cwd=r.root, capture_output=True)
        done = subprocess.run(["grep", "-rlw", new, "src", "tests"], cwd=r.root, capture_output=True)
        return not left.stdout and len(done.stdout.decode().split()) == 5

    return "rename a helper across 5 files", None, ai, sh, check


def t_indentation():
    remembered_old = 'val = os.environ.get("FLASK_DEBUG")\nreturn bool(val and val.lower() not in {"0", "false", "no"})'
    remembered_new = 'val = os.environ.get("FLASK_DEBUG")\nreturn bool(val and val.lower() not in {"0", "false", "no", "off"})'
    want = b'    return bool(val and val.lower() not in {"0", "false", "no", "off"})\n'

    def ai(r):
        r.aitools("edit", FLASK_HELPERS, "--old", remembered_old, "--new", remembered_new, writes=[FLASK_HELPERS])

    def sh(r):
        # The remembered text, as an agent would pass it to perl: no match, exit 0.
        r._run(
            ["perl", "-0pi", "-e", "s/\\Q$ENV{OLD}\\E/$ENV{NEW}/", FLASK_HELPERS],
            writes=[FLASK_HELPERS],
            extra={"OLD": remembered_old, "NEW": remembered_new},
        )
        r.sh(f"grep -n '\"off\"' {FLASK_HELPERS}")
        r.sh(f"sed -n '28,34p' {FLASK_HELPERS}")
        r.sh(
            f"perl -pi -e 's/\\Q\"false\", \"no\"}}\\E/\"false\", \"no\", \"off\"}}/' {FLASK_HELPERS}",
            writes=[FLASK_HELPERS],
        )

    return "an edit remembered with the wrong indentation", None, ai, sh, lambda r: want in r.read(FLASK_HELPERS)


PATCHED = ["src/flask/globals.py", "src/flask/signals.py", "src/flask/views.py"]


def t_patch():
    def setup(root):
        for p in PATCHED:
            full = os.path.join(root, p)
            with open(full, "rb") as f:
                text = f.read()
            with open(full, "wb") as f:
                f.write(b"# Patched by the everyday benchmark.\n" + text)
        diff = subprocess.run(["git", "diff"], cwd=root, capture_output=True).stdout
        subprocess.run(["git", "checkout", "-q", "--", *PATCHED], cwd=root, check=True)
        with open(os.path.join(root, "..", "patch.diff"), "wb") as f:
            f.write(diff)

    def patch(r):
        with open(os.path.join(r.root, "..", "patch.diff"), "rb") as f:
            return f.read()

    def ai(r):
        r.aitools("apply", "--stdin", stdin=patch(r), writes=PATCHED)

    def sh(r):
        r._run(["git", "apply"], stdin=patch(r), writes=PATCHED)

    def check(r):
        return all(r.read(p).startswith(b"# Patched by the everyday benchmark.\n") for p in PATCHED)

    return "a multi-file patch (3 files)", setup, ai, sh, check


LOG = "app.log"
NEEDLE = "ERROR req=777777"


def t_log():
    def setup(root):
        rnd = random.Random(7)
        paths = ["/", "/login", "/api/items", "/static/app.js", "/health"]
        lines = []
        size = 0
        i = 0
        while size < 50 * 1024 * 1024:
            if i == 300000:
                line = f"2024-05-01T12:00:{i % 60:02d}.{i % 1000:03d} {NEEDLE} path=/api/items status=500 error=KeyError('id')\n"
            else:
                line = (
                    f"2024-05-01T12:{(i // 60) % 60:02d}:{i % 60:02d}.{i % 1000:03d} INFO req={i} "
                    f"path={rnd.choice(paths)} status=200 ms={rnd.randint(1, 400)}\n"
                )
            lines.append(line)
            size += len(line)
            i += 1
        with open(os.path.join(root, LOG), "w") as f:
            f.writelines(lines)

    def ai(r):
        r.aitools("search", NEEDLE, LOG, "--context", "10")
        r.ok = NEEDLE in r.last.stdout.decode()

    def sh(r):
        r.sh(f"grep -n -C10 '{NEEDLE}' {LOG}")
        r.ok = NEEDLE.encode() in r.last.stdout

    return "a section of a 50 MB log", setup, ai, sh, lambda r: r.ok


def t_restore():
    good_old, good_new = "The default is ``False``.", "The default is ``False`` (off)."
    bad_old, bad_new = 'val = os.environ.get("FLASK_DEBUG")', "val = None"

    def ai(r):
        r.aitools("edit", FLASK_HELPERS, "--old", good_old, "--new", good_new, writes=[FLASK_HELPERS])
        d = r.aitools("edit", FLASK_HELPERS, "--old", bad_old, "--new", bad_new, writes=[FLASK_HELPERS])
        r.aitools("undo", d.get("op_id") or "none", writes=[FLASK_HELPERS])

    def sh(r):
        r.sh(f"sed -i 's/{good_old}/{good_new}/' {FLASK_HELPERS}", writes=[FLASK_HELPERS])
        r.sh(f"sed -i 's/{bad_old}/{bad_new}/' {FLASK_HELPERS}", writes=[FLASK_HELPERS])
        # A careful agent looks at what it changed, finds the bad hunk and reverts
        # only that one.
        r.sh(f"git diff -- {FLASK_HELPERS}")
        r.sh(f"sed -i 's/^    {bad_new}$/    {bad_old}/' {FLASK_HELPERS}", writes=[FLASK_HELPERS])

    def sh_checkout(r):
        r.sh(f"sed -i 's/{good_old}/{good_new}/' {FLASK_HELPERS}", writes=[FLASK_HELPERS])
        r.sh(f"sed -i 's/{bad_old}/{bad_new}/' {FLASK_HELPERS}", writes=[FLASK_HELPERS])
        # What an agent often reaches for: it destroys the good edit too.
        r.sh(f"git checkout -- {FLASK_HELPERS}", writes=[FLASK_HELPERS])

    EXTRA["restoring after a bad change"] = ("shell by `git checkout` (the earlier route)", sh_checkout)

    def check(r):
        t = r.read(FLASK_HELPERS)
        return good_new.encode() in t and bad_old.encode() in t

    return "restoring after a bad change", None, ai, sh, check


INI = "config.ini"


def t_crlf():
    def setup(root):
        with open(os.path.join(root, INI), "wb") as f:
            f.write(b"\xef\xbb\xbf[server]\r\nport = 8080\r\nhost = localhost\r\n")

    def ai(r):
        r.aitools("edit", INI, "--old", "port = 8080", "--new", "port = 9090", writes=[INI])

    def sh(r):
        r.sh(f"sed -i 's/^port = 8080$/port = 9090/' {INI}", writes=[INI])
        r.sh(f"grep -n 'port = 9090' {INI}")
        r.sh(f"cat -A {INI}")
        r.sh(f"sed -i 's/^port = 8080\\r$/port = 9090\\r/' {INI}", writes=[INI])

    def check(r):
        return r.read(INI) == b"\xef\xbb\xbf[server]\r\nport = 9090\r\nhost = localhost\r\n"

    return "a CRLF+BOM edit", setup, ai, sh, check


def follow(r, argv, fixed):
    """A call as an agent's habit spells it: an error whose repair is a command
    (not `schema`) is run as given; a `schema` repair costs the schema call and
    then `fixed`, the call the agent writes after reading it."""
    d = r.aitools(*argv)
    if d.get("status") != "error":
        return d
    repairs = (d.get("error") or {}).get("repairs") or [{}]
    cmd = repairs[0].get("command", "")
    if cmd.startswith("aitools schema") or not cmd.startswith("aitools "):
        r.aitools(*cmd.split()[1:])
        return r.aitools(*fixed)
    return r.aitools(*shlex.split(cmd)[1:])


def t_uses():
    name = "get_send_file_max_age"

    def want(root):
        p = subprocess.run(["grep", "-rn", name, "src", "tests"], cwd=root, capture_output=True)
        return sorted(":".join(l.split(":")[:2]) for l in p.stdout.decode().splitlines())

    def ai(r):
        # grep's habit first (-rn), then what it means here: every matching line.
        d = follow(r, ["search", "-rn", name, "src", "tests", "-C", "0"], ["search", name, "src", "tests", "-C", "0"])
        got, path = [], None
        for b in d.get("blocks", []):
            path = b.get("path", path)
            if "start_line" in b:  # before 0.4: one block per run, start_line + match_lines
                lines = b.get("match_lines") or range(b["start_line"], b["start_line"] + len(b["lines"]))
            else:  # each line `N:text` (selected) or `N-text` (context)
                lines = [l.split(":", 1)[0] for l in b["lines"] if l.split(":", 1)[0].isdigit()]
            got += [f"{path}:{n}" for n in lines]
        r.ok = sorted(got) == want(r.root)

    def sh(r):
        p = r.sh(f"grep -rn {name} src tests")
        r.ok = sorted(":".join(l.split(":")[:2]) for l in p.stdout.decode().splitlines()) == want(r.root)

    return "every line using a name (grep -rn)", None, ai, sh, lambda r: r.ok


def t_last_change():
    def ai(r):
        # git's spelling: the revision where a path stands.
        d = follow(r, ["git", "diff", "HEAD~10", "src/flask/ctx.py"], ["git", "diff", "--ref", "HEAD~10", "src/flask/ctx.py"])
        r.ok = d.get("status") in ("ok", "partial") and len(d.get("files", [])) > 0

    def sh(r):
        p = r.sh("git diff HEAD~10 -- src/flask/ctx.py")
        r.ok = p.returncode == 0 and bool(p.stdout)

    return "what the last 10 commits changed in ctx.py", None, ai, sh, lambda r: r.ok


def t_find_name():
    def want(root):
        p = subprocess.run("find . -name '*.toml' -not -path './.git/*'", shell=True, cwd=root, capture_output=True)
        return sorted(l[2:] for l in p.stdout.decode().split())

    def ai(r):
        # find's spelling: -name is taken as the pattern.
        d = follow(r, ["find", "-name", "*.toml"], ["find", "--glob", "*.toml"])
        # Items: {path,...} (up to 0.6), a bare path or a row led by the path.
        def path(i):
            return i.get("path") if isinstance(i, dict) else i[0] if isinstance(i, list) else i

        r.ok = sorted(path(i) for i in d.get("items", [])) == want(r.root)

    def sh(r):
        p = r.sh("find . -name '*.toml' -not -path './.git/*'")
        r.ok = sorted(l[2:] for l in p.stdout.decode().split()) == want(r.root)

    return "every file by name (find -name)", None, ai, sh, lambda r: r.ok


def t_two_commits():
    def ai(r):
        # git's two commits: what the last commit changed against the one before.
        d = follow(r, ["git", "diff", "HEAD~1", "HEAD"], ["git", "diff", "--ref", "HEAD~1..HEAD"])
        r.ok = [f.get("path") for f in d.get("files", [])] == ["docs/config.rst"]

    def sh(r):
        p = r.sh("git diff HEAD~1 HEAD")
        r.ok = p.returncode == 0 and b"docs/config.rst" in p.stdout

    return "what the last commit changed (git diff A B)", None, ai, sh, lambda r: r.ok


USERS = "data/users.json"


def t_json_select():
    def setup(root):
        rnd = random.Random(3)
        users = [
            {"id": i, "name": f"user{i}", "admin": rnd.random() < 0.1, "tags": ["a", "b"][: rnd.randint(0, 2)]}
            for i in range(40)
        ]
        os.makedirs(os.path.join(root, "data"), exist_ok=True)
        with open(os.path.join(root, USERS), "w") as f:
            json.dump({"version": 2, "regions": ["eu", "us"], "users": users}, f, indent=2)

    def want(root):
        with open(os.path.join(root, USERS)) as f:
            return [u["id"] for u in json.load(f)["users"] if u["admin"] is True]

    def ai(r):
        # No pointer, as jq users type it: the repair names the array.
        d = follow(
            r,
            ["json", "select", USERS, "--where", "/admin==true", "--pick", "/id"],
            ["json", "select", USERS, "/users", "--where", "/admin==true", "--pick", "/id"],
        )
        r.ok = picked(d, "/id") == want(r.root)

    def sh(r):
        p = r.sh(f"jq -c '[.users[] | select(.admin == true) | .id]' {USERS}")
        r.ok = json.loads(p.stdout or b"null") == want(r.root)

    return "the admins in a JSON file (no pointer)", setup, ai, sh, lambda r: r.ok


def log_shas(d):
    """git log items' shas: members (before 0.6) or arrays named by `fields`."""
    names = d.get("fields") or []
    out = []
    for i in d.get("items", []):
        if isinstance(i, list):
            out.append(i[names.index("sha")] if "sha" in names else "")
        else:
            out.append(i.get("sha", ""))
    return out


def picked(d, pick):
    """json select items' picked values: bare (0.6) or {pointer, value: {pick: v}}."""
    return [i["value"].get(pick) if isinstance(i, dict) and "pointer" in i else i for i in d.get("items", [])]


def same_commits(got, full):
    """Each sha (short or full) names the commit git printed in full."""
    return len(got) == len(full) and all(g and f.startswith(g) for g, f in zip(got, full))


def git_lines(root, *args):
    p = subprocess.run(["git", *args], cwd=root, capture_output=True)
    return p.stdout.decode().split()


def t_author_since():
    who, since = "David Lord", "2025-06-01"

    def want(root):
        return git_lines(root, "log", f"--author={who}", f"--since={since}T00:00:00Z", "-n", "5", "--format=%H")

    def ai(r):
        # git's filters as git spells them.
        d = follow(
            r,
            ["git", "log", "--author", who, "--since", since, "-n", "5"],
            ["git", "log", "--author", who, "--since", since, "--limit", "5"],
        )
        r.ok = same_commits(log_shas(d), want(r.root))

    def sh(r):
        p = r.sh(f"git log --author='{who}' --since={since}T00:00:00Z -n 5 --oneline")
        short = [l.split()[0] for l in p.stdout.decode().splitlines()]
        full = want(r.root)
        r.ok = len(short) == len(full) and all(f.startswith(s) for s, f in zip(short, full))

    return "5 commits by an author since a date", None, ai, sh, lambda r: r.ok


def t_format():
    def want(root):
        return git_lines(root, "log", "-n", "5", "--format=%H")

    def ai(r):
        # git log's --format, as people write it.
        d = follow(r, ["git", "log", "--format=%h %s", "-n", "5"], ["git", "log", "--limit", "5"])
        r.ok = same_commits(log_shas(d), want(r.root))

    def sh(r):
        p = r.sh("git log --format='%h %s' -n 5")
        r.ok = len(p.stdout.decode().splitlines()) == 5

    return "the last 5 commits (git log --format)", None, ai, sh, lambda r: r.ok


def t_patch_of_file():
    path = "src/flask/app.py"

    def ai(r):
        # git log -p: answered (each item's patch is its last value), or the
        # repair is the call that gives the patch.
        d = r.aitools("git", "log", "-p", "-n", "1", path)
        cmd = ((d.get("error") or {}).get("repairs") or [{}])[0].get("command", "")
        if "patch" in d.get("fields", []):
            row = (d.get("items") or [[]])[0]
            d = {"files": row[d["fields"].index("patch")] if len(row) == len(d["fields"]) else []}
        elif cmd.startswith("aitools schema") or not cmd.startswith("aitools "):
            r.aitools(*cmd.split()[1:])
            sha = (log_shas(r.aitools("git", "log", "--limit", "1", path)) or [""])[0]
            d = r.aitools("git", "diff", "--ref", f"{sha}^!", "--", path)
        else:
            d = r.aitools(*shlex.split(cmd)[1:])
        r.ok = [f.get("path") for f in d.get("files", [])] == [path] and bool(d["files"][0].get("hunks"))

    def sh(r):
        p = r.sh(f"git log -p -n 1 -- {path}")
        r.ok = p.returncode == 0 and b"+++ b/" + path.encode() in p.stdout

    return "the last change to a file (git log -p -n 1)", None, ai, sh, lambda r: r.ok


def t_show_stat():
    def want(root):
        # git show --stat's files (a merge: against its first parent, as --stat does).
        p = subprocess.run(["git", "show", "--format=", "--numstat", "HEAD~2"], cwd=root, capture_output=True)
        return sorted(l.split("\t")[2] for l in p.stdout.decode().splitlines())

    def ai(r):
        d = follow(r, ["git", "show", "--stat", "HEAD~2"], ["git", "show", "HEAD~2", "--max-lines", "1"])
        r.ok = sorted(f.get("path") for f in d.get("files", [])) == want(r.root)

    def sh(r):
        p = r.sh("git show --stat HEAD~2")
        r.ok = p.returncode == 0 and all(f.encode() in p.stdout for f in want(r.root))

    return "the files a commit changed (git show --stat)", None, ai, sh, lambda r: r.ok


def t_jq_names():
    def want(root):
        with open(os.path.join(root, USERS)) as f:
            return [u["name"] for u in json.load(f)["users"]]

    def ai(r):
        # jq's path through an array: answered as json select (0.6: one call; a repair before).
        d = follow(r, ["json", "get", USERS, ".users[].name"], ["json", "select", USERS, "/users", "--pick", "/name"])
        r.ok = picked(d, "/name") == want(r.root)

    def sh(r):
        p = r.sh(f"jq -r '.users[].name' {USERS}")
        r.ok = p.stdout.decode().split() == want(r.root)

    return "each name in a JSON array (jq .users[].name)", t_json_select()[1], ai, sh, lambda r: r.ok


TASKS = [t_definition, t_rename, t_indentation, t_patch, t_log, t_restore, t_crlf, t_uses, t_last_change,
         t_find_name, t_two_commits, t_json_select, t_author_since, t_format, t_patch_of_file, t_show_stat,
         t_jq_names]


# ------------------------------------------------------------------ ripgrep
# Tasks on a second repository (BurntSushi/ripgrep, a Rust tree with binary test
# data), given as the second argument: the same habits on files the flask tasks
# never name.
RG_PATHUTIL = "crates/ignore/src/pathutil.rs"


def r_history():
    def want(root):
        return git_lines(root, "log", "-n", "5", "--format=%H", "--", RG_PATHUTIL)

    def ai(r):
        # git's spelling, as people type it for a file's history.
        d = follow(r, ["git", "log", "--oneline", "-n", "5", "--", RG_PATHUTIL],
                   ["git", "log", "--limit", "5", RG_PATHUTIL])
        r.ok = same_commits(log_shas(d), want(r.root))

    def sh(r):
        p = r.sh(f"git log --oneline -n 5 -- {RG_PATHUTIL}")
        short = [l.split()[0] for l in p.stdout.decode().splitlines()]
        r.ok = same_commits(short, want(r.root))

    return "rg: the history of a file (git log --oneline)", None, ai, sh, lambda r: r.ok


def r_grep_tree():
    pattern = "fn is_hidden"

    def want(root):
        p = subprocess.run(["grep", "-rn", pattern, "crates"], cwd=root, capture_output=True)
        return sorted(":".join(l.split(":")[:2]) for l in p.stdout.decode().splitlines())

    def ai(r):
        # Across the whole tree (tests/data holds binary files): the plain call.
        d = r.aitools("search", pattern)
        got = []
        for b in d.get("blocks", []):
            got += [f"{b.get('path')}:{l.split(':', 1)[0]}" for l in b.get("lines", []) if l.split(":", 1)[0].isdigit()]
        r.ok = sorted(got) == want(r.root)

    def sh(r):
        p = r.sh(f"grep -rn '{pattern}' .")
        r.ok = sorted(":".join(l[2:].split(":")[:2]) for l in p.stdout.decode().splitlines()) == want(r.root)

    return "rg: a definition's name across the tree", None, ai, sh, lambda r: r.ok


def r_config():
    old, new = "debug = 1", 'debug = "line-tables-only"'

    def ai(r):
        r.aitools("edit", "Cargo.toml", "--old", old, "--new", new, writes=["Cargo.toml"])

    def sh(r):
        r.sh(f"sed -i 's/^{old}$/{new}/' Cargo.toml", writes=["Cargo.toml"])
        r.sh("grep -n 'line-tables-only' Cargo.toml")

    def check(r):
        t = r.read("Cargo.toml").decode()
        return f"[profile.release]\n{new}\n" in t and old not in t

    return "rg: a config change (Cargo.toml profile)", None, ai, sh, check


WIDTH_TESTS = "width-tests"


def r_failing_test():
    def setup(root):
        cases = [f"    #[test]\n    fn case_{i:02}() {{\n        assert_eq!(super::width({i}), {i} + 1);\n    }}\n" for i in range(40)]
        cases.insert(23, '    #[test]\n    fn wide_glyph() {\n        let got = super::width(-3);\n'
                         '        assert_eq!(got, -2, "width of a wide glyph");\n    }\n')
        src = "pub fn width(n: i64) -> i64 {\n    if n < 0 { n - 1 } else { n + 1 }\n}\n\n#[cfg(test)]\nmod tests {\n"
        with open(os.path.join(root, "width.rs"), "w") as f:
            f.write(src + "\n".join(cases) + "}\n")
        subprocess.run(["rustc", "--edition", "2021", "--test", "width.rs", "-o", WIDTH_TESTS], cwd=root, check=True)

    quiet = {"RUST_BACKTRACE": "0"}

    def ai(r):
        p = r._run([r.tool, "run", f"./{WIDTH_TESTS}"], extra=quiet)
        out = p.stdout.decode()
        r.ok = "wide_glyph" in out and "width of a wide glyph" in out and "width.rs:" in out

    def sh(r):
        p = r._run(f"./{WIDTH_TESTS}", shell=True, extra=quiet)
        out = p.stdout.decode() + p.stderr.decode()
        r.ok = "wide_glyph" in out and "width of a wide glyph" in out

    return "rg: a failing test's output (41 tests)", setup, ai, sh, lambda r: r.ok


GUIDE = "GUIDE.md"


def r_crlf_region():
    def setup(root):
        path = os.path.join(root, GUIDE)
        with open(path, "rb") as f:
            text = f.read()
        with open(path, "wb") as f:
            f.write(text.replace(b"\n", b"\r\n"))

    def want(root):
        with open(os.path.join(root, GUIDE), "rb") as f:
            return [l.rstrip(b"\r").decode() for l in f.read().split(b"\n")[99:120]]

    def ai(r):
        d = r.aitools("read", GUIDE, "--range", "100:120")
        r.ok = d.get("lines") == want(r.root)

    def sh(r):
        p = r.sh(f"sed -n '100,120p' {GUIDE}")
        r.ok = [l.rstrip("\r") for l in p.stdout.decode().split("\n")[:-1]] == want(r.root)

    return "rg: a region of a CRLF file (21 lines)", setup, ai, sh, lambda r: r.ok


RG_TASKS = [r_history, r_grep_tree, r_config, r_failing_test, r_crlf_region]


def copy_repo(src, dst):
    shutil.copytree(src, dst, symlinks=True, ignore=shutil.ignore_patterns(".venv", "node_modules"))
    if not os.path.isdir(os.path.join(dst, ".git")):
        subprocess.run(["git", "init", "-q"], cwd=dst, check=True)
        subprocess.run(["git", "add", "-A"], cwd=dst, check=True)
        subprocess.run(
            ["git", "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "base"],
            cwd=dst,
            check=True,
        )


def main():
    global SHOW
    args = sys.argv[1:]
    tool = None
    if "--show" in args:
        # Every call's output on stderr, to see what each byte is.
        SHOW = True
        args.remove("--show")
    if "--bin" in args:
        i = args.index("--bin")
        tool = os.path.abspath(args[i + 1])
        del args[i : i + 2]
    if not args or not os.path.isdir(args[0]):
        print("everyday.py: no repository given; skipping. Usage: benches/everyday.py REPO [--bin aitools]")
        print("e.g. git clone https://github.com/pallets/flask /tmp/flask && benches/everyday.py /tmp/flask")
        return 0
    repo = os.path.abspath(args[0])
    rg = os.path.abspath(args[1]) if len(args) > 1 else None
    if rg and not os.path.exists(os.path.join(rg, RG_PATHUTIL)):
        print(f"everyday.py: {rg} is not a ripgrep checkout (no {RG_PATHUTIL}); the rg tasks name its files.")
        return 0
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for cand in [tool, f"{here}/target/release/aitools", f"{here}/target/debug/aitools", shutil.which("aitools")]:
        if cand and os.path.exists(cand):
            tool = cand
            break
    if not tool:
        print("everyday.py: no aitools binary (cargo build --release); skipping.")
        return 0
    if not os.path.exists(os.path.join(repo, FLASK_HELPERS)):
        print(f"everyday.py: {repo} is not a flask checkout (no {FLASK_HELPERS}); the tasks name its files.")
        return 0

    work = tempfile.mkdtemp(prefix="everyday-")
    rows = []
    try:
        # What an agent reads first to use aitools for these tasks.
        learn = Route(repo, tool, os.path.join(work, "learn-state"))
        learn.aitools("--help")
        learn.aitools("schema", "read", "search", "edit", "replace", "apply", "undo", "code", "defs")
        for make, src in [(t, repo) for t in TASKS] + [(t, rg) for t in RG_TASKS if rg]:
            name, setup, ai, sh, check = make()
            result = []
            routes = [("aitools", ai), ("shell", sh)]
            if name in EXTRA:
                routes.append(("extra", EXTRA[name][1]))
            for label, route in routes:
                base = os.path.join(work, f"{make.__name__}-{label}")
                os.makedirs(base)
                root = os.path.join(base, "repo")
                copy_repo(src, root)
                if setup:
                    setup(root)
                r = Route(root, tool, os.path.join(base, "state"))
                r.ok = False
                route(r)
                result.append((r.calls, r.failed, r.silent, r.bytes, check(r)))
            rows.append((name, result, src))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(f"aitools: {tool}\nrepository: {repo}" + (f", {rg}" if rg else "") + "\n")
    head = f"{'task':<46} | {'aitools calls/fail/silent':>24} {'bytes':>7} {'end':>5} | {'shell calls/fail/silent':>23} {'bytes':>7} {'end':>5}"
    print(head)
    print("-" * len(head))
    tot = [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]
    per = {}
    for name, res, src in rows:
        cells = []
        sub = per.setdefault(src, [[0, 0, 0, 0, 0], [0, 0, 0, 0, 0]])
        for k, (c, f, s, b, ok) in enumerate(res[:2]):
            cells.append(f"{f'{c}/{f}/{s}':>24} {b:>7} {'ok' if ok else 'WRONG':>5}")
            for j, v in enumerate((c, f, s, b, 0 if ok else 1)):
                tot[k][j] += v
                sub[k][j] += v
        print(f"{name:<46} | {cells[0]} | {cells[1][1:]}")
    print("-" * len(head))
    totals = [(f"total {os.path.basename(src)}", sub) for src, sub in per.items()] if len(per) > 1 else []
    for label, sums in totals + [("total", tot)]:
        t = [f"{f'{c}/{f}/{s}':>24} {b:>7} {f'{w} bad':>5}" for c, f, s, b, w in sums]
        print(f"{label:<46} | {t[0]} | {t[1][1:]}")
    for name, res, _ in rows:
        for c, f, s, b, ok in res[2:]:
            print(f"not counted: {name}, {EXTRA[name][0]}: {c}/{f}/{s} calls/fail/silent, {b} bytes, end {'ok' if ok else 'WRONG'}")
    print(f"\nlearning aitools (--help + one schema call for read search edit replace apply undo code defs): {learn.bytes} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
