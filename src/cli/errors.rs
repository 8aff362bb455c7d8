//! clap's parse errors mapped to ours: the message, the nearest option, the same
//! call corrected (`retry`), and grep's one-letter habits (data/short_flags.tsv).

use crate::discovery;
use crate::protocol::{CmdError, Json, Repair, code, shell};
use crate::registry;
use clap::error::{ContextKind, ContextValue, ErrorKind};

/// A grep or ripgrep one-letter flag the command does not take: why, and the same
/// call with the long option in its place (or without it), not the whole schema.
fn short_habit_error(
    command: &str,
    argv: &[String],
    flag: &str,
    long: Option<String>,
    why: &str,
) -> CmdError {
    let instead: Vec<String> = long
        .as_deref()
        .map(|l| l.split(' ').map(str::to_string).collect())
        .unwrap_or_default();
    let end = argv.iter().position(|a| a == "--").unwrap_or(argv.len());
    let mut fixed: Vec<String> = Vec::with_capacity(argv.len() + 1);
    let mut found = false;
    for (i, a) in argv.iter().enumerate() {
        if i < end && a == flag && !found {
            found = true;
            fixed.extend(instead.iter().cloned());
        } else {
            fixed.push(a.clone());
        }
    }
    let message = match &long {
        Some(_) => format!("{command} does not take {flag}: {why}."),
        None => format!("{command} does not take {flag}: {why}; leave it out."),
    };
    let repair = if found {
        let detail = match &long {
            Some(l) => format!("The same call with {l} instead of {flag}."),
            None => format!("The same call without {flag}."),
        };
        Repair::new("retry", detail, shell::aitools(&fixed))
    } else {
        crate::protocol::error::schema_repair(command)
    };
    let err = CmdError::new(code::ARGUMENT_INVALID, message, repair);
    match long {
        Some(l) => err.with_candidates(Json::Arr(vec![Json::str(l)])),
        None => err,
    }
}

fn context_text(e: &clap::Error, kind: ContextKind) -> Option<String> {
    e.get(kind).map(|v| match v {
        ContextValue::String(s) => s.clone(),
        ContextValue::Strings(v) => v.join(", "),
        ContextValue::Number(n) => n.to_string(),
        other => other.to_string(),
    })
}

/// `search -rn PAT`: the habit letter (`-r`, data/short_flags.tsv) left out of
/// the cluster when every other letter is one of the command's own (`-n`).
fn cluster_habit(command: &str, argv: &[String], flag: &str, word: &str) -> Option<CmdError> {
    let letter = flag.strip_prefix('-')?;
    let (long, why) = super::short_flag_habit(command, flag)?;
    let shorts: Vec<char> = registry::find(command)?
        .clap_command()
        .get_arguments()
        .filter(|a| !a.get_action().takes_values())
        .filter_map(clap::Arg::get_short)
        .collect();
    let rest: String = word[1..].replacen(letter, "", 1);
    if rest.is_empty() || !rest.chars().all(|c| shorts.contains(&c)) {
        return None;
    }
    let mut fixed: Vec<String> = Vec::with_capacity(argv.len() + 1);
    let mut done = false;
    for a in argv {
        if !done && a == word {
            done = true;
            fixed.push(format!("-{rest}"));
            fixed.extend(long.iter().flat_map(|l| l.split(' ').map(str::to_string)));
        } else {
            fixed.push(a.clone());
        }
    }
    let message = match &long {
        Some(l) => format!("{command} does not take {flag} (of {word}): {why}; it is {l}."),
        None => format!("{command} does not take {flag} (of {word}): {why}; leave it out."),
    };
    Some(CmdError::new(
        code::ARGUMENT_INVALID,
        message,
        Repair::new(
            "retry",
            format!("The same call with -{rest} and without {flag}."),
            shell::aitools(&fixed),
        ),
    ))
}

