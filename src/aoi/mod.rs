//! AOI-CLI machine mode (seed 000, `../shared/spec/04-machine-modes.md`):
//! `--output jsonl` (alias `--format jsonl`) on every command of the registry. The
//! command runs exactly as in the envelope mode (`Host::invoke_with`), with an
//! event sink in its `Ctx` that writes each streamed domain event as a line; what
//! it did not stream is read off its answer through `data/aoi-events.tsv`. This
//! module frames the stream (`aoi:meta` first, `aoi:summary` last), maps errors to
//! the seed's categories (`data/aoi-categories.tsv`), and handles a closed pipe and
//! SIGINT/SIGTERM. `schema --output json` and `capabilities --output json` answer
//! with one JSON object. It never prints: the dispatcher hands it the writer.

pub mod commands;
pub mod lint;
pub mod schema;
pub mod stream;
pub mod table;

use crate::protocol::argv;
use crate::protocol::events::Events;
use crate::protocol::host::Host;
use crate::protocol::{CmdError, Json, Repair, code, shell};
use std::ffi::OsString;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;
use stream::Stream;

pub const AOI_VERSION: &str = "1.0-alpha";
pub const SCHEMA_NAME: &str = "io.github.aitools.events";
pub const SCHEMA_VERSION: &str = "1.0.0";
pub const TOOL: &str = "aitools";

/// What a call asked of this module, its mode options taken out of argv.
pub enum Request {
    /// `--output jsonl` / `--format jsonl`.
    Jsonl(Mode),
    /// `schema --output json` / `capabilities --output json`: one JSON object.
    Json { command: String },
}

/// The options this mode adds to every command.
pub struct Mode {
    /// argv without the mode options.
    pub args: Vec<OsString>,
    pub confirm: bool,
    pub schema_version: Option<String>,
}

fn lossy(args: &[OsString]) -> Vec<String> {
    args.iter()
        .map(|a| a.to_string_lossy().to_string())
        .collect()
}

/// The request in argv, if any: only before `--`, and only the values `jsonl` (any
/// command) and `json` (schema, capabilities), so a command's own `--output MODE`
/// (search, find) is left alone.
pub fn request(host: Host, args: &[OsString]) -> Option<Request> {
    let argv = lossy(args);
    if !argv::has_option(host.commands, &argv, &["--output", "--format"]) {
        return None;
    }
    let mut value: Option<String> = None;
    let mut drop = vec![false; argv.len()];
    for o in argv::options(host.commands, &argv) {
        let mode = matches!(o.value.as_deref(), Some("jsonl") | Some("json"));
        if (o.name == "--output" || o.name == "--format") && mode {
            value = o.value.clone();
            drop[o.index] = true;
            if !o.inline {
                drop[o.index + 1] = true;
            }
        }
    }
    let value = value?;
    let kept: Vec<OsString> = args
        .iter()
        .zip(&drop)
        .filter(|(_, d)| !**d)
        .map(|(a, _)| a.clone())
        .collect();
    let words = host.commands.command_words(&lossy(&kept));
    if value == "json" {
        let command = words.join(" ");
        return matches!(command.as_str(), "schema" | "capabilities")
            .then_some(Request::Json { command });
    }
    Some(Request::Jsonl(mode_options(host, kept)))
}

/// The mode's own options (seed 16.1) taken out of `args`, where options stand.
fn mode_options(host: Host, args: Vec<OsString>) -> Mode {
    let argv = lossy(&args);
    let mut drop = vec![false; argv.len()];
    let (mut confirm, mut schema_version) = (false, None);
    for o in argv::options(host.commands, &argv) {
        match o.name.as_str() {
            "--confirm" => confirm = true,
            "--schema-version" => {
                schema_version = Some(o.value.clone().unwrap_or_default());
                if !o.inline && o.index + 1 < drop.len() {
                    drop[o.index + 1] = true;
                }
            }
            _ => continue,
        }
        drop[o.index] = true;
    }
    Mode {
        args: args
            .into_iter()
            .zip(drop)
            .filter_map(|(a, d)| (!d).then_some(a))
            .collect(),
        confirm,
        schema_version,
    }
}

