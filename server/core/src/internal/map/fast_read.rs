//! Reading a valid source map's JSON in one strict pass without serde: the fast path of `parse.rs`.
//!
//! Opening a Metro index map (16,500 sections, 57 MB of `mappings`) spent twice the time of a plain `serde_json`
//! parse of the file in serde's own pass, which captures each field as a `RawValue` through derived structs, and then
//! read every `names` array a second time to count it. This reader walks the document once: strings are skipped 64
//! bytes at a time (quotes, backslashes and control characters found with SSE2, escapes with simdjson's carry
//! trick), the members of the map, its sections and their maps are picked out by name, and each `names` array is
//! counted on the way.
//!
//! It produces exactly what serde's pass produces ([`RawMap`] of [`Raw`] texts), and it is stricter than serde,
//! never more lenient: anything it does not accept — invalid UTF-8 anywhere, a key with an escape, a duplicated
//! field, nesting deeper than [`MAX_DEPTH`](crate::internal::json::reader::MAX_DEPTH), a trailing comma, any JSON error — makes it return `None`, and the
//! caller reads the document with serde as before, which locates the error. So the fast path changes how fast a
//! valid map opens, never what any map means (`tests` compares the two on generated and hand-broken documents).

use crate::internal::json::reader::Reader;
use crate::internal::map::raw::{ObjectOnly, OnePassMap, Raw, RawMap, TypedSection};

/// The document as serde's one pass reads it, `sourcesContent` as items, but its sections (`Some(())` when it has
/// `sections`) given one by one to the caller as they are read.
pub(crate) type FastDocument<'b> = RawMap<'b, (), Vec<Raw<'b>>>;

/// Reads `text` (the document after any BOM or XSSI prefix); `None` when it is anything but a plain valid JSON object
/// this reader accepts.
pub(crate) fn read<'b>(
    text: &'b [u8],
    mut on_section: impl FnMut(TypedSection<'b>),
) -> Option<FastDocument<'b>> {
    let text = std::str::from_utf8(text).ok()?;
    let mut r = Reader::new(text);
    r.ws();
    let doc = r.map(1, |r, depth| r.sections(depth, &mut on_section))?;
    r.ws();
    (r.i == r.b.len()).then_some(doc)
}

/// Which member of a map a key names (keys with escapes never get here).
fn field(key: &[u8]) -> Option<usize> {
    const FIELDS: [&[u8]; 20] = [
        b"version",
        b"file",
        b"sourceRoot",
        b"sources",
        b"sourcesContent",
        b"names",
        b"mappings",
        b"ignoreList",
        b"x_google_ignoreList",
        b"debugId",
        b"rangeMappings",
        b"sections",
        b"x_facebook_sources",
        b"x_hermes_function_offsets",
        b"scopes",
        b"x_facebook_offsets",
        b"x_facebook_segments",
        b"x_metro_module_paths",
        b"x_org_dartlang_dart2js",
        b"debug_id",
    ];
    FIELDS.iter().position(|f| *f == key)
}

const SOURCES_CONTENT: usize = 4;
const NAMES: usize = 5;
const MAPPINGS: usize = 6;
const SECTIONS: usize = 11;

