//! Inputs a user names (`--content-file`, `--stdin`, a file `read` or `info`
//! opens): what may be opened at all, and how much of it is read.
//!
//! A FIFO would block the open or the read, a device can be endless
//! (`/dev/zero`), and a procfs or sysfs file reports size 0 while a read of it
//! may block (`/proc/kmsg`) or consume what another reader was owed. Such paths
//! are refused from their metadata, before any open; the open itself is
//! non-blocking and re-checked on the descriptor, so a path swapped for a FIFO
//! between the check and the open cannot hang the call. Every read stops one
//! byte past `--max-input` (default [`DEFAULT_MAX_INPUT`]) and is refused with
//! `refusal.too-large` naming that option.

use super::Ctx;
use super::error::WorkspaceError;
use crate::protocol::values;
use clap::Args;
use std::fs::{File, Metadata};
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The input size read when `--max-input` is not given: far above any source
/// file, and a bound on the memory one call can be made to take.
pub const DEFAULT_MAX_INPUT: u64 = 256 * 1024 * 1024;

/// The `--max-input` option of every command that reads a content file or
/// standard input, declared once.
#[derive(Args, Debug, Clone, Default)]
pub struct InputLimit {
    /// The most bytes read from one input (--content-file, --stdin): <n>, <n>KiB, <n>MiB or <n>GiB; default 256MiB. A larger input is refusal.too-large.
    #[arg(long, value_name = "SIZE")]
    pub max_input: Option<String>,
}

impl InputLimit {
    /// The limit in bytes.
    pub fn bytes(&self, command: &str) -> Result<u64, Box<WorkspaceError>> {
        match &self.max_input {
            None => Ok(DEFAULT_MAX_INPUT),
            Some(s) => values::parse_size(s).map_err(|why| {
                WorkspaceError::BadValue {
                    command: command.to_string(),
                    flag: "--max-input",
                    why,
                }
                .boxed()
            }),
        }
    }
}

/// What kind of not-to-be-opened path `meta` (followed) and `path` describe:
/// `None` for a regular file on an ordinary file system.
pub fn special_kind(path: &Path, meta: &Metadata) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let ft = meta.file_type();
    if ft.is_dir() {
        return Some("a directory");
    }
    if ft.is_fifo() {
        return Some("a FIFO");
    }
    if ft.is_socket() {
        return Some("a socket");
    }
    if ft.is_char_device() || ft.is_block_device() {
        return Some("a device");
    }
    if !ft.is_file() {
        return Some("not a regular file");
    }
    pseudo_fs(path)
}

/// Kernel file systems whose files report a size they do not have (procfs,
/// sysfs and friends): reading one may block or have effects.
pub fn pseudo_fs(path: &Path) -> Option<&'static str> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: `c` is a valid NUL-terminated path; `st` is plain data the call fills.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::statfs(c.as_ptr(), &mut st) };
    if rc != 0 {
        return None;
    }
    fs_name(st.f_type as i64)
}

fn fs_name(f_type: i64) -> Option<&'static str> {
    match f_type {
        0x9fa0 => Some("a procfs file"),
        0x6265_6572 => Some("a sysfs file"),
        0x6462_6720 => Some("a debugfs file"),
        0x7472_6163 => Some("a tracefs file"),
        0x7363_6673 => Some("a securityfs file"),
        0x6265_6570 => Some("a configfs file"),
        _ => None,
    }
}

/// The refusal for a path [`special_kind`] named.
pub fn not_openable(arg: &str, kind: &'static str) -> Box<WorkspaceError> {
    WorkspaceError::NotOpenable {
        arg: arg.to_string(),
        kind,
    }
    .boxed()
}

/// `refusal.too-large` for an input over `limit`, with the call again under a
/// limit that fits (`need`, when the size is known).
pub fn too_large(ctx: &Ctx, what: &str, limit: u64, need: Option<u64>) -> Box<WorkspaceError> {
    WorkspaceError::TooLarge {
        what: what.to_string(),
        limit,
        need,
        argv: ctx.argv.clone(),
    }
    .boxed()
}

/// The largest file a command reads whole into memory to parse or edit it
/// (edit and its kin, check, json): a larger one is refused from its size,
/// before any byte is read, so a huge or sparse file costs nothing.
pub const MAX_WHOLE_FILE: u64 = 64 * 1024 * 1024;

