//! The patch formats agents write, black-box: V4A patches through `apply` (git
//! apply of the equivalent diff as the oracle), all files or none, undo, and the
//! mismatch error; line anchors (`read --anchors`, `edit --at LINE:HASH`).

use crate::support::fixtures::ok;
use crate::support::{Run, TestEnv};
use std::process::Command;

const PY: &str = "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n\n\nclass B:\n    def f(self):\n        return 1\n";

/// The same change as a V4A patch and as a git diff: both trees end equal.
#[test]
fn v4a_add_update_move_delete_agree_with_git_apply() {
    let v4a = [
        "*** Begin Patch",
        "*** Add File: docs/new.md",
        "+# New",
        "+text",
        "*** Update File: src/m.py",
        "@@ class B:",
        "@@     def f(self):",
        "-        return 1",
        "+        return 3",
        "*** Update File: old.txt",
        "*** Move to: moved/renamed.txt",
        "@@",
        " one",
        "-two",
        "+TWO",
        "*** Delete File: gone.txt",
        "*** End Patch",
        "",
    ]
    .join("\n");
    let setup = |env: &TestEnv| {
        env.write("src/m.py", PY);
        env.write("old.txt", "one\ntwo\nthree\n");
        env.write("gone.txt", "bye\n");
        env.git(&["add", "-A"]);
        env.git(&["commit", "-qm", "base"]);
    };
    // The oracle: the same change made by hand, as git diff, applied by git.
    let oracle = TestEnv::new();
    setup(&oracle);
    oracle.write("docs/new.md", "# New\ntext\n");
    oracle.write(
        "src/m.py",
        PY.replacen("return 1\n", "return 3\n", 2)
            .replacen("return 3\n", "return 1\n", 1),
    );
    std::fs::remove_file(oracle.path("old.txt")).unwrap();
    oracle.write("moved/renamed.txt", "one\nTWO\nthree\n");
    std::fs::remove_file(oracle.path("gone.txt")).unwrap();
    oracle.git(&["add", "-A"]);
    let diff = oracle.git(&["diff", "--cached"]);
    oracle.git(&["reset", "-q", "--hard", "HEAD"]);
    oracle.git(&["clean", "-qfd"]);
    let mut c = Command::new("git");
    c.args(["apply", "-"]).current_dir(oracle.root());
    c.stdin(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(diff.as_bytes())
            .unwrap();
    }
    assert!(child.wait().unwrap().success(), "git apply: {diff}");

    let env = TestEnv::new();
    setup(&env);
    let r = env.run_stdin(&["apply", "--stdin"], v4a.as_bytes());
    ok(&r);
    assert!(r.json.get("strategy").is_none(), "{}", r.stdout);
    for f in ["docs/new.md", "src/m.py", "moved/renamed.txt"] {
        assert_eq!(env.read(f), oracle.read(f), "{f}");
    }
    assert!(!env.path("old.txt").exists());
    assert!(!env.path("gone.txt").exists());
    // Only class B's f changed: the anchors found it, not A's first `return 1`.
    assert!(
        String::from_utf8_lossy(&env.read("src/m.py"))
            .starts_with("class A:\n    def f(self):\n        return 1\n")
    );
}

/// A stale position and whitespace drift: the anchors and the tolerant match
/// place the chunk, and the answer says the match ignored whitespace.
#[test]
fn v4a_context_with_whitespace_drift_is_placed_and_said() {
    let env = TestEnv::new();
    env.write("m.py", PY);
    let p = "*** Begin Patch\n*** Update File: m.py\n@@ def g(self):\n-      return 2\n+        return 20\n*** End Patch\n";
    let r = env.run(&["apply", "--stdin-data", p]);
    ok(&r);
    assert_eq!(r.json["strategy"], "whitespace", "{}", r.stdout);
    assert_eq!(
        String::from_utf8_lossy(&env.read("m.py")),
        PY.replace("return 2\n", "return 20\n")
    );
    // --format unified refuses what auto reads as V4A.
    let r = env.run(&["apply", "--stdin-data", p, "--format", "unified"]);
    assert_eq!(r.error_code(), "argument.invalid");
}

/// Two files, the second's context wrong: nothing is written, and the error
/// names the file, the chunk, the nearest lines and a read to repair it.
#[test]
fn v4a_mismatch_writes_nothing_and_names_the_chunk() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\nbeta\n");
    env.write("b.txt", "one\ntwo\nthree\n");
    let p = "*** Begin Patch\n*** Update File: a.txt\n@@\n-beta\n+BETA\n*** Add File: c.txt\n+new\n*** Update File: b.txt\n@@\n one\n-twoo\n+2\n*** End Patch\n";
    let r = env.run(&["apply", "--stdin-data", p]);
    assert_eq!(
        (r.code, r.error_code()),
        (2, "selection.no-match"),
        "{}",
        r.stdout
    );
    assert_eq!(env.read("a.txt"), b"alpha\nbeta\n");
    assert!(!env.path("c.txt").exists());
    let e = &r.json["error"];
    assert!(e["message"].as_str().unwrap().contains("b.txt"), "{e}");
    assert_eq!(e["diagnostics"][0]["path"], "b.txt");
    assert_eq!(e["diagnostics"][0]["file"], 3);
    assert_eq!(e["diagnostics"][0]["hunk"], 1);
    let lines: Vec<u64> = e["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["line"].as_u64().unwrap())
        .collect();
    assert!(lines.contains(&2), "{e}");
    let cmd = e["repairs"][0]["command"].as_str().unwrap();
    assert!(cmd.starts_with("aitools read b.txt --range"), "{cmd}");
    // A missing anchor says which.
    let p = "*** Begin Patch\n*** Update File: b.txt\n@@ def nowhere():\n-two\n+2\n*** End Patch\n";
    let r = env.run(&["apply", "--stdin-data", p]);
    assert_eq!(r.error_code(), "selection.no-match");
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("def nowhere()")
    );
    // Adding a file that exists is refused, the repair reads it.
    let p = "*** Begin Patch\n*** Update File: a.txt\n@@\n-beta\n+BETA\n*** Add File: b.txt\n+x\n*** End Patch\n";
    let r = env.run(&["apply", "--stdin-data", p]);
    assert_eq!(r.error_code(), "refusal.exists");
    assert_eq!(
        r.json["error"]["repairs"][0]["command"],
        "aitools read b.txt"
    );
    assert_eq!(env.read("a.txt"), b"alpha\nbeta\n");
    // A patch cut short is refused as input.
    let r = env.run(&[
        "apply",
        "--stdin-data",
        "*** Begin Patch\n*** Update File: b.txt\n-one\n+1\n",
    ]);
    assert_eq!(r.error_code(), "argument.invalid");
    assert_eq!(env.read("b.txt"), b"one\ntwo\nthree\n");
}

