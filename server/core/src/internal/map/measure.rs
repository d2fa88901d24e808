//! A global allocator that counts live heap bytes, so `stats` and the benchmark report what structures hold,
//! measured, not estimated. A binary opts in with `#[global_allocator] static A: CountingAllocator = CountingAllocator;`;
//! the cost is one relaxed atomic add per allocation, two per free.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Forwards every call to the system allocator and counts the live heap bytes (see the module documentation).
pub struct CountingAllocator;

static LIVE: AtomicUsize = AtomicUsize::new(0);
/// Bytes freed since the process started (wrapping): how much a step gave back to the allocator, which is what
/// the language server's `heap::release_if_freed` weighs before asking glibc to return free pages.
static FREED: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to `System` unchanged; only a counter is updated beside it.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        FREED.fetch_add(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            LIVE.fetch_add(new_size, Ordering::Relaxed);
            FREED.fetch_add(layout.size().saturating_sub(new_size), Ordering::Relaxed);
        }
        p
    }
}

/// Heap bytes currently allocated by the process.
pub fn live_bytes() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// Heap bytes freed since the process started (a shrinking `realloc` counts what it gave back), wrapping.
pub fn freed_bytes() -> usize {
    FREED.load(Ordering::Relaxed)
}
