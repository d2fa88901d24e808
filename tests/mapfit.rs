//! The fit check (issue 24) on real builds: `fixtures/mapfit` (`make.mjs`, run here; it skips its work when its
//! output is up to date) makes 171 bundle/map pairs with esbuild, terser, swc, webpack, Rollup and Metro — stale maps
//! after app edits and a library upgrade, banners of 1–20 lines, prologues on line 1, another bundler's or another
//! library's map, rxjs 6.6.7 as published, and every bundler's matching pairs as controls — each judged by its
//! answers (`misfit`: some position maps elsewhere than with the bundle's own map).
//!
//! Each pair goes through `validate BUNDLE MAP`, through `symbolicate` with the real crash frames of the bundle, and
//! through the language server (the bundle opened, its diagnostics read). Asserted: ≥ 95 % of the misfits that
//! the bundle's text can show are caught by each, no matching pair is flagged, every banner's shift (and rxjs's 8
//! lines) is named, and no frame of a misfit pair is answered with another place than the bundle's own map gives.
//! Pairs whose bundle is byte-identical to the map's own bundle (comment-only edits: the minifier drops the
//! comment) cannot be told from the text and are counted apart. The table goes to stdout (`--nocapture`).

#[path = "support/lsp_client.rs"]
mod lsp_client;
#[path = "support/process.rs"]
mod process;
#[path = "support/roundtrip_build.rs"]
mod roundtrip_build;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};
use sourcemap_core::bundle::fit::{check_fit, check_fit_near_above, Checked};
use sourcemap_core::bundle::locate::find_debug_id;
use sourcemap_core::trace::symbolicate::frame_segment;
use sourcemap_core::{GeneratedPosition, SourceMapIndex};

fn dir() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/mapfit"))
        .unwrap()
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
}

fn build_corpus() -> Vec<Value> {
    let d = dir();
    for (what, folder) in [
        ("fixtures/mapfit", d.join("node_modules/rxjs")),
        (
            "fixtures/roundtrip",
            d.join("../roundtrip/node_modules/esbuild"),
        ),
        (
            "fixtures/metro-devserver",
            d.join("../metro-devserver/node_modules/metro"),
        ),
    ] {
        assert!(
            folder.is_dir(),
            "run `npm ci` in {what} first (scripts/test-deps does)"
        );
    }
    // make.mjs writes the corpus in place, and this file's tests run at once (nextest: processes; cargo test:
    // threads): the first builds it for the run, under a lock outside the folder make.mjs empties, and the others
    // wait and read that build (a second build would empty the folder under the first test's reads).
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let lock = std::fs::File::create(tmp.join("mapfit-build.lock")).expect("the lock file");
    // SAFETY: flock on a descriptor this function owns; released when `lock` is dropped.
    let locked = unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&lock), libc::LOCK_EX) };
    assert_eq!(locked, 0, "flock: {}", std::io::Error::last_os_error());
    let run = std::env::var("NEXTEST_RUN_ID")
        .unwrap_or_else(|_| format!("process {}", std::process::id()));
    let stamp = tmp.join("mapfit-build.run");
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(run.as_str()) {
        let out = Command::new("node")
            .arg("make.mjs")
            .current_dir(&d)
            .output()
            .expect("node");
        assert!(
            out.status.success(),
            "make.mjs: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::write(&stamp, &run).unwrap();
    }
    let pairs = serde_json::from_slice(&std::fs::read(d.join("dist/pairs.json")).unwrap()).unwrap();
    drop(lock);
    pairs
}

fn index(path: &Path) -> SourceMapIndex {
    SourceMapIndex::from_bytes(std::fs::read(path).unwrap()).unwrap()
}

/// The original place a frame at `p` maps to (first of tied segments, as `symbolicate`), as (file name, line,
/// column): sources are compared by file name, since the pairs name the same files from different folders.
fn answer(index: &SourceMapIndex, p: GeneratedPosition) -> Option<(String, u32, u32)> {
    let hit = frame_segment(index, p).ok()??;
    let o = hit.original?;
    let name = o.source_url?.rsplit('/').next()?.to_string();
    Some((name, o.line, o.column))
}

#[derive(Default)]
struct Row {
    pairs: u32,
    misfits: u32,
    invisible: u32,
    by_validate: u32,
    by_symbolicate: u32,
    by_lsp: u32,
    controls: u32,
    false_alarms: u32,
    shifts_named: u32,
    shifts_expected: u32,
    frames: u32,
    frames_answered: u32,
    frames_wrong: u32,
    positions_wrong: u64,
    positions_differing: u64,
}

