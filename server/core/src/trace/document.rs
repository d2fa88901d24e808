//! A trace as it was found: plain text (any line may carry a log prefix: `stack.rs`), JSON log lines whose string
//! values hold a stack or a frame (pino's `err.stack`, winston's `stack`, Bunyan's `err.stack`, Google Cloud
//! Logging's `message`/`stack_trace`, Docker's json-file `log` lines), or a crash reporter's event (Sentry, Bugsnag),
//! each read by its documented shape.
//!
//! [`TraceDocument::parse`] gives the frames as [`StackLine`]s for `symbolicate`; [`TraceDocument::render`] puts the
//! symbolicated lines back into the same shape: text keeps every line and what surrounds each frame, a JSON line
//! stays the same bytes but for the string literals that held frames (so it is still valid JSON, its keys in their
//! order), and an event comes back as the same JSON with each frame's original written in and the minified values
//! kept beside them.
//!
//! Event conventions (the one table of `stack.rs` has the text formats):
//!
//! | event | frames | line | column | established by |
//! |---|---|---|---|---|
//! | Sentry | `exception.values[].stacktrace.frames[]`: `abs_path` (else `filename`), `lineno`, `colno`, `function`; oldest first | 1-based | 1-based | Sentry's developer docs, "Stack Trace Interface" (`lineno`, `colno`: "starting at 1"); sentry-javascript's stack parsers pass V8's numbers through |
//! | Bugsnag | `events[].exceptions[].stacktrace[]`: `file`, `lineNumber`, `columnNumber`, `method`; innermost first | 1-based | 1-based | Bugsnag's Error Reporting API (payload version 4); bugsnag-js copies error-stack-parser's numbers (as the engine printed them) |
//!
//! Written back: a Sentry event as Sentry stores it once processed (each exception's frames as sent kept in its
//! `raw_stacktrace`; each answered frame's `abs_path`, `filename`, `lineno`, `colno`, `function`, `data.symbolicated`,
//! and `context_line`, `pre_context`, `post_context` when its source is known: `event_context`); Bugsnag's `file`,
//! `lineNumber`, `columnNumber`, `method` (the minified ones in `minified`).

use std::ops::Range;
use std::sync::Arc;

use serde_json::{json, Value};

use crate::trace::event_context::LinedText;
use crate::trace::event_conventions::joined_to_url;
pub use crate::trace::event_conventions::{EventKind, ANOTHER_BUILD};
use crate::trace::event_json;
pub use crate::trace::event_json::{EventText, WrittenFrames};
pub use crate::trace::kept_objects::KeptObjects;
use crate::trace::stack::{
    lines_of, parse_line, parse_metro_value, FrameFormat, PlainInput, Precision, StackFrame,
    StackLine,
};
use crate::trace::symbolicate::{render_frame, SymbolicatedFrame, SymbolicatedLine, TextOptions};
use crate::GeneratedPosition;

/// One input line (text, or a JSON value) and where its frames are in [`TraceDocument::lines`].
#[derive(Debug, Clone)]
enum Piece {
    /// A line of text: `lines[index]`.
    Line(usize),
    /// A JSON text (a line of NDJSON, or the whole input) and its string literals that hold frames: the literal's
    /// byte range, the lines of its value in `lines`, and whether the value ended with a newline.
    Json {
        text: String,
        strings: Vec<(Range<usize>, Range<usize>, bool)>,
    },
}

#[derive(Debug, Clone)]
enum Shape {
    Pieces(Vec<Piece>),
    /// The event, and the JSON pointer of each frame object, in `lines` order.
    Event {
        kind: EventKind,
        value: Value,
        frames: Vec<String>,
    },
    /// An event of the usual shape, kept as its text (`event_json`).
    EventText(EventText),
    /// Metro's `/symbolicate` JSON (its own rendering: the frames as text).
    Metro,
}

/// See the module documentation.
#[derive(Debug, Clone)]
pub struct TraceDocument {
    /// The frames and text lines, in input order, for `symbolicate`.
    pub lines: Vec<StackLine>,
    shape: Shape,
    /// Whether the input ended with a newline.
    trailing_newline: bool,
}

/// The text of an event's number field.
/// What a report says about one file its frames name (see [`TraceDocument::reported_files`]): evidence of which
/// build ran, checked against the bundle chosen for the file (`bundle::resolve`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReportedFile {
    /// The debug ID of the file's build (normalized).
    pub debug_id: Option<String>,
    /// Lines of the file as the reporter read them: (0-based line, text, possibly cut with `{snip}`); shared with the
    /// frame objects read on this thread, whose lines recur in a pipeline's events.
    pub lines: Vec<(u32, Arc<str>)>,
}

