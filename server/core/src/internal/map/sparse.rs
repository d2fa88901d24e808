//! Opening only the sections of an index map that some generated positions need.
//!
//! `symbolicate` of a short trace against a Metro dev map (100 MB, 9,500 sections, half of it `sourcesContent`)
//! spent most of its time in `serde_json` scanning strings it never used. [`select_sections`] skims the document
//! instead: strings are skipped 64 bytes at a time (`escaped_bits`: no escape decoding, no UTF-8 check), containers by a bracket stack,
//! and only each section's `offset` is parsed. It returns a smaller index map made of the document's other
//! top-level members and the sections that contain the positions, which is then parsed and validated as usual.
//!
//! The skim is a second JSON reader beside `json::reader`, kept for its measured win: on the strict reader instead
//! (UTF-8 checked first, every escape and number validated) `symbolicate` of 50 frames against the benchmark's
//! Metro-scale index map (74 MB) took 1.12–1.18× the CPU, whole process (`farm-bench -n 21`, medians, 2026-12-02;
//! `std::str::from_utf8` alone is 8.7 ms of that map). It shares the reader's 64-byte string scanner
//! (`json::scan`), not its checks: what it skims is parsed and validated in full afterwards.
//!
//! What the skim does not check, the caller must not rely on: the skipped sections are not validated (a
//! `symbolicate` answer does not depend on them; `validate` reads everything), and anything the skim finds odd
//! (not an index map, unbalanced brackets, an unterminated string, sections out of order) makes it return `None`,
//! so the caller opens the whole map and reports the document's errors where they are.

use std::ops::Range;

use crate::internal::json::scan::{escaped_bits, masks64};
use crate::internal::map::index::GeneratedPosition;

/// A section as skimmed: its raw JSON and where it starts.
struct SkimmedSection {
    raw: Range<usize>,
    offset: GeneratedPosition,
}

struct Skim<'a> {
    b: &'a [u8],
    i: usize,
}

impl Skim<'_> {
    fn ws(&mut self) {
        while let Some(c) = self.b.get(self.i) {
            if !matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                break;
            }
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        (self.peek()? == c).then(|| self.i += 1)
    }

    /// Skips a string starting at `self.i` (on its quote); returns its range, quotes included.
    fn string(&mut self) -> Option<Range<usize>> {
        let start = self.i;
        if self.peek()? != b'"' {
            return None;
        }
        let end = string_end(self.b, self.i + 1)?;
        self.i = end + 1;
        Some(start..self.i)
    }

    /// Skips any value; returns its range.
    fn value(&mut self) -> Option<Range<usize>> {
        self.ws();
        let start = self.i;
        match self.peek()? {
            b'"' => {
                self.string()?;
            }
            b'{' | b'[' => {
                let mut stack = Vec::with_capacity(8);
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        c @ (b'{' | b'[') => stack.push(if c == b'{' { b'}' } else { b']' }),
                        c @ (b'}' | b']') => {
                            if stack.pop()? != c {
                                return None;
                            }
                            if stack.is_empty() {
                                self.i += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    self.i += 1;
                }
            }
            _ => {
                // A number or a literal: up to the next delimiter.
                while let Some(c) = self.peek() {
                    if matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                        break;
                    }
                    self.i += 1;
                }
                if self.i == start {
                    return None;
                }
            }
        }
        Some(start..self.i)
    }

    /// Walks an object's members (the cursor on its `{`), calling `member(key without quotes, skim)` with the cursor
    /// on the value, which `member` must skip. Returns the object's range.
    fn object(
        &mut self,
        mut member: impl FnMut(&[u8], &mut Self) -> Option<()>,
    ) -> Option<Range<usize>> {
        self.ws();
        let start = self.i;
        self.eat(b'{')?;
        self.ws();
        if self.peek()? == b'}' {
            self.i += 1;
            return Some(start..self.i);
        }
        loop {
            self.ws();
            let key = self.string()?;
            self.eat(b':')?;
            self.ws();
            let name = &self.b[key.start + 1..key.end - 1];
            member(name, self)?;
            self.ws();
            match self.peek()? {
                b',' => self.i += 1,
                b'}' => {
                    self.i += 1;
                    return Some(start..self.i);
                }
                _ => return None,
            }
        }
    }
}

