//! The store's file primitives: creating files and directories that cannot be
//! redirected by a planted symlink (`O_NOFOLLOW`, `O_EXCL`, exact modes), fsync of
//! files and directories, and a path's identity (device, inode) for idempotent steps.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Creates a new file (never follows or replaces anything) with exactly `mode`.
pub fn create_new(path: &Path, mode: u32) -> io::Result<File> {
    let f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)?;
    // The umask may have cleared bits the caller asked for.
    f.set_permissions(std::fs::Permissions::from_mode(mode))?;
    Ok(f)
}

/// Opens an existing file for appending, refusing a symlink.
pub fn open_append(path: &Path, create_mode: u32) -> io::Result<File> {
    OpenOptions::new()
        .append(true)
        .read(true)
        .create(true)
        .mode(create_mode)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// Opens a file for reading without following a final symlink, and without
/// blocking: a FIFO planted where the store keeps a file (a pack, a blob, an
/// intent record) opens at once and reads as empty, never waiting for a writer
/// while the workspace lock is held (`O_NONBLOCK` changes nothing for a
/// regular file).
pub fn open_read_nofollow(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(path)
}

/// Opens one of the store's own files for reading (`open_read_nofollow`), and
/// refuses anything but a regular file (`InvalidData`): a FIFO or device there
/// would read as empty, and a journal or index read as empty is a lie.
pub fn open_regular(path: &Path) -> io::Result<File> {
    regular_with_meta(open_read_nofollow(path)?, path).map(|(f, _)| f)
}

/// `open_regular`, with the file's link count (a blob with more than one name
/// is a link not yet published: `blobs::read_in`).
pub fn open_regular_nlink(path: &Path) -> io::Result<(File, u64)> {
    let (f, m) = regular_with_meta(open_read_nofollow(path)?, path)?;
    Ok((f, m.nlink()))
}

/// `f` with its one fstat, if it is a regular file (`InvalidData` otherwise:
/// a FIFO, device or directory swapped in since the path was checked).
fn regular_with_meta(f: File, path: &Path) -> io::Result<(File, std::fs::Metadata)> {
    let m = f.metadata()?;
    if !m.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not a regular file", path.display()),
        ));
    }
    Ok((f, m))
}

/// A workspace file opened for reading, symlinks followed, without waiting:
/// a file swapped for a FIFO after it was stat'ed is refused (`InvalidData`),
/// never waited on (a write holds the workspace lock while it reads).
pub fn open_regular_follow(path: &Path) -> io::Result<File> {
    open_regular_follow_meta(path).map(|(f, _)| f)
}

/// `open_regular_follow`, with the open file's metadata (its one fstat).
pub fn open_regular_follow_meta(path: &Path) -> io::Result<(File, std::fs::Metadata)> {
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_CLOEXEC | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    regular_with_meta(f, path)
}

/// A store file's text (`open_regular`).
pub fn read_regular_to_string(path: &Path) -> io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    open_regular(path)?.read_to_string(&mut text)?;
    Ok(text)
}

/// Writes `bytes` to a new file with `mode` and fsyncs it.
pub fn write_new_synced(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    let mut f = create_new(path, mode)?;
    f.write_all(bytes)?;
    f.sync_all()
}

