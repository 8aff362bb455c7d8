//! `run -- PROGRAM ARGS`: runs a program without a shell to its end (or its
//! deadline) and reports its status and a trimmed, cleaned, masked view of each
//! stream; `--stdout-to` keeps stdout whole in a new workspace file instead,
//! written through the store (journaled, undoable), or in a `mktemp` entry
//! (`store::scratch`, outside the tree, not journaled).

use super::capture::{Capture, Shape};
use super::output::Window;
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell, values};
use crate::store::write::{self, Change, WriteRequest};
use crate::store::{scratch, state_dir};
use crate::workspace::Ctx;
use crate::workspace::boundary::Final;
use crate::workspace::process::{self, Finished, Limits, StartError, Stream};
use clap::Args;
use regex::Regex;
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Args, Debug)]
pub struct RunArgs {
    /// Program and arguments (after --).
    #[arg(required = true, num_args = 1.., trailing_var_arg = true, allow_hyphen_values = true, value_name = "ARGV")]
    pub argv: Vec<String>,
    /// SIGTERM to the process group when exceeded, SIGKILL 1s later; timed_out is then true.
    #[arg(long, value_name = "DURATION", default_value = "120s", value_parser = values::parse_duration)]
    pub timeout: Duration,
    /// Leading lines kept per stream.
    #[arg(long, value_name = "N", default_value = "5", value_parser = values::parse_count)]
    pub head: u64,
    /// Trailing lines kept per stream.
    #[arg(long, value_name = "N", default_value = "20", value_parser = values::parse_count)]
    pub tail: u64,
    /// Report every line of the whole output matching this regex (after masking) as matches[{n,text}].
    #[arg(long, value_name = "RE")]
    pub grep: Option<String>,
    /// Matches reported per stream; more makes the result partial.
    #[arg(long, value_name = "N", default_value = "50", value_parser = values::parse_count)]
    pub grep_limit: u64,
    /// Keep ANSI escapes and carriage-return redraws.
    #[arg(long)]
    pub no_strip_ansi: bool,
    /// Write stdout unmodified to this new workspace file (never overwrites; journaled, undoable), or to a mktemp path (not journaled, op_id null); stdout then reports {path,bytes,op_id}.
    #[arg(long, value_name = "PATH")]
    pub stdout_to: Option<String>,
    /// Check the call (--grep, a new --stdout-to file) and run nothing: answers dry_run true.
    #[arg(long)]
    pub dry_run: bool,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "run",
    summary: "Run a program, no shell: status, trimmed output.",
    description: "Runs argv directly (no shell: pipes, globs and $VARS are not expanded; run `sh -c '...'` for that), stdin closed, in its own process group, in the working directory. aitools exits 0 whenever the program started, also when it failed: a failed program's answer (a non-zero exit, a signal, a timeout) begins with failed {reason, lines}, the reason (exit 1, signal 9, timed out) and the first and last lines of each stream that show the failure (an error, an assertion, a traceback, a panic and its message, a failed test; not a backtrace frame), also when the window cut them; exit_code (and signal, timed_out when they happened) follow. Each stream is cleaned (ANSI escapes removed, a carriage-return redraw keeps its last state, unless --no-strip-ansi), masked (secrets become [REDACTED_SECRET] before --grep sees them) and cut to --head and --tail lines with total_lines (a default window also stops at 4 KiB, keeping one line at least; an explicit --head or --tail lifts that: the way to see more); a line over 4096 characters is cut (cut_lines). Output is read as it comes into bounded memory (the windows and counters, whatever the program prints). When the program ends, what it left running is killed: its process group, every process carrying its AITOOLS_JOB tag and every orphan it left (its aitools reaper is their subreaper: also past setsid, a double fork and env -i; it ends the tree also when aitools itself is killed); any that outlived SIGKILL are listed in not_killed.",
    args: <RunArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "failed",
            "Present only when the program failed: {reason, lines?}; reason is \"exit N\", \"signal N\" or \"timed out\", lines the first and last (4 each per stream) that show the failure.",
        ),
        field(
            "exit_code",
            "The program's exit code, or null when a signal ended it.",
        ),
        field("signal", "The signal that ended it; absent when none did."),
        field(
            "timed_out",
            "True when --timeout ended it; absent otherwise.",
        ),
        field("duration_ms", "Wall time from start to exit."),
        field(
            "stdout",
            "{head?,tail?,total_lines,truncated?,matches?,total_matches?,cut_lines?,log_cut?}; head and tail never overlap and an empty one is left out (a stream that printed nothing is {total_lines:0}); truncated only when true; total_matches only when --grep-limit left matches out. A truncated stream's every line (cleaned, masked) is kept in a private 0600 file of the scratch area (gc removes it after a day), up to 64 MiB (log_cut true past that); next_commands reads the lines the windows left out from it, without running the program again. With --stdout-to, {path,bytes,cut?,total_bytes?,op_id}: past 64 MiB the file is cut, cut is true, total_bytes says what the program wrote and the status is partial (exit 3).",
        ),
        field("stderr", "Same shape as stdout (never written to a file)."),
        field(
            "not_killed",
            "PIDs of processes the program left that outlived SIGKILL (omitted when none).",
        ),
        field(
            "next_commands",
            "A truncated stream: the read of its left-out lines from its log. With more --grep matches than --grep-limit: the call with a larger limit (status partial, exit 3).",
        ),
        field(
            "dry_run",
            "--dry-run: true; the call was checked and nothing ran.",
        ),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::SYNTAX_ERROR,
        code::OUTSIDE_WORKSPACE,
        code::EXISTS,
        code::UNAVAILABLE,
        code::IO,
    ],
    writes: false,
    tx: false,
    workspace: true,
    // `--stdout-to` writes a new workspace file (journaled, undoable).
    effects: Effects {
        journaled: true,
        ..Effects::SIDE
    },
    run: handler!(RunArgs, run),
};

