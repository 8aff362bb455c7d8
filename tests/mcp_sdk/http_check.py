"""The Python SDK's Streamable HTTP client (PyPI `mcp`) drives `aitools mcp --http`:
list the tools, read, edit, undo, in both eras (mode="auto" probes server/discover
and stays on 2026-07-28; mode="legacy" uses the initialize handshake and a session).
The token goes as a bearer header; a client without it is refused.

Usage: python http_check.py <mcp_url> <token> <workspace root>. Exits non-zero on any mismatch.
"""

import asyncio
import os
import sys

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

URL, TOKEN, ROOT = sys.argv[1], sys.argv[2], sys.argv[3]


def transport(token: str):
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    return streamable_http_client(URL, http_client=http)


async def scenario(mode: str) -> None:
    path = os.path.join(ROOT, f"notes-{mode}.txt")
    with open(path, "w") as f:
        f.write("alpha\nbeta\n")
    async with Client(transport(TOKEN), mode=mode, raise_exceptions=True) as client:
        want = "2026-07-28" if mode == "auto" else "2025-11-25"
        assert client.protocol_version == want, (mode, client.protocol_version)
        names = {t.name for t in (await client.list_tools()).tools}
        for need in ("read", "edit", "undo", "aitools"):
            assert need in names, (mode, need, sorted(names))
        rel = os.path.basename(path)
        read = await client.call_tool("read", {"path": rel})
        assert not read.is_error and read.structured_content["lines"] == ["alpha", "beta"], read
        edit = await client.call_tool("edit", {"path": rel, "old": "beta", "new": "gamma"})
        assert not edit.is_error, edit.structured_content
        with open(path) as f:
            assert f.read() == "alpha\ngamma\n"
        undo = await client.call_tool("undo", {"op_id": edit.structured_content["op_id"]})
        assert not undo.is_error, undo.structured_content
        with open(path) as f:
            assert f.read() == "alpha\nbeta\n"
    print(f"mcp sdk http client, mode={mode}: ok")


async def refused() -> None:
    try:
        async with Client(transport("wrong"), mode="legacy", raise_exceptions=True) as client:
            await client.list_tools()
    except BaseException:  # the SDK wraps the 401 in its own error types
        print("wrong token: refused")
        return
    raise AssertionError("a wrong token was accepted")


def main() -> None:
    for mode in ("auto", "legacy"):
        asyncio.run(scenario(mode))
    asyncio.run(refused())


if __name__ == "__main__":
    main()
