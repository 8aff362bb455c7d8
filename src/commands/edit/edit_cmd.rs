//! `edit`: replace the text `--old` names, or the lines a selector picks, with
//! `--new` ('' deletes); or a list of content-selected edits from `--stdin`,
//! applied in order, all or nothing.

use super::anchored;
use super::common::{self, SelectorArgs, Target};
use super::matching::{self, Miss, Strategy};
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell};
use crate::store::guard;
use crate::store::write::{self, Change, WriteRequest};
use crate::text::doc::Doc;
use crate::text::select::{self, Selector};
use crate::workspace::Ctx;
use clap::Args;

#[derive(Args, Debug)]
pub struct EditArgs {
    /// The file to edit.
    #[arg(value_name = "PATH")]
    pub path: String,
    /// Text to replace; exact, then whitespace-insensitive.
    #[arg(long, allow_hyphen_values = true)]
    pub old: Option<String>,
    /// Replacement; '' deletes the selection.
    #[arg(long, allow_hyphen_values = true)]
    pub new: Option<String>,
    #[command(flatten)]
    pub sel: SelectorArgs,
    /// LINE:TAG from read --anchors: replace that line, only if its tag still matches.
    #[arg(long, value_name = "LINE:TAG")]
    pub at: Option<String>,
    /// With --at: the range's last line LINE:TAG (checked too).
    #[arg(long, value_name = "LINE:TAG", requires = "at")]
    pub to: Option<String>,
    #[command(flatten)]
    pub guarded: common::GuardedInput,
}

pub const SPEC: CommandSpec = CommandSpec {
    name: "edit",
    summary: "Replace text chosen by --old or a selector (sed -i).",
    description: "--old matches exactly first (also with the file's line endings), then line-wise ignoring leading and trailing whitespace, re-indenting --new so its least indented lines take the indentation of the file line --old's least indented line matched, its own nesting kept. An exact one-line --old that starts after its line's indentation gives a multi-line --new's later lines that indentation (strategy: reindent), unless they already start with it (and do not leave an opened block, a first line ending in : { ( [, empty); a --new whose first line starts with that indentation replaces from the line's start. --symbol re-indents --new the same way to the definition's indentation. More than one place is selection.ambiguous with candidates, never the first. Line selectors replace whole lines including their newline; --at LINE:TAG (--to LINE:TAG) replaces lines whose read --anchors tags still match, else refusal.target-changed with the line's current tag and the nearest lines carrying the expected one; --match replaces every selected line and needs --expect-count. --stdin reads {\"old\",\"new\"} or {\"edits\":[{old|between(+exclusive)|match(+invert,expect_count)..., new}]} applied in order, all or nothing; edits[] accept only content-based selectors. New text takes the line ending of the place it lands; BOM, other lines' endings and a missing final newline are kept. The file is replaced by a new one renamed over it (atomic), mode kept: another hard link to it keeps the old content.",
    args: <EditArgs as clap::Args>::augment_args,
    output_fields: &[
        write::FIELD_CHANGES,
        field(
            "changes[].lines",
            "An exact --old edit: the lines --new spans after the edit (S or S:E), in place of diff, added and deleted, which --dry-run or --max-diff-lines N shows.",
        ),
        write::FIELD_OP_ID,
        write::FIELD_DRY_RUN,
        field(
            "expect_count",
            "With --dry-run of a --match selection: the lines it selected, the value a real run passes as --expect-count.",
        ),
        field(
            "strategy",
            "whitespace when --old matched only with other indentation; reindent when it matched exactly after its line's indentation and --new's later lines were given that indentation (absent when exact, as given).",
        ),
        write::FIELD_NEXT,
    ],
    error_codes: common::TEXT_EDIT_ERRORS,
    writes: true,
    tx: true,
    workspace: true,
    effects: Effects::NONE,
    run: handler!(EditArgs, run),
};

/// One step of an edit.
enum Step {
    Old {
        old: String,
        new: String,
    },
    Select {
        sel: Selector,
        new: String,
        expect_count: Option<u64>,
    },
    Anchored {
        from: anchored::Anchor,
        to: anchored::Anchor,
        new: String,
    },
}

