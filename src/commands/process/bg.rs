//! `bg start|logs|status|stop`: programs that keep running after the call. Each
//! lives in `<state>/bg/bg-<n>/` (`meta.json`, `log` with both streams, `exit`
//! written when it ends); logs are read a bounded window at a time by byte offset;
//! stop ends the whole process group.

use super::output;
use super::run::{compile_grep, not_started};
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, error, redact, shell, values};
use crate::store::files::{Durable, File, OwnDir, is_executable};
use crate::workspace::Ctx;
use crate::workspace::process::{self as proc, StartError};
use crate::workspace::{proctree, subreaper, supervisor};
use clap::Args;
use serde::{Deserialize, Serialize};
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Most bytes of a log one `bg logs` call reads.
const MAX_LOG_WINDOW: u64 = 4 * 1024 * 1024;
/// How a bg record (`meta.json`, a stop's `exit`) is written: whole or not at all.
const RECORD: Durable = Durable {
    mode: 0o644,
    sync: false,
};

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Meta {
    pub id: String,
    pub name: Option<String>,
    pub pid: u32,
    pub argv: Vec<String>,
    pub started: String,
    /// The supervisor's start time (field 22 of `/proc/<pid>/stat`): with the pid,
    /// what names it; a record without it (an older aitools) names nothing alive.
    #[serde(default)]
    pub start: Option<u64>,
    /// The `AITOOLS_JOB` tag every process of the job carries.
    #[serde(default)]
    pub tag: Option<String>,
}

/// A bg process as the state directory knows it.
pub struct Job {
    /// `<state>/bg/bg-<n>/`.
    pub dir: OwnDir,
    pub meta: Meta,
}

impl Job {
    pub fn log(&self) -> PathBuf {
        self.dir.path().join("log")
    }

    /// `(exit_code, signal)` once it ended with a record.
    pub fn exit(&self) -> Option<(Option<i32>, Option<i32>)> {
        let text = self.dir.read("exit").ok()?;
        let t = String::from_utf8_lossy(&text);
        let t = t.trim();
        if let Some(sig) = t.strip_prefix("signal ") {
            return Some((None, sig.parse().ok()));
        }
        if let Some(code) = t.strip_prefix("exit ") {
            return Some((code.parse().ok(), None));
        }
        let n: i32 = t.parse().ok()?;
        // An older aitools' shell supervisor: a signal's end is 128 + the signal.
        Some(if n > 128 && n < 128 + 65 {
            (None, Some(n - 128))
        } else {
            (Some(n), None)
        })
    }

    /// `(cap, dropped bytes)` once the log reached its cap.
    pub fn log_cut(&self) -> Option<(u64, u64)> {
        let text = self.dir.read("cut").ok()?;
        let t = String::from_utf8_lossy(&text);
        let (cap, dropped) = t.trim().split_once(' ')?;
        Some((cap.parse().ok()?, dropped.parse().ok()?))
    }

    /// The pids the supervisor could not end when the program ended (outlived
    /// SIGKILL), from its `not_killed` record.
    pub fn not_killed(&self) -> Vec<u64> {
        let text = self.dir.read("not_killed").unwrap_or_default();
        String::from_utf8_lossy(&text)
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect()
    }

    /// Pushes `log_cut` `{cap, dropped_bytes}` when the log was cut.
    pub fn push_cut(&self, o: &mut Json) {
        if let Some((cap, dropped)) = self.log_cut() {
            let mut c = Json::obj();
            c.push("cap", Json::UInt(cap));
            c.push("dropped_bytes", Json::UInt(dropped));
            o.push("log_cut", c);
        }
    }

    /// Whether the supervisor that leads the job's group is alive: its pid and
    /// start time, never its pid alone (a reused pid names another program).
    pub fn leader_alive(&self) -> bool {
        self.meta
            .start
            .is_some_and(|s| proctree::is_same(self.meta.pid, s))
            && self
                .meta
                .tag
                .as_deref()
                .is_none_or(|t| proctree::carries(self.meta.pid, t))
    }

    /// The live processes carrying the job's tag.
    pub fn tagged(&self) -> Vec<u32> {
        self.meta
            .tag
            .as_deref()
            .map(proctree::tagged)
            .unwrap_or_default()
    }

    pub fn running(&self) -> bool {
        self.exit().is_none() && (self.leader_alive() || !self.tagged().is_empty())
    }
}

