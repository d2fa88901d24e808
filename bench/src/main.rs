//! `sourcemap-bench`: one table per fixture, every figure a ratio against a baseline measured in the same run.
//!
//! ```text
//! cargo run --release -p sourcemap-bench -- [--quick] [--out fixtures/generated] [--samples N]
//! ```
//! Fixtures (made by `sourcemap-fixtures`, deterministic, written to `--out` when missing): a Metro-shaped index map
//! (16,500 sections, ~10M segments), the same content as one flat map, and a one-line minified map of 1M segments.
//! `--quick` uses small fixtures (for CI: the benchmark runs, nothing is asserted about time).
//!
//! Baselines: `serde_json` parsing the same bytes into `IgnoredAny` (the floor: reading the JSON once), the
//! `sourcemap` crate (parse, lookups, memory) and `oxc_sourcemap` (parse, flat maps only). Times are medians.
//! Memory is measured with a counting global allocator: live heap bytes held by each structure.

mod editor;
mod editor_hovers;
mod fit;
mod lines;
mod links;
mod one_line;
mod pipeline;
mod profile;
mod seen_again;
mod today;
mod warm_sdk;
mod worker_restart;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;
use sourcemap_core::internal::map::measure::{live_bytes, CountingAllocator};
use sourcemap_core::{Bias, GeneratedPosition, IndexOptions, SourceId, SourceMapIndex};
use sourcemap_fixtures::{metro, minified, MetroParams, Rng};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

#[derive(Parser)]
struct Args {
    /// Small fixtures: check that everything runs.
    #[arg(long)]
    quick: bool,
    #[arg(long, default_value = "fixtures/generated")]
    out: PathBuf,
    /// Timing samples per measurement (median reported).
    #[arg(long, default_value_t = 5)]
    samples: usize,
    /// Random lookups per lookup measurement.
    #[arg(long, default_value_t = 1_000_000)]
    lookups: usize,
    /// Only the function-scope table (frames' function names), not the map fixtures.
    #[arg(long)]
    scopes_only: bool,
    /// Only the editor at Metro scale (a 50 MB bundle opened over LSP: first hover, hover latency, memory,
    /// symbolicate), not the other fixtures.
    #[arg(long)]
    editor_only: bool,
    /// Only the one-line bundle's rows (`symbolicate` of a few frames in a 22 MB line: time and peak memory).
    #[arg(long)]
    one_line_only: bool,
    /// Only `documentLink` on 2.9 MB and 10 MB one-line bundles, and a hover sent while it runs (issue 56).
    #[arg(long)]
    links_only: bool,
    /// Only a pipeline worker started again after SIGKILL on the real Metro build: its first event, with the index
    /// cache and without (issue 66).
    #[arg(long)]
    restart_only: bool,
    /// Only a bundle's lines (`LineIndex`: line starts and non-ASCII lines) against the line-by-line way, on the
    /// real Metro build and the one-line bundle.
    #[arg(long)]
    lines_only: bool,
    /// Only the many-libraries row (`symbolicate` of 50 frames in a 22 MB unminified bundle vs metro-symbolicate).
    #[arg(long)]
    many_only: bool,
    /// Only the crash-pipeline rows (`symbolicate --ndjson`: events/s, one job and every core, vs metro-symbolicate).
    #[arg(long)]
    pipeline: bool,
    /// Only the warm real-SDK events against the naive trace-mapping pipeline (issue 56; also part of --pipeline).
    #[arg(long)]
    warm_sdk_only: bool,
    /// Only the editor on the real Metro build after 1,000 hovers across its modules (issue 44; the build made by
    /// `node fixtures/metro-scale/make.mjs`), not the generated Metro-scale rows.
    #[arg(long)]
    hovers_only: bool,
    /// Where the real Metro build is (`index.bundle`, `index.bundle.map`).
    #[arg(long, default_value = editor_hovers::DEFAULT_DIR)]
    metro_real: PathBuf,
    /// Only the fit check's rows (each fixture, and the hostile pairs).
    #[arg(long)]
    fit_only: bool,
    /// Only the profile rows (a long Hermes recording made from a recorded one in fixtures/profiles).
    #[arg(long)]
    profile_only: bool,
    /// Only the hover rows into a source edited since the build (a 10,000-line source, edited and not).
    #[arg(long)]
    today_only: bool,
    /// Only the composition rows of real minified bundles with non-ASCII lines (fixtures/roundtrip's builds).
    #[arg(long)]
    explore_only: bool,
    /// The recorded Hermes profile the long recording is made of, and its map (default: fixtures/profiles' Hermes
    /// bytecode recording of the esbuild inventory workload).
    #[arg(long, requires = "profile_map")]
    profile_seed: Option<PathBuf>,
    #[arg(long)]
    profile_map: Option<PathBuf>,
    /// The `sourcemap-ls` binary for whole-process measurements (default: target/release/sourcemap-ls).
    #[arg(long)]
    bin: Option<PathBuf>,
}

