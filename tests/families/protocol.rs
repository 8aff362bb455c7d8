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
            .any(|c| c["name"] == "read")
    );
    let rh = Command::new(bin())
        .args(["read", "--help"])
        .output()
        .unwrap();
    let detail: serde_json::Value = serde_json::from_slice(&rh.stdout).unwrap();
    assert_eq!(detail["name"], "read");
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
            .starts_with("{\"schema_version\":1,\"status\":\"ok\",\"command\":\"read\",")
    );
}

#[test]
fn schema_lists_exactly_what_the_parser_accepts() {
    let env = TestEnv::new();
    env.write("f.txt", "x\n");
    let all = env.run(&["schema", "--all"]);
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
        let detail = env.run(&["schema", name]);
        assert_eq!(&detail.json["commands"][0], cmd);
    }
}

#[test]
fn unknown_commands_get_repairs_in_order() {
    let env = TestEnv::new();
    let cat = env.run(&["cat", "x"]);
    assert_eq!(cat.error_code(), "argument.invalid");
    assert_eq!(cat.json["error"]["repairs"][0]["command"], "aitools read");
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
