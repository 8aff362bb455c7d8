//! `wait`: blocks until one condition holds (a line in a file or a bg log, a port
//! accepting, a bg process ending, a duration passing), never past `--timeout`.

use super::bg;
use super::output;
use super::run::compile_grep;
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, redact, shell, values};
use crate::store::files::Content;
use crate::workspace::Ctx;
use clap::Args;
use regex::Regex;
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct WaitArgs {
    /// File to watch for a line; with --pattern.
    #[arg(long, value_name = "PATH")]
    pub file: Option<String>,
    /// Line regex for --file or --bg.
    #[arg(long, value_name = "RE")]
    pub pattern: Option<String>,
    /// TCP port that must accept a connection on 127.0.0.1 or ::1.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16))]
    pub port: Option<u16>,
    /// bg ID; with --pattern (a log line) or --exit.
    #[arg(long, value_name = "ID")]
    pub bg: Option<String>,
    /// With --bg: wait for the process to end.
    #[arg(long)]
    pub exit: bool,
    /// Wait this long.
    #[arg(long, value_name = "DURATION", value_parser = values::parse_duration)]
    pub duration: Option<Duration>,
    /// Give up after this long (at most 1h) with environment.timeout.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = values::parse_duration)]
    pub timeout: Duration,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "wait",
    summary: "Until a log line, port, exit or time.",
    description: "Exactly one condition: --file with --pattern (a line of the file, present or to come), --port, --bg with --pattern (a log line) or --exit, or --duration. Polls every 50 ms; past --timeout it fails with environment.timeout (nothing matched). Lines are cleaned and masked as run's are before the pattern sees them.",
    args: <WaitArgs as clap::Args>::augment_args,
    output_fields: &[
        field("matched", "Always true on success."),
        field("elapsed_ms", "Time until the condition held."),
        field("line", "The first matching line (pattern conditions)."),
        field("port", "The port that accepted (--port)."),
        field("exit_code", "Exit code, or null (--bg --exit)."),
        field("signal", "Ending signal, or null (--bg --exit)."),
        field(
            "log_cut",
            "{cap,dropped_bytes} when the bg log reached its --log-cap (--bg --exit).",
        ),
        field("duration_ms", "The duration waited (--duration)."),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::SYNTAX_ERROR,
        code::NOT_FOUND,
        code::TIMEOUT,
        code::UNAVAILABLE,
        code::IO,
    ],
    writes: false,
    tx: false,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(WaitArgs, run),
};

const MAX_TIMEOUT: Duration = Duration::from_secs(3600);
const POLL: Duration = Duration::from_millis(50);

enum Cond {
    Line(Content, Regex),
    Port(u16),
    Exit(bg::Job),
    Sleep(Duration),
}

fn invalid(ctx: &Ctx, msg: &str) -> CmdError {
    CmdError::invalid_argument(&ctx.command, msg.to_string())
}

/// A file's lines, read on from where the last poll stopped, masked with the mask's
/// state carried from line to line (a line of a YAML block scalar or a private key
/// is masked as in the file); only the line returned counts in `redactions`.
struct Follower {
    offset: u64,
    mask: redact::LineMask,
}

impl Follower {
    fn next_match(&mut self, file: &Content, re: &Regex) -> Option<String> {
        let Ok((lines, _)) = file.open().and_then(|f| bg::lines_from(f, self.offset)) else {
            return None;
        };
        for (raw, end) in lines {
            self.offset = end;
            let raw = raw.strip_suffix(b"\n").unwrap_or(&raw);
            let (text, _) = output::clean_line(raw, true);
            let before = self.mask.count();
            let text = self.mask.line(&text).unwrap_or(text);
            if re.is_match(&text) {
                redact::tally_shown(self.mask.count() - before);
                return Some(text);
            }
        }
        None
    }
}

fn port_open(port: u16) -> bool {
    let addrs: [SocketAddr; 2] = [
        SocketAddr::from(([127, 0, 0, 1], port)),
        SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, port)),
    ];
    addrs
        .iter()
        .any(|a| TcpStream::connect_timeout(a, Duration::from_millis(200)).is_ok())
}

