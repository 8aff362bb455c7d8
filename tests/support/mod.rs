//! The test environment every black-box test uses: a temporary git repository, an
//! isolated state directory, a fixed clock and seed, and a runner that checks the
//! one-envelope rule on every call, and the declared contract (each member among
//! the command's `output_fields`, each error code among its `error_codes`).

#![allow(dead_code)]

pub mod fixtures;

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_aitools"))
}

pub struct TestEnv {
    pub dir: tempfile::TempDir,
    pub state: tempfile::TempDir,
}

/// One call's result: the exit code and the one JSON object it printed.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub json: Value,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn field(&self, key: &str) -> &Value {
        &self.json[key]
    }
    pub fn error_code(&self) -> &str {
        self.json["error"]["code"].as_str().unwrap_or("")
    }
    /// The op id of a write that must have succeeded.
    pub fn op_id(&self) -> String {
        assert_eq!(self.code, 0, "{} {}", self.stdout, self.stderr);
        self.json["op_id"].as_str().expect("op_id").to_string()
    }
    pub fn lines(&self) -> Vec<String> {
        self.json["lines"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|v| v.as_str().unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default()
    }
}

impl TestEnv {
    /// `git <args>` in the workspace with a fixed author and clock; its stdout.
    pub fn git(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(["-c", "user.name=Tester", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(self.root())
            .env("GIT_AUTHOR_DATE", "1796000000 +0000")
            .env("GIT_COMMITTER_DATE", "1796000000 +0000")
            .output()
            .expect("git");
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The workspace's state directory (the first under the state home's
    /// `aitools/`; made by the first write).
    pub fn ws_state(&self) -> std::path::PathBuf {
        std::fs::read_dir(self.state.path().join("aitools"))
            .expect("the state home holds aitools/")
            .next()
            .expect("a workspace state directory")
            .expect("a readable entry")
            .path()
    }

    /// A new tx (`tx begin`), its id.
    pub fn tx_begin(&self) -> String {
        let r = self.run(&["tx", "begin"]);
        assert_eq!(r.code, 0, "tx begin: {} {}", r.stdout, r.stderr);
        r.json["tx"].as_str().expect("a tx id").to_string()
    }

    /// The directory of tx `id` in the workspace's state directory.
    pub fn tx_dir(&self, id: &str) -> std::path::PathBuf {
        let d = self.ws_state().join("tx").join(id);
        assert!(d.is_dir(), "no directory for {id}");
        d
    }

    /// A fresh git repository.
    pub fn new() -> TestEnv {
        let dir = tempfile::tempdir().expect("tempdir");
        let state = tempfile::tempdir().expect("tempdir");
        let ok = Command::new("git")
            .args(["init", "-q"])
            .current_dir(dir.path())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        assert!(ok, "git init failed");
        TestEnv { dir, state }
    }

    /// Gives each file a second hard link outside the workspace (in the test's
    /// state root), so a write keeps its before-image as a copy or in a pack: a
    /// file with two names is never linked into the blob store.
    pub fn pin_second_names(&self, files: &[&str]) {
        let dir = self.state.path().join("pins");
        std::fs::create_dir_all(&dir).expect("pins dir");
        for f in files {
            let pin = dir.join(f.replace('/', "_"));
            let _ = std::fs::remove_file(&pin);
            std::fs::hard_link(self.path(f), &pin).expect("second hard link");
        }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&p, content).expect("write");
        p
    }

    pub fn read(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.path(rel)).expect("read")
    }

    /// The command with the isolated environment, run from the repository root.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(bin());
        c.args(args);
        self.isolate(c)
    }

    /// Runs a command line aitools handed back (`next_commands`, a repair's
    /// `command`: `aitools ...`, quoted for a POSIX shell) through sh, as an agent
    /// would, in the same isolated environment.
    pub fn run_line(&self, line: &str) -> Run {
        let rest = line
            .strip_prefix("aitools ")
            .expect("an aitools command line");
        let mut c = Command::new("sh");
        c.args(["-c", &format!("exec \"$AITOOLS\" {rest}")])
            .env("AITOOLS", bin());
        parse(self.isolate(c).output().expect("spawn sh"))
    }

