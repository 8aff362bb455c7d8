//! The file handle commands touch files through (`ctx.files()`): the tx-aware view
//! of workspace paths (`store::view`: stat, load, list, the staged blob a read
//! opens), the disk file a read opens once the view has chosen it (`Content`:
//! metadata, a seekable open, whole reads), and the directories aitools keeps its
//! own files in (`OwnDir`: bg's logs and records, the feedback entries), whose
//! entries are single names that cannot leave them. No handler names `std::fs`
//! (`tests/structure.rs`); what a handler needs from the file system is here.

use super::error::{StoreError, path_io};
use super::view::{self, Source};
use crate::workspace::Ctx;
use std::ffi::OsString;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};

/// What a path is in the view, as `Files::stat` answers.
pub use super::view::{Kind, Stat};
/// The types a handler holds (an open file, its metadata); opening goes through here.
pub use std::fs::{File, Metadata};

/// A handler's way to the workspace's files (its view methods are `store::view`'s).
pub use super::view::Files;

impl Ctx {
    /// The file handle for this invocation (tx-aware when `--tx` is set).
    pub fn files(&self) -> Files<'_> {
        Files { ctx: self }
    }
}

impl Files<'_> {
    /// `load(abs)` of a path whose lstat (`lstat`, taken by `paths::real_path_lstat`)
    /// found a regular file, when no tx decides what is there: the disk's snapshot
    /// read with that stat, not asked for again (a regular file's lstat is its
    /// stat; the read checks the open file's identity against it). `None` under
    /// `--tx` or for anything but a regular file: ask `stat`/`load`.
    pub fn load_lstat(
        &self,
        abs: &Path,
        lstat: &Metadata,
    ) -> Result<Option<std::sync::Arc<super::snapshot::Snapshot>>, Box<StoreError>> {
        if self.ctx.tx.is_some() || !lstat.file_type().is_file() {
            return Ok(None);
        }
        let ctx = self.ctx;
        ctx.session
            .snapshots
            .load_stated(abs, lstat)
            .map(Some)
            .map_err(|e| path_io(ctx, abs, e))
    }
}

/// What a read of a path finds in the view.
#[derive(Debug)]
pub enum Found {
    /// Bytes to read: the path's own file, or the tx's staged blob of it.
    At(Content),
    /// The tx removed the path (`view::removed_error` says by which op).
    Removed,
    /// The tx made it a directory (`dir`) or a symlink to nothing readable.
    NotFile { dir: bool },
}

impl<'a> Files<'a> {
    /// The file a read of `abs` opens (a final symlink followed): the staged
    /// blob of a file the tx staged, else the path itself. The path shown, the
    /// read set and the language stay `abs`'s.
    pub fn find(&self, abs: &Path) -> Result<Found, Box<StoreError>> {
        Ok(match view::source(self.ctx, abs)? {
            Source::Disk => Found::At(Content::new(abs, false)),
            Source::Staged(at) => Found::At(Content::new(&at, true)),
            Source::Missing => Found::Removed,
            Source::NotFile { dir } => Found::NotFile { dir },
        })
    }

    /// The file at `abs` on disk, whatever a tx staged: for what the view does
    /// not decide (a command without `--tx`, git's work tree, a log to follow).
    pub fn disk(&self, abs: &Path) -> Content {
        Content::new(abs, false)
    }

    /// The target text of the symlink `abs` whose view entry is `st`: the tx's
    /// staged target, else the link's on disk.
    pub fn link_text(&self, abs: &Path, st: &Stat) -> io::Result<PathBuf> {
        match st.staged.as_ref().and_then(|s| s.target.clone()) {
            Some(t) => Ok(PathBuf::from(t)),
            None => std::fs::read_link(abs),
        }
    }

    /// The entries of directory `abs` on disk (unsorted; a final symlink of an
    /// entry is not followed).
    pub fn entries(&self, abs: &Path) -> io::Result<Vec<DirEntry>> {
        entries(abs)
    }

    /// The workspace's state directory (created, its trust checked), where
    /// commands keep their own records.
    pub fn state_dir(&self) -> io::Result<OwnDir> {
        super::state_dir::ensure(&self.ctx.root, self.ctx.session.kept()).map(OwnDir::at)
    }
}

