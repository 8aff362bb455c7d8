//! The write protocol. A command computes the changes it wants while the workspace
//! lock is held (validation under the lock) and hands them here; the store plans
//! them against a view of the tree (boundary, before-states, no-ops dropped),
//! then commits them all or none:
//!
//! lock → plan → intent line 1 (fsync file + `commit/`) → blobs (fsync, `blobs/`)
//! → temp files beside their targets (fsync) → the replaced files re-checked
//! (`appends::arm`) → checksum line (fsync: the commit point) → apply the steps →
//! fsync the directories → tails appended meanwhile kept (`appends`) → journal
//! line (fdatasync) → remove the record → `gc` when the blobs are over budget. Recovery (`recovery.rs`) finishes or discards a record a
//! killed process left.

use super::beneath::Tree;
use super::blobs;
use super::intent::{self, Intent, Step};
use super::journal::{self, Entry, EntryChange, State};
use super::snapshot::{self, Snapshot};
use super::{fsx, lock, state_dir, tx, view};
use crate::protocol::{CmdError, Json, Output, Repair, code, redact, shell, time};
use crate::text::diff::{self, DiffOptions};
use crate::text::lines::sha256_hex;
use crate::workspace::boundary::{self, Final};
use crate::workspace::{Ctx, paths};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod answer;
mod changes;
mod plan;
mod protocol;

use super::{appends, io_error, recovery};
use answer::{DiffBudget, PendingReport};
use plan::{Content, Plan, Temp, TempKind, View, parent_of};

/// The diff a write's answer shows by default, over all its changes: whole hunks
/// (no context lines) while they fit both limits, so a one-line edit's whole answer
/// stays under 500 bytes; the rest is one `aitools diff --op <op_id>` away.
pub const DEFAULT_DIFF_LINES: usize = 16;
/// Bytes of the shown diff as printed (JSON-escaped), by default.
pub const DEFAULT_DIFF_BYTES: usize = 190;

/// Diff bytes shown across all changes of one write. The answer is built after
/// the commit point, where a refusal would misreport a done write; JSON escaping
/// can grow text 6×, so this keeps every diff well inside the envelope cap.
pub const MAX_DIFF_BYTES: usize = 2 * 1024 * 1024;

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

/// How the write runs.
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    /// Validate and show the diff; write nothing.
    pub dry_run: bool,
}

