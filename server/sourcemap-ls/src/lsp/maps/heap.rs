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

/// What had been freed at the last trim ([`sourcemap_core::map::measure::freed_bytes`]).
static FREED_AT_TRIM: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Whether the allocator has been handed back at least [`RELEASE_AFTER_FREED_BYTES`] since the last trim: then
/// [`release_free_memory`] is worth its milliseconds. A hover frees what it read (a source's text read back from
/// the map, a local file compared with it, evicted cache entries); without a trim, glibc kept those pages between
/// live blocks: on the real Metro build (`sourcemap-bench --hovers-only`, 2026-12-03) the heap held ~17 MB free
/// after 1,000 hovers, the steady memory 140.1 MB against a budget of 138.4 MB.
pub fn freed_enough() -> bool {
    let freed = sourcemap_core::map::measure::freed_bytes();
    let at = FREED_AT_TRIM.load(std::sync::atomic::Ordering::Relaxed);
    freed.wrapping_sub(at) >= RELEASE_AFTER_FREED_BYTES
}

/// Trims when [`freed_enough`]; called after requests (on the blocking pool: a trim walks the heap).
pub fn release_if_freed() {
    if freed_enough() {
        FREED_AT_TRIM.store(
            sourcemap_core::map::measure::freed_bytes(),
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

/// Blocks at least this large are mapped on their own and unmapped when freed, whatever glibc saw before.
///
/// glibc starts at 128 KiB but raises the threshold to the size of each mapped block freed, up to 32 MiB: once the
/// server had freed the copy of a 57 MB bundle, every transient block up to 32 MiB (a source's text read back from the
/// map, a local file read to compare it, a fit check's line table) came from the heap, and what was freed of it
/// stayed resident between the blocks still in use, where `malloc_trim` after large steps does not reach what later
/// requests free. A fixed threshold keeps glibc from adjusting it.
const MMAP_THRESHOLD: i32 = 256 << 10;

/// Caps glibc's arenas and fixes its mmap threshold (glibc only; elsewhere a no-op). Called once, before the
/// runtime's threads start.
pub fn limit_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` changes an allocator parameter; called before other threads exist; M_ARENA_MAX takes any
    // positive value and M_MMAP_THRESHOLD any value up to 32 MiB.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, MAX_ARENAS);
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
    }
}
