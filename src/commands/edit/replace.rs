//! `replace`: a regular expression (or `--fixed` text) replaced with a template
//! across files and directories (through the workspace scan), or within one file's
//! selection. Every file is read and checked before any is written, and the total
//! must equal `--expect-count` (a `--dry-run` reports it).

use super::common::{self, SelectorArgs, Target};
use super::edit_cmd::put_if_changed;
use super::template::Template;
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell};
use crate::store::guard;
use crate::store::write::{self, Change, WriteRequest};
use crate::text::doc::{Doc, with_eol};
use crate::text::select::{self, Block};
use crate::workspace::Ctx;
use crate::workspace::scan::{self, ScanOptions};
use crate::workspace::scan_args::ScanArgs;
use clap::Args;
use regex::{Regex, RegexBuilder};

#[derive(Args, Debug)]
#[command(mut_args(replace_defaults))]
pub struct ReplaceArgs {
    /// PATTERN REPLACEMENT [PATH...]; with --stdin, all are paths. Paths default to the working directory.
    #[arg(id = "pattern replacement [path...]", value_name = "ARG", num_args = 0..)]
    pub words: Vec<String>,
    #[command(flatten)]
    pub matching: crate::protocol::args::Pattern,
    /// Only each file's Nth match.
    #[arg(long, value_name = "N")]
    pub nth: Option<String>,
    /// Insert REPLACEMENT as is (no $1/${name} template expansion).
    #[arg(long)]
    pub literal_replacement: bool,
    #[command(flatten)]
    pub sel: SelectorArgs,
    #[command(flatten)]
    pub scan: ScanArgs,
    #[command(flatten)]
    pub guarded: common::GuardedInput,
}

/// replace skips large files unless told otherwise: a scan rarely means to
/// rewrite them. (`mut_args` keeps the arguments in their declared order.)
fn replace_defaults(a: clap::Arg) -> clap::Arg {
    if a.get_id() == "skip_larger_than" {
        a.default_value("10MiB")
    } else {
        a
    }
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "replace",
    summary: "Regex replace across files (sed -i s/a/b/g).",
    description: "Rust regex syntax. Replaces every non-overlapping match per line (whole file with --multiline, where ^ and $ match at line ends, CR LF included). Newlines in the expanded replacement take the file's line ending when all its lines end alike (LF or CR LF); in a file that mixes them they are written as given. Templates: $0 $1 $name ${name} $$ and ${1:filter:...} with upper lower capitalize snake camel kebab trim inc dec padN (padN zero-pads digits, space-pads other text). \\1-style references are refused unless --literal-replacement, which inserts the replacement verbatim. Directories are scanned with the workspace ignore rules (--glob, --lang, --no-ignore, --skip-larger-than, --newer filter the scan); binary, non-UTF-8 and too-large files found by a scan are skipped (listed in skipped; binary and non-UTF-8 ones when they hold the pattern), a named one is refused. All files are validated before anything is written. Requires --expect-count (the total) unless --dry-run, which reports it. --stdin reads {\"pattern\",\"replacement\"}; positionals are then all paths.",
    args: <ReplaceArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "changes",
            "[{path,action?,from?,hash?,count?}]: hash absent in a dry run.",
        ),
        write::FIELD_OP_ID,
        write::FIELD_DRY_RUN,
        field(
            "expect_count",
            "With --dry-run: the replacements selected, the value a real run passes as --expect-count.",
        ),
        field(
            "changes[].count",
            "Replacements made in that file; left out of a run guarded by --expect-count (its dry run listed them). added/deleted (lines) appear only when they differ from count and no whole diff counts them; diff only with --max-diff-lines N.",
        ),
        field(
            "sample",
            "With --dry-run: up to 3 changed lines as `path:line: text` (the first of each of the first files, as they will read, indentation left out; absent with --max-diff-lines N).",
        ),
        field(
            "skipped",
            "[{path,reason}] files a directory scan passed over, present only when some were: binary or not-utf8 files whose bytes match the pattern, and too-large (over --skip-larger-than) or unreadable ones.",
        ),
        write::FIELD_NEXT,
    ],
    error_codes: common::TEXT_EDIT_ERRORS,
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(ReplaceArgs, run),
};

/// How matches are found and replaced in one text.
pub struct Replacer {
    pub re: Regex,
    pub template: Template,
    pub multiline: bool,
    /// Replace only the Nth match (1-based) of each file.
    pub nth: Option<u64>,
}

