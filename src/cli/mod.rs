//! The clap command tree, built from the registry: one subcommand per spec (grouped
//! under its first word for `tx commit`-style names), plus the global options. clap
//! never prints: help and version are ours, and every parse error becomes an envelope.

pub mod errors;
pub mod habits;
pub mod handback;

use crate::protocol::registry::CommandSpec;
use crate::registry;
use clap::{Arg, ArgAction, Command};

use crate::protocol::args::{GlobalArgs, global_options_taking_values};

fn globals(cmd: Command) -> Command {
    <GlobalArgs as clap::Args>::augment_args(cmd)
}

/// The long options a command accepts (its own, `--tx` where it has one, and the
/// global ones), for "did you mean" on an unknown option.
pub fn long_options(command: &str) -> Vec<String> {
    let mut out: Vec<String> = global_options_taking_values()
        .iter()
        .map(|o| o.to_string())
        .collect();
    if let Some(spec) = registry::find(command) {
        out.extend(
            spec.clap_command()
                .get_arguments()
                .filter_map(|a| a.get_long().map(|l| format!("--{l}"))),
        );
    }
    out
}

/// grep's and ripgrep's one-letter flags that aitools does not take.
const SHORT_FLAGS: &str = include_str!("../../data/short_flags.tsv");

/// Rows of `data/short_flags.tsv`: (flag, commands, long option or "", why).
fn short_flag_rows() -> impl Iterator<Item = [&'static str; 4]> {
    SHORT_FLAGS
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut it = l.split('\t');
            Some([it.next()?, it.next()?, it.next()?, it.next()?])
        })
}

/// A one-letter habit `command` does not take: the long option to use instead
/// (`None`: leave the flag out) and why. Only a long option the command has.
pub fn short_flag_habit(command: &str, flag: &str) -> Option<(Option<String>, &'static str)> {
    let longs = long_options(command);
    short_flag_rows().find_map(|[short, cmds, long, why]| {
        let applies = cmds == "*" || cmds.split(',').any(|c| c == command);
        if short != flag || !applies {
            return None;
        }
        if long.is_empty() {
            return Some((None, why));
        }
        let first = long.split(' ').next().unwrap_or(long);
        longs
            .iter()
            .any(|o| o == first)
            .then(|| (Some(long.to_string()), why))
    })
}

/// The whole tree.
pub fn build() -> Command {
    build_from(registry::all())
}

/// The tree for one call: when the command words name a registered command, only
/// that command (under its group) is built, which is most of a call's start-up;
/// otherwise the whole tree, so clap's errors for unknown words stay the same.
pub fn build_for(words: &[String]) -> Command {
    match registry::find(&words.join(" ")) {
        Some(spec) => build_from(std::iter::once(spec)),
        None => build(),
    }
}

fn build_from(specs: impl Iterator<Item = &'static CommandSpec>) -> Command {
    let mut root = globals(
        Command::new("aitools")
            .disable_help_flag(true)
            .disable_version_flag(true)
            .disable_help_subcommand(true)
            .subcommand_required(true)
            .arg_required_else_help(false),
    );
    let mut groups: Vec<(String, Command)> = Vec::new();
    for spec in specs {
        match spec.name.split_once(' ') {
            None => root = root.subcommand(spec.clap_command()),
            Some((group, _)) => {
                let pos = match groups.iter().position(|(g, _)| g == group) {
                    Some(p) => p,
                    None => {
                        groups.push((
                            group.to_string(),
                            Command::new(group)
                                .disable_help_flag(true)
                                .disable_version_flag(true)
                                .disable_help_subcommand(true)
                                .subcommand_required(true),
                        ));
                        groups.len() - 1
                    }
                };
                let (name, cmd) = groups.remove(pos);
                groups.insert(pos, (name, cmd.subcommand(spec.clap_command())));
            }
        }
    }
    for (_, g) in groups {
        root = root.subcommand(g);
    }
    root.arg(
        Arg::new("help_flag")
            .long("help")
            .short('h')
            .action(ArgAction::SetTrue)
            .global(true)
            .hide(true),
    )
}

/// The command words of an argv (`["tx", "commit"]`), skipping global options.
pub fn command_words(argv: &[String]) -> Vec<String> {
    registry::LIST.command_words(argv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_short_flag_row_parses_and_names_real_options() {
        let mut n = 0;
        for line in SHORT_FLAGS
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            assert_eq!(line.split('\t').count(), 4, "{line}");
        }
        for [short, cmds, long, why] in short_flag_rows() {
            n += 1;
            assert!(short.len() == 2 && short.starts_with('-'), "{short}");
            assert!(!why.is_empty(), "{short}");
            if cmds == "*" {
                assert!(long.is_empty(), "{short}: a long option differs by command");
                continue;
            }
            for c in cmds.split(',') {
                assert!(registry::find(c).is_some(), "{short}: no command {c}");
                let got = short_flag_habit(c, short);
                assert!(got.is_some(), "{short}: {c} has no {long}");
                // The flag is not one the command takes already.
                let taken = registry::find(c).is_some_and(|s| {
                    s.clap_command()
                        .get_arguments()
                        .any(|a| a.get_short().is_some_and(|x| format!("-{x}") == short))
                });
                assert!(!taken, "{short} is {c}'s own");
            }
        }
        assert!(n >= 10);
    }
}
