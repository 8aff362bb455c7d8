//! Blobs: file contents named by their SHA-256, shared by the journal (before-states
//! that undo writes back) and transactions. A blob is written once and never
//! changed; a before-state whose file is about to be replaced is preferably
//! hard-linked (its inode leaves the tree with the replace), else copied.

use super::fsx;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

pub fn dir(state: &Path) -> PathBuf {
    state.join("blobs")
}

pub fn path(state: &Path, hash: &str) -> PathBuf {
    dir(state).join(hash)
}

pub fn exists(state: &Path, hash: &str) -> bool {
    fsx::exists_nofollow(&path(state, hash))
}

/// Reads a blob's bytes.
pub fn read(state: &Path, hash: &str) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let mut f = fsx::open_read_nofollow(&path(state, hash))?;
    let mut out = Vec::new();
    f.read_to_end(&mut out)?;
    Ok(out)
}

/// How a blob came to exist.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stored {
    /// It was there already.
    Existing,
    /// Hard-linked to the tree file (the dir entry needs an fsync).
    Linked,
    /// Written from bytes through `tmp` and fsynced (the dir entry needs an fsync).
    Written,
}

/// Stores the content of the regular file `src` (whose hash is `hash`) as a blob.
/// `bytes` is used for the copy when linking is not possible.
pub fn store_file(
    state: &Path,
    hash: &str,
    src: &Path,
    bytes: Option<&[u8]>,
    tmp: &Path,
) -> io::Result<Stored> {
    let dst = path(state, hash);
    if fsx::exists_nofollow(&dst) {
        return Ok(Stored::Existing);
    }
    // Only a file with no other name may be linked: another name in the tree could
    // later be rewritten in place and change the blob under its hash.
    let single = std::fs::symlink_metadata(src).is_ok_and(|m| m.is_file() && m.nlink() == 1);
    if single && std::fs::hard_link(src, &dst).is_ok() {
        return Ok(Stored::Linked);
    }
    match bytes {
        Some(b) => store_bytes_via(&dst, b, tmp),
        None => {
            let _ = std::fs::remove_file(tmp);
            std::fs::copy(src, tmp)?;
            std::fs::File::open(tmp)?.sync_all()?;
            std::fs::rename(tmp, &dst)?;
            Ok(Stored::Written)
        }
    }
}

/// Stores bytes as a blob.
pub fn store_bytes(state: &Path, hash: &str, bytes: &[u8], tmp: &Path) -> io::Result<Stored> {
    let dst = path(state, hash);
    if fsx::exists_nofollow(&dst) {
        return Ok(Stored::Existing);
    }
    store_bytes_via(&dst, bytes, tmp)
}

fn store_bytes_via(dst: &Path, bytes: &[u8], tmp: &Path) -> io::Result<Stored> {
    let _ = std::fs::remove_file(tmp);
    fsx::write_new_synced(tmp, bytes, 0o600)?;
    std::fs::rename(tmp, dst)?;
    Ok(Stored::Written)
}
