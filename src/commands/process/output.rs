//! What a program printed, made readable and bounded: ANSI escapes and carriage-
//! return redraws stripped, secrets masked (before any `--grep` sees a line), the shape
//! of a stream's report (`capture` fills it as the program runs).

use serde::Serialize;

/// A line longer than this is cut (a minified bundle, a progress bar without CRs).
pub const MAX_LINE_CHARS: usize = 4096;

/// Removes ANSI escape sequences (CSI, OSC, and two-byte escapes).
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match it.next() {
            // CSI: parameters and intermediates up to a final byte in @..~.
            Some('[') => {
                for d in it.by_ref() {
                    if ('@'..='~').contains(&d) {
                        break;
                    }
                }
            }
            // OSC (and DCS, APC, PM, SOS): up to BEL or ESC \.
            Some(']') | Some('P') | Some('_') | Some('^') | Some('X') => {
                while let Some(d) = it.next() {
                    if d == '\u{7}' {
                        break;
                    }
                    if d == '\u{1b}' && it.peek() == Some(&'\\') {
                        it.next();
                        break;
                    }
                }
            }
            // A charset designation takes one more character.
            Some('(') | Some(')') | Some('*') | Some('+') => {
                it.next();
            }
            _ => {}
        }
    }
    out
}

/// A line redrawn with carriage returns keeps only what the terminal would show
/// last: the text after the last CR that is not at the line's end.
pub fn last_redraw(line: &str) -> &str {
    let line = line.strip_suffix('\r').unwrap_or(line);
    match line.rfind('\r') {
        Some(i) => &line[i + 1..],
        None => line,
    }
}

/// One line of a program's output (no newline), cleaned (ANSI escapes, CR
/// redraws, cut at `MAX_LINE_CHARS`), not masked (the caller masks, carrying state across lines); whether it was cut.
pub fn clean_line(raw: &[u8], strip: bool) -> (String, bool) {
    let text = String::from_utf8_lossy(raw);
    let text = if strip {
        std::borrow::Cow::Owned(strip_ansi(&text))
    } else {
        text
    };
    let l = if strip {
        last_redraw(&text)
    } else {
        text.strip_suffix('\r').unwrap_or(&text)
    };
    match l.char_indices().nth(MAX_LINE_CHARS) {
        Some((i, _)) => (format!("{}…", &l[..i]), true),
        None => (l.to_string(), false),
    }
}

#[derive(Serialize, Debug, Clone)]
pub struct Match {
    pub n: u64,
    pub text: String,
}

/// One stream's report: `{head?, tail?, total_lines, truncated?, matches?,
/// total_matches?}`. An empty window and an uncut stream say nothing: a stream
/// that printed nothing is `{"total_lines":0}`.
#[derive(Serialize, Debug, Default)]
pub struct Window {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub head: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tail: Vec<String>,
    pub total_lines: u64,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matches: Option<Vec<Match>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_matches: Option<u64>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cut_lines: bool,
    /// A cut stream's every line (cleaned, masked), in a private scratch file:
    /// named by the read in `next_commands`, not repeated here.
    #[serde(skip)]
    pub log: Option<String>,
    /// The log stopped at its cap (`capture::LOG_CAP`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub log_cut: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_redraws_go() {
        assert_eq!(strip_ansi("\u{1b}[1;31mred\u{1b}[0m"), "red");
        assert_eq!(strip_ansi("\u{1b}]0;title\u{7}x"), "x");
        assert_eq!(last_redraw("10%\r50%\r100%"), "100%");
        assert_eq!(last_redraw("done\r"), "done");
    }
}
