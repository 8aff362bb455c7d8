//! The view every read and write validation goes through: a path's state and bytes
//! as the command should see them. Without `--tx` that is the disk (one branch, no
//! extra cost); with `--tx <tx>` it is the tx's staged state where the tx has one,
//! else the disk. Single-file reads record the file's disk hash in the tx's read
//! set (`record_read`); scans get the tx's changes as a `scan::Overlay`.
//!
//! Paths are keyed in a tx by their root-relative real path (existing ancestors'
//! symlinks resolved), the form the write protocol records.
//!
//! Layout: the types (`Files`, `Kind`, `Stat`, `Source`); `Files`' reads (stat,
//! exists, load, current_hash, list_dir); `Files`' dealings with the tx behind
//! the view (read set, overlay, removed paths, forgetting a stale load); then
//! the functions they share (the loaded tx, tx keys, the tx's verdict on a path).

use super::error::{StoreError, path_io};
use super::journal::State;
use super::snapshot::Snapshot;
use super::tx::{self, Tx};
use crate::workspace::scan::{Overlay, OverlayNode};
use crate::workspace::{Ctx, paths};
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// A handler's way to the workspace's files, in the view its `--tx` sets
/// (`ctx.files()`); the view's reads are its methods, the rest of the handle
/// (`find`, `disk`, `OwnDir`) is in `store::files`.
#[derive(Clone, Copy)]
pub struct Files<'a> {
    pub(super) ctx: &'a Ctx,
}

/// What a path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Missing,
    File,
    Dir,
    Symlink,
    Other,
}

/// A path's state in the view.
#[derive(Debug, Clone)]
pub struct Stat {
    pub kind: Kind,
    /// Bytes of a file (0 otherwise).
    pub len: u64,
    pub mode: u32,
    /// The tx's staged state, when the tx decides this path.
    pub staged: Option<State>,
}

/// Where a command that reads a file by path should read `abs` from.
#[derive(Debug, Clone)]
pub enum Source {
    /// The disk decides: read `abs` itself.
    Disk,
    /// Open this path instead: the blob of a file the tx staged, or the file on
    /// disk a symlink the tx staged leads to.
    Staged(PathBuf),
    /// The tx removed it.
    Missing,
    /// The tx made it a directory (`dir`) or a symlink.
    NotFile { dir: bool },
}

