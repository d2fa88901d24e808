//! Function names on real producers' output (`fixtures/names`, its README): each bundle runs under node, and the
//! frames of its real stack trace are symbolicated and their functions compared with what the original program
//! calls them.
//!
//! - rxjs 6.6.7 and 7.8.1 as published (Closure Compiler, each map 8 lines above its bundle): with `--apply-shift`
//!   the function is found on the same shifted line as the position, and Closure's name segments one column before
//!   their identifiers name it (`Pb` → `createInvalidObservableTypeError`, `a.prototype._next` →
//!   `MapSubscriber.prototype._next`).
//! - dart2js: each frame is named by its segment's name, as Dart's `source_map_stack_trace` does; the async `main`'s
//!   generated closure is `main`.

#[path = "support/process.rs"]
mod process;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn fixtures() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")).unwrap()
}

/// The stack `node SCRIPT ARGS…` prints.
fn node(script: &Path, args: &[&str]) -> String {
    let out = Command::new("node")
        .arg(script)
        .args(args)
        .output()
        .expect("node");
    assert!(
        out.status.success(),
        "{}: {}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

const UNANSWERED: &str = "<unanswered>";

/// `(function, functionSource)` of each frame of `trace` in `bundle` (by its file name), symbolicated with `flags`.
fn names_in(trace: &str, bundle: &str, flags: &[&str]) -> Vec<(Option<String>, Option<String>)> {
    let o = process::output_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
            .args(["symbolicate", "--json"])
            .args(flags),
        trace,
    );
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
    let frames: Vec<_> = v["stack"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            f["generated"]["file"]
                .as_str()
                .is_some_and(|p| p.ends_with(bundle))
        })
        .map(|f| {
            let o = &f["original"];
            if !o.is_object() {
                return (Some(UNANSWERED.to_string()), None);
            }
            (
                o["function"].as_str().map(str::to_string),
                o["functionSource"].as_str().map(str::to_string),
            )
        })
        .collect();
    assert!(!frames.is_empty(), "no frame in {bundle}: {trace}");
    frames
}

fn functions(names: &[(Option<String>, Option<String>)]) -> Vec<&str> {
    names
        .iter()
        .map(|(f, _)| f.as_deref().unwrap_or("-"))
        .collect()
}

fn require(dir: &Path, what: &str) {
    assert!(
        dir.is_dir(),
        "run `npm ci` in {what} first (scripts/test-deps does)"
    );
}