/// The index of the first quote at or after `from` that no backslash escapes: the end of a JSON string whose text
/// starts at `from`. Metro's `sourcesContent` has an escaped quote or a `\n` every few bytes, so looking for each
/// quote (or backslash) with `memchr` stopped every few bytes: this classifies 64 bytes at a time instead, and finds
/// the escaped characters with simdjson's carry trick (a backslash run of odd length escapes the byte after it).
fn string_end(b: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    let mut prev_escaped = 0u64;
    while at + 64 <= b.len() {
        let (quotes, backslashes, _) = masks64(&b[at..at + 64]);
        let escaped = if backslashes == 0 && prev_escaped == 0 {
            0
        } else {
            escaped_bits(backslashes, &mut prev_escaped)
        };
        let real = quotes & !escaped;
        if real != 0 {
            return Some(at + real.trailing_zeros() as usize);
        }
        at += 64;
    }
    string_end_scalar(b, at, prev_escaped != 0)
}

/// [`string_end`] a byte at a time (the last bytes, and the reference in tests); `escaped`: the first byte is.
fn string_end_scalar(b: &[u8], from: usize, mut escaped: bool) -> Option<usize> {
    for (i, &c) in b.get(from..)?.iter().enumerate() {
        if escaped {
            escaped = false;
        } else if c == b'\\' {
            escaped = true;
        } else if c == b'"' {
            return Some(from + i);
        }
    }
    None
}

/// The index map in `bytes` cut down to the sections holding `positions` (each position's section is the last one
/// starting at or before it), with its other top-level members as they are; `None` when `bytes` is not an index map
/// the skim reads cleanly, or when the cut would keep most of it anyway.
pub fn select_sections(bytes: &[u8], positions: &[GeneratedPosition]) -> Option<Vec<u8>> {
    let frames: Vec<(Option<&str>, GeneratedPosition)> =
        positions.iter().map(|&p| (None, p)).collect();
    select_sections_for(bytes, &frames)
}

/// [`select_sections`] for frames as their trace names them: `(file, position)`. In a map with Metro's
/// `x_facebook_offsets` or `x_facebook_segments` (`map/metro.rs`), a frame in a RAM bundle's module `N.js` needs the
/// section at its line moved by `x_facebook_offsets[N]`, and a frame in a segment needs no section of the map's own
/// (the segments are top-level members, kept whole); every other frame, the section at its position.
pub fn select_sections_for(
    bytes: &[u8],
    frames: &[(Option<&str>, GeneratedPosition)],
) -> Option<Vec<u8>> {
    let mut skim = Skim {
        b: bytes,
        i: crate::internal::map::parse::document_start(bytes),
    };
    let mut others: Vec<(Range<usize>, Range<usize>)> = Vec::new();
    let mut sections: Option<Vec<SkimmedSection>> = None;
    skim.object(|key, s| {
        if key == b"sections" {
            if sections.is_some() {
                return None;
            }
            let mut list = Vec::new();
            s.eat(b'[')?;
            s.ws();
            if s.peek()? == b']' {
                s.i += 1;
            } else {
                loop {
                    let mut offset = None;
                    let raw = s.object(|k, s| {
                        let v = s.value()?;
                        if k == b"offset" {
                            offset = serde_json::from_slice::<GeneratedOffset>(&s.b[v]).ok();
                            offset.as_ref()?;
                        }
                        Some(())
                    })?;
                    let o = offset?;
                    list.push(SkimmedSection {
                        raw,
                        offset: GeneratedPosition {
                            line: o.line,
                            column: o.column,
                        },
                    });
                    s.ws();
                    match s.peek()? {
                        b',' => s.i += 1,
                        b']' => {
                            s.i += 1;
                            break;
                        }
                        _ => return None,
                    }
                }
            }
            sections = Some(list);
        } else if key == b"mappings" {
            // A flat map (an index map has no `mappings`): opened whole, without skimming the rest of it (the skim
            // of a 38 MB flat map was ~5 % of a 50-frame trace's time, `perf`).
            return None;
        } else {
            let v = s.value()?;
            others.push((key_range(s.b, v.start)?, v));
        }
        Some(())
    })?;
    skim.ws();
    if skim.i != bytes.len() {
        return None;
    }
    let sections = sections?;
    if sections.windows(2).any(|w| w[1].offset < w[0].offset) {
        return None;
    }
    let positions = placed(bytes, &others, frames)?;
    let mut keep = vec![false; sections.len()];
    for p in &positions {
        if let Some(i) = sections.partition_point(|s| s.offset <= *p).checked_sub(1) {
            keep[i] = true;
        }
    }
    let kept = keep.iter().filter(|&&k| k).count();
    if kept * 2 > sections.len() {
        return None;
    }
    let mut out = Vec::with_capacity(
        4096 + sections
            .iter()
            .zip(&keep)
            .filter(|(_, &k)| k)
            .map(|(s, _)| s.raw.len() + 1)
            .sum::<usize>(),
    );
    out.push(b'{');
    for (key, value) in &others {
        out.extend_from_slice(&bytes[key.clone()]);
        out.push(b':');
        out.extend_from_slice(&bytes[value.clone()]);
        out.push(b',');
    }
    out.extend_from_slice(b"\"sections\":[");
    let mut first = true;
    for (s, _) in sections.iter().zip(&keep).filter(|(_, &k)| k) {
        if !first {
            out.push(b',');
        }
        first = false;
        out.extend_from_slice(&bytes[s.raw.clone()]);
    }
    out.extend_from_slice(b"]}");
    Some(out)
}

