//! Reading the JSON of a source map (ECMA-426 §"Source map format") into byte ranges and small owned values.
//!
//! Nothing big is copied: `mappings`, `sourcesContent` entries and the extension fields stay where they are in the
//! file buffer and are referred to by byte range; only `names` and `sources` become owned strings. Every field is
//! validated with an error that names its JSON path.
//!
//! Leniencies, each deliberate: a BOM and a leading `)]}'` line are skipped (the spec asks for that); a trailing comma
//! before `}` or `]` is accepted with a warning (the tc39 `decoding/debug-id` goldens contain them; `JSON.parse` would
//! reject them); `null` in an optional field means absent; unknown fields are ignored.

use std::ops::Range;

use serde::Deserialize;

use crate::internal::map::debug_id::normalize_debug_id;
use crate::internal::map::error::{MapError, MapErrors};
use crate::internal::map::names::NameTable;
use crate::internal::map::raw::{ObjectOnly, OnePassMap, Raw, RawMap, TypedSection};

/// Text that is either a range of the file buffer (the common case) or, when the JSON string had escapes, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextRef {
    /// A range of the file buffer (the string's contents, without its quotes).
    Buffer(Range<usize>),
    /// The unescaped text, when the JSON string had escapes.
    Owned(Box<[u8]>),
}

impl TextRef {
    /// The text's bytes, read from `buffer` when it is a range of it.
    pub fn bytes<'a>(&'a self, buffer: &'a [u8]) -> &'a [u8] {
        match self {
            TextRef::Buffer(r) => &buffer[r.clone()],
            TextRef::Owned(b) => b,
        }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        match self {
            TextRef::Buffer(r) => r.len(),
            TextRef::Owned(b) => b.len(),
        }
    }

    /// Whether the text is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Offset in the file of the text's first byte, when it is in the buffer.
    pub fn file_offset(&self) -> Option<usize> {
        match self {
            TextRef::Buffer(r) => Some(r.start),
            TextRef::Owned(_) => None,
        }
    }
}

/// One regular (non-index) map: the whole document of a flat map, or one section's `map`.
#[derive(Debug, Clone)]
pub struct ParsedMap {
    /// Generated (line, column) where this map starts: (0, 0) for a flat map.
    pub offset: (u32, u32),
    /// JSON path prefix of this map's fields: `""` or `"sections[3].map."`.
    pub path: String,
    /// The `mappings` string.
    pub mappings: TextRef,
    /// `names`, empty when the parser was asked not to keep them (then `names_count` has their number).
    pub names: NameTable,
    /// Where the raw JSON `names` array is in the file.
    pub names_at: Option<Range<usize>>,
    /// How many names there are (`names` is empty when they were left in the file: see `parse_document_with`).
    pub names_count: u32,
    /// `sources` with `sourceRoot` applied; `None` for a `null` entry.
    pub sources: Vec<Option<Box<str>>>,
    /// Per source, the raw JSON string literal (quotes included) of its `sourcesContent` entry.
    pub contents: Vec<Option<Range<usize>>>,
    /// `ignoreList` (or the older `x_google_ignoreList`): indexes into `sources`, each checked against its length.
    pub ignore_list: Vec<u32>,
    /// The `rangeMappings` string, if any.
    pub range_mappings: Option<TextRef>,
    /// Raw JSON of `x_facebook_sources`, kept for symbolication.
    pub x_facebook_sources: Option<Range<usize>>,
    /// Raw JSON of `scopes` (ECMA-426 proposal), kept for symbolication.
    pub scopes: Option<Range<usize>>,
    /// The map has dart2js's `x_org_dartlang_dart2js` member: dart2js made it (see `trace::symbolicate`).
    pub dart2js: bool,
    /// `debugId`, when it is a UUID (anything else is dropped with a warning).
    pub debug_id: Option<String>,
    /// The `file` field.
    pub file: Option<String>,
}

impl ParsedMap {
    /// A section that maps nothing: where a nested index map's sections leave the start of its section uncovered.
    fn empty(offset: (u32, u32), path: String) -> Self {
        ParsedMap {
            offset,
            path,
            mappings: TextRef::Owned(Box::default()),
            names: NameTable::default(),
            names_at: None,
            names_count: 0,
            sources: Vec::new(),
            contents: Vec::new(),
            ignore_list: Vec::new(),
            range_mappings: None,
            x_facebook_sources: None,
            scopes: None,
            dart2js: false,
            debug_id: None,
            file: None,
        }
    }
}

/// A whole document.
#[derive(Debug, Clone)]
pub struct ParsedDocument {
    /// Whether the document has `sections`.
    pub is_index_map: bool,
    /// The `file` field of the document (the index map's own, or the flat map's).
    pub file: Option<String>,
    /// The `debugId` of the document (the index map's own, or the flat map's), when it is a UUID.
    pub debug_id: Option<String>,
    /// The regular maps in generated order: one for a flat map, one per section of an index map (a nested index map's
    /// sections read in place, and empty sections where they leave the start of their section uncovered).
    pub maps: Vec<ParsedMap>,
    /// Raw JSON of `x_hermes_function_offsets` (top level), kept for symbolication.
    pub x_hermes_function_offsets: Option<Range<usize>>,
    /// Metro's `x_facebook_offsets`: per module id, the generated line (0-based) its code starts on in a RAM
    /// bundle's map (`null` for ids that are not lazy modules). See `map/metro.rs`.
    pub module_offsets: Option<Vec<Option<u32>>>,
    /// Metro's `x_metro_module_paths`: per module id, the module's source path (for messages only).
    pub module_paths: Option<Vec<Option<String>>>,
    /// Metro's `x_facebook_segments`: one whole map per segment id (1, 2, …); segment 0 is this document.
    pub segments: Vec<ParsedSegment>,
    /// What was accepted with a remark (trailing commas, ignored fields and values, Metro quirks), each located.
    pub warnings: Vec<MapError>,
}

