//! What is on disk now at a path, as a write's checks see it: its journal state
//! (`state`: drift, undo) and the hash `--expect-hash` compares (`hash`). Reads go
//! through the session's snapshot cache, so a write reuses what its checks read.

use super::journal::State;
use super::snapshot;
use crate::text::lines::sha256_hex;
use crate::workspace::paths;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// The state at `p` now (no final symlink followed).
pub fn state(snapshots: &snapshot::Cache, p: &Path) -> std::io::Result<State> {
    let meta = match std::fs::symlink_metadata(p) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(State::missing()),
        Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => return Ok(State::missing()),
        Err(e) => return Err(e),
    };
    let ft = meta.file_type();
    Ok(if ft.is_symlink() {
        let t = std::fs::read_link(p)?.to_string_lossy().into_owned();
        State {
            kind: "symlink".into(),
            hash: Some(sha256_hex(t.as_bytes())),
            target: Some(t),
            ..State::default()
        }
    } else if ft.is_dir() {
        State {
            kind: "dir".into(),
            mode: Some(meta.mode() & 0o7777),
            ..State::default()
        }
    } else if ft.is_file() {
        let s = snapshots.load(p)?;
        State {
            kind: "file".into(),
            hash: Some(s.hash.clone()),
            mode: Some(s.mode),
            mtime: Some(s.mtime),
            target: None,
        }
    } else {
        State {
            kind: "other".into(),
            ..State::default()
        }
    })
}

/// The current hash `--expect-hash` compares: the regular file the path leads to
/// (symlinks followed), else a symlink's target text; `None` when nothing is there.
pub fn hash(session: &super::session::Session, path: &Path) -> std::io::Result<Option<String>> {
    match std::fs::metadata(path) {
        // Keyed by the real path, as the plan looks it up: the write reuses this read.
        Ok(m) if m.is_file() => {
            let real = paths::real_path(&session.dirs, path);
            return Ok(Some(session.snapshots.load(&real)?.hash.clone()));
        }
        Ok(_) => return Ok(None),
        Err(_) => {}
    }
    match std::fs::read_link(path) {
        Ok(t) => Ok(Some(sha256_hex(t.as_os_str().as_encoded_bytes()))),
        Err(_) => Ok(None),
    }
}
