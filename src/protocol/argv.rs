//! Where options stand in an argv: the one reading of argv that the modes and
//! flags outside a command's parser (`--help`/`-h`, `--version`/`-V`, `--brief`,
//! `--output jsonl`, `--confirm`, `--schema-version`) go by. It walks the words
//! the way clap parses them, from the called command's own definition (which
//! options take how many values, the trailing var-arg of `run`), so a value
//! (`edit --old '--help'`) is never taken for a flag, and nothing after `--` is
//! an option.

use crate::protocol::args::{MODE_OPTIONS_TAKING_VALUES, global_args};
use crate::protocol::host::CommandList;

/// One option as it stands in argv.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opt {
    /// Its position in argv.
    pub index: usize,
    /// `--name` or `-c` (a short cluster gives one per letter).
    pub name: String,
    /// Its first value: inline (`--output=jsonl`) or the next word.
    pub value: Option<String>,
    /// Whether the value was inline (the next word is not part of it).
    pub inline: bool,
}

/// How many words an option consumes as values (0 for a flag).
pub fn values_taken(a: &clap::Arg) -> usize {
    if !a.get_action().takes_values() {
        return 0;
    }
    a.get_num_args().map_or(1, |r| r.min_values().max(1))
}

/// The options of `argv` (the words after the program name), in order.
pub fn options(list: CommandList, argv: &[String]) -> Vec<Opt> {
    let words = list.command_words(argv);
    let cmd = list.find(&words.join(" ")).map(|s| s.clap_command());
    let mut args = global_args();
    if let Some(c) = &cmd {
        args.extend(c.get_arguments().cloned());
    }
    let trailing = cmd.as_ref().and_then(|c| {
        c.get_positionals()
            .position(|a| a.is_trailing_var_arg_set())
    });
    let long_takes = |name: &str| {
        args.iter()
            .find(|a| {
                a.get_long()
                    .is_some_and(|l| name.strip_prefix("--") == Some(l))
            })
            .map_or(
                usize::from(MODE_OPTIONS_TAKING_VALUES.contains(&name)),
                values_taken,
            )
    };
    // A letter no argument has: clap stops at it (`find -maxdepth` is `-m`,
    // unknown), so the letters after it are no options (not `-h`, help).
    let short_takes = |c: char| {
        args.iter().find(|a| a.get_short() == Some(c)).map_or(
            if MODE_SHORTS.contains(&c) { 0 } else { UNKNOWN },
            values_taken,
        )
    };
    let mut out = Vec::new();
    let (mut i, mut positionals) = (0, 0);
    while i < argv.len() {
        let a = argv[i].as_str();
        if a == "--" {
            break;
        }
        if a.starts_with("--") {
            let (name, inline) = match a.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (a, None),
            };
            let takes = long_takes(name);
            let after = takes.saturating_sub(usize::from(inline.is_some()));
            let value = match (&inline, takes) {
                (Some(_), _) => inline.clone(),
                (None, 0) => None,
                (None, _) => argv.get(i + 1).cloned(),
            };
            out.push(Opt {
                index: i,
                name: name.to_string(),
                value,
                inline: inline.is_some(),
            });
            i += 1 + after;
            continue;
        }
        if a.len() > 1 && a.starts_with('-') && a.parse::<f64>().is_err() {
            i += 1 + shorts(a, i, argv, &short_takes, &mut out);
            continue;
        }
        // A positional: a command word, a command's argument, or the start of
        // `run`'s argv, after which nothing is an option.
        if positionals >= words.len() && trailing == Some(positionals - words.len()) {
            break;
        }
        positionals += 1;
        i += 1;
    }
    out
}

/// What `takes` answers for a letter no argument has: the cluster ends there.
const UNKNOWN: usize = usize::MAX;

/// The one-letter modes outside a command's parser: `-h` (help), `-V` (version).
const MODE_SHORTS: &[char] = &['h', 'V'];

/// The letters of a short cluster (`-iw`, `-C3`) as options, up to the first one
/// no argument has; how many of the following words the last one consumes.
fn shorts(
    a: &str,
    i: usize,
    argv: &[String],
    takes: &dyn Fn(char) -> usize,
    out: &mut Vec<Opt>,
) -> usize {
    for (k, c) in a.char_indices().skip(1) {
        let n = takes(c);
        if n == UNKNOWN {
            out.push(Opt {
                index: i,
                name: format!("-{c}"),
                value: None,
                inline: false,
            });
            return 0;
        }
        if n == 0 {
            out.push(Opt {
                index: i,
                name: format!("-{c}"),
                value: None,
                inline: false,
            });
            continue;
        }
        let rest = &a[k + c.len_utf8()..];
        let inline = !rest.is_empty();
        out.push(Opt {
            index: i,
            name: format!("-{c}"),
            value: if inline {
                Some(rest.to_string())
            } else {
                argv.get(i + 1).cloned()
            },
            inline,
        });
        return n.saturating_sub(usize::from(inline));
    }
    0
}

/// Whether any of `names` stands as an option in `argv`. Only argv that holds
/// one of them as a word at all is walked (most calls cost one comparison pass).
pub fn has_option(list: CommandList, argv: &[String], names: &[&str]) -> bool {
    let word = |a: &String| {
        let flag = a.split_once('=').map_or(a.as_str(), |(f, _)| f);
        let cluster = a.len() > 2 && a.starts_with('-') && !a.starts_with("--");
        names.contains(&flag)
            || (cluster
                && names
                    .iter()
                    .any(|n| n.len() == 2 && n != &"--" && a.contains(&n[1..])))
    };
    if !argv.iter().any(word) {
        return false;
    }
    options(list, argv)
        .iter()
        .any(|o| names.contains(&o.name.as_str()))
}
