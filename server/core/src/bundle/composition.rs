//! What a bundle is made of: every byte of the generated file attributed to the original source of the mapping that
//! covers it, in one pass over the map's segments and the file's text.
//!
//! The rules are source-map-explorer's, so that results compare (`tests/explore.rs` checks them against it):
//! - a mapping covers its line from its generated column to the next mapping's column (or the line's end); among
//!   mappings tied at one column the last in mozilla/source-map's order ([`tie_key`]) takes the bytes;
//! - bytes before a line's first mapping or on lines no mapping reaches are unmapped; bytes under a 1-field segment
//!   (a mapping to no source) are mapped, to "no source" (source-map-explorer's `[no source]`);
//! - line terminators (`\n`, `\r\n`) are "EOLs";
//! - the last `//# sourceMappingURL=` comment (`//@` too, and `/*# … */`), wherever it stands on its line, from `//`
//!   to the line's end, is the comment's;
//! - sizes are UTF-8 bytes; the map's columns are UTF-16 code units and are converted.
//!
//! Cost: one `u64` per source, plus the segments of one line at a time.

use crate::bundle::columns::LineColumns;
use crate::map::compact::tie_key;
use crate::map::index::{SourceId, SourceMapIndex};
use crate::map::segment::{Segment, SegmentOriginal};
use crate::MapError;

/// Byte counts of one generated file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Composition {
    /// The file's size.
    pub total_bytes: u64,
    /// Bytes some mapping covers: every source's, and those under 1-field segments.
    pub mapped_bytes: u64,
    /// Bytes before a line's first mapping or on lines no mapping reaches (what no other count takes).
    pub unmapped_bytes: u64,
    /// Line terminators (`\n`, `\r\n`).
    pub eol_bytes: u64,
    /// The last `sourceMappingURL` comment, from its `//` to its line's end.
    pub source_map_comment_bytes: u64,
    /// Bytes under 1-field segments (counted as mapped).
    pub no_source_bytes: u64,
    /// Bytes attributed to each source, indexed by [`SourceId`].
    pub source_bytes: Vec<u64>,
}

impl Composition {
    /// The bytes no source owns, with source-map-explorer's names for them, in its order.
    pub fn other_parts(&self) -> [(&'static str, u64); 4] {
        [
            ("[sourceMappingURL]", self.source_map_comment_bytes),
            ("[no source]", self.no_source_bytes),
            ("[unmapped]", self.unmapped_bytes),
            ("[EOLs]", self.eol_bytes),
        ]
    }

    /// Sources with bytes, largest first (ties by id).
    pub fn sources_by_size(&self) -> Vec<(SourceId, u64)> {
        let mut out: Vec<(SourceId, u64)> = self
            .source_bytes
            .iter()
            .enumerate()
            .filter(|(_, &b)| b > 0)
            .map(|(i, &b)| (SourceId(i as u32), b))
            .collect();
        out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }
}

/// Sources grouped by [`package_of`] their name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    /// The package's name ([`package_of`]).
    pub name: String,
    /// Bytes of all its sources.
    pub bytes: u64,
    /// Its sources, largest first.
    pub files: Vec<(SourceId, u64)>,
}

impl Composition {
    /// Packages largest first (ties by name), `name_of` naming each source.
    pub fn packages<'a>(&self, name_of: impl Fn(SourceId) -> &'a str) -> Vec<Package> {
        let sources = self.sources_by_size();
        let packages = Packages::of(sources.iter().map(|&(id, _)| name_of(id)));
        let mut by_package: std::collections::BTreeMap<String, Vec<(SourceId, u64)>> =
            std::collections::BTreeMap::new();
        for (id, bytes) in sources {
            by_package
                .entry(packages.of_source(name_of(id)))
                .or_default()
                .push((id, bytes));
        }
        let mut out: Vec<Package> = by_package
            .into_iter()
            .map(|(name, files)| Package {
                name,
                bytes: files.iter().map(|f| f.1).sum(),
                files,
            })
            .collect();
        out.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.name.cmp(&b.name)));
        out
    }
}

