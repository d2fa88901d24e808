//! Round trip through real bundlers: real npm libraries (pinned in `fixtures/roundtrip`) crash under node, once
//! from their sources and once from bundles minified by esbuild, terser, swc, webpack 5 and Rollup + terser.
//! Symbolicating each minified trace must give back the original trace: the position of every frame that exists in
//! both, and its function name as V8 printed it. Frames lost to inlining may be missing from the bundled trace;
//! frames of bundler-made code (webpack's `__webpack_require__`, a module wrapper) may be extra.
//!
//! `node build.mjs` and `node run.mjs` (in `fixtures/roundtrip`; each skips its work when its output is up to date)
//! make `dist/<bundler>/*.js` + maps and `dist/cases.json`; then each bundled trace goes through
//! `sourcemap-ls symbolicate --json --root dist`. A table per bundler and every name mismatch are printed (run with
//! `-- --nocapture` to see them) and written with more detail to `fixtures/roundtrip/dist/report.md`.
//!
//! How the two traces are compared, per scenario and bundler:
//! - Frames counted: in the original trace, frames in a file of `fixtures/roundtrip` (its `src/` or
//!   `node_modules/`); in the bundled trace, frames in the bundle ("frames"). Node's own frames (`node:…`) and native
//!   frames (`Array.map (<anonymous>)`) are left out; the native ones must be the same, in order, in both traces.
//! - A symbolicated frame's position is its `original.source` resolved against the map's directory (the source
//!   already has the map's `sourceRoot` applied, as ECMA-426 says), with `original.line` and `original.column + 1`
//!   (V8 prints 1-based columns, the JSON has 0-based ones). A source that is no file on disk (`webpack:///…`,
//!   Rollup's `…?commonjs-entry`) is bundler-made code.
//! - Pairing: the longest in-order matching of bundled frames to original frames with the same file, line and column
//!   ("paired"). Every bundled frame left over lies in a gap between two consecutive pairs (or before the first,
//!   after the last). It is "bundler-only" when it maps to bundler-made code or when the original trace has no
//!   unpaired frame in the same gap (the original program made no call there, so the frame is code the bundler
//!   added); otherwise it should have been one of the original frames of its gap: a wrong position. Original frames
//!   left over are "not in the bundle" (inlined).
//! - A wrong position is the symbolicator's when it differs from what an independent decoder reads in the map at
//!   the frame (`reference` in `cases.json`: @jridgewell/trace-mapping, greatest lower bound); otherwise the map
//!   itself leads elsewhere ("map ≠ original": the minifier rewrote the call, `new Error(…)` → `Error(…)`,
//!   `var f = a ? b : c; return f(x)` → `return (a ? b : c)(x)`, or its map puts the call on another token).
//! - Right positions = paired frames, out of paired + wrong. Asserted: the symbolicator's position is the reference
//!   decoder's for every frame (100 %), so no wrong position is the symbolicator's; with
//!   `STRICT_ORIGINAL_POSITIONS`, also none is the map's. Paired frames must be at least `PAIRED_GOAL` of the frames
//!   (bundler-only and wrongly placed frames are the rest).
//! - Names, for paired frames: V8's function name (`at [async ][new ]NAME [as ALIAS] (…)`, none for `at LOCATION`)
//!   against `original.function` (none when null), both reduced by [`simple_name`]: `async `, `new `, `get `, `set `
//!   and ` [as ALIAS]` dropped, then the last `.`-separated part (outside brackets) kept, since V8 writes a method
//!   call as `ReceiverType.name` (`Object.positive`, `Mesh.traverse` for `Object3D`'s `traverse`) and a name
//!   inferred from an assignment as its path (`exports.normalize`); `<anonymous>` counts as none. So the function's
//!   own name is compared, not the receiver's type nor the object path. The share of right names must reach
//!   `NAME_GOAL` for each bundler.

#[path = "support/names.rs"]
mod names;

