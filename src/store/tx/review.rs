//! The review gate: a tx begun with `--review` (`Meta::review`) commits only once
//! an operator approved exactly what it stages.
//!
//! The decision is `<tx>/review.json` (`Decision`), written whole by `decide`
//! (temp, fsync, rename) under the workspace and tx locks. It names the staged
//! state it was made on (`Tx::staged_hash`: every changed path's base and staged
//! state), so a decision on other content (an op staged, dropped or rebased
//! since) no longer counts and the review is pending again. A decision file that
//! is not a private regular file of this user is not trusted: the review stays
//! pending (the gate fails closed).
//!
//! `wait` is what `tx commit` does first: it polls the decision every
//! [`POLL`] without holding any lock (other readers and writers, and the
//! approver, another process, go on), until a decision counts or its time is up.
//! The commit checks the decision again under its locks (`commit::run`). While
//! it waits it holds a shared flock on `<tx>/waiting` (`waiting` tells `tx
//! reviews` a commit is blocked on the operator; a dead waiter holds nothing).

use super::*;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::time::{Duration, Instant};

/// How often a waiting commit looks at the decision.
pub const POLL: Duration = Duration::from_millis(100);

/// `review.json`: an operator's decision on a staged state.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Decision {
    /// `approved` or `denied`.
    pub decision: String,
    /// `Tx::staged_hash` when it was made.
    pub staged: String,
    /// When (UTC).
    pub at: String,
    /// The approval's note, or the denial's reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Decision {
    pub fn approved(&self) -> bool {
        self.decision == "approved"
    }
}

/// Where a review-gated tx stands.
#[derive(Debug, Clone)]
pub enum Review {
    /// No decision counts: none yet, or (`previous`) one made on other content.
    Pending {
        previous: Option<Decision>,
    },
    Approved(Decision),
    Denied(Decision),
}

impl Review {
    /// `pending`, `approved` or `denied`.
    pub fn word(&self) -> &'static str {
        match self {
            Review::Pending { .. } => "pending",
            Review::Approved(_) => "approved",
            Review::Denied(_) => "denied",
        }
    }
}

const FILE: &str = "review.json";

impl Tx {
    /// The hash of what committing would do: each changed path (sorted) with its
    /// base and staged state. A decision binds to it.
    pub fn staged_hash(&self) -> String {
        let mut text = Vec::new();
        for (p, e) in self.index.paths.iter() {
            if e.base == e.staged {
                continue;
            }
            text.extend_from_slice(p.as_bytes());
            text.push(0);
            // Serializing a State cannot fail (strings and numbers only).
            text.extend(serde_json::to_vec(e).unwrap_or_default());
            text.push(b'\n');
        }
        sha256_hex(&text)
    }

    /// The review state of a `--review` tx (`None` for any other).
    pub fn review(&self) -> Option<Review> {
        if !self.meta.review {
            return None;
        }
        let d = read_decision(&self.dir);
        Some(match d {
            Some(d) if d.staged == self.staged_hash() => {
                if d.approved() {
                    Review::Approved(d)
                } else {
                    Review::Denied(d)
                }
            }
            previous => Review::Pending { previous },
        })
    }
}

