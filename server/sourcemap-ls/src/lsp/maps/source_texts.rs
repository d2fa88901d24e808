//! The text of a source from the map's `sourcesContent`, for code frames, virtual documents, file copies and the
//! local-file check.
//!
//! A map read from a file sheds its contents once indexed (`SourceMapIndex::shed_contents`): a Metro map is mostly
//! `sourcesContent`, and a server holding it whole held twice the `mappings` for text read only when a hover shows
//! code. Each source's text is then read back from the map file at its range, and used only if those bytes hash to
//! what was indexed (a map rewritten since gives no text, never another one; the next request reloads the map).
//!
//! Unescaping a large source (a 9 MB `typescript.js` is one JSON string) on every hover made the slow tail of hover
//! latency, so the last texts used are kept, up to [`MAX_CACHED_BYTES`] per map.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use std::path::Path;

use sourcemap_core::{content_from_file, SourceContent, SourceId, SourceMapIndex};

/// The most unescaped text kept per map.
const MAX_CACHED_BYTES: usize = 32 << 20;
/// The most texts kept per map.
const MAX_CACHED_TEXTS: usize = 64;

/// The last texts used, most recent last.
#[derive(Debug, Default)]
pub struct SourceTexts {
    recent: Mutex<VecDeque<(SourceId, Arc<str>)>>,
}

impl SourceTexts {
    fn get(&self, id: SourceId) -> Option<Arc<str>> {
        let mut recent = self.recent.lock().expect("source texts lock");
        let at = recent.iter().position(|(k, _)| *k == id)?;
        let hit = recent.remove(at)?;
        let text = hit.1.clone();
        recent.push_back(hit);
        Some(text)
    }

    fn put(&self, id: SourceId, text: Arc<str>) {
        let mut recent = self.recent.lock().expect("source texts lock");
        recent.retain(|(k, _)| *k != id);
        recent.push_back((id, text));
        let mut bytes: usize = recent.iter().map(|(_, t)| t.len()).sum();
        // The text just used stays even when it alone is over the budget.
        while recent.len() > 1 && (bytes > MAX_CACHED_BYTES || recent.len() > MAX_CACHED_TEXTS) {
            if let Some((_, t)) = recent.pop_front() {
                bytes -= t.len();
            }
        }
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
                let raw =
                    sourcemap_core::fs::files::read_range(&file, range.start as u64, range.len())
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

    #[test]
    fn recent_texts_stay_within_the_budget() {
        let texts = SourceTexts::default();
        let big: Arc<str> = Arc::from("x".repeat(MAX_CACHED_BYTES / 2 + 1));
        texts.put(SourceId(0), big.clone());
        texts.put(SourceId(1), Arc::from("small"));
        texts.put(SourceId(2), big.clone());
        // 0 went (over the budget with 2); 1 and 2 stay; using 1 makes it the most recent.
        assert!(texts.get(SourceId(0)).is_none());
        assert_eq!(texts.get(SourceId(1)).as_deref(), Some("small"));
        assert!(texts.get(SourceId(2)).is_some());
        for i in 3..(3 + MAX_CACHED_TEXTS as u32) {
            texts.put(SourceId(i), Arc::from("t"));
        }
        assert!(texts.get(SourceId(2)).is_none());
    }
}
