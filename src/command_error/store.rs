//! The store's typed errors (`store::error::StoreError`) in words: for each, the
//! catalog code, the message and the repairs (`aitools ...` commands). The store
//! names what went wrong as data; only this module says it to the user.

use crate::protocol::{CmdError, Json, Repair, code, error, shell};
use crate::store::error::{PendingRepair, StoreError};
use crate::store::state_dir::Untrusted;
use crate::store::tx::Conflict;

/// A write the file system refused before anything changed (`TreeRefused`):
/// the cause read off the error, and the one thing to fix before running it again.
fn tree_refused(rel: &str, e: &std::io::Error, argv: &[String]) -> CmdError {
    let dir = std::path::Path::new(rel)
        .parent()
        .map(|d| d.display().to_string())
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| ".".to_string());
    let (d, r) = (shell::quote(&dir), shell::quote(rel));
    let (cause, fix) = match e.raw_os_error() {
        Some(libc::EROFS) => (
            format!("the file system holding {dir} is mounted read-only"),
            format!(
                "Remount it read-write (`findmnt -T {d}` names the mount; `mount -o remount,rw` it), then run the command again."
            ),
        ),
        Some(libc::EPERM) => (
            format!(
                "{rel} or {dir} is immutable or append-only (or a security policy refuses the change)"
            ),
            format!(
                "Clear the attribute (`lsattr -d {d} {r}`, then `chattr -i -a` the one marked), then run the command again."
            ),
        ),
        Some(libc::EACCES) => (
            format!("this user may not change entries of {dir}"),
            format!(
                "Make {dir} writable for this user (`ls -ld {d}`; `chmod u+w {d}`), then run the command again."
            ),
        ),
        Some(libc::ENOSPC) | Some(libc::EDQUOT) => (
            format!("the file system holding {dir} is full (or the quota is used up)"),
            format!("Free space there (`df -h {d}`), then run the command again."),
        ),
        _ => (
            "the file system refused it".to_string(),
            "Fix the cause the error names, then run the command again.".to_string(),
        ),
    };
    CmdError::new(
        code::IO,
        format!(
            "The write to {rel} was refused: {cause} ({}). Nothing was changed and nothing stays pending.",
            error::err_text(e)
        ),
        Repair::new("fix", fix, shell::aitools(argv)),
    )
}

impl From<Box<StoreError>> for CmdError {
    fn from(e: Box<StoreError>) -> CmdError {
        CmdError::from(*e)
    }
}

