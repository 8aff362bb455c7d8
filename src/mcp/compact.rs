//! What `tools/list` answers. By default (`--tools core`) a core set of the most
//! used commands with compact descriptions and schemas (their common options
//! listed, every other option still accepted), no outputSchema, and the one
//! generic tool, `aitools`, that runs any command by name through the same
//! call path. `--tools all` lists every command in full, as before.

use super::tools::{annotations, input_schema, output_schema, served, tool_name};
use crate::protocol::host::CommandList;
use crate::protocol::registry::CommandSpec;
use crate::workspace::candidates::edit_distance;
use serde_json::{Map, Value, json};

/// The generic tool: `{command: "git log", args: {...}}` runs any command.
pub const GENERIC_TOOL: &str = "aitools";

/// Which tools `tools/list` names (every command is callable either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ToolSet {
    /// The core tools, compact, and `aitools` for the rest.
    #[default]
    Core,
    /// Every command with its full schemas.
    All,
}

/// The core tools (registry names) and the properties each lists; required
/// properties are always listed, and the others are accepted unlisted.
const CORE: &[(&str, &[&str])] = &[
    (
        "read",
        &[
            "path",
            "range",
            "tail",
            "match",
            "between",
            "symbol",
            "max_lines",
        ],
    ),
    (
        "search",
        &[
            "pattern",
            "paths",
            "glob",
            "lang",
            "fixed",
            "ignore_case",
            "word",
            "context",
            "limit",
            "output",
        ],
    ),
    (
        "find",
        &["pattern", "path", "glob", "type", "depth", "limit", "sort"],
    ),
    ("code outline", &["path"]),
    ("info", &["path"]),
    (
        "edit",
        &[
            "path",
            "old",
            "new",
            "range",
            "symbol",
            "expect_hash",
            "dry_run",
        ],
    ),
    ("write", &["path", "content", "overwrite", "expect_hash"]),
    (
        "replace",
        &["args", "fixed", "glob", "ignore_case", "word", "dry_run"],
    ),
    ("apply", &["stdin_data", "strip", "dry_run"]),
    ("undo", &["op_id"]),
    ("git status", &["path"]),
    ("git diff", &["path", "ref", "staged"]),
    ("git log", &["path", "rev", "limit"]),
    ("run", &["argv", "timeout", "tail", "grep"]),
];

/// The longest description a listed tool carries (hosts cut or refuse longer).
pub const MAX_DESCRIPTION: usize = 1024;
const CORE_DESCRIPTION: usize = 300;
const CORE_PROPERTY: usize = 80;

/// Every tool, as `tools/list` answers for this set.
pub fn tools(list: CommandList, set: ToolSet) -> Vec<Value> {
    let mut v: Vec<Value> = match set {
        ToolSet::All => served(list).map(full_tool).collect(),
        ToolSet::Core => core(list).map(|(s, keep)| core_tool(s, keep)).collect(),
    };
    // Under --tools all every command is its own tool: the generic tool names none
    // (the list would only repeat them, past a host's 1,024-character cut).
    let listed: Vec<&str> = match set {
        ToolSet::All => served(list).map(|s| s.name).collect(),
        ToolSet::Core => core(list).map(|(s, _)| s.name).collect(),
    };
    let others: Vec<&str> = served(list)
        .map(|s| s.name)
        .filter(|n| !listed.contains(n))
        .collect();
    let mut tail = [generic_tool(&others), more_tool()];
    // The full list declares every tool's answer; the core one none (economy).
    if set == ToolSet::All {
        for t in &mut tail {
            t["outputSchema"] = super::tools::envelope_schema();
        }
    }
    v.extend(tail);
    v
}

