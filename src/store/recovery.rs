//! Recovery before every command: finish or discard the writes a killed process
//! left in `commit/`. A complete record (checksum line present and matching) is
//! rolled forward — its idempotent steps re-run, its journal line appended unless
//! it is already the last one — and an incomplete one is discarded (its temp files
//! removed; the tree was never touched). Costs one directory listing when nothing
//! is pending.
//!
//! This module decides whether and when a record runs; the steps themselves are
//! `intent::apply`/`finish`. A record runs only when the state directory is
//! private to the caller and the record is trusted (the caller's, 0600, its lines
//! as aitools writes them, every path it names inside the workspace). A record
//! that cannot run — untrusted, or its step fails (read-only file system,
//! permissions, full disk) — never blocks reads: it stays pending, reads report it
//! in `pending_recovery`, and writes to the paths it names refuse with
//! `environment.recovery-pending` (any write, for a record that cannot be read or
//! is not trusted) until `aitools recover` finishes it or `aitools recover
//! --set-aside` moves it, with every byte it references, to `set-aside/<op_id>/`
//! and journals that. A record finished after other writes went ahead takes the
//! next journal number.

use super::error::{PendingRepair, StoreError};
use super::{fsx, intent, journal, lock, state_dir};
use crate::protocol::{Json, Repair, error, time};
use crate::workspace::Ctx;
use crate::workspace::boundary::{self, Final};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// One recovered operation, as reported in `recovered`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Recovered {
    pub op_id: String,
    pub action: &'static str,
}

/// A record left in `commit/`, as reported in `pending_recovery`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Pending {
    pub op_id: String,
    pub error: String,
    pub repairs: Vec<Repair>,
    /// The tree paths its steps change and its journal line's number, when its
    /// record could be read and is trusted: a write elsewhere may go ahead.
    #[serde(skip)]
    pub scope: Option<Scope>,
}

/// What a readable, trusted pending record may still change.
#[derive(Debug, Clone)]
pub struct Scope {
    pub paths: Vec<PathBuf>,
    pub seq: u64,
}

impl Pending {
    /// This report, scoped to what the record `i` names.
    fn scoped(mut self, i: &intent::Intent) -> Pending {
        self.scope = Some(Scope {
            paths: intent::named_paths(i)
                .into_iter()
                .map(|(p, _)| p.to_path_buf())
                .collect(),
            seq: i.entry.seq,
        });
        self
    }
}

/// What one recovery pass did and what it left.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub recovered: Vec<Recovered>,
    pub pending: Vec<Pending>,
}