/// The release an event came from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Release {
    /// Sentry's `release` (`shop@1.0.0`), Bugsnag's `app.version`.
    pub name: String,
    /// Sentry's `dist` (a build of the release: `"1"`, a platform), when given.
    pub dist: Option<String>,
}

fn number(v: &Value) -> Option<u32> {
    v.as_u64().and_then(|n| u32::try_from(n).ok())
}

/// An event's frame (`raw`: its text).
fn event_frame(kind: EventKind, get: impl Fn(&str) -> Option<Value>, raw: String) -> StackFrame {
    let text = |v: Option<Value>| match v {
        Some(Value::String(s)) => Some(s),
        _ => None,
    };
    let n = |key: &str| get(key).as_ref().and_then(number);
    let (file, line, column, function) = match kind {
        EventKind::Sentry => (
            text(get("abs_path").or_else(|| get("filename"))),
            n("lineno"),
            n("colno"),
            text(get("function")),
        ),
        EventKind::Bugsnag => (
            text(get("file")),
            n("lineNumber"),
            n("columnNumber"),
            text(get("method")),
        ),
    };
    // Both: 1-based lines and columns (the module table).
    let generated = match (line, column) {
        (Some(l), Some(c)) => l.checked_sub(1).map(|line| GeneratedPosition {
            line,
            column: c.saturating_sub(1),
        }),
        _ => None,
    };
    StackFrame {
        raw,
        format: FrameFormat::Event,
        function: function.filter(|n| !n.is_empty() && n != "?"),
        is_async: false,
        is_constructor: false,
        file,
        written: line.zip(column),
        generated,
        native: generated.is_none(),
        function_span: None,
        location_span: None,
        frame_span: 0..0,
        precision: Precision::Column,
        in_eval: false,
        as_written: None,
    }
}

/// The frames of a Sentry or Bugsnag event (JSON pointers to each frame), when `v` is one.
fn event_frames(v: &Value) -> Option<(EventKind, Vec<String>)> {
    let mut frames = Vec::new();
    if let Some(values) = v.pointer("/exception/values").and_then(Value::as_array) {
        for (i, e) in values.iter().enumerate() {
            let n = e
                .pointer("/stacktrace/frames")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            frames.extend((0..n).map(|j| format!("/exception/values/{i}/stacktrace/frames/{j}")));
        }
        return Some((EventKind::Sentry, frames));
    }
    let events = v.get("events").and_then(Value::as_array)?;
    for (i, e) in events.iter().enumerate() {
        let exceptions = e.get("exceptions").and_then(Value::as_array)?;
        for (j, x) in exceptions.iter().enumerate() {
            let n = x
                .get("stacktrace")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            frames.extend((0..n).map(|k| format!("/events/{i}/exceptions/{j}/stacktrace/{k}")));
        }
    }
    Some((EventKind::Bugsnag, frames))
}

/// The file a frame names and the lines of it the reporter read, from its members (`take`: a member's value, owned)
/// as [`TraceDocument::reported_files`] documents them; `None` for a frame that names no file, or a Sentry frame
/// without a line.
fn reported_lines(
    kind: EventKind,
    mut take: impl FnMut(&str) -> Option<Value>,
) -> Option<crate::trace::event_json::ReportedLines> {
    let text = |v: Value| match v {
        Value::String(s) => Some(s),
        _ => None,
    };
    match kind {
        EventKind::Sentry => {
            let file = take("abs_path").or_else(|| take("filename"));
            let line = take("lineno")
                .as_ref()
                .and_then(number)
                .and_then(|l| l.checked_sub(1))?;
            let file = text(file?)?;
            let mut list = |key: &str| match take(key) {
                Some(Value::Array(a)) => a.into_iter().map(text).collect::<Vec<_>>(),
                _ => Vec::new(),
            };
            let (pre, post) = (list("pre_context"), list("post_context"));
            let mut lines = Vec::new();
            let before = pre.len();
            for (i, l) in pre.into_iter().enumerate() {
                let at = (line as usize + i).checked_sub(before);
                if let (Some(at), Some(l)) = (at, l) {
                    lines.push((at as u32, Arc::from(l)));
                }
            }
            if let Some(l) = take("context_line").and_then(text) {
                lines.push((line, Arc::from(l)));
            }
            for (i, l) in post.into_iter().enumerate() {
                if let Some(l) = l {
                    lines.push((line + 1 + i as u32, Arc::from(l)));
                }
            }
            Some((file, lines))
        }
        EventKind::Bugsnag => {
            let file = text(take("file")?)?;
            let lines = match take("code") {
                Some(Value::Object(code)) => code
                    .into_iter()
                    .filter_map(|(n, l)| {
                        let line = n.parse::<u32>().ok()?.checked_sub(1)?;
                        Some((line, Arc::from(text(l)?)))
                    })
                    .collect(),
                _ => Vec::new(),
            };
            Some((file, lines))
        }
    }
}

