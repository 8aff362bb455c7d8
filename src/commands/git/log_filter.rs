//! `git log`'s filters (`--author`, `--since`, `--until`) as the words handed to
//! git, and git's `-p`: each commit's patch within one budget for the page.
//! A value reaches git only joined to its option (`--author=VALUE`), so a value
//! that starts with `-` is never read as another option.

use super::{diff, git};
use crate::protocol::{CmdError, Json, Repair, code, shell, time};
use crate::workspace::Ctx;

/// The units of `N UNITS ago` in seconds (a month is 30 days, a year 365).
const UNITS: &[(&str, i64)] = &[
    ("second", 1),
    ("minute", 60),
    ("hour", 3_600),
    ("day", 86_400),
    ("week", 7 * 86_400),
    ("month", 30 * 86_400),
    ("year", 365 * 86_400),
];

/// The words for git that --author, --since and --until come to.
pub fn filters(
    ctx: &Ctx,
    author: Option<&str>,
    since: Option<&str>,
    until: Option<&str>,
) -> Result<Vec<String>, CmdError> {
    let mut out = Vec::new();
    if let Some(p) = author {
        out.push(format!("--author={p}"));
    }
    for (flag, v) in [("--since", since), ("--until", until)] {
        if let Some(v) = v {
            out.push(format!("{flag}={}", when(ctx, flag, v)?));
        }
    }
    Ok(out)
}

/// git's failure on an --author pattern that is no regular expression (`[`):
/// the caller's argument, not the repository, so `argument.invalid` whose
/// repair is the call with the pattern's special characters escaped (the text
/// as written). Any other failure is returned as it is.
pub fn author_error(ctx: &Ctx, author: Option<&str>, e: CmdError) -> CmdError {
    // git names the pattern's header in its complaint: `header, '[': Invalid …`.
    let Some(p) = author.filter(|p| e.message.contains(&format!("header, '{p}'"))) else {
        return e;
    };
    let mut literal = String::with_capacity(p.len() + 4);
    for c in p.chars() {
        if matches!(c, '\\' | '.' | '[' | ']' | '*' | '^' | '$') {
            literal.push('\\');
        }
        literal.push(c);
    }
    let words = shell::rerun(
        &ctx.argv,
        &["--author"],
        &[],
        &[format!("--author={literal}")],
    );
    CmdError::new(
        code::ARGUMENT_INVALID,
        format!("--author {p:?} is not a regular expression git reads."),
        Repair::new(
            "retry",
            "The same call with the pattern as literal text.",
            shell::aitools(words),
        ),
    )
}

/// A time as git reads it without guessing: ISO 8601 UTC. git reads any word as
/// some time (`garbage` is now; `100.years.ago` wraps past 1970 to the far
/// future), which would answer a wrong page without saying so: a span is counted
/// here from aitools' clock, anything else is refused.
fn when(ctx: &Ctx, flag: &str, v: &str) -> Result<String, CmdError> {
    let t = v.trim();
    // A bare number is no date here (`2024` is not 2024 seconds after 1970).
    let dated = t.contains('-') && !t.starts_with('-') || t.starts_with('@');
    if dated && let Ok(secs) = time::parse(t) {
        return Ok(iso(secs));
    }
    let now = time::now().0;
    if let Some(span) = relative(t) {
        return Ok(iso(now.saturating_sub(span)));
    }
    if let Some(at) = named(t, now) {
        // Up to today is up to now (its 00:00 would leave today out).
        let today = t.eq_ignore_ascii_case("today") && flag == "--until";
        return Ok(iso(if today { now } else { at }));
    }
    Err(CmdError::new(
        code::ARGUMENT_INVALID,
        format!(
            "{flag} {v:?} is not a time aitools reads: write YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS] (UTC), @SECONDS, N UNITS ago (seconds, minutes, hours, days, weeks, months, years), yesterday, today, noon, yesterday noon, this week|month|year, last UNIT or last WEEKDAY."
        ),
        Repair::new(
            "retry",
            format!("The same call without {flag}."),
            shell::aitools(shell::rerun(&ctx.argv, &[flag], &[], &[])),
        ),
    ))
}

/// `secs` as git reads it (its `@N` is misread for small N), within the years
/// 1970..=9999 git counts in.
fn iso(secs: i64) -> String {
    time::iso8601(secs.clamp(0, 253_402_300_799))
}