    /// Gives the workspace and the state directory to `nobody` (65534), so the
    /// calls of [`TestEnv::run_as_nobody`] meet modes as a user does. `false`
    /// (and nothing changed) when this process is not root or has no setpriv.
    pub fn hand_to_nobody(&self) -> bool {
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let ok = |c: &mut Command| {
            c.stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        if !root || !ok(Command::new("setpriv").arg("--version")) {
            return false;
        }
        [self.root(), self.state.path()]
            .iter()
            .all(|p| ok(Command::new("chown").args(["-R", "65534:65534"]).arg(p)))
    }

    /// `args` run as `nobody` (root drops to it with setpriv: root reads any
    /// mode), in this test's isolated environment; see [`TestEnv::hand_to_nobody`].
    pub fn run_as_nobody(&self, args: &[&str]) -> Run {
        let isolated = self.command(args);
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(isolated.get_program())
            .args(args)
            .current_dir(self.root())
            .stdin(std::process::Stdio::null());
        for (k, v) in isolated.get_envs() {
            match v {
                Some(v) => c.env(k, v),
                None => c.env_remove(k),
            };
        }
        parse(c.output().expect("spawn setpriv"))
    }

    /// `c` run as every command here is: in the workspace, with this test's
    /// state directory, fixed clock and seed.
    pub fn isolate(&self, mut c: Command) -> Command {
        c.current_dir(self.dir.path())
            .env("XDG_STATE_HOME", self.state.path())
            .env("AITOOLS_FIXED_TIME", "1796000000")
            .env("AITOOLS_SEED", "42")
            .env("AITOOLS_SYNCFS_DIRTY_MAX", "18446744073709551615")
            .env_remove("AITOOLS_INLINE_CONTEXT")
            // Feedback goes to the temp state dir: a test must never file into the
            // checkout's committed feedback/ (which is the default when unset).
            .env("AITOOLS_FEEDBACK_DIR", self.state.path().join("feedback"))
            .stdin(Stdio::null());
        c
    }

    pub fn run(&self, args: &[&str]) -> Run {
        let out = self.command(args).output().expect("spawn aitools");
        parse(out)
    }

    pub fn run_in(&self, cwd: &Path, args: &[&str]) -> Run {
        let out = self
            .command(args)
            .current_dir(cwd)
            .output()
            .expect("spawn aitools");
        parse(out)
    }

    pub fn run_stdin(&self, args: &[&str], input: &[u8]) -> Run {
        use std::io::Write;
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(input);
        }
        parse(child.wait_with_output().expect("wait"))
    }
}

/// Members any envelope may carry whatever the command (the recovery report, the
/// mask's count, `AITOOLS_INLINE_CONTEXT`'s rules, skills and feedback).
const ENVELOPE_MEMBERS: &[&str] = &[
    "schema_version",
    "status",
    "command",
    "error",
    "redactions",
    "recovered",
    "pending_recovery",
    "took",
    "rules",
    "skills",
    "feedback",
];

/// Codes any command may answer with (`schema`'s description names them).
const ANY_COMMAND_CODES: &[&str] = &[
    "argument.invalid",
    "environment.io",
    "environment.busy",
    "internal.unexpected",
    "environment.output-lost",
];

/// Each command's declared top-level output members and error codes, read once
/// per test process from `schema --all --full`.
pub struct Declared {
    pub fields: BTreeMap<String, BTreeSet<String>>,
    pub codes: BTreeMap<String, BTreeSet<String>>,
}

pub fn declared() -> &'static Declared {
    static DECLARED: OnceLock<Declared> = OnceLock::new();
    DECLARED.get_or_init(|| {
        let out = Command::new(bin())
            .args(["schema", "--all", "--full"])
            .env_remove("AITOOLS_INLINE_CONTEXT")
            .output()
            .expect("spawn aitools schema");
        let all: Value = serde_json::from_slice(&out.stdout).expect("schema JSON");
        let mut fields = BTreeMap::new();
        let mut codes = BTreeMap::new();
        for c in all["commands"].as_array().expect("commands") {
            let name = c["name"].as_str().unwrap_or("").to_string();
            // `changes[].count` names a member of `changes`: the top level is `changes`.
            let f: BTreeSet<String> = c["output_fields"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|f| f["name"].as_str())
                .map(|n| n.split(['.', '[']).next().unwrap_or(n).to_string())
                .collect();
            let e: BTreeSet<String> = c["error_codes"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|e| e.as_str().map(str::to_string))
                .collect();
            fields.insert(name.clone(), f);
            codes.insert(name, e);
        }
        Declared { fields, codes }
    })
}

