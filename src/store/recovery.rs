//! Recovery before every command: finish or discard the writes a killed process
//! left in `commit/`. Until the write protocol lands this finds nothing to do, but
//! the dispatcher already calls it, so no command is ever written without it.

use crate::protocol::{CmdError, Json};
use crate::workspace::Ctx;

/// One recovered operation, as reported in `recovered`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Recovered {
    pub op_id: String,
    pub action: &'static str,
}

/// Runs recovery for the workspace; costs one directory listing when nothing is pending.
pub fn recover(ctx: &Ctx) -> Result<Vec<Recovered>, CmdError> {
    let commit_dir = super::state_dir::for_root(&ctx.root).join("commit");
    match std::fs::read_dir(&commit_dir) {
        Ok(mut entries) => {
            if entries.next().is_none() {
                return Ok(Vec::new());
            }
            // Intent records exist but the write protocol that reads them has not
            // landed yet: leave them untouched.
            Ok(Vec::new())
        }
        Err(_) => Ok(Vec::new()),
    }
}

/// The `recovered` member, or `None` when nothing was recovered.
pub fn report(recovered: &[Recovered]) -> Option<Json> {
    if recovered.is_empty() {
        None
    } else {
        Some(Json::from_serialize(recovered))
    }
}
