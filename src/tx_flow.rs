//! Commands that run other commands, so they belong to the composition root:
//! `tx rebase` (re-runs a tx's recorded operations against the current files) and
//! `batch` (runs a JSON list of invocations, optionally as one tx). Each inner
//! call goes through `dispatch::invoke`, exactly as a standalone call would, and
//! comes back as its envelope; `dispatch` stays the only code that prints.

use crate::handler;
use crate::protocol::registry::{CommandSpec, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, envelope, shell};
use crate::store::tx::{self, PathEntry};
use crate::store::{lock, state_dir, view};
use crate::workspace::Ctx;
use clap::Args;
use std::collections::BTreeSet;
use std::ffi::OsString;
use std::panic::{AssertUnwindSafe, catch_unwind};

pub const COMMANDS: &[CommandSpec] = &[REBASE, BATCH];

/// Runs one argv as a standalone call would run; its exit code and envelope.
/// It shares `ctx`'s session (the locks held) and runs in `cwd` when given.
fn run_argv(ctx: &Ctx, argv: &[String], cwd: Option<&str>) -> (i32, Json) {
    let os: Vec<OsString> = argv.iter().map(OsString::from).collect();
    let nested = crate::dispatch::Nested {
        session: ctx.session.clone(),
        cwd: cwd.map(std::path::PathBuf::from),
    };
    crate::protocol::agent_docs::set_nested(true);
    let result = catch_unwind(AssertUnwindSafe(|| {
        crate::dispatch::invoke_in(&os, Some(&nested))
    }));
    crate::protocol::agent_docs::set_nested(false);
    let rendered = match result {
        Ok(r) => r,
        Err(_) => {
            let words = crate::cli::command_words(argv);
            envelope::render_error(
                &words.join(" "),
                &CmdError::internal("aitools failed unexpectedly in a batch element."),
            )
        }
    };
    let v = Json::parse(rendered.text.trim_end()).unwrap_or(Json::Null);
    (rendered.exit_code, v)
}

/// An envelope's `error.code` mapped to the catalog's static code.
fn code_of(env: &Json) -> &'static str {
    let c = env
        .get("error")
        .and_then(|e| e.get("code"))
        .and_then(|c| c.as_str())
        .unwrap_or("");
    code::ALL
        .iter()
        .find(|k| **k == c)
        .copied()
        .unwrap_or(code::INTERNAL)
}

fn message_of(env: &Json) -> String {
    env.get("error")
        .and_then(|e| e.get("message"))
        .and_then(|m| m.as_str())
        .unwrap_or("")
        .to_string()
}

/// `argv` with `--tx <tx>` added (before a `--`, which ends the options).
fn with_tx(argv: &[String], id: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut added = false;
    for a in argv {
        if a == "--" && !added {
            out.push("--tx".into());
            out.push(id.into());
            added = true;
        }
        out.push(a.clone());
    }
    if !added {
        out.push("--tx".into());
        out.push(id.into());
    }
    out
}

/// Rewrites, through a whole envelope, the commands it hands back (`next_commands`
/// entries and every `command` that is an `aitools` call).
fn map_commands(v: &mut Json, f: &dyn Fn(&str) -> String) {
    match v {
        Json::Obj(members) => {
            for (k, val) in members.iter_mut() {
                match val {
                    Json::Str(s) if k == "command" && s.starts_with("aitools") => *s = f(s),
                    Json::Arr(items) if k == "next_commands" => {
                        for i in items.iter_mut() {
                            if let Json::Str(s) = i {
                                *s = f(s);
                            }
                        }
                    }
                    _ => map_commands(val, f),
                }
            }
        }
        Json::Arr(items) => items.iter_mut().for_each(|i| map_commands(i, f)),
        _ => {}
    }
}

/// Every string of an envelope with `from` replaced by `to`.
fn replace_everywhere(v: &mut Json, from: &str, to: &str) {
    match v {
        Json::Str(s) if s.contains(from) => *s = s.replace(from, to),
        Json::Obj(members) => members
            .iter_mut()
            .for_each(|(_, val)| replace_everywhere(val, from, to)),
        Json::Arr(items) => items
            .iter_mut()
            .for_each(|i| replace_everywhere(i, from, to)),
        _ => {}
    }
}

fn has_flag(argv: &[String], flag: &str) -> bool {
    let eq = format!("{flag}=");
    argv.iter()
        .take_while(|a| *a != "--")
        .any(|a| a == flag || a.starts_with(&eq))
}

