//! JSON string literals read back from a buffer or a file that was validated when the map (or the message) was read.

/// The text of a JSON string literal (with its quotes), already known to be valid JSON; `None` when it is not one.
/// One pass with the output sized up front, copying the runs between escapes whole: serde's string reader grows its
/// scratch buffer and copies the text twice, which for a 50 MB `didOpen` was most of the time before the document
/// reached the server, and a 20,000-frame log's thousands of `sourcesContent` texts read back from the map file were
/// 7 % of the request.
pub fn unescape(literal: &str) -> Option<String> {
    unescape_noting_lines(literal, None)
}

/// [`unescape`], and where each line of the text starts after the first (the offset just past each `\n`): found
/// in the same pass, as a string literal's line ends are all escapes (JSON allows no control character in a string;
/// the map reader refuses one), where a pass over the text for them cost as much again (`LinedText`).
pub fn unescape_lined(literal: &str) -> Option<(String, Vec<u32>)> {
    let mut starts = Vec::new();
    let text = unescape_noting_lines(literal, Some(&mut starts))?;
    Some((text, starts))
}

fn unescape_noting_lines(literal: &str, mut starts: Option<&mut Vec<u32>>) -> Option<String> {
    let inner = literal.strip_prefix('"')?.strip_suffix('"')?;
    let b = inner.as_bytes();
    let mut out = String::with_capacity(inner.len());
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'\\', &b[i..]) {
        out.push_str(&inner[i..i + k]);
        let (c, next) = escape_at(b, i + k + 1)?;
        i = next;
        out.push(c);
        if c == '\n' {
            if let Some(starts) = starts.as_deref_mut() {
                starts.push(out.len() as u32);
            }
        }
    }
    out.push_str(&inner[i..]);
    Some(out)
}

/// [`unescape`] of the literal at `literal` in `buf` (with its quotes) in place: the text is written from the start
/// of `buf` over what was there, and `buf` becomes it. For a large message whose other parts were copied out first
/// (`large_texts` in the server): the 57 MB `didOpen` of the editor benchmark's Metro build was unescaped into a
/// second buffer of its size, whose page faults were most of the unescaping. An escape never takes fewer bytes than
/// what it stands for (`\n` 2 → 1, `\u` 6 → at most 3, a surrogate pair 12 → 4), so the writing never passes the
/// reading. `None` when the range is not a quoted literal or holds an escape JSON does not have (then `buf` may be
/// partly overwritten: call it on a literal a JSON reader validated).
pub fn unescape_in_place(mut buf: Vec<u8>, literal: std::ops::Range<usize>) -> Option<String> {
    let end = literal.end.checked_sub(1)?;
    if literal.start >= end || buf.get(literal.start) != Some(&b'"') || buf.get(end) != Some(&b'"')
    {
        return None;
    }
    match unescape_string_in_place(&mut buf[..literal.end], literal.start, None) {
        Unescaped::Text { len, close } if close == end => {
            buf.truncate(len);
            String::from_utf8(buf).ok()
        }
        _ => None,
    }
}

/// How [`unescape_string_in_place`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unescaped {
    /// A valid literal; the bytes after its closing quote are as they were.
    Text {
        /// The text is `buf[..len]`.
        len: usize,
        /// Where the closing quote was.
        close: usize,
    },
    /// Not a valid JSON string (a control character, an escape JSON does not have, the end of the buffer).
    Invalid {
        /// `buf[..written]` is the text before `at`, unescaped.
        written: usize,
        /// Where it stopped being one; `buf[at..]` is as it was.
        at: usize,
    },
}

