//! The dispatcher: the only code that reads argv, writes to stdout or stderr, or
//! picks an exit code. parse → recover → run → one envelope, on every path:
//! clap errors, `--help`, `--version`, panics and a closed stdout included.

use crate::cli;
use crate::discovery;
use crate::protocol::envelope::{self, Rendered};
use crate::protocol::{CmdError, Json, Output, Repair, agent_docs, code, shell, values};
use crate::registry;
use crate::store::recovery;
use crate::workspace::Ctx;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use std::ffi::OsString;
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;
use std::time::Duration;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The command that runs recovery as its own work (and may set a record aside).
const RECOVER: &str = "recover";

/// The process entry point (`main.rs` calls only this).
pub fn main() -> ExitCode {
    // Panic text must never reach the agent: the envelope below reports it.
    std::panic::set_hook(Box::new(|_| {}));
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    if let Some(code) = serve_mcp(&args) {
        return code;
    }
    let rendered = match catch_unwind(AssertUnwindSafe(|| invoke(&args))) {
        Ok(r) => r,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            let argv = lossy(&args);
            let words = cli::command_words(&argv);
            let command = if words.is_empty() {
                "aitools".to_string()
            } else {
                words.join(" ")
            };
            envelope::render_error(
                &command,
                &CmdError::internal(format!("aitools failed unexpectedly: {what}.")),
            )
        }
    };
    emit(rendered)
}

/// `aitools mcp`: the one call whose stdout is a protocol stream, not an
/// envelope. Only a call that parses runs the server; any other (a typo, `--help`)
/// gets its envelope from `invoke` like every command.
fn serve_mcp(args: &[OsString]) -> Option<ExitCode> {
    let argv = lossy(args);
    let words = cli::command_words(&argv);
    if words != ["mcp"] || argv.iter().any(|a| a == "--help") {
        return None;
    }
    let full = std::iter::once(OsString::from("aitools")).chain(args.iter().cloned());
    let matches = cli::build_for(&words).try_get_matches_from(full).ok()?;
    let root = matches
        .subcommand()
        .and_then(|(_, leaf)| leaf.get_one::<String>("root").cloned());
    let mut server = crate::mcp::Server::new(root.as_deref());
    let mut input = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    // A closed stdout or stdin ends the session: the host is gone.
    let _ = server.serve(&mut input, &mut out);
    Some(ExitCode::SUCCESS)
}

fn emit(r: Rendered) -> ExitCode {
    let result = if r.to_stderr {
        let mut err = std::io::stderr().lock();
        err.write_all(r.text.as_bytes()).and_then(|_| err.flush())
    } else {
        let mut out = std::io::stdout().lock();
        out.write_all(r.text.as_bytes()).and_then(|_| out.flush())
    };
    // A closed stdout (`aitools read x | head -c0`) ends quietly: nobody is listening.
    let _ = result;
    ExitCode::from(r.exit_code.clamp(0, 255) as u8)
}

fn lossy(args: &[OsString]) -> Vec<String> {
    args.iter()
        .map(|a| a.to_string_lossy().to_string())
        .collect()
}

