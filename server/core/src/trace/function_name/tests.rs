use super::*;
use crate::map::vlq::encode_signed;

/// A map from (generated line/col, original line/col, name) triples, one generated line, one source.
/// (generated line and column, original line and column, name index)
type Seg = ((u32, u32), (u32, u32), Option<u32>);

fn map(segments: &[Seg], names: &[&str]) -> SourceMapIndex {
    let mut mappings = Vec::new();
    let (mut gl, mut gc, mut ol, mut oc, mut n) = (0u32, 0i64, 0i64, 0i64, 0i64);
    let mut first = true;
    for &((line, col), (oline, ocol), name) in segments {
        while gl < line {
            mappings.push(b';');
            gl += 1;
            gc = 0;
            first = true;
        }
        if !first {
            mappings.push(b',');
        }
        first = false;
        encode_signed(col as i64 - gc, &mut mappings);
        encode_signed(0, &mut mappings);
        encode_signed(oline as i64 - ol, &mut mappings);
        encode_signed(ocol as i64 - oc, &mut mappings);
        (gc, ol, oc) = (col as i64, oline as i64, ocol as i64);
        if let Some(name) = name {
            encode_signed(name as i64 - n, &mut mappings);
            n = name as i64;
        }
    }
    let json = serde_json::json!({
        "version": 3, "sources": ["orig.js"], "names": names, "mappings": String::from_utf8(mappings).unwrap(),
    });
    SourceMapIndex::from_bytes(json.to_string().into_bytes()).unwrap()
}

fn answer(
    index: &SourceMapIndex,
    generated: &str,
    original: Option<&str>,
    p: (u32, u32),
) -> Option<ScopeAnswer> {
    answer_shifted(index, generated, 0, original, p)
}

/// [`answer`] with the generated text `shift` lines below the map's lines.
fn answer_shifted(
    index: &SourceMapIndex,
    generated: &str,
    shift: i64,
    original: Option<&str>,
    p: (u32, u32),
) -> Option<ScopeAnswer> {
    let g = FunctionScopes::parse(generated, "b.js", Dialect::Generated).unwrap();
    let o = original.map(|t| FunctionScopes::parse(t, "orig.js", Dialect::Original).unwrap());
    let p = GeneratedPosition {
        line: p.0,
        column: p.1,
    };
    let at = index
        .original_position(p, Bias::GreatestLowerBound)
        .unwrap()
        .unwrap();
    let shift = Shift {
        lines: shift,
        columns: Vec::new(),
    };
    let g = GeneratedCode {
        scopes: &g,
        shift: &shift,
    };
    function_by_scopes(index, p, &at, Some(g), o.as_ref())
}

fn named(name: &str, origin: ScopeOrigin) -> Option<ScopeAnswer> {
    Some(ScopeAnswer {
        function: Some(name.into()),
        origin,
        top_level: false,
    })
}

// orig.js (line 0):  function arrayMap(array, iteratee) { return iteratee(array) }
//                    0         1         2         3         4         5
//                    0123456789012345678901234567890123456789012345678901234567890
const ORIGINAL: &str = "function arrayMap(array, iteratee) { return iteratee(array) }";
// b.js:               function e(n,t){return t(n)}
//                    0123456789012345678901234567
const GENERATED: &str = "function e(n,t){return t(n)}";

fn minified() -> SourceMapIndex {
    map(
        &[
            ((0, 0), (0, 0), None),
            ((0, 9), (0, 9), Some(0)),   // e → arrayMap
            ((0, 11), (0, 18), Some(1)), // n → array
            ((0, 13), (0, 25), Some(2)), // t → iteratee
            ((0, 16), (0, 37), None),    // return
            ((0, 23), (0, 44), Some(2)), // t( → iteratee: the callee, what the old code reported
            ((0, 25), (0, 53), Some(1)),
            ((0, 27), (0, 60), None), // }
        ],
        &["arrayMap", "array", "iteratee"],
    )
}

#[test]
fn the_enclosing_function_not_the_callee() {
    let index = minified();
    // The frame is at the call `t(n)`: its mapping's name is `iteratee`, the function is `arrayMap`.
    assert_eq!(
        answer(&index, GENERATED, None, (0, 23)),
        named("arrayMap", ScopeOrigin::Generated)
    );
    // With the original at hand and the function verified, its declaration names it.
    assert_eq!(
        answer(&index, GENERATED, Some(ORIGINAL), (0, 23)),
        named("arrayMap", ScopeOrigin::Original)
    );
}

