//! `apply`: a unified diff or a V4A patch (`*** Begin Patch`, see `v4a`) from
//! `--stdin` (or `--stdin-data`) applied to the workspace — files created,
//! modified, moved and deleted — all of them or none.

use super::common::{self, Target};
use super::patch::{self, FilePatch};
use super::v4a;
use crate::handler;
use crate::protocol::args::Guard;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell};
use crate::store::guard;
use crate::store::write::{self, Change, WriteRequest};
use crate::text::doc::Doc;
use crate::text::select;
use crate::workspace::{Ctx, paths};
use clap::Args;
use std::collections::HashMap;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ApplyArgs {
    /// Lines around a hunk's recorded position searched for its context.
    #[arg(long, value_name = "N", default_value = "3")]
    pub fuzz: String,
    /// Apply the inverse patch (unified diffs).
    #[arg(long)]
    pub reverse: bool,
    /// The input's format; auto reads `*** Begin Patch` as v4a.
    #[arg(long, value_name = "FMT", value_parser = ["auto", "unified", "v4a"], default_value = "auto")]
    pub format: String,
    /// Leading path components dropped; default drops a/ and b/.
    #[arg(long, value_name = "N")]
    pub strip: Option<String>,
    /// Read the input from stdin (never read otherwise).
    #[arg(long)]
    pub stdin: bool,
    /// The --stdin input given inline (history records --stdin writes this way).
    #[arg(long, allow_hyphen_values = true)]
    pub stdin_data: Option<String>,
    #[command(flatten)]
    pub guard: Guard,
    #[command(flatten)]
    pub input_limit: crate::workspace::input::InputLimit,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "apply",
    summary: "Unified diff or V4A patch, all files or none (patch).",
    description: "V4A (Codex's *** Begin Patch ... *** End Patch with Add/Update/Delete File, Move to, @@ anchors, *** End of File) is detected or chosen by --format v4a: each chunk's @@ anchors (nested ones in order; a line equal to the anchor when trimmed, else starting with it) are found from where the previous chunk ended, then its context/removed lines exactly, else ignoring trailing whitespace, else ignoring leading and trailing whitespace, else also reading typographic quotes/dashes/spaces as ASCII (strategy: whitespace says so); a chunk that fits nowhere is selection.no-match naming the file, the chunk and the nearest lines. Unified diffs: reads diff -u or git diff output (several files; /dev/null creates or deletes; new file mode sets the mode; git's old mode/new mode and rename from/rename to are applied (a copy is refused); \\ No newline at end of file honoured). Paths resolve against the working directory after --strip. Each hunk is looked for at its recorded line (moved by the offset of earlier hunks), then up to --fuzz lines either side; a hunk that fits nowhere is selection.no-match with diagnostics naming the hunk and where it was expected. Unchanged lines keep their bytes; added lines take the file's line ending.",
    args: <ApplyArgs as clap::Args>::augment_args,
    output_fields: &[
        write::FIELD_CHANGES,
        write::FIELD_OP_ID,
        write::FIELD_DRY_RUN,
        field(
            "applied_hunks",
            "Hunks applied across all files; only when one landed away from its recorded line.",
        ),
        field(
            "strategy",
            "whitespace when a V4A chunk matched only with whitespace ignored (absent when exact).",
        ),
        write::FIELD_NEXT,
    ],
    error_codes: crate::write_error_codes![
        code::NOT_UTF8,
        code::NO_MATCH,
        code::AMBIGUOUS,
        code::TOO_LARGE
    ],
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(ApplyArgs, run),
};

/// The patch's paths in the order first met, and where each real path is among
/// them (a map, not a scan: one lookup per file section, not one per slot).
#[derive(Default)]
struct Slots {
    list: Vec<Slot>,
    at: HashMap<PathBuf, usize>,
}

/// A path's state while the patch's files are applied in order.
struct Slot {
    real: PathBuf,
    display: String,
    /// The state before the op: content, or `None` when it did not exist.
    before: Option<Target>,
    now: Option<Doc>,
    mode: Option<u32>,
    /// `old mode`/`new mode` of a git diff: the bits to set on the existing file.
    chmod: Option<u32>,
}

