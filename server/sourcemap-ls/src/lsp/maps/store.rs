//! `MapStore`: one index per map, shared by every document that uses it, never stale.
//!
//! A map file is keyed by its path; each cached index remembers the file's stamp (device, inode, size, modification
//! time) when it was read. Every request opens the file and takes its stamp from the descriptor: a different stamp
//! means a new entry and a rebuild; a stamp that changes while the file is being read means the result is thrown
//! away and the build retried. A stamp alone cannot see a rewrite in place that keeps the size within the file
//! system's timestamp granularity, so an index read less than [`RACY_WINDOW`] after the file's modification time
//! also keeps a hash of the bytes, and requests compare the file's content with it until the window has passed
//! (git's "racily clean" rule). So an answer always comes from an index of the file as it is now.
//!
//! Inline (`data:` URL) maps are keyed by the bundle and a hash of their bytes. Building runs on the blocking pool,
//! never on the async workers, with `$/progress` for maps large enough to take noticeable time.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use sourcemap_core::internal::fs::files::open_regular;
use sourcemap_core::{IndexOptions, SourceMapIndex};
use tokio::sync::OnceCell;

use crate::lsp::maps::file_stamp::{content_hash, read_unchanged, stamp_of, Stamp, MAX_ATTEMPTS};
use crate::lsp::maps::load_error::LoadError;
use crate::lsp::maps::loaded_map::LoadedMap;
use crate::lsp::maps::map_key::MapKey;
use crate::lsp::protocol::progress::Progress;
use sourcemap_core::internal::budget::CacheBudget;

/// Maps at least this big get a progress notification while they are indexed.
const PROGRESS_THRESHOLD: u64 = 4 << 20;

type Built = Result<Arc<LoadedMap>, Arc<LoadError>>;

struct Entry {
    stamp: Option<Stamp>,
    cell: OnceCell<Built>,
    /// When a request last used it (a tick of `MapStore::clock`), for least-recently-used eviction.
    last_used: AtomicU64,
    /// While the stamp is racy: the hash of the bytes indexed. `None` once a check after the window proved the
    /// stamp enough (or when it never was racy).
    racy_hash: tokio::sync::Mutex<Option<u64>>,
}

/// What a content check of a racy entry found.
enum Recheck {
    Same,
    Differs,
}

impl Entry {
    fn new(stamp: Option<Stamp>) -> Arc<Entry> {
        Arc::new(Entry {
            stamp,
            cell: OnceCell::new(),
            last_used: AtomicU64::new(0),
            racy_hash: tokio::sync::Mutex::new(None),
        })
    }

    /// Heap held by its index: the file buffer plus the checkpoints built so far.
    fn held_bytes(&self) -> u64 {
        match self.cell.get() {
            Some(Ok(m)) => (m.index.buffer().len() + m.index.checkpoint_heap_bytes()) as u64,
            _ => 0,
        }
    }
}

#[derive(Default)]
pub struct MapStore {
    entries: Mutex<HashMap<MapKey, Arc<Entry>>>,
    /// `$/progress` for indexing, and for other long work the server does.
    pub progress: Progress,
    clock: AtomicU64,
    /// Cap on the heap held by all cached indexes together (0: the default).
    max_total_bytes: AtomicU64,
    /// The one budget of every cache kept beside the indexes (`budget`).
    pub budget: Arc<CacheBudget>,
}

/// Default cap on the memory of all cached indexes together.
pub const DEFAULT_MAX_TOTAL_BYTES: u64 = 4 << 30;

impl MapStore {
    pub fn set_max_total_bytes(&self, bytes: u64) {
        self.max_total_bytes.store(bytes, Ordering::Relaxed);
    }

