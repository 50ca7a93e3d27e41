//! `air-mcp`: the app's MCP client (`air-mcp`) on the command line, over
//! plain HTTP on this machine (`air_http::native`, one thread per request,
//! so a call and the session's stream are read at once). Lists a server's
//! tools or resources or calls one, and prints the result as JSON. The
//! official conformance suite runs it (see `tests/conformance/run.sh`), so
//! what it checks is the same client the page uses.
//!
//! ```text
//! air-mcp [--header NAME:VALUE]... [--accept-defaults] tools URL
//! air-mcp [--header NAME:VALUE]... [--accept-defaults] call TOOL JSON URL
//! air-mcp [--header NAME:VALUE]... request METHOD JSON URL
//! air-mcp bench TOOL JSON N URL
//! air-mcp [--header NAME:VALUE]... script URL      (commands on stdin)
//! ```
//!
//! The URL comes last, as the conformance runner appends it.
//! `--accept-defaults` answers a server's form questions (elicitation) by
//! accepting the defaults it proposes; without it they are declined.
//! `script` runs commands read from stdin on one session (`abort MS` before
//! one stops it); `request` sends any request; `bench` times calls against
//! the same request sent raw (`./dev bench`). `AIR_MCP_TRACE=FILE` logs
//! every exchange as replayable JSON lines (`crates/air-mcp/tests/replay.rs`
//! replays them).
//!
//! Where a server asks for OAuth, the command signs in with the page's own
//! sign-in (`air_servers::credentials`, over `air-oauth`; module `auth` is only
//! its user step and its settings): `--client-id`/`--client-secret` for a
//! pre-registered client, `--client-metadata-url` for a Client ID Metadata
//! Document, else dynamic registration; the user's step is a GET of the
//! authorization URL whose redirect is read, not followed.
//!
//! `./dev test` runs the suite (npm `@modelcontextprotocol/conformance`, on
//! Node 22 from npm `node`, both in `tests/conformance/`) against it: the
//! client scenarios initialize, tools_call,
//! elicitation-sep1034-client-defaults and sse-retry, every auth scenario
//! but the extensions, and the 2026-07-28 requirement set.

mod auth;

use std::io::Read;
use std::pin::pin;
use std::process::ExitCode;
use std::rc::Rc;

use air_http::Abort;
use air_http::native::ThreadedHttp;
use air_mcp::elicit;
use air_mcp::{ClientHost, McpClient, Notice, ServerConfig};
use air_tools::{CallHost, ElicitAnswer, Elicitation, Progress};
use futures_channel::{mpsc, oneshot};
use futures_util::StreamExt;
use futures_util::future::{Either, LocalBoxFuture, join, select};
use serde_json::{Value, json};

/// With `AIR_MCP_TRACE=FILE`, every exchange is appended to FILE (see
/// [`air_http::native::trace`]). A script also logs each command
/// (`{"command"}`), the moment an `abort` stops it (`{"aborted"}`) and what
/// it printed (`{"result"}`).
fn trace(line: Value) {
    let path = std::env::var_os("AIR_MCP_TRACE").map(std::path::PathBuf::from);
    air_http::native::trace(path.as_deref(), line);
}

type Http = ThreadedHttp;

/// The real clock, and the server's announcements on stderr.
struct Host;

impl ClientHost for Host {
    fn sleep(&self, ms: u64) -> LocalBoxFuture<'static, ()> {
        let (tx, rx) = oneshot::channel::<()>();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(ms));
            let _ = tx.send(());
        });
        Box::pin(async move {
            let _ = rx.await;
        })
    }

    fn notice(&self, notice: Notice) {
        eprintln!("server: {notice:?}");
    }

    fn now_ms(&self) -> Option<u64> {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).ok().map(|d| d.as_millis() as u64)
    }
}

/// Where a call reports: progress on stderr; questions answered with the
/// form's defaults, or declined.
struct Watcher {
    accept_defaults: bool,
}

impl CallHost for Watcher {
    fn progress(&self, p: Progress) {
        eprintln!("progress: {} / {} {}", p.progress, p.total.map_or("?".into(), |t| t.to_string()), p.message.unwrap_or_default());
    }

    fn elicit(&self, request: Elicitation) -> LocalBoxFuture<'_, ElicitAnswer> {
        eprintln!("question: {}", request.message());
        let answer = match request {
            Elicitation::Form { schema, .. } if self.accept_defaults => ElicitAnswer::Accept { content: Value::Object(elicit::with_defaults(&elicit::fields(&schema), Default::default())) },
            _ => ElicitAnswer::Decline,
        };
        Box::pin(async move { answer })
    }
}