/// Replaces `dir/name` whole with `bytes` (mode `mode`): written to `dir/tmp`
/// (a stale one a killed process left is removed first), then renamed over it, so
/// a kill leaves the old file or the new one. With `sync`, the file is fsynced
/// before the rename and `dir` after it (durable against a power loss too).
pub fn replace_file(
    dir: &Path,
    name: &str,
    tmp: &str,
    bytes: &[u8],
    mode: u32,
    sync: bool,
) -> io::Result<()> {
    let tmp = dir.join(tmp);
    let _ = std::fs::remove_file(&tmp);
    let written = (|| {
        let mut f = create_new(&tmp, mode)?;
        f.write_all(bytes)?;
        if sync {
            f.sync_all()?;
        }
        drop(f);
        std::fs::rename(&tmp, dir.join(name))?;
        if sync { sync_dir(dir) } else { Ok(()) }
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// The names in `dir` that `keep` accepts, sorted (none when `dir` is missing).
pub fn names_where(dir: &Path, keep: impl Fn(&str) -> bool) -> io::Result<Vec<String>> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for e in rd {
        let name = e?.file_name().to_string_lossy().into_owned();
        if keep(&name) {
            out.push(name);
        }
    }
    out.sort();
    Ok(out)
}

/// fsync of a directory, so the entries created, renamed or removed in it last.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
        .open(dir)?;
    f.sync_all()
}

/// Up to this many files of one batch are fsynced one by one; above it, one
/// `syncfs` per filesystem costs less (on ext4 every fsync of a new file is its own
/// journal commit: 1,000 of them took seconds). syncfs also flushes what other
/// programs left dirty on that filesystem, which is why a small write keeps fsync.
pub const FSYNC_EACH_MAX: usize = 4;

/// Above this many bytes of dirty and in-flight pages on the whole system
/// (`/proc/meminfo` Dirty + Writeback), a batch of many files fsyncs each of them
/// instead of one `syncfs`: syncfs also waits for what other programs left dirty
/// on the filesystem (600 MB of another program's writes made a 100-file apply
/// take 0.75 s instead of 0.07 s), an fsync only for its own file.
pub const SYNCFS_DIRTY_MAX: u64 = 64 << 20;
/// The environment variable that sets [`SYNCFS_DIRTY_MAX`] (bytes; tests pin the
/// choice with it).
pub const SYNCFS_DIRTY_ENV: &str = "AITOOLS_SYNCFS_DIRTY_MAX";
/// Files of a batch fsynced one by one that are kept open at once: their
/// writeback runs while the next ones are written; the oldest is fsynced when
/// the window is full (a descriptor per file of 1,000 would reach the limit).
const FSYNC_WINDOW: usize = 64;

/// Files written together that must all be durable before the caller goes on (a
/// write's temp files and blobs, before its commit point). Each file is handed
/// over once written; `sync` returns once every one of them is on disk.
///
/// Few files: each one's writeback is started as it is handed over
/// ([`start_writeback`]) and all are fsynced in `sync`, so the disk writes one
/// file's data while the next is being written (an edit's blob and temp file)
/// instead of waiting for each in turn.
///
/// Many files while the system holds many dirty pages ([`SYNCFS_DIRTY_MAX`]):
/// as for few files, but at most [`FSYNC_WINDOW`] are kept open, the oldest
/// fsynced first: a `syncfs` would also wait for the other programs' pages.
///
/// Many files: one descriptor per filesystem is kept, the first file written on
/// it, opened before any later file's data was written; `syncfs` on it writes back
/// every dirty page and inode of that filesystem, commits its journal, and (Linux
/// 5.8+) reports any writeback error since that descriptor was opened — so every
/// file of the batch is covered, its data and its directory entry.
pub struct Batch {
    each: bool,
    /// Few files: every file taken, fsynced in `sync`.
    files: Vec<File>,
    devs: Vec<(u64, File)>,
}

impl Batch {
    /// A batch of about `count` files (how they are synced is chosen from it).
    pub fn new(count: usize) -> Batch {
        Batch {
            each: count <= FSYNC_EACH_MAX || !syncfs_fits(),
            files: Vec::new(),
            devs: Vec::new(),
        }
    }

    /// Takes a file whose writing is done.
    pub fn written(&mut self, f: File) -> io::Result<()> {
        if self.each {
            start_writeback(&f, 0, 0);
            if self.files.len() >= FSYNC_WINDOW {
                self.files.remove(0).sync_all()?;
            }
            self.files.push(f);
            return Ok(());
        }
        let dev = f.metadata()?.dev();
        if !self.devs.iter().any(|(d, _)| *d == dev) {
            self.devs.push((dev, f));
        }
        Ok(())
    }

    /// `written`, for a file known to be on `dev` (no stat to learn it).
    pub fn written_on(&mut self, f: File, dev: u64) -> io::Result<()> {
        if self.each {
            return self.written(f);
        }
        if !self.devs.iter().any(|(d, _)| *d == dev) {
            self.devs.push((dev, f));
        }
        Ok(())
    }

    /// Waits until every file taken is durable.
    pub fn sync(self) -> io::Result<()> {
        for f in &self.files {
            f.sync_all()?;
        }
        for (_, f) in &self.devs {
            syncfs(f)?;
        }
        Ok(())
    }
}

/// Starts writing back the dirty pages of `f` in `len` bytes from `offset` (`len`
/// 0: to the end) without waiting for them (`sync_file_range` with
/// `SYNC_FILE_RANGE_WRITE`): the fsync that must follow has less left to wait
/// for. Only a hint: it makes nothing durable (no metadata, no disk cache flush),
/// and a failure is left for that fsync to report.
pub fn start_writeback(f: &File, offset: u64, len: u64) {
    use std::os::fd::AsRawFd;
    let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else {
        return;
    };
    // SAFETY: a valid descriptor; sync_file_range reads nothing from user memory.
    unsafe {
        libc::sync_file_range(f.as_raw_fd(), offset, len, libc::SYNC_FILE_RANGE_WRITE);
    }
}

/// Bytes written between two [`start_writeback`] calls in [`write_pieces`].
pub const WRITEBACK_CHUNK: usize = 1 << 20;

/// Writes `pieces` in order to `f` (at its start, a new file), starting the
/// writeback of each MiB as soon as it is written, so the disk works while the
/// rest is copied into the page cache. The caller still fsyncs (`Batch`).
pub fn write_pieces(f: &mut File, pieces: &[&[u8]]) -> io::Result<()> {
    let mut done = 0u64;
    let mut kicked = 0u64;
    for piece in pieces {
        for chunk in piece.chunks(WRITEBACK_CHUNK) {
            f.write_all(chunk)?;
            done += chunk.len() as u64;
            if done - kicked >= WRITEBACK_CHUNK as u64 {
                start_writeback(f, kicked, done - kicked);
                kicked = done;
            }
        }
    }
    Ok(())
}

/// Makes the files at `paths` durable, as one [`Batch`] (each opened without
/// following a symlink).
pub fn sync_files<P: AsRef<Path>>(paths: &[P]) -> io::Result<()> {
    let mut batch = Batch::new(paths.len());
    for p in paths {
        batch.written(open_read_nofollow(p.as_ref())?)?;
    }
    batch.sync()
}

/// Whether one `syncfs` is the cheaper way to make a batch durable: the
/// system's dirty and in-flight pages are within the limit ([`SYNCFS_DIRTY_MAX`]
/// or `AITOOLS_SYNCFS_DIRTY_MAX`). Without `/proc/meminfo`, yes.
fn syncfs_fits() -> bool {
    let limit = std::env::var(SYNCFS_DIRTY_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(SYNCFS_DIRTY_MAX);
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| dirty_bytes(&t))
        .is_none_or(|dirty| dirty <= limit)
}

/// Dirty + Writeback of a `/proc/meminfo` text, in bytes.
fn dirty_bytes(meminfo: &str) -> Option<u64> {
    let mut total: Option<u64> = None;
    for line in meminfo.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        if key == "Dirty" || key == "Writeback" {
            let kib: u64 = value.trim().trim_end_matches("kB").trim().parse().ok()?;
            total = Some(total.unwrap_or(0).saturating_add(kib.saturating_mul(1024)));
        }
    }
    total
}