/// bg keeps its records in the workspace's state directory; one that cannot be
/// created or written (a read-only or full disk, a state home that cannot hold
/// it) leaves bg without them.
fn bg_dir(ctx: &Ctx) -> Result<OwnDir, CmdError> {
    let state = ctx.files().state_dir().map_err(|e| {
        CmdError::new(
            code::UNAVAILABLE,
            format!(
                "The state directory, where bg keeps its processes' records, is not usable: {}.",
                error::err_text(&e)
            ),
            Repair::new(
                "inspect",
                "See which state directory is used and what is wrong with it (XDG_STATE_HOME, else HOME, says where it lives).",
                "aitools doctor",
            ),
        )
        .with_repair(Repair::new(
            "run",
            "Run the program in the foreground instead.",
            "aitools schema run",
        ))
    })?;
    state.sub("bg").map_err(|e| io("bg", &e))
}

fn io(what: &str, e: &std::io::Error) -> CmdError {
    error::io_error("bg", what, e)
}

/// The job named `id`, or `input.not-found` listing the way to see them.
pub fn job(ctx: &Ctx, id: &str) -> Result<Job, CmdError> {
    let dir = bg_dir(ctx)?;
    let valid = id
        .strip_prefix("bg-")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    let found = valid
        .then(|| dir.sub(id).ok())
        .flatten()
        .and_then(|d| Some((d.read("meta.json").ok()?, d)));
    match found {
        Some((bytes, dir)) => match serde_json::from_slice::<Meta>(&bytes) {
            Ok(meta) => Ok(Job { dir, meta }),
            Err(e) => Err(corrupt(id, &dir, &e)),
        },
        None => Err(CmdError::new(
            code::NOT_FOUND,
            format!("No bg process {id} in this workspace."),
            Repair::new(
                "list",
                "List the bg processes started here.",
                "aitools bg status",
            ),
        )),
    }
}

/// A record that is there but does not parse (edited by hand, or a disk fault).
fn corrupt(id: &str, dir: &OwnDir, e: &serde_json::Error) -> CmdError {
    let path = dir.path().join("meta.json");
    CmdError::new(
        code::SYNTAX_ERROR,
        format!(
            "The record of bg process {id} ({}) is not valid: {e}.",
            path.display()
        ),
        Repair::new(
            "read",
            "Read the record to repair it by hand (or remove its directory to forget the process).",
            shell::aitools(["read", &path.to_string_lossy()]),
        ),
    )
    .with_repair(Repair::new(
        "list",
        "List the bg processes whose records are whole.",
        "aitools bg status",
    ))
}

fn all_jobs(ctx: &Ctx) -> Result<Vec<Job>, CmdError> {
    let dir = bg_dir(ctx)?;
    let mut ids: Vec<u64> = match dir.names() {
        Ok(names) => names
            .iter()
            .filter_map(|n| n.to_str()?.strip_prefix("bg-")?.parse().ok())
            .collect(),
        Err(_) => Vec::new(),
    };
    ids.sort_unstable();
    Ok(ids
        .into_iter()
        .filter_map(|n| job(ctx, &format!("bg-{n}")).ok())
        .collect())
}

/// Whether `prog` can be found the way exec would (a path, or on PATH).
fn findable(prog: &str) -> bool {
    if prog.contains('/') {
        return is_executable(Path::new(prog));
    }
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|d| is_executable(&d.join(prog))))
}

// ---- bg start ----

#[derive(Args, Debug)]
pub struct StartArgs {
    /// Program and arguments (after --).
    #[arg(required = true, num_args = 1.., trailing_var_arg = true, allow_hyphen_values = true, value_name = "ARGV")]
    pub argv: Vec<String>,
    /// Label shown by bg status (1-64 characters).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Most bytes the log keeps; past it the rest is dropped and counted (log_cut).
    #[arg(long, value_name = "SIZE", default_value = "64MiB", value_parser = values::parse_size)]
    pub log_cap: u64,
}

