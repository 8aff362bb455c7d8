//! Transactions: writes staged outside the tree, committed later as one journal op.
//!
//! A tx lives in `<state>/tx/<tx-id>/`:
//! - `index.json`: per path its `base` (the disk state when the tx first touched
//!   it) and `staged` state, the last applied `tx_op` and the ops log generation.
//!   Replacing it (write temp, fsync, rename, fsync dir) is every tx op's commit
//!   point: a kill before the rename leaves the tx as it was after the previous op.
//! - `meta.json`: id, name, creation time (written once, at `begin`).
//! - `ops.<generation>.jsonl`: one record per op (`tx_op`, command, argv, paths,
//!   and each path's index entry before the op, which `drop` restores). Rewritten
//!   whole by rename before the index; records past the index's `last_op` are
//!   leftovers of a killed op and are ignored.
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
//! File contents are blobs in the workspace's shared `blobs/`, written and synced
//! before the ops log and index that name them.

use super::journal::{self, EntryChange, State};
use super::lock::{self, Lock};
use super::write::{self, Change, Committed, MoreOptions, WriteOptions};
use super::{blobs, fsx, state_dir};
use crate::protocol::{CmdError, Json, Repair, code, shell, time};
use crate::text::lines::sha256_hex;
use crate::workspace::Ctx;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// `meta.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Meta {
    pub tx: String,
    pub name: Option<String>,
    pub created: String,
    /// Set on the scratch tx `tx rebase` rebuilds a tx in (never listed; swept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scratch_for: Option<String>,
    /// Set on the tx of a `batch --atomic`: it lives while its `owner` lock is held.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub owned: bool,
}

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

/// One path of the write set.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PathEntry {
    pub base: State,
    pub staged: State,
}

/// `index.json`.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
pub struct Index {
    pub last_op: u64,
    pub generation: u64,
    pub paths: BTreeMap<String, PathEntry>,
}

/// A path's index entry before an op (`None`: the tx had not touched it).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Prior {
    pub path: String,
    pub entry: Option<PathEntry>,
}

/// One line of the ops log.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OpRecord {
    pub tx_op: u64,
    pub command: String,
    /// The argv as given, `--tx` removed (what `tx rebase` re-runs).
    pub argv: Vec<String>,
    /// The working directory the argv's relative paths were given in.
    #[serde(default)]
    pub cwd: String,
    pub paths: Vec<String>,
    /// Every path the op looked at through the tx's view (read or written).
    #[serde(default)]
    pub looked: Vec<String>,
    pub prior: Vec<Prior>,
}

impl OpRecord {
    /// Whether the op wrote or read any of `paths`.
    pub fn depends_on(&self, paths: &std::collections::BTreeSet<String>) -> bool {
        self.paths
            .iter()
            .chain(&self.looked)
            .any(|p| paths.contains(p))
    }
}

/// An open tx as loaded.
#[derive(Debug, Clone)]
pub struct Tx {
    pub id: String,
    pub dir: PathBuf,
    pub state: PathBuf,
    pub meta: Meta,
    pub index: Index,
    pub ops: Vec<OpRecord>,
    pub reads: BTreeMap<String, Option<String>>,
}

/// A write conflict (drift) or stale read.
#[derive(Debug, Clone, Serialize)]
pub struct Conflict {
    pub path: String,
    pub kind: &'static str,
    pub base: Option<String>,
    pub current: Option<String>,
    /// A directory the tx removes or replaces: the entries now in it that the
    /// tx never saw (they would be lost or block the commit).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknown_entries: Vec<String>,
}

