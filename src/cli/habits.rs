//! Habits of the people who write these calls (data/habits.tsv): another tool's
//! spelling of an option a command has (`git log -n 5`, `search --include GLOB`,
//! `-t py`, `find -name X`). When clap rejects an argument, a `take` spelling is
//! rewritten in argv (parsed again by the dispatcher, `took` in the answer says
//! how it was read); a `repair` spelling, or a value that has no meaning here, is
//! answered with the exact call that works.

use crate::protocol::argv::options;
use crate::protocol::{CmdError, Json, Repair, code, shell};
use crate::registry;

mod jq_each;
mod log_format;

pub use jq_each::took as other_call;

const TABLE: &str = include_str!("../../data/habits.tsv");

/// One row of the table.
#[derive(Debug, Clone, Copy)]
struct Row {
    commands: &'static str,
    foreign: &'static str,
    ours: &'static str,
    take: bool,
    value: &'static str,
    why: &'static str,
}

fn rows() -> impl Iterator<Item = Row> {
    TABLE
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            let [commands, foreign, ours, how, value, why] = c[..] else {
                return None;
            };
            Some(Row {
                commands,
                foreign,
                ours,
                take: how == "take",
                value,
                why,
            })
        })
}

/// What a call's habits come to.
#[derive(Debug)]
pub enum Habit {
    /// Every foreign spelling was taken: the call as aitools reads it, and each
    /// spelling (with its value when that changed) → ours.
    Took {
        argv: Vec<String>,
        took: Vec<(String, String)>,
    },
    /// A spelling to answer rather than take.
    Answer(CmdError),
}

impl Habit {
    /// `took` as the answer's member: `{"-n":"--limit"}`.
    pub fn took_json(took: &[(String, String)]) -> Json {
        Json::Obj(
            took.iter()
                .map(|(k, v)| (k.clone(), Json::str(v.clone())))
                .collect(),
        )
    }
}

/// A call read the aitools way: its argv, and what `took` says.
pub type Read = (Vec<String>, Vec<(String, String)>);

/// A call clap rejected (`e`): `None` when no habit explains it (clap's error
/// stands), else the call read our way or the answer (with its command's name).
pub fn after_error(
    e: &clap::Error,
    words: &[String],
    argv: &[String],
    utf8: bool,
) -> Option<Result<Read, (&'static str, CmdError)>> {
    let habitual = matches!(
        e.kind(),
        clap::error::ErrorKind::UnknownArgument | clap::error::ErrorKind::InvalidValue
    ) && utf8;
    let spec = registry::find(&words.join(" ")).filter(|_| habitual)?;
    match apply(spec.name, argv)? {
        Habit::Answer(err) => Some(Err((spec.name, err))),
        Habit::Took { argv, took } => Some(Ok((argv, took))),
    }
}

/// One spelling found in argv: where it stands, how many words it spans, what
/// replaces them, and what `took` says.
struct Found {
    row: Row,
    index: usize,
    span: usize,
    words: Vec<String>,
    /// A value that moves to the command's first positional place (`find -name`).
    pattern: Option<String>,
    took: (String, String),
}