pub const START: CommandSpec = CommandSpec {
    name: "bg start",
    summary: "Start a program that outlives the call; logs kept.",
    description: "Starts argv directly (no shell: a builtin name never shadows the program; run `sh -c '...'` for pipes and $VARS) in its own process group, stdin closed, both streams in one log under the workspace's state directory; it keeps running after aitools exits (also a server killed by SIGKILL: bg stop ends it). An aitools supervisor leads the group, records the exit status and copies the output to the log up to --log-cap (default 64MiB): past it the rest is read and dropped, and bg status, bg logs and wait --bg say so in log_cut {cap,dropped_bytes}. Every process of the job carries an AITOOLS_JOB tag; what the program leaves running (also past setsid, a double fork and env -i: the supervisor is its subreaper) gets SIGTERM, then SIGKILL, when the program ends. Read the log with bg logs, wait for a line or the exit with wait --bg, end it with bg stop.",
    args: <StartArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "id",
            "bg ID (bg-<n>) for bg logs/status/stop and wait --bg.",
        ),
        field("name", "The --name label, or null."),
        field(
            "pid",
            "PID of the supervisor, which leads the process group.",
        ),
        field("log", "Absolute path of the combined stdout/stderr log."),
    ],
    error_codes: &[code::ARGUMENT_INVALID, code::UNAVAILABLE, code::IO],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects::SIDE,
    run: handler!(StartArgs, start),
};

pub fn start(ctx: &Ctx, a: &StartArgs) -> Result<Output, CmdError> {
    super::run::refuse_option_as_program(ctx, &a.argv)?;
    if let Some(n) = &a.name
        && (n.is_empty() || n.chars().count() > 64)
    {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            "--name is 1 to 64 characters.",
        ));
    }
    let Some(prog) = a.argv.first() else {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            "bg start needs a program.",
        ));
    };
    if !findable(prog) {
        return Err(not_started(prog, StartError::NotFound));
    }
    let dir = bg_dir(ctx)?;
    dir.create().map_err(|e| io("bg", &e))?;
    let next = all_jobs(ctx)?
        .iter()
        .filter_map(|j| j.meta.id.strip_prefix("bg-")?.parse::<u64>().ok())
        .max()
        .unwrap_or(0);
    // Two starts at once: the directory's creation decides who has which number.
    let (id, jdir) = (next + 1..next + 1000)
        .find_map(|n| {
            let id = format!("bg-{n}");
            dir.create_sub(&id).ok().map(|d| (id, d))
        })
        .ok_or_else(|| CmdError::internal("no free bg id"))?;
    let log_path = jdir.path().join("log");
    // The log exists (empty) before the call answers; the supervisor appends.
    drop(jdir.append("log").map_err(|e| io("log", &e))?);
    let tag = proctree::new_tag();
    let mut cmd = supervisor::command(jdir.path(), a.log_cap, &a.argv)
        .map_err(|e| not_started("aitools", StartError::Other(e)))?;
    cmd.current_dir(&ctx.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .env(proctree::TAG_VAR, &tag)
        .process_group(0);
    // Kept in the supervised set for good: never taken for an orphan of ours.
    let child =
        subreaper::spawn(&mut cmd).map_err(|e| not_started("aitools", StartError::Other(e)))?;
    let (secs, _) = crate::protocol::time::now();
    let meta = Meta {
        id: id.clone(),
        name: a.name.clone(),
        pid: child.id(),
        argv: a.argv.clone(),
        started: crate::protocol::time::iso8601(secs),
        start: proctree::start_time(child.id()),
        tag: Some(tag),
    };
    let text = serde_json::to_vec(&meta).map_err(|e| CmdError::internal(e.to_string()))?;
    jdir.replace("meta.json", &text, RECORD)
        .map_err(|e| io("meta.json", &e))?;
    let mut o = Json::obj();
    o.push("id", Json::str(&id));
    o.push("name", a.name.clone().map(Json::Str).unwrap_or(Json::Null));
    o.push("pid", Json::UInt(u64::from(meta.pid)));
    o.push("log", Json::str(log_path.to_string_lossy()));
    Ok(Output::from_json(o, false))
}

// ---- bg logs ----

#[derive(Args, Debug)]
pub struct LogsArgs {
    /// bg ID.
    pub id: String,
    /// Lines returned.
    #[arg(long, value_name = "N", default_value = "100", value_parser = values::parse_count)]
    pub tail: u64,
    /// Byte offset to read from, usually a previous next_offset.
    #[arg(long, value_name = "N", value_parser = values::parse_count)]
    pub from: Option<u64>,
    /// Only lines matching this regex (after masking).
    #[arg(long, value_name = "RE")]
    pub grep: Option<String>,
    /// Keep ANSI escapes and carriage-return redraws.
    #[arg(long)]
    pub no_strip_ansi: bool,
}

