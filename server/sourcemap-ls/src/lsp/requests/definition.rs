//! `textDocument/definition` on a bundle → the original position: a `file:` URI when the source resolves to a local
//! file, else a `sourcemap-source:` virtual document.

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{GotoDefinitionParams, GotoDefinitionResponse};

use super::document_place::answerable;
use super::original_location;
use crate::lsp::protocol::errors::request_failed;
use crate::lsp::workspace::snapshot::Snapshot;

pub async fn definition(
    b: &Snapshot<'_>,
    params: GotoDefinitionParams,
) -> Result<Option<GotoDefinitionResponse>> {
    let uri = params.text_document_position_params.text_document.uri;
    // Today's position in the build's text the map describes (`edit_log`); text an edit wrote has no definition.
    let position = b
        .position_in_build(&uri, params.text_document_position_params.position)
        .map_err(request_failed)?;
    let Ok(map) = b.map_of_bundle(&uri).await else {
        return Ok(None);
    };
    // Where the map lacks the module or segment, or does not fit this bundle, say so rather than go somewhere
    // plausible and wrong.
    let placed = answerable(b, &map, &uri, position).map_err(request_failed)?;
    // An invalid section has no answer; its error is published as a diagnostic.
    let Ok(original) = map
        .index
        .answer_at_in(placed.space, placed.at)
        .map(|hit| hit.and_then(|h| h.original))
    else {
        return Ok(None);
    };
    let location = original.and_then(|o| original_location(b, &map, &o));
    b.still_at(&uri)?;
    Ok(location.map(GotoDefinitionResponse::Scalar))
}
