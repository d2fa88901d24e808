//! Decoding `mappings` one segment at a time, with every ECMA-426 validity rule checked on the way.
//!
//! `SegmentCursor` decodes and checks every rule (the validating build pass); `ValidatedCursor` decodes text it
//! already accepted, without the checks, for the lookups that resume from a [`Checkpoint`] (one set of rules, a unit
//! test runs both over the same text). Positions here are relative to the section and 0-based, as in the format.
//!
//! [`Checkpoint`]: crate::internal::map::compact::Checkpoint

use crate::internal::map::error::MappingsLocation;
use crate::internal::map::vlq::{self, VlqError};

/// What a segment maps to; `None` on a [`Segment`] means a 1-field segment (maps to nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SegmentOriginal {
    /// Index into the section's own `sources`.
    pub source: u32,
    /// 0-based original line.
    pub line: u32,
    /// 0-based original column.
    pub column: u32,
    /// Index into the section's own `names`.
    pub name: Option<u32>,
}

/// One decoded segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    /// 0-based generated line, relative to the section.
    pub line: u32,
    /// 0-based generated column, absolute on its line (not the field's delta); on the section's first line, counted
    /// from the section's start column.
    pub column: u32,
    /// Byte offset of the segment's first digit in `mappings`: its identity and its order in the text.
    pub offset: u32,
    /// `None` for a 1-field segment.
    pub original: Option<SegmentOriginal>,
}

/// The running accumulators of the format (everything but the generated column resets nowhere).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Accumulators {
    /// Index into the section's `sources`.
    pub source: u32,
    /// 0-based original line.
    pub original_line: u32,
    /// 0-based original column.
    pub original_column: u32,
    /// Index into the section's `names` (0 until a segment sets it).
    pub name: u32,
}

/// How many sources and names a section has, to range-check indices.
#[derive(Debug, Clone, Copy, Default)]
pub struct Limits {
    /// Length of the section's `sources`.
    pub sources: u32,
    /// Length of the section's `names`.
    pub names: u32,
}

/// A decoding failure, located in the `mappings` string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentError {
    /// Where in `mappings` decoding failed.
    pub location: MappingsLocation,
    /// What is wrong there.
    pub message: String,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    LineStart,
    AfterComma,
    AfterSegment,
}

const MAX: i64 = i32::MAX as i64;

/// A segment's first field, which `skip_to_segment` reaches only at a byte that is no separator.
const FIRST_FIELD: &str = "generated column";

/// A forward cursor over `mappings`.
///
/// `RELATIVE = false` (the default) decodes from the start of `mappings` and checks every rule. `RELATIVE = true`
/// decodes a stretch that starts at a line (after a `;`) with accumulators that start at 0, so that stretches can be
/// decoded at once on several threads: it checks every rule that does not depend on the accumulators' values
/// (syntax, VLQ, generated columns) and records instead the [`Extent`] of each accumulator, which the caller checks
/// once the stretches before it tell it the accumulators' real starting values.
pub struct SegmentCursor<'a, const RELATIVE: bool = false> {
    bytes: &'a [u8],
    pos: usize,
    line: u32,
    segment_in_line: u32,
    column: i64,
    /// Source, original line, original column, name. Within range once checked (absolute), or relative to the
    /// stretch's start and possibly negative (relative).
    acc: [i64; 4],
    expect: Expect,
    limits: Limits,
    extent: Extent,
}

/// The smallest and largest value each accumulator (source, original line, original column, name) took, relative to
/// a stretch's start, over the segments that set it (`min > max`: none did). See [`SegmentCursor`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extent {
    /// Per accumulator, the smallest relative value.
    pub min: [i64; 4],
    /// Per accumulator, the largest relative value.
    pub max: [i64; 4],
}

impl Default for Extent {
    fn default() -> Self {
        Extent {
            min: [i64::MAX; 4],
            max: [i64::MIN; 4],
        }
    }
}

impl Extent {
    #[inline(always)]
    fn note(&mut self, field: usize, value: i64) {
        self.min[field] = self.min[field].min(value);
        self.max[field] = self.max[field].max(value);
    }

    /// Whether every value, once `start` is added, is within the format's ranges for a section with `limits`
    /// (the rules [`SegmentCursor`] checks per segment when absolute).
    pub fn fits(&self, start: [i64; 4], limits: Limits) -> bool {
        let upper = [
            i64::from(limits.sources) - 1,
            MAX,
            MAX,
            i64::from(limits.names) - 1,
        ];
        (0..4).all(|f| {
            self.min[f] > self.max[f]
                || (start[f] + self.min[f] >= 0 && start[f] + self.max[f] <= upper[f])
        })
    }
}

