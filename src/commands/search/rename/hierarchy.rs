//! Java: the classes of the scanned files and the types each extends or
//! implements, read from its header (`class A<T> extends B<T> implements C`),
//! so a method's overrides, and the uses an inherited NAME binds, can be told.

use super::Parsed;
use crate::text::syntax::defs::TreeDef;
use crate::text::syntax::grammar::Grammar;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One class (interface, enum, record) of a scanned Java file.
pub(super) struct Class<'a> {
    pub(super) path: &'a Path,
    pub(super) qualified: &'a str,
    /// The simple names of its supertypes.
    supers: Vec<&'a str>,
    /// Some supertype is neither a scanned class nor known to be a library's
    /// (imported from one, or java.lang's): a class of ours that does not
    /// mention NAME, say, through which NAME may be inherited.
    pub(super) unknown_super: bool,
}

/// The classes, and their indices by simple name.
pub(super) struct Classes<'a>(Vec<Class<'a>>, HashMap<&'a str, Vec<usize>>);

/// java.lang supertypes, not ours.
const LANG_SUPERS: &[&str] = &[
    "Object",
    "Runnable",
    "Comparable",
    "Iterable",
    "AutoCloseable",
    "Cloneable",
    "CharSequence",
    "Appendable",
    "Readable",
    "Exception",
    "RuntimeException",
    "Error",
    "Throwable",
    "Enum",
    "Record",
    "Thread",
    "Number",
];

pub(super) fn simple(q: &str) -> &str {
    q.rsplit('.').next().unwrap_or(q)
}

impl<'a> Classes<'a> {
    pub(super) fn of(files: &'a [(PathBuf, Parsed)]) -> Classes<'a> {
        let mut list = Vec::new();
        for (p, f) in files.iter().filter(|(_, f)| f.grammar == Grammar::Java) {
            for d in f.scopes.iter().filter(|d| is_class(d)) {
                list.push(Class {
                    path: p,
                    qualified: &d.qualified,
                    supers: supers_of(&f.text, d),
                    unknown_super: false,
                });
            }
        }
        let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, c) in list.iter().enumerate() {
            by_name.entry(simple(c.qualified)).or_default().push(i);
        }
        let mut classes = Classes(list, by_name);
        for i in 0..classes.0.len() {
            let c = &classes.0[i];
            let f = files.iter().find(|(p, _)| p == c.path).map(|(_, f)| f);
            let unknown = c.supers.iter().any(|s| {
                classes.named(s, c.path).is_empty()
                    && !LANG_SUPERS.contains(s)
                    && !f.is_some_and(|f| f.external_name(s))
            });
            classes.0[i].unknown_super = unknown;
        }
        classes
    }

    pub(super) fn get(&self, i: usize) -> &Class<'a> {
        &self.0[i]
    }

    /// The class `qualified` of the file `path`.
    pub(super) fn find(&self, path: &Path, qualified: &str) -> Option<usize> {
        self.0
            .iter()
            .position(|c| c.path == path && c.qualified == qualified)
    }

    /// The classes a type named `ty` in the file `from` may be: those of
    /// that file when it declares one, else every class of that simple name.
    pub(super) fn named(&self, ty: &str, from: &Path) -> Vec<usize> {
        if ty.contains('.') {
            // `CodeBlock.Builder`, `p.Foo`: the classes whose name ends so.
            let by_tail = |q: &str| q == ty || q.ends_with(&format!(".{ty}"));
            let hits: Vec<usize> = (self.1.get(simple(ty)).into_iter().flatten())
                .copied()
                .filter(|&i| by_tail(self.0[i].qualified))
                .collect();
            if hits.is_empty() {
                // A package-qualified name: `p.Foo` is the class Foo.
                return self.named(simple(ty), from);
            }
            return hits;
        }
        let all: Vec<usize> = self.1.get(ty).cloned().unwrap_or_default();
        let here: Vec<usize> = all
            .iter()
            .copied()
            .filter(|&i| self.0[i].path == from)
            .collect();
        if here.is_empty() { all } else { here }
    }

    /// The classes directly above `c` that are scanned classes.
    pub(super) fn supers(&self, c: usize) -> Vec<usize> {
        let cl = &self.0[c];
        cl.supers
            .iter()
            .flat_map(|s| self.named(s, cl.path))
            .filter(|&k| k != c)
            .collect()
    }

    /// Every scanned class above `c`, transitively; and whether some class
    /// on the way has a supertype that is not known.
    pub(super) fn ancestors(&self, c: usize) -> (Vec<usize>, bool) {
        let mut seen: Vec<usize> = Vec::new();
        let mut todo = vec![c];
        let mut unknown = false;
        while let Some(k) = todo.pop() {
            unknown |= self.0[k].unknown_super;
            for s in self.supers(k) {
                if s != c && !seen.contains(&s) {
                    seen.push(s);
                    todo.push(s);
                }
            }
        }
        (seen, unknown)
    }
}

