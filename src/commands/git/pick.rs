//! The line selectors `git show REV:PATH` and `git blame` take, read's own
//! (`--range`, `--symbol`/`--kind`, `--between`/`--exclusive`, `--match`/`--invert`),
//! resolved over the text git stores or blames with the core's `text::select` and
//! `text::outline`; the errors worded for a file at a revision, the call that
//! continues a cut selection, and the mask primed with the lines before it.

use crate::protocol::args::LineArgs;
use crate::protocol::values::{self, LineRange};
use crate::protocol::{CmdError, Json, Repair, code, shell};
use crate::text::doc::Doc;
use crate::text::outline;
use crate::text::select::{self, SelectError, Selector, SymbolError};
use regex::{Regex, RegexBuilder};

/// The largest text `--symbol` outlines (as `read`).
const MAX_SYMBOL_TEXT: usize = 64 * 1024 * 1024;

/// The one selection asked for.
pub enum Pick {
    /// No selector: the command's default window.
    All,
    Range(LineRange),
    Symbol {
        name: String,
        kind: Option<String>,
    },
    Between {
        sel: Selector,
        /// START as given, for the repair when nothing matches.
        start: String,
    },
    Match {
        re: Regex,
        invert: bool,
        within: Option<LineRange>,
    },
}

impl Pick {
    /// A selection found in the text (not by line numbers alone).
    pub fn needs_text(&self) -> bool {
        !matches!(self, Pick::All | Pick::Range(_))
    }
}

/// What a selection picked.
pub enum Picked {
    /// Lines `first..=last` (1-based; `last < first` when empty).
    Run { first: u64, last: u64 },
    /// The matched lines' numbers, ascending, at most `max`; `more` when a later
    /// line matched too.
    Numbers { numbers: Vec<u64>, more: bool },
}

fn invalid(command: &str, msg: impl Into<String>) -> CmdError {
    CmdError::invalid_argument(command, msg)
}

fn compile(command: &str, flag: &str, pattern: &str) -> Result<Regex, CmdError> {
    RegexBuilder::new(pattern)
        .size_limit(32 * 1024 * 1024)
        .build()
        .map_err(|e| {
            CmdError::bad_pattern(
                flag,
                pattern,
                &e,
                crate::protocol::error::schema_repair(command),
            )
        })
}

/// The one selection; `argument.invalid` for two, or for a modifier without
/// its selector; `input.syntax-error` for a regex that does not compile.
pub fn parse(a: &LineArgs, command: &str) -> Result<Pick, CmdError> {
    let mut given = vec![];
    if a.range.is_some() {
        given.push("--range");
    }
    given.extend(a.content_flags());
    if given.len() > 1 && given != ["--range", "--match"] {
        return Err(invalid(
            command,
            format!(
                "{} are separate selections; use one per call (only --range bounds a --match).",
                given.join(" and ")
            ),
        ));
    }
    a.check_modifiers(command)?;
    let range = match &a.range {
        Some(r) => Some(values::parse_range(r).map_err(|m| invalid(command, m))?),
        None => None,
    };
    if let Some(p) = &a.r#match {
        return Ok(Pick::Match {
            re: compile(command, "--match", p)?,
            invert: a.invert,
            within: range,
        });
    }
    if let Some(r) = range {
        return Ok(Pick::Range(r));
    }
    if let Some(name) = &a.symbol {
        if name.is_empty() {
            return Err(invalid(command, "--symbol needs a name."));
        }
        return Ok(Pick::Symbol {
            name: name.clone(),
            kind: a.kind.clone(),
        });
    }
    if let Some(b) = &a.between {
        let (Some(s), Some(e)) = (b.first(), b.get(1)) else {
            return Err(invalid(
                command,
                "--between takes two values: START-RE END-RE.",
            ));
        };
        return Ok(Pick::Between {
            sel: Selector::Between {
                start: compile(command, "--between", s)?,
                end: compile(command, "--between", e)?,
                exclusive: a.exclusive,
            },
            start: s.clone(),
        });
    }
    Ok(Pick::All)
}

/// The `--range` that continues a cut `--match` after its last shown line (to
/// the bounding range's end, if any).
pub fn match_next(numbers: &[u64], pick: &Pick) -> String {
    let from = numbers.last().copied().unwrap_or(0) + 1;
    match pick {
        Pick::Match {
            within: Some(LineRange { end: Some(e), .. }),
            ..
        } => format!("{from}:{e}"),
        _ => format!("{from}:"),
    }
}