pub fn run(ctx: &Ctx, args: &ApplyArgs) -> Result<Output, CmdError> {
    let cmd = "apply";
    let expect = guard::parse_expect_hash(cmd, &args.guard.expect_hash)?;
    let fuzz = common::parse_count(cmd, "--fuzz", Some(&args.fuzz))?.unwrap_or(3) as usize;
    let strip = common::parse_count(cmd, "--strip", args.strip.as_deref())?.map(|n| n as usize);
    let Some(diff) = common::read_input(
        ctx,
        cmd,
        args.stdin,
        args.stdin_data.as_deref(),
        &args.input_limit,
    )?
    else {
        return Err(CmdError::invalid_argument(
            cmd,
            "apply reads the diff from --stdin (or --stdin-data DIFF).",
        ));
    };
    guard::refuse_redacted("The diff", None, diff.as_bytes())?;
    let input = parse_input(cmd, &diff, args, strip)?;
    let mut placed = Placed::default();
    let req = WriteRequest::new(ctx).dry_run(args.guard.dry.dry_run);
    let committed = write::submit(ctx, &req, || {
        let mut slots = Slots::default();
        for (fi, p) in input.patches.iter().enumerate() {
            let sec = input.sections.get(fi).unwrap_or(&Section::Unified);
            if let (true, Some(from), Some(to)) = (p.renamed, &p.old_path, &p.new_path)
                && from != to
            {
                let (n, m, w) = rename(ctx, &mut slots, &expect, (from, to), (p, sec), fuzz, fi)?;
                placed.add(n, m, w);
                continue;
            }
            let arg = target_arg(ctx, p)?;
            let idx = slot(ctx, &mut slots, &arg, &expect)?;
            let s = slots
                .list
                .get_mut(idx)
                .ok_or_else(|| CmdError::internal("apply: slot lost"))?;
            let raw = input.raw.get(fi).map(Vec::as_slice).unwrap_or(&[]);
            let current = current_text(ctx, s, p, input.is_v4a, (raw, strip))?;
            let (out, m, w) = place(&ctx.argv, &s.display, fi, &current, (p, sec), fuzz)?;
            placed.add(p.hunks.len() as u64, m, w);
            settle(s, p, out)?;
        }
        // Shown back below only when a hunk moved or they were asked for.
        req.no_diffs
            .set(!placed.moved && ctx.max_diff_lines.is_none());
        Ok::<_, CmdError>(slot_changes(slots))
    })?;
    // Every hunk where the patch said: the count says nothing new.
    let mut extra = if placed.moved {
        vec![("applied_hunks", Json::UInt(placed.hunks))]
    } else {
        Vec::new()
    };
    if placed.whitespace {
        extra.push(("strategy", Json::str("whitespace")));
    }
    let mut out = committed.into_output(extra);
    // The caller wrote these hunks: shown back they say nothing new, unless one
    // landed away from its recorded line or the caller asked for them.
    if !placed.moved && ctx.max_diff_lines.is_none() {
        crate::protocol::compact::drop_diffs(&mut out.fields, &[]);
    }
    Ok(out)
}

/// The patch as parsed: its files (paths stripped, reversed when asked), each
/// file's section kind, the paths as the diff wrote them (for the --strip a
/// missing file suggests), and whether it is V4A.
struct Input {
    patches: Vec<FilePatch>,
    sections: Vec<Section>,
    raw: Vec<Vec<String>>,
    is_v4a: bool,
}

