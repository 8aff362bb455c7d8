//! Every declared error code can be returned: a table with, for each (command,
//! declared code) pair of `aitools schema --all --full`, one call that answers
//! it. The test runs every row (a fresh fixture repository each) and asserts the
//! code, and asserts the table covers every declared pair, so a code declared
//! without a call that triggers it fails here (`support::check_contract` already
//! checks the converse: every code returned is declared).
//!
//! Shared codes are proven once per code, on one representative command, when
//! every command that declares them reaches them through the same path:
//! - `ANY_COMMAND`: a bad argument (the parser), the disk, the workspace lock, a
//!   bug (the panic guard) — `ANY_COMMAND_CODES` in `protocol::registry`;
//! - `WRITE_PROTOCOL`: what `writes: true` implies (the path's containment and
//!   existence, the input's mask, `--expect-hash`): `WRITE_CODES` of the
//!   registry, answered by `store::write` for every write, shared by writes only;
//! - `environment.state-untrusted` (every `workspace: true` command: the state
//!   directory is checked before the handler runs) and
//!   `environment.recovery-pending` (every write: the store refuses before it
//!   plans) — `CommandSpec::implied_codes`.
//!
//! A pair no row proves yet is in `UNCOVERED` (shrink-only: the test fails when
//! a listed pair becomes covered, or is no longer declared, and when a new
//! declared pair is neither covered nor listed).

use crate::support::{TestEnv, declared};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::process::Child;

const ANY_COMMAND: &[&str] = &[
    "argument.invalid",
    "environment.io",
    "environment.busy",
    "internal.unexpected",
];
/// Shared codes a row cannot answer (the row reads the answer from stdout):
/// `environment.output-lost` is stdout refusing the answer, proven for every
/// surface in adversary_output.rs, jsonl_output_lost.rs and mcp_output_lost.rs.
const PROVEN_ELSEWHERE: &[&str] = &["environment.output-lost"];
/// Pairs a row cannot answer because the call needs a mount namespace: `sys
/// procs|ports` without a /proc, proven in sys_procs.rs
/// (sys_procs_and_ports_without_proc_are_unavailable, under `unshare -m`).
const PAIRS_PROVEN_ELSEWHERE: &[(&str, &str)] = &[
    ("sys procs", "environment.unavailable"),
    ("sys ports", "environment.unavailable"),
];
const WRITE_PROTOCOL: &[&str] = &[
    "input.not-found",
    "refusal.outside-workspace",
    "refusal.redacted-input",
    "refusal.exists",
    "refusal.not-a-file",
    "refusal.target-changed",
];
const IMPLIED: &[&str] = &[
    "environment.state-untrusted",
    "environment.recovery-pending",
    "refusal.syntax-broken",
];

/// One call that answers `code` from `cmd`.
struct Row {
    cmd: &'static str,
    code: &'static str,
    argv: &'static [&'static str],
    stdin: &'static str,
    env: &'static [(&'static str, &'static str)],
    /// Prepares the fixture; a process it returns is killed after the call.
    setup: fn(&TestEnv) -> Option<Child>,
}

const fn r(cmd: &'static str, code: &'static str, argv: &'static [&'static str]) -> Row {
    Row {
        cmd,
        code,
        argv,
        stdin: "",
        env: &[],
        setup: |_| None,
    }
}

impl Row {
    const fn stdin(mut self, s: &'static str) -> Row {
        self.stdin = s;
        self
    }
    const fn env(mut self, e: &'static [(&'static str, &'static str)]) -> Row {
        self.env = e;
        self
    }
    const fn setup(mut self, f: fn(&TestEnv) -> Option<Child>) -> Row {
        self.setup = f;
        self
    }
}

/// The files every row starts from.
fn fixture(env: &TestEnv) {
    env.write("a.txt", "alpha\nbeta\nalpha\n");
    env.write("c.json", "{\"a\": 1, \"b\": [{\"n\": 1}]}\n");
    env.write("bad.json", "{\"a\": \n");
    env.write("bad.csv", "a,\"b\n");
    env.write("l1.txt", b"caf\xe9\n");
    env.write("l1.json", b"caf\xe9\n");
    env.write("bin.dat", b"a\0b\n");
    env.write("dir/x.txt", "x\n");
    env.write("src/lib.rs", "fn keep() {}\nfn keep() {}\n");
    env.write(
        "py/r.py",
        "def rnm():\n    pass\nclass C:\n    def rnm(self):\n        pass\ntaken = rnm()\n",
    );
    env.write("u.zzz", "x");
    env.write("bin.rs", b"a\0b\n");
    // Cell "1" is index 0's id and index 1: ambiguous.
    let cell = |id: &str| {
        format!(
            "{{\"cell_type\": \"markdown\", \"id\": \"{id}\", \"metadata\": {{}}, \"source\": []}}"
        )
    };
    env.write(
        "nb.ipynb",
        format!(
            "{{\"cells\": [{}, {}], \"metadata\": {{}}, \"nbformat\": 4, \"nbformat_minor\": 5}}\n",
            cell("1"),
            cell("a")
        ),
    );
    env.write("nb3.ipynb", "{\"nbformat\": 3, \"worksheets\": []}\n");
}

/// The state directory made group-writable: not trusted.
fn untrusted_state(env: &TestEnv) -> Option<Child> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::Permissions::from_mode(0o777);
    std::fs::set_permissions(env.state.path(), mode).expect("chmod");
    None
}

/// A sparse file over the whole-file size cap (64 MiB): `huge.json`.
fn huge_file(env: &TestEnv) -> Option<Child> {
    let f = std::fs::File::create(env.path("huge.json")).expect("create");
    f.set_len(65 << 20).expect("sparse");
    None
}

/// A sparse file over the 1 GiB an archive takes in.
fn sparse_gib(env: &TestEnv) -> Option<Child> {
    let f = std::fs::File::create(env.path("big.bin")).expect("create");
    f.set_len((1 << 30) + 1).expect("sparse");
    None
}

/// Archives: a.zip (t.txt), a corrupt zip, a zip whose member is 20 MiB of
/// zeros (a ratio bomb), a zip with a bzip2 member.
fn archives(env: &TestEnv) -> Option<Child> {
    let script = "import zipfile\n\
with zipfile.ZipFile('a.zip','w',zipfile.ZIP_DEFLATED) as z: z.writestr('t.txt','one\\n')\n\
with zipfile.ZipFile('bomb.zip','w',zipfile.ZIP_DEFLATED) as z: z.writestr('zeros',bytes(20<<20))\n\
with zipfile.ZipFile('bz.zip','w',zipfile.ZIP_BZIP2) as z: z.writestr('t.txt','one\\n')\n\
import tarfile, io\n\
t = tarfile.open('bomb.tar.gz','w:gz'); i = tarfile.TarInfo('zeros'); i.size = 20<<20; t.addfile(i, io.BytesIO(bytes(20<<20))); t.close()\n\
open('bad.zip','wb').write(open('a.zip','rb').read()[:-30])\n\
with zipfile.ZipFile('code.zip','w') as z: z.writestr('lib.rs','fn keep() {}\\nfn keep() {}\\n'); z.writestr('t.zzz','x\\n')\n";
    let ok = std::process::Command::new("python3")
        .args(["-c", script])
        .current_dir(env.root())
        .status()
        .expect("python3");
    assert!(ok.success());
    None
}

