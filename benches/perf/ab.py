#!/usr/bin/env python3
"""Interleaved A/B timing of two commands: A, B, A, B, ... (after warm-up runs),
so load changes on a shared machine hit both sides alike. Per side it reports the
median wall time (spawn to exit) and the median CPU time (user+sys of the child,
from wait4), and their ratios A/B.

    ab.py NAME 'CMD A' 'CMD B' [--runs N] [--warmup N] [--prepare 'SH'] [--json FILE]
          [--round 'SH'] [--same PATH_A PATH_B ...]

Commands are split like a shell's words (shlex) and spawned directly, with no
shell in between (use `sh -c '...'` for a pipeline or a redirect); stdout and
stderr go to /dev/null. --prepare runs (through sh, untimed) before every run of
either side.

Write rows: --round runs (through sh, untimed) once per round, before both sides
(it restores each side's own copy of the fixture); after both sides ran, every
--same pair (A's file or tree, B's) must hold the same bytes: the SHA-256 of every
regular file and the target of every symlink, by relative path (a tree's `.git`
is skipped). Every round is checked, warm-up rounds too; a difference stops the
run. Exit status: 1 when a side exits with a code other than 0 or an
--allow-exit one (a failing side is no measure), or when the results differ.
"""
import argparse, hashlib, json, os, shlex, statistics, subprocess, sys, time


def digest(path):
    """{relative path: sha256 of its bytes (or 'link:' + target)} of a file or tree."""
    def one(p):
        if os.path.islink(p):
            return "link:" + os.readlink(p)
        h = hashlib.sha256()
        with open(p, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        return h.hexdigest()
    if not os.path.isdir(path) or os.path.islink(path):
        return {".": one(path)}
    out = {}
    for d, dirs, files in os.walk(path):
        dirs[:] = sorted(x for x in dirs if not (d == path and x == ".git"))
        rel = os.path.relpath(d, path)
        out.setdefault(rel + "/", "dir")
        for x in files + [x for x in dirs if os.path.islink(os.path.join(d, x))]:
            out[os.path.join(rel, x)] = one(os.path.join(d, x))
    return out


def check_same(pairs, round_no):
    for a, b in pairs:
        da, db = digest(a), digest(b)
        if da != db:
            diff = sorted(k for k in da.keys() | db.keys() if da.get(k) != db.get(k))
            sys.exit(f"ab.py: results differ in round {round_no}: {a} vs {b}: "
                     f"{len(diff)} paths, first {diff[:3]}")


def run(argv, devnull, allowed):
    t0 = time.perf_counter_ns()
    pid = os.posix_spawnp(argv[0], argv, os.environ,
                          file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1),
                                        (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status, ru = os.wait4(pid, 0)
    wall = (time.perf_counter_ns() - t0) / 1e9
    if os.waitstatus_to_exitcode(status) not in allowed:
        sys.exit(f"ab.py: {shlex.join(argv)} exited {os.waitstatus_to_exitcode(status)}")
    return wall, ru.ru_utime + ru.ru_stime


def main():
    p = argparse.ArgumentParser()
    p.add_argument("name")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--prepare")
    p.add_argument("--json")
    p.add_argument("--round", help="sh, untimed, once per round before both sides")
    p.add_argument("--same", nargs=2, action="append", default=[], metavar=("A", "B"),
                   help="after each round: A's file/tree must equal B's (sha256 per file)")
    p.add_argument("--allow-exit", type=int, action="append", default=[0],
                   help="an exit code that is still a result (find's 3: partial)")
    o = p.parse_args()
    sides = [shlex.split(o.a), shlex.split(o.b)]
    devnull = os.open(os.devnull, os.O_WRONLY)
    res = [{"wall": [], "cpu": []}, {"wall": [], "cpu": []}]
    for i in range(o.warmup + o.runs):
        if o.round:
            subprocess.run(["sh", "-c", o.round], check=True)
        for k in (0, 1) if i % 2 == 0 else (1, 0):
            if o.prepare:
                subprocess.run(["sh", "-c", o.prepare], check=True)
            wall, cpu = run(sides[k], devnull, o.allow_exit)
            if i >= o.warmup:
                res[k]["wall"].append(wall)
                res[k]["cpu"].append(cpu)
        check_same(o.same, i)
    med = [{m: statistics.median(r[m]) for m in ("wall", "cpu")} for r in res]
    ratio = {m: med[0][m] / med[1][m] if med[1][m] else float("nan") for m in ("wall", "cpu")}
    print(f"{o.name:36} aitools {med[0]['wall']*1e3:9.2f} ms (cpu {med[0]['cpu']*1e3:8.2f})"
          f"  ref {med[1]['wall']*1e3:9.2f} ms (cpu {med[1]['cpu']*1e3:8.2f})"
          f"  ratio wall {ratio['wall']:.2f} cpu {ratio['cpu']:.2f}"
          f"  load {os.getloadavg()[0]:.1f}"
          + (f"  identical x{o.warmup + o.runs}" if o.same else ""))
    if o.json:
        with open(o.json, "w") as f:
            json.dump({"name": o.name, "a": o.a, "b": o.b, "runs": o.runs,
                       "median": med, "ratio": ratio,
                       "load": os.getloadavg(), "checked_rounds": (o.warmup + o.runs) if o.same else 0}, f)


main()
