//! Acting on the working tree from beneath its root. Every tree entry a write
//! creates, renames, removes or changes the metadata of is reached through
//! directory file descriptors opened from the workspace root's descriptor — never
//! through a path the kernel resolves again from `/` — so a directory swapped for a
//! symlink between planning and acting cannot carry the effect out of the root.
//!
//! Directories are opened with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`
//! where the kernel has it, else by a component walk (`openat` with `O_NOFOLLOW |
//! O_DIRECTORY`, one component at a time). The final component is never followed:
//! creation is `O_EXCL | O_NOFOLLOW`, rename/unlink/mkdir act on the entry, and
//! mode and time changes go through an `O_PATH | O_NOFOLLOW` descriptor of the
//! inode that was checked (not a symlink; a regular file with no other hard link
//! than those the caller accounts for).
//!
//! A kernel without openat2 (or a seccomp filter refusing it) is found out by the
//! first call of each `Tree` (one failed syscall per write), which then walks.

use std::cell::{Cell, RefCell};
use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

/// The workspace root, opened once; every operation takes absolute paths below it.
pub struct Tree {
    root: PathBuf,
    fd: OwnedFd,
    /// Try openat2 first (else walk every time); cleared when the kernel refuses it.
    openat2: Cell<bool>,
    /// Parents kept open (up to 64) for the temps of an op and their renames;
    /// forgotten by any other action that adds, moves or removes an entry.
    dirs: RefCell<Vec<(PathBuf, Rc<OwnedFd>)>>,
}

/// What `lstat` reports about an entry (the final component not followed).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stat {
    pub dev: u64,
    pub ino: u64,
    pub mode: u32,
    pub nlink: u64,
}

impl Stat {
    fn of(st: &libc::stat) -> Stat {
        Stat {
            dev: st.st_dev,
            ino: st.st_ino,
            mode: st.st_mode,
            nlink: st.st_nlink,
        }
    }
    pub fn is_dir(&self) -> bool {
        self.mode & libc::S_IFMT == libc::S_IFDIR
    }
    pub fn is_file(&self) -> bool {
        self.mode & libc::S_IFMT == libc::S_IFREG
    }
    pub fn is_symlink(&self) -> bool {
        self.mode & libc::S_IFMT == libc::S_IFLNK
    }
}

/// Whether an error means "nothing is there" (a missing entry, or a file where a
/// directory of the path would be), as `symlink_metadata` reports absence.
pub fn is_absent(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::NotFound || e.raw_os_error() == Some(libc::ENOTDIR)
}

fn last_err() -> io::Error {
    io::Error::last_os_error()
}

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 { Err(last_err()) } else { Ok(r) }
}

fn cstr(s: &OsStr) -> io::Result<CString> {
    CString::new(s.as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a path holds a NUL byte"))
}

/// A symlink where a directory (or the entry acted on) should be.
#[derive(Debug)]
struct SymlinkOnWay(String);

impl std::fmt::Display for SymlinkOnWay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SymlinkOnWay {}

/// A symlink (or a swap) on the way: refused, never followed.
fn symlink_on_way(path: &Path) -> io::Error {
    io::Error::other(SymlinkOnWay(format!(
        "{}: a directory on its way is now a symlink (it changed while aitools worked); \
         aitools does not follow it, so nothing was written outside the workspace",
        path.display()
    )))
}

/// Whether the error is the refusal to follow a symlink on the way.
pub fn is_symlink_on_way(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|r| r.is::<SymlinkOnWay>())
}

/// Refusal to change the metadata of an inode that has other names.
pub fn hard_linked(path: &Path, nlink: u64) -> io::Error {
    io::Error::other(format!(
        "{}: the file has {nlink} hard links; changing its mode or time would change \
         every name of it, including names outside the workspace",
        path.display()
    ))
}

#[repr(C)]
struct OpenHow {
    flags: u64,
    mode: u64,
    resolve: u64,
}

