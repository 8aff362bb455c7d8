//! The hash cache: a file's SHA-256 and line count remembered under the exact
//! identity of the bytes they were computed from — (device, inode, size, mtime,
//! ctime) — so a repeat read of an unchanged large file need not read it again.
//!
//! Trust rules, the same as git's index:
//! - an entry answers only for its exact key; any change to the file changes its
//!   ctime (a `touch -d` that restores the mtime included), so a changed file
//!   never matches an old entry;
//! - racy-clean: an entry is trusted only when the file's mtime and ctime are
//!   older than the moment its hashing began by more than any file system's
//!   timestamp granularity (`RACY_NS`); a file changed within the same tick as
//!   the hashed version would keep its key, so such an entry is never trusted
//!   (nor written);
//! - nothing but a read's answer uses it: guards (`--expect-hash`) and writes hash
//!   the bytes themselves.
//!
//! The cache is one small text file in the workspace's state directory (used
//! only when that directory passes the trust check), bounded to `MAX_ENTRIES`,
//! rewritten whole through a temp file and a rename; a lost update only costs
//! a rehash. Its value lives in a `HashCache` the caller holds: no process-wide state.

use super::state_dir;
use crate::protocol::kept::Kept;
use std::fs::Metadata;
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// Entries kept (the most recently written survive).
pub const MAX_ENTRIES: usize = 256;
/// How much older than the hashing's start a file's timestamps must be for its
/// entry to be trusted: above the coarsest common granularity (1 s; FAT's 2 s).
pub const RACY_NS: i128 = 3_000_000_000;
const FILE: &str = "hashcache";
const HEADER: &str = "aitools-hashcache 1";

/// The identity of a file's bytes as the file system reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
}

impl Key {
    pub fn of(m: &Metadata) -> Key {
        Key {
            dev: m.dev(),
            ino: m.ino(),
            size: m.len(),
            mtime_ns: m.mtime() as i128 * 1_000_000_000 + m.mtime_nsec() as i128,
            ctime_ns: m.ctime() as i128 * 1_000_000_000 + m.ctime_nsec() as i128,
        }
    }
}

/// What is remembered of a file's bytes: its line count (as `text::lines`
/// counts) and its SHA-256, each when it was computed (a first `--tail` of a
/// large file counts lines without hashing; `info` hashes without that count).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Facts {
    pub lines: Option<u64>,
    pub hash: Option<String>,
}

/// A moment on the wall clock, in nanoseconds since the epoch.
pub fn now_ns() -> i128 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(_) => 0,
    }
}

/// Whether an entry for `key`, hashed from `stamp_ns` on, may be trusted.
pub fn trusted(key: &Key, stamp_ns: i128) -> bool {
    key.mtime_ns.max(key.ctime_ns) + RACY_NS < stamp_ns
}

struct Entry {
    key: Key,
    stamp_ns: i128,
    facts: Facts,
}

fn parse_line(line: &str) -> Option<Entry> {
    let f: Vec<&str> = line.split(' ').collect();
    let [dev, ino, size, mt, ct, st, lines, hash] = f.as_slice() else {
        return None;
    };
    let hash = match *hash {
        "-" => None,
        h if h.len() == 64
            && h.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) =>
        {
            Some(h.to_string())
        }
        _ => return None,
    };
    Some(Entry {
        key: Key {
            dev: dev.parse().ok()?,
            ino: ino.parse().ok()?,
            size: size.parse().ok()?,
            mtime_ns: mt.parse().ok()?,
            ctime_ns: ct.parse().ok()?,
        },
        stamp_ns: st.parse().ok()?,
        facts: Facts {
            lines: match *lines {
                "-" => None,
                l => Some(l.parse().ok()?),
            },
            hash,
        },
    })
}

fn render(e: &Entry) -> String {
    format!(
        "{} {} {} {} {} {} {} {}\n",
        e.key.dev,
        e.key.ino,
        e.key.size,
        e.key.mtime_ns,
        e.key.ctime_ns,
        e.stamp_ns,
        e.facts.lines.map_or("-".to_string(), |l| l.to_string()),
        e.facts.hash.as_deref().unwrap_or("-")
    )
}

/// The cache of one workspace's state directory.
pub struct HashCache {
    dir: PathBuf,
    /// The workspace whose state directory is created on the first write, and
    /// the server's verdicts that directory is verified with.
    root: Option<(PathBuf, Option<Arc<Kept>>)>,
}

impl HashCache {
    /// The cache in `root`'s state directory, when that directory can be trusted;
    /// None otherwise (then nothing is cached).
    pub fn open(root: &Path, kept: Option<Arc<Kept>>) -> Option<HashCache> {
        state_dir::verify(root, kept.as_deref())
            .ok()
            .map(|dir| HashCache {
                dir,
                root: Some((root.to_path_buf(), kept)),
            })
    }

