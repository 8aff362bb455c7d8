//! Issue 29, round five: an answer's `redactions` equals the number of values it
//! masked on the git paths that mask a patch line by line (`git show <commit>`,
//! `git diff --ref`), a list's elements and a block scalar's value counted like
//! `read` counts them.

use crate::support::TestEnv;

/// Eight values: three list elements, two under `credentials:`, two in a one-line
/// list, one block scalar.
const YAML: &str = "api_keys:\n  - Zq8v2LmP0xA1Wk3n9RtY7uB1\n  - Zq8v2LmP0xA1Wk3n9RtY7uB2\n  - Zq8v2LmP0xA1Wk3n9RtY7uB3\ncredentials:\n  a: Hj5Tk8Lm2Qp9Xz4WvB7nR3s1\n  b: Hj5Tk8Lm2Qp9Xz4WvB7nR3s2\ntokens: [\"Pq7w3MnQ1yB2Xl4o8SuZ6vC1\", \"Pq7w3MnQ1yB2Xl4o8SuZ6vC2\"]\npassword: |\n  Tr0ub4dor3xyzQ1\n";

/// Two block scalars one after the other and a list: four values.
const BLOCKS: &str = "a_password: |\n  Tr0ub4dor3xyzQ1\nb_password: |\n  Tr0ub4dor3xyzQ2\n  Tr0ub4dor3xyzQ3\ntokens:\n  - Pq7w3MnQ1yB2Xl4o8SuZ6vC1\n  - Pq7w3MnQ1yB2Xl4o8SuZ6vC2\nother: 1\n";

fn masks(stdout: &str) -> usize {
    stdout.matches("[REDACTED_SECRET]").count()
}

#[test]
fn git_show_and_diff_of_an_added_file_count_every_masked_value() {
    let env = TestEnv::new();
    env.write("README", "x\n");
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "base"]);
    env.write("k.yaml", YAML);
    env.write("m.yaml", BLOCKS);
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "secrets"]);
    for (file, n) in [("k.yaml", 8), ("m.yaml", 4)] {
        let r = env.run(&["read", file]);
        assert_eq!(r.field("redactions").as_u64(), Some(n), "{}", r.stdout);
        // The blob's lines, each value's lines masked.
        let blob = format!("HEAD:{file}");
        let r = env.run(&["git", "show", &blob]);
        assert_eq!(r.field("redactions").as_u64(), Some(n), "{}", r.stdout);
    }
    for argv in [
        &["git", "show", "HEAD"][..],
        &["git", "diff", "--ref", "HEAD~1"],
    ] {
        let r = env.run(argv);
        assert_eq!(r.code, 0, "{argv:?}: {}", r.stdout);
        assert!(!r.stdout.contains("Zq8v2LmP0x"), "{argv:?}: {}", r.stdout);
        // 13 masks for 12 values: m.yaml's second block scalar shows two lines.
        assert_eq!(masks(&r.stdout), 13, "{argv:?}: {}", r.stdout);
        assert_eq!(
            r.field("redactions").as_u64(),
            Some(12),
            "{argv:?}: {}",
            r.stdout
        );
    }
}
