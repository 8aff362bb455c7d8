//! Blob packs (`blobs/packs/<op_id>`): the before-images one op keeps, in one
//! file instead of one file each (an op over many files creates one inode for
//! them, not one per file). A pack is written whole through a temp in `blobs/`,
//! synced with the op's other files, and renamed into `packs/` before the op's
//! commit point, exactly as a loose blob is; it never changes after. Its first
//! line is `aitools-pack 1`, then one line `<sha256> <offset> <length>` per blob
//! (offsets from the end of the index), then an empty line, then the bytes.
//! Readers check a blob's bytes against its hash (`blobs::read_verified`); a
//! pack is never taken as a source by a later op (`blobs::exists` is loose
//! only), so a damaged pack only ever fails a read, never a later op.

use super::fsx;
use std::io::{self, BufRead, Read, Seek};
use std::path::{Path, PathBuf};

const MAGIC: &str = "aitools-pack 1";

/// Ops keeping fewer blobs than this keep them loose (a pack saves nothing).
pub const MIN_BLOBS: usize = 2;
/// Blobs larger than this stay loose (a reflink or an in-kernel copy of a big
/// file costs less than a second copy of its bytes through a pack).
pub const MAX_BLOB: usize = 1 << 20;

pub fn dir(state: &Path) -> PathBuf {
    state.join("blobs").join("packs")
}

pub fn path(state: &Path, op_id: &str) -> PathBuf {
    dir(state).join(op_id)
}

/// Whether `name` can be a pack's name (an op id: no dot first, no slash).
fn plain_name(name: &str) -> bool {
    !name.is_empty() && !name.starts_with('.') && !name.contains('/')
}

/// Writes the pack of `items` (hash, bytes) at `tmp` (a new private file; what
/// a killed run left at that name is replaced) and hands it to `batch`.
pub fn write(tmp: &Path, items: &[(&str, &[u8])], batch: &mut fsx::Batch) -> io::Result<()> {
    let mut index = String::with_capacity(16 + items.len() * 90);
    index.push_str(MAGIC);
    index.push('\n');
    let mut off = 0u64;
    for (h, b) in items {
        index.push_str(&format!("{h} {off} {}\n", b.len()));
        off += b.len() as u64;
    }
    index.push('\n');
    let mut f = match fsx::create_new(tmp, 0o600) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            std::fs::remove_file(tmp)?;
            fsx::create_new(tmp, 0o600)?
        }
        r => r?,
    };
    let mut pieces: Vec<&[u8]> = Vec::with_capacity(items.len() + 1);
    pieces.push(index.as_bytes());
    pieces.extend(items.iter().map(|(_, b)| *b));
    fsx::write_pieces(&mut f, &pieces)?;
    batch.written(f)
}

/// One blob in a pack's index.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub hash: String,
    pub offset: u64,
    pub len: u64,
}

/// The longest index line: a hash, two 20-digit numbers, spaces, a newline.
const LINE_MAX: u64 = 64 + 2 * 20 + 3;

/// A pack's index and where its bytes start. Anything that is not an index
/// as `write` writes it is `InvalidData`.
fn index(r: &mut impl BufRead) -> io::Result<(Vec<Item>, u64)> {
    let bad = || io::Error::new(io::ErrorKind::InvalidData, "not an aitools blob pack");
    // A line is read up to `LINE_MAX` bytes: a damaged header (a zeroed
    // block, no newline) is never read whole into memory.
    let mut line = String::new();
    let mut at = r.by_ref().take(LINE_MAX).read_line(&mut line)? as u64;
    if line != format!("{MAGIC}\n") {
        return Err(bad());
    }
    let mut items = Vec::new();
    loop {
        line.clear();
        let n = r.by_ref().take(LINE_MAX).read_line(&mut line)?;
        if n == 0 || !line.ends_with('\n') {
            return Err(bad());
        }
        at += n as u64;
        if line == "\n" {
            return Ok((items, at));
        }
        let mut w = line.trim_end().split(' ');
        let (Some(h), Some(o), Some(l), None) = (w.next(), w.next(), w.next(), w.next()) else {
            return Err(bad());
        };
        let (Ok(offset), Ok(len)) = (o.parse(), l.parse()) else {
            return Err(bad());
        };
        if h.len() != 64 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(bad());
        }
        items.push(Item {
            hash: h.to_string(),
            offset,
            len,
        });
    }
}

/// The blobs the pack at `p` holds.
pub fn items(p: &Path) -> io::Result<Vec<Item>> {
    let f = fsx::open_regular(p)?;
    Ok(index(&mut io::BufReader::new(f))?.0)
}

