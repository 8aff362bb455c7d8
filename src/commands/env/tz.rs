//! Time zones for `time`: a zone read from the system's TZif database (its
//! transitions, then its POSIX TZ footer for instants past the last one), the
//! offset and abbreviation in effect at an instant, the instant a local wall
//! time names, and the civil-calendar arithmetic both need.

/// The offset rule of a POSIX TZ string (`EST5EDT,M3.2.0,M11.1.0`).
#[derive(Debug, Clone)]
struct Posix {
    std_abbr: String,
    std_off: i64,
    dst: Option<Dst>,
}

#[derive(Debug, Clone)]
struct Dst {
    abbr: String,
    off: i64,
    start: (Rule, i64),
    end: (Rule, i64),
}

#[derive(Debug, Clone, Copy)]
enum Rule {
    /// Jn: day 1-365, February 29 never counted.
    Julian(i64),
    /// n: day 0-365, February 29 counted.
    Day(i64),
    /// Mm.w.d: day d (0 = Sunday) of week w (5 = last) of month m.
    Month(i64, i64, i64),
}

/// A zone: its name, transitions and local time types, and the footer rule.
#[derive(Debug, Clone)]
pub struct Zone {
    pub name: String,
    times: Vec<i64>,
    idx: Vec<u8>,
    /// (utoff, isdst, abbreviation).
    types: Vec<(i64, bool, String)>,
    footer: Option<Posix>,
}

/// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of days since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

pub fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

pub fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

impl Zone {
    pub fn utc() -> Zone {
        Zone {
            name: "UTC".into(),
            times: Vec::new(),
            idx: Vec::new(),
            types: vec![(0, false, "UTC".into())],
            footer: None,
        }
    }

    /// Parses TZif bytes (version 1, 2, 3 or 4); `None` when they are not TZif.
    pub fn parse(name: &str, b: &[u8]) -> Option<Zone> {
        let head = |at: usize| -> Option<[usize; 6]> {
            if b.get(at..at + 4)? != b"TZif" {
                return None;
            }
            let mut c = [0usize; 6];
            for (i, slot) in c.iter_mut().enumerate() {
                let o = at + 20 + 4 * i;
                *slot = u32::from_be_bytes(b.get(o..o + 4)?.try_into().ok()?) as usize;
            }
            Some(c)
        };
        let c = head(0)?;
        let version = *b.get(4)?;
        let v1_len = c[3] * 5 + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0];
        let (at, tsize, c) = if version >= b'2' {
            let at2 = 44 + v1_len;
            (at2 + 44, 8, head(at2)?)
        } else {
            (44, 4, c)
        };
        let [isut, isstd, leap, timecnt, typecnt, charcnt] = c;
        let mut p = at;
        let mut times = Vec::with_capacity(timecnt);
        for _ in 0..timecnt {
            let s = b.get(p..p + tsize)?;
            times.push(if tsize == 8 {
                i64::from_be_bytes(s.try_into().ok()?)
            } else {
                i64::from(i32::from_be_bytes(s.try_into().ok()?))
            });
            p += tsize;
        }
        let idx = b.get(p..p + timecnt)?.to_vec();
        p += timecnt;
        let tt = b.get(p..p + typecnt * 6)?;
        p += typecnt * 6;
        let chars = b.get(p..p + charcnt)?;
        p += charcnt + leap * (tsize + 4) + isstd + isut;
        let mut types = Vec::with_capacity(typecnt);
        for t in tt.chunks(6) {
            let off = i64::from(i32::from_be_bytes(t[0..4].try_into().ok()?));
            let start = usize::from(t[5]).min(chars.len());
            let end = chars[start..]
                .iter()
                .position(|&c| c == 0)
                .map_or(chars.len(), |n| start + n);
            let abbr = String::from_utf8_lossy(&chars[start..end]).to_string();
            types.push((off, t[4] != 0, abbr));
        }
        if types.is_empty() || idx.iter().any(|&i| usize::from(i) >= types.len()) {
            return None;
        }
        let footer = if version >= b'2' {
            b.get(p..)
                .and_then(|rest| rest.strip_prefix(b"\n"))
                .and_then(|rest| rest.split(|&c| c == b'\n').next())
                .and_then(|s| std::str::from_utf8(s).ok())
                .and_then(posix)
        } else {
            None
        };
        Some(Zone {
            name: name.to_string(),
            times,
            idx,
            types,
            footer,
        })
    }

    /// The offset (seconds east of UTC) and abbreviation in effect at `t`
    /// (Unix seconds).
    pub fn at(&self, t: i64) -> (i64, String) {
        if let Some(last) = self.times.last()
            && t >= *last
            && let Some(f) = &self.footer
        {
            return f.at(t);
        }
        if self.times.is_empty()
            && let Some(f) = &self.footer
        {
            return f.at(t);
        }
        let i = match self.times.partition_point(|&x| x <= t) {
            0 => self.types.iter().position(|ty| !ty.1).unwrap_or(0),
            n => usize::from(self.idx[n - 1]),
        };
        let (off, _, abbr) = &self.types[i];
        (*off, abbr.clone())
    }

    /// The instant (Unix seconds) of local wall time `local` (seconds as if the
    /// wall clock were UTC): a time repeated by a change resolves to the earlier
    /// instant, one skipped by it is read with the offset before the change.
    pub fn instant(&self, local: i64) -> i64 {
        let before = self.at(local - 86_400).0;
        let after = self.at(local + 86_400).0;
        let valid: Vec<i64> = [before, after]
            .iter()
            .filter(|&&o| self.at(local - o).0 == o)
            .map(|o| local - o)
            .collect();
        valid.into_iter().min().unwrap_or(local - before)
    }
}

