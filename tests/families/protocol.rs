//! The envelope, exit codes, discovery and bad-input rules, for every command.

use crate::support::{TestEnv, bin};
use std::process::Command;

#[test]
fn version_and_help_are_envelopes() {
    let env = TestEnv::new();
    let v = env.run(&["--version"]);
    assert_eq!(v.code, 0);
    assert_eq!(v.json["command"], "version");
    assert_eq!(v.json["name"], "aitools");
    let h = env.run(&["--help"]);
    assert_eq!(h.json["command"], "help");
    assert!(
        h.json["commands"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c.as_str().unwrap().starts_with("read  "))
    );
    // table reads more than CSV/TSV, and the line says so, within the budget.
    let table = h.json["commands"].as_array().unwrap().iter();
    let line = table
        .filter_map(|c| c.as_str())
        .find(|c| c.starts_with("json|table  "))
        .unwrap();
    assert!(line.contains("JSONL") && line.contains("awk"), "{line}");
    assert!(h.stdout.len() <= 4096, "{}", h.stdout.len());
    let rh = Command::new(bin())
        .args(["read", "--help"])
        .output()
        .unwrap();
    let detail: serde_json::Value = serde_json::from_slice(&rh.stdout).unwrap();
    assert_eq!(detail["name"], "read");
    // The detail comes in the envelope like every other answer.
    assert_eq!(detail["schema_version"], 9);
    assert_eq!(detail["status"], "ok");
    assert_eq!(detail["command"], "help");
    assert!(rh.stderr.is_empty());
}

#[test]
fn output_is_byte_identical_for_the_same_input() {
    let env = TestEnv::new();
    env.write("a.txt", "one\ntwo\n");
    let a = env.run(&["read", "a.txt"]);
    let b = env.run(&["read", "a.txt"]);
    assert_eq!(a.stdout, b.stdout);
    assert!(
        a.stdout
            .starts_with("{\"schema_version\":9,\"status\":\"ok\",\"command\":\"read\",")
    );
}

#[test]
fn schema_lists_exactly_what_the_parser_accepts() {
    let env = TestEnv::new();
    env.write("f.txt", "x\n");
    let all = env.run(&["schema", "--all", "--full"]);
    let commands = all.json["commands"].as_array().unwrap().clone();
    assert!(!commands.is_empty());
    let list = env.run(&["schema"]);
    assert_eq!(
        list.json["commands"].as_array().unwrap().len(),
        commands.len()
    );
    for cmd in &commands {
        let name = cmd["name"].as_str().unwrap();
        let words: Vec<&str> = name.split(' ').collect();
        // Every declared option is accepted by the parser (never "does not accept").
        for arg in cmd["args"].as_array().unwrap() {
            let opt = arg["name"].as_str().unwrap();
            if !opt.starts_with("--") {
                continue;
            }
            let mut argv: Vec<&str> = words.clone();
            argv.push(opt);
            // `mcp --http` would serve until stopped: a bad port ends it at parse.
            if name == "mcp" && opt == "--http" {
                argv.extend(["--port", "x"]);
            }
            let out = Command::new(bin())
                .args(&argv)
                .current_dir(env.root())
                .env("XDG_STATE_HOME", env.state.path())
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stderr);
            assert!(
                !text.contains("does not accept --"),
                "{name} rejects its declared {opt}: {text}"
            );
        }
        // An option the schema does not list is rejected.
        let mut argv: Vec<&str> = words.clone();
        argv.push("--no-such-option-xyz");
        let r = env.run(&argv);
        assert_eq!(r.code, 1, "{name}");
        assert_eq!(r.error_code(), "argument.invalid", "{name}");
        // The parser's own list of options equals the schema's.
        let detail = env.run(&["schema", name, "--full"]);
        assert_eq!(&detail.json["commands"][0], cmd);
    }
}

#[test]
fn unknown_commands_get_repairs_in_order() {
    let env = TestEnv::new();
    let cat = env.run(&["cat", "x"]);
    assert_eq!(cat.error_code(), "argument.invalid");
    assert_eq!(cat.json["error"]["repairs"][0]["command"], "aitools read x");
    let other = env.run(&["frobnicate"]);
    assert_eq!(
        other.json["error"]["repairs"][0]["command"],
        "aitools schema"
    );
    let none = env.run(&[]);
    assert_eq!(none.error_code(), "argument.invalid");
}

