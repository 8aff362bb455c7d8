//! A plain run (aitools' own programs: git, a tool's version) on the calling
//! thread: one `poll` over both pipes and the program's pidfd, where
//! `run_with` otherwise starts a reader thread per stream.

use super::{
    Deadline, Exited, FIRST_BUF, Finished, Job, LINGER, LINGER_AFTER_KILL, LINGER_KILL_GRACE,
    Limits, Sink, Started, grow_after,
};
use crate::workspace::subreaper;
use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::time::{Duration, Instant};

/// `run_with` for a plain run (aitools' own: git, a tool's version) on this
/// thread: one `poll` over both pipes and the program's pidfd, no reader
/// threads. Not for a watched run: `run`'s sinks write events, which may block,
/// and the deadline must not wait on them.
pub(super) fn pumped<O: Sink, E: Sink>(
    mut child: Started,
    job: &Job,
    start: Instant,
    limits: Limits,
    (mut out, mut err): (O, E),
    exited: &Exited,
) -> Finished<O, E> {
    let pgid = child.id();
    let mut pipes = Pipes {
        out: child.stdout.take(),
        err: child.stderr.take(),
        buf: vec![0u8; FIRST_BUF],
    };
    let mut due = Deadline::new(start, limits);
    let mut ended: Option<(Option<std::process::ExitStatus>, Instant)> = None;
    // As `drain`: a process left behind may hold the pipes open; after LINGER
    // the tree is ended, after LINGER_AFTER_KILL more the pipes are left.
    let mut killed_at: Option<Instant> = None;
    loop {
        let now = Instant::now();
        match ended {
            None => match child.try_wait() {
                Ok(None) => due.tick(job, pgid),
                st => {
                    subreaper::release(pgid);
                    ended = Some((st.ok().flatten(), now));
                }
            },
            Some((_, at)) => match killed_at {
                None if now >= at + LINGER => {
                    job.end(pgid, LINGER_KILL_GRACE);
                    killed_at = Some(Instant::now());
                }
                Some(k) if now >= k + LINGER_AFTER_KILL => break,
                _ => {}
            },
        }
        if ended.is_some() && pipes.closed() {
            break;
        }
        let pidfd = if ended.is_none() { Some(exited) } else { None };
        pipes.pump(pidfd, Duration::from_millis(20), &mut out, &mut err);
    }
    let (status, at) = ended.unwrap_or((None, Instant::now()));
    let not_killed = job.end(pgid, Duration::from_millis(500));
    Finished {
        stdout: out,
        stderr: err,
        exit_code: status.and_then(|st| st.code()),
        signal: status.and_then(|st| st.signal()),
        timed_out: due.timed_out,
        duration: at - start,
        not_killed,
    }
}

/// A plain run's two pipes while they are open, and the buffer they are read
/// through (4 KiB, grown to 64 KiB when a read fills it).
struct Pipes {
    out: Option<std::process::ChildStdout>,
    err: Option<std::process::ChildStderr>,
    buf: Vec<u8>,
}

impl Pipes {
    fn closed(&self) -> bool {
        self.out.is_none() && self.err.is_none()
    }

    /// Waits up to `most` for either pipe (or the pidfd) to be ready, then feeds
    /// one read of each ready pipe to its sink; end of file ends the sink.
    fn pump<O: Sink, E: Sink>(
        &mut self,
        pidfd: Option<&Exited>,
        most: Duration,
        out: &mut O,
        err: &mut E,
    ) {
        use std::os::fd::AsRawFd;
        let fd = |f: Option<i32>| libc::pollfd {
            fd: f.unwrap_or(-1),
            events: libc::POLLIN,
            revents: 0,
        };
        let mut fds = [
            fd(pidfd.map(|e| e.0.as_raw_fd())),
            fd(self.out.as_ref().map(|o| o.as_raw_fd())),
            fd(self.err.as_ref().map(|e| e.as_raw_fd())),
        ];
        let ms = libc::c_int::try_from(most.as_millis()).unwrap_or(20);
        // SAFETY: `fds` is three valid pollfds owned here (a negative fd is skipped).
        if unsafe { libc::poll(fds.as_mut_ptr(), 3, ms) } <= 0 {
            return;
        }
        if fds[1].revents != 0 {
            read_once(&mut self.out, &mut self.buf, out);
        }
        if fds[2].revents != 0 {
            read_once(&mut self.err, &mut self.buf, err);
        }
    }
}

/// One read of a ready pipe into `sink`; end of file or an error closes it.
fn read_once<S: Sink>(pipe: &mut Option<impl Read>, buf: &mut Vec<u8>, sink: &mut S) {
    let Some(p) = pipe.as_mut() else {
        return;
    };
    match p.read(buf) {
        Ok(0) => {}
        Ok(n) => {
            sink.feed(&buf[..n]);
            grow_after(buf, n);
            return;
        }
        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => return,
        Err(_) => {}
    }
    sink.end();
    *pipe = None;
}
