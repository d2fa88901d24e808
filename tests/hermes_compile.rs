//! Which compile a Hermes bytecode trace came from (issue 55), on `fixtures/hermes-compile`: one Metro bundle compiled
//! by hermesc 0.12.0 four ways (A `-O`, B `-O0`, C `-O` of an edited bundle, D `-O -g`), each laid out as React
//! Native's Gradle plugin leaves it (`index.android.bundle` the bytecode, its `.packager.map`, `.compiler.map` and
//! composed `.map`), each run under the `hermes` VM for real bytecode traces, and what the pinned metro-symbolicate
//! prints for every trace with every compile's composed map (`dist/symbolicated`, recorded by `make.mjs`).
//!
//! - With its own composed map, every frame is metro-symbolicate's answer; with another compile's and the bytecode at
//!   hand, no frame is answered and stderr says why (the first function whose offset differs); with the bytecode not
//!   at hand, the map answers as metro-symbolicate does (nothing to check against).
//! - `validate BYTECODE MAP` exits 0 for the compile's own map only.
//! - hermesc's map alone answers in the Metro bundle, at the JavaScript run's positions (`dist/js`); beside Metro's
//!   map, in either order, the two chain into metro-symbolicate's answers on the composed map.

#[path = "support/hermes_compile.rs"]
mod hermes_compile;
#[path = "support/process.rs"]
mod process;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use process::output_with_stdin;
use serde_json::Value;

const COMPILES: [&str; 4] = ["A", "B", "C", "D"];
const BUNDLE: &str = "index.android.bundle";

fn dist() -> PathBuf {
    hermes_compile::built().join("dist")
}

fn run(cwd: &Path, args: &[&str], stdin: &str) -> Output {
    output_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
            .args(args)
            .current_dir(cwd),
        stdin,
    )
}

/// `symbolicate --json ARGS < stdin`: the answer and stderr.
fn symbolicate(cwd: &Path, args: &[&str], stdin: &str) -> (Value, String) {
    let mut all = vec!["symbolicate", "--json"];
    all.extend_from_slice(args);
    let out = run(cwd, &all, stdin);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "symbolicate {args:?}: {stderr}");
    (serde_json::from_slice(&out.stdout).unwrap(), stderr)
}

/// Each trace of compile `x` (`dist/X/traces/NAME.txt`, or under `dist/js/X/` for the JavaScript runs), by name.
fn traces(dir: &Path) -> Vec<(String, String)> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".txt"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 8, "{}: {names:?}", dir.display());
    names
        .into_iter()
        .map(|n| {
            let text = std::fs::read_to_string(dir.join(&n)).unwrap();
            (n, text)
        })
        .collect()
}

/// What a frame says where it was: (source, 1-based line, function name) as metro-symbolicate prints them, nulls
/// for a frame not mapped (or native).
type Said = (Value, Value, Value);

/// metro-symbolicate's frames of a trace it rewrote: `at NAME (address at SOURCE:LINE:FUNCTION)` (or without
/// `address at` for JavaScript frames), `null:null:null` where it found nothing.
fn metro_frames(text: &str) -> Vec<Said> {
    text.lines()
        .filter(|l| l.trim_start().starts_with("at "))
        .map(|l| {
            let (Some(open), true) = (l.rfind(" ("), l.ends_with(')')) else {
                return (Value::Null, Value::Null, Value::Null);
            };
            let inside = &l[open + 2..l.len() - 1];
            let inside = inside.strip_prefix("address at ").unwrap_or(inside);
            if inside == "native" {
                return (Value::Null, Value::Null, Value::Null);
            }
            let mut parts = inside.splitn(3, ':');
            let mut part = |parse_number: bool| match parts.next() {
                Some("null") | None => Value::Null,
                Some(p) if parse_number => p.parse::<u64>().map_or(Value::Null, Value::from),
                Some(p) => Value::from(p),
            };
            (part(false), part(true), part(false))
        })
        .collect()
}

