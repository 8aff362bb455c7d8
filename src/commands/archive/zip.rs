//! The zip format, read and written here over flate2's deflate: the central
//! directory says which members there are; each member's data is read from its
//! local header on, inflated (or stored) and checked against its stated size and
//! CRC-32 as it is read. Zip64 is read and written; encryption and other
//! methods are refused.

use super::format::{
    Budget, CountIn, CountOut, Flow, Kind, Limit, Member, Meter, Source, Stop, Visit,
};
use flate2::Crc;
use flate2::read::DeflateDecoder;
use std::io::{self, Read, SeekFrom, Write};
use std::rc::Rc;

fn u16_at(b: &[u8], i: usize) -> u16 {
    b.get(i..i + 2)
        .map(|s| u16::from_le_bytes([s[0], s[1]]))
        .unwrap_or(0)
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    b.get(i..i + 4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
        .unwrap_or(0)
}

fn corrupt(what: &str) -> Stop {
    Stop::Corrupt(format!("zip: {what}"))
}

fn u64_at(b: &[u8], i: usize) -> u64 {
    b.get(i..i + 8)
        .and_then(|s| <[u8; 8]>::try_from(s).ok())
        .map(u64::from_le_bytes)
        .unwrap_or(0)
}

/// The end-of-central-directory record: (entries, directory size, offset);
/// from the zip64 end record when the classic one's fields are full.
fn end_record(f: &mut dyn Source) -> Result<(u64, u64, u64), Stop> {
    let len = f.seek(SeekFrom::End(0)).map_err(Stop::Io)?;
    let tail = len.min(22 + 65535 + 20);
    let base = len - tail;
    f.seek(SeekFrom::Start(base)).map_err(Stop::Io)?;
    let mut buf = vec![0u8; tail as usize];
    f.read_exact(&mut buf).map_err(Stop::Io)?;
    let at = (0..buf.len().saturating_sub(21))
        .rev()
        .find(|&i| buf[i..].starts_with(b"PK\x05\x06"))
        .ok_or_else(|| corrupt("no end-of-central-directory record"))?;
    let e = &buf[at..];
    let (mut count, mut size, mut offset) = (
        u64::from(u16_at(e, 10)),
        u64::from(u32_at(e, 12)),
        u64::from(u32_at(e, 16)),
    );
    if count == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF {
        let loc = at
            .checked_sub(20)
            .and_then(|l| buf.get(l..at))
            .filter(|l| l.starts_with(b"PK\x06\x07"));
        if let Some(loc) = loc {
            let rec = u64_at(loc, 8);
            if rec.checked_add(56).is_none_or(|end| end > len) {
                return Err(corrupt(
                    "the zip64 end record lies past the end of the file",
                ));
            }
            let mut r = [0u8; 56];
            f.seek(SeekFrom::Start(rec)).map_err(Stop::Io)?;
            f.read_exact(&mut r).map_err(Stop::Io)?;
            if !r.starts_with(b"PK\x06\x06") {
                return Err(corrupt("the zip64 end record is missing"));
            }
            (count, size, offset) = (u64_at(&r, 32), u64_at(&r, 40), u64_at(&r, 48));
        }
    }
    if offset.checked_add(size).is_none_or(|end| end > len) {
        return Err(corrupt(
            "the central directory lies past the end of the file",
        ));
    }
    Ok((count, size, offset))
}

/// The values a zip64 extra field holds for the 32-bit fields that are full,
/// in the order the format gives them (size, compressed size, offset).
fn zip64_values(extra: &[u8], full: [bool; 3]) -> Result<[Option<u64>; 3], Stop> {
    let mut i = 0;
    while i + 4 <= extra.len() {
        let (id, n) = (u16_at(extra, i), usize::from(u16_at(extra, i + 2)));
        let body = extra
            .get(i + 4..i + 4 + n)
            .ok_or_else(|| corrupt("an extra field runs past its entry"))?;
        if id == 1 {
            let mut out = [None; 3];
            let mut at = 0;
            for (slot, is_full) in out.iter_mut().zip(full) {
                if is_full {
                    if at + 8 > body.len() {
                        return Err(corrupt("a zip64 extra field is short"));
                    }
                    *slot = Some(u64_at(body, at));
                    at += 8;
                }
            }
            return Ok(out);
        }
        i += 4 + n;
    }
    Err(corrupt(
        "a member's size is in a zip64 field it does not have",
    ))
}

/// Seconds since the epoch of an MS-DOS date and time (read as UTC).
fn dos_time(date: u16, time: u16) -> i64 {
    let (y, m, d) = (
        1980 + i64::from(date >> 9),
        i64::from((date >> 5) & 0xF).clamp(1, 12),
        i64::from(date & 0x1F).max(1),
    );
    // Days from the civil date (Howard Hinnant's algorithm).
    let y2 = if m <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146097 + doe - 719468;
    days * 86400
        + i64::from(time >> 11) * 3600
        + i64::from((time >> 5) & 0x3F) * 60
        + i64::from(time & 0x1F) * 2
}

/// The MS-DOS (date, time) of seconds since the epoch (UTC; 1980 at the earliest).
fn to_dos(secs: i64) -> (u16, u16) {
    let secs = secs.max(315_532_800);
    let days = secs.div_euclid(86400);
    let rem = secs.rem_euclid(86400);
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = (yoe + era * 400 + i64::from(m <= 2)).min(2107);
    let date = ((y - 1980) << 9) | (m << 5) | d;
    let time = ((rem / 3600) << 11) | (((rem / 60) % 60) << 5) | ((rem % 60) / 2);
    (date as u16, time as u16)
}

/// One central-directory entry.
struct Central {
    member: Member,
    method: u16,
    crc: u32,
    csize: u64,
    usize: u64,
    local: u64,
}

fn central(e: &[u8]) -> Result<(Central, usize), Stop> {
    if !e.starts_with(b"PK\x01\x02") || e.len() < 46 {
        return Err(corrupt("a central-directory entry is malformed"));
    }
    let (made_by, flags, method) = (u16_at(e, 4), u16_at(e, 8), u16_at(e, 10));
    let (nlen, xlen, clen) = (
        usize::from(u16_at(e, 28)),
        usize::from(u16_at(e, 30)),
        usize::from(u16_at(e, 32)),
    );
    let name = e
        .get(46..46 + nlen)
        .ok_or_else(|| corrupt("a member name runs past the directory"))?;
    let name = String::from_utf8_lossy(name).into_owned();
    if flags & 1 != 0 {
        return Err(Stop::Unsupported(format!("{name} is encrypted")));
    }
    let (mut csize, mut usize, mut local) = (
        u64::from(u32_at(e, 20)),
        u64::from(u32_at(e, 24)),
        u64::from(u32_at(e, 42)),
    );
    let full = [usize, csize, local].map(|v| v == 0xFFFF_FFFF);
    if full.contains(&true) {
        let extra = e
            .get(46 + nlen..46 + nlen + xlen)
            .ok_or_else(|| corrupt("an extra field runs past the directory"))?;
        let [u, c, l] = zip64_values(extra, full)?;
        (usize, csize, local) = (u.unwrap_or(usize), c.unwrap_or(csize), l.unwrap_or(local));
    }
    let unix = made_by >> 8 == 3;
    let mode = (unix).then(|| u32_at(e, 38) >> 16).filter(|m| *m != 0);
    let kind = match mode.map(|m| m & 0o170000) {
        Some(0o040000) => Kind::Dir,
        Some(0o120000) => Kind::Symlink,
        Some(0o100000) | None | Some(0) if name.ends_with('/') => Kind::Dir,
        Some(0o100000) | None | Some(0) => Kind::File,
        Some(_) => Kind::Other,
    };
    let c = Central {
        member: Member {
            path: name,
            kind,
            size: usize,
            mode: mode.map(|m| m & 0o7777),
            mtime: Some(dos_time(u16_at(e, 14), u16_at(e, 12))),
            link: None,
        },
        method,
        crc: u32_at(e, 16),
        csize,
        usize,
        local,
    };
    Ok((c, 46 + nlen + xlen + clen))
}

/// A member's data as read: fails when it runs past the size the directory
/// states, or ends short of it or with another CRC-32.
struct Checked<R> {
    inner: R,
    crc: Crc,
    want_len: u64,
    want_crc: u32,
}

impl<R: Read> Read for Checked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.crc.update(&buf[..n]);
        let got = u64::from(self.crc.amount());
        let bad = |m: &str| io::Error::new(io::ErrorKind::InvalidData, m.to_string());
        if got > self.want_len {
            return Err(bad("a member holds more bytes than its header states"));
        }
        if n == 0 && !buf.is_empty() {
            if got != self.want_len {
                return Err(bad("a member holds fewer bytes than its header states"));
            }
            if self.crc.sum() != self.want_crc {
                return Err(bad("a member's CRC-32 does not match its data"));
            }
        }
        Ok(n)
    }
}

