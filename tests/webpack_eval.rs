//! webpack's eval devtools (issue 55): each module is an `eval("…")` string in the bundle, named by its
//! `sourceURL` (`webpack-internal:///./src/x.ts`) and carrying its own inline map. `fixtures/webpack-eval` builds one
//! TypeScript app (ts-loader, lodash-es) with webpack 5 once per eval devtool, runs 14 scenarios under node, and
//! records each trace as node prints it and as `node --enable-source-maps` maps it (the truth). Every trace goes
//! through `symbolicate --json --root dist/<devtool>`; each frame of an eval'd module must be node's original file,
//! line and column (file and line for the cheap devtools, whose maps have no columns), every other frame must stay
//! as printed. With every build under the root, a module several builds hold is not mapped and the builds are named.

#[path = "support/npm_fixture.rs"]
mod npm_fixture;
#[path = "support/process.rs"]
mod process;

use std::path::{Path, PathBuf};
use std::process::Command;

use process::output_with_stdin;
use serde_json::Value;

fn fixture() -> PathBuf {
    npm_fixture::built("webpack-eval", &["webpack"])
}

fn symbolicate(dir: &Path, args: &[&str], trace: &str) -> (Value, String) {
    let out = output_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
            .current_dir(dir)
            .args(["symbolicate", "--json"])
            .args(args),
        trace,
    );
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    (serde_json::from_slice(&out.stdout).unwrap(), stderr)
}

/// A source URL as node prints it: `./` segments dropped (`webpack://app/./src/a.ts?12` → `webpack://app/src/a.ts?12`).
fn as_node_prints(url: &str) -> String {
    url.replace("/./", "/")
}

#[test]
fn every_frame_of_an_eval_module_is_nodes_answer() {
    let d = fixture();
    let cases: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("dist/cases.json")).unwrap()).unwrap();
    let mut report = String::new();
    let mut wrong = Vec::new();
    for devtool in cases["devtools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
    {
        if devtool == "source-map" {
            continue;
        }
        let cheap = devtool.contains("cheap");
        let (mut frames, mut right, mut unmapped) = (0, 0, 0);
        for case in cases["cases"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["devtool"] == devtool)
        {
            let root = format!("dist/{devtool}");
            let (answer, stderr) =
                symbolicate(&d, &["--root", &root], case["plain"].as_str().unwrap());
            let stack = answer["stack"].as_array().unwrap();
            let truth = case["frames"].as_array().unwrap();
            assert_eq!(stack.len(), truth.len(), "{devtool} {}", case["scenario"]);
            for (got, t) in stack.iter().zip(truth) {
                let in_module = t["plain"]["file"]
                    .as_str()
                    .is_some_and(|f| f.starts_with("webpack-internal:///"));
                let o = &got["original"];
                if !in_module || devtool == "eval" {
                    // Not an eval'd module's frame, or one without a map: as printed.
                    if !o.is_null() {
                        wrong.push(format!(
                            "{devtool} {}: {} answered",
                            case["scenario"], t["plain"]["text"]
                        ));
                    }
                    continue;
                }
                frames += 1;
                if o.is_null() {
                    unmapped += 1;
                    wrong.push(format!(
                        "{devtool} {}: {} unmapped: {}\n{stderr}",
                        case["scenario"], t["plain"]["text"], got["unresolved"]
                    ));
                    continue;
                }
                let m = &t["mapped"];
                let file = as_node_prints(o["source"].as_str().unwrap_or_default());
                let same = file == m["file"].as_str().unwrap()
                    && o["line"] == m["line"]
                    && (cheap || o["column"].as_u64().map(|c| c + 1) == m["column"].as_u64());
                if same {
                    right += 1;
                } else {
                    wrong.push(format!(
                        "{devtool} {}: {} → {}:{}:{} for {}",
                        case["scenario"],
                        t["plain"]["text"],
                        file,
                        o["line"],
                        o["column"],
                        m["text"]
                    ));
                }
            }
        }
        report.push_str(&format!(
            "{devtool}: {right} of {frames} right, {unmapped} unmapped\n"
        ));
        if devtool != "eval" {
            assert!(frames >= 40, "{devtool}: {frames} frames");
        }
    }
    println!("{report}");
    assert!(wrong.is_empty(), "{report}\n{}", wrong.join("\n"));
}

