use super::*;
use crate::bundle::columns::utf16_table;
use crate::bundle::columns::LineIndex;
use crate::bundle::fit::text::FitText;
use crate::map::vlq::encode_signed;
use crate::GeneratedPosition;

/// A flat map with one segment (generated line, column, original line, column, name) per entry, source `a.js`.
fn map(segments: &[(u32, u32, u32, u32, Option<&str>)], debug_id: Option<&str>) -> SourceMapIndex {
    let mut names: Vec<&str> = Vec::new();
    let mut mappings = Vec::new();
    let (mut line, mut prev) = (0u32, [0i64; 5]);
    for &(l, c, ol, oc, name) in segments {
        while line < l {
            mappings.push(b';');
            line += 1;
            prev[0] = 0;
        }
        if mappings.last().is_some_and(|&b| b != b';') {
            mappings.push(b',');
        }
        let n = name.map(|n| {
            names.iter().position(|&m| m == n).unwrap_or_else(|| {
                names.push(n);
                names.len() - 1
            }) as i64
        });
        let fields = [i64::from(c), 0, i64::from(ol), i64::from(oc)];
        for (i, f) in fields.iter().enumerate() {
            encode_signed(f - prev[i], &mut mappings);
            prev[i] = *f;
        }
        if let Some(n) = n {
            encode_signed(n - prev[4], &mut mappings);
            prev[4] = n;
        }
    }
    let mut json = serde_json::json!({
        "version": 3, "sources": ["a.js"], "names": names,
        "mappings": String::from_utf8(mappings).unwrap(),
    });
    if let Some(id) = debug_id {
        json["debugId"] = id.into();
    }
    SourceMapIndex::from_bytes(serde_json::to_vec(&json).unwrap()).unwrap()
}

/// Segments at every token start of `code` (identifiers, punctuation), on line `line`.
fn at_tokens(code: &str, line: u32) -> Vec<(u32, u32, u32, u32, Option<&'static str>)> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut units = 0u32;
    let mut prev_word = false;
    for (i, ch) in code.char_indices() {
        let word = is_word(bytes[i]);
        if !(ch.is_whitespace() || word && prev_word) {
            out.push((line, units, 0, i as u32, None));
        }
        prev_word = word;
        units += ch.len_utf16() as u32;
    }
    out
}

const CODE: &str = "function o(r){return{id:r.id,lines:r.items.map(e=>s(e))}}function s({price:r,qty:e}){return r*e}";

#[test]
fn weights_follow_the_rates() {
    let (fit, misfit) = (MID_IDENTIFIER_IF_FIT, MID_IDENTIFIER_IF_MISFIT);
    assert!((MID_IDENTIFIER_WEIGHT - (misfit / fit).ln()).abs() < 1e-12);
    assert!((TOKEN_START_WEIGHT - ((1.0 - misfit) / (1.0 - fit)).ln()).abs() < 1e-12);
}

#[test]
fn segments_at_token_starts_fit() {
    let m = map(&at_tokens(CODE, 0), None);
    let r = check_fit(&m, CODE.as_bytes(), None).unwrap();
    assert_eq!(r.verdict, Verdict::Fits, "{r:?}");
    assert_eq!(r.evidence.mid_identifier, 0);
}

#[test]
fn a_banner_is_a_whole_line_shift() {
    let m = map(&at_tokens(CODE, 0), None);
    let text = format!("/*! banner one */\n/*! banner two */\n/*! three */\n{CODE}\n");
    let r = check_fit(&m, text.as_bytes(), None).unwrap();
    assert_eq!(r.verdict, Verdict::Misfit, "{r:?}");
    assert_eq!(r.shift_lines, Some(3), "{r:?}");
    assert!(r.message().contains("+3 lines"), "{}", r.message());
    assert!(r.marks(GeneratedPosition { line: 3, column: 0 }));
}

