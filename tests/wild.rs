//! The wild: npm packages' own published minified bundles and source maps (pinned in `fixtures/wild`), made to throw
//! inside themselves under node. Symbolicating each trace must give back, for every frame in the library's bundle,
//! the original file and line and the function, and must leave every other frame (the case script, node's
//! internals, other files) as it was printed.
//!
//! `node make.mjs` (in `fixtures/wild`; it skips its work when `dist/cases.json` is up to date) runs every case and
//! writes the traces and the truth of each library frame (see its header: the unminified build's run where the
//! package ships one, else the original text parsed). Each trace then goes through the built `sourcemap-ls
//! symbolicate --json` two ways:
//! - (a) `--root fixtures/wild`, run in that directory: the frames' paths lead to the bundles and the bundles to their
//!   maps. Four bundles do not lead to their maps (no `sourceMappingURL`, the map not named `BUNDLE.map`: bytebuffer,
//!   long@3, protobufjs@5, jquery); their frames left unmapped are counted as "map not found", not as wrong.
//! - (b) `symbolicate <the library's map>`: the map given on the command line, the trace on stdin.
//!
//! Checked for each library frame with a truth: the position (`original.source` resolved against the map's
//! directory is the truth's source, `original.line` the truth's line, `original.column` reported) and the function
//! (`original.function` and the truth's function reduced to the function's own name by [`simple_name`], as in
//! tests/roundtrip.rs). Checked for every other frame: `original` is null (not answered from any map) — in (a) frames
//! of other packages under `node_modules` may be answered by their own maps and are not checked.
//!
//! Every miss fails the test unless `KNOWN` lists it (today's bugs, each with what was expected and what came); a
//! `KNOWN` entry that no longer misses fails it too, so the list stays true. The table of packages × frames right by
//! position and by function, per way, is printed (`-- --nocapture`) and written with every miss to
//! `fixtures/wild/dist/report.md`. Goals (reported, reached when `KNOWN` is empty): `POSITION_GOAL` of positions and
//! `FUNCTION_GOAL` of functions right, and no frame answered from a map that is not its file's.

#[path = "support/names.rs"]
mod names;
#[path = "support/wild_build.rs"]
mod wild_build;

use names::simple_name;
#[path = "support/process.rs"]
mod process;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use process::output_with_stdin;
use serde_json::Value;
use wild_build::{fixture, made};

const POSITION_GOAL: f64 = 0.99;
const FUNCTION_GOAL: f64 = 0.95;

/// The two ways a trace is symbolicated.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
enum Way {
    /// (a) The trace alone, `--root fixtures/wild`: frames found by their path.
    Root,
    /// (b) `symbolicate <map>`: the library's map given on the command line.
    MapGiven,
    /// (c) As (a) with `--apply-shift`, only for the bundles whose map fits once shifted by whole lines (rxjs).
    Shifted,
}

const WAYS: [Way; 3] = [Way::Root, Way::MapGiven, Way::Shifted];

impl Way {
    fn label(self) -> &'static str {
        match self {
            Way::Root => "a",
            Way::MapGiven => "b",
            Way::Shifted => "c",
        }
    }
}

/// What is checked.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
enum Check {
    /// A library frame's original file and line.
    Position,
    /// A library frame's function.
    Function,
    /// A frame not in the library's bundle, answered from a map.
    Answered,
}

use Check::{Answered, Function, Position};
use Way::{MapGiven, Root, Shifted};

