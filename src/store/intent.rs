//! Intent records (`commit/<op_id>.intent`): the first line names everything an op
//! will do — its temp files, blob temp files, blob hard links, the ordered apply
//! steps and its journal entry — and is fsynced before any temp file exists; the
//! second line, the SHA-256 of the first, is the commit point. Every step is
//! idempotent, so rolling a complete record forward twice is harmless.

use super::beneath::{self, Tree};
use super::fsx;
use super::journal::Entry;
use crate::text::lines::sha256_hex;
use serde::{Deserialize, Serialize};
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// One apply step. Identity checks (`dev`/`ino`) make re-running a step that already
/// happened a no-op even when a later step reused the path.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum Step {
    /// Create a directory (an existing one is fine), then set its mode.
    Mkdir { path: PathBuf, mode: Option<u32> },
    /// Rename a prepared temp file (or temp symlink) onto its target.
    Rename { tmp: PathBuf, to: PathBuf },
    /// Rename `from` (the entry with this identity) to `to`.
    Move {
        from: PathBuf,
        to: PathBuf,
        dev: u64,
        ino: u64,
    },
    /// Remove the file or symlink with this identity.
    Unlink { path: PathBuf, dev: u64, ino: u64 },
    /// Remove the empty directory with this identity.
    Rmdir { path: PathBuf, dev: u64, ino: u64 },
    /// Set permission bits (the path is the real path the plan resolved; a
    /// symlink found there now is refused, not followed).
    Chmod { path: PathBuf, mode: u32 },
    /// Set the modification time (as `Chmod`, never through a symlink).
    Utime { path: PathBuf, mtime: i64 },
}

/// The first line of an intent record.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Intent {
    pub op_id: String,
    /// Temp files in the tree, created after this line is durable.
    pub temps: Vec<PathBuf>,
    /// Temp files in `blobs/`.
    pub blob_tmps: Vec<PathBuf>,
    /// Blobs that may be hard links to tree files (undone on discard).
    pub links: Vec<PathBuf>,
    pub steps: Vec<Step>,
    /// Directories to fsync after the steps.
    pub sync_dirs: Vec<PathBuf>,
    pub entry: Entry,
}

pub fn dir(state: &Path) -> PathBuf {
    state.join("commit")
}

pub fn record_path(state: &Path, op_id: &str) -> PathBuf {
    dir(state).join(format!("{op_id}.intent"))
}

/// Creates the record with its first line and makes it durable (file and directory).
pub fn write_first_line(state: &Path, intent: &Intent) -> io::Result<std::fs::File> {
    let line = serde_json::to_string(intent).map_err(io::Error::other)?;
    let path = record_path(state, &intent.op_id);
    let mut f = fsx::create_new(&path, 0o600)?;
    f.write_all(line.as_bytes())?;
    f.write_all(b"\n")?;
    f.sync_data()?;
    fsx::sync_dir(&dir(state))?;
    Ok(f)
}

/// Appends the checksum line and fsyncs: the commit point.
pub fn write_commit_line(f: &mut std::fs::File, intent: &Intent) -> io::Result<()> {
    let line = serde_json::to_string(intent).map_err(io::Error::other)?;
    f.write_all(format!("{}\n", sha256_hex(line.as_bytes())).as_bytes())?;
    f.sync_data()
}

/// A record read back: its intent when the first line parses, and whether the
/// checksum line makes it complete.
pub struct Record {
    pub path: PathBuf,
    pub op_id: String,
    pub intent: Option<Intent>,
    pub complete: bool,
}

pub fn read_record(path: &Path) -> io::Result<Record> {
    let bytes = std::fs::read(path)?;
    let op_id = path
        .file_name()
        .map(|n| n.to_string_lossy().trim_end_matches(".intent").to_string())
        .unwrap_or_default();
    let mut parts = bytes.splitn(3, |b| *b == b'\n');
    let first = parts.next().unwrap_or_default();
    let second = parts.next();
    let intent: Option<Intent> = serde_json::from_slice(first).ok();
    let complete = intent.is_some()
        && second.is_some_and(|s| {
            let want = sha256_hex(first);
            s == want.as_bytes()
        })
        && bytes.len() > first.len() + 1 + 64;
    Ok(Record {
        path: path.to_path_buf(),
        op_id,
        intent,
        complete,
    })
}

fn ignore_missing(r: io::Result<()>) -> io::Result<()> {
    match r {
        Err(e) if beneath::is_absent(&e) => Ok(()),
        other => other,
    }
}

/// Runs one step, acting beneath the workspace root `tree`; a step whose effect is
/// already there does nothing. `links` are the op's blobs that may share an inode
/// with a tree file (they do not count as other names of it).
pub fn apply(tree: &Tree, step: &Step, links: &[PathBuf]) -> io::Result<()> {
    let accounted = |dev: u64, ino: u64| -> u64 {
        links
            .iter()
            .filter(|l| fsx::identity(l) == Some((dev, ino)))
            .count() as u64
    };
    match step {
        Step::Mkdir { path, mode } => {
            tree.mkdir(path)?;
            if let Some(m) = mode {
                tree.set_mode(path, *m, &accounted)?;
            }
            Ok(())
        }
        Step::Rename { tmp, to } => {
            if tree.lstat(tmp)?.is_some() {
                tree.rename(tmp, to)?;
            }
            Ok(())
        }
        Step::Move { from, to, dev, ino } => {
            tree.rename_if(from, (*dev, *ino), to)?;
            Ok(())
        }
        Step::Unlink { path, dev, ino } => tree.remove_if(path, (*dev, *ino), false),
        Step::Rmdir { path, dev, ino } => tree.remove_if(path, (*dev, *ino), true),
        Step::Chmod { path, mode } => tree.set_mode(path, *mode, &accounted),
        Step::Utime { path, mtime } => tree.set_mtime(path, *mtime, &accounted),
    }
}

/// Applies every step beneath `root`, then fsyncs the directories they touched.
pub fn apply_all(root: &Path, intent: &Intent) -> io::Result<()> {
    let tree = Tree::open(root)?;
    for s in &intent.steps {
        apply(&tree, s, &intent.links)?;
    }
    for d in &intent.sync_dirs {
        ignore_missing(tree.sync_dir(d))?;
    }
    Ok(())
}

/// Undoes the preparation of an op that never reached its commit point: removes
/// its temp files (beneath `root`) and blob temps, and blob links that still share
/// a tree file.
pub fn discard(root: &Path, intent: &Intent) -> io::Result<()> {
    if !intent.temps.is_empty() {
        let tree = Tree::open(root)?;
        for t in &intent.temps {
            tree.remove_file(t)?;
        }
    }
    for t in &intent.blob_tmps {
        ignore_missing(std::fs::remove_file(t))?;
    }
    for l in &intent.links {
        if std::fs::symlink_metadata(l).is_ok_and(|m| m.nlink() > 1) {
            ignore_missing(std::fs::remove_file(l))?;
        }
    }
    Ok(())
}
