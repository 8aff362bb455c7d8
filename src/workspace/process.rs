//! Running another program without a shell: stdin closed, its own process group,
//! both streams captured up to a cap, a deadline after which the whole group gets
//! SIGTERM and then SIGKILL. `git` and `run` both go through here, so a child never
//! outlives its deadline and never blocks aitools on a pipe a grandchild holds.

mod pump;

use super::{proctree, reaper, reaper_fork, subreaper};
use std::cell::RefCell;
use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};

/// How a call runs: the deadline, the grace between TERM and KILL, and the most
/// bytes kept per stream (the rest is read and counted, not kept).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub timeout: Duration,
    pub grace: Duration,
    pub cap: usize,
    /// Under a reaper of its own ([`reaper`]) that ends the program's whole
    /// tree also when aitools itself dies (SIGKILL included): a program a user
    /// names (`run`); aitools' own short calls (git) run plain when they can.
    pub watched: bool,
}

/// Where a stream's bytes go as they come: the reader thread feeds each chunk
/// read, so what is kept is the sink's choice and its memory its own bound.
pub trait Sink: Send + 'static {
    fn feed(&mut self, bytes: &[u8]);
    /// The stream ended (end of file, or the reader gave up).
    fn end(&mut self) {}
}

impl Limits {
    /// A program aitools starts for itself (git, a tool's version), not
    /// [`Limits::watched`].
    pub fn plain(timeout: Duration, grace: Duration, cap: usize) -> Limits {
        Limits {
            timeout,
            grace,
            cap,
            watched: false,
        }
    }
}

/// One stream's capture: its first `cap` bytes.
#[derive(Debug, Default)]
pub struct Stream {
    pub bytes: Vec<u8>,
    /// Every byte the program wrote, kept or not.
    pub total: u64,
    /// More than `cap` bytes were written.
    pub capped: bool,
    pub cap: usize,
}

impl Stream {
    pub fn with_cap(cap: usize) -> Stream {
        Stream {
            cap,
            ..Stream::default()
        }
    }
}

impl Sink for Stream {
    fn feed(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        self.total += n as u64;
        let room = self.cap.saturating_sub(self.bytes.len());
        if room < n {
            self.capped = true;
        }
        self.bytes.extend_from_slice(&bytes[..n.min(room)]);
    }
}

/// What happened.
#[derive(Debug)]
pub struct Finished<O = Stream, E = Stream> {
    pub stdout: O,
    pub stderr: E,
    /// `None` when a signal ended it.
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub duration: Duration,
    /// Processes the program left that outlived SIGKILL (another user's, a
    /// process stuck in the kernel).
    pub not_killed: Vec<u32>,
}

/// Why the program did not start.
#[derive(Debug)]
pub enum StartError {
    /// No such program (ENOENT on exec).
    NotFound,
    /// Found but not executable (EACCES).
    Denied,
    Other(std::io::Error),
}

/// Sends `sig` to the process group `pgid` (the child's pid: it leads its group).
pub fn signal_group(pgid: u32, sig: i32) {
    let Ok(pid) = i32::try_from(pgid) else {
        return;
    };
    if pid <= 1 {
        return;
    }
    // SAFETY: kill(2) takes plain integers and touches no memory of ours.
    unsafe {
        libc::kill(-pid, sig);
    }
}

/// Whether a process group still has a member that is not a zombie: where the
/// init process does not reap orphans (some containers), a group's dead members
/// stay as zombies and would look alive forever.
pub fn group_alive(pgid: u32) -> bool {
    let Ok(pid) = i32::try_from(pgid) else {
        return false;
    };
    // SAFETY: signal 0 only checks existence and permission.
    if unsafe { libc::kill(-pid, 0) } != 0 {
        return false;
    }
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return true;
    };
    dir.filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .any(|stat| {
            // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses.
            let Some(after) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
                return false;
            };
            let mut f = after.split_whitespace();
            let state = f.next().unwrap_or("Z");
            let _ppid = f.next();
            let pgrp = f.next().and_then(|g| g.parse::<u32>().ok());
            pgrp == Some(pgid) && state != "Z" && state != "X"
        })
}

