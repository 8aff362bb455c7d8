//! The dispatcher: the only code that reads argv, writes to stdout or stderr, or
//! picks an exit code. argv → parse → recover → run (`run`, a typed `Invoked`) →
//! render (`render`, one envelope), on every path: clap errors, `--help`,
//! `--version`, panics and a closed stdout included. `run` is also the invoker
//! that `batch` and `tx rebase` get in `Ctx` (`INVOKER`).

use crate::cli;
use crate::discovery;
use crate::protocol::args::GlobalArgs;
use crate::protocol::argv as protocol_argv;
use crate::protocol::envelope::{self, Rendered};
use crate::protocol::host::Host;
use crate::protocol::invoke::Invoked;
use crate::protocol::kept::Kept;
use crate::protocol::registry::CommandSpec;
use crate::protocol::{CmdError, Json, Repair, code, values};
use crate::registry;
use crate::store::{recovery, session::Session};
use crate::workspace::Ctx;
use crate::workspace::root::Invoker;
use clap::FromArgMatches;
use std::ffi::OsString;
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;

pub use crate::protocol::host::VERSION;

/// What the root hands the code that reads the command list back or runs whole
/// calls (`schema`, `--help`, `capabilities`, `doctor`, the machine modes).
pub const HOST: Host = Host {
    commands: registry::LIST,
    invoke,
    invoke_at,
    invoke_with,
};

/// The command that runs recovery as its own work (and may set a record aside).
const RECOVER: &str = "recover";

/// The process entry point (`main.rs` calls only this): runs the call, prints its
/// envelope (or stream), and gives the exit status. Every byte written is flushed
/// before it returns: `main.rs` has no Rust runtime epilogue to flush for it.
pub fn status() -> u8 {
    // Panic text must never reach the agent: the envelope below reports it.
    std::panic::set_hook(Box::new(|_| {}));
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    // The servers, a bg job's supervisor (`bg start`) and a run's own subreaper (a run
    // beside another): the last two are started by aitools, never typed.
    let served = (serve_console(&args).or_else(|| serve_mcp(&args)))
        .or_else(|| crate::workspace::supervisor::serve(&args))
        .or_else(|| crate::workspace::reaper::serve(&args));
    if let Some(code) = served {
        return code;
    }
    // `--output jsonl` (AOI-CLI): the same invocation, framed as an event stream.
    if let Some(req) = crate::aoi::request(HOST, &args) {
        let (code, lost) = crate::aoi::main(HOST, req, Box::new(std::io::stdout()));
        let _ = std::io::stdout().lock().flush();
        return match lost {
            // A closed pipe ends quietly, as in the envelope mode.
            Some(l) if l.error.kind() != std::io::ErrorKind::BrokenPipe => {
                let undelivered = Undelivered::of_answer(l.answer.as_ref(), &l.command, &args);
                let e = undelivered.error(&l.error, l.code.map(i32::from));
                say_lost(&undelivered.command, &e);
                crate::aoi::lost_exit()
            }
            _ => code,
        };
    }
    let invoked = match catch_unwind(AssertUnwindSafe(|| run(&args))) {
        Ok(r) => r,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            let argv = lossy(&args);
            let words = cli::command_words(&argv);
            let command = if words.is_empty() {
                "aitools".to_string()
            } else {
                words.join(" ")
            };
            Invoked::new(
                command,
                Err(CmdError::internal(format!(
                    "aitools failed unexpectedly: {}.",
                    what.trim_end_matches('.')
                ))),
            )
        }
    };
    let undelivered = Undelivered::of(&invoked, &args);
    emit(render(invoked), &undelivered)
}

