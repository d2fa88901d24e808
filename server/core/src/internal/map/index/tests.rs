use super::*;
use crate::Bias;

/// Lines read back from a part of the literal are the text's own lines, whatever escapes surround them (`\\n`
/// is a backslash and an `n`, not a line end; `\u2028` is no line end for `str::lines`).
#[test]
fn lines_read_from_parts_of_a_literal_are_the_texts() {
    let mut text = String::new();
    for i in 0..200 {
        let line = match i % 5 {
            0 => format!("let a{i} = \"q\\\\n\";"),
            1 => format!("// \u{2028} é {i} \t tab"),
            2 => String::new(),
            3 => format!("x{i}\r"),
            _ => format!("s = '\\\\' + \"{i}\" // 🎉"),
        };
        text.push_str(&line);
        text.push('\n');
    }
    text.push_str("last line, no newline");
    let raw = serde_json::to_string(&text).unwrap();
    let hash = xxhash_rust::xxh3::xxh3_64(raw.as_bytes());
    let want: Vec<&str> = text.lines().collect();
    for step in [1, 3, 64] {
        let (starts, lines) = content_line_starts(raw.as_bytes(), hash, step).unwrap();
        assert_eq!(lines as usize, want.len());
        for first in 0..want.len() {
            let k = first / step;
            let from = starts[k] as usize;
            let last = (first + 4).min(want.len() - 1);
            let to = starts
                .get(last / step + 1)
                .map_or(raw.len() - 1, |&s| s as usize);
            let part = content_fragment(&raw.as_bytes()[from..to]).unwrap();
            let got: Vec<&str> = part
                .lines()
                .skip(first - k * step)
                .take(last - first + 1)
                .collect();
            assert_eq!(
                got,
                want[first..=last],
                "step {step}, lines {first}..={last}"
            );
        }
    }
    assert!(content_line_starts(raw.as_bytes(), hash ^ 1, 64).is_none());
}

fn lazy(json: serde_json::Value) -> SourceMapIndex {
    SourceMapIndex::from_bytes_with(
        json.to_string().into_bytes(),
        IndexOptions {
            lazy: true,
            ..Default::default()
        },
    )
    .unwrap()
}

/// Names built on first use give the same answers, escapes and trailing commas included.
#[test]
fn lazy_names_answer_as_eager_ones() {
    let map = r#"{"version":3,"sections":[
            {"offset":{"line":0,"column":0},"map":{"version":3,"sources":["a.js"],"names":["x","\"q\"","\u00fc"],"mappings":"AAAAA,CAAAC,CAAAC"}},
            {"offset":{"line":1,"column":0},"map":{"version":3,"sources":["b.js"],"names":["y",],"mappings":"AAAAA"}}]}"#;
    let names = |lazy_names: bool| {
        let index = SourceMapIndex::from_bytes_with(
            map.as_bytes().to_vec(),
            IndexOptions {
                lazy: true,
                lazy_names,
            },
        )
        .unwrap();
        [(0, 0), (0, 1), (0, 2), (1, 0)]
            .map(|(line, column)| {
                let hit = index
                    .lookup(GeneratedPosition { line, column }, Bias::GreatestLowerBound)
                    .unwrap()
                    .unwrap();
                hit.original.unwrap().name.map(str::to_string)
            })
            .to_vec()
    };
    assert_eq!(names(true), names(false));
    assert_eq!(names(true)[1].as_deref(), Some("\"q\""));
    assert_eq!(names(true)[3].as_deref(), Some("y"));
}

#[test]
fn validating_keeps_no_checkpoints_of_valid_sections() {
    let section = |mappings: &str| serde_json::json!({"offset": {"line": 0, "column": 0}, "map": {"version": 3, "sources": ["a.js"], "names": [], "mappings": mappings}});
    let mut good = section("AAAA;AACA");
    let mut bad = section("AAAA,!");
    bad["offset"]["line"] = serde_json::json!(5);
    good["offset"]["line"] = serde_json::json!(0);
    let index = lazy(serde_json::json!({"version": 3, "sections": [good, bad]}));
    let errors = index.validate_all().unwrap_err();
    assert_eq!(errors.0.len(), 1);
    assert!(
        index.compact_if_built(0).is_none(),
        "the valid section was not kept"
    );
    assert_eq!(index.checkpoint_heap_bytes(), 0);
    // The error is remembered; the valid section builds on its first query.
    assert!(index.compact(1).is_err());
    assert!(index.compact(0).is_ok());
    assert_eq!(index.validate_all().unwrap_err().0.len(), 1);
}