enum Command {
    Tools,
    /// Every resource, page by page.
    Resources,
    /// Any request, by method and params.
    Request {
        method: String,
        params: Value,
    },
    Call {
        tool: String,
        arguments: Value,
    },
    /// Times `n` calls through the client against `n` raw POSTs of the
    /// same message on the same session.
    Bench {
        tool: String,
        arguments: Value,
        n: usize,
    },
    /// Commands read from stdin, one per line (`tools`, `call TOOL JSON`,
    /// `request METHOD JSON`, `resources`; `abort MS` before one stops it
    /// after MS milliseconds), run one after another on the same client;
    /// each result is printed as one line of JSON.
    Script,
}

struct Args {
    headers: Vec<(String, String)>,
    accept_defaults: bool,
    /// How to sign in where the server asks (OAuth).
    oauth: air_oauth::flow::Settings,
    command: Command,
    url: String,
}

const USAGE: &str = "usage: air-mcp [--header NAME:VALUE]... [--accept-defaults] [--client-id ID [--client-secret S]] [--client-metadata-url URL] (tools | resources | call TOOL JSON | request METHOD JSON | bench TOOL JSON N | script) URL";

fn parse(args: &[String]) -> Result<Args, String> {
    let mut headers = Vec::new();
    let mut accept_defaults = false;
    let mut oauth = air_oauth::flow::Settings { redirect_uri: auth::REDIRECT_URI.into(), client_name: "Air Agent (command line)".into(), ..Default::default() };
    let mut rest = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--header" => {
                let h = it.next().ok_or("--header needs NAME:VALUE")?;
                let (k, v) = h.split_once(':').ok_or_else(|| format!("not NAME:VALUE: {h}"))?;
                headers.push((k.trim().to_owned(), v.trim().to_owned()));
            }
            "--accept-defaults" => accept_defaults = true,
            "--client-id" => oauth.client_id = Some(it.next().ok_or("--client-id needs an id")?.clone()),
            "--client-secret" => oauth.client_secret = Some(it.next().ok_or("--client-secret needs a secret")?.clone()),
            "--client-metadata-url" => oauth.metadata_document = Some(it.next().ok_or("--client-metadata-url needs a URL")?.clone()),
            _ => rest.push(a.clone()),
        }
    }
    let url = rest.pop().ok_or(USAGE)?;
    let command = command(&rest)?;
    Ok(Args { headers, accept_defaults, oauth, command, url })
}

/// One command, from its words.
fn command(words: &[String]) -> Result<Command, String> {
    Ok(match words {
        [c] if c == "tools" => Command::Tools,
        [c] if c == "script" => Command::Script,
        [c] if c == "resources" => Command::Resources,
        [c, tool, json] if c == "call" => {
            let arguments = serde_json::from_str(json).map_err(|e| format!("the arguments are not JSON: {e}"))?;
            Command::Call { tool: tool.clone(), arguments }
        }
        [c, method, json] if c == "request" => {
            let params = serde_json::from_str(json).map_err(|e| format!("the params are not JSON: {e}"))?;
            Command::Request { method: method.clone(), params }
        }
        [c, tool, json, n] if c == "bench" => {
            let arguments = serde_json::from_str(json).map_err(|e| format!("the arguments are not JSON: {e}"))?;
            Command::Bench { tool: tool.clone(), arguments, n: n.parse().map_err(|_| USAGE)? }
        }
        _ => return Err(USAGE.into()),
    })
}

