//! `SourceMapIndex`: a parsed source map, flat or indexed, kept as sections and never flattened.
//!
//! A flat map is one section at offset (0, 0). Each section keeps its `mappings` as VLQ in the file buffer and gets
//! its [`CompactMappings`] (checkpoints) built on first touch, or eagerly when the whole map is validated. Sources are
//! deduplicated across sections by their URL (`sourceRoot` applied) into [`SourceId`]s; names stay per section.
//!
//! Positions here are 0-based generated lines and 0-based UTF-16 columns, as in the format. Other conventions are
//! converted at the edges (`position.rs` for the CLI, the LSP layer for editors).
//!
//! Cost: the file buffer (mappings, contents and extension fields are not copied), the checkpoints of each built
//! section (see [`CompactMappings`]), ~64 B per section, ~40 B per source plus its URL, ~16 B per name plus its text.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use crate::internal::map::compact::{Bias, CompactMappings};
use crate::internal::map::error::{ErrorLocation, MapError, MapErrors};
use crate::internal::map::function_map::{
    ElementSpan, FunctionMap, FunctionMapCache, FunctionMapError,
};
use crate::internal::map::names::{NameTable, Names, NamesInFile};
use crate::internal::map::parse::{parse_document, parse_document_with, ParsedMap, TextRef};
use crate::internal::map::prefetch::prefetch;
use crate::internal::map::reverse::{ReverseEntry, ReverseIndex};
use crate::internal::map::scopes::{decode_scopes, DecodedScopes, ScopesError};
use crate::internal::map::segment::{Limits, Segment, SegmentCursor, SegmentOriginal};

pub use crate::internal::map::position::{GeneratedPosition, SourceId, Space};

/// Where a generated position comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OriginalPosition<'a> {
    /// The source, as the index numbers it (one id per URL across sections).
    pub source: SourceId,
    /// The source's URL (`sourceRoot` applied); `None` for a `null` entry of `sources`.
    pub source_url: Option<&'a str>,
    /// 0-based.
    pub line: u32,
    /// 0-based.
    pub column: u32,
    /// The segment's entry of its section's `names`, if it has one; also `None` when the names were left in a map file
    /// that no longer holds them.
    pub name: Option<&'a str>,
}

/// A segment found by a lookup, in global generated coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MappingHit<'a> {
    /// The section the segment is in, by its index among all the index's sections.
    pub section: usize,
    /// Generated position of the segment (not of the query).
    pub generated: GeneratedPosition,
    /// `None` for a 1-field segment, which maps to nothing.
    pub original: Option<OriginalPosition<'a>>,
}

/// A source as the index knows it.
#[derive(Debug, Clone)]
pub struct Source {
    /// The source's URL (`sourceRoot` applied); `None` for a `null` entry of `sources`, which is never merged with
    /// another.
    pub url: Option<Box<str>>,
    /// Its `sourcesContent` entry (the first section that has one).
    content: Option<ContentRef>,
    /// Listed in the `ignoreList` (or `x_google_ignoreList`) of some section that names it.
    pub ignored: bool,
}

/// Where a source's content is: its raw JSON string literal in the buffer, or, once the index has shed contents
/// ([`SourceMapIndex::shed_contents`]), the literal's byte range in the map file with its hash, so a reader can tell
/// a file that changed since.
#[derive(Debug, Clone)]
enum ContentRef {
    Buffer(Range<usize>),
    File { range: Range<usize>, hash: u64 },
}

/// A source's content as the index can give it.
#[derive(Debug, Clone)]
pub enum SourceContent<'a> {
    /// The content, unescaped; borrowed from the buffer when the literal has no escapes.
    Text(Cow<'a, str>),
    /// In the map file at `range` (a raw JSON string literal): read it there, then [`content_from_file`].
    InFile {
        /// Byte range of the JSON string literal (quotes included) in the map file.
        range: Range<usize>,
        /// xxh3-64 of the literal's bytes when the index was built.
        hash: u64,
    },
}

/// The text of a source from the raw JSON string literal read at [`SourceContent::InFile`]'s range; `None` when the
/// bytes are not the ones indexed (the file changed) or not a JSON string.
pub fn content_from_file(raw: &[u8], hash: u64) -> Option<String> {
    if xxhash_rust::xxh3::xxh3_64(raw) != hash {
        return None;
    }
    unescape_literal(raw).map(Cow::into_owned)
}

/// Where every `step`-th line of a source starts in its raw JSON string literal read at [`SourceContent::InFile`]'s
/// range (offsets into `raw`, quotes included: line 0 starts at 1), and how many lines it has; `None` when the bytes
/// are not the ones indexed. Lines end at each `\n` escape, as `str::lines` ends them in the text. So a few lines are
/// read back ([`content_fragment`]) without unescaping, or holding, the whole text: a 9 MB `typescript.js` in a Metro
/// map has 200,000 lines and a hover shows five.
pub fn content_line_starts(raw: &[u8], hash: u64, step: usize) -> Option<(Vec<u32>, u32)> {
    if xxhash_rust::xxh3::xxh3_64(raw) != hash || raw.len() < 2 || step == 0 {
        return None;
    }
    let end = raw.len() - 1;
    let mut starts = vec![1u32];
    let (mut lines, mut at) = (0u32, 1usize);
    while let Some(k) = memchr::memchr(b'\\', &raw[at..end]) {
        let escape = at + k;
        // a `\u` escape and its four hex digits are six bytes, every other escape two; a backslash is never inside one.
        at = escape
            + if raw.get(escape + 1) == Some(&b'u') {
                6
            } else {
                2
            };
        if raw.get(escape + 1) == Some(&b'n') {
            lines += 1;
            if (lines as usize).is_multiple_of(step) {
                starts.push(at as u32);
            }
        }
    }
    Some((starts, lines + 1))
}

/// The text of a part of a source's raw JSON string literal between two of its line starts
/// ([`content_line_starts`]), or a line start and the closing quote (excluded); `None` when it is not such a part.
pub fn content_fragment(raw_part: &[u8]) -> Option<String> {
    let part = std::str::from_utf8(raw_part).ok()?;
    crate::internal::json::literal::unescape(&format!("\"{part}\""))
}

/// A JSON string literal's bytes as text, quotes included, and the text between them.
fn literal_text(raw: &[u8]) -> Option<(&str, &str)> {
    let raw = std::str::from_utf8(raw).ok()?;
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    Some((raw, inner))
}

/// A JSON string literal's text; borrowed when it has no escapes.
fn unescape_literal(raw: &[u8]) -> Option<Cow<'_, str>> {
    let (raw, inner) = literal_text(raw)?;
    if !inner.contains('\\') {
        return Some(Cow::Borrowed(inner));
    }
    crate::internal::json::literal::unescape(raw).map(Cow::Owned)
}

impl Source {
    /// Whether the map carries this source's content (`sourcesContent`).
    pub fn has_content(&self) -> bool {
        self.content.is_some()
    }
}