impl Replacer {
    /// `doc` with the matches inside `blocks` (all lines when `None`) replaced,
    /// and how many were; `None` when nothing matched (no copy of the file).
    /// `matches` gains every match found, replaced or not (--nth skips some).
    pub fn apply(
        &self,
        doc: &Doc,
        blocks: Option<&[Block]>,
        matches: &mut u64,
    ) -> Result<Option<(Doc, u64)>, String> {
        let segments = segments(doc, blocks, self.multiline);
        let mut out = String::with_capacity(doc.text.len());
        let mut last = 0;
        let mut seen = 0u64;
        let mut count = 0u64;
        // A file whose lines all end alike gets the replacement's newlines in
        // that ending; a mixed one gets them as written.
        let eol = doc.uniform_eol();
        let mut piece = String::new();
        for seg in segments {
            let hay = doc.text.get(seg.clone()).unwrap_or("");
            for caps in self.re.captures_iter(hay) {
                let Some(m) = caps.get(0) else { continue };
                seen += 1;
                if self.nth.is_some_and(|n| n != seen) {
                    continue;
                }
                let (s, e) = (seg.start + m.start(), seg.start + m.end());
                out.push_str(doc.text.get(last..s).unwrap_or(""));
                piece.clear();
                self.template.expand(&caps, &mut piece)?;
                match eol {
                    Some(eol) if piece.contains('\n') => out.push_str(&with_eol(&piece, eol)),
                    _ => out.push_str(&piece),
                }
                last = e;
                count += 1;
            }
        }
        *matches += seen;
        if count == 0 {
            return Ok(None);
        }
        out.push_str(doc.text.get(last..).unwrap_or(""));
        Ok(Some((Doc::from_text(doc.bom, out), count)))
    }
}

/// The byte ranges matched separately: each line's content, or (multiline) each
/// run of consecutive selected lines, or the whole text.
fn segments(doc: &Doc, blocks: Option<&[Block]>, multiline: bool) -> Vec<std::ops::Range<usize>> {
    let all = [0..doc.line_count()];
    let blocks = blocks.unwrap_or(&all);
    if multiline {
        let mut merged: Vec<Block> = Vec::new();
        for b in blocks {
            match merged.last_mut() {
                Some(m) if m.end == b.start => m.end = b.end,
                _ => merged.push(b.clone()),
            }
        }
        merged
            .iter()
            .map(|b| doc.block_bytes(b.start, b.end))
            .collect()
    } else {
        blocks
            .iter()
            .flat_map(|b| b.clone())
            .filter_map(|i| doc.lines.get(i).map(|l| l.start..l.end))
            .collect()
    }
}