// ---------------------------------------------------------------- tx rebase

#[derive(Args, Debug)]
pub struct RebaseArgs {
    /// The tx.
    #[arg(value_name = "TX")]
    pub tx: String,
}

pub const REBASE: CommandSpec = CommandSpec {
    name: "tx rebase",
    summary: "Re-apply a tx onto files changed outside it.",
    description: "Only operations touching drifted paths (or paths an earlier re-applied operation rewrote) are re-run, from their recorded arguments, against the current files. Content-based operations search again; position-based ones (--range, --symbol) and hash-guarded ones (--expect-hash), and --stdin input, are not re-run and make the rebase a conflict. On any conflict the tx is left unchanged (exit 2). Stale reads are not resolved here: re-read, or commit with --ignore-stale-reads.",
    args: <RebaseArgs as clap::Args>::augment_args,
    output_fields: &[
        field("tx", "The tx."),
        field(
            "rebased",
            "The drifted paths whose base moved to the current file.",
        ),
    ],
    error_codes: &[code::NOT_FOUND, code::TARGET_CHANGED, code::BUSY, code::IO],
    writes: false,
    tx: false,
    workspace: true,
    run: handler!(RebaseArgs, rebase),
};

/// Why an op that must be re-run cannot be.
fn not_rerunnable(argv: &[String]) -> Option<&'static str> {
    for (flag, why) in [
        (
            "--range",
            "it selected by --range (positions may have moved)",
        ),
        (
            "--symbol",
            "it selected by --symbol (positions may have moved)",
        ),
        (
            "--expect-hash",
            "it was guarded by --expect-hash (the content it relied on changed)",
        ),
        (
            "--stdin",
            "its input came from --stdin, which cannot be given again",
        ),
    ] {
        if has_flag(argv, flag) {
            return Some(why);
        }
    }
    None
}

fn rebase_conflict(id: &str, drift: &[tx::Conflict], diag: Json) -> CmdError {
    CmdError::new(
        code::TARGET_CHANGED,
        format!("tx {id} cannot be rebased onto the current files; it is unchanged."),
        Repair::new(
            "status",
            "Find the operation that cannot be re-applied (see diagnostics); drop it and redo it by hand.",
            shell::aitools(["tx", "status", id]),
        ),
    )
    .with_repair(Repair::new(
        "abort",
        "Discard the tx and start again from the current files.",
        shell::aitools(["tx", "abort", id]),
    ))
    .with_conflicts(Json::from_serialize(drift))
    .with_diagnostics(diag)
}

pub fn rebase(ctx: &Ctx, a: &RebaseArgs) -> Result<Output, CmdError> {
    let id = a.tx.as_str();
    let state = state_dir::ensure(&ctx.root)
        .map_err(|e| crate::store::io_error(ctx, "the state directory", &e))?;
    let _w = lock::acquire(ctx, &state)?;
    let _t = tx::open(ctx, id)?.lock(ctx)?;
    let mut t = tx::open(ctx, id)?;
    let drift = t.drift(ctx)?;
    let rebased: Vec<String> = drift.iter().map(|c| c.path.clone()).collect();
    let mut out = Json::obj();
    out.push("tx", Json::str(id));
    if drift.is_empty() {
        out.push("rebased", Json::Arr(Vec::new()));
        return Ok(Output::from_json(out, false));
    }
    let mut dirty: BTreeSet<String> = rebased.iter().cloned().collect();
    // Ops that must be re-run but cannot: a conflict before anything is built.
    let mut blocked = Vec::new();
    let mut probe = dirty.clone();
    for r in &t.ops {
        if r.depends_on(&probe) {
            if let Some(why) = not_rerunnable(&r.argv) {
                let mut d = Json::obj();
                d.push("tx_op", Json::UInt(r.tx_op));
                d.push("command", Json::str(shell::aitools(&r.argv)));
                d.push("reason", Json::str(why));
                blocked.push(d);
            }
            probe.extend(r.paths.iter().cloned());
        }
    }
    if !blocked.is_empty() {
        return Err(rebase_conflict(id, &drift, Json::Arr(blocked)));
    }
    let scratch_meta = tx::begin_scratch(ctx, id)?;
    let sid = scratch_meta.tx.clone();
    let built = (|| -> Result<tx::Tx, CmdError> {
        for (k, r) in t.ops.iter().enumerate() {
            if r.depends_on(&dirty) {
                let cwd = (!r.cwd.is_empty() && std::path::Path::new(&r.cwd).is_dir())
                    .then_some(r.cwd.as_str());
                let (exit, mut env) = run_argv(ctx, &with_tx(&r.argv, &sid), cwd);
                // The scratch tx is discarded below: name the tx the agent knows.
                replace_everywhere(&mut env, &sid, id);
                if exit != 0 && exit != 3 {
                    let mut d = Json::obj();
                    d.push("tx_op", Json::UInt(r.tx_op));
                    d.push("command", Json::str(shell::aitools(&r.argv)));
                    d.push("reason", Json::str("re-running it failed"));
                    d.push("envelope", env);
                    return Err(rebase_conflict(id, &drift, Json::Arr(vec![d])));
                }
                dirty.extend(r.paths.iter().cloned());
            } else {
                let mut s = tx::open(ctx, &sid)?;
                let entries: Vec<(String, PathEntry)> = r
                    .paths
                    .iter()
                    .filter_map(|p| t.entry_after(k, p).map(|e| (p.clone(), e)))
                    .collect();
                s.copy_op(ctx, r, entries)?;
            }
        }
        tx::open(ctx, &sid)
    })();
    let result = match built {
        Ok(s) => t.replace(ctx, s.index.paths.clone(), s.ops.clone()),
        Err(e) => Err(e),
    };
    let _ = tx::discard(ctx, &sid);
    view::forget(ctx);
    result?;
    out.push("rebased", Json::from_serialize(&rebased));
    Ok(Output::from_json(out, false))
}

