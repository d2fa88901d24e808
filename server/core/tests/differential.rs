//! Differential tests against the `sourcemap` crate (getsentry/rust-sourcemap) on generated maps, where the two
//! agree by design: its `lookup_token` returns the greatest token at or before a position even on an earlier line
//! (mozilla and we never leave the line), and it has its own order among tied segments. So the maps here have
//! strictly increasing columns on each line, and a query is compared when our greatest-lower-bound lookup finds a
//! segment on the query's line. Its index maps are compared through `flatten()`, because its
//! `SourceMapIndex::lookup_token` reports section-relative generated positions.

use proptest::prelude::*;
use serde_json::json;
use sourcemap_core::internal::map::vlq::encode_signed;
use sourcemap_core::{Bias, GeneratedPosition, SourceMapIndex};

/// Per line, (column step ≥ 1, optional (source, line, column, name)).
type Line = Vec<(u32, Option<(u32, u32, u32, Option<u32>)>)>;

fn encode(lines: &[Line]) -> String {
    let mut out = Vec::new();
    let (mut src, mut ol, mut oc, mut nm) = (0i64, 0i64, 0i64, 0i64);
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push(b';');
        }
        for (j, (step, original)) in line.iter().enumerate() {
            if j > 0 {
                out.push(b',');
            }
            encode_signed(i64::from(*step), &mut out);
            if let Some((s, l, c, n)) = original {
                encode_signed(i64::from(*s) - src, &mut out);
                encode_signed(i64::from(*l) - ol, &mut out);
                encode_signed(i64::from(*c) - oc, &mut out);
                (src, ol, oc) = (i64::from(*s), i64::from(*l), i64::from(*c));
                if let Some(n) = n {
                    encode_signed(i64::from(*n) - nm, &mut out);
                    nm = i64::from(*n);
                }
            }
        }
    }
    String::from_utf8(out).unwrap()
}

fn lines_strategy() -> impl Strategy<Value = Vec<Line>> {
    prop::collection::vec(
        prop::collection::vec(
            (
                1u32..5,
                prop::option::weighted(
                    0.9,
                    (0u32..3, 0u32..40, 0u32..30, prop::option::of(0u32..4)),
                ),
            ),
            0..15,
        ),
        1..8,
    )
}

fn flat(lines: &[Line]) -> serde_json::Value {
    json!({
        "version": 3,
        "sources": ["a.js", "b.js", "c.js"],
        "names": ["n0", "n1", "n2", "n3"],
        "mappings": encode(lines),
    })
}

fn compare(
    ours: &SourceMapIndex,
    theirs: &sourcemap::DecodedMap,
    max_line: u32,
) -> Result<usize, TestCaseError> {
    let mut compared = 0;
    for line in 0..max_line {
        for column in 0..70 {
            let p = GeneratedPosition { line, column };
            let Some(hit) = ours.lookup(p, Bias::GreatestLowerBound).unwrap() else {
                continue;
            };
            let token = theirs.lookup_token(line, column);
            prop_assert!(token.is_some(), "sourcemap found nothing at {:?}", p);
            let token = token.unwrap();
            prop_assert_eq!(
                (token.get_dst_line(), token.get_dst_col()),
                (hit.generated.line, hit.generated.column)
            );
            match hit.original {
                None => prop_assert!(!token.has_source(), "1-field segment at {:?}", p),
                Some(o) => {
                    prop_assert_eq!(token.get_source(), o.source_url);
                    prop_assert_eq!(
                        (token.get_src_line(), token.get_src_col()),
                        (o.line, o.column)
                    );
                    prop_assert_eq!(token.get_name(), o.name);
                }
            }
            compared += 1;
        }
    }
    Ok(compared)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn flat_maps_agree_with_the_sourcemap_crate(lines in lines_strategy()) {
        let bytes = serde_json::to_vec(&flat(&lines)).unwrap();
        let ours = SourceMapIndex::from_bytes(bytes.clone()).unwrap();
        let theirs = sourcemap::decode_slice(&bytes).unwrap();
        compare(&ours, &theirs, lines.len() as u32 + 1)?;
    }

    #[test]
    fn index_maps_agree_with_the_sourcemap_crate(parts in prop::collection::vec(lines_strategy(), 1..4)) {
        // Each section starts on a fresh line after the previous one's last line.
        let mut sections = Vec::new();
        let mut line = 0u32;
        for lines in &parts {
            sections.push(json!({"offset": {"line": line, "column": 0}, "map": flat(lines)}));
            line += lines.len() as u32;
        }
        let bytes = serde_json::to_vec(&json!({"version": 3, "sections": sections})).unwrap();
        let ours = SourceMapIndex::from_bytes(bytes.clone()).unwrap();
        // Its `SourceMapIndex::lookup_token` returns section-relative generated positions; its flattened map does not.
        let theirs = match sourcemap::decode_slice(&bytes).unwrap() {
            sourcemap::DecodedMap::Index(i) => sourcemap::DecodedMap::Regular(i.flatten().unwrap()),
            other => other,
        };
        compare(&ours, &theirs, line + 1)?;
    }
}