pub fn run(ctx: &Ctx, args: &ReplaceArgs) -> Result<Output, CmdError> {
    let cmd = "replace";
    let sel = args.sel.parse(cmd)?;
    let expect = args.guarded.expect_hash(cmd)?;
    let expect_count = args.guarded.expect_count(cmd)?;
    let nth = common::parse_count(cmd, "--nth", args.nth.as_deref())?;
    if nth == Some(0) {
        return Err(CmdError::invalid_argument(cmd, "--nth counts from 1."));
    }
    let scan_opts = args.scan.options(ctx, ctx.files().overlay()?)?;
    let (pattern, replacement, path_args) = words(ctx, cmd, args)?;
    guard::refuse_redacted("The pattern", None, pattern.as_bytes())?;
    guard::refuse_redacted("The replacement", None, replacement.as_bytes())?;
    if pattern.is_empty() {
        return Err(CmdError::invalid_argument(cmd, "The pattern is empty."));
    }
    let (replacer, bytes_re) = replacer(cmd, args, &pattern, &replacement, nth)?;
    if sel.is_some() && path_args.len() != 1 {
        return Err(CmdError::invalid_argument(
            cmd,
            "A selector works within one file; name exactly one file.",
        ));
    }
    common::require_hash(cmd, sel.as_ref(), &expect, &path_args[0])?;
    let dry_run = args.guarded.guard.dry.dry_run;
    let mut skipped: Vec<Skipped> = Vec::new();
    let mut done = Done::default();
    // Per-file counts say what a replace did; a dry run adds a few changed lines
    // as `sample`, and `--max-diff-lines N` (or `aitools diff --op <op_id>`) shows
    // the diffs.
    let req = WriteRequest::new(ctx)
        .dry_run(dry_run)
        .max_diff_lines(Some(0));
    let committed = write::submit(ctx, &req, || {
        let targets = collect(
            ctx,
            &path_args,
            &scan_opts,
            sel.is_some(),
            bytes_re.as_ref(),
            &mut skipped,
            args.sel.encoding(),
        )?;
        let mut changes: Vec<Change> = Vec::new();
        for (k, t) in targets.iter().enumerate() {
            common::check_target_hash(&expect, t, k == 0)?;
            let blocks = match &sel {
                Some(s) => Some(select::select(&t.doc, &t.display, s)?),
                None => None,
            };
            if let Some(doc) = done.replace_in(cmd, &replacer, t, blocks.as_deref(), dry_run)? {
                changes.extend(put_if_changed(t, doc)?);
            }
        }
        if let (0, Some(n), 1..) = (done.total, nth, done.found) {
            return Err(nth_past(ctx, n, &pattern, &done, targets.len() > 1));
        }
        if done.total == 0 {
            return Err(matched_nothing(&pattern, &path_args, &skipped));
        }
        guard::check_count(cmd, &ctx.argv, expect_count, done.total, dry_run)?;
        Ok(changes)
    })?;
    let mut committed = committed;
    for c in &mut committed.changes {
        c.count = done
            .counts
            .iter()
            .find(|(p, _)| *p == c.path)
            .map(|(_, n)| *n);
        // One replacement per changed line: the count says it all.
        if ctx.max_diff_lines.is_none() && c.added == c.count && c.deleted == c.count {
            c.added = None;
            c.deleted = None;
        }
        // The dry run that gave --expect-count listed them; the total is the guard.
        if !dry_run && expect_count.is_some() {
            c.count = None;
        }
    }
    let mut extra: Vec<(&str, Json)> = Vec::new();
    if dry_run {
        extra.push(("expect_count", Json::UInt(done.total)));
        if ctx.max_diff_lines.is_none() && !done.sample.is_empty() {
            extra.push(("sample", Json::from_serialize(&done.sample)));
        }
    }
    if !skipped.is_empty() {
        extra.push(("skipped", Json::from_serialize(&skipped)));
    }
    Ok(committed.into_output(extra))
}

/// PATTERN, REPLACEMENT and the paths (`.` when none), from the words or from
/// `--stdin`'s `{"pattern","replacement"}`.
fn words(
    ctx: &Ctx,
    cmd: &str,
    args: &ReplaceArgs,
) -> Result<(String, String, Vec<String>), CmdError> {
    let (pattern, replacement, paths) = match args.guarded.input(ctx, cmd)? {
        Some(json) => {
            let (p, r) = parse_stdin(cmd, &json)?;
            (p, r, args.words.clone())
        }
        None => match args.words.as_slice() {
            [p, r, rest @ ..] => (p.clone(), r.clone(), rest.to_vec()),
            _ => {
                return Err(CmdError::invalid_argument(
                    cmd,
                    "replace takes PATTERN REPLACEMENT [PATH...] (or --stdin with {\"pattern\",\"replacement\"}).",
                ));
            }
        },
    };
    let paths = if paths.is_empty() {
        vec![".".to_string()]
    } else {
        paths
    };
    Ok((pattern, replacement, paths))
}

/// The replacer the flags describe, and the same pattern over bytes (it says
/// which skipped binary or non-UTF-8 files hold it).
fn replacer(
    cmd: &str,
    args: &ReplaceArgs,
    pattern: &str,
    replacement: &str,
    nth: Option<u64>,
) -> Result<(Replacer, Option<regex::bytes::Regex>), CmdError> {
    let mut source = if args.matching.fixed {
        regex::escape(pattern)
    } else {
        pattern.to_string()
    };
    if args.matching.word {
        source = format!(r"\b(?:{source})\b");
    }
    let re = RegexBuilder::new(&source)
        .case_insensitive(args.matching.ignore_case)
        .multi_line(true)
        .crlf(true)
        .size_limit(64 << 20)
        .build()
        .map_err(|e| {
            CmdError::bad_pattern(
                "The pattern",
                pattern,
                &e,
                Repair::new(
                    "fixed",
                    "Escape the pattern, or pass --fixed to match it as literal text.",
                    "aitools schema replace",
                ),
            )
        })?;
    let template = if args.literal_replacement {
        Template::literal(replacement)
    } else {
        let t = Template::parse(replacement).map_err(|m| CmdError::invalid_argument(cmd, m))?;
        t.check(&re)
            .map_err(|m| CmdError::invalid_argument(cmd, m))?;
        t
    };
    let bytes_re = regex::bytes::RegexBuilder::new(&source)
        .case_insensitive(args.matching.ignore_case)
        .multi_line(true)
        .crlf(true)
        .size_limit(64 << 20)
        .build()
        .ok();
    let replacer = Replacer {
        re,
        template,
        multiline: args.matching.multiline,
        nth,
    };
    Ok((replacer, bytes_re))
}

