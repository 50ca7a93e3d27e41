//! The MCP servers the user saved, without IO. The app's side is
//! `app/src/binding/mcp.rs` (the clients) and `app/src/binding/oauth.rs`
//! (sign-in); what becomes of the servers is decided by
//! `air_workspace::servers`.
//!
//! - [`registration`]: `Registration::of(servers)` lists every offered tool
//!   (not gone, not waiting for the user) of every enabled server once, in
//!   the saved order: its registry name (`air_mcp::names::tool_name`, a
//!   clash numbered in that order), its definition with its place, whether
//!   the model sees it and whether a View may call it
//!   (`_meta.ui.visibility`), and its View. The turn's registry
//!   (`for_model`, filtered to the chat's servers), dynamic loading, the
//!   Apps host (`app_of`: the View of the tool a call ran, found by the name
//!   the call was made under) and the policy rows read the same list, so a
//!   name never means two tools. `every_def` names every saved tool for
//!   choices saved by registry name.
//! - [`list`]: the changes to the saved list, each returning what it also
//!   asks (`Effects`: policies to save, sign-ins to forget by URL, chats to
//!   forget the server in): `add` (the tools picked; the others remembered
//!   as left out; a server of the same name replaced, its choices
//!   forgotten), `resync_target` + `resynced` (another origin is another
//!   server: the old one's headers are not sent to the new URL, and its
//!   sign-in and choices go; headers the user edited on the server's row,
//!   `add::parse_headers` of `Name: value` lines, replace the saved ones and
//!   are saved once the listing with them worked), `set_enabled`,
//!   `set_trust_hints`, `connected` (the revision spoken, for the next
//!   start), `accept`, `remove`; `saved_tool`, a `tools/list` entry as saved
//!   (task-only tools left out).
//! - [`add`]: the add-server form as a state machine (`AddFlow`): a `Draft`
//!   without a name or an http(s) URL is refused before anything is sent;
//!   connecting, then picking (every tool picked at first, read-only hints
//!   not trusted), then added. A failure the page cannot explain (nothing
//!   answered, 400/404, a 401 whose challenge CORS hid) starts the
//!   connectivity doctor (`doctor_target`: the request this client sends
//!   first). Each attempt is numbered, and an answer or finding for an older
//!   one is dropped.
//! - [`credentials`]: signing in, for the page and the command line alike
//!   (one `sign_in`; the vault and each server's token, one refresh at a
//!   time; what a refusal does).
//! - [`status`]: where one server stands ([`ServerState`]: off,
//!   connecting, reconnecting, ready with the revision spoken, needs
//!   sign-in, failed with why), from its switch, its session's last
//!   `Connection` and the sign-ins asked for; a sign-in asked for wins over
//!   the 401 that caused it. The settings row and the composer's chips show
//!   it (`key()` is their `data-state`).
//! - [`apps`]: hosting one MCP App's View without IO (`Host`), the frame
//!   reached through a `Port` (post, width, open a link) and the rest asked
//!   as `Effect`s (read a resource or call a tool on the View's server, put
//!   a message in the composer, set its context attachment, log). It sends
//!   the View once the sandbox proxy is up, with the features the user
//!   granted (not those the server asked); decides a View's calls by the
//!   user's tool policies (refused, asked on the card, or made; on a card
//!   imported or synced, `Host::imported`, a call the policy allows is
//!   asked too: host test `an_imported_cards_view_asks_before_every_call`);
//!   opens a link only after the user agrees; puts a `ui/message` only into
//!   an empty composer, at most one each `air_apps::MESSAGE_GAP_MS`; gives
//!   the call's input once it runs and its result or end once; tells the
//!   View of full screen and of a new theme or language (only what
//!   changed); and gives a View asked to tear down `TEARDOWN_MS` to answer.
//!   `app_of` finds the View of the tool a card's call ran; `Shown` is what
//!   the card shows.
//!
//! Module order (each uses only those before it): `registration`, `list`,
//! `add`, `credentials`, `status`, `apps`. Each has host tests.

pub mod add;
pub mod apps;
pub mod credentials;
pub mod list;
pub mod registration;
pub mod status;

pub use add::{AddFlow, Draft, Failure, Preview};
pub use registration::{Entry, Registration};
pub use status::ServerState;