/// Median milliseconds of `n` calls through the client and of `n` raw
/// POSTs of the same JSON-RPC message (same session and headers), taken
/// in turns so that both see the same server.
async fn bench(client: &McpClient<Http>, tool: &str, arguments: &Value, n: usize, abort: &Abort) -> Result<Value, air_mcp::McpError> {
    let raw_agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let mut through_client = Vec::with_capacity(n);
    let mut raw = Vec::with_capacity(n);
    // One of each first, to warm both up.
    for i in 0..=n {
        let t = std::time::Instant::now();
        client.call_tool(tool, arguments.clone(), abort).await?;
        let c = t.elapsed().as_secs_f64() * 1000.0;
        // The very request the client sent, replayed.
        let Some(sent) = client.http().last() else { continue };
        let mut req = ureq::http::Request::builder().method(sent.method.as_str()).uri(&sent.url);
        for (k, v) in &sent.headers {
            req = req.header(k, v);
        }
        let req = req.body(sent.body.unwrap_or_default().into_bytes()).map_err(|e| air_mcp::McpError::Protocol(e.to_string()))?;
        let t = std::time::Instant::now();
        let response = raw_agent.run(req).map_err(|e| air_mcp::McpError::Network(e.to_string()))?;
        let mut text = String::new();
        response.into_body().into_reader().read_to_string(&mut text).map_err(|e| air_mcp::McpError::Network(e.to_string()))?;
        let r = t.elapsed().as_secs_f64() * 1000.0;
        if i > 0 {
            through_client.push(c);
            raw.push(r);
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    let (c, r) = (median(&mut through_client), median(&mut raw));
    Ok(serde_json::json!({"calls": n, "clientMs": c, "rawMs": r, "ratio": if r > 0.0 { c / r } else { 0.0 }}))
}

/// Runs one command.
async fn execute(client: &McpClient<Http>, command: &Command, watcher: &Watcher, abort: &Abort) -> Result<Value, air_mcp::McpError> {
    match command {
        Command::Tools => client.list_tools(abort).await.map(Value::Array),
        Command::Resources => client.list_resources(abort).await.map(Value::Array),
        Command::Request { method, params } => client.request(method, params.clone(), abort).await,
        Command::Bench { tool, arguments, n } => bench(client, tool, arguments, *n, abort).await,
        Command::Call { tool, arguments } => {
            // Its schema says which arguments also travel as headers.
            let listed = client.list_tools(abort).await?;
            let schema = listed.iter().find(|t| t.get("name").and_then(Value::as_str) == Some(tool)).and_then(|t| t.get("inputSchema")).cloned().unwrap_or(Value::Null);
            client.call_tool_for(tool, &schema, arguments.clone(), abort, watcher).await
        }
        Command::Script => script(client, watcher).await,
    }
}

/// Runs the commands on stdin, one after another, printing each result as
/// a line of JSON.
async fn script(client: &McpClient<Http>, watcher: &Watcher) -> Result<Value, air_mcp::McpError> {
    // Read on a thread of its own: while a line is awaited, the session's
    // stream goes on being read.
    let (tx, mut lines) = mpsc::unbounded::<String>();
    std::thread::spawn(move || {
        for line in std::io::stdin().lines() {
            let Ok(line) = line else { break };
            if tx.unbounded_send(line).is_err() {
                break;
            }
        }
    });
    while let Some(line) = lines.next().await {
        trace(json!({"command": line}));
        // `abort MS COMMAND` stops the command after MS milliseconds.
        let (stop_after, line) = match line.strip_prefix("abort ").and_then(|l| l.split_once(' ')) {
            Some((ms, rest)) => (ms.parse::<u64>().ok(), rest.to_owned()),
            None => (None, line),
        };
        // Words, with the JSON argument (which may hold spaces) last.
        let mut words: Vec<String> = line.splitn(3, ' ').map(str::to_owned).collect();
        words.retain(|w| !w.is_empty());
        if words.is_empty() {
            continue;
        }
        let out = match command(&words) {
            Ok(Command::Script) => json!({"error": "a script cannot run a script"}),
            Ok(c) => {
                let stop = Abort::new();
                let timer = async {
                    if let Some(ms) = stop_after {
                        Host.sleep(ms).await;
                        trace(json!({"aborted": true}));
                        stop.abort();
                    }
                };
                let (out, ()) = join(Box::pin(execute(client, &c, watcher, &stop)), timer).await;
                out.unwrap_or_else(|e| json!({"error": e.to_string()}))
            }
            Err(e) => json!({"error": e}),
        };
        trace(json!({"result": out}));
        println!("{out}");
    }
    Ok(Value::Null)
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let args = match parse(&argv) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let config = ServerConfig { name: "cli".into(), url: args.url.clone(), headers: args.headers };
    let http = || ThreadedHttp::new(std::env::var_os("AIR_MCP_TRACE").map(std::path::PathBuf::from));
    let sign_in = auth::authorizer(http(), http(), &args.url, args.oauth.clone());
    let client = McpClient::new(http(), config).with_host(Rc::new(Host)).with_authorizer(sign_in);
    let watcher = Watcher { accept_defaults: args.accept_defaults };
    let abort = Abort::new();
    let result = pollster::block_on(async {
        client.connect(&abort).await?;
        // The session's own stream stays open while the command runs
        // (polled first, so the command waits for it to open).
        let listener = Abort::new();
        let command = pin!(execute(&client, &args.command, &watcher, &abort));
        let out = match select(pin!(client.listen(&listener)), command).await {
            Either::Right((out, _)) => out,
            Either::Left((listened, command)) => {
                if let Err(e) = listened {
                    eprintln!("the session's stream: {e}");
                }
                command.await
            }
        };
        listener.abort();
        client.close().await;
        out
    });
    match result {
        Ok(Value::Null) => ExitCode::SUCCESS,
        Ok(v) => {
            println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