/// The string literals of a JSON text that are values (not keys): byte ranges, quotes included.
fn string_values(text: &str) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'"' {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < b.len() && b[i] != b'"' {
            i += if b[i] == b'\\' { 2 } else { 1 };
        }
        let end = (i + 1).min(b.len());
        i = end;
        let mut k = end;
        while k < b.len() && b[k].is_ascii_whitespace() {
            k += 1;
        }
        if b.get(k) != Some(&b':') {
            out.push(start..end);
        }
    }
    out
}

impl TraceDocument {
    /// Which way the frames run: a Sentry event's oldest first, everything else newest first.
    pub fn call_order(&self) -> crate::trace::symbolicate::CallOrder {
        let kind = match &self.shape {
            Shape::Event { kind, .. } => Some(*kind),
            Shape::EventText(e) => Some(e.kind),
            _ => None,
        };
        match kind {
            Some(EventKind::Sentry) => crate::trace::symbolicate::CallOrder::OldestFirst,
            _ => crate::trace::symbolicate::CallOrder::NewestFirst,
        }
    }

    /// Reads `text` in whichever shape it is (see the module documentation).
    pub fn parse(text: &str, plain: PlainInput) -> TraceDocument {
        match TraceDocument::read_keyed(text, plain) {
            Keyed::Event(event) => TraceDocument::of_keyed(event, text, plain),
            Keyed::Document(document) => document,
        }
    }

    /// Reads `text` as [`TraceDocument::parse`] does, but an event of the usual shape only as far as its
    /// [`EventText::answer_key`] needs (a pipeline that kept the answers of an event with that key needs no more);
    /// [`TraceDocument::of_keyed`] reads the rest. Nothing is read twice either way.
    pub fn read_keyed(text: &str, plain: PlainInput) -> Keyed {
        let trailing_newline = text.ends_with('\n');
        let t = text.trim();
        if t.starts_with('{') {
            match event_json::read_frames(t) {
                event_json::Read::Event(event) => return Keyed::Event(event),
                event_json::Read::Other => {
                    let document = TraceDocument::json_document(text, plain, trailing_newline);
                    return Keyed::Document(document);
                }
                event_json::Read::Unknown => {}
            }
        }
        Keyed::Document(TraceDocument::parse_value_or_text(text, plain))
    }

    /// The document of an event [`TraceDocument::read_keyed`] read from `text`: its frames' members read now, or,
    /// when one is not of the usual shape, the whole event as a `Value`.
    pub fn of_keyed(event: EventText, text: &str, plain: PlainInput) -> TraceDocument {
        match event.with_members() {
            Some(event) => TraceDocument::of_event(event, text.ends_with('\n')),
            None => TraceDocument::parse_value_or_text(text, plain),
        }
    }