    /// Marks an entry used now and evicts least-recently-used indexes while all of them together hold more than
    /// the cap (the entry just used is kept even if it alone is over).
    fn touch_and_evict(&self, used: &Arc<Entry>) {
        let tick = self.clock.fetch_add(1, Ordering::Relaxed) + 1;
        used.last_used.store(tick, Ordering::Relaxed);
        let cap = match self.max_total_bytes.load(Ordering::Relaxed) {
            0 => DEFAULT_MAX_TOTAL_BYTES,
            c => c,
        };
        let mut entries = self.entries.lock().expect("map store lock");
        let mut total: u64 = entries.values().map(|e| e.held_bytes()).sum();
        while total > cap {
            let victim = entries
                .iter()
                .filter(|(_, e)| !Arc::ptr_eq(e, used) && e.held_bytes() > 0)
                .min_by_key(|(_, e)| e.last_used.load(Ordering::Relaxed))
                .map(|(k, e)| (k.clone(), e.held_bytes()));
            let Some((key, bytes)) = victim else { break };
            tracing::info!(
                "evicting the index of {key:?} ({bytes} bytes) to stay under {cap} bytes"
            );
            entries.remove(&key);
            total -= bytes;
        }
    }

    /// Every index built so far that is still current.
    pub fn loaded(&self) -> Vec<Arc<LoadedMap>> {
        let entries = self.entries.lock().expect("map store lock");
        entries
            .values()
            .filter_map(|e| e.cell.get().and_then(|r| r.as_ref().ok().cloned()))
            .collect()
    }

    /// The indexes built so far, by identity (sorted): what an answer kept across requests was made with
    /// (`kept_inputs::KeptInputs`). A map indexed, evicted or dropped since makes it another list.
    pub fn holding(&self) -> Vec<usize> {
        let mut held: Vec<usize> = self
            .loaded()
            .iter()
            .map(|m| Arc::as_ptr(m) as usize)
            .collect();
        held.sort_unstable();
        held
    }

    /// Whether `map` is still the store's index of its file as the file is now: the entry holds it and the file's
    /// stamp is the one indexed, not within the racy window (an inline map is its bytes: current while held).
    /// A file rewritten with no watched-file event is caught here, as `load_file` would catch it.
    pub fn is_current(&self, map: &Arc<LoadedMap>) -> bool {
        let entry = {
            let entries = self.entries.lock().expect("map store lock");
            match entries.get(&map.key) {
                Some(e) if matches!(e.cell.get(), Some(Ok(m)) if Arc::ptr_eq(m, map)) => e.clone(),
                _ => return false,
            }
        };
        let Some(path) = map.key.file() else {
            return true;
        };
        let racy = entry.racy_hash.try_lock().map_or(true, |h| h.is_some());
        !racy && std::fs::metadata(path).is_ok_and(|meta| entry.stamp == Some(stamp_of(&meta)))
    }

    /// Drops cached indexes of this file (a watched-file event); the next request rebuilds.
    pub fn invalidate(&self, path: &Path) {
        self.entries
            .lock()
            .expect("map store lock")
            .retain(|k, _| k.file() != Some(path));
    }

    fn remove_if_same(&self, key: &MapKey, entry: &Arc<Entry>) {
        let mut entries = self.entries.lock().expect("map store lock");
        if entries.get(key).is_some_and(|e| Arc::ptr_eq(e, entry)) {
            entries.remove(key);
        }
    }

    /// The index of an inline map (content-addressed, so never stale).
    pub async fn load_inline(&self, key: MapKey, bytes: Arc<Vec<u8>>) -> Built {
        let entry = {
            let mut entries = self.entries.lock().expect("map store lock");
            entries
                .entry(key.clone())
                .or_insert_with(|| Entry::new(None))
                .clone()
        };
        let budget = self.budget.clone();
        let result = entry
            .cell
            .get_or_init(|| async move {
                let k = key.clone();
                let task = tokio::task::spawn_blocking(move || {
                    SourceMapIndex::from_bytes_with(
                        bytes.to_vec(),
                        IndexOptions {
                            lazy: true,
                            lazy_names: true,
                        },
                    )
                    .map(|index| Arc::new(LoadedMap::new(k, index, &budget)))
                    .map_err(|e| Arc::new(LoadError::Invalid(e)))
                });
                task.await.unwrap_or_else(|e| {
                    Err(Arc::new(LoadError::Unreadable(format!(
                        "indexing failed: {e}"
                    ))))
                })
            })
            .await
            .clone();
        self.touch_and_evict(&entry);
        result
    }

