//! `CompactMappings`: one section's `mappings`, kept as VLQ text, plus sparse checkpoints.
//!
//! A lookup searches the checkpoints ([`CheckpointTable`]) by generated (line, column), resumes decoding at the one at
//! or before its target and stops at the first segment past it, so it decodes at most about [`CHECKPOINT_INTERVAL`]
//! bytes of VLQ plus the rest of its own line's segments up to the target. Checkpoints are placed by bytes, not by
//! lines: a one-line minified bundle gets one every ~128 bytes inside the line, and a map of many short lines gets
//! one at a line start every ~128 bytes, so their cost is bounded by the VLQ size whatever the shape. On a sorted
//! line the scan keeps its state in locals and builds one `Segment`, for the answer
//! ([`ValidatedCursor::last_at_or_before`]).
//!
//! Cost: the VLQ bytes themselves (not copied: they stay in the map's file buffer), plus 20 B per checkpoint at one
//! checkpoint per ≥ 128 B of VLQ (≤ 0.16 B per VLQ byte), plus 4 B per generated line whose columns are not sorted
//! and 8 B per range mapping (both rare), plus 8 B per source the section's segments name (its `SourceSpan`; not kept
//! when that would exceed a quarter of the VLQ bytes). No decoded segments are retained. 256 B at 28 B a checkpoint
//! was the earlier trade; the denser, delta-coded table (with the lean scan and fewer cache misses) took lookups from
//! about level with the `sourcemap` crate to 1.9–2.0× it, at 1.16–1.18× the VLQ bytes (docs/PERFORMANCE.md).
//!
//! Invariants:
//! - a checkpoint stands at a segment that is the first of its line, or whose column is strictly greater than the
//!   column of the segment before it on a line that is sorted so far; so every segment tied with it at one generated
//!   position comes after it, and a lookup never misses a tie;
//! - lines whose columns go backwards are listed in `unsorted_lines`; they hold no mid-line checkpoint and a lookup on
//!   them decodes the whole line.

pub use crate::internal::map::checkpoints::Checkpoint;
use crate::internal::map::checkpoints::CheckpointTable;
use crate::internal::map::compact_build::Built;
pub use crate::internal::map::compact_build::{SourceSpan, CHECKPOINT_INTERVAL};
use crate::internal::map::error::MappingsLocation;
use crate::internal::map::prefetch::prefetch;
use crate::internal::map::segment::{
    Limits, LineScan, Segment, SegmentError, SegmentOriginal, ValidatedCursor,
};
use crate::internal::map::vlq;

/// Which way a lookup rounds when there is no segment exactly at the position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Bias {
    /// The closest segment at or before the column, on the same line (mozilla's default).
    #[default]
    GreatestLowerBound,
    /// The closest segment at or after the column, on the same line.
    LeastUpperBound,
}

/// The result of a generated → original lookup inside one section (section-relative positions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    /// The segment found.
    pub segment: Segment,
    /// Its original position, adjusted when the segment is a range mapping; `None` for a 1-field segment.
    pub original: Option<SegmentOriginal>,
}

/// See the module documentation.
///
/// What every lookup reads is inline (at most 48 bytes, tested; kept in the index's dense array of sections'
/// cells, so a lookup goes from that array straight to the checkpoint table); the rest is behind one box.
#[derive(Debug, Clone, Default)]
pub struct CompactMappings {
    checkpoints: CheckpointTable,
    /// Generated (line, column) of the last segment, for the index-map overlap check.
    last_position: Option<(u32, u32)>,
    /// Whether `cold.unsorted_lines` / `cold.range_segments` hold anything (nearly never): a lookup reads them only
    /// then.
    has_unsorted_lines: bool,
    has_range_segments: bool,
    cold: Box<ColdParts>,
}

