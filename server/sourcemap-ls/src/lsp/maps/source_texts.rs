//! The text of a source from the map's `sourcesContent`, for code frames, virtual documents, file copies and the
//! local-file check.
//!
//! A map read from a file sheds its contents once indexed (`SourceMapIndex::shed_contents`): a Metro map is mostly
//! `sourcesContent`, and a server holding it whole held twice the `mappings` for text read only when a hover shows
//! code. Each source's text is then read back from the map file at its range, and used only if those bytes hash to
//! what was indexed (a map rewritten since gives no text, never another one; the next request reloads the map).
//!
//! Unescaping a large source (a 9 MB `typescript.js` is one JSON string) on every hover made the slow tail of hover
//! latency, so the last texts used are kept, under the server's one cache budget (`budget`: least recently used
//! first, across every cache; a text larger than the whole budget is not kept).

use std::sync::Arc;

use std::path::Path;

use sourcemap_core::{content_from_file, SourceContent, SourceId, SourceMapIndex};

use sourcemap_core::internal::budget::{CacheBudget, CacheUsage, Lru};

/// The last texts used.
#[derive(Debug)]
pub struct SourceTexts {
    recent: Arc<Lru<SourceId, Arc<str>>>,
}

impl SourceTexts {
    pub fn new(budget: &Arc<CacheBudget>) -> Self {
        SourceTexts {
            recent: Lru::new("sourceTexts", budget),
        }
    }

    fn get(&self, id: SourceId) -> Option<Arc<str>> {
        self.recent.get(&id)
    }

    fn put(&self, id: SourceId, text: Arc<str>) {
        let bytes = text.len();
        self.recent.insert(id, text, bytes);
    }

    /// Entries and bytes held.
    pub fn usage(&self) -> CacheUsage {
        self.recent.usage()
    }
}

impl SourceTexts {
    /// The text of source `id` of `index` (read from `map_file`), if the map has one (and, for a shed map, its file
    /// still holds it). Blocking: reads the map file on a miss.
    pub fn text(
        &self,
        index: &SourceMapIndex,
        map_file: Option<&Path>,
        id: SourceId,
    ) -> Option<Arc<str>> {
        if let Some(t) = self.get(id) {
            return Some(t);
        }
        let text: Arc<str> = match index.source_content_ref(id)? {
            SourceContent::Text(t) => Arc::from(t.as_ref()),
            SourceContent::InFile { range, hash } => {
                let file = std::fs::File::open(map_file?).ok()?;
                let raw = sourcemap_core::internal::fs::files::read_range(
                    &file,
                    range.start as u64,
                    range.len(),
                )
                .ok()?;
                let Some(text) = content_from_file(&raw, hash) else {
                    tracing::debug!(
                        source = id.0,
                        "the map file changed: its content is not used"
                    );
                    return None;
                };
                Arc::from(text)
            }
        };
        self.put(id, text.clone());
        Some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sourcemap_core::internal::budget::ENTRY_OVERHEAD;

    #[test]
    fn recent_texts_stay_within_the_budget() {
        let budget = CacheBudget::new(2 * (1000 + ENTRY_OVERHEAD) as u64);
        let texts = SourceTexts::new(&budget);
        let big: Arc<str> = Arc::from("x".repeat(1000));
        texts.put(SourceId(0), big.clone());
        texts.put(SourceId(1), Arc::from("small"));
        texts.put(SourceId(2), big.clone());
        // 0 went (over the budget with 2); 1 and 2 stay; using 1 makes it the most recent.
        assert!(texts.get(SourceId(0)).is_none());
        assert_eq!(texts.get(SourceId(1)).as_deref(), Some("small"));
        assert!(texts.get(SourceId(2)).is_some());
        // 1 is now the least recently used: it goes for 3.
        texts.put(SourceId(3), big.clone());
        assert!(texts.get(SourceId(1)).is_none());
        assert!(texts.get(SourceId(2)).is_some());
        assert!(texts.usage().bytes as u64 <= budget.limit());
        // Larger than the whole budget: read each time, never kept.
        texts.put(SourceId(4), Arc::from("y".repeat(5000)));
        assert!(texts.get(SourceId(4)).is_none());
    }
}