/// Bytes kept per stream.
const CAP: usize = 64 * 1024 * 1024;

/// Bytes kept per default window: 20 lines of a minified bundle are not an
/// answer an agent can read. An explicit `--head` or `--tail` lifts it.
const DEFAULT_WINDOW_BYTES: usize = 4 * 1024;

/// Whether the caller gave `--head` or `--tail` (aitools' own words, before the program's).
fn window_asked(ctx: &Ctx, program_words: usize) -> bool {
    let own = &ctx.argv[..ctx.argv.len().saturating_sub(program_words)];
    own.iter().any(|w| {
        ["--head", "--tail"]
            .iter()
            .any(|f| w == f || w.strip_prefix(f).is_some_and(|r| r.starts_with('=')))
    })
}

/// The call's argv with a `--` before the program, so an option added to it for
/// a repair or a continuation stays aitools' own instead of joining the program's.
pub fn argv_with_dashes(ctx: &Ctx, program_words: usize) -> Vec<String> {
    let mut argv = ctx.argv.clone();
    if !argv.iter().any(|w| w == "--") {
        let k = argv.len().saturating_sub(program_words);
        argv.insert(k, "--".into());
    }
    argv
}

/// A first program word that looks like an option and came without `--` is a
/// mistyped aitools option, not a program named `--x`.
pub fn refuse_option_as_program(ctx: &Ctx, argv: &[String]) -> Result<(), CmdError> {
    match argv.first() {
        Some(w) if w.starts_with('-') && !ctx.argv.iter().any(|a| a == "--") => {
            Err(CmdError::invalid_argument(
                &ctx.command,
                format!(
                    "{} does not accept {w}; a program and its arguments go after --.",
                    ctx.command
                ),
            ))
        }
        _ => Ok(()),
    }
}

pub fn compile_grep(argv: &[String], flag: &str, p: &str) -> Result<Regex, CmdError> {
    Regex::new(p).map_err(|e| {
        CmdError::bad_pattern(
            flag,
            p,
            &e,
            Repair::new(
                "literal",
                "Match the text literally (escaped).",
                shell::aitools(shell::rerun(
                    argv,
                    &[flag],
                    &[],
                    &[flag.to_string(), regex::escape(p)],
                )),
            ),
        )
    })
}

