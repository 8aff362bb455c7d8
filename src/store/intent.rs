//! Intent records (`commit/<op_id>.intent`): the first line names everything an op
//! will do — its temp files, blob temp files, blob hard links, the ordered apply
//! steps and its journal entry — and is fsynced before any temp file exists; the
//! second line, the SHA-256 of the first, is the commit point. Every step is
//! idempotent, so rolling a complete record forward twice is harmless.

use super::beneath::{self, Tree};
use super::fsx;
use super::journal::Entry;
use crate::text::lines::sha256_hex;
use serde::{Deserialize, Serialize};
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

mod wire;
use wire::Wire;

/// One apply step. Identity checks (`dev`/`ino`) make re-running a step that already
/// happened a no-op even when a later step reused the path.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum Step {
    /// Create a directory (an existing one is fine), then set its mode.
    Mkdir { path: PathBuf, mode: Option<u32> },
    /// Rename a prepared temp file (or temp symlink) onto its target.
    Rename { tmp: PathBuf, to: PathBuf },
    /// Rename `from` (the entry with this identity) to `to`.
    Move {
        from: PathBuf,
        to: PathBuf,
        dev: u64,
        ino: u64,
    },
    /// Remove the file or symlink with this identity.
    Unlink { path: PathBuf, dev: u64, ino: u64 },
    /// Remove the empty directory with this identity.
    Rmdir { path: PathBuf, dev: u64, ino: u64 },
    /// Set permission bits (the path is the real path the plan resolved; a
    /// symlink found there now is refused, not followed).
    Chmod { path: PathBuf, mode: u32 },
    /// Set the modification time (as `Chmod`, never through a symlink).
    Utime { path: PathBuf, mtime: i64 },
}

/// The first line of an intent record.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Intent {
    pub op_id: String,
    /// Temp files in the tree, created after this line is durable.
    pub temps: Vec<PathBuf>,
    /// Temp files in `blobs/`.
    pub blob_tmps: Vec<PathBuf>,
    /// Blobs that may be hard links to tree files (undone on discard).
    pub links: Vec<PathBuf>,
    /// Before-images kept as hard links of the inodes the steps replace or
    /// remove (`blobs::link_before_image`), each at its blob name (records of
    /// older versions: a temp name) also listed in `links`: discarded with the op,
    /// published (`blobs::publish_link`) once its steps ran. While a tree file
    /// shares the inode it has two names, and a blob with two names is never
    /// trusted (`blobs::read_in`, `blobs::kept`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub linked: Vec<Linked>,
    pub steps: Vec<Step>,
    /// Directories to fsync after the steps.
    pub sync_dirs: Vec<PathBuf>,
    pub entry: Entry,
    /// The entry's JSON as the first line holds it (`write_first_line` sets it):
    /// the journal line is the same bytes, so it is serialized once
    /// (`journal::append_entry`). Empty in a record read back.
    #[serde(skip)]
    pub entry_json: std::cell::OnceCell<String>,
}

/// A before-image kept as a link: its temp name in `blobs/`, its blob name
/// (hash), and the size and mtime it had when read (a link whose inode changed
/// since is not named as is).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Linked {
    pub tmp: PathBuf,
    pub hash: String,
    pub size: u64,
    pub mtime_ns: i64,
}

/// The name of an op's `n`th temp file in the tree, in `dir`.
pub fn temp_name(dir: &Path, op_id: &str, n: usize) -> PathBuf {
    dir.join(format!(".aitools-{op_id}-{n}.tmp"))
}

/// The name of an op's `n`th blob temp file, in `blobs` (the blob store).
pub fn blob_temp_name(blobs: &Path, op_id: &str, n: usize) -> PathBuf {
    blobs.join(format!(".{op_id}-{n}.tmp"))
}

pub fn dir(state: &Path) -> PathBuf {
    state.join("commit")
}

pub fn record_path(state: &Path, op_id: &str) -> PathBuf {
    dir(state).join(format!("{op_id}.intent"))
}

/// Creates the record with its first line (`Wire`: paths relative to `root` and
/// the blob store) and makes it durable (file and directory), and with it `dirs`
/// (state directories made but not synced yet: `state_dir::ensure_deferred`): the
/// first line's sync commits them too (ext4). Returns the record and the
/// checksum line `write_commit_line` appends.
pub fn write_first_line(
    state: &Path,
    root: &Path,
    intent: &Intent,
    dirs: &[PathBuf],
) -> io::Result<(std::fs::File, String)> {
    let (mut line, entry) =
        wire::line(intent, root, &super::blobs::dir(state)).map_err(io::Error::other)?;
    let _ = intent.entry_json.set(entry);
    let sum = sha256_hex(line.as_bytes());
    line.push('\n');
    let path = record_path(state, &intent.op_id);
    let mut f = fsx::create_new(&path, 0o600)?;
    f.write_all(line.as_bytes())?;
    let mut all = vec![dir(state)];
    all.extend_from_slice(dirs);
    super::state_dir::sync_files_then_dirs(&[&f], &all)?;
    Ok((f, sum))
}