/// Every build under one root: the module is in six bundles, each with its own map: not mapped, the bundles named,
/// the way to choose said; choosing one answers as that build.
#[test]
fn a_module_several_builds_hold_is_asked_about() {
    let d = fixture();
    let cases: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("dist/cases.json")).unwrap()).unwrap();
    let case = cases["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["devtool"] == "eval-source-map" && c["scenario"] == "reduce")
        .unwrap();
    let trace = case["plain"].as_str().unwrap();
    let (answer, stderr) = symbolicate(&d, &["--root", "dist"], trace);
    assert!(
        answer["stack"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["original"].is_null()),
        "{answer}"
    );
    assert!(
        stderr.contains("bundles hold the eval'd module webpack-internal:///./src/money.ts"),
        "{stderr}"
    );
    assert!(stderr.contains("--bundle main.js=PATH"), "{stderr}");
    let (chosen, _) = symbolicate(
        &d,
        &[
            "--root",
            "dist",
            "--bundle",
            "main.js=dist/eval-source-map/main.js",
        ],
        trace,
    );
    let (alone, _) = symbolicate(&d, &["--root", "dist/eval-source-map"], trace);
    assert_eq!(chosen["stack"], alone["stack"]);
}

#[path = "support/lsp_client.rs"]
mod lsp_client;

/// In the editor: a development bundle of webpack's eval devtools has no map, but a hover inside a module's string
/// answers through the module's own map, as node maps that module's frames.
#[test]
fn a_hover_inside_an_eval_module_answers_from_its_map() {
    let d = fixture();
    let cases: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("dist/cases.json")).unwrap()).unwrap();
    let mut c = lsp_client::LspClient::start(&[]);
    c.initialize(&d, serde_json::json!({}), false);
    let mut hovered = 0;
    for devtool in ["eval-source-map", "eval-cheap-module-source-map"] {
        let bundle = d.join(format!("dist/{devtool}/main.js"));
        let text = std::fs::read_to_string(&bundle).unwrap();
        let uri = c.open(&bundle, "javascript");
        for case in cases["cases"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["devtool"] == devtool)
        {
            for f in case["frames"].as_array().unwrap() {
                let file = f["plain"]["file"].as_str().unwrap_or_default();
                if !file.starts_with("webpack-internal:///") {
                    continue;
                }
                // The frame's place in the module's code, found in the bundle's line holding its string: the code
                // from the frame's column on, as the string writes it (JSON escapes), is unique there.
                let (line_no, line) = text
                    .lines()
                    .enumerate()
                    .find(|(_, l)| l.contains(&format!("sourceURL={file}\\n")))
                    .unwrap();
                let start = line.find("eval(\"").unwrap() + 5;
                let code: String =
                    serde_json::from_str(&line[start..line.rfind("\")").unwrap() + 1]).unwrap();
                let code_line = code
                    .lines()
                    .nth(f["plain"]["line"].as_u64().unwrap() as usize - 1)
                    .unwrap();
                let from = f["plain"]["column"].as_u64().unwrap() as usize - 1;
                let piece: String = code_line[from..].chars().take(24).collect();
                let escaped = serde_json::to_string(&piece).unwrap();
                let escaped = &escaped[1..escaped.len() - 1];
                let Some(at) = line[start..].find(escaped).map(|i| start + i) else {
                    continue;
                };
                if line[at + 1..].contains(escaped) || !line.is_ascii() {
                    continue; // not unique: another place would be hovered
                }
                let h = c.result(
                    "textDocument/hover",
                    serde_json::json!({"textDocument": {"uri": uri}, "position": {"line": line_no, "character": at}}),
                );
                let value = h["contents"]["value"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                let m = &f["mapped"];
                let expected = if devtool.contains("cheap") {
                    format!("{}:", m["line"])
                } else {
                    format!("{}:{}`", m["line"], m["column"])
                };
                let source = m["file"].as_str().unwrap().rsplit('/').next().unwrap();
                assert!(
                    value.contains(source) && value.contains(&expected),
                    "{devtool} {}: {value}",
                    f["plain"]["text"]
                );
                hovered += 1;
            }
        }
    }
    assert!(hovered >= 40, "{hovered} hovers");
    c.shutdown();
}
