//! Opened maps shared by the sessions of many events ([`OpenedMaps`]): a pipeline opens a map once however many events
//! use it, never twice at once, and keeps what its budget holds, least recently used going first (the budget is
//! `internal::budget`'s, the one the language server's caches share).
//!
//! A map is kept with its checkpoints built (every section, once). Its first event checks its fit near that event's
//! frames only (`KnownMap::fit_near_only`: a pipeline meets most maps once, a release's first events); from its
//! second, the fit is checked over the whole map, once, and answers every later event (a check near one event's
//! frames would not answer another's). Its size in the budget is its buffer and its checkpoints.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::KnownMap;
use crate::internal::budget::{BudgetReport, CacheBudget, Lru};

type Opening = Arc<OnceLock<Option<Arc<KnownMap>>>>;

/// See the module documentation.
pub struct OpenedMaps {
    budget: Arc<CacheBudget>,
    maps: Arc<Lru<PathBuf, Arc<KnownMap>>>,
    /// Maps being opened, by path: a second asker waits for the first's open.
    opening: Mutex<HashMap<PathBuf, Opening>>,
    hits: AtomicU64,
    misses: AtomicU64,
}

/// What the cache did, for a pipeline's periodic line.
#[derive(Debug, Clone)]
pub struct CacheStats {
    /// Maps asked for and found open.
    pub hits: u64,
    /// Maps asked for and opened (or found not to be maps).
    pub misses: u64,
    /// The budget and what is held of it.
    pub budget: BudgetReport,
}

impl CacheStats {
    /// Hits over all asks (1 when nothing was asked).
    pub fn hit_ratio(&self) -> f64 {
        let asked = self.hits + self.misses;
        if asked == 0 {
            1.0
        } else {
            self.hits as f64 / asked as f64
        }
    }
}

impl OpenedMaps {
    /// A cache holding at most `budget_bytes` of maps (one larger than that is opened for the event that needs it and
    /// not kept).
    pub fn new(budget_bytes: u64) -> Arc<OpenedMaps> {
        let budget = CacheBudget::new(budget_bytes.max(1));
        Arc::new(OpenedMaps {
            maps: Lru::new("maps", &budget),
            budget,
            opening: Mutex::new(HashMap::new()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        })
    }

    /// The map at `path` (canonical), opened by `open` unless it is held; while one caller opens it, others asking
    /// for it wait for that open. `None`: `open` found no map there (not kept: asked again, it is tried again).
    pub fn get_or_open(
        &self,
        path: &Path,
        open: impl FnOnce() -> Option<KnownMap>,
    ) -> Option<Arc<KnownMap>> {
        let key = path.to_path_buf();
        if let Some(m) = self.maps.get(&key) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Some(m);
        }
        let slot = self
            .opening
            .lock()
            .expect("opening lock")
            .entry(key.clone())
            .or_default()
            .clone();
        let mut opened_here = false;
        let map = slot
            .get_or_init(|| {
                opened_here = true;
                let map = open()?;
                // Every section's checkpoints now: their errors stay with their sections, as when built lazily.
                let _ = map.index.build_all();
                Some(Arc::new(map))
            })
            .clone();
        if opened_here {
            self.misses.fetch_add(1, Ordering::Relaxed);
            if let Some(m) = &map {
                let bytes = m.index.buffer().len() + m.index.checkpoint_heap_bytes();
                self.maps.insert(key.clone(), m.clone(), bytes);
            }
            // Kept (or not) before the slot goes, so a later asker finds it held.
            let mut opening = self.opening.lock().expect("opening lock");
            if opening.get(&key).is_some_and(|s| Arc::ptr_eq(s, &slot)) {
                opening.remove(&key);
            }
        } else {
            self.hits.fetch_add(1, Ordering::Relaxed);
        }
        map
    }

    /// The budget the maps are kept under (other caches may share it).
    pub fn budget(&self) -> &Arc<CacheBudget> {
        &self.budget
    }

    /// What the cache did so far.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            budget: self.budget.report(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(dir: &Path, name: &str, bytes: usize) -> PathBuf {
        let path = dir.join(name);
        let padding = "x".repeat(bytes);
        std::fs::write(
            &path,
            format!(
                r#"{{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAA","x_pad":"{padding}"}}"#
            ),
        )
        .unwrap();
        path
    }

    /// A map is opened once however many threads ask at once; the budget keeps the most recently used and evicts
    /// the least; a map evicted is opened again when asked.
    #[test]
    fn one_open_at_a_time_and_least_recently_used_first() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            map(dir.path(), "a.map", 40_000),
            map(dir.path(), "b.map", 40_000),
            map(dir.path(), "c.map", 40_000),
        );
        let cache = OpenedMaps::new(100_000);
        let opens = AtomicU64::new(0);
        let open = |p: &Path| {
            opens.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(20));
            KnownMap::open(p).ok()
        };
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| assert!(cache.get_or_open(&a, || open(&a)).is_some()));
            }
        });
        assert_eq!(opens.load(Ordering::SeqCst), 1, "eight askers, one open");
        cache.get_or_open(&b, || open(&b)).unwrap();
        cache.get_or_open(&a, || open(&a)).unwrap();
        // c pushes out the least recently used: b.
        cache.get_or_open(&c, || open(&c)).unwrap();
        assert_eq!(opens.load(Ordering::SeqCst), 3);
        cache.get_or_open(&a, || open(&a)).unwrap();
        assert_eq!(opens.load(Ordering::SeqCst), 3, "a stayed");
        cache.get_or_open(&b, || open(&b)).unwrap();
        assert_eq!(
            opens.load(Ordering::SeqCst),
            4,
            "b was evicted, opened again"
        );
        let stats = cache.stats();
        assert!(stats.budget.used_bytes <= 100_000, "{stats:?}");
        assert_eq!((stats.hits, stats.misses), (9, 4));
        assert!(cache
            .get_or_open(&dir.path().join("none.map"), || None)
            .is_none());
    }
}
