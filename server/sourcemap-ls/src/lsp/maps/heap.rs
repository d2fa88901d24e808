//! Giving freed memory back to the system after the large transient allocations of opening a bundle or a map.
//!
//! A 50 MB `didOpen` passes through tower-lsp as bytes, as a JSON value and as the parameters' `String` before it
//! becomes a rope; a map file is read whole before its unread parts are shed. glibc keeps much of what those free
//! in its arenas (one per worker thread) instead of returning it, so the server's resident memory stayed at twice
//! what it holds. `malloc_trim` returns the free pages; it costs a few milliseconds, so it runs only after such
//! large steps.

/// Documents and maps at least this large trigger a trim after they are taken in.
pub const TRIM_AFTER_BYTES: usize = 8 << 20;

/// Returns free heap pages to the system (glibc only; elsewhere a no-op).
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only releases memory the allocator holds free; it has no preconditions.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// A request that leaves at least this much freed since the last trim trims again ([`release_if_freed`]).
const RELEASE_AFTER_FREED_BYTES: usize = 4 << 20;

/// What had been freed at the last trim ([`sourcemap_core::internal::map::measure::freed_bytes`]).
static FREED_AT_TRIM: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Whether the allocator has been handed back at least [`RELEASE_AFTER_FREED_BYTES`] since the last trim: then
/// [`release_free_memory`] is worth its milliseconds. A hover frees what it read (a source's text read back from
/// the map, a local file compared with it, evicted cache entries), and the background validation and fit check
/// free more; without a trim, glibc kept those pages between live blocks: on the real Metro build
/// (`sourcemap-bench --hovers-only`, 2026-12-03) the heap held ~17 MB free after 1,000 hovers.
pub fn freed_enough() -> bool {
    let freed = sourcemap_core::internal::map::measure::freed_bytes();
    let at = FREED_AT_TRIM.load(std::sync::atomic::Ordering::Relaxed);
    freed.wrapping_sub(at) >= RELEASE_AFTER_FREED_BYTES
}

/// How long requests must pause before a trim: with one arena, a trim holds the allocator's lock while it walks the
/// heap (tens of milliseconds on 200 MB), and any request allocating meanwhile waits for it. Trimming as soon as a
/// hover had seen 4 MiB freed put hover p99 on the generated Metro-scale map at 51 ms (5.7 ms before): the hovers
/// ran beside the background validation and fit check, which free that much all the time.
const IDLE_BEFORE_TRIM: std::time::Duration = std::time::Duration::from_millis(200);

/// Requests answered so far: a trim scheduled after one runs only if no other was answered since.
static ANSWERED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Called as each request is answered (inside the runtime): when [`freed_enough`], a trim is scheduled for
/// [`IDLE_BEFORE_TRIM`] later, on the blocking pool, if no request is answered in between.
pub fn after_request() {
    use std::sync::atomic::Ordering;
    let n = ANSWERED.fetch_add(1, Ordering::Relaxed) + 1;
    if !freed_enough() {
        return;
    }
    tokio::spawn(async move {
        tokio::time::sleep(IDLE_BEFORE_TRIM).await;
        if ANSWERED.load(Ordering::Relaxed) == n {
            tokio::task::spawn_blocking(release_if_freed);
        }
    });
}

/// Trims when [`freed_enough`] (blocking: a trim walks the heap).
pub fn release_if_freed() {
    if freed_enough() {
        FREED_AT_TRIM.store(
            sourcemap_core::internal::map::measure::freed_bytes(),
            std::sync::atomic::Ordering::Relaxed,
        );
        release_free_memory();
    }
}

/// At most this many glibc arenas in the language server.
///
/// glibc gives each thread that allocates under contention its own arena (up to 8 per core), and each keeps what is
/// freed in it: the server's blocking pool indexes maps and checks bundles on threads that come and go. On the
/// editor benchmark's Metro-scale build (`sourcemap-bench --editor-only`, 2026-12-02) the steady anonymous memory
/// was 104.0–108.4 MB by default (median 108.0 MB of 7 runs); capped at two arenas 101.7–106.4 MB (4 runs); at one,
/// 100.5–100.6 MB (3 runs), with first hover (309–318 ms) and hover p99 (5.0–5.3 ms) within the default's spread
/// and `sourcemap/symbolicate` of 20,000 frames at 0.84–0.92× the CLI. The budget is 1.1 × bundle + 1.5 × mappings
/// = 107.3 MB. One lock for every allocation costs the server nothing measurable: its requests are short, and its
/// long work (indexing, parsing) runs a thread at a time per request. The CLI keeps glibc's default.
const MAX_ARENAS: i32 = 1;

/// Caps glibc's arenas (glibc only; elsewhere a no-op). Called once, before the runtime's threads start.
///
/// (A fixed mmap threshold, 256 KiB, so that glibc would not keep large transients on the heap, was tried beside the
/// trims after requests (issue 44): the same steady and peak memory on both editor builds of the benchmark, so it
/// was left out.)
pub fn limit_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` changes an allocator parameter; called before other threads exist, and M_ARENA_MAX takes
    // any positive value.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, MAX_ARENAS);
    }
}
