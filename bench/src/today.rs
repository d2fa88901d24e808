//! Hover into a source edited since the build: a 10,000-line source, its build (one segment per line, the map
//! carrying the build's copy in `sourcesContent`) and the file on disk edited after it (a comment block on top, a
//! helper inserted halfway, a line rewritten, three lines removed). The first hover into it diffs the two texts
//! (`sourcemap_core::source::today`); later hovers reuse the diff. The baseline is the same session with the file
//! unedited (the file is the build's copy: no diff). Goal: p99 unchanged.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;
use sourcemap_core::GeneratedPosition;
use sourcemap_fixtures::Rng;

use crate::editor::{hover_params, uri_of, Lsp};
use crate::{median, ms};

const LINES: usize = 10_000;

/// The source: functions of a few lines each, every line distinct.
fn source() -> String {
    let mut s = String::new();
    for i in 0..LINES / 4 {
        s.push_str(&format!(
            "function f{i}(a, b) {{\n  const c{i} = a * {i} + b;\n  return c{i} - {i};\n}}\n"
        ));
    }
    s
}

/// The source as the developer has it now.
fn edited(source: &str) -> String {
    let mut lines: Vec<String> = source.lines().map(str::to_string).collect();
    lines[LINES * 3 / 4] = "  return 0; // rewritten".into();
    lines.drain(LINES * 7 / 8..LINES * 7 / 8 + 3);
    for (k, l) in ["function helper() {", "  return 1;", "}"]
        .iter()
        .enumerate()
    {
        lines.insert(LINES / 2 + k, l.to_string());
    }
    for (k, l) in ["/**", " * Edited after the release.", " */"]
        .iter()
        .enumerate()
    {
        lines.insert(k, l.to_string());
    }
    lines.join("\n") + "\n"
}

/// `dist/bundle.js` (the source itself, line for line) with its map, `src/big.js` as `local`.
fn write_fixture(dir: &Path, local: &str) {
    let source = source();
    std::fs::create_dir_all(dir.join("dist")).unwrap();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    // One segment a line: generated (line, 0) → source (line, 0).
    let mut mappings = String::from("AAAA");
    for _ in 1..LINES {
        mappings.push_str(";AACA");
    }
    let map = json!({"version": 3, "sources": ["../src/big.js"], "sourcesContent": [source], "names": [],
                     "mappings": mappings});
    std::fs::write(dir.join("dist/bundle.js.map"), map.to_string()).unwrap();
    std::fs::write(
        dir.join("dist/bundle.js"),
        format!("{source}//# sourceMappingURL=bundle.js.map\n"),
    )
    .unwrap();
    std::fs::write(dir.join("src/big.js"), local).unwrap();
}

/// One cold server: the bundle opened, then every hover's latency, and how many hovers said where the line is in the
/// edited file now (a check that the edited case is the one measured).
fn hovers(bin: &Path, dir: &Path, at: &[GeneratedPosition]) -> (Vec<Duration>, usize) {
    let mut lsp = Lsp::start(bin, dir, true);
    let bundle = dir.join("dist/bundle.js");
    let uri = uri_of(&bundle);
    let text = std::fs::read_to_string(&bundle).unwrap();
    lsp.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "javascript", "version": 1, "text": text}}),
    );
    let mut moved = 0;
    let latencies = at
        .iter()
        .map(|&p| {
            let t = Instant::now();
            let answer = lsp.request("textDocument/hover", hover_params(&uri, p));
            let took = t.elapsed();
            let text = answer["result"]["contents"]["value"]
                .as_str()
                .unwrap_or_else(|| panic!("{answer}"));
            moved += usize::from(text.contains("in your file now"));
            took
        })
        .collect();
    (latencies, moved)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

pub fn run(bin: &Path, samples: usize) {
    println!("\n### Hover into a source edited since the build ({LINES} lines)\n");
    println!("| measure | edited file | unedited file (baseline) | ratio | goal |\n|---|---|---|---|---|");
    let mut rng = Rng::new(37);
    let at: Vec<GeneratedPosition> = (0..200)
        .map(|_| GeneratedPosition {
            line: rng.below(LINES as u64) as u32,
            column: 0,
        })
        .collect();
    let source = source();
    let runs = samples.clamp(1, 5);
    let measure = |local: &str, edited: bool| {
        let mut firsts = Vec::new();
        let mut all = Vec::new();
        for run in 0..runs {
            let dir = std::env::temp_dir().join(format!(
                "sourcemap-bench-today-{}-{run}",
                std::process::id()
            ));
            let _ = std::fs::remove_dir_all(&dir);
            write_fixture(&dir, local);
            let (l, moved) = hovers(bin, &dir, &at);
            assert_eq!(
                moved > 0,
                edited,
                "the edited file is the one whose lines moved"
            );
            let _ = std::fs::remove_dir_all(&dir);
            firsts.push(l[0]);
            all.extend(l);
        }
        all.sort();
        (
            median(firsts),
            percentile(&all, 0.5),
            percentile(&all, 0.99),
        )
    };
    let (edited_first, edited_p50, edited_p99) = measure(&edited(&source), true);
    let (plain_first, plain_p50, plain_p99) = measure(&source, false);
    let ratio = |a: Duration, b: Duration| format!("{:.2}×", a.as_secs_f64() / b.as_secs_f64());
    println!(
        "| first hover after didOpen (the diff, on the edited file), median of {runs} servers | {} | {} | {} | |",
        ms(edited_first),
        ms(plain_first),
        ratio(edited_first, plain_first)
    );
    println!(
        "| hover p50, 200 random lines × {runs} servers | {} | {} | {} | |",
        ms(edited_p50),
        ms(plain_p50),
        ratio(edited_p50, plain_p50)
    );
    println!(
        "| hover p99 | {} | {} | {} | p99 unchanged (≤ 20 ms) |",
        ms(edited_p99),
        ms(plain_p99),
        ratio(edited_p99, plain_p99)
    );
}
