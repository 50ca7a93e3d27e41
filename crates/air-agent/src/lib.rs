//! The turn and the tool loop, over an injected environment.
//!
//! A turn starts with a user action (send, regenerate, continue, edit and
//! resend) and ends when the model answers without asking for tools, the
//! round limit is reached, something fails, or the user stops it. Between,
//! it: saves the user message; optionally streams a Transitive Thinking
//! chain; streams each answer with retries, checkpointing it as it grows;
//! runs the tools the answer asks for (in parallel, validated, approved,
//! stoppable) and stores their results as `tool` messages; and asks again.
//!
//! Everything outside comes through [`Env`]: clock, ids, sleep, HTTP, the
//! store, the approval question, and the [`Event`]s the UI turns into
//! signals. So every turn runs on the host, deterministically, and its
//! tests are transcripts of what was sent and what happened.

mod env;
pub mod conversation;
pub mod provider;
mod stream;
pub mod text;
mod tools;
mod turn;

pub use env::{Approval, Env, Event, Status};
pub use tools::MAX_TOOL_TEXT;
pub use provider::auth_header;
pub use turn::{NewFile, ToolMode, Turn};