/// Runs a request to its end, writing to `out`; returns the exit code.
pub fn main(host: Host, req: Request, out: Box<dyn Write + Send>) -> (u8, Option<Lost>) {
    match req {
        Request::Json { command } => {
            let doc = if command == "schema" {
                schema::document(host.commands)
            } else {
                commands::capabilities(host.commands)
            };
            let (mut text, _) = crate::protocol::redact::write_masked(&mut doc.clone());
            text.push('\n');
            let mut out = out;
            match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
                Ok(()) => (0, None),
                Err(error) => (0, Some(Lost::read(error, &command))),
            }
        }
        Request::Jsonl(mode) => {
            signals::install();
            run(host, mode, out, true)
        }
    }
}

/// What stdout refused (the dispatcher reports it unless it is a closed pipe):
/// the error, and the command's answer (the envelope: the op a write landed as,
/// the tx it staged in) when the command got as far as answering.
pub struct Lost {
    pub error: std::io::Error,
    pub answer: Option<Json>,
    /// The exit code the answer called for (this mode's, from its category).
    pub code: Option<u8>,
    /// The command's name (`tx commit`), or `aitools`.
    pub command: String,
}

impl Lost {
    fn read(error: std::io::Error, command: &str) -> Lost {
        Lost {
            error,
            answer: None,
            code: None,
            command: command.to_string(),
        }
    }
}

/// This mode's exit code for an answer stdout could not take (the category
/// table's, as for every code in this mode).
pub fn lost_exit() -> u8 {
    table::category(code::OUTPUT_LOST).exit
}

/// Runs one call in this mode into any writer (the lint runs commands this way).
pub fn run_captured(host: Host, args: &[String]) -> (Vec<u8>, u8) {
    let os: Vec<OsString> = args.iter().map(OsString::from).collect();
    let buf = Arc::new(std::sync::Mutex::new(Vec::new()));
    let code = match request(host, &os) {
        Some(Request::Jsonl(mode)) => run(host, mode, Box::new(Shared(buf.clone())), false).0,
        Some(req) => main(host, req, Box::new(Shared(buf.clone()))).0,
        None => 2,
    };
    let bytes = buf.lock().map(|b| b.clone()).unwrap_or_default();
    (bytes, code)
}

struct Shared(Arc<std::sync::Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut v) = self.0.lock() {
            v.extend_from_slice(b);
        }
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The identity every meta and summary carries (seed section 5).
fn identity(obj: &mut Json) {
    obj.push("tool", Json::str(TOOL));
    obj.push("tool_version", Json::str(crate::protocol::host::VERSION));
    obj.push("aoi_version", Json::str(AOI_VERSION));
    obj.push("schema_name", Json::str(SCHEMA_NAME));
    obj.push("schema_version", Json::str(SCHEMA_VERSION));
}

/// The commands that walk the workspace (`workspace::scan`): only their calls
/// ready the scan's start-up on the idle main thread.
const SCANS: &[&str] = &[
    "search",
    "find",
    "overview",
    "replace",
    "code outline",
    "code defs",
    "code refs",
];

/// Exit codes of this mode outside the category table (seed section 6).
const EXIT_SIGINT: u8 = 130;
const EXIT_SIGTERM: u8 = 143;
const EXIT_PIPE: u8 = 141;

