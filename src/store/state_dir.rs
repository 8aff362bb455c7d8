//! Where a workspace's state lives: `$XDG_STATE_HOME/aitools/<name>-<16 hex>/`
//! (default `~/.local/state/aitools/`), the id taken from the root's real path, and
//! whether it can be trusted. Intent records in it rename, chmod and unlink tree
//! files, so a directory another user can write is refused (checked as ssh checks
//! its files: owner and group/other write bits of every existing directory), and
//! there is no shared fallback such as /tmp when neither variable is set.

use crate::protocol::kept::{Identity, Kept};
use sha2::{Digest, Sha256};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The parts of a workspace's state directory that hold state.
pub const PARTS: &[&str] = &["commit", "journal", "journal/ids", "blobs", "blobs/packs"];

/// Why the state directory cannot be used (worded, `message`/`fix` and
/// `Display`, in `src/command_error/store.rs`).
#[derive(Debug, Clone, PartialEq)]
pub enum Untrusted {
    /// Neither `XDG_STATE_HOME` nor `HOME` names a directory (as an absolute path).
    NoHome,
    /// A directory on the way is not private to the caller; `shared` when it is
    /// meant to be shared (sticky, as /tmp), so the fix is another directory.
    Unsafe {
        path: PathBuf,
        why: String,
        shared: bool,
    },
}

/// The base directory (`$XDG_STATE_HOME`, else `$HOME/.local/state`); a relative
/// value is ignored, as the XDG spec says.
fn base() -> Result<PathBuf, Untrusted> {
    let absolute = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    if let Some(x) = absolute("XDG_STATE_HOME") {
        return Ok(x);
    }
    absolute("HOME")
        .map(|h| h.join(".local/state"))
        .ok_or(Untrusted::NoHome)
}

/// The directory that holds every workspace's state directory.
pub fn state_home() -> Result<PathBuf, Untrusted> {
    base().map(|b| b.join("aitools"))
}

/// Stands for the state home when there is none: nothing can be created under it.
pub const NO_HOME: &str = "/proc/self/no-state-home";

/// The state directory of the workspace whose real root is `root`. Callers run
/// after `verify` (dispatch's recovery runs it before every workspace command).
pub fn for_root(root: &Path) -> PathBuf {
    let home = state_home().unwrap_or_else(|_| PathBuf::from(NO_HOME));
    home.join(workspace_id(root))
}

fn workspace_id(root: &Path) -> String {
    let digest = Sha256::digest(root.as_os_str().as_encoded_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| "root".to_string());
    format!("{name}-{hex}")
}

