//! Blobs: file contents named by their SHA-256, shared by the journal (before-states
//! that undo writes back) and transactions. A blob is written once and never
//! changed, and never shares an inode with a file anyone can still write: a process
//! holding the old file open (`exec 3>>f`) would otherwise change the undo copy
//! under its hash. The before-image of a file an op replaces is the old inode
//! itself where that holds (`link_before_image`: one name, unchanged, nobody has
//! it open for writing, same filesystem), linked straight at its blob name and
//! trusted only once the rename took the tree's name off it (`publish_link`): a
//! blob with more than one name is a link not yet published, never sound (a
//! reader takes a pack's copy first); else
//! a reflink (`FICLONE`, shared extents copied on write) where the file system
//! has them, else a copy. A blob is 0600 in the 0700 `blobs/`, and its hash is
//! checked when undo reads it back.

use super::snapshot::Stamp;
use super::{fsx, pack};
use crate::text::lines::sha256_hex;
use sha2::{Digest, Sha256};
use std::io::{self, Read, Seek};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

pub fn dir(state: &Path) -> PathBuf {
    state.join("blobs")
}

pub fn path(state: &Path, hash: &str) -> PathBuf {
    dir(state).join(hash)
}

/// Whether a blob of that name is there (sound or not).
pub fn exists(state: &Path, hash: &str) -> bool {
    fsx::exists_nofollow(&path(state, hash))
}

/// Whether the blob `hash` is there and may be reused as is (`sound`): a link
/// not yet published, or one a set-aside shares, is not, and is stored again.
pub fn kept(state: &Path, hash: &str) -> bool {
    sound(&path(state, hash))
}

/// One lstat for both: `None` when nothing is at the blob's name, else whether
/// it is `kept`.
pub fn kept_or_taken(state: &Path, hash: &str) -> Option<bool> {
    std::fs::symlink_metadata(path(state, hash))
        .ok()
        .map(|m| sound_meta(&m))
}

/// Whether the blob at `p` may be reused as is: a private regular file with one
/// name. A blob an older version hard-linked to a tree file, or a before-image
/// link not yet published, fails this and is written again.
fn sound(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| sound_meta(&m))
}

fn sound_meta(m: &std::fs::Metadata) -> bool {
    m.is_file() && m.nlink() == 1 && m.mode() & 0o077 == 0
}

/// Reads a blob's bytes: its own file, else from a pack (see [`read_in`]).
pub fn read(state: &Path, hash: &str) -> io::Result<Vec<u8>> {
    read_in(state, hash, None)
}

/// Reads a blob's bytes: its own file, else the pack of the op `hint` (the op
/// that kept it, when the caller knows it), else any pack that holds it. The
/// error is the own file's when no pack holds it.
pub fn read_in(state: &Path, hash: &str, hint: Option<&str>) -> io::Result<Vec<u8>> {
    let mut f = match fsx::open_regular_nlink(&path(state, hash)) {
        Ok((f, 1)) => f,
        // A link not yet published (a tree file's other name): a pack's copy
        // first, when one has it.
        Ok((f, _)) => match pack::find(state, hash, hint)? {
            Some(bytes) => return Ok(bytes),
            None => f,
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return pack::find(state, hash, hint)?.ok_or(e);
        }
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    f.read_to_end(&mut out)?;
    Ok(out)
}

/// Reads a blob and checks that its bytes still hash to its name
/// (`InvalidData` when they do not).
pub fn read_verified(state: &Path, hash: &str) -> io::Result<Vec<u8>> {
    read_verified_in(state, hash, None)
}

/// `read_verified` through [`read_in`].
pub fn read_verified_in(state: &Path, hash: &str, hint: Option<&str>) -> io::Result<Vec<u8>> {
    let bytes = read_in(state, hash, hint)?;
    if sha256_hex(&bytes) != hash {
        // A loose file that lost its bytes: a pack may still hold them.
        if let Ok(Some(b)) = pack::find(state, hash, hint)
            && sha256_hex(&b) == hash
        {
            return Ok(b);
        }
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("blob {hash} no longer holds the bytes its name is the hash of"),
        ));
    }
    Ok(bytes)
}