/// `refusal.too-large` when a file of `len` bytes is over [`MAX_WHOLE_FILE`].
pub fn whole_file_budget(display: &str, len: u64) -> Result<(), Box<WorkspaceError>> {
    if len <= MAX_WHOLE_FILE {
        return Ok(());
    }
    Err(WorkspaceError::WholeTooLarge {
        display: display.to_string(),
        len,
        limit: MAX_WHOLE_FILE,
    }
    .boxed())
}

/// A named input file's bytes: refused when it is not a regular file on an
/// ordinary file system, or larger than `limit`. `arg` is the path as given.
pub fn read_file(
    ctx: &Ctx,
    arg: &str,
    abs: &Path,
    limit: u64,
) -> Result<Vec<u8>, Box<WorkspaceError>> {
    read_input(ctx, arg, abs, limit, false).map(|(b, _)| b)
}

/// Whether `abs` is (follows to) a regular file of `from` bytes or more: an
/// input a caller may stream (`open_file`) rather than read whole.
pub fn is_large(abs: &Path, from: u64) -> bool {
    std::fs::metadata(abs).is_ok_and(|m| m.is_file() && m.len() >= from)
}

/// A named input file opened, with its metadata: refused as `read_file`
/// refuses it (not a regular file on an ordinary file system, or larger than
/// `limit`), for a caller that reads it itself (a large file, streamed).
pub fn open_file(
    ctx: &Ctx,
    arg: &str,
    abs: &Path,
    limit: u64,
) -> Result<(File, Metadata), Box<WorkspaceError>> {
    let io = |e: std::io::Error| {
        super::candidates::not_found_or_io(ctx, arg, abs, &e, super::candidates::Offer::Look)
    };
    let meta = std::fs::metadata(abs).map_err(io)?;
    if let Some(kind) = special_kind(abs, &meta) {
        return Err(not_openable(arg, kind));
    }
    if meta.len() > limit {
        return Err(too_large(ctx, arg, limit, Some(meta.len())));
    }
    let file = open_regular(abs).map_err(io)?;
    // Re-checked on what was opened: the path may have been replaced since.
    let meta = file.metadata().map_err(io)?;
    if let Some(kind) = special_kind(abs, &meta) {
        return Err(not_openable(arg, kind));
    }
    if meta.len() > limit {
        return Err(too_large(ctx, arg, limit, Some(meta.len())));
    }
    Ok((file, meta))
}

fn read_input(
    ctx: &Ctx,
    arg: &str,
    abs: &Path,
    limit: u64,
    hashed: bool,
) -> Result<(Vec<u8>, Option<String>), Box<WorkspaceError>> {
    let io = |e: std::io::Error| {
        super::candidates::not_found_or_io(ctx, arg, abs, &e, super::candidates::Offer::Look)
    };
    let (file, meta) = open_file(ctx, arg, abs, limit)?;
    // Room for the size stat'ed (and the byte that tells a grown file): read in
    // one go instead of from 32 bytes up, doubling and copying.
    let room = meta.len().min(limit).saturating_add(1);
    let room = usize::try_from(room).unwrap_or(0);
    if hashed && room > HUGE_INPUT {
        return read_hashing(file, room, limit)
            .map_err(io)?
            .ok_or_else(|| too_large(ctx, arg, limit, None));
    }
    read_capped_into(file, limit, buffer(room))
        .map_err(io)?
        .map(|b| (b, None))
        .ok_or_else(|| too_large(ctx, arg, limit, None))
}

/// `read_file`'s bytes and, for a large file, their SHA-256 (hex), computed on a
/// second thread chunk by chunk as the reads fill the buffer (`None`: not computed).
pub fn read_file_hashed(
    ctx: &Ctx,
    arg: &str,
    abs: &Path,
    limit: u64,
) -> Result<(Vec<u8>, Option<String>), Box<WorkspaceError>> {
    read_input(ctx, arg, abs, limit, true)
}

