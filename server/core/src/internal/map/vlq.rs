//! Base64 VLQ, as ECMA-426 §"Mappings structure" defines it.
//!
//! Conventions written down once here:
//! - a digit is one base64 character (`A`–`Z`, `a`–`z`, `0`–`9`, `+`, `/`); `=` and anything else is an error;
//! - in a signed VLQ, bit 0 of the first digit is the sign; `-0` (digit `B`) decodes as 0, as mozilla/source-map does;
//! - a value must fit a signed 32-bit integer (|v| ≤ 2^31 − 1, and −2^31): any set bit beyond that is an error,
//!   but any number of zero continuation digits is allowed (tc39 `validMappingLargeVLQ`);
//! - unsigned VLQs (the `rangeMappings` proposal) have no sign bit.

/// Digit value of each byte, or `INVALID`. A table because this is the innermost loop of every lookup.
const INVALID: u8 = 0xff;
static DIGIT: [u8; 256] = {
    let mut table = [INVALID; 256];
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut i = 0;
    while i < 64 {
        table[alphabet[i] as usize] = i as u8;
        i += 1;
    }
    table
};
const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

const CONTINUATION: u8 = 0b10_0000;
const DIGIT_BITS: u8 = 0b01_1111;

/// Why a VLQ could not be decoded. The caller adds the location.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VlqError {
    /// A byte that is not a base64 digit where a digit was expected.
    InvalidDigit(u8),
    /// The text ended while the continuation bit asked for another digit.
    Unterminated,
    /// The value does not fit in 32 bits.
    Overflow,
}

impl std::fmt::Display for VlqError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VlqError::InvalidDigit(b) if b.is_ascii_graphic() => {
                write!(f, "'{}' is not a base64 digit", *b as char)
            }
            VlqError::InvalidDigit(b) => write!(f, "byte 0x{b:02x} is not a base64 digit"),
            VlqError::Unterminated => {
                f.write_str("VLQ ends in the middle of a number (continuation bit set)")
            }
            VlqError::Overflow => f.write_str("VLQ value does not fit in 32 bits"),
        }
    }
}

/// Reads the raw (unsigned, sign bit still included) bits of one VLQ starting at `*pos`.
/// Returns the raw value; at most 33 significant bits are accepted so that the caller can range-check.
#[inline(always)]
fn decode_raw(bytes: &[u8], pos: &mut usize) -> Result<u64, VlqError> {
    let mut i = *pos;
    let Some(&first) = bytes.get(i) else {
        return Err(VlqError::Unterminated);
    };
    let digit = DIGIT[first as usize];
    if digit == INVALID {
        return Err(VlqError::InvalidDigit(first));
    }
    i += 1;
    // Fast path: most segments' fields are a single digit.
    if digit & CONTINUATION == 0 {
        *pos = i;
        return Ok(u64::from(digit));
    }
    let mut value = u64::from(digit & DIGIT_BITS);
    let mut shift = 5u32;
    loop {
        let Some(&b) = bytes.get(i) else {
            return Err(VlqError::Unterminated);
        };
        let digit = DIGIT[b as usize];
        if digit == INVALID {
            return Err(VlqError::InvalidDigit(b));
        }
        i += 1;
        let bits = u64::from(digit & DIGIT_BITS);
        if bits != 0 {
            // 33 raw bits hold a 32-bit magnitude plus the sign bit; anything above is out of range.
            if shift >= 33 || (bits << shift) >> 33 != 0 {
                return Err(VlqError::Overflow);
            }
            value |= bits << shift;
        }
        shift = shift.saturating_add(5);
        if digit & CONTINUATION == 0 {
            *pos = i;
            return Ok(value);
        }
    }
}

/// Decodes one signed VLQ at `*pos`, advancing `*pos` past it.
#[inline(always)]
pub fn decode_signed(bytes: &[u8], pos: &mut usize) -> Result<i64, VlqError> {
    let raw = decode_raw(bytes, pos)?;
    let magnitude = (raw >> 1) as i64;
    if raw & 1 == 1 {
        if magnitude > 1 << 31 {
            return Err(VlqError::Overflow);
        }
        Ok(-magnitude)
    } else {
        if magnitude > i64::from(i32::MAX) {
            return Err(VlqError::Overflow);
        }
        Ok(magnitude)
    }
}

/// Decodes one unsigned VLQ (no sign bit) at `*pos`.
pub fn decode_unsigned(bytes: &[u8], pos: &mut usize) -> Result<u64, VlqError> {
    let raw = decode_raw(bytes, pos)?;
    if raw > u64::from(u32::MAX) {
        return Err(VlqError::Overflow);
    }
    Ok(raw)
}

/// Appends the signed VLQ encoding of `value` to `out`.
pub fn encode_signed(value: i64, out: &mut Vec<u8>) {
    let mut raw = if value < 0 {
        ((-value) as u64) << 1 | 1
    } else {
        (value as u64) << 1
    };
    encode_raw(&mut raw, out);
}

