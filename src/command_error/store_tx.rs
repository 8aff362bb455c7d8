//! The store's transaction errors (`StoreError::Tx*`, reviews, paths a tx
//! changed) in words; `store.rs` dispatches every `StoreError` here or elsewhere.

use crate::protocol::{CmdError, Json, Repair, code, shell};
use crate::store::tx::Conflict;

/// A tx staged without syncs before the machine restarted.
pub(super) fn unsynced(id: String, last: u64) -> CmdError {
    CmdError::new(
                code::IO,
                format!(
                    "The tx {id} was staged before the machine restarted, and staging is not synced op by op: a power loss may have lost or damaged its last ops, so it is not committed or staged into as it is."
                ),
                Repair::new(
                    "status",
                    "See which ops the tx still holds.",
                    shell::aitools(["tx", "status", &id]),
                ),
            )
            .with_repair(Repair::new(
                "drop",
                "Keep the ops before the last one as they are now (this rewrites the tx durably), then stage the last one again.",
                shell::aitools(["tx", "drop", &id, &last.to_string()]),
            ))
            .with_repair(Repair::new(
                "abort",
                "Drop the tx and stage its changes again.",
                shell::aitools(["tx", "abort", &id]),
            ))
}

/// A whole line of a tx's ops log that is not an op record.
pub(super) fn log_unreadable(
    id: String,
    log: String,
    line: usize,
    op: u64,
    droppable: bool,
) -> CmdError {
    {
        let status = Repair::new(
            "status",
            "See which ops the tx still holds.",
            shell::aitools(["tx", "status", &id]),
        );
        let abort = Repair::new(
            "abort",
            "Drop the tx and stage its changes again.",
            shell::aitools(["tx", "abort", &id]),
        );
        let e = CmdError::new(
            code::IO,
            format!(
                "Line {line} of the tx {id}'s ops log ({log}) is a whole line but not an op record: no killed process leaves one, so the log was changed outside aitools. The ops from {op} on are not taken, so the tx is not committed or staged into as it is."
            ),
            status,
        );
        if droppable {
            e.with_repair(Repair::new(
                        "drop",
                        "Keep the ops before it (this rewrites the log without the line), then stage the rest again.",
                        shell::aitools(["tx", "drop", &id, &op.to_string()]),
                    ))
                    .with_repair(abort)
        } else {
            e.with_repair(abort)
        }
    }
}

/// No open tx of the workspace has the id.
pub(super) fn not_found(root: String, id: String) -> CmdError {
    CmdError::new(
                code::NOT_FOUND,
                format!(
                    "No open tx of the workspace {root} has the id {id:?} (committed and aborted transactions are gone; a tx belongs to the workspace it began in: run from there or pass --root)."
                ),
                Repair::new("list", "List the open transactions.", "aitools tx status"),
            )
            .with_repair(Repair::new(
                "begin",
                "Start a new transaction.",
                "aitools tx begin",
            ))
}

/// `tx approve` / `tx deny` of a tx not begun with `--review`.
pub(super) fn not_reviewed(id: String) -> CmdError {
    CmdError::new(
        code::ARGUMENT_INVALID,
        format!(
            "tx {id} was not begun with --review: its commit waits for no one, so there is nothing to approve or deny."
        ),
        Repair::new(
            "pending",
            "List the transactions that await a review.",
            "aitools tx reviews",
        ),
    )
}

/// A path that does not exist in the tx's view.
pub(super) fn not_in_tx(arg: String, id: String) -> CmdError {
    CmdError::new(
        code::NOT_FOUND,
        format!("{arg} does not exist in tx {id}."),
        tx_diff(&id),
    )
}

/// A path a tx op removed.
pub(super) fn removed_in_tx(arg: String, id: String, op: u64, op_argv: Vec<String>) -> CmdError {
    CmdError::new(
        code::NOT_FOUND,
        format!(
            "{arg} was removed in tx {id} (op {op}: {}); it exists only outside the tx.",
            shell::aitools(&op_argv)
        ),
        tx_diff(&id),
    )
}

/// A path a tx op moved: the same call on its new name.
pub(super) fn moved_in_tx(
    arg: String,
    id: String,
    to: String,
    op: u64,
    op_argv: Vec<String>,
    as_arg: String,
    retry: Option<Vec<String>>,
) -> CmdError {
    {
        let retry = match retry {
            Some(argv) => shell::aitools(&argv),
            None => shell::aitools(["info", as_arg.as_str(), "--tx", id.as_str()]),
        };
        CmdError::new(
            code::NOT_FOUND,
            format!(
                "{arg} was moved to {to} in tx {id} (op {op}: {}).",
                shell::aitools(&op_argv)
            ),
            Repair::new("retry", "The same call on the path's new name.", retry),
        )
        .with_repair(tx_diff(&id))
        .with_candidates(Json::Arr(vec![Json::str(to)]))
    }
}

