//! An optional language server, asked for references or a rename over stdio
//! (LSP, `Content-Length` framing): initialize → didOpen → the request →
//! shutdown/exit, within a deadline, started through [`super::process::converse`]
//! (own process group, `AITOOLS_JOB` tag, the whole tree killed at the end).
//! Every failure is a reason string: the caller falls back to the grammar's
//! answer, or refuses under `--lsp=require`.

use super::process::{self, Limits, Pipe};
use clap::Args;
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The most bytes one server message may take.
pub const MAX_MESSAGE: usize = 16 << 20;
/// The most locations or edits taken from one answer.
pub const MAX_LOCATIONS: usize = 20_000;

/// `--lsp` and `--lsp-timeout`, shared by `code refs` and `code rename`.
#[derive(Args, Debug, Clone, Default)]
pub struct LspArgs {
    /// Ask a language server on PATH (rust-analyzer, pyright-langserver, gopls,
    /// typescript-language-server); `--lsp=require` refuses when none answers,
    /// plain `--lsp` falls back to the grammar's answer.
    #[arg(long, value_name = "MODE", num_args = 0..=1, require_equals = true, default_missing_value = "auto",
          value_parser = ["auto", "require", "off"])]
    pub lsp: Option<String>,
    /// Seconds the language server may take.
    #[arg(long, value_name = "SECS", default_value = "20")]
    pub lsp_timeout: u64,
}

impl LspArgs {
    /// Whether a server is to be asked.
    pub fn wanted(&self) -> bool {
        matches!(self.lsp.as_deref(), Some("auto" | "require"))
    }
    pub fn required(&self) -> bool {
        self.lsp.as_deref() == Some("require")
    }
}

/// A server found on PATH for a language.
pub struct Server {
    pub name: String,
    pub argv: Vec<String>,
    pub language_id: &'static str,
}

fn on_path(prog: &str) -> Option<PathBuf> {
    super::host::which(prog, &std::env::var("PATH").ok()?)
}

/// The server for `file` (by its extension), when one is on PATH.
pub fn server_for(file: &Path) -> Result<Server, String> {
    let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("");
    let (lang, cands): (&'static str, &[(&str, &[&str])]) = match ext {
        "py" | "pyi" => (
            "python",
            &[
                ("pyright-langserver", &["--stdio"]),
                ("basedpyright-langserver", &["--stdio"]),
                ("pylsp", &[]),
            ],
        ),
        "rs" => ("rust", &[("rust-analyzer", &[])]),
        "go" => ("go", &[("gopls", &[])]),
        "ts" | "tsx" | "js" | "jsx" | "mjs" | "cjs" => (
            if ext.starts_with('t') {
                "typescript"
            } else {
                "javascript"
            },
            &[("typescript-language-server", &["--stdio"])],
        ),
        _ => return Err(format!("no language server is known for .{ext} files")),
    };
    for (prog, args) in cands {
        if let Some(p) = on_path(prog) {
            let mut argv = vec![p.to_string_lossy().into_owned()];
            argv.extend(args.iter().map(|s| s.to_string()));
            return Ok(Server {
                name: prog.to_string(),
                argv,
                language_id: lang,
            });
        }
    }
    let names: Vec<&str> = cands.iter().map(|c| c.0).collect();
    Err(format!("no {} on PATH", names.join(" or ")))
}

/// A position in a file, in the server's units (0-based line, UTF-16 column).
pub struct At<'a> {
    pub root: &'a Path,
    pub file: &'a Path,
    pub text: &'a str,
    pub line: u32,
    pub character: u32,
    /// Other files that mention the name, opened too so the server has read
    /// them before it answers (a server still indexing knows only open files).
    pub also: Vec<(PathBuf, String)>,
}

/// The most files opened besides the asked one.
pub const MAX_OPEN: usize = 200;

/// One place a server answered.
#[derive(Debug, Clone)]
pub struct Loc {
    pub path: PathBuf,
    /// 0-based.
    pub line: u32,
    pub character: u32,
    pub end_line: u32,
    pub end_character: u32,
    pub new_text: String,
}

/// The UTF-16 column of byte offset `col` in `line`.
pub fn utf16_col(line: &str, col: usize) -> u32 {
    line.get(..col)
        .map(|s| s.encode_utf16().count() as u32)
        .unwrap_or(0)
}

