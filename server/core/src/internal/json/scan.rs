//! The one JSON string scanner of the core: 64 bytes at a time, quotes, backslashes and control characters found by
//! SSE2 (a scalar loop elsewhere; a string's first 16 bytes with one load), and the bytes a backslash escapes found with simdjson's carry trick. The strict
//! reader of valid maps (`fast_read`) and the skim of index maps (`sparse`) both use it.

/// Bit i set where byte i of `chunk` (64 bytes) is a quote, a backslash, a control character (below 0x20).
#[cfg(target_arch = "x86_64")]
pub(crate) fn masks64(chunk: &[u8]) -> (u64, u64, u64) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_set1_epi8,
    };
    assert!(chunk.len() >= 64);
    let (mut quotes, mut backslashes, mut controls) = (0u64, 0u64, 0u64);
    // SAFETY: SSE2 is part of every x86_64 target; each unaligned load reads 16 bytes inside `chunk` (checked above).
    unsafe {
        let quote = _mm_set1_epi8(b'"' as i8);
        let backslash = _mm_set1_epi8(b'\\' as i8);
        let last_control = _mm_set1_epi8(0x1F);
        for k in 0..4 {
            let v = _mm_loadu_si128(chunk.as_ptr().add(16 * k) as *const __m128i);
            let bit = |m: __m128i| u64::from(_mm_movemask_epi8(m) as u16) << (16 * k);
            quotes |= bit(_mm_cmpeq_epi8(v, quote));
            backslashes |= bit(_mm_cmpeq_epi8(v, backslash));
            // Unsigned v <= 0x1F exactly when max(v, 0x1F) is 0x1F.
            controls |= bit(_mm_cmpeq_epi8(_mm_max_epu8(v, last_control), last_control));
        }
    }
    (quotes, backslashes, controls)
}

#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn masks64(chunk: &[u8]) -> (u64, u64, u64) {
    let (mut quotes, mut backslashes, mut controls) = (0u64, 0u64, 0u64);
    for (i, &c) in chunk[..64].iter().enumerate() {
        quotes |= u64::from(c == b'"') << i;
        backslashes |= u64::from(c == b'\\') << i;
        controls |= u64::from(c < 0x20) << i;
    }
    (quotes, backslashes, controls)
}

/// Of the first 16 bytes of `chunk`: bit i set where byte i is a quote, and where it is a backslash or a control
/// character (the short strings of keys and values, decided with one load).
#[cfg(target_arch = "x86_64")]
pub(crate) fn masks16(chunk: &[u8]) -> (u32, u32) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    assert!(chunk.len() >= 16);
    // SAFETY: SSE2 is part of every x86_64 target; the unaligned load reads 16 bytes inside `chunk` (checked above).
    unsafe {
        let v = _mm_loadu_si128(chunk.as_ptr() as *const __m128i);
        let last_control = _mm_set1_epi8(0x1F);
        let quotes = _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8))) as u32;
        let special = _mm_or_si128(
            _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8)),
            _mm_cmpeq_epi8(_mm_max_epu8(v, last_control), last_control),
        );
        (quotes, _mm_movemask_epi8(special) as u32)
    }
}

/// Of 64 bytes, which are escaped by a backslash (bit i for byte i); `prev_escaped` carries a run that ends the
/// block into the next one (simdjson, "find_escaped_branchless").
pub(crate) fn escaped_bits(backslash: u64, prev_escaped: &mut u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    let backslash = backslash & !*prev_escaped;
    let follows_escape = (backslash << 1) | *prev_escaped;
    let odd_sequence_starts = backslash & !EVEN & !follows_escape;
    let (sequences_starting_on_even_bits, overflow) =
        odd_sequence_starts.overflowing_add(backslash);
    *prev_escaped = overflow as u64;
    let invert_mask = sequences_starting_on_even_bits << 1;
    (EVEN ^ invert_mask) & follows_escape
}
