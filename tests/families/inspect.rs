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
    assert_eq!(first.json["hash"], sha256sum(&p));
    assert_eq!(first.json["approx_tokens"], 2);
    let next = first.json["next_commands"][0].as_str().unwrap();
    assert_eq!(next, "aitools read nums.txt --range 4:6 --max-lines 3");
    let argv: Vec<&str> = next.split(' ').skip(1).collect();
    let second = env.run(&argv);
    assert_eq!(second.lines(), vec!["4", "5", "6"]);
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
