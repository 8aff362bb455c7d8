//! `snapshot create|diff` (checked against `diff -rq` of a copy of the tree),
//! `time now|convert|diff` (against Python's datetime/zoneinfo) and `sys
//! info|env|tools` (against uname, nproc, id, /proc/meminfo, df, which and the
//! tools' own --version).

use crate::support::{TestEnv, parse};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

fn strs(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_str().expect("str").to_string())
        .collect()
}

fn sh(cmd: &str) -> String {
    let out = Command::new("sh").args(["-c", cmd]).output().expect("sh");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The oracle: `diff -rq` of the copy taken at snapshot time and the tree now,
/// as (added, removed, modified) workspace-relative paths.
fn diff_rq(before: &Path, now: &Path) -> [BTreeSet<String>; 3] {
    let out = Command::new("diff")
        .args(["-rq", "--exclude=.git"])
        .arg(before)
        .arg(now)
        .output()
        .expect("diff");
    let text = String::from_utf8_lossy(&out.stdout);
    let (b, n) = (before.to_string_lossy(), now.to_string_lossy());
    let rel = |dir: &str, name: &str, root: &str| {
        let d = dir
            .strip_prefix(root)
            .unwrap_or(dir)
            .trim_start_matches('/');
        if d.is_empty() {
            name.to_string()
        } else {
            format!("{d}/{name}")
        }
    };
    let mut sets: [BTreeSet<String>; 3] = Default::default();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("Only in ") {
            let (dir, name) = rest.split_once(": ").expect("only in");
            if dir.starts_with(n.as_ref()) {
                sets[0].insert(rel(dir, name, &n));
            } else {
                sets[1].insert(rel(dir, name, &b));
            }
        } else if let Some(rest) = line.strip_prefix("Files ") {
            let path = rest.split(" and ").next().expect("files");
            let p = path.strip_prefix(b.as_ref()).expect("under before");
            sets[2].insert(p.trim_start_matches('/').to_string());
        }
    }
    sets
}

fn copy_tree(env: &TestEnv) -> tempfile::TempDir {
    let copy = tempfile::tempdir().expect("tempdir");
    let ok = Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", env.root().display()))
        .arg(copy.path())
        .status()
        .expect("cp")
        .success();
    assert!(ok);
    copy
}

#[test]
fn snapshot_diff_agrees_with_diff_rq_of_a_copy_ignored_files_included() {
    let env = TestEnv::new();
    env.write(".gitignore", "target/\n");
    env.write("src/a.rs", "fn a() {}\n");
    env.write("src/b.rs", "fn b() {}\n");
    env.write("src/touched.rs", "same\n");
    env.write("README.md", "hi\n");
    env.write("target/out.o", "old object\n");
    env.write("target/gone.o", "x\n");
    let all = env.run(&["snapshot", "create", "--no-ignore", "--name", "build"]);
    assert_eq!(all.code, 0, "{}", all.stdout);
    assert_eq!(all.json["snapshot_id"], "build");
    assert_eq!(all.json["files"], 7, "{}", all.stdout);
    assert_eq!(all.json["ignore_source"], "none");
    let plain = env.run(&["snapshot", "create"]);
    assert_eq!(plain.json["snapshot_id"], "snap-1", "{}", plain.stdout);
    assert_eq!(
        plain.json["files"], 5,
        "ignored target/ left out: {}",
        plain.stdout
    );
    let copy = copy_tree(&env);

    // What a build and a formatter do.
    env.write("src/a.rs", "fn a() { }\n");
    env.write("src/new.rs", "fn n() {}\n");
    std::fs::remove_file(env.path("src/b.rs")).expect("rm");
    env.write("target/out.o", "new object\n");
    env.write("target/fresh.o", "y\n");
    std::fs::remove_file(env.path("target/gone.o")).expect("rm");
    // Same bytes, new mtime: no change.
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options()
        .write(true)
        .open(env.path("src/touched.rs"))
        .and_then(|f| f.set_modified(later))
        .expect("touch");
    // Same size, same mtime as recorded is taken as unchanged; a same-size edit
    // with a new mtime is found.
    env.write("README.md", "HI\n");

    let [added, removed, modified] = diff_rq(copy.path(), env.root());
    let d = env.run(&["snapshot", "diff", "build"]);
    assert_eq!(d.code, 0, "{}", d.stdout);
    assert_eq!(strs(&d.json["added"]), added, "{}", d.stdout);
    assert_eq!(strs(&d.json["removed"]), removed, "{}", d.stdout);
    assert_eq!(strs(&d.json["modified"]), modified, "{}", d.stdout);
    assert!(strs(&d.json["modified"]).contains("target/out.o"));
    assert!(!strs(&d.json["modified"]).contains("src/touched.rs"));

    // The default snapshot reuses its scan: ignored files stay out.
    let p = env.run(&["snapshot", "diff", "snap-1"]);
    let in_target = |v: &Value| strs(v).iter().any(|x| x.starts_with("target/"));
    assert!(
        !in_target(&p.json["added"]) && !in_target(&p.json["modified"]),
        "{}",
        p.stdout
    );
    assert_eq!(
        strs(&p.json["added"]),
        BTreeSet::from(["src/new.rs".to_string()])
    );
    // Nothing was journaled.
    assert_eq!(env.run(&["history"]).json["total"], 0);
}

