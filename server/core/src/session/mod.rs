//! The symbolication session: a trace's frames, and where they are read (a [`SessionPlace`]), in; the frames in
//! original code out — the whole job, written once for every front end (the CLI, the language server, a pipeline
//! worker), each of which keeps only its place and its rendering.
//!
//! The steps, in order, each the core's one rule:
//! 1. **Resolve** each frame's map (`bundle::resolve::choose_maps`: given maps, bundles by name and URL path, debug
//!    IDs, directories of maps; several candidates and nothing to tell them apart: not answered, said).
//! 2. **Fit**: every map used is checked against its bundle's text near the frames it answers (`bundle::fit`) before
//!    anything is answered from it; `--apply-shift` moves frames by the banner the check found.
//! 3. **Jest's wrapper** on line 1 is taken back where the frames tell by how much (`trace::jest`).
//! 4. **Look up and name**: positions first (cheap), to learn which bundles and sources name the frames' functions,
//!    those parsed in parallel (the bundles' lexical pass already started during step 2: `early_positions`), then
//!    the frames named (`trace::symbolicate`, `trace::function_name`).
//! 5. **Withhold** frames where the map does not fit its bundle, and line-1 frames whose wrapper shift is unknown:
//!    they stay as printed, with the reason.
//!
//! The frames' `map` fields index [`Symbolication::maps`]; what to do with the answer (print it, turn it into LSP
//! results, write it into an event) is the caller's.

pub mod explain;
pub mod files;

use std::path::PathBuf;
use std::sync::Arc;

use crate::bundle::fit::{FitReport, Shift};
use crate::bundle::resolve::{choose_maps, AmbiguousFile, Asked, Choice, Place};
use crate::map::index::{GeneratedPosition, SourceId};
use crate::map::metro::Space;
use crate::source::today::{SourceDrift, TodayPosition};
use crate::trace::function_name::CodeScopes;
use crate::trace::jest::{take_back_line_one, withhold_unknown_shifts};
use crate::trace::js_scopes::TextPosition;
use crate::trace::stack::{StackFrame, StackLine};
use crate::trace::symbolicate::{
    add_function_lines, frame_space, function_line_sources, names_from_code, symbolicate,
    symbolicate_in_order, FrameMap, KeptFor, SymbolicatedLine,
};

/// A map's fit against the bundle it describes, as the place read it.
#[derive(Debug, Clone)]
pub struct Fit {
    /// The bundle whose text was checked.
    pub bundle: PathBuf,
    /// What the check found.
    pub report: Arc<FitReport>,
}

/// The function scopes of the session's maps' bundles and sources: map `i` is [`Symbolication::maps`]`[i]`.
pub type Code<'a> = Box<dyn CodeScopes + Send + Sync + 'a>;

/// What the session asks of where it runs, beyond the resolver's questions ([`Place`]).
pub trait SessionPlace: Place + Sync
where
    Self::Map: Send + Sync,
{
    /// The fit of `map` against its bundle's text, checked near `frames` (the positions of the frames it answers;
    /// a place may keep the report and answer later calls from it). `None` when no bundle text is at hand (nothing
    /// to check against: the frames are answered).
    fn fit(&self, map: &Self::Map, frames: &[GeneratedPosition]) -> Option<Fit>;
    /// The function scopes of `maps`' generated files and sources (the place reads their texts, and may keep what it
    /// parsed for later sessions); `shift(i)` is how map `i`'s text stands from its map
    /// ([`CodeScopes::generated_shift`]).
    fn code<'a>(
        &'a self,
        maps: &'a [Self::Map],
        shift: Box<dyn Fn(usize) -> Shift + Send + Sync + 'a>,
    ) -> Code<'a>;
    /// Frames' answers kept across sessions for `maps` (`trace::symbolicate::KeptFrames`), with each map's identity
    /// among them, when the place keeps them (a pipeline's); `None` by default.
    fn kept_frames<'a>(&'a self, _maps: &'a [Self::Map]) -> Option<KeptFor<'a>> {
        None
    }
    /// The map that describes the file `source` of `from` names, when that file is itself generated and its map was
    /// given (a Hermes map's `app.js`, whose `app.js.map` was given too): a chain of maps. `None` by default.
    fn next_map(&self, _from: &Self::Map, _source: &str) -> Option<Self::Map> {
        None
    }
    /// `map` was chosen for `bundle`: a map given without its bundle serves that one (its text is the one checked).
    fn serves(&mut self, _map: &Self::Map, _bundle: &std::path::Path) {}
    /// The local file of `map`'s source `source` when the map has that source's copy and the file's text is not it
    /// (edited since the build, or other text: a compiled copy); `None` otherwise. Asked once per source in a
    /// session ([`SessionOptions::today`]).
    fn todays_source(&self, _map: &Self::Map, _source: SourceId) -> Option<DifferingFile> {
        None
    }
}

