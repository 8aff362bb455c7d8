//! The snapshot area `<state>/snapshots/`: the records `snapshot create` keeps
//! (one JSON file per snapshot: the scan it ran and every file's size, mtime and
//! hash) for a later `snapshot diff`; outside the tree, never journaled. `gc`
//! removes records not modified for `MAX_AGE`.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Records older than this (by modification time) are removed by `gc`.
pub const MAX_AGE: Duration = Duration::from_secs(7 * 24 * 3600);

/// The snapshot directory of state directory `state` (not created).
pub fn dir(state: &Path) -> PathBuf {
    state.join("snapshots")
}

/// Removes the records last modified before `now - MAX_AGE` (only counts them
/// with `dry_run`); returns how many.
pub fn sweep(state: &Path, now: SystemTime, dry_run: bool) -> io::Result<u64> {
    let rd = match fs::read_dir(dir(state)) {
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
            .is_some_and(|age| age > MAX_AGE);
        if !old || !meta.is_file() {
            continue;
        }
        if !dry_run {
            fs::remove_file(e.path())?;
        }
        removed += 1;
    }
    Ok(removed)
}
