//! The calls an answer hands back (`repairs[].command`, `next_commands`) as a
//! caller will run them. A value that begins with `-` (a file named `-rf` in a
//! hostile or unlucky tree, a pattern `-x`) would be read as an option there,
//! so such a call is spelled with its positional values after `--`.

use super::{build_for, command_words};
use crate::protocol::argv::values_taken;
use crate::protocol::registry::value_kind;
use crate::protocol::shell;
use crate::registry;
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

/// `line` rewritten with its positional values after `--` when, as written, a
/// value would be read as an option; `None` when it parses as it is (or is not
/// an aitools call, or already has a `--`).
pub fn dash_safe(line: &str) -> Option<String> {
    let words = shell::split(line)?;
    let (first, rest) = words.split_first()?;
    // A value spelled as an option (`--help`) is caught by the parse below.
    let dashed = |w: &String| w.starts_with('-') && w != "-";
    if first != "aitools" || rest.iter().any(|w| w == "--") || !rest.iter().any(dashed) {
        return None;
    }
    let names = command_words(rest);
    let parses = |ws: &[String]| {
        let full = std::iter::once("aitools").chain(ws.iter().map(String::as_str));
        build_for(&names).try_get_matches_from(full).is_ok()
    };
    if parses(rest) {
        return None;
    }
    // Values after `--`; then, if that still fails, each word spelled as an
    // option taken for a value in turn (a name `--output=jsonl` that the
    // command's own --output would refuse).
    let tries =
        std::iter::once(None).chain((0..rest.len()).filter(|&i| dashed(&rest[i])).map(Some));
    for as_value in tries.take(8) {
        let fixed = sorted(rest, as_value)?;
        if parses(&fixed) {
            return Some(shell::aitools(&fixed));
        }
    }
    None
}

/// `line` with the caller's `--root` (from `argv`) when it names none: a call
/// handed back acts on the workspace the caller chose, wherever it is run
/// from (without it, one run outside the root would read or write another).
pub fn keep_root(line: &str, argv: &[String]) -> Option<String> {
    let globals = shell::global_options(argv);
    let mut given = globals.iter();
    let mut words: Vec<&str> = Vec::new();
    while let Some(w) = given.next() {
        if w == "--root" {
            words.push(w);
            words.extend(given.next().map(String::as_str));
        } else if w.starts_with("--root=") {
            words.push(w);
        }
    }
    let rest = line.strip_prefix("aitools ")?;
    let has_root = shell::split(line)?
        .iter()
        .take_while(|w| *w != "--")
        .any(|w| w == "--root" || w.starts_with("--root="));
    if words.is_empty() || has_root {
        return None;
    }
    Some(format!("aitools {} {rest}", shell::join(words)))
}

/// What a debug build reports of a handed-back `line` (with `fixed`, what
/// [`dash_safe`] made of it, and `argv`, the caller's words): a call that does
/// not parse, or one re-spelled by taking an option the caller never wrote for
/// a value (`find --name F` becoming `find -- --name F`: a generator's mistake,
/// not a value that only looks like an option).
#[cfg(debug_assertions)]
pub fn debug_report(line: &str, fixed: Option<&str>, argv: &[String]) -> Option<String> {
    let Some(fixed) = fixed else {
        return unparsable(line).then(|| format!("a handed-back call does not parse: {line}"));
    };
    let words = shell::split(fixed)?;
    let after = words.iter().skip_while(|w| *w != "--").skip(1);
    let invented = after
        .into_iter()
        .find(|w| w.starts_with("--") && !argv.contains(w))?;
    Some(format!(
        "a handed-back call took {invented} for a value: {line}"
    ))
}