/// The bytes read a chunk at a time into a buffer of `room` bytes, each chunk
/// hashed on a second thread while the next is read. A file that fills the room
/// (it grew since its stat) is read on to `limit` and not hashed here.
///
/// The reads go straight into the buffer's unwritten room: zero-filling it first
/// touched every page before the first read (its page faults and clearing, 15 ms
/// under load for 9 MB, all before the pipeline started), where now each page is
/// faulted in by the read that fills it while the previous chunk is hashed.
fn read_hashing(
    file: File,
    room: usize,
    limit: u64,
) -> std::io::Result<Option<(Vec<u8>, Option<String>)>> {
    use sha2::{Digest, Sha256};
    use std::mem::MaybeUninit;
    use std::os::fd::AsRawFd;
    const CHUNK: usize = 1 << 20;
    let mut buf = buffer(room);
    let fd = file.as_raw_fd();
    let mut total = 0usize;
    let hash = std::thread::scope(|s| -> std::io::Result<String> {
        let (tx, rx) = std::sync::mpsc::channel::<&[u8]>();
        let hasher = s.spawn(move || {
            let mut sha = Sha256::new();
            for part in rx {
                sha.update(part);
            }
            crate::text::lines::hex(&sha.finalize())
        });
        let spare = buf.spare_capacity_mut();
        let fits = room.min(spare.len());
        let mut rest: &mut [MaybeUninit<u8>] = &mut spare[..fits];
        let mut read = || -> std::io::Result<()> {
            while !rest.is_empty() {
                let n = rest.len().min(CHUNK);
                let (chunk, tail) = std::mem::take(&mut rest).split_at_mut(n);
                rest = tail;
                let mut got = 0;
                while got < n {
                    let want = &mut chunk[got..];
                    // SAFETY: read(2) stores at most `want.len()` bytes at
                    // `want`, which is writable memory this function borrows
                    // mutably; it never reads what was there.
                    let k = unsafe { libc::read(fd, want.as_mut_ptr().cast(), want.len()) };
                    match k {
                        0 => break,
                        k if k > 0 => got += k as usize,
                        _ => {
                            let e = std::io::Error::last_os_error();
                            if e.kind() != std::io::ErrorKind::Interrupted {
                                return Err(e);
                            }
                        }
                    }
                }
                total += got;
                // SAFETY: the reads above wrote the chunk's first `got` bytes.
                let done: &[u8] = unsafe { std::slice::from_raw_parts(chunk.as_ptr().cast(), got) };
                let _ = tx.send(done);
                if got < n {
                    break;
                }
            }
            Ok(())
        };
        let result = read();
        drop(tx);
        let hash = hasher
            .join()
            .map_err(|_| std::io::Error::other("the content's hash was not computed"));
        result.and(hash)
    })?;
    // SAFETY: the chunks are consecutive from the buffer's start and the reads
    // stopped at the first short one, so its first `total` bytes were written.
    unsafe { buf.set_len(total) };
    if total < room {
        return Ok(Some((buf, Some(hash))));
    }
    // Grown past its stat: the rest up to the limit, hashed by the plan.
    let more = limit.saturating_add(1).saturating_sub(total as u64);
    file.take(more).read_to_end(&mut buf)?;
    Ok((buf.len() as u64 <= limit).then_some((buf, None)))
}

/// Opens for reading without blocking on a FIFO and without taking a terminal.
pub fn open_regular(abs: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(abs)
}

/// Standard input's bytes, at most `limit` of them (`--stdin`).
pub fn read_stdin(ctx: &Ctx, limit: u64) -> Result<Vec<u8>, Box<WorkspaceError>> {
    let stdin = std::io::stdin();
    match read_capped(stdin.lock(), limit) {
        Ok(Some(b)) => Ok(b),
        Ok(None) => Err(WorkspaceError::TooLarge {
            what: "The standard input".to_string(),
            limit,
            need: None,
            argv: ctx.argv.clone(),
        }
        .boxed()),
        Err(err) => Err(WorkspaceError::Stdin {
            err,
            command: ctx.command.clone(),
        }
        .boxed()),
    }
}

/// Inputs this large are read into memory the kernel backs with huge pages.
const HUGE_INPUT: usize = 4 << 20;
/// The huge page size `madvise(MADV_HUGEPAGE)` aligns to on x86-64 and arm64 (4K pages).
const HUGE_PAGE: usize = 2 << 20;

