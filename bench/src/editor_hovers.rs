//! The editor on a real Metro build after a day of hovers (issues 44, 56): a cold `sourcemap-ls` over stdio opens the
//! bundle of `fixtures/metro-scale/make.mjs` (real Metro 0.84.6, dev, many real libraries, `sourcesContent` and
//! function maps), answers a first hover, then 1,000 hovers at positions drawn at random over the map's mapped
//! segments (so a big module gets its share: typescript.js, one 9 MB module, about a sixth). Printed: the first
//! hover, hover p50/p90/p99/max, the hovers after a module's first over 50 ms and the slowest modules (and, as the
//! first hover's floor, the same `didOpen` and hover without a map), the steady anonymous memory after 200 and after 1,000 hovers against the budget
//! 1.1 × bundle + 1.5 × mappings, and what the server says its caches hold (`sourcemap/mapInfo`'s `caches`).
//!
//! The build is not generated here (it needs node and Metro): `node fixtures/metro-scale/make.mjs` writes it to
//! `target/bench-metro-real/`; without it the rows say so and are skipped.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sourcemap_core::{GeneratedPosition, SourceMapIndex};
use sourcemap_fixtures::Rng;

use crate::editor::{
    did_open, hover_params, mb, percentile, rss_anon, rss_file, uri_of, Lsp, RssSampler,
};
use crate::median;

/// Where `make.mjs` writes the build.
pub const DEFAULT_DIR: &str = "target/bench-metro-real";
/// Hovers after the first, and when the memory is read on the way.
const HOVERS: usize = 1_000;
const EARLY_READING: usize = 200;

/// The modules of a Metro dev bundle: the line ranges of its `__d(function …` definitions.
fn modules(text: &str) -> Vec<std::ops::Range<u32>> {
    let starts: Vec<u32> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with("__d(function"))
        .map(|(i, _)| i as u32)
        .collect();
    let lines = text.lines().count() as u32;
    starts
        .iter()
        .enumerate()
        .map(|(i, &s)| s..starts.get(i + 1).copied().unwrap_or(lines))
        .collect()
}

/// `n` positions drawn at random over the map's mapped segments (each with an original position), so that a module
/// gets hovers in proportion to its mapped code: typescript.js (one 9 MB module) its share, not one module's. The
/// first is the cold hover. Returns them with the number of modules hovered.
fn positions_over_segments(
    text: &str,
    map: &[u8],
    n: usize,
    seed: u64,
) -> (Vec<GeneratedPosition>, usize) {
    let index = SourceMapIndex::from_bytes(map.to_vec()).expect("the build's map reads");
    let mut all = Vec::new();
    index
        .for_each_segment_once(|hit| {
            if hit.original.is_some() {
                all.push(hit.generated);
            }
        })
        .expect("the build's map decodes");
    drop(index);
    let mut rng = Rng::new(seed);
    let out: Vec<GeneratedPosition> = (0..n)
        .map(|_| all[rng.below(all.len() as u64) as usize])
        .collect();
    let modules = modules(text);
    let mut hovered: Vec<usize> = out.iter().filter_map(|p| module_of(&modules, *p)).collect();
    hovered.sort_unstable();
    hovered.dedup();
    (out, hovered.len())
}

/// The module (index into `modules`) holding `p`.
fn module_of(modules: &[std::ops::Range<u32>], p: GeneratedPosition) -> Option<usize> {
    let k = modules.partition_point(|m| m.start <= p.line);
    k.checked_sub(1).filter(|&k| modules[k].contains(&p.line))
}

/// A module's name: the file its `__d(function` definition names last (Metro writes the module's path in the
/// `__d(…)` call's last argument in dev builds), else its first line number.
fn module_name(lines: &[&str], m: &std::ops::Range<u32>) -> String {
    let end = lines
        .get(m.end.saturating_sub(1) as usize)
        .copied()
        .unwrap_or_default();
    match end.rfind('"') {
        Some(close) => match end[..close].rfind('"') {
            Some(open) => end[open + 1..close].to_string(),
            None => format!("module at line {}", m.start + 1),
        },
        None => format!("module at line {}", m.start + 1),
    }
}

struct Run {
    first_hover: Duration,
    after_first: u64,
    /// The server's live heap (`sourcemap/mapInfo`'s `heapBytes`; 0 before it had one) after the first hover and
    /// after all.
    heap_first: u64,
    heap_all: u64,
    latencies: Vec<Duration>,
    answered: usize,
    after_early: u64,
    after_all: u64,
    /// File-backed resident memory after all (not in the budget; reported beside it).
    file_after_all: u64,
    peak: u64,
    caches: Option<Value>,
}