/// Runs the call as a stream into `out`; what stdout refused, if it did.
fn run(
    host: Host,
    mode: Mode,
    mut out: Box<dyn Write + Send>,
    watch_signals: bool,
) -> (u8, Option<Lost>) {
    let argv = lossy(&mode.args);
    let words = host.commands.command_words(&argv);
    let spec = host.commands.find(&words.join(" "));
    if argv::has_option(host.commands, &argv, &["--help", "-h"]) {
        // The seed's rule: --help is human-readable help, even in this mode.
        let text = commands::help_text(host.commands, spec);
        return match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
            Ok(()) => (0, None),
            Err(error) => (0, Some(Lost::read(error, "aitools"))),
        };
    }
    let stream = Arc::new(Stream::new(out));
    let mut answer = None;
    let code = run_stream(
        host,
        &mode,
        (&argv, spec),
        &stream,
        watch_signals,
        &mut answer,
    );
    let lost = stream.take_error().map(|error| {
        let (text, code) = answer.unzip();
        Lost {
            error,
            answer: text.and_then(|t: String| Json::parse(t.trim_end()).ok()),
            code,
            command: spec.map_or("aitools", |s| s.name).to_string(),
        }
    });
    (code, lost)
}

/// `run` once the stream is open, with the arguments and command `run` read
/// off `mode`; `answer` gets the command's envelope text and the exit code it
/// calls for.
fn run_stream(
    host: Host,
    mode: &Mode,
    (argv, spec): (&[String], Option<&crate::protocol::registry::CommandSpec>),
    stream: &Arc<Stream>,
    watch_signals: bool,
    answer: &mut Option<(String, u8)>,
) -> u8 {
    let command = spec.map_or("aitools", |s| s.name);
    let mut meta = Json::obj();
    identity(&mut meta);
    meta.push("command", Json::str(command));
    meta.push("args_redacted", Json::Bool(true));

    if let Some((err, category)) = refusal(host, mode, argv, spec) {
        stream.line("aoi:meta", meta);
        return fail(stream, &err, category);
    }

    // The command starts first and the meta line is written while it sets up
    // (masking the first line readies the redaction tables); should the command
    // write first, the meta line goes out just before its first line, so the
    // command's first event never waits for this thread.
    stream.first("aoi:meta", meta);
    let events = Events::new(stream.clone());
    let (tx, rx) = std::sync::mpsc::channel();
    let args = mode.args.clone();
    let spawned = std::thread::Builder::new()
        .name("aitools-command".into())
        .stack_size(64 << 20)
        .spawn(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                (host.invoke_with)(&args, events)
            }));
            let _ = tx.send(r);
        });
    stream.write_first();
    if spawned.is_err() {
        return fail(
            stream,
            &CmdError::internal("aitools could not start the command thread."),
            "",
        );
    }
    // This thread has nothing else to do: for a command that scans, it readies
    // what the scan asks for on its way to the first file, in parallel with the
    // command's own set-up.
    if spec.is_some_and(|s| SCANS.contains(&s.name)) {
        crate::workspace::scan::warm();
    }
    // A command that acts (a write, a tx record, a program run) runs to its end.
    let acts = spec.is_some_and(|s| !s.read_only());
    let rendered = match wait_answer(stream, &rx, watch_signals, acts) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let code = finish(stream, spec, &rendered.text);
    *answer = Some((rendered.text, code));
    if stream.closed() { EXIT_PIPE } else { code }
}