#[test]
fn a_banner_on_the_line_is_a_column_shift_of_that_line() {
    // A one-line bundle (CODE three times), its map made before `/*! v1 */` was put at its start; a second line
    // the banner left alone fits as it is and answers.
    let line = format!("{CODE}{CODE}{CODE}");
    let mut segments = at_tokens(&line, 0);
    segments.extend(at_tokens(CODE, 1));
    let m = map(&segments, None);
    let text = format!("/*! v1 */{line}\n{CODE}\n");
    let r = check_fit(&m, text.as_bytes(), None).unwrap();
    assert_eq!(r.verdict, Verdict::Misfit, "{r:?}");
    assert_eq!(r.shift_lines, None);
    assert_eq!(
        r.column_shifts,
        [ColumnShift {
            line: 0,
            columns: 9,
            added: Some("/*! v1 */".into())
        }]
    );
    let message = r.message();
    assert!(
        message.contains("line 1 once its columns are shifted by +9 columns: `/*! v1 */`"),
        "{message}"
    );
    assert!(r.marks(GeneratedPosition {
        line: 0,
        column: 40
    }));
    assert!(!r.marks(GeneratedPosition { line: 1, column: 4 }));
}

#[test]
fn columns_counted_in_bytes_are_named_and_the_line_start_answers() {
    // `—` is 1 UTF-16 unit and 3 UTF-8 bytes: a map counting bytes places every later segment 2 columns right.
    let line = format!("var t=\"— \";{CODE}{CODE}");
    let dash = line.find('—').unwrap() as u32;
    let segments: Vec<_> = at_tokens(&line, 0)
        .into_iter()
        .map(|(l, c, ol, oc, n)| {
            let bytes = line
                .char_indices()
                .nth(c as usize)
                .map_or(line.len(), |(b, _)| b);
            (l, bytes as u32, ol, oc, n)
        })
        .collect();
    let m = map(&segments, None);
    let r = check_fit(&m, line.as_bytes(), None).unwrap();
    assert_eq!(r.verdict, Verdict::Misfit, "{r:?}");
    assert_eq!(r.byte_columns, [(0, dash)]);
    assert!(
        r.message().contains("columns in UTF-8 bytes"),
        "{}",
        r.message()
    );
    assert!(!r.marks(GeneratedPosition {
        line: 0,
        column: dash
    }));
    assert!(r.marks(GeneratedPosition {
        line: 0,
        column: dash + 1
    }));
}

#[test]
fn text_inserted_midway_is_found_from_where_it_starts() {
    // The map of CODE three times; the text has 7 characters inserted in the second copy.
    let line = format!("{CODE}{CODE}{CODE}");
    let mut segments = at_tokens(&line, 0);
    segments.retain(|s| s.1 > 0);
    segments.insert(0, (0, 0, 0, 0, None));
    let m = map(&segments, None);
    let at = CODE.len() + 20;
    let text = format!("{}let x=1;{}", &line[..at], &line[at..]);
    let r = check_fit(&m, text.as_bytes(), None).unwrap();
    assert_eq!(r.verdict, Verdict::Misfit, "{r:?}");
    let first = r.first_bad().unwrap();
    // Found from the end of the last stretch confirmed to fit (~30 segments at most before the insertion),
    // never after it.
    assert!(
        first.column as usize >= at - 80 && first.column as usize <= at,
        "{r:?}"
    );
    assert!(!r.marks(GeneratedPosition {
        line: 0,
        column: 10
    }));
    assert!(r.marks(GeneratedPosition {
        line: 0,
        column: (2 * CODE.len()) as u32
    }));
    assert_eq!(r.shift_lines, None);
}

#[test]
fn columns_are_utf16_units() {
    // Two astral characters (two units each) and an accented one before the code.
    let code = format!("var t=\"😀😀é\";{CODE}");
    let m = map(&at_tokens(&code, 0), None);
    let r = check_fit(&m, code.as_bytes(), None).unwrap();
    assert_eq!(r.verdict, Verdict::Fits, "{r:?}");
    // Read as bytes, the same columns land inside identifiers.
    let mut bytes_as_units = at_tokens(&code, 0);
    for s in &mut bytes_as_units {
        s.1 += 4;
    }
    let m = map(&bytes_as_units, None);
    assert_eq!(
        check_fit(&m, code.as_bytes(), None).unwrap().verdict,
        Verdict::Misfit
    );
}

#[test]
fn names_on_their_token_count_for_the_fit() {
    let code = "a.items.map(b)";
    let segments = [
        (0, 0, 0, 0, None),
        (0, 2, 0, 6, Some("items")),
        (0, 8, 0, 12, Some("map")),
    ];
    let r = check_fit(&map(&segments, None), code.as_bytes(), None).unwrap();
    assert_eq!(r.evidence.on_its_name, 2, "{r:?}");
}

