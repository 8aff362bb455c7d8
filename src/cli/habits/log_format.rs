//! git log's `--format=...` / `--pretty=...`: taken as `--fields` when every
//! word of the format is one of the fields each item carries, else answered
//! with the call without it and which words map to which fields.

use super::{Found, Row};
use crate::protocol::argv::options;
use crate::protocol::{CmdError, Json, Repair, code, shell};
use crate::registry;

/// git's placeholders that name an item's field, and whether they ask for its
/// long form (`--full`: the 40-hex sha, the date with its time).
const FIELDS: &[(&str, &str, bool)] = &[
    ("H", "sha", true),
    ("h", "sha", false),
    ("an", "author", false),
    ("aN", "author", false),
    ("ad", "date", true),
    ("aD", "date", true),
    ("ai", "date", true),
    ("aI", "date", true),
    ("as", "date", false),
    ("ar", "date", false),
    ("at", "date", true),
    ("ah", "date", false),
    ("s", "subject", false),
    ("ae", "email", false),
    ("aE", "email", false),
];

/// The fields a format asks for, in its order, and whether any in long form.
type Asked = (Vec<&'static str>, bool);

/// git's named formats: the fields each shows, or what it shows that no field has.
fn named(v: &str) -> Option<Result<&'static [&'static str], &'static str>> {
    Some(match v {
        "oneline" => Ok(&["sha", "subject"]),
        "reference" => Ok(&["sha", "subject", "date"]),
        "short" => Ok(&["sha", "author", "subject"]),
        "medium" => Err("the message body"),
        "full" | "fuller" | "raw" => Err("the committer and the message body"),
        "email" | "mboxrd" => Err("a mail of the commit"),
        _ => return None,
    })
}

/// The format's words as fields, or the first word that no field has.
fn placeholders(f: &str) -> Result<Asked, String> {
    let mut out: Vec<&'static str> = Vec::new();
    let mut full = false;
    let mut rest = f;
    while let Some(at) = rest.find('%') {
        rest = &rest[at + 1..];
        // Layout only: %% %n %xNN, colours %C..., padding %<(..) %>(..), %w(..).
        let skip = if rest.starts_with(['%', 'n', 'm']) {
            Some(1)
        } else if let Some(h) = rest.strip_prefix('x') {
            Some(
                1 + h
                    .chars()
                    .take(2)
                    .take_while(char::is_ascii_hexdigit)
                    .count(),
            )
        } else if rest.starts_with(['C', '<', '>', 'w']) {
            let paren = rest.find('(').filter(|p| *p <= 3);
            match paren.and_then(|p| rest[p..].find(')').map(|q| p + q + 1)) {
                Some(end) => Some(end),
                None if rest.starts_with('C') => {
                    let n = ["reset", "red", "green", "blue"]
                        .iter()
                        .find(|c| rest[1..].starts_with(**c))
                        .map_or(1, |c| 1 + c.len());
                    Some(n)
                }
                None => None,
            }
        } else {
            None
        };
        if let Some(n) = skip {
            rest = rest.get(n..).unwrap_or("");
            continue;
        }
        let Some((p, field, long)) = FIELDS.iter().find(|(p, ..)| rest.starts_with(p)) else {
            // %ae, %cn, %GS: two letters; %b, %d: one.
            let two = rest.starts_with(['a', 'c', 'g', 'G']);
            let word: String = rest.chars().take(if two { 2 } else { 1 }).collect();
            return Err(format!("%{word}"));
        };
        if !out.contains(field) {
            out.push(field);
        }
        full |= long;
        rest = &rest[p.len()..];
    }
    Ok((out, full))
}

/// A format that asks for what no field has: where it stands, as written, and
/// the first thing it asks for.
pub(super) struct Refused {
    pub index: usize,
    pub span: usize,
    spelled: String,
    what: String,
}

/// The `--format` / `--pretty=` word of a git log call: `Ok` to take (no words
/// left), `Err` when the format asks for what no field has.
pub(super) fn found(argv: &[String]) -> Option<Result<Found, Refused>> {
    let (index, span, value) = options(registry::LIST, argv).into_iter().find_map(|o| {
        let w = argv[o.index].as_str();
        if let Some(v) = w.strip_prefix("--format=").or(w.strip_prefix("--pretty=")) {
            return Some((o.index, 1, v.to_string()));
        }
        match w {
            "--format" => argv.get(o.index + 1).map(|v| (o.index, 2, v.clone())),
            "--pretty" => Some((o.index, 1, "medium".to_string())),
            _ => None,
        }
    })?;
    let spelled = argv[index..index + span].join(" ");
    let fmt = value
        .strip_prefix("format:")
        .or(value.strip_prefix("tformat:"));
    let fields = match (fmt, named(&value)) {
        (None, Some(Ok(f))) => Ok((f.to_vec(), false)),
        (None, Some(Err(what))) => Err(what.to_string()),
        (None, None) if !value.contains('%') => Err(format!("{value:?}")),
        (f, _) => placeholders(f.unwrap_or(&value)),
    };
    Some(match fields {
        Ok((f, full)) if !f.is_empty() => {
            let mut words = vec!["--fields".to_string(), f.join(",")];
            if full {
                words.push("--full".to_string());
            }
            let ours = words.join(" ");
            Ok(Found {
                row: Row {
                    commands: "git log",
                    foreign: "--format",
                    ours: "",
                    take: true,
                    value: "none",
                    why: "",
                },
                index,
                span,
                words,
                pattern: None,
                took: (spelled, ours),
            })
        }
        Ok(_) => Err(Refused {
            index,
            span,
            spelled,
            what: "no word".to_string(),
        }),
        Err(what) => Err(Refused {
            index,
            span,
            spelled,
            what,
        }),
    })
}

/// The answer to a refused format: `fixed` is the call without it.
pub(super) fn refuse(fixed: &[String], r: &Refused) -> CmdError {
    let (spelled, what) = (&r.spelled, &r.what);
    CmdError::new(
        code::ARGUMENT_INVALID,
        format!(
            "git log has no field for {what} of {spelled}: each item carries sha (%h; %H with --full), author (%an), date (%as; %aI with --full), subject (%s) and email (%ae); git show SHA has a commit's whole message."
        ),
        Repair::new(
            "retry",
            format!("The same call without {spelled}."),
            shell::aitools(fixed),
        ),
    )
    .with_candidates(Json::Arr(
        ["sha", "author", "date", "subject", "email"]
            .iter()
            .map(|f| Json::str(*f))
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::placeholders;

    #[test]
    fn format_words_map_to_fields() {
        assert_eq!(placeholders("%h %s"), Ok((vec!["sha", "subject"], false)));
        assert_eq!(
            placeholders("%H%x09%an%x09%ad%n%s%%"),
            Ok((vec!["sha", "author", "date", "subject"], true))
        );
        assert_eq!(
            placeholders("%C(yellow)%h%Creset %<(20)%an %s"),
            Ok((vec!["sha", "author", "subject"], false))
        );
        assert_eq!(placeholders("%s %as"), Ok((vec!["subject", "date"], false)));
        assert_eq!(placeholders("%h %b"), Err("%b".to_string()));
        assert_eq!(
            placeholders("%an <%ae>"),
            Ok((vec!["author", "email"], false))
        );
        assert_eq!(placeholders("%ce"), Err("%ce".to_string()));
        assert_eq!(placeholders("%cn"), Err("%cn".to_string()));
        assert_eq!(placeholders("plain"), Ok((vec![], false)));
    }
}
