"""A real MCP client (the Python SDK, PyPI `mcp`) drives `aitools mcp`: list the
tools, read, edit, undo, a command through the generic `aitools` tool, in both eras (mode="auto" probes server/discover and stays
on 2026-07-28; mode="legacy" uses the initialize handshake).

Usage: python client_check.py <path to aitools>. Exits non-zero on any mismatch.
"""

import asyncio
import json
import os
import subprocess
import sys
import tempfile

from mcp import Client, StdioServerParameters

AITOOLS = os.path.abspath(sys.argv[1])


async def scenario(mode: str, root: str) -> None:
    path = os.path.join(root, "notes.txt")
    with open(path, "w") as f:
        f.write("alpha\nbeta\n")
    env = dict(os.environ)
    env["XDG_STATE_HOME"] = os.path.join(root, ".state-" + mode)
    params = StdioServerParameters(command=AITOOLS, args=["mcp", "--root", root], env=env, cwd=root)
    async with Client(params, mode=mode, raise_exceptions=True) as client:
        want_version = "2026-07-28" if mode == "auto" else "2025-11-25"
        assert client.protocol_version == want_version, (mode, client.protocol_version)
        tools = await client.list_tools()
        names = {t.name for t in tools.tools}
        for want in ("read", "edit", "undo", "code_outline", "aitools"):
            assert want in names, (mode, want, sorted(names))
        assert "tx_commit" not in names, sorted(names)
        read = await client.call_tool("read", {"path": "notes.txt"})
        assert not read.is_error, read
        assert read.structured_content["lines"] == ["alpha", "beta"], read.structured_content
        assert json.loads(read.content[0].text) == read.structured_content
        edit = await client.call_tool("edit", {"path": "notes.txt", "old": "beta", "new": "gamma"})
        assert not edit.is_error, edit.structured_content
        with open(path) as f:
            assert f.read() == "alpha\ngamma\n"
        op = edit.structured_content["op_id"]
        undo = await client.call_tool("undo", {"op_id": op})
        assert not undo.is_error, undo.structured_content
        with open(path) as f:
            assert f.read() == "alpha\nbeta\n"
        bad = await client.call_tool("edit", {"path": "notes.txt", "old": "zzz", "new": "y"})
        assert bad.is_error and bad.structured_content["error"]["repairs"], bad
        # Any command not listed runs through the generic tool.
        status = await client.call_tool("aitools", {"command": "tx status"})
        assert not status.is_error and status.structured_content["command"] == "tx status", status
        unknown = await client.call_tool("aitools", {"command": "no such"})
        assert unknown.is_error and unknown.structured_content["error"]["repairs"], unknown
    print(f"mcp sdk client, mode={mode}: ok")


def main() -> None:
    for mode in ("auto", "legacy"):
        with tempfile.TemporaryDirectory() as root:
            subprocess.run(["git", "init", "-q", root], check=True)
            asyncio.run(scenario(mode, os.path.realpath(root)))


if __name__ == "__main__":
    main()
