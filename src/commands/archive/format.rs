//! Archive formats: which one a file is (by its magic bytes), and one streaming
//! walk over the members of a tar, tar.gz, gz or zip archive. Every byte a walk
//! decompresses is counted as it comes (never taken from a header): past the
//! byte budget, the entry budget or the compression-ratio budget the walk stops.

use flate2::read::GzDecoder;
use std::cell::Cell;
use std::io::{self, Read, Seek, SeekFrom};
use std::rc::Rc;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Format {
    Tar,
    TarGz,
    Gz,
    Zip,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Tar => "tar",
            Format::TarGz => "tar.gz",
            Format::Gz => "gz",
            Format::Zip => "zip",
        }
    }

    pub fn from_name(s: &str) -> Option<Format> {
        [Format::Tar, Format::TarGz, Format::Gz, Format::Zip]
            .into_iter()
            .find(|f| f.name() == s)
    }

    /// The format a file name's extension names (`.tgz` is tar.gz).
    pub fn from_extension(name: &str) -> Option<Format> {
        let n = name.to_ascii_lowercase();
        if n.ends_with(".tar.gz") || n.ends_with(".tgz") {
            Some(Format::TarGz)
        } else if n.ends_with(".tar") {
            Some(Format::Tar)
        } else if n.ends_with(".gz") {
            Some(Format::Gz)
        } else if n.ends_with(".zip") {
            Some(Format::Zip)
        } else {
            None
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    Hardlink,
    /// A device, FIFO or anything else no extraction writes.
    Other,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::File => "file",
            Kind::Dir => "directory",
            Kind::Symlink => "symlink",
            Kind::Hardlink => "hardlink",
            Kind::Other => "other",
        }
    }
}

/// One member as its header describes it.
#[derive(Clone, Debug)]
pub struct Member {
    /// The name as stored (invalid UTF-8 replaced).
    pub path: String,
    pub kind: Kind,
    /// The size the header states (a gz member's is counted).
    pub size: u64,
    pub mode: Option<u32>,
    pub mtime: Option<i64>,
    /// A symlink's or hard link's target.
    pub link: Option<String>,
}

/// What a walk may spend.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Decompressed bytes, headers included.
    pub max_bytes: u64,
    pub max_entries: u64,
    /// Decompressed bytes per compressed byte, checked past `RATIO_FLOOR`.
    pub max_ratio: u64,
}

/// Below this many decompressed bytes the ratio is not judged (a small file of
/// zeros compresses a thousandfold and harms nobody).
pub const RATIO_FLOOR: u64 = 16 * 1024 * 1024;

/// Which budget a walk ran out of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Bytes(u64),
    Entries(u64),
    Ratio(u64),
}

/// Why a walk stopped early.
#[derive(Debug)]
pub enum Stop {
    Limit(Limit),
    /// Not an archive this module reads, or a feature of one it does not
    /// (encryption, a compression method other than stored and deflate).
    Unsupported(String),
    /// The archive's structure is broken (or a header lies about a size).
    Corrupt(String),
    Io(io::Error),
}

/// What a visitor answers: go on to the next member, or stop here.
pub enum Flow {
    Next,
    Done,
}

pub type Visit<'a> = dyn FnMut(&Member, &mut dyn Read) -> Result<Flow, Stop> + 'a;

/// The counters one walk shares between the reader under the decompressor
/// (compressed bytes in) and the one above it (bytes out).
#[derive(Default)]
pub struct Meter {
    pub inn: Cell<u64>,
    pub out: Cell<u64>,
    pub hit: Cell<Option<Limit>>,
}

pub struct CountIn<R> {
    pub inner: R,
    pub meter: Rc<Meter>,
}

impl<R: Read> Read for CountIn<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.meter.inn.set(self.meter.inn.get() + n as u64);
        Ok(n)
    }
}

pub struct CountOut<R> {
    pub inner: R,
    pub meter: Rc<Meter>,
    pub budget: Budget,
}

impl<R: Read> Read for CountOut<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let m = &self.meter;
        let out = m.out.get() + n as u64;
        m.out.set(out);
        let inn = m.inn.get().max(1);
        let hit = if out > self.budget.max_bytes {
            Some(Limit::Bytes(self.budget.max_bytes))
        } else if out > RATIO_FLOOR && out / inn > self.budget.max_ratio {
            Some(Limit::Ratio(self.budget.max_ratio))
        } else {
            None
        };
        if let Some(h) = hit {
            m.hit.set(Some(h));
            return Err(io::Error::other("archive budget exceeded"));
        }
        Ok(n)
    }
}

impl Stop {
    /// An I/O error from inside the walk: a budget the meter saw, else corrupt
    /// data (a decompressor's or tar's complaint), else the I/O error itself.
    pub fn from_io(e: io::Error, meter: &Meter) -> Stop {
        if let Some(l) = meter.hit.get() {
            return Stop::Limit(l);
        }
        match e.kind() {
            io::ErrorKind::InvalidData
            | io::ErrorKind::InvalidInput
            | io::ErrorKind::UnexpectedEof
            | io::ErrorKind::Other => Stop::Corrupt(e.to_string()),
            _ => Stop::Io(e),
        }
    }
}