/// Why the call must not run in this mode, with the category its error event
/// takes: a schema version this aitools does not speak, or a destructive
/// command without `--confirm` (and not a dry run).
fn refusal(
    host: Host,
    mode: &Mode,
    argv: &[String],
    spec: Option<&crate::protocol::registry::CommandSpec>,
) -> Option<(CmdError, &'static str)> {
    if let Some(v) = &mode.schema_version
        && !(v == "1" || v == SCHEMA_VERSION || v == "1.0")
    {
        let err = CmdError::new(
            code::ARGUMENT_INVALID,
            format!(
                "--schema-version {v} is not supported; this aitools speaks {SCHEMA_NAME} {SCHEMA_VERSION}."
            ),
            Repair::new(
                "schema",
                "Show the supported schema versions.",
                "aitools capabilities --output json",
            ),
        );
        return Some((err, "unsupported"));
    }
    let dry_run = argv::has_option(host.commands, argv, &["--dry-run"]);
    let s = spec.filter(|s| table::destructive(s) && !mode.confirm && !dry_run)?;
    let mut again = argv.to_vec();
    let at = again.iter().position(|a| a == "--").unwrap_or(again.len());
    again.insert(at, "--confirm".to_string());
    again.insert(at, "jsonl".to_string());
    again.insert(at, "--output".to_string());
    let err = CmdError::new(
        code::CONFIRM_REQUIRED,
        format!(
            "{} is destructive: with --output jsonl it runs only with --confirm.",
            s.name
        ),
        Repair::new(
            "confirm",
            "Run it, confirming the destruction.",
            shell::aitools(&again),
        ),
    );
    Some((err, ""))
}

type Answer = std::thread::Result<crate::protocol::envelope::Rendered>;

/// The command thread's answer, or the exit code the call ends with instead:
/// the thread panicked or vanished (after the error and summary), a signal came
/// (cancelled), or nobody reads a read-only command's events any more.
fn wait_answer(
    stream: &Stream,
    rx: &std::sync::mpsc::Receiver<Answer>,
    watch_signals: bool,
    acts: bool,
) -> Result<crate::protocol::envelope::Rendered, u8> {
    loop {
        match rx.recv_timeout(Duration::from_millis(10)) {
            Ok(Ok(r)) => return Ok(r),
            Ok(Err(_)) => {
                return Err(fail(
                    stream,
                    &CmdError::internal("aitools failed unexpectedly."),
                    "",
                ));
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                if watch_signals && let Some(sig) = signals::caught() {
                    return Err(cancelled(stream, sig));
                }
                // Nobody reads a read-only command's events any more: stop now. A
                // write finishes (it is short) so its journal and lock close cleanly,
                // and so does any command with a side effect (`tx begin`).
                if !acts && stream.closed() {
                    return Err(EXIT_PIPE);
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(fail(
                    stream,
                    &CmdError::internal("the command thread ended without an answer."),
                    "",
                ));
            }
        }
    }
}

fn cancelled(stream: &Stream, sig: i32) -> u8 {
    let mut s = Json::obj();
    s.push("ok", Json::Bool(false));
    s.push("reason", Json::str("cancelled"));
    summary_tail(stream, &mut s, false, None);
    stream.end(s);
    if sig == libc::SIGTERM {
        EXIT_SIGTERM
    } else {
        EXIT_SIGINT
    }
}

/// The aoi:error of an aitools error object (`details` keeps it whole).
fn error_event(error: &Json) -> (Json, table::Category) {
    let code = error.get("code").and_then(Json::as_str).unwrap_or("");
    let cat = table::category(code);
    let mut e = Json::obj();
    e.push("scope", Json::str("process"));
    e.push("category", Json::str(cat.category));
    e.push(
        "code",
        Json::str(code.replace(['.', '-'], "_").to_uppercase()),
    );
    e.push("domain", Json::str(TOOL));
    let message = error
        .get("message")
        .and_then(Json::as_str)
        .unwrap_or("aitools failed.")
        .replace(['\n', '\r'], " ");
    e.push("message", Json::str(message));
    e.push("retryable", Json::Bool(cat.retryable));
    if cat.retryable
        && let Some(ms) = cat.retry_after_ms
    {
        e.push("retry_after_ms", Json::UInt(ms));
    }
    let hint = match error.get("repairs") {
        Some(Json::Arr(r)) => r.first().and_then(|r| r.get("command")).cloned(),
        _ => None,
    };
    if let Some(h) = hint {
        e.push("hint", h);
    }
    e.push("details", error.clone());
    (e, cat)
}

/// An error before or instead of the command: aoi:error, then the summary.
fn fail(stream: &Stream, err: &CmdError, category_override: &str) -> u8 {
    let (mut e, cat) = error_event(&err.to_json());
    if !category_override.is_empty()
        && let Some(c) = e.get_mut("category")
    {
        *c = Json::str(category_override);
    }
    stream.line("aoi:error", e);
    let mut s = Json::obj();
    s.push("ok", Json::Bool(false));
    s.push("reason", Json::str(reason(cat.category)));
    summary_tail(stream, &mut s, false, None);
    stream.end(s);
    cat.exit
}

fn reason(category: &str) -> &'static str {
    match category {
        "authz" | "authn" => "denied",
        "timeout" => "timeout",
        "cancelled" => "cancelled",
        _ => "failed",
    }
}

