//! `feedback create|list|show|transition`: the loop by which agents report problems
//! with aitools itself. Entries are files in a directory that is committed with the
//! aitools source, so every message is redacted before it is stored.

use super::feedback_store::{self as fs, Context, Entry, STATUSES, TYPES};
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Output, Repair, code, redact, shell, time};
use crate::workspace::Ctx;
use clap::Args;
use serde::Serialize;

/// The longest message stored, in characters: feedback is a report, not a log dump.
const MAX_MESSAGE_CHARS: usize = 16 * 1024;

#[derive(Args, Debug)]
pub struct CreateArgs {
    /// bug (aitools did something wrong), requirement (a missing command or flag), suggestion, or bad-output (an answer or error that was wrong or unusable).
    #[arg(long = "type", value_name = "TYPE", value_parser = TYPES.to_vec())]
    pub kind: String,
    /// What you ran, what you expected, what you got. Secrets are masked before it is stored.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub message: String,
    /// The aitools command the problem is about.
    #[arg(long = "context-command", value_name = "CMD")]
    pub context_command: Option<String>,
    /// That command's exit code.
    #[arg(long = "exit-code", value_name = "N")]
    pub exit_code: Option<u8>,
}

#[derive(Args, Debug)]
pub struct ListArgs {
    /// Only entries of this type.
    #[arg(long = "type", value_name = "TYPE", value_parser = TYPES.to_vec())]
    pub kind: Option<String>,
    /// Only entries in this status.
    #[arg(long, value_name = "STATUS", value_parser = STATUSES.to_vec())]
    pub status: Option<String>,
    /// Entries returned, newest first.
    #[arg(long, value_name = "N", default_value = "20")]
    pub limit: u64,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The entry's id, as feedback list shows it (001; 1 works too).
    #[arg(value_name = "ID")]
    pub id: String,
}

#[derive(Args, Debug)]
pub struct TransitionArgs {
    /// The entry's id (001; 1 works too).
    #[arg(value_name = "ID")]
    pub id: String,
    /// The new status. open goes to in-progress, resolved or closed; in-progress to open, resolved or closed; resolved to closed or back to open; closed only back to open.
    #[arg(long, value_name = "STATUS", value_parser = STATUSES.to_vec())]
    pub status: String,
}

const ENTRY: &str = "The entry: {id, type, status, message, context{version, command, exit_code}, created_at, updated_at}.";
const DIR: &str = "The feedback directory used: $AITOOLS_FEEDBACK_DIR, else the aitools source checkout's feedback/, else <state home>/feedback.";

pub const CREATE: CommandSpec = CommandSpec {
    name: "feedback create",
    summary: "File a problem with aitools itself.",
    description: "Writes <dir>/<id>.json with status open; the id is the next zero-padded number (001, 002, ...), taken under a lock on the directory, and the file is written to a temp name and renamed, so concurrent agents never share an id or see half a file. Known secret formats in the message and the context command are masked before they are stored.",
    args: <CreateArgs as clap::Args>::augment_args,
    output_fields: &[
        field("id", "The new entry's id."),
        field("path", "The entry's file."),
        field("dir", DIR),
        field("entry", ENTRY),
    ],
    error_codes: &[code::ARGUMENT_INVALID, code::BUSY, code::IO],
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects {
        additive: true,
        ..Effects::SIDE
    },
    run: handler!(CreateArgs, create),
};

pub const LIST: CommandSpec = CommandSpec {
    name: "feedback list",
    summary: "List feedback entries, newest first.",
    description: "Entries whose file does not parse are listed in skipped rather than failing the list.",
    args: <ListArgs as clap::Args>::augment_args,
    output_fields: &[
        field("dir", DIR),
        field(
            "items",
            "Entries, newest first, each as feedback show gives it.",
        ),
        field("total", "Entries matching the filters, before --limit."),
        field(
            "truncated",
            "True when --limit cut the list (status partial, exit 3).",
        ),
        field(
            "skipped",
            "[{path, reason}] of files that are not valid entries; omitted when none.",
        ),
        field(
            "next_commands",
            "The command listing every match, when cut.",
        ),
    ],
    error_codes: &[code::ARGUMENT_INVALID, code::IO],
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects::NONE,
    run: handler!(ListArgs, list),
};

