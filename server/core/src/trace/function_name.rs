//! The original function a frame is in, from the code itself when the map has no `scopes` or function map.
//!
//! The name of the mapping at a frame belongs to the token executed there (usually the callee), not to the
//! function the frame is in, so it is never used as the frame's function. Instead:
//!
//! 1. **Generated-code scopes.** The innermost function of the generated file around the frame's generated
//!    position; each token of its name (`e` of `function e(`) is looked up in the map *exactly* at the token, and the
//!    mapping's original name is used (`arrayMap`), or the token's own text when the mapping has no name (the
//!    identifier was not renamed). A token with no segment starting on it cannot be trusted; a `Class.` qualifier
//!    that cannot be mapped is dropped.
//!    The function must also be the frame's original function, not one a minifier inlined the frame's code into or
//!    a bundler's module wrapper: its first segment must map into the frame's source, at or before the frame, and
//!    its last segment at or after it; with the original source at hand, its start must lie in the same original
//!    function as the frame.
//! 2. **Original-source scopes.** The innermost function of the original source around the frame's original
//!    position, named as written. Top-level code has no function. When the generated function was verified to be
//!    this one, the original's declared name is preferred over the mapped one: minifiers drop function expressions'
//!    own names and turn single-use functions into anonymous IIFEs (measured on the round-trip corpus,
//!    `tests/roundtrip.rs`: that alone is most of the difference between 75–81 % and the goal).
//!
//! Each answer is either a name, or "anonymous" (a callback, or top-level code), with where it came from.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use crate::internal::budget::{CacheBudget, Lru};
use crate::map::position::Shift;

use crate::map::compact::Bias;
use crate::map::index::{GeneratedPosition, OriginalPosition, SourceId, SourceMapIndex};
use crate::trace::js_scopes::{Dialect, FunctionAt, FunctionScopes, TextPosition};
use crate::trace::text_scopes::TextScopes;

/// What symbolication can read besides the maps: the function scopes of the file a map describes and of its
/// original sources. `map` is the caller's identifier of a map (as in [`crate::trace::symbolicate::symbolicate`]).
pub trait CodeScopes {
    /// The function scopes of the text map `map` describes, for the position `at` of that text: the table's
    /// [`FunctionScopes::innermost`] at `at` is the whole text's (a table of a part of the text answers its own
    /// positions only).
    fn generated(&self, map: usize, at: TextPosition) -> Option<Arc<FunctionScopes>>;
    /// The same for the original source `source` of `map`, at a position `at` of its text.
    fn original(
        &self,
        map: usize,
        source: SourceId,
        at: TextPosition,
    ) -> Option<Arc<FunctionScopes>>;
    /// How the generated text stands from the map's own positions: a banner prepended after the map was made
    /// (lines), text put at a line's start (columns), when the caller looks frames up shifted (`--apply-shift`,
    /// `map::position::Shift`): for the frame's position and for every token named from the text alike. None by
    /// default.
    fn generated_shift(&self, _map: usize) -> Shift {
        Shift::default()
    }
    /// Parses now what naming functions at these positions will need (`generated`: a map's generated text's
    /// positions, shifted as [`CodeScopes::generated_shift`] says; `original`: its sources'), so that the lookups
    /// that follow find it parsed. Nothing by default: the scopes are then read when asked.
    fn prefetch(
        &self,
        _generated: &[(usize, TextPosition)],
        _original: &[(usize, SourceId, TextPosition)],
        _threads: usize,
    ) {
    }
    /// Reads ahead the parts around generated positions that may or may not be asked later
    /// ([`TextScopes::answer_parts`]: never a whole parse of a large text). Nothing by default.
    fn prefetch_parts(&self, _generated: &[(usize, TextPosition)]) {}
}

/// No code at hand: names come from the maps and the frames only.
pub struct NoCode;

impl CodeScopes for NoCode {
    fn generated(&self, _: usize, _: TextPosition) -> Option<Arc<FunctionScopes>> {
        None
    }
    fn original(&self, _: usize, _: SourceId, _: TextPosition) -> Option<Arc<FunctionScopes>> {
        None
    }
}