/// The error for a program that could not be started.
pub fn not_started(prog: &str, err: StartError) -> CmdError {
    let (what, hint) = match err {
        StartError::NotFound => ("was not found (not on PATH, or no such file)", true),
        StartError::Denied => ("is not executable", false),
        StartError::Other(_) => ("could not be started", false),
    };
    let e = CmdError::new(
        code::UNAVAILABLE,
        format!("{prog} {what}."),
        Repair::new(
            "locate",
            "See whether and where the shell finds it.",
            shell::aitools([
                "run",
                "--",
                "sh",
                "-c",
                &format!("command -v {}", shell::quote(prog)),
            ]),
        ),
    );
    if hint {
        e.with_repair(Repair::new(
            "shell",
            "A shell builtin, alias or pipeline needs a shell: run it through sh -c.",
            shell::aitools(["run", "--", "sh", "-c", prog]),
        ))
    } else {
        e
    }
}

/// What the program did, each stream read into what the answer shows.
struct Ran {
    done: Finished<Json, Window>,
    redactions: usize,
    failures: Vec<String>,
    partial: bool,
    /// More `--grep` matches than `--grep-limit`.
    more_matches: bool,
    /// Reads of the lines the windows cut, from the streams' logs.
    reads: Vec<String>,
}

/// Opens a log for `stream` in the scratch area when its window first drops a
/// line (never for a stream that fits).
fn log_opener(ctx: &Ctx, stream: &'static str) -> super::capture::Opener {
    let (root, kept) = (ctx.root.clone(), ctx.session.kept.clone());
    Box::new(move || {
        let state = state_dir::ensure(&root, kept.as_deref()).ok()?;
        let (path, file) = scratch::spill(&state, stream).ok()?;
        let out: Box<dyn std::io::Write + Send> = Box::new(std::io::BufWriter::new(file));
        Some((path.to_string_lossy().to_string(), out))
    })
}

/// Runs the program with stdout read into a window.
fn run_windowed(
    ctx: &Ctx,
    cmd: std::process::Command,
    limits: Limits,
    shape: &Shape,
) -> Result<Ran, StartError> {
    let done = process::run_with(
        cmd,
        limits,
        Capture::with_log(shape.clone(), log_opener(ctx, "stdout")),
        Capture::with_log(shape.clone(), log_opener(ctx, "stderr")),
    )?;
    let (out, out_masked, mut failures) = done.stdout.finish();
    let (err, err_masked, err_failures) = done.stderr.finish();
    let reads = [&out, &err].into_iter().filter_map(log_read).collect();
    failures.extend(err_failures);
    let partial = [&out, &err]
        .iter()
        .any(|w| w.total_matches.unwrap_or(0) > w.matches.as_ref().map_or(0, |m| m.len() as u64));
    Ok(Ran {
        done: Finished {
            stdout: Json::from_serialize(&out),
            stderr: err,
            exit_code: done.exit_code,
            signal: done.signal,
            timed_out: done.timed_out,
            duration: done.duration,
            not_killed: done.not_killed,
        },
        redactions: out_masked + err_masked,
        failures,
        partial,
        more_matches: partial,
        reads,
    })
}

/// The read of the lines a stream's windows left out, from its log.
fn log_read(w: &Window) -> Option<String> {
    let log = w.log.as_deref()?;
    let first = w.head.len() as u64 + 1;
    let last = w.total_lines.checked_sub(w.tail.len() as u64)?;
    (last >= first).then(|| {
        let range = format!("{first}:{last}");
        shell::aitools(["read", log, "--range", &range])
    })
}

