//! Crash pipelines: `symbolicate --ndjson`, a stream of events, against real crash traces. The round-trip corpus's
//! bundled traces (real npm libraries crashed under node from bundles made by esbuild, terser, swc, webpack 5 and
//! Rollup; `fixtures/roundtrip`) become the events a pipeline carries: Sentry events whose frames name the bundles by
//! URL (`https://cdn.example.com/BUNDLER/FILE.js`, found by URL path under `--maps dist`) and pino log lines with the
//! trace as node printed it; between them, lines that are no event. One bundle's map and text carry a debug ID,
//! written the way `sentry-cli sourcemaps inject` writes it (the map's `debugId`, the bundle's `//# debugId=`), and
//! its events name it in `debug_meta`, with a URL under which nothing lies: the map is found by its ID alone.
//!
//! Asserted: one line out per line in, in order; lines that are no event come out byte for byte; `--jobs 1` and
//! `--jobs 2` write the same bytes; each event comes out as `symbolicate --maps` gives it for that event alone (the
//! same JSON, the same line); the frames are mapped, the Sentry events' as Sentry stores them.

#[path = "support/process.rs"]
mod process;
#[path = "support/roundtrip_build.rs"]
mod roundtrip_build;

use std::path::Path;
use std::process::Command;

use process::output_with_stdin;
use serde_json::{json, Value};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
}

/// The bundled trace's frames as a Sentry event's (oldest first, 1-based lines and columns as V8 prints them), each
/// bundle named by its URL.
fn sentry_event(id: usize, trace: &str, dist: &Path, host: &str) -> Value {
    let prefix = format!("{}/", dist.display());
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
                "abs_path": format!("{host}/{file}"),
                "filename": format!("~/{file}"),
                "lineno": line.parse::<u32>().ok()?,
                "colno": column.parse::<u32>().ok()?,
                "function": function,
                "in_app": true,
            }))
        })
        .collect();
    frames.reverse();
    let (kind, message) = trace
        .lines()
        .next()
        .and_then(|l| l.split_once(": "))
        .unwrap_or(("Error", ""));
    json!({
        "event_id": format!("{id:032x}"),
        "platform": "javascript",
        "exception": {"values": [{"type": kind, "value": message, "stacktrace": {"frames": frames}}]},
    })
}

struct Stream {
    input: String,
    /// Input lines that are no event (they must come out unchanged).
    passed: Vec<usize>,
    /// Input lines that are events (compared with `symbolicate` of each alone).
    events: Vec<usize>,
}

/// The stream: each case as a Sentry event or a pino line, in turn, a line that is no event every seventh.
fn stream(dist: &Path, debug_id_bundle: &str, debug_id: &str) -> Stream {
    let cases: Value =
        serde_json::from_str(&std::fs::read_to_string(dist.join("cases.json")).unwrap()).unwrap();
    let not_events = [
        "GET /health 200 3ms".to_string(),
        json!({"level": 30, "msg": "listening", "port": 8080}).to_string(),
        "{\"exception\": {\"values\": [".to_string(),
        "\u{1b}[31mError\u{1b}[0m not json either".to_string(),
    ];
    let mut lines = Vec::new();
    let (mut passed, mut events) = (Vec::new(), Vec::new());
    for (i, case) in cases["cases"].as_array().unwrap().iter().enumerate() {
        if i % 7 == 3 {
            passed.push(lines.len());
            lines.push(not_events[(i / 7) % not_events.len()].clone());
        }
        let trace = case["bundled"].as_str().unwrap();
        events.push(lines.len());
        let names_debug_id = trace.contains(debug_id_bundle);
        if names_debug_id {
            // Served from a path nothing lies under: only the debug ID finds the map.
            let mut event = sentry_event(i, trace, dist, "https://cdn.example.com/v2");
            let file = format!("https://cdn.example.com/v2/{debug_id_bundle}");
            event["debug_meta"] =
                json!({"images": [{"type": "sourcemap", "code_file": file, "debug_id": debug_id}]});
            lines.push(event.to_string());
        } else if i % 2 == 0 {
            lines.push(sentry_event(i, trace, dist, "https://cdn.example.com").to_string());
        } else {
            let log = json!({"level": 50, "time": 1_700_000_000_000u64 + i as u64, "err": {"type": "TypeError", "stack": trace}, "msg": "crash"});
            lines.push(log.to_string());
        }
    }
    Stream {
        input: lines.join("\n") + "\n",
        passed,
        events,
    }
}