fn uri(p: &Path) -> String {
    let mut s = String::from("file://");
    for b in p.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

fn path_of(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let b = rest.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let h = std::str::from_utf8(&b[i + 1..i + 3]).ok()?;
            out.push(u8::from_str_radix(h, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(PathBuf::from(String::from_utf8(out).ok()?))
}

struct Conn<'p> {
    pipe: &'p mut Pipe,
    buf: Vec<u8>,
    id: i64,
}

impl Conn<'_> {
    fn send(&mut self, msg: &Value) -> Result<(), String> {
        let body = msg.to_string();
        let stdin = self
            .pipe
            .stdin
            .as_mut()
            .ok_or("the server's stdin is closed")?;
        let framed = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        stdin
            .write_all(framed.as_bytes())
            .and_then(|()| stdin.flush())
            .map_err(|_| "the server closed its input".to_string())
    }

    fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        self.id += 1;
        let id = self.id;
        self.send(&json!({"jsonrpc":"2.0","id":id,"method":method,"params":params}))?;
        loop {
            let msg = self.next()?;
            if msg.get("method").is_some() {
                if let Some(rid) = msg.get("id") {
                    // A request of the server's: answer it plainly.
                    let result = match msg.get("method").and_then(Value::as_str) {
                        Some("workspace/configuration") => {
                            let n = msg
                                .pointer("/params/items")
                                .and_then(Value::as_array)
                                .map_or(0, Vec::len);
                            Value::Array(vec![Value::Null; n])
                        }
                        _ => Value::Null,
                    };
                    self.send(&json!({"jsonrpc":"2.0","id":rid,"result":result}))?;
                }
                continue;
            }
            if msg.get("id").and_then(Value::as_i64) != Some(id) {
                continue;
            }
            if let Some(e) = msg.get("error") {
                let m = e.get("message").and_then(Value::as_str).unwrap_or("");
                return Err(format!("the server answered {method} with an error: {m}"));
            }
            return Ok(msg.get("result").cloned().unwrap_or(Value::Null));
        }
    }

    fn notify(&mut self, method: &str, params: Value) -> Result<(), String> {
        self.send(&json!({"jsonrpc":"2.0","method":method,"params":params}))
    }

    /// The next whole message, within the deadline and the size bound.
    fn next(&mut self) -> Result<Value, String> {
        loop {
            if let Some(end) = find(&self.buf, b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&self.buf[..end]).to_string();
                let len = head
                    .lines()
                    .find_map(|l| {
                        let (k, v) = l.split_once(':')?;
                        k.trim()
                            .eq_ignore_ascii_case("content-length")
                            .then(|| v.trim().parse::<usize>().ok())?
                    })
                    .ok_or("the server sent a message without Content-Length")?;
                if len > MAX_MESSAGE {
                    return Err(format!(
                        "the server sent a message of {len} bytes (the cap is {MAX_MESSAGE})"
                    ));
                }
                if self.buf.len() >= end + 4 + len {
                    let body: Vec<u8> = self.buf.drain(..end + 4 + len).skip(end + 4).collect();
                    return serde_json::from_slice(&body)
                        .map_err(|_| "the server sent a message that is not JSON".to_string());
                }
            } else if self.buf.len() > 8192 {
                return Err("the server sent a header over 8 KiB".into());
            }
            let left = self.pipe.deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err("timed out".into());
            }
            match self.pipe.stdout.recv_timeout(left) {
                Ok(chunk) => self.buf.extend_from_slice(&chunk),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => return Err("timed out".into()),
                Err(_) => return Err("the server exited".into()),
            }
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// What the server was asked.
pub enum Ask {
    References,
    Rename(String),
}

/// Asks `server` at `at` within `timeout`: the locations (references) or the
/// edits (rename), or why not.
pub fn ask(server: &Server, at: &At, what: &Ask, timeout: Duration) -> Result<Vec<Loc>, String> {
    let Some((prog, rest)) = server.argv.split_first() else {
        return Err("no server".into());
    };
    let mut cmd = std::process::Command::new(prog);
    cmd.args(rest).current_dir(at.root);
    let limits = Limits::plain(timeout, Duration::from_millis(500), 64 << 10);
    let (said, _done) = process::converse(cmd, limits, |pipe| {
        let mut c = Conn {
            pipe,
            buf: Vec::new(),
            id: 0,
        };
        let said = talk(&mut c, server, at, what);
        if said.is_ok() {
            let _ = c.request("shutdown", Value::Null);
            let _ = c.notify("exit", Value::Null);
        }
        said
    })
    .map_err(|e| format!("{} did not start: {e:?}", server.name))?;
    said.map_err(|r| {
        if r == "timed out" {
            format!("{} timed out after {}s", server.name, timeout.as_secs_f64())
        } else {
            format!("{}: {r}", server.name)
        }
    })
}

fn talk(c: &mut Conn, server: &Server, at: &At, what: &Ask) -> Result<Vec<Loc>, String> {
    let root = uri(at.root);
    let file = uri(at.file);
    c.request(
        "initialize",
        json!({
            "processId": std::process::id(),
            "rootUri": root,
            "workspaceFolders": [{"uri": root, "name": "root"}],
            "capabilities": {
                "workspace": {"workspaceEdit": {"documentChanges": true}},
                "textDocument": {"rename": {"prepareSupport": false}}
            }
        }),
    )?;
    c.notify("initialized", json!({}))?;
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": file, "languageId": server.language_id,
               "version": 1, "text": at.text}}),
    )?;
    for (p, text) in at.also.iter().filter(|(p, _)| p != at.file).take(MAX_OPEN) {
        c.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri(p), "languageId": server.language_id,
                   "version": 1, "text": text}}),
        )?;
    }
    let pos = json!({"line": at.line, "character": at.character});
    match what {
        Ask::References => {
            let r = c.request(
                "textDocument/references",
                json!({"textDocument": {"uri": file}, "position": pos,
                       "context": {"includeDeclaration": true}}),
            )?;
            let arr = r.as_array().cloned().unwrap_or_default();
            if arr.len() > MAX_LOCATIONS {
                return Err(format!(
                    "the server answered {} locations (the cap is {MAX_LOCATIONS})",
                    arr.len()
                ));
            }
            Ok(arr
                .iter()
                .filter_map(|l| loc(l.get("uri")?, l.get("range")?, ""))
                .collect())
        }
        Ask::Rename(new) => {
            let r = c.request(
                "textDocument/rename",
                json!({"textDocument": {"uri": file}, "position": pos, "newName": new}),
            )?;
            edits(&r)
        }
    }
}