type GeneratedText<'a> = Box<dyn Fn(usize) -> Option<(String, CodeText)> + Send + Sync + 'a>;
type OriginalText<'a> =
    Box<dyn Fn(usize, SourceId) -> Option<(String, CodeText)> + Send + Sync + 'a>;

/// A text a reader of [`ScopeCache`] gives: its own, or one kept elsewhere and shared (a source's text, unescaped once
/// for context lines too: copied for each session's scopes, it was 5 % of a cold event, `perf`).
pub enum CodeText {
    /// A text read for the scopes alone.
    Owned(String),
    /// A source's text as kept for context lines.
    Lined(Arc<crate::trace::event_context::LinedText>),
}

impl CodeText {
    fn as_str(&self) -> &str {
        match self {
            CodeText::Owned(s) => s,
            CodeText::Lined(t) => t.text(),
        }
    }
}

impl From<String> for CodeText {
    fn from(s: String) -> Self {
        CodeText::Owned(s)
    }
}

impl From<Arc<crate::trace::event_context::LinedText>> for CodeText {
    fn from(t: Arc<crate::trace::event_context::LinedText>) -> Self {
        CodeText::Lined(t)
    }
}

/// [`CodeScopes`] over two text readers: each file's [`TextScopes`], parsed in parts or whole as the positions asked
/// need, each part at most once (the same file never twice at once). The readers return `(file name, text)`; the
/// name chooses the dialect (`.ts`, `.jsx`…).
pub struct ScopeCache<'a> {
    generated_text: GeneratedText<'a>,
    original_text: OriginalText<'a>,
    generated_shift: Box<dyn Fn(usize) -> Shift + Send + Sync + 'a>,
    generated: Files<usize>,
    original: Files<(usize, SourceId)>,
    shared: Option<Sharing<'a>>,
}

/// Each file's scopes, with its key among the scopes kept across sessions when they are kept there.
type Files<K> = Mutex<HashMap<K, (Arc<Mutex<TextScopes>>, Option<TextIdentity>)>>;

/// Where a session's texts are found among the scopes kept across sessions.
struct Sharing<'a> {
    scopes: &'a SharedScopes,
    generated: Box<dyn Fn(usize) -> Option<TextIdentity> + Send + Sync + 'a>,
    original: Box<dyn Fn(usize, SourceId) -> Option<TextIdentity> + Send + Sync + 'a>,
}

/// A text's identity across sessions: the file it is in as the file is now, or, for a source a map carries, what
/// the text is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TextIdentity {
    /// A file as it is now.
    File {
        /// The bundle, or the map holding the source.
        file: PathBuf,
        /// The file's length.
        len: u64,
        /// The file's modification time, when the system gives one.
        modified: Option<SystemTime>,
        /// The source's index in the map; `None` for a bundle.
        source: Option<u32>,
    },
    /// A source in a map's `sourcesContent`, by its content: the same in every map that carries the same text (a
    /// library's file, in each release's map), so a pipeline that meets each release once parses it once.
    Content {
        /// [`SourceMapIndex::source_content_id`].
        hash: u128,
        /// The literal's length.
        len: usize,
        /// The source's file name, which chooses how it is parsed (`.ts`, `.jsx`…).
        name: Box<str>,
    },
}

impl TextIdentity {
    /// The key of the file at `file` as it is now (`source`: a map's source), when the file can be read.
    pub fn of(file: &std::path::Path, source: Option<u32>) -> Option<TextIdentity> {
        let meta = std::fs::metadata(file).ok()?;
        Some(TextIdentity::File {
            file: std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf()),
            len: meta.len(),
            modified: meta.modified().ok(),
            source,
        })
    }

    /// The key of a source by its content in `index`, when the index has it.
    pub fn of_content(index: &SourceMapIndex, source: SourceId) -> Option<TextIdentity> {
        let (hash, len) = index.source_content_id(source)?;
        let url = index.source(source).url.as_deref().unwrap_or("");
        Some(TextIdentity::Content {
            hash,
            len,
            name: crate::trace::stack::file_name_of(url).into(),
        })
    }
}