// ---------------------------------------------------------------- batch

#[derive(Args, Debug)]
pub struct BatchArgs {
    /// Read the argv arrays (a JSON array of arrays of strings) from standard input.
    #[arg(long, required_unless_present = "stdin_data")]
    pub stdin: bool,
    /// The same JSON input given inline instead of on standard input.
    #[arg(long, allow_hyphen_values = true, conflicts_with = "stdin")]
    pub stdin_data: Option<String>,
    /// Keep running after a failed element; not with --atomic.
    #[arg(long)]
    pub continue_on_error: bool,
    /// All elements in one tx, committed at the end, or nothing; not with --continue-on-error.
    #[arg(long)]
    pub atomic: bool,
    #[command(flatten)]
    pub input_limit: crate::workspace::input::InputLimit,
}

pub const BATCH: CommandSpec = CommandSpec {
    name: "batch",
    summary: "Run several calls from one JSON input.",
    description: "--stdin is a JSON array of argv arrays without the leading aitools, e.g. [[\"read\",\"a.txt\"],[\"write\",\"b.txt\",\"--content\",\"x\"]]. Each element is parsed and validated exactly as a standalone call, with batch's --root and --lock-timeout placed before it. Elements run in order; after the first failure the rest are skipped unless --continue-on-error. Without --atomic each write commits on its own: undo the successful elements' op_id values to reverse a partial batch. --atomic runs tx begin, every element with --tx <tx>, then tx commit, as one op; a failing element or a conflicting commit aborts the tx and writes nothing. An element may not be a batch, may not read --stdin (batch has consumed it; pass --content or --stdin-data), and under --atomic may not carry --tx. On failure the answer is an error with the first failing element's error.code and exit code, and results[] in error.diagnostics.",
    args: <BatchArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "results",
            "One envelope per element, in order; {status:\"skipped\",argv} for an element not run after a failure.",
        ),
        field("tx", "--atomic: the tx the elements were staged in."),
        field(
            "changes",
            "--atomic: the committed tx's changes, in the standard write output shape without diffs (each element showed its own).",
        ),
        field(
            "op_id",
            "--atomic: the single journal op of the whole batch (undo reverses it).",
        ),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::SYNTAX_ERROR,
        code::TARGET_CHANGED,
        code::BUSY,
        code::TOO_LARGE,
    ],
    writes: false,
    tx: false,
    workspace: true,
    run: handler!(BatchArgs, batch),
};

fn element_refusal(argv: &[String], message: String) -> Json {
    let words = crate::cli::command_words(argv);
    let command = if words.is_empty() {
        "aitools".to_string()
    } else {
        words.join(" ")
    };
    let err = CmdError::new(
        code::ARGUMENT_INVALID,
        message,
        Repair::new("schema", "See what batch accepts.", "aitools schema batch"),
    );
    Json::parse(envelope::render_error(&command, &err).text.trim_end()).unwrap_or(Json::Null)
}