fn is_class(d: &TreeDef) -> bool {
    matches!(d.kind, "class" | "interface" | "enum" | "record")
}

/// The supertypes' simple names in the header of the class `d` of `text`:
/// the words after `extends` and `implements`, type arguments, record
/// components and annotation arguments left out.
fn supers_of<'t>(text: &'t str, d: &TreeDef) -> Vec<&'t str> {
    let from = line_start(text, d.start_line);
    let rest = text.get(from..).unwrap_or("");
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'.';
    // The words outside <...> and (...), up to the first `{` outside them
    // after the class's own name (an annotation's `({"x"})` is not its body).
    let mut depth = 0i32;
    let mut words: Vec<&str> = Vec::new();
    let mut start = None;
    let mut at = None;
    for (i, b) in rest.bytes().enumerate() {
        let keep = depth == 0 && ident(b);
        match (keep, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                words.push(&rest[s..i]);
                start = None;
                if at.is_none()
                    && words.len() >= 2
                    && words[words.len() - 1] == d.name
                    && matches!(
                        words[words.len() - 2],
                        "class" | "interface" | "enum" | "record"
                    )
                {
                    at = Some(words.len());
                }
            }
            _ => {}
        }
        match b {
            b'<' | b'(' => depth += 1,
            b'>' | b')' => depth -= 1,
            b'{' if depth == 0 => break,
            _ => {}
        }
    }
    // From the class's own name on.
    let Some(at) = at else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut listing = false;
    for w in &words[at..] {
        match *w {
            "extends" | "implements" => listing = true,
            "permits" => listing = false,
            w if listing => out.push(simple(w)),
            _ => {}
        }
    }
    out
}

/// The byte offset where 1-based line `line` of `text` starts (the end of
/// `text` past its last line).
pub(super) fn line_start(text: &str, line: u64) -> usize {
    text.split_inclusive('\n')
        .take(line.saturating_sub(1) as usize)
        .map(str::len)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(name: &str, line: u64) -> TreeDef {
        TreeDef {
            name: name.into(),
            kind: "class",
            start_line: line,
            end_line: line + 1,
            container: None,
            qualified: name.into(),
        }
    }

    #[test]
    fn supertypes_are_read_without_type_arguments() {
        let text = "package p;\n@A(\"x\")\npublic class A<T extends Comparable<T>> extends p.B<T, List<T>>\n    implements Runnable, C {\n}\n";
        assert_eq!(supers_of(text, &class("A", 2)), ["B", "Runnable", "C"]);
        let rec = "record R(int a, Map<K, V> m) implements I<R> {}\n";
        let mut d = class("R", 1);
        d.kind = "record";
        assert_eq!(supers_of(rec, &d), ["I"]);
        assert!(supers_of("class Z {}\n", &class("Z", 1)).is_empty());
        let braces = "@SuppressWarnings({\"unchecked\"})\nclass I extends B {}\n";
        assert_eq!(supers_of(braces, &class("I", 1)), ["B"]);
    }
}
