//! What a long-lived server keeps from one call to the next: owned by the server
//! (`aitools mcp` makes one and hands it to each call's session), not by one
//! invocation. A CLI call has none and verifies everything afresh.
//!
//! Each entry is a verdict its owner re-checks before trusting it
//! (`store::state_dir::verify`: the identities of the directories it judged).

use std::path::PathBuf;
use std::sync::Mutex;

/// dev, inode, mode (type and permission bits) and owner of a directory, or
/// `None` when it was missing.
pub type Identity = Option<(u64, u64, u32, u32)>;

/// A state directory verified trusted, and each directory its verdict rests on.
pub type Verdict = (PathBuf, Vec<(PathBuf, Identity)>);

/// A server's verdicts: the state directories verified so far (few: one per root
/// served).
#[derive(Debug, Default)]
pub struct Kept {
    state_dirs: Mutex<Vec<Verdict>>,
}

impl Kept {
    /// Whether a verdict on `state` is kept and `still` holds of its identities.
    pub fn state_dir_holds(
        &self,
        state: &std::path::Path,
        still: impl Fn(&[(PathBuf, Identity)]) -> bool,
    ) -> bool {
        let kept = self.state_dirs.lock().unwrap_or_else(|e| e.into_inner());
        kept.iter().any(|(s, ids)| s == state && still(ids))
    }

    /// Keeps (or, with `None`, forgets) the verdict on `state`.
    pub fn set_state_dir(&self, state: PathBuf, ids: Option<Vec<(PathBuf, Identity)>>) {
        let mut kept = self.state_dirs.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|(s, _)| *s != state);
        if let Some(ids) = ids {
            kept.push((state, ids));
        }
    }
}