/// The parts of [`CompactMappings`] a lookup rarely or never reads.
#[derive(Debug, Clone, Default)]
struct ColdParts {
    unsorted_lines: Box<[u32]>,
    /// Section-relative (line, column) of every range mapping (the `rangeMappings` proposal), sorted.
    range_segments: Box<[(u32, u32)]>,
    lines: u32,
    segments: u64,
    /// Per section-local source: byte offsets of its first and last segment, so that one source's reverse index
    /// decodes only that stretch (in a flat bundle a module's segments sit together). `None` when a map names
    /// source indexes so large that the table would outweigh the VLQ.
    source_spans: Option<Box<[SourceSpan]>>,
}

/// Parses `rangeMappings` into (line, 1-based segment index) pairs, sorted.
fn parse_range_mappings(text: &[u8]) -> Result<Vec<(u32, u32)>, SegmentError> {
    let mut out = Vec::new();
    let mut line = 0u32;
    let mut index = 0u64;
    let mut pos = 0;
    while pos < text.len() {
        if text[pos] == b';' {
            line += 1;
            index = 0;
            pos += 1;
            continue;
        }
        let start = pos;
        let err = |message: String| SegmentError {
            location: MappingsLocation {
                byte: start,
                line,
                segment: 0,
            },
            message,
        };
        let delta =
            vlq::decode_unsigned(text, &mut pos).map_err(|e| err(format!("rangeMappings: {e}")))?;
        if delta == 0 {
            return Err(err(
                "rangeMappings: a relative segment index of 0 is not allowed".into(),
            ));
        }
        index += delta;
        if index > u64::from(u32::MAX) {
            return Err(err("rangeMappings: segment index out of range".into()));
        }
        out.push((line, index as u32));
    }
    Ok(out)
}

impl CompactMappings {
    /// Validates `bytes` completely and builds the checkpoints (`compact_build`: in stretches at once when long).
    pub fn build(
        bytes: &[u8],
        limits: Limits,
        range_mappings: Option<&[u8]>,
    ) -> Result<Self, SegmentError> {
        if bytes.len() > u32::MAX as usize {
            return Err(SegmentError {
                location: MappingsLocation {
                    byte: 0,
                    line: 0,
                    segment: 0,
                },
                message: "mappings longer than 4 GiB are not supported".into(),
            });
        }
        let ranges = match range_mappings {
            Some(text) => parse_range_mappings(text)?,
            None => Vec::new(),
        };
        // A large section indexed before is read back from the disk cache (`index_cache`), checked, not rebuilt.
        crate::internal::map::index_cache::built_or(bytes, limits, range_mappings, || {
            crate::internal::map::compact_build::build(bytes, limits, &ranges)
        })
        .map(CompactMappings::from_built)
    }

    /// A section's mappings from what `compact_build` found.
    pub(crate) fn from_built(b: Built) -> Self {
        CompactMappings {
            checkpoints: CheckpointTable::new(&b.checkpoints),
            last_position: b.last_position,
            has_unsorted_lines: !b.unsorted_lines.is_empty(),
            has_range_segments: !b.range_segments.is_empty(),
            cold: Box::new(ColdParts {
                unsorted_lines: b.unsorted_lines.into_boxed_slice(),
                range_segments: b.range_segments.into_boxed_slice(),
                lines: b.lines,
                segments: b.segments,
                source_spans: b.source_spans.map(Vec::into_boxed_slice),
            }),
        }
    }

    /// Where the segments of any of these section-local sources lie: `None` when unknown (decode everything).
    pub fn span_of(&self, sources: impl IntoIterator<Item = u32>) -> Option<SourceSpan> {
        let spans = self.cold.source_spans.as_ref()?;
        let mut span = SourceSpan::NONE;
        for s in sources {
            if let Some(one) = spans.get(s as usize).filter(|one| !one.is_empty()) {
                span.add(one.first);
                span.add(one.last);
            }
        }
        Some(span)
    }

