//! A cache prefetch hint, for the lookups of a large map: the parts of an answer whose addresses are known before
//! the VLQ is decoded (a section's names, its source) are requested first, so that their cache misses overlap the
//! decoding instead of following it.

/// Hints that `p` will be read soon. Never faults and changes nothing observable, whatever `p` is.
#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE is part of every x86_64 target, and a prefetch of any address (even an invalid one) neither
        // faults nor reads anything the program can observe.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p as *const i8) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
