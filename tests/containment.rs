//! A map never makes us read a file outside what the user gave. A hostile-map corpus, made here: a store whose map
//! names, without `sourcesContent`, a file outside the store by every route there is — a `..` escape, an absolute
//! path, a `file://` URL, a symlink inside the store leading out, webpack's and Turbopack's project names reaching out
//! through `..` — each source carrying a marker. `symbolicate` (text and `--json`, code frames on), `--ndjson` (each
//! frame's context lines) and `worker` (a real `redis-server`) answer every frame, and no marker reaches their output.
//! A source the store does hold is read and shown, so the test would see a leak if there were one.

#[path = "support/process.rs"]
mod process;

use std::path::Path;
use std::process::Command;

use process::output_with_stdin;
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