/// Texts' function scopes kept across sessions (a pipeline's, one session per event) under a memory budget, least
/// recently used first. A text's scopes answer a position the same whichever positions were asked first
/// ([`TextScopes`]), so a later session parses only the parts no earlier one needed, and names nothing differently.
#[derive(Clone)]
pub struct SharedScopes {
    texts: Arc<Lru<TextIdentity, Arc<Mutex<TextScopes>>>>,
}

impl SharedScopes {
    /// Scopes kept under `budget` (with whatever else it holds).
    pub fn new(budget: &Arc<CacheBudget>) -> SharedScopes {
        SharedScopes {
            texts: Lru::new("scopes", budget),
        }
    }

    fn get(&self, key: TextIdentity) -> (Arc<Mutex<TextScopes>>, Option<TextIdentity>) {
        if let Some(kept) = self.texts.get(&key) {
            return (kept, Some(key));
        }
        let fresh: Arc<Mutex<TextScopes>> = Arc::default();
        // Nothing parsed yet: counted once it is (`grew`).
        self.texts.insert(key.clone(), fresh.clone(), 0);
        (fresh, Some(key))
    }

    /// Counts the text `key`'s scopes at what they hold now: parsing more of a text makes them grow, and the budget
    /// counts what is held, not an estimate.
    fn grew(&self, key: &TextIdentity, scopes: &TextScopes) {
        self.texts.resize(key, scopes.heap_bytes());
    }
}

impl<'a> ScopeCache<'a> {
    /// A cache reading texts through `generated_text` (by map) and `original_text` (by map and source); each returns
    /// `(file name, text)`, or `None` when the text is not at hand.
    pub fn new<G: Into<CodeText>, O: Into<CodeText>>(
        generated_text: impl Fn(usize) -> Option<(String, G)> + Send + Sync + 'a,
        original_text: impl Fn(usize, SourceId) -> Option<(String, O)> + Send + Sync + 'a,
    ) -> Self {
        ScopeCache {
            generated_text: Box::new(move |m| generated_text(m).map(|(n, t)| (n, t.into()))),
            original_text: Box::new(move |m, s| original_text(m, s).map(|(n, t)| (n, t.into()))),
            generated_shift: Box::new(|_| Shift::default()),
            generated: Mutex::default(),
            original: Mutex::default(),
            shared: None,
        }
    }

    /// Texts' scopes taken from, and kept in, `scopes` (across sessions), each text known by its key
    /// (`generated_key` by map, `original_key` by map and source; `None`: this session's own).
    pub fn sharing(
        mut self,
        scopes: &'a SharedScopes,
        generated_key: impl Fn(usize) -> Option<TextIdentity> + Send + Sync + 'a,
        original_key: impl Fn(usize, SourceId) -> Option<TextIdentity> + Send + Sync + 'a,
    ) -> Self {
        self.shared = Some(Sharing {
            scopes,
            generated: Box::new(generated_key),
            original: Box::new(original_key),
        });
        self
    }

    fn fresh_generated(&self, map: usize) -> (Arc<Mutex<TextScopes>>, Option<TextIdentity>) {
        self.shared
            .as_ref()
            .and_then(|s| Some(s.scopes.get((s.generated)(map)?)))
            .unwrap_or_default()
    }

    fn fresh_original(
        &self,
        map: usize,
        source: SourceId,
    ) -> (Arc<Mutex<TextScopes>>, Option<TextIdentity>) {
        self.shared
            .as_ref()
            .and_then(|s| Some(s.scopes.get((s.original)(map, source)?)))
            .unwrap_or_default()
    }

    fn kept(&self) -> Option<&SharedScopes> {
        self.shared.as_ref().map(|s| s.scopes)
    }

    /// The shift of each map's generated text ([`CodeScopes::generated_shift`]); none by default.
    pub fn with_generated_shift(
        mut self,
        shift: impl Fn(usize) -> Shift + Send + Sync + 'a,
    ) -> Self {
        self.generated_shift = Box::new(shift);
        self
    }
}