use names::simple_name;
#[path = "support/process.rs"]
mod process;
#[path = "support/roundtrip_build.rs"]
mod roundtrip_build;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use process::output_with_stdin;
use serde_json::Value;

/// Share of paired frames whose function name must be right, per bundler.
const NAME_GOAL: f64 = 0.95;
/// Share of the bundled traces' frames (in the bundle) that must be paired with a frame of the original trace.
const PAIRED_GOAL: f64 = 0.60;
/// Whether a frame whose map itself leads away from the original trace's position fails the test too (not only
/// one the symbolicator reads differently from the map). Off: the minifiers' rewrites move some calls.
const STRICT_ORIGINAL_POSITIONS: bool = false;

/// Where a V8 frame points.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Location {
    /// A file (a `file://` URL made a path), 1-based line and column.
    File {
        path: PathBuf,
        line: u32,
        column: u32,
    },
    /// `node:internal/…:L:C`.
    Node,
    /// `<anonymous>`, `native`, `index 0`, …
    Native,
}

#[derive(Debug, Clone)]
struct V8Frame {
    /// The line, trimmed.
    raw: String,
    /// The function as printed, `None` for `at LOCATION`.
    function: Option<String>,
    location: Location,
}

/// One `    at …` line of a V8 trace: `at [async ][new ]FUNCTION [as ALIAS] (LOCATION)` or `at [async ]LOCATION`.
fn parse_v8_frame(line: &str) -> Option<V8Frame> {
    let rest = line.trim().strip_prefix("at ")?;
    let (function, location) = match rest
        .strip_suffix(')')
        .and_then(|r| r.rfind(" (").map(|i| (r, i)))
    {
        Some((r, i)) => (Some(r[..i].to_string()), &r[i + 2..]),
        None => (None, rest.strip_prefix("async ").unwrap_or(rest)),
    };
    Some(V8Frame {
        raw: line.trim().to_string(),
        function,
        location: parse_location(location),
    })
}

fn parse_location(text: &str) -> Location {
    if text.starts_with("node:") {
        return Location::Node;
    }
    let mut parts = text.rsplitn(3, ':');
    let (Some(column), Some(line), Some(file)) = (parts.next(), parts.next(), parts.next()) else {
        return Location::Native;
    };
    let (Ok(line), Ok(column)) = (line.parse(), column.parse()) else {
        return Location::Native;
    };
    let path = if file.starts_with("file://") {
        url::Url::parse(file).unwrap().to_file_path().unwrap()
    } else {
        PathBuf::from(file)
    };
    Location::File {
        path: canonical(&path),
        line,
        column,
    }
}

fn parse_v8_trace(trace: &str) -> Vec<V8Frame> {
    trace.lines().filter_map(parse_v8_frame).collect()
}

/// `..` and `.` removed without touching the disk, then the real path if the file exists.
fn canonical(path: &Path) -> PathBuf {
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
    std::fs::canonicalize(&out).unwrap_or(out)
}

/// A source as a comparable string: a URL as it is, a path (or `file:` URL) resolved against `dir` and made
/// canonical.
fn source_id(dir: &Path, source: &str) -> String {
    if source.starts_with("file:") {
        if let Some(p) = url::Url::parse(source)
            .ok()
            .and_then(|u| u.to_file_path().ok())
        {
            return canonical(&p).display().to_string();
        }
    }
    if source.contains("://") {
        return source.to_string();
    }
    canonical(&dir.join(source)).display().to_string()
}

/// A position in an original file: canonical path, 1-based line and column.
type Position = (PathBuf, u32, u32);

