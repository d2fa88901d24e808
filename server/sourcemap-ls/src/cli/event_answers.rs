//! Events' answers kept for the events that repeat them, within one generation of the store (issue 56).
//!
//! A crash that happens once happens again: a pipeline sees the same exception with the same frames from many users,
//! each event with its own `event_id`, timestamp, breadcrumbs and user. Everything symbolication reads of an event
//! is in its [`EventText::answer_key`] (its kind; `release`, `dist`, `debug_meta`; each frame's exception and text;
//! and the debug IDs its text names, read by the stream), and within one generation of the store (the folders as
//! scanned at start or at the last SIGHUP) the same maps answer the same key the same way: so what the first such
//! event's answers wrote ([`WrittenFrames`]), with its counts and notes, is written into the next one's own text,
//! without finding its bundles, maps, sources or names again. An event whose key differs in one byte is answered in
//! full.
//!
//! Kept under the cache's one budget (the `eventAnswers` cache), least recently used going first; a new generation
//! starts empty. The key is stored whole beside its hash, so two events never share answers by a collision.

use std::sync::Arc;

use sourcemap_core::internal::budget::{CacheBudget, Lru};
use sourcemap_core::trace::document::{KeptObjects, WrittenFrames};

/// What symbolicating one event gave, for the events with its key.
pub(super) struct Answered {
    key: Box<[u8]>,
    pub(super) written: WrittenFrames,
    /// Frames read (not native) and answered.
    pub(super) frames: u64,
    pub(super) mapped: u64,
    /// What it said on stderr (said again for each event, as the first one's would be).
    pub(super) notes: Vec<Note>,
}

/// A note an event makes; the ones naming the event's line get the line of the event that says it.
#[derive(Clone, Debug)]
pub(super) enum Note {
    Plain(String),
    /// A frame the event's own evidence refused (its debug ID, its copy of the bundle's lines).
    Refused {
        file: String,
        why: String,
    },
    /// Bundles the evidence cannot tell apart.
    Ambiguous {
        candidates: usize,
        file: String,
    },
}

impl Note {
    /// The note as said for the event on line `line` (1-based).
    pub(super) fn text(&self, line: u64) -> String {
        match self {
            Note::Plain(s) => s.clone(),
            Note::Refused { file, why } => format!("{file} (line {line}): {why}"),
            Note::Ambiguous { candidates, file } => format!(
                "{candidates} bundles could be {file}; its frames are not mapped (first on line {line}). Choose one \
                 with --bundle {}=PATH",
                sourcemap_core::trace::stack::file_name_of(file)
            ),
        }
    }

    fn heap_bytes(&self) -> usize {
        std::mem::size_of::<Note>()
            + match self {
                Note::Plain(s) => s.capacity(),
                Note::Refused { file, why } => file.capacity() + why.capacity(),
                Note::Ambiguous { file, .. } => file.capacity(),
            }
    }
}

/// One generation's kept answers: events', and the frames' objects events wrote (`KeptObjects`: distinct events
/// share their frames).
pub(super) struct EventAnswers {
    kept: Arc<Lru<u128, Arc<Answered>>>,
    objects: KeptObjects,
}

impl EventAnswers {
    pub(super) fn new(budget: &Arc<CacheBudget>) -> EventAnswers {
        EventAnswers {
            kept: Lru::new("eventAnswers", budget),
            objects: KeptObjects::new(budget),
        }
    }

    /// Frames' objects written back by this generation's events.
    pub(super) fn objects(&self) -> &KeptObjects {
        &self.objects
    }

    /// The answers kept for `key`.
    pub(super) fn get(&self, key: &[u8]) -> Option<Arc<Answered>> {
        self.kept
            .get(&xxhash_rust::xxh3::xxh3_128(key))
            .filter(|a| *a.key == *key)
    }

    pub(super) fn keep(
        &self,
        key: Vec<u8>,
        written: WrittenFrames,
        (frames, mapped): (u64, u64),
        notes: Vec<Note>,
    ) {
        let bytes = key.len()
            + written.heap_bytes()
            + notes.iter().map(Note::heap_bytes).sum::<usize>()
            + std::mem::size_of::<Answered>();
        let hash = xxhash_rust::xxh3::xxh3_128(&key);
        let answered = Answered {
            key: key.into_boxed_slice(),
            written,
            frames,
            mapped,
            notes,
        };
        self.kept.insert(hash, Arc::new(answered), bytes);
    }
}