struct Fixture {
    name: &'static str,
    map: PathBuf,
    bundle: PathBuf,
    index_map: bool,
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time<T>(samples: usize, mut f: impl FnMut() -> T) -> Duration {
    median(
        (0..samples)
            .map(|_| {
                let t = Instant::now();
                black_box(f());
                t.elapsed()
            })
            .collect(),
    )
}

/// Time of `f` over inputs prepared outside the timed region (and dropped outside it too).
fn time_with_input<I, T>(
    samples: usize,
    mut prepare: impl FnMut() -> I,
    mut f: impl FnMut(&I) -> T,
) -> Duration {
    median(
        (0..samples)
            .map(|_| {
                let input = prepare();
                let t = Instant::now();
                let out = f(&input);
                let elapsed = t.elapsed();
                drop(black_box(out));
                drop(input);
                elapsed
            })
            .collect(),
    )
}

/// Time of `f` consuming an input prepared outside the timed region; what `f` returns is dropped outside it.
fn time_consuming<I, T>(
    samples: usize,
    mut prepare: impl FnMut() -> I,
    mut f: impl FnMut(I) -> T,
) -> Duration {
    median(
        (0..samples)
            .map(|_| {
                let input = prepare();
                let t = Instant::now();
                let out = f(input);
                let elapsed = t.elapsed();
                drop(black_box(out));
                elapsed
            })
            .collect(),
    )
}

/// Live heap bytes held by what `build` returns.
fn held<T>(build: impl FnOnce() -> T) -> (usize, T) {
    let before = live_bytes();
    let value = build();
    (live_bytes().saturating_sub(before), value)
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn ratio(a: Duration, b: Duration) -> String {
    format!("{:.2}×", a.as_secs_f64() / b.as_secs_f64())
}

fn ensure_fixtures(args: &Args) -> Vec<Fixture> {
    let dir = if args.quick {
        args.out.join("quick")
    } else {
        args.out.clone()
    };
    let marker = dir.join("minified/lib.min.js.map");
    if !marker.exists() {
        eprintln!("generating fixtures in {} …", dir.display());
        let params = if args.quick {
            MetroParams {
                modules: 400,
                mean_segments: 300,
                huge_modules: 1,
                ..MetroParams::small(1)
            }
        } else {
            MetroParams {
                seed: 1,
                modules: 16_500,
                mean_segments: 600,
                huge_modules: 8,
                sources_content: false,
                facebook_sources: true,
            }
        };
        let g = metro(&params);
        let write = |sub: &str, name: &str, bytes: &[u8]| {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
            std::fs::write(dir.join(sub).join(name), bytes).unwrap();
        };
        write("metro", "bundle.js", g.bundle.as_bytes());
        write("metro", "bundle.js.map", &g.index_map);
        write("metro-flat", "bundle.js", g.bundle.as_bytes());
        write("metro-flat", "bundle.js.map", &g.flat_map);
        let (bundle, map) = minified(1, if args.quick { 100_000 } else { 1_000_000 }, 60);
        write("minified", "lib.min.js", bundle.as_bytes());
        write("minified", "lib.min.js.map", &map);
    }
    vec![
        Fixture {
            name: "Metro index map (one section per module)",
            map: dir.join("metro/bundle.js.map"),
            bundle: dir.join("metro/bundle.js"),
            index_map: true,
        },
        Fixture {
            name: "Metro flat map (same content)",
            map: dir.join("metro-flat/bundle.js.map"),
            bundle: dir.join("metro-flat/bundle.js"),
            index_map: false,
        },
        Fixture {
            name: "One-line minified map",
            map: dir.join("minified/lib.min.js.map"),
            bundle: dir.join("minified/lib.min.js"),
            index_map: false,
        },
    ]
}

/// Random generated positions inside the bundle's lines.
fn positions(bundle: &str, n: usize, seed: u64) -> Vec<GeneratedPosition> {
    let widths: Vec<u32> = bundle.lines().map(|l| l.len() as u32).collect();
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let line = rng.below(widths.len() as u64) as u32;
            let column = rng.below(u64::from(widths[line as usize].max(1))) as u32;
            GeneratedPosition { line, column }
        })
        .collect()
}

fn row(label: &str, ours: &str, baseline: &str, ratio: &str) {
    println!("| {label} | {ours} | {baseline} | {ratio} |");
}