/// A Rust file naming `nu8` that is not UTF-8 (code rename refuses it).
fn latin1_symbol(env: &TestEnv) -> Option<Child> {
    env.write("latin.rs", b"fn nu8() {}\n// caf\xe9\n");
    None
}

/// A C++ class with a macro the grammar cannot read around its members.
fn cpp_macro_class(env: &TestEnv) -> Option<Child> {
    env.write(
        "odd.cc",
        "#define FIELD(x) int x;\nclass Table {\n public:\n  int Size() { return 1; }\n  FIELD(a)\n  FIELD(b)\n};\nint main() {\n  Table t;\n  return t.Size();\n}\n",
    );
    None
}

fn java_override(env: &TestEnv) -> Option<Child> {
    env.write(
        "j/Job.java",
        "class Job {\n    @Override\n    public String toString() {\n        return \"job\";\n    }\n}\n",
    );
    None
}

/// The workspace lock held by another process for a few seconds.
fn lock_held(env: &TestEnv) -> Option<Child> {
    assert_eq!(env.run(&["write", "held.txt", "--content", "x"]).code, 0);
    let lock = find_file(env.state.path(), "lock").expect("the workspace lock file");
    let holder = std::process::Command::new("flock")
        .args(["-x", &lock.to_string_lossy(), "sleep", "5"])
        .spawn()
        .expect("spawn flock");
    std::thread::sleep(std::time::Duration::from_millis(300));
    Some(holder)
}

/// A pending intent record that is not trusted (mode 0644): writes refuse.
fn pending_record(env: &TestEnv) -> Option<Child> {
    assert_eq!(env.run(&["write", "seed.txt", "--content", "x"]).code, 0);
    let journal = find_file(env.state.path(), "journal.jsonl").expect("the journal");
    let commit = journal
        .parent()
        .and_then(|d| d.parent())
        .map(|d| d.join("commit"));
    let commit = commit.filter(|d| d.is_dir()).expect("commit/");
    std::fs::write(
        commit.join("01AAAAAAAAAAAAAAAAAAAAAAAA.intent"),
        "garbage\n",
    )
    .expect("plant");
    None
}

/// A name longer than a file system allows (ENAMETOOLONG: environment.io).
const LONG: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

/// `u.zzz`'s and `src/lib.rs`'s hashes (position selectors need them).
const U_HASH: &str = "2d711642b726b044";
const LIB_HASH: &str = "7356847e7d1b7b80";

/// No program on PATH: `git` is not found.
const NO_PATH: &[(&str, &str)] = &[("PATH", "/nonexistent")];

/// The fixture committed (git show reads revisions).
fn committed(env: &TestEnv) -> Option<Child> {
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(env.root())
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(ok, "git {args:?}");
    };
    git(&["add", "-A"]);
    git(&["commit", "-qm", "fixture"]);
    None
}

/// `a.txt` with a second name.
fn hard_link(env: &TestEnv) -> Option<Child> {
    std::fs::hard_link(env.path("a.txt"), env.path("h.txt")).expect("ln");
    None
}

/// A `git` on PATH (`{root}/.fakebin`, see `FAKE_GIT_PATH`) that prints more
/// than aitools keeps of one call.
fn chatty_git(env: &TestEnv) -> Option<Child> {
    use std::os::unix::fs::PermissionsExt;
    env.write(".fakebin/git", "#!/bin/sh\nhead -c 70000000 /dev/zero\n");
    let mode = std::fs::Permissions::from_mode(0o755);
    std::fs::set_permissions(env.path(".fakebin/git"), mode).expect("chmod");
    None
}

/// A `git` on PATH (`{root}/.fakebin`, see `FAKE_GIT_PATH`) that never answers
/// (the rows lower the deadline with `GIT_TIMEOUT`).
fn slow_git(env: &TestEnv) -> Option<Child> {
    use std::os::unix::fs::PermissionsExt;
    env.write(".fakebin/git", "#!/bin/sh\nsleep 30\n");
    let mode = std::fs::Permissions::from_mode(0o755);
    std::fs::set_permissions(env.path(".fakebin/git"), mode).expect("chmod");
    None
}

/// The slow `git` first on PATH, and a 200 ms deadline for git calls.
const GIT_TIMEOUT: &[(&str, &str)] = &[
    ("PATH", "{root}/.fakebin:/usr/bin:/bin"),
    ("AITOOLS_GIT_TIMEOUT_MS", "200"),
];

/// A state home whose directories cannot be created (a name longer than a file
/// system allows, standing for a read-only or full disk): bg has nowhere to
/// keep its records.
const NO_STATE_DIR: &[(&str, &str)] = &[("XDG_STATE_HOME", NO_STATE_HOME)];
const NO_STATE_HOME: &str = "{root}/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

/// A bg process started (`bg-1`; it ends at once).
fn bg_started(env: &TestEnv) -> Option<Child> {
    assert_eq!(env.run(&["bg", "start", "--", "true"]).code, 0);
    None
}

/// `bg-1`'s record edited by hand into something that is not one.
fn bg_corrupt(env: &TestEnv) -> Option<Child> {
    bg_started(env);
    let meta = find_file(env.state.path(), "meta.json").expect("bg-1's meta.json");
    std::fs::write(meta, "{\"id\": \"bg-1\",").expect("corrupt");
    None
}

/// Feedback entry 001 edited by hand into something that is not one.
fn feedback_corrupt(env: &TestEnv) -> Option<Child> {
    let dir = env.state.path().join("feedback");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("001.json"), "{\"id\": \"001\", \"type\":").expect("corrupt");
    None
}

/// PATH with the fake `git` first (`{root}` is the fixture's root).
const FAKE_GIT_PATH: &[(&str, &str)] = &[("PATH", "{root}/.fakebin:/usr/bin:/bin")];

/// A Rust file over `read --symbol`'s 64 MiB cap (text throughout: a sparse
/// file would read as binary).
fn huge_rust(env: &TestEnv) -> Option<Child> {
    env.write("huge.rs", "fn x() {}\n".repeat(6_815_745));
    None
}

