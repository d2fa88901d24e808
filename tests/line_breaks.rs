//! Lines as editors count them (issue 65): LSP breaks lines at `\n`, `\r\n` and `\r` only (LSP 3.17, "Text
//! Documents"), and so do VS Code and Neovim; a raw U+0085, U+2028, U+2029, VT or FF inside a string, template or
//! comment is part of its line. Bundles holding each, made by real producers (`fixtures/line-breaks/make.mjs`:
//! esbuild writes NEL raw, rollup keeps LS, PS, VT and FF as the source has them, and a CRLF source as CRLF), are
//! hovered through a real stdio client at every segment, at the position the client counts: each hover answers the
//! segment's original place (`dist/truth.json`, @jridgewell/trace-mapping's), none is refused, and go to definition
//! lands there too.

#[path = "support/lsp_client.rs"]
mod lsp_client;

use std::path::PathBuf;

use lsp_client::LspClient;
use serde_json::{json, Value};

fn fixture() -> PathBuf {
    std::fs::canonicalize(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/line-breaks"),
    )
    .unwrap()
}

#[test]
fn hovers_after_unicode_line_separators_answer_where_the_client_counts() {
    let dir = fixture();
    let truth: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("dist/truth.json")).unwrap())
            .unwrap();
    let mut c = LspClient::start(&[]);
    c.initialize(&dir, json!({}), false);
    let mut report = String::new();
    let mut wrong = Vec::new();
    for b in truth["bundles"].as_array().unwrap() {
        let bundle = dir.join("dist").join(b["bundle"].as_str().unwrap());
        let uri = c.open(&bundle, "javascript");
        let positions = b["positions"].as_array().unwrap();
        let mut right = 0;
        for p in positions {
            let (line, character) = (&p["lsp"]["line"], &p["lsp"]["character"]);
            let at = json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}});
            let o = &p["original"];
            let spot = format!(
                "{}:{}:{}`",
                o["source"].as_str().unwrap().rsplit('/').next().unwrap(),
                o["line"],
                o["column"].as_u64().unwrap() + 1
            );
            let hover = c.result("textDocument/hover", at.clone()).to_string();
            let definition = c.result("textDocument/definition", at);
            let d = if definition.is_array() {
                definition[0].clone()
            } else {
                definition
            };
            let lands = d["range"]["start"]
                == json!({"line": o["line"].as_u64().unwrap() - 1, "character": o["column"]});
            if hover.contains(&spot) && lands {
                right += 1;
            } else {
                wrong.push(format!(
                    "{} at {line}:{character} (map {}): want {spot}; hover {hover}; definition {d}",
                    b["bundle"], p["generated"]
                ));
            }
        }
        report.push_str(&format!(
            "{} (raw {}): {right}/{} hovers and definitions right\n",
            b["bundle"],
            b["breaks"],
            positions.len()
        ));
    }
    c.shutdown();
    println!("{report}");
    assert!(
        wrong.is_empty(),
        "{report}{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
