//! Protocol end-to-end tests: the real `sourcemap-ls` binary spoken to over stdio JSON-RPC, on the fixtures in
//! `fixtures/lsp` (made by `make_fixtures.py`) and `fixtures/demo`, and on maps written to temporary directories.
//! Expected positions are computed from the fixture texts (a token's UTF-16 column), not typed in.

#[path = "support/lsp_client.rs"]
mod lsp_client;

use std::path::{Path, PathBuf};
use std::time::Instant;

use lsp_client::LspClient;
use serde_json::{json, Value};

fn fixtures() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")).unwrap()
}

/// (line, UTF-16 column) of the `nth` occurrence of `token` in a file.
fn position_of(path: &Path, token: &str, nth: usize) -> (u32, u32) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut seen = 0;
    for (i, line) in text.lines().enumerate() {
        let mut from = 0;
        while let Some(at) = line[from..].find(token) {
            if seen == nth {
                let col = line[..from + at].encode_utf16().count();
                return (i as u32, col as u32);
            }
            seen += 1;
            from += at + token.len();
        }
    }
    panic!("{token:?} not in {}", path.display());
}

fn uri(path: &Path) -> String {
    url::Url::from_file_path(path).unwrap().to_string()
}

fn at(uri: &str, (line, character): (u32, u32)) -> Value {
    json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}})
}

fn hover_text(r: &Value) -> String {
    r["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn metro_index_map_hover_definition_virtual_documents_and_outline() {
    let root = fixtures().join("lsp/metro");
    let bundle = root.join("index.bundle");
    let mut c = LspClient::start(&[]);
    let init = c.initialize(&root, json!({}), false);
    assert_eq!(init["capabilities"]["positionEncoding"], "utf-16");
    assert_eq!(init["capabilities"]["hoverProvider"], true);
    let u = c.open(&bundle, "javascript");

    // Hover on `math.add` in App's module (section 1): the original call `add(2, 3)` on line 4, column 17.
    let call = position_of(&bundle, "math.add", 0);
    let h = c.result("textDocument/hover", at(&u, call));
    let text = hover_text(&h);
    // The workspace path first (the source resolved to src/App.js here); the map's build-machine path in the footer.
    assert!(text.starts_with("**`src/App.js:4:17`**"), "{text}");
    assert!(
        text.contains("source `/home/ci/build/MyApp/src/App.js`"),
        "{text}"
    );
    assert!(text.contains("`add`"), "{text}");
    assert!(
        text.contains(">") && text.contains("const total = add(2, 3);"),
        "code frame: {text}"
    );
    assert_eq!(
        h["range"]["start"],
        json!({"line": call.0, "character": call.1})
    );
    let next = position_of(&bundle, "throw new", 0);
    assert_eq!(
        h["range"]["end"],
        json!({"line": call.0, "character": next.1}),
        "span ends at the next segment"
    );

    // Go to definition: Metro's build-machine path is re-rooted into the workspace folder.
    let d = c.result("textDocument/definition", at(&u, call));
    assert_eq!(d["uri"], uri(&root.join("src/App.js")));
    assert_eq!(d["range"]["start"], json!({"line": 3, "character": 16}));

    // React exists only in sourcesContent: a virtual document, served by sourcemap/sourceContent.
    let react = position_of(&bundle, "e.createElement", 0);
    let d = c.result("textDocument/definition", at(&u, react));
    let virtual_uri = d["uri"].as_str().unwrap().to_string();
    assert!(
        virtual_uri.starts_with(
            "sourcemap-source:///home/ci/build/MyApp/node_modules/react/cjs/react.production.js?"
        ),
        "{virtual_uri}"
    );
    let content = c.result("sourcemap/sourceContent", json!({"uri": virtual_uri}));
    assert!(content["text"]
        .as_str()
        .unwrap()
        .starts_with("exports.createElement = function (type) {"));
    assert!(hover_text(&c.result("textDocument/hover", at(&u, react))).contains("ignore-listed"));
    // A virtual URI naming another source id than its path says is refused, not answered wrongly.
    let forged = virtual_uri.replace("source=2", "source=1");
    let r = c.request("sourcemap/sourceContent", json!({"uri": forged}));
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no longer names"),
        "{r}"
    );

    // The prelude line has no mapping: no hover, not an error.
    assert_eq!(c.result("textDocument/hover", at(&u, (0, 3))), Value::Null);

    // Custom request: 0-based original position.
    let o = c.result("sourcemap/originalPosition", at(&u, call));
    assert_eq!(
        o,
        json!({"source": "/home/ci/build/MyApp/src/App.js", "uri": uri(&root.join("src/App.js")), "line": 3, "character": 16,
               "buildLine": 3, "buildCharacter": 16, "name": "add"})
    );

    // Reverse: from inside `add(2, 3)` in App.js back to the bundle.
    let back = c.result(
        "sourcemap/generatedPositions",
        at(&uri(&root.join("src/App.js")), (3, 18)),
    );
    assert_eq!(back.as_array().unwrap().len(), 1, "{back}");
    assert_eq!(back[0]["uri"], u);
    assert_eq!(
        back[0]["range"]["start"],
        json!({"line": call.0, "character": call.1})
    );

    // Map info: which map, how it was found, what the index holds.
    let info = c.result("sourcemap/mapInfo", json!({"textDocument": {"uri": u}}));
    assert_eq!(info["foundBy"], "sourceMappingURL");
    assert_eq!(
        info["map"],
        root.join("index.bundle.map").to_string_lossy().as_ref()
    );
    // The sizes are the files' on disk (the index sheds its buffer after indexing).
    let size = |p: &str| std::fs::metadata(root.join(p)).unwrap().len();
    assert_eq!(
        (info["mapBytes"].as_u64(), info["bundleBytes"].as_u64()),
        (Some(size("index.bundle.map")), Some(size("index.bundle"))),
        "{info}"
    );
    assert_eq!(info["sourceMappingUrl"], "index.bundle.map", "{info}");
    assert_eq!(
        (info["isIndexMap"].as_bool(), info["sections"].as_u64()),
        (Some(true), Some(3))
    );
    assert!(
        info["indexBytes"].as_u64() >= info["mappingsBytes"].as_u64(),
        "{info}"
    );
    assert_eq!(info["sources"].as_array().unwrap().len(), 3);
    assert_eq!(info["sources"][2]["ignored"], true);
    assert_eq!(info["sources"][1]["uri"], uri(&root.join("src/App.js")));

    // Outline: one module per section, named by its source.
    let symbols = c.result(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": u}}),
    );
    let names: Vec<&str> = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        vec![
            "/home/ci/build/MyApp/src/utils/math.js",
            "/home/ci/build/MyApp/src/App.js",
            "/home/ci/build/MyApp/node_modules/react/cjs/react.production.js"
        ]
    );
    assert_eq!(
        symbols[1]["range"]["start"],
        json!({"line": 2, "character": 0})
    );
    assert_eq!(
        symbols[1]["range"]["end"],
        json!({"line": 3, "character": 0})
    );
    c.shutdown();
}

#[test]
fn esbuild_flat_map_with_source_root_and_utf16_columns() {
    let root = fixtures().join("lsp/esbuild");
    let bundle = root.join("dist/out.js");
    let mut c = LspClient::start(&[]);
    c.initialize(&root, json!({}), false);
    // Never opened: the server reads what it needs from disk.
    let u = uri(&bundle);
    // `name.length` sits after "héllo 🎉": its UTF-16 column differs from its byte column.
    let p = position_of(&bundle, "name.length", 0);
    let line = std::fs::read_to_string(&bundle)
        .unwrap()
        .lines()
        .nth(p.0 as usize)
        .unwrap()
        .to_string();
    assert_ne!(
        line.find("name.length").unwrap() as u32,
        p.1,
        "the fixture must make bytes and UTF-16 differ"
    );
    let h = c.result("textDocument/hover", at(&u, p));
    assert!(
        hover_text(&h).contains("src/greet.ts:2:32"),
        "{}",
        hover_text(&h)
    );
    assert!(hover_text(&h).contains("`name`"));
    let d = c.result(
        "textDocument/definition",
        at(&u, position_of(&bundle, "greet(\"w", 0)),
    );
    assert_eq!(d["uri"], uri(&root.join("src/main.ts")));
    assert_eq!(d["range"]["start"]["line"], 2);
    let symbols = c.result(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": u}}),
    );
    let names: Vec<&str> = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["../src/greet.ts", "../src/main.ts"]);
    c.shutdown();
}

