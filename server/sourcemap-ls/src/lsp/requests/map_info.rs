//! `sourcemap/mapInfo` `{textDocument:{uri}}` → which map a bundle uses, how it was found, and what its index holds:
//! `{map, foundBy, mapBytes, isIndexMap, sections, sectionsIndexed, segments, mappingsBytes, indexBytes, names,
//! debugId, sources:[{url, uri, ignored}]}` (`segments` counts the sections indexed so far; the index is built lazily).

use serde::{Deserialize, Serialize};
use sourcemap_core::SourceId;
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{TextDocumentIdentifier, Url};

use sourcemap_core::fit::Verdict;

use super::source_uri;
use crate::lsp::map_fit::fit_now;
use crate::lsp::server::{internal, Backend};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Params {
    pub text_document: TextDocumentIdentifier,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceInfo {
    pub url: Option<String>,
    pub uri: Option<Url>,
    pub ignored: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    /// The map file, or `null` for an inline map.
    pub map: Option<String>,
    pub found_by: &'static str,
    pub map_bytes: usize,
    pub is_index_map: bool,
    pub sections: usize,
    pub sections_indexed: usize,
    pub segments: u64,
    pub mappings_bytes: usize,
    /// Heap held for the mappings now: the VLQ text plus the checkpoints of the sections indexed so far.
    pub index_bytes: usize,
    pub names: usize,
    pub debug_id: Option<String>,
    pub sources: Vec<SourceInfo>,
    /// Whether the map fits this bundle (`sourcemap_core::fit`): `{verdict: fits|misfit|unknown, message}`.
    pub fit: Option<FitInfo>,
}

#[derive(Debug, Serialize)]
pub struct FitInfo {
    pub verdict: &'static str,
    pub message: String,
}

pub async fn map_info(b: &Backend, params: Params) -> Result<Option<Answer>> {
    let uri = params.text_document.uri;
    let Ok((_, found)) = b.bundle_map(&uri).await else {
        return Ok(None);
    };
    let map = b.load(&found).await.map_err(|e| internal(e.to_string()))?;
    let index = &map.index;
    let bundle = uri.to_file_path().ok();
    let fit =
        tokio::task::block_in_place(|| fit_now(b, &map, bundle.as_deref())).map(|r| FitInfo {
            verdict: match r.verdict {
                Verdict::Fits => "fits",
                Verdict::Misfit => "misfit",
                Verdict::Unknown => "unknown",
            },
            message: match r.unknown_because {
                Some(why) => format!("not checked: {why}"),
                None => r.message(),
            },
        });
    let mut segments = 0;
    let mut indexed = 0;
    for i in 0..index.sections().len() {
        if let Some(c) = index.compact_if_built(i) {
            segments += c.segment_count();
            indexed += 1;
        }
    }
    Ok(Some(Answer {
        map: map.key.file().map(|p| p.display().to_string()),
        found_by: found.found_by,
        map_bytes: index.buffer().len(),
        is_index_map: index.is_index_map,
        sections: index.sections().len(),
        sections_indexed: indexed,
        segments,
        mappings_bytes: index.mappings_bytes(),
        index_bytes: index.mappings_bytes() + index.checkpoint_heap_bytes(),
        names: index.sections().iter().map(|s| s.names_len()).sum(),
        debug_id: index.debug_id.clone(),
        sources: (0..index.sources().len())
            .map(|i| {
                let id = SourceId(i as u32);
                SourceInfo {
                    url: index.source(id).url.as_deref().map(str::to_string),
                    uri: source_uri(b, &map, id),
                    ignored: index.is_ignored(id),
                }
            })
            .collect(),
        fit,
    }))
}