pub fn run(ctx: &Ctx, args: &EditArgs) -> Result<Output, CmdError> {
    let cmd = "edit";
    let sel = args.sel.parse(cmd)?;
    let input = args.guarded.input(ctx, cmd)?;
    let expect_count = args.guarded.expect_count(cmd)?;
    let expect = args.guarded.expect_hash(cmd)?;
    let steps = steps_of(args, sel, input, expect_count, &expect)?;
    let dry_run = args.guarded.guard.dry.dry_run;
    let mut done = Done::default();
    let committed = write::submit(ctx, &WriteRequest::new(ctx).dry_run(dry_run), || {
        // One --old edit of a UTF-8 file: spliced into the bytes as read.
        if let ([Step::Old { old, new }], None) = (steps.as_slice(), args.sel.encoding())
            && let Some((changes, at)) = exact_splice(ctx, &args.path, old, new, &expect)?
        {
            done.strategy = Some(Strategy::Exact);
            done.landed = Some(at);
            return Ok(changes);
        }
        let t = common::load(ctx, &args.path, args.sel.encoding())?;
        common::check_target_hash(&expect, &t, true)?;
        match done.apply(ctx, &t, &steps, dry_run)? {
            Some(d) => put_if_changed(&t, d),
            None => Ok(Vec::new()),
        }
    })?;
    let mut extra: Vec<(&str, Json)> = Vec::new();
    if let (true, Some(n)) = (dry_run, done.selected) {
        extra.push(("expect_count", Json::UInt(n)));
    }
    // `exact` is what --old asks for; only another strategy is news.
    if let Some(s) = done.strategy.filter(|s| s.name() != "exact") {
        extra.push(("strategy", Json::str(s.name())));
    }
    let mut out = committed.into_output(extra);
    // The caller wrote both sides of an exact edit: echoed back as a diff they say
    // nothing new, where they landed does (a dry run or --max-diff-lines N shows it).
    if let (Some(at), false, None | Some(0)) = (done.landed, dry_run, ctx.max_diff_lines) {
        crate::protocol::compact::drop_diffs(&mut out.fields, &[at]);
    }
    Ok(out)
}

/// The edit's steps: exactly one of --old, a selector, --at or --stdin, with
/// --new (or the input's own "new"); refused before anything is read.
fn steps_of(
    args: &EditArgs,
    sel: Option<Selector>,
    input: Option<String>,
    expect_count: Option<u64>,
    expect: &guard::ExpectHash,
) -> Result<Vec<Step>, CmdError> {
    let cmd = "edit";
    let sources = [
        args.old.is_some(),
        sel.is_some(),
        input.is_some(),
        args.at.is_some(),
    ]
    .iter()
    .filter(|b| **b)
    .count();
    if sources != 1 {
        return Err(CmdError::invalid_argument(
            cmd,
            if sources == 0 {
                "Say what to replace: --old TEXT, a selector (--range, --symbol, --between, --match), --at LINE:TAG, or --stdin."
            } else {
                "--old, a selector, --at and --stdin are different selections; use one."
            },
        ));
    }
    if let Some(json) = input {
        if args.new.is_some() {
            return Err(CmdError::invalid_argument(
                cmd,
                "With --stdin the replacement is the input's \"new\"; drop --new.",
            ));
        }
        guard::refuse_redacted("The --stdin input", Some(&args.path), json.as_bytes())?;
        return parse_stdin(cmd, &json, expect_count);
    }
    let Some(new) = args.new.clone() else {
        return Err(CmdError::invalid_argument(
            cmd,
            "--new is required ('' deletes the selection).",
        ));
    };
    guard::refuse_redacted("--new", Some(&args.path), new.as_bytes())?;
    match (&args.old, sel) {
        _ if args.at.is_some() => {
            let at = args.at.as_deref().unwrap_or("");
            let (from, to) = anchored::parse(cmd, at, args.to.as_deref())?;
            Ok(vec![Step::Anchored { from, to, new }])
        }
        (Some(old), _) => old_step(args, old, new, expect_count),
        (None, Some(sel)) => {
            common::require_hash(cmd, Some(&sel), expect, &args.path)?;
            Ok(vec![Step::Select {
                sel,
                new,
                expect_count,
            }])
        }
        (None, None) => Err(CmdError::internal("edit: no selection after validation")),
    }
}

