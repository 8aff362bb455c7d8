//! `transform`: line operations (sort, unique, indent, comment, wrap, ...) on a
//! file or a selection, and whole-file fixes (line endings, final newline, BOM),
//! chained with repeated `--op`, as one guarded write.

use super::common::{self, SelectorArgs};
use super::edit_cmd::put_if_changed;
use super::transform_ops as ops;
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, code};
use crate::store::guard;
use crate::store::write::{self, WriteRequest};
use crate::text::doc::{Doc, indent_of, with_eol};
use crate::text::{lang, select};
use crate::workspace::Ctx;
use clap::Args;
use regex::Regex;

const LINE_OPS: &[&str] = &[
    "sort",
    "sort-numeric",
    "sort-version",
    "reverse",
    "shuffle",
    "unique",
    "delete-blank",
    "squeeze-blank",
    "strip-trailing",
    "indent",
    "dedent",
    "tabs-to-spaces",
    "spaces-to-tabs",
    "upper",
    "lower",
    "nfc",
    "nfkc",
    "wrap",
    "reflow",
    "comment",
    "uncomment",
];
const FILE_OPS: &[&str] = &[
    "eol-lf",
    "eol-crlf",
    "final-newline",
    "no-final-newline",
    "strip-bom",
];

/// Every operation's name, so schema and help list them (the short schema too)
/// and the parser refuses any other.
fn op_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(LINE_OPS.iter().chain(FILE_OPS).copied())
}

#[derive(Args, Debug)]
pub struct TransformArgs {
    /// The file to transform.
    #[arg(value_name = "PATH")]
    pub path: String,
    /// Operation; repeat to chain. Line ops: sort sort-numeric sort-version reverse shuffle unique delete-blank squeeze-blank strip-trailing indent dedent tabs-to-spaces spaces-to-tabs upper lower nfc nfkc wrap reflow comment uncomment. Whole-file ops (no selector): eol-lf eol-crlf final-newline no-final-newline strip-bom.
    #[arg(long, required = true, value_parser = op_names())]
    pub op: Vec<String>,
    /// Indent width or tab stop (indent/dedent default 2, dedent without it removes the common indent; tabs 8).
    #[arg(long)]
    pub width: Option<usize>,
    /// Sort/unique key field (1-based).
    #[arg(long)]
    pub key: Option<usize>,
    /// Key field separator regex (default whitespace).
    #[arg(long, allow_hyphen_values = true)]
    pub delimiter: Option<String>,
    /// wrap and reflow width.
    #[arg(long, default_value_t = 80)]
    pub columns: usize,
    /// Required by shuffle: the same seed gives the same order.
    #[arg(long)]
    pub seed: Option<u64>,
    #[command(flatten)]
    pub sel: SelectorArgs,
    /// Guard: how many lines a --match selects.
    #[arg(long, value_name = "N")]
    pub expect_count: Option<String>,
    #[command(flatten)]
    pub guard: crate::protocol::args::Guard,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "transform",
    summary: "Sort, uniq, indent, comment, wrap lines.",
    description: "--op repeats and applies in order, to the whole file or to each selected block (each --match line is its own block, so sorting needs a contiguous selector). sort and unique compare bytes (LC_ALL=C sort); unique keeps each line's first occurrence; sort-numeric orders by the leading number as sort -n does, sort-version as sort -V does; shuffle needs --seed. spaces-to-tabs converts leading blanks (unexpand --first-only). nfc/nfkc normalize Unicode. comment/uncomment use the file's language line comment (#, //, --, ;;). wrap breaks lines longer than --columns at spaces, keeping their indent; reflow joins each paragraph and fills it to --columns; both leave Markdown code fences alone. Whole-file ops take no selector.",
    args: <TransformArgs as clap::Args>::augment_args,
    output_fields: &[
        write::FIELD_CHANGES,
        write::FIELD_OP_ID,
        write::FIELD_DRY_RUN,
        field(
            "expect_count",
            "With --dry-run of a --match selection: the lines it selected.",
        ),
        field("removed_lines", "Lines removed, for ops that remove lines."),
        write::FIELD_NEXT,
    ],
    error_codes: common::LINE_EDIT_ERRORS,
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(TransformArgs, run),
};