/// This process's effective user id.
pub fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// One existing directory at or below the base: a real directory (not a symlink),
/// owned by the caller or root, writable by nobody else.
fn check_private(path: &Path, meta: &std::fs::Metadata, me: u32) -> Result<(), Untrusted> {
    let unsafe_ = |why: String| Untrusted::Unsafe {
        path: path.to_path_buf(),
        why,
        shared: meta.mode() & 0o1000 != 0,
    };
    if !meta.file_type().is_dir() {
        return Err(unsafe_("is not a directory".to_string()));
    }
    if meta.uid() != me && meta.uid() != 0 {
        return Err(unsafe_(format!(
            "is owned by uid {}, not by you (uid {me})",
            meta.uid()
        )));
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o022 != 0 {
        return Err(unsafe_(format!(
            "has mode {mode:04o}: group or others can write it"
        )));
    }
    Ok(())
}

/// An ancestor of the base: owned by the caller or root; writable by others only
/// when sticky (as /tmp is), so nobody else can rename what is inside.
fn check_ancestor(path: &Path, meta: &std::fs::Metadata, me: u32) -> Result<(), Untrusted> {
    let mode = meta.mode() & 0o7777;
    let bad = if meta.uid() != me && meta.uid() != 0 {
        Some(format!(
            "is owned by uid {}, not by you (uid {me})",
            meta.uid()
        ))
    } else if mode & 0o022 != 0 && mode & 0o1000 == 0 {
        Some(format!(
            "has mode {mode:04o}: group or others can write it and it is not sticky"
        ))
    } else {
        None
    };
    match bad {
        Some(why) => Err(Untrusted::Unsafe {
            path: path.to_path_buf(),
            why,
            shared: false,
        }),
        None => Ok(()),
    }
}

/// Checks every existing directory from `/` down to the workspace's state
/// directory and its parts; a missing one is fine (it will be created 0700).
/// In a long-lived server (`kept`: `protocol::kept`, the server's own) a state
/// directory verified before is trusted again while every directory judged
/// private (the base's real path down to the state directory and its parts) is
/// the same directory with the same owner and mode, or still missing (one `lstat`
/// each, no path resolved); any change verifies the whole chain again.
pub fn verify(root: &Path, kept: Option<&Kept>) -> Result<PathBuf, Untrusted> {
    let Some(kept) = kept else {
        return verify_chain(root).map(|(state, _)| state);
    };
    let state = for_root(root);
    if kept.state_dir_holds(&state, unchanged) {
        return Ok(state);
    }
    kept.set_state_dir(state.clone(), None);
    let (state, chain) = verify_chain(root)?;
    let ids = chain
        .into_iter()
        .map(|d| {
            let id = identity(&d);
            (d, id)
        })
        .collect();
    kept.set_state_dir(state.clone(), Some(ids));
    Ok(state)
}

/// dev, inode, mode (type and permission bits) and owner, not following a symlink.
fn identity(d: &Path) -> Identity {
    std::fs::symlink_metadata(d)
        .ok()
        .map(|m| (m.dev(), m.ino(), m.mode(), m.uid()))
}

fn unchanged(ids: &[(PathBuf, Identity)]) -> bool {
    ids.iter().all(|(d, id)| identity(d) == *id)
}

/// `verify`'s chain: the state directory and the directories judged private.
fn verify_chain(root: &Path) -> Result<(PathBuf, Vec<PathBuf>), Untrusted> {
    let base = base()?;
    let me = euid();
    // The real path of the deepest existing ancestor: a symlinked home is judged
    // by where it leads, and each real ancestor above it by the ancestor rule.
    let mut existing = base.as_path();
    let mut rest = Vec::new();
    let real = loop {
        match std::fs::canonicalize(existing) {
            Ok(r) => break r,
            Err(_) => match (existing.parent(), existing.file_name()) {
                (Some(p), Some(n)) => {
                    rest.push(n.to_os_string());
                    existing = p;
                }
                _ => break existing.to_path_buf(),
            },
        }
    };
    let mut up = real.parent();
    while let Some(a) = up {
        if let Ok(m) = std::fs::metadata(a) {
            check_ancestor(a, &m, me)?;
        }
        up = a.parent();
    }
    let mut chain = vec![real.clone()];
    let mut p = real;
    for n in rest.into_iter().rev() {
        p = p.join(n);
        chain.push(p.clone());
    }
    let state = for_root(root);
    chain.push(state.parent().map(Path::to_path_buf).unwrap_or_default());
    chain.push(state.clone());
    chain.extend(PARTS.iter().map(|s| state.join(s)));
    chain.push(state.join("tx"));
    for d in &chain {
        match std::fs::symlink_metadata(d) {
            Ok(m) => check_private(d, &m, me)?,
            Err(_) => continue,
        }
    }
    Ok((state, chain))
}

/// The parts made with the state directory. `journal/ids/` is not among them: the
/// journal makes it when it writes its first id file (id files are an index, never
/// synced, rebuilt from the journal when missing), so no directory sync waits on it.
const MADE: &[&str] = &["commit", "journal", "blobs"];

/// What `make` made.
struct Made {
    state: PathBuf,
    /// The directories whose entries changed (not synced yet).
    changed: Vec<PathBuf>,
    /// `commit/` was made now (then no record can be pending in it).
    commit_new: bool,
    /// `blobs/` was made now (then no blob was stored before).
    blobs_new: bool,
}

/// Makes whatever is missing of the state directory and its parts (each 0700).
fn make(root: &Path) -> std::io::Result<Made> {
    base().map_err(untrusted)?;
    let state = for_root(root);
    let mut changed = super::fsx::create_private_dir_all(&state)?;
    let (mut commit_new, mut blobs_new) = (false, false);
    let mut created = false;
    for sub in MADE {
        let made = super::fsx::ensure_private_dir(&state.join(sub))?;
        commit_new |= made && *sub == "commit";
        blobs_new |= made && *sub == "blobs";
        created |= made;
    }
    if created {
        changed.push(state.clone());
    }
    Ok(Made {
        state,
        changed,
        commit_new,
        blobs_new,
    })
}

fn untrusted(u: Untrusted) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::PermissionDenied, u)
}

