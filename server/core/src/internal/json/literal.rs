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
        i += k + 1;
        let c = *b.get(i)?;
        i += 1;
        match c {
            b'n' => {
                out.push('\n');
                if let Some(starts) = starts.as_deref_mut() {
                    starts.push(out.len() as u32);
                }
            }
            b't' => out.push('\t'),
            b'r' => out.push('\r'),
            b'"' => out.push('"'),
            b'\\' => out.push('\\'),
            b'/' => out.push('/'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'u' => {
                let unit = |at: usize| -> Option<u32> {
                    u32::from_str_radix(inner.get(at..at + 4)?, 16).ok()
                };
                let hi = unit(i)?;
                i += 4;
                let code = if (0xD800..0xDC00).contains(&hi) && inner.get(i..i + 2) == Some("\\u") {
                    match unit(i + 2) {
                        Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                            i += 6;
                            0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                        }
                        _ => hi,
                    }
                } else {
                    hi
                };
                // A lone surrogate cannot be in a Rust string: it becomes U+FFFD and the text is used (serde_json
                // refuses the whole string: a document would not be served, a source's content not shown).
                out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                if code == u32::from(b'\n') {
                    if let Some(starts) = starts.as_deref_mut() {
                        starts.push(out.len() as u32);
                    }
                }
            }
            _ => return None,
        }
    }
    out.push_str(&inner[i..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }

    proptest::proptest! {
        /// Any text, escaped by serde (control characters as `\u` escapes) or with every UTF-16 unit spelled as a
        /// `\u` escape (surrogate pairs beyond the BMP), reads back as itself.
        #[test]
        fn any_text_reads_back(text in "\\PC*|[\\x00-\\x1f\"\\\\/a-z\u{e9}\u{1d11e}]*") {
            let literal = serde_json::to_string(&text).unwrap();
            proptest::prop_assert_eq!(unescape(&literal), Some(text.clone()));
            let mut spelled = String::from("\"");
            for unit in text.encode_utf16() {
                spelled.push_str(&format!("\\u{unit:04x}"));
            }
            spelled.push('"');
            proptest::prop_assert_eq!(unescape(&spelled), Some(text));
        }
    }
}
