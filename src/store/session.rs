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
    /// Directory real paths resolved so far (`paths::Dirs`).
    pub dirs: crate::workspace::paths::Dirs,
    /// Set by a dry run that stages (`batch --dry-run`): the private directory its
    /// tx lives in instead of `<state>/tx/`, so nothing is written to the state
    /// directory and no other call can see or find the tx (`tx::home`).
    pub tx_home: std::sync::OnceLock<PathBuf>,
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
    /// A long-lived server's verdicts on state directories, which it hands to
    /// each call it runs (`protocol::kept`); none in a call of its own.
    pub(crate) kept: Option<Arc<crate::protocol::kept::Kept>>,
}

impl Session {
    /// A session whose settings come from the environment.
    pub fn start() -> Arc<Session> {
        Session::serving(None)
    }

    /// `start` for a call a server runs, with the server's `kept` verdicts.
    pub fn serving(kept: Option<Arc<crate::protocol::kept::Kept>>) -> Arc<Session> {
        let mut s = Session::default();
        s.settings = Settings::from_env();
        s.kept = kept;
        Arc::new(s)
    }

    /// The server's verdicts on state directories (`state_dir::verify`), if a
    /// server runs this call.
    pub fn kept(&self) -> Option<&crate::protocol::kept::Kept> {
        self.kept.as_deref()
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
