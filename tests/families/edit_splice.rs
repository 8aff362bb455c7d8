//! One `--old` edit of a large file (`Change::Splice`: written as the file's head,
//! the new text and its tail, never joined in memory): the same bytes as `sed`,
//! the hash of what was written, the diff of the lines it touched with their
//! numbers in the whole file, and an undo that restores the file.

use crate::support::fixtures::ok;
use crate::support::{TestEnv, sha256sum};
use std::process::Command;

/// Over 2 MiB, so the new hash resumes from a midstate of the snapshot.
fn big(lines: usize, line: impl Fn(usize) -> String) -> String {
    (0..lines).map(line).collect()
}

#[test]
fn a_large_file_edit_matches_sed_hashes_and_undoes() {
    let env = TestEnv::new();
    let body = big(120_000, |i| format!("{i:06} a line of a large file\n"));
    env.write("a.txt", &body);
    env.write("b.txt", &body);
    let r = env.run(&[
        "edit",
        "a.txt",
        "--old",
        "061000 a line",
        "--new",
        "061000 an edited\nline",
        "--max-diff-lines",
        "10",
    ]);
    ok(&r);
    let st = Command::new("sed")
        .args(["-i", "s/^061000 a line/061000 an edited\\nline/"])
        .arg(env.path("b.txt"))
        .status()
        .expect("sed");
    assert!(st.success());
    assert_eq!(env.read("a.txt"), env.read("b.txt"));
    let change = &r.json["changes"][0];
    assert_eq!(
        change["hash"].as_str(),
        Some(&sha256sum(&env.path("a.txt"))[..12]),
        "{}",
        r.stdout
    );
    assert_eq!(
        change["diff"].as_str(),
        Some(concat!(
            "@@ -61001 +61001,2 @@\n",
            "-061000 a line of a large file\n",
            "+061000 an edited\n",
            "+line of a large file\n",
        )),
        "{}",
        r.stdout
    );
    let op = r.json["op_id"].as_str().expect("op_id").to_string();
    ok(&env.run(&["undo", &op]));
    assert_eq!(env.read("a.txt"), body.as_bytes());
}

/// Where the lines around the edit repeat, the diff is still the whole file's:
/// one line deleted, numbered in the whole file.
#[test]
fn a_large_file_edit_among_repeated_lines_diffs_as_the_whole_file() {
    let env = TestEnv::new();
    let mut body = "same line\n".repeat(150_000);
    body.insert_str(10 * 100_000, "unique line\n");
    env.write("r.txt", &body);
    let r = env.run(&[
        "edit",
        "r.txt",
        "--old",
        "unique line\n",
        "--new",
        "",
        "--dry-run",
    ]);
    ok(&r);
    let change = &r.json["changes"][0];
    assert_eq!(
        change["diff"].as_str(),
        Some("@@ -100001 +100000,0 @@\n-unique line\n"),
        "{}",
        r.stdout
    );
    assert_eq!(
        env.read("r.txt"),
        body.as_bytes(),
        "a dry run writes nothing"
    );
    let r = env.run(&["edit", "r.txt", "--old", "unique line\n", "--new", ""]);
    ok(&r);
    assert_eq!(env.read("r.txt"), "same line\n".repeat(150_000).as_bytes());
    assert_eq!(
        r.json["changes"][0]["hash"].as_str(),
        Some(&sha256sum(&env.path("r.txt"))[..12])
    );
}
