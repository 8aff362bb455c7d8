//! A run's reaper comes as two processes, each the other's keeper: the guard
//! (the process the starter started, its direct child) forks the reaper, which
//! starts the program. Both are child subreapers, so what the program leaves
//! re-parents to the reaper, and what a dead reaper leaves re-parents to the
//! guard, never to the starter, where it could not be told apart from another
//! job's orphan (a bg job's grandchild that dropped its tag with `env -i` and
//! left its group with `setsid` looks exactly like a run's).
//!
//! - The reaper killed (SIGKILL, the OOM killer): the guard sees it end without
//!   its "done" byte, ends everything under itself (the program's whole tree),
//!   reports what outlived SIGKILL and `end` to the starter, and ends as the
//!   reaper did.
//! - The guard killed: the reaper sees the guard's life pipe close; the run is
//!   over for the starter (its child ended), so the reaper ends the tree and
//!   reports it the same way.
//! - Both killed at once: the starter ends what carries the run's tag and what
//!   is under it ([`super::process`]); what dropped the tag as well is left, as
//!   it cannot be told from another job's.

use std::io::{Read, Write};
use std::os::fd::AsRawFd;

/// Which side of the split this process is.
pub enum Split {
    /// The guard: the starter's child, watching the reaper.
    Guard(Guard),
    /// The reaper: starts the program.
    Reaper(Reaper),
    /// No fork was possible: one process does both (as before the guard).
    Alone,
}

pub struct Guard {
    reaper: libc::pid_t,
    /// Read end of the reaper's "done" pipe.
    done: std::io::PipeReader,
    /// Write end of the life pipe: closes when the guard dies.
    _life: std::io::PipeWriter,
}

pub struct Reaper {
    done: std::io::PipeWriter,
    life: std::io::PipeReader,
}

/// Forks the reaper off this process (single-threaded here: a reaper process
/// starts no thread before this).
pub fn split() -> Split {
    let (Ok((done_r, done_w)), Ok((life_r, life_w))) = (std::io::pipe(), std::io::pipe()) else {
        return Split::Alone;
    };
    // SAFETY: this process has one thread (nothing here starts one before the
    // split), so the child may run any code.
    match unsafe { libc::fork() } {
        -1 => Split::Alone,
        0 => {
            drop((done_r, life_w));
            // Not inherited through fork: the reaper asks for itself.
            // SAFETY: prctl with integer arguments.
            unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
            Split::Reaper(Reaper {
                done: done_w,
                life: life_r,
            })
        }
        pid => {
            drop((done_w, life_r));
            Split::Guard(Guard {
                reaper: pid,
                done: done_r,
                _life: life_w,
            })
        }
    }
}

impl Reaper {
    /// The life pipe's read end: readable (hung up) once the guard died.
    pub fn life(&self) -> i32 {
        self.life.as_raw_fd()
    }

    /// Tells the guard the reaper ended the tree itself.
    pub fn done(mut self) {
        let _ = self.done.write_all(b"d");
    }
}

/// How the reaper ended, as the guard saw it.
pub enum ReaperEnd {
    /// It said it was done, and ended with this exit code or signal.
    Done(End),
    /// It died before saying so (killed); the signal or code it died of.
    Killed(End),
}

/// An exit code or the signal that ended a process.
pub enum End {
    Code(u8),
    Signal(i32),
}

impl Guard {
    /// Waits for the reaper to end; whether it said it was done first.
    pub fn watch(self) -> ReaperEnd {
        let mut status = 0;
        loop {
            // SAFETY: waitpid on our one child; `status` is ours.
            let r = unsafe { libc::waitpid(self.reaper, &mut status, 0) };
            if r == self.reaper
                || std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR)
            {
                break;
            }
        }
        let end = if libc::WIFSIGNALED(status) {
            End::Signal(libc::WTERMSIG(status))
        } else {
            End::Code(u8::try_from(libc::WEXITSTATUS(status) & 0xff).unwrap_or(1))
        };
        let mut byte = [0u8; 1];
        let mut done = self.done;
        if matches!(done.read(&mut byte), Ok(1)) {
            ReaperEnd::Done(end)
        } else {
            ReaperEnd::Killed(end)
        }
    }
}
