//! The clock: the current time, fixed by `AITOOLS_FIXED_TIME` (epoch seconds) in
//! tests so output is byte-identical, ISO 8601 UTC formatting, and the strict
//! reading of a time argument (`touch --mtime`: no date rolls over).

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds and nanoseconds since the epoch, honouring `AITOOLS_FIXED_TIME`.
pub fn now() -> (i64, u32) {
    if let Ok(v) = std::env::var("AITOOLS_FIXED_TIME")
        && let Ok(secs) = v.trim().parse::<i64>()
    {
        return (secs, 0);
    }
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
        Err(_) => (0, 0),
    }
}

/// Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// `2026-11-29T18:36:28Z`.
pub fn iso8601(secs: i64) -> String {
    let (y, mo, d) = civil(secs.div_euclid(86_400));
    let rem = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// `20261129T183628Z`, the compact form used in op ids.
pub fn compact(secs: i64) -> String {
    iso8601(secs).replace(['-', ':'], "")
}

/// Why a time argument is no time, as data; the command words it.
#[derive(Debug, PartialEq, Eq)]
pub enum BadTime {
    /// Not seconds, `@seconds`, `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM[:SS][Z]`.
    Form,
    /// A month outside 1-12.
    Month(i64),
    /// A day past the month's last (`2024-02-30`): `days` is the month's length.
    Day { year: i64, month: i64, days: i64 },
    /// An hour past 23, a minute or second past 59 (`24:00:00`).
    Clock,
}

/// The days of month `mo` (1-12) of year `y` (proleptic Gregorian).
fn days_in_month(y: i64, mo: i64) -> i64 {
    match mo {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn numbers(s: &str, sep: char) -> Result<Vec<i64>, BadTime> {
    s.split(sep)
        .map(|x| x.parse().ok().filter(|_| !x.starts_with(['+', '-'])))
        .collect::<Option<_>>()
        .ok_or(BadTime::Form)
}

/// Unix seconds, `@seconds`, or `YYYY-MM-DDTHH:MM[:SS][Z]` / `YYYY-MM-DD` (UTC).
/// Every field must be in range: `2024-02-30` and `24:00:00` are refused, never
/// rolled over into the next month or day.
pub fn parse(s: &str) -> Result<i64, BadTime> {
    let t = s.trim();
    if let Ok(n) = t.strip_prefix('@').unwrap_or(t).parse::<i64>() {
        return Ok(n);
    }
    let t = t.strip_suffix('Z').unwrap_or(t);
    let (date, clock) = t.split_once(['T', ' ']).unwrap_or((t, "00:00:00"));
    let (d, c) = (numbers(date, '-')?, numbers(clock, ':')?);
    let [y, mo, da] = d[..] else {
        return Err(BadTime::Form);
    };
    let (h, mi, se) = match c[..] {
        [h, mi] => (h, mi, 0),
        [h, mi, se] => (h, mi, se),
        _ => return Err(BadTime::Form),
    };
    if !(1..=12).contains(&mo) {
        return Err(BadTime::Month(mo));
    }
    let days = days_in_month(y, mo);
    if !(1..=days).contains(&da) {
        return Err(BadTime::Day {
            year: y,
            month: mo,
            days,
        });
    }
    if h > 23 || mi > 59 || se > 59 {
        return Err(BadTime::Clock);
    }
    // Days from civil (Howard Hinnant).
    let y2 = if mo <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + da - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Ok((era * 146_097 + doe - 719_468) * 86_400 + h * 3600 + mi * 60 + se)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn formats() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso8601(1_796_000_000), "2026-11-30T00:53:20Z");
        assert_eq!(compact(0), "19700101T000000Z");
    }
    #[test]
    fn parses_strictly() {
        assert_eq!(parse("@5"), Ok(5));
        assert_eq!(parse("1796000000"), Ok(1_796_000_000));
        assert_eq!(parse("2026-11-30T00:53:20Z"), Ok(1_796_000_000));
        assert_eq!(parse("1970-01-01"), Ok(0));
        assert_eq!(parse("2024-02-29"), Ok(1_709_164_800));
        assert_eq!(parse("2000-02-29T00:00"), Ok(951_782_400));
        assert_eq!(parse("yesterday"), Err(BadTime::Form));
        assert_eq!(parse("2024-1-+5"), Err(BadTime::Form));
        assert_eq!(parse("2024-13-01"), Err(BadTime::Month(13)));
        let feb = |year, days| BadTime::Day {
            year,
            month: 2,
            days,
        };
        assert_eq!(parse("2024-02-30"), Err(feb(2024, 29)));
        assert_eq!(parse("2023-02-29"), Err(feb(2023, 28)));
        assert_eq!(parse("1900-02-29"), Err(feb(1900, 28)));
        assert!(parse("2024-04-31").is_err());
        assert_eq!(parse("2024-01-01T24:00:00"), Err(BadTime::Clock));
        assert_eq!(parse("2024-01-01T23:59:60"), Err(BadTime::Clock));
    }
}
