//! The write protocol. A command computes the changes it wants while the workspace
//! lock is held (validation under the lock) and hands them here; the store plans
//! them against a view of the tree (boundary, before-states, no-ops dropped),
//! then commits them all or none:
//!
//! lock → plan → intent line 1 (fsync file + `commit/`) → blobs (before-images as
//! links of the replaced inodes under temp names, else copies or a pack; fsync,
//! `blobs/`) → temp files beside their targets (fsync) → the replaced files
//! re-checked (`appends::arm`) → checksum line (fsync: the commit point) → apply
//! the steps → fsync the directories → the links named blobs (fsync `blobs/`) →
//! tails appended meanwhile kept (`appends`) → journal
//! line (fdatasync) → remove the record → `gc` when the blobs are over budget. Recovery (`recovery.rs`) finishes or discards a record a
//! killed process left.

use super::beneath::Tree;
use super::blobs;
use super::error::StoreError;
use super::intent::{self, Intent, Step};
use super::journal::{self, Entry, EntryChange, State};
use super::snapshot::Snapshot;
use super::stream::{self, Scan};
use super::{fsx, lock, pack, state_dir, tx, view};
use crate::protocol::{redact, shell, time};
use crate::text::diff::{self, DiffOptions};
use crate::text::lines::sha256_hex;
use crate::workspace::boundary::{self, Final};
use crate::workspace::{Ctx, paths};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod answer;
mod changes;
mod plan;
mod protocol;
mod splice;
pub mod syntax_guard;

pub use super::request::{Change, ChangeReport, Committed, WriteRequest};

use super::{appends, io_fault, recovery};
use answer::{DiffBudget, PendingReport};
use plan::{Content, Plan, Temp, TempKind, View, parent_of};
use splice::Spliced;

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

/// The one write entry. Takes the workspace lock, runs `build` (which reads and
/// validates the targets as they are now and returns the changes), plans them
/// against the view, then commits them all or none, or, when the request names a
/// tx, stages them in it as one tx op. `build` fails with the caller's error
/// type `E`, which the store's own errors convert into.
pub fn submit<E: From<Box<StoreError>>>(
    ctx: &Ctx,
    req: &WriteRequest,
    build: impl FnOnce() -> Result<Vec<Change>, E>,
) -> Result<Committed, E> {
    // The plan reads through `ctx`'s view: it must be the tx the request names.
    if req.tx != ctx.tx {
        return Err(Box::new(StoreError::Internal(
            "write: the request names another tx than the view it reads through",
        ))
        .into());
    }
    match &req.tx {
        Some(id) => stage(ctx, req, id, build),
        None => commit(ctx, req, build),
    }
}

