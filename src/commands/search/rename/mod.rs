//! `code rename NAME NEW`: the definition, references and imports of one symbol
//! renamed across files in one guarded op (all or nothing, journaled, undoable),
//! found through the grammars of `text::syntax::refs`. It picks one definition
//! (refusing with candidates when several could be meant) and refuses a NEW that
//! already names something in a file it would change.

use super::{default_start, show, starts};
use crate::handler;
use crate::protocol::args::DryRun;
use crate::protocol::json::Json;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Output, Repair, code, shell};
use crate::store::request::{Change, WriteRequest};
use crate::store::write;
use crate::text::syntax::defs::{TreeDef, definitions};
use crate::text::syntax::grammar::Grammar;
use crate::text::syntax::imports;
use crate::text::syntax::refs::{self, Occurrence, RefKind};
use crate::workspace::Ctx;
use crate::workspace::scan_args::BudgetArgs;
use crate::workspace::{defs, paths};
use clap::Args;
use refusals::{name_taken, passed_over, scan_cut};
use std::path::{Path, PathBuf};

mod cpp;
mod hierarchy;
mod java;
mod pick;
mod refusals;
mod scoped;
mod tie;
mod via_lsp;
use java::{
    after_case, external_override, library_typed, other_class, other_member_kind,
    overrides_external, typed_as_other,
};
use pick::{pick, split_qualified};

/// Java: the other classes of ours with their own member NAME of the
/// target's kind; a receiver declared as one is not the target's.
fn other_classes(files: &[(PathBuf, Parsed)], t: &TreeDef) -> Vec<String> {
    let own_class = t.container.as_deref().map(last_part);
    files
        .iter()
        .flat_map(|(_, f)| f.defs.iter())
        .filter(|d| d.kind == t.kind)
        .filter_map(|d| d.container.as_deref().map(last_part))
        .filter(|c| Some(*c) != own_class)
        .map(str::to_string)
        .collect()
}

/// The last part of a dotted name (`B` of `A.B`).
fn last_part(s: &str) -> &str {
    s.rsplit('.').next().unwrap_or(s)
}
use scoped::{local_reason, ruby_variable_reason};

#[derive(Args, Debug)]
pub struct RenameArgs {
    /// The symbol's name, or its qualified name (`Box.helper`, `m::f`).
    #[arg(value_name = "NAME")]
    pub name: String,
    /// Its new name.
    #[arg(value_name = "NEW")]
    pub new: String,
    /// Where to look; default the working directory.
    #[arg(value_name = "PATH")]
    pub path: Option<String>,
    /// Only the definition of this kind (function, class, method, struct, ...).
    #[arg(long, value_name = "KIND")]
    pub kind: Option<String>,
    /// Only the definition in this file (or below this directory).
    #[arg(long = "in", value_name = "PATH")]
    pub in_path: Option<String>,
    /// Also rename whole-word mentions inside strings.
    #[arg(long)]
    pub strings: bool,
    /// Also rename whole-word mentions inside comments.
    #[arg(long)]
    pub comments: bool,
    /// Show each file's diff (default: counts only).
    #[arg(long)]
    pub diff: bool,
    #[command(flatten)]
    pub dry: DryRun,
    #[command(flatten)]
    pub budget: BudgetArgs,
    #[command(flatten)]
    pub lsp: crate::workspace::lsp::LspArgs,
}

