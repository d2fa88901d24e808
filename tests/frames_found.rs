//! Frames found where users' traces say they are: the path forms Sentry's SDKs and runtimes write, paths of another
//! machine, bare names of bundles inside `node_modules`, inline maps in large bundles, and the one-map rule held to
//! the frames it can be right for. Real output throughout: `fixtures/sdk-paths/make.mjs` builds three programs with
//! esbuild, runs them under node, and rewrites the traces with @sentry/core's own `rewriteFramesIntegration` as each
//! SDK configures it (`fixtures/sdk-paths/README.md`). Needs node and `npm ci` in `fixtures/sdk-paths`
//! (scripts/test-deps).

#[path = "support/process.rs"]
mod process;
#[path = "support/sdk_paths.rs"]
mod sdk_paths;

use std::path::PathBuf;
use std::process::Command;

use process::output_with_stdin;
use serde_json::Value;

fn fixture() -> PathBuf {
    sdk_paths::fixture()
}

/// The cases make.mjs recorded.
fn cases() -> &'static Vec<Value> {
    static CASES: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    CASES.get_or_init(|| {
        let d = sdk_paths::built();
        serde_json::from_str(&std::fs::read_to_string(d.join("cases.json")).unwrap()).unwrap()
    })
}

fn case(form: &str) -> &'static Value {
    cases()
        .iter()
        .find(|c| c["form"] == form)
        .unwrap_or_else(|| panic!("no case {form}"))
}

/// The case's input: its Sentry event, or its trace.
fn input(c: &Value) -> String {
    match c.get("event") {
        Some(e) => e.to_string(),
        None => c["trace"].as_str().unwrap().to_string(),
    }
}