    /// [`TraceDocument::parse`] of a text that is no event of the usual shape: JSON read as a `Value` (Metro's
    /// request, an event of another shape), else text.
    fn parse_value_or_text(text: &str, plain: PlainInput) -> TraceDocument {
        let trailing_newline = text.ends_with('\n');
        let t = text.trim();
        if t.starts_with('{') || t.starts_with('[') {
            // Parsed once: Metro's request is read from the parsed value (a whole second parse of every event before).
            if let Ok(value) = serde_json::from_str::<Value>(t) {
                if let Some(lines) = parse_metro_value(&value) {
                    return TraceDocument {
                        lines,
                        shape: Shape::Metro,
                        trailing_newline,
                    };
                }
                if let Some((kind, frames)) = event_frames(&value) {
                    let lines = frames
                        .iter()
                        .filter_map(|p| value.pointer(p))
                        .map(|f| {
                            // Through a byte buffer (`Value`'s `Display` writes piece by piece).
                            let raw = serde_json::to_string(f).unwrap_or_default();
                            StackLine::Frame(event_frame(kind, |k| f.get(k).cloned(), raw))
                        })
                        .collect();
                    return TraceDocument {
                        lines,
                        shape: Shape::Event {
                            kind,
                            value,
                            frames,
                        },
                        trailing_newline,
                    };
                }
                return TraceDocument::json_document(text, plain, trailing_newline);
            }
        }
        let mut doc = TraceDocument {
            lines: Vec::new(),
            shape: Shape::Pieces(Vec::new()),
            trailing_newline,
        };
        for line in lines_of(text) {
            let trimmed = line.trim();
            let piece = if trimmed.starts_with('{')
                && trimmed.ends_with('}')
                && serde_json::from_str::<serde::de::IgnoredAny>(trimmed).is_ok()
            {
                doc.json_piece(line, plain)
            } else {
                doc.lines.push(parse_line(line, plain));
                Piece::Line(doc.lines.len() - 1)
            };
            doc.push(piece);
        }
        doc
    }

    /// An event read in its own text, its frames' members with it, as a document: its frames' lines read from it.
    fn of_event(event: EventText, trailing_newline: bool) -> TraceDocument {
        // Each frame object read once on this thread, whichever event it comes in (`FrameObject`).
        let lines = (0..event.frame_count())
            .map(|i| {
                let read = || {
                    let raw = event.frame_text(i).to_string();
                    event_frame(event.kind, |k| event.member(i, k), raw)
                };
                StackLine::Frame(match event.frame_object(i) {
                    Some(o) => o.frame.get_or_init(read).clone(),
                    None => read(),
                })
            })
            .collect();
        TraceDocument {
            lines,
            shape: Shape::EventText(event),
            trailing_newline,
        }
    }

    /// One JSON document (pretty-printed or not): its strings are searched as a JSON line's are.
    fn json_document(text: &str, plain: PlainInput, trailing_newline: bool) -> TraceDocument {
        let mut doc = TraceDocument {
            lines: Vec::new(),
            shape: Shape::Pieces(Vec::new()),
            trailing_newline,
        };
        let piece = doc.json_piece(text.trim_end_matches('\n'), plain);
        doc.push(piece);
        doc
    }

    fn push(&mut self, piece: Piece) {
        if let Shape::Pieces(p) = &mut self.shape {
            p.push(piece);
        }
    }

    /// A JSON text's string values that hold frames, their lines appended to `self.lines`.
    fn json_piece(&mut self, text: &str, plain: PlainInput) -> Piece {
        let mut strings = Vec::new();
        for literal in string_values(text) {
            let Ok(value) = serde_json::from_str::<String>(&text[literal.clone()]) else {
                continue;
            };
            let parsed: Vec<StackLine> = lines_of(&value).map(|l| parse_line(l, plain)).collect();
            if !parsed.iter().any(|l| matches!(l, StackLine::Frame(_))) {
                continue;
            }
            let first = self.lines.len();
            self.lines.extend(parsed);
            strings.push((literal, first..self.lines.len(), value.ends_with('\n')));
        }
        Piece::Json {
            text: text.to_string(),
            strings,
        }
    }

    /// Whether the input is lines of text only (no JSON line, no event, not Metro JSON): then rendering it is
    /// rendering its lines.
    pub fn is_plain_text(&self) -> bool {
        match &self.shape {
            Shape::Pieces(p) => p.iter().all(|p| matches!(p, Piece::Line(_))),
            _ => false,
        }
    }