pub const RENAME: CommandSpec = CommandSpec {
    name: "code rename",
    summary: "Rename a symbol everywhere it is defined, used and imported.",
    description: "Files with a compiled-in grammar below PATH (Rust, Python, Go, JavaScript, TypeScript/TSX, Java, C, C++, Ruby). Picks the one definition of NAME (a qualified NAME, --kind, --in narrow it; several left is selection.ambiguous with the qualified names as candidates); renames its definition, the uses that are not bound by a local or parameter of an enclosing function or block, imports, and member accesses: every `x.NAME` for a method or field but where x is imported from an external library (Python, JS/TS, Go, Java: a module no file in the scan is named after) and a bare NAME its file imports from one, only `module.NAME` through an imported name for a top-level symbol. A file that defines its own top-level NAME keeps it. Strings and comments only with --strings/--comments. Java: a method is renamed with the methods it overrides and that override it in our classes (read from extends/implements), and a use is tied by its receiver's class (declared type, `new T()`, a call's declared return type, `super`, the enclosing class) and what that class inherits; when another class of ours defines the member NAME too, a use that cannot be tied, or an override (@Override) by an anonymous class or through a class not scanned, refuses the rename (selection.ambiguous, the definitions as candidates, the uses listed). Refuses a Java method that overrides, or is renamed with one that overrides, (@Override) one no scanned file declares, a library's or the JDK's (refusal.external-symbol), a NEW that is not an identifier or a keyword (argument.invalid), and a NEW already used as a name in a file it would change (refusal.name-taken). A scan cut by its budget renames nothing (refusal.too-large). One op: all files or none; undo with aitools undo <op_id>. With --lsp a language server on PATH renames at the picked definition: its edits (changes or documentChanges) are the op, an edit outside the root refuses the rename (refusal.outside-workspace); no server, a failure or --lsp-timeout falls back to the grammar (lsp.used false with the reason), --lsp=require refuses instead (environment.unavailable).",
    args: <RenameArgs as clap::Args>::augment_args,
    output_fields: &[
        write::FIELD_CHANGES,
        write::FIELD_OP_ID,
        write::FIELD_DRY_RUN,
        field("changes[].count", "Occurrences renamed in that file."),
        field(
            "renamed",
            "{definition?,import?,call?,type?,other?,string?,comment?}: occurrences renamed by kind.",
        ),
        field("symbol", "{path,line,kind,name}: the definition renamed."),
        field("lsp", super::lsp::FIELD),
        field(
            "left",
            "{local?,member?,external?,string?,comment?,shadowed?}: occurrences of NAME left as they are (bound by a local, an unresolved member access, a member of a name imported from an external library (Python, JS/TS, Go, Java), in strings or comments without --strings/--comments, in files with their own NAME), present when some were.",
        ),
        write::FIELD_NEXT,
    ],
    error_codes: crate::write_error_codes![
        code::AMBIGUOUS,
        code::SYNTAX_ERROR,
        code::NO_MATCH,
        code::NAME_TAKEN,
        code::TOO_LARGE,
        code::UNAVAILABLE,
        code::OUTSIDE_WORKSPACE,
        code::NOT_UTF8,
        code::EXTERNAL_SYMBOL
    ],
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(RenameArgs, run),
};

/// One parsed file holding NAME.
struct Parsed {
    grammar: Grammar,
    text: String,
    occ: Vec<Occurrence>,
    defs: Vec<TreeDef>,
    imports: Vec<String>,
    /// Names bound by an absolute import (Python, JS/TS, Go, Java), with their top module,
    /// and the imports' spans; after `mark_external` only those read from an external library.
    external: imports::Imports,
    /// Lines where NEW is already a name (not a member, string or comment).
    new_lines: Vec<u64>,
    /// C++, Ruby and Java: every definition (the classes and methods a bare NAME may be in).
    scopes: Vec<TreeDef>,
    /// Java: the anonymous class bodies (`new T() { .. }`): byte span and T.
    anon: Vec<(usize, usize, String)>,
    /// C++: the line spans of the parse's errors (a macro the grammar cannot read).
    broken: Vec<(u64, u64)>,
}

/// A file holding NAME, parsed, when a grammar covers it.
fn parse(base: &str, text: &str, name: &str, new: &str) -> Option<Parsed> {
    let (g, tree) = refs::parse_file(base, text.as_bytes())?;
    let src = text.as_bytes();
    let all = definitions(g, &tree, src);
    let defs: Vec<TreeDef> = all.iter().filter(|d| d.name == name).cloned().collect();
    Some(Parsed {
        grammar: g,
        text: text.to_string(),
        occ: refs::occurrences(g, &tree, src, name),
        imports: refs::imported_names(&tree, src),
        external: imports::read(g, &tree, src),
        defs,
        new_lines: name_lines(g, &tree, text, new),
        anon: java::anonymous_bodies(g, &tree, src),
        scopes: if matches!(g, Grammar::Cpp | Grammar::Ruby | Grammar::Java) {
            all
        } else {
            Vec::new()
        },
        broken: if matches!(g, Grammar::Cpp | Grammar::C) {
            cpp::error_spans(&tree)
        } else {
            Vec::new()
        },
    })
}