pub const SHOW: CommandSpec = CommandSpec {
    name: "feedback show",
    summary: "Show one feedback entry.",
    description: "The id as feedback list or create gave it; 7 and 007 name the same entry.",
    args: <ShowArgs as clap::Args>::augment_args,
    output_fields: &[
        field("dir", DIR),
        field("path", "The entry's file."),
        field("entry", ENTRY),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::NOT_FOUND,
        code::SYNTAX_ERROR,
        code::IO,
    ],
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects::NONE,
    run: handler!(ShowArgs, show),
};

pub const TRANSITION: CommandSpec = CommandSpec {
    name: "feedback transition",
    summary: "Change a feedback entry's status.",
    description: "Rewrites the entry with the new status and updated_at, atomically and under the directory lock. A move the status rules do not allow, or to the status the entry already has, is argument.invalid with the moves that are allowed.",
    args: <TransitionArgs as clap::Args>::augment_args,
    output_fields: &[
        field("dir", DIR),
        field("path", "The entry's file."),
        field("previous_status", "The status before the move."),
        field("entry", ENTRY),
    ],
    error_codes: &[
        code::ARGUMENT_INVALID,
        code::NOT_FOUND,
        code::SYNTAX_ERROR,
        code::BUSY,
        code::IO,
    ],
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects::SIDE,
    run: handler!(TransitionArgs, transition),
};

fn now() -> String {
    time::iso8601(time::now().0)
}

fn masked(s: &str) -> String {
    redact::mask_str(s)
        .map(|(m, _)| m)
        .unwrap_or_else(|| s.to_string())
}

#[derive(Serialize)]
struct CreateOut {
    id: String,
    path: String,
    dir: String,
    entry: Entry,
}

pub fn create(ctx: &Ctx, args: &CreateArgs) -> Result<Output, CmdError> {
    let command = "feedback create";
    if args.message.trim().is_empty() {
        return Err(CmdError::new(
            code::ARGUMENT_INVALID,
            "--message is empty; say what you ran, what you expected and what you got.",
            Repair::new(
                "describe",
                "File the entry with a message.",
                shell::aitools([
                    "feedback",
                    "create",
                    "--type",
                    &args.kind,
                    "--message",
                    "<what you ran; what you expected; what you got>",
                ]),
            ),
        ));
    }
    let chars = args.message.chars().count();
    if chars > MAX_MESSAGE_CHARS {
        return Err(CmdError::new(
            code::ARGUMENT_INVALID,
            format!(
                "--message has {chars} characters, over the {MAX_MESSAGE_CHARS} a feedback entry keeps; describe the problem, and quote only the lines that show it."
            ),
            Repair::new(
                "shorten",
                "File a shorter message.",
                shell::aitools([
                    "feedback",
                    "create",
                    "--type",
                    &args.kind,
                    "--message",
                    "<a shorter description>",
                ]),
            ),
        ));
    }
    let dir = fs::dir(&ctx.cwd);
    let _lock = fs::lock(command, &dir, ctx.lock_timeout)?;
    let next = fs::ids(command, &dir)?.last().map_or(1, |n| n + 1);
    let stamp = now();
    let entry = Entry {
        id: format!("{next:03}"),
        kind: args.kind.clone(),
        status: "open".to_string(),
        message: masked(&args.message),
        context: Context {
            version: env!("CARGO_PKG_VERSION").to_string(),
            command: args.context_command.as_deref().map(masked),
            exit_code: args.exit_code.map(i64::from),
        },
        created_at: stamp.clone(),
        updated_at: stamp,
    };
    let path = fs::store(command, &dir, &entry)?;
    Ok(Output::ok(&CreateOut {
        id: entry.id.clone(),
        path: path.to_string_lossy().to_string(),
        dir: dir.to_string_lossy().to_string(),
        entry,
    }))
}

#[derive(Serialize)]
struct Skipped {
    path: String,
    reason: String,
}

#[derive(Serialize)]
struct ListOut {
    dir: String,
    items: Vec<Entry>,
    total: usize,
    truncated: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    skipped: Vec<Skipped>,
    next_commands: Vec<String>,
}