fn core(
    list: CommandList,
) -> impl Iterator<Item = (&'static CommandSpec, &'static [&'static str])> {
    CORE.iter()
        .filter_map(move |(name, keep)| served(list).find(|s| s.name == *name).map(|s| (s, *keep)))
}

fn full_tool(spec: &CommandSpec) -> Value {
    json!({
        "name": tool_name(spec),
        "title": format!("aitools {}", spec.name),
        "description": sentences(&format!("{} {}", spec.summary, spec.description), MAX_DESCRIPTION),
        "inputSchema": input_schema(spec),
        "outputSchema": output_schema(spec),
        "annotations": annotations(spec),
    })
}

/// A core tool: the first sentences, the listed properties with their first
/// clause (no `--flag:` prefix), the rest left open.
fn core_tool(spec: &CommandSpec, keep: &[&str]) -> Value {
    let mut schema = input_schema(spec);
    let required: Vec<Value> = schema["required"].as_array().cloned().unwrap_or_default();
    if let Some(props) = schema["properties"].as_object_mut() {
        props.retain(|k, _| keep.contains(&k.as_str()) || required.contains(&json!(k)));
        for p in props.values_mut() {
            let d = p["description"].as_str().unwrap_or_default();
            let d = match d.strip_prefix("--").and_then(|r| r.split_once(": ")) {
                Some((_, rest)) => rest,
                None => d,
            };
            match clip(d, CORE_PROPERTY) {
                d if d.is_empty() => p.as_object_mut().map(|o| o.remove("description")),
                d => p
                    .as_object_mut()
                    .map(|o| o.insert("description".into(), Value::String(d))),
            };
        }
    }
    if let Some(o) = schema.as_object_mut() {
        o.remove("additionalProperties");
    }
    let mut annotations = annotations(spec);
    if let Some(a) = annotations.as_object_mut() {
        a.remove("title");
    }
    let text = format!("{} {}", spec.summary, spec.description);
    json!({
        "name": tool_name(spec),
        "description": sentences(&text, CORE_DESCRIPTION),
        "inputSchema": schema,
        "annotations": annotations,
    })
}

fn generic_tool(others: &[&str]) -> Value {
    let mut d = String::from(
        "Run any aitools command: {\"command\":\"json get\",\"args\":{\"path\":\"a.json\",\"pointer\":\"/a\"}}. args: its options and positionals as snake_case properties (--max-lines 5 is \"max_lines\":5, a flag true); any option of a listed tool works too. Answer: its envelope. Its args: {\"command\":\"schema\",\"args\":{\"commands\":[\"git show\"]}}.",
    );
    if !others.is_empty() {
        // Every name while they fit; past the budget a group's subcommands are
        // one `schema <group>` away (`json *`).
        let full = format!(" Commands: {}.", grouped(others, false));
        if d.len() + full.len() <= MAX_DESCRIPTION {
            d.push_str(&full);
        } else {
            d.push_str(" Commands (GROUP *: schema GROUP lists them): ");
            d.push_str(&grouped(others, true));
            d.push('.');
        }
    }
    json!({
        "name": GENERIC_TOOL,
        "description": d,
        "inputSchema": {
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The command as typed: \"git log\", \"json get\""},
                "args": {"type": "object", "description": "Its arguments, as its own tool would take them"},
            },
            "required": ["command"],
            "additionalProperties": false,
        },
        "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false},
    })
}

/// `git blame, git diff, read` as `git blame|diff, read`: the list grows with every
/// command, and a host cuts or refuses a description past 1,024 characters.
fn grouped(commands: &[&str], collapse: bool) -> String {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for command in commands {
        let (head, rest) = command.split_once(' ').unwrap_or((command, ""));
        match groups.iter_mut().find(|(h, _)| *h == head) {
            Some((_, subs)) => subs.push(rest),
            None => groups.push((head, vec![rest])),
        }
    }
    let parts: Vec<String> = groups
        .into_iter()
        .map(|(head, subs)| match subs.as_slice() {
            [""] => head.to_string(),
            _ if collapse => format!("{head} *"),
            _ => format!("{head} {}", subs.join("|")),
        })
        .collect();
    parts.join(", ")
}

fn more_tool() -> Value {
    json!({
        "name": super::MORE_TOOL,
        "description": "The next part of a result cut for size: call with its mcp_continuation.arguments.cursor.",
        "inputSchema": {
            "type": "object",
            "properties": {"cursor": {"type": "string", "description": "mcp_continuation.arguments.cursor of the cut result"}},
            "required": ["cursor"],
            "additionalProperties": false,
        },
        "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false},
    })
}

