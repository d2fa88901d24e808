//! `textDocument/definition` on a bundle → the original position: a `file:` URI when the source resolves to a local
//! file, else a `sourcemap-source:` virtual document.

use sourcemap_core::Bias;
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{GotoDefinitionParams, GotoDefinitionResponse};

use super::document_place::in_map;
use super::original_location;
use crate::lsp::protocol::errors::request_failed;
use crate::lsp::protocol::position::to_generated;
use crate::lsp::workspace::backend::Backend;
use crate::lsp::workspace::map_fit::{fit_now, withheld};

pub async fn definition(
    b: &Backend,
    params: GotoDefinitionParams,
) -> Result<Option<GotoDefinitionResponse>> {
    let uri = params.text_document_position_params.text_document.uri;
    let position = params.text_document_position_params.position;
    let Ok(map) = b.map_of_bundle(&uri).await else {
        return Ok(None);
    };
    // Where the map does not fit this bundle, say so rather than go somewhere plausible and wrong.
    let bundle = uri.to_file_path().ok();
    // A RAM bundle's module or a segment is placed where the map has it (its fit is not the bundle's).
    let placed = match in_map(&map.index, &uri, position) {
        Ok(placed) => placed,
        Err(why) => return Err(request_failed(why)),
    };
    let report = placed
        .is_the_bundle()
        .then(|| tokio::task::block_in_place(|| fit_now(b, &map, bundle.as_deref())))
        .flatten();
    if let Some(why) = withheld(report.as_deref(), to_generated(position)) {
        return Err(request_failed(why));
    }
    // An invalid section has no answer; its error is published as a diagnostic.
    let Ok(original) = map
        .index
        .lookup_in(placed.space, placed.at, Bias::GreatestLowerBound)
        .map(|hit| hit.and_then(|h| h.original))
    else {
        return Ok(None);
    };
    Ok(original
        .and_then(|o| original_location(b, &map, &o))
        .map(GotoDefinitionResponse::Scalar))
}
