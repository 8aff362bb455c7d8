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
    super::fsx::remove_older_than(&dir(state), MAX_AGE, now, dry_run, fs::Metadata::is_file)
}