    /// The index of the map file at `path`, as the file is now.
    ///
    /// The file is opened first and its stamp taken from the open descriptor, so the stamp always describes the
    /// bytes read (a writer that renames a new file into place cannot slip between a `stat` and an `open`); the
    /// stamp is taken again after reading, so a writer modifying the file in place during the read makes it retry.
    /// The answer therefore comes from a version of the file that was current while the request ran.
    pub async fn load_file(&self, path: &Path, max_bytes: u64) -> Built {
        let key = MapKey::File(path.to_path_buf());
        for attempt in 0..MAX_ATTEMPTS {
            if attempt > 0 {
                tokio::time::sleep(std::time::Duration::from_millis(attempt as u64)).await;
            }
            let unreadable = |e: std::io::Error| {
                Arc::new(LoadError::Unreadable(format!(
                    "cannot read {}: {e}",
                    path.display()
                )))
            };
            // Taken before the read: a rewrite after this instant either changes the stamp or is caught as racy.
            let read_at = SystemTime::now();
            let (file, meta) = open_regular(path).map_err(unreadable)?;
            let now = stamp_of(&meta);
            if now.len > max_bytes {
                return Err(Arc::new(LoadError::TooBig {
                    bytes: now.len,
                    limit: max_bytes,
                }));
            }
            let entry = {
                let mut entries = self.entries.lock().expect("map store lock");
                match entries.get(&key) {
                    Some(e) if e.stamp == Some(now) => e.clone(),
                    _ => {
                        let e = Entry::new(Some(now));
                        entries.insert(key.clone(), e.clone());
                        e
                    }
                }
            };
            let mut file = Some(file);
            let result = entry
                .cell
                .get_or_init(|| {
                    let file = file.take().expect("opened above");
                    self.build_file(path.to_path_buf(), file, now, read_at, entry.clone())
                })
                .await
                .clone();
            if matches!(&result, Err(e) if matches!(**e, LoadError::Changed)) {
                self.remove_if_same(&key, &entry);
                continue;
            }
            // Another request built this entry: if its stamp is racy, the bytes must still be the ones indexed.
            if let (Some(file), Ok(_)) = (file, &result) {
                match recheck(&entry, path, file, now).await {
                    Ok(Recheck::Same) => {}
                    Ok(Recheck::Differs) => {
                        tracing::debug!(path = %path.display(), "same stamp, new content: rebuilding");
                        self.remove_if_same(&key, &entry);
                        continue;
                    }
                    Err(e) if matches!(*e, LoadError::Changed) => continue,
                    Err(e) => return Err(e),
                }
            }
            self.touch_and_evict(&entry);
            return result;
        }
        Err(Arc::new(LoadError::Changed))
    }

