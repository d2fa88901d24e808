//! `sourcemap-ls profile PROFILE [MAPS...]`: a CPU profile of a bundle (Hermes sampling profile, V8 `.cpuprofile`,
//! Chrome trace) in original functions. Each distinct frame position is resolved once, as `symbolicate` resolves a
//! frame (`frame_maps::run_session`: the maps given, else the bundle its script names under `--root`; the fit check;
//! function maps, `scopes`, the code), then the time is summed by original function, file or package. `--out`
//! writes the profile in its own format (or `--to cpuprofile`) with original names and positions.

use std::io::Write;
use std::path::Path;

use serde_json::{json, Value};
use sourcemap_core::bundle::composition::{package_of, Packages};
use sourcemap_core::profile::cpuprofile;
use sourcemap_core::profile::heap_snapshot::{is_heap_snapshot, HeapSnapshotDoc};
use sourcemap_core::profile::sites::Sites;
use sourcemap_core::profile::summary::{ms, percent, summarize, GroupBy, Row};
use sourcemap_core::profile::{coverage, profmap};
use sourcemap_core::profile::{Profile, ProfileDoc, Rewrite, Rewrites};
use sourcemap_core::session::SessionOptions;
use sourcemap_core::trace::symbolicate::{OriginalFrame, SymbolicatedLine};

use super::frame_maps::run_session;
pub use super::profile_args::ProfileArgs;
use super::profile_args::{catalog_of, place, By, To};
use super::CliError;
use sourcemap_core::session::files::FilesPlace;

/// The input is never written over: `--out` must name another file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

pub fn run(args: ProfileArgs) -> Result<(), CliError> {
    if args.to.is_some() && args.out.is_none() {
        return Err(CliError::Usage("--to needs --out FILE".into()));
    }
    if let Some(out) = &args.out {
        if same_file(out, &args.profile) {
            return Err(CliError::Usage(format!(
                "--out {} is the profile itself; it is never written over",
                out.display()
            )));
        }
    }
    let (file, meta) = sourcemap_core::internal::fs::files::open_regular(&args.profile)
        .map_err(|e| CliError::Usage(format!("cannot read {}: {e}", args.profile.display())))?;
    // SAFETY: a regular file, read while this command runs; a file truncated by another process meanwhile would
    // fault, as for any tool that maps its input. An empty file cannot be mapped on every platform: read instead.
    let mapped =
        if meta.len() == 0 {
            None
        } else {
            Some(unsafe { memmap2::Mmap::map(&file) }.map_err(|e| {
                CliError::Usage(format!("cannot read {}: {e}", args.profile.display()))
            })?)
        };
    let bytes: &[u8] = mapped.as_deref().unwrap_or_default();
    // A profile saved as UTF-16 (Windows PowerShell 5.1's `>` writes UTF-16LE with a byte-order mark) is read as its
    // UTF-8 text (`trace::input`, the one reader of encodings by their BOM); JSON itself is UTF-8 (RFC 8259 §8.1).
    let transcoded = matches!(bytes, [0xFF, 0xFE, ..] | [0xFE, 0xFF, ..]).then(|| {
        sourcemap_core::trace::input::decode(bytes)
            .text
            .into_bytes()
    });
    let bytes: &[u8] = transcoded.as_deref().unwrap_or(bytes);
    // The Hermes reader and writer tell of the bytes they have passed: those pages leave the process (on a long
    // recording, peak memory 1.97 → 1.25–1.30 × the file; docs/PERFORMANCE.md, "Profiles"). Not for a transcoded
    // copy, whose offsets are not the file's.
    let file_map = mapped.as_ref().filter(|_| transcoded.is_none());
    let passed = |range: std::ops::Range<usize>| drop_pages(file_map, range);
    if is_heap_snapshot(bytes) {
        return run_heap_snapshot(&args, bytes);
    }
    if coverage::is_coverage(bytes) || coverage::is_attribution(bytes) {
        return super::metro_inputs::run_metro_input(&args, bytes);
    }
    if profmap::is_profmap(&args.profile.to_string_lossy(), bytes) {
        return super::metro_inputs::run_profmap(&args, bytes);
    }
    let (doc, profile) = ProfileDoc::parse(bytes, &passed)
        .map_err(|e| CliError::Usage(format!("{}: {e}", args.profile.display())))?;
    for w in &profile.warnings {
        eprintln!("sourcemap-ls: warning: {}: {w}", args.profile.display());
    }

    let sites = Sites::of(&profile);
    let mut catalog = catalog_of(&args)?;
    let resolved = run_session(
        &mut catalog,
        sites.lines(),
        SessionOptions {
            function_lines: true,
            ..SessionOptions::default()
        },
    );
    let originals = originals_of(&resolved.out);
    let package = packages_of(&catalog, &resolved.out);
    let origins = sites.origins(
        &profile,
        &originals,
        |_, o| {
            o.source
                .clone()
                .unwrap_or_else(|| "(unnamed source)".into())
        },
        |site, o| package(site, o),
    );
    drop(package);
    let own_original = |i: usize| sites.own(&originals, i);

    let by = match args.by {
        By::Function => GroupBy::Function,
        By::File => GroupBy::File,
        By::Package => GroupBy::Package,
    };
    // The profile is written on a second thread while the rows are summed (a long recording: 25 ms of writing
    // beside 7 ms of summing).
    let rows = std::thread::scope(|scope| {
        let writing = args.out.as_ref().map(|out| {
            let (doc, profile, sites, originals, passed) =
                (&doc, &profile, &sites, &originals, &passed);
            scope.spawn(move || {
                // One rewrite per pair of places; frames share them.
                let table: Vec<Option<Rewrite>> = sites
                    .pairs
                    .iter()
                    .map(|&(own, _)| rewrite_of(originals[own]?))
                    .collect();
                let rewrites = Rewrites::new(&sites.by_frame, table);
                let file = std::fs::File::create(out)
                    .map_err(|e| CliError::Usage(format!("cannot write {}: {e}", out.display())))?;
                let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
                let written = match args.to {
                    Some(To::Cpuprofile) => cpuprofile::write_from(profile, &rewrites, &mut w),
                    None => doc.write(&rewrites, &mut w, &passed),
                };
                written
                    .and_then(|_| w.flush())
                    .map_err(|e| CliError::Usage(format!("cannot write {}: {e}", out.display())))
            })
        });
        let rows = summarize(&profile, &sites.by_frame, &origins, by);
        match writing.map(|w| w.join()) {
            Some(Ok(Err(e))) => Err(e),
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            _ => Ok(rows),
        }
    })?;
    let (positioned, mapped) = sites.counts(&origins);
    if positioned > 0 && mapped == 0 {
        eprintln!(
            "sourcemap-ls: note: none of the profile's {positioned} frames at bundle positions was mapped: give the \
             map (a Hermes bytecode profile needs the Hermes map first), or --root where the bundles are"
        );
    }
    if args.json {
        print_json(&profile, &rows, &own_original, &resolved.problems)?;
    } else {
        print_tables(&profile, &rows, args.top, positioned, mapped);
    }
    // The process ends here: its hundreds of thousands of small allocations are not freed one by one (a fifth of
    // the long recording's run, 199 → 169 ms, `perf stat -r 5`); the kernel takes the memory back.
    std::mem::forget((doc, profile, sites, resolved, origins, rows));
    Ok(())
}