/// A source's local file whose text is not the map's copy of the source.
#[derive(Debug, Clone)]
pub struct DifferingFile {
    /// The file (canonical).
    pub path: PathBuf,
    /// Its diff from the build's copy, when it is an edit of it (`SourceDrift::is_edit_of_build`): positions carry
    /// into it on unchanged lines. `None`: other text (a loader's compiled copy under the source's name, or another
    /// file at its path), where no position of the map's carries.
    pub drift: Option<Arc<SourceDrift>>,
}

/// A frame's source file here when its text is not the map's copy: the frame's line and column are the copy's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameToday {
    /// The local file.
    pub path: PathBuf,
    /// Where the frame's original position is in it now, when the file is an edit of the build's copy.
    pub now: Option<TodayPosition>,
}

/// How the session answers.
#[derive(Debug, Clone, Copy, Default)]
pub struct SessionOptions {
    /// Look frames up moved by the banner the fit check found (`--apply-shift`); their positions are then not
    /// checked for fit.
    pub apply_shift: bool,
    /// Also find the line of each frame's function in its source (profiles' `functionLine`).
    pub function_lines: bool,
    /// Also say which frames' source files here are not the map's copies, and where each frame's original position
    /// is in its file today when that file was edited since the build ([`SessionPlace::todays_source`]; the build's
    /// position stays the answer: the crash's truth).
    pub today: bool,
    /// Threads one session may work on at once (parsing bundles and sources side by side); `None`: every core. A
    /// caller that runs sessions side by side (`symbolicate --ndjson --jobs N`, one per event) gives 1: its events
    /// are the parallelism, and a session's own threads then only cost their start (a fifth of a warm event's time).
    pub threads: Option<usize>,
    /// Which way the lines' frames run (`TraceDocument::call_order`: a Sentry event's oldest first): whose call site
    /// names an anonymous callee.
    pub call_order: crate::trace::symbolicate::CallOrder,
}

impl SessionOptions {
    /// The threads a session works on: [`SessionOptions::threads`], else every core.
    fn threads(&self) -> usize {
        (self.threads)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    }
}

/// A session's answer.
pub struct Symbolication<M> {
    /// The lines, frames answered: each frame's `map` indexes `maps`.
    pub lines: Vec<SymbolicatedLine>,
    /// The maps used, each once, in order of first use (the maps given first, whether used or not, so that chains
    /// can be followed into them).
    pub maps: Vec<M>,
    /// Per frame: the resolver's choice (`why` says each step, for `--explain`).
    pub choices: Vec<Choice<M>>,
    /// Per frame: its position as printed.
    pub printed: Vec<Option<GeneratedPosition>>,
    /// Per frame: how it was moved (`apply_shift`), when it was.
    pub shifts: Vec<Option<Shift>>,
    /// The frames (by number) withheld because their map does not fit its bundle there.
    pub withheld: Vec<usize>,
    /// Each map used with its fit, when it was checked (indexes `maps`).
    pub fits: Vec<(usize, Fit)>,
    /// The files several bundles could be, with the candidates.
    pub ambiguous: Vec<AmbiguousFile>,
    /// Per frame: what was done about Jest's module wrapper on line 1 (`trace::jest`), for `--explain`.
    pub jest: Vec<Option<String>>,
    /// Per frame (with [`SessionOptions::today`]; else empty): its source's local file when that is not the map's
    /// copy, and where the frame's original position is in it now.
    pub today: Vec<Option<FrameToday>>,
}