/// Appends the checksum line (the SHA-256 of the first line, as
/// `write_first_line` returned it) and fsyncs: the commit point.
pub fn write_commit_line(f: &mut std::fs::File, sum: &str) -> io::Result<()> {
    f.write_all(format!("{sum}\n").as_bytes())?;
    f.sync_data()
}

/// A record read back: its intent when the first line parses, whether the
/// checksum line makes it complete, and why it must not run, if it must not.
pub struct Record {
    pub path: PathBuf,
    pub op_id: String,
    pub intent: Option<Intent>,
    pub complete: bool,
    /// Set when the record is not the caller's, not 0600, not a regular file, or
    /// its lines are not what `write_first_line`/`write_commit_line` write: such a
    /// record is never run, discarded or deleted, only reported.
    pub distrust: Option<String>,
}

/// Reads a record without following a symlink and judges it (see `Record`). A
/// first line with no newline yet is a kill mid-write: `intent` is `None`, it is
/// trusted and names nothing, so it can be removed. Both shapes of first line are
/// read: `Wire` (relative paths, resolved against `root` and `state`'s blob
/// store) and the older `Intent` with absolute paths, which records written
/// before it may still be pending in.
pub fn read_record(path: &Path, root: &Path, state: &Path) -> io::Result<Record> {
    use std::io::Read;
    let op_id = path
        .file_name()
        .map(|n| n.to_string_lossy().trim_end_matches(".intent").to_string())
        .unwrap_or_default();
    let mut rec = Record {
        path: path.to_path_buf(),
        op_id,
        intent: None,
        complete: false,
        distrust: None,
    };
    let mut f = match fsx::open_read_nofollow(path) {
        Ok(f) => f,
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            rec.distrust = Some("is a symbolic link".to_string());
            return Ok(rec);
        }
        Err(e) => return Err(e),
    };
    let meta = f.metadata()?;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    let mode = meta.mode() & 0o7777;
    rec.distrust = if !meta.file_type().is_file() {
        Some("is not a regular file".to_string())
    } else if meta.uid() != me {
        Some(format!(
            "is owned by uid {}, not by you (uid {me})",
            meta.uid()
        ))
    } else {
        None
    };
    if rec.distrust.is_some() {
        return Ok(rec);
    }
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)?;
    let Some(nl) = bytes.iter().position(|b| *b == b'\n') else {
        // Killed before its first line was whole (perhaps before the chmod to
        // 0600 that follows the create): it names nothing, whatever its mode.
        return Ok(rec);
    };
    if mode != 0o600 {
        rec.distrust = Some(format!("has mode {mode:04o}, not 0600"));
        return Ok(rec);
    }
    let (first, rest) = (&bytes[..nl], &bytes[nl + 1..]);
    let want = format!("{}\n", sha256_hex(first));
    let parsed = match serde_json::from_slice::<Wire>(first) {
        Ok(w) => w.intent(root, &super::blobs::dir(state)),
        Err(_) => serde_json::from_slice::<Intent>(first).map_err(|_| ()),
    };
    let intent = match parsed {
        Ok(i) => i,
        Err(()) => {
            rec.distrust = Some("has a first line that is not an intent".to_string());
            return Ok(rec);
        }
    };
    if intent.op_id != rec.op_id {
        rec.distrust = Some(format!(
            "names op {} in a file of another name",
            intent.op_id
        ));
    } else if rest == want.as_bytes() {
        rec.complete = true;
    } else if !want.as_bytes().starts_with(rest) {
        // A kill mid-append leaves a prefix of the checksum line; anything else
        // was not written by aitools.
        rec.distrust = Some("has a checksum line that does not match its first line".to_string());
    }
    rec.intent = Some(intent);
    Ok(rec)
}

/// Every path the record would act on, with whether it is the entry itself
/// (`false`: a symlink there is followed, as chmod and utime do).
pub fn named_paths(intent: &Intent) -> Vec<(&Path, bool)> {
    let mut out: Vec<(&Path, bool)> = Vec::new();
    for t in &intent.temps {
        out.push((t, true));
    }
    out.extend(step_paths(&intent.steps));
    out
}

