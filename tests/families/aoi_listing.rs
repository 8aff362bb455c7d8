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

/// `git` in `dir`, which must succeed; its standard output.
fn git_in(dir: &std::path::Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The files the jsonl search lists in the work tree `dir` (`--root`, called
/// from another directory), sorted.
fn listed_in(env: &TestEnv, dir: &std::path::Path) -> Vec<String> {
    let root = dir.to_string_lossy();
    let c = env.command(&["search", "needle", "--root", &root, "--output", "jsonl"]);
    let s = super::aoi::run_cmd(c);
    let mut listed = paths_of(s.of_type("block"));
    listed.sort();
    listed
}

/// Fills `dir` with files git ignores (`.gitignore`, the common directory's
/// `info/exclude`) and files it does not, all holding `needle`; asserts the
/// jsonl search lists exactly `git ls-files -co --exclude-standard` (which is
/// also what `git check-ignore` says of each).
fn assert_lists_as_git(env: &TestEnv, dir: &std::path::Path, exclude: &std::path::Path) {
    let files = [
        "kept.txt",
        "a.log",
        "sub/b.log",
        "sub/c.txt",
        "excluded/x.txt",
        "excluded_too.txt",
        "deep/er/d.txt",
    ];
    for f in files {
        let p = dir.join(f);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, "needle\n").expect("write");
    }
    std::fs::write(dir.join(".gitignore"), "*.log\n").expect("gitignore");
    std::fs::create_dir_all(exclude.parent().expect("info")).expect("mkdir info");
    std::fs::write(exclude, "excluded/\nexcluded_too.txt\n").expect("exclude");
    let mut expected: Vec<String> = git_in(dir, &["ls-files", "-co", "--exclude-standard"])
        .lines()
        .filter(|l| files.contains(l))
        .map(str::to_string)
        .collect();
    expected.sort();
    for f in files {
        let ignored = Command::new("git")
            .args(["check-ignore", "-q", f])
            .current_dir(dir)
            .status()
            .expect("git")
            .success();
        assert_eq!(expected.contains(&f.to_string()), !ignored, "{f}");
    }
    assert_eq!(expected.len(), 3, "{expected:?}");
    assert_eq!(listed_in(env, dir), expected);
}

#[test]
fn jsonl_listing_in_a_linked_worktree_is_git_s() {
    let env = TestEnv::new();
    env.write("base.txt", "base\n");
    git_in(env.root(), &["add", "base.txt"]);
    git_in(env.root(), &["commit", "-qm", "base"]);
    let out = tempfile::tempdir().expect("tempdir");
    let wt = out.path().join("wt");
    git_in(
        env.root(),
        &["worktree", "add", "-q", &wt.to_string_lossy()],
    );
    assert!(wt.join(".git").is_file());
    // The `gitdir:` line made relative (as `git worktree add --relative-paths`
    // writes it): taken from the worktree, not from the process's directory.
    let dot_git = std::fs::read_to_string(wt.join(".git")).expect(".git file");
    let target = dot_git
        .trim()
        .strip_prefix("gitdir: ")
        .expect("gitdir line");
    let target: Vec<_> = std::path::Path::new(target).components().collect();
    let from: Vec<_> = wt.components().collect();
    let shared = from.iter().zip(&target).take_while(|(a, b)| a == b).count();
    let mut rel = std::path::PathBuf::new();
    for _ in shared..from.len() {
        rel.push("..");
    }
    rel.extend(&target[shared..]);
    let relative = format!("gitdir: {}\n", rel.display());
    std::fs::write(wt.join(".git"), relative).expect("rewrite .git");
    // A worktree's excludes are its common directory's (the main `.git`).
    assert_lists_as_git(&env, &wt, &env.path(".git/info/exclude"));
}

#[test]
fn jsonl_listing_with_a_separate_git_dir_is_git_s() {
    let env = TestEnv::new();
    let out = tempfile::tempdir().expect("tempdir");
    let repo = out.path().join("repo");
    let gitdir = out.path().join("gitdir");
    std::fs::create_dir(&repo).expect("mkdir");
    git_in(
        &repo,
        &[
            "init",
            "-q",
            "--separate-git-dir",
            &gitdir.to_string_lossy(),
        ],
    );
    assert!(repo.join(".git").is_file());
    // No `commondir` file: the git directory is its own common directory.
    assert_lists_as_git(&env, &repo, &gitdir.join("info/exclude"));
}

/// A directory the walk cannot read, even as root: its path is longer than
/// PATH_MAX (made one level at a time from inside its parent). Both modes keep
/// its siblings and name it in `skipped` as unreadable, the same way.
#[test]
fn an_unreadable_directory_is_named_in_skipped_and_its_siblings_kept() {
    let env = TestEnv::new();
    env.write("a.txt", "needle\n");
    env.write("m/b.txt", "needle\n");
    env.write("z.txt", "needle\n");
    let name = "d".repeat(250);
    let levels = 4200 / 251 + 1;
    let script = format!(
        "mkdir -p deep && cd deep && for i in $(seq {levels}); do mkdir {name} && cd {name} 2>/dev/null || break; done"
    );
    let made = Command::new("sh")
        .args(["-c", &script])
        .current_dir(env.root())
        .status()
        .expect("sh");
    assert!(made.success(), "{script}");
    let unreadable = |skipped: &Value| -> Vec<String> {
        let list = skipped.as_array().expect("skipped");
        assert_eq!(list.len(), 1, "{skipped}");
        assert_eq!(list[0]["reason"], "unreadable", "{skipped}");
        let ex: Vec<String> = list[0]["examples"]
            .as_array()
            .expect("examples")
            .iter()
            .map(|p| p.as_str().expect("a path").to_string())
            .collect();
        assert!(
            ex.iter()
                .all(|p| p.starts_with("deep/") && p.len() + env.root().as_os_str().len() >= 4096)
        );
        ex
    };
    let s = jsonl(&env, &["search", "needle"]);
    let streamed = paths_of(s.of_type("block"));
    assert_eq!(streamed, ["a.txt", "m/b.txt", "z.txt"], "{}", s.raw);
    let result = s.of_type("result")[0].clone();
    let r = env.run(&["search", "needle"]);
    let envelope = paths_of(r.json["blocks"].as_array().expect("blocks"));
    assert_eq!(envelope, streamed);
    assert_eq!(
        unreadable(&result["skipped"]),
        unreadable(&r.json["skipped"])
    );
}
