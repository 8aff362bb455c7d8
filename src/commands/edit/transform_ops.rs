//! The text algorithms behind `transform`'s newer line ops: version order
//! (`sort -V`), a seeded shuffle, leading-blank tabs (`unexpand --first-only`),
//! Unicode normalization (NFC, NFKC) and paragraph reflow; wrap and reflow
//! leave Markdown code fences alone.

use std::cmp::Ordering;

/// GNU `filevercmp`'s character weight: end < `~` < digits < letters < the rest.
fn order(s: &[u8], pos: usize) -> i32 {
    match s.get(pos) {
        None => -1,
        Some(c) if c.is_ascii_digit() => 0,
        Some(c) if c.is_ascii_alphabetic() => i32::from(*c),
        Some(b'~') => -2,
        Some(c) => i32::from(*c) + 256,
    }
}

/// Debian-style comparison of two strings: alternating non-digit runs
/// (by `order`) and digit runs (by numeric value).
fn verrevcmp(a: &[u8], b: &[u8]) -> Ordering {
    let (mut i, mut j) = (0, 0);
    let digit = |s: &[u8], p: usize| s.get(p).is_some_and(u8::is_ascii_digit);
    while i < a.len() || j < b.len() {
        while (i < a.len() && !digit(a, i)) || (j < b.len() && !digit(b, j)) {
            let (x, y) = (order(a, i), order(b, j));
            if x != y {
                return x.cmp(&y);
            }
            i += 1;
            j += 1;
        }
        while a.get(i) == Some(&b'0') {
            i += 1;
        }
        while b.get(j) == Some(&b'0') {
            j += 1;
        }
        let mut first = Ordering::Equal;
        while digit(a, i) && digit(b, j) {
            if first == Ordering::Equal {
                first = a[i].cmp(&b[j]);
            }
            i += 1;
            j += 1;
        }
        if digit(a, i) {
            return Ordering::Greater;
        }
        if digit(b, j) {
            return Ordering::Less;
        }
        if first != Ordering::Equal {
            return first;
        }
    }
    Ordering::Equal
}

/// The length of a name without its file suffixes (`(\.[A-Za-z~][A-Za-z0-9~]*)*$`).
fn prefix_len(s: &[u8]) -> usize {
    let mut prefix = 0;
    let mut i = 0;
    loop {
        if i >= s.len() {
            return prefix;
        }
        i += 1;
        prefix = i;
        while i + 1 < s.len()
            && s[i] == b'.'
            && (s[i + 1].is_ascii_alphabetic() || s[i + 1] == b'~')
        {
            i += 2;
            while i < s.len() && (s[i].is_ascii_alphanumeric() || s[i] == b'~') {
                i += 1;
            }
        }
    }
}

/// Version order as GNU `sort -V` compares keys (gnulib's `filevercmp`).
pub fn version_cmp(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    match (a.is_empty(), b.is_empty()) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Less,
        (false, true) => return Ordering::Greater,
        _ => {}
    }
    if a[0] == b'.' || b[0] == b'.' {
        if b[0] != b'.' {
            return Ordering::Less;
        }
        if a[0] != b'.' {
            return Ordering::Greater;
        }
        for special in [&b"."[..], &b".."[..]] {
            match (a == special, b == special) {
                (true, true) => return Ordering::Equal,
                (true, false) => return Ordering::Less,
                (false, true) => return Ordering::Greater,
                _ => {}
            }
        }
    }
    let (pa, pb) = (prefix_len(a), prefix_len(b));
    let first = verrevcmp(&a[..pa], &b[..pb]);
    if first != Ordering::Equal || (pa == a.len() && pb == b.len()) {
        return first;
    }
    verrevcmp(a, b)
}