fn parse_input(
    cmd: &str,
    diff: &str,
    args: &ApplyArgs,
    strip: Option<usize>,
) -> Result<Input, CmdError> {
    let is_v4a = match args.format.as_str() {
        "v4a" => true,
        "unified" => false,
        _ => v4a::looks_like(diff),
    };
    let (mut patches, sections) = if is_v4a {
        if args.reverse {
            return Err(CmdError::invalid_argument(
                cmd,
                "--reverse applies unified diffs only; a V4A patch cannot be reversed.",
            ));
        }
        let ops = v4a::parse(diff).map_err(|m| {
            CmdError::invalid_argument(
                cmd,
                format!("The input is not a V4A patch apply can use: {m}"),
            )
        })?;
        from_v4a(ops)
    } else {
        let ps = patch::parse(diff).map_err(|m| {
            CmdError::invalid_argument(cmd, format!("The input is not a diff apply can use: {m}"))
        })?;
        let n = ps.len();
        (ps, vec![Section::Unified; n])
    };
    let raw: Vec<Vec<String>> = patches
        .iter()
        .map(|p| p.old_path.iter().chain(&p.new_path).cloned().collect())
        .collect();
    // Strip before reversing: the a/ prefix belongs to the diff's old side
    // whichever way it is applied.
    // V4A paths carry no a/ b/ prefixes: stripped only when asked.
    for p in patches.iter_mut().filter(|_| !is_v4a || strip.is_some()) {
        p.old_path = p
            .old_path
            .take()
            .map(|x| strip_path(cmd, &x, strip, "a/"))
            .transpose()?;
        p.new_path = p
            .new_path
            .take()
            .map(|x| strip_path(cmd, &x, strip, "b/"))
            .transpose()?;
    }
    if args.reverse {
        patches.iter_mut().for_each(FilePatch::reverse);
    }
    Ok(Input {
        patches,
        sections,
        raw,
        is_v4a,
    })
}

/// Hunks placed, and whether one moved or needed the whitespace strategy.
#[derive(Default)]
struct Placed {
    hunks: u64,
    moved: bool,
    whitespace: bool,
}

impl Placed {
    fn add(&mut self, hunks: u64, moved: bool, whitespace: bool) {
        self.hunks += hunks;
        self.moved |= moved;
        self.whitespace |= whitespace;
    }
}

/// The text a file's patch applies to: what the slot holds now, or nothing for
/// a file the patch creates; a created file that exists, or a modified one that
/// does not, refuses (with the --strip that names existing files, when one does).
fn current_text(
    ctx: &Ctx,
    s: &Slot,
    p: &FilePatch,
    is_v4a: bool,
    (raw, strip): (&[String], Option<usize>),
) -> Result<Doc, CmdError> {
    let creating = p.old_path.is_none();
    match (&s.now, creating) {
        (Some(_), true) if is_v4a => Err(CmdError::new(
            code::EXISTS,
            format!(
                "The patch adds {}, which already exists; nothing was written.",
                s.display
            ),
            Repair::new(
                "read",
                "Read the file and write the change as *** Update File instead.",
                shell::aitools(["read", &s.display]),
            ),
        )),
        (Some(_), true) => Err(CmdError::new(
            code::EXISTS,
            format!("The diff creates {}, which already exists.", s.display),
            Repair::new(
                "reverse",
                "Check whether the patch is already applied: try it with --reverse --dry-run.",
                shell::aitools(["apply", "--stdin", "--reverse", "--dry-run"]),
            ),
        )),
        (None, false) => {
            let e = CmdError::new(
                code::NOT_FOUND,
                format!("The diff modifies {}, which does not exist.", s.display),
                Repair::new(
                    "find",
                    "Look for the file by name.",
                    "aitools find --type file",
                ),
            );
            Err(match better_strip(ctx, raw, strip) {
                Some(n) => {
                    let words = shell::rerun(
                        &ctx.argv,
                        &["--strip"],
                        &[],
                        &["--strip".into(), n.to_string()],
                    );
                    e.with_first_repair(Repair::new(
                        "strip",
                        format!("With --strip {n} the diff's paths name files that exist."),
                        shell::aitools(&words),
                    ))
                }
                None => e,
            })
        }
        (Some(d), false) => Ok(d.clone()),
        (None, true) => Ok(Doc::from_text(false, String::new())),
    }
}

