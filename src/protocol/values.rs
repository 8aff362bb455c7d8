//! Parsers for the value syntaxes shared by many commands: line ranges (`S:E`, `S:`,
//! `N`), durations (`<n>ms|s|m|h|d`) and sizes (`<n>`, `<n>KiB|MiB|GiB`). ASCII digits
//! only: a sign, whitespace or another script's digit is refused.

use std::time::Duration;

/// A 1-based inclusive line range; `end` is `None` for `S:` (to the end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineRange {
    pub start: u64,
    pub end: Option<u64>,
}

fn digits(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Parses `S:E`, `S:` or `N`. The message says what was wrong.
pub fn parse_range(s: &str) -> Result<LineRange, String> {
    let bad = || {
        // `1-5` / `10,20` (sed's): said as the range it would be.
        let hint = s
            .split_once(['-', ','])
            .and_then(|(a, b)| Some((digits(a)?, digits(b)?)))
            .map(|(a, b)| format!("; write it as {a}:{b}"))
            .unwrap_or_default();
        format!(
            "--range {s:?} is not S:E, S: or N (1-based line numbers in ASCII digits, S <= E){hint}."
        )
    };
    let (start, end) = match s.split_once(':') {
        Some((a, "")) => (digits(a).ok_or_else(bad)?, None),
        Some((a, b)) => (digits(a).ok_or_else(bad)?, Some(digits(b).ok_or_else(bad)?)),
        None => {
            let n = digits(s).ok_or_else(bad)?;
            (n, Some(n))
        }
    };
    if start == 0 || end == Some(0) {
        return Err(format!("--range {s:?}: line numbers start at 1."));
    }
    if let Some(e) = end
        && e < start
    {
        return Err(format!(
            "--range {s:?} ends before it starts; write it as {e}:{start}."
        ));
    }
    Ok(LineRange { start, end })
}

fn number(s: &str) -> Option<f64> {
    if s.is_empty() || s.starts_with('.') || s.ends_with('.') {
        return None;
    }
    if !s.bytes().all(|b| b.is_ascii_digit() || b == b'.') || s.matches('.').count() > 1 {
        return None;
    }
    s.parse().ok()
}

/// Parses a duration: `250ms`, `10s`, `5m`, `2h`, `1d`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let bad = || {
        format!("{s:?} is not a duration: write <n>ms, <n>s, <n>m, <n>h or <n>d (ASCII digits).")
    };
    let (num, unit_ms) = if let Some(n) = s.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1000.0)
    } else if let Some(n) = s.strip_suffix('m') {
        (n, 60_000.0)
    } else if let Some(n) = s.strip_suffix('h') {
        (n, 3_600_000.0)
    } else if let Some(n) = s.strip_suffix('d') {
        (n, 86_400_000.0)
    } else {
        return Err(bad());
    };
    let v = number(num).ok_or_else(bad)?;
    let ms = v * unit_ms;
    if !ms.is_finite() || ms > 1e15 {
        return Err(bad());
    }
    Ok(Duration::from_micros((ms * 1000.0) as u64))
}

/// Parses a size in bytes: `4096`, `64KiB`, `1.5MiB`, `2GiB`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let bad =
        || format!("{s:?} is not a size: write <n>, <n>KiB, <n>MiB or <n>GiB (ASCII digits).");
    let (num, mult) = if let Some(n) = s.strip_suffix("KiB") {
        (n, 1024.0)
    } else if let Some(n) = s.strip_suffix("MiB") {
        (n, 1024.0 * 1024.0)
    } else if let Some(n) = s.strip_suffix("GiB") {
        (n, 1024.0 * 1024.0 * 1024.0)
    } else {
        (s, 1.0)
    };
    let v = number(num).ok_or_else(bad)? * mult;
    if !v.is_finite() || v > 9.0e18 {
        return Err(bad());
    }
    Ok(v as u64)
}

/// A whole number in ASCII digits only (no sign, no blanks, no other script's
/// digits), for every `N`-valued option; the message names the option.
pub fn parse_count(s: &str) -> Result<u64, String> {
    digits(s).ok_or_else(|| {
        format!(
            "{s:?} is not a whole number in ASCII digits (0 to {}).",
            u64::MAX
        )
    })
}

/// A byte span `S:E` or `S:` (0-based, E exclusive); `None` for the end is "to the end".
pub fn parse_byte_span(s: &str) -> Result<(u64, Option<u64>), String> {
    let bad = || {
        format!(
            "--bytes {s:?} is not S:E or S: (0-based byte offsets in ASCII digits, E exclusive, S <= E)."
        )
    };
    let (a, b) = s.split_once(':').ok_or_else(bad)?;
    let start = digits(a).ok_or_else(bad)?;
    let end = if b.is_empty() {
        None
    } else {
        Some(digits(b).ok_or_else(bad)?)
    };
    if end.is_some_and(|e| e < start) {
        return Err(bad());
    }
    Ok((start, end))
}

/// `--encoding`'s values: the names schema lists (`text::decode::NAMES`), with
/// the other spellings people type accepted as aliases, in any case.
pub fn encoding_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(crate::text::decode::ALIASES.iter().map(
        |(name, other)| clap::builder::PossibleValue::new(*name).aliases(other.iter().copied()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn ranges() {
        assert_eq!(
            parse_range("3:5"),
            Ok(LineRange {
                start: 3,
                end: Some(5)
            })
        );
        assert_eq!(
            parse_range("3:"),
            Ok(LineRange {
                start: 3,
                end: None
            })
        );
        assert_eq!(
            parse_range("7"),
            Ok(LineRange {
                start: 7,
                end: Some(7)
            })
        );
        for bad in [
            "",
            " 3",
            "+3",
            "3: 5",
            "5:2",
            "0",
            "٣",
            "99999999999999999999999",
            ":",
            "a:b",
        ] {
            assert!(parse_range(bad).is_err(), "{bad}");
        }
    }
    #[test]
    fn durations_and_sizes() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("1x").is_err());
        assert_eq!(parse_size("64KiB"), Ok(65536));
        assert_eq!(parse_size("1.5MiB"), Ok(1572864));
        assert!(parse_size("1 MiB").is_err());
    }
}