/// What the replacements came to: per-file counts, their total, the most
/// matches one file had (--nth or not: it says why an --nth past them replaced
/// nothing) and where, and a dry run's sample lines.
#[derive(Default)]
struct Done {
    counts: Vec<(String, u64)>,
    total: u64,
    found: u64,
    most: String,
    sample: Vec<String>,
}

impl Done {
    /// `t` with its matches (within `blocks`) replaced, or `None` when none was.
    fn replace_in(
        &mut self,
        cmd: &str,
        replacer: &Replacer,
        t: &Target,
        blocks: Option<&[Block]>,
        dry_run: bool,
    ) -> Result<Option<Doc>, CmdError> {
        let mut seen = 0;
        let applied = replacer
            .apply(&t.doc, blocks, &mut seen)
            .map_err(|m| CmdError::invalid_argument(cmd, format!("{}: {m}", t.display)))?;
        if seen > self.found {
            self.found = seen;
            self.most = t.display.clone();
        }
        let Some((doc, n)) = applied else {
            return Ok(None);
        };
        guard::refuse_built_mask(
            "The replacement, as expanded,",
            Some(&t.display),
            t.doc.text.as_bytes(),
            doc.text.as_bytes(),
        )?;
        self.total += n;
        self.counts.push((t.display.clone(), n));
        if dry_run && self.sample.len() < SAMPLES {
            self.sample.extend(first_change(&t.display, &t.doc, &doc));
        }
        Ok(Some(doc))
    }
}

/// `--nth N` past every file's matches: the dry run that lists them.
fn nth_past(ctx: &Ctx, n: u64, pattern: &str, done: &Done, many: bool) -> CmdError {
    let dry = shell::rerun(&ctx.argv, &["--nth"], &["--dry-run"], &["--dry-run".into()]);
    CmdError::new(
        code::NO_MATCH,
        format!(
            "--nth {n} is past the matches: {pattern:?} matches only {} time(s) in {}{}.",
            done.found,
            done.most,
            if many {
                ", the most of any file (--nth counts within each file)"
            } else {
                ""
            }
        ),
        Repair::new(
            "nth",
            "See every match, then pick one that exists with --nth.",
            shell::aitools(&dry),
        ),
    )
}

/// Changed lines a dry run shows as `sample`: the first of each of the first files.
const SAMPLES: usize = 3;
/// Characters of a sample line shown (its indentation left out).
const SAMPLE_CHARS: usize = 100;

/// Lines before a changed one whose secrets a sample masks too (a key block).
const SAMPLE_CONTEXT: usize = 8;

/// `path:line: text` of the first line `after` changed (as it reads after). The
/// envelope's mask sees only this line, so a secret the line held before (which
/// the replacement may have moved out of its key's reach) is masked here.
/// `selection.no-match` for a pattern no file holds: the files skipped as not
/// editable text that hold it named, and a search for it. A random-looking word of
/// the echoed pattern is masked, as in a pattern that does not parse.
fn matched_nothing(pattern: &str, path_args: &[String], skipped: &[Skipped]) -> CmdError {
    let shown: Vec<&str> = path_args.iter().map(String::as_str).collect();
    let mut words = vec!["search", pattern];
    words.extend(shown.iter().copied());
    let held: Vec<String> = skipped
        .iter()
        .filter(|s| s.reason == "binary" || s.reason == "not-utf8")
        .map(|s| format!("{} ({})", s.path, s.reason))
        .collect();
    let also = if held.is_empty() {
        String::new()
    } else {
        format!(
            "; files skipped as not editable text hold it: {}",
            held.join(", ")
        )
    };
    CmdError::new(
        code::NO_MATCH,
        format!("{pattern:?} matches nothing in {}{also}.", shown.join(" ")),
        Repair::new(
            "search",
            "Search for the text to see how it is written now.",
            shell::aitools(words),
        ),
    )
    .masking_pattern(pattern)
}

