//! `textDocument/documentSymbol` on a bundle: one symbol per module (a section of an index map, or a run of one
//! source in a flat map), named by its source path, spanning its generated range.

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{
    DocumentSymbol, DocumentSymbolParams, DocumentSymbolResponse, Position, Range, SymbolKind,
};

use crate::lsp::maps::outline::outline;
use crate::lsp::protocol::errors::internal;
use crate::lsp::workspace::snapshot::Snapshot;

pub async fn document_symbol(
    b: &Snapshot<'_>,
    params: DocumentSymbolParams,
) -> Result<Option<DocumentSymbolResponse>> {
    let uri = params.text_document.uri;
    let Ok(map) = b.map_of_bundle(&uri).await else {
        return Ok(None);
    };
    // The document's end closes the last module; an unopened bundle ends after its last line with mappings.
    let doc_end = b.build_rope(&uri).map(|r| {
        let last = r.len_lines().saturating_sub(1);
        Position::new(last as u32, r.line(last).len_utf16_cu() as u32)
    });
    let m = map.clone();
    let modules =
        tokio::task::spawn_blocking(move || m.outline.get_or_init(|| outline(&m.index)).clone())
            .await
            .map_err(|e| internal(format!("outline failed: {e}")))?;
    #[allow(deprecated)]
    let symbols = modules
        .iter()
        .filter_map(|module| {
            let start = Position::new(module.start.line, module.start.column);
            let end = match module.end {
                Some(e) => Position::new(e.line, e.column),
                None => doc_end
                    .filter(|e| *e >= start)
                    .unwrap_or(Position::new(start.line + 1, 0)),
            };
            // The range's end is exclusive: a module ending at the start of a line ends on the line before.
            let last_line = if end.character == 0 && end.line > start.line {
                end.line
            } else {
                end.line + 1
            };
            // The map's positions are the build text's: where they are today, in a bundle edited since (a module
            // whose start or end an edit removed has no range today).
            let range = b.range_from_build(&uri, Range::new(start, end))?;
            Some(DocumentSymbol {
                name: module.name.clone(),
                detail: Some(format!("lines {}–{last_line}", start.line + 1)),
                kind: SymbolKind::MODULE,
                tags: None,
                deprecated: None,
                range,
                selection_range: Range::new(range.start, range.start),
                children: None,
            })
        })
        .collect();
    Ok(Some(DocumentSymbolResponse::Nested(symbols)))
}
