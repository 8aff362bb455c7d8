//! The store's leaf errors (`store::guard::GuardError`, `store::lock::Busy`,
//! `store::appends::TargetsChanged`) as the user sees them. The store's own
//! `store.rs` mapping (write, tx, view, recovery, undo) is a separate file.

use crate::protocol::error::schema_repair;
use crate::protocol::{CmdError, Json, Repair, code, redact, shell};
use crate::store::appends::TargetsChanged;
use crate::store::error::Busy;
use crate::store::guard::{GuardError, MIN_HASH_PREFIX};

impl From<GuardError> for CmdError {
    fn from(e: GuardError) -> CmdError {
        Box::new(e).into()
    }
}

impl From<Box<GuardError>> for CmdError {
    fn from(e: Box<GuardError>) -> CmdError {
        match *e {
            GuardError::Changed {
                display,
                expected,
                actual,
            } => {
                let now = actual.as_deref().unwrap_or("(missing)");
                CmdError::new(
                    code::TARGET_CHANGED,
                    format!(
                        "{display} changed: --expect-hash is {expected} but the file's hash is now {now}."
                    ),
                    Repair::new(
                        "read",
                        "Read the file again, then redo the write against what it holds now.",
                        shell::aitools(["read", display.as_str()]),
                    ),
                )
            }
            GuardError::MissingHash {
                command,
                display,
                why,
            } => CmdError::new(
                code::ARGUMENT_INVALID,
                format!("{why} requires --expect-hash with {display}'s current hash."),
                Repair::new(
                    "info",
                    "Get the file's current hash, then pass it as --expect-hash.",
                    shell::aitools(["info", display.as_str()]),
                ),
            )
            .with_repair(schema_repair(&command)),
            GuardError::CountMismatch {
                expected,
                actual,
                argv,
            } => CmdError::new(
                code::COUNT_MISMATCH,
                format!(
                    "--expect-count is {expected} but the selection matches {actual} time(s) now."
                ),
                Repair::new(
                    "dry-run",
                    "See what the selection matches now, then pass that count.",
                    dry_run_command(&argv),
                ),
            ),
            GuardError::CountRequired {
                command,
                actual,
                argv,
            } => CmdError::new(
                code::ARGUMENT_INVALID,
                format!(
                    "This selection can match more than once; {command} requires --expect-count (it matches {actual} now)."
                ),
                Repair::new(
                    "dry-run",
                    "Run it with --dry-run: it writes nothing and reports expect_count.",
                    dry_run_command(&argv),
                ),
            ),
            GuardError::BareHashTwice { command } => CmdError::invalid_argument(
                &command,
                "A bare --expect-hash may be given once; name other files as PATH=HASH.",
            ),
            GuardError::NotAHash { command, value } => CmdError::invalid_argument(
                &command,
                format!(
                    "--expect-hash {value:?} is not a SHA-256 hex digest (or its first {MIN_HASH_PREFIX}+ digits) or PATH=HASH."
                ),
            ),
            GuardError::Redacted { what, path } => redacted(&what, path.as_deref()),
        }
    }
}

/// `refusal.redacted-input`: select around the secret, or (naming the file) read
/// it to find the secret's line and change that line by number.
fn redacted(what: &str, path: Option<&str>) -> CmdError {
    let err = CmdError::new(
        code::REDACTED_INPUT,
        format!(
            "{what} contains {}, the mask aitools prints in place of a secret; writing it would destroy the real value.",
            redact::PLACEHOLDER
        ),
        Repair::new(
            "edit-around",
            "Select text that does not include the masked secret, and leave the secret's line unchanged.",
            "aitools schema edit",
        ),
    );
    match path {
        Some(p) => err.with_repair(Repair::new(
            "select-by-line",
            "To change or delete the secret's line itself: find its number here, then edit PATH --range N (--new '' deletes it).",
            shell::aitools(["read", p]),
        )),
        None => err,
    }
}

/// The same invocation with `--dry-run` added (and any `--expect-count` dropped).
fn dry_run_command(argv: &[String]) -> String {
    shell::aitools(shell::rerun(
        argv,
        &["--expect-count"],
        &["--dry-run"],
        &["--dry-run".to_string()],
    ))
}

impl From<Box<Busy>> for CmdError {
    fn from(e: Box<Busy>) -> CmdError {
        let secs = e.waited.as_secs_f64();
        CmdError::new(
            code::BUSY,
            format!(
                "Another aitools process holds the workspace lock; it was not free within {secs}s."
            ),
            Repair::new(
                "retry",
                "Run the same command again once the other write has finished.",
                shell::aitools(&e.argv),
            ),
        )
    }
}

impl From<Box<TargetsChanged>> for CmdError {
    fn from(e: Box<TargetsChanged>) -> CmdError {
        let TargetsChanged { changed, argv } = *e;
        let conflicts: Vec<Json> = changed
            .iter()
            .map(|(rel, now, was)| {
                let mut c = Json::obj();
                c.push("path", Json::str(rel.clone()));
                c.push("kind", Json::str("modified"));
                c.push("size_read", Json::UInt(*was));
                c.push("size_now", Json::UInt(*now));
                c
            })
            .collect();
        let first = changed.first().map(|c| c.0.clone()).unwrap_or_default();
        CmdError::new(
            code::TARGET_CHANGED,
            format!(
                "{first} changed while this write was being prepared (another program wrote to it); nothing was written."
            ),
            Repair::new(
                "retry",
                "Run the same command again: it reads the file as it is now.",
                shell::aitools(&argv),
            ),
        )
        .with_repair(Repair::new(
            "info",
            "See the file as it is now.",
            shell::aitools(["info", &first]),
        ))
        .with_conflicts(Json::Arr(conflicts))
    }
}