pub fn root_dir(state: &Path) -> PathBuf {
    state.join("tx")
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
pub fn not_found(ctx: &Ctx, id: &str) -> CmdError {
    CmdError::new(
        code::NOT_FOUND,
        format!(
            "No open tx of the workspace {} has the id {id:?} (committed and aborted transactions are gone; a tx belongs to the workspace it began in: run from there or pass --root).",
            crate::workspace::paths::display(&ctx.root)
        ),
        Repair::new("list", "List the open transactions.", "aitools tx status"),
    )
    .with_repair(Repair::new(
        "begin",
        "Start a new transaction.",
        "aitools tx begin",
    ))
}

fn io_err(ctx: &Ctx, e: &io::Error) -> CmdError {
    super::io_error(ctx, "the transaction", e)
}

/// Writes `bytes` to `dir/name` by temp file, fsync and rename (then fsyncs `dir`).
pub fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> io::Result<()> {
    let tmp = dir.join(format!(".{name}.tmp"));
    let _ = std::fs::remove_file(&tmp);
    fsx::write_new_synced(&tmp, bytes, 0o600)?;
    std::fs::rename(&tmp, dir.join(name))?;
    fsx::sync_dir(dir)
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

/// A new tx id: `tx-<UTC>-<8 hex>`; under `AITOOLS_SEED` derived from the seed and
/// a per-workspace counter (reproducible, never repeated).
fn new_id(state: &Path) -> io::Result<String> {
    let dir = root_dir(state);
    let counter_path = dir.join("counter");
    let n: u64 = std::fs::read_to_string(&counter_path)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    write_atomic(&dir, "counter", format!("{}\n", n + 1).as_bytes())?;
    let (secs, nanos) = time::now();
    let seed = std::env::var("AITOOLS_SEED").ok();
    for salt in 0u32..10_000 {
        let material = match &seed {
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

/// `tx begin`: creates the tx (the index is written last: its rename makes the tx exist).
pub fn begin(ctx: &Ctx, name: Option<String>) -> Result<Meta, CmdError> {
    create(ctx, name, None, false).map(|(meta, _)| meta)
}

/// The tx of a `batch --atomic`: it exists only while the returned [`Owner`] lives
/// (a batch killed before it commits or aborts leaves a tx nobody lists).
pub fn begin_owned(ctx: &Ctx, name: Option<String>) -> Result<(Meta, Owner), CmdError> {
    let (meta, owner) = create(ctx, name, None, true)?;
    match owner {
        Some(o) => Ok((meta, o)),
        None => Err(io_err(
            ctx,
            &io::Error::other("the tx owner lock was not taken"),
        )),
    }
}

/// The scratch tx `tx rebase` rebuilds `of` in.
pub fn begin_scratch(ctx: &Ctx, of: &str) -> Result<Meta, CmdError> {
    create(ctx, None, Some(of.to_string()), false).map(|(meta, _)| meta)
}

fn create(
    ctx: &Ctx,
    name: Option<String>,
    scratch_for: Option<String>,
    owned: bool,
) -> Result<(Meta, Option<Owner>), CmdError> {
    let state = state_dir::ensure(&ctx.root).map_err(|e| io_err(ctx, &e))?;
    let _lock = lock::acquire(ctx, &state)?;
    let made = (|| -> io::Result<(Meta, Option<Owner>)> {
        if fsx::ensure_private_dir(&root_dir(&state))? {
            fsx::sync_dir(&state)?;
        }
        sweep(&state);
        let id = new_id(&state)?;
        let dir = root_dir(&state).join(&id);
        fsx::ensure_private_dir(&dir)?;
        fsx::sync_dir(&root_dir(&state))?;
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
        };
        write_atomic(&dir, "meta.json", &to_json(&meta)?)?;
        write_atomic(&dir, "index.json", &to_json(&Index::default())?)?;
        Ok((meta, owner))
    })();
    made.map_err(|e| io_err(ctx, &e))
}

/// Loads the tx `id`; first settles a commit a killed process left behind.
pub fn open(ctx: &Ctx, id: &str) -> Result<Tx, CmdError> {
    if !is_tx_id(id) {
        return Err(not_found(ctx, id));
    }
    let state = state_dir::for_root(&ctx.root);
    let dir = root_dir(&state).join(id);
    if dir.join("committing").exists() {
        settle_commit(ctx, &state, &dir)?;
    }
    load(&state, &dir, id).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => not_found(ctx, id),
        _ => io_err(ctx, &e),
    })
}

fn load(state: &Path, dir: &Path, id: &str) -> io::Result<Tx> {
    let index: Index = read_json(&dir.join("index.json"))?;
    let meta: Meta = read_json(&dir.join("meta.json"))?;
    let reads = match read_json(&dir.join("reads.json")) {
        Ok(r) => r,
        Err(e) if e.kind() == io::ErrorKind::NotFound => BTreeMap::new(),
        Err(e) => return Err(e),
    };
    let ops = match std::fs::read_to_string(dir.join(ops_name(index.generation))) {
        Ok(text) => text
            .lines()
            .filter_map(|l| serde_json::from_str::<OpRecord>(l).ok())
            .filter(|r| r.tx_op <= index.last_op)
            .collect(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
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
    })
}

/// Every open tx, oldest first.
pub fn list(ctx: &Ctx) -> Result<Vec<Tx>, CmdError> {
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
            Err(e) if e.code == code::NOT_FOUND => {}
            Err(e) => return Err(e),
        }
    }
    out.sort_by(|a, b| (&a.meta.created, &a.id).cmp(&(&b.meta.created, &b.id)));
    Ok(out)
}

