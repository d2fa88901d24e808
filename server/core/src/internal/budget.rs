//! One memory budget for every cache the server keeps beside its indexes (issue 44), and a pipeline's opened maps: the source texts read back
//! from maps, the function scopes of bundles and sources, the diffs of edited sources, the verdicts on local files.
//! Each cache is an [`Lru`] that registers with the server's one [`CacheBudget`]; after every insertion, while all
//! of them together hold more than the budget, the entry used least recently in any of them is dropped. Evicted
//! values are computed again on the next use, from the same text, so an answer never depends on what was kept.
//!
//! Before, each cache had its own count (64 texts and 32 MiB per map, 32 parsed texts per map cleared when full),
//! so a day of hovers across a large build's modules kept what every cap allowed, per map. Cost: per entry, its
//! value's heap ([`ENTRY_OVERHEAD`] is added for the key and the bookkeeping) and one `BTreeMap` node of recency.
//!
//! Fit reports are counted but never evicted ([`Lru::pinned`]): a hover only reads the report the background check
//! left, and a report dropped would let it answer where the map does not fit. They are few (8 per map) and small.

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use serde::Serialize;

/// Default budget for all caches together. On the real Metro build of the editor benchmark (57 MB bundle, 50.6 MB
/// of `mappings`, `sourcemap-bench --hovers-only`) the document and the index alone are ~130 MB of live heap after
/// the first hover, against a budget for the whole server of 1.1 × bundle + 1.5 × mappings = 138.4 MB (issue 44):
/// caches get 4 MiB. That holds a few hundred typical modules' texts; a source larger than the budget
/// (`typescript.js`, 9 MB) is read back from the map for each hover into it (~10 ms) instead of staying.
pub const DEFAULT_MAX_CACHE_BYTES: u64 = 4 << 20;

/// Bytes counted per entry beside its value: key, recency node, hash-table slot.
pub const ENTRY_OVERHEAD: usize = 96;

/// What one cache holds, for `sourcemap/mapInfo` and `stats --memory`.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct CacheUsage {
    /// What the cache holds (`sourceTexts`, `maps`…).
    pub kind: &'static str,
    /// How many entries.
    pub entries: usize,
    /// Their bytes, overhead included.
    pub bytes: usize,
    /// Whether the budget may evict its entries (fit reports may not).
    pub evictable: bool,
}

/// A cache the budget can ask to give up its least recently used entry.
trait Evictable: Send + Sync {
    /// The tick its least recently used entry was last used at (`None`: empty, or never evicted).
    fn oldest(&self) -> Option<u64>;
    /// Drops its least recently used entry; the bytes freed.
    fn evict_oldest(&self) -> usize;
    fn usage(&self) -> CacheUsage;
}

/// The server's one budget for its caches.
#[derive(Default)]
pub struct CacheBudget {
    /// Bytes all caches together may hold (0: [`DEFAULT_MAX_CACHE_BYTES`]).
    limit: AtomicU64,
    /// A tick per use of any entry: least recently used is smallest.
    clock: AtomicU64,
    evictions: AtomicU64,
    caches: Mutex<Vec<Weak<dyn Evictable>>>,
}

impl std::fmt::Debug for CacheBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CacheBudget")
            .field("limit", &self.limit())
            .finish_non_exhaustive()
    }
}

/// The budget, what is used of it, and by which caches (`sourcemap/mapInfo`'s `caches`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetReport {
    /// The limit.
    pub budget_bytes: u64,
    /// What all caches hold together.
    pub used_bytes: u64,
    /// Entries dropped to keep within the limit, since the start.
    pub evictions: u64,
    /// Each kind of cache, summed over the maps loaded.
    pub kinds: Vec<CacheUsage>,
}

impl CacheBudget {
    /// A budget of `limit` bytes (0: the default).
    pub fn new(limit: u64) -> Arc<Self> {
        let b = CacheBudget::default();
        b.limit.store(limit, Ordering::Relaxed);
        Arc::new(b)
    }

    /// Changes the limit (0: the default); entries beyond it go at the next insertion.
    pub fn set_limit(&self, bytes: u64) {
        self.limit.store(bytes, Ordering::Relaxed);
    }