/// The JSON string literal whose opening quote is at `open` unescaped in place, from the start of `buf` (over what
/// was there), checked as it goes (no control character, only JSON's escapes, `\u` with four hex digits; UTF-8 is the
/// caller's to check), and its end found on the way: one pass where finding the end first was another (a large `didOpen` in the server, `large_texts`). 64 bytes at a time, the
/// quotes, backslashes and control characters of a block from one mask (`scan.rs`): a bundle's text has an escape
/// every ~20 bytes (its line ends and quotes), where a `memchr` per escape paid its setup 2.5 million times. An
/// escape never takes fewer bytes than what it stands for (`\n` 2 → 1, `\u` 6 → at most 3, a surrogate pair 12 →
/// 4), so the writing never passes the reading. `starts` gets the offset after each `\n` written.
pub fn unescape_string_in_place(
    buf: &mut [u8],
    open: usize,
    mut starts: Option<&mut Vec<u32>>,
) -> Unescaped {
    if buf.get(open) != Some(&b'"') {
        return Unescaped::Invalid {
            written: 0,
            at: open,
        };
    }
    let (mut read, mut written) = (open + 1, 0);
    while read + 64 <= buf.len() {
        let block = read;
        let (quotes, backslashes, controls) =
            crate::internal::json::scan::masks64(&buf[block..block + 64]);
        let mut special = quotes | backslashes | controls;
        while special != 0 {
            let k = block + special.trailing_zeros() as usize;
            special &= special - 1;
            // Taken by the escape before it: the second of `\\`, `\"`, a surrogate pair's second half.
            if k < read {
                continue;
            }
            buf.copy_within(read..k, written);
            written += k - read;
            match buf[k] {
                b'\\' => match unescape_one(buf, k, written, starts.as_deref_mut()) {
                    Some(next) => (read, written) = next,
                    None => return Unescaped::Invalid { written, at: k },
                },
                b'"' => {
                    return Unescaped::Text {
                        len: written,
                        close: k,
                    }
                }
                _ => return Unescaped::Invalid { written, at: k },
            }
        }
        if read < block + 64 {
            buf.copy_within(read..block + 64, written);
            written += block + 64 - read;
            read = block + 64;
        }
    }
    while let Some(&c) = buf.get(read) {
        match c {
            b'\\' => match unescape_one(buf, read, written, starts.as_deref_mut()) {
                Some(next) => (read, written) = next,
                None => return Unescaped::Invalid { written, at: read },
            },
            b'"' => {
                return Unescaped::Text {
                    len: written,
                    close: read,
                }
            }
            0..0x20 => return Unescaped::Invalid { written, at: read },
            _ => {
                buf[written] = c;
                (read, written) = (read + 1, written + 1);
            }
        }
    }
    Unescaped::Invalid { written, at: read }
}

/// Writes the character of the escape whose backslash is at `k` at `written`; where reading and writing go on. `starts` gets the offset after a `\n`.
#[inline]
fn unescape_one(
    buf: &mut [u8],
    k: usize,
    written: usize,
    starts: Option<&mut Vec<u32>>,
) -> Option<(usize, usize)> {
    let byte = match *buf.get(k + 1)? {
        b'n' => b'\n',
        b't' => b'\t',
        b'r' => b'\r',
        b'"' => b'"',
        b'\\' => b'\\',
        b'/' => b'/',
        b'b' => 8,
        b'f' => 12,
        _ => {
            let (c, next) = escape_at(buf, k + 1)?;
            let mut utf8 = [0u8; 4];
            let bytes = c.encode_utf8(&mut utf8).as_bytes();
            buf[written..written + bytes.len()].copy_from_slice(bytes);
            // `\u000a`: a line end too.
            if c == '\n' {
                if let Some(starts) = starts {
                    starts.push(u32::try_from(written + 1).ok()?);
                }
            }
            return Some((next, written + bytes.len()));
        }
    };
    buf[written] = byte;
    if byte == b'\n' {
        if let Some(starts) = starts {
            starts.push(u32::try_from(written + 1).ok()?);
        }
    }
    Some((k + 2, written + 1))
}

