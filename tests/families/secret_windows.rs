//! Secrets shown in a window of a file (issue 29, what the third stop left): each
//! element of a list under a secret key spread over lines (a YAML sequence, a
//! pretty-printed JSON array) masked wherever the list is shown; `git show
//! --match`, `git blame --range` and `git diff` context primed with the lines above
//! them; one secret counted once over the matched lines that show it, and once
//! when its masked text is encoded.

use crate::support::TestEnv;

const T1: &str = "Rk1q8ZfK2mLx9Rt4Vb7Np";
const T2: &str = "Hj5Tk8Lm2Qp9Xz4Wv7Rs3Nb";
const HOST: &str = "alpha-one.example.com";
const BLOCK: [&str; 3] = [
    "Zq8Lk2Hs9Pq1Wm4Xn7Rt5Yv0Bc6Dg8",
    "Mx7Rt5Yv0Bc6Dg8Zq8Lk2Hs9Pq1Wm4",
    "Hs9Pq1Wm4Xn7Rt5Yv0Bc6Dg8Zq8Lk2",
];
const BODY: [&str; 2] = [
    "MIIERIgP/58waM+Dx3A5idNoDCDBwb2Dc4/dsdc6lC1MXlPq2Ymk/yE9fz1WuvL4",
    "MIIENUyv+D8FnyVVdBZdzst6iAxQa2H9uZ0+t1sAq6DdWXLgEJKC5BjfiOXslIVU",
];

/// Twenty filler lines, so a hunk's context starts below a value's opening line.
fn filler() -> String {
    (0..20).map(|i| format!("x{i}: {i}\n")).collect()
}

fn setup() -> TestEnv {
    let env = TestEnv::new();
    env.write(
        "l.yaml",
        format!(
            "{}tokens:\n  - {T1}\n  - {T2}\nhosts:\n  - {HOST}\nz: 1\n",
            filler()
        ),
    );
    env.write(
        "l.json",
        format!(
            "{{\n  \"name\": \"x\",\n  \"api_keys\": [\n    \"{T1}\",\n    \"{T2}\"\n  ],\n  \"hosts\": [\n    \"{HOST}\"\n  ]\n}}\n"
        ),
    );
    env.write(
        "b.yaml",
        format!(
            "{}password: |\n  {}\n  {}\n  {}\nother: 1\n",
            filler(),
            BLOCK[0],
            BLOCK[1],
            BLOCK[2]
        ),
    );
    env.write(
        "k.pem",
        format!(
            "-----BEGIN RSA PRIVATE KEY-----\n{}\n{}\n-----END RSA PRIVATE KEY-----\n",
            BODY[0], BODY[1]
        ),
    );
    env.commit_all("init");
    env
}

fn redactions(r: &crate::support::Run) -> u64 {
    r.field("redactions").as_u64().unwrap_or(0)
}

/// No value of `secrets` in the answer, `clear` still in it.
fn check(r: &crate::support::Run, secrets: &[&str], clear: &[&str]) {
    for s in secrets {
        assert!(!r.stdout.contains(s), "leaked {s}: {}", r.stdout);
    }
    for c in clear {
        assert!(r.stdout.contains(c), "over-masked {c}: {}", r.stdout);
    }
}

