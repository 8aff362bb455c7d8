//! C++: what a rename of a class member cannot follow from the grammar alone,
//! refused rather than guessed. Another class of ours declaring NAME (a base
//! class's virtual method, a rival with a method of that name) leaves every
//! `x->NAME` open to either; a constructor is its class's name; an `override`
//! of no class of ours overrides a library's method; `X::NAME` through a name
//! that is not the member's class (an alias, a derived class) is not tied.

use super::{Parsed, RenameArgs, show};
use crate::protocol::json::Json;
use crate::protocol::{CmdError, Repair, code, shell};
use crate::text::syntax::defs::TreeDef;
use crate::text::syntax::grammar::Grammar;
use crate::text::syntax::refs::{Occurrence, RefKind};
use crate::workspace::Ctx;
use std::path::{Path, PathBuf};

/// The part of a C++ qualified name before its last `::` (`a::B` of `a::B::f`).
fn prefix(q: &str) -> Option<&str> {
    q.rsplit_once("::").map(|(p, _)| p)
}

fn last(q: &str) -> &str {
    q.rsplit("::").next().unwrap_or(q)
}

/// Whether `t` sits directly in a namespace of its file (a free function,
/// `ns::f`), not in a class.
pub(super) fn in_namespace(t: &TreeDef, f: &Parsed) -> bool {
    f.grammar == Grammar::Cpp
        && prefix(&t.qualified).is_none_or(|p| {
            p.is_empty()
                || f.scopes
                    .iter()
                    .any(|d| d.kind == "namespace" && d.qualified == p)
        })
}

/// The class `t` is a member of, by its simple name, when it is a C++ member.
pub(super) fn class_of(t: &TreeDef, f: &Parsed) -> Option<String> {
    if f.grammar != Grammar::Cpp || in_namespace(t, f) {
        return None;
    }
    prefix(&t.qualified).map(|p| last(p).to_string())
}

/// The innermost class, struct or union of `f` holding `line`.
fn class_at(f: &Parsed, line: u64) -> Option<&TreeDef> {
    f.scopes
        .iter()
        .filter(|d| matches!(d.kind, "class" | "struct" | "union"))
        .filter(|d| line >= d.start_line && line <= d.end_line)
        .min_by_key(|d| d.end_line - d.start_line)
}

/// The text of a declaration after its name, up to its body or its end.
fn tail<'t>(text: &'t str, o: &Occurrence) -> &'t str {
    let rest = text.get(o.end..).unwrap_or("");
    let stop = rest.find(['{', ';']).unwrap_or(rest.len());
    &rest[..stop]
}

fn has_word(s: &str, w: &str) -> bool {
    s.split(|c: char| !c.is_alphanumeric() && c != '_')
        .any(|x| x == w)
}

/// Every class of the C++ files that declares or defines NAME (simple names,
/// with where), and whether a declaration of the member `class` overrides.
fn declarers(files: &[(PathBuf, Parsed)], class: &str) -> (Vec<(String, PathBuf, u64)>, bool) {
    let mut out: Vec<(String, PathBuf, u64)> = Vec::new();
    let mut overrides = false;
    for (p, f) in files.iter().filter(|(_, f)| f.grammar == Grammar::Cpp) {
        for o in f.occ.iter().filter(|o| o.kind == RefKind::Definition) {
            // A definition (`int A::f() {}`, or inside its class), else a
            // declaration in a class body (`virtual int f() = 0;`).
            let c = match f
                .defs
                .iter()
                .find(|d| o.line >= d.start_line && o.line <= d.end_line)
            {
                Some(d) => class_of(d, f),
                None => class_at(f, o.line).map(|d| d.name.clone()),
            };
            let Some(c) = c else { continue };
            if c == class {
                let t = tail(&f.text, o);
                overrides |= has_word(t, "override") || has_word(t, "final");
            } else if !out.iter().any(|(n, _, _)| *n == c) {
                out.push((c, p.clone(), o.line));
            }
        }
    }
    (out, overrides)
}

/// A header with parse errors that mentions NAME: a declaration of it there may be missed.
fn broken_header(
    ctx: &Ctx,
    files: &[(PathBuf, Parsed)],
    t: &TreeDef,
    f: &Parsed,
) -> Option<CmdError> {
    if let Some((p, _)) = files.iter().find(|(p, h)| {
        p.extension()
            .is_some_and(|e| e == "h" || e == "hpp" || e == "hh")
            && !h.broken.is_empty()
            && h.occ
                .iter()
                .any(|o| !matches!(o.kind, RefKind::String | RefKind::Comment))
    }) && f.grammar == Grammar::Cpp
    {
        let file = show(&ctx.root, p);
        return Some(CmdError::new(
            code::SYNTAX_ERROR,
            format!(
                "{} mentions {} but the grammar does not read this header cleanly (a macro it cannot read): its declarations cannot be told. Nothing was renamed.",
                file, t.name
            ),
            Repair::new(
                "check",
                "See where the parse fails.",
                shell::aitools(["check", file.as_str()]),
            ),
        ));
    }
    None
}

