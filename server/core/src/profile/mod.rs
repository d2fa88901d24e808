//! CPU profiles of bundles: the Hermes sampling profile, V8's `.cpuprofile` and the Chrome DevTools trace, read into
//! one model (`Profile`: call-tree frames at bundle positions and the time sampled in each), summarised by original
//! function (`summary.rs`) once the caller has mapped the frames, and written back in their own format with original
//! names and positions (`Rewrite`).
//!
//! Positions of the profile formats, converted to 0-based in `Frame`s by each format's reader as this table says,
//! each checked on every frame of the real recordings in `fixtures/profiles` (README there, with the counts). The
//! other inputs of `profile` keep their conventions beside their readers, with their sources: heap snapshots'
//! `trace_function_infos` (1-based, 0 unknown: `heap_snapshot.rs`), Hermes coverage traces (0-based) and
//! attribution lines (1-based lines, 0-based columns: `coverage.rs`).
//!
//! | format | line | column | what the position is |
//! |---|---|---|---|
//! | Hermes, source frames (`line`, `column`, `funcLine`, `funcColumn`, strings) | 1-based | 1-based | a frame with a callee: the call's `(`; a leaf: its function's start; `funcLine`/`funcColumn`: the function's start (its `function` keyword) |
//! | Hermes, bytecode frames (`funcVirtAddr`, `offset`) | always 1 | `funcVirtAddr + offset`, 0-based | a bytecode address, looked up as a column on line 1 of the Hermes (composed) map; `funcVirtAddr` alone maps to the function's first located instruction (often its first statement, not its head: a row takes its line from the original code's scopes, `OriginalFrame::function_line`) |
//! | V8 `.cpuprofile` `callFrame.lineNumber` / `columnNumber` | 0-based | 0-based | the function's start: the `(` of its parameters, an arrow's first parameter |
//! | Chrome trace `ProfileChunk` node `callFrame` | 0-based | 0-based | as in `.cpuprofile` (the same profiler); each chunk brings only new nodes, with `parent` links |
//!
//! Sources: Hermes `lib/VM/Profiler/ChromeTraceSerializer.cpp` takes `line`/`column` from
//! `getSourceLocation(…, functionId, offset)` and `funcLine`/`funcColumn` from the same at offset 0, Hermes' 1-based
//! debug locations, or without debug info `funcVirtAddr` and `offset` (checked: 381/381 callers at a `(`, 201/201
//! leaves at their start); metro-symbolicate's `symbolicateChromeTrace` reads the columns as 0-based and lands one
//! column right (only 31–35 % of its positions equal the map's answer at the real one). The DevTools protocol's
//! `Runtime.CallFrame` documents `lineNumber` and `columnNumber` as 0-based (checked: 357/357 functions of node runs
//! at their `(` or arrow parameter); its `PositionTickInfo.line` is 1-based.
//!
//! Time: a sample lasts until the next one; the last one until the profile's end time where the format has one
//! (V8), else for the mean interval of the others (Hermes, traces). Chrome DevTools' call trees count a node's
//! samples times the mean interval instead (`CPUProfileNode`: `self = hitCount * sampleTime`); with the stamps, a
//! sample taken after a stall (Hermes samples at ~100 Hz, with gaps) weighs the time it stood for.

pub mod chrome_trace;
pub mod coverage;
pub mod cpuprofile;
pub mod heap_snapshot;
pub mod hermes;
pub mod profmap;
pub mod sites;
pub mod summary;

use std::fmt;
use std::sync::Arc;

use rustc_hash::FxHashSet;

use crate::GeneratedPosition;

/// Which kind of profile a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProfileFormat {
    /// Hermes' sampling profiler (`hermes -sample-profiling`, `HermesInternal.dumpSampledTraceToFile`,
    /// react-native-release-profiler): `traceEvents`, `samples`, `stackFrames`.
    Hermes,
    /// V8's `.cpuprofile` (`node --cpu-prof`, Chrome DevTools' Save profile): `nodes`, `samples`, `timeDeltas`.
    CpuProfile,
    /// A Chrome DevTools performance trace: `Profile` and `ProfileChunk` events.
    ChromeTrace,
}

impl ProfileFormat {
    /// The format's name, as messages say it.
    pub fn name(self) -> &'static str {
        match self {
            ProfileFormat::Hermes => "Hermes sampling profile",
            ProfileFormat::CpuProfile => "V8 .cpuprofile",
            ProfileFormat::ChromeTrace => "Chrome trace",
        }
    }
}

