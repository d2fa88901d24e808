//! metro-symbolicate's other modes end to end (issue 36): RAM bundles made by Metro 0.84.6 and run as React Native
//! runs their modules (`fixtures/metro-ram`, `make.js`), Hermes segments, the JSC profiler map, and the output bases.
//! Each answer is held to the original program's own trace (`truth.txt`: the app run unbundled) and to what
//! metro-symbolicate answered on the same files (recorded beside them), and where metro-symbolicate is wrong the
//! case is named.

#[path = "support/lsp_client.rs"]
mod lsp_client;
#[path = "support/process.rs"]
mod process;

use std::path::{Path, PathBuf};
use std::process::Command;

use lsp_client::LspClient;
use process::output_with_stdin;
use serde_json::{json, Value};

fn repo() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap()
}

fn ram() -> PathBuf {
    repo().join("fixtures/metro-ram")
}

fn run(cwd: &Path, args: &[&str], stdin: &str) -> (String, String) {
    let out = output_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
            .args(args)
            .current_dir(cwd),
        stdin,
    );
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{args:?} failed: {stderr}");
    (String::from_utf8(out.stdout).unwrap(), stderr)
}

/// `at fn (file:line:column)` frames of a V8 trace, in order: (function, file, line, column).
fn frames(trace: &str) -> Vec<(String, String, u32, u32)> {
    let re = regex::Regex::new(r"^\s+at (?:(\S+) \()?([^()\s]+):(\d+):(\d+)\)?$").unwrap();
    trace
        .lines()
        .filter_map(|l| re.captures(l))
        .map(|c| {
            (
                c.get(1).map_or("", |m| m.as_str()).to_string(),
                c[2].to_string(),
                c[3].parse().unwrap(),
                c[4].parse().unwrap(),
            )
        })
        .collect()
}

/// The app's frames as node reports them running the original sources: file, line, column, function.
fn truth() -> Vec<(String, String, u32, u32)> {
    let truth = std::fs::read_to_string(ram().join("truth.txt")).unwrap();
    frames(&truth)
        .into_iter()
        .filter(|(_, file, _, _)| !file.starts_with("node:"))
        .collect()
}

#[test]
fn ram_bundle_frames_are_answered_from_their_modules_as_the_original_program_reports_them() {
    let truth = truth();
    assert_eq!(truth.len(), 4, "the app's four frames: {truth:?}");
    for (dir, map) in [
        ("dist/android", "index.android.bundle.map"),
        ("dist/ios", "main.jsbundle.map"),
    ] {
        let cwd = ram().join(dir);
        let trace = std::fs::read_to_string(cwd.join("trace.txt")).unwrap();
        let printed = frames(&trace);
        assert!(
            printed[..4]
                .iter()
                .all(|f| f.1.ends_with(".js") && f.1.len() <= 5),
            "the crash's frames are in modules N.js: {printed:?}"
        );
        let (out, stderr) = run(&cwd, &["symbolicate", map], &trace);
        assert!(!stderr.contains("map-mismatch"), "{dir}: {stderr}");
        let answered = frames(&out);
        for (k, want) in truth.iter().enumerate() {
            let got = &answered[k];
            assert_eq!(
                (&got.1, got.2, got.3),
                (&want.1, want.2, want.3),
                "{dir}: frame {k} ({:?}) answered {got:?}, the original program says {want:?}",
                printed[k]
            );
        }
        // Function names from Metro's function maps, as the original program names them (its top level is
        // node's module wrapper, Metro's `<global>`).
        let names: Vec<&str> = answered[..3].iter().map(|f| f.0.as_str()).collect();
        assert_eq!(names, ["formatCustomer", "orderSummary", "main"], "{dir}");
    }
}

