//! Unified diffs: parsing (plain `diff -u` and `git diff`, several files, `\ No
//! newline at end of file`), reversing, and applying hunks to a document. A hunk is
//! looked for at its recorded position (shifted by how far earlier hunks moved),
//! then up to `fuzz` lines either side; two equally near places are ambiguous.
//! Unchanged lines keep their bytes; added lines take the file's line ending
//! unless the patch line carries its own CR.

use crate::text::doc::Doc;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Context,
    Remove,
    Add,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkLine {
    pub kind: Kind,
    pub text: String,
    /// The patch line ended in CR LF.
    pub cr: bool,
    /// Followed by `\ No newline at end of file`.
    pub no_eol: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    pub old_start: usize,
    pub old_len: usize,
    pub new_start: usize,
    pub new_len: usize,
    pub lines: Vec<HunkLine>,
    /// The `@@ ... @@` line, for messages.
    pub header: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePatch {
    /// `None` for `/dev/null` (the patch creates the file).
    pub old_path: Option<String>,
    /// `None` for `/dev/null` (the patch deletes the file).
    pub new_path: Option<String>,
    /// `new file mode` (git).
    pub new_mode: Option<u32>,
    /// `deleted file mode` (git), kept so a reversed patch recreates the mode.
    pub deleted_mode: Option<u32>,
    /// `old mode` / `new mode` (git): the file's permission bits change.
    pub mode_change: Option<(u32, u32)>,
    /// `rename from` / `rename to` (git): the file moves from `old_path` to
    /// `new_path`, with the hunks applied on the way.
    pub renamed: bool,
    pub hunks: Vec<Hunk>,
}

/// What a `diff --git` section's extended header lines said, until its ---/+++.
#[derive(Default)]
struct GitHeader {
    /// The paths of the `diff --git a/X b/Y` line.
    paths: Option<(Option<String>, Option<String>)>,
    new_mode: Option<u32>,
    deleted_mode: Option<u32>,
    old_mode: Option<u32>,
    mode_change: Option<(u32, u32)>,
    renamed: bool,
}

impl GitHeader {
    /// An extended header line of a `diff --git` section (`i` is its index):
    /// the modes, a rename; a copy is refused.
    fn read(&mut self, line: &str, i: usize) -> Result<(), String> {
        if let Some(m) = line.strip_prefix("new file mode ") {
            self.new_mode = parse_mode(m);
        } else if let Some(m) = line.strip_prefix("deleted file mode ") {
            self.deleted_mode = parse_mode(m);
        } else if let Some(m) = line.strip_prefix("old mode ") {
            self.old_mode = parse_mode(m);
        } else if let Some(m) = line.strip_prefix("new mode ") {
            self.mode_change = self.old_mode.zip(parse_mode(m));
        } else if line.starts_with("rename from ") {
            // The paths are the `diff --git` line's (their a/ b/ prefixes are
            // stripped with the others); `rename to` says nothing more.
            self.renamed = true;
        } else if line.starts_with("copy from ") {
            return Err(format!(
                "line {}: copies are not applied (git detected them); make the diff with `git diff --no-renames` (a copy is then a creation, which apply takes), or use aitools copy.",
                i + 1
            ));
        }
        Ok(())
    }

    /// A section with no ---/+++ (an empty file created or deleted, a mode change
    /// or a rename with no content change) becomes a patch of its own.
    fn flush(&mut self, out: &mut Vec<FilePatch>) {
        let h = std::mem::take(self);
        let Some((a, b)) = h.paths else { return };
        if h.new_mode.is_some() || h.deleted_mode.is_some() || h.mode_change.is_some() || h.renamed
        {
            out.push(FilePatch {
                old_path: if h.new_mode.is_some() { None } else { a },
                new_path: if h.deleted_mode.is_some() { None } else { b },
                new_mode: h.new_mode,
                deleted_mode: h.deleted_mode,
                mode_change: h.mode_change,
                renamed: h.renamed,
                hunks: Vec::new(),
            });
        }
    }
}

/// Parses a diff; the error names the diff line (1-based) that is wrong.
pub fn parse(diff: &str) -> Result<Vec<FilePatch>, String> {
    // The final newline ends the last line; it does not start an empty one.
    let body = diff.strip_suffix('\n').unwrap_or(diff);
    let lines: Vec<&str> = body.split('\n').collect();
    let mut out: Vec<FilePatch> = Vec::new();
    let mut i = 0;
    // git header state for the file being described.
    let mut git = GitHeader::default();
    while i < lines.len() {
        let line = lines[i].strip_suffix('\r').unwrap_or(lines[i]);
        if let Some(rest) = line.strip_prefix("diff --git ") {
            git.flush(&mut out);
            git.paths = Some(split_git_paths(rest));
            i += 1;
            continue;
        }
        if git.paths.is_some() {
            git.read(line, i)?;
        }
        if line.starts_with("GIT binary patch")
            || (line.starts_with("Binary files ") && line.ends_with(" differ"))
        {
            return Err(format!(
                "line {}: binary patches cannot be applied as text.",
                i + 1
            ));
        }
        if let Some(old) = line.strip_prefix("--- ") {
            let next = lines.get(i + 1).map(|l| l.strip_suffix('\r').unwrap_or(l));
            if let Some(new) = next.and_then(|n| n.strip_prefix("+++ ")) {
                let (fp, next) = file_patch(&lines, i, old, new, std::mem::take(&mut git))?;
                i = next;
                out.push(fp);
                continue;
            }
        }
        if line.starts_with("@@ ") {
            return Err(format!(
                "line {}: a hunk with no ---/+++ file header before it.",
                i + 1
            ));
        }
        i += 1;
    }
    git.flush(&mut out);
    if out.is_empty() {
        return Err(
            "no file header (--- / +++) and no hunk found; the input is not a unified diff."
                .to_string(),
        );
    }
    Ok(out)
}

/// A ---/+++ file header at line `at` (`old` and `new` are its paths, `header`
/// what a `diff --git` section said before it) and the hunks that follow.
/// Returns the patch and the line after it.
fn file_patch(
    lines: &[&str],
    at: usize,
    old: &str,
    new: &str,
    header: GitHeader,
) -> Result<(FilePatch, usize), String> {
    let header_git = header.paths;
    let old_path = parse_path(old);
    let new_path = parse_path(new);
    let mut fp = FilePatch {
        old_path,
        new_path,
        new_mode: header.new_mode,
        deleted_mode: header.deleted_mode,
        mode_change: header.mode_change,
        renamed: header.renamed,
        hunks: Vec::new(),
    };
    if fp.old_path.is_none()
        && fp.new_path.is_none()
        && let Some((a, b)) = header_git
    {
        fp.old_path = a;
        fp.new_path = b;
    }
    let mut i = at + 2;
    while let Some(h) = lines.get(i).filter(|l| l.starts_with("@@ ")) {
        let (hunk, used) = parse_hunk(lines, i, h)?;
        fp.hunks.push(hunk);
        i += used;
    }
    if let Some(extra) = lines.get(i) {
        let more = extra.starts_with('+')
            || extra.starts_with(' ')
            || (extra.starts_with('-') && !extra.starts_with("--- ") && extra.trim_end() != "--");
        if more {
            return Err(format!(
                "line {}: {extra:?} follows a complete hunk; the hunk has more lines than its header counts.",
                i + 1
            ));
        }
    }
    if fp.hunks.is_empty() {
        return Err(format!("line {}: {} has no hunks.", i, new.trim()));
    }
    // `diff -N` names a missing side with the epoch as its time: an
    // empty side there is a file created or deleted, as patch reads it.
    if epoch(old) && fp.hunks.iter().all(|h| h.old_len == 0) {
        fp.old_path = None;
    }
    if epoch(new) && fp.hunks.iter().all(|h| h.new_len == 0) {
        fp.new_path = None;
    }
    Ok((fp, i))
}

/// Whether a `---`/`+++` header's timestamp is the Unix epoch (in any zone).
fn epoch(header: &str) -> bool {
    header
        .split_once('\t')
        .map(|(_, t)| t.trim_start())
        .is_some_and(|t| t.starts_with("1970-01-01") || t.starts_with("1969-12-31"))
}

fn parse_mode(m: &str) -> Option<u32> {
    u32::from_str_radix(m.trim(), 8).ok().map(|m| m & 0o7777)
}

/// `a/x b/x` from a `diff --git` line (paths without spaces; quoted ones decoded).
fn split_git_paths(rest: &str) -> (Option<String>, Option<String>) {
    if rest.starts_with('"')
        && let Some((a, used)) = unquote(rest)
    {
        let b = rest.get(used..).unwrap_or("").trim_start();
        return (Some(a), parse_path(b));
    }
    // Split in the middle where both halves are the same path after the prefix.
    let half = rest.len() / 2;
    if let (Some(a), Some(b)) = (rest.get(..half), rest.get(half + 1..))
        && rest.as_bytes().get(half) == Some(&b' ')
    {
        return (Some(a.to_string()), Some(b.to_string()));
    }
    match rest.split_once(' ') {
        Some((a, b)) => (Some(a.to_string()), Some(b.to_string())),
        None => (None, None),
    }
}

/// A `---`/`+++` path: the timestamp after a tab dropped, git quoting decoded,
/// `/dev/null` as `None`.
fn parse_path(s: &str) -> Option<String> {
    let s = s.trim_end_matches('\r');
    let p = if s.starts_with('"') {
        unquote(s).map(|(p, _)| p).unwrap_or_else(|| s.to_string())
    } else {
        s.split('\t').next().unwrap_or(s).trim_end().to_string()
    };
    if p == "/dev/null" { None } else { Some(p) }
}

/// Decodes a C-quoted git path; returns it and the bytes consumed.
fn unquote(s: &str) -> Option<(String, usize)> {
    let b = s.as_bytes();
    let mut out: Vec<u8> = Vec::new();
    let mut i = 1;
    while i < b.len() {
        match b[i] {
            b'"' => return String::from_utf8(out).ok().map(|p| (p, i + 1)),
            b'\\' => {
                let c = *b.get(i + 1)?;
                match c {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'"' | b'\\' => out.push(c),
                    b'0'..=b'7' => {
                        let oct = s.get(i + 1..i + 4)?;
                        out.push(u8::from_str_radix(oct, 8).ok()?);
                        i += 2;
                    }
                    _ => out.push(c),
                }
                i += 2;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    None
}

/// `-a,b +c,d` numbers (a missing count is 1).
fn range(s: &str) -> Option<(usize, usize)> {
    match s.split_once(',') {
        Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
        None => Some((s.parse().ok()?, 1)),
    }
}

fn parse_hunk(lines: &[&str], at: usize, header: &str) -> Result<(Hunk, usize), String> {
    let header = header.strip_suffix('\r').unwrap_or(header);
    let bad = || {
        format!(
            "line {}: {header:?} is not a hunk header @@ -A,B +C,D @@.",
            at + 1
        )
    };
    let inner = header.strip_prefix("@@ ").ok_or_else(bad)?;
    let inner = inner.split(" @@").next().ok_or_else(bad)?;
    let (o, n) = inner.split_once(' ').ok_or_else(bad)?;
    let (old_start, old_len) = o.strip_prefix('-').and_then(range).ok_or_else(bad)?;
    let (new_start, new_len) = n.strip_prefix('+').and_then(range).ok_or_else(bad)?;
    let mut h = Hunk {
        old_start,
        old_len,
        new_start,
        new_len,
        lines: Vec::new(),
        header: header.to_string(),
    };
    let (mut old_seen, mut new_seen) = (0, 0);
    let mut i = at + 1;
    while old_seen < old_len || new_seen < new_len {
        let Some(raw) = lines.get(i) else {
            return Err(format!(
                "line {}: hunk {header:?} ends early ({old_seen}/{old_len} old, {new_seen}/{new_len} new lines).",
                i
            ));
        };
        let (cr, l) = match raw.strip_suffix('\r') {
            Some(l) => (true, l),
            None => (false, *raw),
        };
        let (kind, text) = match l.as_bytes().first() {
            Some(b' ') => (Kind::Context, l.get(1..).unwrap_or("")),
            // Some tools strip the lone space of an empty context line.
            None => (Kind::Context, ""),
            Some(b'-') => (Kind::Remove, l.get(1..).unwrap_or("")),
            Some(b'+') => (Kind::Add, l.get(1..).unwrap_or("")),
            Some(b'\\') => {
                if let Some(last) = h.lines.last_mut() {
                    last.no_eol = true;
                }
                i += 1;
                continue;
            }
            _ => {
                return Err(format!(
                    "line {}: {l:?} is not a hunk line (' ', '-', '+' or '\\'); hunk {header:?} expects {} more old and {} more new lines.",
                    i + 1,
                    old_len - old_seen,
                    new_len - new_seen
                ));
            }
        };
        match kind {
            Kind::Context => {
                old_seen += 1;
                new_seen += 1;
            }
            Kind::Remove => old_seen += 1,
            Kind::Add => new_seen += 1,
        }
        if old_seen > old_len || new_seen > new_len {
            return Err(format!(
                "line {}: hunk {header:?} has more lines than its header counts.",
                i + 1
            ));
        }
        h.lines.push(HunkLine {
            kind,
            text: text.to_string(),
            cr,
            no_eol: false,
        });
        i += 1;
    }
    // A marker right after the last line belongs to it.
    if let Some(next) = lines.get(i)
        && next.starts_with('\\')
    {
        if let Some(last) = h.lines.last_mut() {
            last.no_eol = true;
        }
        i += 1;
    }
    Ok((h, i - at))
}

impl FilePatch {
    /// The inverse patch: old and new swapped.
    pub fn reverse(&mut self) {
        std::mem::swap(&mut self.old_path, &mut self.new_path);
        std::mem::swap(&mut self.new_mode, &mut self.deleted_mode);
        self.mode_change = self.mode_change.map(|(old, new)| (new, old));
        for h in &mut self.hunks {
            std::mem::swap(&mut h.old_start, &mut h.new_start);
            std::mem::swap(&mut h.old_len, &mut h.new_len);
            for l in &mut h.lines {
                l.kind = match l.kind {
                    Kind::Add => Kind::Remove,
                    Kind::Remove => Kind::Add,
                    Kind::Context => Kind::Context,
                };
            }
            h.header = format!(
                "@@ -{},{} +{},{} @@",
                h.old_start, h.old_len, h.new_start, h.new_len
            );
        }
    }
}

/// Why a hunk did not apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkError {
    /// 0-based hunk index within the file.
    pub hunk: usize,
    /// 1-based line where the hunk was expected.
    pub expected_line: usize,
    pub ambiguous: bool,
    pub message: String,
}

/// Applies `hunks` in order to `doc`.
pub fn apply(doc: &Doc, hunks: &[Hunk], fuzz: usize) -> Result<Doc, HunkError> {
    apply_placed(doc, hunks, fuzz).map(|(d, _)| d)
}

/// `apply`, and whether a hunk fitted away from the line the diff recorded (the
/// diff no longer says where the change landed).
pub fn apply_placed(doc: &Doc, hunks: &[Hunk], fuzz: usize) -> Result<(Doc, bool), HunkError> {
    let mut moved = false;
    let mut out = Patched {
        doc,
        out: String::with_capacity(doc.text.len() + 256),
        open_line: false,
        eol: doc.dominant_eol(),
        exact_eol: hunks.iter().any(|h| h.lines.iter().any(|l| l.cr)),
    };
    let mut pos = 0usize;
    let mut drift: isize = 0;
    for (hi, h) in hunks.iter().enumerate() {
        let recorded = if h.old_len == 0 {
            h.old_start
        } else {
            h.old_start.saturating_sub(1)
        };
        let p = place(doc, h, hi, pos, recorded, drift, fuzz)?;
        // Copy the untouched lines before the hunk.
        out.copy(pos, p);
        pos = out.hunk(h, p);
        moved |= p != recorded;
        drift = p as isize - recorded as isize;
    }
    out.copy(pos, doc.line_count());
    Ok((Doc::from_text(doc.bom, out.out), moved))
}

/// Where hunk `hi` fits: the line nearest to where it was recorded (`recorded`,
/// moved by the earlier hunks' `drift`), at most `fuzz` lines off and not before
/// `pos` (the end of the previous hunk). Fitting equally well both ways is an error.
fn place(
    doc: &Doc,
    h: &Hunk,
    hi: usize,
    pos: usize,
    recorded: usize,
    drift: isize,
    fuzz: usize,
) -> Result<usize, HunkError> {
    let n = doc.line_count();
    let old: Vec<&HunkLine> = h.lines.iter().filter(|l| l.kind != Kind::Add).collect();
    let expected = recorded as isize + drift;
    let fits = |p: isize| -> bool {
        if p < pos as isize || p as usize + old.len() > n {
            return false;
        }
        let p = p as usize;
        old.iter()
            .enumerate()
            .all(|(k, l)| doc.content(p + k) == without_bom(doc, p + k, &l.text))
    };
    for d in 0..=fuzz as isize {
        let (a, b) = (fits(expected - d), d > 0 && fits(expected + d));
        if a && b {
            return Err(HunkError {
                hunk: hi,
                expected_line: recorded + 1,
                ambiguous: true,
                message: format!(
                    "{} fits both at line {} and at line {}; add context to the hunk.",
                    h.header,
                    expected - d + 1,
                    expected + d + 1
                ),
            });
        }
        if a {
            return Ok((expected - d) as usize);
        }
        if b {
            return Ok((expected + d) as usize);
        }
    }
    let what = if old.is_empty() {
        format!(
            "line {} is past the end of the file ({n} lines)",
            expected + 1
        )
    } else {
        format!(
            "its {} context/removed line(s) are not at line {} (±{fuzz})",
            old.len(),
            expected.max(0) + 1
        )
    };
    Err(HunkError {
        hunk: hi,
        expected_line: recorded + 1,
        ambiguous: false,
        message: format!("{} does not apply: {what}.", h.header),
    })
}

/// The patched text as it is built from the document and the hunks.
struct Patched<'d> {
    doc: &'d Doc,
    out: String,
    /// Whether `out` ends in a line lacking its terminator (a copied last line).
    open_line: bool,
    /// The file's dominant line ending.
    eol: &'static str,
    /// A patch that carries CRs says exactly which ending each added line has; one
    /// without any (an LF diff against a CR LF file) takes the file's ending.
    exact_eol: bool,
}

impl Patched<'_> {
    /// Copies the document's lines `from..to` as they are.
    fn copy(&mut self, from: usize, to: usize) {
        let doc = self.doc;
        let bytes = doc.block_bytes(from, to);
        push_text(
            &mut self.out,
            doc.text.get(bytes).unwrap_or(""),
            &mut self.open_line,
            self.eol,
        );
    }

    /// A hunk placed at line `p`: context lines copied from the document, removed
    /// ones skipped, added ones written. Returns the line after the hunk.
    fn hunk(&mut self, h: &Hunk, p: usize) -> usize {
        let mut k = p;
        for l in &h.lines {
            match l.kind {
                Kind::Context => {
                    self.copy(k, k + 1);
                    k += 1;
                }
                Kind::Remove => k += 1,
                Kind::Add => self.add(l),
            }
        }
        k
    }

    /// An added line, in the ending the patch gives it or else the file's.
    fn add(&mut self, l: &HunkLine) {
        if self.open_line {
            self.out.push_str(self.eol);
        }
        let text = if self.out.is_empty() {
            without_bom(self.doc, 0, &l.text)
        } else {
            &l.text
        };
        self.out.push_str(text);
        if l.no_eol {
            self.open_line = true;
        } else {
            let end = match (l.cr, self.exact_eol) {
                (true, _) => "\r\n",
                (false, true) => "\n",
                (false, false) => self.eol,
            };
            self.out.push_str(end);
            self.open_line = false;
        }
    }
}

/// A diff of a file with a BOM shows it on line 1; the document keeps it apart.
fn without_bom<'a>(doc: &Doc, line: usize, text: &'a str) -> &'a str {
    if doc.bom && line == 0 {
        text.strip_prefix('\u{feff}').unwrap_or(text)
    } else {
        text
    }
}

