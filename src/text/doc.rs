//! A text file held for editing: its UTF-8 body (BOM set aside), every line's
//! content and terminator as byte offsets, and the rules that make an edit touch
//! only the edited span — new text takes the line ending of the place it lands,
//! and everything outside the span is copied byte for byte.

use super::BOM;

/// One line: `text[start..end]` is its content, `text[end..next]` its terminator
/// (`"\n"`, `"\r\n"`, or empty for a last line without one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineSpan {
    pub start: usize,
    pub end: usize,
    pub next: usize,
}

/// A decoded text file.
#[derive(Debug, Clone)]
pub struct Doc {
    /// Whether the file starts with a UTF-8 BOM (kept out of `text`).
    pub bom: bool,
    /// The body after the BOM.
    pub text: String,
    pub lines: Vec<LineSpan>,
}

/// Why bytes are not editable text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// A NUL in the first 8 KiB.
    Binary,
    /// Invalid UTF-8 at this byte offset.
    NotUtf8(usize),
}

impl Doc {
    /// Decodes a file's bytes; binary or invalid UTF-8 is refused.
    pub fn decode(bytes: &[u8]) -> Result<Doc, DecodeError> {
        if super::sniff::is_binary(bytes) {
            return Err(DecodeError::Binary);
        }
        let (bom, body) = match bytes.strip_prefix(BOM) {
            Some(rest) => (true, rest),
            None => (false, bytes),
        };
        let text = std::str::from_utf8(body)
            .map_err(|e| DecodeError::NotUtf8(e.valid_up_to() + if bom { 3 } else { 0 }))?;
        Ok(Doc::from_text(bom, text.to_string()))
    }

    /// A document from an already decoded body.
    pub fn from_text(bom: bool, text: String) -> Doc {
        let lines = split_lines(&text);
        Doc { bom, text, lines }
    }

