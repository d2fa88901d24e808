//! Crash pipelines (issue 46): events per second of `symbolicate --ndjson`, one job and every core, whole process,
//! with peak memory, against metro-symbolicate started once per event (a pipeline built on it does that), measured in
//! the same run. The events are the round-trip corpus's real crashes (`fixtures/roundtrip`: five bundlers' builds of
//! lodash, React and three.js run under node), each a Sentry event whose frames name their bundle by URL, found by
//! URL path under `--maps fixtures/roundtrip/dist`. Three scenarios:
//! - warm: the 110 events repeated 10 times (15 bundles, many events: the cache holds them all);
//! - churn: the same events with a 1 MiB cache (smaller than the maps: an event opens its maps again);
//! - cold: each event once (every bundle seen for the first time early on).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::one_line::{mb, whole_process_median};

/// The corpus's bundled traces as Sentry events (frames oldest first, V8's 1-based lines and columns), with the map
/// and trace of each for metro-symbolicate.
fn events(dist: &Path) -> Vec<(String, String, String)> {
    let cases: Value =
        serde_json::from_str(&std::fs::read_to_string(dist.join("cases.json")).unwrap()).unwrap();
    let prefix = format!("{}/", std::fs::canonicalize(dist).unwrap().display());
    cases["cases"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(i, case)| {
            let trace = case["bundled"].as_str().unwrap();
            let mut frames: Vec<Value> = trace
                .lines()
                .filter_map(|l| {
                    let l = l.trim().strip_prefix("at ")?;
                    let (function, location) = match l.rsplit_once(" (") {
                        Some((f, loc)) => (Some(f), loc.strip_suffix(')')?),
                        None => (None, l),
                    };
                    let (file, rest) = location.split_once(':')?;
                    let (line, column) = rest.split_once(':')?;
                    let file = file.strip_prefix(&prefix)?;
                    Some(json!({
                        "abs_path": format!("https://cdn.example.com/{file}"),
                        "lineno": line.parse::<u32>().ok()?,
                        "colno": column.parse::<u32>().ok()?,
                        "function": function,
                    }))
                })
                .collect();
            frames.reverse();
            let event = json!({
                "event_id": format!("{i:032x}"),
                "exception": {"values": [{"type": "TypeError", "stacktrace": {"frames": frames}}]},
            });
            // `cases.json` names maps from the corpus's folder.
            let map = dist
                .parent()
                .unwrap_or(dist)
                .join(case["map"].as_str().unwrap_or_default())
                .display()
                .to_string();
            (event.to_string(), map, trace.to_string())
        })
        .collect()
}

pub fn run(bin: &Path, samples: usize) {
    let dist = Path::new("fixtures/roundtrip/dist");
    if !dist.join("cases.json").exists() {
        println!(
            "\n(crash pipelines: skipped, fixtures/roundtrip/dist/cases.json is missing: `cargo test --test roundtrip` \
             builds it)"
        );
        return;
    }
    let events = events(dist);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "\n### Crash pipelines: events per second (issue 46)\n\n{} real events (the round-trip corpus's crashes as \
         Sentry events), `symbolicate --ndjson --maps {}`, whole process, medians of {samples}.\n",
        events.len(),
        dist.display()
    );
    println!("| scenario | events | jobs | time | events/s | events/s per core | peak memory |\n|---|---|---|---|---|---|---|");
    let line = |n: usize| -> String {
        events
            .iter()
            .cycle()
            .take(n)
            .map(|(e, _, _)| e.as_str())
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    };
    let warm = line(events.len() * 10);
    let cold = line(events.len());
    let mut warm_one_job = 0.0;
    for (scenario, input, cache_mb) in [
        ("warm", &warm, None),
        ("churn (1 MiB cache)", &warm, Some(1)),
        ("cold", &cold, None),
    ] {
        let count = input.lines().count();
        for jobs in [1, cores] {
            let (took, peak) = whole_process_median(
                samples,
                || {
                    let mut c = Command::new(bin);
                    c.args([
                        "symbolicate",
                        "--ndjson",
                        "--jobs",
                        &jobs.to_string(),
                        "--maps",
                    ])
                    .arg(dist);
                    if let Some(mb) = cache_mb {
                        c.args(["--cache-mb", &mb.to_string()]);
                    }
                    c
                },
                input,
            );
            let rate = count as f64 / took.as_secs_f64();
            if scenario == "warm" && jobs == 1 {
                warm_one_job = rate;
            }
            println!(
                "| {scenario} | {count} | {jobs} | {:.2} s | {rate:.0} | {:.0} | {} |",
                took.as_secs_f64(),
                rate / jobs as f64,
                mb(peak)
            );
        }
    }
    let metro = Path::new("fixtures/metro-reference/node_modules/.bin/metro-symbolicate");
    if !metro.exists() {
        println!("\n(metro-symbolicate: skipped, fixtures/metro-reference is not installed)");
        return;
    }
    // One process per event, as a pipeline built on it runs: 20 events.
    let sample: Vec<&(String, String, String)> =
        events.iter().step_by(events.len() / 20).take(20).collect();
    let started = Instant::now();
    let mut peak = 0;
    for (_, map, trace) in &sample {
        let (_, p) = crate::one_line::whole_process(Command::new(metro).arg(map), trace);
        peak = peak.max(p);
    }
    let took: Duration = started.elapsed();
    let rate = sample.len() as f64 / took.as_secs_f64();
    println!(
        "| metro-symbolicate, a process per event | {} | 1 | {:.2} s | {rate:.1} | {rate:.1} | {} |",
        sample.len(),
        took.as_secs_f64(),
        mb(peak)
    );
    println!(
        "\nwarm, one job: **{:.0}× metro-symbolicate's events/s** (a process per event). Sentry's engine \
         (`symbolic-sourcemapcache`) is not measured here yet.",
        warm_one_job / rate
    );
}
