//! A frame with no column (Hermes' and Safari's line-only frames): the line's first segment, when the line's
//! segments agree on where it comes from.

use crate::map::compact::Bias;
use crate::map::index::{GeneratedPosition, SourceId, SourceMapIndex};
use crate::map::metro::Space;
use crate::MapError;

/// How many segments of a generated line a line-only frame looks at.
pub(super) const LINE_LEVEL_SEGMENTS: usize = 4096;

/// Why a line-only frame (a trace that gives no column) has no answer. The messages are the ones users see.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineLevelError {
    /// The map could not be decoded on that line.
    #[error("invalid map: {0}")]
    InvalidMap(MapError),
    /// No segment of the line maps anywhere.
    #[error("the trace gives no column, and nothing on this line of the bundle is mapped")]
    Unmapped,
    /// The line's segments map to more than one original line, so the column would decide.
    #[error(
        "the trace gives no column, and line {} of the bundle maps to more than one original line{}: there is no \
         column to go by",
        line + 1,
        if *one_line_bundle { " (a one-line bundle)" } else { "" }
    )]
    ManyLines {
        /// The generated line (0-based).
        line: u32,
        /// Whether the bundle is one line (the line is 0 and nothing is mapped on a next one).
        one_line_bundle: bool,
    },
}

/// Where a line-only frame on generated `line` is answered: the line's first segment, when every segment of the line
/// (up to `LINE_LEVEL_SEGMENTS`) maps to the same original line of the same source, so that the column cannot change
/// the answer at line level. Otherwise (a minified line holding many original lines) the reason there is no answer.
pub fn line_level(index: &SourceMapIndex, line: u32) -> Result<GeneratedPosition, LineLevelError> {
    line_level_in(index, Space::Main, line)
}

/// [`line_level`] in one generated file of the map (`map/metro.rs`).
pub fn line_level_in(
    index: &SourceMapIndex,
    space: Space,
    line: u32,
) -> Result<GeneratedPosition, LineLevelError> {
    let mut first = None;
    let mut places: Vec<(SourceId, u32)> = Vec::new();
    let mut column = 0;
    for _ in 0..LINE_LEVEL_SEGMENTS {
        let hit = match index.lookup_in(
            space,
            GeneratedPosition { line, column },
            Bias::LeastUpperBound,
        ) {
            Ok(Some(hit)) if hit.generated.line == line => hit,
            Ok(_) => break,
            Err(e) => return Err(LineLevelError::InvalidMap(e)),
        };
        if let Some(o) = hit.original {
            first.get_or_insert(hit.generated);
            if !places.contains(&(o.source, o.line)) {
                places.push((o.source, o.line));
                if places.len() > 1 {
                    break;
                }
            }
        }
        column = hit.generated.column + 1;
    }
    match (first, places.len()) {
        (Some(at), 1) => Ok(at),
        (None, _) => Err(LineLevelError::Unmapped),
        _ => Err(LineLevelError::ManyLines {
            line,
            one_line_bundle: line == 0
                && index
                    .lookup_in(
                        space,
                        GeneratedPosition { line: 1, column: 0 },
                        Bias::LeastUpperBound,
                    )
                    .ok()
                    .flatten()
                    .is_none(),
        }),
    }
}