/// Comment markers by language: a line prefix, or an opening and closing pair.
fn comment_of(lang: &str) -> Option<(&'static str, &'static str)> {
    Some(match lang {
        "rust" | "javascript" | "typescript" | "go" | "c" | "cpp" | "java" | "kotlin"
        | "csharp" | "swift" | "php" => ("//", ""),
        "python" | "ruby" | "shell" | "perl" | "yaml" | "toml" | "make" | "cmake"
        | "dockerfile" | "nix" => ("#", ""),
        "lua" | "sql" | "haskell" => ("--", ""),
        "common-lisp" | "emacs-lisp" | "scheme" | "clojure" => (";;", ""),
        "css" | "ocaml" => {
            if lang == "css" {
                ("/*", "*/")
            } else {
                ("(*", "*)")
            }
        }
        "html" | "xml" | "markdown" => ("<!--", "-->"),
        _ => return None,
    })
}

struct Ctxt<'a> {
    a: &'a TransformArgs,
    delim: Option<Regex>,
    comment: Option<(&'static str, &'static str)>,
    removed: usize,
}

impl Ctxt<'_> {
    /// The line ops, in order, on each block (the last first, so the earlier
    /// blocks' line numbers hold).
    fn line_ops(&mut self, mut doc: Doc, blocks: &[std::ops::Range<usize>]) -> Doc {
        let a = self.a;
        let line_ops: Vec<&String> =
            a.op.iter()
                .filter(|o| LINE_OPS.contains(&o.as_str()))
                .collect();
        if line_ops.is_empty() {
            return doc;
        }
        for b in blocks.iter().rev() {
            let mut lines: Vec<String> = (b.start..b.end)
                .map(|i| doc.content(i).to_string())
                .collect();
            for op in &line_ops {
                lines = apply_op(self, op, lines);
            }
            let mut new = lines.join("\n");
            if !lines.is_empty() {
                new.push('\n');
            }
            doc = doc.replace_block(b.start, b.end, &new);
        }
        doc
    }
}

/// The sort/unique key of a line: the whole line, or field --key.
fn key_of<'l>(c: &Ctxt, line: &'l str) -> &'l str {
    let Some(k) = c.a.key else { return line };
    let k = k.max(1) - 1;
    match &c.delim {
        Some(re) => re.split(line).nth(k).unwrap_or(""),
        None => line.split_whitespace().nth(k).unwrap_or(""),
    }
}

/// The leading number of a line as sort -n reads it (none counts as 0).
fn leading_number(s: &str) -> f64 {
    let t = s.trim_start();
    let mut end = 0;
    let b = t.as_bytes();
    if b.first() == Some(&b'-') {
        end = 1;
    }
    let mut seen_dot = false;
    while end < b.len() && (b[end].is_ascii_digit() || (b[end] == b'.' && !seen_dot)) {
        seen_dot |= b[end] == b'.';
        end += 1;
    }
    t[..end].parse().unwrap_or(0.0)
}