/// The summary's counters, bounds and properties (seed 8.3, 15).
fn summary_tail(stream: &Stream, s: &mut Json, truncated: bool, extra: Option<Json>) {
    let c = stream.counts();
    identity(s);
    s.push("count", Json::UInt(c.domain));
    s.push("event_count", Json::UInt(0));
    s.push("warning_count", Json::UInt(c.warnings));
    s.push("error_count", Json::UInt(c.errors));
    s.push("partial", Json::Bool(false));
    s.push("truncated", Json::Bool(truncated));
    s.push("elapsed_ms", Json::UInt(stream.elapsed_ms()));
    let mut props = extra.unwrap_or_else(Json::obj);
    let before = props
        .remove("redactions")
        .and_then(|r| as_u64(&r))
        .unwrap_or(0);
    if c.redactions + before > 0 {
        props.push("redactions", Json::UInt(c.redactions + before));
    }
    if !matches!(&props, Json::Obj(m) if m.is_empty()) {
        s.push("properties", props);
    }
}

/// Turns the command's envelope into its remaining events and the summary.
fn finish(
    stream: &Stream,
    spec: Option<&crate::protocol::registry::CommandSpec>,
    text: &str,
) -> u8 {
    let Ok(mut env) = Json::parse(text.trim_end()) else {
        return fail(
            stream,
            &CmdError::internal("the command's answer did not parse."),
            "",
        );
    };
    let status = env
        .get("status")
        .and_then(Json::as_str)
        .unwrap_or("error")
        .to_string();
    if status == "error" {
        return failed(stream, env);
    }
    for k in ["schema_version", "status", "command"] {
        env.remove(k);
    }
    let mut props = Json::obj();
    for k in ["recovered", "pending_recovery"] {
        if let Some(v) = env.remove(k) {
            props.push(k, v);
        }
    }
    // What the envelope masked (replayed events are already masked); the stream
    // adds what it masks itself.
    if let Some(r) = env.remove("redactions") {
        props.push("redactions", r);
    }
    let next = env.remove("next_commands");
    let dry_run = matches!(env.get("dry_run"), Some(Json::Bool(true)));
    let op_id = env.get("op_id").cloned();
    if let Some(spec) = spec {
        drop_streamed(stream, spec, &mut env, props.get("redactions").is_some());
        replay(stream, spec, &mut env, op_id.as_ref(), dry_run);
        // Rows made events (find's entries) name their values: not `fields`.
        if table::events_of(spec)
            .iter()
            .any(|r| r.shape == "row" && env.get(r.field).is_none())
        {
            env.remove("fields");
        }
    }
    skipped_warnings(stream, env.get("skipped"));
    // A check that failed (doctor) makes the run not ok.
    let checks_ok = !matches!(env.get("ok"), Some(Json::Bool(false)));
    let truncated = status == "partial" || matches!(env.get("truncated"), Some(Json::Bool(true)));
    if !matches!(&env, Json::Obj(m) if m.is_empty()) {
        stream.line("result", env);
    }
    let mut s = Json::obj();
    s.push("ok", Json::Bool(checks_ok));
    if !checks_ok {
        s.push("reason", Json::str("failed"));
    }
    let cursor = match &next {
        Some(Json::Arr(a)) if truncated => a.first().cloned(),
        _ => None,
    };
    if let Some(n) = next.filter(|n| matches!(n, Json::Arr(a) if !a.is_empty())) {
        props.push("next_commands", n);
    }
    summary_tail(stream, &mut s, truncated, Some(props));
    if let Some(c) = cursor {
        s.push("next_cursor", c);
    }
    stream.end(s);
    if checks_ok { 0 } else { 1 }
}