impl Parsed {
    /// Whether the file binds `n` by an import from an external library.
    fn external_name(&self, n: &str) -> bool {
        self.external.bound.iter().any(|(b, _)| b == n)
    }
}

const CMD: &str = "code rename";

/// Counts by kind, in a fixed order.
#[derive(Default)]
struct Tally(Vec<(&'static str, u64)>);

impl Tally {
    fn add(&mut self, k: &'static str) {
        match self.0.iter_mut().find(|(n, _)| *n == k) {
            Some(e) => e.1 += 1,
            None => self.0.push((k, 1)),
        }
    }
    fn json(&self) -> Json {
        let mut o = Json::obj();
        for (k, n) in &self.0 {
            o.push(k, Json::UInt(*n));
        }
        o
    }
}

pub fn run(ctx: &Ctx, args: &RenameArgs) -> Result<Output, CmdError> {
    // A qualified NAME (`Builder.join`, `m::f`) picks the definition by its
    // qualified name; its last part is the name the files spell.
    let (name, qual) = split_qualified(&args.name);
    let new = args.new.as_str();
    if name.is_empty() {
        return Err(CmdError::invalid_argument(CMD, "NAME is empty."));
    }
    if name == new {
        return Err(CmdError::invalid_argument(
            CMD,
            "NEW is NAME: nothing to rename.",
        ));
    }
    let budget = args.budget.budget(CMD)?;
    let starts: Vec<PathBuf> = match &args.path {
        Some(p) => starts(ctx, std::slice::from_ref(p))?,
        None => vec![default_start(ctx)],
    };
    let in_path = match &args.in_path {
        Some(p) => Some(paths::real_path(ctx.dirs(), &ctx.path_arg(p)?)),
        None => None,
    };
    let req = WriteRequest::new(ctx)
        .dry_run(args.dry.dry_run)
        .max_diff_lines(if args.diff { None } else { Some(0) });
    let mut out = Outcome::default();
    let committed = write::submit(ctx, &req, || {
        let defs::Mentions {
            items: mut files,
            cut,
            left,
        } = defs::scan_mentions(
            ctx,
            CMD,
            name,
            &starts,
            defs::seeing(ctx.files().overlay()?, budget),
            |base| Grammar::of_file(base).is_some(),
            |base, text| parse(base, text, name, new),
        )?;
        // All or nothing: a scan the budget cut would rename only some files.
        if let Some(c) = &cut {
            return Err(scan_cut(ctx, &budget, c));
        }
        // Nor a file it could not read: its uses would be left behind unseen.
        if let Some((p, why)) = left.first() {
            return Err(passed_over(ctx, p, why, left.len()));
        }
        mark_external(&ctx.root, &mut files);
        let target = pick(ctx, args, (name, qual), &files, in_path.as_deref())?;
        let (tpath, tdef) = (&files[target.0].0, &files[target.0].1.defs[target.1]);
        let g = files[target.0].1.grammar;
        if !crate::text::syntax::ident::valid_identifier(g, new) {
            return Err(CmdError::invalid_argument(
                CMD,
                format!(
                    "{new:?} is not a {} identifier (or is a keyword).",
                    g.name()
                ),
            ));
        }
        if g == Grammar::Java && tdef.kind == "method" && overrides_external(&files, target) {
            return Err(external_override(args, name, &show(&ctx.root, tpath), tdef));
        }
        if let Some(e) = cpp::refusal(ctx, args, &files, (tpath, tdef, &files[target.0].1)) {
            return Err(e);
        }
        out.symbol = symbol_json(ctx, tpath, tdef);
        if args.lsp.wanted()
            && let Some(changes) = via_lsp::lsp_rename(ctx, args, &files, (tpath, tdef), &mut out)?
        {
            return Ok(changes);
        }
        grammar_rename(ctx, args, &files, target, &mut out)
    })?;
    let mut committed = committed;
    for c in &mut committed.changes {
        c.count = out
            .counts
            .iter()
            .find(|(p, _)| *p == c.path)
            .map(|(_, n)| *n);
        if !args.diff {
            c.added = None;
            c.deleted = None;
        }
    }
    let mut extra: Vec<(&str, Json)> =
        vec![("renamed", out.renamed.json()), ("symbol", out.symbol)];
    if !out.left.0.is_empty() {
        extra.push(("left", out.left.json()));
    }
    if let Some(l) = &out.lsp {
        extra.push(("lsp", l.json()));
    }
    Ok(committed.into_output(extra))
}

/// What a rename tells beside its changes: occurrences renamed per file and
/// by kind, those left, the definition, the language server's part.
struct Outcome {
    counts: Vec<(String, u64)>,
    renamed: Tally,
    left: Tally,
    symbol: Json,
    lsp: Option<super::lsp::LspOut>,
}

impl Default for Outcome {
    fn default() -> Outcome {
        Outcome {
            counts: Vec::new(),
            renamed: Tally::default(),
            left: Tally::default(),
            symbol: Json::Null,
            lsp: None,
        }
    }
}

/// `{path, line, kind, name}` of the definition renamed.
fn symbol_json(ctx: &Ctx, tpath: &Path, tdef: &TreeDef) -> Json {
    let mut sym = Json::obj();
    sym.push("path", Json::Str(show(&ctx.root, tpath)));
    sym.push("line", Json::UInt(tdef.start_line));
    sym.push("kind", Json::Str(tdef.kind.to_string()));
    sym.push("name", Json::Str(tdef.qualified.clone()));
    sym
}

/// The rename the grammars find: each file's occurrences judged against the
/// picked definition (`target`: file and definition index), all or nothing.
fn grammar_rename(
    ctx: &Ctx,
    args: &RenameArgs,
    files: &[(PathBuf, Parsed)],
    target: (usize, usize),
    out: &mut Outcome,
) -> Result<Vec<Change>, CmdError> {
    let (tpath, tdef) = (&files[target.0].0, &files[target.0].1.defs[target.1]);
    let others = other_classes(files, tdef);
    let mut member_target = Target {
        others: &others,
        ..Target::of(tdef, &tdef.name, &files[target.0].1)
    };
    // C++ `ns::f` is a free function, not a member of `ns`.
    member_target.member &= !cpp::in_namespace(tdef, &files[target.0].1);
    // A definition local to a function (a nested def, a `const` in a
    // block): only the uses its binding captures are it.
    let local_target = files[target.0]
        .1
        .occ
        .iter()
        .find(|o| {
            o.kind == RefKind::Definition && o.line >= tdef.start_line && o.line <= tdef.end_line
        })
        .and_then(|o| o.scope);
    let rivals = tie::Rivals::of(files, target.0, tdef);
    if local_target.is_none() && rivals.overrides() {
        return Err(rivals.refusal(ctx, args, tpath, &[]));
    }
    if local_target.is_none()
        && let Some((p, d)) = rivals.external()
    {
        return Err(external_override(args, &tdef.name, &show(&ctx.root, p), d));
    }
    let judge = Judge {
        tpath,
        tdef,
        cpp_class: cpp::class_of(tdef, &files[target.0].1),
        member: member_target,
        local: local_target,
        // A Ruby file-level variable (`x = foo`) holds at its file's top level
        // and in its blocks, not in methods, classes or modules.
        ruby_variable: files[target.0].1.grammar == Grammar::Ruby && tdef.kind == "variable",
        rivals: &rivals,
        args,
    };
    let mut changes: Vec<Change> = Vec::new();
    let mut taken: Vec<(String, u64)> = Vec::new();
    let mut untied: Vec<(String, u64)> = Vec::new();
    for (path, f) in files {
        let mut lines = Vec::new();
        let edits = judge.edits(path, f, &mut out.left, &mut lines);
        untied.extend(lines.into_iter().map(|l| (show(&ctx.root, path), l)));
        if edits.is_empty() {
            continue;
        }
        if let Some(&l) = f.new_lines.first() {
            taken.push((show(&ctx.root, path), l));
            continue;
        }
        changes.push(renamed_file(ctx, path, f, &edits, &args.new, out)?);
    }
    if !untied.is_empty() && judge.cpp_class.is_some() {
        let at = show(&ctx.root, tpath);
        return Err(cpp::untied_refusal(args, (&at, tdef), &untied));
    }
    if !untied.is_empty() {
        return Err(rivals.refusal(ctx, args, tpath, &untied));
    }
    if let Some((p, l)) = taken.first() {
        return Err(name_taken(ctx, args, p, *l, files));
    }
    if changes.is_empty() {
        let name = tdef.name.as_str();
        return Err(CmdError::new(
            code::NO_MATCH,
            format!("Nothing to rename: every occurrence of {name} is another symbol's."),
            Repair::new(
                "refs",
                "See the occurrences and how each was classified.",
                shell::aitools(["code", "refs", name, "--include", "strings,comments,locals"]),
            ),
        ));
    }
    Ok(changes)
}

/// `path` with `edits` spelled `new`, from the bytes on disk (which must be
/// the text parsed: a file that is not UTF-8 refuses the whole rename).
fn renamed_file(
    ctx: &Ctx,
    path: &Path,
    f: &Parsed,
    edits: &[&Occurrence],
    new: &str,
    out: &mut Outcome,
) -> Result<Change, CmdError> {
    let snap = ctx.files().load_follow(path)?;
    if snap.bytes != f.text.as_bytes() {
        return Err(CmdError::new(
            code::NOT_UTF8,
            format!(
                "{} is not valid UTF-8 text; nothing was renamed.",
                show(&ctx.root, path)
            ),
            Repair::new(
                "inspect",
                "See the file's encoding; convert it to UTF-8, or rename below a path that leaves it out (code rename NAME NEW PATH).",
                shell::aitools(["info", &show(&ctx.root, path)]),
            ),
        ));
    }
    let mut bytes = Vec::with_capacity(snap.bytes.len());
    let mut at = 0;
    for o in edits {
        bytes.extend_from_slice(&snap.bytes[at..o.start]);
        bytes.extend_from_slice(new.as_bytes());
        at = o.end;
        out.renamed.add(o.kind.name());
    }
    bytes.extend_from_slice(&snap.bytes[at..]);
    out.counts.push((show(&ctx.root, path), edits.len() as u64));
    Ok(Change::Put {
        path: path.to_path_buf(),
        bytes,
        mode: None,
    })
}

/// The lines where `new` is already a name in `text` (not a member, string or comment).
fn name_lines(
    g: Grammar,
    tree: &crate::text::syntax::grammar::Tree,
    text: &str,
    new: &str,
) -> Vec<u64> {
    if !text.contains(new) {
        return Vec::new();
    }
    refs::occurrences(g, tree, text.as_bytes(), new)
        .into_iter()
        .filter(|o| o.member_of.is_none() && !matches!(o.kind, RefKind::String | RefKind::Comment))
        .map(|o| o.line)
        .collect()
}

/// Marks the names each file imports from a module no scanned file (a file
/// that mentions NAME) is named after, by a path component or a file stem: an
/// external library (`import requests`), whose `x.NAME` is not this NAME.
fn mark_external(root: &std::path::Path, files: &mut [(PathBuf, Parsed)]) {
    let own = imports::own_modules(root, files.iter().map(|(p, _)| p.as_path()));
    for (_, f) in files.iter_mut() {
        f.external.bound.retain(|(_, m)| !own.contains(m));
        f.external.spans.retain(|(_, _, m)| !own.contains(m));
    }
}

/// How each occurrence is judged: the picked definition and where it holds.
struct Judge<'a> {
    tpath: &'a Path,
    tdef: &'a TreeDef,
    /// C++: the class of a member target (its simple name).
    cpp_class: Option<String>,
    member: Target<'a>,
    /// A definition local to a function or block: the scope its binding holds in.
    local: Option<(usize, usize)>,
    ruby_variable: bool,
    rivals: &'a tie::Rivals<'a>,
    args: &'a RenameArgs,
}

impl Judge<'_> {
    /// The occurrences of `f` to rename; the others tallied in `left`, or
    /// their lines pushed to `untied` when another class's NAME could be meant.
    fn edits<'f>(
        &self,
        path: &Path,
        f: &'f Parsed,
        left: &mut Tally,
        untied: &mut Vec<u64>,
    ) -> Vec<&'f Occurrence> {
        let (at, args) = (path == self.tpath, self.args);
        let own = !at
            && f.defs
                .iter()
                .any(|d| d.container.is_none() && !self.member.member);
        let mut edits = Vec::new();
        for o in &f.occ {
            if let Some(c) = &self.cpp_class
                && let Some(ours) = cpp::qualified_by(o, f, c)
            {
                if ours {
                    edits.push(o);
                } else {
                    untied.push(o.line);
                }
                continue;
            }
            let why = match self.local {
                Some(s) => local_reason(o, f, s, at, args),
                None if self.ruby_variable => ruby_variable_reason(o, f, at, args),
                None if let Some(w) = self.by_class(o, f, path) => w,
                None => match skip_reason(o, f, at, self.tdef, self.member, own, args) {
                    Some(w) => Some(w),
                    None => match self.rivals.tie(o, f, at) {
                        Some(w) => w,
                        None => {
                            untied.push(o.line);
                            continue;
                        }
                    },
                },
            };
            match why {
                Some(w) => left.add(w),
                None => edits.push(o),
            }
        }
        edits
    }
}

