//! Faults and attacks on the store, black-box: a committed write is never
//! reported as refused, a recovery step that cannot run never blocks reads, and a
//! state directory or intent record someone else could have planted is never
//! trusted.

use crate::support::TestEnv;

/// A write whose diff alone would pass the envelope cap is committed and journaled
/// before its answer is built: the answer is ok with its op_id, the diff is cut.
#[test]
fn edit_of_an_8mb_line_answers_ok_and_undoes() {
    let env = TestEnv::new();
    let mut big = vec![b'a'; 8 * 1024 * 1024];
    big.extend_from_slice(b"X\n");
    env.write("big.txt", &big);
    let r = env.run(&["edit", "big.txt", "--old", "X", "--new", "Y"]);
    assert_eq!(
        r.code,
        0,
        "{}",
        r.stderr.chars().take(600).collect::<String>()
    );
    let op = r.json["op_id"].as_str().expect("op_id").to_string();
    assert_eq!(r.json["changes"][0]["diff_truncated"], true);
    assert!(r.stdout.len() < 4 * 1024 * 1024, "{}", r.stdout.len());
    assert!(env.read("big.txt").ends_with(b"Y\n"));
    let u = env.run(&["undo", &op]);
    assert_eq!(
        u.code,
        0,
        "{}",
        u.stderr.chars().take(600).collect::<String>()
    );
    assert_eq!(env.read("big.txt"), big);
}
