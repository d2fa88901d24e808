#![allow(dead_code)] // Each test binary uses a different part of this client.
//! A minimal LSP client over the real binary's stdio: Content-Length framing, requests with ids, answers to the
//! server's own requests (`client/registerCapability`, `workspace/configuration`, `window/workDoneProgress/create`),
//! and every notification kept for the test to inspect.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub struct LspClient {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: i64,
    /// Notifications and server requests received so far, in order.
    pub received: Vec<Value>,
    /// What `workspace/configuration` answers.
    pub configuration: Value,
}

fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let mut len = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length: ") {
            len = v.parse().ok();
        }
    }
    let mut body = vec![0; len?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

impl LspClient {
    pub fn start(envs: &[(&str, &str)]) -> Self {
        Self::start_as(envs, None)
    }

    /// Starts the server as another user and group (the caller must be root), e.g. so that file permissions bind it.
    pub fn start_as(envs: &[(&str, &str)], user: Option<(u32, u32)>) -> Self {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"));
        if let Some((uid, gid)) = user {
            // std drops root's supplementary groups too when it changes the user.
            use std::os::unix::process::CommandExt;
            cmd.uid(uid).gid(gid);
        }
        cmd.arg("--stdio")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn sourcemap-ls");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(m) = read_message(&mut r) {
                if tx.send(m).is_err() {
                    break;
                }
            }
        });
        LspClient {
            child,
            stdin,
            incoming: rx,
            next_id: 1,
            received: Vec::new(),
            configuration: Value::Null,
        }
    }

    fn send(&mut self, msg: &Value) {
        let body = serde_json::to_vec(msg).unwrap();
        write!(self.stdin, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
        self.stdin.write_all(&body).unwrap();
        self.stdin.flush().unwrap();
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        if method == "textDocument/didOpen" {
            if let Some(body) = did_open_as_vscode_writes_it(&params) {
                write!(self.stdin, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
                self.stdin.write_all(body.as_bytes()).unwrap();
                self.stdin.flush().unwrap();
                return;
            }
        }
        let mut msg = json!({"jsonrpc": "2.0", "method": method});
        if !params.is_null() {
            msg["params"] = params;
        }
        self.send(&msg);
    }

    /// Handles one incoming message; returns it when it is a response.
    fn handle(&mut self, m: Value) -> Option<Value> {
        if m.get("method").is_some() {
            if let Some(id) = m.get("id").cloned() {
                let result = match m["method"].as_str() {
                    Some("workspace/configuration") => json!([self.configuration.clone()]),
                    _ => Value::Null,
                };
                self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
            }
            // Keep what tests inspect; progress and log chatter under load would only grow the list.
            if self.received.len() < 10_000 {
                self.received.push(m);
            }
            None
        } else {
            Some(m)
        }
    }

    /// Sends a request and waits for its response (the whole response object, with `result` or `error`).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        // `shutdown` and `exit` take no params at all (tower-lsp refuses `"params": null`).
        let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            msg["params"] = params;
        }
        self.send(&msg);
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(m) => {
                    if let Some(r) = self.handle(m) {
                        if r["id"] == id {
                            return r;
                        }
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!("no answer to {method} within 60 s"),
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("the server exited while answering {method}")
                }
            }
        }
    }

    /// Sends `msg` exactly as given (a client's own shape of a message) and, when it has an id, waits for the
    /// response to it.
    pub fn send_exact(&mut self, msg: Value) -> Option<Value> {
        let id = msg.get("id").cloned();
        self.send(&msg);
        let id = id?;
        loop {
            if let Some(r) = self.handle(
                self.incoming
                    .recv_timeout(Duration::from_secs(60))
                    .expect("a response within 60 s"),
            ) {
                if r["id"] == id {
                    return Some(r);
                }
            }
        }
    }

    /// Waits for the server process to end; its exit status.
    pub fn wait_exit(mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        panic!("the server did not exit within 10 s");
    }

    /// Sends a request without waiting; returns its id (for pipelined load).
    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The next response to one of our requests (answering server requests on the way).
    pub fn next_response(&mut self) -> Value {
        loop {
            match self.incoming.recv_timeout(Duration::from_secs(60)) {
                Ok(m) => {
                    if let Some(r) = self.handle(m) {
                        return r;
                    }
                }
                Err(e) => panic!("no response within 60 s: {e}"),
            }
        }
    }

    /// The `result` of a request; panics on an error response.
    pub fn result(&mut self, method: &str, params: Value) -> Value {
        let r = self.request(method, params);
        assert!(r.get("error").is_none(), "{method} failed: {r}");
        r["result"].clone()
    }

    /// Waits until a received message satisfies `pred` (looking at what came already first).
    pub fn wait_for(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(m) = self.received.iter().find(|m| pred(m)) {
            return m.clone();
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(m) => {
                    self.handle(m.clone());
                    if pred(&m) {
                        return m;
                    }
                }
                Err(_) => panic!("never received {what}; got {:?}", self.received),
            }
        }
    }

    pub fn initialize(&mut self, root: &std::path::Path, options: Value, progress: bool) -> Value {
        let root_uri = url::Url::from_file_path(root).unwrap();
        let r = self.result(
            "initialize",
            json!({
                "processId": null,
                "rootUri": root_uri,
                "workspaceFolders": [{"uri": root_uri, "name": "root"}],
                "initializationOptions": options,
                "capabilities": {
                    // As the VS Code extension does: `sourcemap-source:` documents are opened by the client.
                    "experimental": {"sourcemapSourceScheme": true},
                    "window": {"workDoneProgress": progress},
                    "workspace": {"configuration": true, "didChangeWatchedFiles": {"dynamicRegistration": true}},
                    "general": {"positionEncodings": ["utf-16"]}
                }
            }),
        );
        self.notify("initialized", json!({}));
        r
    }

    pub fn open(&mut self, path: &std::path::Path, language: &str) -> String {
        let uri = url::Url::from_file_path(path).unwrap().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}}),
        );
        uri
    }

    /// Opens `path` as VS Code and Neovim do: a byte-order mark at the file's start is left out of the text sent.
    /// Returns the URI and whether a mark was left out (the client's columns on line 0 are then one less).
    #[allow(dead_code)]
    pub fn open_as_editors_do(&mut self, path: &std::path::Path, language: &str) -> (String, bool) {
        let uri = url::Url::from_file_path(path).unwrap().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        let (text, dropped) = match text.strip_prefix('\u{feff}') {
            Some(rest) => (rest.to_string(), true),
            None => (text, false),
        };
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}}),
        );
        (uri, dropped)
    }

    pub fn shutdown(mut self) {
        self.result("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                assert!(status.success(), "server exit status {status}");
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        panic!("the server did not exit after shutdown/exit");
    }
}

impl Drop for LspClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

/// A `didOpen` in the field order VS Code writes (vscode-languageclient's `asTextDocumentItem`: uri, languageId,
/// version, text; `serde_json` sorts them, the text before the URI): the server reads a large message's URI from its
/// head (`large_texts::EARLY_OPEN`). `None` for parameters of another shape.
fn did_open_as_vscode_writes_it(params: &Value) -> Option<String> {
    let d = params.get("textDocument")?.as_object()?;
    if params.as_object()?.len() != 1 || d.len() != 4 {
        return None;
    }
    let field = |k: &str| serde_json::to_string(d.get(k)?).ok();
    Some(format!(
        r#"{{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{{"textDocument":{{"uri":{},"languageId":{},"version":{},"text":{}}}}}}}"#,
        field("uri")?,
        field("languageId")?,
        field("version")?,
        field("text")?
    ))
}