    /// A cache kept in `dir` (tests).
    pub fn at(dir: &Path) -> HashCache {
        HashCache {
            dir: dir.to_path_buf(),
            root: None,
        }
    }

    fn entries(&self) -> Vec<Entry> {
        let Ok(text) = std::fs::read_to_string(self.dir.join(FILE)) else {
            return Vec::new();
        };
        let mut lines = text.lines();
        if lines.next() != Some(HEADER) {
            return Vec::new();
        }
        lines.filter_map(parse_line).collect()
    }

    /// The facts remembered for exactly `key`, when the entry is trusted.
    pub fn get(&self, key: &Key) -> Option<Facts> {
        self.entries()
            .into_iter()
            .rev()
            .find(|e| e.key == *key)
            .filter(|e| trusted(&e.key, e.stamp_ns))
            .map(|e| e.facts)
    }

    /// Remembers `facts` for `key`, computed from bytes read after `stamp_ns`
    /// (what a trusted entry of the same key knows and `facts` lacks is kept).
    /// An entry that could not be trusted is not written; errors are ignored
    /// (a cache that cannot be written only costs a rehash).
    pub fn put(&self, key: &Key, stamp_ns: i128, mut facts: Facts) {
        if !trusted(key, stamp_ns) {
            return;
        }
        if !self.dir.is_dir() {
            match &self.root {
                Some((root, kept)) if state_dir::ensure(root, kept.as_deref()).is_ok() => {}
                _ => return,
            }
        }
        let mut entries = Vec::new();
        for e in self.entries() {
            if (e.key.dev, e.key.ino) != (key.dev, key.ino) {
                entries.push(e);
            } else if e.key == *key && trusted(&e.key, e.stamp_ns) {
                facts.lines = facts.lines.or(e.facts.lines);
                facts.hash = facts.hash.or(e.facts.hash);
            }
        }
        entries.push(Entry {
            key: *key,
            stamp_ns,
            facts,
        });
        let skip = entries.len().saturating_sub(MAX_ENTRIES);
        let mut text = format!("{HEADER}\n");
        for e in &entries[skip..] {
            text.push_str(&render(e));
        }
        let tmp = self.dir.join(format!(".{FILE}.{}.tmp", std::process::id()));
        let written = super::fsx::create_new(&tmp, 0o600)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .and_then(|()| std::fs::rename(&tmp, self.dir.join(FILE)));
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(t: i128) -> Key {
        Key {
            dev: 1,
            ino: 2,
            size: 3,
            mtime_ns: t,
            ctime_ns: t,
        }
    }

    fn facts(h: char) -> Facts {
        Facts {
            lines: Some(7),
            hash: Some(h.to_string().repeat(64)),
        }
    }

    #[test]
    fn an_entry_answers_only_for_its_exact_key() {
        let d = tempfile::tempdir().unwrap();
        let c = HashCache::at(d.path());
        let t = 10 * RACY_NS;
        c.put(&key(t), t + RACY_NS + 1, facts('a'));
        assert_eq!(c.get(&key(t)), Some(facts('a')));
        for other in [
            Key { size: 4, ..key(t) },
            Key { ino: 9, ..key(t) },
            Key { dev: 9, ..key(t) },
            Key {
                mtime_ns: t + 1,
                ..key(t)
            },
            Key {
                ctime_ns: t + 1,
                ..key(t)
            },
        ] {
            assert_eq!(c.get(&other), None);
        }
    }

    #[test]
    fn a_racily_clean_entry_is_never_trusted() {
        let d = tempfile::tempdir().unwrap();
        let c = HashCache::at(d.path());
        let t = 10 * RACY_NS;
        // Hashing began within the granularity after the file's last change:
        // a same-tick change would keep the key, so the entry is not kept.
        c.put(&key(t), t + RACY_NS, facts('a'));
        assert_eq!(c.get(&key(t)), None);
        // Planted anyway (an older version's file): still not trusted.
        let e = Entry {
            key: key(t),
            stamp_ns: t + 5,
            facts: facts('b'),
        };
        std::fs::write(d.path().join(FILE), format!("{HEADER}\n{}", render(&e))).unwrap();
        assert_eq!(c.get(&key(t)), None);
    }

    #[test]
    fn the_cache_stays_bounded_and_ignores_damage() {
        let d = tempfile::tempdir().unwrap();
        let c = HashCache::at(d.path());
        let t = 10 * RACY_NS;
        for i in 0..(MAX_ENTRIES as u64 + 10) {
            c.put(&Key { ino: i, ..key(t) }, 3 * t, facts('c'));
        }
        assert_eq!(c.entries().len(), MAX_ENTRIES);
        assert_eq!(c.get(&Key { ino: 0, ..key(t) }), None);
        std::fs::write(d.path().join(FILE), format!("{HEADER}\n1 2 3 x\n")).unwrap();
        assert_eq!(c.get(&key(t)), None);
    }
}