#[test]
fn garbage_argv_is_always_one_error_envelope() {
    let env = TestEnv::new();
    env.write("a.txt", "1\n2\n3\n");
    let cases: Vec<Vec<&str>> = vec![
        vec![""],
        vec!["read", ""],
        vec!["read"],
        vec!["read", "a.txt", "--range"],
        vec!["read", "a.txt", "--range", "٣:٥"],
        vec!["read", "a.txt", "--range", "5:2"],
        vec!["read", "a.txt", "--range", "99999999999999999999999:1"],
        vec!["read", "a.txt", "--max-lines", "99999999999999999999999"],
        vec!["read", "a.txt", "--max-lines", "-1"],
        vec!["read", "a.txt", "--root", "/no/such/dir"],
        vec!["--root", "/no/such/dir", "read", "a.txt"],
        vec!["read", "a.txt", "--lock-timeout", "soon"],
    ];
    for argv in cases {
        let r = env.run(&argv);
        assert_eq!(r.code, 1, "{argv:?}: {}", r.stderr);
        assert_eq!(r.error_code(), "argument.invalid", "{argv:?}: {}", r.stderr);
    }
}

#[test]
fn non_utf8_path_gives_an_envelope() {
    use std::os::unix::ffi::OsStrExt;
    let env = TestEnv::new();
    let out = env
        .command(&["read"])
        .arg(std::ffi::OsStr::from_bytes(b"bad\xff.txt"))
        .output()
        .unwrap();
    let r = crate::support::parse(out);
    assert_eq!(r.code, 1);
}

