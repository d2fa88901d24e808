//! Crash pipelines (issue 46): events per second of `symbolicate --ndjson`, one job and every core, whole process,
//! with peak memory, against metro-symbolicate started once per event (a pipeline built on it does that), measured in
//! the same run. The events are the round-trip corpus's real crashes (`fixtures/roundtrip`: five bundlers' builds of
//! lodash, React and three.js run under node), each a Sentry event whose frames name their bundle by URL, found by
//! URL path under `--maps fixtures/roundtrip/dist`. Three scenarios:
//! - warm: the 110 events repeated 30 times, each again with an id of its own (15 bundles, many events: the cache
//!   holds them all);
//! - churn: the 110 events repeated 10 times with a 1 MiB cache (smaller than the maps: an event opens its maps
//!   again);
//! - cold: each event once, each with a bundle of its own (the event's bundle and map linked into a release folder
//!   of its own under `target/bench-pipeline-cold`, the event's URLs into that folder): every event's maps and code
//!   are new. The releases' maps carry the same sources (as an app's releases carry the same libraries), which a
//!   source's content identifies;
//! - cold, every source new: the same with each release's sources made its own (`cold_releases`).
//!
//! Beside it, on the same events and in the same run:
//! - Sentry's engine (`symbolic-sourcemapcache`, the `sentry-engine` binary of this crate, built with `--features
//!   sentry`): one cache per bundle + map shared by every event, each frame looked up with its scope name, as
//!   symbolicator does per event; one thread and every core, and with the same 1 MiB budget on churn;
//! - `sourcemap-ls worker` through a real `redis-server` (started here on a loopback port): the events are in a
//!   stream before the workers start; the time is from their start to the last output entry; one worker and two,
//!   each `--jobs 1`; the peak is each worker's own (`VmHWM`);
//! - the function names each engine gives, against the names node printed running the original program (the
//!   corpus's truth), on the frames whose answered position is a frame of the original trace.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use std::fmt::Write as _;
use std::io::Write as _;

use serde_json::Value;

use crate::one_line::{mb, whole_process_median};

#[path = "../../tests/support/names.rs"]
mod names;
#[path = "../../tests/support/sentry_event.rs"]
mod sentry_event;

use sentry_event::{sentry_event, v8_frame};

/// An event of the corpus: the Sentry event, its map and bundled trace (for metro-symbolicate) and the original
/// trace (the truth).
struct Case {
    event: String,
    map: String,
    trace: String,
    original: String,
}

/// The corpus's bundled traces as Sentry events (frames oldest first, V8's 1-based lines and columns).
fn events(dist: &Path) -> Vec<Case> {
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
            let event = sentry_event(i, trace, &prefix, "https://cdn.example.com");
            // `cases.json` names maps from the corpus's folder.
            let map = dist
                .parent()
                .unwrap_or(dist)
                .join(case["map"].as_str().unwrap_or_default())
                .display()
                .to_string();
            Case {
                event: event.to_string(),
                map,
                trace: trace.to_string(),
                original: case["original"].as_str().unwrap_or_default().to_string(),
            }
        })
        .collect()
}

/// One engine's rows: a command per (jobs, cache budget).
type Engine<'a> = (
    &'a str,
    Box<dyn Fn(usize, Option<usize>, &Path) -> Command + 'a>,
);

