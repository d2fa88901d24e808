//! Traces as people find them (issue 25): the same real traces, written the way logs, logcat, React Native and crash
//! reporters write them, must map to the same original places as the bare trace, and come back in their own shape.
//!
//! - Real loggers: `fixtures/logs` (pino 10.1.0 and winston 3.19.0 logging the demo bundle's real crash, `make.sh`).
//! - Container logs, by their documented formats: Kubernetes CRI (`TIME STREAM F|P `: kubelet `logs.go`
//!   `parseCRILog`), `docker logs -t` (`TIME `), Docker's json-file driver (`{"log":"…\n","stream":…,"time":…}`, its
//!   documentation), a log4j layout, `> ` quotes, logcat `threadtime` and `brief` (AOSP `logprint.cpp`).
//! - React Native's `JavascriptException` text from real Hermes (source and bytecode) and JavaScriptCore traces
//!   (`fixtures/traces`), by React Native's own rules: `parseErrorStack.js` (V8/JSC `column - 1`, Hermes source
//!   `column1Based - 1`, Hermes bytecode `virtualOffset0Based` as is) and `JSStackTrace.format` (`name@L:C`).
//! - Crashlytics as react-native-firebase reports React Native frames: Android `at .name(file:L:C)`, iOS
//!   `N ??? 0x0 name + L (file:L:C:L)` (numbers as the engine printed them).
//! - Sentry and Bugsnag events, by their documented schemas (1-based lines and columns; Sentry oldest frame first).

#[path = "support/process.rs"]
mod process;

use std::path::{Path, PathBuf};
use std::process::Command;

use process::{output_with_bytes, output_with_stdin};
use serde_json::{json, Value};

fn repo() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap()
}

