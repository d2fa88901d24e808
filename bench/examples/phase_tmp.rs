use std::time::Instant;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let mut t = [Vec::new(), Vec::new(), Vec::new()];
    for _ in 0..15 {
        let s = Instant::now();
        let _: serde::de::IgnoredAny = serde_json::from_slice(&bytes).unwrap();
        t[0].push(s.elapsed().as_secs_f64() * 1e3);
        let s = Instant::now();
        let r = sourcemap_core::map::sparse::select_sections(
            &bytes,
            &[sourcemap_core::GeneratedPosition { line: 5, column: 0 }],
        );
        t[1].push(s.elapsed().as_secs_f64() * 1e3);
        assert!(r.is_some());
        let s = Instant::now();
        assert!(std::str::from_utf8(&bytes).is_ok());
        t[2].push(s.elapsed().as_secs_f64() * 1e3);
    }
    for v in &mut t {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    }
    println!(
        "floor {:.1}  skim {:.1} utf8 {:.1}",
        t[0][7], t[1][7], t[2][7]
    );
}
