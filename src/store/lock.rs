//! The workspace lock (`lock` in the state directory) and the per-tx locks
//! (`tx/<id>/lock`): files created once and never replaced, held with an exclusive
//! `flock` (std's `File::try_lock`) polled with back-off until `--lock-timeout`.
//! Dropping the guard releases it. A lock this process already holds is granted
//! again in the same session without a second `flock` (which would wait on
//! itself): `tx commit`, `tx rebase` and `batch --atomic` run whole commands, which
//! share their session, while holding locks.

use super::error::{Busy, StoreError};
use super::fsx;
use crate::workspace::Ctx;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Held while alive.
pub struct Lock {
    _file: Option<File>,
    path: Option<PathBuf>,
    /// The session's list of held locks, which this one leaves when dropped.
    held: Arc<Mutex<Vec<PathBuf>>>,
}

impl Drop for Lock {
    fn drop(&mut self) {
        if let Some(p) = self.path.take()
            && let Ok(mut held) = self.held.lock()
            && let Some(i) = held.iter().position(|h| *h == p)
        {
            held.remove(i);
        }
    }
}

/// Takes the lock of the workspace whose state directory is `state`.
pub fn acquire(ctx: &Ctx, state: &Path) -> Result<Lock, Box<StoreError>> {
    acquire_file(ctx, &state.join("lock"), "the workspace lock")
}

/// Takes the exclusive lock on the lock file `path` (created 0600 when missing).
pub fn acquire_file(ctx: &Ctx, path: &Path, what: &str) -> Result<Lock, Box<StoreError>> {
    let held = ctx.session.held.clone();
    if held.lock().is_ok_and(|h| h.iter().any(|p| p == path)) {
        return Ok(Lock {
            _file: None,
            path: None,
            held,
        });
    }
    let file = fsx::open_append(path, 0o600).map_err(|e| super::io_fault(ctx, what, &e))?;
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match file.try_lock() {
            Ok(()) => {
                if let Ok(mut h) = held.lock() {
                    h.push(path.to_path_buf());
                }
                return Ok(Lock {
                    _file: Some(file),
                    path: Some(path.to_path_buf()),
                    held,
                });
            }
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(super::io_fault(ctx, what, &e));
            }
        }
        let waited = start.elapsed();
        if waited >= ctx.lock_timeout {
            return Err(Box::new(StoreError::Busy(busy(ctx))));
        }
        std::thread::sleep(pause.min(ctx.lock_timeout - waited));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// `environment.busy`: another aitools holds the lock; the repair is the same call.
fn busy(ctx: &Ctx) -> Busy {
    Busy {
        waited: ctx.lock_timeout,
        argv: ctx.argv.clone(),
    }
}
