//! Concurrent appenders. A write replaces a file by renaming a new one over it;
//! bytes another program appends to the old inode after the file was read would
//! vanish with that inode. Two checks make such a loss never silent:
//!
//! - `arm`, just before the commit point: every file the op replaces must still
//!   hold what was read (same inode; same metadata, or bytes equal to the ones
//!   read followed by an appended tail); otherwise the op refuses with
//!   `refusal.target-changed` and nothing is written. It keeps the old inode open.
//! - `settle`, after the renames: an old inode that grew since has its new tail
//!   kept as a blob, named in the journal entry (`appends`) and in the answer
//!   (`concurrent_appends`) with the command that appends it again.
//!
//! Before `settle` keeps a tail aside, it carries it over (`carry`): it waits a
//! little (`WAIT`) until nobody has the old inode open for writing (a read
//! lease is refused while anyone does), then appends what was written there to
//! the file now at the path. An appender that opens the file for each line
//! (`echo >>`) loses nothing; one that keeps it open longer gets its tail kept
//! aside and reported as before. Lines carried over may come after some an
//! appender already wrote to the new file.

use super::beneath::Tree;
use super::blobs;
use super::fsx;
use super::journal::Appended;
use super::snapshot::{Snapshot, Stamp};
use super::stream::Scan;
use crate::protocol::{Json, shell};
use crate::text::lines::sha256_hex;
use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a write waits, in all, for appenders to close its old inodes.
const WAIT: Duration = Duration::from_millis(500);

/// A file the op replaces, as it was read (absolute path, path shown, read).
pub type Target = (PathBuf, String, Read);

/// How a replaced file was read: whole (its bytes), or by a streaming pass
/// (its length and hash).
pub enum Read {
    Held(Arc<Snapshot>),
    Streamed(Arc<Scan>),
}

impl Read {
    fn stamp(&self) -> &Stamp {
        match self {
            Read::Held(s) => &s.stamp,
            Read::Streamed(s) => &s.stamp,
        }
    }

    /// The bytes read (the read may have gone on past the size its lstat found).
    fn len(&self) -> u64 {
        match self {
            Read::Held(s) => s.bytes.len() as u64,
            Read::Streamed(s) => s.len,
        }
    }

    /// Whether `f` starts with the bytes read.
    fn prefix_of(&self, f: &File) -> bool {
        match self {
            Read::Held(s) => {
                let mut prefix = vec![0u8; s.bytes.len()];
                f.read_exact_at(&mut prefix, 0).is_ok() && prefix == s.bytes
            }
            Read::Streamed(s) => s.prefix_holds(f),
        }
    }
}

struct Held {
    rel: String,
    abs: PathBuf,
    /// The old inode (`O_PATH`, or the read-only descriptor the write's read kept,
    /// which the op's link and publish of it use too), open across the rename.
    file: Arc<File>,
    size: u64,
}

/// The old inodes of the files an op replaces, held open across its renames.
#[derive(Default)]
pub struct Watch {
    held: Vec<Held>,
    root: PathBuf,
    /// Tails carried over to the new file: (path shown, bytes).
    merged: Vec<(String, u64)>,
    /// Until when `carry` waits for writers to close (set at the first wait).
    until: Option<Instant>,
}

/// Whether the open file still holds what was read: the same inode, unchanged,
/// or grown by a tail after bytes equal to the ones read (an appender's work,
/// which `settle` reports once the op is done).
fn as_read(f: &File, now: &Stamp, snap: &Read, linked: &[Stamp]) -> bool {
    let was = snap.stamp();
    if (now.dev, now.ino) != (was.dev, was.ino) || now.size < was.size {
        return false;
    }
    if now == was || linked.contains(now) {
        return true;
    }
    reopen(f).is_ok_and(|r| snap.prefix_of(&r))
}

/// The inode an `O_PATH` descriptor pins, opened for reading (through
/// `/proc/self/fd`, so it is that inode even after a rename replaced its name).
fn reopen(f: &File) -> std::io::Result<File> {
    use std::os::fd::AsRawFd;
    File::open(format!("/proc/self/fd/{}", f.as_raw_fd()))
}

