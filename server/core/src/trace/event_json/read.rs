//! An event's structure read in one pass with the crate's strict JSON reader (`internal::json::reader`): where each
//! exception's `stacktrace`, `raw_stacktrace` and frames are, and the few top-level members other functions read.
//! Every other value is skipped, checked but not built.
//!
//! It accepts what `serde_json` accepts for these members, no more: it refuses a known key twice and keys spelled
//! with escapes, where serde's derived reader would have either refused the event or read it, so either way the
//! event goes to the reader of every shape (`document.rs`), whose answer is the reference. Read with serde's derived
//! structs, the event was 24 % of the instructions of 2,000 distinct real-SDK events (`valgrind --tool=callgrind`):
//! serde's byte-at-a-time string skipping was half of it; this reader finds strings' ends 64 bytes at a time.

use std::ops::Range;

use crate::internal::json::reader::Reader;

/// What an event's text holds, as ranges of it (see the module documentation).
#[derive(Default)]
pub(super) struct Top<'a> {
    /// A `stack` member (Metro's request, read by `document.rs`).
    pub(super) stack: bool,
    /// Sentry's `exception.values`.
    pub(super) exceptions: Option<Vec<Exception>>,
    /// Bugsnag's `events`.
    pub(super) events: Option<Vec<BugsnagEvent<'a>>>,
    pub(super) release: Option<&'a str>,
    pub(super) dist: Option<&'a str>,
    pub(super) debug_meta: Option<&'a str>,
}

/// One of Sentry's exceptions.
#[derive(Default)]
pub(super) struct Exception {
    /// Its `stacktrace` value and its `frames`' items.
    pub(super) stacktrace: Option<(Range<usize>, Vec<Range<usize>>)>,
    pub(super) raw_stacktrace: Option<Range<usize>>,
}

/// One of Bugsnag's events.
pub(super) struct BugsnagEvent<'a> {
    pub(super) app: Option<&'a str>,
    /// Each exception's `stacktrace` items, in order.
    pub(super) frames: Vec<Range<usize>>,
}

/// `text` (one JSON object, nothing after it but white space) read, or `None` (see the module documentation).
pub(super) fn top(text: &str) -> Option<Top<'_>> {
    let mut r = Reader::new(text);
    let mut top = Top::default();
    let mut seen = Seen::default();
    r.ws();
    r.members_any(0, |r, key, escapes, depth| {
        if escapes {
            return None;
        }
        match key {
            b"stack" => {
                seen.once(0)?;
                top.stack = true;
                skip(r, depth)
            }
            b"exception" => {
                seen.once(1)?;
                if !r.null() {
                    top.exceptions = exception(r, depth)?;
                }
                Some(())
            }
            b"events" => {
                seen.once(2)?;
                if !r.null() {
                    top.events = Some(events(r, depth)?);
                }
                Some(())
            }
            b"release" => raw(r, depth, &mut seen, 3, &mut top.release),
            b"dist" => raw(r, depth, &mut seen, 4, &mut top.dist),
            b"debug_meta" => raw(r, depth, &mut seen, 5, &mut top.debug_meta),
            _ => skip(r, depth),
        }
    })?;
    r.ws();
    (r.i == r.b.len()).then_some(top)
}

/// The known keys of one object met so far.
#[derive(Default)]
struct Seen(u32);

impl Seen {
    /// Key `k` met: `None` the second time (serde's derived reader refuses a field twice).
    fn once(&mut self, k: u32) -> Option<()> {
        let bit = 1 << k;
        (self.0 & bit == 0).then(|| self.0 |= bit)
    }
}

/// Any value, keys with escapes among them.
fn skip(r: &mut Reader<'_>, depth: u32) -> Option<()> {
    match r.peek()? {
        b'{' => r.members_any(depth + 1, |r, _, _, depth| skip(r, depth)),
        b'[' => r.items(depth + 1, skip),
        _ => r.skip_value(depth),
    }
}

/// A value's range (the cursor on it).
fn range(r: &mut Reader<'_>, depth: u32) -> Option<Range<usize>> {
    let start = r.i;
    skip(r, depth)?;
    Some(start..r.i)
}

/// A member kept as its text, `null` as none (serde's `Option<&RawValue>`).
fn raw<'a>(
    r: &mut Reader<'a>,
    depth: u32,
    seen: &mut Seen,
    k: u32,
    to: &mut Option<&'a str>,
) -> Option<()> {
    seen.once(k)?;
    if !r.null() {
        let at = range(r, depth)?;
        *to = Some(&r.s[at]);
    }
    Some(())
}

