//! POSIX shell quoting for the `aitools ...` invocations we hand back to agents
//! (`next_commands`, `repairs[].command`), so a shell splits them into the same argv.

/// Quotes one word only when it needs it.
pub fn quote(word: &str) -> String {
    let safe = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=@%+,".contains(&b) || b >= 0x80);
    if safe {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The global options of `argv` (before a `--`), with their values: what a
/// command handed back, or run on the call's behalf, must keep.
pub fn global_options(argv: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let globals = super::args::global_options_taking_values();
    let mut words = argv.iter().take_while(|a| *a != "--");
    while let Some(a) = words.next() {
        if globals.contains(&a.as_str()) {
            if let Some(v) = words.next() {
                out.push(a.clone());
                out.push(v.clone());
            }
        } else if globals
            .iter()
            .any(|g| a.strip_prefix(g).is_some_and(|r| r.starts_with('=')))
        {
            out.push(a.clone());
        }
    }
    out
}

/// The same call rewritten: options named in `drop_valued` (with their value, or
/// as `--opt=value`) and in `drop_bare` are removed, and `add` is placed among the
/// options. Words after a `--` are values, never options: they are kept as they
/// are, and `add` goes before that `--` (appended after it, an option would be read
/// as a value).
pub fn rerun(
    argv: &[String],
    drop_valued: &[&str],
    drop_bare: &[&str],
    add: &[String],
) -> Vec<String> {
    let end = argv.iter().position(|a| a == "--").unwrap_or(argv.len());
    let mut out: Vec<String> = Vec::with_capacity(argv.len() + add.len());
    let mut i = 0;
    while i < end {
        let a = &argv[i];
        if drop_valued.contains(&a.as_str()) {
            i += 2;
            continue;
        }
        let valued_eq = drop_valued
            .iter()
            .any(|d| a.strip_prefix(d).is_some_and(|r| r.starts_with('=')));
        if !valued_eq && !drop_bare.contains(&a.as_str()) {
            out.push(a.clone());
        }
        i += 1;
    }
    out.extend(add.iter().cloned());
    out.extend(argv[end.min(argv.len())..].iter().cloned());
    out
}

/// Joins words into one shell-safe command line.
pub fn join<I, S>(words: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    words
        .into_iter()
        .map(|w| quote(w.as_ref()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Splits a command line in our own quoting (bare words, `'...'` parts, `\x`
/// escapes outside quotes, so `'\''` for a quote) back into its words, each with
/// the byte range it spans in `line`. `None` when the line is not in that form
/// (an unbalanced quote, a double quote): such a line is left as it is.
pub fn split_spans(line: &str) -> Option<Vec<(std::ops::Range<usize>, String)>> {
    let mut out = Vec::new();
    let mut cur: Option<(usize, String)> = None;
    let mut chars = line.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if let Some((s, w)) = cur.take() {
                    out.push((s..i, w));
                }
            }
            '\'' => {
                let (_, w) = cur.get_or_insert((i, String::new()));
                loop {
                    match chars.next() {
                        Some((_, '\'')) => break,
                        Some((_, ch)) => w.push(ch),
                        None => return None,
                    }
                }
            }
            '\\' => {
                let (_, w) = cur.get_or_insert((i, String::new()));
                w.push(chars.next()?.1);
            }
            '"' => return None,
            _ => cur.get_or_insert((i, String::new())).1.push(c),
        }
    }
    if let Some((s, w)) = cur.take() {
        out.push((s..line.len(), w));
    }
    Some(out)
}

/// The words of a command line in our own quoting (see `split_spans`).
pub fn split(line: &str) -> Option<Vec<String>> {
    split_spans(line).map(|v| v.into_iter().map(|(_, w)| w).collect())
}

/// `aitools` followed by the quoted words.
pub fn aitools<I, S>(words: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let rest = join(words);
    if rest.is_empty() {
        "aitools".to_string()
    } else {
        format!("aitools {rest}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn quoting() {
        assert_eq!(quote("a.txt"), "a.txt");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
        assert_eq!(
            aitools(["read", "x y", "--range", "3:5"]),
            "aitools read 'x y' --range 3:5"
        );
    }

    #[test]
    fn split_inverts_join() {
        let cases: Vec<Vec<&str>> = vec![
            vec!["read", "a.txt", "--range", "3:5"],
            vec!["edit", "x y", "--old", "it's", "--new", ""],
            vec!["write", "--content", "a\nb\tc '' \\ \"q\"", "--", "-x"],
            vec!["feedback", "--message", "<what you ran>", "é ü"],
            vec![],
        ];
        for c in cases {
            let words: Vec<String> = c.iter().map(|s| s.to_string()).collect();
            assert_eq!(split(&join(&words)).as_deref(), Some(&words[..]), "{c:?}");
        }
        let line = "aitools read 'a b' -- x";
        let spans = split_spans(line).unwrap();
        assert_eq!(&line[spans[3].0.clone()], "--");
        assert_eq!(split("read 'open"), None);
    }

    #[test]
    fn global_options_keep_their_values_and_stop_at_double_dash() {
        let w = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let argv = w(&[
            "--root",
            "/r",
            "read",
            "a",
            "--lock-timeout=2s",
            "--",
            "--root",
            "x",
        ]);
        assert_eq!(
            global_options(&argv),
            w(&["--root", "/r", "--lock-timeout=2s"])
        );
        assert!(global_options(&w(&["read", "a", "--root"])).is_empty());
    }

    #[test]
    fn rerun_keeps_values_after_double_dash() {
        let w = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let argv = w(&[
            "replace",
            "--expect-count=2",
            "--dry-run",
            "--",
            "--expect-count",
            "-x",
        ]);
        assert_eq!(
            rerun(
                &argv,
                &["--expect-count"],
                &["--dry-run"],
                &w(&["--dry-run"])
            ),
            w(&["replace", "--dry-run", "--", "--expect-count", "-x"])
        );
        let argv = w(&["search", "--limit", "3", "x"]);
        assert_eq!(
            rerun(&argv, &["--limit"], &[], &w(&["--limit", "9"])),
            w(&["search", "x", "--limit", "9"])
        );
    }
}
