//! What the server holds per map: its key, the index, and what is derived from it on demand (outline, code
//! scopes, content checks, source texts, fit verdicts).

use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use sourcemap_core::bundle::fit::FitReport;
use sourcemap_core::source::today::SourceDrift;
use sourcemap_core::trace::text_scopes::TextScopes;
use sourcemap_core::{SourceId, SourceMapIndex};

use crate::lsp::maps::local_sources::ContentChecks;
use crate::lsp::maps::map_key::MapKey;
use crate::lsp::maps::memo::{Memo, MAX_FIT_REPORTS};
use crate::lsp::maps::outline::Module;
use crate::lsp::maps::source_texts::SourceTexts;
use sourcemap_core::internal::budget::{CacheBudget, CacheUsage};

/// A built index and what the server keeps beside it.
#[derive(Debug)]
pub struct LoadedMap {
    pub key: MapKey,
    pub index: SourceMapIndex,
    /// Bundle outline, computed on first `documentSymbol`.
    pub outline: OnceLock<Vec<Module>>,
    /// Function scopes of its bundle and sources, parsed on first use (see `code_scopes`).
    /// Each text's function scopes as far as hovers and frames asked (`TextScopes`: a large text in parts).
    pub code: Memo<Mutex<TextScopes>>,
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
    /// A map just indexed: nothing derived from it yet. What it derives on demand is kept under `budget`, the
    /// server's one budget for caches (`budget`).
    pub(super) fn new(key: MapKey, index: SourceMapIndex, budget: &Arc<CacheBudget>) -> Self {
        LoadedMap {
            key,
            index,
            outline: OnceLock::new(),
            code: Memo::new("functionScopes", budget, |s: &Mutex<TextScopes>| {
                s.lock().map_or(0, |s| s.heap_bytes())
            }),
            content_checks: ContentChecks::new(budget),
            texts: SourceTexts::new(budget),
            fits: Memo::pinned("fitReports", budget, fit_report_bytes, MAX_FIT_REPORTS),
            drifts: Memo::new("sourceDrifts", budget, SourceDrift::heap_bytes),
        }
    }

    /// What each of its caches holds now.
    pub fn cache_usage(&self) -> Vec<CacheUsage> {
        let [hashes, verdicts] = self.content_checks.usage();
        vec![
            self.texts.usage(),
            self.code.usage(),
            self.drifts.usage(),
            self.fits.usage(),
            hashes,
            verdicts,
        ]
    }

    /// Heap held by the bundle outline, once computed (one per map, like the index; not a cache the budget
    /// evicts).
    pub fn outline_bytes(&self) -> usize {
        self.outline.get().map_or(0, |modules| {
            modules
                .iter()
                .map(|m| std::mem::size_of_val(m) + m.name.capacity())
                .sum()
        })
    }

    /// The map's text for source `id`, if it has one (and, for a shed map, its file still holds it). Blocking: reads
    /// the map file on a miss.
    pub fn source_text(&self, id: SourceId) -> Option<Arc<str>> {
        self.texts.text(&self.index, self.key.file(), id)
    }

    /// Lines `first..=last` of source `id`'s content (`SourceTexts::lines_around`: a large source is read around
    /// them, never whole).
    pub fn source_lines(&self, id: SourceId, first: u32, last: u32) -> Option<Vec<String>> {
        self.texts
            .lines_around(&self.index, self.key.file(), id, first, last)
    }

    /// Whether the local file at `path` is source `id` of this map (`local_sources`): never a file that merely
    /// shares its path.
    pub fn file_is_source(&self, id: SourceId, path: &Path) -> bool {
        self.content_checks
            .file_is_source(&self.index, id, path, || self.source_text(id))
    }
}

/// A fit report's heap: the struct, its regions and its debug IDs.
fn fit_report_bytes(r: &FitReport) -> usize {
    std::mem::size_of::<FitReport>()
        + r.regions.capacity() * std::mem::size_of::<sourcemap_core::bundle::fit::MisfitRegion>()
}