impl From<StoreError> for CmdError {
    fn from(e: StoreError) -> CmdError {
        match e {
            StoreError::Io { what, error, argv } => CmdError::new(
                code::IO,
                format!("{what}: {}.", error::err_text(&error)),
                Repair::new(
                    "retry",
                    "Check the disk and the state directory's permissions, then run the command again.",
                    shell::aitools(&argv),
                ),
            )
            .with_repair(Repair::new(
                "history",
                "See which writes the journal holds.",
                "aitools history",
            )),
            StoreError::TreeRefused { rel, error, argv } => tree_refused(&rel, &error, &argv),
            StoreError::StateUntrusted { why, argv } => CmdError::new(
                code::STATE_UNTRUSTED,
                why.message(),
                Repair::new("secure", why.fix(), shell::aitools(&argv)),
            ),
            StoreError::RecoveryPending {
                op_id,
                error,
                more,
                repairs,
            } => {
                let more = match more {
                    0 => String::new(),
                    n => format!(" ({n} more pending)"),
                };
                let mut repairs = repairs.into_iter();
                let lead = repairs.next().unwrap_or_else(|| {
                    Repair::new(
                        "recover",
                        format!("Finish or list the pending write {op_id}."),
                        "aitools recover",
                    )
                });
                let mut err = CmdError::new(
                    code::RECOVERY_PENDING,
                    format!(
                        "An interrupted write, {op_id}, is still pending{more}: {error} Writes wait until it is finished or set aside; reads still run."
                    ),
                    lead,
                );
                for r in repairs {
                    err = err.with_repair(r);
                }
                err
            }
            StoreError::NotPending { op_id, argv } => CmdError::new(
                code::NOT_FOUND,
                format!("No pending write {op_id} in this workspace."),
                Repair::new(
                    "recover",
                    "List the writes still pending (pending_recovery).",
                    "aitools recover",
                ),
            )
            .with_repair(Repair::new(
                "retry",
                "Run the same command again with an op id from pending_recovery.",
                shell::aitools(&argv),
            )),
            StoreError::NotAFile { rel } => CmdError::new(
                code::NOT_A_FILE,
                format!("{rel} is not a regular file."),
                Repair::new(
                    "info",
                    "Check what the path is.",
                    shell::aitools(["info", &rel]),
                ),
            ),
            StoreError::InTheWay { rel } => CmdError::new(
                code::EXISTS,
                format!(
                    "{rel} exists and is not a directory, so nothing can be created there or below it."
                ),
                Repair::new(
                    "info",
                    "Check what the path is; pick another path or move the entry away first.",
                    shell::aitools(["info", &rel]),
                ),
            ),
            StoreError::CreatedAndRemoved { rel, command } => CmdError::new(
                code::ARGUMENT_INVALID,
                format!(
                    "{rel} is created by this same operation and cannot also be removed or moved by it."
                ),
                error::schema_repair(&command),
            ),
            StoreError::HardLink {
                rel,
                nlink,
                hash,
                argv,
            } => {
                let copy = format!("{rel}.unlinked");
                CmdError::new(
                    code::HARD_LINK,
                    format!(
                        "{rel} is a file with {nlink} hard links; changing its mode or time would change it under every name, and another name may be outside the workspace."
                    ),
                    Repair::new(
                        "copy",
                        "Step 1 of 2 to give this name a file of its own: copy its bytes and mode to a new file.",
                        shell::aitools(["copy", &rel, &copy]),
                    ),
                )
                .with_repair(Repair::new(
                    "replace",
                    "Step 2 of 2: move the copy over this name (the other names keep the old file).",
                    shell::aitools([
                        "move",
                        &copy,
                        &rel,
                        "--overwrite",
                        "--expect-hash",
                        &format!("{rel}={hash}"),
                    ]),
                ))
                .with_repair(Repair::new(
                    "retry",
                    "Then run the command again.",
                    shell::aitools(&argv),
                ))
            }
            StoreError::TxUnsynced { id, last } => CmdError::new(
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
            )),
            StoreError::TxLogUnreadable {
                id,
                log,
                line,
                op,
                droppable,
            } => {
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
            StoreError::DirNotEmpty { rel } => CmdError::new(
                code::NOT_A_FILE,
                format!(
                    "{rel} is a directory that is not empty; delete removes only files, symlinks and empty directories."
                ),
                Repair::new(
                    "list",
                    "See what the directory holds; delete its entries first.",
                    shell::aitools(["find", "*", &rel]),
                ),
            ),
            StoreError::MoveOntoDir { src, dst, name } => CmdError::new(
                code::EXISTS,
                format!("{dst} is an existing directory; move never merges into one."),
                Repair::new(
                    "rename",
                    "Name the destination path in full, including the new name.",
                    shell::aitools(["move", &src, &format!("{dst}/{name}")]),
                ),
            ),
            StoreError::NotASymlink { rel } => CmdError::new(
                code::EXISTS,
                format!(
                    "{rel} exists and is not a symlink; link never replaces a file or directory."
                ),
                Repair::new(
                    "delete",
                    "Pick another link path, or delete the entry first.",
                    shell::aitools(["info", &rel]),
                ),
            ),
            StoreError::TxNotFound { root, id } => CmdError::new(
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
            )),
            StoreError::TxConflicts { id, conflicts } => tx_conflicts(&id, &conflicts),
            StoreError::TxNotReviewed { id } => CmdError::new(
                code::ARGUMENT_INVALID,
                format!(
                    "tx {id} was not begun with --review: its commit waits for no one, so there is nothing to approve or deny."
                ),
                Repair::new(
                    "pending",
                    "List the transactions that await a review.",
                    "aitools tx reviews",
                ),
            ),
            StoreError::ReviewUnnamed { pending } => review_unnamed(&pending),
            StoreError::ReviewRefused(r) => review_refused(r),
            StoreError::NotInTx { arg, id } => CmdError::new(
                code::NOT_FOUND,
                format!("{arg} does not exist in tx {id}."),
                tx_diff(&id),
            ),
            StoreError::RemovedInTx {
                arg,
                id,
                op,
                op_argv,
            } => CmdError::new(
                code::NOT_FOUND,
                format!(
                    "{arg} was removed in tx {id} (op {op}: {}); it exists only outside the tx.",
                    shell::aitools(&op_argv)
                ),
                tx_diff(&id),
            ),
            StoreError::MovedInTx {
                arg,
                id,
                to,
                op,
                op_argv,
                as_arg,
                retry,
            } => {
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
            StoreError::OpNotFound { op_id } => CmdError::new(
                code::NOT_FOUND,
                format!("No journaled op has the id {op_id}."),
                Repair::new(
                    "history",
                    "List the journaled ops and their ids.",
                    "aitools history",
                ),
            ),
            StoreError::OpAmbiguous { op_id, ids, again } => {
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
                    Repair::new("history", "List the journaled ops and their ids.", "aitools history")
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
            StoreError::OpCollected {
                op_id,
                first,
                keep,
                budget_env,
            } => CmdError::new(
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
            )),
            StoreError::AlreadyUndone {
                op_id,
                by,
                conflicts,
            } => CmdError::new(
                code::TARGET_CHANGED,
                format!("{op_id} was already undone by {by}; undo writes nothing."),
                Repair::new(
                    "redo",
                    format!("To redo {op_id}, undo its undo."),
                    shell::aitools(["undo", &by]),
                ),
            )
            .with_conflicts(conflicts),
            StoreError::UndoConflicts {
                op_id,
                first,
                conflicts,
            } => {
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
            StoreError::BlobCorrupt { rel, op_id, hash } => CmdError::new(
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
            )),
            StoreError::BlobMissing {
                path,
                hash,
                error,
                command,
            } => CmdError::new(
                code::IO,
                format!(
                    "The earlier content of {path} (blob {hash}) is not in the state directory: {}.",
                    error::err_text(&error)
                ),
                Repair::new("history", "List the journal's ops.", "aitools history"),
            )
            .with_repair(error::schema_repair(&command)),
        }
    }
}

