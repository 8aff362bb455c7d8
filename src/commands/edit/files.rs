//! File and directory operations: `delete`, `move`, `copy`, `mkdir`, `chmod`,
//! `link`, `touch`. Each validates under the workspace lock and hands its changes
//! to the store's write protocol.

use super::common;
use crate::handler;
use crate::protocol::args::{DryRun, Guard};
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell, time, values};
use crate::store::files::Kind;
use crate::store::guard::{self, ExpectHash};
use crate::store::write::{self, Change, WriteRequest};
use crate::workspace::boundary::Final;
use crate::workspace::candidates::{self, Offer};
use crate::workspace::{Ctx, boundary, paths};
use clap::Args;
use std::path::{Path, PathBuf};

mod tree_copy;
use tree_copy::TreeCopy;

const ERRORS: &[&str] = crate::write_error_codes![];

fn opts(ctx: &Ctx, dry_run: bool) -> WriteRequest {
    WriteRequest::new(ctx).dry_run(dry_run)
}

fn not_found(ctx: &Ctx, arg: &str, abs: &Path) -> CmdError {
    candidates::not_found(ctx, arg, abs, Offer::Look).into()
}

/// Checks an optional guard on `arg` (bare hash when it is the first target).
fn guard_path(
    ctx: &Ctx,
    expect: &ExpectHash,
    arg: &str,
    abs: &Path,
    shown: &str,
    first: bool,
) -> Result<(), CmdError> {
    if let Some(h) = expect.for_target(arg, shown, first) {
        let now = ctx.files().current_hash(abs)?;
        guard::check_hash(shown, h, now.as_deref())?;
    }
    Ok(())
}

/// How output names an entry itself: its directory resolved, its last component
/// kept (`display_path` would name what a symlink leads to).
fn entry_display(ctx: &Ctx, abs: &Path) -> String {
    let norm = paths::normalize(abs);
    match (norm.parent(), norm.file_name()) {
        (Some(dir), Some(name)) => {
            let dir = ctx.display_path(dir);
            let name = name.to_string_lossy();
            if dir.is_empty() || dir == "." {
                name.into_owned()
            } else {
                format!("{dir}/{name}")
            }
        }
        _ => ctx.display_path(abs),
    }
}

fn exists_error(shown: &str, detail: &str, command: String) -> CmdError {
    CmdError::new(
        code::EXISTS,
        format!("{shown} already exists."),
        Repair::new("overwrite", detail, command),
    )
}

// ---------------------------------------------------------------- delete

#[derive(Args, Debug)]
pub struct DeleteArgs {
    /// The file, symlink or empty directory to delete.
    #[arg(value_name = "PATH")]
    pub path: String,
    #[command(flatten)]
    pub guard: Guard,
}

pub const DELETE: CommandSpec = CommandSpec {
    name: "delete",
    summary: "Delete a file, symlink or empty dir (rm).",
    description: "A symlink is removed, never what it leads to. Journaled: undo puts the file back.",
    args: <DeleteArgs as clap::Args>::augment_args,
    output_fields: write::WRITE_FIELDS,
    error_codes: ERRORS,
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects {
        destructive: true,
        ..Effects::NONE
    },
    run: handler!(DeleteArgs, delete),
};

pub fn delete(ctx: &Ctx, a: &DeleteArgs) -> Result<Output, CmdError> {
    let expect = guard::parse_expect_hash("delete", &a.guard.expect_hash)?;
    let abs = ctx.write_path_arg(&a.path, Final::Entry)?;
    let done = write::submit(ctx, &opts(ctx, a.guard.dry.dry_run), || {
        let shown = ctx.display_path(&abs);
        if !ctx.files().exists(&abs)? {
            return Err(not_found(ctx, &a.path, &abs));
        }
        guard_path(ctx, &expect, &a.path, &abs, &shown, true)?;
        Ok(vec![Change::Delete { path: abs.clone() }])
    })?;
    Ok(done.into_output(vec![]))
}

// ---------------------------------------------------------------- move

#[derive(Args, Debug)]
pub struct MoveArgs {
    /// The file or directory to move.
    #[arg(value_name = "PATH")]
    pub src: String,
    /// The new path.
    #[arg(value_name = "PATH")]
    pub dst: String,
    /// Replace an existing destination file (needs --expect-hash dst=hash).
    #[arg(long)]
    pub overwrite: bool,
    #[command(flatten)]
    pub guard: Guard,
}

