//! Bad input gets an error that says what is wrong (issue 43, item 5), on real producers' output: esbuild's bundles
//! of `fixtures/sdk-paths` (built by its make.mjs) and rxjs 6.6.7 as published (`fixtures/mapfit`).

#[path = "support/process.rs"]
mod process;
#[path = "support/sdk_paths.rs"]
mod sdk_paths;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use process::output_with_stdin;

fn fixtures() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")).unwrap()
}

/// `fixtures/sdk-paths/dist` built.
fn sdk_dist() -> PathBuf {
    sdk_paths::built().join("dist")
}

fn run(cwd: &Path, args: &[&str], stdin: &str) -> Output {
    output_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
            .args(args)
            .current_dir(cwd),
        stdin,
    )
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A copy of b/test.min.js in a folder of its own, with `map` as its map and its comment naming `comment`.
fn bundle_with(dir: &Path, name: &str, comment: &str, map: Option<(&str, Vec<u8>)>) -> PathBuf {
    let built = sdk_dist().join("b/test.min.js");
    let text = std::fs::read_to_string(built).unwrap().replace(
        "sourceMappingURL=test.min.js.map",
        &format!("sourceMappingURL={comment}"),
    );
    std::fs::write(dir.join(name), text).unwrap();
    if let Some((map_name, bytes)) = map {
        std::fs::write(dir.join(map_name), bytes).unwrap();
    }
    dir.join(name)
}

const TRACE: &str = "Error: order A17 has no quantity\n    at a (app.js:1:307)\n";

#[test]
fn a_truncated_map_is_named_with_its_own_offset_and_explained_as_broken() {
    let map = std::fs::read(sdk_dist().join("b/test.min.js.map")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    bundle_with(
        dir.path(),
        "app.js",
        "app.map",
        Some(("app.map", map[..900].to_vec())),
    );
    let (_, err) = text(&run(dir.path(), &["lookup", "app.js", "1:306"], ""));
    assert!(err.contains("app.map: "), "{err}");
    assert!(err.contains("file offset"), "{err}");
    assert!(
        !err.contains("app.js:"),
        "the error names the map, not the bundle: {err}"
    );
    let (out, _) = text(&run(dir.path(), &["symbolicate", "--explain"], TRACE));
    assert!(out.contains("leads to a map that is broken"), "{out}");
    assert!(out.contains("the JSON ends too early"), "{out}");
}

#[test]
fn validate_warns_of_a_dangling_comment_and_of_a_file_field_naming_another_file() {
    let map = std::fs::read(sdk_dist().join("b/test.min.js.map")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    bundle_with(
        dir.path(),
        "app.js",
        "gone.js.map",
        Some(("app.js.map", map)),
    );
    let o = run(dir.path(), &["validate", "app.js"], "");
    let (_, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("sourceMappingURL=gone.js.map leads to no map file")
            && err.contains("app.js.map was read instead"),
        "{err}"
    );
    // rxjs's unminified build's map (`file`: umd.js) checked against the minified bundle: said, then the misfit.
    let bundles = fixtures().join("mapfit/node_modules/rxjs/bundles");
    assert!(bundles.is_dir(), "run `npm ci` in fixtures/mapfit");
    let o = run(
        &bundles,
        &["validate", "rxjs.umd.min.js", "rxjs.umd.js.map"],
        "",
    );
    let (_, err) = text(&o);
    assert!(!o.status.success());
    assert!(
        err.contains("the map's `file` is umd.js, not rxjs.umd.min.js"),
        "{err}"
    );
    assert!(err.contains("map-mismatch"), "{err}");
}

#[test]
fn a_root_that_is_not_a_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("empty.cpuprofile"),
        r#"{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"children":[]}],"startTime":0,"endTime":1,"samples":[],"timeDeltas":[]}"#,
    )
    .unwrap();
    for cmd in [vec!["symbolicate"], vec!["profile", "empty.cpuprofile"]] {
        let mut args = cmd.clone();
        args.extend(["--root", "/nonexistent/sourcemap-ls"]);
        // No input: the root is refused before the trace is read.
        let o = run(dir.path(), &args, "");
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("--root /nonexistent/sourcemap-ls: no such folder"),
            "{err}"
        );
    }
}

/// An empty bundle is no evidence against its map (Sentry's React Native test uploads one): the map answers, and
/// the fit is said to be unchecked.
#[test]
fn an_empty_bundle_is_answered_from_its_map_with_the_fit_unchecked() {
    let map = std::fs::read(sdk_dist().join("b/test.min.js.map")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("app.js"), "").unwrap();
    std::fs::write(dir.path().join("app.js.map"), map).unwrap();
    let (out, err) = text(&run(dir.path(), &["symbolicate", "--explain"], TRACE));
    assert!(out.contains("at parseOrder ("), "{out}\n{err}");
    assert!(out.contains("src/app-b.js:6:11)"), "{out}\n{err}");
    assert!(out.contains("the generated file is empty"), "{out}");
    assert!(!err.contains("map-mismatch"), "{err}");
}

