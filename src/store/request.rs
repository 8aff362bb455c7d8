//! What a write is asked and what it answers, as data: the changes a command wants
//! made (`Change`), the request that carries them (`WriteRequest`), and the
//! answer (`Committed`, `ChangeReport`). The layers that stage (`tx`) and
//! commit (`write`) share these types, so neither names the other for them.

use super::snapshot::Snapshot;
use crate::protocol::{Json, Output};
use crate::workspace::Ctx;
use serde::Serialize;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

/// One change a command wants made. Paths are absolute (from `Ctx::path_arg`).
#[derive(Debug, Clone)]
pub enum Change {
    /// Create or replace a regular file (through a symlink to the file it leads
    /// to). `mode` applies to a new file (an existing file keeps its mode unless
    /// `mode` is given). Missing parent directories are created.
    Put {
        path: PathBuf,
        bytes: Vec<u8>,
        mode: Option<u32>,
    },
    /// A `Put` whose bytes' SHA-256 (hex) the command computed already (as it read
    /// them): the plan takes it instead of hashing them again.
    PutHashed {
        path: PathBuf,
        bytes: Vec<u8>,
        hash: String,
    },
    /// A `Put` of the file as read with one byte range replaced: the bytes
    /// `base.bytes[..range.start] + with + base.bytes[range.end..]`, written as
    /// those three pieces (the whole new file is never built in memory). `base` is
    /// the snapshot the command computed the edit from; the plan checks it is the
    /// file's before-state (else it writes the pieces joined, as a `Put`).
    Splice {
        path: PathBuf,
        base: Arc<Snapshot>,
        range: Range<usize>,
        with: Vec<u8>,
    },
    /// A `Splice` of a file too large to hold (`stream::STREAM_FROM`), read by
    /// one streaming pass (`base`): the new file is the file's head copied,
    /// `with`, and its tail copied. The plan refuses it when the file is not
    /// the one read (`refusal.target-changed`).
    SpliceStream {
        path: PathBuf,
        base: Arc<super::stream::Scan>,
        range: Range<u64>,
        with: Vec<u8>,
    },
    /// A `Put` of the bytes of a file on disk (`from`, a before-image blob as
    /// one pass read and hashed it), copied through the temp file, never held.
    /// `base`: the target as one pass read it (the plan refuses the change with
    /// `refusal.target-changed` when the file is no longer that one); `None`:
    /// the plan looks at the target itself. `window`: the answer's diff (old
    /// and new lines, the 0-based line they start at); `None`: the whole files.
    PutStream {
        path: PathBuf,
        base: Option<Arc<super::stream::Scan>>,
        from: Arc<super::stream::Scan>,
        mode: Option<u32>,
        window: Option<(Vec<u8>, Vec<u8>, usize)>,
    },
    /// Remove a file, a symlink, or an empty directory.
    Delete { path: PathBuf },
    /// Rename (never merges into an existing directory; replaces a file or symlink).
    Move { from: PathBuf, to: PathBuf },
    /// Create a directory (parents too); an existing directory is a no-op.
    Mkdir { path: PathBuf },
    /// Set permission bits.
    Chmod { path: PathBuf, mode: u32 },
    /// Create (or replace a symlink with) a symlink at `path` whose text is `target`.
    Symlink { path: PathBuf, target: String },
    /// Set a file's modification time (seconds since the epoch); creates an empty
    /// file when missing.
    Touch { path: PathBuf, mtime: i64 },
}

impl Change {
    /// A document rewritten whole (json, nb, table) as the write's changes: none
    /// when `new` is `old`; refused when `new` holds a mask placeholder `old` did
    /// not (writing it would put `[REDACTED_SECRET]` in place of a secret).
    pub fn rewrite(
        ctx: &Ctx,
        what: &str,
        display: &str,
        abs: &std::path::Path,
        (old, new): (&str, &str),
        bytes: impl FnOnce(&str) -> Vec<u8>,
    ) -> Result<Vec<Change>, Box<super::guard::GuardError>> {
        if new == old {
            return Ok(Vec::new());
        }
        super::guard::refuse_built_mask(what, Some(display), old.as_bytes(), new.as_bytes())?;
        Ok(vec![Change::Put {
            path: crate::workspace::paths::real_path(ctx.dirs(), abs),
            bytes: bytes(new),
            mode: None,
        }])
    }
}

