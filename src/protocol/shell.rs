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
