//! `aitools doctor --lint`: the seed's conformance checks (section 18.2) run
//! in-process against every command of the registry, each reported as one check.
//! Calls that would change the workspace are never made: every command is run
//! malformed (a usage error), the read-only discovery and listing commands run for
//! real, and the destructive ones without --confirm (a refusal). The project's
//! tests (`tests/families/aoi.rs`) run the same checks with a full JSON Schema
//! validator, the closed pipe and the signals included.

use super::{schema, table};
use crate::protocol::Json;
use crate::protocol::host::Host;
use crate::workspace::Ctx;

/// One readiness check.
pub fn check(name: &str, ok: bool, severity: &str, detail: impl Into<String>) -> Json {
    let mut c = Json::obj();
    c.push("name", Json::str(name));
    c.push("ok", Json::Bool(ok));
    c.push("severity", Json::str(if ok { "info" } else { severity }));
    c.push("detail", Json::str(detail.into()));
    c
}

/// A captured stream: its exit code and lines (`None`: a line that is not a JSON
/// object with a string `type`).
struct Captured {
    code: u8,
    raw: String,
    lines: Vec<Option<Json>>,
}

fn capture(host: Host, args: &[&str]) -> Captured {
    let mut v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let at = v.iter().position(|a| a == "--").unwrap_or(v.len());
    v.insert(at, "jsonl".into());
    v.insert(at, "--output".into());
    let (bytes, code) = super::run_captured(host, &v);
    let raw = String::from_utf8_lossy(&bytes).into_owned();
    let lines = raw
        .lines()
        .map(|l| {
            Json::parse(l).ok().filter(|j| {
                matches!(j, Json::Obj(_)) && j.get("type").and_then(Json::as_str).is_some()
            })
        })
        .collect();
    Captured { code, raw, lines }
}

fn kind(j: &Json) -> &str {
    j.get("type").and_then(Json::as_str).unwrap_or("")
}

fn uint(j: Option<&Json>) -> Option<u64> {
    match j? {
        Json::UInt(n) => Some(*n),
        Json::Int(n) => u64::try_from(*n).ok(),
        _ => None,
    }
}

/// The declared schema's checks that matter for framework events: required
/// members, enums and consts of top-level members, the if/then rules.
fn conforms(doc: &Json, ev: &Json) -> Result<(), String> {
    let Some(def) = doc.get("$defs").and_then(|d| d.get(kind(ev))) else {
        return Ok(());
    };
    fn holds(def: &Json, ev: &Json) -> Result<(), String> {
        if let Some(Json::Arr(req)) = def.get("required") {
            for r in req {
                if let Some(k) = r.as_str()
                    && ev.get(k).is_none()
                {
                    return Err(format!("{} lacks {k}", kind(ev)));
                }
            }
        }
        if let Some(Json::Obj(props)) = def.get("properties") {
            for (k, p) in props {
                let Some(v) = ev.get(k) else { continue };
                if let Some(Json::Arr(vals)) = p.get("enum")
                    && !vals.contains(v)
                {
                    return Err(format!("{}.{k} is not one of its values", kind(ev)));
                }
                if let Some(c) = p.get("const")
                    && c != v
                {
                    return Err(format!("{}.{k} differs from its const", kind(ev)));
                }
            }
        }
        Ok(())
    }
    holds(def, ev)?;
    if let (Some(cond), Some(then)) = (def.get("if"), def.get("then"))
        && holds(cond, ev).is_ok()
    {
        if let Some(not) = then.get("not") {
            if holds(not, ev).is_ok() {
                return Err(format!("{} breaks a rule of its schema", kind(ev)));
            }
        } else {
            holds(then, ev)?;
        }
    }
    Ok(())
}

/// The framing rules every stream keeps (checks 2, 3, 4, 5, 14, 15); the first
/// broken one.
fn framing(doc: &Json, c: &Captured) -> Result<(), String> {
    if !c.raw.ends_with('\n') {
        return Err("the last line lacks its line feed".into());
    }
    if c.raw.contains('\u{1b}') {
        return Err("an ANSI escape on stdout".into());
    }
    let mut evs = Vec::new();
    for (i, l) in c.lines.iter().enumerate() {
        match l {
            Some(j) => evs.push(j),
            None => return Err(format!("line {i} is not a JSON object with type")),
        }
    }
    let (Some(first), Some(last)) = (evs.first(), evs.last()) else {
        return Err("no lines".into());
    };
    if kind(first) != "aoi:meta" || kind(last) != "aoi:summary" {
        return Err("meta first and summary last".into());
    }
    let run = first.get("aoi").and_then(|a| a.get("run")).cloned();
    for (i, e) in evs.iter().enumerate() {
        if uint(e.get("aoi").and_then(|a| a.get("seq"))) != Some(i as u64) {
            return Err(format!("seq is not contiguous at line {i}"));
        }
        if e.get("aoi").and_then(|a| a.get("run")).cloned() != run {
            return Err(format!("run differs at line {i}"));
        }
        let k = kind(e);
        if (k == "aoi:meta" && i != 0) || (k == "aoi:summary" && i != evs.len() - 1) {
            return Err(format!("a second {k}"));
        }
        conforms(doc, e)?;
    }
    if uint(last.get("event_count")) != Some(evs.len() as u64) {
        return Err("event_count does not match the lines".into());
    }
    let ok = matches!(last.get("ok"), Some(Json::Bool(true)));
    if ok != (c.code == 0) {
        return Err(format!("ok {ok} with exit {}", c.code));
    }
    Ok(())
}