impl<'a> SegmentCursor<'a, false> {
    /// A cursor at the start of `mappings`.
    pub fn new(bytes: &'a [u8], limits: Limits) -> Self {
        SegmentCursor::start(bytes, limits)
    }
}

impl<'a> SegmentCursor<'a, true> {
    /// A cursor over a stretch of `mappings` that starts at a line, with relative accumulators (see the type).
    pub fn relative(bytes: &'a [u8]) -> Self {
        SegmentCursor::start(bytes, Limits::default())
    }
}

impl<'a, const RELATIVE: bool> SegmentCursor<'a, RELATIVE> {
    fn start(bytes: &'a [u8], limits: Limits) -> Self {
        SegmentCursor {
            bytes,
            pos: 0,
            line: 0,
            segment_in_line: 0,
            column: 0,
            acc: [0; 4],
            expect: Expect::LineStart,
            limits,
            extent: Extent::default(),
        }
    }

    /// The accumulators as they stand (before the next segment). Relative ones are wrapped into `u32`, so that adding
    /// the stretch's start (wrapping) gives the absolute values once [`Extent::fits`] has said they are in range.
    #[inline(always)]
    pub fn accumulators(&self) -> Accumulators {
        Accumulators {
            source: self.acc[0] as u32,
            original_line: self.acc[1] as u32,
            original_column: self.acc[2] as u32,
            name: self.acc[3] as u32,
        }
    }

    /// The accumulators as they stand, and (relative cursors only) their extent so far.
    pub fn totals(&self) -> ([i64; 4], Extent) {
        (self.acc, self.extent)
    }

    /// Current generated line (the line of the next segment, once separators are consumed).
    pub fn line(&self) -> u32 {
        self.line
    }

    /// Byte position of the cursor.
    pub fn position(&self) -> usize {
        self.pos
    }

    #[cold]
    fn error(&self, byte: usize, message: impl Into<String>) -> SegmentError {
        SegmentError {
            location: MappingsLocation {
                byte,
                line: self.line,
                segment: self.segment_in_line,
            },
            message: message.into(),
        }
    }

    #[cold]
    #[inline(never)]
    fn vlq_error(&self, byte: usize, e: VlqError, field: &str) -> SegmentError {
        let message = match e {
            VlqError::InvalidDigit(b'=') => {
                "'=' is not allowed in mappings (base64 padding is not part of VLQ)".to_string()
            }
            other => format!("{field}: {other}"),
        };
        self.error(byte, message)
    }

    /// Moves past separators to the start of the next segment; returns false at the end of the text.
    #[inline]
    fn skip_to_segment(&mut self) -> Result<bool, SegmentError> {
        loop {
            let Some(&b) = self.bytes.get(self.pos) else {
                if self.expect == Expect::AfterComma {
                    return Err(self.error(
                        self.pos,
                        "segment with zero fields (',' at the end of a line)",
                    ));
                }
                return Ok(false);
            };
            match b {
                b';' => {
                    if self.expect == Expect::AfterComma {
                        return Err(
                            self.error(self.pos, "segment with zero fields (',' before ';')")
                        );
                    }
                    self.pos += 1;
                    self.line += 1;
                    self.column = 0;
                    self.segment_in_line = 0;
                    self.expect = Expect::LineStart;
                }
                b',' => {
                    if self.expect != Expect::AfterSegment {
                        return Err(self.error(
                            self.pos,
                            "segment with zero fields (',' with nothing before it)",
                        ));
                    }
                    self.pos += 1;
                    self.segment_in_line += 1;
                    self.expect = Expect::AfterComma;
                }
                _ => {
                    if self.expect == Expect::AfterSegment {
                        let what = if b == b'=' {
                            "'=' is not allowed in mappings (base64 padding is not part of VLQ)"
                                .to_string()
                        } else if vlq::is_digit(b) {
                            "segment has more than 5 fields".to_string()
                        } else if b.is_ascii_graphic() {
                            format!(
                                "'{}' is not a separator (',' or ';') or a base64 digit",
                                b as char
                            )
                        } else {
                            format!("byte 0x{b:02x} is not a separator or a base64 digit")
                        };
                        return Err(self.error(self.pos, what));
                    }
                    return Ok(true);
                }
            }
        }
    }