/// One section of the map (the whole map when it is flat).
///
/// `repr(C)` keeps the fields a lookup reads (offset, `mappings`, sources, names) in the first two cache lines, in
/// that order: a random lookup on a 16,500-section map reads them from memory, not from cache. (Its checkpoints are
/// in `SourceMapIndex::compacts`, beside it.) 312 bytes.
#[derive(Debug)]
#[repr(C)]
pub struct Section {
    /// Generated (line, column) where the section starts.
    pub offset: GeneratedPosition,
    mappings: TextRef,
    /// Local source index → global source.
    sources: LocalSources,
    names: Names,
    /// JSON path prefix of the section's map, for error messages.
    pub path: String,
    range_mappings: Option<TextRef>,
    /// Where `mappings` and `rangeMappings` start in the file, for errors found after the buffer was compacted.
    mappings_at: Option<usize>,
    range_mappings_at: Option<usize>,
    /// Where the raw `names` array is in the file.
    names_at: Option<Range<usize>>,
    /// Set when `x_facebook_sources` was left in the file: the hash its bytes there must have.
    facebook_sources_hash: Option<u64>,
    // The decoded parts are boxed: most of a Metro map's 16,500 sections are never queried, and an unset `OnceLock`
    // of a box is 16 bytes (with names boxed too, `Section` went from 520 to 320 bytes; 312 since the checkpoints
    // moved to `SourceMapIndex::compacts` and single sources went inline).
    /// Where each local source's Metro function map is in `x_facebook_sources`, found on first use (the maps are
    /// decoded per source, `SourceMapIndex::function_maps`).
    function_maps: OnceLock<Box<Result<Vec<Option<ElementSpan>>, FunctionMapError>>>,
    /// The `scopes` field, decoded on first use.
    decoded_scopes: OnceLock<Box<Result<DecodedScopes, ScopesError>>>,
    /// Byte range of the raw JSON of the section's `x_facebook_sources` (Metro function maps) in the map's bytes; the
    /// field stays at that range in the file once the index sheds its contents.
    pub x_facebook_sources: Option<Range<usize>>,
    /// Byte range of the raw JSON of the section's `scopes` (ECMA-426 proposal) in the buffer, moved with the buffer
    /// when the index sheds its contents.
    pub scopes: Option<Range<usize>>,
    /// The section's map's `debugId` (a UUID; a value that is not one is dropped with a warning).
    pub debug_id: Option<String>,
    /// dart2js made the section's map (`x_org_dartlang_dart2js`).
    dart2js: bool,
}

/// Where a source's function map is: its local index in the section, its span in `x_facebook_sources`, and the
/// field's range (in the buffer, or in the file once shed).
type SpanOfSource<'a> = (usize, &'a ElementSpan, Range<usize>);

/// What [`SourceMapIndex::decoded_heap`] counts, in bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DecodedHeap {
    /// Name tables (`names`) in memory, built at open or on first use.
    pub names: usize,
    /// Metro function maps: where each source's map is in `x_facebook_sources`, and the maps decoded and kept.
    pub function_maps: usize,
    /// Decoded `scopes` sections (their structs; the proposal's scope trees are counted at their root only).
    pub scopes: usize,
    /// Reverse indexes built so far (one per source asked about).
    pub reverse: usize,
}

/// A section's checkpoints once built, or why they could not be. Inline (at most 56 bytes, tested; the error
/// boxed): a lookup reads the cell from the dense array and goes straight to the checkpoint table.
type CompactCell = OnceLock<Result<CompactMappings, Box<MapError>>>;

/// A section's local → global source table. Most sections of a Metro index map have one source: kept inline, the
/// answer of a lookup costs no cache miss for it.
#[derive(Debug)]
enum LocalSources {
    Inline { len: u8, ids: [SourceId; 3] },
    Heap(Box<[SourceId]>),
}

impl LocalSources {
    fn new(ids: Vec<SourceId>) -> Self {
        if ids.len() <= 3 {
            let mut inline = [SourceId(0); 3];
            inline[..ids.len()].copy_from_slice(&ids);
            LocalSources::Inline {
                len: ids.len() as u8,
                ids: inline,
            }
        } else {
            LocalSources::Heap(ids.into_boxed_slice())
        }
    }
}

impl std::ops::Deref for LocalSources {
    type Target = [SourceId];
    fn deref(&self) -> &[SourceId] {
        match self {
            LocalSources::Inline { len, ids } => &ids[..usize::from(*len)],
            LocalSources::Heap(ids) => ids,
        }
    }
}

impl Section {
    /// The global ids of this section's sources, by its local source index (what a decoded segment carries).
    pub fn source_ids(&self) -> &[SourceId] {
        &self.sources
    }

    /// Length in bytes of the section's `mappings` text (the string's contents, without quotes).
    pub fn mappings_len(&self) -> usize {
        self.mappings.len()
    }

    /// How many `names` the section has (they may still be in the file).
    pub fn names_len(&self) -> usize {
        self.names.len()
    }

    /// The section's sources by local index; the same as [`Self::source_ids`].
    pub fn sources(&self) -> &[SourceId] {
        &self.sources
    }

    /// Section-relative → global generated position.
    pub fn to_global(&self, line: u32, column: u32) -> GeneratedPosition {
        GeneratedPosition {
            line: self.offset.line + line,
            column: if line == 0 {
                self.offset.column + column
            } else {
                column
            },
        }
    }

    /// Global → section-relative; `None` when the position is before the section.
    fn to_local(&self, p: GeneratedPosition) -> Option<(u32, u32)> {
        if p < self.offset {
            return None;
        }
        let line = p.line - self.offset.line;
        let column = if line == 0 {
            p.column - self.offset.column
        } else {
            p.column
        };
        Some((line, column))
    }
}

/// Options for building an index.
#[derive(Debug, Clone, Copy, Default)]
pub struct IndexOptions {
    /// Build each section's checkpoints on first use instead of validating every `mappings` up front. An invalid
    /// section then reports its error when a query first touches it.
    pub lazy: bool,
    /// Check and count each section's `names` but build its table on first use: from the buffer, or after
    /// [`SourceMapIndex::shed_contents`] from the file. Opening allocates no name (800K of them in a Metro map), and
    /// a shed index never held them.
    pub lazy_names: bool,
}

/// See the module documentation.
#[derive(Debug)]
pub struct SourceMapIndex {
    buffer: Box<[u8]>,
    /// Whether the map has `sections`; a flat map is one section at (0, 0).
    pub is_index_map: bool,
    /// The `file` field: the index map's own, or the flat map's.
    pub file: Option<String>,
    /// The top-level `debugId`: the index map's own, or the flat map's (a UUID; a value that is not one is dropped with
    /// a warning).
    pub debug_id: Option<String>,
    sections: Box<[Section]>,
    /// Each section's checkpoints, built on first use. Kept beside `section_starts` rather than in `Section`: a
    /// lookup then finds the checkpoints without waiting for the section's own cache line, and the two misses
    /// overlap.
    compacts: Box<[CompactCell]>,
    /// Each section's `offset`, in order: the binary search of every lookup reads this dense array (8 B a section)
    /// instead of striding through the 312-byte sections, which costs a cache miss a step on a 16,500-section map.
    section_starts: Box<[GeneratedPosition]>,
    sources: Box<[Source]>,
    /// Fx: URLs are short, and SipHash of 16,500 of them was a visible part of opening a Metro map.
    source_by_url: rustc_hash::FxHashMap<Box<str>, SourceId>,
    reverse: Box<[OnceLock<ReverseIndex>]>,
    /// Byte range of the raw JSON of the top-level `x_hermes_function_offsets` in the buffer (kept, and moved with the
    /// buffer, when the index sheds its contents); read by `trace::hermes_crash`.
    pub x_hermes_function_offsets: Option<Range<usize>>,
    /// How many of `sections` are the map's own generated file's; the segments' follow (`map/metro.rs`).
    main_sections: usize,
    /// Metro's `x_facebook_offsets` (RAM bundles): per module id, the generated line its code starts on.
    pub(crate) module_offsets: Option<Box<[Option<u32>]>>,
    /// Metro's `x_metro_module_paths`: per module id, its source path (messages only).
    pub(crate) module_paths: Option<Box<[Option<String>]>>,
    /// Metro's `x_facebook_segments`, each a generated file of its own whose sections sit in `sections` after the
    /// map's, sharing its sources (one `SourceId` means one source whichever file a frame was in).
    pub(crate) segments: Box<[MetroSegment]>,
    /// What the parser accepted with a remark, each located (trailing commas, a `debugId` that is not a UUID, Metro's
    /// nested index maps and doubled wrapper offsets): the map is usable, though not quite as written.
    pub warnings: Vec<MapError>,
    /// What [`Self::validate_all`] found, once.
    validated: OnceLock<Result<(), MapErrors>>,
    /// Sections that run into the next one, found as sections are decoded ([`Self::overlaps`]).
    overlaps: std::sync::Mutex<Vec<MapError>>,
    /// Function maps decoded last (bounded; `function_map.rs`).
    function_maps: FunctionMapCache,
    /// The map file that shed fields are read back from (see [`Self::shed_contents`]).
    file_path: Option<std::path::PathBuf>,
}

