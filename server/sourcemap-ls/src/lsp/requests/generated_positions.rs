//! `sourcemap/generatedPositions` `{textDocument:{uri}, position}` on an original source (a file, or a
//! `sourcemap-source:` document) → every generated position, as `Location[]` in the bundles: in the maps loaded so
//! far and in the workspace's other maps (`discovery`), whose bundles need not have been opened.
//!
//! The original position is matched like a cursor: the mapping at the greatest column at or before it on its line
//! (else the first on the line); all generated positions of that original position are returned.

use std::path::PathBuf;

use sourcemap_core::{ReverseEntry, SourceId};
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{Location, Range, TextDocumentPositionParams, Url};

use crate::lsp::maps::loaded_map::LoadedMap;
use crate::lsp::maps::map_key::MapKey;
use crate::lsp::maps::sources::{normalize, parse_virtual_uri};
use crate::lsp::protocol::errors::internal;
use crate::lsp::workspace::snapshot::Snapshot;

/// The entries for a cursor at (line, column) in the original source.
fn at_cursor(entries: &[ReverseEntry], line: u32, column: u32) -> Vec<ReverseEntry> {
    let on_line: Vec<&ReverseEntry> = entries.iter().filter(|e| e.original_line == line).collect();
    let target = on_line
        .iter()
        .map(|e| e.original_column)
        .filter(|&c| c <= column)
        .max()
        .or_else(|| on_line.iter().map(|e| e.original_column).min());
    match target {
        Some(c) => on_line
            .into_iter()
            .filter(|e| e.original_column == c)
            .copied()
            .collect(),
        None => Vec::new(),
    }
}

fn locations(
    b: &Snapshot<'_>,
    map: &LoadedMap,
    source: SourceId,
    line: u32,
    column: u32,
) -> Result<Vec<Location>> {
    let reverse = map
        .index
        .reverse(source)
        .map_err(|e| internal(e.to_string()))?;
    // Entries are sorted by original position: narrow to the line before scanning.
    let all = reverse.entries();
    let lo = all.partition_point(|e| e.original_line < line);
    let hi = all.partition_point(|e| e.original_line <= line);
    // A map found in the workspace may describe a bundle that is not there (built elsewhere, or deleted).
    let bundles: Vec<Url> = b
        .bundles_of(map)
        .into_iter()
        .filter(|p| p.is_file())
        .filter_map(|p| Url::from_file_path(p).ok())
        .collect();
    let mut out = Vec::new();
    for e in at_cursor(&all[lo..hi], line, column) {
        let start = tower_lsp::lsp_types::Position::new(e.generated.line, e.generated.column);
        let hit = map
            .index
            .lookup(e.generated, sourcemap_core::Bias::GreatestLowerBound)
            .map_err(|e| internal(e.to_string()))?;
        let end_col = match hit {
            Some(h) => map
                .index
                .segment_end(&h)
                .map_err(|e| internal(e.to_string()))?,
            None => None,
        };
        let end = tower_lsp::lsp_types::Position::new(
            e.generated.line,
            end_col.unwrap_or(e.generated.column),
        );
        // In an open bundle edited since, where the segment is today; nowhere where an edit removed it.
        for uri in &bundles {
            if let Some(range) = b.range_from_build(uri, Range::new(start, end)) {
                out.push(Location::new(uri.clone(), range));
            }
        }
    }
    Ok(out)
}

pub async fn generated_positions(
    b: &Snapshot<'_>,
    params: TextDocumentPositionParams,
) -> Result<Vec<Location>> {
    let uri = params.text_document.uri;
    let (line, column) = (params.position.line, params.position.character);
    // A virtual document names its map and source directly.
    if let Some((key, id, _)) = parse_virtual_uri(&uri) {
        let key = MapKey::from_uri_string(&key).ok_or_else(|| internal("bad map key"))?;
        let map = b.map_by_key(&key).await?;
        return tokio::task::block_in_place(|| locations(b, &map, SourceId(id), line, column));
    }
    let Ok(path) = uri.to_file_path() else {
        return Ok(Vec::new());
    };
    let path = normalize(&path);
    let file_name = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut out = Vec::new();
    let loaded = b.maps.loaded();
    for map in &loaded {
        out.extend(in_map(b, map, &path, &file_name, line, column)?);
    }
    // The workspace's other maps, skipping those whose sources (remembered from an earlier read) have no file of
    // that name.
    let found = b.workspace_maps().await;
    let max_bytes = b.settings.max_map_bytes;
    for map_path in &found.maps {
        let key = MapKey::File(map_path.clone());
        if loaded.iter().any(|m| m.key == key)
            || b.catalog.lists(map_path, &file_name) == Some(false)
        {
            continue;
        }
        let Ok(map) = b.maps.load_file(map_path, max_bytes).await else {
            continue;
        };
        b.catalog.record(map_path, &map.index);
        out.extend(in_map(b, &map, &path, &file_name, line, column)?);
    }
    Ok(out)
}

/// The generated positions of (line, column) in the local file `path` (named `file_name`), in one map.
fn in_map(
    b: &Snapshot<'_>,
    map: &LoadedMap,
    path: &std::path::Path,
    file_name: &str,
    line: u32,
    column: u32,
) -> Result<Vec<Location>> {
    let matching: Vec<SourceId> = map
        .index
        .sources()
        .iter()
        .enumerate()
        .filter(|(_, s)| s.url.as_deref().is_some_and(|u| u.ends_with(file_name)))
        .filter(|(i, _)| {
            b.resolve_source(map, SourceId(*i as u32))
                .is_some_and(|p: PathBuf| normalize(&p) == path)
        })
        .map(|(i, _)| SourceId(i as u32))
        .collect();
    let mut out = Vec::new();
    for id in matching {
        out.extend(tokio::task::block_in_place(|| {
            locations(b, map, id, line, column)
        })?);
    }
    Ok(out)
}