/// Checks an envelope against its command's declaration (a registered command's:
/// `help`, `version`, `brief` and `aitools` answer for no command).
pub fn check_contract(json: &Value) {
    check_output_schema(json);
    let d = declared();
    let name = json["command"].as_str().unwrap_or("");
    let Some(fields) = d.fields.get(name) else {
        return;
    };
    for k in json.as_object().into_iter().flatten().map(|(k, _)| k) {
        assert!(
            ENVELOPE_MEMBERS.contains(&k.as_str()) || fields.contains(k),
            "{name} answered member {k:?}, not among its output_fields {fields:?}: {json}"
        );
    }
    if let Some(code) = json["error"]["code"].as_str() {
        // batch answers with its first failing element's code (its description
        // says so): any command's code.
        let relayed = name == "batch" && d.codes.values().any(|c| c.contains(code));
        assert!(
            relayed || ANY_COMMAND_CODES.contains(&code) || d.codes[name].contains(code),
            "{name} answered error code {code}, not among its error_codes: {json}"
        );
    }
}

/// Checks the one-envelope rule and the declared contract, and parses the object.
pub fn parse(out: Output) -> Run {
    let code = out.status.code().unwrap_or(-1);
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let (text, other) = if code == 0 || code == 3 {
        (&stdout, &stderr)
    } else {
        (&stderr, &stdout)
    };
    assert!(
        other.is_empty(),
        "exit {code}: the other stream must be empty, got: {other}"
    );
    assert!(
        text.ends_with('\n') && text.matches('\n').count() == 1,
        "exit {code}: exactly one line expected, got: {text:?}"
    );
    let json: Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"));
    assert_eq!(json["schema_version"], 9, "{text}");
    let status = json["status"].as_str().unwrap_or("");
    match code {
        0 => assert_eq!(status, "ok", "{text}"),
        3 => assert_eq!(status, "partial", "{text}"),
        _ => {
            assert_eq!(status, "error", "{text}");
            assert_eq!(json["error"]["exit_code"], code, "{text}");
            let repairs = json["error"]["repairs"].as_array().expect("repairs");
            assert!(!repairs.is_empty(), "{text}");
            for r in repairs {
                assert!(
                    r["command"].as_str().unwrap_or("").starts_with("aitools"),
                    "{text}"
                );
            }
        }
    }
    check_contract(&json);
    check_prose(&json);
    Run {
        code,
        json,
        stdout,
        stderr,
    }
}

/// Where `text` doubles its punctuation (`"...workspace., so it..."`, `"done.."`):
/// what a message built from a part that already ends a sentence looks like.
/// An ellipsis (`...`) and a path's `..` are not doubled punctuation.
pub fn doubled_punctuation(text: &str) -> Option<usize> {
    const PAIRS: &[&str] = &[".,", ".;", ".:", ",.", ";.", ":.", ",,", ";;", ". ."];
    if let Some(i) = PAIRS.iter().filter_map(|p| text.find(p)).min() {
        return Some(i);
    }
    let b = text.as_bytes();
    (0..b.len().saturating_sub(1)).find(|&i| {
        let after = b.get(i + 2).copied();
        b[i] == b'.'
            && b[i + 1] == b'.'
            && i > 0
            && b[i - 1] != b'.'
            && b[i - 1] != b'/'
            && matches!(after, None | Some(b' ' | b'"' | b')'))
    })
}

