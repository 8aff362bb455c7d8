//! Reading a target once: a command that reads a file to compute its new content
//! (and to check `--expect-hash`) gets its bytes and hash from here, and the write
//! protocol reuses them for the before-state, blob and diff instead of reading
//! the file a second time. Entries are keyed by the file's identity and change
//! time, so a file changed since is read again.

use crate::text::lines::{hex, sha256_hex};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::{self, Read};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A regular file's content as read.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub bytes: Vec<u8>,
    pub hash: String,
    pub mode: u32,
    pub mtime: i64,
    /// SHA-256 states at every `MIDSTATE_EVERY` bytes of a large file, so the hash
    /// of an edited copy only re-hashes from the first changed block on.
    pub midstates: Vec<(usize, Sha256)>,
    /// The file's metadata when it was read: a write checks it again just before
    /// its commit point (`appends`).
    pub stamp: Stamp,
}

/// What a file's metadata said when its bytes were read.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Stamp {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
}

impl Stamp {
    pub fn of(m: &std::fs::Metadata) -> Stamp {
        Stamp {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime_ns: m.mtime() as i128 * 1_000_000_000 + m.mtime_nsec() as i128,
            ctime_ns: m.ctime() as i128 * 1_000_000_000 + m.ctime_nsec() as i128,
        }
    }
}

/// Distance between kept hash states (large files only).
const MIDSTATE_EVERY: usize = 1 << 20;

/// The SHA-256 of `bytes`, and its midstates when the file is large.
pub fn hash_with_midstates(bytes: &[u8]) -> (String, Vec<(usize, Sha256)>) {
    if bytes.len() < 2 * MIDSTATE_EVERY {
        return (sha256_hex(bytes), Vec::new());
    }
    let mut h = Sha256::new();
    let mut mids = Vec::with_capacity(bytes.len() / MIDSTATE_EVERY + 1);
    for (i, chunk) in bytes.chunks(MIDSTATE_EVERY).enumerate() {
        mids.push((i * MIDSTATE_EVERY, h.clone()));
        h.update(chunk);
    }
    (hex(&h.finalize()), mids)
}

impl Snapshot {
    /// The SHA-256 of `new`, a successor of these bytes: the blocks it shares with
    /// them from the start are not hashed again.
    pub fn hash_of_successor(&self, new: &[u8]) -> String {
        let shared = crate::text::diff::common_prefix(&self.bytes, new);
        match self.midstates.iter().rev().find(|(at, _)| *at <= shared) {
            Some((at, state)) if *at > 0 => {
                let mut h = state.clone();
                h.update(&new[*at..]);
                hex(&h.finalize())
            }
            _ => sha256_hex(new),
        }
    }
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

/// The snapshots one session took: the cache by path (valid while the file's
/// identity and times are unchanged) and the first read of each path.
#[derive(Default)]
pub struct Cache {
    by_path: Mutex<HashMap<PathBuf, (Key, Arc<Snapshot>)>>,
    /// The first read of each path since the last `clear`: what a command computed
    /// its change from, even when the write protocol read the file again after
    /// another program changed it (see `appends`).
    first: Mutex<HashMap<PathBuf, Arc<Snapshot>>>,
    /// The lstat each of those first reads was loaded with (`load_stated`; not
    /// `load`, whose metadata follows a final symlink): `read_lstat`; and while
    /// a write reads (`forget_first` .. `clear`), the first `KEEP_OPEN` of them
    /// stay open: `take_open`.
    first_lstat: Mutex<(HashMap<PathBuf, Stated>, usize)>,
    /// Whether a write is reading (its reads' descriptors are kept).
    keep_open: std::sync::atomic::AtomicBool,
}

/// A first read's lstat, and its descriptor while it is kept open, with the
/// link count and owner its fstat gave (`take_open`).
struct Stated {
    lstat: std::fs::Metadata,
    open: Option<(Arc<std::fs::File>, u64, u32)>,
}

/// Descriptors of a write's reads kept open at most (a write reading many files
/// must not run out of descriptors; the others are opened again if needed).
const KEEP_OPEN: usize = 256;

impl Cache {
    /// Starts a new record of first reads (a write's validation begins; reads an
    /// earlier command of the same session made are not what this one computed from).
    pub fn forget_first(&self) {
        self.reset_first(true);
    }

    fn reset_first(&self, keep_open: bool) {
        if let Ok(mut first) = self.first.lock() {
            first.clear();
        }
        if let Ok(mut first) = self.first_lstat.lock() {
            *first = Default::default();
        }
        self.keep_open
            .store(keep_open, std::sync::atomic::Ordering::Relaxed);
    }