fn run(cwd: &Path, args: &[&str], stdin: &str) -> (String, String) {
    let out = output_with_stdin(&mut symbolicate(cwd, args), stdin);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn symbolicate(cwd: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"));
    c.arg("symbolicate").args(args).current_dir(cwd);
    c
}

/// `symbolicate` on any bytes: stdout's bytes and stderr.
fn run_bytes(cwd: &Path, args: &[&str], stdin: impl AsRef<[u8]>) -> (Vec<u8>, String) {
    let out = output_with_bytes(&mut symbolicate(cwd, args), stdin.as_ref());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The original places of the frames `--json` mapped, in order (unmapped frames left out).
fn answers(cwd: &Path, args: &[&str], stdin: impl AsRef<[u8]>) -> Vec<Value> {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let v: Value = serde_json::from_slice(&run_bytes(cwd, &all, stdin).0).unwrap();
    v["stack"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| !f["original"].is_null())
        .map(|f| {
            let o = &f["original"];
            json!([o["source"], o["line"], o["column"], o["function"]])
        })
        .collect()
}

/// The demo crash's lines (message and frames) as node printed them.
fn demo_trace() -> String {
    let crash = std::fs::read_to_string(repo().join("fixtures/demo/crash.txt")).unwrap();
    let at = crash.find("TypeError:").unwrap();
    crash[at..]
        .lines()
        .take_while(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[test]
fn log_prefixes_keep_every_line_and_map_every_frame() {
    let demo = repo().join("fixtures/demo");
    let bare = demo_trace();
    let want = answers(&demo, &[], &bare);
    assert_eq!(want.len(), 4, "{want:?}");
    let (bare_text, _) = run(&demo, &[], &bare);
    for prefix in [
        "2026-12-01T07:00:00.123456789Z stderr F ",
        "2026-12-01T07:00:00.123456789Z ",
        "[2026-12-01T07:00:00.123Z] ",
        "2026-12-01 07:00:00,123 ERROR [main] c.e.OrderService - ",
        "> ",
        "12-01 07:00:00.123  4321  4377 E ReactNativeJS: ",
        "E/ReactNativeJS( 4321): ",
    ] {
        let input: String = bare.lines().map(|l| format!("{prefix}{l}\n")).collect();
        assert_eq!(answers(&demo, &[], &input), want, "{prefix:?}");
        // Text: every line kept with its prefix; the frame alone rewritten, as the bare trace's is.
        let (text, _) = run(&demo, &[], &input);
        let expected: String = bare_text
            .lines()
            .map(|l| format!("{prefix}{l}\n"))
            .collect();
        assert_eq!(text, expected, "{prefix:?}");
    }
    // Docker's json-file driver: one JSON object per line of the trace.
    let input: String = bare
        .lines()
        .map(|l| json!({"log": format!("{l}\n"), "stream": "stderr", "time": "2026-12-01T07:00:00.123456789Z"}).to_string() + "\n")
        .collect();
    assert_eq!(answers(&demo, &[], &input), want);
    let (text, _) = run(&demo, &[], &input);
    let logs: Vec<String> = text
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).expect("every line stays JSON")["log"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(logs.concat(), bare_text);
}

#[test]
fn real_pino_and_winston_lines() {
    let demo = repo().join("fixtures/demo");
    let want = answers(&demo, &[], demo_trace());
    for (file, stack) in [("pino.ndjson", "/err/stack"), ("winston.ndjson", "/stack")] {
        let input = std::fs::read_to_string(repo().join("fixtures/logs").join(file)).unwrap();
        assert_eq!(answers(&demo, &[], &input), want, "{file}");
        let (text, _) = run(&demo, &[], &input);
        let out: Value = serde_json::from_str(text.trim_end()).expect("still JSON");
        let original: Value = serde_json::from_str(input.trim_end()).unwrap();
        let s = out.pointer(stack).unwrap().as_str().unwrap();
        assert!(
            s.contains("    at parseOrder (src/orders.js:5:24)\n"),
            "{file}: {s}"
        );
        assert!(
            s.contains("    at Module._compile (node:internal"),
            "{file}: {s}"
        );
        // Everything but the stack as it was.
        let mut same = out.clone();
        *same.pointer_mut(stack).unwrap() = original.pointer(stack).unwrap().clone();
        assert_eq!(same, original, "{file}");
    }
}

/// A frame of a real trace in React Native's `JavascriptException` text, by React Native's rules (module doc).
fn react_native(line: &str) -> Option<String> {
    let t = line.trim();
    let (name, loc) = if let Some(rest) = t.strip_prefix("at ") {
        let (name, rest) = rest.split_once(" (")?;
        (name, rest.strip_suffix(')')?)
    } else {
        t.split_once('@')?
    };
    if let Some(offset) = loc.strip_prefix("address at ") {
        // Hermes bytecode: line1Based (the segment) and virtualOffset0Based, unchanged.
        let (_, rest) = offset.rsplit_once(':')?;
        let line = offset.rsplit(':').nth(1)?;
        return Some(format!("{name}@{line}:{rest}"));
    }
    let mut parts = loc.rsplitn(3, ':');
    let column: u32 = parts.next()?.parse().ok()?;
    let line = parts.next()?;
    // V8/JSC column - 1; Hermes source frames column1Based - 1.
    Some(format!("{name}@{line}:{}", column - 1))
}

#[test]
fn react_native_and_crashlytics_frames_agree_with_the_engines_own() {
    let traces = repo().join("fixtures/traces");
    for (trace, maps) in [
        (
            "hermes-bytecode.txt",
            &["hermes/app.hbc.map", "hermes/app.js.map"][..],
        ),
        ("hermes.txt", &["hermes/app.js.map"][..]),
        ("jsc.txt", &["jsc/app.min.js.map"][..]),
    ] {
        let bare = std::fs::read_to_string(traces.join(trace)).unwrap();
        let want = answers(&traces, maps, &bare);
        assert!(want.len() >= 3, "{trace}: {want:?}");
        // React Native's exception text, alone and in logcat (AndroidRuntime, as a fatal crash prints it).
        let frames: Vec<String> = bare.lines().filter_map(react_native).collect();
        let message = format!(
            "com.facebook.react.common.JavascriptException: {}, js engine: hermes, stack:\n{}\n",
            bare.lines().next().unwrap(),
            frames.join("\n")
        );
        assert_eq!(answers(&traces, maps, &message), want, "{trace}: {message}");
        let logcat: String = message
            .lines()
            .map(|l| format!("12-01 07:00:00.123  4321  4377 E AndroidRuntime: {l}\n"))
            .collect();
        assert_eq!(answers(&traces, maps, &logcat), want, "{trace}");
        // Crashlytics: Android `at .name(file:L:C)`, numbers as the engine printed them.
        let android: String = bare
            .lines()
            .filter_map(|l| {
                let rest = l.trim().strip_prefix("at ")?;
                let (name, loc) = rest.split_once(" (")?;
                Some(format!("        at .{name}({}\n", loc))
            })
            .collect();
        if !android.is_empty() {
            assert_eq!(answers(&traces, maps, &android), want, "{trace}: {android}");
        }
        // Crashlytics: iOS `N ??? 0x0 name + L (file:L:C:L)` for JavaScriptCore's frames.
        if trace == "jsc.txt" {
            let ios: String = bare
                .lines()
                .filter_map(|l| l.split_once('@'))
                .enumerate()
                .map(|(i, (name, loc))| {
                    let name = if name.is_empty() { "global code" } else { name };
                    match loc.rsplitn(3, ':').collect::<Vec<_>>()[..] {
                        [c, l, file] => {
                            format!("{i}  ???  0x0 {name} + {l} ({file}:{l}:{c}:{l})\n")
                        }
                        _ => format!("{i}  ???  0x0 {name} + 0 ((native):0:0)\n"),
                    }
                })
                .collect();
            assert_eq!(answers(&traces, maps, &ios), want, "{ios}");
        }
    }
}

#[test]
fn sentry_and_bugsnag_events_come_back_with_original_frames() {
    let demo = repo().join("fixtures/demo");
    let bare = demo_trace();
    let want = answers(&demo, &[], &bare);
    // The frames in the bundle, innermost first, with V8's numbers (sentry-javascript and bugsnag-js pass them on).
    let frames: Vec<(String, String, u64, u64)> = bare
        .lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("at ")?;
            let (name, loc) = match rest.split_once(" (") {
                Some((n, loc)) => (n.to_string(), loc.strip_suffix(')')?.to_string()),
                None => ("?".to_string(), rest.to_string()),
            };
            let mut parts = loc.rsplitn(3, ':');
            let column = parts.next()?.parse().ok()?;
            let line = parts.next()?.parse().ok()?;
            Some((name, parts.next()?.to_string(), line, column))
        })
        .collect();
    let sentry = json!({
        "event_id": "fc6d8c0c43fc4630ad850ee518f1b9d0",
        "platform": "javascript",
        "exception": {"values": [{"type": "TypeError", "value": "Cannot read properties of null (reading 'map')",
            // Sentry: oldest frame first.
            "stacktrace": {"frames": frames.iter().rev().map(|(n, f, l, c)| json!({
                "filename": f, "abs_path": f, "lineno": l, "colno": c, "function": n, "in_app": true,
            })).collect::<Vec<_>>()}}]},
    });
    let got = answers(&demo, &[], sentry.to_string());
    let mut reversed = want.clone();
    reversed.reverse();
    assert_eq!(got, reversed);
    let (text, _) = run(&demo, &[], &sentry.to_string());
    let out: Value = serde_json::from_str(&text).unwrap();
    let top = out
        .pointer("/exception/values/0/stacktrace/frames")
        .unwrap()
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        (
            &top["filename"],
            &top["lineno"],
            &top["colno"],
            &top["function"]
        ),
        (
            &json!("../src/orders.js"),
            &json!(5),
            &json!(24),
            &json!("parseOrder")
        )
    );
    // As Sentry stores a processed event: the frames as sent in `raw_stacktrace`, the source's lines around each.
    let raw = out
        .pointer("/exception/values/0/raw_stacktrace/frames")
        .unwrap()
        .as_array()
        .unwrap()
        .last()
        .unwrap();
    assert_eq!((&raw["lineno"], &raw["colno"]), (&json!(1), &json!(50)));
    assert_eq!(top["data"]["symbolicated"], true);
    assert_eq!(
        top["context_line"],
        json!("    lines: input.items.map((item) => lineTotal(item)),")
    );
    assert_eq!(top["pre_context"].as_array().unwrap().len(), 4);
    assert_eq!(top["post_context"][0], json!("  };"));
    let bugsnag = json!({
        "apiKey": "0123456789abcdef0123456789abcdef",
        "payloadVersion": "4",
        "events": [{"exceptions": [{"errorClass": "TypeError", "message": "x",
            "stacktrace": frames.iter().map(|(n, f, l, c)| json!({
                "file": f, "lineNumber": l, "columnNumber": c, "method": n, "inProject": true,
                // As @bugsnag/node sends it: the file's lines around the frame (here, the bundle's one line).
                "code": {"1": "(()=>{function e(r){return{id:r.id,lines:r.items.map(t=>s(t))}}"},
            })).collect::<Vec<_>>()}]}],
    });
    assert_eq!(answers(&demo, &[], bugsnag.to_string()), want);
    let (text, _) = run(&demo, &[], &bugsnag.to_string());
    let out: Value = serde_json::from_str(&text).unwrap();
    let top = out.pointer("/events/0/exceptions/0/stacktrace/0").unwrap();
    assert_eq!(
        (
            &top["file"],
            &top["lineNumber"],
            &top["columnNumber"],
            &top["method"]
        ),
        (
            &json!("../src/orders.js"),
            &json!(5),
            &json!(24),
            &json!("parseOrder")
        )
    );
    assert_eq!(top["minified"]["columnNumber"], 50);
    // Bugsnag's `code` shows the original lines under their own numbers; the bundle's go with the minified values.
    assert_eq!(
        top["code"]["5"],
        json!("    lines: input.items.map((item) => lineTotal(item)),")
    );
    assert!(top["code"].get("1").is_some() && top["code"]["1"] != top["minified"]["code"]["1"]);
    assert_eq!(
        top["minified"]["code"]["1"],
        json!("(()=>{function e(r){return{id:r.id,lines:r.items.map(t=>s(t))}}")
    );
}

#[test]
fn what_was_not_understood_is_said() {
    let demo = repo().join("fixtures/demo");
    // Lines that look like frames and are not: unchanged, and no frame read.
    let text = "12-01 07:00:00.123  4321  4377 I ReactNativeJS: Running \"App\"\nPID 4321\nlistening on v1.2.3:4\nhttp://localhost:8081/status\n";
    let (out, err) = run(&demo, &[], text);
    assert_eq!(out, text);
    assert!(err.is_empty(), "{err}");
    let (out, err) = run(
        &demo,
        &[],
        "Error: boom\n    at f (elsewhere/nothing.js:3:4)\n",
    );
    assert!(out.contains("at f (elsewhere/nothing.js:3:4)"));
    assert!(err.contains("1 frame read, none mapped"), "{err}");
    let (_, err) = run(&demo, &[], "{\"stack\": \"frames went here\"}\n");
    assert!(err.contains("no frame in it could be read"), "{err}");
}

/// `fixtures/traces/coloured`: the real output of node, Jest 29.7.0 and Vitest 3.2.4 under `FORCE_COLOR=1` in a pty
/// (escape sequences inside the frames, CRLF line ends) and the same runs plain.
fn coloured(name: &str) -> Vec<u8> {
    std::fs::read(repo().join("fixtures/traces/coloured/out").join(name)).unwrap()
}

/// A line without its SGR/CSI sequences and `\r` (the test's own reading: ECMA-48's CSI shape).
fn plain_line(line: &str) -> String {
    let csi = regex::Regex::new("\x1b\\[[0-?]*[ -/]*[@-~]").unwrap();
    csi.replace_all(line.trim_end_matches('\r'), "")
        .into_owned()
}

/// Lines of output that differ from the input's (the frames rewritten), and the lines that came back as they were.
fn rewritten(input: &[u8], output: &[u8]) -> (Vec<String>, usize) {
    let i: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    let o: Vec<&[u8]> = output.split(|&b| b == b'\n').collect();
    assert_eq!(
        i.len(),
        o.len(),
        "every line comes back, line ends as they came"
    );
    let changed = i
        .iter()
        .zip(&o)
        .filter(|(a, b)| a != b)
        .map(|(_, b)| plain_line(std::str::from_utf8(b).unwrap()))
        .collect();
    let kept = i.iter().zip(&o).filter(|(a, b)| a == b).count();
    (changed, kept)
}

#[test]
fn coloured_node_jest_and_vitest_output_maps_as_the_plain_output() {
    let dir = repo().join("fixtures/traces/coloured");
    let map = ["dist/app.min.js.map"];
    for producer in ["node", "jest", "vitest"] {
        let plain = coloured(&format!("{producer}.txt"));
        let ansi = coloured(&format!("{producer}.ansi.txt"));
        assert!(ansi.contains(&0x1b) && ansi.windows(2).any(|w| w == b"\r\n"));
        // The same frames, to the same original places and functions.
        let want = answers(&dir, &map, &plain);
        assert_eq!(want.len(), 3, "{producer}: {want:?}");
        assert_eq!(answers(&dir, &map, &ansi), want, "{producer}");
        // In text: the frames rewritten read as the plain run's (their escape sequences moved after them), every
        // other line byte for byte, CRLF kept.
        let (out_plain, _) = run_bytes(&dir, &map, &plain);
        let (out_ansi, _) = run_bytes(&dir, &map, &ansi);
        let (want_lines, _) = rewritten(&plain, &out_plain);
        let (lines, kept) = rewritten(&ansi, &out_ansi);
        assert_eq!(lines, want_lines, "{producer}");
        let total = ansi.split(|&b| b == b'\n').count();
        assert_eq!(
            kept,
            total - 3,
            "{producer}: only the three mapped frames change"
        );
        assert_eq!(
            out_ansi.windows(2).filter(|w| w == b"\r\n").count(),
            ansi.windows(2).filter(|w| w == b"\r\n").count(),
            "{producer}: CRLF line ends kept"
        );
        // `--json`'s `raw` is each frame's line exactly as it came.
        let (json, _) = run_bytes(&dir, &["dist/app.min.js.map", "--json"], &ansi);
        let v: Value = serde_json::from_slice(&json).unwrap();
        let input = String::from_utf8(ansi.clone()).unwrap();
        for f in v["stack"].as_array().unwrap() {
            let raw = f["raw"].as_str().unwrap();
            assert!(input.split('\n').any(|l| l == raw), "{producer}: {raw:?}");
        }
    }
}

#[test]
fn latin1_bytes_and_utf16_input_are_read() {
    let dir = repo().join("fixtures/traces/coloured");
    let map = ["dist/app.min.js.map"];
    let plain = coloured("node.txt");
    let want = answers(&dir, &map, &plain);
    assert_eq!(want.len(), 3);
    // node writing an ISO 8859-1 line before its crash: the frames map, that line comes back byte for byte.
    let latin1 = coloured("node.latin1.txt");
    assert!(std::str::from_utf8(&latin1).is_err());
    assert_eq!(answers(&dir, &map, &latin1), want);
    let (out, _) = run_bytes(&dir, &map, &latin1);
    let first = |b: &[u8]| b.split(|&c| c == b'\n').next().unwrap().to_vec();
    assert_eq!(first(&out), first(&latin1));
    assert_eq!(&first(&latin1)[..13], b"Bestellung f\xfc");
    // UTF-16LE as Windows PowerShell 5.1's `>` writes it (BOM, CRLF), and without the BOM: read, written as UTF-8
    // with their line ends.
    let (out_plain, _) = run_bytes(&dir, &map, &plain);
    let crlf = String::from_utf8(out_plain).unwrap().replace('\n', "\r\n");
    for name in ["node.utf16le-bom.txt", "node.utf16le.txt"] {
        let utf16 = coloured(name);
        assert_eq!(answers(&dir, &map, &utf16), want, "{name}");
        let (out, _) = run_bytes(&dir, &map, &utf16);
        assert_eq!(String::from_utf8(out).unwrap(), crlf, "{name}");
    }
}

/// Opera 11's `Error created at NAME@URL:L` (error-stack-parser's OPERA_11 capture, `fixtures/traces/captured`):
/// where the error was made, not a call, so not a frame (error-stack-parser's `parseOpera11` leaves it out): the
/// four frames map, the line stays as printed. The map is made here: 30 generated lines, each all of original line N.
#[test]
fn opera_11_creation_site_is_not_a_frame() {
    let cases: Value = serde_json::from_slice(
        &std::fs::read(repo().join("fixtures/traces/captured/cases.json")).unwrap(),
    )
    .unwrap();
    let opera = cases
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["fixture"] == "OPERA_11")
        .unwrap();
    let text = opera["stack"].as_str().unwrap().to_string() + "\n";
    let dir = tempfile::tempdir().unwrap();
    let map = json!({"version": 3, "sources": ["src/app.js"], "names": [],
        "mappings": format!("AAAA{}", ";AACA".repeat(29))});
    std::fs::write(dir.path().join("file.js.map"), map.to_string()).unwrap();
    let (out, _) = run(dir.path(), &["file.js.map"], &text);
    let last = out.lines().last().unwrap();
    assert_eq!(
        last,
        "Error created at <anonymous function>@http://path/to/file.js:15"
    );
    let (json, _) = run(dir.path(), &["file.js.map", "--json"], &text);
    let v: Value = serde_json::from_str(&json).unwrap();
    let stack = v["stack"].as_array().unwrap();
    assert_eq!(stack.len(), 4, "{json}");
    assert!(stack.iter().all(|f| f["original"].is_object()), "{json}");
    assert_eq!(stack[3]["original"]["line"], 15, "{json}");
}

