//! Today's code: a real esbuild build (`fixtures/demo`, its map with `sourcesContent`), its sources edited after the
//! build as a developer does — a comment block added at the top, a helper inserted halfway, a line rewritten, three
//! lines removed lower down — then go to definition on every mapped position of the bundle, through a real stdio
//! server, and `symbolicate --json` of the real node crash through the CLI.
//!
//! The oracle is the edit itself: each of today's lines is built from the build's lines and knows which build line
//! it is (or that it is new), so where every unchanged line went is known without any diff. Go to definition must
//! land in the real file exactly there (same column) for every unchanged line, and in the build's copy for the
//! others, never on a line of today's file that holds other code.

#[path = "support/lsp_client.rs"]
mod lsp_client;

use std::path::{Path, PathBuf};
use std::process::Command;

use lsp_client::LspClient;
use serde_json::{json, Value};
use sourcemap_core::{Bias, GeneratedPosition, SourceMapIndex};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// Today's lines, each with the build line it still is (`None`: new or rewritten).
type Edited = Vec<(Option<usize>, String)>;

fn lines_of(text: &str) -> Edited {
    text.lines()
        .enumerate()
        .map(|(i, l)| (Some(i), l.to_string()))
        .collect()
}

fn write(path: &Path, e: &Edited) {
    let text: Vec<&str> = e.iter().map(|(_, l)| l.as_str()).collect();
    std::fs::write(path, text.join("\n") + "\n").unwrap();
}

/// The demo copied, and its sources edited after the build. Returns the folder and, per source file, today's lines.
fn edited_demo() -> (tempfile::TempDir, Vec<(PathBuf, Edited)>) {
    let dir = tempfile::tempdir().unwrap();
    let demo = fixtures().join("demo");
    // Paths as the server sees them (a temporary folder behind a symlink would otherwise name each file twice).
    let root = std::fs::canonicalize(dir.path()).unwrap();
    for sub in ["dist", "src"] {
        std::fs::create_dir_all(root.join(sub)).unwrap();
        for entry in std::fs::read_dir(demo.join(sub)).unwrap() {
            let p = entry.unwrap().path();
            std::fs::copy(&p, root.join(sub).join(p.file_name().unwrap())).unwrap();
        }
    }
    let src = root.join("src");
    let read = |name: &str| lines_of(&std::fs::read_to_string(src.join(name)).unwrap());
    // orders.js: a comment block on top, a helper halfway, a line rewritten.
    let mut orders = read("orders.js");
    let rewritten = orders
        .iter()
        .position(|(_, l)| l.contains("return price * qty"))
        .unwrap();
    orders[rewritten] = (None, "  return Math.round(price * qty);".into());
    let halfway = orders.len() / 2;
    for (k, l) in ["", "function helper() {", "  return 0;", "}"]
        .iter()
        .enumerate()
    {
        orders.insert(halfway + k, (None, l.to_string()));
    }
    for (k, l) in ["/**", " * Orders, edited after the release.", " */"]
        .iter()
        .enumerate()
    {
        orders.insert(k, (None, l.to_string()));
    }
    // index.js: three lines removed lower down (two orders of the sample data and a blank line).
    let mut index = read("index.js");
    let first = index
        .iter()
        .position(|(_, l)| l.contains("id: 1,"))
        .unwrap();
    index.drain(first..first + 2);
    let blank = index.iter().rposition(|(_, l)| l.is_empty()).unwrap();
    index.remove(blank);
    write(&src.join("orders.js"), &orders);
    write(&src.join("index.js"), &index);
    let format = read("format.js");
    (
        dir,
        vec![
            (src.join("orders.js"), orders),
            (src.join("index.js"), index),
            (src.join("format.js"), format),
        ],
    )
}

/// Where build line `line` of `file` is today (`None`: rewritten or removed).
fn expected_line(edits: &[(PathBuf, Edited)], file: &Path, line: u32) -> Option<u32> {
    let (_, e) = edits.iter().find(|(p, _)| p == file)?;
    e.iter()
        .position(|(from, _)| *from == Some(line as usize))
        .map(|i| i as u32)
}

fn uri(path: &Path) -> String {
    url::Url::from_file_path(path).unwrap().to_string()
}

