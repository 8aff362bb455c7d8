//! Programs stay under control: `run` reads output into bounded memory, kills
//! what the program left (also past `setsid` and a double fork), and a failed
//! program's answer leads with what failed.

use crate::support::{TestEnv, alive_with};
use std::process::Command;

#[test]
fn run_yes_stays_in_bounded_memory() {
    let env = TestEnv::new();
    let mut c = Command::new("/usr/bin/time");
    c.args(["-f", "RSS %M"]).arg(crate::support::bin());
    c.args(["run", "--timeout", "1s", "--", "yes"]);
    let out = env.isolate(c).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let kb: u64 = err
        .lines()
        .find_map(|l| l.strip_prefix("RSS "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no RSS in {err}"));
    assert!(kb < 128 * 1024, "run yes peaked at {kb} KB");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["timed_out"], true);
    assert_eq!(v["stdout"]["truncated"], true);
    assert_eq!(v["stdout"]["tail"].as_array().unwrap().len(), 20);
}

#[test]
fn run_kills_children_that_setsid_or_double_fork() {
    let env = TestEnv::new();
    let script = "setsid sleep 7771 >/dev/null 2>&1 & (sleep 7772 >/dev/null 2>&1 &); echo started";
    let r = env.run(&["run", "--", "sh", "-c", script]);
    assert_eq!(r.json["exit_code"], 0, "{}", r.stdout);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let left = ["sleep 7771", "sleep 7772"].map(alive_with);
    assert_eq!(left, [false, false], "survivors of run: {left:?}");
    // The same under a timeout.
    let script = "setsid sleep 7773 >/dev/null 2>&1 & (sleep 7774 >/dev/null 2>&1 &); sleep 60";
    let r = env.run(&["run", "--timeout", "300ms", "--", "sh", "-c", script]);
    assert_eq!(r.json["timed_out"], true, "{}", r.stdout);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let left = ["sleep 7773", "sleep 7774"].map(alive_with);
    assert_eq!(left, [false, false], "survivors of run --timeout: {left:?}");
}

#[test]
fn a_failed_program_leads_with_what_failed_in_a_small_window() {
    let env = TestEnv::new();
    let script = "for i in $(seq 1 200); do echo \"test_$i PASSED\"; done; \
        echo 'E       assert 1 == 2'; echo 'tests/test_a.py:5: AssertionError'; \
        echo 'FAILED tests/test_a.py::test_one - assert 1 == 2'; exit 1";
    let r = env.run(&["run", "--", "sh", "-c", script]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    let first = r.stdout.split(',').nth(3).unwrap_or("");
    assert!(first.starts_with("\"failed\":"), "{}", r.stdout);
    assert_eq!(r.json["failed"]["reason"], "exit 1");
    let shown = r.json["failed"]["lines"].to_string();
    assert!(
        shown.contains("assert 1 == 2") && shown.contains("test_a.py:5"),
        "{shown}"
    );
    assert!(
        r.stdout.len() < 2048,
        "{} bytes: {}",
        r.stdout.len(),
        r.stdout
    );
    // A program that succeeded has no failed member.
    let ok = env.run(&["run", "--", "true"]);
    assert!(ok.json.get("failed").is_none(), "{}", ok.stdout);
}

/// A failure printed before a long cleanup (out of the tail window) and after
/// many early error lines still leads the answer: the last lines that show a
/// failure are kept too, a panic with its message, never a backtrace frame
/// or a `failures:` header (was: the first 8 matching lines only).
#[test]
fn a_failure_cut_from_the_tail_still_leads_the_answer() {
    let env = TestEnv::new();
    let script = "for i in $(seq 1 12); do echo \"retry $i: connection error\"; done; \
        echo 'failures:'; \
        echo \"thread 'main' panicked at src/cache.rs:42:9:\"; \
        echo 'index out of bounds: the len is 3 but the index is 7'; \
        echo '   2: core::panicking::assert_failed_inner'; \
        for i in $(seq 1 60); do echo \"cleanup step $i\"; done; exit 101";
    let r = env.run(&["run", "--", "sh", "-c", script]);
    assert_eq!(r.json["failed"]["reason"], "exit 101", "{}", r.stdout);
    let lines: Vec<String> = r.json["failed"]["lines"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|l| l.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let has = |s: &str| lines.iter().any(|l| l.contains(s));
    assert!(
        has("panicked at src/cache.rs:42:9") && has("index out of bounds"),
        "{lines:?}"
    );
    assert!(has("retry 1: connection error"), "{lines:?}");
    assert!(
        !has("assert_failed_inner") && !lines.iter().any(|l| l == "failures:"),
        "{lines:?}"
    );
    assert!(lines.len() <= 8, "{lines:?}");
    // Neither the panic nor its message is in the 20-line tail window.
    assert!(!r.json["stdout"]["tail"].to_string().contains("panicked"));
}

/// Wide lines (a minified bundle, JSON rows) do not turn the default windows
/// into a 76 KB answer: each stops at 4 KiB (one line at least) and says it was
/// truncated; an explicit --tail keeps the lines asked for.
#[test]
fn default_windows_stop_at_a_byte_cap_an_explicit_tail_lifts_it() {
    let env = TestEnv::new();
    let script =
        "w=$(printf '%03000d' 0); for i in $(seq 1 40); do echo \"row $i $w\"; done; exit 1";
    let r = env.run(&["run", "--", "sh", "-c", script]);
    assert!(r.stdout.len() < 12 * 1024, "{} bytes", r.stdout.len());
    let out = &r.json["stdout"];
    assert_eq!(out["total_lines"], 40, "{}", r.stdout);
    assert_eq!(out["truncated"], true);
    let tail = out["tail"].as_array().map_or(0, Vec::len);
    assert!(tail >= 1, "{}", r.stdout);
    assert!(out["tail"].to_string().contains("row 40 "), "{}", r.stdout);
    let head = out["head"].to_string();
    assert!(
        head.contains("row 1 ") && !head.contains("row 3 "),
        "{head}"
    );
    let all = env.run(&["run", "--tail", "40", "--", "sh", "-c", script]);
    assert_eq!(
        all.json["stdout"]["tail"].as_array().map_or(0, Vec::len),
        35
    );
}

#[test]
fn run_counts_the_secrets_it_masked() {
    let env = TestEnv::new();
    let token = format!("ghp_{}", "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5");
    let r = env.run(&["run", "--", "echo", "token", &token]);
    assert!(!r.stdout.contains(&token), "{}", r.stdout);
    assert_eq!(r.json["redactions"], 1, "{}", r.stdout);
}

/// `--stdout-to` past its 64 MiB cap says so: `partial`, `stdout.cut` and the
/// bytes the program printed in all (was: ok, and a file silently cut).
#[test]
fn stdout_to_past_its_cap_says_it_was_cut() {
    let env = TestEnv::new();
    let r = env.run(&[
        "run",
        "--timeout",
        "20s",
        "--stdout-to",
        "out.txt",
        "--",
        "head",
        "-c",
        "70000000",
        "/dev/zero",
    ]);
    assert_eq!(r.json["status"], "partial", "{}", r.stdout);
    assert_eq!(r.json["stdout"]["cut"], true, "{}", r.stdout);
    assert_eq!(r.json["stdout"]["bytes"], 64 * 1024 * 1024, "{}", r.stdout);
    assert_eq!(r.json["stdout"]["total_bytes"], 70_000_000, "{}", r.stdout);
    let kept = std::fs::metadata(env.path("out.txt")).unwrap().len();
    assert_eq!(kept, 64 * 1024 * 1024);
}

/// A loop that appends to `marker` every 50 ms, started past the group
/// (`setsid`) and the tag (`env -i`), optionally through a double fork.
fn escaping_writer(marker: &std::path::Path, double_fork: bool) -> String {
    let lp = format!(
        "while :; do echo x >> '{}'; sleep 0.05; done",
        marker.display()
    );
    let start = format!("env -i setsid sh -c \"{lp}\" >/dev/null 2>&1 &");
    if double_fork {
        format!("({start})")
    } else {
        start
    }
}

/// Whether `marker` still grows (it exists: the writer ran).
pub fn still_grows(marker: &std::path::Path) -> bool {
    let size = || std::fs::metadata(marker).map(|m| m.len()).unwrap_or(0);
    let a = size();
    std::thread::sleep(std::time::Duration::from_millis(600));
    let b = size();
    assert!(b > 0, "the writer never ran: {}", marker.display());
    a != b
}

/// A grandchild that left the group (`setsid`), dropped the job tag (`env -i`)
/// and was orphaned by a double fork is ended too: aitools is its subreaper
/// (was: it kept running after the answer, 4/4 on main).
#[test]
fn run_ends_what_left_both_its_group_and_its_tag() {
    let env = TestEnv::new();
    for (i, double) in [false, true].into_iter().enumerate() {
        // Normal exit: the program ends after the writer wrote.
        let m = env.path(&format!("exit-{i}.log"));
        let script = format!("{}\nsleep 0.5", escaping_writer(&m, double));
        let r = env.run(&["run", "--", "sh", "-c", &script]);
        assert_eq!(r.json["exit_code"], 0, "{}", r.stdout);
        assert!(r.json.get("not_killed").is_none(), "{}", r.stdout);
        assert!(!still_grows(&m), "it survived run's exit: {}", r.stdout);
        // Timeout.
        let m = env.path(&format!("timeout-{i}.log"));
        let script = format!("{}\nsleep 60", escaping_writer(&m, double));
        let r = env.run(&["run", "--timeout", "700ms", "--", "sh", "-c", &script]);
        assert_eq!(r.json["timed_out"], true, "{}", r.stdout);
        assert!(!still_grows(&m), "it survived run --timeout: {}", r.stdout);
    }
}

/// In the MCP server (one process, many calls), what a `run` left past its
/// group and tag is ended, while a bg job the server started lives on through
/// later runs and git calls (its supervisor is never taken for an orphan).
#[test]
fn the_mcp_server_ends_a_runs_leftovers_but_not_its_bg_jobs() {
    use crate::families::mcp::{req, session_in};
    use serde_json::json;
    let env = TestEnv::new();
    let call =
        |id, name: &str, args| req(id, "tools/call", json!({"name": name, "arguments": args}));
    let out = session_in(
        &env,
        &["--root", "."],
        &[
            call(
                1,
                "aitools",
                json!({"command": "bg start", "args": {"argv": ["sleep", "7785"]}}),
            ),
            call(
                2,
                "run",
                json!({"argv": ["sh", "-c", "env -i setsid sleep 7786 >/dev/null 2>&1 & sleep 0.2"]}),
            ),
            call(3, "git_status", json!({})),
            call(4, "run", json!({"argv": ["true"]})),
        ],
    );
    assert_eq!(out.len(), 4, "{out:?}");
    let alive = [alive_with("sleep 7785"), alive_with("sleep 7786")];
    env.run(&["bg", "stop", "bg-1", "--grace", "1s"]);
    assert_eq!(
        alive,
        [true, false],
        "[bg job, run's leftover] alive: {out:?}"
    );
}

/// A shell loop waiting (at most 20 s) until `file` exists.
fn await_file(file: &str) -> String {
    format!("i=0; while [ ! -e {file} ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done")
}

/// Whether the process whose pid `file` holds is a live `sleep`.
fn sleeping(env: &TestEnv, file: &str) -> bool {
    let pid = std::fs::read_to_string(env.path(file)).unwrap_or_default();
    let proc = std::path::Path::new("/proc").join(pid.trim());
    let cmd = std::fs::read(proc.join("cmdline")).unwrap_or_default();
    let stat = std::fs::read_to_string(proc.join("stat")).unwrap_or_default();
    let zombie = stat
        .rfind(')')
        .is_some_and(|i| stat[i + 1..].trim_start().starts_with('Z'));
    !pid.trim().is_empty() && !zombie && cmd.starts_with(b"sleep\0")
}

/// One legacy MCP session on the HTTP server: its headers.
fn http_session(s: &crate::families::console::Server) -> String {
    use crate::families::console::mcp_post;
    let init = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let (_, head, _) = mcp_post(s, &init, "");
    let sid = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("mcp-session-id")
                .then(|| v.trim().to_string())
        })
        .expect("a session id");
    let session = format!("Mcp-Session-Id: {sid}\nMCP-Protocol-Version: 2025-06-18");
    let note = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    mcp_post(s, &note, &session);
    session
}

/// Two `run`s at once in one server (two MCP sessions over HTTP), each leaving
/// an orphan past its group and its tag: the first to end takes only its own
/// (was: it took every tag-less orphan that re-parented to the server since it
/// started, also the other run's).
#[test]
fn two_concurrent_runs_in_one_server_end_only_their_own_leftovers() {
    use crate::families::console::{mcp_post, start};
    let env = TestEnv::new();
    let s = start(&env, &["mcp", "--http", "--port", "0"]);
    let orphan = |pid_file: &str, n: u32| {
        format!("(env -i setsid sh -c 'echo $$ > {pid_file}; exec sleep {n}' >/dev/null 2>&1 &)")
    };
    // B: leaves its orphan, says it started, ends once A's orphan runs.
    let b = format!(
        "{}; {}; touch b.started; {}",
        orphan("b.pid", 7793),
        await_file("b.pid"),
        await_file("a.pid")
    );
    // A: leaves its orphan after B started, then runs on until told.
    let a = format!(
        "{}; {}; {}; {}",
        await_file("b.started"),
        orphan("a.pid", 7794),
        await_file("a.pid"),
        await_file("go")
    );
    let call = |script: String| {
        let session = http_session(&s);
        let msg = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "run", "arguments": {"argv": ["sh", "-c", script], "timeout": "30s"}}});
        (session, msg)
    };
    let (sa, ma) = call(a);
    let (sb, mb) = call(b);
    std::thread::scope(|sc| {
        let ta = sc.spawn(|| mcp_post(&s, &ma, &sa));
        let rb = mcp_post(&s, &mb, &sb);
        assert_eq!(rb.0, 200, "{rb:?}");
        std::thread::sleep(std::time::Duration::from_millis(300));
        let after_b = [sleeping(&env, "b.pid"), sleeping(&env, "a.pid")];
        std::fs::write(env.path("go"), "").unwrap();
        let ra = ta.join().unwrap();
        assert_eq!(ra.0, 200, "{ra:?}");
        std::thread::sleep(std::time::Duration::from_millis(300));
        let after_a = sleeping(&env, "a.pid");
        assert_eq!(
            (after_b, after_a),
            ([false, true], false),
            "([B's orphan, A's orphan] alive when B ended, A's when A ended): {}",
            String::from_utf8_lossy(&ra.2)
        );
    });
}