/// The slot after its patch placed `out`: deleted (only when nothing is left),
/// or the new text, with a created file's mode and a git mode change.
fn settle(s: &mut Slot, p: &FilePatch, out: Doc) -> Result<(), CmdError> {
    if p.new_path.is_none() {
        if !out.text.is_empty() {
            return Err(CmdError::new(
                code::NO_MATCH,
                format!(
                    "The diff deletes {}, but the file holds more than the diff removes.",
                    s.display
                ),
                Repair::new(
                    "read",
                    "Read the file as it is now.",
                    shell::aitools(["read", &s.display]),
                ),
            ));
        }
        s.now = None;
        return Ok(());
    }
    s.now = Some(out);
    if p.old_path.is_none() {
        s.mode = p.new_mode;
    }
    if let Some((_, new)) = p.mode_change {
        s.chmod = Some(new & 0o7777);
    }
    Ok(())
}

/// The op's changes: each path whose state differs from before.
fn slot_changes(slots: Slots) -> Vec<Change> {
    let mut changes = Vec::new();
    for s in slots.list {
        match (&s.before, s.now) {
            (Some(_), None) => changes.push(Change::Delete { path: s.real }),
            (None, Some(d)) => changes.push(Change::Put {
                path: s.real,
                bytes: d.to_bytes(),
                mode: s.mode,
            }),
            (Some(b), Some(d)) => {
                if d.text != b.doc.text || d.bom != b.doc.bom {
                    changes.push(Change::Put {
                        path: s.real.clone(),
                        bytes: d.to_bytes(),
                        mode: None,
                    });
                }
                if let Some(mode) = s.chmod {
                    changes.push(Change::Chmod { path: s.real, mode });
                }
            }
            (None, None) => {}
        }
    }
    changes
}

/// A diff path with `--strip N` components dropped, or by default the `a/`/`b/`
/// prefix git writes.
fn strip_path(cmd: &str, p: &str, strip: Option<usize>, prefix: &str) -> Result<String, CmdError> {
    match strip {
        None => Ok(p.strip_prefix(prefix).unwrap_or(p).to_string()),
        Some(n) => {
            let parts: Vec<&str> = p.split('/').filter(|c| !c.is_empty()).collect();
            if n >= parts.len() {
                return Err(CmdError::invalid_argument(
                    cmd,
                    format!("--strip {n} leaves nothing of the diff path {p:?}."),
                ));
            }
            Ok(parts.get(n..).unwrap_or(&[]).join("/"))
        }
    }
}

/// The `--strip` (other than the one used) under which one of a file section's
/// paths names an existing file.
fn better_strip(ctx: &Ctx, paths: &[String], used: Option<usize>) -> Option<usize> {
    (0..=3usize).filter(|n| Some(*n) != used).find(|&n| {
        paths.iter().any(|p| {
            let parts: Vec<&str> = p.split('/').filter(|c| !c.is_empty()).collect();
            parts
                .get(n..)
                .filter(|r| !r.is_empty())
                .is_some_and(|r| ctx.resolve(&r.join("/")).is_file())
        })
    })
}

