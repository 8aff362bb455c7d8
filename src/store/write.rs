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
    snapshot::forget_first();
    let changes = build()?;
    let seq = journal::next_seq(&state).map_err(|e| super::io_error(ctx, "the journal", &e))?;
    let op_id = match op_id {
        Some(id) => id.to_string(),
        None => journal::new_op_id(&state, seq),
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
    super::gc::after_write(&state, added);
    // A last look once the write is done (in the answer only: the journal line is written).
    appended.extend(watch.settle(&state, &op_id));
    snapshot::clear();
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
    view::forget();
    let mut t = tx::open(ctx, id)?;
    view::track();
    let planned = (|| -> Result<Plan, CmdError> {
        let changes = build()?;
        let mut plan = Plan::new(ctx, &state, id);
        for c in changes {
            plan.add(c)?;
        }
        Ok(plan)
    })();
    let looked = view::tracked();
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
    view::forget();
    snapshot::clear();
    done.tx_op = Some(n);
    done.next_commands = next_commands;
    Ok(done)
}

/// Where a file's bytes are, while planning.
#[derive(Clone)]
enum Content {
    Snap(Arc<Snapshot>),
    Owned(Arc<Vec<u8>>),
}

impl Content {
    fn bytes(&self) -> &[u8] {
        match self {
            Content::Snap(s) => &s.bytes,
            Content::Owned(b) => b,
        }
    }
}

/// A path's state in the view the plan builds (the disk with this op's changes so far).
#[derive(Clone)]
enum View {
    Missing,
    File {
        hash: String,
        mode: u32,
        mtime: Option<i64>,
        content: Option<Content>,
    },
    Dir {
        mode: u32,
    },
    Symlink {
        target: String,
    },
}

impl View {
    fn state(&self) -> State {
        match self {
            View::Missing => State::missing(),
            // The mtime is part of a state only where `touch` sets it.
            View::File { hash, mode, .. } => State {
                kind: "file".into(),
                hash: Some(hash.clone()),
                mode: Some(*mode),
                target: None,
                mtime: None,
            },
            View::Dir { mode } => State {
                kind: "dir".into(),
                mode: Some(*mode),
                ..State::default()
            },
            View::Symlink { target } => State {
                kind: "symlink".into(),
                hash: Some(sha256_hex(target.as_bytes())),
                target: Some(target.clone()),
                ..State::default()
            },
        }
    }
    fn hash(&self) -> Option<String> {
        self.state().hash
    }
}

enum TempKind {
    File {
        content: Content,
        mode: u32,
        mtime: Option<i64>,
    },
    Symlink {
        target: String,
    },
}

struct Temp {
    path: PathBuf,
    kind: TempKind,
}

struct BlobJob {
    hash: String,
    /// The tree file holding the bytes, when they are on disk (may be hard-linked).
    disk: Option<PathBuf>,
    content: Option<Content>,
    tmp: PathBuf,
}

/// A report whose diff is computed once the plan is done.
struct PendingReport {
    report: ChangeReport,
    diff_of: Option<(Option<Content>, Option<Content>)>,
}

impl PendingReport {
    fn finish(mut self, budget: &mut DiffBudget) -> (ChangeReport, bool) {
        let mut cut = false;
        if let Some((before, after)) = self.diff_of.take() {
            let empty: &[u8] = b"";
            let old = before.as_ref().map(|c| c.bytes()).unwrap_or(empty);
            let new = after.as_ref().map(|c| c.bytes()).unwrap_or(empty);
            let binary = crate::text::sniff::is_binary(old) || crate::text::sniff::is_binary(new);
            if !binary {
                let opts = DiffOptions {
                    context: 0,
                    ..DiffOptions::default()
                };
                let d = diff::unified(old, new, "a", "b", &opts);
                self.report.added = Some(d.added);
                self.report.deleted = Some(d.deleted);
                // The path is the change's own field; the headers would repeat it.
                let hunks = d.text.find("\n@@").map_or("", |i| &d.text[i + 1..]);
                if !hunks.is_empty() {
                    let (text, was_cut) = budget.take(hunks);
                    cut = was_cut;
                    if !text.is_empty() {
                        self.report.diff = Some(text);
                    }
                    if was_cut {
                        self.report.diff_truncated = Some(true);
                    }
                }
            }
        }
        (self.report, cut)
    }
}

/// What is left of the diff an answer may show, spent change by change in order.
struct DiffBudget {
    lines: usize,
    bytes: usize,
    /// The default budget shows whole hunks only; `--max-diff-lines N` cuts at a line.
    whole_hunks: bool,
    /// `--max-diff-lines 0`: no diff was asked for, so nothing is reported cut.
    none: bool,
    /// Diff lines of every change, shown or not.
    needed: usize,
}

