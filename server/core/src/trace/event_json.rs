//! A crash reporter's event read and written back in its own text, without a JSON tree of the whole event.
//!
//! An event is mostly what symbolication never touches (breadcrumbs, contexts, the frames' context lines); building
//! a `serde_json::Value` of it, then writing the whole tree back, was half of a warm event's cost (issue 56). Here the
//! event is read once into the byte ranges of what matters (each exception's `stacktrace`, each frame object and its
//! members), the few values needed are parsed from their own bytes, and the event is written back by splicing: the
//! answered frames' objects rebuilt, each exception's frames as sent copied into `raw_stacktrace`, every other byte
//! as it came.
//!
//! Only events of the usual shape take this path (objects where the interfaces say objects, keys without escapes,
//! no key twice); anything else fails to read here and is read as a whole `Value` by `document.rs`, which knows every
//! shape. Both write the same fields with the same values (`document.rs`'s module table and "Written back"); this
//! one keeps the event's own key order and bytes, the other writes keys sorted.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

mod read;

use crate::trace::event_context::ContextJson;
use crate::trace::event_conventions::{joined_to_url, EventKind, ANOTHER_BUILD};
use crate::trace::kept_objects::KeptObjects;
use crate::trace::stack::StackFrame;
use crate::trace::symbolicate::{SymbolicatedFrame, SymbolicatedLine};

/// What a fast read of a JSON text found.
pub(crate) enum Read {
    /// A Sentry or Bugsnag event of the usual shape, its frames' members not read yet.
    Event(EventText),
    /// A JSON object that is neither an event nor Metro's request (no `stack`, no `exception`, no `events`).
    Other,
    /// Anything else: read it as a whole `Value`.
    Unknown,
}

/// An event's text and where its parts are (see the module documentation).
#[derive(Debug, Clone)]
pub struct EventText {
    /// Which reporter wrote it.
    pub(crate) kind: EventKind,
    /// The top-level members other functions read (`release`, `dist`, `debug_meta`; Bugsnag's first event's `app`
    /// under `events/0`), as a small event of their own.
    pub(crate) head: Value,
    text: String,
    /// In the order of the document's lines.
    frames: Vec<FrameText>,
    /// Sentry: each exception's `stacktrace` value and its `raw_stacktrace` value when it has one.
    stacks: Vec<(Range<usize>, Option<Range<usize>>)>,
}

#[derive(Debug, Clone)]
struct FrameText {
    /// The frame object.
    at: Range<usize>,
    /// Sentry: its exception's index in `stacks`.
    stack: usize,
    /// Its members, once read ([`EventText::with_members`]).
    object: Option<Arc<FrameObject>>,
}

/// What a frame object's text is read into, the same wherever the text comes (`FrameObject::of`): its members, and
/// what `document.rs` reads from them, made once.
#[derive(Debug)]
pub(crate) struct FrameObject {
    kind: EventKind,
    text: Box<str>,
    /// Each member's key and the range of its value in the object's text, in the object's order.
    members: Vec<(String, Range<usize>)>,
    /// The frame as `document.rs` reads it.
    pub(crate) frame: OnceLock<StackFrame>,
    /// The file it names and the lines of that file it reports (`document.rs`'s `reported_lines`).
    pub(crate) reported: OnceLock<Option<ReportedLines>>,
}

/// A file a frame names and lines of it the reporter read: (0-based line, text).
pub(crate) type ReportedLines = (String, Vec<(u32, std::sync::Arc<str>)>);

impl FrameObject {
    /// The object `text` of an event of `kind` read, or as read before on this thread: a pipeline's events repeat
    /// their frames' objects (the same library and app frames in different crashes); a pure function of the text,
    /// kept for the 4,096 objects read last. `None` when it is not of the usual shape.
    fn of(kind: EventKind, text: &str) -> Option<Arc<FrameObject>> {
        type Known = HashMap<u128, Arc<FrameObject>>;
        thread_local!(static KNOWN: RefCell<Known> = Default::default());
        // Found by the text's hash, taken only when its kind and text are the same.
        let key = xxhash_rust::xxh3::xxh3_128(text.as_bytes()) ^ kind as u128;
        let known = KNOWN.with(|k| k.borrow().get(&key).cloned());
        if let Some(known) = known.filter(|o| o.kind == kind && *o.text == *text) {
            return Some(known);
        }
        let m: Members = serde_json::from_str(text).ok()?;
        let object = Arc::new(FrameObject {
            kind,
            text: text.into(),
            members: m
                .0
                .into_iter()
                .map(|(k, v)| (k.to_string(), range_in(text, v.get())))
                .collect(),
            frame: OnceLock::new(),
            reported: OnceLock::new(),
        });
        KNOWN.with(|k| {
            let mut k = k.borrow_mut();
            if k.len() >= 4096 {
                k.clear();
            }
            k.insert(key, object.clone());
        });
        Some(object)
    }

