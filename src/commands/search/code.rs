//! `code outline`, `code defs`, `code refs`: definitions and mentions of names,
//! found with the language table (`data/languages.tsv`, `data/definitions.tsv`)
//! over the same scan as `search`.

use super::{chars, show, starts, with_limit};
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, Field, field};
use crate::protocol::{CmdError, Output, Repair, code, shell};
use crate::store::files::{Found, Kind};
use crate::text::lang::{self, Language};
use crate::text::outline;
use crate::text::syntax::imports;
use crate::text::{MAX_LINE_BYTES, sniff};
use crate::workspace::Ctx;
use crate::workspace::candidates::{self, Offer};
use crate::workspace::defs;
use crate::workspace::scan::{self, Budget};
use crate::workspace::scan_args::{BudgetArgs, FIELD_SCAN_CUT, raise_budget};
use clap::Args;
use serde::Serialize;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct OutlineArgs {
    /// The file.
    #[arg(value_name = "PATH")]
    pub path: String,
    /// Symbols returned.
    #[arg(long, value_name = "N", default_value = "200")]
    pub limit: u64,
}

#[derive(Args, Debug)]
pub struct DefsArgs {
    /// The definition name, or qualified by its container: `Class.method`,
    /// `Receiver.Method` (Go), `Type::method`.
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Where to look; default the working directory.
    #[arg(value_name = "PATH")]
    pub path: Option<String>,
    /// Match names starting with NAME.
    #[arg(long)]
    pub prefix: bool,
    /// Only this kind (function, macro, class, ...; see code outline).
    #[arg(long, value_name = "KIND")]
    pub kind: Option<String>,
    /// Definitions returned.
    #[arg(long, value_name = "N", default_value = "50")]
    pub limit: u64,
    #[command(flatten)]
    pub budget: BudgetArgs,
}

#[derive(Args, Debug)]
pub struct RefsArgs {
    /// The name.
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Where to look; default the working directory.
    #[arg(value_name = "PATH")]
    pub path: Option<String>,
    /// Lines returned.
    #[arg(long, value_name = "N", default_value = "50")]
    pub limit: u64,
    /// Also list mentions in these (comma-separated): strings, comments, locals.
    #[arg(long, value_name = "KINDS", value_delimiter = ',')]
    pub include: Vec<String>,
    #[command(flatten)]
    pub budget: BudgetArgs,
    #[command(flatten)]
    pub lsp: crate::workspace::lsp::LspArgs,
}

const LANGS_DOC: &str = "Rust, Python, Go, JavaScript, TypeScript/TSX, Java, C, C++ and Ruby are parsed by their tree-sitter grammar (kinds and qualified names from the tree, end_line exact). Other definitions come from the language table shared with read --symbol: Rust, Python, JavaScript, TypeScript, Go, C, C++, Java, Kotlin, C#, Ruby, Lua, shell, Markdown headings, Common Lisp, Emacs Lisp, Scheme, Clojure, Nix, Perl, PHP and Swift. end_line is estimated by balanced braces, indentation, balanced parentheses, or the next heading of the same or a higher level.";

/// The `skipped` field of code defs and code refs.
const FIELD_SKIPPED: Field = field(
    "skipped",
    "Only when a file was passed over unread, so a name in it could not be seen: [{reason,count,examples}], one per reason, examples the first 3 paths; reason is unreadable (its mode), too-large, non-utf8-name or special.",
);

pub const OUTLINE: CommandSpec = CommandSpec {
    name: "code outline",
    summary: "The definitions in one source file, with line ranges.",
    description: LANGS_DOC,
    args: <OutlineArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "path",
            "The file, workspace-relative when inside the workspace.",
        ),
        field("lang", "The language."),
        field(
            "symbols",
            "[{line,end_line,kind,name,container?,qualified?}] in line order; container is the type a Go receiver or C++ `Type::name` names, else the nearest definition around it; qualified (from the grammar) is the name with every enclosing one: m::Type::method (Rust, C++), Class.method.",
        ),
        field("total", "Definitions before --limit."),
        field(
            "truncated",
            "True when --limit cut the list (status partial, exit 3).",
        ),
        field(
            "next_commands",
            "The call again with a --limit that lists every definition.",
        ),
    ],
    error_codes: &[
        code::UNSUPPORTED_LANGUAGE,
        code::UNSUPPORTED_FORMAT,
        code::NOT_FOUND,
        code::INTERNAL,
    ],
    writes: false,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(OutlineArgs, run_outline),
};