impl DiffBudget {
    fn of(ctx: &Ctx, more: &MoreOptions) -> DiffBudget {
        match ctx.max_diff_lines.or(more.max_diff_lines) {
            Some(n) => DiffBudget {
                lines: n,
                bytes: MAX_DIFF_BYTES,
                whole_hunks: false,
                none: n == 0,
                needed: 0,
            },
            None => DiffBudget {
                lines: DEFAULT_DIFF_LINES,
                bytes: DEFAULT_DIFF_BYTES,
                whole_hunks: true,
                none: false,
                needed: 0,
            },
        }
    }

    /// A dry run has no op to show the rest: the same call with a budget that
    /// holds every line.
    fn rerun(&self, ctx: &Ctx) -> String {
        let add = ["--max-diff-lines".to_string(), self.needed.to_string()];
        shell::aitools(shell::rerun(&ctx.argv, &["--max-diff-lines"], &[], &add))
    }

    /// The part of `hunks` that fits, and whether any was left out.
    fn take(&mut self, hunks: &str) -> (String, bool) {
        self.needed += hunks.lines().count();
        if self.none {
            return (String::new(), false);
        }
        let mut out = String::new();
        let mut hunk = String::new();
        let (mut hunk_lines, mut hunk_bytes) = (0usize, 0usize);
        let mut lines = hunks.split_inclusive('\n').peekable();
        while let Some(line) = lines.next() {
            let cost = escaped_len(line);
            if !self.whole_hunks {
                // A hunk header is worth nothing without a line after it.
                let need = if line.starts_with("@@") { 2 } else { 1 };
                // The bytes too: the answer is built after the commit point, where
                // an envelope over its cap would misreport a done write.
                if self.lines < need || cost > self.bytes {
                    return (out, true);
                }
                self.lines -= 1;
                self.bytes -= cost;
                out.push_str(line);
                continue;
            }
            hunk.push_str(line);
            hunk_lines += 1;
            hunk_bytes += cost;
            if lines.peek().is_none_or(|l| l.starts_with("@@")) {
                if hunk_lines > self.lines || hunk_bytes > self.bytes {
                    return (out, true);
                }
                self.lines -= hunk_lines;
                self.bytes -= hunk_bytes;
                out.push_str(&hunk);
                hunk.clear();
                hunk_lines = 0;
                hunk_bytes = 0;
            }
        }
        (out, false)
    }
}

/// The bytes `s` takes inside a JSON string.
fn escaped_len(s: &str) -> usize {
    s.bytes()
        .map(|b| match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0..=0x1f => 6,
            _ => 1,
        })
        .sum()
}

struct Plan<'a> {
    ctx: &'a Ctx,
    state: &'a Path,
    op_id: &'a str,
    view: BTreeMap<PathBuf, View>,
    steps: Vec<Step>,
    temps: Vec<Temp>,
    blobs: Vec<BlobJob>,
    blob_hashes: BTreeSet<String>,
    sync_dirs: BTreeSet<PathBuf>,
    reports: Vec<PendingReport>,
    entry_changes: Vec<EntryChange>,
    /// Files this op replaces, as read (checked again before the commit point).
    watch: Vec<super::appends::Target>,
    default_file_mode: u32,
    default_dir_mode: u32,
}

fn parent_of(p: &Path) -> PathBuf {
    p.parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("/"))
}