/// Every process there is, with its command line (NUL-joined words).
fn processes() -> Vec<(u32, Vec<u8>)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| {
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            Some((pid, std::fs::read(e.path().join("cmdline")).ok()?))
        })
        .collect()
}

/// SIGKILL to each process whose command line `pick` takes.
fn kill_where(pick: impl Fn(&[u8]) -> bool) {
    for (pid, cmd) in processes() {
        if pick(&cmd) {
            // SAFETY: kill(2) with integer arguments.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        }
    }
}

/// The pid of the live `__run-reaper` process whose program's argv holds `marker`.
fn reaper_of(marker: &str) -> Option<u32> {
    processes().into_iter().find_map(|(pid, cmd)| {
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        (cmd.contains("__run-reaper") && cmd.contains(marker)).then_some(pid)
    })
}

/// Each `run` in one server gets a reaper of its own; SIGKILL to that reaper
/// still ends what its program started (in its group, past `setsid`, and past
/// `setsid` + `env -i`, which drops the job tag) within seconds (was: the
/// `env -i` one kept running with no owner; before that all three did).
#[test]
fn a_killed_run_reaper_leaves_no_program_behind() {
    use crate::families::console::{mcp_post, start};
    let env = TestEnv::new();
    let s = start(&env, &["mcp", "--http", "--port", "0"]);
    let call = |script: String| {
        let session = http_session(&s);
        let msg = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "run", "arguments": {"argv": ["sh", "-c", script], "timeout": "60s"}}});
        (session, msg)
    };
    // A runs while B does (each under a reaper of its own).
    let (sa, ma) = call(format!("touch a.started; {}", await_file("go")));
    let (sb, mb) = call(format!(
        "{}; (setsid sleep 7798 &); (env -i setsid sleep 7799 >/dev/null 2>&1 &); sleep 7797 & sleep 7797",
        await_file("a.started")
    ));
    std::thread::scope(|sc| {
        let ta = sc.spawn(|| mcp_post(&s, &ma, &sa));
        // B is sent once A runs (so A holds the server's own slot).
        let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !env.path("a.started").exists() {
            assert!(std::time::Instant::now() < until, "A never started");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let tb = sc.spawn(|| mcp_post(&s, &mb, &sb));
        let mut reaper = None;
        while reaper.is_none()
            || !["7797", "7798", "7799"]
                .iter()
                .all(|n| alive_with(&format!("sleep {n}")))
        {
            assert!(std::time::Instant::now() < until, "B never started");
            std::thread::sleep(std::time::Duration::from_millis(50));
            reaper = reaper_of("7797");
        }
        let pid = reaper.unwrap_or_default().to_string();
        Command::new("kill").args(["-9", &pid]).status().unwrap();
        let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let left = || ["7797", "7798", "7799"].map(|n| alive_with(&format!("sleep {n}")));
        while left().contains(&true) && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let left = left();
        std::fs::write(env.path("go"), "").unwrap();
        let (ra, rb) = (ta.join().unwrap(), tb.join().unwrap());
        for marker in ["sleep\x007797\0", "sleep\x007798\0", "sleep\x007799\0"] {
            kill_exact(marker);
        }
        assert_eq!(
            left,
            [false, false, false],
            "[group sleep, setsid sleep, setsid + env -i sleep] alive 5 s after the reaper's SIGKILL: {ra:?} {:?}",
            String::from_utf8_lossy(&rb.2)
        );
    });
}

