//! The session: what one invocation knows beyond its arguments, carried in `Ctx`
//! as a value instead of process-wide state. It holds the snapshots taken, the
//! loaded tx, the paths a staging op looked at, the locks held, and the settings
//! read from the environment once at start. Commands a command runs inside itself
//! (`batch`, `tx rebase`) share their caller's session: they run under locks it
//! holds, which are granted again without a second `flock`.

use super::snapshot;
use super::tx::model::Tx;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// The default size budget of `blobs/`.
pub const DEFAULT_BUDGET: u64 = 512 << 20;
/// The environment variable that sets the budget (`<n>`, `<n>KiB|MiB|GiB`).
pub const BUDGET_ENV: &str = "AITOOLS_STATE_BUDGET";
/// The environment variable that lowers (or raises) the git family's deadline, in
/// milliseconds (tests use it to reach `environment.timeout`).
pub const GIT_TIMEOUT_ENV: &str = "AITOOLS_GIT_TIMEOUT_MS";
/// The environment variable that lowers what a named pipe given to `search` may
/// hold (`<n>`, `<n>KiB|MiB|GiB`; tests use it to reach the cap).
pub const PIPE_CAP_ENV: &str = "AITOOLS_PIPE_CAP";

/// The identity of a loaded tx's index file (id, inode, size, mtime).
pub type TxKey = (String, u64, u64, i64, i64);

/// Settings the environment gives, read once when the session starts.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// `AITOOLS_SEED`: op and tx ids derived from it (reproducible runs).
    pub seed: Option<String>,
    /// `AITOOLS_STATE_BUDGET` parsed, else `DEFAULT_BUDGET`.
    pub gc_budget: u64,
    /// `AITOOLS_GIT_TIMEOUT_MS` parsed (a positive whole number), else `None`:
    /// the git family's own deadline.
    pub git_timeout: Option<std::time::Duration>,
    /// `AITOOLS_PIPE_CAP` parsed, else `None`: search's own cap on a named pipe
    /// (the setting can only lower it).
    pub pipe_cap: Option<u64>,
}

impl Settings {
    pub fn from_env() -> Settings {
        Settings {
            seed: std::env::var("AITOOLS_SEED").ok(),
            gc_budget: std::env::var(BUDGET_ENV)
                .ok()
                .and_then(|v| crate::protocol::values::parse_size(v.trim()).ok())
                .unwrap_or(DEFAULT_BUDGET),
            git_timeout: std::env::var(GIT_TIMEOUT_ENV)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .filter(|ms| *ms > 0)
                .map(std::time::Duration::from_millis),
            pipe_cap: std::env::var(PIPE_CAP_ENV)
                .ok()
                .and_then(|v| crate::protocol::values::parse_size(v.trim()).ok()),
        }
    }
}

/// One invocation's state (shared by the commands it runs inside itself).
#[derive(Default)]
pub struct Session {
    pub settings: Settings,
    /// The files read, by path, and each path's first read.
    pub snapshots: snapshot::Cache,
    /// The tx named by `--tx`, loaded, with its index's identity.
    pub(crate) tx: Mutex<Option<(TxKey, Arc<Tx>)>>,
    /// Set while a staging op holds the tx's lock it loaded `tx` under: the
    /// view takes `tx` as it is, without checking its files (`view::pin`).
    pub(crate) tx_pinned: std::sync::atomic::AtomicBool,
    /// The tx paths a staging op looked at (`view::track`), so `tx rebase` knows
    /// which ops depend on a drifted path even when they only read it.
    pub(crate) seen: Mutex<Option<BTreeSet<String>>>,
    /// The lock files held now (shared with each `Lock`, which removes itself).
    pub(crate) held: Arc<Mutex<Vec<PathBuf>>>,
    /// Directories of the state directory this invocation made whose new entries
    /// are not durable yet (`state_dir::ensure_deferred`): the write protocol syncs
    /// them with its intent record's first line; any left are synced when the
    /// session ends.
    unsynced: Mutex<Vec<PathBuf>>,
    /// The lstat the last `boundary::resolve` took of the real path it found
    /// (something there and not a symlink), for the store's look at that path that
    /// follows it (`take_lstat`): one lstat per path a change names, not two.
    resolved: Mutex<Option<(PathBuf, std::fs::Metadata)>>,
}

impl Session {
    /// A session whose settings come from the environment.
    pub fn start() -> Arc<Session> {
        let mut s = Session::default();
        s.settings = Settings::from_env();
        Arc::new(s)
    }

    /// Directories to sync with the next intent record (see `unsynced`).
    pub fn defer_sync(&self, dirs: Vec<PathBuf>) {
        if let Ok(mut u) = self.unsynced.lock() {
            u.extend(dirs);
        }
    }

    /// The directories `defer_sync` left (still owed a sync).
    pub fn unsynced(&self) -> Vec<PathBuf> {
        self.unsynced.lock().map(|u| u.clone()).unwrap_or_default()
    }

    /// Called once the directories `unsynced` returned were synced.
    pub fn synced(&self, dirs: &[PathBuf]) {
        if let Ok(mut u) = self.unsynced.lock() {
            u.retain(|d| !dirs.contains(d));
        }
    }

    /// Keeps `lstat` as what is at `real` now (`None` forgets the last one): the
    /// last path resolved for a write, as `boundary::resolve` found it.
    pub fn note_lstat(&self, real: &std::path::Path, lstat: Option<std::fs::Metadata>) {
        if let Ok(mut r) = self.resolved.lock() {
            *r = lstat.map(|m| (real.to_path_buf(), m));
        }
    }

    /// The lstat `note_lstat` kept, when it is of `path`; taken either way (one
    /// look uses it, and a look at another path drops it).
    pub fn take_lstat(&self, path: &std::path::Path) -> Option<std::fs::Metadata> {
        let mut r = self.resolved.lock().ok()?;
        match r.take() {
            Some((p, m)) if p == path => Some(m),
            _ => None,
        }
    }

    /// Forgets the loaded tx (after a tx op changed it).
    pub fn forget_tx(&self) {
        if let Ok(mut c) = self.tx.lock() {
            *c = None;
        }
    }
}

impl Drop for Session {
    /// A session that made state directories but wrote no intent record (a dry
    /// run, nothing to change, a refusal) syncs them on its way out, so a later
    /// invocation that finds them can rely on them as if `ensure` had synced them.
    fn drop(&mut self) {
        let dirs = self.unsynced();
        if !dirs.is_empty() {
            let _ = super::state_dir::sync_files_then_dirs(&[], &dirs);
        }
    }
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_noted_lstat_is_taken_once_and_only_for_its_path() {
        let t = tempfile::tempdir().expect("tempdir");
        let (a, b) = (t.path().join("a"), t.path().join("b"));
        let m = || std::fs::symlink_metadata(t.path()).ok();
        let s = Session::default();
        s.note_lstat(&a, m());
        assert!(s.take_lstat(&b).is_none());
        // Asking for another path took it too: nothing old is left for `a`.
        assert!(s.take_lstat(&a).is_none());
        s.note_lstat(&a, m());
        assert!(s.take_lstat(&a).is_some());
        assert!(s.take_lstat(&a).is_none());
        // Every resolve replaces it, `None` included.
        s.note_lstat(&a, m());
        s.note_lstat(&b, None);
        assert!(s.take_lstat(&a).is_none());
    }
}