/// Every sentence an envelope tells an agent (an error's message and its
/// repairs' details, a pending record's error) reads without doubled
/// punctuation.
fn check_prose(json: &Value) {
    let mut prose: Vec<&str> = Vec::new();
    let err = &json["error"];
    prose.extend(err["message"].as_str());
    for r in err["repairs"].as_array().into_iter().flatten() {
        prose.extend(r["detail"].as_str());
    }
    for p in json["pending_recovery"].as_array().into_iter().flatten() {
        prose.extend(p["error"].as_str());
        for r in p["repairs"].as_array().into_iter().flatten() {
            prose.extend(r["detail"].as_str());
        }
    }
    for text in prose {
        if let Some(i) = doubled_punctuation(text) {
            panic!("doubled punctuation at byte {i} of {text:?}: {json}");
        }
    }
}

/// SHA-256 of a file, from `sha256sum` (the oracle).
pub fn sha256sum(path: &Path) -> String {
    let out = Command::new("sha256sum")
        .arg(path)
        .output()
        .expect("sha256sum");
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_string()
}

/// The `path` of every item of a listing answer (`find`, ...), sorted.
pub fn sorted_item_paths(json: &Value) -> Vec<String> {
    let mut v: Vec<String> = find_items(json)
        .iter()
        .map(|i| i["path"].as_str().unwrap_or("").to_string())
        .collect();
    v.sort();
    v
}

/// find's flat items as objects: a row's values named by the answer's
/// `fields`, a bare item its path; without kind, a path ending in `/` is a
/// directory's (the `/` taken off) and any other a file's.
pub fn find_items(json: &Value) -> Vec<Value> {
    let rows = match json.get("fields") {
        Some(_) => log_items(json),
        None => json["items"]
            .as_array()
            .map(|a| a.iter().map(|p| serde_json::json!({ "path": p })).collect())
            .unwrap_or_default(),
    };
    rows.into_iter()
        .map(|mut o| {
            if o.get("kind").is_none() {
                let path = o["path"].as_str().unwrap_or("").to_string();
                let dir = path.len() > 1 && path.ends_with('/');
                let kind = if dir { "dir" } else { "file" };
                o["path"] = Value::from(path.strip_suffix('/').filter(|_| dir).unwrap_or(&path));
                o["kind"] = Value::from(kind);
            }
            o
        })
        .collect()
}

