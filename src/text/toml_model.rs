//! What TOML's grammar alone does not see, over toml_parser's event stream:
//! the document's table model (a key or table defined twice, a table that
//! redefines a value, an inline table or array extended later, an array of
//! tables mixed with a table) and date/time values out of range
//! (`1979-02-30`, `T25:00:00Z`). Each problem is a byte offset and a message.

use std::collections::HashMap;
use toml_parser::parser::{Event, EventKind as K};

/// How a resolved key path is defined so far.
#[derive(Clone, Copy, PartialEq)]
enum Def {
    /// A value (an inline table or array included): closed for good.
    Value,
    /// A table made as a header's parent (a later header may define it).
    Implicit,
    /// A table made by a dotted key: defined, so no header may open it again
    /// (one below it may).
    Dotted,
    /// A `[table]` header.
    Table,
    /// A `[[table]]` header, with the index of its last element.
    Array(usize),
}

/// Path segments are joined with \u{1}; an array-of-tables element adds \u{2}n;
/// an inline table inside an array adds \u{3}offset.
#[derive(Default)]
struct Model {
    defs: HashMap<String, Def>,
    out: Vec<(usize, &'static str)>,
}

impl Model {
    /// Resolves `segs` below `base` as a header's or (`dotted`) a dotted key's
    /// parents: missing ones become implicit (or dotted) tables; a value there
    /// is an error, and so is a dotted key through a table a header defined.
    fn parents(&mut self, base: &str, segs: &[String], at: usize, dotted: bool) -> Option<String> {
        let mut resolved = base.to_string();
        for s in segs {
            let cand = format!("{resolved}\u{1}{s}");
            match self.defs.get(&cand).copied() {
                Some(Def::Value) => {
                    self.out.push((at, "a value is extended as a table"));
                    return None;
                }
                Some(Def::Table) if dotted => {
                    self.out
                        .push((at, "a dotted key extends a table a header defined"));
                    return None;
                }
                Some(Def::Array(n)) => resolved = format!("{cand}\u{2}{n}"),
                Some(Def::Implicit | Def::Dotted | Def::Table) => resolved = cand,
                None => {
                    let def = if dotted { Def::Dotted } else { Def::Implicit };
                    self.defs.insert(cand.clone(), def);
                    resolved = cand;
                }
            }
        }
        Some(resolved)
    }

    /// A `[table]` or `[[table]]` header; the resolved path it opens.
    fn header(&mut self, segs: &[String], array: bool, at: usize) -> String {
        let Some((last, head)) = segs.split_last() else {
            self.out.push((at, "a table header needs a name"));
            return String::new();
        };
        let Some(parent) = self.parents("", head, at, false) else {
            return String::new();
        };
        let cand = format!("{parent}\u{1}{last}");
        let now = self.defs.get(&cand).copied();
        let (def, err) = match (array, now) {
            (false, None | Some(Def::Implicit)) => (Def::Table, None),
            (false, Some(Def::Table)) => (Def::Table, Some("table defined twice")),
            (false, Some(Def::Dotted)) => (
                Def::Dotted,
                Some("table defined by dotted keys is defined again"),
            ),
            (false, Some(Def::Array(_))) => {
                (Def::Table, Some("table redefines an array of tables"))
            }
            (true, None) => (Def::Array(0), None),
            (true, Some(Def::Array(n))) => (Def::Array(n + 1), None),
            (true, Some(_)) => (
                Def::Value,
                Some("array of tables redefines a table or value"),
            ),
            (_, Some(Def::Value)) => (Def::Value, Some("table redefines a value")),
        };
        if let Some(e) = err {
            self.out.push((at, e));
            return cand;
        }
        self.defs.insert(cand.clone(), def);
        match def {
            Def::Array(n) => format!("{cand}\u{2}{n}"),
            _ => cand,
        }
    }