/// One entry of `x_facebook_segments`: a map of its own, read with this document's buffer.
#[derive(Debug, Clone)]
pub struct ParsedSegment {
    /// The segment id (its key in `x_facebook_segments`).
    pub id: u32,
    /// The segment's map, read as a document of its own.
    pub document: ParsedDocument,
}

/// How deep index maps may nest in sections (Metro nests one level; more is not a map anyone writes).
const MAX_SECTION_NESTING: u32 = 4;

#[derive(Deserialize)]
struct RawSection<'a> {
    #[serde(borrow, default)]
    offset: Option<Raw<'a>>,
    #[serde(borrow, default)]
    map: Option<Raw<'a>>,
    #[serde(borrow, default)]
    url: Option<Raw<'a>>,
}

/// `sourcesContent` as read: its raw text, or its items.
trait ContentItems<'b> {
    /// The items; `Err` with the raw text (for the error's location) when it is not an array.
    fn items(&self) -> Result<Vec<Raw<'b>>, Option<Raw<'b>>>;
}

impl<'b> ContentItems<'b> for Raw<'b> {
    fn items(&self) -> Result<Vec<Raw<'b>>, Option<Raw<'b>>> {
        serde_json::from_str::<Vec<Raw<'b>>>(self.get()).map_err(|_| Some(*self))
    }
}

impl<'b> ContentItems<'b> for Vec<Raw<'b>> {
    fn items(&self) -> Result<Vec<Raw<'b>>, Option<Raw<'b>>> {
        Ok(self.clone())
    }
}

/// A section's parts, however it was read.
struct SectionParts<'b> {
    /// The section's own text (only when read element by element).
    raw: Option<Raw<'b>>,
    offset: Option<Raw<'b>>,
    url: Option<Raw<'b>>,
    map: MapPart<'b>,
}

/// A section, or the text of an element of `sections` that is not one.
type Element<'b> = Result<SectionParts<'b>, Raw<'b>>;

// Lives briefly, one per section in one Vec; boxing the big variant would cost an allocation per section.
#[allow(clippy::large_enum_variant)]
enum MapPart<'b> {
    Missing,
    Raw(Raw<'b>),
    Read(OnePassMap<'b>),
}

#[derive(Deserialize)]
struct RawOffset<'a> {
    #[serde(borrow, default)]
    line: Option<Raw<'a>>,
    #[serde(borrow, default)]
    column: Option<Raw<'a>>,
}

/// Where the JSON document starts after a BOM and a `)]}'` line.
pub fn document_start(buffer: &[u8]) -> usize {
    let mut start = 0;
    if buffer.starts_with(b"\xEF\xBB\xBF") {
        start = 3;
    }
    if buffer[start..].starts_with(b")]}") {
        start = match memchr::memchr(b'\n', &buffer[start..]) {
            Some(nl) => start + nl + 1,
            None => buffer.len(),
        };
    }
    start
}

/// Parses a source map held in `buffer`. Trailing commas are blanked out in place (same length, so byte offsets
/// still point into the original file), with a warning.
pub fn parse_document(buffer: &mut [u8]) -> Result<ParsedDocument, MapErrors> {
    parse_document_with(buffer, true, true)
}

/// [`parse_document`], with `keep_names: false` checking each `names` array and counting it without keeping its
/// text (`names` stays empty; the caller reads them from the file when needed). `one_pass: false` skips the fast
/// path (tests compare the two ways through).
pub fn parse_document_with(
    buffer: &mut [u8],
    one_pass: bool,
    keep_names: bool,
) -> Result<ParsedDocument, MapErrors> {
    let start = document_start(buffer);
    let mut warnings = Vec::new();
    // A handful of trailing commas are tolerated; a file full of them is not what this leniency is for.
    for _ in 0..64 {
        let mut parser = Parser::new(buffer, start);
        parser.one_pass = one_pass;
        parser.keep_names = keep_names;
        match parser.parse() {
            Err(ParseFailure::TrailingComma(at)) => {
                buffer[at] = b' ';
                warnings.push(
                    MapError::at("", "trailing comma (not valid JSON); accepted")
                        .with_file_offset(Some(at)),
                );
            }
            Err(ParseFailure::Errors(e)) => return Err(e),
            Ok(mut doc) => {
                warnings.append(&mut doc.warnings);
                doc.warnings = warnings;
                return Ok(doc);
            }
        }
    }
    Err(MapError::at("", "too many trailing commas").into())
}

/// A field's JSON path, built only when an error needs it (a Metro map has 16,500 sections of ~8 fields each).
#[derive(Clone, Copy)]
struct Field<'p> {
    /// "" or "sections[3].map."
    prefix: &'p str,
    name: &'static str,
}