/// The least `--fuzz` above `used` (up to 500) with which every hunk of `p`
/// applies, if any.
/// A hunk is placed at the nearest fit, so a fuzz that works keeps working when
/// raised: the least one is found by bisection.
fn fuzz_that_fits(doc: &Doc, p: &FilePatch, used: usize) -> Option<usize> {
    // Past a few hundred lines, a diff for another version is likelier than an
    // offset, and the search is not worth its time on the error path.
    let max = doc.line_count().min(500);
    if max <= used || patch::apply(doc, &p.hunks, max).is_err() {
        return None;
    }
    let (mut lo, mut hi) = (used + 1, max);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if patch::apply(doc, &p.hunks, mid).is_ok() {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

/// A git rename: the hunks applied to `from`'s content, written to `to` (which
/// must not exist) with `from`'s mode (or the diff's new mode), and `from` removed.
fn rename(
    ctx: &Ctx,
    slots: &mut Slots,
    expect: &guard::ExpectHash,
    (from, to): (&String, &String),
    (p, sec): (&FilePatch, &Section),
    fuzz: usize,
    fi: usize,
) -> Result<(u64, bool, bool), CmdError> {
    let src = slot(ctx, slots, from, expect)?;
    let dst = slot(ctx, slots, to, expect)?;
    let lost = || CmdError::internal("apply: slot lost");
    let (current, src_display, src_real) = {
        let s = slots.list.get(src).ok_or_else(lost)?;
        let Some(d) = s.now.clone() else {
            return Err(CmdError::new(
                code::NOT_FOUND,
                format!("The diff renames {}, which does not exist.", s.display),
                Repair::new(
                    "find",
                    "Look for the file by name.",
                    "aitools find --type file",
                ),
            ));
        };
        (d, s.display.clone(), s.real.clone())
    };
    if let Some(d) = slots.list.get(dst).filter(|d| d.now.is_some()) {
        return Err(CmdError::new(
            code::EXISTS,
            format!(
                "The diff renames {src_display} to {}, which already exists.",
                d.display
            ),
            Repair::new(
                "reverse",
                "Check whether the patch is already applied: try it with --reverse --dry-run.",
                shell::aitools(["apply", "--stdin", "--reverse", "--dry-run"]),
            ),
        ));
    }
    let (out, moved, ws) = place(&ctx.argv, &src_display, fi, &current, (p, sec), fuzz)?;
    let mode = match p.mode_change {
        Some((_, new)) => new & 0o7777,
        // In the view: with --tx a mode the tx staged counts.
        None => ctx
            .files()
            .stat(&src_real, true)
            .ok()
            .filter(|s| s.kind == crate::store::files::Kind::File)
            .map_or(0o644, |s| s.mode),
    };
    if let Some(s) = slots.list.get_mut(src) {
        s.now = None;
    }
    let d = slots.list.get_mut(dst).ok_or_else(lost)?;
    d.now = Some(out);
    d.mode = Some(mode);
    Ok((p.hunks.len() as u64, moved, ws))
}

/// Which file a patch is for: the new name, or the old one when only it exists
/// (`diff -u x x.new`) or the patch deletes.
fn target_arg(ctx: &Ctx, p: &FilePatch) -> Result<String, CmdError> {
    match (&p.old_path, &p.new_path) {
        (Some(o), Some(n)) => {
            if o != n && !ctx.resolve(n).exists() && ctx.resolve(o).exists() {
                Ok(o.clone())
            } else {
                Ok(n.clone())
            }
        }
        (None, Some(n)) => Ok(n.clone()),
        (Some(o), None) => Ok(o.clone()),
        (None, None) => Err(CmdError::invalid_argument(
            "apply",
            "A file section of the diff names no path on either side.",
        )),
    }
}

/// The slot for `arg`, loaded (and hash-checked) on first use.
fn slot(
    ctx: &Ctx,
    slots: &mut Slots,
    arg: &str,
    expect: &guard::ExpectHash,
) -> Result<usize, CmdError> {
    let abs = ctx.path_arg(arg)?;
    let (real, lstat) = paths::real_path_lstat(ctx.dirs(), &abs);
    if let Some(&i) = slots.at.get(&real) {
        return Ok(i);
    }
    let display = ctx.display_real(&real);
    common::check_inside(ctx, &real, &display)?;
    let first = slots.list.is_empty();
    // A regular file met on the way to the real path is loaded with that lstat.
    // Otherwise one stat (the path followed) tells an existing file from a missing
    // one; only a path that does not lead anywhere is asked again whether an entry
    // (a dangling symlink) is there, which `load` then refuses as before.
    let before = match common::load_by_lstat(ctx, &abs, (&real, &display), lstat.as_ref())? {
        Some(snap) => {
            let names = (real.clone(), display.clone());
            Some(common::load_located(
                ctx, arg, names.0, names.1, snap, None,
            )?)
        }
        None => {
            let meta = ctx.files().stat(&abs, true)?;
            if meta.kind != crate::store::files::Kind::Missing {
                let names = (real.clone(), display.clone());
                let (real, display, snap) = common::locate_at(ctx, arg, &abs, names, meta)?;
                Some(common::load_located(ctx, arg, real, display, snap, None)?)
            } else if ctx.files().exists(&abs)? {
                Some(common::load(ctx, arg, None)?)
            } else {
                None
            }
        }
    };
    match &before {
        Some(t) => common::check_target_hash(expect, t, first)?,
        None => {
            if let Some(h) = expect.for_target(arg, &display, first) {
                guard::check_hash(&display, h, None)?;
            }
        }
    }
    let i = slots.list.len();
    slots.at.insert(real.clone(), i);
    slots.list.push(Slot {
        real,
        display,
        now: before.as_ref().map(|t| t.doc.clone()),
        before,
        mode: None,
        chmod: None,
    });
    Ok(i)
}

/// `selection.no-match` / `selection.ambiguous` naming the hunk, where it was
/// expected, and the file lines nearest to its first old line.
fn hunk_error(
    argv: &[String],
    display: &str,
    file_index: usize,
    doc: &Doc,
    p: &FilePatch,
    fuzz: usize,
    e: patch::HunkError,
) -> CmdError {
    let mut d = Json::obj();
    d.push("path", Json::str(display));
    d.push("file", Json::UInt(file_index as u64 + 1));
    d.push("hunk", Json::UInt(e.hunk as u64 + 1));
    if let Some(h) = p.hunks.get(e.hunk) {
        d.push("header", Json::str(h.header.clone()));
    }
    d.push("expected_line", Json::UInt(e.expected_line as u64));
    d.push("message", Json::str(e.message.clone()));
    let from = e.expected_line.saturating_sub(5).max(1);
    let repair = Repair::new(
        "read",
        "Read the lines where the hunk was expected and regenerate the diff against them.",
        shell::aitools(["read", display, "--range", &format!("{from}:{}", from + 19)]),
    );
    let code = if e.ambiguous {
        code::AMBIGUOUS
    } else {
        code::NO_MATCH
    };
    let mut err = CmdError::new(
        code,
        format!("Hunk {} of {display}: {}", e.hunk + 1, e.message),
        repair,
    )
    .with_diagnostics(Json::Arr(vec![d]));
    if let (false, Some(n)) = (e.ambiguous, fuzz_that_fits(doc, p, fuzz)) {
        let words = shell::rerun(argv, &["--fuzz"], &[], &["--fuzz".into(), n.to_string()]);
        err = err.with_first_repair(Repair::new(
            "fuzz",
            format!("Every hunk fits within {n} lines of its recorded place; check with --dry-run first if unsure."),
            shell::aitools(&words),
        ));
    }
    let first_old = p
        .hunks
        .get(e.hunk)
        .and_then(|h| {
            h.lines
                .iter()
                .find(|l| l.kind != patch::Kind::Add && !l.text.trim().is_empty())
        })
        .map(|l| l.text.clone());
    if let Some(text) = first_old {
        let near = select::nearest_lines(doc, &text, 3);
        if !near.is_empty() {
            err = err.with_candidates(select::candidates(doc, near));
        }
    }
    err
}

/// How a file section's hunks are placed: a unified diff's by line number (with
/// fuzz), a V4A update's by its anchors and context, a V4A delete not at all.
#[derive(Clone)]
enum Section {
    Unified,
    Chunks(Vec<v4a::Chunk>),
    Delete,
}

/// V4A operations as file sections: an add is a creation hunk, an update with
/// `*** Move to` a rename; the chunks are placed against the file at apply time.
fn from_v4a(ops: Vec<v4a::Op>) -> (Vec<FilePatch>, Vec<Section>) {
    let blank = |old: Option<String>, new: Option<String>| FilePatch {
        old_path: old,
        new_path: new,
        new_mode: None,
        deleted_mode: None,
        mode_change: None,
        renamed: false,
        hunks: Vec::new(),
    };
    let mut out = Vec::with_capacity(ops.len());
    let mut secs = Vec::with_capacity(ops.len());
    for op in ops {
        match op {
            v4a::Op::Add { path, lines } => {
                let mut p = blank(None, Some(path));
                if !lines.is_empty() {
                    p.hunks.push(v4a::add_hunk(&lines));
                }
                out.push(p);
                secs.push(Section::Unified);
            }
            v4a::Op::Delete { path } => {
                out.push(blank(Some(path), None));
                secs.push(Section::Delete);
            }
            v4a::Op::Update {
                path,
                move_to,
                chunks,
            } => {
                let mut p = blank(Some(path.clone()), Some(move_to.clone().unwrap_or(path)));
                p.renamed = move_to.is_some();
                out.push(p);
                secs.push(Section::Chunks(chunks));
            }
        }
    }
    (out, secs)
}

/// A file section applied to `current`: the new document, whether a hunk
/// landed away from its recorded line, whether whitespace was ignored.
fn place(
    argv: &[String],
    display: &str,
    fi: usize,
    current: &Doc,
    (p, sec): (&FilePatch, &Section),
    fuzz: usize,
) -> Result<(Doc, bool, bool), CmdError> {
    match sec {
        Section::Unified => patch::apply_placed(current, &p.hunks, fuzz)
            .map(|(d, m)| (d, m, false))
            .map_err(|e| hunk_error(argv, display, fi, current, p, fuzz, e)),
        Section::Delete => Ok((Doc::from_text(false, String::new()), false, false)),
        Section::Chunks(chunks) => {
            let placed = v4a::place(current, chunks)
                .map_err(|m| chunk_error(display, fi, current, chunks, m))?;
            let (d, _) = patch::apply_placed(current, &placed.hunks, 0)
                .map_err(|e| hunk_error(argv, display, fi, current, p, 0, e))?;
            Ok((d, false, placed.whitespace))
        }
    }
}

/// `selection.no-match` for a V4A chunk: the file, the chunk, what was not
/// found after which line, and the file lines nearest to it.
fn chunk_error(
    display: &str,
    fi: usize,
    doc: &Doc,
    chunks: &[v4a::Chunk],
    m: v4a::Miss,
) -> CmdError {
    let what = match &m.anchor {
        Some(a) => format!("the @@ anchor {a:?} is not"),
        None => "its context and removed lines are not".to_string(),
    };
    let mut d = Json::obj();
    d.push("path", Json::str(display));
    d.push("file", Json::UInt(fi as u64 + 1));
    d.push("hunk", Json::UInt(m.chunk as u64 + 1));
    if let Some(c) = chunks.get(m.chunk)
        && !c.anchors.is_empty()
    {
        d.push(
            "anchors",
            Json::Arr(c.anchors.iter().map(|a| Json::str(a.clone())).collect()),
        );
    }
    d.push("searched_from_line", Json::UInt(m.from as u64 + 1));
    let first_old = crate::text::doc::split_plain(&m.needle)
        .into_iter()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .to_string();
    d.push(
        "expected",
        Json::str(first_old.chars().take(200).collect::<String>()),
    );
    let near = select::nearest_lines(doc, &m.needle, 3);
    let at = near.first().copied().unwrap_or(m.from);
    let from = at.saturating_sub(5) + 1;
    let mut err = CmdError::new(
        code::NO_MATCH,
        format!(
            "Chunk {} of {display}: {what} in the file after line {} (exactly or ignoring whitespace); nothing was written.",
            m.chunk + 1,
            m.from + 1
        ),
        Repair::new(
            "read",
            "Read the lines nearest the chunk and rewrite its context from them.",
            shell::aitools(["read", display, "--range", &format!("{from}:{}", from + 19)]),
        ),
    )
    .with_diagnostics(Json::Arr(vec![d]));
    if !near.is_empty() {
        err = err.with_candidates(select::candidates(doc, near));
    }
    err
}
