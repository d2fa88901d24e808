//! Structured variant of `index`: the input is the *content* of a fixed, valid map, so the fuzzer explores the VLQ /
//! segment space without having to write JSON.
//!
//! Input layout: one flags byte, then `mappings|rangeMappings|scopes|functionMap` (`|` is not a base64 digit; the
//! parts after `mappings` are optional). The map has 3 sources (one `null`) and 3 names. Flags: bit 0 wraps the map
//! as section 1 of an index map (section 0 is `AAAA` at 0:0); bits 1–2 pick that section's offset line, bits 3–4
//! its column (0, 1, 1000, `i32::MAX`); bit 5 adds a third, empty section after it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

/// Section offsets to try; the last is the largest the parser accepts (offsets must fit in 31 bits).
const OFFSETS: [u32; 4] = [0, 1, 1000, i32::MAX as u32];

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let mut parts = text.split('|');
    let mappings = parts.next().unwrap_or_default();
    let mut map = json!({
        "version": 3,
        "sources": ["a.js", "b.js", null],
        "sourcesContent": ["a\nb\\c", null, "c"],
        "names": ["n0", "n1", "n2"],
        "mappings": mappings,
    });
    if let Some(range) = parts.next() {
        map["rangeMappings"] = range.into();
    }
    if let Some(scopes) = parts.next() {
        map["scopes"] = scopes.into();
    }
    if let Some(function_map) = parts.next() {
        map["x_facebook_sources"] =
            json!([[{"names": ["<global>", "f", "g"], "mappings": function_map}], null, null]);
    }
    let doc: Value = if flags & 1 == 0 {
        map
    } else {
        let line = OFFSETS[usize::from((flags >> 1) & 3)];
        let column = OFFSETS[usize::from((flags >> 3) & 3)];
        let mut sections = vec![
            json!({"offset": {"line": 0, "column": 0}, "map": {"version": 3, "sources": ["a.js"], "names": [], "mappings": "AAAA"}}),
            json!({"offset": {"line": line, "column": column}, "map": map}),
        ];
        if flags & 0x20 != 0 {
            sections.push(json!({"offset": {"line": line.saturating_add(2), "column": 0}, "map": {"version": 3, "sources": [], "names": [], "mappings": ""}}));
        }
        json!({"version": 3, "sections": sections})
    };
    let bytes = serde_json::to_vec(&doc).expect("a Value serializes");
    sourcemap_fuzz::exercise_map_bytes(&bytes);
});