struct BundledFrame {
    raw: String,
    /// `None`: not mapped, or mapped to bundler-made code.
    position: Option<Position>,
    /// What the symbolicator says: `source:line:column` (1-based column), or why nothing.
    shown: String,
    function: Option<String>,
    /// The function as the symbolicated text prints it (`Object.checkNonEmpty [as nonEmpty]`).
    printed: Option<String>,
    function_source: Option<String>,
    /// The symbolicator's position is the reference decoder's.
    agrees: bool,
    /// What the reference decoder reads there (1-based column).
    reference: String,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Status {
    Paired,
    BundlerOnly,
    /// A wrong position that the map itself gives.
    MapDiffers,
    /// A wrong position that is not what the map says.
    SymbolicatorWrong,
}

struct FrameResult {
    bundler: String,
    case: String,
    status: Status,
    bundled: String,
    shown: String,
    reference: String,
    agrees: bool,
    /// The original frame it is paired with, or the unpaired ones of its gap (wrong positions).
    expected: Vec<String>,
    expected_name: Option<String>,
    got_name: Option<String>,
    function_source: Option<String>,
    name_right: bool,
    /// What kind of function the original frame is in (for grouping name mismatches).
    kind: &'static str,
}

#[derive(Default, Clone, Copy)]
struct Tally {
    frames: usize,
    paired: usize,
    names: usize,
    /// Paired frames whose function is printed exactly as node printed the original (receiver, alias and all).
    printed: usize,
    bundler_only: usize,
    map_differs: usize,
    symbolicator_wrong: usize,
    /// Frames (whatever their status) whose symbolicated position is not the reference decoder's.
    disagreements: usize,
    not_in_bundle: usize,
}

impl Tally {
    fn add(&mut self, t: &Tally) {
        self.frames += t.frames;
        self.paired += t.paired;
        self.names += t.names;
        self.printed += t.printed;
        self.bundler_only += t.bundler_only;
        self.map_differs += t.map_differs;
        self.symbolicator_wrong += t.symbolicator_wrong;
        self.disagreements += t.disagreements;
        self.not_in_bundle += t.not_in_bundle;
    }

