//! Whether a local file found for a source is that source: never the wrong file.
//!
//! `sources::resolve` finds a candidate by path (overrides, re-rooted build paths, relative to the map). A path can
//! still name another file that merely shares it (an old checkout, a decoy `index.js`). Where the map carries the
//! source's text (`sourcesContent`), the file is used only when its content equals it — compared as xxh3 hashes of
//! the text with `\r\n` read as `\n` (a checkout with Windows line endings is the same source) — and otherwise the
//! map's own text is shown as a virtual document and the user is told the file differs. Without `sourcesContent`
//! there is nothing to compare with: the path match is all there is.
//!
//! Verdicts are cached in the map's entry per source, keyed by the file's path, size and modification time, so a
//! file edited afterwards is compared again; they are kept under the server's one cache budget (`budget`), as are
//! the sources' content hashes (8 bytes each: recomputed from the text when evicted).

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use std::sync::Arc;

use sourcemap_core::{SourceId, SourceMapIndex};

use sourcemap_core::internal::budget::{CacheBudget, CacheUsage, Lru};
use sourcemap_core::source::project_file::text_hash;

/// The biggest local file compared with `sourcesContent` (larger ones are not used in place of the map's text).
const MAX_COMPARED_BYTES: u64 = 64 << 20;

type FileKey = (PathBuf, u64, Option<SystemTime>);

/// Per map: each source's content hash, and verdicts on local files.
#[derive(Debug)]
pub struct ContentChecks {
    content_hashes: Arc<Lru<SourceId, u64>>,
    verdicts: Arc<Lru<(SourceId, FileKey), bool>>,
}

impl ContentChecks {
    pub fn new(budget: &Arc<CacheBudget>) -> Self {
        ContentChecks {
            // A few bytes each, and costly to find again (a large source read and unescaped whole, the local file
            // read and hashed): kept, counted in the budget, never evicted by the texts coming and going.
            content_hashes: Lru::pinned("contentHashes", budget),
            verdicts: Lru::pinned("localFileVerdicts", budget),
        }
    }

    /// Entries and bytes held: the content hashes, then the verdicts.
    pub fn usage(&self) -> [CacheUsage; 2] {
        [self.content_hashes.usage(), self.verdicts.usage()]
    }

    /// Whether the file at `path` is source `id` of `index` as far as can be told: `true` when the map has no text
    /// for it, else whether the file's text equals the map's (`text` reads it when no hash of it is kept yet).
    pub fn file_is_source(
        &self,
        index: &SourceMapIndex,
        id: SourceId,
        path: &Path,
        text: impl FnOnce() -> Option<Arc<str>>,
    ) -> bool {
        if !index.source(id).has_content() {
            return true;
        }
        let Ok((file, meta)) = sourcemap_core::internal::fs::files::open_regular(path) else {
            return false;
        };
        let key = (path.to_path_buf(), meta.len(), meta.modified().ok());
        let checks = self;
        if let Some(v) = checks.verdicts.get(&(id, key.clone())) {
            return v;
        }
        let expected = {
            let cached = checks.content_hashes.get(&id);
            match cached {
                Some(h) => h,
                None => {
                    let Some(text) = text() else {
                        return false;
                    };
                    let h = text_hash(text.as_bytes());
                    checks.content_hashes.insert(id, h, 8);
                    h
                }
            }
        };
        let same =
            sourcemap_core::internal::fs::files::read_open(file, meta.len(), MAX_COMPARED_BYTES)
                .is_ok_and(|bytes| text_hash(&bytes) == expected);
        let bytes = key.0.as_os_str().len();
        checks.verdicts.insert((id, key), same, bytes);
        same
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_endings_do_not_make_a_file_differ() {
        assert_eq!(text_hash(b"a\r\nb\r\n"), text_hash(b"a\nb\n"));
        assert_ne!(text_hash(b"a\rb"), text_hash(b"a\nb"));
        assert_ne!(text_hash(b"a\nb"), text_hash(b"a\nc"));
    }
}