impl<'a> Plan<'a> {
    fn new(ctx: &'a Ctx, state: &'a Path, op_id: &'a str) -> Plan<'a> {
        let umask = fsx::umask();
        Plan {
            ctx,
            state,
            op_id,
            view: BTreeMap::new(),
            steps: Vec::new(),
            temps: Vec::new(),
            blobs: Vec::new(),
            blob_hashes: BTreeSet::new(),
            sync_dirs: BTreeSet::new(),
            reports: Vec::new(),
            entry_changes: Vec::new(),
            watch: Vec::new(),
            default_file_mode: 0o666 & !umask,
            default_dir_mode: 0o777 & !umask,
        }
    }

    fn rel(&self, p: &Path) -> String {
        paths::relative_to(p, &self.ctx.root).unwrap_or_else(|| paths::display(p))
    }

    fn io(&self, p: &Path, e: &std::io::Error) -> CmdError {
        crate::protocol::error::io_error(&self.ctx.command, &self.rel(p), e)
    }

    /// The view of `p` (no final symlink followed); files are read when `content`.
    fn look(&mut self, p: &Path, content: bool) -> Result<View, CmdError> {
        if let Some(v) = self.view.get(p) {
            let needs = matches!(v, View::File { content: None, .. });
            if !(content && needs) {
                return Ok(v.clone());
            }
        } else if self.under_removed(p) {
            return Ok(View::Missing);
        }
        if self.ctx.tx.is_some() {
            let v = self.look_tx(p, content)?;
            self.view.insert(p.to_path_buf(), v.clone());
            return Ok(v);
        }
        let meta = match std::fs::symlink_metadata(p) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(View::Missing),
            Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => return Ok(View::Missing),
            Err(e) => return Err(self.io(p, &e)),
        };
        let ft = meta.file_type();
        let v = if ft.is_symlink() {
            let t = std::fs::read_link(p).map_err(|e| self.io(p, &e))?;
            View::Symlink {
                target: t.to_string_lossy().into_owned(),
            }
        } else if ft.is_dir() {
            View::Dir {
                mode: meta.mode() & 0o7777,
            }
        } else if ft.is_file() {
            let snap = snapshot::load(p).map_err(|e| self.io(p, &e))?;
            View::File {
                hash: snap.hash.clone(),
                mode: snap.mode,
                mtime: Some(snap.mtime),
                content: Some(Content::Snap(snap)),
            }
        } else {
            return Err(not_a_file(&self.rel(p)));
        };
        self.view.insert(p.to_path_buf(), v.clone());
        Ok(v)
    }

    /// `look` under `--tx`: the tx's view of `p` (staged state, else the disk).
    fn look_tx(&mut self, p: &Path, content: bool) -> Result<View, CmdError> {
        let st = view::stat(self.ctx, p, false)?;
        Ok(match st.kind {
            view::Kind::Missing => View::Missing,
            view::Kind::Dir => View::Dir { mode: st.mode },
            view::Kind::Symlink => View::Symlink {
                target: match st.staged.and_then(|s| s.target) {
                    Some(t) => t,
                    None => std::fs::read_link(p)
                        .map_err(|e| self.io(p, &e))?
                        .to_string_lossy()
                        .into_owned(),
                },
            },
            view::Kind::File => {
                let _ = content;
                let snap = view::load(self.ctx, p)?;
                let from_tx = st.staged.is_some();
                View::File {
                    hash: snap.hash.clone(),
                    mode: snap.mode,
                    mtime: if from_tx {
                        st.staged.as_ref().and_then(|s| s.mtime)
                    } else {
                        Some(snap.mtime)
                    },
                    content: Some(if from_tx {
                        Content::Owned(Arc::new(snap.bytes.clone()))
                    } else {
                        Content::Snap(snap)
                    }),
                }
            }
            view::Kind::Other => return Err(not_a_file(&self.rel(p))),
        })
    }

    /// Whether an ancestor of `p` was removed or moved away earlier in this op.
    fn under_removed(&self, p: &Path) -> bool {
        p.ancestors()
            .skip(1)
            .any(|a| matches!(self.view.get(a), Some(View::Missing)))
    }

    fn exists_on_disk(&self, p: &Path) -> bool {
        fsx::exists_nofollow(p)
    }