/// The one step of `--old OLD --new NEW`: refused when OLD is empty (insert
/// adds text) or a count guard says other than 1.
fn old_step(
    args: &EditArgs,
    old: &str,
    new: String,
    expect_count: Option<u64>,
) -> Result<Vec<Step>, CmdError> {
    let cmd = "edit";
    guard::refuse_redacted("--old", Some(&args.path), old.as_bytes())?;
    if old.is_empty() {
        // Empty --old usually means "add text" (an empty file has
        // nothing to select): insert is the command for that.
        let insert = crate::protocol::shell::join([
            "aitools",
            "insert",
            args.path.as_str(),
            "--at",
            "end",
            "--content",
            new.as_str(),
        ]);
        return Err(
            CmdError::invalid_argument(cmd, "--old is empty; name the text to replace.")
                .with_first_repair(Repair::new(
                    "insert",
                    "To add text rather than replace some, insert it (--at start|end, or --before/--after a selector).",
                    insert,
                )),
        );
    }
    // --old selects one place; a count guard can only say 1.
    if let Some(n) = expect_count.filter(|n| *n != 1) {
        return Err(CmdError::new(
            code::COUNT_MISMATCH,
            format!("--expect-count is {n}, but --old selects exactly one place."),
            Repair::new(
                "match",
                "To change every line matching a pattern, use --match with --expect-count, or replace.",
                "aitools schema replace",
            ),
        ));
    }
    Ok(vec![Step::Old {
        old: old.to_string(),
        new,
    }])
}

/// What the steps came to: the loosest strategy an --old step needed, the
/// lines a many-place selector selected, and where an exact --old edit's
/// --new landed (`S` or `S:E`).
#[derive(Default)]
struct Done {
    strategy: Option<Strategy>,
    selected: Option<u64>,
    landed: Option<String>,
}

impl Done {
    /// The document after every step, or `None` when there was none to apply.
    fn apply(
        &mut self,
        ctx: &Ctx,
        t: &Target,
        steps: &[Step],
        dry_run: bool,
    ) -> Result<Option<Doc>, CmdError> {
        // The edited document, once a step has changed it (no copy of a large
        // file before then).
        let mut edited: Option<Doc> = None;
        for (i, step) in steps.iter().enumerate() {
            let doc = edited.as_ref().unwrap_or(&t.doc);
            let label = if steps.len() > 1 {
                format!("edits[{i}]: ")
            } else {
                String::new()
            };
            let next = match step {
                Step::Old { old, new } => {
                    let (d, s) = matching::edit_old(doc, old, new)
                        .map_err(|m| miss_error(t, doc, &label, old, m))?;
                    self.strategy = Some(self.strategy.map_or(s, |was| was.max(s)));
                    d
                }
                Step::Select {
                    sel,
                    new,
                    expect_count,
                } => {
                    let (d, n) = edit_selection(ctx, t, doc, sel, new, *expect_count, dry_run)?;
                    if sel.is_many() {
                        self.selected = Some(self.selected.unwrap_or(0) + n);
                    }
                    d
                }
                Step::Anchored { from, to, new } => {
                    anchored::edit(&ctx.argv, &t.display, doc, (from, to), new)?
                }
            };
            edited = Some(next);
        }
        Ok(edited)
    }
}

/// One `--old` edit spliced into the file as read: streamed for a large file
/// (`stream::edit_old`), else on its bytes (`splice_old`). The changes and where
/// `new` landed; `None` leaves the call to the document path.
fn exact_splice(
    ctx: &Ctx,
    arg: &str,
    old: &str,
    new: &str,
    expect: &guard::ExpectHash,
) -> Result<Option<(Vec<Change>, String)>, CmdError> {
    // A large file: one streaming pass, never held whole.
    if let Some(done) = super::stream::edit_old(ctx, arg, old, new, expect)? {
        return Ok(Some(done));
    }
    let (real, display, snap) = common::locate(ctx, arg)?;
    let Some((splice, at)) = splice_old(&snap.bytes, old, new) else {
        return Ok(None);
    };
    if let Some(h) = expect.for_target(arg, &display, true) {
        guard::check_hash(&display, h, Some(&snap.hash))?;
    }
    // Written as the file's head, `with` and its tail: the edited file is
    // never built in memory.
    let changes = splice.map(|(range, with)| Change::Splice {
        path: real,
        base: snap.clone(),
        range,
        with: with.into_bytes(),
    });
    Ok(Some((changes.into_iter().collect(), at)))
}

