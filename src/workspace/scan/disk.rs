//! The disk facts the scanning commands need around a walk: a start's real path,
//! the stat of a listed entry, a file opened for sampling. Kept here so the
//! search family names no `std::fs` (they see disk paths only through the scan).

use std::fs::File;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::EntryStat;

/// The real path of an existing `path` (symlinks resolved); an error when it
/// does not exist.
pub fn real_start(path: &Path) -> io::Result<PathBuf> {
    std::fs::canonicalize(path)
}

/// Size, mode and mtime of `path` itself (a symlink's own, never its target's),
/// for an entry the walk listed without stating it.
pub fn lstat(path: &Path) -> io::Result<EntryStat> {
    let m = std::fs::symlink_metadata(path)?;
    Ok(EntryStat {
        len: m.len(),
        mode: m.mode(),
        mtime: (m.mtime(), m.mtime_nsec().clamp(0, 999_999_999) as u32),
    })
}

/// A listed file opened for reading: without waiting (a file swapped for a FIFO
/// after the listing would block the open), and only if it is still a regular
/// file (`InvalidData` otherwise: the caller skips it as unreadable).
pub fn open_file(path: &Path) -> io::Result<File> {
    open_sized(path).map(|(f, _)| f)
}

/// `open_file`, with the size its one fstat saw (overview samples a few files
/// of each language by size).
pub fn open_sized(path: &Path) -> io::Result<(File, u64)> {
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)?;
    let m = f.metadata()?;
    if !m.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "no longer a regular file",
        ));
    }
    Ok((f, m.len()))
}

/// Whether anything (even a dangling symlink) is at `path`.
pub fn exists_nofollow(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}
