//! One trace, the same names in every input form (issue 65): the round-trip corpus's minified traces
//! (`fixtures/roundtrip`, real crashes of real libraries bundled by five tools) and the wild corpus's (`fixtures/wild`:
//! published packages' own bundles, rxjs and zod among them) symbolicated as the text node printed, as a Sentry event of the browser SDK's shape (frames oldest first), and as a pino JSON log line. Every
//! frame answered in one form is answered in the others with the same function name and place: the name an anonymous
//! function gets from its caller's call site comes from its caller whichever order the frames come in.

#[path = "support/process.rs"]
mod process;
#[path = "support/roundtrip_build.rs"]
mod roundtrip_build;
#[path = "support/sentry_event.rs"]
mod sentry_event;
#[path = "support/wild_build.rs"]
mod wild_build;

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use process::output_with_stdin;
use sentry_event::sentry_event;
use serde_json::{json, Value};

fn symbolicate(dist: &Path, input: &str) -> Value {
    let out = output_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
            .args(["symbolicate", "--json", "--root"])
            .arg(dist),
        input,
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A frame's generated place: (bundle's file name, line, column).
type Place = (String, u64, u64);
/// What it was answered: (function, source, line, column).
type Answer = (Value, Value, Value, Value);

/// Each answered frame of a `--json` answer by its generated place.
fn answered(answer: &Value) -> HashMap<Place, Answer> {
    answer["stack"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| !f["original"].is_null())
        .map(|f| {
            let file = f["generated"]["file"].as_str().unwrap_or_default();
            let file = file.rsplit('/').next().unwrap().to_string();
            let o = &f["original"];
            (
                (
                    file,
                    f["generated"]["line"].as_u64().unwrap(),
                    f["generated"]["column"].as_u64().unwrap(),
                ),
                (
                    o["function"].clone(),
                    o["source"].clone(),
                    o["line"].clone(),
                    o["column"].clone(),
                ),
            )
        })
        .collect()
}

#[test]
fn a_trace_gets_the_same_names_as_text_as_an_event_and_as_a_log_line() {
    let dist = roundtrip_build::built();
    let cases: Value =
        serde_json::from_str(&std::fs::read_to_string(dist.join("cases.json")).unwrap()).unwrap();
    let (wild_dir, wild_cases) = (wild_build::fixture(), wild_build::made());
    let mut traces: Vec<(&Path, String, &str)> = Vec::new();
    for case in cases["cases"].as_array().unwrap() {
        traces.push((
            &dist,
            case["name"].to_string(),
            case["bundled"].as_str().unwrap(),
        ));
    }
    for case in wild_cases["cases"].as_array().unwrap() {
        traces.push((
            &wild_dir,
            case["name"].to_string(),
            case["minified"].as_str().unwrap(),
        ));
    }
    let (mut compared, mut differ) = (0, Vec::new());
    for (i, (root, name, trace)) in traces.into_iter().enumerate() {
        let prefix = format!("{}/", root.display());
        let text = answered(&symbolicate(root, trace));
        let event = sentry_event(i, trace, &prefix, "https://cdn.example.com").to_string();
        let log = json!({"level": 50, "err": {"type": "Error", "stack": trace}, "msg": "crash"})
            .to_string();
        for (form, input) in [("sentry event", event), ("pino line", log)] {
            let other = answered(&symbolicate(root, &input));
            for (at, want) in &text {
                // The event carries the bundles' frames only (node's own are not a browser's).
                let Some(got) = other.get(at) else {
                    continue;
                };
                compared += 1;
                if got != want {
                    differ.push(format!(
                        "{name} {form} at {at:?}: {got:?}, as text {want:?}"
                    ));
                }
            }
        }
    }
    println!("{compared} frames compared, {} differ", differ.len());
    assert!(compared > 500, "{compared} frames compared");
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