fn run_fixture(args: &Args, f: &Fixture, bin: &Path) {
    let bytes = std::fs::read(&f.map).unwrap();
    let bundle = std::fs::read_to_string(&f.bundle).unwrap();
    let text = std::str::from_utf8(&bytes).unwrap();
    let index = SourceMapIndex::from_bytes(bytes.clone()).unwrap();
    let mut segments = 0u64;
    for i in 0..index.sections().len() {
        segments += index.compact(i).unwrap().segment_count();
    }
    println!("\n### {}\n", f.name);
    println!(
        "{} bytes of JSON, {} sections, {} segments, `mappings` {} bytes ({:.2} B/segment)\n",
        bytes.len(),
        index.sections().len(),
        segments,
        index.mappings_bytes(),
        index.mappings_bytes() as f64 / segments as f64
    );
    println!("| measure | sourcemap-ls | baseline | ratio |");
    println!("|---|---|---|---|");
    let s = args.samples;

    // Open: our index (fully validated, and lazy) against reading the JSON once.
    let floor = time(s, || {
        serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).unwrap()
    });
    let eager = time_consuming(
        s,
        || bytes.clone(),
        |b| SourceMapIndex::from_bytes(b).unwrap(),
    );
    let lazy = time_consuming(
        s,
        || bytes.clone(),
        |b| {
            SourceMapIndex::from_bytes_with(
                b,
                IndexOptions {
                    lazy: true,
                    lazy_names: true,
                },
            )
            .unwrap()
        },
    );
    row(
        "open, validated (÷ serde_json IgnoredAny)",
        &ms(eager),
        &ms(floor),
        &ratio(eager, floor),
    );
    row(
        "open, lazy (checkpoints on first touch) (÷ serde floor)",
        &ms(lazy),
        &ms(floor),
        &ratio(lazy, floor),
    );
    fit::fixture_rows(bin, &f.map, &f.bundle, &index, &bundle, eager, s);
    let theirs = time(s, || match sourcemap::decode_slice(&bytes).unwrap() {
        sourcemap::DecodedMap::Index(i) => sourcemap::DecodedMap::Regular(i.flatten().unwrap()),
        other => other,
    });
    row(
        "open vs `sourcemap` crate parse (+flatten for index maps)",
        &ms(eager),
        &ms(theirs),
        &ratio(eager, theirs),
    );
    if !f.index_map {
        let oxc = time(s, || {
            oxc_sourcemap::SourceMap::from_json_string(text).unwrap()
        });
        row(
            "open vs `oxc_sourcemap` parse",
            &ms(eager),
            &ms(oxc),
            &ratio(eager, oxc),
        );
    } else {
        row(
            "open vs `oxc_sourcemap`",
            "—",
            "cannot read index maps",
            "—",
        );
    }

    // Memory: what each holds per segment.
    let (ours_held, ours_index) = held(|| SourceMapIndex::from_bytes(bytes.clone()).unwrap());
    let mappings_held = ours_index.mappings_bytes() + ours_index.checkpoint_heap_bytes();
    // (Maps with `x_facebook_sources` decode as its Hermes variant, which wraps the same decoded map.)
    let (theirs_held, theirs_map) = held(|| match sourcemap::decode_slice(&bytes).unwrap() {
        sourcemap::DecodedMap::Index(i) => sourcemap::DecodedMap::Regular(i.flatten().unwrap()),
        other => other,
    });
    let per = |b: usize| format!("{:.2} B/segment", b as f64 / segments as f64);
    row(
        "mappings held (VLQ + checkpoints) vs `sourcemap` crate, whole map",
        &per(mappings_held),
        &per(theirs_held),
        &format!("{:.3}", mappings_held as f64 / theirs_held as f64),
    );
    row(
        "mappings held ÷ VLQ bytes",
        &format!("{mappings_held} B"),
        &format!("{} B", ours_index.mappings_bytes()),
        &format!(
            "{:.3}",
            mappings_held as f64 / ours_index.mappings_bytes() as f64
        ),
    );
    row(
        "everything held (file buffer, names, sources…)",
        &per(ours_held),
        &per(theirs_held),
        &format!("{:.3}", ours_held as f64 / theirs_held as f64),
    );

    // Random lookups, single thread. Ours and theirs alternate, five rounds, and the best round of each is kept:
    // on this VM one pass moves ±30 % with the neighbours, and a median of passes run back to back compared two
    // different moments.
    let qs = positions(&bundle, args.lookups, 7);
    let (mut ours_t, mut theirs_t) = (Duration::MAX, Duration::MAX);
    for _ in 0..5 {
        ours_t = ours_t.min(time(1, || {
            let mut found = 0u32;
            for p in &qs {
                if let Ok(Some(_)) = ours_index.lookup(*p, Bias::GreatestLowerBound) {
                    found += 1;
                }
            }
            found
        }));
        theirs_t = theirs_t.min(time(1, || {
            let mut found = 0u32;
            for p in &qs {
                if theirs_map.lookup_token(p.line, p.column).is_some() {
                    found += 1;
                }
            }
            found
        }));
    }
    // Our answer carries the source's URL and the name; the crate's token resolves them when asked. The same
    // answer from both: the token asked for its source and name too (another row; the goal is the one above).
    let (mut ours_named_t, mut theirs_named_t) = (Duration::MAX, Duration::MAX);
    for _ in 0..5 {
        ours_named_t = ours_named_t.min(time(1, || {
            let mut chars = 0usize;
            for p in &qs {
                if let Ok(Some(hit)) = ours_index.lookup(*p, Bias::GreatestLowerBound) {
                    if let Some(o) = hit.original {
                        chars += o.source_url.map_or(0, str::len) + o.name.map_or(0, str::len);
                    }
                }
            }
            chars
        }));
        theirs_named_t = theirs_named_t.min(time(1, || {
            let mut chars = 0usize;
            for p in &qs {
                if let Some(t) = theirs_map.lookup_token(p.line, p.column) {
                    chars += t.get_source().map_or(0, str::len) + t.get_name().map_or(0, str::len);
                }
            }
            chars
        }));
    }
    let per_s = |d: Duration| format!("{:.2} M/s", qs.len() as f64 / d.as_secs_f64() / 1e6);
    row(
        "random lookups/s (warm, best of 5 alternating rounds) vs `sourcemap` `lookup_token`",
        &per_s(ours_t),
        &per_s(theirs_t),
        &ratio(theirs_t, ours_t),
    );
    row(
        "the same, both answers with the source's URL and the name (the token's `get_source`, `get_name`)",
        &per_s(ours_named_t),
        &per_s(theirs_named_t),
        &ratio(theirs_named_t, ours_named_t),
    );
    // Cold: a lazily opened index, each section's checkpoints built on first touch, counted in.
    let cold = time_consuming(
        s.min(3),
        || bytes.clone(),
        |b| {
            let idx = SourceMapIndex::from_bytes_with(
                b,
                IndexOptions {
                    lazy: true,
                    lazy_names: true,
                },
            )
            .unwrap();
            let mut found = 0u32;
            for p in &qs {
                if let Ok(Some(_)) = idx.lookup(*p, Bias::GreatestLowerBound) {
                    found += 1;
                }
            }
            found
        },
    );
    row(
        "random lookups/s, cold (lazy open + first touch included)",
        &per_s(cold),
        &per_s(theirs_t),
        &ratio(theirs_t, cold),
    );

    // Reverse: the first query builds the source's reverse index; later ones search it.
    let mut rng = Rng::new(3);
    let source = SourceId(rng.below(index.sources().len() as u64) as u32);
    let first = time_with_input(
        s,
        || SourceMapIndex::from_bytes(bytes.clone()).unwrap(),
        |idx| {
            idx.reverse(source)
                .unwrap()
                .generated_position(10, 0, Bias::LeastUpperBound)
                .map(|e| e.generated)
        },
    );
    let r = ours_index.reverse(source).unwrap();
    let n = 100_000;
    let later = time(s, || {
        let mut found = 0u32;
        for i in 0..n {
            if r.generated_position(i % 500, i % 40, Bias::GreatestLowerBound)
                .is_some()
            {
                found += 1;
            }
        }
        found
    });
    row(
        "reverse: first query (builds that source's index)",
        &ms(first),
        "",
        "",
    );
    row(
        "reverse: following queries",
        &format!("{:.3} µs", later.as_secs_f64() * 1e6 / f64::from(n)),
        "",
        "",
    );

    // Whole process: symbolicate 50 frames, cold, vs metro-symbolicate.
    let trace: String = positions(&bundle, 50, 11)
        .iter()
        .map(|p| {
            format!(
                "    at f (http://localhost:8081/index.bundle?platform=ios:{}:{})\n",
                p.line + 1,
                p.column + 1
            )
        })
        .collect();
    symbolicate_row(
        bin,
        &f.map,
        &trace,
        s,
        "symbolicate 50 frames, whole process, cold",
        "",
    );
    // LSP: initialize → didOpen → first hover answered, over stdio (the bundle read from disk, as for an unsynced file).
    let hover = (0..s.min(3))
        .map(|_| lsp_first_hover(bin, &f.bundle))
        .collect();
    row(
        "LSP start → initialize → first hover (bundle read from disk, no didOpen), over stdio",
        &ms(median(hover)),
        "",
        "",
    );
    composition_rows(f, bin);
}