/// How a blob came to exist.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stored {
    /// It was there already.
    Existing,
    /// Written (reflinked or copied) through `tmp` and fsynced (the dir entry
    /// needs an fsync).
    Written,
}

/// Stores the content of the regular file `src` (whose hash is `hash`) as a blob.
/// `bytes` (the content as read and hashed) is written when a reflink is not
/// possible or does not hash to `hash` (the file changed since it was read).
pub fn store_file(
    state: &Path,
    hash: &str,
    src: &Path,
    bytes: Option<&[u8]>,
    tmp: &Path,
) -> io::Result<Stored> {
    let mut batch = fsx::Batch::new(1);
    let stored = stage_file(state, hash, src, bytes, tmp, &mut batch)?;
    batch.sync()?;
    publish(state, hash, tmp, stored)
}

/// Names a staged blob (`stage_file`, `stage_bytes`) once its batch is synced.
pub fn publish(state: &Path, hash: &str, tmp: &Path, stored: Stored) -> io::Result<Stored> {
    if stored == Stored::Written {
        std::fs::rename(tmp, path(state, hash))?;
    }
    Ok(stored)
}

/// `store_file` up to the sync (one blob on its own; see [`Stager`]).
pub fn stage_file(
    state: &Path,
    hash: &str,
    src: &Path,
    bytes: Option<&[u8]>,
    tmp: &Path,
    batch: &mut fsx::Batch,
) -> io::Result<Stored> {
    if sound(&path(state, hash)) {
        return Ok(Stored::Existing);
    }
    Stager::new(state).stage_file(src, bytes, tmp, hash, batch)
}

/// The staging of the blobs of one op: what it needs to know once (whether the
/// file system has reflinks) is learnt once, not per blob. Its callers
/// stage only blobs they saw missing while planning (`exists`): a blob that appears
/// meanwhile is the same bytes under the same name, and `publish` replaces it whole.
pub struct Stager<'a> {
    state: &'a Path,
    reflinks: Option<bool>,
}

impl<'a> Stager<'a> {
    pub fn new(state: &'a Path) -> Stager<'a> {
        Stager {
            state,
            reflinks: None,
        }
    }

    fn reflinks(&mut self) -> bool {
        let state = self.state;
        *self.reflinks.get_or_insert_with(|| reflinks(&dir(state)))
    }

    /// A new private (0600) temp at `tmp`, `rw` to hash a copy back. The name is
    /// the op's own; whatever a killed run of it left there is removed first.
    fn create(&mut self, tmp: &Path, rw: bool) -> io::Result<std::fs::File> {
        let f = match create_private(tmp, rw) {
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                std::fs::remove_file(tmp)?;
                create_private(tmp, rw)?
            }
            r => r?,
        };
        // The umask (or a default ACL) may have cleared bits of 0600.
        f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        Ok(f)
    }

    /// `store_file` up to the sync: the temp file is written and handed to `batch`;
    /// `publish` names it once the batch is synced (a blob is never named before
    /// its bytes are durable: a later op would take a named blob as sound).
    pub fn stage_file(
        &mut self,
        src: &Path,
        bytes: Option<&[u8]>,
        tmp: &Path,
        hash: &str,
        batch: &mut fsx::Batch,
    ) -> io::Result<Stored> {
        // Opening the target again is only worth it where a reflink can work (or
        // there are no bytes in memory to write).
        let try_src = bytes.is_none() || self.reflinks();
        if let (false, Some(b)) = (try_src, bytes) {
            // The bytes as read and hashed, written once (as `stage_bytes`).
            return self.stage_bytes(b, tmp, batch);
        }
        let mut out = self.create(tmp, true)?;
        let opened = if try_src {
            fsx::open_read_nofollow(src).ok()
        } else {
            None
        };
        let copied = match opened {
            Some(from) => {
                let ok = reflink(&from, &out).is_ok()
                    || (bytes.is_none() && copy_range(&from, &out).is_ok());
                ok && hash_of(&mut out)? == hash
            }
            None => false,
        };
        if !copied {
            let Some(b) = bytes else {
                drop(out);
                let _ = std::fs::remove_file(tmp);
                return Err(io::Error::other(format!(
                    "{} changed while its earlier content was being kept",
                    src.display()
                )));
            };
            out.set_len(0)?;
            out.rewind()?;
            fsx::write_pieces(&mut out, &[b])?;
        }
        batch.written(out)?;
        Ok(Stored::Written)
    }

