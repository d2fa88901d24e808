//! Metro's function maps (`x_facebook_sources[i][0]`): which function encloses an original position.
//!
//! Decoded, a function map is a list of `(line, column, name)` entries ordered by position, meaning "from here on the
//! enclosing function is `names[name]`"; lines are 1-based original lines, columns 0-based. Encoding (Metro's
//! `SourceMapFormat.md`): groups separated by `;`; a group's first entry is three VLQs — column from the line start,
//! name delta, line delta; later entries (after `,`) are a column delta and a name delta. The name and line
//! accumulators run across groups (lines from 1, names from 0). Read as metro-symbolicate reads it
//! (`SourceMetadataMapConsumer.js`, `decodeFunctionMap`: `const [columnDelta, nameDelta, lineDelta = 0] =
//! vlq.decode(mapping); line += lineDelta;` for every entry): a third VLQ is a line delta in any entry, and may be
//! absent in any. Metro's own test map (`testfile.cpuprofile.map`, `"AAA,uBCC,JCI,RFe"`) is one group whose later
//! entries move the line; refusing it left its Hermes profile frames with Hermes' names (`global+55`) where
//! metro-symbolicate names them `<global>`.
//!
//! Cost: 12 B per entry and the names' text once, decoded when a position of its source is asked about and kept in
//! a small cache per index ([`FunctionMapCache`], least recently used dropped first past
//! [`FUNCTION_MAP_CACHE_BYTES`]); what is kept per section is where each source's map is in the field (24 B a
//! source, [`ElementSpan`]). Decoding every source's map of a section at once, as before, held 6.5 MB for the real
//! Metro build of the editor benchmark (2,493 sources, 73K functions, one section) from its first hover on.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use serde::Deserialize;

use crate::internal::map::vlq;

/// One source's Metro function map, decoded: which function encloses each original position (see the module
/// documentation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionMap {
    /// The names, one after another (`ends[i]` is where name `i` ends): a Metro map's 73K function names as one
    /// allocation, not 73K `String`s (24 bytes each beside their text, and a heap block each).
    names: String,
    ends: Vec<u32>,
    /// (1-based line, 0-based column, name index), sorted.
    pub entries: Vec<(u32, u32, u32)>,
}

#[derive(Deserialize)]
struct RawFunctionMap {
    names: Vec<String>,
    mappings: String,
}

/// [`RawFunctionMap`] read without copying: its names as raw JSON (only counted), its mappings borrowed when they
/// have no escapes.
#[derive(Deserialize)]
struct BorrowedFunctionMap<'a> {
    #[serde(borrow)]
    names: Vec<&'a serde_json::value::RawValue>,
    #[serde(borrow)]
    mappings: std::borrow::Cow<'a, str>,
}

/// Why a function map (`x_facebook_sources`) could not be read. The messages are the ones users see.
#[derive(Debug, Clone, thiserror::Error)]
pub enum FunctionMapError {
    /// A malformed VLQ in an entry, at this byte of the map's `mappings`.
    #[error("function map: {error} at byte {byte}")]
    Vlq {
        /// What was wrong with the VLQ.
        error: vlq::VlqError,
        /// Where decoding stopped.
        byte: usize,
    },
    /// An entry with more than three fields, starting at this byte.
    #[error("function map: extra data in entry at byte {byte}")]
    ExtraData {
        /// Where the entry starts.
        byte: usize,
    },
    /// An entry whose line, column or name index leaves its range, starting at this byte.
    #[error("function map: entry out of range at byte {byte}")]
    OutOfRange {
        /// Where the entry starts.
        byte: usize,
    },
    /// The names together are longer than the 4 GiB an index holds.
    #[error("function map: names longer than 4 GiB")]
    NamesTooLong,
    /// `x_facebook_sources` is not the JSON Metro writes (an array of per-source arrays).
    #[error("x_facebook_sources: {0}")]
    Field(Arc<serde_json::Error>),
    /// One source's element is not `{"names": […], "mappings": "…"}`.
    #[error("x_facebook_sources: function map: {0}")]
    Element(Arc<serde_json::Error>),
    /// The field was read back from the map file (after its text was shed) and is no longer what was indexed.
    #[error("x_facebook_sources: the map file no longer holds what was indexed")]
    FileChanged,
    /// The field's bytes are not UTF-8.
    #[error("{0}")]
    NotUtf8(#[from] std::str::Utf8Error),
}

fn field(bytes: &[u8], pos: &mut usize) -> Result<i64, FunctionMapError> {
    vlq::decode_signed(bytes, pos).map_err(|error| FunctionMapError::Vlq { error, byte: *pos })
}

impl FunctionMap {
    /// How many names the map has (each entry's name index is below it).
    pub fn name_count(&self) -> usize {
        self.ends.len()
    }

