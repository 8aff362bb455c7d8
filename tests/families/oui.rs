//! `aitools oui manifest` and `aitools oui connect` (seed 002): every manifest
//! validates against a JSON Schema written from the seed's rules (§3–§6, §9.3.2),
//! and the dialling binding is driven by a small WebSocket runtime written here.

use crate::support::TestEnv;
use serde_json::{Value, json};
use std::net::TcpListener;
use std::time::{Duration, Instant};

/// The seed's rules as a JSON Schema: ids and their patterns and lengths,
/// required fields, `estimatedDuration` and `updateFrequency` values, and
/// self-contained input schemas (an object of described properties, every
/// string bounded by `maxLength` or an `enum`, every array by `maxItems`).
fn manifest_schema() -> Value {
    let bounded_prop = json!({
        "type": "object",
        "required": ["description", "type"],
        "properties": {
            "description": {"type": "string", "minLength": 1},
            "type": {"enum": ["string", "integer", "boolean", "array", "number", "object"]}
        },
        "allOf": [
            {"if": {"properties": {"type": {"const": "string"}}},
             "then": {"anyOf": [{"required": ["maxLength"]}, {"required": ["enum"]}]}},
            {"if": {"properties": {"type": {"const": "array"}}},
             "then": {"required": ["maxItems", "items"],
                      "properties": {"items": {"anyOf": [
                          {"properties": {"type": {"const": "string"}},
                           "anyOf": [{"required": ["maxLength"]}, {"required": ["enum"]}]},
                          {"properties": {"type": {"enum": ["integer", "boolean", "number"]}}}
                      ]}}}}
        ],
        "not": {"anyOf": [{"required": ["$ref"]}, {"required": ["$defs"]}]}
    });
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "required": ["id", "name", "description", "actions"],
        "properties": {
            "id": {"type": "string", "pattern": "^[a-z][a-z0-9-]*[a-z0-9]$", "minLength": 2, "maxLength": 64},
            "name": {"type": "string", "minLength": 1, "maxLength": 128},
            "description": {"type": "string", "minLength": 1, "maxLength": 1024},
            "version": {"type": "string", "pattern": "^[0-9]+\\.[0-9]+\\.[0-9]+"},
            "metadata": {"type": "object"},
            "activation": {"type": "object"},
            "actions": {"type": "array", "minItems": 1, "items": {
                "type": "object",
                "required": ["id", "description", "input"],
                "properties": {
                    "id": {"type": "string", "pattern": "^[a-z][a-z0-9_]*[a-z0-9]$", "minLength": 2, "maxLength": 64},
                    "description": {"type": "string", "minLength": 1, "maxLength": 1024},
                    "input": {
                        "type": "object",
                        "required": ["type", "properties"],
                        "properties": {
                            "type": {"const": "object"},
                            "properties": {"type": "object", "additionalProperties": bounded_prop},
                            "required": {"type": "array", "items": {"type": "string"}}
                        },
                        "not": {"anyOf": [{"required": ["$ref"]}, {"required": ["$defs"]},
                                          {"required": ["oneOf"]}, {"required": ["anyOf"]}]}
                    },
                    "output": {"type": "object"},
                    "confirm": {"type": "boolean"},
                    "async": {"type": "boolean"},
                    "usage": {"type": "string"},
                    "preconditions": {"type": "string"},
                    "estimatedDuration": {"enum": ["instant", "< 1s", "1-5s", "5-30s", "30-120s", "> 2min"]},
                    "tags": {"type": "array", "items": {"type": "string", "minLength": 1}}
                }
            }},
            "observations": {"type": "array", "items": {
                "type": "object",
                "required": ["id", "description", "schema"],
                "properties": {
                    "id": {"type": "string", "pattern": "^[a-z][a-z0-9_]*[a-z0-9]$", "minLength": 2, "maxLength": 64},
                    "description": {"type": "string", "minLength": 1, "maxLength": 1024},
                    "schema": {"type": "object"},
                    "updateFrequency": {"enum": ["realtime", "on-change", "polling"]}
                }
            }}
        }
    })
}

/// What the schema cannot say: ids unique in a surface, observation ids apart
/// from action ids, no `$ref` anywhere, surface ids unique.
fn check_ids(surfaces: &[Value]) {
    let mut sids: Vec<&str> = surfaces.iter().map(|s| s["id"].as_str().unwrap()).collect();
    let n = sids.len();
    sids.sort();
    sids.dedup();
    assert_eq!(n, sids.len(), "surface ids are unique");
    for s in surfaces {
        let mut ids: Vec<&str> = s["actions"]
            .as_array()
            .unwrap()
            .iter()
            .chain(s["observations"].as_array().unwrap())
            .map(|a| a["id"].as_str().unwrap())
            .collect();
        let n = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(
            n,
            ids.len(),
            "{}: action and observation ids unique",
            s["id"]
        );
        assert!(
            !s.to_string().contains("\"$ref\""),
            "{}: self-contained",
            s["id"]
        );
    }
}

