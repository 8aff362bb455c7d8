//! A secret key's name carries to everything nested under it in a YAML block
//! sequence (issue 29): lists and random-looking values inside mapping items inside
//! lists, at any depth; a key's value on the line after the key (`token:` then
//! the value, deeper). Shown by `read` (whole, and a range starting inside),
//! `search`, `git show` of a commit adding the file whole (no lines before it),
//! `git show REV:file --range` and `git diff` context.

use crate::support::TestEnv;

/// Values nested under `credentials:`, none under a key of its own that names a secret.
const NESTED: [&str; 5] = [
    "Zq8v2LmP0xA1Wk3n",
    "Hf6d1SaQ4zC3Tn2h",
    "Pj5g8XeV2mD4Rb7c",
    "Lm4k7GfR1pG7Qa9w",
    "Tn2h6JyU8sF6Wk3n",
];
/// A value on the line after its key (YAML plain scalar, JSON string).
const NEXT: [&str; 2] = ["Kq2LmP0xA1Wk3n9RtY7u", "Gh9Kq2LmP0xA1Wk3n9Rt"];

fn yaml() -> String {
    format!(
        "credentials:\n  - name: prod\n    values:\n      - {}\n    nested:\n      deeper:\n        - item: {}\n          list:\n            - {}\n    inner:\n      - - {}\n    after: {}\n  - name: staging\nhosts:\n  - name: web\n    values:\n      - alpha-one.example.com\ntoken:\n  {}\nz: 1\n",
        NESTED[0], NESTED[1], NESTED[2], NESTED[3], NESTED[4], NEXT[0]
    )
}

fn json() -> String {
    format!(
        "{{\n  \"auth\": {{\n    \"token\":\n      \"{}\",\n    \"user\": \"bob\"\n  }}\n}}\n",
        NEXT[1]
    )
}

fn check(r: &crate::support::Run, secrets: &[&str], clear: &[&str]) {
    assert_eq!(r.code, 0, "{}", r.stdout);
    for s in secrets {
        assert!(!r.stdout.contains(s), "leaked {s}: {}", r.stdout);
    }
    for c in clear {
        assert!(r.stdout.contains(c), "over-masked {c}: {}", r.stdout);
    }
    assert!(
        r.field("redactions").as_u64().unwrap_or(0) >= 1,
        "{}",
        r.stdout
    );
}

#[test]
fn a_secret_keys_name_carries_into_lists_nested_in_its_sequences_items() {
    let env = TestEnv::new();
    env.write("c.yaml", yaml());
    env.write("n.json", json());
    env.commit_all("add");
    let all: Vec<&str> = NESTED.iter().chain(NEXT.iter()).copied().collect();
    let clear = [
        "name: prod",
        "name: staging",
        "alpha-one.example.com",
        "user",
    ];
    let r = env.run(&["read", "c.yaml"]);
    check(&r, &all, &clear[..3]);
    let r = env.run(&["read", "n.json"]);
    check(&r, &all, &clear[3..]);
    // The new file's commit: its diff has no line before the value's key.
    let r = env.run(&["git", "show", "HEAD"]);
    check(&r, &all, &clear);
    // Windows starting below `credentials:`.
    for argv in [
        &["read", "c.yaml", "--range", "6:12"][..],
        &["search", "item|list|after|- - ", "c.yaml", "-C", "1"],
        &["git", "show", "HEAD:c.yaml", "--range", "8:12"],
        &["read", "c.yaml", "--match", "Pj5g|Lm4k|Hf6d"],
    ] {
        let r = env.run(argv);
        check(&r, &all, &[]);
    }
    // A change below the values: the hunk's context starts inside the sequence.
    env.write("c.yaml", yaml().replace("name: staging", "name: stage2"));
    let r = env.run(&["git", "diff"]);
    check(&r, &all, &["name: stage2"]);
}

#[test]
fn a_providers_name_as_a_key_does_not_cover_what_is_nested_under_it() {
    let env = TestEnv::new();
    // flask's publish workflow: a job named after a provider (`pypi`, a weak key).
    let sha = "3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c";
    env.write(
        "publish.yaml",
        format!(
            "jobs:\n  publish-pypi:\n    permissions:\n      id-token: write\n    steps:\n      - uses: actions/download-artifact@{sha} # v8.0.1\n"
        ),
    );
    let r = env.run(&["read", "publish.yaml"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(r.stdout.contains(sha), "{}", r.stdout);
    assert!(r.field("redactions").is_null(), "{}", r.stdout);
}
