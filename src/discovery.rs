//! Discovery, part of the composition root: `schema`, the command list of
//! `aitools --help`, `--version`, and the unknown-command repairs.

use crate::handler;
use crate::protocol::correspondence;
use crate::protocol::host::CommandList;
use crate::protocol::invoke::Invoked;
use crate::protocol::registry::{
    CommandSpec, Effects, field, global_options_compact, global_options_full,
};
use crate::protocol::{CmdError, Json, Output, Repair, agent_docs, code, shell};
use crate::workspace::Ctx;
use clap::Args;

#[derive(Args, Debug)]
pub struct SchemaArgs {
    /// Command names as typed, e.g. `read` or `tx commit`.
    #[arg(value_name = "COMMAND", num_args = 0..)]
    pub commands: Vec<String>,
    /// Every command.
    #[arg(long)]
    pub all: bool,
    /// Every description in full (arguments, output fields); the default is compact.
    #[arg(long)]
    pub full: bool,
}

pub const SCHEMA: CommandSpec = CommandSpec {
    name: "schema",
    summary: "Commands, or one command's args",
    description: "With no arguments, list every command as {name, summary}. With command words (a group word followed by its subcommand, e.g. `schema tx commit`), return those commands' detail; a group word alone returns its subcommands' detail; --all returns every command's. The detail is compact ({name, summary, args [{name, short?, values?, type? (none for a flag or an enum), required?, repeatable?, default?, help?}], write_options and limits as names, writes (only when true), full}; in an answer of several commands, an argument an earlier one already described the same way is its bare name, e.g. \"--tx\"); --full gives {name, summary, description, args [{name, type, values?, positional, required, repeatable, default, description}], output_fields [{name, description, type (JSON types, | for a union; any)}], error_codes, writes}.",
    args: <SchemaArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "commands",
            "Array of {name, summary}, or of detail objects (compact, or full with --full).",
        ),
        field(
            "global_options",
            "The options every command accepts (--root, --lock-timeout), as args: in the list and with --full.",
        ),
    ],
    error_codes: &[code::ARGUMENT_INVALID],
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects::NONE,
    run: handler!(SchemaArgs, run_schema),
};

pub const COMMANDS: &[CommandSpec] = &[SCHEMA];

#[derive(serde::Serialize)]
struct SchemaOut {
    commands: Json,
    /// The options every command accepts: in the list and in `--full` answers (a
    /// compact detail stays within its budget; `aitools schema` shows them).
    #[serde(skip_serializing_if = "Option::is_none")]
    global_options: Option<Json>,
}

pub fn run_schema(ctx: &Ctx, args: &SchemaArgs) -> Result<Output, CmdError> {
    let list = ctx
        .host
        .ok_or_else(|| CmdError::internal("schema needs the command list from the dispatcher."))?
        .commands;
    let detail = |s: &CommandSpec| if args.full { s.detail() } else { s.compact() };
    let full_globals = args.full.then(global_options_full);
    if args.all {
        return Ok(Output::ok(&SchemaOut {
            commands: Json::Arr(list.all().map(detail).collect()),
            global_options: full_globals,
        }));
    }
    if args.commands.is_empty() {
        return Ok(Output::ok(&SchemaOut {
            commands: command_list(list),
            global_options: Some(full_globals.unwrap_or_else(global_options_compact)),
        }));
    }
    let mut details = Vec::new();
    let mut i = 0;
    let words = &args.commands;
    while i < words.len() {
        // Accept `tx commit` as two words or one quoted word.
        let two = words.get(i + 1).map(|w| format!("{} {}", words[i], w));
        if let Some(spec) = two.as_deref().and_then(|n| list.find(n)) {
            details.push(detail(spec));
            i += 2;
        } else if let Some(spec) = list.find(&words[i]) {
            details.push(detail(spec));
            i += 1;
        } else if list.is_group(&words[i]) {
            let prefix = format!("{} ", words[i]);
            details.extend(
                list.all()
                    .filter(|s| s.name.starts_with(&prefix))
                    .map(detail),
            );
            i += 1;
        } else {
            return Err(
                unknown_command_error(list, &words[i], &[]).with_first_repair(Repair::new(
                    "schema",
                    "List every command and its summary.",
                    "aitools schema",
                )),
            );
        }
    }
    if !args.full {
        name_shared_args_once(&mut details);
    }
    Ok(Output::ok(&SchemaOut {
        commands: Json::Arr(details),
        global_options: full_globals,
    }))
}