pub const MOVE: CommandSpec = CommandSpec {
    name: "move",
    summary: "Move or rename (mv).",
    description: "Missing parent directories of the destination are created. A destination ending in '/' is a directory: an existing one receives the source under its own name (as mv does), a missing one or a file is refused. An existing destination file is replaced only with --overwrite and its hash.",
    args: <MoveArgs as clap::Args>::augment_args,
    output_fields: write::WRITE_FIELDS,
    error_codes: ERRORS,
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(MoveArgs, mv),
};

/// Checks the destination of a move or copy: free, or a file replaced with its hash.
fn check_destination(
    ctx: &Ctx,
    command: &str,
    expect: &ExpectHash,
    dst_arg: &str,
    dst: &Path,
    overwrite: bool,
) -> Result<(), CmdError> {
    let shown = ctx.display_path(dst);
    let meta = ctx.files().stat(dst, false)?;
    if meta.kind == Kind::Missing {
        return Ok(());
    }
    if meta.kind == Kind::Dir {
        return Err(CmdError::new(
            code::EXISTS,
            format!("{shown} is an existing directory; {command} never merges into one."),
            Repair::new(
                "rename",
                "Name the destination in full, including the new name.",
                shell::aitools(["find", "*", &shown, "--depth", "1"]),
            ),
        ));
    }
    let now = ctx.files().current_hash(dst)?;
    if !overwrite {
        let words = shell::rerun(
            &ctx.argv,
            &[],
            &[],
            &[
                "--overwrite".into(),
                "--expect-hash".into(),
                format!("{dst_arg}={}", now.clone().unwrap_or_default()),
            ],
        );
        return Err(exists_error(
            &shown,
            "Replace it, guarded by the hash it has now.",
            shell::aitools(&words),
        ));
    }
    match expect.for_target(dst_arg, &shown, true) {
        Some(h) => Ok(guard::check_hash(&shown, h, now.as_deref())?),
        None => Err(guard::missing_hash(command, &shown, "--overwrite").into()),
    }
}

/// The destination argument of a move or copy, with `dir/` taken into that
/// directory; a refused `dir/` answers the boundary refusal first when there is
/// one (the workspace root as `./` is a directory to move into, not a target).
fn dir_destination(
    ctx: &Ctx,
    command: &str,
    src: &str,
    dst: &str,
    last: Final,
) -> Result<String, CmdError> {
    match common::into_dir(ctx, command, src, dst) {
        Ok(Some(inside)) => Ok(inside),
        Ok(None) => Ok(dst.to_string()),
        Err(e) => {
            ctx.write_path_arg(dst, last)?;
            Err(e)
        }
    }
}

pub fn mv(ctx: &Ctx, a: &MoveArgs) -> Result<Output, CmdError> {
    let expect = guard::parse_expect_hash("move", &a.guard.expect_hash)?;
    let src = ctx.write_path_arg(&a.src, Final::Entry)?;
    let dst_arg = dir_destination(ctx, "move", &a.src, &a.dst, Final::Entry)?;
    let dst = ctx.write_path_arg(&dst_arg, Final::Entry)?;
    let done = write::submit(ctx, &opts(ctx, a.guard.dry.dry_run), || {
        if !ctx.files().exists(&src)? {
            return Err(not_found(ctx, &a.src, &src));
        }
        let shown = ctx.display_path(&src);
        guard_path(ctx, &expect, &a.src, &src, &shown, false)?;
        if paths::real_path(ctx.dirs(), &src) != paths::real_path(ctx.dirs(), &dst) {
            check_destination(ctx, "move", &expect, &dst_arg, &dst, a.overwrite)?;
        }
        Ok(vec![Change::Move {
            from: src.clone(),
            to: dst.clone(),
        }])
    })?;
    Ok(done.into_output(vec![]))
}

// ---------------------------------------------------------------- copy

#[derive(Args, Debug)]
pub struct CopyArgs {
    /// The file or directory to copy.
    #[arg(value_name = "PATH")]
    pub src: String,
    /// The path of the copy.
    #[arg(value_name = "PATH")]
    pub dst: String,
    /// Replace an existing destination file (needs --expect-hash dst=hash).
    #[arg(long)]
    pub overwrite: bool,
    /// Copy a directory tree.
    #[arg(long)]
    pub recursive: bool,
    /// Largest total size copied.
    #[arg(long, value_name = "SIZE", default_value = "1GiB")]
    pub max_bytes: String,
    #[command(flatten)]
    pub guard: Guard,
}

