//! Text inputs other than maps: stack traces (every format), Hermes crash reports, Metro function maps, `scopes`.
//! Parsed frames are then symbolicated against a small fixed map, and code frames rendered.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use sourcemap_core::internal::map::function_map::FunctionMap;
use sourcemap_core::trace::function_name::ScopeCache;
use sourcemap_core::trace::js_scopes::{Dialect, FunctionScopes};
use sourcemap_core::trace::stack::{parse_line, parse_stack, PlainInput, StackLine};
use sourcemap_core::trace::symbolicate::{
    render_frame, render_text, symbolicate, symbolicate_frame, FrameMap, TextOptions,
};
use sourcemap_core::SourceMapIndex;

/// A small map with names, contents, a function map and Hermes offsets, built once.
fn index() -> &'static SourceMapIndex {
    static INDEX: OnceLock<SourceMapIndex> = OnceLock::new();
    INDEX.get_or_init(|| {
        let map = br#"{"version":3,"sources":["a.js","b.js"],"sourcesContent":["function f() {\n  g();\n}\n","x"],"names":["f","g"],"mappings":"AAAAA,SAACC;AACA,CAAC;ACDD","x_facebook_sources":[[{"names":["<global>","f"],"mappings":"AAA,SC;EDC"}],null],"x_hermes_function_offsets":{"0":[0,10,20],"1":[5]}}"#;
        SourceMapIndex::from_bytes(map.to_vec()).expect("the fixed map is valid")
    })
}

/// A map with names and no function maps: frames against it are named by scope analysis.
fn plain_index() -> &'static SourceMapIndex {
    static INDEX: OnceLock<SourceMapIndex> = OnceLock::new();
    INDEX.get_or_init(|| {
        let map = br#"{"version":3,"sources":["o.js"],"names":["f","g"],"mappings":"AAAA,SAASA,EAAE,EAAEC,IAAI;AACjB,CAAC"}"#;
        SourceMapIndex::from_bytes(map.to_vec()).expect("the fixed map is valid")
    })
}

/// A RAM bundle's map as Metro nests it, with a segment and Hermes offsets at the edges of u32: frames in `N.js`,
/// `seg-S.js` and crash reports are placed by `map::metro`.
fn metro_index() -> &'static SourceMapIndex {
    static INDEX: OnceLock<SourceMapIndex> = OnceLock::new();
    INDEX.get_or_init(|| {
        let map = br#"{"version":3,"sections":[{"offset":{"line":0,"column":0},"map":{"version":3,"sections":[{"offset":{"line":0,"column":0},"map":{"version":3,"sources":["p.js"],"names":[],"mappings":"AAAA"}}]}},{"offset":{"line":1,"column":3},"map":{"version":3,"sources":["a.js"],"names":["f"],"mappings":"GAAAA,CAAC;AACA"}}],"x_facebook_offsets":[1,null,2147483647],"x_hermes_function_offsets":{"0":[0,10,4294967294],"4294967295":[4294967295]},"x_facebook_segments":{"1":{"version":3,"sources":["s.js"],"names":[],"mappings":";AAAA,CAAC","x_hermes_function_offsets":{"1":[5,0]},"x_facebook_offsets":[0]}}}"#;
        SourceMapIndex::from_bytes(map.to_vec()).expect("the fixed map is valid")
    })
}