/// `syncfs(2)` of the filesystem `f` is on.
pub fn syncfs(f: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: a valid descriptor; syncfs reads nothing from user memory.
    if unsafe { libc::syncfs(f.as_raw_fd()) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Creates `dir` (0700) if missing; refuses anything at that path but a real directory.
/// Returns whether it was created (its parent then needs an fsync).
pub fn ensure_private_dir(dir: &Path) -> io::Result<bool> {
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            let meta = std::fs::symlink_metadata(dir)?;
            if meta.file_type().is_dir() {
                Ok(false)
            } else {
                Err(io::Error::other(format!(
                    "{} exists and is not a directory",
                    dir.display()
                )))
            }
        }
        Err(e) => Err(e),
    }
}

/// Like `ensure_private_dir` for a whole chain of missing ancestors.
pub fn ensure_private_dir_all(dir: &Path) -> io::Result<()> {
    for d in create_private_dir_all(dir)? {
        sync_dir(&d)?;
    }
    Ok(())
}

/// `ensure_private_dir_all` without the syncs: creates the missing directories
/// of the chain and returns the directories whose entries changed (each created
/// one's parent), for the caller to fsync once it has made all it makes. Synced
/// after every mkdir, each fsync was a journal commit of its own; synced at the
/// end, the first commits them all (ext4) and the rest find nothing to wait for.
pub fn create_private_dir_all(dir: &Path) -> io::Result<Vec<std::path::PathBuf>> {
    if std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
        return Ok(Vec::new());
    }
    let mut changed = match dir.parent() {
        Some(parent) => create_private_dir_all(parent)?,
        None => Vec::new(),
    };
    if ensure_private_dir(dir)?
        && let Some(parent) = dir.parent()
    {
        changed.push(parent.to_path_buf());
    }
    Ok(changed)
}