/// The tree paths `steps` change (each with `true` when the step acts on the
/// entry itself, not through a final symlink).
pub fn step_paths(steps: &[Step]) -> Vec<(&Path, bool)> {
    let mut out: Vec<(&Path, bool)> = Vec::new();
    for s in steps {
        match s {
            Step::Mkdir { path, .. } => out.push((path, true)),
            Step::Rename { tmp, to } => {
                out.push((tmp, true));
                out.push((to, true));
            }
            Step::Move { from, to, .. } => {
                out.push((from, true));
                out.push((to, true));
            }
            Step::Unlink { path, .. } | Step::Rmdir { path, .. } => out.push((path, true)),
            Step::Chmod { path, .. } | Step::Utime { path, .. } => out.push((path, false)),
        }
    }
    out
}

/// The checks that need no workspace: temp files are `.aitools-<op_id>-<n>.tmp`
/// names the record lists, blob files are in `blobs/`, and no path has `..`.
pub fn check_shape(intent: &Intent, blobs_dir: &Path) -> Result<(), String> {
    let plain = |p: &Path| {
        p.is_absolute()
            && !p.components().any(|c| {
                matches!(
                    c,
                    std::path::Component::ParentDir | std::path::Component::CurDir
                )
            })
    };
    let prefix = format!(".aitools-{}-", intent.op_id);
    for t in &intent.temps {
        let name = t
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        if !plain(t) || !name.starts_with(&prefix) || !name.ends_with(".tmp") {
            return Err(format!(
                "names {} as a temp file, which is not one of its own",
                t.display()
            ));
        }
    }
    for s in &intent.steps {
        if let Step::Rename { tmp, .. } = s
            && !intent.temps.contains(tmp)
        {
            return Err(format!(
                "renames {}, which is not one of its temp files",
                tmp.display()
            ));
        }
    }
    for b in intent
        .blob_tmps
        .iter()
        .chain(&intent.links)
        .chain(intent.linked.iter().map(|l| &l.tmp))
    {
        if !plain(b) || b.parent() != Some(blobs_dir) {
            return Err(format!(
                "names {} as a blob, outside the blob store",
                b.display()
            ));
        }
    }
    for (p, _) in named_paths(intent) {
        if !plain(p) {
            return Err(format!(
                "names {}, which is not a plain absolute path",
                p.display()
            ));
        }
    }
    for d in &intent.sync_dirs {
        if !plain(d) {
            return Err(format!(
                "names {}, which is not a plain absolute path",
                d.display()
            ));
        }
    }
    Ok(())
}

fn ignore_missing(r: io::Result<()>) -> io::Result<()> {
    match r {
        Err(e) if beneath::is_absent(&e) => Ok(()),
        other => other,
    }
}

/// Runs one step, acting beneath the workspace root `tree`; a step whose effect is
/// already there does nothing. `links` are the op's blobs that may share an inode
/// with a tree file (they do not count as other names of it).
pub fn apply(tree: &Tree, step: &Step, links: &[PathBuf]) -> io::Result<()> {
    let accounted = |dev: u64, ino: u64| -> u64 {
        links
            .iter()
            .filter(|l| fsx::identity(l) == Some((dev, ino)))
            .count() as u64
    };
    match step {
        Step::Mkdir { path, mode } => {
            tree.mkdir(path)?;
            if let Some(m) = mode {
                tree.set_mode(path, *m, &accounted)?;
            }
            Ok(())
        }
        Step::Rename { tmp, to } => {
            tree.rename_present(tmp, to)?;
            Ok(())
        }
        Step::Move { from, to, dev, ino } => {
            tree.rename_if(from, (*dev, *ino), to)?;
            Ok(())
        }
        Step::Unlink { path, dev, ino } => tree.remove_if(path, (*dev, *ino), false),
        Step::Rmdir { path, dev, ino } => tree.remove_if(path, (*dev, *ino), true),
        Step::Chmod { path, mode } => tree.set_mode(path, *mode, &accounted),
        Step::Utime { path, mtime } => tree.set_mtime(path, *mtime, &accounted),
    }
}

/// Applies every step beneath `root`, then fsyncs the directories they touched.
pub fn apply_all(root: &Path, intent: &Intent) -> io::Result<()> {
    apply_steps(root, intent).map_err(|f| f.error)
}

