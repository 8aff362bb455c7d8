#!/usr/bin/env python3
"""Bytes an MCP host puts in context before its first call: the `tools/list`
reply of `aitools mcp` (one JSON-RPC line, 2026-07-28 era), by default and with
`--tools all`, the largest tools, and the longest description.

Usage: python3 benches/mcp_tools_list.py [path to aitools] (default target/debug/aitools).
"""

import json
import subprocess
import sys
import tempfile

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def tools_list(binary: str, root: str, extra: list):
    msg = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}})
    out = subprocess.run(
        [binary, "mcp", "--root", root, *extra], input=(msg + "\n").encode(), capture_output=True
    )
    lines = out.stdout.decode().splitlines()
    # An older binary without --tools answers an error envelope instead.
    return lines[0] if out.returncode == 0 and lines else None


def main() -> None:
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/debug/aitools"
    with tempfile.TemporaryDirectory() as root:
        subprocess.run(["git", "init", "-q", root], check=True)
        for extra in ([], ["--tools", "all"]):
            line = tools_list(binary, root, extra)
            if line is None:
                print(f"{' '.join(extra):12} not supported by this binary")
                continue
            tools = json.loads(line)["result"]["tools"]
            longest = max(tools, key=lambda t: len(t.get("description", "")))
            big = sorted(tools, key=lambda t: -len(json.dumps(t, separators=(",", ":"))))[:3]
            print(
                f"{' '.join(extra) or 'default':12} {len(line.encode()):>7} B  {len(tools):>2} tools  "
                f"longest description {len(longest['description'])} ({longest['name']})  "
                f"largest: {', '.join(t['name'] for t in big)}"
            )


if __name__ == "__main__":
    main()