    /// The file's bytes: BOM (if it had one) and body.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.text.len() + 3);
        if self.bom {
            out.extend_from_slice(BOM);
        }
        out.extend_from_slice(self.text.as_bytes());
        out
    }

    /// `to_bytes` without copying the body when there is no BOM to put back.
    pub fn into_bytes(self) -> Vec<u8> {
        if self.bom {
            return self.to_bytes();
        }
        self.text.into_bytes()
    }

    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// The content of line `i` (0-based), without its terminator.
    pub fn content(&self, i: usize) -> &str {
        match self.lines.get(i) {
            Some(l) => self.text.get(l.start..l.end).unwrap_or(""),
            None => "",
        }
    }

    /// The terminator of line `i` (0-based): `"\n"`, `"\r\n"` or `""`.
    pub fn eol(&self, i: usize) -> &str {
        match self.lines.get(i) {
            Some(l) => self.text.get(l.end..l.next).unwrap_or(""),
            None => "",
        }
    }

    /// The line ending most lines use (CR LF only when it is the majority).
    pub fn dominant_eol(&self) -> &'static str {
        let crlf = self.lines.iter().filter(|l| l.next - l.end == 2).count();
        let lf = self.lines.iter().filter(|l| l.next - l.end == 1).count();
        if crlf > lf { "\r\n" } else { "\n" }
    }

    /// The one line ending every terminated line uses, `None` for a file that
    /// mixes them or has none.
    pub fn uniform_eol(&self) -> Option<&'static str> {
        let mut terminated = self.lines.iter().filter(|l| l.next > l.end).peekable();
        let first = terminated.peek().map(|l| l.next - l.end)?;
        if terminated.all(|l| l.next - l.end == first) {
            Some(if first == 2 { "\r\n" } else { "\n" })
        } else {
            None
        }
    }

    /// The ending new text should use at line `i`: that line's own, or the file's
    /// dominant one when the line has none (the last line) or does not exist.
    pub fn eol_at(&self, i: usize) -> &str {
        match self.eol(i) {
            "" => self.dominant_eol(),
            e => e,
        }
    }

    /// Byte offset in `text` where line `i` starts (`text.len()` past the end).
    pub fn line_start(&self, i: usize) -> usize {
        self.lines
            .get(i)
            .map(|l| l.start)
            .unwrap_or(self.text.len())
    }

    /// Whether the file ends with a line terminator (an empty file does not).
    pub fn ends_with_newline(&self) -> bool {
        self.lines.last().is_some_and(|l| l.next > l.end)
    }

    /// The 0-based line holding byte offset `at`.
    pub fn line_of(&self, at: usize) -> usize {
        self.lines
            .partition_point(|l| l.next <= at)
            .min(self.lines.len().saturating_sub(1))
    }

    /// `text` with `text[range]` replaced by `with`.
    /// Only the lines the splice touches are split again: the ones before it are
    /// copied and the ones after it shifted, so a one-line edit of a large file
    /// does not scan the whole file for line ends a second time.
    pub fn splice(&self, range: std::ops::Range<usize>, with: &str) -> Doc {
        let (Some(head), Some(tail)) = (self.text.get(..range.start), self.text.get(range.end..))
        else {
            let mut s = String::with_capacity(self.text.len() + with.len());
            s.push_str(self.text.get(..range.start).unwrap_or(""));
            s.push_str(with);
            s.push_str(self.text.get(range.end..).unwrap_or(""));
            return Doc::from_text(self.bom, s);
        };
        let mut s = String::with_capacity(head.len() + with.len() + tail.len());
        s.push_str(head);
        s.push_str(with);
        s.push_str(tail);
        let (rs, re) = (range.start, range.end.max(range.start));
        // Lines wholly before: ended by a newline before the splice.
        let mut k0 = self.lines.partition_point(|l| l.next <= rs);
        if k0 > 0 && self.lines.get(k0 - 1).is_some_and(|l| l.next == l.end) {
            k0 -= 1;
        }
        // Lines wholly after: starting past the splice, so the newline before them
        // is the old text's too.
        let k1 = self.lines.partition_point(|l| l.start <= re).max(k0);
        let from = k0.checked_sub(1).map_or(0, |k| self.lines[k].next);
        let shift = |x: usize| x + s.len() - self.text.len();
        let to = self.lines.get(k1).map_or(s.len(), |l| shift(l.start));
        let mut lines = Vec::with_capacity(self.lines.len() + 4);
        lines.extend_from_slice(&self.lines[..k0]);
        split_into(s.as_bytes(), from, to, &mut lines);
        lines.extend(self.lines[k1..].iter().map(|l| LineSpan {
            start: shift(l.start),
            end: shift(l.end),
            next: shift(l.next),
        }));
        Doc {
            bom: self.bom,
            text: s,
            lines,
        }
    }

    /// Byte range of lines `[s, e)` including their terminators.
    pub fn block_bytes(&self, s: usize, e: usize) -> std::ops::Range<usize> {
        let start = self.line_start(s);
        let end = if e == 0 || e <= s {
            start
        } else {
            self.lines
                .get(e - 1)
                .map(|l| l.next)
                .unwrap_or(self.text.len())
        };
        start..end
    }

    /// `new` as whole lines ending in `eol` (one final newline of `new` ends its
    /// last line rather than adding an empty one). Empty `new` is no lines.
    pub fn as_lines(new: &str, eol: &str) -> String {
        if new.is_empty() {
            return String::new();
        }
        let mut out = String::with_capacity(new.len() + 8);
        for l in split_plain(new) {
            out.push_str(l);
            out.push_str(eol);
        }
        out
    }

    /// Lines `[s, e)` replaced by `new` as whole lines; `''` deletes them. The new
    /// lines take the replaced lines' ending, and the last one keeps the last
    /// replaced line's terminator (none at a final line without one).
    pub fn replace_block(&self, s: usize, e: usize, new: &str) -> Doc {
        if e <= s {
            return self.insert_lines(s, new);
        }
        let eol = self.eol_at(s).to_string();
        let last_eol = self.eol(e - 1).to_string();
        let mut body = Doc::as_lines(new, &eol);
        if !body.is_empty() {
            body.truncate(body.len() - eol.len());
            body.push_str(&last_eol);
        }
        self.splice(self.block_bytes(s, e), &body)
    }

    /// `new` inserted as whole lines before line `i` (`i == line_count()` appends;
    /// a last line lacking a newline is ended first).
    pub fn insert_lines(&self, i: usize, new: &str) -> Doc {
        let n = self.line_count();
        let i = i.min(n);
        let eol = if n == 0 {
            "\n".to_string()
        } else {
            self.eol_at(i.min(n - 1)).to_string()
        };
        let mut body = String::new();
        if i == n && n > 0 && !self.ends_with_newline() {
            body.push_str(self.dominant_eol());
        }
        body.push_str(&Doc::as_lines(new, &eol));
        let at = self.line_start(i);
        self.splice(at..at, &body)
    }
}

fn split_lines(text: &str) -> Vec<LineSpan> {
    let mut out = Vec::new();
    split_into(text.as_bytes(), 0, text.len(), &mut out);
    out
}

/// The lines of `bytes[from..to]` (offsets into `bytes`), where `from` is a line
/// start and `to` a line start or the end.
fn split_into(bytes: &[u8], from: usize, to: usize, out: &mut Vec<LineSpan>) {
    let region = bytes.get(from..to).unwrap_or_default();
    let mut start = from;
    for nl in memchr::memchr_iter(b'\n', region).map(|i| i + from) {
        let end = if nl > start && bytes.get(nl - 1) == Some(&b'\r') {
            nl - 1
        } else {
            nl
        };
        out.push(LineSpan {
            start,
            end,
            next: nl + 1,
        });
        start = nl + 1;
    }
    if start < to {
        out.push(LineSpan {
            start,
            end: to,
            next: to,
        });
    }
}

