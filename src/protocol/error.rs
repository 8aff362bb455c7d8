//! `CmdError`: the one error type every command returns.
//!
//! It cannot be built without a repair (the constructor takes the first one), and
//! it carries a catalog code rather than an exit code: the dispatcher asks the
//! catalog for the exit code.

use super::json::Json;
use serde::Serialize;

/// Error codes, spelled once. Each must be a row of `data/errors.tsv` (a test checks).
pub mod code {
    pub const ARGUMENT_INVALID: &str = "argument.invalid";
    pub const NOT_FOUND: &str = "input.not-found";
    pub const NOT_UTF8: &str = "input.not-utf8";
    pub const UNSUPPORTED_FORMAT: &str = "input.unsupported-format";
    pub const UNSUPPORTED_LANGUAGE: &str = "input.unsupported-language";
    pub const SYNTAX_ERROR: &str = "input.syntax-error";
    pub const NO_MATCH: &str = "selection.no-match";
    pub const AMBIGUOUS: &str = "selection.ambiguous";
    pub const COUNT_MISMATCH: &str = "selection.count-mismatch";
    pub const TARGET_CHANGED: &str = "refusal.target-changed";
    pub const REDACTED_INPUT: &str = "refusal.redacted-input";
    pub const OUTSIDE_WORKSPACE: &str = "refusal.outside-workspace";
    pub const EXISTS: &str = "refusal.exists";
    pub const NAME_TAKEN: &str = "refusal.name-taken";
    pub const NOT_A_FILE: &str = "refusal.not-a-file";
    pub const HARD_LINK: &str = "refusal.hard-link";
    pub const TOO_LARGE: &str = "refusal.too-large";
    pub const IO: &str = "environment.io";
    pub const BUSY: &str = "environment.busy";
    pub const TIMEOUT: &str = "environment.timeout";
    pub const UNAVAILABLE: &str = "environment.unavailable";
    pub const RECOVERY_PENDING: &str = "environment.recovery-pending";
    pub const STATE_UNTRUSTED: &str = "environment.state-untrusted";
    pub const INTERNAL: &str = "internal.unexpected";
    pub const OP_COLLECTED: &str = "refusal.op-collected";
    pub const BLOB_CORRUPT: &str = "integrity.blob-corrupt";
    pub const CONFIRM_REQUIRED: &str = "refusal.confirm-required";
    pub const OUTPUT_LOST: &str = "environment.output-lost";
    pub const REVIEW_DENIED: &str = "refusal.review-denied";
    pub const REVIEW_TIMEOUT: &str = "environment.review-timeout";
    pub const SYNTAX_BROKEN: &str = "refusal.syntax-broken";
    pub const EXTERNAL_SYMBOL: &str = "refusal.external-symbol";

    pub const ALL: &[&str] = &[
        ARGUMENT_INVALID,
        NOT_FOUND,
        NOT_UTF8,
        UNSUPPORTED_FORMAT,
        UNSUPPORTED_LANGUAGE,
        SYNTAX_ERROR,
        NO_MATCH,
        AMBIGUOUS,
        COUNT_MISMATCH,
        TARGET_CHANGED,
        REDACTED_INPUT,
        OUTSIDE_WORKSPACE,
        EXISTS,
        NAME_TAKEN,
        NOT_A_FILE,
        HARD_LINK,
        TOO_LARGE,
        IO,
        BUSY,
        TIMEOUT,
        UNAVAILABLE,
        RECOVERY_PENDING,
        STATE_UNTRUSTED,
        INTERNAL,
        OP_COLLECTED,
        BLOB_CORRUPT,
        CONFIRM_REQUIRED,
        OUTPUT_LOST,
        REVIEW_DENIED,
        REVIEW_TIMEOUT,
        SYNTAX_BROKEN,
        EXTERNAL_SYMBOL,
    ];
}

/// What to run next: `{action, detail, command}`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Repair {
    pub action: String,
    pub detail: String,
    pub command: String,
}

impl Repair {
    pub fn new(
        action: impl Into<String>,
        detail: impl Into<String>,
        command: impl Into<String>,
    ) -> Repair {
        Repair {
            action: action.into(),
            detail: detail.into(),
            command: command.into(),
        }
    }
}

/// Boxed so a `Result<T, CmdError>` stays one pointer wide on the success path;
/// the fields are reached through `Deref`.
#[derive(Debug, Clone)]
pub struct CmdError(Box<ErrorBody>);

