//! The zip format, read and written here over flate2's deflate: the central
//! directory says which members there are; each member's data is read from its
//! local header on, inflated (or stored) and checked against its stated size and
//! CRC-32 as it is read. Zip64, encryption and other methods are refused.

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

/// The end-of-central-directory record: (entries, directory size, offset).
fn end_record(f: &mut dyn Source) -> Result<(u64, u64, u64), Stop> {
    let len = f.seek(SeekFrom::End(0)).map_err(Stop::Io)?;
    let tail = len.min(22 + 65535);
    f.seek(SeekFrom::Start(len - tail)).map_err(Stop::Io)?;
    let mut buf = vec![0u8; tail as usize];
    f.read_exact(&mut buf).map_err(Stop::Io)?;
    let at = (0..buf.len().saturating_sub(21))
        .rev()
        .find(|&i| buf[i..].starts_with(b"PK\x05\x06"))
        .ok_or_else(|| corrupt("no end-of-central-directory record"))?;
    let e = &buf[at..];
    let (count, size, offset) = (u16_at(e, 10), u32_at(e, 12), u32_at(e, 16));
    if count == 0xFFFF || size == 0xFFFF_FFFF || offset == 0xFFFF_FFFF {
        return Err(Stop::Unsupported("zip64 archives are not read".into()));
    }
    if u64::from(offset) + u64::from(size) > len {
        return Err(corrupt(
            "the central directory lies past the end of the file",
        ));
    }
    Ok((u64::from(count), u64::from(size), u64::from(offset)))
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
    let (csize, usize, local) = (u32_at(e, 20), u32_at(e, 24), u32_at(e, 42));
    if csize == 0xFFFF_FFFF || usize == 0xFFFF_FFFF || local == 0xFFFF_FFFF {
        return Err(Stop::Unsupported("zip64 members are not read".into()));
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
            size: u64::from(usize),
            mode: mode.map(|m| m & 0o7777),
            mtime: Some(dos_time(u16_at(e, 14), u16_at(e, 12))),
            link: None,
        },
        method,
        crc: u32_at(e, 16),
        csize: u64::from(csize),
        usize: u64::from(usize),
        local: u64::from(local),
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

/// A zip being written to memory: `add` each member, then `finish`.
pub struct Writer {
    out: Vec<u8>,
    central: Vec<u8>,
    count: u64,
}

/// What `add` is given.
pub struct NewMember<'a> {
    pub name: &'a str,
    pub data: &'a [u8],
    pub mode: u32,
    pub mtime: i64,
    pub dir: bool,
}

impl Writer {
    pub fn new() -> Writer {
        Writer {
            out: Vec::new(),
            central: Vec::new(),
            count: 0,
        }
    }

    /// Adds a member: a directory stored empty, a file deflated (stored when
    /// deflating does not make it smaller).
    pub fn add(&mut self, m: &NewMember) -> io::Result<()> {
        let mut crc = Crc::new();
        crc.update(m.data);
        let mut enc =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(m.data)?;
        let deflated = enc.finish()?;
        let (method, body): (u16, &[u8]) = if m.dir || deflated.len() >= m.data.len() {
            (0, m.data)
        } else {
            (8, &deflated)
        };
        let too_big = |n: usize| n as u64 >= 0xFFFF_FFFF;
        if too_big(m.data.len()) || too_big(self.out.len()) || self.count >= 0xFFFF {
            return Err(io::Error::other("past the zip (non-zip64) limits"));
        }
        let (date, time) = to_dos(m.mtime);
        let name = m.name.as_bytes();
        let kind_bits = if m.dir { 0o040000 } else { 0o100000 };
        let local = self.out.len() as u32;
        let mut common = Vec::new();
        common.extend_from_slice(&20u16.to_le_bytes()); // version needed
        common.extend_from_slice(&0x0800u16.to_le_bytes()); // UTF-8 names
        common.extend_from_slice(&method.to_le_bytes());
        common.extend_from_slice(&time.to_le_bytes());
        common.extend_from_slice(&date.to_le_bytes());
        common.extend_from_slice(&crc.sum().to_le_bytes());
        common.extend_from_slice(&(body.len() as u32).to_le_bytes());
        common.extend_from_slice(&(m.data.len() as u32).to_le_bytes());
        common.extend_from_slice(&(name.len() as u16).to_le_bytes());
        common.extend_from_slice(&0u16.to_le_bytes()); // extra
        self.out.extend_from_slice(b"PK\x03\x04");
        self.out.extend_from_slice(&common);
        self.out.extend_from_slice(name);
        self.out.extend_from_slice(body);
        self.central.extend_from_slice(b"PK\x01\x02");
        self.central.extend_from_slice(&0x031Eu16.to_le_bytes()); // made by: unix, 3.0
        self.central.extend_from_slice(&common);
        self.central.extend_from_slice(&[0; 6]); // comment, disk, internal attributes
        let ext = ((kind_bits | (m.mode & 0o7777)) << 16) | (u32::from(m.dir) * 0x10);
        self.central.extend_from_slice(&ext.to_le_bytes());
        self.central.extend_from_slice(&local.to_le_bytes());
        self.central.extend_from_slice(name);
        self.count += 1;
        Ok(())
    }

    /// The archive's bytes: the members, the central directory, its end record.
    pub fn finish(mut self) -> Vec<u8> {
        let offset = self.out.len() as u32;
        let size = self.central.len() as u32;
        self.out.append(&mut self.central);
        self.out.extend_from_slice(b"PK\x05\x06");
        self.out.extend_from_slice(&[0; 4]);
        self.out
            .extend_from_slice(&(self.count as u16).to_le_bytes());
        self.out
            .extend_from_slice(&(self.count as u16).to_le_bytes());
        self.out.extend_from_slice(&size.to_le_bytes());
        self.out.extend_from_slice(&offset.to_le_bytes());
        self.out.extend_from_slice(&0u16.to_le_bytes());
        self.out
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn dos_time_round_trips() {
        for secs in [315_532_800i64, 1_700_000_000, 1_796_000_000] {
            let (d, t) = super::to_dos(secs);
            assert_eq!(super::dos_time(d, t), secs - secs % 2);
        }
    }
}