/// Turns a clap parse error into the command it concerns (`aitools` when none)
/// and our error (clap never prints).
pub fn parse_error(e: clap::Error, words: &[String], argv: &[String]) -> (String, CmdError) {
    let known = registry::find(&words.join(" ")).map(|s| s.name.to_string());
    let command = known.clone().unwrap_or_else(|| "aitools".to_string());
    let arg = context_text(&e, ContextKind::InvalidArg).unwrap_or_default();
    let value = context_text(&e, ContextKind::InvalidValue).unwrap_or_default();
    let err = match e.kind() {
        ErrorKind::InvalidSubcommand
        | ErrorKind::MissingSubcommand
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            subcommand_error(&e, words, argv, known.is_some(), &command)
        }
        ErrorKind::UnknownArgument => unknown_argument(&e, argv, &command, &arg),
        ErrorKind::MissingRequiredArgument => {
            CmdError::invalid_argument(&command, format!("{command} needs {arg}."))
        }
        ErrorKind::InvalidValue => {
            let valid = context_text(&e, ContextKind::ValidValue).unwrap_or_default();
            let msg = if value.is_empty() {
                format!("{arg} needs a value.")
            } else if valid.is_empty() {
                format!("{arg} does not accept {value:?}.")
            } else {
                format!("{arg} does not accept {value:?}; use one of {valid}.")
            };
            CmdError::invalid_argument(&command, msg)
        }
        ErrorKind::ValueValidation => CmdError::invalid_argument(
            &command,
            format!(
                "{arg}: {value:?} is not a valid value (whole numbers are ASCII digits, no sign)."
            ),
        ),
        ErrorKind::InvalidUtf8 => CmdError::invalid_argument(
            &command,
            "An argument is not valid UTF-8; pass paths and text as UTF-8.",
        ),
        ErrorKind::TooManyValues | ErrorKind::WrongNumberOfValues | ErrorKind::TooFewValues => {
            CmdError::invalid_argument(&command, format!("{arg} got the wrong number of values."))
        }
        ErrorKind::ArgumentConflict => {
            let other = context_text(&e, ContextKind::PriorArg).unwrap_or_default();
            let msg = if other == arg {
                format!("{arg} is given more than once; it takes one value (or one pair).")
            } else {
                format!("{arg} cannot be used with {other}.")
            };
            CmdError::invalid_argument(&command, msg)
        }
        ErrorKind::NoEquals => {
            CmdError::invalid_argument(&command, format!("{arg} needs its value after '='."))
        }
        _ => {
            let text = e.to_string();
            let first = text
                .lines()
                .next()
                .unwrap_or("the arguments do not parse")
                .trim_start_matches("error: ")
                .to_string();
            CmdError::invalid_argument(&command, format!("{first}."))
        }
    };
    (command, err)
}

/// A subcommand clap did not find: the group's subcommands, or the unknown
/// command's nearest names.
fn subcommand_error(
    e: &clap::Error,
    words: &[String],
    argv: &[String],
    known: bool,
    command: &str,
) -> CmdError {
    // For a missing subcommand clap's context names the parent as a path
    // (`aitools tx`); the group is the last command word.
    let word = match e.kind() {
        ErrorKind::InvalidSubcommand => context_text(e, ContextKind::InvalidSubcommand),
        _ => None,
    }
    .unwrap_or_else(|| words.last().cloned().unwrap_or_default());
    let rest: Vec<String> = argv
        .iter()
        .skip_while(|a| **a != word)
        .skip(1)
        .cloned()
        .collect();
    let group = words.first().filter(|g| registry::is_group(g));
    if let Some(group) = group.filter(|g| **g != word) {
        let prefix = format!("{group} ");
        let subs: Vec<&str> = registry::all()
            .filter_map(|s| s.name.strip_prefix(&prefix))
            .collect();
        CmdError::new(
            code::ARGUMENT_INVALID,
            format!(
                "{group} has no subcommand {word}; it has {}.",
                subs.join(", ")
            ),
            Repair::new(
                "schema",
                format!("Show the {group} subcommands and their arguments."),
                format!("aitools schema {group}"),
            ),
        )
    } else if registry::is_group(&word) || !known {
        discovery::unknown_command_error(registry::LIST, &word, &rest)
    } else {
        CmdError::invalid_argument(command, format!("Unknown subcommand {word}."))
    }
}