impl From<PendingRepair> for Repair {
    fn from(r: PendingRepair) -> Repair {
        match r {
            PendingRepair::Retry { op_id } => Repair::new(
                "retry",
                format!(
                    "Fix the cause named in the error (a read-only mount, permissions, a full disk), then finish {op_id}."
                ),
                "aitools recover",
            ),
            PendingRepair::SetAside { op_id, untrusted } => {
                let detail = if untrusted {
                    "aitools will not run this record. Move it out of the way without running it: it is kept, with its blobs, under set-aside/ in the state directory, and the set-aside is journaled."
                } else {
                    "Give up finishing it: the record, its blobs and its temp files' bytes are kept under set-aside/ in the state directory, the temp files leave the tree, and the set-aside is journaled. The files it touched stay as they are now."
                };
                Repair::new(
                    "set-aside",
                    detail,
                    shell::aitools(["recover", "--set-aside", &op_id]),
                )
            }
        }
    }
}

// The state directory's distrust in words (also its `Display`, which the
// io::Error of `state_dir::ensure` carries).
impl Untrusted {
    /// What is wrong, in words.
    pub fn message(&self) -> String {
        match self {
            Untrusted::NoHome => "Neither XDG_STATE_HOME nor HOME is set to an absolute path, so aitools has no private place for its journal and intent records (it never falls back to a shared directory such as /tmp).".to_string(),
            Untrusted::Unsafe { path, why, .. } => format!(
                "The state directory {} {why}; another user could plant records that make aitools change files, so it is not used.",
                path.display()
            ),
        }
    }

    /// What to do about it, in words (the repair's command is the same call).
    pub fn fix(&self) -> String {
        match self {
            Untrusted::NoHome => "Set XDG_STATE_HOME to a private directory you own (mode 0700), e.g. `export XDG_STATE_HOME=\"$HOME/.local/state\"`, then run the command again.".to_string(),
            Untrusted::Unsafe { shared: true, path, .. } => format!(
                "{} is shared by design; set XDG_STATE_HOME to a private directory you own (mode 0700), e.g. `mkdir -m 700 -p \"$HOME/.local/state\"; export XDG_STATE_HOME=\"$HOME/.local/state\"`, then run the command again.",
                path.display()
            ),
            Untrusted::Unsafe { path, .. } => format!(
                "Make it yours and private (`chown \"$(id -u)\" {p}; chmod 700 {p}`), or set XDG_STATE_HOME to a private directory you own, then run the command again.",
                p = crate::protocol::shell::quote(&path.to_string_lossy())
            ),
        }
    }
}

impl std::error::Error for Untrusted {}

impl std::fmt::Display for Untrusted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
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
fn review_unnamed(pending: &[String]) -> CmdError {
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
fn review_refused(r: crate::store::tx::review::Refused) -> CmdError {
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
fn tx_conflicts(id: &str, conflicts: &[Conflict]) -> CmdError {
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
