#!/usr/bin/env python3
"""Edit formats side by side: the same edits written the way models write them
(exact --old, --old with whitespace drift, line ranges, unified diffs, V4A
patches, line anchors), run through the built binary against a file that changed
since the model read it (two lines landed near its top), as happens between an
agent's read and its write.

Usage: benches/edit_formats.py [--bin PATH] [--show]

For each format: first-call success, success after following the error's first
repair when that repair is a write (one retry, as an agent would), silent wrong
writes (exit 0 but not the intended file: the worst outcome), and bytes per
edit: what the model writes (argv + stdin) and what it reads back (stdout +
stderr), retries included. `read --anchors`' own cost is measured apart.
The files are generated (Python and Rust modules whose functions share
boilerplate lines, so context matters); each edit runs on a fresh copy.
"""

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHOW = "--show" in sys.argv
BIN = None
for i, a in enumerate(sys.argv):
    if a == "--bin" and i + 1 < len(sys.argv):
        BIN = sys.argv[i + 1]
if BIN is None:
    for p in ("target/release/aitools", "target/debug/aitools"):
        if os.path.exists(os.path.join(ROOT, p)):
            BIN = os.path.join(ROOT, p)
            break
if BIN is None:
    sys.exit("no aitools binary: cargo build first, or --bin PATH")

PY_NAMES = ["price", "discount", "tax", "shipping", "refund", "credit", "fee", "bonus",
            "rebate", "penalty", "tip", "levy", "duty", "toll", "rent", "wage"]
RS_NAMES = ["parse", "render", "encode", "decode", "split", "join", "trim", "pad",
            "merge", "diff", "hash", "sign", "pack", "unpack", "scan", "fold"]


def py_file():
    out = ['"""Order arithmetic: every function takes an order and a rate."""', "",
           "import logging", "", "log = logging.getLogger(__name__)", ""]
    spans = {}
    for i, n in enumerate(PY_NAMES):
        start = len(out) + 1
        out += ["", f"def {n}(order, rate={i + 1}.5):",
                f'    """The {n} of an order."""',
                "    if order is None:",
                "        return None",
                f"    value = order.total * rate + {i}",
                f'    log.debug("{n}: %s", value)',
                f"    return round(value, {i % 3 + 1})"]
        spans[n] = start  # 0-based index of the blank line before the def
    return out, spans


def rs_file():
    out = ["//! Text helpers: every function takes a buffer and a width.", "",
           "use std::fmt::Write;", ""]
    spans = {}
    for i, n in enumerate(RS_NAMES):
        start = len(out) + 1
        out += ["", f"pub fn {n}(buf: &str, width: usize) -> Option<String> {{",
                "    if buf.is_empty() {",
                "        return None;",
                "    }",
                f"    let n = buf.len() * width + {i};",
                f'    log::debug!("{n}: {{}}", n);',
                f"    Some(format!(\"{{:>{i + 2}}}\", n))",
                "}"]
        spans[n] = start
    return out, spans


def tasks():
    """(file, lines, s, e, new): replace lines[s:e] (0-based) with `new`."""
    out = []
    py, ps = py_file()
    for k, n in enumerate(PY_NAMES):
        d = ps[n]  # d = def line index
        kind = k % 4
        if kind == 0:  # one unique line changed
            s, e = d + 4, d + 5
            new = [py[s].replace("+", "- 1 +")]
        elif kind == 1:  # a boilerplate block changed (the same lines in every function)
            s, e = d + 2, d + 4
            new = ["    if order is None or not order.items:", "        return 0"]
        elif kind == 2:  # a line added after another
            s, e = d + 5, d + 6
            new = [py[s], "    value = max(value, 0)"]
        else:  # a line deleted
            s, e = d + 5, d + 6
            new = []
        out.append(("svc.py", py, s, e, new))
    rs, rsp = rs_file()
    for k, n in enumerate(RS_NAMES):
        d = rsp[n]
        kind = k % 4
        if kind == 0:
            s, e = d + 4, d + 5
            new = [rs[s].replace("width", "width.max(1)")]
        elif kind == 1:
            s, e = d + 1, d + 4
            new = ["    if buf.trim().is_empty() {", "        return Some(String::new());", "    }"]
        elif kind == 2:
            s, e = d, d + 1
            new = [f"pub fn {n}(buf: &str, width: usize) -> Option<String> {{", "    let width = width.min(80);"]
        else:
            s, e = d + 6, d + 7
            new = ["    Some(n.to_string())"]
        out.append(("text.rs", rs, s, e, new))
    return out


DRIFT = ["# (two lines another edit added)", "# since the model read the file"]
SHIFT = len(DRIFT)


def drifted(lines):
    """The file as it is now: DRIFT inserted after line 2."""
    return lines[:2] + DRIFT + lines[2:]


def text(lines):
    return "".join(l + "\n" for l in lines)


def enclosing(lines, s):
    """The nearest def/fn line at or above s (what a model puts after @@)."""
    for i in range(min(s, len(lines) - 1), -1, -1):
        t = lines[i].strip()
        if t.startswith("def ") or t.startswith("pub fn "):
            return i
    return None


