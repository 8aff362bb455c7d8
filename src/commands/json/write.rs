//! `json set|delete|merge|patch|fmt`: guarded, journaled writes of a JSON file.
//! Each edit is a span splice (`text::json_doc`), so bytes outside the changed
//! value stay as they were; a patch applies every operation or none.

use super::file::{self, JsonFile};
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects};
use crate::protocol::{CmdError, Output, Repair, code, shell};
use crate::store::guard;
use crate::store::write::{self, Change, WriteRequest};
use crate::text::json_doc::{self, Kind, Node, Style};
use crate::workspace::Ctx;
use crate::workspace::boundary::Final;
use crate::workspace::input::{self, InputLimit};
use clap::Args;

/// `json set` and `json merge` read an input (`--max-input` caps it).
const JSON_WRITE_CODES: &[&str] =
    crate::write_error_codes![code::NOT_UTF8, code::SYNTAX_ERROR, code::TOO_LARGE,];
/// `json delete` and `json fmt` read only the file (held whole: size-capped).
const JSON_FILE_CODES: &[&str] = JSON_WRITE_CODES;
const PATCH_CODES: &[&str] = crate::write_error_codes![
    code::NOT_UTF8,
    code::NO_MATCH,
    code::SYNTAX_ERROR,
    code::TOO_LARGE,
];

/// The shared write guards (`--expect-hash`, `--dry-run`), declared once.
pub type Guarded = crate::protocol::args::Guard;

#[derive(Args, Debug)]
pub struct StdinInput {
    /// Read the input from stdin (never read otherwise).
    #[arg(long)]
    pub stdin: bool,
    /// The --stdin input given inline (history records --stdin writes this way).
    #[arg(long, allow_hyphen_values = true)]
    pub stdin_data: Option<String>,
    #[command(flatten)]
    pub input_limit: InputLimit,
}

impl StdinInput {
    fn text(&self, ctx: &Ctx) -> Result<Option<String>, CmdError> {
        let bytes = if let Some(d) = &self.stdin_data {
            d.as_bytes().to_vec()
        } else if self.stdin {
            input::read_stdin(ctx, self.input_limit.bytes(&ctx.command)?)?
        } else {
            return Ok(None);
        };
        String::from_utf8(bytes).map(Some).map_err(|e| {
            CmdError::new(
                code::NOT_UTF8,
                format!(
                    "The input is not valid UTF-8 (byte {}); JSON is UTF-8.",
                    e.utf8_error().valid_up_to()
                ),
                Repair::new(
                    "schema",
                    "Check how this command takes its input.",
                    shell::aitools(["schema", &ctx.command]),
                ),
            )
        })
    }
}

/// Why an edit could not be made: the tokens that resolved, and the message.
struct Miss {
    resolved: usize,
    why: String,
}

/// One JSON value given as input, parsed (its text kept for rendering).
struct Value {
    text: String,
    node: Node,
}

impl Value {
    /// `text`, which the call gave (not a file: no read repair names it), as JSON;
    /// a syntax error hands back `command`'s arguments.
    fn parse(command: &str, what: &str, text: String) -> Result<Value, CmdError> {
        let node = json_doc::parse(&text).map_err(|e| {
            let (code, why) = match e.over_budget {
                true => (code::TOO_LARGE, "is past aitools' budget for a JSON value"),
                false => (code::SYNTAX_ERROR, "is not valid JSON"),
            };
            let mut d = crate::protocol::Json::obj();
            d.push("line", crate::protocol::Json::UInt(e.line as u64));
            d.push("column", crate::protocol::Json::UInt(e.column as u64));
            d.push("message", crate::protocol::Json::str(e.message.clone()));
            CmdError::new(
                code,
                format!(
                    "{what} {why}: {} at line {}, column {}.",
                    e.message, e.line, e.column
                ),
                crate::protocol::error::schema_repair(command),
            )
            .with_diagnostics(crate::protocol::Json::Arr(vec![d]))
        })?;
        Ok(Value { text, node })
    }
    fn of(n: &Node, src: &str) -> Value {
        let text = src[n.start..n.end].to_string();
        let node = json_doc::parse(&text).unwrap_or(Node {
            start: 0,
            end: 0,
            kind: Kind::Null,
        });
        Value { text, node }
    }
}

