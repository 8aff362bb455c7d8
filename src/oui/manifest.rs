//! The OUI manifests (seed 002 §3–§6), generated from `data/oui-surfaces.tsv` and
//! the one command registry: each action's `input` is the MCP tool's
//! `inputSchema` (`mcp::tools::input_schema`) cut to the table's parameters and
//! bounded (§9.3.2), its `output` and each observation's `schema` the MCP
//! `outputSchema` (the command's envelope); `tags` and `confirm` follow the
//! spec's effects and the table. Also the code map (aitools error code → OUI
//! standard code) and how an action or observation becomes an argv.

use crate::mcp::tools::{argv_for, input_schema, output_schema, tool_name};
use crate::protocol::host::{CommandList, VERSION};
use crate::protocol::registry::CommandSpec;
use serde_json::{Map, Value, json};

/// The table, compiled in.
const TABLE: &str = include_str!("../../data/oui-surfaces.tsv");

/// The OUI version the manifests follow.
pub const OUI_VERSION: &str = "0.1.0";

/// Longest string a parameter takes (§9.3.2: strings bounded).
pub const MAX_STRING: u64 = 4096;
/// Most items an array parameter takes (§9.3.2: arrays bounded).
pub const MAX_ITEMS: u64 = 256;

/// One `action` row, resolved against the registry.
#[derive(Clone)]
pub struct Action {
    pub id: String,
    pub spec: &'static CommandSpec,
    /// Kept MCP argument names and whether each is required here.
    pub params: Vec<(String, bool)>,
    /// Arguments always passed (`--dry-run`).
    pub fixed: Vec<String>,
    pub confirm: bool,
    pub duration: String,
    pub usage: String,
}

/// When an observation's value is looked at again.
#[derive(Debug, Clone, PartialEq)]
pub enum Watch {
    /// State-directory paths whose stat (size, mtime, inode; `dir/*` also its
    /// entries') is the cheap change check.
    Paths(Vec<String>),
    /// Re-run every this many seconds (its files are not the workspace's).
    Every(u64),
    /// Only on `observation:request` (and at registration).
    Polling,
}

/// One `observe` row, resolved against the registry.
#[derive(Clone)]
pub struct Observation {
    pub id: String,
    pub spec: &'static CommandSpec,
    pub fixed: Vec<String>,
    pub frequency: String,
    pub watch: Watch,
    pub description: String,
}

/// One surface: its rows, resolved.
#[derive(Clone)]
pub struct Surface {
    pub id: String,
    pub name: String,
    pub description: String,
    pub actions: Vec<Action>,
    pub observations: Vec<Observation>,
}

/// What is wrong with a table row (a test reads every row; the binary skips).
#[derive(Debug)]
pub struct BadRow(pub String);

fn cell(c: &str) -> &str {
    if c == "-" { "" } else { c }
}

fn words(c: &str) -> Vec<String> {
    cell(c).split_whitespace().map(String::from).collect()
}

/// Every surface of the table whose commands are registered. A `pending`
/// surface's rows naming a missing command are left out (and the surface when
/// none is left); anywhere else a missing command is a `BadRow`.
pub fn surfaces(list: CommandList) -> Result<Vec<Surface>, BadRow> {
    let mut out: Vec<(Surface, bool)> = Vec::new();
    for (n, line) in TABLE.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let c: Vec<&str> = line.split('\t').collect();
        let bad = |why: &str| BadRow(format!("data/oui-surfaces.tsv:{}: {why}", n + 1));
        let find_surface = |out: &mut Vec<(Surface, bool)>, id: &str| -> Option<usize> {
            out.iter().position(|(s, _)| s.id == id)
        };
        match c[0] {
            "surface" if c.len() >= 4 => out.push((
                Surface {
                    id: c[1].to_string(),
                    name: c[2].to_string(),
                    description: c[3].to_string(),
                    actions: Vec::new(),
                    observations: Vec::new(),
                },
                c.get(4) == Some(&"pending"),
            )),
            "action" if c.len() == 9 => {
                let i = find_surface(&mut out, c[1]).ok_or_else(|| bad("unknown surface"))?;
                let Some(spec) = list.find(c[3]) else {
                    if out[i].1 {
                        continue;
                    }
                    return Err(bad(&format!("no command {}", c[3])));
                };
                out[i].0.actions.push(action_row(&c, spec, &bad)?);
            }
            "observe" if c.len() == 8 => {
                let i = find_surface(&mut out, c[1]).ok_or_else(|| bad("unknown surface"))?;
                let Some(spec) = list.find(c[3]) else {
                    if out[i].1 {
                        continue;
                    }
                    return Err(bad(&format!("no command {}", c[3])));
                };
                out[i].0.observations.push(observe_row(&c, spec, &bad)?);
            }
            "code" if c.len() == 3 => {}
            _ => return Err(bad("not a surface, action, observe or code row")),
        }
    }
    Ok(out
        .into_iter()
        .map(|(s, _)| s)
        .filter(|s| !s.actions.is_empty())
        .collect())
}