fn symbolicate(args: &[&str], stdin: &str) -> Value {
    let out = output_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
            .args(["symbolicate", "--json"])
            .args(args)
            .current_dir(fixture().join("dist")),
        stdin,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Each frame's answer as `src/FILE:LINE:COLUMN FUNCTION` (the source's leading `../` dropped: maps at different
/// depths name one file), or `-` when unmapped.
fn answers(result: &Value) -> Vec<String> {
    result["stack"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| match &f["original"] {
            Value::Null => "-".to_string(),
            o => format!(
                "{}:{}:{} {}",
                o["source"].as_str().unwrap().trim_start_matches("../"),
                o["line"],
                o["column"],
                o["function"].as_str().unwrap_or("?")
            ),
        })
        .collect()
}

/// The 1-based line of `src/FILE` holding `marker`.
fn line_of(file: &str, marker: &str) -> usize {
    let text = std::fs::read_to_string(fixture().join("src").join(file)).unwrap();
    text.lines().position(|l| l.contains(marker)).unwrap() + 1
}

#[test]
fn every_path_form_finds_the_bundle_it_names() {
    let local = answers(&symbolicate(&[], &input(case("local"))));
    let throw = format!("src/app-b.js:{}:", line_of("app-b.js", "THROW-B"));
    assert!(local[0].starts_with(&throw), "{local:?}");
    assert!(local[0].ends_with(" parseOrder"), "{local:?}");
    let mapped = local.iter().filter(|a| *a != "-").count();
    assert!(mapped >= 4, "{local:?}");
    for form in [
        "app:///b/test.min.js",
        "app:///test.min.js",
        "~/b/test.min.js",
        "capacitor://localhost/b/test.min.js",
        "C:\\build\\b\\test.min.js",
        "/usr/src/app/b/test.min.js",
        "orders.min.js",
    ] {
        let c = case(form);
        let got = answers(&symbolicate(&[], &input(c)));
        // A Sentry event lists frames oldest first; a trace newest first.
        let mut got_in_trace_order = got.clone();
        if c.get("event").is_some() {
            got_in_trace_order.reverse();
        }
        assert_eq!(
            got_in_trace_order, local,
            "{form} ({}): answers differ from the trace as printed here",
            c["who"]
        );
    }
}

#[test]
fn an_inline_map_in_a_bundle_larger_than_its_tail_window_is_read() {
    let got = answers(&symbolicate(&[], &input(case("big.min.js (inline map)"))));
    let throw = format!(
        "src/app-inline.js:{}:",
        line_of("app-inline.js", "THROW-INLINE")
    );
    assert!(got[0].starts_with(&throw), "{got:?}");
    assert!(got[0].ends_with(" check"), "{got:?}");
    assert!(
        got.iter()
            .any(|a| a.starts_with("node_modules/lodash/lodash.js:")),
        "{got:?}"
    );
}

/// The one map given on the command line never answers a frame whose file is at hand and is not its bundle: the
/// user's own script beside a library's bundle stays as printed, with the reason.
#[test]
fn the_one_map_given_never_answers_another_file() {
    let d = fixture();
    let script = d.join("src/app-b.js");
    let trace = format!(
        "{}\n    at main ({}:12:10)\n",
        input(case("local")).trim_end(),
        script.display()
    );
    let result = symbolicate(&["--explain", "b/test.min.js.map"], &trace);
    let stack = result["stack"].as_array().unwrap();
    let mine = stack.last().unwrap();
    assert_eq!(mine["original"], Value::Null, "{mine}");
    assert!(
        mine["explain"]
            .to_string()
            .contains("not the bundle of the map given"),
        "{mine}"
    );
    // The library's frames are still answered from it.
    assert!(answers(&result)[0].starts_with("src/app-b.js:"), "{result}");
    // A frame of the other build named test.min.js (a/) is answered from its own map, not the one given.
    let a = "Error\n    at x (a/test.min.js:1:100)\n";
    let from_a = symbolicate(&["--explain", "b/test.min.js.map"], a);
    let explain = from_a["stack"][0]["explain"].to_string();
    assert!(explain.contains("a/test.min.js.map"), "{from_a}");
    assert!(!explain.contains("b/test.min.js.map"), "{from_a}");
}

/// metro-symbolicate's directory of maps given as `--root DIR`: a frame naming an absolute path inside DIR, whose
/// bundle is absent, reads `DIR/PATH.map` (relative paths always did).
#[test]
fn an_absolute_path_inside_the_root_reads_the_map_beside_where_its_bundle_would_be() {
    let _ = cases();
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::copy(
        fixture().join("dist/b/test.min.js.map"),
        root.join("foo.js.map"),
    )
    .unwrap();
    let local = answers(&symbolicate(&[], &input(case("local"))));
    let trace =
        input(case("local")).replace("b/test.min.js", &format!("{}/foo.js", root.display()));
    let root_arg = root.display().to_string();
    let got = answers(&symbolicate(&["--root", &root_arg], &trace));
    assert_eq!(got, local);
}

/// Text output names each source by a path that opens from where the command ran (the map's `sources` string is
/// relative to the map); `--json` gives both. Run from the project folder, as a user does: a source outside what the
/// command was given (the roots, the working folder) is never read, so from `dist/` alone `../src/` would not open.
#[test]
fn sources_print_as_paths_that_open_from_the_working_directory() {
    let project = fixture();
    let run = |json: bool| {
        let out = output_with_stdin(
            Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
                .arg("symbolicate")
                .args(if json { &["--json"][..] } else { &[][..] })
                .args(["--root", "dist"])
                .current_dir(&project),
            &input(case("big.min.js (inline map)")),
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let text = run(false);
    let mut opened = 0;
    for line in text
        .lines()
        .filter(|l| l.contains(".js:") && !l.contains("node:"))
    {
        let inner = &line[line.find('(').map_or(0, |i| i + 1)..].trim_end_matches(')');
        let path = inner.rsplitn(3, ':').nth(2).unwrap();
        let path = path.trim_start_matches("at ").trim();
        assert!(
            project.join(path).is_file(),
            "{path} does not open from {}: {text}",
            project.display()
        );
        opened += 1;
    }
    assert!(opened >= 3, "{text}");
    let json: Value = serde_json::from_str(&run(true)).unwrap();
    let first = &json["stack"][0]["original"];
    assert_eq!(first["source"], "../../src/app-inline.js", "{first}");
    assert_eq!(first["path"], "src/app-inline.js", "{first}");
}

/// A path that names a package is that package's file: `…/node_modules/other-lib/b/test.min.js` is never answered
/// by the root's own `b/test.min.js`, whose name and tail it shares; a package that is here is found by its path.
#[test]
fn a_package_path_is_never_answered_by_a_file_of_another_package() {
    let local = input(case("local"));
    let other = local.replace(
        "b/test.min.js",
        "/ci/proj/node_modules/other-lib/b/test.min.js",
    );
    let got = answers(&symbolicate(&[], &other));
    assert!(got.iter().all(|a| a == "-"), "{got:?}");
    let here = local.replace(
        "b/test.min.js",
        "/ci/proj/node_modules/orders/dist/orders.min.js",
    );
    let want = answers(&symbolicate(&[], &local));
    assert_eq!(answers(&symbolicate(&[], &here)), want);
}

/// `file:` URLs of another machine (Node's ESM, Electron) are read by their path's tail, as plain paths are.
#[test]
fn a_file_url_of_another_machine_is_read_by_its_tail() {
    let local = input(case("local"));
    let want = answers(&symbolicate(&[], &local));
    for form in [
        "file:///srv/app/b/test.min.js",
        "file:///C:/srv/app/b/test.min.js",
    ] {
        let trace = local.replace("b/test.min.js", form);
        assert_eq!(answers(&symbolicate(&[], &trace)), want, "{form}");
    }
}

/// The one map given answers a renamed copy of its own bundle (the same bytes), as deployed copies are.
#[test]
fn the_one_map_given_answers_a_copy_of_its_bundle() {
    let _ = cases();
    let dist = fixture().join("dist");
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(dist.join("b/test.min.js"), dir.path().join("public.js")).unwrap();
    let local = input(case("local"));
    let want = answers(&symbolicate(&[], &local));
    let trace = local.replace(
        "b/test.min.js",
        &dir.path().join("public.js").display().to_string(),
    );
    let map = dist.join("b/test.min.js.map").display().to_string();
    assert_eq!(answers(&symbolicate(&[&map], &trace)), want);
}
