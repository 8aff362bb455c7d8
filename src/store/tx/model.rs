//! The tx's records as stored (`meta.json`, `index.json`, the ops log) and an
//! open tx as loaded: data only, so the session can hold a loaded tx.

use crate::store::journal::State;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

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
    /// Begun with `--review`: commit waits for an operator's approval (`review`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub review: bool,
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
    pub paths: Paths,
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
    /// Each of `paths`' index entry after the op: what loading replays onto
    /// `index.json` for the ops appended after it was written (`None` in records
    /// written before the ops log was appended to, which are never replayed).
    /// (A list, not a map: a map per record costs a tree node per record to load.)
    /// Written second, right after `tx_op`, so a load can tell a record that
    /// carries it from its first bytes (see [`Log`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Vec<Prior>>,
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
    pub ops: Ops,
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
    /// A whole line of the log that is not a record (no kill leaves one: a kill
    /// leaves a torn last line): its number (from 1) and the op it would be.
    /// The records from there on are not taken, and the tx is not staged into
    /// or committed until `tx drop` or `tx abort` (`Tx::check_log`).
    pub unreadable: Option<(usize, u64)>,
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

/// The ops log as a load read it, kept as text: a staged op needs only the
/// entries of the few paths it looks at, so the records are not parsed when
/// loaded (that cost grew with every op of the tx); a path's entry is looked up
/// in the records that name it, and the whole records are parsed on first use.
#[derive(Debug, Default)]
pub struct Log {
    text: Vec<u8>,
    /// The records the load took, in order (each line without its newline).
    lines: Vec<Range<usize>>,
    /// Those replayed onto `index.json` (past its `last_op`), in `tx_op` order.
    replay: Vec<Range<usize>>,
    /// The paths looked up so far (a view asks for the same few many times).
    found: std::sync::Mutex<std::collections::HashMap<String, Option<Option<PathEntry>>>>,
}

/// What a load takes of an ops log without parsing it (see [`Log::skim`]).
pub struct Skimmed {
    pub log: Arc<Log>,
    pub last_op: u64,
    /// The end of the last record taken.
    pub valid: usize,
}

/// The `tx_op` a record line starts with and where its `after` list starts
/// (`None`: the line goes on with `command`, as an older build's records did
/// or a record without `after` does); `None` outside: not a line this build
/// writes.
fn head(line: &[u8]) -> Option<(u64, Option<usize>)> {
    const TX_OP: &[u8] = b"{\"tx_op\":";
    const AFTER: &[u8] = b",\"after\":";
    let rest = line.strip_prefix(TX_OP)?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 19 || !line.ends_with(b"}") {
        return None;
    }
    let n = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
    let rest = &rest[digits..];
    if rest.starts_with(AFTER) && rest.get(AFTER.len()) == Some(&b'[') {
        Some((n, Some(TX_OP.len() + digits + AFTER.len())))
    } else if rest.starts_with(b",\"command\":") {
        Some((n, None))
    } else {
        None
    }
}

/// Where the `after` list that starts at `start` in `line` (a record this build
/// wrote) ends, past its `]`: at the first `],"command":`, which nothing inside
/// the list can hold (a `"` in a JSON string is escaped, and a string's
/// closing quote is followed by `,`, `:`, `}` or `]`).
fn after_end(line: &[u8], start: usize) -> Option<usize> {
    let at = memchr::memmem::find(line.get(start..)?, b"],\"command\":")?;
    Some(start + at + 1)
}

