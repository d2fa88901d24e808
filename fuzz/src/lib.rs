//! Shared drivers for the fuzz targets: everything here must hold (no panic) for any input.

use sourcemap_core::{Bias, GeneratedPosition, IndexOptions, SourceId, SourceMapIndex};

/// Columns probed on each line: start, next, small, past the usual line length, the end of the range.
const COLUMNS: [u32; 5] = [0, 1, 7, 100, u32::MAX];
const BIASES: [Bias; 2] = [Bias::GreatestLowerBound, Bias::LeastUpperBound];
/// Upper bounds so that one input stays cheap however many sections / sources / segments it declares.
const MAX_SOURCES: usize = 8;
const MAX_SECTIONS: usize = 8;
const MAX_SEGMENT_PROBES: usize = 32;

/// Parses `data` as a source map, eagerly and lazily, and runs every query on what parses.
pub fn exercise_map_bytes(data: &[u8]) {
    for lazy in [false, true] {
        if let Ok(index) = SourceMapIndex::from_bytes_with(
            data.to_vec(),
            IndexOptions {
                lazy,
                lazy_names: lazy,
            },
        ) {
            exercise_index(&index, data);
        }
    }
}

fn positions(index: &SourceMapIndex, data: &[u8]) -> Vec<GeneratedPosition> {
    let mut lines: Vec<u32> = vec![0, 1, 2, 3, u32::MAX];
    // A line taken from the input, so the fuzzer can steer lookups to far lines.
    if let Some(&b) = data.last() {
        lines.push(u32::from(b));
    }
    let mut out = Vec::new();
    for &line in &lines {
        for &column in &COLUMNS {
            out.push(GeneratedPosition { line, column });
        }
    }
    // Around each section start (the boundaries are where index maps translate coordinates).
    for s in index.sections().iter().take(MAX_SECTIONS) {
        let o = s.offset;
        out.push(o);
        out.push(GeneratedPosition {
            line: o.line,
            column: o.column.saturating_sub(1),
        });
        out.push(GeneratedPosition {
            line: o.line,
            column: o.column.saturating_add(1),
        });
        out.push(GeneratedPosition {
            line: o.line.saturating_add(1),
            column: 0,
        });
        out.push(GeneratedPosition {
            line: o.line.saturating_sub(1),
            column: u32::MAX,
        });
    }
    out
}

/// Every query of the index API, on positions derived from the map and the input.
pub fn exercise_index(index: &SourceMapIndex, data: &[u8]) {
    // The fit check, against the input itself as the generated text and against a short line: it must neither
    // panic nor mark a position when it found no stretch that does not fit.
    for text in [data, b"function f(a){return a}\n".as_slice()] {
        if let Ok(r) = sourcemap_core::bundle::fit::check_fit(
            index,
            text,
            Some("85314830-023f-4cf1-a267-535f4e37bb17"),
        ) {
            let _ = r.message();
            if r.verdict != sourcemap_core::bundle::fit::Verdict::Misfit {
                assert!(!r.marks(GeneratedPosition::default()));
            }
        }
    }
    let _ = index.build_all();
    for p in positions(index, data) {
        for bias in BIASES {
            let _ = index.original_position(p, bias);
            if let Ok(Some(hit)) = index.lookup(p, bias) {
                let _ = index.segment_end(&hit);
            }
        }
        let _ = index.all_at(p);
        for section in 0..index.sections().len().min(MAX_SECTIONS) {
            let _ = index.scopes_function_name(section, p);
        }
    }

    // Each segment's own position must find a segment exactly there (greatest lower bound) and in `all_at`.
    let mut seen = Vec::new();
    let walked = index.for_each_segment(|hit| {
        if seen.len() < MAX_SEGMENT_PROBES {
            seen.push(hit.generated);
        }
    });
    if walked.is_ok() {
        for p in seen {
            let hit = index
                .lookup(p, Bias::GreatestLowerBound)
                .expect("the map validated")
                .expect("a segment's own position has a mapping");
            assert_eq!(
                hit.generated, p,
                "lookup at a segment's position lands on it"
            );
            let _ = index.segment_end(&hit);
            let all = index.all_at(p).expect("the map validated");
            assert!(
                all.iter().any(|h| h.generated == p),
                "all_at at a segment's position includes it"
            );
        }
    }

    let sources = index.sources().len().min(MAX_SOURCES) as u32;
    for i in 0..sources {
        let id = SourceId(i);
        let _ = index.source_content(id);
        let _ = index.is_ignored(id);
        if let Ok(reverse) = index.reverse(id) {
            for line in [0, 1, 2, 3, u32::MAX] {
                for column in COLUMNS {
                    for bias in BIASES {
                        let _ = reverse.generated_position(line, column, bias);
                    }
                    let _ = reverse.all_generated_positions(line, Some(column));
                }
                let _ = reverse.all_generated_positions(line, None);
            }
        }
    }

    for section in 0..index.sections().len().min(MAX_SECTIONS) {
        for i in 0..sources.max(1) {
            for (line, column) in [(0, 0), (1, 5), (u32::MAX, u32::MAX)] {
                let _ = index.facebook_function_name(section, SourceId(i), line, column);
            }
        }
        if let Some(Ok(scopes)) = index.scopes(section) {
            let _ = scopes.flattened();
            for (line, column) in [(0, 0), (0, 5), (1, 0), (u32::MAX, u32::MAX)] {
                let _ = scopes.function_name_at(line, column);
            }
        }
    }

    // Metro's RAM modules and segments: positions placed by `map::metro`, looked up in their own files.
    for name in [
        "0.js",
        "1.js",
        "seg-1.js",
        "seg-1_0.js",
        "seg-4294967295_4294967295.js",
    ] {
        let Some(file) = sourcemap_core::internal::map::metro::metro_file(name) else {
            continue;
        };
        for (line, column) in [(0, 0), (1, 5), (u32::MAX, u32::MAX)] {
            let p = sourcemap_core::GeneratedPosition { line, column };
            if let Ok((space, at)) = index.metro_position(file, p) {
                let _ = index.lookup_in(space, at, sourcemap_core::Bias::GreatestLowerBound);
                let _ = index.all_at_in(space, at);
            }
        }
    }
    let _ = index.bundle_file_sections();

    if sourcemap_core::trace::hermes_crash::function_offsets(index).is_ok()
        || index.has_metro_files()
    {
        let crash = r#"{"callstack":[{"CJSModuleOffset":0,"FunctionID":1,"ByteCodeOffset":3},{"SegmentID":0,"FunctionID":0,"ByteCodeOffset":4294967295},{"SegmentID":1,"FunctionID":0,"ByteCodeOffset":1,"SourceURL":"seg-1.js"},{"SegmentID":0,"FunctionID":0,"ByteCodeOffset":1,"SourceURL":"seg-9_2.js"}]}"#;
        if let Ok(lines) = sourcemap_core::trace::hermes_crash::parse_hermes_crash(crash, index) {
            for line in &lines {
                if let sourcemap_core::trace::stack::StackLine::Frame(f) = line {
                    let _ = sourcemap_core::trace::symbolicate::symbolicate_frame(index, f);
                }
            }
        }
    }
}
