//! `archive read`'s content selectors (the core's `LineArgs`) over a member's text: `--symbol` (with
//! `--kind`) through the core's `text::select::one_definition`, as `read` and
//! `git show` take it, and `--between` (with `--exclusive`) through
//! `text::select::select`; the errors worded for a member, with repairs that
//! rerun this call, and the call that continues a cut selection.

use crate::protocol::args::LineArgs;
use crate::protocol::values::LineRange;
use crate::protocol::{CmdError, Json, Repair, code, shell};
use crate::text::doc::Doc;
use crate::text::select::{self, Selector, SymbolError};

/// The content selector given (`--symbol` or `--between`), if any.
pub fn given(p: &LineArgs) -> Option<&'static str> {
    if p.symbol.is_some() {
        Some("--symbol")
    } else if p.between.is_some() {
        Some("--between")
    } else {
        None
    }
}

/// `argv` without the selectors (`--between` takes two values), then `add`.
pub fn rerun(argv: &[String], add: &[String]) -> String {
    let mut kept = Vec::with_capacity(argv.len());
    let mut i = 0;
    while i < argv.len() {
        match argv[i].as_str() {
            "--" => {
                kept.extend(argv[i..].iter().cloned());
                break;
            }
            "--between" => i += 3,
            "--range" | "--symbol" | "--kind" | "--match" => i += 2,
            "--exclusive" | "--invert" => i += 1,
            _ => {
                kept.push(argv[i].clone());
                i += 1;
            }
        }
    }
    shell::aitools(shell::rerun(&kept, &[], &[], add))
}

fn as_match(argv: &[String], name: &str) -> Repair {
    let last = name.rsplit(['.', ':']).next().unwrap_or(name);
    Repair::new(
        "match",
        "Find the name's lines with --match instead.",
        rerun(argv, &["--match".into(), regex::escape(last)]),
    )
}

/// The lines `p` selects in `text` (a member named `entry`); None without one.
pub fn lines(
    command: &str,
    p: &LineArgs,
    entry: &str,
    text: &str,
    argv: &[String],
) -> Result<Option<LineRange>, CmdError> {
    if let Some(name) = &p.symbol {
        return symbol(p, name, entry, text, argv).map(Some);
    }
    let Some(b) = &p.between else {
        return Ok(None);
    };
    let (Some(s), Some(e)) = (b.first(), b.get(1)) else {
        return Err(CmdError::invalid_argument(
            command,
            "--between takes two values: START-RE END-RE.",
        ));
    };
    let re = |pat: &str| {
        regex::Regex::new(pat).map_err(|e| {
            CmdError::bad_pattern(
                "--between",
                pat,
                &e,
                crate::protocol::error::schema_repair(command),
            )
        })
    };
    let sel = Selector::Between {
        start: re(s)?,
        end: re(e)?,
        exclusive: p.exclusive,
    };
    let doc = Doc::from_text(false, text.to_string());
    let blocks = select::select(&doc, entry, &sel).map_err(|err| {
        CmdError::new(
            code::NO_MATCH,
            CmdError::from(err).message.clone(),
            Repair::new(
                "match",
                "See which lines match START (--match).",
                rerun(argv, &["--match".into(), s.clone()]),
            ),
        )
    })?;
    let block = blocks.first().cloned().unwrap_or(0..0);
    if block.is_empty() {
        // --exclusive around adjacent boundary lines: nothing between them.
        return Err(CmdError::new(
            code::NO_MATCH,
            format!("Nothing lies between the START and END lines of {entry}."),
            Repair::new(
                "inclusive",
                "Take the boundary lines too.",
                rerun(argv, &["--between".into(), s.clone(), e.clone()]),
            ),
        ));
    }
    Ok(Some(LineRange {
        start: block.start as u64 + 1,
        end: Some(block.end as u64),
    }))
}

/// The lines of the one definition `--symbol` names.
fn symbol(
    p: &LineArgs,
    name: &str,
    entry: &str,
    text: &str,
    argv: &[String],
) -> Result<LineRange, CmdError> {
    let run = |a: u64, b: u64| LineRange {
        start: a.max(1),
        end: Some(b.max(a.max(1))),
    };
    match select::one_definition(entry, text, name, p.kind.as_deref()) {
        Ok(d) => Ok(run(d.start_line, d.end_line)),
        Err(SymbolError::UnsupportedLanguage) => Err(CmdError::new(
            code::UNSUPPORTED_LANGUAGE,
            format!(
                "No language of the outline table covers {entry}; --symbol cannot find definitions in it."
            ),
            as_match(argv, name),
        )),
        Err(SymbolError::NoSymbol { all }) => Err(CmdError::new(
            code::NO_MATCH,
            format!("{entry} has no definition named {name}."),
            as_match(argv, name),
        )
        .with_candidates(Json::Arr(
            all.iter().take(20).map(Json::from_serialize).collect(),
        ))),
        Err(SymbolError::Ambiguous {
            defs, qualified, ..
        }) => {
            let first = defs.first().map_or((1, 1), |d| (d.start_line, d.end_line));
            let mut e = CmdError::new(
                code::AMBIGUOUS,
                format!("{entry} has {} definitions named {name}.", defs.len()),
                Repair::new(
                    "range",
                    "Take the first one by its lines.",
                    rerun(
                        argv,
                        &["--range".into(), format!("{}:{}", first.0, first.1)],
                    ),
                ),
            )
            .with_candidates(Json::Arr(defs.iter().map(Json::from_serialize).collect()));
            for q in qualified.into_iter().take(5) {
                e = e.with_repair(Repair::new(
                    "qualify",
                    "Pick the definition by the one around it.",
                    rerun(argv, &["--symbol".into(), q]),
                ));
            }
            Err(e)
        }
    }
}