/// Walks a zip's members in central-directory order.
pub fn walk(f: &mut dyn Source, budget: Budget, visit: &mut Visit) -> Result<u64, Stop> {
    let (count, size, offset) = end_record(f)?;
    if count > budget.max_entries {
        return Err(Stop::Limit(Limit::Entries(budget.max_entries)));
    }
    f.seek(SeekFrom::Start(offset)).map_err(Stop::Io)?;
    let mut dir = vec![0u8; size as usize];
    f.read_exact(&mut dir).map_err(Stop::Io)?;
    let meter = Rc::new(Meter::default());
    let mut at = 0usize;
    let mut n = 0u64;
    while n < count {
        let (c, used) = central(dir.get(at..).unwrap_or_default())?;
        at += used;
        n += 1;
        f.seek(SeekFrom::Start(c.local)).map_err(Stop::Io)?;
        let mut lh = [0u8; 30];
        f.read_exact(&mut lh)
            .map_err(|_| corrupt("a local header lies past the end of the file"))?;
        if !lh.starts_with(b"PK\x03\x04") {
            return Err(corrupt("a member's local header is missing"));
        }
        let skip = i64::from(u16_at(&lh, 26)) + i64::from(u16_at(&lh, 28));
        f.seek(SeekFrom::Current(skip)).map_err(Stop::Io)?;
        let raw = CountIn {
            inner: (&mut *f).take(c.csize),
            meter: meter.clone(),
        };
        let inner: Box<dyn Read + '_> = match c.method {
            0 => Box::new(raw),
            8 => Box::new(DeflateDecoder::new(raw)),
            m => {
                return Err(Stop::Unsupported(format!(
                    "{}: zip compression method {m} (only stored and deflate are read)",
                    c.member.path
                )));
            }
        };
        let mut r = Checked {
            inner: CountOut {
                inner,
                meter: meter.clone(),
                budget,
            },
            crc: Crc::new(),
            want_len: c.usize,
            want_crc: c.crc,
        };
        let mut m = c.member;
        if m.kind == Kind::Symlink {
            // A zip symlink's target is its data.
            let mut t = Vec::new();
            (&mut r)
                .take(4096)
                .read_to_end(&mut t)
                .map_err(|e| Stop::from_io(e, &meter))?;
            m.link = Some(String::from_utf8_lossy(&t).into_owned());
        }
        match visit(&m, &mut r) {
            Ok(Flow::Next) => {}
            Ok(Flow::Done) => return Ok(n),
            Err(Stop::Io(e)) => return Err(Stop::from_io(e, &meter)),
            Err(s) => return Err(s),
        }
    }
    Ok(n)
}