    /// Heap held: the names' text, 4 bytes a name, 12 bytes an entry.
    pub fn heap_bytes(&self) -> usize {
        self.names.capacity()
            + self.ends.capacity() * std::mem::size_of::<u32>()
            + self.entries.capacity() * std::mem::size_of::<(u32, u32, u32)>()
    }

    /// Name `i`.
    fn name(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)? as usize;
        let start = match i {
            0 => 0,
            _ => self.ends[i - 1] as usize,
        };
        self.names.get(start..end)
    }

    /// Decodes a function map's `mappings` against its `names` (the encoding in the module documentation); entries come
    /// out sorted. `Err` on a malformed VLQ, extra data in an entry, a line, column or name index out of range, or
    /// names over 4 GiB in all.
    pub fn decode(names: Vec<String>, mappings: &str) -> Result<FunctionMap, FunctionMapError> {
        let mut entries = Vec::new();
        Self::each_entry(names.len(), mappings, |e| entries.push(e))?;
        entries.sort();
        entries.shrink_to_fit();
        let mut joined = String::with_capacity(names.iter().map(String::len).sum());
        let mut ends = Vec::with_capacity(names.len());
        for n in &names {
            joined.push_str(n);
            let end = u32::try_from(joined.len()).map_err(|_| FunctionMapError::NamesTooLong)?;
            ends.push(end);
        }
        Ok(FunctionMap {
            names: joined,
            ends,
            entries,
        })
    }

    /// Each entry of a function map's `mappings` (line, column, name), checked as [`FunctionMap::decode`] checks
    /// them, in text order.
    fn each_entry(
        names: usize,
        mappings: &str,
        mut entry_found: impl FnMut((u32, u32, u32)),
    ) -> Result<(), FunctionMapError> {
        let bytes = mappings.as_bytes();
        let (mut line, mut name) = (1i64, 0i64);
        for group in mappings.split(';') {
            let mut column = 0i64;
            for (i, entry) in group.split(',').enumerate() {
                if entry.is_empty() {
                    continue;
                }
                let start = entry.as_ptr() as usize - bytes.as_ptr() as usize;
                let end = start + entry.len();
                let mut pos = start;
                let c = field(&bytes[..end], &mut pos)?;
                let n = field(&bytes[..end], &mut pos)?;
                if i == 0 {
                    column = c;
                } else {
                    column += c;
                }
                if pos < end {
                    line += field(&bytes[..end], &mut pos)?;
                }
                name += n;
                if pos != end {
                    return Err(FunctionMapError::ExtraData { byte: start });
                }
                // Lines and columns accumulate across entries: bound them by the u32 they are stored in (unchecked,
                // `as u32` below would wrap a line of 2^32 to 0).
                let max = i64::from(u32::MAX);
                if !(1..=max).contains(&line)
                    || !(0..=max).contains(&column)
                    || name < 0
                    || name as usize >= names
                {
                    return Err(FunctionMapError::OutOfRange { byte: start });
                }
                entry_found((line as u32, column as u32, name as u32));
            }
        }
        Ok(())
    }