/// What a frame is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrameKind {
    /// JavaScript at a bundle position (or a JavaScript frame the engine gave no position).
    JavaScript,
    /// Engine or host code: `[Native] …`, `(garbage collector)`, `(program)`, `(idle)`, `(root)`.
    Engine,
}

/// What a frame runs: its name, function, script and kind, shared by every frame that repeats them (a long
/// recording has 160K frames and a few thousand of these).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Code {
    /// The name as the profile writes it (Hermes source frames: `fn(file:line:column)`).
    pub name: Arc<str>,
    /// The function's name alone, when it has one.
    pub function: Option<Arc<str>>,
    /// The script the frame is in (V8's `url`; Hermes source frames: the file in the name).
    pub url: Option<Arc<str>>,
    /// JavaScript or engine code.
    pub kind: FrameKind,
    /// A Hermes bytecode address (no file: the first map given is the Hermes map).
    pub bytecode: bool,
}

/// One node of the profile's call tree: 36 bytes, what it runs (`Code`) kept once in `Profile::codes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    /// The caller, an index into `Profile::frames`.
    pub parent: Option<u32>,
    /// What it runs, an index into `Profile::codes`.
    pub code: u32,
    /// The frame's own position, 0-based (see the table above).
    pub position: Option<GeneratedPosition>,
    /// Where its function starts, 0-based, when the profile says.
    pub function_start: Option<GeneratedPosition>,
}

/// The frames' ids as the profile writes them (the Hermes `stackFrames` key, the V8 node id; in a trace with several
/// profiles, `PROFILE:NODE`), in frame order, in one buffer: one allocation per id was 7.7 MB of a long recording.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrameIds {
    text: String,
    ends: Vec<usize>,
}

impl FrameIds {
    /// Appends the next frame's id.
    pub fn push(&mut self, id: &str) {
        self.text.push_str(id);
        self.ends.push(self.text.len());
    }

    /// Frame `i`'s id ("" past the end).
    pub fn get(&self, i: usize) -> &str {
        let Some(&end) = self.ends.get(i) else {
            return "";
        };
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..end]
    }

    /// How many ids.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are no ids.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The ids in frame order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + Clone {
        (0..self.len()).map(|i| self.get(i))
    }
}

/// A profile read into call-tree frames and the time sampled in each.
#[derive(Debug, Clone)]
pub struct Profile {
    /// The format it was read from.
    pub format: ProfileFormat,
    /// The call tree's nodes, linked by `Frame::parent`.
    pub frames: Vec<Frame>,
    /// By frame.
    pub ids: FrameIds,
    /// What frames run, shared (`Frame::code`).
    pub codes: Vec<Code>,
    /// Microseconds during which each frame was the sampled leaf.
    pub self_us: Vec<f64>,
    /// How many samples named each frame as the leaf.
    pub self_samples: Vec<u64>,
    /// Every sample's time together, µs.
    pub total_us: f64,
    /// How many samples were kept (those naming a frame; Hermes samples also need a time stamp).
    pub samples: u64,
    /// Each sample in order: its leaf frame and its time stamp, µs (for converting between formats).
    pub timeline: Vec<(u32, f64)>,
    /// When recording started and ended, µs, where the profile says.
    pub start_us: Option<f64>,
    /// When recording ended, µs: V8's `endTime`; for a Hermes profile, the last sample's end; for a trace, its last
    /// sample's time stamp.
    pub end_us: Option<f64>,
    /// What was not valid and left out (samples naming no frame, a parent that loops), for the user.
    pub warnings: Vec<String>,
}

impl Profile {
    /// What frame `i` runs.
    pub fn code(&self, i: usize) -> &Code {
        &self.codes[self.frames[i].code as usize]
    }
}

/// Codes kept once each, numbered in the order they are first seen.
#[derive(Default)]
pub(crate) struct Codes {
    list: Vec<Code>,
    index: rustc_hash::FxHashMap<Code, u32>,
}

impl Codes {
    pub(crate) fn get(&mut self, code: Code) -> u32 {
        if let Some(&i) = self.index.get(&code) {
            return i;
        }
        self.list.push(code.clone());
        let i = self.list.len() as u32 - 1;
        self.index.insert(code, i);
        i
    }

