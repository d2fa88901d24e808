//! Frames inside other text: after a logger's prefix, in Vitest's lines, and before node's `util.inspect` suffixes.

use super::location::{names_a_script, position_of, read_location, regex, split_function};
use super::other_engines::parse_at_sign;
use super::v8::parse_v8;
use super::{FrameFormat, StackFrame};
use regex::Regex;
use std::ops::Range;
use std::sync::OnceLock;

/// The length of the known prefixes at the start of `line` (see the module documentation), stripped repeatedly.
pub(super) fn known_prefix(line: &str) -> usize {
    static PREFIXES: OnceLock<Vec<Regex>> = OnceLock::new();
    let prefixes = PREFIXES.get_or_init(|| {
        [
            // Kubernetes CRI: TIME STREAM TAG (kubelet logs.go parseCRILog).
            r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}) (?:stdout|stderr) [FP] ",
            // An RFC 3339 / ISO 8601 time (docker logs -t; loggers), bracketed or not.
            r"^\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?\s+",
            // logcat threadtime: MM-DD HH:MM:SS.mmm PID TID LEVEL TAG: (logprint.cpp), the year optional.
            r"^(?:\d{4}-)?\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}\s+\d+\s+\d+ [VDIWEFSA] [^:]*?: ?",
            // logcat brief: LEVEL/TAG( PID): (logprint.cpp).
            r"^[VDIWEFSA]/[^(:]*\(\s*\d+\): ?",
            // Quotes.
            r"^[ \t]*>+ ?",
        ]
        .iter()
        .map(|p| Regex::new(p).expect("valid regex"))
        .collect()
    });
    let mut at = 0;
    'strip: for _ in 0..8 {
        for re in prefixes {
            if let Some(m) = re.find(&line[at..]) {
                if !m.is_empty() {
                    at += m.end();
                    continue 'strip;
                }
            }
        }
        break;
    }
    at
}

/// A frame parsed from `line[at..]` (whole: to the end of the line), its spans moved into `line`.
pub(super) fn frame_at(
    line: &str,
    at: usize,
    parse: impl Fn(&str) -> Option<StackFrame>,
) -> Option<StackFrame> {
    let mut f = parse(&line[at..])?;
    let shift = |r: Range<usize>| r.start + at..r.end + at;
    f.function_span = f.function_span.map(shift);
    f.location_span = f.location_span.map(shift);
    f.frame_span = shift(f.frame_span);
    f.raw = line.to_string();
    Some(f)
}

/// The longest frame looked for inside free text (after an unknown prefix), URL included: a V8 frame there runs to
/// the line's end, so only an `at ` this near the end can start one, and a `fn@url:L:C` word is no longer. Without
/// the bound every `at ` and every word with an `@` of a minified bundle's one long line was parsed to the line's
/// end: `textDocument/documentLink` took 9.2–9.9 s on `@babel/standalone`'s 3.2 MB `babel.min.js` (issue 56).
pub const MAX_EMBEDDED_FRAME_BYTES: usize = 8 << 10;

/// A frame after an unknown prefix: `at …` after a space (or `:`), or a `fn@url:L:C` word; it must name a script.
pub(super) fn embedded_frame(line: &str, from: usize) -> Option<StackFrame> {
    let mut window = line
        .len()
        .saturating_sub(MAX_EMBEDDED_FRAME_BYTES)
        .max(from);
    while !line.is_char_boundary(window) {
        window += 1;
    }
    let text = &line[from..];
    let bytes = text.as_bytes();
    let near_end = window - from;
    // Each `at ` is read to the line's end, so a window dense with them cost its length times their number (18 µs a
    // byte on a 16 KiB line of ` at …`, `tests/scan_linear.rs`). A V8 frame ends the line with `)` or a location's
    // digit, or holds Firefox's `X line N > eval` chain ([`parse_v8`], [`read_location`]): without one of those no
    // `at ` of the line starts a frame.
    let tail = line.trim_end();
    let may_end_a_v8_frame = tail.ends_with(')')
        || tail.ends_with(|c: char| c.is_ascii_digit())
        || line[window..].contains(" line ");
    let candidates = if may_end_a_v8_frame {
        text[near_end..].match_indices("at ").collect()
    } else {
        Vec::new()
    };
    for (i, _) in candidates {
        let i = near_end + i;
        if i > 0 && !matches!(bytes[i - 1], b' ' | b'\t' | b':' | b'|' | b']') {
            continue;
        }
        if let Some(f) = frame_at(line, from + i, parse_v8) {
            if f.native || f.file.as_deref().is_some_and(names_a_script) {
                return Some(f);
            }
        }
    }
    let mut start = 0;
    for word in text.split_inclusive([' ', '\t']) {
        let w = word.trim_end();
        if w.len() > 2 && w.len() <= MAX_EMBEDDED_FRAME_BYTES && w.contains('@') {
            if let Some(f) = frame_at(&line[..from + start + w.len()], from + start, parse_at_sign)
            {
                if f.format == FrameFormat::AtSign && f.file.as_deref().is_some_and(names_a_script)
                {
                    let mut f = f;
                    f.raw = line.to_string();
                    return Some(f);
                }
            }
        }
        start += word.len();
    }
    None
}

/// Vitest's frame line (see the table): ` ❯ fn path:L:C` or ` ❯ path:L:C`, a script's path.
pub(super) fn parse_vitest(line: &str) -> Option<StackFrame> {
    static VITEST: OnceLock<Regex> = OnceLock::new();
    let c = regex(&VITEST, r"^\s*❯ (?:(\S.*?) )?(\S+:\d+:\d+)\s*$").captures(line)?;
    let loc = c.get(2)?;
    let at = read_location(loc.as_str()).filter(|l| names_a_script(&l.file) && !l.in_eval)?;
    let name = c.get(1);
    let (function, is_async, is_constructor) =
        name.map_or((None, false, false), |n| split_function(n.as_str()));
    let (written, generated, precision) = position_of(&at);
    Some(StackFrame {
        raw: line.to_string(),
        format: FrameFormat::Vitest,
        function,
        is_async,
        is_constructor,
        file: Some(at.file),
        written,
        generated,
        native: false,
        function_span: name.map(|n| n.range()),
        location_span: Some(loc.range()),
        frame_span: 0..line.len(),
        precision,
        in_eval: false,
        as_written: None,
    })
}

/// Where node's `util.inspect` suffix of a frame line starts (` {`, or `,`; see the module documentation), when the
/// line ends with one after a frame's end (`)` or a location's digit).
pub(super) fn inspect_suffix(line: &str) -> Option<usize> {
    let body = line.trim_end();
    let cut = body
        .strip_suffix(" {")
        .or_else(|| body.strip_suffix(','))?
        .trim_end();
    cut.ends_with(|c: char| c == ')' || c.is_ascii_digit())
        .then_some(cut.len())
}