    /// The lstat the first read of `path` since the last `clear` was loaded
    /// with, when it was loaded with one (`load_stated`) and it found the file
    /// its content is of (no later read of the same path with another key).
    pub fn read_lstat(&self, path: &Path) -> Option<std::fs::Metadata> {
        Some(self.first_lstat.lock().ok()?.0.get(path)?.lstat.clone())
    }

    /// The descriptor the write's first read of `path` opened (kept open), when
    /// that read's lstat had the stamp `was`: the inode read, opened read-only
    /// (`O_NONBLOCK`), with its link count and owner as its fstat gave them at
    /// the read. Taken once (the caller holds it from then on).
    pub fn take_open(&self, path: &Path, was: &Stamp) -> Option<(Arc<std::fs::File>, u64, u32)> {
        let mut first = self.first_lstat.lock().ok()?;
        let st = first.0.get_mut(path)?;
        if Stamp::of(&st.lstat) != *was {
            return None;
        }
        st.open.take()
    }

    /// The first snapshot of `path` taken since the last `clear`.
    pub fn first_read(&self, path: &Path) -> Option<Arc<Snapshot>> {
        self.first.lock().ok()?.get(path).cloned()
    }

    /// Forgets everything (after a write the cached content is stale anyway).
    pub fn clear(&self) {
        if let Ok(mut guard) = self.by_path.lock() {
            guard.clear();
        }
        self.reset_first(false);
    }

    /// The bytes, SHA-256 and mode of the regular file at the real path `path`:
    /// a symlink anywhere on it (swapped in since it was resolved) is refused
    /// (`ELOOP`, `fsx::open_regular_real`).
    pub fn load(&self, path: &Path) -> io::Result<Arc<Snapshot>> {
        self.load_meta(path, &std::fs::metadata(path)?, false, false)
    }

    /// `load` with the file's lstat already taken (one that found a regular
    /// file; a regular file's lstat is its stat). The first such read of a path
    /// keeps it (`read_lstat`).
    pub fn load_stated(&self, path: &Path, meta: &std::fs::Metadata) -> io::Result<Arc<Snapshot>> {
        self.load_meta(path, meta, true, false)
    }

    /// `load` of a path that may lead through symlinks on purpose (a path a read
    /// names as given, not resolved and checked): they are followed, and what it
    /// reads is not kept for a later `load` of the same path.
    pub fn load_follow(&self, path: &Path) -> io::Result<Arc<Snapshot>> {
        self.load_meta(path, &std::fs::metadata(path)?, false, true)
    }