fn wrap_line(line: &str, width: usize) -> Vec<String> {
    if line.chars().count() <= width {
        return vec![line.to_string()];
    }
    let ind = indent_of(line);
    let mut out = Vec::new();
    let mut cur = String::new();
    for w in line[ind.len()..].split(' ').filter(|w| !w.is_empty()) {
        if !cur.is_empty() && cur.chars().count() + 1 + w.chars().count() > width {
            out.push(std::mem::take(&mut cur));
        }
        if cur.is_empty() {
            cur.push_str(ind);
        } else {
            cur.push(' ');
        }
        cur.push_str(w);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// One line op on a block's lines; the lines it removed are counted in `c`.
fn apply_op(c: &mut Ctxt, op: &str, lines: Vec<String>) -> Vec<String> {
    let before = lines.len();
    let mut lines = lines;
    match op {
        "sort" | "sort-numeric" | "sort-version" | "reverse" | "shuffle" | "unique" => {
            reorder(c, op, &mut lines)
        }
        "delete-blank" | "squeeze-blank" | "strip-trailing" => blanks(op, &mut lines),
        "indent" | "dedent" | "tabs-to-spaces" | "spaces-to-tabs" => {
            whitespace(c.a.width, op, &mut lines)
        }
        "comment" => comment(c.comment.unwrap_or(("#", "")), &mut lines),
        "uncomment" => uncomment(c.comment.unwrap_or(("#", "")), &mut lines),
        _ => lines = rewrite(c.a.columns, op, lines),
    }
    c.removed += before.saturating_sub(lines.len());
    lines
}

/// The ops that order lines or drop repeats, by the sort key (--key, --delimiter).
fn reorder(c: &Ctxt, op: &str, lines: &mut Vec<String>) {
    match op {
        "sort" => lines.sort_by(|x, y| key_of(c, x).cmp(key_of(c, y)).then(x.cmp(y))),
        "sort-numeric" => lines.sort_by(|x, y| {
            leading_number(key_of(c, x))
                .partial_cmp(&leading_number(key_of(c, y)))
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(x.cmp(y))
        }),
        "sort-version" => {
            lines.sort_by(|x, y| ops::version_cmp(key_of(c, x), key_of(c, y)).then(x.cmp(y)))
        }
        "reverse" => lines.reverse(),
        "shuffle" => ops::shuffle(lines, c.a.seed.unwrap_or(0)),
        "unique" => {
            let mut seen = std::collections::HashSet::new();
            lines.retain(|l| seen.insert(key_of(c, l).to_string()));
        }
        _ => {}
    }
}

/// The ops on blank lines and trailing blanks.
fn blanks(op: &str, lines: &mut Vec<String>) {
    match op {
        "delete-blank" => lines.retain(|l| !l.trim().is_empty()),
        "squeeze-blank" => {
            let mut prev_blank = false;
            lines.retain(|l| {
                let blank = l.trim().is_empty();
                let keep = !(blank && prev_blank);
                prev_blank = blank;
                keep
            });
        }
        "strip-trailing" => {
            for l in lines {
                l.truncate(l.trim_end_matches([' ', '\t']).len());
            }
        }
        _ => {}
    }
}

/// The ops on leading whitespace: indent, dedent, and tabs to or from spaces
/// (`width` is --width: the indent, the most to dedent, or the tab stop).
fn whitespace(width: Option<usize>, op: &str, lines: &mut [String]) {
    match op {
        "indent" => {
            let pad = " ".repeat(width.unwrap_or(2));
            for l in lines {
                if !l.trim().is_empty() {
                    l.insert_str(0, &pad);
                }
            }
        }
        "dedent" => {
            let common = lines
                .iter()
                .filter(|l| !l.trim().is_empty())
                .map(|l| indent_of(l).len())
                .min()
                .unwrap_or(0);
            let n = width.map_or(common, |w| w.min(common));
            for l in lines {
                let k = n.min(indent_of(l).len());
                l.drain(..k);
            }
        }
        "tabs-to-spaces" => {
            let stop = width.unwrap_or(8).max(1);
            for l in lines.iter_mut().filter(|l| l.contains('\t')) {
                *l = tabs_to_spaces(l, stop);
            }
        }
        "spaces-to-tabs" => {
            let stop = width.unwrap_or(8).max(1);
            lines
                .iter_mut()
                .for_each(|l| *l = ops::spaces_to_tabs(l, stop));
        }
        _ => {}
    }
}

/// A line with each tab expanded to the next multiple of `stop` columns.
fn tabs_to_spaces(l: &str, stop: usize) -> String {
    let mut out = String::new();
    let mut col = 0;
    for ch in l.chars() {
        if ch == '\t' {
            let n = stop - col % stop;
            out.push_str(&" ".repeat(n));
            col += n;
        } else {
            out.push(ch);
            col += 1;
        }
    }
    out
}

/// The ops that rewrite each line's text: case, Unicode normalization, and
/// wrapping at --columns (outside fenced blocks).
fn rewrite(columns: usize, op: &str, mut lines: Vec<String>) -> Vec<String> {
    match op {
        "nfc" | "nfkc" => {
            let compat = op == "nfkc";
            lines
                .iter_mut()
                .for_each(|l| *l = ops::normalize(l, compat));
        }
        "upper" => lines.iter_mut().for_each(|l| *l = l.to_uppercase()),
        "lower" => lines.iter_mut().for_each(|l| *l = l.to_lowercase()),
        "wrap" => {
            let w = columns.max(1);
            lines = ops::outside_fences(lines, |run| {
                run.iter().flat_map(|l| wrap_line(l, w)).collect()
            });
        }
        "reflow" => {
            let w = columns.max(1);
            lines = ops::outside_fences(lines, |run| ops::reflow(run, w));
        }
        _ => {}
    }
    lines
}

/// Comments out the non-blank lines at their least indent.
fn comment((open, close): (&str, &str), lines: &mut [String]) {
    let ind = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| indent_of(l).len())
        .min()
        .unwrap_or(0);
    for l in lines {
        if l.trim().is_empty() {
            continue;
        }
        let (head, body) = l.split_at(ind);
        let mut s = format!("{head}{open} {body}");
        if !close.is_empty() {
            s.push(' ');
            s.push_str(close);
        }
        *l = s;
    }
}

/// Takes the comment markers (and the space after the opening one) off the
/// lines that start with them.
fn uncomment((open, close): (&str, &str), lines: &mut [String]) {
    for l in lines {
        let ind = indent_of(l).len();
        let Some(rest) = l[ind..].strip_prefix(open) else {
            continue;
        };
        let rest = rest.strip_prefix(' ').unwrap_or(rest);
        let rest = if close.is_empty() {
            rest
        } else {
            let r = rest.strip_suffix(close).unwrap_or(rest);
            r.strip_suffix(' ').unwrap_or(r)
        };
        *l = format!("{}{rest}", &l[..ind]);
    }
}

/// A whole-file op on the document.
fn file_op(doc: Doc, op: &str) -> Doc {
    match op {
        "eol-lf" => Doc::from_text(doc.bom, with_eol(&doc.text, "\n")),
        "eol-crlf" => Doc::from_text(doc.bom, with_eol(&doc.text, "\r\n")),
        "final-newline" => {
            if doc.text.is_empty() || doc.ends_with_newline() {
                doc
            } else {
                let eol = doc.dominant_eol();
                let t = format!("{}{eol}", doc.text);
                Doc::from_text(doc.bom, t)
            }
        }
        "no-final-newline" => {
            let t = doc.text.trim_end_matches(['\n', '\r']).to_string();
            Doc::from_text(doc.bom, t)
        }
        "strip-bom" => Doc::from_text(false, doc.text),
        _ => doc,
    }
}

/// The checks on the ops: each one known, whole-file ops without a selector,
/// shuffle with a seed, and --key counted from 1.
fn check_ops(ctx: &Ctx, a: &TransformArgs, selector: bool) -> Result<(), CmdError> {
    let cmd = "transform";
    for op in &a.op {
        if !LINE_OPS.contains(&op.as_str()) && !FILE_OPS.contains(&op.as_str()) {
            return Err(CmdError::invalid_argument(
                cmd,
                format!(
                    "--op {op:?} is not an operation; line ops: {}; whole-file ops: {}.",
                    LINE_OPS.join(" "),
                    FILE_OPS.join(" ")
                ),
            ));
        }
        if selector && FILE_OPS.contains(&op.as_str()) {
            return Err(CmdError::invalid_argument(
                cmd,
                format!("--op {op} acts on the whole file; drop the selector or run it alone."),
            ));
        }
    }
    if a.op.iter().any(|o| o == "shuffle") && a.seed.is_none() {
        let mut argv = ctx.argv.clone();
        argv.extend(["--seed".to_string(), "1".to_string()]);
        return Err(CmdError::new(
            code::ARGUMENT_INVALID,
            "--op shuffle needs --seed N (the same seed gives the same order).",
            crate::protocol::Repair::new(
                "add-seed",
                "Shuffle with seed 1; any other N gives another fixed order.",
                crate::protocol::shell::aitools(argv),
            ),
        ));
    }
    if a.key == Some(0) {
        return Err(CmdError::invalid_argument(
            cmd,
            "--key counts fields from 1.",
        ));
    }
    Ok(())
}

pub fn run(ctx: &Ctx, a: &TransformArgs) -> Result<Output, CmdError> {
    let cmd = "transform";
    let sel = a.sel.parse(cmd)?;
    let expect = guard::parse_expect_hash(cmd, &a.guard.expect_hash)?;
    let expect_count = common::parse_count(cmd, "--expect-count", a.expect_count.as_deref())?;
    check_ops(ctx, a, sel.is_some())?;
    let delim = a
        .delimiter
        .as_deref()
        .map(|d| common::compile(cmd, "--delimiter", d, false))
        .transpose()?;
    common::require_hash(cmd, sel.as_ref(), &expect, &a.path)?;
    let base = std::path::Path::new(&a.path)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    let comment = lang::of_file(base).and_then(|l| comment_of(l.name));
    let needs_lang = a.op.iter().any(|o| o == "comment" || o == "uncomment");
    if needs_lang && comment.is_none() {
        return Err(CmdError::new(
            code::UNSUPPORTED_LANGUAGE,
            format!("{} has no known comment syntax (by its extension).", a.path),
            crate::protocol::Repair::new(
                "match",
                "Prefix the lines yourself with replace over a selection.",
                crate::protocol::shell::aitools(["schema", "replace"]),
            ),
        ));
    }
    let mut c = Ctxt {
        a,
        delim,
        comment,
        removed: 0,
    };
    let mut selected = None;
    let committed = write::submit(
        ctx,
        &WriteRequest::new(ctx).dry_run(a.guard.dry.dry_run),
        || {
            let t = common::load(ctx, &a.path, a.sel.encoding())?;
            common::check_target_hash(&expect, &t, true)?;
            let mut doc = t.doc.clone();
            let blocks: Vec<std::ops::Range<usize>> = match &sel {
                None => vec![0..doc.line_count()],
                Some(s) => {
                    let b = select::select(&doc, &t.display, s)?;
                    if s.is_many() {
                        let n = b.iter().map(|r| (r.end - r.start) as u64).sum();
                        guard::check_count(cmd, &ctx.argv, expect_count, n, a.guard.dry.dry_run)?;
                        selected = Some(n);
                    }
                    b.into_iter().map(|r| r.start..r.end).collect()
                }
            };
            c.removed = 0;
            doc = c.line_ops(doc, &blocks);
            for op in a.op.iter().filter(|o| FILE_OPS.contains(&o.as_str())) {
                doc = file_op(doc, op);
            }
            guard::refuse_built_mask(
                "The transformed text",
                Some(&t.display),
                t.doc.text.as_bytes(),
                doc.text.as_bytes(),
            )?;
            put_if_changed(&t, doc)
        },
    )?;
    let mut extra: Vec<(&str, Json)> = Vec::new();
    if let (true, Some(n)) = (a.guard.dry.dry_run, selected) {
        extra.push(("expect_count", Json::UInt(n)));
    }
    extra.push(("removed_lines", Json::UInt(c.removed as u64)));
    Ok(committed.into_output(extra))
}
