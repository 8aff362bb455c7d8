//! Bounded inputs, black-box: content files, standard input and scans that could
//! run without end (devices, FIFOs, procfs, endless producers, trees outside the
//! workspace), and patterns matched against whole long lines.

use crate::support::TestEnv;
use std::process::Command;

/// The line numbers `grep -n` (the oracle) prints for `args`.
fn grep_numbers(env: &TestEnv, args: &[&str]) -> Vec<u64> {
    let out = Command::new("grep")
        .args(args)
        .current_dir(env.root())
        .output()
        .expect("grep");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_once(':').and_then(|(n, _)| n.parse().ok()))
        .collect()
}

#[test]
fn match_sees_the_whole_long_line_and_cuts_only_the_display() {
    let env = TestEnv::new();
    // A 40 KB line whose only match is at byte 30,000, past the 16,384-byte display cut.
    let mut long = "a".repeat(30_000);
    long.push_str("NEEDLE");
    long.push_str(&"b".repeat(40_000 - long.len()));
    env.write("long.txt", format!("first\n{long}\nlast\n"));
    let want = grep_numbers(&env, &["-n", "NEEDLE", "long.txt"]);
    assert_eq!(want, vec![2]);
    let r = env.run(&["read", "long.txt", "--match", "NEEDLE"]);
    assert_eq!(r.json["line_numbers"], serde_json::json!(want));
    // The display is cut at 16,384 bytes and says so.
    assert_eq!(r.lines()[0].len(), 16_384);
    assert_eq!(r.json["cut_lines"], serde_json::json!([2]));

    let want = grep_numbers(&env, &["-n", "-v", "NEEDLE", "long.txt"]);
    assert_eq!(want, vec![1, 3]);
    let r = env.run(&["read", "long.txt", "--match", "NEEDLE", "--invert"]);
    assert_eq!(r.code, 0, "{}", r.json["error"]);
    assert_eq!(r.json["line_numbers"], serde_json::json!(want));
    assert_eq!(r.lines(), vec!["first", "last"]);

    // --between's patterns see the whole line too.
    let r = env.run(&["read", "long.txt", "--between", "NEEDLE", "last"]);
    assert_eq!(r.json["start_line"], 2, "{}", r.json["error"]);
}