pub const COPY: CommandSpec = CommandSpec {
    name: "copy",
    summary: "Copy a file or directory (cp).",
    description: "A destination ending in '/' is a directory: an existing one receives the copy under the source's name (as cp does), a missing one or a file is refused. --recursive copies everything, ignore rules included, into a destination that does not exist yet; symlinks leading outside the workspace are skipped and listed. Modes are kept.",
    args: <CopyArgs as clap::Args>::augment_args,
    output_fields: &[
        write::FIELD_CHANGES,
        write::FIELD_OP_ID,
        write::FIELD_DRY_RUN,
        field("files", "Files copied."),
        field("skipped", "[{path,reason}] entries not copied."),
    ],
    error_codes: crate::write_error_codes![code::TOO_LARGE],
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(CopyArgs, copy),
};

#[derive(serde::Serialize)]
struct Skipped {
    path: String,
    reason: &'static str,
}

/// `copy`: a file (read as named, links followed), or with `--recursive` a
/// tree, whose files are read at the real paths its listing gives, never
/// through a symlink swapped in since (`Files::load`; a link listed as one that
/// leads out is skipped, not followed).
pub fn copy(ctx: &Ctx, a: &CopyArgs) -> Result<Output, CmdError> {
    let expect = guard::parse_expect_hash("copy", &a.guard.expect_hash)?;
    let max = values::parse_size(&a.max_bytes)
        .map_err(|m| CmdError::invalid_argument("copy", format!("--max-bytes: {m}")))?;
    let src = ctx.path_arg(&a.src)?;
    let dst_arg = dir_destination(ctx, "copy", &a.src, &a.dst, Final::Follow)?;
    let dst = ctx.write_path_arg(&dst_arg, Final::Follow)?;
    let mut files = 0u64;
    let mut skipped: Vec<Skipped> = Vec::new();
    let done = write::submit(ctx, &opts(ctx, a.guard.dry.dry_run), || {
        let meta = ctx.files().stat(&src, true)?;
        if meta.kind == Kind::Missing {
            return Err(not_found(ctx, &a.src, &src));
        }
        if meta.kind == Kind::File {
            check_destination(ctx, "copy", &expect, &dst_arg, &dst, a.overwrite)?;
            if meta.len > max {
                return Err(too_large(meta.len, max));
            }
            let snap = ctx.files().load_follow(&src)?;
            files = 1;
            return Ok(vec![Change::Put {
                path: dst.clone(),
                bytes: snap.bytes.clone(),
                mode: Some(snap.mode & 0o7777),
            }]);
        }
        let real_src = tree_source(ctx, a, meta.kind, &src, &dst)?;
        let mut tree = TreeCopy {
            ctx,
            max,
            changes: vec![Change::Mkdir { path: dst.clone() }],
            total: 0,
            files: 0,
            skipped: Vec::new(),
        };
        tree.walk(real_src, &dst)?;
        files = tree.files;
        skipped = tree.skipped;
        Ok(tree.changes)
    })?;
    Ok(done.into_output(vec![
        ("files", Json::UInt(files)),
        ("skipped", Json::from_serialize(&skipped)),
    ]))
}

/// The real path of a tree to copy, once the checks passed: `src` is a
/// directory, --recursive was given, `dst` does not exist and is not inside it.
fn tree_source(
    ctx: &Ctx,
    a: &CopyArgs,
    kind: Kind,
    src: &Path,
    dst: &Path,
) -> Result<PathBuf, CmdError> {
    if kind != Kind::Dir {
        return Err(CmdError::new(
            code::NOT_A_FILE,
            format!("{} is neither a file nor a directory.", a.src),
            Repair::new(
                "info",
                "Check what the path is.",
                shell::aitools(["info", &a.src]),
            ),
        ));
    }
    if !a.recursive {
        let words = shell::rerun(&ctx.argv, &[], &[], &["--recursive".into()]);
        return Err(CmdError::new(
            code::NOT_A_FILE,
            format!(
                "{} is a directory; copying a tree needs --recursive.",
                a.src
            ),
            Repair::new("recursive", "Copy the whole tree.", shell::aitools(&words)),
        ));
    }
    let shown = ctx.display_path(dst);
    if ctx.files().exists(dst)? {
        return Err(exists_error(
            &shown,
            "Copy into a path that does not exist yet.",
            shell::aitools(["info", &shown]),
        ));
    }
    let real_src = paths::real_path(ctx.dirs(), src);
    if paths::real_path(ctx.dirs(), dst).starts_with(&real_src) {
        return Err(CmdError::invalid_argument(
            "copy",
            format!(
                "{shown} is inside {}; a tree cannot be copied into itself.",
                a.src
            ),
        ));
    }
    Ok(real_src)
}

