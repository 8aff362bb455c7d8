//! A hostile repository never runs code: every vector by which repository content
//! (config, includes, a `.git` file, submodules, attributes, hooks, remotes) names
//! a program, crossed with every command that runs git. The program is a script
//! that appends to a marker file outside the repository; no call may run it.

use crate::support::TestEnv;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every call that runs git (and `overview`, which reads `.git` itself).
const CALLS: &[&[&str]] = &[
    &["git", "status"],
    &["git", "status", "a.txt"],
    &["git", "diff"],
    &["git", "diff", "--output", "stat"],
    &["git", "diff", "--staged"],
    &["git", "diff", "--ref", "HEAD~1"],
    &["git", "log"],
    &["git", "log", "--files", "a.txt"],
    &["git", "show", "HEAD~1:a.txt"],
    &["git", "blame", "a.txt"],
    &["git", "blame", "a.txt", "--rev", "HEAD~1"],
    &["git", "log", "-p"],
    &["git", "log", "-p", "a.txt"],
    &["git", "show", "HEAD"],
    &["git", "show", "HEAD~1", "--stat"],
    &["history"],
    &["history", "a.txt"],
    &["overview"],
];

/// The payloads: `touch` records that it ran and fails; `pass` records and copies
/// stdin to stdout (a filter or textconv that seems to work).
struct Payload {
    dir: tempfile::TempDir,
}

impl Payload {
    fn new() -> Payload {
        let dir = tempfile::tempdir().expect("tempdir");
        let marker = dir.path().join("marker");
        for (name, tail) in [("touch", "exit 1"), ("pass", "cat; exit 0")] {
            let p = dir.path().join(name);
            let body = format!(
                "#!/bin/sh\necho \"$0 $*\" >> '{}'\n{tail}\n",
                marker.display()
            );
            std::fs::write(&p, body).expect("payload");
            let mut perm = std::fs::metadata(&p).expect("stat").permissions();
            std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
            std::fs::set_permissions(&p, perm).expect("chmod");
        }
        Payload { dir }
    }
    fn touch(&self) -> String {
        self.dir.path().join("touch").display().to_string()
    }
    fn pass(&self) -> String {
        self.dir.path().join("pass").display().to_string()
    }
    fn marker(&self) -> PathBuf {
        self.dir.path().join("marker")
    }
}