#[test]
fn one_line_minified_bundle_and_inline_data_url_map() {
    let demo = fixtures().join("demo");
    let mut c = LspClient::start(&[]);
    c.initialize(&demo, json!({}), false);
    let u = c.open(&demo.join("dist/app.min.js"), "javascript");
    // The demo crash's first frame: V8 column 50 (1-based) is character 49.
    let h = c.result("textDocument/hover", at(&u, (0, 49)));
    assert!(
        hover_text(&h).contains("src/orders.js:5:24"),
        "{}",
        hover_text(&h)
    );
    // The function the position is in, as for a stack frame: the bundle's `e` is the original `parseOrder`.
    assert!(
        hover_text(&h).contains("in `parseOrder`"),
        "{}",
        hover_text(&h)
    );
    let main = c.result("textDocument/hover", at(&u, (0, 310)));
    assert!(
        hover_text(&main).contains("in `main`"),
        "{}",
        hover_text(&main)
    );
    let d = c.result("textDocument/definition", at(&u, (0, 49)));
    assert_eq!(d["uri"], uri(&demo.join("src/orders.js")));
    // The map document itself is JSON, not generated code: no hover there.
    let mu = c.open(&demo.join("dist/app.min.js.map"), "json");
    assert_eq!(
        c.result("textDocument/hover", at(&mu, (0, 49))),
        Value::Null
    );

    let inline = fixtures().join("lsp/inline/app.js");
    let iu = c.open(&inline, "javascript");
    let p = position_of(&inline, "hello()", 1);
    let o = c.result("sourcemap/originalPosition", at(&iu, p));
    assert_eq!(o["source"], "webpack:///./src/hello.js");
    assert_eq!(
        (o["line"].as_u64(), o["character"].as_u64()),
        (Some(4), Some(0))
    );
    let vuri = o["uri"].as_str().unwrap();
    assert!(
        vuri.starts_with("sourcemap-source:///src/hello.js?"),
        "{vuri}"
    );
    let content = c.result("sourcemap/sourceContent", json!({"uri": vuri}));
    assert!(content["text"]
        .as_str()
        .unwrap()
        .starts_with("// only in sourcesContent"));
    c.shutdown();
}

#[test]
fn diagnostics_for_broken_and_missing_maps() {
    let root = fixtures().join("lsp/broken");
    let mut c = LspClient::start(&[]);
    c.initialize(&root, json!({}), false);
    let u = c.open(&root.join("app.js"), "javascript");
    let d = c.wait_for("diagnostics for app.js", |m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == u
    });
    let diags = d["params"]["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 1, "{d}");
    let msg = diags[0]["message"].as_str().unwrap();
    assert!(
        msg.contains("mappings at byte 7 (generated line 2, segment 1)") && msg.contains("'!'"),
        "{msg}"
    );
    // On the sourceMappingURL value.
    assert_eq!(
        diags[0]["range"],
        json!({"start": {"line": 1, "character": 21}, "end": {"line": 1, "character": 31}})
    );

    // The map document itself, when open, gets the error at its byte position.
    let mu = c.open(&root.join("app.js.map"), "json");
    let d = c.wait_for("diagnostics for the map", |m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == mu
    });
    let text = std::fs::read_to_string(root.join("app.js.map")).unwrap();
    let bang = text.find('!').unwrap() as u64;
    assert_eq!(
        d["params"]["diagnostics"][0]["range"]["start"],
        json!({"line": 0, "character": bang})
    );

    let missing = c.open(&root.join("missing.js"), "javascript");
    let d = c.wait_for("diagnostics for missing.js", |m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == missing
    });
    assert!(
        d["params"]["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .contains("no source map found"),
        "{d}"
    );
    // Hover on a bundle whose map is broken: no answer rather than a wrong one; the server keeps serving others.
    assert_eq!(c.result("textDocument/hover", at(&u, (0, 0))), Value::Null);
    let demo = fixtures().join("demo/dist/app.min.js");
    assert!(
        hover_text(&c.result("textDocument/hover", at(&uri(&demo), (0, 49)))).contains("orders.js")
    );
    c.shutdown();
}

#[test]
fn a_map_rewritten_while_the_server_runs_is_reindexed() {
    let dir = tempfile::tempdir().unwrap();
    let demo = fixtures().join("demo/dist");
    let bundle = dir.path().join("app.min.js");
    std::fs::copy(demo.join("app.min.js"), &bundle).unwrap();
    let map_path = dir.path().join("app.min.js.map");
    let original = std::fs::read_to_string(demo.join("app.min.js.map")).unwrap();
    std::fs::write(&map_path, &original).unwrap();
    let mut c = LspClient::start(&[]);
    c.initialize(dir.path(), json!({}), false);
    let u = c.open(&bundle, "javascript");
    assert!(
        hover_text(&c.result("textDocument/hover", at(&u, (0, 49)))).contains("src/orders.js:5:24")
    );
    // Registered file watching for maps and bundles.
    c.wait_for("watch registration", |m| {
        m["method"] == "client/registerCapability"
    });
    std::fs::write(
        &map_path,
        original.replace("../src/orders.js", "../src/renamed-orders.js"),
    )
    .unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&map_path), "type": 2}]}),
    );
    assert!(hover_text(&c.result("textDocument/hover", at(&u, (0, 49))))
        .contains("src/renamed-orders.js:5:24"));
    // Even without a watcher event, a request never answers from the old index.
    std::fs::write(
        &map_path,
        original.replace("../src/orders.js", "../src/third.js"),
    )
    .unwrap();
    assert!(
        hover_text(&c.result("textDocument/hover", at(&u, (0, 49)))).contains("src/third.js:5:24")
    );
    std::fs::remove_file(&map_path).unwrap();
    assert_eq!(c.result("textDocument/hover", at(&u, (0, 49))), Value::Null);
    c.shutdown();
}

/// The newest diagnostics for `uri` whose text contains `needle`.
fn diagnostic_containing(c: &mut LspClient, uri: &str, needle: &str) -> String {
    let d = c.wait_for(needle, |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == uri
            && m["params"]["diagnostics"].as_array().is_some_and(|a| {
                a.iter()
                    .any(|d| d["message"].as_str().unwrap_or("").contains(needle))
            })
    });
    d["params"]["diagnostics"].to_string()
}

#[test]
fn a_map_made_unreadable_a_fifo_or_a_directory_gets_an_error_and_the_server_recovers() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    let demo = fixtures().join("demo");
    std::fs::create_dir_all(d.join("dist")).unwrap();
    std::fs::create_dir_all(d.join("src")).unwrap();
    for f in ["orders.js", "format.js", "index.js"] {
        std::fs::copy(demo.join("src").join(f), d.join("src").join(f)).unwrap();
    }
    let bundle = d.join("dist/app.min.js");
    std::fs::copy(demo.join("dist/app.min.js"), &bundle).unwrap();
    // Without sourcesContent the code frame comes from the source file on disk.
    let mut map: Value =
        serde_json::from_slice(&std::fs::read(demo.join("dist/app.min.js.map")).unwrap()).unwrap();
    map.as_object_mut().unwrap().remove("sourcesContent");
    let map_text = map.to_string();
    let map_path = d.join("dist/app.min.js.map");
    std::fs::write(&map_path, &map_text).unwrap();

    // Permissions do not bind root: run the server as `nobody` then, so that "unreadable" is real.
    let user = (unsafe { libc::geteuid() } == 0).then_some((65534, 65534));
    let mut c = LspClient::start_as(&[], user);
    c.initialize(d, json!({}), false);
    let u = c.open(&bundle, "javascript");
    let answered = |c: &mut LspClient| hover_text(&c.result("textDocument/hover", at(&u, (0, 49))));
    let first = answered(&mut c);
    assert!(
        first.contains("src/orders.js:5:24") && first.contains("```js"),
        "{first}"
    );
    let changed = |c: &mut LspClient| {
        c.notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": uri(&map_path), "type": 2}]}),
        )
    };

    std::fs::set_permissions(&map_path, std::fs::Permissions::from_mode(0o000)).unwrap();
    assert_eq!(c.result("textDocument/hover", at(&u, (0, 49))), Value::Null);
    changed(&mut c);
    diagnostic_containing(&mut c, &u, "Permission denied");
    std::fs::set_permissions(&map_path, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert!(answered(&mut c).contains("src/orders.js:5:24"));

    // A FIFO would block a plain open forever; a directory cannot be read.
    std::fs::remove_file(&map_path).unwrap();
    let fifo = std::ffi::CString::new(map_path.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    assert_eq!(c.result("textDocument/hover", at(&u, (0, 49))), Value::Null);
    changed(&mut c);
    diagnostic_containing(&mut c, &u, "not a regular file");
    std::fs::remove_file(&map_path).unwrap();
    std::fs::create_dir(&map_path).unwrap();
    assert_eq!(c.result("textDocument/hover", at(&u, (0, 49))), Value::Null);
    std::fs::remove_dir(&map_path).unwrap();
    std::fs::write(&map_path, &map_text).unwrap();
    assert!(answered(&mut c).contains("src/orders.js:5:24"));

    // A source that became a FIFO: the position is still answered, without a code frame, and at once.
    let source = d.join("src/orders.js");
    std::fs::remove_file(&source).unwrap();
    let fifo = std::ffi::CString::new(source.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    let text = answered(&mut c);
    assert!(
        text.contains("src/orders.js:5:24") && !text.contains("```"),
        "{text}"
    );
    c.shutdown();
}

#[test]
fn settings_maps_glob_and_path_overrides() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A bundle with no comment and no sidecar, found through the `maps` setting.
    let inline_src = std::fs::read_to_string(fixtures().join("lsp/inline/app.js")).unwrap();
    let (code, data_url) = inline_src.split_once("//# sourceMappingURL=").unwrap();
    std::fs::write(d.join("app.bundle"), code).unwrap();
    std::fs::create_dir_all(d.join("maps")).unwrap();
    let map = sourcemap_core::bundle::locate::decode_data_url(data_url.trim()).unwrap();
    std::fs::write(d.join("maps/app.map"), &map).unwrap();
    // A local copy of the source under alt/ (the map's own text: only then is it the source), reached only through
    // a path override.
    let source: Value = serde_json::from_slice(&map).unwrap();
    std::fs::create_dir_all(d.join("alt/src")).unwrap();
    std::fs::write(
        d.join("alt/src/hello.js"),
        source["sourcesContent"][0].as_str().unwrap(),
    )
    .unwrap();
    let mut c = LspClient::start(&[]);
    c.configuration = json!({
        "maps": {"*.bundle": "maps/app.map"},
        "pathOverrides": {"webpack:///./*": "${workspaceFolder}/alt/*"}
    });
    c.initialize(d, c.configuration.clone(), false);
    let u = c.open(&d.join("app.bundle"), "javascript");
    let def = c.result("textDocument/definition", at(&u, (1, 0)));
    assert_eq!(def["uri"], uri(&d.join("alt/src/hello.js")));
    // Settings change without a restart: dropping the override falls back to the virtual document.
    c.configuration = json!({"maps": {"*.bundle": "maps/app.map"}});
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"sourcemap": c.configuration.clone()}}),
    );
    let def = c.result("textDocument/definition", at(&u, (1, 0)));
    assert!(
        def["uri"]
            .as_str()
            .unwrap()
            .starts_with("sourcemap-source:///src/hello.js"),
        "{def}"
    );
    c.shutdown();
}

