//! Where a position of an open document is in its map: the map's own generated file, or, for a file Metro names as
//! a RAM bundle's module (`js-modules/12.js`) or a segment (`seg-3.js`) opened with the bundle's map (the `maps`
//! setting), where `sourcemap_core::internal::map::metro` places that file. Hover, go to definition and `originalPosition`
//! ask here, so a RAM bundle's module hovers as its frames are answered.

use sourcemap_core::internal::map::metro::{metro_file, Space};
use sourcemap_core::{GeneratedPosition, MapError, MappingHit, SourceMapIndex};
use tower_lsp::lsp_types::{Position, Url};

use crate::lsp::maps::loaded_map::LoadedMap;
use crate::lsp::protocol::position::to_generated;
use crate::lsp::workspace::map_fit::{fit_now, withheld};
use crate::lsp::workspace::snapshot::Snapshot;

/// A document position placed in its map.
#[derive(Debug, Clone, Copy)]
pub struct InMap {
    pub space: Space,
    /// The position in the map's coordinates of that file.
    pub at: GeneratedPosition,
    /// How many lines the map places before the document's first line (a module's `x_facebook_offsets`).
    pub lines_before: u32,
}

impl InMap {
    /// Whether the document is the map's bundle itself (its fit check and its code are the map's).
    pub fn is_the_bundle(&self) -> bool {
        self.space == Space::Main && self.lines_before == 0
    }

    /// A line of the map's coordinates as the document's line.
    pub fn document_line(&self, line: u32) -> u32 {
        line.saturating_sub(self.lines_before)
    }

    /// The segment at the position (`SourceMapIndex::answer_at`: the one rule of every answer), in the file's own
    /// sections.
    pub fn lookup<'a>(
        &self,
        index: &'a SourceMapIndex,
    ) -> Result<Option<MappingHit<'a>>, MapError> {
        index.answer_at_in(self.space, self.at)
    }
}

/// `position` of the document `uri` in `index`; `Err` says why the map cannot place it (a module or segment the
/// map lacks).
pub fn in_map(index: &SourceMapIndex, uri: &Url, position: Position) -> Result<InMap, String> {
    let p = to_generated(position);
    let name = uri
        .path_segments()
        .and_then(|mut s| s.next_back())
        .unwrap_or_default();
    let file = index.has_metro_files().then(|| metro_file(name)).flatten();
    match file {
        None => Ok(InMap {
            space: Space::Main,
            at: p,
            lines_before: 0,
        }),
        Some(file) => {
            let (space, at) = index.metro_position(file, p).map_err(|e| e.to_string())?;
            Ok(InMap {
                space,
                at,
                lines_before: at.line - p.line,
            })
        }
    }
}

/// `position` placed in its map where an answer may be given from it: `Err(why)` when the map lacks the module or
/// segment, or does not fit the bundle there (the fit check, computed when missing; a module's or segment's text is
/// not the bundle's, so it is not judged by it). Go to definition and `originalPosition` ask this.
pub fn answerable(
    b: &Snapshot<'_>,
    map: &LoadedMap,
    uri: &Url,
    position: Position,
) -> Result<InMap, String> {
    let placed = in_map(&map.index, uri, position)?;
    if placed.is_the_bundle() {
        let bundle = uri.to_file_path().ok();
        let report = tokio::task::block_in_place(|| fit_now(b, map, bundle.as_deref()));
        if let Some(why) = withheld(report.as_deref(), &map.index, to_generated(position)) {
            return Err(why);
        }
    }
    Ok(placed)
}