pub fn run(bin: &Path, samples: usize) {
    let dist = Path::new("fixtures/roundtrip/dist");
    if !dist.join("cases.json").exists() {
        println!(
            "\n(crash pipelines: skipped, fixtures/roundtrip/dist/cases.json is missing: `cargo test --test roundtrip` \
             builds it)"
        );
        return;
    }
    let cases = events(dist);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let sentry = bin.with_file_name("sentry-engine");
    println!(
        "\n### Crash pipelines: events per second (issue 46)\n\n{} real events (the round-trip corpus's crashes as \
         Sentry events), maps under {}, whole process, medians of {samples}.\n",
        cases.len(),
        dist.display()
    );
    let mut engines: Vec<Engine> = vec![(
        "symbolicate --ndjson",
        Box::new(|jobs, cache_mb, dir| {
            let mut c = Command::new(bin);
            c.args([
                "symbolicate",
                "--ndjson",
                "--jobs",
                &jobs.to_string(),
                "--maps",
            ])
            .arg(dir);
            if let Some(mb) = cache_mb {
                c.args(["--cache-mb", &mb.to_string()]);
            }
            c
        }),
    )];
    if sentry.exists() {
        engines.push((
            "Sentry's engine",
            Box::new(|jobs, cache_mb, dir| {
                let mut c = Command::new(&sentry);
                c.args(["--jobs", &jobs.to_string(), "--maps"]).arg(dir);
                if let Some(mb) = cache_mb {
                    c.args(["--cache-mb", &mb.to_string()]);
                }
                c
            }),
        ));
    } else {
        println!(
            "(Sentry's engine: skipped, build it with `cargo build --release -p sourcemap-bench --features sentry \
             --bin sentry-engine`)\n"
        );
    }
    let redis = which("redis-server");
    if redis.is_none() {
        println!("(the worker through Redis: skipped, `redis-server` is not installed: scripts/test-deps)\n");
    }
    println!(
        "| scenario | events | engine | jobs | time | events/s | events/s per core | peak memory |\n\
         |---|---|---|---|---|---|---|---|"
    );
    // Each event seen again with an id of its own (`seen_again`).
    let input = |n: usize| -> String {
        cases
            .iter()
            .cycle()
            .take(n)
            .enumerate()
            .map(|(k, c)| crate::seen_again::seen_again(&c.event, k))
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    };
    // Warm is a steady state: enough events that each process's start (the scan of the folder, Redis's group) is
    // small beside them. Churn, slower per event, keeps ten rounds.
    let warm = input(cases.len() * 30);
    let churn = input(cases.len() * 10);
    let once = input(cases.len());
    let (cold_dir, cold) = cold_releases(dist, &cases, false);
    let (new_dir, cold_new) = cold_releases(dist, &cases, true);
    // events/s per core, by (scenario, engine).
    let mut rates: Vec<(&str, &str, f64)> = Vec::new();
    for (scenario, input, cache_mb, dir) in [
        ("warm", &warm, None, dist),
        ("churn (1 MiB cache)", &churn, Some(1), dist),
        ("cold (a bundle per event)", &cold, None, cold_dir.as_path()),
        ("cold, every source new", &cold_new, None, new_dir.as_path()),
    ] {
        let count = input.lines().count();
        // The inputs kept for profiling one engine by hand (`perf record … < target/bench-inputs/warm.ndjson`).
        if std::env::var_os("SOURCEMAP_BENCH_KEEP_INPUTS").is_some() {
            let kept = Path::new("target/bench-inputs");
            let _ = std::fs::create_dir_all(kept);
            let name: String = scenario
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .collect();
            let _ = std::fs::write(kept.join(format!("{name}.ndjson")), input);
            println!("(kept: {} for {})", kept.display(), dir.display());
        }
        for (engine, command) in &engines {
            let mut best = 0.0f64;
            for jobs in [1, cores] {
                let (took, peak) =
                    whole_process_median(samples, || command(jobs, cache_mb, dir), input);
                let rate = count as f64 / took.as_secs_f64();
                best = best.max(rate / jobs as f64);
                println!(
                    "| {scenario} | {count} | {engine} | {jobs} | {:.2} s | {rate:.0} | {:.0} | {} |",
                    took.as_secs_f64(),
                    rate / jobs as f64,
                    mb(peak)
                );
            }
            rates.push((scenario, engine, best));
        }
        if redis.is_some() {
            for workers in [1, 2] {
                let runs: Vec<(Duration, u64)> = (0..samples.max(1))
                    .map(|_| through_redis(bin, dir, input, workers, cache_mb))
                    .collect();
                let took = crate::median(runs.iter().map(|r| r.0).collect());
                let peak = runs.iter().map(|r| r.1).max().unwrap_or(0);
                let rate = count as f64 / took.as_secs_f64();
                rates.push((
                    scenario,
                    if workers == 1 {
                        "1 worker"
                    } else {
                        "2 workers"
                    },
                    rate,
                ));
                println!(
                    "| {scenario} | {count} | `worker` through Redis | {workers} × 1 | {:.2} s | {rate:.0} | {:.0} | \
                     {} each |",
                    took.as_secs_f64(),
                    rate / workers as f64,
                    mb(peak)
                );
            }
        }
    }
    let metro = Path::new("fixtures/metro-reference/node_modules/.bin/metro-symbolicate");
    let mut metro_rate = None;
    if metro.exists() {
        // One process per event, as a pipeline built on it runs: 20 events.
        let sample: Vec<&Case> = cases.iter().step_by(cases.len() / 20).take(20).collect();
        let started = Instant::now();
        let mut peak = 0;
        for case in &sample {
            let (_, p) =
                crate::one_line::whole_process(Command::new(metro).arg(&case.map), &case.trace);
            peak = peak.max(p);
        }
        let took: Duration = started.elapsed();
        let rate = sample.len() as f64 / took.as_secs_f64();
        metro_rate = Some(rate);
        println!(
            "| cold | {} | metro-symbolicate, a process per event | 1 | {:.2} s | {rate:.1} | {rate:.1} | {} |",
            sample.len(),
            took.as_secs_f64(),
            mb(peak)
        );
    } else {
        println!("\n(metro-symbolicate: skipped, fixtures/metro-reference is not installed)");
    }

    let rate = |scenario: &str, engine: &str| {
        rates
            .iter()
            .find(|r| r.0 == scenario && r.1 == engine)
            .map(|r| r.2)
    };
    println!("\nPer core, each engine at its best of one job and every core:\n");
    for scenario in [
        "warm",
        "churn (1 MiB cache)",
        "cold (a bundle per event)",
        "cold, every source new",
    ] {
        let ours = rate(scenario, "symbolicate --ndjson").unwrap_or(0.0);
        let mut said = format!("- {scenario}: `symbolicate --ndjson` {ours:.0} events/s per core");
        if let Some(theirs) = rate(scenario, "Sentry's engine") {
            let _ = write!(
                said,
                ", **{:.1}× Sentry's engine** ({theirs:.0})",
                ours / theirs
            );
        }
        if let (Some(one), Some(two)) = (rate(scenario, "1 worker"), rate(scenario, "2 workers")) {
            let _ = write!(said, "; 2 workers **{:.2}× one worker**", two / one);
        }
        println!("{said}");
    }
    if let Some(metro) = metro_rate {
        println!(
            "- warm, one job: {:.0}× metro-symbolicate's events/s (a process per event)",
            rate("warm", "symbolicate --ndjson").unwrap_or(0.0) / metro
        );
    }

    // Names against the truth, on the cold input (each event once).
    println!(
        "\nFunction names against node's, on the frames whose answer is a frame of the original trace (same file, \
         line and column), compared as the round-trip test compares them (`tests/support/names.rs`):\n\n\
         | engine | frames | mapped | at a frame of the original trace | right names | share |\n|---|---|---|---|---|---|"
    );
    for (engine, command) in &engines {
        let out = output_of(command(cores, None, dist), &once);
        let got: Vec<&str> = out.lines().collect();
        let (mut frames, mut mapped, mut paired, mut right) = (0, 0, 0, 0);
        for (case, line) in cases.iter().zip(&got) {
            let truth: Vec<(Option<&str>, &str, u32, u32)> =
                case.original.lines().filter_map(v8_frame).collect();
            let event: Value = serde_json::from_str(line).unwrap_or(Value::Null);
            let answered = event
                .pointer("/exception/values/0/stacktrace/frames")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for f in &answered {
                frames += 1;
                if f.pointer("/data/symbolicated") != Some(&Value::Bool(true)) {
                    continue;
                }
                mapped += 1;
                let (Some(file), Some(l), Some(c)) = (
                    f["filename"].as_str(),
                    f["lineno"].as_u64(),
                    f["colno"].as_u64(),
                ) else {
                    continue;
                };
                let Some(t) = truth
                    .iter()
                    .find(|t| u64::from(t.2) == l && u64::from(t.3) == c && same_file(t.1, file))
                else {
                    continue;
                };
                paired += 1;
                if names::simple_name(t.0) == names::simple_name(f["function"].as_str()) {
                    right += 1;
                }
            }
        }
        println!(
            "| {engine} | {frames} | {mapped} | {paired} | {right} | {:.1} % |",
            100.0 * right as f64 / paired.max(1) as f64
        );
    }
}