/// `submit` without a tx: the write protocol on the tree, journaled as one op.
fn commit<E: From<Box<StoreError>>>(
    ctx: &Ctx,
    req: &WriteRequest,
    build: impl FnOnce() -> Result<Vec<Change>, E>,
) -> Result<Committed, E> {
    if req.dry_run
        && let Some(state) = absent_state_dir(ctx)
    {
        return dry_run_without_state(ctx, req, &state, build);
    }
    // What it makes of the state directory is synced with the intent record.
    // A blob store made now held nothing before this op (`gc::after_write`).
    let (state, unsynced, fresh_blobs) = state_dir::ensure_deferred(&ctx.root, ctx.session.kept())
        .map_err(|e| super::io_fault(ctx, "the state directory", &e))?;
    ctx.session.defer_sync(unsynced);
    let _lock = lock::acquire(ctx, &state)?;
    // A writer killed since this command's own recovery ran is finished first, so
    // ops reach the journal in the order they happened.
    let pending = super::recovery::recover_scoped(ctx, &state)?;
    ctx.session.snapshots.forget_first();
    let changes = build()?;
    syntax_guard::check(ctx, req, &changes)?;
    let seq = journal::next_seq(&state).map_err(|e| super::io_fault(ctx, "the journal", &e))?;
    let seq = super::recovery::seq_past(&pending, seq);
    let op_id = match &req.op_id {
        Some(id) => id.clone(),
        None => journal::new_op_id(&state, seq, ctx.session.settings.seed.as_deref()),
    };
    let mut plan = plan_of(ctx, &state, &op_id, changes)?;
    // A record stuck on other paths does not hold this write back.
    if !pending.is_empty() {
        let mine = intent::step_paths(&plan.steps);
        super::recovery::refuse_overlap(&pending, mine.iter().map(|(p, _)| *p))?;
    }
    let mut budget = DiffBudget::of(ctx, req);
    let mut next_commands = Vec::new();
    let (reports, any_cut) = finish_reports(&mut plan, &mut budget, req.no_diffs.get());
    if plan.entry_changes.is_empty() || req.dry_run {
        return Ok(unjournaled(ctx, req, &plan, reports, any_cut, &budget));
    }
    if any_cut {
        next_commands.push(shell::aitools(["diff", "--op", &op_id]));
    }
    let entry = Entry {
        seq,
        op_id: op_id.clone(),
        time: time::iso8601(time::now().0),
        command: req.command.clone(),
        argv: req
            .argv
            .iter()
            .map(|a| redact::mask_str_quiet(a).unwrap_or_else(|| a.clone()))
            .collect(),
        undoes: req.undoes.clone(),
        changes: std::mem::take(&mut plan.entry_changes),
        appends: Vec::new(),
    };
    let added = plan.blob_bytes();
    let (mut appended, mut watch) = plan.commit(entry)?;
    super::gc::after_write(&state, added, ctx.session.settings.gc_budget, fresh_blobs);
    // A last look once the write is done (in the answer only: the journal line is written).
    appended.extend(watch.settle(&state, &op_id));
    ctx.session.snapshots.clear();
    let merged = watch.merged();
    let concurrent_appends = (!appended.is_empty() || !merged.is_empty()).then(|| {
        for a in appended.iter().filter(|a| !a.hash.is_empty()) {
            next_commands.push(super::appends::reapply(&state, a));
        }
        super::appends::report(&state, merged, &appended)
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

/// Each planned change's report, its diff cut to `budget` (none under
/// `no_diffs`: the request's for a commit; a staged op always shows its diff),
/// and whether any diff was cut.
fn finish_reports(
    plan: &mut Plan,
    budget: &mut DiffBudget,
    no_diffs: bool,
) -> (Vec<ChangeReport>, bool) {
    let mut any_cut = false;
    let reports = plan
        .reports
        .drain(..)
        .map(|r| {
            let (report, cut) = if no_diffs {
                (r.report, false)
            } else {
                r.finish(budget)
            };
            any_cut |= cut;
            report
        })
        .collect();
    (reports, any_cut)
}

/// The workspace's state directory when it does not exist yet (its trust
/// checked): a dry run then has nothing to lock, recover or number against.
fn absent_state_dir(ctx: &Ctx) -> Option<PathBuf> {
    let state = state_dir::verify(&ctx.root, ctx.session.kept()).ok()?;
    (!state.exists()).then_some(state)
}

/// A dry run in a workspace with no state directory: the same build, guard and
/// plan as `commit`, with no lock, no recovery (nothing can be pending) and
/// nothing made on disk, so a preview leaves the state root as it was.
fn dry_run_without_state<E: From<Box<StoreError>>>(
    ctx: &Ctx,
    req: &WriteRequest,
    state: &Path,
    build: impl FnOnce() -> Result<Vec<Change>, E>,
) -> Result<Committed, E> {
    let changes = build()?;
    syntax_guard::check(ctx, req, &changes)?;
    let mut plan = plan_of(ctx, state, "op-dry-run", changes)?;
    let mut budget = DiffBudget::of(ctx, req);
    let (reports, any_cut) = finish_reports(&mut plan, &mut budget, req.no_diffs.get());
    Ok(unjournaled(ctx, req, &plan, reports, any_cut, &budget))
}

/// `changes` planned against the view, in order, as op `op_id`.
fn plan_of<'a>(
    ctx: &'a Ctx,
    state: &'a Path,
    op_id: &'a str,
    changes: Vec<Change>,
) -> Result<Plan<'a>, Box<StoreError>> {
    let mut plan = Plan::new(ctx, state, op_id);
    for c in changes {
        plan.add(c)?;
    }
    Ok(plan)
}

/// The answer of a write that journals nothing: a plan that changes nothing
/// (no changes shown), or a dry run's preview (with the call that shows a cut
/// diff whole).
fn unjournaled(
    ctx: &Ctx,
    req: &WriteRequest,
    plan: &Plan,
    reports: Vec<ChangeReport>,
    any_cut: bool,
    budget: &DiffBudget,
) -> Committed {
    let shown = !plan.entry_changes.is_empty();
    Committed {
        changes: if shown { reports } else { Vec::new() },
        op_id: None,
        dry_run: req.dry_run,
        next_commands: if shown && any_cut {
            vec![budget.rerun(ctx)]
        } else {
            Vec::new()
        },
        tx: None,
        tx_op: None,
        concurrent_appends: None,
    }
}

/// `submit` with a tx: the same validation and planning against the tx's view,
/// then the result is staged in the tx (one tx op) instead of the tree.
fn stage<E: From<Box<StoreError>>>(
    ctx: &Ctx,
    req: &WriteRequest,
    id: &str,
    build: impl FnOnce() -> Result<Vec<Change>, E>,
) -> Result<Committed, E> {
    let state = tx::state_for(ctx).map_err(|e| super::io_fault(ctx, "the state directory", &e))?;
    let _lock = lock::acquire(ctx, &state)?;
    super::recovery::recover_locked(ctx, &state)?;
    // Loaded once, under its lock; the view reads this load.
    let (_tlock, t) = tx::open_locked(ctx, id)?;
    let t = std::sync::Arc::new(t);
    view::install(ctx, t.clone());
    // Dropped before `_tlock`: trusted only while the lock is held.
    let _pinned = view::pin(ctx);
    view::track(ctx);
    let mut moves = false;
    let planned = (|| -> Result<Plan, E> {
        let changes = build()?;
        syntax_guard::check(ctx, req, &changes)?;
        moves = changes.iter().any(|c| matches!(c, Change::Move { .. }));
        Ok(plan_of(ctx, &state, id, changes)?)
    })();
    let looked = view::tracked(ctx);
    let mut plan = planned?;
    let mut budget = DiffBudget::of(ctx, req);
    let mut next_commands = Vec::new();
    let (reports, any_cut) = finish_reports(&mut plan, &mut budget, false);
    let mut done = Committed {
        changes: Vec::new(),
        op_id: None,
        dry_run: req.dry_run,
        next_commands: Vec::new(),
        tx: Some(id.to_string()),
        tx_op: None,
        concurrent_appends: None,
    };
    if plan.entry_changes.is_empty() {
        return Ok(done);
    }
    done.changes = reports;
    if req.dry_run {
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
        if contents.contains_key(&h) || t.has_blob(&h) {
            continue;
        }
        let abs = ctx.root.join(&c.path);
        let bytes = match plan.view.get(&abs) {
            Some(View::File {
                content: Some(content),
                ..
            }) => content.whole().into_owned(),
            _ => ctx.files().load(&abs)?.bytes.clone(),
        };
        contents.insert(h, bytes);
    }
    let changes = std::mem::take(&mut plan.entry_changes);
    drop(plan);
    ctx.files().forget();
    let mut t = std::sync::Arc::try_unwrap(t).unwrap_or_else(|shared| (*shared).clone());
    let n = t.stage(ctx, req, moves, &changes, &contents, looked)?;
    view::install(ctx, std::sync::Arc::new(t));
    ctx.session.snapshots.clear();
    done.tx_op = Some(n);
    done.next_commands = next_commands;
    Ok(done)
}

fn not_a_file(rel: &str) -> Box<StoreError> {
    Box::new(StoreError::NotAFile {
        rel: rel.to_string(),
    })
}

fn in_the_way(rel: &str) -> Box<StoreError> {
    Box::new(StoreError::InTheWay {
        rel: rel.to_string(),
    })
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
    "[{path,action?,from?,hash?,added?,deleted?,diff?}]; action is created, deleted, moved, mode-changed or linked (absent: modified); hash is the first 12 hex digits of the file's SHA-256 after the write (--expect-hash takes them; absent in a dry run); added/deleted count a text change's lines (absent when its whole diff is shown, which counts them); diff is its hunks without context or headers, within --max-diff-lines (default: whole hunks up to 16 lines and 190 bytes over the answer), and diff_truncated:true follows op_id when one was cut.",
);
pub const FIELD_OP_ID: crate::protocol::registry::Field = crate::protocol::registry::field(
    "op_id",
    "The journal op as `op-<8 hex>`, the end of the journal's `op-<UTC time>-<8 hex>` (undo, diff --op and history take either); undo with `aitools undo <op_id>`; null when nothing changed; absent in a dry run.",
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