    /// Calls `f` with every segment from the last checkpoint at or before byte `span.first` through the segment at
    /// `span.last`, in text order (a superset of the span's segments: the caller filters).
    pub fn for_each_in(&self, bytes: &[u8], span: SourceSpan, mut f: impl FnMut(&Segment)) {
        if span.is_empty() {
            return;
        }
        let mut cursor = match self.checkpoints.at_or_before_offset(span.first) {
            Some(cp) => {
                ValidatedCursor::resume(bytes, cp.offset, cp.line, cp.column, cp.accumulators)
            }
            None => ValidatedCursor::new(bytes),
        };
        while let Some(seg) = cursor.next_segment() {
            if seg.offset > span.last {
                break;
            }
            f(&seg);
        }
    }

    /// How many segments `mappings` has.
    pub fn segment_count(&self) -> u64 {
        self.cold.segments
    }

    /// How many generated lines `mappings` has (one more than its `;`s, empty ones included; 0 for empty text).
    pub fn line_count(&self) -> u32 {
        self.cold.lines
    }

    /// How many checkpoints the table holds.
    pub fn checkpoint_count(&self) -> usize {
        self.checkpoints.len()
    }

    /// Generated position of the last segment (section-relative), with the largest column on that line.
    pub fn last_position(&self) -> Option<(u32, u32)> {
        self.last_position
    }

    /// Bytes of heap this structure holds beyond the VLQ text.
    pub fn heap_bytes(&self) -> usize {
        self.checkpoints.heap_bytes()
            + std::mem::size_of::<ColdParts>()
            + std::mem::size_of_val(&*self.cold.unsorted_lines)
            + std::mem::size_of_val(&*self.cold.range_segments)
            + self
                .cold
                .source_spans
                .as_ref()
                .map_or(0, |s| std::mem::size_of_val(&**s))
    }

    fn is_unsorted(&self, line: u32) -> bool {
        self.has_unsorted_lines && self.cold.unsorted_lines.binary_search(&line).is_ok()
    }

    fn is_range(&self, line: u32, column: u32) -> bool {
        self.has_range_segments
            && self
                .cold
                .range_segments
                .binary_search(&(line, column))
                .is_ok()
    }