/// (device, inode) of the path itself (a symlink is not followed), if it exists.
pub fn identity(path: &Path) -> Option<(u64, u64)> {
    std::fs::symlink_metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino()))
}

/// Whether anything (even a dangling symlink) is at `path`.
pub fn exists_nofollow(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// Sets a path's modification time (and access time to the same), following symlinks.
pub fn set_mtime(path: &Path, secs: i64) -> io::Result<()> {
    let t = std::fs::FileTimes::new().set_modified(to_system_time(secs));
    let f = File::options().write(false).read(true).open(path)?;
    f.set_times(t)
}

/// Seconds since the epoch as a `SystemTime` (negative values before it).
pub fn to_system_time(secs: i64) -> std::time::SystemTime {
    if secs >= 0 {
        std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs as u64)
    } else {
        std::time::UNIX_EPOCH - std::time::Duration::from_secs(secs.unsigned_abs())
    }
}

/// The process umask, read without leaving it changed.
pub fn umask() -> u32 {
    // SAFETY: umask only swaps a process attribute; we restore it immediately and
    // aitools does its file work on one thread.
    unsafe {
        let old = libc::umask(0o022);
        libc::umask(old);
        old as u32
    }
}

/// Opens a real path (no symlink on it: a walk's listed entry, a path boundary
/// resolution canonicalised) for reading, refusing a symlink anywhere on it with
/// `ELOOP`: one met was swapped in after the path was checked, to carry the read
/// outside (a file replaced by a link to `~/.ssh/id_rsa`, a directory by a link to
/// `~/.ssh`). Without waiting (a FIFO swapped in opens at once), never a terminal.
/// `openat2(RESOLVE_NO_SYMLINKS)` where the kernel has it, else `O_NOFOLLOW` (the
/// final component only). The caller checks the kind (`open_regular_real`).
pub fn open_no_symlinks(path: &Path) -> io::Result<File> {
    open_flags_no_symlinks(
        path,
        libc::O_RDONLY | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC | libc::O_NOFOLLOW,
    )
}

/// `open_no_symlinks` as an `O_PATH` descriptor: it pins the inode at a real
/// path and answers fstat, reading nothing; a symlink anywhere on the path
/// (swapped in since it was resolved) is `ELOOP`, never followed to another file.
pub fn open_pinned_no_symlinks(path: &Path) -> io::Result<File> {
    open_flags_no_symlinks(path, libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC)
}