/// Steady memory: after the server's background work on the bundle and a pause.
fn steady(lsp: &mut Lsp) -> u64 {
    lsp.wait_diagnostics();
    std::thread::sleep(Duration::from_millis(300));
    rss_anon(lsp.pid()).unwrap_or(0)
}

fn session(bin: &Path, bundle: &Path, text: &str, hovers: &[GeneratedPosition]) -> Run {
    let root = bundle.parent().unwrap();
    let mut lsp = Lsp::start(bin, root, true);
    let sampler = RssSampler::start(lsp.pid());
    let uri = uri_of(bundle);
    let open = did_open(&uri, "javascript", text);
    let started = Instant::now();
    lsp.send_bytes(&open);
    drop(open);
    lsp.request("textDocument/hover", hover_params(&uri, hovers[0]));
    let first_hover = started.elapsed();
    let after_first = steady(&mut lsp);
    let heap = |lsp: &mut Lsp| {
        let info = lsp.request("sourcemap/mapInfo", json!({"textDocument": {"uri": uri}}));
        info["result"]["heapBytes"].as_u64().unwrap_or(0)
    };
    let heap_first = heap(&mut lsp);
    let mut latencies = Vec::with_capacity(HOVERS);
    let mut answered = 0;
    let mut after_early = 0;
    for (i, &p) in hovers[1..].iter().enumerate() {
        let t = Instant::now();
        let r = lsp.request("textDocument/hover", hover_params(&uri, p));
        latencies.push(t.elapsed());
        answered += usize::from(!r["result"].is_null());
        if i + 1 == EARLY_READING {
            after_early = steady(&mut lsp);
        }
    }
    let after_all = steady(&mut lsp);
    let file_after_all = rss_file(lsp.pid()).unwrap_or(0);
    let info = lsp.request("sourcemap/mapInfo", json!({"textDocument": {"uri": uri}}));
    let caches = info["result"].get("caches").map(|c| {
        json!({"caches": c, "heapBytes": info["result"]["heapBytes"], "map": info["result"]["memory"]})
    });
    // For looking into what the memory is: the server's mappings as the kernel sees them.
    if let Ok(to) = std::env::var("BENCH_SMAPS") {
        let _ = std::fs::copy(format!("/proc/{}/smaps", lsp.pid()), to);
    }
    let heap_all = heap(&mut lsp);
    Run {
        first_hover,
        after_first,
        heap_first,
        heap_all,
        latencies,
        answered,
        after_early,
        after_all,
        file_after_all,
        peak: sampler.peak(),
        caches,
    }
}

/// The first hover of a server started again on a map indexed before (VS Code restarts the server on every window
/// reload): the index cache (`SOURCEMAP_LS_INDEX_CACHE`) is the folder an earlier server wrote, nothing else is kept.
fn first_hover_on_reload(
    bin: &Path,
    bundle: &Path,
    text: &str,
    at: GeneratedPosition,
    index_cache: &Path,
) -> Duration {
    let mut lsp = Lsp::start_with(
        bin,
        bundle.parent().unwrap(),
        true,
        &[("SOURCEMAP_LS_INDEX_CACHE", index_cache)],
    );
    let (elapsed, answer) = timed_first_hover(&mut lsp, &uri_of(bundle), text, at);
    assert!(!answer["result"].is_null(), "the reload's hover: {answer}");
    elapsed
}

/// `didOpen` of `text` at `uri`, then a hover at `at`: the time from sending the one to the other's answer.
fn timed_first_hover(
    lsp: &mut Lsp,
    uri: &str,
    text: &str,
    at: GeneratedPosition,
) -> (Duration, Value) {
    let open = did_open(uri, "javascript", text);
    let started = Instant::now();
    lsp.send_bytes(&open);
    let answer = lsp.request("textDocument/hover", hover_params(uri, at));
    (started.elapsed(), answer)
}