fn git_in(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=T", "-c", "user.email=t@example.com"])
        .args([
            "-c",
            "protocol.file.allow=always",
            "-c",
            "core.hooksPath=/dev/null",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_DATE", "1796000000 +0000")
        .env("GIT_COMMITTER_DATE", "1796000000 +0000")
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// Two commits of `a.txt` (so HEAD~1 and blame have history), `b.txt` staged.
fn history(dir: &Path) {
    std::fs::write(dir.join("a.txt"), "one\n").expect("write");
    git_in(dir, &["add", "a.txt"]);
    git_in(dir, &["commit", "-qm", "first"]);
    std::fs::write(dir.join("a.txt"), "two\n").expect("write");
    std::fs::write(dir.join("b.txt"), "b\n").expect("write");
    git_in(dir, &["add", "a.txt", "b.txt"]);
    git_in(dir, &["commit", "-qm", "second"]);
    std::fs::write(dir.join("b.txt"), "bb\n").expect("write");
    git_in(dir, &["add", "b.txt"]);
}

/// `a.txt` changed in the work tree with its size kept and its mtime moved, so
/// git has to hash it (through any clean filter) to know it changed.
fn touch_work_tree(dir: &Path) {
    let p = dir.join("a.txt");
    std::fs::write(&p, "TWO\n").expect("write");
    let f = std::fs::File::options().write(true).open(&p).expect("open");
    let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
    f.set_modified(when).expect("mtime");
}

fn config(dir: &Path, key: &str, value: &str) {
    git_in(dir, &["config", key, value]);
}

fn plain() -> TestEnv {
    let env = TestEnv::new();
    history(env.root());
    env
}

/// Runs every call; the calls that ran the payload.
fn fired(env: &TestEnv, p: &Payload) -> Vec<String> {
    let mut hits = Vec::new();
    for call in CALLS {
        let _ = std::fs::remove_file(p.marker());
        let mut c = env.command(call);
        c.env("AITOOLS_GIT_TIMEOUT_MS", "20000");
        let _ = crate::support::parse(c.output().expect("spawn aitools"));
        if p.marker().exists() {
            hits.push(call.join(" "));
        }
    }
    hits
}

fn check(vector: &str, env: &TestEnv, p: &Payload) {
    let hits = fired(env, p);
    eprintln!(
        "VECTOR {vector}: {} of {} calls ran the payload {hits:?}",
        hits.len(),
        CALLS.len()
    );
    assert!(hits.is_empty(), "{vector}: the payload ran on {hits:?}");
}

#[test]
fn fsmonitor_in_config() {
    let (env, p) = (plain(), Payload::new());
    config(env.root(), "core.fsmonitor", &p.touch());
    touch_work_tree(env.root());
    check("fsmonitor", &env, &p);
}

#[test]
fn fsmonitor_through_include() {
    let (env, p) = (plain(), Payload::new());
    env.write(
        "hostile.inc",
        format!("[core]\n\tfsmonitor = {}\n", p.touch()),
    );
    config(env.root(), "include.path", "../hostile.inc");
    touch_work_tree(env.root());
    check("fsmonitor via include.path", &env, &p);
}

#[test]
fn fsmonitor_through_conditional_include() {
    let (env, p) = (plain(), Payload::new());
    env.write(
        "hostile.inc",
        format!("[core]\n\tfsmonitor = {}\n", p.touch()),
    );
    config(env.root(), "includeIf.gitdir:/.path", "../hostile.inc");
    touch_work_tree(env.root());
    check("fsmonitor via includeIf", &env, &p);
}

#[test]
fn fsmonitor_through_a_git_file() {
    let (env, p) = (plain(), Payload::new());
    let elsewhere = env.state.path().join("elsewhere.git");
    std::fs::rename(env.path(".git"), &elsewhere).expect("move .git");
    env.write(".git", format!("gitdir: {}\n", elsewhere.display()));
    config(env.root(), "core.fsmonitor", &p.touch());
    touch_work_tree(env.root());
    check("fsmonitor via a .git file", &env, &p);
}

#[test]
fn fsmonitor_in_worktree_config() {
    let (env, p) = (plain(), Payload::new());
    config(env.root(), "extensions.worktreeConfig", "true");
    git_in(
        env.root(),
        &["config", "--worktree", "core.fsmonitor", &p.touch()],
    );
    touch_work_tree(env.root());
    check("fsmonitor in config.worktree", &env, &p);
}

/// The workspace with a checked-out submodule `sub` (its git dir absorbed under
/// `.git/modules/sub`, as `git submodule add` leaves it).
fn with_submodule() -> TestEnv {
    let env = plain();
    let up = tempfile::tempdir().expect("tempdir");
    git_in(up.path(), &["init", "-q"]);
    history(up.path());
    git_in(up.path(), &["commit", "-qm", "third"]);
    let url = up.path().display().to_string();
    git_in(env.root(), &["submodule", "add", "-q", &url, "sub"]);
    git_in(env.root(), &["commit", "-qm", "sub"]);
    env
}

#[test]
fn fsmonitor_in_a_submodule() {
    let (env, p) = (with_submodule(), Payload::new());
    config(&env.path("sub"), "core.fsmonitor", &p.touch());
    touch_work_tree(&env.path("sub"));
    check("fsmonitor in a submodule", &env, &p);
}

#[test]
fn clean_filter_in_a_submodule() {
    let (env, p) = (with_submodule(), Payload::new());
    let sub = env.path("sub");
    config(&sub, "filter.evil.clean", &p.pass());
    std::fs::write(sub.join(".gitattributes"), "*.txt filter=evil\n").expect("write");
    touch_work_tree(&sub);
    check("clean filter in a submodule", &env, &p);
}

fn filter_vector(vector: &str, key: &str, include: bool) {
    let (env, p) = (plain(), Payload::new());
    let program = if key == "process" {
        p.touch()
    } else {
        p.pass()
    };
    if include {
        let body = format!("[filter \"evil\"]\n\t{key} = {program}\n\trequired = true\n");
        env.write("hostile.inc", body);
        config(env.root(), "include.path", "../hostile.inc");
    } else {
        config(env.root(), &format!("filter.evil.{key}"), &program);
    }
    env.write(".gitattributes", "*.txt filter=evil\n");
    touch_work_tree(env.root());
    check(vector, &env, &p);
}

#[test]
fn clean_filter() {
    filter_vector("clean filter", "clean", false);
}

#[test]
fn smudge_filter() {
    filter_vector("smudge filter", "smudge", false);
}

#[test]
fn process_filter() {
    filter_vector("filter process", "process", false);
}

#[test]
fn required_clean_filter_through_include() {
    filter_vector("required clean filter via include", "clean", true);
}

#[test]
fn textconv_driver() {
    let (env, p) = (plain(), Payload::new());
    config(env.root(), "diff.evil.textconv", &p.pass());
    env.write(".gitattributes", "*.txt diff=evil\n");
    touch_work_tree(env.root());
    check("textconv", &env, &p);
}

/// Where a vector's config section is put: the repository's own config, a file
/// it includes, or the config of a git directory a `.git` file points at.
#[derive(Clone, Copy)]
enum Place {
    Config,
    Include,
    GitFile,
}

/// `section` (config file text) placed at `place` in a plain workspace, with
/// `attributes` as its `.gitattributes`; `a.txt` touched in the work tree.
fn placed(place: Place, section: &str, attributes: &str) -> TestEnv {
    let env = plain();
    match place {
        Place::Config => {
            let config = env.path(".git/config");
            let mut text = std::fs::read_to_string(&config).expect("config");
            text.push_str(section);
            std::fs::write(&config, text).expect("config");
        }
        Place::Include => {
            env.write("hostile.inc", section);
            config(env.root(), "include.path", "../hostile.inc");
        }
        Place::GitFile => {
            let elsewhere = env.state.path().join("elsewhere.git");
            std::fs::rename(env.path(".git"), &elsewhere).expect("move .git");
            env.write(".git", format!("gitdir: {}\n", elsewhere.display()));
            let config = elsewhere.join("config");
            let mut text = std::fs::read_to_string(&config).expect("config");
            text.push_str(section);
            std::fs::write(&config, text).expect("config");
        }
    }
    env.write(".gitattributes", attributes);
    touch_work_tree(env.root());
    env
}

const PLACES: [(Place, &str); 3] = [
    (Place::Config, ".git/config"),
    (Place::Include, "include.path"),
    (Place::GitFile, "a .git file"),
];

/// The calls on which the payload ran, with `section` in each place (`PLACES`)
/// and `attrs` as `.gitattributes`, each prefixed by the place's name.
fn ran_from_every_place(p: &Payload, section: &str, attrs: &str, label: &str) -> Vec<String> {
    let mut ran = Vec::new();
    for (place, name) in PLACES {
        let env = placed(place, section, attrs);
        let hits = fired(&env, p);
        eprintln!("VECTOR {label} in {name}: {hits:?}");
        ran.extend(hits.into_iter().map(|h| format!("{name}: {h}")));
    }
    ran
}

/// `diff.external`, `diff.<driver>.command` and `diff.<driver>.textconv`, the
/// driver named in `.gitattributes`, from each place: the patch of `git log -p`
/// and `git show <commit>` (git's porcelain turns textconv on by default) too.
#[test]
fn diff_drivers_from_every_place() {
    let p = Payload::new();
    let section = format!(
        "[diff]\n\texternal = {touch}\n[diff \"evil\"]\n\tcommand = {touch}\n\ttextconv = {pass}\n",
        touch = p.touch(),
        pass = p.pass()
    );
    let ran = ran_from_every_place(&p, &section, "*.txt diff=evil\n", "diff drivers");
    assert!(ran.is_empty(), "diff drivers: the payload ran on {ran:?}");
}

/// A textconv driver alone (no external command beside it), from each place.
#[test]
fn textconv_from_every_place() {
    let p = Payload::new();
    let section = format!("[diff \"evil\"]\n\ttextconv = {}\n", p.pass());
    let ran = ran_from_every_place(&p, &section, "*.txt diff=evil\n", "textconv");
    assert!(ran.is_empty(), "textconv: the payload ran on {ran:?}");
}

/// `core.fsmonitor` and a clean filter together, from each place.
#[test]
fn fsmonitor_and_filter_from_every_place() {
    let p = Payload::new();
    let section = format!(
        "[core]\n\tfsmonitor = {touch}\n[filter \"evil\"]\n\tclean = {pass}\n\tsmudge = {pass}\n\trequired = true\n",
        touch = p.touch(),
        pass = p.pass()
    );
    let ran = ran_from_every_place(&p, &section, "*.txt filter=evil\n", "fsmonitor and filter");
    assert!(
        ran.is_empty(),
        "fsmonitor/filter: the payload ran on {ran:?}"
    );
}

#[test]
fn external_diff_drivers() {
    let (env, p) = (plain(), Payload::new());
    config(env.root(), "diff.external", &p.touch());
    config(env.root(), "diff.evil.command", &p.touch());
    env.write(".gitattributes", "*.txt diff=evil\n");
    touch_work_tree(env.root());
    check("diff.external and diff.<driver>.command", &env, &p);
}

#[test]
fn pagers_and_hooks() {
    let (env, p) = (plain(), Payload::new());
    config(env.root(), "core.pager", &p.touch());
    for cmd in ["status", "diff", "log", "show", "blame"] {
        config(env.root(), &format!("pager.{cmd}"), &p.touch());
    }
    let hooks = env.path("hooks");
    std::fs::create_dir_all(&hooks).expect("mkdir");
    for hook in [
        "post-index-change",
        "reference-transaction",
        "post-checkout",
    ] {
        std::fs::copy(p.dir.path().join("touch"), hooks.join(hook)).expect("hook");
        std::fs::copy(
            p.dir.path().join("touch"),
            env.path(".git/hooks").join(hook),
        )
        .expect("hook");
    }
    config(env.root(), "core.hooksPath", &hooks.display().to_string());
    touch_work_tree(env.root());
    check("pagers and hooks", &env, &p);
}

/// A commit signed by a fake gpg, then `log.showSignature` with the payload as
/// the verifier.
#[test]
fn signature_verifier() {
    let (env, p) = (plain(), Payload::new());
    let signer = p.dir.path().join("signer");
    let body = "#!/bin/sh\ncat >/dev/null\nprintf '[GNUPG:] BEGIN_SIGNING\\n[GNUPG:] SIG_CREATED D\\n' >&2\nprintf -- '-----BEGIN PGP SIGNATURE-----\\n\\nx\\n-----END PGP SIGNATURE-----\\n'\n";
    std::fs::write(&signer, body).expect("signer");
    let mut perm = std::fs::metadata(&signer).expect("stat").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&signer, perm).expect("chmod");
    let program = format!("gpg.program={}", signer.display());
    git_in(
        env.root(),
        &["-c", &program, "commit", "-qS", "-m", "signed"],
    );
    config(env.root(), "log.showSignature", "true");
    config(env.root(), "gpg.program", &p.touch());
    check("log.showSignature", &env, &p);
}

/// A partial clone (`--filter=blob:none`) of a two-commit origin: HEAD~1's blob
/// of `a.txt` is missing, so reading it would fetch from the promisor remote.
fn partial_clone() -> (TestEnv, tempfile::TempDir) {
    let origin = tempfile::tempdir().expect("tempdir");
    git_in(origin.path(), &["init", "-q"]);
    history(origin.path());
    std::fs::write(origin.path().join("a.txt"), "three\n").expect("write");
    git_in(origin.path(), &["commit", "-qam", "third"]);
    config(origin.path(), "uploadpack.allowFilter", "true");
    let dir = tempfile::tempdir().expect("tempdir");
    let url = format!("file://{}", origin.path().display());
    let target = dir.path().display().to_string();
    git_in(
        origin.path(),
        &["clone", "-q", "--filter=blob:none", &url, &target],
    );
    let state = tempfile::tempdir().expect("tempdir");
    let env = TestEnv { dir, state };
    touch_work_tree(env.root());
    (env, origin)
}

#[test]
fn lazy_fetch_through_an_ext_remote() {
    let ((env, _origin), p) = (partial_clone(), Payload::new());
    config(env.root(), "protocol.ext.allow", "always");
    config(
        env.root(),
        "remote.origin.url",
        &format!("ext::{}", p.touch()),
    );
    check("lazy fetch via ext::", &env, &p);
}

#[test]
fn lazy_fetch_through_ssh_command() {
    let ((env, _origin), p) = (partial_clone(), Payload::new());
    config(
        env.root(),
        "remote.origin.url",
        "ssh://example.invalid/repo.git",
    );
    config(env.root(), "core.sshCommand", &p.touch());
    check("lazy fetch via core.sshCommand", &env, &p);
}

#[test]
fn lazy_fetch_through_uploadpack() {
    let ((env, _origin), p) = (partial_clone(), Payload::new());
    config(env.root(), "remote.origin.uploadpack", &p.touch());
    check("lazy fetch via remote.*.uploadpack", &env, &p);
}
