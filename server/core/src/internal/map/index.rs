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

use std::ops::Range;
use std::sync::OnceLock;

use crate::internal::map::compact::CompactMappings;
use crate::internal::map::error::{ErrorLocation, MapError, MapErrors};
use crate::internal::map::function_map::{ElementSpan, FunctionMapCache, FunctionMapError};
use crate::internal::map::names::{NameTable, Names, NamesInFile};
use crate::internal::map::parse::{parse_document, parse_document_with, ParsedMap, TextRef};
use crate::internal::map::reverse::ReverseIndex;
use crate::internal::map::scopes::{DecodedScopes, ScopesError};
use crate::internal::map::segment::{Limits, Segment};

pub use crate::internal::map::position::{GeneratedPosition, SourceId, Space};

mod function_names;
mod lookup;
mod sources;
mod whole;

pub use sources::*;

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

    /// Builds ahead what any first lookup in a large section needs (`mappings` of at least
    /// [`index_cache::MIN_MAPPINGS_BYTES`]: the sections the index cache keeps, so a map indexed before reads them
    /// back): its checkpoints and the spans of its Metro function maps. The editor calls it while a large bundle is
    /// still being opened, so that its first hover does not wait for them; answers are the same either way (each
    /// part is built once, on first use, whoever asks first). Returns how many sections it prepared.
    ///
    /// [`index_cache::MIN_MAPPINGS_BYTES`]: crate::internal::map::index_cache::MIN_MAPPINGS_BYTES
    pub fn prepare_large_sections(&self) -> usize {
        let large = (0..self.sections.len()).filter(|&i| {
            self.sections[i].mappings.len() >= crate::internal::map::index_cache::MIN_MAPPINGS_BYTES
        });
        let mut prepared = 0;
        for i in large {
            // An error is kept in its cell and given to the lookup that asks, as it would be unprepared.
            let _ = self.compact(i);
            self.prepare_function_maps(i);
            prepared += 1;
        }
        prepared
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
}

#[cfg(test)]
mod tests;
