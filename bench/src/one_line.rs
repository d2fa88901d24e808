//! `symbolicate` of a few frames in a one-line bundle (issue 44): many real libraries bundled and minified by
//! esbuild onto one line of ~22 MB with an ~80 MB map (`fixtures/one-line/make.mjs`), whole process: time and peak
//! resident memory, against `lookup` of the same positions (whole process, measured in the same run) and one oxc parse
//! of the bundle in process (what naming frames from the code cost before it was parsed in parts). Goals: peak
//! ≤ 300 MB, time ≤ 3 × lookup + one parse.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::{median, ms, time, Rng};

/// Time and peak resident memory (bytes) of one whole process fed `input`, its output thrown away. The peak is GNU
/// time's (`/usr/bin/time -f %M`), which starts the process from its own small one: a child this process spawned
/// directly would count this process's pages it was forked or vforked from (Linux keeps the mm's high-water mark
/// across `exec`), so its `ru_maxrss` would read as this benchmark's own size. 0 when GNU time is absent.
pub(crate) fn whole_process(cmd: &mut Command, input: &str) -> (Duration, u64) {
    let report = std::env::temp_dir().join(format!("sourcemap-bench-rss-{}", std::process::id()));
    let gnu_time = Path::new("/usr/bin/time").exists();
    let mut wrapped = if gnu_time {
        let mut w = Command::new("/usr/bin/time");
        w.arg("-f")
            .arg("%M")
            .arg("-o")
            .arg(&report)
            .arg(cmd.get_program())
            .args(cmd.get_args());
        w
    } else {
        let mut w = Command::new(cmd.get_program());
        w.args(cmd.get_args());
        w
    };
    // What the command was given besides its arguments goes with it.
    for (key, value) in cmd.get_envs() {
        match value {
            Some(v) => wrapped.env(key, v),
            None => wrapped.env_remove(key),
        };
    }
    if let Some(dir) = cmd.get_current_dir() {
        wrapped.current_dir(dir);
    }
    let started = Instant::now();
    let mut child = wrapped
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the process starts");
    // A closed pipe (the process read nothing) is not an error of the measure.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    child.wait().expect("the process ends");
    let elapsed = started.elapsed();
    let kilobytes: u64 = std::fs::read_to_string(&report)
        .ok()
        .and_then(|t| t.lines().last()?.trim().parse().ok())
        .unwrap_or(0);
    let _ = std::fs::remove_file(&report);
    (elapsed, kilobytes * 1024)
}

/// Medians of `samples` runs: (time, peak bytes).
pub(crate) fn whole_process_median(
    samples: usize,
    mut cmd: impl FnMut() -> Command,
    input: &str,
) -> (Duration, u64) {
    let runs: Vec<(Duration, u64)> = (0..samples.max(1))
        .map(|_| whole_process(&mut cmd(), input))
        .collect();
    let mut peaks: Vec<u64> = runs.iter().map(|r| r.1).collect();
    peaks.sort_unstable();
    (
        median(runs.iter().map(|r| r.0).collect()),
        peaks[peaks.len() / 2],
    )
}

pub(crate) fn mb(bytes: u64) -> String {
    format!("{:.0} MB", bytes as f64 / 1e6)
}

pub fn run(bin: &Path, samples: usize) {
    let out = Path::new("target/bench-one-line");
    let (bundle, map) = (out.join("one-line.js"), out.join("one-line.js.map"));
    if !map.exists() {
        let built = Command::new("node")
            .arg("fixtures/one-line/make.mjs")
            .arg(out)
            .status()
            .is_ok_and(|s| s.success());
        if !built {
            println!("\n(the one-line bundle: skipped, `node fixtures/one-line/make.mjs` failed: `cd fixtures/one-line && npm ci` first)");
            return;
        }
    }
    let text = std::fs::read_to_string(&bundle).unwrap();
    let code = text.lines().next().unwrap_or_default();
    let map_arg = map.to_string_lossy().into_owned();
    println!(
        "\n### `symbolicate` of a few frames in a one-line bundle ({:.1} MB on one line, a {:.0} MB map)\n",
        code.len() as f64 / 1e6,
        std::fs::metadata(&map).map_or(0, |m| m.len()) as f64 / 1e6
    );
    let parse = time(samples, || {
        let allocator = oxc_allocator::Allocator::default();
        let ret =
            oxc_parser::Parser::new(&allocator, &text, oxc_span::SourceType::unambiguous()).parse();
        ret.program.body.len()
    });
    println!("| frames | symbolicate: time | peak | lookup of the same positions: time | peak | one oxc parse (in process) | symbolicate ÷ (3 × lookup + parse) | goals |");
    println!("|---|---|---|---|---|---|---|---|");
    for frames in [2usize, 50] {
        let mut rng = Rng::new(7 + frames as u64);
        let columns: Vec<usize> = (0..frames)
            .map(|_| rng.below(code.len() as u64) as usize + 1)
            .collect();
        let trace: String = std::iter::once("Error: boom\n".to_string())
            .chain(
                columns
                    .iter()
                    .map(|c| format!("    at f ({}:1:{c})\n", bundle.display())),
            )
            .collect();
        let (symbolicate, symbolicate_peak) = whole_process_median(
            samples,
            || {
                let mut c = Command::new(bin);
                c.args(["symbolicate", &map_arg]);
                c
            },
            &trace,
        );
        let positions: Vec<String> = columns.iter().map(|c| format!("1:{c}")).collect();
        let (lookup, lookup_peak) = whole_process_median(
            samples,
            || {
                let mut c = Command::new(bin);
                c.arg("lookup").arg(&map_arg).args(&positions);
                c
            },
            "",
        );
        let floor = lookup * 3 + parse;
        println!(
            "| {frames} | {} | {} | {} | {} | {} | {:.2} | peak ≤ 300 MB, ratio ≤ 1 |",
            ms(symbolicate),
            mb(symbolicate_peak),
            ms(lookup),
            mb(lookup_peak),
            ms(parse),
            symbolicate.as_secs_f64() / floor.as_secs_f64()
        );
    }
}
