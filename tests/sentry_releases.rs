//! Identity, not names (issue 55), on events made by the real Sentry SDKs (`fixtures/sentry-releases`: two releases
//! of one app built to one path, `dist/app.js`; `@sentry/node` 10 and 7 with a transport writing each event; the
//! builds again after the real `sentry-cli sourcemaps inject`, in a store laid out by debug ID; the truth of every
//! frame from `node --enable-source-maps`). Each event goes through `symbolicate --ndjson` and every frame in the
//! bundle is compared with the truth: the map's source, line and column.
//!
//! - `--maps-by-release DIR`: each event's frames found in its own release's folder only: every frame right, its
//!   `abs_path` the source joined to the minified file's URL (`app:///src/…`, `http://localhost/src/…`) as Sentry's
//!   symbolicator writes it. Events of `@sentry/browser` (in jsdom) too: they carry no context lines.
//! - the invocation, both releases' folders as plain `--maps`: no frame answered from the other release
//!   (same-named bundles are told apart by evidence, else left unmapped and said).
//! - `--maps DIR` of maps named by debug ID (`<id>.js.map`, as sentry-cli wrote them): every frame of the injected
//!   builds' events, found by the event's `debug_meta` image.
//! - an event of a release with no folder: nothing answered, and said.

#[path = "support/npm_fixture.rs"]
mod npm_fixture;
#[path = "support/process.rs"]
mod process;

use std::path::{Path, PathBuf};
use std::process::Command;

use process::output_with_stdin;
use serde_json::Value;

fn fixture() -> PathBuf {
    npm_fixture::built("sentry-releases", &["@sentry/node"])
}