    /// Member `key`'s value's text, a slice of the object's `text`.
    fn sent<'t>(&self, text: &'t str, key: &str) -> Option<&'t str> {
        let (_, r) = self.members.iter().find(|(k, _)| k == key)?;
        text.get(r.clone())
    }
}

/// What symbolication changes in an event of the usual shape (`EventText::written`), kept apart from the event so
/// that another event with the same [`EventText::answer_key`] is written with it (`EventText::spliced`).
#[derive(Debug, Clone, Default)]
pub struct WrittenFrames {
    /// Each frame's object written again, in the order of the event's frames (`None`: it stays as sent); shared with
    /// the objects kept across events (`KeptObjects`), so an event's answers kept hold no copy of them.
    frames: Vec<Option<std::sync::Arc<str>>>,
    /// Sentry: the exceptions (indexes) whose frames as sent are kept in `raw_stacktrace`.
    kept_raw: Vec<usize>,
}

impl WrittenFrames {
    /// Heap bytes held (for a cache's budget).
    pub fn heap_bytes(&self) -> usize {
        self.frames
            .iter()
            .map(|f| {
                std::mem::size_of::<Option<std::sync::Arc<str>>>()
                    + f.as_ref().map_or(0, |f| f.len())
            })
            .sum::<usize>()
            + self.kept_raw.capacity() * std::mem::size_of::<usize>()
    }
}

/// A frame object's members, keys without escapes.
struct Members<'a>(Vec<(&'a str, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a frame object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = m.next_entry::<&'de str, &'de RawValue>()? {
                    if out.iter().any(|(k, _)| *k == entry.0) {
                        return Err(serde::de::Error::custom("a key twice"));
                    }
                    out.push(entry);
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// `part`'s place in `text` (a slice of it).
fn range_in(text: &str, part: &str) -> Range<usize> {
    let start = part.as_ptr() as usize - text.as_ptr() as usize;
    start..start + part.len()
}

fn parsed(raw: Option<&str>) -> Option<Value> {
    serde_json::from_str(raw?).ok()
}

/// Reads `text` (trimmed JSON) if it is an event of the usual shape (see [`Read`]), each frame's members not read
/// yet ([`EventText::with_members`]: the answer key needs none of them).
pub(crate) fn read_frames(text: &str) -> Read {
    let Some(top) = read::top(text) else {
        return Read::Unknown;
    };
    if top.stack {
        return Read::Unknown;
    }
    let mut frames = Vec::new();
    let mut stacks = Vec::new();
    let (kind, mut head) = if let Some(values) = top.exceptions {
        for (i, v) in values.into_iter().enumerate() {
            let Some((at, in_it)) = v.stacktrace else {
                stacks.push((0..0, None));
                continue;
            };
            frames.extend(in_it.into_iter().map(|at| FrameText {
                at,
                stack: i,
                object: None,
            }));
            stacks.push((at, v.raw_stacktrace));
        }
        (EventKind::Sentry, Map::new())
    } else if let Some(events) = top.events {
        for e in &events {
            frames.extend(e.frames.iter().map(|at| FrameText {
                at: at.clone(),
                stack: 0,
                object: None,
            }));
        }
        let mut head = Map::new();
        if let Some(app) = parsed(events.first().and_then(|e| e.app)) {
            head.insert("events".into(), json!([{ "app": app }]));
        }
        (EventKind::Bugsnag, head)
    } else {
        return Read::Other;
    };
    for (key, raw) in [
        ("release", top.release),
        ("dist", top.dist),
        ("debug_meta", top.debug_meta),
    ] {
        if let Some(v) = parsed(raw) {
            head.insert(key.into(), v);
        }
    }
    Read::Event(EventText {
        kind,
        head: Value::Object(head),
        text: text.to_string(),
        frames,
        stacks,
    })
}

impl EventText {
    /// Each frame's members read from its object; `None` when one is not of the usual shape.
    pub(crate) fn with_members(mut self) -> Option<EventText> {
        for f in &mut self.frames {
            f.object = Some(FrameObject::of(self.kind, &self.text[f.at.clone()])?);
        }
        Some(self)
    }

