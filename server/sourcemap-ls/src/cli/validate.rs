//! `sourcemap-ls validate [BUNDLE] MAP`: exit 0 when the map is valid (warnings on stderr) and, when the bundle is
//! known, fits it; else exit 1 with one located error per line on stderr (or, with `--json`, one object whose
//! `problems` say why).
//!
//! The bundle is known when it is given (`validate BUNDLE MAP`), or when the one argument is a bundle (its map is
//! found from its `sourceMappingURL` or sidecar, as everywhere). A map given alone is checked for validity only: no
//! text to fit it to.

use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::{json, Value};
use sourcemap_core::bundle::fit::{check_fit, FitReport, Verdict};
use sourcemap_core::bundle::locate::{find_debug_id, load_map, looks_like_map, MapOrigin};
use sourcemap_core::{IndexOptions, SourceMapIndex};

use super::{describe, CliError};

#[derive(Args)]
pub struct ValidateArgs {
    /// A source map, or a bundle whose sourceMappingURL or sidecar .map leads to one (its map is then checked
    /// against it).
    path: PathBuf,
    /// The map to check against the bundle PATH (instead of the one it leads to).
    map: Option<PathBuf>,
    /// One JSON object: {"valid", "bundle", "map", "problems": [{"kind", "severity", "message", ...}], "fit"}.
    #[arg(long)]
    json: bool,
}

/// The largest bundle read to check a map against.
const MAX_BUNDLE_BYTES: u64 = 1 << 30;

/// A fit report as JSON: the `map-mismatch` problem (positions 1-based lines, 0-based columns), or `None` when
/// the map fits.
pub fn mismatch_problem(report: &FitReport) -> Option<Value> {
    if report.verdict != Verdict::Misfit {
        return None;
    }
    let mut problem = json!({
        "kind": "map-mismatch",
        "severity": "error",
        "message": report.message(),
    });
    if let Some(p) = report.first_bad() {
        problem["firstBadPosition"] = json!({"line": p.line + 1, "column": p.column});
    }
    if let Some(n) = report.shift_lines {
        problem["shift"] = json!({"lines": n, "columns": 0});
    }
    if !report.column_shifts.is_empty() {
        problem["columnShifts"] = report
            .column_shifts
            .iter()
            .map(|s| json!({"line": s.line + 1, "columns": s.columns, "added": s.added}))
            .collect();
    }
    if !report.byte_columns.is_empty() {
        // Per line, where the first non-ASCII character is: the map's columns count bytes after it.
        problem["columnsInBytes"] = report
            .byte_columns
            .iter()
            .map(|&(line, column)| json!({"line": line + 1, "firstNonAscii": column}))
            .collect();
    }
    Some(problem)
}

/// What the fit check saw, for `--json`.
pub fn fit_json(report: &FitReport) -> Value {
    let e = &report.evidence;
    json!({
        "verdict": match report.verdict {
            Verdict::Fits => "fits",
            Verdict::Misfit => "misfit",
            Verdict::Unknown => "unknown",
        },
        "why": report.unknown_because,
        "segments": e.segments,
        "midIdentifier": e.mid_identifier,
        "pastLineEnd": e.past_line_end,
        "beyondText": e.beyond_text,
        "namesChecked": e.names_checked,
        "onTheirName": e.on_its_name,
        "bytecode": report.bytecode.as_ref().map(|b| json!({
            "segment": b.segment,
            "functions": b.functions,
            "fits": b.fits(),
        })),
        "regions": report.regions.iter().map(|r| json!({
            "start": {"line": r.start.line + 1, "column": r.start.column},
            "end": r.end.map(|p| json!({"line": p.line + 1, "column": p.column})),
            "segments": r.evidence.segments,
            "midIdentifier": r.evidence.mid_identifier,
        })).collect::<Vec<_>>(),
    })
}