/// An option the command has, written after `--` (where every word is a value):
/// the same call with its options before `--`.
fn option_after_dashes(argv: &[String], command: &str, arg: &str) -> Option<CmdError> {
    let flag = arg.split('=').next().unwrap_or(arg);
    let after = argv.iter().skip_while(|a| *a != "--").skip(1);
    if !after.clone().any(|a| a == arg) || !super::long_options(command).iter().any(|o| o == flag) {
        return None;
    }
    let fixed = super::handback::values_last(argv)?;
    Some(
        CmdError::invalid_argument(
            command,
            format!("{flag} comes after --, where every word is a value (a path, a pattern); options go before --."),
        )
        .with_first_repair(Repair::new(
            "retry",
            "The same call with its options before --.",
            shell::aitools(&fixed),
        )),
    )
}

/// An option the command lacks: a grep habit it takes another way, or the
/// nearest option it has, with the same call spelled with it.
fn unknown_argument(e: &clap::Error, argv: &[String], command: &str, arg: &str) -> CmdError {
    if let Some(err) = option_after_dashes(argv, command, arg) {
        return err;
    }
    let (command, arg) = (command.to_string(), arg.to_string());
    // A value that starts with '-' (a pattern, a replacement) reads as an
    // option; clap names only its first letter (`-f` of `-foo`).
    let word = argv
        .iter()
        .take_while(|a| *a != "--")
        .find(|a| a.len() > 2 && !a.starts_with("--") && a.starts_with(arg.as_str()))
        .filter(|_| arg.len() == 2 && arg.starts_with('-'));
    // grep's `-rn`/`-nr`: a habit letter clustered with letters the command has.
    let cluster = argv.iter().take_while(|a| *a != "--").find(|a| {
        a.len() > 2
            && !a.starts_with("--")
            && arg.len() == 2
            && a.strip_prefix('-').is_some_and(|l| l.contains(&arg[1..]))
    });
    if let Some(err) = cluster.and_then(|w| cluster_habit(&command, argv, &arg, w)) {
        return err;
    }
    let habit = (word.is_none() && arg.len() == 2 && !arg.starts_with("--"))
        .then(|| super::short_flag_habit(&command, &arg))
        .flatten();
    if let Some((long, why)) = habit {
        let err = short_habit_error(&command, argv, &arg, long, why);
        return err;
    }

    let msg = match word {
        Some(w) => format!(
            "{command} does not accept {arg} (of {w}). If {w} is a value, not options: put the options first, then -- and the positional values (aitools {command} [options] -- <values>); a flag's value can be joined with = (--flag={w})."
        ),
        None => format!("{command} does not accept {arg}."),
    };
    // The nearest option it does accept: a prefix (`--max-line`) or a typo.
    let flag = arg.split('=').next().unwrap_or(&arg);
    let nearest = if flag.starts_with("--") {
        super::long_options(&command)
            .into_iter()
            .map(|o| {
                let d = if o.starts_with(flag) {
                    0
                } else {
                    discovery::distance(flag, &o)
                };
                (d, o)
            })
            .filter(|(d, _)| *d <= 2)
            .min()
            .map(|(_, o)| o)
    } else {
        None
    };
    let suggested = nearest.or_else(|| context_text(e, ContextKind::SuggestedArg));
    let msg = match &suggested {
        Some(s) => format!("{msg} Did you mean {s}?"),
        None => msg,
    };
    let mut err = CmdError::invalid_argument(&command, msg);
    if let Some(s) = suggested {
        // The same call with the option spelled as suggested.
        let fixed: Vec<String> = argv
            .iter()
            .map(|a| match a.strip_prefix(flag) {
                Some(rest) if rest.is_empty() || rest.starts_with('=') => {
                    format!("{s}{rest}")
                }
                _ => a.clone(),
            })
            .collect();
        if fixed != argv && s.starts_with("--") {
            err = err.with_first_repair(Repair::new(
                "retry",
                format!("The same call with {s}."),
                shell::aitools(&fixed),
            ));
        }
        err = err.with_candidates(Json::Arr(vec![Json::str(s)]));
    }
    err
}
