//! `edit --at LINE:TAG [--to LINE:TAG]`: lines replaced only while their anchors
//! (`text::anchor`, what `read --anchors` shows) still match. A stale anchor is
//! `refusal.target-changed` naming the line's current tag and the nearest lines
//! that carry the expected one; when the whole range moved, the repair is the
//! same call at the new line numbers.

use crate::protocol::{CmdError, Json, Repair, code, shell};
use crate::text::anchor;
use crate::text::doc::Doc;
use crate::text::select;

/// A line and the tag the caller saw on it.
pub type Anchor = (usize, String);

/// `--at` and `--to` (default: `--at`'s line) parsed.
pub fn parse(cmd: &str, at: &str, to: Option<&str>) -> Result<(Anchor, Anchor), CmdError> {
    let bad = |m: String| CmdError::invalid_argument(cmd, m);
    let from = anchor::parse(at).map_err(|m| bad(format!("--at {m}")))?;
    let to = match to {
        Some(t) => anchor::parse(t).map_err(|m| bad(format!("--to {m}")))?,
        None => from.clone(),
    };
    if to.0 < from.0 {
        return Err(bad(format!(
            "--to line {} is before --at line {}.",
            to.0, from.0
        )));
    }
    Ok((from, to))
}

/// Lines `from..=to` of `doc` replaced by `new` (as whole lines; '' deletes
/// them), if both anchors still match.
pub fn edit(
    argv: &[String],
    display: &str,
    doc: &Doc,
    (from, to): (&Anchor, &Anchor),
    new: &str,
) -> Result<Doc, CmdError> {
    let n = doc.line_count();
    let tag_at = |line: usize| -> Option<String> {
        (line >= 1 && line <= n).then(|| anchor::tag(doc.content(line - 1)))
    };
    for a in [from, to] {
        if tag_at(a.0).as_deref() != Some(a.1.as_str()) {
            return Err(stale(argv, display, doc, (from, to), a));
        }
    }
    Ok(doc.replace_block(from.0 - 1, to.0, new))
}

/// The lines carrying `tag`, nearest to `line` first (at most 3).
fn nearest_with(doc: &Doc, tag: &str, line: usize) -> Vec<usize> {
    let mut hits: Vec<usize> = (0..doc.line_count())
        .filter(|&i| anchor::tag(doc.content(i)) == tag)
        .collect();
    hits.sort_by_key(|&i| ((i + 1).abs_diff(line), i));
    hits.truncate(3);
    hits
}

fn stale(
    argv: &[String],
    display: &str,
    doc: &Doc,
    (from, to): (&Anchor, &Anchor),
    bad: &Anchor,
) -> CmdError {
    let n = doc.line_count();
    let (line, tag) = bad;
    let now = (*line >= 1 && *line <= n).then(|| doc.content(line - 1));
    let mut d = Json::obj();
    d.push("line", Json::UInt(*line as u64));
    d.push("expected", Json::str(tag.clone()));
    let what = match now {
        Some(text) => {
            let cur = anchor::tag(text);
            d.push("current", Json::str(format!("{line}:{cur}")));
            format!("line {line} of {display} is now {line}:{cur}, not {line}:{tag}")
        }
        None => format!("{display} has {n} lines; line {line} is gone"),
    };
    let near = nearest_with(doc, tag, *line);
    // The whole range moved by the same offset: the call again at its new lines.
    let moved = near.first().and_then(|&i| {
        let delta = (i + 1) as isize - *line as isize;
        let shift = |l: usize| (l as isize + delta) as usize;
        let ok = [from, to].iter().all(|a| {
            let l = shift(a.0);
            l >= 1 && l <= n && anchor::tag(doc.content(l - 1)) == a.1
        });
        ok.then(|| (shift(from.0), shift(to.0)))
    });
    let start = near
        .first()
        .map_or(*line, |i| i + 1)
        .saturating_sub(5)
        .max(1);
    let mut err = CmdError::new(
        code::TARGET_CHANGED,
        format!("The anchor is stale: {what}; nothing was written."),
        Repair::new(
            "read",
            "Read the lines with their anchors again and use the current ones.",
            shell::aitools([
                "read",
                display,
                "--range",
                &format!("{start}:{}", start + 19),
                "--anchors",
            ]),
        ),
    )
    .with_diagnostics(Json::Arr(vec![d]));
    if !near.is_empty() {
        err = err.with_candidates(select::candidates(doc, near));
    }
    if let Some((a, b)) = moved {
        let mut add = vec!["--at".to_string(), format!("{a}:{}", from.1)];
        if argv.iter().any(|w| w == "--to") {
            add.push("--to".into());
            add.push(format!("{b}:{}", to.1));
        }
        let words = shell::rerun(argv, &["--at", "--to"], &[], &add);
        err = err.with_first_repair(Repair::new(
            "moved",
            format!(
                "The same lines (their anchors match) are now at line {a}; this edits them there."
            ),
            shell::aitools(&words),
        ));
    }
    err
}