/// Every events file named, concatenated, through `symbolicate --ndjson ARGS` run in `dist/`: the events out
/// (one per line in) and stderr.
fn symbolicated(dist: &Path, files: &[&str], args: &[&str]) -> (Vec<Value>, Vec<Value>, String) {
    let input: String = files
        .iter()
        .map(|f| std::fs::read_to_string(dist.join("events").join(f)).unwrap())
        .collect();
    let out = output_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
            .current_dir(dist)
            .args(["symbolicate", "--ndjson", "--jobs", "2"])
            .args(args),
        &input,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events_in: Vec<Value> = input
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let events_out: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events_in.len(), events_out.len());
    (
        events_in,
        events_out,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Per frame in a bundle with a truth: (what the truth says, what came: `None` when left as sent).
struct Tally {
    right: usize,
    unmapped: usize,
    wrong: Vec<String>,
}

fn compare(truth: &Value, file: &str, events_in: &[Value], events_out: &[Value]) -> Tally {
    let mut t = Tally {
        right: 0,
        unmapped: 0,
        wrong: Vec::new(),
    };
    let events = truth["events"][format!("events/{file}")]
        .as_array()
        .unwrap();
    for e in events {
        let i = events_in
            .iter()
            .position(|v| v["event_id"] == e["event_id"])
            .expect("the event is in the input");
        let out = &events_out[i];
        for x in e["exceptions"].as_array().unwrap() {
            let values = &out["exception"]["values"][x["index"].as_u64().unwrap() as usize];
            for f in x["frames"].as_array().unwrap() {
                let frame = &values["stacktrace"]["frames"][f["frame"].as_u64().unwrap() as usize];
                let o = &f["original"];
                let sent = &events_in[i]["exception"]["values"]
                    [x["index"].as_u64().unwrap() as usize]["stacktrace"]["frames"]
                    [f["frame"].as_u64().unwrap() as usize];
                if frame["lineno"] == sent["lineno"] && frame["filename"] == sent["filename"] {
                    t.unmapped += 1;
                    continue;
                }
                let came = (&frame["filename"], &frame["lineno"], &frame["colno"]);
                // `abs_path` as symbolicator writes it: the source joined to the minified file's URL.
                let sent_url = sent["abs_path"]
                    .as_str()
                    .or(sent["filename"].as_str())
                    .unwrap();
                let absolute = frame["abs_path"]
                    .as_str()
                    .is_some_and(|a| a.starts_with(&sent_url[..sent_url.find("://").unwrap() + 3]));
                if came == (&o["source"], &o["line"], &o["column"]) && absolute {
                    t.right += 1;
                } else {
                    t.wrong.push(format!(
                        "{file} {} {}: {}:{}:{} for {}:{}:{}",
                        e["release"],
                        e["scenario"],
                        came.0,
                        came.1,
                        came.2,
                        o["source"],
                        o["line"],
                        o["column"]
                    ));
                }
            }
        }
    }
    t
}

const PLAIN: [&str; 6] = [
    "sentry10-shop@1.0.0.ndjson",
    "sentry10-shop@2.0.0.ndjson",
    "sentry7-shop@1.0.0.ndjson",
    "sentry7-shop@2.0.0.ndjson",
    "browser10-shop@1.0.0.ndjson",
    "browser10-shop@2.0.0.ndjson",
];

#[test]
fn each_event_is_answered_from_its_own_release() {
    let d = fixture();
    let dist = d.join("dist");
    let truth: Value =
        serde_json::from_str(&std::fs::read_to_string(dist.join("truth.json")).unwrap()).unwrap();
    let (events_in, events_out, _) =
        symbolicated(&dist, &PLAIN, &["--maps-by-release", "releases"]);
    let mut total = 0;
    for file in PLAIN {
        let t = compare(&truth, file, &events_in, &events_out);
        assert!(t.wrong.is_empty(), "{:#?}", t.wrong);
        assert_eq!(t.unmapped, 0, "{file}: frames left unmapped");
        total += t.right;
    }
    assert!(total >= 100, "{total} frames");
    // One event alone, its file the last argument (not taken for a map: it is JSON, but an event): the same answer.
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("event.json");
    std::fs::write(&one, serde_json::to_string_pretty(&events_in[0]).unwrap()).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
        .current_dir(&dist)
        .args(["symbolicate", "--maps-by-release", "releases"])
        .arg(&one)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let alone: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(alone["exception"], events_out[0]["exception"]);
}

#[test]
fn two_releases_as_plain_folders_never_answer_each_others_frames() {
    let d = fixture();
    let dist = d.join("dist");
    let truth: Value =
        serde_json::from_str(&std::fs::read_to_string(dist.join("truth.json")).unwrap()).unwrap();
    for order in [
        ["releases/shop@2.0.0", "releases/shop@1.0.0"],
        ["releases/shop@1.0.0", "releases/shop@2.0.0"],
    ] {
        let (events_in, events_out, stderr) =
            symbolicated(&dist, &PLAIN, &["--maps", order[0], "--maps", order[1]]);
        let (mut right, mut unmapped) = (0, 0);
        for file in PLAIN {
            let t = compare(&truth, file, &events_in, &events_out);
            assert!(t.wrong.is_empty(), "{order:?}: {:#?}", t.wrong);
            right += t.right;
            unmapped += t.unmapped;
        }
        // What is left unmapped is said, with the way to choose.
        if unmapped > 0 {
            assert!(
                stderr.contains("bundles could be") || stderr.contains("another build"),
                "{stderr}"
            );
        }
        assert!(right > 0, "{order:?}");
    }
}

#[test]
fn a_store_by_debug_id_written_by_sentry_cli_maps_every_frame() {
    let d = fixture();
    let dist = d.join("dist");
    let truth: Value =
        serde_json::from_str(&std::fs::read_to_string(dist.join("truth.json")).unwrap()).unwrap();
    let injected = [
        "sentry10-injected-shop@1.0.0.ndjson",
        "sentry10-injected-shop@2.0.0.ndjson",
    ];
    // sentry-cli's own output: the map's debug ID and the bundle's `//# debugId=`.
    let store: Vec<PathBuf> = std::fs::read_dir(dist.join("by-debug-id"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".js.map"))
        .collect();
    assert_eq!(store.len(), 2);
    let (events_in, events_out, stderr) =
        symbolicated(&dist, &injected, &["--maps", "by-debug-id"]);
    let mut total = 0;
    for file in injected {
        let t = compare(&truth, file, &events_in, &events_out);
        assert!(t.wrong.is_empty(), "{:#?}", t.wrong);
        assert_eq!(t.unmapped, 0, "{file}: frames left unmapped\n{stderr}");
        total += t.right;
    }
    assert!(total >= 40, "{total} frames");
    // The same store with each map's `debugId` respelled as older sentry-cli versions and the bundler plugins write
    // it (`debug_id`), upper case, without dashes: the same answers.
    let dir = tempfile::tempdir().unwrap();
    for map in &store {
        let mut m: Value = serde_json::from_str(&std::fs::read_to_string(map).unwrap()).unwrap();
        let id = m.as_object_mut().unwrap().remove("debugId").unwrap();
        m["debug_id"] = Value::String(id.as_str().unwrap().replace('-', "").to_uppercase());
        std::fs::write(dir.path().join(map.file_name().unwrap()), m.to_string()).unwrap();
    }
    let (_, respelled, stderr) =
        symbolicated(&dist, &injected, &["--maps", dir.path().to_str().unwrap()]);
    for (a, b) in events_out.iter().zip(&respelled) {
        assert_eq!(a["exception"], b["exception"], "{stderr}");
    }
}

#[test]
fn an_event_of_a_release_without_maps_is_not_answered_from_another() {
    let d = fixture();
    let dist = d.join("dist");
    let line = std::fs::read_to_string(dist.join("events/sentry10-shop@1.0.0.ndjson")).unwrap();
    let mut event: Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
    event["release"] = Value::String("shop@3.0.0".into());
    let out = output_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
            .current_dir(&dist)
            .args(["symbolicate", "--ndjson", "--maps-by-release", "releases"]),
        &format!("{event}\n"),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let back: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(back["exception"], event["exception"], "nothing answered");
    assert!(
        stderr.contains("release shop@3.0.0 has no folder"),
        "{stderr}"
    );
}

/// Distinct events whose frames recur (issue 66): every event again with each of its frames left out in turn, and
/// with its frames' names left out, so no two events are alike while every frame comes again in events of other
/// shapes (and at the same place with other fields), answered from the frames'
/// kept answers (`trace::symbolicate::KeptFrames`) and the events' (`event_answers`). The stream writes the same
/// bytes as a run that keeps no answer (`--cache-mb 0`: no answer, map or parse is kept from one event to the next).
#[test]
fn distinct_events_whose_frames_recur_are_answered_as_without_keeping() {
    let d = fixture();
    let dist = d.join("dist");
    let mut input = String::new();
    let mut n = 0;
    for file in PLAIN {
        let text = std::fs::read_to_string(dist.join("events").join(file)).unwrap();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let event: Value = serde_json::from_str(line).unwrap();
            let frames = |e: &Value| {
                e.pointer("/exception/values/0/stacktrace/frames")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len)
            };
            // The event whole, without each frame in turn, with no frame's name (as an engine that prints none), and
            // with each named as a method of the app (a name an engine would give an anonymous callback it found there).
            for k in 0..=frames(&event) + 2 {
                let mut e = event.clone();
                let f = e
                    .pointer_mut("/exception/values/0/stacktrace/frames")
                    .and_then(Value::as_array_mut);
                match f {
                    Some(f) if k < f.len() => drop(f.remove(k)),
                    Some(f) if k == f.len() + 1 => f
                        .iter_mut()
                        .filter_map(Value::as_object_mut)
                        .for_each(|f| drop(f.remove("function"))),
                    Some(f) if k == f.len() + 2 => f
                        .iter_mut()
                        .filter_map(Value::as_object_mut)
                        .for_each(|f| drop(f.insert("function".into(), "Cart.lineTotals".into()))),
                    _ => {}
                }
                n += 1;
                e["event_id"] = format!("{n:032x}").into();
                input.push_str(&e.to_string());
                input.push('\n');
            }
        }
    }
    let run = |args: &[&str]| {
        let out = output_with_stdin(
            Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
                .current_dir(&dist)
                .args(["symbolicate", "--ndjson", "--maps-by-release", "releases"])
                .args(args),
            &input,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let kept = run(&["--jobs", "2"]);
    let without = run(&["--jobs", "1", "--cache-mb", "0"]);
    assert!(n >= 150, "{n} events");
    let answered = kept.matches("\"symbolicated\":true").count();
    assert!(answered >= 500, "{answered} frames answered");
    for (k, (a, b)) in kept.lines().zip(without.lines()).enumerate() {
        assert_eq!(a, b, "event {k}: kept answers and none differ");
    }
    assert!(kept == without, "the streams differ");
}