/// A stream's first read buffer: most programs print a few KiB, and zeroing a
/// pipe's 64 KiB per stream cost every short run.
const FIRST_BUF: usize = 4 * 1024;

/// Grows `buf` to a pipe's 64 KiB once a read of `n` bytes filled it.
fn grow_after(buf: &mut Vec<u8>, n: usize) {
    if n == buf.len() && n < 64 * 1024 {
        buf.resize(64 * 1024, 0);
    }
}

/// After the program ends, how long its pipes may stay open (a process left
/// behind holds them) before its group and tagged processes are ended, and how
/// long after that before the pipes are left.
const LINGER: Duration = Duration::from_millis(300);
const LINGER_AFTER_KILL: Duration = Duration::from_millis(500);
/// The grace `job.end` gives that kill.
const LINGER_KILL_GRACE: Duration = Duration::from_millis(200);

fn reader<S: Sink>(mut from: impl Read, sink: &Mutex<Option<S>>) {
    let mut buf = vec![0u8; FIRST_BUF];
    let feed = |f: &mut dyn FnMut(&mut S)| {
        if let Some(s) = sink.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            f(s);
        }
    };
    loop {
        match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                feed(&mut |s| s.feed(&buf[..n]));
                grow_after(&mut buf, n);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    feed(&mut |s| s.end());
}

/// Runs `cmd` (program and arguments already set) to its end or its deadline,
/// keeping the first `Limits::cap` bytes of each stream.
pub fn run(cmd: Command, limits: Limits) -> Result<Finished, StartError> {
    let cap = limits.cap;
    run_with(cmd, limits, Stream::with_cap(cap), Stream::with_cap(cap))
}

/// [`run`] with `input` on the program's stdin, which is then closed (a
/// `git diff-tree --stdin`).
pub fn run_fed(cmd: Command, limits: Limits, input: &[u8]) -> Result<Finished, StartError> {
    let cap = limits.cap;
    let streams = (Stream::with_cap(cap), Stream::with_cap(cap));
    run_inner(cmd, limits, Some(input), streams)
}

/// Writes `input` to the program's stdin and closes it. Up to `PIPE_BUF`
/// bytes go into the empty pipe at once; more are written by a thread of
/// their own, so a program that writes before it has read all its input
/// cannot block on a pipe nobody reads yet.
fn feed_stdin(stdin: Option<std::process::ChildStdin>, input: &[u8]) {
    use std::io::Write;
    let Some(mut stdin) = stdin else { return };
    if input.len() <= libc::PIPE_BUF {
        // A program that ended first makes this EPIPE (SIGPIPE is ignored):
        // its status says what happened.
        let _ = stdin.write_all(input);
        return;
    }
    let owned = input.to_vec();
    thread::spawn(move || {
        let _ = stdin.write_all(&owned);
    });
}

type Shared<S> = Arc<Mutex<Option<S>>>;

fn take<S: Default>(s: &Shared<S>) -> S {
    s.lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
        .unwrap_or_default()
}

fn spawn_reader<S: Sink>(
    from: impl Read + Send + 'static,
    sink: &Shared<S>,
    done: &mpsc::Sender<()>,
) {
    let (sink, done) = (Arc::clone(sink), done.clone());
    thread::spawn(move || {
        reader(from, &sink);
        let _ = done.send(());
    });
}

/// A started process: std's handle, or a reaper forked without an exec
/// ([`reaper_fork`]), with its streams.
struct Started {
    child: Option<std::process::Child>,
    pid: u32,
    stdin: Option<std::process::ChildStdin>,
    stdout: Option<std::process::ChildStdout>,
    stderr: Option<std::process::ChildStderr>,
    status: Option<std::process::ExitStatus>,
}

impl Started {
    fn std(mut c: std::process::Child) -> Started {
        Started {
            pid: c.id(),
            stdin: c.stdin.take(),
            stdout: c.stdout.take(),
            stderr: c.stderr.take(),
            child: Some(c),
            status: None,
        }
    }