    /// `store_bytes` up to the sync, as `stage_file`.
    pub fn stage_bytes(
        &mut self,
        bytes: &[u8],
        tmp: &Path,
        batch: &mut fsx::Batch,
    ) -> io::Result<Stored> {
        let mut f = self.create(tmp, false)?;
        fsx::write_pieces(&mut f, &[bytes])?;
        batch.written(f)?;
        Ok(Stored::Written)
    }
}

/// Keeps the before-image of a file an op replaces or removes as a second name of
/// its inode, `to` in `blobs/` (its blob name): no data is written, and the rename that replaces
/// the file leaves the old inode to the blob store instead of freeing it. Only when
/// the inode at `src` is still the one read and hashed (`was`: device, inode, size,
/// mtime, ctime all equal), a regular file of the caller with one name (another
/// name could still change it), and no process has it open for writing (a
/// read-lease test: `exec 3>>f` would otherwise change the blob after the op).
/// The descriptor checked is the one linked (through `/proc/self/fd`). Any
/// refusal or error is `Err`: the caller copies instead. The link is a name of a
/// live tree file until the op's steps ran (two names: not sound, see `read_in`):
/// `publish_link` checks it and makes it a private blob.
///
/// `linkable` checks the inode at `src` (before the op's intent is written, so a
/// file that fails goes into the pack with the others) against the caller's
/// `euid` (read once per op); `link_before_image` links the descriptor it checked.
pub fn linkable(src: &Path, was: &Stamp, dev: u64, euid: u32) -> Option<std::fs::File> {
    let f = super::fsx::open_pinned_no_symlinks(src).ok()?;
    let m = f.metadata().ok()?;
    (m.is_file() && m.nlink() == 1 && m.uid() == euid && m.dev() == dev && Stamp::of(&m) == *was)
        .then_some(f)
}

/// The effective user id (`linkable`'s owner check).
pub fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// Links the inode `f` (checked by `linkable`) at `to` (see above) and returns
/// its stamp after the link (the link moved its ctime); `Err` when
/// it is open for writing elsewhere, has changed since the check, or the link
/// fails: the caller copies instead. A blob name `to` that is taken is never
/// replaced (the caller saw it missing: it is not this op's); a temp name is
/// (a killed run of this op left it).
///
/// `readable`: `f` is open for reading (the write's read kept it), so the lease
/// is taken on it; else (`linkable`'s `O_PATH` one) on the inode opened again
/// through `/proc/self/fd`, returned with the stamp: the descriptor to publish
/// the link through (`publish_link`'s `held`).
pub fn link_before_image(
    f: &std::fs::File,
    readable: bool,
    was: &Stamp,
    to: &Path,
) -> io::Result<(Stamp, Option<std::fs::File>)> {
    let fd = format!("/proc/self/fd/{}", f.as_raw_fd());
    // A read lease is refused while anyone has the inode open for writing.
    let opened = if readable {
        None
    } else {
        Some(std::fs::File::open(&fd)?)
    };
    let r = opened.as_ref().unwrap_or(f);
    if !lease(r) {
        return Err(io::Error::other(
            "not linked: open for writing elsewhere, or no leases here",
        ));
    }
    // Still as read, now that no writer can open it unnoticed.
    let same = r.metadata().is_ok_and(|m| Stamp::of(&m) == *was);
    let linked = if !same {
        Err(io::Error::other("not linked: changed since it was read"))
    } else {
        linkat_follow(&fd, to).or_else(|e| {
            // A killed run of this op left its temp: replace it.
            if e.kind() == io::ErrorKind::AlreadyExists && is_temp(to) {
                std::fs::remove_file(to)?;
                linkat_follow(&fd, to)
            } else {
                Err(e)
            }
        })
    };
    // The inode as the link left it (its ctime moved), still under the lease.
    let stamp = linked.and_then(|()| r.metadata()).map(|m| Stamp::of(&m));
    unlease(r);
    stamp.map(|st| (st, opened))
}