/// Sets `tokens` to `v`. `insert` (RFC 6902 add) inserts into an array at an
/// index; otherwise an existing array element is replaced.
fn set_at(text: &str, tokens: &[String], v: &Value, insert: bool) -> Result<String, Miss> {
    let root = json_doc::parse(text).map_err(|e| Miss {
        resolved: 0,
        why: e.message,
    })?;
    let st = Style::of(text, &root);
    if tokens.is_empty() {
        let s = json_doc::Splice {
            at: root.start,
            end: root.end,
            with: json_doc::render(&v.node, &v.text, &st, "", false),
        };
        return Ok(json_doc::apply(text, &s));
    }
    let Some((last, up)) = tokens.split_last() else {
        return Ok(text.to_string());
    };
    let parent = json_doc::lookup(&root, up).map_err(|k| Miss {
        resolved: k,
        why: "its parent does not exist".into(),
    })?;
    let splice = match &parent.kind {
        Kind::Obj(m) => match m.iter().rposition(|x| &x.key == last) {
            Some(i) => json_doc::replace(text, &st, &m[i].value, &v.node, &v.text),
            None => json_doc::insert(text, &st, parent, m.len(), Some(last), &v.node, &v.text),
        },
        Kind::Arr(a) => {
            let i = if last == "-" {
                a.len()
            } else {
                json_doc::index_of(last).ok_or_else(|| Miss {
                    resolved: up.len(),
                    why: format!("{last:?} is not an array index (digits, or - to append)"),
                })?
            };
            if i < a.len() && !insert {
                json_doc::replace(text, &st, &a[i], &v.node, &v.text)
            } else if i <= a.len() {
                json_doc::insert(text, &st, parent, i, None, &v.node, &v.text)
            } else {
                return Err(Miss {
                    resolved: up.len(),
                    why: format!("index {i} is past the array's end ({} elements)", a.len()),
                });
            }
        }
        _ => {
            return Err(Miss {
                resolved: up.len(),
                why: format!(
                    "its parent is {}, not a container",
                    json_doc::with_article(parent.type_name())
                ),
            });
        }
    };
    Ok(json_doc::apply(text, &splice))
}

fn remove_at(text: &str, tokens: &[String]) -> Result<String, Miss> {
    let root = json_doc::parse(text).map_err(|e| Miss {
        resolved: 0,
        why: e.message,
    })?;
    let Some((last, up)) = tokens.split_last() else {
        return Err(Miss {
            resolved: 0,
            why: "the whole document cannot be removed".into(),
        });
    };
    let parent = json_doc::lookup(&root, up).map_err(|k| Miss {
        resolved: k,
        why: "its parent does not exist".into(),
    })?;
    let gone = || Miss {
        resolved: up.len(),
        why: "nothing is there".into(),
    };
    let i = match &parent.kind {
        Kind::Obj(m) => m.iter().rposition(|x| &x.key == last).ok_or_else(gone)?,
        Kind::Arr(a) => json_doc::index_of(last)
            .filter(|i| *i < a.len())
            .ok_or_else(gone)?,
        _ => return Err(gone()),
    };
    Ok(json_doc::apply(text, &json_doc::remove(text, parent, i)))
}

/// The shared write: load under the lock, check the guard, compute, put.
fn write_json(
    ctx: &Ctx,
    path: &str,
    g: &Guarded,
    edit: impl FnOnce(&JsonFile) -> Result<String, CmdError>,
) -> Result<Output, CmdError> {
    let expect = guard::parse_expect_hash(&ctx.command, &g.expect_hash)?;
    let abs = ctx.write_path_arg(path, Final::Follow)?;
    let done = write::submit(ctx, &WriteRequest::new(ctx).dry_run(g.dry.dry_run), || {
        let f = file::load_target(ctx, path, abs.clone())?;
        if let Some(h) = expect.for_target(path, &f.display, true) {
            guard::check_hash(&f.display, h, Some(&f.hash))?;
        }
        let new = edit(&f)?;
        let bytes = |t: &str| f.bytes_of(t);
        Ok::<_, CmdError>(Change::rewrite(
            ctx,
            "The new JSON",
            &f.display,
            &f.abs,
            (&f.text, &new),
            bytes,
        )?)
    })?;
    Ok(done.into_output(Vec::new()))
}