/// A miss of today's code: (case, way, frame, check, what is wrong). `frame` is a piece of the frame's line as
/// printed (`rxjs.umd.min.js:33:104`, `cases/moment.cjs:6:15`: positions in the bundles and the case scripts do not
/// change with node's version; a frame repeated in the trace is one entry), `""` every frame of the case for that
/// check and way.
type Known = (&'static str, Way, &'static str, Check, &'static str);

/// Today's misses. Each is a bug (or a limit) for the symbolicator; the final report of issue 43 lists them with the
/// evidence. Remove an entry when its miss is fixed (the test says which).
#[rustfmt::skip]
const KNOWN: &[Known] = &[
    // 1. rxjs 6 and 7 publish a Closure Compiler map made before 8 license lines were put above the code. The fit
    //    check finds the shift and withholds every answer unless --apply-shift is given; with it (way c) all 45
    //    positions are right. Expected: `../Input_0:<line>` as way (c) gives; got: unmapped ("map-mismatch: … fits
    //    every line once shifted by +8 lines"). A decision for the resolver (apply a confirmed whole-line shift by
    //    default, or keep withholding), not a wrong answer.
    ("rxjs@6", Root, "", Position, "withheld: the map fits only shifted by +8 lines"),
    ("rxjs@6", Root, "", Function, "withheld: the map fits only shifted by +8 lines"),
    ("rxjs@6", MapGiven, "", Position, "withheld: the map fits only shifted by +8 lines"),
    ("rxjs@6", MapGiven, "", Function, "withheld: the map fits only shifted by +8 lines"),
    ("rxjs@7", Root, "", Position, "withheld: the map fits only shifted by +8 lines"),
    ("rxjs@7", Root, "", Function, "withheld: the map fits only shifted by +8 lines"),
    ("rxjs@7", MapGiven, "", Position, "withheld: the map fits only shifted by +8 lines"),
    ("rxjs@7", MapGiven, "", Function, "withheld: the map fits only shifted by +8 lines"),
];

/// `..` and `.` removed without touching the disk.
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// A map's source as a comparable string: a path resolved against the map's directory, a URL with its path's `.` and
/// `..` segments resolved.
fn source_id(map_dir: &Path, source: &str) -> String {
    if let Some(i) = source.find("://") {
        let (scheme, rest) = source.split_at(i + 3);
        if scheme == "file://" {
            return normal(Path::new(rest)).display().to_string();
        }
        let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let mut parts: Vec<&str> = Vec::new();
        for p in path.split('/') {
            match p {
                "" | "." => {}
                ".." => {
                    parts.pop();
                }
                p => parts.push(p),
            }
        }
        return format!("{scheme}{host}/{}", parts.join("/"));
    }
    normal(&map_dir.join(source)).display().to_string()
}

fn symbolicate(dir: &Path, case: &Value, way: Way) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"));
    cmd.current_dir(dir).args(["symbolicate", "--json"]);
    match way {
        Root => {
            cmd.arg("--root").arg(dir);
        }
        Shifted => {
            cmd.args(["--apply-shift", "--root"]).arg(dir);
        }
        MapGiven => {
            cmd.arg("--explain")
                .arg(dir.join(case["map"].as_str().unwrap()));
        }
    }
    let out = output_with_stdin(&mut cmd, case["minified"].as_str().unwrap());
    assert!(
        out.status.success(),
        "symbolicate ({}) of {} failed: {}",
        way.label(),
        case["name"],
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Whether the case's map fits its bundle only once shifted by whole lines (way c applies).
fn shifted(case: &Value) -> bool {
    case["mapFit"]["shift"].as_i64().is_some_and(|s| s != 0)
}

/// Every case symbolicated each way that applies, a few at a time: `outputs[case][way]` (null: not run).
fn symbolicate_all(dir: &Path, cases: &[Value]) -> Vec<[Value; 3]> {
    let jobs: Vec<(usize, Way)> = (0..cases.len())
        .flat_map(|i| WAYS.map(|w| (i, w)))
        .filter(|&(i, w)| w != Shifted || shifted(&cases[i]))
        .collect();
    let next = AtomicUsize::new(0);
    let outputs: Mutex<Vec<[Value; 3]>> =
        Mutex::new(vec![[Value::Null, Value::Null, Value::Null]; cases.len()]);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let j = next.fetch_add(1, Ordering::SeqCst);
                let Some(&(i, way)) = jobs.get(j) else {
                    break;
                };
                let json = symbolicate(dir, &cases[i], way);
                outputs.lock().unwrap()[i][way as usize] = json;
            });
        }
    });
    outputs.into_inner().unwrap()
}

#[derive(Default, Clone, Copy)]
struct Tally {
    /// Library frames with a truth.
    frames: usize,
    /// Of those, left unmapped because the bundle does not lead to its map (way a only).
    not_found: usize,
    /// Frames of a bundle whose published map fits it nowhere (made for another text), rightly left unmapped.
    withheld: usize,
    positions: usize,
    functions: usize,
    others: usize,
    answered: usize,
}

impl Tally {
    fn add(&mut self, t: &Tally) {
        self.frames += t.frames;
        self.not_found += t.not_found;
        self.withheld += t.withheld;
        self.positions += t.positions;
        self.functions += t.functions;
        self.others += t.others;
        self.answered += t.answered;
    }

    fn checked(&self) -> usize {
        self.frames - self.not_found
    }