/// The scopes of the file `key` of `files`, having answered `at` (reading its text only when some position needs it;
/// `read_ahead`: parts only, see `TextScopes::answer_parts`).
/// `kept`: the scopes kept across sessions, where the file's are counted again once they grew.
#[allow(clippy::too_many_arguments)]
fn answered<K: std::hash::Hash + Eq + Copy>(
    files: &Files<K>,
    key: K,
    at: &[TextPosition],
    text: impl FnOnce() -> Option<(String, CodeText)>,
    dialect: Dialect,
    read_ahead: bool,
    fresh: impl FnOnce() -> (Arc<Mutex<TextScopes>>, Option<TextIdentity>),
    kept: Option<&SharedScopes>,
) -> Arc<Mutex<TextScopes>> {
    let (file, shared_key) = files
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(key)
        .or_insert_with(fresh)
        .clone();
    {
        // Held while parsing: other files parse in parallel under `prefetch`, this one once.
        let mut scopes = file.lock().unwrap_or_else(|e| e.into_inner());
        if at.iter().any(|&p| scopes.known(p).is_none()) {
            match (text(), read_ahead) {
                // Reading ahead: parts only (`TextScopes::answer_parts`), and an unreadable text is left for later.
                (Some((name, text)), true) => {
                    scopes.answer_parts(text.as_str(), &name, dialect, at)
                }
                (None, true) => {}
                (Some((name, text)), false) => {
                    scopes.answer(Some(text.as_str()), &name, dialect, at)
                }
                (None, false) => scopes.answer(None, "", dialect, at),
            }
            if let Some((kept, key)) = kept.zip(shared_key.as_ref()) {
                kept.grew(key, &scopes);
            }
        }
    }
    file
}

impl ScopeCache<'_> {
    /// Parses what naming functions at these positions needs now, several files at a time (one thread per core),
    /// so that the lookups that follow find them parsed: the whole cost of naming a trace's frames is parsing its
    /// bundles and sources. `generated` are positions of a map's generated text (shifted as
    /// [`CodeScopes::generated_shift`] says), `original` of its sources.
    pub fn prefetch(
        &self,
        generated: &[(usize, TextPosition)],
        original: &[(usize, SourceId, TextPosition)],
        threads: usize,
    ) {
        let mut by_bundle: HashMap<usize, Vec<TextPosition>> = HashMap::new();
        for &(m, p) in generated {
            by_bundle.entry(m).or_default().push(p);
        }
        let mut by_source: HashMap<(usize, SourceId), Vec<TextPosition>> = HashMap::new();
        for &(m, s, p) in original {
            by_source.entry((m, s)).or_default().push(p);
        }
        enum Job {
            Generated(usize, Vec<TextPosition>),
            Original((usize, SourceId), Vec<TextPosition>),
        }
        let mut jobs: Vec<Job> = by_bundle
            .into_iter()
            .map(|(m, p)| Job::Generated(m, p))
            .chain(by_source.into_iter().map(|(k, p)| Job::Original(k, p)))
            .collect();
        // Deterministic order, largest groups first.
        jobs.sort_by_key(|j| match j {
            Job::Generated(m, p) => (std::cmp::Reverse(p.len()), 0, *m, 0),
            Job::Original((m, s), p) => (std::cmp::Reverse(p.len()), 1, *m, s.0),
        });
        let next = std::sync::atomic::AtomicUsize::new(0);
        let work = || loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            match jobs.get(i) {
                None => break,
                Some(Job::Generated(m, at)) => {
                    self.answer_generated(*m, at);
                }
                Some(Job::Original((m, s), at)) => {
                    self.answer_original(*m, *s, at);
                }
            }
        };
        let threads = threads.min(jobs.len());
        if threads <= 1 {
            return work();
        }
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(work);
            }
        });
    }

    fn answer_generated(&self, map: usize, at: &[TextPosition]) -> Arc<Mutex<TextScopes>> {
        answered(
            &self.generated,
            map,
            at,
            || (self.generated_text)(map),
            Dialect::Generated,
            false,
            || self.fresh_generated(map),
            self.kept(),
        )
    }

    fn answer_original(
        &self,
        map: usize,
        source: SourceId,
        at: &[TextPosition],
    ) -> Arc<Mutex<TextScopes>> {
        answered(
            &self.original,
            (map, source),
            at,
            || (self.original_text)(map, source),
            Dialect::Original,
            false,
            || self.fresh_original(map, source),
            self.kept(),
        )
    }
}

