"""An MCP server that asks for OAuth (PyPI `fastmcp`, its in-memory OAuth
2.1 authorization server: metadata, dynamic registration, PKCE; it grants
at once, as if the user had said yes), on 127.0.0.1, for the tests.

    python py_oauth_mcp_server.py PORT [no-cors-token | short-tokens | preregistered CALLBACK | cimd]

The MCP endpoint is /mcp; the authorization server lives on the same
origin. Every route answers CORS (Starlette's CORSMiddleware) and exposes
WWW-Authenticate, so a page can read the 401's challenge; with
`no-cors-token` the token endpoint alone answers without CORS (as many
real ones do); with `short-tokens` access tokens last 3 s. Prints `ready`
once it listens. `preregistered` registers no clients but knows one,
`air-agent-test`, for CALLBACK; `cimd` registers none but takes a Client
ID Metadata Document (a client id that is its URL).
"""

import json
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
    client_registration_options=ClientRegistrationOptions(
        enabled=variant not in ("preregistered", "cimd"), valid_scopes=["notes"], default_scopes=["notes"]
    ),
    required_scopes=["notes"],
)

if variant == "short-tokens":
    # The in-memory provider revokes a refresh token when its expired
    # access token is shown; real servers refuse the access token and keep
    # the refresh token good.
    import time

    load_access_token = auth.load_access_token

    async def refusing_expired(token):
        found = auth.access_tokens.get(token)
        if found and found.expires_at is not None and found.expires_at < time.time():
            return None
        return await load_access_token(token)

    auth.load_access_token = refusing_expired

if variant == "preregistered":
    # No registration: one client, given out beforehand for the page whose
    # callback is argv[3].
    from mcp.shared.auth import OAuthClientInformationFull

    auth.clients["air-agent-test"] = OAuthClientInformationFull(
        client_id="air-agent-test",
        redirect_uris=[sys.argv[3]],
        token_endpoint_auth_method="none",
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        scope="notes",
    )

if variant == "cimd":
    # No registration, but Client ID Metadata Documents: a client id that
    # is an http(s) URL is fetched, and must name itself and its callbacks.
    import urllib.request

    import anyio
    from mcp.shared.auth import OAuthClientInformationFull

    fetched_documents = []
    known = auth.get_client

    async def get_client(client_id):
        found = await known(client_id)
        if found or not client_id.startswith(("http://", "https://")):
            return found
        def read():
            with urllib.request.urlopen(client_id, timeout=10) as r:
                return json.loads(r.read())

        doc = await anyio.to_thread.run_sync(read)
        fetched_documents.append(client_id)
        if doc.get("client_id") != client_id:
            return None
        client = OAuthClientInformationFull(
            client_id=client_id,
            client_name=doc.get("client_name"),
            redirect_uris=doc["redirect_uris"],
            token_endpoint_auth_method="none",
            grant_types=doc.get("grant_types", ["authorization_code", "refresh_token"]),
            response_types=["code"],
            scope="notes",
        )
        auth.clients[client_id] = client
        print(f"fetched client metadata document {client_id}", flush=True)
        return client

    auth.get_client = get_client
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
    if variant == "cimd" and scope["type"] == "http" and scope["path"] == "/.well-known/oauth-authorization-server":
        # The SDK's metadata, saying that it takes metadata documents.
        parts = []

        async def capture(message):
            if message["type"] == "http.response.body":
                parts.append(message.get("body", b""))
                if not message.get("more_body"):
                    doc = json.loads(b"".join(parts))
                    doc["client_id_metadata_document_supported"] = True
                    body = json.dumps(doc).encode()
                    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), (b"access-control-allow-origin", b"*")]})
                    await send({"type": "http.response.body", "body": body})

        return await inner(scope, receive, capture)
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
