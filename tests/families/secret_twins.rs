//! Issue 29, round seven: a value masked once is masked everywhere it is shown,
//! also when `--output jsonl` streams it before the file whose key names it, and
//! when it is (part of) a file's name in any listing of paths.

use crate::support::TestEnv;

const K: &str = "Zq8v2LmP0xA1Wk3n9RtY7uB2";
const PW: &str = "Tr0ub4dor&3xyzQ";

/// `a/bare.csv` is streamed before `b/keyed.env`, whose keyed lines reveal its
/// bare values: the stream masks them as the one envelope does.
#[test]
fn a_stream_masks_a_twin_shown_before_its_key() {
    let env = TestEnv::new();
    env.write("a/bare.csv", format!("name,v\nprod,{PW}\nci,{K}\n"));
    env.write("b/keyed.env", format!("DB_PASSWORD={PW}\nAPI_SECRET={K}\n"));
    for args in [
        &["search", r"\S+", ".", "--output", "matches"][..],
        &["search", r"\S+", "."][..],
    ] {
        let r = env.run(args);
        assert!(
            !r.stdout.contains(K) && !r.stdout.contains("Tr0ub4dor"),
            "{}",
            r.stdout
        );
        let mut argv = vec!["--output", "jsonl"];
        argv.extend_from_slice(args);
        let out = env.command(&argv).output().expect("spawn aitools");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("\"ok\":true"), "{text}");
        assert!(text.contains("[REDACTED_SECRET]"), "{text}");
        assert!(
            !text.contains(K) && !text.contains("Tr0ub4dor"),
            "{args:?}: {text}"
        );
    }
}