impl Judge<'_> {
    /// Java: a use of a member judged by its receiver's class (or the
    /// enclosing class), once the reasons that hold for any class are out.
    fn by_class(&self, o: &Occurrence, f: &Parsed, path: &Path) -> Option<Option<&'static str>> {
        let plain = f.grammar == Grammar::Java
            && self.member.member
            && !o.local
            && !matches!(o.kind, RefKind::String | RefKind::Comment | RefKind::Import)
            && !(o.member_of.is_none() && f.external.span_module(o.start).is_some())
            && (self.member.case_label || !after_case(&f.text, o.start))
            && !other_member_kind(f, o, self.tdef)
            && !matches!(&o.member_of, Some(Some(obj)) if f.external_name(obj));
        if plain {
            self.rivals.resolve(o, f, path)
        } else {
            None
        }
    }
}

/// What the picked definition is to its uses.
#[derive(Clone, Copy)]
struct Target<'a> {
    /// Java: other classes of ours with a member NAME of the target's kind.
    others: &'a [String],
    /// A method or field (`x.NAME` may name it).
    member: bool,
    /// Not a Java field that could not be a `case` label (one whose type is
    /// not primitive or String, or not final).
    case_label: bool,
}

impl Target<'_> {
    fn of(t: &TreeDef, name: &str, f: &Parsed) -> Target<'static> {
        let member = t.container.is_some()
            && matches!(
                t.kind,
                "method" | "field" | "property" | "function" | "constant" | "variable"
            )
            && t.qualified != name;
        let case_label = f.grammar != Grammar::Java || t.kind != "field" || {
            let line = f.text.lines().nth(t.start_line as usize - 1).unwrap_or("");
            let before = line.split(name).next().unwrap_or("");
            let words: Vec<&str> = before.split_whitespace().collect();
            words.contains(&"final")
                && words.last().is_some_and(|w| {
                    matches!(
                        *w,
                        "byte"
                            | "short"
                            | "int"
                            | "long"
                            | "char"
                            | "float"
                            | "double"
                            | "boolean"
                            | "String"
                    )
                })
        };
        Target {
            others: &[],
            member,
            case_label,
        }
    }
}