/// The repair every tx path answer offers: what the tx changed so far.
fn tx_diff(id: &str) -> Repair {
    Repair::new(
        "diff",
        "See what the tx changed so far.",
        shell::aitools(["tx", "diff", id]),
    )
}

/// `tx approve` / `tx deny` without an id when not exactly one tx awaits review.
pub(super) fn review_unnamed(pending: &[String]) -> CmdError {
    if pending.is_empty() {
        return CmdError::new(
            code::NOT_FOUND,
            "No transaction awaits a review (none begun with --review has staged content without a decision).",
            Repair::new("list", "List the open transactions.", "aitools tx status"),
        );
    }
    let mut e = CmdError::new(
        code::ARGUMENT_INVALID,
        format!(
            "{} transactions await a review; name the one to decide on.",
            pending.len()
        ),
        Repair::new(
            "pending",
            "List them with their files and diff stats.",
            "aitools tx reviews",
        ),
    );
    for id in pending.iter().take(3) {
        e = e.with_repair(Repair::new(
            "diff",
            format!("See what {id} would change."),
            shell::aitools(["tx", "diff", id]),
        ));
    }
    e
}

/// A review-gated commit refused: denied by the operator, or not decided in time.
pub(super) fn review_refused(r: crate::store::tx::review::Refused) -> CmdError {
    use crate::store::tx::review::Refused;
    match r {
        Refused::Denied { id, reason } => CmdError::new(
            code::REVIEW_DENIED,
            match reason {
                Some(r) => format!(
                    "The operator denied tx {id}: {r}. Nothing was written; the tx is still open."
                ),
                None => format!(
                    "The operator denied tx {id}. Nothing was written; the tx is still open."
                ),
            },
            tx_diff(&id),
        )
        .with_repair(Repair::new(
            "abort",
            "Discard the tx.",
            shell::aitools(["tx", "abort", &id]),
        ))
        .with_repair(Repair::new(
            "rework",
            "Or change what it stages (a new op, or tx drop), then commit again: the changed content awaits a new review.",
            shell::aitools(["tx", "status", &id]),
        )),
        Refused::TimedOut { id, waited, again } => CmdError::new(
            code::REVIEW_TIMEOUT,
            if waited.is_zero() {
                format!(
                    "tx {id} awaits an operator's review (aitools tx approve {id}) and has no decision on what it stages yet. Nothing was written; the tx is still open."
                )
            } else {
                format!(
                    "tx {id} awaits an operator's review (aitools tx approve {id}); none came within {:.1}s. Nothing was written; the tx is still open.",
                    waited.as_secs_f64()
                )
            },
            Repair::new(
                "wait",
                "Wait longer for the decision.",
                shell::aitools(&again),
            ),
        )
        .with_repair(Repair::new(
            "status",
            "See the tx's review state.",
            shell::aitools(["tx", "status", &id]),
        )),
    }
}

/// `refusal.target-changed` for a commit with conflicts.
pub(super) fn conflicts(id: &str, conflicts: &[Conflict]) -> CmdError {
    let writes = conflicts.iter().filter(|c| c.kind == "write").count();
    let first_read = conflicts.iter().find(|c| c.kind == "read");
    let mut repairs: Vec<Repair> = Vec::new();
    if writes > 0 {
        repairs.push(Repair::new(
            "rebase",
            "Re-apply the tx's content-based operations onto the current files.",
            shell::aitools(["tx", "rebase", id]),
        ));
    }
    if let Some(r) = first_read {
        repairs.push(Repair::new(
            "reread",
            "Read the changed file again through the tx to refresh the read set.",
            shell::aitools(["read", &r.path, "--tx", id]),
        ));
        repairs.push(Repair::new(
            "ignore-stale-reads",
            "Commit even though files read through the tx have changed.",
            shell::aitools(["tx", "commit", id, "--ignore-stale-reads"]),
        ));
    }
    repairs.push(Repair::new(
        "status",
        "See the tx's operations, drift and stale reads.",
        shell::aitools(["tx", "status", id]),
    ));
    let mut it = repairs.into_iter();
    let first = it.next().unwrap_or_else(|| {
        Repair::new(
            "status",
            "See the tx.",
            shell::aitools(["tx", "status", id]),
        )
    });
    let mut err = CmdError::new(
        code::TARGET_CHANGED,
        format!(
            "{} path(s) changed outside tx {id}; nothing was written.",
            {
                // A path both written and read is one path, listed once per kind.
                let mut paths: Vec<&str> = conflicts.iter().map(|c| c.path.as_str()).collect();
                paths.sort_unstable();
                paths.dedup();
                paths.len()
            }
        ),
        first,
    );
    for r in it {
        err = err.with_repair(r);
    }
    err.with_conflicts(Json::from_serialize(&conflicts))
}