/// The same first hover without a map, the floor under the row above: the text with its `sourceMappingURL` comment
/// cut, opened under a file name in an empty folder, so the server finds no map. What every first hover on this text
/// costs before the map: the 57 MB message sent and unescaped, the document stored, a hover answered "no map".
fn first_hover_without_a_map(bin: &Path, text: &str, at: GeneratedPosition) -> Duration {
    let folder = std::env::temp_dir().join(format!("sourcemap-bench-floor-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let cut = text
        .rfind("//# sourceMappingURL=")
        .map_or(text, |i| &text[..i]);
    let uri = format!("{}/no-map.bundle", uri_of(&folder));
    let mut lsp = Lsp::start(bin, &folder, true);
    let (elapsed, answer) = timed_first_hover(&mut lsp, &uri, cut, at);
    // Without a map the server answers no hover (`hover.rs`): anything else means a map was found after all.
    assert!(
        answer["result"].is_null(),
        "the floor's hover found a map: {answer}"
    );
    drop(lsp);
    let _ = std::fs::remove_dir_all(&folder);
    elapsed
}

pub fn run(dir: &Path, bin: &Path, samples: usize) {
    let bundle: PathBuf = dir.join("index.bundle");
    let map = dir.join("index.bundle.map");
    println!(
        "\n### The editor on a real Metro build after {HOVERS} hovers across modules (issue 44)\n"
    );
    if !bundle.exists() || !map.exists() {
        println!(
            "(skipped: no build at {}; make it with `node fixtures/metro-scale/make.mjs` after `npm ci` there)",
            dir.display()
        );
        return;
    }
    let text = std::fs::read_to_string(&bundle).unwrap();
    let doc: Value = serde_json::from_slice(&std::fs::read(&map).unwrap()).unwrap();
    let mappings = doc["mappings"].as_str().map_or(0, str::len) as u64;
    let names = doc["names"].as_array().map_or(0, Vec::len);
    let sources = doc["sources"].as_array().map_or(0, Vec::len);
    let map_bytes = std::fs::metadata(&map).unwrap().len();
    drop(doc);
    let map_text = std::fs::read(&map).unwrap();
    let (hovers, modules_hovered) = positions_over_segments(&text, &map_text, HOVERS + 1, 44);
    drop(map_text);
    let module_list = modules(&text);
    let module_count = module_list.len();
    let budget = (text.len() as u64 * 11 / 10) + mappings * 3 / 2;
    println!(
        "Metro 0.84.6 dev build (`fixtures/metro-scale/make.mjs`): bundle {}, {module_count} modules, map {} \
         (`mappings` {}, {names} names, {sources} sources with `sourcesContent`); {} hovers in {modules_hovered} \
         modules. Budget 1.1 × bundle + 1.5 × mappings = {}.\n",
        mb(text.len() as u64),
        mb(map_bytes),
        mb(mappings),
        hovers.len(),
        mb(budget)
    );
    let runs: Vec<Run> = (0..samples.clamp(1, 3))
        .map(|_| session(bin, &bundle, &text, &hovers))
        .collect();
    println!("| measure | sourcemap-ls | goal |");
    println!("|---|---|---|");
    let range = |f: &dyn Fn(&Run) -> u64| {
        let mut v: Vec<u64> = runs.iter().map(f).collect();
        v.sort();
        let med = v[v.len() / 2];
        format!(
            "{} ({}–{}, {:.2} of the budget)",
            mb(med),
            mb(v[0]),
            mb(*v.last().unwrap()),
            med as f64 / budget as f64
        )
    };
    let n = runs.len();
    let first = median(runs.iter().map(|r| r.first_hover).collect());
    let firsts: Vec<String> = runs
        .iter()
        .map(|r| format!("{:.0}", r.first_hover.as_secs_f64() * 1e3))
        .collect();
    println!(
        "| `didOpen` → first hover answered, cold server (median of {n}: {} ms) | {:.0} ms | ≤ 600 ms |",
        firsts.join(", "),
        first.as_secs_f64() * 1e3
    );
    let floors: Vec<Duration> = (0..n)
        .map(|_| first_hover_without_a_map(bin, &text, hovers[0]))
        .collect();
    let floor = median(floors.clone());
    println!(
        "| the floor, same run: the same `didOpen` and first hover without a map (median of {n}: {} ms); the map's part | {:.0} ms; {:.0} ms | |",
        floors
            .iter()
            .map(|d| format!("{:.0}", d.as_secs_f64() * 1e3))
            .collect::<Vec<_>>()
            .join(", "),
        floor.as_secs_f64() * 1e3,
        (first.as_secs_f64() - floor.as_secs_f64()) * 1e3
    );
    // A reload: one server indexes the map into a fresh index cache, then each sample starts a server on it.
    let index_cache =
        std::env::temp_dir().join(format!("sourcemap-bench-index-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&index_cache);
    first_hover_on_reload(bin, &bundle, &text, hovers[0], &index_cache);
    let reloads: Vec<Duration> = (0..n)
        .map(|_| first_hover_on_reload(bin, &bundle, &text, hovers[0], &index_cache))
        .collect();
    let _ = std::fs::remove_dir_all(&index_cache);
    println!(
        "| `didOpen` → first hover answered, the map indexed before (a reload: the index cache an earlier server wrote; median of {n}: {} ms); less the floor | {:.0} ms; {:.0} ms | ≤ 200 ms |",
        reloads
            .iter()
            .map(|d| format!("{:.0}", d.as_secs_f64() * 1e3))
            .collect::<Vec<_>>()
            .join(", "),
        median(reloads.clone()).as_secs_f64() * 1e3,
        (median(reloads.clone()).as_secs_f64() - floor.as_secs_f64()) * 1e3
    );
    let mut all: Vec<Duration> = runs
        .iter()
        .flat_map(|r| r.latencies.iter().copied())
        .collect();
    all.sort();
    let answered: usize = runs.iter().map(|r| r.answered).sum();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "| hover latency, {HOVERS} hovers over the map's segments × {n} servers ({answered} answered): p50 / p90 / p99 / max | {:.1} / {:.1} / {:.1} / {:.1} ms | p99 ≤ 20 ms |",
        ms(percentile(&all, 0.5)),
        ms(percentile(&all, 0.9)),
        ms(percentile(&all, 0.99)),
        ms(*all.last().unwrap())
    );
    per_module_rows(&text, &module_list, &hovers, &runs);
    println!(
        "| anonymous memory, steady, after the first hover | {} | ≤ {} |",
        range(&|r| r.after_first),
        mb(budget)
    );
    println!(
        "| anonymous memory, steady, after {EARLY_READING} hovers | {} | ≤ {} |",
        range(&|r| r.after_early),
        mb(budget)
    );
    println!(
        "| anonymous memory, steady, after {HOVERS} hovers | {} | ≤ {} |",
        range(&|r| r.after_all),
        mb(budget)
    );
    println!(
        "| file-backed memory (`RssFile`: mapped files and the binary; outside the budget), after {HOVERS} hovers | {} | |",
        {
            let mut v: Vec<u64> = runs.iter().map(|r| r.file_after_all).collect();
            v.sort();
            format!("{} ({}–{})", mb(v[v.len() / 2]), mb(v[0]), mb(v[v.len() - 1]))
        }
    );
    println!("| anonymous memory, peak | {} | |", range(&|r| r.peak));
    println!(
        "| live heap (`heapBytes`), after the first hover / after {HOVERS} hovers | {} / {} | |",
        range(&|r| r.heap_first),
        range(&|r| r.heap_all)
    );
    if let Some(c) = runs.last().and_then(|r| r.caches.as_ref()) {
        println!("\nThe server's memory after {HOVERS} hovers (`sourcemap/mapInfo`'s `caches`, `heapBytes`, `memory`; last server): `{c}`");
    }
}

/// The rows per module: hovers after a module's first over 50 ms (a module's first hover may parse its part; every
/// later one must not pay again), and the slowest modules.
fn per_module_rows(
    text: &str,
    module_list: &[std::ops::Range<u32>],
    hovers: &[GeneratedPosition],
    runs: &[Run],
) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let lines: Vec<&str> = text.lines().collect();
    let mut later: Vec<(Duration, usize)> = Vec::new();
    let mut worst: std::collections::HashMap<usize, (Duration, usize)> = Default::default();
    for r in runs {
        let mut seen = std::collections::HashSet::new();
        for (p, &d) in hovers[1..].iter().zip(&r.latencies) {
            let Some(m) = module_of(module_list, *p) else {
                continue;
            };
            let w = worst.entry(m).or_default();
            w.0 = w.0.max(d);
            w.1 += 1;
            if !seen.insert(m) {
                later.push((d, m));
            }
        }
    }
    let over = later.iter().filter(|(d, _)| ms(*d) > 50.0).count();
    let slowest_later = later.iter().max_by_key(|(d, _)| *d);
    println!(
        "| hovers after a module's first over 50 ms ({} such hovers; slowest {}) | {over} | 0 |",
        later.len(),
        slowest_later.map_or("-".to_string(), |(d, m)| format!(
            "{:.1} ms in {}",
            ms(*d),
            module_name(&lines, &module_list[*m])
        ))
    );
    let mut by_max: Vec<(&usize, &(Duration, usize))> = worst.iter().collect();
    by_max.sort_by_key(|(_, (d, _))| std::cmp::Reverse(*d));
    let top: Vec<String> = by_max
        .iter()
        .take(3)
        .map(|(m, (d, k))| {
            format!(
                "{} ({k} hovers, max {:.1} ms)",
                module_name(&lines, &module_list[**m]),
                ms(*d)
            )
        })
        .collect();
    println!("| the slowest modules | {} | |", top.join("; "));
}
