//! The protocol core: the ordered JSON tree, the envelope writer, the error type and
//! catalog, the secret mask, shell quoting, the clock and the shell-command table.
//! Every command speaks through this module and none prints for itself.

pub mod agent_docs;
pub mod args;
pub mod argv;
pub mod catalog;
pub mod compact;
pub mod correspondence;
pub mod envelope;
pub mod error;
pub mod events;
pub mod field_types;
pub mod host;
pub mod invoke;
pub mod json;
pub mod kept;
pub mod redact;
pub mod registry;
pub mod shell;
pub mod time;
pub mod values;

pub use envelope::Output;
pub use error::{CmdError, Repair, code};
pub use json::Json;

/// The one-line instruction every error carries for reporting a problem with aitools
/// (the description of `agent/rules/writeback.md`).
pub use agent_docs::FEEDBACK_LINE;

/// `ceil(characters / 4)`, a multi-byte character counting once.
pub fn approx_tokens_chars(chars: usize) -> usize {
    chars.div_ceil(4)
}
