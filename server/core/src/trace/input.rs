//! A trace's bytes as they were pasted or redirected, read as text without ever refusing them:
//!
//! - a byte-order mark names the encoding: `EF BB BF` UTF-8, `FF FE` UTF-16LE, `FE FF` UTF-16BE (the Unicode
//!   Standard, §2.6 "Encoding Schemes" and U+FEFF in §23.8 "Specials"; the WHATWG Encoding Standard's "BOM sniff",
//!   which lets the mark decide over any other label). Windows PowerShell 5.1's `>` is `Out-File` ("functionally
//!   equivalent to piping to Out-File with no extra parameters", Microsoft's `Out-File` page), whose default there
//!   is `Unicode`, UTF-16LE, with a BOM (`about_Character_Encoding`: "In Windows PowerShell, any Unicode encoding,
//!   except UTF7, always creates a BOM"); PowerShell 6 and later write UTF-8 without one;
//! - without a mark, UTF-16 by its pattern of NUL bytes: a trace is mostly ASCII, and an ASCII character in UTF-16
//!   is a NUL beside its byte, which UTF-8 text never holds (RFC 4627 §3 tells JSON's encodings apart the same way,
//!   by "the pattern of nulls in the first four octets"); here three quarters of the first 256 code units must be
//!   ASCII in one byte order;
//! - otherwise UTF-8, where a byte that is not UTF-8 (a Latin-1 `ß` in a log line) stops nothing: it is carried
//!   through the text as a private-use character, U+10FF00 plus the byte, and written back as that byte
//!   ([`to_bytes`]), as PEP 383's `surrogateescape` carries undecodable bytes in Python's `str` (Rust strings hold
//!   no lone surrogates, so the end of plane 16's private use area stands in). A line that holds no frame is
//!   written back byte for byte; a character of that range in the input is itself carried as its four bytes, so
//!   the way back is exact.
//!
//! UTF-16 input is written back as UTF-8 (the CLI's output is UTF-8 throughout); its line ends are kept.

use std::borrow::Cow;

/// The encoding a trace was read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 (bytes that are not UTF-8 carried through, see the module documentation).
    Utf8,
    /// UTF-8 after a byte-order mark.
    Utf8Bom,
    /// UTF-16, little-endian.
    Utf16Le {
        /// Told by a byte-order mark (else by the pattern of NUL bytes).
        bom: bool,
    },
    /// UTF-16, big-endian.
    Utf16Be {
        /// Told by a byte-order mark (else by the pattern of NUL bytes).
        bom: bool,
    },
}

/// A trace's text and how it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceText {
    /// The text, the byte-order mark left out.
    pub text: String,
    /// How the bytes were read.
    pub encoding: Encoding,
    /// How many input bytes were not UTF-8 (carried through as they were).
    pub foreign_bytes: usize,
}

/// The first of the characters that stand for a byte (U+10FF00 + byte).
const CARRIED: u32 = 0x10_FF00;

fn carried(b: u8) -> char {
    char::from_u32(CARRIED + u32::from(b)).expect("in plane 16")
}

/// The byte a character stands for, when it is one of the carried bytes.
fn carried_byte(c: char) -> Option<u8> {
    let n = u32::from(c);
    (n >= CARRIED).then(|| (n - CARRIED) as u8)
}

/// UTF-16 by the NUL pattern of its first code units (see the module documentation): `Some(little_endian)`.
fn utf16_by_nuls(bytes: &[u8]) -> Option<bool> {
    let units: Vec<[u8; 2]> = bytes
        .chunks_exact(2)
        .take(256)
        .map(|p| [p[0], p[1]])
        .collect();
    if units.len() < 2 {
        return None;
    }
    let ascii = |lo: u8, hi: u8| hi == 0 && lo != 0 && lo.is_ascii();
    let le = units.iter().filter(|u| ascii(u[0], u[1])).count();
    let be = units.iter().filter(|u| ascii(u[1], u[0])).count();
    let enough = units.len() * 3 / 4;
    if le >= enough.max(2) {
        Some(true)
    } else if be >= enough.max(2) {
        Some(false)
    } else {
        None
    }
}

fn utf16(bytes: &[u8], little_endian: bool) -> String {
    let units = bytes.chunks_exact(2).map(|p| {
        if little_endian {
            u16::from_le_bytes([p[0], p[1]])
        } else {
            u16::from_be_bytes([p[0], p[1]])
        }
    });
    let mut text: String = char::decode_utf16(units)
        .map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect();
    if bytes.len() % 2 == 1 {
        text.push(char::REPLACEMENT_CHARACTER);
    }
    text
}

/// UTF-8 with every byte that is not (and every character that could be taken for a carried byte) carried.
fn utf8_carrying(bytes: &[u8]) -> (String, usize) {
    let mut text = String::with_capacity(bytes.len());
    let mut foreign = 0;
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if carried_byte(c).is_some() {
                let mut buf = [0; 4];
                text.extend(c.encode_utf8(&mut buf).bytes().map(carried));
            } else {
                text.push(c);
            }
        }
        foreign += chunk.invalid().len();
        text.extend(chunk.invalid().iter().copied().map(carried));
    }
    (text, foreign)
}

