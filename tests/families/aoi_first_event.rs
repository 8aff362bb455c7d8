//! What issue 15 took off the way to a scan's first file keeps what it decides:
//! the user's `core.excludesFile` is found by aitools' own config reader (not the
//! ignore crate's regex, compiled on every scan) and applies exactly as git
//! applies it — `~/.gitconfig` first, then `$XDG_CONFIG_HOME/git/config`, then the
//! system config; only a `[core]` key counts.

use crate::support::TestEnv;
use std::path::Path;
use std::process::Command;

/// The files git lists as untracked and not ignored, and the files `find`
/// lists, both sorted, with `home` as the user's home and `system` as the
/// system config.
fn listed(env: &TestEnv, home: &Path, system: &Path) -> (Vec<String>, Vec<String>) {
    let isolate = |c: &mut Command| {
        c.env("HOME", home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("GIT_CONFIG_SYSTEM", system)
            .env_remove("GIT_CONFIG_GLOBAL")
            .env_remove("GIT_CONFIG_NOSYSTEM");
    };
    let mut git = Command::new("git");
    git.args(["ls-files", "--others", "--exclude-standard"])
        .current_dir(env.root());
    isolate(&mut git);
    let out = git.output().expect("git");
    let mut theirs: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    theirs.sort();
    let mut find = env.command(&["find", "--type", "file", "--limit", "100000"]);
    isolate(&mut find);
    let r = crate::support::parse(find.output().expect("spawn"));
    let ours = crate::support::sorted_item_paths(&r.json);
    (theirs, ours)
}

#[test]
fn the_users_excludes_file_is_found_as_git_finds_it() {
    let env = TestEnv::new();
    let home = tempfile::tempdir().expect("home");
    let h = home.path();
    for ext in ["xdgign", "sysign", "homeign", "aliasign"] {
        env.write(&format!("a.{ext}"), "x\n");
        std::fs::write(h.join(format!("{ext}-excludes")), format!("*.{ext}\n")).expect("write");
    }
    env.write("plain.txt", "x\n");
    let system = h.join("system-config");
    let config = |name: &str| format!("[core]\n\texcludesFile = {}\n", h.join(name).display());
    std::fs::create_dir_all(h.join(".config/git")).expect("mkdir");
    // An `excludesfile` key outside [core] is not git's: the XDG config's applies.
    std::fs::write(
        h.join(".gitconfig"),
        format!(
            "[user]\n\tname = t\n[alias]\n\texcludesfile = {}\n",
            h.join("aliasign-excludes").display()
        ),
    )
    .expect("write");
    std::fs::write(h.join(".config/git/config"), config("xdgign-excludes")).expect("write");
    std::fs::write(&system, config("sysign-excludes")).expect("write");
    let (git, ours) = listed(&env, h, &system);
    assert!(!git.contains(&"a.xdgign".to_string()), "{git:?}");
    assert!(git.contains(&"a.aliasign".to_string()), "{git:?}");
    assert_eq!(ours, git);
    // No user config names one: the system config's applies.
    std::fs::remove_file(h.join(".config/git/config")).expect("rm");
    let (git, ours) = listed(&env, h, &system);
    assert!(!git.contains(&"a.sysign".to_string()), "{git:?}");
    assert_eq!(ours, git);
    // ~/.gitconfig's [core] wins over the XDG and system configs.
    std::fs::write(h.join(".config/git/config"), config("xdgign-excludes")).expect("write");
    std::fs::write(h.join(".gitconfig"), config("homeign-excludes")).expect("write");
    let (git, ours) = listed(&env, h, &system);
    assert!(!git.contains(&"a.homeign".to_string()), "{git:?}");
    assert!(git.contains(&"a.xdgign".to_string()), "{git:?}");
    assert_eq!(ours, git);
}