fn segments(index: &SourceMapIndex, once: bool) -> Result<Vec<String>, MapError> {
    let mut out = Vec::new();
    let mut f = |h: &MappingHit<'_>| out.push(format!("{:?}", h));
    if once {
        index.for_each_segment_once(&mut f)?;
    } else {
        index.for_each_segment(&mut f)?;
    }
    Ok(out)
}

#[test]
fn one_pass_gives_the_segments_and_the_errors_of_the_index() {
    let map = serde_json::json!({"version": 3, "sections": [
        {"offset": {"line": 0, "column": 0}, "map": {"version": 3, "sources": ["a.js"], "names": ["n"], "mappings": "AAAAA,CAAC;AACA"}},
        {"offset": {"line": 1, "column": 5}, "map": {"version": 3, "sources": ["b.js"], "names": [], "mappings": "AAAA,EAAE"}},
    ]});
    let once = segments(&lazy(map.clone()), true).unwrap();
    assert_eq!(once.len(), 5);
    assert_eq!(once, segments(&lazy(map), false).unwrap());

    // A bad digit: the same located error either way.
    let bad =
        serde_json::json!({"version": 3, "sources": ["a.js"], "names": [], "mappings": "AAAA,!"});
    let a = segments(&lazy(bad.clone()), true).unwrap_err();
    let b = segments(&lazy(bad), false).unwrap_err();
    assert_eq!(a.to_string(), b.to_string());

    // Overlapping sections: section 0 reaches column 9 of line 1, section 1 starts at 1:5.
    let overlap = serde_json::json!({"version": 3, "sections": [
        {"offset": {"line": 0, "column": 0}, "map": {"version": 3, "sources": ["a.js"], "names": [], "mappings": ";SAAA"}},
        {"offset": {"line": 1, "column": 5}, "map": {"version": 3, "sources": ["b.js"], "names": [], "mappings": "AAAA"}},
    ]});
    // Read, not refused (Turbopack writes such maps): the overlap is a located warning, found either way, and a
    // position past the next section's start is that section's.
    for once in [true, false] {
        let index = lazy(overlap.clone());
        // Section 0's segment at 1:9 is shadowed by section 1 (from 1:5): passes over the map leave it out.
        assert_eq!(segments(&index, once).unwrap().len(), 1);
        let warned = index.overlaps();
        assert_eq!(warned.len(), 1, "{warned:?}");
        assert!(
            warned[0].to_string().contains("sections overlap"),
            "{}",
            warned[0]
        );
        assert_eq!(warned[0].location.section, Some(1));
        let at = |column| {
            index
                .lookup(
                    GeneratedPosition { line: 1, column },
                    Bias::GreatestLowerBound,
                )
                .unwrap()
                .and_then(|h| h.original)
                .and_then(|o| o.source_url)
        };
        assert_eq!(at(9), Some("b.js"));
        assert_eq!(at(4), None);
    }
}

