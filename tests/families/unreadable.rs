//! A file the caller may not read (mode 000, run as a user: root reads any
//! mode, so these calls drop to `nobody`): every command that walks a tree
//! names it, a rename that cannot see it renames nothing, and `info` (the
//! repair a refused read hands back) still answers what stat tells.

use crate::support::{Run, TestEnv};
use std::os::unix::fs::PermissionsExt;

fn unreadable_examples(r: &Run) -> Vec<String> {
    let groups = r.json["skipped"].as_array().cloned().unwrap_or_default();
    groups
        .iter()
        .filter(|g| g["reason"] == "unreadable")
        .flat_map(|g| g["examples"].as_array().cloned().unwrap_or_default())
        .filter_map(|e| e.as_str().map(String::from))
        .collect()
}

/// A workspace of nobody's with `locked.py` (a use of `alpha`) at mode 000;
/// `None` where this process cannot drop to nobody.
fn locked_tree() -> Option<TestEnv> {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\n");
    env.write("m.py", "def alpha():\n    pass\n");
    env.write("locked.py", "from m import alpha\n\nalpha()\n");
    if !env.hand_to_nobody() {
        println!("skipped: dropping to another uid needs root and setpriv");
        return None;
    }
    std::fs::set_permissions(
        env.path("locked.py"),
        std::fs::Permissions::from_mode(0o000),
    )
    .expect("chmod");
    Some(env)
}

#[test]
fn every_tree_walk_names_an_unreadable_file() {
    let Some(env) = locked_tree() else { return };
    for args in [
        &["search", "alpha"][..],
        &["code", "defs", "alpha"],
        &["code", "refs", "alpha"],
        &["snapshot", "create"],
        &["archive", "create", "out.tar", "."],
    ] {
        let r = env.run_as_nobody(args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stdout);
        assert_eq!(
            unreadable_examples(&r),
            ["locked.py"],
            "{args:?}: {}",
            r.stdout
        );
    }
    let r = env.run_as_nobody(&["replace", "alpha", "beta", "--dry-run"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["skipped"][0]["path"], "locked.py", "{}", r.stdout);
    assert_eq!(r.json["skipped"][0]["reason"], "unreadable", "{}", r.stdout);
}

#[test]
fn a_rename_that_cannot_read_a_file_renames_nothing() {
    let Some(env) = locked_tree() else { return };
    let r = env.run_as_nobody(&["code", "rename", "alpha", "beta"]);
    assert_eq!(r.error_code(), "environment.io", "{}", r.stdout);
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("locked.py"),
        "{}",
        r.stdout
    );
    assert_eq!(env.read("m.py"), b"def alpha():\n    pass\n");
    // Its repair shows why: the mode, with no content read.
    let fix = r.json["error"]["repairs"][0]["command"].as_str().unwrap();
    assert_eq!(fix, "aitools info locked.py");
}

#[test]
fn a_refused_read_hands_back_an_info_call_that_answers() {
    let Some(env) = locked_tree() else { return };
    let r = env.run_as_nobody(&["read", "locked.py"]);
    assert_eq!(r.error_code(), "environment.io", "{}", r.stdout);
    let fix = r.json["error"]["repairs"][0]["command"].as_str().unwrap();
    let args: Vec<&str> = fix.strip_prefix("aitools ").unwrap().split(' ').collect();
    let info = env.run_as_nobody(&args);
    assert_eq!(info.code, 0, "{fix}: {}", info.stdout);
    assert_eq!(info.json["mode"], "0000", "{}", info.stdout);
    assert_eq!(info.json["readable"], false, "{}", info.stdout);
    assert!(info.json.get("lines").is_none(), "{}", info.stdout);
}

/// A directory that cannot be listed may hold a match of any pattern or name:
/// named whatever its own name, and a rename refuses around it.
#[test]
fn an_unreadable_directory_is_named_whatever_the_pattern() {
    let env = TestEnv::new();
    env.write("m.py", "def alpha():\n    pass\n");
    env.write("sub/use.py", "from m import alpha\n");
    if !env.hand_to_nobody() {
        println!("skipped: dropping to another uid needs root and setpriv");
        return;
    }
    std::fs::set_permissions(env.path("sub"), std::fs::Permissions::from_mode(0o000))
        .expect("chmod");
    for args in [&["find", "*.py"][..], &["code", "defs", "alpha"]] {
        let r = env.run_as_nobody(args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stdout);
        assert_eq!(unreadable_examples(&r), ["sub"], "{args:?}: {}", r.stdout);
    }
    let r = env.run_as_nobody(&["code", "rename", "alpha", "beta"]);
    assert_eq!(r.error_code(), "environment.io", "{}", r.stdout);
    std::fs::set_permissions(env.path("sub"), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");
    assert_eq!(env.read("m.py"), b"def alpha():\n    pass\n");
}