/// Whether `h` (512 bytes) is a tar header: the ustar magic, or a valid checksum.
fn tar_header(h: &[u8]) -> bool {
    if h.len() < 512 {
        return false;
    }
    if &h[257..262] == b"ustar" {
        return true;
    }
    let field = std::str::from_utf8(&h[148..156]).unwrap_or("");
    let Ok(stated) = u32::from_str_radix(field.trim_matches(|c| c == ' ' || c == '\0'), 8) else {
        return false;
    };
    let sum: u32 = h
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            if (148..156).contains(&i) {
                32
            } else {
                u32::from(b)
            }
        })
        .sum();
    sum == stated && h[0] != 0
}

/// Fills `buf` as far as the reader goes.
fn read_up_to(r: &mut (impl Read + ?Sized), buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..])? {
            0 => break,
            n => got += n,
        }
    }
    Ok(got)
}

/// The archive's format, from its first bytes (a gzip stream whose first 512
/// decompressed bytes are a tar header is tar.gz). The file is left at its start.
pub fn detect(f: &mut dyn Source) -> Result<Format, Stop> {
    let mut head = [0u8; 512];
    let n = read_up_to(f, &mut head).map_err(Stop::Io)?;
    f.seek(SeekFrom::Start(0)).map_err(Stop::Io)?;
    let head = &head[..n];
    let fmt = if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        Format::Zip
    } else if head.starts_with(&[0x1f, 0x8b]) {
        let mut inner = [0u8; 512];
        let got = read_up_to(&mut GzDecoder::new(&mut *f), &mut inner).unwrap_or(0);
        f.seek(SeekFrom::Start(0)).map_err(Stop::Io)?;
        if tar_header(&inner[..got]) || got == 0 {
            Format::TarGz
        } else {
            Format::Gz
        }
    } else if tar_header(head) {
        Format::Tar
    } else {
        return Err(Stop::Unsupported(
            "not a zip, tar, tar.gz or gz archive (by its first bytes)".into(),
        ));
    };
    Ok(fmt)
}

/// What an archive is read from: its file, or a tx's staged blob.
pub trait Source: Read + Seek {}
impl<T: Read + Seek> Source for T {}

/// Walks every member of a tar, tar.gz or gz stream in archive order, handing
/// each to `visit` with a reader of its data; returns how many members it saw.
/// (A zip is walked by `zip::walk`, from its central directory.)
pub fn walk_stream(
    f: &mut dyn Source,
    fmt: Format,
    budget: Budget,
    gz_name: &str,
    visit: &mut Visit,
) -> Result<u64, Stop> {
    let meter = Rc::new(Meter::default());
    match fmt {
        Format::Zip => Err(Stop::Unsupported("a zip is not a stream".into())),
        Format::Tar => {
            let r = CountIn {
                inner: f,
                meter: meter.clone(),
            };
            let r = CountOut {
                inner: r,
                meter: meter.clone(),
                budget,
            };
            walk_tar(r, budget, &meter, visit)
        }
        Format::TarGz => {
            let r = CountIn {
                inner: f,
                meter: meter.clone(),
            };
            let r = CountOut {
                inner: GzDecoder::new(r),
                meter: meter.clone(),
                budget,
            };
            walk_tar(r, budget, &meter, visit)
        }
        Format::Gz => {
            let r = CountIn {
                inner: f,
                meter: meter.clone(),
            };
            let mut r = CountOut {
                inner: GzDecoder::new(r),
                meter: meter.clone(),
                budget,
            };
            let name = r
                .inner
                .header()
                .and_then(|h| h.filename())
                .map(|n| String::from_utf8_lossy(n).into_owned())
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| gz_name.to_string());
            let m = Member {
                path: name,
                kind: Kind::File,
                size: 0,
                mode: None,
                mtime: None,
                link: None,
            };
            visit(&m, &mut r)?;
            Ok(1)
        }
    }
}

fn walk_tar<R: Read>(r: R, budget: Budget, meter: &Meter, visit: &mut Visit) -> Result<u64, Stop> {
    let mut ar = tar::Archive::new(r);
    let entries = ar.entries().map_err(|e| Stop::from_io(e, meter))?;
    let mut n = 0u64;
    for e in entries {
        let mut e = e.map_err(|e| Stop::from_io(e, meter))?;
        n += 1;
        if n > budget.max_entries {
            return Err(Stop::Limit(Limit::Entries(budget.max_entries)));
        }
        let h = e.header();
        use tar::EntryType as T;
        let kind = match h.entry_type() {
            T::Regular | T::Continuous => Kind::File,
            T::Directory => Kind::Dir,
            T::Symlink => Kind::Symlink,
            T::Link => Kind::Hardlink,
            _ => Kind::Other,
        };
        let m = Member {
            path: String::from_utf8_lossy(&e.path_bytes()).into_owned(),
            kind,
            size: e.size(),
            mode: h.mode().ok(),
            mtime: h.mtime().ok().and_then(|t| i64::try_from(t).ok()),
            link: e
                .link_name_bytes()
                .map(|l| String::from_utf8_lossy(&l).into_owned()),
        };
        match visit(&m, &mut e) {
            Ok(Flow::Next) => {}
            Ok(Flow::Done) => return Ok(n),
            Err(Stop::Io(e)) => return Err(Stop::from_io(e, meter)),
            Err(s) => return Err(s),
        }
    }
    Ok(n)
}