#[test]
fn misfit_pairs_of_real_builds_are_caught_and_never_answered_wrong() {
    let pairs = build_corpus();
    let d = dir();
    let mut rows: BTreeMap<(String, String), Row> = BTreeMap::new();
    let mut lsp = lsp_client::LspClient::start(&[]);
    lsp.initialize(&d, json!({}), false);
    for p in &pairs {
        let bundle = d.join(p["bundle"].as_str().unwrap());
        let map = d.join(p["map"].as_str().unwrap());
        let kind = p["kind"].as_str().unwrap();
        let kind = if kind.starts_with("banner") {
            "banner"
        } else {
            kind
        };
        let row = rows
            .entry((kind.to_string(), p["bundler"].as_str().unwrap().to_string()))
            .or_default();
        row.pairs += 1;
        let misfit = p["misfit"].as_bool().unwrap();
        let invisible = p["bundleSameAsCandidateMapsBundle"] == true;
        let name = &p["name"];

        // validate BUNDLE MAP
        let o = bin()
            .arg("validate")
            .arg("--json")
            .arg(&bundle)
            .arg(&map)
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        let problem = v["problems"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["kind"] == "map-mismatch")
            .cloned();
        assert_eq!(
            o.status.code(),
            Some(if problem.is_some() { 1 } else { 0 }),
            "{name}: {v}"
        );

        // symbolicate the bundle's real crash frames (V8 columns are 1-based)
        let file = bundle.file_name().unwrap().to_string_lossy().into_owned();
        let frames: Vec<GeneratedPosition> = p["framePositions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| GeneratedPosition {
                line: f["line"].as_u64().unwrap() as u32 - 1,
                column: f["column"].as_u64().unwrap() as u32,
            })
            .collect();
        let trace: String = frames
            .iter()
            .map(|f| format!("    at f ({file}:{}:{})\n", f.line + 1, f.column + 1))
            .collect();
        let o = process::output_with_stdin(
            bin()
                .args(["symbolicate", "--json", "--root"])
                .arg(bundle.parent().unwrap()),
            &trace,
        );
        let s: Value = serde_json::from_slice(&o.stdout).unwrap();
        let symbolicate_flags = s["problems"].as_array().is_some_and(|a| !a.is_empty());

        // the language server
        let uri = lsp.open(&bundle, "javascript");
        let diags = lsp.wait_for(&format!("diagnostics of {name}"), |m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        });
        let lsp_flags = diags["params"]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["code"] == "map-mismatch");
        lsp.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri}}),
        );

        if !misfit {
            row.controls += 1;
            if problem.is_some() || symbolicate_flags || lsp_flags {
                row.false_alarms += 1;
                println!("false alarm: {name}: {v}");
            }
            continue;
        }
        row.misfits += 1;
        if invisible {
            row.invisible += 1;
            continue;
        }
        row.by_validate += u32::from(problem.is_some());
        row.by_symbolicate += u32::from(symbolicate_flags);
        row.by_lsp += u32::from(lsp_flags);
        if problem.is_none() {
            println!("missed: {name}: {v}");
        }
        if let Some(n) = p["shiftLines"].as_i64().filter(|&n| n != 0) {
            row.shifts_expected += 1;
            let named = problem.as_ref().and_then(|x| x["shift"]["lines"].as_i64());
            row.shifts_named += u32::from(named == Some(n));
        }

        // Every answer given against the bundle's own: frames as symbolicate answered them, and every position of
        // a segment of the own map as the fit report marks it.
        let candidate = index(&map);
        let shift = p["shiftLines"].as_i64().unwrap_or(0);
        let own = match p["ownMap"].as_str() {
            Some(own) => index(&d.join(own)),
            None => index(&map), // rxjs: the published map, moved down `shift` lines
        };
        let own_answer = |g: GeneratedPosition| {
            let line = i64::from(g.line) - shift;
            (line >= 0)
                .then(|| {
                    answer(
                        &own,
                        GeneratedPosition {
                            line: line as u32,
                            column: g.column,
                        },
                    )
                })
                .flatten()
        };
        for (f, out) in frames.iter().zip(s["stack"].as_array().unwrap()) {
            row.frames += 1;
            let Some(o) = out["original"].as_object() else {
                continue;
            };
            row.frames_answered += 1;
            let given = (
                o["source"]
                    .as_str()
                    .unwrap_or_default()
                    .rsplit('/')
                    .next()
                    .unwrap()
                    .to_string(),
                o["line"].as_u64().unwrap() as u32 - 1,
                o["column"].as_u64().unwrap() as u32,
            );
            if own_answer(*f) != Some(given.clone()) {
                row.frames_wrong += 1;
                println!(
                    "wrong frame: {name} at {f:?}: {given:?} (own map: {:?})",
                    own_answer(*f)
                );
            }
        }
        let text = std::fs::read(&bundle).unwrap();
        let report = check_fit(&candidate, &text, find_debug_id(&text)).unwrap();
        let mut positions = Vec::new();
        own.for_each_segment(|h| {
            positions.push(GeneratedPosition {
                line: (i64::from(h.generated.line) + shift) as u32,
                column: h.generated.column,
            })
        })
        .unwrap();
        // A position the candidate has no answer for is not a wrong answer (the own map's segment may sit on a
        // line the candidate maps nothing on).
        for g in positions {
            let given = answer(&candidate, g);
            if given.is_some() && given != own_answer(g) {
                row.positions_differing += 1;
                if !report.marks(g) {
                    row.positions_wrong += 1;
                }
            }
        }
    }
    lsp.shutdown();

    println!("\n| kind | bundler | pairs | misfits (not visible in the text) | validate | symbolicate | LSP | false alarms | shifts named | frames answered / wrong | positions answered elsewhere / of them not withheld |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let mut total = Row::default();
    for ((kind, bundler), r) in &rows {
        println!(
            "| {kind} | {bundler} | {} | {} ({}) | {} | {} | {} | {} of {} | {}/{} | {} / {} of {} | {} / {} |",
            r.pairs, r.misfits, r.invisible, r.by_validate, r.by_symbolicate, r.by_lsp, r.false_alarms, r.controls,
            r.shifts_named, r.shifts_expected, r.frames_answered, r.frames_wrong, r.frames, r.positions_differing,
            r.positions_wrong,
        );
        total.pairs += r.pairs;
        total.misfits += r.misfits;
        total.invisible += r.invisible;
        total.by_validate += r.by_validate;
        total.by_symbolicate += r.by_symbolicate;
        total.by_lsp += r.by_lsp;
        total.controls += r.controls;
        total.false_alarms += r.false_alarms;
        total.shifts_named += r.shifts_named;
        total.shifts_expected += r.shifts_expected;
        total.frames += r.frames;
        total.frames_answered += r.frames_answered;
        total.frames_wrong += r.frames_wrong;
        total.positions_differing += r.positions_differing;
        total.positions_wrong += r.positions_wrong;
    }
    let t = &total;
    println!(
        "| **all** | | {} | {} ({}) | {} | {} | {} | {} of {} | {}/{} | {} / {} of {} | {} / {} |",
        t.pairs,
        t.misfits,
        t.invisible,
        t.by_validate,
        t.by_symbolicate,
        t.by_lsp,
        t.false_alarms,
        t.controls,
        t.shifts_named,
        t.shifts_expected,
        t.frames_answered,
        t.frames_wrong,
        t.frames,
        t.positions_differing,
        t.positions_wrong,
    );
    let visible = f64::from(t.misfits - t.invisible);
    for (by, caught) in [
        ("validate", t.by_validate),
        ("symbolicate", t.by_symbolicate),
        ("the LSP", t.by_lsp),
    ] {
        assert!(
            f64::from(caught) >= 0.95 * visible,
            "{by} caught {caught} of {visible} misfit pairs"
        );
    }
    assert_eq!(t.false_alarms, 0, "matching pairs flagged");
    assert_eq!(t.shifts_named, t.shifts_expected, "banner shifts not named");
    assert_eq!(
        t.frames_wrong, 0,
        "frames answered with another place than the own map's"
    );
    let rxjs = &rows[&(
        "rxjs-6.6.7".to_string(),
        "published (closure compiler)".to_string(),
    )];
    assert_eq!(
        (rxjs.by_validate, rxjs.shifts_named),
        (1, 1),
        "rxjs 6.6.7: flagged with its 8-line shift"
    );
}