/// What the journal and output need beyond `WriteOptions` (used by `undo`).
#[derive(Debug, Clone, Default)]
pub struct MoreOptions {
    /// The op this one reverts (`undo`).
    pub undoes: Option<String>,
    /// Diff lines the answer shows when `--max-diff-lines` is not given (`None`:
    /// the default budget; `tx commit` says `Some(0)`: its ops showed theirs).
    pub max_diff_lines: Option<usize>,
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

/// Takes the lock, runs `build` (which reads and validates the targets as they are
/// now and returns the changes), then commits them all or none.
pub fn run(
    ctx: &Ctx,
    opts: &WriteOptions,
    build: impl FnOnce() -> Result<Vec<Change>, CmdError>,
) -> Result<Committed, CmdError> {
    run_with(ctx, opts, &MoreOptions::default(), build)
}

/// `run` with the journal extras.
pub fn run_with(
    ctx: &Ctx,
    opts: &WriteOptions,
    more: &MoreOptions,
    build: impl FnOnce() -> Result<Vec<Change>, CmdError>,
) -> Result<Committed, CmdError> {
    run_as(ctx, opts, more, None, build)
}

/// `run_with` under an op id the caller chose (with `journal::new_op_id`, under
/// the workspace lock it still holds) and recorded first: `tx commit`'s marker
/// names the op it is about to journal.
pub fn run_as(
    ctx: &Ctx,
    opts: &WriteOptions,
    more: &MoreOptions,
    op_id: Option<&str>,
    build: impl FnOnce() -> Result<Vec<Change>, CmdError>,
) -> Result<Committed, CmdError> {
    if let Some(id) = ctx.tx.clone() {
        return stage(ctx, opts, more, &id, build);
    }
    let state = state_dir::ensure(&ctx.root)
        .map_err(|e| super::io_error(ctx, "the state directory", &e))?;
    let _lock = lock::acquire(ctx, &state)?;
    // A writer killed since this command's own recovery ran is finished first, so
    // ops reach the journal in the order they happened.
    super::recovery::recover_locked(ctx, &state)?;
    ctx.session.snapshots.forget_first();
    let changes = build()?;
    let seq = journal::next_seq(&state).map_err(|e| super::io_error(ctx, "the journal", &e))?;
    let op_id = match op_id {
        Some(id) => id.to_string(),
        None => journal::new_op_id(&state, seq, ctx.session.settings.seed.as_deref()),
    };
    let mut plan = Plan::new(ctx, &state, &op_id);
    for c in changes {
        plan.add(c)?;
    }
    let mut budget = DiffBudget::of(ctx, more);
    let mut next_commands = Vec::new();
    let mut reports = Vec::new();
    let mut any_cut = false;
    for r in plan.reports.drain(..) {
        let (report, cut) = r.finish(&mut budget);
        any_cut |= cut;
        reports.push(report);
    }
    if plan.entry_changes.is_empty() {
        return Ok(Committed {
            changes: Vec::new(),
            op_id: None,
            dry_run: opts.dry_run,
            next_commands,
            tx: None,
            tx_op: None,
            concurrent_appends: None,
        });
    }
    if opts.dry_run {
        if any_cut {
            next_commands.push(budget.rerun(ctx));
        }
        return Ok(Committed {
            changes: reports,
            op_id: None,
            dry_run: true,
            next_commands,
            tx: None,
            tx_op: None,
            concurrent_appends: None,
        });
    }
    if any_cut {
        next_commands.push(shell::aitools(["diff", "--op", &op_id]));
    }
    let entry = Entry {
        seq,
        op_id: op_id.clone(),
        time: time::iso8601(time::now().0),
        command: ctx.command.clone(),
        argv: ctx
            .argv
            .iter()
            .map(|a| {
                redact::mask_str(a)
                    .map(|(s, _)| s)
                    .unwrap_or_else(|| a.clone())
            })
            .collect(),
        undoes: more.undoes.clone(),
        changes: std::mem::take(&mut plan.entry_changes),
        appends: Vec::new(),
    };
    let added = plan.blob_bytes();
    let (mut appended, mut watch) = plan.commit(entry)?;
    super::gc::after_write(&state, added, ctx.session.settings.gc_budget);
    // A last look once the write is done (in the answer only: the journal line is written).
    appended.extend(watch.settle(&state, &op_id));
    ctx.session.snapshots.clear();
    let concurrent_appends = (!appended.is_empty()).then(|| {
        for a in appended.iter().filter(|a| !a.hash.is_empty()) {
            next_commands.push(super::appends::reapply(&state, a));
        }
        super::appends::report(&state, &appended)
    });
    Ok(Committed {
        changes: reports,
        op_id: Some(op_id),
        dry_run: false,
        next_commands,
        tx: None,
        tx_op: None,
        concurrent_appends,
    })
}

/// `run_with` under `--tx`: the same validation and planning against the tx's
/// view, then the result is staged in the tx (one tx op) instead of the tree.
fn stage(
    ctx: &Ctx,
    opts: &WriteOptions,
    more: &MoreOptions,
    id: &str,
    build: impl FnOnce() -> Result<Vec<Change>, CmdError>,
) -> Result<Committed, CmdError> {
    let state = state_dir::ensure(&ctx.root)
        .map_err(|e| super::io_error(ctx, "the state directory", &e))?;
    let _lock = lock::acquire(ctx, &state)?;
    super::recovery::recover_locked(ctx, &state)?;
    let _tlock = tx::open(ctx, id)?.lock(ctx)?;
    view::forget(ctx);
    let mut t = tx::open(ctx, id)?;
    view::track(ctx);
    let planned = (|| -> Result<Plan, CmdError> {
        let changes = build()?;
        let mut plan = Plan::new(ctx, &state, id);
        for c in changes {
            plan.add(c)?;
        }
        Ok(plan)
    })();
    let looked = view::tracked(ctx);
    let mut plan = planned?;
    let mut budget = DiffBudget::of(ctx, more);
    let mut next_commands = Vec::new();
    let mut reports = Vec::new();
    let mut any_cut = false;
    for r in plan.reports.drain(..) {
        let (report, cut) = r.finish(&mut budget);
        any_cut |= cut;
        reports.push(report);
    }
    let mut done = Committed {
        changes: Vec::new(),
        op_id: None,
        dry_run: opts.dry_run,
        next_commands: Vec::new(),
        tx: Some(id.to_string()),
        tx_op: None,
        concurrent_appends: None,
    };
    if plan.entry_changes.is_empty() {
        return Ok(done);
    }
    done.changes = reports;
    if opts.dry_run {
        if any_cut {
            done.next_commands.push(budget.rerun(ctx));
        }
        return Ok(done);
    }
    if any_cut {
        next_commands.push(shell::aitools(["tx", "diff", id]));
    }
    // Every staged file state's bytes become a blob (the tx's staged content).
    let mut contents: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for c in &plan.entry_changes {
        let Some(h) = c.after.hash.clone().filter(|_| c.after.kind == "file") else {
            continue;
        };
        if contents.contains_key(&h) || blobs::exists(&state, &h) {
            continue;
        }
        let abs = ctx.root.join(&c.path);
        let bytes = match plan.view.get(&abs) {
            Some(View::File {
                content: Some(content),
                ..
            }) => content.bytes().to_vec(),
            _ => view::load(ctx, &abs)?.bytes.clone(),
        };
        contents.insert(h, bytes);
    }
    let changes = std::mem::take(&mut plan.entry_changes);
    let n = t.stage(ctx, &ctx.command, &changes, &contents, looked)?;
    view::forget(ctx);
    ctx.session.snapshots.clear();
    done.tx_op = Some(n);
    done.next_commands = next_commands;
    Ok(done)
}

/// Applies a committed intent beneath the workspace `root`, journals it once, and
/// removes its record.
pub(crate) fn finish(root: &Path, state: &Path, intent: &Intent) -> std::io::Result<()> {
    finish_with(root, state, intent, |_| {})
}

/// `finish`, with `applied` completing the journal entry once the steps ran.
fn finish_with(
    root: &Path,
    state: &Path,
    intent: &Intent,
    applied: impl FnOnce(&mut Entry),
) -> std::io::Result<()> {
    intent::apply_all(root, intent)?;
    if !journal::last_is(state, &intent.op_id)? {
        let mut entry = intent.entry.clone();
        applied(&mut entry);
        journal::append(state, &entry)?;
    }
    for t in &intent.blob_tmps {
        let _ = std::fs::remove_file(t);
    }
    std::fs::remove_file(intent::record_path(state, &intent.op_id))
}

fn not_a_file(rel: &str) -> CmdError {
    CmdError::new(
        code::NOT_A_FILE,
        format!("{rel} is not a regular file."),
        Repair::new(
            "info",
            "Check what the path is.",
            shell::aitools(["info", rel]),
        ),
    )
}

fn in_the_way(rel: &str) -> CmdError {
    CmdError::new(
        code::EXISTS,
        format!(
            "{rel} exists and is not a directory, so nothing can be created there or below it."
        ),
        Repair::new(
            "info",
            "Check what the path is; pick another path or move the entry away first.",
            shell::aitools(["info", rel]),
        ),
    )
}

/// The error codes every write can answer (arguments, paths, the guard, the lock,
/// the commit), then the command's own, for command specs:
/// `error_codes: crate::write_error_codes![code::NO_MATCH]`.
#[macro_export]
macro_rules! write_error_codes {
    ($($extra:expr),* $(,)?) => {
        &[
            $crate::protocol::code::ARGUMENT_INVALID,
            $crate::protocol::code::NOT_FOUND,
            $crate::protocol::code::OUTSIDE_WORKSPACE,
            $crate::protocol::code::REDACTED_INPUT,
            $crate::protocol::code::EXISTS,
            $crate::protocol::code::NOT_A_FILE,
            $crate::protocol::code::BUSY,
            $crate::protocol::code::IO,
            $crate::protocol::code::INTERNAL,
            $crate::protocol::code::TARGET_CHANGED,
            $($extra),*
        ]
    };
}

/// The output fields every write shares, for command specs.
pub const FIELD_CHANGES: crate::protocol::registry::Field = crate::protocol::registry::field(
    "changes",
    "[{path,action?,from?,hash_after?,added?,deleted?,diff?}]; action is created, deleted, moved, mode-changed or linked (absent: modified); hash_after is the first 12 hex digits of the new SHA-256 (--expect-hash takes them; absent in a dry run); added/deleted count a text change's lines (absent when its whole diff is shown, which counts them); diff is its hunks without context or headers, within --max-diff-lines (default: whole hunks up to 16 lines and 190 bytes over the answer), and diff_truncated:true follows op_id when one was cut.",
);
pub const FIELD_OP_ID: crate::protocol::registry::Field = crate::protocol::registry::field(
    "op_id",
    "The journal op (undo with `aitools undo <op_id>`); null when nothing changed; absent in a dry run.",
);
pub const FIELD_DRY_RUN: crate::protocol::registry::Field =
    crate::protocol::registry::field("dry_run", "With --dry-run: true; nothing was written.");
pub const FIELD_NEXT: crate::protocol::registry::Field = crate::protocol::registry::field(
    "next_commands",
    "`aitools diff --op <op_id>` (the full diff with context) when a diff was cut; with --dry-run, the same call with a --max-diff-lines that shows it all.",
);

/// The output fields of a write with nothing of its own to add.
pub const WRITE_FIELDS: &[crate::protocol::registry::Field] =
    &[FIELD_CHANGES, FIELD_OP_ID, FIELD_DRY_RUN, FIELD_NEXT];

/// The current hash `--expect-hash` compares: the regular file the path leads to
/// (symlinks followed), else a symlink's target text; `None` when nothing is there.
pub fn current_hash(snapshots: &snapshot::Cache, path: &Path) -> std::io::Result<Option<String>> {
    match std::fs::metadata(path) {
        // Keyed by the real path, as the plan looks it up: the write reuses this read.
        Ok(m) if m.is_file() => {
            return Ok(Some(snapshots.load(&paths::real_path(path))?.hash.clone()));
        }
        Ok(_) => return Ok(None),
        Err(_) => {}
    }
    match std::fs::read_link(path) {
        Ok(t) => Ok(Some(sha256_hex(t.as_os_str().as_encoded_bytes()))),
        Err(_) => Ok(None),
    }
}