/// Reads a trace's bytes (see the module documentation); never fails.
pub fn decode(bytes: &[u8]) -> TraceText {
    let (text, encoding, foreign_bytes) = match bytes {
        [0xEF, 0xBB, 0xBF, rest @ ..] => {
            let (text, foreign) = utf8_carrying(rest);
            (text, Encoding::Utf8Bom, foreign)
        }
        [0xFF, 0xFE, rest @ ..] => (utf16(rest, true), Encoding::Utf16Le { bom: true }, 0),
        [0xFE, 0xFF, rest @ ..] => (utf16(rest, false), Encoding::Utf16Be { bom: true }, 0),
        _ => match utf16_by_nuls(bytes) {
            Some(true) => (utf16(bytes, true), Encoding::Utf16Le { bom: false }, 0),
            Some(false) => (utf16(bytes, false), Encoding::Utf16Be { bom: false }, 0),
            None => {
                let (text, foreign) = match std::str::from_utf8(bytes) {
                    Ok(s) if !s.chars().any(|c| carried_byte(c).is_some()) => (s.to_string(), 0),
                    _ => utf8_carrying(bytes),
                };
                (text, Encoding::Utf8, foreign)
            }
        },
    };
    TraceText {
        text,
        encoding,
        foreign_bytes,
    }
}

/// Text read by [`decode`] (or rendered from it) as bytes again: each carried byte as itself.
pub fn to_bytes(text: &str) -> Cow<'_, [u8]> {
    if !text.chars().any(|c| carried_byte(c).is_some()) {
        return Cow::Borrowed(text.as_bytes());
    }
    let mut out = Vec::with_capacity(text.len());
    let mut buf = [0; 4];
    for c in text.chars() {
        match carried_byte(c) {
            Some(b) => out.push(b),
            None => out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
        }
    }
    Cow::Owned(out)
}

/// Text read by [`decode`] as valid Unicode for a JSON answer: each carried byte as U+FFFD.
pub fn lossy(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| carried_byte(c).is_some()) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| {
                if carried_byte(c).is_some() {
                    char::REPLACEMENT_CHARACTER
                } else {
                    c
                }
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boms_and_nul_patterns() {
        let text = "TypeError: x\r\n    at e (dist/app.min.js:1:50)\r\n";
        let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        for (bytes, encoding) in [
            (
                [&[0xFF, 0xFE][..], &le].concat(),
                Encoding::Utf16Le { bom: true },
            ),
            (le.clone(), Encoding::Utf16Le { bom: false }),
            (
                [&[0xFE, 0xFF][..], &be].concat(),
                Encoding::Utf16Be { bom: true },
            ),
            (be.clone(), Encoding::Utf16Be { bom: false }),
            (
                [&[0xEF, 0xBB, 0xBF][..], text.as_bytes()].concat(),
                Encoding::Utf8Bom,
            ),
            (text.as_bytes().to_vec(), Encoding::Utf8),
        ] {
            let t = decode(&bytes);
            assert_eq!((t.text.as_str(), t.encoding), (text, encoding));
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_come_back_as_they_were() {
        // Latin-1 `ü` and `ß`, a cut UTF-8 sequence, and a real character of the carried range.
        let bytes = b"f\xfcr Stra\xdfe \xe2\x82 \xf4\x8f\xbf\xbf ok \xe2\x82\xac\n".to_vec();
        let t = decode(&bytes);
        assert_eq!(t.encoding, Encoding::Utf8);
        assert_eq!(t.foreign_bytes, 4);
        assert!(t.text.ends_with(" ok €\n"));
        assert_eq!(to_bytes(&t.text).as_ref(), &bytes[..]);
        assert_eq!(
            lossy(&t.text),
            "f\u{FFFD}r Stra\u{FFFD}e \u{FFFD}\u{FFFD} \u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD} ok €\n"
        );
        // Plain UTF-8 is not copied on the way out.
        assert!(matches!(to_bytes("at e (a.js:1:2)"), Cow::Borrowed(_)));
    }

    proptest::proptest! {
        /// Any bytes read as UTF-8 come back exactly (the BOM written back where there was one); text of valid
        /// UTF-8 is the input itself.
        #[test]
        fn utf8_reading_gives_the_bytes_back(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..64)) {
            let t = decode(&bytes);
            let bom: &[u8] = match t.encoding {
                Encoding::Utf8 => b"",
                Encoding::Utf8Bom => b"\xEF\xBB\xBF",
                _ => return Ok(()),
            };
            proptest::prop_assert_eq!([bom, to_bytes(&t.text).as_ref()].concat(), bytes.clone());
            if let Ok(s) = std::str::from_utf8(&bytes[bom.len()..]) {
                if !s.chars().any(|c| carried_byte(c).is_some()) {
                    proptest::prop_assert_eq!(t.text.as_str(), s);
                }
            }
        }
    }

    #[test]
    fn latin1_alone_is_not_utf16() {
        // One ASCII line with no NUL: UTF-8; a single NUL does not make UTF-16.
        assert_eq!(decode(b"a\0bcdefgh").encoding, Encoding::Utf8);
    }
}
