//! A strict pull reader of JSON over bytes, without serde: the cursor, strings found 64 bytes at a time
//! (`map::json_scan`), values skipped without being built, objects and arrays walked with a callback per member or
//! item. It accepts only valid JSON (invalid UTF-8, control characters in strings, bad escapes, leading zeros,
//! trailing commas are refused) and never more than serde does; a caller that gets `None` says where (`at`) or leaves
//! the document to serde to describe. Its readers: valid source maps (`map::fast_read`) and Hermes profiles
//! (`profile::hermes`).

use crate::internal::json::scan::{escaped_bits, masks64};

/// Nesting this deep is refused (serde_json stops at 128).
pub(crate) const MAX_DEPTH: u32 = 100;

pub(crate) struct Reader<'b> {
    pub(crate) s: &'b str,
    pub(crate) b: &'b [u8],
    /// The cursor: the index of the next byte to read.
    pub(crate) i: usize,
}

impl<'b> Reader<'b> {
    pub(crate) fn new(s: &'b str) -> Self {
        Reader {
            s,
            b: s.as_bytes(),
            i: 0,
        }
    }

    pub(crate) fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            if !matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                break;
            }
            self.i += 1;
        }
    }

    pub(crate) fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    pub(crate) fn expect(&mut self, c: u8) -> Option<()> {
        self.ws();
        (self.peek()? == c).then(|| self.i += 1)
    }

    /// The text from `start` to the cursor.
    pub(crate) fn text(&self, start: usize) -> &'b str {
        &self.s[start..self.i]
    }

    /// A literal `null` next (white space skipped): consumed.
    pub(crate) fn null(&mut self) -> bool {
        self.ws();
        if self.b[self.i..].starts_with(b"null") {
            self.i += 4;
            true
        } else {
            false
        }
    }

    /// A string (the cursor on its opening quote); returns its text without quotes and whether it has escapes.
    pub(crate) fn string(&mut self) -> Option<(&'b [u8], bool)> {
        if self.peek()? != b'"' {
            return None;
        }
        let (end, escapes) = strict_string_end(self.b, self.i + 1)?;
        let inner = &self.b[self.i + 1..end];
        self.i = end + 1;
        Some((inner, escapes))
    }

    /// Any value, strictly; returns its text.
    pub(crate) fn value(&mut self, depth: u32) -> Option<&'b str> {
        self.ws();
        let start = self.i;
        self.skip_value(depth)?;
        Some(self.text(start))
    }

    pub(crate) fn skip_value(&mut self, depth: u32) -> Option<()> {
        match self.peek()? {
            b'"' => {
                self.string()?;
            }
            b'{' => {
                self.members(depth + 1, |r, _, depth| r.skip_ws_value(depth))?;
            }
            b'[' => {
                self.items(depth + 1, |r, depth| r.skip_ws_value(depth))?;
            }
            b't' => self.literal(b"true")?,
            b'f' => self.literal(b"false")?,
            b'n' => self.literal(b"null")?,
            _ => self.number()?,
        }
        Some(())
    }

    pub(crate) fn skip_ws_value(&mut self, depth: u32) -> Option<()> {
        self.ws();
        self.skip_value(depth)
    }

    pub(crate) fn literal(&mut self, word: &[u8]) -> Option<()> {
        self.b[self.i..]
            .starts_with(word)
            .then(|| self.i += word.len())
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    pub(crate) fn number(&mut self) -> Option<()> {
        let digits = |r: &mut Self| {
            let from = r.i;
            while r.peek().is_some_and(|c| c.is_ascii_digit()) {
                r.i += 1;
            }
            (r.i > from).then_some(())
        };
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek()? {
            b'0' => self.i += 1,
            b'1'..=b'9' => digits(self)?,
            _ => return None,
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            digits(self)?;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            digits(self)?;
        }
        Some(())
    }

    /// An array's items (the cursor on `[`), each read by `item` from its first byte.
    pub(crate) fn items(
        &mut self,
        depth: u32,
        mut item: impl FnMut(&mut Self, u32) -> Option<()>,
    ) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.expect(b'[')?;
        self.ws();
        if self.peek()? == b']' {
            self.i += 1;
            return Some(());
        }
        loop {
            self.ws();
            item(self, depth)?;
            self.ws();
            match self.peek()? {
                b',' => self.i += 1,
                b']' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// An object's members (the cursor on `{`): `member(key, reader at the value)`, which must consume the value.
    /// Keys with escapes are refused (the caller compares keys as bytes).
    pub(crate) fn members(
        &mut self,
        depth: u32,
        mut member: impl FnMut(&mut Self, &'b [u8], u32) -> Option<()>,
    ) -> Option<()> {
        self.members_any(depth, |r, key, escapes, depth| {
            if escapes {
                return None;
            }
            member(r, key, depth)
        })
    }

    /// An object's members, keys with escapes among them: `member(key as written, has escapes, reader at the
    /// value)`, which must consume the value.
    pub(crate) fn members_any(
        &mut self,
        depth: u32,
        mut member: impl FnMut(&mut Self, &'b [u8], bool, u32) -> Option<()>,
    ) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.expect(b'{')?;
        self.ws();
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(());
        }
        loop {
            self.ws();
            let (key, escapes) = self.string()?;
            self.expect(b':')?;
            self.ws();
            member(self, key, escapes, depth)?;
            self.ws();
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }
}

/// The end of a JSON string whose text starts at `from` (the index of its closing quote), and whether it has escapes;
/// `None` when it is unterminated or not valid JSON (a control character, an unknown escape, `\u` without four hex
/// digits). 64 bytes are classified at a time.
#[inline]
pub(crate) fn strict_string_end(b: &[u8], from: usize) -> Option<(usize, bool)> {
    // Most strings are short (a profile's keys, ids and numbers): when the first 16 bytes hold the closing quote
    // before any backslash or control character, that is the end. The Hermes reader spent 18 % of a long
    // recording's run in 64-byte scans of strings of 2 to 12 bytes.
    #[cfg(target_arch = "x86_64")]
    if from + 16 <= b.len() {
        let (quotes, special) = crate::internal::json::scan::masks16(&b[from..]);
        if quotes != 0 && quotes.trailing_zeros() < special.trailing_zeros() {
            return Some((from + quotes.trailing_zeros() as usize, false));
        }
    }
    strict_string_end_blocks(b, from)
}

/// [`strict_string_end`] 64 bytes at a time.
#[inline(never)]
fn strict_string_end_blocks(b: &[u8], from: usize) -> Option<(usize, bool)> {
    let mut at = from;
    let mut prev_escaped = 0u64;
    let mut escapes = false;
    while at + 64 <= b.len() {
        let (quotes, backslashes, controls) = masks64(&b[at..at + 64]);
        let escaped = if backslashes == 0 && prev_escaped == 0 {
            0
        } else {
            escaped_bits(backslashes, &mut prev_escaped)
        };
        let real = quotes & !escaped;
        // The bytes that belong to the string in this block: all, or those before its closing quote.
        let inside = if real == 0 {
            u64::MAX
        } else {
            (1u64 << real.trailing_zeros()) - 1
        };
        if controls & inside != 0 {
            return None;
        }
        escapes |= backslashes & inside != 0;
        let mut check = escaped & inside;
        while check != 0 {
            let k = at + check.trailing_zeros() as usize;
            valid_escape(b, k)?;
            check &= check - 1;
        }
        if real != 0 {
            return Some((at + real.trailing_zeros() as usize, escapes));
        }
        at += 64;
    }
    strict_string_end_scalar(b, at, prev_escaped != 0, escapes)
}

/// The character after a backslash, at `k`: one of JSON's escapes (`\u` with four hex digits after it).
fn valid_escape(b: &[u8], k: usize) -> Option<()> {
    match b[k] {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(()),
        b'u' => b
            .get(k + 1..k + 5)?
            .iter()
            .all(u8::is_ascii_hexdigit)
            .then_some(()),
        _ => None,
    }
}

/// [`strict_string_end`] a byte at a time (the last bytes, and the reference in tests); `escaped`: the first byte is.
pub(crate) fn strict_string_end_scalar(
    b: &[u8],
    from: usize,
    mut escaped: bool,
    mut escapes: bool,
) -> Option<(usize, bool)> {
    for (i, &c) in b.get(from..)?.iter().enumerate() {
        if c < 0x20 {
            return None;
        }
        if escaped {
            valid_escape(b, from + i)?;
            escaped = false;
        } else if c == b'\\' {
            escaped = true;
            escapes = true;
        } else if c == b'"' {
            return Some((from + i, escapes));
        }
    }
    None
}