    /// Frame `i`'s object read ([`EventText::with_members`] first).
    pub(crate) fn frame_object(&self, i: usize) -> Option<&FrameObject> {
        self.frames[i].object.as_deref()
    }

    /// Frame `i`'s text, as it came.
    pub(crate) fn frame_text(&self, i: usize) -> &str {
        &self.text[self.frames[i].at.clone()]
    }

    pub(crate) fn frame_count(&self) -> usize {
        self.frames.len()
    }

    /// Frame `i`'s member `key`, parsed from its bytes.
    pub(crate) fn member(&self, i: usize, key: &str) -> Option<Value> {
        let f = &self.frames[i];
        serde_json::from_str(f.object.as_ref()?.sent(&self.text[f.at.clone()], key)?).ok()
    }

    /// What the answers (`out`: one line per frame) change in the event: each frame's object written again and the
    /// exceptions whose frames as sent are kept; `around` gives the lines of a frame's original source around it.
    /// An answered frame's object is taken from `kept` when another event's same frame, answered alike, made it.
    pub(crate) fn written(
        &self,
        out: &[SymbolicatedLine],
        around: &mut dyn FnMut(&SymbolicatedFrame) -> Option<std::sync::Arc<ContextJson>>,
        kept: Option<&KeptObjects>,
    ) -> WrittenFrames {
        let mut kept_raw: Vec<usize> = Vec::new();
        if self.kind == EventKind::Sentry {
            kept_raw = self
                .frames
                .iter()
                .zip(out)
                .filter(|(_, l)| matches!(l, SymbolicatedLine::Frame(f) if f.original.is_some()))
                .map(|(f, _)| f.stack)
                .collect();
            kept_raw.dedup();
        }
        // An event's frames share a few files and sources: each pair joined once.
        let mut joined = Joined::new();
        let frames = self
            .frames
            .iter()
            .zip(out)
            .map(|(frame, l)| match l {
                SymbolicatedLine::Frame(f) => {
                    let near = f.original.as_ref().and_then(|_| around(f));
                    match (kept, &f.original) {
                        (Some(kept), Some(o)) => {
                            kept.written(self.kind, &self.text[frame.at.clone()], o, near, |near| {
                                self.frame_written_back(frame, f, near, &mut joined)
                            })
                        }
                        _ => self
                            .frame_written_back(frame, f, near, &mut joined)
                            .map(std::sync::Arc::from),
                    }
                }
                SymbolicatedLine::Text(_) => None,
            })
            .collect();
        WrittenFrames { frames, kept_raw }
    }

    /// The key under which an event's [`WrittenFrames`] answer another event: everything the answers are made of
    /// (its kind, the members of `head`, each frame's exception and text, and `more`: what the caller reads from
    /// the rest of the text). Two events with one key get the same answers from the same maps.
    pub fn answer_key(&self, more: &[&str]) -> Vec<u8> {
        let head = self.head.to_string();
        let mut key = Vec::with_capacity(
            head.len() + self.frames.iter().map(|f| f.at.len() + 5).sum::<usize>() + 64,
        );
        key.push(self.kind as u8);
        // Each part ends with a byte no JSON text holds, so no two lists of parts give one key.
        for part in std::iter::once(head.as_str()).chain(more.iter().copied()) {
            key.extend_from_slice(part.as_bytes());
            key.push(0xff);
        }
        for f in &self.frames {
            key.extend_from_slice(&(f.stack as u32).to_le_bytes());
            key.extend_from_slice(self.text[f.at.clone()].as_bytes());
            key.push(0xff);
        }
        key
    }

    /// The event with `written` spliced in, on one line if it came on one, appended to `s`.
    pub(crate) fn spliced_into(&self, written: &WrittenFrames, s: &mut Vec<u8>) {
        let mut edits: Vec<(Range<usize>, &str)> =
            Vec::with_capacity(2 * written.kept_raw.len() + written.frames.len());
        for &i in &written.kept_raw {
            let (sent, raw) = &self.stacks[i];
            let text = &self.text[sent.clone()];
            match raw {
                Some(raw) => edits.push((raw.clone(), text)),
                // Two insertions at one place, in this order (the sort below is stable).
                None => edits.extend([
                    (sent.end..sent.end, ",\"raw_stacktrace\":"),
                    (sent.end..sent.end, text),
                ]),
            }
        }
        for (frame, new) in self.frames.iter().zip(&written.frames) {
            if let Some(new) = new {
                edits.push((frame.at.clone(), &**new));
            }
        }
        edits.sort_by_key(|(r, _)| r.start);
        s.reserve(self.text.len() + edits.iter().map(|e| e.1.len()).sum::<usize>() + 2);
        let mut at = 0;
        for (r, new) in &edits {
            s.extend_from_slice(&self.text.as_bytes()[at..r.start]);
            s.extend_from_slice(new.as_bytes());
            at = r.end;
        }
        s.extend_from_slice(&self.text.as_bytes()[at..]);
    }

