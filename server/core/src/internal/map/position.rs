//! The value types every layer of the index names: a source's id, a generated position, and which generated file
//! of the map it is in.

/// A source, deduplicated across sections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceId(pub u32);

/// A generated position: 0-based line, 0-based column (UTF-16 code units).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct GeneratedPosition {
    /// 0-based.
    pub line: u32,
    /// 0-based, in UTF-16 code units.
    pub column: u32,
}

/// Which generated file of a map a position is in: the map's own, or a segment's (by its place in the index).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Space {
    /// The map's own generated file.
    #[default]
    Main,
    /// The segment at this place among the index's segments (not its id).
    Segment(usize),
}