pub const DEFS: CommandSpec = CommandSpec {
    name: "code defs",
    summary: "Where a name (or Container.name) is defined.",
    description: "Every file of a language with definition rules (see code outline) below PATH, under the scan's ignore rules.",
    args: <DefsArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "defs",
            "[{path,line,end_line,kind,name,container?,qualified?}] in path and line order; container and qualified as in code outline.",
        ),
        field("total", "Definitions before --limit."),
        field(
            "truncated",
            "True when --limit cut the list, or the scan budget cut the scan (status partial, exit 3).",
        ),
        FIELD_SCAN_CUT,
        FIELD_SKIPPED,
        field(
            "next_commands",
            "The call again with a --limit that lists every definition, or with the spent scan budget raised.",
        ),
    ],
    error_codes: &[code::ARGUMENT_INVALID, code::NOT_FOUND, code::INTERNAL],
    writes: false,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(DefsArgs, run_defs),
};

pub const REFS: CommandSpec = CommandSpec {
    name: "code refs",
    summary: "Where a name is used: calls, imports, types, definitions.",
    description: "Every text file below PATH, under the scan's ignore rules. Files with a compiled-in grammar (Rust, Python, Go, JavaScript, TypeScript/TSX, Java, C, C++, Ruby) are parsed: each identifier spelled NAME is classified, mentions inside strings and comments are left out unless --include asks, and a name bound by a parameter or local of an enclosing function (Python, JavaScript/TypeScript, Rust) is another symbol, left out unless --include locals; `x.NAME` where x is imported from an external library (Python, JS/TS, Go, Java: a module no listed file is named after) is not listed, nor is a bare NAME its file imports from one (`from requests import NAME`). Other files: whole-identifier matches by line, identifier characters from the file's language (Lisp names may hold -, *, ?, ...); files of no language use letters, digits and _.",
    args: <RefsArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "refs",
            "[{path,line,kind,text}] one per line and kind; kind is definition, import, call, type, other, string, comment or local (regex-matched files: definition or other).",
        ),
        field(
            "left_out",
            "{string?,comment?,local?,external?}: occurrences not listed (--include lists string, comment, local; external: members of an external library), present when some were.",
        ),
        field("total", "Lines before --limit."),
        field(
            "truncated",
            "True when --limit cut the list, or the scan budget cut the scan (status partial, exit 3).",
        ),
        field("approx_tokens", "ceil(characters of returned text / 4)."),
        FIELD_SCAN_CUT,
        field("lsp", super::lsp::FIELD),
        FIELD_SKIPPED,
        field(
            "next_commands",
            "The call again with a --limit that lists every line, or with the spent scan budget raised.",
        ),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::NOT_FOUND,
        code::UNAVAILABLE,
        code::INTERNAL,
    ],
    writes: false,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(RefsArgs, run_refs),
};

#[derive(Serialize)]
struct Symbol {
    line: u64,
    end_line: u64,
    kind: String,
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    container: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    qualified: Option<String>,
}

#[derive(Serialize)]
struct OutlineOut {
    path: String,
    lang: &'static str,
    symbols: Vec<Symbol>,
    total: u64,
    truncated: bool,
    next_commands: Vec<String>,
}

#[derive(Serialize)]
struct Def {
    path: String,
    line: u64,
    end_line: u64,
    kind: String,
    name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    container: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    qualified: Option<String>,
}

#[derive(Serialize)]
struct DefsOut {
    defs: Vec<Def>,
    total: u64,
    truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    scan_cut: Option<scan::Cut>,
    /// Files passed over unread (`unreadable`, `too-large`, ...): a name in them
    /// could not be looked for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    skipped: Vec<super::Skipped>,
    next_commands: Vec<String>,
}