/// A copy of `dist` where one bundle and its map carry a debug ID (`sentry-cli sourcemaps inject`'s form), the
/// bundle renamed so that no URL path leads to it.
fn with_debug_id(dist: &Path, out: &Path, bundle: &str, id: &str) {
    for entry in walk(dist) {
        let rel = entry.strip_prefix(dist).unwrap();
        let to = out.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &to).unwrap();
    }
    let map_path = out.join(format!("{bundle}.map"));
    let mut map: Value = serde_json::from_slice(&std::fs::read(&map_path).unwrap()).unwrap();
    map["debugId"] = json!(id);
    let (dir, name) = bundle.rsplit_once('/').unwrap();
    let renamed = format!("{dir}/{}.{}.js", name.trim_end_matches(".js"), &id[..8]);
    std::fs::write(
        out.join(format!("{renamed}.map")),
        serde_json::to_vec(&map).unwrap(),
    )
    .unwrap();
    let text = std::fs::read_to_string(out.join(bundle)).unwrap();
    let text = text.replace(
        &format!("//# sourceMappingURL={name}.map"),
        &format!(
            "//# debugId={id}\n//# sourceMappingURL={}.{}.js.map",
            name.trim_end_matches(".js"),
            &id[..8]
        ),
    );
    std::fs::write(out.join(&renamed), text).unwrap();
    std::fs::remove_file(out.join(bundle)).unwrap();
    std::fs::remove_file(map_path).unwrap();
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|e| e == "js" || e == "map") {
            out.push(p);
        }
    }
    out
}

#[test]
fn a_stream_of_real_events_comes_back_in_order_as_each_alone() {
    let dist = roundtrip_build::built();
    let id = "9c4a0ef1-51d2-4cf1-a267-535f4e37bb17";
    let bundle = "esbuild/lodash-scenarios.js";
    let maps = tempfile::tempdir().unwrap();
    with_debug_id(&dist, maps.path(), bundle, id);
    let s = stream(&dist, bundle, id);
    let run = |jobs: &str| {
        let out = output_with_stdin(
            bin()
                .args(["symbolicate", "--ndjson", "--jobs", jobs, "--maps"])
                .arg(maps.path())
                .args(["--cache-mb", "64"]),
            &s.input,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (out.stdout, String::from_utf8(out.stderr).unwrap())
    };
    let (one, said) = run("1");
    let (two, _) = run("2");
    assert!(one == two, "--jobs 1 and --jobs 2 differ");
    let input: Vec<&str> = s.input.lines().collect();
    let output: Vec<&str> = std::str::from_utf8(&one).unwrap().lines().collect();
    assert_eq!(output.len(), input.len(), "one line out per line in");
    for &i in &s.passed {
        assert_eq!(
            output[i],
            input[i],
            "line {}: not an event, unchanged",
            i + 1
        );
    }
    assert!(said.contains("passed through"), "{said}");
    // Every event as `symbolicate` gives it alone (every third: each is a process of its own).
    let (mut frames, mut mapped) = (0, 0);
    for &i in s.events.iter().step_by(3) {
        let alone = output_with_stdin(
            bin().args(["symbolicate", "--maps"]).arg(maps.path()),
            input[i],
        );
        let alone = String::from_utf8(alone.stdout).unwrap();
        let (got, want) = (output[i], alone.trim_end_matches('\n'));
        match (
            serde_json::from_str::<Value>(got),
            serde_json::from_str::<Value>(want),
        ) {
            (Ok(g), Ok(w)) if g.get("exception").is_some() => {
                assert_eq!(
                    g,
                    w,
                    "line {}: the event differs from its answer alone",
                    i + 1
                )
            }
            _ => assert_eq!(got, want, "line {}: differs from its answer alone", i + 1),
        }
    }
    // The Sentry events' frames: mapped, each as Sentry stores it.
    for &i in &s.events {
        let Ok(event) = serde_json::from_str::<Value>(output[i]) else {
            continue;
        };
        let Some(values) = event.pointer("/exception/values/0") else {
            continue;
        };
        for f in values["stacktrace"]["frames"].as_array().unwrap() {
            frames += 1;
            if f["data"]["symbolicated"] == json!(true) {
                mapped += 1;
                assert!(f["lineno"].as_u64().unwrap() >= 1);
            }
        }
        assert_eq!(
            values["raw_stacktrace"]["frames"].as_array().map(Vec::len),
            values["stacktrace"]["frames"].as_array().map(Vec::len),
            "line {}: the frames as sent are kept",
            i + 1
        );
        if input[i].contains("debug_meta") {
            let top = values["stacktrace"]["frames"]
                .as_array()
                .unwrap()
                .last()
                .unwrap();
            assert_eq!(
                top["data"]["symbolicated"],
                json!(true),
                "line {}: by debug ID",
                i + 1
            );
            assert!(
                top["abs_path"]
                    .as_str()
                    .unwrap()
                    .contains("lodash-scenarios"),
                "{top}"
            );
        }
    }
    assert!(
        mapped * 100 >= frames * 95,
        "{mapped} of {frames} frames mapped"
    );
}
