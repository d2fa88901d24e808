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

use crate::internal::map::error::{MapError, MapErrors};
use crate::internal::map::names::NameTable;
use crate::internal::map::raw::{OnePassMap, Raw, RawMap, TypedSection};

mod fields;
mod metro_fields;
mod regular;
mod sections;

use fields::*;
pub use regular::*;
use sections::*;

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
}

#[cfg(test)]
mod tests;
