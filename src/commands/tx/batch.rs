//! `batch`: runs a JSON list of invocations through the invoker (`Ctx::invoker`),
//! each parsed and validated as a standalone call, optionally as one tx
//! (`--atomic`); every element's answer comes back typed and is nested as its
//! envelope.

use crate::handler;
use crate::protocol::invoke::{Invoked, with_tx, without_tx};
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, redact, shell};
use crate::store::tx;
use crate::workspace::Ctx;
use crate::workspace::root::Invoker;
use clap::Args;

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
    /// Stage every element in a tx as --atomic does, answer the changes a commit would make, then discard the tx: nothing is written.
    #[arg(long, conflicts_with = "continue_on_error")]
    pub dry_run: bool,
    /// Every write element runs with --syntax-guard (unless it says --syntax-guard=off).
    #[arg(long)]
    pub syntax_guard: bool,
    #[command(flatten)]
    pub input_limit: crate::workspace::input::InputLimit,
}

pub const BATCH: CommandSpec = CommandSpec {
    name: "batch",
    summary: "Run several calls from one JSON input.",
    description: "--stdin is a JSON array of argv arrays without the leading aitools, e.g. [[\"read\",\"a.txt\"],[\"write\",\"b.txt\",\"--content\",\"x\"]]. Each element is parsed and validated exactly as a standalone call, with batch's --root and --lock-timeout placed before it. Elements run in order; after the first failure the rest are skipped unless --continue-on-error. Without --atomic each write commits on its own: undo the successful elements' op_id values to reverse a partial batch. --atomic runs tx begin, every element with --tx <tx>, then tx commit, as one op; a failing element or a conflicting commit aborts the tx and writes nothing. An element may not be a batch, may not read --stdin (batch has consumed it; pass --content or --stdin-data), and under --atomic may not carry --tx. --dry-run stages as --atomic does and answers the changes a commit would make, writing nothing. On failure the answer is an error with the first failing element's error.code and exit code, and results[] in error.diagnostics.",
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
        field(
            "dry_run",
            "--dry-run: true; changes are what a commit would make, and the tx is discarded.",
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
    // Its write elements write (journaled), each by its own command.
    effects: Effects {
        journaled: true,
        ..Effects::SIDE
    },
    run: handler!(BatchArgs, batch),
};

fn element_refusal(run: &Invoker, argv: &[String], message: String) -> Invoked {
    let err = CmdError::new(
        code::ARGUMENT_INVALID,
        message,
        Repair::new("schema", "See what batch accepts.", "aitools schema batch"),
    );
    Invoked::new((run.command_name)(argv), Err(err))
}

/// Why an element may not run in this batch.
fn element_problem(run: &Invoker, argv: &[String], atomic: bool) -> Option<String> {
    if argv.is_empty() {
        return Some("A batch element is an empty argv.".into());
    }
    if (run.command_name)(argv) == "batch" {
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
    first: (usize, &[String], &CmdError),
    results: Vec<Json>,
    tx_id: Option<&str>,
    continued: bool,
) -> CmdError {
    let (n, argv, inner) = first;
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
        inner.code,
        format!(
            "Batch element {} ({}) failed: {}; {what}.",
            n + 1,
            shell::aitools(argv),
            inner.message.trim_end_matches('.')
        ),
        Repair::new(
            "fix",
            "Fix the failing element (its envelope is in diagnostics) and run the batch again.",
            "aitools schema batch",
        ),
    );
    for r in inner.repairs() {
        // The tx was aborted: a repair naming it would lead nowhere.
        let command = tx_id
            .and_then(|id| without_tx(&r.command, id))
            .unwrap_or_else(|| r.command.clone());
        let listed = err.repairs().iter().any(|x| x.command == command);
        if command.starts_with("aitools") && !listed {
            let mut r = r.clone();
            r.command = command;
            err = err.with_repair(r);
        }
    }
    if let Some(c) = &inner.conflicts {
        err = err.with_conflicts(c.clone());
    }
    // The results are the calls' envelopes, each masked and counted by its call.
    err.with_masked_diagnostics(Json::Arr(results))
}

pub fn batch(ctx: &Ctx, a: &BatchArgs) -> Result<Output, CmdError> {
    let run = invoker(ctx)?;
    // The elements inherit the guard (`Ctx::syntax_guard`).
    let mut inner = ctx.clone();
    if a.syntax_guard {
        inner.syntax_guard = Some(true);
    }
    if a.atomic && a.continue_on_error {
        return Err(CmdError::invalid_argument(
            "batch",
            "--atomic and --continue-on-error exclude each other: an atomic batch stops at the first failure.",
        ));
    }
    let elements = read_elements(ctx, a)?;
    let pre = shell::global_options(&ctx.argv);
    // The owner lock lives until this function returns: a batch killed before its
    // commit or abort leaves a tx that is not listed and is swept later.
    // A dry run stages as --atomic does, in a tx kept apart from the state
    // directory (removed with `_apart`, after the tx), then discards it.
    let _apart = a.dry_run.then(|| tx::stage_apart(ctx)).transpose()?;
    let atomic = a.atomic || a.dry_run;
    let (tx_id, _owner) = if atomic {
        let (meta, owner) = tx::begin_owned(ctx, Some("batch --atomic".into()))?;
        (Some(meta.tx), Some(owner))
    } else {
        (None, None)
    };
    let mut results: Vec<Json> = Vec::new();
    let mut first_failure: Option<(usize, CmdError)> = None;
    let mut any_partial = false;
    for (i, el) in elements.iter().enumerate() {
        if first_failure.is_some() && !a.continue_on_error {
            results.push(skipped(el));
            continue;
        }
        let mut inner = match element_problem(&run, el, atomic) {
            Some(why) => element_refusal(&run, el, why),
            None => {
                let mut argv = pre.clone();
                match &tx_id {
                    Some(id) => argv.extend(with_tx(el, id)),
                    None => argv.extend(el.iter().cloned()),
                }
                (run.run)(&inner, &argv, None)
            }
        };
        if let Some(id) = &tx_id {
            // The batch's tx is committed or aborted when the batch answers: a
            // command naming it would lead nowhere.
            inner.map_commands(&|c: &str| without_tx(c, id));
        }
        any_partial |= inner.exit_code() == 3;
        if let Some(e) = inner.error()
            && first_failure.is_none()
        {
            first_failure = Some((i, e.clone()));
        }
        let mut envelope = inner.envelope();
        if a.dry_run {
            // Staged in a tx that never existed for anyone else: not named.
            envelope.remove("tx");
            envelope.remove("tx_op");
        }
        results.push(envelope);
    }
    if let Some((i, e)) = first_failure {
        if let Some(id) = &tx_id {
            let _ = tx::abort(ctx, id);
        }
        let argv = elements.get(i).cloned().unwrap_or_default();
        return Err(batch_error(
            (i, &argv, &e),
            results,
            tx_id.as_deref(),
            a.continue_on_error,
        ));
    }
    let mut out = Json::obj();
    out.push("results", Json::Arr(results.clone()));
    if let Some(id) = &tx_id {
        commit(ctx, id, a.dry_run, &mut out, results, elements.len())?;
    }
    // The results are the inner envelopes, each masked and counted by its own
    // call: only the commit's members are masked here (a value they hide masked in
    // the results too), and the envelope's pass leaves them all.
    redact::tally_shown(redact::mask_tree_trusting(&mut out, 0..1));
    // An element cut by a limit makes the batch partial: its continuation is
    // in that element's next_commands.
    Ok(Output::from_json(out, any_partial).masked())
}

/// The batch's elements, from --stdin-data or standard input: a non-empty JSON
/// array of non-empty arrays of strings, each an aitools argv.
fn read_elements(ctx: &Ctx, a: &BatchArgs) -> Result<Vec<Vec<String>>, CmdError> {
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
    Ok(elements)
}

/// Commits the batch's tx into `out` (`tx`, `changes`, `op_id`), or with
/// `dry_run` answers what the commit would change and discards the tx.
fn commit(
    ctx: &Ctx,
    id: &str,
    dry_run: bool,
    out: &mut Json,
    results: Vec<Json>,
    n: usize,
) -> Result<(), CmdError> {
    let done = tx::commit::run(ctx, id, false, 0, dry_run, std::time::Duration::ZERO)
        .map_err(CmdError::from);
    if dry_run || done.is_err() {
        let _ = tx::abort(ctx, id);
    }
    let done = done.map_err(|e| {
        let commit_argv = vec!["tx".to_string(), "commit".to_string(), id.to_string()];
        let mut all = results;
        all.push(Invoked::new("tx commit", Err(e.clone())).envelope());
        batch_error((n, &commit_argv, &e), all, Some(id), false)
    })?;
    if dry_run {
        out.push("dry_run", Json::Bool(true));
    } else {
        out.push("tx", Json::str(id));
    }
    out.push("changes", Json::from_serialize(&done.changes));
    if !dry_run {
        out.push("op_id", done.op_id.map(Json::Str).unwrap_or(Json::Null));
    }
    Ok(())
}

/// The invoker the dispatcher put in `ctx` (a handler called any other way has none).
fn invoker(ctx: &Ctx) -> Result<Invoker, CmdError> {
    ctx.invoker
        .ok_or_else(|| CmdError::internal(format!("{} ran without an invoker.", ctx.command)))
}

fn has_flag(argv: &[String], flag: &str) -> bool {
    let eq = format!("{flag}=");
    argv.iter()
        .take_while(|a| *a != "--")
        .any(|a| a == flag || a.starts_with(&eq))
}
