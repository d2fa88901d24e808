//! `sourcemap-ls symbolicate` end to end: real traces from real engines (recorded in `fixtures/traces`, and V8
//! produced live by running node), and Meta's `metro-symbolicate` (pinned in `fixtures/metro-reference`) frame by
//! frame on Metro-format maps with function maps.

#[path = "support/process.rs"]
mod process;

use std::path::{Path, PathBuf};
use std::process::Command;

use process::output_with_stdin;
use serde_json::{json, Value};

fn repo() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap()
}

fn symbolicate(cwd: &Path, args: &[&str], stdin: &str) -> (String, String) {
    let out = output_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
            .arg("symbolicate")
            .args(args)
            .current_dir(cwd),
        stdin,
    );
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "symbolicate {args:?} failed: {stderr}"
    );
    (String::from_utf8(out.stdout).unwrap(), stderr)
}

fn symbolicate_json(cwd: &Path, args: &[&str], stdin: &str) -> Value {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    serde_json::from_str(&symbolicate(cwd, &all, stdin).0).unwrap()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Each recorded trace (V8, async and eval frames, JavaScriptCore, SpiderMonkey, Firefox, Hermes source and bytecode
/// frames) against mozilla/source-map's answers recorded in `fixtures/traces/expected.json`.
#[test]
fn recorded_engine_traces_agree_with_mozilla() {
    let dir = repo().join("fixtures/traces");
    let expected = read_json(&dir.join("expected.json"));
    let mut checked = 0;
    for (trace, info) in expected["traces"].as_object().unwrap() {
        let frames = info["frames"].as_array().unwrap();
        // The Hermes bytecode map leads to app.js, whose own map leads to the sources: give both, they chain.
        let maps: Vec<String> = match frames[0].get("hermesBytecode") {
            Some(h) => vec![
                h["map"].as_str().unwrap().into(),
                frames[0]["map"].as_str().unwrap().into(),
            ],
            None => vec![frames[0]["map"].as_str().unwrap().into()],
        };
        let mut args: Vec<&str> = maps.iter().map(String::as_str).collect();
        args.extend(["--trace", trace]);
        let ours = symbolicate_json(&dir, &args, "");
        let stack = ours["stack"].as_array().unwrap();
        for want in frames {
            let raw = want["frame"].as_str().unwrap();
            let got = stack
                .iter()
                .find(|f| f["raw"] == raw)
                .unwrap_or_else(|| panic!("{trace}: frame {raw:?} was not parsed as a frame"));
            let o = &got["original"];
            assert_eq!(
                (&o["source"], &o["line"], &o["column"]),
                (
                    &want["original"]["source"],
                    &want["original"]["line"],
                    &want["original"]["column"]
                ),
                "{trace}: {raw}"
            );
            checked += 1;
        }
        // Text output keeps each frame's shape with 1-based columns.
        let (text, _) = symbolicate(&dir, &args, "");
        assert!(text.contains(":5:"), "{trace}: {text}");
    }
    assert!(checked >= 25, "only {checked} frames checked");
}

/// A genuine V8 stack, produced now by node running the demo bundle.
#[test]
fn live_v8_trace_from_node() {
    let demo = repo().join("fixtures/demo");
    let out = Command::new("node")
        .arg(demo.join("dist/app.min.js"))
        .output()
        .expect("node must be installed for this test");
    let trace = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(trace.contains("app.min.js:1:50"), "{trace}");
    let (text, _) = symbolicate(&demo, &["--root", "."], &trace);
    assert!(
        text.contains("    at parseOrder (src/orders.js:5:24)"),
        "{text}"
    );
    assert!(text.contains("    at Array.map (<anonymous>)"));
    assert!(
        text.contains("node:internal/modules"),
        "node's own frames pass through"
    );
    let json = symbolicate_json(&demo, &[], &trace);
    let code = json["codeFrame"]["content"].as_str().unwrap();
    assert!(
        code.contains(">") && code.contains("input.items.map"),
        "{code}"
    );
}

fn metro_dir() -> PathBuf {
    repo().join("fixtures/metro-reference")
}

/// metro-symbolicate's answers (source, 1-based line, function name) for every recorded position, compared with
/// ours on the same map. Positions are fed to both as `LINE COLUMN` with a 0-based column: metro-symbolicate's CLI
/// reads engine columns as 0-based, whereas our stack parser reads them as the engines write them (1-based) — the
/// one intended difference, so the shared case is the plain position.
#[test]
fn metro_symbolicate_agrees_frame_by_frame() {
    let dir = metro_dir();
    let mut compared = 0;
    for map in ["flat", "index"] {
        let map_path = if map == "flat" {
            "maps/flat.js.map"
        } else {
            "maps/index-map.js.map"
        };
        for kind in ["plain", "stack"] {
            let expected = read_json(&dir.join(format!("expected/{map}.{kind}.json")));
            let frames: Vec<&Value> = expected["frames"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| f["generated"].is_object())
                .collect();
            let input: String = frames
                .iter()
                .map(|f| format!("{} {}\n", f["generated"]["line"], f["generated"]["column"]))
                .collect();
            let ours = symbolicate_json(&dir, &[map_path], &input);
            let stack = ours["stack"].as_array().unwrap();
            assert_eq!(stack.len(), frames.len());
            for (want, got) in frames.iter().zip(stack) {
                let o = &got["original"];
                // metro-symbolicate's `name` is the function map's name where there is one, else the mapping's
                // name (ours keeps these apart: `function` and `name`).
                let (source, line, function) = if o.is_null() {
                    (Value::Null, Value::Null, Value::Null)
                } else {
                    let name = if o["functionSource"] == "functionMap" {
                        o["function"].clone()
                    } else {
                        o["name"].clone()
                    };
                    (o["source"].clone(), o["line"].clone(), name)
                };
                assert_eq!(
                    (&source, &line, &function),
                    (&want["source"], &want["line"], &want["name"]),
                    "{map}.{kind}: {}",
                    want["input"]
                );
                compared += 1;
            }
        }
        // Hermes coverage is the one form where metro-symbolicate prints columns and ignore-list status:
        // 0-based lines in, compared through our --input-line-start.
        let coverage = read_json(&dir.join("traces/hermes-coverage.json"));
        let expected = read_json(&dir.join(format!("expected/{map}.hermes-coverage.json")));
        let input: String = coverage["executedFunctions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| format!("{} {}\n", f["line"], f["column"]))
            .collect();
        let ours = symbolicate_json(&dir, &[map_path, "--input-line-start", "0"], &input);
        let wants = expected["frames"]
            .as_array()
            .or_else(|| expected.as_array())
            .unwrap();
        for (want, got) in wants.iter().zip(ours["stack"].as_array().unwrap()) {
            let w = want.get("output").unwrap_or(want);
            let o = &got["original"];
            assert_eq!(o["source"], w["source"], "{map} coverage {want}");
            assert_eq!(o["line"], w["line"]);
            assert_eq!(o["column"], w["column"]);
            assert_eq!(o["name"], w["name"]);
            // In this form metro-symbolicate's `functionName` comes from the function map only.
            let from_function_map = if o["functionSource"] == "functionMap" {
                o["function"].clone()
            } else {
                Value::Null
            };
            assert_eq!(
                from_function_map, w["functionName"],
                "{map} coverage {want}"
            );
            assert_eq!(got["ignored"], w["isIgnored"]);
            compared += 1;
        }
    }
    assert!(compared > 100, "{compared}");
}

/// The recorded answers are what the pinned metro-symbolicate prints today (run live, when it is installed by
/// `scripts/test-deps`).
#[test]
fn recorded_metro_answers_are_current() {
    let dir = metro_dir();
    assert!(
        dir.join("node_modules/metro-symbolicate").is_dir(),
        "run `npm ci` in fixtures/metro-reference (scripts/test-deps does)"
    );
    for map in ["flat", "index"] {
        let map_path = if map == "flat" {
            "maps/flat.js.map"
        } else {
            "maps/index-map.js.map"
        };
        let out = Command::new("node")
            .args(["symbolicate.mjs", map_path, "traces/stack.txt"])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let recorded =
            std::fs::read_to_string(dir.join(format!("expected/{map}.stack.raw.txt"))).unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), recorded);
    }
}

#[test]
fn metro_json_logcat_and_ignore_list() {
    let dir = metro_dir();
    // Metro's /symbolicate request: 1-based lineNumber, 0-based column.
    let ours = symbolicate_json(
        &dir,
        &["maps/flat.js.map"],
        &std::fs::read_to_string(dir.join("traces/metro.json")).unwrap(),
    );
    let stack = ours["stack"].as_array().unwrap();
    assert!(!stack.is_empty());
    assert!(stack.iter().any(|f| f["original"]["source"]
        .as_str()
        .is_some_and(|s| s.starts_with("/home/dev/app/src/module"))));
    // React Native's logcat form.
    let (text, _) = symbolicate(&dir, &["maps/flat.js.map"], "Object.loadUser@6:83\n");
    assert!(
        text.starts_with("items.map.filter$argument_0@/home/dev/app/src/module0.js:2:"),
        "{text}"
    );
    // module5 is ignore-listed: marked in JSON, folded with --collapse-ignored.
    let cov = read_json(&dir.join("expected/flat.hermes-coverage.json"));
    let wants = cov["frames"]
        .as_array()
        .or_else(|| cov.as_array())
        .unwrap()
        .clone();
    let ignored_input: Vec<String> = read_json(&dir.join("traces/hermes-coverage.json"))
        ["executedFunctions"]
        .as_array()
        .unwrap()
        .iter()
        .zip(&wants)
        .filter(|(_, w)| w.get("output").unwrap_or(w)["isIgnored"] == true)
        .map(|(f, _)| format!("{} {}", f["line"], f["column"]))
        .collect();
    assert!(!ignored_input.is_empty());
    let input = format!("Error: x\n{}\n0 0\n", ignored_input.join("\n"));
    let (text, _) = symbolicate(
        &dir,
        &[
            "maps/flat.js.map",
            "--input-line-start",
            "0",
            "--collapse-ignored",
        ],
        &input,
    );
    assert!(text.contains("ignore-listed frame"), "{text}");
}

/// metro-symbolicate's `--hermes-crash` input: function id + bytecode offset through `x_hermes_function_offsets`,
/// compared with the pinned metro-symbolicate run live, then followed through the bundler's map.
#[test]
fn hermes_crash_reports_agree_with_metro_symbolicate() {
    let dir = repo().join("fixtures/traces");
    let crash = std::fs::read_to_string(dir.join("hermes-crash.json")).unwrap();
    let ours = symbolicate_json(&dir, &["--hermes-crash", "hermes/app.hbc.map"], &crash);
    let metro = output_with_stdin(
        Command::new("node")
            .args([
                repo()
                    .join("fixtures/metro-reference/node_modules/metro-symbolicate/src/index.js")
                    .to_str()
                    .unwrap(),
                "hermes/app.hbc.map",
                "--hermes-crash",
            ])
            .current_dir(&dir),
        &crash,
    );
    let metro: Value = serde_json::from_slice(&metro.stdout).unwrap();
    let metro = metro.as_array().unwrap();
    let stack = ours["stack"].as_array().unwrap();
    assert_eq!(stack.len(), metro.len());
    for (got, want) in stack.iter().zip(metro) {
        if want.get("NativeCode").is_some() {
            assert_eq!(got["original"], Value::Null);
            continue;
        }
        let o = &got["original"];
        assert_eq!(
            (&o["source"], &o["line"], &o["column"]),
            (&want["source"], &want["line"], &want["column"]),
            "{got}"
        );
    }
    // With the bundler's map too, the frames reach the original sources.
    let (text, _) = symbolicate(
        &dir,
        &["--hermes-crash", "hermes/app.hbc.map", "hermes/app.js.map"],
        &crash,
    );
    assert!(
        // The source lies outside what the command was given (the working folder, the maps' folders): the map's own
        // name is printed, never read nor turned into a path.
        text.starts_with("    at parseOrder (../../demo/src/orders.js:5:24)"),
        "{text}"
    );
    // Pasted without --hermes-crash: the shape is read as what it is, with the same answers.
    let (without_flag, _) = symbolicate(&dir, &["hermes/app.hbc.map", "hermes/app.js.map"], &crash);
    assert_eq!(without_flag, text);
}

/// The stack lines other tools read, through the CLI against real bundles: JavaScriptCore's bare `URL:L:C`, Opera's
/// Presto (0-based columns), V8's eval origin, all at the same place as the V8 frame; line-only frames answered at
/// line level where the bundle's line maps to one original line (esbuild's unminified output), and not on a one-line
/// bundle, where there is no column to go by; Firefox's eval chain at its call site, line only.
#[test]
fn every_stack_line_form_maps_where_its_engine_means() {
    let fixtures = repo().join("fixtures");
    let demo = fixtures.join("demo");
    let trace = "Error\n    at f (dist/app.min.js:1:50)\ndist/app.min.js:1:50\ncalled from line 1, column 49 in e(x) in dist/app.min.js:\n    at eval (eval at load (dist/app.min.js:1:50), <anonymous>:1:1)\ne@dist/app.min.js:1\nrender@dist/app.min.js line 1 > eval:2:17\n";
    let v = symbolicate_json(&demo, &["--root", "."], trace);
    let stack = v["stack"].as_array().unwrap();
    let at = |f: &Value| {
        let o = &f["original"];
        (
            o["source"].as_str().map(str::to_string),
            o["line"].as_u64(),
            o["column"].as_u64(),
        )
    };
    let want = (Some("../src/orders.js".to_string()), Some(5), Some(23));
    for f in &stack[..4] {
        assert_eq!(at(f), want, "{f}");
    }
    assert_eq!(stack[3]["inEval"], true);
    for f in &stack[4..] {
        assert_eq!(
            (&f["original"], f["precision"].as_str()),
            (&Value::Null, Some("line")),
            "{f}"
        );
        assert!(
            f["unresolved"]
                .as_str()
                .unwrap()
                .contains("a one-line bundle): there is no column to go by"),
            "{f}"
        );
    }
    assert_eq!(stack[5]["inEval"], true);
    // Line level on esbuild's unminified output: line 4 maps to greet.ts line 1 only.
    let (text, _) = symbolicate(
        &fixtures.join("lsp/esbuild"),
        &["--root", "."],
        "greet@dist/out.js:4\n    at dist/out.js:4\n",
    );
    assert_eq!(
        text,
        "greet@src/greet.ts:1 [line only: the trace gives no column]\n    at src/greet.ts:1 [line only: the trace gives no column]\n"
    );
    let v = symbolicate_json(
        &fixtures.join("lsp/esbuild"),
        &["--root", "."],
        "greet@dist/out.js:4\n",
    );
    let f = &v["stack"][0];
    assert_eq!(
        (
            f["precision"].as_str(),
            &f["original"]["line"],
            &f["original"]["column"]
        ),
        (Some("line"), &json!(1), &Value::Null)
    );
}

/// metro-symbolicate's positional form `MAP LINE [COLUMN]`: one position, answered as the same `LINE COLUMN` on stdin
/// is, and at metro-symbolicate's source and line (it prints `source:line:name`; the column defaults to 0).
#[test]
fn the_positional_form_map_line_column() {
    let dir = repo().join("fixtures/metro-reference");
    let (positional, _) = symbolicate(&dir, &["maps/flat.js.map", "6", "83"], "");
    let (stdin, _) = symbolicate(&dir, &["maps/flat.js.map"], "6 83\n");
    assert_eq!(positional, stdin);
    assert!(
        positional.contains("(/home/dev/app/src/module0.js:2:81)"),
        "{positional}"
    );
    let metro = output_with_stdin(
        Command::new("node")
            .args([
                dir.join("node_modules/metro-symbolicate/src/index.js")
                    .to_str()
                    .unwrap(),
                "maps/flat.js.map",
                "6",
                "83",
            ])
            .current_dir(&dir),
        "",
    );
    let metro = String::from_utf8(metro.stdout).unwrap();
    assert!(
        metro.starts_with("/home/dev/app/src/module0.js:2:"),
        "{metro}"
    );
    // The column defaults to 0, as metro-symbolicate's does.
    let (line_only, _) = symbolicate(&dir, &["maps/flat.js.map", "6"], "");
    let (line_zero, _) = symbolicate(&dir, &["maps/flat.js.map"], "6 0\n");
    assert_eq!(line_only, line_zero);
}

/// metro-symbolicate's directory mode: `symbolicate DIR` answers a frame in `subdir1/flat.js` from
/// `DIR/subdir1/flat.js.map`, exactly as that map given alone does; a frame whose map would lie outside DIR (by `..`,
/// an absolute path, or a symlink out of it) or that has no map in DIR stays as printed, with the reason.
#[test]
fn a_directory_of_maps_answers_each_frame_from_its_own_map_inside_it() {
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(tmp.path()).unwrap();
    let dir = base.join("maps");
    std::fs::create_dir_all(dir.join("subdir1")).unwrap();
    let metro = metro_dir().join("maps");
    std::fs::copy(metro.join("flat.js.map"), dir.join("subdir1/flat.js.map")).unwrap();
    std::fs::copy(metro.join("index-map.js.map"), dir.join("index-map.js.map")).unwrap();
    // Maps outside the directory, one reached by a symlink inside it.
    std::fs::copy(metro.join("flat.js.map"), base.join("outside.js.map")).unwrap();
    std::os::unix::fs::symlink(base.join("outside.js.map"), dir.join("escape.js.map")).unwrap();
    let expected = read_json(&metro_dir().join("expected/flat.plain.json"));
    let at: Vec<(u64, u64)> = expected["frames"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["generated"].is_object())
        .take(5)
        .map(|f| {
            (
                f["generated"]["line"].as_u64().unwrap(),
                f["generated"]["column"].as_u64().unwrap() + 1,
            )
        })
        .collect();
    let frames = |file: &str| -> String {
        at.iter()
            .map(|(l, c)| format!("    at f ({file}:{l}:{c})\n"))
            .collect()
    };
    let outside = base.join("outside.js");
    let trace = [
        frames("subdir1/flat.js"),
        frames("index-map.js"),
        frames("../outside.js"),
        frames(&outside.display().to_string()),
        frames("escape.js"),
        frames("missing.js"),
    ]
    .concat();
    let dir_arg = dir.display().to_string();
    let got = symbolicate_json(&base, &[&dir_arg, "--explain"], &trace);
    let got = got["stack"].as_array().unwrap();
    let n = at.len();
    // Each mapped frame as its own map alone answers it.
    for (k, (file, map)) in [
        ("subdir1/flat.js", "subdir1/flat.js.map"),
        ("index-map.js", "index-map.js.map"),
    ]
    .iter()
    .enumerate()
    {
        let map_arg = dir.join(map).display().to_string();
        let alone = symbolicate_json(&base, &[&map_arg], &frames(file));
        for (i, want) in alone["stack"].as_array().unwrap().iter().enumerate() {
            let f = &got[k * n + i];
            assert!(want["original"].is_object(), "{want}");
            assert_eq!(f["original"], want["original"], "{file}: {f}");
        }
    }
    // Nothing outside the directory is read; a file without a map there stays as printed, and `--explain` says why.
    for f in &got[2 * n..] {
        assert!(f["original"].is_null(), "{f}");
        let why = f["explain"][0].as_str().unwrap_or_default();
        assert!(
            why.starts_with("no map: no ") && why.contains("in the directory of maps"),
            "{f}"
        );
    }
}
