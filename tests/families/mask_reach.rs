//! Where the mask must reach (issue 29, second pass): a list written on its key's
//! line, lines shown apart from the key above them (`read --match`, `search`
//! context, `wait`), and a count that says each secret once.

use crate::support::{Run, TestEnv};

const MASK: &str = "[REDACTED_SECRET]";

fn hidden(r: &Run, secrets: &[&str]) {
    for s in secrets {
        assert!(
            !r.stdout.contains(s) && !r.stderr.contains(s),
            "{s} leaked: {}{}",
            r.stdout,
            r.stderr
        );
    }
}

fn redactions(r: &Run) -> u64 {
    r.json["redactions"].as_u64().unwrap_or(0)
}

const K1: &str = "q8Zf3Lk2Hs9Pq1Wm4Xn7Rt5";
const K2: &str = "Hs9Pq1Wm4Xn7Rt5Yv0Bc6";

/// A list on its key's line: JSON, YAML flow and TOML arrays, each element judged
/// as a list's elements are in `json get` (machine-made values masked, names kept).
#[test]
fn a_list_on_its_keys_line_is_masked_element_by_element() {
    let env = TestEnv::new();
    env.write(
        "a.json",
        &format!("{{\"api_keys\": [\"{K1}\", \"{K2}\"], \"name\": \"x\"}}\n"),
    );
    env.write(
        "b.yaml",
        &format!("tokens: [{K1}, {K2}]\nnames: [alpha, beta]\n"),
    );
    env.write(
        "c.toml",
        &format!("keys = [\"{K1}\", '{K2}']\nsecrets = [\"db-password\"]\n"),
    );
    for f in ["a.json", "b.yaml", "c.toml"] {
        let r = env.run(&["read", f]);
        assert_eq!(r.code, 0, "{}", r.stdout);
        hidden(&r, &[K1, K2]);
        assert_eq!(redactions(&r), 2, "{f}: {}", r.stdout);
    }
    let r = env.run(&["read", "b.yaml"]);
    assert_eq!(r.lines()[0], format!("tokens: [{MASK}, {MASK}]"));
    assert_eq!(r.lines()[1], "names: [alpha, beta]");
    let r = env.run(&["read", "c.toml"]);
    assert_eq!(r.lines()[1], "secrets = [\"db-password\"]");
    // The same list in the same line found by search, and the document by pointer.
    let r = env.run(&["search", "api_keys", "a.json"]);
    hidden(&r, &[K1, K2]);
    let r = env.run(&["json", "get", "a.json", ""]);
    hidden(&r, &[K1, K2]);
}
