//! Does a map describe this generated text? The fit check between a bundle and its map.
//!
//! A map made for another build (a stale map, a banner prepended after the map was written, the map of another
//! bundle) still answers every lookup, and every answer looks right. The text tells: bundlers put segments at token
//! starts, so in a map that fits, a segment lands where a token starts; in a map that does not, segments land at
//! random places of the text: inside identifiers, past the end of their line, on lines the text does not have.
//! Named segments whose token is their name (unmangled properties and globals) are evidence the other way.
//!
//! Each segment that has an original position is one observation, classed by where it lands ([`Landing`]). The
//! observations are read in generated order and weighed as a log-likelihood ratio of "this stretch of the map does
//! not fit" against "it fits" ([`Landing::weight`]); a CUSUM change detector turns them into the stretches that do
//! not fit ([`MisfitRegion`]): the first where the summed evidence of a run reaches [`DETECT`], ending where a run
//! of evidence of fit reaches it the other way. So a map whose last module moved is caught from that module on, and
//! the answers before it stay usable. 1-field segments (Metro ends each module with one, inside the module id) map
//! to nothing and are not observations.
//!
//! When the whole map misfits, whole-line shifts are tried on a sample of its first segments (a banner of N lines
//! prepended makes every segment N lines early); a shift that fits the sample is then checked on the whole map.
//! Failing that, two misreadings of columns, each of which must then fit every segment: columns counted in UTF-8
//! bytes (lightningcss 1.33, its issue #780: a segment after a non-ASCII character is 2 columns right per `—`), and
//! a line whose segments are all off by one number of columns (Bootstrap 5.3.9's map of its `bootstrap.min.css` is 3
//! short on line 5, where ` */` ends the banner before the stylesheet). Then what is wrong is known exactly (after a
//! line's first non-ASCII character; the shifted lines), and the rest of the map answers.
//!
//! `symbolicate` needs the verdict at a few frames, not the whole map's: [`check_fit_near`] reads the stretches of
//! the map around the frames (a run-up of some 600 segments before each, as many after, so that a stretch that stops
//! fitting at or before a frame is seen) and a fixed sample across the map (its head, its tail and 64 evenly spaced
//! stretches: what proves the map belongs; a stale map's edit shifts every segment after it, so its misfit reaches
//! the tail), each through a detector of its own, resuming at the map's checkpoints (which the
//! frames' lookups build anyway). When all of them clearly fit, the map fits; at the first sign of misfit anywhere
//! it runs the whole check, so every misfit verdict, region, shift and message is the whole check's. The CLI's
//! `symbolicate` and `profile` and the server's `sourcemap/symbolicate` use it; `validate`, the server's diagnostics
//! over an opened bundle (and the hovers and map info that reuse their report), and every other caller check the
//! whole map.
//!
//! The weights come from measurements on real builds (`fixtures/mapfit`, `tests/mapfit.rs` prints the rates): on
//! matching maps of esbuild, terser, webpack and Rollup almost no segment lands inside an identifier; swc writes a
//! few mid-identifier segments all through a correct map (see `MID_IDENTIFIER_IF_FIT`); on a map that does not fit,
//! about a third of the segments land inside identifiers of minified code.
//!
//! Hermes bytecode has no lines to land on (its map's columns are bytecode addresses on line 1, which every compile's
//! map has): it is judged by its function table instead, against the map's `x_hermes_function_offsets`
//! (`bundle::hermes_bytecode`, `judge_bytecode`); a map that is not the compile's misfits over the whole file.
//!
//! Lines end at `\n` (a `\r` before it belongs to the terminator). Columns are UTF-16 code units, as in the map.
//!
//! Cost: one pass over the text to find its lines (4 B a line), one pass over the segments; a non-ASCII line gets a
//! table of one byte offset per 32 UTF-16 units the first time a segment lands on it (each line at most once), so no
//! map, however hostile, makes the check more than linear in the sizes of the text and the map.

use crate::bundle::columns::LineIndex;
use crate::bundle::hermes_bytecode::{judge_map, read_bytecode};
use crate::map::error::MapError;
use crate::map::index::{SourceId, SourceMapIndex};
pub use crate::map::position::Shift;
use crate::trace::stack::normalize_debug_id;