    /// A frame object with its original written in (as `document.rs`'s `write_back`), or `None` when it stays as it
    /// was sent.
    fn frame_written_back(
        &self,
        frame: &FrameText,
        f: &SymbolicatedFrame,
        near: Option<std::sync::Arc<ContextJson>>,
        joined: &mut Joined,
    ) -> Option<String> {
        let object = frame.object.as_deref()?;
        let text = &self.text[frame.at.clone()];
        let sent = |key: &str| object.sent(text, key);
        // Each member's new value: `Some(None)` drops it.
        let mut new: Vec<(&str, Option<String>)> = Vec::new();
        let Some(o) = &f.original else {
            let why = f
                .unresolved
                .as_deref()
                .filter(|w| w.contains(ANOTHER_BUILD))?;
            new.push((
                "data",
                data_with(
                    sent("data"),
                    [("symbolicated", json!(false)), ("unmapped", json!(why))],
                ),
            ));
            return Some(self.object(frame, new));
        };
        let (line, column) = (o.line + 1, o.column + 1);
        match self.kind {
            EventKind::Sentry => {
                let url = sent("abs_path")
                    .or_else(|| sent("filename"))
                    .and_then(|t| serde_json::from_str::<Value>(t).ok())
                    .and_then(|v| v.as_str().map(str::to_string));
                let abs_path = match (url, o.source.as_deref()) {
                    (Some(url), Some(source)) => joined
                        .entry((url, source.to_string()))
                        .or_insert_with_key(|(url, source)| joined_to_url(url, source))
                        .clone(),
                    _ => None,
                };
                new.push((
                    "abs_path",
                    Some(to_json(&abs_path.as_ref().or(o.source.as_ref()))),
                ));
                new.push(("filename", Some(to_json(&o.source))));
                new.push(("lineno", Some(line.to_string())));
                new.push(("colno", Some(column.to_string())));
                if let Some(name) = &o.function {
                    new.push(("function", Some(to_json(name))));
                }
                let [pre, context, post] = match &near {
                    Some(near) => near.json.clone().map(Some),
                    None => [None, None, None],
                };
                new.push(("pre_context", pre));
                new.push(("context_line", context));
                new.push(("post_context", post));
                new.push((
                    "data",
                    data_with(sent("data"), [("symbolicated", json!(true))]),
                ));
            }
            EventKind::Bugsnag => {
                let mut minified = String::from("{");
                for key in ["file", "lineNumber", "columnNumber", "method"] {
                    minified.push_str(&format!("\"{key}\":{},", sent(key).unwrap_or("null")));
                }
                match sent("code") {
                    Some(code) => minified.push_str(&format!("\"code\":{code}}}")),
                    None => {
                        minified.pop();
                        minified.push('}');
                    }
                }
                new.push(("file", Some(to_json(&o.source))));
                new.push(("lineNumber", Some(line.to_string())));
                new.push(("columnNumber", Some(column.to_string())));
                if let Some(name) = &o.function {
                    new.push(("method", Some(to_json(name))));
                }
                // The original source's lines in place of the bundle's (`document.rs`'s `write_back`).
                let code = near.map(|near| {
                    let (pre, context, post) = &near.lines;
                    let first = (line as usize + 1).saturating_sub(pre.len() + 1);
                    let lines = pre.iter().chain(std::iter::once(context)).chain(post);
                    let mut s = String::from("{");
                    for (i, text) in lines.enumerate() {
                        if i > 0 {
                            s.push(',');
                        }
                        s.push_str(&format!("\"{}\":{}", first + i, to_json(text)));
                    }
                    s + "}"
                });
                new.push(("code", code));
                new.push(("minified", Some(minified)));
            }
        }
        Some(self.object(frame, new))
    }