/// The refusal of a rename of the C++ definition `t` (in `tpath`), when it is
/// a constructor or destructor, another class declares NAME, or it overrides
/// a method no class of ours declares.
pub(super) fn refusal(
    ctx: &Ctx,
    args: &RenameArgs,
    files: &[(PathBuf, Parsed)],
    (tpath, t, f): (&Path, &TreeDef, &Parsed),
) -> Option<CmdError> {
    if let Some(e) = broken_header(ctx, files, t, f) {
        return Some(e);
    }
    let class = class_of(t, f)?;
    let name = t.name.as_str();
    let at = format!(
        "{} at {}:{}",
        t.qualified,
        show(&ctx.root, tpath),
        t.start_line
    );
    let mut refs_argv = vec!["code".to_string(), "refs".into(), name.into()];
    refs_argv.extend(args.path.clone());
    let see = Repair::new(
        "refs",
        format!("See every use of {name} and rename the right ones by hand (replace --in FILE)."),
        shell::aitools(refs_argv),
    );
    if name == class || name.starts_with('~') {
        return Some(CmdError::new(
            code::ARGUMENT_INVALID,
            format!(
                "{at} is a constructor or destructor of {class}: it is named after its class; rename the class instead. Nothing was renamed."
            ),
            Repair::new(
                "rename",
                format!("Rename the class {class} (its constructors follow)."),
                shell::aitools([
                    "code",
                    "rename",
                    class.as_str(),
                    &args.new,
                    "--kind",
                    "class",
                ]),
            ),
        ));
    }
    if let Some(c) = class_at(f, t.start_line)
        && let Some((a, _)) = f
            .broken
            .iter()
            .find(|(a, b)| *a <= c.end_line && *b >= c.start_line)
    {
        let file = show(&ctx.root, tpath);
        return Some(CmdError::new(
            code::SYNTAX_ERROR,
            format!("{at}: the C++ grammar cannot read {} ({file}:{}-{}) at line {a} (a macro, an #if inside a declaration): its members and their uses cannot be told. Nothing was renamed.", c.qualified, c.start_line, c.end_line),
            Repair::new(
                "check",
                "See where the parse fails.",
                shell::aitools(["check", file.as_str()]),
            ),
        ).with_repair(see));
    }
    let (others, overrides) = declarers(files, &class);
    if let Some(_first) = others.first() {
        let listed: Vec<String> = others
            .iter()
            .take(8)
            .map(|(c, p, l)| format!("{c} at {}:{l}", show(&ctx.root, p)))
            .collect();
        let mut cands = vec![Json::Str(t.qualified.clone())];
        cands.extend(
            others
                .iter()
                .map(|(c, _, _)| Json::Str(format!("{c}::{name}"))),
        );
        return Some(
            CmdError::new(
                code::AMBIGUOUS,
                format!(
                    "{at}: {} other class{} of ours declare{} {name} too: {}. A virtual method's overrides, and which class each `x->{name}` calls, are not told apart in C++; nothing was renamed: a guess could leave code that no longer compiles.",
                    others.len(),
                    if others.len() == 1 { "" } else { "es" },
                    if others.len() == 1 { "s" } else { "" },
                    listed.join("; ")
                ),
                see,
            )
            .with_candidates(Json::Arr(cands)),
        );
    }
    if overrides {
        return Some(CmdError::new(
            code::EXTERNAL_SYMBOL,
            format!(
                "{at} overrides (override/final) a {name} that no file below the path declares: a library's. Renaming it would break the override; nothing was renamed."
            ),
            see,
        ));
    }
    None
}

/// `X::NAME` with X not the member's class (an alias, a derived class, a
/// namespace) is not tied to the member.
/// `Some(true)` when `o` is `X::NAME` with X the member's `class` (a use of
/// it), `Some(false)` with another X, `None` when it is not qualified.
pub(super) fn qualified_by(o: &Occurrence, f: &Parsed, class: &str) -> Option<bool> {
    if matches!(o.kind, RefKind::String | RefKind::Comment) {
        return None;
    }
    let before = f.text.get(..o.start).unwrap_or("").trim_end();
    let q = before.strip_suffix("::")?;
    let q = q.trim_end();
    let q = q
        .strip_suffix('>')
        .and_then(|q| q.rsplit_once('<'))
        .map_or(q, |(q, _)| q);
    let id = q
        .rsplit(|c: char| !c.is_alphanumeric() && c != '_')
        .next()
        .unwrap_or("");
    Some(id == class)
}

/// The refusal of a rename of the C++ member `t` with uses `X::NAME` through
/// another name than its class (`untied`: path, line).
pub(super) fn untied_refusal(
    args: &RenameArgs,
    (tpath, t): (&str, &TreeDef),
    untied: &[(String, u64)],
) -> CmdError {
    let name = t.name.as_str();
    let uses: Vec<String> = untied
        .iter()
        .take(6)
        .map(|(p, l)| format!("{p}:{l}"))
        .collect();
    let mut refs_argv = vec!["code".to_string(), "refs".into(), name.into()];
    refs_argv.extend(args.path.clone());
    CmdError::new(
        code::AMBIGUOUS,
        format!(
            "{} at {tpath}:{}: {} use{} of {name} name{} it through another name than its class (an alias, a derived class, a template argument), which cannot be tied to it: {}{}. Nothing was renamed: a guess could leave code that no longer compiles.",
            t.qualified,
            t.start_line,
            untied.len(),
            if untied.len() == 1 { "" } else { "s" },
            if untied.len() == 1 { "s" } else { "" },
            uses.join(", "),
            if untied.len() > 6 { ", ..." } else { "" }
        ),
        Repair::new(
            "refs",
            format!("See every use of {name} and rename the right ones by hand (replace --in FILE)."),
            shell::aitools(refs_argv),
        ),
    )
    .with_candidates(Json::Arr(vec![Json::Str(t.qualified.clone())]))
}

/// The line spans (1-based) of a tree's error and missing nodes.
pub(super) fn error_spans(tree: &crate::text::syntax::grammar::Tree) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.is_error() || n.is_missing() {
            out.push((
                n.start_position().row as u64 + 1,
                n.end_position().row as u64 + 1,
            ));
            continue;
        }
        if n.has_error() {
            let mut c = n.walk();
            stack.extend(n.children(&mut c));
        }
    }
    out
}
