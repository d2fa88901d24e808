//! A global allocator that counts live heap bytes, so `stats` and the benchmark report what structures hold,
//! measured, not estimated. A binary opts in with `#[global_allocator] static A: CountingAllocator = CountingAllocator;`;
//! the cost is a plain load and store per allocation on counters the thread owns alone (`Shard`), no locked
//! instruction.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicUsize, Ordering};

/// Forwards every call to the system allocator and counts the live heap bytes (see the module documentation).
pub struct CountingAllocator;

/// The counters of one thread at a time. A single counter that every thread added to was one cache line bounced
/// between the cores at every allocation: half the time of `symbolicate --ndjson --jobs 2` (`perf`: 48 % in the
/// allocator's two functions) and two jobs no faster than one (issue 56). Then one shard per thread, added to with
/// `lock add` (a thread could share its shard): the locked adds were still 10 % of a warm event (`perf annotate`:
/// the `lock add` of `dealloc` 46 % of that function). Now a shard has one owner, which updates it with a plain load
/// and store (`Relaxed` loads and stores are plain moves); readers sum the shards. Summed when read: the totals are
/// exact, only spread out.
#[repr(align(128))]
struct Shard {
    /// Live bytes allocated less freed through this shard (a thread may free what another allocated: negative).
    live: AtomicIsize,
    /// Bytes freed through this shard (wrapping).
    freed: AtomicUsize,
    /// Whether a thread owns the shard (taken at its first allocation, given back when it ends).
    owned: AtomicBool,
}

/// Threads alive at once with a shard of their own; more than that share [`SHARED`].
const SHARDS: usize = 64;
static COUNTERS: [Shard; SHARDS] = [const {
    Shard {
        live: AtomicIsize::new(0),
        freed: AtomicUsize::new(0),
        owned: AtomicBool::new(false),
    }
}; SHARDS];
/// The shard of threads without one of their own (past [`SHARDS`], or ending), updated with locked adds.
static SHARED: Shard = Shard {
    live: AtomicIsize::new(0),
    freed: AtomicUsize::new(0),
    owned: AtomicBool::new(true),
};

/// [`SHARD`] before the thread's first allocation.
const UNASSIGNED: usize = usize::MAX;
/// [`SHARD`] of a thread counted in [`SHARED`].
const IN_SHARED: usize = usize::MAX - 1;

thread_local! {
    /// This thread's shard. A `const` `Cell` needs no allocation and no destructor, so the allocator may use it.
    static SHARD: Cell<usize> = const { Cell::new(UNASSIGNED) };
    /// Gives the shard back when the thread ends (its destructor is registered at the first use, before the shard is
    /// taken: registering may allocate, which then counts in [`SHARED`]).
    static OWNER: Owner = const { Owner };
}

struct Owner;

impl Drop for Owner {
    fn drop(&mut self) {
        let _ = SHARD.try_with(|s| {
            let k = s.replace(IN_SHARED);
            if k < SHARDS {
                COUNTERS[k].owned.store(false, Ordering::Release);
            }
        });
    }
}

/// This thread's shard, and whether the thread owns it alone.
fn shard() -> (&'static Shard, bool) {
    let k = SHARD
        .try_with(|s| {
            let mut k = s.get();
            if k == UNASSIGNED {
                s.set(IN_SHARED);
                k = take_shard();
                s.set(k);
            }
            k
        })
        // A thread whose locals are gone (its last frees) counts in the shared shard.
        .unwrap_or(IN_SHARED);
    match COUNTERS.get(k) {
        Some(s) => (s, true),
        None => (&SHARED, false),
    }
}

/// A free shard for this thread, once its destructor is registered; [`IN_SHARED`] when every shard is owned.
fn take_shard() -> usize {
    if OWNER.try_with(|_| ()).is_err() {
        return IN_SHARED;
    }
    (0..SHARDS)
        .find(|&k| {
            COUNTERS[k]
                .owned
                .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
        })
        .unwrap_or(IN_SHARED)
}

fn add_live(s: &Shard, owned: bool, bytes: isize) {
    if owned {
        s.live
            .store(s.live.load(Ordering::Relaxed) + bytes, Ordering::Relaxed);
    } else {
        s.live.fetch_add(bytes, Ordering::Relaxed);
    }
}

fn allocated(bytes: usize) {
    let (s, owned) = shard();
    add_live(s, owned, bytes as isize);
}

fn freed(bytes: usize, given_back: usize) {
    let (s, owned) = shard();
    add_live(s, owned, -(bytes as isize));
    if given_back == 0 {
        return;
    }
    if owned {
        s.freed.store(
            s.freed.load(Ordering::Relaxed).wrapping_add(given_back),
            Ordering::Relaxed,
        );
    } else {
        s.freed.fetch_add(given_back, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded to `System` unchanged; only a counter is updated beside it.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            allocated(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            allocated(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        freed(layout.size(), layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            allocated(new_size);
            freed(layout.size(), layout.size().saturating_sub(new_size));
        }
        p
    }
}

/// Heap bytes currently allocated by the process.
pub fn live_bytes() -> usize {
    let live: isize = COUNTERS
        .iter()
        .chain([&SHARED])
        .map(|s| s.live.load(Ordering::Relaxed))
        .sum();
    live.max(0) as usize
}

/// Heap bytes freed since the process started (a shrinking `realloc` counts what it gave back), wrapping.
pub fn freed_bytes() -> usize {
    COUNTERS.iter().chain([&SHARED]).fold(0usize, |sum, s| {
        sum.wrapping_add(s.freed.load(Ordering::Relaxed))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// More threads at once than shards, each ending: every byte counted once, whichever shard it went to (the test
    /// binary's allocator is not this one, so only these calls count).
    #[test]
    fn counts_are_exact_across_owned_and_shared_shards() {
        let threads = SHARDS + 36;
        let barrier = std::sync::Barrier::new(threads);
        let (live0, freed0) = (live_bytes(), freed_bytes());
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    barrier.wait();
                    for _ in 0..1_000 {
                        allocated(1_000);
                    }
                    for _ in 0..999 {
                        freed(1_000, 1_000);
                    }
                    barrier.wait();
                });
            }
        });
        assert_eq!(live_bytes() - live0, threads * 1_000);
        assert_eq!(freed_bytes() - freed0, threads * 999 * 1_000);
        // The ended threads give their shards back (their locals are destroyed after `scope` has seen them end).
        let given_back = || COUNTERS.iter().all(|s| !s.owned.load(Ordering::Relaxed));
        let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while !given_back() && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(given_back());
    }
}