/// Sentry's `exception` object: its `values`, when not `null`.
fn exception(r: &mut Reader<'_>, depth: u32) -> Option<Option<Vec<Exception>>> {
    let mut values = None;
    let mut seen = Seen::default();
    r.members_any(depth + 1, |r, key, escapes, depth| match key {
        _ if escapes => None,
        b"values" => {
            seen.once(0)?;
            if !r.null() {
                let mut list = Vec::new();
                r.items(depth + 1, |r, depth| {
                    list.push(sentry_value(r, depth)?);
                    Some(())
                })?;
                values = Some(list);
            }
            Some(())
        }
        _ => skip(r, depth),
    })?;
    Some(values)
}

/// One of `exception.values`.
fn sentry_value(r: &mut Reader<'_>, depth: u32) -> Option<Exception> {
    let mut e = Exception::default();
    let mut seen = Seen::default();
    r.members_any(depth + 1, |r, key, escapes, depth| match key {
        _ if escapes => None,
        b"stacktrace" => {
            seen.once(0)?;
            if !r.null() {
                let start = r.i;
                let frames = stacktrace(r, depth)?;
                e.stacktrace = Some((start..r.i, frames));
            }
            Some(())
        }
        b"raw_stacktrace" => {
            seen.once(1)?;
            if !r.null() {
                e.raw_stacktrace = Some(range(r, depth)?);
            }
            Some(())
        }
        _ => skip(r, depth),
    })?;
    Some(e)
}

/// A `stacktrace` object: its `frames`' items (none when `frames` is missing or `null`).
fn stacktrace(r: &mut Reader<'_>, depth: u32) -> Option<Vec<Range<usize>>> {
    let mut frames = Vec::new();
    listed_frames(r, depth, b"frames", &mut frames)?;
    Some(frames)
}

/// An object whose member `key` is missing, `null` or a list of frames: their ranges appended to `frames`.
fn listed_frames(
    r: &mut Reader<'_>,
    depth: u32,
    key: &[u8],
    frames: &mut Vec<Range<usize>>,
) -> Option<()> {
    let mut seen = Seen::default();
    r.members_any(depth + 1, |r, k, escapes, depth| match k {
        _ if escapes => None,
        k if k == key => {
            seen.once(0)?;
            if r.null() {
                return Some(());
            }
            r.items(depth + 1, |r, depth| {
                frames.push(range(r, depth)?);
                Some(())
            })
        }
        _ => skip(r, depth),
    })
}