/// Our frames as metro-symbolicate says them: its name is the function map's where there is one, else the
/// mapping's (ours keeps them apart: `function` and `name`).
fn our_frames(answer: &Value) -> Vec<Said> {
    answer["stack"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let o = &f["original"];
            if o.is_null() {
                return (Value::Null, Value::Null, Value::Null);
            }
            let name = if o["functionSource"] == "functionMap" {
                o["function"].clone()
            } else {
                o["name"].clone()
            };
            (o["source"].clone(), o["line"].clone(), name)
        })
        .collect()
}

/// Frames answered.
fn answered(answer: &Value) -> usize {
    answer["stack"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| !f["original"].is_null())
        .count()
}

/// Bytecode frames (`address at`) of a trace.
fn bytecode_frames(trace: &str) -> usize {
    trace.lines().filter(|l| l.contains("(address at ")).count()
}

/// Our answers to every trace of `x` equal metro-symbolicate's recorded ones (`dist/symbolicated/<recorded>/`).
fn assert_as_metro(cwd: &Path, args: &[&str], x: &str, recorded: &str, js: bool) -> usize {
    let dir = dist();
    let traced = if js {
        dir.join("js").join(x).join("traces")
    } else {
        dir.join(x).join("traces")
    };
    let mut compared = 0;
    for (name, trace) in traces(&traced) {
        let (answer, stderr) = symbolicate(cwd, args, &trace);
        assert!(
            !stderr.contains("map-mismatch"),
            "{x}/{name} with {args:?}: {stderr}"
        );
        let metro =
            std::fs::read_to_string(dir.join("symbolicated").join(recorded).join(&name)).unwrap();
        let (ours, want) = (our_frames(&answer), metro_frames(&metro));
        assert_eq!(ours.len(), want.len(), "{x}/{name}: {metro}");
        for (k, (got, want)) in ours.iter().zip(&want).enumerate() {
            assert_eq!(got, want, "{x}/{name} with {args:?}, frame {k}");
        }
        compared += ours.len();
    }
    compared
}

/// Each compile's trace with its own composed map, the bytecode at hand (`--root` is the compile's folder): every
/// frame as metro-symbolicate answers it, and the fit judged by the map's function offsets.
#[test]
fn each_compiles_own_map_answers_as_metro_symbolicate() {
    let dir = dist();
    let mut compared = 0;
    for x in COMPILES {
        let here = dir.join(x);
        let map = format!("{BUNDLE}.map");
        compared += assert_as_metro(&here, &[&map], x, &format!("{x}-trace.{x}-map"), false);
        let (_, trace) = &traces(&here.join("traces"))[0];
        let out = run(&here, &["symbolicate", "--explain", &map], trace);
        let explained = String::from_utf8_lossy(&out.stdout);
        assert!(
            explained.contains(&format!("bundle text: {BUNDLE}"))
                && explained.contains(
                    "fit: the map is this compile's: its x_hermes_function_offsets are this \
                     bytecode's function table"
                ),
            "{x}: {explained}"
        );
    }
    assert!(compared >= 4 * 130, "only {compared} frames compared");
}