/// Why an element may not run in this batch.
fn element_problem(argv: &[String], atomic: bool) -> Option<String> {
    let words = crate::cli::command_words(argv);
    if argv.is_empty() {
        return Some("A batch element is an empty argv.".into());
    }
    if words.first().is_some_and(|w| w == "batch") {
        return Some("A batch element may not be a batch.".into());
    }
    if has_flag(argv, "--stdin") {
        return Some(
            "A batch element may not read --stdin (batch has consumed it); pass --content or --stdin-data."
                .into(),
        );
    }
    if atomic && has_flag(argv, "--tx") {
        return Some("Under --atomic an element may not carry --tx; batch adds its own.".into());
    }
    None
}

fn skipped(argv: &[String]) -> Json {
    let mut s = Json::obj();
    s.push("status", Json::str("skipped"));
    s.push("argv", Json::from_serialize(argv));
    s
}

/// The batch's error: the first failure's code (and so exit code), every
/// element's envelope in diagnostics.
fn batch_error(
    first: (usize, &[String], &Json),
    results: Vec<Json>,
    tx_id: Option<&str>,
    continued: bool,
) -> CmdError {
    let (n, argv, env) = first;
    let atomic = tx_id.is_some();
    let status_of = |r: &Json| r.get("status").and_then(|s| s.as_str()).map(String::from);
    let ran: Vec<String> = results
        .iter()
        .enumerate()
        .filter(|(k, r)| *k != n && matches!(status_of(r).as_deref(), Some("ok" | "partial")))
        .map(|(k, _)| (k + 1).to_string())
        .collect();
    let what = if atomic {
        "nothing was written (the tx was aborted)".to_string()
    } else if ran.is_empty() {
        "no other element succeeded, so none has effects to reverse".to_string()
    } else {
        let later = if continued && n + 1 < results.len() {
            "; the elements after it ran too (--continue-on-error)"
        } else {
            ""
        };
        let which = if ran.len() == 1 {
            "element"
        } else {
            "elements"
        };
        format!(
            "{which} {} succeeded and their effects stay (undo their op_id to reverse them){later}",
            ran.join(", ")
        )
    };
    let mut err = CmdError::new(
        code_of(env),
        format!(
            "Batch element {} ({}) failed: {}; {what}.",
            n + 1,
            shell::aitools(argv),
            message_of(env).trim_end_matches('.')
        ),
        Repair::new(
            "fix",
            "Fix the failing element (its envelope is in diagnostics) and run the batch again.",
            "aitools schema batch",
        ),
    );
    if let Some(Json::Arr(reps)) = env.get("error").and_then(|e| e.get("repairs")) {
        for r in reps {
            let get = |k: &str| r.get(k).and_then(|v| v.as_str()).unwrap_or("").to_string();
            let mut command = get("command");
            if let Some(id) = tx_id {
                // The tx was aborted: a repair naming it would lead nowhere.
                command = command.replace(&format!(" --tx {id}"), "");
            }
            let listed = err.repairs().iter().any(|x| x.command == command);
            if command.starts_with("aitools") && !listed {
                err = err.with_repair(Repair::new(get("action"), get("detail"), command));
            }
        }
    }
    if let Some(c) = env.get("error").and_then(|e| e.get("conflicts")) {
        err = err.with_conflicts(c.clone());
    }
    err.with_diagnostics(Json::Arr(results))
}