/// Several compact details in one answer: an argument already described, the same
/// way, by an earlier command of the answer (`--tx`, the pattern and scan flags)
/// is named by its bare name, `"--tx"`, instead of its object again.
fn name_shared_args_once(details: &mut [Json]) {
    let mut seen: Vec<Json> = Vec::new();
    for d in details.iter_mut() {
        let Some(Json::Arr(args)) = d.get_mut("args") else {
            continue;
        };
        let mut fresh = Vec::new();
        for a in args.iter_mut() {
            let named = a.get("name").and_then(Json::as_str).map(str::to_string);
            match named {
                Some(n) if n.starts_with('-') && seen.contains(a) => *a = Json::str(n),
                _ => fresh.push(a.clone()),
            }
        }
        seen.extend(fresh);
    }
}

/// `[{name, summary}]` of every command.
pub fn command_list(list: CommandList) -> Json {
    Json::Arr(list.all().map(|s| s.brief()).collect())
}

/// What a group stands for in `aitools --help`, where its subcommands share one
/// line; a group not listed here shows its first subcommand's summary.
const GROUPS: &[(&str, &str)] = &[
    ("code", "Definitions: where, uses"),
    ("feedback", "Report aitools problems"),
    ("tx", "Stage writes, commit as one op"),
    ("nb", "Jupyter notebooks (.ipynb) by cell"),
    ("git", "Read-only git"),
    ("bg", "Programs that outlive the call"),
];

/// Top-level commands (or group words) `aitools --help` shows on one line,
/// `A|B|C  SUMMARY`, like a group's subcommands: their shell habits say what each
/// does, and `aitools schema A` details it. A command in no bundle has its own line.
const BUNDLES: &[(&[&str], &str)] = &[
    (
        &["json", "table"],
        "JSON by pointer (jq); rows of CSV, TSV, JSONL, columns (awk)",
    ),
    (
        &["delete", "move", "copy", "mkdir", "chmod", "link", "touch"],
        "File ops (rm, mv, cp, mkdir -p, chmod, ln -s, touch)",
    ),
    (
        &["transform", "transcode", "split"],
        "Sort, uniq, wrap lines; re-encode; cut a file (iconv, split)",
    ),
    (
        &["history", "undo", "recover", "gc"],
        "Journaled writes: list, undo, recover, prune",
    ),
    (
        &["mktemp", "archive", "snapshot", "sys", "time", "util"],
        "Scratch dir, zip/tar, tree diff, host, clock, codecs",
    ),
];

/// A bundle's words: `a|b|c`, commands and group words alike (a group word's
/// subcommands are one `aitools schema <group>` away; listing them here would
/// spend the --help budget on what few calls need).
fn bundle_words(names: &[&str]) -> String {
    names.join("|")
}

/// `aitools --help`'s list: one line per command, `NAME  SUMMARY` (without its
/// final period); a group's subcommands share one line, `GROUP SUB1|SUB2|...
/// SUMMARY` (`aitools schema <group>` details them), and so do a `BUNDLES` row's
/// commands, so the first answer an agent reads stays small.
pub fn help_list(list: CommandList) -> Json {
    let mut out: Vec<Json> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    let line = |words: String, summary: &str| {
        Json::str(format!("{words}  {}", summary.trim_end_matches('.')))
    };
    for spec in list.all() {
        // AOI discovery commands: consumers find them by the seed's names; `mcp`
        // is started by a host (the `mcp` skill says how), not called.
        let aoi = crate::aoi::commands::COMMANDS
            .iter()
            .any(|c| c.name == spec.name);
        if aoi || spec.name == crate::mcp::SPEC.name {
            continue;
        }
        // A bundle names commands or group words; its line stands where its
        // first member comes in the list.
        let key = spec.name.split_once(' ').map_or(spec.name, |(g, _)| g);
        if let Some((names, summary)) = BUNDLES.iter().find(|(n, _)| n.contains(&key)) {
            let id = names.first().copied().unwrap_or(key);
            if !seen.contains(&id) {
                seen.push(id);
                out.push(line(bundle_words(names), summary));
            }
            continue;
        }
        let Some((group, _)) = spec.name.split_once(' ') else {
            out.push(line(spec.name.to_string(), spec.summary));
            continue;
        };
        if seen.contains(&group) {
            continue;
        }
        seen.push(group);
        let subs: Vec<&CommandSpec> = list
            .all()
            .filter(|s| {
                s.name
                    .strip_prefix(group)
                    .is_some_and(|r| r.starts_with(' '))
            })
            .collect();
        let summary = match GROUPS.iter().find(|(g, _)| *g == group) {
            Some((_, s)) => *s,
            None => subs.first().map(|s| s.summary).unwrap_or(""),
        };
        let words: Vec<&str> = subs
            .iter()
            .filter_map(|s| s.name.split_once(' ').map(|(_, w)| w))
            .collect();
        out.push(line(format!("{group} {}", words.join("|")), summary));
    }
    Json::Arr(out)
}