    /// Whether another field of the current segment follows; a byte that is neither a digit nor a separator is an
    /// error here, so that `AAAA.AAAA` says "bad separator" rather than "bad digit".
    #[inline(always)]
    fn more_fields(&self) -> Result<bool, SegmentError> {
        // Anything but a separator is the next field: a byte that is no digit fails in `field`, which says so as
        // this check used to (`not_a_field`), without a second table lookup per field here.
        Ok(!matches!(
            self.bytes.get(self.pos),
            None | Some(b',') | Some(b';')
        ))
    }

    #[cold]
    #[inline(never)]
    fn not_a_field(&self, b: u8) -> SegmentError {
        if b == b'=' {
            return self.error(
                self.pos,
                "'=' is not allowed in mappings (base64 padding is not part of VLQ)",
            );
        }
        if b.is_ascii_graphic() {
            return self.error(
                self.pos,
                format!(
                    "'{}' is not a separator (',' or ';') or a base64 digit",
                    b as char
                ),
            );
        }
        self.error(
            self.pos,
            format!("byte 0x{b:02x} is not a separator or a base64 digit"),
        )
    }

    /// Decodes the next segment, or `None` at the end.
    #[inline]
    pub fn next_segment(&mut self) -> Option<Result<Segment, SegmentError>> {
        match self.skip_to_segment() {
            Ok(true) => {}
            Ok(false) => return None,
            Err(e) => return Some(Err(e)),
        }
        Some(self.decode_segment())
    }

    #[inline]
    fn field(&mut self, what: &str) -> Result<i64, SegmentError> {
        let start = self.pos;
        vlq::decode_signed(self.bytes, &mut self.pos).map_err(|e| self.field_error(start, e, what))
    }

    /// A field's error. A field after the first that does not start with a digit is a bad separator, not a bad
    /// digit (`AAAA.AAAA`): `more_fields` let it through.
    #[cold]
    #[inline(never)]
    fn field_error(&self, start: usize, e: VlqError, what: &str) -> SegmentError {
        match self.bytes.get(start) {
            Some(&b) if what != FIRST_FIELD && !vlq::is_digit(b) => self.not_a_field(b),
            _ => self.vlq_error(start, e, what),
        }
    }

    #[inline(always)]
    fn decode_segment(&mut self) -> Result<Segment, SegmentError> {
        let start = self.pos;
        let column = self.column + self.field(FIRST_FIELD)?;
        if !(0..=MAX).contains(&column) {
            return Err(self.error(start, format!("generated column {column} is out of range")));
        }
        self.column = column;
        self.expect = Expect::AfterSegment;
        let mut segment = Segment {
            line: self.line,
            column: column as u32,
            offset: start as u32,
            original: None,
        };
        if !self.more_fields()? {
            return Ok(segment);
        }
        let source = self.acc[0] + self.field("source index")?;
        if !self.more_fields()? {
            return Err(self.error(start, "segment has 2 fields (must have 1, 4 or 5)"));
        }
        let line = self.acc[1] + self.field("original line")?;
        if !self.more_fields()? {
            return Err(self.error(start, "segment has 3 fields (must have 1, 4 or 5)"));
        }
        let col = self.acc[2] + self.field("original column")?;
        if RELATIVE {
            self.extent.note(0, source);
            self.extent.note(1, line);
            self.extent.note(2, col);
        } else if source < 0 || source >= i64::from(self.limits.sources) {
            return Err(self.error(
                start,
                format!(
                    "source index {source} is out of range ({} sources)",
                    self.limits.sources
                ),
            ));
        }
        if !RELATIVE && !(0..=MAX).contains(&line) {
            return Err(self.error(start, format!("original line {line} is out of range")));
        }
        if !RELATIVE && !(0..=MAX).contains(&col) {
            return Err(self.error(start, format!("original column {col} is out of range")));
        }
        self.acc[0] = source;
        self.acc[1] = line;
        self.acc[2] = col;
        let mut name = None;
        if self.more_fields()? {
            let n = self.acc[3] + self.field("name index")?;
            if RELATIVE {
                self.extent.note(3, n);
            } else if n < 0 || n >= i64::from(self.limits.names) {
                return Err(self.error(
                    start,
                    format!(
                        "name index {n} is out of range ({} names)",
                        self.limits.names
                    ),
                ));
            }
            self.acc[3] = n;
            name = Some(n as u32);
        }
        segment.original = Some(SegmentOriginal {
            source: source as u32,
            line: line as u32,
            column: col as u32,
            name,
        });
        Ok(segment)
    }
}

