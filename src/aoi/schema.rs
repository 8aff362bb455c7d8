//! `aitools schema --output json`: the JSON Schema 2020-12 document of the event
//! stream, a `$defs` entry per event type, chosen by `type` through `if`/`then`
//! (seed 10.4) so a validator names the failing type. Permissive for forward
//! compatibility: unknown members are allowed everywhere (seed 10.3).

use super::table;
use crate::protocol::Json;
use crate::protocol::host::CommandList;

fn j(text: &str) -> Json {
    Json::parse(text).unwrap_or(Json::Null)
}

/// `{"type":"object","required":[..],"properties":{..}}` from (name, schema) pairs.
fn object(required: &[&str], props: &[(&str, Json)]) -> Json {
    let mut o = Json::obj();
    o.push("type", Json::str("object"));
    o.push(
        "required",
        Json::Arr(required.iter().map(|r| Json::str(*r)).collect()),
    );
    let mut p = Json::obj();
    for (k, v) in props {
        p.push(k, v.clone());
    }
    o.push("properties", p);
    o
}

fn t(kind: &str) -> Json {
    j(&format!("{{\"type\":\"{kind}\"}}"))
}

fn count() -> Json {
    j(r#"{"type":"integer","minimum":0}"#)
}

/// The event types this tool emits: framework ones and every domain one of the
/// events table, plus `result`.
pub fn event_types() -> Vec<String> {
    let mut v: Vec<String> = [
        "aoi:meta",
        "aoi:summary",
        "aoi:error",
        "aoi:warning",
        "aoi:check",
        "aoi:plan",
        "result",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for r in table::event_rows() {
        if !v.iter().any(|e| e == r.event) {
            v.push(r.event.to_string());
        }
    }
    v
}

fn identity() -> Vec<(&'static str, Json)> {
    vec![
        ("tool", t("string")),
        ("tool_version", t("string")),
        ("aoi_version", t("string")),
        ("schema_name", t("string")),
        ("schema_version", t("string")),
    ]
}

/// The identity members `aoi:meta` and `aoi:summary` require.
const IDENTITY_REQUIRED: [&str; 5] = [
    "tool",
    "tool_version",
    "aoi_version",
    "schema_name",
    "schema_version",
];

fn def(kind: &str) -> Json {
    match kind {
        "aoi:meta" => meta_def(),
        "aoi:summary" => summary_def(),
        "aoi:error" => error_def(),
        _ => record_def(kind),
    }
}

fn meta_def() -> Json {
    let mut p = identity();
    p.push(("command", t("string")));
    p.push(("args_redacted", t("boolean")));
    p.push(("properties", t("object")));
    let mut r = IDENTITY_REQUIRED.to_vec();
    r.push("command");
    object(&r, &p)
}

fn summary_def() -> Json {
    let mut p = identity();
    p.extend([
        ("ok", t("boolean")),
        (
            "reason",
            j(r#"{"enum":["failed","cancelled","timeout","denied","skipped"]}"#),
        ),
        ("count", count()),
        ("event_count", count()),
        ("warning_count", count()),
        ("error_count", count()),
        ("partial", t("boolean")),
        ("truncated", t("boolean")),
        ("next_cursor", j(r#"{"type":["string","null"]}"#)),
        ("elapsed_ms", count()),
        ("properties", t("object")),
    ]);
    let mut r = IDENTITY_REQUIRED.to_vec();
    r.extend([
        "ok",
        "count",
        "event_count",
        "warning_count",
        "error_count",
        "partial",
        "truncated",
        "elapsed_ms",
    ]);
    let mut o = object(&r, &p);
    // reason is required exactly when ok is false.
    o.push(
        "if",
        j(r#"{"properties":{"ok":{"const":false}},"required":["ok"]}"#),
    );
    o.push("then", j(r#"{"required":["reason"]}"#));
    o
}

fn error_def() -> Json {
    let cats = Json::Arr(
        table::CATEGORY_NAMES
            .iter()
            .map(|c| Json::str(*c))
            .collect(),
    );
    let mut category = Json::obj();
    category.push("enum", cats);
    let mut o = object(
        &["category", "code", "message", "retryable"],
        &[
            ("category", category),
            (
                "code",
                j(r#"{"type":"string","pattern":"^[A-Z][A-Z0-9_]*$"}"#),
            ),
            (
                "message",
                j(r#"{"type":"string","pattern":"^[^\\n\\r]*$"}"#),
            ),
            ("retryable", t("boolean")),
            ("retry_after_ms", count()),
            ("scope", j(r#"{"enum":["process","item"]}"#)),
            ("domain", t("string")),
            ("origin", t("string")),
            ("target", t("string")),
            ("hint", t("string")),
            ("details", t("object")),
        ],
    );
    // retry_after_ms never accompanies retryable:false (seed 9.1).
    o.push(
        "if",
        j(r#"{"properties":{"retryable":{"const":false}},"required":["retryable"]}"#),
    );
    o.push("then", j(r#"{"not":{"required":["retry_after_ms"]}}"#));
    o
}

/// The other framework events and the data records: plain objects.
fn record_def(kind: &str) -> Json {
    match kind {
        // A passed-over path (search's skipped files): code skipped.<reason>.
        "aoi:warning" => object(
            &["message"],
            &[
                ("message", t("string")),
                ("code", t("string")),
                ("reason", t("string")),
                ("count", count()),
                ("target", t("string")),
                (
                    "examples",
                    j(r#"{"type":"array","items":{"type":"string"}}"#),
                ),
            ],
        ),
        "aoi:check" => object(
            &["name", "ok", "severity"],
            &[
                ("name", t("string")),
                ("ok", t("boolean")),
                ("severity", j(r#"{"enum":["info","warning","error"]}"#)),
                ("detail", t("string")),
            ],
        ),
        "aoi:plan" => object(
            &["action", "target"],
            &[
                ("action", t("string")),
                ("target", t("string")),
                ("properties", t("object")),
            ],
        ),
        "match" => object(
            &["path", "line", "col", "text"],
            &[
                ("path", t("string")),
                ("line", count()),
                ("col", count()),
                ("text", t("string")),
                ("groups", t("array")),
            ],
        ),
        "block" => object(
            &["path", "start_line", "lines"],
            &[
                ("path", t("string")),
                ("start_line", count()),
                ("lines", j(r#"{"type":"array","items":{"type":"string"}}"#)),
                (
                    "match_lines",
                    j(r#"{"type":"array","items":{"type":"integer"}}"#),
                ),
            ],
        ),
        "count" => object(
            &["path", "count"],
            &[("path", t("string")), ("count", count())],
        ),
        "path" => object(&["value"], &[("value", t("string"))]),
        "entry" => object(
            &["path", "kind"],
            &[("path", t("string")), ("kind", t("string"))],
        ),
        "line" => object(
            &["text"],
            &[
                ("path", t("string")),
                ("line_number", count()),
                ("text", t("string")),
            ],
        ),
        "op" => object(
            &["op_id", "command"],
            &[("op_id", t("string")), ("command", t("string"))],
        ),
        // A change names its file and, once written, the op that undoes it.
        "change" => object(
            &["path", "action", "op_id"],
            &[
                ("path", t("string")),
                ("action", t("string")),
                ("op_id", j(r#"{"type":["string","null"]}"#)),
            ],
        ),
        _ => object(&[], &[]),
    }
}

/// Envelope members a `result` never carries: the header, and what the stream
/// moves into `aoi:summary` (`properties`).
const NOT_IN_RESULT: &[&str] = &[
    "schema_version",
    "status",
    "command",
    "recovered",
    "pending_recovery",
    "redactions",
    "next_commands",
];

/// `result`: the rest of the command's answer, so its members are every
/// command's `output_fields` less the header, what `aoi:summary` carries and
/// the fields each command streams as events (a `read`'s `lines`). Members are
/// declared by name only (any value): their descriptions, and which command
/// sends which, are `aitools schema <command>`, one call away, and would
/// more than double the document (8.2 → 19.6 KB).
fn result_def(commands: CommandList) -> Json {
    let mut props: Vec<(&str, Json)> = Vec::new();
    for spec in commands.all() {
        let streamed = table::events_of(spec);
        for f in spec.output_fields {
            let skip = NOT_IN_RESULT.contains(&f.name)
                || f.name.contains(['.', '['])
                || streamed.iter().any(|r| r.field == f.name)
                || props.iter().any(|(k, _)| *k == f.name);
            if skip {
                continue;
            }
            props.push((f.name, Json::obj()));
        }
    }
    props.sort_by(|a, b| a.0.cmp(b.0));
    let mut o = object(&[], &props);
    o.push(
        "description",
        Json::str("The command's answer less the envelope header, the summary's members and the streamed fields: the command's output_fields (aitools schema <command>)."),
    );
    o
}

/// The whole document.
pub fn document(commands: CommandList) -> Json {
    let mut d = Json::obj();
    d.push(
        "$schema",
        Json::str("https://json-schema.org/draft/2020-12/schema"),
    );
    d.push(
        "$id",
        Json::str(format!(
            "urn:aitools:schema:{}:{}",
            super::SCHEMA_NAME,
            super::SCHEMA_VERSION
        )),
    );
    d.push("title", Json::str("aitools AOI-CLI event stream"));
    d.push("x-schema-name", Json::str(super::SCHEMA_NAME));
    d.push("x-schema-version", Json::str(super::SCHEMA_VERSION));
    d.push("x-aoi-version", Json::str(super::AOI_VERSION));
    d.push("type", Json::str("object"));
    d.push("required", j(r#"["type","aoi"]"#));
    let mut props = Json::obj();
    props.push("type", t("string"));
    props.push("aoi", j(r##"{"$ref":"#/$defs/envelope"}"##));
    d.push("properties", props);
    let mut all = Vec::new();
    let mut defs = Json::obj();
    defs.push(
        "envelope",
        object(
            &["seq", "run"],
            &[
                ("seq", count()),
                ("run", j(r#"{"type":"string","minLength":1}"#)),
                ("t", count()),
                ("trace_id", t("string")),
            ],
        ),
    );
    for kind in event_types() {
        let d = if kind == "result" {
            result_def(commands)
        } else {
            def(&kind)
        };
        defs.push(&kind, d);
        let mut cond = Json::obj();
        let mut when = Json::obj();
        when.push(
            "properties",
            j(&format!("{{\"type\":{{\"const\":\"{kind}\"}}}}")),
        );
        cond.push("if", when);
        let mut then = Json::obj();
        then.push("$ref", Json::str(format!("#/$defs/{kind}")));
        cond.push("then", then);
        all.push(cond);
    }
    d.push("allOf", Json::Arr(all));
    d.push("$defs", defs);
    d
}