/// Each event with a release of its own: its bundle and map hard-linked into `target/bench-pipeline-cold/rN/`
/// (the same bytes, another file to every cache), its URLs moved there. The folder and the events.
///
/// The releases' maps carry the same sources, as an app's releases carry the same libraries (`lodash.js` is in 50 of
/// the 110 maps): a source's scopes and lines are shared by their content. With `sources_new`, every source of a
/// release's map is made its own (a comment line naming the release appended to its `sourcesContent`, after every
/// position a frame names), so that nothing of an event was seen before: the cold scenario at its worst.
fn cold_releases(dist: &Path, cases: &[Case], sources_new: bool) -> (PathBuf, String) {
    let dir = PathBuf::from(if sources_new {
        "target/bench-pipeline-cold-new"
    } else {
        "target/bench-pipeline-cold"
    });
    let _ = std::fs::remove_dir_all(&dir);
    let mut events = String::new();
    for (i, case) in cases.iter().enumerate() {
        let release = dir.join(format!("r{i}"));
        let map = Path::new(&case.map);
        let bundle = map.with_extension("");
        let inside = bundle
            .strip_prefix(dist)
            .expect("the corpus's bundles are under dist");
        std::fs::create_dir_all(release.join(inside).parent().unwrap()).unwrap();
        for file in [&bundle, &map.to_path_buf()] {
            let to = release.join(file.strip_prefix(dist).unwrap());
            if sources_new && file.as_path() == map {
                let mut json: Value =
                    serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
                if let Some(Value::Array(contents)) = json.get_mut("sourcesContent") {
                    for content in contents.iter_mut() {
                        if let Value::String(text) = content {
                            let _ = write!(text, "\n// release r{i}\n");
                        }
                    }
                }
                std::fs::write(&to, serde_json::to_vec(&json).unwrap()).unwrap();
            } else if std::fs::hard_link(file, &to).is_err() {
                std::fs::copy(file, &to).unwrap();
            }
        }
        events.push_str(&case.event.replace(
            "https://cdn.example.com/",
            &format!("https://cdn.example.com/r{i}/"),
        ));
        events.push('\n');
    }
    (dir, events)
}

