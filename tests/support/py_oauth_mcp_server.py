"""An MCP server that asks for OAuth (PyPI `fastmcp`, its in-memory OAuth
2.1 authorization server: metadata, dynamic registration, PKCE; it grants
at once, as if the user had said yes), on 127.0.0.1, for the tests.

    python py_oauth_mcp_server.py PORT [no-cors-token | short-tokens]

The MCP endpoint is /mcp; the authorization server lives on the same
origin. Every route answers CORS (Starlette's CORSMiddleware) and exposes
WWW-Authenticate, so a page can read the 401's challenge; with
`no-cors-token` the token endpoint alone answers without CORS (as many
real ones do); with `short-tokens` access tokens last 3 s. Prints `ready`
once it listens.
"""

import sys

import uvicorn
from fastmcp import FastMCP
from fastmcp.server.auth.providers.in_memory import InMemoryOAuthProvider
from mcp.server.auth.settings import ClientRegistrationOptions
from starlette.middleware.cors import CORSMiddleware

port = int(sys.argv[1])
variant = sys.argv[2] if len(sys.argv) > 2 else ""
no_cors_token = variant == "no-cors-token"
if variant == "short-tokens":
    # Access tokens that run out after 3 s, to be refreshed.
    import fastmcp.server.auth.providers.in_memory as in_memory

    in_memory.DEFAULT_ACCESS_TOKEN_EXPIRY_SECONDS = 3
base = f"http://127.0.0.1:{port}"

auth = InMemoryOAuthProvider(
    base_url=base,
    client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=["notes"], default_scopes=["notes"]),
    required_scopes=["notes"],
)
mcp = FastMCP("py-oauth-server", auth=auth)


@mcp.tool()
def secret_note() -> str:
    """Returns a note only a signed-in user may read."""
    return "the owl flies at midnight"


inner = mcp.http_app(path="/mcp", host_origin_protection=False)
cors = CORSMiddleware(
    inner,
    allow_origins=["*"],
    allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
    allow_headers=["*", "authorization"],
    expose_headers=["Mcp-Session-Id", "MCP-Protocol-Version", "WWW-Authenticate"],
)


async def app(scope, receive, send):
    if no_cors_token and scope["type"] == "http" and scope["path"] == "/token":
        # The SDK gives its token route CORS of its own: take it away.
        async def without_cors(message):
            if message["type"] == "http.response.start":
                message["headers"] = [(k, v) for k, v in message.get("headers", []) if not k.lower().startswith(b"access-control-")]
            await send(message)

        return await inner(scope, receive, without_cors)
    return await cors(scope, receive, send)


class Ready(uvicorn.Server):
    async def startup(self, sockets=None):
        await super().startup(sockets)
        print("ready", flush=True)


Ready(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")).run()