/// SIGKILL to each process whose whole command line is `cmdline` (NUL-joined).
fn kill_exact(cmdline: &str) {
    kill_where(|cmd| cmd == cmdline.as_bytes());
}

/// Every live process whose command line holds one of `markers`.
fn alive_of(markers: &[&str]) -> Vec<bool> {
    markers.iter().map(|m| alive_with(m)).collect()
}

/// Waits (at most 20 s) until every marker names a live process.
fn await_alive(markers: &[&str]) {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while alive_of(markers).contains(&false) {
        assert!(
            std::time::Instant::now() < until,
            "never started: {markers:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Whether any marker still names a live process 2 s after the call.
fn alive_after_2s(markers: &[&str]) -> Vec<bool> {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(2);
    while alive_of(markers).contains(&true) && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    alive_of(markers)
}

/// A program in the group (`&`), one past `setsid`, one past `setsid` + `env -i`.
fn three_ways(n: u32) -> (String, [String; 3]) {
    let [a, b, c] = [n, n + 1, n + 2];
    let script = format!(
        "sleep {a} & (setsid sleep {b} &); (env -i setsid sleep {c} >/dev/null 2>&1 &); sleep {a}"
    );
    (script, [a, b, c].map(|n| format!("sleep {n}")))
}

/// SIGKILL to the `aitools run` process itself: its run's reaper sees it die
/// and ends the program's whole tree within 2 s (was: the program and all it
/// started kept running, re-parented to init, 3/3).
#[test]
fn sigkill_to_aitools_run_ends_its_programs_whole_tree() {
    let env = TestEnv::new();
    let (script, names) = three_ways(7821);
    let markers: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut child = env
        .command(&["run", "--timeout", "60s", "--", "sh", "-c", &script])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn aitools run");
    await_alive(&markers);
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    let left = alive_after_2s(&markers);
    for n in 7821..7824 {
        kill_exact(&format!("sleep\0{n}\0"));
    }
    assert_eq!(
        left, [false; 3],
        "{markers:?} alive 2 s after aitools' SIGKILL"
    );
}

/// SIGKILL to `aitools mcp` while a `run` call runs: the run's tree ends
/// within 2 s; a bg job the server started lives on (bg jobs outlive whatever
/// started them, a server killed or not; `bg stop` ends them).
#[test]
fn sigkill_to_the_mcp_server_ends_its_runs_not_its_bg_jobs() {
    use crate::families::mcp::call;
    use serde_json::json;
    use std::io::Write;
    let env = TestEnv::new();
    let (script, names) = three_ways(7831);
    let mut markers: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut server = env
        .command(&["mcp", "--root", "."])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn aitools mcp");
    let mut stdin = server.stdin.take().expect("stdin");
    let bg = json!({"command": "bg start", "args": {"argv": ["sleep", "7835"]}});
    let run = json!({"argv": ["sh", "-c", script], "timeout": "60s"});
    for msg in [call(1, "aitools", bg), call(2, "run", run)] {
        writeln!(stdin, "{msg}").expect("request");
    }
    markers.push("sleep 7835");
    await_alive(&markers);
    server.kill().expect("SIGKILL");
    let _ = server.wait();
    drop(stdin);
    let left = alive_after_2s(&markers[..3]);
    let bg_alive = alive_with("sleep 7835");
    env.run(&["bg", "stop", "bg-1", "--grace", "1s"]);
    for n in 7831..7834 {
        kill_exact(&format!("sleep\0{n}\0"));
    }
    assert_eq!(
        (left, bg_alive),
        (vec![false; 3], true),
        "({markers:?} of the run alive 2 s after the server's SIGKILL, bg job alive)"
    );
}

/// The parent pid and state of `pid` (`None` once it is gone).
fn parent_and_state(pid: u32) -> Option<(u32, char)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut f = stat[stat.rfind(')')? + 1..].split_whitespace();
    let state = f.next()?.chars().next()?;
    Some((f.next()?.parse().ok()?, state))
}

/// The pid of a live process whose parent is `parent` and whose command line
/// holds `marker`.
fn child_of(parent: u32, marker: &str) -> Option<u32> {
    processes().into_iter().find_map(|(pid, cmd)| {
        let (ppid, state) = parent_and_state(pid)?;
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        (ppid == parent && state != 'Z' && cmd.contains(marker)).then_some(pid)
    })
}

/// SIGKILL to a run's reaper (the process its program runs under) while a bg
/// job of the same server has a grandchild past its group and its tag
/// (`setsid` + `env -i`) that re-parented to the server (its supervisor was
/// killed): the run's whole tree ends, the bg job's orphan lives on (was: the
/// server swept every tag-less orphan that re-parented to it since the run
/// started, the bg job's too).
#[test]
fn a_killed_run_reaper_spares_another_jobs_orphan() {
    use crate::families::console::{mcp_post, start};
    let env = TestEnv::new();
    let s = start(&env, &["mcp", "--http", "--port", "0"]);
    let orphan = |pid_file: &str, n: u32| {
        format!("(env -i setsid sh -c 'echo $$ > {pid_file}; exec sleep {n}' >/dev/null 2>&1 &)")
    };
    let script = format!(
        "{}; {}; touch run.started; {}; sleep 7863",
        orphan("run.pid", 7862),
        await_file("run.pid"),
        await_file("go")
    );
    let session = http_session(&s);
    let msg = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "run", "arguments": {"argv": ["sh", "-c", script], "timeout": "60s"}}});
    let wait_for = |what: &dyn Fn() -> bool, label: &str| {
        let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !what() {
            assert!(std::time::Instant::now() < until, "{label} never came");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    };
    std::thread::scope(|sc| {
        let run = sc.spawn(|| mcp_post(&s, &msg, &session));
        wait_for(&|| env.path("run.started").exists(), "the run");
        // The bg job starts after the run did: its orphan is as young.
        let bg = format!("{}; sleep 7865", orphan("bg.pid", 7864));
        let start_bg = serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "aitools", "arguments": {"command": "bg start", "args": {"argv": ["sh", "-c", bg]}}}});
        let other = http_session(&s);
        assert_eq!(mcp_post(&s, &start_bg, &other).0, 200);
        wait_for(&|| sleeping(&env, "bg.pid"), "the bg job's orphan");
        // Its supervisor dies (the OOM killer, a kill -9): what it held
        // re-parents to the server.
        kill_exact_with("__bg-supervise", "7865");
        wait_for(
            &|| {
                let pid = std::fs::read_to_string(env.path("bg.pid")).unwrap_or_default();
                let pid = pid.trim().parse().unwrap_or(0);
                parent_and_state(pid).is_some_and(|(pp, _)| pp == s.child.id())
            },
            "the bg orphan's re-parenting to the server",
        );
        // The process the run's program runs under is killed.
        let prog = find_program("7863").expect("the run's program");
        let (reaper, _) = parent_and_state(prog).expect("its parent");
        Command::new("kill")
            .args(["-9", &reaper.to_string()])
            .status()
            .unwrap();
        let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let run_alive = || [sleeping(&env, "run.pid"), alive_with("sleep 7863")];
        while run_alive().contains(&true) && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let (left, bg_alive) = (run_alive(), sleeping(&env, "bg.pid"));
        std::fs::write(env.path("go"), "").unwrap();
        let r = run.join().unwrap();
        for marker in [
            "sleep\x007862\0",
            "sleep\x007863\0",
            "sleep\x007864\0",
            "sleep\x007865\0",
        ] {
            kill_exact(marker);
        }
        kill_exact_with("sh\0-c\0", "7865");
        assert_eq!(
            (left, bg_alive),
            ([false, false], true),
            "([run's orphan, run's program] alive 5 s after its reaper's SIGKILL, the bg job's orphan alive): {:?}",
            String::from_utf8_lossy(&r.2)
        );
    });
}