/// One row: `sourcemap-ls symbolicate MAP < trace`, whole process (median of up to 3), against metro-symbolicate
/// 0.84.6 (once) when `fixtures/metro-reference` is installed. `goal` is appended to the ratio cell.
fn symbolicate_row(bin: &Path, map: &Path, trace: &str, samples: usize, label: &str, goal: &str) {
    let map_arg = map.to_string_lossy().into_owned();
    let ours = time(samples.min(3), || {
        run_with_stdin(Command::new(bin).args(["symbolicate", &map_arg]), trace)
    });
    let metro_js =
        Path::new("fixtures/metro-reference/node_modules/metro-symbolicate/src/index.js");
    if metro_js.exists() {
        let theirs = time(1, || {
            run_with_stdin(Command::new("node").arg(metro_js).arg(&map_arg), trace)
        });
        row(
            &format!("{label}, vs metro-symbolicate 0.84.6"),
            &ms(ours),
            &ms(theirs),
            &format!("{}{goal}", ratio(theirs, ours)),
        );
    } else {
        row(
            label,
            &ms(ours),
            "metro-symbolicate not installed",
            &format!("—{goal}"),
        );
    }
}

/// Wall time and peak resident memory of a whole process, by `/usr/bin/time`.
fn time_and_peak(cmd: &[&str]) -> Option<(Duration, u64)> {
    let started = Instant::now();
    let out = Command::new("/usr/bin/time")
        .arg("-f")
        .arg("peak-kb %M")
        .args(cmd)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .ok()?;
    let elapsed = started.elapsed();
    if !out.status.success() {
        return None;
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let kb = stderr
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("peak-kb "))?
        .trim()
        .parse::<u64>()
        .ok()?;
    Some((elapsed, kb << 10))
}