/// One of Metro's segments (`x_facebook_segments`) in an index: its sections and its own Metro fields.
#[derive(Debug)]
pub(crate) struct MetroSegment {
    pub(crate) id: u32,
    pub(crate) sections: Range<usize>,
    pub(crate) module_offsets: Option<Box<[Option<u32>]>>,
    pub(crate) module_paths: Option<Box<[Option<String>]>>,
    pub(crate) hermes_function_offsets: Option<Range<usize>>,
}

impl SourceMapIndex {
    /// Parses and fully validates a source map.
    pub fn from_bytes(buffer: Vec<u8>) -> Result<Self, MapErrors> {
        Self::from_bytes_with(buffer, IndexOptions::default())
    }

    /// Parses a source map with `options`: every section's mappings validated up front unless `options.lazy`.
    pub fn from_bytes_with(mut buffer: Vec<u8>, options: IndexOptions) -> Result<Self, MapErrors> {
        let mut doc = parse_document_with(&mut buffer, true, !options.lazy_names)?;
        if options.lazy_names && !doc.warnings.is_empty() {
            // Trailing commas were blanked in the buffer, so its bytes are no longer the file's: keep the names.
            doc = parse_document(&mut buffer)?;
        }
        let lazy_names = options.lazy_names && doc.warnings.is_empty();
        let mut sources: Vec<Source> = Vec::new();
        let mut source_by_url = rustc_hash::FxHashMap::default();
        let mut sections = Vec::with_capacity(doc.maps.len());
        let add = |maps: Vec<ParsedMap>,
                   sections: &mut Vec<Section>,
                   sources: &mut Vec<Source>,
                   by_url: &mut rustc_hash::FxHashMap<Box<str>, SourceId>| {
            for map in maps {
                let names_at = map.names_at.clone().filter(|_| lazy_names);
                let count = map.names_count;
                let mut section = Self::section(map, sources, by_url);
                if let (Some(range), Names::Table(t)) = (names_at, &section.names) {
                    if t.is_empty() && count > 0 {
                        section.names = Names::InFile(Box::new(NamesInFile {
                            // Hashed when the buffer is shed: until then the names are read from it.
                            hash: None,
                            range,
                            count,
                            table: OnceLock::new(),
                        }));
                    }
                }
                sections.push(section);
            }
        };
        add(doc.maps, &mut sections, &mut sources, &mut source_by_url);
        let main_sections = sections.len();
        let mut segments = Vec::with_capacity(doc.segments.len());
        for segment in doc.segments {
            let start = sections.len();
            let d = segment.document;
            add(d.maps, &mut sections, &mut sources, &mut source_by_url);
            segments.push(MetroSegment {
                id: segment.id,
                sections: start..sections.len(),
                module_offsets: d.module_offsets.map(Vec::into_boxed_slice),
                module_paths: d.module_paths.map(Vec::into_boxed_slice),
                hermes_function_offsets: d.x_hermes_function_offsets,
            });
        }
        let index = SourceMapIndex {
            buffer: buffer.into_boxed_slice(),
            is_index_map: doc.is_index_map,
            file: doc.file,
            debug_id: doc.debug_id,
            reverse: (0..sources.len()).map(|_| OnceLock::new()).collect(),
            section_starts: sections.iter().map(|s| s.offset).collect(),
            compacts: sections.iter().map(|_| OnceLock::new()).collect(),
            sections: sections.into_boxed_slice(),
            sources: sources.into_boxed_slice(),
            source_by_url,
            x_hermes_function_offsets: doc.x_hermes_function_offsets,
            main_sections,
            module_offsets: doc.module_offsets.map(Vec::into_boxed_slice),
            module_paths: doc.module_paths.map(Vec::into_boxed_slice),
            segments: segments.into_boxed_slice(),
            warnings: doc.warnings,
            validated: OnceLock::new(),
            overlaps: std::sync::Mutex::default(),
            function_maps: FunctionMapCache::default(),
            file_path: None,
        };
        if !options.lazy {
            let errors: Vec<MapError> = (0..index.sections.len())
                .filter_map(|i| index.compact(i).err())
                .collect();
            if !errors.is_empty() {
                return Err(MapErrors(errors));
            }
        }
        Ok(index)
    }

    fn section(
        map: ParsedMap,
        sources: &mut Vec<Source>,
        by_url: &mut rustc_hash::FxHashMap<Box<str>, SourceId>,
    ) -> Section {
        let mut local = Vec::with_capacity(map.sources.len());
        for (i, url) in map.sources.into_iter().enumerate() {
            let content = map
                .contents
                .get(i)
                .cloned()
                .flatten()
                .map(ContentRef::Buffer);
            let ignored = map.ignore_list.contains(&(i as u32));
            let existing = url.as_ref().and_then(|u| by_url.get(u).copied());
            let id = match existing {
                Some(id) => {
                    let s = &mut sources[id.0 as usize];
                    s.ignored |= ignored;
                    if s.content.is_none() {
                        s.content = content;
                    }
                    id
                }
                None => {
                    let id = SourceId(sources.len() as u32);
                    if let Some(u) = &url {
                        by_url.insert(u.clone(), id);
                    }
                    sources.push(Source {
                        url,
                        content,
                        ignored,
                    });
                    id
                }
            };
            local.push(id);
        }
        Section {
            offset: GeneratedPosition {
                line: map.offset.0,
                column: map.offset.1,
            },
            path: map.path,
            mappings_at: map.mappings.file_offset(),
            range_mappings_at: map.range_mappings.as_ref().and_then(TextRef::file_offset),
            mappings: map.mappings,
            range_mappings: map.range_mappings,
            names: Names::Table(map.names),
            names_at: map.names_at,
            facebook_sources_hash: None,
            sources: LocalSources::new(local),
            function_maps: OnceLock::new(),
            decoded_scopes: OnceLock::new(),
            x_facebook_sources: map.x_facebook_sources,
            scopes: map.scopes,
            debug_id: map.debug_id,
            dart2js: map.dart2js,
        }
    }