/// Creates the workspace's state directory and its parts (`commit/`, `journal/`,
/// `blobs/`), each 0700, makes the new entries durable, and returns it; refuses
/// (permission denied, with `Untrusted`'s text) a state directory someone else can
/// write.
pub fn ensure(root: &Path, kept: Option<&Kept>) -> std::io::Result<PathBuf> {
    let Made { state, changed, .. } = make(root)?;
    // Every directory is made first, then each changed one synced (one journal
    // commit on ext4: the first sync commits every mkdir; the rest find them done).
    sync_files_then_dirs(&[], &changed)?;
    // Checked once everything exists, so a directory someone made first (or
    // between our mkdir and now) is judged too.
    verify(root, kept).map_err(untrusted)?;
    Ok(state)
}

/// `ensure` for the write protocol, which leaves the syncs of what it made to the
/// intent record's: returns the state directory, the directories whose new
/// entries are not durable yet, to be synced with the record's first line
/// (`intent::write_first_line`), before anything depends on them, and whether
/// `blobs/` was made now (no blob was stored before: `gc::after_write` need not
/// count them).
///
/// Why that is soon enough. Of a fresh state directory, the first thing whose
/// durability anything depends on is the record's first line: it must be durable,
/// and reachable after a power loss, before the first temp file exists in the tree
/// (else a crash leaves a temp nothing names). Reachable means every entry on its
/// path is durable: `commit/<op>.intent` in `commit/`, `commit` in the state
/// directory, the state directory in `aitools/`, `aitools/` in the state home —
/// the directories returned here plus `commit/`, all synced at that one point.
/// `blobs` and `journal` in the state directory are synced there too, so they are
/// durable before a blob is named (before the commit point) and before the journal
/// line is written (after it); the journal syncs `journal/` when it creates its
/// file, and the lock file needs no durability. Before the record nothing reads
/// them but this process (the lock, the recovery scan of an empty `commit/`, the
/// plan). Only when `commit/` is made now: a state directory found with `commit/`
/// but missing some other part (an old or partly removed one) may hold records
/// recovery finishes before the op, so it is synced here as `ensure` does.
pub fn ensure_deferred(
    root: &Path,
    kept: Option<&Kept>,
) -> std::io::Result<(PathBuf, Vec<PathBuf>, bool)> {
    let Made {
        state,
        changed,
        commit_new,
        blobs_new,
    } = make(root)?;
    let unsynced = if commit_new || changed.is_empty() {
        changed
    } else {
        sync_files_then_dirs(&[], &changed)?;
        Vec::new()
    };
    verify(root, kept).map_err(untrusted)?;
    Ok((state, unsynced, blobs_new))
}

/// Makes `files`' data (fdatasync), then `dirs`' entries (fsync), durable, one
/// after another on this thread (the crash harness counts and kills syscalls per
/// thread). Files first: on a journaling filesystem (ext4) the first sync commits
/// the running transaction, which holds every directory made before it, so the
/// directory syncs after it mostly find nothing left to commit.
pub fn sync_files_then_dirs(files: &[&std::fs::File], dirs: &[PathBuf]) -> std::io::Result<()> {
    for f in files {
        f.sync_data()?;
    }
    for d in dirs {
        super::fsx::sync_dir(d)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn group_writable_is_refused_sticky_ancestor_is_not() {
        let t = tempfile::tempdir().expect("tempdir");
        let me = euid();
        let d = t.path().join("d");
        std::fs::create_dir(&d).expect("mkdir");
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o770)).expect("chmod");
        let m = std::fs::metadata(&d).expect("stat");
        assert!(check_private(&d, &m, me).is_err());
        assert!(check_ancestor(&d, &m, me).is_err());
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o1777)).expect("chmod");
        let m = std::fs::metadata(&d).expect("stat");
        assert!(check_private(&d, &m, me).is_err());
        assert!(check_ancestor(&d, &m, me).is_ok());
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        let m = std::fs::metadata(&d).expect("stat");
        assert!(check_private(&d, &m, me).is_ok());
    }
}