/// An error envelope as its aoi:error and the summary; the exit code.
fn failed(stream: &Stream, mut env: Json) -> u8 {
    let error = env.remove("error").unwrap_or_else(Json::obj);
    let (e, cat) = error_event(&error);
    stream.line("aoi:error", e);
    let mut s = Json::obj();
    s.push("ok", Json::Bool(false));
    s.push("reason", Json::str(reason(cat.category)));
    // What the error envelope masked counts as a success's does.
    let masked = env.remove("redactions").map(|r| {
        let mut props = Json::obj();
        props.push("redactions", r);
        props
    });
    summary_tail(stream, &mut s, false, masked);
    stream.end(s);
    cat.exit
}

/// The events of `spec` the command did not stream, taken out of `env`: one
/// line per item (a change of a dry run is an aoi:plan line instead).
fn replay(
    stream: &Stream,
    spec: &crate::protocol::registry::CommandSpec,
    env: &mut Json,
    op_id: Option<&Json>,
    dry_run: bool,
) {
    for row in table::events_of(spec) {
        if stream.streamed(row.event) {
            continue;
        }
        let Some(Json::Arr(items)) = env.remove(row.field) else {
            continue;
        };
        // Null on a --tail that did not count the file's lines: no numbers.
        let start = match env.get("start_line") {
            Some(Json::Null) => None,
            s => Some(s.and_then(as_u64).unwrap_or(1)),
        };
        let path = env.get("path").cloned();
        for (i, item) in items.into_iter().enumerate() {
            let mut ev = match (row.shape, item) {
                ("row", item) => row_event(env.get("fields"), "path", item),
                ("line", Json::Str(t)) => {
                    let mut o = Json::obj();
                    if let Some(p) = &path {
                        o.push("path", p.clone());
                    }
                    if let Some(start) = start {
                        o.push("line_number", Json::UInt(start + i as u64));
                    }
                    o.push("text", Json::Str(t));
                    o
                }
                (_, o @ Json::Obj(_)) => o,
                (_, v) => row_event(None, "value", v),
            };
            if row.event == "change" {
                // The envelope leaves out `action` when it is `modified`; an
                // event says it, so a consumer needs no default rule.
                if ev.get("action").is_none() {
                    ev.push("action", Json::str("modified"));
                }
                if let Some(id) = op_id {
                    ev.push("op_id", id.clone());
                }
                if dry_run {
                    // A dry run's changes are the plan (seed 14.2).
                    let mut plan = Json::obj();
                    let action = ev.get("action").cloned().unwrap_or(Json::Null);
                    let target = ev.get("path").cloned().unwrap_or(Json::Null);
                    plan.push("action", action);
                    plan.push("target", target);
                    plan.push("properties", ev);
                    stream.line("aoi:plan", plan);
                    continue;
                }
            }
            stream.line(row.event, ev);
        }
    }
}

