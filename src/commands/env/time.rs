//! `time now|convert|diff`: the clock (`AITOOLS_FIXED_TIME` respected), time
//! values read as ISO 8601 or Unix epoch, shown in a zone of the system's TZif
//! database (`tz`), shifted by durations, and subtracted.

use super::tz::{Zone, civil_from_days, days_from_civil, days_in_month};
use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell, time, values};
use crate::workspace::Ctx;
use clap::{Args, ValueEnum};
use std::path::Path;

const TZ_HELP: &str = "IANA zone name (Asia/Tokyo) from the TZif database ($TZDIR, /usr/share/zoneinfo, /usr/lib/zoneinfo, /usr/share/lib/zoneinfo, /etc/zoneinfo); UTC needs none. Default: $TZ, then the /etc/localtime link, then UTC.";

#[derive(Args, Debug)]
pub struct NowArgs {
    #[arg(long, value_name = "ZONE", help = TZ_HELP)]
    pub tz: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum To {
    Iso8601,
    #[value(name = "epoch_ms")]
    EpochMs,
    #[value(name = "epoch_s")]
    EpochS,
}

#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// ISO 8601 (2026-03-08, 2026-03-08T01:30, 2026-03-08 01:30:00.250+09:00, 20260308T013000Z), Unix epoch digits (12 or more integer digits: milliseconds, else seconds; optional .fraction) or now. Without an offset, local time in the zone (a repeated wall time: the earlier instant; a skipped one: the offset before the change).
    pub value: String,
    /// Output format.
    #[arg(long, value_enum, default_value = "iso8601")]
    pub to: To,
    /// Move the instant forward (<n>ms|s|m|h|d; 1d = 24h); repeatable.
    #[arg(long, value_name = "DURATION", action = clap::ArgAction::Append)]
    pub add: Vec<String>,
    /// Move the instant back; repeatable.
    #[arg(long, value_name = "DURATION", action = clap::ArgAction::Append)]
    pub sub: Vec<String>,
    #[arg(long, value_name = "ZONE", help = TZ_HELP)]
    pub tz: Option<String>,
}

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The earlier time, in time convert's formats.
    pub a: String,
    /// The later time; B minus A is answered.
    pub b: String,
    #[arg(long, value_name = "ZONE", help = TZ_HELP)]
    pub tz: Option<String>,
}

const CODES: &[&str] = &[code::SYNTAX_ERROR];

pub const NOW: CommandSpec = CommandSpec {
    name: "time now",
    summary: "The current time in a zone, in UTC and as epoch milliseconds.",
    description: "AITOOLS_FIXED_TIME (epoch seconds) fixes the clock.",
    args: <NowArgs as clap::Args>::augment_args,
    output_fields: &[
        field("iso8601", "Local time in the zone with its offset."),
        field("utc", "The same instant in UTC (Z)."),
        field("epoch_ms", "The same instant in Unix epoch milliseconds."),
        field("timezone", "The zone used."),
        field("utc_offset", "The offset in effect, e.g. +09:00."),
        field("abbreviation", "The zone abbreviation in effect, e.g. JST."),
    ],
    error_codes: &[],
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects::NONE,
    run: handler!(NowArgs, now),
};

pub const CONVERT: CommandSpec = CommandSpec {
    name: "time convert",
    summary: "Convert a time to ISO 8601 or epoch, optionally shifted.",
    description: "--add/--sub move the instant (1d = 24 hours), not the wall clock. epoch_s rounds toward the past. ISO output has milliseconds only when they are not zero.",
    args: <ConvertArgs as clap::Args>::augment_args,
    output_fields: &[
        field("input", "VALUE as given."),
        field(
            "input_format",
            "What VALUE was read as: iso8601, epoch_s, epoch_ms or now.",
        ),
        field("to", "The output format."),
        field(
            "result",
            "The converted value: a string for iso8601, an integer otherwise.",
        ),
        field(
            "timezone",
            "The zone used for offset-less input and iso8601 output.",
        ),
    ],
    error_codes: CODES,
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects::NONE,
    run: handler!(ConvertArgs, convert),
};

