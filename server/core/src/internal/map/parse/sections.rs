//! An index map's `sections`: each section's parts read (on several threads past a size), offsets composed.

use super::fields::{compose_offset, is_object};
use super::{
    ContentItems, Element, Field, MapPart, ParsedMap, Parser, RawSection, SectionParts,
    MAX_SECTION_NESTING,
};
use crate::internal::map::error::MapError;
use crate::internal::map::raw::{ObjectOnly, Raw, RawMap, TypedSection};

impl<'b> Parser<'b> {
    /// The sections read from their raw text: the array at once when every element reads (the common case), else
    /// element by element, which can say which element is wrong.
    pub(super) fn section_parts(&mut self, sections: Raw<'b>) -> Vec<Element<'b>> {
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
}

impl<'b> Parser<'b> {
    /// An index map's own fields: its `file` and `debugId`.
    pub(super) fn index_map_fields<S, C>(
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
}

/// A section read with its map (serde's one pass or the fast reader).
pub(super) fn typed_section_parts(s: TypedSection<'_>) -> Element<'_> {
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
pub(super) const PARALLEL_SECTIONS_FROM: usize = 1 << 20;

/// The sections of an index map, checked and read one at a time, in order: after the whole document was read, or
/// (the fast reader) each as soon as it is read, while its bytes are still in the cache.
#[derive(Default)]
pub(super) struct SectionsRead {
    next: usize,
    previous: Option<(u32, u32)>,
    pub(super) maps: Vec<ParsedMap>,
    /// JSON path before `sections`: "", "x_facebook_segments.1." or "sections[0].map.".
    prefix: String,
    /// How many index maps this one is nested in.
    depth: u32,
}

impl SectionsRead {
    pub(super) fn under(prefix: String, depth: u32) -> Self {
        SectionsRead {
            prefix,
            depth,
            ..SectionsRead::default()
        }
    }

    /// `sections_raw`: the `sections` text, when it was read on its own (for error locations).
    pub(super) fn push<'b>(
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
