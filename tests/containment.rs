//! A map never makes us read a file outside what the user gave. A hostile-map corpus, made here: a store whose map
//! names, without `sourcesContent`, a file outside the store by every route there is — a `..` escape, an absolute
//! path, a `file://` URL, a symlink inside the store leading out, webpack's and Turbopack's project names reaching out
//! through `..` — each source carrying a marker. `symbolicate` (text and `--json`, code frames on), `--ndjson` (each
//! frame's context lines), `worker` (a real `redis-server`) and the language server (a real stdio client: symbolicate,
//! hover with its code frame, go to definition, links) answer every frame, and no marker reaches their output. The
//! same store zipped, and packed into an `app.asar`, given to `--maps` and to the editor. A source the store does hold
//! is read and shown, so the test would see a leak if there were one.

#[path = "support/lsp_client.rs"]
mod lsp_client;
#[path = "support/process.rs"]
mod process;
#[path = "support/redis_server.rs"]
mod redis_server;

use std::path::Path;
use std::process::Command;

use lsp_client::LspClient;
use process::output_with_stdin;
use redis_server::Redis;
use serde_json::{json, Value};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
}

const MARKER: &str = "SECRET-OUTSIDE-THE-STORE";
const INSIDE: &str = "kept inside the store";

/// `tmp/outside/secret.js` (the marker), `tmp/store/app.min.js` + its map naming it by each route, and
/// `tmp/store/src/ok.js`, a source the store holds. Returns (tmp, the source names).
fn corpus() -> (tempfile::TempDir, Vec<String>) {
    let tmp = tempfile::tempdir().unwrap();
    let outside = tmp.path().join("outside");
    let store = tmp.path().join("store");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(store.join("src")).unwrap();
    let secret = outside.join("secret.js");
    std::fs::write(&secret, format!("throw '{MARKER}';\n// {MARKER}\n")).unwrap();
    std::fs::write(store.join("src/ok.js"), format!("throw '{INSIDE}';\n")).unwrap();
    std::os::unix::fs::symlink(&secret, store.join("src/link.js")).unwrap();
    std::os::unix::fs::symlink(&outside, store.join("src/out")).unwrap();
    // A package.json above the map would make the store a project folder: the project rules must stay inside too.
    std::fs::write(store.join("package.json"), "{}").unwrap();
    let names = vec![
        "src/ok.js".to_string(),
        "../outside/secret.js".to_string(),
        secret.display().to_string(),
        format!("file://{}", secret.display()),
        "src/link.js".to_string(),
        "src/out/secret.js".to_string(),
        "webpack://_N_E/./../outside/secret.js".to_string(),
        "webpack:///../outside/secret.js".to_string(),
        "turbopack:///[project]/../outside/secret.js".to_string(),
        "/etc/hostname".to_string(),
    ];
    // One statement per source on one line: `a0();a1();…`, each call 5 columns.
    let code: String = (0..names.len()).map(|i| format!("a{i}();")).collect();
    let mut mappings = String::from("AAAA");
    for _ in 1..names.len() {
        mappings.push_str(",KCAA");
    }
    let map = json!({"version": 3, "file": "app.min.js", "sources": names, "names": [], "mappings": mappings});
    std::fs::write(store.join("app.min.js.map"), map.to_string()).unwrap();
    std::fs::write(
        store.join("app.min.js"),
        format!("{code}\n//# sourceMappingURL=app.min.js.map\n"),
    )
    .unwrap();
    (tmp, names)
}

/// The trace: one frame per source, at its call.
fn trace(n: usize) -> String {
    let mut t = String::from("Error: boom\n");
    for i in 0..n {
        t.push_str(&format!(
            "    at f{i} (https://cdn.example.com/app.min.js:1:{})\n",
            5 * i + 1
        ));
    }
    t
}

/// The same trace as a Sentry event (frames oldest first), as a pipeline carries it.
fn event(n: usize) -> String {
    let frames: Vec<Value> = (0..n)
        .rev()
        .map(|i| {
            json!({"function": format!("f{i}"), "abs_path": "https://cdn.example.com/app.min.js", "filename": "/app.min.js",
                   "lineno": 1, "colno": 5 * i + 1, "in_app": true})
        })
        .collect();
    json!({"event_id": "0123456789abcdef0123456789abcdef", "platform": "javascript",
           "exception": {"values": [{"type": "Error", "value": "boom", "stacktrace": {"frames": frames}}]}})
    .to_string()
}