/// The answer as one JSON document, written straight from the model (a long recording has 160K frames: a tree of
/// values for them was 8× the symbolication). Keys in the order serde_json's sorted objects gave them before.
fn print_json<'a>(
    profile: &'a Profile,
    rows: &[Row],
    own_original: &'a impl Fn(usize) -> Option<&'a OriginalFrame>,
    problems: &'a [Value],
) -> Result<(), CliError> {
    let frames = FramesJson {
        count: profile.frames.len(),
        ids: &profile.ids,
        own: own_original,
    };
    let functions: Vec<Value> = rows.iter().map(|r| row_json(r, profile.total_us)).collect();
    let answer = ProfileJson {
        format: profile.format.name(),
        frames,
        functions,
        problems,
        samples: profile.samples,
        total_ms: ms(profile.total_us),
        warnings: &profile.warnings,
    };
    let mut out = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    serde_json::to_writer(&mut out, &answer)
        .map_err(std::io::Error::from)
        .and_then(|()| writeln!(out))
        .and_then(|()| out.flush())
        .map_err(|e| CliError::Usage(format!("writing the answer: {e}")))
}

/// Drops the pages of `range` of a file's mapping from the process (unix: `madvise(MADV_DONTNEED)`; elsewhere they
/// stay).
fn drop_pages(mapped: Option<&memmap2::Mmap>, range: std::ops::Range<usize>) {
    #[cfg(unix)]
    if let Some(m) = mapped {
        // SAFETY: a read-only mapping of a file: dropped pages hold nothing that is not in the file, and are read
        // again from the page cache when touched.
        let _ = unsafe {
            m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, range.start, range.len())
        };
    }
    #[cfg(not(unix))]
    let _ = (mapped, range);
}