/// The positions of the map's own file that `frames` need: Metro's module and segment files placed first
/// (`map/metro.rs`) when the map has Metro's fields among `others`; `None` when those fields do not read.
fn placed(
    bytes: &[u8],
    others: &[(Range<usize>, Range<usize>)],
    frames: &[(Option<&str>, GeneratedPosition)],
) -> Option<Vec<GeneratedPosition>> {
    let member = |name: &[u8]| {
        others
            .iter()
            .find(|(k, _)| bytes.get(k.start + 1..k.end - 1) == Some(name))
            .map(|(_, v)| v.clone())
    };
    let offsets = member(b"x_facebook_offsets");
    let metro = offsets.is_some() || member(b"x_facebook_segments").is_some();
    if !metro {
        return Some(frames.iter().map(|f| f.1).collect());
    }
    let offsets: Vec<Option<u32>> = match offsets {
        Some(v) => serde_json::from_slice(&bytes[v]).ok()?,
        None => Vec::new(),
    };
    Some(
        frames
            .iter()
            .filter_map(
                |&(file, p)| match file.and_then(crate::internal::map::metro::metro_file) {
                    None => Some(p),
                    Some(f) if f.segment != 0 => None,
                    Some(f) => f.module.map_or(Some(p), |m| {
                        let line = offsets.get(m as usize).copied().flatten()?;
                        Some(GeneratedPosition {
                            line: p.line.saturating_add(line),
                            column: p.column,
                        })
                    }),
                },
            )
            .collect(),
    )
}

/// The raw key (quotes included) of the member whose value starts at `value_start`: back over white space, the
/// colon, white space, to the key's closing quote, then to its opening one (a key never holds an unescaped quote).
fn key_range(b: &[u8], value_start: usize) -> Option<Range<usize>> {
    let mut i = value_start;
    let back_ws = |i: &mut usize| {
        while *i > 0 && matches!(b[*i - 1], b' ' | b'\t' | b'\n' | b'\r') {
            *i -= 1;
        }
    };
    back_ws(&mut i);
    if i == 0 || b[i - 1] != b':' {
        return None;
    }
    i -= 1;
    back_ws(&mut i);
    if i == 0 || b[i - 1] != b'"' {
        return None;
    }
    let end = i;
    let mut j = end - 1;
    loop {
        j = memchr::memrchr(b'"', &b[..j])?;
        // An escaped quote is preceded by an odd number of backslashes.
        let slashes = b[..j].iter().rev().take_while(|&&c| c == b'\\').count();
        if slashes % 2 == 0 {
            return Some(j..end);
        }
    }
}

#[derive(serde::Deserialize)]
struct GeneratedOffset {
    line: u32,
    column: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::internal::map::compact::Bias;
    use crate::internal::map::index::{IndexOptions, SourceMapIndex};

    fn index_map(n: u32) -> String {
        let sections: Vec<String> = (0..n)
            .map(|i| {
                format!(
                    r#"{{ "offset" : {{"line":{i},"column":0}}, "map":{{"version":3,"sources":["s{i}.js"],"sourcesContent":["a \"quoted\" \\ {{text}} ]"],"names":["n{i}"],"mappings":"AAAAA,EAAE"}}}}"#
                )
            })
            .collect();
        format!(
            "{{\"version\" : 3,\"file\":\"b\\\"x.js\",\n\"sections\": [{}], \"x_extra\": {{\"a\": [1, 2.5e3, null, true]}}}}",
            sections.join(",\n")
        )
    }

