//! Undo: find a journaled op, check that every path it touched is still in the
//! state the op left it in, and compute the changes that put the before-states
//! back (run through the write protocol as a new op with `undoes`). An op that
//! `gc` collected is refused, and a blob is used only when its bytes still hash
//! to its name.

use super::blobs;
use super::error::StoreError;
use super::journal::{self, Entry, State};
use super::request::Change;
use super::stream::{self, STREAM_FROM, Scan};
use crate::protocol::Json;
use crate::protocol::compact::short_op_id;
use crate::workspace::Ctx;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The op `op_id`, or `input.not-found` whose repair lists the journal
/// (`selection.ambiguous`, one repair per op, for a short id several ops end in).
/// `again` is the caller's call before the id (`["undo"]`, `["diff", "--op"]`).
pub fn find(
    ctx: &Ctx,
    state: &Path,
    op_id: &str,
    again: &[&str],
) -> Result<Entry, Box<StoreError>> {
    let found = journal::find(state, op_id).map_err(|e| super::io_fault(ctx, "the journal", &e))?;
    // A short id that several old ops end in: which one is the caller's to say.
    if found.is_none() && journal::is_short_op_id(op_id) {
        let ids = journal::short_matches(state, op_id)
            .map_err(|e| super::io_fault(ctx, "the journal", &e))?;
        if ids.len() > 1 {
            let again = again.iter().map(|w| w.to_string()).collect();
            let op_id = op_id.to_string();
            return Err(StoreError::OpAmbiguous { op_id, ids, again }.into());
        }
    }
    if let Some(e) = &found
        && super::gc::is_collected(state, e.seq)
    {
        return Err(collected(e));
    }
    found.ok_or_else(|| {
        StoreError::OpNotFound {
            op_id: op_id.to_string(),
        }
        .into()
    })
}

/// `refusal.op-collected` for an op whose blobs retention let go.
fn collected(e: &Entry) -> Box<StoreError> {
    let first = e.paths().into_iter().next().unwrap_or_else(|| ".".into());
    StoreError::OpCollected {
        op_id: e.op_id.clone(),
        first,
        keep: super::gc::KEEP_GENERATIONS,
        budget_env: super::gc::BUDGET_ENV,
    }
    .into()
}

/// How `now` differs from `want`, if it does.
fn difference(want: &State, now: &State) -> Option<&'static str> {
    if want.kind != now.kind {
        return Some(match (want.is_missing(), now.is_missing()) {
            (true, _) => "created",
            (_, true) => "deleted",
            _ => "type-changed",
        });
    }
    match want.kind.as_str() {
        "file" if want.hash != now.hash => Some("modified"),
        "symlink" if want.target != now.target => Some("modified"),
        "file" | "dir" if want.mode.is_some() && want.mode != now.mode => Some("mode-changed"),
        "file" if want.mtime.is_some() && want.mtime != now.mtime => Some("mtime-changed"),
        _ => None,
    }
}

fn describe(s: &State) -> Json {
    match (&s.hash, s.kind.as_str()) {
        (Some(h), _) => Json::str(h.clone()),
        (None, "missing") => Json::Null,
        (None, k) => Json::str(k),
    }
}

/// The newest later op that undid `entry`, if any (read back to `entry` only, on
/// the error path).
fn undone_by(state: &Path, entry: &Entry) -> Option<String> {
    let mut lines = super::journal::ReverseLines::open(state).ok()??;
    // Undos that a newer op undid in turn (a redo) no longer count.
    let mut redone: Vec<String> = Vec::new();
    while let Ok(Some(line)) = lines.next_line() {
        let Ok(e) = serde_json::from_str::<Entry>(&line) else {
            continue;
        };
        if e.seq <= entry.seq {
            return None;
        }
        if e.undoes.as_deref() == Some(entry.op_id.as_str()) {
            return (!redone.contains(&e.op_id)).then_some(e.op_id);
        }
        if let Some(u) = e.undoes {
            redone.push(u);
        }
    }
    None
}

