//! The MCP servers the user saved, without IO.
//!
//! - [`registration`]: where every saved tool goes: one list, with each
//!   tool's registry name, definition and who sees it (the model, a View),
//!   read by the turn's registry, dynamic loading, the Apps host and the
//!   policy rows alike.
//! - [`list`]: changes to the saved list (add with the tools picked,
//!   re-sync, switch, accept, remove) and what each means for the user's
//!   choices and sign-ins; a `tools/list` entry as saved.
//! - [`add`]: the add-server form as a state machine (connect, pick, save;
//!   the doctor when a failure needs explaining).
//!
//! - [`credentials`]: signing in, for the page and the command line alike
//!   (one `sign_in`; the vault and each server's token, one refresh at a
//!   time; what a refusal does).
//! - [`status`]: where one server stands ([`ServerState`]: off,
//!   connecting, ready, needs sign-in, failed), from its switch, its
//!   session and the sign-ins asked for.
//! - [`apps`]: hosting one MCP App's View (what its card shows, what it is
//!   told, what it may have done), the frame reached through a port.
//!
//! Module order (each uses only those before it): `registration`, `list`,
//! `add`, `credentials`, `status`, `apps`.

pub mod add;
pub mod apps;
pub mod credentials;
pub mod list;
pub mod registration;
pub mod status;

pub use add::{AddFlow, Draft, Failure, Preview};
pub use registration::{Entry, Registration};
pub use status::ServerState;
