//! What a long-lived server keeps from one call to the next: a property of the
//! process (set once by `aitools mcp`), not of one invocation, which `ctx.session`
//! holds. Off in a CLI call, which verifies everything afresh.
//!
//! Each entry is a verdict its owner re-checks before trusting it
//! (`store::state_dir::verify`: the identities of the directories it judged).

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// dev, inode, mode (type and permission bits) and owner of a directory, or
/// `None` when it was missing.
pub type Identity = Option<(u64, u64, u32, u32)>;

/// A state directory verified trusted, and each directory its verdict rests on.
pub type Verdict = (PathBuf, Vec<(PathBuf, Identity)>);

static ON: AtomicBool = AtomicBool::new(false);

/// The state directories verified so far (few: one per root served).
static STATE_DIRS: Mutex<Vec<Verdict>> = Mutex::new(Vec::new());

/// Turns keeping on for the rest of the process.
pub fn keep() {
    ON.store(true, Ordering::Relaxed);
}

/// Whether this process keeps verdicts.
pub fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Whether a verdict on `state` is kept and `still` holds of its identities.
pub fn state_dir_holds(
    state: &std::path::Path,
    still: impl Fn(&[(PathBuf, Identity)]) -> bool,
) -> bool {
    let kept = STATE_DIRS.lock().unwrap_or_else(|e| e.into_inner());
    kept.iter().any(|(s, ids)| s == state && still(ids))
}

/// Keeps (or, with `None`, forgets) the verdict on `state`.
pub fn set_state_dir(state: PathBuf, ids: Option<Vec<(PathBuf, Identity)>>) {
    let mut kept = STATE_DIRS.lock().unwrap_or_else(|e| e.into_inner());
    kept.retain(|(s, _)| *s != state);
    if let Some(ids) = ids {
        kept.push((state, ids));
    }
}