pub const DIFF: CommandSpec = CommandSpec {
    name: "time diff",
    summary: "B minus A, in milliseconds and as 1h23m.",
    description: "A and B take time convert's formats; offset-less ones are local time in --tz.",
    args: <DiffArgs as clap::Args>::augment_args,
    output_fields: &[
        field(
            "diff_ms",
            "B minus A in milliseconds (negative when B is earlier).",
        ),
        field(
            "human",
            "The same as days, hours, minutes, seconds, ms, zero parts left out: 1h23m.",
        ),
    ],
    error_codes: CODES,
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects::NONE,
    run: handler!(DiffArgs, diff),
};

const TZ_DIRS: &[&str] = &[
    "/usr/share/zoneinfo",
    "/usr/lib/zoneinfo",
    "/usr/share/lib/zoneinfo",
    "/etc/zoneinfo",
];

fn bad_zone(name: &str, why: &str) -> CmdError {
    CmdError::new(
        code::ARGUMENT_INVALID,
        format!("Time zone {name:?} {why}."),
        Repair::new(
            "utc",
            "Name an IANA zone such as Asia/Tokyo or America/New_York, or use UTC.",
            shell::aitools(["time", "now", "--tz", "UTC"]),
        ),
    )
}

fn valid_zone_name(n: &str) -> bool {
    !n.is_empty()
        && n.len() <= 128
        && !n.starts_with('/')
        && n.split('/').all(|part| {
            !part.is_empty()
                && part != "."
                && part != ".."
                && part
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_+-".contains(&b))
        })
}

fn load_named(ctx: &Ctx, name: &str) -> Result<Zone, CmdError> {
    if name == "UTC" {
        return Ok(Zone::utc());
    }
    if !valid_zone_name(name) {
        return Err(bad_zone(name, "is not a zone name"));
    }
    let tzdir = std::env::var("TZDIR").ok().filter(|d| !d.is_empty());
    for dir in tzdir
        .iter()
        .map(String::as_str)
        .chain(TZ_DIRS.iter().copied())
    {
        let p = Path::new(dir).join(name);
        if let Ok(bytes) = ctx.files().disk(&p).read() {
            return Zone::parse(name, &bytes)
                .ok_or_else(|| bad_zone(name, &format!("is no TZif file ({})", p.display())));
        }
    }
    Err(bad_zone(name, "is not in the zone database"))
}

/// The zone of `--tz`, else `$TZ`, else the `/etc/localtime` link, else UTC.
fn zone(ctx: &Ctx, tz: &Option<String>) -> Result<Zone, CmdError> {
    if let Some(n) = tz {
        return load_named(ctx, n);
    }
    if let Ok(v) = std::env::var("TZ") {
        let v = v.trim_start_matches(':');
        if !v.is_empty() {
            return load_named(ctx, v);
        }
    }
    let local = ctx.files().disk(Path::new("/etc/localtime"));
    if let Ok(target) = local.read_link() {
        let t = target.to_string_lossy().to_string();
        if let Some((_, name)) = t.split_once("zoneinfo/")
            && let Ok(z) = load_named(ctx, name)
        {
            return Ok(z);
        }
    }
    Ok(Zone::utc())
}

fn offset_text(off: i64) -> String {
    let sign = if off < 0 { '-' } else { '+' };
    let a = off.abs();
    format!("{sign}{:02}:{:02}", a / 3600, a % 3600 / 60)
}

/// `ms` as ISO 8601 in `zone` (`Z` for the UTC zone).
fn iso(ms: i64, zone: &Zone, z_suffix: bool) -> String {
    let secs = ms.div_euclid(1000);
    let frac = ms.rem_euclid(1000);
    let (off, _) = zone.at(secs);
    let local = secs + off;
    let (y, mo, d) = civil_from_days(local.div_euclid(86_400));
    let r = local.rem_euclid(86_400);
    let mut s = format!(
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}",
        r / 3600,
        r % 3600 / 60,
        r % 60
    );
    if frac != 0 {
        s.push_str(&format!(".{frac:03}"));
    }
    if z_suffix {
        s.push('Z');
    } else {
        s.push_str(&offset_text(off));
    }
    s
}