/// The view's reads: what a path is and what it holds, as the command should
/// see it (the tx's staged state where `--tx` names one, else the disk).
impl Files<'_> {
    /// What `abs` is in the view (`follow`: a final symlink is followed, as `stat`).
    pub fn stat(&self, abs: &Path, follow: bool) -> Result<Stat, Box<StoreError>> {
        let ctx = self.ctx;
        let io = io_at(ctx, abs);
        if let Some(t) = active(ctx)?
            && let Some(rel) = tx_key(ctx, &t, abs, follow)
        {
            seen(ctx, &rel);
            if let Some(s) = decide(&t, &rel) {
                let mut st = from_state(&s);
                if st.kind == Kind::File {
                    let h = s.hash.clone().unwrap_or_default();
                    st.len = t.blob_path(&h).metadata().map(|m| m.len()).map_err(io)?;
                }
                return Ok(st);
            }
        }
        disk_stat(abs, follow).map_err(io)
    }

    /// `abs` (typed as `arg`) as a regular file within the whole-file budget, as a
    /// command that loads a document whole (json, nb, table) needs it: its display path.
    pub fn whole_regular(&self, arg: &str, abs: &Path) -> Result<String, Box<StoreError>> {
        let ctx = self.ctx;
        let display = ctx.display_path(abs);
        let meta = self.stat(abs, true)?;
        match meta.kind {
            Kind::File => {}
            Kind::Missing => {
                let e = std::io::Error::from(std::io::ErrorKind::NotFound);
                let offer = crate::workspace::candidates::Offer::Look;
                return Err(crate::workspace::candidates::not_found_or_io(
                    ctx, arg, abs, &e, offer,
                )
                .into());
            }
            _ => return Err(Box::new(StoreError::NotAFile { rel: display })),
        }
        crate::workspace::input::whole_file_budget(&display, meta.len)?;
        Ok(display)
    }

    /// Whether anything (a dangling symlink too) is at `abs` in the view.
    pub fn exists(&self, abs: &Path) -> Result<bool, Box<StoreError>> {
        Ok(self.stat(abs, false)?.kind != Kind::Missing)
    }

    /// The bytes, hash and mode of the file at the real path `abs` (resolved and
    /// checked by the caller, or listed by a walk), in the view: a symlink met on
    /// the disk's path was swapped in since, and is refused (`ELOOP`, shown as
    /// `refusal.target-changed`), never followed.
    pub fn load(&self, abs: &Path) -> Result<Arc<Snapshot>, Box<StoreError>> {
        self.load_in(abs, false)
    }

    /// The file a write rewrites whole (json, nb, table), as `load` reads it at
    /// its real path, resolved now and refused outside the workspace (the
    /// boundary's answer). Not `load_follow`: a parent directory swapped for a
    /// symlink since the write's boundary check would lead it to a file outside,
    /// whose bytes the new content (and the answer's diff) would carry in.
    pub fn load_target(&self, abs: &Path) -> Result<Arc<Snapshot>, Box<StoreError>> {
        use crate::workspace::boundary::{Final, resolve};
        self.load(&resolve(self.ctx, abs, Final::Follow)?)
    }

    /// `load` of a path as the user gave it (a read's, a diff's), which may lead
    /// through symlinks on purpose: they are followed.
    pub fn load_follow(&self, abs: &Path) -> Result<Arc<Snapshot>, Box<StoreError>> {
        self.load_in(abs, true)
    }

    fn load_in(&self, abs: &Path, follow: bool) -> Result<Arc<Snapshot>, Box<StoreError>> {
        let ctx = self.ctx;
        let load = |p: &Path| {
            if follow {
                ctx.session.snapshots.load_follow(p)
            } else {
                ctx.session.snapshots.load(p)
            }
        };
        let io = io_at(ctx, abs);
        if let Some(t) = active(ctx)?
            && let Some(rel) = tx_key(ctx, &t, abs, true)
        {
            seen(ctx, &rel);
            if let Some(s) = decide(&t, &rel) {
                if s.kind != "file" {
                    let e = if s.is_missing() {
                        io::Error::from(io::ErrorKind::NotFound)
                    } else {
                        io::Error::other("not a regular file")
                    };
                    return Err(io(e));
                }
                let hash = s.hash.clone().unwrap_or_default();
                let bytes = t.blob(&hash).map_err(io)?;
                return Ok(Arc::new(Snapshot {
                    bytes,
                    hash,
                    midstates: Vec::new(),
                    mode: s.mode.unwrap_or(0o644),
                    mtime: s.mtime.unwrap_or(0),
                    stamp: Default::default(),
                }));
            }
            if key(ctx, abs, true).as_deref() != Some(rel.as_str()) {
                return load(&ctx.root.join(&rel)).map_err(io);
            }
        }
        load(abs).map_err(io)
    }

    /// The hash `--expect-hash` compares, in the view: the file the path leads to,
    /// else a symlink's target text; `None` when nothing is there.
    pub fn current_hash(&self, abs: &Path) -> Result<Option<String>, Box<StoreError>> {
        let ctx = self.ctx;
        if ctx.tx.is_none() {
            return super::current::hash(&ctx.session, abs).map_err(|e| path_io(ctx, abs, e));
        }
        let entry = self.stat(abs, false)?;
        match entry.kind {
            Kind::Missing | Kind::Dir | Kind::Other => Ok(None),
            Kind::File => Ok(Some(self.load_follow(abs)?.hash.clone())),
            Kind::Symlink => {
                let followed = self.stat(abs, true)?;
                if followed.kind == Kind::File {
                    return Ok(Some(self.load_follow(abs)?.hash.clone()));
                }
                let target = match entry.staged.and_then(|s| s.target) {
                    Some(t) => t,
                    None => std::fs::read_link(abs)
                        .map(|t| t.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                };
                Ok(Some(crate::text::lines::sha256_hex(target.as_bytes())))
            }
        }
    }

    /// The entries of directory `abs` in the view (name order): the disk's, minus
    /// what the tx removed, plus what it added.
    pub fn list_dir(&self, abs: &Path) -> Result<Vec<(PathBuf, Kind)>, Box<StoreError>> {
        let ctx = self.ctx;
        let io = io_at(ctx, abs);
        let mut out: std::collections::BTreeMap<PathBuf, Kind> = std::collections::BTreeMap::new();
        if let Ok(rd) = std::fs::read_dir(abs) {
            for e in rd {
                let e = e.map_err(io)?;
                let p = e.path();
                let k = self.stat(&p, false)?.kind;
                if k != Kind::Missing {
                    out.insert(p, k);
                }
            }
        }
        if let Some(t) = active(ctx)?
            && let Some(dir_rel) = key(ctx, abs, true)
        {
            for (rel, e) in &t.index.paths {
                let p = Path::new(rel);
                if p.parent().map(|x| x.to_string_lossy().into_owned()) != Some(dir_rel.clone()) {
                    continue;
                }
                let st = from_state(&e.staged);
                let full = ctx.root.join(rel);
                if st.kind == Kind::Missing {
                    out.remove(&abs.join(p.file_name().unwrap_or_default()));
                    out.remove(&full);
                } else {
                    out.insert(abs.join(p.file_name().unwrap_or_default()), st.kind);
                }
            }
        }
        Ok(out.into_iter().collect())
    }
}