#[derive(Serialize)]
struct Ref {
    path: String,
    line: u64,
    kind: &'static str,
    text: String,
}

#[derive(Serialize, Default)]
struct LeftOut {
    #[serde(skip_serializing_if = "is_zero")]
    string: u64,
    #[serde(skip_serializing_if = "is_zero")]
    comment: u64,
    #[serde(skip_serializing_if = "is_zero")]
    local: u64,
    #[serde(skip_serializing_if = "is_zero")]
    external: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Serialize)]
struct RefsOut {
    refs: Vec<Ref>,
    #[serde(skip_serializing_if = "Option::is_none")]
    left_out: Option<LeftOut>,
    total: u64,
    truncated: bool,
    approx_tokens: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    scan_cut: Option<scan::Cut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lsp: Option<super::lsp::LspOut>,
    /// Files passed over unread (`unreadable`, `too-large`, ...): a name in them
    /// could not be looked for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    skipped: Vec<super::Skipped>,
    next_commands: Vec<String>,
}

pub fn run_outline(ctx: &Ctx, args: &OutlineArgs) -> Result<Output, CmdError> {
    let abs = ctx.path_arg(&args.path)?;
    let shown = ctx.display_path(&abs);
    // Through the view: with --tx the staged file (or the tx's removal) decides.
    if let Found::Removed = ctx.files().find(&abs)? {
        return Err(ctx.files().removed_error(&args.path, &abs).into());
    }
    let kind = ctx.files().stat(&abs, true)?.kind;
    if kind == Kind::Missing {
        let gone = std::io::Error::from(std::io::ErrorKind::NotFound);
        return Err(candidates::not_found_or_io(ctx, &args.path, &abs, &gone, Offer::Retry).into());
    }
    if kind != Kind::File {
        return Err(CmdError::new(
            code::UNSUPPORTED_FORMAT,
            format!("{} is not a regular file.", args.path),
            Repair::new(
                "find",
                "Outline one file; list the directory's source files first.",
                shell::aitools(["find", "*", &args.path, "--type", "file"]),
            ),
        ));
    }
    let name = defs::base_name(&abs);
    let Some(language) = outline::language_of(&name) else {
        let known = lang::all()
            .iter()
            .filter(|l| outline::supports(l))
            .map(|l| l.name)
            .collect::<Vec<_>>()
            .join(", ");
        return Err(CmdError::new(
            code::UNSUPPORTED_LANGUAGE,
            format!(
                "No definition rules cover {} (languages with rules: {known}).",
                args.path
            ),
            Repair::new(
                "read",
                "Read the file's lines instead (aitools search PATTERN PATH finds lines in it).",
                shell::aitools(["read", &args.path]),
            ),
        ));
    };
    let snap = ctx.files().load_follow(&abs)?;
    ctx.files().record_read(&abs)?;
    let bytes = &snap.bytes;
    if sniff::is_binary(bytes) {
        return Err(CmdError::new(
            code::UNSUPPORTED_FORMAT,
            format!("{} is binary.", args.path),
            Repair::new(
                "info",
                "Check what the file is.",
                shell::aitools(["info", &args.path]),
            ),
        ));
    }
    let text = String::from_utf8_lossy(bytes);
    let defs = outline::outline_parsed(&name, &text).unwrap_or_default();
    let total = defs.len() as u64;
    let truncated = total > args.limit;
    let symbols = defs
        .into_iter()
        .take(args.limit as usize)
        .map(|d| Symbol {
            line: d.start_line,
            end_line: d.end_line,
            qualified: shown_qualified(&d),
            kind: d.kind,
            name: d.name,
            container: d.container,
        })
        .collect();
    let mut next_commands = Vec::new();
    if truncated {
        next_commands.push(with_limit(ctx, total, None));
    }
    let out = OutlineOut {
        path: shown,
        lang: language.name,
        symbols,
        total,
        truncated,
        next_commands,
    };
    Ok(Output::cut(&out, truncated))
}

