//! Warm events of the real SDKs against the naive pipeline (issue 56): the events `fixtures/sentry-releases` recorded
//! from the real `@sentry/node` 10 and 7 and `@sentry/browser` 10 (two releases each) repeated to 2,000, each again
//! with an id of its own (`seen_again`), every map, bundle and source already seen after the first few. Whole process, medians over the samples, in one run:
//! - `symbolicate --ndjson --maps-by-release`, one job and two;
//! - the naive pipeline a user writes first (`bench/naive/trace-mapping-pipeline.cjs`: `@jridgewell/trace-mapping`,
//!   maps loaded once, positions and the map's names only: no function names from code, no context lines, no fit
//!   check, no debug IDs);
//! - the same against 2,000 distinct events (issue 66: each keeps a subset of its frames of its own, so no event is
//!   seen again and no kept event answer serves, while its frames recur as a library's and an app's frames do
//!   across different crashes);
//! - with `strace` at hand, the file-system calls a warm event makes (the calls of 2,000 events less those of the first
//!   30, per event).
//!
//! `WARM_SDK_INPUTS=DIR` writes both inputs into `DIR` (`seen-again.ndjson`, `distinct.ndjson`), for a profiler.
//!
//! The events need the corpus built (`cargo nextest run --test sentry_releases` runs its `make.mjs`); without it the
//! rows say so.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::one_line::whole_process_median;

/// Events in the run.
const EVENTS: usize = 2_000;
/// The system calls counted as file-system calls.
const FS_CALLS: &str = "readlink,statx,stat,lstat,newfstatat,openat,getcwd,pread64,access";

fn events(dist: &Path) -> Option<String> {
    let mut lines = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dist.join("events"))
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            // The plain events of each SDK (the `-injected` ones are the same events with debug IDs).
            !name.contains("injected")
        })
        .collect();
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(f).ok()?;
        lines.extend(
            text.lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_string),
        );
    }
    if lines.is_empty() {
        return None;
    }
    let mut out = String::new();
    for k in 0..EVENTS {
        // Each seen again with an id of its own, as a crash that happens again is a new event.
        let line = &lines[k % lines.len()];
        out.push_str(&if k < lines.len() {
            line.clone()
        } else {
            crate::seen_again::seen_again(line, k)
        });
        out.push('\n');
    }
    Some(out)
}

/// The same events made distinct (issue 66): the `k`-th keeps a subset of each exception's frames of its own (each
/// frame kept with probability 3/4, the crash frame always), so no two events of the run have the same frames while
/// their frames recur, as the same library and app frames do across different crashes; each with an id of its own.
fn distinct(events: &str) -> String {
    let lines: Vec<serde_json::Value> = events
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let mut rng = sourcemap_fixtures::Rng::new(66);
    let mut seen = std::collections::HashSet::new();
    let mut out = String::new();
    let mut k = 0;
    while seen.len() < EVENTS && k < EVENTS * 20 {
        let mut event = lines[k % lines.len()].clone();
        k += 1;
        for value in event["exception"]["values"]
            .as_array_mut()
            .into_iter()
            .flatten()
        {
            if let Some(frames) = value["stacktrace"]["frames"].as_array_mut() {
                let last = frames.len().saturating_sub(1);
                let mut i = 0;
                frames.retain(|_| {
                    i += 1;
                    i - 1 == last || rng.below(4) != 0
                });
            }
        }
        let text = event.to_string();
        if seen.insert(text.clone()) {
            let mut with_id = event;
            with_id["event_id"] = format!("{:032x}", seen.len()).into();
            out.push_str(&with_id.to_string());
            out.push('\n');
        }
    }
    out
}

/// File-system calls of `cmd` on `input` (`strace -c -f`), summed over [`FS_CALLS`]; `None` without strace.
fn fs_calls(mut cmd: Command, input: &str) -> Option<u64> {
    let mut strace = Command::new("strace");
    strace
        .args([
            "-c",
            "-f",
            "-e",
            &format!("trace={FS_CALLS}"),
            "-o",
            "/dev/stderr",
        ])
        .arg(cmd.get_program())
        .args(cmd.get_args());
    if let Some(dir) = cmd.get_current_dir() {
        strace.current_dir(dir);
    }
    let _ = &mut cmd;
    let mut child = strace
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let input = input.to_string();
    let writer =
        std::thread::spawn(move || std::io::Write::write_all(&mut stdin, input.as_bytes()));
    let out = child.wait_with_output().ok()?;
    let _ = writer.join();
    let text = String::from_utf8_lossy(&out.stderr);
    // The summary's `total` line: "100.00    0.000123    4    1234    56 total".
    let total = text.lines().find(|l| l.trim_end().ends_with("total"))?;
    let fields: Vec<&str> = total.split_whitespace().collect();
    fields.get(fields.len().checked_sub(3)?)?.parse().ok()
}