/// Jest moves the columns of a file's first line by its module wrapper (`trace::jest`): the real Jest 29.7.0 output
/// of a test calling a one-line bundle (`fixtures/traces/coloured/out/jest-line1*.txt`, made by its make.sh) is never
/// answered with another place than node's own trace of the same call (`node-line1.txt`, the truth): each line-1
/// frame is either node's answer or not mapped, with Jest's reason.
#[test]
fn jest_line_one_columns_are_never_answered_wrong() {
    let dir = repo().join("fixtures/traces/coloured");
    // node's trace names /app/dist/line1.min.js (the folder as make.sh writes it): its tail is under the folder.
    let truth = answers(&dir, &[], coloured("node-line1.txt"));
    assert_eq!(truth.len(), 3, "{truth:?}");
    for name in ["jest-line1.txt", "jest-line1.ansi.txt"] {
        let (json, _) = run_bytes(&dir, &["--json"], coloured(name));
        let v: Value = serde_json::from_slice(&json).unwrap();
        let bundle_frames: Vec<&Value> = v["stack"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| {
                f["generated"]["file"]
                    .as_str()
                    .is_some_and(|f| f.ends_with("line1.min.js"))
            })
            .collect();
        assert_eq!(bundle_frames.len(), 3, "{name}: {v}");
        for (f, want) in bundle_frames.iter().zip(&truth) {
            let o = &f["original"];
            if o.is_null() {
                assert!(
                    f["unresolved"]
                        .as_str()
                        .is_some_and(|u| u.contains("Jest moves the columns")),
                    "{name}: {f}"
                );
            } else {
                assert_eq!(
                    &json!([o["source"], o["line"], o["column"], o["function"]]),
                    want,
                    "{name}: {f}"
                );
            }
        }
    }
    // The same bundle's frames as node printed them are answered (line 1 as printed is right there).
    let (json, _) = run_bytes(&dir, &["--json"], coloured("node-line1.txt"));
    let v: Value = serde_json::from_slice(&json).unwrap();
    assert!(v["stack"][0]["original"].is_object(), "{v}");
}