    /// A cursor positioned so that every segment of `line` at or after `column` (all of the line when it is
    /// unsorted), and every segment tied with them, is still ahead.
    fn cursor_for<'a>(&self, bytes: &'a [u8], line: u32, column: u32) -> ValidatedCursor<'a> {
        let found = if self.is_unsorted(line) {
            // On an unsorted line the only checkpoint is at its first segment, whatever its column.
            self.checkpoints.last_at_or_before_line(line)
        } else {
            self.checkpoints.at_or_before(line, column)
        };
        match found {
            Some(cp) => {
                // The scan reads on average half an interval past the checkpoint, often a few cache lines: ask for
                // them together, so that their misses overlap instead of following one another.
                let start = cp.offset as usize;
                let end = bytes.len().min(start + CHECKPOINT_INTERVAL);
                for at in (start..end).step_by(64) {
                    prefetch(bytes[at..].as_ptr());
                }
                ValidatedCursor::resume(bytes, cp.offset, cp.line, cp.column, cp.accumulators)
            }
            None => ValidatedCursor::new(bytes),
        }
    }

    /// Calls `f` with every segment of `line`, in text order, starting near `column` on sorted lines (segments
    /// before `column` that cannot matter may be skipped). `f` returns false to stop.
    fn scan_line(&self, bytes: &[u8], line: u32, column: u32, mut f: impl FnMut(&Segment) -> bool) {
        let mut cursor = self.cursor_for(bytes, line, column);
        while let Some(seg) = cursor.next_segment() {
            if seg.line < line {
                continue;
            }
            if seg.line > line || !f(&seg) {
                break;
            }
        }
    }

    /// The segment for a generated position, with mozilla/source-map's semantics: never from another line; among
    /// segments tied at one position (ordered by [`tie_key`]) an exact hit or a greatest-lower-bound miss takes the
    /// last, a least-upper-bound miss the first.
    pub fn lookup(&self, bytes: &[u8], line: u32, column: u32, bias: Bias) -> Option<Hit> {
        let glb = self.lower_bound(bytes, line, column);
        if let Some(seg) = glb {
            if let Some(hit) = self.range_hit(&seg, line, column) {
                return Some(hit);
            }
        } else if self.has_range_segments {
            if let Some(hit) = self.range_from_previous_line(bytes, line, column) {
                return Some(hit);
            }
        }
        let seg = match (bias, glb) {
            (Bias::GreatestLowerBound, _) => glb?,
            (Bias::LeastUpperBound, Some(exact)) if exact.column == column => exact,
            (Bias::LeastUpperBound, _) => self.upper_bound(bytes, line, column)?,
        };
        Some(Hit {
            segment: seg,
            original: seg.original,
        })
    }

    fn range_hit(&self, seg: &Segment, line: u32, column: u32) -> Option<Hit> {
        if seg.line != line || !self.is_range(seg.line, seg.column) {
            return None;
        }
        let mut original = seg.original?;
        original.column = original.column.saturating_add(column - seg.column);
        Some(Hit {
            segment: *seg,
            original: Some(original),
        })
    }

    /// A range mapping covers the text after it up to the next segment, across line breaks: a position on a line
    /// before that line's first segment may still be covered by a range mapping that ends an earlier line.
    fn range_from_previous_line(&self, bytes: &[u8], line: u32, column: u32) -> Option<Hit> {
        let ranges = &self.cold.range_segments;
        let idx = ranges.partition_point(|&(l, _)| l < line);
        let (rl, rc) = ranges[idx.checked_sub(1)?];
        // Find the last segment before `line` and check that it is that range mapping.
        let mut cursor = self.cursor_for(bytes, rl, rc);
        let mut last: Option<Segment> = None;
        while let Some(seg) = cursor.next_segment() {
            if seg.line >= line {
                break;
            }
            last = Some(seg);
        }
        let last = last?;
        if (last.line, last.column) != (rl, rc) {
            return None;
        }
        let mut original = last.original?;
        original.line = original.line.saturating_add(line - last.line);
        original.column = column;
        Some(Hit {
            segment: last,
            original: Some(original),
        })
    }

    /// The segment at the greatest column ≤ `column` on `line`; among ties, the last by [`tie_key`].
    pub fn lower_bound(&self, bytes: &[u8], line: u32, column: u32) -> Option<Segment> {
        if self.last_position.is_none_or(|(last, _)| line > last) {
            return None;
        }
        let sorted = !self.is_unsorted(line);
        if sorted {
            match self
                .cursor_for(bytes, line, column)
                .last_at_or_before(line, column)
            {
                LineScan::Found(seg) => return Some(seg),
                LineScan::Nothing => return None,
                LineScan::Tied => {}
            }
        }
        let mut best: Option<Segment> = None;
        self.scan_line(bytes, line, column, |seg| {
            if seg.column > column {
                return !sorted;
            }
            let better = match &best {
                None => true,
                Some(b) => (seg.column, tie_key(seg)) > (b.column, tie_key(b)),
            };
            if better {
                best = Some(*seg);
            }
            true
        });
        best
    }

    /// The segment at the least column ≥ `column` on `line`; among ties, the first by [`tie_key`].
    pub fn upper_bound(&self, bytes: &[u8], line: u32, column: u32) -> Option<Segment> {
        let sorted = !self.is_unsorted(line);
        let mut best: Option<Segment> = None;
        self.scan_line(bytes, line, column, |seg| {
            if seg.column < column {
                return true;
            }
            let better = match &best {
                None => true,
                Some(b) if sorted && seg.column > b.column => return false,
                Some(b) => (seg.column, tie_key(seg)) < (b.column, tie_key(b)),
            };
            if better {
                best = Some(*seg);
            }
            true
        });
        best
    }

    /// Every segment at the generated position the greatest-lower-bound lookup lands on, in text order
    /// (ECMA-426 `GetOriginalPositions`).
    pub fn all_at(&self, bytes: &[u8], line: u32, column: u32) -> Vec<Segment> {
        let Some(found) = self.lower_bound(bytes, line, column) else {
            return Vec::new();
        };
        let sorted = !self.is_unsorted(line);
        let mut out = Vec::new();
        self.scan_line(bytes, line, found.column, |seg| {
            if seg.column == found.column {
                out.push(*seg);
            }
            // A sorted line has nothing more at this column once a later one shows (a one-line bundle would
            // otherwise be decoded to its end).
            !sorted || seg.column <= found.column
        });
        out
    }

    /// The generated column where the text mapped by the segment at `column` ends (exclusive): the next greater
    /// column on the line, or `None` when the segment runs to the end of the line.
    pub fn segment_end(&self, bytes: &[u8], line: u32, column: u32) -> Option<u32> {
        let mut end: Option<u32> = None;
        let sorted = !self.is_unsorted(line);
        self.scan_line(bytes, line, column, |seg| {
            if seg.column > column {
                end = Some(end.map_or(seg.column, |e| e.min(seg.column)));
                return !sorted;
            }
            true
        });
        end
    }

    /// The index of the last checkpoint at or before generated (line, column), if any (a binary search over
    /// [`CheckpointTable::get`]: O(log n) checkpoints decoded).
    pub fn checkpoint_at_or_before(&self, line: u32, column: u32) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.checkpoints.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            let cp = self.checkpoints.get(mid);
            if (cp.line, cp.column) <= (line, column) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo.checked_sub(1)
    }

    /// The byte offset in the VLQ of checkpoint `i`.
    pub fn checkpoint_offset(&self, i: usize) -> u32 {
        self.checkpoints.get(i).offset
    }

    /// Calls `f` with every segment from checkpoint `from` on (from the first segment when `None`), in text order,
    /// until `f` returns false. Reads only what `f` asks for: a stretch of a large map costs its own VLQ.
    pub fn for_each_from(
        &self,
        bytes: &[u8],
        from: Option<usize>,
        mut f: impl FnMut(&Segment) -> bool,
    ) {
        let mut cursor = match from {
            Some(i) => {
                let cp = self.checkpoints.get(i);
                ValidatedCursor::resume(bytes, cp.offset, cp.line, cp.column, cp.accumulators)
            }
            None => ValidatedCursor::new(bytes),
        };
        while let Some(seg) = cursor.next_segment() {
            if !f(&seg) {
                return;
            }
        }
    }

    /// Every segment in text order.
    pub fn for_each(&self, bytes: &[u8], mut f: impl FnMut(&Segment)) {
        let mut cursor = ValidatedCursor::new(bytes);
        while let Some(seg) = cursor.next_segment() {
            f(&seg);
        }
    }
}

