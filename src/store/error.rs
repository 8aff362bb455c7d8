//! What went wrong in the store, as data: the write protocol, transactions, the
//! view, undo and recovery name the failure and its facts here; the wording, the
//! catalog code and the repairs (`aitools ...` commands) are the composition
//! root's (`src/command_error/store.rs`), so the store never spells a command
//! line. A command converts it with `.into()` (or `?`) into the error it returns.

use super::tx::model::Conflict;
use crate::protocol::{Json, Repair};

/// A store failure; boxed where it travels in a `Result`.
#[derive(Debug)]
pub enum StoreError {
    /// `environment.io` on the store's own files (`what`: "the journal", ...);
    /// the retry repair is the same call (`argv`).
    Io {
        what: String,
        error: std::io::Error,
        argv: Vec<String>,
    },
    /// `environment.io`: a committed op's first step was refused by the tree
    /// (`rel`: the path it acts on), so the op was undone; the repairs name the
    /// cause (read-only mount, immutable attribute, permissions, full disk).
    TreeRefused {
        rel: String,
        error: std::io::Error,
        argv: Vec<String>,
    },
    /// The state directory is missing or not private (`why`); the repair is
    /// the same call once fixed.
    StateUntrusted {
        why: super::state_dir::Untrusted,
        argv: Vec<String>,
    },
    /// A write is refused while the record `op_id` is pending (`more` others);
    /// the record's own repairs (retry, set aside) lead.
    RecoveryPending {
        op_id: String,
        error: String,
        more: usize,
        repairs: Vec<Repair>,
    },
    /// `recover --set-aside` names no pending record.
    NotPending { op_id: String, argv: Vec<String> },
    /// A lock stayed held by another aitools for all of `--lock-timeout`.
    Busy(Busy),
    /// A write wants `rel` to be a regular file.
    NotAFile { rel: String },
    /// An entry that is not a directory stands where one must be created.
    InTheWay { rel: String },
    /// One op both creates `rel` and removes or moves it.
    CreatedAndRemoved { rel: String, command: String },
    /// A mode or time change of a file with `nlink` hard links.
    HardLink {
        rel: String,
        nlink: u64,
        hash: String,
        argv: Vec<String>,
    },
    /// The tx `id` was staged without syncs before the machine restarted (its
    /// last op is `last`): a power loss may have lost or damaged its last ops.
    TxUnsynced { id: String, last: u64 },
    /// Line `line` of the tx `id`'s ops log (`log`) is whole but not a record;
    /// the ops from `op` on are not taken. `droppable`: `tx drop` from `op`
    /// mends it (else the record was one `index.json` already holds).
    TxLogUnreadable {
        id: String,
        log: String,
        line: usize,
        op: u64,
        droppable: bool,
    },
    /// `delete` of a directory that is not empty.
    DirNotEmpty { rel: String },
    /// `move` onto an existing directory (`name`: the source's file name).
    MoveOntoDir {
        src: String,
        dst: String,
        name: String,
    },
    /// `link` where a file or directory stands.
    NotASymlink { rel: String },
    /// No open tx of the workspace (`root`, as shown) has the id.
    TxNotFound { root: String, id: String },
    /// `tx approve` / `tx deny` of a tx not begun with `--review`.
    TxNotReviewed { id: String },
    /// `tx approve` / `tx deny` without a tx id, when not exactly one tx awaits
    /// review (`pending`: those that do, oldest first).
    ReviewUnnamed { pending: Vec<String> },
    /// A review-gated commit the operator denied, or whose wait ran out.
    ReviewRefused(super::tx::review::Refused),
    /// Paths changed outside the tx (drift, stale reads): nothing was written.
    TxConflicts {
        id: String,
        conflicts: Vec<Conflict>,
    },
    /// A path that does not exist in the tx's view, and no op of it removed it.
    NotInTx { arg: String, id: String },
    /// The tx op `op` (its number, and the argv it ran) removed the path.
    RemovedInTx {
        arg: String,
        id: String,
        op: u64,
        op_argv: Vec<String>,
    },
    /// The tx op `op` moved the path to `to` (`as_arg`: as the call would name
    /// it); `retry` is the same call's argv on the new name when the path
    /// argument can be swapped.
    MovedInTx {
        arg: String,
        id: String,
        to: String,
        op: u64,
        op_argv: Vec<String>,
        as_arg: String,
        retry: Option<Vec<String>>,
    },
    /// An I/O failure on the workspace path `path` (as shown) a command acts on,
    /// worded as the command's own (`protocol::error::io_error`).
    PathIo {
        command: String,
        path: String,
        error: std::io::Error,
    },
    /// A workspace failure met on the way (a missing path, the whole-file budget).
    Workspace(Box<crate::workspace::WorkspaceError>),
    /// `undo` of an id the journal does not hold.
    OpNotFound { op_id: String },
    /// A short op id (`op-<8 hex>`) that ends several journaled ops' whole ids
    /// (`ids`, sorted): ops made before new ids avoided live ones' digits. `again`
    /// is the call to repeat with a whole id (`["undo"]`, `["diff", "--op"]`).
    OpAmbiguous {
        op_id: String,
        ids: Vec<String>,
        again: Vec<String>,
    },
    /// `undo` of an op retention collected (`first`: one of its paths).
    OpCollected {
        op_id: String,
        first: String,
        keep: usize,
        budget_env: &'static str,
    },
    /// `undo` of an op that the op `by` already undid.
    AlreadyUndone {
        op_id: String,
        by: String,
        conflicts: Json,
    },
    /// `undo` of an op whose paths changed since (`first`: one of them).
    UndoConflicts {
        op_id: String,
        first: String,
        conflicts: Json,
    },
    /// The blob undo needs for `rel` no longer hashes to its name.
    BlobCorrupt {
        rel: String,
        op_id: String,
        hash: String,
    },
    /// The blob undo needs for `path` cannot be read.
    BlobMissing {
        path: String,
        hash: String,
        error: std::io::Error,
        command: String,
    },
    /// `move` of a directory into itself (`dst`, as shown, is inside `src`).
    MoveIntoItself {
        command: String,
        src: String,
        dst: String,
    },
    /// A file changed since the command read it (`appends`).
    TargetsChanged(Box<super::appends::TargetsChanged>),
    /// The syntax guard refused the write.
    SyntaxBroken(Box<SyntaxBroken>),
    /// A bug: a caller handed the store what it never should (the message says what).
    Internal(&'static str),
}

/// A write the syntax guard (`write::syntax_guard`) refused: the file, its
/// first error, and where the guard's setting came from (the repair that
/// writes anyway differs).
#[derive(Debug, Clone)]
pub struct SyntaxBroken {
    /// The path as shown (workspace-relative).
    pub rel: String,
    /// The grammar's name.
    pub lang: &'static str,
    pub error: crate::text::syntax::grammar::SyntaxError,
    /// The guard came from the config file, not the call's flag.
    pub from_config: bool,
    /// The call, for the repair that runs it again without the guard.
    pub argv: Vec<String>,
}

/// A repair a pending record offers (in `pending_recovery` and in the refusal of
/// a write), worded in `src/command_error/store.rs`.
#[derive(Debug, Clone)]
pub enum PendingRepair {
    /// Finish the record `op_id` once the cause of its failure is fixed.
    Retry { op_id: String },
    /// Move the record aside without running it (`untrusted`: it was never run).
    SetAside { op_id: String, untrusted: bool },
}

pub use crate::protocol::error::copy_io;

impl StoreError {
    /// Whether the path a command acts on could not be read for its mode (EACCES):
    /// a walk passes such a file over as `unreadable` instead of failing whole.
    pub fn is_permission_denied(&self) -> bool {
        matches!(self, StoreError::PathIo { error, .. } if error.kind() == std::io::ErrorKind::PermissionDenied)
    }
}

impl From<Box<crate::workspace::WorkspaceError>> for Box<StoreError> {
    fn from(e: Box<crate::workspace::WorkspaceError>) -> Box<StoreError> {
        Box::new(StoreError::Workspace(e))
    }
}

impl From<Box<super::appends::TargetsChanged>> for Box<StoreError> {
    fn from(e: Box<super::appends::TargetsChanged>) -> Box<StoreError> {
        Box::new(StoreError::TargetsChanged(e))
    }
}

/// `StoreError::PathIo` for `abs` (shown as the invocation shows paths).
pub fn path_io(
    ctx: &crate::workspace::Ctx,
    abs: &std::path::Path,
    error: std::io::Error,
) -> Box<StoreError> {
    Box::new(StoreError::PathIo {
        command: ctx.command.clone(),
        path: ctx.display_path(abs),
        error,
    })
}

/// A lock that stayed held for all of `--lock-timeout` (`waited`); `argv` is
/// the call to run again (`store::lock`). Worded by `command_error::store_leaf`.
#[derive(Debug)]
pub struct Busy {
    pub waited: std::time::Duration,
    pub argv: Vec<String>,
}
