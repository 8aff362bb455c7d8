//! What an adversarial run over real formats and real code found (issue 29): a
//! `.netrc` password (`machine h login u password p`) printed in clear on every
//! path; headings (`Basic Configuration`) and links after a provider's name
//! (`.. _pypi: https://pypi.org/...`) masked in a real project's docs.

use crate::support::TestEnv;

const NETRC: [&str; 2] = ["Tr0ub4dor&3xyzQ", "Hj5Tk8Lm2Qp9Xz"];

#[test]
fn a_netrc_password_is_masked_on_every_path_and_its_prose_is_not() {
    let env = TestEnv::new();
    env.write(
        ".netrc",
        format!(
            "machine api.example.com login bob password {}\nmachine b.example.com\n  login x\n  password {}\nThe password is required for login.\n",
            NETRC[0], NETRC[1]
        ),
    );
    env.commit_all("netrc");
    for argv in [
        &["read", ".netrc"][..],
        &["search", "login|password", ".", "-C", "0"],
        &["git", "show", "HEAD:.netrc"],
        &["git", "show", "HEAD"],
        &["git", "blame", ".netrc"],
    ] {
        let r = env.run(argv);
        assert_eq!(r.code, 0, "{argv:?}: {}", r.stdout);
        for s in NETRC {
            assert!(!r.stdout.contains(s), "{argv:?} leaked {s}: {}", r.stdout);
        }
        assert!(
            r.stdout.contains("The password is required for login."),
            "{argv:?}: {}",
            r.stdout
        );
        assert!(
            r.field("redactions").as_u64().unwrap_or(0) >= 2,
            "{argv:?}: {}",
            r.stdout
        );
    }
}

#[test]
fn headings_links_and_code_of_a_real_project_are_not_masked() {
    let env = TestEnv::new();
    let lines = [
        "Basic Configuration",
        "Bearer Authentication",
        ".. _pypi: https://pypi.org/search/?c=Framework+%3A%3A+Flask",
        "    password_hash = generate_password_hash(password)",
    ];
    env.write("docs.rst", lines.join("\n") + "\n");
    let r = env.run(&["read", "docs.rst"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(!r.stdout.contains("REDACTED"), "{}", r.stdout);
    assert!(r.field("redactions").is_null(), "{}", r.stdout);
    // The same schemes before a credential still mask it.
    env.write(
        "h.txt",
        "Authorization: Basic dXNlcjpUcjB1YjRkb3IzeHl6\nX-Auth: Bearer Tk8Lm2Qp9Xz4Wv7R\n",
    );
    let r = env.run(&["read", "h.txt"]);
    assert!(
        !r.stdout.contains("dXNlcjpUcjB1YjRkb3IzeHl6"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("Tk8Lm2Qp9Xz4Wv7R"), "{}", r.stdout);
}

#[test]
fn an_ampersand_inside_a_password_does_not_end_it_a_query_members_does() {
    let env = TestEnv::new();
    env.write(
        "notes.txt",
        "read leaked password=Tr0ub4dor&3xyzQ and more\nurl: https://x.io/?password=Hj5Tk8Lm2Q&user=bob\n",
    );
    let r = env.run(&["read", "notes.txt"]);
    assert!(!r.stdout.contains("3xyzQ"), "{}", r.stdout);
    assert!(!r.stdout.contains("Hj5Tk8Lm2Q"), "{}", r.stdout);
    assert!(r.stdout.contains("&user=bob"), "{}", r.stdout);
    let r = env.run(&[
        "feedback",
        "create",
        "--type",
        "bug",
        "--message",
        "it printed password=Tr0ub4dor&3xyzQ in clear",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(!r.stdout.contains("3xyzQ"), "{}", r.stdout);
}