    pub(crate) fn into_list(self) -> Vec<Code> {
        self.list
    }
}

/// Told of byte ranges of the input that a reader or writer has passed and will not read again soon, so that a
/// mapped file's pages there can leave the process (the kernel maps them again from its page cache if they are
/// read). Keeping a long recording's 33 MB resident was half of the peak memory of `profile --out`.
pub type Passed<'r> = &'r (dyn Fn(std::ops::Range<usize>) + Sync);

/// Tells a [`Passed`] of the bytes behind a cursor, a few megabytes at a time.
pub(crate) struct Behind<'r> {
    passed: Passed<'r>,
    from: usize,
}

impl<'r> Behind<'r> {
    const STEP: usize = 4 << 20;

    pub(crate) fn new(passed: Passed<'r>, from: usize) -> Self {
        Behind { passed, from }
    }

    /// The cursor is at `i`.
    pub(crate) fn at(&mut self, i: usize) {
        if i >= self.from + Self::STEP {
            self.end(i);
        }
    }

    /// Writes `bytes[range]` to `out` a step at a time, telling of each step once written (a long recording's
    /// samples, half the file, are one unchanged span).
    pub(crate) fn copy(
        &mut self,
        out: &mut impl std::io::Write,
        bytes: &[u8],
        range: std::ops::Range<usize>,
    ) -> std::io::Result<()> {
        let mut at = range.start;
        while at < range.end {
            let to = range.end.min(at + Self::STEP);
            out.write_all(&bytes[at..to])?;
            at = to;
            self.at(at);
        }
        Ok(())
    }

    /// Everything before `i` is passed.
    pub(crate) fn end(&mut self, i: usize) {
        if i > self.from {
            (self.passed)(self.from..i);
            self.from = i;
        }
    }
}

/// A profile that cannot be read, with where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileError {
    /// What is wrong, and where.
    pub message: String,
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ProfileError {}

impl ProfileError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        ProfileError {
            message: message.into(),
        }
    }

    pub(crate) fn json(what: &str, e: serde_json::Error) -> Self {
        ProfileError::new(format!(
            "not a valid {what}: {e} (line {}, column {})",
            e.line(),
            e.column()
        ))
    }
}

/// One shared copy of each string a profile repeats.
#[derive(Default)]
pub(crate) struct Strings(FxHashSet<Arc<str>>);

impl Strings {
    pub(crate) fn get(&mut self, s: &str) -> Arc<str> {
        if let Some(a) = self.0.get(s) {
            return a.clone();
        }
        let a: Arc<str> = Arc::from(s);
        self.0.insert(a.clone());
        a
    }
}

/// The original side of a frame, for writing a profile back (`hermes::write`, `cpuprofile::write`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rewrite {
    /// The original function's name; `None` keeps the profile's.
    pub function: Option<String>,
    /// The original source, as the written profile names it.
    pub source: String,
    /// 0-based.
    pub line: u32,
    /// 0-based.
    pub column: u32,
}

/// What each frame is rewritten to: frames share a rewrite through an index (`by_frame`), as they share places.
pub struct Rewrites<'a> {
    by_frame: std::borrow::Cow<'a, [Option<u32>]>,
    table: Vec<Option<Rewrite>>,
}

impl<'a> Rewrites<'a> {
    /// Frame `i` is rewritten to `table[by_frame[i]]`.
    pub fn new(by_frame: &'a [Option<u32>], table: Vec<Option<Rewrite>>) -> Self {
        Rewrites {
            by_frame: std::borrow::Cow::Borrowed(by_frame),
            table,
        }
    }

    /// Frame `i` is rewritten to `table[i]`.
    pub fn per_frame(table: Vec<Option<Rewrite>>) -> Rewrites<'static> {
        Rewrites {
            by_frame: (0..table.len() as u32).map(Some).collect(),
            table,
        }
    }

    /// The index of frame `frame`'s rewrite in the table (frames with the same index have the same rewrite).
    pub fn index_of(&self, frame: usize) -> Option<u32> {
        self.by_frame.get(frame).copied().flatten()
    }

    /// Frame `frame`'s rewrite; `None`: the frame stays as it is.
    pub fn of(&self, frame: usize) -> Option<&Rewrite> {
        let i = self.by_frame.get(frame).copied().flatten()?;
        self.table.get(i as usize)?.as_ref()
    }
}