/// How one map's sources are grouped into packages: the one rule of `explore` (a bundle's composition) and
/// `profile --by package`. Absolute build paths (Metro's `/home/ci/app/src/a.js`) are named below the folder common
/// to all of the map's absolute sources, the project's root, so the project's own folders show (`src`), not the
/// first folder of the build machine's path (`home`, `tmp`); then [`package_of`].
#[derive(Debug, Clone, Default)]
pub struct Packages {
    /// The folder common to the map's absolute sources (ending in `/`); empty when it has none.
    root: String,
}

impl Packages {
    /// The rule for a map whose sources are named `names` (all of them: the root is the map's, not a subset's).
    pub fn of<'a>(names: impl Iterator<Item = &'a str>) -> Packages {
        Packages {
            root: common_folder(names.filter(|n| n.starts_with('/'))),
        }
    }

    /// The rule for `index`'s sources.
    pub fn of_index(index: &SourceMapIndex) -> Packages {
        Packages::of(index.sources().iter().filter_map(|s| s.url.as_deref()))
    }

    /// The package of the source named `name`.
    pub fn of_source(&self, name: &str) -> String {
        let relative = name
            .strip_prefix(self.root.as_str())
            .filter(|_| !self.root.is_empty())
            .unwrap_or(name);
        package_of(relative)
    }
}

/// The longest folder (ending in `/`) that holds every path of `paths`; empty when there are none.
fn common_folder<'a>(mut paths: impl Iterator<Item = &'a str>) -> String {
    let Some(first) = paths.next() else {
        return String::new();
    };
    let mut common = &first[..first.rfind('/').map_or(0, |i| i + 1)];
    for p in paths {
        while !p.starts_with(common) {
            common = &common[..common[..common.len() - 1].rfind('/').map_or(0, |i| i + 1)];
        }
    }
    common.to_string()
}

/// The package a source belongs to, for grouping: `node_modules/<name>` or `node_modules/@scope/name` (the last
/// `node_modules` in the path: the package whose code it is), else the first folder of the project's own path
/// (`src`), with URL schemes (`webpack://app/`), `./` and `../` dropped; a file at the top is its own group.
pub fn package_of(source: &str) -> String {
    // A URL's authority (webpack's namespace in `webpack://app/./src/a.js`) is not a folder.
    let path = source.split_once("://").map_or(source, |(_, rest)| {
        rest.split_once('/').map_or("", |(_, path)| path)
    });
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let parts: Vec<&str> = path
        .split(['/', '\\'])
        .filter(|p| !p.is_empty() && *p != "." && *p != "..")
        .collect();
    if let Some(i) = parts.iter().rposition(|p| *p == "node_modules") {
        return match parts.get(i + 1) {
            Some(scope) if scope.starts_with('@') => match parts.get(i + 2) {
                Some(name) => format!("node_modules/{scope}/{name}"),
                None => format!("node_modules/{scope}"),
            },
            Some(name) => format!("node_modules/{name}"),
            None => "node_modules".into(),
        };
    }
    match parts.as_slice() {
        [] => "(unnamed)".into(),
        [file] => (*file).to_string(),
        [first, ..] => (*first).to_string(),
    }
}

/// Each source's name as composition results show it: its `sources` entry with `sourceRoot` applied, exactly, or
/// `(source N)` for a `null` entry.
pub fn source_names(index: &SourceMapIndex) -> Vec<String> {
    index
        .sources()
        .iter()
        .enumerate()
        .map(|(i, s)| {
            s.url
                .as_deref()
                .map_or_else(|| format!("(source {i})"), str::to_string)
        })
        .collect()
}

/// One segment of the line being measured: its column, and the global source it maps to (`None`: no source).
#[derive(Debug, Clone, Copy)]
struct LineSegment {
    column: u32,
    source: Option<u32>,
    key: (bool, u32, u32, u32, bool, u32),
}

