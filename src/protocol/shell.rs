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
}
