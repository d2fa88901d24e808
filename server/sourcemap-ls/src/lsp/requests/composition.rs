//! `sourcemap/composition` `{textDocument:{uri}}` of a bundle → what it is made of (`sourcemap_core::bundle::composition`,
//! source-map-explorer's rules): `{totalBytes, mappedBytes, unmappedBytes, eolBytes, sourceMapCommentBytes,
//! packages:[{name, size, files:[{source, size, uri}]}], html}`; `uri` is where the source opens (a local file, a
//! virtual document or a file copy, as for go to definition), `html` the treemap page. The bundle's text is its open
//! document, else the file. `null` when the document has no map.

use serde::Serialize;
use sourcemap_core::bundle::composition::{compose, source_names};
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::Url;

use super::{source_uri, DocumentParams};
use crate::lsp::protocol::errors::internal;
use crate::lsp::workspace::snapshot::Snapshot;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileSize {
    pub source: String,
    pub size: u64,
    pub uri: Option<Url>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PackageSize {
    pub name: String,
    pub size: u64,
    pub files: Vec<FileSize>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    pub total_bytes: u64,
    pub mapped_bytes: u64,
    pub unmapped_bytes: u64,
    pub eol_bytes: u64,
    pub source_map_comment_bytes: u64,
    pub packages: Vec<PackageSize>,
    pub html: String,
}

/// The biggest bundle read from disk for a composition (an open document is measured whatever its size).
const MAX_BUNDLE_BYTES: u64 = 1 << 30;

pub async fn composition(b: &Snapshot<'_>, params: DocumentParams) -> Result<Option<Answer>> {
    let uri = params.text_document.uri;
    let Ok(map) = b.map_of_bundle(&uri).await else {
        return Ok(None);
    };
    let text = match b.rope(&uri) {
        Some(rope) => rope.to_string().into_bytes(),
        None => {
            let Ok(path) = uri.to_file_path() else {
                return Ok(None);
            };
            tokio::task::spawn_blocking(move || {
                sourcemap_core::internal::fs::files::read_regular(&path, MAX_BUNDLE_BYTES)
            })
            .await
            .map_err(|e| internal(e.to_string()))?
            .map_err(|e| internal(format!("cannot read the bundle: {e}")))?
        }
    };
    tokio::task::block_in_place(|| {
        let c = compose(&map.index, &text).map_err(|e| internal(e.to_string()))?;
        let names = source_names(&map.index);
        let packages = c
            .packages(|id| names[id.0 as usize].as_str())
            .into_iter()
            .map(|p| PackageSize {
                name: p.name,
                size: p.bytes,
                files: p
                    .files
                    .into_iter()
                    .map(|(id, size)| FileSize {
                        source: names[id.0 as usize].clone(),
                        size,
                        uri: source_uri(b, &map, id),
                    })
                    .collect(),
            })
            .collect();
        let title = format!(
            "{} — bundle composition",
            uri.path_segments()
                .and_then(|mut s| s.next_back())
                .unwrap_or("bundle")
        );
        let html = crate::treemap::page(&crate::treemap::tree(&c, &names), &title);
        Ok(Some(Answer {
            total_bytes: c.total_bytes,
            mapped_bytes: c.mapped_bytes,
            unmapped_bytes: c.unmapped_bytes,
            eol_bytes: c.eol_bytes,
            source_map_comment_bytes: c.source_map_comment_bytes,
            packages,
            html,
        }))
    })
}