/// The call `argv` continued with `--range RANGE` in place of its line selection
/// (`--range`, `--symbol`, `--kind`, `--between`'s two values, `--exclusive`); a
/// `--match` stays, bounded by the new range.
pub fn continue_at(argv: &[String], range: String) -> String {
    let words = shell::rerun(
        &without_between(argv),
        &["--range", "--symbol", "--kind"],
        &["--exclusive"],
        &["--range".into(), range],
    );
    shell::aitools(&words)
}

/// `argv` without `--between` and its two values (`shell::rerun` drops one).
fn without_between(argv: &[String]) -> Vec<String> {
    let end = argv.iter().position(|a| a == "--").unwrap_or(argv.len());
    let mut kept = Vec::with_capacity(argv.len());
    let mut i = 0;
    while i < argv.len() {
        let a = &argv[i];
        if i < end && a == "--between" {
            i += 3;
            continue;
        }
        if i < end && a.starts_with("--between=") {
            i += 2;
            continue;
        }
        kept.push(a.clone());
        i += 1;
    }
    kept
}

/// The call `argv` with `--symbol NAME` (and `--kind`) replaced by `--match NAME`.
fn as_match(argv: &[String], name: &str) -> String {
    let last = outline::qualified_parts(name)
        .last()
        .copied()
        .unwrap_or(name);
    let words = shell::rerun(
        argv,
        &["--symbol", "--kind"],
        &[],
        &["--match".into(), regex::escape(last)],
    );
    shell::aitools(&words)
}

/// The call `argv` with `--symbol` naming `name` instead.
fn with_symbol(argv: &[String], name: &str, kind: Option<&str>) -> String {
    let mut add = vec!["--symbol".to_string(), name.to_string()];
    if let Some(k) = kind {
        add.extend(["--kind".to_string(), k.to_string()]);
    }
    shell::aitools(shell::rerun(argv, &["--symbol", "--kind"], &[], &add))
}

/// Resolves `pick` (not `All` or `Range`, which the commands bound themselves)
/// over `text` (no BOM), a file called `display`; `argv` is the call, for repairs.
pub fn resolve(
    pick: &Pick,
    text: &str,
    display: &str,
    max: u64,
    argv: &[String],
) -> Result<Picked, CmdError> {
    match pick {
        Pick::All | Pick::Range(_) => Err(CmdError::internal("resolve: a range needs no text")),
        Pick::Symbol { name, kind } => symbol(text, display, name, kind.as_deref(), argv),
        Pick::Between { sel, start } => {
            let doc = Doc::from_text(false, text.to_string());
            let blocks = select::select(&doc, display, sel).map_err(|e| worded(e, start, argv))?;
            let first = blocks.first().cloned().unwrap_or(0..0);
            Ok(Picked::Run {
                first: first.start as u64 + 1,
                last: first.end as u64,
            })
        }
        Pick::Match { re, invert, within } => {
            let doc = Doc::from_text(false, text.to_string());
            let from = within.map_or(1, |r| r.start).max(1);
            let to = within.and_then(|r| r.end).unwrap_or(u64::MAX);
            let mut numbers = Vec::new();
            let mut more = false;
            for i in (from - 1) as usize..doc.line_count() {
                let n = i as u64 + 1;
                if n > to {
                    break;
                }
                if re.is_match(doc.content(i)) == *invert {
                    continue;
                }
                if numbers.len() as u64 == max {
                    more = true;
                    break;
                }
                numbers.push(n);
            }
            if numbers.is_empty() {
                return Err(CmdError::new(
                    code::NO_MATCH,
                    format!(
                        "No line{} of {display} {} --match.",
                        within
                            .map(|r| format!(
                                " in {}:{}",
                                r.start,
                                r.end.map(|e| e.to_string()).unwrap_or_default()
                            ))
                            .unwrap_or_default(),
                        if *invert { "fails to match" } else { "matches" }
                    ),
                    Repair::new(
                        "all",
                        "Take the lines without a selector.",
                        shell::aitools(shell::rerun(
                            argv,
                            &["--match", "--range"],
                            &["--invert"],
                            &[],
                        )),
                    ),
                ));
            }
            Ok(Picked::Numbers { numbers, more })
        }
    }
}

/// A `--between` that picked nothing, with repairs for this call.
fn worded(e: Box<SelectError>, start: &str, argv: &[String]) -> CmdError {
    let message = CmdError::from(e).message.clone();
    let words = shell::rerun(
        &without_between(argv),
        &["--range"],
        &["--exclusive"],
        &["--match".into(), start.to_string()],
    );
    CmdError::new(
        code::NO_MATCH,
        message,
        Repair::new(
            "match",
            "See which lines match START (--match).",
            shell::aitools(words),
        ),
    )
}