/// `hash`'s bytes from the pack at `p`, if it holds them.
fn read_from(p: &Path, hash: &str) -> io::Result<Option<Vec<u8>>> {
    let f = fsx::open_regular(p)?;
    let mut r = io::BufReader::new(f);
    let (items, start) = index(&mut r)?;
    let Some(it) = items.iter().find(|i| i.hash == hash) else {
        return Ok(None);
    };
    let at = start
        .checked_add(it.offset)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "a pack offset overflows"))?;
    r.seek(io::SeekFrom::Start(at))?;
    let mut out = Vec::new();
    r.take(it.len).read_to_end(&mut out)?;
    if out.len() as u64 != it.len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "a blob pack is shorter than its index says",
        ));
    }
    Ok(Some(out))
}

/// `hash`'s bytes from the pack of op `op` alone (no other pack is listed or
/// read): `None` when that pack is missing, unreadable, or does not hold them;
/// a pack cut short before them is damage (`InvalidData`), as in [`find`].
pub fn find_in(state: &Path, hash: &str, op: &str) -> io::Result<Option<Vec<u8>>> {
    if !plain_name(op) {
        return Ok(None);
    }
    match read_from(&path(state, op), hash) {
        Ok(found) => Ok(found),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("blob {hash}: its pack {op} is shorter than its index says"),
        )),
        Err(_) => Ok(None),
    }
}

/// The names of the packs there are (none when `packs/` is missing).
pub fn names(state: &Path) -> io::Result<Vec<String>> {
    fsx::names_where(&dir(state), plain_name)
}

/// `hash`'s bytes from the pack of `hint` when it holds them, else from any
/// pack that does. A pack that cannot be read is passed over; when no pack
/// gives the bytes but one's index names them and the pack is cut short, the
/// answer is that damage (`InvalidData`, as a blob whose bytes changed), not
/// "missing".
pub fn find(state: &Path, hash: &str, hint: Option<&str>) -> io::Result<Option<Vec<u8>>> {
    let hinted = hint.filter(|h| plain_name(h));
    let mut damaged = None;
    // The hinted pack first: the usual case lists no directory.
    let mut look = |name: &str| match read_from(&path(state, name), hash) {
        Ok(Some(b)) => Some(b),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
            damaged.get_or_insert_with(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("blob {hash}: its pack {name} is shorter than its index says"),
                )
            });
            None
        }
        // The op's own pack is there but is no pack (its index damaged): that
        // is damage too, not a missing blob.
        Err(e) if e.kind() == io::ErrorKind::InvalidData && Some(name) == hinted => {
            damaged.get_or_insert_with(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("blob {hash}: its pack {name} is damaged ({e})"),
                )
            });
            None
        }
        _ => None,
    };
    if let Some(b) = hinted.and_then(&mut look) {
        return Ok(Some(b));
    }
    for name in names(state)? {
        if Some(name.as_str()) != hinted
            && let Some(b) = look(&name)
        {
            return Ok(Some(b));
        }
    }
    damaged.map_or(Ok(None), Err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::lines::sha256_hex;

    #[test]
    fn a_pack_round_trips_and_refuses_what_it_does_not_hold() {
        let t = tempfile::tempdir().unwrap();
        let state = t.path();
        std::fs::create_dir_all(dir(state)).unwrap();
        let (a, b) = (b"first\n".as_slice(), b"".as_slice());
        let (ha, hb) = (sha256_hex(a), sha256_hex(b));
        let tmp = state.join("blobs").join(".op-1-pack.tmp");
        std::fs::write(&tmp, b"left by a kill").unwrap();
        let mut batch = fsx::Batch::new(1);
        write(&tmp, &[(&ha, a), (&hb, b)], &mut batch).unwrap();
        batch.sync().unwrap();
        std::fs::rename(&tmp, path(state, "op-1")).unwrap();
        assert_eq!(find(state, &ha, Some("op-1")).unwrap().unwrap(), a);
        assert_eq!(find(state, &hb, None).unwrap().unwrap(), b);
        assert_eq!(find(state, &"0".repeat(64), None).unwrap(), None);
        assert_eq!(items(&path(state, "op-1")).unwrap().len(), 2);
        // A damaged pack fails its reads, never panics.
        std::fs::write(path(state, "op-2"), b"aitools-pack 1\nzz 0 5\n\nab").unwrap();
        assert!(items(&path(state, "op-2")).is_err());
        assert_eq!(find(state, &ha, Some("op-2")).unwrap().unwrap(), a);
        let short = format!("aitools-pack 1\n{ha} 0 99\n\nfirst\n");
        std::fs::write(path(state, "op-3"), short).unwrap();
        assert!(read_from(&path(state, "op-3"), &ha).is_err());
    }
}
