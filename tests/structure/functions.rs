//! No function outside the tests over `MAX_FN_LINES` lines (its `fn` line to its
//! closing brace), but the ones `LONG_FNS` lists, each at most its listed length:
//! the list only shrinks (a listed function that grew, or no longer needs its
//! entry, fails the test).

use std::path::Path;

pub const MAX_FN_LINES: usize = 100;

/// Today's longer functions: (file under src/, function name, its length now).
/// Cut one below the limit and remove its row; never add a row.
pub const LONG_FNS: &[(&str, &str, usize)] = &[];

/// Code without comments and string or char literals (each replaced by spaces,
/// newlines kept), so braces count as Rust sees them.
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, s: &[u8]| {
        out.extend(s.iter().map(|&c| if c == b'\n' { b'\n' } else { b' ' }))
    };
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            let end = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
            blank(&mut out, &rest[..end]);
            i += end;
        } else if rest.starts_with(b"/*") {
            let (mut depth, mut j) = (0usize, 0);
            while j < rest.len() {
                if rest[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if rest[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, &rest[..j]);
            i += j;
        } else if let Some(len) = raw_string_len(rest, i > 0 && is_ident(b[i - 1])) {
            blank(&mut out, &rest[..len]);
            i += len;
        } else if rest[0] == b'"' {
            let mut j = 1;
            while j < rest.len() && rest[j] != b'"' {
                j += if rest[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(rest.len());
            blank(&mut out, &rest[..end]);
            i += end;
        } else if rest[0] == b'\'' {
            // A char literal ('{', '\'', '\u{7b}'), else a lifetime.
            let len = if rest.get(1) == Some(&b'\\') {
                rest[2..].iter().position(|&c| c == b'\'').map(|p| p + 3)
            } else {
                let ch = std::str::from_utf8(&rest[1..rest.len().min(6)])
                    .ok()
                    .or_else(|| std::str::from_utf8(&rest[1..rest.len().min(2)]).ok())
                    .and_then(|s| s.chars().next())
                    .map(char::len_utf8);
                ch.filter(|n| rest.get(1 + n) == Some(&b'\''))
                    .map(|n| n + 2)
            };
            let len = len.unwrap_or(1);
            blank(&mut out, &rest[..len]);
            i += len;
        } else {
            out.push(rest[0]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The length of a raw string literal (`r"…"`, `r#"…"#`, `br"…"`) at the start.
fn raw_string_len(rest: &[u8], after_ident: bool) -> Option<usize> {
    if after_ident {
        return None;
    }
    let start = if rest.starts_with(b"br") {
        2
    } else if rest.starts_with(b"r") {
        1
    } else {
        return None;
    };
    let hashes = rest[start..].iter().take_while(|&&c| c == b'#').count();
    if rest.get(start + hashes) != Some(&b'"') {
        return None;
    }
    let close: Vec<u8> = std::iter::once(b'"')
        .chain(std::iter::repeat_n(b'#', hashes))
        .collect();
    let body = start + hashes + 1;
    let end = rest[body..]
        .windows(close.len())
        .position(|w| w == close.as_slice())?;
    Some(body + end + close.len())
}

/// The name of the function a line of code declares, if it does.
fn fn_name(line: &str) -> Option<&str> {
    let mut words = line.trim_start();
    loop {
        let w = words.split_whitespace().next()?;
        if w == "fn" {
            let name = words[2..].trim_start();
            let end = name.find(|c: char| !c.is_alphanumeric() && c != '_')?;
            return (end > 0).then(|| &name[..end]);
        }
        let known = w.starts_with("pub")
            || ["const", "async", "unsafe", "extern", "\"C\"", "default"].contains(&w);
        if !known {
            return None;
        }
        words = words[w.len()..].trim_start();
    }
}

/// Every function in `src` (its non-test part) with its length in lines.
pub fn functions(src: &str) -> Vec<(String, usize)> {
    let code = code_only(src.split("#[cfg(test)]").next().unwrap_or(src));
    let lines: Vec<&str> = code.lines().collect();
    let mut found = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let Some(name) = fn_name(line) else { continue };
        // The body: from the first `{` (a `;` first is a declaration) to its match.
        let mut depth = 0usize;
        let mut opened = false;
        'scan: for (n, l) in lines.iter().enumerate().skip(start) {
            for c in l.chars() {
                match c {
                    ';' if !opened => break 'scan,
                    '{' => {
                        opened = true;
                        depth += 1;
                    }
                    '}' if opened => {
                        depth -= 1;
                        if depth == 0 {
                            found.push((name.to_string(), n - start + 1));
                            break 'scan;
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    found
}

/// Functions over the limit under `src`: (file, name, lines).
pub fn long_fns(src: &Path) -> Vec<(String, String, usize)> {
    let mut files = Vec::new();
    super::rust_files(src, &mut files);
    let mut out = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let rel = f
            .strip_prefix(src)
            .unwrap_or(&f)
            .to_string_lossy()
            .replace('\\', "/");
        for (name, n) in functions(&text) {
            if n > MAX_FN_LINES {
                out.push((rel.clone(), name, n));
            }
        }
    }
    out
}

/// What breaks the rule: a long function not listed, one longer than its row,
/// a row no function needs.
pub fn broken(long: &[(String, String, usize)], allowed: &[(&str, &str, usize)]) -> Vec<String> {
    let mut v = Vec::new();
    for (file, name, n) in long {
        match allowed.iter().find(|a| a.0 == file && a.1 == name) {
            None => v.push(format!(
                "{file}: fn {name} is {n} lines (at most {MAX_FN_LINES}): split it"
            )),
            Some(a) if *n > a.2 => v.push(format!(
                "{file}: fn {name} grew to {n} lines (LONG_FNS allows {}, and only shrinks)",
                a.2
            )),
            Some(_) => {}
        }
    }
    for a in allowed {
        if !long.iter().any(|(f, n, _)| f == a.0 && n == a.1) {
            v.push(format!(
                "{}: fn {} is no longer over {MAX_FN_LINES} lines: remove its LONG_FNS row",
                a.0, a.1
            ));
        }
    }
    v
}

#[test]
fn no_function_over_100_lines_but_the_listed_ones() {
    let long = long_fns(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let v = broken(&long, LONG_FNS);
    assert!(v.is_empty(), "{}", v.join("\n"));
}

#[test]
fn the_function_length_check_measures_like_rustc_reads() {
    let body = |n: usize| "    let x = 1;\n".repeat(n);
    let src = format!(
        "//! m\npub(crate) fn short() {{\n    let s = \"{{{{ not a brace\";\n    let c = '{{';\n}}\n\
         // fn commented() {{\n\
         pub fn long<'a>(x: &'a str) -> &'a str {{\n{}    let r = r#\"}}\"#;\n    x\n}}\n\
         trait T {{ fn decl(&self); }}\n\
         #[cfg(test)]\nmod tests {{ fn in_tests() {{\n{}}} }}\n",
        body(MAX_FN_LINES),
        body(MAX_FN_LINES)
    );
    let f = functions(&src);
    assert_eq!(
        f,
        [
            ("short".to_string(), 4),
            ("long".to_string(), MAX_FN_LINES + 4)
        ],
        "{f:?}"
    );
    let long = vec![("a.rs".to_string(), "long".to_string(), 150)];
    assert!(broken(&long, &[]).len() == 1);
    assert!(broken(&long, &[("a.rs", "long", 150)]).is_empty());
    assert!(broken(&long, &[("a.rs", "long", 149)])[0].contains("grew"));
    assert!(broken(&[], &[("a.rs", "long", 150)])[0].contains("remove"));
}
