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

/// One process as /proc describes it.
pub struct Proc {
    pub pid: u32,
    pub ppid: u32,
    pub uid: Option<u32>,
    /// R, S, D, Z, T, ...
    pub state: String,
    /// Its command line (arguments joined by spaces), or `[comm]` for a kernel thread.
    pub command: String,
    /// Start time, seconds since the epoch.
    pub started: Option<i64>,
}

/// The boot time (seconds since the epoch) and clock ticks per second.
fn boot_and_ticks() -> (Option<i64>, i64) {
    let btime = std::fs::read_to_string("/proc/stat").ok().and_then(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("btime "))
            .and_then(|v| v.trim().parse().ok())
    });
    // SAFETY: sysconf reads a constant.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (btime, if ticks > 0 { ticks as i64 } else { 100 })
}

/// One process, or None when it ended meanwhile (or /proc is not there).
fn process(pid: u32, boot: Option<i64>, ticks: i64) -> Option<Proc> {
    use std::os::unix::fs::MetadataExt;
    let dir = PathBuf::from(format!("/proc/{pid}"));
    let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
    let (head, rest) = stat.rsplit_once(')')?;
    let comm = head.split_once('(').map(|(_, c)| c).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let state = f.first()?.to_string();
    let ppid = f.get(1)?.parse().ok()?;
    let start: Option<i64> = f.get(19).and_then(|v| v.parse().ok());
    let cmdline = std::fs::read(dir.join("cmdline")).unwrap_or_default();
    let args: Vec<String> = cmdline
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    let command = if args.is_empty() {
        format!("[{comm}]")
    } else {
        args.join(" ")
    };
    Some(Proc {
        pid,
        ppid,
        uid: std::fs::metadata(&dir).ok().map(|m| m.uid()),
        state,
        command,
        started: boot.zip(start).map(|(b, s)| b + s / ticks),
    })
}

/// Whether /proc is mounted and lists this process: `NotFound` when it is
/// missing (not Linux, a sandbox) or an empty mount (a bare container).
pub fn proc_mounted() -> std::io::Result<()> {
    std::fs::metadata(format!("/proc/{}", std::process::id())).map(|_| ())
}

/// Every process /proc lists, by pid.
pub fn processes() -> std::io::Result<Vec<Proc>> {
    let (boot, ticks) = boot_and_ticks();
    let mut pids: Vec<u32> = std::fs::read_dir("/proc")?
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    pids.sort_unstable();
    Ok(pids
        .into_iter()
        .filter_map(|p| process(p, boot, ticks))
        .collect())
}

/// One listening socket from /proc/net.
pub struct Listener {
    pub protocol: &'static str,
    pub address: String,
    pub port: u16,
    pub inode: u64,
}

/// `0100007F` (IPv4) or 32 hex digits (IPv6), each 32-bit word in host order.
fn hex_address(h: &str) -> Option<String> {
    let words: Vec<u32> = (0..h.len() / 8)
        .map(|i| u32::from_str_radix(h.get(i * 8..i * 8 + 8)?, 16).ok())
        .collect::<Option<_>>()?;
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
    match bytes.len() {
        4 => Some(std::net::Ipv4Addr::new(bytes[0], bytes[1], bytes[2], bytes[3]).to_string()),
        16 => {
            let a: [u8; 16] = bytes.try_into().ok()?;
            Some(std::net::Ipv6Addr::from(a).to_string())
        }
        _ => None,
    }
}

/// TCP sockets in LISTEN (and unconnected UDP ones) from /proc/net/{tcp,tcp6,udp,udp6}.
pub fn listeners() -> std::io::Result<Vec<Listener>> {
    let mut out = Vec::new();
    let mut any = false;
    for (file, protocol, state) in [
        ("tcp", "tcp", "0A"),
        ("tcp6", "tcp6", "0A"),
        ("udp", "udp", "07"),
        ("udp6", "udp6", "07"),
    ] {
        let Ok(text) = std::fs::read_to_string(format!("/proc/net/{file}")) else {
            continue;
        };
        any = true;
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let (Some(local), Some(st), Some(inode)) = (f.get(1), f.get(3), f.get(9)) else {
                continue;
            };
            if *st != state {
                continue;
            }
            let Some((addr, port)) = local.split_once(':') else {
                continue;
            };
            let (Some(address), Ok(port)) = (hex_address(addr), u16::from_str_radix(port, 16))
            else {
                continue;
            };
            out.push(Listener {
                protocol,
                address,
                port,
                inode: inode.parse().unwrap_or(0),
            });
        }
    }
    if !any {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "/proc/net is not readable",
        ));
    }
    Ok(out)
}

/// Socket inode → the pid holding it, for the processes whose fds are readable.
pub fn socket_owners() -> std::collections::HashMap<u64, u32> {
    let mut map = std::collections::HashMap::new();
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return map;
    };
    for e in procs.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(e.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            let Ok(t) = std::fs::read_link(fd.path()) else {
                continue;
            };
            let t = t.to_string_lossy();
            if let Some(n) = t.strip_prefix("socket:[").and_then(|r| r.strip_suffix(']'))
                && let Ok(n) = n.parse()
            {
                map.entry(n).or_insert(pid);
            }
        }
    }
    map
}
