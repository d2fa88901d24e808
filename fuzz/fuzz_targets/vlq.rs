//! Base64 VLQ: decoding any bytes, and round trips of every value decoded.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sourcemap_core::internal::map::vlq;

fuzz_target!(|data: &[u8]| {
    let mut out = Vec::new();

    // Signed: decode VLQs back to back; after an error, skip one byte (as if it were a separator) and go on.
    let mut pos = 0;
    while pos < data.len() {
        let start = pos;
        match vlq::decode_signed(data, &mut pos) {
            Ok(v) => {
                assert!(
                    pos > start && pos <= data.len(),
                    "a decoded VLQ consumes input"
                );
                assert!(
                    (-(1i64 << 31)..=i64::from(i32::MAX)).contains(&v),
                    "{v} is not 32-bit"
                );
                out.clear();
                vlq::encode_signed(v, &mut out);
                let mut p = 0;
                assert_eq!(vlq::decode_signed(&out, &mut p), Ok(v), "round trip of {v}");
                assert_eq!(p, out.len());
                // The validated (hot-path) decoder agrees on text the checking decoder accepted.
                let mut q = start;
                assert_eq!(
                    vlq::decode_validated(data, &mut q),
                    v,
                    "decode_validated at {start}"
                );
                assert_eq!(q, pos, "decode_validated consumes the same digits");
                assert!(data[start..pos].iter().all(|&b| vlq::is_digit(b)));
            }
            Err(_) => pos = start + 1,
        }
    }

    // Unsigned (rangeMappings).
    let mut pos = 0;
    while pos < data.len() {
        let start = pos;
        match vlq::decode_unsigned(data, &mut pos) {
            Ok(v) => {
                assert!(pos > start && pos <= data.len());
                assert!(v <= u64::from(u32::MAX));
                out.clear();
                vlq::encode_unsigned(v, &mut out);
                let mut p = 0;
                assert_eq!(
                    vlq::decode_unsigned(&out, &mut p),
                    Ok(v),
                    "round trip of {v}"
                );
                assert_eq!(p, out.len());
            }
            Err(_) => pos = start + 1,
        }
    }

    // The validated decoder must not panic even on text it was never meant to see.
    let mut pos = 0;
    while pos < data.len() {
        let _ = vlq::decode_validated(data, &mut pos);
    }
});
