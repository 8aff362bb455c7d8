//! Line selectors shared by the commands that act on part of a file (`--range`,
//! `--symbol`/`--kind`, `--between`/`--exclusive`, `--match`/`--invert`): which
//! lines they pick, and why — as a typed `SelectError`, with near-match
//! candidates — they pick nothing or, for a one-place selector, more than one
//! place. The code, message and repairs are `src/command_error.rs`'s.

use super::doc::Doc;
use super::outline;
use crate::protocol::Json;
use crate::protocol::values::LineRange;
use regex::Regex;
use std::ops::Range;

/// A parsed selector.
#[derive(Debug, Clone)]
pub enum Selector {
    Range(LineRange),
    Symbol {
        name: String,
        kind: Option<String>,
    },
    Between {
        start: Regex,
        end: Regex,
        exclusive: bool,
    },
    Match {
        re: Regex,
        invert: bool,
    },
}

impl Selector {
    /// Position-based selectors name lines by number, so a write through them
    /// needs `--expect-hash`.
    pub fn is_positional(&self) -> bool {
        matches!(self, Selector::Range(_) | Selector::Symbol { .. })
    }

    /// `--match` picks every matching line, so a write through it needs
    /// `--expect-count`.
    pub fn is_many(&self) -> bool {
        matches!(self, Selector::Match { .. })
    }

    pub fn flag(&self) -> &'static str {
        match self {
            Selector::Range(_) => "--range",
            Selector::Symbol { .. } => "--symbol",
            Selector::Between { .. } => "--between",
            Selector::Match { .. } => "--match",
        }
    }
}

/// 0-based line indices `[start, end)`.
pub type Block = Range<usize>;

/// The blocks `sel` picks in `doc`: one block for `--range` and `--symbol`, one per
/// START..END pair for `--between`, one single-line block per line for `--match`.
/// Why a selector picked nothing, or a one-place selector more than one place.
#[derive(Debug)]
pub enum SelectError {
    /// `--range` starts past the last line.
    PastEnd {
        display: String,
        total: usize,
        start: usize,
    },
    /// `--symbol` in a file no outline language covers.
    UnsupportedLanguage { display: String, file: String },
    NoSymbol {
        display: String,
        name: String,
        kind: Option<String>,
    },
    /// `--symbol` names several definitions; `qualified` are their qualified
    /// names when every one has one.
    Ambiguous {
        display: String,
        name: String,
        count: usize,
        qualified: Vec<String>,
        candidates: Json,
    },
    /// `--between`: a START line (`start_line`, 1-based) and no END after it, or
    /// (None) no START line.
    Between {
        display: String,
        start_line: Option<usize>,
    },
    /// `--match` selects no line.
    NoMatch { display: String, invert: bool },
}

/// Nothing picked is `selection.no-match`; a symbol defined twice is
/// `selection.ambiguous`.
pub fn select(doc: &Doc, display: &str, sel: &Selector) -> Result<Vec<Block>, Box<SelectError>> {
    let total = doc.line_count();
    let display_ = || display.to_string();
    match sel {
        Selector::Range(r) => {
            let start = r.start as usize;
            if start > total {
                return Err(Box::new(SelectError::PastEnd {
                    display: display_(),
                    total,
                    start,
                }));
            }
            let end = r.end.map(|e| (e as usize).min(total)).unwrap_or(total);
            Ok(vec![start - 1..end])
        }
        Selector::Symbol { name, kind } => symbol(doc, display, name, kind.as_deref()),
        Selector::Between {
            start,
            end,
            exclusive,
        } => between(doc, display, start, end, *exclusive),
        Selector::Match { re, invert } => {
            let blocks: Vec<Block> = (0..total)
                .filter(|&i| re.is_match(doc.content(i)) != *invert)
                .map(|i| i..i + 1)
                .collect();
            if blocks.is_empty() {
                return Err(Box::new(SelectError::NoMatch {
                    display: display_(),
                    invert: *invert,
                }));
            }
            Ok(blocks)
        }
    }
}