#[test]
fn past_the_end_and_beyond_the_text() {
    let mut segments = at_tokens(CODE, 0);
    segments.extend((0..10).map(|i| (1, i * 3, 0, 0, None)));
    segments.extend(
        (0..10)
            .map(|i| (0, 500 + i, 0, 0, None))
            .collect::<Vec<_>>(),
    );
    segments.sort_by_key(|s| (s.0, s.1));
    let r = check_fit(&map(&segments, None), CODE.as_bytes(), None).unwrap();
    assert_eq!(r.evidence.past_line_end, 10);
    assert_eq!(r.evidence.beyond_text, 10);
    assert_eq!(r.verdict, Verdict::Misfit, "{r:?}");
}

#[test]
fn debug_ids_that_differ_condemn_the_pair() {
    let m = map(
        &at_tokens(CODE, 0),
        Some("85314830-023f-4cf1-a267-535f4e37bb17"),
    );
    let r = check_fit(
        &m,
        CODE.as_bytes(),
        Some("85314830-023f-4cf1-a267-535f4e37bb17"),
    )
    .unwrap();
    assert_eq!(r.verdict, Verdict::Fits);
    let r = check_fit(
        &m,
        CODE.as_bytes(),
        Some("00000000-023f-4cf1-a267-535f4e37bb17"),
    )
    .unwrap();
    assert_eq!(r.verdict, Verdict::Misfit);
    assert!(r.message().contains("debug ID"), "{}", r.message());
    assert!(r.marks(GeneratedPosition::default()));
}

#[test]
fn bytecode_and_maps_without_sources_are_not_judged() {
    let m = map(&at_tokens(CODE, 0), None);
    let mut hbc = 0x1F19_03C1_03BC_1FC6u64.to_le_bytes().to_vec();
    hbc.extend_from_slice(&[0, 1, 2, 3]);
    let r = check_fit(&m, &hbc, None).unwrap();
    assert_eq!(r.verdict, Verdict::Unknown);
    assert!(!r.marks(GeneratedPosition::default()));
    let one_field: SourceMapIndex = SourceMapIndex::from_bytes(
        br#"{"version":3,"sources":[],"names":[],"mappings":"A,C,E"}"#.to_vec(),
    )
    .unwrap();
    assert_eq!(
        check_fit(&one_field, b"xyz", None).unwrap().verdict,
        Verdict::Unknown
    );
}