#[test]
fn each_element_of_a_keyed_list_over_lines_is_masked_wherever_it_is_shown() {
    let env = setup();
    let both = [T1, T2];
    // Each call, and how many elements it shows.
    let calls: [(&[&str], u64); 11] = [
        (&["read", "l.yaml"], 2),
        (&["read", "l.json"], 2),
        (&["read", "l.yaml", "--range", "22:25"], 2),
        (&["read", "l.json", "--range", "5:8"], 1),
        (&["read", "l.json", "--match", "Hj5|alpha"], 1),
        (&["read", "l.yaml", "--match", "Hj5|alpha"], 1),
        (&["search", "Hj5|alpha", "l.json", "l.yaml", "-C", "0"], 2),
        (&["git", "show", "HEAD:l.yaml"], 2),
        (&["git", "show", "HEAD:l.json", "--range", "4:8"], 2),
        (&["git", "show", "HEAD:l.json", "--match", "Hj5|alpha"], 1),
        (&["git", "show", "HEAD:l.yaml", "--match", "Hj5|alpha"], 1),
    ];
    for (argv, want) in calls {
        let r = env.run(argv);
        assert!(r.code == 0, "{argv:?}: {}", r.stdout);
        check(&r, &both, &[HOST]);
        assert_eq!(redactions(&r), want, "{argv:?}: {}", r.stdout);
    }
    let r = env.run(&["json", "get", "l.json", "/api_keys/1"]);
    check(&r, &both, &[]);
    // A change next to the list: the hunk's context starts inside it.
    env.write(
        "l.yaml",
        format!(
            "{}tokens:\n  - {T1}\n  - {T2}\nhosts:\n  - {HOST}\nz: 2\n",
            filler()
        ),
    );
    let r = env.run(&["git", "diff"]);
    check(&r, &both, &[HOST]);
    let r = env.run(&["diff", "l.yaml", "l.json"]);
    check(&r, &both, &[HOST]);
}

#[test]
fn git_show_match_git_blame_and_git_diff_context_see_the_lines_above_them() {
    let env = setup();
    for argv in [
        &["git", "show", "HEAD:b.yaml", "--match", "Mx7"][..],
        &["git", "show", "HEAD:k.pem", "--match", "^MIIEN"],
    ] {
        let r = env.run(argv);
        check(&r, &[BLOCK[1], BODY[1]], &[]);
        assert_eq!(redactions(&r), 1, "{argv:?}: {}", r.stdout);
    }
    for argv in [
        &["git", "blame", "b.yaml", "--range", "23:24"][..],
        &[
            "git", "blame", "l.yaml", "--range", "23:23", "--rev", "HEAD",
        ],
    ] {
        let r = env.run(argv);
        check(&r, &[BLOCK[1], BLOCK[2], T2], &[]);
        assert_eq!(redactions(&r), 1, "{argv:?}: {}", r.stdout);
    }
    // The block's opening line is 3 lines above the hunk's first line.
    env.write(
        "b.yaml",
        format!(
            "{}password: |\n  {}\n  {}\n  {}\nother: 2\n",
            filler(),
            BLOCK[0],
            BLOCK[1],
            "Wq5Nm8Kr2Lx4VqDdWq5Nm8Kr2Lx4Vq"
        ),
    );
    let r = env.run(&["git", "diff", "b.yaml"]);
    check(&r, &BLOCK, &["other: 2"]);
    check(&r, &["Wq5Nm8Kr2Lx4VqDd"], &[]);
    assert!(redactions(&r) >= 1, "{}", r.stdout);
}

#[test]
fn read_match_counts_one_secret_once_over_the_lines_it_spans() {
    let env = setup();
    for (argv, want) in [
        (&["read", "b.yaml", "--match", "^  "][..], 1),
        (&["read", "b.yaml", "--match", "."], 1),
        (&["read", "k.pem", "--match", "^MIIE"], 1),
        (&["read", "k.pem", "--match", "."], 1),
        (&["read", "k.pem", "--match", "PRIVATE"], 1),
        (&["read", "l.yaml", "--match", "^  - "], 2),
    ] {
        let r = env.run(argv);
        check(&r, &BLOCK, &[]);
        check(&r, &BODY, &[]);
        assert_eq!(redactions(&r), want, "{argv:?}: {}", r.stdout);
    }
}

#[test]
fn encoding_a_masked_secret_counts_it_once() {
    let env = TestEnv::new();
    let text = format!("some text here and there api_key={T2}");
    for scheme in ["base64", "hex", "url"] {
        let r = env.run(&["util", "encode", scheme, "--content", &text]);
        assert_eq!(r.code, 0, "{}", r.stdout);
        assert_eq!(redactions(&r), 1, "{scheme}: {}", r.stdout);
    }
}
