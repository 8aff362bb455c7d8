//! Transactions: writes staged outside the tree, committed later as one journal op.
//!
//! A tx lives in `<state>/tx/<tx-id>/`:
//! - `index.json`: per path its `base` (the disk state when the tx first touched
//!   it) and `staged` state, the last op it includes (`last_op`) and the ops log
//!   generation. Written at `begin` and whole (temp, fsync, rename) by `drop` and
//!   `rebase`; the ops staged since are replayed onto it when the tx is loaded.
//! - `meta.json`: id, name, creation time (written once, at `begin`).
//! - `ops.<generation>.jsonl`: one record per op (`tx_op`, command, argv, paths,
//!   each path's index entry before the op, which `drop` restores, and after it,
//!   which loading replays). A staged op appends its record: that append is the
//!   op's commit point. Loading takes whole records only (ending in a newline), in
//!   `tx_op` order from `last_op`; a torn record a kill left mid-append is ignored
//!   and cut off before the next append. A whole line that is not a record (no
//!   kill leaves one) ends what is taken, and the tx refuses staging and commit
//!   until `drop` or `abort` (`Stamp::unreadable`). `drop` and `rebase` write a
//!   new generation whole, then the index that names it.
//! - `reads.json`: the read set (path → disk hash when read, null when missing).
//! - `lock`: serializes operations on the tx (taken after the workspace lock).
//! - `owner`: only in the tx of a `batch --atomic`, flocked by the batch for its
//!   whole run. Free means the batch died before committing or aborting: such a tx
//!   is not listed and the next `tx begin` sweeps it.
//! - `committing`: present only while `tx commit` runs; names the journal seq and
//!   op id the commit takes, so a commit killed after its write protocol's commit
//!   point is recognised (the tx is then gone) and one killed before it is not (the
//!   tx stays) — also when `batch --atomic`, whose argv does not name the tx, commits.
//!
//! - `review.json`: only in a tx begun with `--review`: the operator's decision
//!   on its staged state (`review`), written whole by `tx approve` / `tx deny`.
//!
//! - `blobs/`: the bytes of the file states the ops staged, by hash (`private`):
//!   written before the ops log and index that name them, unsynced under the
//!   `unsynced` marker like them, and moved into the workspace's shared `blobs/`
//!   (synced first) when the tx commits.

use super::error::StoreError;
use super::journal::{self, EntryChange, State};
use super::lock::{self, Lock};
use super::request::{Change, WriteRequest};
use super::{blobs, fsx, state_dir};
use crate::protocol::time;
use crate::text::lines::sha256_hex;
use crate::workspace::Ctx;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

pub mod commit;
mod drift;
mod markers;
pub mod model;
mod private;
pub mod review;
mod staging;

use super::recovery;
pub use drift::{conflict_error, differs, disk_state, file_hash};
use markers::{remove_dir, settle_commit};
pub use model::{Conflict, Index, Meta, OpRecord, PathEntry, Prior, Tx, root_dir};
use model::{FileId, Stamp};
pub use staging::record_read;

/// Held by the process that owns a tx (a `batch --atomic`) for as long as it runs.
pub struct Owner {
    _file: std::fs::File,
}

/// Whether the owner of an owned tx is gone (its `owner` lock is free or missing).
/// A lock this process holds counts as held: `flock` locks belong to the open file.
fn owner_gone(dir: &Path) -> bool {
    match fsx::open_read_nofollow(&dir.join("owner")) {
        Ok(f) => f.try_lock().is_ok(),
        Err(e) => e.kind() == io::ErrorKind::NotFound,
    }
}

/// Whether `s` has the tx id shape (`tx-<compact UTC>-<8 hex>`), so it is safe as a name.
pub fn is_tx_id(s: &str) -> bool {
    let b = s.as_bytes();
    s.len() == 28
        && s.starts_with("tx-")
        && b.get(19) == Some(&b'-')
        && s[3..19].bytes().all(|c| c.is_ascii_alphanumeric())
        && s[20..].bytes().all(|c| c.is_ascii_hexdigit())
}

/// `input.not-found` for a tx id that names no open tx.
pub fn not_found(ctx: &Ctx, id: &str) -> Box<StoreError> {
    StoreError::TxNotFound {
        root: crate::workspace::paths::display(&ctx.root),
        id: id.to_string(),
    }
    .into()
}

fn io_err(ctx: &Ctx, e: &io::Error) -> Box<StoreError> {
    super::io_fault(ctx, "the transaction", e)
}

