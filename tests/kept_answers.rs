//! An answer kept across requests is the answer a new request would make (`workspace/kept_inputs.rs`, `KeptInputs`):
//! `documentLink` gives a version's links again only while nothing they read has changed. Each change below is one
//! the kept answer read — the map rewritten with no watched-file event, the settings, another document — and the
//! next ask must answer as a fresh server does.

#[path = "support/lsp_client.rs"]
mod lsp_client;

use std::path::{Path, PathBuf};

use lsp_client::LspClient;
use serde_json::{json, Value};

fn fixtures() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")).unwrap()
}

fn uri(path: &Path) -> String {
    url::Url::from_file_path(path).unwrap().to_string()
}

/// The links' targets of the open log `u`.
fn targets(c: &mut LspClient, u: &str) -> Vec<String> {
    let links = c.result(
        "textDocument/documentLink",
        json!({"textDocument": {"uri": u}}),
    );
    links
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["target"].as_str().unwrap().to_string())
        .collect()
}

/// What a fresh server links in the same log, with the same settings.
fn fresh(dir: &Path, log: &Path, settings: &Value) -> Vec<String> {
    let mut c = LspClient::start(&[]);
    c.initialize(dir, settings.clone(), false);
    let u = c.open(log, "log");
    let t = targets(&mut c, &u);
    c.shutdown();
    t
}

#[test]
fn kept_links_are_the_links_a_fresh_server_gives() {
    // The fixtures' layout (the map names `../../demo/src/…`), in a folder of the test's own.
    let top = tempfile::tempdir().unwrap();
    let top = std::fs::canonicalize(top.path()).unwrap();
    std::fs::create_dir_all(top.join("demo/src")).unwrap();
    for f in std::fs::read_dir(fixtures().join("demo/src")).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, top.join("demo/src").join(f.file_name().unwrap())).unwrap();
    }
    let dir = top.join("traces");
    let v8 = fixtures().join("traces/v8");
    std::fs::create_dir_all(dir.join("v8")).unwrap();
    std::fs::copy(v8.join("app.min.js"), dir.join("v8/app.min.js")).unwrap();
    let map_path = dir.join("v8/app.min.js.map");
    let original = std::fs::read_to_string(v8.join("app.min.js.map")).unwrap();
    std::fs::write(&map_path, &original).unwrap();
    let log = dir.join("crash.log");
    std::fs::copy(fixtures().join("traces/v8-node.txt"), &log).unwrap();
    let with_roots = json!({"roots": [top.join("demo")]});

    let mut c = LspClient::start(&[]);
    c.initialize(&dir, with_roots.clone(), false);
    let u = c.open(&log, "log");
    let first = targets(&mut c, &u);
    let orders = format!("{}#L5,24", uri(&top.join("demo/src/orders.js")));
    assert_eq!(first.first(), Some(&orders), "{first:?}");
    // Asked again with nothing changed: the same links.
    assert_eq!(targets(&mut c, &u), first);

    // The map rewritten in place, with no watched-file event: the next ask reads the new map.
    std::fs::write(&map_path, original.replace("src/orders.js", "src/third.js")).unwrap();
    let rewritten = targets(&mut c, &u);
    assert_ne!(rewritten, first);
    assert!(rewritten[0].contains("third.js"), "{rewritten:?}");
    assert_eq!(rewritten, fresh(&dir, &log, &with_roots));

    // The map back, and the settings changed: the demo's sources are no longer allowed, so the links go to the map's
    // copies.
    std::fs::write(&map_path, &original).unwrap();
    assert_eq!(targets(&mut c, &u), first);
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"sourcemap": {"roots": []}}}),
    );
    let without_roots = targets(&mut c, &u);
    assert!(!without_roots.contains(&orders), "{without_roots:?}");
    assert_eq!(without_roots.len(), first.len());
    assert_eq!(
        without_roots.len(),
        fresh(&dir, &log, &json!({"roots": []})).len()
    );

    // The bundle opened and replaced by another build's text (a line before it): frames are checked against the open
    // text, where the map no longer fits, and are not linked; the kept links are not given again.
    let bundle = dir.join("v8/app.min.js");
    let b = c.open(&bundle, "javascript");
    let text = std::fs::read_to_string(&bundle).unwrap();
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": b, "version": 2}, "contentChanges": [{"text": format!("var rebuilt = 1;\n{text}")}]}),
    );
    let after_edit = targets(&mut c, &u);
    assert!(after_edit.len() < without_roots.len(), "{after_edit:?}");
    c.shutdown();
}