/// The ids `AITOOLS_SEED` gives a fresh workspace's first op and first tx.
const FIRST_OP: &str = "op-20261130T005320Z-928e0efb";
/// `FIRST_OP` as answers show it (`op-<8 hex>`); undo takes either form.
fn first_op_shown() -> String {
    format!("op-{}", &FIRST_OP[20..])
}
const FIRST_TX: &str = "tx-20261130T005320Z-b1262def";

/// Two edits whose ids end in the same 8 hex digits, as ops made before new ids
/// avoided live ones' digits could: the second op's id rewritten (same length,
/// so its id file's offsets hold) to end in `FIRST_OP`'s digits.
fn shared_short_op(env: &TestEnv) -> Option<Child> {
    for (old, new) in [("beta", "b0"), ("b0", "b1")] {
        let r = env.run(&["edit", "a.txt", "--old", old, "--new", new]);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    let mut dirs = vec![env.state.path().to_path_buf()];
    let journal = loop {
        let d = dirs.pop().expect("a journal directory");
        if d.ends_with("journal") {
            break d;
        }
        dirs.extend(
            std::fs::read_dir(&d)
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir()),
        );
    };
    let file = journal.join("journal.jsonl");
    let text = std::fs::read_to_string(&file).unwrap();
    let second: serde_json::Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    let second = second["op_id"].as_str().unwrap().to_string();
    let planted = format!("op-20250101T000000Z-{}", &FIRST_OP[20..]);
    std::fs::write(&file, text.replace(&second, &planted)).unwrap();
    std::fs::rename(
        journal.join("ids").join(&second),
        journal.join("ids").join(&planted),
    )
    .unwrap();
    // Such ops come from a store made before the tail index too.
    std::fs::remove_dir_all(journal.join("ids").join("by-tail")).unwrap();
    None
}