mod evidence;
mod frames;
mod near;
mod pass;
mod report;
mod shift_search;
mod text;

pub use evidence::*;
pub use frames::*;
pub use near::*;
use pass::*;
pub use report::*;
use shift_search::*;

/// Whether `text` is Hermes bytecode: it starts with Hermes' magic number (`bundle::hermes_bytecode`).
pub use crate::bundle::hermes_bytecode::is_hermes_bytecode;

/// Whether `text` is not source text: Hermes bytecode or anything with NUL bytes in its head.
fn is_binary(text: &[u8]) -> bool {
    is_hermes_bytecode(text) || text[..text.len().min(4096)].contains(&0)
}

/// Checks that `index` describes `text`, the generated file it is for. `bundle_debug_id`: the bundle's
/// `//# debugId=`, when it has one.
pub fn check_fit(
    index: &SourceMapIndex,
    text: &[u8],
    bundle_debug_id: Option<&str>,
) -> Result<FitReport, MapError> {
    check_fit_lined(index, text, None, bundle_debug_id)
}

/// [`check_fit`] reading the text's lines from `lines` when they were found already (an index of another text is
/// not used): the editor's large `didOpen` finds them while it unescapes the text.
pub fn check_fit_lined(
    index: &SourceMapIndex,
    text: &[u8],
    lines: Option<&LineIndex>,
    bundle_debug_id: Option<&str>,
) -> Result<FitReport, MapError> {
    let lines = lines.filter(|l| l.starts().last().copied() == Some(text.len() as u32 + 1));
    let report = match opening(index, text, bundle_debug_id) {
        Opening::Go(report) => report,
        Opening::Done(report) => return Ok(report),
    };
    check_whole(index, text, lines, report)
}

/// What [`opening`] leaves: a report to go on with, or a final one.
enum Opening {
    Go(FitReport),
    Done(FitReport),
}

/// The checks that need no segment: the debug IDs, and a text that cannot be judged (too large, empty, bytecode, a
/// JSON document).
fn opening(index: &SourceMapIndex, text: &[u8], bundle_debug_id: Option<&str>) -> Opening {
    let mut report = FitReport::new(Verdict::Fits);
    report.bundle_debug_id = bundle_debug_id.map(str::to_string);
    if let (Some(bundle), Some(map)) = (bundle_debug_id, index.debug_id.as_deref()) {
        if normalize_debug_id(bundle) != normalize_debug_id(map) {
            report.verdict = Verdict::Misfit;
            report.debug_id_mismatch = Some((bundle.to_string(), map.to_string()));
        }
    }
    if text.len() >= u32::MAX as usize {
        report.verdict = Verdict::Unknown;
        report.unknown_because = Some("the generated file is larger than 4 GB: not checked".into());
        return Opening::Done(report);
    }
    // An empty file is no evidence against the map (Sentry's own React Native test uploads an empty bundle beside
    // its map): the map answers, and the fit is said to be unchecked.
    if text.trim_ascii().is_empty() {
        if report.verdict != Verdict::Misfit {
            report.verdict = Verdict::Unknown;
            report.unknown_because =
                Some("the generated file is empty: the map's fit could not be checked".into());
        }
        return Opening::Done(report);
    }
    if is_hermes_bytecode(text) {
        if report.verdict != Verdict::Misfit {
            judge_bytecode(index, text, &mut report);
        }
        return Opening::Done(report);
    }
    if is_binary(text) {
        if report.verdict != Verdict::Misfit {
            report.verdict = Verdict::Unknown;
            report.unknown_because = Some(
                "the generated file is binary, not text: its segments cannot be checked".into(),
            );
        }
        return Opening::Done(report);
    }
    if crate::bundle::locate::is_json_document(text) {
        if report.verdict != Verdict::Misfit {
            report.verdict = Verdict::Unknown;
            report.unknown_because = Some(
                "the file taken for the bundle is a JSON document (a profile, a report, a map), not code: not checked"
                    .into(),
            );
        }
        return Opening::Done(report);
    }
    Opening::Go(report)
}