/// Which format `bytes` hold, from their first top-level keys.
pub fn detect(bytes: &[u8]) -> Option<ProfileFormat> {
    let head = &bytes[..bytes.len().min(1 << 16)];
    let text = String::from_utf8_lossy(head);
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with('[') {
        // The DevTools' trace as an array of events; `chrome_trace::read` says so when it holds no profile.
        return t.contains("\"ph\"").then_some(ProfileFormat::ChromeTrace);
    }
    if !t.starts_with('{') {
        return None;
    }
    if t.contains("\"traceEvents\"") {
        // Hermes writes its few `traceEvents` first and then `samples` with `sf` ids; a DevTools trace holds many
        // events, its profile in `ProfileChunk`s that may lie past the head (with `nodes`, as a `.cpuprofile` has).
        return Some(if t.contains("\"stackFrames\"") || t.contains("\"sf\"") {
            ProfileFormat::Hermes
        } else {
            ProfileFormat::ChromeTrace
        });
    }
    if t.contains("\"nodes\"") && (t.contains("\"callFrame\"") || t.contains("\"samples\"")) {
        return Some(ProfileFormat::CpuProfile);
    }
    if t.contains("\"stackFrames\"") || (t.contains("\"samples\"") && t.contains("\"sf\"")) {
        return Some(ProfileFormat::Hermes);
    }
    None
}

