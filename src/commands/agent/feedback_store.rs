//! Where feedback entries live and how they are written: the directory resolution
//! order, one `<id>.json` per entry, ids taken under a lock on the directory, and
//! every file written to a temp name, fsynced and renamed, so concurrent agents never
//! share an id and a reader never sees half a file.

use crate::protocol::{CmdError, Json, Repair, code, error};
use crate::store::files::{self, Durable, OwnDir};
use crate::store::state_dir;
use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub const TYPES: &[&str] = &["bug", "requirement", "suggestion", "bad-output"];
pub const STATUSES: &[&str] = &["open", "in-progress", "resolved", "closed"];

/// One feedback file, fields in the order they are stored and shown.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Entry {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub status: String,
    pub message: String,
    pub context: Context,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Context {
    pub version: String,
    pub command: Option<String>,
    pub exit_code: Option<i64>,
}

/// The `feedback/` of the aitools source checkout the running binary sits in,
/// found at run time from its path: `<checkout>/target/<profile>/aitools` (or
/// `target/<triple>/<profile>/`), where `<checkout>` holds `Cargo.toml`,
/// `agent/brief.md` and `feedback/`. An installed or copied binary has none (the
/// path of the machine that built it is never baked in).
pub fn checkout_feedback(exe: &Path) -> Option<PathBuf> {
    let target = exe
        .ancestors()
        .skip(2)
        .take(2)
        .find(|d| d.file_name().is_some_and(|n| n == "target"))?;
    let checkout = target.parent()?;
    let marked = checkout.join("Cargo.toml").is_file() && checkout.join("agent/brief.md").is_file();
    let dir = checkout.join("feedback");
    (marked && dir.is_dir()).then_some(dir)
}

/// `$AITOOLS_FEEDBACK_DIR` (relative to `cwd`), else the `feedback/` of the
/// checkout the binary runs from (`checkout_feedback`), else `<state home>/feedback`.
pub fn resolve_dir(
    env: Option<OsString>,
    cwd: &Path,
    checkout: Option<&Path>,
    state_home: &Path,
) -> PathBuf {
    if let Some(v) = env.filter(|v| !v.is_empty()) {
        return cwd.join(v);
    }
    if let Some(dir) = checkout.filter(|d| d.is_dir()) {
        return dir.to_path_buf();
    }
    state_home.join("feedback")
}

/// The directory this invocation uses.
pub fn dir(cwd: &Path) -> PathBuf {
    resolve_dir(
        std::env::var_os("AITOOLS_FEEDBACK_DIR"),
        cwd,
        std::env::current_exe()
            .ok()
            .and_then(|exe| checkout_feedback(&exe))
            .as_deref(),
        &state_dir::state_home().unwrap_or_else(|_| PathBuf::from(state_dir::NO_HOME)),
    )
}

fn io_err(command: &str, what: &Path, e: &std::io::Error) -> CmdError {
    CmdError::new(
        code::IO,
        format!(
            "The feedback directory {} cannot be used: {}.",
            what.display(),
            error::err_text(e)
        ),
        Repair::new(
            "schema",
            "Point AITOOLS_FEEDBACK_DIR at a writable directory, then run the command again.",
            format!("aitools schema {command}"),
        ),
    )
}

/// An id as typed (`7`, `007`) in its stored form (`007`); anything else is refused
/// so an id can never name a path outside the directory.
pub fn normalize_id(command: &str, raw: &str) -> Result<String, CmdError> {
    let ok = !raw.is_empty() && raw.len() <= 9 && raw.bytes().all(|b| b.is_ascii_digit());
    match raw.parse::<u64>() {
        Ok(n) if ok => Ok(format!("{n:03}")),
        _ => Err(CmdError::new(
            code::ARGUMENT_INVALID,
            format!("{raw:?} is not a feedback id; ids are numbers such as 001."),
            Repair::new(
                "list",
                "List the feedback entries and their ids.",
                "aitools feedback list",
            ),
        )
        .with_repair(error::schema_repair(command))),
    }
}

/// Held while an id is taken or an entry rewritten: an exclusive flock on the
/// directory itself (no lock file to commit or to leave behind).
pub struct DirLock {
    _held: files::DirLock,
}

pub fn lock(command: &str, dir: &Path, timeout: Duration) -> Result<DirLock, CmdError> {
    let own = OwnDir::at(dir.to_path_buf());
    own.create().map_err(|e| io_err(command, dir, &e))?;
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(held) = own.try_lock().map_err(|e| io_err(command, dir, &e))? {
            return Ok(DirLock { _held: held });
        }
        if Instant::now() >= deadline {
            return Err(CmdError::new(
                code::BUSY,
                format!(
                    "Another aitools process held the feedback directory {} for longer than --lock-timeout.",
                    dir.display()
                ),
                Repair::new(
                    "retry",
                    "Run the same command again, or with a longer --lock-timeout.",
                    format!("aitools {command} --lock-timeout 30s"),
                ),
            ));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// The ids present, ascending (`<digits>.json` files only).
pub fn ids(command: &str, dir: &Path) -> Result<Vec<u64>, CmdError> {
    let names = match OwnDir::at(dir.to_path_buf()).names() {
        Ok(n) => n,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(command, dir, &e)),
    };
    let mut ids: Vec<u64> = names
        .iter()
        .filter_map(|n| {
            let name = n.to_string_lossy();
            let stem = name.strip_suffix(".json")?;
            if stem.is_empty() || !stem.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            stem.parse().ok()
        })
        .collect();
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
}

pub fn path_of(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}.json"))
}