/// Shedding contents changes no answer: segments, function maps and errors (with their file offsets) are the
/// same, and each content is read back from the file's bytes — unless those bytes changed.
#[test]
fn shedding_contents_keeps_every_answer_and_reads_contents_from_the_file() {
    let map = serde_json::json!({
        "version": 3,
        "sections": [
            {"offset": {"line": 0, "column": 0}, "map": {
                "version": 3, "sources": ["a.js"], "sourcesContent": ["let \"a\" = 1;\n\tfn();\n"],
                "names": ["fn"], "mappings": "AAAA,EAACA;AACA",
                "x_facebook_sources": [[{"names": ["<global>", "fn"], "mappings": "AAA,CCC"}]]
            }},
            {"offset": {"line": 5, "column": 0}, "map": {
                "version": 3, "sources": ["b.js"], "sourcesContent": ["b();"], "names": [], "mappings": "AAAA;!!!!"
            }}
        ]
    });
    let bytes = map.to_string().into_bytes();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shed.map");
    std::fs::write(&path, &bytes).unwrap();
    let before = lazy(map.clone());
    let mut after = lazy(map.clone());
    after.shed_contents(&path);
    assert!(
        after.buffer().len() < bytes.len() / 2,
        "{}",
        after.buffer().len()
    );
    assert_eq!(
        segments(&before, false).unwrap_err().to_string(),
        segments(&after, false).unwrap_err().to_string()
    );
    assert_eq!(
        before.compact(1).unwrap_err().location.file_offset,
        after.compact(1).unwrap_err().location.file_offset
    );
    assert_eq!(
        format!(
            "{:?}",
            before
                .all_at(GeneratedPosition { line: 0, column: 2 })
                .unwrap()
        ),
        format!(
            "{:?}",
            after
                .all_at(GeneratedPosition { line: 0, column: 2 })
                .unwrap()
        )
    );
    assert_eq!(
        before
            .facebook_function_name(0, SourceId(0), 0, 1)
            .map_err(|e| e.to_string()),
        after
            .facebook_function_name(0, SourceId(0), 0, 1)
            .map_err(|e| e.to_string())
    );
    for id in [SourceId(0), SourceId(1)] {
        let Some(SourceContent::InFile { range, hash }) = after.source_content_ref(id) else {
            panic!("{id:?} is not in the file");
        };
        assert!(after.source_content(id).is_none());
        assert!(after.source(id).has_content());
        let text = content_from_file(&bytes[range.clone()], hash);
        assert_eq!(text.as_deref(), before.source_content(id).as_deref());
        let mut changed = bytes[range].to_vec();
        changed[1] ^= 1;
        assert_eq!(content_from_file(&changed, hash), None);
    }
    // Names and function maps are read back from the file; a file that changed gives none, never others.
    let mut stale = lazy(map);
    stale.shed_contents(&path);
    let text = String::from_utf8(bytes).unwrap();
    std::fs::write(
        &path,
        text.replace(r#""names":["fn"]"#, r#""names":["gn"]"#)
            .replace(r#""<global>","fn""#, r#""<global>","gn""#),
    )
    .unwrap();
    let hits = stale
        .all_at(GeneratedPosition { line: 0, column: 2 })
        .unwrap();
    assert_eq!(hits[0].original.as_ref().unwrap().name, None);
    assert!(stale.facebook_function_name(0, SourceId(0), 0, 1).is_err());
}

#[test]
fn a_cell_is_at_most_56_bytes() {
    assert!(std::mem::size_of::<CompactCell>() <= 56);
}

/// A large section prepared ahead answers as one built on first use; a small map has nothing to prepare.
#[test]
fn large_sections_prepared_ahead_answer_as_built_on_first_use() {
    // Over `MIN_MAPPINGS_BYTES` of mappings: 4,000 lines of 64 segments each (columns +1, original lines +1 a line).
    let line = format!("AACA{}", ",CAAA".repeat(63));
    let mappings = vec![line; 4_000].join(";");
    assert!(mappings.len() >= crate::internal::map::index_cache::MIN_MAPPINGS_BYTES);
    let map = serde_json::json!({
        "version": 3, "sources": ["a.js"], "names": ["f"], "mappings": mappings,
        "x_facebook_sources": [[{"names": ["<global>", "f"], "mappings": "AAA,CCC"}]]
    });
    // Lazy, as the server indexes maps: nothing is built before it is asked for.
    let (prepared, unprepared) = (lazy(map.clone()), lazy(map));
    assert!(prepared.compact_if_built(0).is_none());
    assert_eq!(prepared.decoded_heap().function_maps, 0);
    assert_eq!(prepared.prepare_large_sections(), 1);
    assert!(prepared.compact_if_built(0).is_some());
    assert!(prepared.decoded_heap().function_maps > 0);
    assert!(unprepared.compact_if_built(0).is_none());
    for (line, column) in [(0, 0), (0, 7), (1_999, 63), (3_999, 200), (4_000, 0)] {
        let p = GeneratedPosition { line, column };
        let a = prepared.lookup(p, Bias::GreatestLowerBound).unwrap();
        let b = unprepared.lookup(p, Bias::GreatestLowerBound).unwrap();
        assert_eq!(format!("{a:?}"), format!("{b:?}"), "{p:?}");
    }
    let source = prepared.sections()[0].source_ids()[0];
    for (line, column) in [(0, 0), (0, 2), (1_000, 5)] {
        let name = |i: &SourceMapIndex| i.facebook_function_name(0, source, line, column).unwrap();
        assert_eq!(name(&prepared), name(&unprepared));
    }
    let small =
        serde_json::json!({"version": 3, "sources": ["a.js"], "names": [], "mappings": "AAAA"});
    let small = lazy(small);
    assert_eq!(small.prepare_large_sections(), 0);
    assert!(small.compact_if_built(0).is_none());
}