/// The tx behind the view: its read set, its changes as a scan's overlay,
/// what it removed, and forgetting a load a tx op made stale.
impl Files<'_> {
    /// A single-file read with `--tx`: records the file's disk hash in the read set.
    pub fn record_read(&self, abs: &Path) -> Result<(), Box<StoreError>> {
        let ctx = self.ctx;
        let Some(id) = &ctx.tx else {
            return Ok(());
        };
        let Some(rel) = active(ctx)?.and_then(|t| tx_key(ctx, &t, abs, true)) else {
            return Ok(());
        };
        tx::record_read(ctx, id, &rel)
    }

    /// The tx's changes for a scan (`None` without `--tx`).
    pub fn overlay(&self) -> Result<Option<Arc<Overlay>>, Box<StoreError>> {
        let ctx = self.ctx;
        let Some(t) = active(ctx)? else {
            return Ok(None);
        };
        let mut o = Overlay::default();
        for (rel, e) in &t.index.paths {
            let s = &e.staged;
            let node = match s.kind.as_str() {
                "file" => {
                    let h = s.hash.clone().unwrap_or_default();
                    let bytes = t
                        .blob(&h)
                        .map_err(|er| super::io_fault(ctx, "a staged file", &er))?;
                    OverlayNode::File {
                        bytes: Arc::new(bytes),
                        mode: s.mode.unwrap_or(0o644),
                    }
                }
                "dir" => OverlayNode::Dir,
                "symlink" => OverlayNode::Symlink,
                _ => OverlayNode::Missing,
            };
            o.nodes.insert(ctx.root.join(rel), node);
        }
        Ok(Some(Arc::new(o)))
    }

    /// The answer for a path the tx removed (`Source::Missing`, a missing `stat`):
    /// which op removed it, and for a move where it went, instead of a "nearest
    /// path" that is the same name (still on disk) and loops.
    pub fn removed_error(&self, arg: &str, abs: &Path) -> Box<StoreError> {
        let ctx = self.ctx;
        let id = ctx.tx.clone().unwrap_or_default();
        let t = match active(ctx) {
            Ok(t) => t,
            Err(e) => return e,
        };
        let found = t.as_ref().and_then(|t| {
            let rel = tx_key(ctx, t, abs, true)?;
            let op = t.ops.iter().rev().find(|op| {
                op.paths
                    .iter()
                    .any(|p| Path::new(&rel).starts_with(p.as_str()))
            })?;
            let to = op.moves.then(|| moved_to(t, op, &rel)).flatten();
            Some((op.clone(), to))
        });
        let arg = arg.to_string();
        let Some((op, to)) = found else {
            return Box::new(StoreError::NotInTx { arg, id });
        };
        let Some(to) = to else {
            return Box::new(StoreError::RemovedInTx {
                arg,
                id,
                op: op.tx_op,
                op_argv: op.argv,
            });
        };
        let new_abs = ctx.root.join(&to);
        let as_arg = match new_abs.strip_prefix(&ctx.cwd) {
            Ok(r) => r.to_string_lossy().into_owned(),
            Err(_) => new_abs.to_string_lossy().into_owned(),
        };
        let retry = crate::workspace::candidates::same_argv_on(&ctx.argv, &arg, &as_arg);
        Box::new(StoreError::MovedInTx {
            arg,
            id,
            to,
            op: op.tx_op,
            op_argv: op.argv,
            as_arg,
            retry,
        })
    }

    /// Forgets the loaded tx (after a tx op changed it).
    pub fn forget(&self) {
        let ctx = self.ctx;
        ctx.session.forget_tx();
    }
}

/// Starts collecting the paths looked at through the view.
pub fn track(ctx: &Ctx) {
    if let Ok(mut s) = ctx.session.seen.lock() {
        *s = Some(std::collections::BTreeSet::new());
    }
}

