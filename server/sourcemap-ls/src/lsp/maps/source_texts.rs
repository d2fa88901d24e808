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
//!
//! A code frame needs five lines. A source whose literal is [`WINDOWED_AFTER_BYTES`] or more is never read whole for
//! one: where every 64th of its lines starts in the literal is found once (`content_line_starts`: one read of the
//! literal, a few KB kept), and each frame then reads and unescapes only the lines around its position
//! (`lines_around`). Before, every hover into Metro's 9 MB `typescript.js` read, hashed and unescaped it whole (it
//! cannot be kept under the budget): 24–39 ms a hover (issue 56).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use sourcemap_core::{
    content_fragment, content_from_file, content_line_starts, SourceContent, SourceId,
    SourceMapIndex,
};

use sourcemap_core::internal::budget::{CacheBudget, CacheUsage, Lru};

/// A source whose JSON literal in the map file is at least this long is read around the lines asked, not whole.
pub const WINDOWED_AFTER_BYTES: usize = 1 << 20;
/// Every this-many-th line's start in a windowed source's literal is kept.
const LINE_STEP: usize = 64;

/// Where a windowed source's lines start in its literal, and the map file as it was when they were found.
#[derive(Debug)]
struct LineStarts {
    /// Offsets into the literal of lines 0, `LINE_STEP`, 2 × `LINE_STEP`…
    starts: Vec<u32>,
    lines: u32,
    /// The map file's length and modification time: a part read later is used only while they are the same.
    stamp: (u64, Option<SystemTime>),
}

/// The last texts used.
#[derive(Debug)]
pub struct SourceTexts {
    recent: Arc<Lru<SourceId, Arc<str>>>,
    /// Windowed sources' line starts (a few KB each, only for sources of at least `WINDOWED_AFTER_BYTES`).
    line_starts: Mutex<HashMap<SourceId, Arc<LineStarts>>>,
}

impl SourceTexts {
    pub fn new(budget: &Arc<CacheBudget>) -> Self {
        SourceTexts {
            recent: Lru::new("sourceTexts", budget),
            line_starts: Mutex::default(),
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

impl SourceTexts {
    /// Lines `first..=last` of source `id`'s text (fewer at its end), with the number of the first, when the map has
    /// its content: read around them from the map file for a windowed source, else from the whole text.
    pub fn lines_around(
        &self,
        index: &SourceMapIndex,
        map_file: Option<&Path>,
        id: SourceId,
        first: u32,
        last: u32,
    ) -> Option<Vec<String>> {
        if let Some(SourceContent::InFile { range, hash }) = index.source_content_ref(id) {
            if range.len() >= WINDOWED_AFTER_BYTES {
                return self.windowed(map_file?, id, range, hash, first, last);
            }
        }
        let text = self.text(index, map_file, id)?;
        Some(
            text.lines()
                .skip(first as usize)
                .take((last - first) as usize + 1)
                .map(str::to_string)
                .collect(),
        )
    }

    fn windowed(
        &self,
        map_file: &Path,
        id: SourceId,
        range: std::ops::Range<usize>,
        hash: u64,
        first: u32,
        last: u32,
    ) -> Option<Vec<String>> {
        let file = std::fs::File::open(map_file).ok()?;
        let meta = file.metadata().ok()?;
        let stamp = (meta.len(), meta.modified().ok());
        let known = self
            .line_starts
            .lock()
            .expect("line starts lock")
            .get(&id)
            .cloned();
        let starts = match known.filter(|s| s.stamp == stamp) {
            Some(s) => s,
            None => {
                let raw = sourcemap_core::internal::fs::files::read_range(
                    &file,
                    range.start as u64,
                    range.len(),
                )
                .ok()?;
                let (starts, lines) = content_line_starts(&raw, hash, LINE_STEP)?;
                let s = Arc::new(LineStarts {
                    starts,
                    lines,
                    stamp,
                });
                self.line_starts
                    .lock()
                    .expect("line starts lock")
                    .insert(id, s.clone());
                s
            }
        };
        if first >= starts.lines {
            return Some(Vec::new());
        }
        let k = first as usize / LINE_STEP;
        let from = starts.starts[k] as usize;
        // To the start of the step after `last`, or to the closing quote.
        let to = starts
            .starts
            .get(last as usize / LINE_STEP + 1)
            .map_or(range.len() - 1, |&s| s as usize);
        let part = sourcemap_core::internal::fs::files::read_range(
            &file,
            (range.start + from) as u64,
            to - from,
        )
        .ok()?;
        let text = content_fragment(&part)?;
        Some(
            text.lines()
                .skip(first as usize - k * LINE_STEP)
                .take((last - first) as usize + 1)
                .map(str::to_string)
                .collect(),
        )
    }

    /// Heap held by the windowed sources' line starts.
    pub fn line_starts_bytes(&self) -> usize {
        let starts = self.line_starts.lock().expect("line starts lock");
        starts
            .values()
            .map(|s| s.starts.capacity() * 4 + std::mem::size_of::<LineStarts>())
            .sum()
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
