//! A scan's budget (files, bytes, wall time) and the meter its workers share.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What one scan may spend: files visited, bytes of those files, wall time.
/// The read-only scans (search, find, overview, code) take [`Budget::DEFAULT`]
/// inside and outside the workspace alike, so `overview /` ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub files: u64,
    pub bytes: u64,
    pub time: Duration,
}

impl Budget {
    pub const UNLIMITED: Budget = Budget {
        files: u64::MAX,
        bytes: u64::MAX,
        time: Duration::MAX,
    };
    /// Far above a large repository (a few seconds of ripgrep-speed work); a
    /// whole file system is cut.
    pub const DEFAULT: Budget = Budget {
        files: 200_000,
        bytes: 16 << 30,
        time: Duration::from_secs(10),
    };
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::UNLIMITED
    }
}

/// Which budget a walk spent, and what it had visited when it stopped.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Cut {
    /// `files`, `bytes` or `time`.
    pub budget: &'static str,
    pub files: u64,
    /// Only when the walk metered bytes (a bytes budget was set): a walk that
    /// did not stat its files knows no byte count, and 0 would be a false one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
}

/// The walk's spending against its budget, shared by the workers.
pub(super) struct Meter {
    pub(super) budget: Budget,
    start: Instant,
    files: AtomicU64,
    bytes: AtomicU64,
    /// 0 while within budget, else 1 + the index in `REASONS`.
    stop: AtomicU8,
}

const REASONS: [&str; 3] = ["files", "bytes", "time"];

impl Meter {
    pub(super) fn new(budget: Budget) -> Meter {
        Meter {
            budget,
            start: Instant::now(),
            files: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            stop: AtomicU8::new(0),
        }
    }

    fn halt(&self, reason: usize) {
        let _ = self
            .stop
            .compare_exchange(0, reason as u8 + 1, Ordering::SeqCst, Ordering::SeqCst);
    }

    /// Whether the walk must stop: a budget is spent or the time is up.
    pub(super) fn spent(&self) -> bool {
        if self.stop.load(Ordering::Relaxed) != 0 {
            return true;
        }
        if self.budget.time != Duration::MAX && self.start.elapsed() > self.budget.time {
            self.halt(2);
            return true;
        }
        false
    }

    /// Charges one file of `len` bytes before it is visited; false (and the walk
    /// stops) when it would overspend.
    pub(super) fn charge(&self, len: u64) -> bool {
        if self.spent() {
            return false;
        }
        if self.files.fetch_add(1, Ordering::SeqCst) >= self.budget.files {
            self.files.fetch_sub(1, Ordering::SeqCst);
            self.halt(0);
            return false;
        }
        let before = self.bytes.fetch_add(len, Ordering::SeqCst);
        if before.saturating_add(len) > self.budget.bytes {
            self.bytes.fetch_sub(len, Ordering::SeqCst);
            self.files.fetch_sub(1, Ordering::SeqCst);
            self.halt(1);
            return false;
        }
        true
    }

    pub(super) fn cut(&self) -> Option<Cut> {
        let r = self.stop.load(Ordering::SeqCst);
        (r != 0).then(|| Cut {
            budget: REASONS[(r as usize - 1).min(2)],
            files: self.files.load(Ordering::SeqCst),
            bytes: (self.budget.bytes != u64::MAX).then(|| self.bytes.load(Ordering::SeqCst)),
        })
    }
}
