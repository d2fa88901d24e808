//! The check near a trace's frames ([`check_fit_near`]): the stretches of the map around the frames and a fixed
//! sample across it, each through a detector of its own; the whole check at the first sign of misfit.

use super::evidence::{Detector, Evidence, Landing};
use super::report::{Checked, FitReport, Verdict};
use super::text::FitText;
use super::{check_whole, opening, Opening};
use crate::bundle::columns::LineIndex;
use crate::map::error::MapError;
use crate::map::index::{GeneratedPosition, SourceMapIndex};

/// Maps with at least this much VLQ are checked near the frames by [`check_fit_near`]; the whole check of a smaller
/// one takes a few milliseconds (the same size as `TWO_THREADS_AFTER_BYTES`).
pub const NEAR_AFTER_BYTES: usize = 4 << 20;
/// Checkpoints of run-up read before a frame's (each stands for ≥ 128 B of VLQ, some 20 segments: about 600
/// segments, where the detector needs some 40 of a misfit to see it), and as many after it, so that a stretch that
/// stops fitting at or before the frame is seen whole enough to be detected.
pub(super) const RUN_UP_CHECKPOINTS: usize = 32;
/// The sample across the map: this many stretches, evenly spaced over the checkpoints of a flat map (over the
/// sections of an index map, one at the start of each section chosen), each of this many checkpoints; and the
/// map's head and tail, as many checkpoints as a frame's run-up (a stale map's edit shifts every segment after it,
/// to the tail).
pub(super) const SAMPLE_STRETCHES: usize = 64;
pub(super) const SAMPLE_CHECKPOINTS: usize = 16;
/// Evidence of misfit (natural log) left open at the end of a stretch that is too much to call it fitting: the
/// whole check is run instead.
pub(super) const UNDECIDED: f64 = 6.0;

/// [`check_fit`](super::check_fit) for the frames at `frames` (global generated positions): the same report, read from the stretches
/// of the map around each frame and a fixed sample across it (the map's head and tail and `SAMPLE_STRETCHES` evenly
/// spaced stretches) when all of them fit, each through a detector of its own: no region, no landing past a line's end or
/// beyond the text, no run of misfit left open above `UNDECIDED`. Anything else (a misfit seen anywhere, a debug
/// ID mismatch, `rangeMappings`, a section that does not decode, a map under [`NEAR_AFTER_BYTES`]) and the whole
/// check runs: every report that is not [`Verdict::Fits`] is the whole check's, with its regions, messages and shift.
///
/// What it cannot see: a stretch that stops fitting and fits again, away from the sample and ending before a frame's
/// run-up (the whole check withholds the frames after it; this one answers them), or away from every frame and the
/// sample (the whole check says the map does not fit from there; this one that it fits). A stale build shifts every
/// segment after an edit (minified code by columns, unminified by lines), so its misfit reaches the frames after the
/// edit and the sample; `tests/mapfit.rs` holds the two to the same verdicts on every pair of the misfit corpus.
///
/// Cost: the checkpoints of the sections read (built once; lookups use them), and about
/// `(SAMPLE_STRETCHES × SAMPLE_CHECKPOINTS + (1 + frames) × 2 × RUN_UP_CHECKPOINTS) × 128 B` of VLQ decoded: some
/// 140 KB plus 8 KB a frame, whatever the map's size; plus the text's line starts (one `memchr` pass).
pub fn check_fit_near(
    index: &SourceMapIndex,
    text: &[u8],
    bundle_debug_id: Option<&str>,
    frames: &[GeneratedPosition],
) -> Result<FitReport, MapError> {
    check_fit_near_above(index, text, bundle_debug_id, frames, NEAR_AFTER_BYTES)
}

/// [`check_fit_near`] with the map size from which it reads near the frames (tests force it on small maps with 0).
pub fn check_fit_near_above(
    index: &SourceMapIndex,
    text: &[u8],
    bundle_debug_id: Option<&str>,
    frames: &[GeneratedPosition],
    min_map_bytes: usize,
) -> Result<FitReport, MapError> {
    check_fit_near_lined(index, text, None, bundle_debug_id, frames, min_map_bytes)
}

/// [`check_fit_near_above`] reading the text's lines from `lines` when its index is kept beside it (a pipeline's
/// resolver built it for the same bundle: its line starts are not found again, 57 MB of them on the Metro-scale
/// build).
pub fn check_fit_near_lined(
    index: &SourceMapIndex,
    text: &[u8],
    lines: Option<&LineIndex>,
    bundle_debug_id: Option<&str>,
    frames: &[GeneratedPosition],
    min_map_bytes: usize,
) -> Result<FitReport, MapError> {
    // An index of another text is not this one's.
    let lines = lines.filter(|l| l.starts().last().copied() == Some(text.len() as u32 + 1));
    let report = match opening(index, text, bundle_debug_id) {
        Opening::Go(report) => report,
        Opening::Done(report) => return Ok(report),
    };
    if index.mappings_bytes() < min_map_bytes
        || frames.is_empty()
        || report.verdict != Verdict::Fits
        || index.has_range_mappings()
    {
        return check_whole(index, text, lines, report);
    }
    match read_near(index, text, lines, frames) {
        Some(near) => {
            let mut report = report;
            report.evidence = near.evidence;
            report.map_lines = near.map_lines;
            report.text_lines = near.text_lines;
            report.first_checked = near.first_checked;
            report.checked = Checked::NearFrames {
                stretches: near.stretches,
            };
            Ok(report)
        }
        None => check_whole(index, text, lines, report),
    }
}

