//! Random lookups on one map, ours against the `sourcemap` crate's `lookup_token`, in a loop long enough for
//! `perf record`:
//!
//!     cargo run --release -p sourcemap-bench --example lookup_profile -- fixtures/generated/minified/lib.min.js 1000000
//!
//! `REPS=N` (default 3): rounds, ours and theirs alternating, best of each kept. `ONLY_OURS=1`: ours alone.
use std::time::Instant;

use sourcemap_core::{Bias, GeneratedPosition, SourceMapIndex};

fn main() {
    let mut args = std::env::args().skip(1);
    let bundle_path = args.next().expect("usage: lookup_profile BUNDLE [N]");
    let n: u64 = args.next().map_or(1_000_000, |v| v.parse().expect("N"));
    let bundle = std::fs::read_to_string(&bundle_path).expect("bundle");
    let bytes = std::fs::read(format!("{bundle_path}.map")).expect("map");
    let widths: Vec<u64> = bundle.lines().map(|l| l.len().max(1) as u64).collect();
    // xorshift: the same positions every run.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move |below: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % below
    };
    let positions: Vec<GeneratedPosition> = (0..n)
        .map(|_| {
            let line = next(widths.len() as u64);
            let column = next(widths[line as usize]);
            GeneratedPosition {
                line: line as u32,
                column: column as u32,
            }
        })
        .collect();
    let ours = SourceMapIndex::from_bytes(bytes.clone()).expect("our index");
    let theirs = sourcemap::decode_slice(&bytes).expect("sourcemap crate");
    let theirs = match theirs {
        sourcemap::DecodedMap::Index(i) => {
            sourcemap::DecodedMap::Regular(i.flatten().expect("flatten"))
        }
        // Regular, or Hermes (a map with `x_facebook_sources`, which wraps the same decoded map).
        other => other,
    };
    let only_ours = std::env::var_os("ONLY_OURS").is_some();
    // Interleaved repetitions, best of each: this VM's timings move ±30 % between runs.
    let reps: usize = std::env::var("REPS").map_or(3, |v| v.parse().expect("REPS"));
    let (mut ours_t, mut theirs_t) = (std::time::Duration::MAX, std::time::Duration::MAX);
    let (mut found, mut found_theirs) = (0u64, 0u64);
    for _ in 0..reps {
        let t = Instant::now();
        found = 0;
        for p in &positions {
            found += u64::from(matches!(
                ours.lookup(*p, Bias::GreatestLowerBound),
                Ok(Some(_))
            ));
        }
        ours_t = ours_t.min(t.elapsed());
        if only_ours {
            continue;
        }
        let t = Instant::now();
        found_theirs = 0;
        for p in &positions {
            found_theirs += u64::from(theirs.lookup_token(p.line, p.column).is_some());
        }
        theirs_t = theirs_t.min(t.elapsed());
    }
    if only_ours {
        println!(
            "ours {:.2} M/s ({found} found)",
            n as f64 / ours_t.as_secs_f64() / 1e6
        );
        return;
    }
    println!(
        "ours {:.2} M/s ({found} found), sourcemap {:.2} M/s ({found_theirs} found), ratio {:.2}x (best of {reps})",
        n as f64 / ours_t.as_secs_f64() / 1e6,
        n as f64 / theirs_t.as_secs_f64() / 1e6,
        theirs_t.as_secs_f64() / ours_t.as_secs_f64()
    );
}