/// Checks that every target still holds what was read (an appended tail
/// aside); keeps each one open. `linked`: the stamps of the inodes this op
/// linked its before-images to, as the link left them (a link changes the
/// ctime, and nothing else: the inode was checked unchanged under a read lease).
/// `pinned`: descriptors the op holds already of the inodes it read at some of
/// the targets (`blobs::linkable`'s): such a target is looked at by one lstat of
/// its path (the inode there is the pinned one when its identity is the one
/// read: a pinned inode's number is never reused), and its descriptor is held.
pub fn arm(
    root: &Path,
    targets: &[Target],
    argv: &[String],
    linked: &[Stamp],
    pinned: &mut HashMap<PathBuf, Arc<File>>,
) -> Result<Watch, Box<TargetsChanged>> {
    let mut held = Vec::new();
    let mut changed = Vec::new();
    for (abs, rel, snap) in targets {
        if *snap.stamp() == Stamp::default() {
            continue;
        }
        let now = match pinned.remove(abs) {
            Some(f) => std::fs::symlink_metadata(abs).map(|m| (f, Stamp::of(&m))),
            // Pinned with no symlink followed anywhere on the path: a parent
            // swapped for a link since the read must not hand us an outside
            // file to hold, whose tail `settle` would carry into the workspace.
            None => fsx::open_pinned_no_symlinks(abs).and_then(|f| {
                let m = f.metadata()?;
                Ok((Arc::new(f), Stamp::of(&m)))
            }),
        };
        let was = snap.stamp().size;
        match now {
            Ok((file, stamp)) if as_read(&file, &stamp, snap, linked) => held.push(Held {
                rel: rel.clone(),
                abs: abs.clone(),
                file,
                // The bytes the new file was made from: the read may have gone
                // on past the size its lstat found (an appender's line).
                size: snap.len(),
            }),
            Ok((_, stamp)) => changed.push((rel.clone(), stamp.size, was)),
            Err(_) => changed.push((rel.clone(), 0, was)),
        }
    }
    if changed.is_empty() {
        return Ok(Watch {
            held,
            root: root.to_path_buf(),
            ..Watch::default()
        });
    }
    Err(Box::new(TargetsChanged {
        changed,
        argv: argv.to_vec(),
    }))
}

/// Files an op replaces that no longer hold what was read (`refusal.target-changed`;
/// worded by `command_error::store_leaf`): each as (path shown, size now, size read).
#[derive(Debug)]
pub struct TargetsChanged {
    pub changed: Vec<(String, u64, u64)>,
    pub argv: Vec<String>,
}

impl Watch {
    /// Stops watching the old inodes `files` (descriptors `arm` holds): their
    /// links were published as blobs under a read lease after the renames, with
    /// the size and mtime read. Nothing was appended to them then (same size),
    /// and nothing can be from then on: nobody had them open for writing (the
    /// lease), and their one name is in the private blob store, not the tree. So
    /// `settle` would find nothing there: it is spared an fstat of each, twice.
    pub fn forget_published<'f>(&mut self, files: impl Iterator<Item = &'f Arc<File>>) {
        let gone: std::collections::HashSet<*const File> = files.map(Arc::as_ptr).collect();
        if !gone.is_empty() {
            self.held.retain(|h| !gone.contains(&Arc::as_ptr(&h.file)));
        }
    }

    /// After the renames: the tails appended to the old inodes since `arm` (or
    /// the previous call), each stored as a blob (best effort: a tail that cannot
    /// be stored is still reported, with its size). Called once before the journal
    /// line and once more when the write is done, for an appender that opened the
    /// old file just before the rename and wrote just after the first look.
    pub fn settle(&mut self, state: &Path, op_id: &str) -> Vec<Appended> {
        let until = *self.until.get_or_insert_with(|| Instant::now() + WAIT);
        let mut out = Vec::new();
        for (i, h) in self.held.iter_mut().enumerate() {
            if let Ok(n) = carry(&self.root, h, until) {
                if n > 0 {
                    self.merged.push((h.rel.clone(), n));
                    h.size += n;
                }
                continue;
            }
            let Ok(now) = h.file.metadata().map(|m| m.len()) else {
                continue;
            };
            if now <= h.size {
                continue;
            }
            let mut tail = vec![0u8; (now - h.size) as usize];
            let read = reopen(&h.file).and_then(|r| r.read_exact_at(&mut tail, h.size));
            let hash = match read {
                Ok(()) => {
                    let hash = sha256_hex(&tail);
                    let tmp = blobs::dir(state).join(format!(".{op_id}-tail-{i}-{}.tmp", h.size));
                    let kept = blobs::store_bytes(state, &hash, &tail, &tmp)
                        .and_then(|_| fsx::sync_dir(&blobs::dir(state)));
                    if kept.is_ok() { hash } else { String::new() }
                }
                Err(_) => String::new(),
            };
            out.push(Appended {
                path: h.rel.clone(),
                bytes: now - h.size,
                hash,
            });
            h.size = now;
        }
        out
    }
}

impl Watch {
    /// The tails `settle` carried over to the new files: (path shown, bytes).
    pub fn merged(&self) -> &[(String, u64)] {
        &self.merged
    }
}

