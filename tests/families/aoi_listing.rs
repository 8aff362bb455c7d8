//! The jsonl search lists files with its own path-order lister (each directory
//! read once; its ignore files read only when its listing names them). It must
//! pass over exactly what the envelope mode's walker passes over, and what git
//! ignores: nested `.gitignore` files with negations, anchors and directory-only
//! patterns, `.git/info/exclude`, the repository's `core.excludesFile`, a nested
//! repository (the parent's rules stop at it), hidden files, symlinks, a
//! `.ignore` file (not git's, so not applied inside a work tree).

use super::aoi::jsonl;
use crate::support::TestEnv;
use serde_json::Value;
use std::process::Command;

fn paths_of<'a>(v: impl IntoIterator<Item = &'a Value>) -> Vec<String> {
    let mut p: Vec<String> = v
        .into_iter()
        .map(|b| b["path"].as_str().expect("a path").to_string())
        .collect();
    p.dedup();
    p
}

fn git(env: &TestEnv, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(env.root())
        .output()
        .expect("git");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn jsonl_listing_passes_over_what_the_envelope_and_git_pass_over() {
    let env = TestEnv::new();
    let files = [
        "keep.txt",
        "a.log",
        "important.log",
        ".hidden.txt",
        ".config/tool.txt",
        "build/out.txt",
        "build/keep.txt",
        "docs/build/page.txt",
        "src/gen/x.txt",
        "src/gen/y.txt",
        "src/main.txt",
        "src/deep/a.tmp",
        "src/deep/b.txt",
        "only_root.txt",
        "src/only_root.txt",
        "ex/excluded.txt",
        "ex/kept.txt",
        "cfg.cfgign",
        "ignored_by_dotignore.txt",
        "nested/a.log",
        "nested/b.txt",
        "nested/sub/c.nestign",
        "nested/sub/d.txt",
        "zz/last.txt",
    ];
    for f in files {
        env.write(f, "needle\n");
    }
    env.write(
        ".gitignore",
        "*.log\n!important.log\nbuild/\n/only_root.txt\nsrc/gen/*\n!src/gen/y.txt\n",
    );
    env.write("src/.gitignore", "*.tmp\n");
    env.write(".ignore", "ignored_by_dotignore.txt\n");
    env.write("nested/.gitignore", "sub/*.nestign\n");
    env.write("excludes-file", "*.cfgign\n");
    std::fs::write(env.path(".git/info/exclude"), "ex/excluded.txt\n").expect("exclude");
    let ok = Command::new("git")
        .args(["config", "core.excludesFile"])
        .arg(env.path("excludes-file"))
        .current_dir(env.root())
        .status()
        .expect("git")
        .success();
    assert!(ok);
    let ok = Command::new("git")
        .args(["init", "-q"])
        .current_dir(env.path("nested"))
        .status()
        .expect("git")
        .success();
    assert!(ok);
    std::os::unix::fs::symlink("keep.txt", env.path("link.txt")).expect("symlink");
    std::os::unix::fs::symlink("src", env.path("srclink")).expect("symlink");
    std::os::unix::fs::symlink("nowhere", env.path("dangling")).expect("symlink");

    for args in [
        vec!["search", "needle"],
        vec!["search", "needle", "src", "nested"],
        vec!["search", "needle", "nested/sub", "keep.txt", "build"],
    ] {
        let s = jsonl(&env, &args);
        let streamed = paths_of(s.of_type("block"));
        let r = env.run(&args);
        let envelope = paths_of(r.json["blocks"].as_array().expect("blocks"));
        assert_eq!(streamed, envelope, "{args:?}: {}", s.raw);
    }

    let s = jsonl(&env, &["search", "needle"]);
    let listed = paths_of(s.of_type("block"));
    // git's verdict on every file written.
    for f in files {
        let ignored = !git(&env, &["check-ignore", "--no-index", f])
            .trim()
            .is_empty();
        let in_nested = f.starts_with("nested/");
        if in_nested {
            continue;
        }
        assert_eq!(
            listed.contains(&f.to_string()),
            !ignored,
            "{f}: git check-ignore says ignored={ignored}; listed {listed:?}"
        );
    }
    // The nested repository's own rules apply, its parent's `*.log` does not.
    assert!(listed.contains(&"nested/a.log".to_string()), "{listed:?}");
    assert!(
        listed.contains(&"nested/sub/d.txt".to_string()),
        "{listed:?}"
    );
    assert!(
        !listed.contains(&"nested/sub/c.nestign".to_string()),
        "{listed:?}"
    );
    // Hidden files are searched; `.ignore` is not git's; symlinks are not followed.
    assert!(listed.contains(&".hidden.txt".to_string()), "{listed:?}");
    assert!(
        listed.contains(&".config/tool.txt".to_string()),
        "{listed:?}"
    );
    assert!(
        listed.contains(&"ignored_by_dotignore.txt".to_string()),
        "{listed:?}"
    );
    assert!(
        !listed
            .iter()
            .any(|p| p.starts_with("srclink") || p == "link.txt"),
        "{listed:?}"
    );
}