/// C++: whether `o` is inside the class of the member `t`, in its body or in
/// one of its methods (`int A::g() {}` too), where a bare NAME is the member
/// and a declaration of NAME declares it (`int f();`, `int A::f() {}`).
fn in_own_class(o: &Occurrence, f: &Parsed, t: &TreeDef) -> bool {
    let Some((class, _)) = t.qualified.rsplit_once("::") else {
        return false;
    };
    if o.member_of.is_some() {
        return false;
    }
    f.scopes
        .iter()
        .filter(|d| o.line >= d.start_line && o.line <= d.end_line)
        .min_by_key(|d| d.end_line - d.start_line)
        .is_some_and(|d| {
            d.qualified == class
                || d.qualified
                    .rsplit_once("::")
                    .is_some_and(|(c, _)| c == class)
        })
}

/// Whether `d` is a constructor of the type `t` (named after it, inside it).
fn constructor_of(d: &TreeDef, t: &TreeDef) -> bool {
    d.kind == "constructor"
        && matches!(t.kind, "class" | "struct" | "enum" | "record")
        && d.name == t.name
        && d.qualified
            .strip_prefix(t.qualified.as_str())
            .is_some_and(|rest| {
                rest.trim_start_matches([':', '.']) == t.name && rest.len() > t.name.len()
            })
}