fn exercise_lines(lines: &[StackLine]) {
    let index = index();
    for line in lines {
        if let StackLine::Frame(f) = line {
            if let Some(span) = &f.function_span {
                assert!(
                    f.raw.get(span.clone()).is_some(),
                    "function_span {span:?} inside {:?}",
                    f.raw
                );
            }
            assert!(
                f.raw.get(f.frame_span.clone()).is_some(),
                "frame_span {:?} inside {:?}",
                f.frame_span,
                f.raw
            );
            if let Some(span) = &f.location_span {
                assert!(
                    f.raw.get(span.clone()).is_some(),
                    "location_span {span:?} inside {:?}",
                    f.raw
                );
            }
            let _ = symbolicate_frame(metro_index(), f);
            let s = symbolicate_frame(index, f);
            let _ = render_frame(&s, TextOptions::default());
            let _ = render_frame(
                &s,
                TextOptions {
                    line_start: 0,
                    column_start: 0,
                    collapse_ignored: true,
                },
            );
        }
    }
    let out = symbolicate(
        lines,
        |_| FrameMap::Map(0, index),
        |_, _| Some((1, index)),
        &sourcemap_core::trace::function_name::NoCode,
    );
    let _ = render_text(
        &out,
        TextOptions {
            collapse_ignored: true,
            ..TextOptions::default()
        },
    );
    let _ = sourcemap_core::trace::symbolicate::first_code_frame(&out, |f| {
        index
            .source_content(f.original.as_ref()?.source_id)
            .map(|c| c.into_owned())
    });
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);

    // The regexes dominate the cost of an input, so the text goes through them twice only: as a whole trace, and
    // line by line with other `LINE COLUMN` bases (0-based line; 1-based, then saturating, column).
    exercise_lines(&parse_stack(&text, PlainInput::default()));
    // The text as a trace as found (log lines, JSON lines, events): parsed, symbolicated, rendered back.
    let document =
        sourcemap_core::trace::document::TraceDocument::parse(&text, PlainInput::default());
    exercise_lines(&document.lines);
    let out = symbolicate(
        &document.lines,
        |_| FrameMap::Map(0, index()),
        |_, _| None,
        &sourcemap_core::trace::function_name::NoCode,
    );
    let rendered = document.render(&out, TextOptions::default());
    if document.event_kind().is_some() {
        assert!(
            serde_json::from_str::<serde_json::Value>(&rendered).is_ok(),
            "an event renders as JSON"
        );
    }
    for (i, line) in text.lines().enumerate() {
        let column_start = if i % 2 == 0 { 1 } else { u32::MAX };
        let _ = parse_line(
            line,
            PlainInput {
                line_start: 0,
                column_start,
            },
        );
        let _ = sourcemap_core::trace::stack::file_name_of(line);
    }

    if let Ok(lines) = sourcemap_core::trace::hermes_crash::parse_hermes_crash(&text, metro_index())
    {
        exercise_lines(&lines);
    }

    // The text as a Metro function map (and as `x_facebook_sources` JSON).
    let names: Vec<String> = ["<global>", "f", "g"].map(String::from).to_vec();
    if let Ok(m) = FunctionMap::decode(names, &text) {
        for (line, column) in [(0, 0), (1, 3), (u32::MAX, u32::MAX)] {
            let _ = m.name_at(line, column);
        }
        for &(line, column, name) in m.entries.iter().take(16) {
            assert!(line >= 1 && (name as usize) < m.name_count());
            let _ = m.name_at(line - 1, column);
        }
    }
    let _ = FunctionMap::decode(Vec::new(), &text);
    let _ = FunctionMap::decode_facebook_sources(&text);

    // The text as the `scopes` field.
    let names = sourcemap_core::internal::map::names::NameTable::new(&["n0", "n1", "n2"])
        .expect("short names");
    for sources in [0, 3] {
        if let Ok(scopes) =
            sourcemap_core::internal::map::scopes::decode_scopes(&text, &names, sources)
        {
            let _ = scopes.flattened();
            for (line, column) in [(0, 0), (0, 9), (2, 1), (u32::MAX, u32::MAX)] {
                let _ = scopes.function_name_at(line, column);
            }
        }
    }

    // The text as JavaScript: its function scopes, then as the generated file of a map without function maps, so
    // frames are named by scope analysis (the text is also every original source).
    for (name, dialect) in [("b.js", Dialect::Generated), ("o.tsx", Dialect::Original)] {
        if let Ok(scopes) = FunctionScopes::parse(&text, name, dialect) {
            for f in scopes.iter().take(64) {
                assert!(f.start <= f.end, "{:?} > {:?}", f.start, f.end);
                let inner = scopes
                    .innermost(f.start)
                    .expect("a function holds its own start");
                assert!(inner.start >= f.start && inner.end <= f.end || f.start == f.end);
                let _ = f.written_name();
            }
        }
    }
    let plain = plain_index();
    let code = ScopeCache::new(
        |_| Some(("b.js".into(), text.to_string())),
        |_, _| Some(("o.js".into(), text.to_string())),
    );
    let lines = parse_stack(
        "at f (b.js:1:1)\nat g (b.js:1:30)\nat b.js:2:3\n",
        PlainInput::default(),
    );
    let _ = symbolicate(&lines, |_| FrameMap::Map(0, plain), |_, _| None, &code);

    // Helpers that take text from bundles and editors.
    let _ = sourcemap_core::trace::code_frame::code_frame(&text, 1, 3);
    let _ = sourcemap_core::trace::code_frame::code_frame(&text, 0, u32::MAX);
    let _ = sourcemap_core::bundle::locate::find_source_mapping_url(data);
    let _ = sourcemap_core::bundle::locate::find_debug_id(data);
    let _ = sourcemap_core::bundle::locate::looks_like_map(data);
    let _ = sourcemap_core::bundle::locate::decode_data_url(&text);
    // Only stats the paths it resolves (never reads them); offsets it reports must lie in the text.
    match sourcemap_core::bundle::locate::find_bundle_map(
        std::path::Path::new("/nonexistent/app.js"),
        data,
        1 << 16,
    ) {
        Ok(found) => {
            if let Some((at, len)) = found.url_at {
                assert!(at + len <= data.len());
            }
        }
        Err(e) => {
            if let Some((at, len)) = e.url_at() {
                assert!(at + len <= data.len());
            }
        }
    }
});