#[test]
fn an_unmapped_name_token_falls_back_to_the_original_source() {
    // No segment at `e`: the generated name cannot be trusted.
    let index = map(
        &[
            ((0, 0), (0, 0), None),
            ((0, 23), (0, 44), Some(0)),
            ((0, 27), (0, 60), None),
        ],
        &["iteratee"],
    );
    assert_eq!(answer(&index, GENERATED, None, (0, 23)), None);
    assert_eq!(
        answer(&index, GENERATED, Some(ORIGINAL), (0, 23)),
        named("arrayMap", ScopeOrigin::Original)
    );
}

#[test]
fn a_shifted_text_is_read_on_the_shifted_lines() {
    // The map describes GENERATED; the bundle has two banner lines above it (`--apply-shift` of +2).
    let bannered = format!("/* a */\n/* b */\n{GENERATED}");
    let index = minified();
    assert_eq!(
        answer_shifted(&index, &bannered, 2, None, (0, 23)),
        named("arrayMap", ScopeOrigin::Generated)
    );
    // Read unshifted, the frame's line of the text is the banner: no function there.
    assert_eq!(answer_shifted(&index, &bannered, 0, None, (0, 23)), None);
}

#[test]
fn a_named_segment_one_column_before_the_identifier_is_its_own() {
    // Closure Compiler starts `e`'s segment on the space before it (column 8).
    let segments = |name| {
        [
            ((0, 0), (0, 0), None),
            ((0, 8), (0, 9), name),
            ((0, 23), (0, 44), Some(1)),
            ((0, 27), (0, 60), None),
        ]
    };
    let index = map(&segments(Some(0)), &["arrayMap", "iteratee"]);
    assert_eq!(
        answer(&index, GENERATED, None, (0, 23)),
        named("arrayMap", ScopeOrigin::Generated)
    );
    // Unnamed, the segment there is another token's: `e` may have been renamed, and its name is unknown.
    let index = map(&segments(None), &["arrayMap", "iteratee"]);
    assert_eq!(answer(&index, GENERATED, None, (0, 23)), None);
}

#[test]
fn a_private_names_own_hash_is_not_an_early_segment() {
    // gen: class r{#p(){throw 1}}: the segment at `#` (8) is the whole `#p`'s, named `#priv`; `p` (9) has none.
    let generated = "class r{#p(){throw 1}}";
    let index = map(
        &[
            ((0, 0), (0, 0), None),
            ((0, 6), (0, 6), Some(0)),
            ((0, 8), (0, 15), Some(1)),
            ((0, 13), (0, 25), None),
            ((0, 21), (0, 33), None),
        ],
        &["Parser", "#priv"],
    );
    assert_eq!(answer(&index, generated, None, (0, 13)), None);
}

#[test]
fn a_closing_brace_mapped_to_the_opening_one_does_not_refuse_the_function() {
    // Closure Compiler maps the body's `}` (27) to the same place as its `{` (15): before the frame, but the end
    // only repeats the head. (An inlined function's `}` maps to a place its head does not: refused below.)
    let index = map(
        &[
            ((0, 0), (0, 0), None),
            ((0, 9), (0, 9), Some(0)),
            ((0, 15), (0, 35), None),
            ((0, 16), (0, 37), None),
            ((0, 23), (0, 44), Some(1)),
            ((0, 27), (0, 35), None),
        ],
        &["arrayMap", "iteratee"],
    );
    assert_eq!(
        answer(&index, GENERATED, None, (0, 23)),
        named("arrayMap", ScopeOrigin::Generated)
    );
}

#[test]
fn inlined_code_is_not_named_after_the_function_it_was_inlined_into() {
    // orig: function outer(){ return 1 }  function helper(){ throw x }
    // gen:  function o(){throw x}          (helper's body inlined into outer)
    let original = "function outer(){ return 1 }  function helper(){ throw x }";
    let generated = "function o(){throw x}";
    let index = map(
        &[
            ((0, 0), (0, 0), None),
            ((0, 9), (0, 9), Some(0)),
            ((0, 13), (0, 49), None), // throw → helper's throw
            ((0, 20), (0, 27), None), // } → outer's }
        ],
        &["outer"],
    );
    // Without the original: the last segment maps before the frame, so `outer` is refused.
    assert_eq!(answer(&index, generated, None, (0, 13)), None);
    assert_eq!(
        answer(&index, generated, Some(original), (0, 13)),
        named("helper", ScopeOrigin::Original)
    );
}