/// The map's own members, read on the shared JSON reader (`json_reader`).
impl<'b> Reader<'b> {
    fn raw(&self, start: usize) -> Raw<'b> {
        Raw(self.text(start))
    }

    fn raw_value(&mut self, depth: u32) -> Option<Raw<'b>> {
        self.value(depth).map(Raw)
    }

    /// A map object; `sections(reader, depth)` reads a non-null `sections` value.
    fn map<S>(
        &mut self,
        depth: u32,
        mut sections: impl FnMut(&mut Self, u32) -> Option<S>,
    ) -> Option<RawMap<'b, S, Vec<Raw<'b>>>> {
        let mut m = RawMap::empty();
        let mut seen = 0u32;
        self.members(depth, |r, key, depth| {
            let Some(f) = field(key) else {
                return r.skip_value(depth);
            };
            // serde's derived structs reject a repeated field.
            if seen & (1 << f) != 0 {
                return None;
            }
            seen |= 1 << f;
            if r.null() {
                return Some(());
            }
            match f {
                SOURCES_CONTENT => {
                    let mut list = Vec::new();
                    r.items(depth + 1, |r, depth| {
                        list.push(r.raw_value(depth)?);
                        Some(())
                    })?;
                    m.sources_content = Some(list);
                }
                SECTIONS => m.sections = Some(sections(r, depth)?),
                NAMES => {
                    let start = r.i;
                    let mut count: Option<u32> = Some(0);
                    if r.peek()? == b'[' {
                        r.items(depth + 1, |r, depth| {
                            if r.peek()? == b'"' {
                                r.string()?;
                                count = count.and_then(|n| n.checked_add(1));
                            } else {
                                count = None;
                                r.skip_value(depth)?;
                            }
                            Some(())
                        })?;
                    } else {
                        count = None;
                        r.skip_value(depth)?;
                    }
                    m.names = Some(r.raw(start));
                    m.names_count = count;
                }
                MAPPINGS if r.peek()? == b'"' => {
                    let start = r.i;
                    let (_, escapes) = r.string()?;
                    m.mappings = Some(r.raw(start));
                    m.mappings_plain = !escapes;
                }
                _ => {
                    let start = r.i;
                    r.skip_value(depth)?;
                    let raw = Some(r.raw(start));
                    match f {
                        0 => m.version = raw,
                        1 => m.file = raw,
                        2 => m.source_root = raw,
                        3 => m.sources = raw,
                        6 => m.mappings = raw,
                        7 => m.ignore_list = raw,
                        8 => m.x_google_ignore_list = raw,
                        9 => m.debug_id = raw,
                        10 => m.range_mappings = raw,
                        12 => m.x_facebook_sources = raw,
                        13 => m.x_hermes_function_offsets = raw,
                        14 => m.scopes = raw,
                        15 => m.x_facebook_offsets = raw,
                        16 => m.x_facebook_segments = raw,
                        17 => m.x_metro_module_paths = raw,
                        18 => m.x_org_dartlang_dart2js = raw,
                        _ => m.debug_id_snake = raw,
                    }
                }
            }
            Some(())
        })?;
        Some(m)
    }

    /// The top level's `sections`: an array of objects, each map an object (or null) read as a regular map.
    fn sections(
        &mut self,
        depth: u32,
        on_section: &mut impl FnMut(TypedSection<'b>),
    ) -> Option<()> {
        self.items(depth + 1, |r, depth| {
            let mut section = TypedSection {
                offset: None,
                map: None,
                url: None,
            };
            let mut seen = [false; 3];
            r.members(depth + 1, |r, key, depth| {
                let k = match key {
                    b"offset" => 0,
                    b"map" => 1,
                    b"url" => 2,
                    _ => return r.skip_value(depth),
                };
                if std::mem::replace(&mut seen[k], true) {
                    return None;
                }
                if r.null() {
                    return Some(());
                }
                match k {
                    0 => section.offset = Some(r.raw_value(depth)?),
                    2 => section.url = Some(r.raw_value(depth)?),
                    _ => {
                        let map: OnePassMap = r.map(depth + 1, |r, depth| r.raw_value(depth))?;
                        section.map = Some(ObjectOnly(map));
                    }
                }
                Some(())
            })?;
            on_section(section);
            Some(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// serde's one pass over the same bytes, with the names counted the way `parse.rs` counts them without the fast
    /// reader, for comparing with [`read`].
    fn serde_reading(text: &[u8]) -> Option<WholeDocument<'_>> {
        let mut doc: WholeDocument = serde_json::from_slice(text).ok()?;
        let names_count = |names: Option<Raw>| {
            names.and_then(|n| {
                crate::internal::map::names::NameTable::count_json_array(n.get()).ok()
            })
        };
        let plain = |mappings: Option<Raw>| {
            mappings.is_some_and(|t| t.get().starts_with('"') && !t.get().contains('\\'))
        };
        let count = |m: &mut OnePassMap| {
            m.names_count = names_count(m.names);
            m.mappings_plain = plain(m.mappings);
        };
        doc.names_count = names_count(doc.names);
        doc.mappings_plain = plain(doc.mappings);
        for s in doc.sections.iter_mut().flatten() {
            if let Some(ObjectOnly(m)) = &mut s.0.map {
                count(m);
            }
        }
        Some(doc)
    }

    type WholeDocument<'b> = RawMap<'b, Vec<ObjectOnly<TypedSection<'b>>>, Vec<Raw<'b>>>;

    /// [`read`] with its sections collected, as serde's pass has them.
    fn read_whole(text: &[u8]) -> Option<WholeDocument<'_>> {
        let mut list = Vec::new();
        let d = read(text, |s| list.push(ObjectOnly(s)))?;
        Some(RawMap {
            version: d.version,
            file: d.file,
            source_root: d.source_root,
            sources: d.sources,
            sources_content: d.sources_content,
            names: d.names,
            mappings: d.mappings,
            ignore_list: d.ignore_list,
            x_google_ignore_list: d.x_google_ignore_list,
            debug_id: d.debug_id,
            debug_id_snake: d.debug_id_snake,
            range_mappings: d.range_mappings,
            sections: d.sections.map(|()| list),
            x_facebook_sources: d.x_facebook_sources,
            x_hermes_function_offsets: d.x_hermes_function_offsets,
            scopes: d.scopes,
            x_facebook_offsets: d.x_facebook_offsets,
            x_facebook_segments: d.x_facebook_segments,
            x_metro_module_paths: d.x_metro_module_paths,
            x_org_dartlang_dart2js: d.x_org_dartlang_dart2js,
            names_count: d.names_count,
            mappings_plain: d.mappings_plain,
        })
    }

    /// The fast reader accepts `text` only if serde does, and then reads the same values at the same places.
    fn agrees(text: &[u8]) -> Result<bool, TestCaseError> {
        let Some(fast) = read_whole(text) else {
            return Ok(false);
        };
        let serde = serde_reading(text);
        prop_assert!(
            serde.is_some(),
            "accepted what serde refuses: {:?}",
            String::from_utf8_lossy(text)
        );
        prop_assert_eq!(format!("{fast:?}"), format!("{:?}", serde.unwrap()));
        Ok(true)
    }

    const VALID: &[&str] = &[
        r#"{"version":3,"file":"a.js","sources":["a.js",null,"\u00e9\"q\""],"names":["x","y\\z",""],"mappings":"AAAA,CAAC;AACA","sourcesContent":["let x = \"\\n\";\n\t", null],"x_unknown":{"deep":[1,-2.5e+3,0.25,true,false,null,{"k":[[]]}]},"ignoreList":[0]}"#,
        r#"  {"version":3,"file":null,"sections":[{"offset":{"line":0,"column":0},"map":{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAA","x_facebook_sources":[[{"names":["<global>"],"mappings":"AAA"}]]}},{"offset":{"line":2,"column":5},"extra":"x","map":{"version":3,"sources":["b.js"],"names":["n"],"mappings":"AAAAA","sourcesContent":["\ud83d\ude00 \u0000"]}}],"x_hermes_function_offsets":{"0":[1,2]}} "#,
        r#"{"sections":[],"version":3,"debugId":"85314830-023f-4cf1-a267-535f4e37bb17","names":["not","all",1]}"#,
        r#"{"version":3,"sources":[],"names":null,"mappings":"","rangeMappings":"A","scopes":"AB","sections":null}"#,
    ];

    #[test]
    fn reads_valid_maps_as_serde_does() {
        for text in VALID {
            assert!(agrees(text.as_bytes()).unwrap(), "refused: {text}");
        }
        let doc = read_whole(VALID[0].as_bytes()).unwrap();
        assert_eq!(doc.names_count, Some(3));
        assert_eq!(read_whole(VALID[2].as_bytes()).unwrap().names_count, None);
    }

    #[test]
    fn refuses_what_serde_refuses_or_what_it_leaves_to_serde() {
        let refused = [
            r#"{"version":3,}"#,
            r#"{"version":3,"mappings":"A","mappings":"B"}"#,
            r#"{"mapp\u0069ngs":"A"}"#,
            r#"{"file":"a	b"}"#,
            r#"{"file":"\x"}"#,
            r#"{"file":"\u12g4"}"#,
            r#"{"version":03}"#,
            r#"{"version":-}"#,
            r#"{"version":1.}"#,
            r#"{"version":1e}"#,
            r#"{"version":tru}"#,
            r#"{"version":nul}"#,
            r#"{"version":3} x"#,
            r#"{"version":3"#,
            r#"{"sections":[1]}"#,
            r#"{"sections":[{"map":[3]}]}"#,
            r#"{"sections":[{"map":{},"map":{}}]}"#,
            r#"{"sourcesContent":"x"}"#,
            r#"[1]"#,
        ];
        for text in refused {
            assert!(read_whole(text.as_bytes()).is_none(), "accepted: {text}");
        }
        assert!(read_whole(b"{\"file\":\"\xff\"}").is_none());
        let deep = format!("{{\"x\":{}{}}}", "[".repeat(120), "]".repeat(120));
        assert!(read_whole(deep.as_bytes()).is_none());
        let nested = format!("{{\"x\":{}{}}}", "[".repeat(50), "]".repeat(50));
        assert!(read_whole(nested.as_bytes()).is_some());
    }

    /// Edits that break JSON in the ways files get broken, or make it valid in unusual ways.
    const EDITS: &[&[u8]] = &[
        b",",
        b"\\",
        b"\"",
        b"\x01",
        b"\n",
        b"}",
        b"]",
        b"{",
        b"[",
        b"-",
        b"0",
        b"01",
        b"1e",
        b".5",
        b"tru",
        b"null",
        b" ",
        b":",
        b"\"mappings\":\"A\",",
        b"\\u12",
        b"\\x",
        b"\\u00e9",
        b"\xff",
        b"\\\\",
        b"\"\"",
        b"e+",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn never_accepts_more_than_serde(
            base in 0..VALID.len(),
            edits in prop::collection::vec((any::<prop::sample::Index>(), 0..EDITS.len() + 2), 1..3),
        ) {
            let mut text = VALID[base].as_bytes().to_vec();
            for (at, edit) in edits {
                let at = at.index(text.len() + 1);
                match edit {
                    e if e < EDITS.len() => {
                        text.splice(at..at, EDITS[e].iter().copied());
                    }
                    e if e == EDITS.len() => {
                        text.drain(at..(at + 1).min(text.len()));
                    }
                    _ => {
                        text.drain(at..(at + 7).min(text.len()));
                    }
                }
            }
            agrees(&text)?;
        }

        /// The block scan finds the same end, escapes and errors as the byte-at-a-time one, across block edges.
        #[test]
        fn string_ends_as_byte_by_byte(
            bytes in prop::collection::vec(prop::sample::select(vec![b'a', b'"', b'\\', b'\\', b'u', b'0', b'n', b'x', 0x1f, 0xc3]), 0..400),
            from in 0usize..80,
        ) {
            let from = from.min(bytes.len());
            prop_assert_eq!(
                crate::internal::json::reader::strict_string_end(&bytes, from),
                crate::internal::json::reader::strict_string_end_scalar(&bytes, from, false, false)
            );
        }
    }

    #[test]
    fn the_edits_keep_some_documents_valid() {
        // Without accepted documents the property above would only test refusals.
        let accepted = (0..VALID[0].len())
            .filter(|&at| {
                let mut text = VALID[0].as_bytes().to_vec();
                text.insert(at, b' ');
                read_whole(&text).is_some()
            })
            .count();
        assert!(accepted > 100, "{accepted}");
    }
}