pub fn run_defs(ctx: &Ctx, args: &DefsArgs) -> Result<Output, CmdError> {
    let name = args.name.as_str();
    let budget = args.budget.budget("code defs")?;
    let starts = named_starts(ctx, "code defs", name, &args.path)?;
    let defs::Mentions { items, cut, left } = defs::find(
        ctx,
        "code defs",
        name,
        args.kind.as_deref(),
        args.prefix,
        &starts,
        defs::seeing(ctx.files().overlay()?, budget),
    )?;
    let all: Vec<Def> = items
        .into_iter()
        .flat_map(|(p, defs)| {
            let shown = show(&ctx.root, &p);
            defs.into_iter().map(move |d| Def {
                qualified: shown_qualified(&d),
                path: shown.clone(),
                line: d.start_line,
                end_line: d.end_line,
                kind: d.kind,
                name: d.name,
                container: d.container,
            })
        })
        .collect();
    let total = all.len() as u64;
    let truncated = total > args.limit;
    let defs = all.into_iter().take(args.limit as usize).collect();
    let (truncated, next_commands) = continuation(ctx, &budget, &cut, truncated, total);
    Ok(Output::cut(
        &DefsOut {
            defs,
            total,
            truncated,
            scan_cut: cut,
            skipped: super::skipped_list(&ctx.root, left),
            next_commands,
        },
        truncated,
    ))
}

/// A definition's qualified name when it says more than its name.
fn shown_qualified(d: &outline::Definition) -> Option<String> {
    d.qualified.clone().filter(|q| *q != d.name)
}

type Mentions = Vec<(PathBuf, FileHits)>;

/// With --lsp: the server's references at the grammar's definition of NAME
/// (else its first mention) replace the grammar's list; each keeps the
/// grammar's kind where the grammar saw that line, else `other`.
fn refs_lsp(
    ctx: &Ctx,
    args: &RefsArgs,
    items: Mentions,
) -> Result<(Mentions, Option<super::lsp::LspOut>), CmdError> {
    use super::lsp::LspOut;
    if !args.lsp.wanted() {
        return Ok((items, None));
    }
    let first = items
        .iter()
        .flat_map(|(p, (hits, _))| hits.iter().map(move |h| (p, h)))
        .find(|(_, h)| h.1 == "definition")
        .or_else(|| {
            items
                .iter()
                .flat_map(|(p, (hits, _))| hits.iter().map(move |h| (p, h)))
                .next()
        })
        .map(|(p, h)| (p.clone(), h.0));
    let asked = match first {
        None => Err("NAME was not found to ask about".to_string()),
        Some((p, line)) => super::lsp::ask(
            ctx,
            &args.lsp,
            &p,
            line,
            &args.name,
            &crate::workspace::lsp::Ask::References,
            &items.iter().map(|(p, _)| p.as_path()).collect::<Vec<_>>(),
        ),
    };
    let (server, locs) = match asked {
        Ok(v) => v,
        Err(reason) if args.lsp.required() => return Err(super::lsp::required(ctx, &reason)),
        Err(reason) => {
            let out = LspOut {
                used: false,
                server: None,
                reason: Some(reason),
            };
            return Ok((items, Some(out)));
        }
    };
    let mut by_file: std::collections::BTreeMap<PathBuf, Vec<u64>> = Default::default();
    for l in &locs {
        by_file
            .entry(l.path.clone())
            .or_default()
            .push(u64::from(l.line) + 1);
    }
    let mut out: Mentions = Vec::new();
    for (p, mut lines) in by_file {
        lines.sort_unstable();
        lines.dedup();
        let grammar = items.iter().find(|(q, _)| *q == p).map(|(_, (h, _))| h);
        let text = ctx
            .files()
            .load(&p)
            .map(|s| String::from_utf8_lossy(&s.bytes).into_owned())
            .unwrap_or_default();
        let all: Vec<&str> = text.lines().collect();
        let hits = lines
            .into_iter()
            .map(|n| {
                let kind = grammar
                    .and_then(|h| h.iter().find(|x| x.0 == n))
                    .map_or("other", |x| x.1);
                let l = all.get(n as usize - 1).copied().unwrap_or("").trim_end();
                let l = l.get(..MAX_LINE_BYTES.min(l.len())).unwrap_or(l);
                (n, kind, l.to_string(), None)
            })
            .collect();
        out.push((p, (hits, [0, 0, 0])));
    }
    let used = LspOut {
        used: true,
        server: Some(server),
        reason: None,
    };
    Ok((out, Some(used)))
}