    /// `key = value` below `base`; the value's resolved path.
    fn assign(&mut self, base: &str, segs: &[String], at: usize) -> String {
        let Some((last, head)) = segs.split_last() else {
            return String::new();
        };
        let Some(parent) = self.parents(base, head, at, true) else {
            return String::new();
        };
        let cand = format!("{parent}\u{1}{last}");
        if self.defs.insert(cand.clone(), Def::Value).is_some() {
            self.out.push((at, "key defined twice"));
        }
        cand
    }
}

/// A scope values are assigned in: an inline table, or an array.
struct Scope {
    path: String,
    array: bool,
}

/// The table-model problems of a parsed document, as (offset, message).
pub fn problems(events: &[Event], name: impl Fn(&Event) -> String) -> Vec<(usize, &'static str)> {
    let mut m = Model::default();
    let mut table = String::new();
    let mut key: Vec<String> = Vec::new();
    let mut header: Option<bool> = None;
    let mut assigned: Option<String> = None;
    let mut scopes: Vec<Scope> = Vec::new();
    for ev in events {
        let at = ev.span().start();
        match ev.kind() {
            K::StdTableOpen | K::ArrayTableOpen if scopes.is_empty() => {
                header = Some(ev.kind() == K::ArrayTableOpen);
                key.clear();
            }
            K::StdTableClose | K::ArrayTableClose if scopes.is_empty() => {
                table = m.header(&key, header.take().unwrap_or(false), at);
                key.clear();
            }
            // The parser stands an empty key in for a missing one.
            K::SimpleKey if ev.span().start() == ev.span().end() => {
                m.out.push((at, "a key is missing"));
                key.push(String::new());
            }
            K::SimpleKey => key.push(name(ev)),
            K::Newline if header.is_some() => {
                m.out.push((at, "unclosed table header"));
                header = None;
            }
            K::KeyValSep => {
                let base = scopes.last().map_or(table.as_str(), |s| s.path.as_str());
                assigned = Some(m.assign(base, &key, at));
                key.clear();
            }
            K::InlineTableOpen | K::ArrayOpen => {
                let path = match scopes.last() {
                    Some(s) if s.array => format!("{}\u{3}{at}", s.path),
                    _ => assigned.take().unwrap_or_default(),
                };
                let array = ev.kind() == K::ArrayOpen;
                scopes.push(Scope { path, array });
            }
            K::InlineTableClose | K::ArrayClose => {
                scopes.pop();
            }
            K::Scalar => assigned = None,
            _ => {}
        }
    }
    m.out
}

/// Why a scalar's raw text is out of range or malformed, for what the
/// grammar lets through: decimal integers past 64 bits, dates and times.
pub fn bad_scalar(raw: &str) -> Option<&'static str> {
    let body = raw.strip_prefix(['+', '-']).unwrap_or(raw);
    if !body.is_empty() && body.bytes().all(|c| c.is_ascii_digit() || c == b'_') {
        let plain: String = raw.chars().filter(|c| *c != '_').collect();
        return plain
            .parse::<i64>()
            .is_err()
            .then_some("integer out of range (64-bit)");
    }
    let lead = raw.bytes().take_while(u8::is_ascii_digit).count();
    if lead > 0 && lead != 4 && raw.as_bytes().get(lead) == Some(&b'-') {
        return Some("a date is YYYY-MM-DD");
    }
    bad_datetime(raw)
}