    fn row(&self, label: &str) -> String {
        let checked = self.paired + self.map_differs + self.symbolicator_wrong;
        format!(
            "| {label} | {} | {} ({}) | {} ({}) | {} ({}) | {} ({}) | {} | {} | {} | {} |",
            self.frames,
            self.paired,
            pct(self.paired, self.frames),
            self.names,
            pct(self.names, self.paired),
            self.printed,
            pct(self.printed, self.paired),
            self.paired,
            pct(self.paired, checked),
            self.map_differs,
            self.symbolicator_wrong,
            self.bundler_only,
            self.not_in_bundle
        )
    }
}

const TABLE_HEAD: &str =
    "| bundler | frames | paired | right names | printed as node did | right positions | map ≠ original | \
symbolicator ≠ map | bundler-only | original frames not in the bundle |\n\
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|";

fn pct(n: usize, of: usize) -> String {
    if of == 0 {
        "-".into()
    } else {
        format!("{:.1} %", 100.0 * n as f64 / of as f64)
    }
}

/// Longest in-order matching of `a` and `b` by `same`: the matched index pairs, ascending.
fn lcs<A, B>(a: &[A], b: &[B], same: impl Fn(&A, &B) -> bool) -> Vec<(usize, usize)> {
    let (n, m) = (a.len(), b.len());
    let mut len = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            len[i][j] = if same(&a[i], &b[j]) {
                len[i + 1][j + 1] + 1
            } else {
                len[i + 1][j].max(len[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < n && j < m {
        if same(&a[i], &b[j]) && len[i][j] == len[i + 1][j + 1] + 1 {
            out.push((i, j));
            i += 1;
            j += 1;
        } else if len[i + 1][j] >= len[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// The kind of function an original frame is in, from how V8 printed it and where it is.
fn kind_of(frame: &V8Frame, is_bottom_user_frame: bool) -> &'static str {
    let in_src = matches!(&frame.location, Location::File { path, .. }
        if path.components().any(|c| c.as_os_str() == "src"));
    let f = frame.function.as_deref().unwrap_or("");
    match simple_name(frame.function.as_deref()) {
        None if is_bottom_user_frame && in_src => "module top level",
        None => "anonymous function",
        Some(_) if f.starts_with("new ") => "constructor",
        Some(_) if f.contains(" [as ") => "method, name differs from property",
        Some(_) if f.contains('.') => "method or property (V8 Type.name)",
        Some(_) => "named function or variable",
    }
}

fn symbolicate(dist: &Path, trace: &str) -> Value {
    let out = output_with_stdin(
        Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
            .args(["symbolicate", "--json", "--root"])
            .arg(dist),
        trace,
    );
    assert!(
        out.status.success(),
        "symbolicate failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Compares one case: its frames' results, its tally, anything malformed, and the paired frames whose function is
/// not printed exactly as node printed it (informative: the receiver type is run-time data).
fn compare(
    fixture: &Path,
    case: &Value,
    json: &Value,
) -> (Vec<FrameResult>, Tally, Vec<String>, Vec<String>) {
    let s = |k: &str| case[k].as_str().unwrap();
    let bundler = s("bundler");
    let name = format!("{} {}", s("entry"), s("scenario"));
    let bundle = canonical(&fixture.join(s("bundle")));
    let map_dir = canonical(&fixture.join(s("map")))
        .parent()
        .unwrap()
        .to_path_buf();
    let short = |p: &str| p.replace(&format!("{}/", fixture.display()), "");
    let mut problems = Vec::new();
    let mut problems_printed = Vec::new();

    let original = parse_v8_trace(s("original"));
    let bundled = parse_v8_trace(s("bundled"));
    let natives = |t: &[V8Frame]| -> Vec<String> {
        t.iter()
            .filter(|f| f.location == Location::Native)
            .map(|f| f.raw.clone())
            .collect()
    };
    if natives(&original) != natives(&bundled) {
        problems.push(format!(
            "{bundler} {name}: native frames differ: {:?} vs {:?}",
            natives(&original),
            natives(&bundled)
        ));
    }
    let user: Vec<&V8Frame> = original
        .iter()
        .filter(|f| matches!(&f.location, Location::File { path, .. } if path.starts_with(fixture)))
        .collect();
    let original_positions: Vec<Position> = user
        .iter()
        .map(|f| match &f.location {
            Location::File { path, line, column } => (path.clone(), *line, *column),
            _ => unreachable!(),
        })
        .collect();

    // The reference decoder's reading of each frame, and the symbolicator's frames, by their raw line.
    let reference: HashMap<&str, &Value> = case["reference"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["raw"].as_str().unwrap(), r))
        .collect();
    let by_raw: HashMap<&str, &Value> = json["stack"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["raw"].as_str().unwrap().trim(), f))
        .collect();
    let frames: Vec<BundledFrame> = bundled
        .iter()
        .filter(|f| matches!(&f.location, Location::File { path, .. } if *path == bundle))
        .map(|f| {
            let r = &reference[f.raw.as_str()]["original"];
            let reference_id = (!r.is_null()).then(|| {
                (
                    source_id(&map_dir, r["source"].as_str().unwrap()),
                    r["line"].as_u64().unwrap(),
                    r["column"].as_u64().unwrap(),
                )
            });
            let reference_shown = match &reference_id {
                Some((s, l, c)) => format!("{}:{l}:{}", short(s), c + 1),
                None => "unmapped".into(),
            };
            let unmapped = |shown: String| BundledFrame {
                raw: f.raw.clone(),
                position: None,
                shown,
                function: None,
                printed: None,
                function_source: None,
                agrees: reference_id.is_none(),
                reference: reference_shown.clone(),
            };
            let Some(sym) = by_raw.get(f.raw.as_str()) else {
                problems.push(format!(
                    "{bundler} {name}: {} was not parsed as a frame",
                    f.raw
                ));
                return unmapped("not parsed".into());
            };
            let o = &sym["original"];
            if o.is_null() {
                return unmapped(format!(
                    "unmapped ({})",
                    sym["unresolved"].as_str().unwrap_or("?")
                ));
            }
            let source = o["source"].as_str().unwrap_or("");
            let line = o["line"].as_u64().unwrap();
            let column = o["column"].as_u64().unwrap();
            let id = source_id(&map_dir, source);
            let agrees = reference_id.as_ref() == Some(&(id.clone(), line, column));
            let file = Some(PathBuf::from(&id)).filter(|p| p.is_absolute() && p.is_file());
            BundledFrame {
                raw: f.raw.clone(),
                position: file.map(|p| (p, line as u32, column as u32 + 1)),
                shown: format!("{}:{line}:{}", short(&id), column + 1),
                function: o["function"].as_str().map(str::to_string),
                printed: sym["text"]
                    .as_str()
                    .and_then(parse_v8_frame)
                    .and_then(|f| f.function),
                function_source: o["functionSource"].as_str().map(str::to_string),
                agrees,
                reference: reference_shown,
            }
        })
        .collect();

    let pairs = lcs(&frames, &original_positions, |b, o| {
        b.position.as_ref() == Some(o)
    });
    let mut results = Vec::new();
    let mut tally = Tally {
        frames: frames.len(),
        not_in_bundle: user.len() - pairs.len(),
        disagreements: frames.iter().filter(|f| !f.agrees).count(),
        ..Tally::default()
    };
    let bottom = user.len().saturating_sub(1);
    let mut result = |b: &BundledFrame,
                      status: Status,
                      expected: Vec<String>,
                      orig: Option<(usize, &V8Frame)>| {
        let expected_name = orig.and_then(|(_, o)| simple_name(o.function.as_deref()));
        let got_name = simple_name(b.function.as_deref());
        let name_right = status == Status::Paired && expected_name == got_name;
        results.push(FrameResult {
            bundler: bundler.to_string(),
            case: name.clone(),
            status,
            bundled: short(&b.raw),
            shown: b.shown.clone(),
            reference: b.reference.clone(),
            agrees: b.agrees,
            expected,
            expected_name,
            got_name,
            function_source: b.function_source.clone(),
            name_right,
            kind: orig.map_or("", |(i, o)| kind_of(o, i == bottom)),
        });
        name_right
    };
    let mut prev = (0, 0);
    for &(bi, oi) in pairs.iter().chain([(frames.len(), user.len())].iter()) {
        let gap: Vec<String> = user[prev.1..oi].iter().map(|f| short(&f.raw)).collect();
        for b in &frames[prev.0..bi] {
            let bundler_made = b.position.is_none() && !b.shown.starts_with("unmapped");
            let status = if bundler_made || gap.is_empty() {
                tally.bundler_only += 1;
                Status::BundlerOnly
            } else if b.agrees {
                tally.map_differs += 1;
                Status::MapDiffers
            } else {
                tally.symbolicator_wrong += 1;
                Status::SymbolicatorWrong
            };
            let expected = if status == Status::BundlerOnly {
                Vec::new()
            } else {
                gap.clone()
            };
            result(b, status, expected, None);
        }
        if bi < frames.len() {
            tally.paired += 1;
            let expected = vec![short(&user[oi].raw)];
            if result(&frames[bi], Status::Paired, expected, Some((oi, user[oi]))) {
                tally.names += 1;
            }
            if frames[bi].printed == user[oi].function {
                tally.printed += 1;
            } else {
                problems_printed.push(format!(
                    "{bundler} {name}: node printed {:?}, we print {:?}",
                    user[oi].function.as_deref().unwrap_or("(nothing)"),
                    frames[bi].printed.as_deref().unwrap_or("(nothing)")
                ));
            }
        }
        prev = (bi + 1, oi + 1);
    }
    (results, tally, problems, problems_printed)
}

/// Runs the symbolicator on every case, a few at a time.
fn symbolicate_all(dist: &Path, cases: &[Value]) -> Vec<Value> {
    let next = AtomicUsize::new(0);
    let outputs: Mutex<Vec<Option<Value>>> = Mutex::new(vec![None; cases.len()]);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= cases.len() {
                    break;
                }
                let json = symbolicate(dist, cases[i]["bundled"].as_str().unwrap());
                outputs.lock().unwrap()[i] = Some(json);
            });
        }
    });
    outputs
        .into_inner()
        .unwrap()
        .into_iter()
        .map(Option::unwrap)
        .collect()
}

fn code_list(items: &[String]) -> String {
    items
        .iter()
        .map(|e| format!("`{e}`"))
        .collect::<Vec<_>>()
        .join("<br>")
}

#[test]
fn symbolicated_minified_traces_give_back_the_original_ones() {
    let dist = roundtrip_build::built();
    let dir = roundtrip_build::fixture();
    let recorded: Value =
        serde_json::from_str(&std::fs::read_to_string(dist.join("cases.json")).unwrap()).unwrap();
    let cases = recorded["cases"].as_array().unwrap();
    let outputs = symbolicate_all(&dist, cases);

    let mut all = Vec::new();
    let mut failures = Vec::new();
    let mut printed_differently = Vec::new();
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for (case, json) in cases.iter().zip(&outputs) {
        let (results, t, problems, printed) = compare(&dir, case, json);
        printed_differently.extend(printed);
        tallies
            .entry(case["bundler"].as_str().unwrap().to_string())
            .or_default()
            .add(&t);
        all.extend(results);
        failures.extend(problems);
    }

    // The table.
    let mut table = format!(
        "Round trip: {} scenarios x {} bundlers, node {}\n\n{TABLE_HEAD}\n",
        cases.len() / tallies.len().max(1),
        tallies.len(),
        recorded["node"].as_str().unwrap_or("?")
    );
    let mut total = Tally::default();
    for (bundler, t) in &tallies {
        let _ = writeln!(table, "{}", t.row(bundler));
        total.add(t);
    }
    let _ = writeln!(table, "{}", total.row("all"));

    // Name mismatches, grouped by the kind of original function and where the symbolicator's name came from.
    let mismatches: Vec<&FrameResult> = all
        .iter()
        .filter(|r| r.status == Status::Paired && !r.name_right)
        .collect();
    let mut by_kind: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for r in &mismatches {
        *by_kind
            .entry((r.kind, r.function_source.as_deref().unwrap_or("none")))
            .or_default() += 1;
    }
    let mut kinds = format!(
        "Name mismatches by kind ({}):\n\n| original function | functionSource | count |\n|---|---|---:|\n",
        mismatches.len()
    );
    for ((kind, source), n) in &by_kind {
        let _ = writeln!(kinds, "| {kind} | {source} | {n} |");
    }

    let mut report = format!("# {table}\n## {kinds}");
    let _ = writeln!(
        report,
        "\n## Paired frames printed differently from node ({})\n",
        printed_differently.len()
    );
    for line in &printed_differently {
        let _ = writeln!(report, "- {line}");
    }
    let _ = writeln!(
        report,
        "\n## Name mismatches\n\n| bundler | scenario | kind | expected (V8) | got | functionSource | \
         original frame | bundled frame |\n|---|---|---|---|---|---|---|---|"
    );
    for r in &mismatches {
        let _ = writeln!(
            report,
            "| {} | {} | {} | {} | {} | {} | {} | `{}` |",
            r.bundler,
            r.case,
            r.kind,
            r.expected_name.as_deref().unwrap_or("(anonymous)"),
            r.got_name.as_deref().unwrap_or("(none)"),
            r.function_source.as_deref().unwrap_or("-"),
            code_list(&r.expected),
            r.bundled
        );
    }
    let wrong: Vec<&FrameResult> = all
        .iter()
        .filter(|r| matches!(r.status, Status::MapDiffers | Status::SymbolicatorWrong))
        .collect();
    let _ = writeln!(
        report,
        "\n## Wrong positions ({})\n\n| bundler | scenario | whose | bundled frame | symbolicated | reference decoder | \
         unpaired original frames there |\n|---|---|---|---|---|---|---|",
        wrong.len()
    );
    for r in &wrong {
        let _ = writeln!(
            report,
            "| {} | {} | {} | `{}` | {} | {} | {} |",
            r.bundler,
            r.case,
            if r.status == Status::MapDiffers {
                "map"
            } else {
                "symbolicator"
            },
            r.bundled,
            r.shown,
            r.reference,
            code_list(&r.expected)
        );
    }
    let disagreeing: Vec<&FrameResult> = all.iter().filter(|r| !r.agrees).collect();
    let _ = writeln!(
        report,
        "\n## Positions unlike the reference decoder's ({})\n\n| bundler | scenario | bundled frame | symbolicated | \
         reference decoder |\n|---|---|---|---|---|",
        disagreeing.len()
    );
    for r in &disagreeing {
        let _ = writeln!(
            report,
            "| {} | {} | `{}` | {} | {} |",
            r.bundler, r.case, r.bundled, r.shown, r.reference
        );
    }
    let _ = writeln!(
        report,
        "\n## Bundler-only frames\n\n| bundler | scenario | bundled frame | symbolicated | function |\n|---|---|---|---|---|"
    );
    for r in all.iter().filter(|r| r.status == Status::BundlerOnly) {
        let _ = writeln!(
            report,
            "| {} | {} | `{}` | {} | {} |",
            r.bundler,
            r.case,
            r.bundled,
            r.shown,
            r.got_name.as_deref().unwrap_or("(none)")
        );
    }
    std::fs::write(dist.join("report.md"), &report).unwrap();

    eprintln!("\n{table}\n{kinds}");
    eprintln!("Name mismatches (bundler | scenario | kind | expected | got | functionSource):");
    for r in &mismatches {
        eprintln!(
            "  {} | {} | {} | {} | {} | {}",
            r.bundler,
            r.case,
            r.kind,
            r.expected_name.as_deref().unwrap_or("(anonymous)"),
            r.got_name.as_deref().unwrap_or("(none)"),
            r.function_source.as_deref().unwrap_or("-")
        );
    }
    for r in &disagreeing {
        eprintln!(
            "symbolicator ≠ reference decoder: {} | {} | {} -> {} (reference {})",
            r.bundler, r.case, r.bundled, r.shown, r.reference
        );
    }
    eprintln!(
        "{} wrong positions, {} of them the map's; each listed in {}",
        wrong.len(),
        total.map_differs,
        dist.join("report.md").display()
    );

    for (bundler, t) in &tallies {
        if t.disagreements > 0 {
            failures.push(format!(
                "{bundler}: {} frames placed unlike the reference decoder",
                t.disagreements
            ));
        }
        if t.symbolicator_wrong > 0 {
            failures.push(format!(
                "{bundler}: {} wrong positions that the map does not give",
                t.symbolicator_wrong
            ));
        }
        if STRICT_ORIGINAL_POSITIONS && t.map_differs > 0 {
            failures.push(format!(
                "{bundler}: {} frames whose map leads away from the original position",
                t.map_differs
            ));
        }
        if (t.paired as f64) < PAIRED_GOAL * t.frames as f64 {
            failures.push(format!(
                "{bundler}: {} of {} frames paired, under PAIRED_GOAL {PAIRED_GOAL}",
                t.paired, t.frames
            ));
        }
        if (t.names as f64) < NAME_GOAL * t.paired as f64 {
            failures.push(format!(
                "{bundler}: {} right names of {} paired frames ({}), under NAME_GOAL {NAME_GOAL}",
                t.names,
                t.paired,
                pct(t.names, t.paired)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