/// Writes `bytes` to `dir/name` by temp file, fsync and rename (then fsyncs `dir`).
pub fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> io::Result<()> {
    fsx::replace_file(dir, name, &format!(".{name}.tmp"), bytes, 0o600, true)
}

fn to_json<T: Serialize>(v: &T) -> io::Result<Vec<u8>> {
    serde_json::to_vec(v).map_err(io::Error::other)
}

fn read_json<T: for<'de> Deserialize<'de>>(p: &Path) -> io::Result<T> {
    let bytes = std::fs::read(p)?;
    serde_json::from_slice(&bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

fn ops_name(generation: u64) -> String {
    format!("ops.{generation}.jsonl")
}

/// Where this invocation's txs live: `<state>/tx/`, or the private directory a
/// dry run stages in (`Session::tx_home`), outside the state directory.
pub fn home(ctx: &Ctx, state: &Path) -> std::path::PathBuf {
    let apart = ctx.session.tx_home.get().cloned();
    apart.unwrap_or_else(|| root_dir(state))
}

/// A dry run's private tx home (`Session::tx_home`): removed with what it holds
/// when dropped; one a killed process leaves is in the temp directory, never in
/// the state directory, and names no tx anyone can find.
pub struct Apart(std::path::PathBuf);

impl Drop for Apart {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Points this invocation's txs at a new private directory in the temp directory
/// (made here, 0700, refused if something is there), so a dry run that stages
/// writes nothing to the state directory.
pub fn stage_apart(ctx: &Ctx) -> Result<Apart, Box<StoreError>> {
    let tag = crate::workspace::proctree::new_tag();
    let dir = std::env::temp_dir().join(format!("aitools-dry-run-{tag}"));
    match fsx::ensure_private_dir(&dir) {
        Ok(true) => {}
        Ok(false) => return Err(io_err(ctx, &io::ErrorKind::AlreadyExists.into())),
        Err(e) => return Err(io_err(ctx, &e)),
    }
    let apart = Apart(dir.clone());
    if ctx.session.tx_home.set(dir).is_err() {
        return Err(io_err(ctx, &io::Error::other("a tx home was set already")));
    }
    Ok(apart)
}

/// The state directory a tx call locks and recovers in. Under a dry run's tx kept
/// apart (`stage_apart`), in a workspace with no state directory yet, it is the
/// apart directory itself: nothing can be pending there, and the preview makes
/// nothing in the state root.
pub(crate) fn state_for(ctx: &Ctx) -> io::Result<std::path::PathBuf> {
    if let Some(apart) = ctx.session.tx_home.get()
        && let Ok(state) = state_dir::verify(&ctx.root, ctx.session.kept())
        && !state.exists()
    {
        return Ok(apart.clone());
    }
    state_dir::ensure(&ctx.root, ctx.session.kept())
}

/// A new tx id in `dir`: `tx-<UTC>-<8 hex>`; under `AITOOLS_SEED` derived from the
/// seed and a per-workspace counter (reproducible, never repeated), which `count`
/// advances (a dry run's private tx leaves it alone).
fn new_id(dir: &Path, seed: Option<&str>, count: bool) -> io::Result<String> {
    let counter_path = dir.join("counter");
    let n: u64 = std::fs::read_to_string(&counter_path)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    if count {
        write_atomic(dir, "counter", format!("{}\n", n + 1).as_bytes())?;
    }
    let (secs, nanos) = time::now();
    for salt in 0u32..10_000 {
        let material = match seed {
            Some(s) => format!("seed:{s}:tx:{n}:{salt}"),
            None => format!("{secs}:{nanos}:{}:tx:{n}:{salt}", std::process::id()),
        };
        let h = sha256_hex(material.as_bytes());
        let id = format!("tx-{}-{}", time::compact(secs), &h[..8]);
        if !fsx::exists_nofollow(&dir.join(&id)) {
            return Ok(id);
        }
    }
    Err(io::Error::other("no free tx id"))
}

/// Removes what killed `begin`s, finished commits, rebases and batches left (dirs
/// without an index, `.done-*`, scratch txs, owned txs whose owner is gone).
/// Called with the workspace lock held.
fn sweep(state: &Path) {
    let Ok(rd) = std::fs::read_dir(root_dir(state)) else {
        return;
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let p = e.path();
        if !p.is_dir() {
            continue;
        }
        let meta = read_json::<Meta>(&p.join("meta.json")).ok();
        let scratch = meta.as_ref().is_some_and(|m| m.scratch_for.is_some());
        // A dead batch's tx; one with a commit marker is settled by `open` instead.
        let orphan = meta.as_ref().is_some_and(|m| m.owned)
            && !p.join("committing").exists()
            && owner_gone(&p);
        let stale = name.starts_with(".done-")
            || scratch
            || orphan
            || (is_tx_id(&name) && !p.join("index.json").exists());
        if stale {
            let _ = std::fs::remove_dir_all(&p);
        }
    }
}

/// `tx begin`: creates the tx (the index is written last: its rename makes the tx
/// exist). `review`: its commit waits for an operator's approval.
pub fn begin(ctx: &Ctx, name: Option<String>, review: bool) -> Result<Meta, Box<StoreError>> {
    create(ctx, name, None, false, review).map(|(meta, _)| meta)
}

/// The tx of a `batch --atomic`: it exists only while the returned [`Owner`] lives
/// (a batch killed before it commits or aborts leaves a tx nobody lists).
pub fn begin_owned(ctx: &Ctx, name: Option<String>) -> Result<(Meta, Owner), Box<StoreError>> {
    let (meta, owner) = create(ctx, name, None, true, false)?;
    match owner {
        Some(o) => Ok((meta, o)),
        None => Err(io_err(
            ctx,
            &io::Error::other("the tx owner lock was not taken"),
        )),
    }
}

/// The scratch tx `tx rebase` rebuilds `of` in.
pub fn begin_scratch(ctx: &Ctx, of: &str) -> Result<Meta, Box<StoreError>> {
    create(ctx, None, Some(of.to_string()), false, false).map(|(meta, _)| meta)
}

fn create(
    ctx: &Ctx,
    name: Option<String>,
    scratch_for: Option<String>,
    owned: bool,
    review: bool,
) -> Result<(Meta, Option<Owner>), Box<StoreError>> {
    let state = state_for(ctx).map_err(|e| io_err(ctx, &e))?;
    let _lock = lock::acquire(ctx, &state)?;
    let made = (|| -> io::Result<(Meta, Option<Owner>)> {
        let (home, apart) = (home(ctx, &state), ctx.session.tx_home.get().is_some());
        if !apart && fsx::ensure_private_dir(&home)? {
            fsx::sync_dir(&state)?;
        }
        if !apart {
            sweep(&state);
        }
        let id = new_id(&home, ctx.session.settings.seed.as_deref(), !apart)?;
        let dir = home.join(&id);
        fsx::ensure_private_dir(&dir)?;
        fsx::sync_dir(&home)?;
        // Locked before the index makes the tx exist, so no one sees it ownerless.
        let owner = if owned {
            let file = fsx::create_new(&dir.join("owner"), 0o600)?;
            file.try_lock().map_err(io::Error::from)?;
            Some(Owner { _file: file })
        } else {
            None
        };
        let meta = Meta {
            tx: id,
            name,
            created: time::iso8601(time::now().0),
            scratch_for,
            owned,
            review,
        };
        write_atomic(&dir, "meta.json", &to_json(&meta)?)?;
        write_atomic(&dir, "index.json", &to_json(&Index::default())?)?;
        Ok((meta, owner))
    })();
    made.map_err(|e| io_err(ctx, &e))
}

/// Loads the tx `id`; first settles a commit a killed process left behind.
pub fn open(ctx: &Ctx, id: &str) -> Result<Tx, Box<StoreError>> {
    let (state, dir) = settled(ctx, id)?;
    load_found(ctx, &state, &dir, id)
}

/// The state and tx directories of `id` (a well-formed id), with a commit a
/// killed process left behind settled.
fn settled(
    ctx: &Ctx,
    id: &str,
) -> Result<(std::path::PathBuf, std::path::PathBuf), Box<StoreError>> {
    if !is_tx_id(id) {
        return Err(not_found(ctx, id));
    }
    let state = state_dir::for_root(&ctx.root);
    let dir = home(ctx, &state).join(id);
    if dir.join("committing").exists() {
        settle_commit(ctx, &state, &dir)?;
    }
    Ok((state, dir))
}

/// `load`, a missing tx answered as not found.
fn load_found(ctx: &Ctx, state: &Path, dir: &Path, id: &str) -> Result<Tx, Box<StoreError>> {
    load(state, dir, id).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => not_found(ctx, id),
        _ => io_err(ctx, &e),
    })
}

/// The tx `id`, loaded under its lock (held until the returned [`Lock`] drops):
/// one load for an op that changes it. Settles a killed commit first, as `open`.
pub fn open_locked(ctx: &Ctx, id: &str) -> Result<(Lock, Tx), Box<StoreError>> {
    let (state, dir) = settled(ctx, id)?;
    if !dir.join("index.json").exists() {
        return Err(not_found(ctx, id));
    }
    let lock = lock::acquire_file(ctx, &dir.join("lock"), "the transaction lock")?;
    let t = load_found(ctx, &state, &dir, id)?;
    Ok((lock, t))
}

/// A file's bytes and identity, read through one open.
fn read_with_id(p: &Path) -> io::Result<(Vec<u8>, FileId)> {
    let mut f = std::fs::File::open(p)?;
    let m = f.metadata()?;
    let mut bytes = Vec::with_capacity(m.len() as usize);
    io::Read::read_to_end(&mut f, &mut bytes)?;
    Ok((bytes, FileId::of(&m)))
}

fn parse_json<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> io::Result<T> {
    serde_json::from_slice(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

fn load(state: &Path, dir: &Path, id: &str) -> io::Result<Tx> {
    let (bytes, index_id) = read_with_id(&dir.join("index.json"))?;
    let mut index: Index = parse_json(&bytes)?;
    let meta: Meta = read_json(&dir.join("meta.json"))?;
    let reads = match read_json(&dir.join("reads.json")) {
        Ok(r) => r,
        Err(e) if e.kind() == io::ErrorKind::NotFound => BTreeMap::new(),
        Err(e) => return Err(e),
    };
    let mut stamp = Stamp {
        index: index_id,
        ops: None,
        ops_valid: 0,
        unreadable: None,
    };
    let ops = match read_with_id(&dir.join(ops_name(index.generation))) {
        Ok((text, ops_id)) => {
            stamp.ops = Some(ops_id);
            let (ops, valid, unreadable) = take_ops(text, &mut index);
            stamp.ops_valid = valid;
            stamp.unreadable = unreadable;
            ops
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => model::Ops::default(),
        Err(e) => return Err(e),
    };
    Ok(Tx {
        id: id.to_string(),
        dir: dir.to_path_buf(),
        state: state.to_path_buf(),
        meta,
        index,
        ops,
        reads,
        stamp,
    })
}

/// The ops log's records the tx holds, with `index` brought up to the last (as
/// `replay`), the end of the last one taken, and the first whole line that is
/// not a record (`Stamp::unreadable`). The log is skimmed, not parsed
/// (`model::Log`): each path's entry is looked up when asked for; an older log
/// (or one with a line that is not a record) is replayed whole.
fn take_ops(text: Vec<u8>, index: &mut Index) -> (model::Ops, u64, Option<(usize, u64)>) {
    match model::Log::skim(text, index.last_op) {
        Ok(s) => {
            index.last_op = s.last_op;
            index.paths.with_log(s.log.clone());
            (model::Ops::of_log(s.log), s.valid as u64, None)
        }
        Err(text) => {
            let (ops, valid, unreadable) = replay(&text, index);
            (ops.into(), valid, unreadable)
        }
    }
}

/// The ops log's records the tx holds, with `index` brought up to the last: the
/// records up to its `last_op`, then those appended since, each replayed (its
/// `after` entries) in `tx_op` order. Only whole lines count (a kill mid-append
/// leaves a torn last line); a record that is not the next op is a leftover of
/// a killed op from before the log was appended to, and is skipped. A whole
/// line that is not a record ends what is taken (see `Stamp::unreadable`).
/// Returns the records, the end of the last one taken, and that line's number
/// with the op it would be.
fn replay(text: &[u8], index: &mut Index) -> (Vec<OpRecord>, u64, Option<(usize, u64)>) {
    let mut ops: Vec<OpRecord> = Vec::new();
    let (mut pos, mut valid) = (0usize, 0usize);
    let mut number = 0;
    while let Some(nl) = text[pos..].iter().position(|&b| b == b'\n') {
        let (line, end) = (&text[pos..pos + nl], pos + nl + 1);
        pos = end;
        number += 1;
        let Ok(r) = serde_json::from_slice::<OpRecord>(line) else {
            let op = ops.last().map_or(0, |r| r.tx_op) + 1;
            return (ops, valid as u64, Some((number, op)));
        };
        if r.tx_op > index.last_op {
            let Some(after) = r.after.as_ref().filter(|_| r.tx_op == index.last_op + 1) else {
                continue;
            };
            for a in after {
                index.paths.set(a.path.clone(), a.entry.clone());
            }
            index.last_op = r.tx_op;
        }
        ops.push(r);
        valid = end;
    }
    (ops, valid as u64, None)
}

/// Every open tx, oldest first.
pub fn list(ctx: &Ctx) -> Result<Vec<Tx>, Box<StoreError>> {
    let state = state_dir::for_root(&ctx.root);
    let Ok(rd) = std::fs::read_dir(root_dir(&state)) else {
        return Ok(Vec::new());
    };
    let mut ids: Vec<String> = rd
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| is_tx_id(n))
        .collect();
    ids.sort();
    let mut out = Vec::new();
    for id in ids {
        match open(ctx, &id) {
            Ok(t) if t.meta.scratch_for.is_some() => {}
            Ok(t) if t.meta.owned && owner_gone(&t.dir) => {}
            Ok(t) => out.push(t),
            Err(e) if matches!(*e, StoreError::TxNotFound { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    out.sort_by(|a, b| (&a.meta.created, &a.id).cmp(&(&b.meta.created, &b.id)));
    Ok(out)
}

/// Deletes a tx directory (the scratch of a rebase).
pub fn discard(ctx: &Ctx, id: &str) -> Result<(), Box<StoreError>> {
    let state = state_dir::for_root(&ctx.root);
    let dir = home(ctx, &state).join(id);
    remove_dir(&state, &dir, id).map_err(|e| io_err(ctx, &e))?;
    ctx.session.forget_tx();
    Ok(())
}

/// `tx abort`: deletes the tx; returns the paths it had staged.
pub fn abort(ctx: &Ctx, id: &str) -> Result<Vec<String>, Box<StoreError>> {
    let state = state_for(ctx).map_err(|e| io_err(ctx, &e))?;
    let _wlock = lock::acquire(ctx, &state)?;
    let tx = open(ctx, id)?;
    let _tlock = tx.lock(ctx)?;
    let paths = tx.changed_paths();
    remove_dir(&state, &tx.dir, id).map_err(|e| io_err(ctx, &e))?;
    ctx.session.forget_tx();
    Ok(paths)
}

/// The argv without `--tx X` / `--tx=X` (what an op records and rebase re-runs).
pub fn strip_tx(argv: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip = false;
    for a in argv {
        if skip {
            skip = false;
            continue;
        }
        if a == "--" {
            skip = false;
        }
        if a == "--tx" {
            skip = true;
            continue;
        }
        if a.starts_with("--tx=") {
            continue;
        }
        out.push(a.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::markers::journal_has_commit;
    use super::*;

    fn entry(seq: u64, op_id: &str, command: &str, argv: &[&str]) -> journal::Entry {
        journal::Entry {
            seq,
            op_id: op_id.into(),
            time: "2026-01-01T00:00:00Z".into(),
            command: command.into(),
            argv: argv.iter().map(|s| s.to_string()).collect(),
            undoes: None,
            changes: Vec::new(),
            appends: Vec::new(),
        }
    }

    fn record(n: u64, path: &str, after: Option<&str>) -> String {
        let file = |h: &str| State {
            kind: "file".into(),
            hash: Some(h.into()),
            ..State::default()
        };
        let r = OpRecord {
            tx_op: n,
            command: "edit".into(),
            argv: Vec::new(),
            cwd: String::new(),
            paths: vec![path.into()],
            looked: Vec::new(),
            prior: Vec::new(),
            moves: false,
            after: after.map(|h| {
                vec![Prior {
                    path: path.into(),
                    entry: Some(PathEntry {
                        base: file("0"),
                        staged: file(h),
                    }),
                }]
            }),
        };
        format!("{}\n", serde_json::to_string(&r).unwrap())
    }

    #[test]
    fn loading_replays_the_whole_records_after_the_index_in_order() {
        let mut index = Index {
            last_op: 1,
            ..Index::default()
        };
        // Op 1 (in the index), a leftover op 2 of a log rewritten whole, the
        // appended op 2, then a torn op 3.
        let kept = [
            record(1, "a", None),
            record(2, "x", None),
            record(2, "b", Some("b2")),
        ]
        .concat();
        let torn = record(3, "c", Some("c3"));
        let text = format!("{kept}{}", &torn[..torn.len() - 5]);
        let (ops, valid, _) = replay(text.as_bytes(), &mut index);
        let got: Vec<(u64, &str)> = ops.iter().map(|r| (r.tx_op, r.paths[0].as_str())).collect();
        assert_eq!(got, [(1, "a"), (2, "b")]);
        assert_eq!(valid, kept.len() as u64);
        assert_eq!(index.last_op, 2);
        assert_eq!(index.paths["b"].staged.hash.as_deref(), Some("b2"));
        assert!(!index.paths.contains_key("x"));
        // A record that is not the next op (a gap) is not replayed.
        let mut index = Index::default();
        let (ops, valid, _) = replay(record(2, "b", Some("b2")).as_bytes(), &mut index);
        assert!(ops.is_empty() && valid == 0 && index.last_op == 0);
    }

    /// A record whose `after` sets each path to a file state, or removes it.
    fn record_of(n: u64, after: &[(&str, Option<&str>)]) -> String {
        let file = |h: &str| State {
            kind: "file".into(),
            hash: Some(h.into()),
            ..State::default()
        };
        let entries: Vec<Prior> = after
            .iter()
            .map(|(p, h)| Prior {
                path: p.to_string(),
                entry: h.map(|h| PathEntry {
                    base: file("0"),
                    staged: file(h),
                }),
            })
            .collect();
        let r = OpRecord {
            tx_op: n,
            command: "edit".into(),
            argv: vec!["edit".into(), "\"d\"".into()],
            cwd: String::new(),
            paths: after.iter().map(|(p, _)| p.to_string()).collect(),
            // Named here too: a lookup must not take these for `after`'s.
            looked: vec!["d".into(), "x".into()],
            prior: Vec::new(),
            moves: false,
            after: Some(entries),
        };
        format!("{}\n", serde_json::to_string(&r).unwrap())
    }

    #[test]
    fn a_skimmed_log_answers_as_the_log_replayed_whole() {
        let logs = [
            // Ops 1-4 past an index at 0, a gap record, a torn op 5.
            vec![
                record_of(1, &[("d/a", Some("a1")), ("b", Some("b1"))]),
                record_of(2, &[("d/a", Some("a2")), ("d", Some("dd"))]),
                record_of(4, &[("b", Some("never"))]),
                record_of(3, &[("b", None), ("c \"q\"\\", Some("c3"))]),
                record_of(4, &[("d/a", Some("a4"))]),
                record_of(5, &[("d/a", Some("torn"))])[..40].to_string(),
            ],
            // An older build's record (`after` last): replayed whole.
            vec![
                record_of(1, &[("d/a", Some("a1"))]),
                record(2, "b", Some("b2")).replacen(",\"after\":", ",\"x\":0,\"after\":", 1),
            ],
        ];
        for lines in logs {
            let text = lines.concat();
            let mut whole = Index::default();
            let (ops, valid, _) = replay(text.as_bytes(), &mut whole);
            let mut lazy = Index::default();
            let (lazy_ops, lazy_valid, _) = take_ops(text.clone().into_bytes(), &mut lazy);
            assert_eq!(
                (lazy.last_op, lazy_valid, lazy_ops.len()),
                (whole.last_op, valid, ops.len())
            );
            for p in ["d/a", "b", "d", "c \"q\"\\", "x", "edit", "never"] {
                assert_eq!(lazy.paths.entry(p), whole.paths.get(p).cloned(), "{p}");
            }
            assert_eq!(*lazy.paths, *whole.paths);
            let seq = |o: &[OpRecord]| o.iter().map(|r| r.tx_op).collect::<Vec<_>>();
            assert_eq!(seq(&lazy_ops), seq(&ops));
        }
    }

    #[test]
    fn a_commit_marker_is_matched_by_its_op_id_or_by_a_tx_commit_argv() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path();
        std::fs::create_dir_all(journal::dir(state)).unwrap();
        let t = "tx-20260101T000000Z-0000aaaa";
        // A batch commit (argv without the tx), then an unrelated write.
        journal::append(state, &entry(0, "op-a", "batch", &["batch", "--atomic"])).unwrap();
        journal::append(state, &entry(1, "op-b", "write", &["write", "x"])).unwrap();
        journal::append(state, &entry(2, "op-c", "tx commit", &["tx", "commit", t])).unwrap();
        assert!(journal_has_commit(state, 0, t, Some("op-a")).unwrap());
        // The seq taken by another op: the commit never reached the journal.
        assert!(!journal_has_commit(state, 1, t, Some("op-x")).unwrap());
        assert!(!journal_has_commit(state, 3, t, Some("op-d")).unwrap());
        // A marker from before op ids were recorded.
        assert!(journal_has_commit(state, 2, t, None).unwrap());
        assert!(!journal_has_commit(state, 0, t, None).unwrap());
    }
}