#[test]
fn a_panic_in_a_handler_is_an_error_response_and_the_server_lives_on() {
    let mut c = LspClient::start(&[("SOURCEMAP_LS_TEST_PANIC", "1")]);
    let demo = fixtures().join("demo");
    c.initialize(&demo, json!({}), false);
    let r = c.request("sourcemap/debugPanic", json!({}));
    let msg = r["error"]["message"].as_str().unwrap_or_default();
    assert!(msg.contains("bug") && msg.contains("keeps running"), "{r}");
    let h = c.result(
        "textDocument/hover",
        at(&uri(&demo.join("dist/app.min.js")), (0, 49)),
    );
    assert!(hover_text(&h).contains("orders.js"));
    c.shutdown();
}

#[test]
fn a_large_map_reports_progress_and_the_first_hover_time() {
    let dir = tempfile::tempdir().unwrap();
    let (bundle, map) = sourcemap_fixtures::minified(3, 800_000, 30);
    let bundle_path = dir.path().join("lib.min.js");
    std::fs::write(&bundle_path, bundle).unwrap();
    std::fs::write(dir.path().join("lib.min.js.map"), &map).unwrap();
    let mut c = LspClient::start(&[]);
    c.initialize(dir.path(), json!({}), true);
    let started = Instant::now();
    let u = c.open(&bundle_path, "javascript");
    let h = c.result("textDocument/hover", at(&u, (0, 5000)));
    println!(
        "didOpen → first hover on a {} byte map: {:?}",
        map.len(),
        started.elapsed()
    );
    assert!(
        hover_text(&h).contains("webpack:///./node_modules/lib/src/part"),
        "{h}"
    );
    c.wait_for("progress create", |m| {
        m["method"] == "window/workDoneProgress/create"
    });
    c.wait_for("progress begin", |m| {
        m["method"] == "$/progress" && m["params"]["value"]["kind"] == "begin"
    });
    c.wait_for("progress end", |m| {
        m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end"
    });
    c.shutdown();
}

#[test]
fn symbolicate_request_and_document_links_in_a_log() {
    let traces = fixtures().join("traces");
    let demo_src = fixtures().join("demo/src");
    let trace_path = traces.join("v8-node.txt");
    let text = std::fs::read_to_string(&trace_path).unwrap();
    let mut c = LspClient::start(&[]);
    // The demo's sources live outside this workspace folder: allow them with the `roots` setting.
    c.initialize(&traces, json!({"roots": [fixtures().join("demo")]}), false);

    let r = c.result(
        "sourcemap/symbolicate",
        json!({"text": text, "uri": uri(&trace_path)}),
    );
    assert!(
        r["text"]
            .as_str()
            .unwrap()
            .contains("    at parseOrder (../../demo/src/orders.js:5:24)"),
        "{r}"
    );
    let top = &r["frames"][0];
    assert_eq!(top["location"]["uri"], uri(&demo_src.join("orders.js")));
    assert_eq!(
        top["location"]["range"]["start"],
        json!({"line": 4, "character": 23})
    );
    // The frame's function from the bundle's scopes and the original source, not the minified `e`.
    assert_eq!(top["original"]["function"], "parseOrder");
    assert_eq!(top["original"]["functionSource"], "originalScopes");
    // Native frames stay as they are, with no location.
    let native = r["frames"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["raw"].as_str().unwrap().contains("Array.map"))
        .unwrap();
    assert_eq!(native["location"], Value::Null);

    // The same trace open as a log: each bundle frame links to its original location.
    let u = c.open(&trace_path, "log");
    let links = c.result(
        "textDocument/documentLink",
        json!({"textDocument": {"uri": u}}),
    );
    let links = links.as_array().unwrap();
    assert_eq!(links.len(), 4, "{links:?}");
    let first_line = text
        .lines()
        .position(|l| l.contains("v8/app.min.js:1:50"))
        .unwrap() as u64;
    let start = text
        .lines()
        .nth(first_line as usize)
        .unwrap()
        .find("v8/app.min.js")
        .unwrap() as u64;
    assert_eq!(
        links[0]["range"]["start"],
        json!({"line": first_line, "character": start})
    );
    assert_eq!(
        links[0]["range"]["end"]["character"],
        start + "v8/app.min.js:1:50".len() as u64
    );
    assert_eq!(
        links[0]["target"],
        format!("{}#L5,24", uri(&demo_src.join("orders.js")))
    );
    c.shutdown();
}

#[test]
fn sources_outside_the_workspace_are_neither_read_nor_linked() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, "TOP SECRET\n").unwrap();
    // Sources that climb out of the workspace, by a relative path and by an absolute one; no sourcesContent.
    std::fs::write(
        ws.join("app.js.map"),
        json!({"version": 3, "sources": ["../secret.txt", secret.to_string_lossy()], "names": [], "mappings": "AAAA,EAAC"}).to_string(),
    )
    .unwrap();
    std::fs::write(ws.join("app.js"), "a;b;\n//# sourceMappingURL=app.js.map\n").unwrap();
    let mut c = LspClient::start(&[]);
    c.initialize(&ws, json!({}), false);
    let u = c.open(&ws.join("app.js"), "javascript");
    for col in [0, 2] {
        let h = c.result("textDocument/hover", at(&u, (0, col)));
        let text = hover_text(&h);
        assert!(
            text.contains("secret.txt:1:"),
            "the position is still reported: {text}"
        );
        assert!(
            !text.contains("TOP SECRET"),
            "a file outside the workspace was read: {text}"
        );
        assert_eq!(
            c.result("textDocument/definition", at(&u, (0, col))),
            Value::Null
        );
    }
    c.shutdown();
}

#[test]
fn editing_the_bundle_to_name_another_map_switches_maps() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (name, source) in [("a.map", "from-a.js"), ("b.map", "from-b.js")] {
        std::fs::write(
            d.join(name),
            json!({"version": 3, "sources": [source], "names": [], "mappings": "AAAA"}).to_string(),
        )
        .unwrap();
    }
    std::fs::write(d.join("app.js"), "run();\n//# sourceMappingURL=a.map\n").unwrap();
    let mut c = LspClient::start(&[]);
    c.initialize(d, json!({}), false);
    let u = c.open(&d.join("app.js"), "javascript");
    assert!(hover_text(&c.result("textDocument/hover", at(&u, (0, 0)))).contains("from-a.js:1:1"));
    // An unsaved edit in the editor: the comment now names b.map (replace "a.map" on line 1, columns 21..26).
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 1, "character": 21}, "end": {"line": 1, "character": 26}}, "text": "b.map"}
        ]}),
    );
    assert!(hover_text(&c.result("textDocument/hover", at(&u, (0, 0)))).contains("from-b.js:1:1"));
    // Naming a map that does not exist: a diagnostic on the comment, and no answer.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 3}, "contentChanges": [
            {"range": {"start": {"line": 1, "character": 21}, "end": {"line": 1, "character": 26}}, "text": "gone.map"}
        ]}),
    );
    c.wait_for("diagnostic for the missing map", |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["diagnostics"][0]["message"]
                .as_str()
                .is_some_and(|s| s.contains("gone.map"))
    });
    assert_eq!(c.result("textDocument/hover", at(&u, (0, 0))), Value::Null);
    c.shutdown();
}

