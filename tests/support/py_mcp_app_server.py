"""An MCP App server (PyPI `mcp`) for the tests, on 127.0.0.1: a `pick_color`
tool whose View exercises what the basic example does not, with a
hand-written bridge (no SDK):

- `save_choice` is for the app only (`visibility: ["app"]`) and
  `admin_reset` for the model only; the View calls both;
- the View declares one origin it may reach (this server: GET /ping) and
  fetches it and the origin given as argv[2];
- it reads a resource, updates the model's context, and asks for full
  screen.

    python py_mcp_app_server.py PORT UNDECLARED_ORIGIN

Prints `ready` once it listens.
"""

import sys

import uvicorn
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse

from mcp.server.mcpserver import MCPServer

port = int(sys.argv[1])
undeclared = sys.argv[2]
origin = f"http://127.0.0.1:{port}"
VIEW = "ui://palette/view.html"

mcp = MCPServer("py-app-server")


@mcp.tool(meta={"ui": {"resourceUri": VIEW}})
def pick_color(color: str = "teal") -> str:
    """Shows a palette to pick a colour from."""
    return f"Offered {color}"


@mcp.tool(meta={"ui": {"visibility": ["app"]}})
def save_choice(color: str) -> str:
    """Saves the colour picked in the palette (for the palette only)."""
    return f"saved {color}"


@mcp.tool(meta={"ui": {"visibility": ["model"]}})
def admin_reset() -> str:
    """Resets every choice (for the model only)."""
    return "reset"


@mcp.resource("note://palette", mime_type="text/plain")
def palette() -> str:
    """The colours on offer."""
    return "teal, coral, sand"


HTML = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Palette</title>
<style>body{font-family:sans-serif;margin:8px}button{margin:2px}</style></head>
<body>
<p>Palette <span id="theme"></span> <span id="input"></span> <span id="result"></span></p>
<button id="save">Save (app tool)</button>
<button id="admin">Reset (model tool)</button>
<button id="read">Read palette</button>
<button id="context">Tell the model</button>
<button id="full">Full screen</button>
<button id="fetch">Fetch</button>
<pre id="out"></pre>
<script>
var next = 0, pending = {};
function send(m) { parent.postMessage(Object.assign({ jsonrpc: '2.0' }, m), '*'); }
function request(method, params) {
  return new Promise(function (resolve) { var id = ++next; pending[id] = resolve; send({ id: id, method: method, params: params || {} }); });
}
function show(k, v) { document.getElementById('out').textContent += k + ': ' + v + '\\n'; }
window.addEventListener('message', function (e) {
  var m = e.data;
  if (m && m.id && pending[m.id] && !m.method) { pending[m.id](m); delete pending[m.id]; return; }
  if (!m || !m.method) return;
  if (m.method === 'ui/notifications/tool-input') document.getElementById('input').textContent = 'input=' + JSON.stringify(m.params.arguments);
  if (m.method === 'ui/notifications/tool-result') document.getElementById('result').textContent = 'result=' + m.params.content[0].text;
  if (m.method === 'ui/notifications/host-context-changed' && m.params.displayMode) show('mode', m.params.displayMode);
  if (m.method === 'ui/resource-teardown') { show('teardown', 'asked'); send({ id: m.id, result: {} }); }
});
document.getElementById('save').onclick = function () {
  request('tools/call', { name: 'save_choice', arguments: { color: 'teal' } }).then(function (r) { show('save', r.result ? r.result.content[0].text : 'error ' + r.error.message); });
};
document.getElementById('admin').onclick = function () {
  request('tools/call', { name: 'admin_reset', arguments: {} }).then(function (r) { show('admin', r.result ? 'ran' : 'refused: ' + r.error.message); });
};
document.getElementById('read').onclick = function () {
  request('resources/read', { uri: 'note://palette' }).then(function (r) { show('read', r.result.contents[0].text); });
};
document.getElementById('context').onclick = function () {
  request('ui/update-model-context', { content: [{ type: 'text', text: 'The user picked teal in the palette.' }] }).then(function (r) { show('context', r.result ? 'ok' : 'error'); });
};
document.getElementById('full').onclick = function () {
  request('ui/request-display-mode', { mode: 'fullscreen' }).then(function (r) { show('full', r.result.mode); });
};
document.getElementById('fetch').onclick = function () {
  fetch('DECLARED/ping').then(function (r) { return r.text(); }).then(function (t) { show('declared', t); }, function () { show('declared', 'blocked'); })
    .then(function () { return fetch('UNDECLARED/'); }).then(function () { show('undeclared', 'reached'); }, function () { show('undeclared', 'blocked'); });
};
request('ui/initialize', { appInfo: { name: 'Palette', version: '1' }, appCapabilities: {}, protocolVersion: '2026-01-26' }).then(function (r) {
  document.getElementById('theme').textContent = 'theme=' + r.result.hostContext.theme;
  send({ method: 'ui/notifications/initialized', params: {} });
  send({ method: 'ui/notifications/size-changed', params: { width: 500, height: document.documentElement.scrollHeight } });
});
</script>
</body></html>
""".replace("UNDECLARED", undeclared).replace("DECLARED", origin)


@mcp.resource(VIEW, mime_type="text/html;profile=mcp-app", meta={"ui": {"csp": {"connectDomains": [origin]}, "prefersBorder": True}})
def view() -> str:
    """The palette's View."""
    return HTML


@mcp.custom_route("/ping", methods=["GET"])
async def ping(request: Request) -> PlainTextResponse:
    return PlainTextResponse("pong")


app = CORSMiddleware(
    mcp.streamable_http_app(stateless_http=True, json_response=True),
    allow_origins=["*"],
    allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
    allow_headers=["*"],
    expose_headers=["Mcp-Session-Id", "MCP-Protocol-Version", "WWW-Authenticate"],
)


class Ready(uvicorn.Server):
    async def startup(self, sockets=None):
        await super().startup(sockets)
        print("ready", flush=True)


Ready(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")).run()