/// Appends copied file text, ending a previous unterminated line first.
fn push_text(out: &mut String, s: &str, open_line: &mut bool, eol: &str) {
    if s.is_empty() {
        return;
    }
    if *open_line {
        out.push_str(eol);
    }
    out.push_str(s);
    *open_line = !s.ends_with('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::doc::with_eol;

    fn doc(s: &str) -> Doc {
        Doc::from_text(false, s.to_string())
    }

    const P: &str = "--- a/f.txt\t2024-01-01\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";

    #[test]
    fn parses_and_applies() {
        let ps = parse(P).unwrap();
        assert_eq!(ps.len(), 1);
        assert_eq!(ps[0].old_path.as_deref(), Some("a/f.txt"));
        let out = apply(&doc("a\nb\nc\n"), &ps[0].hunks, 3).unwrap();
        assert_eq!(out.text, "a\nB\nc\n");
    }

    #[test]
    fn offset_within_fuzz_and_crlf_kept() {
        let ps = parse(P).unwrap();
        let out = apply(&doc("x\r\ny\r\na\r\nb\r\nc\r\n"), &ps[0].hunks, 3).unwrap();
        assert_eq!(out.text, "x\r\ny\r\na\r\nB\r\nc\r\n");
        let far = format!("{}a\nb\nc\n", "z\n".repeat(10));
        let e = apply(&doc(&far), &ps[0].hunks, 3).unwrap_err();
        assert_eq!((e.hunk, e.expected_line, e.ambiguous), (0, 1, false));
    }

    #[test]
    fn pure_insertion_without_context_uses_its_position() {
        let ps = parse("--- a/f\n+++ b/f\n@@ -2,0 +3,1 @@\n+new\n").unwrap();
        let out = apply(&doc("1\n2\n3\n"), &ps[0].hunks, 3).unwrap();
        assert_eq!(out.text, "1\n2\nnew\n3\n");
        let ps = parse("--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+top\n").unwrap();
        assert_eq!(
            apply(&doc("1\n"), &ps[0].hunks, 3).unwrap().text,
            "top\n1\n"
        );
    }

    #[test]
    fn no_newline_markers() {
        let p = "--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n-a\n\\ No newline at end of file\n+a\n+b\n\\ No newline at end of file\n";
        let ps = parse(p).unwrap();
        assert_eq!(apply(&doc("a"), &ps[0].hunks, 0).unwrap().text, "a\nb");
        let mut r = ps[0].clone();
        r.reverse();
        assert_eq!(apply(&doc("a\nb"), &r.hunks, 0).unwrap().text, "a");
    }

    #[test]
    fn creates_and_git_headers() {
        let p = "diff --git a/n.sh b/n.sh\nnew file mode 100755\nindex 0000000..e69de29\n--- /dev/null\n+++ b/n.sh\n@@ -0,0 +1 @@\n+echo\n";
        let ps = parse(p).unwrap();
        assert_eq!(ps[0].old_path, None);
        assert_eq!(ps[0].new_mode, Some(0o755));
        assert_eq!(apply(&doc(""), &ps[0].hunks, 3).unwrap().text, "echo\n");
        let e = "diff --git a/e b/e\nnew file mode 100644\nindex 0000000..e69de29\n";
        let ps = parse(e).unwrap();
        assert_eq!(
            (ps[0].old_path.clone(), ps[0].new_path.as_deref()),
            (None, Some("b/e"))
        );
    }

    #[test]
    fn ambiguous_when_two_places_are_equally_near() {
        let ps = parse("--- a/f\n+++ b/f\n@@ -3,1 +3,1 @@\n-x\n+y\n").unwrap();
        let e = apply(&doc("x\n_\n_\n_\nx\n"), &ps[0].hunks, 2).unwrap_err();
        assert!(e.ambiguous);
    }

    fn lines_strategy() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        (
            prop::collection::vec(prop::sample::select(vec!["a", "b", "c", "", " x"]), 0..14),
            any::<bool>(),
        )
            .prop_map(|(v, cut)| {
                let mut s: String = v.iter().map(|t| format!("{t}\n")).collect();
                if cut && s.ends_with('\n') {
                    s.pop();
                    if s.ends_with('\r') {
                        s.pop();
                    }
                }
                s
            })
    }

    fn gnu_diff(old: &str, new: &str, radius: usize) -> String {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a"), old).unwrap();
        std::fs::write(dir.path().join("b"), new).unwrap();
        let out = std::process::Command::new("diff")
            .arg(format!("-U{radius}"))
            .args(["a", "b"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 96, .. Default::default() })]
        /// Whatever GNU `diff -U N` writes applies to the old text and gives the
        /// new one byte for byte; reversed, it gives the old one back.
        #[test]
        fn similar_diffs_roundtrip(old in lines_strategy(), new in lines_strategy(), radius in 0usize..4, crlf: bool) {
            let (old, new) = if crlf {
                (with_eol(&old, "\r\n"), with_eol(&new, "\r\n"))
            } else {
                (old, new)
            };
            let diff = gnu_diff(&old, &new, radius);
            if diff.is_empty() {
                return Ok(());
            }
            let ps = parse(&diff).unwrap();
            proptest::prop_assert_eq!(ps.len(), 1);
            let out = apply(&doc(&old), &ps[0].hunks, 0).unwrap();
            proptest::prop_assert_eq!(&out.text, &new);
            let mut r = ps[0].clone();
            r.reverse();
            let back = apply(&doc(&new), &r.hunks, 0).unwrap();
            proptest::prop_assert_eq!(&back.text, &old);
        }
    }

    #[test]
    fn bad_input() {
        assert!(parse("hello\n").is_err());
        assert!(parse("--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n").is_err());
        assert!(parse("--- a\n+++ b\n@@ -1 +1 @@\n-a\n+b\n+c\n").is_err());
    }
}