fn report(name: &str, what: &str, result: Result<(), String>) -> Json {
    match result {
        Ok(()) => check(name, true, "error", what),
        Err(e) => check(name, false, "error", format!("{what}: {e}")),
    }
}

fn not_applicable(name: &str, why: &str) -> Json {
    check(name, true, "info", format!("not applicable: {why}"))
}

pub fn run(ctx: &Ctx) -> Vec<Json> {
    let Some(host) = ctx.host else {
        return vec![check(
            "lint",
            false,
            "error",
            "the dispatcher handed no command list",
        )];
    };
    let doc = schema::document(host.commands);
    let every = format!("every command ({})", host.commands.all().count());
    // The calls run in the order of the checks they serve.
    let discovery = discovery(host);
    let malformed = malformed_calls(host, &doc);
    let reads = read_only_calls(host, &doc);
    let unconfirmed = unconfirmed_destructive(host);
    let broken = || malformed.broken.clone().map_or(Ok(()), Err);
    let did_not = |s: Option<String>| s.map_or(Ok(()), |s| Err(format!("{s} did not")));
    let mut out = vec![
        report(
            "aoi_lint_01_discovery",
            "schema and capabilities",
            discovery,
        ),
        report("aoi_lint_02_jsonl_only", &every, broken()),
        report(
            "aoi_lint_03_success_summary",
            "finite reads end in ok:true and exit 0",
            did_not(reads.failed),
        ),
        report(
            "aoi_lint_04_framework_schema",
            &format!("{every}: framework events match the declared schema"),
            broken(),
        ),
        report(
            "aoi_lint_05_usage_errors",
            &format!("{every}: malformed usage exits non-zero with a full aoi:error"),
            did_not(malformed.weak_error),
        ),
        report(
            "aoi_lint_06_confirm",
            "destructive commands refuse without --confirm",
            unconfirmed.map_or(Ok(()), |s| Err(format!("{s} ran"))),
        ),
        check(
            "aoi_lint_07_idempotency_key",
            false,
            "warning",
            "not claimed: no command takes --idempotency-key (capabilities says supports_idempotency_key false); a write is guarded by --expect-hash instead",
        ),
        report(
            "aoi_lint_08_stable_ids",
            "every change event names its path and op_id",
            change_has_op_id(&doc),
        ),
        report(
            "aoi_lint_09_secret_args",
            "a secret-looking argument is not echoed",
            secret_not_echoed(host),
        ),
        check(
            "aoi_lint_10_pipe_and_signals",
            true,
            "info",
            "not run in-process (it needs a child process): tests/families/aoi.rs closes the pipe and sends SIGINT and SIGTERM",
        ),
        report(
            "aoi_lint_11_bounds",
            "truncated and next_cursor agree",
            reads
                .unbounded
                .map_or(Ok(()), |s| Err(format!("{s} disagrees"))),
        ),
        not_applicable(
            "aoi_lint_12_input_jsonl",
            "no command reads JSONL input (capabilities input_modes is empty)",
        ),
        report(
            "aoi_lint_13_schema_version",
            "schema_version in meta; --schema-version 1 honoured, 9 refused",
            schema_version_negotiated(host),
        ),
        report("aoi_lint_14_one_meta_one_summary", &every, broken()),
    ];
    out.push(report(
        "aoi_lint_15_seq",
        &format!("{every}: seq contiguous, one run, event_count reconciles"),
        broken(),
    ));
    out.push(not_applicable(
        "aoi_lint_16_upstream",
        "aitools is a source: it never reads or forwards an upstream stream",
    ));
    out
}

