//! `read` and `info`, black-box, with sha256sum and sed as oracles.

use crate::support::{TestEnv, sha256sum};

#[test]
fn read_pages_and_continues_exactly() {
    let env = TestEnv::new();
    let body: String = (1..=200).map(|i| format!("{i}\n")).collect();
    let p = env.write("nums.txt", &body);
    let first = env.run(&["read", "nums.txt", "--max-lines", "3"]);
    assert_eq!(first.code, 3);
    assert_eq!(first.json["status"], "partial");
    assert_eq!(first.lines(), vec!["1", "2", "3"]);
    assert_eq!(first.json["total_lines"], 200);
    assert_eq!(first.json["truncated"], true);
    assert_eq!(first.json["hash"], sha256sum(&p)[..12]);
    // The caller has the lines it paid for: no approx_tokens (info gives it before a read).
    assert!(first.json.get("approx_tokens").is_none());
    let next = first.json["next_commands"][0].as_str().unwrap();
    // The continuation keeps the selection's end: it is partial again until done.
    assert_eq!(next, "aitools read nums.txt --range 4:200 --max-lines 3");
    let argv: Vec<&str> = next.split(' ').skip(1).collect();
    let second = env.run(&argv);
    assert_eq!(second.lines(), vec!["4", "5", "6"]);
    assert_eq!(second.code, 3);
    let tail = env.run(&["read", "nums.txt", "--tail", "2"]);
    assert_eq!(tail.code, 0);
    assert_eq!(tail.lines(), vec!["199", "200"]);
    assert_eq!(tail.json["start_line"], 199);
}

#[test]
fn bom_and_crlf_are_never_part_of_a_line() {
    let env = TestEnv::new();
    env.write("w.txt", b"\xEF\xBB\xBFfirst\r\nsecond\r\nthird");
    let r = env.run(&["read", "w.txt"]);
    assert_eq!(r.lines(), vec!["first", "second", "third"]);
    assert_eq!(r.json["total_lines"], 3);
}

#[test]
fn binary_and_directories() {
    let env = TestEnv::new();
    env.write("b.bin", b"\x89PNG\r\n\x1a\n\x00\x00\x01");
    let r = env.run(&["read", "b.bin"]);
    assert_eq!(r.json["binary"], true);
    assert_eq!(r.json["mime"], "image/png");
    std::fs::create_dir(env.path("d")).unwrap();
    let d = env.run(&["read", "d"]);
    assert_eq!(d.error_code(), "refusal.not-a-file");
    let m = env.run(&["read", "missing.txt"]);
    assert_eq!(m.error_code(), "input.not-found");
}

#[test]
fn paths_relative_to_cwd_reported_relative_to_root() {
    let env = TestEnv::new();
    env.write("sub/x.txt", "hi\n");
    let r = env.run_in(&env.path("sub"), &["read", "x.txt"]);
    assert_eq!(r.json["path"], "sub/x.txt");
    let outside = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(outside.path(), "o\n").unwrap();
    let o = env.run(&["read", outside.path().to_str().unwrap()]);
    let real = std::fs::canonicalize(outside.path()).unwrap();
    assert_eq!(o.json["path"], real.to_str().unwrap());
}

// ---- read: selectors, views, encodings, cuts, refusals ------------------------

use std::process::Command;