/// Never the wrong file: a Metro-style map names build-machine paths with `sourcesContent`. A decoy `index.js` at the
/// workspace root is not `metro-app/index.js`; an old checkout of `metro-app/screen.js` whose text differs from the
/// map's is not used (the map's copy is, and hover says why); the same text with Windows line endings is the file.
#[test]
fn a_local_file_is_used_only_when_it_is_the_source() {
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap();
    let index_js = "// app entry\nfunction start() {\n  return boot();\n}\n";
    let screen_js = "function render() {\n  return view();\n}\n";
    let same_js = "export const same = () =>\n  42;\n";
    // Three sources, each mapped from a generated line: `x` at column 0 → (line 1, column 2) of the source.
    let map = json!({
        "version": 3,
        "sources": [
            "/home/dev/rnapp/metro-app/index.js",
            "/home/dev/rnapp/metro-app/screen.js",
            "/home/dev/rnapp/metro-app/same.js",
        ],
        "sourcesContent": [index_js, screen_js, same_js],
        "names": [],
        "mappings": "AACE;ACAA;ACAA",
    });
    std::fs::create_dir_all(ws.join("dist")).unwrap();
    std::fs::create_dir_all(ws.join("metro-app")).unwrap();
    std::fs::write(ws.join("dist/main.js.map"), map.to_string()).unwrap();
    std::fs::write(
        ws.join("dist/main.js"),
        "x;\nx;\nx;\n//# sourceMappingURL=main.js.map\n",
    )
    .unwrap();
    // Decoys: an unrelated `index.js` at the root, an old `screen.js`; and `same.js` with CRLF line endings.
    std::fs::write(ws.join("index.js"), "console.log('unrelated');\n").unwrap();
    std::fs::write(
        ws.join("metro-app/screen.js"),
        "function render() {\n  return oldView();\n}\n",
    )
    .unwrap();
    std::fs::write(ws.join("metro-app/same.js"), same_js.replace('\n', "\r\n")).unwrap();

    let mut c = LspClient::start(&[]);
    c.initialize(&ws, json!({}), false);
    let u = c.open(&ws.join("dist/main.js"), "javascript");
    let definition =
        |c: &mut LspClient, line: u32| c.result("textDocument/definition", at(&u, (line, 0)));

    // index.js: no `metro-app/index.js` exists; the bare name never matches: the map's copy.
    let d = definition(&mut c, 0);
    let target = d["uri"].as_str().unwrap();
    assert!(target.starts_with("sourcemap-source:"), "{d}");
    assert!(target.contains("metro-app/index.js"), "{d}");
    // screen.js: the path matches, and the frame's line was rewritten since the build: the map's copy, and the hover
    // says what changed (an unchanged line would open the file where it is now: `tests/todays_code.rs`).
    let d = definition(&mut c, 1);
    assert!(
        d["uri"].as_str().unwrap().starts_with("sourcemap-source:"),
        "{d}"
    );
    let h = hover_text(&c.result("textDocument/hover", at(&u, (1, 0))));
    assert!(
        h.contains("has changed here since the build: line 2 was rewritten"),
        "{h}"
    );
    assert!(h.contains("metro-app/screen.js"), "{h}");
    assert!(
        h.contains("return view();"),
        "the code frame is the map's text: {h}"
    );
    // same.js: the same text (CRLF on disk): the local file.
    let d = definition(&mut c, 2);
    assert_eq!(d["uri"], uri(&ws.join("metro-app/same.js")), "{d}");
    assert!(!hover_text(&c.result("textDocument/hover", at(&u, (2, 0)))).contains("differs"));

    // The old checkout is updated to the map's text: now it is the source.
    std::fs::write(ws.join("metro-app/screen.js"), screen_js).unwrap();
    let d = definition(&mut c, 1);
    assert_eq!(d["uri"], uri(&ws.join("metro-app/screen.js")), "{d}");
    c.shutdown();
}

/// Go to Generated Position from an original file whose bundles were never opened: the server finds the
/// workspace's maps (a bundle's comment naming a map in another folder, a sidecar map of an old build) and answers
/// with a location in each bundle.
#[test]
fn generated_positions_from_maps_found_in_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap();
    for sub in ["src", "dist", "build/maps", "old", "other"] {
        std::fs::create_dir_all(ws.join(sub)).unwrap();
    }
    let a_js = "export function a() {\n  return 1;\n}\n";
    std::fs::write(ws.join("src/a.js"), a_js).unwrap();
    // The new build: line 2 of a.js (0-based 1, column 2) is generated line 0, column 10.
    let map = |sources: &[&str], mappings: &str| {
        json!({"version": 3, "sources": sources, "sourcesContent": [a_js], "names": [], "mappings": mappings})
            .to_string()
    };
    std::fs::write(
        ws.join("build/maps/app.js.map"),
        map(&["../../src/a.js"], "UACE"),
    )
    .unwrap();
    std::fs::write(
        ws.join("dist/app.js"),
        "var x = 0;return 1;\n//# sourceMappingURL=../build/maps/app.js.map\n",
    )
    .unwrap();
    // An old build beside it, its sidecar map and no comment: the same line is on generated line 1, column 0.
    std::fs::write(ws.join("old/app.js.map"), map(&["../src/a.js"], ";AACE")).unwrap();
    std::fs::write(ws.join("old/app.js"), "var y;\nreturn 1;\n").unwrap();
    // A map of something else.
    std::fs::write(
        ws.join("other/lib.js.map"),
        json!({"version": 3, "sources": ["lib.ts"], "names": [], "mappings": "AAAA"}).to_string(),
    )
    .unwrap();
    std::fs::write(ws.join("other/lib.js"), "lib();\n").unwrap();

    let mut c = LspClient::start(&[]);
    c.initialize(&ws, json!({}), false);
    let a = uri(&ws.join("src/a.js"));
    let r = c.result("sourcemap/generatedPositions", at(&a, (1, 2)));
    let mut got: Vec<(String, u64, u64)> = r
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["uri"].as_str().unwrap().to_string(),
                l["range"]["start"]["line"].as_u64().unwrap(),
                l["range"]["start"]["character"].as_u64().unwrap(),
            )
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            (uri(&ws.join("dist/app.js")), 0, 10),
            (uri(&ws.join("old/app.js")), 1, 0)
        ],
        "{r}"
    );
    // A new map written later is found after the watched-file event.
    std::fs::create_dir_all(ws.join("next")).unwrap();
    std::fs::write(ws.join("next/app.js.map"), map(&["../src/a.js"], ";;AACE")).unwrap();
    std::fs::write(ws.join("next/app.js"), "\n\nreturn 1;\n").unwrap();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": uri(&ws.join("next/app.js.map")), "type": 1}]}),
    );
    let r = c.result("sourcemap/generatedPositions", at(&a, (1, 2)));
    assert_eq!(r.as_array().unwrap().len(), 3, "{r}");
    c.shutdown();
}