/// A profile as read, kept for writing back with its frames rewritten, in any of the formats.
pub enum ProfileDoc<'a> {
    /// A Hermes sampling profile.
    Hermes(hermes::HermesDoc<'a>),
    /// A V8 `.cpuprofile`.
    Cpu(cpuprofile::CpuProfileDoc<'a>),
    /// A Chrome DevTools trace.
    Trace(chrome_trace::ChromeTraceDoc<'a>),
}

impl<'a> ProfileDoc<'a> {
    /// The document and its model; `passed` is told of the bytes read, for progress.
    pub fn parse(
        bytes: &'a [u8],
        passed: Passed,
    ) -> Result<(ProfileDoc<'a>, Profile), ProfileError> {
        let hermes = || {
            hermes::HermesDoc::parse_telling(bytes, passed).map(|(d, p)| (ProfileDoc::Hermes(d), p))
        };
        match detect(bytes) {
            Some(ProfileFormat::Hermes) => hermes(),
            Some(ProfileFormat::CpuProfile) => cpuprofile::CpuProfileDoc::parse(bytes).map(|d| {
                let p = d.profile();
                (ProfileDoc::Cpu(d), p)
            }),
            // A Hermes profile with many trace events before its samples looks like a trace from its head.
            Some(ProfileFormat::ChromeTrace) => chrome_trace::ChromeTraceDoc::parse(bytes)
                .map(|d| {
                    let p = d.profile();
                    (ProfileDoc::Trace(d), p)
                })
                .or_else(|e| hermes().map_err(|_| e)),
            None => Err(not_a_profile()),
        }
    }

    /// The document as read, each frame rewritten where `rewrites` says.
    pub fn write(
        &self,
        rewrites: &Rewrites,
        out: &mut impl std::io::Write,
        passed: Passed,
    ) -> std::io::Result<()> {
        match self {
            ProfileDoc::Hermes(d) => d.write_telling(rewrites, out, passed),
            ProfileDoc::Cpu(d) => d.write(rewrites, out),
            ProfileDoc::Trace(d) => d.write(rewrites, out),
        }
    }
}

/// Reads a profile of any of the formats.
pub fn read(bytes: &[u8]) -> Result<Profile, ProfileError> {
    ProfileDoc::parse(bytes, &|_| {}).map(|(_, profile)| profile)
}

/// What `read` says of a file that is none of the formats.
pub fn not_a_profile() -> ProfileError {
    ProfileError::new(
        "not a profile this tool reads: expected a Hermes sampling profile (stackFrames, samples), a V8 .cpuprofile \
         (nodes, samples, timeDeltas) or a Chrome trace (Profile and ProfileChunk events)",
    )
}

/// Each sample's time, from the timeline's stamps (µs, in sample order): a sample lasts until the next; the last
/// until `end` when known, else for the mean interval.
pub(crate) fn durations(
    timeline: &[(u32, f64)],
    end: Option<f64>,
) -> impl Iterator<Item = f64> + '_ {
    let n = timeline.len();
    let (first, last_stamp) = (timeline.first().map(|t| t.1), timeline.last().map(|t| t.1));
    let last = match (end, first, last_stamp) {
        (Some(end), _, Some(t)) => (end - t).max(0.0),
        (None, Some(a), Some(b)) if n > 1 => (b - a) / (n - 1) as f64,
        _ => 0.0,
    };
    timeline
        .windows(2)
        .map(|w| (w[1].1 - w[0].1).max(0.0))
        .chain((n > 0).then_some(last))
}

/// Parent links that reach no root (a loop) are cut, with a warning: every frame's chain then ends.
pub(crate) fn cut_parent_loops(frames: &mut [Frame], ids: &FrameIds, warnings: &mut Vec<String>) {
    // 0: not seen, 1: on the current walk, 2: known to reach a root.
    let mut state = vec![0u8; frames.len()];
    let mut path = Vec::new();
    for start in 0..frames.len() {
        let mut i = start;
        while state[i] == 0 {
            state[i] = 1;
            path.push(i);
            match frames[i].parent {
                Some(p) => i = p as usize,
                None => break,
            }
        }
        if state[i] == 1 && frames[i].parent.is_some() && path.contains(&i) {
            // `i` is on the walk: its parent link closes a loop.
            let looped = frames[i].parent.take();
            warnings.push(format!(
                "frame {} has a parent chain that loops (back to frame {}); it is treated as a root",
                ids.get(i),
                looped.map_or("", |p| ids.get(p as usize))
            ));
        }
        for &j in &path {
            state[j] = 2;
        }
        path.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_told_by_their_keys() {
        assert_eq!(
            detect(br#"{"traceEvents":[],"samples":[],"stackFrames":{}}"#),
            Some(ProfileFormat::Hermes)
        );
        assert_eq!(
            detect(br#"{"nodes":[{"id":1,"callFrame":{}}],"samples":[]}"#),
            Some(ProfileFormat::CpuProfile)
        );
        assert_eq!(
            detect(br#"[{"name":"Profile","ph":"P"},{"name":"ProfileChunk"}]"#),
            Some(ProfileFormat::ChromeTrace)
        );
        assert_eq!(
            detect(br#"{"traceEvents":[{"name":"ProfileChunk"}]}"#),
            Some(ProfileFormat::ChromeTrace)
        );
        assert_eq!(detect(br#"{"version":3,"mappings":""}"#), None);
        // A DevTools trace whose first chunk brings `nodes` with `callFrame`s.
        assert_eq!(
            detect(br#"{"traceEvents":[{"name":"ProfileChunk","args":{"data":{"cpuProfile":{"nodes":[{"callFrame":{}}]}}}}]}"#),
            Some(ProfileFormat::ChromeTrace)
        );
    }

    #[test]
    fn a_sample_lasts_until_the_next() {
        let at = |stamps: &[f64]| stamps.iter().map(|&t| (0, t)).collect::<Vec<_>>();
        let of = |stamps: &[f64], end| durations(&at(stamps), end).collect::<Vec<_>>();
        assert_eq!(of(&[10.0, 12.0, 15.0], Some(20.0)), [2.0, 3.0, 5.0]);
        assert_eq!(of(&[10.0, 12.0, 16.0], None), [2.0, 4.0, 3.0]);
        assert_eq!(of(&[10.0], None), [0.0]);
        assert!(of(&[], None).is_empty());
    }

    #[test]
    fn parent_loops_are_cut() {
        let frame = |parent: Option<u32>| Frame {
            parent,
            code: 0,
            position: None,
            function_start: None,
        };
        let mut frames = vec![frame(None), frame(Some(2)), frame(Some(1)), frame(Some(3))];
        let mut ids = FrameIds::default();
        for id in ["a", "b", "c", "d"] {
            ids.push(id);
        }
        let mut warnings = Vec::new();
        cut_parent_loops(&mut frames, &ids, &mut warnings);
        assert!(warnings[0].contains("frame b"), "{warnings:?}");
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        for start in 0..frames.len() {
            let mut i = start;
            let mut steps = 0;
            while let Some(p) = frames[i].parent {
                i = p as usize;
                steps += 1;
                assert!(steps < 10);
            }
        }
    }
}
