//! The MCP tools, generated from the registry: each command's `inputSchema`,
//! `outputSchema` and annotations read off its clap arguments and spec, and a
//! `tools/call`'s arguments turned back into an argv.

use crate::protocol::host::CommandList;
use crate::protocol::registry::{CommandSpec, is_global_arg};
use clap::ArgAction;
use serde_json::{Map, Value, json};

/// The MCP tool name of a registry command: `code outline` → `code_outline`.
pub fn tool_name(spec: &CommandSpec) -> String {
    spec.name.replace([' ', '-'], "_")
}

/// The servers: started on their own, never run as a tool.
pub const SERVERS: &[&str] = &["mcp", "console"];

/// The commands served as tools (all but the servers, `mcp` itself and `console`).
pub(super) fn served(list: CommandList) -> impl Iterator<Item = &'static CommandSpec> {
    list.all().filter(|s| !SERVERS.contains(&s.name))
}

/// How one tool property maps back onto the command line.
#[derive(Debug, Clone)]
pub struct Prop {
    pub name: String,
    pub id: String,
    /// `--long` for options; None for positionals.
    pub long: Option<String>,
    pub kind: Kind,
    pub required: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    Flag,
    Scalar {
        integer: bool,
    },
    /// An option taking exactly two values (`--between START END`).
    Pair,
    List {
        integer: bool,
    },
}