/// An index map with at least this much `mappings` is composed on two threads, split at a section that starts a
/// line: the sections before it cover the lines before it (sections do not overlap), so each half measures its own
/// lines and the sums are added. "Composition on two threads (issue 34)" in docs/PERFORMANCE.md has the figures.
const TWO_THREADS_AFTER_BYTES: usize = 4 << 20;

/// Attributes the bytes of `text`, the generated file `index` describes.
pub fn compose(index: &SourceMapIndex, text: &[u8]) -> Result<Composition, MapError> {
    compose_with(index, text, TWO_THREADS_AFTER_BYTES)
}

/// [`compose`], on two threads from `two_threads_after` bytes of `mappings`.
fn compose_with(
    index: &SourceMapIndex,
    text: &[u8],
    two_threads_after: usize,
) -> Result<Composition, MapError> {
    let comment = source_mapping_url_comment(text);
    let lines = split_lines(text);
    let sections = index.sections();
    let n = sections.len();
    // The section nearest the middle (by `mappings` bytes) that starts at column 0 of a line.
    let split = (index.mappings_bytes() >= two_threads_after && n >= 2)
        .then(|| {
            let half = index.mappings_bytes() / 2;
            let mut sum = 0;
            let middle = sections
                .iter()
                .position(|s| {
                    sum += s.mappings_len();
                    sum >= half
                })
                .unwrap_or(0);
            (middle.max(1)..n)
                .chain((1..middle.max(1)).rev())
                .find(|&k| sections[k].offset.column == 0)
        })
        .flatten();
    let parts = match split {
        Some(k) => {
            let at_line = (sections[k].offset.line as usize).min(lines.len());
            let (a, b) = std::thread::scope(|scope| {
                let second = scope.spawn(|| {
                    compose_part(
                        index,
                        text,
                        &lines,
                        comment.clone(),
                        k..n,
                        at_line..lines.len(),
                    )
                });
                let first = compose_part(index, text, &lines, comment.clone(), 0..k, 0..at_line);
                (first, second.join().expect("composition thread"))
            });
            vec![a?, b?]
        }
        None => vec![compose_part(
            index,
            text,
            &lines,
            comment,
            0..n,
            0..lines.len(),
        )?],
    };
    let mut out = Composition {
        total_bytes: text.len() as u64,
        source_bytes: vec![0; index.sources().len()],
        ..Composition::default()
    };
    for part in parts {
        for (total, bytes) in out.source_bytes.iter_mut().zip(&part.source_bytes) {
            *total += bytes;
        }
        out.no_source_bytes += part.no_source_bytes;
        out.eol_bytes += part.eol_bytes;
        out.source_map_comment_bytes += part.source_map_comment_bytes;
    }
    out.mapped_bytes = out.source_bytes.iter().sum::<u64>() + out.no_source_bytes;
    out.unmapped_bytes = out
        .total_bytes
        .saturating_sub(out.mapped_bytes + out.eol_bytes + out.source_map_comment_bytes);
    Ok(out)
}