/// `proj/` with a small file, a file over 1 KiB, a symlink to the small file, a
/// FIFO and a socket: what `--skip-larger-than 1KiB` and the kinds leave out.
pub fn left_out_tree(env: &TestEnv) -> std::os::unix::net::UnixListener {
    env.write("proj/small.txt", "s\n");
    env.write("proj/big.bin", vec![b'x'; 4096]);
    std::os::unix::fs::symlink("small.txt", env.path("proj/link")).expect("symlink");
    let made = Command::new("mkfifo")
        .arg(env.path("proj/pipe"))
        .status()
        .expect("mkfifo");
    assert!(made.success());
    std::os::unix::net::UnixListener::bind(env.path("proj/sock")).expect("socket")
}

/// Nothing is left out silently: the file over the limit, the link (never
/// recorded) and the FIFO and socket are each said, grouped as search says them.
#[test]
fn snapshot_create_says_what_it_left_out() {
    let env = TestEnv::new();
    let _sock = left_out_tree(&env);
    let r = env.run(&["snapshot", "create", "proj", "--skip-larger-than", "1KiB"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["files"], 1, "{}", r.stdout);
    assert_eq!(
        r.json["skipped"],
        serde_json::json!([
            {"reason": "not-a-file", "count": 2, "examples": ["proj/pipe", "proj/sock"]},
            {"reason": "symlink", "count": 1, "examples": ["proj/link"]},
            {"reason": "too-large", "count": 1, "examples": ["proj/big.bin"]},
        ])
    );
    // A tree with nothing to leave out answers no skipped at all.
    env.write("clean/a.txt", "a\n");
    let r = env.run(&["snapshot", "create", "clean"]);
    assert_eq!(r.json["files"], 1, "{}", r.stdout);
    assert!(r.json.get("skipped").is_none(), "{}", r.stdout);
}

#[test]
fn snapshot_diff_is_bounded_with_a_continuation_and_gc_retires_old_records() {
    let env = TestEnv::new();
    env.write("keep.txt", "k\n");
    let s = env.run(&["snapshot", "create", "."]);
    assert_eq!(s.code, 0, "{}", s.stdout);
    for i in 0..5 {
        env.write(&format!("gen/f{i}.txt"), "x\n");
    }
    let d = env.run(&["snapshot", "diff", "snap-1", "--limit", "2"]);
    assert_eq!(d.code, 3, "{}", d.stdout);
    assert_eq!(d.json["truncated"], true);
    assert_eq!(d.json["added"].as_array().map(Vec::len), Some(2));
    assert_eq!(d.json["counts"]["added"], 5);
    let next = d.json["next_commands"][0].as_str().expect("next");
    let full = env.run_line(next);
    assert_eq!(full.code, 0, "{}", full.stdout);
    assert_eq!(full.json["added"].as_array().map(Vec::len), Some(5));

    // Bad names and unknown ids.
    let bad = env.run(&["snapshot", "create", "--name", "../x"]);
    assert_eq!(bad.error_code(), "argument.invalid", "{}", bad.stdout);
    let missing = env.run(&["snapshot", "diff", "snap-9"]);
    assert_eq!(missing.error_code(), "input.not-found");
    let repair = missing.json["error"]["repairs"][0]["command"]
        .as_str()
        .expect("repair");
    assert_eq!(env.run_line(repair).code, 0);

    // gc: a record older than a week goes, a fresh one stays.
    let rec = env.ws_state().join("snapshots").join("snap-1.json");
    assert!(rec.is_file(), "{rec:?}");
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(8 * 24 * 3600);
    std::fs::File::options()
        .write(true)
        .open(&rec)
        .and_then(|f| f.set_modified(old))
        .expect("age");
    let gc = env.run(&["gc"]);
    assert_eq!(gc.json["snapshots_removed"], 1, "{}", gc.stdout);
    assert_eq!(
        env.run(&["snapshot", "diff", "snap-1"]).error_code(),
        "input.not-found"
    );
    assert_eq!(env.run(&["snapshot", "diff", "snap-2"]).code, 0);
}

fn python(script: &str) -> String {
    let out = Command::new("python3")
        .args(["-c", script])
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

const ZONES: &[&str] = &[
    "UTC",
    "Asia/Tokyo",
    "America/New_York",
    "Europe/London",
    "Australia/Lord_Howe",
    "America/Sao_Paulo",
    "Asia/Kolkata",
    "America/St_Johns",
];

#[test]
fn time_convert_agrees_with_python_zoneinfo() {
    let env = TestEnv::new();
    // Instants: around DST changes, far past and future (past the TZif
    // transitions, where the POSIX footer rule applies), with milliseconds.
    let instants: &[i64] = &[
        0,
        1_772_953_199_000,
        1_772_953_200_000,
        1_793_512_799_999,
        1_796_000_000_123,
        2_500_000_000_000,
        4_102_444_800_500,
        100_000_000_000,
    ];
    let walls = [
        "2026-03-08T02:30:00", // skipped in New York
        "2026-11-01T01:30:00", // repeated in New York
        "2026-03-29T01:30:00", // skipped in London
        "2026-10-25T01:30:00", // repeated in London
        "2026-04-05T01:45:00", // repeated on Lord Howe (half-hour DST)
        "2099-07-01T12:00:00",
        "1999-12-31T23:59:59",
    ];
    let script = format!(
        r#"
from datetime import datetime, timezone
from zoneinfo import ZoneInfo
for z in {zones:?}:
    tz = ZoneInfo(z)
    for ms in {instants:?}:
        d = datetime.fromtimestamp(ms // 1000, tz).replace(microsecond=(ms % 1000) * 1000)
        s = d.isoformat(timespec='milliseconds' if ms % 1000 else 'seconds')
        print('I', z, ms, s)
    for w in {walls:?}:
        d = datetime.fromisoformat(w).replace(tzinfo=tz)
        print('W', z, w, int(d.timestamp()) * 1000)
"#,
        zones = ZONES,
        instants = instants,
        walls = walls,
    );
    let mut checked = 0;
    for line in python(&script).lines() {
        let parts: Vec<&str> = line.split(' ').collect();
        let [kind, zone, input, want] = parts[..] else {
            panic!("{line}")
        };
        let r = if kind == "I" {
            env.run(&["time", "convert", input, "--tz", zone])
        } else {
            env.run(&["time", "convert", input, "--tz", zone, "--to", "epoch_ms"])
        };
        assert_eq!(r.code, 0, "{line}: {}", r.stderr);
        let got = match &r.json["result"] {
            Value::String(s) => s.clone(),
            v => v.to_string(),
        };
        assert_eq!(got, want, "{kind} {zone} {input}");
        checked += 1;
    }
    assert_eq!(checked, ZONES.len() * (instants.len() + walls.len()));
}

#[test]
fn time_now_diff_and_shifts() {
    let env = TestEnv::new();
    // AITOOLS_FIXED_TIME=1796000000 in every test call.
    let now = env.run(&["time", "now", "--tz", "Asia/Tokyo"]);
    assert_eq!(now.code, 0, "{}", now.stdout);
    assert_eq!(now.json["epoch_ms"], 1_796_000_000_000i64);
    assert_eq!(now.json["utc"], "2026-11-30T00:53:20Z");
    assert_eq!(now.json["iso8601"], "2026-11-30T09:53:20+09:00");
    assert_eq!(now.json["utc_offset"], "+09:00");
    assert_eq!(now.json["abbreviation"], "JST");
    let ny = env.run(&["time", "now", "--tz", "America/New_York"]);
    assert_eq!(ny.json["abbreviation"], "EST");

    let c = env.run(&[
        "time",
        "convert",
        "20260308T013000Z",
        "--add",
        "1d",
        "--add",
        "90m",
        "--sub",
        "500ms",
        "--to",
        "epoch_s",
    ]);
    assert_eq!(c.json["input_format"], "iso8601");
    let want = python(
        "from datetime import datetime, timedelta, timezone\n\
         d = datetime(2026,3,8,1,30,tzinfo=timezone.utc) + timedelta(days=1, minutes=90, milliseconds=-500)\n\
         import math; print(math.floor(d.timestamp()))",
    );
    assert_eq!(c.json["result"].to_string(), want.trim());
    let e = env.run(&["time", "convert", "1796000000.5", "--tz", "UTC"]);
    assert_eq!(e.json["input_format"], "epoch_s");
    assert_eq!(e.json["result"], "2026-11-30T00:53:20.500+00:00");

    let d = env.run(&[
        "time",
        "diff",
        "2026-01-01T00:00:00Z",
        "2026-01-02T01:23:00.5+00:00",
    ]);
    assert_eq!(d.json["diff_ms"], 91_380_500);
    assert_eq!(d.json["human"], "1d1h23m500ms");
    let back = env.run(&["time", "diff", "now", "2026-11-30T00:52:20Z"]);
    assert_eq!(back.json["diff_ms"], -60_000);
    assert_eq!(back.json["human"], "-1m");

    for bad in ["2026-02-30", "2026-01-01T24:00", "yesterday", "12:00"] {
        let r = env.run(&["time", "convert", bad]);
        assert_eq!(r.error_code(), "input.syntax-error", "{bad}: {}", r.stdout);
    }
    for zone in ["Mars/Olympus", "../../etc/passwd", "/etc/localtime"] {
        let r = env.run(&["time", "now", "--tz", zone]);
        assert_eq!(r.error_code(), "argument.invalid", "{zone}: {}", r.stdout);
        let fix = r.json["error"]["repairs"][0]["command"]
            .as_str()
            .expect("repair");
        assert_eq!(env.run_line(fix).code, 0);
    }
}

#[test]
fn sys_info_agrees_with_uname_proc_and_df() {
    let env = TestEnv::new();
    let r = env.run(&["sys", "info"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let j = &r.json;
    assert_eq!(j["os"], sh("uname -s").to_lowercase());
    assert_eq!(j["os_version"], sh("uname -r"));
    assert_eq!(j["arch"], sh("uname -m"));
    assert_eq!(j["hostname"], sh("uname -n"));
    assert_eq!(j["cpus"].to_string(), sh("getconf _NPROCESSORS_ONLN"));
    assert_eq!(j["uid"].to_string(), sh("id -u"));
    assert_eq!(j["user"], sh("id -un"));
    let mem_kib: u64 = sh("awk '/^MemTotal:/ {print $2}' /proc/meminfo")
        .parse()
        .expect("meminfo");
    assert_eq!(j["memory"]["total"], mem_kib * 1024);
    let df_total: u64 = sh(&format!(
        "df -B1 --output=size '{}' | tail -1",
        env.root().display()
    ))
    .trim()
    .parse()
    .expect("df");
    assert_eq!(j["disk"]["total"], df_total);
}

#[test]
fn sys_env_masks_secret_values_through_the_one_mask() {
    let env = TestEnv::new();
    let token = "ghp_R8fKq2LmZ7xVb4NcT9wYs1JdH6pQe3UaG5kE";
    let mut c = env.command(&["sys", "env", "ZZT_"]);
    c.env("ZZT_PLAIN", "hello world")
        .env("ZZT_DB_PASSWORD", "hunter2-Kq8v")
        .env("ZZT_NOTE", format!("token is {token}"));
    let r = parse(c.output().expect("spawn"));
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(
        !r.stdout.contains("hunter2") && !r.stdout.contains(token),
        "{}",
        r.stdout
    );
    let names: Vec<&str> = r.json["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["ZZT_DB_PASSWORD", "ZZT_NOTE", "ZZT_PLAIN"]);
    assert_eq!(r.json["items"][2]["value"], "hello world");
    assert_eq!(r.json["items"][0]["value"], "[REDACTED_SECRET]");
    assert_eq!(r.json["total"], 3);
    assert!(
        r.json["redactions"].as_u64().unwrap_or(0) >= 2,
        "{}",
        r.stdout
    );
    // Without a prefix: every variable `env` lists.
    let all = env.run(&["sys", "env"]);
    assert!(
        all.json["total"].as_u64().unwrap_or(0) > 3,
        "{}",
        all.stdout
    );
}

#[test]
fn sys_tools_agrees_with_which_and_version() {
    let env = TestEnv::new();
    let r = env.run(&["sys", "tools", "git", "sh", "no-such-tool-zz"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let items = r.json["items"].as_array().expect("items");
    assert_eq!(items.len(), 3);
    assert_eq!(items[0]["path"], sh("command -v git"));
    let git_version = sh("git --version | head -1");
    assert_eq!(items[0]["version"], git_version);
    assert_eq!(items[1]["path"], sh("command -v sh"));
    assert_eq!(items[2]["path"], Value::Null);
    assert_eq!(items[2]["version"], Value::Null);
    assert_eq!(r.json["found"], 2);
    // The default list answers in one call.
    let d = env.run(&["sys", "tools"]);
    assert_eq!(d.code, 0, "{}", d.stdout);
    assert!(d.json["total"].as_u64().unwrap_or(0) >= 10);
    let bad = env.run(&["sys", "tools", "/bin/sh"]);
    assert_eq!(bad.error_code(), "argument.invalid");
}

#[test]
fn util_codecs_tokens_and_uuids_agree_with_python() {
    let env = TestEnv::new();
    let samples = [
        "hi there?",
        "a b/ü~-._!*'()",
        "",
        "€uro\n\tline two\r\n",
        "x",
    ];
    for s in samples {
        let want = python(&format!(
            "import base64, urllib.parse, json\ns = json.loads({q:?})\nb = s.encode()\nprint(base64.b64encode(b).decode()); print(urllib.parse.quote(b, safe='-._~')); print(b.hex())",
            q = serde_json::to_string(s).expect("json")
        ));
        let want: Vec<&str> = want.split('\n').collect();
        for (i, scheme) in ["base64", "url", "hex"].iter().enumerate() {
            let e = env.run(&["util", "encode", scheme, "--content", s]);
            assert_eq!(e.code, 0, "{}", e.stderr);
            assert_eq!(e.json["output"], want[i], "{scheme} {s:?}");
            let d = env.run(&["util", "decode", scheme, "--content", want[i]]);
            assert_eq!(d.json["output"], s, "{scheme} {s:?}");
            assert_eq!(d.json["bytes"], s.len());
        }
    }
    let bin = env.run(&["util", "decode", "base64", "--content", "/wA="]);
    assert_eq!(bin.json["binary"], true);
    assert_eq!(bin.json["output_hex"], "ff00");
    for (scheme, bad) in [("base64", "abc"), ("hex", "zz"), ("url", "%g1")] {
        let r = env.run(&["util", "decode", scheme, "--content", bad]);
        assert_eq!(r.error_code(), "input.syntax-error", "{scheme} {bad}");
    }

    // tokens against wc and Python; from a file and from stdin alike.
    let text = "alpha beta\r\n  gamma\tδέλτα\n\nlast line without newline";
    env.write("t.txt", text);
    let f = env.run(&["util", "tokens", "--content-file", "t.txt"]);
    let s = env.run_stdin(&["util", "tokens", "--stdin"], text.as_bytes());
    assert_eq!(f.json, s.json);
    let wc_w: u64 = sh(&format!("wc -w < '{}'", env.path("t.txt").display()))
        .parse()
        .expect("wc");
    let wc_l: u64 = sh(&format!("wc -l < '{}'", env.path("t.txt").display()))
        .parse()
        .expect("wc");
    assert_eq!(f.json["words"], wc_w);
    assert_eq!(
        f.json["lines"],
        wc_l + 1,
        "an unterminated last line counts"
    );
    assert_eq!(f.json["bytes"], text.len());
    let chars = text.chars().count() as u64;
    assert_eq!(f.json["chars"], chars);
    assert_eq!(f.json["approx_tokens"], chars.div_ceil(4));
    assert_eq!(f.json["max_line_chars"], 25);
    assert_eq!(
        env.run(&["util", "tokens", "--content-file", "nope"])
            .error_code(),
        "input.not-found"
    );
    assert_eq!(
        env.run(&["util", "tokens"]).error_code(),
        "argument.invalid"
    );

    // redact: the one mask, with its count.
    let r = env.run(&[
        "util",
        "redact",
        "--content",
        "id AKIAIOSFODNN7EXAMPLX and password=Zx9kQ2mLp8Rt4vWb7N",
    ]);
    assert_eq!(
        r.json["text"], "id [REDACTED_SECRET] and password=[REDACTED_SECRET]",
        "{}",
        r.stdout
    );
    assert_eq!(r.json["redactions"], 2);

    // uuids: Python's uuid module reads their version and variant.
    for kind in ["v4", "v7"] {
        let u = env.run(&["util", "uuid", "--kind", kind, "--count", "50"]);
        let vals: Vec<String> = u.json["values"]
            .as_array()
            .expect("values")
            .iter()
            .map(|v| v.as_str().expect("str").to_string())
            .collect();
        assert_eq!(vals.len(), 50);
        let checked = python(&format!(
            "import uuid\nvs = {vals:?}\nprint(all(uuid.UUID(v).version == {n} and uuid.UUID(v).variant == uuid.RFC_4122 and str(uuid.UUID(v)) == v for v in vs), len(set(vs)))",
            n = &kind[1..]
        ));
        assert_eq!(checked.trim(), "True 50", "{kind}");
        if kind == "v7" {
            assert!(vals.windows(2).all(|w| w[0] < w[1]), "v7 increases");
            // The aitools clock: AITOOLS_FIXED_TIME=1796000000 → its milliseconds.
            assert!(
                vals[0]
                    .replace('-', "")
                    .starts_with(&format!("{:012x}", 1_796_000_000_000u64))
            );
        }
    }
    assert_eq!(
        env.run(&["util", "uuid", "--count", "0"]).error_code(),
        "argument.invalid"
    );
}

/// A `PATH` with an empty or relative entry names the tree aitools runs in: a
/// program planted in a repository must not be what `sys tools`, `code refs
/// --lsp` or the git runner start.
#[test]
fn a_relative_path_entry_never_runs_a_program_planted_in_the_repository() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    let marker = env.state.path().join("planted-ran");
    for name in ["git", "pyright-langserver"] {
        let p = env.write(name, format!("#!/bin/sh\ntouch '{}'\n", marker.display()));
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    env.write("a.py", "def foo():\n    return 1\n\nfoo()\n");
    let path = format!(".::{}", std::env::var("PATH").unwrap_or_default());
    let run = |args: &[&str]| {
        let mut c = env.command(args);
        c.env("PATH", &path);
        parse(c.output().expect("spawn"))
    };
    let t = run(&["sys", "tools", "git"]);
    let git = t.json["items"][0]["path"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(git.starts_with('/'), "{}", t.stdout);
    run(&["code", "refs", "foo", "--lsp", "--lsp-timeout", "5"]);
    let st = run(&["git", "status"]);
    assert_eq!(st.code, 0, "{}", st.stdout);
    assert!(!marker.exists(), "a program planted in the repository ran");
}

/// An encoding of a secret is the secret: `util encode` and a binary `util
/// decode` mask what they are given before they show it in hex or base64.
#[test]
fn util_encodings_never_carry_a_secret_past_the_mask() {
    let token = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789";
    let env = TestEnv::new();
    env.write(".env", format!("API_KEY={token}\nX=1\n"));
    let unhex = |h: &str| -> Vec<u8> {
        (0..h.len() / 2)
            .map(|i| u8::from_str_radix(&h[2 * i..2 * i + 2], 16).expect("hex"))
            .collect()
    };
    let shown = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).to_string();
    let hex = env.run(&["util", "encode", "hex", "--content-file", ".env"]);
    assert!(hex.json["redactions"].as_u64() >= Some(1), "{}", hex.stdout);
    assert!(!shown(unhex(hex.json["output"].as_str().expect("output"))).contains(token));
    let b64 = env.run(&["util", "encode", "base64", "--content-file", ".env"]);
    let out = b64.json["output"].as_str().expect("output").to_string();
    let back = sh(&format!(
        "printf %s '{out}' | base64 -d 2>/dev/null || true"
    ));
    assert!(
        !back.contains(token) && !b64.stdout.contains(token),
        "{}",
        b64.stdout
    );
    let binary: String = format!("{token}\u{1}")
        .bytes()
        .chain([0xff])
        .map(|b| format!("{b:02x}"))
        .collect();
    let d = env.run(&["util", "decode", "hex", "--content", &binary]);
    assert_eq!(d.json["binary"], true, "{}", d.stdout);
    assert!(!shown(unhex(d.json["output_hex"].as_str().expect("hex"))).contains(token));
    assert!(d.json["redactions"].as_u64() >= Some(1), "{}", d.stdout);
}