/// Whether `name` occurs in `line` with no identifier character touching it.
fn mentions(line: &str, name: &str, language: Option<&Language>) -> bool {
    let is_ident = |c: char| match language {
        Some(l) => l.is_ident(c),
        None => c.is_alphanumeric() || c == '_',
    };
    let mut from = 0;
    while let Some(pos) = line.get(from..).and_then(|s| s.find(name)) {
        let at = from + pos;
        let end = at + name.len();
        let before_ok = line
            .get(..at)
            .and_then(|s| s.chars().next_back())
            .is_none_or(|c| !is_ident(c));
        let after_ok = line
            .get(end..)
            .and_then(|s| s.chars().next())
            .is_none_or(|c| !is_ident(c));
        if before_ok && after_ok {
            return true;
        }
        from = at
            + line
                .get(at..)
                .and_then(|s| s.chars().next())
                .map_or(1, char::len_utf8);
    }
    false
}

/// One file's listed occurrences (line, kind, line text, and the module of an
/// absolute import the receiver `x` of an `x.NAME`, or a bare NAME, names) and
/// what was left out.
type FileHits = (Vec<(u64, &'static str, String, Option<String>)>, [u64; 3]);

/// `code refs` on one file: through its grammar when one covers it, else by line.
fn file_refs(base: &str, text: &str, name: &str, include: &[String]) -> Option<FileHits> {
    use crate::text::syntax::refs::{self, RefKind};
    let with = |k: &str| include.iter().any(|i| i.trim_end_matches('s') == k);
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let lines: Vec<&str> = text.lines().collect();
    let line_text = |n: u64| {
        let l = lines.get(n as usize - 1).copied().unwrap_or("");
        l.get(..MAX_LINE_BYTES.min(l.len()))
            .unwrap_or(l)
            .to_string()
    };
    let mut left = [0u64; 3];
    let mut hits: Vec<(u64, &'static str, String, Option<String>)> = Vec::new();
    if let Some((g, tree)) = refs::parse_file(base, text.as_bytes()) {
        let imported = imports::read(g, &tree, text.as_bytes());
        for o in refs::occurrences(g, &tree, text.as_bytes(), name) {
            let kind = if o.local {
                if !with("local") {
                    left[2] += 1;
                    continue;
                }
                "local"
            } else {
                match o.kind {
                    RefKind::String if !with("string") => {
                        left[0] += 1;
                        continue;
                    }
                    RefKind::Comment if !with("comment") => {
                        left[1] += 1;
                        continue;
                    }
                    k => k.name(),
                }
            };
            // `x.NAME` with x imported, a NAME inside an import (`get` of `from
            // requests import get as g`), or a bare NAME the file imports itself
            // (`from requests import get`) and no local binds: the module it is
            // read from.
            let bound = |n: &str| imported.bound.iter().find(|(b, _)| b == n).map(|i| &i.1);
            let via = match &o.member_of {
                Some(Some(obj)) => bound(obj),
                Some(None) => None,
                None => imported.span_module(o.start).or_else(|| {
                    (!o.local && o.bound_by_import(g))
                        .then(|| bound(name))
                        .flatten()
                }),
            };
            if hits
                .last()
                .is_some_and(|h| h.0 == o.line && h.1 == kind && h.3.as_ref() == via)
            {
                continue;
            }
            hits.push((o.line, kind, line_text(o.line), via.cloned()));
        }
        return (!hits.is_empty() || left.iter().any(|&n| n > 0)).then_some((hits, left));
    }
    let language = lang::of_file(base);
    let def_lines: Vec<u64> = outline::outline(base, text)
        .map(|defs| {
            defs.into_iter()
                .filter(|d| d.name == name)
                .map(|d| d.start_line)
                .collect()
        })
        .unwrap_or_default();
    for (i, l) in lines.iter().enumerate() {
        if mentions(l, name, language) {
            let n = i as u64 + 1;
            let kind = if def_lines.contains(&n) {
                "definition"
            } else {
                "other"
            };
            hits.push((n, kind, line_text(n), None));
        }
    }
    (!hits.is_empty()).then_some((hits, left))
}

pub fn run_refs(ctx: &Ctx, args: &RefsArgs) -> Result<Output, CmdError> {
    let name = args.name.as_str();
    for i in &args.include {
        if !matches!(
            i.as_str(),
            "string" | "strings" | "comment" | "comments" | "local" | "locals"
        ) {
            return Err(CmdError::invalid_argument(
                "code refs",
                format!("--include takes strings, comments, locals (comma-separated), not {i:?}."),
            ));
        }
    }
    let budget = args.budget.budget("code refs")?;
    let starts = named_starts(ctx, "code refs", name, &args.path)?;
    let include = &args.include;
    let defs::Mentions {
        items,
        cut,
        left: passed,
    } = defs::scan_mentions(
        ctx,
        "code refs",
        name,
        &starts,
        defs::seeing(ctx.files().overlay()?, budget),
        |_| true,
        |base, text| file_refs(base, text, name, include),
    )?;
    let own = imports::own_modules(&ctx.root, items.iter().map(|(p, _)| p.as_path()));
    let (items, lsp) = refs_lsp(ctx, args, items)?;
    let mut refs = Vec::new();
    let mut total = 0u64;
    let mut text_chars = 0usize;
    let mut left = LeftOut::default();
    for (p, (hits, l)) in items {
        left.string += l[0];
        left.comment += l[1];
        left.local += l[2];
        let shown = show(&ctx.root, &p);
        let mut last: Option<(u64, &str)> = None;
        for (line, kind, text, via) in hits {
            if via.is_some_and(|m| !own.contains(&m)) {
                left.external += 1;
                continue;
            }
            if last.replace((line, kind)) == Some((line, kind)) {
                continue;
            }
            total += 1;
            if refs.len() as u64 >= args.limit {
                continue;
            }
            text_chars += chars(&text);
            refs.push(Ref {
                path: shown.clone(),
                line,
                kind,
                text,
            });
        }
    }
    let left_out = (left.string + left.comment + left.local + left.external > 0).then_some(left);
    let truncated = total > args.limit;
    let (truncated, next_commands) = continuation(ctx, &budget, &cut, truncated, total);
    Ok(Output::cut(
        &RefsOut {
            refs,
            left_out,
            total,
            truncated,
            approx_tokens: crate::protocol::approx_tokens_chars(text_chars),
            scan_cut: cut,
            lsp,
            skipped: super::skipped_list(&ctx.root, passed),
            next_commands,
        },
        truncated,
    ))
}

/// Where `code defs` and `code refs` look: PATH, else the working directory; an
/// empty NAME is refused first.
fn named_starts(
    ctx: &Ctx,
    command: &str,
    name: &str,
    path: &Option<String>,
) -> Result<Vec<PathBuf>, CmdError> {
    if name.is_empty() {
        return Err(CmdError::invalid_argument(command, "NAME is empty."));
    }
    starts(ctx, path.as_slice())
}

/// `truncated` and `next_commands` of a list: a cut scan continues with its
/// budget raised (its totals are partial), a full one cut by --limit with the
/// --limit that lists everything.
fn continuation(
    ctx: &Ctx,
    budget: &Budget,
    cut: &Option<scan::Cut>,
    limited: bool,
    total: u64,
) -> (bool, Vec<String>) {
    match cut {
        Some(c) => (true, vec![raise_budget(ctx, budget, c)]),
        None if limited => (true, vec![with_limit(ctx, total, None)]),
        None => (false, Vec::new()),
    }
}