/// One directory entry, as `Files::entries` lists it.
#[derive(Debug, Clone)]
pub struct DirEntry {
    pub path: PathBuf,
    pub name: OsString,
    /// A directory itself, not a symlink to one.
    pub is_dir: bool,
}

fn entries(dir: &Path) -> io::Result<Vec<DirEntry>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir)? {
        let Ok(e) = e else { continue };
        let Ok(ft) = e.file_type() else { continue };
        out.push(DirEntry {
            path: e.path(),
            name: e.file_name(),
            is_dir: ft.is_dir(),
        });
    }
    Ok(out)
}

/// A file to read, once the view has said where its bytes are.
#[derive(Debug, Clone)]
pub struct Content {
    at: PathBuf,
    staged: bool,
    /// `at` is a real path: `open` refuses a symlink anywhere on it (`at_real`).
    real: bool,
}

impl Content {
    fn new(at: &Path, staged: bool) -> Content {
        Content {
            at: at.to_path_buf(),
            staged,
            real: false,
        }
    }

    /// The file at `at`, a real path already (a walk listed it), opened refusing
    /// a symlink anywhere on it (`ELOOP`). A tx's staged blob is kept.
    pub fn as_real(mut self) -> Content {
        self.real = !self.staged;
        self
    }

    /// The same file at its real path (symlinks resolved now), opened from then
    /// on refusing a symlink anywhere on it (`ELOOP`): one swapped in after this
    /// resolution never carries the read elsewhere. A tx's staged blob is kept.
    pub fn at_real(self, dirs: &crate::workspace::paths::Dirs) -> Content {
        if self.staged {
            return self;
        }
        Content {
            at: crate::workspace::paths::real_path(dirs, &self.at),
            staged: false,
            real: true,
        }
    }

    /// Where the bytes are (the tx's blob for a staged file).
    pub fn path(&self) -> &Path {
        &self.at
    }

    /// Whether the bytes are the tx's staged blob rather than the path's file.
    pub fn is_staged(&self) -> bool {
        self.staged
    }

    /// Metadata, a final symlink followed.
    pub fn metadata(&self) -> io::Result<Metadata> {
        std::fs::metadata(&self.at)
    }

    /// Metadata of the entry itself (a symlink is not followed).
    pub fn symlink_metadata(&self) -> io::Result<Metadata> {
        std::fs::symlink_metadata(&self.at)
    }

    /// A symlink's target text.
    pub fn read_link(&self) -> io::Result<PathBuf> {
        std::fs::read_link(&self.at)
    }

    /// Opened for reading: seekable, and positional reads (`FileExt`) work.
    /// A path that is no regular file by now (swapped for a FIFO since its
    /// stat) is refused, never waited on.
    pub fn open(&self) -> io::Result<File> {
        if self.real {
            return super::fsx::open_regular_real(&self.at);
        }
        super::fsx::open_regular_follow(&self.at)
    }

    /// The whole file.
    pub fn read(&self) -> io::Result<Vec<u8>> {
        use std::io::Read;
        let mut out = Vec::new();
        self.open()?.read_to_end(&mut out)?;
        Ok(out)
    }

    /// Why the file must not be opened (a FIFO, device, procfs file...), from
    /// `meta` (followed); `None` for a regular file.
    pub fn special_kind(&self, meta: &Metadata) -> Option<&'static str> {
        crate::workspace::input::special_kind(&self.at, meta)
    }
}

/// Whether `prog` names an executable file (exec's test for a path with a `/`).
pub fn is_executable(prog: &Path) -> bool {
    std::fs::metadata(prog).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// A directory aitools keeps its own files in (outside the workspace tree): every
/// entry is named by one plain name, so nothing read or written through it can
/// leave it.
#[derive(Debug, Clone)]
pub struct OwnDir {
    dir: PathBuf,
}

/// How `OwnDir::replace` writes a file.
#[derive(Debug, Clone, Copy)]
pub struct Durable {
    /// The new file's mode.
    pub mode: u32,
    /// fsync the file and the directory (the entry survives a crash).
    pub sync: bool,
}

/// Held while the directory is locked (`OwnDir::try_lock`).
#[derive(Debug)]
pub struct DirLock {
    _file: File,
}

fn name_of(name: &str) -> io::Result<&Path> {
    let p = Path::new(name);
    let mut parts = p.components();
    match (parts.next(), parts.next()) {
        (Some(Component::Normal(_)), None) => Ok(p),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{name:?} is not a plain file name"),
        )),
    }
}