    /// The section's checkpoints, built (and its mappings validated) on first use.
    pub fn compact(&self, section: usize) -> Result<&CompactMappings, MapError> {
        let built =
            self.compacts[section].get_or_init(|| self.build_section(section).map_err(Box::new));
        built.as_ref().map_err(|e| (**e).clone())
    }

    /// The section's checkpoints if they are built already (never builds).
    pub fn compact_if_built(&self, section: usize) -> Option<&CompactMappings> {
        self.compacts[section].get()?.as_ref().ok()
    }

    fn build_section(&self, i: usize) -> Result<CompactMappings, MapError> {
        let s = &self.sections[i];
        let range = s.range_mappings.as_ref().map(|r| r.bytes(&self.buffer));
        let compact = CompactMappings::build(s.mappings.bytes(&self.buffer), self.limits(i), range)
            .map_err(|e| self.section_error(i, e))?;
        self.check_section_end(i, compact.last_position())?;
        Ok(compact)
    }

    fn limits(&self, i: usize) -> Limits {
        let s = &self.sections[i];
        Limits {
            sources: s.sources.len() as u32,
            names: s.names_len() as u32,
        }
    }

    /// A decoding error of section `i`, located in the file.
    fn section_error(&self, i: usize, e: crate::internal::map::segment::SegmentError) -> MapError {
        let s = &self.sections[i];
        let in_range = e.message.starts_with("rangeMappings");
        let (field, at) = if in_range {
            ("rangeMappings", s.range_mappings_at)
        } else {
            ("mappings", s.mappings_at)
        };
        MapError {
            location: ErrorLocation {
                path: format!("{}{field}", s.path),
                section: self.is_index_map.then_some(i),
                mappings: Some(e.location),
                file_offset: at.map(|o| o + e.location.byte),
            },
            message: e.message,
        }
    }

    /// Sections must not overlap (ECMA-426, index maps: "the sections must be sorted by starting position and the
    /// represented sections must not overlap"): section `i`'s last segment (section-relative `last`, the greatest
    /// column on its last line) should come before the next section starts. Turbopack writes sections that run a few
    /// columns into the next (Next.js 16: 8 of the 73 Turbopack maps `fixtures/nextjs/corpus/maps.json` lists,
    /// client and server). Such a map is read, not refused:
    /// a position is answered by the section its offset puts it in (the last starting at or before it), so the
    /// overlapping tail is shadowed by the next section — what mozilla/source-map's `IndexedSourceMapConsumer` does
    /// (`_findSectionIndex`, then that section's consumer), and what sourcemap-ls did for every position already.
    /// The overlap is kept as a located warning ([`Self::overlaps`]) for `validate` to say.
    fn check_section_end(&self, i: usize, last: Option<(u32, u32)>) -> Result<(), MapError> {
        let s = &self.sections[i];
        // The next section of the same generated file: a segment's first section starts another file.
        let starts_a_file =
            i + 1 == self.main_sections || self.segments.iter().any(|g| g.sections.start == i + 1);
        let next = self.sections.get(i + 1).filter(|_| !starts_a_file);
        if let (Some(next), Some((line, column))) = (next, last) {
            let last = s.to_global(line, column);
            if last >= next.offset {
                let mut overlaps = self.overlaps.lock().unwrap_or_else(|e| e.into_inner());
                if overlaps.iter().any(|o| o.location.section == Some(i + 1)) {
                    return Ok(());
                }
                overlaps.push(MapError {
                    location: ErrorLocation {
                        path: format!("sections[{}].offset", i + 1),
                        section: Some(i + 1),
                        mappings: None,
                        file_offset: None,
                    },
                    message: format!(
                        "sections overlap: section {i} has a mapping at {}:{}, at or after where section {} starts \
                         ({}:{}); positions from there are answered by section {} (as mozilla/source-map does)",
                        last.line,
                        last.column,
                        i + 1,
                        next.offset.line,
                        next.offset.column,
                        i + 1
                    ),
                });
            }
        }
        Ok(())
    }

    /// Where section `i`'s mappings end, section-relative: where the next section of the same generated file starts
    /// (its segments from there are shadowed by that section: [`Self::check_section_end`]). `None` for the last.
    fn section_end(&self, i: usize) -> Option<(u32, u32)> {
        let starts_a_file =
            i + 1 == self.main_sections || self.segments.iter().any(|g| g.sections.start == i + 1);
        let next = self.sections.get(i + 1).filter(|_| !starts_a_file)?;
        self.sections[i].to_local(next.offset)
    }

    /// Whether a section-relative segment of section `i` is shadowed by the next section (`end`: [`Self::section_end`]).
    fn shadowed(end: Option<(u32, u32)>, seg: &Segment) -> bool {
        end.is_some_and(|end| (seg.line, seg.column) >= end)
    }

    /// The overlapping sections found so far (every one once [`Self::validate_all`] has run): located warnings.
    pub fn overlaps(&self) -> Vec<MapError> {
        let mut all = self
            .overlaps
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        all.sort_by_key(|e| e.location.section);
        all
    }

    /// A section's `mappings` text.
    pub fn section_mappings(&self, section: usize) -> &[u8] {
        self.sections[section].mappings.bytes(&self.buffer)
    }

    /// The bytes the index reads its text from: the map as parsed (trailing commas blanked) or, after
    /// [`Self::shed_contents`], only the fields kept in memory.
    pub fn buffer(&self) -> &[u8] {
        &self.buffer
    }

    /// The sections of the map's own generated file (a segment's are reached through `map/metro.rs`).
    pub fn sections(&self) -> &[Section] {
        &self.sections[..self.main_sections]
    }

    /// Every source of the map (its segments' included), indexed by [`SourceId`].
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// The source `id` names; panics on an id from another index.
    pub fn source(&self, id: SourceId) -> &Source {
        &self.sources[id.0 as usize]
    }

    /// The source with this URL (`sourceRoot` applied), if any.
    pub fn source_id(&self, url: &str) -> Option<SourceId> {
        self.source_by_url.get(url).copied()
    }