/// Runs one invocation to its envelope.
pub fn invoke(args: &[OsString]) -> Rendered {
    // Debug builds only: lets the tests prove a panic still ends in one envelope.
    #[cfg(debug_assertions)]
    if std::env::var_os("AITOOLS_TEST_PANIC").is_some() {
        panic!("a panic forced by AITOOLS_TEST_PANIC");
    }
    let argv = lossy(args);
    let head: Vec<&str> = argv
        .iter()
        .take_while(|a| *a != "--")
        .map(String::as_str)
        .collect();
    let words = cli::command_words(&argv);

    if head.contains(&"--help") {
        return help(&words);
    }
    if head.contains(&"--brief") && words.is_empty() {
        let mut v = Json::obj();
        v.push("brief", Json::str(agent_docs::BRIEF));
        return envelope::render_ok("brief", Output::from_json(v, false), vec![], vec![]);
    }
    if head.contains(&"--version") && words.is_empty() {
        let mut v = Json::obj();
        v.push("name", Json::str("aitools"));
        v.push("version", Json::str(VERSION));
        return envelope::render_constant("version", Output::from_json(v, false));
    }
    if words.is_empty() {
        let err = CmdError::new(
            code::ARGUMENT_INVALID,
            "No command given.",
            Repair::new(
                "help",
                "List the commands, rules and skills.",
                "aitools --help",
            ),
        );
        return envelope::render_error("aitools", &err);
    }

    let full = std::iter::once(OsString::from("aitools")).chain(args.iter().cloned());
    let matches = match cli::build_for(&words).try_get_matches_from(full) {
        Ok(m) => m,
        Err(e) => return clap_error(e, &words, &argv),
    };
    let Some((first, mut leaf)) = matches.subcommand() else {
        return envelope::render_error(
            "aitools",
            &discovery::unknown_command_error(&words[0], &[]),
        );
    };
    let mut name = first.to_string();
    if let Some((sub, m)) = leaf.subcommand() {
        name = format!("{first} {sub}");
        leaf = m;
    }
    let Some(spec) = registry::find(&name) else {
        return envelope::render_error("aitools", &discovery::unknown_command_error(&name, &[]));
    };

    let lock_timeout = match leaf.get_one::<String>("lock_timeout") {
        Some(v) => match values::parse_duration(v) {
            Ok(d) => d,
            Err(m) => {
                return envelope::render_error(
                    &name,
                    &CmdError::invalid_argument(&name, format!("--lock-timeout: {m}")),
                );
            }
        },
        None => Duration::from_secs(10),
    };
    let root = leaf.get_one::<String>("root").map(String::as_str);
    let mut ctx = match Ctx::new(&name, argv.clone(), root, lock_timeout) {
        Ok(c) => c,
        Err(e) => return envelope::render_error(&name, &e),
    };
    if spec.tx {
        ctx.tx = leaf
            .try_get_one::<String>(crate::protocol::registry::TX_ARG)
            .ok()
            .flatten()
            .cloned();
    }
    if spec.writes {
        ctx.max_diff_lines = leaf
            .try_get_one::<u64>(crate::protocol::registry::MAX_DIFF_ARG)
            .ok()
            .flatten()
            .map(|n| usize::try_from(*n).unwrap_or(usize::MAX));
    }
    // A record that cannot run is reported (`pending_recovery`), not an error:
    // reads go on, and the write path refuses while it is pending. `recover`
    // runs the pass itself, so its answer reflects what it did.
    let recovered = if spec.workspace && name != RECOVER {
        match recovery::recover(&ctx) {
            Ok(r) => r,
            Err(e) => return envelope::render_error(&name, &e),
        }
    } else {
        recovery::Report::default()
    };
    match keep_tx_in_follow_ups(&ctx, (spec.run)(&ctx, leaf)) {
        Ok(out) => envelope::render_ok(&name, out, vec![], recovery::report(&recovered)),
        Err(e) => envelope::render_error(&name, &e),
    }
}

/// Inside a tx, the commands an answer hands back (`next_commands`,
/// `repairs[].command`) stay inside it: each tx-aware `aitools` command that
/// lacks `--tx` gets `--tx <id>` among its options. Followed without it, a
/// continuation would read or change the working tree instead of the tx.
fn keep_tx_in_follow_ups(ctx: &Ctx, result: Result<Output, CmdError>) -> Result<Output, CmdError> {
    let Some(id) = ctx.tx.as_deref() else {
        return result;
    };
    // A tx that does not exist (the error says so) is not one to stay in.
    if crate::store::view::active(ctx).is_err() {
        return result;
    }
    match result {
        Ok(mut out) => {
            if let Some(Json::Arr(cmds)) = out.fields.get_mut("next_commands") {
                for c in cmds.iter_mut() {
                    if let Json::Str(s) = c
                        && let Some(n) = with_tx_option(s, id)
                    {
                        *s = n;
                    }
                }
            }
            Ok(out)
        }
        Err(mut e) => {
            for r in e.repairs_mut() {
                if let Some(n) = with_tx_option(&r.command, id) {
                    r.command = n;
                }
            }
            Err(e)
        }
    }
}

/// `command` with `--tx <id>` inserted before its `--` (or at its end), when it is
/// an `aitools` call of a tx-aware command without `--tx`. The text is spliced, not
/// re-quoted, so `<...>` placeholders stay as they were written.
fn with_tx_option(command: &str, id: &str) -> Option<String> {
    let spans = crate::protocol::shell::split_spans(command)?;
    let (first, rest) = spans.split_first()?;
    if first.1 != "aitools" {
        return None;
    }
    let words: Vec<String> = rest.iter().map(|(_, w)| w.clone()).collect();
    let spec = registry::find(&cli::command_words(&words).join(" "))?;
    if !spec.tx {
        return None;
    }
    let dd = words.iter().position(|w| w == "--");
    let opts = &words[..dd.unwrap_or(words.len())];
    if opts.iter().any(|w| w == "--tx" || w.starts_with("--tx=")) {
        return None;
    }
    let add = format!("--tx {}", crate::protocol::shell::quote(id));
    Some(match dd.and_then(|k| rest.get(k)) {
        Some((span, _)) => format!("{}{add} {}", &command[..span.start], &command[span.start..]),
        None => format!("{} {add}", command.trim_end()),
    })
}