/// A forward cursor over `mappings` that `SegmentCursor` has already validated (a built `CompactMappings`): the
/// same decoding without error paths or range checks, for lookups. Out-of-bounds reads end the text; malformed input
/// cannot reach it, and would give wrong positions rather than undefined behaviour.
pub struct ValidatedCursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    line: u32,
    column: i64,
    acc: [i64; 4],
    known_column: Option<u32>,
}

impl<'a> ValidatedCursor<'a> {
    /// A cursor at the start of validated `mappings`.
    pub fn new(bytes: &'a [u8]) -> Self {
        ValidatedCursor {
            bytes,
            pos: 0,
            line: 0,
            column: 0,
            acc: [0; 4],
            known_column: None,
        }
    }

    /// Resumes at a segment whose start offset, line, absolute column and preceding accumulators are known.
    pub fn resume(bytes: &'a [u8], offset: u32, line: u32, column: u32, acc: Accumulators) -> Self {
        ValidatedCursor {
            bytes,
            pos: offset as usize,
            line,
            column: 0,
            acc: [
                i64::from(acc.source),
                i64::from(acc.original_line),
                i64::from(acc.original_column),
                i64::from(acc.name),
            ],
            known_column: Some(column),
        }
    }

    #[inline(always)]
    fn at_field(&self) -> bool {
        matches!(self.bytes.get(self.pos), Some(&b) if b != b',' && b != b';')
    }

    /// The next segment; `None` at the end of the text.
    #[inline]
    pub fn next_segment(&mut self) -> Option<Segment> {
        loop {
            match *self.bytes.get(self.pos)? {
                b';' => {
                    self.pos += 1;
                    self.line += 1;
                    self.column = 0;
                }
                b',' => self.pos += 1,
                _ => break,
            }
        }
        let start = self.pos;
        let delta = vlq::decode_validated(self.bytes, &mut self.pos);
        self.column = match self.known_column.take() {
            Some(c) => i64::from(c),
            None => self.column + delta,
        };
        let mut segment = Segment {
            line: self.line,
            column: self.column as u32,
            offset: start as u32,
            original: None,
        };
        if !self.at_field() {
            return Some(segment);
        }
        for a in &mut self.acc[..3] {
            *a += vlq::decode_validated(self.bytes, &mut self.pos);
        }
        let mut name = None;
        if self.at_field() {
            self.acc[3] += vlq::decode_validated(self.bytes, &mut self.pos);
            name = Some(self.acc[3] as u32);
        }
        segment.original = Some(SegmentOriginal {
            source: self.acc[0] as u32,
            line: self.acc[1] as u32,
            column: self.acc[2] as u32,
            name,
        });
        Some(segment)
    }
}

/// What [`ValidatedCursor::last_at_or_before`] found on a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineScan {
    /// The last segment of the line at or before the column (the only one at its column).
    Found(Segment),
    /// No segment of the line is at or before the column.
    Nothing,
    /// Two segments of the line share a column at or before the target: the caller must order the tie.
    Tied,
}