/// One write request: how the changes a command's `build` returns are committed
/// (or staged), and what the journal and the answer record about them. Every
/// write goes through `write::submit` with one; `new` fills it from the call.
#[derive(Debug, Clone, Default)]
pub struct WriteRequest {
    /// The command name and argv the journal (or the tx's ops log) records.
    pub command: String,
    pub argv: Vec<String>,
    /// Stage the changes in this tx (one tx op) instead of committing them; the
    /// `Ctx` the request runs in must read through the same tx (`ctx.tx`).
    pub tx: Option<String>,
    /// Validate and show the diff; write nothing.
    pub dry_run: bool,
    /// Diff lines the answer shows when `--max-diff-lines` is not given (`None`:
    /// the default budget; `Some(0)`: the diff was shown before, by a dry run or
    /// the tx's ops).
    pub max_diff_lines: Option<usize>,
    /// The op this one reverts (`undo`).
    pub undoes: Option<String>,
    /// The op id, chosen by the caller (with `journal::new_op_id`, under the
    /// workspace lock it still holds) and recorded first: `tx commit`'s marker
    /// names the op it is about to journal. `None`: a fresh id.
    pub op_id: Option<String>,
    /// Set (by the changes' builder, once it knows) when the caller drops every
    /// change's diff and line counts from the answer (`compact::drop_diffs`):
    /// a commit then builds none (a 100-file `apply` diffed every file for an
    /// answer that shows none). A tx's staging still builds them: its answer
    /// keeps the `tx diff` continuation a cut diff adds.
    pub no_diffs: std::cell::Cell<bool>,
    /// `--syntax-guard` (`Some(true)`), `--syntax-guard off` (`Some(false)`),
    /// else `None`: the workspace config decides (`write::syntax_guard`).
    pub syntax_guard: Option<bool>,
}

impl WriteRequest {
    /// The request of the command `ctx` runs: its name and argv, and its `--tx`.
    pub fn new(ctx: &Ctx) -> WriteRequest {
        WriteRequest {
            command: ctx.command.clone(),
            argv: ctx.argv.clone(),
            tx: ctx.tx.clone(),
            syntax_guard: ctx.syntax_guard,
            ..WriteRequest::default()
        }
    }

    /// With `--dry-run`'s value.
    pub fn dry_run(mut self, dry_run: bool) -> WriteRequest {
        self.dry_run = dry_run;
        self
    }

    /// With the diff budget used when `--max-diff-lines` is not given.
    pub fn max_diff_lines(mut self, n: Option<usize>) -> WriteRequest {
        self.max_diff_lines = n;
        self
    }

    /// Reverting the op `op_id` (`undo`).
    pub fn undoes(mut self, op_id: &str) -> WriteRequest {
        self.undoes = Some(op_id.to_string());
        self
    }
}

/// `changes[]` of the write output.
#[derive(Debug, Clone, Serialize)]
pub struct ChangeReport {
    pub path: String,
    pub action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    pub hash_after: Option<String>,
    /// Lines added and deleted by a text change (absent for other changes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub added: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deleted: Option<u64>,
    /// The change's hunks without context lines or ---/+++ headers, within the budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff_truncated: Option<bool>,
    /// Per-file replacement count (`replace`): the caller fills it after `run`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
}

/// What a finished (or dry-run) write reports.
#[derive(Debug, Clone)]
pub struct Committed {
    pub changes: Vec<ChangeReport>,
    pub op_id: Option<String>,
    pub dry_run: bool,
    pub next_commands: Vec<String>,
    /// With `--tx`: the tx the write was staged in (it answers `tx`, `tx_op`).
    pub tx: Option<String>,
    /// The op's number inside the tx; `None` when nothing was staged.
    pub tx_op: Option<u64>,
    /// Bytes another program appended to a replaced file meanwhile (`appends`).
    pub concurrent_appends: Option<Json>,
}

impl Committed {
    /// The standard write output, then the command's own fields (`strategy`, ...).
    pub fn into_output(self, extra: Vec<(&str, Json)>) -> Output {
        let mut obj = Json::obj();
        obj.push("changes", Json::from_serialize(&self.changes));
        match self.tx {
            Some(t) => {
                obj.push("tx", Json::Str(t));
                obj.push("tx_op", self.tx_op.map(Json::UInt).unwrap_or(Json::Null));
            }
            None => obj.push("op_id", self.op_id.map(Json::Str).unwrap_or(Json::Null)),
        }
        if self.dry_run {
            obj.push("dry_run", Json::Bool(true));
        }
        for (k, v) in extra {
            obj.push(k, v);
        }
        if let Some(a) = self.concurrent_appends {
            obj.push("concurrent_appends", a);
        }
        if !self.next_commands.is_empty() {
            obj.push("next_commands", Json::from_serialize(&self.next_commands));
        }
        crate::protocol::compact::compact(&mut obj, self.dry_run);
        Output::from_json(obj, false)
    }
}
