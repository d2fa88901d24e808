//! `sourcemap/mapInfo` `{textDocument:{uri}}` → for any `file:` document, what the server knows of its map, so that
//! a client shows it without finding maps itself: `{bundle, bundleBytes, sourceMappingUrl, map, foundBy, mapBytes,
//! problem, tried}`, and once a map is loaded what its index holds: `{isIndexMap, sections, sectionsIndexed,
//! segments, mappingsBytes, indexBytes, names, debugId, sources:[{url, uri, ignored}], fit, memory}` (`segments`
//! counts the sections indexed so far; the index is built lazily), and always the server's memory: `caches` (the
//! one cache budget, what is used of it, evictions so far, and each kind of cache summed over the maps loaded) and
//! `heapBytes` (the process's live heap). `null` for other URIs.

use std::path::Path;

use serde::Serialize;
use sourcemap_core::SourceId;
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::Url;

use sourcemap_core::bundle::fit::Verdict;

use super::{source_uri, DocumentParams};
use crate::lsp::maps::bundles::comment_url;
use crate::lsp::maps::loaded_map::LoadedMap;
use crate::lsp::maps::map_key::MapKey;
use crate::lsp::workspace::map_fit::fit_now;
use crate::lsp::workspace::map_resolution::MapProblem;
use crate::lsp::workspace::snapshot::Snapshot;
use sourcemap_core::internal::budget::{BudgetReport, CacheUsage};

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
    pub bundle: String,
    /// The document's size on disk.
    pub bundle_bytes: Option<u64>,
    /// The `sourceMappingURL` comment as written (a `data:` URL shortened).
    pub source_mapping_url: Option<String>,
    /// The map file, or `null` for an inline map or none.
    pub map: Option<String>,
    pub found_by: Option<&'static str>,
    /// The map's size: the file's on disk, an inline map's decoded bytes.
    pub map_bytes: Option<u64>,
    /// Why there is no usable map.
    pub problem: Option<String>,
    /// Where the map was looked for, each with why it was not used (empty once one is found).
    pub tried: Vec<String>,
    #[serde(flatten)]
    pub index: Option<IndexInfo>,
    /// The server's one cache budget and what each kind of cache holds in it (`maps::budget`).
    pub caches: BudgetReport,
    /// Heap bytes the whole server holds now (its counting allocator).
    pub heap_bytes: usize,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexInfo {
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
    /// Whether the map fits this bundle (`sourcemap_core::bundle::fit`): `{verdict: fits|misfit|unknown, message}`.
    pub fit: Option<FitInfo>,
    /// What this map holds in memory now.
    pub memory: MapMemory,
}

/// What one loaded map holds, in bytes: its index (the file buffer kept, checkpoints, what is decoded on first use)
/// and its caches (under the server's one budget).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MapMemory {
    pub buffer_bytes: usize,
    pub checkpoint_bytes: usize,
    pub names_bytes: usize,
    pub function_map_bytes: usize,
    pub scopes_bytes: usize,
    pub reverse_bytes: usize,
    pub outline_bytes: usize,
    /// Where large sources' lines start (`SourceTexts::lines_around`).
    pub line_starts_bytes: usize,
    pub caches: Vec<CacheUsage>,
}

#[derive(Debug, Serialize)]
pub struct FitInfo {
    pub verdict: &'static str,
    pub message: String,
}

fn file_size(path: &Path) -> Option<u64> {
    std::fs::metadata(path).ok().map(|m| m.len())
}

pub async fn map_info(b: &Snapshot<'_>, params: DocumentParams) -> Result<Option<Answer>> {
    let uri = params.text_document.uri;
    let Ok(bundle) = uri.to_file_path() else {
        return Ok(None);
    };
    let rope = b.rope(&uri);
    let mut answer = Answer {
        bundle: bundle.display().to_string(),
        bundle_bytes: file_size(&bundle),
        source_mapping_url: comment_url(&bundle, rope.as_ref()),
        map: None,
        found_by: None,
        map_bytes: None,
        problem: None,
        tried: Vec::new(),
        index: None,
        caches: b.maps.budget.report(),
        heap_bytes: sourcemap_core::internal::map::measure::live_bytes(),
    };
    let found = match b.bundle_map(&uri).await {
        Ok((_, found)) => found,
        Err(problem) => {
            answer.problem = Some(problem.to_string());
            if let MapProblem::NoMap(no_map) = &problem {
                if !no_map.tried.is_empty() {
                    // The message lists the places too; `tried` says them one by one.
                    answer.problem = Some(format!("no source map found for {}", answer.bundle));
                    answer.tried = no_map.tried.clone();
                }
            }
            return Ok(Some(answer));
        }
    };
    answer.map = found.key.file().map(|p| p.display().to_string());
    answer.found_by = Some(found.found_by);
    answer.map_bytes = match (&found.key, &found.inline) {
        (MapKey::File(p), _) => file_size(p),
        (_, Some(bytes)) => Some(bytes.len() as u64),
        _ => None,
    };
    match b.load(&found).await {
        Ok(map) => answer.index = Some(index_info(b, &map, &bundle)),
        Err(problem) => answer.problem = Some(problem.to_string()),
    }
    answer.caches = b.maps.budget.report();
    answer.heap_bytes = sourcemap_core::internal::map::measure::live_bytes();
    Ok(Some(answer))
}

fn index_info(b: &Snapshot<'_>, map: &LoadedMap, bundle: &Path) -> IndexInfo {
    let index = &map.index;
    let fit = tokio::task::block_in_place(|| fit_now(b, map, Some(bundle))).map(|r| FitInfo {
        verdict: match r.verdict {
            Verdict::Fits => "fits",
            Verdict::Misfit => "misfit",
            Verdict::Unknown => "unknown",
        },
        message: match &r.unknown_because {
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
    IndexInfo {
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
                    uri: source_uri(b, map, id),
                    ignored: index.is_ignored(id),
                }
            })
            .collect(),
        fit,
        memory: map_memory(map),
    }
}

fn map_memory(map: &LoadedMap) -> MapMemory {
    let index = &map.index;
    let decoded = index.decoded_heap();
    MapMemory {
        buffer_bytes: index.buffer().len(),
        checkpoint_bytes: index.checkpoint_heap_bytes(),
        names_bytes: decoded.names,
        function_map_bytes: decoded.function_maps,
        scopes_bytes: decoded.scopes,
        reverse_bytes: decoded.reverse,
        outline_bytes: map.outline_bytes(),
        line_starts_bytes: map.texts.line_starts_bytes(),
        caches: map.cache_usage(),
    }
}