/// `sed [-i] [-E] 's/PAT/REP/[g]' FILE...` → the `replace` that does it (a dry run
/// first: it shows the diff and the count the real call must guard with).
fn sed_substitution(rest: &[String]) -> Option<CmdError> {
    let mut script: Option<&str> = None;
    let mut files: Vec<String> = Vec::new();
    let mut extended = false;
    for a in rest {
        match a.as_str() {
            "-E" | "-r" => extended = true,
            "-i" | "--in-place" | "-e" => {}
            s if s.starts_with('-') => return None,
            s if script.is_none() => script = Some(s),
            s => files.push(s.to_string()),
        }
    }
    let script = script?;
    let mut chars = script.chars();
    if chars.next()? != 's' {
        return None;
    }
    let delim = chars.next()?;
    if delim.is_alphanumeric() || delim == '\\' {
        return None;
    }
    let parts: Vec<&str> = script[1 + delim.len_utf8()..].split(delim).collect();
    let [pattern, replacement, flags] = parts.as_slice() else {
        return None;
    };
    if pattern.is_empty() || !flags.chars().all(|c| c == 'g') {
        return None;
    }
    // sed's & and \1 are $0 and $1 here.
    let mut rep = String::new();
    let mut it = replacement.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '&' => rep.push_str("${0}"),
            '\\' if it.peek().is_some_and(char::is_ascii_digit) => {
                rep.push_str("${");
                rep.extend(it.next());
                rep.push('}');
            }
            '$' => rep.push_str("$$"),
            c => rep.push(c),
        }
    }
    let pattern = if extended {
        pattern.to_string()
    } else {
        bre_to_ere(pattern)
    };
    let mut words = vec!["replace".to_string(), pattern, rep];
    words.extend(files);
    words.push("--dry-run".to_string());
    Some(
        CmdError::new(
            code::ARGUMENT_INVALID,
            "sed is a shell command, not an aitools command; replace does substitutions.",
            Repair::new(
                "run-instead",
                "The same substitution as a dry run (every match in each file; patterns are Rust regex syntax, not sed's); it reports expect_count for the real call.",
                shell::aitools(&words),
            ),
        )
        .with_repair(Repair::new(
            "schema",
            "Show what replace accepts.",
            "aitools schema replace",
        )),
    )
}

