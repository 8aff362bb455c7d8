//! argv is read once, the way clap parses it: an option's value is never taken
//! for a flag (`--help`, `-h`, `--output=jsonl`, `--root`, `--` as values of
//! every text-taking option the registry declares), and the words that stand
//! where a command goes (`--bogus`, `-V`, `-h`, `--schema`) get real answers.

use crate::support::{TestEnv, bin, declared};
use serde_json::Value;
use std::process::Command;

/// Option-looking words that must be taken as plain values.
const VALUES: &[&str] = &["--help", "-h", "--output=jsonl", "--root", "--"];

/// Commands that start servers or wait for processes: not run here.
const SKIP: &[&str] = &[
    "mcp", "console", "run", "wait", "bg start", "bg logs", "bg stop",
];

/// Every command's long options whose type is text, from `schema --all --full`.
fn text_options() -> Vec<(String, String)> {
    let _ = declared();
    let out = Command::new(bin())
        .args(["schema", "--all", "--full"])
        .output()
        .expect("schema");
    let all: Value = serde_json::from_slice(&out.stdout).expect("schema JSON");
    let mut found = Vec::new();
    for c in all["commands"].as_array().expect("commands") {
        let name = c["name"].as_str().unwrap_or("");
        if SKIP.contains(&name) {
            continue;
        }
        for a in c["args"].as_array().into_iter().flatten() {
            let opt = a["name"].as_str().unwrap_or("");
            let text = a["type"].as_str().is_some_and(|t| t.starts_with("string"));
            if opt.starts_with("--") && text {
                found.push((name.to_string(), opt.to_string()));
            }
        }
    }
    found
}

#[test]
fn an_option_looking_value_of_every_text_option_is_a_value() {
    let env = TestEnv::new();
    env.write("a.txt", "one\n");
    let options = text_options();
    assert!(options.len() > 50, "{}", options.len());
    for (command, opt) in &options {
        for v in VALUES {
            let mut args: Vec<&str> = command.split(' ').collect();
            args.extend([opt.as_str(), v]);
            // `parse` (in run) enforces one envelope: a JSONL stream fails it.
            let r = env.run(&args);
            assert_eq!(
                r.json["command"],
                command.as_str(),
                "{args:?}: {}",
                r.stdout
            );
            let msg = r.json["error"]["message"].as_str().unwrap_or("");
            assert!(!msg.contains("needs a value"), "{args:?}: {msg}");
        }
    }
}

#[test]
fn edit_replaces_text_that_looks_like_a_flag() {
    let env = TestEnv::new();
    env.write("a.txt", "see --help here\n");
    let r = env.run(&["edit", "a.txt", "--old", "--help", "--new", "-h"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(env.read("a.txt"), b"see -h here\n");
    let r = env.run(&["edit", "a.txt", "--old", "-h", "--new", "--output=jsonl"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(env.read("a.txt"), b"see --output=jsonl here\n");
    let r = env.run(&["edit", "a.txt", "--old", "see", "--new", "--root"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(env.read("a.txt"), b"--root --output=jsonl here\n");
}

#[test]
fn words_in_the_command_place_get_real_answers() {
    let env = TestEnv::new();
    for v in ["-V", "--version"] {
        let r = env.run(&[v]);
        assert_eq!(r.json["command"], "version", "{v}");
        assert!(r.json["version"].is_string());
    }
    let r = env.run(&["-h"]);
    assert_eq!(r.json["command"], "help");
    assert!(r.json["commands"].is_array());
    let r = env.run(&["edit", "-h"]);
    assert_eq!(r.json["name"], "edit");
    let r = env.run(&["--bogus"]);
    assert_eq!(r.error_code(), "argument.invalid");
    let msg = r.json["error"]["message"].as_str().unwrap_or("");
    assert!(msg.contains("--bogus"), "{msg}");
    for (flag, cmd) in [
        ("--schema", "aitools schema"),
        ("--capabilities", "aitools capabilities"),
    ] {
        let r = env.run(&[flag]);
        assert_eq!(
            r.json["error"]["repairs"][0]["command"], cmd,
            "{}",
            r.stdout
        );
    }
}

#[test]
fn help_in_the_jsonl_mode_is_human_text() {
    let env = TestEnv::new();
    for args in [
        &["--output", "jsonl", "-h"][..],
        &["read", "-h", "--output=jsonl"],
    ] {
        let out = env.command(args).output().expect("spawn");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.starts_with("aitools"), "{args:?}: {text}");
        assert!(!text.contains("aoi:"), "{text}");
    }
}

#[test]
fn a_value_after_run_s_command_is_its_argv() {
    let env = TestEnv::new();
    let r = env.run(&["run", "echo", "--help"]);
    assert_eq!(r.json["command"], "run", "{}", r.stdout);
}