    fn forked(f: reaper_fork::Forked) -> Started {
        Started {
            child: None,
            pid: f.pid,
            stdin: f.stdin,
            stdout: Some(f.stdout),
            stderr: Some(f.stderr),
            status: None,
        }
    }

    fn id(&self) -> u32 {
        self.pid
    }

    /// Its status once it ended (collected once); `block` waits for it.
    fn waited(&mut self, block: bool) -> std::io::Result<Option<std::process::ExitStatus>> {
        if let Some(c) = self.child.as_mut() {
            return if block {
                c.wait().map(Some)
            } else {
                c.try_wait()
            };
        }
        if self.status.is_some() {
            return Ok(self.status);
        }
        let pid = libc::pid_t::try_from(self.pid).map_err(std::io::Error::other)?;
        let mut st = 0;
        loop {
            let flags = if block { 0 } else { libc::WNOHANG };
            // SAFETY: waitpid on our own child; `st` is ours.
            match unsafe { libc::waitpid(pid, &mut st, flags) } {
                0 => return Ok(None),
                -1 => {
                    let e = std::io::Error::last_os_error();
                    if e.kind() != std::io::ErrorKind::Interrupted {
                        return Err(e);
                    }
                }
                _ => {
                    self.status = Some(std::process::ExitStatus::from_raw(st));
                    return Ok(self.status);
                }
            }
        }
    }

    fn try_wait(&mut self) -> std::io::Result<Option<std::process::ExitStatus>> {
        self.waited(false)
    }

    fn wait(&mut self) -> std::io::Result<Option<std::process::ExitStatus>> {
        self.waited(true)
    }
}

/// The one way a program is started: its own process group and a fresh job tag
/// (what the end-of-run kill finds it by), stdout and stderr piped (stdin
/// too when `piped_stdin`, else `/dev/null`); under its own reaper
/// ([`reaper`]) when it is `watched` or another program runs under this
/// process. A process with one thread forks the reaper without an exec.
fn start_supervised(
    cmd: &mut Command,
    piped_stdin: bool,
    watched: bool,
) -> Result<(Started, Job, Instant), StartError> {
    let tag = proctree::new_tag();
    subreaper::adopt();
    let plain = !watched && subreaper::claim();
    let report = if plain {
        None
    } else {
        Some(std::io::pipe().map_err(StartError::Other)?)
    };
    let start = Instant::now();
    let (spawned, report) = match report {
        Some((r, w)) if reaper_fork::possible() => {
            cmd.env(proctree::TAG_VAR, &tag);
            let fork = || reaper_fork::fork(cmd, piped_stdin, w);
            let forked = subreaper::spawn_by(fork, |f| f.pid).map(Started::forked);
            (forked, Some(r))
        }
        report => {
            let mut shim = report.as_ref().map(|(_, w)| reaper::command(cmd, w));
            let c = shim.as_mut().unwrap_or(cmd);
            let stdin = if piped_stdin {
                Stdio::piped()
            } else {
                Stdio::null()
            };
            c.stdin(stdin)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .env(proctree::TAG_VAR, &tag)
                .process_group(0);
            let spawned = subreaper::spawn(c).map(Started::std);
            // The write end now lives in the reaper alone.
            (spawned, report.map(|(r, _)| r))
        }
    };
    let mut job = Job {
        tag,
        since: 0,
        plain,
        report: RefCell::new(report.map(BufReader::new)),
        left: RefCell::new(Vec::new()),
    };
    let mut child = spawned.map_err(start_error)?;
    if let Err(e) = job.started() {
        let _ = child.wait();
        subreaper::release(child.id());
        return Err(start_error(e));
    }
    // Not reaped yet, so its start time is there even if it already ended.
    job.since = proctree::start_time(child.id()).unwrap_or(0);
    Ok((child, job, start))
}

fn start_error(e: std::io::Error) -> StartError {
    match e.kind() {
        std::io::ErrorKind::NotFound => StartError::NotFound,
        std::io::ErrorKind::PermissionDenied => StartError::Denied,
        _ => StartError::Other(e),
    }
}