impl Field<'_> {
    fn path(&self) -> String {
        format!("{}{}", self.prefix, self.name)
    }
}

enum ParseFailure {
    TrailingComma(usize),
    Errors(MapErrors),
}

struct Parser<'b> {
    buffer: &'b [u8],
    start: usize,
    /// Where the document ends: the buffer's end, or a segment's end (`x_facebook_segments`).
    end: usize,
    /// JSON path of the document: "" or "x_facebook_segments.3.".
    prefix: String,
    /// Try the one-pass reading first.
    one_pass: bool,
    /// Build name tables (else only check and count them).
    keep_names: bool,
    errors: Vec<MapError>,
    warnings: Vec<MapError>,
}

fn json_error_offset(text: &[u8], e: &serde_json::Error) -> usize {
    // serde_json reports 1-based line and column (in bytes).
    let mut line = 1;
    let mut offset = 0;
    while line < e.line() {
        match memchr::memchr(b'\n', &text[offset..]) {
            Some(nl) => offset += nl + 1,
            None => break,
        }
        line += 1;
    }
    (offset + e.column().saturating_sub(1)).min(text.len())
}

impl<'b> Parser<'b> {
    fn new(buffer: &'b [u8], start: usize) -> Self {
        Parser {
            buffer,
            start,
            end: buffer.len(),
            prefix: String::new(),
            one_pass: true,
            keep_names: true,
            errors: Vec::new(),
            warnings: Vec::new(),
        }
    }

    fn offset_of(&self, raw: Raw) -> usize {
        raw.get().as_ptr() as usize - self.buffer.as_ptr() as usize
    }

    fn range_of(&self, raw: Raw) -> Range<usize> {
        let start = self.offset_of(raw);
        start..start + raw.get().len()
    }

    fn error(&mut self, path: String, raw: Option<Raw>, message: impl Into<String>) {
        let offset = raw.map(|r| self.offset_of(r));
        self.errors
            .push(MapError::at(path, message).with_file_offset(offset));
    }

    fn parse(mut self) -> Result<ParsedDocument, ParseFailure> {
        let text = &self.buffer[self.start..self.end];
        if let Some(first) = text.iter().position(|b| !b.is_ascii_whitespace()) {
            if text[first] != b'{' {
                return Err(ParseFailure::Errors(
                    MapError::at("", "the document must be a JSON object")
                        .with_file_offset(Some(self.start + first))
                        .into(),
                ));
            }
        }
        // One pass over the whole text, sections and their maps included (`fast_read`). Anything odd (or any error
        // found after) takes the path below, which reads each part again on its own to say exactly where it is wrong.
        // (A serde pass typed down to the sections sat between the two; no map of the repository's 193 reached it
        // (only a hand-made one with an escaped key did), so it went: issue 26.)
        if self.one_pass {
            if let Some(doc) = self.fast_document(text) {
                return Ok(doc);
            }
            self.errors.clear();
            self.warnings.clear();
        }
        let raw: RawMap = match serde_json::from_slice(text) {
            Ok(r) => r,
            Err(e) => {
                let at = self.start + json_error_offset(text, &e);
                if let Some(comma) = trailing_comma_before(self.buffer, at) {
                    return Err(ParseFailure::TrailingComma(comma));
                }
                let message = match e.classify() {
                    serde_json::error::Category::Eof => format!("the JSON ends too early ({e})"),
                    serde_json::error::Category::Data => {
                        format!("the document must be a JSON object ({e})")
                    }
                    _ => format!("invalid JSON: {e}"),
                };
                return Err(ParseFailure::Errors(
                    MapError::at("", message).with_file_offset(Some(at)).into(),
                ));
            }
        };
        let parts = raw.sections.map(|sections| self.section_parts(sections));
        let mut doc = self.document(&raw, parts, raw.sections);
        self.metro_fields(&mut doc, &raw);
        if self.errors.is_empty() {
            let mut doc = doc;
            doc.warnings = self.warnings;
            Ok(doc)
        } else {
            Err(ParseFailure::Errors(MapErrors(self.errors)))
        }
    }