/// `2 weeks ago`, `2.weeks.ago`, `1 day`: the span in seconds.
fn relative(v: &str) -> Option<i64> {
    let words: Vec<&str> = v.split([' ', '.']).filter(|w| !w.is_empty()).collect();
    let (n, unit) = match words[..] {
        [n, u] | [n, u, "ago"] => (n, u),
        _ => return None,
    };
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) || n.len() > 9 {
        return None;
    }
    let one = unit.strip_suffix('s').unwrap_or(unit);
    let (_, secs) = UNITS.iter().find(|(u, _)| *u == one)?;
    n.parse::<i64>().ok()?.checked_mul(*secs)
}

/// The days of the week as git matches them (3 letters at least), Sunday first.
const WEEKDAYS: &[&str] = &[
    "sunday",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
];

/// The hours git names: `noon` 12:00, `tea` 17:00, `midnight` 00:00.
fn hour(w: &str) -> Option<i64> {
    match w {
        "midnight" => Some(0),
        "noon" => Some(12),
        "tea" => Some(17),
        _ => None,
    }
}

/// git's words for a time, counted from `now` as git counts them: `yesterday`
/// is 24 hours ago, `last week` 7 days ago (`last UNIT` is `1 UNIT ago`), `last
/// tuesday` the latest Tuesday before today at this time of day, `noon` (`tea`)
/// the latest 12:00 (17:00). `today` (and `midnight`) is today's 00:00 UTC and
/// `this week|month|year` the first day's 00:00 (weeks start on Monday): git
/// reads those as now, which finds nothing. `yesterday noon` (`today tea`,
/// `noon yesterday`) is that day at that hour (git goes back one more day
/// before noon).
fn named(v: &str, now: i64) -> Option<i64> {
    let lower = v.to_ascii_lowercase();
    let words: Vec<&str> = lower.split([' ', '.']).filter(|w| !w.is_empty()).collect();
    let day = 86_400;
    let midnight = now.div_euclid(day) * day;
    let on = |d: &str| match d {
        "today" => Some(midnight),
        "yesterday" => Some(midnight - day),
        _ => None,
    };
    match words[..] {
        ["now"] => Some(now),
        ["yesterday"] => Some(now - day),
        ["today"] => Some(midnight),
        [h] if hour(h).is_some() => {
            let at = midnight + hour(h)? * 3_600;
            Some(if at > now { at - day } else { at })
        }
        [a, b] if on(a).is_some() || on(b).is_some() => {
            let (d, h) = if on(a).is_some() { (a, b) } else { (b, a) };
            Some(on(d)? + hour(h)? * 3_600)
        }
        ["this", unit] => this(unit, now),
        ["last", w] => {
            if let Some(span) = relative(&format!("1 {w}")) {
                return Some(now - span);
            }
            let i = WEEKDAYS
                .iter()
                .position(|d| w.len() >= 3 && d.starts_with(w))?;
            // 1970-01-01 was a Thursday.
            let today = (now.div_euclid(day) + 4).rem_euclid(7);
            let back = match (today - i as i64).rem_euclid(7) {
                0 => 7,
                n => n,
            };
            Some(now - back * day)
        }
        _ => None,
    }
}

/// The first second of this week (Monday), month or year, UTC.
fn this(unit: &str, now: i64) -> Option<i64> {
    let day = 86_400;
    let days = now.div_euclid(day);
    let iso = time::iso8601(now);
    match unit {
        // 1970-01-01 was a Thursday: 3 days after a Monday.
        "week" => Some((days - (days + 3).rem_euclid(7)) * day),
        "month" => time::parse(&format!("{}-01", iso.get(..7)?)).ok(),
        "year" => time::parse(&format!("{}-01-01", iso.get(..4)?)).ok(),
        _ => None,
    }
}

/// What `-p` adds to a page: each kept commit's patch (its files in git
/// diff's shape), within one budget of hunk lines for the page.
pub struct Patches {
    /// One value per kept commit: the array of its files.
    pub values: Vec<Json>,
    /// The calls that show the files the budget left without hunks.
    pub next: Vec<String>,
    /// True when the budget stopped the page before its last commit.
    pub stopped: bool,
    /// Values masked in the hunks.
    pub masked: usize,
}