/// Stops collecting; the paths looked at since `track`, sorted.
pub fn tracked(ctx: &Ctx) -> Vec<String> {
    ctx.session
        .seen
        .lock()
        .ok()
        .and_then(|mut s| s.take())
        .map(|s| s.into_iter().collect())
        .unwrap_or_default()
}

fn seen(ctx: &Ctx, rel: &str) {
    if let Ok(mut s) = ctx.session.seen.lock()
        && let Some(set) = s.as_mut()
    {
        set.insert(rel.to_string());
    }
}

/// The tx named by `--tx`, loaded (and cached while its index and ops log are
/// as that load read them).
pub fn active(ctx: &Ctx) -> Result<Option<Arc<Tx>>, Box<StoreError>> {
    let Some(id) = &ctx.tx else {
        return Ok(None);
    };
    if ctx.session.tx_pinned.load(Ordering::Acquire)
        && let Ok(c) = ctx.session.tx.lock()
        && let Some((ck, t)) = c.as_ref()
        && &ck.0 == id
    {
        return Ok(Some(t.clone()));
    }
    let state = super::state_dir::for_root(&ctx.root);
    let index = tx::home(ctx, &state).join(id).join("index.json");
    let key = std::fs::metadata(&index)
        .ok()
        .filter(|_| tx::is_tx_id(id))
        .map(|m| (id.clone(), m.ino(), m.size(), m.mtime(), m.mtime_nsec()));
    if let (Some(k), Ok(c)) = (&key, ctx.session.tx.lock())
        && let Some((ck, t)) = c.as_ref()
        && ck == k
        && t.ops_unchanged()
    {
        return Ok(Some(t.clone()));
    }
    let t = Arc::new(tx::open(ctx, id)?);
    install(ctx, t.clone());
    Ok(Some(t))
}

/// Takes the loaded tx as it is, without checking its files, until the returned
/// guard drops. For a staging op, which loads the tx under the tx's lock and
/// holds that lock until it ends (every change to a tx's files is made under
/// it), and whose own changes install or forget the load: its view reads then
/// cost no `statx` of the index and the ops log each (they were ~13 an op).
pub fn pin(ctx: &Ctx) -> Pinned<'_> {
    ctx.session.tx_pinned.store(true, Ordering::Release);
    Pinned(ctx)
}

/// The trust `pin` gives, ended when dropped (before the lock it relies on).
pub struct Pinned<'a>(&'a Ctx);

impl Drop for Pinned<'_> {
    fn drop(&mut self) {
        self.0.session.tx_pinned.store(false, Ordering::Release);
    }
}

/// Makes `t` the loaded tx the view reads (keyed by the files as `t` read them).
pub fn install(ctx: &Ctx, t: Arc<Tx>) {
    let s = t.stamp.index;
    let key = (t.id.clone(), s.ino, s.size, s.mtime, s.nsec);
    if let Ok(mut c) = ctx.session.tx.lock() {
        *c = Some((key, t));
    }
}

/// The root-relative key of `abs` (final symlink followed when `follow`), or
/// `None` outside the root.
pub fn key(ctx: &Ctx, abs: &Path, follow: bool) -> Option<String> {
    let norm = paths::normalize(abs);
    let real = if follow {
        paths::real_path(ctx.dirs(), &norm)
    } else {
        match (norm.parent(), norm.file_name()) {
            (Some(parent), Some(name)) => paths::real_path(ctx.dirs(), parent).join(name),
            _ => norm.clone(),
        }
    };
    let rel = real.strip_prefix(&ctx.root).ok()?;
    let s = rel.to_string_lossy().into_owned();
    (!s.is_empty()).then_some(s)
}

/// `key` in the tx's view: with `follow`, a final symlink the tx staged is
/// followed too, so a link made in the tx leads where it will after the commit.
fn tx_key(ctx: &Ctx, t: &Tx, abs: &Path, follow: bool) -> Option<String> {
    let mut rel = key(ctx, abs, follow)?;
    if !follow {
        return Some(rel);
    }
    // The kernel's bound on symlink hops (ELOOP).
    for _ in 0..40 {
        let Some(target) = decide(t, &rel)
            .filter(|s| s.kind == "symlink")
            .and_then(|s| s.target)
        else {
            return Some(rel);
        };
        let at = ctx.root.join(&rel);
        rel = key(ctx, &at.parent()?.join(target), true)?;
    }
    Some(rel)
}