/// `explore --json` against source-map-explorer 2.5.3 (`fixtures/composition/run-sme.mjs`, its API with its default
/// rules) on the same bundle and map: whole process, and peak resident memory.
fn composition_rows(f: &Fixture, bin: &Path) {
    composition_rows_of(&f.bundle, &f.map, bin);
}

fn composition_rows_of(bundle: &Path, map: &Path, bin: &Path) {
    let (bundle, map) = (bundle.to_string_lossy(), map.to_string_lossy());
    let ours = time_and_peak(&[&bin.to_string_lossy(), "explore", &bundle, &map, "--json"]);
    let sme_script = Path::new("fixtures/composition/run-sme.mjs");
    let theirs = if sme_script.exists() {
        time_and_peak(&[
            "node",
            "--max-old-space-size=8192",
            &sme_script.to_string_lossy(),
            &bundle,
            &map,
        ])
    } else {
        None
    };
    let mb = |b: u64| format!("{:.0} MB", b as f64 / 1048576.0);
    match (ours, theirs) {
        (Some((ot, om)), Some((tt, tm))) => {
            row(
                "explore --json, whole process, vs source-map-explorer 2.5.3",
                &ms(ot),
                &ms(tt),
                &ratio(tt, ot),
            );
            row(
                "explore: peak resident memory vs source-map-explorer",
                &mb(om),
                &mb(tm),
                &format!("{:.3}", om as f64 / tm as f64),
            );
        }
        (Some((ot, om)), None) => row(
            "explore --json, whole process (source-map-explorer not installed or failed)",
            &format!("{} / {}", ms(ot), mb(om)),
            "—",
            "—",
        ),
        _ => row("explore --json", "failed", "", ""),
    }
}

fn run_with_stdin(cmd: &mut Command, input: &str) -> bool {
    use std::io::Write;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait().unwrap().success()
}

/// Process start → `initialize` → first hover answered (the bundle read from disk, as for an unsynced file).
fn lsp_first_hover(bin: &Path, bundle: &Path) -> Duration {
    let started = Instant::now();
    let mut lsp = editor::Lsp::start(bin, bundle.parent().unwrap(), true);
    let uri = editor::uri_of(bundle);
    lsp.request(
        "textDocument/hover",
        editor::hover_params(&uri, GeneratedPosition { line: 5, column: 4 }),
    );
    started.elapsed()
}