/// One op: undo puts every file back, the moved one included.
#[test]
fn v4a_patch_is_one_undoable_op() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\nbeta\n");
    env.write("b.txt", "one\n");
    let p = "*** Begin Patch\n*** Update File: a.txt\n@@\n alpha\n-beta\n+BETA\n*** End of File\n*** Update File: b.txt\n*** Move to: c.txt\n*** Add File: d.txt\n+d\n*** End Patch\n";
    let r = env.run(&["apply", "--stdin-data", p]);
    let op = r.op_id();
    assert_eq!(env.read("a.txt"), b"alpha\nBETA\n");
    assert_eq!(env.read("c.txt"), b"one\n");
    assert!(!env.path("b.txt").exists());
    ok(&env.run(&["undo", &op]));
    assert_eq!(env.read("a.txt"), b"alpha\nbeta\n");
    assert_eq!(env.read("b.txt"), b"one\n");
    assert!(!env.path("c.txt").exists());
    assert!(!env.path("d.txt").exists());
}

fn anchors_of(r: &Run) -> Vec<String> {
    r.json["anchors"]
        .as_array()
        .unwrap_or_else(|| panic!("no anchors: {}", r.stdout))
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// `read --anchors` tags each line; `edit --at/--to` with current tags edits
/// exactly those lines (sed as the oracle).
#[test]
fn anchors_edit_when_they_match() {
    let env = TestEnv::new();
    env.write("m.py", PY);
    let r = env.run(&["read", "m.py", "--anchors", "--range", "2:3"]);
    ok(&r);
    let tags = anchors_of(&r);
    assert_eq!(tags.len(), 2);
    assert!(tags.iter().all(|t| t.len() == 3), "{tags:?}");
    // Without the flag, no anchors and no bytes spent on them.
    assert!(env.run(&["read", "m.py"]).json.get("anchors").is_none());
    let at = format!("2:{}", tags[0]);
    let to = format!("3:{}", tags[1]);
    let r = env.run(&[
        "edit",
        "m.py",
        "--at",
        &at,
        "--to",
        &to,
        "--new",
        "    def f(self):\n        return 10",
    ]);
    ok(&r);
    env.write("oracle.py", PY);
    let st = Command::new("sed")
        .args(["-i", "3s/return 1/return 10/", "oracle.py"])
        .current_dir(env.root())
        .status()
        .unwrap();
    assert!(st.success());
    assert_eq!(env.read("m.py"), env.read("oracle.py"));
}

/// A stale anchor writes nothing; the error names the line's current anchor and
/// the line that now carries the expected one, and its repair edits it there.
#[test]
fn anchors_stale_refused_with_the_moved_line() {
    let env = TestEnv::new();
    env.write("m.py", PY);
    let r = env.run(&["read", "m.py", "--anchors"]);
    let tags = anchors_of(&r);
    // Two lines inserted above: line 10 (`    def f(self):` of B) is now 12.
    env.write("m.py", format!("# header\n# more\n{PY}"));
    let before = env.read("m.py");
    let at = format!("10:{}", tags[9]);
    let r = env.run(&["edit", "m.py", "--at", &at, "--new", "    def f(self, x):"]);
    assert_eq!(
        (r.code, r.error_code()),
        (2, "refusal.target-changed"),
        "{}",
        r.stdout
    );
    assert_eq!(env.read("m.py"), before);
    let e = &r.json["error"];
    assert_eq!(e["diagnostics"][0]["line"], 10);
    assert!(
        e["diagnostics"][0]["current"]
            .as_str()
            .unwrap()
            .starts_with("10:")
    );
    let lines: Vec<u64> = e["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["line"].as_u64().unwrap())
        .collect();
    assert!(lines.contains(&12), "{e}");
    let fix = e["repairs"][0]["command"].as_str().unwrap();
    assert!(fix.contains(&format!("--at 12:{}", tags[9])), "{fix}");
    // The repair does what was meant.
    let r = env.run(&[
        "edit",
        "m.py",
        "--at",
        &format!("12:{}", tags[9]),
        "--new",
        "    def f(self, x):",
    ]);
    ok(&r);
    assert!(String::from_utf8_lossy(&env.read("m.py")).contains("class B:\n    def f(self, x):\n"));
    // Past the end of the file.
    let r = env.run(&["edit", "m.py", "--at", "99:abc", "--new", "x"]);
    assert_eq!(r.error_code(), "refusal.target-changed");
}