/// Check 1: `schema` and `capabilities` answer their documents.
fn discovery(host: Host) -> Result<(), String> {
    let (s, code) = super::run_captured(host, &["schema".into(), "--output".into(), "json".into()]);
    let s = Json::parse(String::from_utf8_lossy(&s).trim_end()).map_err(|e| e.to_string())?;
    if code != 0 || s.get("$defs").is_none() {
        return Err("schema --output json is not a schema".to_string());
    }
    let (c, code) = super::run_captured(
        host,
        &["capabilities".into(), "--output".into(), "json".into()],
    );
    let c = Json::parse(String::from_utf8_lossy(&c).trim_end()).map_err(|e| e.to_string())?;
    if code != 0 || c.get("commands").is_none() {
        return Err("capabilities --output json lacks commands".to_string());
    }
    Ok(())
}

/// What every command called with an option it lacks showed (checks 2, 4, 5,
/// 14, 15): the first broken stream, the first weak error event.
struct Malformed {
    broken: Option<String>,
    weak_error: Option<String>,
}

fn malformed_calls(host: Host, doc: &Json) -> Malformed {
    let mut found = Malformed {
        broken: None,
        weak_error: None,
    };
    for spec in host.commands.all() {
        let mut args: Vec<&str> = spec.name.split(' ').collect();
        args.push("--aoi-lint-no-such-option");
        let c = capture(host, &args);
        if let Err(e) = framing(doc, &c) {
            found.broken.get_or_insert(format!("{}: {e}", spec.name));
        }
        let err = c.lines.iter().flatten().find(|e| kind(e) == "aoi:error");
        if c.code == 0 || !err.is_some_and(full_error) {
            found.weak_error.get_or_insert(spec.name.to_string());
        }
    }
    found
}

/// An `aoi:error` with every member, not `partial`, and no retry delay on an
/// error that says it is not retryable.
fn full_error(e: &Json) -> bool {
    ["category", "code", "message", "retryable"]
        .iter()
        .all(|k| e.get(k).is_some())
        && e.get("category").and_then(Json::as_str) != Some("partial")
        && !(matches!(e.get("retryable"), Some(Json::Bool(false)))
            && e.get("retry_after_ms").is_some())
}

/// What real read-only calls showed (checks 3, 11): the first that failed,
/// the first whose `truncated` and `next_cursor` disagree.
struct Reads {
    failed: Option<String>,
    unbounded: Option<String>,
}

fn read_only_calls(host: Host, doc: &Json) -> Reads {
    let mut found = Reads {
        failed: None,
        unbounded: None,
    };
    for args in [
        &["schema"][..],
        &["capabilities"][..],
        &["history", "--limit", "1"][..],
        &["find", "--limit", "1"][..],
        &["overview"][..],
    ] {
        let c = capture(host, args);
        let last = c.lines.last().cloned().flatten();
        if framing(doc, &c).is_err() || c.code != 0 {
            found.failed.get_or_insert(args.join(" "));
        }
        if let Some(l) = last {
            let truncated = matches!(l.get("truncated"), Some(Json::Bool(true)));
            if truncated != l.get("next_cursor").is_some() {
                found.unbounded.get_or_insert(args.join(" "));
            }
        }
    }
    found
}

/// Check 6: the first destructive command that ran without `--confirm`.
fn unconfirmed_destructive(host: Host) -> Option<String> {
    for spec in host.commands.all().filter(|s| table::destructive(s)) {
        let mut args: Vec<&str> = spec.name.split(' ').collect();
        args.push("aoi-lint-target");
        let c = capture(host, &args);
        let code = c
            .lines
            .iter()
            .flatten()
            .find(|e| kind(e) == "aoi:error")
            .and_then(|e| e.get("code").and_then(Json::as_str).map(str::to_string));
        if code.as_deref() != Some("REFUSAL_CONFIRM_REQUIRED") {
            return Some(spec.name.to_string());
        }
    }
    None
}

/// Check 8: the declared change event requires its op_id.
fn change_has_op_id(doc: &Json) -> Result<(), String> {
    let change = doc.get("$defs").and_then(|d| d.get("change"));
    let ids = change
        .and_then(|c| c.get("required"))
        .is_some_and(|r| matches!(r, Json::Arr(a) if a.contains(&Json::str("op_id"))));
    if ids {
        Ok(())
    } else {
        Err("change lacks op_id".into())
    }
}

/// Check 9: a secret given as an argument is not echoed.
fn secret_not_echoed(host: Host) -> Result<(), String> {
    let secret = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
    if capture(host, &["read", secret]).raw.contains(secret) {
        Err("echoed".into())
    } else {
        Ok(())
    }
}

/// Check 13: `--schema-version 1` honoured, 9 refused.
fn schema_version_negotiated(host: Host) -> Result<(), String> {
    let v1 = capture(host, &["schema", "--schema-version", "1"]);
    let v9 = capture(host, &["schema", "--schema-version", "9"]);
    if v1.code == 0 && v9.code != 0 {
        Ok(())
    } else {
        Err("not honoured".into())
    }
}