/// Same-named bundles (an old build beside the new one): told apart by the report's debug ID, then by which map
/// contains the frames' positions; otherwise the answer lists the candidates and the client's choice is used.
#[test]
fn same_named_bundles_are_told_apart_or_left_to_the_user() {
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap();
    // Each build maps generated line 0, column 10 to line 1 (0-based 0) of its own source, named after the build.
    let build = |sub: &str, file: &str, code: &str, debug_id: Option<&str>| {
        std::fs::create_dir_all(ws.join(sub)).unwrap();
        let mut map = json!({
            "version": 3, "sources": [format!("{sub}-src.js")], "sourcesContent": ["function f() {}\n"],
            "names": [], "mappings": "UAAA",
        });
        if let Some(id) = debug_id {
            map["debugId"] = json!(id);
        }
        std::fs::write(ws.join(sub).join(format!("{file}.map")), map.to_string()).unwrap();
        std::fs::write(
            ws.join(sub).join(file),
            format!("{code}\n//# sourceMappingURL={file}.map\n"),
        )
        .unwrap();
    };
    let code = "var a = 1;f();var b = 2;";
    build(
        "twin-a",
        "app.js",
        code,
        Some("85314830-023f-4cf1-a267-535f4e37bb17"),
    );
    build(
        "twin-b",
        "app.js",
        code,
        Some("9c4a0ef1-0000-4cf1-a267-535f4e37bb17"),
    );
    // The old build is shorter than the frame's column; the new one contains it.
    build("old", "main.js", "f();", None);
    build("new", "main.js", &format!("{code}{code}"), None);

    let mut c = LspClient::start(&[]);
    c.initialize(&ws, json!({}), false);
    let symbolicate = |c: &mut LspClient, text: &str, bundles: Value| {
        c.result(
            "sourcemap/symbolicate",
            json!({"text": text, "bundles": bundles}),
        )
    };
    let source_of = |r: &Value| {
        r["frames"][0]["original"]["source"]
            .as_str()
            .map(str::to_string)
    };

    let twins = "Error: x\n    at f (https://cdn.example.com/app.js:1:11)\n";
    let r = symbolicate(&mut c, twins, json!({}));
    assert_eq!(source_of(&r), None, "{r}");
    assert!(
        r["frames"][0]["unresolved"]
            .as_str()
            .unwrap()
            .contains("2 bundles could be https://cdn.example.com/app.js"),
        "{r}"
    );
    let candidates: Vec<&str> = r["ambiguous"][0]["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u.as_str().unwrap())
        .collect();
    assert_eq!(r["ambiguous"][0]["file"], "https://cdn.example.com/app.js");
    assert_eq!(candidates.len(), 2, "{r}");
    // The user's choice.
    let chosen = json!({"https://cdn.example.com/app.js": uri(&ws.join("twin-b/app.js"))});
    let r = symbolicate(&mut c, twins, chosen);
    assert_eq!(source_of(&r).as_deref(), Some("twin-b-src.js"), "{r}");
    assert_eq!(r["ambiguous"], json!([]));
    // A debug ID in the report (as in a Sentry event) picks the build.
    let with_id = format!("{twins}debug_id: 85314830-023F-4CF1-A267-535F4E37BB17\n");
    let r = symbolicate(&mut c, &with_id, json!({}));
    assert_eq!(source_of(&r).as_deref(), Some("twin-a-src.js"), "{r}");
    // The position is only in the new build.
    let r = symbolicate(&mut c, "Error: y\n    at f (main.js:1:35)\n", json!({}));
    assert_eq!(source_of(&r).as_deref(), Some("new-src.js"), "{r}");
    assert_eq!(r["ambiguous"], json!([]));
    c.shutdown();
}

/// A bundle without a map gets a note that says how to attach one (code `no-source-map`); a source file without a
/// map gets nothing; attaching through the `maps` setting clears the note and the bundle is served.
#[test]
fn a_bundle_without_a_map_is_told_how_to_attach_one() {
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap();
    let inline_src = std::fs::read_to_string(fixtures().join("lsp/inline/app.js")).unwrap();
    let (code, data_url) = inline_src.split_once("//# sourceMappingURL=").unwrap();
    std::fs::create_dir_all(ws.join("dist")).unwrap();
    std::fs::create_dir_all(ws.join("maps")).unwrap();
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(ws.join("dist/app.js"), code).unwrap();
    let map = sourcemap_core::bundle::locate::decode_data_url(data_url.trim()).unwrap();
    std::fs::write(ws.join("maps/app.js.map"), &map).unwrap();
    std::fs::write(ws.join("src/util.js"), "export const one = 1;\n").unwrap();

    let mut c = LspClient::start(&[]);
    c.initialize(&ws, json!({}), false);
    let src = c.open(&ws.join("src/util.js"), "javascript");
    let u = c.open(&ws.join("dist/app.js"), "javascript");
    let d = c.wait_for("the no-source-map note", |m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == u.as_str()
    });
    let note = &d["params"]["diagnostics"][0];
    assert_eq!(note["code"], "no-source-map", "{d}");
    assert_eq!(note["severity"], 3, "information: {d}");
    assert!(
        note["message"]
            .as_str()
            .unwrap()
            .contains("Attach Source Map"),
        "{d}"
    );
    let d = c.wait_for("the source file's diagnostics", |m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == src.as_str()
    });
    assert_eq!(d["params"]["diagnostics"], json!([]), "{d}");
    // Map info answers for a bundle without a map too: the server's search, each place with why it was not used.
    let info = c.result("sourcemap/mapInfo", json!({"textDocument": {"uri": u}}));
    assert_eq!(
        (&info["map"], &info["foundBy"], &info["sourceMappingUrl"]),
        (&json!(null), &json!(null), &json!(null)),
        "{info}"
    );
    assert_eq!(info["bundleBytes"], code.len() as u64, "{info}");
    let tried: Vec<&str> = info["tried"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(tried.len(), 4, "{info}");
    assert!(tried[0].contains("sourcemap.maps setting"), "{info}");
    assert!(tried[1].contains("sourceMappingURL comment"), "{info}");
    assert!(tried[2].contains("dist/app.js.map"), "{info}");
    assert!(tried[3].contains("dist/app.map"), "{info}");
    assert!(
        info["problem"]
            .as_str()
            .unwrap()
            .contains("no source map found"),
        "{info}"
    );
    // Attached (what the extension's command writes): the note goes and the bundle is served.
    c.configuration = json!({"maps": {"dist/app.js": "maps/app.js.map"}});
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"sourcemap": c.configuration.clone()}}),
    );
    c.wait_for("the note cleared", |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == u.as_str()
            && m["params"]["diagnostics"] == json!([])
    });
    let info = c.result("sourcemap/mapInfo", json!({"textDocument": {"uri": u}}));
    assert_eq!(info["foundBy"], "maps setting", "{info}");
    assert_eq!(
        (&info["mapBytes"], &info["tried"], &info["problem"]),
        (&json!(map.len()), &json!([]), &json!(null)),
        "the map's real size: {info}"
    );
    c.shutdown();
}

/// Protocol edges, each message exactly as a named client sends it: `shutdown`/`exit` with `"params": null` (Eglot,
/// LSP4IJ), `{}` (lsp-mode) or none (VS Code); `initialized` with `null`; a `$/` request with an id; a
/// `rootPath`-only `initialize` (older clients); hover for a client that reads plain text (Eglot without
/// markdown-mode).
#[test]
fn protocol_edges_as_real_clients_send_them() {
    let demo = fixtures().join("demo");
    let bundle = demo.join("dist/app.min.js");
    for (client, params) in [
        ("Eglot", Some(Value::Null)),
        ("lsp-mode", Some(json!({}))),
        ("VS Code", None),
    ] {
        let mut c = LspClient::start(&[]);
        let init = c
            .send_exact(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "processId": null,
                // rootPath only: no rootUri, no workspaceFolders.
                "rootPath": demo,
                "capabilities": {
                    "textDocument": {"hover": {"contentFormat": ["plaintext"]}},
                    "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}, "configuration": true}
                }
            }}))
            .unwrap();
        assert!(init.get("error").is_none(), "{client}: {init}");
        // `initialized` with null params still starts file watching and settings.
        c.send_exact(json!({"jsonrpc": "2.0", "method": "initialized", "params": null}));
        c.wait_for("client/registerCapability", |m| {
            m["method"] == "client/registerCapability"
        });
        c.wait_for("workspace/configuration", |m| {
            m["method"] == "workspace/configuration"
        });

        let u = c.open(&bundle, "javascript");
        // rootPath is the workspace folder: the demo's sources (outside dist/) are files of the workspace.
        let d = c.result("textDocument/definition", at(&u, (0, 49)));
        assert_eq!(d["uri"], uri(&demo.join("src/orders.js")), "{client}: {d}");
        // Plain text for a plaintext client: the same information, no markdown marks.
        let h = c.result("textDocument/hover", at(&u, (0, 49)));
        assert_eq!(h["contents"]["kind"], "plaintext", "{client}: {h}");
        let text = h["contents"]["value"].as_str().unwrap();
        assert!(
            text.contains("src/orders.js:5:24 in parseOrder"),
            "{client}: {text}"
        );
        assert!(
            !text.contains("**") && !text.contains("```"),
            "{client}: {text}"
        );

        // A `$/` request with an id is answered: method not found.
        let r = c
            .send_exact(
                json!({"jsonrpc": "2.0", "id": 7, "method": "$/unknownRequest", "params": {}}),
            )
            .unwrap();
        assert_eq!(r["error"]["code"], -32601, "{client}: {r}");

        let mut shutdown = json!({"jsonrpc": "2.0", "id": 8, "method": "shutdown"});
        let mut exit = json!({"jsonrpc": "2.0", "method": "exit"});
        if let Some(p) = &params {
            shutdown["params"] = p.clone();
            exit["params"] = p.clone();
        }
        let r = c.send_exact(shutdown).unwrap();
        assert!(r.get("error").is_none(), "{client}: shutdown answered {r}");
        c.send_exact(exit);
        let status = c.wait_exit();
        assert!(status.success(), "{client}: exit status {status}");
    }
}

/// A client that does not open `sourcemap-source:` URIs (Eglot, lsp-mode, Helix…) gets a `file:` location of a
/// read-only copy of a `sourcesContent`-only source, under `$XDG_CACHE_HOME/sourcemap-ls/sources`, with the
/// source's own file name; the copy holds the map's text.
#[test]
fn clients_without_the_scheme_get_file_copies_of_map_only_sources() {
    let cache = tempfile::tempdir().unwrap();
    let dir = fixtures().join("lsp/metro");
    let mut c = LspClient::start(&[("XDG_CACHE_HOME", cache.path().to_str().unwrap())]);
    let root_uri = uri(&dir);
    c.send_exact(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": null, "rootUri": root_uri, "capabilities": {}
        }}),
    );
    c.notify("initialized", json!({}));
    let bundle = dir.join("index.bundle");
    let u = c.open(&bundle, "javascript");
    let react = position_of(&bundle, "e.createElement", 0);
    let d = c.result("textDocument/definition", at(&u, react));
    let target = d["uri"].as_str().unwrap();
    assert!(target.starts_with("file://"), "{d}");
    let path = url::Url::parse(target).unwrap().to_file_path().unwrap();
    assert!(
        path.starts_with(cache.path().join("sourcemap-ls/sources")),
        "{}",
        path.display()
    );
    assert!(
        path.ends_with("node_modules/react/cjs/react.production.js"),
        "{}",
        path.display()
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains("exports.createElement = function (type) {"),
        "{text}"
    );
    assert!(std::fs::metadata(&path).unwrap().permissions().readonly());
    // The definition's line holds what it points at.
    let line = text
        .lines()
        .nth(d["range"]["start"]["line"].as_u64().unwrap() as usize)
        .unwrap();
    assert!(line.contains("createElement"), "{line}");
    c.shutdown();
}

