//! Profiles of real engines in original functions (issue 27), against a truth made without sourcemap-ls
//! (`fixtures/profiles`, README there): V8 `.cpuprofile`s from `node --cpu-prof`, a Chromium trace, and Hermes
//! sampling profiles of the same workloads from source and from bytecode, bundled by esbuild, webpack, rollup and
//! Metro. For every frame in a bundle the truth has the map's answer (mozilla `source-map` 0.7.4 on the composed
//! map) and the original function from a run of the unbundled program; metro-symbolicate's score on the same
//! recordings is stored beside them and printed here for comparison.
//!
//! Names are equal when the strings are, and also when:
//! - V8 names a method by its key alone and an assigned function by its whole target (`snapshot`,
//!   `marked.walkTokens`), where the answer qualifies it by its class or object (`Inventory.snapshot`, Metro's
//!   function maps `Inventory#snapshot`): the last parts (after `.` or `#`) are compared;
//! - the original function is anonymous and the answer is one of Metro's function-map names for anonymous
//!   functions (`<anonymous>`, `arrayEach$argument_1`).

#[path = "support/lsp_client.rs"]
mod lsp_client;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};

fn fixtures() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/profiles"))
        .unwrap()
}

fn profile(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
        .arg("profile")
        .args(args)
        .output()
        .unwrap()
}

fn json_of(out: Output) -> Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn last_part(name: &str) -> &str {
    name.rsplit(['.', '#']).next().unwrap_or(name)
}

fn same_function(truth: Option<&str>, ours: Option<&str>) -> bool {
    match (truth, ours) {
        (None, None) => true,
        (None, Some(o)) => {
            o == "<anonymous>"
                || o.rsplit_once("$argument_")
                    .is_some_and(|(_, n)| n.parse::<u32>().is_ok())
        }
        (Some(t), Some(o)) => t == o || last_part(t) == last_part(o),
        (Some(_), None) => false,
    }
}

/// A recording's score: positions equal to the map's answer, functions equal to the original run's.
struct Score {
    recording: String,
    positions: (usize, usize),
    names: (usize, usize),
    /// Rows (by function) whose line is where the truth has that function start.
    heads: (usize, usize),
    misses: Vec<String>,
}