/// The character a JSON escape stands for and where the text goes on: `at` is just past the backslash. A `\u`
/// surrogate pair is one character; a lone surrogate cannot be in a Rust string and becomes U+FFFD, so that the text
/// is used (serde_json refuses the whole string: a document would not be served, a source's content not shown).
fn escape_at(b: &[u8], at: usize) -> Option<(char, usize)> {
    let c = match *b.get(at)? {
        b'n' => '\n',
        b't' => '\t',
        b'r' => '\r',
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'u' => {
            // Four hex digits exactly (`from_str_radix` alone would take a sign).
            let unit = |at: usize| -> Option<u32> {
                let digits = b.get(at..at + 4)?;
                digits.iter().all(u8::is_ascii_hexdigit).then_some(())?;
                u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
            };
            let hi = unit(at + 1)?;
            let after = at + 5;
            if (0xD800..0xDC00).contains(&hi) && b.get(after..after + 2) == Some(b"\\u") {
                if let Some(lo) = unit(after + 2).filter(|lo| (0xDC00..0xE000).contains(lo)) {
                    let code = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                    return Some((char::from_u32(code).unwrap_or('\u{FFFD}'), after + 6));
                }
            }
            return Some((char::from_u32(hi).unwrap_or('\u{FFFD}'), after));
        }
        _ => return None,
    };
    Some((c, at + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`unescape_string_in_place`] as the server's transport uses it: the text, its line starts as
    /// `bundle::columns::line_starts` gives them, and where its closing quote was.
    fn in_place_lined(mut buf: Vec<u8>, open: usize) -> Option<(String, Vec<u32>, usize)> {
        let mut starts = vec![0];
        let Unescaped::Text { len, close } =
            unescape_string_in_place(&mut buf, open, Some(&mut starts))
        else {
            return None;
        };
        buf.truncate(len);
        starts.push(len as u32 + 1);
        Some((String::from_utf8(buf).ok()?, starts, close))
    }

    #[test]
    fn lines_are_noted_where_the_text_has_them() {
        for text in [
            "",
            "one line",
            "a\nb\r\nc\n",
            "\n\n\u{2028}x\n",
            "é\n𝄞\n\"q\"\n",
        ] {
            let literal = serde_json::to_string(text).unwrap();
            let want: Vec<u32> = memchr::memchr_iter(b'\n', text.as_bytes())
                .map(|i| i as u32 + 1)
                .collect();
            assert_eq!(
                unescape_lined(&literal),
                Some((text.to_string(), want)),
                "{literal}"
            );
        }
        // A line end written as `\u000a`.
        assert_eq!(
            unescape_lined(r#""a\u000ab""#),
            Some(("a\nb".to_string(), vec![2]))
        );
    }

    #[test]
    fn unescaping_matches_serde() {
        for text in ["plain", "a\nb\t\"q\" \\ /", "é ✓ 𝄞 \u{8}\u{c}\r", ""] {
            let literal = serde_json::to_string(text).unwrap();
            assert_eq!(unescape(&literal).as_deref(), Some(text), "{literal}");
        }
        assert_eq!(
            unescape(r#""\u00e9\ud834\udd1e\/""#).as_deref(),
            Some("é𝄞/")
        );
        // A lone surrogate: the replacement character.
        assert_eq!(unescape(r#""a\ud800b""#).as_deref(), Some("a\u{FFFD}b"));
        // In place, the same; a range that is not a quoted literal, or an escape JSON does not have: none.
        let message = br#"{"text":"\u00e9\ud834\udd1e\/\n","v":1}"#.to_vec();
        assert_eq!(
            unescape_in_place(message.clone(), 8..32).as_deref(),
            Some("é𝄞/\n")
        );
        assert_eq!(unescape_in_place(message, 7..32), None);
        assert_eq!(unescape_in_place(br#""a\qb""#.to_vec(), 0..6), None);
    }

    #[test]
    fn a_literal_ends_where_serde_says_and_only_when_it_is_valid() {
        // Escapes and quotes on either side of the scanner's 64-byte blocks, and runs of backslashes.
        let long = "x".repeat(61);
        for body in [
            String::new(),
            format!("{long}\\\"q\\\\"),
            format!("{long}ab\\\\\\\"c"),
            format!("{long}{long}\\u00e9\\n"),
            "é \\ud834\\udd1e".to_string(),
            // Not valid: an escape JSON does not have, `\u` without four hex digits, a raw control character,
            // unterminated.
            format!("{long}\\q"),
            "\\u12g4".to_string(),
            format!("{long}\u{1}"),
        ] {
            let valid = serde_json::from_str::<String>(&format!("\"{body}\"")).is_ok();
            for tail in ["\"", "\",1}", ""] {
                let text = format!("{{\"text\":\"{body}{tail}");
                let want = (valid && !tail.is_empty()).then(|| 9 + body.len());
                // In place: the same end and the text; or, where it is not valid, the text before the fault
                // unescaped and the rest as it was.
                let mut buf = text.clone().into_bytes();
                match unescape_string_in_place(&mut buf, 8, None) {
                    Unescaped::Text { len, close } => {
                        assert_eq!(Some(close), want, "{text:?}");
                        let unescaped: String = serde_json::from_str(&text[8..=close]).unwrap();
                        assert_eq!(&buf[..len], unescaped.as_bytes());
                        assert_eq!(&buf[close..], &text.as_bytes()[close..]);
                    }
                    Unescaped::Invalid { written, at } => {
                        assert_eq!(want, None, "{text:?}");
                        assert_eq!(&buf[at..], &text.as_bytes()[at..]);
                        let before: String =
                            serde_json::from_str(&format!("{}\"", &text[8..at])).unwrap();
                        assert_eq!(&buf[..written], before.as_bytes(), "{text:?}");
                    }
                }
            }
        }
        assert!(matches!(
            unescape_string_in_place(&mut b"{\"text\":1}".to_vec(), 8, None),
            Unescaped::Invalid { written: 0, at: 8 }
        ));
    }

    /// Escapes of every kind at every offset of the 64-byte blocks, in texts long enough to have several.
    #[test]
    fn long_texts_unescape_across_blocks() {
        let pieces = [
            "\n",
            "\"",
            "\\",
            "é",
            "\u{1d11e}",
            "\u{1}",
            "\r\n",
            "\u{2028}",
            "/",
        ];
        for offset in 0..130 {
            for piece in pieces {
                let text = format!(
                    "{}{piece}{}",
                    "a".repeat(offset),
                    format!("b{piece}").repeat(40)
                );
                for literal in [
                    serde_json::to_string(&text).unwrap(),
                    // Every character spelled as a `\u` escape (surrogate pairs beyond the BMP).
                    format!(
                        "\"{}\"",
                        text.encode_utf16()
                            .map(|u| format!("\\u{u:04x}"))
                            .collect::<String>()
                    ),
                ] {
                    let message = format!("{{\"text\":{literal}}}");
                    let range = 8..8 + literal.len();
                    assert_eq!(
                        unescape_in_place(message.clone().into_bytes(), range.clone()).as_deref(),
                        Some(text.as_str())
                    );
                    let starts = crate::bundle::columns::line_starts(text.as_bytes());
                    assert_eq!(
                        in_place_lined(message.into_bytes(), 8),
                        Some((text.clone(), starts, range.end - 1))
                    );
                }
            }
        }
    }

    proptest::proptest! {
        /// Any text, escaped by serde (control characters as `\u` escapes) or with every UTF-16 unit spelled as a
        /// `\u` escape (surrogate pairs beyond the BMP), reads back as itself.
        #[test]
        fn any_text_reads_back(text in "\\PC*|[\\x00-\\x1f\"\\\\/a-z\u{e9}\u{1d11e}]*") {
            let literal = serde_json::to_string(&text).unwrap();
            proptest::prop_assert_eq!(unescape(&literal), Some(text.clone()));
            let message = format!("{{\"text\":{literal},\"after\":1}}");
            let at = message.find(&literal).unwrap();
            proptest::prop_assert_eq!(
                unescape_in_place(message.clone().into_bytes(), at..at + literal.len()),
                Some(text.clone())
            );
            proptest::prop_assert_eq!(
                in_place_lined(message.clone().into_bytes(), at),
                Some((text.clone(), crate::bundle::columns::line_starts(text.as_bytes()), at + literal.len() - 1))
            );
            let mut spelled = String::from("\"");
            for unit in text.encode_utf16() {
                spelled.push_str(&format!("\\u{unit:04x}"));
            }
            spelled.push('"');
            proptest::prop_assert_eq!(unescape(&spelled), Some(text.clone()));
            let len = spelled.len();
            proptest::prop_assert_eq!(unescape_in_place(spelled.clone().into_bytes(), 0..len), Some(text.clone()));
            let starts = crate::bundle::columns::line_starts(text.as_bytes());
            proptest::prop_assert_eq!(in_place_lined(spelled.into_bytes(), 0), Some((text, starts, len - 1)));
        }
    }
}
