//! Metro's RAM bundles and segments: one map for many generated files.
//!
//! A RAM bundle (Metro's `RamBundle` output: an indexed file for iOS, `js-modules/N.js` files for Android) runs each
//! module as a file of its own, named `N.js`; its map (`buildSourcemapWithMetadata`) is an index map of the startup
//! code followed by every module, with `x_facebook_offsets[N]`, the line module N starts on. A segmented bundle adds
//! `x_facebook_segments`: per segment id a whole map of that segment's file, `seg-S.js`, whose modules are
//! `seg-S_N.js`. The conventions, each from its source:
//! - File names (metro-symbolicate 0.84.6 `Symbolication.js`, `parseSingleMapFileName`; React Native names the files
//!   so: `JSIndexedRAMBundle::getModule` `"${id}.js"`, `RAMBundleRegistry::getModule` `"seg-${bundleId}_${id}.js"`):
//!   `N.js` is module N of the map itself, `seg-S.js` segment S, `seg-S_N.js` module N of segment S. They mean this
//!   only when the map has `x_facebook_offsets` or `x_facebook_segments` (metro-symbolicate's `_legacyFormat`):
//!   webpack's chunks are named `12.js` too.
//! - Lines (`getOriginalPositionDetailsFor`): line L of module N is line L + `x_facebook_offsets[N]` of the map
//!   (both 1-based there; the offset is a count of lines, so 0-based alike). Columns are the module file's own.
//! - A segment or module the map lacks: metro-symbolicate throws (`Unknown module ID`, or a `TypeError` reading the
//!   missing segment's fields) and prints nothing; here the frame is left unmapped with the reason, and the other
//!   frames are answered. Never the main map's answer for a segment's frame.
//!
//! Segments' sections live in the index after the map's own (`SourceMapIndex::segments`), sharing its sources, so a
//! `SourceId` names one source whichever file the frame was in; a [`Space`] says which file's sections a lookup
//! searches.

use std::ops::Range;

use crate::internal::map::index::{GeneratedPosition, SourceMapIndex};
pub use crate::internal::map::position::Space;

/// A file name as Metro names a RAM bundle's modules and a segmented bundle's segments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetroFile {
    /// 0: the map itself.
    pub segment: u32,
    /// The module id `N`; `None` for a segment's own file (`seg-S.js`).
    pub module: Option<u32>,
}

/// Why a frame in a Metro RAM bundle's module (`N.js`) or segment (`seg-S.js`) has no place in a map. The messages
/// are the ones users see.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetroPlaceError {
    /// The frame is in a segment, and the map has no `x_facebook_segments`.
    #[error(
        "the frame is in segment {segment} (seg-{segment}), and this map has no segments (no x_facebook_segments): \
         that segment's map is needed"
    )]
    NoSegments {
        /// The frame's segment.
        segment: u32,
    },
    /// The frame is in a segment the map does not have.
    #[error(
        "the frame is in segment {segment}, and this map has segments {} only",
        list(has)
    )]
    SegmentMissing {
        /// The frame's segment.
        segment: u32,
        /// The segments the map has.
        has: Vec<u32>,
    },
    /// The frame is in a module, and the map (of its segment) has no `x_facebook_offsets`.
    #[error(
        "the frame is in module {module} of a RAM bundle, and {} has no x_facebook_offsets to place it",
        whose(*segment)
    )]
    NoOffsets {
        /// The frame's module.
        module: u32,
        /// Its segment (0: the main file).
        segment: u32,
    },
    /// The map's `x_facebook_offsets` do not place the frame's module.
    #[error(
        "the frame is in module {module}, which {}'s x_facebook_offsets does not place (no module {module} in this \
         RAM bundle)",
        whose(*segment)
    )]
    ModuleMissing {
        /// The frame's module.
        module: u32,
        /// Its segment (0: the main file).
        segment: u32,
    },
}

fn list(ids: &[u32]) -> String {
    ids.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn whose(segment: u32) -> String {
    if segment == 0 {
        "this map".to_string()
    } else {
        format!("segment {segment}'s map")
    }
}

/// `N.js`, `seg-S.js` or `seg-S_N.js` (the whole name, as React Native writes it); `None` for any other name.
pub fn metro_file(file: &str) -> Option<MetroFile> {
    let digits = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u32>().ok())
            .flatten()
    };
    let stem = file.strip_suffix(".js")?;
    if let Some(rest) = stem.strip_prefix("seg-") {
        return match rest.split_once('_') {
            Some((segment, module)) => Some(MetroFile {
                segment: digits(segment)?,
                module: Some(digits(module)?),
            }),
            None => Some(MetroFile {
                segment: digits(rest)?,
                module: None,
            }),
        };
    }
    Some(MetroFile {
        segment: 0,
        module: Some(digits(stem)?),
    })
}