/// Function scopes (frames' function names): building the table ÷ oxc's own parse of the same text (the floor), and
/// bytes held per function, on real minified bundles of the round-trip corpus (`fixtures/roundtrip/dist`, built by
/// `tests/roundtrip.rs`) and on a ~50 MB one-line bundle made of copies of terser's; then `symbolicate` of 50
/// frames on an ordinary (esbuild) bundle, whole process, vs metro-symbolicate.
fn run_scopes(args: &Args, bin: &Path) {
    use sourcemap_core::trace::js_scopes::{Dialect, FunctionScopes, TextPosition};
    use sourcemap_core::trace::text_scopes::tables_around;
    let dist = Path::new("fixtures/roundtrip/dist");
    let esbuild = dist.join("esbuild/three-scenarios.js");
    if !esbuild.exists() {
        println!("\n### Function scopes\n\n(skipped: build fixtures/roundtrip first: `cd fixtures/roundtrip && node build.mjs`)");
        return;
    }
    println!("\n### Function scopes (frames' function names)\n");
    println!("| bundle | bytes | functions | build table | oxc parse (floor) | ratio | held per function | 2 / 50 positions in parts (`js_slices`) | parts ÷ whole table, 2 / 50 |");
    println!("|---|---|---|---|---|---|---|---|---|");
    // terser's output is one line of code and the `sourceMappingURL` comment.
    let minified = std::fs::read_to_string(dist.join("terser/three-scenarios.js")).unwrap();
    let code = minified.lines().next().unwrap_or_default();
    let mut big = String::new();
    let target = if args.quick { 5 << 20 } else { 50 << 20 };
    while big.len() < target {
        // One line, as a minified bundle is: each copy in its own function so declarations do not clash.
        big.push_str("(function(){");
        big.push_str(code);
        big.push_str("})();");
    }
    let mut cases: Vec<(String, String)> = ["esbuild", "terser", "webpack", "rollup", "swc"]
        .iter()
        .map(|b| {
            let p = dist.join(b).join("three-scenarios.js");
            (
                format!("{b}/three-scenarios.js"),
                std::fs::read_to_string(p).unwrap_or_default(),
            )
        })
        .filter(|(_, t)| !t.is_empty())
        .collect();
    cases.push((
        format!("{} MB, one line (copies of terser/three)", big.len() >> 20),
        big,
    ));
    let s = args.samples.min(5);
    for (name, text) in &cases {
        let floor = time(s, || {
            let allocator = oxc_allocator::Allocator::default();
            let ret =
                oxc_parser::Parser::new(&allocator, text, oxc_span::SourceType::unambiguous())
                    .parse();
            ret.program.body.len()
        });
        let build = time(s, || {
            FunctionScopes::parse(text, "b.js", Dialect::Generated)
                .unwrap()
                .len()
        });
        let (held_bytes, table) =
            held(|| FunctionScopes::parse(text, "b.js", Dialect::Generated).unwrap());
        // Naming the functions at a few positions from parts of the text instead (what `ScopeCache` does from
        // `PARSE_IN_PARTS_FROM` bytes): positions at functions' starts spread over the text.
        let starts: Vec<TextPosition> = table.iter().map(|f| f.start).collect();
        let parts = |n: usize| {
            let step = (starts.len() / n).max(1);
            let at: Vec<TextPosition> = starts.iter().step_by(step).take(n).copied().collect();
            time(s, || {
                tables_around(text, "b.js", Dialect::Generated, &at).len()
            })
        };
        let (two, fifty) = (parts(2), parts(50));
        println!(
            "| {name} | {} | {} | {} | {} | {} | {:.1} B | {} / {} | {} / {} |",
            text.len(),
            table.len(),
            ms(build),
            ms(floor),
            ratio(build, floor),
            held_bytes as f64 / table.len().max(1) as f64,
            ms(two),
            ms(fifty),
            ratio(two, build),
            ratio(fifty, build),
        );
    }
    drop(cases);
    // 50 frames at mapped positions of real bundles: symbolicate parses the bundle and the original sources.
    let metro_js =
        Path::new("fixtures/metro-reference/node_modules/metro-symbolicate/src/index.js");
    println!("\n| symbolicate 50 frames, whole process (names from scopes) | sourcemap-ls | metro-symbolicate 0.84.6 (mapping names) | ratio |\n|---|---|---|---|");
    for entry in ["lodash-scenarios", "three-scenarios"] {
        let bundle = dist.join(format!("esbuild/{entry}.js"));
        let map_path = dist.join(format!("esbuild/{entry}.js.map"));
        let index = SourceMapIndex::from_bytes(std::fs::read(&map_path).unwrap()).unwrap();
        let mut mapped = Vec::new();
        index
            .for_each_segment(|h| {
                if h.original.is_some() {
                    mapped.push(h.generated);
                }
            })
            .unwrap();
        let original_bytes: usize = (0..index.sources().len())
            .filter_map(|i| index.source_content(SourceId(i as u32)).map(|c| c.len()))
            .sum();
        let mut rng = Rng::new(5);
        let trace: String = (0..50)
            .map(|_| {
                let p = mapped[rng.below(mapped.len() as u64) as usize];
                format!(
                    "    at f ({}:{}:{})\n",
                    bundle.display(),
                    p.line + 1,
                    p.column + 1
                )
            })
            .collect();
        let map_arg = map_path.to_string_lossy().into_owned();
        let ours = time(s.max(5), || {
            run_with_stdin(Command::new(bin).args(["symbolicate", &map_arg]), &trace)
        });
        let (metro_t, r) = if metro_js.exists() {
            let t = time(3, || {
                run_with_stdin(Command::new("node").arg(metro_js).arg(&map_arg), &trace)
            });
            (ms(t), ratio(t, ours))
        } else {
            ("not installed".into(), "—".into())
        };
        println!(
            "| esbuild/{entry}.js ({} KB bundle, {} KB of original sources) | {} | {metro_t} | {r} |",
            std::fs::metadata(&bundle).map_or(0, |m| m.len() >> 10),
            original_bytes >> 10,
            ms(ours),
        );
    }
    many_libraries_row(bin, s);
    one_line::run(bin, s);
    links::run(bin, s);
    warm_sdk::run(bin, s);
}