/// Another compile's composed map, the bytecode at hand as React Native's Gradle plugin leaves it (the bundle
/// under `build/generated/assets`, its map under `build/generated/sourcemaps`), found under `--root` or chosen with
/// `--bundle`: no frame answered, and stderr names the first function whose offset differs. Without the bytecode,
/// the map answers as metro-symbolicate does (nothing to check it against).
#[test]
fn another_compiles_map_is_refused_where_the_bytecode_is_at_hand() {
    let dir = dist();
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let mut refused = 0;
    for x in COMPILES {
        for y in COMPILES.iter().filter(|&&y| y != x) {
            let pair = format!("{x}-trace.{y}-map");
            let first = summary["pairs"][&pair]["firstDifferentFunction"]
                .as_u64()
                .unwrap_or_else(|| panic!("{pair}: {}", summary["pairs"][&pair]));
            let tmp = tempfile::tempdir().unwrap();
            let (assets, maps) = (tmp.path().join("assets"), tmp.path().join("sourcemaps"));
            std::fs::create_dir_all(&assets).unwrap();
            std::fs::create_dir_all(&maps).unwrap();
            std::fs::copy(dir.join(x).join(BUNDLE), assets.join(BUNDLE)).unwrap();
            let map = maps.join(format!("{BUNDLE}.map"));
            std::fs::copy(dir.join(y).join(format!("{BUNDLE}.map")), &map).unwrap();
            let map = map.to_str().unwrap();
            let why =
                format!("the map is another compile's: function {first} starts at bytecode offset");
            for (name, trace) in traces(&dir.join(x).join("traces")) {
                let (answer, stderr) = symbolicate(tmp.path(), &["--root", "assets", map], &trace);
                assert_eq!(answered(&answer), 0, "{pair}/{name}: {answer}");
                assert!(
                    stderr.contains("map-mismatch") && stderr.contains(&why),
                    "{pair}/{name}: {stderr}"
                );
                let chosen = format!("--bundle={BUNDLE}=assets/{BUNDLE}");
                let out = run(
                    tmp.path(),
                    &["symbolicate", "--explain", &chosen, map],
                    &trace,
                );
                let explained = String::from_utf8_lossy(&out.stdout);
                let stderr = String::from_utf8_lossy(&out.stderr);
                let bytecode = bytecode_frames(&trace);
                assert_eq!(
                    explained
                        .matches("answer: none (the map does not fit")
                        .count(),
                    bytecode,
                    "{pair}/{name}: {explained}"
                );
                assert_eq!(
                    explained
                        .matches(&format!(
                            "fit: not this bytecode's map, so this frame is not mapped: {why}"
                        ))
                        .count(),
                    bytecode,
                    "{pair}/{name}: {explained}"
                );
                assert!(stderr.contains(&why), "{pair}/{name}: {stderr}");
                refused += bytecode;
            }
            // The bytecode not at hand: the map's answers, unchecked, are metro-symbolicate's.
            let alone = tempfile::tempdir().unwrap();
            assert_as_metro(alone.path(), &[map], x, &pair, false);
        }
    }
    assert!(refused >= 12 * 110, "only {refused} frames refused");
}

/// Another compile's composed map where it was made, beside its own bytecode (the corpus's layout): it is that file's
/// map, so it answers no frame of this compile's bytecode, found under `--root` or chosen with `--bundle`, and
/// `--explain` says why.
#[test]
fn another_compiles_map_beside_its_own_bytecode_answers_none_of_this_one() {
    let dir = dist();
    for x in COMPILES {
        let root = tempfile::tempdir().unwrap();
        std::fs::copy(dir.join(x).join(BUNDLE), root.path().join(BUNDLE)).unwrap();
        let (_, trace) = &traces(&dir.join(x).join("traces"))[0];
        for y in COMPILES.iter().filter(|&&y| y != x) {
            let map = dir.join(y).join(format!("{BUNDLE}.map"));
            let map = map.to_str().unwrap();
            let chosen = format!("--bundle={BUNDLE}={x}/{BUNDLE}.hbc");
            let root_arg = root.path().to_str().unwrap();
            for args in [vec![chosen.as_str(), map], vec!["--root", root_arg, map]] {
                let (answer, _) = symbolicate(&dir, &args, trace);
                assert_eq!(answered(&answer), 0, "{x} with {args:?}: {answer}");
                let mut explain = vec!["symbolicate", "--explain"];
                explain.extend(&args);
                let out = run(&dir, &explain, trace);
                let explained = String::from_utf8_lossy(&out.stdout);
                assert_eq!(
                    explained
                        .matches("the map is another compile's: function ")
                        .count(),
                    bytecode_frames(trace),
                    "{x} with {args:?}: {explained}"
                );
            }
        }
    }
}

