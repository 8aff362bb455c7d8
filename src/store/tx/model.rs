//! The tx's records as stored (`meta.json`, `index.json`, the ops log) and an
//! open tx as loaded: data only, so the session can hold a loaded tx.

use crate::store::journal::State;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where the workspace's transactions live: `<state>/tx/`.
pub fn root_dir(state: &Path) -> PathBuf {
    state.join("tx")
}

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

/// A path's index entry before an op (`None`: the tx had not touched it), or
/// after it (`OpRecord::after`, always `Some`).
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
    /// The op moved paths (a `Change::Move`): where a path it removed went is
    /// found by pairing its removed and added paths.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub moves: bool,
    /// Each of `paths`' index entry after the op: what loading replays onto
    /// `index.json` for the ops appended after it was written (`None` in records
    /// written before the ops log was appended to, which are never replayed).
    /// (A list, not a map: a map per record costs a tree node per record to load.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Vec<Prior>>,
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
    /// The identity of the files as loaded: whether a cached load is current, and
    /// where the ops log's whole records end.
    pub stamp: Stamp,
}

/// A file's identity and size as read (inode, size, mtime).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FileId {
    pub ino: u64,
    pub size: u64,
    pub mtime: i64,
    pub nsec: i64,
}

impl FileId {
    pub fn of(m: &std::fs::Metadata) -> FileId {
        use std::os::unix::fs::MetadataExt;
        FileId {
            ino: m.ino(),
            size: m.size(),
            mtime: m.mtime(),
            nsec: m.mtime_nsec(),
        }
    }
}

/// What a load read: `index.json`, the ops log (`None`: none yet), and the end
/// of the log's last record taken (a torn record a killed append left is cut
/// there before the next append).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stamp {
    pub index: FileId,
    pub ops: Option<FileId>,
    pub ops_valid: u64,
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