    /// The debug ID of each file an event names, normalized: a Sentry event's `debug_meta.images[]` of type
    /// `sourcemap`, `code_file` → `debug_id` (Sentry's developer docs, "Debug Meta Interface": source map images,
    /// which the JavaScript SDKs fill from each bundle's `//# debugId=` for the frames' `abs_path`).
    pub fn debug_ids_by_file(&self) -> std::collections::HashMap<String, String> {
        let Some((_, value)) = self.event_value() else {
            return Default::default();
        };
        value
            .pointer("/debug_meta/images")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|i| i.get("type").and_then(Value::as_str) == Some("sourcemap"))
            .filter_map(|i| {
                let file = i.get("code_file")?.as_str()?;
                let id = i.get("debug_id")?.as_str()?;
                Some((
                    file.to_string(),
                    crate::trace::stack::normalize_debug_id(id),
                ))
            })
            .collect()
    }

    /// What the report says about each file its frames name, beyond the positions: the debug ID of its build
    /// ([`TraceDocument::debug_ids_by_file`]) and the lines of its text the reporter read from the file that ran —
    /// Sentry's `context_line`, `pre_context`, `post_context` around a frame's `lineno` (Sentry's developer docs,
    /// "Stack Trace Interface"; the Node SDK's `contextLinesIntegration` reads them from the file, cut to 140
    /// characters with `{snip}` where cut), Bugsnag's `code` (line number → line; `@bugsnag/node`'s surrounding-code
    /// step). Keyed by the file as the frames name it (`abs_path`, else `filename`; Bugsnag's `file`).
    pub fn reported_files(&self) -> std::collections::HashMap<String, ReportedFile> {
        let mut out: std::collections::HashMap<String, ReportedFile> = Default::default();
        for (file, id) in self.debug_ids_by_file() {
            out.entry(file).or_default().debug_id = Some(id);
        }
        // A frame's lines join its file's, each line once (the first frame's copy of it).
        let mut add = |(file, lines): &crate::trace::event_json::ReportedLines| {
            let known = match out.get_mut(file.as_str()) {
                Some(known) => &mut known.lines,
                None => &mut out.entry(file.clone()).or_default().lines,
            };
            for l in lines {
                if !known.iter().any(|k| k.0 == l.0) {
                    known.push(l.clone());
                }
            }
        };
        match &self.shape {
            Shape::Event {
                kind,
                value,
                frames: pointers,
            } => {
                for f in pointers.iter().filter_map(|p| value.pointer(p)) {
                    if let Some(reported) = reported_lines(*kind, |key| f.get(key).cloned()) {
                        add(&reported);
                    }
                }
            }
            // Each member parsed from its own bytes, once per frame object on this thread (`FrameObject`).
            Shape::EventText(e) => {
                for i in 0..e.frame_count() {
                    let read = || reported_lines(e.kind, |key| e.member(i, key));
                    match e.frame_object(i) {
                        Some(o) => o.reported.get_or_init(read).iter().for_each(&mut add),
                        None => read().iter().for_each(&mut add),
                    }
                }
            }
            _ => {}
        }
        out
    }

    /// The release (and dist) the event says it came from: Sentry's `release` and `dist` (Sentry's developer docs,
    /// "Event Payloads": attributes `release`, `dist`), Bugsnag's `app.version` of its first event. `None` for
    /// other inputs, or an event without one.
    pub fn release(&self) -> Option<Release> {
        let (kind, value) = self.event_value()?;
        let text = |v: Option<&Value>| {
            v.and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        match kind {
            EventKind::Sentry => Some(Release {
                name: text(value.get("release"))?,
                dist: text(value.get("dist")),
            }),
            EventKind::Bugsnag => Some(Release {
                name: text(value.pointer("/events/0/app/version"))?,
                dist: None,
            }),
        }
    }

    /// Whether the input was a crash reporter's event (then `render` gives JSON).
    pub fn event_kind(&self) -> Option<EventKind> {
        self.event_value().map(|(kind, _)| kind)
    }

    /// An event's kind and its value: the whole event, or the members `event_json` keeps of it.
    fn event_value(&self) -> Option<(EventKind, &Value)> {
        match &self.shape {
            Shape::Event { kind, value, .. } => Some((*kind, value)),
            Shape::EventText(e) => Some((e.kind, &e.head)),
            _ => None,
        }
    }

    /// The document again with each frame replaced by its symbolicated line (`out`, one per `lines` entry).
    pub fn render(&self, out: &[SymbolicatedLine], options: TextOptions) -> String {
        self.render_with(out, options, &EventOptions::default())
    }

    /// [`TraceDocument::render`], an event written as `event` says (its sources' lines, one line of JSON).
    pub fn render_with(
        &self,
        out: &[SymbolicatedLine],
        options: TextOptions,
        event: &EventOptions<'_>,
    ) -> String {
        let line_text = |l: &SymbolicatedLine| match l {
            SymbolicatedLine::Frame(f) => render_frame(f, options),
            SymbolicatedLine::Text(t) => t.clone(),
        };
        let mut text = match &self.shape {
            Shape::Metro => {
                return out.iter().map(|l| line_text(l) + "\n").collect();
            }
            Shape::Event {
                kind,
                value,
                frames,
            } => return render_event(*kind, value.clone(), frames, out, event),
            Shape::EventText(e) => {
                let mut s = Vec::new();
                render_event_text(e, out, event, &mut s);
                s.push(b'\n');
                return String::from_utf8(s).expect("a rendering is UTF-8");
            }
            Shape::Pieces(pieces) => pieces
                .iter()
                .map(|p| match p {
                    Piece::Line(i) => out.get(*i).map(line_text).unwrap_or_default(),
                    Piece::Json { text, strings } => {
                        let mut s = String::with_capacity(text.len());
                        let mut at = 0;
                        for (literal, lines, newline) in strings {
                            s.push_str(&text[at..literal.start]);
                            let mut value = out[lines.clone()]
                                .iter()
                                .map(line_text)
                                .collect::<Vec<_>>()
                                .join("\n");
                            if *newline {
                                value.push('\n');
                            }
                            s.push_str(
                                &serde_json::to_string(&value).expect("a string serializes"),
                            );
                            at = literal.end;
                        }
                        s.push_str(&text[at..]);
                        s
                    }
                })
                .collect::<Vec<_>>()
                .join("\n"),
        };
        if self.trailing_newline {
            text.push('\n');
        }
        text
    }
}