fn first_change(path: &str, before: &Doc, after: &Doc) -> Option<String> {
    let i = (0..after.line_count())
        .find(|&i| i >= before.line_count() || before.content(i) != after.content(i))?;
    let was: Vec<&str> = (i.saturating_sub(SAMPLE_CONTEXT)..=i)
        .filter(|&k| k < before.line_count())
        .map(|k| before.content(k))
        .collect();
    let text = mask_like(&was.join("\n"), after.content(i));
    let text = text.trim_start();
    let shown = match text.char_indices().nth(SAMPLE_CHARS) {
        Some((cut, _)) => format!("{}...", text.get(..cut).unwrap_or(text)),
        None => text.to_string(),
    };
    Some(format!("{path}:{}: {shown}", i + 1))
}

/// `text` with every secret value of `was` masked, in any ASCII case. Not the
/// envelope's second pass (`redact::second`): that re-masks values the first pass
/// masked in the envelope, and `was` (the lines before) is never in it, so a
/// value whose key the replacement renamed would be shown (tests/families/redaction.rs).
fn mask_like(was: &str, text: &str) -> String {
    use crate::protocol::redact::{PLACEHOLDER, secret_spans};
    let mut out = text.to_string();
    for r in secret_spans(was) {
        let Some(value) = was.get(r).filter(|v| v.len() >= 4) else {
            continue;
        };
        let low = value.to_ascii_lowercase();
        let mut from = 0;
        while let Some(at) = out
            .get(from..)
            .and_then(|rest| rest.to_ascii_lowercase().find(&low))
        {
            let start = from + at;
            out.replace_range(start..start + value.len(), PLACEHOLDER);
            from = start + PLACEHOLDER.len();
        }
    }
    out
}

/// A file a scan passed over, and why.
#[derive(serde::Serialize)]
struct Skipped {
    path: String,
    reason: &'static str,
}

/// The files to replace in: named files strictly (binary, non-UTF-8 or a
/// directory where one file is needed are errors), files found by scanning a
/// directory leniently (binary, non-UTF-8 and too-large files are skipped and
/// listed in `skipped`; binary and non-UTF-8 ones only when `bytes_re` matches
/// them, as a file without the pattern would be left alone anyway).
fn collect(
    ctx: &Ctx,
    path_args: &[String],
    opts: &ScanOptions,
    one_file: bool,
    bytes_re: Option<&regex::bytes::Regex>,
    skipped: &mut Vec<Skipped>,
    enc: Option<crate::text::decode::Encoding>,
) -> Result<Vec<Target>, CmdError> {
    let mut out: Vec<Target> = Vec::new();
    for arg in path_args {
        let abs = ctx.path_arg(arg)?;
        let meta = ctx.files().stat(&abs, true)?;
        if meta.kind == crate::store::files::Kind::Missing {
            let e = std::io::Error::from(std::io::ErrorKind::NotFound);
            return Err(common::not_found_or_io(ctx, arg, &e));
        }
        if meta.kind == crate::store::files::Kind::Dir && !one_file {
            let real = crate::workspace::paths::real_path(ctx.dirs(), &abs);
            common::check_inside(ctx, &real, &ctx.display_path(&abs))?;
            let (files, passed) =
                scan::files_and_skipped(&ctx.root, std::slice::from_ref(&abs), opts).map_err(
                    |e| {
                        if e.kind() == std::io::ErrorKind::InvalidInput {
                            CmdError::invalid_argument(&ctx.command, e.to_string())
                        } else {
                            crate::protocol::error::io_error(&ctx.command, arg, &e)
                        }
                    },
                )?;
            for (p, why) in passed {
                skipped.push(Skipped {
                    path: ctx.display_path(&p),
                    reason: why.name(),
                });
            }
            for f in files {
                // Absolute, so it resolves the same from any working directory.
                match common::load(ctx, &f.to_string_lossy(), enc) {
                    Ok(t) => out.push(t),
                    Err(e) if [code::NOT_A_FILE, code::NOT_UTF8].contains(&e.code) => {
                        let holds = match (bytes_re, ctx.files().load(&f)) {
                            (Some(re), Ok(snap)) => re.is_match(&snap.bytes),
                            _ => false,
                        };
                        if holds {
                            skipped.push(Skipped {
                                path: ctx.display_path(&f),
                                reason: if e.code == code::NOT_UTF8 {
                                    "not-utf8"
                                } else {
                                    "binary"
                                },
                            });
                        }
                    }
                    Err(e) if e.code == code::OUTSIDE_WORKSPACE => {}
                    // Swapped for a symlink since the walk listed it: passed over
                    // like an entry that vanished, never read through the link.
                    Err(e) if e.code == code::TARGET_CHANGED => skipped.push(Skipped {
                        path: ctx.display_real(&f),
                        reason: "unreadable",
                    }),
                    // A file in the tree the caller may not read (mode 000): named,
                    // like search names it, rather than failing the whole replace.
                    Err(e)
                        if e.code == code::IO
                            && ctx
                                .files()
                                .load(&f)
                                .err()
                                .is_some_and(|s| s.is_permission_denied()) =>
                    {
                        skipped.push(Skipped {
                            path: ctx.display_path(&f),
                            reason: "unreadable",
                        })
                    }
                    Err(e) => return Err(e),
                }
            }
        } else {
            out.push(common::load(ctx, arg, enc)?);
        }
    }
    out.sort_by(|a, b| a.display.cmp(&b.display));
    skipped.sort_by(|a, b| a.path.cmp(&b.path));
    skipped.dedup_by(|a, b| a.path == b.path);
    // One file named twice (a symlink, `dir` and `dir/f`) is replaced in once, even
    // when its names do not sort next to each other.
    let mut seen = std::collections::BTreeSet::new();
    out.retain(|t| seen.insert(t.real.clone()));
    Ok(out)
}

