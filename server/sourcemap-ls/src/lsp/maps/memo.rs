//! What a map's entry remembers of texts it was asked about (function scopes, fit reports, diffs of edited sources),
//! keyed by what the text
//! was read from: a document version, a file's stamp (path, inode, size, modification time: a hit reads nothing),
//! or the map's own `sourcesContent`. A changed text has another key, so it is computed again; the entry goes with
//! the map when the map changes, or earlier when the server's cache budget needs the room (`budget`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sourcemap_core::SourceId;
use tower_lsp::lsp_types::Url;

use sourcemap_core::internal::budget::{CacheBudget, CacheUsage, Lru};

/// How many bundle texts one map keeps fit reports for (a map rarely has more than one bundle): fit reports are
/// counted in the budget but never evicted by it (`budget`), so they have their own cap.
pub const MAX_FIT_REPORTS: usize = 8;

/// What a remembered value was computed from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum MemoKey {
    Document(Url, i32),
    GeneratedFile(FileStamp),
    SourcesContent(SourceId),
    SourceFile(SourceId, FileStamp),
}

/// A file as it is now: path, device and inode, size, modification time. Read from the open descriptor, so the
/// text read on a miss is the file the stamp describes; a file rewritten in place with the same size within one
/// timestamp tick keeps its stamp (as for make and git).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FileStamp(PathBuf, u64, u64, u64, Option<std::time::SystemTime>);

impl FileStamp {
    /// The open file at `path` with its length and stamp: a hover asks for scopes without reading the file when
    /// they are remembered.
    pub fn open(path: &Path) -> Option<(std::fs::File, u64, FileStamp)> {
        let (file, meta) = sourcemap_core::internal::fs::files::open_regular(path).ok()?;
        #[cfg(unix)]
        let (dev, ino) = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino())
        };
        #[cfg(not(unix))]
        let (dev, ino) = (0, 0);
        let stamp = FileStamp(
            path.to_path_buf(),
            dev,
            ino,
            meta.len(),
            meta.modified().ok(),
        );
        Some((file, meta.len(), stamp))
    }
}

/// Values by the text they were computed from (`None`: there was none, e.g. the text did not parse), kept under
/// the server's one cache budget (`budget::Lru`: least recently used across all caches evicted first).
#[derive(Debug)]
pub struct Memo<V> {
    values: Arc<Lru<MemoKey, Option<Arc<V>>>>,
    /// The heap a value holds, for the budget.
    size: fn(&V) -> usize,
    /// A cap on entries of a pinned memo (the budget never evicts those).
    max: Option<usize>,
}

impl<V: Send + Sync + 'static> Memo<V> {
    /// A memo named `kind` whose values hold `size(v)` bytes of heap, under `budget`.
    pub fn new(kind: &'static str, budget: &Arc<CacheBudget>, size: fn(&V) -> usize) -> Self {
        Memo {
            values: Lru::new(kind, budget),
            size,
            max: None,
        }
    }

    /// A memo the budget counts but never evicts, at most `max` entries (its least recently used dropped).
    pub fn pinned(
        kind: &'static str,
        budget: &Arc<CacheBudget>,
        size: fn(&V) -> usize,
        max: usize,
    ) -> Self {
        Memo {
            values: Lru::pinned(kind, budget),
            size,
            max: Some(max),
        }
    }

    /// What is remembered for `key` (never computes).
    pub fn get(&self, key: &MemoKey) -> Option<Option<Arc<V>>> {
        self.values.get(key)
    }

    /// The value for `key`, computed on a miss.
    pub fn get_or_compute(
        &self,
        key: MemoKey,
        compute: impl FnOnce() -> Option<V>,
    ) -> Option<Arc<V>> {
        if let Some(hit) = self.get(&key) {
            return hit;
        }
        // Computed outside any lock: a second request for another text does not wait for this one.
        let value = compute().map(Arc::new);
        let bytes = value.as_deref().map_or(0, self.size);
        self.values.insert(key, value.clone(), bytes);
        if let Some(max) = self.max {
            while self.values.len() > max {
                self.values.drop_oldest();
            }
        }
        value
    }

    /// Counts `value` (kept for `key`, grown since) at its size now; it may then be evicted as any other entry.
    pub fn resize(&self, key: MemoKey, value: &Arc<V>) {
        self.values
            .insert(key, Some(value.clone()), (self.size)(value));
    }

    /// Entries and bytes held.
    pub fn usage(&self) -> CacheUsage {
        self.values.usage()
    }
}
