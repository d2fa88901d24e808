//! Times one map's lazy open against the serde_json floor, in a loop long enough for `perf record`:
//!
//!     cargo run --release -p sourcemap-bench --example open_profile -- fixtures/generated/metro/bundle.js.map 20
use std::time::Instant;

use sourcemap_core::{IndexOptions, SourceMapIndex};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: open_profile MAP [ROUNDS]");
    let rounds: usize = args.next().map_or(10, |n| n.parse().expect("ROUNDS"));
    let bytes = std::fs::read(&path).expect("read the map");
    let mut floor = Vec::new();
    let mut lazy = Vec::new();
    let mut parse = Vec::new();
    // ONLY_LAZY=1: time only the lazy open (for `perf record`); the other columns then read 0.
    let only_lazy = std::env::var_os("ONLY_LAZY").is_some();
    for _ in 0..rounds {
        let mut copy = bytes.clone();
        if only_lazy {
            floor.push(std::time::Duration::ZERO);
            parse.push(std::time::Duration::ZERO);
        } else {
            let t = Instant::now();
            let _: serde::de::IgnoredAny = serde_json::from_slice(&bytes).expect("JSON");
            floor.push(t.elapsed());
            let t = Instant::now();
            let parsed =
                sourcemap_core::internal::map::parse::parse_document(&mut copy).expect("map");
            parse.push(t.elapsed());
            drop(parsed);
        }
        let t = Instant::now();
        let index = SourceMapIndex::from_bytes_with(
            copy,
            IndexOptions {
                lazy: true,
                lazy_names: true,
            },
        )
        .expect("map");
        lazy.push(t.elapsed());
        drop(index);
    }
    floor.sort();
    lazy.sort();
    parse.sort();
    let (f, l) = (floor[rounds / 2], lazy[rounds / 2]);
    println!(
        "median of {rounds}: serde floor {:.1} ms, parse alone {:.1} ms, lazy open {:.1} ms, ratio {:.2}x",
        f.as_secs_f64() * 1e3,
        parse[rounds / 2].as_secs_f64() * 1e3,
        l.as_secs_f64() * 1e3,
        l.as_secs_f64() / f.as_secs_f64()
    );
}
