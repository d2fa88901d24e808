//! Profiles (issue 27): a long Hermes recording — a real recorded profile's frames and samples repeated with fresh
//! ids, as minutes of recording make them (~160K frames, ~18 MB) — through `sourcemap-ls profile … --out`, whole
//! process, against the floor (the file read into typed, borrowed structs with serde and written back, nothing else)
//! and metro-symbolicate; `--to cpuprofile` against hermes-profile-transformer; peak memory ÷ the profile's size.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::{ms, ratio, row, time, time_and_peak};

/// The real recording the long one is made of, with the map its frames resolve through, and the bundle's name for
/// hermes-profile-transformer.
pub struct Seed {
    pub profile: PathBuf,
    pub map: PathBuf,
    pub bundle_name: String,
}

/// How many frames the long recording has at least.
const LONG_FRAMES: usize = 160_000;

/// Writes the long recording: `seed`'s frames repeated with fresh ids (each copy's roots under the first copy's
/// root) and its samples repeated with those ids, each copy later in time.
pub fn make_long(seed: &Path, out: &Path) -> (usize, usize) {
    let v: Value = serde_json::from_slice(&std::fs::read(seed).unwrap()).unwrap();
    let frames = v["stackFrames"].as_object().unwrap();
    let samples = v["samples"].as_array().unwrap();
    let ids: Vec<u64> = frames.keys().map(|k| k.parse().unwrap()).collect();
    let max = ids.iter().max().copied().unwrap_or(0) + 1;
    let root = frames
        .iter()
        .find(|(_, f)| f.get("parent").is_none())
        .map(|(k, _)| k.parse::<u64>().unwrap())
        .unwrap();
    let ts = |s: &Value| s["ts"].as_str().unwrap().parse::<u64>().unwrap();
    let (first, last) = (ts(&samples[0]), ts(samples.last().unwrap()));
    let span = last - first + 1000;
    let copies = LONG_FRAMES.div_ceil(frames.len());
    let mut all_frames = serde_json::Map::new();
    let mut all_samples = Vec::new();
    for c in 0..copies as u64 {
        for (k, f) in frames {
            let id: u64 = k.parse().unwrap();
            if c > 0 && id == root {
                continue;
            }
            let mut f = f.clone();
            if let Some(p) = f.get("parent").and_then(Value::as_u64) {
                f["parent"] = json!(if p == root { root } else { p + c * max });
            }
            all_frames.insert((id + c * max).to_string(), f);
        }
        for s in samples {
            let mut s = s.clone();
            let sf = s["sf"].as_u64().unwrap();
            s["sf"] = json!(if sf == root { root } else { sf + c * max });
            s["ts"] = json!((ts(&s) + c * span).to_string());
            all_samples.push(s);
        }
    }
    let long =
        json!({"traceEvents": v["traceEvents"], "samples": all_samples, "stackFrames": all_frames});
    std::fs::write(out, serde_json::to_vec(&long).unwrap()).unwrap();
    (all_frames.len(), all_samples.len())
}

/// The floor's view of a Hermes profile: every field typed and borrowed.
#[derive(Deserialize, Serialize)]
struct FloorProfile<'a> {
    #[serde(borrow, rename = "traceEvents")]
    trace_events: Vec<BTreeMap<Cow<'a, str>, Value>>,
    #[serde(borrow)]
    samples: Vec<FloorSample<'a>>,
    #[serde(borrow, rename = "stackFrames")]
    stack_frames: BTreeMap<Cow<'a, str>, FloorFrame<'a>>,
}

#[derive(Deserialize, Serialize)]
struct FloorSample<'a> {
    #[serde(borrow)]
    cpu: Cow<'a, str>,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    ts: Cow<'a, str>,
    pid: u64,
    #[serde(borrow)]
    tid: Cow<'a, str>,
    #[serde(borrow)]
    weight: Cow<'a, str>,
    sf: u64,
}

#[derive(Deserialize, Serialize)]
struct FloorFrame<'a> {
    #[serde(borrow, skip_serializing_if = "Option::is_none")]
    line: Option<Cow<'a, str>>,
    #[serde(borrow, skip_serializing_if = "Option::is_none")]
    column: Option<Cow<'a, str>>,
    #[serde(borrow, rename = "funcLine", skip_serializing_if = "Option::is_none")]
    func_line: Option<Cow<'a, str>>,
    #[serde(borrow, rename = "funcColumn", skip_serializing_if = "Option::is_none")]
    func_column: Option<Cow<'a, str>>,
    #[serde(
        borrow,
        rename = "funcVirtAddr",
        skip_serializing_if = "Option::is_none"
    )]
    func_virt_addr: Option<Cow<'a, str>>,
    #[serde(borrow, skip_serializing_if = "Option::is_none")]
    offset: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow)]
    category: Cow<'a, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<u64>,
}

