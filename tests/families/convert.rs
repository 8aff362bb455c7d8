//! `transform`'s sort-version, shuffle, spaces-to-tabs, nfc/nfkc and reflow,
//! `transcode` and `split`, black-box, each against the tool it replaces:
//! `sort -V`, `unexpand`, python's unicodedata and textwrap, `iconv`,
//! `split` and `csplit`.

use crate::support::fixtures::ok;
use crate::support::{Run, TestEnv};
use std::process::Command;

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

/// `iconv -f FROM -t TO` of a workspace file.
fn iconv(env: &TestEnv, from: &str, to: &str, file: &str) -> Vec<u8> {
    sh(env, &format!("iconv -f {from} -t {to} {file}"))
}

const JA: &str = "日本語のテキスト ｶﾅ\nsecond line: ascii, 漢字\n";
/// CP932's own characters (NEC row 13, full-width tilde), which EUC-JP lacks.
const CP932: &str = "日本語 ①～ｶﾅ\nsecond line: ascii, 漢字\n";

#[test]
fn transcode_matches_iconv_both_ways_and_undoes() {
    let env = TestEnv::new();
    for (ours, theirs, text) in [
        ("shift_jis", "CP932", CP932),
        ("shift_jis", "CP932", JA),
        ("euc-jp", "EUC-JP", JA),
        ("utf-16le", "UTF-16LE", CP932),
        ("utf-16be", "UTF-16BE", CP932),
    ] {
        env.write("ja.txt", text);
        let want = iconv(&env, "UTF-8", theirs, "ja.txt");
        let r = env.run(&["transcode", "ja.txt", "--to", ours]);
        ok(&r);
        // What the caller sent (--to) is not echoed; the guessed source is said.
        assert_eq!(r.json["from"], "utf-8");
        assert!(r.json.get("to").is_none(), "{}", r.stdout);
        assert!(r.json.get("replaced").is_none(), "{}", r.stdout);
        // The same text in other bytes: no line diff is shown.
        assert!(r.json["changes"][0].get("diff").is_none(), "{}", r.stdout);
        assert_eq!(env.read("ja.txt"), want, "utf-8 -> {ours}");
        // Back to UTF-8: named, or (Japanese encodings) guessed.
        let back = if ours.starts_with("utf-16") {
            env.run(&["transcode", "ja.txt", "--from", ours])
        } else {
            env.run(&["transcode", "ja.txt"])
        };
        ok(&back);
        if ours.starts_with("utf-16") {
            assert!(back.json.get("from").is_none(), "{}", back.stdout);
        } else {
            assert_eq!(back.json["from"], ours);
        }
        assert_eq!(env.read("ja.txt"), text.as_bytes(), "{ours} -> utf-8");
        // Undo restores the bytes before.
        ok(&env.run(&["undo", &back.op_id()]));
        assert_eq!(env.read("ja.txt"), want);
    }
    // Latin-1 both ways; the source named.
    env.write("l.txt", "café naïve\n");
    let want = iconv(&env, "UTF-8", "LATIN1", "l.txt");
    ok(&env.run(&["transcode", "l.txt", "--to", "iso-8859-1"]));
    assert_eq!(env.read("l.txt"), want);
    ok(&env.run(&["transcode", "l.txt", "--from", "latin1"]));
    assert_eq!(env.read("l.txt"), "café naïve\n".as_bytes());
    // Already in the target encoding: nothing written.
    let same = env.run(&["transcode", "l.txt", "--to", "utf-8"]);
    ok(&same);
    assert!(same.json["op_id"].is_null(), "{}", same.stdout);
}

#[test]
fn transcode_refuses_what_it_cannot_carry_over() {
    let env = TestEnv::new();
    env.write("ja.txt", JA);
    // A character the target lacks: refused, nothing written, the repair runs.
    let r = env.run(&["transcode", "ja.txt", "--to", "iso-8859-1"]);
    assert_eq!(r.error_code(), "input.unsupported-format", "{}", r.stdout);
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("line 1")
    );
    assert_eq!(env.read("ja.txt"), JA.as_bytes());
    let fixed = env.run_line(&first_repair(&r));
    ok(&fixed);
    let text = "second line: ascii, ??\n";
    assert!(env.read("ja.txt").ends_with(text.as_bytes()));
    let q = env.read("ja.txt").iter().filter(|&&b| b == b'?').count() as u64;
    assert_eq!(fixed.json["replaced"], q);
    // Bytes that are not the named source: refused.
    env.write("l1.txt", b"caf\xe9\n");
    let r = env.run(&["transcode", "l1.txt", "--from", "utf-8", "--to", "utf-16le"]);
    assert_eq!(r.error_code(), "input.unsupported-format");
    assert_eq!(env.read("l1.txt"), b"caf\xe9\n");
    // A source no guess names: refused; the repair (--from iso-8859-1) runs.
    let r = env.run(&["transcode", "l1.txt"]);
    assert_eq!(r.error_code(), "input.unsupported-format", "{}", r.stdout);
    ok(&env.run_line(&first_repair(&r)));
    assert_eq!(env.read("l1.txt"), "café\n".as_bytes());
    // An unknown encoding name is an argument error.
    let r = env.run(&["transcode", "l1.txt", "--to", "klingon"]);
    assert_eq!(r.error_code(), "argument.invalid");
    // A guarded write: a stale --expect-hash refuses.
    let r = env.run(&[
        "transcode",
        "l1.txt",
        "--to",
        "utf-16be",
        "--expect-hash",
        "0123456789ab",
    ]);
    assert_eq!(r.error_code(), "refusal.target-changed");
}