/// A zip being written to memory: `add` each member, then `finish`. Past the
/// classic format's limits (a size or offset of 4 GiB, 65,535 members) it
/// writes the zip64 extra fields and end records.
pub struct Writer {
    out: Vec<u8>,
    central: Vec<u8>,
    count: u64,
    /// Sizes and offsets from this value on go to zip64 fields (0xFFFF_FFFF;
    /// lower only in tests).
    max32: u64,
}

/// What `add` is given: a file's bytes, a symlink's target text, or nothing
/// for a directory.
pub struct NewMember<'a> {
    pub name: &'a str,
    pub data: &'a [u8],
    pub mode: u32,
    pub mtime: i64,
    pub kind: Kind,
}

/// The zip64 extended-information extra field holding `values` (8 bytes each).
fn zip64_extra(values: &[u64]) -> Vec<u8> {
    let mut x = Vec::with_capacity(4 + 8 * values.len());
    x.extend_from_slice(&1u16.to_le_bytes());
    x.extend_from_slice(&((8 * values.len()) as u16).to_le_bytes());
    for v in values {
        x.extend_from_slice(&v.to_le_bytes());
    }
    x
}

impl Default for Writer {
    fn default() -> Writer {
        Writer::new()
    }
}

impl Writer {
    pub fn new() -> Writer {
        Writer {
            out: Vec::new(),
            central: Vec::new(),
            count: 0,
            max32: 0xFFFF_FFFF,
        }
    }