/// The order mozilla/source-map 0.7 sorts segments at one generated position in: source index, original line,
/// original column, name (absent first); 1-field segments after all others. Checked against its recorded answers in
/// `fixtures/mozilla-reference/golden.json`.
pub fn tie_key(s: &Segment) -> (bool, u32, u32, u32, bool, u32) {
    match s.original {
        None => (true, 0, 0, 0, false, 0),
        Some(o) => (
            false,
            o.source,
            o.line,
            o.column,
            o.name.is_some(),
            o.name.unwrap_or(0),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        sources: 4,
        names: 4,
    };

    fn build(text: &str) -> CompactMappings {
        CompactMappings::build(text.as_bytes(), LIMITS, None).unwrap()
    }

    #[test]
    fn glb_and_lub_stay_on_their_line() {
        // line 0: col 2 → (0,0,0); col 6 → (0,0,4). line 1: col 3 → (0,1,0).
        let text = "EAAA,IAAI;GACJ";
        let m = build(text);
        let b = text.as_bytes();
        let col = |hit: Option<Hit>| hit.map(|h| h.segment.column);
        assert_eq!(col(m.lookup(b, 0, 0, Bias::GreatestLowerBound)), None);
        assert_eq!(col(m.lookup(b, 0, 0, Bias::LeastUpperBound)), Some(2));
        assert_eq!(col(m.lookup(b, 0, 5, Bias::GreatestLowerBound)), Some(2));
        assert_eq!(col(m.lookup(b, 0, 5, Bias::LeastUpperBound)), Some(6));
        assert_eq!(col(m.lookup(b, 0, 99, Bias::LeastUpperBound)), None);
        assert_eq!(col(m.lookup(b, 1, 0, Bias::GreatestLowerBound)), None);
        assert_eq!(col(m.lookup(b, 1, 9, Bias::GreatestLowerBound)), Some(3));
        assert_eq!(col(m.lookup(b, 2, 0, Bias::LeastUpperBound)), None);
    }

    #[test]
    fn a_sources_span_covers_its_segments_and_reverse_reads_only_that_stretch() {
        // 3,000 segments on one line: source 0 for the first 1,000, source 1 for the next 1,000, then source 0.
        let mut text = Vec::new();
        let (mut prev_col, mut prev_src) = (0i64, 0i64);
        let source_of = |i: i64| if (1000..2000).contains(&i) { 1 } else { 0 };
        for i in 0..3000i64 {
            if i > 0 {
                text.push(b',');
            }
            vlq::encode_signed(i * 2 - prev_col, &mut text);
            vlq::encode_signed(source_of(i) - prev_src, &mut text);
            text.extend_from_slice(b"AA");
            (prev_col, prev_src) = (i * 2, source_of(i));
        }
        let m = CompactMappings::build(&text, LIMITS, None).unwrap();
        let collect = |span: SourceSpan, source: u32| {
            let mut columns = Vec::new();
            m.for_each_in(&text, span, |seg| {
                if seg.original.map(|o| o.source) == Some(source) {
                    columns.push(seg.column);
                }
            });
            columns
        };
        let one = m.span_of([1]).unwrap();
        assert_eq!(
            collect(one, 1),
            (1000..2000).map(|i| i * 2).collect::<Vec<u32>>()
        );
        // Decoding starts at the checkpoint before the span, not at the start of the line.
        let mut visited = 0;
        m.for_each_in(&text, one, |_| visited += 1);
        assert!(
            visited < 1200,
            "visited {visited} segments for a 1,000-segment span"
        );
        let zero = m.span_of([0]).unwrap();
        assert_eq!(collect(zero, 0).len(), 2000);
        assert!(m.span_of([2]).unwrap().is_empty());
        assert!(m.span_of([0, 1]).is_some_and(|s| s.first == 0));
    }

    #[test]
    fn a_huge_source_index_drops_the_span_table() {
        // One segment naming source 2^20 in a few bytes: a dense table would be 8 MB for 7 bytes of VLQ.
        let mut text = b"A".to_vec();
        vlq::encode_signed(1 << 20, &mut text);
        text.extend_from_slice(b"AA");
        let limits = Limits {
            sources: (1 << 20) + 1,
            names: 0,
        };
        let m = CompactMappings::build(&text, limits, None).unwrap();
        assert_eq!(m.span_of([0]), None);
        assert!(m.heap_bytes() < 1000);
    }

    #[test]
    fn long_line_gets_inner_checkpoints() {
        let mut text = Vec::new();
        let mut prev = 0i64;
        for i in 0..10_000i64 {
            if i > 0 {
                text.push(b',');
            }
            vlq::encode_signed(i * 3 - prev, &mut text);
            prev = i * 3;
            text.extend_from_slice(b"ACA");
        }
        let m = CompactMappings::build(&text, LIMITS, None).unwrap();
        assert!(m.checkpoint_count() > 100, "{}", m.checkpoint_count());
        assert!(
            m.heap_bytes() * 4 < text.len(),
            "checkpoints must stay small"
        );
        for i in [0u32, 1, 777, 5000, 9999] {
            let hit = m
                .lookup(&text, 0, i * 3 + 1, Bias::GreatestLowerBound)
                .unwrap();
            assert_eq!(hit.segment.column, i * 3);
            assert_eq!(hit.original.unwrap().line, i + 1);
        }
    }
}

#[cfg(test)]
mod layout {
    /// The inline part stays small: every section of an index map has a cell of this size, built or not.
    #[test]
    fn the_inline_part_is_at_most_48_bytes() {
        assert!(std::mem::size_of::<super::CompactMappings>() <= 48);
    }
}

/// `compact_build`'s stretches against its one pass, through the lookups (here: the build cannot import this file).
#[cfg(test)]
mod stretch_tests {
    use super::*;
    use crate::internal::map::compact_build::{
        build_in_one_pass, build_in_stretches, stretch_starts, MAX_STRETCHES, STRETCH_BYTES,
    };
    use crate::internal::map::vlq;
    use proptest::prelude::*;

    const LIMITS: Limits = Limits {
        sources: 6,
        names: 5,
    };

    /// One pass, as before stretches existed: the reference.
    fn one_pass(bytes: &[u8], limits: Limits) -> Result<CompactMappings, SegmentError> {
        build_in_one_pass(bytes, limits).map(CompactMappings::from_built)
    }

    /// Stretches of about 64 bytes (at most 16 of them).
    fn stretched(bytes: &[u8], limits: Limits) -> Option<CompactMappings> {
        build_in_stretches(bytes, limits, bytes.len() / 4 + 16, 64).map(CompactMappings::from_built)
    }

    /// A segment as generated, absolute: generated column, then (source, line, column, name).
    type Generated = (u32, Option<(u32, u32, u32, Option<u32>)>);

    fn encode(lines: &[Vec<Generated>]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut acc = [0i64; 4];
        for (i, line) in lines.iter().enumerate() {
            if i > 0 {
                out.push(b';');
            }
            let mut column = 0i64;
            for (j, &(c, original)) in line.iter().enumerate() {
                if j > 0 {
                    out.push(b',');
                }
                vlq::encode_signed(i64::from(c) - column, &mut out);
                column = i64::from(c);
                if let Some((s, l, oc, name)) = original {
                    for (f, v) in [s, l, oc].into_iter().enumerate() {
                        vlq::encode_signed(i64::from(v) - acc[f], &mut out);
                        acc[f] = i64::from(v);
                    }
                    if let Some(n) = name {
                        vlq::encode_signed(i64::from(n) - acc[3], &mut out);
                        acc[3] = i64::from(n);
                    }
                }
            }
        }
        out
    }

    fn segment() -> impl Strategy<Value = Generated> {
        let original = (
            0..6u32,
            0..3000u32,
            0..200u32,
            proptest::option::of(0..5u32),
        );
        (0..400u32, proptest::option::weighted(0.85, original))
    }

    /// Lines of segments; mostly sorted by column, as producers write them, with some that are not.
    fn mappings() -> impl Strategy<Value = Vec<Vec<Generated>>> {
        let line = (
            proptest::collection::vec(segment(), 0..12),
            any::<bool>(),
            0..8u8,
        );
        proptest::collection::vec(line, 1..120).prop_map(|lines| {
            lines
                .into_iter()
                .map(|(mut segs, _, unsorted)| {
                    if unsorted != 0 {
                        segs.sort_by_key(|s| s.0);
                    }
                    segs
                })
                .collect()
        })
    }

    /// Every answer a built section gives, at and around every segment and per source.
    fn answers(m: &CompactMappings, bytes: &[u8]) -> Vec<String> {
        let mut out = vec![format!(
            "{} segments, {} lines, last {:?}",
            m.segment_count(),
            m.line_count(),
            m.last_position()
        )];
        let mut positions = Vec::new();
        m.for_each(bytes, |s| positions.push((s.line, s.column)));
        for (line, column) in positions {
            for c in [column.saturating_sub(1), column, column + 1] {
                out.push(format!(
                    "{line}:{c} {:?} {:?} {:?}",
                    m.lookup(bytes, line, c, Bias::GreatestLowerBound),
                    m.lookup(bytes, line, c, Bias::LeastUpperBound),
                    m.all_at(bytes, line, c)
                ));
            }
        }
        for source in 0..LIMITS.sources {
            out.push(format!("source {source}: {:?}", m.span_of([source])));
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Built in stretches or in one pass, a section answers the same everywhere.
        #[test]
        fn stretches_answer_as_one_pass_does(lines in mappings()) {
            let bytes = encode(&lines);
            let reference = one_pass(&bytes, LIMITS).unwrap();
            let built = stretched(&bytes, LIMITS);
            if stretch_starts(&bytes, 64).is_empty() {
                prop_assert!(built.is_none());
            } else {
                let built = built.expect("valid mappings are built in stretches");
                prop_assert_eq!(answers(&built, &bytes), answers(&reference, &bytes));
            }
        }

        /// A source or name index out of range anywhere, even where a stretch alone cannot tell, is never built in
        /// stretches: the one pass reports it, as it always did.
        #[test]
        fn an_index_out_of_range_is_left_to_the_one_pass(lines in mappings(), sources in 1..6u32, names in 1..5u32) {
            let bytes = encode(&lines);
            let limits = Limits { sources, names };
            match one_pass(&bytes, limits) {
                Ok(reference) => {
                    if let Some(built) = stretched(&bytes, limits) {
                        prop_assert_eq!(answers(&built, &bytes), answers(&reference, &bytes));
                    }
                }
                Err(_) => prop_assert!(stretched(&bytes, limits).is_none()),
            }
        }
    }

    #[test]
    fn the_public_build_gives_the_one_pass_error_for_broken_text_in_a_late_stretch() {
        // Balanced: each line ends with the accumulators it started with. 9 MB, so at least two stretches.
        let line = "AAAA,CACA,CADA;".repeat(600_000);
        let mut text = line.clone().into_bytes();
        assert!(!stretch_starts(&text, STRETCH_BYTES).is_empty());
        assert!(CompactMappings::build(&text, LIMITS, None).is_ok());
        // A source index of 6 (out of range) near the end: no stretch sees it as absolute.
        let at = text.len() - 15;
        text[at..at + 4].copy_from_slice(b"AMAA");
        let built = CompactMappings::build(&text, LIMITS, None).unwrap_err();
        assert_eq!(built, one_pass(&text, LIMITS).unwrap_err());
        assert!(built.message.contains("source index"), "{}", built.message);
        // A syntax error in the middle.
        let mut text = line.into_bytes();
        let at = text.len() / 2;
        text[at] = b'!';
        let built = CompactMappings::build(&text, LIMITS, None).unwrap_err();
        assert_eq!(built, one_pass(&text, LIMITS).unwrap_err());
    }

    #[test]
    fn stretches_start_after_a_semicolon_and_depend_on_the_length_only() {
        let text = "AAAA,CAAC;".repeat(10_000).into_bytes();
        let starts = stretch_starts(&text, 4096);
        assert_eq!(starts.len(), MAX_STRETCHES - 1);
        assert!(starts.windows(2).all(|w| w[0] < w[1]));
        assert!(starts.iter().all(|&s| text[s - 1] == b';'));
        assert!(stretch_starts(&text, text.len() / 2 + 1).is_empty());
        assert!(stretch_starts(b"AAAA,CAAC", 1).is_empty());
    }
}
