//! `text::select::SelectError` (a line selector that selects nothing, or too
//! much) as the user sees it.

use crate::protocol::{CmdError, Repair, code, shell};
use crate::text::select::SelectError;

impl From<Box<SelectError>> for CmdError {
    fn from(e: Box<SelectError>) -> CmdError {
        let read = |display: &str| {
            Repair::new(
                "read",
                "Read the file to choose a current selection.",
                shell::aitools(["read", display]),
            )
        };
        match *e {
            SelectError::PastEnd {
                display,
                total,
                start,
            } => CmdError::new(
                code::NO_MATCH,
                format!("{display} has {total} lines; line {start} does not exist."),
                Repair::new(
                    "read",
                    "Read the end of the file.",
                    shell::aitools(["read", &display, "--tail", "20"]),
                ),
            ),
            SelectError::UnsupportedLanguage { display, file } => CmdError::new(
                code::UNSUPPORTED_LANGUAGE,
                format!(
                    "No language of the outline table covers {file}, so --symbol cannot find definitions in it."
                ),
                Repair::new(
                    "range",
                    "Read the file and select the lines with --range instead.",
                    shell::aitools(["read", &display]),
                ),
            ),
            SelectError::NoSymbol {
                display,
                name,
                kind,
            } => CmdError::new(
                code::NO_MATCH,
                format!(
                    "{display} defines no {name}{}.",
                    kind.map(|k| format!(" of kind {k}")).unwrap_or_default()
                ),
                Repair::new(
                    "outline",
                    "List the file's definitions and pick an existing name.",
                    shell::aitools(["code", "outline", &display]),
                ),
            ),
            SelectError::Ambiguous {
                display,
                name,
                count,
                qualified,
                candidates,
            } => {
                let hint = if qualified.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (qualify it by the definition around it: {})",
                        qualified.join(", ")
                    )
                };
                CmdError::new(
                    code::AMBIGUOUS,
                    format!("{display} defines {name} {count} times; --symbol must pick one{hint}."),
                    Repair::new(
                        "kind",
                        "Qualify the name (Outer.name), add --kind to tell the definitions apart, or select the lines with --range.",
                        shell::aitools(["code", "outline", &display]),
                    ),
                )
                .with_candidates(candidates)
            }
            SelectError::Between {
                display,
                start_line,
            } => {
                let message = match start_line {
                    Some(s) => format!(
                        "--between: line {s} of {display} matches START but no later line matches END."
                    ),
                    None => format!("--between: no line of {display} matches START."),
                };
                CmdError::new(code::NO_MATCH, message, read(&display))
            }
            SelectError::NoMatch { display, invert } => CmdError::new(
                code::NO_MATCH,
                format!(
                    "--match selects no line of {display}{}.",
                    if invert { " (with --invert)" } else { "" }
                ),
                read(&display),
            ),
        }
    }
}