fn manifests(env: &TestEnv) -> Vec<Value> {
    let r = env.run(&["oui", "manifest"]);
    assert_eq!(r.json["status"], "ok", "{}", r.json);
    r.json["surfaces"].as_array().unwrap().clone()
}

fn action<'a>(surfaces: &'a [Value], s: &str, a: &str) -> &'a Value {
    let surface = surfaces.iter().find(|x| x["id"] == s).unwrap();
    surface["actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == a)
        .unwrap_or_else(|| panic!("{s} has no action {a}"))
}

#[test]
fn every_manifest_validates_against_the_seed_rules() {
    let env = TestEnv::new();
    let surfaces = manifests(&env);
    let ids: Vec<&str> = surfaces.iter().map(|s| s["id"].as_str().unwrap()).collect();
    for want in [
        "journal",
        "transactions",
        "recovery",
        "feedback",
        "programs",
    ] {
        assert!(ids.contains(&want), "{want} in {ids:?}");
    }
    let validator = jsonschema::draft202012::new(&manifest_schema()).expect("the schema compiles");
    for s in &surfaces {
        let errors: Vec<String> = validator.iter_errors(s).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{}: {errors:?}", s["id"]);
        // Each observation schema and output is itself a JSON Schema.
        for o in s["observations"].as_array().unwrap() {
            jsonschema::draft202012::new(&o["schema"]).expect("an observation schema compiles");
        }
    }
    check_ids(&surfaces);
    // Confirmation exactly where the operator cannot trivially take it back.
    for (s, a) in [
        ("journal", "undo"),
        ("transactions", "tx_commit"),
        ("transactions", "tx_abort"),
        ("recovery", "recover"),
        ("recovery", "recover_set_aside"),
        ("programs", "bg_stop"),
    ] {
        assert_eq!(action(&surfaces, s, a)["confirm"], true, "{a}");
        let tags = action(&surfaces, s, a)["tags"].as_array().unwrap().clone();
        assert!(tags.contains(&json!("destructive")), "{a}: {tags:?}");
    }
    for (s, a) in [
        ("journal", "history"),
        ("journal", "diff"),
        ("recovery", "recover_dry_run"),
        ("programs", "bg_logs"),
    ] {
        assert_eq!(action(&surfaces, s, a)["confirm"], false, "{a}");
        assert_eq!(action(&surfaces, s, a)["tags"], json!(["read-only"]), "{a}");
    }
    // Argument names are the MCP tools' (`undo` takes `op_id`).
    assert_eq!(
        action(&surfaces, "journal", "undo")["input"]["required"],
        json!(["op_id"])
    );
    assert!(
        action(&surfaces, "transactions", "tx_commit")["input"]["properties"]["tx"].is_object()
    );
    // A rule broken is caught: the validator is no rubber stamp.
    let mut bad = surfaces[0].clone();
    bad["id"] = json!("Journal");
    bad["actions"][0]["input"]["properties"]["x"] = json!({"type": "string", "description": "x"});
    assert!(validator.iter_errors(&bad).count() >= 2);
}

#[test]
fn one_surface_or_an_error_naming_the_others() {
    let env = TestEnv::new();
    let r = env.run(&["oui", "manifest", "--surface", "programs"]);
    assert_eq!(r.json["surfaces"].as_array().unwrap().len(), 1);
    assert_eq!(r.json["surfaces"][0]["id"], "programs");
    let r = env.run(&["oui", "manifest", "--surface", "nope"]);
    assert_eq!(r.error_code(), "input.not-found");
    assert!(
        r.json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("journal")
    );
}

// ---- the WebSocket binding, against a runtime written here ----

type Ws = tungstenite::WebSocket<crate::support::Patient>;

/// The surface process, killed if the test ends before it does (a failed
/// assertion must not leave it dialling).
struct Surface(Option<std::process::Child>);