/// The floor: read the file, parse it into the typed borrowed structs, write it back to `out`.
fn floor(input: &Path, out: &Path) -> usize {
    let bytes = std::fs::read(input).unwrap();
    let p: FloorProfile = serde_json::from_slice(&bytes).unwrap();
    let file = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(out).unwrap());
    serde_json::to_writer(file, &p).unwrap();
    p.stack_frames.len()
}

fn run_quiet(cmd: &mut Command) -> bool {
    cmd.stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

pub fn run(bin: &Path, seed: &Seed, samples: usize) {
    let dir = PathBuf::from("target/bench-profile");
    std::fs::create_dir_all(&dir).unwrap();
    let long = dir.join("long.json");
    let (frames, sample_count) = make_long(&seed.profile, &long);
    let size = std::fs::metadata(&long).unwrap().len();
    println!(
        "\n### A long Hermes recording: {frames} frames, {sample_count} samples, {:.1} MB (`{}` repeated)\n",
        size as f64 / 1e6,
        seed.profile.display()
    );
    println!("| measure | sourcemap-ls | baseline | ratio |\n|---|---|---|---|");
    let out = dir.join("out.json");
    let floor_out = dir.join("floor.json");
    let floor_t = time(samples, || floor(&long, &floor_out));
    let ours = time(samples.min(3), || {
        run_quiet(
            Command::new(bin)
                .arg("profile")
                .arg(&long)
                .arg(&seed.map)
                .arg("--out")
                .arg(&out),
        )
    });
    row(
        "profile PROFILE MAP --out, whole process ÷ the floor (serde typed borrowed read + write; goal ≤ 2×)",
        &ms(ours),
        &ms(floor_t),
        &ratio(ours, floor_t),
    );
    let peak = time_and_peak(&[
        &bin.to_string_lossy(),
        "profile",
        &long.to_string_lossy(),
        &seed.map.to_string_lossy(),
        "--out",
        &out.to_string_lossy(),
    ]);
    if let Some((_, peak)) = peak {
        row(
            "peak resident memory ÷ the profile's size (goal ≤ 2×)",
            &format!("{:.1} MB", peak as f64 / 1e6),
            &format!("{:.1} MB", size as f64 / 1e6),
            &format!("{:.2}×", peak as f64 / size as f64),
        );
    }
    // metro-symbolicate rewrites a `.cpuprofile` in place: a fresh copy for each run.
    let metro = Path::new("fixtures/profiles/node_modules/metro-symbolicate/src/index.js");
    if metro.exists() {
        let copy = dir.join("metro.cpuprofile");
        let theirs = time(samples.min(3), || {
            std::fs::copy(&long, &copy).unwrap();
            run_quiet(Command::new("node").arg(metro).arg(&seed.map).arg(&copy))
        });
        let copy_only = time(samples.min(3), || std::fs::copy(&long, &copy).unwrap());
        let theirs = theirs.saturating_sub(copy_only);
        row(
            "profile --out ÷ metro-symbolicate 0.84.6 MAP PROFILE.cpuprofile, whole process (goal ≥ 5×, aim 10×)",
            &ms(ours),
            &ms(theirs),
            &format!("{:.1}× faster", theirs.as_secs_f64() / ours.as_secs_f64()),
        );
    } else {
        row(
            "vs metro-symbolicate",
            "—",
            "not installed (fixtures/profiles: npm ci)",
            "—",
        );
    }
    let converted = dir.join("converted.cpuprofile");
    let ours_to = time(samples.min(3), || {
        run_quiet(
            Command::new(bin)
                .arg("profile")
                .arg(&long)
                .arg(&seed.map)
                .args(["--to", "cpuprofile", "--out"])
                .arg(&converted),
        )
    });
    let transformer = Path::new("fixtures/profiles/node_modules/hermes-profile-transformer");
    if transformer.exists() {
        let script = format!(
            "const t=require({:?}).default;const fs=require('fs');t({:?},{:?},{:?}).then(p=>fs.writeFileSync({:?},JSON.stringify(p)))",
            std::fs::canonicalize(transformer).unwrap(),
            std::fs::canonicalize(&long).unwrap(),
            std::fs::canonicalize(&seed.map).unwrap(),
            seed.bundle_name,
            dir.join("transformer.cpuprofile")
        );
        let theirs = time(samples.min(3), || {
            run_quiet(Command::new("node").arg("-e").arg(&script))
        });
        row(
            "profile --to cpuprofile ÷ hermes-profile-transformer 0.0.9, whole process",
            &ms(ours_to),
            &ms(theirs),
            &format!(
                "{:.1}× faster",
                theirs.as_secs_f64() / ours_to.as_secs_f64()
            ),
        );
    }
}
