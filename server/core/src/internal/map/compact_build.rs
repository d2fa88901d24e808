//! Building a section's [`CompactMappings`]: one validating pass over `mappings`, or, for a large section, the same
//! pass over several stretches at once.
//!
//! Why stretches: the editor's first hover on a real Metro build (one 50.6 MB section) waited for this pass alone
//! for 60 % of its time, on one core (docs/PERFORMANCE.md, "The first hover on two cores"). Each stretch starts
//! after a `;`, where the generated column restarts at 0 (ECMA-426 §"Mappings structure": "the generated column …
//! is relative to the previous occurrence in the same line", and resets on each line), so a stretch can be decoded
//! without what comes before it — except the four accumulators (source, original line, original column, name),
//! which run across lines. A stretch decodes them relative to its own start and records their extent
//! ([`Extent`]); once the stretches before it are done, their totals give its real start, and the extent says in
//! one comparison per accumulator whether every segment was within range.
//!
//! The one rule: the stretches' result is used only when every stretch decoded cleanly and every extent fits.
//! Otherwise the whole text is decoded again in one pass, which finds the first error in text order, the same
//! error as before stretches existed. `rangeMappings` (rare, and indexed by segments from each line's start) always
//! take the one pass.
//!
//! Where stretches start depends on the text's length alone, never on the number of cores, so the checkpoints are
//! the same on every machine; a machine with fewer cores decodes more stretches per thread. Checkpoints at a
//! stretch's start differ from the one pass's (a stretch starts its own spacing), and keep the invariants of
//! [`CompactMappings`]: each stands at a line's first segment or past a strictly smaller column on a sorted line.

use crate::internal::map::checkpoints::Checkpoint;
use crate::internal::map::error::MappingsLocation;
use crate::internal::map::segment::{Accumulators, Extent, Limits, SegmentCursor, SegmentError};

/// Minimum distance in VLQ bytes between two checkpoints.
pub const CHECKPOINT_INTERVAL: usize = 128;

/// A section shorter than two of these is decoded in one pass; longer ones in stretches of about this size.
pub(crate) const STRETCH_BYTES: usize = 4 << 20;
/// At most this many stretches, however long the section.
pub(crate) const MAX_STRETCHES: usize = 16;

/// Byte offsets in `mappings` of a source's first and last segment (`first > last`: no segment).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceSpan {
    /// Offset of the first segment's first digit.
    pub first: u32,
    /// Offset of the last segment's first digit.
    pub last: u32,
}

impl SourceSpan {
    pub(crate) const NONE: SourceSpan = SourceSpan {
        first: u32::MAX,
        last: 0,
    };

    pub(crate) fn add(&mut self, offset: u32) {
        self.first = self.first.min(offset);
        self.last = self.last.max(offset);
    }

    /// Whether no segment names the source.
    pub fn is_empty(&self) -> bool {
        self.first > self.last
    }
}

/// What a build found, for `CompactMappings` to keep: absolute positions, offsets and accumulators.
pub(crate) struct Built {
    pub(crate) checkpoints: Vec<Checkpoint>,
    pub(crate) last_position: Option<(u32, u32)>,
    pub(crate) unsorted_lines: Vec<u32>,
    pub(crate) range_segments: Vec<(u32, u32)>,
    pub(crate) lines: u32,
    pub(crate) segments: u64,
    pub(crate) source_spans: Option<Vec<SourceSpan>>,
}

/// What one pass over a stretch of `mappings` found. Positions and offsets are relative to the stretch; sources
/// and accumulators too when the stretch was decoded relative (they are exact for the one pass).
struct Stretch {
    checkpoints: Vec<Checkpoint>,
    unsorted_lines: Vec<u32>,
    range_segments: Vec<(u32, u32)>,
    segments: u64,
    last_position: Option<(u32, u32)>,
    spans: SpanTable,
    /// Lines the stretch ended (its `;`s).
    lines_ended: u32,
    /// The accumulators at its end, and their extent (relative stretches only).
    end: [i64; 4],
    extent: Extent,
}

/// Per source, where its segments lie (see `SourceSpan`), indexed by a source index that a relative stretch may
/// see below 0. Dropped when an index reaches `max`, where the table would outweigh the VLQ.
struct SpanTable {
    from_zero: Vec<SourceSpan>,
    below_zero: Vec<SourceSpan>,
    max: usize,
    dropped: bool,
}

