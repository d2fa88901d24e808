//! The two value types every layer of the index names: a source's id and a generated position.

/// A source, deduplicated across sections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceId(pub u32);

/// A generated position: 0-based line, 0-based column (UTF-16 code units).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct GeneratedPosition {
    pub line: u32,
    pub column: u32,
}