/// What names a started program's tree: its tag, and its start time (what it
/// left re-parents to aitools, the subreaper, from then on) or its reaper.
struct Job {
    tag: String,
    since: u64,
    /// Run under this process itself (not under a reaper of its own).
    plain: bool,
    /// The reaper's report (none for a plain run, or once read).
    report: RefCell<Option<BufReader<std::io::PipeReader>>>,
    /// The pids the reaper said outlived SIGKILL.
    left: RefCell<Vec<u32>>,
}

impl Drop for Job {
    fn drop(&mut self) {
        if self.plain {
            subreaper::unclaim();
        }
    }
}

impl Job {
    /// The reaper's first word: the program started (always, for a plain run).
    fn started(&self) -> std::io::Result<()> {
        let mut report = self.report.borrow_mut();
        let Some(r) = report.as_mut() else {
            return Ok(());
        };
        let mut first = String::new();
        r.read_line(&mut first)?;
        reaper::started(&first)
    }

    /// `sig` to the tree: the group, the tagged processes, the descendants of
    /// `root` (the program, while it is not reaped) and the orphans it left.
    /// A reaper's tree is what is under it (never an orphan of this process);
    /// the reaper itself outlives TERM, and the first KILL (`hard` false).
    fn signal(&self, pgid: u32, root: Option<u32>, sig: i32, hard: bool) {
        if self.plain {
            signal_group(pgid, sig);
            subreaper::signal_tree(root, self.since, Some(&self.tag), sig);
            return;
        }
        if sig != libc::SIGKILL || hard {
            signal_group(pgid, sig);
        }
        subreaper::signal_tree(root, u64::MAX, Some(&self.tag), sig);
    }

    /// After the program was reaped: SIGKILL to what is left until none is
    /// (or `within` passed); the pids that outlived it. A reaper ended its
    /// tree itself and named those that outlived it.
    fn end(&self, pgid: u32, within: Duration) -> Vec<u32> {
        // A reaper's report is read until the reaper and its guard closed it
        // (one of them may still be ending the tree, the other dead), so the
        // group is killed after.
        let said = self.report.borrow_mut().take().map(|mut r| {
            let mut said = String::new();
            let _ = r.read_to_string(&mut said);
            said
        });
        if group_alive(pgid) {
            signal_group(pgid, libc::SIGKILL);
        }
        if self.plain {
            return subreaper::sweep(None, self.since, Some(&self.tag), within);
        }
        if let Some(said) = said {
            *self.left.borrow_mut() = said.lines().filter_map(|l| l.trim().parse().ok()).collect();
            // The reaper and its guard both died before ending the tree
            // (either alone is covered by the other, [`super::reaper_guard`]):
            // what carries the run's tag and re-parented here is ended, with
            // everything under it. An orphan that also dropped the tag
            // (`env -i`) is left: it cannot be told from another job's.
            if !said.lines().any(|l| l.trim() == reaper::DONE) {
                let left = subreaper::sweep_tagged(self.since, &self.tag, within);
                self.left.borrow_mut().extend(left);
            }
        }
        let mut left = self.left.borrow().clone();
        left.retain(|&p| proctree::live(p));
        left
    }
}

/// Runs `cmd` to its end or its deadline, each stream fed to its sink as it
/// comes. The program carries a tag ([`proctree`]): when it ends, every process
/// it left (in its group, or escaped by `setsid` or a double fork) is killed;
/// those that could not be are `not_killed`.
pub fn run_with<O: Sink + Default, E: Sink + Default>(
    cmd: Command,
    limits: Limits,
    out: O,
    err: E,
) -> Result<Finished<O, E>, StartError> {
    run_inner(cmd, limits, None, (out, err))
}

