//! The clock: the current time, fixed by `AITOOLS_FIXED_TIME` (epoch seconds) in
//! tests so output is byte-identical, and ISO 8601 UTC formatting.

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

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn formats() {
        assert_eq!(iso8601(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso8601(1_796_000_000), "2026-11-30T00:53:20Z");
        assert_eq!(compact(0), "19700101T000000Z");
    }
}
