//! Terminal escape sequences in a pasted trace: a coloured node, Jest or Vitest run writes them inside its frames
//! (node greys the working directory inside a frame's path; Jest dims `at ` and the location apart; Vitest dims the
//! line and column). A line is read with them taken out; what each clean byte was in the line is kept, so a frame
//! found in the clean text is rewritten in place and everything around it stays byte for byte
//! (`stack::parse_line`).
//!
//! The sequences, ECMA-48 (5th edition, 1991) §5.4 and §8.3.89, as xterm's "Control Sequences" reads them:
//! - CSI: `ESC [`, parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, one final byte 0x40–0x7E (SGR, the
//!   colours, is the final byte `m`; cursor moves and erases are others);
//! - OSC: `ESC ]` up to the string terminator `ESC \` or BEL (0x07, xterm's), as in hyperlinks (`OSC 8`);
//! - any other `ESC` and the one byte after it (two-byte escape sequences, `ESC 7`, `ESC =`).
//!
//! Fixtures: `fixtures/traces/coloured` (real node, Jest and Vitest output under `FORCE_COLOR=1` in a pty).

use std::ops::Range;

const ESC: u8 = 0x1b;

/// A line with its escape sequences taken out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stripped {
    /// The text without escape sequences.
    pub text: String,
    /// For each byte of `text`, its offset in the line (ascending).
    at: Vec<usize>,
    /// The escape sequences' byte ranges in the line, in order.
    pub sequences: Vec<Range<usize>>,
}

impl Stripped {
    /// The line's byte range that holds `text[range]`: from its first byte to just after its last (escape sequences
    /// inside included). An empty range is placed at the byte it starts at.
    pub fn line_range(&self, range: Range<usize>, line_len: usize) -> Range<usize> {
        let start = self.at.get(range.start).copied().unwrap_or(line_len);
        let end = if range.end > range.start {
            self.at[range.end - 1] + 1
        } else {
            start
        };
        start..end
    }
}

/// The length of the escape sequence at `b[0]` (an `ESC`).
fn sequence_len(b: &[u8]) -> usize {
    match b.get(1) {
        Some(b'[') => {
            // CSI: parameters and intermediates, then the final byte (a line cut inside one ends it).
            let mut i = 2;
            while i < b.len() && (0x20..=0x3f).contains(&b[i]) {
                i += 1;
            }
            if i < b.len() && (0x40..=0x7e).contains(&b[i]) {
                i + 1
            } else {
                i
            }
        }
        Some(b']') => {
            // OSC: up to BEL or ESC \.
            let mut i = 2;
            while i < b.len() {
                match b[i] {
                    0x07 => return i + 1,
                    ESC if b.get(i + 1) == Some(&b'\\') => return i + 2,
                    _ => i += 1,
                }
            }
            i
        }
        // A two-byte sequence; a lone `ESC` at the end of the line is one byte. A UTF-8 lead byte after `ESC` is not
        // taken (never split a character).
        Some(&c) if c.is_ascii() => 2,
        _ => 1,
    }
}

/// `line` without its escape sequences, or `None` when it has none (the common case: no copy).
pub fn strip(line: &str) -> Option<Stripped> {
    let b = line.as_bytes();
    let first = memchr::memchr(ESC, b)?;
    let mut text = Vec::with_capacity(b.len());
    let mut at = Vec::with_capacity(b.len());
    let mut sequences = Vec::new();
    text.extend_from_slice(&b[..first]);
    at.extend(0..first);
    let mut i = first;
    while i < b.len() {
        if b[i] == ESC {
            let n = sequence_len(&b[i..]);
            sequences.push(i..i + n);
            i += n;
        } else {
            text.push(b[i]);
            at.push(i);
            i += 1;
        }
    }
    // Only ASCII bytes were taken out, whole: what is left is UTF-8.
    let text = String::from_utf8(text).expect("escape sequences are ASCII");
    Some(Stripped {
        text,
        at,
        sequences,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sgr_csi_osc_and_two_byte_sequences() {
        // node's frame as it printed it (fixtures/traces/coloured/out/node.ansi.txt).
        let line = "    at p \x1b[90m(/app/\x1b[39mdist/app.min.js:2:526\x1b[90m)\x1b[39m";
        let s = strip(line).unwrap();
        assert_eq!(s.text, "    at p (/app/dist/app.min.js:2:526)");
        assert_eq!(s.sequences.len(), 4);
        // `(` up to `)`: the whole frame's bytes in the line, the sequences inside included.
        let open = s.text.find('(').unwrap();
        let r = s.line_range(open..s.text.len(), line.len());
        assert_eq!(&line[r], "(/app/\x1b[39mdist/app.min.js:2:526\x1b[90m)");
        let osc = "\x1b]8;;file:///a.js\x1b\\a.js:1:2\x1b]8;;\x07 \x1b7x\x1b[?25l";
        assert_eq!(strip(osc).unwrap().text, "a.js:1:2 x");
        assert_eq!(strip("no escapes"), None);
        // Cut inside a sequence, or an escape before a non-ASCII character.
        assert_eq!(strip("a\x1b[3").unwrap().text, "a");
        assert_eq!(strip("a\x1bé").unwrap().text, "aé");
    }
}