/// A commit marker found: decide, under the workspace lock (recovery has finished
/// any write a killed commit left), whether the commit reached the journal.
fn settle_commit(ctx: &Ctx, state: &Path, dir: &Path) -> Result<(), CmdError> {
    let _lock = lock::acquire(ctx, state)?;
    match super::recovery::recover_locked(ctx, state) {
        Ok(_) => {}
        // A write still pending leaves the question open: the marker stays for a
        // later open, reads go on with the tx as staged, and writes refuse anyway.
        Err(e) if e.code == code::RECOVERY_PENDING => return Ok(()),
        Err(e) => return Err(e),
    }
    let marker = dir.join("committing");
    let Ok(text) = std::fs::read_to_string(&marker) else {
        return Ok(());
    };
    let id = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut words = text.split_whitespace();
    let seq: Option<u64> = words.next().and_then(|w| w.parse().ok());
    let op_id = words.next();
    let done = match seq {
        Some(seq) => journal_has_commit(state, seq, &id, op_id).map_err(|e| io_err(ctx, &e))?,
        None => false,
    };
    if done {
        remove_dir(state, dir, &id).map_err(|e| io_err(ctx, &e))?;
    } else {
        std::fs::remove_file(&marker).map_err(|e| io_err(ctx, &e))?;
        fsx::sync_dir(dir).map_err(|e| io_err(ctx, &e))?;
    }
    Ok(())
}

/// Whether the journal's line `seq` is the commit: the op the marker names, or
/// (a marker without one) a `tx commit` of this tx.
fn journal_has_commit(state: &Path, seq: u64, id: &str, op_id: Option<&str>) -> io::Result<bool> {
    let Some(mut lines) = journal::ReverseLines::open(state)? else {
        return Ok(false);
    };
    while let Some(line) = lines.next_line()? {
        let Ok(e) = serde_json::from_str::<journal::Entry>(&line) else {
            continue;
        };
        if e.seq < seq {
            return Ok(false);
        }
        if e.seq == seq {
            return Ok(match op_id {
                Some(op) => e.op_id == op,
                None => e.command == "tx commit" && e.argv.iter().any(|a| a == id),
            });
        }
    }
    Ok(false)
}