/// `a.txt` edited 21 times, then `gc --budget 0`: the first edit is beyond the
/// newest 20 ops of its path, so it is collected.
fn collected_op(env: &TestEnv) -> Option<Child> {
    for i in 0..21 {
        let (old, new) = if i == 0 {
            ("beta".to_string(), "b0".to_string())
        } else {
            (format!("b{}", i - 1), format!("b{i}"))
        };
        let r = env.run(&["edit", "a.txt", "--old", &old, "--new", &new]);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
    assert_eq!(
        env.run(&["history", "--limit", "21"]).json["items"][20]["op_id"],
        first_op_shown()
    );
    assert_eq!(env.run(&["gc", "--budget", "0"]).json["ops_collected"], 1);
    None
}

/// One edit of `a.txt`, then the blob of its before-state overwritten.
fn corrupt_blob(env: &TestEnv) -> Option<Child> {
    let r = env.run(&["edit", "a.txt", "--old", "beta", "--new", "x"]);
    assert_eq!(r.json["op_id"], first_op_shown(), "{}", r.stdout);
    let journal = find_file(env.state.path(), "journal.jsonl").expect("the journal");
    let ws = journal
        .parent()
        .and_then(|d| d.parent())
        .expect("the state");
    let blobs: Vec<_> = std::fs::read_dir(ws.join("blobs"))
        .expect("blobs/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    assert_eq!(blobs.len(), 1, "{blobs:?}");
    std::fs::write(&blobs[0], "tampered\n").expect("tamper");
    None
}

/// A tx whose edit of `a.txt` cannot be re-run: `beta` is gone from the file.
fn drifted_tx(env: &TestEnv) -> Option<Child> {
    assert_eq!(env.run(&["tx", "begin"]).json["tx"], FIRST_TX);
    let r = env.run(&[
        "edit", "a.txt", "--old", "beta", "--new", "x", "--tx", FIRST_TX,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    env.write("a.txt", "alpha\ngamma\n");
    None
}

/// `FIRST_TX` begun with `--review`, staging an edit of `a.txt`.
fn review_tx(env: &TestEnv) -> Option<Child> {
    assert_eq!(env.run(&["tx", "begin", "--review"]).json["tx"], FIRST_TX);
    let r = env.run(&[
        "edit", "a.txt", "--old", "beta", "--new", "x", "--tx", FIRST_TX,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    None
}

/// `review_tx`, denied.
fn denied_tx(env: &TestEnv) -> Option<Child> {
    review_tx(env);
    let r = env.run(&["tx", "deny", FIRST_TX, "--reason", "no"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    None
}

const ZERO_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

fn find_file(dir: &std::path::Path, name: &str) -> Option<std::path::PathBuf> {
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let p = e.path();
        if p.is_dir() {
            if let Some(f) = find_file(&p, name) {
                return Some(f);
            }
        } else if e.file_name() == name {
            return Some(p);
        }
    }
    None
}

#[rustfmt::skip]
const ROWS: &[Row] = &[
    // Shared: any command.
    r("read", "argument.invalid", &["read", "a.txt", "--nosuch"]),
    r("search", "internal.unexpected", &["search", "alpha"]).env(&[("AITOOLS_TEST_PANIC", "1")]),
    r("write", "environment.busy", &["write", "b.txt", "--content", "x", "--lock-timeout", "100ms"]).setup(lock_held),
    r("read", "environment.io", &["read", LONG]),
    // Shared: implied by the spec's kind.
    r("read", "environment.state-untrusted", &["read", "a.txt"]).setup(untrusted_state),
    r("write", "environment.recovery-pending", &["write", "b.txt", "--content", "x"]).setup(pending_record),
    r("edit", "refusal.syntax-broken", &["edit", "src/lib.rs", "--old", "fn keep() {}\nfn", "--new", "fn keep( {}\nfn", "--syntax-guard"]),
    // gc is no write, but refuses as writes do while a record is pending.
    r("gc", "environment.recovery-pending", &["gc"]).setup(pending_record),
    // Shared: the write protocol.
    r("write", "refusal.outside-workspace", &["write", "../out.txt", "--content", "x"]),
    r("write", "refusal.not-a-file", &["write", "dir", "--content", "x"]),
    r("edit", "refusal.target-changed", &["edit", "a.txt", "--old", "beta", "--new", "x", "--expect-hash", ZERO_HASH]),
    r("write", "refusal.exists", &["write", "a.txt", "--content", "x"]),
    r("write", "refusal.redacted-input", &["write", "k.txt", "--content", "[REDACTED_SECRET]"]),
    r("edit", "input.not-found", &["edit", "nope.txt", "--old", "a", "--new", "b"]),
    // read
    r("read", "input.not-found", &["read", "nope.txt"]),
    r("read", "refusal.not-a-file", &["read", "dir"]),
    r("read", "input.unsupported-language", &["read", "u.zzz", "--symbol", "x"]),
    r("read", "selection.no-match", &["read", "a.txt", "--match", "zzz"]),
    r("read", "selection.ambiguous", &["read", "src/lib.rs", "--symbol", "keep"]),
    r("info", "input.not-found", &["info", "nope"]),
    // check
    r("check", "input.syntax-error", &["check", "bad.json"]),
    r("check", "input.unsupported-format", &["check", "u.zzz"]),
    r("check", "input.not-found", &["check", "nope"]),
    r("check", "refusal.not-a-file", &["check", "dir"]),
    r("check", "input.not-utf8", &["check", "l1.json"]),
    r("diff", "input.not-found", &["diff", "a.txt", "nope"]),
    r("diff", "refusal.not-a-file", &["diff", "a.txt", "dir"]),
    // search and friends
    r("search", "input.syntax-error", &["search", "("]),
    r("read", "input.syntax-error", &["read", "a.txt", "--match", "("]),
    r("search", "input.not-found", &["search", "x", "nope"]),
    r("find", "input.not-found", &["find", "x", "nope"]),
    r("overview", "input.not-found", &["overview", "nope"]),
    r("code outline", "input.unsupported-language", &["code", "outline", "u.zzz"]),
    r("code outline", "input.not-found", &["code", "outline", "nope"]),
    r("code defs", "input.not-found", &["code", "defs", "x", "nope"]),
    r("code refs", "input.not-found", &["code", "refs", "x", "nope"]),
    r("code refs", "environment.unavailable", &["code", "refs", "nosuchname", "--lsp=require"]),
    r("code rename", "selection.ambiguous", &["code", "rename", "rnm", "other", "py"]),
    r("code rename", "selection.no-match", &["code", "rename", "nothere", "other", "py"]),
    r("code rename", "refusal.too-large", &["code", "rename", "rnm", "other", "py", "--max-files", "0"]),
    r("code rename", "refusal.name-taken", &["code", "rename", "rnm", "taken", "py", "--kind", "function"]),
    r("code rename", "refusal.external-symbol", &["code", "rename", "toString", "describe", "j"]).setup(java_override),
    r("code rename", "input.syntax-error", &["code", "rename", "Size", "Count", "--in", "odd.cc"]).setup(cpp_macro_class),
    r("code rename", "input.not-utf8", &["code", "rename", "nu8", "other", "latin.rs"]).setup(latin1_symbol),
    r("code rename", "environment.unavailable", &["code", "rename", "rnm", "other", "py", "--kind", "function", "--lsp=require"]).env(&[("PATH", "{root}")]),
    // edit
    r("edit", "selection.no-match", &["edit", "a.txt", "--old", "zzz", "--new", "x"]),
    r("edit", "selection.ambiguous", &["edit", "a.txt", "--old", "alpha", "--new", "x"]),
    r("edit", "selection.count-mismatch", &["edit", "a.txt", "--match", "alpha", "--new", "x", "--expect-count", "5"]),
    r("edit", "input.not-utf8", &["edit", "l1.txt", "--old", "caf", "--new", "x"]),
    r("insert", "input.not-utf8", &["insert", "l1.txt", "--at", "end", "--content", "x"]),
    r("replace", "input.syntax-error", &["replace", "(", "x", "a.txt", "--dry-run"]),
    r("replace", "selection.no-match", &["replace", "zzz", "x", "a.txt", "--expect-count", "1"]),
    r("replace", "selection.count-mismatch", &["replace", "alpha", "x", "a.txt", "--expect-count", "5"]),
    r("replace", "input.not-utf8", &["replace", "caf", "x", "l1.txt", "--dry-run"]),
    r("transform", "selection.no-match", &["transform", "a.txt", "--op", "sort", "--match", "zzz"]),
    r("transform", "input.not-utf8", &["transform", "l1.txt", "--op", "sort"]),
    r("apply", "input.not-utf8", &["apply", "--stdin"]).stdin("--- a/l1.txt\n+++ b/l1.txt\n@@ -1 +1 @@\n-caf\n+x\n"),
    r("apply", "selection.no-match", &["apply", "--stdin"]).stdin("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-zzz\n+x\n"),
    r("code outline", "input.unsupported-format", &["code", "outline", "bin.rs"]),
    r("write", "refusal.too-large", &["write", "b.txt", "--content", "xxxxx", "--max-input", "2"]),
    r("search", "refusal.too-large", &["search", "--stdin", "--max-input", "2"]).stdin("xxxxxxxxxx"),
    r("insert", "refusal.too-large", &["insert", "a.txt", "--at", "end", "--stdin", "--max-input", "2"]).stdin("xxxxxxxxxx"),
    r("json merge", "refusal.too-large", &["json", "merge", "c.json", "--stdin", "--max-input", "2"]).stdin("{\"a\": 2}"),
    r("copy", "refusal.too-large", &["copy", "a.txt", "z.txt", "--max-bytes", "2"]),
    r("move-lines", "selection.no-match", &["move-lines", "a.txt", "--match", "zzz", "--to-position", "end"]),
    r("move-lines", "input.not-utf8", &["move-lines", "l1.txt", "--match", "caf", "--to-position", "end"]),
    r("move-lines", "selection.count-mismatch", &["move-lines", "a.txt", "--match", "alpha", "--to-position", "end", "--expect-count", "5"]),
    r("transform", "selection.count-mismatch", &["transform", "a.txt", "--op", "sort", "--match", "alpha", "--expect-count", "5"]),
    r("insert", "selection.count-mismatch", &["insert", "a.txt", "--before", "--match", "alpha", "--content", "x", "--expect-count", "5"]),
    r("insert", "selection.no-match", &["insert", "a.txt", "--before", "--match", "zzz", "--content", "x"]),
    r("edit", "input.unsupported-format", &["edit", "l1.txt", "--encoding", "utf-16le", "--old", "x", "--new", "y"]),
    r("insert", "input.unsupported-format", &["insert", "l1.txt", "--encoding", "utf-16le", "--at", "end", "--content", "x"]),
    r("replace", "input.unsupported-format", &["replace", "x", "y", "l1.txt", "--encoding", "utf-16le", "--dry-run"]),
    r("transform", "input.unsupported-format", &["transform", "l1.txt", "--encoding", "utf-16le", "--op", "sort"]),
    r("transcode", "input.unsupported-format", &["transcode", "l1.txt", "--from", "utf-8"]),
    r("split", "refusal.too-large", &["split", "a.txt", "--bytes", "1", "--suffix-digits", "1"]),
    r("split", "input.syntax-error", &["split", "a.txt", "--at-match", "("]),
    r("edit", "input.unsupported-language", &["edit", "u.zzz", "--symbol", "x", "--new", "y", "--expect-hash", U_HASH]),
    r("insert", "input.unsupported-language", &["insert", "u.zzz", "--before", "--symbol", "x", "--content", "y", "--expect-hash", U_HASH]),
    r("replace", "input.unsupported-language", &["replace", "x", "y", "u.zzz", "--symbol", "x", "--expect-hash", U_HASH, "--dry-run"]),
    r("transform", "input.unsupported-language", &["transform", "u.zzz", "--op", "sort", "--symbol", "x", "--expect-hash", U_HASH]),
    r("move-lines", "input.unsupported-language", &["move-lines", "u.zzz", "--symbol", "x", "--to-position", "end", "--expect-hash", U_HASH]),
    r("edit", "selection.ambiguous", &["edit", "src/lib.rs", "--symbol", "keep", "--new", "y", "--expect-hash", LIB_HASH]),
    r("insert", "selection.ambiguous", &["insert", "src/lib.rs", "--before", "--symbol", "keep", "--content", "y", "--expect-hash", LIB_HASH]),
    r("replace", "selection.ambiguous", &["replace", "fn", "y", "src/lib.rs", "--symbol", "keep", "--expect-hash", LIB_HASH, "--dry-run"]),
    r("transform", "selection.ambiguous", &["transform", "src/lib.rs", "--op", "sort", "--symbol", "keep", "--expect-hash", LIB_HASH]),
    r("move-lines", "selection.ambiguous", &["move-lines", "src/lib.rs", "--symbol", "keep", "--to-position", "end", "--expect-hash", LIB_HASH]),
    r("edit", "input.syntax-error", &["edit", "a.txt", "--match", "(", "--new", "x"]),
    r("insert", "input.syntax-error", &["insert", "a.txt", "--before", "--match", "(", "--content", "x"]),
    r("transform", "input.syntax-error", &["transform", "a.txt", "--op", "sort", "--match", "("]),
    r("move-lines", "input.syntax-error", &["move-lines", "a.txt", "--match", "(", "--to-position", "end"]),
    r("edit", "refusal.too-large", &["edit", "a.txt", "--stdin", "--max-input", "2"]).stdin(r#"{"old":"beta","new":"x"}"#),
    r("replace", "refusal.too-large", &["replace", "a.txt", "--stdin", "--max-input", "2", "--dry-run"]).stdin(r#"{"pattern":"beta","replacement":"x"}"#),
    r("apply", "refusal.too-large", &["apply", "--stdin", "--max-input", "2"]).stdin("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-alpha\n+x\n"),
    r("batch", "refusal.too-large", &["batch", "--stdin", "--max-input", "2"]).stdin(r#"[["read","a.txt"]]"#),
    r("json patch", "refusal.too-large", &["json", "patch", "c.json", "--stdin", "--max-input", "1"]).stdin("[]"),
    r("check", "refusal.too-large", &["check", "huge.json"]).setup(huge_file),
    r("json get", "refusal.too-large", &["json", "get", "huge.json", "/a"]).setup(huge_file),
    r("json select", "refusal.too-large", &["json", "select", "huge.json", "/a"]).setup(huge_file),
    r("json delete", "refusal.too-large", &["json", "delete", "huge.json", "/a"]).setup(huge_file),
    r("json fmt", "refusal.too-large", &["json", "fmt", "huge.json"]).setup(huge_file),
    r("transform", "refusal.too-large", &["transform", "huge.json", "--op", "sort"]).setup(huge_file),
    r("transcode", "refusal.too-large", &["transcode", "huge.json"]).setup(huge_file),
    r("split", "refusal.too-large", &["split", "huge.json", "--lines", "9"]).setup(huge_file),
    r("move-lines", "refusal.too-large", &["move-lines", "huge.json", "--match", "a", "--to-position", "end"]).setup(huge_file),
    r("json set", "refusal.too-large", &["json", "set", "c.json", "/a", "--stdin", "--max-input", "2"]).stdin("12345"),
    r("git show", "selection.no-match", &["git", "show", "HEAD:a.txt", "--range", "50:60"]).setup(committed),
    r("git show", "input.syntax-error", &["git", "show", "HEAD:a.txt", "--match", "("]).setup(committed),
    r("git show", "selection.ambiguous", &["git", "show", "HEAD:src/lib.rs", "--symbol", "keep"]).setup(committed),
    r("git show", "input.unsupported-language", &["git", "show", "HEAD:u.zzz", "--symbol", "x"]).setup(committed),
    r("git blame", "selection.ambiguous", &["git", "blame", "src/lib.rs", "--symbol", "keep"]).setup(committed),
    r("git blame", "input.syntax-error", &["git", "blame", "a.txt", "--between", "(", "x"]).setup(committed),
    r("git blame", "input.unsupported-language", &["git", "blame", "u.zzz", "--symbol", "x"]).setup(committed),
    // json
    r("table read", "input.syntax-error", &["table", "read", "bad.csv"]),
    r("table read", "input.not-utf8", &["table", "read", "l1.txt", "--format", "csv"]),
    r("table read", "input.not-found", &["table", "read", "nope.csv"]),
    r("table read", "refusal.not-a-file", &["table", "read", "dir"]),
    r("table read", "refusal.too-large", &["table", "read", "huge.json", "--format", "csv"]).setup(huge_file),
    r("table read", "input.unsupported-format", &["table", "read", "c.json"]),
    r("table agg", "input.unsupported-format", &["table", "agg", "c.json"]),
    r("table set", "input.unsupported-format", &["table", "set", "c.json", "--row", "1", "--column", "1", "--value", "x"]),
    r("table agg", "input.syntax-error", &["table", "agg", "bad.csv"]),
    r("table agg", "input.not-utf8", &["table", "agg", "l1.txt", "--format", "csv"]),
    r("table agg", "input.not-found", &["table", "agg", "nope.csv"]),
    r("table agg", "refusal.not-a-file", &["table", "agg", "dir"]),
    r("table agg", "refusal.too-large", &["table", "agg", "huge.json", "--format", "csv"]).setup(huge_file),
    r("table set", "input.syntax-error", &["table", "set", "bad.csv", "--row", "1", "--column", "1", "--value", "x"]),
    r("table set", "input.not-utf8", &["table", "set", "l1.txt", "--format", "csv", "--row", "1", "--column", "1", "--value", "x"]),
    r("table set", "refusal.too-large", &["table", "set", "huge.json", "--format", "csv", "--row", "1", "--column", "1", "--value", "x"]).setup(huge_file),
    r("json get", "input.syntax-error", &["json", "get", "bad.json", "/a"]),
    r("json get", "input.not-utf8", &["json", "get", "l1.json", "/a"]),
    r("json get", "input.not-found", &["json", "get", "nope", "/a"]),
    r("json get", "refusal.not-a-file", &["json", "get", "dir", "/a"]),
    r("json select", "input.syntax-error", &["json", "select", "bad.json", "/a"]),
    r("json select", "input.not-utf8", &["json", "select", "l1.json", "/a"]),
    r("json select", "input.not-found", &["json", "select", "nope", "/a"]),
    r("json select", "refusal.not-a-file", &["json", "select", "dir", "/a"]),
    r("json diff", "input.syntax-error", &["json", "diff", "c.json", "bad.json"]),
    r("json diff", "input.not-utf8", &["json", "diff", "l1.json", "c.json"]),
    r("json diff", "input.not-found", &["json", "diff", "c.json", "nope"]),
    r("json diff", "refusal.not-a-file", &["json", "diff", "dir", "c.json"]),
    r("json diff", "refusal.too-large", &["json", "diff", "c.json", "huge.json"]).setup(huge_file),
    // snapshot, time
    r("snapshot create", "input.not-found", &["snapshot", "create", "nope"]),
    r("snapshot diff", "input.not-found", &["snapshot", "diff", "nope"]),
    // archive
    r("archive list", "input.not-found", &["archive", "list", "nope.zip"]),
    r("archive list", "refusal.not-a-file", &["archive", "list", "dir"]),
    r("archive list", "input.unsupported-format", &["archive", "list", "c.json"]),
    r("archive list", "input.syntax-error", &["archive", "list", "bad.zip"]).setup(archives),
    r("archive list", "refusal.too-large", &["archive", "list", "bomb.tar.gz"]).setup(archives),
    r("archive read", "input.not-found", &["archive", "read", "a.zip", "nope"]).setup(archives),
    r("archive read", "refusal.not-a-file", &["archive", "read", "dir", "x"]),
    r("archive read", "selection.ambiguous", &["archive", "read", "code.zip", "lib.rs", "--symbol", "keep"]).setup(archives),
    r("archive read", "input.unsupported-language", &["archive", "read", "code.zip", "t.zzz", "--symbol", "keep"]).setup(archives),
    r("archive read", "input.unsupported-format", &["archive", "read", "bz.zip", "t.txt"]).setup(archives),
    r("archive read", "input.syntax-error", &["archive", "read", "bad.zip", "t.txt"]).setup(archives),
    r("archive read", "selection.no-match", &["archive", "read", "a.zip", "t.txt", "--match", "zzz"]).setup(archives),
    r("archive read", "refusal.too-large", &["archive", "read", "bomb.zip", "zeros"]).setup(archives),
    r("archive create", "refusal.too-large", &["archive", "create", "o.tar", "big.bin"]).setup(sparse_gib),
    r("archive extract", "input.unsupported-format", &["archive", "extract", "bz.zip", "--to", "o"]).setup(archives),
    r("archive extract", "input.syntax-error", &["archive", "extract", "bad.zip", "--to", "o"]).setup(archives),
    r("archive extract", "refusal.too-large", &["archive", "extract", "bomb.zip", "--to", "o"]).setup(archives),
    r("time convert", "input.syntax-error", &["time", "convert", "2026-02-30"]),
    r("time diff", "input.syntax-error", &["time", "diff", "now", "yesterday"]),
    r("util calc", "input.syntax-error", &["util", "calc", "1 +"]),
    r("util encode", "input.not-found", &["util", "encode", "hex", "--content-file", "nope"]),
    r("util decode", "input.not-found", &["util", "decode", "hex", "--content-file", "nope"]),
    r("util decode", "input.syntax-error", &["util", "decode", "hex", "--content", "zz"]),
    r("util redact", "input.not-found", &["util", "redact", "--content-file", "nope"]),
    r("util tokens", "input.not-found", &["util", "tokens", "--content-file", "nope"]),
    r("util encode", "refusal.not-a-file", &["util", "encode", "hex", "--content-file", "."]),
    r("util redact", "refusal.not-a-file", &["util", "redact", "--content-file", "."]),
    r("util tokens", "refusal.not-a-file", &["util", "tokens", "--content-file", "."]),
    r("nb read", "input.not-utf8", &["nb", "read", "l1.json"]),
    r("nb read", "input.syntax-error", &["nb", "read", "bad.json"]),
    r("nb read", "input.unsupported-format", &["nb", "read", "nb3.ipynb"]),
    r("nb read", "refusal.too-large", &["nb", "read", "huge.json"]).setup(huge_file),
    r("nb read", "selection.ambiguous", &["nb", "read", "nb.ipynb", "--cell", "1"]),
    r("nb read", "selection.no-match", &["nb", "read", "nb.ipynb", "--cell", "9"]),
    r("nb edit", "input.not-utf8", &["nb", "edit", "l1.json", "a", "--source", "x"]),
    r("nb edit", "input.syntax-error", &["nb", "edit", "bad.json", "a", "--source", "x"]),
    r("nb edit", "input.unsupported-format", &["nb", "edit", "nb3.ipynb", "a", "--source", "x"]),
    r("nb edit", "refusal.too-large", &["nb", "edit", "huge.json", "a", "--source", "x"]).setup(huge_file),
    r("nb edit", "selection.ambiguous", &["nb", "edit", "nb.ipynb", "1", "--source", "x"]),
    r("nb edit", "selection.no-match", &["nb", "edit", "nb.ipynb", "9", "--source", "x"]),
    r("nb insert", "input.not-utf8", &["nb", "insert", "l1.json", "--source", "x"]),
    r("nb insert", "input.syntax-error", &["nb", "insert", "bad.json", "--source", "x"]),
    r("nb insert", "input.unsupported-format", &["nb", "insert", "nb3.ipynb", "--source", "x"]),
    r("nb insert", "refusal.too-large", &["nb", "insert", "huge.json", "--source", "x"]).setup(huge_file),
    r("nb insert", "selection.ambiguous", &["nb", "insert", "nb.ipynb", "--before", "1", "--source", "x"]),
    r("nb insert", "selection.no-match", &["nb", "insert", "nb.ipynb", "--before", "9", "--source", "x"]),
    r("nb delete", "input.not-utf8", &["nb", "delete", "l1.json", "a"]),
    r("nb delete", "input.syntax-error", &["nb", "delete", "bad.json", "a"]),
    r("nb delete", "input.unsupported-format", &["nb", "delete", "nb3.ipynb", "a"]),
    r("nb delete", "refusal.too-large", &["nb", "delete", "huge.json", "a"]).setup(huge_file),
    r("nb delete", "selection.ambiguous", &["nb", "delete", "nb.ipynb", "1"]),
    r("nb delete", "selection.no-match", &["nb", "delete", "nb.ipynb", "9"]),
    r("nb move", "input.not-utf8", &["nb", "move", "l1.json", "a"]),
    r("nb move", "input.syntax-error", &["nb", "move", "bad.json", "a"]),
    r("nb move", "input.unsupported-format", &["nb", "move", "nb3.ipynb", "a"]),
    r("nb move", "refusal.too-large", &["nb", "move", "huge.json", "a"]).setup(huge_file),
    r("nb move", "selection.ambiguous", &["nb", "move", "nb.ipynb", "1", "--after", "a"]),
    r("nb move", "selection.no-match", &["nb", "move", "nb.ipynb", "9", "--after", "a"]),
    r("nb read", "input.not-found", &["nb", "read", "nope.ipynb"]),
    r("nb read", "refusal.not-a-file", &["nb", "read", "dir"]),
    r("json set", "input.syntax-error", &["json", "set", "bad.json", "/a", "1"]),
    r("json set", "selection.no-match", &["json", "set", "c.json", "/aa", "1"]),
    r("json set", "input.not-utf8", &["json", "set", "l1.json", "/a", "1"]),
    r("json delete", "input.syntax-error", &["json", "delete", "bad.json", "/a"]),
    r("json delete", "input.not-utf8", &["json", "delete", "l1.json", "/a"]),
    r("json merge", "input.syntax-error", &["json", "merge", "bad.json", "--stdin"]).stdin("{}"),
    r("json merge", "input.not-utf8", &["json", "merge", "l1.json", "--stdin"]).stdin("{}"),
    r("json patch", "input.syntax-error", &["json", "patch", "bad.json", "--stdin"]).stdin("[]"),
    r("json patch", "input.not-utf8", &["json", "patch", "l1.json", "--stdin"]).stdin("[]"),
    r("json patch", "selection.no-match", &["json", "patch", "c.json", "--stdin"]).stdin(r#"[{"op":"test","path":"/a","value":2}]"#),
    r("json fmt", "input.syntax-error", &["json", "fmt", "bad.json"]),
    r("json fmt", "input.not-utf8", &["json", "fmt", "l1.json"]),
    // batch
    r("batch", "input.syntax-error", &["batch", "--stdin"]).stdin("[[\"read\""),
    r("batch", "refusal.target-changed", &["batch", "--stdin"]).stdin(r#"[["edit","a.txt","--old","beta","--new","x","--expect-hash","0000000000000000000000000000000000000000000000000000000000000000"]]"#),
    // journal
    r("undo", "input.not-found", &["undo", "01ZZZZZZZZZZZZZZZZZZZZZZZZ"]),
    // discovery, agent
    r("skills", "input.not-found", &["skills", "nosuch"]),
    // tx
    r("tx status", "input.not-found", &["tx", "status", "nosuch"]),
    r("tx diff", "input.not-found", &["tx", "diff", "nosuch"]),
    r("tx drop", "input.not-found", &["tx", "drop", "nosuch", "1"]),
    r("tx abort", "input.not-found", &["tx", "abort", "nosuch"]),
    r("tx approve", "input.not-found", &["tx", "approve", "nosuch"]),
    r("tx deny", "input.not-found", &["tx", "deny", "nosuch", "--reason", "r"]),
    r("tx commit", "refusal.review-denied", &["tx", "commit", FIRST_TX]).setup(denied_tx),
    r("tx commit", "environment.review-timeout", &["tx", "commit", FIRST_TX, "--review-timeout", "0"]).setup(review_tx),
    r("tx rebase", "input.not-found", &["tx", "rebase", "nosuch"]),
    // git
    r("git show", "input.not-found", &["git", "show", "HEAD:nope"]),
    r("git blame", "input.not-found", &["git", "blame", "nope"]),
    r("git blame", "selection.no-match", &["git", "blame", "a.txt", "--range", "50:60"]),
    // process
    r("bg logs", "input.not-found", &["bg", "logs", "nosuch"]),
    r("bg status", "input.not-found", &["bg", "status", "nosuch"]),
    r("bg stop", "input.not-found", &["bg", "stop", "nosuch"]),
    r("oui manifest", "input.not-found", &["oui", "manifest", "--surface", "nope"]),
    r("run", "environment.unavailable", &["run", "--", "/nonexistent/prog"]),
    // Port 1 is privileged and unused here: the first connect is refused at once.
    r("oui connect", "environment.unavailable", &["oui", "connect", "ws://127.0.0.1:1/oui/v1", "--connect-timeout", "1s"]),
    r("run", "refusal.exists", &["run", "--stdout-to", "a.txt", "--", "echo", "hi"]),
    r("run", "refusal.outside-workspace", &["run", "--stdout-to", "../o.txt", "--", "echo", "hi"]),
    r("run", "input.syntax-error", &["run", "--grep", "(", "--", "echo", "hi"]),
    r("wait", "input.syntax-error", &["wait", "--file", "a.txt", "--pattern", "("]),
    r("wait", "environment.timeout", &["wait", "--file", "a.txt", "--pattern", "zzz", "--timeout", "50ms"]),
    r("wait", "input.not-found", &["wait", "--bg", "nosuch", "--exit"]),
    r("feedback transition", "input.not-found", &["feedback", "transition", "999", "--status", "resolved"]),
    r("git status", "environment.unavailable", &["git", "status"]).env(NO_PATH),
    r("git diff", "environment.unavailable", &["git", "diff"]).env(NO_PATH),
    r("git log", "environment.unavailable", &["git", "log"]).env(NO_PATH),
    r("git show", "environment.unavailable", &["git", "show", "HEAD:a.txt"]).env(NO_PATH),
    r("git blame", "environment.unavailable", &["git", "blame", "a.txt"]).env(NO_PATH),
    r("chmod", "refusal.hard-link", &["chmod", "a.txt", "--exec"]).setup(hard_link),
    r("touch", "refusal.hard-link", &["touch", "a.txt"]).setup(hard_link),
    r("bg start", "environment.unavailable", &["bg", "start", "--", "/nonexistent/prog"]),
    r("feedback show", "input.not-found", &["feedback", "show", "999"]),
    r("read", "refusal.too-large", &["read", "huge.rs", "--symbol", "x"]).setup(huge_rust),
    r("git status", "refusal.too-large", &["git", "status"]).env(FAKE_GIT_PATH).setup(chatty_git),
    r("git diff", "refusal.too-large", &["git", "diff"]).env(FAKE_GIT_PATH).setup(chatty_git),
    r("git log", "refusal.too-large", &["git", "log"]).env(FAKE_GIT_PATH).setup(chatty_git),
    r("git show", "refusal.too-large", &["git", "show", "HEAD:a.txt"]).env(FAKE_GIT_PATH).setup(chatty_git),
    r("git blame", "refusal.too-large", &["git", "blame", "a.txt"]).env(FAKE_GIT_PATH).setup(chatty_git),
    // edit family, journal, tx rebase (codesB)
    r("move-lines", "input.unsupported-format", &["move-lines", "l1.txt", "--encoding", "utf-16le", "--match", "caf", "--to-position", "end"]),
    r("apply", "selection.ambiguous", &["apply", "--stdin"]).stdin("--- a/a.txt\n+++ b/a.txt\n@@ -2 +2 @@\n-alpha\n+x\n"),
    r("undo", "refusal.op-collected", &["undo", FIRST_OP]).setup(collected_op),
    r("undo", "selection.ambiguous", &["undo", "op-928e0efb"]).setup(shared_short_op),
    r("diff", "selection.ambiguous", &["diff", "--op", "op-928e0efb"]).setup(shared_short_op),
    r("undo", "integrity.blob-corrupt", &["undo", FIRST_OP]).setup(corrupt_blob),
    r("tx rebase", "refusal.target-changed", &["tx", "rebase", FIRST_TX]).setup(drifted_tx),
    // git, bg, wait, feedback (codesA)
    r("git status", "environment.timeout", &["git", "status"]).env(GIT_TIMEOUT).setup(slow_git),
    r("git diff", "environment.timeout", &["git", "diff"]).env(GIT_TIMEOUT).setup(slow_git),
    r("git log", "environment.timeout", &["git", "log"]).env(GIT_TIMEOUT).setup(slow_git),
    r("git show", "environment.timeout", &["git", "show", "HEAD:a.txt"]).env(GIT_TIMEOUT).setup(slow_git),
    r("git blame", "environment.timeout", &["git", "blame", "a.txt"]).env(GIT_TIMEOUT).setup(slow_git),
    r("git status", "input.not-found", &["git", "status", "nope.txt"]).setup(committed),
    r("git diff", "input.not-found", &["git", "diff", "nope.txt"]).setup(committed),
    r("git log", "input.not-found", &["git", "log", "nope.txt"]).setup(committed),
    r("git diff", "input.not-found", &["git", "diff", "--ref", "nosuch"]).setup(committed),
    r("git log", "input.not-found", &["git", "log", "--rev", "nosuch"]).setup(committed),
    r("bg logs", "environment.unavailable", &["bg", "logs", "bg-1"]).env(NO_STATE_DIR),
    r("bg status", "environment.unavailable", &["bg", "status"]).env(NO_STATE_DIR),
    r("bg stop", "environment.unavailable", &["bg", "stop", "bg-1"]).env(NO_STATE_DIR),
    r("wait", "environment.unavailable", &["wait", "--bg", "bg-1", "--exit"]).env(NO_STATE_DIR),
    r("bg logs", "input.syntax-error", &["bg", "logs", "bg-1", "--grep", "("]).setup(bg_started),
    r("bg logs", "input.syntax-error", &["bg", "logs", "bg-1"]).setup(bg_corrupt),
    r("bg status", "input.syntax-error", &["bg", "status", "bg-1"]).setup(bg_corrupt),
    r("bg stop", "input.syntax-error", &["bg", "stop", "bg-1"]).setup(bg_corrupt),
    r("wait", "input.syntax-error", &["wait", "--bg", "bg-1", "--exit"]).setup(bg_corrupt),
    r("feedback show", "input.syntax-error", &["feedback", "show", "1"]).setup(feedback_corrupt),
    r("feedback transition", "input.syntax-error", &["feedback", "transition", "1", "--status", "resolved"]).setup(feedback_corrupt),
];

/// Declared pairs no row proves yet (shrink-only; see the module comment).
/// Empty: every declared (command, code) pair has a row above. A command that
/// declares a new code needs a row, or the test names the missing pair.
#[rustfmt::skip]
const UNCOVERED: &[(&str, &str)] = &[
];

#[test]
fn every_row_answers_its_code() {
    let mut wrong = Vec::new();
    for row in ROWS {
        let env = TestEnv::new();
        fixture(&env);
        let helper = (row.setup)(&env);
        let mut c = env.command(row.argv);
        for (k, v) in row.env {
            c.env(k, v.replace("{root}", &env.root().to_string_lossy()));
        }
        let out = if row.stdin.is_empty() {
            c.output().expect("spawn aitools")
        } else {
            use std::io::Write;
            let mut child = c
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn aitools");
            if let Some(mut i) = child.stdin.take() {
                i.write_all(row.stdin.as_bytes()).expect("stdin");
            }
            child.wait_with_output().expect("wait")
        };
        if let Some(mut h) = helper {
            let _ = h.kill();
            let _ = h.wait();
        }
        let run = crate::support::parse(out);
        if run.error_code() != row.code || run.json["command"] != row.cmd {
            wrong.push(format!("{:?} wants {}: {}", row.argv, row.code, run.stdout));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_table_covers_every_declared_code() {
    let env = TestEnv::new();
    let all = env.run(&["schema", "--all", "--full"]);
    let writes: BTreeMap<String, bool> = all.json["commands"]
        .as_array()
        .expect("commands")
        .iter()
        .map(|c| {
            let w = c["writes"] == Value::Bool(true);
            (c["name"].as_str().unwrap_or_default().to_string(), w)
        })
        .collect();
    let proven: BTreeSet<(&str, &str)> = ROWS.iter().map(|r| (r.cmd, r.code)).collect();
    let proven_on_a_write = |code: &str| {
        ROWS.iter()
            .any(|r| r.code == code && writes.get(r.cmd) == Some(&true))
    };
    let proven_anywhere = |code: &str| ROWS.iter().any(|r| r.code == code);
    let mut missing = Vec::new();
    let mut stale = Vec::new();
    let mut declared_pairs = BTreeSet::new();
    for (cmd, codes) in &declared().codes {
        for code in codes {
            declared_pairs.insert((cmd.as_str(), code.as_str()));
            let shared = (ANY_COMMAND.contains(&code.as_str()) || IMPLIED.contains(&code.as_str()))
                && proven_anywhere(code)
                || (writes.get(cmd) == Some(&true)
                    && WRITE_PROTOCOL.contains(&code.as_str())
                    && proven_on_a_write(code));
            let shared = shared
                || PROVEN_ELSEWHERE.contains(&code.as_str())
                || PAIRS_PROVEN_ELSEWHERE.contains(&(cmd.as_str(), code.as_str()));
            let covered = shared || proven.contains(&(cmd.as_str(), code.as_str()));
            let listed = UNCOVERED.contains(&(cmd.as_str(), code.as_str()));
            if covered && listed {
                stale.push(format!("(\"{cmd}\", \"{code}\"),"));
            } else if !covered && !listed {
                missing.push(format!("(\"{cmd}\", \"{code}\"),"));
            }
        }
    }
    for (cmd, code) in UNCOVERED {
        if !declared_pairs.contains(&(*cmd, *code)) {
            stale.push(format!("(\"{cmd}\", \"{code}\"), (no longer declared)"));
        }
    }
    for row in ROWS {
        assert!(
            declared_pairs.contains(&(row.cmd, row.code)),
            "row {:?} proves a code {} does not declare",
            row.argv,
            row.cmd
        );
    }
    assert!(
        missing.is_empty(),
        "declared codes with no row that answers them:\n{}",
        missing.join("\n")
    );
    assert!(
        stale.is_empty(),
        "UNCOVERED lists pairs now covered or gone; remove them:\n{}",
        stale.join("\n")
    );
}
