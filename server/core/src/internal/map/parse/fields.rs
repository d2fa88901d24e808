//! One field's value read and checked, with an error at its JSON path: offsets, integers, `version`, strings,
//! debug IDs, texts and `names`.

use super::{Field, Parser, RawOffset, TextRef};
use crate::internal::map::debug_id::normalize_debug_id;
use crate::internal::map::error::MapError;
use crate::internal::map::raw::Raw;

impl<'b> Parser<'b> {
    pub(super) fn offset(
        &mut self,
        raw: Option<Raw>,
        path: &str,
        section: Option<Raw>,
    ) -> Option<(u32, u32)> {
        let Some(raw) = raw else {
            self.error(
                format!("{path}.offset"),
                section,
                "a section must have an `offset`",
            );
            return None;
        };
        if let Some(offset) = plain_offset(raw.get()) {
            return Some(offset);
        }
        let offset = is_object(raw).then(|| serde_json::from_str::<RawOffset>(raw.get()));
        let Some(Ok(offset)) = offset else {
            self.error(
                format!("{path}.offset"),
                Some(raw),
                "`offset` must be an object {line, column}",
            );
            return None;
        };
        let line = self.integer(offset.line, || format!("{path}.offset.line"), Some(raw));
        let column = self.integer(offset.column, || format!("{path}.offset.column"), Some(raw));
        Some((line?, column?))
    }

    /// A required non-negative integer that fits in 31 bits.
    fn integer(
        &mut self,
        raw: Option<Raw>,
        path: impl Fn() -> String,
        parent: Option<Raw>,
    ) -> Option<u32> {
        let Some(raw) = raw else {
            self.error(path(), parent, "missing");
            return None;
        };
        match non_negative_integer(raw) {
            Ok(v) => Some(v),
            Err(why) => {
                self.error(path(), Some(raw), why.to_string());
                None
            }
        }
    }

    pub(super) fn version(&mut self, raw: Option<Raw>, at: Field) {
        match raw {
            None => self.error(at.path(), None, "`version` is missing (must be 3)"),
            Some(r) => match serde_json::from_str::<serde_json::Number>(r.get()) {
                Ok(n) if n.as_f64() == Some(3.0) => {}
                Ok(n) => self.error(
                    at.path(),
                    Some(r),
                    format!("unsupported version {n} (must be 3)"),
                ),
                Err(_) => self.error(
                    at.path(),
                    Some(r),
                    format!("`version` must be the number 3, not {}", r.get()),
                ),
            },
        }
    }

    pub(super) fn optional_string(&mut self, raw: Option<Raw>, at: Field) -> Option<String> {
        let raw = raw?;
        match serde_json::from_str::<String>(raw.get()) {
            Ok(s) => Some(s),
            Err(_) => {
                self.error(
                    at.path(),
                    Some(raw),
                    format!("`{}` must be a string", at.name),
                );
                None
            }
        }
    }

    /// The map's debug ID: `debugId` (the ECMA-426 debug ID proposal's spelling) or `debug_id` (what `sentry-cli
    /// sourcemaps inject` writes), a UUID with or without its dashes, in either case (`is_debug_id`). When both are
    /// there and differ, `debugId` is taken and the other named in a warning.
    pub(super) fn debug_id(
        &mut self,
        camel: Option<Raw>,
        snake: Option<Raw>,
        prefix: &str,
    ) -> Option<String> {
        let mut read = |raw: Option<Raw>, name: &'static str| {
            let at = Field { prefix, name };
            let id = self.optional_string(raw, at)?;
            if is_debug_id(&id) {
                return Some(id);
            }
            let offset = raw.map(|r| self.offset_of(r));
            self.warnings.push(
                MapError::at(at.path(), format!("`{name}` {id:?} is not a UUID; ignored"))
                    .with_file_offset(offset),
            );
            None
        };
        let camel_id = read(camel, "debugId");
        let snake_id = read(snake, "debug_id");
        match (camel_id, snake_id) {
            (Some(c), Some(s)) => {
                if normalize_debug_id(&c) != normalize_debug_id(&s) {
                    let offset = snake.map(|r| self.offset_of(r));
                    self.warnings.push(
                        MapError::at(
                            format!("{prefix}debug_id"),
                            format!(
                                "`debug_id` {s:?} differs from `debugId` {c:?}; `debugId` is used"
                            ),
                        )
                        .with_file_offset(offset),
                    );
                }
                Some(c)
            }
            (c, s) => c.or(s),
        }
    }

    /// A JSON string as a [`TextRef`], borrowed when it has no escapes (`plain`: known to have none).
    pub(super) fn text(&mut self, raw: Raw, at: Field, plain: bool) -> Option<TextRef> {
        let s = raw.get();
        if !s.starts_with('"') {
            self.error(
                at.path(),
                Some(raw),
                format!("`{}` must be a string", at.name),
            );
            return None;
        }
        let range = self.range_of(raw);
        let inner = range.start + 1..range.end - 1;
        if plain || memchr::memchr(b'\\', &self.buffer[inner.clone()]).is_none() {
            return Some(TextRef::Buffer(inner));
        }
        match serde_json::from_str::<String>(s) {
            Ok(owned) => Some(TextRef::Owned(owned.into_bytes().into_boxed_slice())),
            Err(e) => {
                self.error(at.path(), Some(raw), format!("invalid string: {e}"));
                None
            }
        }
    }

    /// `names` read one by one (escapes, or something that is not a string: each error located).
    pub(super) fn owned_names(&mut self, list: Raw, at: Field) -> Vec<String> {
        let mut names = Vec::new();
        match serde_json::from_str::<Vec<Raw>>(list.get()) {
            Err(_) => self.error(at.path(), Some(list), "`names` must be an array"),
            Ok(items) => {
                for (i, item) in items.into_iter().enumerate() {
                    match serde_json::from_str::<String>(item.get()) {
                        Ok(s) => names.push(s),
                        Err(_) => {
                            self.error(
                                format!("{}[{i}]", at.path()),
                                Some(item),
                                "a name must be a string",
                            );
                            names.push(String::new());
                        }
                    }
                }
            }
        }
        names
    }
}

