#!/usr/bin/env python3
"""One `aitools mcp` server, five hostile calls in a row (issue 28): `run yes` for
1 s, `check` of TOML nested 10,000 deep, `json get` in JSON nested 100,000 deep,
a `json patch` of 40 copy doublings (dry run), a `read` of the deep file. Prints,
per call, its wall time, isError, the answer's error code, and the server's peak
and current RSS (VmHWM, VmRSS) after it; says so if the server died.

Usage: python3 benches/mcp_bombs.py path/to/aitools
"""
import json
import subprocess
import sys
import tempfile
import time

V = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bombs", "version": "1"},
}


def fixtures(d):
    open(f"{d}/deep.toml", "w").write("a = " + "[" * 10000 + "]" * 10000 + "\n")
    open(f"{d}/deep.json", "w").write("[" * 100000 + "]" * 100000 + "\n")
    open(f"{d}/doc.json", "w").write("{}\n")
    ops = [{"op": "add", "path": "/a", "value": list(range(8))}]
    ops += [{"op": "copy", "from": "/a", "path": "/a/-"} for _ in range(40)]
    return json.dumps(ops)


def rss(pid):
    s = open(f"/proc/{pid}/status").read()
    get = lambda k: int([l for l in s.splitlines() if l.startswith(k)][0].split()[1]) // 1024
    return get("VmHWM"), get("VmRSS")


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        subprocess.run(["git", "init", "-q", d], check=True)
        patch = fixtures(d)
        calls = [
            ("run", {"argv": ["yes"], "timeout": "1s"}),
            ("check", {"paths": ["deep.toml"]}),
            ("json_get", {"path": "deep.json", "pointer": "/0"}),
            ("json_patch", {"path": "doc.json", "stdin_data": patch, "dry_run": True}),
            ("read", {"path": "deep.json"}),
        ]
        p = subprocess.Popen([binary, "mcp", "--root", d, "--tools", "all"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        for i, (tool, args) in enumerate(calls, 1):
            req = {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                   "params": {"name": tool, "arguments": args, "_meta": META}}
            t0 = time.time()
            try:
                p.stdin.write((json.dumps(req) + "\n").encode())
                p.stdin.flush()
                line = p.stdout.readline()
            except BrokenPipeError:
                line = b""
            if not line:
                print(f"{tool:10s} no answer: the server died (exit {p.wait()})")
                return 1
            res = json.loads(line).get("result", {})
            text = (res.get("content") or [{}])[0].get("text", "")
            try:
                code = json.loads(text).get("error", {}).get("code", "ok")
            except ValueError:
                code = text[:60]
            peak, now = rss(p.pid)
            print(f"{tool:10s} {time.time() - t0:6.2f}s isError={res.get('isError')} "
                  f"{code} peak={peak}MB now={now}MB")
        p.stdin.close()
        p.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