/// The `sh -c` process whose command line holds `marker`.
fn find_program(marker: &str) -> Option<u32> {
    processes().into_iter().find_map(|(pid, cmd)| {
        (cmd.starts_with(b"sh\0-c\0") && String::from_utf8_lossy(&cmd).contains(marker))
            .then_some(pid)
    })
}

/// SIGKILL to each process whose command line holds both `a` and `b`.
fn kill_exact_with(a: &str, b: &str) {
    kill_where(|cmd| {
        let cmd = String::from_utf8_lossy(cmd);
        cmd.contains(a) && cmd.contains(b)
    });
}

/// A run's reaper that first looks at its starter after the starter died
/// (SIGKILL between the reaper's start and that look, held open by the
/// debug-build stall `AITOOLS_TEST_REAPER_STALL_MS`) starts nothing: no
/// program runs for no one.
#[test]
fn a_reaper_whose_starter_died_first_starts_nothing() {
    let env = TestEnv::new();
    let mut aitools = env
        .command(&[
            "run",
            "--timeout",
            "60s",
            "--",
            "sh",
            "-c",
            "touch started; exec sleep 7871",
        ])
        .env("AITOOLS_TEST_REAPER_STALL_MS", "1500")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn aitools run");
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let reaper = loop {
        // The reaper: forked (aitools' own command line) or exec'd
        // (`__run-reaper`), either way naming the program's argv.
        if let Some(p) = child_of(aitools.id(), "7871") {
            break p;
        }
        assert!(std::time::Instant::now() < until, "no reaper started");
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    aitools.kill().expect("SIGKILL");
    let _ = aitools.wait();
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while parent_and_state(reaper).is_some_and(|(_, s)| s != 'Z')
        && std::time::Instant::now() < until
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let ran = (env.path("started").exists(), alive_with("sleep 7871"));
    kill_exact("sleep\x007871\0");
    assert_eq!(ran, (false, false), "(the program ran, runs now)");
}

/// A shell line that writes the descriptor numbers a child of `sh` holds open
/// (the shell's own, what it was started with) to `out`, whole (a rename).
fn list_fds(out: &str) -> String {
    format!("ls /proc/self/fd > {out}.tmp && mv {out}.tmp {out}")
}

/// The descriptor numbers in `file` (waits at most 10 s for it to appear).
fn fds_in(env: &TestEnv, file: &str) -> std::collections::BTreeSet<u32> {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !env.path(file).exists() && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let text = std::fs::read_to_string(env.path(file)).unwrap_or_default();
    text.split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect()
}

/// Gives `cmd` descriptor 9, open on `file` without close-on-exec: one its
/// caller hands on (as make hands its jobserver pipe to a recipe).
fn hand_on_fd9(cmd: &mut std::process::Command, file: &std::fs::File) {
    use std::os::unix::io::AsRawFd;
    use std::os::unix::process::CommandExt;
    let fd = file.as_raw_fd();
    // SAFETY: dup2 on plain integers in the forked child, async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            if libc::dup2(fd, 9) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// A program `run` or `bg start` starts (from the CLI, where the run's reaper
/// is forked, and from `aitools mcp`, where it is exec'd) holds the descriptors
/// the same program started directly would: 0, 1, 2 and what the caller handed
/// on (9 here), never one of aitools' own (its files, locks, pipes, the reaper's
/// report pipe).
#[test]
fn a_started_program_holds_no_descriptor_of_aitools() {
    use crate::families::mcp::{call, session_in};
    let env = TestEnv::new();
    let handed = std::fs::File::open(env.root()).expect("open");
    let mut direct = std::process::Command::new("sh");
    direct.args(["-c", &list_fds("direct.txt")]);
    direct
        .current_dir(env.root())
        .stdin(std::process::Stdio::null());
    hand_on_fd9(&mut direct, &handed);
    assert!(direct.status().expect("sh").success());
    let want = fds_in(&env, "direct.txt");
    assert!(want.contains(&9) && want.contains(&2), "{want:?}");
    let mut run = env.command(&["run", "--", "sh", "-c", &list_fds("run.txt")]);
    hand_on_fd9(&mut run, &handed);
    crate::support::parse(run.output().expect("aitools run"));
    let mut bg = env.command(&["bg", "start", "--", "sh", "-c", &list_fds("bg.txt")]);
    hand_on_fd9(&mut bg, &handed);
    crate::support::parse(bg.output().expect("aitools bg start"));
    let replies = session_in(
        &env,
        &["--root", "."],
        &[
            call(
                1,
                "run",
                serde_json::json!({"argv": ["sh", "-c", list_fds("mcp-run.txt")]}),
            ),
            call(
                2,
                "aitools",
                serde_json::json!({"command": "bg start", "args": {"argv": ["sh", "-c", list_fds("mcp-bg.txt")]}}),
            ),
        ],
    );
    assert_eq!(replies.len(), 2, "{replies:?}");
    // The HTTP server has threads, so its run's reaper is exec'd, not forked.
    let s = crate::families::console::start(&env, &["mcp", "--http", "--port", "0"]);
    let msg = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "run", "arguments": {"argv": ["sh", "-c", list_fds("http-run.txt")]}}});
    let r = crate::families::console::mcp_post(&s, &msg, &http_session(&s));
    assert_eq!(r.0, 200, "{r:?}");
    // The servers were started without descriptor 9: their programs hold 0-2 only.
    let plain: std::collections::BTreeSet<u32> =
        want.iter().copied().filter(|fd| *fd != 9).collect();
    let got = [
        ("run", fds_in(&env, "run.txt"), &want),
        ("bg start", fds_in(&env, "bg.txt"), &want),
        ("mcp run", fds_in(&env, "mcp-run.txt"), &plain),
        ("mcp bg start", fds_in(&env, "mcp-bg.txt"), &plain),
        ("http mcp run", fds_in(&env, "http-run.txt"), &plain),
    ];
    for (how, fds, want) in got {
        assert_eq!(&fds, want, "{how}: the program's descriptors");
    }
}