/// sed's basic regex to the extended form Rust's regex reads: `\(` groups, `(` is
/// literal; the same for `{}` `+` `?` `|`.
fn bre_to_ere(bre: &str) -> String {
    let mut out = String::new();
    let mut it = bre.chars();
    while let Some(c) = it.next() {
        match c {
            '\\' => match it.next() {
                Some(n @ ('(' | ')' | '{' | '}' | '+' | '?' | '|')) => out.push(n),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push('\\'),
            },
            '(' | ')' | '{' | '}' | '+' | '?' | '|' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// `{name, summary}` of a group's subcommands (`aitools tx --help`).
pub fn group_list(list: CommandList, group: &str) -> Json {
    let prefix = format!("{group} ");
    Json::Arr(
        list.all()
            .filter(|s| s.name.starts_with(&prefix))
            .map(|s| s.brief())
            .collect(),
    )
}

/// Edit distance, for near-miss candidates.
pub fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// A call without command words: `--version`/`-V`, `--brief`, or an error naming
/// what stands in the command's place (an unknown option, or nothing).
pub fn no_command(list: CommandList, argv: &[String]) -> Invoked {
    let opts = crate::protocol::argv::options(list, argv);
    let named = |n: &[&str]| opts.iter().any(|o| n.contains(&o.name.as_str()));
    if named(&["--version", "-V"]) {
        let mut v = Json::obj();
        v.push("name", Json::str("aitools"));
        v.push("version", Json::str(crate::protocol::host::VERSION));
        v.push("commit", Json::str(crate::protocol::host::COMMIT));
        return answer("version", v);
    }
    if named(&["--brief"]) {
        let mut v = Json::obj();
        v.push("brief", Json::str(agent_docs::BRIEF));
        return answer("brief", v);
    }
    let globals = crate::protocol::args::global_options_taking_values();
    let unknown = opts.iter().find(|o| !globals.contains(&o.name.as_str()));
    let err = match unknown {
        Some(o) => unknown_root_option(list, &o.name),
        None => CmdError::new(
            code::ARGUMENT_INVALID,
            "No command given.",
            Repair::new(
                "help",
                "List the commands, rules and skills.",
                "aitools --help",
            ),
        ),
    };
    Invoked::new("aitools", Err(err))
}

/// An option aitools does not take before a command (`--bogus`); `--schema`
/// and `--capabilities` are commands, and the repair runs the command.
fn unknown_root_option(list: CommandList, name: &str) -> CmdError {
    let word = name.trim_start_matches('-');
    let repair = match list.find(word) {
        Some(spec) => Repair::new(
            "run",
            format!("`{word}` is a command, not an option."),
            format!("aitools {}", spec.name),
        ),
        None => Repair::new(
            "help",
            "List the commands and the options every command takes.",
            "aitools --help",
        ),
    };
    CmdError::new(
        code::ARGUMENT_INVALID,
        format!(
            "aitools does not take {}: give a command first (aitools <command> [options]).",
            crate::protocol::shell::quote(name)
        ),
        repair,
    )
}

/// `aitools --help` (the brief, commands, rules, skills and the feedback line) or
/// `aitools <cmd> --help` (its schema detail).
pub fn help(list: CommandList, words: &[String]) -> Invoked {
    if words.is_empty() {
        let mut v = Json::obj();
        v.push("help", Json::str(agent_docs::BRIEF));
        v.push("commands", help_list(list));
        v.push(
            "globals",
            Json::str(crate::protocol::registry::global_options_line()),
        );
        v.push("rules", agent_docs::rules_json());
        v.push("skills", agent_docs::skills_json());
        v.push("feedback", Json::str(agent_docs::FEEDBACK_LINE));
        return answer("help", v);
    }
    let name = words.join(" ");
    if let Some(spec) = list.find(&name) {
        // The compact schema detail inside the envelope every call prints.
        return answer("help", spec.compact());
    }
    if words.len() == 1 && list.is_group(&name) {
        // `aitools tx --help`: the group's subcommands, as `schema tx` lists them.
        let mut v = Json::obj();
        v.push("name", Json::str(name.clone()));
        v.push("commands", group_list(list, &name));
        return answer("help", v);
    }
    let err = unknown_command_error(list, &words[0], &words[1..]);
    Invoked::new("aitools", Err(err))
}

fn answer(command: &str, v: Json) -> Invoked {
    Invoked::new(command, Ok(Output::from_json(v, false)))
}

/// The error for a first word that names no command, in the spec's order: a bare
/// group, a group's subcommand typed alone, a shell command, anything else.
pub fn unknown_command_error(list: CommandList, word: &str, rest: &[String]) -> CmdError {
    // `aitools help read` is what a person types; the flag form is ours.
    if word == "help" {
        return help_word_error(list, rest);
    }
    if list.is_group(word) {
        return bare_group_error(list, word);
    }
    if let Some(err) = subcommand_alone_error(list, word, rest) {
        return err;
    }
    if let Some(err) = shell_command_error(list, word, rest) {
        return err;
    }
    near_miss_error(list, word)
}

/// `aitools help [WORDS]`: help is `--help`; `help nosuch` is about the unknown word.
fn help_word_error(list: CommandList, rest: &[String]) -> CmdError {
    if let Some(first) = rest.first() {
        let known = list.is_group(first)
            || list.find(first).is_some()
            || (rest.len() > 1 && list.find(&rest[..2].join(" ")).is_some());
        if !known {
            return unknown_command_error(list, first, &rest[1..]);
        }
    }
    let mut words: Vec<String> = rest.to_vec();
    words.push("--help".to_string());
    CmdError::new(
        code::ARGUMENT_INVALID,
        "help is a flag, not a command: use --help.",
        Repair::new(
            "run-instead",
            "Help is --help, after a command name or alone.",
            shell::aitools(&words),
        ),
    )
}

/// A group word without its subcommand (`aitools tx`).
fn bare_group_error(list: CommandList, word: &str) -> CmdError {
    let subs: Vec<&str> = list
        .all()
        .filter_map(|s| s.name.strip_prefix(&format!("{word} ")))
        .collect();
    CmdError::new(
        code::ARGUMENT_INVALID,
        format!("{word} requires a subcommand: one of {}.", subs.join(", ")),
        Repair::new(
            "schema",
            format!("Show the {word} subcommands and their arguments."),
            format!("aitools schema {word}"),
        ),
    )
}

/// A group's subcommand typed alone (`aitools commit`): one repair per group that has it.
fn subcommand_alone_error(list: CommandList, word: &str, rest: &[String]) -> Option<CmdError> {
    let mut err: Option<CmdError> = None;
    let grouped = list
        .all()
        .filter(|s| s.name.split_once(' ').is_some_and(|(_, sub)| sub == word));
    for spec in grouped {
        let mut words: Vec<String> = spec.name.split(' ').map(str::to_string).collect();
        words.extend(rest.iter().cloned());
        let repair = Repair::new(
            "run-instead",
            format!(
                "{word} is a subcommand of {}.",
                spec.name.split(' ').next().unwrap_or("")
            ),
            shell::aitools(&words),
        );
        err = Some(match err {
            None => CmdError::new(
                code::ARGUMENT_INVALID,
                format!("Unknown command {word}; it is a subcommand of a group."),
                repair,
            ),
            Some(e) => e.with_repair(repair),
        });
    }
    err
}

/// A shell command with an aitools counterpart (`grep`, `sed 's/a/b/' f`).
fn shell_command_error(list: CommandList, word: &str, rest: &[String]) -> Option<CmdError> {
    // A row whose aitools command is not registered (yet) would send the agent in a
    // loop (`find` → "use aitools find"); fall through to the generic repair.
    let registered = |row: &correspondence::Correspondence| {
        let words: Vec<&str> = row.command.split(' ').skip(1).collect();
        (1..=words.len().min(2)).any(|n| list.find(&words[..n].join(" ")).is_some())
    };
    if word == "sed"
        && let Some(err) = sed_substitution(rest)
    {
        return Some(err);
    }
    let row = correspondence::lookup(word).filter(registered)?;
    Some(
        CmdError::new(
            code::ARGUMENT_INVALID,
            format!(
                "{word} is a shell command, not an aitools command; use {} instead.",
                row.command
            ),
            Repair::new("run-instead", row.why, row.command_for(rest)),
        )
        .with_repair(Repair::new(
            "schema",
            "List every command.",
            "aitools schema",
        )),
    )
}

/// Anything else: the schema list, and the commands within two edits as candidates.
fn near_miss_error(list: CommandList, word: &str) -> CmdError {
    let mut near: Vec<(usize, &str)> = list
        .all()
        .map(|s| (distance(word, s.name), s.name))
        .filter(|(d, _)| *d <= 2)
        .collect();
    near.sort();
    let err = CmdError::new(
        code::ARGUMENT_INVALID,
        format!("Unknown command {word}."),
        Repair::new(
            "schema",
            "List every command and its summary.",
            "aitools schema",
        ),
    );
    if near.is_empty() {
        err
    } else {
        err.with_candidates(Json::Arr(
            near.into_iter().map(|(_, n)| Json::str(n)).collect(),
        ))
    }
}