/// Bugsnag's `events` array.
fn events<'a>(r: &mut Reader<'a>, depth: u32) -> Option<Vec<BugsnagEvent<'a>>> {
    let mut list = Vec::new();
    r.items(depth + 1, |r, depth| {
        let mut app = None;
        let mut frames = Vec::new();
        let mut exceptions = false;
        let mut seen = Seen::default();
        r.members_any(depth + 1, |r, key, escapes, depth| match key {
            _ if escapes => None,
            b"app" => raw(r, depth, &mut seen, 0, &mut app),
            b"exceptions" => {
                seen.once(1)?;
                exceptions = true;
                // A list (serde's `Vec`: `null` refused), of objects each with an optional `stacktrace` list.
                r.items(depth + 1, |r, depth| {
                    listed_frames(r, depth, b"stacktrace", &mut frames)
                })
            }
            _ => skip(r, depth),
        })?;
        // `exceptions` is required (serde's derived reader refuses an event without it).
        exceptions.then_some(())?;
        list.push(BugsnagEvent { app, frames });
        Some(())
    })?;
    Some(list)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{json, Value};

    /// Events of the shapes read here, and of shapes near them, built from these keys.
    fn event_like() -> impl Strategy<Value = Value> {
        let key = prop::sample::select(vec![
            "exception",
            "values",
            "stacktrace",
            "raw_stacktrace",
            "frames",
            "events",
            "exceptions",
            "app",
            "release",
            "dist",
            "debug_meta",
            "lineno",
            "x\u{e9}",
        ]);
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i32>().prop_map(Value::from),
            "[a-z\"\\\\\u{7f}\u{e9}/]{0,6}".prop_map(Value::from),
        ];
        leaf.prop_recursive(5, 48, 5, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::vec((key.clone(), inner), 0..5).prop_map(|members| {
                    Value::Object(
                        members
                            .into_iter()
                            .map(|(k, v)| (k.to_string(), v))
                            .collect(),
                    )
                }),
            ]
        })
        .prop_map(|v| match v {
            Value::Object(_) => v,
            other => {
                json!({ "exception": { "values": [ { "stacktrace": { "frames": [other] } } ] } })
            }
        })
    }

    /// The shapes serde's derived structs read (what `top` replaced): each member read is absent, `null` or of its
    /// type, down to the frames (Bugsnag's `exceptions` required).
    fn usual(event: &Value) -> bool {
        let absent_or =
            |v: Option<&Value>, f: &dyn Fn(&Value) -> bool| v.is_none_or(|v| v.is_null() || f(v));
        let list_of =
            |v: &Value, f: &dyn Fn(&Value) -> bool| v.as_array().is_some_and(|l| l.iter().all(f));
        let stacktrace = |s: &Value| s.is_object() && absent_or(s.get("frames"), &Value::is_array);
        let sentry_value = |v: &Value| v.is_object() && absent_or(v.get("stacktrace"), &stacktrace);
        let exception =
            |e: &Value| e.is_object() && absent_or(e.get("values"), &|v| list_of(v, &sentry_value));
        let bugsnag_exception =
            |x: &Value| x.is_object() && absent_or(x.get("stacktrace"), &Value::is_array);
        let bugsnag_event = |e: &Value| {
            e.is_object()
                && e.get("exceptions")
                    .is_some_and(|x| list_of(x, &bugsnag_exception))
        };
        absent_or(event.get("exception"), &exception)
            && absent_or(event.get("events"), &|e| list_of(e, &bugsnag_event))
    }

    /// `range` of `text` is the JSON `want`.
    fn holds(text: &str, range: &Range<usize>, want: Option<&Value>) -> bool {
        serde_json::from_str::<Value>(&text[range.clone()])
            .ok()
            .as_ref()
            == want
    }

    proptest! {
        /// What is read is what serde reads there; a text that is not JSON is never read (each event, and each with
        /// one byte removed or changed).
        #[test]
        fn reads_what_serde_reads_and_no_more(
            event in event_like(),
            pretty in any::<bool>(),
            cut in any::<prop::sample::Index>(),
            byte in prop::sample::select(b"{}[]:,\" 0ne\\".to_vec()),
        ) {
            let text = if pretty {
                serde_json::to_string_pretty(&event).unwrap()
            } else {
                serde_json::to_string(&event).unwrap()
            };
            let read = top(&text);
            prop_assert_eq!(read.is_some(), usual(&event), "{}", text);
            let Some(top) = read else { return Ok(()) };
            let values = event.pointer("/exception/values").and_then(Value::as_array);
            match (&top.exceptions, values) {
                (Some(read), Some(sent)) => {
                    prop_assert_eq!(read.len(), sent.len());
                    for (r, v) in read.iter().zip(sent) {
                        if let Some((at, frames)) = &r.stacktrace {
                            prop_assert!(holds(&text, at, v.get("stacktrace")));
                            let sent = v.pointer("/stacktrace/frames").and_then(Value::as_array);
                            prop_assert_eq!(frames.len(), sent.map_or(0, Vec::len));
                            for (f, s) in frames.iter().zip(sent.into_iter().flatten()) {
                                prop_assert!(holds(&text, f, Some(s)));
                            }
                        }
                        if let Some(at) = &r.raw_stacktrace {
                            prop_assert!(holds(&text, at, v.get("raw_stacktrace")));
                        }
                    }
                }
                (None, sent) => prop_assert!(sent.is_none()),
                (Some(_), None) => prop_assert!(false, "values read where there are none"),
            }
            for (key, read) in [("release", top.release), ("dist", top.dist), ("debug_meta", top.debug_meta)] {
                if let Some(read) = read {
                    let value = serde_json::from_str::<Value>(read).ok();
                    prop_assert_eq!(value.as_ref(), event.get(key));
                }
            }
            let (b, i) = (text.as_bytes(), cut.index(text.len()));
            for changed in [[&b[..i], &b[i + 1..]].concat(), [&b[..i], &[byte], &b[i + 1..]].concat()] {
                // Only texts: the reader is given `&str`.
                let Ok(changed) = String::from_utf8(changed) else { continue };
                // serde's syntax, as serde skips a value (`IgnoredAny`): a number too large for an `f64` is JSON, which
                // only a `Value` refuses.
                if serde_json::from_str::<serde::de::IgnoredAny>(&changed).is_err() {
                    prop_assert!(super::top(&changed).is_none(), "read where serde refuses: {}", changed);
                }
            }
        }
    }
}