/// Hermes bytecode has no lines to land segments on: its map's segments are at virtual offsets on line 1, which any
/// compile's map has. The map's `x_hermes_function_offsets` are judged against the file's function table instead
/// (`bundle::hermes_bytecode`): equal, the map fits; different (another compile's map, or a map of JavaScript), the
/// whole file misfits, as one region from its start, so that every frame in it is withheld with the reason. A file
/// of another bytecode version, or cut short, or a map whose offsets cannot be read: not checked, said why.
fn judge_bytecode(index: &SourceMapIndex, text: &[u8], report: &mut FitReport) {
    let judged = read_bytecode(text)
        .map_err(|e| format!("{e}: not checked"))
        .and_then(|bytecode| {
            judge_map(&bytecode, index).map_err(|e| {
                format!("the map's function offsets cannot be read ({e}): not checked")
            })
        });
    match judged {
        Ok(fit) if fit.fits() => report.bytecode = Some(fit),
        Ok(fit) => {
            report.verdict = Verdict::Misfit;
            report.regions = vec![MisfitRegion {
                start: report.first_checked,
                end: None,
                evidence: Evidence::default(),
            }];
            report.bytecode = Some(fit);
        }
        Err(why) => {
            report.verdict = Verdict::Unknown;
            report.unknown_because = Some(why.into());
        }
    }
}

/// The check over every segment, from the report [`opening`] began.
fn check_whole(
    index: &SourceMapIndex,
    text: &[u8],
    lines: Option<&LineIndex>,
    mut report: FitReport,
) -> Result<FitReport, MapError> {
    // A lazy index leaves its names in the map file, and a pass over every segment does not read them (they would
    // stay in memory: +55 MB on the editor benchmark's Metro bundle). But a name on its own token is evidence of fit
    // that can outweigh the rest: swc's maps of Next.js's server chunks put a few hundred segments inside minified
    // names all through a map that fits, and only their 455 unmangled names on their tokens keep the verdict "fits".
    // So a misfit seen without the names is checked again with them: the verdict never depends on how the index was
    // opened (`lazy_names`), and the names are read only when a misfit is in sight.
    let mut pass = observe_all(index, text, lines, false)?;
    if pass.names_unread > 0 && pass.detector.in_misfit_somewhere() {
        pass = observe_all(index, text, lines, true)?;
    }
    let Pass {
        mut lines,
        literals: _,
        read_names: _,
        names_unread: _,
        detector,
        evidence,
        sample,
        first_checked,
        map_lines,
    } = pass;
    report.evidence = evidence;
    let since_last_region = detector.since_last_region;
    let mut misfit_sources: Vec<SourceId> = detector.region_sources.iter().copied().collect();
    misfit_sources.sort_unstable();
    report.misfit_sources = misfit_sources;
    report.regions = detector.finish();
    report.resumes_at = resumes_after_stretches(&report.regions, since_last_region);
    report.map_lines = map_lines;
    report.text_lines = lines.line_count() as u64;
    let Some(first_checked) = first_checked else {
        if report.verdict != Verdict::Misfit {
            report.verdict = Verdict::Unknown;
            report.unknown_because = Some("the map has no segment that maps to a source".into());
        }
        return Ok(report);
    };
    report.first_checked = first_checked;
    if report.regions.is_empty() {
        return Ok(report);
    }
    report.verdict = Verdict::Misfit;
    // Only a whole-map shift is worth naming; it must fit every segment, so trying it is safe whatever the regions.
    if report.debug_id_mismatch.is_some() {
        return Ok(report);
    }
    report.shift_lines = find_shift(index, &mut lines, &sample, map_lines)?;
    if report.shift_lines.is_some() {
        return Ok(report);
    }
    // Then the two ways a map misreads columns, each of which must fit every segment.
    if !text.is_ascii() {
        if let Some((regions, byte_columns)) = find_byte_columns(index, &mut lines)? {
            report.regions = regions;
            report.byte_columns = byte_columns;
            return Ok(report);
        }
    }
    if let Some((regions, shifts)) = find_column_shifts(index, &mut lines, &report.regions)? {
        report.regions = regions;
        report.column_shifts = shifts;
    }
    Ok(report)
}

#[cfg(test)]
mod tests;