/// An `action` row: its params (`*` for every argument the command takes, `!`
/// for required), checked against the command's input schema.
fn action_row(
    c: &[&str],
    spec: &'static CommandSpec,
    bad: &dyn Fn(&str) -> BadRow,
) -> Result<Action, BadRow> {
    let tool = tool_name(spec);
    if c[2] != tool && !c[2].starts_with(&format!("{tool}_")) {
        return Err(bad("an action id is its command's tool name (+ _suffix)"));
    }
    let params = match cell(c[4]) {
        "*" => Vec::new(),
        p => p
            .split(',')
            .filter(|s| !s.is_empty())
            .map(|s| match s.strip_suffix('!') {
                Some(s) => (s.to_string(), true),
                None => (s.to_string(), false),
            })
            .collect(),
    };
    let all = c[4] == "*";
    let known = input_schema(spec);
    let params = if all {
        known["properties"]
            .as_object()
            .map(|m| m.keys().map(|k| (k.clone(), false)).collect())
            .unwrap_or_default()
    } else {
        params
    };
    for (p, _) in &params {
        if known["properties"].get(p).is_none() {
            return Err(bad(&format!("{} has no argument {p}", c[3])));
        }
    }
    Ok(Action {
        id: c[2].to_string(),
        spec,
        params,
        fixed: words(c[5]),
        confirm: match c[6] {
            "yes" => true,
            "no" => false,
            _ => return Err(bad("confirm is yes or no")),
        },
        duration: c[7].to_string(),
        usage: cell(c[8]).to_string(),
    })
}

/// An `observe` row: its watch (`every:N`, paths, or polling).
fn observe_row(
    c: &[&str],
    spec: &'static CommandSpec,
    bad: &dyn Fn(&str) -> BadRow,
) -> Result<Observation, BadRow> {
    let watch = match cell(c[6]) {
        "" => Watch::Polling,
        w => match w.strip_prefix("every:") {
            Some(n) => Watch::Every(n.parse().map_err(|_| bad("every:N seconds"))?),
            None => Watch::Paths(w.split(',').map(String::from).collect()),
        },
    };
    Ok(Observation {
        id: c[2].to_string(),
        spec,
        fixed: words(c[4]),
        frequency: c[5].to_string(),
        watch,
        description: c[7].to_string(),
    })
}

/// The OUI standard code for a failed command's aitools error code.
pub fn oui_code(aitools_code: &str) -> &'static str {
    for line in TABLE.lines().filter(|l| l.starts_with("code\t")) {
        let c: Vec<&str> = line.split('\t').collect();
        let [_, pat, oui] = c[..] else { continue };
        let hit = match pat.strip_suffix('*') {
            Some(prefix) => aitools_code.starts_with(prefix),
            None => aitools_code == pat,
        };
        if hit {
            return match oui {
                "PRECONDITION_FAILED" => "PRECONDITION_FAILED",
                "TIMEOUT" => "TIMEOUT",
                "ACTION_DENIED" => "ACTION_DENIED",
                "VALIDATION_ERROR" => "VALIDATION_ERROR",
                _ => "EXECUTION_ERROR",
            };
        }
    }
    "EXECUTION_ERROR"
}

/// `s` bounded: strings get `maxLength`, arrays `maxItems` (and their items'
/// strings `maxLength`), unless already bounded tighter.
fn bounded(mut s: Value) -> Value {
    match s.get("type").and_then(Value::as_str) {
        Some("string") if s.get("enum").is_none() && s.get("maxLength").is_none() => {
            s["maxLength"] = json!(MAX_STRING);
        }
        Some("array") => {
            if s.get("maxItems").is_none() {
                s["maxItems"] = json!(MAX_ITEMS);
            }
            if let Some(items) = s.get_mut("items") {
                *items = bounded(items.take());
            }
        }
        _ => {}
    }
    s
}

impl Action {
    /// The action's `input`: the MCP tool's `inputSchema` cut to `params`,
    /// bounded, with this surface's required set.
    pub fn input(&self) -> Value {
        let full = input_schema(self.spec);
        let mut props = Map::new();
        let mut required = Vec::new();
        for (p, req) in &self.params {
            if let Some(s) = full["properties"].get(p) {
                props.insert(p.clone(), bounded(s.clone()));
            }
            let was = full["required"]
                .as_array()
                .is_some_and(|r| r.iter().any(|x| x == p.as_str()));
            if *req || was {
                required.push(json!(p));
            }
        }
        let mut s = json!({"type": "object", "properties": props, "additionalProperties": false});
        if !required.is_empty() {
            s["required"] = Value::Array(required);
        }
        s
    }