/// `aitools mcp`: the one call whose stdout is a protocol stream, not an
/// envelope. Only a call that parses runs the server; any other (a typo, `--help`)
/// gets its envelope from `invoke` like every command.
fn serve_mcp(args: &[OsString]) -> Option<u8> {
    let argv = lossy(args);
    let words = cli::command_words(&argv);
    if words != ["mcp"] || protocol_argv::has_option(registry::LIST, &argv, HELP) {
        return None;
    }
    let full = std::iter::once(OsString::from("aitools")).chain(args.iter().cloned());
    let matches = cli::build_for(&words).try_get_matches_from(full).ok()?;
    let leaf = matches.subcommand().map(|(_, leaf)| leaf);
    let root = leaf
        .and_then(|leaf| GlobalArgs::from_arg_matches(leaf).ok())
        .and_then(|g| g.root);
    let tools = leaf
        .and_then(|leaf| crate::mcp::McpArgs::from_arg_matches(leaf).ok())
        .map(|a| a.tools)
        .unwrap_or_default();
    let mut server = crate::mcp::Server::new(HOST, root.as_deref(), tools);
    let mut input = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    // A closed stdout or stdin ends the session: the host is gone. A stdout that
    // refuses a reply otherwise (ENOSPC, EIO) ends it too, said on stderr with
    // what the lost reply's call did (the op a write landed as).
    match server.serve(&mut input, &mut out) {
        Err(crate::mcp::Stopped::Output { error, reply })
            if error.kind() != std::io::ErrorKind::BrokenPipe =>
        {
            let answer = reply.and_then(|v| Json::parse(&v.to_string()).ok());
            let undelivered = Undelivered::of_answer(answer.as_ref(), "mcp", args);
            let e = undelivered.error(&error, None);
            say_lost(&undelivered.command, &e);
            Some(1)
        }
        _ => {
            let _ = out.flush();
            Some(0)
        }
    }
}

/// `aitools console` and `aitools mcp --http`: the start line (one envelope,
/// printed here like every answer), then the server until SIGINT or SIGTERM
/// (exit 0). A call that does not parse gets its envelope from `invoke`.
fn serve_console(args: &[OsString]) -> Option<u8> {
    use crate::console::{ConsoleArgs, Mode};
    let argv = lossy(args);
    let words = cli::command_words(&argv);
    let console = words == ["console"];
    if !(console || words == ["mcp"]) || protocol_argv::has_option(registry::LIST, &argv, HELP) {
        return None;
    }
    let full = std::iter::once(OsString::from("aitools")).chain(args.iter().cloned());
    let matches = cli::build_for(&words).try_get_matches_from(full).ok()?;
    let leaf = matches.subcommand().map(|(_, leaf)| leaf)?;
    let (port, mode) = if console {
        (
            ConsoleArgs::from_arg_matches(leaf).ok()?.port,
            Mode::Console,
        )
    } else {
        let a = crate::mcp::McpArgs::from_arg_matches(leaf).ok()?;
        if !a.http {
            return None;
        }
        (a.port, Mode::McpOnly)
    };
    let root_arg = GlobalArgs::from_arg_matches(leaf).ok().and_then(|g| g.root);
    let command = words.join(" ");
    let bound = server_root(root_arg.as_deref())
        .and_then(|root| crate::console::bind(HOST, root, port, mode));
    let undelivered = Undelivered::of_answer(None, &command, args);
    match bound {
        Err(e) => Some(emit(render(Invoked::new(command, Err(e))), &undelivered)),
        Ok(server) => {
            // The token is the console's own fresh credential, which the person
            // needs: the line skips the envelope's mask (its one user value,
            // the root, was masked by `started`).
            let started = envelope::render_constant(&command, server.started());
            let code = emit(started, &undelivered);
            if code != 0 {
                return Some(code);
            }
            server.serve();
            Some(0)
        }
    }
}

/// The workspace a server serves: `--root`, else the enclosing git work tree.
fn server_root(arg: Option<&str>) -> Result<std::path::PathBuf, CmdError> {
    let Some(arg) = arg else {
        let cwd = std::env::current_dir().map_err(|e| {
            CmdError::new(
                code::IO,
                format!(
                    "The working directory cannot be read ({}).",
                    crate::protocol::error::err_text(&e)
                ),
                Repair::new("root", "Name the workspace.", "aitools console --root ."),
            )
        })?;
        return Ok(crate::workspace::root::discover_root(&cwd));
    };
    std::fs::canonicalize(arg)
        .ok()
        .filter(|p| p.is_dir())
        .ok_or_else(|| {
            CmdError::new(
                code::ARGUMENT_INVALID,
                format!("--root {arg} is not an existing directory."),
                Repair::new(
                    "root",
                    "Serve the working directory's workspace.",
                    "aitools console --root .",
                ),
            )
        })
}

