//! What the server holds per map: its key, the index, and what is derived from it on demand (outline, code
//! scopes, content checks, source texts, fit verdicts).

use std::path::Path;
use std::sync::{Arc, OnceLock};

use sourcemap_core::bundle::fit::FitReport;
use sourcemap_core::source::today::SourceDrift;
use sourcemap_core::trace::js_scopes::FunctionScopes;
use sourcemap_core::{SourceId, SourceMapIndex};

use crate::lsp::maps::local_sources::ContentChecks;
use crate::lsp::maps::map_key::MapKey;
use crate::lsp::maps::memo::{Memo, MAX_DIFFED_TEXTS, MAX_FIT_REPORTS, MAX_PARSED_TEXTS};
use crate::lsp::maps::outline::Module;
use crate::lsp::maps::source_texts::SourceTexts;

/// A built index and what the server keeps beside it.
#[derive(Debug)]
pub struct LoadedMap {
    pub key: MapKey,
    pub index: SourceMapIndex,
    /// Bundle outline, computed on first `documentSymbol`.
    pub outline: OnceLock<Vec<Module>>,
    /// Function scopes of its bundle and sources, parsed on first use (see `code_scopes`).
    pub code: Memo<FunctionScopes>,
    /// Whether local files are the sources they are named after (see `local_sources`).
    pub content_checks: ContentChecks,
    /// The last source texts used (see `source_texts`).
    pub texts: SourceTexts,
    /// Whether the map fits its bundle, by the bundle text checked (see `map_fit`).
    pub fits: Memo<FitReport>,
    /// Where the build's copy of each edited source went in today's text, by the text diffed (see
    /// `workspace::todays_file`).
    pub drifts: Memo<SourceDrift>,
}

impl LoadedMap {
    /// A map just indexed: nothing derived from it yet.
    pub(super) fn new(key: MapKey, index: SourceMapIndex) -> Self {
        LoadedMap {
            key,
            index,
            outline: OnceLock::new(),
            code: Memo::new(MAX_PARSED_TEXTS),
            content_checks: Default::default(),
            texts: Default::default(),
            fits: Memo::new(MAX_FIT_REPORTS),
            drifts: Memo::new(MAX_DIFFED_TEXTS),
        }
    }

    /// The map's text for source `id`, if it has one (and, for a shed map, its file still holds it). Blocking: reads
    /// the map file on a miss.
    pub fn source_text(&self, id: SourceId) -> Option<Arc<str>> {
        self.texts.text(&self.index, self.key.file(), id)
    }

    /// Whether the local file at `path` is source `id` of this map (`local_sources`): never a file that merely
    /// shares its path.
    pub fn file_is_source(&self, id: SourceId, path: &Path) -> bool {
        self.content_checks
            .file_is_source(&self.index, id, path, || self.source_text(id))
    }
}