/// Renames the tx directory away (atomic: the tx is gone), then deletes it.
fn remove_dir(state: &Path, dir: &Path, id: &str) -> io::Result<()> {
    let gone = root_dir(state).join(format!(".done-{id}"));
    let _ = std::fs::remove_dir_all(&gone);
    std::fs::rename(dir, &gone)?;
    fsx::sync_dir(&root_dir(state))?;
    let _ = std::fs::remove_dir_all(&gone);
    Ok(())
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

/// The current state at a root-relative path (no final symlink followed).
pub fn disk_state(root: &Path, rel: &str) -> io::Result<State> {
    super::undo::current(&root.join(rel))
}

/// Whether two states differ for conflict purposes (content, kind, link target, mode).
pub fn differs(want: &State, now: &State) -> bool {
    if want.kind != now.kind {
        return true;
    }
    match want.kind.as_str() {
        "file" => want.hash != now.hash || (want.mode.is_some() && want.mode != now.mode),
        "symlink" => want.target != now.target,
        _ => false,
    }
}

/// A content hash for output: a file's hash, else null.
pub fn file_hash(s: &State) -> Option<String> {
    if s.kind == "file" {
        s.hash.clone()
    } else {
        None
    }
}

impl Tx {
    /// Serializes operations on this tx.
    pub fn lock(&self, ctx: &Ctx) -> Result<Lock, CmdError> {
        lock::acquire_file(ctx, &self.dir.join("lock"), "the transaction lock")
    }

    /// Written paths whose file changed outside the tx since it first touched them.
    pub fn drift(&self, ctx: &Ctx) -> Result<Vec<Conflict>, CmdError> {
        let mut out = Vec::new();
        for (rel, e) in &self.index.paths {
            let now = disk_state(&ctx.root, rel).map_err(|er| io_err(ctx, &er))?;
            let unknown =
                if !differs(&e.base, &now) && e.base.kind == "dir" && e.staged.kind != "dir" {
                    self.unknown_entries(ctx, rel)?
                } else {
                    Vec::new()
                };
            if differs(&e.base, &now) || !unknown.is_empty() {
                out.push(Conflict {
                    path: rel.clone(),
                    kind: "write",
                    base: describe(&e.base),
                    current: describe(&now),
                    unknown_entries: unknown,
                });
            }
        }
        Ok(out)
    }

    /// Entries of the disk directory `rel` the tx has no entry for (added
    /// outside it after it staged the directory's removal), sorted.
    fn unknown_entries(&self, ctx: &Ctx, rel: &str) -> Result<Vec<String>, CmdError> {
        let rd = match std::fs::read_dir(ctx.root.join(rel)) {
            Ok(rd) => rd,
            Err(_) => return Ok(Vec::new()),
        };
        let mut out = Vec::new();
        for d in rd {
            let d = d.map_err(|er| io_err(ctx, &er))?;
            let child = format!("{rel}/{}", d.file_name().to_string_lossy());
            if !self.index.paths.contains_key(&child) {
                out.push(child);
            }
        }
        out.sort();
        Ok(out)
    }

    /// Paths read through the tx whose file changed since.
    pub fn stale_reads(&self, ctx: &Ctx) -> Result<Vec<Conflict>, CmdError> {
        let mut out = Vec::new();
        for (rel, h) in &self.reads {
            let now = disk_state(&ctx.root, rel).map_err(|er| io_err(ctx, &er))?;
            let cur = file_hash(&now);
            if cur != *h {
                out.push(Conflict {
                    path: rel.clone(),
                    kind: "read",
                    base: h.clone(),
                    current: cur,
                    unknown_entries: Vec::new(),
                });
            }
        }
        Ok(out)
    }

    fn save_ops(&self, generation: u64, ops: &[OpRecord]) -> io::Result<()> {
        let mut text = Vec::new();
        for r in ops {
            text.extend(to_json(r)?);
            text.push(b'\n');
        }
        write_atomic(&self.dir, &ops_name(generation), &text)
    }

    /// Stages one op: blobs, then the ops log, then the index (the commit point).
    /// `contents` are the bytes of every staged file state (by hash).
    pub fn stage(
        &mut self,
        ctx: &Ctx,
        command: &str,
        changes: &[EntryChange],
        contents: &BTreeMap<String, Vec<u8>>,
        looked: Vec<String>,
    ) -> Result<u64, CmdError> {
        let n = self.index.last_op + 1;
        let mut index = self.index.clone();
        let mut prior: Vec<Prior> = Vec::new();
        let mut paths: Vec<String> = Vec::new();
        let mut touch = |p: &str, index: &Index| {
            if !paths.iter().any(|q| q == p) {
                paths.push(p.to_string());
                prior.push(Prior {
                    path: p.to_string(),
                    entry: index.paths.get(p).cloned(),
                });
            }
        };
        for c in changes {
            if let Some(f) = &c.from {
                touch(f, &index);
                let base = index
                    .paths
                    .get(f)
                    .map(|e| e.base.clone())
                    .or_else(|| c.from_before.clone())
                    .unwrap_or_else(State::missing);
                index.paths.insert(
                    f.clone(),
                    PathEntry {
                        base,
                        staged: State::missing(),
                    },
                );
            }
            touch(&c.path, &index);
            let base = index
                .paths
                .get(&c.path)
                .map(|e| e.base.clone())
                .unwrap_or_else(|| c.before.clone());
            index.paths.insert(
                c.path.clone(),
                PathEntry {
                    base,
                    staged: c.after.clone(),
                },
            );
        }
        index.last_op = n;
        let record = OpRecord {
            tx_op: n,
            command: command.to_string(),
            argv: strip_tx(&ctx.argv),
            cwd: ctx.cwd.to_string_lossy().into_owned(),
            paths,
            looked,
            prior,
        };
        let done = (|| -> io::Result<()> {
            let mut wrote = false;
            for (i, (hash, bytes)) in contents.iter().enumerate() {
                let tmp = blobs::dir(&self.state).join(format!(".{}-{n}-{i}.tmp", self.id));
                wrote |=
                    blobs::store_bytes(&self.state, hash, bytes, &tmp)? != blobs::Stored::Existing;
            }
            if wrote {
                fsx::sync_dir(&blobs::dir(&self.state))?;
            }
            let mut ops = self.ops.clone();
            ops.push(record.clone());
            self.save_ops(index.generation, &ops)?;
            write_atomic(&self.dir, "index.json", &to_json(&index)?)?;
            self.ops = ops;
            Ok(())
        })();
        done.map_err(|e| io_err(ctx, &e))?;
        self.index = index;
        Ok(n)
    }

    /// Stages an op of another tx as it was (`tx rebase` keeping an op it need not
    /// re-run): `entries` are the op's resulting entries for its paths.
    pub fn copy_op(
        &mut self,
        ctx: &Ctx,
        from: &OpRecord,
        entries: Vec<(String, PathEntry)>,
    ) -> Result<u64, CmdError> {
        let n = self.index.last_op + 1;
        let mut index = self.index.clone();
        let mut prior = Vec::new();
        for (p, e) in entries {
            prior.push(Prior {
                path: p.clone(),
                entry: index.paths.get(&p).cloned(),
            });
            let base = index
                .paths
                .get(&p)
                .map(|x| x.base.clone())
                .unwrap_or(e.base);
            index.paths.insert(
                p,
                PathEntry {
                    base,
                    staged: e.staged,
                },
            );
        }
        index.last_op = n;
        let record = OpRecord {
            tx_op: n,
            command: from.command.clone(),
            argv: from.argv.clone(),
            cwd: from.cwd.clone(),
            paths: from.paths.clone(),
            looked: from.looked.clone(),
            prior,
        };
        let mut ops = self.ops.clone();
        ops.push(record);
        let done = (|| -> io::Result<()> {
            self.save_ops(index.generation, &ops)?;
            write_atomic(&self.dir, "index.json", &to_json(&index)?)
        })();
        done.map_err(|e| io_err(ctx, &e))?;
        self.index = index;
        self.ops = ops;
        Ok(n)
    }

    /// The entry `path` had right after op number `k` (index into `ops`).
    pub fn entry_after(&self, k: usize, path: &str) -> Option<PathEntry> {
        for later in self.ops.iter().skip(k + 1) {
            if let Some(p) = later.prior.iter().find(|p| p.path == path) {
                return p.entry.clone();
            }
        }
        self.index.paths.get(path).cloned()
    }

    /// Removes op `n` and every later one, restoring each path's entry from before.
    pub fn drop_from(&mut self, ctx: &Ctx, n: u64) -> Result<Vec<u64>, CmdError> {
        let mut index = self.index.clone();
        let mut dropped = Vec::new();
        for r in self.ops.iter().rev().filter(|r| r.tx_op >= n) {
            for p in &r.prior {
                match &p.entry {
                    Some(e) => {
                        index.paths.insert(p.path.clone(), e.clone());
                    }
                    None => {
                        index.paths.remove(&p.path);
                    }
                }
            }
            dropped.push(r.tx_op);
        }
        dropped.sort_unstable();
        index.last_op = n.saturating_sub(1);
        let keep: Vec<OpRecord> = self.ops.iter().filter(|r| r.tx_op < n).cloned().collect();
        let done = (|| -> io::Result<()> {
            write_atomic(&self.dir, "index.json", &to_json(&index)?)?;
            self.save_ops(index.generation, &keep)
        })();
        done.map_err(|e| io_err(ctx, &e))?;
        self.index = index;
        self.ops = keep;
        Ok(dropped)
    }

    /// Records a single-file read: the file's disk hash now (null when missing).
    pub fn record_read(&mut self, ctx: &Ctx, rel: &str) -> Result<(), CmdError> {
        let now = disk_state(&ctx.root, rel).map_err(|e| io_err(ctx, &e))?;
        let h = file_hash(&now);
        if self.reads.get(rel) == Some(&h) {
            return Ok(());
        }
        self.reads.insert(rel.to_string(), h);
        let bytes = to_json(&self.reads).map_err(|e| io_err(ctx, &e))?;
        write_atomic(&self.dir, "reads.json", &bytes).map_err(|e| io_err(ctx, &e))
    }

    /// Replaces the whole write set and ops log (rebase): a new ops generation,
    /// then the index that names it.
    pub fn replace(
        &mut self,
        ctx: &Ctx,
        paths: BTreeMap<String, PathEntry>,
        ops: Vec<OpRecord>,
    ) -> Result<(), CmdError> {
        let old = self.index.generation;
        let index = Index {
            last_op: ops.last().map(|r| r.tx_op).unwrap_or(0),
            generation: old + 1,
            paths,
        };
        let done = (|| -> io::Result<()> {
            self.save_ops(index.generation, &ops)?;
            write_atomic(&self.dir, "index.json", &to_json(&index)?)?;
            let _ = std::fs::remove_file(self.dir.join(ops_name(old)));
            Ok(())
        })();
        done.map_err(|e| io_err(ctx, &e))?;
        self.index = index;
        self.ops = ops;
        Ok(())
    }

    /// The bytes of a staged file state.
    pub fn blob(&self, hash: &str) -> io::Result<Vec<u8>> {
        blobs::read(&self.state, hash)
    }

    /// The paths whose staged state differs from the base, sorted.
    pub fn changed_paths(&self) -> Vec<String> {
        self.index
            .paths
            .iter()
            .filter(|(_, e)| e.base != e.staged)
            .map(|(p, _)| p.clone())
            .collect()
    }

    /// The changes that take the tree from the bases to the staged states:
    /// removals deepest first, then creations and modifications shallowest first.
    pub fn changes(&self, ctx: &Ctx) -> Result<Vec<Change>, CmdError> {
        let mut removals: Vec<Change> = Vec::new();
        let mut puts: Vec<Change> = Vec::new();
        let abs = |rel: &str| ctx.root.join(rel);
        for (rel, e) in &self.index.paths {
            let (b, s) = (&e.base, &e.staged);
            if b == s {
                continue;
            }
            let p = abs(rel);
            let replaces_kind = !b.is_missing() && b.kind != s.kind;
            if s.is_missing() || replaces_kind || (b.kind == "symlink" && s.kind != "symlink") {
                removals.push(Change::Delete { path: p.clone() });
            }
            match s.kind.as_str() {
                "file" => {
                    let same_bytes = b.kind == "file" && b.hash == s.hash;
                    if !same_bytes {
                        let h = s.hash.clone().unwrap_or_default();
                        let bytes = self.blob(&h).map_err(|er| io_err(ctx, &er))?;
                        puts.push(Change::Put {
                            path: p.clone(),
                            bytes,
                            mode: s.mode,
                        });
                    } else if let Some(m) = s.mode.filter(|m| Some(*m) != b.mode) {
                        puts.push(Change::Chmod {
                            path: p.clone(),
                            mode: m,
                        });
                    }
                    if let Some(t) = s.mtime.filter(|t| Some(*t) != b.mtime) {
                        puts.push(Change::Touch { path: p, mtime: t });
                    }
                }
                "dir" => {
                    if b.kind != "dir" {
                        puts.push(Change::Mkdir { path: p.clone() });
                    }
                    if let Some(m) = s.mode.filter(|m| Some(*m) != b.mode) {
                        puts.push(Change::Chmod { path: p, mode: m });
                    }
                }
                "symlink" => puts.push(Change::Symlink {
                    path: p,
                    target: s.target.clone().unwrap_or_default(),
                }),
                _ => {}
            }
        }
        // Deepest first: a child sorts after its parent, so reverse path order.
        removals.reverse();
        removals.extend(puts);
        Ok(removals)
    }
}

fn describe(s: &State) -> Option<String> {
    match s.kind.as_str() {
        "missing" => None,
        "file" | "symlink" => s.hash.clone(),
        k => Some(k.to_string()),
    }
}

/// `refusal.target-changed` for a commit with conflicts.
pub fn conflict_error(id: &str, conflicts: &[Conflict]) -> CmdError {
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

/// `tx commit`: checks the write and read sets, then writes every staged path
/// through the write protocol as one journal op and removes the tx.
/// `max_diff_lines` is the diff shown when the call gave no `--max-diff-lines`.
pub fn commit(
    ctx: &Ctx,
    id: &str,
    ignore_stale_reads: bool,
    max_diff_lines: usize,
    dry_run: bool,
) -> Result<Committed, CmdError> {
    let state = state_dir::ensure(&ctx.root).map_err(|e| io_err(ctx, &e))?;
    let _wlock = lock::acquire(ctx, &state)?;
    super::recovery::recover_locked(ctx, &state)?;
    let tx = open(ctx, id)?;
    let _tlock = tx.lock(ctx)?;
    let tx = open(ctx, id)?;
    let mut conflicts = tx.drift(ctx)?;
    if !ignore_stale_reads {
        conflicts.extend(tx.stale_reads(ctx)?);
    }
    if !conflicts.is_empty() {
        return Err(conflict_error(id, &conflicts));
    }
    let changes = tx.changes(ctx)?;
    let mut plain = ctx.clone();
    plain.tx = None;
    let more = MoreOptions {
        undoes: None,
        max_diff_lines: Some(max_diff_lines),
    };
    if dry_run {
        return write::run_with(&plain, &WriteOptions { dry_run: true }, &more, || {
            Ok(changes)
        });
    }
    // The marker names the journal op the commit will be: the command that
    // journals it may be `batch`, whose argv does not name the tx.
    let seq = journal::next_seq(&state).map_err(|e| io_err(ctx, &e))?;
    let op_id = journal::new_op_id(&state, seq);
    let marker = (|| -> io::Result<()> {
        let mut f = fsx::create_new(&tx.dir.join("committing"), 0o600)?;
        f.write_all(format!("{seq} {op_id}\n").as_bytes())?;
        f.sync_all()?;
        fsx::sync_dir(&tx.dir)
    })();
    marker.map_err(|e| io_err(ctx, &e))?;
    let done = write::run_as(
        &plain,
        &WriteOptions::default(),
        &more,
        Some(&op_id),
        || Ok(changes),
    );
    match done {
        Ok(c) => {
            remove_dir(&state, &tx.dir, id).map_err(|e| io_err(ctx, &e))?;
            super::view::forget();
            Ok(c)
        }
        Err(e) => {
            let _ = std::fs::remove_file(tx.dir.join("committing"));
            Err(e)
        }
    }
}

/// Deletes a tx directory (the scratch of a rebase).
pub fn discard(ctx: &Ctx, id: &str) -> Result<(), CmdError> {
    let state = state_dir::for_root(&ctx.root);
    let dir = root_dir(&state).join(id);
    remove_dir(&state, &dir, id).map_err(|e| io_err(ctx, &e))?;
    super::view::forget();
    Ok(())
}

/// `tx abort`: deletes the tx; returns the paths it had staged.
pub fn abort(ctx: &Ctx, id: &str) -> Result<Vec<String>, CmdError> {
    let state = state_dir::ensure(&ctx.root).map_err(|e| io_err(ctx, &e))?;
    let _wlock = lock::acquire(ctx, &state)?;
    let tx = open(ctx, id)?;
    let _tlock = tx.lock(ctx)?;
    let paths = tx.changed_paths();
    remove_dir(&state, &tx.dir, id).map_err(|e| io_err(ctx, &e))?;
    super::view::forget();
    Ok(paths)
}

#[cfg(test)]
mod tests {
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