/// The command a generic call names and its arguments, or why it names none.
pub fn resolve(
    list: CommandList,
    args: &Map<String, Value>,
) -> Result<(&'static CommandSpec, Map<String, Value>), String> {
    for k in args.keys() {
        if k != "command" && k != "args" {
            return Err(format!(
                "{GENERIC_TOOL} takes command and args, not {k}; put the command's arguments in args."
            ));
        }
    }
    let Some(command) = args.get("command").and_then(Value::as_str) else {
        return Err(format!(
            "{GENERIC_TOOL} needs command, a command name such as \"git log\"."
        ));
    };
    let words = command.split_whitespace().collect::<Vec<_>>().join(" ");
    let Some(spec) = served(list).find(|s| s.name == words || tool_name(s) == words) else {
        let near = served(list)
            .filter_map(|s| edit_distance(&words, s.name, 3).map(|d| (d, s.name)))
            .min();
        return Err(match near {
            Some((_, name)) => format!("No command {command:?}; did you mean {name:?}?"),
            None => {
                format!("No command {command:?}; the {GENERIC_TOOL} tool's description lists them.")
            }
        });
    };
    let inner = match args.get("args") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return Err(format!("{GENERIC_TOOL}: args must be an object.")),
    };
    Ok((spec, inner))
}

/// The whole sentences of `text` that fit in `max` characters (at least the
/// first, clipped).
fn sentences(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut end = 0;
    for (i, _) in text.match_indices(". ") {
        if text[..=i].chars().count() > max {
            break;
        }
        end = i + 1;
    }
    if end == 0 {
        return clip(text, max);
    }
    text[..end].to_string()
}

/// `text` cut to `max` characters: before its last clause end (`. `, `; `) or
/// parenthesis that fits, else at a word, marked with `…`; never inside an
/// unclosed parenthesis when a cut before it fits.
fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max - 1).collect();
    let floor = max / 3;
    let clause = text
        .match_indices(['.', ';', '('])
        .filter(|&(i, m)| {
            i > floor && i < cut.len() && (m == "(" || text[i + 1..].starts_with(' '))
        })
        .map(|(i, _)| i)
        .next_back();
    let out = match clause {
        Some(i) => text[..i].trim_end().to_string(),
        None if text[cut.len()..].starts_with(' ') => format!("{cut}…"),
        None => match cut.rfind(' ') {
            Some(i) if i > floor => format!("{}…", &cut[..i]),
            _ => format!("{cut}…"),
        },
    };
    match out.rfind('(') {
        Some(i) if i > 3 && !out[i..].contains(')') => out[..i].trim_end().to_string(),
        _ => out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_core_property_is_one_its_command_takes() {
        let list = crate::registry::LIST;
        assert_eq!(
            core(list).count(),
            CORE.len(),
            "a core name is not a command"
        );
        for (spec, keep) in core(list) {
            let schema = input_schema(spec);
            for k in keep {
                assert!(schema["properties"].get(*k).is_some(), "{}: {k}", spec.name);
            }
        }
    }

    #[test]
    fn clipping_keeps_whole_sentences_and_clauses() {
        assert_eq!(sentences("A b. C d. E f.", 10), "A b. C d.");
        assert_eq!(sentences("Short.", 10), "Short.");
        assert_eq!(clip("one two three four five six", 14), "one two three…");
        assert_eq!(
            clip("Lines (1-based) and the rest of it", 20),
            "Lines (1-based) and…"
        );
        assert_eq!(
            clip("Only paths (wildmatch; `!` excludes, more) here", 40),
            "Only paths"
        );
        assert_eq!(
            clip("Guard: HASH or PATH=HASH; refusal.target-changed if", 45),
            "Guard: HASH or PATH=HASH"
        );
        assert_eq!(
            clip("The pattern. When --pattern or --stdin is given", 30),
            "The pattern"
        );
        assert!(clip("ééééééééééé", 5).chars().count() <= 5);
    }
}
