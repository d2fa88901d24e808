//! The input as a whole source-map file (flat or index map), parsed eagerly and lazily, then queried.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    sourcemap_fuzz::exercise_map_bytes(data);
});
