//! The inputs metro-symbolicate reads beside profiles, answered in its shapes: a Hermes coverage trace and bytecode
//! size attribution lines (`--json`), and the JSC profiler map (`.profmap`). Each position is looked up as a frame
//! through the one resolver (its `SourceURL` or `filename` leads to a map as a profile's URL does, a Metro segment's
//! or module's file name to its place in the map; else the first map given), in metro-symbolicate's bases
//! (`profile_args::MetroBases`).

use std::io::Write;

use serde_json::{json, Value};
use sourcemap_core::internal::map::metro::{metro_file, Space};
use sourcemap_core::profile::coverage;
use sourcemap_core::profile::profmap::{self, ProfmapAnswer};
use sourcemap_core::profile::ProfileError;
use sourcemap_core::session::SessionOptions;
use sourcemap_core::trace::symbolicate::{OriginalFrame, SymbolicatedLine};
use sourcemap_core::{Bias, GeneratedPosition, SourceMapIndex};

use super::frame_maps::run_session;
use super::profile_args::{catalog_of, place, ProfileArgs};
use super::CliError;

/// metro-symbolicate's walk over a bytecode range `(start, end)` of generated line `line` whose first address maps
/// to no source: column by column, the first segment after `start` and before `end`, on that line, whose mapping has
/// a source, in the space the map places `file` in (a RAM bundle's module or a segment: `map/metro.rs`).
fn first_sourced_in_range(
    index: &SourceMapIndex,
    file: Option<&str>,
    line: u32,
    (start, end): (u32, u32),
) -> Option<GeneratedPosition> {
    let file = file
        .filter(|_| index.has_metro_files())
        .and_then(metro_file);
    let (space, placed) = match file {
        Some(file) => index
            .metro_position(file, GeneratedPosition { line, column: 0 })
            .ok()?,
        None => (Space::Main, GeneratedPosition { line, column: 0 }),
    };
    let mut column = start + 1;
    while column < end {
        let p = GeneratedPosition {
            line: placed.line,
            column,
        };
        let Ok(Some(hit)) = index.lookup_in(space, p, Bias::LeastUpperBound) else {
            return None;
        };
        if hit.generated.line != placed.line || hit.generated.column >= end {
            return None;
        }
        if hit.original.is_some_and(|o| o.source_url.is_some()) {
            return Some(GeneratedPosition {
                line,
                column: hit.generated.column,
            });
        }
        column = hit.generated.column + 1;
    }
    None
}

/// A Hermes coverage trace or a bytecode size attribution: each position looked up as a frame (its `SourceURL` or
/// `filename` leads to a map as a profile's URL does; else the first map given), answered in metro-symbolicate's
/// shapes (`--json`: coverage, one JSON array of `{source, line, column, name, functionName, isIgnored}`;
/// attribution, the lines with `location` `{file, line, column}`), or counted.
pub(super) fn run_metro_input(args: &ProfileArgs, bytes: &[u8]) -> Result<(), CliError> {
    if args.out.is_some() || args.to.is_some() {
        return Err(CliError::Usage(
            "a coverage trace or an attribution is answered on stdout (--json); --out and --to are for profiles and heap snapshots".into(),
        ));
    }
    let bad = |e: ProfileError| CliError::Usage(format!("{}: {e}", args.profile.display()));
    let is_coverage = coverage::is_coverage(bytes);
    let (places, attribution): (Vec<(Option<String>, Option<GeneratedPosition>)>, _) =
        if is_coverage {
            let c = coverage::read_coverage(bytes).map_err(bad)?;
            (
                c.into_iter().map(|e| (e.url, Some(e.position))).collect(),
                Vec::new(),
            )
        } else {
            let b = args.bases;
            let a = coverage::read_attribution(bytes, b.input_line_start, b.input_column_start)
                .map_err(bad)?;
            (a.iter().map(|l| (l.file.clone(), l.position)).collect(), a)
        };
    let positioned: Vec<usize> = (0..places.len())
        .filter(|&i| places[i].1.is_some())
        .collect();
    let lines = positioned
        .iter()
        .map(|&i| {
            place(
                places[i].0.as_deref(),
                places[i].1.expect("positioned"),
                None,
            )
        })
        .collect();
    let mut catalog = catalog_of(args)?;
    let resolved = run_session(&mut catalog, lines, SessionOptions::default());
    let mut answers: Vec<Option<(&OriginalFrame, bool)>> = vec![None; places.len()];
    answer(&mut answers, positioned.iter().copied(), &resolved.out);
    // metro-symbolicate walks a bytecode range whose first address maps to no source column by column up to its
    // end and answers the first that does: the first segment after the address with a source, in the map the
    // address was looked up in. Those addresses are looked up again, as the others were.
    let mut walked: Vec<(usize, GeneratedPosition)> = Vec::new();
    for (k, &i) in positioned.iter().enumerate() {
        let (Some((start, end)), None, Some(choice)) = (
            attribution.get(i).and_then(|a| a.range),
            answers[i],
            resolved.chosen[k].0,
        ) else {
            continue;
        };
        let index = &catalog.maps[choice].index;
        let line = places[i].1.expect("positioned").line;
        if let Some(p) = first_sourced_in_range(index, places[i].0.as_deref(), line, (start, end)) {
            walked.push((i, p));
        }
    }
    let again = if walked.is_empty() {
        None
    } else {
        let lines = walked
            .iter()
            .map(|&(i, position)| place(places[i].0.as_deref(), position, None))
            .collect();
        Some(run_session(&mut catalog, lines, SessionOptions::default()))
    };
    if let Some(again) = &again {
        answer(&mut answers, walked.iter().map(|w| w.0), &again.out);
    }
    let b = args.bases;
    let mapped = answers.iter().flatten().count();
    if !args.json {
        println!(
            "{}: {} positions, {mapped} mapped",
            if is_coverage {
                "Hermes coverage trace"
            } else {
                "bytecode size attribution"
            },
            places.len()
        );
        return Ok(());
    }
    if is_coverage {
        let rows: Vec<Value> = answers
            .iter()
            .map(|a| match a {
                Some((o, ignored)) => json!({
                    "source": o.source, "line": o.line + b.output_line_start,
                    "column": o.column + b.output_column_start, "name": o.name,
                    "functionName": o.function, "isIgnored": ignored,
                }),
                None => json!({
                    "source": null, "line": null, "column": null, "name": null, "functionName": null,
                    "isIgnored": false,
                }),
            })
            .collect();
        println!("{}", Value::Array(rows));
    } else {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        for (line, a) in attribution.into_iter().zip(&answers) {
            let mut object = line.object;
            object["location"] = match a {
                Some((o, _)) => json!({
                    "file": o.source, "line": o.line + b.output_line_start,
                    "column": o.column + b.output_column_start,
                }),
                None => json!({"file": null, "line": null, "column": null}),
            };
            writeln!(out, "{object}").map_err(|e| CliError::Usage(e.to_string()))?;
        }
        out.flush().map_err(|e| CliError::Usage(e.to_string()))?;
    }
    Ok(())
}

