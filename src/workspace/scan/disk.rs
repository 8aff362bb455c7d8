//! The disk facts the scanning commands need around a walk: a start's real path,
//! the stat of a listed entry, a file opened for sampling. Kept here so the
//! search family names no `std::fs` (they see disk paths only through the scan).

use std::fs::File;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::EntryStat;
/// Whether anything (even a dangling symlink) is at a path: one definition for
/// the store and the scan (the store's leaf `fsx`, which names nothing else).
pub use crate::store::fsx::exists_nofollow;

/// The real path of an existing `path` (symlinks resolved); an error when it
/// does not exist.
pub fn real_start(path: &Path) -> io::Result<PathBuf> {
    match std::fs::canonicalize(path) {
        // `<(cmd)`'s /dev/fd/N links to `pipe:[inode]`, no path: the pipe is
        // named by the link itself.
        Err(_) if is_fifo_at(path) => Ok(path.to_path_buf()),
        r => r,
    }
}

/// Whether `path`, links followed, is a named pipe.
pub fn is_fifo_at(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_fifo())
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
/// after the listing would block the open), never through a symlink swapped in
/// after the listing (`open_walked`), and only if it is still a regular file
/// (`InvalidData` otherwise: the caller skips it as unreadable).
pub fn open_file(path: &Path) -> io::Result<File> {
    open_sized(path).map(|(f, _)| f)
}

/// Whether walked opens refuse a symlink anywhere on the path (openat2), not
/// only a final one: a probe through a symlink the system always has.
#[cfg(test)]
pub(super) fn refuses_any_symlink() -> bool {
    // /proc/self is a symlink: refused only by openat2's RESOLVE_NO_SYMLINKS.
    open_walked(Path::new("/proc/self/status"))
        .is_err_and(|e| e.raw_os_error() == Some(libc::ELOOP))
}

/// Opens an entry the walk listed, refusing a symlink anywhere on its path
/// (`ELOOP`; the store's `fsx::open_no_symlinks`): a walk's paths are a start's
/// real path joined with the names it listed, so no component is a symlink
/// unless one was swapped in after the listing. The caller skips the entry as
/// unreadable, like one that vanished.
fn open_walked(path: &Path) -> io::Result<File> {
    crate::store::fsx::open_no_symlinks(path)
}

/// Bytes a [`Listed`] file gives before it checks it is still a regular file.
const LISTED_CHECK_AFTER: u64 = 1 << 20;

/// A listed file opened for one read pass (a search), without the fstat of
/// `open_file` per file (a twentieth of a search's time on a tree of small files):
/// opened without waiting, so a FIFO swapped in after the listing gives end of
/// file (no writer) or `WouldBlock` (a writer, nothing written), never a wait;
/// never through a symlink swapped in after the listing (`open_walked`); and past `LISTED_CHECK_AFTER` bytes it checks once that it is a regular file,
/// so no pipe or device streams into the scan without end.
pub struct Listed {
    file: File,
    read: u64,
    checked: bool,
}

pub fn open_listed(path: &Path) -> io::Result<Listed> {
    let file = open_walked(path)?;
    Ok(Listed {
        file,
        read: 0,
        checked: false,
    })
}

impl io::Read for Listed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if !self.checked && self.read >= LISTED_CHECK_AFTER {
            self.checked = true;
            if !self.file.metadata()?.is_file() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "no longer a regular file",
                ));
            }
        }
        let n = self.file.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}

/// `open_file`, with the size its one fstat saw (overview samples a few files
/// of each language by size).
pub fn open_sized(path: &Path) -> io::Result<(File, u64)> {
    let f = open_walked(path)?;
    let m = f.metadata()?;
    if !m.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "no longer a regular file",
        ));
    }
    Ok((f, m.len()))
}

/// Whether `f` is an anonymous pipe (pipefs: its /proc link reads `pipe:[N]`),
/// not a FIFO with a name on a file system.
fn is_anonymous_pipe(f: &File) -> bool {
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    std::fs::read_link(format!("/proc/self/fd/{}", f.as_raw_fd()))
        .is_ok_and(|t| t.as_os_str().as_bytes().starts_with(b"pipe:"))
}

/// How long a named pipe given as a PATH may go without a writer before the
/// scan passes it over (`NoWriter`): a FIFO picked up by a shell glob has none,
/// and its open or read would wait forever; `<(cmd)` has its writer already.
pub const PIPE_WRITER_WAIT: std::time::Duration = std::time::Duration::from_millis(1000);

/// A named pipe's bytes, up to `cap` (`None` when it holds more). Opened without
/// waiting; while no process has it open for writing (a read gives end of file
/// and no writer has come and gone), it waits at most `wait`, then fails with
/// `TimedOut`. Once a writer is seen it reads to the end, as `rg` does.
pub fn read_fifo(path: &Path, cap: u64, wait: std::time::Duration) -> io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)?;
    let deadline = std::time::Instant::now() + wait;
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    // A writer has had the pipe open (it wrote, holds it, or came and went). An
    // anonymous pipe (`<(cmd)`'s /dev/fd/N, `/dev/stdin`) was made with its
    // writer, so end of file there is the end: the command wrote what it had and
    // exited before the open (`<(true)`), and no writer can come later.
    let mut writer = is_anonymous_pipe(&f);
    loop {
        let timeout = match f.read(&mut chunk) {
            Ok(0) if writer => break,
            Ok(0) => {
                let left = deadline.saturating_duration_since(std::time::Instant::now());
                if left.is_zero() {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "no process opened the named pipe for writing",
                    ));
                }
                // Polled in slices: a writer that opens and holds the pipe without
                // writing wakes no poll, but the next read sees it (WouldBlock).
                left.as_millis().clamp(1, 20) as libc::c_int
            }
            Ok(n) => {
                writer = true;
                buf.extend_from_slice(chunk.get(..n).unwrap_or_default());
                if buf.len() as u64 > cap {
                    return Ok(None);
                }
                continue;
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                writer = true;
                -1
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let mut pfd = libc::pollfd {
            fd: f.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: `pfd` is one valid pollfd this call may write `revents` of.
        let rc = unsafe { libc::poll(&mut pfd, 1, timeout) };
        if rc < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        } else if pfd.revents & libc::POLLHUP != 0 {
            // A writer came and went (poll reports no hang-up before one has).
            writer = true;
        }
    }
    Ok(Some(buf))
}