pub fn list(ctx: &Ctx, args: &ListArgs) -> Result<Output, CmdError> {
    let command = "feedback list";
    let dir = fs::dir(&ctx.cwd);
    let mut matching = Vec::new();
    let mut skipped = Vec::new();
    for n in fs::ids(command, &dir)?.into_iter().rev() {
        let id = format!("{n:03}");
        match fs::load(command, &dir, &id) {
            Ok(Some(e)) => {
                let type_ok = args.kind.as_ref().is_none_or(|k| *k == e.kind);
                let status_ok = args.status.as_ref().is_none_or(|s| *s == e.status);
                if type_ok && status_ok {
                    matching.push(e);
                }
            }
            Ok(None) => {}
            Err(err) => skipped.push(Skipped {
                path: fs::path_of(&dir, &id).to_string_lossy().to_string(),
                reason: err.message.clone(),
            }),
        }
    }
    let total = matching.len();
    let limit = usize::try_from(args.limit).unwrap_or(usize::MAX);
    let truncated = total > limit;
    matching.truncate(limit);
    let mut next_commands = Vec::new();
    if truncated {
        let mut words = vec!["feedback".to_string(), "list".to_string()];
        if let Some(k) = &args.kind {
            words.extend(["--type".to_string(), k.clone()]);
        }
        if let Some(s) = &args.status {
            words.extend(["--status".to_string(), s.clone()]);
        }
        words.extend(["--limit".to_string(), total.to_string()]);
        next_commands.push(shell::aitools(&words));
    }
    Ok(Output::cut(
        &ListOut {
            dir: dir.to_string_lossy().to_string(),
            items: matching,
            total,
            truncated,
            skipped,
            next_commands,
        },
        truncated,
    ))
}

#[derive(Serialize)]
struct ShowOut {
    dir: String,
    path: String,
    entry: Entry,
}

fn load_existing(command: &str, dir: &std::path::Path, raw: &str) -> Result<Entry, CmdError> {
    let id = fs::normalize_id(command, raw)?;
    match fs::load(command, dir, &id)? {
        Some(e) => Ok(e),
        None => Err(fs::not_found(dir, &id, &fs::ids(command, dir)?)),
    }
}

pub fn show(ctx: &Ctx, args: &ShowArgs) -> Result<Output, CmdError> {
    let dir = fs::dir(&ctx.cwd);
    let entry = load_existing("feedback show", &dir, &args.id)?;
    Ok(Output::ok(&ShowOut {
        path: fs::path_of(&dir, &entry.id).to_string_lossy().to_string(),
        dir: dir.to_string_lossy().to_string(),
        entry,
    }))
}

/// The statuses an entry in `from` may move to.
pub fn allowed_moves(from: &str) -> &'static [&'static str] {
    match from {
        "open" => &["in-progress", "resolved", "closed"],
        "in-progress" => &["open", "resolved", "closed"],
        "resolved" => &["open", "closed"],
        "closed" => &["open"],
        // A hand-edited status: let it be put right.
        _ => &["open", "in-progress", "resolved", "closed"],
    }
}

#[derive(Serialize)]
struct TransitionOut {
    dir: String,
    path: String,
    previous_status: String,
    entry: Entry,
}

pub fn transition(ctx: &Ctx, args: &TransitionArgs) -> Result<Output, CmdError> {
    let command = "feedback transition";
    let dir = fs::dir(&ctx.cwd);
    let id = fs::normalize_id(command, &args.id)?;
    let _lock = fs::lock(command, &dir, ctx.lock_timeout)?;
    let mut entry = load_existing(command, &dir, &id)?;
    let allowed = allowed_moves(&entry.status);
    if !allowed.contains(&args.status.as_str()) {
        let message = if entry.status == args.status {
            format!("Feedback {id} is already {}.", entry.status)
        } else {
            format!(
                "Feedback {id} is {} and cannot move to {}; it can move to {}.",
                entry.status,
                args.status,
                allowed.join(", ")
            )
        };
        let mut err = CmdError::new(
            code::ARGUMENT_INVALID,
            message,
            Repair::new(
                "show",
                "See the entry and its current status.",
                shell::aitools(["feedback", "show", &id]),
            ),
        );
        for to in allowed {
            err = err.with_repair(Repair::new(
                "transition",
                format!("Move it to {to}."),
                shell::aitools(["feedback", "transition", &id, "--status", to]),
            ));
        }
        return Err(err);
    }
    let previous_status = std::mem::replace(&mut entry.status, args.status.clone());
    entry.updated_at = now();
    let path = fs::store(command, &dir, &entry)?;
    Ok(Output::ok(&TransitionOut {
        dir: dir.to_string_lossy().to_string(),
        path: path.to_string_lossy().to_string(),
        previous_status,
        entry,
    }))
}