    /// The document read by `map/fast_read.rs`, each section checked as soon as it is read; `None` when the reader
    /// refuses the text or anything in it is wrong (the caller then reads it again to locate every error).
    ///
    /// A large document's sections are checked on a second thread while the reader goes on (each section's text is
    /// still in the shared cache): on a Metro map that work was a quarter of opening it.
    fn fast_document(&mut self, text: &'b [u8]) -> Option<ParsedDocument> {
        let parts = typed_section_parts;
        let prefix = self.prefix.clone();
        let (raw, sections) = if text.len() < PARALLEL_SECTIONS_FROM {
            let mut sections = SectionsRead::under(prefix, 0);
            let raw = crate::internal::map::fast_read::read(text, |s| {
                sections.push(self, parts(s), None)
            });
            (raw, sections)
        } else {
            const BATCH: usize = 256;
            let (to_checker, batches) = std::sync::mpsc::sync_channel::<Vec<TypedSection>>(64);
            let parser = &mut *self;
            std::thread::scope(|scope| {
                let checker = scope.spawn(move || {
                    let mut sections = SectionsRead::under(prefix, 0);
                    for batch in batches {
                        for s in batch {
                            sections.push(parser, parts(s), None);
                        }
                    }
                    sections
                });
                let mut batch = Vec::with_capacity(BATCH);
                let raw = crate::internal::map::fast_read::read(text, |s| {
                    batch.push(s);
                    if batch.len() == BATCH {
                        // A checker that is gone has panicked; `join` below says so.
                        let _ = to_checker
                            .send(std::mem::replace(&mut batch, Vec::with_capacity(BATCH)));
                    }
                });
                if !batch.is_empty() {
                    let _ = to_checker.send(batch);
                }
                drop(to_checker);
                let sections = checker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                (raw, sections)
            })
        };
        let raw = raw?;
        let mut doc = if raw.sections.is_some() {
            // The located path reports the index map's own fields before its sections.
            let section_warnings = std::mem::take(&mut self.warnings);
            let (file, debug_id) = self.index_map_fields(&raw);
            self.warnings.extend(section_warnings);
            ParsedDocument {
                is_index_map: true,
                file,
                debug_id,
                maps: sections.maps,
                x_hermes_function_offsets: raw.x_hermes_function_offsets.map(|r| self.range_of(r)),
                module_offsets: None,
                module_paths: None,
                segments: Vec::new(),
                warnings: Vec::new(),
            }
        } else {
            self.document(&raw, None, None)
        };
        self.metro_fields(&mut doc, &raw);
        if !self.errors.is_empty() {
            return None;
        }
        doc.warnings = std::mem::take(&mut self.warnings);
        Some(doc)
    }

