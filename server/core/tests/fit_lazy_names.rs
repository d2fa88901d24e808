//! The fit check's verdict never depends on how the index was opened (issue 65, item 1): the CLI opens maps with
//! their names left in the file (`lazy_names`), `validate` and the editor with them read, and a name on its own token
//! is evidence of fit. swc's map of Next.js's webpack server chunk `app/api/total/route.js` puts 389 of its 6,597
//! segments inside minified names all through a map that fits; without its 455 names on their tokens the check saw
//! a misfit from 1:12889 and `symbolicate` withheld 4 frames that `validate` and Mozilla `source-map` answer.
//!
//! Every bundle of the committed framework corpora beside its `.map`, checked with the names read and left in the
//! file: the same verdict, regions and message.

use std::path::{Path, PathBuf};

use sourcemap_core::bundle::fit::{check_fit, Verdict};
use sourcemap_core::{IndexOptions, SourceMapIndex};

fn maps_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.file_name().is_some_and(|n| n == "node_modules") {
            continue;
        }
        if p.is_dir() {
            maps_under(&p, out);
        } else if p.extension().is_some_and(|x| x == "map") {
            out.push(p);
        }
    }
}

fn report(map: &[u8], text: &[u8], lazy_names: bool) -> Option<String> {
    let index = SourceMapIndex::from_bytes_with(
        map.to_vec(),
        IndexOptions {
            lazy: lazy_names,
            lazy_names,
        },
    )
    .ok()?;
    let r = check_fit(&index, text, None).ok()?;
    // The counts of a map that fits may differ (names are read only when a misfit is in sight); what is said may not.
    Some(format!(
        "{:?} {:?} {:?} {}",
        r.verdict,
        r.regions,
        r.first_bad(),
        r.message()
    ))
}

#[test]
fn the_verdict_is_the_same_with_names_read_or_left_in_the_file() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut maps = Vec::new();
    for corpus in ["nextjs/corpus", "spa-frameworks/corpus", "electron/corpus"] {
        maps_under(&fixtures.join(corpus), &mut maps);
    }
    let (mut compared, mut differ) = (0, Vec::new());
    for map in &maps {
        let bundle = map.with_extension("");
        let (Ok(text), Ok(bytes)) = (std::fs::read(&bundle), std::fs::read(map)) else {
            continue;
        };
        let eager = report(&bytes, &text, false);
        let lazy = report(&bytes, &text, true);
        compared += 1;
        if eager != lazy {
            differ.push(format!(
                "{}:\n  names read: {eager:?}\n  names left: {lazy:?}",
                bundle.display()
            ));
        }
    }
    assert!(compared >= 60, "only {compared} bundles beside their maps");
    assert!(differ.is_empty(), "{}", differ.join("\n"));

    // The chunk that showed it: it fits, whichever way it is opened.
    let route = fixtures.join("nextjs/corpus/next-webpack/.next/server/app/api/total/route.js");
    let (text, map) = (
        std::fs::read(&route).unwrap(),
        std::fs::read(route.with_extension("js.map")).unwrap(),
    );
    for lazy_names in [false, true] {
        let index = SourceMapIndex::from_bytes_with(
            map.clone(),
            IndexOptions {
                lazy: lazy_names,
                lazy_names,
            },
        )
        .unwrap();
        let r = check_fit(&index, &text, None).unwrap();
        assert_eq!(r.verdict, Verdict::Fits, "{}", r.message());
        assert!(r.evidence.on_its_name > 400, "{:?}", r.evidence);
    }
}