fn miss_error(
    ctx: &Ctx,
    f: &JsonFile,
    tokens: &[String],
    m: Miss,
    code_: &'static str,
) -> CmdError {
    let mut base = file::no_such_pointer(ctx, f, tokens, m.resolved);
    if code_ == code::ARGUMENT_INVALID {
        base.message = format!("{}; {}.", base.message.trim_end_matches('.'), m.why);
        return base;
    }
    CmdError::new(
        code_,
        format!(
            "{}: {} ({}).",
            f.display,
            json_doc::pointer_of(tokens),
            m.why
        ),
        Repair::new(
            "keys",
            "List what is there.",
            shell::aitools([
                "json",
                "get",
                &f.display,
                &json_doc::pointer_of(&tokens[..m.resolved.min(tokens.len())]),
                "--keys",
            ]),
        ),
    )
}

#[derive(Args, Debug)]
pub struct SetArgs {
    /// The JSON file to change.
    #[arg(value_name = "PATH")]
    pub path: String,
    /// RFC 6901 pointer; /- appends to an array.
    #[arg(value_name = "POINTER", allow_hyphen_values = true)]
    pub pointer: String,
    /// The new value as JSON text ('"text"' for a string); or --stdin.
    #[arg(value_name = "VALUE", allow_hyphen_values = true)]
    pub value: Option<String>,
    /// Add the member when the object does not have it (without: selection.no-match).
    #[arg(long)]
    pub create: bool,
    #[command(flatten)]
    pub input: StdinInput,
    #[command(flatten)]
    pub guarded: Guarded,
}

/// `json set` also answers a member it would have to create (no --create).
const JSON_SET_CODES: &[&str] = crate::write_error_codes![
    code::NOT_UTF8,
    code::NO_MATCH,
    code::SYNTAX_ERROR,
    code::TOO_LARGE,
];

pub const SET: CommandSpec = CommandSpec {
    name: "json set",
    summary: "Set the value at a JSON pointer (/- appends).",
    description: "VALUE is JSON text (a string needs its quotes: '\"text\"'). An existing member or element is replaced in place; a member the object does not have is selection.no-match with the close keys as candidates unless --create is given (a typo never adds a member). A new member goes after the object's last one, laid out like its siblings. Bytes outside the changed value stay as they were (key order, indentation, newline style, final newline).",
    args: <SetArgs as clap::Args>::augment_args,
    output_fields: write::WRITE_FIELDS,
    error_codes: JSON_SET_CODES,
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(SetArgs, set),
};

pub fn set(ctx: &Ctx, a: &SetArgs) -> Result<Output, CmdError> {
    let tokens = file::pointer(ctx, &a.pointer)?;
    let text = match (a.value.clone(), a.input.text(ctx)?) {
        (Some(v), None) => v,
        (None, Some(v)) => v,
        _ => {
            return Err(CmdError::invalid_argument(
                &ctx.command,
                "Give the value once: as VALUE (JSON text) or with --stdin.",
            ));
        }
    };
    guard::refuse_redacted("The value", Some(&a.path), text.as_bytes())?;
    let v = Value::parse(&ctx.command, "The value", text.clone()).map_err(|e| {
        e.with_first_repair(Repair::new(
            "string",
            "Set it as a JSON string.",
            shell::aitools([
                "json",
                "set",
                &a.path,
                &a.pointer,
                &serde_json::to_string(&text).unwrap_or_default(),
            ]),
        ))
    })?;
    write_json(ctx, &a.path, &a.guarded, |f| {
        if !a.create {
            file::refuse_new_member(ctx, f, &a.pointer, &tokens)?;
        }
        set_at(&f.text, &tokens, &v, false)
            .map_err(|m| miss_error(ctx, f, &tokens, m, code::ARGUMENT_INVALID))
    })
}

#[derive(Args, Debug)]
pub struct DeleteArgs {
    /// The JSON file to change.
    #[arg(value_name = "PATH")]
    pub path: String,
    /// RFC 6901 pointer of the member or element to remove.
    #[arg(value_name = "POINTER", allow_hyphen_values = true)]
    pub pointer: String,
    #[command(flatten)]
    pub guarded: Guarded,
}

pub const DELETE: CommandSpec = CommandSpec {
    name: "json delete",
    summary: "Delete the value at a JSON pointer.",
    description: "The member or element goes with the separator that belongs to it; the rest of the file stays byte for byte.",
    args: <DeleteArgs as clap::Args>::augment_args,
    output_fields: write::WRITE_FIELDS,
    error_codes: JSON_FILE_CODES,
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(DeleteArgs, delete),
};