fn pending_paths(state: &Path) -> Vec<PathBuf> {
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

/// `environment.state-untrusted` for a state directory that is missing or not
/// private; the repair is the same call once it is fixed.
pub fn untrusted_error(ctx: &Ctx, u: &state_dir::Untrusted) -> Box<StoreError> {
    StoreError::StateUntrusted {
        why: u.clone(),
        argv: ctx.argv.clone(),
    }
    .into()
}

/// The state directory of this workspace once it is checked to be private.
pub fn trusted_state(ctx: &Ctx) -> Result<PathBuf, Box<StoreError>> {
    state_dir::verify(&ctx.root, ctx.session.kept()).map_err(|u| untrusted_error(ctx, &u))
}

/// Runs recovery for the workspace; takes the lock only when something is pending.
/// Records that cannot run are in the report's `pending`, not an error.
pub fn recover(ctx: &Ctx) -> Result<Report, Box<StoreError>> {
    let state = trusted_state(ctx)?;
    if pending_paths(&state).is_empty() {
        return Ok(Report::default());
    }
    let _lock = lock::acquire(ctx, &state)?;
    Ok(pass(ctx, &state, false))
}

/// What `recover` would do now, running and removing nothing: the records that
/// would be finished or discarded (`recovered`) and those that would stay.
/// A step's failure is only known by trying, so a record that would get stuck is
/// listed as one that would be rolled forward.
pub fn preview(ctx: &Ctx) -> Result<Report, Box<StoreError>> {
    let state = trusted_state(ctx)?;
    if pending_paths(&state).is_empty() {
        return Ok(Report::default());
    }
    let _lock = lock::acquire(ctx, &state)?;
    Ok(pass(ctx, &state, true))
}

/// Recovery with the lock already held, for a write about to start: a record that
/// is still pending refuses it (`environment.recovery-pending`).
pub fn recover_locked(ctx: &Ctx, state: &Path) -> Result<Vec<Recovered>, Box<StoreError>> {
    let report = pass(ctx, state, false);
    if report.pending.is_empty() {
        Ok(report.recovered)
    } else {
        Err(pending_error(&report.pending))
    }
}

/// Recovery with the lock already held, for a write to the tree about to start:
/// records still pending are returned, not refused, when each could be read and
/// is trusted (`Pending::scope`); the write then refuses only if it changes a
/// path one of them names (`refuse_overlap`). Any other pending record refuses
/// it now, as `recover_locked` does.
pub fn recover_scoped(ctx: &Ctx, state: &Path) -> Result<Vec<Pending>, Box<StoreError>> {
    let report = pass(ctx, state, false);
    if report.pending.iter().any(|p| p.scope.is_none()) {
        return Err(pending_error(&report.pending));
    }
    Ok(report.pending)
}

/// `environment.recovery-pending` when a path of `mine` is, is inside, or holds
/// one a pending record names; `Ok` when the write keeps clear of them all.
pub fn refuse_overlap<'p>(
    pending: &[Pending],
    mine: impl IntoIterator<Item = &'p Path> + Clone,
) -> Result<(), Box<StoreError>> {
    let hit: Vec<Pending> = pending
        .iter()
        .filter(|p| {
            p.scope.as_ref().is_none_or(|s| {
                s.paths.iter().any(|theirs| {
                    mine.clone()
                        .into_iter()
                        .any(|m| m.starts_with(theirs) || theirs.starts_with(m))
                })
            })
        })
        .cloned()
        .collect();
    if hit.is_empty() {
        Ok(())
    } else {
        Err(pending_error(&hit))
    }
}

/// The first sequence number past every pending record's (a stuck op keeps the
/// number it was given; a write going ahead of it must not take it again).
pub fn seq_past(pending: &[Pending], next: u64) -> u64 {
    pending
        .iter()
        .filter_map(|p| p.scope.as_ref().map(|s| s.seq + 1))
        .fold(next, u64::max)
}

/// The refusal of a write while records are pending; its repairs are the first
/// record's (retry with `aitools recover`, or set it aside).
pub fn pending_error(pending: &[Pending]) -> Box<StoreError> {
    let first = &pending[0];
    let mut repairs = first.repairs.clone();
    if repairs.is_empty() {
        repairs.push(retry_repair(&first.op_id));
    }
    StoreError::RecoveryPending {
        op_id: first.op_id.clone(),
        error: first.error.clone(),
        more: pending.len() - 1,
        repairs,
    }
    .into()
}

fn retry_repair(op_id: &str) -> Repair {
    PendingRepair::Retry {
        op_id: op_id.to_string(),
    }
    .into()
}

fn set_aside_repair(op_id: &str, untrusted: bool) -> Repair {
    PendingRepair::SetAside {
        op_id: op_id.to_string(),
        untrusted,
    }
    .into()
}

/// A record whose step failed: retry once the cause is fixed, or set it aside.
pub fn stuck(op_id: &str, error: String) -> Pending {
    Pending {
        op_id: op_id.to_string(),
        error,
        repairs: vec![retry_repair(op_id), set_aside_repair(op_id, false)],
        scope: None,
    }
}

fn refused(op_id: &str, why: &str) -> Pending {
    Pending {
        op_id: op_id.to_string(),
        // `why` may end a sentence of its own (a boundary refusal's message).
        error: format!(
            "its intent record {}, so it is not trusted and was not run.",
            why.trim_end_matches('.')
        ),
        repairs: vec![set_aside_repair(op_id, true)],
        scope: None,
    }
}