/// A definition's lines: the one definition named `name` (of `kind`); none or
/// several is an error.
fn symbol(
    doc: &Doc,
    display: &str,
    name: &str,
    kind: Option<&str>,
) -> Result<Vec<Block>, Box<SelectError>> {
    let total = doc.line_count();
    let defs = outline::find_symbol(display, &doc.text, name, kind).map_err(
        |outline::OutlineError::UnsupportedLanguage(file)| {
            Box::new(SelectError::UnsupportedLanguage {
                display: display.to_string(),
                file,
            })
        },
    )?;
    let blocks: Vec<Block> = defs
        .iter()
        .map(|d| {
            let s = (d.start_line.max(1) as usize - 1).min(total);
            let e = (d.end_line as usize).clamp(s, total);
            s..e
        })
        .collect();
    match blocks.len() {
        0 => Err(Box::new(SelectError::NoSymbol {
            display: display.to_string(),
            name: name.to_string(),
            kind: kind.map(str::to_string),
        })),
        1 => Ok(blocks),
        count => {
            let q: Vec<String> = outline::qualified_names(&defs)
                .into_iter()
                .flatten()
                .collect();
            Err(Box::new(SelectError::Ambiguous {
                display: display.to_string(),
                name: name.to_string(),
                count,
                qualified: if q.len() == count { q } else { Vec::new() },
                candidates: candidates(doc, blocks.iter().map(|b| b.start)),
            }))
        }
    }
}

/// Each block from a line matching `start` to the next line matching `end`
/// (without those two with `exclusive`); none is an error that names a start
/// line left open.
fn between(
    doc: &Doc,
    display: &str,
    start: &Regex,
    end: &Regex,
    exclusive: bool,
) -> Result<Vec<Block>, Box<SelectError>> {
    let total = doc.line_count();
    let mut blocks = Vec::new();
    let mut i = 0;
    let mut open: Option<usize> = None;
    while i < total {
        if start.is_match(doc.content(i)) {
            match (i + 1..total).find(|&j| end.is_match(doc.content(j))) {
                Some(j) => {
                    blocks.push(if exclusive { i + 1..j } else { i..j + 1 });
                    i = j + 1;
                    continue;
                }
                None => {
                    open.get_or_insert(i);
                    break;
                }
            }
        }
        i += 1;
    }
    if blocks.is_empty() {
        return Err(Box::new(SelectError::Between {
            display: display.to_string(),
            start_line: open.map(|s| s + 1),
        }));
    }
    Ok(blocks)
}

/// Why `--symbol` names no one definition of a text.
#[derive(Debug)]
pub enum SymbolError {
    /// No language of the outline table covers the file name.
    UnsupportedLanguage,
    /// None is named so; `all` is every definition the text has.
    NoSymbol { all: Vec<outline::Definition> },
    /// Several are; `qualified` names each by the one around it (empty unless
    /// every one has a distinct such name), `kinds` are theirs, sorted, once each.
    Ambiguous {
        defs: Vec<outline::Definition>,
        qualified: Vec<String>,
        kinds: Vec<String>,
    },
}

/// The one definition `name` (of `kind`) names in `text`, a file called `file`
/// (its name picks the language): what `read --symbol` and `git show|blame
/// --symbol` select; each words the errors for its own call.
pub fn one_definition(
    file: &str,
    text: &str,
    name: &str,
    kind: Option<&str>,
) -> Result<outline::Definition, SymbolError> {
    let all = outline::outline(file, text).map_err(|_| SymbolError::UnsupportedLanguage)?;
    let mut defs = outline::pick(&all, name, kind, false);
    match defs.len() {
        0 => Err(SymbolError::NoSymbol { all }),
        1 => Ok(defs.remove(0)),
        _ => {
            let mut q = outline::qualified_names(&defs);
            q.dedup();
            let qualified = if q.len() == defs.len() && q.iter().all(Option::is_some) {
                q.into_iter().flatten().collect()
            } else {
                Vec::new()
            };
            let mut kinds: Vec<String> = defs.iter().map(|d| d.kind.clone()).collect();
            kinds.sort();
            kinds.dedup();
            Err(SymbolError::Ambiguous {
                defs,
                qualified,
                kinds,
            })
        }
    }
}

/// `[{line, text}]` for 0-based line indices (texts cut at 200 characters).
pub fn candidates(doc: &Doc, lines: impl IntoIterator<Item = usize>) -> Json {
    Json::Arr(
        lines
            .into_iter()
            .take(20)
            .map(|i| {
                let mut o = Json::obj();
                o.push("line", Json::UInt(i as u64 + 1));
                o.push(
                    "text",
                    Json::str(doc.content(i).chars().take(200).collect::<String>()),
                );
                o
            })
            .collect(),
    )
}