/// `line` with its path values spelled for a caller standing in `cwd`:
/// answers name a path from the workspace `root`, and a shell resolves a
/// relative path from where the caller stands, so a path the tree has under
/// the root but not below `cwd` is spelled from `cwd` (`../x`, or absolute
/// when `cwd` is outside the root). And `info` of a path that a directory on
/// its way keeps from being looked up names that directory, which it can
/// answer for. `None` when nothing changes.
pub fn from_cwd(line: &str, root: &Path, cwd: &Path) -> Option<String> {
    // From the root only `info` can change: skip the parse for the rest.
    if cwd == root && !line.contains(" info ") {
        return None;
    }
    // A call that parses only with its values after `--` (`read -rf`).
    let safe = dash_safe(line);
    let words = shell::split(safe.as_deref().unwrap_or(line))?;
    let (first, rest) = words.split_first()?;
    if first != "aitools" || line.contains('<') {
        return None;
    }
    let names = command_words(rest);
    let mut cmd = build_for(&names);
    let matches = cmd.try_get_matches_from_mut(words.iter()).ok()?;
    // clap counts a subcommand's indices from its own word.
    let (mut leaf, mut m, mut offset) = (&cmd, &matches, 0);
    for n in &names {
        leaf = leaf.find_subcommand(n)?;
        m = m.subcommand_matches(n)?;
        offset += words[offset..].iter().position(|w| w == n)?;
    }
    let info = names.len() == 1 && names[0] == "info";
    let mut fixed = words.clone();
    for arg in leaf.get_arguments().filter(|a| value_kind(a) == "path") {
        let at = m.indices_of(arg.get_id().as_str()).into_iter().flatten();
        for (i, value) in at.zip(m.get_raw(arg.get_id().as_str()).into_iter().flatten()) {
            // clap does not count a `--` before the value.
            let Some(at) = [offset + i, offset + i + 1]
                .into_iter()
                .find(|&j| fixed.get(j).is_some_and(|w| w.as_str() == value))
            else {
                continue;
            };
            let word = &mut fixed[at];
            let spelled = respell(word, root, cwd);
            let spelled = match (info, spelled) {
                (true, s) => blocked_at(s.as_deref().unwrap_or(word)).or(s),
                (false, s) => s,
            };
            if let Some(s) = spelled {
                *word = s;
            }
        }
    }
    (fixed != words)
        .then(|| shell::aitools(&fixed[1..]))
        .or(safe)
}

/// Whether something is at `p` (a refused look-up counts: it is there for all
/// the caller can tell).
fn there(p: &Path) -> bool {
    !matches!(p.symlink_metadata(), Err(e) if e.kind() == ErrorKind::NotFound)
}

/// `value`, a path from the root that is not there from `cwd`, spelled from `cwd`.
fn respell(value: &str, root: &Path, cwd: &Path) -> Option<String> {
    let v = Path::new(value);
    if value.is_empty() || value == "-" || v.is_absolute() || there(&cwd.join(v)) {
        return None;
    }
    let full = root.join(v);
    if !there(&full) {
        return None;
    }
    let Ok(below) = cwd.strip_prefix(root) else {
        return Some(full.to_string_lossy().into_owned());
    };
    if let Ok(inside) = v.strip_prefix(below) {
        let s = inside.to_string_lossy();
        return Some(if s.is_empty() {
            ".".into()
        } else {
            s.into_owned()
        });
    }
    let up: PathBuf = below.components().map(|_| Component::ParentDir).collect();
    Some(up.join(v).to_string_lossy().into_owned())
}

/// For `info` of `value` whose look-up a directory on its way refuses: the
/// nearest such directory (`info` answers its mode).
fn blocked_at(value: &str) -> Option<String> {
    let denied = |p: &Path| matches!(p.symlink_metadata(), Err(e) if e.kind() == ErrorKind::PermissionDenied);
    let mut p = Path::new(value);
    if !denied(p) {
        return None;
    }
    while let Some(parent) = p.parent().filter(|q| !q.as_os_str().is_empty()) {
        if !denied(parent) {
            return Some(parent.to_string_lossy().into_owned());
        }
        p = parent;
    }
    None
}

/// Whether `line`, an aitools call handed back whole (no `<...>` placeholder
/// for the caller to fill), fails to parse as written. Debug builds alone ask
/// (dispatch's check); a release build would warn of dead code.
#[cfg(debug_assertions)]
pub fn unparsable(line: &str) -> bool {
    if line.contains('<') {
        return false;
    }
    let Some(words) = shell::split(line) else {
        return false;
    };
    let Some(("aitools", rest)) = words.split_first().map(|(f, r)| (f.as_str(), r)) else {
        return false;
    };
    let full = std::iter::once("aitools").chain(rest.iter().map(String::as_str));
    build_for(&command_words(rest))
        .try_get_matches_from(full)
        .is_err()
}

/// The call's words (after `aitools`) as options first and every positional
/// value after one `--`, in their order; a `--` already there is dropped and
/// the words after it are sorted the same way (a caller's `edit -- f --old x`
/// meant `--old` as the option). `None` for an unknown command.
pub fn values_last(words: &[String]) -> Option<Vec<String>> {
    sorted(words, None)
}