/// git log's items as objects: each item's values named by the answer's `fields`.
pub fn log_items(json: &Value) -> Vec<Value> {
    let names: Vec<&str> = json["fields"]
        .as_array()
        .map(|f| f.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    json["items"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|row| {
                    let vals = row.as_array().cloned().unwrap_or_default();
                    let map = names.iter().map(|n| n.to_string()).zip(vals).collect();
                    Value::Object(map)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Exchanges two paths atomically (`renameat2` with `RENAME_EXCHANGE`): at every
/// instant each name is one of the two entries. Whether it did.
pub fn exchange(a: &Path, b: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let (Ok(a), Ok(b)) = (
        std::ffi::CString::new(a.as_os_str().as_bytes()),
        std::ffi::CString::new(b.as_os_str().as_bytes()),
    ) else {
        return false;
    };
    // SAFETY: two valid NUL-terminated C strings.
    unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        ) == 0
    }
}

/// A thread changing the tree under the calls a test runs (a path swapped back
/// and forth): `swap_in_thread` starts it, `finish` stops it and says how many of
/// its steps took effect. Dropped unfinished (a failed assertion), it stops too.
pub struct Swapper {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    swaps: std::sync::Arc<std::sync::atomic::AtomicU64>,
    handle: Option<std::thread::JoinHandle<()>>,
}

/// Runs `step` over and over on its own thread until the returned `Swapper` is
/// finished; `step` says whether it changed something (a swap that happened).
pub fn swap_in_thread(mut step: impl FnMut() -> bool + Send + 'static) -> Swapper {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let swaps = std::sync::Arc::new(AtomicU64::new(0));
    let (s, n) = (stop.clone(), swaps.clone());
    let handle = std::thread::spawn(move || {
        while !s.load(Ordering::Relaxed) {
            if step() {
                n.fetch_add(1, Ordering::Relaxed);
            }
        }
    });
    Swapper {
        stop,
        swaps,
        handle: Some(handle),
    }
}

impl Swapper {
    /// Stops the thread after its current step and returns the swaps it made
    /// (a panic of the thread fails the test here).
    pub fn finish(mut self) -> u64 {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            h.join().expect("the swapping thread panicked");
        }
        self.swaps.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl Drop for Swapper {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// A search answer with what its envelope leaves out put back: each match's
/// `path` (left out when the previous item's), and the blocks as the AOI stream
/// carries them, one per run of consecutive lines: `{path, cell?, id?, in?,
/// start_line, lines, match_lines, cut_lines?}` from the envelope's numbered
/// `N:text` (selected) and `N-text` (context) lines.
pub fn expand_search(json: &Value) -> Value {
    let mut out = json.clone();
    if let Some(items) = out.get_mut("matches").and_then(Value::as_array_mut) {
        let mut last = Value::Null;
        for o in items.iter_mut().filter_map(Value::as_object_mut) {
            match o.get("path") {
                Some(p) => last = p.clone(),
                None => {
                    o.insert("path".into(), last.clone());
                }
            }
        }
    }
    if let Some(items) = out.get_mut("blocks").and_then(Value::as_array_mut) {
        let mut blocks = Vec::new();
        let mut last = Value::Null;
        for o in items.iter().filter_map(Value::as_object) {
            if let Some(p) = o.get("path") {
                last = p.clone();
            }
            for run in numbered_runs(o.get("lines")) {
                let mut b = serde_json::Map::new();
                b.insert("path".into(), last.clone());
                for k in ["cell", "id", "in"] {
                    if let Some(v) = o.get(k) {
                        b.insert(k.into(), v.clone());
                    }
                }
                let start = run[0].0;
                let end = start + run.len() as u64;
                b.insert("start_line".into(), start.into());
                let texts: Vec<Value> = run.iter().map(|(_, _, t)| t.clone().into()).collect();
                b.insert("lines".into(), texts.into());
                let sel: Vec<Value> = run.iter().filter(|r| r.1).map(|r| r.0.into()).collect();
                b.insert("match_lines".into(), sel.into());
                let cuts: Vec<Value> = o
                    .get("cut_lines")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter(|c| c["line"].as_u64().is_some_and(|l| l >= start && l < end))
                    .cloned()
                    .collect();
                if !cuts.is_empty() {
                    b.insert("cut_lines".into(), cuts.into());
                }
                blocks.push(Value::Object(b));
            }
        }
        *items = blocks;
    }
    out
}

/// A block item's `N:text` / `N-text` lines split into runs of consecutive
/// numbers: (number, selected, text).
fn numbered_runs(lines: Option<&Value>) -> Vec<Vec<(u64, bool, String)>> {
    let mut runs: Vec<Vec<(u64, bool, String)>> = Vec::new();
    for l in lines.and_then(Value::as_array).into_iter().flatten() {
        let s = l.as_str().unwrap_or_default();
        let digits = s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let n: u64 = s[..digits].parse().expect("a numbered line");
        let sel = s[digits..].starts_with(':');
        assert!(
            sel || s[digits..].starts_with('-'),
            "line {s:?} has no : or -"
        );
        let text = s[digits + 1..].to_string();
        match runs.last_mut() {
            Some(r) if r.last().is_some_and(|p| p.0 + 1 == n) => r.push((n, sel, text)),
            _ => runs.push(vec![(n, sel, text)]),
        }
    }
    runs
}

/// A search's `total_matches`, or, when it is left out because every match is
/// shown, the number shown (blocks' match lines, matches, or the counts' sum).
pub fn total_matches(json: &Value) -> Value {
    if let Some(t) = json.get("total_matches") {
        return t.clone();
    }
    let json = &expand_search(json);
    let n: u64 = if let Some(bs) = json["blocks"].as_array() {
        bs.iter()
            .map(|b| b["match_lines"].as_array().map_or(0, |m| m.len() as u64))
            .sum()
    } else if let Some(ms) = json["matches"].as_array() {
        ms.len() as u64
    } else if let Some(cs) = json["counts"].as_array() {
        cs.iter().filter_map(|c| c["count"].as_u64()).sum()
    } else {
        0
    };
    Value::from(n)
}

/// Whether a live (not zombie) process has `marker` in its command line.
pub fn alive_with(marker: &str) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
        let p = e.path();
        let cmd = std::fs::read(p.join("cmdline")).unwrap_or_default();
        let stat = std::fs::read_to_string(p.join("stat")).unwrap_or_default();
        let zombie = stat
            .rfind(')')
            .is_some_and(|i| stat[i + 1..].trim_start().starts_with('Z'));
        !zombie
            && String::from_utf8_lossy(&cmd)
                .replace('\0', " ")
                .contains(marker)
    })
}

/// Each command's MCP `outputSchema` (`aitools mcp --tools all`), compiled once
/// per test process: every answer a test sees is validated against it.
fn output_validators() -> &'static BTreeMap<String, jsonschema::Validator> {
    static VALIDATORS: OnceLock<BTreeMap<String, jsonschema::Validator>> = OnceLock::new();
    VALIDATORS.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        let lines = [
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "tests", "version": "1"}}}),
            serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}),
        ];
        let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let mut child = Command::new(bin())
            .args(["mcp", "--tools", "all"])
            .current_dir(dir.path())
            .env_remove("AITOOLS_INLINE_CONTEXT")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn aitools mcp");
        if let Some(mut stdin) = child.stdin.take() {
            std::io::Write::write_all(&mut stdin, input.as_bytes()).expect("mcp stdin");
        }
        let out = child.wait_with_output().expect("aitools mcp");
        let mut validators = BTreeMap::new();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let reply: Value = serde_json::from_str(line).expect("an MCP reply is JSON");
            if reply["id"] != 2 {
                continue;
            }
            for t in reply["result"]["tools"].as_array().expect("tools") {
                let (Some(title), Some(schema)) =
                    (t["annotations"]["title"].as_str(), t.get("outputSchema"))
                else {
                    continue;
                };
                let name = title.trim_start_matches("aitools ").to_string();
                let v = jsonschema::draft202012::new(schema)
                    .unwrap_or_else(|e| panic!("{name}'s outputSchema does not compile: {e}"));
                validators.insert(name, v);
            }
        }
        assert!(!validators.is_empty(), "tools/list named no tool");
        validators
    })
}