/// Hermes bytecode is judged by the map's function offsets: equal, it fits; another compile's or none (a map of
/// JavaScript), every position of the file is withheld with the reason; another version is not checked.
#[test]
fn bytecode_is_judged_by_its_function_offsets() {
    use crate::bundle::hermes_bytecode::synthetic;
    let hbc = synthetic(89, 0, &[10, 20, 30]);
    let with = |offsets: &str| {
        let json = format!(
            r#"{{"version":3,"sources":["index.android.bundle"],"names":[],"mappings":"AAAA,UAAC","x_hermes_function_offsets":{offsets}}}"#
        );
        SourceMapIndex::from_bytes(json.into_bytes()).unwrap()
    };
    let own = check_fit(&with(r#"{"0":[0,10,30]}"#), &hbc, None).unwrap();
    assert_eq!(own.verdict, Verdict::Fits);
    assert!(own.bytecode.as_ref().is_some_and(|b| b.fits()));
    assert!(own
        .withheld(GeneratedPosition {
            line: 0,
            column: 35
        })
        .is_none());
    let other = check_fit(&with(r#"{"0":[0,12,30]}"#), &hbc, None).unwrap();
    assert_eq!(other.verdict, Verdict::Misfit);
    for column in [0, 10, 1 << 20] {
        let why = other
            .withheld(GeneratedPosition { line: 0, column })
            .unwrap();
        assert!(
            why.contains("function 1 starts at bytecode offset 10 in this file, 12 in the map"),
            "{why}"
        );
    }
    assert_eq!(other.first_bad(), Some(GeneratedPosition::default()));
    let js = check_fit(&map(&at_tokens(CODE, 0), None), &hbc, None).unwrap();
    assert_eq!(js.verdict, Verdict::Misfit);
    assert!(
        js.message().starts_with("this map describes JavaScript"),
        "{}",
        js.message()
    );
    let newer = check_fit(&with(r#"{"0":[0,10,30]}"#), &synthetic(97, 0, &[10]), None).unwrap();
    assert_eq!(newer.verdict, Verdict::Unknown);
    assert!(
        newer
            .unknown_because
            .as_deref()
            .unwrap()
            .starts_with("unknown bytecode version 97"),
        "{:?}",
        newer.unknown_because
    );
    // The near check says the same.
    let near = check_fit_near_above(
        &with(r#"{"0":[0,12,30]}"#),
        &hbc,
        None,
        &[GeneratedPosition::default()],
        0,
    )
    .unwrap();
    assert_eq!(near, other);
}

#[test]
fn the_check_near_frames_says_what_the_whole_check_says() {
    let line = format!("{CODE}{CODE}{CODE}");
    let at = CODE.len() + 20;
    let inserted = format!("{}let x=1;{}", &line[..at], &line[at..]);
    let banner = format!("/*! one */\n/*! two */\n{line}\n");
    let many_lines = (0..400).map(|_| CODE).collect::<Vec<_>>().join("\n");
    fn segments(code: &str) -> Vec<(u32, u32, u32, u32, Option<&'static str>)> {
        code.lines()
            .enumerate()
            .flat_map(|(i, l)| at_tokens(l, i as u32))
            .collect::<Vec<_>>()
    }
    let cases = [
        (segments(&line), line.clone()),
        (segments(&line), inserted),
        (segments(&line), banner),
        (segments(&many_lines), many_lines.clone()),
        (segments(&many_lines), format!("x\n{many_lines}")),
    ];
    for (segments, text) in cases {
        let m = map(&segments, None);
        let whole = check_fit(&m, text.as_bytes(), None).unwrap();
        let frames: Vec<GeneratedPosition> = segments
            .iter()
            .step_by(segments.len().div_ceil(24))
            .map(|s| GeneratedPosition {
                line: s.0,
                column: s.1,
            })
            .collect();
        for set in frames.chunks(1).chain([&frames[..]]) {
            let near = check_fit_near_above(&m, text.as_bytes(), None, set, 0).unwrap();
            assert_eq!(near.verdict, whole.verdict, "{set:?}");
            assert_eq!(near.shift_lines, whole.shift_lines);
            assert_eq!(near.message(), whole.message());
            for &p in &frames {
                assert_eq!(near.withheld(p), whole.withheld(p));
            }
            if whole.verdict == Verdict::Fits {
                assert_ne!(near.checked, Checked::Whole);
                assert!(near.evidence.segments <= whole.evidence.segments);
            }
        }
    }
}

#[test]
fn a_utf16_table_entry_every_step() {
    let line = "é".repeat(100);
    let table = utf16_table(line.as_bytes());
    assert_eq!(table[1], 2 * crate::bundle::columns::TABLE_STEP);
    let mut t = FitText::new(line.as_bytes());
    assert_eq!(t.byte_of(0, line.as_bytes(), 33), Some(66));
    assert_eq!(t.byte_of(0, line.as_bytes(), 100), Some(200));
    assert_eq!(t.byte_of(0, line.as_bytes(), 101), None);
}

/// A text's lines read through its shared index land where they land when the text is indexed by its reader:
/// every line (CRLF, empty, ASCII, two- and four-byte characters), every column and one past the end.
#[test]
fn a_shared_line_index_lands_as_the_readers_own() {
    let text = "a\r\néé😀x\n\nplain line\r\n😀😀😀 tail é\nlast";
    let index = LineIndex::new(text.as_bytes());
    let (mut own, mut shared) = (
        FitText::new(text.as_bytes()),
        FitText::shared(text.as_bytes(), &index),
    );
    assert_eq!(own.line_count(), shared.line_count());
    for n in 0..own.line_count() {
        assert_eq!(own.line(n), shared.line(n));
        for column in 0..=own.line(n).len() as u32 + 1 {
            assert_eq!(
                own.landing(n as u32, column, None),
                shared.landing(n as u32, column, None),
                "line {n} column {column}"
            );
        }
    }
    let map = map(&[(0, 0, 0, 0, None), (1, 2, 0, 0, None)], None);
    let positions = [
        GeneratedPosition { line: 1, column: 2 },
        GeneratedPosition { line: 3, column: 3 },
    ];
    assert_eq!(
        frames_evidence(&map, text.as_bytes(), Some(&index), &positions),
        frames_evidence(&map, text.as_bytes(), None, &positions)
    );
}