#[test]
fn rxjs_6_shifted_frames_are_named_on_the_shifted_line() {
    let d = fixtures().join("mapfit");
    require(&d.join("node_modules/rxjs"), "fixtures/mapfit");
    let bundle = d.join("node_modules/rxjs/bundles/rxjs.umd.min.js");
    let driver = d.join("rxjs-crash.cjs");
    // The driver exports `run(bundle, scenario)`; each scenario's stack is printed.
    let script = format!(
        "const d = require({driver:?}); for (const s of d.scenarios) process.stdout.write(d.run({bundle:?}, s) + '\\n');",
        driver = driver.display().to_string(),
        bundle = bundle.display().to_string(),
    );
    let out = Command::new("node")
        .args(["-e", &script])
        .output()
        .expect("node");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let trace = String::from_utf8(out.stdout).unwrap();
    let names = names_in(&trace, "rxjs.umd.min.js", &["--apply-shift"]);
    // Every frame of the bundle, in order (three scenarios: map, filter after scan, mergeMap over tap). Before, the
    // bundle's function was looked for 8 lines above the frame: `prototype`, `ScanOperator` for `FilterOperator`'s
    // `call`, `Sa` for `innerSubscribe`. `subscribeToArray`'s returned closure is anonymous, V8's `c._subscribe`: its
    // caller `Observable.prototype._trySubscribe` calls `this._subscribe`, so it is `Observable._subscribe`, as V8
    // prints it for the unminified build (`docs/semantics.md`, call sites). Still the frame's own: `_innerSub`, whose `a` has its segment on the line before (the `;` ending
    // it), which is not one column early.
    assert_eq!(
        functions(&names),
        [
            // map
            "MapSubscriber.prototype._next",
            "Subscriber.prototype.next",
            "Observable._subscribe",
            "Observable.prototype._trySubscribe",
            "Observable.prototype.subscribe",
            "MapOperator.prototype.call",
            "Observable.prototype.subscribe",
            // filter after scan
            "FilterSubscriber.prototype._next",
            "Subscriber.prototype.next",
            "ScanSubscriber.prototype._tryNext",
            "ScanSubscriber.prototype._next",
            "Subscriber.prototype.next",
            "Observable._subscribe",
            "Observable.prototype._trySubscribe",
            "Observable.prototype.subscribe",
            "ScanOperator.prototype.call",
            "Observable.prototype.subscribe",
            "FilterOperator.prototype.call",
            "Observable.prototype.subscribe",
            // mergeMap over tap
            "TapSubscriber.prototype._next",
            "Subscriber.prototype.next",
            "Observable._subscribe",
            "Observable.prototype._trySubscribe",
            "Observable.prototype.subscribe",
            "DoOperator.prototype.call",
            "Observable.prototype.subscribe",
            "innerSubscribe",
            "a._innerSub",
            "MergeMapSubscriber.prototype._tryNext",
            "MergeMapSubscriber.prototype._next",
            "Subscriber.prototype.next",
            "Observable._subscribe",
            "Observable.prototype._trySubscribe",
            "Observable.prototype.subscribe",
            "MergeMapOperator.prototype.call",
            "Observable.prototype.subscribe",
        ]
    );
    for (f, source) in &names {
        let want = match f.as_deref() {
            Some("a._innerSub") => "frame",
            Some("Observable._subscribe") => "callSite",
            _ => "generatedScopes",
        };
        assert_eq!(source.as_deref(), Some(want), "{f:?}");
    }
}

#[test]
fn rxjs_7_closure_names_one_column_early_name_the_function() {
    let d = fixtures().join("names");
    require(&d.join("node_modules/rxjs"), "fixtures/names");
    let bundle = d.join("node_modules/rxjs/dist/bundles/rxjs.umd.min.js");
    let trace = node(&d.join("rxjs7-crash.cjs"), &[bundle.to_str().unwrap()]);
    let names = names_in(&trace, "rxjs.umd.min.js", &["--apply-shift"]);
    // `at Pb`, `at q`, `at Object.P [as from]`: the map names `Pb`'s token on the space before it.
    assert_eq!(
        names,
        ["createInvalidObservableTypeError", "innerFrom", "from"]
            .map(|n| (Some(n.to_string()), Some("generatedScopes".to_string())))
    );
}

#[test]
fn dart2js_frames_are_named_by_their_segments_as_darts_own_tool_names_them() {
    let d = fixtures().join("names/dart2js");
    let trace = node(&d.join("run.cjs"), &[]);
    let names = names_in(&trace, "out.js", &[]);
    // The program: `main` is async, awaits a future, then throws (`throw StateError("")`, `Bad state: `). Its body
    // runs in an anonymous closure (`var $async$be=A.dv(function(a,b){…})`), which V8 prints without a name.
    assert_eq!(
        functions(&names),
        [
            "wrapException",
            "main",
            "_wrapJsFunctionForAsync",
            "_wrapJsFunctionForAsync.<anonymous function>",
            "_awaitOnObject.<anonymous function>",
            "_RootZone.runUnary",
            "_RootZone.runUnary[function-entry$2]",
            "_FutureListener.handleValue",
            "_Future._propagateToListeners",
            "Future.<anonymous function>",
            "_TimerImpl.internalCallback",
            "invokeClosure",
            // `Timeout._onTimeout` at 173:51: dart2js's own timer glue, which its map leaves unmapped.
            UNANSWERED,
        ]
    );
    assert!(names[..12]
        .iter()
        .all(|(_, s)| s.as_deref() == Some("dart2js")));
}