fn too_large(size: u64, max: u64) -> CmdError {
    CmdError::new(
        code::TOO_LARGE,
        format!("The copy is {size} bytes or more, over --max-bytes {max}."),
        Repair::new(
            "raise",
            "Raise --max-bytes if copying this much is intended.",
            "aitools schema copy",
        ),
    )
}

// ---------------------------------------------------------------- mkdir

#[derive(Args, Debug)]
pub struct MkdirArgs {
    /// The directory to create.
    #[arg(value_name = "PATH")]
    pub path: String,
    #[command(flatten)]
    pub dry: DryRun,
}

pub const MKDIR: CommandSpec = CommandSpec {
    name: "mkdir",
    summary: "Create a directory and its parents (mkdir -p).",
    description: "Each directory created is one change; undo removes them.",
    args: <MkdirArgs as clap::Args>::augment_args,
    output_fields: write::WRITE_FIELDS,
    error_codes: ERRORS,
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects {
        additive: true,
        idempotent: true,
        ..Effects::NONE
    },
    run: handler!(MkdirArgs, mkdir),
};

pub fn mkdir(ctx: &Ctx, a: &MkdirArgs) -> Result<Output, CmdError> {
    let abs = ctx.write_path_arg(&a.path, Final::Follow)?;
    let done = write::submit(ctx, &opts(ctx, a.dry.dry_run), || {
        Ok::<_, CmdError>(vec![Change::Mkdir { path: abs.clone() }])
    })?;
    Ok(done.into_output(vec![]))
}

// ---------------------------------------------------------------- chmod

#[derive(Args, Debug)]
pub struct ChmodArgs {
    /// The file or directory whose mode changes.
    #[arg(value_name = "PATH")]
    pub path: String,
    /// Add execute permission.
    #[arg(long)]
    pub exec: bool,
    /// Remove execute permission.
    #[arg(long)]
    pub no_exec: bool,
    /// Octal mode up to 777, such as 644 (setuid, setgid, sticky refused).
    #[arg(long)]
    pub mode: Option<String>,
    #[command(flatten)]
    pub dry: DryRun,
}

pub const CHMOD: CommandSpec = CommandSpec {
    name: "chmod",
    summary: "Set exec bits or a mode (chmod).",
    description: "One of --exec, --no-exec, --mode. --exec adds x where r is set. --no-exec on a directory is refused (refusal.not-a-file): a directory needs x to be entered; --mode sets one explicitly.",
    args: <ChmodArgs as clap::Args>::augment_args,
    output_fields: &[
        write::FIELD_CHANGES,
        write::FIELD_OP_ID,
        write::FIELD_DRY_RUN,
        field("previous_mode", "The octal mode before the change."),
    ],
    error_codes: crate::write_error_codes![code::HARD_LINK],
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects {
        idempotent: true,
        ..Effects::NONE
    },
    run: handler!(ChmodArgs, chmod),
};

/// The names of the setuid (4000), setgid (2000) and sticky (1000) bits in `m`.
fn special_names(m: u32) -> String {
    let names: Vec<&str> = [(0o4000, "setuid"), (0o2000, "setgid"), (0o1000, "sticky")]
        .iter()
        .filter(|(bit, _)| m & bit != 0)
        .map(|(_, name)| *name)
        .collect();
    let bits = if names.len() == 1 { "bit" } else { "bits" };
    format!("the {} {bits}", names.join(" and "))
}

/// The special bits a symbolic mode (`u+s`, `g=rxs`, `+t`) would set, if any.
fn symbolic_special(m: &str) -> u32 {
    let mut bits = 0;
    for clause in m.split(',') {
        let Some(at) = clause.find(['+', '=', '-']) else {
            continue;
        };
        let (who, perms) = clause.split_at(at);
        if !who.chars().all(|c| "ugoa".contains(c)) || perms.starts_with('-') {
            continue;
        }
        if perms.contains('s') {
            bits |= match (who.contains('u'), who.contains('g')) {
                (true, false) => 0o4000,
                (false, true) => 0o2000,
                _ if who.contains('o') && !who.contains('a') => 0,
                _ => 0o6000,
            };
        }
        if perms.contains('t') {
            bits |= 0o1000;
        }
    }
    bits
}

