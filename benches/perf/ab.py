#!/usr/bin/env python3
"""Interleaved A/B timing of two commands: A, B, A, B, ... (after warm-up runs),
so load changes on a shared machine hit both sides alike. Per side it reports the
median wall time (spawn to exit) and the median CPU time (user+sys of the child,
from wait4), and their ratios A/B.

    ab.py NAME 'CMD A' 'CMD B' [--runs N] [--warmup N] [--prepare 'SH'] [--json FILE]

Commands are split like a shell's words (shlex) and spawned directly, with no
shell in between (use `sh -c '...'` for a pipeline or a redirect); stdout and
stderr go to /dev/null. --prepare runs (through sh, untimed) before every run of
either side. Exit status: 1 when a side exits with a code other than 0 or an
--allow-exit one (a failing side is no measure).
"""
import argparse, json, os, shlex, statistics, subprocess, sys, time


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
    p.add_argument("--allow-exit", type=int, action="append", default=[0],
                   help="an exit code that is still a result (find's 3: partial)")
    o = p.parse_args()
    sides = [shlex.split(o.a), shlex.split(o.b)]
    devnull = os.open(os.devnull, os.O_WRONLY)
    res = [{"wall": [], "cpu": []}, {"wall": [], "cpu": []}]
    for i in range(o.warmup + o.runs):
        for k in (0, 1) if i % 2 == 0 else (1, 0):
            if o.prepare:
                subprocess.run(["sh", "-c", o.prepare], check=True)
            wall, cpu = run(sides[k], devnull, o.allow_exit)
            if i >= o.warmup:
                res[k]["wall"].append(wall)
                res[k]["cpu"].append(cpu)
    med = [{m: statistics.median(r[m]) for m in ("wall", "cpu")} for r in res]
    ratio = {m: med[0][m] / med[1][m] if med[1][m] else float("nan") for m in ("wall", "cpu")}
    print(f"{o.name:36} aitools {med[0]['wall']*1e3:9.2f} ms (cpu {med[0]['cpu']*1e3:8.2f})"
          f"  ref {med[1]['wall']*1e3:9.2f} ms (cpu {med[1]['cpu']*1e3:8.2f})"
          f"  ratio wall {ratio['wall']:.2f} cpu {ratio['cpu']:.2f}")
    if o.json:
        with open(o.json, "w") as f:
            json.dump({"name": o.name, "a": o.a, "b": o.b, "runs": o.runs,
                       "median": med, "ratio": ratio}, f)


main()