    /// Adds a member: a directory or symlink stored, a file deflated (stored
    /// when deflating does not make it smaller).
    pub fn add(&mut self, m: &NewMember) -> io::Result<()> {
        let mut crc = Crc::new();
        crc.update(m.data);
        let stored = m.kind != Kind::File;
        let deflated = if stored {
            Vec::new()
        } else {
            let mut enc =
                flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
            enc.write_all(m.data)?;
            enc.finish()?
        };
        let (method, body): (u16, &[u8]) = if stored || deflated.len() >= m.data.len() {
            (0, m.data)
        } else {
            (8, &deflated)
        };
        let (usz, csz, off) = (
            m.data.len() as u64,
            body.len() as u64,
            self.out.len() as u64,
        );
        let big_sizes = usz >= self.max32 || csz >= self.max32;
        let big_off = off >= self.max32;
        let name = m.name.as_bytes();
        if name.len() > 0xFFFF {
            return Err(io::Error::other(
                "a member name is longer than 65,535 bytes",
            ));
        }
        let local_extra = if big_sizes {
            zip64_extra(&[usz, csz])
        } else {
            Vec::new()
        };
        let mut central_values = Vec::new();
        if big_sizes {
            central_values.extend([usz, csz]);
        }
        if big_off {
            central_values.push(off);
        }
        let central_extra = if central_values.is_empty() {
            Vec::new()
        } else {
            zip64_extra(&central_values)
        };
        let (date, time) = to_dos(m.mtime);
        let narrow = |v: u64, big: bool| if big { u32::MAX } else { v as u32 };
        let version: u16 = if big_sizes || big_off { 45 } else { 20 };
        // The fields local headers and directory entries share, up to the name length.
        let mut common = Vec::new();
        common.extend_from_slice(&version.to_le_bytes()); // version needed
        common.extend_from_slice(&0x0800u16.to_le_bytes()); // UTF-8 names
        common.extend_from_slice(&method.to_le_bytes());
        common.extend_from_slice(&time.to_le_bytes());
        common.extend_from_slice(&date.to_le_bytes());
        common.extend_from_slice(&crc.sum().to_le_bytes());
        common.extend_from_slice(&narrow(csz, big_sizes).to_le_bytes());
        common.extend_from_slice(&narrow(usz, big_sizes).to_le_bytes());
        common.extend_from_slice(&(name.len() as u16).to_le_bytes());
        self.out.extend_from_slice(b"PK\x03\x04");
        self.out.extend_from_slice(&common);
        self.out
            .extend_from_slice(&(local_extra.len() as u16).to_le_bytes());
        self.out.extend_from_slice(name);
        self.out.extend_from_slice(&local_extra);
        self.out.extend_from_slice(body);
        let kind_bits = match m.kind {
            Kind::Dir => 0o040000,
            Kind::Symlink => 0o120000,
            _ => 0o100000,
        };
        self.central.extend_from_slice(b"PK\x01\x02");
        self.central
            .extend_from_slice(&(0x0300 | version.max(30)).to_le_bytes()); // made by: unix
        self.central.extend_from_slice(&common);
        self.central
            .extend_from_slice(&(central_extra.len() as u16).to_le_bytes());
        self.central.extend_from_slice(&[0; 6]); // comment, disk, internal attributes
        let ext = ((kind_bits | (m.mode & 0o7777)) << 16) | (u32::from(m.kind == Kind::Dir) * 0x10);
        self.central.extend_from_slice(&ext.to_le_bytes());
        self.central
            .extend_from_slice(&narrow(off, big_off).to_le_bytes());
        self.central.extend_from_slice(name);
        self.central.extend_from_slice(&central_extra);
        self.count += 1;
        Ok(())
    }