fn run(cwd: &Path, args: &[&str], stdin: &str) -> String {
    let out = output_with_stdin(bin().current_dir(cwd).args(args), stdin);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {stderr}");
    assert!(!stderr.contains(MARKER), "{args:?}: {stderr}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn no_command_reads_a_source_outside_what_it_was_given() {
    let (tmp, names) = corpus();
    let store = tmp.path().join("store");
    let n = names.len();
    // The plain command line, run in the store (the working folder is allowed, its parent is not).
    let text = run(&store, &["symbolicate", "--root", "."], &trace(n));
    assert!(!text.contains(MARKER), "{text}");
    let json: Value = serde_json::from_str(&run(
        &store,
        &["symbolicate", "--json", "--root", "."],
        &trace(n),
    ))
    .unwrap();
    let stack = json["stack"].as_array().unwrap();
    let answered: Vec<&Value> = stack.iter().filter(|f| !f["original"].is_null()).collect();
    assert_eq!(answered.len(), n, "{json}");
    for (f, name) in answered.iter().zip(&names) {
        assert_eq!(f["original"]["source"], json!(name), "{f}");
        // Only the store's own file opens; nothing outside is given as a path.
        let path = f["original"]["path"].as_str();
        if name == "src/ok.js" {
            assert_eq!(path, Some("src/ok.js"), "{f}");
        } else {
            assert_eq!(path, None, "{f}");
        }
    }
    // Each source as the trace's only frame: its code frame is read from the store's file or not at all.
    for (i, name) in names.iter().enumerate() {
        let one = format!(
            "Error: boom\n    at f (https://cdn.example.com/app.min.js:1:{})\n",
            5 * i + 1
        );
        let out = run(&store, &["symbolicate", "--json", "--root", "."], &one);
        assert!(
            !out.contains(MARKER),
            "{name}: read outside the store: {out}"
        );
        assert_eq!(out.contains(INSIDE), name == "src/ok.js", "{name}: {out}");
    }
    // The pipeline: the store given as --maps, run from the folder that holds the secret (the working folder is not
    // the pipeline's).
    for args in [
        &["symbolicate", "--ndjson", "--maps", "store"][..],
        &[
            "symbolicate",
            "--ndjson",
            "--maps",
            "store",
            "--root",
            "store",
        ][..],
    ] {
        let streamed = run(tmp.path(), args, &(event(n) + "\n"));
        let processed: Value = serde_json::from_str(streamed.trim()).unwrap();
        let frames = processed["exception"]["values"][0]["stacktrace"]["frames"]
            .as_array()
            .unwrap();
        assert!(
            frames
                .iter()
                .all(|f| f["data"]["symbolicated"] == json!(true)),
            "{processed}"
        );
        assert!(
            !streamed.contains(MARKER),
            "{args:?} read outside the store: {streamed}"
        );
        assert!(
            streamed.contains(INSIDE),
            "{args:?} did not read the store's source: {streamed}"
        );
    }
}

/// The pipeline's long-running form: a `worker` on a real `redis-server` stream, the store given as `--maps`, run from
/// the folder that holds the secret.
#[test]
fn the_worker_reads_no_source_outside_its_store() {
    let (tmp, names) = corpus();
    let redis = Redis::start();
    let mut c = redis.connection();
    let _: String = redis::cmd("XADD")
        .arg("in")
        .arg("*")
        .arg("event")
        .arg(event(names.len()))
        .query(&mut c)
        .unwrap();
    let worker = bin()
        .current_dir(tmp.path())
        .args(["worker", "--redis", &redis.url, "--stream", "in"])
        .args(["--group", "g", "--consumer", "a", "--output", "out"])
        .args(["--dead-letter", "dead", "--maps", "store"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let out: Vec<(String, std::collections::HashMap<String, String>)> = loop {
        let got: Vec<(String, std::collections::HashMap<String, String>)> = redis::cmd("XRANGE")
            .arg("out")
            .arg("-")
            .arg("+")
            .query(&mut c)
            .unwrap();
        if !got.is_empty() {
            break got;
        }
        assert!(started.elapsed().as_secs() < 60, "the worker wrote nothing");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    unsafe { libc::kill(worker.id() as i32, libc::SIGTERM) };
    let done = worker.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&done.stderr);
    assert!(!said.contains(MARKER), "{said}");
    let written: String = out.iter().flat_map(|(_, f)| f.values().cloned()).collect();
    assert!(
        !written.contains(MARKER),
        "the worker read outside its store: {written}"
    );
    assert!(
        written.contains(INSIDE),
        "the worker did not read the store's source: {written}"
    );
}

/// An asar archive of `members` (name, bytes) at `path`, as `@electron/asar` lays one out: a pickled header (its size,
/// then the JSON tree), then the files.
fn write_asar(path: &Path, members: &[(&str, Vec<u8>)]) {
    let mut files = serde_json::Map::new();
    let mut offset = 0;
    for (name, bytes) in members {
        files.insert(
            name.to_string(),
            json!({"size": bytes.len(), "offset": offset.to_string()}),
        );
        offset += bytes.len();
    }
    let tree = json!({ "files": files }).to_string();
    let padded = tree.len().div_ceil(4) * 4;
    let mut pickle = Vec::new();
    pickle.extend((padded as u32 + 4).to_le_bytes());
    pickle.extend((tree.len() as u32).to_le_bytes());
    pickle.extend(tree.as_bytes());
    pickle.resize(8 + padded, 0);
    let mut out = Vec::new();
    out.extend(4u32.to_le_bytes());
    out.extend((pickle.len() as u32).to_le_bytes());
    out.extend(pickle);
    for (_, bytes) in members {
        out.extend(bytes);
    }
    std::fs::write(path, out).unwrap();
}

/// The store zipped (as an archive without a manifest) and packed into an asar, beside the folder that holds the
/// secret, given to `--maps` from a folder of its own: read in place, their maps' sources are never read beside them
/// (an archive is a store of its own: an upload folder holds other users' files).
#[test]
fn an_archives_maps_read_no_source_outside_it() {
    let (tmp, names) = corpus();
    let store = tmp.path().join("store");
    let members: Vec<(&str, Vec<u8>)> = ["app.min.js", "app.min.js.map"]
        .into_iter()
        .map(|m| (m, std::fs::read(store.join(m)).unwrap()))
        .collect();
    let zipped = tmp.path().join("store.zip");
    {
        let mut out = zip::ZipWriter::new(std::fs::File::create(&zipped).unwrap());
        for (member, bytes) in &members {
            out.start_file(*member, zip::write::SimpleFileOptions::default())
                .unwrap();
            std::io::Write::write_all(&mut out, bytes).unwrap();
        }
        out.finish().unwrap();
    }
    let asar = tmp.path().join("app.asar");
    write_asar(&asar, &members);
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let n = names.len();
    for archive in [&zipped, &asar] {
        for form in ["--json", "--ndjson"] {
            let input = match form {
                "--ndjson" => event(n) + "\n",
                _ => trace(n),
            };
            let archive = archive.display().to_string();
            let out = run(
                &elsewhere,
                &["symbolicate", form, "--maps", &archive],
                &input,
            );
            assert!(
                !out.contains(MARKER),
                "{archive} {form}: read outside: {out}"
            );
            assert!(
                out.contains("src/ok.js"),
                "{archive} {form}: not answered: {out}"
            );
        }
    }
}

/// The language server with the store as its workspace folder: a log holding the trace, symbolicated and linked; a
/// hover (with its code frame) and a definition on each frame's position in the bundle. Nothing of the secret
/// reaches any answer; the store's own source does.
#[test]
fn the_language_server_reads_no_source_outside_its_workspace() {
    let (tmp, names) = corpus();
    let store = tmp.path().join("store");
    let n = names.len();
    let mut c = LspClient::start(&[]);
    c.initialize(&store, json!({}), false);
    let log = store.join("crash.log");
    let uri = url::Url::from_file_path(&log).unwrap().to_string();
    let answer = c.result(
        "sourcemap/symbolicate",
        json!({"text": trace(n), "uri": uri}),
    );
    let frames = answer["frames"].as_array().unwrap();
    assert_eq!(
        frames.iter().filter(|f| !f["original"].is_null()).count(),
        n,
        "{answer}"
    );
    let mut said = answer.to_string();
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "log", "version": 1, "text": trace(n)}}),
    );
    said.push_str(
        &c.result(
            "textDocument/documentLink",
            json!({"textDocument": {"uri": uri}}),
        )
        .to_string(),
    );
    let bundle = c.open(&store.join("app.min.js"), "javascript");
    for i in 0..n {
        let at =
            json!({"textDocument": {"uri": bundle}, "position": {"line": 0, "character": 5 * i}});
        let hover = c.result("textDocument/hover", at.clone());
        let definition = c.result("textDocument/definition", at);
        // A definition that opens the build's copy: its text as the client would read it.
        for d in [definition.clone(), definition[0].clone()] {
            if let Some(u) = d["uri"].as_str().filter(|u| !u.starts_with("file:")) {
                said.push_str(
                    &c.result("sourcemap/sourceContent", json!({"uri": u}))
                        .to_string(),
                );
            }
        }
        said.push_str(&hover.to_string());
        said.push_str(&definition.to_string());
    }
    assert!(
        !said.contains(MARKER),
        "the server read outside its workspace: {said}"
    );
    assert!(
        said.contains(INSIDE),
        "the server did not read the workspace's source: {said}"
    );
    c.shutdown();
}