/// Takes a read lease on `f` (open read-only): refused (false) while anyone has
/// the inode open for writing, and where leases are off or not supported. A
/// lease break would signal this process: it asks for SIGWINCH, ignored by
/// default, and holds the lease for a few syscalls only.
fn lease(f: &std::fs::File) -> bool {
    // SAFETY: fcntl on a descriptor we own, with integer arguments only.
    unsafe {
        libc::fcntl(f.as_raw_fd(), F_SETSIG, libc::SIGWINCH) == 0
            && libc::fcntl(f.as_raw_fd(), libc::F_SETLEASE, libc::F_RDLCK) == 0
    }
}

/// `lease` again on a descriptor `lease` was given before (its F_SETSIG stays).
fn lease_again(f: &std::fs::File) -> bool {
    // SAFETY: as `lease`.
    unsafe { libc::fcntl(f.as_raw_fd(), libc::F_SETLEASE, libc::F_RDLCK) == 0 }
}

fn unlease(f: &std::fs::File) {
    // SAFETY: as `lease`.
    unsafe { libc::fcntl(f.as_raw_fd(), libc::F_SETLEASE, libc::F_UNLCK) };
}

/// fcntl's F_SETSIG (Linux; not in the libc crate).
pub(super) const F_SETSIG: libc::c_int = 10;