/// The one definition `name` (of `kind`) in `text`: `selection.no-match` with the
/// file's definitions as candidates, `selection.ambiguous` with each one.
fn symbol(
    text: &str,
    display: &str,
    name: &str,
    kind: Option<&str>,
    argv: &[String],
) -> Result<Picked, CmdError> {
    if text.len() > MAX_SYMBOL_TEXT {
        return Err(CmdError::new(
            code::TOO_LARGE,
            format!(
                "{display} is {} bytes; --symbol outlines at most {MAX_SYMBOL_TEXT}.",
                text.len()
            ),
            Repair::new(
                "match",
                "Find the definition's line with --match instead.",
                as_match(argv, name),
            ),
        ));
    }
    let unsupported = || {
        CmdError::new(
            code::UNSUPPORTED_LANGUAGE,
            format!(
                "No language of the outline table covers {display}, so --symbol cannot find definitions in it."
            ),
            Repair::new(
                "match",
                "Find the definition's line with --match instead.",
                as_match(argv, name),
            ),
        )
    };
    let (defs, qualified, kinds) = match select::one_definition(display, text, name, kind) {
        Ok(one) => {
            return Ok(Picked::Run {
                first: one.start_line.max(1),
                last: one.end_line.max(one.start_line.max(1)),
            });
        }
        Err(SymbolError::UnsupportedLanguage) => return Err(unsupported()),
        Err(SymbolError::NoSymbol { all }) => {
            return Err(no_symbol(&all, display, name, kind, argv));
        }
        Err(SymbolError::Ambiguous {
            defs,
            qualified,
            kinds,
        }) => (defs, qualified, kinds),
    };
    let Some(first) = defs.first() else {
        return Err(unsupported());
    };
    let mut err = CmdError::new(
        code::AMBIGUOUS,
        format!("{display} has {} definitions named {name}.", defs.len()),
        Repair::new(
            "range",
            "Take the first one by its lines.",
            continue_at(argv, format!("{}:{}", first.start_line, first.end_line)),
        ),
    )
    .with_candidates(Json::Arr(defs.iter().map(Json::from_serialize).collect()));
    for q in qualified {
        err = err.with_repair(Repair::new(
            "qualify",
            "Pick the definition by the one around it.",
            with_symbol(argv, &q, kind),
        ));
    }
    if let (Some(k), None, true) = (kinds.first(), kind, kinds.len() > 1) {
        err = err.with_repair(Repair::new(
            "narrow",
            "Name the kind of definition.",
            with_symbol(argv, name, Some(k)),
        ));
    }
    Err(err)
}

/// No definition `name`: the file's definitions (those whose name shares the
/// most with it first, at most 20) are the candidates.
fn no_symbol(
    all: &[outline::Definition],
    display: &str,
    name: &str,
    kind: Option<&str>,
    argv: &[String],
) -> CmdError {
    let want = name.to_lowercase();
    let near = |d: &outline::Definition| {
        let have = d.name.to_lowercase();
        have.contains(&want) || want.contains(&have)
    };
    let mut ranked: Vec<&outline::Definition> = all.iter().collect();
    ranked.sort_by_key(|d| (!near(d), kind.is_some_and(|k| d.kind != k)));
    let candidates: Vec<Json> = ranked
        .iter()
        .take(20)
        .map(|d| Json::from_serialize(*d))
        .collect();
    let mut err = CmdError::new(
        code::NO_MATCH,
        format!(
            "{display} has no definition named {name}{}.",
            kind.map(|k| format!(" of kind {k}")).unwrap_or_default()
        ),
        Repair::new(
            "match",
            "Find the name's lines with --match instead.",
            as_match(argv, name),
        ),
    )
    .with_candidates(Json::Arr(candidates));
    // The nearest definition, by a name that picks it alone.
    let best = ranked.first().filter(|d| near(d)).and_then(|d| {
        if all.iter().filter(|o| o.name == d.name).count() == 1 {
            Some(d.name.clone())
        } else {
            outline::qualified_names(std::slice::from_ref(*d))
                .pop()
                .flatten()
        }
    });
    if let Some(best) = best {
        err = err.with_first_repair(Repair::new(
            "candidate",
            "Take the nearest definition the file has.",
            with_symbol(argv, &best, None),
        ));
    }
    err
}