impl CodeScopes for ScopeCache<'_> {
    fn prefetch(
        &self,
        generated: &[(usize, TextPosition)],
        original: &[(usize, SourceId, TextPosition)],
        threads: usize,
    ) {
        ScopeCache::prefetch(self, generated, original, threads);
    }

    fn prefetch_parts(&self, generated: &[(usize, TextPosition)]) {
        let mut by_bundle: HashMap<usize, Vec<TextPosition>> = HashMap::new();
        for &(m, p) in generated {
            by_bundle.entry(m).or_default().push(p);
        }
        let mut maps: Vec<_> = by_bundle.into_iter().collect();
        maps.sort_by_key(|(m, _)| *m);
        for (m, at) in maps {
            answered(
                &self.generated,
                m,
                &at,
                || (self.generated_text)(m),
                Dialect::Generated,
                true,
                || self.fresh_generated(m),
                self.kept(),
            );
        }
    }

    fn generated_shift(&self, map: usize) -> Shift {
        (self.generated_shift)(map)
    }

    fn generated(&self, map: usize, at: TextPosition) -> Option<Arc<FunctionScopes>> {
        let file = self.answer_generated(map, &[at]);
        let scopes = file.lock().unwrap_or_else(|e| e.into_inner());
        scopes.table(at)
    }

    fn original(
        &self,
        map: usize,
        source: SourceId,
        at: TextPosition,
    ) -> Option<Arc<FunctionScopes>> {
        let file = self.answer_original(map, source, &[at]);
        let scopes = file.lock().unwrap_or_else(|e| e.into_inner());
        scopes.table(at)
    }
}

/// Where a name was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeOrigin {
    /// From the generated file's scopes, the name's tokens looked up in the map.
    Generated,
    /// From the original source's scopes.
    Original,
}

/// The frame's function by scope analysis: `Some(name)`, or `None` for an anonymous function or top-level code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeAnswer {
    /// The function's name; `None` for an anonymous function or top-level code (see `top_level`).
    pub function: Option<String>,
    /// Whose scopes named it.
    pub origin: ScopeOrigin,
    /// The position is in no function at all (module or script top level).
    pub top_level: bool,
}

/// The generated file's scopes, and how its text stands from the map's positions ([`CodeScopes::generated_shift`]).
/// Every position crosses between the two here and nowhere else: the frame's (map) position into the text to find
/// its function, the function's extent and name tokens back into the map to look them up, so that names come from
/// the same shifted text as the frame's original position.
#[derive(Clone, Copy)]
pub struct GeneratedCode<'a> {
    /// The generated file's function scopes, over its text (which may stand apart from the map's positions).
    pub scopes: &'a FunctionScopes,
    /// How the text stands from the map: text position = `shift.to_text(map position)`.
    pub shift: &'a Shift,
}

impl GeneratedCode<'_> {
    fn text_position(&self, p: GeneratedPosition) -> Option<TextPosition> {
        let t = self.shift.to_text(p)?;
        Some(TextPosition {
            line: t.line,
            column: t.column,
        })
    }

    /// `None` for a position of the text outside the map (in a banner).
    fn map_position(&self, t: TextPosition) -> Option<GeneratedPosition> {
        self.shift.to_map(GeneratedPosition {
            line: t.line,
            column: t.column,
        })
    }
}