/// Every path the record names must be where a write of this workspace could
/// act: inside the root, outside `.git`, under no symlink leading out.
fn check_paths(ctx: &Ctx, state: &Path, i: &intent::Intent) -> Result<(), String> {
    intent::check_shape(i, &super::blobs::dir(state))?;
    for (p, entry) in intent::named_paths(i) {
        let last = if entry { Final::Entry } else { Final::Follow };
        if let Err(e) = boundary::resolve(ctx, p, last) {
            return Err(format!("names {}: {}", p.display(), e));
        }
    }
    for d in &i.sync_dirs {
        if *d != ctx.root
            && let Err(e) = boundary::resolve(ctx, d, Final::Follow)
        {
            return Err(format!("names {}: {}", d.display(), e));
        }
    }
    Ok(())
}

fn failed(e: &std::io::Error) -> String {
    format!("{}.", error::err_text(e))
}

/// One pass over `commit/` with the lock held (`dry`: judge only). A complete
/// record behind one that is stuck waits, so ops reach the journal in the order
/// they happened.
fn pass(ctx: &Ctx, state: &Path, dry: bool) -> Report {
    let mut report = Report::default();
    let mut blocked: Option<String> = None;
    for path in pending_paths(state) {
        let rec = match intent::read_record(&path, &ctx.root, state) {
            Ok(r) => r,
            Err(e) => {
                let op_id = path
                    .file_stem()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                report.pending.push(stuck(
                    &op_id,
                    format!("its intent record cannot be read: {}", failed(&e)),
                ));
                continue;
            }
        };
        if let Some(why) = &rec.distrust {
            report.pending.push(refused(&rec.op_id, why));
            continue;
        }
        let Some(i) = &rec.intent else {
            // Killed while writing its first line: nothing it could name exists.
            let removed = if dry {
                Ok(())
            } else {
                std::fs::remove_file(&rec.path)
            };
            match removed {
                Ok(()) => report.recovered.push(Recovered {
                    op_id: rec.op_id,
                    action: "discarded",
                }),
                Err(e) => report.pending.push(stuck(&rec.op_id, failed(&e))),
            }
            continue;
        };
        if let Err(why) = check_paths(ctx, state, i) {
            report.pending.push(refused(&rec.op_id, &why));
            continue;
        }
        if rec.complete {
            if let Some(b) = &blocked {
                report.pending.push(
                    stuck(
                        &rec.op_id,
                        format!("it waits for {b}, an earlier write, to be finished first."),
                    )
                    .scoped(i),
                );
                continue;
            }
            let finished = if dry { Ok(()) } else { finish(ctx, state, i) };
            match finished {
                Ok(()) => report.recovered.push(Recovered {
                    op_id: rec.op_id,
                    action: "rolled-forward",
                }),
                Err(e) => {
                    blocked = Some(rec.op_id.clone());
                    report.pending.push(
                        stuck(
                            &rec.op_id,
                            format!("it is committed but could not be finished: {}", failed(&e)),
                        )
                        .scoped(i),
                    );
                }
            }
        } else {
            let done = if dry {
                Ok(())
            } else {
                intent::discard(&ctx.root, i).and_then(|()| std::fs::remove_file(&rec.path))
            };
            match done {
                Ok(()) => report.recovered.push(Recovered {
                    op_id: rec.op_id,
                    action: "discarded",
                }),
                Err(e) => report.pending.push(
                    stuck(
                        &rec.op_id,
                        format!(
                            "it never reached its commit point, but its temp files could not be removed: {}",
                            failed(&e)
                        ),
                    )
                    .scoped(i),
                ),
            }
        }
    }
    report
}

/// The envelope members of a recovery pass: `recovered` and `pending_recovery`,
/// each omitted when empty.
pub fn report(r: &Report) -> Vec<(String, Json)> {
    let mut out = Vec::new();
    if !r.recovered.is_empty() {
        out.push(("recovered".to_string(), Json::from_serialize(&r.recovered)));
    }
    if !r.pending.is_empty() {
        out.push((
            "pending_recovery".to_string(),
            Json::from_serialize(&r.pending),
        ));
    }
    out
}

