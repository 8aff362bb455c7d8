//! Reading a target once: a command that reads a file to compute its new content
//! (and to check `--expect-hash`) gets its bytes and hash from here, and the write
//! protocol reuses them for the before-state, blob and diff instead of reading
//! the file a second time. Entries are keyed by the file's identity and change
//! time, so a file changed since is read again.

use crate::text::lines::sha256_hex;
use std::collections::HashMap;
use std::io::{self, Read};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A regular file's content as read.
#[derive(Debug)]
pub struct Snapshot {
    pub bytes: Vec<u8>,
    pub hash: String,
    pub mode: u32,
    pub mtime: i64,
}

type Key = (u64, u64, u64, i64, i64, i64, i64);

fn key(m: &std::fs::Metadata) -> Key {
    (
        m.dev(),
        m.ino(),
        m.size(),
        m.mtime(),
        m.mtime_nsec(),
        m.ctime(),
        m.ctime_nsec(),
    )
}

static CACHE: Mutex<Option<HashMap<PathBuf, (Key, Arc<Snapshot>)>>> = Mutex::new(None);

/// The bytes, SHA-256 and mode of the regular file at `path` (symlinks followed).
pub fn load(path: &Path) -> io::Result<Arc<Snapshot>> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(io::Error::other("not a regular file"));
    }
    let k = key(&meta);
    if let Ok(guard) = CACHE.lock() {
        if let Some((ck, snap)) = guard.as_ref().and_then(|m| m.get(path)) {
            if *ck == k {
                return Ok(snap.clone());
            }
        }
    }
    let mut f = std::fs::File::open(path)?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    f.read_to_end(&mut bytes)?;
    let snap = Arc::new(Snapshot {
        hash: sha256_hex(&bytes),
        bytes,
        mode: meta.mode() & 0o7777,
        mtime: meta.mtime(),
    });
    let after = f.metadata().map(|m| key(&m)).unwrap_or(k);
    if after == k {
        if let Ok(mut guard) = CACHE.lock() {
            guard
                .get_or_insert_with(HashMap::new)
                .insert(path.to_path_buf(), (k, snap.clone()));
        }
    }
    Ok(snap)
}

/// Forgets everything (after a write the cached content is stale anyway).
pub fn clear() {
    if let Ok(mut guard) = CACHE.lock() {
        *guard = None;
    }
}