/// Whether a source as a map names it (`../../node_modules/x.js`, `webpack://app/./src/a.js`) is the file at `path`:
/// its path, without a scheme and `.`/`..` parts, is a tail of `path` (the longest that is).
fn same_file(path: &str, source: &str) -> bool {
    let source = source.split_once("://").map_or(source, |(_, rest)| rest);
    let parts: Vec<&str> = source
        .split('/')
        .filter(|p| !p.is_empty() && *p != "." && *p != "..")
        .collect();
    (0..parts.len()).any(|i| path.ends_with(&format!("/{}", parts[i..].join("/"))))
}

/// stdout of a process fed `input`.
fn output_of(mut command: Command, input: &str) -> String {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the process starts");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().expect("the process ends");
    let _ = writer.join();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub(crate) fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|p| p.is_file())
    })
}

/// `workers` workers (`--jobs 1` each) through a fresh `redis-server` on a loopback port, the input already in the
/// stream: the time from their start to the last output entry, and the largest worker's peak memory (`VmHWM`, read
/// before it is stopped).
fn through_redis(
    bin: &Path,
    dist: &Path,
    input: &str,
    workers: usize,
    cache_mb: Option<usize>,
) -> (Duration, u64) {
    let dir = std::env::temp_dir().join(format!("sourcemap-bench-redis-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut server = Command::new("redis-server")
        .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
        .args(["--save", "", "--appendonly", "no", "--dir"])
        .arg(&dir)
        .stdout(Stdio::null())
        .spawn()
        .expect("redis-server starts");
    let url = format!("redis://127.0.0.1:{port}/0");
    let started = Instant::now();
    let mut c = loop {
        let connection = redis::Client::open(url.as_str()).and_then(|c| c.get_connection());
        if let Ok(mut c) = connection {
            if redis::cmd("PING").query::<String>(&mut c).is_ok() {
                break c;
            }
        }
        assert!(
            started.elapsed().as_secs() < 20,
            "redis-server did not start"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let events: Vec<&str> = input.lines().collect();
    for chunk in events.chunks(500) {
        let mut pipe = redis::pipe();
        for event in chunk {
            pipe.cmd("XADD")
                .arg("in")
                .arg("*")
                .arg("event")
                .arg(*event)
                .ignore();
        }
        pipe.query::<()>(&mut c).unwrap();
    }
    let started = Instant::now();
    let mut children: Vec<std::process::Child> = (0..workers)
        .map(|k| {
            let mut w = Command::new(bin);
            w.args(["worker", "--redis", &url, "--stream", "in", "--group", "g"])
                .args([
                    "--consumer",
                    &format!("w{k}"),
                    "--output",
                    "out",
                    "--jobs",
                    "1",
                    "--maps",
                ])
                .arg(dist);
            if let Some(mb) = cache_mb {
                w.args(["--cache-mb", &mb.to_string()]);
            }
            w.stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("the worker starts")
        })
        .collect();
    let len =
        |c: &mut redis::Connection| redis::cmd("XLEN").arg("out").query::<usize>(c).unwrap_or(0);
    while len(&mut c) < events.len() {
        assert!(
            started.elapsed().as_secs() < 600,
            "the workers did not finish"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    let took = started.elapsed();
    let mut peak = 0;
    for child in &mut children {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
        let kb: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0);
        peak = peak.max(kb * 1024);
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(child.id().to_string())
            .status();
    }
    for child in &mut children {
        let _ = child.wait();
    }
    let _ = server.kill();
    let _ = server.wait();
    let _ = std::fs::remove_dir_all(&dir);
    (took, peak)
}
