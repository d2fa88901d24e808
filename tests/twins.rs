//! One answer wherever it is asked: the CLI (`symbolicate --root WS --json`) and the server (`sourcemap/symbolicate`
//! with WS as its workspace folder) on workspaces of same-named bundles, with real crash traces.
//!
//! The workspace: the round-trip corpus's three entries (lodash, react, three) built by five bundlers
//! (`fixtures/roundtrip`, real builds), laid out as `BUNDLER/ENTRY/ENTRY.js` + `.js.map`, so five bundles share each
//! file name. Each build's real node crash trace is rewritten three ways: the bundle's path in the workspace, a URL
//! (`http://localhost:8080/BUNDLER/ENTRY/ENTRY.js`, as a browser writes it) and the bare file name (five candidates).
//! The path form is unambiguous: its answers are the truth the other forms are held to.
//!
//! Asserted, per frame: the CLI and the server give the same answer; no answer differs from the truth (never another
//! bundle's file and line); URL-named frames are all answered; bare-named ones are answered where the positions tell
//! the builds apart, and otherwise the file is reported ambiguous with its candidates. Also: a build copied to two
//! folders answers as one; the report's debug ID chooses; `--bundle NAME=PATH` chooses; a map given explicitly.

#[path = "support/lsp_client.rs"]
mod lsp_client;
#[path = "support/roundtrip_build.rs"]
mod roundtrip_build;

use std::path::{Path, PathBuf};
use std::process::Command;

use lsp_client::LspClient;
use serde_json::{json, Value};

const BUNDLERS: [&str; 5] = ["esbuild", "terser", "swc", "webpack", "rollup"];
const ENTRIES: [&str; 3] = ["lodash-scenarios", "react-scenarios", "three-scenarios"];

/// One frame's answer: (source as the map writes it, 1-based line, 0-based column), `None` when not mapped.
type Answer = Option<(String, u64, u64)>;

