//! `air-sync`: one replication pass of the app's replicator (`air-sync`)
//! between two CouchDB-protocol databases on this machine, printed as
//! JSON. The sync tests run it between PouchDB Server instances and read
//! the result back with PouchDB, so what they check is the replicator the
//! page runs.
//!
//! ```text
//! air-sync [--user NAME:PASSWORD] [--batch N] [--create] replicate SOURCE_URL TARGET_URL
//! ```
//!
//! `--user` signs in to both with HTTP Basic; `--create` creates the
//! target database first (an existing one is kept). `AIR_SYNC_TRACE=FILE`
//! appends every exchange to FILE as JSON lines. Exit status 1 with the
//! error on stderr when the pass fails (it resumes where it stopped when
//! run again).
//!
//! `./dev test` runs `tests/sync/protocol.test.mjs` with it: PouchDB
//! Server instances on 127.0.0.1 (npm `pouchdb-server`), PouchDB (npm
//! `pouchdb`) writing the source (edits, conflicts, deletions, an
//! attachment, a `_local` document) and reading the result: every
//! document's whole revision tree arrives, as PouchDB's own replication
//! makes it; a pass killed mid-way resumes from its checkpoint; a stopped
//! server is an error and the next pass goes on.

use std::process::ExitCode;

use air_http::native::ThreadedHttp;
use air_sync::{Auth, CouchPeer, Options, replicate};
use serde_json::json;

struct Args {
    auth: Auth,
    batch: usize,
    create: bool,
    source: String,
    target: String,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut out = Args { auth: Auth::None, batch: Options::default().batch_size, create: false, source: String::new(), target: String::new() };
    let mut words = args.iter();
    let mut rest = Vec::new();
    while let Some(w) = words.next() {
        match w.as_str() {
            "--user" => {
                let v = words.next().ok_or("--user needs NAME:PASSWORD")?;
                let (user, password) = v.split_once(':').ok_or("--user needs NAME:PASSWORD")?;
                out.auth = Auth::Basic { user: user.into(), password: password.into() };
            }
            "--batch" => out.batch = words.next().and_then(|n| n.parse().ok()).filter(|n| *n > 0).ok_or("--batch needs a number above 0")?,
            "--create" => out.create = true,
            _ => rest.push(w.clone()),
        }
    }
    match rest.as_slice() {
        [cmd, source, target] if cmd == "replicate" => {
            out.source = source.clone();
            out.target = target.clone();
            Ok(out)
        }
        _ => Err("usage: air-sync [--user NAME:PASSWORD] [--batch N] [--create] replicate SOURCE_URL TARGET_URL".into()),
    }
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
    let trace = std::env::var_os("AIR_SYNC_TRACE").map(std::path::PathBuf::from);
    let peer = |url: &str| CouchPeer::new(ThreadedHttp::new(trace.clone()), url, args.auth.clone());
    let result = pollster::block_on(async {
        let source = peer(&args.source)?;
        let target = peer(&args.target)?;
        if args.create {
            target.create().await?;
        }
        replicate(&source, &target, &Options { batch_size: args.batch, ..Options::default() }).await
    });
    match result {
        Ok(r) => {
            let out = json!({"docsRead": r.docs_read, "docsWritten": r.docs_written, "lastSeq": r.last_seq, "batches": r.batches});
            println!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