    pub fn tags(&self) -> Vec<&'static str> {
        if self.fixed.iter().any(|f| f == "--dry-run") || self.spec.read_only() {
            return vec!["read-only"];
        }
        let mut t = vec!["write"];
        let e = self.spec.effects;
        if e.destructive || self.confirm {
            t.push("destructive");
        }
        t
    }

    fn manifest(&self) -> Value {
        let mut a = json!({
            "id": self.id,
            "description": self.spec.summary,
            "input": self.input(),
            "output": output_schema(self.spec),
            "confirm": self.confirm,
            "async": false,
        });
        if !self.usage.is_empty() {
            a["usage"] = json!(self.usage);
        }
        a["estimatedDuration"] = json!(self.duration);
        a["tags"] = json!(self.tags());
        a
    }

    /// The argv (without `aitools`) for `params`, which passed the input
    /// schema; `Err` says why they do not fit.
    pub fn argv(&self, params: &Map<String, Value>) -> Result<Vec<String>, String> {
        let mut argv = argv_for(self.spec, params)?;
        let at = argv.iter().position(|a| a == "--").unwrap_or(argv.len());
        argv.splice(at..at, self.fixed.iter().cloned());
        Ok(argv)
    }
}

impl Observation {
    /// The argv (without `aitools`) that computes the value.
    pub fn argv(&self) -> Vec<String> {
        let mut v: Vec<String> = self.spec.name.split(' ').map(String::from).collect();
        v.extend(self.fixed.iter().cloned());
        v
    }

    fn manifest(&self) -> Value {
        let mut schema = output_schema(self.spec);
        schema["description"] = json!(format!(
            "The envelope of `aitools {}`.",
            self.argv().join(" ")
        ));
        json!({
            "id": self.id,
            "description": self.description,
            "schema": schema,
            "updateFrequency": self.frequency,
        })
    }
}

impl Surface {
    /// The manifest (§3): schema only, no handlers. `metadata` is added as is.
    pub fn manifest(&self, metadata: &Map<String, Value>) -> Value {
        let mut meta = Map::new();
        meta.insert("tool".into(), json!("aitools"));
        meta.insert("toolVersion".into(), json!(VERSION));
        meta.insert("ouiVersion".into(), json!(OUI_VERSION));
        for (k, v) in metadata {
            meta.insert(k.clone(), v.clone());
        }
        json!({
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "version": VERSION,
            "actions": self.actions.iter().map(Action::manifest).collect::<Vec<_>>(),
            "observations": self.observations.iter().map(Observation::manifest).collect::<Vec<_>>(),
            "metadata": meta,
        })
    }

    pub fn action(&self, id: &str) -> Option<&Action> {
        self.actions.iter().find(|a| a.id == id)
    }

    pub fn observation(&self, id: &str) -> Option<&Observation> {
        self.observations.iter().find(|o| o.id == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_resolves_and_ids_are_unique() {
        let list = crate::registry::LIST;
        let all = surfaces(list).unwrap();
        let ids: Vec<&str> = all.iter().map(|s| s.id.as_str()).collect();
        for want in [
            "journal",
            "transactions",
            "recovery",
            "feedback",
            "programs",
        ] {
            assert!(ids.contains(&want), "{want}");
        }
        for s in &all {
            let mut names: Vec<&str> = s.actions.iter().map(|a| a.id.as_str()).collect();
            names.extend(s.observations.iter().map(|o| o.id.as_str()));
            let n = names.len();
            names.sort();
            names.dedup();
            assert_eq!(n, names.len(), "{}", s.id);
        }
    }

    #[test]
    fn codes_map_to_the_standard_ones() {
        assert_eq!(oui_code("selection.ambiguous"), "PRECONDITION_FAILED");
        assert_eq!(oui_code("refusal.target-changed"), "PRECONDITION_FAILED");
        assert_eq!(oui_code("environment.timeout"), "TIMEOUT");
        assert_eq!(oui_code("input.not-found"), "EXECUTION_ERROR");
    }

    #[test]
    fn action_argv_adds_the_fixed_arguments_before_positionals() {
        let all = surfaces(crate::registry::LIST).unwrap();
        let rec = all.iter().find(|s| s.id == "recovery").unwrap();
        let a = rec.action("recover_dry_run").unwrap();
        assert_eq!(a.argv(&Map::new()).unwrap(), ["recover", "--dry-run"]);
        let j = all.iter().find(|s| s.id == "journal").unwrap();
        let mut p = Map::new();
        p.insert("op_id".into(), json!("op-1"));
        assert_eq!(
            j.action("undo").unwrap().argv(&p).unwrap(),
            ["undo", "--", "op-1"]
        );
    }
}
