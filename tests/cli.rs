//! End-to-end tests of the `sourcemap-ls` command line: the real binary, real files in temporary directories.

#[path = "support/process.rs"]
mod process;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use process::{output_with_bytes, output_with_stdin};
use serde_json::{json, Value};
use sourcemap_fixtures::{metro, minified, MetroParams};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("run sourcemap-ls")
}

fn run_stdin(args: &[&str], stdin: &str) -> Output {
    output_with_stdin(bin().args(args), stdin)
}

fn json_lines(o: &Output) -> Vec<Value> {
    assert!(
        o.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn demo(path: &str) -> String {
    repo()
        .join("fixtures/demo")
        .join(path)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn lookup_on_the_demo_bundle_follows_its_source_mapping_url() {
    // fixtures/demo/crash.txt: `at e (dist/app.min.js:1:50)`: V8 columns are 1-based, lookup columns 0-based.
    let out = json_lines(&run(&[
        "lookup",
        &demo("dist/app.min.js"),
        "1:49",
        "1:370",
        "1:100000",
    ]));
    assert_eq!(
        out,
        vec![
            json!({"line":1,"column":49,"source":"../src/orders.js","originalLine":5,"originalColumn":23,"name":null}),
            json!({"line":1,"column":370,"source":"../src/index.js","originalLine":18,"originalColumn":0,"name":"main"}),
            // Past the bundle's line: the bundle is at hand, so no answer is made up (a map alone cannot tell).
            json!({"line":1,"column":100000,"source":null,"originalLine":null,"originalColumn":null,"name":null,
                   "problem":"column 100000 is past the end of line 1 (379 columns)"}),
        ]
    );
    // The map itself answers the same, but past the line's end as the map reads it: it has no text to tell.
    let alone = json_lines(&run(&["lookup", &demo("dist/app.min.js.map"), "1:100000"]));
    assert_eq!(
        alone,
        vec![
            json!({"line":1,"column":100000,"source":"../src/index.js","originalLine":18,"originalColumn":5,"name":null})
        ]
    );
    // Same answers from the map itself, and from stdin in both accepted forms.
    let via_map = json_lines(&run_stdin(
        &["lookup", &demo("dist/app.min.js.map")],
        "1 49\n\n1:370\n1 100000\n",
    ));
    assert_eq!(via_map[..2], out[..2]);
    assert_eq!(via_map[2], alone[0]);
}

#[test]
fn lookup_biases_and_lines_that_map_nowhere() {
    let out = json_lines(&run(&[
        "lookup",
        &demo("dist/app.min.js.map"),
        "--bias",
        "lub",
        "1:0",
        "2:0",
    ]));
    assert_eq!(out[0]["source"], "../src/orders.js");
    assert_eq!(
        out[1],
        json!({"line":2,"column":0,"source":null,"originalLine":null,"originalColumn":null,"name":null})
    );
}

/// Each line of `lookup`'s stdin stands alone: a bad line (not a position, a byte that is not UTF-8) is said on
/// stderr with its line number, the lines after it are answered, CRLF lines read, and the exit code says some failed.
#[test]
fn lookup_reads_every_line_of_stdin_alone() {
    let map = demo("dist/app.min.js.map");
    let o = output_with_bytes(
        bin().args(["lookup", &map]),
        b"1:49\r\nnot a position\n1:\xfc\n1:370\n",
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let answered: Vec<Value> = String::from_utf8(o.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let each = |args: &[&str]| json_lines(&run(&[&["lookup", map.as_str()], args].concat()));
    assert_eq!(answered, [each(&["1:49"]), each(&["1:370"])].concat());
    let err = stderr(&o);
    assert!(err.contains("stdin line 2: "), "{err}");
    assert!(
        err.contains("stdin line 3: ") && err.contains('\u{FFFD}'),
        "{err}"
    );
    assert!(err.contains("2 of 4 positions"), "{err}");
    // Arguments alike.
    let o = run(&["lookup", &map, "x", "1:49"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).lines().count(),
        1,
        "{}",
        stderr(&o)
    );
}

#[test]
fn reverse_lookup_all_and_single() {
    let map = demo("dist/app.min.js.map");
    let all = json_lines(&run(&[
        "lookup",
        &map,
        "--reverse",
        "../src/orders.js",
        "--bias",
        "all",
        "5:23",
    ]));
    assert_eq!(
        all,
        vec![
            json!({"source":"../src/orders.js","originalLine":5,"originalColumn":23,"line":1,"column":49})
        ]
    );
    // A unique suffix names the source too; a whole line gives every position on it.
    let line = json_lines(&run(&[
        "lookup",
        &map,
        "--reverse",
        "src/orders.js",
        "--bias",
        "all",
        "5",
    ]));
    assert!(line.len() > 3, "{line:?}");
    assert!(line
        .iter()
        .all(|v| v["source"] == "../src/orders.js" && v["originalLine"] == 5));
    let glb = json_lines(&run(&[
        "lookup",
        &map,
        "--reverse",
        "../src/orders.js",
        "5:24",
    ]));
    assert_eq!(glb[0]["column"], 49);
    let none = json_lines(&run(&[
        "lookup",
        &map,
        "--reverse",
        "../src/orders.js",
        "--bias",
        "lub",
        "99:0",
    ]));
    assert_eq!(none[0]["line"], Value::Null);
    let unknown = run(&["lookup", &map, "--reverse", "nope.js", "1:0"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr(&unknown).contains("not in the map"));
}

#[test]
fn exit_codes_and_messages() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.js.map");
    std::fs::write(
        &bad,
        r#"{"version":3,"sources":["a.js"],"mappings":"AAAA;AC!A"}"#,
    )
    .unwrap();
    let bad = bad.to_string_lossy().into_owned();
    let v = run(&["validate", &bad]);
    assert_eq!(v.status.code(), Some(1));
    let msg = stderr(&v);
    assert!(
        msg.contains("mappings at byte 7 (generated line 2, segment 1)"),
        "{msg}"
    );
    assert!(msg.contains("'!'"), "{msg}");
    for sub in [
        vec!["lookup", &bad, "1:0"],
        vec!["stats", &bad],
        vec!["stats", "--json", &bad],
    ] {
        let o = run(&sub);
        assert_eq!(o.status.code(), Some(1), "{sub:?}");
        assert!(
            stderr(&o).contains("mappings at byte 7"),
            "{sub:?}: {}",
            stderr(&o)
        );
        assert!(!stderr(&o).contains("panicked"));
    }
    let missing = run(&["validate", "/definitely/not/here.map"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(stderr(&missing).contains("cannot read"));
    assert_eq!(
        run(&["validate", &demo("dist/app.min.js")]).status.code(),
        Some(0)
    );
    assert_eq!(run(&["validate"]).status.code(), Some(2));
    assert_eq!(
        run(&["lookup", &demo("dist/app.min.js"), "0:0"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        run(&["lookup", &demo("dist/app.min.js"), "--bias", "all", "1:0"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(run(&["frobnicate"]).status.code(), Some(2));
}

#[test]
fn bundles_lead_to_their_maps() {
    let dir = tempfile::tempdir().unwrap();
    let map = r#"{"version":3,"sources":["src/a.ts"],"names":["hello"],"mappings":"AAAAA"}"#;
    // Inline data: URL (base64, with a charset parameter).
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD.encode(map);
    let inline = dir.path().join("inline.js");
    std::fs::write(
        &inline,
        format!(
            "hello();\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,{b64}\n"
        ),
    )
    .unwrap();
    // Sidecar BUNDLE.map without any comment.
    let sidecar = dir.path().join("side.js");
    std::fs::write(&sidecar, "hello();\n").unwrap();
    std::fs::write(dir.path().join("side.js.map"), map).unwrap();
    // A relative URL into a subdirectory, with a query string.
    std::fs::create_dir(dir.path().join("maps")).unwrap();
    std::fs::write(dir.path().join("maps/rel.map"), map).unwrap();
    let rel = dir.path().join("rel.js");
    std::fs::write(&rel, "hello();\n//# sourceMappingURL=maps/rel.map?v=2\n").unwrap();
    for bundle in [&inline, &sidecar, &rel] {
        let out = json_lines(&run(&["lookup", &bundle.to_string_lossy(), "1:3"]));
        assert_eq!(out[0]["source"], "src/a.ts", "{}", bundle.display());
        assert_eq!(out[0]["name"], "hello");
    }
    let lonely = dir.path().join("lonely.js");
    std::fs::write(&lonely, "x();\n").unwrap();
    let o = run(&["lookup", &lonely.to_string_lossy(), "1:0"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no source map found"), "{}", stderr(&o));
}

fn stats(path: &Path) -> Value {
    let o = run(&["stats", "--json", &path.to_string_lossy()]);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Issue 2's memory bound: mappings held (VLQ + checkpoints + line tables) ≤ 1.25 × the `mappings` bytes, measured
/// by the binary's counting allocator, on a 1M-segment one-line map and a 1M-segment index map.
#[test]
fn index_memory_stays_within_a_quarter_of_the_vlq() {
    let dir = tempfile::tempdir().unwrap();
    let (_, one_line) = minified(11, 1_000_000, 40);
    let one_line_path = dir.path().join("one-line.js.map");
    std::fs::write(&one_line_path, one_line).unwrap();
    let g = metro(&MetroParams {
        seed: 11,
        modules: 1700,
        mean_segments: 600,
        huge_modules: 2,
        sources_content: true,
        facebook_sources: true,
    });
    assert!(g.segments >= 1_000_000, "{}", g.segments);
    let sections_path = dir.path().join("sections.js.map");
    std::fs::write(&sections_path, &g.index_map).unwrap();

    for (path, sections) in [(&one_line_path, 1), (&sections_path, 1700)] {
        let s = stats(path);
        println!("{}: {s}", path.display());
        assert_eq!(s["sections"], sections);
        assert!(s["segments"].as_u64().unwrap() >= 1_000_000);
        let mappings = s["mappingsBytes"].as_f64().unwrap();
        let index = s["indexBytes"].as_f64().unwrap();
        assert!(index >= mappings, "the VLQ itself is held");
        assert!(
            index <= 1.25 * mappings,
            "index {index} > 1.25 × mappings {mappings}"
        );
        assert!(s["otherBytes"].as_u64().unwrap() > 0);
        for key in ["sources", "names", "generatedLines", "buildMillis"] {
            assert!(s.get(key).is_some(), "{key}");
        }
    }
}

/// The CLI answers what the library answers, on a generated Metro-shaped index map.
#[test]
fn cli_lookups_match_the_library_on_an_index_map() {
    let dir = tempfile::tempdir().unwrap();
    let g = metro(&MetroParams::small(5));
    let path = dir.path().join("bundle.js.map");
    std::fs::write(&path, &g.index_map).unwrap();
    let index = sourcemap_core::SourceMapIndex::from_bytes(g.index_map.clone()).unwrap();
    let mut queries = String::new();
    let mut expected = Vec::new();
    for line in 1..=g.bundle.lines().count() as u32 {
        for column in [0u32, 5, 17, 40] {
            queries.push_str(&format!("{line} {column}\n"));
            let o = index
                .original_position(
                    sourcemap_core::GeneratedPosition {
                        line: line - 1,
                        column,
                    },
                    sourcemap_core::Bias::GreatestLowerBound,
                )
                .unwrap();
            expected.push(json!({
                "line": line, "column": column,
                "source": o.and_then(|o| o.source_url),
                "originalLine": o.map(|o| o.line + 1),
                "originalColumn": o.map(|o| o.column),
                "name": o.and_then(|o| o.name),
            }));
        }
    }
    let got = json_lines(&run_stdin(&["lookup", &path.to_string_lossy()], &queries));
    assert_eq!(got, expected);
    assert!(got.iter().filter(|v| !v["source"].is_null()).count() > got.len() / 2);
}

/// A short trace against a large index map opens only the sections its frames need (`map::sparse`): the answer is
/// the library's on the whole map, frame for frame, for frames in many sections, between them, and past the end.
#[test]
fn symbolicate_on_a_large_index_map_answers_as_the_whole_map() {
    use sourcemap_core::trace::stack::{parse_stack, PlainInput};
    use sourcemap_core::trace::symbolicate::{render_text, symbolicate, TextOptions};
    let dir = tempfile::tempdir().unwrap();
    let g = metro(&MetroParams {
        modules: 2500,
        mean_segments: 120,
        ..MetroParams::small(9)
    });
    assert!(
        g.index_map.len() > 4 << 20,
        "{} bytes: below the sparse threshold",
        g.index_map.len()
    );
    let path = dir.path().join("index.bundle.map");
    std::fs::write(&path, &g.index_map).unwrap();
    let lines: Vec<&str> = g.bundle.lines().collect();
    let mut trace = String::from("Error: boom\n");
    for i in 0..60usize {
        let line = (i * 7919) % (lines.len() + 3); // a few past the end
        let width = lines.get(line).map_or(1, |l| l.len().max(1));
        trace.push_str(&format!(
            "    at f{i} (http://localhost:8081/index.bundle?platform=ios:{}:{})\n",
            line + 1,
            (i * 31) % width + 1
        ));
    }
    let got = run_stdin(&["symbolicate", &path.to_string_lossy()], &trace);
    assert!(
        got.status.success(),
        "{}",
        String::from_utf8_lossy(&got.stderr)
    );
    let index = sourcemap_core::SourceMapIndex::from_bytes(g.index_map.clone()).unwrap();
    let parsed = parse_stack(&trace, PlainInput::default());
    let want = render_text(
        &symbolicate(
            &parsed,
            |_| sourcemap_core::trace::symbolicate::FrameMap::Map(0, &index),
            |_, _| None,
            &sourcemap_core::trace::function_name::NoCode,
        ),
        TextOptions::default(),
    );
    let got = String::from_utf8(got.stdout).unwrap();
    assert_eq!(got, want);
    assert!(got.matches(".js:").count() > 40, "{got}");
}

/// `sourcemap-ls symbolicate … | head`: the reader goes away; the command ends quietly by SIGPIPE, as Unix tools do,
/// with no panic or backtrace on stderr.
#[test]
fn closed_output_ends_quietly() {
    use std::io::{Read, Write};
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let demo = repo().join("fixtures/demo");
    let trace = std::fs::read_to_string(demo.join("crash.txt"))
        .unwrap()
        .repeat(2000);
    let mut child = bin()
        .args(["symbolicate", "--root", "."])
        .current_dir(&demo)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(trace.as_bytes());
    });
    let mut first = [0u8; 64];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // stdout is dropped here: the pipe's only reader is gone.
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.signal(),
        Some(libc::SIGPIPE),
        "{:?} {stderr}",
        out.status
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// `--version` names the version and the commit it was built from.
#[test]
fn version_names_the_commit() {
    let out = run(&["--version"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let (version, commit) = text
        .trim()
        .strip_prefix("sourcemap-ls ")
        .and_then(|v| v.split_once(" ("))
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(version, env!("CARGO_PKG_VERSION"));
    let commit = commit.strip_suffix(')').unwrap();
    assert!(
        commit == "unknown"
            || (commit.len() == 12 && commit.chars().all(|c| c.is_ascii_hexdigit())),
        "{text}"
    );
}

fn stale(path: &str) -> String {
    repo()
        .join("fixtures/demo-stale")
        .join(path)
        .to_string_lossy()
        .into_owned()
}

/// `validate BUNDLE [MAP]` checks that the map fits the bundle (`fixtures/demo-stale`: real esbuild builds); a map
/// alone is checked for validity only.
#[test]
fn validate_checks_that_the_map_fits_its_bundle() {
    // The stale map: exit 1, one message with the evidence and what to do.
    let o = run(&["validate", &stale("stale/dist/app.min.js")]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let msg = stderr(&o);
    assert!(
        msg.contains("map-mismatch") && msg.contains("stops fitting this bundle at 1:"),
        "{msg}"
    );
    assert!(
        msg.contains("inside identifiers") && msg.contains("rebuild"),
        "{msg}"
    );
    // The same pair named explicitly, as JSON: one problem, positions 1-based lines and 0-based columns.
    let o = run(&[
        "validate",
        "--json",
        &stale("stale/dist/app.min.js"),
        &stale("stale/dist/app.min.js.map"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["valid"], false);
    let p = &v["problems"][0];
    assert_eq!(
        (p["kind"].as_str(), p["severity"].as_str()),
        (Some("map-mismatch"), Some("error")),
        "{v}"
    );
    assert_eq!(p["firstBadPosition"]["line"], 1, "{v}");
    assert!(p.get("shift").is_none(), "{v}");
    // The map alone is valid.
    assert_eq!(
        run(&["validate", &stale("stale/dist/app.min.js.map")])
            .status
            .code(),
        Some(0)
    );
    // The banner: the shift is named.
    let o = run(&["validate", "--json", &stale("banner/dist/app.min.js")]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["problems"][0]["shift"],
        json!({"lines": 2, "columns": 0}),
        "{v}"
    );
    // Controls: the demo's bundle with its own map, and with its map named beside it.
    for args in [
        vec!["validate", "--json", &demo("dist/app.min.js")],
        vec![
            "validate",
            "--json",
            &demo("dist/app.min.js"),
            &demo("dist/app.min.js.map"),
        ],
    ] {
        let o = run(&args.iter().map(|s| s.as_ref()).collect::<Vec<&str>>());
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["problems"], json!([]), "{v}");
        assert_eq!(v["fit"]["verdict"], "fits", "{v}");
    }
    // The demo's bundle against the stale build's map (the map of another build): caught.
    let o = run(&[
        "validate",
        &stale("stale/dist/app.min.js"),
        &demo("dist/app.min.js.map"),
    ]);
    assert_eq!(o.status.code(), Some(1));
}

/// `symbolicate` on the stale bundle's real crash: frames before the edit mapped, frames after it left as printed
/// and marked, a warning on stderr, the problem in `--json`, and `--explain` says why per frame.
#[test]
fn symbolicate_does_not_answer_from_a_map_that_does_not_fit() {
    let root = stale("stale");
    let trace = std::fs::read_to_string(stale("stale/crash.txt")).unwrap();
    let o = output_with_stdin(bin().args(["symbolicate", "--root", &root]), &trace);
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout.clone()).unwrap();
    assert!(
        // The stale build's folder holds no `src/`: the map's own name is printed (no path that would not open).
        out.contains("    at parseOrder (../src/orders.js:5:24)"),
        "{out}"
    );
    assert!(
        out.contains("    at a (dist/app.min.js:1:386)  [map-mismatch: not mapped, the map does not fit this bundle here]"),
        "{out}"
    );
    assert!(!out.contains("index.js"), "{out}");
    assert!(
        stderr(&o).contains("warning") && stderr(&o).contains("map-mismatch"),
        "{}",
        stderr(&o)
    );

    let o = output_with_stdin(
        bin().args(["symbolicate", "--json", "--root", &root]),
        &trace,
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["problems"][0]["kind"], "map-mismatch", "{v}");
    let a = v["stack"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["raw"].as_str().unwrap().contains("at a ("))
        .unwrap();
    assert_eq!(
        (a["mapMismatch"].as_bool(), &a["original"]),
        (Some(true), &Value::Null),
        "{a}"
    );

    let o = output_with_stdin(
        bin().args(["symbolicate", "--explain", "--root", &root]),
        &trace,
    );
    let out = String::from_utf8(o.stdout).unwrap();
    for needle in [
        "| map: ",
        "chosen because the path dist/app.min.js under",
        "by its sourceMappingURL=app.min.js.map",
        "| debug IDs: neither has one",
        "| position 1:49 lands on a segment",
        "| fit: this position is before the part of the map that does not fit",
        "| fit: the map stops fitting this bundle at 1:",
        "so this frame is not mapped",
        "| answer: ../src/orders.js:5:23, function parseOrder (from originalScopes)",
        "| answer: none (the map does not fit the bundle here)",
        "| no map: a native frame",
    ] {
        assert!(out.contains(needle), "{needle:?} not in\n{out}");
    }
}

/// A banner: answers are withheld unless `--apply-shift`, which gives the answers of the bundle's own map.
#[test]
fn apply_shift_maps_a_bannered_bundle_like_its_own_build() {
    let banner = std::fs::read_to_string(stale("banner/crash.txt")).unwrap();
    let o = output_with_stdin(
        bin().args(["symbolicate", "--root", &stale("banner")]),
        &banner,
    );
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(!out.contains("orders.js"), "{out}");
    let shifted = output_with_stdin(
        bin().args(["symbolicate", "--apply-shift", "--root", &stale("banner")]),
        &banner,
    );
    let shifted = String::from_utf8(shifted.stdout).unwrap();
    assert_demos_own_frames(&shifted);
}

/// `symbolicated` has the frames the demo's own build gives its own crash (the sources print as paths from here, in
/// two folders: compared from `src/` on).
fn assert_demos_own_frames(symbolicated: &str) {
    let own = output_with_stdin(
        bin().args([
            "symbolicate",
            "--root",
            &repo().join("fixtures/demo").to_string_lossy(),
        ]),
        &std::fs::read_to_string(repo().join("fixtures/demo/crash.txt")).unwrap(),
    );
    let own = String::from_utf8(own.stdout).unwrap();
    let frames = |s: &str| {
        s.lines()
            .filter_map(|l| {
                l.find("src/")
                    .map(|at| format!("{}{}", &l[..l.find('(').unwrap_or(0)], &l[at..]))
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(frames(symbolicated), frames(&own));
    assert_eq!(frames(&own).len(), 4, "{own}");
}

/// A banner put at the start of a one-line bundle's line after its map was made (`/*! app v1 | MIT */`, 19
/// characters): the fit check names the column shift, frames are withheld, and `--apply-shift` maps them as the
/// demo's own build maps its own crash. The trace is node's, run on the bannered bundle.
#[test]
fn apply_shift_maps_a_bundle_with_a_banner_on_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let dist = dir.path().join("dist");
    std::fs::create_dir(&dist).unwrap();
    let demo = repo().join("fixtures/demo/dist");
    let code = std::fs::read_to_string(demo.join("app.min.js")).unwrap();
    std::fs::write(
        dist.join("app.min.js"),
        format!("/*! app v1 | MIT */{code}"),
    )
    .unwrap();
    std::fs::copy(demo.join("app.min.js.map"), dist.join("app.min.js.map")).unwrap();
    let run = Command::new("node")
        .arg("dist/app.min.js")
        .current_dir(dir.path())
        .output()
        .expect("node");
    let crash = String::from_utf8(run.stderr).unwrap();
    assert!(crash.contains("app.min.js:1:69"), "{crash}");
    let root = dir.path().to_string_lossy().to_string();
    let plain = output_with_stdin(bin().args(["symbolicate", "--root", &root]), &crash);
    let (out, err) = (
        String::from_utf8(plain.stdout).unwrap(),
        String::from_utf8(plain.stderr).unwrap(),
    );
    assert!(!out.contains("orders.js"), "{out}");
    assert!(
        err.contains("line 1 once its columns are shifted by +19 columns: `/*! app v1 | MIT */`"),
        "{err}"
    );
    let shifted = output_with_stdin(
        bin().args(["symbolicate", "--apply-shift", "--root", &root]),
        &crash,
    );
    let shifted = String::from_utf8(shifted.stdout).unwrap();
    assert_demos_own_frames(&shifted);
}

/// `--explain` names the usual mistakes: a Hermes bytecode frame looked up in the JavaScript bundle's map (the
/// packager's, not composed with the compiler's).
#[test]
fn explain_names_a_bytecode_frame_against_the_bundles_map() {
    let traces = repo().join("fixtures/traces");
    // The packager's map given for a bytecode frame whose .hbc has no map of its own: the .hbc is at hand and is not
    // that map's bundle, so the frame is not answered, and --explain says to compose the packager's and the
    // compiler's maps.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("hermes")).unwrap();
    for f in ["app.hbc", "app.js", "app.js.map"] {
        std::fs::copy(
            traces.join("hermes").join(f),
            dir.path().join("hermes").join(f),
        )
        .unwrap();
    }
    let o = output_with_stdin(
        bin()
            .args(["symbolicate", "--explain", "hermes/app.js.map"])
            .current_dir(dir.path()),
        "    at e (address at hermes/app.hbc:1:248)\n",
    );
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(
        out.contains("compose the packager's and the compiler's maps"),
        "{out}"
    );
    assert!(
        out.contains("at e (address at hermes/app.hbc:1:248)"),
        "{out}"
    );
    // Where the bytecode's own (composed) map is beside it, the frame's path leads to it, whatever map is given.
    let o = output_with_stdin(
        bin()
            .args(["symbolicate", "--explain", "hermes/app.js.map"])
            .current_dir(&traces),
        "    at e (address at hermes/app.hbc:1:248)\n",
    );
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(!out.contains("compose the packager"), "{out}");
    assert!(out.contains("at parseOrder ("), "{out}");
    assert!(
        out.contains("chosen because the path hermes/app.hbc under"),
        "{out}"
    );
    // With the composed (bytecode) map first, no such hint.
    let o = output_with_stdin(
        bin()
            .args([
                "symbolicate",
                "--explain",
                "hermes/app.hbc.map",
                "hermes/app.js.map",
            ])
            .current_dir(&traces),
        "    at e (address at hermes/app.hbc:1:248)\n",
    );
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(!out.contains("compose the packager"), "{out}");
    assert!(out.contains("at parseOrder ("), "{out}");
}