impl ValidatedCursor<'_> {
    /// The last segment of `line` whose column is ≤ `column`, on a line whose columns never go backwards, decoding
    /// nothing past it but the next segment's column. The lookup hot path: it keeps the state in locals and builds
    /// one `Segment` at the end instead of one per segment decoded.
    pub fn last_at_or_before(&mut self, line: u32, column: u32) -> LineScan {
        let bytes = self.bytes;
        let mut pos = self.pos;
        let mut cur_line = self.line;
        let mut col = self.column;
        let mut acc = self.acc;
        let mut known = self.known_column.take();
        let target = i64::from(column);
        // The best segment so far: its offset, column and field count (1, 4 or 5). Its accumulators need no copy:
        // the scan stops at the first segment past the column having read only its column, so the best segment is
        // always the last one decoded whole, and `acc` ends as it left them.
        let mut best: Option<(usize, i64, u8)> = None;
        let mut tied = false;
        while let Some(&b) = bytes.get(pos) {
            if b == b';' {
                if cur_line >= line {
                    break;
                }
                cur_line += 1;
                col = 0;
                pos += 1;
                continue;
            }
            if b == b',' {
                pos += 1;
                continue;
            }
            let start = pos;
            let delta = vlq::decode_validated(bytes, &mut pos);
            col = match known.take() {
                Some(c) => i64::from(c),
                None => col + delta,
            };
            let on_line = cur_line == line;
            if on_line && col > target {
                break;
            }
            let mut fields = 1u8;
            if matches!(bytes.get(pos), Some(&f) if f != b',' && f != b';') {
                acc[0] += vlq::decode_validated(bytes, &mut pos);
                acc[1] += vlq::decode_validated(bytes, &mut pos);
                acc[2] += vlq::decode_validated(bytes, &mut pos);
                fields = 4;
                if matches!(bytes.get(pos), Some(&f) if f != b',' && f != b';') {
                    acc[3] += vlq::decode_validated(bytes, &mut pos);
                    fields = 5;
                }
            }
            if on_line {
                tied |= best.is_some_and(|(_, c, _)| c == col);
                best = Some((start, col, fields));
            }
        }
        if tied {
            return LineScan::Tied;
        }
        match best {
            None => LineScan::Nothing,
            Some((offset, col, fields)) => LineScan::Found(Segment {
                line,
                column: col as u32,
                offset: offset as u32,
                original: (fields > 1).then(|| SegmentOriginal {
                    source: acc[0] as u32,
                    line: acc[1] as u32,
                    column: acc[2] as u32,
                    name: (fields == 5).then_some(acc[3] as u32),
                }),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (line, column, (source, line, column, name))
    type Decoded = (u32, u32, Option<(u32, u32, u32, Option<u32>)>);

    fn decode(text: &str, sources: u32, names: u32) -> Result<Vec<Decoded>, String> {
        let mut c = SegmentCursor::new(text.as_bytes(), Limits { sources, names });
        let mut out = Vec::new();
        while let Some(s) = c.next_segment() {
            let s =
                s.map_err(|e| format!("{}@{}: {}", e.location.line, e.location.byte, e.message))?;
            out.push((
                s.line,
                s.column,
                s.original.map(|o| (o.source, o.line, o.column, o.name)),
            ));
        }
        Ok(out)
    }

    #[test]
    fn fields_and_lines() {
        assert_eq!(
            decode("AAAA,CACAC;;E", 2, 2),
            Ok(vec![
                (0, 0, Some((0, 0, 0, None))),
                (0, 1, Some((0, 1, 0, Some(1)))),
                (2, 2, None),
            ])
        );
        assert_eq!(decode("", 0, 0), Ok(vec![]));
        assert_eq!(decode(";;;", 0, 0), Ok(vec![]));
    }

    #[test]
    fn the_validated_cursor_decodes_what_the_checking_one_does() {
        let text = "AAAA,CACAC;;E,AAAA,gBAAgBA;ACCA;;;A";
        let limits = Limits {
            sources: 3,
            names: 3,
        };
        let mut checked = SegmentCursor::new(text.as_bytes(), limits);
        let mut fast = ValidatedCursor::new(text.as_bytes());
        loop {
            let a = checked.next_segment().map(Result::unwrap);
            let b = fast.next_segment();
            assert_eq!(a, b);
            if a.is_none() {
                break;
            }
        }
    }

    #[test]
    fn the_line_scan_finds_what_a_full_decode_finds() {
        // Lines with 1-, 4- and 5-field segments, an empty line, a tie (line 3, column 4) and long deltas.
        let text = "AAAA,CACAC,E;ACAA,gBAAgB,G;;IACA,AAAA,CAAC;A,oBAAoBA";
        let all: Vec<Segment> = {
            let mut c = ValidatedCursor::new(text.as_bytes());
            std::iter::from_fn(|| c.next_segment()).collect()
        };
        for line in 0..6 {
            for column in 0..40 {
                let on_line: Vec<&Segment> = all
                    .iter()
                    .filter(|s| s.line == line && s.column <= column)
                    .collect();
                // Any shared column up to the target sends the caller to the general path.
                let tied = on_line.windows(2).any(|w| w[0].column == w[1].column);
                let expected = match on_line.last() {
                    None => LineScan::Nothing,
                    Some(_) if tied => LineScan::Tied,
                    Some(last) => LineScan::Found(**last),
                };
                let got = ValidatedCursor::new(text.as_bytes()).last_at_or_before(line, column);
                assert_eq!(got, expected, "{line}:{column}");
            }
        }
    }

    #[test]
    fn invalid_shapes() {
        for (text, why) in [
            (",", "zero fields"),
            ("A,", "zero fields"),
            ("A,;", "zero fields"),
            ("AA", "2 fields"),
            ("AAA", "3 fields"),
            ("AAAAAA", "more than 5"),
            ("AAAA.AAAA", "not a separator"),
            ("F", "generated column -2"),
            ("ACAA", "source index 1"),
            ("AAAAC", "name index 1"),
            ("A=", "padding"),
        ] {
            let err = decode(text, 1, 1).expect_err(text);
            assert!(err.contains(why), "{text}: {err}");
        }
    }
}