/// `validate BYTECODE MAP`: 0 for the compile's own composed map and hermesc's own map, 1 with the reason for every
/// other compile's, and for Metro's packager map, which describes the JavaScript, not the bytecode; bytecode of
/// another version is not checked, and says so.
#[test]
fn validate_tells_a_compiles_maps_from_the_others() {
    let dir = dist();
    for x in COMPILES {
        let hbc = format!("{x}/{BUNDLE}.hbc");
        let validate = |map: &str| {
            let out = run(&dir, &["validate", &hbc, map], "");
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        };
        for y in COMPILES {
            for map in [
                format!("{y}/{BUNDLE}.map"),
                format!("{y}/{BUNDLE}.compiler.map"),
            ] {
                let (code, stderr) = validate(&map);
                if x == y {
                    assert_eq!((code, stderr.as_str()), (Some(0), ""), "{hbc} {map}");
                } else {
                    assert_eq!(code, Some(1), "{hbc} {map}: {stderr}");
                    assert!(
                        stderr.contains("map-mismatch: the map is another compile's: function "),
                        "{hbc} {map}: {stderr}"
                    );
                }
            }
        }
        let (code, stderr) = validate(&format!("{x}/{BUNDLE}.packager.map"));
        assert_eq!(code, Some(1), "{stderr}");
        assert!(
            stderr.contains(
                "this map describes JavaScript (no x_hermes_function_offsets), not this bytecode"
            ),
            "{stderr}"
        );
        // The bytecode named as Gradle leaves it leads to its composed map (its sidecar).
        let out = run(&dir, &["validate", &format!("{x}/{BUNDLE}")], "");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A version never shipped (97: a development layout of Hermes V1) is not read as another's: not checked, said
    // why.
    let tmp = tempfile::tempdir().unwrap();
    let mut newer = std::fs::read(dir.join("A").join(BUNDLE)).unwrap();
    newer[8..12].copy_from_slice(&97u32.to_le_bytes());
    let newer_path = tmp.path().join(BUNDLE);
    std::fs::write(&newer_path, newer).unwrap();
    let out = run(
        &dir,
        &[
            "validate",
            newer_path.to_str().unwrap(),
            &format!("B/{BUNDLE}.map"),
        ],
        "",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("fit not checked: unknown bytecode version 97")
            && stderr.contains(": not checked"),
        "{stderr}"
    );
    let out = run(
        &dir,
        &[
            "validate",
            "--json",
            &format!("A/{BUNDLE}.hbc"),
            &format!("C/{BUNDLE}.map"),
        ],
        "",
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["valid"], false);
    assert_eq!(v["fit"]["verdict"], "misfit");
    assert_eq!(v["fit"]["bytecode"]["fits"], false);
    assert!(
        v["problems"][0]["message"]
            .as_str()
            .unwrap()
            .contains("function 43 starts at bytecode offset"),
        "{v}"
    );
}

/// hermesc's own map alone answers in the Metro bundle it compiled, at the JavaScript run's positions (`dist/js`:
/// the same bundle run from source, which prints 1-based columns; hermesc's map's original columns are 0-based),
/// with the bytecode at hand (its fit judged: the map is accepted as the bytecode's) and without it.
#[test]
fn hermescs_map_alone_answers_in_the_metro_bundle() {
    let dir = dist();
    let mut compared = 0;
    for x in COMPILES {
        let here = dir.join(x);
        let map = format!("{BUNDLE}.compiler.map");
        let alone = tempfile::tempdir().unwrap();
        std::fs::copy(here.join(&map), alone.path().join(&map)).unwrap();
        let js = traces(&dir.join("js").join(x).join("traces"));
        for ((name, trace), (_, js_trace)) in traces(&here.join("traces")).iter().zip(&js) {
            let js_frames: Vec<&str> = js_trace
                .lines()
                .filter(|l| l.trim_start().starts_with("at "))
                .collect();
            for cwd in [here.as_path(), alone.path()] {
                let (answer, stderr) = symbolicate(cwd, &[&map], trace);
                assert!(!stderr.contains("map-mismatch"), "{x}/{name}: {stderr}");
                let stack = answer["stack"].as_array().unwrap();
                assert_eq!(stack.len(), js_frames.len(), "{x}/{name}");
                for (f, js_frame) in stack.iter().zip(&js_frames) {
                    if !f["raw"].as_str().unwrap().contains("(address at ") {
                        continue;
                    }
                    // `at NAME (index.android.bundle:LINE:COLUMN)`, the column 1-based.
                    let at = js_frame.trim_end_matches(')').rsplit('(').next().unwrap();
                    let mut parts = at.rsplitn(3, ':');
                    let column: u64 = parts.next().unwrap().parse().unwrap();
                    let line: u64 = parts.next().unwrap().parse().unwrap();
                    assert_eq!(parts.next(), Some(BUNDLE), "{js_frame}");
                    let o = &f["original"];
                    assert_eq!(
                        (&o["source"], &o["line"], &o["column"]),
                        (
                            &Value::from(BUNDLE),
                            &Value::from(line),
                            &Value::from(column - 1)
                        ),
                        "{x}/{name}: {} against the JavaScript run's {js_frame}",
                        f["raw"]
                    );
                    compared += 1;
                }
            }
        }
        let (_, trace) = &traces(&here.join("traces"))[0];
        let out = run(&here, &["symbolicate", "--explain", &map], trace);
        let explained = String::from_utf8_lossy(&out.stdout);
        assert!(
            explained.contains("fit: the map is this compile's")
                && !explained.contains("is not its"),
            "{x}: {explained}"
        );
    }
    assert!(compared >= 2 * 4 * 120, "only {compared} frames compared");
}

/// hermesc's map and Metro's, given together in either order (as Gradle leaves them, before compose-source-maps),
/// chain: every bytecode frame is metro-symbolicate's answer on the composed map, with the bytecode at hand and
/// without; the JavaScript run's frames (no bytecode at hand) take Metro's map, as metro-symbolicate answers them
/// with it (reading columns 1-based).
#[test]
fn hermescs_and_metros_maps_chain_as_the_composed_map() {
    let dir = dist();
    let mut compared = 0;
    for x in COMPILES {
        let here = dir.join(x);
        let (compiler, packager) = (
            format!("{BUNDLE}.compiler.map"),
            format!("{BUNDLE}.packager.map"),
        );
        let alone = tempfile::tempdir().unwrap();
        for map in [&compiler, &packager] {
            std::fs::copy(here.join(map), alone.path().join(map)).unwrap();
        }
        let own = format!("{x}-trace.{x}-map");
        for cwd in [here.as_path(), alone.path()] {
            for args in [[&compiler, &packager], [&packager, &compiler]] {
                let args = [args[0].as_str(), args[1].as_str()];
                compared += assert_as_metro(cwd, &args, x, &own, false);
                // The JavaScript bundle's frames, where no bytecode stands under its name.
                if cwd == alone.path() {
                    let js = format!("{x}-js-trace.packager-map");
                    compared += assert_as_metro(cwd, &args, x, &js, true);
                }
            }
        }
        let (_, trace) = &traces(&here.join("traces"))[0];
        let out = run(
            &here,
            &["symbolicate", "--explain", &compiler, &packager],
            trace,
        );
        let explained = String::from_utf8_lossy(&out.stdout);
        assert!(
            explained.contains(&format!(
                "the source it names is itself generated: followed into {packager}, the map given for it"
            )),
            "{x}: {explained}"
        );
    }
    assert!(
        compared >= 4 * 2 * 3 * 120,
        "only {compared} frames compared"
    );
}