impl SourceMapIndex {
    /// Whether frames' file names address this map's modules and segments (metro-symbolicate's `_legacyFormat`).
    pub fn has_metro_files(&self) -> bool {
        self.module_offsets.is_some() || !self.segments.is_empty()
    }

    /// A RAM bundle's map: modules placed by `x_facebook_offsets`, so its bundle file holds only the startup code.
    pub fn is_ram_bundle(&self) -> bool {
        self.module_offsets.is_some()
    }

    /// The segment ids `x_facebook_segments` holds, in order.
    pub fn segment_ids(&self) -> Vec<u32> {
        self.segments.iter().map(|s| s.id).collect()
    }

    /// How many modules `x_facebook_offsets` places.
    pub fn module_count(&self) -> usize {
        self.module_offsets
            .as_deref()
            .map_or(0, |o| o.iter().flatten().count())
    }

    /// The source path Metro's `x_metro_module_paths` gives module `module` of `file`'s segment (for messages).
    pub fn module_path(&self, file: MetroFile) -> Option<&str> {
        let module = file.module? as usize;
        let paths = match self.segment_space(file.segment)? {
            Space::Main => self.module_paths.as_deref(),
            Space::Segment(k) => self.segments[k].module_paths.as_deref(),
        };
        paths?.get(module)?.as_deref()
    }

    /// The space of segment `id` (0: the map itself); `None` when the map has no such segment.
    pub fn segment_space(&self, id: u32) -> Option<Space> {
        if id == 0 {
            return Some(Space::Main);
        }
        self.segments
            .iter()
            .position(|s| s.id == id)
            .map(Space::Segment)
    }

    /// `x_hermes_function_offsets` of one generated file (a segment's own map carries its own).
    pub fn hermes_function_offsets_in(&self, space: Space) -> Option<&Range<usize>> {
        match space {
            Space::Main => self.x_hermes_function_offsets.as_ref(),
            Space::Segment(k) => self.segments[k].hermes_function_offsets.as_ref(),
        }
    }

    /// The generated file `file` names in this map; `Err` says why there is none (a segment the map lacks).
    pub fn metro_space(&self, file: MetroFile) -> Result<Space, MetroPlaceError> {
        let Some(space) = self.segment_space(file.segment) else {
            let has = self.segment_ids();
            return Err(if has.is_empty() {
                MetroPlaceError::NoSegments {
                    segment: file.segment,
                }
            } else {
                MetroPlaceError::SegmentMissing {
                    segment: file.segment,
                    has,
                }
            });
        };
        Ok(space)
    }