/// The decision file, if there is one this user wrote (a private regular file).
fn read_decision(dir: &Path) -> Option<Decision> {
    let f = fsx::open_read_nofollow(&dir.join(FILE)).ok()?;
    let m = f.metadata().ok()?;
    let me = state_dir::euid();
    if !m.is_file() || m.mode() & 0o022 != 0 || m.uid() != me || m.len() > 64 * 1024 {
        return None;
    }
    let mut bytes = Vec::new();
    io::Read::read_to_end(&mut io::Read::take(f, 64 * 1024), &mut bytes).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// The decision a review gate failed on, as data for the error's words.
#[derive(Debug)]
pub enum Refused {
    Denied {
        id: String,
        reason: Option<String>,
    },
    /// `again`: the call to wait longer (its argv, a longer `--review-timeout`).
    TimedOut {
        id: String,
        waited: Duration,
        again: Vec<String>,
    },
}

/// `tx approve` / `tx deny`: records the decision on the tx's staged state now,
/// under the workspace lock and the tx lock. Returns the decision and the tx.
pub fn decide(
    ctx: &Ctx,
    id: &str,
    approve: bool,
    note: Option<String>,
) -> Result<(Decision, Tx), Box<StoreError>> {
    let state = super::state_for(ctx).map_err(|e| io_err(ctx, &e))?;
    let _wlock = lock::acquire(ctx, &state)?;
    let (_tlock, tx) = open_locked(ctx, id)?;
    if !tx.meta.review {
        return Err(StoreError::TxNotReviewed { id: id.to_string() }.into());
    }
    let d = Decision {
        decision: if approve { "approved" } else { "denied" }.into(),
        staged: tx.staged_hash(),
        at: time::iso8601(time::now().0),
        note,
    };
    write_atomic(&tx.dir, FILE, &to_json(&d).map_err(|e| io_err(ctx, &e))?)
        .map_err(|e| io_err(ctx, &e))?;
    Ok((d, tx))
}

/// Waits, holding no lock, until the tx `id` (a `--review` tx) has a decision
/// on its staged state, for at most `timeout` (zero: look once). `Ok` when it
/// is approved (or the tx is not review-gated); a denial or the time running
/// out is the refusal. `check` runs on the tx as first loaded (a conflict that
/// will refuse the commit anyway answers at once instead of after the wait).
pub fn wait(
    ctx: &Ctx,
    id: &str,
    timeout: Duration,
    check: impl FnOnce(&Tx) -> Result<(), Box<StoreError>>,
) -> Result<(), Box<StoreError>> {
    let started = Instant::now();
    let mut check = Some(check);
    // Held (shared) while this commit waits: `waiting` tells the operator.
    let mut _waiting: Option<std::fs::File> = None;
    loop {
        let tx = open(ctx, id)?;
        let review = match tx.review() {
            None => return Ok(()),
            Some(r) => r,
        };
        match review {
            Review::Approved(_) => return Ok(()),
            Review::Denied(d) => {
                return Err(StoreError::ReviewRefused(Refused::Denied {
                    id: id.to_string(),
                    reason: d.note,
                })
                .into());
            }
            Review::Pending { .. } => {}
        }
        if let Some(c) = check.take() {
            c(&tx)?;
            _waiting = announce(&tx.dir);
        }
        let waited = started.elapsed();
        if waited >= timeout {
            return Err(StoreError::ReviewRefused(Refused::TimedOut {
                id: id.to_string(),
                // Zero: only looked (`--review-timeout 0`).
                waited: if timeout.is_zero() { timeout } else { waited },
                again: wait_longer(&ctx.argv, timeout),
            })
            .into());
        }
        std::thread::sleep(POLL.min(timeout - waited));
    }
}

const WAITING: &str = "waiting";

/// The `waiting` file, share-locked: a commit waits on the tx (none when it
/// cannot be made: the tx was removed meanwhile; the wait goes on regardless).
fn announce(dir: &Path) -> Option<std::fs::File> {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(dir.join(WAITING))
        .ok()?;
    f.lock_shared().ok()?;
    Some(f)
}

/// Whether a `tx commit` waits on the tx now (holds its `waiting` file).
pub fn waiting(t: &Tx) -> bool {
    match fsx::open_read_nofollow(&t.dir.join(WAITING)) {
        Ok(f) => matches!(f.try_lock(), Err(std::fs::TryLockError::WouldBlock)),
        Err(_) => false,
    }
}

/// `argv` with its `--review-timeout` raised: twice `timeout`, at least 600 s.
fn wait_longer(argv: &[String], timeout: Duration) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip = false;
    for a in argv {
        if std::mem::take(&mut skip) {
            continue;
        }
        if a == "--review-timeout" {
            skip = true;
            continue;
        }
        if !a.starts_with("--review-timeout=") {
            out.push(a.clone());
        }
    }
    let secs = (timeout.as_secs() * 2).max(600);
    out.extend(["--review-timeout".to_string(), secs.to_string()]);
    out
}
