//! The shifts tried when the whole map misfits: whole lines (a banner), columns counted in UTF-8 bytes, and a
//! line whose segments are all off by one number of columns.

use super::evidence::MisfitRegion;
use super::evidence::{Detector, Evidence, Landing};
use super::report::ColumnShift;
use super::text::{Columns, FitText};
use crate::map::error::MapError;
use crate::map::index::{GeneratedPosition, SourceMapIndex};

/// Segments kept from the start of the map to try line shifts on.
pub(super) const SHIFT_SAMPLE: usize = 4096;
/// Shifts tried: banners of up to this many lines, and as many lines removed.
pub(super) const MAX_SHIFT_UP: i64 = 256;
pub(super) const MAX_SHIFT_DOWN: i64 = 32;
/// The evidence of fit a shift must show on the sample (e^8 to one: some 25 segments at token starts).
pub(super) const MIN_SHIFT_EVIDENCE: f64 = 8.0;

/// A whole-line shift under which the sample fits, confirmed on the whole map.
pub(super) fn find_shift(
    index: &SourceMapIndex,
    lines: &mut FitText<'_>,
    sample: &[(GeneratedPosition, Option<Box<str>>)],
    map_lines: u32,
) -> Result<Option<i64>, MapError> {
    let text_lines = lines.line_count() as i64;
    // The difference in line counts first: a banner of N lines makes the text N lines longer than the map.
    let likely = text_lines - i64::from(map_lines);
    let candidates = std::iter::once(likely)
        .chain(1..=MAX_SHIFT_UP)
        .chain((1..=MAX_SHIFT_DOWN).map(|k| -k))
        .filter(|&k| k != 0);
    let shifted =
        |lines: &mut FitText<'_>, shift: i64, p: GeneratedPosition, name: Option<&str>| {
            let line = i64::from(p.line) + shift;
            if line < 0 {
                Landing::BeyondText
            } else {
                lines.landing(line.min(i64::from(u32::MAX)) as u32, p.column, name)
            }
        };
    // Every candidate on the sample; the one with the most evidence of fit, if it shows some, is checked on the
    // whole map. (A small map cannot show e^25 of fit: the best candidate is taken when it is clearly the best.)
    let mut tried = std::collections::HashSet::new();
    let mut best: Option<(f64, i64)> = None;
    for shift in candidates {
        if !tried.insert(shift) {
            continue;
        }
        let mut detector = Detector::default();
        let mut sum = 0.0;
        for (p, name) in sample {
            let landing = shifted(lines, shift, *p, name.as_deref());
            sum += landing.weight();
            detector.push(*p, landing);
        }
        if detector.finish().is_empty() && best.is_none_or(|(b, _)| sum < b) {
            best = Some((sum, shift));
        }
    }
    let Some((sum, shift)) = best else {
        return Ok(None);
    };
    if sum > -MIN_SHIFT_EVIDENCE {
        return Ok(None);
    }
    let mut detector = Detector::default();
    index.for_each_segment_once(|hit| {
        if let Some(o) = hit.original {
            detector.push(hit.generated, shifted(lines, shift, hit.generated, o.name));
        }
    })?;
    if detector.finish().is_empty() {
        return Ok(Some(shift));
    }
    Ok(None)
}

/// Whether the map counts columns in UTF-8 bytes: every segment fits with its column read as a byte offset, and
/// the segments after a line's first non-ASCII character (the only ones the two readings place apart) show it. The
/// stretches that would be wrong read as UTF-16 (from each such line's first non-ASCII character to its end), and
/// per line the UTF-16 column of that character.
pub(super) type ByteColumns = (Vec<MisfitRegion>, Vec<(u32, u32)>);

pub(super) fn find_byte_columns(
    index: &SourceMapIndex,
    lines: &mut FitText<'_>,
) -> Result<Option<ByteColumns>, MapError> {
    let mut detector = Detector::default();
    let mut regions: Vec<MisfitRegion> = Vec::new();
    let mut wide: Vec<(u32, u32)> = Vec::new();
    // The first non-ASCII byte of the line the segments are on (segments come in generated order).
    let mut line_wide: Option<(u32, Option<usize>)> = None;
    let mut after = 0.0;
    index.for_each_segment_once(|hit| {
        let Some(o) = hit.original else {
            return;
        };
        let p = hit.generated;
        let landing = lines.landing_read(p.line, p.column, o.name, Columns::Utf8Bytes);
        detector.push(p, landing);
        if line_wide.is_none_or(|(line, _)| line != p.line) {
            let first = ((p.line as usize) < lines.line_count())
                .then(|| lines.line(p.line as usize).iter().position(|&b| b >= 0x80))
                .flatten();
            line_wide = Some((p.line, first));
        }
        let Some((_, Some(first))) = line_wide else {
            return;
        };
        if p.column as usize <= first {
            return;
        }
        after += landing.weight();
        match regions.last_mut() {
            Some(r) if r.start.line == p.line => r.evidence.add(landing),
            _ => {
                let mut evidence = Evidence::default();
                evidence.add(landing);
                // All ASCII before it: its byte offset is its UTF-16 column.
                wide.push((p.line, first as u32));
                regions.push(MisfitRegion {
                    start: GeneratedPosition {
                        line: p.line,
                        column: first as u32 + 1,
                    },
                    end: Some(GeneratedPosition {
                        line: p.line + 1,
                        column: 0,
                    }),
                    evidence,
                });
            }
        }
    })?;
    let fits = detector.finish().is_empty() && after <= -MIN_SHIFT_EVIDENCE;
    Ok(fits.then_some((regions, wide)))
}