def unique_old(lines, s, e):
    """The changed lines, grown upward until they occur once (a careful --old)."""
    body = "\n".join(lines[s:e])
    full = "\n".join(lines)
    while s > 0 and (e == s or full.count(body) != 1):
        s -= 1
        body = "\n".join(lines[s:e])
    return s, body


def old_new(lines, s, e, new):
    """--old and --new as a careful model writes them: the changed lines, grown
    upward until unique; a deletion quotes the next line too (an --old of the
    line alone would leave its newline behind)."""
    if not new and e < len(lines):
        e += 1
        new = [lines[e - 1]]
    os_, old = unique_old(lines, s, e)
    return os_, old, "\n".join(lines[os_:s] + new)


def drift_ws(line):
    """Indentation lost: the block quoted four spaces shallower and its trailing
    whitespace gone (how models often re-type code they read)."""
    cut = min(4, len(line) - len(line.lstrip(" ")))
    return line[cut:].rstrip()


class Env:
    def __init__(self, name, content):
        self.dir = tempfile.mkdtemp(prefix="ef-")
        self.state = tempfile.mkdtemp(prefix="ef-state-")
        subprocess.run(["git", "init", "-q", self.dir], check=True)
        self.name = name
        with open(os.path.join(self.dir, name), "w") as f:
            f.write(content)
        self.env = dict(os.environ, XDG_STATE_HOME=self.state,
                        AITOOLS_FEEDBACK_DIR=os.path.join(self.state, "fb"))

    def run(self, args, stdin=None):
        p = subprocess.run([BIN] + args, cwd=self.dir, env=self.env, input=stdin,
                           capture_output=True, text=True)
        sent = sum(len(a.encode()) + 1 for a in args) + len((stdin or "").encode())
        got = len(p.stdout.encode()) + len(p.stderr.encode())
        try:
            j = json.loads(p.stdout or p.stderr)
        except ValueError:
            j = {}
        return p.returncode, j, sent, got

    def read(self):
        with open(os.path.join(self.dir, self.name)) as f:
            return f.read()

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        shutil.rmtree(self.state, ignore_errors=True)


def unified(name, old_lines, new_lines, numbers_off=0):
    d = tempfile.mkdtemp(prefix="ef-diff-")
    a, b = os.path.join(d, "a"), os.path.join(d, "b")
    with open(a, "w") as f:
        f.write(text(old_lines))
    with open(b, "w") as f:
        f.write(text(new_lines))
    out = subprocess.run(["diff", "-u", a, b], capture_output=True, text=True).stdout
    shutil.rmtree(d, ignore_errors=True)
    lines = out.splitlines()
    res = [f"--- a/{name}", f"+++ b/{name}"]
    for l in lines[2:]:
        if l.startswith("@@") and numbers_off:
            parts = l.split(" ")
            def shift(p, sign):
                nums = p[1:].split(",")
                nums[0] = str(int(nums[0]) + numbers_off)
                return sign + ",".join(nums)
            parts[1] = shift(parts[1], "-")
            parts[2] = shift(parts[2], "+")
            l = " ".join(parts)
        res.append(l)
    return "\n".join(res) + "\n"


def v4a(name, lines, s, e, new, ws=False):
    """A V4A patch as Codex writes one: @@ the enclosing def, 3 lines of context."""
    a = max(0, s - 3)
    z = min(len(lines), e + 3)
    anchor = enclosing(lines, s - 1) if s > 0 else None
    out = ["*** Begin Patch", f"*** Update File: {name}"]
    if anchor is not None and anchor < a:
        out.append("@@ " + lines[anchor].strip())
    else:
        out.append("@@")
    ctx = (lambda l: drift_ws(l)) if ws else (lambda l: l)
    out += [" " + ctx(l) for l in lines[a:s]]
    out += ["-" + ctx(l) for l in lines[s:e]]
    out += ["+" + l for l in new]
    out += [" " + ctx(l) for l in lines[e:z]]
    out.append("*** End Patch")
    return "\n".join(out) + "\n"


WRITE_REPAIRS = ("apply", "edit", "insert", "replace")


def attempt(env, args, stdin=None):
    """First call; on failure the error's first repair, if it is a write."""
    code, j, sent, got = env.run(args, stdin)
    if code in (0, 3):
        return True, False, sent, got, 1
    rep = (j.get("error") or {}).get("repairs") or []
    cmd = rep[0].get("command", "") if rep else ""
    words = shlex.split(cmd) if cmd else []
    if len(words) > 1 and words[0] == "aitools" and words[1] in WRITE_REPAIRS:
        c2, _, s2, g2 = env.run(words[1:], stdin if "--stdin" in words else None)
        return False, c2 in (0, 3), sent + s2, got + g2, 2
    return False, False, sent, got, 1