/// The frames' positions (as printed) of each map of `maps` maps, by the map's place: where its fit is checked.
fn positions_by_map(
    choices: &[Option<usize>],
    printed: &[Option<GeneratedPosition>],
    maps: usize,
) -> Vec<Vec<GeneratedPosition>> {
    let mut near = vec![Vec::new(); maps];
    for (c, p) in choices.iter().zip(printed) {
        if let (Some(i), Some(p)) = (c, p) {
            near[*i].push(*p);
        }
    }
    near
}

/// The maps a session uses, each once — the maps given first (a chain of maps leads only into them), then the others
/// as frames chose them — and each frame's map by its place among them.
fn maps_used<P: Place>(
    place: &P,
    asked: &Asked<'_, P::Map>,
    choices: &[Choice<P::Map>],
) -> (Vec<P::Map>, Vec<Option<usize>>) {
    let mut maps: Vec<P::Map> = Vec::new();
    let mut id_of = |m: &P::Map| match maps.iter().position(|k| place.same_map(k, m)) {
        Some(i) => i,
        None => {
            maps.push(m.clone());
            maps.len() - 1
        }
    };
    for g in asked.given {
        id_of(&g.map);
    }
    let chosen = choices.iter().map(|c| c.map().map(&mut id_of)).collect();
    (maps, chosen)
}

/// Symbolicates `lines` where `place` says: see the module documentation.
pub fn symbolicate_lines<P>(
    place: &mut P,
    lines: Vec<StackLine>,
    asked: &Asked<'_, P::Map>,
    options: SessionOptions,
) -> Symbolication<P::Map>
where
    P: SessionPlace,
    P::Map: Send + Sync,
{
    symbolicate_lines_until(place, lines, asked, options, &|| false)
        .expect("a session that is never stopped finishes")
}