/// The changes that revert `entry`, or `refusal.target-changed` with `conflicts`
/// when a path is no longer as the op left it.
/// `diffs`: the answer shows the diff (a file put back by streaming then
/// brings the window of its change).
pub fn inverse(
    ctx: &Ctx,
    state: &Path,
    entry: &Entry,
    diffs: bool,
) -> Result<Vec<Change>, Box<StoreError>> {
    let abs = |rel: &str| -> PathBuf { ctx.root.join(rel) };
    // The state each path was left in: the last change touching it decides.
    let mut expected: Vec<(String, State)> = Vec::new();
    let mut set = |p: &str, s: State| match expected.iter_mut().find(|(q, _)| q == p) {
        Some(slot) => slot.1 = s,
        None => expected.push((p.to_string(), s)),
    };
    for c in &entry.changes {
        if let Some(f) = &c.from {
            set(f, State::missing());
        }
        set(&c.path, c.after.clone());
    }
    let mut conflicts = Vec::new();
    let mut inv = Inverse {
        ctx,
        state,
        entry,
        diffs,
        scans: HashMap::new(),
    };
    for (rel, want) in &expected {
        let now = inv.state_now(&abs(rel)).map_err(|error| {
            Box::new(StoreError::PathIo {
                command: ctx.command.clone(),
                path: rel.clone(),
                error,
            })
        })?;
        if let Some(kind) = difference(want, &now) {
            let mut c = Json::obj();
            c.push("path", Json::str(rel.clone()));
            c.push("kind", Json::str(kind));
            c.push("base", describe(want));
            c.push("current", describe(&now));
            conflicts.push(c);
        }
    }
    if !conflicts.is_empty() {
        // Undoing twice: the first undo moved every path back, so all differ.
        if let Some(by) = undone_by(state, entry) {
            // Named as answers name ops (both forms are taken).
            return Err(StoreError::AlreadyUndone {
                op_id: short_op_id(&entry.op_id),
                by: short_op_id(&by),
                conflicts: Json::Arr(conflicts),
            }
            .into());
        }
        let first = conflicts
            .first()
            .and_then(|c| c.get("path"))
            .and_then(|p| p.as_str())
            .unwrap_or(".")
            .to_string();
        return Err(StoreError::UndoConflicts {
            op_id: short_op_id(&entry.op_id),
            first,
            conflicts: Json::Arr(conflicts),
        }
        .into());
    }
    let mut out = Vec::new();
    for c in entry.changes.iter().rev() {
        let p = abs(&c.path);
        if let Some(from) = &c.from {
            out.push(Change::Move {
                from: p.clone(),
                to: abs(from),
            });
            out.extend(restore(&inv, &p, &c.before, &State::missing())?);
        } else {
            out.extend(restore(&inv, &p, &c.before, &c.after)?);
        }
    }
    Ok(out)
}

fn blob(
    ctx: &Ctx,
    state: &Path,
    entry: &Entry,
    p: &Path,
    hash: Option<&String>,
) -> Result<Vec<u8>, Box<StoreError>> {
    let h = hash.cloned().unwrap_or_default();
    blobs::read_verified_in(state, &h, Some(&entry.op_id)).map_err(|e| {
        let rel = crate::workspace::paths::relative_to(p, &ctx.root)
            .unwrap_or_else(|| crate::workspace::paths::display(p));
        if e.kind() == std::io::ErrorKind::InvalidData {
            return StoreError::BlobCorrupt {
                rel,
                op_id: entry.op_id.clone(),
                hash: h.clone(),
            }
            .into();
        }
        StoreError::BlobMissing {
            path: p.display().to_string(),
            hash: h.clone(),
            error: e,
            command: ctx.command.clone(),
        }
        .into()
    })
}

/// What `inverse` reads on its way: the large files it hashed by one pass
/// each (`scans`, by path), which the file put back over them copies from.
struct Inverse<'a> {
    ctx: &'a Ctx,
    state: &'a Path,
    entry: &'a Entry,
    diffs: bool,
    scans: HashMap<PathBuf, Arc<Scan>>,
}