/// [`values_last`], with the word at `as_value` (when given) taken for a value.
fn sorted(words: &[String], as_value: Option<usize>) -> Option<Vec<String>> {
    let names = command_words(words);
    let spec = registry::find(&names.join(" "))?;
    let leaf = spec.clap_command();
    let globals = super::globals(clap::Command::new("aitools"));
    let args: Vec<&clap::Arg> = leaf
        .get_arguments()
        .chain(globals.get_arguments())
        .collect();
    // Whether `w` is an option, and how many of the next words are its values
    // (`--between A B` two; `--range=1:2`, `-C3` and flags none).
    let option = |w: &str| -> Option<usize> {
        if let Some(long) = w.strip_prefix("--") {
            let (name, joined) = match long.split_once('=') {
                Some((n, _)) => (n, true),
                None => (long, false),
            };
            let a = args.iter().find(|a| {
                a.get_long() == Some(name)
                    || a.get_all_aliases().is_some_and(|al| al.contains(&name))
            })?;
            return Some(if joined { 0 } else { values_taken(a) });
        }
        let mut c = w.strip_prefix('-')?.chars();
        let short = c.next()?;
        let a = args.iter().find(|a| a.get_short() == Some(short))?;
        Some(if c.next().is_none() {
            values_taken(a)
        } else {
            0
        })
    };
    let (mut head, mut values) = (Vec::new(), Vec::new());
    let mut expected = names.iter().peekable();
    let mut it = words.iter().enumerate().filter(|(_, w)| *w != "--");
    while let Some((i, w)) = it.next() {
        if as_value == Some(i) {
            values.push(w.clone());
            continue;
        }
        if values.is_empty() && expected.peek().is_some_and(|n| *n == w) {
            expected.next();
            head.push(w.clone());
            continue;
        }
        match option(w) {
            Some(takes) => {
                head.push(w.clone());
                head.extend(it.by_ref().take(takes).map(|(_, v)| v.clone()));
            }
            None => values.push(w.clone()),
        }
    }
    head.push("--".to_string());
    head.extend(values);
    Some(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_that_looks_like_options_goes_after_dashes() {
        assert_eq!(
            dash_safe("aitools read -rf").as_deref(),
            Some("aitools read -- -rf")
        );
        assert_eq!(
            dash_safe("aitools read -x.txt --range 5:9").as_deref(),
            Some("aitools read --range 5:9 -- -x.txt")
        );
        assert_eq!(
            dash_safe("aitools search -foo src").as_deref(),
            Some("aitools search -- -foo src")
        );
        assert_eq!(
            dash_safe("aitools search --output=jsonl --fixed").as_deref(),
            Some("aitools search --fixed -- --output=jsonl")
        );
        assert_eq!(
            dash_safe("aitools code defs --help --prefix").as_deref(),
            Some("aitools code defs --prefix -- --help")
        );
    }

    #[test]
    fn calls_that_parse_are_left_as_written() {
        for line in [
            "aitools read a.txt --range 5:9",
            "aitools search -5 src",
            "aitools edit f --old -x --new y",
            "aitools read -- -rf",
            "git status",
        ] {
            assert_eq!(dash_safe(line), None, "{line}");
        }
    }

    #[test]
    #[cfg(debug_assertions)]
    fn a_debug_build_reports_an_option_taken_for_a_value_the_caller_never_gave() {
        let fixed = dash_safe("aitools find --name a.rs");
        assert_eq!(fixed.as_deref(), Some("aitools find -- --name a.rs"));
        let argv: Vec<String> = ["git", "blame", "a.rs"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert!(debug_report("aitools find --name a.rs", fixed.as_deref(), &argv).is_some());
        let argv: Vec<String> = ["read", "--symbol", "--help"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let line = "aitools code defs --help --prefix";
        assert_eq!(debug_report(line, dash_safe(line).as_deref(), &argv), None);
        assert!(debug_report("aitools read", None, &argv).is_some());
    }

    #[test]
    fn the_callers_root_travels_with_every_call_handed_back() {
        let argv: Vec<String> = ["--root", "/w", "read", "a"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            keep_root("aitools find --type file", &argv).as_deref(),
            Some("aitools --root /w find --type file")
        );
        assert_eq!(keep_root("aitools --root /w read b", &argv), None);
        assert_eq!(keep_root("aitools find", &["find".to_string()]), None);
    }

    #[test]
    fn an_option_keeps_as_many_values_as_it_takes() {
        assert_eq!(
            dash_safe("aitools read -x --between a b").as_deref(),
            Some("aitools read --between a b -- -x")
        );
        assert_eq!(
            dash_safe("aitools search -x -C3").as_deref(),
            Some("aitools search -C3 -- -x")
        );
    }

    #[test]
    fn options_written_after_dashes_are_put_back_before_them() {
        let words: Vec<String> = ["edit", "--", "-rf", "--old", "x", "--new", "X"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            values_last(&words).unwrap().join(" "),
            "edit --old x --new X -- -rf"
        );
    }
}