    /// Where each source's function map is in `x_facebook_sources` (raw JSON), with a hash of its bytes: the field
    /// is read and every map decoded once, so a malformed field is refused as a whole, with the first error, as
    /// [`Self::decode_facebook_sources`] refuses it; the decoded maps are dropped but that of source `keep`, which
    /// is left in `kept`.
    pub fn element_spans(
        raw: &str,
        keep: Option<usize>,
        kept: &mut Option<FunctionMap>,
    ) -> Result<Vec<Option<ElementSpan>>, FunctionMapError> {
        let list: Vec<Option<Vec<Option<&serde_json::value::RawValue>>>> =
            serde_json::from_str(raw).map_err(|e| FunctionMapError::Field(Arc::new(e)))?;
        let mut decoded = None;
        let spans = list
            .into_iter()
            .enumerate()
            .map(|(i, meta)| {
                let Some(Some(first)) = meta.and_then(|m| m.into_iter().next()) else {
                    return Ok(None);
                };
                let text = first.get();
                if Some(i) == keep {
                    decoded = Some(Self::decode_element(text)?);
                } else {
                    Self::check_element(text)?;
                }
                let start = text.as_ptr() as usize - raw.as_ptr() as usize;
                Ok(Some(ElementSpan {
                    range: start..start + text.len(),
                    hash: xxhash_rust::xxh3::xxh3_64(text.as_bytes()),
                }))
            })
            .collect::<Result<_, FunctionMapError>>()?;
        *kept = decoded;
        Ok(spans)
    }

    /// Whether [`FunctionMap::decode_element`] would decode the element, with its error when not; without building
    /// the map (its names' strings, its sorted entries): `element_spans` checks every source's map of a Metro
    /// bundle (2,493 of them, 2.8 MB, on the real Metro build) and keeps none.
    pub fn check_element(text: &str) -> Result<(), FunctionMapError> {
        let read: Result<BorrowedFunctionMap<'_>, _> = serde_json::from_str(text);
        match read {
            Ok(f) if f.names.iter().all(|n| n.get().starts_with('"')) => {
                let names_bytes: usize = f.names.iter().map(|n| n.get().len()).sum();
                if names_bytes > u32::MAX as usize {
                    // Escapes make the text shorter than its literal: the decoder counts exactly.
                    return Self::decode_element(text).map(drop);
                }
                Self::each_entry(f.names.len(), &f.mappings, |_| {})
            }
            // Anything else fails as the decoder says.
            _ => Self::decode_element(text).map(drop),
        }
    }

    /// One source's function map from its element of `x_facebook_sources` (`{"names": […], "mappings": "…"}`).
    pub fn decode_element(text: &str) -> Result<FunctionMap, FunctionMapError> {
        let f: RawFunctionMap =
            serde_json::from_str(text).map_err(|e| FunctionMapError::Element(Arc::new(e)))?;
        FunctionMap::decode(f.names, &f.mappings)
    }

    /// Decodes `x_facebook_sources` (raw JSON): one function map (or none) per source.
    pub fn decode_facebook_sources(
        raw: &str,
    ) -> Result<Vec<Option<FunctionMap>>, FunctionMapError> {
        let list: Vec<Option<Vec<Option<serde_json::Value>>>> =
            serde_json::from_str(raw).map_err(|e| FunctionMapError::Field(Arc::new(e)))?;
        list.into_iter()
            .map(|meta| {
                let Some(Some(first)) = meta.and_then(|m| m.into_iter().next()) else {
                    return Ok(None);
                };
                let f: RawFunctionMap = serde_json::from_value(first)
                    .map_err(|e| FunctionMapError::Element(Arc::new(e)))?;
                FunctionMap::decode(f.names, &f.mappings).map(Some)
            })
            .collect()
    }

