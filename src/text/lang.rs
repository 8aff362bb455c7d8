//! The language table (`data/languages.tsv`): which file names are which language,
//! how a definition's end is estimated, and which characters make up an identifier.
//! Shared by the scan's `--lang` filter, `overview` and the outline scanner.

use std::collections::HashMap;
use std::sync::OnceLock;

const TABLE: &str = include_str!("../../data/languages.tsv");

/// How a definition's end line is estimated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndRule {
    Braces,
    Indent,
    Parens,
    Heading,
    None,
}

impl EndRule {
    pub fn parse(s: &str) -> Option<EndRule> {
        Some(match s {
            "braces" => EndRule::Braces,
            "indent" => EndRule::Indent,
            "parens" => EndRule::Parens,
            "heading" => EndRule::Heading,
            "none" => EndRule::None,
            _ => return None,
        })
    }
}

/// One row of the table.
#[derive(Debug, Clone)]
pub struct Language {
    pub name: &'static str,
    pub files: Vec<&'static str>,
    pub end: EndRule,
    /// Identifier characters besides Unicode alphanumerics and `_`.
    pub ident_extra: &'static str,
}

impl Language {
    /// Whether `c` can be part of an identifier in this language.
    pub fn is_ident(&self, c: char) -> bool {
        c.is_alphanumeric() || c == '_' || self.ident_extra.contains(c)
    }
}

struct Table {
    langs: Vec<Language>,
    by_ext: HashMap<&'static str, usize>,
    by_name: HashMap<&'static str, usize>,
}

/// Parses the table text; the error names the bad row.
fn parse(text: &'static str) -> Result<Vec<Language>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let [name, files, end, ident] = cols.as_slice() else {
            return Err(format!("languages.tsv line {}: expected 4 columns", i + 1));
        };
        let end = EndRule::parse(end)
            .ok_or_else(|| format!("languages.tsv line {}: end {end:?}", i + 1))?;
        out.push(Language {
            name,
            files: files.split(' ').filter(|f| !f.is_empty()).collect(),
            end,
            ident_extra: if *ident == "-" { "" } else { ident },
        });
    }
    Ok(out)
}

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| {
        // The table is compiled in and a unit test parses it, so an error here is
        // impossible in a tested build; fall back to an empty table rather than panic.
        let langs = parse(TABLE).unwrap_or_default();
        let mut by_ext = HashMap::new();
        let mut by_name = HashMap::new();
        for (i, l) in langs.iter().enumerate() {
            for f in &l.files {
                match f.strip_prefix("*.") {
                    Some(ext) => by_ext.entry(ext).or_insert(i),
                    None => by_name.entry(*f).or_insert(i),
                };
            }
        }
        Table {
            langs,
            by_ext,
            by_name,
        }
    })
}

/// Every language, in table order.
pub fn all() -> &'static [Language] {
    &table().langs
}

/// The language named `name` (as `--lang` takes it).
pub fn named(name: &str) -> Option<&'static Language> {
    all().iter().find(|l| l.name == name)
}

/// The language of a file, from its base name.
pub fn of_file(base_name: &str) -> Option<&'static Language> {
    let t = table();
    if let Some(&i) = t.by_name.get(base_name) {
        return t.langs.get(i);
    }
    let (_, ext) = base_name.rsplit_once('.')?;
    let i = match t.by_ext.get(ext) {
        Some(&i) => i,
        None => *t.by_ext.get(ext.to_ascii_lowercase().as_str())?,
    };
    t.langs.get(i)
}

/// The language names, for error messages.
pub fn names() -> Vec<&'static str> {
    all().iter().map(|l| l.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn every_row_parses() {
        let langs = parse(TABLE).expect("languages.tsv parses");
        let rows = TABLE
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .count();
        assert_eq!(langs.len(), rows);
        for l in &langs {
            assert!(!l.files.is_empty(), "{}", l.name);
        }
        let mut names: Vec<_> = langs.iter().map(|l| l.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), langs.len(), "duplicate language name");
    }
    #[test]
    fn lookups() {
        assert_eq!(of_file("main.rs").map(|l| l.name), Some("rust"));
        assert_eq!(of_file("Makefile").map(|l| l.name), Some("make"));
        assert_eq!(of_file("X.PY").map(|l| l.name), Some("python"));
        assert_eq!(of_file("a.lisp").map(|l| l.name), Some("common-lisp"));
        assert!(of_file("noext").is_none());
        assert!(named("go").is_some());
    }
}