fn now_ms() -> i64 {
    let (s, n) = time::now();
    s.saturating_mul(1000) + i64::from(n / 1_000_000)
}

fn syntax(ctx: &Ctx, v: &str) -> CmdError {
    CmdError::new(
        code::SYNTAX_ERROR,
        format!(
            "{v:?} is not a time: write ISO 8601 (2026-03-08T01:30:00+09:00), epoch digits, or now."
        ),
        Repair::new(
            "example",
            "Convert a well-formed time.",
            shell::aitools([
                ctx.command.as_str().split(' ').next().unwrap_or("time"),
                "convert",
                "2026-03-08T01:30:00Z",
            ]),
        ),
    )
}

fn digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// A fraction's digits as milliseconds (truncated).
fn frac_ms(f: &str) -> i64 {
    let mut ms = 0;
    for (i, b) in f.bytes().take(3).enumerate() {
        ms += i64::from(b - b'0') * [100, 10, 1][i];
    }
    ms
}

/// Epoch digits: ms and the format name.
fn epoch(v: &str) -> Option<(i64, &'static str)> {
    let (int, frac) = v.split_once('.').unwrap_or((v, ""));
    if !digits(int) || !(frac.is_empty() || digits(frac)) || (v.contains('.') && frac.is_empty()) {
        return None;
    }
    let n: i64 = int.parse().ok()?;
    if int.len() >= 12 {
        Some((n, "epoch_ms"))
    } else {
        Some((n.checked_mul(1000)? + frac_ms(frac), "epoch_s"))
    }
}

/// ISO 8601: ms since the epoch (offset-less: local in `zone`).
fn iso_in(v: &str, zone: &Zone) -> Option<i64> {
    let (date, rest) = match v.find(['T', 't', ' ']) {
        Some(i) => (&v[..i], Some(&v[i + 1..])),
        None => (v, None),
    };
    let (y, mo, d) = if date.len() == 10 && date.as_bytes()[4] == b'-' && date.as_bytes()[7] == b'-'
    {
        (&date[0..4], &date[5..7], &date[8..10])
    } else if date.len() == 8 && digits(date) {
        (&date[0..4], &date[4..6], &date[6..8])
    } else {
        return None;
    };
    if ![y, mo, d].iter().all(|x| digits(x)) {
        return None;
    }
    let (y, mo, d): (i64, i64, i64) = (y.parse().ok()?, mo.parse().ok()?, d.parse().ok()?);
    if !(1..=12).contains(&mo) || !(1..=days_in_month(y, mo)).contains(&d) {
        return None;
    }
    let (mut secs, mut ms, mut offset) = (0i64, 0i64, None);
    if let Some(t) = rest {
        let (clock, off) = match t.find(['Z', 'z', '+', '-']) {
            Some(i) => (&t[..i], Some(&t[i..])),
            None => (t, None),
        };
        let (hms, frac) = clock.split_once(['.', ',']).unwrap_or((clock, ""));
        if !frac.is_empty() && !digits(frac) {
            return None;
        }
        ms = frac_ms(frac);
        let parts: Vec<&str> = if hms.contains(':') {
            hms.split(':').collect()
        } else {
            (0..hms.len() / 2).map(|i| &hms[2 * i..2 * i + 2]).collect()
        };
        if parts.len() < 2
            || parts.len() > 3
            || parts.iter().any(|p| p.len() != 2 || !digits(p))
            || hms.len() % 2 == 1 && !hms.contains(':')
        {
            return None;
        }
        let n: Vec<i64> = parts.iter().filter_map(|p| p.parse().ok()).collect();
        let (h, mi, s) = (n[0], n[1], n.get(2).copied().unwrap_or(0));
        if h > 23 || mi > 59 || s > 59 {
            return None;
        }
        secs = h * 3600 + mi * 60 + s;
        if let Some(o) = off {
            offset = Some(if o.eq_ignore_ascii_case("z") {
                0
            } else {
                let sign = if o.starts_with('-') { -1 } else { 1 };
                let body = o[1..].replace(':', "");
                if !digits(&body) || !(body.len() == 2 || body.len() == 4) {
                    return None;
                }
                let hh: i64 = body[0..2].parse().ok()?;
                let mm: i64 = if body.len() == 4 {
                    body[2..4].parse().ok()?
                } else {
                    0
                };
                if hh > 23 || mm > 59 {
                    return None;
                }
                sign * (hh * 3600 + mm * 60)
            });
        }
    }
    let local = days_from_civil(y, mo, d) * 86_400 + secs;
    let instant = match offset {
        Some(o) => local - o,
        None => zone.instant(local),
    };
    Some(instant * 1000 + ms)
}