/// The files of `dir` (workspace-relative) whose names start with `prefix`, sorted.
fn pieces(env: &TestEnv, dir: &str, prefix: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(env.path(dir))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix))
        .collect();
    v.sort();
    v
}

/// Our pieces of `file` (in the root) equal the oracle's, made in `o/`.
fn same_pieces(env: &TestEnv, file: &str, oracle: &str) {
    sh(env, &format!("rm -rf o && mkdir o && {oracle}"));
    let theirs = pieces(env, "o", &format!("{file}."));
    let ours = pieces(env, ".", &format!("{file}."));
    assert!(!theirs.is_empty(), "{oracle}");
    assert_eq!(ours, theirs, "{oracle}");
    for n in &ours {
        assert_eq!(env.read(n), env.read(&format!("o/{n}")), "{oracle}: {n}");
    }
}

#[test]
fn split_matches_split_and_csplit_and_undoes_as_one() {
    let env = TestEnv::new();
    let mut body: String = (1..=25).map(|i| format!("line {i}\n")).collect();
    body.push_str("no final newline");
    env.write("d.txt", &body);
    let r = env.run(&["split", "d.txt", "--lines", "10"]);
    ok(&r);
    same_pieces(&env, "d.txt", "split -l 10 -d -a 3 d.txt o/d.txt.");
    assert_eq!(r.json["pieces"][1]["start_line"], 11);
    assert_eq!(r.json["pieces"][2]["lines"], 6);
    assert_eq!(env.read("d.txt"), body.as_bytes(), "the source is kept");
    // One op: undo removes every piece.
    ok(&env.run(&["undo", &r.op_id()]));
    assert!(pieces(&env, ".", "d.txt.").is_empty());

    ok(&env.run(&["split", "d.txt", "--bytes", "64"]));
    same_pieces(&env, "d.txt", "split -b 64 -d -a 3 d.txt o/d.txt.");
    sh(&env, "rm d.txt.*");

    let md = "intro\n## one\na\nb\n## two\nc\n## three\n";
    env.write("m.md", md);
    ok(&env.run(&["split", "m.md", "--at-match", "^## "]));
    same_pieces(
        &env,
        "m.md",
        "csplit -s -z -f o/m.md. -n 3 m.md '/^## /' '{*}'",
    );
    // A match on the first line: no empty first piece (csplit -z).
    env.write("h.md", "## a\nx\n## b\ny\n");
    let r = env.run(&["split", "h.md", "--at-match", "^## ", "--prefix", "part-"]);
    ok(&r);
    assert_eq!(env.read("part-000"), b"## a\nx\n");
    assert_eq!(env.read("part-001"), b"## b\ny\n");
    assert_eq!(r.json["pieces"][1]["start_line"], 3);
}

#[test]
fn split_refuses_taken_names_and_too_many_pieces() {
    let env = TestEnv::new();
    let body: String = (1..=25).map(|i| format!("{i}\n")).collect();
    env.write("d.txt", &body);
    env.write("d.txt.001", "mine\n");
    let r = env.run(&["split", "d.txt", "--lines", "10"]);
    assert_eq!(r.error_code(), "refusal.exists", "{}", r.stdout);
    assert_eq!(env.read("d.txt.001"), b"mine\n");
    assert!(!env.path("d.txt.000").exists(), "all pieces or none");
    ok(&env.run_line(&first_repair(&r)));
    assert_eq!(env.read("d.txt.1.002"), b"21\n22\n23\n24\n25\n");
    // More pieces than the digits can number: refused; the repair fits.
    let r = env.run(&[
        "split",
        "d.txt",
        "--lines",
        "1",
        "--suffix-digits",
        "1",
        "--prefix",
        "q.",
    ]);
    assert_eq!(r.error_code(), "refusal.too-large", "{}", r.stdout);
    assert!(!env.path("q.0").exists());
    let fixed = env.run_line(&first_repair(&r));
    ok(&fixed);
    assert_eq!(fixed.json["pieces"].as_array().unwrap().len(), 9);
    // Exactly one way to split; a bad regex; a dry run writes nothing.
    let r = env.run(&["split", "d.txt", "--lines", "2", "--bytes", "3"]);
    assert_eq!(r.error_code(), "argument.invalid");
    let r = env.run(&["split", "d.txt", "--at-match", "("]);
    assert_eq!(r.error_code(), "input.syntax-error");
    let r = env.run(&[
        "split",
        "d.txt",
        "--lines",
        "5",
        "--prefix",
        "dry.",
        "--dry-run",
    ]);
    ok(&r);
    assert!(!env.path("dry.000").exists());
}

#[test]
fn transcode_and_split_stage_in_a_tx() {
    let env = TestEnv::new();
    env.write("ja.txt", JA);
    env.write("s.txt", "1\n2\n3\n4\n5\n");
    let tx = env.tx_begin();
    ok(&env.run(&["transcode", "ja.txt", "--to", "euc-jp", "--tx", &tx]));
    // The second call reads the staged bytes: EUC-JP, guessed, back to UTF-16BE.
    let r = env.run(&["transcode", "ja.txt", "--to", "utf-16be", "--tx", &tx]);
    ok(&r);
    assert_eq!(r.json["from"], "euc-jp");
    ok(&env.run(&["split", "s.txt", "--lines", "2", "--tx", &tx]));
    assert_eq!(
        env.read("ja.txt"),
        JA.as_bytes(),
        "nothing written before commit"
    );
    assert!(!env.path("s.txt.000").exists());
    ok(&env.run(&["tx", "commit", &tx]));
    env.write("orig.txt", JA);
    assert_eq!(
        env.read("ja.txt"),
        iconv(&env, "UTF-8", "UTF-16BE", "orig.txt")
    );
    assert_eq!(env.read("s.txt.002"), b"5\n");
}