pub fn run(args: ValidateArgs) -> Result<(), CliError> {
    // The bundle: the first argument when a map is given beside it, or when it is not a map itself.
    let (bundle, map_path) = match &args.map {
        // `validate MAP BUNDLE`, the order swapped (issue 57): the map is known by its name or its JSON, the bundle
        // by being neither; checked as meant, and said.
        Some(second) if looks_like_a_map(&args.path) && !looks_like_a_map(second) => {
            eprintln!(
                "sourcemap-ls: note: {} is the map and {} the bundle: checked as `validate {} {}` (the bundle comes first)",
                args.path.display(),
                second.display(),
                second.display(),
                args.path.display()
            );
            (Some(second.clone()), args.path.clone())
        }
        Some(map) => (Some(args.path.clone()), map.clone()),
        None => {
            let is_map =
                is_map_file(&args.path) || read_head(&args.path).is_none_or(|h| looks_like_map(&h));
            ((!is_map).then(|| args.path.clone()), args.path.clone())
        }
    };
    let loaded = load_map(&map_path);
    let mut problems = Vec::new();
    let mut fit = None;
    let mut shown_map = map_path.display().to_string();
    let result: Result<(), CliError> = (|| {
        let loaded = loaded?;
        if let MapOrigin::File(p) = &loaded.origin {
            shown_map = p.display().to_string();
        }
        let named = super::map_named(&loaded.origin);
        // With a bundle, the fit check's one pass over the segments validates them too (`for_each_segment_once`
        // checks every rule): the map is opened lazily and its mappings decoded once, not twice. Any error, or
        // `rangeMappings` (which that pass does not read), and the full validation runs for its located errors.
        let options = IndexOptions {
            lazy: bundle.is_some(),
            lazy_names: false,
        };
        let index = SourceMapIndex::from_bytes_with(loaded.bytes, options)
            .map_err(|e| CliError::Map(describe(&named, &e)))?;
        let validate_all = |index: &SourceMapIndex| {
            index
                .validate_all()
                .map_err(|e| CliError::Map(describe(&named, &e)))
        };
        if bundle.is_none() || index.has_range_mappings() {
            validate_all(&index)?;
        }
        for w in &index.warnings {
            problems
                .push(json!({"kind": "warning", "severity": "warning", "message": w.to_string()}));
            if !args.json {
                eprintln!("sourcemap-ls: warning: {}: {w}", map_path.display());
            }
        }
        let Some(bundle) = &bundle else {
            say_overlaps(&index, &map_path, args.json, &mut problems);
            return Ok(());
        };
        for w in bundle_warnings(bundle, &index, args.map.is_none().then_some(&loaded.origin)) {
            problems.push(json!({"kind": "warning", "severity": "warning", "message": w}));
            if !args.json {
                eprintln!("sourcemap-ls: warning: {}: {w}", bundle.display());
            }
        }
        let report = match check_bundle(&index, bundle) {
            Ok(report) => report,
            Err(e) => {
                validate_all(&index)?;
                return Err(e);
            }
        };
        // A check that read no segment (Hermes bytecode, judged by its function table; a text it could not judge)
        // validated none either.
        if report.evidence.segments == 0 && !index.has_range_mappings() {
            validate_all(&index)?;
        }
        say_overlaps(&index, &map_path, args.json, &mut problems);
        let misfit = mismatch_problem(&report);
        fit = Some(fit_json(&report));
        if let Some(problem) = misfit {
            problems.push(problem);
            return Err(CliError::Map(format!(
                "{}: {shown_map}: map-mismatch: {}",
                bundle.display(),
                report.message()
            )));
        }
        if let (Verdict::Unknown, Some(why), false) =
            (report.verdict, report.unknown_because, args.json)
        {
            eprintln!(
                "sourcemap-ls: note: {}: fit not checked: {why}",
                bundle.display()
            );
        }
        Ok(())
    })();
    if !args.json {
        return result;
    }
    if let Err(CliError::Map(m)) = &result {
        if !problems.iter().any(|p| p["kind"] == "map-mismatch") {
            problems.push(json!({"kind": "invalid-map", "severity": "error", "message": m}));
        }
    }
    let valid = result.is_ok();
    println!(
        "{}",
        json!({
            "valid": valid,
            "bundle": bundle.as_ref().map(|b| b.display().to_string()),
            "map": shown_map,
            "problems": problems,
            "fit": fit,
        })
    );
    match result {
        Err(CliError::Map(_)) => Err(CliError::Quiet),
        other => other,
    }
}