/// `aitools --help` (the brief, commands, rules, skills and the feedback line) or
/// `aitools <cmd> --help` (its schema detail).
fn help(words: &[String]) -> Rendered {
    if words.is_empty() {
        let mut v = Json::obj();
        v.push("help", Json::str(agent_docs::BRIEF));
        v.push("commands", discovery::help_list());
        v.push("rules", agent_docs::rules_json());
        v.push("skills", agent_docs::skills_json());
        v.push("feedback", Json::str(agent_docs::FEEDBACK_LINE));
        return envelope::render_ok("help", Output::from_json(v, false), vec![], vec![]);
    }
    let name = words.join(" ");
    if let Some(spec) = registry::find(&name) {
        // The compact schema detail inside the envelope every call prints.
        return envelope::render_ok(
            "help",
            Output::from_json(spec.compact(), false),
            vec![],
            vec![],
        );
    }
    if words.len() == 1 && registry::is_group(&name) {
        // `aitools tx --help`: the group's subcommands, as `schema tx` lists them.
        let mut v = Json::obj();
        v.push("name", Json::str(name.clone()));
        v.push("commands", discovery::group_list(&name));
        return envelope::render_ok("help", Output::from_json(v, false), vec![], vec![]);
    }
    envelope::render_error(
        "aitools",
        &discovery::unknown_command_error(&words[0], &words[1..]),
    )
}

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

/// Turns a clap parse error into our envelope (clap never prints).
fn clap_error(e: clap::Error, words: &[String], argv: &[String]) -> Rendered {
    let known = registry::find(&words.join(" ")).map(|s| s.name.to_string());
    let command = known.clone().unwrap_or_else(|| "aitools".to_string());
    let arg = context_text(&e, ContextKind::InvalidArg).unwrap_or_default();
    let value = context_text(&e, ContextKind::InvalidValue).unwrap_or_default();
    let err = match e.kind() {
        ErrorKind::InvalidSubcommand
        | ErrorKind::MissingSubcommand
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // For a missing subcommand clap's context names the parent as a path
            // (`aitools tx`); the group is the last command word.
            let word = match e.kind() {
                ErrorKind::InvalidSubcommand => context_text(&e, ContextKind::InvalidSubcommand),
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
            } else if registry::is_group(&word) || known.is_none() {
                discovery::unknown_command_error(&word, &rest)
            } else {
                CmdError::invalid_argument(&command, format!("Unknown subcommand {word}."))
            }
        }
        ErrorKind::UnknownArgument => {
            // A value that starts with '-' (a pattern, a replacement) reads as an
            // option; clap names only its first letter (`-f` of `-foo`).
            let word = argv
                .iter()
                .take_while(|a| *a != "--")
                .find(|a| a.len() > 2 && !a.starts_with("--") && a.starts_with(arg.as_str()))
                .filter(|_| arg.len() == 2 && arg.starts_with('-'));
            let habit = (word.is_none() && arg.len() == 2 && !arg.starts_with("--"))
                .then(|| cli::short_flag_habit(&command, &arg))
                .flatten();
            if let Some((long, why)) = habit {
                return envelope::render_error(
                    &command,
                    &short_habit_error(&command, argv, &arg, long, why),
                );
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
                cli::long_options(&command)
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
            let suggested = nearest.or_else(|| context_text(&e, ContextKind::SuggestedArg));
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
    envelope::render_error(&command, &err)
}

#[cfg(test)]
mod tests {
    use super::with_tx_option;

    #[test]
    fn tx_goes_among_the_options_of_tx_aware_commands_only() {
        let id = "tx-20260101T000000Z-0000abcd";
        assert_eq!(
            with_tx_option("aitools read 'a b' -- -x", id).as_deref(),
            Some("aitools read 'a b' --tx tx-20260101T000000Z-0000abcd -- -x")
        );
        assert_eq!(
            with_tx_option("aitools edit <path> --old '<text>'", id).as_deref(),
            Some("aitools edit <path> --old '<text>' --tx tx-20260101T000000Z-0000abcd")
        );
        assert_eq!(with_tx_option("aitools tx diff x", id), None);
        assert_eq!(with_tx_option("aitools read a --tx=other", id), None);
        assert_eq!(with_tx_option("git status", id), None);
    }
}
