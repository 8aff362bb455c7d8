//! The syntax guard's refusal (`store::error::SyntaxBroken`) as
//! the user sees it: the file, the first error's line and column, the smallest
//! repair the grammar names, and the calls that look at the lines or write anyway.

use crate::protocol::{CmdError, Json, Repair, code, shell};
use crate::store::error::SyntaxBroken;

impl From<Box<SyntaxBroken>> for CmdError {
    fn from(e: Box<SyntaxBroken>) -> CmdError {
        let SyntaxBroken {
            rel,
            lang,
            error,
            from_config,
            argv,
        } = *e;
        let (line, column) = (error.line, error.column);
        let fix = match &error.missing {
            Some(t) => {
                format!(" The smallest repair: insert `{t}` at line {line}, column {column}.")
            }
            None => String::new(),
        };
        let message = format!(
            "The write would leave {rel} unparsable as {lang}: line {line}, column {column}: {}.{fix} Nothing was written.",
            error.message
        );
        let lo = line.saturating_sub(2).max(1);
        let read = Repair::new(
            "read",
            "Read the lines around the error, then send the write with the repair in it.",
            shell::aitools([
                "read",
                rel.as_str(),
                "--range",
                &format!("{lo}:{}", line + 2),
            ]),
        );
        let mut again: Vec<String> = argv
            .into_iter()
            .filter(|a| a != "--syntax-guard" && a != "--syntax-guard=on")
            .collect();
        if from_config {
            again.push("--syntax-guard=off".into());
        }
        let anyway = Repair::new(
            "write-anyway",
            if from_config {
                "The file is meant to be incomplete for now: the same write with the guard of .aitools.toml turned off."
            } else {
                "The file is meant to be incomplete for now: the same write without the guard."
            },
            shell::aitools(&again),
        );
        let mut d = Json::obj();
        d.push("path", Json::str(rel));
        d.push("line", Json::UInt(line as u64));
        d.push("column", Json::UInt(column as u64));
        d.push("message", Json::str(error.message));
        if let Some(t) = error.missing {
            d.push("insert", Json::str(t));
        }
        CmdError::new(code::SYNTAX_BROKEN, message, read)
            .with_repair(anyway)
            .with_diagnostics(Json::Arr(vec![d]))
    }
}
