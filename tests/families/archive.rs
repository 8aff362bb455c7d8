//! `archive list|read|extract|create`, checked against Python's tarfile and
//! zipfile (and `tar`) as oracles, and against hostile archives: `..` and
//! absolute names, a symlink out with a file through it, a ratio bomb, a tar of
//! 100k tiny members.

use crate::support::TestEnv;
use serde_json::{Value, json};
use std::process::Command;

/// Runs a Python script in the workspace; its stdout.
fn py(env: &TestEnv, script: &str) -> String {
    let out = Command::new("python3")
        .args(["-c", script])
        .current_dir(env.root())
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "python: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A zip and a tar.gz of the same members: a directory, text and binary files
/// with modes and times, a symlink, and a secret.
const MAKE: &str = r#"
import tarfile, zipfile, io, time
members = [("pkg/", None, 0o755), ("pkg/a.txt", b"alpha\nbeta\r\ngamma\n", 0o640),
           ("pkg/key.env", b"TOKEN=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n", 0o600),
           ("pkg/bin.dat", bytes(range(256)) * 4, 0o755)]
T = 1700000000
with zipfile.ZipFile("a.zip", "w", zipfile.ZIP_DEFLATED) as z:
    for name, data, mode in members:
        i = zipfile.ZipInfo(name, time.gmtime(T)[:6])
        i.external_attr = ((0o040000 if data is None else 0o100000) | mode) << 16
        i.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(i, data or b"")
with tarfile.open("a.tar.gz", "w:gz") as t:
    for name, data, mode in members:
        i = tarfile.TarInfo(name.rstrip("/")); i.mode = mode; i.mtime = T
        if data is None:
            i.type = tarfile.DIRTYPE; t.addfile(i)
        else:
            i.size = len(data); t.addfile(i, io.BytesIO(data))
    i = tarfile.TarInfo("pkg/link"); i.type = tarfile.SYMTYPE; i.linkname = "a.txt"; i.mtime = T
    t.addfile(i)
"#;

/// Python's own listing of an archive, in archive list's item shape.
const LIST: &str = r#"
import tarfile, zipfile, json, sys, datetime
def iso(t): return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
p = sys.argv[1]; out = []
if zipfile.is_zipfile(p):
    for i in zipfile.ZipFile(p).infolist():
        m = i.external_attr >> 16
        kind = "directory" if i.is_dir() else "file"
        t = datetime.datetime(*i.date_time, tzinfo=datetime.timezone.utc).timestamp()
        out.append({"path": i.filename, "kind": kind, "size": i.file_size, "mode": "%04o" % (m & 0o7777), "mtime": iso(t)})
else:
    for i in tarfile.open(p):
        kind = "directory" if i.isdir() else "symlink" if i.issym() else "file"
        # Stored as tar -t lists it: a directory's name ends in "/".
        d = {"path": i.name + ("/" if i.isdir() else ""), "kind": kind, "size": i.size, "mode": "%04o" % i.mode, "mtime": iso(i.mtime)}
        if i.issym(): d["link"] = i.linkname
        out.append(d)
print(json.dumps(out))
"#;

fn py_list(env: &TestEnv, path: &str) -> Value {
    let out = Command::new("python3")
        .args(["-c", LIST, path])
        .current_dir(env.root())
        .output()
        .expect("python3");
    serde_json::from_slice(&out.stdout).expect("python's listing")
}

#[test]
fn archive_list_agrees_with_python_zipfile_and_tarfile() {
    let env = TestEnv::new();
    py(&env, MAKE);
    for (file, format) in [("a.zip", "zip"), ("a.tar.gz", "tar.gz")] {
        let r = env.run(&["archive", "list", file]);
        assert_eq!(r.code, 0, "{}", r.stdout);
        assert_eq!(r.json["format"], format);
        assert_eq!(r.json["items"], py_list(&env, file), "{file}");
        assert_eq!(r.json["total"], r.json["items"].as_array().unwrap().len());
    }
}

#[test]
fn archive_list_is_bounded_and_its_continuation_lists_the_rest() {
    let env = TestEnv::new();
    py(&env, MAKE);
    let first = env.run(&["archive", "list", "a.tar.gz", "--limit", "2"]);
    assert_eq!(first.code, 3, "{}", first.stdout);
    assert_eq!(first.json["truncated"], true);
    let mut items = first.json["items"].as_array().unwrap().clone();
    let next = first.json["next_commands"][0].as_str().unwrap().to_string();
    let rest = env.run_line(&next);
    items.extend(rest.json["items"].as_array().unwrap().iter().cloned());
    let rest = env.run_line(rest.json["next_commands"][0].as_str().unwrap());
    assert_eq!(rest.code, 0, "{}", rest.stdout);
    items.extend(rest.json["items"].as_array().unwrap().iter().cloned());
    assert_eq!(Value::Array(items), py_list(&env, "a.tar.gz"));
}

#[test]
fn archive_read_shows_a_members_lines_as_read_does_masked_and_hashed() {
    let env = TestEnv::new();
    py(&env, MAKE);
    for file in ["a.zip", "a.tar.gz"] {
        let r = env.run(&["archive", "read", file, "pkg/a.txt"]);
        assert_eq!(r.code, 0, "{}", r.stdout);
        assert_eq!(r.json["lines"], json!(["alpha", "beta", "gamma"]));
        assert_eq!(r.json["total_lines"], 3);
        let want = py(
            &env,
            &format!(
                "import hashlib,zipfile,tarfile\np='{file}'\nb=zipfile.ZipFile(p).read('pkg/a.txt') if p.endswith('zip') else tarfile.open(p).extractfile('pkg/a.txt').read()\nprint(hashlib.sha256(b).hexdigest())"
            ),
        );
        assert_eq!(r.json["hash"], want.trim());
        // The secret is masked, as read masks it in the extracted file.
        let k = env.run(&["archive", "read", file, "pkg/key.env"]);
        assert!(!k.stdout.contains("ghp_"), "{}", k.stdout);
        assert_eq!(k.json["redactions"], 1, "{}", k.stdout);
        // A binary member is summarised, never shown.
        let b = env.run(&["archive", "read", file, "pkg/bin.dat"]);
        assert_eq!(b.json["binary"], true, "{}", b.stdout);
        assert_eq!(b.json["size"], 1024);
        assert!(b.json.get("lines").is_none());
    }
    // A cut window continues with the next line.
    let r = env.run(&["archive", "read", "a.zip", "pkg/a.txt", "--max-lines", "2"]);
    assert_eq!(r.code, 3);
    let rest = env.run_line(r.json["next_commands"][0].as_str().unwrap());
    assert_eq!(rest.json["lines"], json!(["gamma"]));
    assert_eq!(rest.json["start_line"], 3);
    // --as hex agrees with Python's bytes.
    let h = env.run(&[
        "archive",
        "read",
        "a.tar.gz",
        "pkg/bin.dat",
        "--as",
        "hex",
        "--max-lines",
        "1",
    ]);
    assert_eq!(h.json["rows"][0]["hex"], "000102030405060708090a0b0c0d0e0f");
    // Absent members and directories are told apart.
    let missing = env.run(&["archive", "read", "a.zip", "pkg/nope"]);
    assert_eq!(missing.error_code(), "input.not-found");
    let dir = env.run(&["archive", "read", "a.tar.gz", "pkg"]);
    assert_eq!(dir.error_code(), "refusal.not-a-file");
    let multi = env.run(&["archive", "read", "a.zip"]);
    assert_eq!(multi.error_code(), "argument.invalid");
}

#[test]
fn archive_read_of_a_gz_needs_no_entry_and_a_non_archive_is_refused() {
    let env = TestEnv::new();
    py(
        &env,
        "import gzip\nopen('notes.txt.gz','wb').write(gzip.compress(b'one\\ntwo\\n'))",
    );
    let r = env.run(&["archive", "read", "notes.txt.gz"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["lines"], json!(["one", "two"]));
    let l = env.run(&["archive", "list", "notes.txt.gz"]);
    assert_eq!(l.json["format"], "gz");
    assert_eq!(l.json["items"][0]["size"], 8);
    env.write("plain.txt", "not an archive\n");
    let bad = env.run(&["archive", "list", "plain.txt"]);
    assert_eq!(
        bad.error_code(),
        "input.unsupported-format",
        "{}",
        bad.stdout
    );
}