/// Writes `entry` to `<id>.json` atomically: temp file, fsync, rename, fsync dir.
/// Call only under the lock.
pub fn store(command: &str, dir: &Path, entry: &Entry) -> Result<PathBuf, CmdError> {
    let target = path_of(dir, &entry.id);
    let mut text = serde_json::to_string_pretty(entry)
        .map_err(|e| CmdError::internal(format!("A feedback entry did not serialize: {e}.")))?;
    text.push('\n');
    // Entries quote what agents ran and saw: readable by their owner only.
    let how = Durable {
        mode: 0o600,
        sync: true,
    };
    OwnDir::at(dir.to_path_buf())
        .replace(&format!("{}.json", entry.id), text.as_bytes(), how)
        .map_err(|e| io_err(command, dir, &e))?;
    Ok(target)
}

/// Reads one entry; `None` when the file does not exist.
pub fn load(command: &str, dir: &Path, id: &str) -> Result<Option<Entry>, CmdError> {
    let path = path_of(dir, id);
    let read = OwnDir::at(dir.to_path_buf())
        .read(&format!("{id}.json"))
        .and_then(|b| {
            String::from_utf8(b)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
        });
    let text = match read {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err(command, dir, &e)),
    };
    serde_json::from_str::<Entry>(&text).map(Some).map_err(|e| {
        CmdError::new(
            code::SYNTAX_ERROR,
            format!("{} is not a valid feedback entry: {e}.", path.display()),
            Repair::new(
                "read",
                "Read the file to repair it by hand.",
                crate::protocol::shell::aitools(["read", &path.to_string_lossy()]),
            ),
        )
    })
}

/// The error for an id with no file, listing the ids there are.
pub fn not_found(dir: &Path, id: &str, present: &[u64]) -> CmdError {
    let err = CmdError::new(
        code::NOT_FOUND,
        format!("There is no feedback entry {id} in {}.", dir.display()),
        Repair::new(
            "list",
            "List the feedback entries and their ids.",
            "aitools feedback list",
        ),
    );
    if present.is_empty() {
        return err;
    }
    // The newest ids: the one meant is most often a recent one.
    err.with_candidates(Json::Arr(
        present
            .iter()
            .rev()
            .take(10)
            .map(|n| Json::str(format!("{n:03}")))
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn resolution_order() {
        let tmp = std::env::temp_dir();
        let cwd = Path::new("/work");
        let missing = Path::new("/nonexistent/aitools/feedback");
        let state = Path::new("/state");
        assert_eq!(
            resolve_dir(Some("fb".into()), cwd, Some(&tmp), state),
            PathBuf::from("/work/fb")
        );
        assert_eq!(
            resolve_dir(Some("/abs".into()), cwd, Some(&tmp), state),
            PathBuf::from("/abs")
        );
        assert_eq!(resolve_dir(Some("".into()), cwd, Some(&tmp), state), tmp);
        assert_eq!(resolve_dir(None, cwd, Some(&tmp), state), tmp);
        assert_eq!(
            resolve_dir(None, cwd, Some(missing), state),
            PathBuf::from("/state/feedback")
        );
        assert_eq!(
            resolve_dir(None, cwd, None, state),
            PathBuf::from("/state/feedback")
        );
    }
    #[test]
    fn checkout_found_from_the_binary_path() {
        let Ok(tmp) = tempfile::tempdir() else {
            return;
        };
        let co = tmp.path();
        let exe = co.join("target/debug/aitools");
        assert_eq!(checkout_feedback(&exe), None);
        for d in ["agent", "feedback", "target/debug"] {
            let _ = std::fs::create_dir_all(co.join(d));
        }
        let _ = std::fs::write(co.join("Cargo.toml"), "");
        let _ = std::fs::write(co.join("agent/brief.md"), "");
        assert_eq!(checkout_feedback(&exe), Some(co.join("feedback")));
        let triple = co.join("target/x86_64-unknown-linux-gnu/release/aitools");
        assert_eq!(checkout_feedback(&triple), Some(co.join("feedback")));
        assert_eq!(checkout_feedback(&co.join("bin/aitools")), None);
        assert_eq!(checkout_feedback(Path::new("/usr/bin/aitools")), None);
    }
    #[test]
    fn ids_normalize() {
        assert_eq!(normalize_id("x", "7").ok().as_deref(), Some("007"));
        assert_eq!(normalize_id("x", "0012").ok().as_deref(), Some("012"));
        assert_eq!(normalize_id("x", "1234").ok().as_deref(), Some("1234"));
        for bad in ["", "../1", "1a", "-1", "+1", "1234567890", "١"] {
            assert!(normalize_id("x", bad).is_err(), "{bad}");
        }
    }
}