/// Runs the program with stdout kept whole (up to [`CAP`]) and written to `abs`;
/// a cut file says so (`cut`, status partial).
fn run_to_file(
    ctx: &Ctx,
    a: &RunArgs,
    (abs, in_scratch): (&Path, bool),
    cmd: std::process::Command,
    limits: Limits,
    shape: &Shape,
) -> Result<Ran, CmdError> {
    let done = process::run_with(
        cmd,
        limits,
        Stream::with_cap(CAP),
        Capture::with_log(shape.clone(), log_opener(ctx, "stderr")),
    )
    .map_err(|e| not_started(&a.argv[0], e))?;
    let (err, redactions, failures) = done.stderr.finish();
    let reads = log_read(&err).into_iter().collect();
    let stream = done.stdout;
    let len = stream.bytes.len() as u64;
    let arg = a.stdout_to.clone().unwrap_or_default();
    let op_id = if in_scratch {
        scratch::write(abs, &stream.bytes)
            .map_err(|e| crate::store::io_fault(ctx, "the mktemp file", &e))?;
        None
    } else {
        let req = WriteRequest::new(ctx).max_diff_lines(Some(0));
        let committed = write::submit(ctx, &req, || {
            if ctx.files().exists(abs)? {
                return Err(exists_error(ctx, a.argv.len(), &arg));
            }
            Ok(vec![Change::Put {
                path: abs.to_path_buf(),
                bytes: stream.bytes.clone(),
                mode: None,
            }])
        })?;
        committed.op_id
    };
    let mut o = Json::obj();
    let shown = match in_scratch {
        true => abs.to_string_lossy().to_string(),
        false => ctx.display_path(abs),
    };
    o.push("path", Json::str(shown));
    o.push("bytes", Json::UInt(len));
    if stream.capped {
        o.push("cut", Json::Bool(true));
        o.push("total_bytes", Json::UInt(stream.total));
    }
    o.push(
        "op_id",
        op_id
            .map(|id| Json::Str(crate::protocol::compact::short_op_id(&id)))
            .unwrap_or(Json::Null),
    );
    let more_matches =
        err.total_matches.unwrap_or(0) > err.matches.as_ref().map_or(0, |m| m.len() as u64);
    Ok(Ran {
        done: Finished {
            stdout: o,
            stderr: err,
            exit_code: done.exit_code,
            signal: done.signal,
            timed_out: done.timed_out,
            duration: done.duration,
            not_killed: done.not_killed,
        },
        redactions,
        failures,
        partial: stream.capped || more_matches,
        more_matches,
        reads,
    })
}

/// Why the program failed, or `None` when it exited 0.
fn failure(d: &Finished<Json, Window>) -> Option<String> {
    if d.timed_out {
        return Some("timed out".into());
    }
    match (d.exit_code, d.signal) {
        (Some(0), _) => None,
        (Some(c), _) => Some(format!("exit {c}")),
        (None, Some(s)) => Some(format!("signal {s}")),
        (None, None) => Some("status unknown".into()),
    }
}

pub fn run(ctx: &Ctx, a: &RunArgs) -> Result<Output, CmdError> {
    refuse_option_as_program(ctx, &a.argv)?;
    let grep = match &a.grep {
        Some(p) => Some(compile_grep(
            &argv_with_dashes(ctx, a.argv.len()),
            "--grep",
            p,
        )?),
        None => None,
    };
    // Refuse a taken --stdout-to before the program runs, not after.
    let target = match &a.stdout_to {
        Some(p) => Some(stdout_target(ctx, a, p)?),
        None => None,
    };
    let Some((prog, rest)) = a.argv.split_first() else {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            "run needs a program: aitools run -- PROGRAM ARGS.",
        ));
    };
    if a.dry_run {
        let mut out = Json::obj();
        out.push("dry_run", Json::Bool(true));
        return Ok(Output::from_json(out, false));
    }
    let mut cmd = std::process::Command::new(prog);
    cmd.args(rest).current_dir(&ctx.cwd);
    let limits = Limits {
        timeout: a.timeout,
        grace: Duration::from_secs(1),
        cap: CAP,
        watched: true,
    };
    let shape = Shape {
        head: usize::try_from(a.head).unwrap_or(usize::MAX),
        tail: usize::try_from(a.tail).unwrap_or(usize::MAX),
        strip: !a.no_strip_ansi,
        grep: grep.map(|r| (r, usize::try_from(a.grep_limit).unwrap_or(usize::MAX))),
        window_bytes: (!window_asked(ctx, a.argv.len())).then_some(DEFAULT_WINDOW_BYTES),
    };
    let ran = match &target {
        Some((abs, scratch)) => run_to_file(ctx, a, (abs, *scratch), cmd, limits, &shape)?,
        None => run_windowed(ctx, cmd, limits, &shape).map_err(|e| not_started(prog, e))?,
    };
    Ok(answer(ctx, a, ran))
}