/// Appends the unsigned VLQ encoding of `value` to `out`.
pub fn encode_unsigned(mut value: u64, out: &mut Vec<u8>) {
    encode_raw(&mut value, out);
}

fn encode_raw(raw: &mut u64, out: &mut Vec<u8>) {
    loop {
        let mut digit = (*raw & u64::from(DIGIT_BITS)) as u8;
        *raw >>= 5;
        if *raw > 0 {
            digit |= CONTINUATION;
        }
        out.push(ALPHABET[digit as usize]);
        if *raw == 0 {
            break;
        }
    }
}

/// Decodes one signed VLQ of text already validated by [`decode_signed`]: no error paths, no range checks (a
/// validated value fits in 32 bits; any longer run of zero continuation digits adds nothing). The lookup hot path.
#[inline(always)]
pub fn decode_validated(bytes: &[u8], pos: &mut usize) -> i64 {
    let mut raw = 0u64;
    let mut shift = 0u32;
    while let Some(&b) = bytes.get(*pos) {
        *pos += 1;
        let digit = DIGIT[b as usize];
        raw |= u64::from(digit & DIGIT_BITS) << shift.min(59);
        if digit & CONTINUATION == 0 {
            break;
        }
        shift += 5;
    }
    let magnitude = (raw >> 1) as i64;
    if raw & 1 == 1 {
        -magnitude
    } else {
        magnitude
    }
}

/// Whether `b` is a base64 digit.
#[inline(always)]
pub fn is_digit(b: u8) -> bool {
    DIGIT[b as usize] != INVALID
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signed(text: &str) -> Result<i64, VlqError> {
        let mut pos = 0;
        let v = decode_signed(text.as_bytes(), &mut pos)?;
        assert_eq!(
            pos,
            text.len(),
            "decoder must consume exactly one VLQ of {text:?}"
        );
        Ok(v)
    }

    #[test]
    fn known_values() {
        // Values from the ECMA-426 examples and mozilla/source-map's base64-vlq tests.
        for (text, value) in [
            ("A", 0),
            ("C", 1),
            ("D", -1),
            ("B", 0),
            ("gB", 16),
            ("hB", -16),
            ("2H", 123),
            // tc39 validMappingFieldsWith32BitMaxValues.
            ("+/////D", i64::from(i32::MAX)),
        ] {
            assert_eq!(signed(text), Ok(value), "{text}");
        }
    }

    #[test]
    fn limits() {
        let mut out = Vec::new();
        encode_signed(i64::from(i32::MAX), &mut out);
        assert_eq!(
            signed(std::str::from_utf8(&out).unwrap()),
            Ok(i64::from(i32::MAX))
        );
        out.clear();
        encode_signed(i64::from(i32::MAX) + 1, &mut out);
        assert_eq!(
            signed(std::str::from_utf8(&out).unwrap()),
            Err(VlqError::Overflow)
        );
        out.clear();
        encode_signed(-(1 << 31), &mut out);
        assert_eq!(signed(std::str::from_utf8(&out).unwrap()), Ok(-(1 << 31)));
        assert_eq!(signed("ggggggE"), Err(VlqError::Overflow));
        // Any number of zero continuation digits is fine.
        let long = format!("i{}A", "g".repeat(500));
        assert_eq!(signed(&long), Ok(1));
    }

    #[test]
    fn errors() {
        assert_eq!(signed("g"), Err(VlqError::Unterminated));
        assert_eq!(signed("="), Err(VlqError::InvalidDigit(b'=')));
        assert_eq!(signed("g."), Err(VlqError::InvalidDigit(b'.')));
        assert_eq!(signed(""), Err(VlqError::Unterminated));
    }

    #[test]
    fn validated_decoding_agrees() {
        let mut out = Vec::new();
        for v in (-70_000i64..70_000)
            .step_by(13)
            .chain([i64::from(i32::MAX), -(1 << 31), 0])
        {
            out.clear();
            encode_signed(v, &mut out);
            let mut pos = 0;
            assert_eq!(decode_validated(&out, &mut pos), v);
            assert_eq!(pos, out.len());
        }
        let long = format!("i{}A", "g".repeat(500));
        let mut pos = 0;
        assert_eq!(decode_validated(long.as_bytes(), &mut pos), 1);
    }

    #[test]
    fn round_trip() {
        let mut out = Vec::new();
        for v in (-70_000i64..70_000)
            .step_by(7)
            .chain([i64::from(i32::MAX), -(1 << 31)])
        {
            out.clear();
            encode_signed(v, &mut out);
            let mut pos = 0;
            assert_eq!(decode_signed(&out, &mut pos), Ok(v));
            assert_eq!(pos, out.len());
        }
        for v in [0u64, 1, 31, 32, 1000, u64::from(u32::MAX)] {
            out.clear();
            encode_unsigned(v, &mut out);
            let mut pos = 0;
            assert_eq!(decode_unsigned(&out, &mut pos), Ok(v));
        }
    }
}
