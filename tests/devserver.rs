//! A real Metro dev server (npm `metro`, pinned in `fixtures/metro-devserver`) on loopback serving a fixture project:
//! with the opt-in, `symbolicate` (CLI and LSP) fetches `…/index.map?…` beside the frames' `…/index.bundle?…` and
//! maps the trace; without it, nothing is contacted and the frames stay as they are.

#[path = "support/lsp_client.rs"]
mod lsp_client;
#[path = "support/process.rs"]
mod process;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use process::output_with_stdin;
use serde_json::json;

struct Metro(Child);

impl Drop for Metro {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn fixture() -> PathBuf {
    std::fs::canonicalize(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/metro-devserver"),
    )
    .unwrap()
}

/// Starts Metro on a free loopback port and waits for its ready line.
fn start_metro() -> (Metro, u16) {
    let dir = fixture();
    assert!(
        dir.join("node_modules/metro").is_dir(),
        "run `npm ci` in fixtures/metro-devserver (scripts/test-deps does)"
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new("node")
        .arg("server.js")
        .arg(port.to_string())
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("node");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    loop {
        let line = lines
            .next()
            .expect("metro exited before it was ready")
            .unwrap();
        if line.contains("listening on") {
            break;
        }
    }
    // Keep reading what Metro prints: with its stdout closed, its next log line kills it (EPIPE).
    std::thread::spawn(move || lines.for_each(drop));
    (Metro(child), port)
}

/// The body of a GET to the dev server (HTTP/1.0: no chunked encoding to undo).
fn http_get(port: u16, path: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.0\r\nHost: localhost:{port}\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    assert!(
        head.starts_with("HTTP/1.1 200") || head.starts_with("HTTP/1.0 200"),
        "{head}"
    );
    body.to_string()
}

fn trace(port: u16) -> String {
    std::fs::read_to_string(fixture().join("trace.txt"))
        .unwrap()
        .replace("localhost:8081", &format!("localhost:{port}"))
}

fn symbolicate(args: &[&str], input: &str) -> String {
    let out = output_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
            .arg("symbolicate")
            .args(args),
        input,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn maps_come_from_a_real_metro_dev_server_only_when_allowed() {
    let (_metro, port) = start_metro();
    let input = trace(port);
    let format_js = fixture().join("src/format.js");

    // Allowed: the map is fetched from Metro; the function name comes from Metro's function map.
    let out = symbolicate(&["--dev-server"], &input);
    let top = out.lines().find(|l| l.contains("at ")).unwrap();
    assert_eq!(
        top,
        format!("    at formatCustomer ({}:8:25)", format_js.display()),
        "{out}"
    );
    assert!(out.contains("orderSummary"), "{out}");

    // Not allowed: nothing is fetched, the trace comes back unchanged.
    let out = symbolicate(&[], &input);
    assert_eq!(out.trim_end(), input.trim_end());

    // The language server, with the `devServer` setting.
    let mut c = lsp_client::LspClient::start(&[]);
    c.initialize(&fixture(), json!({"devServer": true}), false);
    let r = c.result("sourcemap/symbolicate", json!({"text": input}));
    // The editor shows the source by its path in the workspace folder; the map's string is kept beside it.
    assert!(
        r["text"]
            .as_str()
            .unwrap()
            .contains("at formatCustomer (src/format.js:8:25)"),
        "{r}"
    );
    assert_eq!(
        r["frames"][0]["original"]["mapSource"],
        format_js.display().to_string()
    );
    assert_eq!(
        r["frames"][0]["location"]["uri"],
        url::Url::from_file_path(&format_js).unwrap().to_string()
    );
    c.shutdown();

    // A map attached by URL (what Attach Source Map… writes for a loopback URL) to a bundle saved without a comment.
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap();
    // The bundle Metro serves (the map must fit it: sourcemap_core::bundle::fit), its comments blanked (no line moves).
    let served = http_get(port, "/index.bundle?platform=ios&dev=true");
    let saved: String = served
        .lines()
        .map(|l| if l.starts_with("//# source") { "" } else { l })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(ws.join("app.bundle"), saved + "\n").unwrap();
    let attached =
        json!({"app.bundle": format!("http://localhost:{port}/index.map?platform=ios&dev=true")});
    let hover_at = |devserver: bool| {
        let mut c = lsp_client::LspClient::start(&[]);
        c.initialize(
            &ws,
            json!({"devServer": devserver, "maps": attached}),
            false,
        );
        let u = c.open(&ws.join("app.bundle"), "javascript");
        let at = json!({"textDocument": {"uri": u}, "position": {"line": 676, "character": 26}});
        let hover = c.result("textDocument/hover", at);
        let diagnostics = c.wait_for("the bundle's diagnostics", |m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == u.as_str()
        });
        c.shutdown();
        (hover, diagnostics["params"]["diagnostics"].clone())
    };
    let (hover, diagnostics) = hover_at(true);
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap_or("")
            .contains("format.js:8:25"),
        "{hover}"
    );
    assert_eq!(diagnostics, json!([]));
    // Off: nothing is fetched, and the bundle says why.
    let (hover, diagnostics) = hover_at(false);
    assert!(hover.is_null(), "{hover}");
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .unwrap_or("")
            .contains("needs sourcemap.devServer on"),
        "{diagnostics}"
    );
}