/// The `k` lines of `doc` most like any line of `needle` (character-bigram
/// similarity of the trimmed texts), best first; lines sharing nothing are left out.
pub fn nearest_lines(doc: &Doc, needle: &str, k: usize) -> Vec<usize> {
    let wanted: Vec<Vec<(char, char)>> = super::doc::split_plain(needle)
        .into_iter()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(8)
        .map(bigrams)
        .collect();
    if wanted.is_empty() {
        return Vec::new();
    }
    let mut scored: Vec<(u64, usize)> = Vec::new();
    for i in 0..doc.line_count() {
        let line = doc.content(i).trim();
        if line.is_empty() {
            continue;
        }
        let have = bigrams(line);
        let best = wanted.iter().map(|w| dice(w, &have)).fold(0.0f64, f64::max);
        if best > 0.0 {
            scored.push(((best * 1e6) as u64, i));
        }
    }
    // Best score first; among equals the earlier line, so output is deterministic.
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().take(k).map(|(_, i)| i).collect()
}

fn bigrams(s: &str) -> Vec<(char, char)> {
    let chars: Vec<char> = s.chars().take(400).collect();
    let mut v: Vec<(char, char)> = chars.windows(2).map(|w| (w[0], w[1])).collect();
    if v.is_empty()
        && let Some(&c) = chars.first()
    {
        v.push((c, c));
    }
    v.sort_unstable();
    v
}

/// Dice coefficient of two sorted bigram multisets.
fn dice(a: &[(char, char)], b: &[(char, char)]) -> f64 {
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    if a.is_empty() && b.is_empty() {
        return 0.0;
    }
    2.0 * common as f64 / (a.len() + b.len()) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(s: &str) -> Doc {
        Doc::from_text(false, s.to_string())
    }

    #[test]
    fn between_and_match() {
        let d = doc("a\nBEGIN\nx\nEND\nb\nBEGIN\ny\nEND\n");
        let sel = Selector::Between {
            start: Regex::new("BEGIN").unwrap(),
            end: Regex::new("END").unwrap(),
            exclusive: false,
        };
        assert_eq!(select(&d, "f", &sel).unwrap(), vec![1..4, 5..8]);
        let ex = Selector::Between {
            start: Regex::new("BEGIN").unwrap(),
            end: Regex::new("END").unwrap(),
            exclusive: true,
        };
        assert_eq!(select(&d, "f", &ex).unwrap(), vec![2..3, 6..7]);
        let m = Selector::Match {
            re: Regex::new("^[xy]$").unwrap(),
            invert: false,
        };
        assert_eq!(select(&d, "f", &m).unwrap(), vec![2..3, 6..7]);
        let none = Selector::Match {
            re: Regex::new("zzz").unwrap(),
            invert: false,
        };
        assert!(matches!(
            *select(&d, "f", &none).unwrap_err(),
            SelectError::NoMatch { invert: false, .. }
        ));
    }

    #[test]
    fn ranges_clamp_the_end_and_refuse_a_missing_start() {
        let d = doc("1\n2\n3\n");
        let r = |s, e| Selector::Range(LineRange { start: s, end: e });
        assert_eq!(select(&d, "f", &r(2, Some(9))).unwrap(), vec![1..3]);
        assert_eq!(select(&d, "f", &r(3, None)).unwrap(), vec![2..3]);
        assert!(matches!(
            *select(&d, "f", &r(4, None)).unwrap_err(),
            SelectError::PastEnd {
                total: 3,
                start: 4,
                ..
            }
        ));
    }

    #[test]
    fn one_definition_tells_none_one_and_several_apart() {
        let py = "def a():\n    pass\n\nclass B:\n    def a(self):\n        pass\n";
        let one = one_definition("m.py", py, "B", None).unwrap();
        assert_eq!((one.start_line, one.end_line), (4, 6));
        match one_definition("m.py", py, "a", None).unwrap_err() {
            SymbolError::Ambiguous {
                defs,
                qualified,
                kinds,
            } => {
                assert_eq!(defs.len(), 2);
                assert!(qualified.is_empty(), "{qualified:?}");
                assert_eq!(kinds, vec!["function", "method"]);
            }
            e => panic!("{e:?}"),
        }
        assert!(matches!(
            one_definition("m.py", py, "zz", None).unwrap_err(),
            SymbolError::NoSymbol { all } if all.len() == 3
        ));
        assert!(matches!(
            one_definition("m.txt", py, "a", None).unwrap_err(),
            SymbolError::UnsupportedLanguage
        ));
    }

    #[test]
    fn nearest_prefers_similar_lines() {
        let d = doc("fn main() {\n    let x = 1;\n}\n");
        assert_eq!(nearest_lines(&d, "let x = 2;", 1), vec![1]);
        assert!(nearest_lines(&d, "   ", 3).is_empty());
    }
}
