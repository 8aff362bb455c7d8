//! A run's reaper forked without an exec: when the starting process has one
//! thread (a CLI call; a server has many), a fork copies nothing another
//! thread holds half-changed (a lock, the allocator), so the child may run any
//! code and does the reaper's work ([`super::reaper::reap`]) at once. That
//! saves loading aitools again for every `run`. The child does what an exec of
//! the reaper would: its own process group, the streams on 0-2, every
//! descriptor aitools opened closed (they are close-on-exec; what aitools
//! inherited stays, as an exec keeps it), and it never returns into the
//! caller's code (`_exit`).

use std::fs::File;
use std::io::PipeWriter;
use std::os::fd::{AsRawFd, OwnedFd};
use std::process::{ChildStderr, ChildStdin, ChildStdout, Command, Stdio};

/// A forked reaper, from the starter's side.
pub struct Forked {
    pub pid: u32,
    pub stdin: Option<ChildStdin>,
    pub stdout: ChildStdout,
    pub stderr: ChildStderr,
}

/// Whether this process has one thread (then a fork may run any code).
pub fn possible() -> bool {
    std::fs::read_dir("/proc/self/task").is_ok_and(|d| d.take(2).count() == 1)
}

/// Forks the reaper of `cmd` (which gets the job's tag, cwd and environment
/// already set), reporting on `report`; stdin is a pipe when `piped_stdin`,
/// else `/dev/null`. Call only when [`possible`].
pub fn fork(cmd: &mut Command, piped_stdin: bool, report: PipeWriter) -> std::io::Result<Forked> {
    let (out_r, out_w) = std::io::pipe()?;
    let (err_r, err_w) = std::io::pipe()?;
    let (in_r, in_w): (OwnedFd, Option<PipeWriter>) = if piped_stdin {
        let (r, w) = std::io::pipe()?;
        (r.into(), Some(w))
    } else {
        (File::open("/dev/null")?.into(), None)
    };
    // The program inherits the reaper's streams and group.
    cmd.stdin(Stdio::inherit())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit());
    // SAFETY: this process has one thread ([`possible`]): the child is a whole
    // copy and may run any code; it ends in `_exit`, never returning here.
    match unsafe { libc::fork() } {
        -1 => Err(std::io::Error::last_os_error()),
        0 => {
            drop((out_r, err_r, in_w));
            let streams = [in_r, out_w.into(), err_w.into()];
            let run = std::panic::AssertUnwindSafe(|| child(cmd, streams, report));
            let code = std::panic::catch_unwind(run).unwrap_or(127);
            // SAFETY: ends the child without running the caller's destructors
            // or flushing buffers it shares with the starter.
            unsafe { libc::_exit(i32::from(code)) }
        }
        pid => Ok(Forked {
            pid: u32::try_from(pid).unwrap_or(0),
            stdin: in_w.map(|w| ChildStdin::from(OwnedFd::from(w))),
            stdout: ChildStdout::from(OwnedFd::from(out_r)),
            stderr: ChildStderr::from(OwnedFd::from(err_r)),
        }),
    }
}

/// The forked side: what an exec of the reaper would have set up, then its work.
fn child(cmd: &mut Command, streams: [OwnedFd; 3], report: PipeWriter) -> u8 {
    // SAFETY: setpgid and dup2 on plain integers; the descriptors are ours.
    unsafe {
        if libc::setpgid(0, 0) == -1 {
            return 127;
        }
        for (to, fd) in (0..).zip(streams.iter()) {
            if libc::dup2(fd.as_raw_fd(), to) == -1 {
                return 127;
            }
        }
    }
    drop(streams);
    close_own_descriptors(report.as_raw_fd());
    super::reaper::reap(File::from(OwnedFd::from(report)), cmd)
}

/// Closes every descriptor from 3 up that is close-on-exec (aitools' own:
/// files, locks, the starter's ends of the pipes), but `keep`.
fn close_own_descriptors(keep: i32) {
    let Ok(dir) = std::fs::read_dir("/proc/self/fd") else {
        return;
    };
    let fds: Vec<i32> = dir
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    for fd in fds {
        // SAFETY: fcntl and close on descriptor numbers of this process only.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if fd > 2 && fd != keep && flags != -1 && flags & libc::FD_CLOEXEC != 0 {
                libc::close(fd);
            }
        }
    }
}
