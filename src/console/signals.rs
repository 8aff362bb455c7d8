//! SIGINT and SIGTERM while the console serves: noted in an atomic, so the
//! accept loop (which wakes at least every quarter second) can deregister the
//! surfaces and return.

use std::sync::atomic::{AtomicI32, Ordering};

static CAUGHT: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    CAUGHT.store(sig, Ordering::SeqCst);
}

pub fn install() {
    let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    // SAFETY: the handler only stores into an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, handler);
        libc::signal(libc::SIGTERM, handler);
    }
}

/// Whether a stop signal came.
pub fn caught() -> bool {
    CAUGHT.load(Ordering::SeqCst) != 0
}