/// A one `--old` edit done on the file's bytes, for a file `Doc::decode` takes
/// and an `--old` that occurs exactly once: the byte range replaced and the text
/// that replaces it, which make the same bytes the document path writes, without
/// a decoded copy of the file or its line table and without the edited file
/// built in memory (`Change::Splice` writes it in pieces), so a large file is held
/// once. `Some(None)` when the edit changes nothing; `None` leaves the call to the
/// document path (its errors, the whitespace strategy). With the splice, the lines
/// `new` spans in the edited file (`S` or `S:E`; a deletion's is the line it left).
use super::stream::{Splice, place};
fn splice_old(bytes: &[u8], old: &str, new: &str) -> Option<(Option<Splice>, String)> {
    if crate::text::sniff::is_binary(bytes) {
        return None;
    }
    let skip = if bytes.starts_with(crate::text::BOM) {
        crate::text::BOM.len()
    } else {
        0
    };
    let text = std::str::from_utf8(bytes.get(skip..)?).ok()?;
    let range = matching::unique_exact(text, old)?;
    let dominant = || {
        let crlf = memchr::memmem::find_iter(text.as_bytes(), b"\r\n").count();
        let lf = memchr::memchr_iter(b'\n', text.as_bytes()).count() - crlf;
        Some(if crlf > lf { "\r\n" } else { "\n" })
    };
    let (splice, at) = place(text, range, old, new, 0, dominant)?;
    Some((
        splice.map(|(r, with)| (skip + r.start..skip + r.end, with)),
        at,
    ))
}

/// The change writing `doc` over the target (in its `--encoding`), or none when
/// nothing changed.
pub fn put_if_changed(t: &Target, doc: Doc) -> Result<Vec<Change>, CmdError> {
    if doc.text == t.doc.text && doc.bom == t.doc.bom {
        return Ok(Vec::new());
    }
    Ok(vec![Change::Put {
        path: t.real.clone(),
        bytes: t.encoded(doc)?,
        mode: None,
    }])
}

/// Replaces what a line selector picks; returns the new document and how many
/// lines were selected.
fn edit_selection(
    ctx: &Ctx,
    t: &Target,
    doc: &Doc,
    sel: &Selector,
    new: &str,
    expect_count: Option<u64>,
    dry_run: bool,
) -> Result<(Doc, u64), CmdError> {
    let blocks = select::select(doc, &t.display, sel)?;
    if sel.is_many() {
        let n = blocks.iter().map(|b| (b.end - b.start) as u64).sum();
        guard::check_count("edit", &ctx.argv, expect_count, n, dry_run)?;
        let mut d: Option<Doc> = None;
        for b in blocks.iter().rev() {
            d = Some(d.as_ref().unwrap_or(doc).replace_block(b.start, b.end, new));
        }
        return Ok((d.unwrap_or_else(|| doc.clone()), n));
    }
    match blocks.as_slice() {
        [b] => {
            // A definition's replacement lands at the definition's depth (a
            // method's --new may be written at column 0), its nesting kept.
            let new = match sel {
                Selector::Symbol { .. } => {
                    matching::shift_to(new, crate::text::doc::indent_of(doc.content(b.start)))
                }
                _ => new.to_string(),
            };
            Ok((
                doc.replace_block(b.start, b.end, &new),
                (b.end - b.start) as u64,
            ))
        }
        _ => Err(CmdError::new(
            code::AMBIGUOUS,
            format!(
                "{} selects {} places in {}; an edit changes one.",
                sel.flag(),
                blocks.len(),
                t.display
            ),
            Repair::new(
                "read",
                "Read the places, then select one with --range (and --expect-hash).",
                shell::aitools(["read", &t.display]),
            ),
        )
        .with_candidates(select::candidates(doc, blocks.iter().map(|b| b.start)))),
    }
}