/// The byte counts of the lines in `line_range`, from the segments of the sections in `section_range` (which hold
/// every segment on those lines).
fn compose_part(
    index: &SourceMapIndex,
    text: &[u8],
    lines: &[(usize, usize, usize)],
    comment: Option<std::ops::Range<usize>>,
    section_range: std::ops::Range<usize>,
    line_range: std::ops::Range<usize>,
) -> Result<Composition, MapError> {
    let mut out = Composition {
        source_bytes: vec![0; index.sources().len()],
        ..Composition::default()
    };
    let mut line_segments: Vec<LineSegment> = Vec::new();
    let mut current_line = line_range.start as u32;
    let mut measured = line_range.start;
    let last_line = line_range.end;
    let mut measure_until = |upto: usize,
                             segments: &mut Vec<LineSegment>,
                             out: &mut Composition,
                             line_of_segments: u32| {
        // Lines before `line_of_segments` that had no segments, then that line with its segments.
        while measured < upto.min(last_line) {
            let (start, end, eol) = lines[measured];
            let with = if measured as u32 == line_of_segments {
                &mut segments[..]
            } else {
                &mut [][..]
            };
            measure_line(&text[start..end], start, with, comment.clone(), out);
            out.eol_bytes += eol as u64;
            measured += 1;
        }
        segments.clear();
    };
    let mut first_error = None;
    // Per section of this part, each local source's global id when it has a URL (a `null` source is "no source").
    let first_section = section_range.start;
    let named: Vec<Vec<Option<u32>>> = index.sections()[section_range.clone()]
        .iter()
        .map(|s| {
            s.source_ids()
                .iter()
                .map(|&id| index.source(id).url.is_some().then_some(id.0))
                .collect()
        })
        .collect();
    let sections = index.sections();
    // Raw segments (no `MappingHit` per segment: its name and URL lookups were a tenth of a one-line bundle's run).
    index
        .for_each_raw_segment_once_in(section_range, |section, raw| {
            let at = sections[section].to_global(raw.line, raw.column);
            let line = at.line;
            if line != current_line && !line_segments.is_empty() {
                measure_until(
                    current_line as usize + 1,
                    &mut line_segments,
                    &mut out,
                    current_line,
                );
            }
            current_line = line;
            let seg = Segment {
                line: 0,
                column: at.column,
                offset: 0,
                original: raw.original.map(|o| SegmentOriginal {
                    source: sections[section].source_ids()[o.source as usize].0,
                    line: o.line,
                    column: o.column,
                    name: None,
                }),
            };
            line_segments.push(LineSegment {
                column: at.column,
                source: raw
                    .original
                    .and_then(|o| named[section - first_section][o.source as usize]),
                key: tie_key(&seg),
            });
        })
        .map_err(|e| first_error = Some(e))
        .ok();
    if let Some(e) = first_error {
        return Err(e);
    }
    if !line_segments.is_empty() {
        measure_until(
            current_line as usize + 1,
            &mut line_segments,
            &mut out,
            current_line,
        );
    }
    measure_until(last_line, &mut line_segments, &mut out, u32::MAX);
    Ok(out)
}

/// The byte range of the last `sourceMappingURL` comment of `text`: from its `//` (or `/*`) to the end of its line
/// (or the comment's `*/`). Code may precede it on its line; no space is needed after `#` (ECMA-426).
fn source_mapping_url_comment(text: &[u8]) -> Option<std::ops::Range<usize>> {
    let key = b"sourceMappingURL=";
    let mut end = text.len();
    while let Some(at) = memchr::memmem::rfind(&text[..end], key) {
        end = at;
        let mut i = at;
        while i > 0 && matches!(text[i - 1], b' ' | b'\t') {
            i -= 1;
        }
        if i < 3 || !matches!(text[i - 1], b'#' | b'@') {
            continue;
        }
        let open = &text[i - 3..i - 1];
        if open != b"//" && open != b"/*" {
            continue;
        }
        let start = i - 3;
        let line_end = text[at..]
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
            .map_or(text.len(), |n| at + n);
        let stop = if open == b"/*" {
            memchr::memmem::find(&text[at..line_end], b"*/").map_or(line_end, |n| at + n + 2)
        } else {
            line_end
        };
        return Some(start..stop);
    }
    None
}

/// `(start, end, terminator length)` of each line, terminators `\n` and `\r\n`.
fn split_lines(text: &[u8]) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in memchr::memchr_iter(b'\n', text) {
        let crlf = i > start && text[i - 1] == b'\r';
        let end = if crlf { i - 1 } else { i };
        out.push((start, end, i + 1 - end));
        start = i + 1;
    }
    out.push((start, text.len(), 0));
    out
}

