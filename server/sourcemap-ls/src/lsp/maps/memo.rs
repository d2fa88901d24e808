//! What a map's entry remembers of texts it was asked about (function scopes, fit reports, diffs of edited sources),
//! keyed by what the text
//! was read from: a document version, a file's stamp (path, inode, size, modification time: a hit reads nothing),
//! or the map's own `sourcesContent`. A changed text has another key, so it is computed again; the entry goes with
//! the map when the map changes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use sourcemap_core::SourceId;
use tower_lsp::lsp_types::Url;

/// How many parsed texts one map keeps (least recently parsed dropped first is not worth tracking: the memo is
/// cleared when full).
pub const MAX_PARSED_TEXTS: usize = 32;
/// How many bundle texts one map keeps fit reports for (a map rarely has more than one bundle).
pub const MAX_FIT_REPORTS: usize = 8;
/// How many (source, text) diffs one map keeps: the sources being edited while a crash is looked into.
pub const MAX_DIFFED_TEXTS: usize = 32;

/// What a remembered value was computed from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TextKey {
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
        let (file, meta) = sourcemap_core::fs::files::open_regular(path).ok()?;
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

/// Values by the text they were computed from (`None`: there was none, e.g. the text did not parse), at most
/// `max` of them.
#[derive(Debug)]
pub struct Memo<V> {
    values: Mutex<HashMap<TextKey, Option<Arc<V>>>>,
    max: usize,
}

impl<V> Memo<V> {
    pub fn new(max: usize) -> Self {
        Memo {
            values: Mutex::new(HashMap::new()),
            max,
        }
    }

    /// What is remembered for `key` (never computes).
    pub fn get(&self, key: &TextKey) -> Option<Option<Arc<V>>> {
        self.values.lock().expect("memo lock").get(key).cloned()
    }

    /// The value for `key`, computed on a miss.
    pub fn get_or_compute(
        &self,
        key: TextKey,
        compute: impl FnOnce() -> Option<V>,
    ) -> Option<Arc<V>> {
        if let Some(hit) = self.get(&key) {
            return hit;
        }
        // Computed outside the lock: a second request for another text does not wait for this one.
        let value = compute().map(Arc::new);
        let mut values = self.values.lock().expect("memo lock");
        if values.len() >= self.max {
            values.clear();
        }
        values.insert(key, value.clone());
        value
    }
}