/// `check_fit_near` (the fit check of `symbolicate`: the stretches around the frames and a sample across the map)
/// gives the whole check's verdicts: on every pair of the misfit corpus, every round-trip bundle and Metro's
/// fixtures (a RAM bundle's index maps, the reference bundle's flat and index maps), forced onto
/// these small maps, for frames at many positions (each alone, and all together), the map-level verdict, the shift,
/// the message and every frame's withholding are the whole check's.
#[test]
fn the_check_near_frames_says_what_the_whole_check_says() {
    let d = dir();
    let mut pairs: Vec<(PathBuf, PathBuf)> = build_corpus()
        .iter()
        .map(|p| {
            (
                d.join(p["bundle"].as_str().unwrap()),
                d.join(p["map"].as_str().unwrap()),
            )
        })
        .collect();
    for bundler in std::fs::read_dir(roundtrip_build::built())
        .unwrap()
        .flatten()
    {
        let Ok(files) = std::fs::read_dir(bundler.path()) else {
            continue;
        };
        for f in files.flatten() {
            let map = f.path();
            if let Some(bundle) = map.to_str().and_then(|m| m.strip_suffix(".map")) {
                if Path::new(bundle).is_file() {
                    pairs.push((PathBuf::from(bundle), map.clone()));
                }
            }
        }
    }
    // Metro's: a RAM bundle's index maps (their startup code is the bundle's text), and the reference bundle's maps.
    let fixtures = d.join("..");
    for platform in ["android/index.android.bundle", "ios/main.jsbundle"] {
        let bundle = fixtures.join("metro-ram/dist").join(platform);
        pairs.push((
            bundle.clone(),
            PathBuf::from(format!("{}.map", bundle.display())),
        ));
    }
    for map in std::fs::read_dir(fixtures.join("metro-reference/maps"))
        .unwrap()
        .flatten()
    {
        if map.path().to_string_lossy().ends_with(".js.map") {
            pairs.push((fixtures.join("metro-reference/maps/bundle.js"), map.path()));
        }
    }
    let (mut compared, mut near, mut misfits, mut fitting) = (0, 0, 0, 0);
    let mut differ = Vec::new();
    for (bundle, map) in &pairs {
        let text = std::fs::read(bundle).unwrap();
        let Ok(bytes) = std::fs::read(map) else {
            continue;
        };
        let Ok(index) = SourceMapIndex::from_bytes(bytes) else {
            continue;
        };
        let id = find_debug_id(&text);
        let whole = check_fit(&index, &text, id).unwrap();
        // Frames: the map's segments' positions, thinned to at most 10, and line starts of the text (some past them).
        let mut frames = Vec::new();
        index
            .for_each_segment(|h| frames.push(h.generated))
            .unwrap();
        let step = frames.len().div_ceil(10).max(1);
        let mut frames: Vec<GeneratedPosition> = frames.into_iter().step_by(step).collect();
        let lines = text.split(|&b| b == b'\n').count() as u32;
        frames.extend(
            (0..lines)
                .step_by((lines as usize).div_ceil(3).max(1))
                .map(|line| GeneratedPosition { line, column: 0 }),
        );
        let one_by_one = frames.iter().map(std::slice::from_ref);
        for set in one_by_one.chain(std::iter::once(&frames[..])) {
            let r = check_fit_near_above(&index, &text, id, set, 0).unwrap();
            let same = r.verdict == whole.verdict
                && r.shift_lines == whole.shift_lines
                && r.first_bad() == whole.first_bad()
                && r.message() == whole.message()
                && frames.iter().all(|&p| r.withheld(p) == whole.withheld(p));
            if !same {
                differ.push(format!(
                    "{} with {}, frames {set:?}: {:?} near, {:?} whole ({})",
                    bundle.display(),
                    map.display(),
                    r.verdict,
                    whole.verdict,
                    whole.message()
                ));
            }
            compared += 1;
            near += usize::from(r.checked != Checked::Whole);
            let fits = whole.verdict == sourcemap_core::bundle::fit::Verdict::Fits;
            fitting += usize::from(fits);
            if fits && r.checked == Checked::Whole {
                println!("checked whole: {} frames {set:?}", map.display());
            }
        }
        misfits += usize::from(whole.verdict == sourcemap_core::bundle::fit::Verdict::Misfit);
    }
    println!(
        "{} pairs ({misfits} misfits), {compared} frame sets compared ({fitting} of fitting pairs), {near} \
         answered near the frames",
        pairs.len()
    );
    assert!(differ.is_empty(), "{}", differ.join("\n"));
    assert!(pairs.len() > 180, "{} pairs", pairs.len());
    // Where the map fits, the check near the frames answers (else it has no reason to be).
    assert!(
        near * 10 >= fitting * 9,
        "{near} of {fitting} frame sets of fitting pairs answered near the frames"
    );
}