/// The habits of `argv` (the words after the program name) for `command`; `None`
/// when it has none (the parse error is answered as it is).
pub fn apply(command: &str, argv: &[String]) -> Option<Habit> {
    if command == "git show"
        && let Some(e) = show_paths(argv)
    {
        return Some(Habit::Answer(e));
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut found: Vec<Found> = Vec::new();
    if command == "git log" {
        match log_format::found(argv) {
            Some(Ok(f)) => found.push(f),
            Some(Err(r)) => {
                // The repair is the call without the format, other habits taken.
                let mut rest = argv.to_vec();
                rest.drain(r.index..r.index + r.span);
                let fixed = match apply(command, &rest) {
                    Some(Habit::Took { argv, .. }) => argv,
                    _ => rest,
                };
                return Some(Habit::Answer(log_format::refuse(&fixed, &r)));
            }
            None => {}
        }
    }
    for o in options(registry::LIST, argv) {
        if !seen.insert(o.index) {
            continue;
        }
        match spelling(command, argv, o.index) {
            Some(Ok(f)) => found.push(f),
            Some(Err(e)) => return Some(Habit::Answer(e)),
            None => {}
        }
    }
    found.extend(counts(command, argv));
    let letters = short_letters(command, argv, &seen, &found);
    found.extend(letters);
    if found.is_empty() {
        return None;
    }
    let fixed = rewrite(command, argv, &found);
    if let Some(f) = found.iter().find(|f| !f.row.take) {
        let (foreign, ours) = (f.row.foreign, f.row.ours);
        let err = CmdError::new(
            code::ARGUMENT_INVALID,
            format!("{command} does not take {foreign}: {}.", f.row.why),
            Repair::new(
                "retry",
                format!("The same call with {ours} instead of {foreign}."),
                shell::aitools(&fixed),
            ),
        )
        .with_candidates(Json::Arr(vec![Json::str(ours)]));
        return Some(Habit::Answer(err));
    }
    let mut took: Vec<(String, String)> = Vec::new();
    for f in found {
        if !took.iter().any(|(k, _)| *k == f.took.0) {
            took.push(f.took);
        }
    }
    Some(Habit::Took { argv: fixed, took })
}

/// head's `-20` (a `-N` row of the command): each dash-and-digits word before
/// `--` (clap took it for a value or refused it).
fn counts(command: &str, argv: &[String]) -> Vec<Found> {
    let Some(row) =
        rows().find(|r| r.foreign == "-N" && r.commands.split(',').any(|c| c == command))
    else {
        return Vec::new();
    };
    argv.iter()
        .take_while(|w| *w != "--")
        .enumerate()
        .filter_map(|(i, w)| {
            let n = w.strip_prefix('-').and_then(digits).filter(|n| *n > 0)?;
            let mut f = found(command, argv, row, i, Some(n.to_string()), 1).ok()?;
            f.took.0 = w.clone();
            Some(f)
        })
        .collect()
}

/// grep's letters that mean nothing here (data/short_flags.tsv rows that are
/// left out: `-r`, recursion is the default; `-H`, every result names its path),
/// alone or in a cluster of the command's own flags (`-rn`): the word without
/// them. `-P` is not one: a Perl pattern may not mean the same here.
fn short_letters(
    command: &str,
    argv: &[String],
    seen: &std::collections::BTreeSet<usize>,
    done: &[Found],
) -> Vec<Found> {
    let Some(spec) = registry::find(command) else {
        return Vec::new();
    };
    let own: Vec<char> = spec
        .clap_command()
        .get_arguments()
        .filter(|a| !a.get_action().takes_values())
        .filter_map(clap::Arg::get_short)
        .collect();
    // Not a table row: a spelling taken, left out.
    let row = Row {
        commands: "",
        foreign: "",
        ours: "",
        take: true,
        value: "none",
        why: "",
    };
    let mut out = Vec::new();
    for &i in seen.iter().filter(|i| !done.iter().any(|f| f.index == **i)) {
        let word = &argv[i];
        let Some(letters) = word.strip_prefix('-').filter(|l| !l.starts_with('-')) else {
            continue;
        };
        let dropped = |c: char| {
            c != 'P'
                && !own.contains(&c)
                && matches!(
                    super::short_flag_habit(command, &format!("-{c}")),
                    Some((None, _))
                )
        };
        let gone: String = letters.chars().filter(|c| dropped(*c)).collect();
        let kept: String = letters.chars().filter(|c| own.contains(c)).collect();
        if gone.is_empty() || gone.len() + kept.len() != letters.len() {
            continue;
        }
        let words = if kept.is_empty() {
            Vec::new()
        } else {
            vec![format!("-{kept}")]
        };
        for c in gone.chars() {
            out.push(Found {
                row,
                index: i,
                span: 1,
                words: words.clone(),
                pattern: None,
                took: (format!("-{c}"), String::new()),
            });
        }
    }
    out
}

/// `argv` with each found spelling replaced (a pattern value moved after the
/// command words).
fn rewrite(command: &str, argv: &[String], found: &[Found]) -> Vec<String> {
    let words = command.split(' ').count();
    let mut out: Vec<String> = Vec::with_capacity(argv.len() + 2);
    let mut i = 0;
    while i < argv.len() {
        match found.iter().find(|f| f.index == i) {
            Some(f) => {
                out.extend(f.words.iter().cloned());
                i += f.span;
            }
            None => {
                out.push(argv[i].clone());
                i += 1;
            }
        }
    }
    // The command words come first in every argv a habit is looked for in
    // (options before them are global ones the dispatcher already read).
    let at = command_end(&out, words);
    for p in found.iter().filter_map(|f| f.pattern.clone()).rev() {
        out.insert(at, p);
    }
    out
}

/// The index just after the `n` command words of `argv`.
fn command_end(argv: &[String], n: usize) -> usize {
    let cmd = crate::cli::command_words(argv);
    let mut left = cmd.len().min(n);
    for (i, a) in argv.iter().enumerate() {
        if left == 0 {
            return i;
        }
        if cmd.iter().any(|w| w == a) {
            left -= 1;
        }
    }
    argv.len()
}

/// The table's spelling at `argv[i]` for `command`: `Ok` to take or answer,
/// `Err` when its value has no meaning here (answered with a working call).
fn spelling(command: &str, argv: &[String], i: usize) -> Option<Result<Found, CmdError>> {
    let word = argv[i].as_str();
    // The longest spelling first: `-type` is not `-t` with the value `ype`.
    let mut table: Vec<Row> = rows().collect();
    table.sort_by_key(|r| std::cmp::Reverse(r.foreign.len()));
    table.into_iter().find_map(|row| {
        if !row.commands.split(',').any(|c| c == command) {
            return None;
        }
        let inline = inline_value(word, row)?;
        let valued = row.value != "none";
        if !valued && inline.is_some() {
            return None;
        }
        let (value, span) = match (valued, inline) {
            (false, _) => (None, 1),
            (true, Some(v)) => (Some(v), 1),
            (true, None) => (Some(argv.get(i + 1)?.clone()), 2),
        };
        let ours_already =
            row.foreign == row.ours && value.as_deref().is_some_and(|v| kind(v) == Some(v));
        (!ours_already).then(|| found(command, argv, row, i, value, span))
    })
}

/// `Some(None)` when `word` is the row's spelling without a value, `Some(Some(v))`
/// with one joined to it (`--max-count=5`, `-n5`), `None` when it is not the row's.
fn inline_value(word: &str, row: Row) -> Option<Option<String>> {
    let f = row.foreign;
    if word == f {
        return Some(None);
    }
    let rest = word.strip_prefix(f)?;
    if f.starts_with("--") {
        return rest.strip_prefix('=').map(|v| Some(v.to_string()));
    }
    // A short option with its value joined (`-n5`); a longer single-dash word
    // (`-name`) is its own row.
    (f.len() == 2 && row.value != "none" && row.value != "pattern").then(|| Some(rest.to_string()))
}

fn found(
    command: &str,
    argv: &[String],
    row: Row,
    index: usize,
    value: Option<String>,
    span: usize,
) -> Result<Found, CmdError> {
    let plain = |words: Vec<String>, took: String| Found {
        row,
        index,
        span,
        words,
        pattern: None,
        took: (row.foreign.to_string(), took),
    };
    let Some(v) = value else {
        let words = row.ours.split(' ').filter(|w| !w.is_empty());
        return Ok(plain(
            words.map(str::to_string).collect(),
            row.ours.to_string(),
        ));
    };
    let mapped = |flag: &str, to: String| Found {
        row,
        index,
        span,
        words: vec![flag.to_string(), to.clone()],
        pattern: None,
        took: (format!("{} {v}", row.foreign), format!("{flag} {to}")),
    };
    match row.value {
        // sed's and people's `S,E` / `S-E` given as a range: `S:E`.
        "same" if row.ours == "--range" && spelled_range(&v).is_some() => {
            Ok(mapped(row.ours, spelled_range(&v).unwrap_or_default()))
        }
        "same" => Ok(plain(vec![row.ours.to_string(), v], row.ours.to_string())),
        "pattern" => {
            let ours: Vec<String> = (row.ours != "-")
                .then(|| row.ours.to_string())
                .into_iter()
                .collect();
            let took = ours.iter().map(|o| format!("{o} ")).collect::<String>() + "pattern";
            Ok(Found {
                pattern: Some(v),
                ..plain(ours, took)
            })
        }
        "negate" => {
            let glob = if v.starts_with('!') {
                v.clone()
            } else {
                format!("!{v}")
            };
            Ok(mapped(row.ours, glob))
        }
        "lines" => git_lines(&v)
            .map(|r| mapped(row.ours, r))
            .ok_or_else(|| bad_value(command, argv, row, index, span, &v)),
        // cat's `-n` (number the lines): read always does; the flag goes.
        "head" => Ok(match head(&v) {
            Some(r) => mapped(row.ours, r),
            None => Found {
                span: 1,
                ..plain(Vec::new(), String::new())
            },
        }),
        "kind" => match kind(&v) {
            Some(k) => Ok(mapped(row.ours, k.to_string())),
            None => language(&v)
                .map(|l| mapped("--lang", l))
                .ok_or_else(|| bad_value(command, argv, row, index, span, &v)),
        },
        _ => language(&v)
            .map(|l| mapped(row.ours, l))
            .ok_or_else(|| bad_value(command, argv, row, index, span, &v)),
    }
}

/// A language name of data/languages.tsv, or the language of files with this
/// extension (`py` → `python`).
fn language(v: &str) -> Option<String> {
    let v = v.trim_start_matches('.');
    crate::text::lang::named(v)
        .or_else(|| crate::text::lang::of_file(&format!("x.{v}")))
        .map(|l| l.name.to_string())
}

/// find's kinds as find(1) spells them.
fn kind(v: &str) -> Option<&'static str> {
    match v {
        "f" | "file" => Some("file"),
        "d" | "dir" => Some("dir"),
        "l" | "symlink" => Some("symlink"),
        _ => None,
    }
}

