//! Frames' answers kept across sessions (issue 66): a pipeline's events are distinct, but their frames recur (the
//! same library and app frames in different crashes), and a frame's lookup and naming is the same wherever it
//! comes.
//!
//! What [`symbolicate_frame_with`] answers is a function of the map, the texts that name functions (the map's
//! generated file, its sources), how that file stands from the map ([`CodeScopes::generated_shift`]) and the
//! frame's own fields it reads: its file (Metro's segments and RAM modules are placed by it), position, precision,
//! printed name, and whether it is native or inside `eval`. The place says who the map and its texts are
//! ([`KeptFor`]'s identities, unique within one generation of its store); the frame's fields are written out whole
//! in the key beside them. A kept answer is given back only for the same key, compared byte for byte (its hash finds
//! it, never decides it). What follows the lookup (chains of maps, call sites' names, names the source does not
//! spell, the fit's verdict, the event's evidence) is made again for every session: those read the other frames.

use std::sync::Arc;

use super::{symbolicate_frame_with, OriginalFrame, SymbolicatedFrame};
use crate::internal::budget::{CacheBudget, Lru};
use crate::map::index::SourceMapIndex;
use crate::trace::function_name::CodeScopes;
use crate::trace::stack::{Precision, StackFrame};

/// Frames' answers kept under a cache budget, least recently used first.
#[derive(Clone)]
pub struct KeptFrames {
    kept: Arc<Lru<u128, Arc<Kept>>>,
}

struct Kept {
    key: Box<[u8]>,
    original: Option<OriginalFrame>,
    ignored: bool,
    unresolved: Option<String>,
}

impl KeptFrames {
    /// Answers kept under `budget` (with whatever else it holds).
    pub fn new(budget: &Arc<CacheBudget>) -> KeptFrames {
        KeptFrames {
            kept: Lru::new("frameAnswers", budget),
        }
    }

    fn get(&self, key: &[u8]) -> Option<Arc<Kept>> {
        self.kept
            .get(&xxhash_rust::xxh3::xxh3_128(key))
            .filter(|k| *k.key == *key)
    }

    fn keep(&self, key: Vec<u8>, answer: &SymbolicatedFrame) {
        let text = |s: &Option<String>| s.as_ref().map_or(0, String::capacity);
        let bytes = key.len()
            + std::mem::size_of::<Kept>()
            + text(&answer.unresolved)
            + answer.original.as_ref().map_or(0, |o| {
                text(&o.source) + text(&o.name) + text(&o.function) + text(&o.path)
            });
        let hash = xxhash_rust::xxh3::xxh3_128(&key);
        let kept = Kept {
            key: key.into_boxed_slice(),
            original: answer.original.clone(),
            ignored: answer.ignored,
            unresolved: answer.unresolved.clone(),
        };
        self.kept.insert(hash, Arc::new(kept), bytes);
    }
}

/// One session's view of [`KeptFrames`]: the identity of each of its maps (by the session's numbering) with its
/// texts, `None` for a map whose answers are not kept (one the place cannot name across sessions).
pub struct KeptFor<'a> {
    /// Where the answers are kept.
    pub frames: &'a KeptFrames,
    /// Map `i`'s identity with its texts.
    pub maps: Vec<Option<Arc<[u8]>>>,
}

/// [`symbolicate_frame_with`], answered from `kept` when an earlier session answered the same frame from the same
/// map, and kept for the next otherwise.
pub(super) fn symbolicate_frame_kept(
    index: &SourceMapIndex,
    map: usize,
    frame: &StackFrame,
    code: &dyn CodeScopes,
    kept: Option<&KeptFor<'_>>,
) -> SymbolicatedFrame {
    let Some((frames, identity)) =
        kept.and_then(|k| Some((k.frames, k.maps.get(map)?.as_deref()?)))
    else {
        return symbolicate_frame_with(index, map, frame, code);
    };
    let key = frame_key(identity, &code.generated_shift(map), frame);
    if let Some(k) = frames.get(&key) {
        return SymbolicatedFrame {
            frame: frame.clone(),
            map: None,
            original: k.original.clone(),
            ignored: k.ignored,
            unresolved: k.unresolved.clone(),
        };
    }
    let answer = symbolicate_frame_with(index, map, frame, code);
    frames.keep(key, &answer);
    answer
}

