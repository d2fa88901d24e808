//! A source's local file as it is today, when it is no longer the build's copy: the file on disk, or its open
//! document as edited. The build's copy (`sourcesContent`) and today's text are diffed once per (source, version of
//! the text), and a position of the build is carried into today's file only where its line is unchanged
//! (`sourcemap_core::source::today`); elsewhere the build's copy answers, and the hover says what changed.

use std::path::PathBuf;
use std::sync::Arc;

use sourcemap_core::source::today::SourceDrift;
use sourcemap_core::SourceId;
use tower_lsp::lsp_types::Url;

use crate::lsp::maps::loaded_map::LoadedMap;
use crate::lsp::maps::memo::{FileStamp, MemoKey};
use crate::lsp::workspace::snapshot::Snapshot;

/// The biggest local file compared line by line with the build's copy.
const MAX_DIFFED_BYTES: u64 = 16 << 20;

/// Today's file of a source that differs from the build's copy.
#[derive(Clone)]
pub struct TodaysFile {
    pub uri: Url,
    pub drift: Arc<SourceDrift>,
}

/// What the local file of a source is, by its text today (the open document, else the file).
#[derive(Clone)]
pub enum LocalSource {
    /// The build's copy, line for line (or the map carries no copy to compare with: the path match is all there
    /// is): open it at the build's positions.
    Build(PathBuf),
    /// An edit of the build's copy: positions go where their lines are now, on unchanged lines only.
    Edited(PathBuf, TodaysFile),
    /// Another file at the source's path (an old checkout of something else, a decoy): never opened for it.
    Other(PathBuf),
}

/// The local file of source `id` of `map`, found by the path rules (`Backend::source_path_candidate`) and judged by
/// its text today against the map's copy; `None` when the path rules find no file. One check of the file (its
/// content verdict, or its diff, remembered by document version or file stamp). Blocking: reads and diffs on a miss.
pub fn local_source(b: &Snapshot<'_>, map: &LoadedMap, id: SourceId) -> Option<LocalSource> {
    let path = b.source_path_candidate(map, id)?;
    if !map.index.source(id).has_content() {
        return Some(LocalSource::Build(path));
    }
    let Ok(uri) = Url::from_file_path(&path) else {
        return Some(LocalSource::Other(path));
    };
    let drift = match b.open_document(&uri) {
        Some((rope, version)) => {
            map.drifts
                .get_or_compute(MemoKey::Document(uri.clone(), version), || {
                    let build = map.source_text(id)?;
                    Some(SourceDrift::between(&build, &rope.to_string()))
                })
        }
        None => {
            if map.file_is_source(id, &path) {
                return Some(LocalSource::Build(path));
            }
            FileStamp::open(&path).and_then(|(file, len, stamp)| {
                map.drifts
                    .get_or_compute(MemoKey::SourceFile(id, stamp), || {
                        let build = map.source_text(id)?;
                        let bytes = sourcemap_core::internal::fs::files::read_open(
                            file,
                            len,
                            MAX_DIFFED_BYTES,
                        )
                        .ok()?;
                        Some(SourceDrift::between(
                            &build,
                            std::str::from_utf8(&bytes).ok()?,
                        ))
                    })
            })
        }
    };
    Some(match drift {
        Some(drift) if drift.is_unchanged() => LocalSource::Build(path),
        // Another file at the source's path (not an edit of the build's copy) is not the source.
        Some(drift) if drift.is_edit_of_build() => {
            LocalSource::Edited(path, TodaysFile { uri, drift })
        }
        _ => LocalSource::Other(path),
    })
}