#[test]
fn ram_bundle_answers_equal_metro_symbolicate_where_it_is_right() {
    // Not minified (Android's js-modules/N.js): the modules' code starts on their second line, where Metro's
    // section offsets are right, and every answer equals metro-symbolicate's, by the positional form too.
    let cwd = ram().join("dist/android");
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(cwd.join("metro-symbolicate.json")).unwrap())
            .unwrap();
    let positional = expected["positional"].as_object().unwrap();
    assert!(positional.len() >= 3);
    for (asked, metro) in positional {
        let args: Vec<&str> = asked.split(' ').collect();
        let mut all = vec!["symbolicate", "--json", "index.android.bundle.map"];
        all.extend(&args);
        let (out, _) = run(&cwd, &all, "");
        let v: Value = serde_json::from_str(&out).unwrap();
        let o = &v["stack"][0]["original"];
        // metro-symbolicate prints `source:line:functionName`.
        let metro: Vec<&str> = metro.as_str().unwrap().split(':').collect();
        assert_eq!(o["source"], metro[0], "{asked}");
        assert_eq!(o["line"].as_u64().unwrap().to_string(), metro[1], "{asked}");
        assert_eq!(o["function"], metro[2], "{asked}");
    }
    // Minified (iOS's indexed file): every module is one line, and Metro's section offsets count the module
    // wrapper twice (`fixWrapperOffset`), so metro-symbolicate answers 28 columns late: `src/format.js:14:<global>`
    // where the program crashed at src/format.js:10 in formatCustomer. sourcemap-ls reads the offset without the
    // doubled wrapper (and `validate` says so) and answers the program's own line.
    let cwd = ram().join("dist/ios");
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(cwd.join("metro-symbolicate.json")).unwrap())
            .unwrap();
    assert_eq!(
        expected["positional"]["4.js 1 110"], "src/format.js:14:<global>",
        "metro-symbolicate's recorded answer"
    );
    let (out, _) = run(
        &cwd,
        &["symbolicate", "main.jsbundle.map", "4.js", "1", "109"],
        "",
    );
    assert!(out.contains("src/format.js:10:"), "{out}");
    let (_, stderr) = run(&cwd, &["validate", "main.jsbundle.map"], "");
    assert!(
        stderr.contains("Metro's RAM bundle layout")
            && stderr.contains("module wrapper counted twice"),
        "validate says what it read as Metro's: {stderr}"
    );
}