/// `selection.no-match` (with the nearest lines) or `selection.ambiguous` (with
/// every place) for `--old`.
fn miss_error(t: &Target, doc: &Doc, label: &str, old: &str, miss: Miss) -> CmdError {
    let read = Repair::new(
        "read",
        "Read the file to choose a unique, current selection.",
        shell::aitools(["read", &t.display]),
    );
    match miss {
        Miss::NoMatch => {
            let near = select::nearest_lines(doc, old, 5);
            let mut e = CmdError::new(
                code::NO_MATCH,
                format!(
                    "{label}--old matches nothing in {}, exactly or ignoring leading and trailing whitespace.",
                    t.display
                ),
                read,
            );
            if let Some(&first) = near.first() {
                let from = first.saturating_sub(2) + 1;
                e = e.with_first_repair(Repair::new(
                    "read",
                    "Read the lines around the nearest match and copy --old from them.",
                    shell::aitools(["read", &t.display, "--range", &format!("{from}:{}", from + 9)]),
                ));
                e = e.with_candidates(select::candidates(doc, near));
            }
            e
        }
        Miss::Ambiguous(lines) => CmdError::new(
            code::AMBIGUOUS,
            format!(
                "{label}--old matches {} places in {}; include surrounding lines to make it unique.",
                lines.len(),
                t.display
            ),
            read,
        )
        .with_candidates(select::candidates(doc, lines)),
    }
}

/// `{"old","new"}` or `{"edits":[...]}` from the input.
fn parse_stdin(cmd: &str, text: &str, expect_count: Option<u64>) -> Result<Vec<Step>, CmdError> {
    let bad = |m: String| CmdError::invalid_argument(cmd, m);
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| bad(format!("The --stdin input is not JSON: {e}.")))?;
    let obj = v.as_object().ok_or_else(|| {
        bad("The --stdin input must be an object: {\"old\",\"new\"} or {\"edits\":[...]}.".into())
    })?;
    let list: Vec<&serde_json::Value> = match obj.get("edits") {
        Some(serde_json::Value::Array(a)) => {
            if obj.len() != 1 {
                return Err(bad("With \"edits\", the input has no other members.".into()));
            }
            a.iter().collect()
        }
        Some(_) => return Err(bad("\"edits\" must be an array.".into())),
        None => vec![&v],
    };
    if list.is_empty() {
        return Err(bad("\"edits\" is empty.".into()));
    }
    let single = list.len() == 1;
    let mut steps = Vec::new();
    for (i, e) in list.iter().enumerate() {
        let at = if single {
            String::new()
        } else {
            format!("edits[{i}]: ")
        };
        steps.push(stdin_step(cmd, e, &at, expect_count)?);
    }
    Ok(steps)
}