    /// The archive's bytes: the members, the central directory, its end
    /// records (the zip64 ones first when a count, size or offset needs them).
    pub fn finish(mut self) -> Vec<u8> {
        let offset = self.out.len() as u64;
        let size = self.central.len() as u64;
        self.out.append(&mut self.central);
        let zip64 = self.count >= 0xFFFF || size >= self.max32 || offset >= self.max32;
        if zip64 {
            let at = self.out.len() as u64;
            self.out.extend_from_slice(b"PK\x06\x06");
            self.out.extend_from_slice(&44u64.to_le_bytes()); // the record's size after this field
            self.out.extend_from_slice(&0x032Du16.to_le_bytes()); // made by: unix, 4.5
            self.out.extend_from_slice(&45u16.to_le_bytes()); // version needed
            self.out.extend_from_slice(&[0; 8]); // this disk, the directory's disk
            self.out.extend_from_slice(&self.count.to_le_bytes());
            self.out.extend_from_slice(&self.count.to_le_bytes());
            self.out.extend_from_slice(&size.to_le_bytes());
            self.out.extend_from_slice(&offset.to_le_bytes());
            self.out.extend_from_slice(b"PK\x06\x07");
            self.out.extend_from_slice(&0u32.to_le_bytes());
            self.out.extend_from_slice(&at.to_le_bytes());
            self.out.extend_from_slice(&1u32.to_le_bytes()); // disks
        }
        let count16 = if zip64 { 0xFFFF } else { self.count as u16 };
        let narrow = |v: u64| if zip64 { u32::MAX } else { v as u32 };
        self.out.extend_from_slice(b"PK\x05\x06");
        self.out.extend_from_slice(&[0; 4]);
        self.out.extend_from_slice(&count16.to_le_bytes());
        self.out.extend_from_slice(&count16.to_le_bytes());
        self.out.extend_from_slice(&narrow(size).to_le_bytes());
        self.out.extend_from_slice(&narrow(offset).to_le_bytes());
        self.out.extend_from_slice(&0u16.to_le_bytes());
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::{Budget, Flow, Kind};
    use std::io::Read;

    /// Sizes and offsets past the (lowered) 32-bit limit go to zip64 fields,
    /// and the walk reads them back.
    #[test]
    fn zip64_fields_round_trip() {
        let mut w = super::Writer::new();
        w.max32 = 40;
        let big = vec![7u8; 100];
        let names = ["a", "b", "c"];
        for (i, n) in names.iter().enumerate() {
            let data: &[u8] = if i == 1 { b"t" } else { &big };
            w.add(&super::NewMember {
                name: n,
                data,
                mode: 0o644,
                mtime: 1_700_000_000,
                kind: if i == 1 { Kind::Symlink } else { Kind::File },
            })
            .unwrap();
        }
        let bytes = w.finish();
        assert!(bytes.windows(4).any(|x| x == b"PK\x06\x06"));
        let mut cur = std::io::Cursor::new(bytes);
        let budget = Budget {
            max_bytes: 1 << 20,
            max_entries: 10,
            max_ratio: 1000,
        };
        let mut seen = Vec::new();
        let n = super::walk(&mut cur, budget, &mut |m, r: &mut dyn Read| {
            let mut b = Vec::new();
            r.read_to_end(&mut b).unwrap();
            seen.push((m.path.clone(), m.kind, m.size, b.len(), m.link.clone()));
            Ok(Flow::Next)
        })
        .unwrap();
        assert_eq!(n, 3);
        assert_eq!(seen[0], ("a".into(), Kind::File, 100, 100, None));
        assert_eq!(seen[1].1, Kind::Symlink);
        assert_eq!(seen[1].4.as_deref(), Some("t"));
        assert_eq!(seen[2], ("c".into(), Kind::File, 100, 100, None));
    }

    #[test]
    fn dos_time_round_trips() {
        for secs in [315_532_800i64, 1_700_000_000, 1_796_000_000] {
            let (d, t) = super::to_dos(secs);
            assert_eq!(super::dos_time(d, t), secs - secs % 2);
        }
    }
}