#[test]
fn a_secret_in_an_argument_never_appears_unmasked() {
    let env = TestEnv::new();
    let r = env.run(&["read", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"]);
    assert_eq!(r.code, 1);
    assert!(
        !r.stderr
            .contains("ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("[REDACTED_SECRET]"));
    assert!(r.json["redactions"].as_u64().unwrap() >= 1);
    let bad = env.run(&["read", "a.txt", "--bogus=password=hunter2"]);
    assert!(!bad.stderr.contains("hunter2"), "{}", bad.stderr);
}

#[test]
fn closed_stdout_exits_quietly() {
    let env = TestEnv::new();
    env.write("a.txt", "x\n".repeat(1000));
    let mut child = env
        .command(&["read", "a.txt", "--max-lines", "1000"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn help_typed_as_a_command_points_at_the_flag() {
    let env = TestEnv::new();
    let r = env.run(&["help", "read"]);
    assert_eq!(r.error_code(), "argument.invalid");
    assert_eq!(
        r.json["error"]["repairs"][0]["command"],
        "aitools read --help"
    );
}

#[test]
fn more_garbage_argv_for_read_and_info() {
    let env = TestEnv::new();
    env.write("a.txt", "1\n2\n3\n");
    let cases: Vec<Vec<&str>> = vec![
        vec!["read", "a.txt", "--tail", ""],
        vec!["read", "a.txt", "--tail", "٣"],
        vec!["read", "a.txt", "--tail", "+3"],
        vec!["read", "a.txt", "--tail", "3 "],
        vec!["read", "a.txt", "--tail", "18446744073709551616"],
        vec!["read", "a.txt", "--max-lines", ""],
        vec!["read", "a.txt", "--max-lines", "0"],
        vec!["read", "a.txt", "--max-lines", "１０"],
        vec!["read", "a.txt", "--range", ""],
        vec!["read", "a.txt", "--range", ":"],
        vec!["read", "a.txt", "--range", "0:1"],
        vec!["read", "a.txt", "--from-line", "2"],
        vec!["read", "a.txt", "--as"],
        vec!["read", "a.txt", "--as", "bogus"],
        vec!["read", "a.txt", "--as", "hex", "--bytes", ""],
        vec!["read", "a.txt", "--as", "hex", "--bytes", "5:2"],
        vec!["read", "a.txt", "--as", "hex", "--bytes", "٣:"],
        vec![
            "read",
            "a.txt",
            "--as",
            "hex",
            "--bytes",
            "99999999999999999999:",
        ],
        vec!["read", "a.txt", "--as", "strings", "--min-length", "0"],
        vec!["read", "a.txt", "--between"],
        vec!["read", "a.txt", "--between", "x"],
        vec!["read", "a.txt", "--match"],
        vec!["read", "a.txt", "--encoding", ""],
        vec!["read", "", "--tail", "1"],
        vec!["info", ""],
        vec!["info"],
        vec!["info", "a.txt", "--digest"],
        vec!["info", "a.txt", "--digest", "crc32"],
        vec!["info", "a.txt", "--root", ""],
        vec!["info", "a.txt", "--root", "a.txt"],
        vec!["info", "a.txt", "--lock-timeout", "-1s"],
        vec!["read", "a.txt", "--lock-timeout", "٣s"],
    ];
    // A regex past the size limit is a pattern that does not compile, as in search.
    let big = env.run(&["read", "a.txt", "--match", "a{99999999}"]);
    assert_eq!(big.error_code(), "input.syntax-error", "{}", big.stderr);
    for argv in cases {
        let r = env.run(&argv);
        assert_eq!(r.code, 1, "{argv:?}: {}", r.stderr);
        assert_eq!(r.error_code(), "argument.invalid", "{argv:?}: {}", r.stderr);
        assert!(
            !r.stderr.contains("Usage") && !r.stderr.contains("panicked"),
            "{}",
            r.stderr
        );
    }
}

#[test]
fn non_utf8_bytes_anywhere_in_argv_give_one_envelope() {
    use std::os::unix::ffi::OsStrExt;
    let env = TestEnv::new();
    env.write("a.txt", "x\n");
    for argv in [
        vec![&b"read"[..], b"a\xff\xfe.txt"],
        vec![&b"read"[..], b"a.txt", b"--match", b"\xff"],
        vec![&b"info"[..], b"a.txt", b"--root", b"/tmp/\xc3"],
        vec![&b"\xff"[..]],
    ] {
        let mut c = env.command(&[]);
        for a in &argv {
            c.arg(std::ffi::OsStr::from_bytes(a));
        }
        let r = crate::support::parse(c.output().unwrap());
        assert_eq!(r.code, 1, "{argv:?}");
        assert_eq!(r.error_code(), "argument.invalid", "{argv:?}: {}", r.stderr);
    }
}

#[test]
fn secrets_in_arguments_never_come_back_unmasked() {
    let env = TestEnv::new();
    env.write("a.txt", "x\n");
    let secret = "AKIAQ3EGRT5KXJ7PLW2M";
    for argv in [
        vec!["--root", "/no/password=hunter2", "read", "a.txt"],
        vec!["read", "a.txt", "--range", "api_key=hunter2"],
        vec!["read", "a.txt", "--match", "token: hunter2 ("],
        vec!["read", secret],
        vec!["info", secret],
        vec!["read", "a.txt", "--bogus", secret],
        vec!["read", "a.txt", "--as", secret],
        vec![secret],
    ] {
        let r = env.run(&argv);
        assert_eq!(r.code, 1, "{argv:?}");
        assert!(!r.stderr.contains("hunter2"), "{argv:?}: {}", r.stderr);
        assert!(!r.stderr.contains(secret), "{argv:?}: {}", r.stderr);
    }
}

#[test]
fn a_shell_command_is_translated_with_its_operands() {
    let env = TestEnv::new();
    env.write("a.txt", "x\n");
    let cat = env.run(&["cat", "a.txt"]);
    assert_eq!(
        cat.json["error"]["repairs"][0]["command"],
        "aitools read a.txt"
    );
    let grep = env.run(&["grep", "foo bar", "src"]);
    assert_eq!(
        grep.json["error"]["repairs"][0]["command"],
        "aitools search 'foo bar' src"
    );
    // A flag's meaning does not carry over, so nothing is guessed.
    let flagged = env.run(&["grep", "-A", "3", "foo"]);
    assert_eq!(
        flagged.json["error"]["repairs"][0]["command"],
        "aitools search"
    );
    let mv = env.run(&["mv", "a.txt", "b.txt"]);
    assert_eq!(
        mv.json["error"]["repairs"][0]["command"],
        "aitools move a.txt b.txt"
    );
}

#[test]
fn an_envelope_over_16_mi_characters_is_refused_whole() {
    let env = TestEnv::new();
    // 1100 lines of 16000 characters: 17.6 Mi characters of lines, over the cap.
    let line = format!("{}\n", "a".repeat(16000));
    env.write("wide.txt", line.repeat(1100));
    let r = env.run(&["read", "wide.txt", "--max-lines", "2000"]);
    assert_eq!(r.code, 1);
    assert_eq!(r.error_code(), "refusal.too-large");
    assert!(r.stderr.len() < 4096, "the refusal itself is small");
    // Just under the cap is fine.
    let ok = env.run(&["read", "wide.txt", "--max-lines", "1000"]);
    assert_eq!(ok.code, 3);
}

#[test]
fn a_panic_ends_in_one_internal_error_envelope() {
    let env = TestEnv::new();
    env.write("a.txt", "x\n");
    let out = env
        .command(&["read", "a.txt"])
        .env("AITOOLS_TEST_PANIC", "1")
        .output()
        .unwrap();
    let r = crate::support::parse(out);
    assert_eq!(r.code, 1);
    assert_eq!(r.error_code(), "internal.unexpected");
    assert_eq!(r.json["command"], "read");
    assert!(!r.stderr.contains("panicked at"), "{}", r.stderr);
}

#[test]
fn stdin_is_never_read_without_the_stdin_flag() {
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let env = TestEnv::new();
    env.write("a.txt", "alpha\nbeta\n");
    let cases: Vec<Vec<&str>> = vec![
        vec!["read", "a.txt"],
        vec!["search", "alpha"],
        vec![
            "edit",
            "a.txt",
            "--old",
            "alpha",
            "--new",
            "ALPHA",
            "--dry-run",
        ],
        vec!["replace", "beta", "BETA", "a.txt", "--dry-run"],
        vec![
            "insert",
            "a.txt",
            "--at",
            "end",
            "--content",
            "gamma",
            "--dry-run",
        ],
        vec!["write", "b.txt", "--content", "x", "--dry-run"],
        vec!["apply", "--dry-run"],
        vec!["batch"],
    ];
    for argv in cases {
        // Standard input is a pipe nobody writes to or closes: a read would block.
        let mut child = env
            .command(&argv)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let held = child.stdin.take();
        let start = Instant::now();
        let done = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if start.elapsed() > Duration::from_secs(10) {
                let _ = child.kill();
                break None;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        drop(held);
        assert!(
            done.is_some(),
            "{argv:?} waited on standard input without --stdin"
        );
        let r = crate::support::parse(child.wait_with_output().unwrap());
        assert!(r.code == 0 || r.code == 1, "{argv:?}: {}", r.stderr);
    }
}

/// Values that start with '-' reach the command: negative numbers anywhere, and
/// text after the flags that take free text. A '-word' positional is refused with
/// a message naming the whole word and the `--` that passes it.
#[test]
fn values_starting_with_a_dash_are_values() {
    let env = TestEnv::new();
    env.write("n.txt", "x = -5\n-7\n");
    let s = env.run(&["search", "-5", "--output", "count"]);
    assert_eq!(s.code, 0, "{}", s.stderr);
    assert_eq!(crate::support::total_matches(&s.json), 1);
    let s = env.run(&["search", "--pattern", "-7", "--output", "count"]);
    assert_eq!(crate::support::total_matches(&s.json), 1, "{}", s.stderr);
    let r = env.run(&["read", "n.txt", "--match", "-7"]);
    assert_eq!(r.json["line_numbers"][0], 2, "{}", r.stderr);
    let r = env.run(&["replace", "5", "-6", "n.txt", "--expect-count", "1"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(env.path("n.txt")).expect("read"),
        "x = --6\n-7\n"
    );
    let w = env.run(&["write", "m.txt", "--content", "-x"]);
    assert_eq!(w.code, 0, "{}", w.stderr);
    assert_eq!(
        std::fs::read_to_string(env.path("m.txt")).expect("read"),
        "-x"
    );
    let f = env.run(&[
        "feedback",
        "create",
        "--type",
        "bug",
        "--message",
        "-x broke",
    ]);
    assert_eq!(f.code, 0, "{}", f.stderr);

    let bad = env.run(&["find", "--depth", "-1"]);
    assert_eq!(bad.error_code(), "argument.invalid");
    let dash = env.run(&["search", "-foo"]);
    assert_eq!(dash.error_code(), "argument.invalid");
    let msg = dash.json["error"]["message"].as_str().unwrap_or("");
    assert!(msg.contains("-foo") && msg.contains("--"), "{msg}");
    let ok = env.run(&["search", "--output", "count", "--", "-7"]);
    assert_eq!(crate::support::total_matches(&ok.json), 1, "{}", ok.stderr);
}

/// A call that ends its options with `--` gets repairs and next_commands whose
/// added options sit before that `--` (after it they would be values), and a
/// path that starts with '-' is continued after `--`. Each one runs.
#[test]
fn repairs_and_next_commands_keep_options_before_double_dash() {
    let env = TestEnv::new();
    env.write("two.txt", "-x\n-x\n-x\n");
    let lines: String = (1..=50).map(|i| format!("{i}\n")).collect();
    env.write("-n.txt", &lines);
    let run_line = |line: &str| env.run_line(line);
    let s = env.run(&["search", "--limit", "1", "--output", "matches", "--", "-x"]);
    assert_eq!(s.json["more"], "--offset 1");
    let args = ["search", "--limit", "1", "--output", "matches", "--", "-x"];
    let page = crate::support::run_more(&env, &args, &s);
    assert_eq!(crate::support::total_matches(&page.json), 3);
    assert_eq!(page.json["matches"][0]["line"], 2);

    let r = env.run(&["replace", "--", "-x", "-y", "two.txt"]);
    let repair = r.json["error"]["repairs"][0]["command"]
        .as_str()
        .expect("repair");
    assert_eq!(repair, "aitools replace --dry-run -- -x -y two.txt");
    assert_eq!(run_line(repair).json["expect_count"], 3);

    let rd = env.run(&["read", "--max-lines", "5", "--", "-n.txt"]);
    let next = rd.json["next_commands"][0].as_str().expect("next");
    assert_eq!(next, "aitools read --range 6:50 --max-lines 5 -- -n.txt");
    assert_eq!(run_line(next).json["lines"][0], "6");
}

/// Help and near-miss calls answer with something that runs: a group's --help
/// lists its subcommands, `help <unknown>` names the unknown word, a misspelt
/// option gets the same call spelt right, and `sed s///` becomes the replace
/// that does what sed does (sed is the oracle).
#[test]
fn near_misses_repair_to_calls_that_run() {
    let env = TestEnv::new();
    env.write("f.txt", "ab abb cab\nnone\n");
    let tx = env.run(&["tx", "--help"]);
    assert_eq!(tx.code, 0, "{}", tx.stderr);
    assert_eq!(tx.json["command"], "help");
    assert!(tx.json["commands"].as_array().expect("commands").len() >= 7);

    let h = env.run(&["help", "nosuch"]);
    let msg = h.json["error"]["message"].as_str().unwrap_or("");
    assert!(msg.contains("nosuch") && !msg.contains("--help"), "{msg}");

    let typo = env.run(&["read", "f.txt", "--max-line", "1"]);
    let fix = typo.json["error"]["repairs"][0]["command"]
        .as_str()
        .expect("repair");
    assert_eq!(fix, "aitools read f.txt --max-lines 1");
    let args: Vec<&str> = fix.split(' ').skip(1).collect();
    assert_eq!(env.run(&args).lines(), vec!["ab abb cab"]);

    let sed = env.run(&["sed", "-i", r"s/a\(b\)/X\1&/g", "f.txt"]);
    let repair = sed.json["error"]["repairs"][0]["command"]
        .as_str()
        .expect("repair");
    assert_eq!(
        repair,
        r"aitools replace 'a(b)' 'X${1}${0}' f.txt --dry-run"
    );
    let dry = env.run(&["replace", "a(b)", "X${1}${0}", "f.txt", "--dry-run"]);
    let n = dry.json["expect_count"]
        .as_u64()
        .expect("expect_count")
        .to_string();
    let done = env.run(&[
        "replace",
        "a(b)",
        "X${1}${0}",
        "f.txt",
        "--expect-count",
        &n,
    ]);
    assert_eq!(done.code, 0, "{}", done.stderr);
    let by_sed = Command::new("sh")
        .arg("-c")
        .arg(r"printf 'ab abb cab\nnone\n' | sed 's/a\(b\)/X\1&/g'")
        .output()
        .expect("sed");
    assert_eq!(
        std::fs::read(env.path("f.txt")).expect("read"),
        by_sed.stdout
    );
}

/// An option that takes one value (or one pair) given twice is refused, saying
/// so; it is not silently read as its first use.
#[test]
fn a_single_valued_option_given_twice_is_refused() {
    let env = TestEnv::new();
    env.write("f.txt", "a\nb\nc\nd\n");
    let r = env.run(&[
        "read",
        "f.txt",
        "--between",
        "a",
        "b",
        "--between",
        "c",
        "d",
    ]);
    assert_eq!(r.error_code(), "argument.invalid", "{}", r.stdout);
    let msg = r.json["error"]["message"].as_str().unwrap_or("");
    assert!(msg.contains("more than once"), "{msg}");
    let schema = env.run(&["schema", "read", "--full"]);
    let between = schema.json["commands"][0]["args"]
        .as_array()
        .expect("args")
        .iter()
        .find(|a| a["name"] == "--between")
        .cloned()
        .expect("--between");
    assert_eq!(between["repeatable"], false);
}