/// Columns a line's segments may be moved by: text of up to this many characters put at its start, and as many
/// removed as `MAX_COLUMN_SHIFT_DOWN`.
pub(super) const MAX_COLUMN_SHIFT_UP: i64 = 256;
pub(super) const MAX_COLUMN_SHIFT_DOWN: i64 = 64;
/// Column shifts are tried when the stretches that do not fit cover at most this many lines with segments.
pub(super) const MAX_COLUMN_SHIFT_LINES: usize = 16;

pub(super) type ColumnShifts = (Vec<MisfitRegion>, Vec<ColumnShift>);

/// Per line the stretches that do not fit cover, the column shift under which its segments fit (none when they fit
/// as they are), each the best on a sample of the line's segments with evidence of fit, then confirmed together on
/// the whole map: what stays wrong is exactly the shifted lines.
pub(super) fn find_column_shifts(
    index: &SourceMapIndex,
    lines: &mut FitText<'_>,
    regions: &[MisfitRegion],
) -> Result<Option<ColumnShifts>, MapError> {
    if regions.len() > MAX_COLUMN_SHIFT_LINES {
        return Ok(None);
    }
    let covered = |line: u32| {
        regions
            .iter()
            .any(|r| r.start.line <= line && r.end.is_none_or(|end| line <= end.line))
    };
    type Sample = Vec<(GeneratedPosition, Option<Box<str>>)>;
    let mut samples: std::collections::BTreeMap<u32, Sample> = Default::default();
    let mut too_many = false;
    index.for_each_segment_once(|hit| {
        let (Some(o), p) = (hit.original, hit.generated) else {
            return;
        };
        if too_many || !covered(p.line) {
            return;
        }
        let sample = samples.entry(p.line).or_default();
        if sample.len() < SHIFT_SAMPLE {
            sample.push((p, o.name.map(Box::from)));
        }
        too_many = samples.len() > MAX_COLUMN_SHIFT_LINES;
    })?;
    if too_many {
        return Ok(None);
    }
    let shifted =
        |lines: &mut FitText<'_>, shift: i64, p: GeneratedPosition, name: Option<&str>| {
            match u32::try_from(i64::from(p.column) + shift) {
                Ok(column) => lines.landing(p.line, column, name),
                Err(_) => Landing::PastLineEnd,
            }
        };
    let candidates = || (0..=MAX_COLUMN_SHIFT_UP).chain((1..=MAX_COLUMN_SHIFT_DOWN).map(|k| -k));
    let mut shifts: Vec<(u32, i64)> = Vec::new();
    for (&line, sample) in &samples {
        let mut best: Option<(f64, i64)> = None;
        for shift in candidates() {
            let mut detector = Detector::default();
            let mut sum = 0.0;
            for (p, name) in sample {
                let landing = shifted(lines, shift, *p, name.as_deref());
                sum += landing.weight();
                detector.push(*p, landing);
            }
            if detector.finish().is_empty() && best.is_none_or(|(b, _)| sum < b) {
                best = Some((sum, shift));
            }
        }
        match best {
            Some((_, 0)) => {}
            Some((sum, shift)) if sum <= -MIN_SHIFT_EVIDENCE => shifts.push((line, shift)),
            _ => return Ok(None),
        }
    }
    if shifts.is_empty() {
        return Ok(None);
    }
    let shift_of = |line: u32| {
        shifts
            .binary_search_by_key(&line, |&(l, _)| l)
            .map_or(0, |k| shifts[k].1)
    };
    let mut detector = Detector::default();
    let mut evidence: Vec<Evidence> = vec![Evidence::default(); shifts.len()];
    index.for_each_segment_once(|hit| {
        if let Some(o) = hit.original {
            let p = hit.generated;
            detector.push(p, shifted(lines, shift_of(p.line), p, o.name));
            if let Ok(k) = shifts.binary_search_by_key(&p.line, |&(l, _)| l) {
                evidence[k].add(lines.landing(p.line, p.column, o.name));
            }
        }
    })?;
    if !detector.finish().is_empty() {
        return Ok(None);
    }
    let regions = shifts
        .iter()
        .zip(evidence)
        .map(|(&(line, _), evidence)| MisfitRegion {
            start: GeneratedPosition { line, column: 0 },
            end: Some(GeneratedPosition {
                line: line + 1,
                column: 0,
            }),
            evidence,
        })
        .collect();
    let shifts = shifts
        .into_iter()
        .map(|(line, columns)| ColumnShift {
            line,
            columns,
            added: added_text(lines, line, columns),
        })
        .collect();
    Ok(Some((regions, shifts)))
}

/// The first `columns` characters of `line` (what a column shift says was put there), when they are few and
/// printable.
pub(super) fn added_text(lines: &FitText<'_>, line: u32, columns: i64) -> Option<String> {
    if !(1..=40).contains(&columns) || line as usize >= lines.line_count() {
        return None;
    }
    let text = String::from_utf8_lossy(lines.line(line as usize));
    let mut units = 0;
    let added: String = text
        .chars()
        .take_while(|c| {
            units += c.len_utf16() as i64;
            units <= columns
        })
        .collect();
    (added.encode_utf16().count() as i64 == columns && !added.chars().any(char::is_control))
        .then_some(added)
}