/// `--mode`: an octal mode up to 777. The setuid, setgid and sticky bits are
/// refused (a file an agent writes should not run as its owner), octal or
/// symbolic; the repair sets the same permission bits without them.
fn parse_mode(path: &str, m: &str) -> Result<u32, CmdError> {
    let octal = u32::from_str_radix(m.trim_start_matches("0o"), 8)
        .ok()
        .filter(|v| *v <= 0o7777);
    let special = octal.map_or_else(|| symbolic_special(m), |v| v & 0o7000);
    if special != 0 {
        let message = format!(
            "--mode {m} sets {}; chmod sets permission bits only (an octal mode up to 777).",
            special_names(special)
        );
        return Err(match octal {
            Some(v) => CmdError::new(
                code::ARGUMENT_INVALID,
                message,
                Repair::new(
                    "mode",
                    "Set the same permission bits without the special ones.",
                    shell::aitools(["chmod", path, "--mode", &format!("{:o}", v & 0o777)]),
                ),
            ),
            None => CmdError::invalid_argument("chmod", message),
        });
    }
    octal.ok_or_else(|| {
        CmdError::invalid_argument(
            "chmod",
            format!("--mode {m:?} is not an octal mode such as 644 or 0755."),
        )
    })
}

pub fn chmod(ctx: &Ctx, a: &ChmodArgs) -> Result<Output, CmdError> {
    let chosen = [a.exec, a.no_exec, a.mode.is_some()]
        .iter()
        .filter(|x| **x)
        .count();
    if chosen != 1 {
        return Err(CmdError::invalid_argument(
            "chmod",
            "chmod needs exactly one of --exec, --no-exec, --mode.",
        ));
    }
    let explicit = match &a.mode {
        Some(m) => Some(parse_mode(&a.path, m)?),
        None => None,
    };
    let abs = ctx.write_path_arg(&a.path, Final::Follow)?;
    let mut previous = 0u32;
    let done = write::submit(ctx, &opts(ctx, a.dry.dry_run), || {
        let meta = ctx.files().stat(&abs, true)?;
        if meta.kind == Kind::Missing {
            return Err(not_found(ctx, &a.path, &abs));
        }
        previous = meta.mode & 0o7777;
        if a.no_exec && meta.kind == Kind::Dir {
            let shown = ctx.display_path(&abs);
            return Err(CmdError::new(
                code::NOT_A_FILE,
                format!(
                    "{shown} is a directory; without x it could not be entered, so --no-exec leaves directories alone."
                ),
                Repair::new(
                    "mode",
                    "To set a directory's mode anyway, give it in full (--mode).",
                    shell::aitools(["chmod", &shown, "--mode", &format!("{previous:o}")]),
                ),
            ));
        }
        let mode = match explicit {
            Some(m) => m,
            None if a.exec => previous | ((previous & 0o444) >> 2),
            None => previous & !0o111,
        };
        Ok(vec![Change::Chmod {
            path: abs.clone(),
            mode,
        }])
    })?;
    Ok(done.into_output(vec![(
        "previous_mode",
        Json::str(format!("{previous:04o}")),
    )]))
}

// ---------------------------------------------------------------- link

#[derive(Args, Debug)]
pub struct LinkArgs {
    /// What the link points at (stored as given; it must lead inside the workspace).
    #[arg(value_name = "PATH")]
    pub target: String,
    /// The symlink to create.
    #[arg(value_name = "PATH")]
    pub link: String,
    /// Replace an existing symlink (not a file).
    #[arg(long)]
    pub overwrite: bool,
    #[command(flatten)]
    pub guard: Guard,
}

pub const LINK: CommandSpec = CommandSpec {
    name: "link",
    summary: "Create a symlink (ln -s).",
    description: "TARGET is stored as given and read relative to the link's directory, as the kernel does; it must lead inside the workspace. An existing symlink is replaced only with --overwrite.",
    args: <LinkArgs as clap::Args>::augment_args,
    output_fields: write::WRITE_FIELDS,
    error_codes: ERRORS,
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(LinkArgs, link),
};