fn answer(ctx: &Ctx, a: &RunArgs, ran: Ran) -> Output {
    let d = ran.done;
    let mut out = Json::obj();
    if let Some(reason) = failure(&d) {
        let mut f = Json::obj();
        f.push("reason", Json::Str(reason));
        if !ran.failures.is_empty() {
            f.push(
                "lines",
                Json::Arr(ran.failures.into_iter().map(Json::Str).collect()),
            );
        }
        out.push("failed", f);
    }
    out.push(
        "exit_code",
        d.exit_code
            .map(|c| Json::Int(i64::from(c)))
            .unwrap_or(Json::Null),
    );
    // No signal, no timeout: said only when they happened.
    if let Some(s) = d.signal {
        out.push("signal", Json::Int(i64::from(s)));
    }
    if d.timed_out {
        out.push("timed_out", Json::Bool(true));
    }
    out.push(
        "duration_ms",
        Json::UInt(u64::try_from(d.duration.as_millis()).unwrap_or(u64::MAX)),
    );
    out.push("stdout", d.stdout);
    out.push("stderr", Json::from_serialize(&d.stderr));
    if !d.not_killed.is_empty() {
        out.push(
            "not_killed",
            Json::Arr(
                d.not_killed
                    .iter()
                    .map(|&p| Json::UInt(u64::from(p)))
                    .collect(),
            ),
        );
    }
    let mut next: Vec<Json> = ran.reads.into_iter().map(Json::Str).collect();
    if ran.more_matches {
        let words = shell::rerun(
            &argv_with_dashes(ctx, a.argv.len()),
            &["--grep-limit"],
            &[],
            &[
                "--grep-limit".into(),
                (a.grep_limit.saturating_mul(4).max(1)).to_string(),
            ],
        );
        next.push(Json::str(shell::aitools(&words)));
    }
    if !next.is_empty() {
        out.push("next_commands", Json::Arr(next));
    }
    Output::from_json(out, ran.partial).premasked(ran.redactions)
}

/// Where `--stdout-to` writes, and whether it is in the `mktemp` area (written
/// there directly, an existing scratch file replaced) rather than the workspace
/// (a new file only, refused before the program runs when taken).
fn stdout_target(ctx: &Ctx, a: &RunArgs, p: &str) -> Result<(PathBuf, bool), CmdError> {
    let abs = ctx.path_arg(p)?;
    if scratch::contains(&state_dir::for_root(&ctx.root), &abs) {
        return Ok((abs, true));
    }
    let abs = ctx.write_path_arg(p, Final::Follow)?;
    if ctx.files().exists(&abs)? {
        return Err(exists_error(ctx, a.argv.len(), p));
    }
    Ok((abs, false))
}

fn exists_error(ctx: &Ctx, program_words: usize, arg: &str) -> CmdError {
    let fresh = format!("{arg}.1");
    let words = shell::rerun(
        &argv_with_dashes(ctx, program_words),
        &["--stdout-to"],
        &[],
        &["--stdout-to".into(), fresh],
    );
    CmdError::new(
        code::EXISTS,
        format!("{arg} already exists; --stdout-to writes only a new file."),
        Repair::new(
            "rename",
            "Write to a new name (or delete the old file first with aitools delete).",
            shell::aitools(&words),
        ),
    )
}
