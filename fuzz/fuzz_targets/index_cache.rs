//! The index cache's files (`internal/map/index_cache.rs`): any bytes, and a genuine file's payload mutated behind a
//! correct header and hash (so the checks past the hash are reached), are refused or accepted without a panic; a
//! file accepted for a text is one whose every checkpoint lies inside it, in order, within the section's limits.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sourcemap_core::internal::map::index_cache::{accepts, file_with_payload, key_of, payload_of};
use sourcemap_core::internal::map::segment::Limits;

/// A section of a few lines crossing sources and names, and an empty line.
const TEXT: &[u8] = b"AAAA,CAAC,EACAC;AACA,EAAE;;GAAG,CCCAA,IDAAD;AAAA";
const LIMITS: Limits = Limits {
    sources: 2,
    names: 2,
};

fuzz_target!(|data: &[u8]| {
    // Any bytes as a whole file.
    let _ = accepts(data, TEXT, LIMITS);
    let Some((&how, rest)) = data.split_first() else {
        return;
    };
    let key = key_of(TEXT, LIMITS, None);
    let genuine = payload_of(TEXT, LIMITS).expect("a valid text");
    let payload = if how & 1 == 0 {
        // The genuine payload with the rest's bytes XORed in from an offset.
        let mut p = genuine.clone();
        let at = usize::from(how >> 1) % p.len().max(1);
        for (i, b) in rest.iter().enumerate() {
            if let Some(x) = p.get_mut(at + i) {
                *x ^= b;
            }
        }
        p
    } else {
        rest.to_vec()
    };
    let file = file_with_payload(&key, &payload);
    let verdict = accepts(&file, TEXT, LIMITS);
    if payload == genuine {
        assert!(verdict.is_ok(), "the genuine file is accepted: {verdict:?}");
    }
});