def run_format(fmt, task):
    name, lines, s, e, new = task
    now = drifted(lines)
    ns, ne = s + SHIFT, e + SHIFT
    want = text(now[:ns] + new + now[ne:])
    env = Env(name, text(now))
    pre_sent = pre_got = 0
    try:
        if fmt == "edit --old (exact)":
            os_, old, newb = old_new(lines, s, e, new)
            args = ["edit", name, "--old", old, "--new", newb]
            r = attempt(env, args)
        elif fmt == "edit --old (whitespace drift)":
            os_, old, newb = old_new(lines, s, e, new)
            old = "\n".join(drift_ws(l) for l in old.split("\n"))
            newb = "\n".join(drift_ws(l) for l in newb.split("\n"))
            r = attempt(env, ["edit", name, "--old", old, "--new", newb])
        elif fmt == "edit --range (stale numbers)":
            # The model read the file before the drift: its hash and numbers.
            old_env = Env(name, text(lines))
            _, j, ps, pg = old_env.run(["read", name, "--range", f"{s + 1}:{e + 1}"])
            old_env.close()
            h = j.get("hash", "")
            rng = f"{s + 1}:{e}" if e > s else f"{s + 1}"
            r = attempt(env, ["edit", name, "--range", rng, "--expect-hash", h,
                              "--new", "\n".join(new)])
        elif fmt == "apply unified (stale numbers)":
            d = unified(name, lines, lines[:s] + new + lines[e:])
            r = attempt(env, ["apply", "--stdin"], d)
        elif fmt == "apply unified (wrong numbers, +9)":
            d = unified(name, lines, lines[:s] + new + lines[e:], numbers_off=9)
            r = attempt(env, ["apply", "--stdin"], d)
        elif fmt == "apply V4A":
            r = attempt(env, ["apply", "--stdin"], v4a(name, lines, s, e, new))
        elif fmt == "apply V4A (whitespace drift)":
            r = attempt(env, ["apply", "--stdin"], v4a(name, lines, s, e, new, ws=True))
        elif fmt == "edit --at anchors (stale numbers)":
            old_env = Env(name, text(lines))
            lo, hi = max(1, s - 2), min(len(lines), e + 3)
            _, j, ps, pg = old_env.run(["read", name, "--range", f"{lo}:{hi}", "--anchors"])
            _, _, _, plain = old_env.run(["read", name, "--range", f"{lo}:{hi}"])
            old_env.close()
            tags = j.get("anchors", [])
            pre_sent, pre_got = 0, pg - plain  # what --anchors added to the read
            if e > s:
                at = f"{s + 1}:{tags[s + 1 - lo]}"
                to = f"{e}:{tags[e - lo]}"
                args = ["edit", name, "--at", at] + (["--to", to] if e - s > 1 else []) + [
                    "--new", "\n".join(new)]
            else:
                args = None
            r = attempt(env, args)
        else:
            raise ValueError(fmt)
        first, retried, sent, got, calls = r
        got_text = env.read()
        right = got_text == want
        wrong_write = (first or retried) and not right
        if SHOW and not right:
            print(f"--- {fmt} {name}:{s}-{e} first={first} retried={retried}", file=sys.stderr)
        return {
            "first": first and right,
            "after": (first or retried) and right,
            "wrong": wrong_write,
            "sent": sent + pre_sent,
            "got": got + pre_got,
            "calls": calls,
            "anchor_cost": pre_got,
        }
    finally:
        env.close()


FORMATS = [
    "edit --old (exact)",
    "edit --old (whitespace drift)",
    "edit --range (stale numbers)",
    "apply unified (stale numbers)",
    "apply unified (wrong numbers, +9)",
    "apply V4A",
    "apply V4A (whitespace drift)",
    "edit --at anchors (stale numbers)",
]


def main():
    ts = tasks()
    assert all(t[1][t[2]:t[3]] != t[4] for t in ts), "an edit that changes nothing"
    rows = []
    for fmt in FORMATS:
        rs = [run_format(fmt, t) for t in ts]
        n = len(rs)
        rows.append((fmt, n, sum(r["first"] for r in rs), sum(r["after"] for r in rs),
                     sum(r["wrong"] for r in rs), sum(r["sent"] for r in rs) / n,
                     sum(r["got"] for r in rs) / n, sum(r["calls"] for r in rs) / n,
                     sum(r["anchor_cost"] for r in rs) / n))
    print(f"{len(ts)} edits per format ({BIN}); the file gained {SHIFT} lines near its top after the model read it.\n")
    print("| format | first call ok | ok after 1 repair | wrong writes | bytes written/edit | bytes read/edit | calls/edit |")
    print("|---|---|---|---|---|---|---|")
    for fmt, n, f, a, w, s, g, c, ac in rows:
        print(f"| {fmt} | {f}/{n} ({100 * f // n}%) | {a}/{n} ({100 * a // n}%) | {w} | {s:.0f} | {g:.0f} | {c:.2f} |")
    ac = rows[-1][8]
    print(f"\n`read --anchors` costs {ac:.0f} bytes more per read of the edit's lines and 2-3 around them (counted in the anchors row's bytes read).")


if __name__ == "__main__":
    main()