    /// `frame`'s object again: each member in its place, its new value when `new` has one (or left out when that is
    /// `None`), then the new members it did not have, in `new`'s order.
    fn object(&self, frame: &FrameText, new: Vec<(&str, Option<String>)>) -> String {
        let mut s = String::from("{");
        let (text, members) = (&self.text[frame.at.clone()], frame.members());
        let member = |s: &mut String, key: &str, value: &str| {
            if s.len() > 1 {
                s.push(',');
            }
            // Keys were read without escapes (`Members`): their text is the key.
            s.push('"');
            s.push_str(key);
            s.push_str("\":");
            s.push_str(value);
        };
        for (key, r) in members {
            match new.iter().find(|(k, _)| k == key) {
                Some((_, Some(v))) => member(&mut s, key, v),
                Some((_, None)) => {}
                None => member(&mut s, key, &text[r.clone()]),
            }
        }
        for (key, v) in &new {
            if let (Some(v), false) = (v, members.iter().any(|(k, _)| k == key)) {
                member(&mut s, key, v);
            }
        }
        s.push('}');
        s
    }
}

impl FrameText {
    /// Its members, once read (none before).
    fn members(&self) -> &[(String, Range<usize>)] {
        self.object.as_deref().map_or(&[], |o| &o.members)
    }
}

/// Each (minified file's URL, source) joined (`document::joined_to_url`).
type Joined = std::collections::HashMap<(String, String), Option<String>>;

/// `v` as JSON text (straight to text: no `Value` made of it first).
fn to_json<T: serde::Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).expect("strings and lists of them serialize")
}

/// A frame's `data` with `notes` set: merged into the object it was, a new object when it had none, as sent when it
/// was something else.
fn data_with<const N: usize>(sent: Option<&str>, notes: [(&str, Value); N]) -> Option<String> {
    let mut data = match sent.map(serde_json::from_str::<Value>) {
        Some(Ok(Value::Object(o))) => o,
        Some(_) => return sent.map(str::to_string),
        None => Map::new(),
    };
    for (k, v) in notes {
        data.insert(k.into(), v);
    }
    Some(Value::Object(data).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stacktrace's range, found from its members' places, is the whole value as written, whatever the
    /// whitespace and wherever `frames` stands among its members.
    #[test]
    fn a_stacktrace_range_is_its_whole_value() {
        let frames = r#"[{"filename":"a.js","lineno":1,"colno":2},{"filename":"b.js","lineno":3}]"#;
        let stacktraces = [
            format!(r#"{{"frames":{frames}}}"#),
            format!(r#"{{ "frames" : {frames} }}"#),
            format!("{{\n\t\"frames\":\r\n{frames}\n}}"),
            format!(r#"{{"frames":{frames},"frames_omitted":null}}"#),
            format!(r#"{{"registers":{{"a":"}}"}},"frames":{frames}}}"#),
            format!(r#"{{"registers":{{}}, "frames":{frames} , "lang" : "js" }}"#),
            r#"{"frames":[ {"lineno":1} ]}"#.to_string(),
        ];
        for st in &stacktraces {
            for (before, after) in [("", ""), (" ", " "), ("\n  ", "\n")] {
                let text = format!(
                    r#"{{"exception":{{"values":[{{"type":"E","stacktrace":{before}{st}{after},"value":"x"}}]}}}}"#
                );
                let Read::Event(e) = read_frames(&text) else {
                    panic!("not read: {text}");
                };
                let start = text.find(st.as_str()).unwrap();
                assert_eq!(e.stacks[0].0, start..start + st.len(), "{text}");
                let pretty =
                    serde_json::to_string_pretty(&serde_json::from_str::<Value>(&text).unwrap())
                        .unwrap();
                let Read::Event(p) = read_frames(&pretty) else {
                    panic!("not read: {pretty}");
                };
                let range = p.stacks[0].0.clone();
                let value: Value = serde_json::from_str(&pretty[range]).unwrap();
                let sent: Value = serde_json::from_str(st).unwrap();
                assert_eq!(value, sent, "{pretty}");
            }
        }
    }

    /// A stacktrace without frames is read; a key twice, a key with escapes or a stacktrace that is no object is left
    /// to the reader of every shape.
    #[test]
    fn stacktraces_of_no_usual_shape() {
        for (st, frames) in [
            (r#"{"frames":[]}"#, Some(0)),
            (r#"{"frames":null}"#, Some(0)),
            (r#"{}"#, Some(0)),
            (r#"{"frames":[{"lineno":1}],"frames":[]}"#, None),
            (r#"{"fr\u0061mes":[{"lineno":1}]}"#, None),
            (r#"[]"#, None),
        ] {
            let text = format!(r#"{{"exception":{{"values":[{{"stacktrace":{st}}}]}}}}"#);
            match (read_frames(&text), frames) {
                (Read::Event(e), Some(n)) => assert_eq!(e.frames.len(), n, "{st}"),
                (Read::Unknown, None) => {}
                _ => panic!("{st}"),
            }
        }
    }
}
