//! `ReverseIndex`: for one source, every segment that maps into it, sorted by original position.
//!
//! Built on the first original → generated query for that source, from the sections that list the source only (in a
//! Metro index map that is one module's section), then cached by [`SourceMapIndex::reverse`].
//!
//! Cost: 20 B per segment of that source.
//!
//! Semantics are mozilla/source-map 0.7's `generatedPositionFor` / `allGeneratedPositionsFor` (pinned by
//! `fixtures/mozilla-reference/golden.json`): entries sorted by original line, column, name (absent first), then
//! generated position; an exact hit returns the last entry of its tie group, a greatest-lower-bound miss the last
//! entry before, a least-upper-bound miss the first after — across original lines, never across sources. On an index
//! map all sections that list the source are searched together, as if the map were flat (mozilla looks only at the
//! first such section, and its `allGeneratedPositionsFor` throws).
//!
//! [`SourceMapIndex::reverse`]: crate::internal::map::index::SourceMapIndex::reverse

use crate::internal::map::compact::Bias;
use crate::internal::map::position::GeneratedPosition;

/// A segment of one source, keyed by its original position.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct ReverseEntry {
    /// 0-based original line.
    pub original_line: u32,
    /// 0-based original column.
    pub original_column: u32,
    /// 0 when the segment has no name, else 1 + the name's index in its section (mozilla's order: unnamed first).
    name_key: u32,
    /// The segment's generated position, global (a section's offset applied).
    pub generated: GeneratedPosition,
}

impl ReverseEntry {
    /// `name`: the segment's name index in its section, if it has one.
    pub(crate) fn new(
        original_line: u32,
        original_column: u32,
        name: Option<u32>,
        generated: GeneratedPosition,
    ) -> Self {
        ReverseEntry {
            original_line,
            original_column,
            name_key: name.map_or(0, |n| n + 1),
            generated,
        }
    }
}

/// One source's segments, sorted by original position, name and generated position (see the module documentation).
#[derive(Debug, Clone, Default)]
pub struct ReverseIndex {
    entries: Box<[ReverseEntry]>,
}

impl ReverseIndex {
    /// One source's entries, in any order (`SourceMapIndex::reverse` collects them).
    pub(crate) fn from_unsorted(mut entries: Vec<ReverseEntry>) -> Self {
        entries.sort_unstable();
        ReverseIndex {
            entries: entries.into_boxed_slice(),
        }
    }

    /// How many segments map into the source.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no segment maps into the source.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Heap bytes held (20 B an entry).
    pub fn heap_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.entries)
    }

    fn key(e: &ReverseEntry) -> (u32, u32) {
        (e.original_line, e.original_column)
    }

    /// mozilla's `generatedPositionFor` (0-based line here).
    pub fn generated_position(&self, line: u32, column: u32, bias: Bias) -> Option<&ReverseEntry> {
        let lo = self
            .entries
            .partition_point(|e| Self::key(e) < (line, column));
        let hi = self
            .entries
            .partition_point(|e| Self::key(e) <= (line, column));
        if lo < hi {
            return self.entries.get(hi - 1);
        }
        match bias {
            Bias::GreatestLowerBound => lo.checked_sub(1).map(|i| &self.entries[i]),
            Bias::LeastUpperBound => self.entries.get(lo),
        }
    }

    /// mozilla's `allGeneratedPositionsFor` (0-based line here): without a column, every entry on the first original
    /// line at or after `line` that has any; with one, every entry at the first column at or after it on `line`.
    pub fn all_generated_positions(&self, line: u32, column: Option<u32>) -> &[ReverseEntry] {
        let start = self
            .entries
            .partition_point(|e| Self::key(e) < (line, column.unwrap_or(0)));
        let Some(found) = self.entries.get(start) else {
            return &[];
        };
        let rest = &self.entries[start..];
        let len = match column {
            None => rest.partition_point(|e| e.original_line == found.original_line),
            Some(_) if found.original_line != line => 0,
            Some(_) => rest.partition_point(|e| Self::key(e) == Self::key(found)),
        };
        &rest[..len]
    }

    /// Every entry, in original order.
    pub fn entries(&self) -> &[ReverseEntry] {
        &self.entries
    }
}