/// See the module documentation. `p` is the frame's generated position and `at` what it maps to.
pub fn function_by_scopes(
    index: &SourceMapIndex,
    p: GeneratedPosition,
    at: &OriginalPosition<'_>,
    generated: Option<GeneratedCode<'_>>,
    original: Option<&FunctionScopes>,
) -> Option<ScopeAnswer> {
    let at_original = TextPosition {
        line: at.line,
        column: at.column,
    };
    // A component's template is not its scripts' code: the table says nothing there.
    let original = original.filter(|o| o.reads(at_original));
    let original_function = original.map(|o| o.innermost(at_original));
    let generated_function = generated.and_then(|g| {
        let f = g.scopes.innermost(g.text_position(p)?)?;
        is_frames_function(index, g, &f, at, original_function.as_ref()).then_some((g, f))
    });
    // With the original at hand and the generated function verified to be the same one, the original's own
    // declaration is the truth: minifiers drop the names of function expressions (`nonEmpty: function
    // checkNonEmpty`), turn single-use functions into anonymous IIFEs, and move functions out of objects into
    // variables whose mapped name is the object's.
    if let (Some(_), Some(Some(o))) = (&generated_function, &original_function) {
        if let Some(name) = o.written_name() {
            return Some(ScopeAnswer {
                function: Some(name),
                origin: ScopeOrigin::Original,
                top_level: false,
            });
        }
    }
    if let Some(function) = generated_function.and_then(|(g, f)| generated_name(index, g, &f)) {
        return Some(ScopeAnswer {
            function,
            origin: ScopeOrigin::Generated,
            top_level: false,
        });
    }
    original_function.map(|f| ScopeAnswer {
        top_level: f.is_none(),
        function: f.and_then(|f| f.written_name()),
        origin: ScopeOrigin::Original,
    })
}

fn position_of(o: &OriginalPosition<'_>) -> (u32, u32) {
    (o.line, o.column)
}

/// Whether the generated function `f` is the original function the frame's code is in (see the module docs).
fn is_frames_function(
    index: &SourceMapIndex,
    g: GeneratedCode<'_>,
    f: &FunctionAt<'_>,
    at: &OriginalPosition<'_>,
    original_function: Option<&Option<FunctionAt<'_>>>,
) -> bool {
    let (Some(start), Some(end)) = (g.map_position(f.start), g.map_position(f.end)) else {
        return false;
    };
    // The function's first segment: the first one at or after its start, inside it.
    let Ok(Some(first)) = index.lookup(start, Bias::LeastUpperBound) else {
        return false;
    };
    if first.generated >= end {
        return false;
    }
    let Some(first) = first.original else {
        return false;
    };
    if first.source != at.source || position_of(&first) > position_of(at) {
        return false;
    }
    // Its last segment: the last one before its end, on the end's line (functions that end a line early are common
    // in unminified output: then the check is skipped rather than searching back).
    if end.column > 0 {
        let before_end = GeneratedPosition {
            line: end.line,
            column: end.column - 1,
        };
        if let Ok(Some(hit)) = index.lookup(before_end, Bias::GreatestLowerBound) {
            if let Some(last) = hit.original.filter(|_| hit.generated >= start) {
                if (last.source != at.source || position_of(&last) < position_of(at))
                    && !mapped_in_head(index, start, hit.generated, &last)
                {
                    return false;
                }
            }
        }
    }
    match original_function {
        // The original source is known: the function's start must lie in the frame's original function (it is that
        // function's own start, or a position in its head), not outside it.
        Some(frame_function) => {
            let Some(frame_function) = frame_function else {
                return false;
            };
            let start_in = TextPosition {
                line: first.line,
                column: first.column,
            };
            start_in >= frame_function.start && start_in < frame_function.end
        }
        None => true,
    }
}

/// How many segments from a function's start make its head (`function`, name, parameters, the body's `{`).
const HEAD_SEGMENTS: usize = 16;