pub const LOGS: CommandSpec = CommandSpec {
    name: "bg logs",
    summary: "A bg log's last lines, or lines from a byte offset.",
    description: "Without --from, the last --tail lines. With --from, up to --tail lines starting at that byte offset; next_offset continues exactly after the last line returned (a line still being written is left for the next call). At most 4 MiB of log is read per call. Lines are cleaned and masked as run's are.",
    args: <LogsArgs as clap::Args>::augment_args,
    output_fields: &[
        field("id", "bg ID."),
        field("running", "Whether the process is still running."),
        field("lines", "Log lines."),
        field(
            "truncated",
            "True when lines were left out (status partial, exit 3; next_commands reads them).",
        ),
        field(
            "log_cut",
            "{cap,dropped_bytes} when the log reached bg start's --log-cap: what came after was dropped (status partial, exit 3).",
        ),
        field("next_offset", "Byte offset for the next --from."),
        field("next_commands", "The call reading what was left out."),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::SYNTAX_ERROR,
        code::NOT_FOUND,
        code::UNAVAILABLE,
        code::IO,
    ],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(LogsArgs, logs),
};

/// Complete lines of `path` from `from` (at most `MAX_LOG_WINDOW` bytes): each
/// line's raw bytes and the offset just past it.
pub fn lines_from(mut f: File, from: u64) -> std::io::Result<(Vec<(Vec<u8>, u64)>, u64)> {
    let size = f.metadata()?.len();
    let from = from.min(size);
    f.seek(SeekFrom::Start(from))?;
    let mut buf = Vec::new();
    f.take(MAX_LOG_WINDOW).read_to_end(&mut buf)?;
    let mut out = Vec::new();
    let mut pos = 0usize;
    while let Some(i) = memchr::memchr(b'\n', &buf[pos..]) {
        out.push((buf[pos..pos + i].to_vec(), from + (pos + i + 1) as u64));
        pos += i + 1;
    }
    Ok((out, size))
}

/// One log line cleaned and masked by `mask` (its state carried from the lines
/// before, so a line of a YAML block scalar or a private key is masked alone), and
/// how many secrets it masked: counted only if the line is shown.
fn clean_one(raw: &[u8], strip: bool, mask: &mut redact::LineMask) -> (String, usize) {
    let (text, _) = output::clean_line(raw, strip);
    let before = mask.count();
    let text = mask.line(&text).unwrap_or(text);
    (text, mask.count() - before)
}

pub fn logs(ctx: &Ctx, a: &LogsArgs) -> Result<Output, CmdError> {
    let j = job(ctx, &a.id)?;
    let grep = match &a.grep {
        Some(p) => Some(compile_grep(&ctx.argv, "--grep", p)?),
        None => None,
    };
    let strip = !a.no_strip_ansi;
    let tail = usize::try_from(a.tail).unwrap_or(usize::MAX);
    let size = j.dir.len("log").unwrap_or(0);
    let start = match a.from {
        Some(f) => f,
        None => size.saturating_sub(MAX_LOG_WINDOW),
    };
    let (raw, _) = j
        .dir
        .open("log")
        .and_then(|f| lines_from(f, start))
        .map_err(|e| io("log", &e))?;
    // Tail mode starting mid-file: the first piece is part of an earlier line.
    let skip_first = a.from.is_none() && start > 0;
    let mut mask = redact::LineMask::default();
    let mut next = Vec::new();
    let lines: Vec<String>;
    let next_offset;
    let left_out;
    if a.from.is_some() {
        let mut picked = Vec::new();
        let mut consumed = start;
        let mut cut = false;
        for (bytes, end) in &raw {
            let (text, n) = clean_one(bytes, strip, &mut mask);
            if grep.as_ref().is_none_or(|r| r.is_match(&text)) {
                if picked.len() == tail {
                    cut = true;
                    break;
                }
                redact::tally_shown(n);
                picked.push(text);
            }
            consumed = *end;
        }
        next_offset = consumed;
        // A full window that did not reach the end of the log leaves lines too.
        left_out = cut || (next_offset < size && start + MAX_LOG_WINDOW <= size);
        lines = picked;
    } else {
        let mut picked: Vec<(String, usize)> = Vec::new();
        for (i, (bytes, _)) in raw.iter().enumerate() {
            if i == 0 && skip_first {
                continue;
            }
            let (text, n) = clean_one(bytes, strip, &mut mask);
            if grep.as_ref().is_none_or(|r| r.is_match(&text)) {
                picked.push((text, n));
            }
        }
        next_offset = raw.last().map(|l| l.1).unwrap_or(start);
        left_out = skip_first || picked.len() > tail;
        let drop = picked.len().saturating_sub(tail);
        lines = picked
            .into_iter()
            .skip(drop)
            .map(|(text, n)| {
                redact::tally_shown(n);
                text
            })
            .collect();
    }
    if left_out {
        let words = shell::rerun(
            &ctx.argv,
            &["--from"],
            &[],
            &[
                "--from".into(),
                if a.from.is_some() { next_offset } else { 0 }.to_string(),
            ],
        );
        next.push(shell::aitools(&words));
    }
    let mut o = Json::obj();
    o.push("id", Json::str(&j.meta.id));
    o.push("running", Json::Bool(j.running()));
    o.push(
        "lines",
        Json::Arr(lines.into_iter().map(Json::Str).collect()),
    );
    o.push("truncated", Json::Bool(left_out));
    j.push_cut(&mut o);
    o.push("next_offset", Json::UInt(next_offset));
    o.push(
        "next_commands",
        Json::Arr(next.into_iter().map(Json::Str).collect()),
    );
    let cut = j.log_cut().is_some();
    Ok(Output::from_json(o, left_out || cut))
}

