//! `archive list|read|extract|create`, checked against Python's tarfile and
//! zipfile (and `tar`) as oracles, and against hostile archives: `..` and
//! absolute names, a symlink out with a file through it, a ratio bomb, a tar of
//! 100k tiny members.

use crate::support::TestEnv;
use serde_json::{Value, json};
use std::path::Path;
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

/// A `--match` line inside a YAML block scalar under a secret key is masked as
/// `read --match` masks it (the lines before it prime the line machine), and
/// counted; a line outside the value is shown.
#[test]
fn archive_read_match_masks_a_line_inside_a_multi_line_secret() {
    let env = TestEnv::new();
    py(
        &env,
        r#"
import zipfile
z = zipfile.ZipFile("y.zip", "w")
z.writestr("cfg.yaml", "name: app\npassword: |\n  Zq9vLmN3xR7pT2wK\n  mUfH8sYdC4jQ6bXe\nother: mUf\n")
z.close()
"#,
    );
    let r = env.run(&["archive", "read", "y.zip", "cfg.yaml", "--match", "mUf"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(!r.stdout.contains("mUfH8"), "{}", r.stdout);
    assert_eq!(
        r.json["lines"],
        json!(["  [REDACTED_SECRET]", "other: mUf"]),
        "{}",
        r.stdout
    );
    assert_eq!(r.json["line_numbers"], json!([4, 5]));
    assert_eq!(r.json["redactions"], 1, "{}", r.stdout);
}

/// A Rust member with two functions and a marked block, zipped and tarred.
const CODE: &str = r#"
import tarfile, zipfile, io
src = b"fn helper() -> u32 {\n    1\n}\n\npub fn main() {\n    let x = helper();\n    println!(\"{x}\");\n}\n// BEGIN\nmiddle\nmore\n// END\n"
with zipfile.ZipFile("c.zip", "w") as z:
    z.writestr("src/lib.rs", src)
with tarfile.open("c.tar", "w") as t:
    i = tarfile.TarInfo("src/lib.rs"); i.size = len(src); t.addfile(i, io.BytesIO(src))
"#;

#[test]
fn archive_read_selects_a_symbol_or_a_between_block_and_echoes_nothing_known() {
    let env = TestEnv::new();
    py(&env, CODE);
    // The oracle: the member's lines by Python, the block by a regex scan.
    let lines = |file: &str, a: usize, b: usize| -> Value {
        let out = py(
            &env,
            &format!(
                "import json,zipfile,tarfile\np='{file}'\nb=zipfile.ZipFile(p).read('src/lib.rs') if p.endswith('zip') else tarfile.open(p).extractfile('src/lib.rs').read()\nprint(json.dumps(b.decode().splitlines()[{a}:{b}]))"
            ),
        );
        serde_json::from_str(&out).expect("json")
    };
    let between = py(
        &env,
        "import re,zipfile\nt=zipfile.ZipFile('c.zip').read('src/lib.rs').decode().splitlines()\ns=next(i for i,x in enumerate(t) if re.search('BEGIN',x))\ne=next(i for i,x in enumerate(t) if i>s and re.search('END',x))\nprint(s,e)",
    );
    let (s, e) = between.trim().split_once(' ').expect("two numbers");
    let (s, e): (usize, usize) = (s.parse().expect("n"), e.parse().expect("n"));
    for file in ["c.zip", "c.tar"] {
        let r = env.run(&["archive", "read", file, "src/lib.rs", "--symbol", "main"]);
        assert_eq!(r.code, 0, "{}", r.stdout);
        assert_eq!(r.json["lines"], lines(file, 4, 8));
        assert_eq!(r.json["start_line"], 5);
        // What the caller sent is not echoed back; the status says partial.
        for k in ["path", "entry", "mode", "truncated"] {
            assert!(r.json.get(k).is_none(), "{k}: {}", r.stdout);
        }
        let b = env.run(&[
            "archive",
            "read",
            file,
            "src/lib.rs",
            "--between",
            "BEGIN",
            "END",
            "--exclusive",
        ]);
        assert_eq!(b.code, 0, "{}", b.stdout);
        assert_eq!(b.json["lines"], lines(file, s + 1, e));
        assert_eq!(b.json["start_line"], s + 2);
    }
    // A cut definition continues with the rest of it.
    let cut = env.run(&[
        "archive",
        "read",
        "c.zip",
        "src/lib.rs",
        "--symbol",
        "main",
        "--max-lines",
        "3",
    ]);
    assert_eq!(cut.code, 3, "{}", cut.stdout);
    let rest = env.run_line(cut.json["next_commands"][0].as_str().expect("next"));
    assert_eq!(rest.json["lines"], lines("c.zip", 7, 8));
    // An unknown name answers the member's definitions as candidates.
    let miss = env.run(&["archive", "read", "c.zip", "src/lib.rs", "--symbol", "mian"]);
    assert_eq!(miss.error_code(), "selection.no-match");
    assert_eq!(miss.json["error"]["candidates"][1]["name"], "main");
    let two = env.run(&[
        "archive",
        "read",
        "c.zip",
        "src/lib.rs",
        "--symbol",
        "main",
        "--range",
        "1:2",
    ]);
    assert_eq!(two.error_code(), "argument.invalid");
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

/// Python's extraction of `file` into `dir` (tarfile's and zipfile's own), as
/// {path: [kind, content or link, mode]}; aitools' tree under `out` the same way.
const TREE: &str = r#"
import os, sys, json, stat
def tree(root):
    out = {}
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(d, n); rel = os.path.relpath(p, root); st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode): out[rel] = ["link", os.readlink(p)]
            elif stat.S_ISDIR(st.st_mode): out[rel] = ["dir", None]
            else: out[rel] = ["file", open(p, "rb").read().hex(), "%o" % (st.st_mode & 0o777)]
    return out
print(json.dumps(tree(sys.argv[1]), sort_keys=True))
"#;

fn tree(env: &TestEnv, dir: &str) -> Value {
    let out = Command::new("python3")
        .args(["-c", TREE, dir])
        .current_dir(env.root())
        .output()
        .expect("python3");
    serde_json::from_slice(&out.stdout).expect("tree")
}

#[test]
fn archive_extract_writes_what_python_extracts_and_undo_removes_it() {
    let env = TestEnv::new();
    py(&env, MAKE);
    py(
        &env,
        "import tarfile, zipfile\ntarfile.open('a.tar.gz').extractall('py_tgz', filter='tar')\nzipfile.ZipFile('a.zip').extractall('py_zip')\nimport os\nfor d,_,fs in os.walk('py_zip'):\n  [os.chmod(os.path.join(d,f), zipfile.ZipFile('a.zip').getinfo(os.path.relpath(os.path.join(d,f),'py_zip')).external_attr>>16 & 0o777) for f in fs]",
    );
    for (file, oracle, to) in [
        ("a.tar.gz", "py_tgz", "x_tgz"),
        ("a.zip", "py_zip", "x_zip"),
    ] {
        let r = env.run(&["archive", "extract", file, "--to", to]);
        assert_eq!(r.code, 0, "{}", r.stdout);
        assert_eq!(tree(&env, to), tree(&env, oracle), "{file}");
        let op = r.op_id();
        let u = env.run(&["undo", &op]);
        assert_eq!(u.code, 0, "{}", u.stdout);
        assert!(!env.path(to).exists(), "undo left {to}");
    }
    // One member by name; a name not in the archive is not-found.
    let one = env.run(&[
        "archive",
        "extract",
        "a.zip",
        "--to",
        "one",
        "--entry",
        "pkg/a.txt",
    ]);
    assert_eq!(one.code, 0, "{}", one.stdout);
    assert_eq!(
        std::fs::read(env.path("one/pkg/a.txt")).unwrap(),
        b"alpha\nbeta\r\ngamma\n"
    );
    assert!(!env.path("one/pkg/key.env").exists());
    // Never overwrites: the same extraction again is refused, nothing changed.
    let again = env.run(&["archive", "extract", "a.zip", "--to", "one"]);
    assert_eq!(again.error_code(), "refusal.exists", "{}", again.stdout);
    assert!(!env.path("one/pkg/key.env").exists());
    // A dry run writes nothing.
    let dry = env.run(&["archive", "extract", "a.zip", "--to", "dry", "--dry-run"]);
    assert_eq!(dry.json["dry_run"], true, "{}", dry.stdout);
    assert!(!env.path("dry").exists());
}

/// Tars with one hostile member each, after a harmless one.
const HOSTILE: &str = r#"
import tarfile, io
def mk(name, members):
    with tarfile.open(name, "w") as t:
        for n, kind, extra in members:
            i = tarfile.TarInfo(n)
            if kind == "f": i.size = len(extra); t.addfile(i, io.BytesIO(extra))
            elif kind == "l": i.type = tarfile.SYMTYPE; i.linkname = extra; t.addfile(i)
            elif kind == "h": i.type = tarfile.LNKTYPE; i.linkname = extra; t.addfile(i)
            elif kind == "c": i.type = tarfile.CHRTYPE; i.devmajor = 1; i.devminor = 3; t.addfile(i)
ok = ("ok.txt", "f", b"ok\n")
mk("dotdot.tar", [ok, ("../escape.txt", "f", b"evil\n")])
mk("deep.tar", [ok, ("a/b/../../../escape.txt", "f", b"evil\n")])
mk("abs.tar", [ok, ("/tmp/aitools-abs-escape.txt", "f", b"evil\n")])
mk("link_out.tar", [ok, ("etc", "l", "/etc"), ("etc/aitools-escape", "f", b"evil\n")])
mk("link_up.tar", [ok, ("up", "l", "../.."), ("up/escape.txt", "f", b"evil\n")])
mk("link_in.tar", [ok, ("d", "l", "."), ("d/x.txt", "f", b"evil\n")])
mk("hard_out.tar", [ok, ("h", "h", "/etc/passwd")])
mk("device.tar", [ok, ("null", "c", None)])
"#;

#[test]
fn archive_extract_refuses_names_and_links_leading_out_and_writes_nothing() {
    let env = TestEnv::new();
    py(&env, HOSTILE);
    let cases = [
        ("dotdot.tar", "refusal.outside-workspace"),
        ("deep.tar", "refusal.outside-workspace"),
        ("abs.tar", "refusal.outside-workspace"),
        ("link_out.tar", "refusal.outside-workspace"),
        ("link_up.tar", "refusal.outside-workspace"),
        ("link_in.tar", "refusal.outside-workspace"),
        ("hard_out.tar", "refusal.outside-workspace"),
        ("device.tar", "refusal.not-a-file"),
    ];
    for (file, code) in cases {
        let r = env.run(&["archive", "extract", file, "--to", "sub/out"]);
        assert_eq!(r.error_code(), code, "{file}: {}", r.stdout);
        assert!(!env.path("sub").exists(), "{file}: something was written");
        assert!(!env.root().parent().unwrap().join("escape.txt").exists());
    }
    assert!(!Path::new("/tmp/aitools-abs-escape.txt").exists());
    assert!(!Path::new("/etc/aitools-escape").exists());
    // The destination itself must be inside the workspace.
    let out = env.run(&[
        "archive",
        "extract",
        "dotdot.tar",
        "--to",
        "/tmp/aitools-out",
    ]);
    assert_eq!(
        out.error_code(),
        "refusal.outside-workspace",
        "{}",
        out.stdout
    );
}

#[test]
fn archive_extract_counts_bytes_as_they_come_ratio_bomb_and_lying_headers() {
    let env = TestEnv::new();
    // 42.zip-style filler: 40 members of 16 MiB of zeros (640 MiB from ~650 KB),
    // and a zip whose headers say 100 bytes for a member of 16 MiB.
    py(
        &env,
        r#"
import zipfile, struct
z = zipfile.ZipFile("bomb.zip", "w", zipfile.ZIP_DEFLATED)
blob = bytes(16 << 20)
for i in range(40): z.writestr("zeros%02d" % i, blob)
z.close()
z = zipfile.ZipFile("liar.zip", "w", zipfile.ZIP_DEFLATED); z.writestr("x", blob); z.close()
b = bytearray(open("liar.zip", "rb").read())
cd = b.rfind(b"PK\x01\x02"); struct.pack_into("<I", b, cd + 24, 100); struct.pack_into("<I", b, 22, 100)
open("liar.zip", "wb").write(bytes(b))
"#,
    );
    let bomb = env.run(&["archive", "extract", "bomb.zip", "--to", "out"]);
    assert_eq!(bomb.error_code(), "refusal.too-large", "{}", bomb.stdout);
    assert!(!env.path("out").exists());
    // The byte budget alone stops it too (ratio aside).
    let small = env.run(&[
        "archive",
        "extract",
        "bomb.zip",
        "--to",
        "out",
        "--max-bytes",
        "1MiB",
    ]);
    assert_eq!(small.error_code(), "refusal.too-large", "{}", small.stdout);
    let liar = env.run(&["archive", "extract", "liar.zip", "--to", "out"]);
    assert!(
        ["input.syntax-error", "refusal.too-large"].contains(&liar.error_code()),
        "{}",
        liar.stdout
    );
    assert!(!env.path("out").exists());
}

#[test]
fn archive_with_100k_tiny_members_lists_bounded_and_extract_stops_at_the_entry_budget() {
    let env = TestEnv::new();
    py(
        &env,
        "import tarfile, io\nt = tarfile.open('many.tar.gz', 'w:gz')\nfor i in range(100001):\n    ti = tarfile.TarInfo('f/%06d' % i); t.addfile(ti, io.BytesIO(b''))\nt.close()",
    );
    let l = env.run(&["archive", "list", "many.tar.gz"]);
    assert_eq!(l.code, 3, "{}", &l.stdout[..l.stdout.len().min(300)]);
    assert_eq!(l.json["total"], 100001);
    assert_eq!(l.json["items"].as_array().unwrap().len(), 200);
    let x = env.run(&["archive", "extract", "many.tar.gz", "--to", "out"]);
    assert_eq!(x.error_code(), "refusal.too-large", "{}", x.stdout);
    assert!(!env.path("out").exists());
}

#[test]
fn archive_create_writes_what_python_and_tar_read_back_guarded_and_undoable() {
    let env = TestEnv::new();
    env.write(".gitignore", "build/\n");
    env.write("proj/a.txt", "alpha\n");
    env.write("proj/deep/b.sh", "#!/bin/sh\necho b\n");
    env.write("proj/build/out.o", "ignored\n");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        env.path("proj/deep/b.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let want = json!({"proj/a.txt": ["616c7068610a", "644"], "proj/deep/b.sh": ["23212f62696e2f73680a6563686f20620a", "755"]});
    let read_back = r#"
import sys, json, tarfile, zipfile
p = sys.argv[1]; out = {}
if p.endswith(".zip"):
    z = zipfile.ZipFile(p); assert z.testzip() is None
    for i in z.infolist(): out[i.filename] = [z.read(i).hex(), "%o" % (i.external_attr >> 16 & 0o777)]
else:
    for m in tarfile.open(p): out[m.name] = [tarfile.open(p).extractfile(m.name).read().hex(), "%o" % m.mode]
print(json.dumps(out))
"#;
    for name in ["o.zip", "o.tar", "o.tar.gz"] {
        let r = env.run(&["archive", "create", name, "proj"]);
        assert_eq!(r.code, 0, "{}", r.stdout);
        assert_eq!(r.json["entries"], 2);
        let out = Command::new("python3")
            .args(["-c", read_back, name])
            .current_dir(env.root())
            .output()
            .unwrap();
        let got: Value = serde_json::from_slice(&out.stdout).expect(name);
        assert_eq!(got, want, "{name}");
    }
    // tar(1) reads them too.
    let t = Command::new("tar")
        .args(["-tzf", "o.tar.gz"])
        .current_dir(env.root())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&t.stdout),
        "proj/a.txt\nproj/deep/b.sh\n"
    );
    // Never overwritten unguarded; the repair's guard works.
    let again = env.run(&["archive", "create", "o.zip", "proj/a.txt"]);
    assert_eq!(again.error_code(), "refusal.exists", "{}", again.stdout);
    let fix = again.json["error"]["repairs"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    let over = env.run_line(&fix);
    assert_eq!(over.code, 0, "{}", over.stdout);
    assert_eq!(env.run(&["archive", "list", "o.zip"]).json["total"], 1);
    // Undo restores the earlier archive, then removes the first.
    env.run(&["undo", &over.op_id()]);
    assert_eq!(env.run(&["archive", "list", "o.zip"]).json["total"], 2);
    let hist = env.run(&["history", "o.zip"]);
    let first = hist.json["items"].as_array().unwrap().last().unwrap()["op_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(env.run(&["undo", &first]).code, 0);
    assert!(!env.path("o.zip").exists());
    // gz takes one file; a round trip through extract gives the bytes back.
    let gz = env.run(&["archive", "create", "a.txt.gz", "proj/a.txt"]);
    assert_eq!(gz.code, 0, "{}", gz.stdout);
    assert_eq!(
        py(
            &env,
            "import gzip; print(gzip.open('a.txt.gz').read().hex())"
        )
        .trim(),
        "616c7068610a"
    );
    let two = env.run(&["archive", "create", "two.gz", "proj"]);
    assert_eq!(two.error_code(), "argument.invalid");
}

#[test]
fn archive_create_stores_symlinks_as_links_never_followed_out_of_the_root() {
    let env = TestEnv::new();
    env.write("proj/a.txt", "alpha\n");
    env.write("proj/d/b.txt", "beta\n");
    let link = |target: &str, at: &str| std::os::unix::fs::symlink(target, env.path(at)).unwrap();
    link("a.txt", "proj/l1");
    link("../a.txt", "proj/d/l2");
    link("d", "proj/dl");
    link("/etc/passwd", "proj/abs");
    link("../../outside", "proj/up");
    let tar_v = |name: &str| {
        let t = Command::new("tar")
            .args(["-tvf", name])
            .current_dir(env.root())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&t.stdout).into_owned();
        // The mode and the name (with "-> target" for a link), dates left out.
        let mut rows: Vec<String> = text
            .lines()
            .map(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                format!("{} {}", w[0], w[5..].join(" "))
            })
            .collect();
        rows.sort();
        rows
    };
    for name in ["o.tar", "o.tar.gz"] {
        let r = env.run(&["archive", "create", name, "proj"]);
        assert_eq!(r.code, 0, "{}", r.stdout);
        assert_eq!(r.json["entries"], 5);
        assert_eq!(
            r.json["skipped"],
            json!([{"reason": "link-outside", "count": 2, "examples": ["proj/abs", "proj/up"]}])
        );
        assert_eq!(
            tar_v(name),
            [
                "-rw-r--r-- proj/a.txt",
                "-rw-r--r-- proj/d/b.txt",
                "lrwxrwxrwx proj/d/l2 -> ../a.txt",
                "lrwxrwxrwx proj/dl -> d",
                "lrwxrwxrwx proj/l1 -> a.txt",
            ],
            "{name}"
        );
    }
    // A symlink named as a source is a member itself (as tar without -h).
    let named = env.run(&[
        "archive", "create", "n.tar", "proj/dl", "proj/l1", "proj/abs",
    ]);
    assert_eq!(named.code, 0, "{}", named.stdout);
    assert_eq!(
        named.json["skipped"],
        json!([{"reason": "link-outside", "count": 1, "examples": ["proj/abs"]}])
    );
    assert_eq!(
        tar_v("n.tar"),
        ["lrwxrwxrwx proj/dl -> d", "lrwxrwxrwx proj/l1 -> a.txt"]
    );
    let z = env.run(&["archive", "create", "o.zip", "proj"]);
    assert_eq!(z.code, 0, "{}", z.stdout);
    let read_zip = r#"
import zipfile, json
z = zipfile.ZipFile("o.zip"); assert z.testzip() is None
print(json.dumps({i.filename: [oct(i.external_attr >> 16), z.read(i).decode()] for i in z.infolist()}))
"#;
    let got: Value = serde_json::from_str(&py(&env, read_zip)).unwrap();
    assert_eq!(
        got,
        json!({"proj/a.txt": ["0o100644", "alpha\n"], "proj/d/b.txt": ["0o100644", "beta\n"],
               "proj/d/l2": ["0o120777", "../a.txt"], "proj/dl": ["0o120777", "d"],
               "proj/l1": ["0o120777", "a.txt"]})
    );
    // Our own extract takes the links back as links; undo removes the archive.
    let x = env.run(&["archive", "extract", "o.zip", "--to", "back"]);
    assert_eq!(x.code, 0, "{}", x.stdout);
    assert_eq!(
        std::fs::read_link(env.path("back/proj/d/l2")).unwrap(),
        Path::new("../a.txt")
    );
    assert_eq!(env.run(&["undo", &z.op_id()]).code, 0);
    assert!(!env.path("o.zip").exists());
}

#[test]
fn archive_create_writes_zip64_past_65535_members_python_reads_all() {
    let env = TestEnv::new();
    std::fs::create_dir(env.path("many")).unwrap();
    for i in 0..70_000 {
        std::fs::File::create(env.path(&format!("many/f{i:05}"))).unwrap();
    }
    let r = env.run(&["archive", "create", "m.zip", "many"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["entries"], 70_000);
    let bytes = env.read("m.zip");
    assert!(
        bytes.windows(4).any(|w| w == b"PK\x06\x06"),
        "no zip64 end record"
    );
    let check = r#"
import zipfile
z = zipfile.ZipFile("m.zip"); names = z.namelist()
print(len(names), names[0], names[-1], sum(i.file_size for i in z.infolist()))
"#;
    assert_eq!(py(&env, check).trim(), "70000 many/f00000 many/f69999 0");
    // archive list reads it back too.
    let l = env.run(&["archive", "list", "m.zip", "--limit", "1"]);
    assert_eq!(l.json["total"], 70_000, "{}", l.stdout);
}

#[test]
fn archive_read_and_git_show_take_one_selector_group_from_core() {
    let env = TestEnv::new();
    let args = |cmd: &[&str]| {
        let mut argv = vec!["schema"];
        argv.extend_from_slice(cmd);
        argv.push("--full");
        let r = env.run(&argv);
        let all = r.json["commands"][0]["args"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let names = [
            "--range",
            "--symbol",
            "--kind",
            "--between",
            "--exclusive",
            "--match",
            "--invert",
        ];
        let mut kept: Vec<Value> = all
            .into_iter()
            .filter(|a| names.iter().any(|n| a["name"] == *n))
            .collect();
        kept.sort_by_key(|a| a.to_string());
        kept
    };
    let ours = args(&["archive", "read"]);
    assert_eq!(ours.len(), 7, "{ours:?}");
    assert_eq!(ours, args(&["git", "show"]));
    assert_eq!(ours, args(&["git", "blame"]));
    // A modifier without its selector is refused the same way by both.
    py(&env, MAKE);
    let a = env.run(&[
        "archive",
        "read",
        "a.zip",
        "pkg/a.txt",
        "--kind",
        "function",
    ]);
    env.write("f.rs", "fn main() {}\n");
    env.git(&["add", "f.rs"]);
    env.git(&["commit", "-qm", "f"]);
    let g = env.run(&["git", "show", "HEAD:f.rs", "--kind", "function"]);
    assert_eq!(a.error_code(), "argument.invalid", "{}", a.stdout);
    assert_eq!(a.json["error"]["message"], g.json["error"]["message"]);
}

/// Every path below `dir` with its kind (and a link's target), as Python walks it.
const PATHS: &str = r#"
import os, sys, json
d = sys.argv[1]; out = {}
for base, dirs, files in os.walk(d):
    for n in dirs + files:
        p = os.path.join(base, n); rel = os.path.relpath(p, d)
        out[rel] = ["link", os.readlink(p)] if os.path.islink(p) else ["dir"] if os.path.isdir(p) else ["file"]
print(json.dumps(out, sort_keys=True))
"#;

fn paths(env: &TestEnv, dir: &str) -> Value {
    let out = Command::new("python3")
        .args(["-c", PATHS, dir])
        .current_dir(env.root())
        .output()
        .expect("python3");
    serde_json::from_slice(&out.stdout).expect("paths")
}

/// Python's tarfile or zipfile extracts `name` into `to` (links kept as links).
fn py_extract(env: &TestEnv, name: &str, to: &str) {
    py(
        env,
        &format!(
            "import tarfile, zipfile\nif '{name}'.endswith('.zip'): zipfile.ZipFile('{name}').extractall('{to}')\nelse: tarfile.open('{name}').extractall('{to}')"
        ),
    );
}

/// What an explicit `--skip-larger-than` and the walk leave out is said, grouped
/// by reason as search says it (the symlink inside is a member).
#[test]
fn archive_create_says_what_it_left_out() {
    let env = TestEnv::new();
    let _sock = super::snapshot_sys_time::left_out_tree(&env);
    let r = env.run(&[
        "archive",
        "create",
        "o.tar",
        "proj",
        "--skip-larger-than",
        "1KiB",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["entries"], 2, "{}", r.stdout);
    assert_eq!(
        r.json["skipped"],
        json!([
            {"reason": "not-a-file", "count": 2, "examples": ["proj/pipe", "proj/sock"]},
            {"reason": "too-large", "count": 1, "examples": ["proj/big.bin"]},
        ])
    );
}

#[test]
fn archive_create_stores_empty_directories_python_extracts_the_same_tree() {
    let env = TestEnv::new();
    env.write(".gitignore", "*.log\n");
    env.write("proj/a.txt", "alpha\n");
    env.write("proj/only-ignored/x.log", "ignored\n");
    for d in ["proj/empty", "proj/nest/inner/leaf", "proj/full/sub"] {
        std::fs::create_dir_all(env.path(d)).unwrap();
    }
    env.write("proj/full/sub/b.txt", "beta\n");
    // What survives: the tree less the ignored file; its directory stays (empty).
    let mut want = paths(&env, "proj");
    want.as_object_mut().unwrap().remove("only-ignored/x.log");
    for name in ["o.tar", "o.tar.gz", "o.zip"] {
        let r = env.run(&["archive", "create", name, "proj"]);
        assert_eq!(r.code, 0, "{}", r.stdout);
        // a.txt, b.txt and the three directories nothing else brings back.
        assert_eq!(r.json["entries"], 5, "{name}");
        let to = format!("py-{name}");
        py_extract(&env, name, &to);
        assert_eq!(paths(&env, &format!("{to}/proj")), want, "python, {name}");
        let ours = format!("ours-{name}");
        let x = env.run(&["archive", "extract", name, "--to", &ours]);
        assert_eq!(x.code, 0, "{}", x.stdout);
        assert_eq!(paths(&env, &format!("{ours}/proj")), want, "ours, {name}");
    }
    // An empty directory named as the source is stored itself; gz ignores it.
    let r = env.run(&["archive", "create", "e.tar", "proj/empty"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let t = Command::new("tar")
        .args(["-tf", "e.tar"])
        .current_dir(env.root())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&t.stdout), "proj/empty/\n");
    std::fs::create_dir_all(env.path("g/empty")).unwrap();
    env.write("g/one.txt", "one\n");
    let gz = env.run(&["archive", "create", "a.gz", "g"]);
    assert_eq!(gz.code, 0, "{}", gz.stdout);
    assert_eq!(gz.json["entries"], 1);
}

#[test]
fn archive_create_stores_absolute_links_inside_the_root_as_relative_ones() {
    let env = TestEnv::new();
    let root = std::fs::canonicalize(env.root()).unwrap();
    env.write("proj/d/a.txt", "alpha\n");
    let link = |target: &Path, at: &str| std::os::unix::fs::symlink(target, env.path(at)).unwrap();
    link(&root.join("proj/d/a.txt"), "proj/abs");
    link(&root.join("proj/d/a.txt"), "proj/d/same");
    link(&root.join("proj/d/../d"), "proj/d/updir");
    link(&root, "proj/top");
    link(Path::new("/etc/passwd"), "proj/out");
    link(&root.join("../elsewhere"), "proj/sibling");
    for name in ["o.tar.gz", "o.zip"] {
        let r = env.run(&["archive", "create", name, "proj"]);
        assert_eq!(r.code, 0, "{}", r.stdout);
        assert_eq!(r.json["entries"], 5, "{name}");
        assert_eq!(
            r.json["skipped"],
            json!([{"reason": "link-outside", "count": 2, "examples": ["proj/out", "proj/sibling"]}])
        );
        // Each link, extracted anywhere, leads where the original did (Python's
        // zipfile writes links as files: the zip's are read as stored).
        let want = json!({"abs": ["link", "d/a.txt"], "d": ["dir"], "d/a.txt": ["file"],
               "d/same": ["link", "a.txt"], "d/updir": ["link", "."], "top": ["link", ".."]});
        let got = if name.ends_with(".zip") {
            let list = "import zipfile, json\nz = zipfile.ZipFile('o.zip'); out = {'d': ['dir']}\nfor i in z.infolist():\n    n = i.filename[5:]\n    out[n] = ['link', z.read(i).decode()] if i.external_attr >> 28 == 0o12 else ['file']\nprint(json.dumps(out))";
            serde_json::from_str(&py(&env, list)).unwrap()
        } else {
            py_extract(&env, name, "py");
            paths(&env, "py/proj")
        };
        assert_eq!(got, want, "{name}");
        // Our extract takes them (it refuses absolute targets).
        let x = env.run(&["archive", "extract", name, "--to", &format!("ours-{name}")]);
        assert_eq!(x.code, 0, "{}", x.stdout);
        assert_eq!(env.read(&format!("ours-{name}/proj/abs")), b"alpha\n");
    }
}

#[test]
fn archive_create_takes_an_absolute_link_through_another_spelling_of_the_root() {
    // `/alias` → the root's parent: a target written through it is inside the
    // root; one through a workspace directory that links out is not.
    let env = TestEnv::new();
    let root = std::fs::canonicalize(env.root()).unwrap();
    let outer = tempfile::tempdir().unwrap();
    let alias = outer.path().join("alias");
    std::os::unix::fs::symlink(root.parent().unwrap(), &alias).unwrap();
    let name = root.file_name().unwrap();
    env.write("proj/d/a.txt", "alpha\n");
    let link = |target: &Path, at: &str| std::os::unix::fs::symlink(target, env.path(at)).unwrap();
    link(&alias.join(name).join("proj/d/a.txt"), "proj/via");
    link(
        &alias.join(name).join("proj/d/missing.txt"),
        "proj/dangling",
    );
    link(outer.path(), "proj/esc");
    link(&alias.join(name).join("proj/esc/x"), "proj/through");
    let r = env.run(&["archive", "create", "o.tar", "proj"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(
        r.json["skipped"],
        json!([{"reason": "link-outside", "count": 2, "examples": ["proj/esc", "proj/through"]}])
    );
    py_extract(&env, "o.tar", "py");
    let got = paths(&env, "py/proj");
    assert_eq!(got["via"], json!(["link", "d/a.txt"]), "{got}");
    assert_eq!(got["dangling"], json!(["link", "d/missing.txt"]), "{got}");
}

#[test]
fn archive_read_says_mode_and_truncated_as_read_does() {
    let env = TestEnv::new();
    env.write("d/lines.txt", "a\nb\nc\nd\n");
    env.write("d/long.txt", "x".repeat(40));
    assert_eq!(env.run(&["archive", "create", "l.tar", "d"]).code, 0);
    let cut = env.run(&[
        "archive",
        "read",
        "l.tar",
        "d/lines.txt",
        "--max-lines",
        "2",
    ]);
    let plain = env.run(&["read", "d/lines.txt", "--max-lines", "2"]);
    for r in [&cut, &plain] {
        assert_eq!(r.code, 3, "{}", r.stdout);
        assert_eq!(r.json["truncated"], true, "{}", r.stdout);
    }
    let whole = env.run(&["archive", "read", "l.tar", "d/lines.txt"]);
    assert_eq!(whole.code, 0, "{}", whole.stdout);
    assert!(whole.json.get("truncated").is_none() && whole.json.get("mode").is_none());
    let hex = env.run(&[
        "archive",
        "read",
        "l.tar",
        "d/lines.txt",
        "--as",
        "hex",
        "--max-lines",
        "1",
        "--range",
        "1",
    ]);
    let plain = env.run(&["read", "d/lines.txt", "--as", "hex"]);
    assert_eq!(hex.json["mode"], plain.json["mode"], "{}", hex.stdout);
    assert_eq!(hex.json["mode"], "hex");
    let cut_hex = env.run(&[
        "archive",
        "read",
        "l.tar",
        "d/long.txt",
        "--as",
        "hex",
        "--max-lines",
        "1",
    ]);
    assert_eq!(cut_hex.code, 3, "{}", cut_hex.stdout);
    assert_eq!(cut_hex.json["mode"], "hex");
    assert_eq!(cut_hex.json["truncated"], true);
}