/// A time value: ms since the epoch and the format it was read as.
fn parse_value(ctx: &Ctx, v: &str, zone: &Zone) -> Result<(i64, &'static str), CmdError> {
    let t = v.trim();
    if t == "now" {
        return Ok((now_ms(), "now"));
    }
    if let Some(e) = epoch(t) {
        return Ok(e);
    }
    iso_in(t, zone)
        .map(|ms| (ms, "iso8601"))
        .ok_or_else(|| syntax(ctx, v))
}

pub fn now(ctx: &Ctx, a: &NowArgs) -> Result<Output, CmdError> {
    let z = zone(ctx, &a.tz)?;
    let ms = now_ms();
    let (off, abbr) = z.at(ms.div_euclid(1000));
    let mut o = Json::obj();
    o.push("iso8601", Json::str(iso(ms, &z, false)));
    o.push("utc", Json::str(iso(ms, &Zone::utc(), true)));
    o.push("epoch_ms", Json::Int(ms));
    o.push("timezone", Json::str(z.name.clone()));
    o.push("utc_offset", Json::str(offset_text(off)));
    o.push("abbreviation", Json::str(abbr));
    Ok(Output::from_json(o, false))
}

fn shift(ctx: &Ctx, flag: &str, v: &str) -> Result<i64, CmdError> {
    values::parse_duration(v)
        .map(|d| d.as_millis() as i64)
        .map_err(|why| CmdError::invalid_argument(&ctx.command, format!("{flag}: {why}")))
}

pub fn convert(ctx: &Ctx, a: &ConvertArgs) -> Result<Output, CmdError> {
    let z = zone(ctx, &a.tz)?;
    let (mut ms, format) = parse_value(ctx, &a.value, &z)?;
    for d in &a.add {
        ms = ms.saturating_add(shift(ctx, "--add", d)?);
    }
    for d in &a.sub {
        ms = ms.saturating_sub(shift(ctx, "--sub", d)?);
    }
    let (to, result) = match a.to {
        To::Iso8601 => ("iso8601", Json::str(iso(ms, &z, false))),
        To::EpochMs => ("epoch_ms", Json::Int(ms)),
        To::EpochS => ("epoch_s", Json::Int(ms.div_euclid(1000))),
    };
    let mut o = Json::obj();
    o.push("input", Json::str(a.value.clone()));
    o.push("input_format", Json::str(format));
    o.push("to", Json::str(to));
    o.push("result", result);
    o.push("timezone", Json::str(z.name.clone()));
    Ok(Output::from_json(o, false))
}

/// `1d2h3m4s5ms`, zero parts left out (`0ms` for none), `-` when negative.
pub fn human(ms: i64) -> String {
    let mut left = ms.unsigned_abs();
    let mut s = String::from(if ms < 0 { "-" } else { "" });
    for (unit, size) in [
        ("d", 86_400_000),
        ("h", 3_600_000),
        ("m", 60_000),
        ("s", 1000),
        ("ms", 1),
    ] {
        let n = left / size;
        left %= size;
        if n > 0 {
            s.push_str(&format!("{n}{unit}"));
        }
    }
    if ms == 0 {
        s.push_str("0ms");
    }
    s
}

pub fn diff(ctx: &Ctx, a: &DiffArgs) -> Result<Output, CmdError> {
    let z = zone(ctx, &a.tz)?;
    let (x, _) = parse_value(ctx, &a.a, &z)?;
    let (y, _) = parse_value(ctx, &a.b, &z)?;
    let d = y.saturating_sub(x);
    let mut o = Json::obj();
    o.push("diff_ms", Json::Int(d));
    o.push("human", Json::str(human(d)));
    Ok(Output::from_json(o, false))
}
