//! `json get` (the value at a pointer, bounded, with child-pointer continuations)
//! and `json select` (filter, sort and project an array's elements).

use super::file::{self, JsonFile, JsonSrc, READ_CODES, load_read};
use super::meant;
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, error, redact, shell, values};
use crate::text::json_doc::scan::Selected;
use crate::text::json_doc::{self, Kind, Node};
use crate::workspace::Ctx;
use clap::Args;
use serde::Serialize;
use std::cmp::Ordering;

/// Children offered as continuations when a value is cut.
const MAX_CHILD_COMMANDS: usize = 8;

#[derive(Args, Debug)]
pub struct GetArgs {
    /// JSON file.
    #[arg(value_name = "PATH")]
    pub path: String,
    /// RFC 6901 pointer ("" is the whole document).
    #[arg(value_name = "POINTER", allow_hyphen_values = true)]
    pub pointer: String,
    /// Largest rendered value returned: <n>, <n>KiB, <n>MiB.
    #[arg(long, default_value = "16KiB")]
    pub max_bytes: String,
    /// Return the object's keys or the array's indexes instead of the value.
    #[arg(long)]
    pub keys: bool,
    /// Return text: a string unescaped, anything else as JSON text.
    #[arg(long)]
    pub raw: bool,
}

pub const GET: CommandSpec = CommandSpec {
    name: "json get",
    summary: "Value at a JSON pointer, its keys, length or raw text (jq '.a.b').",
    description: "RFC 6901 pointers: \"\" is the whole document, ~1 is / and ~0 is ~. length counts an array's elements, an object's keys or a string's characters. A value whose compact JSON is longer than --max-bytes comes back as value_preview with truncated:true (status partial, exit 3), and next_commands reads its children by pointer. A jq path through one array's elements (.a[], .a[].b) is answered by json select (took names the call).",
    args: <GetArgs as clap::Args>::augment_args,
    output_fields: &[
        field("path", "The file read."),
        field("pointer", "The pointer asked for."),
        field("type", "object, array, string, number, boolean or null."),
        field(
            "length",
            "Elements, keys or characters; null for other types.",
        ),
        field("value", "The value (default)."),
        field("keys", "With --keys: member names, or indexes of an array."),
        field("text", "With --raw."),
        field(
            "value_preview",
            "The start of the compact value when --max-bytes cut it.",
        ),
        field("truncated", "True when --max-bytes cut the value."),
        field(
            "approx_tokens",
            "ceil(characters of the returned value / 4).",
        ),
        field(
            "next_commands",
            "Reads of the children, when the value was cut.",
        ),
        field(
            "items",
            "A jq path through an array (.a[].b): json select's answer (command json select), each element or its pick.",
        ),
        field(
            "total",
            "With items: the matches, when items is short of them.",
        ),
    ],
    error_codes: READ_CODES,
    writes: false,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(GetArgs, get),
};

/// The value at `tokens` and the text its spans index: found by the streaming
/// scan (only that value parsed), else by the whole parse, whose answer for a
/// pointer that does not resolve (or a text that is not JSON) is the error.
fn value_at(ctx: &Ctx, src: JsonSrc, tokens: &[String]) -> Result<(Node, Src), CmdError> {
    if let Some((start, end)) = json_doc::scan::locate(&src.text, tokens) {
        let n = json_doc::scan::parse_span(&src.text, start, end)
            .map_err(|e| file::not_json(&src.display, &src.text, &e, &src.display))?;
        return Ok((n, Src::Raw(src)));
    }
    if let Some(e) = file::no_such_pointer_in(ctx, &src, tokens) {
        return Err(e);
    }
    let f = src.parse()?;
    let n = json_doc::lookup(&f.root, tokens)
        .map_err(|k| file::no_such_pointer(ctx, &f, tokens, k))?
        .clone();
    Ok((n, Src::Parsed(f)))
}

/// What a value's spans index: the file's text.
enum Src {
    Raw(JsonSrc),
    Parsed(JsonFile),
}

impl Src {
    fn text(&self) -> &str {
        match self {
            Src::Raw(s) => &s.text,
            Src::Parsed(f) => &f.text,
        }
    }
}

