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