/// A heap snapshot or timeline: its `trace_function_infos` resolved as frames (their script names lead to maps as a
/// profile's URLs do), reported, and with `--out` written back as metro-symbolicate writes it
/// (`heap_snapshot::HeapSnapshotDoc::write`). `locations` are left as written (the module docs say why).
fn run_heap_snapshot(args: &ProfileArgs, bytes: &[u8]) -> Result<(), CliError> {
    if args.to.is_some() {
        return Err(CliError::Usage(
            "--to converts CPU profiles; a heap snapshot is written back as a heap snapshot".into(),
        ));
    }
    let doc = HeapSnapshotDoc::parse(bytes)
        .map_err(|e| CliError::Usage(format!("{}: {e}", args.profile.display())))?;
    let functions = doc.functions();
    let positioned: Vec<usize> = functions
        .iter()
        .enumerate()
        .filter(|(_, f)| f.position.is_some())
        .map(|(i, _)| i)
        .collect();
    let lines = positioned
        .iter()
        .map(|&i| {
            let f = &functions[i];
            place(
                f.script.as_deref(),
                f.position.expect("positioned"),
                f.name.as_deref().filter(|n| !n.is_empty()),
            )
        })
        .collect();
    let mut catalog = catalog_of(args)?;
    let resolved = run_session(&mut catalog, lines, SessionOptions::default());
    let mut originals: Vec<Option<&OriginalFrame>> = vec![None; functions.len()];
    for (&i, o) in positioned.iter().zip(originals_of(&resolved.out)) {
        originals[i] = o;
    }
    if let Some(out) = &args.out {
        let rewrites: Vec<Option<Rewrite>> = originals.iter().map(|o| rewrite_of((*o)?)).collect();
        let file = std::fs::File::create(out)
            .map_err(|e| CliError::Usage(format!("cannot write {}: {e}", out.display())))?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
        doc.write(&rewrites, &mut w)
            .and_then(|_| w.flush())
            .map_err(|e| CliError::Usage(format!("cannot write {}: {e}", out.display())))?;
    }
    let mapped = originals
        .iter()
        .filter(|o| o.is_some_and(|o| o.source.is_some()))
        .count();
    if !positioned.is_empty() && mapped == 0 {
        eprintln!(
            "sourcemap-ls: note: none of the snapshot's {} functions at bundle positions was mapped: give the map, or \
             --root where the bundles are",
            positioned.len()
        );
    }
    let row = |i: usize| {
        let f = &functions[i];
        let o = originals[i];
        json!({
            "index": f.index,
            "name": f.name,
            "script": f.script,
            "generatedLine": f.position.map(|p| p.line + 1),
            "generatedColumn": f.position.map(|p| p.column),
            "source": o.and_then(|o| o.source.clone()),
            "line": o.map(|o| o.line + 1),
            "column": o.map(|o| o.column),
            "originalName": o.and_then(|o| o.function.clone()),
        })
    };
    if args.json {
        let rows: Vec<Value> = positioned.iter().map(|&i| row(i)).collect();
        println!(
            "{}",
            json!({
                "format": "heap snapshot",
                "traceFunctionInfos": functions.len(),
                "positioned": positioned.len(),
                "mapped": mapped,
                "locations": doc.location_count(),
                "functions": rows,
                "problems": resolved.problems,
            })
        );
        return Ok(());
    }
    println!(
        "heap snapshot: {} trace_function_infos, {} with positions, {mapped} mapped; {} locations left as written \
         (they name scripts by id only)",
        functions.len(),
        positioned.len(),
        doc.location_count()
    );
    // Examples: named original functions first.
    let mut examples: Vec<usize> = positioned
        .iter()
        .copied()
        .filter(|&i| originals[i].is_some_and(|o| o.source.is_some()))
        .collect();
    examples.sort_by_key(|&i| originals[i].is_some_and(|o| o.function.is_none()));
    for &i in examples.iter().take(args.top.min(10)) {
        let (f, o) = (&functions[i], originals[i].expect("mapped"));
        println!(
            "  {} {}:{}:{} -> {} {}:{}:{}",
            f.name
                .as_deref()
                .filter(|n| !n.is_empty())
                .unwrap_or("(anonymous)"),
            f.script.as_deref().unwrap_or(""),
            f.line,
            f.column,
            o.function.as_deref().unwrap_or("(anonymous)"),
            o.source.as_deref().unwrap_or(""),
            o.line + 1,
            o.column
        );
    }
    Ok(())
}

/// Each resolved line's original, in order.
/// The package of a site's original (`site` indexes `out`), by its map's rule (`Packages`: as `explore` groups that
/// map's sources).
fn packages_of<'a>(
    catalog: &FilesPlace,
    out: &'a [SymbolicatedLine],
) -> impl Fn(usize, &OriginalFrame) -> String + 'a {
    let packages: Vec<Packages> = catalog
        .maps
        .iter()
        .map(|m| Packages::of_index(&m.index))
        .collect();
    move |site, o| {
        let source = o.source.as_deref().unwrap_or("(unnamed source)");
        let map = out.get(site).and_then(|l| l.frame()).and_then(|f| f.map);
        match map.and_then(|m| packages.get(m)) {
            Some(p) => p.of_source(source),
            None => package_of(source),
        }
    }
}