/// What [`TraceDocument::read_keyed`] read.
pub enum Keyed {
    /// An event of the usual shape, read as far as its answer key needs.
    Event(EventText),
    /// Anything else, read in full.
    Document(TraceDocument),
}

/// The text of a symbolicated frame's original source, when known.
pub type SourceText<'a> = &'a dyn Fn(&SymbolicatedFrame) -> Option<Arc<LinedText>>;

impl TraceDocument {
    /// [`TraceDocument::render_with`], the document used up: an event is written back into its own parsed value,
    /// not a copy of it (a pipeline renders each event once; the copy was a deep clone of every event).
    pub fn into_rendered(
        self,
        out: &[SymbolicatedLine],
        options: TextOptions,
        event: &EventOptions<'_>,
    ) -> String {
        self.into_rendered_keeping(out, options, event).0
    }

    /// [`TraceDocument::into_rendered`], and for an event read in its own text, what the answers wrote in it: the
    /// same written into another event with the same [`EventText::answer_key`] ([`EventText::rendered`]) is that
    /// event's rendering.
    pub fn into_rendered_keeping(
        self,
        out: &[SymbolicatedLine],
        options: TextOptions,
        event: &EventOptions<'_>,
    ) -> (String, Option<WrittenFrames>) {
        if let Shape::EventText(e) = &self.shape {
            let mut s = Vec::new();
            let written = render_event_text(e, out, event, &mut s);
            s.push(b'\n');
            return (
                String::from_utf8(s).expect("a rendering is UTF-8"),
                Some(written),
            );
        }
        // Other shapes as rendered, their last line end as the document had it.
        (self.into_rendered_other(out, options, event), None)
    }

    /// A document of a shape other than an event read in its own text, rendered.
    fn into_rendered_other(
        mut self,
        out: &[SymbolicatedLine],
        options: TextOptions,
        event: &EventOptions<'_>,
    ) -> String {
        match &mut self.shape {
            Shape::Event {
                kind,
                value,
                frames,
            } => render_event(*kind, std::mem::take(value), frames, out, event),
            _ => self.render_with(out, options, event),
        }
    }

    /// [`TraceDocument::into_rendered_keeping`] appended to `into`, without the rendering's last line end: a
    /// pipeline writes each event into its batch's buffer, followed by the line end the event came with.
    pub fn into_rendered_keeping_in(
        self,
        out: &[SymbolicatedLine],
        options: TextOptions,
        event: &EventOptions<'_>,
        into: &mut Vec<u8>,
    ) -> Option<WrittenFrames> {
        if let Shape::EventText(e) = &self.shape {
            return Some(render_event_text(e, out, event, into));
        }
        let rendered = self.into_rendered_other(out, options, event);
        into.extend_from_slice(rendered.strip_suffix('\n').unwrap_or(&rendered).as_bytes());
        None
    }
}