// ---- bg status ----

#[derive(Args, Debug)]
pub struct StatusArgs {
    /// Only this bg ID.
    pub id: Option<String>,
}

pub const STATUS: CommandSpec = CommandSpec {
    name: "bg status",
    summary: "The bg processes started in this workspace.",
    description: "Every bg process this workspace's state directory records (or the one named), oldest first, whether it still runs and how it ended.",
    args: <StatusArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "items",
            "[{id,name,pid,argv,running,exit_code,signal,started,log_cut?,not_killed?}]; started is UTC RFC 3339; log_cut {cap,dropped_bytes} when the log reached --log-cap; not_killed: pids the program left that outlived SIGKILL when it ended.",
        ),
        field("total", "Number of items."),
    ],
    error_codes: &[
        code::SYNTAX_ERROR,
        code::NOT_FOUND,
        code::UNAVAILABLE,
        code::IO,
    ],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(StatusArgs, status),
};

fn item(j: &Job) -> Json {
    let (code, sig) = j.exit().unwrap_or((None, None));
    let mut o = Json::obj();
    o.push("id", Json::str(&j.meta.id));
    o.push(
        "name",
        j.meta.name.clone().map(Json::Str).unwrap_or(Json::Null),
    );
    o.push("pid", Json::UInt(u64::from(j.meta.pid)));
    o.push(
        "argv",
        Json::Arr(j.meta.argv.iter().map(Json::str).collect()),
    );
    o.push("running", Json::Bool(j.running()));
    o.push(
        "exit_code",
        code.map(|c| Json::Int(i64::from(c))).unwrap_or(Json::Null),
    );
    o.push(
        "signal",
        sig.map(|s| Json::Int(i64::from(s))).unwrap_or(Json::Null),
    );
    o.push("started", Json::str(&j.meta.started));
    j.push_cut(&mut o);
    let left = j.not_killed();
    if !left.is_empty() {
        o.push(
            "not_killed",
            Json::Arr(left.into_iter().map(Json::UInt).collect()),
        );
    }
    o
}

pub fn status(ctx: &Ctx, a: &StatusArgs) -> Result<Output, CmdError> {
    let jobs = match &a.id {
        Some(id) => vec![job(ctx, id)?],
        None => all_jobs(ctx)?,
    };
    let mut o = Json::obj();
    o.push("items", Json::Arr(jobs.iter().map(item).collect()));
    o.push("total", Json::UInt(jobs.len() as u64));
    Ok(Output::from_json(o, false))
}

// ---- bg stop ----

#[derive(Args, Debug)]
pub struct StopArgs {
    /// bg ID.
    pub id: String,
    /// Time between SIGTERM and SIGKILL.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = values::parse_duration)]
    pub grace: Duration,
}

