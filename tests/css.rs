//! CSS bundles in the editor (issue 57): real producers' output (`fixtures/css`: sass expanded and compressed, less,
//! postcss + cssnano, lightningcss, tailwindcss 4, Bootstrap 5's published `bootstrap.min.css`), each hovered over
//! stdio at every position its truth holds (segment starts spread over the bundle, answered by Mozilla `source-map`):
//! where the map fits, the hover is Mozilla's `source:line:column` (where several segments start at the position, the
//! first written: the one rule of every answer, `SourceMapIndex::answer_at`; `make.mjs` records it with
//! `@jridgewell/trace-mapping`, and Mozilla's last beside it); where it does not (lightningcss after a non-ASCII
//! character, whose columns are UTF-8 bytes from there; Bootstrap's line 5, 3 columns short), the hover refuses and
//! says why, never answering from the misplaced segment. Each file is opened as VS Code and Neovim open it: sass's
//! compressed output starts with a byte-order mark, which they leave out of the text they send while the map counts
//! it, so the client's columns on its line 1 are one less than the map's, and the hover answers there all the same.
//! Go to definition opens the `.scss` file.

#[path = "support/lsp_client.rs"]
mod lsp_client;
#[path = "support/npm_fixture.rs"]
mod npm_fixture;

use std::path::PathBuf;

use lsp_client::LspClient;
use serde_json::{json, Value};

fn fixture() -> PathBuf {
    npm_fixture::built("css", &["lightningcss"])
}

/// Bundles whose maps misplace part of the text, and the cause each refusal there must name: lightningcss counts
/// columns in UTF-8 bytes after a non-ASCII character (its issue #780; the line's start, before it, is right),
/// Bootstrap's map is 3 columns short on its one long line 5 (its banner's lines are right).
const MISPLACED_BECAUSE: [(&str, &str); 2] = [
    ("lightningcss/app.min.css", "columns in UTF-8 bytes"),
    (
        "bootstrap/bootstrap.min.css",
        "shifted by +3 columns: ` */` was put at the start of line 5",
    ),
];

fn hover(c: &mut LspClient, uri: &str, line: u64, column: u64) -> String {
    let r = c.result(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": column}}),
    );
    r["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn css_bundles_hover_as_mozilla_answers_where_their_maps_fit() {
    let d = fixture();
    let dist = d.join("dist");
    let truth: Value =
        serde_json::from_str(&std::fs::read_to_string(dist.join("truth.json")).unwrap()).unwrap();
    let mut c = LspClient::start(&[]);
    c.initialize(&d, json!({}), false);
    let mut report = String::new();
    let mut wrong = Vec::new();
    for b in truth["bundles"].as_array().unwrap() {
        let name = b["bundle"].as_str().unwrap();
        // Opened as editors open files: sass's compressed output starts with a byte-order mark, which the text sent
        // leaves out, so the client's columns on its line 1 are one less than the map's.
        let (uri, dropped) = c.open_as_editors_do(&dist.join(name), "css");
        let (mut right, mut refused) = (0, 0);
        for p in b["positions"].as_array().unwrap() {
            let (line, column) = (
                p["line"].as_u64().unwrap() - 1,
                p["column"].as_u64().unwrap(),
            );
            let client_column = column - u64::from(dropped && line == 0);
            let h = hover(&mut c, &uri, line, client_column);
            let o = &p["original"];
            let source = o["source"].as_str().unwrap().trim_start_matches("../");
            let want = format!(
                "{source}:{}:{}",
                o["line"],
                o["column"].as_u64().unwrap() + 1
            );
            // Mozilla's answer is right only where the map's columns are the text's (see the module comment).
            let misplaced =
                p["utf8"]["afterNonAscii"] == true || (name.starts_with("bootstrap/") && line == 4);
            let because = MISPLACED_BECAUSE
                .iter()
                .find(|(b, _)| *b == name)
                .map_or("", |(_, why)| *why);
            if misplaced {
                if h.contains("map-mismatch") && !h.contains(&want) && h.contains(because) {
                    refused += 1;
                } else {
                    wrong.push(format!(
                        "{name} {}:{column}: answered where the map does not fit: {h}",
                        line + 1
                    ));
                }
            } else if h.contains(&want) {
                right += 1;
            } else {
                wrong.push(format!("{name} {}:{column}: want {want}: {h}", line + 1));
            }
        }
        if right == 0 {
            // Where a map fits (lightningcss before the line's first non-ASCII character, Bootstrap's banner) it answers.
            wrong.push(format!("{name}: no position answered"));
        }
        report.push_str(&format!(
            "{name}: {right} right, {refused} refused where the map is misplaced (and says why)\n"
        ));
    }
    println!("{report}");
    assert!(wrong.is_empty(), "{report}{}", wrong.join("\n"));
    // Go to definition from the compressed sass output opens the `.scss` file itself, at Mozilla's place.
    let sass = &truth["bundles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["bundle"] == "sass/main.min.css")
        .unwrap();
    let uri = c.open(&dist.join("sass/main.min.css"), "css");
    let p = &sass["positions"][3];
    let r = c.result(
        "textDocument/definition",
        json!({"textDocument": {"uri": uri}, "position": {"line": p["line"].as_u64().unwrap() - 1, "character": p["column"]}}),
    );
    let source = p["original"]["source"]
        .as_str()
        .unwrap()
        .trim_start_matches("../../");
    let target = url::Url::from_file_path(d.join(source))
        .unwrap()
        .to_string();
    assert_eq!(r["uri"], json!(target), "{r}");
    assert!(source.ends_with(".scss"), "{source}");
    assert_eq!(
        r["range"]["start"]["line"],
        json!(p["original"]["line"].as_u64().unwrap() - 1),
        "{r}"
    );
    c.shutdown();
}

/// `validate` names both misreadings of columns, in words and in `--json`, and exits 1.
#[test]
fn validate_names_columns_in_bytes_and_a_column_shift() {
    let dist = fixture().join("dist");
    let validate = |bundle: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
            .args(["validate", "--json", bundle])
            .current_dir(&dist)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["problems"][0].clone()
    };
    let lightningcss = validate("lightningcss/app.min.css");
    assert_eq!(
        lightningcss["columnsInBytes"],
        json!([{"line": 1, "firstNonAscii": 41}])
    );
    assert_eq!(
        lightningcss["firstBadPosition"],
        json!({"line": 1, "column": 42})
    );
    assert!(lightningcss["message"]
        .as_str()
        .unwrap()
        .contains("columns in UTF-8 bytes"));
    let bootstrap = validate("bootstrap/bootstrap.min.css");
    assert_eq!(
        bootstrap["columnShifts"],
        json!([{"line": 5, "columns": 3, "added": " */"}])
    );
    assert!(bootstrap["message"]
        .as_str()
        .unwrap()
        .contains("line 5 once its columns are shifted by +3 columns"));
}