/// [`symbolicate_lines`], given up once `stop` says so: `None`. `stop` is asked between the session's steps (after
/// the maps are chosen, after the fit checks and the parse ahead, after the lookups and naming), on the calling
/// thread: a language server's request the client cancelled stops there rather than running to its end.
pub fn symbolicate_lines_until<P>(
    place: &mut P,
    mut lines: Vec<StackLine>,
    asked: &Asked<'_, P::Map>,
    options: SessionOptions,
    stop: &dyn Fn() -> bool,
) -> Option<Symbolication<P::Map>>
where
    P: SessionPlace,
    P::Map: Send + Sync,
{
    if stop() {
        return None;
    }
    // 1. Choosing may load maps, so it is done for every frame first.
    let resolved = {
        let frames: Vec<&StackFrame> = lines.iter().filter_map(StackLine::frame).collect();
        choose_maps(place, &frames, asked)
    };
    for c in &resolved.choices {
        if let Choice::Map {
            map,
            bundle: Some(b),
            ..
        } = c
        {
            place.serves(map, b);
        }
    }
    if stop() {
        return None;
    }
    let place: &P = place;
    let (maps, choices) = maps_used(place, asked, &resolved.choices);
    let printed: Vec<Option<GeneratedPosition>> = lines
        .iter()
        .filter_map(StackLine::frame)
        .map(|f| f.generated)
        .collect();
    let maps = &maps[..];
    // 2. Each map used is checked near the frames it answers, once.
    let near = positions_by_map(&choices, &printed, maps.len());
    let fits: Vec<std::sync::OnceLock<Option<Fit>>> = (0..maps.len())
        .map(|_| std::sync::OnceLock::new())
        .collect();
    let fit_of = |i: usize| {
        fits[i]
            .get_or_init(|| place.fit(&maps[i], &near[i]))
            .as_ref()
    };
    let apply_shift = options.apply_shift;
    // A shift is applied only when asked for (and only then waits for the fit check).
    let shift_of = |choice: Option<usize>| {
        if !apply_shift {
            return None;
        }
        choice.and_then(fit_of).and_then(|f| Shift::of(&f.report))
    };
    let code = place.code(
        maps,
        Box::new(move |i| shift_of(Some(i)).unwrap_or_default()),
    );
    // Each frame's map in turn; a frame no map answers says why (the resolver's words).
    let map_for = || {
        let mut next = resolved.choices.iter().zip(&choices);
        move |_: &StackFrame| match next.next() {
            Some((_, Some(i))) => FrameMap::Map(*i, place.index(&maps[*i])),
            Some((Choice::Unmapped { why } | Choice::Ambiguous { why }, None)) => {
                FrameMap::Unmapped(why.clone())
            }
            _ => FrameMap::NoMap,
        }
    };
    let chain = |from: usize, source: &str| {
        let next = place.next_map(&maps[from], source)?;
        let i = maps.iter().position(|k| place.same_map(k, &next))?;
        Some((i, place.index(&maps[i])))
    };
    let threads = options.threads();
    // A session on one thread whose frames' answers are kept reads nothing ahead: a frame answered before needs no
    // scopes, and a new one reads its parts when asked.
    let kept = place.kept_frames(maps);
    let early = match (&kept, threads) {
        (Some(k), 1) if k.maps.iter().any(Option::is_some) => Vec::new(),
        _ => early_positions(place, maps, &choices, &lines, apply_shift),
    };
    let mut used: Vec<usize> = choices.iter().flatten().copied().collect();
    used.sort_unstable();
    used.dedup();
    let (jest, looked_up) = std::thread::scope(|scope| {
        // Read ahead beside the fit checks, or first when the session has one thread.
        let (code, early) = (&code, &early);
        match (early.is_empty(), threads > 1) {
            (true, _) => {}
            (false, true) => drop(scope.spawn(move || code.prefetch_parts(early))),
            (false, false) => code.prefetch_parts(early),
        }
        // Maps whose frames have positions: one only frames without a position chose is not read to check it.
        for &i in used.iter().filter(|&&i| !near[i].is_empty()) {
            fit_of(i);
        }
        if apply_shift {
            shift_lines(&mut lines, &choices, shift_of);
        }
        // 3. Jest's module wrapper moves line 1's columns: per map, the shift all its line-1 frames confirm is taken
        // back; where none can be told, those frames are not answered.
        let jest = take_back_line_one(&mut lines, &choices, |i| place.index(&maps[i]));
        // Where each frame is looked up in its bundle's text (line 1 taken back): where its fit is judged.
        let looked_up: Vec<Option<GeneratedPosition>> = lines
            .iter()
            .filter_map(StackLine::frame)
            .map(|f| f.generated)
            .collect();
        // 4. The positions first, then what names their functions parsed on every thread (a bundle the early pass
        // is reading is waited for, its sources parsed meanwhile).
        // On one thread the parse ahead is the same work the lookups below do when they ask, in the same order, so
        // the first pass's lookups are skipped (a pipeline's session has one thread: 2,000 distinct real-SDK
        // events, `--jobs 1`, 0.21 → 0.18 s, the output byte for byte the same).
        if threads > 1 {
            let positions = symbolicate(
                &lines,
                map_for(),
                chain,
                &crate::trace::function_name::NoCode,
            );
            let (generated, mut originals) = code_positions(place, maps, &positions, shift_of);
            if options.function_lines {
                originals.extend(function_line_sources(&positions));
            }
            code.prefetch(&generated, &originals, threads);
        }
        (jest, looked_up)
    });
    if stop() {
        return None;
    }
    let order = options.call_order;
    let mut out = symbolicate_in_order(&lines, map_for(), chain, &*code, order, kept.as_ref());
    if options.function_lines {
        add_function_lines(&mut out, &*code);
    }
    drop(code);
    if stop() {
        return None;
    }
    // 5. Withheld: misfits, then unknown wrapper shifts.
    let withheld = withhold_misfits(
        &mut out,
        &choices,
        &looked_up,
        fit_of,
        |c| shift_of(c).is_some(),
        |i, f, p| frame_space(place.index(&maps[i]), f, p) == Ok((Space::Main, p)),
    );
    withhold_unknown_shifts(&mut out, &jest);
    let jest = jest_notes(jest);
    let shifts = choices.iter().map(|&c| shift_of(c)).collect();
    let fits = used
        .iter()
        .filter(|&&i| !near[i].is_empty())
        .filter_map(|&i| Some((i, fit_of(i)?.clone())))
        .collect();
    let today = frames_today(place, maps, &out, options.today);
    let maps = maps.to_vec();
    Some(Symbolication {
        lines: out,
        choices: resolved.choices,
        maps,
        printed,
        shifts,
        withheld,
        fits,
        ambiguous: resolved.ambiguous,
        jest,
        today,
    })
}