/// `s` with every line ending made `eol`: with CR LF, bare LFs gain a CR (pairs
/// already there are kept); with LF, CR LF pairs lose their CR. A lone CR is
/// not a line ending and stays.
pub fn with_eol(s: &str, eol: &str) -> String {
    if eol != "\r\n" {
        return if eol == "\n" && s.contains("\r\n") {
            s.replace("\r\n", "\n")
        } else {
            s.to_string()
        };
    }
    let mut out = String::with_capacity(s.len() + s.len() / 16);
    let mut prev_cr = false;
    for c in s.chars() {
        if c == '\n' && !prev_cr {
            out.push('\r');
        }
        out.push(c);
        prev_cr = c == '\r';
    }
    out
}

/// The text's lines for line-wise work: split on LF, a CR before LF dropped, one
/// final terminator not making an empty last line.
pub fn split_plain(s: &str) -> Vec<&str> {
    let body = s
        .strip_suffix("\r\n")
        .or_else(|| s.strip_suffix('\n'))
        .unwrap_or(s);
    body.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect()
}

/// Leading blanks (spaces and tabs) of a line.
pub fn indent_of(line: &str) -> &str {
    let n = line.len() - line.trim_start_matches([' ', '\t']).len();
    line.get(..n).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_keep_their_endings() {
        let d = Doc::decode(b"\xEF\xBB\xBFa\r\nb\nc").unwrap();
        assert!(d.bom);
        assert_eq!(d.line_count(), 3);
        assert_eq!(
            (
                d.content(0),
                d.eol(0),
                d.content(1),
                d.eol(1),
                d.content(2),
                d.eol(2)
            ),
            ("a", "\r\n", "b", "\n", "c", "")
        );
        assert_eq!(d.to_bytes(), b"\xEF\xBB\xBFa\r\nb\nc");
        assert!(!d.ends_with_newline());
        assert_eq!(Doc::decode(b"").unwrap().line_count(), 0);
        assert_eq!(Doc::decode(b"x\n").unwrap().line_count(), 1);
        assert!(matches!(Doc::decode(b"a\x00"), Err(DecodeError::Binary)));
        assert!(matches!(
            Doc::decode(b"a\xff"),
            Err(DecodeError::NotUtf8(1))
        ));
    }

    #[test]
    fn eol_conversion() {
        assert_eq!(with_eol("a\nb\r\nc\n", "\r\n"), "a\r\nb\r\nc\r\n");
        assert_eq!(with_eol("a\nb", "\n"), "a\nb");
        assert_eq!(with_eol("a\r\nb\rc\n", "\n"), "a\nb\rc\n");
        let d = Doc::from_text(false, "a\r\nb\r\nc".into());
        assert_eq!(d.uniform_eol(), Some("\r\n"));
        assert_eq!(Doc::from_text(false, "a\r\nb\n".into()).uniform_eol(), None);
        assert_eq!(Doc::from_text(false, "a".into()).uniform_eol(), None);
        assert_eq!(split_plain("a\r\nb\n"), vec!["a", "b"]);
        assert_eq!(split_plain("a\n\n"), vec!["a", ""]);
        assert_eq!(split_plain(""), vec![""]);
        assert_eq!(indent_of("\t  x "), "\t  ");
    }

    #[test]
    fn blocks_keep_endings() {
        let d = Doc::from_text(false, "a\r\nb\r\nc".into());
        assert_eq!(d.replace_block(1, 2, "x\ny\n").text, "a\r\nx\r\ny\r\nc");
        assert_eq!(d.replace_block(2, 3, "z").text, "a\r\nb\r\nz");
        assert_eq!(d.replace_block(0, 2, "").text, "c");
        assert_eq!(d.insert_lines(3, "t").text, "a\r\nb\r\nc\r\nt\r\n");
        assert_eq!(d.insert_lines(0, "t\n").text, "t\r\na\r\nb\r\nc");
        let e = Doc::from_text(false, String::new());
        assert_eq!(e.insert_lines(0, "t").text, "t\n");
    }

    #[test]
    fn splice_keeps_the_lines_a_full_split_gives() {
        let texts = [
            "",
            "a",
            "a\n",
            "a\r\nb\r\n",
            "a\nb\nc",
            "ab\r",
            "\n\n\n",
            "x\r\ny\nz\r",
        ];
        let withs = ["", "\n", "\r", "\r\n", "q", "q\n", "\nq", "1\n2\r\n3"];
        for t in texts {
            let d = Doc::from_text(false, t.to_string());
            for a in 0..=t.len() {
                for b in a..=t.len() {
                    for w in withs {
                        let got = d.splice(a..b, w);
                        let want = Doc::from_text(false, got.text.clone());
                        assert_eq!(got.lines, want.lines, "{t:?} {a}..{b} {w:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn line_of_offsets() {
        let d = Doc::from_text(false, "ab\ncd\n".into());
        assert_eq!(d.line_of(0), 0);
        assert_eq!(d.line_of(2), 0);
        assert_eq!(d.line_of(3), 1);
        assert_eq!(d.dominant_eol(), "\n");
    }
}