impl OwnDir {
    /// The directory at `dir` (resolved by the caller: the state directory, or
    /// `$AITOOLS_FEEDBACK_DIR`).
    pub fn at(dir: PathBuf) -> OwnDir {
        OwnDir { dir }
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The path of entry `name` (for answers and for other programs; not opened).
    pub fn file(&self, name: &str) -> io::Result<PathBuf> {
        Ok(self.dir.join(name_of(name)?))
    }

    /// The subdirectory `name` (not created).
    pub fn sub(&self, name: &str) -> io::Result<OwnDir> {
        Ok(OwnDir::at(self.file(name)?))
    }

    /// Creates the directory and its missing parents.
    pub fn create(&self) -> io::Result<()> {
        std::fs::create_dir_all(&self.dir)
    }

    /// Creates the subdirectory `name`; fails when it exists (the caller that
    /// creates it owns it).
    pub fn create_sub(&self, name: &str) -> io::Result<OwnDir> {
        let d = self.sub(name)?;
        std::fs::create_dir(&d.dir)?;
        Ok(d)
    }

    /// The names of the directory's entries (unsorted).
    pub fn names(&self) -> io::Result<Vec<OsString>> {
        Ok(entries(&self.dir)?.into_iter().map(|e| e.name).collect())
    }

    /// The whole entry `name`.
    pub fn read(&self, name: &str) -> io::Result<Vec<u8>> {
        std::fs::read(self.file(name)?)
    }

    /// Entry `name` opened for reading (seekable).
    pub fn open(&self, name: &str) -> io::Result<File> {
        File::open(self.file(name)?)
    }

    /// Entry `name`'s size in bytes.
    pub fn len(&self, name: &str) -> io::Result<u64> {
        std::fs::metadata(self.file(name)?).map(|m| m.len())
    }

    /// Entry `name` opened for appending (created when missing).
    pub fn append(&self, name: &str) -> io::Result<File> {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.file(name)?)
    }

    /// Replaces entry `name` with `bytes` at once: written to a new temp name,
    /// renamed over it; a reader sees the old file or the new, never half.
    pub fn replace(&self, name: &str, bytes: &[u8], how: Durable) -> io::Result<()> {
        // Checks `name` is one plain name; the temp is per process, as two
        // processes may rewrite the same record.
        self.file(name)?;
        let tmp = format!(".{name}.{}.tmp", std::process::id());
        super::fsx::replace_file(&self.dir, name, &tmp, bytes, how.mode, how.sync)
    }

    /// An exclusive flock on the directory itself, if no one else holds it
    /// (`None`: held elsewhere; the caller decides how long to wait).
    pub fn try_lock(&self) -> io::Result<Option<DirLock>> {
        use std::os::fd::AsRawFd;
        let file = File::open(&self.dir)?;
        // SAFETY: flock on a descriptor this function owns; no memory is shared.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if rc == 0 {
            return Ok(Some(DirLock { _file: file }));
        }
        let err = io::Error::last_os_error();
        if err.kind() == io::ErrorKind::WouldBlock {
            return Ok(None);
        }
        Err(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_dir_names_cannot_leave_it() {
        let t = tempfile::tempdir().expect("tempdir");
        let d = OwnDir::at(t.path().join("d"));
        d.create().expect("create");
        for bad in ["", "..", ".", "a/b", "/etc/passwd", "../x"] {
            assert!(d.file(bad).is_err(), "{bad}");
            assert!(d.read(bad).is_err(), "{bad}");
        }
        let how = Durable {
            mode: 0o600,
            sync: true,
        };
        d.replace("x.json", b"1", how).expect("replace");
        d.replace("x.json", b"22", how).expect("replace again");
        assert_eq!(d.read("x.json").expect("read"), b"22");
        assert_eq!(d.len("x.json").expect("len"), 2);
        assert_eq!(d.names().expect("names"), vec![OsString::from("x.json")]);
        let held = d.try_lock().expect("lock");
        assert!(held.is_some());
        assert!(d.try_lock().expect("second").is_none());
        drop(held);
        assert!(d.try_lock().expect("again").is_some());
    }
}