/// The longest prefix of `s` within `max` bytes, cut at a character boundary.
fn cut(s: &str, max: usize) -> &str {
    let mut e = max.min(s.len());
    while !s.is_char_boundary(e) {
        e -= 1;
    }
    &s[..e]
}

#[derive(Serialize)]
struct GetOut {
    path: String,
    pointer: String,
    #[serde(rename = "type")]
    kind: &'static str,
    length: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<Json>,
    #[serde(skip_serializing_if = "Option::is_none")]
    keys: Option<Vec<Json>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value_preview: Option<String>,
    truncated: bool,
    approx_tokens: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    next_commands: Vec<String>,
}

pub fn get(ctx: &Ctx, a: &GetArgs) -> Result<Output, CmdError> {
    let max = values::parse_size(&a.max_bytes)
        .map_err(|m| CmdError::invalid_argument(&ctx.command, format!("--max-bytes: {m}")))?
        as usize;
    if a.keys && a.raw {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            "--keys and --raw are two different answers; give one.",
        ));
    }
    if let Some(e) = file::jq_each_error(&a.path, &a.pointer) {
        return Err(e);
    }
    let (tokens, took) = file::pointer_or_jq(ctx, &a.pointer)?;
    let f = load_read(ctx, &a.path)?;
    let display = f.display.clone();
    let (n, src) = value_at(ctx, f, &tokens)?;
    let (n, body) = (&n, src.text());
    let mut out = GetOut {
        path: display.clone(),
        pointer: took.clone().unwrap_or_else(|| a.pointer.clone()),
        kind: n.type_name(),
        length: n.length(),
        value: None,
        keys: None,
        text: None,
        value_preview: None,
        truncated: false,
        approx_tokens: 0,
        next_commands: Vec::new(),
    };
    let returned: String;
    if a.keys {
        let keys: Vec<Json> = match &n.kind {
            Kind::Obj(m) => m.iter().map(|x| Json::str(x.key.clone())).collect(),
            Kind::Arr(v) => (0..v.len()).map(|i| Json::UInt(i as u64)).collect(),
            _ => {
                return Err(CmdError::invalid_argument(
                    &ctx.command,
                    format!(
                        "{:?} is {}; only objects and arrays have keys.",
                        a.pointer,
                        json_doc::with_article(n.type_name())
                    ),
                ));
            }
        };
        returned = Json::Arr(keys.clone()).to_string_compact();
        out.keys = Some(keys);
    } else {
        let compact = n.to_json(body).to_string_compact();
        let text = match (&n.kind, a.raw) {
            (Kind::Str(s), true) => s.clone(),
            _ => compact.clone(),
        };
        if text.len() > max {
            let preview = cut(&text, max).to_string();
            returned = preview.clone();
            out.value_preview = Some(preview);
            out.truncated = true;
            out.next_commands = children(&display, &tokens, n);
        } else if a.raw {
            returned = text.clone();
            out.text = Some(text);
        } else {
            returned = compact;
            out.value = Some(n.to_json(body));
        }
    }
    out.approx_tokens = returned.chars().count().div_ceil(4);
    if tokens.is_empty() && matches!(n.kind, Kind::Str(_)) {
        mask_named_root(&a.path, body.as_bytes(), &mut out);
    }
    let partial = out.truncated;
    let mut answer = Output::cut(&out, partial);
    if let Some(p) = took {
        // A jq path read as the pointer it means: `took` says how.
        let t = Json::Obj(vec![(a.pointer.clone(), Json::str(p))]);
        answer.fields.push("took", t);
    }
    Ok(answer)
}

/// The root string of a file whose name is its key (`secrets/api_key` holding
/// `"V"`, `redact::value_named_by_path`): shown masked, as `read` shows it.
fn mask_named_root(path: &str, text: &[u8], out: &mut GetOut) {
    if redact::value_named_by_path(path, text).is_none() {
        return;
    }
    let mask = || redact::PLACEHOLDER.to_string();
    if out.value.is_some() {
        out.value = Some(Json::str(mask()));
    }
    for t in [&mut out.text, &mut out.value_preview]
        .into_iter()
        .flatten()
    {
        *t = mask();
    }
    redact::tally_shown(1);
}