    /// The function enclosing an original position (0-based line and column): the last entry at or before it.
    pub fn name_at(&self, line: u32, column: u32) -> Option<&str> {
        // In u64: `line + 1` overflows u32 for line u32::MAX (a panic in debug builds, a wrap to line 0 in release).
        let key = (u64::from(line) + 1, column);
        let idx = self
            .entries
            .partition_point(|&(l, c, _)| (u64::from(l), c) <= key);
        let (_, _, name) = self.entries.get(idx.checked_sub(1)?)?;
        self.name(*name as usize)
    }
}

/// Where one source's function map is inside `x_facebook_sources` (byte offsets from the field's start), and the
/// xxh3 of those bytes: read back from a map file, they are used only if they still hash to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementSpan {
    /// Byte range of the source's function map (its JSON object), from the start of the field's raw JSON.
    pub range: Range<usize>,
    /// xxh3-64 of the element's bytes.
    pub hash: u64,
}

/// The most heap the decoded function maps kept per index hold ([`FunctionMapCache`]). A trace's frames or a day of
/// hovers come back to a few modules; a map larger than this (a 9 MB `typescript.js` has one of ~300 KB) stays too,
/// alone.
pub const FUNCTION_MAP_CACHE_BYTES: usize = 1 << 20;

/// A decoded map by (section, local source).
type Kept = ((usize, usize), Arc<FunctionMap>);

/// The function maps decoded last, most recent last.
#[derive(Debug, Default)]
pub struct FunctionMapCache {
    recent: Mutex<VecDeque<Kept>>,
}

impl FunctionMapCache {
    /// The map kept for (section, local source index), made the most recently used.
    pub fn get(&self, key: (usize, usize)) -> Option<Arc<FunctionMap>> {
        let mut recent = self.recent.lock().expect("function map cache lock");
        let at = recent.iter().position(|(k, _)| *k == key)?;
        let hit = recent.remove(at)?;
        let map = hit.1.clone();
        recent.push_back(hit);
        Some(map)
    }

    /// Keeps a decoded map as the most recently used, dropping the least recently used ones while the maps kept hold
    /// more than [`FUNCTION_MAP_CACHE_BYTES`] (the newest stays, however large).
    pub fn put(&self, key: (usize, usize), map: Arc<FunctionMap>) {
        let mut recent = self.recent.lock().expect("function map cache lock");
        recent.retain(|(k, _)| *k != key);
        recent.push_back((key, map));
        let mut bytes: usize = recent.iter().map(|(_, m)| m.heap_bytes()).sum();
        while recent.len() > 1 && bytes > FUNCTION_MAP_CACHE_BYTES {
            if let Some((_, m)) = recent.pop_front() {
                bytes -= m.heap_bytes();
            }
        }
    }

