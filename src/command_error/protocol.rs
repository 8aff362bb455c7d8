//! The protocol layer's own errors (`protocol::envelope::TooLarge`) as the user
//! sees them.

use crate::protocol::envelope::{MAX_ENVELOPE_CHARS, TooLarge};
use crate::protocol::{CmdError, Repair, code};

impl From<Box<TooLarge>> for CmdError {
    fn from(e: Box<TooLarge>) -> CmdError {
        CmdError::new(
            code::TOO_LARGE,
            format!(
                "The answer would be {} characters, over the {MAX_ENVELOPE_CHARS}-character limit of one envelope.",
                e.chars
            ),
            Repair::new(
                "narrow",
                "Ask for less: a smaller --range, --max-lines or --limit.",
                format!("aitools schema {}", e.command),
            ),
        )
    }
}