    /// The sections read from their raw text: the array at once when every element reads (the common case), else
    /// element by element, which can say which element is wrong.
    fn section_parts(&mut self, sections: Raw<'b>) -> Vec<Element<'b>> {
        let parts = |raw: Option<Raw<'b>>, s: RawSection<'b>| SectionParts {
            raw,
            offset: s.offset,
            url: s.url,
            map: s.map.map_or(MapPart::Missing, MapPart::Raw),
        };
        match serde_json::from_str::<Vec<ObjectOnly<RawSection<'b>>>>(sections.get()) {
            Ok(typed) => typed
                .into_iter()
                .map(|ObjectOnly(s)| Ok(parts(None, s)))
                .collect(),
            Err(_) => match serde_json::from_str::<Vec<Raw<'b>>>(sections.get()) {
                Err(_) => {
                    self.error(
                        "sections".into(),
                        Some(sections),
                        "`sections` must be an array",
                    );
                    Vec::new()
                }
                Ok(list) => list
                    .into_iter()
                    .map(|raw| {
                        is_object(raw)
                            .then(|| serde_json::from_str::<RawSection>(raw.get()).ok())
                            .flatten()
                            .map(|s| parts(Some(raw), s))
                            .ok_or(raw)
                    })
                    .collect(),
            },
        }
    }

    /// `sections_raw`: the `sections` text, when it was read on its own (for error locations).
    fn document<S, C: ContentItems<'b>>(
        &mut self,
        raw: &RawMap<'b, S, C>,
        sections: Option<Vec<Element<'b>>>,
        sections_raw: Option<Raw<'b>>,
    ) -> ParsedDocument {
        let hermes = raw.x_hermes_function_offsets.map(|r| self.range_of(r));
        let Some(sections) = sections else {
            let map = self.regular_map(raw, (0, 0), self.prefix.clone());
            return ParsedDocument {
                is_index_map: false,
                file: map.as_ref().and_then(|m| m.file.clone()),
                debug_id: map.as_ref().and_then(|m| m.debug_id.clone()),
                maps: map.into_iter().collect(),
                x_hermes_function_offsets: hermes,
                module_offsets: None,
                module_paths: None,
                segments: Vec::new(),
                warnings: Vec::new(),
            };
        };
        let (file, debug_id) = self.index_map_fields(raw);
        let mut reader = SectionsRead::under(self.prefix.clone(), 0);
        for element in sections {
            reader.push(self, element, sections_raw);
        }
        ParsedDocument {
            is_index_map: true,
            file,
            debug_id,
            maps: reader.maps,
            x_hermes_function_offsets: hermes,
            module_offsets: None,
            module_paths: None,
            segments: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// An index map's own fields: its `file` and `debugId`.
    fn index_map_fields<S, C>(
        &mut self,
        raw: &RawMap<'b, S, C>,
    ) -> (Option<String>, Option<String>) {
        let prefix = self.prefix.clone();
        let top = |name| Field {
            prefix: &prefix,
            name,
        };
        self.version(raw.version, top("version"));
        let file = self.optional_string(raw.file, top("file"));
        let debug_id = self.debug_id(raw.debug_id, raw.debug_id_snake, &prefix);
        if raw.mappings.is_some() {
            self.error(
                format!("{prefix}mappings"),
                raw.mappings,
                "an index map (with `sections`) must not have `mappings`",
            );
        }
        (file, debug_id)
    }

    /// A section's map: a regular one, or (Metro's RAM bundles) an index map, read as its own sections with
    /// their offsets made the outer document's. ECMA-426 forbids the nesting; Metro writes it for a RAM bundle's
    /// startup code (`metro/src/shared/output/RamBundle/util.js`, `combineMaps`: the startup modules' `{sections}`
    /// become the first section) and for module groups. Reading the nested sections in place keeps the meaning
    /// of the nesting: a position is in the outer section by its offset, then in one of its sections; where the
    /// nested sections leave the start of the outer one uncovered, an empty section stands there, so no lookup
    /// reaches into the section before.
    fn section_map<C: ContentItems<'b>>(
        &mut self,
        inner: &RawMap<'b, Raw<'b>, C>,
        offset: (u32, u32),
        path: &str,
        depth: u32,
    ) -> Vec<ParsedMap> {
        let Some(nested) = inner.sections else {
            return self
                .regular_map(inner, offset, format!("{path}.map."))
                .into_iter()
                .collect();
        };
        if depth + 1 >= MAX_SECTION_NESTING {
            self.error(
                format!("{path}.map.sections"),
                Some(nested),
                format!("index maps nested more than {MAX_SECTION_NESTING} deep"),
            );
            return Vec::new();
        }
        let errors_before = self.errors.len();
        let prefix = format!("{path}.map.");
        self.version(
            inner.version,
            Field {
                prefix: &prefix,
                name: "version",
            },
        );
        if inner.mappings.is_some() {
            self.error(
                format!("{prefix}mappings"),
                inner.mappings,
                "an index map (with `sections`) must not have `mappings`",
            );
        }
        let mut reader = SectionsRead::under(prefix.clone(), depth + 1);
        for element in self.section_parts(nested) {
            reader.push(self, element, Some(nested));
        }
        if self.errors.len() > errors_before {
            return Vec::new();
        }
        self.warnings.push(
            MapError::at(
                format!("{prefix}sections"),
                format!(
                    "this section's map is itself an index map ({} sections): Metro's RAM bundle layout, which \
                     ECMA-426 does not allow; read as sections of the outer map",
                    reader.maps.len()
                ),
            )
            .with_file_offset(Some(self.offset_of(nested))),
        );
        let mut maps = reader.maps;
        for m in &mut maps {
            m.offset = compose_offset(offset, m.offset);
        }
        if maps.first().is_none_or(|m| m.offset != offset) {
            maps.insert(0, ParsedMap::empty(offset, prefix));
        }
        maps
    }

    /// Metro's fields for RAM bundles and segments (`map/metro.rs` says what they mean): `x_facebook_offsets`
    /// (module id → first generated line, `null` for ids without a lazy module) and, at the top level only,
    /// `x_facebook_segments` (segment id → a whole map, read here from the same buffer).
    fn metro_fields<S, C>(&mut self, doc: &mut ParsedDocument, map: &RawMap<'b, S, C>) {
        let (offsets, segments) = (map.x_facebook_offsets, map.x_facebook_segments);
        doc.module_paths = map.x_metro_module_paths.and_then(|r| self.module_paths(r));
        if let Some(raw) = offsets {
            let path = format!("{}x_facebook_offsets", self.prefix);
            match serde_json::from_str::<Vec<Raw>>(raw.get()) {
                Err(_) => self.error(path, Some(raw), "`x_facebook_offsets` must be an array"),
                Ok(items) => {
                    let mut lines = Vec::with_capacity(items.len());
                    for (i, item) in items.into_iter().enumerate() {
                        if item.get() == "null" {
                            lines.push(None);
                            continue;
                        }
                        match non_negative_integer(item) {
                            Ok(v) => lines.push(Some(v)),
                            Err(why) => {
                                self.error(format!("{path}[{i}]"), Some(item), why);
                                lines.push(None);
                            }
                        }
                    }
                    doc.module_offsets = Some(lines);
                    self.undo_doubled_wrapper_offsets(doc);
                }
            }
        }
        let Some(raw) = segments else { return };
        let path = format!("{}x_facebook_segments", self.prefix);
        if !self.prefix.is_empty() {
            self.warnings.push(
                MapError::at(path, "a segment's own `x_facebook_segments` is ignored (metro-symbolicate reads only the top level's)")
                    .with_file_offset(Some(self.offset_of(raw))),
            );
            return;
        }
        let Ok(members) =
            serde_json::from_str::<std::collections::BTreeMap<String, Raw<'b>>>(raw.get())
        else {
            self.error(
                path,
                Some(raw),
                "`x_facebook_segments` must be an object of maps by segment id",
            );
            return;
        };
        for (key, value) in members {
            let id = match key.parse::<u32>() {
                Ok(id) if id > 0 && key == id.to_string() => id,
                _ => {
                    self.error(
                        format!("{path}.{key}"),
                        Some(value),
                        "a segment id must be a whole number from 1 (segment 0 is the map itself)",
                    );
                    continue;
                }
            };
            if value.get() == "null" {
                continue;
            }
            let start = self.offset_of(value);
            let mut sub = Parser::new(self.buffer, start);
            sub.end = start + value.get().len();
            sub.prefix = format!("{path}.{key}.");
            sub.one_pass = self.one_pass;
            sub.keep_names = self.keep_names;
            match sub.parse() {
                Ok(mut document) => {
                    self.warnings.append(&mut document.warnings);
                    doc.segments.push(ParsedSegment { id, document });
                }
                Err(ParseFailure::Errors(e)) => self.errors.extend(e.0),
                Err(ParseFailure::TrailingComma(at)) => self.errors.push(
                    MapError::at(format!("{path}.{key}"), "trailing comma")
                        .with_file_offset(Some(at)),
                ),
            }
        }
    }

    /// `x_metro_module_paths`, read for messages only: an array of strings (or null), else a warning and nothing.
    fn module_paths(&mut self, raw: Raw<'b>) -> Option<Vec<Option<String>>> {
        match serde_json::from_str::<Vec<Option<String>>>(raw.get()) {
            Ok(paths) => Some(paths),
            Err(_) => {
                self.warnings.push(
                    MapError::at(
                        format!("{}x_metro_module_paths", self.prefix),
                        "`x_metro_module_paths` is not an array of strings; ignored",
                    )
                    .with_file_offset(Some(self.offset_of(raw))),
                );
                None
            }
        }
    }

    /// Metro's `fixWrapperOffset` (`metro/src/shared/output/RamBundle/util.js`: a RAM bundle module's section
    /// starts at `code.indexOf('{') + 1`, after the `__d(function(…){` wrapper) was written for module maps of the
    /// unwrapped code. Metro's module maps have long covered the wrapper themselves (their first segment stands
    /// after it), so the offset counts the wrapper twice and every answer on the module's first line lands that
    /// many columns late: metro-symbolicate answers `src/format.js:14` for a crash at `format.js:10` in a minified
    /// RAM bundle (`fixtures/metro-ram`, run for real). Where a module section's map puts its first segment exactly
    /// at the offset's column (right after the wrapper), the wrapper is in the map, and the column is taken back to
    /// 0, with a warning.
    fn undo_doubled_wrapper_offsets(&mut self, doc: &mut ParsedDocument) {
        let top = format!("{}sections[", self.prefix);
        let mut previous: Option<(u32, u32)> = None;
        for m in &mut doc.maps {
            let before = previous.replace(m.offset);
            let nested = m.path.matches(".map.").count() > 1;
            // Taken back to column 0, the section must still start after the one before it.
            let room = before.is_none_or(|p| p < (m.offset.0, 0));
            if m.offset.1 == 0 || nested || !room || !m.path.starts_with(&top) {
                continue;
            }
            let text = m.mappings.bytes(self.buffer);
            let mut at = 0;
            let first = match text.first() {
                Some(b';') | None => continue,
                Some(_) => crate::internal::map::vlq::decode_signed(text, &mut at),
            };
            // Exactly there: a map of the wrapped code starts right after the wrapper's `{`, where `wrapperEnd`
            // points; a map of unwrapped code starts at its own first token, which is that column only by chance.
            if matches!(first, Ok(c) if c == i64::from(m.offset.1)) {
                self.warnings.push(MapError::at(
                    format!("{}offset", m.path.trim_end_matches("map.")),
                    format!(
                        "column {} is Metro's module wrapper counted twice (the section's map already starts its \
                         first line after the wrapper): read as column 0",
                        m.offset.1
                    ),
                ));
                m.offset.1 = 0;
            }
        }
    }

    fn offset(&mut self, raw: Option<Raw>, path: &str, section: Option<Raw>) -> Option<(u32, u32)> {
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
                self.error(path(), Some(raw), why);
                None
            }
        }
    }

    fn version(&mut self, raw: Option<Raw>, at: Field) {
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

    fn optional_string(&mut self, raw: Option<Raw>, at: Field) -> Option<String> {
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
    fn debug_id(&mut self, camel: Option<Raw>, snake: Option<Raw>, prefix: &str) -> Option<String> {
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
    fn text(&mut self, raw: Raw, at: Field, plain: bool) -> Option<TextRef> {
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
    fn owned_names(&mut self, list: Raw, at: Field) -> Vec<String> {
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

    fn regular_map<S, C: ContentItems<'b>>(
        &mut self,
        raw: &RawMap<'b, S, C>,
        offset: (u32, u32),
        path: String,
    ) -> Option<ParsedMap> {
        let errors_before = self.errors.len();
        let p = |field: &str| format!("{path}{field}");
        let f = |name| Field {
            prefix: &path,
            name,
        };
        self.version(raw.version, f("version"));
        let file = self.optional_string(raw.file, f("file"));
        let source_root = self.optional_string(raw.source_root, f("sourceRoot"));
        let debug_id = self.debug_id(raw.debug_id, raw.debug_id_snake, &path);

        let sources = self.sources(raw.sources, source_root.as_deref(), &path);
        let mut contents = self.contents(raw.sources_content.as_ref(), &path);
        contents.resize(sources.len(), None);

        let counted = match raw.names {
            Some(list) if !self.keep_names => raw
                .names_count
                .or_else(|| NameTable::count_json_array(list.get()).ok()),
            _ => None,
        };
        let names = match raw.names {
            None => Ok(NameTable::default()),
            Some(_) if counted.is_some() => Ok(NameTable::default()),
            // Fast path: straight into the table; anything odd is read again item by item to locate the error.
            Some(list) => match NameTable::from_json_array(list.get()) {
                Ok(table) => Ok(table),
                Err(_) => NameTable::new(&self.owned_names(list, f("names"))),
            },
        };
        let names = names.unwrap_or_else(|_| {
            self.error(
                p("names"),
                raw.names,
                "`names` hold more than 4 GiB of text",
            );
            NameTable::default()
        });

        let ignore_list = self.ignore_list(
            raw.ignore_list,
            raw.x_google_ignore_list,
            sources.len(),
            &path,
        );

        let mappings = match raw.mappings {
            None => {
                self.error(p("mappings"), None, "`mappings` is missing");
                None
            }
            Some(m) => self.text(m, f("mappings"), raw.mappings_plain),
        };
        let range_mappings = raw
            .range_mappings
            .and_then(|r| self.text(r, f("rangeMappings"), false));

        if self.errors.len() > errors_before {
            return None;
        }
        Some(ParsedMap {
            offset,
            path,
            mappings: mappings?,
            names_count: counted.unwrap_or(names.len() as u32),
            names,
            names_at: raw.names.map(|r| self.range_of(r)),
            sources,
            contents,
            ignore_list,
            range_mappings,
            x_facebook_sources: raw.x_facebook_sources.map(|r| self.range_of(r)),
            scopes: raw.scopes.map(|r| self.range_of(r)),
            dart2js: raw.x_org_dartlang_dart2js.is_some(),
            debug_id,
            file,
        })
    }

    /// `sources`, `sourceRoot` applied; every entry that is not a string or null is an error (and `None`).
    fn sources(
        &mut self,
        raw: Option<Raw<'b>>,
        source_root: Option<&str>,
        path: &str,
    ) -> Vec<Option<Box<str>>> {
        let p = |field: &str| format!("{path}{field}");
        let mut sources = Vec::new();
        // Fast path: sources without escapes, borrowed.
        let borrowed =
            raw.and_then(|list| serde_json::from_str::<Vec<Option<&str>>>(list.get()).ok());
        match raw {
            _ if borrowed.is_some() => {
                sources = borrowed
                    .into_iter()
                    .flatten()
                    .map(|s| s.map(|s| apply_source_root(source_root, s).into()))
                    .collect()
            }
            None => self.error(p("sources"), None, "`sources` is missing"),
            Some(list) => match serde_json::from_str::<Vec<Raw>>(list.get()) {
                Err(_) => self.error(p("sources"), Some(list), "`sources` must be an array"),
                Ok(items) => {
                    for (i, item) in items.into_iter().enumerate() {
                        if item.get() == "null" {
                            sources.push(None);
                            continue;
                        }
                        match serde_json::from_str::<String>(item.get()) {
                            Ok(s) => sources.push(Some(apply_source_root(source_root, &s).into())),
                            Err(_) => {
                                self.error(
                                    format!("{}[{i}]", p("sources")),
                                    Some(item),
                                    "a source must be a string or null",
                                );
                                sources.push(None);
                            }
                        }
                    }
                }
            },
        }

        sources
    }

    /// Each `sourcesContent` entry's range in the buffer (`None` for null and for what is not a string: an error).
    fn contents<C: ContentItems<'b>>(
        &mut self,
        raw: Option<&C>,
        path: &str,
    ) -> Vec<Option<Range<usize>>> {
        let p = |field: &str| format!("{path}{field}");
        let mut contents = Vec::new();
        if let Some(list) = raw {
            match list.items() {
                Err(list) => self.error(
                    p("sourcesContent"),
                    list,
                    "`sourcesContent` must be an array",
                ),
                Ok(items) => {
                    for (i, item) in items.into_iter().enumerate() {
                        if item.get() == "null" {
                            contents.push(None);
                        } else if item.get().starts_with('"') {
                            contents.push(Some(self.range_of(item)));
                        } else {
                            self.error(
                                format!("{}[{i}]", p("sourcesContent")),
                                Some(item),
                                "a source's content must be a string or null",
                            );
                            contents.push(None);
                        }
                    }
                }
            }
        }
        contents
    }

    /// `ignoreList` (or the older `x_google_ignoreList`), each index checked against the `sources` count.
    fn ignore_list(
        &mut self,
        ignore: Option<Raw<'b>>,
        x_google: Option<Raw<'b>>,
        sources: usize,
        path: &str,
    ) -> Vec<u32> {
        let p = |field: &str| format!("{path}{field}");
        let mut ignore_list = Vec::new();
        let (ignore_field, ignore_raw) = match (ignore, x_google) {
            (Some(r), _) => ("ignoreList", Some(r)),
            (None, Some(r)) => ("x_google_ignoreList", Some(r)),
            (None, None) => ("ignoreList", None),
        };
        if let Some(list) = ignore_raw {
            match serde_json::from_str::<Vec<Raw>>(list.get()) {
                Err(_) => self.error(
                    p(ignore_field),
                    Some(list),
                    format!("`{ignore_field}` must be an array"),
                ),
                Ok(items) => {
                    for (i, item) in items.into_iter().enumerate() {
                        let item_path = format!("{}[{i}]", p(ignore_field));
                        match non_negative_integer(item) {
                            Ok(v) if (v as usize) < sources => ignore_list.push(v),
                            Ok(v) => self.error(
                                item_path,
                                Some(item),
                                format!("index {v} is out of range ({sources} sources)"),
                            ),
                            Err(why) => self.error(item_path, Some(item), why),
                        }
                    }
                }
            }
        }

        ignore_list
    }
}

/// A section read with its map (serde's one pass or the fast reader).
fn typed_section_parts(s: TypedSection<'_>) -> Element<'_> {
    Ok(SectionParts {
        raw: None,
        offset: s.offset,
        url: s.url,
        map: s
            .map
            .map_or(MapPart::Missing, |ObjectOnly(m)| MapPart::Read(m)),
    })
}

/// From this size on, the fast path checks sections on a second thread (below it, the thread costs more than it saves).
const PARALLEL_SECTIONS_FROM: usize = 1 << 20;

/// The sections of an index map, checked and read one at a time, in order: after the whole document was read, or
/// (the fast reader) each as soon as it is read, while its bytes are still in the cache.
#[derive(Default)]
struct SectionsRead {
    next: usize,
    previous: Option<(u32, u32)>,
    maps: Vec<ParsedMap>,
    /// JSON path before `sections`: "", "x_facebook_segments.1." or "sections[0].map.".
    prefix: String,
    /// How many index maps this one is nested in.
    depth: u32,
}

impl SectionsRead {
    fn under(prefix: String, depth: u32) -> Self {
        SectionsRead {
            prefix,
            depth,
            ..SectionsRead::default()
        }
    }

    /// `sections_raw`: the `sections` text, when it was read on its own (for error locations).
    fn push<'b>(
        &mut self,
        parser: &mut Parser<'b>,
        element: Element<'b>,
        sections_raw: Option<Raw<'b>>,
    ) {
        let i = self.next;
        self.next += 1;
        let path = format!("{}sections[{i}]", self.prefix);
        let section = match element {
            Ok(section) => section,
            Err(raw) => {
                parser.error(path, Some(raw), "a section must be an object");
                return;
            }
        };
        let map_raw = match section.map {
            MapPart::Raw(m) => Some(m),
            _ => None,
        };
        // Where to point when the section itself is at fault.
        let anchor = section.raw.or(section.offset).or(map_raw).or(sections_raw);
        let Some(offset) = parser.offset(section.offset, &path, anchor) else {
            return;
        };
        if let Some(prev) = self.previous {
            if offset <= prev {
                parser.error(
                    format!("{path}.offset"),
                    section.offset,
                    format!(
                        "sections must be ordered and must not overlap: offset {}:{} is not after the previous section's {}:{}",
                        offset.0, offset.1, prev.0, prev.1
                    ),
                );
            }
        }
        self.previous = Some(offset);
        if section.url.is_some() {
            parser.error(
                format!("{path}.url"),
                section.url,
                "sections with `url` (a map loaded from elsewhere) are not supported; embed the map",
            );
            return;
        }
        let map = match section.map {
            MapPart::Missing => {
                parser.error(format!("{path}.map"), anchor, "a section must have a `map`");
                return;
            }
            MapPart::Read(inner) => parser.section_map(&inner, offset, &path, self.depth),
            MapPart::Raw(map) => {
                match is_object(map).then(|| serde_json::from_str::<RawMap>(map.get())) {
                    Some(Ok(inner)) => parser.section_map(&inner, offset, &path, self.depth),
                    _ => {
                        parser.error(
                            format!("{path}.map"),
                            Some(map),
                            "a section's `map` must be an object",
                        );
                        return;
                    }
                }
            }
        };
        // A nested index map's sections must end before the next outer section starts.
        if let (Some(last), Some(first)) = (self.maps.last(), map.first()) {
            if first.offset <= last.offset {
                parser.error(
                    format!("{path}.offset"),
                    section.offset,
                    format!(
                        "sections must be ordered and must not overlap: offset {}:{} is not after {}:{}, where \
                         the previous section's nested sections reach",
                        first.offset.0, first.offset.1, last.offset.0, last.offset.1
                    ),
                );
            }
        }
        self.maps.extend(map);
    }
}

/// A nested section's offset in the outer document: lines add; columns add on the outer section's first line only.
fn compose_offset(outer: (u32, u32), inner: (u32, u32)) -> (u32, u32) {
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
fn trailing_comma_before(buffer: &[u8], at: usize) -> Option<usize> {
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
fn is_object(raw: Raw) -> bool {
    raw.get().starts_with('{')
}

/// `{"line":L,"column":C}` written as bundlers write it, read without serde (a Metro map has 16,500); anything else
/// (white space, other members, a number that is not plain digits) is left to serde and its errors.
fn plain_offset(text: &str) -> Option<(u32, u32)> {
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

fn non_negative_integer(raw: Raw) -> Result<u32, String> {
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
                Some(v) => Err(format!("{v} is too large (at most 2^31 - 1)")),
                None => Err(format!("{n} is not a non-negative integer")),
            }
        }
        Err(_) => Err(format!("must be a non-negative integer, not {}", raw.get())),
    }
}

/// ECMA-426: when `sourceRoot` is set, a source is `sourceRoot` + (`/` unless it already ends with one) + source.
pub fn apply_source_root(root: Option<&str>, source: &str) -> String {
    match root {
        Some(root) if !root.is_empty() => {
            if root.ends_with('/') {
                format!("{root}{source}")
            } else {
                format!("{root}/{source}")
            }
        }
        _ => source.to_string(),
    }
}

/// The canonical 8-4-4-4-12 hexadecimal form.
/// A debug ID as producers write it: a UUID, 8-4-4-4-12 hex digits (the ECMA-426 debug ID proposal; `sentry-cli`
/// writes lowercase), or the same 32 digits without dashes (Sentry's `DebugId` parses both, in either case).
fn is_debug_id(s: &str) -> bool {
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

#[cfg(test)]
mod tests;
