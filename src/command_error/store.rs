//! The store's typed errors (`store::error::StoreError`) in words: for each, the
//! catalog code, the message and the repairs (`aitools ...` commands). The store
//! names what went wrong as data; only this module says it to the user. Here:
//! the dispatch of every `StoreError`, the state directory, recovery and the
//! tree's refusals; transactions in `store_tx.rs`, the journal and undo in
//! `store_undo.rs`.

use super::{store_tx, store_undo};
use crate::protocol::{CmdError, Repair, code, error, shell};
use crate::store::error::{PendingRepair, StoreError};
use crate::store::state_dir::Untrusted;

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
        use StoreError as E;
        match e {
            E::Io { what, error, argv } => io(what, error, argv),
            E::TreeRefused { rel, error, argv } => tree_refused(&rel, &error, &argv),
            E::StateUntrusted { why, argv } => state_untrusted(why, argv),
            E::RecoveryPending {
                op_id,
                error,
                more,
                repairs,
            } => recovery_pending(op_id, error, more, repairs),
            E::NotPending { op_id, argv } => not_pending(op_id, argv),
            E::Busy(b) => Box::new(b).into(),
            E::NotAFile { rel } => not_a_file(rel),
            E::InTheWay { rel } => in_the_way(rel),
            E::CreatedAndRemoved { rel, command } => created_and_removed(rel, command),
            E::HardLink {
                rel,
                nlink,
                hash,
                argv,
            } => hard_link(rel, nlink, hash, argv),
            E::TxUnsynced { id, last } => store_tx::unsynced(id, last),
            E::TxLogUnreadable {
                id,
                log,
                line,
                op,
                droppable,
            } => store_tx::log_unreadable(id, log, line, op, droppable),
            E::DirNotEmpty { rel } => dir_not_empty(rel),
            E::MoveOntoDir { src, dst, name } => move_onto_dir(src, dst, name),
            E::NotASymlink { rel } => not_a_symlink(rel),
            E::TxNotFound { root, id } => store_tx::not_found(root, id),
            E::TxConflicts { id, conflicts } => store_tx::conflicts(&id, &conflicts),
            E::TxNotReviewed { id } => store_tx::not_reviewed(id),
            E::ReviewUnnamed { pending } => store_tx::review_unnamed(&pending),
            E::ReviewRefused(r) => store_tx::review_refused(r),
            E::NotInTx { arg, id } => store_tx::not_in_tx(arg, id),
            E::RemovedInTx {
                arg,
                id,
                op,
                op_argv,
            } => store_tx::removed_in_tx(arg, id, op, op_argv),
            E::MovedInTx {
                arg,
                id,
                to,
                op,
                op_argv,
                as_arg,
                retry,
            } => store_tx::moved_in_tx(arg, id, to, op, op_argv, as_arg, retry),
            E::PathIo {
                command,
                path,
                error,
            } => error::io_error(&command, &path, &error),
            E::Workspace(w) => w.into(),
            E::OpNotFound { op_id } => store_undo::op_not_found(op_id),
            E::OpAmbiguous { op_id, ids, again } => store_undo::op_ambiguous(op_id, ids, again),
            E::OpCollected {
                op_id,
                first,
                keep,
                budget_env,
            } => store_undo::op_collected(op_id, first, keep, budget_env),
            E::AlreadyUndone {
                op_id,
                by,
                conflicts,
            } => store_undo::already_undone(op_id, by, conflicts),
            E::UndoConflicts {
                op_id,
                first,
                conflicts,
            } => store_undo::undo_conflicts(op_id, first, conflicts),
            E::BlobCorrupt { rel, op_id, hash } => store_undo::blob_corrupt(rel, op_id, hash),
            E::BlobMissing {
                path,
                hash,
                error,
                command,
            } => store_undo::blob_missing(path, hash, error, command),
            E::MoveIntoItself { command, src, dst } => CmdError::invalid_argument(
                &command,
                format!("{dst} is inside {src}; a directory cannot move into itself."),
            ),
            E::TargetsChanged(t) => t.into(),
            E::SyntaxBroken(s) => s.into(),
            E::Internal(what) => CmdError::internal(what),
        }
    }
}

/// `environment.io` on the store's own files: the same call again, and the journal.
fn io(what: String, error: std::io::Error, argv: Vec<String>) -> CmdError {
    CmdError::new(
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
    ))
}

/// The state directory is missing or not private: how to secure it.
fn state_untrusted(why: Untrusted, argv: Vec<String>) -> CmdError {
    CmdError::new(
        code::STATE_UNTRUSTED,
        why.message(),
        Repair::new("secure", why.fix(), shell::aitools(&argv)),
    )
}

/// A write refused while a record is pending: the record's own repairs lead.
fn recovery_pending(op_id: String, error: String, more: usize, repairs: Vec<Repair>) -> CmdError {
    {
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
}

/// `recover --set-aside` of an op id no record holds.
fn not_pending(op_id: String, argv: Vec<String>) -> CmdError {
    CmdError::new(
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
    ))
}

/// A write that wants a regular file where something else stands.
pub(super) fn not_a_file(rel: String) -> CmdError {
    CmdError::new(
        code::NOT_A_FILE,
        format!("{rel} is not a regular file."),
        Repair::new(
            "info",
            "Check what the path is.",
            shell::aitools(["info", &rel]),
        ),
    )
}

/// An entry that is not a directory where one must be created.
pub(super) fn in_the_way(rel: String) -> CmdError {
    CmdError::new(
        code::EXISTS,
        format!(
            "{rel} exists and is not a directory, so nothing can be created there or below it."
        ),
        Repair::new(
            "info",
            "Check what the path is; pick another path or move the entry away first.",
            shell::aitools(["info", &rel]),
        ),
    )
}

/// One op that both creates a path and removes or moves it.
pub(super) fn created_and_removed(rel: String, command: String) -> CmdError {
    CmdError::new(
        code::ARGUMENT_INVALID,
        format!(
            "{rel} is created by this same operation and cannot also be removed or moved by it."
        ),
        error::schema_repair(&command),
    )
}

/// A mode or time change of a hard-linked file: give the name a file of its own first.
pub(super) fn hard_link(rel: String, nlink: u64, hash: String, argv: Vec<String>) -> CmdError {
    {
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
}

/// `delete` of a directory that is not empty.
pub(super) fn dir_not_empty(rel: String) -> CmdError {
    CmdError::new(
        code::NOT_A_FILE,
        format!(
            "{rel} is a directory that is not empty; delete removes only files, symlinks and empty directories."
        ),
        Repair::new(
            "list",
            "See what the directory holds; delete its entries first.",
            shell::aitools(["find", "*", &rel]),
        ),
    )
}

/// `move` onto an existing directory.
pub(super) fn move_onto_dir(src: String, dst: String, name: String) -> CmdError {
    CmdError::new(
        code::EXISTS,
        format!("{dst} is an existing directory; move never merges into one."),
        Repair::new(
            "rename",
            "Name the destination path in full, including the new name.",
            shell::aitools(["move", &src, &format!("{dst}/{name}")]),
        ),
    )
}

/// `link` where a file or directory stands.
pub(super) fn not_a_symlink(rel: String) -> CmdError {
    CmdError::new(
        code::EXISTS,
        format!("{rel} exists and is not a symlink; link never replaces a file or directory."),
        Repair::new(
            "delete",
            "Pick another link path, or delete the entry first.",
            shell::aitools(["info", &rel]),
        ),
    )
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