/// A `●` bullet is not Jest (systemd prints one before a service's output): the demo's node trace after a
/// `systemctl status` header maps as the bare trace does, no column moved.
#[test]
fn a_bullet_that_is_not_jest_moves_no_column() {
    let demo = repo().join("fixtures/demo");
    let want = answers(&demo, &[], demo_trace());
    let with_header = format!(
        "● demo.service - Demo app\n     Loaded: loaded (/etc/systemd/system/demo.service)\n{}",
        demo_trace()
    );
    assert_eq!(answers(&demo, &[], with_header), want);
}

/// Errors as node's `console.log` prints them (`fixtures/traces/node-inspect`, real node 20 output of an esbuild
/// bundle): own properties end the stack's last frame line with ` {`, an AggregateError's `[errors]` are separated by
/// `,`, causes are nested. Every frame line in the bundle maps to the place `node --enable-source-maps` prints for it
/// in the same run, and keeps what follows it.
#[test]
fn frames_as_node_inspect_prints_them() {
    let dir = repo().join("fixtures/traces/node-inspect");
    let trace = std::fs::read_to_string(dir.join("inspect.txt")).unwrap();
    let truth = std::fs::read_to_string(dir.join("inspect.mapped.txt")).unwrap();
    let (out, _) = run(&dir, &[], &trace);
    let location = regex::Regex::new(r"([\w./-]+\.js):(\d+):(\d+)").unwrap();
    let (mut frames, mut suffixed) = (0, 0);
    for ((sent, ours), node) in trace.lines().zip(out.lines()).zip(truth.lines()) {
        if !sent.contains("dist/service.min.js:") {
            assert_eq!(ours, sent);
            continue;
        }
        frames += 1;
        let at = |l: &str| location.captures(l).map(|c| c[0].to_string());
        assert_eq!(at(ours), at(node), "{sent}\n{ours}\n{node}");
        for suffix in [" {", ","] {
            if sent.ends_with(suffix) {
                suffixed += 1;
                assert!(ours.ends_with(suffix), "{ours}");
            }
        }
    }
    assert!(
        frames >= 20 && suffixed >= 5,
        "{frames} frames, {suffixed} with a suffix"
    );
}