#[test]
fn go_to_definition_lands_in_todays_file_where_the_line_is_unchanged() {
    let (dir, edits) = edited_demo();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let bundle = root.join("dist/app.min.js");
    let map_path = root.join("dist/app.min.js.map");
    let index = SourceMapIndex::from_bytes(std::fs::read(&map_path).unwrap()).unwrap();
    let text = std::fs::read_to_string(&bundle).unwrap();
    let mut c = LspClient::start(&[]);
    c.initialize(&root, json!({}), false);
    let u = c.open(&bundle, "javascript");
    let (mut moved, mut copies, mut checked) = (0, 0, 0);
    for (line_no, line) in text.lines().enumerate() {
        for column in 0..line.encode_utf16().count() as u32 {
            let p = GeneratedPosition {
                line: line_no as u32,
                column,
            };
            let Some(hit) = index.lookup(p, Bias::GreatestLowerBound).unwrap() else {
                continue;
            };
            // One question per segment start.
            if hit.generated != p {
                continue;
            }
            let Some(o) = hit.original else { continue };
            let source = root.join("dist").join(o.source_url.unwrap());
            let source = std::fs::canonicalize(source).unwrap();
            let def = c.result(
                "textDocument/definition",
                json!({"textDocument": {"uri": u}, "position": {"line": p.line, "character": p.column}}),
            );
            checked += 1;
            let target = def["uri"].as_str().unwrap_or_default().to_string();
            let start = &def["range"]["start"];
            match expected_line(&edits, &source, o.line) {
                Some(now) => {
                    assert_eq!(
                        target,
                        uri(&source),
                        "build {}:{} → {def}",
                        o.line,
                        o.column
                    );
                    assert_eq!(start["line"], now, "build {}:{}", o.line, o.column);
                    assert_eq!(start["character"], o.column);
                    if now != o.line {
                        moved += 1;
                    }
                }
                None => {
                    assert!(
                        target.starts_with("sourcemap-source:"),
                        "a changed line opens the build's copy, not today's file: {def}"
                    );
                    assert_eq!(start["line"], o.line);
                    copies += 1;
                }
            }
        }
    }
    eprintln!("definitions: {checked} segments, {moved} moved into today's file, {copies} to the build's copy");
    assert!(
        moved >= 5 && copies >= 1 && checked >= 20,
        "moved {moved}, copies {copies}, of {checked}"
    );

    // The hover says both places.
    let orders = root.join("src/orders.js");
    let (pos, build_line) = first_position_in(&index, &text, |o| {
        o.source_url.is_some_and(|s| s.ends_with("orders.js"))
            && expected_line(&edits, &orders, o.line).is_some()
    });
    let now = expected_line(&edits, &orders, build_line).unwrap();
    let hover = c.result(
        "textDocument/hover",
        json!({"textDocument": {"uri": u}, "position": {"line": pos.line, "character": pos.column}}),
    );
    let md = hover["contents"]["value"].as_str().unwrap().to_string();
    assert!(md.contains("In the build: `src/orders.js:"), "{md}");
    assert!(
        md.contains(&format!("in your file now: `:{}:", now + 1)),
        "{md}"
    );
    assert!(
        md.contains(&format!("{} lines added above", now - build_line)),
        "{md}"
    );

    // An open document counts as it is edited: two more lines on top move the answer again.
    let edited = std::fs::read_to_string(&orders).unwrap();
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(&orders), "languageId": "javascript", "version": 1, "text": format!("//\n//\n{edited}")}}),
    );
    let def = c.result(
        "textDocument/definition",
        json!({"textDocument": {"uri": u}, "position": {"line": pos.line, "character": pos.column}}),
    );
    assert_eq!(def["uri"], uri(&orders));
    assert_eq!(def["range"]["start"]["line"], now + 2);
    c.shutdown();
}

/// The first segment start of the bundle whose original position `pick` accepts, and its original line.
fn first_position_in(
    index: &SourceMapIndex,
    text: &str,
    pick: impl Fn(&sourcemap_core::OriginalPosition) -> bool,
) -> (GeneratedPosition, u32) {
    for (line_no, line) in text.lines().enumerate() {
        for column in 0..line.encode_utf16().count() as u32 {
            let p = GeneratedPosition {
                line: line_no as u32,
                column,
            };
            if let Some(hit) = index.lookup(p, Bias::GreatestLowerBound).unwrap() {
                if let Some(o) = hit.original.filter(|o| hit.generated == p && pick(o)) {
                    return (p, o.line);
                }
            }
        }
    }
    panic!("no position picked");
}

#[test]
fn symbolicate_keeps_the_builds_position_and_says_where_it_is_now() {
    let (dir, edits) = edited_demo();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let crash = fixtures().join("demo/crash.txt");
    let out = Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
        .current_dir(&root)
        .args(["symbolicate", "--json", "--explain", "dist/app.min.js.map"])
        .stdin(std::fs::File::open(&crash).unwrap())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut seen = 0;
    for f in answer["stack"].as_array().unwrap() {
        let Some(o) = f["original"].as_object() else {
            continue;
        };
        let source =
            std::fs::canonicalize(root.join("dist").join(o["source"].as_str().unwrap())).unwrap();
        // `original` is the build's position (1-based line), as before the edit.
        let build_line = o["line"].as_u64().unwrap() as u32 - 1;
        let unedited = source.ends_with("format.js");
        match expected_line(&edits, &source, build_line) {
            _ if unedited => assert!(f["current"].is_null(), "{f}"),
            Some(now) => {
                seen += 1;
                assert_eq!(f["current"]["line"], now + 1, "{f}");
                assert_eq!(f["current"]["column"], o["column"]);
                let status = if now == build_line {
                    "unchanged"
                } else {
                    "moved"
                };
                assert_eq!(f["current"]["status"], status);
                let explain = f["explain"].as_array().unwrap();
                assert!(
                    explain
                        .iter()
                        .any(|l| l.as_str().unwrap().starts_with("your file now (")),
                    "{f}"
                );
            }
            None => {
                seen += 1;
                let status = f["current"]["status"].as_str().unwrap();
                assert!(status == "changed" || status == "deleted", "{f}");
            }
        }
    }
    assert!(seen >= 2, "{answer}");

    // Over LSP: the frame's location is today's file at the moved line; `current` says so.
    let mut c = LspClient::start(&[]);
    c.initialize(&root, json!({}), false);
    let text = std::fs::read_to_string(&crash).unwrap();
    let r = c.result(
        "sourcemap/symbolicate",
        json!({"text": text, "uri": uri(&root.join("crash.txt"))}),
    );
    let orders = root.join("src/orders.js");
    let frame = r["frames"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| {
            f["original"]["source"]
                .as_str()
                .is_some_and(|s| s.ends_with("orders.js"))
        })
        .unwrap_or_else(|| panic!("{r}"))
        .clone();
    let build_line = frame["original"]["line"].as_u64().unwrap() as u32;
    let now = expected_line(&edits, &orders, build_line).unwrap();
    assert_eq!(frame["location"]["uri"], uri(&orders), "{frame}");
    assert_eq!(frame["location"]["range"]["start"]["line"], now);
    assert_eq!(frame["current"]["line"], now);
    assert_eq!(frame["current"]["status"], "moved");
    c.shutdown();
}