fn cli(root: &Path, args: &[&str], trace: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("trace.txt");
    std::fs::write(&file, trace).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
        .arg("symbolicate")
        .args(["--json", "--root", root.to_str().unwrap()])
        .args(args)
        .args(["--trace", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Each positioned frame's answer in one of the two shapes: the list under `frames`, the source under `source`, the
/// line as `line + line_base` (the CLI prints 1-based lines, the server 0-based ones), the column under `column`.
fn answers(v: &Value, frames: &str, source: &str, line_base: u64, column: &str) -> Vec<Answer> {
    v[frames]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| !f["generated"].is_null())
        .map(|f| {
            let o = &f["original"];
            o[source].as_str().map(|s| {
                (
                    s.to_string(),
                    o["line"].as_u64().unwrap() + line_base,
                    o[column].as_u64().unwrap(),
                )
            })
        })
        .collect()
}

fn cli_answers(v: &Value) -> Vec<Answer> {
    answers(v, "stack", "source", 0, "column")
}

fn server_answers(v: &Value) -> Vec<Answer> {
    answers(v, "frames", "mapSource", 1, "character")
}

/// The workspace of same-named builds, and each case's trace: (bundler, entry, trace with the absolute path).
fn workspace(ws: &Path) -> Vec<(String, String, String, String)> {
    let dist = roundtrip_build::built();
    for b in BUNDLERS {
        for e in ENTRIES {
            let dir = ws.join(b).join(e);
            std::fs::create_dir_all(&dir).unwrap();
            for f in [format!("{e}.js"), format!("{e}.js.map")] {
                std::fs::copy(dist.join(b).join(&f), dir.join(&f)).unwrap();
            }
        }
    }
    let recorded: Value =
        serde_json::from_str(&std::fs::read_to_string(dist.join("cases.json")).unwrap()).unwrap();
    recorded["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let bundle = dist.join(c["bundle"].as_str().unwrap().trim_start_matches("dist/"));
            // The bundle's name (`three-scenarios.mjs` is bundled as `three-scenarios.js`).
            let entry = bundle.file_stem().unwrap().to_str().unwrap().to_string();
            (
                c["bundler"].as_str().unwrap().to_string(),
                entry,
                c["bundled"].as_str().unwrap().to_string(),
                std::fs::canonicalize(bundle).unwrap().display().to_string(),
            )
        })
        .collect()
}

#[test]
fn the_cli_and_the_server_answer_alike_and_never_from_another_bundle() {
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap();
    let cases = workspace(&ws);
    assert_eq!(cases.len(), 110);
    let mut server = LspClient::start(&[]);
    server.initialize(&ws, json!({}), false);
    let (mut truth_mapped, mut url_mapped, mut bare_mapped, mut ambiguous_files) = (0, 0, 0, 0);
    for (bundler, entry, trace, bundle) in &cases {
        let forms = [
            ("path", format!("{bundler}/{entry}/{entry}.js")),
            (
                "url",
                format!("http://localhost:8080/{bundler}/{entry}/{entry}.js"),
            ),
            ("bare", format!("{entry}.js")),
        ];
        let mut truth: Vec<Answer> = Vec::new();
        for (form, named) in forms {
            let text = trace.replace(bundle.as_str(), &named);
            let from_cli = cli(&ws, &[], &text);
            let from_server = server.result("sourcemap/symbolicate", json!({"text": text}));
            let (c, s) = (cli_answers(&from_cli), server_answers(&from_server));
            assert_eq!(
                c, s,
                "{bundler} {entry} ({form}): the CLI and the server differ"
            );
            assert_eq!(
                from_cli["ambiguous"].as_array().unwrap().len(),
                from_server["ambiguous"].as_array().unwrap().len(),
                "{bundler} {entry} ({form})"
            );
            if form == "path" {
                truth = c;
                truth_mapped += truth.iter().flatten().count();
                continue;
            }
            assert_eq!(c.len(), truth.len());
            for (k, (a, t)) in c.iter().zip(&truth).enumerate() {
                assert!(
                    a.is_none() || a == t,
                    "{bundler} {entry} ({form}), frame {k}: answered {a:?}, its own bundle says {t:?}"
                );
            }
            let mapped = c.iter().flatten().count();
            let ambiguous = from_cli["ambiguous"].as_array().unwrap();
            if form == "url" {
                assert_eq!(mapped, truth.iter().flatten().count(), "{bundler} {entry}");
                assert!(ambiguous.is_empty());
                url_mapped += mapped;
            } else {
                bare_mapped += mapped;
                // A bare name is answered in full, or its file is reported with the five candidates.
                if mapped < truth.iter().flatten().count() {
                    assert_eq!(ambiguous.len(), 1, "{from_cli}");
                    assert_eq!(ambiguous[0]["candidates"].as_array().unwrap().len(), 5);
                    ambiguous_files += 1;
                }
            }
        }
    }
    eprintln!(
        "frames mapped: path {truth_mapped}, URL {url_mapped}, bare name {bare_mapped} ({ambiguous_files} of 110 \
         traces' files ambiguous)"
    );
    assert_eq!(url_mapped, truth_mapped);
    // The positions tell the builds apart for most traces (measured: 1,913 of 1,965 frames over all 110 cases).
    assert!(
        bare_mapped * 10 >= truth_mapped * 9,
        "{bare_mapped} of {truth_mapped}"
    );

    // `--bundle NAME=PATH` (the client's `bundles`) chooses; the answers are then the truth's.
    let (bundler, entry, trace, bundle) = &cases[1];
    let text = trace.replace(bundle.as_str(), &format!("{entry}.js"));
    let chosen = ws.join(bundler).join(entry).join(format!("{entry}.js"));
    let truth = cli_answers(&cli(
        &ws,
        &[],
        &trace.replace(bundle.as_str(), &format!("{bundler}/{entry}/{entry}.js")),
    ));
    let by_choice = cli_answers(&cli(
        &ws,
        &["--bundle", &format!("{entry}.js={}", chosen.display())],
        &text,
    ));
    assert_eq!(by_choice, truth);
    let r = server.result(
        "sourcemap/symbolicate",
        json!({"text": text, "bundles": {format!("{entry}.js"): url::Url::from_file_path(&chosen).unwrap()}}),
    );
    assert_eq!(server_answers(&r), truth);

    // A map given explicitly, with the bare-named trace: it serves the frames that name its bundle.
    let map = chosen.with_extension("js.map");
    let given = cli_answers(&cli(&ws, &[map.to_str().unwrap()], &text));
    assert_eq!(given, truth);
    server.shutdown();
}

/// A build copied to two folders is one build: the same answers, from the nearest copy. Two builds whose maps carry
/// debug IDs are told apart by the report's; a trace with too few frames to tell them apart is left to the user, the
/// same way by the CLI and the server.
#[test]
fn copies_answer_as_one_and_debug_ids_choose() {
    let dist = roundtrip_build::built();
    let dir = tempfile::tempdir().unwrap();
    let ws = std::fs::canonicalize(dir.path()).unwrap();
    let entry = "lodash-scenarios";
    let put = |folder: &str, bundler: &str, debug_id: Option<&str>| -> PathBuf {
        let to = ws.join(folder);
        std::fs::create_dir_all(&to).unwrap();
        let mut map: Value = serde_json::from_slice(
            &std::fs::read(dist.join(bundler).join(format!("{entry}.js.map"))).unwrap(),
        )
        .unwrap();
        if let Some(id) = debug_id {
            map["debugId"] = json!(id);
        }
        std::fs::write(to.join(format!("{entry}.js.map")), map.to_string()).unwrap();
        std::fs::copy(
            dist.join(bundler).join(format!("{entry}.js")),
            to.join(format!("{entry}.js")),
        )
        .unwrap();
        to.join(format!("{entry}.js"))
    };
    let bundled = |bundler: &str| -> String {
        let recorded: Value =
            serde_json::from_str(&std::fs::read_to_string(dist.join("cases.json")).unwrap())
                .unwrap();
        let case = recorded["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["bundler"] == bundler && c["entry"] == format!("{entry}.js"))
            .unwrap()
            .clone();
        let bundle = std::fs::canonicalize(
            dist.join(case["bundle"].as_str().unwrap().trim_start_matches("dist/")),
        )
        .unwrap();
        case["bundled"]
            .as_str()
            .unwrap()
            .replace(&bundle.display().to_string(), &format!("{entry}.js"))
    };
    let mut server = LspClient::start(&[]);
    server.initialize(&ws, json!({}), false);

    // Copies of one build.
    put("copy-a", "esbuild", None);
    put("copy-b/deeper", "esbuild", None);
    let trace = bundled("esbuild");
    let from_cli = cli(&ws, &[], &trace);
    let from_server = server.result("sourcemap/symbolicate", json!({"text": trace}));
    let answers = cli_answers(&from_cli);
    assert!(answers.iter().flatten().count() > 5, "{from_cli}");
    assert_eq!(answers, server_answers(&from_server));
    assert_eq!(from_cli["ambiguous"], json!([]));

    // Two builds with debug IDs; the report names terser's. One frame only: its position alone cannot decide.
    std::fs::remove_dir_all(ws.join("copy-a")).unwrap();
    std::fs::remove_dir_all(ws.join("copy-b")).unwrap();
    let esbuild_id = "11111111-2222-4333-8444-555555555555";
    let terser_id = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
    put("one", "esbuild", Some(esbuild_id));
    let terser = put("two", "terser", Some(terser_id));
    let full = bundled("terser");
    let first_frame: String = full
        .lines()
        .take(2)
        .map(|l| format!("{l}\n"))
        .collect::<String>();
    let truth = cli_answers(&cli(
        &ws,
        &["--bundle", &format!("{entry}.js={}", terser.display())],
        &first_frame,
    ));
    assert!(truth[0].is_some(), "{truth:?}");
    let with_id = format!("{first_frame}debug_id: {}\n", terser_id.to_uppercase());
    let from_cli = cli(&ws, &[], &with_id);
    let from_server = server.result("sourcemap/symbolicate", json!({"text": with_id}));
    assert_eq!(cli_answers(&from_cli), truth);
    assert_eq!(server_answers(&from_server), truth);
    // Without the debug ID, the one frame's answer is never esbuild's: it is terser's, or left ambiguous by both.
    let from_cli = cli(&ws, &[], &first_frame);
    let from_server = server.result("sourcemap/symbolicate", json!({"text": first_frame}));
    let answers = cli_answers(&from_cli);
    assert_eq!(answers, server_answers(&from_server));
    assert!(answers[0].is_none() || answers == truth, "{from_cli}");
    assert_eq!(
        from_cli["ambiguous"].as_array().unwrap().len(),
        from_server["ambiguous"].as_array().unwrap().len()
    );
    server.shutdown();
}