/// `json get` of each child (the first few), then `--keys` for the rest.
fn children(display: &str, tokens: &[String], n: &Node) -> Vec<String> {
    let names: Vec<String> = match &n.kind {
        Kind::Obj(m) => m.iter().map(|x| x.key.clone()).collect(),
        Kind::Arr(v) => (0..v.len()).map(|i| i.to_string()).collect(),
        _ => return Vec::new(),
    };
    let mut out: Vec<String> = names
        .iter()
        .take(MAX_CHILD_COMMANDS)
        .map(|k| {
            let mut t = tokens.to_vec();
            t.push(k.clone());
            shell::aitools(["json", "get", display, &json_doc::pointer_of(&t)])
        })
        .collect();
    if names.len() > MAX_CHILD_COMMANDS {
        out.push(shell::aitools([
            "json",
            "get",
            display,
            &json_doc::pointer_of(tokens),
            "--keys",
        ]));
    }
    out
}

#[derive(Args, Debug)]
pub struct SelectArgs {
    /// JSON file.
    #[arg(value_name = "PATH")]
    pub path: String,
    /// Pointer to the array (without it, the answer names the call on the document's arrays).
    #[arg(value_name = "POINTER", allow_hyphen_values = true)]
    pub pointer: Option<String>,
    /// Condition on each element: <rel-pointer><op><value>, op = (==) != < <= > >= or ~ (regex); repeat for AND.
    #[arg(long)]
    pub r#where: Vec<String>,
    /// Return this relative pointer's value instead of the element; repeated:
    /// {pointer: value} of each.
    #[arg(long)]
    pub pick: Vec<String>,
    /// Each item as {pointer, value}, its element's whole pointer.
    #[arg(long)]
    pub with_pointers: bool,
    /// Relative pointer to order by (null first, then booleans, numbers, strings).
    #[arg(long)]
    pub sort_by: Option<String>,
    /// Descending order.
    #[arg(long)]
    pub desc: bool,
    /// items or count; sets mode.
    #[arg(long, value_parser = ["items", "count"], default_value = "items")]
    pub output: String,
    /// Maximum items returned.
    #[arg(long, default_value_t = 50)]
    pub limit: usize,
}

pub const SELECT: CommandSpec = CommandSpec {
    name: "json select",
    summary: "Filter, sort and project a JSON array's elements (jq 'map(select(..))').",
    description: "--where <rel-pointer><op><value> (repeat for AND); op is = (or ==) != < <= > >= or ~ (regex on strings). The right side is JSON when it parses as JSON, else a string. A missing member satisfies only !=. Ordering compares numbers with numbers and strings with strings. items are the selected elements' values (one --pick: that value, null where missing; several: {pointer: value}; under a key that names a secret, {pointer, value} as with --with-pointers, so the mask sees the key); indices gives each one's index in the array when they are not its elements 0, 1, ... in order (a --where left some out, or --sort-by/--desc). More matches than --limit make the result partial (exit 3); next_commands reads them all.",
    args: <SelectArgs as clap::Args>::augment_args,
    output_fields: &[
        field("path", "The file read."),
        field("mode", "count (left out for items, the default)."),
        field(
            "items",
            "The selected elements' values (or picks); [{pointer,value}] with --with-pointers.",
        ),
        field(
            "indices",
            "Each item's index in the array, when items are not its elements 0, 1, ... in order.",
        ),
        field("count", "Selected elements, in count mode."),
        field(
            "total",
            "Selected elements, when --limit left some out of items.",
        ),
        field(
            "truncated",
            "True when --limit cut items (status partial, exit 3).",
        ),
        field(
            "next_commands",
            "The command returning every selected element.",
        ),
    ],
    error_codes: READ_CODES,
    writes: false,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(SelectArgs, select),
};

#[derive(Clone, Copy, PartialEq, Debug)]
enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Re,
}

struct Cond {
    tokens: Vec<String>,
    op: Op,
    rhs_text: String,
    rhs: Option<Node>,
    re: Option<regex::Regex>,
}

