//! Frames' objects written back into events, kept across events (issue 66): distinct events share their frames, and
//! an answered frame's object written again (`event_json`) is a function of the frame's object as sent, the reporter,
//! its original (source, line, column, function) and the lines of its source around it. Those are the key, written whole (the context lines by the identity of the one
//! value that holds them, which the entry keeps alive, so no other value can take its address while the entry is
//! kept); its hash finds an entry, the key compared byte for byte decides it.

use std::sync::Arc;

use crate::internal::budget::{CacheBudget, Lru};
use crate::trace::event_context::ContextJson;
use crate::trace::event_conventions::EventKind;
use crate::trace::symbolicate::{key_text, OriginalFrame};

/// Frames' objects written back, kept under a cache budget, least recently used first.
#[derive(Clone)]
pub struct KeptObjects {
    kept: Arc<Lru<u128, Arc<Kept>>>,
}

struct Kept {
    key: Box<[u8]>,
    /// Held so that its address, in the key, names it alone while the entry lives.
    _near: Option<Arc<ContextJson>>,
    written: Option<Arc<str>>,
}

impl KeptObjects {
    /// Objects kept under `budget` (with whatever else it holds).
    pub fn new(budget: &Arc<CacheBudget>) -> KeptObjects {
        KeptObjects {
            kept: Lru::new("frameObjects", budget),
        }
    }

    /// The object written for the frame sent as `sent` (its object's text) of an event of `kind`, answered at `o`
    /// with `near` around it: kept, else made by `write` and kept.
    pub(crate) fn written(
        &self,
        kind: EventKind,
        sent: &str,
        o: &OriginalFrame,
        near: Option<Arc<ContextJson>>,
        write: impl FnOnce(Option<Arc<ContextJson>>) -> Option<String>,
    ) -> Option<Arc<str>> {
        let key = object_key(kind, sent, o, near.as_ref());
        let hash = xxhash_rust::xxh3::xxh3_128(&key);
        if let Some(k) = self.kept.get(&hash).filter(|k| *k.key == *key) {
            return k.written.clone();
        }
        let written: Option<Arc<str>> = write(near.clone()).map(Arc::from);
        let bytes =
            key.len() + written.as_ref().map_or(0, |w| w.len()) + std::mem::size_of::<Kept>();
        let kept = Kept {
            key: key.into_boxed_slice(),
            _near: near,
            written: written.clone(),
        };
        self.kept.insert(hash, Arc::new(kept), bytes);
        written
    }
}

/// Everything a frame's object written back is made of (see the module documentation), each text after its length.
fn object_key(
    kind: EventKind,
    sent: &str,
    o: &OriginalFrame,
    near: Option<&Arc<ContextJson>>,
) -> Vec<u8> {
    let mut key = Vec::with_capacity(sent.len() + 128);
    key.push(kind as u8);
    key_text(&mut key, Some(sent));
    key_text(&mut key, o.source.as_deref());
    key.extend_from_slice(&o.line.to_le_bytes());
    key.extend_from_slice(&o.column.to_le_bytes());
    key_text(&mut key, o.function.as_deref());
    let at = near.map_or(0, |n| Arc::as_ptr(n) as usize);
    key.extend_from_slice(&(at as u64).to_le_bytes());
    key
}

#[cfg(test)]
mod tests {
    use super::object_key;
    use crate::trace::event_context::ContextJson;
    use crate::trace::event_conventions::EventKind;
    use crate::trace::symbolicate::OriginalFrame;
    use crate::SourceId;
    use std::sync::Arc;

    #[test]
    fn every_part_of_a_written_object_is_in_the_key() {
        let original = OriginalFrame {
            source_id: SourceId(0),
            source: Some("src/a.js".into()),
            line: 3,
            column: 4,
            name: None,
            function: Some("f".into()),
            function_source: None,
            function_line: None,
            anonymous: false,
            path: None,
        };
        let near = |line: &str| {
            Arc::new(ContextJson {
                lines: (vec![], line.to_string(), vec![]),
                json: ["[]".into(), format!("{line:?}"), "[]".into()],
            })
        };
        let (n1, n2) = (near("a"), near("a"));
        let with = |change: &dyn Fn(&mut OriginalFrame)| {
            let mut o = original.clone();
            change(&mut o);
            o
        };
        let sent = r#"{"colno":2,"lineno":1}"#;
        let base = object_key(EventKind::Sentry, sent, &with(&|_| {}), Some(&n1));
        let mut keys = vec![
            object_key(EventKind::Bugsnag, sent, &with(&|_| {}), Some(&n1)),
            object_key(
                EventKind::Sentry,
                r#"{"colno":3,"lineno":1}"#,
                &with(&|_| {}),
                Some(&n1),
            ),
            object_key(
                EventKind::Sentry,
                sent,
                &with(&|o| o.source = None),
                Some(&n1),
            ),
            object_key(
                EventKind::Sentry,
                sent,
                &with(&|o| o.source = Some("src/b.js".into())),
                Some(&n1),
            ),
            object_key(EventKind::Sentry, sent, &with(&|o| o.line = 4), Some(&n1)),
            object_key(EventKind::Sentry, sent, &with(&|o| o.column = 5), Some(&n1)),
            object_key(
                EventKind::Sentry,
                sent,
                &with(&|o| o.function = None),
                Some(&n1),
            ),
            object_key(
                EventKind::Sentry,
                sent,
                &with(&|o| o.function = Some("g".into())),
                Some(&n1),
            ),
            // Context lines alike in text but another value: another key (the entry holds its own alive).
            object_key(EventKind::Sentry, sent, &with(&|_| {}), Some(&n2)),
            object_key(EventKind::Sentry, sent, &with(&|_| {}), None),
        ];
        keys.push(base.clone());
        let n = keys.len();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), n, "every change makes another key");
        assert_eq!(
            base,
            object_key(EventKind::Sentry, sent, &with(&|_| {}), Some(&n1))
        );
    }
}