/// `sourcemap/composition`: the bundle's bytes by package and source (every byte counted once), each source with
/// where it opens, and the treemap page.
#[test]
fn composition_of_a_bundle() {
    let demo = fixtures().join("demo");
    let bundle = demo.join("dist/app.min.js");
    let mut c = LspClient::start(&[]);
    c.initialize(&demo, json!({}), false);
    let u = c.open(&bundle, "javascript");
    let r = c.result("sourcemap/composition", json!({"textDocument": {"uri": u}}));
    let total = std::fs::metadata(&bundle).unwrap().len();
    assert_eq!(r["totalBytes"], total);
    let parts: u64 = [
        "mappedBytes",
        "unmappedBytes",
        "eolBytes",
        "sourceMapCommentBytes",
    ]
    .iter()
    .map(|k| r[k].as_u64().unwrap())
    .sum();
    assert_eq!(parts, total, "{r}");
    let packages = r["packages"].as_array().unwrap();
    assert_eq!(packages.len(), 1, "{r}");
    assert_eq!(packages[0]["name"], "src");
    let files = packages[0]["files"].as_array().unwrap();
    let sum: u64 = files.iter().map(|f| f["size"].as_u64().unwrap()).sum();
    assert_eq!(sum, r["mappedBytes"].as_u64().unwrap());
    let orders = files
        .iter()
        .find(|f| f["source"] == "../src/orders.js")
        .unwrap();
    assert_eq!(orders["uri"], uri(&demo.join("src/orders.js")));
    let html = r["html"].as_str().unwrap();
    assert!(
        html.contains("<title>app.min.js — bundle composition</title>"),
        "{html}"
    );
    assert!(html.contains("../src/orders.js"));
    // Not a bundle (no map): null.
    let map = c.open(&demo.join("src/orders.js"), "javascript");
    assert_eq!(
        c.result(
            "sourcemap/composition",
            json!({"textDocument": {"uri": map}})
        ),
        Value::Null
    );
    c.shutdown();
}

/// A bundle of several megabytes opened and replaced the way editors send it (`didOpen`, then a full-text
/// `didChange`): the server answers from the text it was sent — which reaches it past tower-lsp's buffer (see
/// `large_texts`) — not from the file on disk.
#[test]
fn large_documents_are_served_from_the_text_the_editor_sent() {
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap();
    // `x` at column 0 of the last code line → a.js / b.js line 1, column 0.
    let map =
        |source: &str| json!({"version": 3, "sources": [source], "names": [], "mappings": "AAAA"});
    std::fs::write(ws.join("a.js.map"), map("a.js").to_string()).unwrap();
    std::fs::write(ws.join("b.js.map"), map("b.js").to_string()).unwrap();
    // 3 MB of padding lines after the mapped first line (unmapped), then the comment.
    let padding = "// padding padding padding padding padding padding padding padding padding\n"
        .repeat(40_000);
    let text = |map: &str| format!("x;\n{padding}//# sourceMappingURL={map}\n");
    let bundle = ws.join("bundle.js");
    std::fs::write(&bundle, "on disk: no map\n").unwrap();
    let mut c = LspClient::start(&[]);
    c.initialize(&ws, json!({}), false);
    let u = uri(&bundle);
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": u, "languageId": "javascript", "version": 1, "text": text("a.js.map")}}),
    );
    let h = hover_text(&c.result("textDocument/hover", at(&u, (0, 0))));
    assert!(h.contains("a.js:1:1"), "{h}");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [{"text": text("b.js.map")}]}),
    );
    let h = hover_text(&c.result("textDocument/hover", at(&u, (0, 0))));
    assert!(h.contains("b.js:1:1"), "{h}");
    c.shutdown();

    // 8 MB and more: the server starts loading the map the file on disk names as soon as the message's head has the
    // URI (`large_texts::EARLY_OPEN`). The file names another map than the text sent: the answer is the text's.
    std::fs::write(ws.join("c.js.map"), map("c.js").to_string()).unwrap();
    std::fs::write(&bundle, "x;\n//# sourceMappingURL=c.js.map\n").unwrap();
    let padding = padding.repeat(3);
    let text = format!("x;\n{padding}//# sourceMappingURL=a.js.map\n");
    assert!(text.len() >= 8 << 20);
    let mut c = LspClient::start(&[]);
    c.initialize(&ws, json!({}), false);
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": u, "languageId": "javascript", "version": 1, "text": text}}),
    );
    let h = hover_text(&c.result("textDocument/hover", at(&u, (0, 0))));
    assert!(h.contains("a.js:1:1") && !h.contains("c.js"), "{h}");
    let info = c.result("sourcemap/mapInfo", json!({"textDocument": {"uri": u}}));
    assert!(info.to_string().contains("a.js.map"), "{info}");
    c.shutdown();
}

/// A map that does not fit its bundle (`fixtures/demo-stale`, real esbuild builds): the bundle gets a `map-mismatch`
/// warning; hovers, definitions and frames from the part that fits are answered, from the part that does not they
/// say why and answer nothing; a banner's shift is named. The matching demo pair gets no warning.
#[test]
fn a_map_that_does_not_fit_its_bundle_is_flagged_and_not_answered() {
    let root = fixtures().join("demo-stale");
    let mut c = LspClient::start(&[]);
    c.initialize(&fixtures(), json!({}), false);
    let stale = root.join("stale/dist/app.min.js");
    let u = c.open(&stale, "javascript");
    let d = c.wait_for("the stale bundle's diagnostics", |m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == u
    });
    let diag = &d["params"]["diagnostics"][0];
    assert_eq!(diag["code"], "map-mismatch", "{d}");
    assert_eq!(diag["severity"], 2, "{d}");
    assert!(
        diag["message"].as_str().unwrap().contains("stops fitting"),
        "{d}"
    );
    // Where it stops fitting: inside `lineTotal`, where the two statements were added (before `if(` at the latest).
    let edit = position_of(&stale, "if(e<0)", 0);
    let start = &diag["range"]["start"];
    assert_eq!(start["line"], 0);
    let col = start["character"].as_u64().unwrap() as u32;
    assert!(col > 49 && col <= edit.1, "{d} (edit at {edit:?})");

    // Before the edit: parseOrder, answered.
    let h = c.result("textDocument/hover", at(&u, (0, 49)));
    assert!(
        hover_text(&h).contains("src/orders.js:5:24"),
        "{}",
        hover_text(&h)
    );
    // After it (the crash's `a` frame, main): no answer, and why.
    let main = position_of(&stale, "c.map(o)", 0);
    let h = c.result("textDocument/hover", at(&u, main));
    assert!(
        hover_text(&h).contains("map-mismatch"),
        "{}",
        hover_text(&h)
    );
    assert!(!hover_text(&h).contains("index.js:"), "{}", hover_text(&h));
    let r = c.request("textDocument/definition", at(&u, main));
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("map-mismatch"),
        "{r}"
    );
    let info = c.result("sourcemap/mapInfo", json!({"textDocument": {"uri": u}}));
    assert_eq!(info["fit"]["verdict"], "misfit", "{info}");

    // The real crash of the stale bundle: the top frame mapped, the frames after the edit left as printed.
    let trace = root.join("stale/crash.txt");
    let r = c.result(
        "sourcemap/symbolicate",
        json!({"text": std::fs::read_to_string(&trace).unwrap(), "uri": uri(&trace)}),
    );
    let text = r["text"].as_str().unwrap();
    assert!(
        text.contains("at parseOrder (../../demo/src/orders.js:5:24)")
            || text.contains("at parseOrder ("),
        "{r}"
    );
    assert!(text.contains("    at a (dist/app.min.js:1:386)"), "{r}");
    let a = r["frames"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["raw"].as_str().unwrap().contains("at a ("))
        .unwrap();
    assert_eq!(a["location"], Value::Null, "{a}");

    // A banner of two lines: the shift is named.
    let banner = root.join("banner/dist/app.min.js");
    let bu = c.open(&banner, "javascript");
    let d = c.wait_for("the bannered bundle's diagnostics", |m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == bu
    });
    let message = d["params"]["diagnostics"][0]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(message.contains("+2 lines"), "{d}");
    let h = c.result("textDocument/hover", at(&bu, (2, 49)));
    assert!(
        hover_text(&h).contains("map-mismatch"),
        "{}",
        hover_text(&h)
    );

    // The way out: the stale build's own map attached through `maps` (an explicit choice comes before the
    // bundle's comment); and a map named there is checked like any other (the new build's map on the old bundle).
    c.configuration = json!({"maps": {
        "demo-stale/stale/dist/app.min.js": "demo-stale/stale/own/app.min.js.map",
        "demo-stale/banner/dist/app.min.js": "demo-stale/stale/own/app.min.js.map",
    }});
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"sourcemap": c.configuration.clone()}}),
    );
    c.wait_for("the stale bundle's diagnostics cleared", |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == u
            && m["params"]["diagnostics"] == json!([])
    });
    let h = c.result("textDocument/hover", at(&u, main));
    assert!(
        hover_text(&h).contains("src/index.js:12:"),
        "{}",
        hover_text(&h)
    );
    c.wait_for("the other build's map named in maps is flagged", |m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == bu
            && m["params"]["diagnostics"][0]["code"] == "map-mismatch"
            && !m["params"]["diagnostics"][0]["message"]
                .as_str()
                .unwrap_or("")
                .contains("shifted")
    });

    // The control: the demo's own pair.
    let demo = fixtures().join("demo/dist/app.min.js");
    let du = c.open(&demo, "javascript");
    let d = c.wait_for("the demo's diagnostics", |m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == du
    });
    assert_eq!(d["params"]["diagnostics"], json!([]), "{d}");
    c.shutdown();
}

