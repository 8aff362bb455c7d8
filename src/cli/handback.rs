//! The calls an answer hands back (`repairs[].command`, `next_commands`) as a
//! caller will run them. A value that begins with `-` (a file named `-rf` in a
//! hostile or unlucky tree, a pattern `-x`) would be read as an option there,
//! so such a call is spelled with its positional values after `--`.

use super::{build_for, command_words, global_options_taking_values};
use crate::protocol::shell;
use crate::registry;

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
    // Whether `w` is an option, and whether the next word is its value.
    let option = |w: &str| -> Option<bool> {
        if let Some(long) = w.strip_prefix("--") {
            let (name, joined) = match long.split_once('=') {
                Some((n, _)) => (n, true),
                None => (long, false),
            };
            let a = args.iter().find(|a| {
                a.get_long() == Some(name)
                    || a.get_all_aliases().is_some_and(|al| al.contains(&name))
            })?;
            return Some(!joined && a.get_action().takes_values());
        }
        let mut c = w.strip_prefix('-')?.chars();
        let (Some(short), None) = (c.next(), c.next()) else {
            return None;
        };
        let a = args.iter().find(|a| a.get_short() == Some(short))?;
        Some(a.get_action().takes_values())
    };
    let globals_valued = global_options_taking_values();
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
                if takes || globals_valued.contains(&w.as_str()) {
                    head.extend(it.next().map(|(_, v)| v.clone()));
                }
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