    /// The limit in bytes.
    pub fn limit(&self) -> u64 {
        match self.limit.load(Ordering::Relaxed) {
            0 => DEFAULT_MAX_CACHE_BYTES,
            l => l,
        }
    }

    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed) + 1
    }

    fn register(&self, cache: Weak<dyn Evictable>) {
        let mut caches = self.caches.lock().expect("budget lock");
        caches.retain(|c| c.strong_count() > 0);
        caches.push(cache);
    }

    fn live(&self) -> Vec<Arc<dyn Evictable>> {
        let mut caches = self.caches.lock().expect("budget lock");
        caches.retain(|c| c.strong_count() > 0);
        caches.iter().filter_map(Weak::upgrade).collect()
    }

    /// Evicts least recently used entries, across every cache, until all fit the budget. Called with no cache's
    /// lock held.
    fn enforce(&self) {
        let caches = self.live();
        let limit = self.limit() as usize;
        let mut used: usize = caches.iter().map(|c| c.usage().bytes).sum();
        while used > limit {
            let Some(victim) = caches
                .iter()
                .filter_map(|c| c.oldest().map(|t| (t, c)))
                .min_by_key(|(t, _)| *t)
                .map(|(_, c)| c)
            else {
                break;
            };
            let freed = victim.evict_oldest();
            self.evictions.fetch_add(1, Ordering::Relaxed);
            used = used.saturating_sub(freed);
        }
    }

    /// What the caches hold now, by kind.
    pub fn report(&self) -> BudgetReport {
        let mut kinds: Vec<CacheUsage> = Vec::new();
        for c in self.live() {
            let u = c.usage();
            match kinds.iter_mut().find(|k| k.kind == u.kind) {
                Some(k) => {
                    k.entries += u.entries;
                    k.bytes += u.bytes;
                }
                None => kinds.push(u),
            }
        }
        kinds.sort_by_key(|k| k.kind);
        BudgetReport {
            budget_bytes: self.limit(),
            used_bytes: kinds.iter().map(|k| k.bytes as u64).sum(),
            evictions: self.evictions.load(Ordering::Relaxed),
            kinds,
        }
    }
}

struct Slot<V> {
    value: V,
    bytes: usize,
    /// The tick of its last use.
    used: u64,
    /// The tick it is listed under in `recency` (its last use when it was last listed).
    listed: u64,
}

struct Inner<K, V> {
    slots: HashMap<K, Slot<V>, foldhash::fast::RandomState>,
    /// Each key once, by the tick it was listed under: a use does not list it again (a warm pipeline event's
    /// lookups each moved a node of this tree), so the first entries are brought up to date before one is taken as
    /// the least recently used ([`Inner::oldest`]).
    recency: BTreeMap<u64, K>,
    bytes: usize,
}

impl<K: Eq + Hash + Clone, V> Inner<K, V> {
    /// The least recently used key's tick, the entries used since they were listed listed again first.
    fn oldest(&mut self) -> Option<u64> {
        loop {
            let (&listed, key) = self.recency.first_key_value()?;
            let Some(slot) = self.slots.get_mut(key) else {
                // Not reached: a key leaves `recency` when it leaves `slots`.
                self.recency.pop_first();
                continue;
            };
            if slot.used == listed {
                return Some(listed);
            }
            slot.listed = slot.used;
            let (_, key) = self.recency.pop_first().expect("a first entry");
            self.recency.insert(slot.used, key);
        }
    }
}

/// One cache under the budget: values by key, least recently used evicted first (by the budget, across caches).
pub struct Lru<K, V> {
    kind: &'static str,
    pinned: bool,
    budget: Arc<CacheBudget>,
    inner: Mutex<Inner<K, V>>,
}

impl<K, V> std::fmt::Debug for Lru<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lru")
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

