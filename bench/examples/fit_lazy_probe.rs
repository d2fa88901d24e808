use sourcemap_core::bundle::fit::check_fit;
use sourcemap_core::{IndexOptions, SourceMapIndex};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let text = std::fs::read(&a[1]).unwrap();
    let map = std::fs::read(&a[2]).unwrap();
    for (lazy, lazy_names) in [(false, false), (true, false), (false, true), (true, true)] {
        let idx = SourceMapIndex::from_bytes_with(map.clone(), IndexOptions { lazy, lazy_names })
            .unwrap();
        let r = check_fit(&idx, &text, None).unwrap();
        println!(
            "lazy={lazy} lazy_names={lazy_names}: {:?} regions={} {:?}",
            r.verdict,
            r.regions.len(),
            r.evidence
        );
    }
}