fn parse_where(ctx: &Ctx, w: &str) -> Result<Cond, CmdError> {
    let bad = |m: String| CmdError::invalid_argument(&ctx.command, format!("--where {w:?}: {m}"));
    let p = w
        .find(['=', '!', '<', '>', '~'])
        .ok_or_else(|| bad("no operator (= != < <= > >= ~)".into()))?;
    let rest = &w[p..];
    // `==` is the equality of jq, Python and JavaScript: the same as `=` (it
    // compared with the string "=true" before).
    let (op, len) = if rest.starts_with("==") {
        (Op::Eq, 2)
    } else if rest.starts_with("!=") {
        (Op::Ne, 2)
    } else if rest.starts_with("<=") {
        (Op::Le, 2)
    } else if rest.starts_with(">=") {
        (Op::Ge, 2)
    } else {
        match rest.as_bytes()[0] {
            b'=' => (Op::Eq, 1),
            b'<' => (Op::Lt, 1),
            b'>' => (Op::Gt, 1),
            b'~' => (Op::Re, 1),
            _ => return Err(bad("'!' must be followed by '='".into())),
        }
    };
    let tokens = json_doc::parse_pointer(&w[..p]).map_err(bad)?;
    let rhs_raw = &w[p + len..];
    let (rhs_text, rhs) = match json_doc::parse(rhs_raw) {
        Ok(n) => (rhs_raw.to_string(), Some(n)),
        Err(_) => {
            let t = serde_json::to_string(rhs_raw).unwrap_or_default();
            let n = json_doc::parse(&t).ok();
            (t, n)
        }
    };
    let re = if op == Op::Re {
        let pat = match rhs.as_ref().map(|n| &n.kind) {
            Some(Kind::Str(s)) => s.clone(),
            _ => rhs_raw.to_string(),
        };
        Some(regex::Regex::new(&pat).map_err(|e| {
            // The whole condition: its pointer names the value (`/password~...`),
            // so the mask judges the echo as it would the key and value in a file.
            CmdError::bad_pattern("--where", w, &e, error::schema_repair(&ctx.command))
        })?)
    } else {
        None
    };
    Ok(Cond {
        tokens,
        op,
        rhs_text,
        rhs,
        re,
    })
}

fn holds(c: &Cond, el: &Node, src: &str) -> bool {
    holds_value(c, json_doc::lookup(el, &c.tokens).ok(), src)
}

/// Whether `v`, what the condition's pointer found in an element, satisfies it.
fn holds_value(c: &Cond, v: Option<&Node>, src: &str) -> bool {
    let Some(v) = v else {
        return c.op == Op::Ne;
    };
    let Some(rhs) = &c.rhs else { return false };
    match c.op {
        Op::Eq => json_doc::equal(v, src, rhs, &c.rhs_text),
        Op::Ne => !json_doc::equal(v, src, rhs, &c.rhs_text),
        Op::Re => match &v.kind {
            Kind::Str(s) => c.re.as_ref().is_some_and(|r| r.is_match(s)),
            _ => false,
        },
        _ => {
            let ord = match (&v.kind, &rhs.kind) {
                (Kind::Num, Kind::Num) => num(v, src).partial_cmp(&num(rhs, &c.rhs_text)),
                (Kind::Str(a), Kind::Str(b)) => Some(a.cmp(b)),
                _ => None,
            };
            match (ord, c.op) {
                (Some(o), Op::Lt) => o == Ordering::Less,
                (Some(o), Op::Le) => o != Ordering::Greater,
                (Some(o), Op::Gt) => o == Ordering::Greater,
                (Some(o), Op::Ge) => o != Ordering::Less,
                _ => false,
            }
        }
    }
}

fn num(n: &Node, src: &str) -> f64 {
    src[n.start..n.end].parse().unwrap_or(0.0)
}

/// Sort rank: missing and null first, then booleans, numbers, strings, containers.
fn sort_cmp(a: Option<&Node>, b: Option<&Node>, src: &str) -> Ordering {
    fn rank(n: Option<&Node>) -> u8 {
        match n.map(|n| &n.kind) {
            None | Some(Kind::Null) => 0,
            Some(Kind::Bool(_)) => 1,
            Some(Kind::Num) => 2,
            Some(Kind::Str(_)) => 3,
            Some(Kind::Arr(_)) => 4,
            Some(Kind::Obj(_)) => 5,
        }
    }
    match (a, b) {
        (Some(x), Some(y)) => match (&x.kind, &y.kind) {
            (Kind::Bool(p), Kind::Bool(q)) => p.cmp(q),
            (Kind::Num, Kind::Num) => num(x, src)
                .partial_cmp(&num(y, src))
                .unwrap_or(Ordering::Equal),
            (Kind::Str(p), Kind::Str(q)) => p.cmp(q),
            _ => rank(a).cmp(&rank(b)),
        },
        _ => rank(a).cmp(&rank(b)),
    }
}