/// git blame's `-L S,E`, `S,+N` or `S,` as `S:E`.
fn git_lines(v: &str) -> Option<String> {
    let (s, e) = v.split_once(',')?;
    let start: u64 = digits(s)?;
    if e.is_empty() {
        return Some(format!("{start}:"));
    }
    let end = match e.strip_prefix('+') {
        Some(n) => start.checked_add(digits(n)?)?.checked_sub(1)?,
        None => digits(e)?,
    };
    Some(format!("{start}:{end}"))
}

/// A line range written `S-E` or `S,E` (not our `S:E`), as `S:E`.
fn spelled_range(v: &str) -> Option<String> {
    let (s, e) = v.split_once(['-', ','])?;
    let (start, end) = (digits(s)?, digits(e)?);
    (start > 0 && start <= end).then(|| format!("{start}:{end}"))
}

/// head's `-n N` as `1:N`.
fn head(v: &str) -> Option<String> {
    digits(v).filter(|n| *n > 0).map(|n| format!("1:{n}"))
}

fn digits(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// A value the habit cannot read: the call without the spelling (a language
/// that is no language of the table: the call filtering by its extension).
fn bad_value(
    command: &str,
    argv: &[String],
    row: Row,
    index: usize,
    span: usize,
    v: &str,
) -> CmdError {
    let mut fixed: Vec<String> = argv[..index].to_vec();
    let by_ext = matches!(row.value, "lang" | "kind") && !v.contains(['*', '/']);
    if by_ext {
        fixed.extend(["--glob".to_string(), format!("*.{v}")]);
    }
    fixed.extend(argv[index + span..].iter().cloned());
    let detail = if by_ext {
        format!("The same call with files named *.{v}.")
    } else {
        format!("The same call without {} {v}.", row.foreign)
    };
    CmdError::new(
        code::ARGUMENT_INVALID,
        format!(
            "{command} does not take {} {v:?}: {}.",
            row.foreign, row.why
        ),
        Repair::new("retry", detail, shell::aitools(&fixed)),
    )
}

/// `git show REV PATH...` (or `REV -- PATH...`): git's patch of that commit
/// limited to the paths. Answered with the diff of the commit to those paths
/// and, for one path, the file as the commit has it.
fn show_paths(argv: &[String]) -> Option<CmdError> {
    let rest: Vec<&str> = argv
        .iter()
        .skip(2)
        .map(String::as_str)
        .filter(|w| *w != "--")
        .collect();
    let [rev, paths @ ..] = rest.as_slice() else {
        return None;
    };
    if paths.is_empty() || rest.iter().any(|w| w.starts_with('-')) || rev.contains(':') {
        return None;
    }
    let range = format!("{rev}^!");
    let mut diff = vec!["git", "diff", "--ref", &range];
    diff.extend(paths);
    let err = CmdError::new(
        code::ARGUMENT_INVALID,
        format!("git show takes one object: a commit, or REV:PATH for a file as {rev} has it."),
        Repair::new(
            "run-instead",
            format!("What {rev} changed in these paths (git show {rev} -- PATH)."),
            shell::aitools(&diff),
        ),
    );
    Some(match paths {
        [one] => err.with_repair(Repair::new(
            "run-instead",
            format!("The file as {rev} has it."),
            shell::aitools(["git", "show", &format!("{rev}:{one}")]),
        )),
        _ => err,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_parses_and_names_a_real_option_the_command_lacks() {
        let lines = TABLE
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'));
        assert_eq!(lines.clone().count(), rows().count());
        for r in rows() {
            let values = [
                "none", "same", "lang", "kind", "lines", "head", "pattern", "negate",
            ];
            assert!(values.contains(&r.value), "{r:?}");
            assert!(!r.why.is_empty() && !r.why.ends_with('.'), "{r:?}");
            for c in r.commands.split(',') {
                let spec = registry::find(c).unwrap_or_else(|| panic!("no command {c}"));
                let longs = super::super::long_options(c);
                let first = r.ours.split(' ').next().unwrap_or("");
                assert!(
                    first.is_empty() || first == "-" || longs.iter().any(|o| o == first),
                    "{c} has no {first}"
                );
                let own = spec.clap_command().get_arguments().any(|a| {
                    a.get_long().is_some_and(|l| format!("--{l}") == r.foreign)
                        || a.get_short().is_some_and(|s| format!("-{s}") == r.foreign)
                });
                assert!(!own || r.value == "kind", "{} is {c}'s own", r.foreign);
            }
        }
    }

    #[test]
    fn values_map_as_the_other_tools_mean_them() {
        assert_eq!(git_lines("10,20").as_deref(), Some("10:20"));
        assert_eq!(git_lines("10,+5").as_deref(), Some("10:14"));
        assert_eq!(git_lines("10,").as_deref(), Some("10:"));
        assert_eq!(spelled_range("1-5").as_deref(), Some("1:5"));
        assert_eq!(spelled_range("10,20").as_deref(), Some("10:20"));
        assert_eq!(spelled_range("5-1"), None);
        assert_eq!(spelled_range("2:3"), None);
        assert_eq!(git_lines("/re/,+2"), None);
        assert_eq!(head("20").as_deref(), Some("1:20"));
        assert_eq!(head("x"), None);
        for (v, l) in [("py", "python"), ("rs", "rust"), ("js", "javascript")] {
            assert_eq!(language(v).as_deref(), Some(l));
        }
        assert_eq!(language("ts").as_deref(), Some("typescript"));
        assert_eq!(language("rb").as_deref(), Some("ruby"));
        assert_eq!(language("go").as_deref(), Some("go"));
        assert_eq!(language("klingon"), None);
    }
}