/// The patches of `shas` (newest first; each as the page shows it and its full
/// id) for `pathspecs`. The page stops before
/// a commit whose patch no longer fits the budget; a first commit too large
/// for it keeps its counts, and its files past the budget get their own call.
pub fn patches(
    ctx: &Ctx,
    shas: &[(&str, &str)],
    pathspecs: &[String],
) -> Result<Patches, CmdError> {
    let mut out = Patches {
        values: Vec::new(),
        next: Vec::new(),
        stopped: false,
        masked: 0,
    };
    let ids: Vec<&str> = shas.iter().map(|(_, id)| *id).collect();
    let page = diff::commit_patches(ctx, &ids, pathspecs, diff::DEFAULT_MAX_LINES)?;
    for (i, ((sha, _), p)) in shas.iter().zip(page).enumerate() {
        if !p.summarized.is_empty() && i > 0 {
            out.stopped = true;
            break;
        }
        out.masked += p.masked;
        out.values.push(Json::from_serialize(&p.files));
        if !p.summarized.is_empty() {
            out.next = file_calls(ctx, sha, &p.summarized);
            out.stopped = shas.len() > 1;
            break;
        }
    }
    Ok(out)
}

/// The call showing each file of `sha` -p left without hunks (at most 10):
/// git diff --ref SHA^! PATH, or git show SHA for a root commit (no parent to
/// compare with).
fn file_calls(ctx: &Ctx, sha: &str, paths: &[(String, u64)]) -> Vec<String> {
    let parent = [
        "rev-parse".to_string(),
        "--verify".into(),
        "-q".into(),
        format!("{sha}^"),
    ];
    if git(ctx, &parent, "history").is_err() {
        return vec![shell::aitools(["git", "show", sha])];
    }
    let rev = format!("{sha}^!");
    diff::file_calls(ctx, &rev, &paths[..paths.len().min(10)])
}

#[cfg(test)]
mod tests {
    use super::{named, relative};

    #[test]
    fn spans_are_counted_in_seconds() {
        assert_eq!(relative("2 weeks ago"), Some(14 * 86_400));
        assert_eq!(relative("2.weeks.ago"), Some(14 * 86_400));
        assert_eq!(relative("1 day"), Some(86_400));
        assert_eq!(relative("3 months ago"), Some(90 * 86_400));
        assert_eq!(relative("garbage"), None);
        assert_eq!(relative("2 fortnights ago"), None);
        assert_eq!(relative("-2 days ago"), None);
        assert_eq!(relative("last tuesday"), None);
    }

    #[test]
    fn git_words_are_counted_from_now() {
        // Saturday 2026-12-05 12:00:00 UTC; git's answers with GIT_TEST_DATE_NOW.
        let now = 1_796_472_000;
        assert_eq!(named("yesterday", now), Some(1_796_385_600));
        assert_eq!(named("last week", now), Some(1_795_867_200));
        assert_eq!(named("last.tuesday", now), Some(1_796_126_400));
        assert_eq!(named("last Monday", now), Some(1_796_040_000));
        assert_eq!(named("last sat", now), Some(now - 7 * 86_400));
        assert_eq!(named("last year", now), Some(1_764_936_000));
        assert_eq!(named("today", now), Some(1_796_428_800));
        assert_eq!(named("last tu", now), None);
        // Saturday 12:00: this week began on Monday 2026-11-30.
        assert_eq!(named("this week", now), Some(1_796_000_000 - 3_200));
        assert_eq!(named("this month", now), Some(1_795_996_800 + 86_400));
        assert_eq!(named("this year", now), Some(1_767_225_600));
        assert_eq!(named("this fortnight", now), None);
        // git's answers at this hour, and at 08:00 (git: 2 days back, here 1).
        assert_eq!(named("yesterday noon", now), Some(1_796_385_600));
        assert_eq!(named("noon yesterday", now), Some(1_796_385_600));
        assert_eq!(named("yesterday midnight", now), Some(1_796_342_400));
        assert_eq!(named("noon", now), Some(now));
        assert_eq!(named("noon", now - 4 * 3_600), Some(now - 86_400));
        assert_eq!(
            named("yesterday noon", now - 4 * 3_600),
            Some(1_796_385_600)
        );
        assert_eq!(named("yesterday lunch", now), None);
    }
}