fn score(truth_file: &Path) -> Score {
    let root = fixtures();
    let truth: Value = serde_json::from_slice(&std::fs::read(truth_file).unwrap()).unwrap();
    let at = |key: &str| root.join(truth[key].as_str().unwrap());
    let recording = at("recording");
    let map = at("map");
    let script_dir = at("script").parent().unwrap().to_path_buf();
    let format = truth["format"].as_str().unwrap();
    let mut args = vec![
        recording.to_str().unwrap(),
        "--json",
        "--root",
        script_dir.to_str().unwrap(),
    ];
    // A bytecode profile names no file: its Hermes map is given. Source runs and V8 find their bundle under --root.
    if format == "hermes-bytecode" {
        args.push(map.to_str().unwrap());
    }
    let out = json_of(profile(&args));
    let ours: std::collections::HashMap<&str, &Value> = out["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["id"].as_str().unwrap(), f))
        .collect();
    let map_dir = map.parent().unwrap();
    let mut s = Score {
        recording: truth["recording"]
            .as_str()
            .unwrap()
            .trim_start_matches("recordings/")
            .to_string(),
        positions: (0, 0),
        names: (0, 0),
        heads: (0, 0),
        misses: Vec::new(),
    };
    // Where each original function starts (1-based), by name and file, as the truth found it.
    let mut heads: std::collections::HashMap<(String, String), Vec<u64>> = Default::default();
    let base = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    for e in truth["entries"].as_array().unwrap() {
        let f = &e["function"];
        if let (Some(name), Some(source), Some(line)) =
            (f["name"].as_str(), f["source"].as_str(), f["line"].as_u64())
        {
            heads
                .entry((name.to_string(), base(source)))
                .or_default()
                .push(line);
        }
    }
    // A row stands at its function's head when the truth knows a function of that name in that file there.
    for r in out["functions"].as_array().unwrap() {
        let (Some(name), Some(source), false) = (
            r["function"].as_str(),
            r["source"].as_str(),
            r["unmapped"].as_bool().unwrap_or(true),
        ) else {
            continue;
        };
        if let Some(lines) = heads.get(&(name.to_string(), base(source))) {
            s.heads.1 += 1;
            if r["line"].as_u64().is_some_and(|l| lines.contains(&l)) {
                s.heads.0 += 1;
            } else {
                s.misses.push(format!(
                    "row {name} at {source}:{}, not at a head {lines:?}",
                    r["line"]
                ));
            }
        }
    }
    for e in truth["entries"].as_array().unwrap() {
        if e["kind"] != "js" {
            continue;
        }
        let id = e["id"].as_str().unwrap();
        let o = ours.get(id).copied().unwrap_or(&Value::Null);
        if !e["original"].is_null() {
            s.positions.1 += 1;
            // Our sources are the map's strings; the truth's are relative to fixtures/profiles when they are paths.
            let source = o["source"].as_str().map(|src| {
                let joined = map_dir.join(src);
                let normal = std::path::absolute(&joined).ok().and_then(|p| {
                    normalize(&p)
                        .strip_prefix(&root)
                        .ok()
                        .map(|r| r.to_string_lossy().into_owned())
                });
                (src.to_string(), normal)
            });
            let want = &e["original"];
            let same_source = source.as_ref().is_some_and(|(raw, normal)| {
                want["source"] == raw.as_str() || normal.as_deref() == want["source"].as_str()
            });
            if same_source && o["line"] == want["line"] && o["column"] == want["column"] {
                s.positions.0 += 1;
            } else {
                s.misses.push(format!("frame {id}: position {o} ≠ {want}"));
            }
        }
        if !e["function"].is_null() {
            s.names.1 += 1;
            let want = e["function"]["name"].as_str().filter(|n| !n.is_empty());
            let got = o["function"].as_str();
            if same_function(want, got) {
                s.names.0 += 1;
            } else {
                s.misses
                    .push(format!("frame {id}: function {got:?} ≠ {want:?}"));
            }
        }
    }
    s
}

/// `a/b/../c` → `a/c`, without touching the file system.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

fn pct((a, b): (usize, usize)) -> f64 {
    if b == 0 {
        100.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

#[test]
fn real_profiles_map_to_the_maps_answer_and_the_original_functions() {
    let root = fixtures();
    let mut truths: Vec<PathBuf> = ["v8", "chrome", "hermes"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root.join("recordings").join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".truth.json"))
        .collect();
    truths.sort();
    assert_eq!(truths.len(), 15, "fixtures/profiles has 15 recordings");
    let metro: Vec<Value> = serde_json::from_slice(
        &std::fs::read(root.join("recordings/metro-symbolicate-accuracy.json")).unwrap(),
    )
    .unwrap();
    println!("| recording | positions = map | functions = original | rows at their function's head | metro-symbolicate 0.84.6: positions, functions |");
    println!("|---|---|---|---|---|");
    let mut failures = Vec::new();
    let (mut all_pos, mut all_names, mut all_heads) = ((0, 0), (0, 0), (0, 0));
    for t in &truths {
        let s = score(t);
        let theirs = metro
            .iter()
            .find(|m| {
                m["recording"]
                    .as_str()
                    .is_some_and(|r| r.ends_with(&s.recording))
            })
            .map_or("—".to_string(), |m| match m["exitCode"].as_i64() {
                Some(0) => format!("{} %, {} %", m["positionsRightPct"], m["namesRightPct"]),
                _ => "refuses the file (no `stackFrames`)".to_string(),
            });
        println!(
            "| {} | {}/{} ({:.1} %) | {}/{} ({:.1} %) | {}/{} ({:.1} %) | {theirs} |",
            s.recording,
            s.positions.0,
            s.positions.1,
            pct(s.positions),
            s.names.0,
            s.names.1,
            pct(s.names),
            s.heads.0,
            s.heads.1,
            pct(s.heads)
        );
        for (sum, part) in [
            (&mut all_pos, s.positions),
            (&mut all_names, s.names),
            (&mut all_heads, s.heads),
        ] {
            sum.0 += part.0;
            sum.1 += part.1;
        }
        // A row's line is its function's head: from the original code's scopes, also where Metro's function maps
        // named it (a Hermes bytecode address of a function maps to its first located instruction, often a line
        // below). The one row off (rollup's markdown) is another function named `text` than the truth's.
        if pct(s.positions) < 99.0 || pct(s.names) < 95.0 || pct(s.heads) < 97.0 {
            failures.push(format!(
                "{}: {:?}",
                s.recording,
                &s.misses[..s.misses.len().min(12)]
            ));
        }
    }
    println!(
        "| all | {}/{} ({:.1} %) | {}/{} ({:.1} %) | {}/{} ({:.1} %) | |",
        all_pos.0,
        all_pos.1,
        pct(all_pos),
        all_names.0,
        all_names.1,
        pct(all_names),
        all_heads.0,
        all_heads.1,
        pct(all_heads)
    );
    assert!(
        failures.is_empty(),
        "below 99 % positions, 95 % functions or 97 % rows at heads:\n{}",
        failures.join("\n")
    );
    assert!(pct(all_heads) >= 99.5, "rows at heads: {all_heads:?}");
}

/// A script URL leads to its bundle by its path under `--root`, even where the same file name is nearer (the
/// original `src/inventory.js`, no map) or belongs to other builds (`dist/metro/inventory.js`, `dist/hermes/…`):
/// the answers equal those with `--root` at the bundle's own folder.
#[test]
fn a_script_url_leads_to_its_bundle_by_its_path_under_the_root() {
    let root = fixtures();
    let trace = root.join("recordings/chrome/esbuild.inventory.trace.json");
    let frames = |r: &Path| {
        json_of(profile(&[
            trace.to_str().unwrap(),
            "--json",
            "--root",
            r.to_str().unwrap(),
        ]))["frames"]
            .clone()
    };
    let near = frames(&root.join("dist/esbuild"));
    let whole = frames(&root);
    let mapped = near
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["source"].is_string())
        .count();
    assert!(mapped > 400, "{mapped}");
    assert_eq!(whole, near);
}

/// A Hermes bytecode profile of the older shape (frames with `funcVirtAddr` and `offset`, no line or column) named
/// `rec.cpuprofile`, with its map named `rec.cpuprofile.map` beside it, as Metro's tooling names them: the sidecar
/// naming makes the profile the map's "bundle", but a profile is never a bundle's text, so the fit check does not
/// judge it and every frame maps as with the usual names (CLI and server).
#[test]
fn a_profile_named_like_its_maps_bundle_is_not_judged_as_the_bundle() {
    let root = fixtures();
    let dir = tempfile::tempdir().unwrap();
    let (rec, map) = (
        dir.path().join("rec.cpuprofile"),
        dir.path().join("rec.cpuprofile.map"),
    );
    let recording = root.join("recordings/hermes/esbuild.inventory.bytecode.json");
    let hbc_map = root.join("dist/hermes/esbuild/inventory.hbc.map");
    std::fs::copy(&recording, &rec).unwrap();
    std::fs::copy(&hbc_map, &map).unwrap();
    let o = profile(&[rec.to_str().unwrap(), map.to_str().unwrap(), "--json"]);
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(!stderr.contains("map-mismatch"), "{stderr}");
    let renamed = json_of(o)["frames"].clone();
    let usual = json_of(profile(&[
        recording.to_str().unwrap(),
        hbc_map.to_str().unwrap(),
        "--json",
    ]))["frames"]
        .clone();
    let mapped = renamed
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["source"].is_string())
        .count();
    assert!(mapped > 500, "{mapped} frames mapped");
    assert_eq!(renamed, usual);
    // `validate` judges the map against the profile's text as a bundle only if asked to: the check says it is not code.
    let o = Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
        .args(["validate", rec.to_str().unwrap(), map.to_str().unwrap()])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
    assert!(!said.contains("does not fit"), "{said}");
}