pub fn delete(ctx: &Ctx, a: &DeleteArgs) -> Result<Output, CmdError> {
    let tokens = file::pointer(ctx, &a.pointer)?;
    if tokens.is_empty() {
        return Err(CmdError::new(
            code::ARGUMENT_INVALID,
            "json delete removes a member or an element; the pointer \"\" is the whole document.",
            Repair::new(
                "delete",
                "Delete the file itself instead.",
                shell::aitools(["delete", &a.path]),
            ),
        ));
    }
    write_json(ctx, &a.path, &a.guarded, |f| {
        remove_at(&f.text, &tokens)
            .map_err(|m| miss_error(ctx, f, &tokens, m, code::ARGUMENT_INVALID))
    })
}

#[derive(Args, Debug)]
pub struct DocArgs {
    /// The JSON file to change.
    #[arg(value_name = "PATH")]
    pub path: String,
    #[command(flatten)]
    pub input: StdinInput,
    #[command(flatten)]
    pub guarded: Guarded,
}

pub const MERGE: CommandSpec = CommandSpec {
    name: "json merge",
    summary: "Apply an RFC 7386 merge patch from --stdin.",
    description: "null removes a member, an object merges into an object, anything else replaces. Members keep their place; new ones go after their siblings.",
    args: <DocArgs as clap::Args>::augment_args,
    output_fields: write::WRITE_FIELDS,
    error_codes: JSON_WRITE_CODES,
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(DocArgs, merge),
};

fn doc_input(ctx: &Ctx, a: &DocArgs, what: &str) -> Result<Value, CmdError> {
    let Some(text) = a.input.text(ctx)? else {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            format!("{what} comes from --stdin (or --stdin-data)."),
        ));
    };
    guard::refuse_redacted("The input", Some(&a.path), text.as_bytes())?;
    Value::parse(&ctx.command, what, text)
}

/// The patch value with null members removed at every depth (what RFC 7386
/// gives when a patch object lands where no object was).
fn strip_nulls(n: &Node, src: &str, out: &mut String) {
    match &n.kind {
        Kind::Obj(m) => {
            out.push('{');
            let mut first = true;
            for x in m.iter().filter(|x| !matches!(x.value.kind, Kind::Null)) {
                if !first {
                    out.push(',');
                }
                first = false;
                out.push_str(&serde_json::to_string(&x.key).unwrap_or_default());
                out.push(':');
                strip_nulls(&x.value, src, out);
            }
            out.push('}');
        }
        _ => out.push_str(&src[n.start..n.end]),
    }
}

/// The merge as a list of edits: (pointer, Some(value) to set or None to remove).
fn merge_ops(
    target: Option<&Node>,
    patch: &Node,
    psrc: &str,
    at: &mut Vec<String>,
    ops: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let Kind::Obj(pm) = &patch.kind else {
        ops.push((at.clone(), Some(psrc[patch.start..patch.end].to_string())));
        return;
    };
    let target_obj = target.filter(|t| matches!(t.kind, Kind::Obj(_)));
    if target_obj.is_none() {
        let mut s = String::new();
        strip_nulls(patch, psrc, &mut s);
        ops.push((at.clone(), Some(s)));
        return;
    }
    for m in pm {
        let cur = target_obj.and_then(|t| t.member(&m.key));
        at.push(m.key.clone());
        match (&m.value.kind, cur) {
            (Kind::Null, Some(_)) => ops.push((at.clone(), None)),
            (Kind::Null, None) => {}
            (Kind::Obj(_), Some(c)) if matches!(c.kind, Kind::Obj(_)) => {
                merge_ops(Some(c), &m.value, psrc, at, ops)
            }
            _ => {
                let mut s = String::new();
                strip_nulls(&m.value, psrc, &mut s);
                ops.push((at.clone(), Some(s)));
            }
        }
        at.pop();
    }
}