impl SpanTable {
    fn new(max: usize) -> Self {
        SpanTable {
            from_zero: Vec::new(),
            below_zero: Vec::new(),
            max,
            dropped: false,
        }
    }

    #[inline]
    fn add(&mut self, source: i64, offset: u32) {
        if self.dropped {
            return;
        }
        let (table, i) = if source >= 0 {
            (&mut self.from_zero, source as usize)
        } else {
            (&mut self.below_zero, (-source - 1) as usize)
        };
        if i >= table.len() {
            if i >= self.max {
                self.dropped = true;
                return;
            }
            table.resize(i + 1, SourceSpan::NONE);
        }
        table[i].add(offset);
    }
}

/// Validates `bytes` completely and builds the checkpoints. See the module documentation.
pub(crate) fn build(
    bytes: &[u8],
    limits: Limits,
    ranges: &[(u32, u32)],
) -> Result<Built, SegmentError> {
    // A table entry is 8 B; a table longer than a quarter of the VLQ bytes is not kept.
    let max_spans = bytes.len() / 4 + 16;
    if ranges.is_empty() {
        if let Some(built) = build_in_stretches(bytes, limits, max_spans, STRETCH_BYTES) {
            return Ok(built);
        }
    }
    let stretch = scan(
        SegmentCursor::new(bytes, limits),
        ranges,
        max_spans,
        bytes.len(),
    )?;
    Ok(finish(bytes, stretch))
}

/// Where each stretch after the first starts (just after a `;`), by the text's length alone; empty for one pass.
pub(crate) fn stretch_starts(bytes: &[u8], stretch_bytes: usize) -> Vec<usize> {
    let count = (bytes.len() / stretch_bytes).min(MAX_STRETCHES);
    let mut starts = Vec::new();
    if count < 2 {
        return starts;
    }
    for k in 1..count {
        let target = (bytes.len() / count * k).max(starts.last().copied().unwrap_or(0));
        match memchr::memchr(b';', &bytes[target..]) {
            Some(i) if target + i + 1 < bytes.len() => starts.push(target + i + 1),
            _ => break,
        }
    }
    starts.dedup();
    starts
}

/// The stretches decoded at once and joined, or `None` when the text is short or any stretch says the one pass
/// must decide (an error, or an accumulator out of range once its start is known).
pub(crate) fn build_in_stretches(
    bytes: &[u8],
    limits: Limits,
    max_spans: usize,
    stretch_bytes: usize,
) -> Option<Built> {
    let starts = stretch_starts(bytes, stretch_bytes);
    if starts.is_empty() {
        return None;
    }
    let bounds: Vec<(usize, usize)> = std::iter::once(0)
        .chain(starts.iter().copied())
        .zip(starts.iter().copied().chain(std::iter::once(bytes.len())))
        .collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(bounds.len());
    let decode = |first: usize| -> Vec<(usize, Option<Stretch>)> {
        (first..bounds.len())
            .step_by(threads)
            .map(|i| {
                let (from, to) = bounds[i];
                let cursor = SegmentCursor::relative(&bytes[from..to]);
                // A valid relative source is within ±(sources − 1): a table past that serves nothing (the extent
                // check refuses the stretch), and a malformed map must not grow it to `max_spans` entries.
                let spans = max_spans.min(limits.sources as usize);
                (i, scan(cursor, &[], spans, to - from).ok())
            })
            .collect()
    };
    let mut decoded: Vec<(usize, Option<Stretch>)> = std::thread::scope(|s| {
        let mut all = Vec::with_capacity(bounds.len());
        let mut others = Vec::new();
        for t in 1..threads {
            // A thread the system refuses (a container's process limit) is decoded here instead.
            match std::thread::Builder::new().spawn_scoped(s, move || decode(t)) {
                Ok(handle) => others.push(handle),
                Err(_) => all.extend(decode(t)),
            }
        }
        all.extend(decode(0));
        for handle in others {
            all.extend(handle.join().expect("a stretch's decoding panicked"));
        }
        all
    });
    decoded.sort_unstable_by_key(|(i, _)| *i);
    let stretches: Vec<Stretch> = decoded.into_iter().map(|(_, s)| s).collect::<Option<_>>()?;
    let joined = join(stretches, &bounds, limits, max_spans)?;
    Some(finish(bytes, joined))
}