/// `lookup` on a bundle never answers where the map does not fit it (the stale build of `fixtures/demo-stale`, made
/// by its make.sh with esbuild: one function edited after the map was made): before the edit answered, after it the
/// problem said, and a warning on stderr.
#[test]
fn lookup_on_a_bundle_withholds_where_its_map_does_not_fit() {
    let stale = fixtures().join("demo-stale");
    let o = run(
        &stale,
        &["lookup", "stale/dist/app.min.js", "1:50", "1:386"],
        "",
    );
    let (out, err) = text(&o);
    assert!(err.contains("map-mismatch"), "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["source"], "../src/orders.js", "{out}");
    assert_eq!(lines[1]["source"], serde_json::Value::Null, "{out}");
    assert!(
        lines[1]["problem"]
            .as_str()
            .is_some_and(|p| p.starts_with("map-mismatch")),
        "{out}"
    );
}

/// `lookup` on Hermes bytecode: its map's columns are offsets on line 1, and the bytecode has no lines to check them
/// by, so the answer is the map's (as with the map given), never "past the end of line 1".
#[test]
fn lookup_on_hermes_bytecode_answers_from_its_map() {
    let hermes = fixtures().join("traces/hermes");
    let (via_bytecode, _) = text(&run(&hermes, &["lookup", "app.hbc", "1:248"], ""));
    let (via_map, _) = text(&run(&hermes, &["lookup", "app.hbc.map", "1:248"], ""));
    assert!(!via_bytecode.contains("problem"), "{via_bytecode}");
    assert!(via_bytecode.contains("\"source\":\""), "{via_bytecode}");
    assert_eq!(via_bytecode, via_map);
}

/// `lookup`'s two common mistakes (issue 57), each one line that says what to do, and a usage exit: a URL where a
/// file goes (nothing is fetched), and the position before the file.
#[test]
fn lookup_mistakes_are_said_as_what_to_do() {
    let demo = fixtures().join("demo");
    for (args, says) in [
        (
            vec!["lookup", "https://shop.example.com/static/app.min.js", "1:1"],
            "fetches nothing; download it first (curl -O https://shop.example.com/static/app.min.js)",
        ),
        (
            vec!["lookup", "1:100", "dist/app.min.js"],
            "the file comes first, then the positions: `sourcemap-ls lookup dist/app.min.js 1:100`",
        ),
        (vec!["lookup", "1:100"], "1:100 is a position, not a file"),
    ] {
        let out = run(&demo, &args, "");
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{stdout}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

/// `validate MAP BUNDLE`, the order swapped (issue 57): the check runs as meant (the stale demo's map, which stops
/// fitting its bundle: non-zero) and one line says which is which.
#[test]
fn validate_with_the_map_first_checks_as_meant_and_says_so() {
    let stale = fixtures().join("demo-stale");
    let swapped = run(
        &stale,
        &[
            "validate",
            "stale/dist/app.min.js.map",
            "stale/dist/app.min.js",
        ],
        "",
    );
    let meant = run(
        &stale,
        &[
            "validate",
            "stale/dist/app.min.js",
            "stale/dist/app.min.js.map",
        ],
        "",
    );
    let ((_, swapped_err), (_, meant_err)) = (text(&swapped), text(&meant));
    assert_eq!(swapped.status.code(), meant.status.code());
    assert_eq!(swapped.status.code(), Some(1), "{swapped_err}");
    assert!(
        swapped_err.starts_with("sourcemap-ls: note: stale/dist/app.min.js.map is the map and stale/dist/app.min.js the bundle"),
        "{swapped_err}"
    );
    assert_eq!(
        swapped_err.lines().skip(1).collect::<Vec<_>>(),
        meant_err.lines().collect::<Vec<_>>()
    );
}

/// A file that is neither a trace nor a map, given where the trace goes (issue 65): one line that says what it is and
/// what to do, a usage exit, and nothing on stdout (an Electron app's `app.asar` was written to stdout whole).
#[test]
fn an_archive_or_a_binary_is_not_taken_for_a_trace() {
    let f = fixtures();
    let asar = f.join("electron/corpus/electron/installed/resources/app.asar");
    let zip = f.join("sentry-artifact-bundles/corpus/sentry/artifact-bundle.zip");
    let hbc = f.join("traces/hermes/app.hbc");
    let trace = "Error: x\n    at f (app:///out/main/index.js:1:2)\n";
    for (file, says) in [
        (&asar, "is an asar archive"),
        (&zip, "is a zip"),
        (&hbc, "is Hermes bytecode"),
    ] {
        let shown = file.display().to_string();
        let mut forms = vec![(vec!["symbolicate"], std::fs::read(file).unwrap())];
        // (A `.hbc` named as an argument stands for its map, `app.hbc.map` beside it.)
        if file != &hbc {
            forms.push((
                vec!["symbolicate", shown.as_str()],
                trace.as_bytes().to_vec(),
            ));
        }
        for (args, stdin) in forms {
            let out = process::output_with_bytes(
                Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
                    .current_dir(&f)
                    .args(&args),
                &stdin,
            );
            let (stdout, stderr) = text(&out);
            assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
            assert!(
                stdout.is_empty(),
                "{args:?}: {} bytes on stdout",
                stdout.len()
            );
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
            assert!(stderr.contains(says), "{args:?}: {stderr}");
            if file != &hbc {
                assert!(stderr.contains("--maps"), "{stderr}");
            }
        }
    }
}
