//! The tc39 source-map conformance suite (vendored in `tests/conformance/source-map-tests`, BSD-licensed; its
//! LICENSE.md and where it came from, `tests/conformance/SOURCE.md`, sit beside it): every test of `source-map-spec-tests.json` and
//! `range-mappings-proposal-tests.json`, and the `decoding/debug-id` goldens. A test that cannot run counts as failed;
//! the runner prints `N passed, N failed` per file.
//!
//! Set `SOURCEMAP_CONFORMANCE_DIR` to run it from elsewhere.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use sourcemap_core::{Bias, GeneratedPosition, SourceMapIndex};

fn suite_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("SOURCEMAP_CONFORMANCE_DIR") {
        return PathBuf::from(dir);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance/source-map-tests")
}

fn open(path: &Path) -> Result<SourceMapIndex, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    SourceMapIndex::from_bytes(bytes).map_err(|e| e.to_string())
}

/// (source, line, column, name) as the suite writes them: 0-based, nulls when nothing maps.
fn mapping_at(index: &SourceMapIndex, line: u64, column: u64) -> Result<Value, String> {
    let p = GeneratedPosition {
        line: line as u32,
        column: column as u32,
    };
    let hit = index
        .original_position(p, Bias::GreatestLowerBound)
        .map_err(|e| e.to_string())?;
    Ok(match hit {
        None => json!([null, null, null, null]),
        Some(o) => json!([o.source_url, o.line, o.column, o.name]),
    })
}

fn run_action(dir: &Path, index: &SourceMapIndex, action: &Value) -> Result<(), String> {
    let expected = || {
        json!([
            action["originalSource"],
            action["originalLine"],
            action["originalColumn"],
            action["mappedName"]
        ])
    };
    let gl = action["generatedLine"].as_u64().unwrap_or(0);
    let gc = action["generatedColumn"].as_u64().unwrap_or(0);
    match action["actionType"].as_str() {
        Some("checkMapping") => {
            let got = mapping_at(index, gl, gc)?;
            if got != expected() {
                return Err(format!("at {gl}:{gc}: expected {}, got {got}", expected()));
            }
            Ok(())
        }
        Some("checkMappingTransitive") => {
            let mut got = mapping_at(index, gl, gc)?;
            for map in action["intermediateMaps"]
                .as_array()
                .ok_or("intermediateMaps")?
            {
                let next = open(&dir.join(map.as_str().ok_or("map name")?))?;
                let (Some(l), Some(c)) = (got[1].as_u64(), got[2].as_u64()) else {
                    break;
                };
                got = mapping_at(&next, l, c)?;
            }
            if got != expected() {
                return Err(format!(
                    "transitive at {gl}:{gc}: expected {}, got {got}",
                    expected()
                ));
            }
            Ok(())
        }
        Some("checkIgnoreList") => {
            let mut want: Vec<&str> = action["present"]
                .as_array()
                .ok_or("present")?
                .iter()
                .filter_map(Value::as_str)
                .collect();
            let mut have: Vec<&str> = index
                .sources()
                .iter()
                .filter(|s| s.ignored)
                .filter_map(|s| s.url.as_deref())
                .collect();
            want.sort();
            have.sort();
            if want != have {
                return Err(format!("ignore list: expected {want:?}, got {have:?}"));
            }
            Ok(())
        }
        other => Err(format!("unknown action {other:?}")),
    }
}

fn run_test(dir: &Path, test: &Value) -> Result<(), String> {
    let file = test["sourceMapFile"].as_str().ok_or("sourceMapFile")?;
    let valid = test["sourceMapIsValid"]
        .as_bool()
        .ok_or("sourceMapIsValid")?;
    let result = open(&dir.join(file));
    match (&result, valid) {
        (Ok(_), false) => return Err("accepted an invalid map".into()),
        (Err(e), true) => return Err(format!("rejected a valid map: {e}")),
        (Err(e), false) => {
            // Every rejection must say where and why.
            if !e.contains(':') {
                return Err(format!("error without a location: {e}"));
            }
            return Ok(());
        }
        (Ok(_), true) => {}
    }
    let index = result.expect("checked above");
    for action in test["testActions"].as_array().into_iter().flatten() {
        run_action(dir, &index, action)?;
    }
    Ok(())
}