/// The one condition the arguments name, after the checks on how they combine.
fn condition(ctx: &Ctx, a: &WaitArgs) -> Result<Cond, CmdError> {
    if a.timeout > MAX_TIMEOUT {
        return Err(invalid(
            ctx,
            "--timeout is at most 1h; wait again to wait longer.",
        ));
    }
    let pattern = match &a.pattern {
        Some(p) => Some(compile_grep(&ctx.argv, "--pattern", p)?),
        None => None,
    };
    let given = [
        a.file.is_some(),
        a.port.is_some(),
        a.bg.is_some(),
        a.duration.is_some(),
    ]
    .iter()
    .filter(|b| **b)
    .count();
    if given != 1 {
        return Err(invalid(
            ctx,
            "wait takes exactly one condition: --file with --pattern, --port, --bg with --pattern or --exit, or --duration.",
        ));
    }
    if a.exit && a.bg.is_none() {
        return Err(invalid(ctx, "--exit goes with --bg."));
    }
    if pattern.is_some() && a.file.is_none() && a.bg.is_none() {
        return Err(invalid(ctx, "--pattern goes with --file or --bg."));
    }
    if let Some(f) = &a.file {
        let Some(re) = pattern else {
            return Err(invalid(
                ctx,
                "--file needs --pattern (the line to wait for).",
            ));
        };
        return Ok(Cond::Line(ctx.files().disk(&ctx.path_arg(f)?), re));
    }
    if let Some(p) = a.port {
        return Ok(Cond::Port(p));
    }
    if let Some(id) = &a.bg {
        let j = bg::job(ctx, id)?;
        return match (pattern, a.exit) {
            (Some(re), false) => Ok(Cond::Line(ctx.files().disk(&j.log()), re)),
            (None, true) => Ok(Cond::Exit(j)),
            _ => Err(invalid(
                ctx,
                "--bg needs exactly one of --pattern or --exit.",
            )),
        };
    }
    let d = a.duration.unwrap_or_default();
    if d > a.timeout {
        return Err(invalid(
            ctx,
            "--duration is longer than --timeout; raise --timeout too.",
        ));
    }
    Ok(Cond::Sleep(d))
}

impl Cond {
    /// One poll: the field that says what held and its value, or None.
    fn poll(&self, follower: &mut Follower) -> Option<(&'static str, Json)> {
        match self {
            Cond::Line(p, re) => follower.next_match(p, re).map(|l| ("line", Json::Str(l))),
            Cond::Port(p) => port_open(*p).then(|| ("port", Json::UInt(u64::from(*p)))),
            Cond::Exit(j) => (!j.running()).then_some(("exit", Json::Null)),
            Cond::Sleep(d) => {
                std::thread::sleep(*d);
                Some((
                    "duration_ms",
                    Json::UInt(u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
                ))
            }
        }
    }

    /// The answer once the condition held `elapsed` after the start: a bg job's
    /// exit status, else the field `poll` gave.
    fn matched(&self, elapsed: Duration, k: &str, v: Json) -> Output {
        let mut o = Json::obj();
        o.push("matched", Json::Bool(true));
        o.push(
            "elapsed_ms",
            Json::UInt(u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)),
        );
        if let Cond::Exit(j) = self {
            let (code, sig) = j.exit().unwrap_or((None, None));
            o.push(
                "exit_code",
                code.map(|c| Json::Int(i64::from(c))).unwrap_or(Json::Null),
            );
            o.push(
                "signal",
                sig.map(|s| Json::Int(i64::from(s))).unwrap_or(Json::Null),
            );
            j.push_cut(&mut o);
        } else {
            o.push(k, v);
        }
        Output::from_json(o, false)
    }
}

pub fn run(ctx: &Ctx, a: &WaitArgs) -> Result<Output, CmdError> {
    let cond = condition(ctx, a)?;
    let start = Instant::now();
    let deadline = start + a.timeout;
    let mut follower = Follower {
        offset: 0,
        mask: redact::LineMask::default(),
    };
    loop {
        if let Some((k, v)) = cond.poll(&mut follower) {
            return Ok(cond.matched(start.elapsed(), k, v));
        }
        if Instant::now() >= deadline {
            break;
        }
        std::thread::sleep(POLL.min(deadline.saturating_duration_since(Instant::now())));
    }
    Err(timed_out(ctx, a))
}

/// The timeout error: wait again for longer, and for a bg job see its log (and
/// whether a cut log may have dropped the awaited line).
fn timed_out(ctx: &Ctx, a: &WaitArgs) -> CmdError {
    let longer = (a.timeout * 2).min(MAX_TIMEOUT);
    let words = shell::rerun(
        &ctx.argv,
        &["--timeout"],
        &[],
        &["--timeout".into(), format!("{}s", longer.as_secs().max(1))],
    );
    // A cut log may have dropped the awaited line: say so.
    let cut =
        a.bg.as_deref()
            .and_then(|id| bg::job(ctx, id).ok()?.log_cut());
    let cut_note = match cut {
        Some((cap, _)) => format!(
            " The bg log reached its {cap}-byte --log-cap: later output was dropped, a line may never appear."
        ),
        None => String::new(),
    };
    let mut err = CmdError::new(
        code::TIMEOUT,
        format!(
            "The condition did not hold within {} ms.{cut_note}",
            a.timeout.as_millis()
        ),
        Repair::new("wait-longer", "Wait longer.", shell::aitools(&words)),
    );
    if let Some(id) = &a.bg {
        err = err.with_repair(Repair::new(
            "logs",
            "See what the process printed and whether it still runs.",
            shell::aitools(["bg", "logs", id]),
        ));
    }
    err
}