/// One `environment.output-lost` envelope on stderr (nothing is left to tell a
/// failed stderr write to).
fn say_lost(command: &str, e: &CmdError) {
    let lost = envelope::render_error(command, e);
    let mut err = std::io::stderr().lock();
    let _ = err
        .write_all(lost.text.as_bytes())
        .and_then(|_| err.flush());
}

fn emit(r: Rendered, undelivered: &Undelivered<'_>) -> u8 {
    if r.to_stderr {
        let mut err = std::io::stderr().lock();
        // Nothing is left to tell a failed stderr write to; the exit code says it.
        let _ = err.write_all(r.text.as_bytes()).and_then(|_| err.flush());
        return r.exit_code.clamp(0, 255) as u8;
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(r.text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => r.exit_code.clamp(0, 255) as u8,
        // A closed stdout (`aitools read x | head -c0`) ends quietly: nobody is listening.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => r.exit_code.clamp(0, 255) as u8,
        // A stdout that cannot take the answer (ENOSPC, EIO: `> /dev/full`): the
        // answer is lost, so stderr says so, with what the call did (the op a
        // write landed as), and the exit code is the catalog's for a lost answer.
        Err(e) => {
            let lost = envelope::render_error(
                &undelivered.command,
                &undelivered.error(&e, Some(r.exit_code)),
            );
            let mut err = std::io::stderr().lock();
            let _ = err
                .write_all(lost.text.as_bytes())
                .and_then(|_| err.flush());
            lost.exit_code.clamp(0, 255) as u8
        }
    }
}

/// What an answer that stdout could not take still has to tell: which call it
/// was, what its write left behind (the op it landed as, or the tx that staged
/// it), and whether the same call can simply run again.
struct Undelivered<'a> {
    command: String,
    op_id: Option<String>,
    tx: Option<String>,
    /// The write was staged in `tx` (it answered `tx_op`).
    staged: bool,
    /// The call's arguments (read only when the answer is lost).
    args: &'a [OsString],
}