    /// The source's content from `sourcesContent`, unescaped now (it is kept as raw JSON until asked for). `None`
    /// also when the index shed its contents: see [`Self::source_content_ref`].
    pub fn source_content(&self, id: SourceId) -> Option<Cow<'_, str>> {
        match self.source_content_ref(id)? {
            SourceContent::Text(t) => Some(t),
            SourceContent::InFile { .. } => None,
        }
    }

    /// [`SourceMapIndex::source_content`] as an owned text, with where each of its lines after the first starts
    /// (`json::literal::unescape_lined`): `None` as there, and where the index has shed the content.
    pub fn source_content_lined(&self, id: SourceId) -> Option<(String, Vec<u32>)> {
        let ContentRef::Buffer(range) = self.source(id).content.as_ref()? else {
            return None;
        };
        let (raw, inner) = literal_text(&self.buffer[range.clone()])?;
        if !inner.contains('\\') {
            // No escape, so no line end: one line.
            return Some((inner.to_string(), Vec::new()));
        }
        crate::internal::json::literal::unescape_lined(raw)
    }

    /// What the source's content is, without unescaping it: xxh3-128 of its `sourcesContent` literal's bytes, and
    /// their length. Two maps whose literals have the same bytes carry the same text (a library's file in each
    /// release's map), so what is worked out from one text serves the other; the same text escaped otherwise gets
    /// another identity, which costs only the sharing. `None` without content, or once the index has shed it.
    pub fn source_content_id(&self, id: SourceId) -> Option<(u128, usize)> {
        match self.source(id).content.as_ref()? {
            ContentRef::Buffer(range) => Some((
                xxhash_rust::xxh3::xxh3_128(&self.buffer[range.clone()]),
                range.len(),
            )),
            ContentRef::File { .. } => None,
        }
    }

    /// The source's content, or where it is in the map file once the index has shed contents.
    pub fn source_content_ref(&self, id: SourceId) -> Option<SourceContent<'_>> {
        match self.source(id).content.clone()? {
            // The common case, no escapes, borrows; `sourcesContent` almost always has `\n`, so usually this
            // unescapes.
            ContentRef::Buffer(range) => {
                unescape_literal(&self.buffer[range]).map(SourceContent::Text)
            }
            ContentRef::File { range, hash } => Some(SourceContent::InFile { range, hash }),
        }
    }

    /// Keeps in memory only the text that every lookup reads — each section's `mappings`, `rangeMappings` and
    /// `scopes`, and `x_hermes_function_offsets` — and moves them to the front of the buffer, which then shrinks.
    /// `sourcesContent` (most of a Metro map) is left in the `file` the index was built from: each source remembers
    /// its range and a hash. So are each section's `names` and `x_facebook_sources`, read back (and checked against
    /// their hash) the first time a query needs that section's. Only for an index built from the bytes of `file`.
    pub fn shed_contents(&mut self, file: &std::path::Path) {
        // Every range into the buffer that stays, by start; moved down in order, so each copy goes to or below
        // where it was and nothing not yet moved is overwritten.
        let mut kept: Vec<Range<usize>> = Vec::new();
        for s in self.sections.iter() {
            for t in [Some(&s.mappings), s.range_mappings.as_ref()]
                .into_iter()
                .flatten()
            {
                if let TextRef::Buffer(r) = t {
                    kept.push(r.clone());
                }
            }
            kept.extend(s.scopes.clone());
        }
        kept.extend(self.x_hermes_function_offsets.clone());
        kept.extend(
            self.segments
                .iter()
                .filter_map(|s| s.hermes_function_offsets.clone()),
        );
        kept.sort_by_key(|r| (r.start, r.end));
        kept.dedup();
        let content_hashes: Vec<Option<u64>> = self
            .sources
            .iter()
            .map(|s| match &s.content {
                Some(ContentRef::Buffer(r)) => {
                    Some(xxhash_rust::xxh3::xxh3_64(&self.buffer[r.clone()]))
                }
                _ => None,
            })
            .collect();
        if kept.windows(2).any(|w| w[1].start < w[0].end) {
            // Overlapping ranges cannot come from one JSON document; keep the buffer as it is.
            return;
        }
        let hash_of = |r: &Range<usize>| xxhash_rust::xxh3::xxh3_64(&self.buffer[r.clone()]);
        let shed_names: Vec<Option<(Range<usize>, u64)>> = self
            .sections
            .iter()
            .map(|s| match (&s.names, &s.names_at) {
                (Names::Table(t), Some(r)) if !t.is_empty() => Some((r.clone(), hash_of(r))),
                (Names::InFile(n), _) if n.hash.is_none() => {
                    Some((n.range.clone(), hash_of(&n.range)))
                }
                _ => None,
            })
            .collect();
        let shed_facebook: Vec<Option<u64>> = self
            .sections
            .iter()
            .map(|s| s.x_facebook_sources.as_ref().map(hash_of))
            .collect();
        for ((s, names), facebook) in self.sections.iter_mut().zip(shed_names).zip(shed_facebook) {
            if let Some((range, hash)) = names {
                s.names = Names::InFile(Box::new(NamesInFile {
                    range,
                    hash: Some(hash),
                    count: s.names.len() as u32,
                    table: OnceLock::new(),
                }));
            }
            s.facebook_sources_hash = facebook;
        }
        self.file_path = Some(file.to_path_buf());
        let mut buffer = std::mem::take(&mut self.buffer).into_vec();
        // Old start → new start.
        let mut moved: HashMap<usize, usize> = HashMap::with_capacity(kept.len());
        let mut to = 0;
        for r in &kept {
            buffer.copy_within(r.clone(), to);
            moved.insert(r.start, to);
            to += r.len();
        }
        buffer.truncate(to);
        self.buffer = buffer.into_boxed_slice();
        let relocate = |r: &Range<usize>| {
            let at = moved[&r.start];
            at..at + r.len()
        };
        for s in self.sections.iter_mut() {
            for t in [Some(&mut s.mappings), s.range_mappings.as_mut()]
                .into_iter()
                .flatten()
            {
                if let TextRef::Buffer(r) = t {
                    *r = relocate(r);
                }
            }
            s.scopes = s.scopes.as_ref().map(relocate);
        }
        self.x_hermes_function_offsets = self.x_hermes_function_offsets.as_ref().map(relocate);
        for segment in self.segments.iter_mut() {
            segment.hermes_function_offsets =
                segment.hermes_function_offsets.as_ref().map(relocate);
        }
        // Contents: their ranges were file offsets all along (the buffer was the file).
        for (source, hash) in self.sources.iter_mut().zip(content_hashes) {
            if let (Some(ContentRef::Buffer(range)), Some(hash)) = (source.content.clone(), hash) {
                source.content = Some(ContentRef::File { range, hash });
            }
        }
    }

    /// The bytes at `range` of the map file the index was built from, if they still hash to `hash` (`None`: not
    /// hashed, which only names left in a buffer not shed yet are).
    fn read_back(&self, range: &Range<usize>, hash: Option<u64>) -> Option<Vec<u8>> {
        let Some(path) = self.file_path.as_deref() else {
            // Not shed yet: the buffer is still the file's bytes, and it never changes.
            return self.buffer.get(range.clone()).map(<[u8]>::to_vec);
        };
        let hash = hash?;
        let (file, _) = crate::internal::fs::files::open_regular(path).ok()?;
        let bytes =
            crate::internal::fs::files::read_range(&file, range.start as u64, range.len()).ok()?;
        (xxhash_rust::xxh3::xxh3_64(&bytes) == hash).then_some(bytes)
    }

    /// A section's names, read back from the map file the first time when they were left there. A file that no
    /// longer holds them gives none (the caller's next request reloads a changed map).
    fn names_of(&self, section: usize) -> &NameTable {
        match &self.sections[section].names {
            Names::Table(t) => t,
            Names::InFile(n) => n.table.get_or_init(|| {
                self.read_back(&n.range, n.hash)
                    .and_then(|raw| {
                        let text = std::str::from_utf8(&raw).ok()?;
                        NameTable::from_json_array(text).ok()
                    })
                    .unwrap_or_default()
            }),
        }
    }

    /// Whether the source is on an ignore list (see [`Source::ignored`]).
    pub fn is_ignored(&self, id: SourceId) -> bool {
        self.source(id).ignored
    }

    /// The section a generated position of the map's own generated file falls in: the last one starting at or
    /// before it.
    pub fn section_at(&self, p: GeneratedPosition) -> Option<usize> {
        self.section_at_in(Space::Main, p)
    }

    /// The sections whose text is in the map's bundle file: all of the map's own, but for a RAM bundle's map
    /// (`map/metro.rs`), whose modules are files of their own, those before the first module's line (the startup
    /// code). What the fit check reads of a bundle.
    pub fn bundle_file_sections(&self) -> Range<usize> {
        let first_module = self
            .module_offsets
            .as_deref()
            .and_then(|o| o.iter().flatten().min().copied());
        match first_module {
            Some(line) => {
                0..self.section_starts[..self.main_sections].partition_point(|s| s.line < line)
            }
            None => 0..self.main_sections,
        }
    }

    /// Whether dart2js made section `section`'s map (it has dart2js's `x_org_dartlang_dart2js` member).
    pub fn section_is_dart2js(&self, section: usize) -> bool {
        self.sections[section].dart2js
    }

    /// Whether section `section` (of any generated file of the map) has no `scopes`.
    pub fn section_scopes_absent(&self, section: usize) -> bool {
        self.sections[section].scopes.is_none()
    }

    /// The sections of one generated file: the map's own, or a segment's.
    pub(crate) fn space_sections(&self, space: Space) -> Range<usize> {
        match space {
            Space::Main => 0..self.main_sections,
            Space::Segment(k) => self.segments[k].sections.clone(),
        }
    }

    /// [`Self::section_at`] in a given generated file.
    pub fn section_at_in(&self, space: Space, p: GeneratedPosition) -> Option<usize> {
        let range = self.space_sections(space);
        let first = range.start;
        self.section_starts[range]
            .partition_point(|&start| start <= p)
            .checked_sub(1)
            .map(|i| first + i)
    }

    fn hit(
        &self,
        section: usize,
        segment: &Segment,
        original: Option<SegmentOriginal>,
    ) -> MappingHit<'_> {
        let s = &self.sections[section];
        MappingHit {
            section,
            generated: s.to_global(segment.line, segment.column),
            original: original.map(|o| {
                let source = s.sources[o.source as usize];
                OriginalPosition {
                    source,
                    source_url: self.source(source).url.as_deref(),
                    line: o.line,
                    column: o.column,
                    name: o.name.and_then(|n| self.names_of(section).get(n as usize)),
                }
            }),
        }
    }

    /// The segment for a generated position (mozilla/source-map's `originalPositionFor` semantics; in an index map
    /// only the section containing the position is searched). `Ok(None)`: nothing on that line in that direction.
    pub fn lookup(
        &self,
        p: GeneratedPosition,
        bias: Bias,
    ) -> Result<Option<MappingHit<'_>>, MapError> {
        self.lookup_in(Space::Main, p, bias)
    }

    /// [`Self::lookup`] in a given generated file (a Metro segment's: `map/metro.rs`).
    pub fn lookup_in(
        &self,
        space: Space,
        p: GeneratedPosition,
        bias: Bias,
    ) -> Result<Option<MappingHit<'_>>, MapError> {
        let Some(section) = self.section_at_in(space, p) else {
            return Ok(None);
        };
        // The checkpoints first: the longest chain of cache misses starts there.
        let compact = self.compact(section)?;
        let s = &self.sections[section];
        // The answer's source and names: known before decoding, so their cache misses can overlap it.
        if let [only] = *s.sources {
            prefetch(&self.sources[only.0 as usize]);
        }
        if let Names::Table(t) = &s.names {
            t.prefetch();
        }
        let (line, column) = s
            .to_local(p)
            .expect("section_at returns a section at or before p");
        Ok(compact
            .lookup(s.mappings.bytes(&self.buffer), line, column, bias)
            .map(|hit| self.hit(section, &hit.segment, hit.original)))
    }

    /// The segment every answer at `p` comes from — hover, definition, `lookup`, a trace's frames, a profile's
    /// samples: the greatest lower bound on `p`'s line, and where several segments start at its generated position,
    /// the first written. One rule for every entry point. Where they differ, the first is the one the original
    /// program reports: a bundler writes the outermost expression starting at a column first (`new Error(` before
    /// `Error`; swc, Turbopack), and V8 reports a constructor call at `new` (the round-trip corpus, `tests/roundtrip.rs`;
    /// Next.js's `throw new Error` lines, `tests/frameworks.rs`). The same as `@jridgewell/trace-mapping` 0.3
    /// (`traceSegment`: `lowerBound` to the first equal) and mozilla/source-map 0.6.1 (`binary-search.js`: "Make sure we
    /// always return the smallest of these"); mozilla/source-map 0.7.4 and node's `SourceMap.findEntry` take the last
    /// (both run at each of Next.js's ties: `fixtures/nextjs/ties.mjs`), and so does Chrome DevTools' `findEntry`
    /// by its source (`upperBound - 1`).
    /// [`Self::lookup`] keeps mozilla 0.7's order, for its reference answers.
    pub fn answer_at(&self, p: GeneratedPosition) -> Result<Option<MappingHit<'_>>, MapError> {
        self.answer_at_in(Space::Main, p)
    }

    /// [`Self::answer_at`] in a given generated file.
    pub fn answer_at_in(
        &self,
        space: Space,
        p: GeneratedPosition,
    ) -> Result<Option<MappingHit<'_>>, MapError> {
        let Some(hit) = self.lookup_in(space, p, Bias::GreatestLowerBound)? else {
            return Ok(None);
        };
        let tied = self.all_at_in(space, hit.generated)?;
        Ok(Some(match tied.first() {
            Some(first) if tied.len() > 1 && first.generated == hit.generated => *first,
            _ => hit,
        }))
    }

    /// The original position for a generated position: `None` when nothing maps there or the segment found is a
    /// 1-field one.
    pub fn original_position(
        &self,
        p: GeneratedPosition,
        bias: Bias,
    ) -> Result<Option<OriginalPosition<'_>>, MapError> {
        Ok(self.lookup(p, bias)?.and_then(|h| h.original))
    }

    /// Every segment tied at the position a greatest-lower-bound lookup lands on (ECMA-426 `GetOriginalPositions`),
    /// in text order.
    pub fn all_at(&self, p: GeneratedPosition) -> Result<Vec<MappingHit<'_>>, MapError> {
        self.all_at_in(Space::Main, p)
    }

    /// [`Self::all_at`] in a given generated file.
    pub fn all_at_in(
        &self,
        space: Space,
        p: GeneratedPosition,
    ) -> Result<Vec<MappingHit<'_>>, MapError> {
        let Some(section) = self.section_at_in(space, p) else {
            return Ok(Vec::new());
        };
        let s = &self.sections[section];
        let (line, column) = s
            .to_local(p)
            .expect("section_at returns a section at or before p");
        let compact = self.compact(section)?;
        Ok(compact
            .all_at(s.mappings.bytes(&self.buffer), line, column)
            .iter()
            .map(|seg| self.hit(section, seg, seg.original))
            .collect())
    }

    /// Where the text mapped by the segment at `p` ends on its line (exclusive column), `None` for end of line.
    pub fn segment_end(&self, hit: &MappingHit<'_>) -> Result<Option<u32>, MapError> {
        let s = &self.sections[hit.section];
        let (line, column) = s
            .to_local(hit.generated)
            .expect("a hit lies in its section");
        let compact = self.compact(hit.section)?;
        Ok(compact
            .segment_end(s.mappings.bytes(&self.buffer), line, column)
            .map(|c| s.to_global(line, c).column))
    }

    /// Calls `f` with every segment of the map in generated order (section by section, text order within).
    pub fn for_each_segment(&self, mut f: impl FnMut(&MappingHit<'_>)) -> Result<(), MapError> {
        for i in 0..self.sections.len() {
            let compact = self.compact(i)?;
            let bytes = self.sections[i].mappings.bytes(&self.buffer);
            let end = self.section_end(i);
            compact.for_each(bytes, |seg| {
                if !Self::shadowed(end, seg) {
                    f(&self.hit(i, seg, seg.original))
                }
            });
        }
        Ok(())
    }

    /// Like [`Self::for_each_segment`], for one pass over a whole map: a section not indexed yet is decoded once,
    /// every rule checked on the way, without building (or keeping) its checkpoints. (`rangeMappings` are not read:
    /// they change lookups between segments, not the segments.)
    pub fn for_each_segment_once(
        &self,
        mut f: impl FnMut(&MappingHit<'_>),
    ) -> Result<(), MapError> {
        self.for_each_raw_segment_once(|i, seg| f(&self.hit(i, seg, seg.original)))
    }

    /// [`Self::for_each_segment_once`] with each segment as decoded: its section and section-relative position,
    /// names not looked up ([`Self::segment_name_if_loaded`], [`Section::to_global`]). For passes over every segment
    /// that need names for few of them (the fit check).
    pub fn for_each_raw_segment_once(
        &self,
        f: impl FnMut(usize, &Segment),
    ) -> Result<(), MapError> {
        self.for_each_raw_segment_once_in(self.bundle_file_sections(), f)
    }

    /// [`Self::for_each_raw_segment_once`] over the sections in `sections` only.
    pub fn for_each_raw_segment_once_in(
        &self,
        sections: std::ops::Range<usize>,
        mut f: impl FnMut(usize, &Segment),
    ) -> Result<(), MapError> {
        for i in sections {
            let bytes = self.sections[i].mappings.bytes(&self.buffer);
            let end = self.section_end(i);
            if let Some(compact) = self.compact_if_built(i) {
                compact.for_each(bytes, |seg| {
                    if !Self::shadowed(end, seg) {
                        f(i, seg)
                    }
                });
                continue;
            }
            let mut cursor = SegmentCursor::new(bytes, self.limits(i));
            let mut last: Option<(u32, u32)> = None;
            while let Some(seg) = cursor.next_segment() {
                let seg = seg.map_err(|e| self.section_error(i, e))?;
                last = Some(match last {
                    Some((l, c)) if l == seg.line => (l, seg.column.max(c)),
                    _ => (seg.line, seg.column),
                });
                if !Self::shadowed(end, &seg) {
                    f(i, &seg);
                }
            }
            self.check_section_end(i, last)?;
        }
        Ok(())
    }

    /// [`CompactMappings::for_each_from`] on section `section` (its checkpoints built first): its segments from
    /// checkpoint `from` on, section-relative, until `f` returns false. For the fit check near frames.
    pub fn for_each_raw_segment_from(
        &self,
        section: usize,
        from: Option<usize>,
        f: impl FnMut(&Segment) -> bool,
    ) -> Result<(), MapError> {
        let compact = self.compact(section)?;
        let end = self.section_end(section);
        let mut f = f;
        compact.for_each_from(
            self.sections[section].mappings.bytes(&self.buffer),
            from,
            |seg| Self::shadowed(end, seg) || f(seg),
        );
        Ok(())
    }

    /// The text of `names[name]` of a section, when its names are in memory: names left in the file (a lazy or
    /// shed index) are not read for this (a pass over every segment would build every section's table and keep it:
    /// +55 MB on the editor benchmark's Metro bundle).
    pub fn segment_name_if_loaded(&self, section: usize, name: u32) -> Option<&str> {
        match &self.sections[section].names {
            Names::Table(t) => t.get(name as usize),
            Names::InFile(n) => n.table.get()?.get(name as usize),
        }
    }

    /// The text of `names[name]` of a section, read back from the map file the first time when its names were left
    /// there (the section's table then stays in memory).
    pub fn segment_name(&self, section: usize, name: u32) -> Option<&str> {
        self.names_of(section).get(name as usize)
    }

    /// Whether a section's names are in memory ([`SourceMapIndex::segment_name_if_loaded`] answers from them).
    pub fn segment_names_loaded(&self, section: usize) -> bool {
        match &self.sections[section].names {
            Names::Table(_) => true,
            Names::InFile(n) => n.table.get().is_some(),
        }
    }

    /// The function enclosing an original position (0-based) of `source`, from the section's Metro function map
    /// (`x_facebook_sources`), when it has one. `Err` when the field is malformed.
    pub fn facebook_function_name(
        &self,
        section: usize,
        source: SourceId,
        line: u32,
        column: u32,
    ) -> Result<Option<String>, FunctionMapError> {
        Ok(self
            .function_map_of(section, source)?
            .and_then(|m| m.name_at(line, column).map(str::to_string)))
    }

    /// Whether the section has an `x_facebook_sources` field at all (read without decoding it).
    pub fn section_has_function_maps(&self, section: usize) -> bool {
        self.sections[section].x_facebook_sources.is_some()
    }

    /// Whether the section's `x_facebook_sources` holds a function map for `source` (composing tools write the
    /// field with `null` for every source that has none: metro-source-map's `composeSourceMaps` over an esbuild map).
    /// A malformed field holds none.
    pub fn has_function_map(&self, section: usize, source: SourceId) -> bool {
        matches!(
            self.function_map_span(section, source, &mut None),
            Ok(Some(_))
        )
    }

    /// Where `source`'s function map is in the section's `x_facebook_sources`, the field read (and every map in it
    /// checked) on first use; with the field's range in the buffer, or in the file once shed. The first use also
    /// gives `source`'s map, decoded on the way (`decoded`), so it is not read twice.
    fn function_map_span(
        &self,
        section: usize,
        source: SourceId,
        decoded: &mut Option<FunctionMap>,
    ) -> Result<Option<SpanOfSource<'_>>, FunctionMapError> {
        let s = &self.sections[section];
        let Some(range) = s.x_facebook_sources.clone() else {
            return Ok(None);
        };
        let local = s.sources.iter().position(|&g| g == source);
        let mut spans = || {
            let bytes = match s.facebook_sources_hash {
                None => Cow::Borrowed(&self.buffer[range.clone()]),
                Some(hash) => Cow::Owned(
                    self.read_back(&range, Some(hash))
                        .ok_or(FunctionMapError::FileChanged)?,
                ),
            };
            let raw = std::str::from_utf8(&bytes)?;
            FunctionMap::element_spans(raw, local, decoded)
        };
        let spans: &Result<_, _> = s.function_maps.get_or_init(|| Box::new(spans()));
        let spans = spans.as_ref().map_err(Clone::clone)?;
        let Some(local) = local else {
            return Ok(None);
        };
        Ok(spans
            .get(local)
            .and_then(Option::as_ref)
            .map(|span| (local, span, range)))
    }

    /// `source`'s function map in the section's `x_facebook_sources`: decoded from its element (read back from the
    /// map file, checked against its hash, once shed) and kept among the last used.
    fn function_map_of(
        &self,
        section: usize,
        source: SourceId,
    ) -> Result<Option<Arc<FunctionMap>>, FunctionMapError> {
        let mut decoded = None;
        let Some((local, span, field)) = self.function_map_span(section, source, &mut decoded)?
        else {
            return Ok(None);
        };
        if let Some(m) = self.function_maps.get((section, local)) {
            return Ok(Some(m));
        }
        let map = match decoded {
            Some(m) => Arc::new(m),
            None => {
                let at = field.start + span.range.start..field.start + span.range.end;
                let bytes = match self.sections[section].facebook_sources_hash {
                    None => Cow::Borrowed(&self.buffer[at]),
                    Some(_) => Cow::Owned(
                        self.read_back(&at, Some(span.hash))
                            .ok_or(FunctionMapError::FileChanged)?,
                    ),
                };
                let text = std::str::from_utf8(&bytes)?;
                Arc::new(FunctionMap::decode_element(text)?)
            }
        };
        self.function_maps.put((section, local), map.clone());
        Ok(Some(map))
    }

    /// The section's decoded `scopes` (ECMA-426 proposal), if it has the field; `Err` when it is malformed.
    pub fn scopes(&self, section: usize) -> Option<Result<&DecodedScopes, ScopesError>> {
        let s = &self.sections[section];
        let range = s.scopes.clone()?;
        let decode = || {
            let text: String = serde_json::from_slice(&self.buffer[range])
                .map_err(|e| ScopesError::NotAString(Arc::new(e)))?;
            decode_scopes(&text, self.names_of(section), s.sources.len())
        };
        let decoded: &Result<_, _> = s.decoded_scopes.get_or_init(|| Box::new(decode()));
        Some(decoded.as_ref().map_err(Clone::clone))
    }

    /// The original function a generated position is in, from the section's `scopes`.
    pub fn scopes_function_name(&self, section: usize, p: GeneratedPosition) -> Option<String> {
        let s = &self.sections[section];
        let (line, column) = s.to_local(p)?;
        let decoded = self.scopes(section)?.ok()?;
        decoded.function_name_at(line, column).map(str::to_string)
    }

    /// The reverse index of one source, built on first use.
    pub fn reverse(&self, id: SourceId) -> Result<&ReverseIndex, MapError> {
        if let Some(r) = self.reverse[id.0 as usize].get() {
            return Ok(r);
        }
        let built = self.build_reverse(id)?;
        Ok(self.reverse[id.0 as usize].get_or_init(|| built))
    }

    /// Every segment mapping into `source`, from the sections that list it only (in a Metro index map, one
    /// module's section), and there only from the stretch of `mappings` where its segments lie when the section
    /// knows it.
    fn build_reverse(&self, source: SourceId) -> Result<ReverseIndex, MapError> {
        let mut entries = Vec::new();
        for (i, section) in self.sections().iter().enumerate() {
            if !section.sources().contains(&source) {
                continue;
            }
            let compact = self.compact(i)?;
            let locals = section.sources();
            let bytes = self.section_mappings(i);
            let mine = (0..locals.len() as u32).filter(|&l| locals[l as usize] == source);
            let end = self.section_end(i);
            let visit = |seg: &crate::internal::map::segment::Segment| {
                let Some(o) = seg.original.filter(|_| !Self::shadowed(end, seg)) else {
                    return;
                };
                if locals[o.source as usize] != source {
                    return;
                }
                entries.push(ReverseEntry::new(
                    o.line,
                    o.column,
                    o.name,
                    section.to_global(seg.line, seg.column),
                ));
            };
            match compact.span_of(mine) {
                Some(span) => compact.for_each_in(bytes, span, visit),
                None => compact.for_each(bytes, visit),
            }
        }
        Ok(ReverseIndex::from_unsorted(entries))
    }

    /// Whether any section has `rangeMappings` (which [`Self::for_each_segment_once`] does not read or check).
    pub fn has_range_mappings(&self) -> bool {
        self.sections.iter().any(|s| s.range_mappings.is_some())
    }

    /// Total length of all `mappings` strings.
    pub fn mappings_bytes(&self) -> usize {
        self.sections.iter().map(|s| s.mappings.len()).sum()
    }

    /// Builds every section's checkpoints now (a no-op for an eagerly built index).
    pub fn build_all(&self) -> Result<(), MapErrors> {
        let errors: Vec<MapError> = (0..self.sections.len())
            .filter_map(|i| self.compact(i).err())
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(MapErrors(errors))
        }
    }

    /// Validates every section, like [`Self::build_all`], but keeps the checkpoints only of sections built already
    /// and of invalid ones (their error): a lazy index stays as small as the queries made it. Computed once.
    ///
    /// A map of one section (a flat map) is built and kept instead: any lookup needs that section whole, and the
    /// language server validates (for diagnostics) while the first hover builds it, so decoding it apart had both
    /// threads decode the same `mappings` at once: on the real Metro build of the editor benchmark (50.6 MB of
    /// `mappings`, `sourcemap-bench --hovers-only`) the first hover waited for a core the second decode held.
    pub fn validate_all(&self) -> Result<(), MapErrors> {
        if self.sections.len() == 1 {
            return self
                .validated
                .get_or_init(|| match self.compact(0) {
                    Ok(_) => Ok(()),
                    Err(e) => Err(MapErrors(vec![e])),
                })
                .clone();
        }
        self.validated
            .get_or_init(|| {
                let errors: Vec<MapError> = (0..self.sections.len())
                    .filter_map(|i| match self.compacts[i].get() {
                        Some(built) => built.as_ref().err().map(|e| (**e).clone()),
                        None => match self.build_section(i) {
                            Ok(_) => None,
                            Err(e) => {
                                let _ = self.compacts[i].set(Err(Box::new(e.clone())));
                                Some(e)
                            }
                        },
                    })
                    .collect();
                if errors.is_empty() {
                    Ok(())
                } else {
                    Err(MapErrors(errors))
                }
            })
            .clone()
    }

    /// Decodes every section's names and function maps now, as queries touching every section would (`stats
    /// --memory`: what a long-running server may come to hold).
    pub fn decode_all_lazy_parts(&self) {
        for (i, s) in self.sections.iter().enumerate() {
            let _ = self.names_of(i);
            for &source in s.sources() {
                let _ = self.function_map_of(i, source);
            }
        }
    }

    /// Heap held by what the index decodes on first use and keeps, beside its buffer and checkpoints: names,
    /// Metro function maps, `scopes`, reverse indexes. Each is one per section or source, so bounded by the map;
    /// on an index map they grow as queries touch more sections (the server reports them in `sourcemap/mapInfo`).
    pub fn decoded_heap(&self) -> DecodedHeap {
        let mut heap = DecodedHeap::default();
        for s in &self.sections {
            heap.names += match &s.names {
                Names::Table(t) => t.heap_bytes(),
                Names::InFile(n) => n.table.get().map_or(0, NameTable::heap_bytes),
            };
            if let Some(Ok(spans)) = s.function_maps.get().map(|b| b.as_ref()) {
                heap.function_maps += spans.capacity() * std::mem::size_of::<Option<ElementSpan>>();
            }
            heap.scopes += usize::from(s.decoded_scopes.get().is_some())
                * std::mem::size_of::<DecodedScopes>();
        }
        heap.function_maps += self.function_maps.heap_bytes();
        heap.reverse = self
            .reverse
            .iter()
            .filter_map(OnceLock::get)
            .map(ReverseIndex::heap_bytes)
            .sum();
        heap
    }

    /// Heap bytes held by checkpoints and line tables of built sections (the VLQ itself is in the buffer).
    pub fn checkpoint_heap_bytes(&self) -> usize {
        self.compacts
            .iter()
            .filter_map(|c| c.get().and_then(|c| c.as_ref().ok()))
            .map(CompactMappings::heap_bytes)
            .sum()
    }
}

#[cfg(test)]
mod tests;