/// Whether anyone has the inode open for writing, as a read lease tells.
#[derive(PartialEq)]
enum Writers {
    None,
    Some,
    /// No lease here (leases off, not the owner without CAP_LEASE).
    Unknown,
}

/// Takes a read lease on `r` (open read-only) and gives it back at once: the
/// kernel refuses it (`EAGAIN`) while anyone has the inode open for writing. A
/// lease break would signal this process: it asks for SIGWINCH, ignored by default.
fn writers(r: &File) -> Writers {
    use std::os::fd::AsRawFd;
    let fd = r.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function borrows; no memory is passed.
    let leased = unsafe {
        libc::fcntl(fd, blobs::F_SETSIG, libc::SIGWINCH) == 0
            && libc::fcntl(fd, libc::F_SETLEASE, libc::F_RDLCK) == 0
    };
    if leased {
        // SAFETY: as above.
        unsafe { libc::fcntl(fd, libc::F_SETLEASE, libc::F_UNLCK) };
        return Writers::None;
    }
    match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::EAGAIN) => Writers::Some,
        _ => Writers::Unknown,
    }
}

/// Carries what was appended to `h`'s old inode after `h.size` over to the file
/// now at its path, once nobody has the old inode open for writing (waiting
/// until `until`): the bytes carried. An error leaves the tail to be kept aside.
fn carry(root: &Path, h: &Held, until: Instant) -> std::io::Result<u64> {
    use std::io::Write;
    use std::os::unix::fs::MetadataExt;
    let r = reopen(&h.file)?;
    while writers(&r) == Writers::Some {
        if Instant::now() >= until {
            return Err(std::io::Error::new(
                std::io::ErrorKind::WouldBlock,
                "still open for writing",
            ));
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let old = r.metadata()?;
    if old.len() <= h.size {
        return Ok(0);
    }
    let mut tail = vec![0u8; (old.len() - h.size) as usize];
    r.read_exact_at(&mut tail, h.size)?;
    let (mut f, st) = Tree::open_append(&Tree::open(root)?, &h.abs)?;
    let regular = st.st_mode & libc::S_IFMT == libc::S_IFREG;
    if !regular || (st.st_dev, st.st_ino) == (old.dev(), old.ino()) {
        return Err(std::io::Error::other("not a new regular file at the path"));
    }
    f.write_all(&tail)?;
    Ok(tail.len() as u64)
}

/// The answer's `concurrent_appends`: each tail carried over to the new file
/// (`merged`), and each kept aside with the command that appends it again.
pub fn report(state: &Path, merged: &[(String, u64)], appends: &[Appended]) -> Json {
    let carried = merged.iter().map(|(path, bytes)| {
        let mut o = Json::obj();
        o.push("path", Json::str(path.clone()));
        o.push("bytes", Json::UInt(*bytes));
        o.push("merged", Json::Bool(true));
        o
    });
    Json::Arr(
        carried
            .chain(appends.iter().map(|a| {
                let mut o = Json::obj();
                o.push("path", Json::str(a.path.clone()));
                o.push("bytes", Json::UInt(a.bytes));
                if !a.hash.is_empty() {
                    o.push("blob", Json::str(a.hash.clone()));
                    o.push("command", Json::str(reapply(state, a)));
                }
                o
            }))
            .collect(),
    )
}

/// The command that appends a kept tail to its file again.
pub fn reapply(state: &Path, a: &Appended) -> String {
    let blob = blobs::path(state, &a.hash);
    shell::aitools([
        "insert",
        &a.path,
        "--at",
        "end",
        "--content-file",
        &blob.to_string_lossy(),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arm_never_holds_a_file_reached_through_a_parent_swapped_for_a_symlink() {
        // The file read is `ws/d/f`; by the commit point `ws/d` is a link to an
        // outside directory whose `f` has the stamp the read recorded (as a
        // stamp taken by path could). Holding that file would let `settle`
        // carry its bytes into the workspace: `arm` must see the target changed.
        let (_t, ws, out) =
            crate::store::swapped_parent::parent_linked_out("f", &"OUTSIDE\n".repeat(100));
        let outside = std::fs::metadata(out.join("f")).unwrap();
        let snap = Arc::new(Snapshot {
            bytes: b"OUTSIDE\n".to_vec(),
            hash: String::new(),
            mode: 0o644,
            mtime: 0,
            midstates: Vec::new(),
            stamp: Stamp::of(&outside),
        });
        let abs = ws.join("d/f");
        let targets = vec![(abs, "d/f".to_string(), Read::Held(snap))];
        let armed = arm(&ws, &targets, &[], &[], &mut HashMap::new());
        let Err(changed) = armed else {
            panic!("arm held a file through a symlinked parent directory")
        };
        assert_eq!(changed.changed.len(), 1);
    }
}