#[test]
fn a_module_the_map_does_not_place_is_not_answered() {
    let cwd = ram().join("dist/android");
    let (out, _) = run(
        &cwd,
        &[
            "symbolicate",
            "--json",
            "index.android.bundle.map",
            "9.js",
            "1",
            "1",
        ],
        "",
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    let frame = &v["stack"][0];
    assert!(frame["original"].is_null(), "{frame}");
    assert!(
        frame["unresolved"]
            .as_str()
            .unwrap()
            .contains("no module 9"),
        "{frame}"
    );
    // --explain says where the map places the module, and which source Metro says it is.
    let (out, _) = run(
        &cwd,
        &[
            "symbolicate",
            "--explain",
            "index.android.bundle.map",
            "4.js",
            "11",
            "26",
        ],
        "",
    );
    assert!(
        out.contains("4.js is a module of this RAM bundle (")
            && out.contains("src/format.js) starting on the map's line 228"),
        "{out}"
    );
    // The startup code's frames are the map's own lines, as metro-symbolicate reads them.
    let (out, _) = run(
        &cwd,
        &["symbolicate", "index.android.bundle.map", "163", "6"],
        "",
    );
    assert!(out.contains("require.js:285"), "{out}");
}

fn modes() -> PathBuf {
    repo().join("fixtures/metro-modes")
}

fn recorded() -> Value {
    serde_json::from_str(&std::fs::read_to_string(modes().join("metro-symbolicate.json")).unwrap())
        .unwrap()
}

#[test]
fn profiler_maps_are_written_back_as_metro_symbolicate_writes_them() {
    let expected = recorded();
    for (key, extra) in [
        ("profmap", &[][..]),
        (
            "profmapBases",
            &["--output-line-start", "0", "--output-column-start", "1"][..],
        ),
    ] {
        let mut args = vec!["profile", "jsc.profmap", "inventory.hbc.map"];
        args.extend(extra);
        let (out, _) = run(&modes(), &args, "");
        let metro = expected[key].as_str().unwrap();
        let ours: Vec<&str> = out.lines().collect();
        let theirs: Vec<&str> = metro.lines().collect();
        assert_eq!(ours.len(), theirs.len(), "{key}");
        let mapped = theirs
            .iter()
            .filter(|l| l.contains("::") && !l.ends_with("::::"))
            .count();
        assert!(
            mapped > 250,
            "{key}: half the trampolines are mapped ({mapped})"
        );
        for (k, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            assert_eq!(a, b, "{key}: line {k}");
        }
    }
}

#[test]
fn segments_answer_from_their_own_maps_as_metro_symbolicate_does() {
    let expected = recorded();
    // A crash report: `SegmentID` and `SourceURL: seg-1.js` lead to segment 1's map and its function offsets.
    let (out, _) = run(
        &modes(),
        &["symbolicate", "--hermes-crash", "--json", "segmented.map"],
        &std::fs::read_to_string(modes().join("segments.crash.json")).unwrap(),
    );
    let ours: Value = serde_json::from_str(&out).unwrap();
    let theirs = expected["crash"].as_array().unwrap();
    let stack = ours["stack"].as_array().unwrap();
    assert_eq!(stack.len(), theirs.len());
    let mut in_segment = 0;
    for (k, (a, b)) in stack.iter().zip(theirs).enumerate() {
        let o = &a["original"];
        let got = (
            o["source"].clone(),
            o["line"].clone(),
            o["column"].clone(),
            o["function"].clone(),
        );
        let want = (
            b["source"].clone(),
            b["line"].clone(),
            b["column"].clone(),
            b["functionName"].clone(),
        );
        assert_eq!(got, want, "crash frame {k}");
        in_segment += usize::from(
            o["source"]
                .as_str()
                .is_some_and(|s| s.contains("marked") || s.contains("markdown")),
        );
    }
    assert!(
        in_segment >= 4,
        "segment 1's frames answered from markdown's map ({in_segment})"
    );
    // A coverage trace, in both output bases.
    let coverage = std::fs::read_to_string(modes().join("segments.coverage.json")).unwrap();
    for (key, extra) in [
        ("coverage", &[][..]),
        (
            "coverageBases",
            &["--output-line-start", "0", "--output-column-start", "1"][..],
        ),
    ] {
        let mut args = vec![
            "profile",
            "segments.coverage.json",
            "segmented.map",
            "--json",
        ];
        args.extend(extra);
        let (out, _) = run(&modes(), &args, &coverage);
        let ours: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(ours, expected[key], "{key}");
    }
    // A stack: metro-symbolicate reads engine columns as 0-based (docs/cli.md: an intended difference), so its input is
    // given here one column on, as V8 prints it.
    let stack = std::fs::read_to_string(modes().join("segments.stack.txt")).unwrap();
    let re = regex::Regex::new(r":(\d+)\)").unwrap();
    let v8 = re.replace_all(&stack, |c: &regex::Captures| {
        format!(":{})", c[1].parse::<u32>().unwrap() + 1)
    });
    let (out, _) = run(&modes(), &["symbolicate", "--json", "segmented.map"], &v8);
    let ours: Value = serde_json::from_str(&out).unwrap();
    let theirs: Vec<&str> = expected["stack"]
        .as_str()
        .unwrap()
        .lines()
        .skip(1)
        .collect();
    let stack = ours["stack"].as_array().unwrap();
    for (k, b) in theirs.iter().enumerate() {
        let o = &stack[k]["original"];
        let printed = format!(
            "{}:{}:{}",
            o["source"].as_str().unwrap_or("null"),
            o["line"].as_u64().map_or("null".into(), |l| l.to_string()),
            o["function"].as_str().unwrap_or("null")
        );
        let want = b.split_once('(').unwrap().1.trim_end_matches(')');
        if want != "null:null:null" {
            assert_eq!(printed, want, "stack frame {k}");
        }
    }
    // A frame in a segment the map does not have: metro-symbolicate throws and prints nothing; sourcemap-ls leaves
    // that frame as printed, says why, and answers the others.
    assert!(expected["missingSegment"]
        .as_str()
        .unwrap()
        .contains("TypeError"));
    let last = stack.last().unwrap();
    assert!(last["original"].is_null(), "{last}");
    assert!(
        last["unresolved"]
            .as_str()
            .unwrap()
            .contains("segments 1 only"),
        "{last}"
    );
}

#[test]
fn under_a_root_a_map_beside_an_absent_bundle_answers_and_nothing_outside_it_does() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    let map = repo().join("fixtures/demo/dist/app.min.js.map");
    std::fs::copy(&map, root.join("sub/app.min.js.map")).unwrap();
    std::fs::copy(&map, dir.path().join("outside.js.map")).unwrap();
    let trace = "TypeError: x\n    at a (sub/app.min.js:1:50)\n    at b (http://localhost:8080/sub/app.min.js:1:50)\n    at c (../outside.js:1:50)\n";
    let (out, _) = run(&root, &["symbolicate", "--json", "--root", "."], trace);
    let v: Value = serde_json::from_str(&out).unwrap();
    let stack = v["stack"].as_array().unwrap();
    for frame in &stack[..2] {
        assert_eq!(frame["original"]["source"], "../src/orders.js", "{frame}");
        assert_eq!(frame["original"]["line"], 5, "{frame}");
    }
    assert!(
        stack[2]["original"].is_null(),
        "a map outside the root is never read: {}",
        stack[2]
    );
}

