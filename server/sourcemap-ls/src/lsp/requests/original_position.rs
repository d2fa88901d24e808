//! `sourcemap/originalPosition` `{textDocument:{uri}, position}` → `{source, uri, line, character, buildLine,
//! buildCharacter, name}` (0-based) or null. `line` and `character` are where `uri` opens: the build's position, or,
//! in a source file edited since the build, that line's place now (`requests::SourceUris::place`); `buildLine` and
//! `buildCharacter` are always the build's.

use serde::Serialize;
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{TextDocumentPositionParams, Url};

use super::document_place::answerable;
use super::original_location;
use crate::lsp::protocol::errors::{internal, request_failed};
use crate::lsp::workspace::snapshot::Snapshot;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    pub source: Option<String>,
    /// Where the editor can open it (file or virtual document); null when neither exists.
    pub uri: Option<Url>,
    pub line: u32,
    pub character: u32,
    pub build_line: u32,
    pub build_character: u32,
    pub name: Option<String>,
}

pub async fn original_position(
    b: &Snapshot<'_>,
    params: TextDocumentPositionParams,
) -> Result<Option<Answer>> {
    // A document without a (usable) map has no original position: null, as for an unmapped position.
    let Ok(map) = b.map_of_bundle(&params.text_document.uri).await else {
        return Ok(None);
    };
    // Where the map lacks the module or segment, or does not fit this bundle, say so rather than go somewhere
    // plausible and wrong.
    let uri = &params.text_document.uri;
    let position = b
        .position_in_build(uri, params.position)
        .map_err(request_failed)?;
    let placed = answerable(b, &map, uri, position).map_err(request_failed)?;
    let original = map
        .index
        .answer_at_in(placed.space, placed.at)
        .map(|hit| hit.and_then(|h| h.original))
        .map_err(|e| internal(e.to_string()))?;
    Ok(original.map(|o| {
        let location = original_location(b, &map, &o);
        let at = location.as_ref().map(|l| l.range.start);
        Answer {
            source: o.source_url.map(str::to_string),
            line: at.map_or(o.line, |p| p.line),
            character: at.map_or(o.column, |p| p.character),
            uri: location.map(|l| l.uri),
            build_line: o.line,
            build_character: o.column,
            name: o.name.map(str::to_string),
        }
    }))
}