/// One edit of the --stdin input (`at` prefixes its messages: `edits[i]: `).
fn stdin_step(
    cmd: &str,
    e: &serde_json::Value,
    at: &str,
    expect_count: Option<u64>,
) -> Result<Step, CmdError> {
    let bad = |m: String| CmdError::invalid_argument(cmd, m);
    let o = e
        .as_object()
        .ok_or_else(|| bad(format!("{at}an edit is an object.")))?;
    for k in o.keys() {
        if ![
            "old",
            "new",
            "between",
            "exclusive",
            "match",
            "invert",
            "expect_count",
        ]
        .contains(&k.as_str())
        {
            return Err(bad(format!(
                "{at}unknown member {k:?}; edits take old, between (+exclusive), match (+invert, expect_count), and new."
            )));
        }
    }
    let s = |k: &str| -> Result<Option<String>, CmdError> {
        match o.get(k) {
            None => Ok(None),
            Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(bad(format!("{at}\"{k}\" must be a string."))),
        }
    };
    let flag = |k: &str| -> Result<bool, CmdError> {
        match o.get(k) {
            None => Ok(false),
            Some(serde_json::Value::Bool(b)) => Ok(*b),
            Some(_) => Err(bad(format!("{at}\"{k}\" must be true or false."))),
        }
    };
    let new = s("new")?.ok_or_else(|| bad(format!("{at}\"new\" is required ('' deletes).")))?;
    let between = match o.get("between") {
        None => None,
        Some(serde_json::Value::Array(a)) => match (
            a.first().and_then(|x| x.as_str()),
            a.get(1).and_then(|x| x.as_str()),
        ) {
            (Some(s), Some(e)) if a.len() == 2 => Some((s.to_string(), e.to_string())),
            _ => return Err(bad(format!("{at}\"between\" is [START-RE, END-RE]."))),
        },
        Some(_) => return Err(bad(format!("{at}\"between\" is [START-RE, END-RE]."))),
    };
    let old = s("old")?;
    let m = s("match")?;
    let count = match o.get("expect_count") {
        None => expect_count,
        Some(n) => Some(
            n.as_u64()
                .ok_or_else(|| bad(format!("{at}\"expect_count\" is a count.")))?,
        ),
    };
    let n_sel = [old.is_some(), between.is_some(), m.is_some()]
        .iter()
        .filter(|b| **b)
        .count();
    if n_sel != 1 {
        return Err(bad(format!("{at}give exactly one of old, between, match.")));
    }
    if flag("exclusive")? && between.is_none() {
        return Err(bad(format!("{at}\"exclusive\" goes with \"between\".")));
    }
    if flag("invert")? && m.is_none() {
        return Err(bad(format!("{at}\"invert\" goes with \"match\".")));
    }
    match (old, between, m) {
        (Some(old), _, _) if old.is_empty() => Err(bad(format!("{at}\"old\" is empty."))),
        (Some(old), _, _) => Ok(Step::Old { old, new }),
        (None, Some((s, e)), _) => Ok(Step::Select {
            sel: Selector::Between {
                start: common::compile(cmd, "between START", &s, false)?,
                end: common::compile(cmd, "between END", &e, false)?,
                exclusive: flag("exclusive")?,
            },
            new,
            expect_count: None,
        }),
        (None, None, Some(m)) => Ok(Step::Select {
            sel: Selector::Match {
                re: common::compile(cmd, "match", &m, false)?,
                invert: flag("invert")?,
            },
            new,
            expect_count: count,
        }),
        (None, None, None) => Err(bad(format!("{at}give exactly one of old, between, match."))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte splice writes what the document path writes, or steps aside.
    #[test]
    fn splice_old_agrees_with_the_document_path() {
        let files: [&[u8]; 6] = [
            b"alpha\nbeta gamma\ndelta\n",
            b"\xEF\xBB\xBFone\r\n\ttwo\r\nthree\nfour",
            b"a\r\nb\r\nc\nlast",
            b"x\ny\nlast",
            b"\r\n\r\nq\r\n",
            "caf\u{e9} \u{e9}t\u{e9}\nzz\n".as_bytes(),
        ];
        let edits = [
            ("beta gamma", "BETA"),
            ("one\n\ttwo", "1\n\t2\n\t2b"),
            ("four", "4\n5"),
            ("last", "L1\nL2"),
            ("b\r\nc", "B\nC"),
            ("q", "Q\nR"),
            ("\u{e9}t", "E\n"),
            ("y", "y"),
            ("a", "A"),
            ("zz", ""),
            ("nowhere", "x"),
        ];
        for f in files {
            for (old, new) in edits {
                let by_doc = Doc::decode(f)
                    .ok()
                    .and_then(|d| matching::edit_old(&d, old, new).ok())
                    .filter(|(_, s)| matches!(s, Strategy::Exact))
                    .map(|(d, _)| d.into_bytes());
                match splice_old(f, old, new) {
                    Some((Some((range, with)), _)) => {
                        let mut bytes = f.to_vec();
                        bytes.splice(range, with.into_bytes());
                        assert_eq!(Some(bytes), by_doc, "{f:?} {old:?}")
                    }
                    Some((None, _)) => assert_eq!(by_doc.as_deref(), Some(f), "{f:?} {old:?}"),
                    None => {}
                }
            }
        }
        assert!(splice_old(b"a\0b", "a", "c").is_none());
        assert!(splice_old(b"a a", "a", "c").is_none());
        assert!(splice_old(b"\xffa", "a", "c").is_none());
    }

    /// Where --new lands: its first and last line in the edited file.
    #[test]
    fn splice_old_says_where_new_landed() {
        let at = |f: &[u8], old: &str, new: &str| splice_old(f, old, new).map(|(_, at)| at);
        let f = b"\xEF\xBB\xBFone\r\ntwo\r\nthree\r\n";
        assert_eq!(at(f, "two", "2").as_deref(), Some("2"));
        assert_eq!(at(f, "two\r\n", "2\n2b\n").as_deref(), Some("2:3"));
        assert_eq!(at(f, "two\r\nthree", "x\ny\nz").as_deref(), Some("2:4"));
        assert_eq!(at(f, "two\r\n", "").as_deref(), Some("2"));
        assert_eq!(at(f, "one", "one").as_deref(), Some("1"));
    }
}