fn file_uri(p: &Path) -> String {
    url::Url::from_file_path(p).unwrap().to_string()
}

#[test]
fn the_editor_hovers_a_ram_bundles_module_where_its_frames_are_answered() {
    // Android's js-modules/4.js opened with the RAM bundle's map (the `maps` setting): each position is looked up
    // where x_facebook_offsets places module 4, as a frame in 4.js is.
    let root = ram().join("dist/android");
    let mut c = LspClient::start(&[]);
    c.configuration = json!({"maps": {"js-modules/*.js": "index.android.bundle.map"}});
    c.initialize(&root, c.configuration.clone(), false);
    let module = root.join("js-modules/4.js");
    let u = c.open(&module, "javascript");
    // The crash's frame: `at formatCustomer (4.js:11:27)`, 1-based; LSP positions are 0-based.
    let at = json!({"textDocument": {"uri": u}, "position": {"line": 10, "character": 26}});
    let h = c.result("textDocument/hover", at.clone());
    let text = h["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(text.contains("format.js:10:"), "{text}");
    assert!(text.contains("formatCustomer"), "{text}");
    assert_eq!(
        h["range"]["start"]["line"], 10,
        "the range is the module's own line: {h}"
    );
    let o = c.result("sourcemap/originalPosition", at);
    assert_eq!(
        o["build_line"].as_u64().or(o["buildLine"].as_u64()),
        Some(9),
        "{o}"
    );
    c.shutdown();
}

#[test]
fn the_servers_maps_setting_takes_a_directory_of_maps() {
    // `"maps": {"**": "maps/"}`: a trace's frame in sub/app.min.js is answered from maps/sub/app.min.js.map, as
    // `symbolicate maps/` answers it; a frame whose map would lie outside the directory is not answered.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("maps/sub")).unwrap();
    let map = repo().join("fixtures/demo/dist/app.min.js.map");
    std::fs::copy(&map, d.join("maps/sub/app.min.js.map")).unwrap();
    std::fs::copy(&map, d.join("outside.js.map")).unwrap();
    let mut c = LspClient::start(&[]);
    c.configuration = json!({"maps": {"**": "maps/"}});
    c.initialize(d, c.configuration.clone(), false);
    let text = "TypeError: x\n    at a (sub/app.min.js:1:50)\n    at b (../outside.js:1:50)\n";
    let r = c.result(
        "sourcemap/symbolicate",
        json!({"text": text, "uri": file_uri(&d.join("crash.txt"))}),
    );
    let frames = r["frames"].as_array().unwrap();
    assert_eq!(frames[0]["original"]["source"], "../src/orders.js", "{r}");
    assert!(frames[1]["original"].is_null(), "{r}");
    assert!(
        frames[1]["unresolved"]
            .as_str()
            .unwrap_or_default()
            .contains("directories of maps"),
        "{r}"
    );
    c.shutdown();
}

#[test]
fn the_server_symbolicates_a_ram_bundles_trace_as_the_cli_does() {
    // The modules in js-modules/ lead to the RAM bundle's map through the `maps` setting; a trace's frames in
    // N.js find them by name (the one resolver) and are answered where the map places each module.
    let root = ram().join("dist/android");
    let mut c = LspClient::start(&[]);
    c.configuration = json!({"maps": {"js-modules/*.js": "index.android.bundle.map"}});
    c.initialize(&root, c.configuration.clone(), false);
    let trace = std::fs::read_to_string(root.join("trace.txt")).unwrap();
    let r = c.result(
        "sourcemap/symbolicate",
        json!({"text": trace, "uri": file_uri(&root.join("trace.txt"))}),
    );
    let answered = frames(r["text"].as_str().unwrap());
    for (k, want) in truth().iter().enumerate() {
        let got = &answered[k];
        assert_eq!(
            (&got.1, got.2, got.3),
            (&want.1, want.2, want.3),
            "frame {k}: {r}"
        );
    }
    c.shutdown();
}

#[test]
fn a_profiles_frames_in_a_segment_are_answered_from_its_map() {
    // The same positions as the coverage trace, as a Hermes profile's source frames: each answer equals
    // metro-symbolicate's coverage answer for that position (it reads no segment in a profile itself).
    let expected = recorded();
    let (out, _) = run(
        &modes(),
        &[
            "profile",
            "segments.profile.json",
            "segmented.map",
            "--json",
        ],
        "",
    );
    let ours: Value = serde_json::from_str(&out).unwrap();
    let frames = &ours["frames"].as_array().unwrap()[1..];
    let theirs = expected["coverage"].as_array().unwrap();
    assert_eq!(frames.len(), theirs.len());
    for (k, (a, b)) in frames.iter().zip(theirs).enumerate() {
        let got = (
            a["source"].clone(),
            a["line"].clone(),
            a["column"].clone(),
            a["function"].clone(),
        );
        let want = (
            b["source"].clone(),
            b["line"].clone(),
            b["column"].clone(),
            b["functionName"].clone(),
        );
        assert_eq!(got, want, "profile frame {k}");
    }
}

/// metro-symbolicate 0.84.6 itself (pinned in fixtures/metro-reference, installed by scripts/test-deps), run now.
fn metro_symbolicate(cwd: &Path, args: &[&str], stdin: &str) -> String {
    let cli = repo().join("fixtures/metro-reference/node_modules/metro-symbolicate/src/index.js");
    assert!(
        cli.is_file(),
        "run `npm ci` in fixtures/metro-reference (scripts/test-deps does)"
    );
    let out = output_with_stdin(
        Command::new("node").arg(cli).args(args).current_dir(cwd),
        stdin,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Metro's own test profile of the older Hermes shape (`funcVirtAddr` + `offset`, frames named `global+55`,
/// `entryPoint+16`; `fixtures/metro-modes/upstream`) written back with `profile --out`: every frame's name as the
/// pinned metro-symbolicate writes it, run live on a copy (it rewrites its input), `<global>(temp/bench.js:21:11)`
/// from the map's function map, not Hermes' `global+55`.
#[test]
fn older_hermes_profile_frames_are_named_as_metro_symbolicate_names_them() {
    let upstream = modes().join("upstream");
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("testfile.cpuprofile");
    std::fs::copy(upstream.join("testfile.cpuprofile"), &copy).unwrap();
    let map = upstream.join("testfile.cpuprofile.map");
    metro_symbolicate(
        &upstream,
        &[map.to_str().unwrap(), copy.to_str().unwrap()],
        "",
    );
    let theirs: Value = serde_json::from_slice(&std::fs::read(&copy).unwrap()).unwrap();
    let out = dir.path().join("ours.json");
    run(
        &upstream,
        &[
            "profile",
            "testfile.cpuprofile",
            "testfile.cpuprofile.map",
            "--out",
            out.to_str().unwrap(),
        ],
        "",
    );
    let ours: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let names = |v: &Value| -> Vec<(String, Value)> {
        v["stackFrames"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(id, f)| (id.clone(), f["name"].clone()))
            .collect()
    };
    assert_eq!(names(&ours), names(&theirs));
    assert_eq!(
        theirs["stackFrames"]["2"]["name"],
        "<global>(temp/bench.js:21:11)"
    );
    assert_eq!(
        theirs["stackFrames"]["3"]["name"],
        "entryPoint(temp/bench.js:3:9)"
    );
}

#[test]
fn recorded_metro_symbolicate_answers_are_current() {
    // The recorded answers the tests above compare with are what metro-symbolicate prints today, run live.
    let expected = recorded();
    assert_eq!(
        metro_symbolicate(&modes(), &["inventory.hbc.map", "jsc.profmap"], ""),
        expected["profmap"].as_str().unwrap()
    );
    let crash = std::fs::read_to_string(modes().join("segments.crash.json")).unwrap();
    let live: Value = serde_json::from_str(&metro_symbolicate(
        &modes(),
        &["segmented.map", "--hermes-crash"],
        &crash,
    ))
    .unwrap();
    assert_eq!(live, expected["crash"]);
    let ram_android = ram().join("dist/android");
    let recorded_ram: Value = serde_json::from_str(
        &std::fs::read_to_string(ram_android.join("metro-symbolicate.json")).unwrap(),
    )
    .unwrap();
    let trace = std::fs::read_to_string(ram_android.join("trace.txt")).unwrap();
    assert_eq!(
        metro_symbolicate(&ram_android, &["index.android.bundle.map"], &trace),
        recorded_ram["stack"].as_str().unwrap()
    );
}

#[test]
fn attribution_and_coverage_take_metro_symbolicates_bases() {
    // The attribution lines of tests/heap_snapshots.rs written in other bases (lines from 0, columns from 1), read
    // with those input bases and printed in others: equal to metro-symbolicate given the same flags, run now.
    let cwd = repo().join("fixtures/profiles");
    let text = std::fs::read_to_string(cwd.join("heap/constructed.attribution.jsonl")).unwrap();
    let moved: Vec<String> = text
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            let loc = v["location"].as_object_mut().unwrap();
            if let Some(line) = loc.get("line").and_then(Value::as_u64) {
                loc.insert("line".into(), json!(line - 1));
            }
            for key in ["column", "virtualOffset"] {
                if let Some(c) = loc.get(key).and_then(Value::as_u64) {
                    loc.insert(key.into(), json!(c + 1));
                }
            }
            v.to_string()
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.jsonl");
    std::fs::write(&input, moved.join("\n") + "\n").unwrap();
    let bases = [
        "--input-line-start",
        "0",
        "--input-column-start",
        "1",
        "--output-line-start",
        "0",
        "--output-column-start",
        "1",
    ];
    let mut args = vec![
        "profile",
        input.to_str().unwrap(),
        "dist/esbuild/inventory.js.map",
        "--json",
    ];
    args.extend(bases);
    let (ours, _) = run(&cwd, &args, "");
    let mut metro_args = vec!["dist/esbuild/inventory.js.map", "--attribution"];
    metro_args.extend(bases);
    let theirs = metro_symbolicate(&cwd, &metro_args, &(moved.join("\n") + "\n"));
    let lines = |t: &str| {
        t.lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .collect::<Vec<_>>()
    };
    let (ours, theirs) = (lines(&ours), lines(&theirs));
    assert_eq!(ours.len(), 415);
    let mapped = ours
        .iter()
        .filter(|l| !l["location"]["file"].is_null())
        .count();
    assert_eq!(
        mapped, 410,
        "the same positions as in the default bases are mapped"
    );
    assert_eq!(ours, theirs);
}