pub fn merge(ctx: &Ctx, a: &DocArgs) -> Result<Output, CmdError> {
    let patch = doc_input(ctx, a, "The merge patch")?;
    write_json(ctx, &a.path, &a.guarded, |f| {
        let mut ops = Vec::new();
        merge_ops(
            Some(&f.root),
            &patch.node,
            &patch.text,
            &mut Vec::new(),
            &mut ops,
        );
        let mut text = f.text.clone();
        for (tokens, v) in ops {
            let r = match v {
                // A value that is already equal is left alone, so its spelling stays.
                Some(v) => {
                    let v = Value::parse(&ctx.command, "The merge patch", v)?;
                    let same = json_doc::parse(&text).ok().is_some_and(|root| {
                        json_doc::lookup(&root, &tokens)
                            .is_ok_and(|cur| json_doc::equal(cur, &text, &v.node, &v.text))
                    });
                    if same {
                        continue;
                    }
                    set_at(&text, &tokens, &v, false)
                }
                None => remove_at(&text, &tokens),
            };
            text = r.map_err(|m| miss_error(ctx, f, &tokens, m, code::ARGUMENT_INVALID))?;
        }
        Ok(text)
    })
}

pub const PATCH: CommandSpec = CommandSpec {
    name: "json patch",
    summary: "Apply an RFC 6902 JSON Patch from --stdin (all ops or none).",
    description: "Operations add, remove, replace, move, copy and test, applied in order to the file's text; any failure (a missing path, a failed test) writes nothing and names the operation (selection.no-match).",
    args: <DocArgs as clap::Args>::augment_args,
    output_fields: write::WRITE_FIELDS,
    error_codes: PATCH_CODES,
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(DocArgs, patch),
};

fn op_field<'a>(op: &'a Node, name: &str) -> Option<&'a Node> {
    op.member(name)
}

pub fn patch(ctx: &Ctx, a: &DocArgs) -> Result<Output, CmdError> {
    let p = doc_input(ctx, a, "The JSON Patch")?;
    let Kind::Arr(ops) = &p.node.kind else {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            "A JSON Patch is an array of operations: [{\"op\":\"add\",\"path\":\"/a\",\"value\":1}].",
        ));
    };
    write_json(ctx, &a.path, &a.guarded, |f| {
        let mut text = f.text.clone();
        for (i, op) in ops.iter().enumerate() {
            text = patch_op(ctx, f, &p.text, text, (i, op))?;
            if text.len() as u64 > input::MAX_WHOLE_FILE {
                let mib = input::MAX_WHOLE_FILE >> 20;
                return Err(patch_too_large(
                    i,
                    &format!("{} bytes, over {mib} MiB", text.len()),
                ));
            }
        }
        Ok(text)
    })
}

/// `argument.invalid` for patch operation `i`.
fn bad_op(ctx: &Ctx, i: usize, m: &str) -> CmdError {
    CmdError::invalid_argument(&ctx.command, format!("Patch operation {i}: {m}."))
}

/// The pointer patch operation `i` (`op`) gives as its member `name`.
fn op_pointer(ctx: &Ctx, i: usize, op: &Node, name: &str) -> Result<Vec<String>, CmdError> {
    match op_field(op, name).map(|n| &n.kind) {
        Some(Kind::Str(s)) => json_doc::parse_pointer(s).map_err(|m| bad_op(ctx, i, &m)),
        _ => Err(bad_op(
            ctx,
            i,
            &format!("\"{name}\" must be a pointer string"),
        )),
    }
}

