//! The composition root's entry: everything happens in `dispatch::status`.
//!
//! The C `main` is ours (`no_main`): std's start-up runs no code here that a call
//! needs, and its main-thread stack-guard set-up alone (glibc's
//! `pthread_getattr_np` reading `/proc/self/maps`) was a quarter of what
//! `aitools --version` executed (issue 12 row 10). What std's start-up did that
//! matters is done below: standard descriptors 0-2 exist, and a closed pipe is an
//! error (`EPIPE`), not a killing `SIGPIPE`. Without std's handler a stack
//! overflow ends in `SIGSEGV` instead of `SIGABRT`; neither prints an envelope.
#![no_main]

use std::ffi::{c_char, c_int};

#[unsafe(no_mangle)]
pub extern "C" fn main(_argc: c_int, _argv: *const *const c_char) -> c_int {
    // std reads argv itself (glibc hands it to `.init_array` functions).
    open_standard_fds();
    // SAFETY: sets the disposition of one signal before any other thread exists.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    c_int::from(aitools::dispatch::status())
}

/// A descriptor 0-2 that is closed gets `/dev/null`, so no file aitools opens
/// later can become its stdout and receive the envelope (std's start-up does the
/// same).
fn open_standard_fds() {
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
        fd,
        events: 0,
        revents: 0,
    });
    loop {
        // SAFETY: `fds` is a valid array of three `pollfd`.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), 3, 0) };
        if n >= 0 {
            break;
        }
        if std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            continue;
        }
        // poll refused (EINVAL, ENOMEM): ask each descriptor instead.
        for p in fds.iter_mut() {
            // SAFETY: F_GETFD only reads the descriptor's flags.
            let closed = unsafe { libc::fcntl(p.fd, libc::F_GETFD) } == -1
                && std::io::Error::last_os_error().raw_os_error() == Some(libc::EBADF);
            p.revents = if closed { libc::POLLNVAL } else { 0 };
        }
        break;
    }
    for p in fds {
        if p.revents & libc::POLLNVAL != 0 {
            // SAFETY: a NUL-terminated path; the lowest free descriptor is `p.fd`.
            if unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) } == -1 {
                std::process::abort();
            }
        }
    }
}