/// The stretches as one, absolute: each one's positions, offsets, sources and accumulators moved by what the
/// stretches before it ended with. `None` when an accumulator leaves its range.
fn join(
    stretches: Vec<Stretch>,
    bounds: &[(usize, usize)],
    limits: Limits,
    max_spans: usize,
) -> Option<Stretch> {
    let mut start = [0i64; 4];
    let mut first_line = 0u32;
    let mut out = Stretch {
        checkpoints: Vec::with_capacity(stretches.iter().map(|s| s.checkpoints.len()).sum()),
        unsorted_lines: Vec::new(),
        range_segments: Vec::new(),
        segments: 0,
        last_position: None,
        spans: SpanTable::new(max_spans),
        lines_ended: 0,
        end: [0; 4],
        extent: Extent::default(),
    };
    for (stretch, &(from, _)) in stretches.into_iter().zip(bounds) {
        if !stretch.extent.fits(start, limits) {
            return None;
        }
        let shift = |a: Accumulators| Accumulators {
            source: a.source.wrapping_add(start[0] as u32),
            original_line: a.original_line.wrapping_add(start[1] as u32),
            original_column: a.original_column.wrapping_add(start[2] as u32),
            name: a.name.wrapping_add(start[3] as u32),
        };
        out.checkpoints
            .extend(stretch.checkpoints.iter().map(|cp| Checkpoint {
                offset: cp.offset + from as u32,
                line: cp.line + first_line,
                column: cp.column,
                accumulators: shift(cp.accumulators),
            }));
        out.unsorted_lines
            .extend(stretch.unsorted_lines.iter().map(|l| l + first_line));
        out.segments += stretch.segments;
        if let Some((line, column)) = stretch.last_position {
            out.last_position = Some((line + first_line, column));
        }
        out.spans.dropped |= stretch.spans.dropped;
        let spans = stretch
            .spans
            .from_zero
            .iter()
            .enumerate()
            .map(|(i, s)| (i as i64, s));
        let below = stretch
            .spans
            .below_zero
            .iter()
            .enumerate()
            .map(|(i, s)| (-(i as i64) - 1, s));
        for (source, span) in spans.chain(below).filter(|(_, s)| !s.is_empty()) {
            out.spans.add(start[0] + source, span.first + from as u32);
            out.spans.add(start[0] + source, span.last + from as u32);
        }
        for (f, total) in start.iter_mut().enumerate() {
            *total += stretch.end[f];
        }
        first_line += stretch.lines_ended;
    }
    Some(out)
}