    /// Heap held by the maps kept.
    pub fn heap_bytes(&self) -> usize {
        let recent = self.recent.lock().expect("function map cache lock");
        recent.iter().map(|(_, m)| m.heap_bytes()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checking an element without building it agrees with decoding it, error for error.
    #[test]
    fn an_element_checked_fails_as_it_decodes() {
        for text in [
            r#"{"names":["<global>","foo","bar"],"mappings":"AAA;ECC,QC;AFG"}"#,
            r#"{"names":["a\u00e9\"q","b"],"mappings":"AAA,CC\u0043"}"#,
            r#"{"names":[],"mappings":""}"#,
            r#"{"names":["a"],"mappings":"AAA,!"}"#,
            r#"{"names":["a"],"mappings":"AAA,CCC"}"#,
            r#"{"names":["a"],"mappings":"AAAA"}"#,
            r#"{"names":["a"],"mappings":"AA"}"#,
            r#"{"names":["a"],"mappings":"A//////////////D"}"#,
            r#"{"names":["a",1],"mappings":"AAA"}"#,
            r#"{"names":["a"]}"#,
            r#"{"names":"a","mappings":"AAA"}"#,
            r#"{"names":["a"],"mappings":5}"#,
            r#"[1]"#,
            r#"{"names":["a"],"mappings":"AAA","extra":{"x":[1,2]}}"#,
        ] {
            let checked = FunctionMap::check_element(text).map_err(|e| e.to_string());
            let decoded = FunctionMap::decode_element(text)
                .map(drop)
                .map_err(|e| e.to_string());
            assert_eq!(checked, decoded, "{text}");
        }
    }

    #[test]
    fn decodes_groups_and_finds_enclosing_functions() {
        // <global> from 1:0; foo from 2:2; bar from 2:10; back to <global> (name delta -2) at 5:0.
        let names = vec!["<global>".to_string(), "foo".into(), "bar".into()];
        let m = FunctionMap::decode(names, "AAA;ECC,QC;AFG").unwrap();
        assert_eq!(m.entries, vec![(1, 0, 0), (2, 2, 1), (2, 10, 2), (5, 0, 0)]);
        assert_eq!(m.name_at(0, 5), Some("<global>"));
        assert_eq!(m.name_at(1, 2), Some("foo"));
        assert_eq!(m.name_at(1, 9), Some("foo"));
        assert_eq!(m.name_at(2, 0), Some("bar"));
        assert_eq!(m.name_at(4, 0), Some("<global>"));
        assert!(FunctionMap::decode(vec!["a".into()], "AC").is_err());
        assert!(FunctionMap::decode(vec!["a".into()], "AAA,CCC").is_err());
    }

    #[test]
    fn line_deltas_anywhere_as_metro_symbolicate_reads_them() {
        // metro's `__tests__/__fixtures__/testfile.cpuprofile.map`: one group, later entries moving the line; the
        // entries are what metro-symbolicate 0.84.6's `decodeFunctionMap` loop gives for it (run with its `vlq`).
        let names = vec!["<global>".into(), "entryPoint".into(), "helper".into()];
        let m = FunctionMap::decode(names, "AAA,uBCC,JCI,RFe").unwrap();
        assert_eq!(
            m.entries,
            vec![(1, 0, 0), (2, 23, 1), (6, 19, 2), (21, 11, 0)]
        );
        // A first entry without its line delta: 0, as `lineDelta = 0`.
        let m = FunctionMap::decode(vec!["<global>".into()], "AA").unwrap();
        assert_eq!(m.entries, vec![(1, 0, 0)]);
    }

    #[test]
    fn name_at_last_line_does_not_overflow() {
        // Found by fuzz/fuzz_targets/stack.rs: `name_at(u32::MAX, _)` computed `line + 1` in u32.
        let m = FunctionMap::decode(vec!["<global>".into(), "f".into()], "AAA;ACC").unwrap();
        assert_eq!(m.name_at(u32::MAX, u32::MAX), Some("f"));
        let empty = FunctionMap::decode(Vec::new(), "").unwrap();
        assert_eq!(empty.name_at(u32::MAX, 0), None);
    }

    #[test]
    fn accumulated_line_or_column_past_u32_is_out_of_range() {
        // Seen in code review, confirmed by the fuzz/fuzz_targets/stack.rs invariant: line deltas summing to
        // 2^32 - 1 made line 2^32, stored as 0.
        let names = || vec!["f".to_string()];
        let m = FunctionMap::decode(names(), "AA+/////D;AA+/////D").unwrap();
        assert_eq!(m.entries.last(), Some(&(u32::MAX, 0, 0)));
        assert!(FunctionMap::decode(names(), "AA+/////D;AA+/////D;AAC").is_err());
        assert!(FunctionMap::decode(names(), "+/////DAA,+/////DA,+/////DA").is_err());
    }

    #[test]
    fn facebook_sources_per_source() {
        let raw = r#"[[{"names":["<global>","f"],"mappings":"AAA;ACC"}], null, [null]]"#;
        let maps = FunctionMap::decode_facebook_sources(raw).unwrap();
        assert_eq!(maps.len(), 3);
        assert_eq!(maps[0].as_ref().unwrap().name_at(1, 0), Some("f"));
        assert!(maps[1].is_none() && maps[2].is_none());
    }
}