    async fn build_file(
        &self,
        path: PathBuf,
        file: File,
        expected: Stamp,
        read_at: SystemTime,
        entry: Arc<Entry>,
    ) -> Built {
        let progress = (expected.len >= PROGRESS_THRESHOLD).then(|| {
            self.progress
                .begin("Indexing source map", path.display().to_string())
        });
        let p = path.clone();
        let budget = self.budget.clone();
        let task = tokio::task::spawn_blocking(move || -> Built {
            let started = std::time::Instant::now();
            let bytes = read_unchanged(&p, file, expected)?;
            let read = started.elapsed();
            if expected.is_racy(read_at) {
                // Uncontended: the entry is new and only this build holds it.
                *entry.racy_hash.blocking_lock() = Some(content_hash(&bytes));
            }
            // Lazy: the first hover pays for its own section only; diagnostics validate the rest in the background.
            let mut index = SourceMapIndex::from_bytes_with(
                bytes,
                IndexOptions {
                    lazy: true,
                    lazy_names: true,
                },
            )
            .map_err(|e| Arc::new(LoadError::Invalid(e)))?;
            let parsed = started.elapsed();
            // `sourcesContent` stays in the file until a source's text is needed (see `source_texts`).
            index.shed_contents(&p);
            tracing::debug!(?read, ?parsed, shed = ?started.elapsed(), "map read, parsed, shed");
            if expected.len as usize >= crate::lsp::maps::heap::TRIM_AFTER_BYTES {
                crate::lsp::maps::heap::release_free_memory();
            }
            Ok(Arc::new(LoadedMap::new(MapKey::File(p), index, &budget)))
        });
        let result = task.await.unwrap_or_else(|e| {
            Err(Arc::new(LoadError::Unreadable(format!(
                "indexing failed: {e}"
            ))))
        });
        if let Some(done) = progress.flatten() {
            let _ = done.send(result.is_ok());
        }
        tracing::debug!(path = %path.display(), ok = result.is_ok(), "indexed map");
        result
    }
}