/// [`run_with`], with `input` (if any) on a piped stdin.
fn run_inner<O: Sink + Default, E: Sink + Default>(
    mut cmd: Command,
    limits: Limits,
    input: Option<&[u8]>,
    (out, err): (O, E),
) -> Result<Finished<O, E>, StartError> {
    let (mut child, job, start) = start_supervised(&mut cmd, input.is_some(), limits.watched)?;
    if let Some(input) = input {
        feed_stdin(child.stdin.take(), input);
    }
    if !limits.watched
        && let Some(exited) = Exited::open(child.id())
    {
        return Ok(pump::pumped(
            child,
            &job,
            start,
            limits,
            (out, err),
            &exited,
        ));
    }
    let pgid = child.id();
    let (out, err): (Shared<O>, Shared<E>) = (
        Arc::new(Mutex::new(Some(out))),
        Arc::new(Mutex::new(Some(err))),
    );
    let (tx, rx) = mpsc::channel();
    let mut readers = 0;
    if let Some(o) = child.stdout.take() {
        spawn_reader(o, &out, &tx);
        readers += 1;
    }
    if let Some(e) = child.stderr.take() {
        spawn_reader(e, &err, &tx);
        readers += 1;
    }
    drop(tx);
    let (status, timed_out) = wait_child(&mut child, pgid, &job, start, limits);
    subreaper::release(pgid);
    let duration = start.elapsed();
    drain(&rx, readers, pgid, &job);
    let not_killed = job.end(pgid, Duration::from_millis(500));
    let (exit_code, signal) = match status {
        Some(st) => (st.code(), st.signal()),
        None => (None, None),
    };
    Ok(Finished {
        stdout: take(&out),
        stderr: take(&err),
        exit_code,
        signal,
        timed_out,
        duration,
        not_killed,
    })
}

/// Waits for the program's end; past the deadline TERM (group and tagged), then
/// KILL after the grace.
fn wait_child(
    child: &mut Started,
    pgid: u32,
    job: &Job,
    start: Instant,
    limits: Limits,
) -> (Option<std::process::ExitStatus>, bool) {
    let mut due = Deadline::new(start, limits);
    // The program's end wakes the wait at once (a pidfd is readable then);
    // without one, naps that grow from 1 ms.
    let exited = Exited::open(child.id());
    let mut nap = Duration::from_millis(1);
    loop {
        match child.try_wait() {
            Ok(Some(st)) => return (Some(st), due.timed_out),
            Ok(None) => {}
            Err(_) => return (None, due.timed_out),
        }
        due.tick(job, pgid);
        match &exited {
            Some(e) => e.wait(Duration::from_millis(20)),
            None => {
                thread::sleep(nap);
                nap = (nap * 2).min(Duration::from_millis(20));
            }
        }
    }
}

/// The deadline of a running program: past it TERM (group and tagged), then
/// KILL after the grace, again every 2 s.
struct Deadline {
    at: Instant,
    grace: Duration,
    termed_at: Option<Instant>,
    kills: u32,
    timed_out: bool,
}

impl Deadline {
    fn new(start: Instant, limits: Limits) -> Deadline {
        Deadline {
            at: start + limits.timeout,
            grace: limits.grace,
            termed_at: None,
            kills: 0,
            timed_out: false,
        }
    }

    /// Signals the program's tree when its time is up (called while it runs).
    fn tick(&mut self, job: &Job, pgid: u32) {
        let now = Instant::now();
        match self.termed_at {
            None if now >= self.at => {
                self.timed_out = true;
                job.signal(pgid, Some(pgid), libc::SIGTERM, false);
                self.termed_at = Some(now);
            }
            Some(t) if now >= t + self.grace => {
                // A reaper that did not end is killed too.
                job.signal(pgid, Some(pgid), libc::SIGKILL, self.kills > 0);
                self.kills += 1;
                self.termed_at = Some(now + Duration::from_secs(2));
            }
            _ => {}
        }
    }
}

/// A child's pidfd: readable once the child ended.
struct Exited(std::os::fd::OwnedFd);

impl Exited {
    fn open(pid: u32) -> Option<Exited> {
        use std::os::fd::FromRawFd;
        let pid = libc::pid_t::try_from(pid).ok()?;
        // SAFETY: pidfd_open(2) takes plain integers; the fd it returns is ours.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        let fd = i32::try_from(fd).ok().filter(|&fd| fd >= 0)?;
        // SAFETY: `fd` was just opened and is owned by nothing else.
        Some(Exited(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) }))
    }

    /// Waits until the child ended or `most` passed.
    fn wait(&self, most: Duration) {
        use std::os::fd::AsRawFd;
        let mut p = libc::pollfd {
            fd: self.0.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = libc::c_int::try_from(most.as_millis()).unwrap_or(20);
        // SAFETY: `p` is one valid pollfd owned here.
        unsafe { libc::poll(&mut p, 1, ms) };
    }
}

