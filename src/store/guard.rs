//! Guards: what a write names as the state it expects (`--expect-hash`,
//! `--expect-count`), the refusal of inputs holding the redaction placeholder, and
//! the errors (with the repair that obtains the missing value) when a guard is
//! missing or does not hold.

use crate::protocol::redact;

/// `--expect-hash HASH` (guards the first target) and `--expect-hash PATH=HASH`.
#[derive(Debug, Clone, Default)]
pub struct ExpectHash {
    pub first: Option<String>,
    pub by_path: Vec<(String, String)>,
}

/// The shortest `--expect-hash` taken: 12 hex digits are 48 bits, so a change the
/// guard should catch slips through only if the new content's SHA-256 happens to
/// share them (1 in 2^48; 2^64 for the 16 a write answer shows). The guard is
/// against stale views, not forgers, who could write the file anyway.
pub const MIN_HASH_PREFIX: usize = 12;

/// A SHA-256 hex digest or a prefix of at least `MIN_HASH_PREFIX` digits of one.
fn is_hash(s: &str) -> bool {
    (MIN_HASH_PREFIX..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Parses the repeatable `--expect-hash` values.
pub fn parse_expect_hash(command: &str, values: &[String]) -> Result<ExpectHash, Box<GuardError>> {
    let mut out = ExpectHash::default();
    for v in values {
        let v = v.trim();
        if is_hash(v) {
            if out.first.is_some() {
                return Err(GuardError::BareHashTwice {
                    command: command.to_string(),
                }
                .boxed());
            }
            out.first = Some(v.to_ascii_lowercase());
            continue;
        }
        match v.rsplit_once('=') {
            Some((path, hash)) if !path.is_empty() && is_hash(hash) => out
                .by_path
                .push((path.to_string(), hash.to_ascii_lowercase())),
            _ => {
                return Err(GuardError::NotAHash {
                    command: command.to_string(),
                    value: v.to_string(),
                }
                .boxed());
            }
        }
    }
    Ok(out)
}

impl ExpectHash {
    pub fn is_empty(&self) -> bool {
        self.first.is_none() && self.by_path.is_empty()
    }

    /// The hash expected for a target named `arg` on the command line (or shown as
    /// `display`); a bare hash applies only when `is_first_target`.
    pub fn for_target(&self, arg: &str, display: &str, is_first_target: bool) -> Option<&str> {
        self.by_path
            .iter()
            .find(|(p, _)| p == arg || p == display)
            .map(|(_, h)| h.as_str())
            .or(if is_first_target {
                self.first.as_deref()
            } else {
                None
            })
    }
}

/// `refusal.target-changed` when the file's current hash does not start with the
/// expected one (a whole digest or a prefix, as write answers show).
pub fn check_hash(
    display: &str,
    expected: &str,
    actual: Option<&str>,
) -> Result<(), Box<GuardError>> {
    if actual.is_some_and(|a| a.starts_with(expected)) {
        return Ok(());
    }
    Err(GuardError::Changed {
        display: display.to_string(),
        expected: expected.to_string(),
        actual: actual.map(str::to_string),
    }
    .boxed())
}

/// `argument.invalid` for a write that needs `--expect-hash` and has none; the
/// repair obtains the hash.
pub fn missing_hash(command: &str, display: &str, why: &str) -> Box<GuardError> {
    GuardError::MissingHash {
        command: command.to_string(),
        display: display.to_string(),
        why: why.to_string(),
    }
    .boxed()
}

/// Checks `--expect-count` against what was selected. Without the guard, a dry run
/// passes (it reports the count); a real write fails with a repair that runs the
/// same command with --dry-run to learn the count.
pub fn check_count(
    command: &str,
    argv: &[String],
    expected: Option<u64>,
    actual: u64,
    dry_run: bool,
) -> Result<(), Box<GuardError>> {
    match expected {
        Some(n) if n == actual => Ok(()),
        Some(n) => Err(GuardError::CountMismatch {
            expected: n,
            actual,
            argv: argv.to_vec(),
        }
        .boxed()),
        None if dry_run => Ok(()),
        None => Err(GuardError::CountRequired {
            command: command.to_string(),
            actual,
            argv: argv.to_vec(),
        }
        .boxed()),
    }
}

/// `refusal.redacted-input` when a write's result holds the mask more often than the
/// text it replaces: a replacement template (`[REDACTED_$1]`) built it from parts.
pub fn refuse_built_mask(
    what: &str,
    path: Option<&str>,
    before: &[u8],
    after: &[u8],
) -> Result<(), Box<GuardError>> {
    if redact::mask_spellings(after) <= redact::mask_spellings(before) {
        return Ok(());
    }
    refuse_redacted(what, path, redact::PLACEHOLDER.as_bytes())
}

/// `refusal.redacted-input` when an input holds `[REDACTED_SECRET]`: writing it
/// back would replace a real secret with the mask. `path` is the file written, as
/// the user named it (`None` when the input spans files).
pub fn refuse_redacted(
    what: &str,
    path: Option<&str>,
    input: &[u8],
) -> Result<(), Box<GuardError>> {
    if !redact::contains_placeholder(input) {
        return Ok(());
    }
    Err(GuardError::Redacted {
        what: what.to_string(),
        path: path.map(str::to_string),
    }
    .boxed())
}

/// A guard that does not hold, as data; `command_error::store_leaf` words it.
#[derive(Debug)]
pub enum GuardError {
    /// `--expect-hash` is `expected` but the file's hash is `actual` (`None`: gone).
    Changed {
        display: String,
        expected: String,
        actual: Option<String>,
    },
    /// `why` (an option such as `--overwrite`) needs `--expect-hash` for `display`.
    MissingHash {
        command: String,
        display: String,
        why: String,
    },
    /// `--expect-count` is `expected` but the selection matches `actual` times.
    CountMismatch {
        expected: u64,
        actual: u64,
        argv: Vec<String>,
    },
    /// The selection can match more than once and no `--expect-count` was given.
    CountRequired {
        command: String,
        actual: u64,
        argv: Vec<String>,
    },
    /// A second bare `--expect-hash`.
    BareHashTwice { command: String },
    /// An `--expect-hash` value that is neither a hash (prefix) nor PATH=HASH.
    NotAHash { command: String, value: String },
    /// `what` holds the redaction placeholder.
    Redacted { what: String, path: Option<String> },
}

impl GuardError {
    /// Boxed, as it is returned.
    pub fn boxed(self) -> Box<GuardError> {
        Box::new(self)
    }
}