/// `{"pattern","replacement"}` from the input.
fn parse_stdin(cmd: &str, text: &str) -> Result<(String, String), CmdError> {
    let bad = |m: &str| CmdError::invalid_argument(cmd, m.to_string());
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        CmdError::invalid_argument(cmd, format!("The --stdin input is not JSON: {e}."))
    })?;
    let o = v
        .as_object()
        .ok_or_else(|| bad("The --stdin input is {\"pattern\",\"replacement\"}."))?;
    if o.keys().any(|k| k != "pattern" && k != "replacement") {
        return Err(bad(
            "The --stdin input has only \"pattern\" and \"replacement\".",
        ));
    }
    let get = |k: &str| o.get(k).and_then(|x| x.as_str()).map(str::to_string);
    match (get("pattern"), get("replacement")) {
        (Some(p), Some(r)) => Ok((p, r)),
        _ => Err(bad(
            "The --stdin input needs string \"pattern\" and \"replacement\".",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rep(pat: &str, tpl: &str, multiline: bool, nth: Option<u64>, text: &str) -> (String, u64) {
        let r = Replacer {
            re: RegexBuilder::new(pat)
                .multi_line(true)
                .crlf(true)
                .build()
                .unwrap(),
            template: Template::parse(tpl).unwrap(),
            multiline,
            nth,
        };
        match r
            .apply(&Doc::from_text(false, text.into()), None, &mut 0)
            .unwrap()
        {
            Some((d, n)) => (d.text, n),
            None => (text.to_string(), 0),
        }
    }

    #[test]
    fn per_line_keeps_crlf_and_anchors() {
        assert_eq!(
            rep("b$", "X", false, None, "ab\r\nb\r\nc"),
            ("aX\r\nX\r\nc".into(), 2)
        );
        assert_eq!(rep("^", "> ", false, None, "a\nb"), ("> a\n> b".into(), 2));
        assert_eq!(
            rep(r"\s+", "", false, None, "a b\nc d\n"),
            ("ab\ncd\n".into(), 2)
        );
    }

    #[test]
    fn multiline_crosses_lines() {
        assert_eq!(rep(r"a\nb", "ab", true, None, "a\nb\n"), ("ab\n".into(), 1));
        assert_eq!(
            rep(r"a\nb", "ab", false, None, "a\nb\n"),
            ("a\nb\n".into(), 0)
        );
    }

    #[test]
    fn nth_counts_across_the_file() {
        assert_eq!(
            rep("x", "y", false, Some(2), "x x\nx\n"),
            ("x y\nx\n".into(), 1)
        );
    }

    #[test]
    fn selection_limits_lines() {
        let r = Replacer {
            re: Regex::new("x").unwrap(),
            template: Template::parse("y").unwrap(),
            multiline: false,
            nth: None,
        };
        let d = Doc::from_text(false, "x\nx\nx\n".into());
        let blocks: Vec<Block> = vec![1..2];
        let (out, n) = r.apply(&d, Some(&blocks), &mut 0).unwrap().unwrap();
        assert_eq!((out.text.as_str(), n), ("x\ny\nx\n", 1));
    }
}