fn run_suite(json_file: &str, resources: &str, expected_count: usize) {
    let root = suite_dir();
    let text = std::fs::read_to_string(root.join(json_file)).unwrap_or_else(|e| {
        panic!(
            "the conformance suite must be present at {}: {e}",
            root.display()
        )
    });
    let suite: Value = serde_json::from_str(&text).expect("suite JSON");
    let tests = suite["tests"].as_array().expect("tests array");
    let dir = root.join(resources);
    let mut failed = Vec::new();
    for test in tests {
        if let Err(e) = run_test(&dir, test) {
            failed.push(format!("{}: {e}", test["name"]));
        }
    }
    let passed = tests.len() - failed.len();
    println!("{json_file}: {passed} passed, {} failed", failed.len());
    for f in &failed {
        println!("  FAILED {f}");
    }
    assert_eq!(tests.len(), expected_count, "the suite changed size");
    assert!(
        failed.is_empty(),
        "{} conformance failures:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

#[test]
fn spec_tests() {
    run_suite("source-map-spec-tests.json", "resources", 99);
}

#[test]
fn range_mappings_proposal_tests() {
    run_suite(
        "range-mappings-proposal-tests.json",
        "resources/proposals/range-mappings",
        13,
    );
}

/// The golden files contain trailing commas; drop them before reading the golden as JSON.
fn lenient_json(text: &str) -> Value {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        if in_string {
            out.push(c);
            if c == '\\' && i + 1 < bytes.len() {
                out.push(bytes[i + 1] as char);
                i += 1;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if c == ',' {
            let next = bytes[i + 1..].iter().find(|b| !b.is_ascii_whitespace());
            if !matches!(next, Some(b'}') | Some(b']')) {
                out.push(c);
            }
        } else {
            out.push(c);
        }
        i += 1;
    }
    serde_json::from_str(&out).expect("golden JSON")
}

/// The Decoded Source Map Record of `decoding/source-map-record.d.ts`, built from the index.
fn decoded_record(index: &SourceMapIndex) -> Value {
    let sources: Vec<Value> = (0..index.sources().len())
        .map(|i| {
            let id = sourcemap_core::SourceId(i as u32);
            json!({
                "url": index.source(id).url.as_deref(),
                "content": index.source_content(id).map(|c| c.into_owned()),
                "ignored": index.is_ignored(id),
            })
        })
        .collect();
    let mut mappings = Vec::new();
    index
        .for_each_segment(|hit| {
            mappings.push(json!({
                "generatedPosition": {"line": hit.generated.line, "column": hit.generated.column},
                "originalPosition": hit.original.map(|o| json!({"sourceIndex": o.source.0, "line": o.line, "column": o.column})),
                "name": hit.original.and_then(|o| o.name),
            }));
        })
        .expect("valid map");
    json!({
        "file": index.file,
        "sources": sources,
        "mappings": mappings,
        "debugId": index.debug_id,
    })
}

#[test]
fn debug_id_goldens() {
    let dir = suite_dir().join("decoding/debug-id");
    let mut maps: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "map"))
        .collect();
    maps.sort();
    let mut failed = Vec::new();
    for map in &maps {
        let name = map.file_name().unwrap().to_string_lossy().to_string();
        let golden_path = dir.join(format!("{name}.golden"));
        let result = (|| -> Result<(), String> {
            let golden =
                lenient_json(&std::fs::read_to_string(&golden_path).map_err(|e| e.to_string())?);
            let index = open(map)?;
            let mut got = decoded_record(&index);
            let mut want = golden.clone();
            // `debugId` is absent from goldens whose map has none.
            if want.get("debugId").is_none() {
                want["debugId"] = Value::Null;
            }
            if got != want {
                return Err(format!("expected {want}, got {got}"));
            }
            // A `.error` marker means the spec optionally reports an error: we report it as a warning.
            let marker = dir.join(name.replace(".map", ".error"));
            if marker.exists() && index.warnings.is_empty() {
                return Err("expected a warning (the suite marks this map with .error)".into());
            }
            got["checked"] = Value::Bool(true);
            Ok(())
        })();
        if let Err(e) = result {
            failed.push(format!("{name}: {e}"));
        }
    }
    println!(
        "decoding/debug-id: {} passed, {} failed",
        maps.len() - failed.len(),
        failed.len()
    );
    for f in &failed {
        println!("  FAILED {f}");
    }
    assert_eq!(maps.len(), 4, "the debug-id goldens changed");
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
