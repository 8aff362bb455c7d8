//! The workspace lock: one `lock` file in the state directory, created once and
//! never replaced, held with an exclusive `flock` (std's `File::try_lock`) polled
//! with back-off until `--lock-timeout`. Dropping the guard releases it.

use super::fsx;
use crate::protocol::{CmdError, Repair, code, shell};
use crate::workspace::Ctx;
use std::fs::File;
use std::path::Path;
use std::time::{Duration, Instant};

/// Held while alive.
pub struct Lock {
    _file: File,
}

/// Takes the lock of the workspace whose state directory is `state`.
pub fn acquire(ctx: &Ctx, state: &Path) -> Result<Lock, CmdError> {
    let path = state.join("lock");
    let file = fsx::open_append(&path, 0o600)
        .map_err(|e| super::io_error(ctx, "the workspace lock", &e))?;
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(Lock { _file: file }),
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(super::io_error(ctx, "the workspace lock", &e));
            }
        }
        let waited = start.elapsed();
        if waited >= ctx.lock_timeout {
            return Err(busy(ctx));
        }
        std::thread::sleep(pause.min(ctx.lock_timeout - waited));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// `environment.busy`: another aitools holds the lock; the repair is the same call.
pub fn busy(ctx: &Ctx) -> CmdError {
    let secs = ctx.lock_timeout.as_secs_f64();
    CmdError::new(
        code::BUSY,
        format!(
            "Another aitools process holds the workspace lock; it was not free within {secs}s."
        ),
        Repair::new(
            "retry",
            "Run the same command again once the other write has finished.",
            shell::aitools(&ctx.argv),
        ),
    )
}
