#!/usr/bin/env python3
"""`code refs` and `code rename` against oracles that are not aitools, on a
checkout of pallets/flask: jedi's get_references (precision and recall of the
listed (path, line) pairs per module-level name), rope's rename (the changed
(path, line) pairs equal), and flask's own test suite after our renames.

A measurement, not a CI test. Usage (a venv with jedi, rope, pytest and the
checkout installed: `pip install jedi rope pytest -e FLASK`):

    VENV/bin/python benches/rename_oracle.py FLASK AITOOLS [--pytest]

FLASK is a git checkout (it is reset with `git checkout .` between renames).
"""

import json
import os
import re
import subprocess
import sys

NAMES = [
    "get_debug_flag",
    "stream_with_context",
    "make_response",
    "url_for",
    "get_flashed_messages",
    "send_from_directory",
    "has_request_context",
    "render_template_string",
    "get_template_attribute",
    "find_package",
    "locate_app",
    "Blueprint",
]

RENAMES = [
    ("get_debug_flag", "get_debug_flag_x"),
    ("stream_with_context", "stream_with_ctx"),
    ("locate_app", "find_app_in_module"),
]


def find_def(root, name):
    pat = re.compile(rf"^(def|class) {re.escape(name)}\b", re.M)
    for d, _, files in sorted(os.walk(os.path.join(root, "src"))):
        for f in sorted(files):
            if f.endswith(".py"):
                p = os.path.join(d, f)
                text = open(p, encoding="utf-8").read()
                m = pat.search(text)
                if m:
                    line = text.count("\n", 0, m.start()) + 1
                    col = len(m.group(1)) + 1
                    return p, line, col, "class" if m.group(1) == "class" else "function"
    return None


def aitools(tool, root, *args):
    out = subprocess.run([tool, *args], cwd=root, capture_output=True, text=True)
    return json.loads(out.stdout or out.stderr)


def jedi_refs(root, name):
    import jedi

    found = find_def(root, name)
    if not found:
        return None, None
    path, line, col, kind = found
    project = jedi.Project(root)
    script = jedi.Script(path=path, project=project)
    refs = script.get_references(line, col, scope="project")
    got = set()
    for r in refs:
        if r.module_path is None:
            continue
        rel = os.path.relpath(str(r.module_path), root)
        if rel.startswith(".."):
            continue
        got.add((rel, r.line))
    return got, kind


def our_refs(tool, root, name):
    r = aitools(tool, root, "code", "refs", name, "--limit", "100000")
    return {(x["path"], x["line"]) for x in r.get("refs", []) if x["path"].endswith(".py")}


def changed_lines(root):
    diff = subprocess.run(
        ["git", "diff", "-U0"], cwd=root, capture_output=True, text=True
    ).stdout
    out = set()
    path = None
    for l in diff.splitlines():
        if l.startswith("+++ b/"):
            path = l[6:]
        elif l.startswith("@@"):
            m = re.match(r"@@ -(\d+)(?:,(\d+))? ", l)
            start, n = int(m.group(1)), int(m.group(2) or 1)
            for k in range(start, start + n):
                out.add((path, k))
    return out


def rope_rename(root, name, new):
    from rope.base.project import Project
    from rope.refactor.rename import Rename

    path, line, col, _ = find_def(root, name)
    project = Project(root, ropefolder=None)
    try:
        res = project.get_resource(os.path.relpath(path, root))
        text = res.read()
        offset = sum(len(l) + 1 for l in text.split("\n")[: line - 1]) + col
        changes = Rename(project, res, offset).get_changes(new)
        project.do(changes)
    finally:
        project.close()
    got = changed_lines(root)
    subprocess.run(["git", "checkout", "-q", "."], cwd=root)
    return got


def main():
    root, tool = sys.argv[1], sys.argv[2]
    run_pytest = "--pytest" in sys.argv
    subprocess.run(["git", "checkout", "-q", "."], cwd=root)
    tp = fp = fn = 0
    print("name\tjedi\tours\tboth\tprecision\trecall")
    for name in NAMES:
        want, _ = jedi_refs(root, name)
        if want is None:
            print(f"{name}\t(no definition found)")
            continue
        got = our_refs(tool, root, name)
        both = want & got
        tp += len(both)
        fp += len(got - want)
        fn += len(want - got)
        p = len(both) / len(got) if got else 1.0
        r = len(both) / len(want) if want else 1.0
        print(f"{name}\t{len(want)}\t{len(got)}\t{len(both)}\t{p:.2f}\t{r:.2f}")
        if os.environ.get("VERBOSE"):
            print("  only ours:", sorted(got - want)[:10])
            print("  only jedi:", sorted(want - got)[:10])
    print(f"ALL\t\t\t\t{tp / max(1, tp + fp):.3f}\t{tp / max(1, tp + fn):.3f}")
    print()
    print("rename\trope\tours\tequal\tours_ok\tpytest")
    for name, new in RENAMES:
        want = rope_rename(root, name, new)
        _, _, _, kind = find_def(root, name)
        r = aitools(tool, root, "code", "rename", name, new, "--kind", kind, "--in", "src")
        ok = r.get("status")
        got = changed_lines(root)
        verdict = "-"
        if run_pytest:
            t = subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                cwd=root,
                capture_output=True,
                text=True,
            )
            verdict = (t.stdout.strip().splitlines() or ["?"])[-1]
        subprocess.run(["git", "checkout", "-q", "."], cwd=root)
        print(f"{name}\t{len(want)}\t{len(got)}\t{want == got}\t{ok}\t{verdict}")
        if want != got:
            print("  only ours:", sorted(got - want)[:10])
            print("  only rope:", sorted(want - got)[:10])


if __name__ == "__main__":
    main()
