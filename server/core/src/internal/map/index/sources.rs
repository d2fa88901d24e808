//! A map's sources: their URLs, their contents kept as spans of the file's bytes (read back, unescaped, when
//! asked), and contents shed to the file the map was read from.

use super::SourceMapIndex;
use crate::internal::map::names::{Names, NamesInFile};
use crate::internal::map::parse::TextRef;
use crate::internal::map::position::SourceId;
use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::OnceLock;

/// A source as the index knows it.
#[derive(Debug, Clone)]
pub struct Source {
    /// The source's URL (`sourceRoot` applied); `None` for a `null` entry of `sources`, which is never merged with
    /// another.
    pub url: Option<Box<str>>,
    /// Its `sourcesContent` entry (the first section that has one).
    pub(super) content: Option<ContentRef>,
    /// Listed in the `ignoreList` (or `x_google_ignoreList`) of some section that names it.
    pub ignored: bool,
}

/// Where a source's content is: its raw JSON string literal in the buffer, or, once the index has shed contents
/// ([`SourceMapIndex::shed_contents`]), the literal's byte range in the map file with its hash, so a reader can tell
/// a file that changed since.
#[derive(Debug, Clone)]
pub(super) enum ContentRef {
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
pub(super) fn literal_text(raw: &[u8]) -> Option<(&str, &str)> {
    let raw = std::str::from_utf8(raw).ok()?;
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    Some((raw, inner))
}

/// A JSON string literal's text; borrowed when it has no escapes.
pub(super) fn unescape_literal(raw: &[u8]) -> Option<Cow<'_, str>> {
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

impl SourceMapIndex {
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
    pub(super) fn read_back(&self, range: &Range<usize>, hash: Option<u64>) -> Option<Vec<u8>> {
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
}