/// Each frame's source file here when its text is not the map's copy, with where the frame's original position is
/// in it now when it is an edit of the build's copy (one diff per source); `None` for every other frame; nothing
/// unless `asked` ([`SessionOptions::today`]).
fn frames_today<P: SessionPlace>(
    place: &P,
    maps: &[P::Map],
    out: &[SymbolicatedLine],
    asked: bool,
) -> Vec<Option<FrameToday>>
where
    P::Map: Send + Sync,
{
    if !asked {
        return Vec::new();
    }
    let mut files: std::collections::HashMap<(usize, SourceId), Option<DifferingFile>> =
        std::collections::HashMap::new();
    out.iter()
        .filter_map(SymbolicatedLine::frame)
        .map(|f| {
            let (m, o) = (f.map?, f.original.as_ref()?);
            let file = files
                .entry((m, o.source_id))
                .or_insert_with(|| place.todays_source(&maps[m], o.source_id))
                .as_ref()?;
            Some(FrameToday {
                path: file.path.clone(),
                now: file
                    .drift
                    .as_ref()
                    .and_then(|d| d.position(o.line, o.column)),
            })
        })
        .collect()
}

/// `--explain`'s line per frame on Jest's module wrapper (`trace::jest`): the columns taken back, or why not.
fn jest_notes(jest: Vec<Option<Result<u32, &'static str>>>) -> Vec<Option<String>> {
    jest.into_iter()
        .map(|j| {
            j.map(|shift| match shift {
                Ok(n) => format!(
                    "Jest's module wrapper moved line 1's columns: looked up {n} columns left (every line-1 frame of this \
                     file lands on a segment so, and not all do as printed)"
                ),
                Err(why) => why.to_string(),
            })
        })
        .collect()
}

/// Frames moved to where their map has them (`apply_shift`): up by a banner's lines, left by what was put at their
/// line's start.
fn shift_lines(
    lines: &mut [StackLine],
    choices: &[Option<usize>],
    shift_of: impl Fn(Option<usize>) -> Option<Shift>,
) {
    let frames = lines.iter_mut().filter_map(|l| match l {
        StackLine::Frame(f) => Some(f),
        StackLine::Text(_) => None,
    });
    for (f, &choice) in frames.zip(choices) {
        if let (Some(shift), Some(g)) = (shift_of(choice), f.generated.as_mut()) {
            // A frame in the banner (or left of a shifted line's start) is at the map's start of it.
            *g = shift.to_map(*g).unwrap_or(GeneratedPosition {
                line: (i64::from(g.line) - shift.lines).max(0) as u32,
                column: 0,
            });
        }
    }
}

/// The positions of the bundles' texts (as shifted as their frames) and of the sources that name the looked-up
/// frames' functions; Metro maps with function maps name frames without code, so nothing is read for them.
type GeneratedAt = Vec<(usize, TextPosition)>;
type OriginalAt = Vec<(usize, SourceId, TextPosition)>;