impl<K, V> Lru<K, V>
where
    K: Eq + Hash + Clone + Send + 'static,
    V: Clone + Send + 'static,
{
    /// A cache named `kind` under `budget`.
    pub fn new(kind: &'static str, budget: &Arc<CacheBudget>) -> Arc<Self> {
        Self::make(kind, budget, false)
    }

    /// A cache counted in the budget whose entries the budget never evicts (see the module's comment).
    pub fn pinned(kind: &'static str, budget: &Arc<CacheBudget>) -> Arc<Self> {
        Self::make(kind, budget, true)
    }

    fn make(kind: &'static str, budget: &Arc<CacheBudget>, pinned: bool) -> Arc<Self> {
        let lru = Arc::new(Lru {
            kind,
            pinned,
            budget: budget.clone(),
            inner: Mutex::new(Inner {
                slots: HashMap::default(),
                recency: BTreeMap::new(),
                bytes: 0,
            }),
        });
        let weak: Weak<dyn Evictable> = Arc::downgrade(&lru) as Weak<dyn Evictable>;
        budget.register(weak);
        lru
    }

    /// The value kept for `key`, now the most recently used.
    pub fn get(&self, key: &K) -> Option<V> {
        let tick = self.budget.tick();
        let mut inner = self.inner.lock().expect("lru lock");
        let inner = &mut *inner;
        let slot = inner.slots.get_mut(key)?;
        slot.used = tick;
        Some(slot.value.clone())
    }

    /// Keeps `value` (of `bytes` heap) for `key`, then evicts across the budget. A value larger than the whole
    /// budget is not kept (a pinned cache keeps it).
    pub fn insert(&self, key: K, value: V, bytes: usize) {
        let bytes = bytes + ENTRY_OVERHEAD;
        if !self.pinned && bytes as u64 > self.budget.limit() {
            self.remove(&key);
            return;
        }
        let tick = self.budget.tick();
        {
            let mut inner = self.inner.lock().expect("lru lock");
            if let Some(old) = inner.slots.remove(&key) {
                inner.recency.remove(&old.listed);
                inner.bytes -= old.bytes;
            }
            inner.recency.insert(tick, key.clone());
            inner.bytes += bytes;
            inner.slots.insert(
                key,
                Slot {
                    value,
                    bytes,
                    used: tick,
                    listed: tick,
                },
            );
        }
        self.budget.enforce();
    }

    /// Counts `key`'s entry at `bytes` of heap from now (a value that grew since it was kept), then evicts across
    /// the budget, as [`Lru::insert`] would. Nothing when the key is not kept.
    pub fn resize(&self, key: &K, bytes: usize) {
        let bytes = bytes + ENTRY_OVERHEAD;
        if !self.pinned && bytes as u64 > self.budget.limit() {
            self.remove(key);
            return;
        }
        {
            let mut inner = self.inner.lock().expect("lru lock");
            let inner = &mut *inner;
            let Some(slot) = inner.slots.get_mut(key) else {
                return;
            };
            inner.bytes = inner.bytes - slot.bytes + bytes;
            slot.bytes = bytes;
        }
        self.budget.enforce();
    }

    /// Drops `key`'s entry, if any.
    pub fn remove(&self, key: &K) {
        let mut inner = self.inner.lock().expect("lru lock");
        if let Some(old) = inner.slots.remove(key) {
            inner.recency.remove(&old.listed);
            inner.bytes -= old.bytes;
        }
    }

    /// Entries and bytes held.
    pub fn usage(&self) -> CacheUsage {
        let inner = self.inner.lock().expect("lru lock");
        CacheUsage {
            kind: self.kind,
            entries: inner.slots.len(),
            bytes: inner.bytes,
            evictable: !self.pinned,
        }
    }

    /// Drops its least recently used entry (a pinned cache's own cap).
    pub fn drop_oldest(&self) {
        Evictable::evict_oldest(self);
    }

    /// Whether `key` is kept, without counting a use.
    #[cfg(test)]
    fn holds(&self, key: &K) -> bool {
        self.inner.lock().expect("lru lock").slots.contains_key(key)
    }

    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.inner.lock().expect("lru lock").slots.len()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<K, V> Evictable for Lru<K, V>
where
    K: Eq + Hash + Clone + Send + 'static,
    V: Clone + Send + 'static,
{
    fn oldest(&self) -> Option<u64> {
        if self.pinned {
            return None;
        }
        self.inner.lock().expect("lru lock").oldest()
    }

    fn evict_oldest(&self) -> usize {
        // The value is dropped after the lock is released: a large text's free is not done under it.
        let evicted = {
            let mut inner = self.inner.lock().expect("lru lock");
            inner.oldest();
            let Some((_, key)) = inner.recency.pop_first() else {
                return 0;
            };
            let slot = inner.slots.remove(&key);
            if let Some(s) = &slot {
                inner.bytes -= s.bytes;
            }
            slot
        };
        evicted.map_or(0, |s| s.bytes)
    }

    fn usage(&self) -> CacheUsage {
        Lru::usage(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_entry_of_any_cache_goes_first() {
        let budget = CacheBudget::new(3 * (100 + ENTRY_OVERHEAD) as u64);
        let a: Arc<Lru<u32, u32>> = Lru::new("a", &budget);
        let b: Arc<Lru<u32, u32>> = Lru::new("b", &budget);
        a.insert(1, 10, 100);
        b.insert(1, 20, 100);
        a.insert(2, 30, 100);
        // Using a's first entry makes b's the least recently used.
        assert_eq!(a.get(&1), Some(10));
        b.insert(2, 40, 100);
        assert_eq!(b.get(&1), None);
        assert_eq!((a.len(), b.len()), (2, 1));
        let report = budget.report();
        assert_eq!(report.used_bytes, 3 * (100 + ENTRY_OVERHEAD) as u64);
        assert_eq!(report.evictions, 1);
        assert_eq!(
            report.kinds.iter().map(|k| k.kind).collect::<Vec<_>>(),
            ["a", "b"]
        );
    }

    /// Uses are not listed again until an eviction looks (`Inner::oldest`): the order of eviction is still the
    /// order of last use, across caches, entries used many times and entries replaced included.
    #[test]
    fn entries_go_in_the_order_of_their_last_use() {
        let budget = CacheBudget::new(4 * (100 + ENTRY_OVERHEAD) as u64);
        let a: Arc<Lru<u32, u32>> = Lru::new("a", &budget);
        let b: Arc<Lru<u32, u32>> = Lru::new("b", &budget);
        a.insert(1, 1, 100);
        a.insert(2, 2, 100);
        b.insert(3, 3, 100);
        a.insert(4, 4, 100);
        // Last uses, oldest first: 3 (b's), 4, 2 (replaced), 1 (used four times).
        for _ in 0..3 {
            assert_eq!(a.get(&1), Some(1));
        }
        a.insert(2, 20, 100);
        assert_eq!(a.get(&1), Some(1));
        assert_eq!(b.oldest(), Some(3), "b's entry as listed");
        // Each new entry of 5..=8 evicts one: the kept keys of 1..=4 after each, without a use.
        let kept = || -> Vec<u32> { (1..=4).filter(|k| a.holds(k) || b.holds(k)).collect() };
        let mut after = Vec::new();
        for k in 5..=8 {
            a.insert(k, k, 100);
            after.push(kept());
        }
        assert_eq!(after, [vec![1, 2, 4], vec![1, 2], vec![1], vec![]]);
    }

    #[test]
    fn an_entry_that_grew_is_counted_again_and_evicts_the_oldest() {
        let budget = CacheBudget::new(3 * (100 + ENTRY_OVERHEAD) as u64);
        let scopes: Arc<Lru<u32, u32>> = Lru::new("scopes", &budget);
        scopes.insert(1, 10, 100);
        scopes.insert(2, 20, 100);
        scopes.insert(3, 30, 0);
        assert_eq!(scopes.len(), 3);
        // The newest grows to what two entries held: the oldest goes.
        scopes.resize(&3, 200);
        assert_eq!(
            (scopes.get(&1), scopes.get(&2), scopes.get(&3)),
            (None, Some(20), Some(30))
        );
        assert_eq!(scopes.usage().bytes, 300 + 2 * ENTRY_OVERHEAD);
        // Larger than the whole budget: not kept; an absent key: nothing.
        scopes.resize(&3, 10_000);
        scopes.resize(&9, 10);
        assert_eq!((scopes.len(), scopes.get(&3)), (1, None));
        assert_eq!(scopes.usage().bytes, 100 + ENTRY_OVERHEAD);
    }

    #[test]
    fn pinned_entries_count_but_stay_and_a_dropped_cache_leaves_the_budget() {
        let budget = CacheBudget::new(2 * (100 + ENTRY_OVERHEAD) as u64);
        let fits: Arc<Lru<u32, u32>> = Lru::pinned("fits", &budget);
        let texts: Arc<Lru<u32, u32>> = Lru::new("texts", &budget);
        fits.insert(1, 1, 100);
        texts.insert(1, 1, 100);
        texts.insert(2, 2, 100);
        assert_eq!(fits.get(&1), Some(1));
        assert_eq!(texts.len(), 1);
        // Larger than the whole budget: not kept.
        texts.insert(3, 3, 10_000);
        assert_eq!(texts.get(&3), None);
        drop(texts);
        assert_eq!(budget.report().kinds.len(), 1);
    }
}
