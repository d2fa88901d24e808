//! A bundle's lines (the fit check's and the editor's `LineIndex`, `bundle/columns.rs`): where each line starts and
//! which lines are not ASCII, against the way it was done before in the same run — `memchr` per newline after a
//! counting pass, then each line checked for non-ASCII bytes on its own. On the real Metro dev build (1.4 million
//! lines of ~40 bytes), the 22 MB one-line bundle and the Metro build with a non-ASCII character every 50 lines.

use std::path::Path;

use sourcemap_core::bundle::columns::{
    line_starts, line_starts_memchr, tables_line_by_line, LineIndex,
};

use crate::{ms, ratio, time};

/// The index as built before: starts by `memchr`, every line checked (the baseline).
fn line_by_line(bytes: &[u8]) -> usize {
    let starts = line_starts_memchr(bytes);
    tables_line_by_line(bytes, &starts).len() + starts.len()
}

pub fn run(metro_real: &Path, samples: usize) {
    println!("\n### A bundle's lines: line starts and non-ASCII lines (`LineIndex`)\n");
    let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
    if let Ok(b) = std::fs::read(metro_real.join("index.bundle")) {
        let mut marked = Vec::with_capacity(b.len() + b.len() / 1000);
        for (i, line) in b.split_inclusive(|&c| c == b'\n').enumerate() {
            if i % 50 == 0 {
                marked.extend_from_slice("/*é*/".as_bytes());
            }
            marked.extend_from_slice(line);
        }
        inputs.push(("real Metro dev build".into(), b));
        inputs.push(("the same, `é` every 50 lines".into(), marked));
    }
    if let Ok(b) = std::fs::read("target/bench-one-line/one-line.js") {
        inputs.push(("one-line bundle (26 libraries)".into(), b));
    }
    if inputs.is_empty() {
        println!(
            "(skipped: neither target/bench-metro-real nor target/bench-one-line is built; see docs/PERFORMANCE.md)"
        );
        return;
    }
    println!("| input | size, lines | before: memchr + line by line | `line_starts` alone, before → now | `LineIndex::new` now | before ÷ now |");
    println!("|---|---|---:|---:|---:|---:|");
    for (name, bytes) in inputs {
        let lines = line_starts(&bytes).len() - 1;
        assert_eq!(line_starts(&bytes), line_starts_memchr(&bytes));
        let before = time(samples, || line_by_line(&bytes));
        let starts_before = time(samples, || line_starts_memchr(&bytes));
        let starts_now = time(samples, || line_starts(&bytes));
        let now = time(samples, || LineIndex::new(&bytes));
        println!(
            "| {name} | {:.1} MB, {lines} | {} | {} → {} | {} | {} |",
            bytes.len() as f64 / 1e6,
            ms(before),
            ms(starts_before),
            ms(starts_now),
            ms(now),
            ratio(before, now)
        );
    }
}