/// What [`read_near`] saw, when every stretch fits.
pub(super) struct Near {
    evidence: Evidence,
    stretches: usize,
    map_lines: u32,
    text_lines: u64,
    first_checked: GeneratedPosition,
}

/// The stretches around `frames` and the sample, read; `None` when one does not clearly fit (or cannot be read, or
/// no segment maps to a source: the whole check says why).
pub(super) fn read_near(
    index: &SourceMapIndex,
    text: &[u8],
    shared: Option<&LineIndex>,
    frames: &[GeneratedPosition],
) -> Option<Near> {
    let sections = index.sections();
    let in_bundle = index.bundle_file_sections();
    if in_bundle.is_empty() {
        return None;
    }
    // Per section, checkpoint ranges [from, to) to read (`None`: from the section's first segment; `usize::MAX`:
    // to its end).
    let mut ranges: Vec<(usize, Option<usize>, usize)> = Vec::new();
    let count = |section: usize| index.compact(section).map(|c| c.checkpoint_count()).ok();
    // The head, and the sample.
    if in_bundle.len() <= 1 {
        let section = in_bundle.start;
        let n = count(section)?;
        ranges.push((section, None, RUN_UP_CHECKPOINTS));
        for k in 1..SAMPLE_STRETCHES {
            let from = n * k / SAMPLE_STRETCHES;
            ranges.push((section, Some(from), from + SAMPLE_CHECKPOINTS));
        }
        // The tail: an edit shifts every segment after it to the end of the map.
        ranges.push((section, n.checked_sub(RUN_UP_CHECKPOINTS + 1), usize::MAX));
    } else {
        let n = in_bundle.len();
        for k in 0..SAMPLE_STRETCHES.min(n) {
            let section = in_bundle.start + n * k / SAMPLE_STRETCHES.min(n);
            count(section)?;
            let to = if k == 0 {
                RUN_UP_CHECKPOINTS
            } else {
                SAMPLE_CHECKPOINTS
            };
            ranges.push((section, None, to));
        }
        let last = in_bundle.end - 1;
        let n = count(last)?;
        ranges.push((last, n.checked_sub(RUN_UP_CHECKPOINTS + 1), usize::MAX));
    }
    // Around each frame.
    for &p in frames {
        let Some(section) = index.section_at(p).filter(|s| in_bundle.contains(s)) else {
            continue;
        };
        let compact = index.compact(section).ok()?;
        let offset = sections[section].offset;
        let line = p.line - offset.line;
        let column = if line == 0 {
            p.column.saturating_sub(offset.column)
        } else {
            p.column
        };
        let at = compact.checkpoint_at_or_before(line, column);
        let from = at.and_then(|k| k.checked_sub(RUN_UP_CHECKPOINTS));
        let to = at.map_or(0, |k| k + 1) + RUN_UP_CHECKPOINTS;
        ranges.push((section, from, to));
    }
    // Overlapping ranges of a section read once.
    ranges.sort_by_key(|&(section, from, to)| (section, from.map_or(0, |f| f + 1), to));
    let mut merged: Vec<(usize, Option<usize>, usize)> = Vec::new();
    for r in ranges {
        match merged.last_mut() {
            Some(last) if last.0 == r.0 && r.1.map_or(0, |f| f + 1) <= last.2.saturating_add(1) => {
                last.2 = last.2.max(r.2);
            }
            _ => merged.push(r),
        }
    }
    let mut lines = match shared {
        Some(index) => FitText::shared(text, index),
        None => FitText::new(text),
    };
    let mut evidence = Evidence::default();
    let (mut map_lines, mut first_checked) = (0u32, None);
    for &(section, from, to) in &merged {
        let compact = index.compact(section).ok()?;
        let end = (to < compact.checkpoint_count()).then(|| compact.checkpoint_offset(to));
        let mut detector = Detector::default();
        let mut clean = true;
        let read = index.for_each_raw_segment_from(section, from, |seg| {
            if end.is_some_and(|end| seg.offset >= end) {
                return false;
            }
            let Some(o) = seg.original else {
                return true;
            };
            let p = sections[section].to_global(seg.line, seg.column);
            // (Only a misfit's message reads it, and a misfit is the whole check's: the first segment read.)
            first_checked = Some(first_checked.map_or(p, |f: GeneratedPosition| f.min(p)));
            map_lines = map_lines.max(p.line + 1);
            let mut landing = lines.landing(p.line, p.column, None);
            if let (Landing::TokenStart, Some(n)) = (landing, o.name) {
                let name = index
                    .segment_name_if_loaded(section, n)
                    .filter(|n| n.len() >= 3);
                if let Some(n) = name {
                    evidence.names_checked += 1;
                    landing = lines.landing(p.line, p.column, Some(n));
                }
            }
            if matches!(landing, Landing::PastLineEnd | Landing::BeyondText) {
                clean = false;
                return false;
            }
            evidence.add(landing);
            detector.push(p, landing);
            true
        });
        if read.is_err() || !clean || detector.in_region || detector.run >= UNDECIDED {
            return None;
        }
        if !detector.finish().is_empty() {
            return None;
        }
    }
    Some(Near {
        evidence,
        stretches: merged.len(),
        map_lines,
        text_lines: lines.line_count() as u64,
        first_checked: first_checked?,
    })
}