/// An event with its frames written back (`frames`: each frame object's JSON pointer, in `out`'s order).
fn render_event(
    kind: EventKind,
    mut value: Value,
    frames: &[String],
    out: &[SymbolicatedLine],
    event: &EventOptions<'_>,
) -> String {
    if kind == EventKind::Sentry {
        keep_raw_stacktraces(&mut value, frames, out);
    }
    // Each source's text read once per event, however many frames it has.
    let mut texts: std::collections::HashMap<_, Option<Arc<LinedText>>> = Default::default();
    for (pointer, l) in frames.iter().zip(out) {
        if let (Some(frame), SymbolicatedLine::Frame(f)) = (value.pointer_mut(pointer), l) {
            let around = match (event.source_text, &f.original) {
                (Some(read), Some(o)) => texts
                    .entry((f.map, o.source_id))
                    .or_insert_with(|| read(f))
                    .as_deref()
                    .and_then(|text| text.context_lines(o.line as usize, o.column as usize)),
                _ => None,
            };
            write_back(kind, frame, f, around);
        }
    }
    // Written through a byte buffer: `Value`'s `Display` goes through `fmt`'s writer, piece by piece.
    let mut s = if event.compact {
        serde_json::to_string(&value)
    } else {
        serde_json::to_string_pretty(&value)
    }
    .expect("a JSON value serializes");
    s.push('\n');
    s
}

/// An event of the usual shape written back in its own text (`event_json`), one line, or pretty-printed, appended to
/// `into` without its last line end.
fn render_event_text(
    e: &EventText,
    out: &[SymbolicatedLine],
    event: &EventOptions<'_>,
    into: &mut Vec<u8>,
) -> WrittenFrames {
    // Each source's text read once per event, however many frames it has.
    let mut texts: std::collections::HashMap<_, Option<Arc<LinedText>>> = Default::default();
    let mut around = |f: &SymbolicatedFrame| {
        let (read, o) = (event.source_text?, f.original.as_ref()?);
        texts
            .entry((f.map, o.source_id))
            .or_insert_with(|| read(f))
            .as_deref()?
            .context_json(o.line as usize, o.column as usize)
    };
    let written = e.written(out, &mut around, event.kept);
    e.rendered_in(&written, event, into);
    written
}

impl EventText {
    /// The event with `written` spliced in (`EventText::written`, or another event's with the same
    /// [`EventText::answer_key`]), written as `event` says.
    pub fn rendered(&self, written: &WrittenFrames, event: &EventOptions<'_>) -> String {
        let mut s = Vec::new();
        self.rendered_in(written, event, &mut s);
        s.push(b'\n');
        String::from_utf8(s).expect("a rendering is UTF-8")
    }

    /// [`EventText::rendered`] appended to `into`, without its line end.
    pub fn rendered_in(
        &self,
        written: &WrittenFrames,
        event: &EventOptions<'_>,
        into: &mut Vec<u8>,
    ) {
        let start = into.len();
        self.spliced_into(written, into);
        // The event's own bytes are one line unless it came pretty-printed; either way written as asked.
        // `memchr`'s search, not the slice's: `contains` on the answer was 3.6 % of a distinct event's instructions.
        if event.compact && memchr::memchr(b'\n', &into[start..]).is_none() {
            return;
        }
        let text = into.split_off(start);
        let mut from = serde_json::Deserializer::from_slice(&text);
        let written = if event.compact {
            serde_transcode::transcode(&mut from, &mut serde_json::Serializer::new(&mut *into))
        } else {
            serde_transcode::transcode(&mut from, &mut serde_json::Serializer::pretty(&mut *into))
        };
        written.expect("an event written back is JSON");
    }
}

/// How [`TraceDocument::render_with`] writes an event.
#[derive(Default, Clone, Copy)]
pub struct EventOptions<'a> {
    /// The text of a symbolicated frame's original source, when known: a Sentry frame then gets the lines around it
    /// (`context_line`, `pre_context`, `post_context`: `trace::event_context`).
    pub source_text: Option<SourceText<'a>>,
    /// The event on one line (a line of NDJSON), not pretty-printed.
    pub compact: bool,
    /// Frames' objects written back by earlier events, and where this one's are kept (a pipeline's).
    pub kept: Option<&'a KeptObjects>,
}

/// Sentry keeps an exception's frames as they were sent in `raw_stacktrace`, beside the processed `stacktrace`
/// (symbolicator's `CompletedJsSymbolicationResponse`: `stacktraces` and `raw_stacktraces`, which Sentry stores as
/// the exception's `stacktrace` and `raw_stacktrace`): for each exception with a frame answered, before any is
/// written in.
fn keep_raw_stacktraces(value: &mut Value, frames: &[String], out: &[SymbolicatedLine]) {
    let mut answered: Vec<&str> = frames
        .iter()
        .zip(out)
        .filter(|(_, l)| matches!(l, SymbolicatedLine::Frame(f) if f.original.is_some()))
        .filter_map(|(pointer, _)| pointer.split_once("/stacktrace/").map(|(e, _)| e))
        .collect();
    answered.dedup();
    for exception in answered {
        let Some(e) = value.pointer_mut(exception).and_then(Value::as_object_mut) else {
            continue;
        };
        if let Some(sent) = e.get("stacktrace").cloned() {
            e.insert("raw_stacktrace".into(), sent);
        }
    }
}