/// Compares the content of a racy entry's file (opened by this request, with the entry's stamp) with the hash of
/// what was indexed. One check at a time per entry; a check made after the racy window ends them.
async fn recheck(
    entry: &Arc<Entry>,
    path: &Path,
    file: File,
    stamp: Stamp,
) -> Result<Recheck, Arc<LoadError>> {
    let mut racy = entry.racy_hash.lock().await;
    let Some(indexed) = *racy else {
        return Ok(Recheck::Same);
    };
    let checked_at = SystemTime::now();
    let path = path.to_path_buf();
    let hash = tokio::task::spawn_blocking(move || {
        read_unchanged(&path, file, stamp).map(|b| content_hash(&b))
    })
    .await
    .unwrap_or_else(|e| {
        Err(Arc::new(LoadError::Unreadable(format!(
            "reading failed: {e}"
        ))))
    })?;
    if hash != indexed {
        return Ok(Recheck::Differs);
    }
    if !stamp.is_racy(checked_at) {
        *racy = None;
    }
    Ok(Recheck::Same)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn least_recently_used_indexes_are_evicted_under_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let store = MapStore::default();
        let map = |name: &str| {
            let p = dir.path().join(name);
            std::fs::write(
                &p,
                // ~1 KB of mappings each: what an index holds (unread fields are shed).
                format!(
                    r#"{{"version":3,"sources":["{name}"],"mappings":"AAAA{}","pad":"{}"}}"#,
                    ",CAAA".repeat(200),
                    "x".repeat(1000)
                ),
            )
            .unwrap();
            p
        };
        let (a, b, c) = (map("a.map"), map("b.map"), map("c.map"));
        store.set_max_total_bytes(2500);
        store.load_file(&a, u64::MAX).await.unwrap();
        store.load_file(&b, u64::MAX).await.unwrap();
        store.load_file(&a, u64::MAX).await.unwrap(); // a is now more recent than b
        store.load_file(&c, u64::MAX).await.unwrap();
        let kept: Vec<String> = store
            .loaded()
            .iter()
            .map(|m| m.index.sources()[0].url.as_deref().unwrap().to_string())
            .collect();
        assert_eq!(kept.len(), 2, "{kept:?}");
        assert!(
            kept.contains(&"a.map".to_string()) && kept.contains(&"c.map".to_string()),
            "{kept:?}"
        );
        // An evicted map is simply rebuilt on its next use.
        assert_eq!(
            store.load_file(&b, u64::MAX).await.unwrap().index.sources()[0]
                .url
                .as_deref(),
            Some("b.map")
        );
    }

    fn rewrite_keeping_size_and_time(path: &Path, text: &str) {
        let before = std::fs::metadata(path).unwrap();
        assert_eq!(before.len(), text.len() as u64);
        let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        std::io::Write::write_all(&mut &f, text.as_bytes()).unwrap();
        f.set_modified(before.modified().unwrap()).unwrap();
        let after = std::fs::metadata(path).unwrap();
        assert_eq!(
            stamp_of(&after),
            stamp_of(&before),
            "the stamp cannot tell them apart"
        );
    }

    #[tokio::test]
    async fn a_same_size_rewrite_within_the_timestamp_granularity_is_seen_by_content() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.js.map");
        let map = |name: &str| format!(r#"{{"version":3,"sources":["{name}"],"mappings":"AAAA"}}"#);
        std::fs::write(&path, map("one.js")).unwrap();
        let store = MapStore::default();
        let first = store.load_file(&path, u64::MAX).await.unwrap();
        assert_eq!(first.index.sources()[0].url.as_deref(), Some("one.js"));
        // Same stamp, new bytes: only the content hash of a racy entry tells.
        rewrite_keeping_size_and_time(&path, &map("two.js"));
        let second = store.load_file(&path, u64::MAX).await.unwrap();
        assert_eq!(second.index.sources()[0].url.as_deref(), Some("two.js"));
        // Unchanged content keeps the index.
        let third = store.load_file(&path, u64::MAX).await.unwrap();
        assert!(Arc::ptr_eq(&second, &third));
    }

    #[tokio::test]
    async fn an_old_stamp_is_trusted_without_reading_the_file_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.js.map");
        let map = |name: &str| format!(r#"{{"version":3,"sources":["{name}"],"mappings":"AAAA"}}"#);
        std::fs::write(&path, map("one.js")).unwrap();
        let an_hour_ago = SystemTime::now() - Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(an_hour_ago)
            .unwrap();
        let store = MapStore::default();
        let first = store.load_file(&path, u64::MAX).await.unwrap();
        let entry = store
            .entries
            .lock()
            .unwrap()
            .values()
            .next()
            .unwrap()
            .clone();
        assert_eq!(
            *entry.racy_hash.lock().await,
            None,
            "not racy: no hash kept"
        );
        // A rewrite that forges the old size and time is the one case a stamp cannot see (as for git and make);
        // a watched-file event still invalidates it.
        rewrite_keeping_size_and_time(&path, &map("two.js"));
        let again = store.load_file(&path, u64::MAX).await.unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        store.invalidate(&path);
        let fresh = store.load_file(&path, u64::MAX).await.unwrap();
        assert_eq!(fresh.index.sources()[0].url.as_deref(), Some("two.js"));
    }

    #[tokio::test]
    async fn a_rewritten_map_is_rebuilt_and_never_answered_from_stale() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.js.map");
        std::fs::write(
            &path,
            r#"{"version":3,"sources":["one.js"],"mappings":"AAAA"}"#,
        )
        .unwrap();
        let store = MapStore::default();
        let first = store.load_file(&path, u64::MAX).await.unwrap();
        assert!(first.index.build_all().is_ok());
        assert_eq!(first.index.sources()[0].url.as_deref(), Some("one.js"));
        // Same size, different content: the modification time tells them apart.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(
            &path,
            r#"{"version":3,"sources":["two.js"],"mappings":"AAAA"}"#,
        )
        .unwrap();
        let second = store.load_file(&path, u64::MAX).await.unwrap();
        assert_eq!(second.index.sources()[0].url.as_deref(), Some("two.js"));
        std::fs::write(&path, "{").unwrap();
        assert!(matches!(
            *store.load_file(&path, u64::MAX).await.unwrap_err(),
            LoadError::Invalid(_)
        ));
        std::fs::remove_file(&path).unwrap();
        assert!(matches!(
            *store.load_file(&path, u64::MAX).await.unwrap_err(),
            LoadError::Unreadable(_)
        ));
        std::fs::write(&path, r#"{"version":3,"sources":[],"mappings":""}"#).unwrap();
        assert!(matches!(
            *store.load_file(&path, 5).await.unwrap_err(),
            LoadError::TooBig { .. }
        ));
    }
}
