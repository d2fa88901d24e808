//! Invalid input never panics: arbitrary `mappings` text, and valid maps with random bytes changed, go through
//! parsing, validation and lookups in both directions. Coverage-guided fuzzing of the same surfaces (VLQ, `mappings`,
//! whole maps, stack lines, profiles) is in `fuzz/`, run by `scripts/test`.

use proptest::prelude::*;
use sourcemap_core::{Bias, GeneratedPosition, SourceMapIndex};

fn exercise(bytes: Vec<u8>) {
    for lazy in [false, true] {
        let Ok(index) = SourceMapIndex::from_bytes_with(
            bytes.clone(),
            sourcemap_core::IndexOptions {
                lazy,
                lazy_names: lazy,
            },
        ) else {
            continue;
        };
        for line in 0..4 {
            for column in [0, 1, 7, 1000, u32::MAX] {
                let p = GeneratedPosition { line, column };
                let _ = index.original_position(p, Bias::GreatestLowerBound);
                let _ = index.original_position(p, Bias::LeastUpperBound);
                let _ = index.all_at(p);
            }
        }
        for i in 0..index.sources().len() {
            let id = sourcemap_core::SourceId(i as u32);
            let _ = index.source_content(id);
            if let Ok(r) = index.reverse(id) {
                for line in [0, 1, 5, u32::MAX] {
                    let _ = r.generated_position(line, 0, Bias::LeastUpperBound);
                    let _ = r.all_generated_positions(line, None);
                    let _ = r.all_generated_positions(line, Some(3));
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_mappings_never_panic(mappings in "[A-Za-z0-9+/=,;!]{0,80}", range in proptest::option::of("[A-Za-z;=]{0,8}"), sources in 0usize..3, names in 0usize..3) {
        let mut map = serde_json::json!({
            "version": 3,
            "sources": (0..sources).map(|i| format!("s{i}.js")).collect::<Vec<_>>(),
            "sourcesContent": (0..sources).map(|i| format!("line\\n{i}")).collect::<Vec<_>>(),
            "names": (0..names).map(|i| format!("n{i}")).collect::<Vec<_>>(),
            "mappings": mappings,
        });
        if let Some(r) = range {
            map["rangeMappings"] = r.into();
        }
        exercise(serde_json::to_vec(&map).unwrap());
    }

    #[test]
    fn corrupted_maps_never_panic(edits in proptest::collection::vec((0usize..400, any::<u8>()), 1..6)) {
        let mut bytes = br#"{"version":3,"sections":[{"offset":{"line":0,"column":2},"map":{"version":3,"sources":["a.js",null],"sourcesContent":["x\ny",null],"names":["f"],"mappings":"AAAA,EAACA;CACA","ignoreList":[0]}},{"offset":{"line":3,"column":0},"map":{"version":3,"sourceRoot":"r","sources":["b.js"],"names":[],"mappings":";;AAAA,CAAC"}}],"debugId":"85314830-023f-4cf1-a267-535f4e37bb17"}"#.to_vec();
        for (at, byte) in edits {
            let at = at % bytes.len();
            bytes[at] = byte;
        }
        exercise(bytes);
    }
}