/// What a `CmdError` carries.
#[derive(Debug, Clone)]
pub struct ErrorBody {
    pub code: &'static str,
    pub message: String,
    repairs: Vec<Repair>,
    pub candidates: Option<Json>,
    pub diagnostics: Option<Json>,
    /// The diagnostics are answers masked and counted already (`batch`'s nested
    /// envelopes, `with_masked_diagnostics`): the envelope's pass leaves them.
    pub diagnostics_masked: bool,
    pub conflicts: Option<Json>,
}

impl std::ops::Deref for CmdError {
    type Target = ErrorBody;
    fn deref(&self) -> &ErrorBody {
        &self.0
    }
}

impl std::ops::DerefMut for CmdError {
    fn deref_mut(&mut self) -> &mut ErrorBody {
        &mut self.0
    }
}

impl CmdError {
    /// The only constructor: an error always has at least one repair.
    pub fn new(code: &'static str, message: impl Into<String>, repair: Repair) -> CmdError {
        CmdError(Box::new(ErrorBody {
            code,
            message: message.into(),
            repairs: vec![repair],
            candidates: None,
            diagnostics: None,
            diagnostics_masked: false,
            conflicts: None,
        }))
    }

    /// `argument.invalid` whose repair is the command's schema.
    pub fn invalid_argument(command: &str, message: impl Into<String>) -> CmdError {
        CmdError::new(code::ARGUMENT_INVALID, message, schema_repair(command))
    }

    /// `input.syntax-error` for a regular expression that does not compile, worded
    /// alike by every command: `--match "(" does not parse: unclosed group.`
    /// (`what` names the flag, or "The pattern"; `err` is the regex crate's error).
    pub fn bad_pattern(
        what: &str,
        pattern: &str,
        err: &dyn std::fmt::Display,
        repair: Repair,
    ) -> CmdError {
        let text = err.to_string();
        let last = text.lines().last().unwrap_or("invalid pattern").trim();
        let reason = last.strip_prefix("error: ").unwrap_or(last);
        CmdError::new(
            code::SYNTAX_ERROR,
            format!(
                "{what} {pattern:?} does not parse: {}.",
                reason.trim_end_matches('.')
            ),
            repair,
        )
        .masking_pattern(pattern)
    }

    /// The message and repairs with each word of `pattern` (caller input that
    /// does not compile) masked that the file rules would mask as a bare value: the
    /// caller knows its pattern, and a repair re-running the call keeps the rest.
    pub fn masking_pattern(mut self, pattern: &str) -> CmdError {
        let mask = |s: &mut String| {
            if let Some(m) = super::redact::mask_pattern_echo(pattern, s) {
                *s = m;
            }
        };
        mask(&mut self.message);
        for r in self.repairs.iter_mut() {
            mask(&mut r.detail);
            mask(&mut r.command);
        }
        self
    }

    /// `internal.unexpected`: a bug; the repair is filing feedback.
    pub fn internal(message: impl Into<String>) -> CmdError {
        CmdError::new(
            code::INTERNAL,
            message,
            Repair::new(
                "report",
                "This is a bug in aitools; file it so it gets fixed, then retry the call.",
                "aitools feedback create --type bug --message '<what you ran and what happened>'",
            ),
        )
    }

    /// Adds a repair, unless one already runs the same command (an agent would
    /// read it twice).
    pub fn with_repair(mut self, repair: Repair) -> CmdError {
        if !self.repairs.iter().any(|r| r.command == repair.command) {
            self.repairs.push(repair);
        }
        self
    }

    /// Puts a repair first (the one an agent should try before the others); a
    /// later repair running the same command is dropped.
    pub fn with_first_repair(mut self, repair: Repair) -> CmdError {
        self.repairs.retain(|r| r.command != repair.command);
        self.repairs.insert(0, repair);
        self
    }

    pub fn with_candidates(mut self, candidates: Json) -> CmdError {
        self.candidates = Some(candidates);
        self
    }

    pub fn with_diagnostics(mut self, diagnostics: Json) -> CmdError {
        self.diagnostics = Some(diagnostics);
        self
    }

    /// `with_diagnostics` of answers masked and counted already (the envelopes
    /// of the calls a `batch` ran): masked once, by their own calls.
    pub fn with_masked_diagnostics(mut self, diagnostics: Json) -> CmdError {
        self.diagnostics = Some(diagnostics);
        self.diagnostics_masked = true;
        self
    }