/// What `set_aside` kept, and the journal op that records it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SetAside {
    pub op_id: String,
    /// Where the record and its bytes are now, inside the state directory.
    pub kept_in: String,
    /// Temp files whose bytes were kept but which could not leave the tree.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_in_tree: Vec<String>,
    /// The journal op recording the set-aside (null with --dry-run).
    pub journal_op: Option<String>,
}

fn not_pending(ctx: &Ctx, op_id: &str) -> Box<StoreError> {
    StoreError::NotPending {
        op_id: op_id.to_string(),
        argv: ctx.argv.clone(),
    }
    .into()
}

/// Moves the pending record `op_id` to `set-aside/<op_id>/` without running it:
/// the record, hard links of the blobs its journal entry names, its blob temps and
/// a copy of each temp file it made in the tree (then removed from the tree when
/// it can be), and journals the set-aside as an op of its own.
pub fn set_aside(ctx: &Ctx, op_id: &str, dry_run: bool) -> Result<SetAside, Box<StoreError>> {
    let state = trusted_state(ctx)?;
    let _lock = lock::acquire(ctx, &state)?;
    let path = intent::record_path(&state, op_id);
    // Any name a record in commit/ can have (a planted one need not look like an
    // op id), but never one that leaves the directory.
    let plain = !op_id.is_empty() && !op_id.starts_with('.') && !op_id.contains('/');
    if !plain || !fsx::exists_nofollow(&path) {
        return Err(not_pending(ctx, op_id));
    }
    if dry_run {
        return Ok(SetAside {
            op_id: op_id.to_string(),
            kept_in: format!("set-aside/{op_id}"),
            left_in_tree: Vec::new(),
            journal_op: None,
        });
    }
    let io = |e: std::io::Error| super::io_fault(ctx, "setting the record aside", &e);
    let rec = intent::read_record(&path, &ctx.root, &state).map_err(io)?;
    let kept = state.join("set-aside").join(op_id);
    fsx::ensure_private_dir(&state.join("set-aside")).map_err(io)?;
    fsx::ensure_private_dir(&kept).map_err(io)?;
    let mut left_in_tree = Vec::new();
    // Only a trusted record's paths are followed; an untrusted one is kept as is.
    let trusted = rec.distrust.is_none()
        && rec
            .intent
            .as_ref()
            .is_some_and(|i| check_paths(ctx, &state, i).is_ok());
    if let (true, Some(i)) = (trusted, &rec.intent) {
        left_in_tree = keep_temps(ctx, i, &kept.join("temps")).map_err(io)?;
        keep_blobs(&state, i, &kept.join("blobs")).map_err(io)?;
    }
    std::fs::rename(&path, kept.join(format!("{op_id}.intent"))).map_err(io)?;
    fsx::sync_dir(&kept).map_err(io)?;
    fsx::sync_dir(&intent::dir(&state)).map_err(io)?;
    let journal_op = journal_set_aside(ctx, &state, op_id).map_err(io)?;
    Ok(SetAside {
        op_id: op_id.to_string(),
        kept_in: format!("set-aside/{op_id}"),
        left_in_tree,
        journal_op: Some(journal_op),
    })
}

/// Copies each temp file the record made in the tree into `tmps` (a symlink as a
/// symlink) and removes it from the tree; the ones that stay are returned.
fn keep_temps(ctx: &Ctx, i: &intent::Intent, tmps: &Path) -> std::io::Result<Vec<String>> {
    fsx::ensure_private_dir(tmps)?;
    // Removed beneath the root: a directory swapped for a symlink meanwhile
    // must not make an unlink act outside the workspace.
    let tree = super::beneath::Tree::open(&ctx.root)?;
    let mut left_in_tree = Vec::new();
    for (n, t) in i.temps.iter().enumerate() {
        if !fsx::exists_nofollow(t) {
            continue;
        }
        let to = tmps.join(format!("{n}"));
        // A set-aside killed after this copy left it behind: the copy below
        // creates its file exclusively, so the retry starts from nothing.
        match std::fs::remove_file(&to) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        match std::fs::symlink_metadata(t) {
            Ok(m) if m.file_type().is_symlink() => {
                std::fs::read_link(t).and_then(|target| std::os::unix::fs::symlink(target, &to))
            }
            _ => copy_private(t, &to),
        }?;
        if tree.remove_file(t).is_err() {
            left_in_tree.push(
                crate::workspace::paths::relative_to(t, &ctx.root)
                    .unwrap_or_else(|| t.display().to_string()),
            );
        }
    }
    fsx::sync_dir(tmps)?;
    Ok(left_in_tree)
}