/// The tx's decision for `rel`: its staged state, or missing when an ancestor is
/// staged as anything but a directory; `None` when the disk decides.
pub fn decide(t: &Tx, rel: &str) -> Option<State> {
    if let Some(e) = t.index.paths.entry(rel) {
        return Some(e.staged);
    }
    let mut cur = Path::new(rel);
    while let Some(parent) = cur.parent() {
        if parent.as_os_str().is_empty() {
            break;
        }
        if let Some(e) = t.index.paths.entry(&parent.to_string_lossy())
            && e.staged.kind != "dir"
        {
            return Some(State::missing());
        }
        cur = parent;
    }
    None
}

fn from_state(s: &State) -> Stat {
    let kind = match s.kind.as_str() {
        "missing" => Kind::Missing,
        "file" => Kind::File,
        "dir" => Kind::Dir,
        "symlink" => Kind::Symlink,
        _ => Kind::Other,
    };
    Stat {
        kind,
        len: 0,
        mode: s.mode.unwrap_or(0),
        staged: Some(s.clone()),
    }
}

fn disk_stat(abs: &Path, follow: bool) -> io::Result<Stat> {
    let m = if follow {
        std::fs::metadata(abs)
    } else {
        std::fs::symlink_metadata(abs)
    };
    let m = match m {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok(Stat {
                kind: Kind::Missing,
                len: 0,
                mode: 0,
                staged: None,
            });
        }
        Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => {
            return Ok(Stat {
                kind: Kind::Missing,
                len: 0,
                mode: 0,
                staged: None,
            });
        }
        Err(e) => return Err(e),
    };
    let ft = m.file_type();
    let kind = if ft.is_file() {
        Kind::File
    } else if ft.is_dir() {
        Kind::Dir
    } else if ft.is_symlink() {
        Kind::Symlink
    } else {
        Kind::Other
    };
    Ok(Stat {
        kind,
        len: m.len(),
        mode: m.mode() & 0o7777,
        staged: None,
    })
}

/// The error of an I/O failure on `abs`, as the command reports it.
fn io_at<'a>(ctx: &'a Ctx, abs: &'a Path) -> impl Fn(io::Error) -> Box<StoreError> + Copy + 'a {
    move |e| path_io(ctx, abs, e)
}

/// The file to open for `abs` in the view (a final symlink followed). Commands
/// that open files by path (read's views, info's statistics) open the blob of a
/// staged file instead of `abs`, and keep showing `abs`.
pub fn source(ctx: &Ctx, abs: &Path) -> Result<Source, Box<StoreError>> {
    let Some(t) = active(ctx)? else {
        return Ok(Source::Disk);
    };
    let Some(rel) = tx_key(ctx, &t, abs, true) else {
        return Ok(Source::Disk);
    };
    seen(ctx, &rel);
    Ok(match decide(&t, &rel) {
        None if key(ctx, abs, true).as_deref() != Some(rel.as_str()) => {
            Source::Staged(ctx.root.join(&rel))
        }
        None => Source::Disk,
        Some(s) => match s.kind.as_str() {
            "file" => Source::Staged(t.blob_path(s.hash.as_deref().unwrap_or_default())),
            "missing" => Source::Missing,
            "dir" => Source::NotFile { dir: true },
            _ => Source::NotFile { dir: false },
        },
    })
}

/// Where a `move` op took `rel` (root-relative), from the tx's index: the op's
/// removed and added top-level paths pair up by count or by name.
fn moved_to(t: &Tx, op: &tx::OpRecord, rel: &str) -> Option<String> {
    let staged_missing = |p: &str| t.index.paths.entry(p).map(|e| e.staged.is_missing());
    let tops = |want_missing: bool| -> Vec<&String> {
        let set: Vec<&String> = op
            .paths
            .iter()
            .filter(|p| staged_missing(p) == Some(want_missing))
            .collect();
        set.iter()
            .filter(|p| {
                !set.iter()
                    .any(|q| q != *p && Path::new(p.as_str()).starts_with(q.as_str()))
            })
            .copied()
            .collect()
    };
    let from = tops(true)
        .into_iter()
        .find(|s| Path::new(rel).starts_with(s.as_str()))?;
    let added = tops(false);
    let to = match added.as_slice() {
        [one] => *one,
        many => many
            .iter()
            .find(|d| Path::new(d.as_str()).file_name() == Path::new(from.as_str()).file_name())
            .copied()?,
    };
    let rest = Path::new(rel).strip_prefix(from.as_str()).ok()?;
    if rest.as_os_str().is_empty() {
        return Some(to.clone());
    }
    Some(Path::new(to).join(rest).to_string_lossy().into_owned())
}