pub const STOP: CommandSpec = CommandSpec {
    name: "bg stop",
    summary: "Stop a bg process tree: TERM, then KILL after --grace.",
    description: "Sends SIGTERM to the whole tree: the process group (while its leader is the supervisor started, known by pid and start time), every process under it (what left the group with setsid, a double fork or env -i) and every process carrying the job's AITOOLS_JOB tag; SIGKILL when any outlives --grace, and records how it ended. A process that had already ended answers stopped:false with its status (what it left running is ended all the same). Pids that outlived SIGKILL are listed in not_killed.",
    args: <StopArgs as clap::Args>::augment_args,
    output_fields: &[
        field("id", "bg ID."),
        field("stopped", "False when the process had already ended."),
        field("exit_code", "Exit code, or null."),
        field(
            "signal",
            "Ending signal (15 or 9 when stopped here), or null.",
        ),
        field(
            "not_killed",
            "Pids of the job's processes that outlived SIGKILL (only when some did).",
        ),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::SYNTAX_ERROR,
        code::NOT_FOUND,
        code::UNAVAILABLE,
        code::IO,
    ],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects::SIDE,
    run: handler!(StopArgs, stop),
};

/// Whether anything of the job is alive: its group while the supervisor that
/// leads it is the one started, and every tagged process.
fn job_alive(j: &Job) -> bool {
    (j.leader_alive() && proc::group_alive(j.meta.pid)) || !j.tagged().is_empty()
}

fn wait_gone(j: &Job, until: Instant) -> bool {
    while Instant::now() < until {
        if !job_alive(j) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    !job_alive(j)
}

/// `sig` to the job's group (only while its leader is the supervisor started,
/// checked right before) and to every process carrying its tag.
fn signal_job(j: &Job, sig: i32) {
    if j.leader_alive() {
        // The group first, in one kill: a shell signalled after its foreground
        // child would see the child die and exit 143 itself, and the job would
        // read as exited rather than stopped by the signal.
        proc::signal_group(j.meta.pid, sig);
        // What the program left re-parents to the supervisor (a subreaper):
        // also what dropped the tag (`env -i`) and left the group (`setsid`).
        for p in subreaper::under(j.meta.pid) {
            proctree::signal(p, sig);
        }
    }
    if let Some(tag) = &j.meta.tag {
        proctree::signal_tagged(tag, sig);
    }
}

/// Ends what is alive of the job: SIGTERM, then after `grace` SIGKILL until no
/// tagged process is left; the signal that ended it and the pids that outlived
/// SIGKILL.
fn end_tree(j: &Job, grace: Duration) -> (i32, Vec<u32>) {
    signal_job(j, libc::SIGTERM);
    if wait_gone(j, Instant::now() + grace) {
        return (libc::SIGTERM, Vec::new());
    }
    signal_job(j, libc::SIGKILL);
    let left = match &j.meta.tag {
        Some(tag) => proctree::kill_tagged(tag, Duration::from_secs(2)),
        None => Vec::new(),
    };
    wait_gone(j, Instant::now() + Duration::from_millis(500));
    (libc::SIGKILL, left)
}

pub fn stop(ctx: &Ctx, a: &StopArgs) -> Result<Output, CmdError> {
    let j = job(ctx, &a.id)?;
    let mut o = Json::obj();
    o.push("id", Json::str(&j.meta.id));
    let stopped = j.running();
    // What a program that ended left running (tagged) is ended too.
    let mut not_killed = Vec::new();
    let mut sig_sent = None;
    if stopped || !j.tagged().is_empty() {
        let (sig, left) = end_tree(&j, a.grace);
        not_killed = left;
        sig_sent = stopped.then_some(sig);
    }
    // The supervisor may have recorded a status on its way out; keep it if so.
    let (code, sig) = match (j.exit(), sig_sent) {
        (Some(e), _) => e,
        (None, Some(s)) => {
            let _ = j
                .dir
                .replace("exit", format!("signal {s}\n").as_bytes(), RECORD);
            (None, Some(s))
        }
        (None, None) => (None, None),
    };
    o.push("stopped", Json::Bool(stopped));
    o.push(
        "exit_code",
        code.map(|c| Json::Int(i64::from(c))).unwrap_or(Json::Null),
    );
    o.push(
        "signal",
        sig.map(|s| Json::Int(i64::from(s))).unwrap_or(Json::Null),
    );
    if !not_killed.is_empty() {
        let pids = not_killed.iter().map(|&p| Json::UInt(u64::from(p)));
        o.push("not_killed", Json::Arr(pids.collect()));
    }
    Ok(Output::from_json(o, false))
}
