//! A regular (not index) map's fields: `mappings`, `sources` with `sourceRoot` applied, `sourcesContent` and
//! `ignoreList`.

use super::fields::non_negative_integer;
use super::{ContentItems, Field, ParsedMap, Parser};
use crate::internal::map::names::NameTable;
use crate::internal::map::raw::{Raw, RawMap};
use std::ops::Range;

impl<'b> Parser<'b> {
    pub(super) fn regular_map<S, C: ContentItems<'b>>(
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
                            Err(why) => self.error(item_path, Some(item), why.to_string()),
                        }
                    }
                }
            }
        }

        ignore_list
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