fn originals_of(out: &[SymbolicatedLine]) -> Vec<Option<&OriginalFrame>> {
    out.iter()
        .map(|l| match l {
            SymbolicatedLine::Frame(f) => f.original.as_ref(),
            SymbolicatedLine::Text(_) => None,
        })
        .collect()
}

/// What a frame's original writes back: nothing for an original without a source.
fn rewrite_of(o: &OriginalFrame) -> Option<Rewrite> {
    Some(Rewrite {
        function: o.function.clone(),
        source: o.source.clone()?,
        line: o.line,
        column: o.column,
    })
}

/// `profile --json`'s answer, serialized as it is written.
#[derive(serde::Serialize)]
#[serde(bound = "")]
struct ProfileJson<'a, F: Fn(usize) -> Option<&'a OriginalFrame>> {
    format: &'a str,
    frames: FramesJson<'a, F>,
    functions: Vec<Value>,
    problems: &'a [Value],
    samples: u64,
    #[serde(rename = "totalMs")]
    total_ms: f64,
    warnings: &'a [String],
}

/// Every frame's original, written one by one.
struct FramesJson<'a, F: Fn(usize) -> Option<&'a OriginalFrame>> {
    count: usize,
    ids: &'a sourcemap_core::profile::FrameIds,
    own: &'a F,
}

impl<'a, F: Fn(usize) -> Option<&'a OriginalFrame>> serde::Serialize for FramesJson<'a, F> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(serde::Serialize)]
        struct FrameJson<'a> {
            column: Option<u32>,
            function: Option<&'a str>,
            id: &'a str,
            line: Option<u32>,
            source: Option<&'a str>,
        }
        serializer.collect_seq((0..self.count).map(|i| {
            let o = (self.own)(i);
            FrameJson {
                column: o.map(|o| o.column),
                function: o.and_then(|o| o.function.as_deref()),
                id: self.ids.get(i),
                line: o.map(|o| o.line + 1),
                source: o.and_then(|o| o.source.as_deref()),
            }
        }))
    }
}

fn row_json(r: &Row, total: f64) -> Value {
    json!({
        "function": r.function,
        "source": r.source,
        "line": r.line.map(|l| l + 1),
        "package": r.package,
        "unmapped": r.unmapped,
        "selfMs": ms(r.self_us),
        "selfPercent": percent(r.self_us, total),
        "totalMs": ms(r.total_us),
        "totalPercent": percent(r.total_us, total),
        "samples": r.self_samples,
    })
}

fn print_tables(profile: &Profile, rows: &[Row], top: usize, positioned: usize, mapped: usize) {
    println!(
        "{}: {} samples, {:.1} ms; {} frames, {positioned} at bundle positions, {mapped} mapped",
        profile.format.name(),
        profile.samples,
        profile.total_us / 1000.0,
        profile.frames.len()
    );
    let label = |r: &Row| {
        let what = r.function.clone().unwrap_or_default();
        let place = match (&r.source, r.line) {
            (Some(s), Some(l)) => format!("{s}:{}", l + 1),
            (Some(s), None) => s.clone(),
            (None, _) => String::new(),
        };
        let package = r.package.clone().unwrap_or_default();
        let head = if what.is_empty() { place.clone() } else { what };
        let place = if r.function.is_none() {
            String::new()
        } else {
            place
        };
        (
            head,
            place,
            if r.unmapped {
                "(not mapped)".to_string()
            } else {
                package
            },
        )
    };
    let table = |title: &str, rows: &mut dyn Iterator<Item = &Row>| {
        println!("\n{title}");
        println!(
            "{:>10} {:>6} {:>10} {:>6}  what",
            "self ms", "%", "total ms", "%"
        );
        for r in rows {
            let (head, place, package) = label(r);
            let mut line = format!(
                "{:>10.1} {:>6.1} {:>10.1} {:>6.1}  {head}",
                r.self_us / 1000.0,
                percent(r.self_us, profile.total_us),
                r.total_us / 1000.0,
                percent(r.total_us, profile.total_us),
            );
            for extra in [place, package] {
                if !extra.is_empty() {
                    line.push_str("  ");
                    line.push_str(&extra);
                }
            }
            println!("{}", line.trim_end());
        }
    };
    table(
        &format!("Top {top} by self time"),
        &mut rows.iter().take(top),
    );
    let mut by_total: Vec<&Row> = rows.iter().collect();
    by_total.sort_by(|a, b| b.total_us.total_cmp(&a.total_us));
    table(
        &format!("Top {top} by total time"),
        &mut by_total.into_iter().take(top),
    );
}
