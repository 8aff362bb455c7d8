//! Recovery before every command: finish or discard the writes a killed process
//! left in `commit/`. A complete record (checksum line present and matching) is
//! rolled forward — its idempotent steps re-run, its journal line appended unless
//! it is already the last one — and an incomplete one is discarded (its temp files
//! removed; the tree was never touched). Costs one directory listing when nothing
//! is pending.

use super::{intent, lock, state_dir};
use crate::protocol::{CmdError, Json};
use crate::workspace::Ctx;
use std::path::Path;

/// One recovered operation, as reported in `recovered`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Recovered {
    pub op_id: String,
    pub action: &'static str,
}

fn pending(state: &Path) -> Vec<std::path::PathBuf> {
    let Ok(rd) = std::fs::read_dir(intent::dir(state)) else {
        return Vec::new();
    };
    let mut out: Vec<_> = rd
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "intent"))
        .collect();
    out.sort();
    out
}

/// Runs recovery for the workspace; takes the lock only when something is pending.
pub fn recover(ctx: &Ctx) -> Result<Vec<Recovered>, CmdError> {
    let state = state_dir::for_root(&ctx.root);
    if pending(&state).is_empty() {
        return Ok(Vec::new());
    }
    let _lock = lock::acquire(ctx, &state)?;
    recover_locked(ctx, &state)
}

/// Recovery with the lock already held.
pub fn recover_locked(ctx: &Ctx, state: &Path) -> Result<Vec<Recovered>, CmdError> {
    let mut out = Vec::new();
    for path in pending(state) {
        let rec = intent::read_record(&path).map_err(|e| super::io_error(ctx, "recovery", &e))?;
        let action = match (&rec.intent, rec.complete) {
            (Some(i), true) => {
                super::write::finish(&ctx.root, state, i)
                    .map_err(|e| super::io_error(ctx, "recovery", &e))?;
                "rolled-forward"
            }
            (i, _) => {
                if let Some(i) = i {
                    intent::discard(&ctx.root, i)
                        .map_err(|e| super::io_error(ctx, "recovery", &e))?;
                }
                std::fs::remove_file(&rec.path)
                    .map_err(|e| super::io_error(ctx, "recovery", &e))?;
                "discarded"
            }
        };
        out.push(Recovered {
            op_id: rec.op_id,
            action,
        });
    }
    Ok(out)
}

/// The `recovered` member, or `None` when nothing was recovered.
pub fn report(recovered: &[Recovered]) -> Option<Json> {
    if recovered.is_empty() {
        None
    } else {
        Some(Json::from_serialize(recovered))
    }
}