pub fn link(ctx: &Ctx, a: &LinkArgs) -> Result<Output, CmdError> {
    let expect = guard::parse_expect_hash("link", &a.guard.expect_hash)?;
    let abs = ctx.write_path_arg(&a.link, Final::Entry)?;
    if a.target.is_empty() {
        return Err(CmdError::invalid_argument(
            "link",
            "The link target is empty.",
        ));
    }
    let done = write::submit(ctx, &opts(ctx, a.guard.dry.dry_run), || {
        common::refuse_dir_slash(ctx, "link", &a.link, false)?;
        let dir = abs.parent().map(Path::to_path_buf).unwrap_or_default();
        let lands = paths::normalize(&dir.join(&a.target));
        boundary::check(
            ctx,
            Path::new(&a.target),
            &paths::real_path(ctx.dirs(), &lands),
        )?;
        let shown = entry_display(ctx, &abs);
        let m = ctx.files().stat(&abs, false)?;
        if m.kind != Kind::Missing {
            if m.kind != Kind::Symlink {
                return Err(CmdError::new(
                    code::EXISTS,
                    format!("{shown} exists and is not a symlink; link never replaces it."),
                    Repair::new(
                        "info",
                        "Pick another link path.",
                        shell::aitools(["info", &shown]),
                    ),
                ));
            }
            if !a.overwrite {
                let words = shell::rerun(&ctx.argv, &[], &[], &["--overwrite".into()]);
                return Err(exists_error(
                    &shown,
                    "Replace the symlink.",
                    shell::aitools(&words),
                ));
            }
        }
        guard_path(ctx, &expect, &a.link, &abs, &shown, true)?;
        Ok(vec![Change::Symlink {
            path: abs.clone(),
            target: a.target.clone(),
        }])
    })?;
    Ok(done.into_output(vec![]))
}

// ---------------------------------------------------------------- touch

#[derive(Args, Debug)]
pub struct TouchArgs {
    /// The file to create or whose mtime to set.
    #[arg(value_name = "PATH")]
    pub path: String,
    /// Unix seconds, @seconds, or ISO 8601 (default now).
    #[arg(long)]
    pub mtime: Option<String>,
    #[command(flatten)]
    pub dry: DryRun,
}

pub const TOUCH: CommandSpec = CommandSpec {
    name: "touch",
    summary: "Create an empty file or set its mtime (touch).",
    description: "Journaled like every write: undo deletes a file touch created, or sets an existing file's previous modification time back (refusal.target-changed when its content, mode or mtime changed since).",
    args: <TouchArgs as clap::Args>::augment_args,
    output_fields: &[
        write::FIELD_CHANGES,
        write::FIELD_OP_ID,
        write::FIELD_DRY_RUN,
        field("mtime", "The modification time set (ISO 8601 UTC)."),
    ],
    error_codes: crate::write_error_codes![code::HARD_LINK],
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(TouchArgs, touch),
};

/// `--mtime`'s refusal, naming the field out of range (2024-02-30 is no date,
/// never 2024-03-01).
fn bad_mtime(s: &str, why: time::BadTime) -> CmdError {
    let reason = match why {
        time::BadTime::Form => {
            "is not Unix seconds, @seconds or ISO 8601 (2026-01-31T12:00:00Z)".to_string()
        }
        time::BadTime::Month(m) => format!("has month {m}; months are 1-12"),
        time::BadTime::Day { year, month, days } => {
            format!("is no date: {year}-{month:02} has {days} days")
        }
        time::BadTime::Clock => {
            "is no time of day: hours are 0-23, minutes and seconds 0-59".to_string()
        }
    };
    CmdError::invalid_argument("touch", format!("--mtime {s:?} {reason}."))
}

pub fn touch(ctx: &Ctx, a: &TouchArgs) -> Result<Output, CmdError> {
    let mtime = match &a.mtime {
        Some(s) => time::parse(s).map_err(|why| bad_mtime(s, why))?,
        None => time::now().0,
    };
    let abs = ctx.write_path_arg(&a.path, Final::Follow)?;
    let done = write::submit(ctx, &opts(ctx, a.dry.dry_run), || {
        common::refuse_dir_slash(ctx, "touch", &a.path, true)?;
        Ok::<_, CmdError>(vec![Change::Touch {
            path: abs.clone(),
            mtime,
        }])
    })?;
    Ok(done.into_output(vec![("mtime", Json::str(time::iso8601(mtime)))]))
}