impl<'a> Undelivered<'a> {
    /// What the answer says; a few lookups in its fields, nothing else, so a
    /// delivered answer costs nothing more.
    fn of(i: &Invoked, args: &'a [OsString]) -> Undelivered<'a> {
        let field = |k: &str| match &i.result {
            Ok(out) => out.fields.get(k).and_then(Json::as_str).map(str::to_string),
            Err(_) => None,
        };
        Undelivered {
            command: i.command.clone(),
            op_id: field("op_id"),
            tx: field("tx"),
            staged: matches!(&i.result, Ok(out) if out.fields.get("tx_op").is_some()),
            args,
        }
    }

    /// What an answer already rendered (the machine modes' envelope, when the
    /// command got as far as answering) says; else only the call's name.
    fn of_answer(answer: Option<&Json>, command: &str, args: &'a [OsString]) -> Undelivered<'a> {
        let ok = answer.filter(|a| a.get("status").and_then(Json::as_str) != Some("error"));
        let field = |k: &str| {
            ok.and_then(|a| a.get(k))
                .and_then(Json::as_str)
                .map(str::to_string)
        };
        Undelivered {
            command: answer
                .and_then(|a| a.get("command"))
                .and_then(Json::as_str)
                .unwrap_or(command)
                .to_string(),
            op_id: field("op_id"),
            tx: field("tx"),
            staged: ok.is_some_and(|a| a.get("tx_op").is_some()),
            args,
        }
    }

    /// The call again when it changes nothing (a read, or a dry run of anything).
    fn rerun(&self, argv: &[String]) -> Option<String> {
        let dry = argv
            .iter()
            .take_while(|a| *a != "--")
            .any(|a| a == "--dry-run");
        let read_only = dry || registry::find(&self.command).is_none_or(|s| s.read_only());
        read_only.then(|| crate::protocol::shell::aitools(argv))
    }

    /// `environment.output-lost`: the answer `r` could not be written to stdout.
    /// `exit_code`: what the call itself ended with, when it ran to its answer.
    fn error(&self, e: &std::io::Error, exit_code: Option<i32>) -> CmdError {
        let argv = lossy(self.args);
        // The call's global options (`--root`) go into every repair's command.
        let globals = crate::protocol::shell::global_options(&argv);
        let cmd = |words: &[&str]| {
            crate::protocol::shell::aitools(
                globals
                    .iter()
                    .map(String::as_str)
                    .chain(words.iter().copied()),
            )
        };
        let mut why = format!(
            "The answer could not be written to stdout ({})",
            crate::protocol::error::err_text(e)
        );
        if let Some(c) = exit_code {
            why.push_str(&format!("; the call itself ended with exit code {c}"));
        }
        if let Some(op) = &self.op_id {
            return CmdError::new(
                code::OUTPUT_LOST,
                format!("{why}, and its write landed as {op}."),
                Repair::new(
                    "diff",
                    "See what the write changed (the answer that was lost); do not run it again.",
                    cmd(&["diff", "--op", op]),
                ),
            )
            .with_repair(Repair::new(
                "undo",
                "Take the write back, if it was not wanted.",
                cmd(&["undo", op]),
            ));
        }
        if let Some(tx) = &self.tx {
            return CmdError::new(
                code::OUTPUT_LOST,
                if self.staged {
                    format!("{why}, and its write was staged in tx {tx}.")
                } else {
                    format!("{why}, and it acted on tx {tx}.")
                },
                Repair::new(
                    "status",
                    "See the tx's state and operations; do not run the call again.",
                    cmd(&["tx", "status", tx]),
                ),
            );
        }
        match self.rerun(&argv) {
            Some(again) => CmdError::new(
                code::OUTPUT_LOST,
                format!("{why}; it changed nothing."),
                Repair::new(
                    "rerun",
                    "Run it again with stdout on a file or pipe that can take the answer.",
                    again,
                ),
            ),
            None => CmdError::new(
                code::OUTPUT_LOST,
                format!("{why}; it journaled no write, but it may have acted otherwise."),
                Repair::new(
                    "history",
                    "See the journal's latest ops before running it again.",
                    cmd(&["history"]),
                ),
            ),
        }
    }
}

fn lossy(args: &[OsString]) -> Vec<String> {
    args.iter().map(|a| a.to_string_lossy().into()).collect()
}

/// Runs one invocation to its envelope (the OUI session runs each call this way).
pub fn invoke(args: &[OsString]) -> Rendered {
    render(run(args))
}

/// `invoke` with paths relative to `dir`, not the process's directory, and the
/// server's `kept` verdicts in the call's session (MCP).
pub fn invoke_at(args: &[OsString], dir: &std::path::Path, kept: Option<Arc<Kept>>) -> Rendered {
    let call = Nested {
        cwd: Some(dir.to_path_buf()),
        kept,
        ..Default::default()
    };
    render(run_in(args, Some(&call), Default::default()))
}

/// `invoke` with an event sink in the command's `Ctx` (the AOI JSONL mode).
pub fn invoke_with(args: &[OsString], events: crate::protocol::events::Events) -> Rendered {
    render(run_in(args, None, events))
}

/// What a call run by another (`batch`, `tx rebase`) inherits: the caller's session
/// (none: a call of its own, `invoke_at`) and the directory its paths are relative to.
#[derive(Default)]
struct Nested {
    session: Option<Arc<Session>>,
    cwd: Option<std::path::PathBuf>,
    /// A server's verdicts, for the session of a call of its own.
    kept: Option<Arc<Kept>>,
    /// The caller's `--syntax-guard`: an inner write without its own keeps it.
    syntax_guard: Option<bool>,
}

/// The one place an answer becomes bytes: a render mode plugs in here.
pub fn render(i: Invoked) -> Rendered {
    match i.result {
        // Only the binary's own constants: no mask needed (start-up cost).
        Ok(out) if i.command == "version" => envelope::render_constant(&i.command, out),
        Ok(out) => {
            let took = i.took.map(|t| ("took".to_string(), t));
            envelope::render_ok(&i.command, out, took.into_iter().collect(), i.recovery)
        }
        Err(e) => envelope::render_error(&i.command, &e),
    }
}

/// What `batch` and `tx rebase` run other commands through.
pub const INVOKER: Invoker = Invoker {
    run: run_nested,
    command_name,
};

/// One inner call, a panic included, as its typed result. It shares `ctx`'s
/// session (the locks held) and runs in `cwd` when given.
fn run_nested(ctx: &Ctx, argv: &[String], cwd: Option<&std::path::Path>) -> Invoked {
    let os: Vec<OsString> = argv.iter().map(OsString::from).collect();
    let nested = Nested {
        session: Some(ctx.session.clone()),
        cwd: cwd.map(std::path::Path::to_path_buf),
        syntax_guard: ctx.syntax_guard,
        kept: None,
    };
    let events = crate::protocol::events::Events::default();
    catch_unwind(AssertUnwindSafe(|| run_in(&os, Some(&nested), events))).unwrap_or_else(|_| {
        Invoked::new(
            command_name(argv),
            Err(CmdError::internal(
                "aitools failed unexpectedly in a call run by another command.",
            )),
        )
    })
}

/// The command an argv names (`tx commit`), else `aitools`.
fn command_name(argv: &[String]) -> String {
    let words = cli::command_words(argv);
    if words.is_empty() {
        "aitools".to_string()
    } else {
        words.join(" ")
    }
}

/// argv → parse → recover → run: one call's typed result.
pub fn run(args: &[OsString]) -> Invoked {
    run_in(args, None, crate::protocol::events::Events::default())
}

fn run_in(
    args: &[OsString],
    nested: Option<&Nested>,
    events: crate::protocol::events::Events,
) -> Invoked {
    if nested.is_none_or(|n| n.session.is_none()) {
        // Masks tallied by an earlier call of this process belong to its answer.
        crate::protocol::redact::take_tally();
    }
    // Debug builds only: lets the tests prove a panic still ends in one envelope.
    #[cfg(debug_assertions)]
    if std::env::var_os("AITOOLS_TEST_PANIC").is_some() {
        panic!("a panic forced by AITOOLS_TEST_PANIC");
    }
    let argv = lossy(args);
    let words = cli::command_words(&argv);
    let has = |names: &[&str]| protocol_argv::has_option(registry::LIST, &argv, names);
    if has(HELP) {
        return discovery::help(registry::LIST, &words);
    }
    if words.is_empty() {
        return discovery::no_command(registry::LIST, &argv);
    }
    let (matches, argv, took) = match parse(args, &words, argv) {
        Ok(parsed) => parsed,
        Err(invoked) => return *invoked,
    };
    let (name, spec, leaf) = match leaf_command(&matches, &words) {
        Ok(found) => found,
        Err(err) => return Invoked::new("aitools", Err(err)),
    };
    let mut ctx = match call_ctx(&name, argv, leaf, nested) {
        Ok(c) => c,
        Err(err) => return Invoked::new(name, Err(err)),
    };
    ctx.events = events;
    take_call_options(&mut ctx, spec, leaf, nested);
    // A record that cannot run is reported (`pending_recovery`), not an error:
    // reads go on, and the write path refuses while it is pending. `recover`
    // runs the pass itself, so its answer reflects what it did.
    let recovered = if spec.workspace && name != RECOVER {
        match recovery::recover(&ctx) {
            Ok(r) => r,
            Err(e) => return Invoked::new(name, Err(e.into())),
        }
    } else {
        recovery::Report::default()
    };
    let mut done = Invoked::new(name, (spec.run)(&ctx, leaf));
    done.took = with_handler_took(took, &ctx);
    // A handed-back call's paths, named from the root, spelled from where the
    // caller stands (`w/-rf` is `-rf` from `w`); then a value that starts with
    // `-` (a file named `-rf`) goes after `--`, as the caller runs it. Debug
    // builds (the tests') say on stderr, which every test checks is empty, when
    // a call would not parse as written or was re-spelled around a generator's
    // mistake.
    // Resolved only for an answer that hands a call back: most answers do not.
    let cwd = std::cell::OnceCell::new();
    let real_cwd =
        || cwd.get_or_init(|| std::fs::canonicalize(&ctx.cwd).unwrap_or_else(|_| ctx.cwd.clone()));
    done.map_commands(&|c: &str| cli::handback::from_cwd(c, &ctx.root, real_cwd()));
    done.map_commands(&|c: &str| {
        let fixed = cli::handback::dash_safe(c);
        #[cfg(debug_assertions)]
        if let Some(m) = cli::handback::debug_report(c, fixed.as_deref(), &ctx.argv) {
            eprintln!("aitools (debug): {m}");
        }
        fixed
    });
    done.map_commands(&|c: &str| cli::handback::keep_root(c, &ctx.argv));
    keep_tx_in_follow_ups(&ctx, &mut done);
    done.recovery = recovery::report(&recovered);
    done
}

/// The command clap matched (`tx commit` joins its group word) and its own matches.
fn leaf_command<'m>(
    matches: &'m clap::ArgMatches,
    words: &[String],
) -> Result<(String, &'static CommandSpec, &'m clap::ArgMatches), CmdError> {
    let unknown = |name: &str| discovery::unknown_command_error(registry::LIST, name, &[]);
    let Some((first, mut leaf)) = matches.subcommand() else {
        return Err(unknown(&words[0]));
    };
    let mut name = first.to_string();
    if let Some((sub, m)) = leaf.subcommand() {
        name = format!("{first} {sub}");
        leaf = m;
    }
    match registry::find(&name) {
        Some(spec) => Ok((name, spec, leaf)),
        None => Err(unknown(&name)),
    }
}

/// The call's context: its root, lock timeout, and (nested) the caller's directory
/// and session.
fn call_ctx(
    name: &str,
    argv: Vec<String>,
    leaf: &clap::ArgMatches,
    nested: Option<&Nested>,
) -> Result<Ctx, CmdError> {
    let globals = GlobalArgs::from_arg_matches(leaf).unwrap_or_default();
    let lock_timeout = match globals.lock_timeout.as_deref() {
        Some(v) => values::parse_duration(v)
            .map_err(|m| CmdError::invalid_argument(name, format!("--lock-timeout: {m}")))?,
        None => Duration::from_secs(10),
    };
    let root = globals.root.as_deref();
    let mut ctx = match nested {
        Some(n) => Ctx::new_in(
            name,
            argv,
            root,
            lock_timeout,
            n.cwd.as_deref(),
            n.session
                .clone()
                .unwrap_or_else(|| Session::serving(n.kept.clone())),
        ),
        None => Ctx::new(name, argv, root, lock_timeout),
    }?;
    ctx.invoker = Some(INVOKER);
    ctx.host = Some(HOST);
    Ok(ctx)
}

/// The options every tx-aware or writing command shares (`--tx`, `--max-diff-lines`,
/// `--syntax-guard`, the last one inherited from a batch).
fn take_call_options(
    ctx: &mut Ctx,
    spec: &CommandSpec,
    leaf: &clap::ArgMatches,
    nested: Option<&Nested>,
) {
    use crate::protocol::registry::{MAX_DIFF_ARG, SYNTAX_GUARD_ARG, TX_ARG};
    if spec.tx {
        ctx.tx = leaf.try_get_one::<String>(TX_ARG).ok().flatten().cloned();
    }
    if spec.writes {
        ctx.max_diff_lines = leaf
            .try_get_one::<u64>(MAX_DIFF_ARG)
            .ok()
            .flatten()
            .map(|n| usize::try_from(*n).unwrap_or(usize::MAX));
        ctx.syntax_guard = leaf
            .try_get_one::<String>(SYNTAX_GUARD_ARG)
            .ok()
            .flatten()
            .map(|v| v == "on")
            .or(nested.and_then(|n| n.syntax_guard));
    }
}

/// What the handler itself read another tool's way joins the parse's `took`.
fn with_handler_took(took: Option<Json>, ctx: &Ctx) -> Option<Json> {
    let read = ctx.took.lock().map(|t| t.clone()).unwrap_or_default();
    match (took, cli::habits::Habit::took_json(&read)) {
        (Some(Json::Obj(mut a)), Json::Obj(b)) => Some(Json::Obj({
            a.extend(b);
            a
        })),
        (t, _) if read.is_empty() => t,
        (_, b) => Some(b),
    }
}

/// clap's reading of the call. An argument clap rejects that is another tool's
/// spelling (`git log -n 5`, data/habits.tsv) is read the aitools way: argv is
/// rewritten and parsed once more, and `took` says what was read how.
fn parse(
    args: &[OsString],
    words: &[String],
    argv: Vec<String>,
) -> Result<(clap::ArgMatches, Vec<String>, Option<Json>), Box<Invoked>> {
    let failed = |e: clap::Error, argv: &[String]| {
        let (command, err) = cli::errors::parse_error(e, words, argv);
        Box::new(Invoked::new(command, Err(err)))
    };
    let full = std::iter::once(OsString::from("aitools")).chain(args.iter().cloned());
    let utf8 = args.iter().all(|a| a.to_str().is_some());
    let (fixed, took) = match cli::build_for(words).try_get_matches_from(full) {
        // A call another command answers (`json get F '.a[].b'`) is read as that one.
        Ok(m) => match cli::habits::other_call(&argv, &m) {
            Some(read) => read,
            None => return Ok((m, argv, None)),
        },
        Err(e) => match cli::habits::after_error(&e, words, &argv, utf8) {
            None => return Err(failed(e, &argv)),
            Some(Err((command, err))) => return Err(Box::new(Invoked::new(command, Err(err)))),
            Some(Ok(read)) => read,
        },
    };
    let words = cli::command_words(&fixed);
    let full = std::iter::once("aitools").chain(fixed.iter().map(String::as_str));
    match cli::build_for(&words).try_get_matches_from(full) {
        Ok(m) => Ok((m, fixed, Some(cli::habits::Habit::took_json(&took)))),
        Err(e) => Err(failed(e, &fixed)),
    }
}

/// Inside a tx, the commands an answer hands back (`next_commands`, `repairs[].command`)
/// stay inside it: a tx-aware `aitools` command without `--tx` gets `--tx <id>`
/// (followed without it, it would read or change the working tree, not the tx).
fn keep_tx_in_follow_ups(ctx: &Ctx, done: &mut Invoked) {
    let Some(id) = ctx.tx.as_deref() else {
        return;
    };
    // A tx that does not exist (the error says so) is not one to stay in.
    if crate::store::view::active(ctx).is_err() {
        return;
    }
    done.map_commands(&|c: &str| with_tx_option(c, id));
}

/// `command` with `--tx <id>` inserted before its `--` (or at its end), when it is
/// an `aitools` call of a tx-aware command without `--tx`. The text is spliced, not
/// re-quoted, so `<...>` placeholders stay as they were written.
fn with_tx_option(command: &str, id: &str) -> Option<String> {
    let spans = crate::protocol::shell::split_spans(command)?;
    let (first, rest) = spans.split_first()?;
    if first.1 != "aitools" {
        return None;
    }
    let words: Vec<String> = rest.iter().map(|(_, w)| w.clone()).collect();
    let spec = registry::find(&cli::command_words(&words).join(" "))?;
    if !spec.tx {
        return None;
    }
    let dd = words.iter().position(|w| w == "--");
    let opts = &words[..dd.unwrap_or(words.len())];
    if opts.iter().any(|w| w == "--tx" || w.starts_with("--tx=")) {
        return None;
    }
    let add = format!("--tx {}", crate::protocol::shell::quote(id));
    Some(match dd.and_then(|k| rest.get(k)) {
        Some((span, _)) => format!("{}{add} {}", &command[..span.start], &command[span.start..]),
        None => format!("{} {add}", command.trim_end()),
    })
}

/// `--help`/`-h`: recognised wherever clap would parse it as the flag.
const HELP: &[&str] = &["--help", "-h"];

#[cfg(test)]
mod tests {
    use super::with_tx_option;

    #[test]
    fn tx_goes_among_the_options_of_tx_aware_commands_only() {
        let id = "tx-20260101T000000Z-0000abcd";
        assert_eq!(
            with_tx_option("aitools read 'a b' -- -x", id).as_deref(),
            Some("aitools read 'a b' --tx tx-20260101T000000Z-0000abcd -- -x")
        );
        assert_eq!(
            with_tx_option("aitools edit <path> --old '<text>'", id).as_deref(),
            Some("aitools edit <path> --old '<text>' --tx tx-20260101T000000Z-0000abcd")
        );
        assert_eq!(with_tx_option("aitools tx diff x", id), None);
        assert_eq!(with_tx_option("aitools read a --tx=other", id), None);
        assert_eq!(with_tx_option("git status", id), None);
    }
}