/// Traces as found, through the server: stack links in a log whose lines carry logcat and CRI prefixes, and a JSON
/// log line (real pino output, `fixtures/logs`) symbolicated in place by `sourcemap/symbolicate`.
#[test]
fn stack_links_behind_log_prefixes_and_json_log_lines_in_place() {
    let demo = fixtures().join("demo");
    let crash = std::fs::read_to_string(demo.join("crash.txt")).unwrap();
    let frames: Vec<&str> = crash
        .lines()
        .filter(|l| l.trim_start().starts_with("at ") && l.contains("dist/app.min.js:"))
        .collect();
    let mut log = String::new();
    for f in &frames {
        log.push_str(&format!(
            "12-01 07:00:00.123  4321  4377 E ReactNativeJS: {f}\n"
        ));
        log.push_str(&format!("2026-12-01T07:00:00.123456789Z stderr F {f}\n"));
    }
    // The log outside the workspace: its frames resolve against the workspace folder (the demo).
    let dir = tempfile::tempdir().unwrap();
    let log_path = dir.path().join("prefixed.log");
    std::fs::write(&log_path, &log).unwrap();
    let mut c = LspClient::start(&[]);
    c.initialize(&demo, json!({}), false);
    let u = c.open(&log_path, "log");
    let links = c.result(
        "textDocument/documentLink",
        json!({"textDocument": {"uri": u}}),
    );
    let links = links.as_array().unwrap();
    assert_eq!(links.len(), 2 * frames.len(), "{links:?}");
    // The first link: the frame's location on the first logcat line, after the prefix.
    let first = log.lines().next().unwrap();
    let start = first.find("dist/app.min.js:1:50").unwrap() as u64;
    assert_eq!(
        links[0]["range"]["start"],
        json!({"line": 0, "character": start})
    );
    assert_eq!(
        links[0]["target"],
        format!("{}#L5,24", uri(&demo.join("src/orders.js")))
    );

    let pino = std::fs::read_to_string(fixtures().join("logs/pino.ndjson")).unwrap();
    let r = c.result(
        "sourcemap/symbolicate",
        json!({"text": pino, "uri": uri(&demo.join("service.log"))}),
    );
    let text = r["text"].as_str().unwrap();
    let line: Value = serde_json::from_str(text.trim_end()).expect("the line stays JSON");
    let stack = line["err"]["stack"].as_str().unwrap();
    assert!(
        stack.contains("    at parseOrder (src/orders.js:5:24)\n"),
        "{stack}"
    );
    assert_eq!(line["msg"], "order failed");
    c.shutdown();
}

/// The stack lines other tools read, in the server as in the CLI: a JSC bare `URL:L:C` frame and a line-only frame
/// (answered at line level, `precision: "line"`) on esbuild's unminified output, in `sourcemap/symbolicate` and as
/// stack links whose tooltip says the link is line-level.
#[test]
fn line_only_and_bare_frames_in_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap();
    let esbuild = fixtures().join("lsp/esbuild");
    std::fs::create_dir_all(ws.join("dist")).unwrap();
    for f in ["out.js", "out.js.map"] {
        std::fs::copy(esbuild.join("dist").join(f), ws.join("dist").join(f)).unwrap();
    }
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::copy(esbuild.join("src/greet.ts"), ws.join("src/greet.ts")).unwrap();
    let mut c = LspClient::start(&[]);
    c.initialize(&ws, json!({}), false);
    let trace = "greet@dist/out.js:4\ndist/out.js:6:12\n";
    let r = c.result("sourcemap/symbolicate", json!({"text": trace}));
    let frames = r["frames"].as_array().unwrap();
    assert_eq!(frames[0]["precision"], "line", "{r}");
    assert_eq!(frames[0]["original"]["line"], 0, "{r}");
    assert_eq!(frames[1]["precision"], "column", "{r}");
    assert_eq!(frames[1]["original"]["line"], 2, "{r}");
    assert!(
        r["text"]
            .as_str()
            .unwrap()
            .starts_with("greet@src/greet.ts:1 [line only: the trace gives no column]\n"),
        "{r}"
    );
    let log = ws.join("crash.log");
    std::fs::write(&log, trace).unwrap();
    let u = c.open(&log, "log");
    let links = c.result(
        "textDocument/documentLink",
        json!({"textDocument": {"uri": u}}),
    );
    let links = links.as_array().unwrap();
    assert_eq!(links.len(), 2, "{links:?}");
    assert!(
        links[0]["tooltip"]
            .as_str()
            .unwrap()
            .ends_with("greet.ts:1 (line only: the trace gives no column)"),
        "{links:?}"
    );
    c.shutdown();
}

/// Jest's output through the server as through the CLI (`trace::jest`): the line-1 frames of a one-line bundle that
/// Jest 29.7.0 ran (its module wrapper moves their columns) are never answered with another place than node's own
/// trace of the same call gives (`fixtures/traces/coloured/out/{jest,node}-line1.txt`).
#[test]
fn jest_line_one_frames_are_never_answered_wrong_in_the_server() {
    let dir = fixtures().join("traces/coloured");
    let jest = std::fs::read_to_string(dir.join("out/jest-line1.txt")).unwrap();
    let node = std::fs::read_to_string(dir.join("out/node-line1.txt")).unwrap();
    let mut c = LspClient::start(&[]);
    c.initialize(&dir, json!({}), false);
    let doc = uri(&dir.join("jest.log"));
    let ask = |c: &mut LspClient, text: &str| {
        let r = c.result("sourcemap/symbolicate", json!({"text": text, "uri": doc}));
        r["frames"].as_array().cloned().unwrap_or_default()
    };
    let in_bundle = |frames: &[Value]| -> Vec<Value> {
        frames
            .iter()
            .filter(|f| f.to_string().contains("line1.min.js"))
            .cloned()
            .collect()
    };
    let truth = in_bundle(&ask(&mut c, &node));
    let got = in_bundle(&ask(&mut c, &jest));
    assert_eq!(truth.len(), 3, "{truth:?}");
    assert_eq!(got.len(), 3, "{got:?}");
    for (g, t) in got.iter().zip(&truth) {
        let (g_o, t_o) = (&g["original"], &t["original"]);
        assert!(t_o["source"].is_string(), "node's frame is answered: {t}");
        if g_o.is_object() {
            assert_eq!(
                (&g_o["source"], &g_o["line"], &g_o["character"]),
                (&t_o["source"], &t_o["line"], &t_o["character"]),
                "{g}"
            );
        } else {
            assert!(
                g["unresolved"]
                    .to_string()
                    .contains("Jest moves the columns"),
                "{g}"
            );
        }
    }
    c.shutdown();
}

/// Base64 VLQ of one value (the test writes its own map).
fn vlq(v: i64, out: &mut String) {
    const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut n = if v < 0 { ((-v) << 1) | 1 } else { v << 1 };
    loop {
        let mut digit = n & 31;
        n >>= 5;
        if n > 0 {
            digit |= 32;
        }
        out.push(B64[digit as usize] as char);
        if n == 0 {
            break;
        }
    }
}

/// The server's caches under one small budget (issue 44): hovers across many modules evict source texts (and the
/// core's function maps cycle through its own small cache), and every answer after eviction is the answer before;
/// `sourcemap/mapInfo` shows the budget, what each cache holds and what the map's index holds.
#[test]
fn evicted_caches_give_the_same_answers_and_map_info_shows_their_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A Metro-shaped flat map: module i on bundle line i, `function fN()` in source i with a function map.
    let modules = 40;
    let mut bundle = String::new();
    let mut mappings = String::new();
    let (mut sources, mut contents, mut function_maps) = (vec![], vec![], vec![]);
    let mut prev_source = 0i64;
    for i in 0..modules {
        let body = format!("function f{i}() {{ return {i}; }}");
        bundle.push_str(&format!("__d({body});\n"));
        sources.push(format!("src/m{i}.js"));
        // A comment makes each text ~400 B: a few fill the budget below.
        contents.push(format!("{body}\n// {}\n", "x".repeat(380)));
        function_maps
            .push(json!([{"names": ["<global>", format!("f{i}")], "mappings": "AAA,UCA"}]));
        if i > 0 {
            mappings.push(';');
        }
        // Generated column 4 → source i, line 0, column 0; column 20 → column 16 (inside `return`).
        vlq(4, &mut mappings);
        vlq(i - prev_source, &mut mappings);
        vlq(0, &mut mappings);
        vlq(if i == 0 { 0 } else { -16 }, &mut mappings);
        mappings.push(',');
        vlq(16, &mut mappings);
        vlq(0, &mut mappings);
        vlq(0, &mut mappings);
        vlq(16, &mut mappings);
        prev_source = i;
    }
    bundle.push_str("//# sourceMappingURL=index.bundle.map\n");
    let map = json!({"version": 3, "sources": sources, "sourcesContent": contents, "names": [],
                     "mappings": mappings, "x_facebook_sources": function_maps});
    std::fs::write(d.join("index.bundle"), &bundle).unwrap();
    std::fs::write(d.join("index.bundle.map"), map.to_string()).unwrap();

    let mut c = LspClient::start(&[]);
    let budget = 2000;
    c.configuration = json!({"maxCacheBytes": budget});
    c.initialize(d, c.configuration.clone(), false);
    c.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"sourcemap": c.configuration.clone()}}),
    );
    let u = c.open(&d.join("index.bundle"), "javascript");
    let hovers = |c: &mut LspClient| -> Vec<String> {
        (0..modules as u32)
            .map(|line| hover_text(&c.result("textDocument/hover", at(&u, (line, 20)))))
            .collect()
    };
    let first = hovers(&mut c);
    for (i, h) in first.iter().enumerate() {
        assert!(h.contains(&format!("src/m{i}.js:1:17")), "{h}");
        assert!(h.contains(&format!("in `f{i}`")), "{h}");
        assert!(h.contains(&format!("return {i};")), "the code frame: {h}");
    }
    let info = c.result("sourcemap/mapInfo", json!({"textDocument": {"uri": u}}));
    let caches = &info["caches"];
    assert_eq!(caches["budgetBytes"], budget, "{caches}");
    assert!(caches["usedBytes"].as_u64().unwrap() <= budget, "{caches}");
    assert!(caches["evictions"].as_u64().unwrap() > 0, "{caches}");
    let kinds: Vec<&str> = caches["kinds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["kind"].as_str().unwrap())
        .collect();
    for kind in [
        "sourceTexts",
        "functionScopes",
        "sourceDrifts",
        "fitReports",
    ] {
        assert!(kinds.contains(&kind), "{kind} missing: {caches}");
    }
    let memory = &info["memory"];
    assert!(memory["bufferBytes"].as_u64().unwrap() > 0, "{memory}");
    assert!(memory["checkpointBytes"].as_u64().unwrap() > 0, "{memory}");
    assert!(memory["functionMapBytes"].as_u64().unwrap() > 0, "{memory}");
    assert!(memory["caches"].as_array().unwrap().len() >= 4, "{memory}");
    assert!(info["heapBytes"].as_u64().unwrap() > 0, "{info}");
    // Every text went out and came back: the same answers, in the other order too.
    assert_eq!(hovers(&mut c), first);
    let backwards: Vec<String> = (0..modules as u32)
        .rev()
        .map(|line| hover_text(&c.result("textDocument/hover", at(&u, (line, 20)))))
        .collect();
    assert_eq!(backwards.into_iter().rev().collect::<Vec<_>>(), first);
    c.shutdown();
}

