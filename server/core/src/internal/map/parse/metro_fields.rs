//! Metro's fields: `x_facebook_sources`, `x_metro_module_paths`, and the wrapper offsets some tools doubled.

use super::fields::non_negative_integer;
use super::{ParseFailure, ParsedDocument, ParsedSegment, Parser};
use crate::internal::map::error::MapError;
use crate::internal::map::raw::{Raw, RawMap};

impl<'b> Parser<'b> {
    /// Metro's fields for RAM bundles and segments (`map/metro.rs` says what they mean): `x_facebook_offsets`
    /// (module id → first generated line, `null` for ids without a lazy module) and, at the top level only,
    /// `x_facebook_segments` (segment id → a whole map, read here from the same buffer).
    pub(super) fn metro_fields<S, C>(&mut self, doc: &mut ParsedDocument, map: &RawMap<'b, S, C>) {
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
                                self.error(format!("{path}[{i}]"), Some(item), why.to_string());
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
}