/// Whether the original position `last` of the function's last segment (at `last_at`) is already mapped by one of
/// the first [`HEAD_SEGMENTS`] segments from `start`: then the end repeats the head and says nothing of where the
/// original function ends. Closure Compiler maps a block's closing `}` to the same original position as its opening
/// `{` (rxjs 6.6.7's `rxjs.umd.min.js`: `a.prototype._next=function(b){…}`, the `{` and the `}` both at
/// `MapSubscriber.prototype._next`'s `{`); a function another one's code was inlined into ends on its own `}`, which
/// its head does not map.
fn mapped_in_head(
    index: &SourceMapIndex,
    start: GeneratedPosition,
    last_at: GeneratedPosition,
    last: &OriginalPosition<'_>,
) -> bool {
    let mut p = start;
    for _ in 0..HEAD_SEGMENTS {
        // A lookup stays on its line: the head may go on on the next one.
        let hit = match index.lookup(p, Bias::LeastUpperBound) {
            Ok(Some(hit)) => hit,
            Ok(None) if p.line < last_at.line => {
                p = GeneratedPosition {
                    line: p.line + 1,
                    column: 0,
                };
                continue;
            }
            _ => return false,
        };
        if hit.generated >= last_at {
            return false;
        }
        if hit
            .original
            .is_some_and(|o| o.source == last.source && position_of(&o) == position_of(last))
        {
            return true;
        }
        p = GeneratedPosition {
            line: hit.generated.line,
            column: hit.generated.column + 1,
        };
    }
    false
}

/// The original name of the generated function `f`: `Some(None)` when anonymous, `None` when its name cannot be
/// mapped.
fn generated_name(
    index: &SourceMapIndex,
    g: GeneratedCode<'_>,
    f: &FunctionAt<'_>,
) -> Option<Option<String>> {
    if f.parts.is_empty() {
        return Some(None);
    }
    let mut qualifier = String::new();
    let mut name = String::new();
    let mut qualifier_ok = true;
    for (i, part) in f.parts.iter().enumerate() {
        let in_qualifier = i < f.qualifier;
        let text = match part.token {
            None => Some(f.text(part).to_string()),
            Some(t) => {
                // `#name`: the column before the identifier is its own `#`, not another token's end.
                let private =
                    i > 0 && f.parts[i - 1].token.is_none() && f.text(&f.parts[i - 1]) == "#";
                g.map_position(t)
                    .and_then(|t| token_name(index, t, f.text(part), !private))
            }
        };
        match (text, in_qualifier) {
            (Some(t), true) => qualifier.push_str(&t),
            (None, true) => qualifier_ok = false,
            (Some(t), false) => name.push_str(&t),
            (None, false) => return None,
        }
    }
    if qualifier_ok {
        qualifier.push_str(&name);
        return Some(Some(qualifier));
    }
    Some(Some(name))
}

/// The original name of the identifier `text` at `p` (in the map's lines) in the generated file: the `names` entry of
/// the segment that starts exactly there, or the text itself when that segment has none (not renamed). No segment
/// there: a named segment one column before it is the token's ([`EARLY_NAME_COLUMNS`]) when `early` allows; else
/// unknown.
fn token_name(
    index: &SourceMapIndex,
    p: GeneratedPosition,
    text: &str,
    early: bool,
) -> Option<String> {
    let hit = index.answer_at(p).ok()??;
    if hit.generated == p {
        let o = hit.original?;
        return Some(o.name.unwrap_or(text).to_string());
    }
    let early = early
        && hit.generated.line == p.line
        && p.column - hit.generated.column <= EARLY_NAME_COLUMNS;
    early.then_some(hit.original?.name?).map(str::to_string)
}

/// How many columns before its identifier a map may put the identifier's named segment. Closure Compiler starts a
/// token's segment where the previous token ends, so `function Pb(` carries `createInvalidObservableTypeError` on
/// the space before `Pb` and `a.prototype._next` its names on the `;` and the dots (rxjs's UMD bundles; Sentry's
/// `off-by-one` fixture). Sentry's resolver accepts the same one column: js-source-scopes `NameResolver::try_map_token`
/// (`src/name_resolver.rs`, `is_exactish_match`: `token.get_dst_col() >= source_position.column.saturating_sub(1)`).
/// Only a segment with a name is taken there: an unnamed segment one column early is another token's (a `.`, a `(`),
/// and says nothing of whether the identifier was renamed.
const EARLY_NAME_COLUMNS: u32 = 1;

#[cfg(test)]
mod tests;