/// Index-map sections that run into the next one (Turbopack's): read, each position answered by the section its
/// offset puts it in (`SourceMapIndex::overlaps`), and said as warnings once every section was decoded.
fn say_overlaps(
    index: &SourceMapIndex,
    map_path: &Path,
    json: bool,
    problems: &mut Vec<serde_json::Value>,
) {
    for w in index.overlaps() {
        problems.push(json!({"kind": "warning", "severity": "warning", "message": w.to_string()}));
        if !json {
            eprintln!("sourcemap-ls: warning: {}: {w}", map_path.display());
        }
    }
}

/// What is odd between a bundle and its map, though the map may still fit: a `sourceMappingURL` that leads nowhere
/// while a sidecar was read in its place (`led`: where the map the bundle led to came from), and a `file` field
/// naming another file than the bundle.
fn bundle_warnings(bundle: &Path, index: &SourceMapIndex, led: Option<&MapOrigin>) -> Vec<String> {
    use sourcemap_core::bundle::locate::{bundle_tail, find_source_mapping_url, resolve_map_url};
    let mut out = Vec::new();
    if let (Some(MapOrigin::File(read)), Some(tail)) = (led, bundle_tail(bundle)) {
        if let Some((url, _)) = find_source_mapping_url(&tail) {
            let named = resolve_map_url(bundle, url);
            if !url.starts_with("data:") && named.as_deref() != Some(read.as_path()) {
                out.push(format!(
                    "its sourceMappingURL={url} leads to no map file{}; {} was read instead (the sidecar): fix the \
                     comment, or the map it names is missing",
                    named.map_or(String::new(), |p| format!(" ({})", p.display())),
                    read.display()
                ));
            }
        }
    }
    let name = bundle.file_name().map(|n| n.to_string_lossy().into_owned());
    if let (Some(file), Some(name)) = (index.file.as_deref(), name) {
        let file_name = sourcemap_core::trace::stack::file_name_of(file);
        if !file_name.is_empty() && file_name != name {
            out.push(format!(
                "the map's `file` is {file}, not {name}: it may be another file's map (the fit check below says \
                 whether it describes this one)"
            ));
        }
    }
    out
}

/// The first 64 KB of a file (enough to tell a map from a bundle).
fn read_head(p: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut head = Vec::with_capacity(64 << 10);
    std::fs::File::open(p)
        .ok()?
        .take(64 << 10)
        .read_to_end(&mut head)
        .ok()?;
    Some(head)
}

/// Whether `p` is a map by its name (`.map`) or its first bytes (a JSON object naming `mappings` or `sections`).
fn looks_like_a_map(p: &Path) -> bool {
    is_map_file(p)
        || read_head(p).is_some_and(|h| {
            looks_like_map(&h)
                && (memchr::memmem::find(&h, b"\"mappings\"").is_some()
                    || memchr::memmem::find(&h, b"\"sections\"").is_some())
        })
}

fn is_map_file(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "map")
}

/// Reads the bundle and checks `index` against it.
pub fn check_bundle(index: &SourceMapIndex, bundle: &Path) -> Result<FitReport, CliError> {
    let text = sourcemap_core::internal::fs::files::read_regular(bundle, MAX_BUNDLE_BYTES)
        .map_err(|e| CliError::Map(format!("cannot read {}: {e}", bundle.display())))?;
    check_fit(index, &text, find_debug_id(&text))
        .map_err(|e| CliError::Map(format!("{}: {e}", bundle.display())))
}
