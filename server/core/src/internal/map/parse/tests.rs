use super::*;

fn parse(text: &str) -> Result<ParsedDocument, String> {
    let mut buf = text.as_bytes().to_vec();
    parse_document(&mut buf).map_err(|e| e.to_string())
}

mod one_pass_matches_the_located_path {
    use super::*;
    use proptest::prelude::*;
    use proptest::strategy::ValueTree;

    /// A JSON fragment: usually what a map holds, sometimes what a broken one does.
    fn string_list() -> impl Strategy<Value = String> {
        let item = prop_oneof![
            30 => "[a-z./]{0,6}".prop_map(|s| format!("\"{s}\"")),
            3 => Just(r#""\u00e9\"q\"""#.to_string()),
            3 => Just("null".to_string()),
            1 => Just("7".to_string()),
        ];
        prop::collection::vec(item, 0..4).prop_map(|v| format!("[{}]", v.join(",")))
    }

    fn regular_map() -> impl Strategy<Value = String> {
        (
            prop_oneof![30 => Just("3"), 1 => Just("\"3\""), 1 => Just("2")],
            string_list(),
            string_list(),
            prop_oneof![
                30 => "[A-Za-z0-9+/,;]{0,12}".prop_map(|m| format!("\"{m}\"")),
                1 => Just("5".to_string()),
            ],
            prop::option::of(string_list()),
            prop::option::of(prop_oneof![
                20 => Just("[]"),
                1 => Just("[0]"),
                1 => Just("[9]"),
                1 => Just("{}")
            ]),
            prop::option::of(prop_oneof![
                Just("\"85314830-023f-4cf1-a267-535f4e37bb17\""),
                Just("\"nope\"")
            ]),
            prop::option::of(Just(r#"[[{"names":["<global>"],"mappings":"AAA"}]]"#)),
        )
            .prop_map(
                |(version, sources, names, mappings, contents, ignore, debug_id, fb)| {
                    let mut fields = vec![
                        format!("\"version\":{version}"),
                        format!("\"sources\":{sources}"),
                        format!("\"names\":{names}"),
                        format!("\"mappings\":{mappings}"),
                    ];
                    if let Some(c) = contents {
                        fields.push(format!("\"sourcesContent\":{c}"));
                    }
                    if let Some(i) = ignore {
                        fields.push(format!("\"ignoreList\":{i}"));
                    }
                    if let Some(d) = debug_id {
                        fields.push(format!("\"debugId\":{d}"));
                    }
                    if let Some(f) = fb {
                        fields.push(format!("\"x_facebook_sources\":{f}"));
                    }
                    format!("{{{}}}", fields.join(","))
                },
            )
    }

    /// A section at `line` (sections come in order unless `out_of_order`).
    fn section() -> impl Strategy<Value = (String, u32, bool)> {
        (
            regular_map(),
            prop_oneof![
                40 => Just(""),
                1 => Just(",\"url\":\"x.map\""),
                1 => Just("!nomap"),
                1 => Just("!array"),
                1 => Just("!maparray"),
            ],
            0u32..20,
            prop::bool::weighted(0.03),
        )
            .prop_map(|(map, extra, column, out_of_order)| {
                let section = match extra {
                    "!nomap" => "{OFFSET}".to_string(),
                    "!array" => format!("[{{\"line\":0}},{map}]"),
                    // Read by position this would be a valid map: it must be refused on both paths.
                    "!maparray" => {
                        r#"{OFFSET,"map":[3,null,null,["a.js"],null,[],"AAAA"]}"#.to_string()
                    }
                    _ => format!("{{OFFSET,\"map\":{map}{extra}}}"),
                };
                (section, column, out_of_order)
            })
    }

    fn document() -> impl Strategy<Value = String> {
        prop_oneof![
            1 => regular_map(),
            3 => prop::collection::vec(section(), 0..5).prop_map(|sections| {
                let sections: Vec<String> = sections
                    .into_iter()
                    .enumerate()
                    .map(|(i, (text, column, out_of_order))| {
                        let line = if out_of_order { 0 } else { 2 * i };
                        let offset = format!("\"offset\":{{\"line\":{line},\"column\":{column}}}");
                        text.replace("OFFSET", &offset)
                    })
                    .collect();
                format!("{{\"version\":3,\"file\":\"app.js\",\"sections\":[{}]}}", sections.join(","))
            }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(600))]
        #[test]
        fn on_valid_and_broken_maps(text in document()) {
            let fast = parse_document_with(&mut text.clone().into_bytes(), true, true);
            let located = parse_document_with(&mut text.clone().into_bytes(), false, true);
            prop_assert_eq!(format!("{fast:?}"), format!("{located:?}"), "{}", text);
        }
    }

    #[test]
    fn the_generator_makes_valid_index_maps_too() {
        // Without valid ones the property above would only compare error paths.
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let valid = (0..300)
            .filter(|_| {
                let text = document().new_tree(&mut runner).unwrap().current();
                text.contains("sections")
                    && parse_document(&mut text.into_bytes()).is_ok_and(|d| !d.maps.is_empty())
            })
            .count();
        assert!(
            valid >= 10,
            "only {valid} valid index maps with sections in 300"
        );
    }
}

/// Debug IDs as producers write them: `debugId` (ECMA-426's proposal), `debug_id` (`sentry-cli sourcemaps
/// inject`, Sentry's bundler plugins), both, upper case, without dashes; anything else is no ID.
#[test]
fn debug_ids_in_every_spelling() {
    let id = "85314830-023f-4cf1-a267-535f4e37bb17";
    let cases: [(&str, Option<&str>, usize); 8] = [
        (
            r#""debugId":"85314830-023f-4cf1-a267-535f4e37bb17""#,
            Some(id),
            0,
        ),
        (
            r#""debug_id":"85314830-023f-4cf1-a267-535f4e37bb17""#,
            Some(id),
            0,
        ),
        (
            r#""debug_id":"85314830-023f-4cf1-a267-535f4e37bb17","debugId":"85314830-023f-4cf1-a267-535f4e37bb17""#,
            Some(id),
            0,
        ),
        (
            r#""debugId":"85314830-023F-4CF1-A267-535F4E37BB17""#,
            Some("85314830-023F-4CF1-A267-535F4E37BB17"),
            0,
        ),
        (
            r#""debug_id":"85314830023f4cf1a267535f4e37bb17""#,
            Some("85314830023f4cf1a267535f4e37bb17"),
            0,
        ),
        (
            r#""debugId":"85314830-023f-4cf1-a267-535f4e37bb17","debug_id":"00000000-023f-4cf1-a267-535f4e37bb17""#,
            Some(id),
            1,
        ),
        (r#""debug_id":"nope""#, None, 1),
        (
            r#""debug_id":"85314830-023f-4cf1-a267-535f4e37bb1""#,
            None,
            1,
        ),
    ];
    for (member, expected, warnings) in cases {
        for map in [
            format!(r#"{{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAA",{member}}}"#),
            format!(r#"{{"version":3,"sections":[],{member}}}"#),
        ] {
            let doc = parse(&map).unwrap();
            assert_eq!(doc.debug_id.as_deref(), expected, "{map}");
            assert_eq!(doc.warnings.len(), warnings, "{map}: {:?}", doc.warnings);
        }
    }
}

/// Above `PARALLEL_SECTIONS_FROM` the fast path checks sections on a second thread: the same document, warnings
/// in the same order, and the same errors as the located path.
#[test]
fn large_maps_read_on_two_threads_as_on_one() {
    let document = |broken: Option<usize>| {
        let sections: Vec<String> = (0..1500)
                .map(|i| {
                    let version = if Some(i) == broken { 2 } else { 3 };
                    format!(
                        r#"{{"offset":{{"line":{i},"column":0}},"map":{{"version":{version},"sources":["s{i}.js"],"names":["n{i}","m"],"mappings":"AAAAA,{pad}","debugId":"not-a-uuid-{i}"}}}}"#,
                        pad = "CAAC,".repeat(150)
                    )
                })
                .collect();
        format!(
            r#"{{"version":3,"debugId":"nope","sections":[{}]}}"#,
            sections.join(",")
        )
    };
    for broken in [None, Some(1400)] {
        let text = document(broken);
        assert!(text.len() >= PARALLEL_SECTIONS_FROM);
        assert!(crate::internal::map::fast_read::read(text.as_bytes(), |_| {}).is_some());
        for keep_names in [false, true] {
            let fast = parse_document_with(&mut text.clone().into_bytes(), true, keep_names);
            let located = parse_document_with(&mut text.clone().into_bytes(), false, keep_names);
            assert_eq!(format!("{fast:?}"), format!("{located:?}"));
            match (broken, fast) {
                (None, Ok(doc)) => {
                    assert_eq!(doc.maps.len(), 1500);
                    assert_eq!(doc.warnings.len(), 1501);
                    assert!(doc.warnings[0].to_string().contains("\"nope\""));
                    assert_eq!(doc.maps[1499].names_count, 2);
                }
                (Some(_), Err(e)) => {
                    assert!(e.to_string().contains("sections[1400].map.version"))
                }
                (_, other) => panic!("{other:?}"),
            }
        }
    }
}

#[test]
fn plain_offsets_are_read_without_serde_and_the_rest_with_it() {
    assert_eq!(plain_offset(r#"{"line":0,"column":12}"#), Some((0, 12)));
    assert_eq!(plain_offset(r#"{"column":12,"line":3}"#), Some((3, 12)));
    assert_eq!(
        plain_offset(r#"{"line":2147483647,"column":0}"#),
        Some((i32::MAX as u32, 0))
    );
    for other in [
        r#"{"line":2147483648,"column":0}"#,
        r#"{"line":01,"column":0}"#,
        r#"{"line":1.0,"column":0}"#,
        r#"{"line":-1,"column":0}"#,
        r#"{"line":1,"column":}"#,
        r#"{ "line":1,"column":2}"#,
        r#"{"column":2,"line":1,"line":3}"#,
        r#"{"line":1,"line":2,"column":3}"#,
    ] {
        assert_eq!(plain_offset(other), None, "{other}");
    }
    // What serde reads instead: the same offset, or the same error as before.
    let doc = parse(r#"{"version":3,"sections":[{"offset":{"column":2,"line":1.0},"map":{"version":3,"sources":[],"names":[],"mappings":""}}]}"#).unwrap();
    assert_eq!(doc.maps[0].offset, (1, 2));
}

#[test]
fn strips_bom_and_xssi_prefix() {
    let doc = parse("\u{feff})]}'\n{\"version\":3,\"sources\":[],\"mappings\":\"\"}").unwrap();
    assert_eq!(doc.maps.len(), 1);
}

#[test]
fn errors_name_their_field() {
    let err = parse(r#"{"version":3,"sources":["a",4],"mappings":""}"#).unwrap_err();
    assert!(err.contains("sources[1]"), "{err}");
    let err = parse(r#"{"version":3,"sections":[{"offset":{"line":0,"column":0},"map":{"version":3,"sources":[],"mappings":3}}]}"#).unwrap_err();
    assert!(err.contains("sections[0].map.mappings"), "{err}");
    let err = parse(r#"{"version":3,"sources":[],"mappings":""#).unwrap_err();
    assert!(err.contains("ends too early"), "{err}");
}

#[test]
fn the_one_pass_reading_of_sections_accepts_only_objects() {
    // serde's derived structs read arrays by position: these would pass as valid maps if nothing checked.
    let section = r#"{"offset":{"line":0,"column":0},"map":{"version":3,"sources":["a.js"],"names":["x"],"mappings":"AAAAA"}}"#;
    let ok = parse(&format!(r#"{{"version":3,"sections":[{section}]}}"#)).unwrap();
    assert_eq!(ok.maps.len(), 1);
    assert_eq!(ok.maps[0].names.get(0), Some("x"));
    let as_array = r#"[3,null,null,["a.js"],null,["x"],"AAAAA"]"#;
    let err = parse(&format!(
        r#"{{"version":3,"sections":[{{"offset":{{"line":0,"column":0}},"map":{as_array}}}]}}"#
    ))
    .unwrap_err();
    assert!(
        err.contains("sections[0].map") && err.contains("must be an object"),
        "{err}"
    );
    let err = parse(r#"{"version":3,"sections":[[{"line":0,"column":0},{"version":3,"sources":[],"mappings":""}]]}"#)
            .unwrap_err();
    assert!(
        err.contains("sections[0]") && err.contains("a section must be an object"),
        "{err}"
    );
    // Names with escapes and unusual sources read the same as through the located path.
    let escaped = parse(
            r#"{"version":3,"sections":[{"offset":{"line":0,"column":0},"map":{"version":3,"sources":["a\u00e9.js",null],"names":["\"q\"","\u00fc"],"mappings":"AAAAA"}}]}"#,
        )
        .unwrap();
    let m = &escaped.maps[0];
    assert_eq!((m.names.get(0), m.names.get(1)), (Some("\"q\""), Some("ü")));
    assert_eq!(m.sources, [Some("aé.js".into()), None]);
}

#[test]
fn trailing_commas_are_accepted_with_a_warning() {
    let doc = parse(r#"{"version":3,"sources":["a",],"mappings":"",}"#).unwrap();
    assert_eq!(doc.warnings.len(), 2);
    assert_eq!(doc.maps[0].sources, vec![Some("a".into())]);
}

#[test]
fn mappings_are_not_copied() {
    let doc = parse(r#"{"version":3,"sources":[],"mappings":"AAAA;AACA"}"#).unwrap();
    assert!(matches!(doc.maps[0].mappings, TextRef::Buffer(_)));
}

#[test]
fn source_root_is_joined_with_a_slash() {
    assert_eq!(apply_source_root(Some("theroot"), "a.js"), "theroot/a.js");
    assert_eq!(apply_source_root(Some("theroot/"), "a.js"), "theroot/a.js");
    assert_eq!(apply_source_root(Some(""), "a.js"), "a.js");
    assert_eq!(apply_source_root(None, "a.js"), "a.js");
}
