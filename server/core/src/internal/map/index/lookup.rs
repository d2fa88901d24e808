//! Generated → original lookups, and walks over every segment.

use super::{MappingHit, OriginalPosition, SourceMapIndex};
use crate::internal::map::compact::Bias;
use crate::internal::map::error::MapError;
use crate::internal::map::names::Names;
use crate::internal::map::position::{GeneratedPosition, Space};
use crate::internal::map::prefetch::prefetch;
use crate::internal::map::segment::{Segment, SegmentCursor, SegmentOriginal};

impl SourceMapIndex {
    fn hit(
        &self,
        section: usize,
        segment: &Segment,
        original: Option<SegmentOriginal>,
    ) -> MappingHit<'_> {
        let s = &self.sections[section];
        MappingHit {
            section,
            generated: s.to_global(segment.line, segment.column),
            original: original.map(|o| {
                let source = s.sources[o.source as usize];
                OriginalPosition {
                    source,
                    source_url: self.source(source).url.as_deref(),
                    line: o.line,
                    column: o.column,
                    name: o.name.and_then(|n| self.names_of(section).get(n as usize)),
                }
            }),
        }
    }

    /// The segment for a generated position (mozilla/source-map's `originalPositionFor` semantics; in an index map
    /// only the section containing the position is searched). `Ok(None)`: nothing on that line in that direction.
    pub fn lookup(
        &self,
        p: GeneratedPosition,
        bias: Bias,
    ) -> Result<Option<MappingHit<'_>>, MapError> {
        self.lookup_in(Space::Main, p, bias)
    }

    /// [`Self::lookup`] in a given generated file (a Metro segment's: `map/metro.rs`).
    pub fn lookup_in(
        &self,
        space: Space,
        p: GeneratedPosition,
        bias: Bias,
    ) -> Result<Option<MappingHit<'_>>, MapError> {
        let Some(section) = self.section_at_in(space, p) else {
            return Ok(None);
        };
        // The checkpoints first: the longest chain of cache misses starts there.
        let compact = self.compact(section)?;
        let s = &self.sections[section];
        // The answer's source and names: known before decoding, so their cache misses can overlap it.
        if let [only] = *s.sources {
            prefetch(&self.sources[only.0 as usize]);
        }
        if let Names::Table(t) = &s.names {
            t.prefetch();
        }
        let (line, column) = s
            .to_local(p)
            .expect("section_at returns a section at or before p");
        Ok(compact
            .lookup(s.mappings.bytes(&self.buffer), line, column, bias)
            .map(|hit| self.hit(section, &hit.segment, hit.original)))
    }

    /// The segment every answer at `p` comes from — hover, definition, `lookup`, a trace's frames, a profile's
    /// samples: the greatest lower bound on `p`'s line, and where several segments start at its generated position,
    /// the first written. One rule for every entry point. Where they differ, the first is the one the original
    /// program reports: a bundler writes the outermost expression starting at a column first (`new Error(` before
    /// `Error`; swc, Turbopack), and V8 reports a constructor call at `new` (the round-trip corpus, `tests/roundtrip.rs`;
    /// Next.js's `throw new Error` lines, `tests/frameworks.rs`). The same as `@jridgewell/trace-mapping` 0.3
    /// (`traceSegment`: `lowerBound` to the first equal) and mozilla/source-map 0.6.1 (`binary-search.js`: "Make sure we
    /// always return the smallest of these"); mozilla/source-map 0.7.4 and node's `SourceMap.findEntry` take the last
    /// (both run at each of Next.js's ties: `fixtures/nextjs/ties.mjs`), and so does Chrome DevTools' `findEntry`
    /// by its source (`upperBound - 1`).
    /// [`Self::lookup`] keeps mozilla 0.7's order, for its reference answers.
    pub fn answer_at(&self, p: GeneratedPosition) -> Result<Option<MappingHit<'_>>, MapError> {
        self.answer_at_in(Space::Main, p)
    }

    /// [`Self::answer_at`] in a given generated file.
    pub fn answer_at_in(
        &self,
        space: Space,
        p: GeneratedPosition,
    ) -> Result<Option<MappingHit<'_>>, MapError> {
        let Some(hit) = self.lookup_in(space, p, Bias::GreatestLowerBound)? else {
            return Ok(None);
        };
        let tied = self.all_at_in(space, hit.generated)?;
        Ok(Some(match tied.first() {
            Some(first) if tied.len() > 1 && first.generated == hit.generated => *first,
            _ => hit,
        }))
    }

    /// The original position for a generated position: `None` when nothing maps there or the segment found is a
    /// 1-field one.
    pub fn original_position(
        &self,
        p: GeneratedPosition,
        bias: Bias,
    ) -> Result<Option<OriginalPosition<'_>>, MapError> {
        Ok(self.lookup(p, bias)?.and_then(|h| h.original))
    }

    /// Every segment tied at the position a greatest-lower-bound lookup lands on (ECMA-426 `GetOriginalPositions`),
    /// in text order.
    pub fn all_at(&self, p: GeneratedPosition) -> Result<Vec<MappingHit<'_>>, MapError> {
        self.all_at_in(Space::Main, p)
    }

    /// [`Self::all_at`] in a given generated file.
    pub fn all_at_in(
        &self,
        space: Space,
        p: GeneratedPosition,
    ) -> Result<Vec<MappingHit<'_>>, MapError> {
        let Some(section) = self.section_at_in(space, p) else {
            return Ok(Vec::new());
        };
        let s = &self.sections[section];
        let (line, column) = s
            .to_local(p)
            .expect("section_at returns a section at or before p");
        let compact = self.compact(section)?;
        Ok(compact
            .all_at(s.mappings.bytes(&self.buffer), line, column)
            .iter()
            .map(|seg| self.hit(section, seg, seg.original))
            .collect())
    }

    /// Where the text mapped by the segment at `p` ends on its line (exclusive column), `None` for end of line.
    pub fn segment_end(&self, hit: &MappingHit<'_>) -> Result<Option<u32>, MapError> {
        let s = &self.sections[hit.section];
        let (line, column) = s
            .to_local(hit.generated)
            .expect("a hit lies in its section");
        let compact = self.compact(hit.section)?;
        Ok(compact
            .segment_end(s.mappings.bytes(&self.buffer), line, column)
            .map(|c| s.to_global(line, c).column))
    }

    /// Calls `f` with every segment of the map in generated order (section by section, text order within).
    pub fn for_each_segment(&self, mut f: impl FnMut(&MappingHit<'_>)) -> Result<(), MapError> {
        for i in 0..self.sections.len() {
            let compact = self.compact(i)?;
            let bytes = self.sections[i].mappings.bytes(&self.buffer);
            let end = self.section_end(i);
            compact.for_each(bytes, |seg| {
                if !Self::shadowed(end, seg) {
                    f(&self.hit(i, seg, seg.original))
                }
            });
        }
        Ok(())
    }

    /// Like [`Self::for_each_segment`], for one pass over a whole map: a section not indexed yet is decoded once,
    /// every rule checked on the way, without building (or keeping) its checkpoints. (`rangeMappings` are not read:
    /// they change lookups between segments, not the segments.)
    pub fn for_each_segment_once(
        &self,
        mut f: impl FnMut(&MappingHit<'_>),
    ) -> Result<(), MapError> {
        self.for_each_raw_segment_once(|i, seg| f(&self.hit(i, seg, seg.original)))
    }

    /// [`Self::for_each_segment_once`] with each segment as decoded: its section and section-relative position,
    /// names not looked up ([`Self::segment_name_if_loaded`], [`Section::to_global`](super::Section::to_global)). For passes over every segment
    /// that need names for few of them (the fit check).
    pub fn for_each_raw_segment_once(
        &self,
        f: impl FnMut(usize, &Segment),
    ) -> Result<(), MapError> {
        self.for_each_raw_segment_once_in(self.bundle_file_sections(), f)
    }

    /// [`Self::for_each_raw_segment_once`] over the sections in `sections` only.
    pub fn for_each_raw_segment_once_in(
        &self,
        sections: std::ops::Range<usize>,
        mut f: impl FnMut(usize, &Segment),
    ) -> Result<(), MapError> {
        for i in sections {
            let bytes = self.sections[i].mappings.bytes(&self.buffer);
            let end = self.section_end(i);
            if let Some(compact) = self.compact_if_built(i) {
                compact.for_each(bytes, |seg| {
                    if !Self::shadowed(end, seg) {
                        f(i, seg)
                    }
                });
                continue;
            }
            let mut cursor = SegmentCursor::new(bytes, self.limits(i));
            let mut last: Option<(u32, u32)> = None;
            while let Some(seg) = cursor.next_segment() {
                let seg = seg.map_err(|e| self.section_error(i, e))?;
                last = Some(match last {
                    Some((l, c)) if l == seg.line => (l, seg.column.max(c)),
                    _ => (seg.line, seg.column),
                });
                if !Self::shadowed(end, &seg) {
                    f(i, &seg);
                }
            }
            self.check_section_end(i, last)?;
        }
        Ok(())
    }

    /// [`CompactMappings::for_each_from`](crate::internal::map::compact::CompactMappings::for_each_from) on section `section` (its checkpoints built first): its segments from
    /// checkpoint `from` on, section-relative, until `f` returns false. For the fit check near frames.
    pub fn for_each_raw_segment_from(
        &self,
        section: usize,
        from: Option<usize>,
        f: impl FnMut(&Segment) -> bool,
    ) -> Result<(), MapError> {
        let compact = self.compact(section)?;
        let end = self.section_end(section);
        let mut f = f;
        compact.for_each_from(
            self.sections[section].mappings.bytes(&self.buffer),
            from,
            |seg| Self::shadowed(end, seg) || f(seg),
        );
        Ok(())
    }
}
