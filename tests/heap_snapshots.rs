//! Heap snapshots of a real engine in original functions (issue 27): `fixtures/profiles/heap/
//! esbuild.inventory.heapsnapshot`, recorded by node 20 with the inspector's allocation tracking while the
//! esbuild-minified `inventory` workload ran (`heap/record.cjs`, `heap/make.sh`; `nodes`, `edges` and their strings
//! cut out, the rest as V8 wrote it), and metro-symbolicate 0.84's output on the same file beside it.
//!
//! Checked on every `trace_function_infos` record of the bundle: the written position is metro-symbolicate's
//! (metro is right on this input: V8's 1-based line and column, the map's answer), and, where the bundle position is
//! one the `.cpuprofile` recording of the same bundle sampled, the position and the function name equal
//! `recordings/v8/esbuild.inventory.truth.json` (the map's answer by mozilla source-map, and the name the unbundled
//! program's run gave the function). metro-symbolicate keeps the minified names (the esbuild map has no Metro
//! function map). metro-symbolicate looks every record up in the one map it is given, node's own scripts too (none
//! of those lands on a mapping in this file); here they are left, no map of theirs being given.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const BUNDLE: &str = "dist/esbuild/inventory.js";

fn fixtures() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/profiles"))
        .unwrap()
}

fn profile(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
        .current_dir(fixtures())
        .arg("profile")
        .args(args)
        .output()
        .unwrap()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// A `trace_function_infos` record with its strings looked up.
#[derive(Debug, Clone, PartialEq)]
struct Record {
    function_id: u64,
    name: String,
    script_name: String,
    script_id: u64,
    line: u64,
    column: u64,
}

fn records(snapshot: &Value) -> Vec<Record> {
    let fields: Vec<&str> = snapshot["snapshot"]["meta"]["trace_function_info_fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert_eq!(
        fields,
        [
            "function_id",
            "name",
            "script_name",
            "script_id",
            "line",
            "column"
        ]
    );
    let strings = snapshot["strings"].as_array().unwrap();
    let string = |v: &Value| {
        strings[v.as_u64().unwrap() as usize]
            .as_str()
            .unwrap()
            .to_string()
    };
    snapshot["trace_function_infos"]
        .as_array()
        .unwrap()
        .chunks_exact(6)
        .map(|r| Record {
            function_id: r[0].as_u64().unwrap(),
            name: string(&r[1]),
            script_name: string(&r[2]),
            script_id: r[3].as_u64().unwrap(),
            line: r[4].as_u64().unwrap(),
            column: r[5].as_u64().unwrap(),
        })
        .collect()
}

fn last_part(name: &str) -> &str {
    name.rsplit(['.', '#']).next().unwrap_or(name)
}

#[test]
fn trace_function_infos_are_where_metro_symbolicate_puts_them_with_original_names() {
    let root = fixtures();
    let input = root.join("heap/esbuild.inventory.heapsnapshot");
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("out.heapsnapshot");
    let out = profile(&[
        "heap/esbuild.inventory.heapsnapshot",
        "dist/esbuild/inventory.js.map",
        "--json",
        "--out",
        out_path.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();

    let original = read_json(&input);
    let metro = read_json(&root.join("heap/esbuild.inventory.metro-symbolicate.heapsnapshot"));
    let ours = read_json(&out_path);
    let (before, by_metro, after) = (records(&original), records(&metro), records(&ours));
    assert_eq!(before.len(), after.len());
    assert_eq!(before.len(), by_metro.len());

    // Everything but the records and the strings appended to is as it was.
    for (key, value) in original.as_object().unwrap() {
        match key.as_str() {
            "trace_function_infos" => {}
            "strings" => {
                let (a, b) = (value.as_array().unwrap(), ours[key].as_array().unwrap());
                assert_eq!(&b[..a.len()], &a[..], "strings are only appended to");
            }
            _ => assert_eq!(&ours[key], value, "{key} is copied as it was"),
        }
    }
    assert_eq!(
        original.as_object().unwrap().keys().collect::<Vec<_>>(),
        ours.as_object().unwrap().keys().collect::<Vec<_>>()
    );

    let mut bundle = 0;
    let mut equal_positions = 0;
    let mut renamed = 0;
    let mut metro_on_foreign = 0;
    for ((b, m), o) in before.iter().zip(&by_metro).zip(&after) {
        assert_eq!((b.function_id, b.script_id), (o.function_id, o.script_id));
        if b.line == 0 && b.column == 0 {
            assert_eq!(
                o, b,
                "an unknown position is left (metro-symbolicate skips 0/0)"
            );
            continue;
        }
        if b.script_name != BUNDLE {
            // node's own scripts (node:…) and the recording script: no map of theirs was given.
            assert_eq!(o, b);
            metro_on_foreign += usize::from(m != b);
            continue;
        }
        bundle += 1;
        assert_eq!(
            (&o.script_name, o.line, o.column),
            (&m.script_name, m.line, m.column),
            "record of {b:?}: metro-symbolicate wrote {m:?}, we wrote {o:?}"
        );
        equal_positions += 1;
        renamed += usize::from(o.name != b.name);
    }
    assert_eq!(bundle, 412, "the bundle's records with positions");
    eprintln!(
        "heap snapshot: {bundle} bundle records, {equal_positions} at metro-symbolicate's position, {renamed} \
         renamed to original functions (metro-symbolicate: {} renamed); metro-symbolicate moved {metro_on_foreign} \
         of node's own records",
        before
            .iter()
            .zip(&by_metro)
            .filter(|(b, m)| b.script_name == BUNDLE && b.name != m.name)
            .count()
    );

    // The --json rows and the written snapshot say the same.
    let rows = report["functions"].as_array().unwrap();
    assert_eq!(report["traceFunctionInfos"], before.len());
    for r in rows {
        let o = &after[r["index"].as_u64().unwrap() as usize];
        if let Some(source) = r["source"].as_str() {
            assert_eq!(o.script_name, source);
            assert_eq!(o.line, r["line"].as_u64().unwrap());
            assert_eq!(
                o.column,
                r["column"].as_u64().unwrap() + 1,
                "written 1-based"
            );
            if let Some(name) = r["originalName"].as_str() {
                assert_eq!(o.name, name);
            }
        }
    }

    // Against the truth of the .cpuprofile of the same bundle: V8 records a function at the same place (its
    // SharedFunctionInfo's start) in both.
    let truth = read_json(&root.join("recordings/v8/esbuild.inventory.truth.json"));
    let mut by_position: HashMap<(u64, u64), &Value> = HashMap::new();
    for e in truth["entries"].as_array().unwrap() {
        if e["kind"] == "js" {
            let g = &e["generated"];
            by_position.insert(
                (g["line"].as_u64().unwrap(), g["column"].as_u64().unwrap()),
                e,
            );
        }
    }
    let (mut checked, mut positions, mut names) = (0, 0, 0);
    for r in rows.iter().filter(|r| r["script"] == BUNDLE) {
        let key = (
            r["generatedLine"].as_u64().unwrap(),
            r["generatedColumn"].as_u64().unwrap(),
        );
        let Some(e) = by_position.get(&key) else {
            continue;
        };
        checked += 1;
        let t = &e["original"];
        if t.is_null() {
            assert!(r["source"].is_null(), "{r}: the truth has no mapping here");
        } else {
            // The truth's sources are relative to fixtures/profiles, the map's to dist/esbuild.
            let ours = r["source"].as_str().unwrap();
            assert_eq!(ours.strip_prefix("../../"), t["source"].as_str(), "{r}");
            assert_eq!(
                (&r["line"], &r["column"]),
                (&t["line"], &t["column"]),
                "{r}"
            );
            positions += 1;
        }
        if e["function"].is_null() {
            continue;
        }
        let truth_name = e["function"]["name"].as_str().unwrap();
        match r["originalName"].as_str() {
            None => assert_eq!(truth_name, "", "{r}: the original run named it"),
            Some(ours) => assert_eq!(last_part(ours), last_part(truth_name), "{r}"),
        }
        names += 1;
    }
    eprintln!(
        "against the .cpuprofile truth: {checked} records at sampled positions, {positions} positions and {names} \
         names equal"
    );
    assert_eq!((checked, positions, names), (145, 142, 138));
}

#[test]
fn the_text_report_counts_functions() {
    let out = profile(&[
        "heap/esbuild.inventory.heapsnapshot",
        "dist/esbuild/inventory.js.map",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("heap snapshot: 520 trace_function_infos, 481 with positions, 408 mapped"),
        "{text}"
    );
    assert!(
        text.contains(" -> baseIsArguments ../../node_modules/lodash/_baseIsArguments.js:14:9"),
        "{text}"
    );
    assert!(
        profile(&[
            "heap/esbuild.inventory.heapsnapshot",
            "dist/esbuild/inventory.js.map",
            "--out",
            "heap/esbuild.inventory.heapsnapshot",
        ])
        .status
        .code()
            != Some(0)
    );
}

/// The lines of a JSON-lines file.
fn json_lines(bytes: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(bytes)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `--hermes-coverage` and `--attribution` inputs: CONSTRUCTED in metro-symbolicate's shapes (no Hermes here records
/// them: `heap/metro-inputs.cjs`), at the real V8 function starts of the heap snapshot's bundle records. Every answer
/// is metro-symbolicate's on the same file, a bytecode range's walk to its first mapped column too (metro's `functionName` is null throughout: the esbuild map has no
/// function map; ours names functions from the code, so it is not compared).
#[test]
fn coverage_and_attribution_are_answered_as_metro_symbolicate_answers() {
    let root = fixtures();
    let out = profile(&[
        "heap/constructed.coverage.json",
        "dist/esbuild/inventory.js.map",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours: Value = serde_json::from_slice(&out.stdout).unwrap();
    let metro = read_json(&root.join("heap/constructed.coverage.metro-symbolicate.json"));
    let (ours, metro) = (ours.as_array().unwrap(), metro.as_array().unwrap());
    assert_eq!(ours.len(), 412);
    assert_eq!(ours.len(), metro.len());
    let mut mapped = 0;
    for (o, m) in ours.iter().zip(metro) {
        for key in ["source", "line", "column", "name", "isIgnored"] {
            assert_eq!(o[key], m[key], "{key}: ours {o}, metro-symbolicate {m}");
        }
        assert!(m["functionName"].is_null());
        mapped += usize::from(!o["source"].is_null());
    }
    assert_eq!(mapped, 408);

    let out = profile(&[
        "heap/constructed.attribution.jsonl",
        "dist/esbuild/inventory.js.map",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours = json_lines(&out.stdout);
    let metro = json_lines(
        &std::fs::read(root.join("heap/constructed.attribution.metro-symbolicate.jsonl")).unwrap(),
    );
    // The bundle's 412 function starts, and three bytecode ranges (one walked to its first mapped column).
    assert_eq!(ours.len(), 415);
    assert_eq!(ours, metro);
    assert_eq!(
        ours[412]["location"]["file"],
        "../../node_modules/lodash/_arrayPush.js"
    );
    let text = profile(&[
        "heap/constructed.attribution.jsonl",
        "dist/esbuild/inventory.js.map",
    ]);
    assert_eq!(
        String::from_utf8_lossy(&text.stdout).trim(),
        "bytecode size attribution: 415 positions, 410 mapped"
    );
}