/// Checks an envelope against its command's MCP `outputSchema`: every member
/// declared, each of its declared type (`data/field-types.tsv`).
pub fn check_output_schema(json: &Value) {
    let name = json["command"].as_str().unwrap_or("");
    let Some(v) = output_validators().get(name) else {
        return;
    };
    let errors: Vec<String> = v
        .iter_errors(json)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{name}'s answer does not match its outputSchema (a field's type in data/field-types.tsv?): {errors:?}\n{json}"
    );
}

/// A socket that reads and writes again when a call is interrupted: a read with
/// a timeout is not restarted after the test process is stopped and continued
/// (signal(7)), which a loaded or frozen CI machine does, and a WebSocket
/// library takes EINTR for the end of the connection.
#[derive(Debug)]
pub struct Patient(pub std::net::TcpStream);

impl std::io::Read for Patient {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            match self.0.read(buf) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                other => return other,
            }
        }
    }
}

impl std::io::Write for Patient {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        loop {
            match self.0.write(buf) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                other => return other,
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// The call a `more` continues: the caller's own words with `more`'s flag
/// (`--skip 5`, `--offset 15`, `--from 20`) in place of theirs, before any `--`.
pub fn with_more(args: &[&str], more: &str) -> Vec<String> {
    let delta: Vec<&str> = more.split(' ').collect();
    let end = args.iter().position(|a| *a == "--").unwrap_or(args.len());
    let mut out: Vec<String> = Vec::new();
    let mut it = args[..end].iter();
    while let Some(a) = it.next() {
        if *a == delta[0] {
            it.next();
        } else {
            out.push(a.to_string());
        }
    }
    out.extend(delta.iter().map(|s| s.to_string()));
    out.extend(args[end..].iter().map(|s| s.to_string()));
    out
}

/// Runs the page a `more` names after the call `args`.
pub fn run_more(env: &TestEnv, args: &[&str], r: &Run) -> Run {
    let more = r.json["more"].as_str().expect("more");
    let next = with_more(args, more);
    env.run(&next.iter().map(String::as_str).collect::<Vec<_>>())
}