/// One event frame's original written in (Sentry: as Sentry stores a processed frame, the frame as sent kept in its
/// exception's `raw_stacktrace`; Bugsnag: the minified values kept beside, in `minified`).
fn write_back(
    kind: EventKind,
    frame: &mut Value,
    f: &SymbolicatedFrame,
    around: Option<(Vec<String>, String, Vec<String>)>,
) {
    let Some(obj) = frame.as_object_mut() else {
        return;
    };
    let Some(o) = &f.original else {
        // A frame refused because the report says another build ran: the event says so where the frame is (Sentry's
        // processed frames carry such notes in `data`, as symbolicator's `data.symbolicated`).
        if let Some(why) = f
            .unresolved
            .as_deref()
            .filter(|w| w.contains(ANOTHER_BUILD))
        {
            let data = obj.entry("data").or_insert_with(|| json!({}));
            if let Some(d) = data.as_object_mut() {
                d.insert("symbolicated".into(), json!(false));
                d.insert("unmapped".into(), json!(why));
            }
        }
        return;
    };
    let (line, column) = (o.line + 1, o.column + 1);
    match kind {
        EventKind::Sentry => {
            // Sentry's `abs_path` is the source joined to the minified file's URL, `filename` the map's name for it
            // (symbolicator's `symbolicate_js_frame`: `join_paths(source_file_base, filename)`).
            // The minified file's URL: `abs_path`, else `filename` (the Node SDK sends only `filename`; Relay's
            // normalization fills `abs_path` from it before symbolicator joins).
            let sent =
                (obj.get("abs_path").or_else(|| obj.get("filename"))).and_then(Value::as_str);
            let abs_path = match (sent, o.source.as_deref()) {
                (Some(sent), Some(source)) => joined_to_url(sent, source),
                _ => None,
            };
            obj.insert(
                "abs_path".into(),
                json!(abs_path.or_else(|| o.source.clone())),
            );
            obj.insert("filename".into(), json!(o.source));
            obj.insert("lineno".into(), json!(line));
            obj.insert("colno".into(), json!(column));
            if let Some(name) = &o.function {
                obj.insert("function".into(), json!(name));
            }
            // Lines around it from the source, when known; never the bundle's lines the frame was sent with.
            for key in ["context_line", "pre_context", "post_context"] {
                obj.remove(key);
            }
            if let Some((pre, context, post)) = around {
                obj.insert("pre_context".into(), json!(pre));
                obj.insert("context_line".into(), json!(context));
                obj.insert("post_context".into(), json!(post));
            }
            let data = obj.entry("data").or_insert_with(|| json!({}));
            if let Some(d) = data.as_object_mut() {
                d.insert("symbolicated".into(), json!(true));
            }
        }
        EventKind::Bugsnag => {
            let mut minified = json!({
                "file": obj.get("file"), "lineNumber": obj.get("lineNumber"),
                "columnNumber": obj.get("columnNumber"), "method": obj.get("method"),
            });
            // `code` (line number → line) was the bundle's lines: they go with the other minified values, and the
            // original source's lines around the frame take their place, as Bugsnag's own source-map processing
            // shows a mapped frame's code (never minified code under the original's line numbers).
            if let Some(code) = obj.remove("code") {
                minified["code"] = code;
            }
            if let Some((pre, context, post)) = around {
                let first = (line as usize + 1).saturating_sub(pre.len() + 1);
                let code: serde_json::Map<String, Value> = pre
                    .into_iter()
                    .chain(std::iter::once(context))
                    .chain(post)
                    .enumerate()
                    .map(|(i, text)| ((first + i).to_string(), json!(text)))
                    .collect();
                obj.insert("code".into(), Value::Object(code));
            }
            obj.insert("minified".into(), minified);
            obj.insert("file".into(), json!(o.source));
            obj.insert("lineNumber".into(), json!(line));
            obj.insert("columnNumber".into(), json!(column));
            if let Some(name) = &o.function {
                obj.insert("method".into(), json!(name));
            }
        }
    }
}

#[cfg(test)]
mod tests;