/// `text` with patch operation `i` (`op`, whose values are in `src`) applied.
fn patch_op(
    ctx: &Ctx,
    f: &JsonFile,
    src: &str,
    text: String,
    (i, op): (usize, &Node),
) -> Result<String, CmdError> {
    let name = match op_field(op, "op").map(|n| &n.kind) {
        Some(Kind::Str(s)) => s.clone(),
        _ => return Err(bad_op(ctx, i, "\"op\" must be a string")),
    };
    let path = op_pointer(ctx, i, op, "path")?;
    let value = || {
        op_field(op, "value")
            .map(|n| Value::of(n, src))
            .ok_or_else(|| bad_op(ctx, i, "\"value\" is missing"))
    };
    let fail = |m: Miss| {
        let e = miss_error(ctx, f, &path, m, code::NO_MATCH);
        CmdError::new(
            code::NO_MATCH,
            format!(
                "Patch operation {i} ({name}) fails, so nothing was written: {}",
                e.message
            ),
            e.repairs().first().cloned().unwrap_or_else(|| {
                Repair::new(
                    "schema",
                    "Check the patch format.",
                    shell::aitools(["schema", "json patch"]),
                )
            }),
        )
    };
    let root = json_doc::parse(&text).map_err(|e| match e.over_budget && i > 0 {
        true => patch_too_large(i - 1, &e.message),
        false => file::not_json(&f.display, &text, &e, &f.display),
    })?;
    let found = |t: &[String]| json_doc::lookup(&root, t).ok();
    Ok(match name.as_str() {
        "add" => set_at(&text, &path, &value()?, true).map_err(fail)?,
        "remove" => remove_at(&text, &path).map_err(fail)?,
        "replace" => {
            if found(&path).is_none() {
                return Err(fail(Miss {
                    resolved: 0,
                    why: "replace needs an existing value".into(),
                }));
            }
            set_at(&text, &path, &value()?, false).map_err(fail)?
        }
        "move" | "copy" => {
            let from = op_pointer(ctx, i, op, "from")?;
            let Some(n) = found(&from) else {
                return Err(fail(Miss {
                    resolved: 0,
                    why: format!("\"from\" {} does not exist", json_doc::pointer_of(&from)),
                }));
            };
            let v = Value::of(n, &text);
            if name == "move" {
                if path.len() > from.len() && path[..from.len()] == from[..] {
                    return Err(bad_op(ctx, i, "a value cannot move into itself"));
                }
                let t = remove_at(&text, &from).map_err(fail)?;
                set_at(&t, &path, &v, true).map_err(fail)?
            } else {
                set_at(&text, &path, &v, true).map_err(fail)?
            }
        }
        "test" => {
            let v = value()?;
            match found(&path) {
                Some(n) if json_doc::equal(n, &text, &v.node, &v.text) => text,
                _ => {
                    return Err(fail(Miss {
                        resolved: 0,
                        why: "test: the value differs".into(),
                    }));
                }
            }
        }
        other => return Err(bad_op(ctx, i, &format!("unknown op {other:?}"))),
    })
}

/// `refusal.too-large` for a patch whose result outgrew a budget at operation
/// `i` (`why`: the whole-file cap or the value count, checked after every
/// operation, so a chain of copies that doubles the document stops there).
fn patch_too_large(i: usize, why: &str) -> CmdError {
    CmdError::new(
        code::TOO_LARGE,
        format!(
            "Patch operation {i} grows the document past aitools' budget ({why}); nothing was written."
        ),
        Repair::new(
            "schema",
            "Check the patch: copy and add operations that repeat the document grow it without end.",
            shell::aitools(["schema", "json patch"]),
        ),
    )
}

#[derive(Args, Debug)]
pub struct FmtArgs {
    /// The JSON file to format.
    #[arg(value_name = "PATH")]
    pub path: String,
    /// Indent width in spaces (default: the file's own, else 2).
    #[arg(long)]
    pub indent: Option<usize>,
    /// Write on one line.
    #[arg(long)]
    pub minify: bool,
    /// Sort object keys.
    #[arg(long)]
    pub sort_keys: bool,
    #[command(flatten)]
    pub guarded: Guarded,
}

pub const FMT: CommandSpec = CommandSpec {
    name: "json fmt",
    summary: "Re-indent a JSON file, keeping key order unless --sort-keys.",
    description: "Numbers and strings keep their spelling; the newline style and whether the file ends with a newline are kept.",
    args: <FmtArgs as clap::Args>::augment_args,
    output_fields: write::WRITE_FIELDS,
    error_codes: JSON_FILE_CODES,
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(FmtArgs, fmt),
};

pub fn fmt(ctx: &Ctx, a: &FmtArgs) -> Result<Output, CmdError> {
    if a.minify && a.indent.is_some() {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            "--minify writes one line; --indent sets the width of many. Give one.",
        ));
    }
    if a.indent.is_some_and(|n| n > 16) {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            "--indent is at most 16 spaces.",
        ));
    }
    write_json(ctx, &a.path, &a.guarded, |f| {
        let own = Style::of(&f.text, &f.root);
        let unit = if a.minify {
            None
        } else {
            Some(match a.indent {
                Some(n) => " ".repeat(n),
                None => own.unit.unwrap_or_else(|| "  ".to_string()),
            })
        };
        let st = Style::pretty(own.nl, unit);
        let mut out = json_doc::render(&f.root, &f.text, &st, "", a.sort_keys);
        if f.text.ends_with('\n') {
            out.push_str(own.nl);
        }
        Ok(out)
    })
}