/// An empty buffer with room for `room` bytes. A large one is marked for
/// transparent huge pages (where the system leaves it to `madvise`): every fresh
/// 4 KiB page a read fills is a page fault and a page cleared, and on a VM a
/// fault of the host too; a 2 MiB page is one (profile of `write` 9 MB: clearing
/// the read buffer's pages was 30% of the CPU time). Only the whole 2 MiB pages
/// inside the buffer are marked, so it has one page of room more; the hint
/// changes no byte and its failure changes nothing.
pub fn buffer(room: usize) -> Vec<u8> {
    if room < HUGE_INPUT {
        return Vec::with_capacity(room);
    }
    let mut buf = Vec::with_capacity(room.saturating_add(HUGE_PAGE));
    #[cfg(target_os = "linux")]
    {
        let at = buf.as_mut_ptr() as usize;
        let start = at.next_multiple_of(HUGE_PAGE);
        let end = (at + buf.capacity()) / HUGE_PAGE * HUGE_PAGE;
        if end > start {
            // SAFETY: [start, end) lies inside `buf`'s allocation, which this function
            // owns and has not written; MADV_HUGEPAGE only changes how the kernel
            // backs the range, never its contents or its mapping.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    buf
}

/// Everything `r` gives up to `limit` bytes; `None` when there is more.
pub fn read_capped(r: impl Read, limit: u64) -> std::io::Result<Option<Vec<u8>>> {
    read_capped_into(r, limit, Vec::new())
}

/// `read_capped` into `buf` (empty, with the capacity the caller expects to need).
fn read_capped_into(
    r: impl Read,
    limit: u64,
    mut buf: Vec<u8>,
) -> std::io::Result<Option<Vec<u8>>> {
    r.take(limit.saturating_add(1)).read_to_end(&mut buf)?;
    Ok((buf.len() as u64 <= limit).then_some(buf))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn capped_reads_stop_one_byte_past_the_limit() {
        assert_eq!(
            read_capped(&b"abc"[..], 3).ok().flatten(),
            Some(b"abc".to_vec())
        );
        assert_eq!(read_capped(&b"abcd"[..], 3).ok().flatten(), None);
        assert_eq!(
            read_capped(std::io::repeat(0), 10).ok().flatten(),
            None,
            "an endless reader ends"
        );
    }
    #[test]
    fn buffers_have_the_room_asked() {
        for room in [
            0,
            1,
            4095,
            HUGE_INPUT - 1,
            HUGE_INPUT,
            9 << 20,
            (9 << 20) + 7,
        ] {
            let mut b = buffer(room);
            assert!(b.is_empty() && b.capacity() >= room, "room {room}");
            // The marked memory holds what is written to it.
            b.resize(room, 0xa5);
            assert!(b.iter().all(|&x| x == 0xa5), "room {room}");
        }
    }
    #[test]
    fn reads_hashed_as_they_go_match_one_hash_of_the_whole() {
        use crate::text::lines::sha256_hex;
        let dir = std::env::temp_dir().join(format!("aitools-hashing-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("in.bin");
        let size = (5 << 20) + 3;
        let body: Vec<u8> = (0..size).map(|k| (k % 251) as u8).collect();
        assert!(std::fs::write(&path, &body).is_ok());
        let open = || File::open(&path).ok();
        let limit = 1 << 30;
        // As stat'ed: the bytes, and the hash of all of them.
        let got = open().and_then(|f| read_hashing(f, size + 1, limit).ok().flatten());
        assert_eq!(got, Some((body.clone(), Some(sha256_hex(&body)))));
        // Grown past the room: read on to the end, hash left to the plan.
        let got = open().and_then(|f| read_hashing(f, size - 10, limit).ok().flatten());
        assert_eq!(got, Some((body.clone(), None)));
        // Over the limit: refused, whatever the room.
        let got = open().and_then(|f| read_hashing(f, size - 10, (size - 1) as u64).ok());
        assert_eq!(got, Some(None));
        let _ = std::fs::remove_dir_all(&dir);
    }
    #[test]
    fn kernel_file_systems_are_named() {
        assert_eq!(fs_name(0x9fa0), Some("a procfs file"));
        assert_eq!(fs_name(0x6265_6572), Some("a sysfs file"));
        assert_eq!(fs_name(0xEF53), None);
    }
}
