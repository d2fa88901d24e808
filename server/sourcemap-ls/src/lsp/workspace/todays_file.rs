//! A source's local file as it is today, when it is no longer the build's copy: the file on disk, or its open
//! document as edited. The build's copy (`sourcesContent`) and today's text are diffed once per (source, version of
//! the text), and a position of the build is carried into today's file only where its line is unchanged
//! (`sourcemap_core::source::today`); elsewhere the build's copy answers, and the hover says what changed.

use std::sync::Arc;

use sourcemap_core::source::today::SourceDrift;
use sourcemap_core::SourceId;
use tower_lsp::lsp_types::Url;

use crate::lsp::maps::loaded_map::LoadedMap;
use crate::lsp::maps::memo::{FileStamp, TextKey};
use crate::lsp::workspace::backend::Backend;

/// The biggest local file compared line by line with the build's copy.
const MAX_DIFFED_BYTES: u64 = 16 << 20;

/// Today's file of a source that differs from the build's copy.
#[derive(Clone)]
pub struct TodaysFile {
    pub uri: Url,
    pub drift: Arc<SourceDrift>,
}

/// The local file of source `id` of `map` when its text today (the open document, else the file) differs from the
/// map's copy, with the diff of the two; `None` when there is no such file (no local file by the path rules, no copy
/// in the map to compare with), when it is the build's copy (then `Backend::resolve_source` answers with it), or
/// when it is no edit of it (`SourceDrift::is_edit_of_build`: another file at that path).
/// Blocking: reads and diffs on a miss.
pub fn todays_file(b: &Backend, map: &LoadedMap, id: SourceId) -> Option<TodaysFile> {
    if !map.index.source(id).has_content() {
        return None;
    }
    let path = b.source_path_candidate(map, id)?;
    let uri = Url::from_file_path(&path).ok()?;
    let open = b.open_document(&uri);
    let drift = match open {
        Some((rope, version)) => {
            map.drifts
                .get_or_compute(TextKey::Document(uri.clone(), version), || {
                    let build = map.source_text(id)?;
                    Some(SourceDrift::between(&build, &rope.to_string()))
                })?
        }
        None => {
            if map.file_is_source(id, &path) {
                return None;
            }
            let (file, len, stamp) = FileStamp::open(&path)?;
            map.drifts
                .get_or_compute(TextKey::SourceFile(id, stamp), || {
                    let build = map.source_text(id)?;
                    let bytes =
                        sourcemap_core::fs::files::read_open(file, len, MAX_DIFFED_BYTES).ok()?;
                    Some(SourceDrift::between(
                        &build,
                        std::str::from_utf8(&bytes).ok()?,
                    ))
                })?
        }
    };
    // Another file at the source's path (not an edit of the build's copy) is not the source: the build's copy answers.
    (!drift.is_unchanged() && drift.is_edit_of_build()).then_some(TodaysFile { uri, drift })
}