/// A nested section's offset in the outer document: lines add; columns add on the outer section's first line only.
pub(super) fn compose_offset(outer: (u32, u32), inner: (u32, u32)) -> (u32, u32) {
    let line = outer.0.saturating_add(inner.0);
    let column = if inner.0 == 0 {
        outer.1.saturating_add(inner.1)
    } else {
        inner.1
    };
    (line, column)
}

/// serde_json reports a trailing comma as "trailing comma" or, inside a skipped value, as "expected value" at the
/// closing bracket; either way the error sits on `}` or `]` with a `,` before it (whitespace aside).
pub(super) fn trailing_comma_before(buffer: &[u8], at: usize) -> Option<usize> {
    let mut at = at.min(buffer.len().saturating_sub(1));
    // serde_json's column may point at or just past the bracket.
    while at > 0 && !matches!(buffer[at], b'}' | b']') && buffer[at].is_ascii_whitespace() {
        at -= 1;
    }
    if !matches!(buffer.get(at), Some(b'}') | Some(b']')) {
        at = at.checked_sub(1)?;
        if !matches!(buffer[at], b'}' | b']') {
            return None;
        }
    }
    let comma = buffer[..at]
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())?;
    (buffer[comma] == b',').then_some(comma)
}

/// serde would also read a struct from an array; the format wants objects.
pub(super) fn is_object(raw: Raw) -> bool {
    raw.get().starts_with('{')
}

/// `{"line":L,"column":C}` written as bundlers write it, read without serde (a Metro map has 16,500); anything else
/// (white space, other members, a number that is not plain digits) is left to serde and its errors.
pub(super) fn plain_offset(text: &str) -> Option<(u32, u32)> {
    let digits = |s: &str| {
        let plain = !s.is_empty()
            && s.bytes().all(|c| c.is_ascii_digit())
            && (s == "0" || !s.starts_with('0'));
        plain
            .then(|| s.parse::<u32>().ok())
            .flatten()
            .filter(|&v| v <= i32::MAX as u32)
    };
    let body = text.strip_prefix('{')?.strip_suffix('}')?;
    if let Some(rest) = body.strip_prefix("\"line\":") {
        let (line, column) = rest.split_once(",\"column\":")?;
        Some((digits(line)?, digits(column)?))
    } else {
        // Key-sorted writers (serde_json's `Value`, `JSON.stringify` of sorted objects) put `column` first.
        let (column, line) = body.strip_prefix("\"column\":")?.split_once(",\"line\":")?;
        Some((digits(line)?, digits(column)?))
    }
}

/// Why a JSON value is not an integer the format allows (ECMA-426's offsets, indexes and lines: 0 to 2^31 - 1).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(super) enum IntegerError {
    #[error("{0} is too large (at most 2^31 - 1)")]
    TooLarge(u64),
    #[error("{0} is not a non-negative integer")]
    NotNonNegativeInteger(serde_json::Number),
    #[error("must be a non-negative integer, not {0}")]
    NotANumber(String),
}

pub(super) fn non_negative_integer(raw: Raw) -> Result<u32, IntegerError> {
    // The common case, plain digits (the text is valid JSON, so no sign or leading zero can be there).
    if let Ok(v @ 0..=0x7fff_ffff) = raw.get().parse::<u32>() {
        return Ok(v);
    }
    match serde_json::from_str::<serde_json::Number>(raw.get()) {
        Ok(n) => {
            let v = n.as_u64().or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                    .map(|f| f as u64)
            });
            match v {
                Some(v) if v <= i32::MAX as u64 => Ok(v as u32),
                Some(v) => Err(IntegerError::TooLarge(v)),
                None => Err(IntegerError::NotNonNegativeInteger(n)),
            }
        }
        Err(_) => Err(IntegerError::NotANumber(raw.get().to_string())),
    }
}

/// The canonical 8-4-4-4-12 hexadecimal form.
/// A debug ID as producers write it: a UUID, 8-4-4-4-12 hex digits (the ECMA-426 debug ID proposal; `sentry-cli`
/// writes lowercase), or the same 32 digits without dashes (Sentry's `DebugId` parses both, in either case).
pub(super) fn is_debug_id(s: &str) -> bool {
    let b = s.as_bytes();
    match b.len() {
        36 => b.iter().enumerate().all(|(i, &c)| match i {
            8 | 13 | 18 | 23 => c == b'-',
            _ => c.is_ascii_hexdigit(),
        }),
        32 => b.iter().all(u8::is_ascii_hexdigit),
        _ => false,
    }
}