impl Posix {
    fn at(&self, t: i64) -> (i64, String) {
        let Some(d) = &self.dst else {
            return (self.std_off, self.std_abbr.clone());
        };
        let (y, _, _) = civil_from_days((t + self.std_off).div_euclid(86_400));
        let start = rule_day(d.start.0, y) * 86_400 + d.start.1 - self.std_off;
        let end = rule_day(d.end.0, y) * 86_400 + d.end.1 - d.off;
        let in_dst = if start < end {
            t >= start && t < end
        } else {
            !(t >= end && t < start)
        };
        if in_dst {
            (d.off, d.abbr.clone())
        } else {
            (self.std_off, self.std_abbr.clone())
        }
    }
}

/// Days since the epoch of a rule's date in year `y`.
fn rule_day(r: Rule, y: i64) -> i64 {
    let jan1 = days_from_civil(y, 1, 1);
    match r {
        Rule::Julian(n) => jan1 + n - 1 + i64::from(is_leap(y) && n >= 60),
        Rule::Day(n) => jan1 + n,
        Rule::Month(m, w, wd) => {
            let first = days_from_civil(y, m, 1);
            let first_wd = (first + 4).rem_euclid(7);
            let mut d = 1 + (wd - first_wd).rem_euclid(7) + (w - 1) * 7;
            while d > days_in_month(y, m) {
                d -= 7;
            }
            first + d - 1
        }
    }
}

/// A POSIX TZ string's rule; `None` when it is not one.
fn posix(s: &str) -> Option<Posix> {
    let mut p = Cursor {
        s: s.as_bytes(),
        i: 0,
    };
    let std_abbr = p.abbr()?;
    let std_off = -p.hms()?;
    if p.done() {
        return Some(Posix {
            std_abbr,
            std_off,
            dst: None,
        });
    }
    let abbr = p.abbr()?;
    let off = if p.peek() == Some(b',') || p.done() {
        std_off + 3600
    } else {
        -p.hms()?
    };
    // Without rules, POSIX's default is the US rule.
    let (start, end) = if p.done() {
        ((Rule::Month(3, 2, 0), 7200), (Rule::Month(11, 1, 0), 7200))
    } else {
        p.eat(b',')?;
        let start = p.rule()?;
        p.eat(b',')?;
        (start, p.rule()?)
    };
    p.done().then_some(Posix {
        std_abbr,
        std_off,
        dst: Some(Dst {
            abbr,
            off,
            start,
            end,
        }),
    })
}

struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }
    fn done(&self) -> bool {
        self.i >= self.s.len()
    }
    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek() == Some(c)).then(|| self.i += 1)
    }
    fn abbr(&mut self) -> Option<String> {
        let start = self.i;
        if self.eat(b'<').is_some() {
            while self.peek()? != b'>' {
                self.i += 1;
            }
            self.i += 1;
            return Some(String::from_utf8_lossy(&self.s[start + 1..self.i - 1]).to_string());
        }
        while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            self.i += 1;
        }
        (self.i - start >= 3).then(|| String::from_utf8_lossy(&self.s[start..self.i]).to_string())
    }
    fn num(&mut self) -> Option<i64> {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        std::str::from_utf8(&self.s[start..self.i])
            .ok()?
            .parse()
            .ok()
    }
    /// `[+-]hh[:mm[:ss]]` in seconds.
    fn hms(&mut self) -> Option<i64> {
        let sign = match self.peek() {
            Some(b'-') => {
                self.i += 1;
                -1
            }
            Some(b'+') => {
                self.i += 1;
                1
            }
            _ => 1,
        };
        let mut v = self.num()? * 3600;
        if self.eat(b':').is_some() {
            v += self.num()? * 60;
            if self.eat(b':').is_some() {
                v += self.num()?;
            }
        }
        Some(sign * v)
    }
    fn rule(&mut self) -> Option<(Rule, i64)> {
        let r = match self.peek()? {
            b'J' => {
                self.i += 1;
                Rule::Julian(self.num()?)
            }
            b'M' => {
                self.i += 1;
                let m = self.num()?;
                self.eat(b'.')?;
                let w = self.num()?;
                self.eat(b'.')?;
                Rule::Month(m, w, self.num()?)
            }
            _ => Rule::Day(self.num()?),
        };
        let time = if self.eat(b'/').is_some() {
            self.hms()?
        } else {
            7200
        };
        Some((r, time))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn posix_rules() {
        let ny = Zone {
            name: "x".into(),
            times: Vec::new(),
            idx: Vec::new(),
            types: vec![(0, false, "UTC".into())],
            footer: posix("EST5EDT,M3.2.0,M11.1.0"),
        };
        // 2026-03-08T07:00:00Z is 03:00 EDT; a second before is 01:59:59 EST.
        assert_eq!(ny.at(1_772_953_200).0, -4 * 3600);
        assert_eq!(ny.at(1_772_953_199).0, -5 * 3600);
        assert_eq!(ny.at(1_772_953_200).1, "EDT");
        let lord_howe = posix("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0").map(|p| p.std_off);
        assert_eq!(lord_howe, Some(10 * 3600 + 1800));
        assert_eq!(civil_from_days(days_from_civil(2024, 2, 29)), (2024, 2, 29));
    }
}
