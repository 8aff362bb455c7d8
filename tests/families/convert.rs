//! `transform`'s sort-version, shuffle, spaces-to-tabs, nfc/nfkc and reflow,
//! `transcode` and `split`, black-box, each against the tool it replaces:
//! `sort -V`, `unexpand`, python's unicodedata and textwrap, `iconv`,
//! `split` and `csplit`.

use crate::support::{Run, TestEnv};
use std::process::Command;

fn ok(r: &Run) {
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
}

/// The stdout of `script` run by sh in the workspace.
fn sh(env: &TestEnv, script: &str) -> Vec<u8> {
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(env.root())
        .output()
        .expect("sh");
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn first_repair(r: &Run) -> String {
    r.json["error"]["repairs"][0]["command"]
        .as_str()
        .unwrap()
        .to_string()
}

const VERSIONS: &str = "pkg-1.10.tar.gz\npkg-1.9.tar.gz\nv2.0\nv2.0-rc1\nv2.0~beta\nfoo10\nfoo9\nfoo\n1.2.3\n1.2.10\n1.02.3\n.hidden\n.\n\nlib-2.0.so.1\nlib-2.0.so.10\nlib-2.0.so.9\nA1\na1\nz~\nz\n";

#[test]
fn transform_sort_version_matches_sort_v() {
    let env = TestEnv::new();
    env.write("v.txt", VERSIONS);
    let want = sh(&env, "LC_ALL=C sort -V v.txt");
    ok(&env.run(&["transform", "v.txt", "--op", "sort-version"]));
    assert_eq!(
        String::from_utf8(env.read("v.txt")).unwrap(),
        String::from_utf8(want).unwrap()
    );
    // By a key field, as sort -V -k2,2 does.
    env.write("k.txt", "b 1.10\na 1.9\nc 1.9~rc\n");
    let want = sh(&env, "LC_ALL=C sort -V -k2,2 k.txt");
    ok(&env.run(&["transform", "k.txt", "--op", "sort-version", "--key", "2"]));
    assert_eq!(env.read("k.txt"), want);
}

#[test]
fn transform_shuffle_is_a_seeded_permutation() {
    let env = TestEnv::new();
    let body: String = (0..50).map(|i| format!("line {i}\n")).collect();
    env.write("a.txt", &body);
    env.write("b.txt", &body);
    ok(&env.run(&["transform", "a.txt", "--op", "shuffle", "--seed", "42"]));
    ok(&env.run(&["transform", "b.txt", "--op", "shuffle", "--seed", "42"]));
    let (a, b) = (env.read("a.txt"), env.read("b.txt"));
    assert_eq!(a, b, "the same seed gives the same order");
    assert_ne!(a, body.as_bytes(), "50 lines come out in another order");
    // A permutation: the same multiset of lines (sort of both agree).
    env.write("orig.txt", &body);
    assert_eq!(
        sh(&env, "LC_ALL=C sort a.txt"),
        sh(&env, "LC_ALL=C sort orig.txt")
    );
    env.write("c.txt", &body);
    ok(&env.run(&["transform", "c.txt", "--op", "shuffle", "--seed", "43"]));
    assert_ne!(env.read("c.txt"), a, "another seed, another order");
    // Without --seed: refused, and the repair runs.
    env.write("d.txt", &body);
    let r = env.run(&["transform", "d.txt", "--op", "shuffle"]);
    assert_eq!(r.error_code(), "argument.invalid");
    assert_eq!(env.read("d.txt"), body.as_bytes());
    ok(&env.run_line(&first_repair(&r)));
    assert_ne!(env.read("d.txt"), body.as_bytes());
}

#[test]
fn transform_spaces_to_tabs_matches_unexpand() {
    let env = TestEnv::new();
    let text = "        a  b\n    c\n  \t d\n\t    e\nf       g\n                  h\n   i\n";
    for (width, oracle) in [
        (None, "unexpand t.txt"),
        (Some("4"), "unexpand --first-only -t 4 t.txt"),
        (Some("2"), "unexpand --first-only -t 2 t.txt"),
        (Some("3"), "unexpand --first-only -t 3 t.txt"),
    ] {
        env.write("t.txt", text);
        let want = sh(&env, oracle);
        let mut argv = vec!["transform", "t.txt", "--op", "spaces-to-tabs"];
        if let Some(w) = width {
            argv.extend(["--width", w]);
        }
        ok(&env.run(&argv));
        assert_eq!(env.read("t.txt"), want, "{oracle}");
    }
}

#[test]
fn transform_nfc_nfkc_match_python_unicodedata() {
    let env = TestEnv::new();
    let text = "Cafe\u{301} \u{fb01}le \u{2460} \u{ff21}\u{ff22} \u{1e9b}\u{323} A\u{30a} \u{2126} \u{ff76}\u{ff9e} \u{1100}\u{1161}\u{11a8} x\u{b2}\n";
    for op in ["nfc", "nfkc"] {
        env.write("n.txt", text);
        let want = sh(
            &env,
            &format!(
                "python3 -c 'import sys,unicodedata; sys.stdout.write(unicodedata.normalize(\"{}\", open(\"n.txt\", encoding=\"utf-8\").read()))'",
                op.to_uppercase()
            ),
        );
        ok(&env.run(&["transform", "n.txt", "--op", op]));
        assert_eq!(
            String::from_utf8(env.read("n.txt")).unwrap(),
            String::from_utf8(want).unwrap(),
            "{op}"
        );
    }
}

#[test]
fn transform_reflow_matches_textwrap_and_leaves_fences() {
    let env = TestEnv::new();
    let doc = "This is the first paragraph. It has\nshort lines that should be joined\ntogether and then filled to the width given.\n\n  An indented paragraph keeps its indent when it is reflowed, even across several lines\n  of text that go on.\n\n```\ncode   line  that is very long and must never be touched by reflow at all, whatever happens\nshort\n```\n\nlast words\n";
    env.write("r.md", doc);
    ok(&env.run(&["transform", "r.md", "--op", "reflow", "--columns", "30"]));
    // The oracle: textwrap.fill of each paragraph outside the fence, indent kept.
    let want = sh(
        &env,
        r#"python3 - <<'EOF'
import re, sys, textwrap
doc = open('r.md').read()
out, fenced, para = [], False, []
def flush():
    if para:
        ind = re.match(r'\s*', para[0]).group(0)
        out.extend(textwrap.wrap(' '.join(' '.join(para).split()), 30, initial_indent=ind,
            subsequent_indent=ind, break_long_words=False, break_on_hyphens=False))
        para.clear()
for l in doc.split('\n')[:-1]:
    if l.startswith('```'):
        flush(); fenced = not fenced; out.append(l)
    elif fenced: out.append(l)
    elif not l.strip(): flush(); out.append(l)
    else: para.append(l)
flush()
sys.stdout.write('\n'.join(out) + '\n')
EOF"#,
    );
    assert_eq!(
        String::from_utf8(env.read("r.md")).unwrap(),
        String::from_utf8(want).unwrap()
    );
    // wrap leaves the fence alone too.
    env.write("w.md", "```\nxxxx yyyy zzzz\n```\naaaa bbbb cccc\n");
    ok(&env.run(&["transform", "w.md", "--op", "wrap", "--columns", "9"]));
    assert_eq!(
        env.read("w.md"),
        b"```\nxxxx yyyy zzzz\n```\naaaa bbbb\ncccc\n"
    );
}