/// `mode` at its default: left out.
fn is_items(m: &&'static str) -> bool {
    *m == "items"
}

#[derive(Serialize)]
struct SelectOut {
    path: String,
    #[serde(skip_serializing_if = "is_items")]
    mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    items: Option<Vec<Json>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    indices: Option<Vec<usize>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    count: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    total: Option<usize>,
    truncated: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    next_commands: Vec<String>,
}

/// The member the elements of the array meant have: the first condition's,
/// pick's or sort key's pointer.
fn key_of(a: &SelectArgs, conds: &[Cond]) -> Option<Vec<String>> {
    conds
        .first()
        .map(|c| c.tokens.clone())
        .or_else(|| a.pick.first().and_then(|p| json_doc::parse_pointer(p).ok()))
        .or_else(|| {
            a.sort_by
                .as_deref()
                .and_then(|p| json_doc::parse_pointer(p).ok())
        })
}

pub fn select(ctx: &Ctx, a: &SelectArgs) -> Result<Output, CmdError> {
    let conds = a
        .r#where
        .iter()
        .map(|w| parse_where(ctx, w))
        .collect::<Result<Vec<_>, _>>()?;
    // Without a pointer the file is read once, to choose the array and select.
    let (pointer, loaded) = match &a.pointer {
        Some(p) => (p.clone(), None),
        None => {
            let f = load_read(ctx, &a.path)?;
            let p = meant::pointer_meant(ctx, &a.path, key_of(a, &conds).as_deref(), &f)?;
            (p, Some(f))
        }
    };
    let pointer = pointer.as_str();
    let tokens = file::pointer(ctx, pointer)?;
    let picks = a
        .pick
        .iter()
        .map(|p| file::pointer(ctx, p).map(|t| (p.clone(), t)))
        .collect::<Result<Vec<_>, _>>()?;
    let sort_by = a
        .sort_by
        .as_deref()
        .map(|p| file::pointer(ctx, p))
        .transpose()?;
    let f = match loaded {
        Some(f) => f,
        None => load_read(ctx, &a.path)?,
    };
    let display = f.display.clone();
    let room = if a.output == "count" { 0 } else { a.limit };
    let (mut chosen, src, total) = choose(ctx, a, pointer, f, &tokens, &conds, room)?;
    let src = src.text();
    if let Some(key) = &sort_by {
        chosen.sort_by(|(_, x), (_, y)| {
            let o = sort_cmp(
                json_doc::lookup(x, key).ok(),
                json_doc::lookup(y, key).ok(),
                src,
            );
            if a.desc { o.reverse() } else { o }
        });
    } else if a.desc {
        chosen.reverse();
    }
    if a.output == "count" {
        let out = SelectOut {
            path: display,
            mode: "count",
            items: None,
            indices: None,
            count: Some(total),
            total: None,
            truncated: false,
            next_commands: Vec::new(),
        };
        return Ok(Output::ok(&out));
    }
    let shown = &chosen[..chosen.len().min(a.limit)];
    // Values under a secret-named key keep their pointers: the mask judges by them.
    let secret = |t: &[String]| t.iter().any(|k| redact::names_secret(k));
    let pointers = a.with_pointers || secret(&tokens);
    let bare = picks.len() == 1 && !pointers && !picks.iter().any(|(_, t)| secret(t));
    let items = items_of(shown, &tokens, &picks, src, pointers, bare);
    // Said only when an item's index is not its place in items.
    let indices = (!pointers && shown.iter().enumerate().any(|(k, (i, _))| k != *i))
        .then(|| shown.iter().map(|(i, _)| *i).collect());
    let truncated = total > items.len();
    let next_commands = if truncated {
        vec![shell::aitools(shell::rerun(
            &ctx.argv,
            &["--limit"],
            &[],
            &["--limit".into(), total.to_string()],
        ))]
    } else {
        Vec::new()
    };
    let out = SelectOut {
        path: display,
        mode: "items",
        items: Some(items),
        indices,
        count: None,
        // Said only when items is short of it (the listing counts the rest).
        total: truncated.then_some(total),
        truncated,
        next_commands,
    };
    Ok(Output::cut(&out, truncated))
}