/// VS Code's spelling of a file URI: every character outside `[A-Za-z0-9-._~/]` of the path percent-encoded
/// (`vscode-uri`'s `encodeURIComponentFast`), so `@` is `%40` and a space `%20`.
fn vscode_uri(path: &Path) -> String {
    let mut out = String::from("file://");
    for b in path.to_str().unwrap().bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Identity, not spelling (issue 55): a bundle under a scoped package (`%40scope`) or a folder with a space (`%20`),
/// opened under VS Code's spelling of its URI, is one document with the file the server finds by path. An unsaved
/// banner prepended to it is an edit the server saw: the code is answered where it went, the banner is said to be
/// an edit's text, never the old place's answer. Saved and opened again, the banner is text the map does not
/// describe: checked, `map-mismatch` published under the client's URI, hover and definition refused.
#[test]
fn an_edit_under_any_spelling_of_a_uri_is_checked_and_never_answered_from_the_old_text() {
    let demo = fixtures().join("demo/dist");
    let dir = tempfile::tempdir().unwrap();
    let mut c = LspClient::start(&[]);
    c.initialize(dir.path(), json!({}), false);
    for folder in ["node_modules/@scope/pkg/dist", "my app/dist"] {
        let d = dir.path().join(folder);
        std::fs::create_dir_all(&d).unwrap();
        for f in ["app.min.js", "app.min.js.map"] {
            std::fs::copy(demo.join(f), d.join(f)).unwrap();
        }
        let bundle = d.join("app.min.js");
        let u = vscode_uri(&bundle);
        assert!(u.contains("%40") || u.contains("%20"), "{u}");
        let text = std::fs::read_to_string(&bundle).unwrap();
        c.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": u, "languageId": "javascript", "version": 1, "text": text}}),
        );
        c.wait_for("the bundle's first diagnostics", |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == u
                && m["params"]["diagnostics"] == json!([])
        });
        // `e`'s `r.items.map`: the crash's top frame, 1:50.
        let before = hover_text(&c.result("textDocument/hover", at(&u, (0, 49))));
        assert!(before.contains("orders.js:5:"), "{folder}: {before}");
        let def_before = c.result("textDocument/definition", at(&u, (0, 49)));
        // The banner (12 columns on line 1), and at once the code at its new place, the banner and past the line's
        // end: the server saw the edit, so the code is answered where it went, exactly as before the edit
        // (`edit_log`), the banner is text no build wrote, and the line's end moved with the code.
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": u, "version": 2}, "contentChanges": [
                {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "/* banner */"}
            ]}),
        );
        let moved = hover_text(&c.result("textDocument/hover", at(&u, (0, 49 + 12))));
        assert_eq!(moved, before, "{folder}");
        let banner = hover_text(&c.result("textDocument/hover", at(&u, (0, 5))));
        assert!(banner.contains("written by an edit"), "{folder}: {banner}");
        assert!(!banner.contains("orders.js:"), "{folder}: {banner}");
        let end = text.lines().next().unwrap().encode_utf16().count() as u32 + 12;
        let h = hover_text(&c.result("textDocument/hover", at(&u, (0, end + 5))));
        assert!(h.contains("past the end of line 1"), "{folder}: {h}");
        // Go to definition goes where it went before the edit; in the banner it is refused, saying why.
        assert_eq!(
            c.result("textDocument/definition", at(&u, (0, 49 + 12))),
            def_before,
            "{folder}"
        );
        let r = c.request("textDocument/definition", at(&u, (0, 5)));
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains("written by an edit"),
            "{folder}: {r}"
        );
        // The banner taken back: answered again at the old place.
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": u, "version": 3}, "contentChanges": [
                {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 12}}, "text": ""}
            ]}),
        );
        let after = hover_text(&c.result("textDocument/hover", at(&u, (0, 49))));
        assert_eq!(after, before, "{folder}");
        c.notify("textDocument/didClose", json!({"textDocument": {"uri": u}}));
        // The banner saved and the file opened again: the server never saw that edit, and the text it opens is not
        // the map's: checked, `map-mismatch` published under the client's URI, the hover and definition refused.
        std::fs::write(&bundle, format!("/* banner */{text}")).unwrap();
        let saved = std::fs::read_to_string(&bundle).unwrap();
        c.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": u, "languageId": "javascript", "version": 4, "text": saved}}),
        );
        for column in [49, 49 + 12] {
            let h = hover_text(&c.result("textDocument/hover", at(&u, (0, column))));
            assert!(h.contains("map-mismatch"), "{folder} 1:{column}: {h}");
            assert!(!h.contains("orders.js:"), "{folder} 1:{column}: {h}");
        }
        c.wait_for("map-mismatch under the client's URI", |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == u
                && m["params"]["diagnostics"][0]["code"] == "map-mismatch"
        });
        let r = c.request("textDocument/definition", at(&u, (0, 49 + 12)));
        assert!(
            r["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains("map-mismatch"),
            "{folder}: {r}"
        );
        c.notify("textDocument/didClose", json!({"textDocument": {"uri": u}}));
    }
    c.shutdown();
}

/// No request waits behind another (issue 56): stack links for a long log (40,000 frame lines, 2.2 MB, parsed and
/// answered on the thread) and, sent while they are worked on, a hover on a bundle: the hover is answered first.
/// tower-lsp polls every request from its one serving task (`buffer_unordered`); a handler working on its thread
/// held that task, so the hover waited for the links (in VS Code, 9 s behind `documentLink` on a one-line bundle).
#[test]
fn a_hover_is_answered_while_a_long_request_runs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("small.js"),
        "run();\n//# sourceMappingURL=small.js.map\n",
    )
    .unwrap();
    std::fs::write(
        d.join("small.js.map"),
        json!({"version": 3, "sources": ["small.ts"], "sourcesContent": ["run();\n"], "names": [], "mappings": "AAAA"}).to_string(),
    )
    .unwrap();
    let log: String = (0..40_000)
        .map(|i| format!("2026-12-05T01:00:00Z worker {i}     at run (small.js:1:1)\n"))
        .collect();
    std::fs::write(d.join("service.log"), &log).unwrap();
    let mut c = LspClient::start(&[]);
    c.initialize(d, json!({}), false);
    let small = c.open(&d.join("small.js"), "javascript");
    assert!(
        hover_text(&c.result("textDocument/hover", at(&small, (0, 0)))).contains("small.ts:1:1")
    );
    let log_uri = c.open(&d.join("service.log"), "log");
    let links = c.send_request(
        "textDocument/documentLink",
        json!({"textDocument": {"uri": log_uri}}),
    );
    std::thread::sleep(std::time::Duration::from_millis(200));
    let hover = c.send_request("textDocument/hover", at(&small, (0, 0)));
    let first = c.next_response();
    let second = c.next_response();
    assert_eq!(
        first["id"], hover,
        "the hover came after the links: {first}"
    );
    assert!(
        hover_text(&first["result"]).contains("small.ts:1:1"),
        "{first}"
    );
    assert_eq!(second["id"], links);
    assert_eq!(
        second["result"].as_array().map(Vec::len),
        Some(40_000),
        "every frame linked"
    );
    c.shutdown();
}