/// An item given as a row of the values its envelope's `fields` names, as the
/// object of those names; a bare value (no `fields`) is `bare`'s.
fn row_event(names: Option<&Json>, bare: &str, item: Json) -> Json {
    let names: Vec<&str> = match names {
        Some(Json::Arr(n)) => n.iter().filter_map(Json::as_str).collect(),
        _ => vec![bare],
    };
    let mut o = Json::obj();
    match item {
        Json::Arr(vals) => {
            for (k, v) in names.iter().zip(vals) {
                o.push(k, v);
            }
        }
        v => o.push(names.first().copied().unwrap_or(bare), v),
    }
    // find's rows say kind only when some entry is neither a file nor a
    // directory; a directory's path then ends in `/`.
    if bare == "path" && o.get("kind").is_none() {
        let dir = match o.get_mut("path") {
            Some(Json::Str(p)) if p.len() > 1 && p.ends_with('/') => p.pop().is_some(),
            _ => false,
        };
        o.push("kind", Json::str(if dir { "dir" } else { "file" }));
    }
    o
}

/// Takes the fields the command streamed live out of its envelope. The envelope's
/// `redactions` (`counted`) says what those events masked: the stream's own count
/// of them is taken back, so the summary says each secret once, as the CLI does.
fn drop_streamed(
    stream: &Stream,
    spec: &crate::protocol::registry::CommandSpec,
    env: &mut Json,
    counted: bool,
) {
    let live = stream.counts().redactions;
    let mut dropped = false;
    for row in table::events_of(spec) {
        if stream.streamed(row.event) {
            dropped |= env.remove(row.field).is_some();
        }
    }
    if dropped && counted {
        stream.uncount_redactions(live);
    }
}

/// What a command passed over (a binary, too-large or unreadable file, ...) is a
/// recoverable issue: one `aoi:warning` per `skipped` entry (a search's entries
/// are one per reason, with a count and the first paths; a write's one per path).
/// The answer's `skipped` stays in `result`.
fn skipped_warnings(stream: &Stream, skipped: Option<&Json>) {
    let Some(Json::Arr(items)) = skipped else {
        return;
    };
    for item in items {
        let Some(reason) = item.get("reason").and_then(Json::as_str) else {
            continue;
        };
        let count = item.get("count").and_then(as_u64).unwrap_or(1);
        let examples: Vec<Json> = match (item.get("examples"), item.get("path")) {
            (Some(Json::Arr(e)), _) => e.clone(),
            (_, Some(p @ Json::Str(_))) => vec![p.clone()],
            _ => Vec::new(),
        };
        let shown: Vec<&str> = examples.iter().filter_map(Json::as_str).collect();
        let noun = if count == 1 { "path" } else { "paths" };
        let mut w = Json::obj();
        w.push("code", Json::str(format!("skipped.{reason}")));
        let list = match shown.is_empty() {
            true => String::new(),
            false => format!(": {}", shown.join(", ")),
        };
        let message = format!("{count} {noun} passed over ({reason}){list}.");
        w.push("message", Json::str(message));
        w.push("reason", Json::str(reason));
        w.push("count", Json::UInt(count));
        if let Some(first) = examples.first() {
            w.push("target", first.clone());
        }
        w.push("examples", Json::Arr(examples));
        stream.line("aoi:warning", w);
    }
}

fn as_u64(j: &Json) -> Option<u64> {
    match j {
        Json::UInt(n) => Some(*n),
        Json::Int(n) => u64::try_from(*n).ok(),
        _ => None,
    }
}

/// SIGINT and SIGTERM in this mode: noted, so the main thread can end the stream
/// with a cancelled summary while the command thread is cut off (`oui connect`
/// watches the same flag to deregister before it ends).
pub(crate) mod signals {
    use super::*;

    static CAUGHT: AtomicI32 = AtomicI32::new(0);

    extern "C" fn on_signal(sig: libc::c_int) {
        CAUGHT.store(sig, Ordering::SeqCst);
    }

    pub fn install() {
        let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        // SAFETY: the handler only stores into an atomic, which is async-signal-safe.
        unsafe {
            libc::signal(libc::SIGINT, handler);
            libc::signal(libc::SIGTERM, handler);
        }
    }

    pub fn caught() -> Option<i32> {
        match CAUGHT.load(Ordering::SeqCst) {
            0 => None,
            s => Some(s),
        }
    }
}