/// A Fisher-Yates shuffle driven by SplitMix64 from `seed`: the same seed
/// gives the same order on every machine.
pub fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for i in (1..items.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

/// The leading blanks of a line turned into tabs at every `stop` columns, as
/// `unexpand --first-only -t STOP` does; the rest of the line is kept.
pub fn spaces_to_tabs(line: &str, stop: usize) -> String {
    let stop = stop.max(1);
    let lead = line.len() - line.trim_start_matches([' ', '\t']).len();
    let (head, rest) = line.split_at(lead);
    if !head.contains(' ') {
        return line.to_string();
    }
    let mut out = String::with_capacity(line.len());
    let mut col = 0;
    let mut pending = 0; // spaces not yet written, ending at `col`
    for ch in head.chars() {
        if ch == '\t' {
            out.push('\t');
            col = (col / stop + 1) * stop;
            pending = 0;
        } else {
            col += 1;
            pending += 1;
            if col % stop == 0 {
                out.push(if pending > 1 || stop == 1 { '\t' } else { ' ' });
                pending = 0;
            }
        }
    }
    out.push_str(&" ".repeat(pending));
    out.push_str(rest);
    out
}

/// NFC or NFKC of a line.
pub fn normalize(line: &str, compat: bool) -> String {
    use unicode_normalization::UnicodeNormalization;
    if compat {
        line.nfkc().collect()
    } else {
        line.nfc().collect()
    }
}

/// Whether a line opens or closes a Markdown code fence (``` or ~~~).
pub fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// Applies `f` to each run of lines outside code fences; fenced lines (the
/// fence lines included) are kept as they are.
pub fn outside_fences(
    lines: Vec<String>,
    mut f: impl FnMut(Vec<String>) -> Vec<String>,
) -> Vec<String> {
    let mut out = Vec::with_capacity(lines.len());
    let mut run = Vec::new();
    let mut fenced = false;
    for l in lines {
        if is_fence(&l) {
            if !fenced {
                out.extend(f(std::mem::take(&mut run)));
            }
            fenced = !fenced;
            out.push(l);
        } else if fenced {
            out.push(l);
        } else {
            run.push(l);
        }
    }
    out.extend(f(run));
    out
}

/// A Markdown list marker at the start of `body` (`- `, `* `, `+ `, `1. `,
/// `1) `): its length with the space.
fn list_marker(body: &str) -> Option<usize> {
    let b = body.as_bytes();
    if b.len() >= 2 && matches!(b[0], b'-' | b'*' | b'+') && b[1] == b' ' {
        return Some(2);
    }
    let d = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if d > 0 && d < 10 && b.len() > d + 1 && matches!(b[d], b'.' | b')') && b[d + 1] == b' ' {
        return Some(d + 2);
    }
    None
}

/// Greedy fill of `words` at `width` columns: the first line starts with
/// `first`, the others with `rest`; a word longer than the width stands alone.
fn fill(words: &[&str], width: usize, first: &str, rest: &str, out: &mut Vec<String>) {
    let mut cur = first.to_string();
    let mut empty = true;
    let mut cols = first.chars().count();
    for w in words {
        let n = w.chars().count();
        if !empty && cols + 1 + n > width {
            out.push(std::mem::take(&mut cur));
            cur.push_str(rest);
            cols = rest.chars().count();
            empty = true;
        }
        if !empty {
            cur.push(' ');
            cols += 1;
        }
        cur.push_str(w);
        cols += n;
        empty = false;
    }
    if !empty {
        out.push(cur);
    }
}

/// Reflows paragraphs (runs of non-blank lines) to `width` columns: each
/// paragraph's words are joined and filled greedily with its first line's
/// indent. Headings (`#`), block quotes and tables stay as they are; a list
/// item starts its own paragraph, continued under its text.
pub fn reflow(lines: Vec<String>, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::with_capacity(lines.len());
    let mut para: Vec<String> = Vec::new();
    let flush = |para: &mut Vec<String>, out: &mut Vec<String>| {
        let Some(head) = para.first() else { return };
        let ind_len = head.len() - head.trim_start().len();
        let ind = &head[..ind_len];
        let body = &head[ind_len..];
        let (first, rest) = match list_marker(body) {
            Some(m) => (
                format!("{ind}{}", &body[..m]),
                format!("{ind}{}", " ".repeat(m)),
            ),
            None => (ind.to_string(), ind.to_string()),
        };
        let text: String = para.join(" ");
        let text = &text[first.len()..];
        let words: Vec<&str> = text.split_whitespace().collect();
        fill(&words, width, &first, &rest, out);
        para.clear();
    };
    for l in lines {
        let body = l.trim_start();
        if body.is_empty()
            || body.starts_with('#')
            || body.starts_with('>')
            || body.starts_with('|')
        {
            flush(&mut para, &mut out);
            out.push(l);
            continue;
        }
        if list_marker(body).is_some() {
            flush(&mut para, &mut out);
        }
        para.push(l);
    }
    flush(&mut para, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_order_like_sort_v() {
        let mut v = vec![
            "a-1.10",
            "a-1.9",
            "a-1.9~rc1",
            "a-1.09b",
            "a.tar.gz",
            "",
            ".x",
            ".",
        ];
        v.sort_by(|a, b| version_cmp(a, b).then(a.cmp(b)));
        assert_eq!(
            v,
            [
                "",
                ".",
                ".x",
                "a.tar.gz",
                "a-1.9~rc1",
                "a-1.9",
                "a-1.09b",
                "a-1.10"
            ]
        );
    }

    #[test]
    fn tabs_only_where_blanks_reach_a_stop() {
        assert_eq!(spaces_to_tabs("        x  y", 8), "\tx  y");
        assert_eq!(spaces_to_tabs("          x", 4), "\t\t  x");
        assert_eq!(spaces_to_tabs("   x", 4), "   x");
    }
}
