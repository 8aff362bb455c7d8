//! The scratch area `<state>/tmp/`: private entries (directory 0700, files 0600)
//! outside the workspace tree that `mktemp` hands out and `run --stdout-to` may
//! fill, and where `run` spills a cut stream whole (`spill`), never journaled;
//! `gc` removes the entries older than `MAX_AGE`.

use std::fs::{self, DirBuilder, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Entries older than this (by modification time) are removed by `gc`.
pub const MAX_AGE: Duration = Duration::from_secs(24 * 3600);

/// The scratch directory of state directory `state` (not created).
pub fn dir(state: &Path) -> PathBuf {
    state.join("tmp")
}

/// Creates the scratch directory (0700) when missing; refuses one that is not a
/// real directory of ours.
fn ensure(state: &Path) -> io::Result<PathBuf> {
    let d = dir(state);
    match DirBuilder::new().mode(0o700).create(&d) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    if !fs::symlink_metadata(&d)?.is_dir() {
        return Err(io::Error::other(format!(
            "{} is not a directory",
            d.display()
        )));
    }
    Ok(d)
}

/// Creates a new private entry named `prefix<tag>suffix`, `tag(n)` giving the
/// n-th candidate tag until one is free; returns its path.
pub fn create(
    state: &Path,
    dir_entry: bool,
    prefix: &str,
    suffix: &str,
    tag: impl Fn(u32) -> String,
) -> io::Result<PathBuf> {
    let d = ensure(state)?;
    for n in 0..1000 {
        let p = d.join(format!("{prefix}{}{suffix}", tag(n)));
        let made = if dir_entry {
            DirBuilder::new().mode(0o700).create(&p)
        } else {
            OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&p)
                .map(drop)
        };
        match made {
            Ok(()) => return Ok(p),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::from(io::ErrorKind::AlreadyExists))
}

/// A new private file `run-<pid>-<n>.<stream>.log` in the scratch area of
/// `state` (made when missing), open for writing: where `run` keeps the whole
/// of a stream its windows cut.
pub fn spill(state: &Path, stream: &str) -> io::Result<(PathBuf, fs::File)> {
    let pid = std::process::id();
    let p = create(state, false, "run-", &format!(".{stream}.log"), |n| {
        format!("{pid}-{n}")
    })?;
    let f = OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&p)?;
    Ok((p, f))
}

/// Whether `abs` (absolute, its parent resolved) lies below the scratch area.
pub fn contains(state: &Path, abs: &Path) -> bool {
    let Ok(area) = fs::canonicalize(dir(state)) else {
        return false;
    };
    let (Some(parent), Some(name)) = (abs.parent(), abs.file_name()) else {
        return false;
    };
    match fs::canonicalize(parent) {
        Ok(p) => p.starts_with(&area) && name != ".." && name != ".",
        Err(_) => false,
    }
}

/// Writes `bytes` to the scratch file `abs` (created 0600, or truncated when it
/// is a regular file; a symlink at `abs` is refused).
pub fn write(abs: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(abs)?;
    f.write_all(bytes)?;
    f.sync_all()
}

/// Removes the scratch entries last modified before `now - MAX_AGE` (only
/// counts them with `dry_run`); returns how many.
pub fn sweep(state: &Path, now: SystemTime, dry_run: bool) -> io::Result<u64> {
    super::fsx::remove_older_than(&dir(state), MAX_AGE, now, dry_run, |_| true)
}
