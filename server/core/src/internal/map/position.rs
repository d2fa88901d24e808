//! The value types every layer of the index names: a source's id, a generated position, which generated file of the
//! map it is in, and how a map's positions are moved to fit its text.

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

/// How a map's positions are moved to fit its text, when the fit check found that moving them makes every segment
/// fit (the fit check finds it: `bundle::fit`; `--apply-shift` looks frames up so moved): whole lines (a banner), or some lines' columns (text put at a
/// line's start).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Shift {
    /// Lines the text stands below the map's: text line = map line + `lines`.
    pub lines: i64,
    /// Per line (sorted), columns the text stands right of the map's on that line: text column = map column + n.
    pub columns: Vec<(u32, i64)>,
}

impl Shift {
    fn columns_on(&self, map_line: u32) -> i64 {
        self.columns
            .binary_search_by_key(&map_line, |&(line, _)| line)
            .map_or(0, |k| self.columns[k].1)
    }

    /// Where a position of the map is in the text; `None` off its start.
    pub fn to_text(&self, p: GeneratedPosition) -> Option<GeneratedPosition> {
        Some(GeneratedPosition {
            line: u32::try_from(i64::from(p.line) + self.lines).ok()?,
            column: u32::try_from(i64::from(p.column) + self.columns_on(p.line)).ok()?,
        })
    }

    /// Where a position of the text is in the map; `None` above the map's first line (in a banner) or left of a
    /// shifted line's start.
    pub fn to_map(&self, t: GeneratedPosition) -> Option<GeneratedPosition> {
        let line = u32::try_from(i64::from(t.line) - self.lines).ok()?;
        Some(GeneratedPosition {
            line,
            column: u32::try_from(i64::from(t.column) - self.columns_on(line)).ok()?,
        })
    }

    /// In words: `+8 lines`, `+3 columns on line 5`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.lines != 0 {
            parts.push(format!("{:+} lines", self.lines));
        }
        for &(line, n) in &self.columns {
            parts.push(format!("{n:+} columns on line {}", line + 1));
        }
        parts.join(", ")
    }
}