#[test]
fn out_writes_the_profile_in_its_format_with_original_names_and_never_over_the_input() {
    let root = fixtures();
    let dir = tempfile::tempdir().unwrap();
    // V8: callFrames at the original function, positions 0-based, as the JSON frames say.
    let v8 = root.join("recordings/v8/esbuild.inventory.cpuprofile");
    let esbuild = root.join("dist/esbuild");
    let out = dir.path().join("out.cpuprofile");
    let frames = json_of(profile(&[
        v8.to_str().unwrap(),
        "--root",
        esbuild.to_str().unwrap(),
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]));
    let written: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let input: Value = serde_json::from_slice(&std::fs::read(&v8).unwrap()).unwrap();
    assert_eq!(written["samples"], input["samples"]);
    assert_eq!(written["timeDeltas"], input["timeDeltas"]);
    let by_id: std::collections::HashMap<String, &Value> = frames["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["id"].as_str().unwrap().to_string(), f))
        .collect();
    let mut rewritten = 0;
    for node in written["nodes"].as_array().unwrap() {
        let f = by_id[&node["id"].to_string()];
        let cf = &node["callFrame"];
        if f["source"].is_null() {
            continue;
        }
        rewritten += 1;
        assert_eq!(cf["url"], f["source"], "{node}");
        assert_eq!(
            cf["lineNumber"].as_u64(),
            f["line"].as_u64().map(|l| l - 1),
            "{node}"
        );
        assert_eq!(cf["columnNumber"], f["column"], "{node}");
        if let Some(name) = f["function"].as_str() {
            assert_eq!(cf["functionName"], name);
        }
    }
    assert!(rewritten > 200, "{rewritten}");
    let names: Vec<&str> = written["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["callFrame"]["functionName"].as_str())
        .collect();
    assert!(
        names.contains(&"baseClone")
            && names.contains(&"orderBy")
            && names.contains(&"Inventory.snapshot"),
        "{:?}",
        &names[..names.len().min(40)]
    );

    // Hermes: each frame's name as metro-symbolicate writes it, `function(source:line:column)`.
    let hermes = root.join("recordings/hermes/metro.inventory.bytecode.json");
    let map = root.join("dist/hermes/metro/inventory.hbc.map");
    let out = dir.path().join("out.json");
    let o = profile(&[
        hermes.to_str().unwrap(),
        map.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let written: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let input: Value = serde_json::from_slice(&std::fs::read(&hermes).unwrap()).unwrap();
    assert_eq!(written["samples"], input["samples"]);
    let frames = written["stackFrames"].as_object().unwrap();
    assert_eq!(
        frames.len(),
        input["stackFrames"].as_object().unwrap().len()
    );
    let rounds = frames
        .values()
        .filter(|f| {
            f["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("round(../../../src/inventory.js:"))
        })
        .count();
    assert!(rounds > 0, "{written}");
    for (id, f) in frames {
        assert_eq!(f["funcVirtAddr"], input["stackFrames"][id]["funcVirtAddr"]);
    }

    // --to cpuprofile: the same functions, read back as a V8 profile.
    let converted = dir.path().join("converted.cpuprofile");
    let o = profile(&[
        hermes.to_str().unwrap(),
        map.to_str().unwrap(),
        "--to",
        "cpuprofile",
        "--out",
        converted.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let again = json_of(profile(&[converted.to_str().unwrap(), "--json"]));
    assert_eq!(again["format"], "V8 .cpuprofile");
    assert_eq!(again["samples"], input["samples"].as_array().unwrap().len());
    let original = json_of(profile(&[
        hermes.to_str().unwrap(),
        map.to_str().unwrap(),
        "--json",
    ]));
    let top = |v: &Value| v["functions"][0]["function"].clone();
    assert_eq!(top(&again), top(&original));

    // The input is never written over.
    let o = profile(&[
        hermes.to_str().unwrap(),
        map.to_str().unwrap(),
        "--out",
        hermes.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("never written over"));
}

#[test]
fn broken_profiles_are_clear_errors_or_answers_for_what_is_valid() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let cut = write(
        "cut.json",
        r#"{"traceEvents":[],"samples":[{"ts":"1","sf":2}],"stackFrames":{"1":{"name":"#,
    );
    let o = profile(&[cut.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("not a valid Hermes profile") && err.contains("line 1"),
        "{err}"
    );
    let o = profile(&[write("map.json", r#"{"version":3,"mappings":""}"#)
        .to_str()
        .unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a profile this tool reads"));
    // A loop in the parents and a sample naming no frame: warned about, the rest answered.
    let looped = write(
        "loop.json",
        r#"{"traceEvents":[],"samples":[{"ts":"1","sf":2},{"ts":"5","sf":9},{"ts":"9","sf":3}],"stackFrames":{"1":{"name":"[root]","category":"root"},"2":{"name":"a","category":"JavaScript","parent":3},"3":{"name":"b","category":"JavaScript","parent":2}}}"#,
    );
    let o = profile(&[looped.to_str().unwrap(), "--json"]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let v = json_of(o);
    assert_eq!(v["samples"], 2);
    assert!(
        err.contains("loops") && err.contains("name no frame"),
        "{err}"
    );
}

#[test]
fn the_language_server_answers_sourcemap_profile_with_locations() {
    let root = fixtures();
    let mut c = lsp_client::LspClient::start(&[]);
    c.initialize(&root, json!({}), false);
    // The recording names its bundle by the absolute `file:` URL it ran from: here, this checkout's.
    let recorded =
        std::fs::read_to_string(root.join("recordings/v8/webpack.inventory.cpuprofile")).unwrap();
    let bundle = url::Url::from_file_path(root.join("dist/webpack/inventory.js")).unwrap();
    let here = recorded
        .split('"')
        .find(|s| s.starts_with("file://") && s.ends_with("/dist/webpack/inventory.js"))
        .map(|u| recorded.replace(u, bundle.as_str()))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("webpack.inventory.cpuprofile");
    std::fs::write(&path, here).unwrap();
    let uri = url::Url::from_file_path(&path).unwrap();
    let a = c.result(
        "sourcemap/profile",
        json!({"textDocument": {"uri": uri.as_str()}, "top": 40}),
    );
    assert_eq!(a["format"], "V8 .cpuprofile", "{a}");
    assert!(a["mapped"].as_u64() > Some(200), "{a}");
    let rows = a["functions"].as_array().unwrap();
    assert!(rows.len() <= 40);
    let sort_by = rows
        .iter()
        .find(|r| r["function"] == "baseClone")
        .unwrap_or_else(|| panic!("{a}"));
    assert_eq!(sort_by["package"], "node_modules/lodash", "{sort_by}");
    // The local file when fixtures/profiles' node_modules is installed, else the map's copy (a virtual document).
    let location = &sort_by["location"];
    let opens = url::Url::parse(location["uri"].as_str().unwrap()).unwrap();
    assert!(
        ["file", "sourcemap-source"].contains(&opens.scheme())
            && opens.path().ends_with("node_modules/lodash/_baseClone.js"),
        "{location}"
    );
    assert_eq!(location["range"]["start"]["line"], sort_by["line"]);
    // Grouped by package, the app's own code is one row.
    let by = c.result(
        "sourcemap/profile",
        json!({"textDocument": {"uri": uri.as_str()}, "by": "package"}),
    );
    assert!(
        by["functions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["package"] == "src"),
        "{by}"
    );
    // A Hermes bytecode profile names no file: mapped only through the map the client names.
    let bytecode =
        url::Url::from_file_path(root.join("recordings/hermes/metro.inventory.bytecode.json"))
            .unwrap();
    let unnamed = c.result(
        "sourcemap/profile",
        json!({"textDocument": {"uri": bytecode.as_str()}}),
    );
    assert_eq!(
        (unnamed["needsMap"].as_bool(), unnamed["mapped"].as_u64()),
        (Some(true), Some(0)),
        "{unnamed}"
    );
    let map = url::Url::from_file_path(root.join("dist/hermes/metro/inventory.hbc.map")).unwrap();
    let named = c.result(
        "sourcemap/profile",
        json!({"textDocument": {"uri": bytecode.as_str()}, "map": map.as_str()}),
    );
    assert_eq!(named["needsMap"], false, "{named}");
    assert!(named["mapped"].as_u64() > Some(500), "{named}");
    assert!(
        named["functions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["function"] == "baseClone"),
        "{named}"
    );
    let bad = c.request(
        "sourcemap/profile",
        json!({"textDocument": {"uri": uri.as_str()}, "by": "line"}),
    );
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .contains("by: line"),
        "{bad}"
    );
    c.shutdown();
}

/// A profile saved as UTF-16 (Windows PowerShell 5.1's `>` writes UTF-16LE with a byte-order mark; no PowerShell
/// here, so the bytes are transcoded from the real Chrome trace) answers as the UTF-8 file does.
#[test]
fn a_utf16_profile_answers_as_its_utf8_text() {
    let root = fixtures();
    let trace = root.join("recordings/chrome/esbuild.inventory.trace.json");
    let text = std::fs::read_to_string(&trace).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let utf16 = dir.path().join("trace.json");
    let mut bytes = vec![0xFF, 0xFE];
    for unit in text.encode_utf16() {
        bytes.extend_from_slice(&unit.to_le_bytes());
    }
    std::fs::write(&utf16, bytes).unwrap();
    let dist = root.join("dist/esbuild");
    let frames = |p: &Path| {
        json_of(profile(&[
            p.to_str().unwrap(),
            "--json",
            "--root",
            dist.to_str().unwrap(),
        ]))["frames"]
            .clone()
    };
    let want = frames(&trace);
    assert!(want.as_array().is_some_and(|f| f.len() > 400), "{want}");
    assert_eq!(frames(&utf16), want);
}

/// One rule for packages (issue 57): Metro writes absolute source paths; `profile --by package` and `explore` both
/// name the app's own code by its first folder below the folder common to the map's sources (`src`), never by the
/// build machine's first folder (`home`). The real Metro build of `fixtures/profiles`, its maps' sources made the
/// absolute paths Metro writes on a build machine (`/home/ci/app/src/inventory.js`).
#[test]
fn profile_and_explore_name_packages_by_one_rule() {
    let root = fixtures();
    let dir = tempfile::tempdir().unwrap();
    let absolute = |from: &Path, to: &Path| {
        let mut map: Value = serde_json::from_slice(&std::fs::read(from).unwrap()).unwrap();
        for s in map["sources"].as_array_mut().unwrap() {
            if let Some(rel) = s.as_str().and_then(|s| s.strip_prefix("../../")) {
                *s = json!(format!("/home/ci/app/{rel}"));
            }
        }
        std::fs::write(to, map.to_string()).unwrap();
    };
    let hbc_map = dir.path().join("inventory.hbc.map");
    absolute(&root.join("dist/hermes/metro/inventory.hbc.map"), &hbc_map);
    let packages = json_of(profile(&[
        root.join("recordings/hermes/metro.inventory.bytecode.json")
            .to_str()
            .unwrap(),
        hbc_map.to_str().unwrap(),
        "--by",
        "package",
        "--json",
    ]));
    let named: Vec<&str> = packages["functions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["package"].as_str())
        .collect();
    assert!(
        named.contains(&"src") && named.contains(&"node_modules/lodash"),
        "{named:?}"
    );
    assert!(!named.contains(&"home"), "{named:?}");
    std::fs::copy(
        root.join("dist/metro/inventory.js"),
        dir.path().join("inventory.js"),
    )
    .unwrap();
    absolute(
        &root.join("dist/metro/inventory.js.map"),
        &dir.path().join("inventory.js.map"),
    );
    let out = Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
        .arg("explore")
        .arg(dir.path().join("inventory.js"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let explored: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with(' ') && l.contains('%'))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(
        explored.contains(&"src") && !explored.contains(&"home"),
        "{text}"
    );
}