impl Drop for Surface {
    fn drop(&mut self) {
        if let Some(c) = self.0.as_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn accept(listener: &TcpListener, token: &str) -> Ws {
    listener.set_nonblocking(true).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let stream = loop {
        match listener.accept() {
            Ok((s, _)) => break s,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => panic!("the surface did not dial: {e}"),
        }
    };
    stream.set_nonblocking(false).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let want = format!("Bearer {token}");
    tungstenite::accept_hdr(
        crate::support::Patient(stream),
        |req: &tungstenite::handshake::server::Request, resp| {
            assert_eq!(
                req.headers()
                    .get("authorization")
                    .and_then(|v| v.to_str().ok()),
                Some(want.as_str())
            );
            assert!(req.uri().to_string().contains("token="), "{}", req.uri());
            assert_eq!(req.uri().path(), "/oui/v1");
            Ok(resp)
        },
    )
    .expect("the WebSocket handshake")
}

fn next(ws: &mut Ws) -> Value {
    loop {
        match ws.read().expect("a frame from the surface") {
            tungstenite::Message::Text(t) => return serde_json::from_str(&t).expect("JSON"),
            tungstenite::Message::Close(_) => return json!({"type": "closed"}),
            _ => {}
        }
    }
}

/// Frames until one matches `pred` (the others returned too).
fn until(ws: &mut Ws, pred: impl Fn(&Value) -> bool) -> (Value, Vec<Value>) {
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        let v = next(ws);
        if pred(&v) {
            return (v, seen);
        }
        seen.push(v);
    }
    panic!("no such frame; saw {seen:?}");
}

fn send(ws: &mut Ws, v: Value) {
    ws.send(tungstenite::Message::text(v.to_string())).unwrap();
}

fn request(ws: &mut Ws, rid: &str, surface: &str, action: &str, params: Value) -> Value {
    send(
        ws,
        json!({"type": "action:request", "payload": {"requestId": rid, "surfaceId": surface,
            "actionId": action, "params": params, "timestamp": 1}}),
    );
    until(ws, |v| v["type"] == "action:result").0["payload"].clone()
}

fn registration(ws: &mut Ws, n_surfaces: usize) -> Vec<Value> {
    let mut regs = Vec::new();
    while regs.len() < n_surfaces {
        let (v, _) = until(ws, |v| v["type"] == "surface:register");
        regs.push(v["payload"]["surface"].clone());
    }
    regs
}

#[test]
fn connect_registers_answers_pushes_reconnects_and_deregisters() {
    let env = TestEnv::new();
    env.write("a.txt", "one\n");
    let n_surfaces = manifests(&env).len();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("ws://{}/oui/v1", listener.local_addr().unwrap());
    let mut surface = Surface(Some(
        env.command(&["oui", "connect", &url, "--token", "s3cret"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn aitools oui connect"),
    ));
    let pid = surface.0.as_ref().unwrap().id() as i32;

    let mut ws = accept(&listener, "s3cret");
    let regs = registration(&mut ws, n_surfaces);
    let validator = jsonschema::draft202012::new(&manifest_schema()).unwrap();
    for s in &regs {
        assert!(validator.is_valid(s), "{}", s["id"]);
        assert!(s["metadata"]["binding"].as_str().unwrap().contains("8.2"));
    }
    // The current values follow the registration.
    let (head, _) = until(&mut ws, |v| {
        v["type"] == "observation:update" && v["payload"]["observationId"] == "journal_head"
    });
    assert_eq!(head["payload"]["value"]["total"], 0);

    // Malformed, unknown and x- events are ignored; the socket stays open.
    ws.send(tungstenite::Message::text("{not json")).unwrap();
    send(&mut ws, json!({"type": "x-analytics:track", "payload": {}}));
    send(&mut ws, json!({"type": "surface:bogus", "payload": {}}));
    send(&mut ws, json!({"payload": {"requestId": "r0"}}));
    // A 2 MB frame is refused without closing.
    let big = json!({"type": "action:request", "payload": {"requestId": "big",
        "surfaceId": "journal", "actionId": "history", "params": {"path": "x".repeat(2 << 20)}}});
    send(&mut ws, big);

    let r = request(&mut ws, "r1", "journal", "history", json!({"limit": 5}));
    assert_eq!(r["requestId"], "r1", "the big frame got no answer: {r}");
    assert_eq!(r["success"], true);
    assert_eq!(r["data"]["command"], "history");
    assert!(r.get("error").is_none());

    let r = request(&mut ws, "r2", "journal", "no_such", json!({}));
    assert_eq!(
        (r["requestId"].clone(), r["success"].clone()),
        (json!("r2"), json!(false))
    );
    assert_eq!(r["error"]["code"], "ACTION_NOT_FOUND");
    let r = request(&mut ws, "r3", "journal", "undo", json!({}));
    assert_eq!(r["error"]["code"], "VALIDATION_ERROR");
    assert_eq!(r["error"]["details"]["field"], "op_id");
    let r = request(&mut ws, "r4", "journal", "undo", json!({"op_id": 7}));
    assert_eq!(r["error"]["code"], "VALIDATION_ERROR");

    // A CLI write is pushed as a journal_head update.
    let w = env.run(&["write", "b.txt", "--content", "two\n"]);
    assert_eq!(w.code, 0, "{}", w.json);
    let op = w.op_id();
    let (u, _) = until(&mut ws, |v| {
        v["type"] == "observation:update"
            && v["payload"]["observationId"] == "journal_head"
            && v["payload"]["value"]["total"] == 1
    });
    assert_eq!(u["payload"]["surfaceId"], "journal");

    // A failed command: the aitools error in details, the closer standard code.
    let r = request(
        &mut ws,
        "r5",
        "journal",
        "undo",
        json!({"op_id": "op-00000000"}),
    );
    assert_eq!(r["success"], false);
    assert_eq!(r["error"]["code"], "EXECUTION_ERROR", "{r}");
    assert!(
        r["error"]["details"]["code"]
            .as_str()
            .unwrap()
            .contains('.')
    );
    assert!(
        r["error"]["details"]["repairs"][0]["command"]
            .as_str()
            .unwrap()
            .starts_with("aitools")
    );
    // The undo itself, confirmed by the runtime: the file is back.
    let r = request(&mut ws, "r6", "journal", "undo", json!({"op_id": op}));
    assert_eq!(r["success"], true, "{r}");
    assert!(!env.path("b.txt").exists(), "the undo removed the new file");
    // The observation request is answered.
    send(
        &mut ws,
        json!({"type": "observation:request", "payload": {"surfaceId": "journal",
            "observationId": "workspace_summary", "requestId": "o1", "timestamp": 1}}),
    );
    let (o, _) = until(&mut ws, |v| {
        v["type"] == "observation:update" && v["payload"]["observationId"] == "workspace_summary"
    });
    assert_eq!(o["payload"]["value"]["command"], "git status");

    // The connection drops: the surface dials again (after 1 s) and registers again.
    drop(ws);
    let t = Instant::now();
    let mut ws = accept(&listener, "s3cret");
    assert!(t.elapsed() < Duration::from_secs(10));
    let regs = registration(&mut ws, n_surfaces);
    assert_eq!(regs.len(), n_surfaces);

    // SIGTERM: deregistration, then the close, then one envelope and exit 0.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let (_, _) = until(&mut ws, |v| v["type"] == "surface:deregister");
    let mut gone = 1;
    loop {
        let v = next(&mut ws);
        match v["type"].as_str() {
            Some("surface:deregister") => gone += 1,
            Some("closed") => break,
            _ => {}
        }
    }
    assert_eq!(gone, n_surfaces);
    let out = surface.0.take().unwrap().wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let env_line: Value = serde_json::from_slice(&out.stdout).expect("one envelope");
    assert_eq!(env_line["command"], "oui connect");
    assert_eq!(env_line["connections"], 2);
    assert_eq!(env_line["stopped"], "SIGTERM");
    assert!(!out.stdout.windows(6).any(|w| w == b"s3cret"));
}

#[test]
fn connect_refuses_what_it_cannot_dial() {
    let env = TestEnv::new();
    let r = env.run(&["oui", "connect", "wss://127.0.0.1:1/oui/v1"]);
    assert_eq!(r.error_code(), "argument.invalid");
    let r = env.run(&["oui", "connect", "http://127.0.0.1:1/"]);
    assert_eq!(r.error_code(), "argument.invalid");
}

/// A first connection that nobody answers (a closed port) ends within
/// `--connect-timeout` (default 5 s) with `environment.unavailable`, a repair
/// that connects again with a longer budget and one that serves the surfaces
/// instead (was: it retried for good, 3/3).
#[test]
fn a_first_connection_nobody_answers_ends_within_its_budget() {
    let env = TestEnv::new();
    // A port that was free a moment ago: nothing listens there now.
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let url = format!("ws://127.0.0.1:{port}/oui/v1");
    for (extra, most) in [(&[][..], 9), (&["--connect-timeout", "1s"][..], 4)] {
        let mut args = vec!["oui", "connect", &url, "--token", "s3cret"];
        args.extend_from_slice(extra);
        let mut child = env
            .command(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn aitools oui connect");
        let start = Instant::now();
        let until = start + Duration::from_secs(15);
        while child.try_wait().unwrap().is_none() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(50));
        }
        let took = start.elapsed();
        let _ = child.kill();
        let out = child.wait_with_output().unwrap();
        assert!(
            took < Duration::from_secs(most),
            "{extra:?}: no answer after {took:?} (budget {most} s): {out:?}"
        );
        let r = crate::support::parse(out);
        assert_eq!(r.error_code(), "environment.unavailable", "{}", r.stdout);
        let repairs = r.json["error"]["repairs"].as_array().unwrap();
        let again = repairs[0]["command"].as_str().unwrap();
        assert!(
            again.contains("--connect-timeout") && !again.contains("s3cret"),
            "{again}"
        );
        assert!(repairs.iter().any(|x| x["command"] == "aitools console"));
    }
}