/// Keeps every blob the record's entry names, its linked before-images and its
/// blob temps in `kept_blobs`.
fn keep_blobs(state: &Path, i: &intent::Intent, kept_blobs: &Path) -> std::io::Result<()> {
    let blobs = super::blobs::dir(state);
    fsx::ensure_private_dir(kept_blobs)?;
    let mut hashes = super::gc::hashes(&i.entry);
    hashes.sort_unstable();
    hashes.dedup();
    for h in hashes {
        let b = super::blobs::path(state, h);
        let to = kept_blobs.join(h);
        // A link not yet published (a tree file's other name) is the next loop's.
        let unpublished = i.linked.iter().any(|l| l.hash == h && l.tmp == b);
        if fsx::exists_nofollow(&to) || unpublished {
            continue;
        }
        if fsx::exists_nofollow(&b) {
            // A copy keeps the bytes if the blob store lets the blob go. Not a
            // hard link: a blob with two names is not sound (`blobs::kept`),
            // so the next op that needs it would store it again.
            copy_private(&b, &to)?;
        } else if let Ok(Some(bytes)) = super::pack::find(state, h, Some(&i.op_id)) {
            // A packed blob gets a file of its own (its pack goes with the op).
            fsx::write_new_synced(&to, &bytes, 0o600)?;
        }
    }
    // A before-image kept as a link is kept under its hash, as the blobs the
    // entry names: a copy while it is still a tree file's other name (its
    // steps never ran), else the inode itself.
    for l in &i.linked {
        let Ok(m) = std::fs::symlink_metadata(&l.tmp) else {
            continue;
        };
        let to = kept_blobs.join(&l.hash);
        if fsx::exists_nofollow(&to) || l.tmp.parent() != Some(blobs.as_path()) {
            continue;
        }
        if m.nlink() > 1 {
            copy_private(&l.tmp, &to)?;
            std::fs::remove_file(&l.tmp)?;
        } else if l.tmp != super::blobs::path(state, &l.hash) {
            std::fs::rename(&l.tmp, &to)?;
        } else {
            // A copy, as above: the name in `blobs/` keeps one name.
            copy_private(&l.tmp, &to)?;
        }
    }
    for b in &i.blob_tmps {
        if let (true, Some(name)) = (fsx::exists_nofollow(b), b.file_name())
            && b.parent() == Some(blobs.as_path())
        {
            std::fs::rename(b, kept_blobs.join(name))?;
        }
    }
    fsx::sync_dir(kept_blobs)
}

/// Journals the set-aside as an op of its own; its op id.
fn journal_set_aside(ctx: &Ctx, state: &Path, op_id: &str) -> std::io::Result<String> {
    let seq = journal::next_seq(state)?;
    let journal_op = journal::new_op_id(state, seq, ctx.session.settings.seed.as_deref());
    let entry = journal::Entry {
        seq,
        op_id: journal_op.clone(),
        time: time::iso8601(time::now().0),
        command: format!("recover --set-aside {op_id}"),
        argv: ctx.argv.clone(),
        undoes: None,
        changes: Vec::new(),
        appends: Vec::new(),
    };
    journal::append(state, &entry)?;
    Ok(journal_op)
}

