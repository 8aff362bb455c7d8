//! The store's journal and undo errors (op ids, collected ops, undo conflicts,
//! blobs) in words; `store.rs` dispatches every `StoreError` here or elsewhere.

use crate::protocol::{CmdError, Json, Repair, code, error, shell};

/// An op id the journal does not hold.
pub(super) fn op_not_found(op_id: String) -> CmdError {
    CmdError::new(
        code::NOT_FOUND,
        format!("No journaled op has the id {op_id}."),
        Repair::new(
            "history",
            "List the journaled ops and their ids.",
            "aitools history",
        ),
    )
}

/// A short op id that ends several journaled ops' ids: the call again with each whole id.
pub(super) fn op_ambiguous(op_id: String, ids: Vec<String>, again: Vec<String>) -> CmdError {
    {
        let repairs = ids.iter().map(|id| {
            let argv = again.iter().map(String::as_str).chain([id.as_str()]);
            Repair::new(
                "retry",
                "The same call naming this op by its whole id.",
                shell::aitools(argv),
            )
        });
        let mut repairs = repairs.collect::<Vec<_>>().into_iter();
        let first = repairs.next().unwrap_or_else(|| {
            Repair::new(
                "history",
                "List the journaled ops and their ids.",
                "aitools history",
            )
        });
        let mut err = CmdError::new(
            code::AMBIGUOUS,
            format!(
                "{op_id} names {} journaled ops (their ids end in the same 8 hex digits): {}.",
                ids.len(),
                ids.join(", ")
            ),
            first,
        );
        for r in repairs {
            err = err.with_repair(r);
        }
        err.with_candidates(Json::Arr(ids.into_iter().map(Json::str).collect()))
    }
}

/// `undo` of an op retention collected.
pub(super) fn op_collected(
    op_id: String,
    first: String,
    keep: usize,
    budget_env: &'static str,
) -> CmdError {
    CmdError::new(
                code::OP_COLLECTED,
                format!(
                    "{op_id} is older than the {keep} newest ops kept for its paths and its earlier contents were collected to keep the state directory within its budget ({budget_env}); it can no longer be undone."
                ),
                Repair::new(
                    "history",
                    "List the newer ops of the path; those can still be undone.",
                    shell::aitools(["history", &first]),
                ),
            )
            .with_repair(Repair::new(
                "dry-run",
                "See what collection keeps and removes now (a larger AITOOLS_STATE_BUDGET keeps more ops).",
                "aitools gc --dry-run",
            ))
}

/// `undo` of an op another op already undid.
pub(super) fn already_undone(op_id: String, by: String, conflicts: Json) -> CmdError {
    CmdError::new(
        code::TARGET_CHANGED,
        format!("{op_id} was already undone by {by}; undo writes nothing."),
        Repair::new(
            "redo",
            format!("To redo {op_id}, undo its undo."),
            shell::aitools(["undo", &by]),
        ),
    )
    .with_conflicts(conflicts)
}

/// `undo` of an op whose paths changed since.
pub(super) fn undo_conflicts(op_id: String, first: String, conflicts: Json) -> CmdError {
    {
        let n = match &conflicts {
            Json::Arr(a) => a.len(),
            _ => 0,
        };
        CmdError::new(
                    code::TARGET_CHANGED,
                    format!("{n} path(s) of {op_id} changed since it ran; undo writes nothing."),
                    Repair::new(
                        "history",
                        "See which later ops touched the path; undo those first (newest first), or leave it.",
                        shell::aitools(["history", &first]),
                    ),
                )
                .with_repair(Repair::new(
                    "diff",
                    "See what the op changed.",
                    shell::aitools(["diff", "--op", &op_id]),
                ))
                .with_conflicts(conflicts)
    }
}

/// The blob undo needs no longer hashes to its name.
pub(super) fn blob_corrupt(rel: String, op_id: String, hash: String) -> CmdError {
    CmdError::new(
                code::BLOB_CORRUPT,
                format!(
                    "The earlier content of {rel} kept for {op_id} (blob {hash}) was changed after it was stored; undo writes nothing rather than restore the wrong bytes."
                ),
                Repair::new(
                    "diff",
                    "See what the op changed, then put the earlier lines back with an edit.",
                    shell::aitools(["diff", "--op", &op_id]),
                ),
            )
            .with_repair(Repair::new(
                "history",
                "Find an older op of the path whose undo can serve instead.",
                shell::aitools(["history", &rel]),
            ))
}

/// The blob undo needs cannot be read.
pub(super) fn blob_missing(
    path: String,
    hash: String,
    error: std::io::Error,
    command: String,
) -> CmdError {
    CmdError::new(
        code::IO,
        format!(
            "The earlier content of {path} (blob {hash}) is not in the state directory: {}.",
            error::err_text(&error)
        ),
        Repair::new("history", "List the journal's ops.", "aitools history"),
    )
    .with_repair(error::schema_repair(&command))
}