    /// Where a temp file for `target` goes: its directory, or the nearest ancestor
    /// that exists on disk now (same filesystem, so the rename is atomic).
    fn temp_path(&mut self, target: &Path) -> PathBuf {
        let mut dir = parent_of(target);
        while !std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
            match dir.parent() {
                Some(p) => dir = p.to_path_buf(),
                None => break,
            }
        }
        let n = self.temps.len();
        let p = dir.join(format!(".aitools-{}-{n}.tmp", self.op_id));
        self.sync_dirs.insert(dir);
        p
    }

    /// Creates the missing directories above `target` (each one a journaled change).
    fn ensure_parents(&mut self, target: &Path) -> Result<(), CmdError> {
        let mut missing = Vec::new();
        let mut cur = parent_of(target);
        loop {
            match self.look(&cur, false)? {
                View::Dir { .. } => break,
                View::Missing => {
                    missing.push(cur.clone());
                    match cur.parent() {
                        Some(p) => cur = p.to_path_buf(),
                        None => break,
                    }
                }
                View::Symlink { .. } => {
                    // An existing symlink to a directory was resolved by the boundary;
                    // a dangling one (or one to a file) blocks the path.
                    if std::fs::metadata(&cur).is_ok_and(|m| m.is_dir()) {
                        break;
                    }
                    return Err(in_the_way(&self.rel(&cur)));
                }
                View::File { .. } => return Err(in_the_way(&self.rel(&cur))),
            }
        }
        for d in missing.into_iter().rev() {
            self.mkdir_one(&d);
        }
        Ok(())
    }

    fn mkdir_one(&mut self, d: &Path) {
        let mode = self.default_dir_mode;
        self.steps.push(Step::Mkdir {
            path: d.to_path_buf(),
            mode: None,
        });
        self.sync_dirs.insert(parent_of(d));
        self.sync_dirs.insert(d.to_path_buf());
        self.view.insert(d.to_path_buf(), View::Dir { mode });
        let rel = self.rel(d);
        self.record(
            &rel,
            "created",
            None,
            None,
            View::Missing.state(),
            View::Dir { mode }.state(),
            None,
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn record(
        &mut self,
        rel: &str,
        action: &'static str,
        from: Option<(String, State)>,
        hashes: Option<(Option<String>, Option<String>)>,
        before: State,
        after: State,
        diff_of: Option<(Option<Content>, Option<Content>)>,
    ) {
        let ha = hashes.map_or_else(|| after.hash.clone(), |(_, a)| a);
        self.reports.push(PendingReport {
            report: ChangeReport {
                path: rel.to_string(),
                action,
                from: from.as_ref().map(|(f, _)| f.clone()),
                hash_after: ha,
                added: None,
                deleted: None,
                diff: None,
                diff_truncated: None,
                count: None,
            },
            diff_of,
        });
        self.entry_changes.push(EntryChange {
            path: rel.to_string(),
            action: action.to_string(),
            from_before: from.as_ref().map(|(_, s)| s.clone()),
            from: from.map(|(f, _)| f),
            before,
            after,
        });
    }

    /// Keeps the before-content of a file this op replaces or removes.
    fn keep_blob(&mut self, p: &Path, v: &View) {
        let View::File { hash, content, .. } = v else {
            return;
        };
        if self.blob_hashes.contains(hash) || blobs::exists(self.state, hash) {
            return;
        }
        self.blob_hashes.insert(hash.clone());
        let on_disk = matches!(content, Some(Content::Snap(_)));
        let n = self.blobs.len();
        self.blobs.push(BlobJob {
            hash: hash.clone(),
            disk: on_disk.then(|| p.to_path_buf()),
            content: content.clone(),
            tmp: blobs::dir(self.state).join(format!(".{}-{n}.tmp", self.op_id)),
        });
    }

    fn add(&mut self, c: Change) -> Result<(), CmdError> {
        match c {
            Change::Put { path, bytes, mode } => self.put(&path, bytes, mode),
            Change::Delete { path } => self.delete(&path),
            Change::Move { from, to } => self.mv(&from, &to),
            Change::Mkdir { path } => self.mkdir(&path),
            Change::Chmod { path, mode } => self.chmod(&path, mode),
            Change::Symlink { path, target } => self.symlink(&path, target),
            Change::Touch { path, mtime } => self.touch(&path, mtime),
        }
    }

    fn put(&mut self, path: &Path, bytes: Vec<u8>, mode: Option<u32>) -> Result<(), CmdError> {
        let target = boundary::resolve(self.ctx, path, Final::Follow)?;
        let before = self.look(&target, true)?;
        let rel = self.rel(&target);
        let hash = match &before {
            View::File {
                content: Some(Content::Snap(snap)),
                ..
            } => snap.hash_of_successor(&bytes),
            _ => sha256_hex(&bytes),
        };
        let (old_mode, old_content) = match &before {
            View::Dir { .. } => return Err(not_a_file(&rel)),
            View::File {
                hash: h,
                mode: m,
                content,
                ..
            } => {
                if *h == hash && mode.is_none_or(|x| x == *m) {
                    return Ok(());
                }
                (Some(*m), content.clone())
            }
            _ => (None, None),
        };
        let new_mode = mode.or(old_mode).unwrap_or(self.default_file_mode) & 0o7777;
        self.ensure_parents(&target)?;
        let content = Content::Owned(Arc::new(bytes));
        let tmp = self.temp_path(&target);
        self.temps.push(Temp {
            path: tmp.clone(),
            kind: TempKind::File {
                content: content.clone(),
                mode: new_mode,
                mtime: None,
            },
        });
        self.steps.push(Step::Rename {
            tmp,
            to: target.clone(),
        });
        self.sync_dirs.insert(parent_of(&target));
        self.keep_blob(&target, &before);
        if let View::File {
            content: Some(Content::Snap(snap)),
            ..
        } = &before
            && fsx::identity(&target) == Some((snap.stamp.dev, snap.stamp.ino))
        {
            // Read at this path (not content an earlier step of the op moved here).
            let read = snapshot::first_read(&target).unwrap_or_else(|| snap.clone());
            self.watch.push((target.clone(), rel.clone(), read));
        }
        let after = View::File {
            hash,
            mode: new_mode,
            mtime: None,
            content: Some(content.clone()),
        };
        let action = if matches!(before, View::Missing) {
            "created"
        } else {
            "modified"
        };
        let diff_of = Some((old_content, Some(content)));
        let (bs, as_) = (before.state(), after.state());
        self.record(&rel, action, None, None, bs, as_, diff_of);
        self.view.insert(target, after);
        Ok(())
    }

    fn identity(&self, p: &Path) -> Result<(u64, u64), CmdError> {
        if self.ctx.tx.is_some() {
            // Staged, never applied: no step needs the entry's identity.
            return Ok((0, 0));
        }
        fsx::identity(p).ok_or_else(|| {
            CmdError::new(
                code::ARGUMENT_INVALID,
                format!(
                    "{} is created by this same operation and cannot also be removed or moved by it.",
                    self.rel(p)
                ),
                crate::protocol::error::schema_repair(&self.ctx.command),
            )
        })
    }

    /// Refuses a mode or time change of an on-disk regular file with another hard
    /// link: the inode's metadata is shared by every name, and another name may be
    /// outside the workspace. The store checks again when it acts.
    fn refuse_hard_link(&self, target: &Path, rel: &str, before: &View) -> Result<(), CmdError> {
        let View::File {
            hash,
            content: Some(Content::Snap(_)),
            ..
        } = before
        else {
            return Ok(());
        };
        let nlink = match std::fs::symlink_metadata(target) {
            Ok(m) if m.is_file() => m.nlink(),
            _ => return Ok(()),
        };
        if nlink <= 1 {
            return Ok(());
        }
        let copy = format!("{rel}.unlinked");
        Err(CmdError::new(
            code::HARD_LINK,
            format!(
                "{rel} is a file with {nlink} hard links; changing its mode or time would change it under every name, and another name may be outside the workspace."
            ),
            Repair::new(
                "copy",
                "Step 1 of 2 to give this name a file of its own: copy its bytes and mode to a new file.",
                shell::aitools(["copy", rel, &copy]),
            ),
        )
        .with_repair(Repair::new(
            "replace",
            "Step 2 of 2: move the copy over this name (the other names keep the old file).",
            shell::aitools([
                "move",
                &copy,
                rel,
                "--overwrite",
                "--expect-hash",
                &format!("{rel}={hash}"),
            ]),
        ))
        .with_repair(Repair::new(
            "retry",
            "Then run the command again.",
            shell::aitools(&self.ctx.argv),
        )))
    }

    /// A step's source is gone: the same `input.not-found` (with candidates) the
    /// commands give before they reach the store.
    fn not_found(&self, shown: &str, abs: &Path) -> CmdError {
        use crate::workspace::candidates::{self, Offer};
        candidates::not_found(self.ctx, shown, abs, Offer::Look)
    }

    fn delete(&mut self, path: &Path) -> Result<(), CmdError> {
        let target = boundary::resolve(self.ctx, path, Final::Entry)?;
        let before = self.look(&target, true)?;
        let rel = self.rel(&target);
        let (dev, ino) = match &before {
            View::Missing => {
                return Err(self.not_found(&rel, &target));
            }
            _ => self.identity(&target)?,
        };
        match &before {
            View::Dir { .. } => {
                if !self.dir_is_empty(&target)? {
                    return Err(CmdError::new(
                        code::NOT_A_FILE,
                        format!(
                            "{rel} is a directory that is not empty; delete removes only files, symlinks and empty directories."
                        ),
                        Repair::new(
                            "list",
                            "See what the directory holds; delete its entries first.",
                            shell::aitools(["find", "*", &rel]),
                        ),
                    ));
                }
                self.steps.push(Step::Rmdir {
                    path: target.clone(),
                    dev,
                    ino,
                });
            }
            _ => {
                self.keep_blob(&target, &before);
                self.steps.push(Step::Unlink {
                    path: target.clone(),
                    dev,
                    ino,
                });
            }
        }
        self.sync_dirs.insert(parent_of(&target));
        let bs = before.state();
        self.record(&rel, "deleted", None, None, bs, State::missing(), None);
        self.view.insert(target, View::Missing);
        Ok(())
    }

    /// Empty in the view: every entry on disk is gone in the view, and the view adds none.
    fn dir_is_empty(&mut self, dir: &Path) -> Result<bool, CmdError> {
        if self.ctx.tx.is_some() {
            for (p, _) in view::list_dir(self.ctx, dir)? {
                if !matches!(self.view.get(&p), Some(View::Missing)) {
                    return Ok(false);
                }
            }
            let added = self
                .view
                .iter()
                .any(|(p, v)| p.parent() == Some(dir) && !matches!(v, View::Missing));
            return Ok(!added);
        }
        let rd = std::fs::read_dir(dir).map_err(|e| self.io(dir, &e))?;
        for e in rd {
            let e = e.map_err(|e| self.io(dir, &e))?;
            if !matches!(self.view.get(&e.path()), Some(View::Missing)) {
                return Ok(false);
            }
        }
        let added = self.view.iter().any(|(p, v)| {
            p.parent() == Some(dir) && !matches!(v, View::Missing) && !self.exists_on_disk(p)
        });
        Ok(!added)
    }

    fn mv(&mut self, from: &Path, to: &Path) -> Result<(), CmdError> {
        let src = boundary::resolve(self.ctx, from, Final::Entry)?;
        let dst = boundary::resolve(self.ctx, to, Final::Entry)?;
        let srel = self.rel(&src);
        let drel = self.rel(&dst);
        if src == dst {
            return Ok(());
        }
        if dst.starts_with(&src) {
            return Err(CmdError::invalid_argument(
                &self.ctx.command,
                format!("{drel} is inside {srel}; a directory cannot move into itself."),
            ));
        }
        let moving = self.look(&src, true)?;
        if matches!(moving, View::Missing) {
            return Err(self.not_found(&srel, &src));
        }
        let (dev, ino) = self.identity(&src)?;
        let before = self.look(&dst, true)?;
        if let (Some(_), View::Dir { mode }, View::Missing) = (&self.ctx.tx, &moving, &before) {
            return self.mv_tree_tx(&src, &dst, *mode);
        }
        if let View::Dir { .. } = before {
            return Err(CmdError::new(
                code::EXISTS,
                format!("{drel} is an existing directory; move never merges into one."),
                Repair::new(
                    "rename",
                    "Name the destination path in full, including the new name.",
                    shell::aitools([
                        "move",
                        &srel,
                        &format!(
                            "{drel}/{}",
                            src.file_name()
                                .map(|n| n.to_string_lossy().into_owned())
                                .unwrap_or_default()
                        ),
                    ]),
                ),
            ));
        }
        self.ensure_parents(&dst)?;
        self.keep_blob(&dst, &before);
        self.steps.push(Step::Move {
            from: src.clone(),
            to: dst.clone(),
            dev,
            ino,
        });
        self.sync_dirs.insert(parent_of(&src));
        self.sync_dirs.insert(parent_of(&dst));
        let h = moving.hash();
        let ms = moving.state();
        let after = match &moving {
            View::File {
                hash,
                mode,
                content,
                ..
            } => View::File {
                hash: hash.clone(),
                mode: *mode,
                mtime: None,
                content: content.clone(),
            },
            other => other.clone(),
        };
        let bs = before.state();
        self.record(
            &drel,
            "moved",
            Some((srel, ms.clone())),
            Some((h.clone(), h)),
            bs,
            after.state(),
            None,
        );
        self.view.insert(src, View::Missing);
        self.view.insert(dst, after);
        Ok(())
    }

    /// A directory move staged in a tx: the tx keys states by path, so the tree
    /// is recreated at `dst` entry by entry and removed at `src`.
    fn mv_tree_tx(&mut self, src: &Path, dst: &Path, mode: u32) -> Result<(), CmdError> {
        self.ensure_parents(dst)?;
        self.mkdir_one(dst);
        if mode != self.default_dir_mode {
            self.chmod(dst, mode)?;
        }
        for (child, _) in view::list_dir(self.ctx, src)? {
            if matches!(self.view.get(&child), Some(View::Missing)) {
                continue;
            }
            if let Some(name) = child.file_name() {
                self.mv(&child, &dst.join(name))?;
            }
        }
        self.delete(src)
    }

    fn mkdir(&mut self, path: &Path) -> Result<(), CmdError> {
        let target = boundary::resolve(self.ctx, path, Final::Follow)?;
        match self.look(&target, false)? {
            View::Dir { .. } => Ok(()),
            View::Missing => {
                self.ensure_parents(&target)?;
                self.mkdir_one(&target);
                Ok(())
            }
            _ => Err(in_the_way(&self.rel(&target))),
        }
    }

    fn chmod(&mut self, path: &Path, mode: u32) -> Result<(), CmdError> {
        let target = boundary::resolve(self.ctx, path, Final::Follow)?;
        let before = self.look(&target, false)?;
        let rel = self.rel(&target);
        let mode = mode & 0o7777;
        let after = match &before {
            View::Missing => {
                return Err(self.not_found(&rel, &target));
            }
            View::File { mode: m, .. } | View::Dir { mode: m } if *m == mode => return Ok(()),
            View::File {
                hash,
                mtime,
                content,
                ..
            } => View::File {
                hash: hash.clone(),
                mode,
                mtime: *mtime,
                content: content.clone(),
            },
            View::Dir { .. } => View::Dir { mode },
            View::Symlink { .. } => return Err(not_a_file(&rel)),
        };
        self.refuse_hard_link(&target, &rel, &before)?;
        self.steps.push(Step::Chmod {
            path: target.clone(),
            mode,
        });
        self.sync_dirs.insert(parent_of(&target));
        let (bs, as_) = (before.state(), after.state());
        self.record(&rel, "mode-changed", None, None, bs, as_, None);
        self.view.insert(target, after);
        Ok(())
    }

    fn symlink(&mut self, path: &Path, text: String) -> Result<(), CmdError> {
        let target = boundary::resolve(self.ctx, path, Final::Entry)?;
        let before = self.look(&target, false)?;
        let rel = self.rel(&target);
        match &before {
            View::Symlink { target: t } if *t == text => return Ok(()),
            View::Missing | View::Symlink { .. } => {}
            _ => {
                return Err(CmdError::new(
                    code::EXISTS,
                    format!(
                        "{rel} exists and is not a symlink; link never replaces a file or directory."
                    ),
                    Repair::new(
                        "delete",
                        "Pick another link path, or delete the entry first.",
                        shell::aitools(["info", &rel]),
                    ),
                ));
            }
        }
        self.ensure_parents(&target)?;
        let tmp = self.temp_path(&target);
        self.temps.push(Temp {
            path: tmp.clone(),
            kind: TempKind::Symlink {
                target: text.clone(),
            },
        });
        self.steps.push(Step::Rename {
            tmp,
            to: target.clone(),
        });
        self.sync_dirs.insert(parent_of(&target));
        let after = View::Symlink { target: text };
        let (bs, as_) = (before.state(), after.state());
        self.record(&rel, "linked", None, None, bs, as_, None);
        self.view.insert(target, after);
        Ok(())
    }

    fn touch(&mut self, path: &Path, mtime: i64) -> Result<(), CmdError> {
        let target = boundary::resolve(self.ctx, path, Final::Follow)?;
        let before = self.look(&target, false)?;
        let rel = self.rel(&target);
        match before.clone() {
            View::Missing => {
                self.ensure_parents(&target)?;
                let content = Content::Owned(Arc::new(Vec::new()));
                let mode = self.default_file_mode;
                let tmp = self.temp_path(&target);
                self.temps.push(Temp {
                    path: tmp.clone(),
                    kind: TempKind::File {
                        content: content.clone(),
                        mode,
                        mtime: Some(mtime),
                    },
                });
                self.steps.push(Step::Rename {
                    tmp,
                    to: target.clone(),
                });
                self.sync_dirs.insert(parent_of(&target));
                let after = View::File {
                    hash: sha256_hex(b""),
                    mode,
                    mtime: Some(mtime),
                    content: Some(content),
                };
                let mut st = after.state();
                st.mtime = Some(mtime);
                self.record(&rel, "created", None, None, State::missing(), st, None);
                self.view.insert(target, after);
            }
            View::File {
                hash,
                mode,
                mtime: old,
                content,
            } => {
                if old == Some(mtime) {
                    return Ok(());
                }
                self.refuse_hard_link(&target, &rel, &before)?;
                self.steps.push(Step::Utime {
                    path: target.clone(),
                    mtime,
                });
                let after = View::File {
                    hash,
                    mode,
                    mtime: Some(mtime),
                    content,
                };
                let (mut bs, mut as_) = (before.state(), after.state());
                bs.mtime = old;
                as_.mtime = Some(mtime);
                self.record(&rel, "modified", None, None, bs, as_, None);
                self.view.insert(target, after);
            }
            _ => return Err(not_a_file(&rel)),
        }
        Ok(())
    }

    /// Bytes of the blobs this op stores (the usage counter of `gc`).
    fn blob_bytes(&self) -> u64 {
        self.blobs
            .iter()
            .map(|b| b.content.as_ref().map_or(0, |c| c.bytes().len() as u64))
            .sum()
    }

    /// The commit: intent, blobs, temps, commit point, apply, journal. Returns
    /// what other programs appended to replaced files meanwhile, and the watch
    /// on them for a last look.
    fn commit(
        mut self,
        entry: Entry,
    ) -> Result<(Vec<journal::Appended>, super::appends::Watch), CmdError> {
        let ctx = self.ctx;
        let state = self.state;
        let intent = Intent {
            op_id: self.op_id.to_string(),
            temps: self.temps.iter().map(|t| t.path.clone()).collect(),
            blob_tmps: self.blobs.iter().map(|b| b.tmp.clone()).collect(),
            links: self
                .blobs
                .iter()
                .filter(|b| b.disk.is_some())
                .map(|b| blobs::path(state, &b.hash))
                .collect(),
            steps: std::mem::take(&mut self.steps),
            sync_dirs: std::mem::take(&mut self.sync_dirs).into_iter().collect(),
            entry,
        };
        let mut record = intent::write_first_line(state, &intent).map_err(|e| {
            let _ = std::fs::remove_file(intent::record_path(state, &intent.op_id));
            super::io_error(ctx, "the intent record", &e)
        })?;
        let prepared = (|| -> std::io::Result<()> {
            // Temp files are created beneath the root's descriptor, as the steps act.
            let tree = Tree::open(&ctx.root)?;
            let mut new_blobs = false;
            for b in &self.blobs {
                let bytes = b.content.as_ref().map(|c| c.bytes());
                let stored = match &b.disk {
                    Some(src) => blobs::store_file(state, &b.hash, src, bytes, &b.tmp)?,
                    None => blobs::store_bytes(state, &b.hash, bytes.unwrap_or_default(), &b.tmp)?,
                };
                new_blobs |= stored != blobs::Stored::Existing;
            }
            if new_blobs {
                fsx::sync_dir(&blobs::dir(state))?;
            }
            for t in &self.temps {
                match &t.kind {
                    TempKind::File {
                        content,
                        mode,
                        mtime,
                    } => {
                        use std::io::Write;
                        let mut f = tree.create_new(&t.path, *mode)?;
                        f.write_all(content.bytes())?;
                        if let Some(m) = mtime {
                            f.set_modified(fsx::to_system_time(*m))?;
                        }
                        f.sync_all()?;
                    }
                    TempKind::Symlink { target } => {
                        tree.symlink(std::ffi::OsStr::new(target), &t.path)?;
                    }
                }
            }
            Ok(())
        })();
        let unchanged =
            |e: std::io::Error| super::io_error(ctx, "the write (nothing was changed)", &e);
        // The targets are checked again as late as possible before the commit point.
        let armed = prepared.map_err(unchanged).and_then(|()| {
            let watch = super::appends::arm(&self.watch, &ctx.argv)?;
            intent::write_commit_line(&mut record, &intent).map_err(unchanged)?;
            Ok(watch)
        });
        let mut watch = match armed {
            Ok(w) => w,
            Err(err) => {
                // Never committed: the tree was not touched. Remove what was prepared.
                if intent::discard(&ctx.root, &intent).is_ok() {
                    let _ = std::fs::remove_file(intent::record_path(state, &intent.op_id));
                }
                return Err(err);
            }
        };
        drop(record);
        let mut appended = Vec::new();
        // Committed but not applied: the record stays pending, and the repairs are
        // the ones that clear it (finish once the cause is fixed, or set aside).
        finish_with(&ctx.root, state, &intent, |entry| {
            appended = watch.settle(state, &entry.op_id);
            entry.appends = appended.clone();
        })
        .map_err(|e| {
            super::recovery::pending_error(&[super::recovery::stuck(
                &intent.op_id,
                format!(
                    "it is committed but could not be finished: {}.",
                    crate::protocol::error::err_text(&e)
                ),
            )])
        })?;
        Ok((appended, watch))
    }
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
    "[{path,action?,from?,hash_after?,added?,deleted?,diff?}]; action is created, deleted, moved, mode-changed or linked (absent: modified); hash_after is the first 16 hex digits of the new SHA-256 (--expect-hash takes them; absent in a dry run); added/deleted count a text change's lines; diff is its hunks without context or headers, within --max-diff-lines (default: whole hunks up to 16 lines and 190 bytes over the answer), and diff_truncated:true follows op_id when one was cut.",
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
    &[FIELD_CHANGES, FIELD_OP_ID, FIELD_DRY_RUN];

/// The current hash `--expect-hash` compares: the regular file the path leads to
/// (symlinks followed), else a symlink's target text; `None` when nothing is there.
pub fn current_hash(path: &Path) -> std::io::Result<Option<String>> {
    match std::fs::metadata(path) {
        // Keyed by the real path, as the plan looks it up: the write reuses this read.
        Ok(m) if m.is_file() => {
            return Ok(Some(snapshot::load(&paths::real_path(path))?.hash.clone()));
        }
        Ok(_) => return Ok(None),
        Err(_) => {}
    }
    match std::fs::read_link(path) {
        Ok(t) => Ok(Some(sha256_hex(t.as_os_str().as_encoded_bytes()))),
        Err(_) => Ok(None),
    }
}