/// `symbolicate` of 50 frames on a large unminified esbuild bundle of many libraries (`fixtures/roundtrip/build-many.mjs`:
/// ~22 MB, a 38 MB map), whole process, vs metro-symbolicate, with the floor of naming frames from code: reading and
/// indexing the map, and one oxc parse of the bundle (what scope analysis cannot skip; metro-symbolicate names
/// frames by mapping names and parses nothing).
fn many_libraries_row(bin: &Path, samples: usize) {
    let out = Path::new("target/bench-many");
    let (bundle, map_path) = (out.join("many.js"), out.join("many.js.map"));
    if !map_path.exists() {
        let built = Command::new("node")
            .arg("fixtures/roundtrip/build-many.mjs")
            .arg(out)
            .status()
            .is_ok_and(|s| s.success());
        if !built {
            println!("
(a bundle of many libraries: skipped, `node fixtures/roundtrip/build-many.mjs` failed: install fixtures/roundtrip first)");
            return;
        }
    }
    let text = std::fs::read_to_string(&bundle).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut rng = Rng::new(5);
    let mut trace = String::new();
    while trace.lines().count() < 50 {
        let i = rng.below(lines.len() as u64) as usize;
        let l = lines[i];
        let code = l.trim_start();
        if code.is_empty()
            || code.starts_with("//")
            || code.starts_with("/*")
            || code.starts_with('*')
        {
            continue;
        }
        let column = l.len() - code.len();
        trace.push_str(&format!(
            "    at f ({}:{}:{})\n",
            bundle.display(),
            i + 1,
            column + 1
        ));
    }
    let map_arg = map_path.to_string_lossy().into_owned();
    let (ours, ours_peak) = one_line::whole_process_median(
        samples.max(5),
        || {
            let mut c = Command::new(bin);
            c.args(["symbolicate", &map_arg]);
            c
        },
        &trace,
    );
    let metro_js =
        Path::new("fixtures/metro-reference/node_modules/metro-symbolicate/src/index.js");
    let metro = metro_js.exists().then(|| {
        one_line::whole_process_median(
            3,
            || {
                let mut c = Command::new("node");
                c.arg(metro_js).arg(&map_arg);
                c
            },
            &trace,
        )
    });
    let metro_peak = metro.map(|m| m.1);
    let metro = metro.map(|m| m.0);
    let read_map = time(samples.max(5), || {
        let bytes = std::fs::read(&map_path).unwrap();
        SourceMapIndex::from_bytes_with(
            bytes,
            IndexOptions {
                lazy: true,
                lazy_names: true,
            },
        )
        .unwrap()
    });
    let parse = time(samples.max(5), || {
        let allocator = oxc_allocator::Allocator::default();
        let ret =
            oxc_parser::Parser::new(&allocator, &text, oxc_span::SourceType::unambiguous()).parse();
        ret.program.body.len()
    });
    let floor = read_map + parse;
    println!(
        "\n| symbolicate 50 frames, a bundle of many libraries ({} MB, unminified esbuild; map {} MB) | time | vs metro-symbolicate 0.84.6 |\n|---|---|---|",
        text.len() >> 20,
        std::fs::metadata(&map_path).map_or(0, |m| m.len() >> 20)
    );
    let vs = |t: Duration| metro.map_or("—".into(), |m| ratio(m, t));
    println!(
        "| sourcemap-ls, whole process (names from scopes; peak {}) | {} | {} |",
        one_line::mb(ours_peak),
        ms(ours),
        vs(ours)
    );
    println!("| the floor: the map read and indexed (lazy) + one oxc parse of the bundle, in process | {} + {} = {} | {} |", ms(read_map), ms(parse), ms(floor), vs(floor));
    println!(
        "| metro-symbolicate (mapping names, no parse; peak {}) | {} | |",
        metro_peak.map_or("—".into(), one_line::mb),
        metro.map_or("not installed".into(), ms)
    );
}

fn main() {
    let args = Args::parse();
    let bin = args
        .bin
        .clone()
        .unwrap_or_else(|| PathBuf::from("target/release/sourcemap-ls"));
    assert!(
        bin.exists(),
        "build it first: cargo build --release --bin sourcemap-ls"
    );
    if args.scopes_only {
        run_scopes(&args, &bin);
        return;
    }
    if args.one_line_only {
        one_line::run(&bin, args.samples);
        return;
    }
    if args.links_only {
        links::run(&bin, args.samples);
        return;
    }
    if args.restart_only {
        worker_restart::run(&args.metro_real, &bin, args.samples);
        return;
    }
    if args.lines_only {
        lines::run(&args.metro_real, args.samples);
        return;
    }
    if args.pipeline {
        pipeline::run(&bin, args.samples);
        warm_sdk::run(&bin, args.samples);
        return;
    }
    if args.warm_sdk_only {
        warm_sdk::run(&bin, args.samples);
        return;
    }
    if args.many_only {
        many_libraries_row(&bin, args.samples);
        return;
    }
    if args.profile_only {
        run_profile(&args, &bin);
        return;
    }
    if args.explore_only {
        non_ascii_composition_rows(&bin);
        return;
    }
    if args.today_only {
        today::run(&bin, args.samples);
        editor::remove_spent_caches();
        return;
    }
    if args.hovers_only {
        editor_hovers::run(&args.metro_real, &bin, args.samples);
        editor::remove_spent_caches();
        return;
    }
    if args.editor_only {
        editor::run(&args, &bin);
        editor_hovers::run(&args.metro_real, &bin, args.samples);
        editor::remove_spent_caches();
        return;
    }
    let fixtures = ensure_fixtures(&args);
    println!(
        "## sourcemap-bench{}\n",
        if args.quick { " (quick fixtures)" } else { "" }
    );
    println!("Medians of {} samples; ratios against baselines measured in this run. `sourcemap` crate 9.3, `oxc_sourcemap` 9.", args.samples);
    if args.fit_only {
        for f in &fixtures {
            println!(
                "\n### {}\n\n| measure | sourcemap-ls | baseline | ratio |\n|---|---|---|---|",
                f.name
            );
            let bytes = std::fs::read(&f.map).unwrap();
            let bundle = std::fs::read_to_string(&f.bundle).unwrap();
            let open = time_consuming(
                args.samples,
                || bytes.clone(),
                |b| SourceMapIndex::from_bytes(b).unwrap(),
            );
            let index = SourceMapIndex::from_bytes(bytes.clone()).unwrap();
            fit::fixture_rows(&bin, &f.map, &f.bundle, &index, &bundle, open, args.samples);
        }
        fit::hostile_rows(args.quick, args.samples);
        return;
    }
    for f in &fixtures {
        run_fixture(&args, f, &bin);
    }
    fit::hostile_rows(args.quick, args.samples);
    editor::run(&args, &bin);
    editor_hovers::run(&args.metro_real, &bin, args.samples);
    today::run(&bin, args.samples);
    run_scopes(&args, &bin);
    run_profile(&args, &bin);
    non_ascii_composition_rows(&bin);
    editor::remove_spent_caches();
}

/// `explore --json` on real minified bundles whose long lines hold non-ASCII characters (terser's and swc's builds of
/// the round-trip corpus: one line of ~70 KB each), against source-map-explorer, whole process. Columns become bytes
/// through a table per line (`bundle::columns`); a walk from the line's start per segment made terser's lodash bundle
/// take 4.3 s, 17× slower than source-map-explorer: these rows keep that bounded.
fn non_ascii_composition_rows(bin: &Path) {
    let dist = Path::new("fixtures/roundtrip/dist");
    println!(
        "\n### Composition of minified bundles with non-ASCII lines (`fixtures/roundtrip/dist`)\n\n| measure | sourcemap-ls | baseline | ratio |\n|---|---|---|---|"
    );
    let mut any = false;
    for bundler in ["terser", "swc", "rollup", "webpack"] {
        for entry in ["lodash-scenarios", "react-scenarios", "three-scenarios"] {
            let bundle = dist.join(bundler).join(format!("{entry}.js"));
            let Ok(text) = std::fs::read(&bundle) else {
                continue;
            };
            if text.is_ascii() {
                continue;
            }
            any = true;
            println!(
                "| **{bundler}/{entry}.js** ({} KB) | | | |",
                text.len() >> 10
            );
            composition_rows_of(&bundle, &bundle.with_extension("js.map"), bin);
        }
    }
    if !any {
        println!("| (no bundle with a non-ASCII line: build fixtures/roundtrip first, `node build.mjs`) | | | |");
    }
}

/// The profile rows, from the Hermes bytecode recording of the esbuild inventory workload (fixtures/profiles).
fn run_profile(args: &Args, bin: &Path) {
    let seed = profile::Seed {
        profile: args
            .profile_seed
            .clone()
            .unwrap_or_else(|| PathBuf::from(PROFILE_SEED)),
        map: args
            .profile_map
            .clone()
            .unwrap_or_else(|| PathBuf::from(PROFILE_SEED_MAP)),
        bundle_name: "inventory.js".into(),
    };
    if !seed.profile.exists() || !seed.map.exists() {
        println!(
            "
(profile rows skipped: {} or its map is missing)",
            seed.profile.display()
        );
        return;
    }
    profile::run(bin, &seed, args.samples);
}

const PROFILE_SEED: &str = "fixtures/profiles/recordings/hermes/esbuild.inventory.bytecode.json";
const PROFILE_SEED_MAP: &str = "fixtures/profiles/dist/hermes/esbuild/inventory.hbc.map";