    fn cells(&self) -> String {
        let mut found = if self.not_found > 0 {
            format!(" ({} map not found)", self.not_found)
        } else {
            String::new()
        };
        if self.withheld > 0 {
            let _ = write!(found, " ({} withheld: stale map)", self.withheld);
        }
        format!(
            "{}/{}{found} | {}/{} | {}/{}",
            self.positions,
            self.checked(),
            self.functions,
            self.checked(),
            self.answered,
            self.others
        )
    }
}

fn pct(n: usize, of: usize) -> String {
    if of == 0 {
        "-".into()
    } else {
        format!("{:.1} %", 100.0 * n as f64 / of as f64)
    }
}

#[derive(Debug)]
struct Miss {
    case: String,
    way: Way,
    frame: usize,
    check: Check,
    raw: String,
    expected: String,
    got: String,
}

fn shown(o: &Value) -> String {
    if o.is_null() {
        return "unmapped".into();
    }
    format!(
        "{}:{}:{} {}",
        o["source"].as_str().unwrap_or("?"),
        o["line"],
        o["column"]
            .as_u64()
            .map_or("?".into(), |c| (c + 1).to_string()),
        o["function"].as_str().unwrap_or("(no function)")
    )
}

/// Compares one case's output for one way: its tally and its misses.
fn compare(dir: &Path, case: &Value, json: &Value, way: Way) -> (Tally, Vec<Miss>) {
    let name = case["name"].as_str().unwrap();
    let map_dir = normal(&dir.join(case["map"].as_str().unwrap()))
        .parent()
        .unwrap()
        .to_path_buf();
    let discoverable = case["discoverable"].as_bool().unwrap();
    let mut by_raw: HashMap<&str, VecDeque<&Value>> = HashMap::new();
    for f in json["stack"].as_array().unwrap() {
        by_raw
            .entry(f["raw"].as_str().unwrap().trim())
            .or_default()
            .push_back(f);
    }
    let mut take = |raw: &str| -> &Value {
        by_raw
            .get_mut(raw)
            .and_then(VecDeque::pop_front)
            .unwrap_or_else(|| panic!("{name}: `{raw}` is not a frame of the symbolicated stack"))
    };
    let short = |s: &str| s.replace(&format!("{}/", dir.display()), "");
    let mut t = Tally::default();
    let mut misses = Vec::new();
    // Frames are taken in the trace's order: the library's, then the others (each list in order; a raw line that
    // occurs more than once is the same text, so any of its answers is the same).
    for (i, f) in case["frames"].as_array().unwrap().iter().enumerate() {
        let raw = f["raw"].as_str().unwrap();
        let sym = take(raw);
        let truth = &f["truth"];
        if truth.is_null() {
            // The published map was made for another text: nothing it says is true here.
            if case["mapFit"]["shift"].is_null() {
                let o = &sym["original"];
                if o.is_null() {
                    t.withheld += 1;
                } else {
                    misses.push(Miss {
                        case: name.into(),
                        way,
                        frame: i,
                        check: Position,
                        raw: short(raw),
                        expected: "unmapped: the published map does not fit its bundle".into(),
                        got: shown(o),
                    });
                }
            }
            continue;
        }
        t.frames += 1;
        let o = &sym["original"];
        if o.is_null() && way == Root && !discoverable {
            t.not_found += 1;
            continue;
        }
        let expected_source = source_id(&map_dir, truth["source"].as_str().unwrap());
        let expected_line = truth["line"].as_u64().unwrap();
        let got_source = o["source"].as_str().map(|s| source_id(&map_dir, s));
        let position_right = got_source.as_deref() == Some(expected_source.as_str())
            && o["line"].as_u64() == Some(expected_line)
            && o["column"].is_u64();
        let expected_fn = simple_name(truth["function"].as_str());
        let expected_fn2 = simple_name(truth["function2"].as_str());
        let got_fn = simple_name(o["function"].as_str());
        let function_right = !o.is_null()
            && (expected_fn == got_fn
                || (truth["function2"].is_string() && expected_fn2 == got_fn));
        let expected = format!(
            "{}:{}:{} {} ({}{})",
            truth["source"].as_str().unwrap(),
            expected_line,
            truth["column"]
                .as_u64()
                .map_or("?".into(), |c| (c + 1).to_string()),
            truth["function"].as_str().unwrap_or("(anonymous)"),
            truth["how"].as_str().unwrap_or("?"),
            truth["how"]
                .as_str()
                .filter(|h| *h == "sourcesContent")
                .map_or(String::new(), |_| format!(
                    ", line holds: {}",
                    truth["check"].as_str().unwrap_or("?")
                ))
        );
        let got = match sym["unresolved"].as_str() {
            Some(why) if o.is_null() => {
                // The reason's first clause (the rest is advice).
                let why = why.split(':').take(2).collect::<Vec<_>>().join(":");
                format!("unmapped: {why}")
            }
            _ => shown(o),
        };
        if position_right {
            t.positions += 1;
        } else {
            misses.push(Miss {
                case: name.into(),
                way,
                frame: i,
                check: Position,
                raw: short(raw),
                expected: expected.clone(),
                got: got.clone(),
            });
        }
        if function_right {
            t.functions += 1;
        } else {
            misses.push(Miss {
                case: name.into(),
                way,
                frame: i,
                check: Function,
                raw: short(raw),
                expected: format!(
                    "{expected} → {}{}",
                    expected_fn.as_deref().unwrap_or("(none)"),
                    if truth["function2"].is_string() && expected_fn2 != expected_fn {
                        format!(" or {}", expected_fn2.as_deref().unwrap_or("(none)"))
                    } else {
                        String::new()
                    }
                ),
                got: format!("{got} → {}", got_fn.as_deref().unwrap_or("(none)")),
            });
        }
    }
    for (i, f) in case["others"].as_array().unwrap().iter().enumerate() {
        let raw = f["raw"].as_str().unwrap();
        let sym = take(raw);
        // Another package's file may be answered by its own map (a), and so it may with a map given (b), never by
        // the map given (its explanation names which map answered).
        let by_given_map = sym["explain"].to_string().contains("map given");
        if f["kind"] == "module" && (way == Root || !by_given_map) {
            continue;
        }
        // A frame in code made by eval is answered at its origin only (the call to eval, in the bundle), its own
        // function and position in the eval'd code kept as printed.
        let text = sym["text"].as_str().unwrap_or("");
        if f["kind"] == "eval"
            && sym["inEval"] == true
            && text.contains("eval at ")
            && text.contains("<anonymous>:")
        {
            continue;
        }
        t.others += 1;
        if !sym["original"].is_null() {
            t.answered += 1;
            misses.push(Miss {
                case: name.into(),
                way,
                frame: i,
                check: Answered,
                raw: short(raw),
                expected: format!("unmapped ({} frame)", f["kind"].as_str().unwrap()),
                got: shown(&sym["original"]),
            });
        }
    }
    (t, misses)
}