/// `linkat(AT_FDCWD, from, AT_FDCWD, to, AT_SYMLINK_FOLLOW)`: `from` a
/// `/proc/self/fd/N` name, so the link is that descriptor's inode.
fn linkat_follow(from: &str, to: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let from = std::ffi::CString::new(from).map_err(io::Error::other)?;
    let to = std::ffi::CString::new(to.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // SAFETY: two valid C strings; linkat reads them only.
    let r = unsafe {
        libc::linkat(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::AT_SYMLINK_FOLLOW,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Whether `p` is a temp name in `blobs/` (a dot name), not a blob's.
fn is_temp(p: &Path) -> bool {
    p.file_name()
        .is_some_and(|n| n.as_encoded_bytes().starts_with(b"."))
}

/// Publishes a before-image `link_before_image` kept at `tmp`, once the op's
/// steps ran: trusted as the blob `hash` when it is the inode's only name, still
/// has the size and mtime it had when read, and nobody has it open for writing
/// (made 0600). Else (a name made meanwhile, a writer that still holds it, bytes
/// written through a descriptor) its first `size` bytes become a private copy
/// when they still hash to `hash`, and the link is dropped. `tmp` is the blob's
/// own name (linked there directly), or a temp name (records of older versions:
/// renamed to the blob name, and gone afterwards). Returns whether `blobs/`
/// changed (its directory needs an fsync). Nothing there (published already) is
/// nothing to do.
///
/// `held`: the descriptor `link_before_image` linked and leased, when this
/// process made the link (the op itself, not a recovery): looked at instead of
/// opening the blob's name again. It is the inode linked at `tmp`: `blobs/` is
/// private to this user and the workspace lock is held from the link to here,
/// so nothing but this op named or renamed anything there meanwhile; and the
/// checks are the same ones (one name, size and mtime as read, under a lease).
pub fn publish_link(
    state: &Path,
    tmp: &Path,
    hash: &str,
    size: u64,
    mtime_ns: i64,
    held: Option<&std::fs::File>,
) -> io::Result<bool> {
    if !is_temp(tmp) {
        return publish_in_place(state, tmp, hash, size, mtime_ns, held);
    }
    let m = match std::fs::symlink_metadata(tmp) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    let stamp = Stamp::of(&m);
    if m.is_file() && m.nlink() == 1 && stamp.size == size && stamp.mtime_ns == mtime_ns as i128 {
        // Named only under a read lease: nobody may still have the old inode open
        // for writing (an appender that opened it before the rename), or a
        // write could change the blob after it is named.
        let f = fsx::open_read_nofollow(tmp)?;
        if lease(&f) {
            let same = f.metadata().is_ok_and(|now| {
                let now = Stamp::of(&now);
                now.size == size && now.mtime_ns == mtime_ns as i128
            });
            let named = same
                && f.set_permissions(std::fs::Permissions::from_mode(0o600))
                    .and_then(|()| std::fs::rename(tmp, path(state, hash)))
                    .is_ok();
            unlease(&f);
            if named {
                return Ok(true);
            }
        }
    }
    let mut kept = false;
    if m.is_file()
        && !sound(&path(state, hash))
        && let Ok(f) = fsx::open_read_nofollow(tmp)
    {
        let mut bytes = Vec::new();
        f.take(size).read_to_end(&mut bytes)?;
        if bytes.len() as u64 == size && sha256_hex(&bytes) == hash {
            let copy = dir(state).join(format!(
                "{}.copy",
                tmp.file_name()
                    .map(|n| n.to_string_lossy())
                    .unwrap_or_default()
            ));
            store_bytes(state, hash, &bytes, &copy)?;
            kept = true;
        }
    }
    std::fs::remove_file(tmp)?;
    Ok(kept)
}

/// `publish_link` of a link made at the blob's own name `at`: one open, a lease,
/// one fstat, the chmod when the mode is not 0600 yet; no directory change
/// unless the link is replaced by a copy or dropped.
fn publish_in_place(
    state: &Path,
    at: &Path,
    hash: &str,
    size: u64,
    mtime_ns: i64,
    held: Option<&std::fs::File>,
) -> io::Result<bool> {
    let opened;
    let f = match held {
        Some(f) => f,
        None => match fsx::open_read_nofollow(at) {
            Ok(f) => {
                opened = f;
                &opened
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
            // A symlink at a blob's name is not this op's link: dropped.
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                ignore_missing(std::fs::remove_file(at))?;
                return Ok(true);
            }
            Err(e) => return Err(e),
        },
    };
    let as_read = |m: &std::fs::Metadata| {
        let st = Stamp::of(m);
        m.is_file() && m.nlink() == 1 && st.size == size && st.mtime_ns == mtime_ns as i128
    };
    // Trusted only under a read lease: nobody may still have the old inode open
    // for writing (an appender that opened it before the rename), or a write
    // could change the blob after it is trusted.
    // (A held descriptor was given its lease signal at the link.)
    let leased = if held.is_some() {
        lease_again(f)
    } else {
        lease(f)
    };
    if leased {
        let ok = f.metadata().is_ok_and(|m| {
            as_read(&m)
                && (m.mode() & 0o7777 == 0o600
                    || f.set_permissions(std::fs::Permissions::from_mode(0o600))
                        .is_ok())
        });
        unlease(f);
        if ok {
            return Ok(false);
        }
    }
    // Not trusted as is: its first `size` bytes, when they still hash to `hash`,
    // become a private copy under the blob's name; else the name is dropped.
    let mut bytes = Vec::new();
    let is_file = f.metadata().is_ok_and(|m| m.is_file());
    if is_file {
        // From the start (a held descriptor was never read from). A file shorter
        // than `size` by now is no copy of the blob (never its zero-filled tail).
        use std::os::unix::fs::FileExt;
        bytes.resize(size as usize, 0);
        match f.read_exact_at(&mut bytes, 0) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => bytes.clear(),
            Err(e) => return Err(e),
        }
    }
    if is_file && bytes.len() as u64 == size && sha256_hex(&bytes) == hash {
        let copy = dir(state).join(format!(".{hash}.copy"));
        let mut batch = fsx::Batch::new(1);
        let stored = Stager::new(state).stage_bytes(&bytes, &copy, &mut batch)?;
        batch.sync()?;
        publish(state, hash, &copy, stored)?;
    } else {
        ignore_missing(std::fs::remove_file(at))?;
    }
    Ok(true)
}

fn ignore_missing(r: io::Result<()>) -> io::Result<()> {
    match r {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

/// Stores bytes as a blob.
pub fn store_bytes(state: &Path, hash: &str, bytes: &[u8], tmp: &Path) -> io::Result<Stored> {
    let mut batch = fsx::Batch::new(1);
    let stored = stage_bytes(state, hash, bytes, tmp, &mut batch)?;
    batch.sync()?;
    publish(state, hash, tmp, stored)
}

/// `store_bytes` up to the sync (one blob on its own; see [`Stager`]).
pub fn stage_bytes(
    state: &Path,
    hash: &str,
    bytes: &[u8],
    tmp: &Path,
    batch: &mut fsx::Batch,
) -> io::Result<Stored> {
    if sound(&path(state, hash)) {
        return Ok(Stored::Existing);
    }
    Stager::new(state).stage_bytes(bytes, tmp, batch)
}

/// Whether the file system holding `dir` has reflinks (btrfs, XFS, bcachefs).
fn reflinks(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: statfs fills the zeroed struct it is given; the path is a valid C string.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statfs(c.as_ptr(), &mut st) } != 0 {
        return false;
    }
    const BTRFS: i64 = 0x9123_683e;
    const XFS: i64 = 0x5846_5342;
    const BCACHEFS: i64 = 0xca45_1a4e;
    matches!(st.f_type as i64, BTRFS | XFS | BCACHEFS)
}

/// Makes `to` share `from`'s extents (copy on write): no data is copied and the
/// two inodes stay independent. Fails where the file system has no reflinks.
fn reflink(from: &std::fs::File, to: &std::fs::File) -> io::Result<()> {
    // SAFETY: FICLONE takes the source descriptor as its argument; both
    // descriptors are open for the duration of the call.
    let r = unsafe { libc::ioctl(to.as_raw_fd(), libc::FICLONE, from.as_raw_fd()) };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Copies `from` into `to` in the kernel (`copy_file_range`), from offset 0.
fn copy_range(from: &std::fs::File, to: &std::fs::File) -> io::Result<()> {
    let len = from.metadata()?.len();
    let (mut off_in, mut off_out): (libc::loff_t, libc::loff_t) = (0, 0);
    while (off_in as u64) < len {
        let want = (len - off_in as u64).min(1 << 30) as usize;
        // SAFETY: both descriptors are open; the offsets are valid pointers to
        // locals the kernel updates.
        let n = unsafe {
            libc::copy_file_range(
                from.as_raw_fd(),
                &mut off_in,
                to.as_raw_fd(),
                &mut off_out,
                want,
                0,
            )
        };
        match n {
            n if n < 0 => return Err(io::Error::last_os_error()),
            0 => break,
            _ => {}
        }
    }
    Ok(())
}

/// The SHA-256 of a file's whole content, read from the start.
fn hash_of(f: &mut std::fs::File) -> io::Result<String> {
    f.rewind()?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(crate::text::lines::hex(&h.finalize()))
}

/// A new file created 0600 (less the umask), write-only or (`rw`) for reading
/// and writing too (a copy is hashed back); never through a symlink.
fn create_private(p: &Path, rw: bool) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(rw)
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A linked before-image trusted as is when untouched; one still open for
    /// writing, or written to through a descriptor after the link (an appender
    /// that opened it before the rename), is kept as a copy of the bytes read, or
    /// dropped when they are gone. Linked at the blob's own name, or (records of
    /// older versions) at a temp name.
    #[test]
    fn a_link_written_to_after_it_was_made_is_published_as_a_copy() {
        use std::io::Write;
        let t = tempfile::tempdir().unwrap();
        // In place: published by name (a recovery) or through the descriptor
        // linked (`held`, the op itself).
        for (in_place, held) in [(true, false), (true, true), (false, false)] {
            let state = t.path().join(format!("state-{in_place}-{held}"));
            std::fs::create_dir_all(dir(&state)).unwrap();
            let dev = std::fs::metadata(&state).unwrap().dev();
            for case in ["untouched", "held", "appended", "overwritten"] {
                let src = t.path().join(format!("{case}-{held}.txt"));
                std::fs::write(&src, format!("before {case}\n")).unwrap();
                let bytes = std::fs::read(&src).unwrap();
                let hash = sha256_hex(&bytes);
                let was = Stamp::of(&std::fs::metadata(&src).unwrap());
                let f = linkable(&src, &was, dev, euid()).expect("linkable");
                let at = if in_place {
                    path(&state, &hash)
                } else {
                    dir(&state).join(format!(".op-{case}-0.tmp"))
                };
                let (_, opened) = link_before_image(&f, false, &was, &at).expect("linked");
                // Two names: not sound, and not taken as a blob yet.
                assert!(!sound(&at), "{case}");
                let mut w = std::fs::OpenOptions::new()
                    .write(true)
                    .append(case == "appended")
                    .open(&src)
                    .unwrap();
                std::fs::remove_file(&src).unwrap();
                match case {
                    "appended" => {
                        w.write_all(b"tail\n").unwrap();
                    }
                    "overwritten" => {
                        w.write_all(b"XXXXXX").unwrap();
                    }
                    "held" => {}
                    _ => drop(w),
                }
                let by = opened.as_ref().filter(|_| held);
                let changed =
                    publish_link(&state, &at, &hash, was.size, was.mtime_ns as i64, by).unwrap();
                let label = format!("{case} (in place: {in_place}, held: {held})");
                assert!(in_place || !at.exists(), "{label}");
                if case == "overwritten" {
                    assert!(!path(&state, &hash).exists(), "{label}");
                    continue;
                }
                // In place, the untouched link is trusted with no directory change.
                assert_eq!(changed, !in_place || case != "untouched", "{label}");
                assert_eq!(read_verified(&state, &hash).unwrap(), bytes, "{label}");
                assert!(sound(&path(&state, &hash)), "{label}");
                let linked = std::fs::metadata(path(&state, &hash)).unwrap().ino() == was.ino;
                assert_eq!(linked, case == "untouched", "{label}");
            }
        }
    }

    /// A blob with a second name (a link not yet published) is read from a pack
    /// that holds it, never through the tree file it shares.
    #[test]
    fn an_unpublished_link_is_read_from_a_pack_first() {
        let t = tempfile::tempdir().unwrap();
        let state = t.path().join("state");
        std::fs::create_dir_all(pack::dir(&state)).unwrap();
        let hash = sha256_hex(b"kept");
        let mut batch = fsx::Batch::new(1);
        let tmp = dir(&state).join(".p.tmp");
        pack::write(&tmp, &[(hash.as_str(), b"kept".as_slice())], &mut batch).unwrap();
        batch.sync().unwrap();
        std::fs::rename(&tmp, pack::path(&state, "op-1")).unwrap();
        let tree = t.path().join("f");
        std::fs::write(&tree, b"changed in the tree").unwrap();
        std::fs::hard_link(&tree, path(&state, &hash)).unwrap();
        assert_eq!(read_verified(&state, &hash).unwrap(), b"kept");
        assert_eq!(
            read_verified_in(&state, &hash, Some("op-1")).unwrap(),
            b"kept"
        );
    }

    /// What a killed run left at a temp's name (a file, a symlink to a file
    /// elsewhere) is replaced, never written through; the blob is 0600 and whole.
    #[test]
    fn a_stager_replaces_what_is_left_at_a_temp_name() {
        let t = tempfile::tempdir().unwrap();
        let state = t.path().join("state");
        std::fs::create_dir_all(dir(&state)).unwrap();
        let outside = t.path().join("outside");
        std::fs::write(&outside, b"keep").unwrap();
        let src = t.path().join("src");
        std::fs::write(&src, b"before").unwrap();
        let hash = sha256_hex(b"before");
        let mut stager = Stager::new(&state);
        for (i, left) in [None, Some(false), Some(true)].into_iter().enumerate() {
            let tmp = dir(&state).join(format!(".op-{i}.tmp"));
            match left {
                Some(true) => std::os::unix::fs::symlink(&outside, &tmp).unwrap(),
                Some(false) => std::fs::write(&tmp, b"partial").unwrap(),
                None => {}
            }
            let mut batch = fsx::Batch::new(1);
            let stored = if i == 1 {
                stager.stage_bytes(b"before", &tmp, &mut batch)
            } else {
                stager.stage_file(&src, Some(b"before"), &tmp, &hash, &mut batch)
            };
            assert_eq!(stored.unwrap(), Stored::Written);
            batch.sync().unwrap();
            publish(&state, &hash, &tmp, Stored::Written).unwrap();
            assert_eq!(read_verified(&state, &hash).unwrap(), b"before");
            assert!(sound(&path(&state, &hash)), "{i}");
        }
        assert_eq!(std::fs::read(&outside).unwrap(), b"keep");
    }
}
