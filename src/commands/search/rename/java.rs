//! Java's part of `code rename`: case labels, receivers of another class or
//! of a library type, and overrides of a method outside the workspace.

use super::{Parsed, RenameArgs};
use crate::protocol::{CmdError, Repair, code, shell};
use crate::text::syntax::defs::TreeDef;
use crate::text::syntax::grammar::{Grammar, Tree};
use crate::text::syntax::refs::{self, RefKind};
use std::path::PathBuf;

/// Whether the word before `at` in `text` is `case` (a Java case label).
pub(super) fn after_case(text: &str, at: usize) -> bool {
    let before = text.get(..at).unwrap_or("").trim_end();
    before.ends_with("case")
        && !before[..before.len() - 4]
            .bytes()
            .next_back()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Java: whether `obj` of `obj.NAME` names a class other than the member's
/// (`TypeName.OBJECT` is not `ClassName.OBJECT`): capitalized, not a constant.
pub(super) fn other_class(obj: &str, t: &TreeDef) -> bool {
    obj.starts_with(|c: char| c.is_ascii_uppercase())
        && obj.chars().any(|c| c.is_ascii_lowercase())
        && t.container.as_deref() != Some(obj)
}

/// Java: whether `obj` is declared in `f` (`List<T> obj;`, `String obj =`,
/// a parameter) with a type of an external library or of java.lang, whose
/// members are not ours.
pub(super) fn library_typed(f: &Parsed, obj: &str) -> bool {
    declared_type(f, obj).is_some_and(|t| JAVA_LANG.contains(&t) || f.external_name(t))
}

/// Java: the type `obj` is declared with in `f` (`List<T> obj;`, `String obj
/// =`, a parameter, `for (T obj : xs)`), the first declaration found.
pub(super) fn declared_type<'a>(f: &'a Parsed, obj: &str) -> Option<&'a str> {
    declared_types(f, obj).into_iter().next().map(|(_, t)| t)
}

/// Java: every declaration of `obj` in `f` with its type: (offset of `obj`, type).
pub(super) fn declared_types<'a>(f: &'a Parsed, obj: &str) -> Vec<(usize, &'a str)> {
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
    let mut out = Vec::new();
    for at in refs::word_hits(f.text.as_bytes(), obj.as_bytes()) {
        let after = f.text.get(at + obj.len()..).unwrap_or("").trim_start();
        if !after.starts_with([';', '=', ',', ')', ':']) || after.starts_with("==") {
            continue;
        }
        let mut ty = f.text.get(..at).unwrap_or("").trim_end();
        if let Some(open) = ty
            .strip_suffix('>')
            .and_then(|t| t.rfind('<').map(|i| &t[..i]))
        {
            ty = open.trim_end();
        }
        let start = ty.bytes().rposition(|b| !ident(b)).map_or(0, |i| i + 1);
        let name = &ty[start..];
        if name.starts_with(|c: char| c.is_ascii_uppercase()) {
            out.push((at, name));
        }
    }
    out
}

/// java.lang types whose members are not ours.
const JAVA_LANG: &[&str] = &[
    "String",
    "Object",
    "StringBuilder",
    "Integer",
    "Long",
    "Boolean",
    "Character",
    "Class",
];

/// Java: whether `obj` (of `obj.NAME`) is declared in `f` with another class
/// of ours that has its own member NAME of the target's kind (`others`).
pub(super) fn typed_as_other(f: &Parsed, obj: &str, others: &[String]) -> bool {
    declared_type(f, obj).is_some_and(|ty| others.iter().any(|c| c == ty))
}

/// Java: whether the method definition `d` of `f` carries `@Override`
/// (between its first line and its name).
pub(super) fn has_override(f: &Parsed, d: &TreeDef) -> bool {
    let Some(o) = f
        .occ
        .iter()
        .find(|o| o.kind == RefKind::Definition && o.line >= d.start_line && o.line <= d.end_line)
    else {
        return false;
    };
    let from: usize = f
        .text
        .split_inclusive('\n')
        .take(d.start_line as usize - 1)
        .map(str::len)
        .sum();
    let head = f.text.get(from..o.start).unwrap_or("");
    refs::word_hits(head.as_bytes(), b"Override")
        .iter()
        .any(|&at| head[..at].ends_with('@'))
}

/// Java: whether the picked method overrides one outside the scanned files:
/// it carries `@Override` and no method of its name below the path is
/// declared without it (so the overridden one is a library's or the JDK's).
pub(super) fn overrides_external(files: &[(PathBuf, Parsed)], (i, j): (usize, usize)) -> bool {
    let t = &files[i].1;
    has_override(t, &t.defs[j])
        && files.iter().all(|(_, f)| {
            f.grammar != Grammar::Java
                || f.defs
                    .iter()
                    .filter(|d| d.kind == "method")
                    .all(|d| has_override(f, d))
        })
}

/// The refusal of a rename that would break an override of a method outside
/// the workspace.
pub(super) fn external_override(
    args: &RenameArgs,
    name: &str,
    path: &str,
    t: &TreeDef,
) -> CmdError {
    let mut refs_argv = vec!["code", "refs", name];
    refs_argv.extend(args.path.as_deref());
    CmdError::new(
        code::EXTERNAL_SYMBOL,
        format!(
            "{} at {path}:{} overrides (@Override) a {name} that no file below the path declares: a library's or the JDK's. Renaming it would break the override (the class would no longer implement that method); nothing was renamed.",
            t.qualified, t.start_line
        ),
        Repair::new(
            "refs",
            format!("See {name}'s definitions and uses: the override keeps the name the library gave it."),
            shell::aitools(refs_argv),
        ),
    )
    .with_repair(Repair::new(
        "defs",
        format!("List the definitions of {name} (a method of your own may be the one to rename)."),
        shell::aitools(["code", "defs", name]),
    ))
}

/// Java keeps methods and fields apart: `x.f()` is no field, `x.f` no method
/// (but `X::f` is a method reference).
pub(super) fn other_member_kind(f: &Parsed, o: &refs::Occurrence, t: &TreeDef) -> bool {
    !matches!(o.kind, RefKind::Definition | RefKind::Import)
        && (t.kind == "method") != (o.kind == RefKind::Call)
        && !f
            .text
            .get(..o.start)
            .unwrap_or("")
            .trim_end()
            .ends_with("::")
}

/// Java: the anonymous class bodies of `tree` (`new T(..) { .. }`): their
/// byte span and T as written, type arguments left out.
pub(super) fn anonymous_bodies(g: Grammar, tree: &Tree, src: &[u8]) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    if g != Grammar::Java {
        return out;
    }
    let mut todo = vec![tree.root_node()];
    while let Some(n) = todo.pop() {
        let mut cursor = n.walk();
        let kids: Vec<_> = n.named_children(&mut cursor).collect();
        if n.kind() == "object_creation_expression"
            && let Some(body) = kids.iter().find(|k| k.kind() == "class_body")
            && let Some(ty) = n.child_by_field_name("type")
        {
            let text = String::from_utf8_lossy(&src[ty.byte_range()]);
            let plain = text.split('<').next().unwrap_or("").trim();
            out.push((body.start_byte(), body.end_byte(), plain.to_string()));
        }
        todo.extend(kids);
    }
    out
}