fn open_flags_no_symlinks(path: &Path, flags: libc::c_int) -> io::Result<File> {
    use std::os::fd::FromRawFd;
    use std::os::unix::ffi::OsStrExt;
    #[repr(C)]
    struct OpenHow {
        flags: u64,
        mode: u64,
        resolve: u64,
    }
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path holds a NUL byte"))?;
    let how = OpenHow {
        flags: flags as u64,
        mode: 0,
        resolve: libc::RESOLVE_NO_SYMLINKS,
    };
    for _ in 0..3 {
        // SAFETY: a valid C string and an `open_how` of the size passed.
        let r = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                libc::AT_FDCWD,
                c.as_ptr(),
                &how as *const OpenHow,
                std::mem::size_of::<OpenHow>(),
            )
        };
        if r >= 0 {
            // SAFETY: a fresh descriptor nobody else owns.
            return Ok(unsafe { File::from_raw_fd(r as std::os::fd::RawFd) });
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            // A concurrent rename the kernel could not rule out: again.
            Some(libc::EAGAIN) | Some(libc::EINTR) => continue,
            // No openat2 (an old kernel, a seccomp filter): `O_NOFOLLOW` alone.
            Some(libc::ENOSYS) | Some(libc::EPERM) => {
                return OpenOptions::new().read(true).custom_flags(flags).open(path);
            }
            _ => return Err(e),
        }
    }
    Err(io::Error::from(io::ErrorKind::Interrupted))
}

/// `open_no_symlinks`, and only a regular file (`InvalidData` otherwise): the
/// open of a workspace path resolved to its real path (`open_regular_follow` is
/// for a path that may lead through a symlink on purpose).
pub fn open_regular_real(path: &Path) -> io::Result<File> {
    open_regular_real_meta(path).map(|(f, _)| f)
}

/// `open_regular_real`, with the open file's metadata (its one fstat).
pub fn open_regular_real_meta(path: &Path) -> io::Result<(File, std::fs::Metadata)> {
    regular_with_meta(open_no_symlinks(path)?, path)
}

/// Removes the entries of `dir` that `which` picks (by their own metadata, links
/// not followed) and that were last modified more than `max_age` before `now`
/// (a directory with what it holds); with `dry_run` only counts them. A missing
/// `dir` holds none. Returns how many.
pub fn remove_older_than(
    dir: &Path,
    max_age: std::time::Duration,
    now: std::time::SystemTime,
    dry_run: bool,
    which: fn(&std::fs::Metadata) -> bool,
) -> io::Result<u64> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    let mut removed = 0;
    for e in rd.flatten() {
        let Ok(meta) = e.metadata() else { continue };
        let old = meta
            .modified()
            .ok()
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age > max_age);
        if !old || !which(&meta) {
            continue;
        }
        if !dry_run {
            if meta.is_dir() {
                std::fs::remove_dir_all(e.path())?;
            } else {
                std::fs::remove_file(e.path())?;
            }
        }
        removed += 1;
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A temp a killed process left, or a symlink planted at the temp's name, is
    /// removed, never written through; the target is replaced whole with `mode`.
    #[test]
    fn replace_file_clears_a_stale_temp_and_never_writes_through_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        std::fs::write(d.join("rec"), b"old").expect("write");
        std::fs::write(d.join(".rec.tmp"), b"stale").expect("write");
        replace_file(d, "rec", ".rec.tmp", b"new", 0o600, true).expect("replace");
        assert_eq!(std::fs::read(d.join("rec")).expect("read"), b"new");
        assert!(!d.join(".rec.tmp").exists());
        let mode = std::fs::metadata(d.join("rec")).expect("meta").mode() & 0o777;
        assert_eq!(mode, 0o600);

        let outside = d.join("outside");
        std::fs::write(&outside, b"keep").expect("write");
        std::os::unix::fs::symlink(&outside, d.join(".rec.tmp")).expect("symlink");
        replace_file(d, "rec", ".rec.tmp", b"newer", 0o600, false).expect("replace");
        assert_eq!(std::fs::read(&outside).expect("read"), b"keep");
        assert_eq!(std::fs::read(d.join("rec")).expect("read"), b"newer");
    }

    #[test]
    fn dirty_bytes_adds_dirty_and_writeback_of_meminfo() {
        let text = "MemTotal:        8000000 kB\nDirty:             614420 kB\n\
                    Writeback:            12 kB\nWritebackTmp:         99 kB\n";
        assert_eq!(dirty_bytes(text), Some((614_420 + 12) * 1024));
        assert_eq!(dirty_bytes("MemTotal: 1 kB\n"), None);
        assert_eq!(dirty_bytes("Dirty: lots\n"), None);
    }
}