/// Copies a tree file (a leftover temp) into the private state directory: mode
/// 0600, fsynced, never replacing anything. No symlink on `from` is followed: a parent directory swapped for one since the
/// record's paths were checked must not have an outside file copied in.
fn copy_private(from: &Path, to: &Path) -> std::io::Result<()> {
    let mut src = fsx::open_no_symlinks(from)?;
    let mut dst = fsx::create_new(to, 0o600)?;
    std::io::copy(&mut src, &mut dst)?;
    dst.sync_all()
}

/// The failed step of a `finish_with` error, when no step had changed the tree.
pub fn untouched(e: &std::io::Error) -> Option<&intent::StepFailed> {
    e.get_ref()
        .and_then(|r| r.downcast_ref::<intent::StepFailed>())
}

/// Applies a committed intent beneath the workspace root, journals it once, and
/// removes its record.
pub fn finish(ctx: &Ctx, state: &Path, intent: &intent::Intent) -> std::io::Result<()> {
    finish_with(ctx, state, intent, &Default::default(), |_, _| Vec::new())
}

/// `finish`, with `applied` completing the journal entry once the steps ran;
/// `held`: the descriptors the op linked its before-images from, by blob name
/// (`blobs::publish_link`'s `held`; none in a recovery). `applied` is also given
/// the blob names of those trusted as they are (published through their held
/// descriptor under a read lease, size and mtime as read).
pub(crate) fn finish_with(
    ctx: &Ctx,
    state: &Path,
    intent: &intent::Intent,
    held: &std::collections::HashMap<std::path::PathBuf, std::sync::Arc<std::fs::File>>,
    applied: impl FnOnce(&str, &[&std::path::Path]) -> Vec<journal::Appended>,
) -> std::io::Result<()> {
    // The steps change the tree: directory real paths resolved so far may go stale.
    ctx.dirs().forget();
    // A step that failed before the tree changed travels as it is (the
    // caller may undo the op: `untouched`).
    intent::apply_steps(&ctx.root, intent).map_err(|f| match f.touched {
        true => f.error,
        false => std::io::Error::new(f.error.kind(), f),
    })?;
    // The steps ran: a before-image kept as a link is no longer a tree file's.
    let mut named = false;
    let mut trusted = Vec::new();
    for l in &intent.linked {
        let fd = held.get(&l.tmp).map(|f| &**f);
        // Through a held descriptor, `false` is "trusted as it is".
        let changed = super::blobs::publish_link(state, &l.tmp, &l.hash, l.size, l.mtime_ns, fd)?;
        if fd.is_some() && !changed {
            trusted.push(l.tmp.as_path());
        }
        named |= changed;
    }
    if named {
        fsx::sync_dir(&super::blobs::dir(state))?;
    }
    if let journal::Placement::Next(next) =
        journal::placement(state, &intent.op_id, intent.entry.seq)?
    {
        let appends = applied(&intent.op_id, &trusted);
        if intent.entry.seq >= next {
            journal::append_entry(state, &intent.entry, intent.entry_json.get(), appends)?;
        } else {
            // Finished after writes to other paths went by while it was stuck:
            // its line takes the next number, so sequence numbers stay unique.
            let mut entry = intent.entry.clone();
            entry.seq = next;
            journal::append_entry(state, &entry, None, appends)?;
        }
    }
    for t in &intent.blob_tmps {
        let _ = std::fs::remove_file(t);
    }
    std::fs::remove_file(intent::record_path(state, &intent.op_id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_aside_copy_never_reads_through_a_parent_swapped_for_a_symlink() {
        let (t, ws, _out) = crate::store::swapped_parent::parent_linked_out("tmp", "OUTSIDE\n");
        let to = t.path().join("kept");
        assert!(copy_private(&ws.join("d/tmp"), &to).is_err());
        assert!(!to.exists());
        std::fs::create_dir_all(ws.join("e")).unwrap();
        std::fs::write(ws.join("e/tmp"), "inside\n").unwrap();
        copy_private(&ws.join("e/tmp"), &to).unwrap();
        assert_eq!(std::fs::read(&to).unwrap(), b"inside\n");
    }
}