impl Inverse<'_> {
    /// `current::state`, except that a regular file of `STREAM_FROM` bytes or
    /// more is hashed by one streaming pass (kept in `scans`), never held.
    fn state_now(&mut self, p: &Path) -> std::io::Result<State> {
        let big = std::fs::symlink_metadata(p)
            .is_ok_and(|m| m.file_type().is_file() && m.len() >= STREAM_FROM);
        if !big {
            return super::current::state(&self.ctx.session.snapshots, p);
        }
        let scan = stream::scan(p, b"")?;
        let now = State {
            kind: "file".into(),
            hash: Some(scan.hash.clone()),
            mode: Some(scan.mode),
            mtime: Some(scan.mtime),
            target: None,
        };
        self.scans.insert(p.to_path_buf(), Arc::new(scan));
        Ok(now)
    }

    /// The blob `hash` as one pass read it, when it is put back by streaming:
    /// a loose blob (one name) whose bytes hash to its name, of `STREAM_FROM`
    /// bytes or more or put over a file `state_now` streamed (`over`). `None`:
    /// read whole (`blob`: a pack's copy, and the errors).
    fn blob_stream(&self, hash: &str, over: bool) -> Option<Arc<Scan>> {
        let (f, nlink) = super::fsx::open_regular_nlink(&blobs::path(self.state, hash)).ok()?;
        let len = f.metadata().ok()?.len();
        if nlink != 1 || !(over || len >= STREAM_FROM) {
            return None;
        }
        let scan = stream::scan_open(f, b"").ok()?;
        (scan.hash == hash).then(|| Arc::new(scan))
    }

    /// The change that puts the file `before` back at `p`: streamed from its
    /// blob where `blob_stream` allows, else its bytes.
    fn put_back(&self, p: &Path, before: &State) -> Result<Change, Box<StoreError>> {
        let base = self.scans.get(p).cloned();
        let hash = before.hash.clone().unwrap_or_default();
        if let Some(from) = self.blob_stream(&hash, base.is_some()) {
            let window = match (&base, self.diffs) {
                (Some(b), true) => stream::window_between(b, &from).ok().flatten(),
                _ => None,
            };
            return Ok(Change::PutStream {
                path: p.to_path_buf(),
                base,
                from,
                mode: before.mode,
                window,
            });
        }
        Ok(Change::Put {
            bytes: blob(self.ctx, self.state, self.entry, p, before.hash.as_ref())?,
            path: p.to_path_buf(),
            mode: before.mode,
        })
    }
}

/// The changes that take `p` from `after` back to `before`.
fn restore(
    inv: &Inverse,
    p: &Path,
    before: &State,
    after: &State,
) -> Result<Vec<Change>, Box<StoreError>> {
    let path = p.to_path_buf();
    let mut out = Vec::new();
    match before.kind.as_str() {
        "missing" if !after.is_missing() => {
            out.push(Change::Delete { path });
        }
        "file" => {
            if after.kind == "file" && after.hash == before.hash {
                if let Some(m) = before.mode.filter(|m| Some(*m) != after.mode) {
                    out.push(Change::Chmod {
                        path: path.clone(),
                        mode: m,
                    });
                }
                if let Some(t) = before.mtime.filter(|t| Some(*t) != after.mtime) {
                    out.push(Change::Touch { path, mtime: t });
                }
            } else {
                if after.kind == "dir" || after.kind == "symlink" {
                    out.push(Change::Delete { path: path.clone() });
                }
                out.push(inv.put_back(&path, before)?);
            }
        }
        "symlink" => {
            if !after.is_missing() && after.kind != "symlink" {
                out.push(Change::Delete { path: path.clone() });
            }
            out.push(Change::Symlink {
                path,
                target: before.target.clone().unwrap_or_default(),
            });
        }
        "dir" => {
            if after.is_missing() {
                out.push(Change::Mkdir { path: path.clone() });
            }
            if let Some(m) = before.mode.filter(|m| Some(*m) != after.mode) {
                out.push(Change::Chmod { path, mode: m });
            }
        }
        _ => {}
    }
    Ok(out)
}