    /// Where position `p` of the file `file` names is in this map: its space and its position there. `Err` says
    /// why the map cannot place it (a segment or module it does not have).
    pub fn metro_position(
        &self,
        file: MetroFile,
        p: GeneratedPosition,
    ) -> Result<(Space, GeneratedPosition), MetroPlaceError> {
        let space = self.metro_space(file)?;
        let Some(module) = file.module else {
            return Ok((space, p));
        };
        let offsets = match space {
            Space::Main => self.module_offsets.as_deref(),
            Space::Segment(k) => self.segments[k].module_offsets.as_deref(),
        };
        let segment = file.segment;
        let Some(offsets) = offsets else {
            return Err(MetroPlaceError::NoOffsets { module, segment });
        };
        match offsets.get(module as usize).copied().flatten() {
            Some(line) => Ok((
                space,
                GeneratedPosition {
                    line: p.line.saturating_add(line),
                    column: p.column,
                },
            )),
            None => Err(MetroPlaceError::ModuleMissing { module, segment }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_as_react_native_writes_them() {
        let m = |segment, module| Some(MetroFile { segment, module });
        for (name, want) in [
            ("12.js", m(0, Some(12))),
            ("0.js", m(0, Some(0))),
            ("seg-3.js", m(3, None)),
            ("seg-3_5.js", m(3, Some(5))),
            ("seg-0_7.js", m(0, Some(7))),
            ("index.bundle", None),
            ("12.jsx", None),
            ("a12.js", None),
            ("seg-.js", None),
            ("seg-3_.js", None),
            ("seg-x_1.js", None),
            ("/data/12.js", None),
            ("+1.js", None),
            ("99999999999.js", None),
        ] {
            assert_eq!(metro_file(name), want, "{name}");
        }
    }

    /// A RAM bundle map as Metro writes it: the startup code's index map nested in the first section, modules after.
    fn ram_map() -> SourceMapIndex {
        let text = r#"{"version":3,"sections":[
            {"offset":{"line":0,"column":0},"map":{"version":3,"sections":[
                {"offset":{"line":0,"column":0},"map":{"version":3,"sources":["prelude.js"],"names":[],"mappings":"AAAA"}},
                {"offset":{"line":1,"column":0},"map":{"version":3,"sources":["require.js"],"names":[],"mappings":"AAAA;AACA"}}]}},
            {"offset":{"line":3,"column":0},"map":{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAA;AACA,IAAI"}},
            {"offset":{"line":5,"column":0},"map":{"version":3,"sources":["b.js"],"names":[],"mappings":"AAAA;AAEA"}}],
            "x_facebook_offsets":[3,null,5],
            "x_facebook_segments":{"2":{"version":3,"sources":["seg2.js"],"names":[],"mappings":"AAAA;AACA"}}}"#;
        SourceMapIndex::from_bytes(text.as_bytes().to_vec()).expect("a valid RAM map")
    }

    fn at(
        index: &SourceMapIndex,
        file: &str,
        line: u32,
        column: u32,
    ) -> Result<(String, u32), String> {
        let f = metro_file(file).expect("a Metro file name");
        let (space, p) = index
            .metro_position(f, GeneratedPosition { line, column })
            .map_err(|e| e.to_string())?;
        let hit = index
            .lookup_in(
                space,
                p,
                crate::internal::map::compact::Bias::GreatestLowerBound,
            )
            .map_err(|e| e.to_string())?
            .and_then(|h| h.original)
            .ok_or("unmapped")?;
        Ok((hit.source_url.unwrap_or("").to_string(), hit.line))
    }

    #[test]
    fn a_module_wrapper_counted_twice_is_counted_once() {
        // Section 1 starts at column 28 (Metro's `wrapperEnd`); its map's first segment is exactly there when the map
        // covers the wrapper itself (`4B` = 28): the column is Metro's doubled offset. At 0 or elsewhere it is kept.
        let map = |first: &str| {
            format!(
                r#"{{"version":3,"sections":[{{"offset":{{"line":0,"column":0}},"map":{{"version":3,"sources":["p.js"],"names":[],"mappings":"AAAA"}}}},{{"offset":{{"line":1,"column":28}},"map":{{"version":3,"sources":["m.js"],"names":[],"mappings":"{first}AAA"}}}}],"x_facebook_offsets":[1]}}"#
            )
        };
        let start = |first: &str| {
            let index = SourceMapIndex::from_bytes(map(first).into_bytes()).unwrap();
            let doubled = index
                .warnings
                .iter()
                .any(|w| w.to_string().contains("counted twice"));
            (index.sections()[1].offset.column, doubled)
        };
        assert_eq!(start("4B"), (0, true));
        assert_eq!(start("A"), (28, false));
        assert_eq!(start("gC"), (28, false), "32: not where the wrapper ends");
        // Without x_facebook_offsets it is no RAM bundle, and nothing is changed.
        let plain = map("4B").replace(r#","x_facebook_offsets":[1]"#, "");
        let index = SourceMapIndex::from_bytes(plain.into_bytes()).unwrap();
        assert_eq!(index.sections()[1].offset.column, 28);
    }

    #[test]
    fn modules_and_segments_are_looked_up_where_the_map_places_them() {
        let index = ram_map();
        assert!(index.has_metro_files() && index.is_ram_bundle());
        assert_eq!(
            index.sections().len(),
            4,
            "the nested startup sections and the two modules"
        );
        assert_eq!(at(&index, "0.js", 1, 4), Ok(("a.js".into(), 1)));
        assert_eq!(at(&index, "2.js", 1, 0), Ok(("b.js".into(), 2)));
        assert_eq!(at(&index, "seg-2.js", 1, 0), Ok(("seg2.js".into(), 1)));
        assert!(at(&index, "1.js", 0, 0).unwrap_err().contains("module 1"));
        assert!(at(&index, "7.js", 0, 0).unwrap_err().contains("module 7"));
        assert!(at(&index, "seg-3.js", 0, 0)
            .unwrap_err()
            .contains("segments 2 only"));
        assert!(at(&index, "seg-2_1.js", 0, 0)
            .unwrap_err()
            .contains("no x_facebook_offsets"));
        // The main file's positions are not the segment's.
        let main = index
            .lookup(
                GeneratedPosition { line: 1, column: 0 },
                crate::internal::map::compact::Bias::GreatestLowerBound,
            )
            .unwrap()
            .and_then(|h| h.original)
            .unwrap();
        assert_eq!(main.source_url, Some("require.js"));
    }
}
