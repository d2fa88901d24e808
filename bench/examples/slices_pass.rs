//! Times the lexical pass of `js_slices` alone on a file: `cargo run --release -p sourcemap-bench --example
//! slices_pass FILE [POSITIONS]`.
use std::time::Instant;
fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("FILE");
    let n: usize = args.next().map_or(50, |a| a.parse().unwrap());
    let text = std::fs::read_to_string(path).unwrap();
    let positions: Vec<usize> = (0..n).map(|i| (text.len() / (n + 1)) * (i + 1)).collect();
    for _ in 0..3 {
        let t = Instant::now();
        let levels = sourcemap_core::trace::js_slices::levels_around(&text, &positions);
        println!(
            "{:.1} ms, {} bytes, read: {}",
            t.elapsed().as_secs_f64() * 1e3,
            text.len(),
            levels.is_some()
        );
    }
}
