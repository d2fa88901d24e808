//! The tc39 `source-map-tests` goldens for the scopes proposal (`decoding/scopes/*.map` + `*.map.golden`): our
//! `decode_scopes` must give each golden's `sources[i].scope` and `ranges` (shape: `scopes.d.ts` there).
//!
//! The suite is vendored in `tests/conformance/source-map-tests` (see `tests/conformance/SOURCE.md`), found relative
//! to this crate or through
//! `SOURCEMAP_CONFORMANCE_DIR` (pointing at `source-map-tests`). A missing suite, or fewer than 8 goldens, fails.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use sourcemap_core::internal::map::names::NameTable;
use sourcemap_core::internal::map::scopes::{
    decode_scopes, Binding, DecodedScopes, GeneratedRange, OriginalScope, StackFrameType,
};

const MIN_GOLDENS: usize = 8;

fn suite_dir() -> PathBuf {
    match std::env::var_os("SOURCEMAP_CONFORMANCE_DIR") {
        Some(dir) => PathBuf::from(dir).join("decoding/scopes"),
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/conformance/source-map-tests/decoding/scopes"),
    }
}

/// Drops commas that directly precede (whitespace and) `}` or `]` outside strings: some goldens have them.
fn strip_trailing_commas(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let (mut in_string, mut escaped) = (false, false);
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            out.push(b);
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                out.push(b);
            }
            b',' => {
                let next = bytes[i + 1..].iter().find(|c| !c.is_ascii_whitespace());
                if !matches!(next, Some(b'}') | Some(b']')) {
                    out.push(b);
                }
            }
            _ => out.push(b),
        }
    }
    String::from_utf8(out).expect("only ASCII commas removed")
}

fn position((line, column): (u32, u32)) -> Value {
    json!({ "line": line, "column": column })
}

fn scope_json(s: &OriginalScope) -> Value {
    json!({
        "start": position(s.start),
        "end": position(s.end),
        "name": s.name,
        "kind": s.kind,
        "isStackFrame": s.is_stack_frame,
        "variables": s.variables,
        "children": s.children.iter().map(scope_json).collect::<Vec<_>>(),
    })
}

fn binding_json(b: &Binding) -> Value {
    json!({ "from": position(b.from), "binding": b.binding })
}

fn range_json(r: &GeneratedRange) -> Value {
    json!({
        "start": position(r.start),
        "end": position(r.end),
        "definitionIndex": r.definition,
        "stackFrameType": match r.stack_frame_type {
            StackFrameType::None => "none",
            StackFrameType::Original => "original",
            StackFrameType::Hidden => "hidden",
        },
        "bindings": r
            .bindings
            .iter()
            .map(|list| list.iter().map(binding_json).collect::<Vec<_>>())
            .collect::<Vec<_>>(),
        "callSite": r.call_site.map(|(source, line, column)| {
            json!({ "sourceIndex": source, "line": line, "column": column })
        }),
        "children": r.children.iter().map(range_json).collect::<Vec<_>>(),
    })
}

/// Decodes one map and compares it with its golden; `Err` describes the first difference.
fn check(map_path: &Path) -> Result<(), String> {
    let map_text = std::fs::read_to_string(map_path).map_err(|e| format!("read map: {e}"))?;
    let map: Value = serde_json::from_str(&map_text).map_err(|e| format!("map JSON: {e}"))?;
    let golden_path = map_path.with_extension("map.golden");
    let golden_text =
        std::fs::read_to_string(&golden_path).map_err(|e| format!("read golden: {e}"))?;
    let golden: Value = serde_json::from_str(&strip_trailing_commas(&golden_text))
        .map_err(|e| format!("golden JSON: {e}"))?;

    let names: Vec<&str> = match &map["names"] {
        Value::Array(a) => a
            .iter()
            .map(|v| v.as_str().ok_or("non-string name"))
            .collect::<Result<_, _>>()?,
        _ => Vec::new(),
    };
    let names = NameTable::new(&names).map_err(|_| "names too long")?;
    let source_count = map["sources"].as_array().map_or(0, Vec::len);
    let decoded = match &map["scopes"] {
        Value::Null => DecodedScopes {
            scopes: vec![None; source_count],
            ranges: Vec::new(),
        },
        Value::String(s) => decode_scopes(s, &names, source_count).map_err(|e| e.to_string())?,
        other => return Err(format!("`scopes` is not a string: {other}")),
    };

    let golden_sources = golden["sources"]
        .as_array()
        .ok_or("golden has no sources")?;
    if golden_sources.len() != decoded.scopes.len() {
        return Err(format!(
            "{} sources in the golden, {} scope entries decoded",
            golden_sources.len(),
            decoded.scopes.len()
        ));
    }
    for (i, (want, got)) in golden_sources.iter().zip(&decoded.scopes).enumerate() {
        let want = want.get("scope").cloned().unwrap_or(Value::Null);
        let got = got.as_ref().map_or(Value::Null, scope_json);
        if want != got {
            return Err(format!(
                "sources[{i}].scope differs\n  golden:  {want}\n  decoded: {got}"
            ));
        }
    }
    let want = golden.get("ranges").cloned().unwrap_or_else(|| json!([]));
    let got = Value::Array(decoded.ranges.iter().map(range_json).collect());
    if want != got {
        return Err(format!(
            "ranges differ\n  golden:  {want}\n  decoded: {got}"
        ));
    }
    Ok(())
}

#[test]
fn tc39_scopes_goldens() {
    let dir = suite_dir();
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| {
        panic!(
            "the tc39 scopes suite is missing at {} ({e}); set SOURCEMAP_CONFORMANCE_DIR to source-map-tests",
            dir.display()
        )
    });
    let mut maps: Vec<PathBuf> = entries
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "map"))
        .collect();
    maps.sort();

    let (mut passed, mut failures) = (0usize, Vec::new());
    for map in &maps {
        let name = map.file_name().unwrap().to_string_lossy().into_owned();
        match check(map) {
            Ok(()) => passed += 1,
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    println!(
        "decoding/scopes: {passed} passed, {} failed",
        failures.len()
    );
    for f in &failures {
        println!("FAIL {f}");
    }
    assert!(
        maps.len() >= MIN_GOLDENS,
        "only {} goldens found in {} (expected at least {MIN_GOLDENS})",
        maps.len(),
        dir.display()
    );
    assert!(failures.is_empty(), "{} golden(s) failed", failures.len());
}

#[test]
fn trailing_commas_are_stripped_outside_strings() {
    assert_eq!(
        strip_trailing_commas("{\"a\": [1, 2,], \"b\": \",]\",\n}"),
        "{\"a\": [1, 2], \"b\": \",]\"\n}"
    );
}