/// One table: the naive pipeline and ours with one job and two on `input`, after `caption`.
fn print_rows(
    samples: usize,
    naive: &dyn Fn() -> Command,
    ours: &dyn Fn(usize) -> Command,
    input: &str,
    caption: &str,
) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let (t_naive, p_naive) = whole_process_median(samples, naive, input);
    let (t1, p1) = whole_process_median(samples, || ours(1), input);
    let (t2, p2) = whole_process_median(samples, || ours(2), input);
    println!("\n{caption}\n");
    println!("| pipeline | time | peak | naive ÷ this | goal |");
    println!("|---|---:|---:|---:|---|");
    println!(
        "| naive: node + `@jridgewell/trace-mapping` (positions and the map's names only) | {:.0} ms | {} | 1.00 | |",
        ms(t_naive),
        crate::one_line::mb(p_naive)
    );
    for (name, t, p) in [
        ("`symbolicate --ndjson --jobs 1`", t1, p1),
        ("`symbolicate --ndjson --jobs 2`", t2, p2),
    ] {
        println!(
            "| {name} (names from code, context lines, fit check, debug IDs, release folders) | {:.0} ms | {} | {:.2} | ≥ 5 (`--jobs 2`) |",
            ms(t),
            crate::one_line::mb(p),
            t_naive.as_secs_f64() / t.as_secs_f64()
        );
    }
}

pub fn run(bin: &Path, samples: usize) {
    let dist = std::fs::canonicalize("fixtures/sentry-releases/dist").unwrap_or_default();
    let releases = dist.join("releases");
    let trace_mapping =
        std::fs::canonicalize("fixtures/sentry-releases/node_modules/@jridgewell/trace-mapping")
            .unwrap_or_default();
    println!("\n### Warm events of the real SDKs against the naive pipeline (issue 56)\n");
    let Some(events) = events(&dist) else {
        println!(
            "(skipped: no events in fixtures/sentry-releases/dist; `cargo nextest run --test sentry_releases` makes \
             them)"
        );
        return;
    };
    let naive_script = std::fs::canonicalize("bench/naive/trace-mapping-pipeline.cjs").unwrap();
    let ours = |jobs: usize| {
        let mut c = Command::new(bin);
        c.args([
            "symbolicate",
            "--ndjson",
            "--jobs",
            &jobs.to_string(),
            "--maps-by-release",
        ])
        .arg(&releases);
        c
    };
    let naive = || {
        let mut c = Command::new("node");
        c.arg(&naive_script)
            .arg(&releases)
            .env("TRACE_MAPPING", &trace_mapping);
        c
    };
    // The naive pipeline must answer frames, or its time means nothing.
    let check = naive()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            let mut stdin = child.stdin.take().expect("piped");
            let input = events.clone();
            let writer =
                std::thread::spawn(move || std::io::Write::write_all(&mut stdin, input.as_bytes()));
            let out = child.wait_with_output();
            let _ = writer.join();
            out
        });
    match check {
        Ok(out)
            if out.status.success()
                && String::from_utf8_lossy(&out.stdout).contains("checkout.js") => {}
        Ok(out) => {
            println!(
                "(skipped: the naive pipeline answered nothing: {})",
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .next()
                    .unwrap_or_default()
            );
            return;
        }
        Err(e) => {
            println!("(skipped: node does not run: {e})");
            return;
        }
    }
    print_rows(
        samples,
        &naive,
        &ours,
        &events,
        &format!(
            "{EVENTS} events (`fixtures/sentry-releases/dist/events`: `sentry10-*`, `sentry7-*`, `browser10-*`, \
             repeated, each again with an id of its own), maps by release under `dist/releases`, whole process, \
             medians of {samples}."
        ),
    );
    let distinct = distinct(&events);
    // The inputs kept for a profiler's run of one side (`WARM_SDK_INPUTS=DIR`).
    if let Some(dir) = std::env::var_os("WARM_SDK_INPUTS") {
        let dir = PathBuf::from(dir);
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join("seen-again.ndjson"), &events);
        let _ = std::fs::write(dir.join("distinct.ndjson"), &distinct);
    }
    print_rows(
        samples,
        &naive,
        &ours,
        &distinct,
        &format!(
            "{} distinct events (the same events, each keeping a subset of its frames of its own: no event seen \
             again, its frames recur), whole process, medians of {samples}.",
            distinct.lines().count()
        ),
    );
    let first: String = events.lines().take(30).map(|l| format!("{l}\n")).collect();
    match (fs_calls(ours(1), &first), fs_calls(ours(1), &events)) {
        (Some(a), Some(b)) => println!(
            "\nFile-system calls ({FS_CALLS}; `strace -c -f`): the first 30 events {a}, all {EVENTS} {b}: {:.2} a warm \
             event (goal 0).",
            (b.saturating_sub(a)) as f64 / (EVENTS - 30) as f64
        ),
        _ => println!("\n(file-system calls: strace is not at hand)"),
    }
}