/// Each resolved line's original with a source, and whether it is ignore-listed, into `answers` at the place it was
/// asked for (`at`, in the lines' order).
fn answer<'a>(
    answers: &mut [Option<(&'a OriginalFrame, bool)>],
    at: impl Iterator<Item = usize>,
    out: &'a [SymbolicatedLine],
) {
    for (i, l) in at.zip(out) {
        if let SymbolicatedLine::Frame(f) = l {
            answers[i] = f
                .original
                .as_ref()
                .filter(|o| o.source.is_some())
                .map(|o| (o, f.ignored));
        }
    }
}

/// A JSC profiler map: each trampoline's offset looked up on the first line of the first map given (or the map its
/// bundle leads to), written back as metro-symbolicate writes it (`profile/profmap.rs`).
pub(super) fn run_profmap(args: &ProfileArgs, bytes: &[u8]) -> Result<(), CliError> {
    if args.out.is_some() || args.to.is_some() || args.json {
        return Err(CliError::Usage(
            "a profiler map is answered on stdout in its own shape; --out, --to and --json are for profiles".into(),
        ));
    }
    if args.maps.is_empty() {
        return Err(CliError::Usage(
            "a profiler map names no script: give the map (or the bundle) its offsets are in"
                .into(),
        ));
    }
    let b = args.bases;
    let lines = profmap::read_profmap(bytes);
    // Offsets before the column base cannot be looked up; they are answered as unmapped.
    let asked: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].offset.is_some_and(|o| o >= b.input_column_start))
        .collect();
    let frames = asked
        .iter()
        .map(|&i| {
            let column = lines[i].offset.expect("asked") - b.input_column_start;
            place(None, GeneratedPosition { line: 0, column }, None)
        })
        .collect();
    let mut catalog = catalog_of(args)?;
    let resolved = run_session(&mut catalog, frames, SessionOptions::default());
    let mut answers: Vec<Option<ProfmapAnswer>> = vec![None; lines.len()];
    for (&i, l) in asked.iter().zip(&resolved.out) {
        let Some(o) = l.frame().and_then(|f| f.original.as_ref()) else {
            continue;
        };
        answers[i] = Some(ProfmapAnswer {
            name: o.function.clone().or_else(|| o.name.clone()),
            source: o.source.clone(),
            line: Some(o.line + b.output_line_start),
            column: Some(o.column + b.output_column_start),
        });
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (line, answer) in lines.iter().zip(&answers) {
        let mut text = profmap::render(line, answer.as_ref());
        text.push('\n');
        out.write_all(&sourcemap_core::trace::input::to_bytes(&text))
            .map_err(|e| CliError::Usage(e.to_string()))?;
    }
    out.flush().map_err(|e| CliError::Usage(e.to_string()))
}