fn loc(uri: &Value, range: &Value, new_text: &str) -> Option<Loc> {
    let path = path_of(uri.as_str()?)?;
    let n = |p: &str| range.pointer(p).and_then(Value::as_u64).map(|v| v as u32);
    Some(Loc {
        path,
        line: n("/start/line")?,
        character: n("/start/character")?,
        end_line: n("/end/line")?,
        end_character: n("/end/character")?,
        new_text: new_text.to_string(),
    })
}

/// The text edits of a WorkspaceEdit (`changes` or `documentChanges`); a
/// create, rename or delete of a file is refused.
fn edits(r: &Value) -> Result<Vec<Loc>, String> {
    let mut out = Vec::new();
    let mut push = |uri: &Value, list: &Value| -> Result<(), String> {
        for e in list.as_array().map(Vec::as_slice).unwrap_or(&[]) {
            let text = e.get("newText").and_then(Value::as_str).unwrap_or("");
            let range = e.get("range").unwrap_or(&Value::Null);
            let l = loc(uri, range, text).ok_or("the server sent an edit without a file range")?;
            out.push(l);
            if out.len() > MAX_LOCATIONS {
                return Err(format!("the server sent over {MAX_LOCATIONS} edits"));
            }
        }
        Ok(())
    };
    if let Some(dc) = r.get("documentChanges").and_then(Value::as_array) {
        for d in dc {
            if d.get("kind").is_some() {
                return Err("the server's rename creates, renames or deletes files".into());
            }
            let uri = d.pointer("/textDocument/uri").unwrap_or(&Value::Null);
            push(uri, d.get("edits").unwrap_or(&Value::Null))?;
        }
    } else if let Some(ch) = r.get("changes").and_then(Value::as_object) {
        for (uri, list) in ch {
            push(&Value::String(uri.clone()), list)?;
        }
    } else if !r.is_null() {
        return Err("the server's rename answer has no changes".into());
    }
    Ok(out)
}