/// The array's elements that hold every condition, with the source they point
/// into and how many held: only those the answer needs are kept (every match
/// when sorted or reversed, else the first `room`; count mode: none).
fn choose(
    ctx: &Ctx,
    a: &SelectArgs,
    pointer: &str,
    f: JsonSrc,
    tokens: &[String],
    conds: &[Cond],
    room: usize,
) -> Result<(Vec<(usize, Node)>, Src, usize), CmdError> {
    let display = f.display.clone();
    let not_array = |t: &str| {
        CmdError::invalid_argument(
            &ctx.command,
            format!(
                "{:?} in {} is {}, not an array; json select filters arrays (json get reads the rest).",
                pointer,
                display,
                json_doc::with_article(t)
            ),
        )
    };
    // `total` counts every match.
    let keep_all = a.sort_by.is_some() || a.desc;
    let total = std::cell::Cell::new(0);
    let counted = |matched: bool| {
        total.set(total.get() + usize::from(matched));
        matched && (keep_all || total.get() <= room)
    };
    let text = &f.text;
    // Each condition parses only the value its pointer finds.
    let test = |s: usize, e: usize| {
        for c in conds {
            let v = json_doc::scan::locate_in(text, s, e, &c.tokens)
                .map(|(a, b)| json_doc::scan::parse_span(text, a, b))
                .transpose()?;
            if !holds_value(c, v.as_ref(), text) {
                return Ok(false);
            }
        }
        Ok(true)
    };
    let (chosen, src): (Vec<(usize, Node)>, Src) = {
        let fresh = || total.set(0);
        match json_doc::scan::select(text, tokens, fresh, |_, s, e| Ok(counted(test(s, e)?))) {
            Some(Selected::Other(t)) => return Err(not_array(t)),
            Some(Selected::Arr(els)) => {
                let els = els.map_err(|e| file::not_json(&display, &f.text, &e, &display))?;
                (els, Src::Raw(f))
            }
            None => {
                total.set(0); // the walk stopped: the whole parse counts again
                if let Some(e) = file::no_such_pointer_in(ctx, &f, tokens) {
                    return Err(e);
                }
                let f = f.parse()?;
                let n = json_doc::lookup(&f.root, tokens)
                    .map_err(|k| file::no_such_pointer(ctx, &f, tokens, k))?;
                let Kind::Arr(elems) = &n.kind else {
                    return Err(not_array(n.type_name()));
                };
                let els = elems
                    .iter()
                    .enumerate()
                    .filter(|(_, el)| counted(conds.iter().all(|c| holds(c, el, &f.text))))
                    .map(|(i, el)| (i, el.clone()))
                    .collect();
                (els, Src::Parsed(f))
            }
        }
    };
    Ok((chosen, src, total.get()))
}

/// The answer's items: each kept element's value (its picks as an object, or
/// its one pick's value when `bare`), or with `pointers` {pointer, value}.
fn items_of(
    chosen: &[(usize, Node)],
    tokens: &[String],
    picks: &[(String, Vec<String>)],
    src: &str,
    pointers: bool,
    bare: bool,
) -> Vec<Json> {
    let picked = |el: &Node, pt: &[String]| {
        json_doc::lookup(el, pt)
            .map(|v| v.to_json(src))
            .unwrap_or(Json::Null)
    };
    chosen
        .iter()
        .map(|(i, el)| {
            let value = match picks {
                [] => el.to_json(src),
                [(_, pt)] if bare => picked(el, pt),
                _ => Json::Obj(
                    picks
                        .iter()
                        .map(|(p, pt)| (p.clone(), picked(el, pt)))
                        .collect(),
                ),
            };
            if !pointers {
                return value;
            }
            let mut t = tokens.to_vec();
            t.push(i.to_string());
            let mut o = Json::obj();
            o.push("pointer", Json::str(json_doc::pointer_of(&t)));
            o.push("value", value);
            o
        })
        .collect()
}
