//! `aitools mcp` with a stdout that refuses a reply: the server says so on
//! stderr (an `environment.output-lost` envelope naming the op a lost tool call
//! landed as) and stops with exit 1, even while its host keeps stdin open; a
//! closed pipe (the host gone) ends it quietly with 0.

use super::jsonl_output_lost::{closed_pipe, lost, repairs};
use crate::support::TestEnv;
use serde_json::json;
use std::io::Write;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// A stateless (2026-07-28) tools/call request.
fn call(id: i64, tool: &str, args: serde_json::Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
    "name": tool, "arguments": args,
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "scripted", "version": "1"},
    }}})
    .to_string()
        + "\n"
}

/// Waits for the server to exit by itself (its stdin still open), at most 20 s.
fn exits_alone(child: &mut Child) -> std::process::ExitStatus {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(s) = child.try_wait().expect("wait") {
            return s;
        }
        if Instant::now() > until {
            let _ = child.kill();
            panic!("the server kept running with its stdout failing");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn an_mcp_server_whose_stdout_is_full_names_the_op_and_stops() {
    let env = TestEnv::new();
    env.write("f.txt", "alpha\n");
    let full = std::fs::File::options()
        .write(true)
        .open("/dev/full")
        .expect("open /dev/full");
    let mut child = env
        .command(&["mcp", "--root", "."])
        .stdin(Stdio::piped())
        .stdout(full)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn aitools mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(
            call(
                1,
                "edit",
                json!({"path": "f.txt", "old": "alpha", "new": "beta"}),
            )
            .as_bytes(),
        )
        .unwrap();
    stdin.flush().unwrap();
    // stdin stays open, as a host keeps it: the server must stop by itself.
    let status = exits_alone(&mut child);
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    assert_eq!(status.code(), Some(1), "{out:?}");
    assert_eq!(env.read("f.txt"), b"beta\n");
    let v = lost(&out);
    // The server's --root goes into every repair, as for any call.
    let op = env.run(&["history"]).json["items"][0]["op_id"]
        .as_str()
        .expect("the edit is journaled")
        .to_string();
    assert_eq!(
        repairs(&v),
        [
            format!("aitools --root . diff --op {op}"),
            format!("aitools --root . undo {op}")
        ]
    );
}

#[test]
fn an_mcp_server_whose_stdout_is_closed_ends_quietly() {
    let env = TestEnv::new();
    env.write("f.txt", "alpha\n");
    let mut child = env
        .command(&["mcp", "--root", "."])
        .stdin(Stdio::piped())
        .stdout(closed_pipe())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn aitools mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(call(1, "read", json!({"path": "f.txt"})).as_bytes())
        .unwrap();
    stdin.flush().unwrap();
    let status = exits_alone(&mut child);
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    assert_eq!(status.code(), Some(0), "{out:?}");
    assert!(out.stderr.is_empty(), "{out:?}");
}