/// Lets the streams drain: a process left behind may hold the pipes open, so
/// after a moment the group and the tagged processes are killed, and after
/// another the readers are left behind (their sinks keep what they read).
fn drain(rx: &mpsc::Receiver<()>, readers: usize, pgid: u32, job: &Job) {
    let mut got = 0;
    let mut killed = false;
    while got < readers {
        let wait = if killed { LINGER_AFTER_KILL } else { LINGER };
        match rx.recv_timeout(wait) {
            Ok(()) => got += 1,
            Err(mpsc::RecvTimeoutError::Timeout) if !killed => {
                job.end(pgid, LINGER_KILL_GRACE);
                killed = true;
            }
            Err(_) => break,
        }
    }
}

/// A conversation with a program that reads its stdin (a language server): its
/// stdout arrives as chunks on `stdout`, its stderr is kept up to the cap.
pub struct Pipe {
    pub stdin: Option<std::process::ChildStdin>,
    pub stdout: mpsc::Receiver<Vec<u8>>,
    /// When the conversation must be over.
    pub deadline: Instant,
}

/// A chunk sink that forwards every chunk to a channel.
#[derive(Default)]
struct Forward(Option<mpsc::Sender<Vec<u8>>>);

impl Sink for Forward {
    fn feed(&mut self, bytes: &[u8]) {
        if let Some(s) = &self.0 {
            let _ = s.send(bytes.to_vec());
        }
    }
    fn end(&mut self) {
        self.0 = None;
    }
}

/// Runs `cmd` with a piped stdin and lets `talk` converse with it until
/// `Limits::timeout`; then stdin is closed, the program gets the grace to end,
/// and its whole tree (group and tag, as [`run_with`]) is killed. The same start
/// and end as every other program aitools runs.
pub fn converse<R>(
    mut cmd: Command,
    limits: Limits,
    talk: impl FnOnce(&mut Pipe) -> R,
) -> Result<(R, Finished<(), Stream>), StartError> {
    let (mut child, job, start) = start_supervised(&mut cmd, true, limits.watched)?;
    let pgid = child.id();
    let (chunks_tx, chunks_rx) = mpsc::channel();
    let out: Shared<Forward> = Arc::new(Mutex::new(Some(Forward(Some(chunks_tx)))));
    let err: Shared<Stream> = Arc::new(Mutex::new(Some(Stream::with_cap(limits.cap))));
    let (tx, rx) = mpsc::channel();
    let mut readers = 0;
    if let Some(o) = child.stdout.take() {
        spawn_reader(o, &out, &tx);
        readers += 1;
    }
    if let Some(e) = child.stderr.take() {
        spawn_reader(e, &err, &tx);
        readers += 1;
    }
    drop(tx);
    let mut pipe = Pipe {
        stdin: child.stdin.take(),
        stdout: chunks_rx,
        deadline: start + limits.timeout,
    };
    let said = talk(&mut pipe);
    drop(pipe);
    // The conversation is over: what is left of the deadline is the grace.
    let rest = Limits {
        timeout: limits.grace,
        ..limits
    };
    let (status, timed_out) = wait_child(&mut child, pgid, &job, Instant::now(), rest);
    subreaper::release(pgid);
    let duration = start.elapsed();
    drain(&rx, readers, pgid, &job);
    let not_killed = job.end(pgid, Duration::from_millis(500));
    let (exit_code, signal) = match status {
        Some(st) => (st.code(), st.signal()),
        None => (None, None),
    };
    Ok((
        said,
        Finished {
            stdout: (),
            stderr: take(&err),
            exit_code,
            signal,
            timed_out,
            duration,
            not_killed,
        },
    ))
}