/// Whether a scalar's raw text is a date, time or date-time, and if so the
/// reason it is out of range or malformed (`None`: fine or not a date).
fn bad_datetime(raw: &str) -> Option<&'static str> {
    let b = raw.as_bytes();
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        let s = b.get(r)?;
        s.iter()
            .all(u8::is_ascii_digit)
            .then(|| s.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')))
    };
    if b.len() >= 3 && b[2] == b':' && digits(0..2).is_some() {
        return bad_time(b, 0, false);
    }
    if !(b.len() >= 5 && b[4] == b'-' && digits(0..4).is_some()) {
        return None;
    }
    let (Some(y), Some(mo), Some(d)) = (digits(0..4), digits(5..7), digits(8..10)) else {
        return Some("a date is YYYY-MM-DD");
    };
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return Some("a date is YYYY-MM-DD");
    }
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&mo) {
        return Some("month out of range (01-12)");
    }
    if d == 0 || d > days[mo as usize - 1] {
        return Some("day out of range for its month");
    }
    match b.get(10) {
        None => None,
        Some(b'T' | b't' | b' ') => bad_time(b, 11, true),
        Some(_) => Some("a date is followed by T or a space and a time"),
    }
}

/// Checks the time at `from` (HH:MM[:SS[.frac]]), then an offset when
/// `offset_ok` (Z or ±HH:MM), then the end of the text.
fn bad_time(b: &[u8], from: usize, offset_ok: bool) -> Option<&'static str> {
    let two = |i: usize| -> Option<u32> {
        let s = b.get(i..i + 2)?;
        s.iter()
            .all(u8::is_ascii_digit)
            .then(|| u32::from(s[0] - b'0') * 10 + u32::from(s[1] - b'0'))
    };
    let (Some(h), Some(mi)) = (two(from), two(from + 3)) else {
        return Some("a time is HH:MM:SS");
    };
    if b.get(from + 2) != Some(&b':') {
        return Some("a time is HH:MM:SS");
    }
    if h > 23 || mi > 59 {
        return Some("hour or minute out of range");
    }
    let mut i = from + 5;
    if b.get(i) == Some(&b':') {
        match two(i + 1) {
            Some(s) if s <= 60 => i += 3,
            Some(_) => return Some("second out of range"),
            None => return Some("a time is HH:MM:SS"),
        }
        if b.get(i) == Some(&b'.') {
            let n = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
            if n == 0 {
                return Some("a fraction of a second needs digits");
            }
            i += 1 + n;
        }
    }
    match b.get(i) {
        None => None,
        Some(b'Z' | b'z') if offset_ok && i + 1 == b.len() => None,
        Some(b'+' | b'-') if offset_ok => match (two(i + 1), b.get(i + 3), two(i + 4)) {
            (Some(oh), Some(b':'), Some(om)) if i + 6 == b.len() => {
                (oh > 23 || om > 59).then_some("offset out of range")
            }
            _ => Some("an offset is Z or ±HH:MM"),
        },
        Some(_) => Some("unexpected text after the time"),
    }
}

#[cfg(test)]
mod tests {
    use super::{bad_datetime, bad_scalar};

    #[test]
    fn integers_past_64_bits_and_short_years_are_caught() {
        assert_eq!(bad_scalar("9_223_372_036_854_775_807"), None);
        assert!(bad_scalar("9223372036854775808").is_some());
        assert!(bad_scalar("979-05-27").is_some());
        assert_eq!(bad_scalar("-12"), None);
    }

    #[test]
    fn dates_and_times_are_checked_for_range() {
        for ok in [
            "1979-05-27",
            "1979-05-27T07:32:00Z",
            "1979-05-27 07:32:00.999+07:00",
            "2000-02-29",
            "07:32:00",
            "1979-05-27T23:59:60z",
            "1979-05-27T07:32",
            "42",
            "\"1979-02-30\"",
        ] {
            assert_eq!(bad_datetime(ok), None, "{ok}");
        }
        for bad in [
            "1979-02-30",
            "1900-02-29",
            "1979-13-01",
            "1979-05-27T25:00:00Z",
            "1979-05-27T07:32:61",
            "25:00:00",
            "1979-05-27T07:32:00+24:00",
            "1979-05-27_07:32:00",
            "1979-05-27T07:32:00Zx",
            "1979-5-27",
        ] {
            assert!(bad_datetime(bad).is_some(), "{bad}");
        }
    }
}
