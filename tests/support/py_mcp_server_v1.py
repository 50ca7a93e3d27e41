"""An MCP server of the Python SDK's 1.x line (PyPI `mcp` 1.9 speaks
2025-03-26, 1.12 speaks 2025-06-18), on 127.0.0.1, for recording the
exchanges the host tests replay (`record-mcp-fixtures.sh`).

    python py_mcp_server_v1.py PORT MODE

MODE is `stateful` (sessions, SSE answers) or `stateless-json`. Prints
`ready` once it listens.
"""

import sys

import anyio
import uvicorn
from pydantic import BaseModel, Field

from mcp.server.fastmcp import Context, FastMCP

port = int(sys.argv[1])
mode = sys.argv[2] if len(sys.argv) > 2 else "stateful"

mcp = FastMCP("py-v1-server", stateless_http=mode != "stateful", json_response=mode == "stateless-json")


@mcp.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@mcp.tool()
async def count(steps: int, ctx: Context) -> str:
    """Counts to `steps`, reporting progress, a tenth of a second per step."""
    for i in range(1, steps + 1):
        await anyio.sleep(0.1)
        await ctx.report_progress(i, steps)
    return f"counted to {steps}"


def echo_back(text: str) -> str:
    """Returns the text as it is."""
    return text


@mcp.tool()
async def grow(ctx: Context) -> str:
    """Adds the tool `echo_back` and announces that the tool list changed."""
    mcp.add_tool(echo_back)
    await ctx.session.send_tool_list_changed()
    return "added echo_back"


class Colour(BaseModel):
    colour: str = Field(description="Your favourite colour", default="green")


if hasattr(Context, "elicit"):

    @mcp.tool()
    async def favourite(ctx: Context) -> str:
        """Asks the user for their favourite colour (elicitation, 2025-06-18)."""
        answer = await ctx.elicit("What is your favourite colour?", Colour)
        if answer.action == "accept":
            return f"favourite colour: {answer.data.colour}"
        return f"no colour ({answer.action})"


class Ready(uvicorn.Server):
    async def startup(self, sockets=None):
        await super().startup(sockets)
        print("ready", flush=True)


Ready(uvicorn.Config(mcp.streamable_http_app(), host="127.0.0.1", port=port, log_level="warning")).run()