    fn load_meta(
        &self,
        path: &Path,
        meta: &std::fs::Metadata,
        lstat: bool,
        follow: bool,
    ) -> io::Result<Arc<Snapshot>> {
        if !meta.is_file() {
            return Err(io::Error::other("not a regular file"));
        }
        let k = key(meta);
        if let Ok(guard) = self.by_path.lock()
            && let Some((ck, snap)) = guard.get(path)
            && *ck == k
        {
            return Ok(snap.clone());
        }
        // The open file's fstat (it must be a regular file) says whether it is the
        // inode `meta` describes, unchanged: then `meta.len()` bytes are all of it.
        let (mut f, opened) = if follow {
            super::fsx::open_regular_follow_meta(path)?
        } else {
            super::fsx::open_regular_real_meta(path)?
        };
        let (bytes, same) = read_whole(&mut f, meta.len() as usize, key(&opened) == k)?;
        let (hash, midstates) = hash_with_midstates(&bytes);
        // The stamp is the inode read (its fstat), never what `meta` found by
        // path: a directory swapped for a symlink between the two makes them
        // different files, and `appends::arm` trusts the stamp to name the inode
        // whose bytes these are.
        let snap = Arc::new(Snapshot {
            hash,
            midstates,
            bytes,
            mode: opened.mode() & 0o7777,
            mtime: opened.mtime(),
            stamp: Stamp::of(&opened),
        });
        if let Ok(mut first) = self.first.lock() {
            let mut is_first = false;
            first.entry(path.to_path_buf()).or_insert_with(|| {
                is_first = true;
                snap.clone()
            });
            // Kept only when the file opened was the inode that lstat found,
            // unchanged (else what was read is not what the lstat says).
            if is_first
                && lstat
                && same
                && let Ok(mut l) = self.first_lstat.lock()
            {
                // The descriptor is kept for the write's before-image link
                // (`blobs::link_before_image` takes its lease on it, links it and
                // publishes it): it is the inode the lstat found, unchanged when
                // its fstat was taken (`same`), so no second open and fstat of the
                // path are needed to know that; the link checks it again under
                // its lease.
                let keep =
                    l.1 < KEEP_OPEN && self.keep_open.load(std::sync::atomic::Ordering::Relaxed);
                l.1 += usize::from(keep);
                let open = keep.then(|| (Arc::new(f), opened.nlink(), opened.uid()));
                let st = Stated {
                    lstat: meta.clone(),
                    open,
                };
                l.0.insert(path.to_path_buf(), st);
            }
        }
        if same
            && !follow
            && let Ok(mut guard) = self.by_path.lock()
        {
            guard.insert(path.to_path_buf(), (k, snap.clone()));
        }
        Ok(snap)
    }
}

/// The whole of `f` (`len` bytes when it was stat'ed), and whether that is
/// still so after the read. `same`: the open file's fstat, taken before the
/// read, matched the key `len` came with; then `len` bytes are read and nothing
/// more (no fstat after the read: bytes appended meanwhile are after the
/// snapshot, as if appended a moment later: the cache key has the old size, and a
/// write's `appends::arm` checks the inode again before its commit point and
/// reports such a tail). Else (a file changed since it was stat'ed), all of it.
/// (`read_to_end` on a `File` asks it for its size and position again first.)
/// A file that shrank since gives what is there; one that grew, all of it.
fn read_whole(f: &mut std::fs::File, len: usize, same: bool) -> io::Result<(Vec<u8>, bool)> {
    let mut bytes = vec![0u8; len];
    let mut got = 0;
    while got < len {
        match f.read(bytes.get_mut(got..).unwrap_or_default()) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    if got == len && same {
        return Ok((bytes, true));
    }
    bytes.truncate(got);
    if got == len {
        f.read_to_end(&mut bytes)?;
    }
    Ok((bytes, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_whole_gives_the_whole_file_whatever_size_was_expected() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let body: Vec<u8> = (0..100_000u32).map(|i| (i % 253) as u8).collect();
        std::fs::write(&p, &body).unwrap();
        // Expected right (the key as stat'ed, or another: the file changed since),
        // the file shrank since (expected more, even with the key unchanged), grew
        // since (less), empty.
        for (expect, with) in [(body.len(), true), (body.len(), false)]
            .into_iter()
            .chain([body.len() + 10].map(|n| (n, true)))
            .chain([body.len() + 10, body.len() - 1, 31, 32, 33, 0].map(|n| (n, false)))
        {
            let mut f = std::fs::File::open(&p).unwrap();
            let (got, same) = read_whole(&mut f, expect, with).unwrap();
            assert_eq!(got, body, "{expect}");
            assert_eq!(same, with && expect == body.len(), "{expect}");
        }
        std::fs::write(&p, b"").unwrap();
        let mut f = std::fs::File::open(&p).unwrap();
        assert!(read_whole(&mut f, 0, false).unwrap().0.is_empty());
    }
    #[test]
    fn a_snapshot_is_stamped_with_the_inode_it_read_not_the_metadata_it_was_given() {
        // What a path's stat found can be another file than the one opened a
        // moment later (a parent directory swapped for a symlink in between):
        // the stamp must be the file whose bytes were read.
        let dir = tempfile::tempdir().unwrap();
        let (read, other) = (dir.path().join("read"), dir.path().join("other"));
        std::fs::write(&read, "inside\n").unwrap();
        std::fs::write(&other, "a longer file somewhere else\n").unwrap();
        let cache = Cache::default();
        let snap = cache
            .load_stated(&read, &std::fs::metadata(&other).unwrap())
            .unwrap();
        assert_eq!(snap.bytes, b"inside\n");
        assert_eq!(snap.stamp, Stamp::of(&std::fs::metadata(&read).unwrap()));
    }

    #[test]
    fn a_successor_hash_equals_a_full_hash() {
        let old: Vec<u8> = (0..5 * MIDSTATE_EVERY + 123)
            .map(|i| (i % 251) as u8)
            .collect();
        let (h, mids) = hash_with_midstates(&old);
        assert_eq!(h, sha256_hex(&old));
        let snap = Snapshot {
            bytes: old.clone(),
            hash: h,
            mode: 0o644,
            mtime: 0,
            midstates: mids,
            stamp: Stamp::default(),
        };
        for at in [
            0,
            1,
            MIDSTATE_EVERY - 1,
            MIDSTATE_EVERY,
            3 * MIDSTATE_EVERY + 7,
            old.len() - 1,
        ] {
            let mut new = old.clone();
            new[at] ^= 0xff;
            assert_eq!(snap.hash_of_successor(&new), sha256_hex(&new), "{at}");
            let mut longer = old.clone();
            longer.splice(at..at, b"inserted".iter().copied());
            assert_eq!(snap.hash_of_successor(&longer), sha256_hex(&longer), "{at}");
            assert_eq!(
                snap.hash_of_successor(&old[..at]),
                sha256_hex(&old[..at]),
                "{at}"
            );
        }
        assert_eq!(snap.hash_of_successor(&old), sha256_hex(&old));
    }
}