/// Attributes one line's bytes (`line` starts at byte `at` of the file) by its segments.
fn measure_line(
    line: &[u8],
    at: usize,
    order: &mut [LineSegment],
    comment: Option<std::ops::Range<usize>>,
    out: &mut Composition,
) {
    // Segments by column, ties in mozilla's order: the last of a tie takes the bytes. Bundlers write them in that
    // order already; a sort is paid only where they do not.
    if !order.is_sorted_by_key(|a| (a.column, a.key)) {
        order.sort_by_key(|a| (a.column, a.key));
    }
    let order = &*order;
    let byte_at = LineColumns::new(line);
    // The comment's bytes on this line are the comment's, whatever maps there.
    let in_comment = |from: usize, to: usize| -> usize {
        comment.as_ref().map_or(0, |c| {
            let (s, e) = (c.start.max(at + from), c.end.min(at + to));
            e.saturating_sub(s)
        })
    };
    // Each run of segments at one column: its last takes the bytes up to the next run's column (one pass, so a line
    // of many ties stays linear).
    let mut i = 0;
    while i < order.len() {
        let mut last = i;
        while order
            .get(last + 1)
            .is_some_and(|n| n.column == order[i].column)
        {
            last += 1;
        }
        let seg = &order[last];
        let next_column = order.get(last + 1).map(|n| n.column);
        i = last + 1;
        let from = byte_at.byte_or_end(seg.column);
        let to = next_column.map_or(line.len(), |c| byte_at.byte_or_end(c));
        let bytes = to.saturating_sub(from);
        let comment_bytes = in_comment(from, to);
        match seg.source {
            Some(source) => out.source_bytes[source as usize] += (bytes - comment_bytes) as u64,
            None if seg.key.0 => out.no_source_bytes += (bytes - comment_bytes) as u64,
            None => {}
        }
    }
    out.source_map_comment_bytes += in_comment(0, line.len()) as u64;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(json: serde_json::Value) -> SourceMapIndex {
        SourceMapIndex::from_bytes(json.to_string().into_bytes()).unwrap()
    }

    /// Two halves split at a section that starts a line count every byte as one pass does; a section that starts
    /// inside a line is no split point.
    #[test]
    fn two_threads_count_as_one() {
        let section = |line: u32, column: u32, source: &str| {
            serde_json::json!({"offset": {"line": line, "column": column}, "map": {"version": 3, "sources": [source],
                   "names": [], "mappings": "AAAA,IAAI;AACA"}})
        };
        let map = index(serde_json::json!({"version": 3, "sections": [
            section(0, 0, "a.js"), section(2, 0, "b.js"), section(3, 5, "c.js"), section(5, 0, "d.js"),
            section(7, 0, "e.js")
        ]}));
        let text = b"aaaa bbbb\ncc\nbbbbbbbb\nbbb ccccccc\ncc\ndddd dd\nd\neeee\n//# sourceMappingURL=x.map\n";
        let one = compose_with(&map, text, usize::MAX).unwrap();
        let two = compose_with(&map, text, 0).unwrap();
        assert_eq!(format!("{one:?}"), format!("{two:?}"));
        assert_eq!(
            one.mapped_bytes + one.unmapped_bytes + one.eol_bytes + one.source_map_comment_bytes,
            text.len() as u64
        );
    }

    #[test]
    fn every_byte_is_counted_once() {
        // Line 0: "abcdef" — a at 0 → a.js, c at 2 → b.js (runs to the end). Line 1: "xyz" unmapped before 1.
        let map = index(serde_json::json!({
            "version": 3, "sources": ["a.js", "b.js"], "names": [], "mappings": "AAAA,ECAA;CDAA"
        }));
        let text = b"abcdef\nxyz\n//# sourceMappingURL=x.map\n";
        let c = compose(&map, text).unwrap();
        assert_eq!(c.source_bytes, vec![2 + 2, 4]);
        assert_eq!(c.eol_bytes, 3);
        assert_eq!(
            c.source_map_comment_bytes,
            "//# sourceMappingURL=x.map".len() as u64
        );
        assert_eq!(c.unmapped_bytes, 1);
        assert_eq!(
            c.mapped_bytes + c.unmapped_bytes + c.eol_bytes + c.source_map_comment_bytes,
            text.len() as u64
        );
    }

    #[test]
    fn columns_are_utf16_and_sizes_utf8() {
        // "é𝒳=1" : é is 1 unit / 2 bytes, 𝒳 2 units / 4 bytes; the second segment starts at unit 3 ("=").
        let map = index(serde_json::json!({
            "version": 3, "sources": ["a.js", "b.js"], "names": [], "mappings": "AAAA,GCAA"
        }));
        let c = compose(&map, "é𝒳=1".as_bytes()).unwrap();
        assert_eq!(c.source_bytes, vec![6, 2]);
    }

    #[test]
    fn packages() {
        for (source, package) in [
            ("../node_modules/lodash/lodash.js", "node_modules/lodash"),
            (
                "webpack://app/./node_modules/@babel/runtime/helpers/x.js",
                "node_modules/@babel/runtime",
            ),
            (
                "/home/ci/app/node_modules/a/node_modules/b/index.js",
                "node_modules/b",
            ),
            ("webpack://app/./src/index.js", "src"),
            ("../src/orders.js", "src"),
            ("index.js", "index.js"),
        ] {
            assert_eq!(package_of(source), package, "{source}");
        }
    }

    #[test]
    fn absolute_build_paths_group_below_the_project_root() {
        let c = Composition {
            source_bytes: vec![10, 20, 5],
            ..Composition::default()
        };
        let names = [
            "/home/ci/build/MyApp/src/App.js",
            "/home/ci/build/MyApp/node_modules/react/index.js",
            "/home/ci/build/MyApp/src/utils/math.js",
        ];
        let packages: Vec<(String, u64)> = c
            .packages(|id| names[id.0 as usize])
            .into_iter()
            .map(|p| (p.name, p.bytes))
            .collect();
        assert_eq!(
            packages,
            vec![("node_modules/react".into(), 20), ("src".into(), 15)]
        );
        assert_eq!(common_folder(["/a/b/c.js", "/a/d.js"].into_iter()), "/a/");
        assert_eq!(common_folder(["/a/b/c.js"].into_iter()), "/a/b/");
    }

    #[test]
    fn a_comment_after_code_and_bytes_of_no_source() {
        // "a;b;//# sourceMappingURL=m" : a → a.js, then a 1-field segment at 2 ("b;" and the comment).
        let map = index(serde_json::json!({
            "version": 3, "sources": ["a.js"], "names": [], "mappings": "AAAA,E"
        }));
        let text = b"a;b;//# sourceMappingURL=m";
        let c = compose(&map, text).unwrap();
        assert_eq!(c.source_bytes, vec![2]);
        assert_eq!(c.no_source_bytes, 2, "`b;` is under the 1-field segment");
        assert_eq!(
            c.source_map_comment_bytes,
            "//# sourceMappingURL=m".len() as u64
        );
        assert_eq!(c.mapped_bytes, 4);
        assert_eq!(c.unmapped_bytes, 0);
        // Only the last comment counts; `/*# … */` too.
        let text = b"a;/*# sourceMappingURL=old */\n//# sourceMappingURL=new\n";
        let c = compose(&map, text).unwrap();
        assert_eq!(
            c.source_map_comment_bytes,
            "//# sourceMappingURL=new".len() as u64
        );
    }

    #[test]
    fn crlf_is_one_eol_of_two_bytes() {
        let map = index(serde_json::json!({
            "version": 3, "sources": ["a.js"], "names": [], "mappings": "AAAA;AACA"
        }));
        let c = compose(&map, b"ab\r\ncd").unwrap();
        assert_eq!((c.source_bytes[0], c.eol_bytes), (4, 2));
    }
}
