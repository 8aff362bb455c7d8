//! Paths: which answer values are file paths, and how a path is masked. A path is
//! no line of a file (an array of paths is not a file's lines, whose state one
//! line hands the next), and each of its names is masked on its own as well as
//! the whole: a secret in a directory's name (`d/api_key=K/x`) is masked without
//! masking the rest, a name's extension stays out of its value (`api_key=K.txt`
//! masks `K`, so a bare twin `K` is masked too), and a directory named for its
//! key (`password=/K`, `secrets/password:/K`) masks the name below it.
//!
//! Which values: a member `path`, `from` or `name` (a string); every string in a list under
//! `paths`, `files`, `untracked`, `staged`, `unstaged`, `added`, `removed`,
//! `modified` (at any depth of lists); a table's column (`items` rows under a
//! `fields` list) named so; and `find`'s bare `items`. A `find --tree` node's
//! `name` is judged under its parent node's (`password=` masks its children's).

use super::json::Json;
use super::lines::{self, Lines, Span};
use super::policy;
use std::ops::Range;

/// A member whose string value is a path (`name`: a file's, in a listing).
pub fn path_member(key: &str) -> bool {
    matches!(key, "path" | "from" | "name")
}

/// A member whose list holds paths.
pub fn path_list(key: &str) -> bool {
    matches!(
        key,
        "paths" | "files" | "untracked" | "staged" | "unstaged" | "added" | "removed" | "modified"
    )
}

/// A column (a `fields` entry) whose values are paths or lists of them.
pub fn path_column(name: &str) -> bool {
    path_member(name) || path_list(name)
}

/// The `items` of an answer whose `command` member is `command` are bare paths.
pub fn bare_path_items(command: &str) -> bool {
    command == "find"
}

/// The longest extension kept out of a name's value (`.txt`, `.json`, `.pem`).
const EXT_MAX: usize = 5;

/// `name` less a short extension (`api_key=K.txt` → `api_key=K`).
fn stem(name: &str) -> &str {
    match name.rfind('.') {
        Some(dot)
            if dot > 0
                && name.len() - dot - 1 <= EXT_MAX
                && name.len() - dot > 1
                && name[dot + 1..].bytes().all(|b| b.is_ascii_alphanumeric()) =>
        {
            &name[..dot]
        }
        _ => name,
    }
}

/// The secrets in `path`'s names, each name judged on its own (its stem: a short
/// extension left out), and a name below a directory named for its key
/// (`password=/…`, `token:/…`); ranges in `path`. The name right below judges
/// as the key's value; when it is none (`api_key=/g/K`), the key goes on down,
/// and a deeper name is masked when it looks random (`Open`).
///
/// `dir`: the directories `path` is listed under (a `find --tree` node's name
/// below its ancestors': `password=` then `K`).
pub fn name_spans_under(dir: Option<&str>, path: &str) -> Vec<Span> {
    let mut out = Vec::new();
    let mut key = dir_key_of(dir);
    let mut at = 0;
    for name in path.split('/') {
        let s = stem(name);
        let found = lines::spans_in(s, &mut Lines::default());
        let (named, next) = below(key, name, found.is_empty());
        if named {
            out.push(span(at..at + s.len()));
        }
        out.extend(found.into_iter().map(|sp| Span {
            range: sp.range.start + at..sp.range.end + at,
            ..sp
        }));
        key = next;
        at += name.len() + 1;
    }
    out
}

/// A key open over the names below a directory named for it: the strength the
/// next name is judged with (the key's own right below it, `Weak` deeper down).
type Open = Option<policy::Strength>;

/// Judges `name` under the key `key` left open (`judged`: no detector found a
/// secret in it already): whether its stem is the key's value, and the key left
/// open for the name below it.
fn below(key: Open, name: &str, judged: bool) -> (bool, Open) {
    let s = stem(name);
    let named = judged
        && key.is_some_and(|k| !s.is_empty() && policy::is_secret_value(s.as_bytes(), false, k));
    let next = match dir_key(name) {
        Some(k) => Some(k),
        None if named || s.is_empty() => None,
        None => key.map(|_| policy::Strength::Weak),
    };
    (named, next)
}

fn span(range: Range<usize>) -> Span {
    Span {
        range,
        counted: true,
        again: true,
    }
}

/// The key left open below the names of `dir` (`below`), if any.
pub fn dir_key_of(dir: Option<&str>) -> Open {
    let dir = dir?.trim_end_matches('/');
    dir.split('/').fold(None, |key, name| {
        let judged = key.is_none() || lines::spans_in(stem(name), &mut Lines::default()).is_empty();
        below(key, name, judged).1
    })
}

/// The directory a `find --tree` node's children are listed under: its own
/// name below its ancestors' (`under`).
pub fn child_dir(under: Option<&str>, name: &str) -> String {
    match under {
        Some(u) => format!("{u}/{name}"),
        None => name.to_string(),
    }
}

/// The name a `find --tree` node's `children` are listed under: its `name`, when
/// it has `children`.
pub fn tree_dir(members: &[(String, Json)]) -> Option<String> {
    if !members
        .iter()
        .any(|(k, v)| k == "children" && matches!(v, Json::Arr(_)))
    {
        return None;
    }
    members.iter().find_map(|(k, v)| match (k.as_str(), v) {
        ("name", Json::Str(n)) => Some(n.clone()),
        _ => None,
    })
}

/// A directory named for its key and nothing else (`password=`, `api_key :`).
fn dir_key(name: &str) -> Option<policy::Strength> {
    let k = name.trim_end().strip_suffix(['=', ':'])?.trim_end();
    policy::key_strength(k.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn masked(path: &str) -> Vec<&str> {
        name_spans_under(None, path)
            .into_iter()
            .map(|s| &path[s.range])
            .collect()
    }

    #[test]
    fn each_name_is_judged_on_its_own() {
        let k = "Zq8v2LmP0xA1Wk3n9RtY7uB2";
        let p = format!("d/api_key={k}/api_key={k}.txt");
        assert_eq!(masked(&p), [k, k]);
        assert_eq!(masked(&format!("secrets/password=/{k}.txt")), [k]);
        assert!(masked("src/token.rs").is_empty());
        assert!(masked("password=/README.md").is_empty());
        assert!(masked("docs/api_key.md").is_empty());
        let under = |d: &str, n: &str| name_spans_under(Some(d), n).len();
        assert_eq!(under("password=", k), 1);
        assert_eq!(under("e/token:", k), 1);
        assert_eq!(under("e", k), 0);
        assert_eq!(under("password=", "README.md"), 0);
        // The key goes on down past a name that is not its value, judging the
        // deeper ones as random or not.
        assert_eq!(under("api_key=/g", k), 1);
        assert_eq!(under("e/password=/src/app", k), 1);
        assert_eq!(under("e/password=/src/app", "main.py"), 0);
        assert_eq!(under("password=/x", "README.md"), 0);
        assert_eq!(under("password=/Tr0ub4dor3xyzQ", k), 0);
        assert_eq!(masked(&format!("api_key=/g/{k}")), [k]);
    }
}
