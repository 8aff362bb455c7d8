//! Where a workspace's state lives: `$XDG_STATE_HOME/aitools/<name>-<16 hex>/`
//! (default `~/.local/state/aitools/`), the id taken from the root's real path.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The directory that holds every workspace's state directory.
pub fn state_home() -> PathBuf {
    if let Some(x) = std::env::var_os("XDG_STATE_HOME").filter(|v| !v.is_empty()) {
        return PathBuf::from(x).join("aitools");
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp"));
    home.join(".local/state/aitools")
}

/// The state directory of the workspace whose real root is `root`.
pub fn for_root(root: &Path) -> PathBuf {
    let digest = Sha256::digest(root.as_os_str().as_encoded_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| "root".to_string());
    state_home().join(format!("{name}-{hex}"))
}

/// Creates the workspace's state directory and its parts (`commit/`, `journal/`,
/// `journal/ids/`, `blobs/`), each 0700, and returns it.
pub fn ensure(root: &Path) -> std::io::Result<PathBuf> {
    let state = for_root(root);
    super::fsx::ensure_private_dir_all(&state)?;
    let mut created = false;
    for sub in ["commit", "journal", "journal/ids", "blobs"] {
        created |= super::fsx::ensure_private_dir(&state.join(sub))?;
    }
    if created {
        super::fsx::sync_dir(&state)?;
        super::fsx::sync_dir(&state.join("journal"))?;
    }
    Ok(state)
}