/// One pass over a stretch (or the whole text): every segment validated as the cursor does, the checkpoints placed.
fn scan<const RELATIVE: bool>(
    mut cursor: SegmentCursor<'_, RELATIVE>,
    ranges: &[(u32, u32)],
    max_spans: usize,
    len: usize,
) -> Result<Stretch, SegmentError> {
    let mut next_range = 0usize;
    let mut range_segments = Vec::new();
    let mut checkpoints: Vec<Checkpoint> = Vec::with_capacity(len / CHECKPOINT_INTERVAL + 1);
    let mut unsorted_lines = Vec::new();
    let mut segments = 0u64;
    let mut last_cp_offset: Option<usize> = None;
    let mut line = u32::MAX;
    let mut line_first_offset = 0u32;
    let mut line_sorted = true;
    let mut prev_column = 0u32;
    let mut segment_in_line = 0u32;
    let mut last_position = None;
    let mut spans = SpanTable::new(max_spans);
    while let Some(seg) = {
        let acc = cursor.accumulators();
        cursor.next_segment().map(|r| r.map(|s| (s, acc)))
    } {
        let (seg, acc_before) = seg?;
        segments += 1;
        let first_in_line = seg.line != line;
        if first_in_line {
            line = seg.line;
            line_first_offset = seg.offset;
            line_sorted = true;
            segment_in_line = 0;
        } else if seg.column < prev_column && line_sorted {
            line_sorted = false;
            unsorted_lines.push(line);
            // Mid-line checkpoints on this line could skip a smaller column that comes later: drop them.
            while checkpoints
                .last()
                .is_some_and(|cp| cp.line == line && cp.offset > line_first_offset)
            {
                checkpoints.pop();
            }
            last_cp_offset = checkpoints.last().map(|cp| cp.offset as usize);
        }
        segment_in_line += 1;
        let eligible = first_in_line || (line_sorted && seg.column > prev_column);
        let far_enough =
            last_cp_offset.is_none_or(|o| seg.offset as usize - o >= CHECKPOINT_INTERVAL);
        if eligible && far_enough {
            checkpoints.push(Checkpoint {
                offset: seg.offset,
                line: seg.line,
                column: seg.column,
                accumulators: acc_before,
            });
            last_cp_offset = Some(seg.offset as usize);
        }
        if let Some(o) = seg.original {
            // A relative source is the difference of two indexes below 2^31, so it fits an `i32`.
            let source = if RELATIVE {
                i64::from(o.source as i32)
            } else {
                i64::from(o.source)
            };
            spans.add(source, seg.offset);
        }
        prev_column = seg.column;
        last_position = Some(match last_position {
            Some((l, c)) if l == seg.line => (l, seg.column.max(c)),
            _ => (seg.line, seg.column),
        });
        while let Some(&(rl, ri)) = ranges.get(next_range) {
            if (rl, ri) < (seg.line, segment_in_line) {
                return Err(range_out_of_range(rl, ri));
            }
            if (rl, ri) == (seg.line, segment_in_line) {
                range_segments.push((seg.line, seg.column));
                next_range += 1;
            } else {
                break;
            }
        }
    }
    if let Some(&(rl, ri)) = ranges.get(next_range) {
        return Err(range_out_of_range(rl, ri));
    }
    let (end, extent) = cursor.totals();
    Ok(Stretch {
        checkpoints,
        unsorted_lines,
        range_segments,
        segments,
        last_position,
        spans,
        lines_ended: cursor.line(),
        end,
        extent,
    })
}

fn finish(bytes: &[u8], s: Stretch) -> Built {
    let lines = if bytes.is_empty() {
        0
    } else {
        memchr::memchr_iter(b';', bytes).count() as u32 + 1
    };
    let mut range_segments = s.range_segments;
    range_segments.sort_unstable();
    Built {
        checkpoints: s.checkpoints,
        last_position: s.last_position,
        unsorted_lines: s.unsorted_lines,
        range_segments,
        lines,
        segments: s.segments,
        source_spans: (!s.spans.dropped).then_some(s.spans.from_zero),
    }
}

pub(crate) fn range_out_of_range(line: u32, index: u32) -> SegmentError {
    SegmentError {
        location: MappingsLocation {
            byte: 0,
            line,
            segment: index.saturating_sub(1),
        },
        message: format!(
            "rangeMappings: segment {index} of generated line {} does not exist in mappings",
            line + 1
        ),
    }
}

/// The one pass alone, for tests that compare it with the stretches.
#[cfg(test)]
pub(crate) fn build_in_one_pass(bytes: &[u8], limits: Limits) -> Result<Built, SegmentError> {
    let max_spans = bytes.len() / 4 + 16;
    let stretch = scan(
        SegmentCursor::new(bytes, limits),
        &[],
        max_spans,
        bytes.len(),
    )?;
    Ok(finish(bytes, stretch))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::internal::map::vlq::encode_signed;

    #[test]
    fn a_wild_relative_source_does_not_grow_the_span_table() {
        // Source +12,000,000 then −24,000,000, in a few bytes: a relative stretch cannot tell these are out of range
        // (its start is unknown), so its table is capped at the section's source count and the extent refuses it.
        let mut text = b"AAAA,C".to_vec();
        encode_signed(12_000_000, &mut text);
        text.extend_from_slice(b"AA,C");
        encode_signed(-24_000_000, &mut text);
        text.extend_from_slice(b"AA;");
        let limits = Limits {
            sources: 6,
            names: 0,
        };
        let stretch = scan(SegmentCursor::relative(&text), &[], 6, text.len()).unwrap();
        assert!(stretch.spans.from_zero.len() <= 6 && stretch.spans.below_zero.len() <= 6);
        assert!(stretch.spans.dropped);
        for start in 0..6 {
            assert!(!stretch.extent.fits([start, 0, 0, 0], limits));
        }
    }
}