/// The key of `frame`'s answer from the map `identity` names, its generated text standing as `shift` says: every
/// field the lookup reads, each written whole (a length before each text), so two keys are equal only when all are.
fn frame_key(identity: &[u8], shift: &crate::map::position::Shift, frame: &StackFrame) -> Vec<u8> {
    let text = key_text;
    let mut key =
        Vec::with_capacity(identity.len() + 64 + frame.file.as_ref().map_or(0, String::len));
    key.extend_from_slice(&(identity.len() as u64).to_le_bytes());
    key.extend_from_slice(identity);
    key.extend_from_slice(&shift.lines.to_le_bytes());
    key.extend_from_slice(&(shift.columns.len() as u64).to_le_bytes());
    for (line, n) in &shift.columns {
        key.extend_from_slice(&line.to_le_bytes());
        key.extend_from_slice(&n.to_le_bytes());
    }
    text(&mut key, frame.file.as_deref());
    text(&mut key, frame.function.as_deref());
    match frame.generated {
        Some(p) => {
            key.push(1);
            key.extend_from_slice(&p.line.to_le_bytes());
            key.extend_from_slice(&p.column.to_le_bytes());
        }
        None => key.push(0),
    }
    key.push(match frame.precision {
        Precision::Column => 0,
        Precision::Line => 1,
    });
    key.push(u8::from(frame.native) | u8::from(frame.in_eval) << 1);
    key
}

/// Appends an optional text to a key so that no two lists of texts give one key: a mark for absent or present, then
/// the length before the bytes.
pub(crate) fn key_text(key: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => {
            key.push(1);
            key.extend_from_slice(&(s.len() as u64).to_le_bytes());
            key.extend_from_slice(s.as_bytes());
        }
        None => key.push(0),
    }
}

#[cfg(test)]
mod tests {
    use super::frame_key;
    use crate::map::position::Shift;
    use crate::trace::stack::parse_line;

    #[test]
    fn every_field_the_lookup_reads_is_in_the_key() {
        let frame = |line: &str| match parse_line(line, Default::default()) {
            crate::trace::stack::StackLine::Frame(f) => f,
            other => panic!("{other:?}"),
        };
        let base = frame("    at foo (https://x.test/app.js:1:10)");
        fn key(f: &crate::trace::stack::StackFrame, id: &[u8], shift: &Shift) -> Vec<u8> {
            frame_key(id, shift, f)
        }
        let k = key(&base, b"map", &Shift::default());
        // The same frame from the same map: one key, whatever the frame's text around it.
        assert_eq!(
            k,
            key(
                &frame("  at foo (https://x.test/app.js:1:10)"),
                b"map",
                &Shift::default()
            )
        );
        let mut others = vec![
            key(&base, b"other map", &Shift::default()),
            key(
                &base,
                b"map",
                &Shift {
                    lines: 1,
                    columns: vec![],
                },
            ),
            key(
                &base,
                b"map",
                &Shift {
                    lines: 0,
                    columns: vec![(0, 3)],
                },
            ),
            key(
                &frame("    at bar (https://x.test/app.js:1:10)"),
                b"map",
                &Shift::default(),
            ),
            key(
                &frame("    at https://x.test/app.js:1:10"),
                b"map",
                &Shift::default(),
            ),
            key(
                &frame("    at foo (https://x.test/app.js:1:11)"),
                b"map",
                &Shift::default(),
            ),
            key(
                &frame("    at foo (https://x.test/app.js:2:10)"),
                b"map",
                &Shift::default(),
            ),
            key(
                &frame("    at foo (https://x.test/1.js:1:10)"),
                b"map",
                &Shift::default(),
            ),
        ];
        let mut f = base.clone();
        f.precision = crate::trace::stack::Precision::Line;
        others.push(key(&f, b"map", &Shift::default()));
        let mut f = base.clone();
        f.native = true;
        others.push(key(&f, b"map", &Shift::default()));
        let mut f = base.clone();
        f.in_eval = true;
        others.push(key(&f, b"map", &Shift::default()));
        let mut f = base.clone();
        f.generated = None;
        others.push(key(&f, b"map", &Shift::default()));
        // A name and a file that would run together without their lengths.
        let mut f = base.clone();
        f.function = Some("foohttps:".into());
        f.file = Some("//x.test/app.js".into());
        others.push(key(&f, b"map", &Shift::default()));
        others.push(k);
        let n = others.len();
        others.sort();
        others.dedup();
        assert_eq!(others.len(), n, "every change makes another key");
    }
}