fn code_positions<P: SessionPlace>(
    place: &P,
    maps: &[P::Map],
    positions: &[SymbolicatedLine],
    shift_of: impl Fn(Option<usize>) -> Option<Shift>,
) -> (GeneratedAt, OriginalAt)
where
    P::Map: Send + Sync,
{
    let (mut generated, mut originals) = (Vec::new(), Vec::new());
    for f in positions.iter().filter_map(SymbolicatedLine::frame) {
        let (Some(m), Some(o), Some(p)) = (f.map, &f.original, f.frame.generated) else {
            continue;
        };
        if !names_from_code(place.index(&maps[m]), p, o.source_id) {
            continue;
        }
        if let Some(t) = shift_of(Some(m)).unwrap_or_default().to_text(p) {
            generated.push((
                m,
                TextPosition {
                    line: t.line,
                    column: t.column,
                },
            ));
        }
        originals.push((
            m,
            o.source_id,
            TextPosition {
                line: o.line,
                column: o.column,
            },
        ));
    }
    (generated, originals)
}

/// The positions of the bundles' texts to read function names at, known before any map is checked or looked up:
/// each frame's printed position, where its map's section has neither `scopes` nor function maps (so its name can
/// only come from code: a subset of [`names_from_code`]'s frames). Reading them while the maps are checked and the
/// frames looked up overlaps the two longest steps of a large bundle's trace (the bundle's lexical pass and the map's
/// checkpoints). Names do not depend on it: a text's function scopes answer a position the same whichever positions
/// were read first (`TextScopes`), and frames later found unmapped or withheld only cost the read. None when frames
/// are shifted (their positions wait for the fit check).
fn early_positions<P: SessionPlace>(
    place: &P,
    maps: &[P::Map],
    choices: &[Option<usize>],
    lines: &[StackLine],
    apply_shift: bool,
) -> Vec<(usize, TextPosition)>
where
    P::Map: Send + Sync,
{
    if apply_shift {
        return Vec::new();
    }
    choices
        .iter()
        .zip(lines.iter().filter_map(StackLine::frame))
        .filter_map(|(&choice, f)| {
            let (m, p) = (choice?, f.generated?);
            let index = place.index(&maps[m]);
            let section = index.section_at(p)?;
            (index.section_scopes_absent(section) && !index.section_has_function_maps(section))
                .then_some((
                    m,
                    TextPosition {
                        line: p.line,
                        column: p.column,
                    },
                ))
        })
        .collect()
}

/// Frames at positions where their map does not fit its bundle are not answered (the map's answer there is most
/// likely another place): they stay as printed, with the reason. `looked_up` is where each frame was looked up in
/// its bundle's text (Jest's line-1 wrapper taken back: the fit report's positions are the file's). Frames shifted
/// on purpose, and frames in a RAM bundle's module or a segment (another file than the bundle checked), are not
/// checked. Returns their numbers.
fn withhold_misfits<'f>(
    out: &mut [SymbolicatedLine],
    choices: &[Option<usize>],
    looked_up: &[Option<GeneratedPosition>],
    fit_of: impl Fn(usize) -> Option<&'f Fit>,
    shifted: impl Fn(Option<usize>) -> bool,
    in_bundle: impl Fn(usize, &StackFrame, GeneratedPosition) -> bool,
) -> Vec<usize> {
    let mut withheld = Vec::new();
    let frames = out.iter_mut().filter_map(SymbolicatedLine::frame_mut);
    for (k, f) in frames.enumerate() {
        let choice = choices[k];
        let (Some(i), Some(p)) = (choice, looked_up[k]) else {
            continue;
        };
        if shifted(choice) || !in_bundle(i, &f.frame, p) {
            continue;
        }
        let source = f.original.as_ref().map(|o| o.source_id);
        if let Some(why) = fit_of(i).and_then(|fit| fit.report.withheld_answer(p, || source)) {
            f.original = None;
            f.ignored = false;
            f.unresolved = Some(why);
            withheld.push(k);
        }
    }
    withheld
}