impl Log {
    /// The records of `text` a load takes, as `replay` would, from each line's
    /// first bytes only: whole lines, the records up to `last_op` (those
    /// `index.json` includes), then each next op that carries its `after`.
    /// The text back when a line is not one this build writes (an older log,
    /// or not a record): the caller replays it whole.
    pub fn skim(text: Vec<u8>, mut last_op: u64) -> Result<Skimmed, Vec<u8>> {
        let (mut lines, mut replay) = (Vec::new(), Vec::new());
        let (mut pos, mut valid) = (0usize, 0usize);
        while let Some(nl) = memchr::memchr(b'\n', &text[pos..]) {
            let (line, end) = (pos..pos + nl, pos + nl + 1);
            pos = end;
            let Some((n, after)) = head(&text[line.clone()]) else {
                return Err(text);
            };
            if n > last_op {
                if after.is_none() {
                    // Its `after`, if any, is further in (an older build's record).
                    return Err(text);
                }
                if n != last_op + 1 {
                    continue;
                }
                replay.push(line.clone());
                last_op = n;
            }
            lines.push(line);
            valid = end;
        }
        let log = Log {
            text,
            lines,
            replay,
            ..Log::default()
        };
        Ok(Skimmed {
            log: Arc::new(log),
            last_op,
            valid,
        })
    }

    fn record(&self, line: &Range<usize>) -> Option<OpRecord> {
        serde_json::from_slice(self.text.get(line.clone())?).ok()
    }

    /// `path`'s entry after the last replayed record whose `after` names it
    /// (`Some(None)`: that record removed it from the write set); `None` when
    /// none does. Only the `after` lists whose text holds the path's JSON
    /// string are parsed.
    fn lookup(&self, path: &str) -> Option<Option<PathEntry>> {
        if let Ok(found) = self.found.lock()
            && let Some(e) = found.get(path)
        {
            return e.clone();
        }
        let e = self.search(path);
        if let Ok(mut found) = self.found.lock() {
            found.insert(path.to_string(), e.clone());
        }
        e
    }

    fn search(&self, path: &str) -> Option<Option<PathEntry>> {
        let needle = serde_json::to_vec(path).ok()?;
        let finder = memchr::memmem::Finder::new(&needle);
        for line in self.replay.iter().rev() {
            let Some(text) = self.text.get(line.clone()) else {
                continue;
            };
            let Some(at) = finder.find(text) else {
                continue;
            };
            let after = match head(text).and_then(|(_, s)| Some((s?, after_end(text, s?)?))) {
                // Named elsewhere in the record only (its `looked`, its argv).
                Some((_, end)) if at >= end => continue,
                Some((start, end)) => serde_json::from_slice::<Vec<Prior>>(&text[start..end]).ok(),
                None => self.record(line).and_then(|r| r.after),
            };
            if let Some(a) = after
                .unwrap_or_default()
                .into_iter()
                .rev()
                .find(|a| a.path == path)
            {
                return Some(a.entry);
            }
        }
        None
    }

    /// Every replayed record's `after` applied to `map`, in order.
    fn replay_onto(&self, map: &mut BTreeMap<String, PathEntry>) {
        for line in &self.replay {
            for a in self.record(line).and_then(|r| r.after).unwrap_or_default() {
                set(map, a.path, a.entry);
            }
        }
    }
}

fn set(map: &mut BTreeMap<String, PathEntry>, path: String, entry: Option<PathEntry>) {
    match entry {
        Some(e) => map.insert(path, e),
        None => map.remove(&path),
    };
}

/// The write set (path → entry): `index.json`'s entries with the ops log's
/// records since replayed. Read through `Deref` it is built whole (on first
/// use); [`Paths::entry`] looks one path up without building it.
#[derive(Debug, Clone, Default)]
pub struct Paths {
    /// `index.json`'s entries; with no `log`, the whole write set.
    base: BTreeMap<String, PathEntry>,
    /// The records to replay onto `base`.
    log: Option<Arc<Log>>,
    /// Entries set since the load, in order (after `log`'s).
    since: Vec<(String, Option<PathEntry>)>,
    /// The whole write set, built on first use (with `log`).
    full: OnceLock<BTreeMap<String, PathEntry>>,
}

impl Paths {
    /// `index.json`'s entries with `log`'s records to replay onto them.
    pub fn with_log(&mut self, log: Arc<Log>) {
        if !log.replay.is_empty() {
            let base = std::mem::take(&mut **self);
            *self = Paths {
                base,
                log: Some(log),
                ..Paths::default()
            };
        }
    }