/// stdout of an oracle command, run in `dir`.
fn oracle(dir: &std::path::Path, cmd: &str, args: &[&str]) -> String {
    let out = Command::new(cmd)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{cmd}: {e}"));
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// Runs a `next_commands` entry through sh, as an agent would.
fn run_next(env: &TestEnv, command: &str) -> crate::support::Run {
    env.run_line(command)
}

#[test]
fn match_returns_line_numbers_like_grep_and_continues_exactly() {
    let env = TestEnv::new();
    let body: String = (1..=300).map(|i| format!("row {i}\n")).collect();
    env.write("rows.txt", &body);
    let grep = oracle(env.root(), "grep", &["-n", "-E", "7$", "rows.txt"]);
    let want: Vec<(u64, String)> = grep
        .lines()
        .map(|l| {
            let (n, t) = l.split_once(':').unwrap();
            (n.parse().unwrap(), t.to_string())
        })
        .collect();
    assert_eq!(want.len(), 30);
    let mut got: Vec<(u64, String)> = Vec::new();
    let mut r = env.run(&["read", "rows.txt", "--match", "7$", "--max-lines", "7"]);
    loop {
        let nums = r.json["line_numbers"].as_array().unwrap().clone();
        assert_eq!(r.json["start_line"], nums[0]);
        for (n, t) in nums.iter().zip(r.lines()) {
            got.push((n.as_u64().unwrap(), t));
        }
        match r.json["next_commands"][0].as_str() {
            Some(next) => {
                assert_eq!(r.code, 3);
                assert!(
                    next.contains("--from-line") && next.contains("--max-lines 7"),
                    "{next}"
                );
                r = run_next(&env, next);
            }
            None => break,
        }
    }
    assert_eq!(got, want);
    let inv = env.run(&["read", "rows.txt", "--match", "[0-9]", "--invert"]);
    assert_eq!(inv.error_code(), "selection.no-match");
    assert_eq!(inv.code, 2);
    let inv = env.run(&[
        "read",
        "rows.txt",
        "--match",
        "^row [0-9]{3}$",
        "--invert",
        "--max-lines",
        "500",
    ]);
    assert_eq!(inv.json["line_numbers"].as_array().unwrap().len(), 99);
    let bad = env.run(&["read", "rows.txt", "--match", "("]);
    assert_eq!(bad.error_code(), "input.syntax-error");
}

#[test]
fn between_and_exclusive_and_continuation() {
    let env = TestEnv::new();
    env.write("b.txt", "a\nBEGIN\nx1\nx2\nx3\nx4\nEND\nz\nEND\n");
    let r = env.run(&["read", "b.txt", "--between", "^BEGIN$", "^END$"]);
    assert_eq!(r.lines(), vec!["BEGIN", "x1", "x2", "x3", "x4", "END"]);
    assert_eq!(r.json["start_line"], 2);
    let e = env.run(&[
        "read",
        "b.txt",
        "--between",
        "^BEGIN$",
        "^END$",
        "--exclusive",
        "--max-lines",
        "3",
    ]);
    assert_eq!(e.code, 3);
    assert_eq!(e.lines(), vec!["x1", "x2", "x3"]);
    let next = e.json["next_commands"][0].as_str().unwrap();
    assert_eq!(next, "aitools read b.txt --range 6:6 --max-lines 3");
    let n = run_next(&env, next);
    assert_eq!(n.lines(), vec!["x4"]);
    let missing_end = env.run(&["read", "b.txt", "--between", "^x1$", "^nope$"]);
    assert_eq!(missing_end.error_code(), "selection.no-match");
    assert_eq!(
        missing_end.json["error"]["repairs"][0]["command"],
        "aitools read b.txt --range 3:"
    );
}

#[test]
fn one_selector_per_call_and_flag_pairs() {
    let env = TestEnv::new();
    env.write("a.txt", "1\n2\n");
    for argv in [
        vec!["read", "a.txt", "--range", "1", "--tail", "1"],
        vec!["read", "a.txt", "--match", "1", "--tail", "1"],
        vec![
            "read", "a.txt", "--match", "1", "--range", "1:2", "--symbol", "f",
        ],
        vec!["read", "a.txt", "--between", "1", "2", "--symbol", "f"],
        vec!["read", "a.txt", "--symbol", "f", "--tail", "2"],
        vec!["read", "a.txt", "--invert"],
        vec!["read", "a.txt", "--exclusive"],
        vec!["read", "a.txt", "--kind", "function"],
        vec!["read", "a.txt", "--between", "1"],
        vec!["read", "a.txt", "--bytes", "0:4"],
        vec!["read", "a.txt", "--as", "hex", "--range", "1"],
        vec!["read", "a.txt", "--as", "hex", "--bytes", "5:2"],
        vec!["read", "a.txt", "--as", "hex", "--bytes", "-1:"],
        vec!["read", "a.txt", "--as", "strings", "--encoding", "euc-jp"],
        vec!["read", "a.txt", "--encoding", "koi8-r"],
        vec!["read", "a.txt", "--tail", "0"],
        vec!["read", "a.txt", "--tail", "+3"],
    ] {
        let r = env.run(&argv);
        assert_eq!(r.error_code(), "argument.invalid", "{argv:?}: {}", r.stderr);
    }
}

#[test]
fn hex_rows_match_od_and_continue() {
    let env = TestEnv::new();
    let bytes: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(env.path("d.bin"), &bytes).unwrap();
    let r = env.run(&[
        "read",
        "d.bin",
        "--as",
        "hex",
        "--bytes",
        "100:",
        "--max-lines",
        "4",
    ]);
    assert_eq!(r.code, 3);
    assert_eq!(r.json["mode"], "hex");
    assert_eq!(r.json["size"], 1000);
    let od = oracle(
        env.root(),
        "od",
        &[
            "-An", "-tx1", "-v", "-w16", "-j", "100", "-N", "64", "d.bin",
        ],
    );
    let want: Vec<String> = od.lines().map(|l| l.trim().to_string()).collect();
    let rows = r.json["rows"].as_array().unwrap();
    let got: Vec<String> = rows
        .iter()
        .map(|r| r["hex"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(got, want);
    assert_eq!(rows[1]["offset"], 116);
    let next = r.json["next_commands"][0].as_str().unwrap();
    assert_eq!(
        next,
        "aitools read d.bin --as hex --bytes 164: --max-lines 4"
    );
    let dflt = env.run(&["read", "d.bin", "--as", "hex"]);
    assert_eq!(dflt.json["rows"].as_array().unwrap().len(), 16);
    assert_eq!(dflt.json["end"], 256);
    assert_eq!(
        dflt.json["next_commands"][0],
        "aitools read d.bin --as hex --bytes 256:512"
    );
}

#[test]
fn strings_match_gnu_strings_on_ascii() {
    let env = TestEnv::new();
    let mut data = Vec::new();
    for i in 0..50u32 {
        data.extend_from_slice(format!("word{i} with\ttab").as_bytes());
        data.extend_from_slice(&[0, 1, 0x80 + (i % 40) as u8, 2]);
        data.extend_from_slice(b"ab\x00");
    }
    std::fs::write(env.path("s.bin"), &data).unwrap();
    let gnu = oracle(
        env.root(),
        "strings",
        &["-a", "-n", "4", "-t", "d", "s.bin"],
    );
    let want: Vec<(u64, String)> = gnu
        .lines()
        .map(|l| {
            let l = l.trim_start();
            let (o, t) = l.split_once(' ').unwrap();
            (o.parse().unwrap(), t.to_string())
        })
        .collect();
    let mut got = Vec::new();
    let mut r = env.run(&["read", "s.bin", "--as", "strings", "--max-lines", "15"]);
    loop {
        for s in r.json["strings"].as_array().unwrap() {
            got.push((
                s["offset"].as_u64().unwrap(),
                s["text"].as_str().unwrap().to_string(),
            ));
        }
        match r.json["next_commands"][0].as_str() {
            Some(n) => r = run_next(&env, n),
            None => break,
        }
    }
    assert_eq!(got, want);
}

#[test]
fn escape_invisible_shows_what_cat_a_would() {
    let env = TestEnv::new();
    env.write("i.txt", "a\u{200B}b\u{A0}c\u{3000}d\te\r\nplain\n");
    let r = env.run(&["read", "i.txt", "--escape-invisible"]);
    assert_eq!(
        r.lines(),
        vec![
            "a\\u{200B}b\\u{00A0}c\\u{3000}d\\u{0009}e\\u{000D}".to_string(),
            "plain".to_string()
        ]
    );
    let plain = env.run(&["read", "i.txt"]);
    assert_eq!(plain.lines()[0], "a\u{200B}b\u{A0}c\u{3000}d\te");
}

#[test]
fn encodings_decode_to_the_same_text_as_iconv() {
    let env = TestEnv::new();
    let text = "日本語の行\nカタカナ ｶﾀｶﾅ\nascii\n";
    for (enc, iconv_name) in [
        ("shift_jis", "SHIFT_JIS"),
        ("euc-jp", "EUC-JP"),
        ("utf-16le", "UTF-16LE"),
        ("utf-16be", "UTF-16BE"),
    ] {
        let out = Command::new("sh")
            .args([
                "-c",
                &format!("printf '%s' \"$T\" | iconv -f UTF-8 -t {iconv_name}"),
            ])
            .env("T", text)
            .output()
            .unwrap();
        assert!(out.status.success());
        let name = format!("{enc}.txt");
        let p = env.write(&name, &out.stdout);
        let r = env.run(&["read", &name, "--encoding", enc]);
        assert_eq!(
            r.lines(),
            vec!["日本語の行", "カタカナ ｶﾀｶﾅ", "ascii"],
            "{enc}"
        );
        assert_eq!(r.json["encoding"], enc);
        assert!(r.json.get("encoding_errors").is_none(), "{}", r.stdout);
        assert_eq!(
            r.json["hash"],
            sha256sum(&p)[..12],
            "{enc}: hash is of the raw bytes"
        );
        let info = env.run(&["info", &name]);
        assert_eq!(info.json["encoding_guess"], enc, "{enc}");
    }
    // True Latin-1: 0x80 is U+0080, not the euro sign of windows-1252.
    env.write("l1.txt", b"caf\xe9 \x80\n");
    let l = env.run(&["read", "l1.txt", "--encoding", "iso-8859-1"]);
    assert_eq!(l.lines(), vec!["café \u{80}"]);
    let bad = env.run(&["read", "l1.txt"]);
    assert_eq!(bad.json["encoding_errors"], 2);
}

#[test]
fn long_lines_are_cut_and_the_rest_is_a_hex_dump_away() {
    let env = TestEnv::new();
    let long: String = (0..20000)
        .map(|i| (b'a' + (i % 26) as u8) as char)
        .collect();
    let p = env.write("long.txt", format!("short\n{long}\nafter\n"));
    let r = env.run(&["read", "long.txt"]);
    assert_eq!(r.code, 3);
    assert_eq!(r.json["cut_lines"], serde_json::json!([2]));
    assert_eq!(r.json["truncated"], true);
    assert_eq!(r.lines()[1].len(), 16384);
    assert_eq!(r.lines()[2], "after");
    let next = r.json["next_commands"][0].as_str().unwrap();
    let cut_at = 6 + 16384;
    assert_eq!(
        next,
        format!(
            "aitools read long.txt --as hex --bytes {cut_at}:{}",
            cut_at + 256
        )
    );
    let h = run_next(&env, next);
    let first = h.json["rows"][0]["hex"].as_str().unwrap().replace(' ', "");
    let bytes = std::fs::read(&p).unwrap();
    let want: String = bytes[cut_at..cut_at + 16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(first, want);
}

#[test]
fn missing_files_get_candidates() {
    let env = TestEnv::new();
    env.write("src/main.rs", "fn main() {}\n");
    env.write("docs/deep/config.toml", "x = 1\n");
    let r = env.run(&["read", "src/mian.rs"]);
    assert_eq!(r.error_code(), "input.not-found");
    assert_eq!(r.json["error"]["candidates"][0], "src/main.rs");
    assert_eq!(
        r.json["error"]["repairs"][0]["command"],
        "aitools read src/main.rs"
    );
    let elsewhere = env.run(&["read", "config.toml", "--max-lines", "5"]);
    assert_eq!(
        elsewhere.json["error"]["candidates"][0],
        "docs/deep/config.toml"
    );
    assert_eq!(
        elsewhere.json["error"]["repairs"][0]["command"],
        "aitools read docs/deep/config.toml --max-lines 5"
    );
    let none = env.run(&["info", "zzzzqqq.bin"]);
    assert_eq!(none.error_code(), "input.not-found");
    assert!(none.json["error"].get("candidates").is_none());
}

#[test]
fn fifos_devices_and_directories_are_refused_without_opening() {
    let env = TestEnv::new();
    assert!(
        Command::new("mkfifo")
            .arg(env.path("pipe"))
            .status()
            .unwrap()
            .success()
    );
    // Opening the FIFO for reading would block forever: a timeout catches that.
    let out = Command::new("timeout")
        .args(["5", crate::support::bin().to_str().unwrap(), "read", "pipe"])
        .current_dir(env.root())
        .env("XDG_STATE_HOME", env.state.path())
        .output()
        .unwrap();
    let r = crate::support::parse(out);
    assert_eq!(r.error_code(), "refusal.not-a-file");
    for argv in [
        vec!["read", "pipe", "--as", "hex"],
        vec!["read", "/dev/null"],
        vec!["read", "."],
    ] {
        let r = env.run(&argv);
        assert_eq!(r.error_code(), "refusal.not-a-file", "{argv:?}");
    }
    let out = Command::new("timeout")
        .args(["5", crate::support::bin().to_str().unwrap(), "info", "pipe"])
        .current_dir(env.root())
        .env("XDG_STATE_HOME", env.state.path())
        .output()
        .unwrap();
    let i = crate::support::parse(out);
    assert_eq!(i.json["kind"], "other");
    assert!(i.json.get("hash").is_none());
}

#[test]
fn symbol_reports_the_outline_contract_errors() {
    let env = TestEnv::new();
    env.write("notes.zzz", "nothing here\n");
    let r = env.run(&["read", "notes.zzz", "--symbol", "main"]);
    assert_eq!(r.error_code(), "input.unsupported-language");
    assert_eq!(
        r.json["error"]["repairs"][0]["command"],
        "aitools read notes.zzz --match main"
    );
}

#[test]
fn range_continuations_keep_the_flags() {
    let env = TestEnv::new();
    let body: String = (1..=10).map(|i| format!("l{i}\r\n")).collect();
    env.write("c.txt", &body);
    let r = env.run(&[
        "read",
        "c.txt",
        "--range",
        "2:9",
        "--max-lines",
        "3",
        "--escape-invisible",
    ]);
    assert_eq!(r.lines(), vec!["l2\\u{000D}", "l3\\u{000D}", "l4\\u{000D}"]);
    assert_eq!(
        r.json["next_commands"][0],
        "aitools read c.txt --range 5:9 --escape-invisible --max-lines 3"
    );
    let t = env.run(&["read", "c.txt", "--tail", "5", "--max-lines", "2"]);
    assert_eq!(t.lines(), vec!["l6", "l7"]);
    assert_eq!(
        t.json["next_commands"][0],
        "aitools read c.txt --range 8:10 --max-lines 2"
    );
    let beyond = env.run(&["read", "c.txt", "--range", "11:"]);
    assert_eq!(beyond.error_code(), "selection.no-match");
}

// ---- info ---------------------------------------------------------------------

fn wc(env: &TestEnv, flag: &str, name: &str) -> u64 {
    oracle(env.root(), "wc", &[flag, name])
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn info_counts_match_wc_and_digests_match_the_sum_tools() {
    let env = TestEnv::new();
    let cases: Vec<(&str, &[u8])> = vec![
        ("a.txt", b"one two  three\nfour\n\n  five six\n"),
        ("nofinal.txt", b"alpha beta\ngamma"),
        ("crlf.txt", b"x y\r\nz\r\n"),
        ("mixed.txt", b"x\r\ny\nz"),
        ("empty.txt", b""),
        ("vt.txt", b"a\x0bb\x0cc d\n"),
    ];
    for (name, content) in &cases {
        let p = env.write(name, content);
        let r = env.run(&["info", name, "--digest", "sha1"]);
        assert_eq!(r.code, 0);
        let wl = wc(&env, "-l", name);
        let final_line = u64::from(!content.is_empty() && !content.ends_with(b"\n"));
        assert_eq!(r.json["lines"], wl + final_line, "{name}");
        assert_eq!(r.json["words"], wc(&env, "-w", name), "{name}");
        assert_eq!(r.json["size"], wc(&env, "-c", name), "{name}");
        if !content.contains(&b'\r') && !content.contains(&0x0b) && !content.contains(&0x0c) {
            assert_eq!(r.json["max_line_chars"], wc(&env, "-L", name), "{name}");
        }
        assert_eq!(r.json["hash"], sha256sum(&p), "{name}");
        let sha1 = oracle(env.root(), "sha1sum", &[name]);
        assert_eq!(r.json["digest"]["algorithm"], "sha1");
        assert_eq!(
            r.json["digest"]["value"],
            sha1.split_whitespace().next().unwrap()
        );
    }
    let md5 = env.run(&["info", "a.txt", "--digest", "md5"]);
    let want = oracle(env.root(), "md5sum", &["a.txt"]);
    assert_eq!(
        md5.json["digest"]["value"],
        want.split_whitespace().next().unwrap()
    );
    let s256 = env.run(&["info", "a.txt", "--digest", "sha256"]);
    assert_eq!(s256.json["digest"]["value"], s256.json["hash"]);
    let le = |n: &str| env.run(&["info", n]).json["line_ending"].clone();
    assert_eq!(le("a.txt"), "lf");
    assert_eq!(le("crlf.txt"), "crlf");
    assert_eq!(le("mixed.txt"), "mixed");
    assert_eq!(le("empty.txt"), "none");
    let nf = env.run(&["info", "nofinal.txt"]);
    assert_eq!(nf.json["trailing_newline"], false);
    assert_eq!(nf.json["approx_tokens"], 4); // "alpha beta\ngamma" = 16 characters
}

#[test]
fn info_fields_in_order_with_stat_as_oracle() {
    let env = TestEnv::new();
    let p = env.write("f.txt", "\u{FEFF}hello\n");
    assert!(
        Command::new("chmod")
            .args(["0640", p.to_str().unwrap()])
            .status()
            .unwrap()
            .success()
    );
    assert!(
        Command::new("touch")
            .args(["-d", "@1700000000", p.to_str().unwrap()])
            .status()
            .unwrap()
            .success()
    );
    let r = env.run(&["info", "f.txt"]);
    // serde_json sorts keys: read the order off the printed text.
    let order = [
        "schema_version",
        "status",
        "command",
        "absolute",
        "real",
        "relative",
        "exists",
        "kind",
        "inside_workspace",
        "ignored",
        "size",
        "lines",
        "words",
        "max_line_chars",
        "binary",
        "mime",
        "utf8_valid",
        "encoding_guess",
        "line_ending",
        "trailing_newline",
        "bom",
        "mode",
        "mtime",
        "hash",
        "approx_tokens",
    ];
    let at: Vec<usize> = order
        .iter()
        .map(|k| {
            r.stdout
                .find(&format!("\"{k}\":"))
                .unwrap_or_else(|| panic!("{k}"))
        })
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{}", r.stdout);
    assert_eq!(r.json.as_object().unwrap().len(), order.len());
    assert_eq!(
        r.json["mode"],
        format!(
            "0{}",
            oracle(env.root(), "stat", &["-c", "%a", "f.txt"]).trim()
        )
    );
    assert_eq!(r.json["mtime"], "2023-11-14T22:13:20Z");
    assert_eq!(r.json["bom"], true);
    assert_eq!(r.json["lines"], 1);
    assert_eq!(r.json["max_line_chars"], 5);
    assert_eq!(r.json["relative"], "f.txt");
    assert_eq!(r.json["inside_workspace"], true);
    let real = std::fs::canonicalize(&p).unwrap();
    assert_eq!(r.json["real"], real.to_str().unwrap());
    env.write("bin.dat", b"\x7fELF\x00\x01\x02");
    let b = env.run(&["info", "bin.dat"]);
    assert_eq!(b.json["binary"], true);
    assert_eq!(b.json["lines"], serde_json::Value::Null);
    assert_eq!(b.json["words"], serde_json::Value::Null);
    assert_eq!(b.json["line_ending"], serde_json::Value::Null);
    assert_eq!(b.json["approx_tokens"], serde_json::Value::Null);
    assert_eq!(b.json["mime"], "application/x-executable");
}

#[test]
fn info_symlinks_missing_paths_and_outside_files() {
    let env = TestEnv::new();
    let p = env.write("target.txt", "t\n");
    std::fs::create_dir(env.path("dir")).unwrap();
    std::os::unix::fs::symlink("target.txt", env.path("to-file")).unwrap();
    std::os::unix::fs::symlink("dir", env.path("to-dir")).unwrap();
    std::os::unix::fs::symlink("nowhere", env.path("dangling")).unwrap();
    let f = env.run(&["info", "to-file"]);
    assert_eq!(f.json["kind"], "file");
    assert_eq!(f.json["hash"], sha256sum(&p));
    assert_eq!(f.json["relative"], "to-file");
    let text_hash = |t: &str| {
        let out = Command::new("sh")
            .args(["-c", "printf '%s' \"$T\" | sha256sum"])
            .env("T", t)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .next()
            .unwrap()
            .to_string()
    };
    let d = env.run(&["info", "to-dir"]);
    assert_eq!(d.json["kind"], "directory");
    assert_eq!(d.json["hash"], text_hash("dir"));
    let plain_dir = env.run(&["info", "dir"]);
    assert!(plain_dir.json.get("hash").is_none());
    let dangling = env.run(&["info", "dangling"]);
    assert_eq!(dangling.error_code(), "input.not-found");
    let dm = env.run(&["info", "dangling", "--allow-missing"]);
    assert_eq!(dm.json["exists"], false);
    assert_eq!(dm.json["kind"], "symlink");
    assert_eq!(dm.json["hash"], text_hash("nowhere"));
    let m = env.run(&["info", "no/such", "--allow-missing"]);
    assert_eq!(m.json["exists"], false);
    assert_eq!(m.json["kind"], serde_json::Value::Null);
    assert!(m.json.get("size").is_none() && m.json.get("hash").is_none());
    let outside = tempfile::NamedTempFile::new().unwrap();
    let o = env.run(&["info", outside.path().to_str().unwrap()]);
    assert_eq!(o.json["relative"], serde_json::Value::Null);
    assert_eq!(o.json["inside_workspace"], false);
    std::os::unix::fs::symlink(outside.path(), env.path("leaves")).unwrap();
    let l = env.run(&["info", "leaves"]);
    assert_eq!(l.json["relative"], "leaves");
    assert_eq!(l.json["inside_workspace"], false);
}

#[test]
fn info_ignored_agrees_with_git_check_ignore() {
    let env = TestEnv::new();
    env.write(".gitignore", "*.log\nbuild/\n!keep.log\n");
    env.write("sub/.gitignore", "local.txt\n");
    for f in [
        "a.log",
        "keep.log",
        "build/out.txt",
        "src/main.rs",
        "sub/local.txt",
        "sub/other.txt",
    ] {
        env.write(f, "x\n");
    }
    for f in [
        "a.log",
        "keep.log",
        "build/out.txt",
        "build",
        "src/main.rs",
        "sub/local.txt",
        "sub/other.txt",
    ] {
        let git = std::process::Command::new("git")
            .args(["check-ignore", "-q", f])
            .current_dir(env.root())
            .status()
            .unwrap()
            .success();
        let r = env.run(&["info", f]);
        assert_eq!(r.json["ignored"], git, "{f}");
    }
}

/// Following next_commands while the answer is partial returns every line of the
/// selection exactly once (sed -n is the oracle), for each selector.
#[test]
fn following_continuations_reads_each_selection_exactly() {
    let env = TestEnv::new();
    let body: String = (1..=60).map(|i| format!("row {i}\n")).collect();
    env.write("rows.txt", &body);
    env.write(
        "m.py",
        "import os\n\nclass Greeter:\n    def a(self):\n        return 1\n\n    def b(self):\n        return 2\n\nx = 1\n",
    );
    let cases: Vec<(Vec<&str>, &str, &str)> = vec![
        (
            vec!["rows.txt", "--range", "10:20", "--max-lines", "4"],
            "rows.txt",
            "10,20p",
        ),
        (vec!["rows.txt", "--max-lines", "7"], "rows.txt", "1,60p"),
        (
            vec!["rows.txt", "--tail", "10", "--max-lines", "4"],
            "rows.txt",
            "51,60p",
        ),
        (
            vec![
                "rows.txt",
                "--between",
                "^row 12$",
                "^row 25$",
                "--max-lines",
                "5",
            ],
            "rows.txt",
            "12,25p",
        ),
        (
            vec!["m.py", "--symbol", "Greeter", "--max-lines", "2"],
            "m.py",
            "3,8p",
        ),
    ];
    for (args, file, sed) in cases {
        let mut argv = vec!["read"];
        argv.extend(args.iter().copied());
        let mut r = env.run(&argv);
        let mut lines: Vec<String> = Vec::new();
        let mut calls = 0;
        loop {
            assert!(r.code == 0 || r.code == 3, "{args:?}: {}", r.stderr);
            lines.extend(r.lines());
            if r.code == 0 {
                break;
            }
            calls += 1;
            assert!(calls < 40, "{args:?}: no end");
            let next = r.json["next_commands"][0]
                .as_str()
                .expect("next")
                .to_string();
            r = run_next(&env, &next);
        }
        let want = oracle(env.root(), "sed", &["-n", sed, file]);
        let want: Vec<&str> = want.lines().collect();
        assert_eq!(lines, want, "{args:?}");
    }
}

/// The repairs that list a directory name it as find's START, not its pattern
/// (`find src` would list names containing "src"): run as given, they list the
/// directory's entries. The not-found repair lists files, not names holding a dot.
#[test]
fn directory_listing_repairs_list_the_directory() {
    let env = TestEnv::new();
    env.write("lib/inner/x.rs", "fn x() {}\n");
    env.write("lib/y.rs", "fn y() {}\n");
    env.write("other/lib_notes", "n\n");
    env.write("Makefile", "all:\n");
    let r = env.run(&["read", "lib"]);
    let repair = r.json["error"]["repairs"][0]["command"]
        .as_str()
        .expect("repair")
        .to_string();
    let listed = run_next(&env, &repair);
    let paths = &listed.json["items"];
    assert_eq!(
        paths,
        &serde_json::json!(["lib/inner/", "lib/y.rs"]),
        "{repair}"
    );
    let missing = env.run(&["read", "nope.txt"]);
    let repairs = missing.json["error"]["repairs"]
        .as_array()
        .expect("repairs");
    let find = repairs
        .iter()
        .find(|x| x["action"] == "find")
        .and_then(|x| x["command"].as_str())
        .expect("find repair");
    let all = run_next(&env, find);
    let files = crate::support::sorted_item_paths(&all.json);
    assert!(files.iter().any(|f| f == "Makefile"), "{find}: {files:?}");
}

/// A dangling symlink: read and info say what it is and repair to the info that
/// describes it (exists false, kind symlink), never to retrying themselves.
#[test]
fn a_dangling_symlink_is_described_not_retried() {
    let env = TestEnv::new();
    std::os::unix::fs::symlink("nowhere", env.path("dangling")).expect("symlink");
    for cmd in ["read", "info"] {
        let r = env.run(&[cmd, "dangling"]);
        assert_eq!(r.error_code(), "input.not-found");
        let msg = r.json["error"]["message"].as_str().unwrap_or("");
        assert!(msg.contains("symlink"), "{msg}");
        let repairs: Vec<&str> = r.json["error"]["repairs"]
            .as_array()
            .expect("repairs")
            .iter()
            .filter_map(|x| x["command"].as_str())
            .collect();
        assert_eq!(repairs[0], "aitools info dangling --allow-missing");
        assert!(
            !repairs.contains(&format!("aitools {cmd} dangling").as_str()),
            "{repairs:?}"
        );
        let i = env.run(&["info", "dangling", "--allow-missing"]);
        assert_eq!(i.json["kind"], "symlink");
    }
}

/// A UTF-16 file (BOM) reads as binary to a UTF-8 reader; the answer names the
/// read that decodes it, and that read gives iconv's text.
#[test]
fn a_utf16_file_points_at_its_encoding() {
    let env = TestEnv::new();
    let mut bytes = vec![0xFF, 0xFE];
    for u in "héllo\nworld\n".encode_utf16() {
        bytes.extend_from_slice(&u.to_le_bytes());
    }
    env.write("u16.txt", &bytes);
    let r = env.run(&["read", "u16.txt"]);
    assert_eq!(r.json["binary"], true);
    let next = r.json["next_commands"][0].as_str().expect("next");
    assert_eq!(next, "aitools read u16.txt --encoding utf-16le");
    let decoded = run_next(&env, next);
    assert_eq!(decoded.lines(), vec!["héllo", "world"]);
}

/// Same-named definitions inside different ones (methods of two classes): the
/// name qualified by the enclosing one picks each, for read and edit, and the
/// ambiguity error offers those qualified names.
#[test]
fn qualified_symbols_pick_among_same_named_definitions() {
    let env = TestEnv::new();
    env.write(
        "ab.py",
        "class A:\n    def run(self):\n        return 1\n\nclass B:\n    def run(self):\n        return 2\n",
    );
    let amb = env.run(&["read", "ab.py", "--symbol", "run"]);
    assert_eq!(amb.error_code(), "selection.ambiguous");
    let cmds: Vec<&str> = amb.json["error"]["repairs"]
        .as_array()
        .expect("repairs")
        .iter()
        .filter_map(|r| r["command"].as_str())
        .collect();
    assert!(
        cmds.contains(&"aitools read ab.py --symbol B.run"),
        "{cmds:?}"
    );
    let b = env.run(&["read", "ab.py", "--symbol", "B.run"]);
    assert_eq!(b.lines(), vec!["    def run(self):", "        return 2"]);
    let a = env.run(&["read", "ab.py", "--symbol", "A::run"]);
    assert_eq!(a.json["start_line"], 2);
    let hash = env.run(&["info", "ab.py"]).json["hash"]
        .as_str()
        .expect("hash")
        .to_string();
    let e = env.run(&[
        "edit",
        "ab.py",
        "--symbol",
        "B.run",
        "--new",
        "def run(self):\n    return 3",
        "--expect-hash",
        &hash,
    ]);
    assert_eq!(e.code, 0, "{}", e.stderr);
    let text = std::fs::read_to_string(env.path("ab.py")).expect("read");
    assert!(
        text.ends_with("class B:\n    def run(self):\n        return 3\n"),
        "{text}"
    );
    assert!(text.contains("return 1"));
}

#[test]
fn range_bounds_match_like_sed_and_continues_within_it() {
    let env = TestEnv::new();
    let body: String = (1..=300).map(|i| format!("row {i}\n")).collect();
    env.write("rows.txt", &body);
    for (range, sed_range, max) in [
        ("40:200", "40,200", "4"),
        ("95:", "95,$", "5"),
        ("17", "17,17", "3"),
        ("1:300", "1,300", "80"),
    ] {
        let want: Vec<(u64, String)> = {
            let nums = oracle(
                env.root(),
                "sed",
                &["-n", &format!("{sed_range}{{/7$/=}}"), "rows.txt"],
            );
            let text = oracle(
                env.root(),
                "sed",
                &["-n", &format!("{sed_range}{{/7$/p}}"), "rows.txt"],
            );
            nums.lines()
                .map(|n| n.parse().unwrap())
                .zip(text.lines().map(str::to_string))
                .collect()
        };
        let mut got: Vec<(u64, String)> = Vec::new();
        let mut r = env.run(&[
            "read",
            "rows.txt",
            "--range",
            range,
            "--match",
            "7$",
            "--max-lines",
            max,
        ]);
        if want.is_empty() {
            assert_eq!(r.error_code(), "selection.no-match", "{range}");
            continue;
        }
        loop {
            assert!(
                r.code == 0 || r.code == 3,
                "{range}: {} {}",
                r.stdout,
                r.stderr
            );
            let nums = r.json["line_numbers"].as_array().unwrap().clone();
            for (n, t) in nums.iter().zip(r.lines()) {
                got.push((n.as_u64().unwrap(), t));
            }
            match r.json["next_commands"][0].as_str() {
                Some(next) => {
                    assert_eq!(r.code, 3, "{range}");
                    assert!(next.contains("--range"), "{next}");
                    r = run_next(&env, next);
                }
                None => break,
            }
        }
        assert_eq!(got, want, "{range}");
    }
    // The range's end bounds the match even when the file goes on matching.
    let r = env.run(&[
        "read",
        "rows.txt",
        "--range",
        "60:70",
        "--match",
        "^row",
        "--max-lines",
        "11",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["line_numbers"].as_array().unwrap().len(), 11);
    assert!(r.json.get("next_commands").is_none());
}

#[test]
fn a_whole_symbol_read_offers_nothing_past_it() {
    let env = TestEnv::new();
    env.write(
        "app.py",
        "class Greeter:\n    def run(self):\n        a = 1\n        b = 2\n        return a + b\n\n\ndef other():\n    pass\n",
    );
    let r = env.run(&["read", "app.py", "--symbol", "run"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["start_line"], 2);
    assert_eq!(r.lines().len(), 4);
    assert!(r.json.get("next_commands").is_none(), "{}", r.stdout);
    // Cut, it continues to the definition's end and no further.
    let cut = env.run(&["read", "app.py", "--symbol", "run", "--max-lines", "2"]);
    assert_eq!(cut.code, 3);
    let next = cut.json["next_commands"][0].as_str().unwrap();
    assert_eq!(next, "aitools read app.py --range 4:5 --max-lines 2");
    let rest = run_next(&env, next);
    assert_eq!(rest.code, 0);
    assert_eq!(rest.lines(), ["        b = 2", "        return a + b"]);
}