fn openat(
    dir: RawFd,
    name: &CString,
    flags: libc::c_int,
    mode: libc::mode_t,
) -> io::Result<OwnedFd> {
    // SAFETY: `name` is a valid C string; the returned descriptor is owned here.
    let fd = unsafe {
        libc::openat(
            dir,
            name.as_ptr(),
            flags | libc::O_CLOEXEC,
            mode as libc::c_uint,
        )
    };
    cvt(fd)?;
    // SAFETY: a fresh descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn fstatat(dir: RawFd, name: &CString, flags: libc::c_int) -> io::Result<libc::stat> {
    // SAFETY: stat is plain data, filled by the kernel.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: valid descriptor, C string and out-pointer.
    cvt(unsafe { libc::fstatat(dir, name.as_ptr(), &mut st, flags) })?;
    Ok(st)
}

fn fstat(fd: RawFd) -> io::Result<libc::stat> {
    // SAFETY: as in `fstatat`.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: valid descriptor and out-pointer.
    cvt(unsafe { libc::fstat(fd, &mut st) })?;
    Ok(st)
}

fn proc_fd(fd: RawFd) -> CString {
    CString::new(format!("/proc/self/fd/{fd}")).unwrap_or_default()
}

impl Tree {
    /// Opens the workspace root (itself not followed if it became a symlink).
    pub fn open(root: &Path) -> io::Result<Tree> {
        let c = cstr(root.as_os_str())?;
        let fd = openat(
            libc::AT_FDCWD,
            &c,
            libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW,
            0,
        )?;
        // AITOOLS_NO_OPENAT2=1 forces the component walk a kernel without
        // openat2 gets, so the race tests can run that path from outside.
        let walk_only = std::env::var_os("AITOOLS_NO_OPENAT2").is_some_and(|v| v == "1");
        Ok(Tree {
            root: root.to_path_buf(),
            fd,
            openat2: Cell::new(!walk_only),
            dirs: RefCell::new(Vec::new()),
        })
    }