    pub fn with_conflicts(mut self, conflicts: Json) -> CmdError {
        self.conflicts = Some(conflicts);
        self
    }

    pub fn repairs(&self) -> &[Repair] {
        &self.repairs
    }

    /// The repairs, to rewrite in place (a slice: an error keeps at least one).
    pub fn repairs_mut(&mut self) -> &mut [Repair] {
        &mut self.repairs
    }

    /// The exit code the catalog gives this code (an unknown code is a bug: 1).
    pub fn exit_code(&self) -> i32 {
        super::catalog::exit_code(self.code).unwrap_or(1)
    }

    /// `{code, message, exit_code, repairs, feedback?, candidates?, diagnostics?, conflicts?}`.
    pub fn to_json(&self) -> Json {
        let mut obj = Json::obj();
        obj.push("code", Json::str(self.code));
        obj.push("message", Json::str(self.message.clone()));
        obj.push("exit_code", Json::Int(self.exit_code().into()));
        obj.push("repairs", Json::from_serialize(&self.repairs));
        // Only a fault of aitools itself is worth a report; a guard refusing or a
        // mistyped call is the tool working, and the line would be paid for on
        // every one of them.
        if self.code.starts_with("internal.") {
            obj.push("feedback", Json::str(ERROR_FEEDBACK));
        }
        if let Some(c) = &self.candidates {
            obj.push("candidates", c.clone());
        }
        if let Some(d) = &self.diagnostics {
            obj.push("diagnostics", d.clone());
        }
        if let Some(c) = &self.conflicts {
            obj.push("conflicts", c.clone());
        }
        obj
    }
}

/// `error.feedback` of an internal error: at most 100 bytes.
pub const ERROR_FEEDBACK: &str =
    "A bug in aitools: aitools feedback create --type bug --message '<command; expected; got>'";

/// The repair of last resort: the command's own schema.
pub fn schema_repair(command: &str) -> Repair {
    if command.is_empty() || command == "aitools" {
        Repair::new(
            "schema",
            "List the commands and their summaries.",
            "aitools schema",
        )
    } else {
        Repair::new(
            "schema",
            format!("Show the arguments `{command}` accepts."),
            format!("aitools schema {command}"),
        )
    }
}

/// Maps an I/O error on `display_path` to the right catalog code.
pub fn io_error(command: &str, display_path: &str, err: &std::io::Error) -> CmdError {
    use std::io::ErrorKind;
    let quoted = super::shell::quote(display_path);
    match err.kind() {
        ErrorKind::NotFound => CmdError::new(
            code::NOT_FOUND,
            format!("{display_path} does not exist."),
            Repair::new(
                "find",
                "Look for the file by name.",
                "aitools find --type file",
            ),
        ),
        // A real path's open met a symlink (`fsx::open_regular_real`): one was
        // swapped in since the path was resolved and checked; never followed.
        _ if err.raw_os_error() == Some(libc::ELOOP) => CmdError::new(
            code::TARGET_CHANGED,
            format!(
                "{display_path} changed since it was checked: a symlink is on its path now; nothing was read through it."
            ),
            Repair::new(
                "read",
                "Read the path again as it is now, then redo the call.",
                format!("aitools read {quoted}"),
            ),
        ),
        _ => CmdError::new(
            code::IO,
            format!("{display_path}: {}.", err_text(err)),
            Repair::new(
                "info",
                "Check the path's kind and mode.",
                format!("aitools info {quoted}"),
            ),
        )
        .with_repair(schema_repair(command)),
    }
}

/// A copy of an `io::Error` (the same kind, OS code and text) for a typed error
/// that keeps it while the original is borrowed.
pub fn copy_io(e: &std::io::Error) -> std::io::Error {
    match e.raw_os_error() {
        Some(c) => std::io::Error::from_raw_os_error(c),
        None => std::io::Error::new(e.kind(), e.to_string()),
    }
}

/// An io::Error's text without the "(os error N)" suffix.
pub fn err_text(err: &std::io::Error) -> String {
    let s = err.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn every_code_is_in_the_catalog() {
        for c in code::ALL {
            assert!(
                super::super::catalog::exit_code(c).is_some(),
                "{c} missing from data/errors.tsv"
            );
        }
        assert_eq!(super::super::catalog::entries().count(), code::ALL.len());
    }
}
