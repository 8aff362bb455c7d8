//! Facts about the machine aitools runs on, for `sys`: uname(2), the CPU count,
//! the user, memory (/proc/meminfo), the file system holding a path
//! (statvfs(2)), where a command name is found on `PATH`, and random bytes.

use std::ffi::CStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// What uname(2) says.
#[derive(Debug, Clone)]
pub struct Uname {
    pub sysname: String,
    pub release: String,
    pub machine: String,
    pub nodename: String,
}

fn field(chars: &[libc::c_char]) -> String {
    // SAFETY: uname fills each field with a NUL-terminated string within it.
    unsafe { CStr::from_ptr(chars.as_ptr()) }
        .to_string_lossy()
        .to_string()
}

pub fn uname() -> Option<Uname> {
    // SAFETY: utsname is plain data; uname writes into the struct we own.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to the struct above.
    if unsafe { libc::uname(&mut u) } != 0 {
        return None;
    }
    Some(Uname {
        sysname: field(&u.sysname),
        release: field(&u.release),
        machine: field(&u.machine),
        nodename: field(&u.nodename),
    })
}

/// Logical CPUs online.
pub fn cpus() -> Option<u64> {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    u64::try_from(n).ok().filter(|&n| n > 0)
}

/// The real user id.
pub fn uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

/// The name /etc/passwd gives `uid`, else `$USER`.
pub fn user_name(uid: u32) -> Option<String> {
    if let Ok(text) = std::fs::read_to_string("/etc/passwd") {
        for line in text.lines() {
            let mut parts = line.split(':');
            let (Some(name), _, Some(id)) = (parts.next(), parts.next(), parts.next()) else {
                continue;
            };
            if id.parse::<u32>().ok() == Some(uid) {
                return Some(name.to_string());
            }
        }
    }
    std::env::var("USER").ok().filter(|u| !u.is_empty())
}

/// (total, available) bytes of memory: MemTotal and MemAvailable.
pub fn memory() -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib = |key: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(key))?;
        line[key.len()..]
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse::<u64>()
            .ok()
            .map(|k| k * 1024)
    };
    Some((kib("MemTotal:")?, kib("MemAvailable:")?))
}

/// (total, available to an unprivileged user) bytes of the file system at `p`.
pub fn disk(p: &Path) -> Option<(u64, u64)> {
    let c = std::ffi::CString::new(p.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs is plain data that statvfs(3) fills.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a pointer to the struct above.
    if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 {
        return None;
    }
    let frsize = s.f_frsize as u64;
    Some((
        (s.f_blocks as u64).saturating_mul(frsize),
        (s.f_bavail as u64).saturating_mul(frsize),
    ))
}

/// `path` (a `PATH` value) without its empty and relative entries: what aitools
/// hands a program it starts on its own account (git), so neither the lookup nor
/// what that program starts by name lands in the tree it runs in.
pub fn absolute_path(path: &str) -> String {
    path.split(':')
        .filter(|d| d.starts_with('/'))
        .collect::<Vec<_>>()
        .join(":")
}

/// The first executable regular file named `name` in the directories of
/// `path` (a `PATH` value). Only absolute directories count: an empty or relative
/// entry (`.`, `node_modules/.bin`) names a directory of whatever tree aitools runs
/// in, and a repository it was asked to read must not pick the program it runs.
pub fn which(name: &str, path: &str) -> Option<PathBuf> {
    path.split(':')
        .filter(|d| d.starts_with('/'))
        .find_map(|d| {
            let p = Path::new(d).join(name);
            let m = std::fs::metadata(&p).ok()?;
            (m.is_file() && m.permissions().mode() & 0o111 != 0).then_some(p)
        })
}

/// Fills `buf` from the OS's cryptographic random source (getrandom(2)).
pub fn random_bytes(buf: &mut [u8]) -> std::io::Result<()> {
    let mut filled = 0;
    while filled < buf.len() {
        let rest = &mut buf[filled..];
        // SAFETY: writes at most rest.len() bytes into the slice we own.
        let n = unsafe { libc::getrandom(rest.as_mut_ptr().cast(), rest.len(), 0) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        filled += n as usize;
    }
    Ok(())
}