    #[test]
    fn keeps_the_sections_of_the_positions_and_the_other_members() {
        let text = index_map(10);
        let at = |line, column| GeneratedPosition { line, column };
        let doc = select_sections(text.as_bytes(), &[at(3, 1), at(7, 0), at(7, 5)]).unwrap();
        let full = SourceMapIndex::from_bytes(text.clone().into_bytes()).unwrap();
        let part = SourceMapIndex::from_bytes_with(doc, IndexOptions::default()).unwrap();
        assert_eq!(part.sections().len(), 2);
        assert_eq!(part.file.as_deref(), Some("b\"x.js"));
        for p in [at(3, 1), at(7, 0), at(7, 5)] {
            let a = full.lookup(p, Bias::GreatestLowerBound).unwrap().unwrap();
            let b = part.lookup(p, Bias::GreatestLowerBound).unwrap().unwrap();
            assert_eq!(a.generated, b.generated);
            let (a, b) = (a.original.unwrap(), b.original.unwrap());
            assert_eq!(
                (a.source_url, a.line, a.column, a.name),
                (b.source_url, b.line, b.column, b.name)
            );
        }
    }

    #[test]
    fn a_ram_bundles_frames_keep_the_sections_their_modules_are_in() {
        // Ten sections, one per line; module 4 starts on line 6, module 9 on line 2; a segment kept whole.
        let text = index_map(10).replacen(
            '{',
            r#"{"x_facebook_offsets":[null,null,null,null,6,null,null,null,null,2],"x_facebook_segments":{"1":{"version":3,"sources":["g.js"],"names":[],"mappings":"AAAA"}},"#,
            1,
        );
        let at = |line, column| GeneratedPosition { line, column };
        let frames = [
            (Some("4.js"), at(1, 0)),
            (Some("9.js"), at(0, 2)),
            (Some("seg-1.js"), at(0, 0)),
        ];
        let doc = select_sections_for(text.as_bytes(), &frames).unwrap();
        let part = SourceMapIndex::from_bytes(doc).unwrap();
        let full = SourceMapIndex::from_bytes(text.into_bytes()).unwrap();
        assert_eq!(part.sections().len(), 2, "lines 7 and 2: modules 4 and 9");
        for &(file, p) in &frames {
            let f = crate::internal::map::metro::metro_file(file.unwrap()).unwrap();
            let answer = |index: &SourceMapIndex| {
                let (space, q) = index.metro_position(f, p).unwrap();
                let hit = index
                    .lookup_in(space, q, Bias::GreatestLowerBound)
                    .unwrap()
                    .unwrap();
                hit.original
                    .map(|o| (o.source_url.map(str::to_string), o.line, o.column))
            };
            assert_eq!(answer(&part), answer(&full), "{file:?}");
        }
    }

    proptest::proptest! {
        /// The block scan finds the same end as the byte-at-a-time one, across block edges and backslash runs.
        #[test]
        fn string_ends_as_byte_by_byte(bytes in proptest::collection::vec(proptest::sample::select(vec![b'a', b'"', b'\\', b'\\', b'x']), 0..400), from in 0usize..80) {
            let from = from.min(bytes.len());
            proptest::prop_assert_eq!(string_end(&bytes, from), string_end_scalar(&bytes, from, false));
        }
    }

    #[test]
    fn string_ends_at_runs_of_backslashes_across_blocks() {
        for run in 0..70 {
            for pad in 0..70 {
                let mut b = vec![b'a'; pad];
                b.extend(std::iter::repeat_n(b'\\', run));
                b.extend_from_slice(b"\"tail\"");
                assert_eq!(
                    string_end(&b, 0),
                    string_end_scalar(&b, 0, false),
                    "pad {pad} run {run}"
                );
            }
        }
    }

    #[test]
    fn anything_odd_means_the_whole_map() {
        let at = [GeneratedPosition { line: 1, column: 0 }];
        let text = index_map(10);
        // Not an index map; most sections wanted; broken structure; sections out of order.
        assert!(select_sections(
            br#"{"version":3,"sources":[],"names":[],"mappings":""}"#,
            &at
        )
        .is_none());
        let all: Vec<_> = (0..10)
            .map(|line| GeneratedPosition { line, column: 0 })
            .collect();
        assert!(select_sections(text.as_bytes(), &all).is_none());
        assert!(select_sections(&text.as_bytes()[..text.len() - 1], &at).is_none());
        assert!(select_sections(text.replace("\"map\":{", "\"map\":[").as_bytes(), &at).is_none());
        let unordered = text.replace(r#""line":2,"column":0"#, r#""line":9,"column":9"#);
        assert!(select_sections(unordered.as_bytes(), &at).is_none());
        // A RAM bundle's map whose offsets do not read.
        let ram = text.replacen('{', r#"{"x_facebook_offsets":"x","#, 1);
        assert!(select_sections(ram.as_bytes(), &at).is_none());
        assert!(select_sections(format!("{text} x").as_bytes(), &at).is_none());
    }
}