    /// `path`'s entry (`None`: the tx has not touched it), without building
    /// the whole write set.
    pub fn entry(&self, path: &str) -> Option<PathEntry> {
        let Some(log) = self.log.as_ref().filter(|_| self.full.get().is_none()) else {
            return self.get(path).cloned();
        };
        if let Some((_, e)) = self.since.iter().rev().find(|(p, _)| p == path) {
            return e.clone();
        }
        match log.lookup(path) {
            Some(e) => e,
            None => self.base.get(path).cloned(),
        }
    }

    /// Sets `path`'s entry (`None` removes it), without building the whole set.
    pub fn set(&mut self, path: String, entry: Option<PathEntry>) {
        if self.log.is_none() {
            set(&mut self.base, path, entry);
            return;
        }
        if let Some(m) = self.full.get_mut() {
            set(m, path.clone(), entry.clone());
        }
        self.since.push((path, entry));
    }

    fn build(&self) -> BTreeMap<String, PathEntry> {
        let mut m = self.base.clone();
        if let Some(log) = &self.log {
            log.replay_onto(&mut m);
        }
        for (p, e) in &self.since {
            set(&mut m, p.clone(), e.clone());
        }
        m
    }
}

impl std::ops::Deref for Paths {
    type Target = BTreeMap<String, PathEntry>;
    fn deref(&self) -> &BTreeMap<String, PathEntry> {
        match &self.log {
            None => &self.base,
            Some(_) => self.full.get_or_init(|| self.build()),
        }
    }
}

impl std::ops::DerefMut for Paths {
    fn deref_mut(&mut self) -> &mut BTreeMap<String, PathEntry> {
        if self.log.is_some() {
            let full = match self.full.take() {
                Some(m) => m,
                None => self.build(),
            };
            *self = Paths {
                base: full,
                ..Paths::default()
            };
        }
        &mut self.base
    }
}

impl Serialize for Paths {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Paths {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Paths {
            base: BTreeMap::deserialize(d)?,
            ..Paths::default()
        })
    }
}

/// The ops log's records, parsed on first use (read through `Deref`): a staged
/// op appends one without reading the others.
#[derive(Debug, Clone, Default)]
pub struct Ops {
    log: Option<Arc<Log>>,
    /// Records added since the load (after `log`'s).
    since: Vec<OpRecord>,
    parsed: OnceLock<Vec<OpRecord>>,
}

impl Ops {
    /// The records `log` took.
    pub fn of_log(log: Arc<Log>) -> Ops {
        Ops {
            log: Some(log),
            ..Ops::default()
        }
    }

    pub fn push(&mut self, r: OpRecord) {
        match self.parsed.get_mut() {
            Some(v) => v.push(r),
            None => self.since.push(r),
        }
    }

    /// How many records (without parsing them).
    pub fn len(&self) -> usize {
        match (self.parsed.get(), &self.log) {
            (Some(v), _) => v.len(),
            (None, Some(log)) => log.lines.len() + self.since.len(),
            (None, None) => self.since.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl From<Vec<OpRecord>> for Ops {
    fn from(v: Vec<OpRecord>) -> Ops {
        Ops {
            parsed: OnceLock::from(v),
            ..Ops::default()
        }
    }
}

impl std::ops::Deref for Ops {
    type Target = Vec<OpRecord>;
    fn deref(&self) -> &Vec<OpRecord> {
        self.parsed.get_or_init(|| {
            let mut v: Vec<OpRecord> = match &self.log {
                Some(log) => log.lines.iter().filter_map(|l| log.record(l)).collect(),
                None => Vec::new(),
            };
            v.extend(self.since.iter().cloned());
            v
        })
    }
}

impl<'a> IntoIterator for &'a Paths {
    type Item = (&'a String, &'a PathEntry);
    type IntoIter = std::collections::btree_map::Iter<'a, String, PathEntry>;
    fn into_iter(self) -> Self::IntoIter {
        (**self).iter()
    }
}

impl<'a> IntoIterator for &'a Ops {
    type Item = &'a OpRecord;
    type IntoIter = std::slice::Iter<'a, OpRecord>;
    fn into_iter(self) -> Self::IntoIter {
        (**self).iter()
    }
}
