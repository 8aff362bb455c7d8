//! `run -- PROGRAM ARGS`: runs a program without a shell to its end (or its
//! deadline) and reports its status and a trimmed, cleaned, masked view of each
//! stream; `--stdout-to` keeps stdout whole in a new workspace file instead,
//! written through the store (journaled, undoable).

use super::output::{self, Window};
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell, values};
use crate::store::write::{self, Change, WriteRequest};
use crate::workspace::Ctx;
use crate::workspace::boundary::Final;
use crate::workspace::process::{self, Limits, StartError};
use clap::Args;
use regex::Regex;
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
    #[arg(long, value_name = "N", default_value = "50", value_parser = values::parse_count)]
    pub head: u64,
    /// Trailing lines kept per stream.
    #[arg(long, value_name = "N", default_value = "150", value_parser = values::parse_count)]
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
    /// Write stdout unmodified to this new workspace file (never overwrites; journaled, undoable); stdout then reports {path,bytes,op_id}.
    #[arg(long, value_name = "PATH")]
    pub stdout_to: Option<String>,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "run",
    summary: "Run a program, no shell: status, trimmed output.",
    description: "Runs argv directly (no shell: pipes, globs and $VARS are not expanded; run `sh -c '...'` for that), stdin closed, in its own process group, in the working directory. The exit code is 0 whenever the program started, also on a timeout or a failure: the program's own status is exit_code/signal/timed_out. Each stream is cleaned (ANSI escapes removed, a carriage-return redraw keeps its last state, unless --no-strip-ansi), masked (secrets become [REDACTED_SECRET] before --grep sees them) and cut to --head and --tail lines with total_lines; a line over 4096 characters is cut (cut_lines). At most 64 MiB per stream is captured (capture_capped). When the program ends, what it left running in its process group is killed.",
    args: <RunArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "exit_code",
            "The program's exit code, or null when a signal ended it.",
        ),
        field("signal", "The signal that ended it, or null."),
        field("timed_out", "True when --timeout ended it."),
        field("duration_ms", "Wall time from start to exit."),
        field(
            "stdout",
            "{head,tail,total_lines,truncated,matches?,total_matches?,cut_lines?}; head and tail never overlap. With --stdout-to, {path,bytes,op_id}.",
        ),
        field("stderr", "Same shape as stdout (never written to a file)."),
        field(
            "capture_capped",
            "Present and true when a stream passed 64 MiB; the rest was not kept.",
        ),
        field(
            "next_commands",
            "With more --grep matches than --grep-limit: the call with a larger limit (status partial, exit 3).",
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
    effects: Effects::SIDE,
    run: handler!(RunArgs, run),
};

/// Bytes kept per stream.
const CAP: usize = 64 * 1024 * 1024;

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
        CmdError::new(
            code::SYNTAX_ERROR,
            format!("{flag} {p:?} is not a valid regex: {e}"),
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
        Some(p) => {
            let abs = ctx.write_path_arg(p, Final::Follow)?;
            if ctx.files().exists(&abs)? {
                return Err(exists_error(ctx, a.argv.len(), p));
            }
            Some(abs)
        }
        None => None,
    };
    let Some((prog, rest)) = a.argv.split_first() else {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            "run needs a program: aitools run -- PROGRAM ARGS.",
        ));
    };
    let mut cmd = std::process::Command::new(prog);
    cmd.args(rest).current_dir(&ctx.cwd);
    let done = process::run(
        cmd,
        Limits {
            timeout: a.timeout,
            grace: Duration::from_secs(1),
            cap: CAP,
        },
    )
    .map_err(|e| not_started(prog, e))?;
    let strip = !a.no_strip_ansi;
    let head = usize::try_from(a.head).unwrap_or(usize::MAX);
    let tail = usize::try_from(a.tail).unwrap_or(usize::MAX);
    let limit = usize::try_from(a.grep_limit).unwrap_or(usize::MAX);
    let view_of = |bytes: &[u8]| -> Window {
        let (lines, cut) = output::clean_lines(bytes, strip);
        let mut w = output::window(lines, head, tail, grep.as_ref().map(|r| (r, limit)));
        w.cut_lines = cut;
        w
    };
    let capped = done.stdout.capped || done.stderr.capped;
    let err_view = view_of(&done.stderr.bytes);
    let mut partial = err_view.total_matches.unwrap_or(0) > a.grep_limit;
    let stdout_json = match &target {
        Some(abs) => {
            let bytes = done.stdout.bytes;
            let len = bytes.len() as u64;
            let arg = a.stdout_to.clone().unwrap_or_default();
            let committed =
                write::submit(ctx, &WriteRequest::new(ctx).max_diff_lines(Some(0)), || {
                    if ctx.files().exists(abs)? {
                        return Err(exists_error(ctx, a.argv.len(), &arg));
                    }
                    Ok(vec![Change::Put {
                        path: abs.clone(),
                        bytes,
                        mode: None,
                    }])
                })?;
            let mut o = Json::obj();
            o.push("path", Json::str(ctx.display_path(abs)));
            o.push("bytes", Json::UInt(len));
            o.push(
                "op_id",
                committed
                    .op_id
                    .map(|id| Json::Str(crate::protocol::compact::short_op_id(&id)))
                    .unwrap_or(Json::Null),
            );
            o
        }
        None => {
            let w = view_of(&done.stdout.bytes);
            partial |= w.total_matches.unwrap_or(0) > a.grep_limit;
            Json::from_serialize(&w)
        }
    };
    let mut out = Json::obj();
    out.push(
        "exit_code",
        done.exit_code
            .map(|c| Json::Int(i64::from(c)))
            .unwrap_or(Json::Null),
    );
    out.push(
        "signal",
        done.signal
            .map(|s| Json::Int(i64::from(s)))
            .unwrap_or(Json::Null),
    );
    out.push("timed_out", Json::Bool(done.timed_out));
    out.push(
        "duration_ms",
        Json::UInt(u64::try_from(done.duration.as_millis()).unwrap_or(u64::MAX)),
    );
    out.push("stdout", stdout_json);
    out.push("stderr", Json::from_serialize(&err_view));
    if capped {
        out.push("capture_capped", Json::Bool(true));
    }
    if partial {
        let words = shell::rerun(
            &argv_with_dashes(ctx, a.argv.len()),
            &["--grep-limit"],
            &[],
            &[
                "--grep-limit".into(),
                (a.grep_limit.saturating_mul(4).max(1)).to_string(),
            ],
        );
        out.push(
            "next_commands",
            Json::Arr(vec![Json::str(shell::aitools(&words))]),
        );
    }
    Ok(Output::from_json(out, partial))
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