/// A step that failed (`apply_steps`): the path it acts on, the error, and
/// whether the tree was changed before it (an earlier step ran, or the step
/// itself did part of its work: a mkdir whose mode could not be set).
#[derive(Debug)]
pub struct StepFailed {
    pub at: PathBuf,
    pub error: io::Error,
    pub touched: bool,
}

impl std::fmt::Display for StepFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for StepFailed {}

/// `apply_all`, saying which step failed and whether the tree was touched.
pub fn apply_steps(root: &Path, intent: &Intent) -> Result<(), StepFailed> {
    let failed = |at: &Path, touched: bool| {
        let at = at.to_path_buf();
        move |error| StepFailed { at, error, touched }
    };
    let tree = Tree::open(root).map_err(failed(root, false))?;
    for (i, s) in intent.steps.iter().enumerate() {
        let (at, partial) = match s {
            Step::Mkdir { path, mode } => (path, mode.is_some()),
            Step::Rename { to, .. } => (to, false),
            Step::Move { from, .. } => (from, false),
            Step::Unlink { path, .. } | Step::Rmdir { path, .. } => (path, false),
            Step::Chmod { path, .. } | Step::Utime { path, .. } => (path, false),
        };
        apply(&tree, s, &intent.links).map_err(failed(at, i > 0 || partial))?;
    }
    tree.sync_dirs(&intent.sync_dirs)
        .map_err(failed(root, true))
}

/// Undoes the preparation of an op that never reached its commit point: removes
/// its temp files (beneath `root`) and blob temps, and blob links that still share
/// a tree file. A temp never created (the prepare failed first) is passed over: a
/// read-only file system refuses even the unlink of a missing name.
pub fn discard(root: &Path, intent: &Intent) -> io::Result<()> {
    if !intent.temps.is_empty() {
        let tree = Tree::open(root)?;
        for t in &intent.temps {
            if tree.lstat(t)?.is_some() {
                tree.remove_file(t)?;
            }
        }
    }
    for t in &intent.blob_tmps {
        if fsx::exists_nofollow(t) {
            ignore_missing(std::fs::remove_file(t))?;
        }
    }
    for l in &intent.links {
        if std::fs::symlink_metadata(l).is_ok_and(|m| m.nlink() > 1) {
            ignore_missing(std::fs::remove_file(l))?;
        }
    }
    // A before-image link of an op never applied is a name of a file the tree
    // still has (or a copy made in its place): removed whatever its link count.
    for l in &intent.linked {
        if fsx::exists_nofollow(&l.tmp) {
            ignore_missing(std::fs::remove_file(&l.tmp))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn record(dir: &Path, name: &str, bytes: &[u8], mode: u32) -> Record {
        let p = dir.join(format!("{name}.intent"));
        let _ = std::fs::remove_file(&p);
        std::fs::write(&p, bytes).expect("write");
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).expect("chmod");
        read_record(&p, Path::new("/w"), dir).expect("read")
    }

    #[test]
    fn records_are_judged_by_owner_mode_and_checksum() {
        let t = tempfile::tempdir().expect("tempdir");
        let first = r#"{"op_id":"op-x","temps":[],"blob_tmps":[],"links":[],"steps":[],"sync_dirs":[],"entry":{"seq":0,"op_id":"op-x","time":"t","command":"c","argv":[],"changes":[]}}"#;
        let sum = sha256_hex(first.as_bytes());
        let whole = format!("{first}\n{sum}\n");
        let r = record(t.path(), "op-x", whole.as_bytes(), 0o600);
        assert!(r.complete && r.distrust.is_none());
        // Killed mid-append of the checksum line: incomplete, trusted.
        let r = record(
            t.path(),
            "op-x",
            &whole.as_bytes()[..first.len() + 10],
            0o600,
        );
        assert!(!r.complete && r.distrust.is_none() && r.intent.is_some());
        // Killed before the first line was whole, even before its chmod: harmless.
        let r = record(t.path(), "op-x", &first.as_bytes()[..20], 0o400);
        assert!(r.intent.is_none() && r.distrust.is_none());
        let r = record(t.path(), "op-x", whole.as_bytes(), 0o644);
        assert!(r.distrust.is_some_and(|d| d.contains("0644")));
        let bad = format!("{first}\n{}\n", "0".repeat(64));
        let r = record(t.path(), "op-x", bad.as_bytes(), 0o600);
        assert!(!r.complete && r.distrust.is_some());
        let r = record(t.path(), "op-y", whole.as_bytes(), 0o600);
        assert!(r.distrust.is_some());
        let r = record(t.path(), "op-x", b"not json\n", 0o600);
        assert!(r.distrust.is_some());
    }
}