pub fn batch(ctx: &Ctx, a: &BatchArgs) -> Result<Output, CmdError> {
    if a.atomic && a.continue_on_error {
        return Err(CmdError::invalid_argument(
            "batch",
            "--atomic and --continue-on-error exclude each other: an atomic batch stops at the first failure.",
        ));
    }
    let text = match &a.stdin_data {
        Some(t) => t.clone(),
        None => {
            let limit = a.input_limit.bytes("batch")?;
            let bytes = crate::workspace::input::read_stdin(ctx, limit)?;
            String::from_utf8(bytes).map_err(|e| {
                CmdError::new(
                    code::SYNTAX_ERROR,
                    format!(
                        "The batch input is not UTF-8 (byte {}).",
                        e.utf8_error().valid_up_to()
                    ),
                    Repair::new(
                        "schema",
                        "Pass a JSON array of argv arrays, e.g. [[\"read\",\"a.txt\"]].",
                        "aitools schema batch",
                    ),
                )
            })?
        }
    };
    let parsed: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        CmdError::new(
            code::SYNTAX_ERROR,
            format!("The batch input is not JSON: {e}."),
            Repair::new(
                "schema",
                "Pass a JSON array of argv arrays, e.g. [[\"read\",\"a.txt\"]].",
                "aitools schema batch",
            ),
        )
    })?;
    let shape = |what: String| {
        CmdError::invalid_argument(
            "batch",
            format!(
                "The batch input must be a non-empty JSON array of non-empty arrays of strings; {what}."
            ),
        )
    };
    let serde_json::Value::Array(items) = parsed else {
        return Err(shape("it is not an array".into()));
    };
    if items.is_empty() {
        return Err(shape("it is empty".into()));
    }
    let mut elements: Vec<Vec<String>> = Vec::with_capacity(items.len());
    for (i, e) in items.into_iter().enumerate() {
        let bad = |why: &str| shape(format!("element {} {why}", i + 1));
        let serde_json::Value::Array(words) = e else {
            return Err(bad("is not an array"));
        };
        if words.is_empty() {
            return Err(bad("is empty"));
        }
        let mut argv = Vec::with_capacity(words.len());
        for w in words {
            match w {
                serde_json::Value::String(s) => argv.push(s),
                other => return Err(bad(&format!("holds {other}, not a string"))),
            }
        }
        elements.push(argv);
    }
    let pre = shell::global_options(&ctx.argv);
    // The owner lock lives until this function returns: a batch killed before its
    // commit or abort leaves a tx that is not listed and is swept later.
    let (tx_id, _owner) = if a.atomic {
        let (meta, owner) = tx::begin_owned(ctx, Some("batch --atomic".into()))?;
        (Some(meta.tx), Some(owner))
    } else {
        (None, None)
    };
    let mut results: Vec<Json> = Vec::new();
    let mut first_failure: Option<(usize, Json)> = None;
    let mut any_partial = false;
    for (i, el) in elements.iter().enumerate() {
        if first_failure.is_some() && !a.continue_on_error {
            results.push(skipped(el));
            continue;
        }
        let (exit, mut env) = match element_problem(el, a.atomic) {
            Some(why) => (1, element_refusal(el, why)),
            None => {
                let mut argv = pre.clone();
                match &tx_id {
                    Some(id) => argv.extend(with_tx(el, id)),
                    None => argv.extend(el.iter().cloned()),
                }
                run_argv(ctx, &argv, None)
            }
        };
        if let Some(id) = &tx_id {
            // The batch's tx is committed or aborted when the batch answers: a
            // command naming it would lead nowhere.
            let drop = format!(" --tx {id}");
            map_commands(&mut env, &|c: &str| c.replace(&drop, ""));
        }
        any_partial |= exit == 3;
        if exit != 0 && exit != 3 && first_failure.is_none() {
            first_failure = Some((i, env.clone()));
        }
        results.push(env);
    }
    if let Some((i, env)) = first_failure {
        if let Some(id) = &tx_id {
            let _ = tx::abort(ctx, id);
        }
        let argv = elements.get(i).cloned().unwrap_or_default();
        return Err(batch_error(
            (i, &argv, &env),
            results,
            tx_id.as_deref(),
            a.continue_on_error,
        ));
    }
    let mut out = Json::obj();
    out.push("results", Json::Arr(results.clone()));
    if let Some(id) = &tx_id {
        let done = match tx::commit(ctx, id, false, 0, false) {
            Ok(d) => d,
            Err(e) => {
                let _ = tx::abort(ctx, id);
                let env = Json::parse(envelope::render_error("tx commit", &e).text.trim_end())
                    .unwrap_or(Json::Null);
                let commit_argv = vec!["tx".to_string(), "commit".to_string(), id.clone()];
                let mut all = results;
                all.push(env.clone());
                return Err(batch_error(
                    (elements.len(), &commit_argv, &env),
                    all,
                    Some(id),
                    false,
                ));
            }
        };
        out.push("tx", Json::str(id.clone()));
        out.push("changes", Json::from_serialize(&done.changes));
        out.push("op_id", done.op_id.map(Json::Str).unwrap_or(Json::Null));
        // The same shape as every write answer's changes.
        crate::protocol::compact::compact(&mut out, false);
    }
    // An element cut by a limit makes the batch partial: its continuation is
    // in that element's next_commands.
    Ok(Output::from_json(out, any_partial))
}