    /// `open`, then only ever the component walk (for tests of the fallback).
    pub fn open_walking(root: &Path) -> io::Result<Tree> {
        let t = Tree::open(root)?;
        t.openat2.set(false);
        Ok(t)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The components of `path` below the root; anything else is refused.
    fn parts<'p>(&self, path: &'p Path) -> io::Result<Vec<&'p OsStr>> {
        let outside = || {
            io::Error::other(format!(
                "{} is not inside the workspace root {}; aitools writes only beneath it",
                path.display(),
                self.root.display()
            ))
        };
        let rel = path.strip_prefix(&self.root).map_err(|_| outside())?;
        rel.components()
            .map(|c| match c {
                Component::Normal(n) => Ok(n),
                _ => Err(outside()),
            })
            .collect()
    }

    /// Opens the directory named by `comps` below the root with `flags`
    /// (`O_DIRECTORY` is added); no component, the last included, may be a symlink.
    fn open_dir(&self, comps: &[&OsStr], flags: libc::c_int, shown: &Path) -> io::Result<OwnedFd> {
        let flags = flags | libc::O_DIRECTORY;
        if self.openat2.get() {
            let rel: PathBuf = if comps.is_empty() {
                PathBuf::from(".")
            } else {
                comps.iter().collect()
            };
            let c = cstr(rel.as_os_str())?;
            let how = OpenHow {
                flags: (flags | libc::O_CLOEXEC) as u64,
                mode: 0,
                resolve: libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS,
            };
            // SAFETY: valid descriptor, C string and `open_how` of the size passed.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_openat2,
                    self.fd.as_raw_fd(),
                    c.as_ptr(),
                    &how as *const OpenHow,
                    std::mem::size_of::<OpenHow>(),
                )
            };
            if r >= 0 {
                // SAFETY: a fresh descriptor nobody else owns.
                return Ok(unsafe { OwnedFd::from_raw_fd(r as RawFd) });
            }
            let e = last_err();
            match e.raw_os_error() {
                Some(libc::ELOOP) | Some(libc::EXDEV) => return Err(symlink_on_way(shown)),
                // No openat2 (old kernel, or a seccomp filter): walk from now on.
                Some(libc::ENOSYS) | Some(libc::EPERM) => self.openat2.set(false),
                // A concurrent rename the kernel could not rule out: walk this once.
                Some(libc::EAGAIN) => {}
                _ => return Err(e),
            }
        }
        self.walk(comps, flags, shown)
    }

    /// The component walk: each directory opened from its parent's descriptor.
    fn walk(&self, comps: &[&OsStr], flags: libc::c_int, shown: &Path) -> io::Result<OwnedFd> {
        let dot = CString::new(".").unwrap_or_default();
        let Some((last, ancestors)) = comps.split_last() else {
            return openat(self.fd.as_raw_fd(), &dot, flags, 0);
        };
        let mut cur: Option<OwnedFd> = None;
        let step = |dir: RawFd, name: &OsStr, flags: libc::c_int| -> io::Result<OwnedFd> {
            let c = cstr(name)?;
            openat(dir, &c, flags | libc::O_NOFOLLOW, 0).map_err(|e| {
                let symlink = matches!(e.raw_os_error(), Some(libc::ENOTDIR) | Some(libc::ELOOP))
                    && fstatat(dir, &c, libc::AT_SYMLINK_NOFOLLOW)
                        .is_ok_and(|st| st.st_mode & libc::S_IFMT == libc::S_IFLNK);
                if symlink { symlink_on_way(shown) } else { e }
            })
        };
        for name in ancestors {
            let dir = cur.as_ref().map_or(self.fd.as_raw_fd(), |f| f.as_raw_fd());
            cur = Some(step(dir, name, libc::O_PATH | libc::O_DIRECTORY)?);
        }
        let dir = cur.as_ref().map_or(self.fd.as_raw_fd(), |f| f.as_raw_fd());
        step(dir, last, flags)
    }

    /// The parent directory's descriptor and the final name of `path`.
    fn at(&self, path: &Path) -> io::Result<(OwnedFd, CString)> {
        let comps = self.parts(path)?;
        let Some((name, parent)) = comps.split_last() else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is the workspace root itself", path.display()),
            ));
        };
        let dir = self.open_dir(parent, libc::O_PATH, path)?;
        Ok((dir, cstr(name)?))
    }

    /// `at`, the directory kept open (see `dirs`).
    fn at_kept(&self, path: &Path) -> io::Result<(Rc<OwnedFd>, CString)> {
        let parent = path.parent().unwrap_or(path);
        if let Some((_, fd)) = self.dirs.borrow().iter().find(|(p, _)| p == parent) {
            return Ok((fd.clone(), self.final_name(path)?));
        }
        let (fd, name) = self.at(path)?;
        let fd = Rc::new(fd);
        let mut dirs = self.dirs.borrow_mut();
        let full = dirs.len() >= 64;
        dirs.drain(..usize::from(full));
        dirs.push((parent.to_path_buf(), fd.clone()));
        Ok((fd, name))
    }

    /// The entry at `path` (not followed), `None` when nothing is there.
    pub fn lstat(&self, path: &Path) -> io::Result<Option<Stat>> {
        let r = self
            .at(path)
            .and_then(|(dir, name)| fstatat(dir.as_raw_fd(), &name, libc::AT_SYMLINK_NOFOLLOW));
        match r {
            Ok(st) => Ok(Some(Stat::of(&st))),
            Err(e) if is_absent(&e) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// (device, inode) of the entry, `None` when nothing is there.
    pub fn identity(&self, path: &Path) -> io::Result<Option<(u64, u64)>> {
        Ok(self.lstat(path)?.map(|s| (s.dev, s.ino)))
    }

    /// Creates a new file with exactly `mode` (never follows or replaces
    /// anything); with the device it is on (a `fsx::Batch` needs it).
    pub fn create_new(&self, path: &Path, mode: u32) -> io::Result<(File, u64)> {
        let (dir, name) = self.at_kept(path)?;
        let fd = openat(
            dir.as_raw_fd(),
            &name,
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW,
            mode as libc::mode_t,
        )?;
        let f = File::from(fd);
        // The umask (or a default ACL) may have cleared bits the caller asked for.
        let st = fstat(f.as_raw_fd())?;
        if st.st_mode & 0o7777 != mode & 0o7777 {
            // SAFETY: a valid descriptor of the file just created.
            cvt(unsafe { libc::fchmod(f.as_raw_fd(), mode as libc::mode_t) })?;
        }
        Ok((f, st.st_dev))
    }

    /// Opens the entry at `path` to append to it (never follows a symlink, never
    /// blocks on a FIFO, never creates); with its fstat, for the caller to check
    /// it is the regular file it means.
    pub fn open_append(&self, path: &Path) -> io::Result<(File, libc::stat)> {
        let (dir, name) = self.at(path)?;
        let flags = libc::O_WRONLY | libc::O_APPEND | libc::O_NOFOLLOW | libc::O_NONBLOCK;
        let f = File::from(openat(dir.as_raw_fd(), &name, flags, 0)?);
        let st = fstat(f.as_raw_fd())?;
        Ok((f, st))
    }

    /// Creates a symlink at `path` whose text is `target`.
    pub fn symlink(&self, target: &OsStr, path: &Path) -> io::Result<()> {
        let (dir, name) = self.at(path)?;
        let t = cstr(target)?;
        // SAFETY: valid C strings and descriptor.
        cvt(unsafe { libc::symlinkat(t.as_ptr(), dir.as_raw_fd(), name.as_ptr()) })?;
        Ok(())
    }

    /// Renames the entry `from` to `to` (replacing a file or symlink there).
    pub fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.dirs.borrow_mut().clear(); // A path may name another dir now.
        let (fdir, fname) = self.at(from)?;
        self.rename_from(&fdir, &fname, from, to)
    }

    /// Renames the entry `from` to `to` when one is there; returns whether it did.
    /// (A temp file beside its target: one directory open for the look and the
    /// rename, where `lstat` then `rename` opened it three times.)
    pub fn rename_present(&self, from: &Path, to: &Path) -> io::Result<bool> {
        let (fdir, fname) = match self.at_kept(from) {
            Ok(x) => x,
            Err(e) if is_absent(&e) => return Ok(false),
            Err(e) => return Err(e),
        };
        if from.parent() == to.parent() {
            // One open directory for both names: the rename's own ENOENT is the
            // look (nothing at `from`), no stat first.
            let tname = self.final_name(to)?;
            // SAFETY: valid C strings and descriptor.
            let r = cvt(unsafe {
                libc::renameat(
                    fdir.as_raw_fd(),
                    fname.as_ptr(),
                    fdir.as_raw_fd(),
                    tname.as_ptr(),
                )
            });
            return match r {
                Ok(_) => Ok(true),
                Err(e) if e.raw_os_error() == Some(libc::ENOENT) => Ok(false),
                Err(e) => Err(e),
            };
        }
        match fstatat(fdir.as_raw_fd(), &fname, libc::AT_SYMLINK_NOFOLLOW) {
            Ok(_) => {}
            Err(e) if is_absent(&e) => return Ok(false),
            Err(e) => return Err(e),
        }
        self.dirs.borrow_mut().clear(); // A path may name another dir now.
        self.rename_from(&fdir, &fname, from, to)?;
        Ok(true)
    }

    /// renameat from the open directory `fdir` (where `from` is) to `to`; the same
    /// descriptor serves `to` when both are in one directory.
    fn rename_from(
        &self,
        fdir: &OwnedFd,
        fname: &CString,
        from: &Path,
        to: &Path,
    ) -> io::Result<()> {
        let other;
        let (tdir, tname) = if from.parent() == to.parent() {
            (fdir, self.final_name(to)?)
        } else {
            let (d, n) = self.at(to)?;
            other = d;
            (&other, n)
        };
        // SAFETY: valid C strings and descriptors.
        cvt(unsafe {
            libc::renameat(
                fdir.as_raw_fd(),
                fname.as_ptr(),
                tdir.as_raw_fd(),
                tname.as_ptr(),
            )
        })?;
        Ok(())
    }

    /// The final component of `path` below the root, checked as `at` checks it.
    fn final_name(&self, path: &Path) -> io::Result<CString> {
        let comps = self.parts(path)?;
        match comps.last() {
            Some(name) => cstr(name),
            None => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is the workspace root itself", path.display()),
            )),
        }
    }

    /// Renames `from` to `to` when the entry at `from` has this identity; returns
    /// whether it did (a step already done finds another entry, or none).
    pub fn rename_if(&self, from: &Path, id: (u64, u64), to: &Path) -> io::Result<bool> {
        self.dirs.borrow_mut().clear(); // A path may name another dir now.
        let (fdir, fname) = match self.at(from) {
            Ok(x) => x,
            Err(e) if is_absent(&e) => return Ok(false),
            Err(e) => return Err(e),
        };
        match fstatat(fdir.as_raw_fd(), &fname, libc::AT_SYMLINK_NOFOLLOW) {
            Ok(st) if (st.st_dev, st.st_ino) == id => {}
            Ok(_) => return Ok(false),
            Err(e) if is_absent(&e) => return Ok(false),
            Err(e) => return Err(e),
        }
        self.rename_from(&fdir, &fname, from, to)?;
        Ok(true)
    }

    /// Removes the file or symlink (`dir` false) or empty directory (`dir` true) at
    /// `path` when it has this identity; nothing there is fine.
    pub fn remove_if(&self, path: &Path, id: (u64, u64), dir: bool) -> io::Result<()> {
        self.dirs.borrow_mut().clear(); // A path may name another dir now.
        let (pdir, name) = match self.at(path) {
            Ok(x) => x,
            Err(e) if is_absent(&e) => return Ok(()),
            Err(e) => return Err(e),
        };
        match fstatat(pdir.as_raw_fd(), &name, libc::AT_SYMLINK_NOFOLLOW) {
            Ok(st) if (st.st_dev, st.st_ino) == id => {}
            Ok(_) => return Ok(()),
            Err(e) if is_absent(&e) => return Ok(()),
            Err(e) => return Err(e),
        }
        let flags = if dir { libc::AT_REMOVEDIR } else { 0 };
        // SAFETY: valid C string and descriptor.
        match cvt(unsafe { libc::unlinkat(pdir.as_raw_fd(), name.as_ptr(), flags) }) {
            Ok(_) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Removes the file or symlink at `path` if one is there. A path whose way
    /// holds a symlink has nothing of ours beneath the root: that is fine too.
    pub fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.dirs.borrow_mut().clear(); // A path may name another dir now.
        let (pdir, name) = match self.at(path) {
            Ok(x) => x,
            Err(e) if is_absent(&e) => return Ok(()),
            Err(e) if is_symlink_on_way(&e) => return Ok(()),
            Err(e) => return Err(e),
        };
        // SAFETY: valid C string and descriptor.
        match cvt(unsafe { libc::unlinkat(pdir.as_raw_fd(), name.as_ptr(), 0) }) {
            Ok(_) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Creates the directory `path` (an existing directory is fine; anything else
    /// there is an error).
    pub fn mkdir(&self, path: &Path) -> io::Result<()> {
        self.dirs.borrow_mut().clear(); // A path may name another dir now.
        let (dir, name) = self.at(path)?;
        // SAFETY: valid C string and descriptor.
        match cvt(unsafe { libc::mkdirat(dir.as_raw_fd(), name.as_ptr(), 0o777) }) {
            Ok(_) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                let st = fstatat(dir.as_raw_fd(), &name, libc::AT_SYMLINK_NOFOLLOW)?;
                if st.st_mode & libc::S_IFMT == libc::S_IFDIR {
                    Ok(())
                } else {
                    Err(e)
                }
            }
            Err(e) => Err(e),
        }
    }

    /// Opens the inode at `path` without following it, refusing a symlink and a
    /// regular file with more links than `1 + accounted(dev, ino)`.
    fn pinned(
        &self,
        path: &Path,
        accounted: &dyn Fn(u64, u64) -> u64,
    ) -> io::Result<(OwnedFd, CString, OwnedFd)> {
        let (dir, name) = self.at(path)?;
        let fd = openat(dir.as_raw_fd(), &name, libc::O_PATH | libc::O_NOFOLLOW, 0)?;
        let st = fstat(fd.as_raw_fd())?;
        let s = Stat::of(&st);
        if s.is_symlink() {
            return Err(symlink_on_way(path));
        }
        if s.is_file() && s.nlink > 1 + accounted(s.dev, s.ino) {
            return Err(hard_linked(path, s.nlink));
        }
        Ok((dir, name, fd))
    }

    /// Sets the permission bits of the file or directory at `path` (never through a
    /// symlink; refused on a file with other hard links than those `accounted`).
    pub fn set_mode(
        &self,
        path: &Path,
        mode: u32,
        accounted: &dyn Fn(u64, u64) -> u64,
    ) -> io::Result<()> {
        let (dir, name, fd) = self.pinned(path, accounted)?;
        let empty = CString::default();
        // SAFETY: valid descriptor and C string; fchmodat2 acts on the pinned inode.
        let r = unsafe {
            libc::syscall(
                libc::SYS_fchmodat2,
                fd.as_raw_fd(),
                empty.as_ptr(),
                mode as libc::c_uint,
                libc::AT_EMPTY_PATH,
            )
        };
        if r == 0 {
            return Ok(());
        }
        let e = last_err();
        if !matches!(
            e.raw_os_error(),
            Some(libc::ENOSYS) | Some(libc::EINVAL) | Some(libc::EOPNOTSUPP)
        ) {
            return Err(e);
        }
        // Older kernels: the descriptor's /proc name reaches the same inode.
        let p = proc_fd(fd.as_raw_fd());
        // SAFETY: valid C string.
        match cvt(unsafe { libc::chmod(p.as_ptr(), mode as libc::mode_t) }) {
            Ok(_) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                // No /proc: by name, the final component still not followed.
                // SAFETY: valid C string and descriptor.
                cvt(unsafe {
                    libc::fchmodat(
                        dir.as_raw_fd(),
                        name.as_ptr(),
                        mode as libc::mode_t,
                        libc::AT_SYMLINK_NOFOLLOW,
                    )
                })
                .map(|_| ())
            }
            Err(e) => Err(e),
        }
    }

    /// Sets the modification time of the file at `path` (access time kept; never
    /// through a symlink; refused on a file with other hard links than `accounted`).
    pub fn set_mtime(
        &self,
        path: &Path,
        secs: i64,
        accounted: &dyn Fn(u64, u64) -> u64,
    ) -> io::Result<()> {
        let (dir, name, fd) = self.pinned(path, accounted)?;
        let times = [
            libc::timespec {
                tv_sec: 0,
                tv_nsec: libc::UTIME_OMIT,
            },
            libc::timespec {
                tv_sec: secs as libc::time_t,
                tv_nsec: 0,
            },
        ];
        let empty = CString::default();
        // SAFETY: valid descriptor, C string and two timespecs.
        let r = unsafe {
            libc::utimensat(
                fd.as_raw_fd(),
                empty.as_ptr(),
                times.as_ptr(),
                libc::AT_EMPTY_PATH,
            )
        };
        if r == 0 {
            return Ok(());
        }
        let e = last_err();
        if !matches!(
            e.raw_os_error(),
            Some(libc::EINVAL) | Some(libc::ENOENT) | Some(libc::EBADF)
        ) {
            return Err(e);
        }
        let p = proc_fd(fd.as_raw_fd());
        // SAFETY: valid C string and timespecs.
        match cvt(unsafe { libc::utimensat(libc::AT_FDCWD, p.as_ptr(), times.as_ptr(), 0) }) {
            Ok(_) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                // SAFETY: valid C string, descriptor and timespecs.
                cvt(unsafe {
                    libc::utimensat(
                        dir.as_raw_fd(),
                        name.as_ptr(),
                        times.as_ptr(),
                        libc::AT_SYMLINK_NOFOLLOW,
                    )
                })
                .map(|_| ())
            }
            Err(e) => Err(e),
        }
    }

    /// fsync of the directory at `path` (the root included).
    pub fn sync_dir(&self, path: &Path) -> io::Result<()> {
        let comps = self.parts(path)?;
        let fd = self.open_dir(&comps, libc::O_RDONLY, path)?;
        File::from(fd).sync_all()
    }

    /// Makes the entries of every directory in `dirs` durable: fsync of each, or
    /// for many, one `syncfs` per filesystem they are on (`fsx::Batch`). A
    /// directory that is gone is passed over.
    pub fn sync_dirs(&self, dirs: &[PathBuf]) -> io::Result<()> {
        let mut batch = super::fsx::Batch::new(dirs.len());
        for d in dirs {
            let comps = self.parts(d)?;
            match self.open_dir(&comps, libc::O_RDONLY, d) {
                Ok(fd) => batch.written(File::from(fd))?,
                Err(e) if is_absent(&e) => {}
                Err(e) => return Err(e),
            }
        }
        batch.sync()
    }
}

#[cfg(test)]
mod tests;
