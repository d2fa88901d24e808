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
pub fn limit_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` changes an allocator parameter; called before other threads exist, and M_ARENA_MAX takes
    // any positive value.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, MAX_ARENAS);
    }
}