fn known_for(m: &Miss) -> Option<usize> {
    KNOWN.iter().position(|&(case, way, frame, check, _)| {
        case == m.case && way == m.way && check == m.check && m.raw.contains(frame)
    })
}

#[test]
fn published_bundles_give_back_their_original_frames() {
    let recorded = made();
    let dir = fixture();
    let cases = recorded["cases"].as_array().unwrap();
    let outputs = symbolicate_all(&dir, cases);

    let mut misses = Vec::new();
    let mut rows = String::new();
    let mut totals = [Tally::default(); 3];
    let mut by_bundler: BTreeMap<String, [Tally; 3]> = BTreeMap::new();
    for (case, out) in cases.iter().zip(&outputs) {
        let mut tallies = [Tally::default(); 3];
        for way in WAYS {
            if way == Shifted && !shifted(case) {
                continue;
            }
            let (t, m) = compare(&dir, case, &out[way as usize], way);
            tallies[way as usize] = t;
            totals[way as usize].add(&t);
            by_bundler
                .entry(case["bundler"].as_str().unwrap().to_string())
                .or_default()[way as usize]
                .add(&t);
            misses.extend(m);
        }
        let frames = case["frames"].as_array().unwrap();
        let mut hows: BTreeMap<&str, usize> = BTreeMap::new();
        for f in frames {
            *hows
                .entry(f["truth"]["how"].as_str().unwrap_or("none"))
                .or_default() += 1;
        }
        let truth: Vec<String> = hows.iter().map(|(h, n)| format!("{h} {n}")).collect();
        let _ = writeln!(
            rows,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            case["name"].as_str().unwrap(),
            case["version"].as_str().unwrap(),
            case["bundler"].as_str().unwrap(),
            truth.join(", "),
            frames.len(),
            tallies[0].cells(),
            tallies[1].cells(),
            if shifted(case) {
                tallies[2].cells()
            } else {
                "- | - | -".into()
            }
        );
    }

    let head = "| package | version | bundler | truth (frames) | library frames | (a) positions | (a) functions | \
                (a) others answered | (b) positions | (b) functions | (b) others answered | (c) positions | \
                (c) functions | (c) others answered |\n\
                |---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    let mut summary = format!(
        "Wild corpus: {} cases ({} package versions), {} library frames with a truth, node {}\n\n| way | positions right | \
         functions right | frames of other files answered |\n|---|---:|---:|---:|\n",
        cases.len(),
        cases
            .iter()
            .map(|c| format!("{}@{}", c["package"], c["version"]))
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        totals[0].frames,
        recorded["node"].as_str().unwrap_or("?")
    );
    for way in WAYS {
        let t = &totals[way as usize];
        let _ = writeln!(
            summary,
            "| ({}) {} | {} of {} ({}){}{} | {} of {} ({}) | {} of {} |",
            way.label(),
            match way {
                Root => "trace alone, --root",
                MapGiven => "map given",
                Shifted => "--apply-shift --root (shifted maps only)",
            },
            t.positions,
            t.checked(),
            pct(t.positions, t.checked()),
            if t.not_found > 0 {
                format!(", {} more: map not found", t.not_found)
            } else {
                String::new()
            },
            if t.withheld > 0 {
                format!(", {} more: stale map, rightly withheld", t.withheld)
            } else {
                String::new()
            },
            t.functions,
            t.checked(),
            pct(t.functions, t.checked()),
            t.answered,
            t.others
        );
    }
    let _ = writeln!(
        summary,
        "\nGoals: positions ≥ {:.0} %, functions ≥ {:.0} %, no frame answered from a map that is not its file's.",
        POSITION_GOAL * 100.0,
        FUNCTION_GOAL * 100.0
    );
    let mut bundlers = String::from(
        "| bundler | (a) positions | (a) functions | (b) positions | (b) functions |\n|---|---:|---:|---:|---:|\n",
    );
    for (b, t) in &by_bundler {
        let _ = writeln!(
            bundlers,
            "| {b} | {} | {} | {} | {} |",
            pct(t[0].positions, t[0].checked()),
            pct(t[0].functions, t[0].checked()),
            pct(t[1].positions, t[1].checked()),
            pct(t[1].functions, t[1].checked())
        );
    }

    let mut unexpected = Vec::new();
    let mut used = vec![false; KNOWN.len()];
    let mut miss_table = String::from(
        "| package | way | frame | check | known | frame as printed | expected | got |\n|---|---|---:|---|---|---|---|---|\n",
    );
    for m in &misses {
        let known = known_for(m);
        if let Some(k) = known {
            used[k] = true;
        } else {
            unexpected.push(m);
        }
        let _ = writeln!(
            miss_table,
            "| {} | {} | {} | {:?} | {} | `{}` | {} | {} |",
            m.case,
            m.way.label(),
            m.frame,
            m.check,
            if known.is_some() { "KNOWN" } else { "**new**" },
            m.raw,
            m.expected.replace('|', "\\|"),
            m.got.replace('|', "\\|")
        );
    }
    let report = format!(
        "# {summary}\n## By bundler\n\n{bundlers}\n## Packages\n\n\
         Cells: right / checked; others answered: frames not in the library's bundle answered from a map / such frames.\n\n\
         {head}{rows}\n## Misses ({})\n\n{miss_table}",
        misses.len()
    );
    std::fs::write(dir.join("dist/report.md"), &report).unwrap();
    eprintln!("\n{summary}\n{bundlers}\n{head}{rows}");
    for m in &misses {
        eprintln!(
            "{} {} ({}) #{} {:?}: `{}`\n    expected {}\n    got      {}",
            if known_for(m).is_some() {
                "KNOWN"
            } else {
                "NEW  "
            },
            m.case,
            m.way.label(),
            m.frame,
            m.check,
            m.raw,
            m.expected,
            m.got
        );
    }
    let mut failures: Vec<String> = unexpected
        .iter()
        .map(|m| {
            format!(
                "{} ({}) frame {} {:?}: `{}`: expected {}, got {}",
                m.case,
                m.way.label(),
                m.frame,
                m.check,
                m.raw,
                m.expected,
                m.got
            )
        })
        .collect();
    for (k, used) in KNOWN.iter().zip(&used) {
        if !used {
            failures.push(format!(
                "KNOWN entry no longer misses (fixed? remove it): {:?}",
                k
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} problems (each miss is in {}):\n{}",
        failures.len(),
        dir.join("dist/report.md").display(),
        failures.join("\n")
    );
}
