//! The release contract: `--version` names the version and the commit built,
//! CHANGELOG has a section per released version matching Cargo.toml, and README
//! says how to install before it shows a host config, with examples that are true.

use crate::support::TestEnv;
use std::path::Path;
use std::process::Command;

fn repo_file(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `version = "..."` of Cargo.toml's `[package]`.
fn cargo_version() -> String {
    let toml = repo_file("Cargo.toml");
    let line = toml
        .lines()
        .find(|l| l.starts_with("version = "))
        .expect("version line");
    line.trim_start_matches("version = ")
        .trim_matches('"')
        .into()
}

/// The checkout's `git rev-parse --short=12 HEAD`, None outside a checkout.
fn checkout_head() -> Option<String> {
    let out = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[test]
fn version_names_the_release_and_the_commit_built() {
    let env = TestEnv::new();
    for flag in ["--version", "-V"] {
        let v = env.run(&[flag]);
        assert_eq!(v.code, 0, "{}", v.stdout);
        assert_eq!(v.json["version"], "0.9.0", "{}", v.stdout);
        assert_eq!(v.json["version"], cargo_version().as_str());
        // 0.9.0 leaves out the counts a diff's hunks already hold and git show's echoed rev.
        assert_eq!(v.json["schema_version"], 9, "{}", v.stdout);
        let commit = v.json["commit"].as_str().expect("commit").to_string();
        match checkout_head() {
            Some(head) => assert!(
                commit == head || commit == format!("{head}-dirty"),
                "commit {commit} is not HEAD {head}"
            ),
            None => assert_eq!(commit, "unknown"),
        }
    }
}

#[test]
fn changelog_has_a_section_per_release_matching_cargo_toml() {
    let log = repo_file("CHANGELOG.md");
    let heads: Vec<&str> = log.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(heads.first(), Some(&"## Unreleased"), "{heads:?}");
    let released = heads.get(1).expect("a released section");
    let version = cargo_version();
    assert!(
        released.starts_with(&format!("## {version} — ")),
        "top released section {released:?} is not Cargo.toml's {version}"
    );
    assert!(heads.iter().any(|h| h.starts_with("## 0.2.0")));
    assert!(heads.iter().any(|h| h.starts_with("## 0.3.0")));
    assert!(heads.iter().any(|h| h.starts_with("## 0.4.0")));
    assert!(heads.iter().any(|h| h.starts_with("## 0.5.0")));
    assert!(heads.iter().any(|h| h.starts_with("## 0.6.0")));
    assert!(heads.iter().any(|h| h.starts_with("## 0.7.0")));
    assert!(heads.iter().any(|h| h.starts_with("## 0.8.0")));
    assert!(heads.iter().any(|h| h.starts_with("## 0.9.0")));
    assert!(log.contains("semver"), "no versioning policy");
}
#[test]
fn readme_says_how_to_install_before_the_host_config() {
    let readme = repo_file("README.md");
    let host = readme.find("\"mcpServers\"").expect("host config");
    let install = readme.find("cargo install --path .").expect("install step");
    assert!(install < host, "install step after the host config");
    assert!(readme[..host].contains("cargo install --git "));
    assert!(readme.contains("--output jsonl"));
}

/// The first two commands README shows (its envelope examples) answer what it
/// prints, byte for byte.
#[test]
fn readme_envelope_examples_are_what_the_binary_prints() {
    let readme = repo_file("README.md");
    let env = TestEnv::new();
    let nums: String = (1..=200).map(|n| format!("{n}\n")).collect();
    env.write("nums.txt", nums);
    let ok = env.run(&["read", "nums.txt", "--max-lines", "3"]);
    let shown = |start: &str| {
        readme
            .lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("README shows no {start}"))
            .to_string()
    };
    assert_eq!(
        ok.stdout.trim_end(),
        shown("{\"schema_version\":9,\"status\":\"partial\"")
    );
    let err = env.run(&["read", "missing.txt"]);
    assert_eq!(
        err.stderr.trim_end(),
        shown("{\"schema_version\":9,\"status\":\"error\"")
    );
}

/// README opens with the two commands a fresh machine runs (the tool on something
/// real, then the tests), and its Install block puts the binary on PATH; each
/// `aitools` call shown there answers (in a workspace holding a README.md).
#[test]
fn readme_opens_with_run_and_test_then_install() {
    let readme = repo_file("README.md");
    let blocks: Vec<Vec<&str>> = readme
        .split("```sh\n")
        .skip(1)
        .take(2)
        .map(|b| {
            b.split("```")
                .next()
                .unwrap_or("")
                .lines()
                .map(|l| l.split(" #").next().unwrap_or(l).trim())
                .collect()
        })
        .collect();
    assert_eq!(blocks.len(), 2, "two sh blocks at the top");
    assert!(
        blocks[0][0].starts_with("cargo run --release -- read README.md"),
        "{blocks:?}"
    );
    assert_eq!(blocks[0][1], "cargo test", "{blocks:?}");
    assert!(
        blocks[1][0].starts_with("cargo install --path ."),
        "{blocks:?}"
    );
    assert!(
        blocks[1][1].starts_with("cargo install --git "),
        "{blocks:?}"
    );
    let env = TestEnv::new();
    env.write("README.md", &readme);
    let run = blocks[0][0].replace("cargo run --release -- ", "aitools ");
    for line in std::iter::once(run.as_str()).chain(
        blocks[1]
            .iter()
            .copied()
            .filter(|l| l.starts_with("aitools ")),
    ) {
        let r = env.run_line(line);
        assert!(
            r.code == 0 || r.code == 3,
            "{line}: {}{}",
            r.stdout,
            r.stderr
        );
    }
}

/// The `result` event's schema declares its members: every member of a real
/// `result` (read, info, search, edit, find) is among them.
#[test]
fn aoi_result_schema_declares_the_members_results_carry() {
    let env = TestEnv::new();
    env.write("a.txt", "one\ntwo\nthree\n");
    let out = env.command(&["schema", "--output", "json"]).output();
    let doc: serde_json::Value =
        serde_json::from_slice(&out.expect("spawn").stdout).expect("a JSON document");
    let props = doc["$defs"]["result"]["properties"]
        .as_object()
        .expect("result properties")
        .clone();
    assert!(props.contains_key("total_lines"), "{props:?}");
    let calls: [&[&str]; 5] = [
        &["read", "a.txt", "--max-lines", "2"],
        &["info", "a.txt"],
        &["search", "t", "--limit", "1"],
        &["edit", "a.txt", "--old", "two", "--new", "2"],
        &["find", "--type", "file"],
    ];
    let mut seen = 0;
    for args in calls {
        let out = env
            .command(&[&["--output", "jsonl"], args].concat())
            .output();
        let out = out.expect("spawn");
        let text = String::from_utf8_lossy(&out.stdout);
        let result = text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .find(|e| e["type"] == "result");
        let Some(result) = result else { continue };
        seen += 1;
        for k in result.as_object().into_iter().flatten().map(|(k, _)| k) {
            assert!(
                k == "type" || k == "aoi" || props.contains_key(k),
                "{args:?}: result member {k} is not declared"
            );
        }
    }
    assert!(seen >= 3, "only {seen} results");
}