/// Why an occurrence is not renamed, or `None` when it is.
fn skip_reason(
    o: &Occurrence,
    f: &Parsed,
    in_target_file: bool,
    t: &TreeDef,
    target: Target,
    own: bool,
    args: &RenameArgs,
) -> Option<&'static str> {
    let member_target = target.member;
    match o.kind {
        RefKind::String if !args.strings => return Some("string"),
        RefKind::Comment if !args.comments => return Some("comment"),
        RefKind::String | RefKind::Comment => return None,
        _ => {}
    }
    // A name inside an import from an external library (`get` of `from
    // requests import get as g`) is that library's.
    if o.member_of.is_none() && f.external.span_module(o.start).is_some() {
        return Some("external");
    }
    if o.local {
        return Some("local");
    }
    if f.grammar == Grammar::Cpp && target.member && in_own_class(o, f, t) {
        return None;
    }
    let inner = f
        .defs
        .iter()
        .filter(|d| o.line >= d.start_line && o.line <= d.end_line)
        .min_by_key(|d| d.end_line - d.start_line)
        .filter(|_| o.kind == RefKind::Definition);
    let own_def = in_target_file && inner.is_some_and(|d| d.qualified == t.qualified);
    if inner.is_some_and(|d| constructor_of(d, t)) {
        return None;
    }
    // Another definition of the same name (a method of another class, a nested def).
    if let Some(d) = inner
        && (d.qualified != t.qualified
            || !in_target_file
            || matches!((d.kind, t.kind), ("field", "method") | ("method", "field")))
        && !(member_target && d.kind == t.kind && !in_target_file)
    {
        return Some("shadowed");
    }
    if !target.case_label && f.grammar == Grammar::Java && after_case(&f.text, o.start) {
        // `case X:` names an enum constant of the switched type, or a constant
        // variable: not a field that cannot be one.
        return Some("member");
    }
    if member_target && f.grammar == Grammar::Java && other_member_kind(f, o, t) {
        return Some("member");
    }
    if member_target {
        return match &o.member_of {
            Some(Some(obj)) if f.external_name(obj) => Some("external"),
            // `Other.NAME`, or `x.NAME` with x declared as another class of ours with its own NAME.
            Some(Some(obj))
                if f.grammar == Grammar::Java
                    && (other_class(obj, t) || typed_as_other(f, obj, target.others)) =>
            {
                Some("member")
            }
            Some(Some(obj)) if f.grammar == Grammar::Java && library_typed(f, obj) => {
                Some("external")
            }
            // `this.NAME` in another class's file that has its own NAME.
            Some(Some(obj))
                if f.grammar == Grammar::Java
                    && obj == "this"
                    && !in_target_file
                    && f.defs.iter().any(|d| d.kind == t.kind) =>
            {
                Some("shadowed")
            }
            Some(_) => None,
            None if o.kind == RefKind::Definition && in_target_file => None,
            None if f.grammar == Grammar::Rust => None,
            // A Java field or Ruby method by its bare name in its own class's
            // file (locals are resolved).
            None if matches!(f.grammar, Grammar::Java | Grammar::Ruby) && in_target_file => None,
            // A Java `import static a.B.NAME;` brings the member in by its bare name.
            None if f.grammar == Grammar::Java && f.imports.contains(&t.name) => None,
            None => Some("shadowed"),
        };
    }
    if own {
        return Some("shadowed");
    }
    top_level_reason(o, f, &t.name, own_def)
}

/// Why a use of a top-level NAME in a file without its own NAME is not renamed.
fn top_level_reason(o: &Occurrence, f: &Parsed, name: &str, own_def: bool) -> Option<&'static str> {
    let external = |n: &str| f.external_name(n);
    match &o.member_of {
        None if o.in_type && o.kind == RefKind::Definition && !own_def => Some("shadowed"),
        // A bare NAME the file imports from an external library (`from requests import get`).
        None if o.bound_by_import(f.grammar) && external(name) => Some("external"),
        None => None,
        Some(Some(obj)) if external(obj) => Some("external"),
        Some(Some(obj)) if f.imports.iter().any(|i| i == obj) => None,
        Some(_) => Some("member"),
    }
}
