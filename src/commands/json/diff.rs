//! `json diff`: the semantic difference of two JSON files as RFC 6902-style
//! operations (add, remove, replace) by RFC 6901 pointer. Member order and
//! whitespace are ignored, numbers compare by value, array elements by index.

use super::file::{self, JsonFile, READ_CODES};
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, shell};
use crate::text::json_doc::{self, Kind, Node};
use crate::workspace::Ctx;
use clap::Args;

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// Old JSON file.
    #[arg(value_name = "A")]
    pub a: String,
    /// New JSON file.
    #[arg(value_name = "B")]
    pub b: String,
    /// Maximum operations returned.
    #[arg(long, default_value_t = 100, alias = "max-changes")]
    pub limit: usize,
}

pub const DIFF: CommandSpec = CommandSpec {
    name: "json diff",
    summary: "Add, remove and replace operations between two JSON files, by pointer.",
    description: "Member order and whitespace are ignored; numbers compare by value; array elements compare by index (extra elements are added or removed at the end, removals listed from the last index). A replace carries old and new, an add new, a remove old. Past --limit the list is cut (status partial, exit 3) and next_commands asks for all of it.",
    args: <DiffArgs as clap::Args>::augment_args,
    output_fields: &[
        field("identical", "True when the documents are equal as JSON."),
        field(
            "ops",
            "[{op,pointer,old?,new?}]; op is add, remove or replace.",
        ),
        field("total", "Operations in the whole difference."),
        field("truncated", "True when --limit cut ops."),
        field(
            "next_commands",
            "The same diff with a --limit that holds it all.",
        ),
    ],
    error_codes: READ_CODES,
    writes: false,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(DiffArgs, run),
};

/// The operations found so far: the first `limit` kept, all counted.
struct Ops<'a> {
    asrc: &'a str,
    bsrc: &'a str,
    limit: usize,
    kept: Vec<Json>,
    total: usize,
}

impl Ops<'_> {
    fn push(&mut self, op: &str, path: &[String], old: Option<&Node>, new: Option<&Node>) {
        self.total += 1;
        if self.kept.len() >= self.limit {
            return;
        }
        let mut o = Json::obj();
        o.push("op", Json::str(op));
        o.push("pointer", Json::str(json_doc::pointer_of(path)));
        if let Some(n) = old {
            o.push("old", n.to_json(self.asrc));
        }
        if let Some(n) = new {
            o.push("new", n.to_json(self.bsrc));
        }
        self.kept.push(o);
    }

    /// Compares `a` (old) with `b` (new) at `path`.
    fn walk(&mut self, path: &mut Vec<String>, a: &Node, b: &Node) {
        match (&a.kind, &b.kind) {
            (Kind::Obj(_), Kind::Obj(_)) => self.objects(path, a, b),
            (Kind::Arr(x), Kind::Arr(y)) => self.arrays(path, x, y),
            _ => {
                if !json_doc::equal(a, self.asrc, b, self.bsrc) {
                    self.push("replace", path, Some(a), Some(b));
                }
            }
        }
    }

    fn objects(&mut self, path: &mut Vec<String>, a: &Node, b: &Node) {
        for key in unique_keys(a) {
            let (Some(old), new) = (a.member(&key), b.member(&key)) else {
                continue;
            };
            path.push(key);
            match new {
                Some(new) => self.walk(path, old, new),
                None => self.push("remove", path, Some(old), None),
            }
            path.pop();
        }
        for key in unique_keys(b) {
            if a.member(&key).is_some() {
                continue;
            }
            if let Some(new) = b.member(&key) {
                path.push(key);
                self.push("add", path, None, Some(new));
                path.pop();
            }
        }
    }

    fn arrays(&mut self, path: &mut Vec<String>, x: &[Node], y: &[Node]) {
        for (i, (p, q)) in x.iter().zip(y.iter()).enumerate() {
            path.push(i.to_string());
            self.walk(path, p, q);
            path.pop();
        }
        // Removals from the last index, so the list applies in order.
        for i in (y.len()..x.len()).rev() {
            path.push(i.to_string());
            self.push("remove", path, Some(&x[i]), None);
            path.pop();
        }
        for (i, q) in y.iter().enumerate().skip(x.len()) {
            path.push(i.to_string());
            self.push("add", path, None, Some(q));
            path.pop();
        }
    }
}

/// An object's member names, each once, in first-seen order.
fn unique_keys(n: &Node) -> Vec<String> {
    let Kind::Obj(m) = &n.kind else {
        return Vec::new();
    };
    let mut seen = std::collections::HashSet::new();
    m.iter()
        .filter(|x| seen.insert(x.key.as_str()))
        .map(|x| x.key.clone())
        .collect()
}

fn load_read(ctx: &Ctx, arg: &str) -> Result<JsonFile, CmdError> {
    let abs = ctx.path_arg(arg)?;
    let f = file::load(ctx, arg, abs)?;
    ctx.files().record_read(&f.abs)?;
    Ok(f)
}

pub fn run(ctx: &Ctx, a: &DiffArgs) -> Result<Output, CmdError> {
    let old = load_read(ctx, &a.a)?;
    let new = load_read(ctx, &a.b)?;
    let mut ops = Ops {
        asrc: &old.text,
        bsrc: &new.text,
        limit: a.limit,
        kept: Vec::new(),
        total: 0,
    };
    ops.walk(&mut Vec::new(), &old.root, &new.root);
    let truncated = ops.total > ops.kept.len();
    let mut o = Json::obj();
    o.push("identical", Json::Bool(ops.total == 0));
    o.push("ops", Json::Arr(ops.kept));
    o.push("total", Json::UInt(ops.total as u64));
    o.push("truncated", Json::Bool(truncated));
    if truncated {
        let all = ops.total.to_string();
        let cmd = shell::aitools(["json", "diff", &old.display, &new.display, "--limit", &all]);
        o.push("next_commands", Json::Arr(vec![Json::str(cmd)]));
    }
    Ok(Output::from_json(o, truncated))
}