fn identifier(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// The properties of a command's tool, in declaration order: its own clap
/// arguments (global options and `--stdin`, which is the protocol's stream here,
/// left out). A positional keeps its name; an option whose name a positional
/// already took gets `_option` (`search`'s `pattern` and `--pattern`).
pub fn props(spec: &CommandSpec) -> Vec<Prop> {
    let cmd = spec.clap_command();
    let args: Vec<&clap::Arg> = cmd
        .get_arguments()
        .filter(|a| !a.is_hide_set() && !is_global_arg(a.get_id().as_str()))
        .filter(|a| a.get_long() != Some("stdin"))
        .collect();
    let mut out: Vec<Prop> = Vec::new();
    let positional_names: Vec<String> = args
        .iter()
        .filter(|a| a.is_positional())
        .map(|a| positional_name(a))
        .collect();
    for a in args {
        let integer = crate::protocol::registry::value_kind(a) == "integer";
        let multi_values = a.get_num_args().is_some_and(|r| r.max_values() > 1);
        let kind = if matches!(
            a.get_action(),
            ArgAction::SetTrue | ArgAction::SetFalse | ArgAction::Count
        ) {
            Kind::Flag
        } else if matches!(a.get_action(), ArgAction::Append) || (a.is_positional() && multi_values)
        {
            Kind::List { integer }
        } else if a
            .get_num_args()
            .is_some_and(|r| r.min_values() == 2 && r.max_values() == 2)
        {
            Kind::Pair
        } else {
            Kind::Scalar { integer }
        };
        let (name, long) = if a.is_positional() {
            (positional_name(a), None)
        } else {
            let long = a.get_long().unwrap_or(a.get_id().as_str()).to_string();
            let mut n = long.replace('-', "_");
            if positional_names.contains(&n) {
                n.push_str("_option");
            }
            (n, Some(format!("--{long}")))
        };
        out.push(Prop {
            name,
            id: a.get_id().to_string(),
            long,
            kind,
            required: a.is_required_set(),
        });
    }
    out
}

/// `props` of a registered command, built from clap once per process (a server
/// turns every tool call's arguments into an argv with them); `None` for a spec
/// the registry does not list.
fn kept_props(spec: &CommandSpec) -> Option<&'static [Prop]> {
    type Kept = Vec<(&'static str, std::sync::OnceLock<Vec<Prop>>)>;
    static KEPT: std::sync::OnceLock<Kept> = std::sync::OnceLock::new();
    let kept = KEPT.get_or_init(|| {
        crate::registry::all()
            .map(|s| (s.name, std::sync::OnceLock::new()))
            .collect()
    });
    let (_, p) = kept.iter().find(|(n, _)| *n == spec.name)?;
    Some(p.get_or_init(|| props(spec)))
}

fn positional_name(a: &clap::Arg) -> String {
    let id = a.get_id().as_str();
    if identifier(id) {
        return id.to_string();
    }
    // `replace`'s one positional holds PATTERN REPLACEMENT [PATH...].
    "args".to_string()
}

fn scalar_schema(integer: bool) -> Value {
    if integer {
        json!({"type": "integer"})
    } else {
        json!({"type": "string"})
    }
}

/// The tool's `inputSchema`: a flat object (no combinators, no `$ref`).
pub fn input_schema(spec: &CommandSpec) -> Value {
    let cmd = spec.clap_command();
    let mut properties = Map::new();
    let mut required = Vec::new();
    for p in props(spec) {
        let Some(arg) = cmd.get_arguments().find(|a| a.get_id().as_str() == p.id) else {
            continue;
        };
        let mut s = match p.kind {
            Kind::Flag => json!({"type": "boolean"}),
            Kind::Scalar { integer } => scalar_schema(integer),
            Kind::Pair => {
                json!({"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2})
            }
            Kind::List { integer } => json!({"type": "array", "items": scalar_schema(integer)}),
        };
        let values: Vec<Value> = arg
            .get_possible_values()
            .iter()
            .map(|v| Value::String(v.get_name().to_string()))
            .collect();
        if !values.is_empty() {
            match p.kind {
                Kind::Scalar { .. } => s["enum"] = Value::Array(values),
                Kind::List { .. } => s["items"]["enum"] = Value::Array(values),
                _ => {}
            }
        }
        let mut help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
        if let Some(long) = &p.long {
            help = format!("{long}: {help}");
        }
        s["description"] = Value::String(help);
        if let Some(d) = arg.get_default_values().first() {
            let d = d.to_string_lossy().to_string();
            s["default"] = match p.kind {
                Kind::Scalar { integer: true } => d
                    .parse::<i64>()
                    .map(Value::from)
                    .unwrap_or(Value::String(d)),
                Kind::Flag => Value::Bool(d == "true"),
                _ => Value::String(d),
            };
        }
        if p.required {
            required.push(Value::String(p.name.clone()));
        }
        properties.insert(p.name, s);
    }
    let mut schema =
        json!({"type": "object", "properties": properties, "additionalProperties": false});
    if !required.is_empty() {
        schema["required"] = Value::Array(required);
    }
    schema
}

/// The tool's `outputSchema`: the envelope, success or error, as one object;
/// each member typed from `data/field-types.tsv` (`protocol::field_types`),
/// down to the members of its objects and its arrays' elements, and every
/// object closed (`additionalProperties: false`) where its members are declared.
pub fn output_schema(spec: &CommandSpec) -> Value {
    let mut properties = Map::new();
    properties.insert("schema_version".into(), json!({"type": "integer"}));
    properties.insert(
        "status".into(),
        json!({"type": "string", "enum": ["ok", "partial", "error"]}),
    );
    properties.insert("command".into(), json!({"type": "string"}));
    // The fields every command of a kind shares (the recovery report, a write's
    // and a staged write's) are typed but not described again in each tool:
    // `schema <command> --full` describes them.
    for f in spec.all_fields() {
        let own = spec.output_fields.iter().any(|o| o.name == f.name);
        let s = if own {
            json!({"description": f.description})
        } else {
            json!({})
        };
        // A member of an array's elements (`changes[].count`) is described
        // in its array's items.
        match f.name.split_once("[].") {
            Some((array, member)) => {
                let p = properties.entry(array).or_insert_with(|| json!({}));
                p["items"]["properties"][member] = s;
            }
            None => {
                let p = properties.entry(f.name).or_insert_with(|| json!({}));
                if let (Some(p), Value::Object(s)) = (p.as_object_mut(), s) {
                    p.extend(s);
                }
            }
        }
    }
    for name in ENVELOPE_MEMBERS {
        properties.entry(*name).or_insert_with(|| json!({}));
    }
    properties.insert("error".into(), error_schema());
    // A result cut for size carries it (`Server::cut`), whatever the command.
    properties.insert("mcp_continuation".into(), json!({}));
    for (name, p) in properties.iter_mut() {
        if !matches!(name.as_str(), "schema_version" | "status" | "command") {
            complete(spec.name, name, None, p);
        }
    }
    json!({
        "type": "object",
        "properties": properties,
        "required": ["schema_version", "status", "command"],
        "additionalProperties": false,
    })
}

/// Completes `s`, the schema of `command`'s member at `path` (`error`,
/// `matches[]`), from the type table: its type, an object's members (rows
/// `path.member`; `path.*` types a map's values), an array's items (row
/// `path[]`, or members `path[].member`), recursively; an object whose
/// members are declared allows no other. `implied`: the type a deeper row
/// gives it when it has no row of its own.
fn complete(command: &str, path: &str, implied: Option<&str>, s: &mut Value) {
    use crate::protocol::field_types::{children, schema_type, type_of};
    let members = children(command, &format!("{path}."));
    let described = s.get("properties").is_some();
    let object = if members.is_empty() && !described {
        "any"
    } else {
        "object"
    };
    let ty = type_of(command, path).or(implied).unwrap_or(object);
    if let Some(t) = schema_type(ty) {
        s["type"] = if t.len() == 1 { json!(t[0]) } else { json!(t) };
    }
    for (member, member_ty) in &members {
        let slot = if *member == "*" {
            &mut s["additionalProperties"]
        } else {
            &mut s["properties"][*member]
        };
        if slot.is_null() {
            *slot = json!({});
        }
        complete(command, &format!("{path}.{member}"), Some(member_ty), slot);
    }
    if s.get("properties").is_some() && s.get("additionalProperties").is_none() {
        s["additionalProperties"] = json!(false);
    }
    let element = format!("{path}[]");
    let declared = type_of(command, &element).is_some()
        || !children(command, &format!("{element}.")).is_empty()
        || s.get("items").is_some();
    if ty.contains("array") && declared {
        let items = &mut s["items"];
        if items.is_null() {
            *items = json!({});
        }
        complete(command, &element, None, items);
    }
}

/// The envelope's `error` member: what every error answer carries (its
/// members typed by the table's `error.` rows).
fn error_schema() -> Value {
    json!({
        "description": "On status error: code, message, exit_code, repairs (aitools commands to run next).",
        "required": ["code", "message", "exit_code", "repairs"],
    })
}

/// The `outputSchema` of a tool that answers any command's envelope (the
/// generic `aitools` tool, `more`): the members every envelope has, the rest
/// open, each command's own being in its tool's schema (`schema <cmd> --full`).
pub fn envelope_schema() -> Value {
    let mut error = error_schema();
    complete("", "error", None, &mut error);
    let mut continuation = json!({
        "description": "When the result was cut for size: call `more` with its arguments for the next part.",
    });
    complete("", "mcp_continuation", None, &mut continuation);
    json!({
        "type": "object",
        "properties": {
            "schema_version": {"type": "integer"},
            "status": {"type": "string", "enum": ["ok", "partial", "error"]},
            "command": {"type": "string", "description": "The command that answered: its own tool's outputSchema declares the rest."},
            "error": error,
            "mcp_continuation": continuation,
        },
        "required": ["schema_version", "status", "command"],
        "additionalProperties": true,
    })
}

/// Members any answer may carry whatever its command (the mask's count, the
/// options read another tool's way, `AITOOLS_INLINE_CONTEXT`'s texts).
const ENVELOPE_MEMBERS: &[&str] = &["redactions", "took", "rules", "skills", "feedback"];

/// `readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`.
pub fn annotations(spec: &CommandSpec) -> Value {
    // Declared in the spec (`CommandSpec::effects`), like the AOI manifest's.
    let read_only = spec.read_only();
    let mut a = json!({
        "title": format!("aitools {}", spec.name),
        "readOnlyHint": read_only,
        "openWorldHint": false,
    });
    if !read_only {
        let e = spec.effects;
        a["destructiveHint"] =
            Value::Bool(e.destructive || ((spec.writes_files() || e.side_effects) && !e.additive));
        a["idempotentHint"] = Value::Bool(e.idempotent);
    } else {
        a["idempotentHint"] = Value::Bool(true);
    }
    a
}

/// The argv (without `aitools`) for a tool call, or why the arguments do not fit
/// the tool's `inputSchema`.
pub fn argv_for(spec: &CommandSpec, args: &Map<String, Value>) -> Result<Vec<String>, String> {
    let fresh;
    let props: &[Prop] = match kept_props(spec) {
        Some(p) => p,
        None => {
            fresh = props(spec);
            &fresh
        }
    };
    for k in args.keys() {
        if !props.iter().any(|p| &p.name == k) {
            let names: Vec<&str> = props.iter().map(|p| p.name.as_str()).collect();
            return Err(format!(
                "{} has no argument {k}; it takes: {}.",
                tool_name(spec),
                names.join(", ")
            ));
        }
    }
    let mut argv: Vec<String> = spec.name.split(' ').map(String::from).collect();
    let mut positionals: Vec<String> = Vec::new();
    for p in props {
        let Some(v) = args.get(&p.name) else {
            if p.required {
                return Err(format!(
                    "{} requires the argument {}.",
                    tool_name(spec),
                    p.name
                ));
            }
            continue;
        };
        if v.is_null() {
            continue;
        }
        let bad = |want: &str| format!("{}: {} must be {want}.", tool_name(spec), p.name);
        let values: Vec<String> = match p.kind {
            Kind::Flag => match v {
                Value::Bool(true) => {
                    argv.push(p.long.clone().unwrap_or_default());
                    continue;
                }
                Value::Bool(false) => continue,
                _ => return Err(bad("a boolean")),
            },
            Kind::Scalar { .. } => vec![scalar(v).ok_or_else(|| bad("a string or number"))?],
            Kind::Pair => match v.as_array() {
                Some(a) if a.len() == 2 => a
                    .iter()
                    .map(scalar)
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| bad("an array of two strings"))?,
                _ => return Err(bad("an array of two strings")),
            },
            Kind::List { .. } => match v {
                Value::Array(a) => a
                    .iter()
                    .map(scalar)
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| bad("an array of strings"))?,
                other => vec![scalar(other).ok_or_else(|| bad("an array of strings"))?],
            },
        };
        match &p.long {
            None => positionals.extend(values),
            Some(long) if p.kind == Kind::Pair => {
                argv.push(long.clone());
                argv.extend(values);
            }
            Some(long) => {
                // `--flag=value`: a value that starts with '-' stays a value.
                for v in values {
                    argv.push(format!("{long}={v}"));
                }
            }
        }
    }
    if !positionals.is_empty() {
        argv.push("--".to_string());
        argv.extend(positionals);
    }
    Ok(argv)
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tool's inputSchema and the parser agree: each property, given a
    /// value, becomes an argv clap accepts for that command, and every argument
    /// the command declares (but the globals and --stdin) is a property.
    #[test]
    fn every_tool_schema_matches_its_parser() {
        for spec in served(crate::registry::LIST) {
            let schema = input_schema(spec);
            let props_obj = schema["properties"].as_object().unwrap();
            let cmd = spec.clap_command();
            let declared: Vec<String> = cmd
                .get_arguments()
                .filter(|a| !a.is_hide_set() && !is_global_arg(a.get_id().as_str()))
                .filter(|a| a.get_long() != Some("stdin"))
                .map(|a| a.get_id().to_string())
                .collect();
            let ps = props(spec);
            assert_eq!(ps.len(), declared.len(), "{}", spec.name);
            assert_eq!(
                ps.len(),
                props_obj.len(),
                "{} has two properties of one name",
                spec.name
            );
            for p in &ps {
                assert!(declared.contains(&p.id), "{}", spec.name);
                let s = &props_obj[&p.name];
                assert!(s.get("oneOf").is_none() && s.get("$ref").is_none());
                let mut args = Map::new();
                args.insert(p.name.clone(), sample(p, &props_obj[&p.name]));
                // Required arguments need a value for the parse to get to this one.
                for q in &ps {
                    if q.required && q.name != p.name {
                        args.insert(q.name.clone(), sample(q, &props_obj[&q.name]));
                    }
                }
                let argv = argv_for(spec, &args).unwrap();
                let full = std::iter::once("aitools".to_string()).chain(argv.clone());
                let parsed = crate::cli::build_for(&crate::cli::command_words(&argv))
                    .try_get_matches_from(full);
                if let Err(e) = parsed {
                    use clap::error::ErrorKind::*;
                    assert!(
                        !matches!(
                            e.kind(),
                            UnknownArgument | TooManyValues | WrongNumberOfValues | InvalidValue
                        ),
                        "{}: {} as {argv:?}: {e}",
                        spec.name,
                        p.name
                    );
                }
            }
            for top in ["oneOf", "anyOf", "allOf", "$ref"] {
                assert!(schema.get(top).is_none());
            }
            assert_eq!(schema["type"], "object");
        }
    }

    fn sample(p: &Prop, s: &Value) -> Value {
        match p.kind {
            Kind::Flag => json!(true),
            Kind::Scalar { integer: true } => json!(3),
            Kind::Scalar { .. } => s
                .get("enum")
                .and_then(|e| e.get(0))
                .cloned()
                .unwrap_or(json!("-x y")),
            Kind::Pair => json!(["a", "b"]),
            Kind::List { integer: true } => json!([1, 2]),
            Kind::List { .. } => match s["items"].get("enum").and_then(Value::as_array) {
                Some(names) => Value::Array(names.iter().take(2).cloned().collect()),
                None => json!(["x", "-y"]),
            },
        }
    }

    #[test]
    fn root_uris_decode_without_panicking() {
        assert_eq!(crate::mcp::percent_decode("/a%20b/%C3%A9"), "/a b/é");
        assert_eq!(crate::mcp::percent_decode("/x%é%2"), "/x%é%2");
        assert_eq!(crate::mcp::percent_decode("%"), "%");
    }

    #[test]
    fn tool_names_are_snake_case_and_unique() {
        let mut names: Vec<String> = super::super::compact::tools(
            crate::registry::LIST,
            super::super::compact::ToolSet::All,
        )
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
        assert!(names.contains(&"code_outline".to_string()));
        assert!(names.contains(&"tx_commit".to_string()));
        assert!(names.iter().all(|n| identifier(n)));
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(n, names.len());
    }
}
