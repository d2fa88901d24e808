//! Where a frame's line says its file, line and column (`file:L:C`, `line N > eval`, …), and its function's name
//! split from the qualifiers engines put on it.

use super::{file_name_of, Precision};
use crate::map::index::GeneratedPosition;
use regex::Regex;
use std::ops::Range;
use std::sync::OnceLock;

pub(super) fn regex(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("valid regex"))
}

/// `url:L:C` at the end of `s`: (url, L, C, start of url in s).
pub(super) fn split_location(s: &str) -> Option<(&str, u32, u32)> {
    let (rest, col) = s.rsplit_once(':')?;
    let (url, line) = rest.rsplit_once(':')?;
    let line: u32 = line.parse().ok()?;
    let col: u32 = col.parse().ok()?;
    Some((url, line, col))
}

pub(super) fn one_based(line: u32, column: u32) -> Option<GeneratedPosition> {
    Some(GeneratedPosition {
        line: line.checked_sub(1)?,
        column: column.saturating_sub(1),
    })
}

pub(super) fn span_of(line: &str, part: &str) -> Range<usize> {
    let start = part.as_ptr() as usize - line.as_ptr() as usize;
    start..start + part.len()
}

pub(super) fn split_function(name: &str) -> (Option<String>, bool, bool) {
    let mut n = name.trim();
    let mut is_async = false;
    let mut is_new = false;
    if let Some(r) = n.strip_prefix("async ") {
        is_async = true;
        n = r;
    }
    if let Some(r) = n.strip_prefix("new ") {
        is_new = true;
        n = r;
    }
    ((!n.is_empty()).then(|| n.to_string()), is_async, is_new)
}

/// Where a frame's location text points: its file, line and column (or line only), in the trace's numbers.
pub(super) struct Location {
    pub(super) file: String,
    pub(super) line: u32,
    /// `None`: the trace gives no column (`fn@URL:61`, a Firefox eval chain's call site).
    pub(super) column: Option<u32>,
    /// The position is the call site of code made by `eval`.
    pub(super) in_eval: bool,
}

/// Reads a location as engines write it: `URL:L:C`; `URL:L` (a line only: Firefox before 30, Safari 6, PhantomJS, Opera
/// 11, whose URL must name a script file, so that `host:port` is never a line); Firefox's eval chain `URL line 310 >
/// eval line 4 > eval:2:17`, whose call site is `URL` line 310 (SpiderMonkey's `FormatIntroducedFilename` writes
/// `"%s line %s > %s"`, `js/src/vm/JSScript.cpp`: the line of the eval call, no column; `:2:17` is inside the eval'd
/// code); and Safari's `safari-extension:(//ID/path.js:120:8)`, whose scheme is `safari-extension://`.
pub(super) fn read_location(loc: &str) -> Option<Location> {
    let loc = loc.trim();
    if let Some(inner) = loc.find(":(//").filter(|_| loc.ends_with(')')) {
        let scheme = &loc[..inner];
        if !scheme.is_empty()
            && scheme
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        {
            return read_location(&format!("{scheme}://{}", &loc[inner + 4..loc.len() - 1]));
        }
    }
    static CHAIN: OnceLock<Regex> = OnceLock::new();
    if let Some(c) = regex(
        &CHAIN,
        r"^(\S.*?) line (\d+) > (?:eval|Function|Function\.prototype\.apply)\b",
    )
    .captures(loc)
    {
        return Some(Location {
            file: c[1].to_string(),
            line: c[2].parse().ok()?,
            column: None,
            in_eval: true,
        });
    }
    if let Some((url, l, c)) = split_location(loc) {
        return Some(Location {
            file: url.to_string(),
            line: l,
            column: Some(c),
            in_eval: false,
        });
    }
    let (url, l) = loc.rsplit_once(':')?;
    let l: u32 = l.parse().ok()?;
    // A line alone only after a script's path: `http://host:8080` and `v1.2:3` are not frames.
    let path = url.split_once("://").map_or(url, |(_, rest)| rest);
    let named = names_a_script(url) && (path.contains('/') || !url.contains("://"));
    (named && !url.is_empty() && !url.contains(char::is_whitespace)).then(|| Location {
        file: url.to_string(),
        line: l,
        column: None,
        in_eval: false,
    })
}

/// A frame's generated position from a location: lines and columns 1-based as written (the engines' own; see the
/// table), a line-only location at column 0 with [`Precision::Line`].
pub(super) fn position_of(
    loc: &Location,
) -> (Option<(u32, u32)>, Option<GeneratedPosition>, Precision) {
    match loc.column {
        Some(c) => (
            Some((loc.line, c)),
            one_based(loc.line, c),
            Precision::Column,
        ),
        None => (
            Some((loc.line, 0)),
            loc.line
                .checked_sub(1)
                .map(|line| GeneratedPosition { line, column: 0 }),
            Precision::Line,
        ),
    }
}

/// Whether a URL found inside free text names a script (a path, or a script's extension), not a host and port or a
/// version.
pub(super) fn names_a_script(url: &str) -> bool {
    let name = file_name_of(url);
    url.contains('/')
        || url.contains('\\')
        || [
            ".js",
            ".mjs",
            ".cjs",
            ".jsx",
            ".ts",
            ".tsx",
            ".bundle",
            ".jsbundle",
            ".hbc",
        ]
        .iter()
        .any(|ext| name.ends_with(ext))
}