#[test]
fn class_members_are_qualified_when_the_class_maps() {
    // orig: class Parser { parse() { throw 1 } }
    // gen:  class r{p(){throw 1}}   (property names kept: `parse`)
    let original = "class Parser { parse() { throw 1 } }";
    let generated = "class r{parse(){throw 1}}";
    let segments = [
        ((0, 0), (0, 0), None),
        ((0, 6), (0, 6), Some(0)),
        ((0, 8), (0, 15), None),
        ((0, 16), (0, 25), None),
        ((0, 24), (0, 33), None),
    ];
    let index = map(&segments, &["Parser"]);
    assert_eq!(
        answer(&index, generated, None, (0, 16)),
        named("Parser.parse", ScopeOrigin::Generated)
    );
    // The class name has no segment: the method alone, unless the original is at hand.
    let index = map(
        &[segments[0], segments[2], segments[3], segments[4]],
        &["Parser"],
    );
    assert_eq!(
        answer(&index, generated, None, (0, 16)),
        named("parse", ScopeOrigin::Generated)
    );
    assert_eq!(
        answer(&index, generated, Some(original), (0, 16)),
        named("Parser.parse", ScopeOrigin::Original)
    );
}

#[test]
fn top_level_code_and_callbacks_have_no_function() {
    // orig: list.forEach(function (x) { throw x }); throw 2
    let original = "list.forEach(function (x) { throw x }); throw 2";
    let generated = "l.forEach(function(x){throw x});throw 2";
    let index = map(
        &[
            ((0, 0), (0, 0), Some(0)),
            ((0, 2), (0, 5), None),
            ((0, 10), (0, 13), None),
            ((0, 22), (0, 28), None),
            ((0, 30), (0, 37), None),
            ((0, 32), (0, 40), None),
        ],
        &["list"],
    );
    let anonymous = |origin, top_level| {
        Some(ScopeAnswer {
            function: None,
            origin,
            top_level,
        })
    };
    assert_eq!(
        answer(&index, generated, Some(original), (0, 22)),
        anonymous(ScopeOrigin::Generated, false)
    );
    assert_eq!(
        answer(&index, generated, Some(original), (0, 32)),
        anonymous(ScopeOrigin::Original, true)
    );
}

/// A source carried by two maps is one text to the cache when its literal's bytes and its file name are the
/// same; a file name that reads it in another dialect, or other bytes, make it another.
#[test]
fn a_source_is_known_by_its_content_and_dialect() {
    let key = |sources: &[&str], contents: &[&str], i: u32| {
        let json = serde_json::json!({
            "version": 3, "sources": sources, "sourcesContent": contents, "names": [], "mappings": "",
        });
        let index = SourceMapIndex::from_bytes(json.to_string().into_bytes()).unwrap();
        TextIdentity::of_content(&index, SourceId(i))
    };
    let lodash = "function a() {}\n";
    let r1 = key(
        &["../node_modules/lodash/lodash.js", "app.js"],
        &[lodash, "x"],
        0,
    );
    let r2 = key(&["webpack://r2/lodash/lodash.js?v=2"], &[lodash], 0);
    assert!(r1.is_some());
    assert_eq!(r1, r2);
    assert_ne!(r1, key(&["lodash.ts"], &[lodash], 0));
    assert_ne!(r1, key(&["lodash.js"], &["function b() {}\n"], 0));
    assert_eq!(r1, key(&["app.js", "lodash.js"], &["x", lodash], 1));
    let without: Option<TextIdentity> = {
        let json =
            serde_json::json!({"version": 3, "sources": ["a.js"], "names": [], "mappings": ""});
        let index = SourceMapIndex::from_bytes(json.to_string().into_bytes()).unwrap();
        TextIdentity::of_content(&index, SourceId(0))
    };
    assert_eq!(without, None);
}
