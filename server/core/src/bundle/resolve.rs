//! Which bundle, and so which map, answers each frame: the one policy of `symbolicate`, `profile`, and the server's
//! hover, definition, `sourcemap/symbolicate`, `sourcemap/profile` and stack links. Where files come from is the
//! caller's ([`Place`]: the disk under `--root` for the CLI; open documents, workspace folders and settings for the
//! server); what is chosen, and why, is decided here only.
//!
//! **The bundle** a frame's file names, in this order:
//! 1. the bundle the user chose for that file (`--bundle NAME=PATH`, the client's `bundles`);
//! 2. the file at the frame's path (absolute, a local `file:` URL, relative to a root), or at its URL's path under a
//!    root, longest first (`http://host/esbuild/lodash/app.js`: ROOT/esbuild/lodash/app.js, then ROOT/lodash/app.js);
//!    the path tells same-named files apart, so nothing by name is looked for when a path finds a file;
//! 3. else, maps given on the command line that name the file (its name without `.map`, its `file`);
//! 4. else the files of that name under the roots, nearest first ([`MAX_SAME_NAMED`]), that lead to a map.
//!
//! When several candidates remain (and their maps are not one build copied), the report's debug IDs choose; then
//! the frames' positions: the candidate whose text they fit ([`crate::bundle::fit::frames_evidence`], the fit check's
//! evidence for frames) by odds of at least [`DECISIVE`] over every other, and over positions landing there by
//! chance. Otherwise the file is **ambiguous**: its frames stay unmapped, and the candidates are named with the way to
//! choose. A bundle of the right name but another build fits its own map just as well, so only the frames' positions
//! in the texts can tell builds apart, and when they cannot, nothing is answered: a wrong bundle gives a plausible
//! wrong file and line, the worst answer a debugging tool can give.
//!
//! **Its map**: a map given for that bundle (given as it, or found from it) → a given map with the bundle's debug ID
//! → the one given map that names the bundle (and whose debug ID does not contradict the bundle's) → the bundle's own
//! `sourceMappingURL` or sidecar map ([`Place::own_map`]).
//!
//! **A map given with no bundle at hand** (a crash report, Hermes bytecode, a trace pasted far from its build) serves:
//! frames that name no file ([`Asked::no_file`]: the caller's rule, the first map given on the command line);
//! frames whose file it names (rule 3); and, metro-symbolicate's rule, every frame when it is the only map given and
//! no bundle of the frame's name leads to a map. It does not serve a frame whose path finds a bundle with a map of its
//! own, nor engine-internal frames (`node:…`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::bundle::fit::{check_fit, frames_evidence, FitReport, Verdict};
use crate::bundle::hermes_bytecode::is_hermes_bytecode;
use crate::map::index::{GeneratedPosition, SourceMapIndex};
use crate::trace::document::{ReportedFile, ANOTHER_BUILD};
use crate::trace::stack::{
    file_name_of, is_foreign_file, normalize_debug_id, FrameFormat, Precision, StackFrame,
};
use crate::Bias;

/// How many same-named files the search by name looks at, nearest first.
pub const MAX_SAME_NAMED: usize = 16;

/// How many folders down a root the search by name goes.
pub const SEARCH_DEPTH: usize = 6;

/// Odds (natural log) by which one candidate's text must fit the frames' positions better than every other's, and
/// better than positions of another build landing there by chance, to be chosen: e^6.9 ≈ 1000 to one.
pub const DECISIVE: f64 = 6.9;

/// Segments of a map that must land where they belong in a file's text, the map having no other tie to the file,
/// for the file to be taken as the map's bundle (the fit check finds a map that fits when its evidence is too thin to
/// say otherwise; that is not enough to read a map for a file it does not name).
pub const MIN_SEGMENTS_TO_CONFIRM: u64 = 32;

/// A bundle's text as the place holds it (a mapped file, an open document's copy).
pub type Text = Box<dyn AsRef<[u8]>>;

/// What the resolver asks of where it runs.
pub trait Place {
    /// A loaded map, as the caller keeps it (an index into its maps, a shared handle).
    type Map: Clone;

    /// The folders relative paths and URL paths resolve under, nearest first (`--root`; the trace's folder and the
    /// workspace folders).
    fn roots(&self) -> Vec<PathBuf>;
    /// Files named `name` under the roots (and, in the server, bundles it already knows), nearest first.
    fn named(&mut self, name: &str) -> Vec<PathBuf>;
    /// The map `bundle` leads to by its own comment, sidecar or the settings, loaded; `None` when none.
    fn own_map(&mut self, bundle: &Path) -> Option<Self::Map>;
    /// The bundle's text as it is now.
    fn text(&mut self, bundle: &Path) -> Option<Text>;
    /// The line index of `bundle`'s text `text` (as [`Place::text`] gave it), when the place keeps one; `None` makes
    /// the reader index the text itself.
    fn line_index(
        &mut self,
        _bundle: &Path,
        _text: &[u8],
    ) -> Option<std::sync::Arc<crate::bundle::columns::LineIndex>> {
        None
    }
    /// Whether `path` is a regular file (a place may know it without asking the system again).
    fn is_file(&self, path: &Path) -> bool {
        path.is_file()
    }
    /// Why the map `bundle` leads to (by its comment or sidecar) could not be read, when [`Place::own_map`] found
    /// none for that reason (a truncated or invalid map): said instead of "leads to no map".
    fn map_error(&self, _bundle: &Path) -> Option<String> {
        None
    }
    /// The index of a loaded map.
    fn index<'a>(&'a self, map: &'a Self::Map) -> &'a SourceMapIndex;
    /// Whether two handles are the same loaded map.
    fn same_map(&self, a: &Self::Map, b: &Self::Map) -> bool;
    /// A map the place holds for the file exactly as the frame names it, before any other rule: a loopback Metro dev
    /// server's for a URL (when allowed), a directory of maps' `FILE.map`. `Some(Err(why))`: the place answers for
    /// that file and has no map for it (a directory of maps without `FILE.map`), so the frame stays unmapped and no
    /// other rule is tried.
    fn served(&mut self, _file: &str) -> Option<Result<(Self::Map, String), String>> {
        None
    }
    /// The map file at `path` (a `BUNDLE.map` found beside where an absent bundle would be), loaded; `None` when
    /// it is not one. metro-symbolicate's directory of maps reads such files for absent bundles; so do the roots.
    fn map_file(&mut self, _path: &Path) -> Option<Self::Map> {
        None
    }
    /// A path as messages show it (the CLI: relative to the current directory).
    fn shown(&self, path: &Path) -> String {
        path.display().to_string()
    }
    /// The bundle's trailing `//# debugId=`.
    fn debug_id(&mut self, bundle: &Path) -> Option<String> {
        let tail = crate::bundle::locate::bundle_tail(bundle)?;
        crate::bundle::locate::find_debug_id(&tail).map(normalize_debug_id)
    }
}

/// A map given explicitly (an argument, a request's map).
pub struct GivenMap<M> {
    /// The map, as the place keeps it.
    pub map: M,
    /// File names of the bundle it is for: its own name without `.map`, its `file`.
    pub names: Vec<String>,
    /// The bundle it was given as or found from (so its text is the code the map describes).
    pub bundle: Option<PathBuf>,
}

/// What the caller knows besides the frames.
pub struct Asked<'a, M> {
    /// The maps given explicitly (command-line arguments, a request's map).
    pub given: &'a [GivenMap<M>],
    /// Bundles the user chose (`--bundle NAME=PATH`, the client's `bundles`), by the file as printed or its name.
    pub chosen: &'a HashMap<String, PathBuf>,
    /// The debug IDs the report names (`debug_ids_in`, normalized).
    pub debug_ids: &'a [String],
    /// The map of frames that name no file (and of Hermes crash-report frames), when there is one.
    pub no_file: Option<M>,
    /// What the report says about the files its frames name (a debug ID, lines of their text): a bundle chosen for a
    /// file must agree with it, and a candidate that does not is ruled out (`TraceDocument::reported_files`).
    pub reported: &'a HashMap<String, ReportedFile>,
}

/// The answer for one frame.
#[derive(Debug, Clone)]
pub enum Choice<M> {
    /// Answered from `map`; `bundle` is the generated file it describes, when known (its text is checked for fit
    /// and read for function names). `why` says each step taken, for `--explain`.
    Map {
        /// The map that answers.
        map: M,
        /// The generated file it describes, when known.
        bundle: Option<PathBuf>,
        /// Each step taken, for `--explain`.
        why: String,
    },
    /// No map answers this frame (and none should).
    Unmapped {
        /// Why, for the user.
        why: String,
    },
    /// Several bundles could be this frame's, and nothing tells them apart: not answered.
    Ambiguous {
        /// The candidates, why none was chosen, and how to choose one (`--bundle NAME=PATH`).
        why: String,
    },
}

impl<M> Choice<M> {
    /// The map that answers, for [`Choice::Map`].
    pub fn map(&self) -> Option<&M> {
        match self {
            Choice::Map { map, .. } => Some(map),
            _ => None,
        }
    }

    /// Why this answer, whichever it is.
    pub fn why(&self) -> &str {
        match self {
            Choice::Map { why, .. } | Choice::Unmapped { why } | Choice::Ambiguous { why } => why,
        }
    }
}

/// A file several bundles could be: the way out is to choose one of `candidates` for `file`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AmbiguousFile {
    /// The file as the trace prints it.
    pub file: String,
    /// The bundles it could be, one per build (a given map with no bundle at hand is not listed).
    pub candidates: Vec<PathBuf>,
}

/// [`frame_path_parts`], worked out once per file and thread: the resolver asks it of a frame's file several times an
/// event, and a pipeline's events name the same few files (4 % of a warm SDK event, `perf`). A pure function of the
/// text: kept for the 4,096 files asked last.
fn path_parts(file: &str) -> Option<std::rc::Rc<[String]>> {
    type Known = HashMap<String, Option<std::rc::Rc<[String]>>>;
    thread_local!(static KNOWN: std::cell::RefCell<Known> = Default::default());
    KNOWN.with(|known| {
        let mut known = known.borrow_mut();
        if let Some(parts) = known.get(file) {
            return parts.clone();
        }
        let parts = frame_path_parts(file).map(std::rc::Rc::from);
        if known.len() >= 4096 {
            known.clear();
        }
        known.insert(file.to_string(), parts.clone());
        parts
    })
}

pub use crate::bundle::locate::frame_path_parts;

/// Each frame's choice, in order, and the files left ambiguous.
pub struct Resolved<M> {
    /// One choice per frame, in the frames' order.
    pub choices: Vec<Choice<M>>,
    /// The files left ambiguous, with their candidates.
    pub ambiguous: Vec<AmbiguousFile>,
}

/// Chooses the map of every frame. Frames naming the same file share one choice, made on all their positions.
pub fn choose_maps<P: Place>(
    place: &mut P,
    frames: &[&StackFrame],
    asked: &Asked<'_, P::Map>,
) -> Resolved<P::Map> {
    let mut positions: HashMap<&str, Vec<GeneratedPosition>> = HashMap::new();
    for f in frames {
        // Line-only frames are no evidence of where in a line they land.
        if let (Some(file), Some(p), Precision::Column) =
            (f.file.as_deref(), f.generated, f.precision)
        {
            positions.entry(file).or_default().push(p);
        }
    }
    let trace_files = frames
        .iter()
        .filter_map(|f| f.file.as_deref())
        .map(|f| file_name_of(f).to_string())
        .collect();
    let bytecode_files = frames
        .iter()
        .filter(|f| f.format == FrameFormat::HermesBytecode)
        .filter_map(|f| f.file.clone())
        .collect();
    let mut resolver = Resolver {
        place,
        trace_files,
        bytecode_files,
        asked,
        by_file: HashMap::new(),
        ambiguous: Vec::new(),
    };
    let choices = frames
        .iter()
        .map(|f| {
            resolver.choose_frame(
                f,
                positions
                    .get(f.file.as_deref().unwrap_or(""))
                    .map_or(&[], Vec::as_slice),
            )
        })
        .collect();
    Resolved {
        choices,
        ambiguous: resolver.ambiguous,
    }
}

struct Resolver<'p, 'a, P: Place> {
    place: &'p mut P,
    /// The file names the trace's frames give.
    trace_files: std::collections::HashSet<String>,
    /// The files the trace's Hermes bytecode frames name (`address at FILE:1:NNN`).
    bytecode_files: std::collections::HashSet<String>,
    asked: &'a Asked<'a, P::Map>,
    by_file: HashMap<String, Choice<P::Map>>,
    ambiguous: Vec<AmbiguousFile>,
}

/// What a frame's path finds under the roots.
enum PathFound {
    Nothing,
    /// One file, and how it was found.
    One(PathBuf, String),
    /// The same path under several roots (two releases' folders): candidates.
    Several(Vec<(PathBuf, String)>),
}

/// A bundle that may be a frame's, with its map and how the map was found.
struct Candidate<M> {
    bundle: Option<PathBuf>,
    map: M,
    how: String,
}

impl<P: Place> Resolver<'_, '_, P> {
    fn choose_frame(
        &mut self,
        frame: &StackFrame,
        positions: &[GeneratedPosition],
    ) -> Choice<P::Map> {
        if frame.native {
            return Choice::Unmapped {
                why: "a native frame: no position in any bundle".into(),
            };
        }
        if frame.generated.is_none() {
            return Choice::Unmapped {
                why: if frame.in_eval {
                    "ran inside code made by eval whose origin has no position in a file".into()
                } else {
                    "the frame gives no position in a file".into()
                },
            };
        }
        let crash_report = frame.format == FrameFormat::HermesBytecode && frame.written.is_none();
        let file = match frame.file.as_deref() {
            Some(file) if !crash_report => file,
            _ => {
                let what = if crash_report {
                    "a Hermes crash-report frame (its address comes from the first map's function offsets)"
                } else {
                    "the frame names no file"
                };
                return match &self.asked.no_file {
                    Some(m) => Choice::Map {
                        map: m.clone(),
                        bundle: None,
                        why: format!("{what}: the map given for such frames"),
                    },
                    None => Choice::Unmapped {
                        why: format!("{what}, and no map is given for such frames"),
                    },
                };
            }
        };
        if is_foreign_file(file) {
            return Choice::Unmapped {
                why: format!("{file} is not a bundle (an engine's or node's own file)"),
            };
        }
        if let Some(known) = self.by_file.get(file) {
            return known.clone();
        }
        let choice = self.choose_file(file, positions);
        // Whatever rule chose it, the bundle and map must be the build the report says ran.
        let choice = match choice {
            Choice::Map { map, bundle, why } => {
                match self.disagreement(file, &map, bundle.as_deref()) {
                    Some(disagrees) => Choice::Unmapped {
                        why: format!("{why}; but {disagrees}: {ANOTHER_BUILD}, not mapped"),
                    },
                    None => Choice::Map { map, bundle, why },
                }
            }
            other => other,
        };
        self.by_file.insert(file.to_string(), choice.clone());
        choice
    }

    fn choose_file(&mut self, file: &str, positions: &[GeneratedPosition]) -> Choice<P::Map> {
        let name = file_name_of(file);
        let chosen = self
            .asked
            .chosen
            .get(file)
            .or_else(|| self.asked.chosen.get(name))
            .cloned();
        if let Some(bundle) = chosen {
            // The user's word binds the one map given, when its bundle is not known otherwise.
            let bound = match self.asked.given {
                [only] if only.bundle.is_none() => Some((
                    only.map.clone(),
                    "the one map given (bound to it by --bundle)".to_string(),
                )),
                _ => None,
            };
            return match self.map_of(&bundle).or(bound) {
                Some((map, how)) => Choice::Map {
                    why: format!(
                        "the bundle chosen for {file}, {}; its map: {how}",
                        self.place.shown(&bundle)
                    ),
                    map,
                    bundle: Some(bundle),
                },
                None => Choice::Unmapped {
                    why: format!(
                        "the bundle chosen for {file}: {}",
                        self.chosen_without_map(&bundle)
                    ),
                },
            };
        }
        match self.place.served(file) {
            Some(Ok((map, why))) => {
                return Choice::Map {
                    map,
                    bundle: None,
                    why,
                }
            }
            Some(Err(why)) => return Choice::Unmapped { why },
            None => {}
        }
        let by_path = match self.by_path(file, positions) {
            PathFound::Nothing => None,
            PathFound::One(bundle, how) => Some((bundle, how)),
            PathFound::Several(found) => return self.among_paths(file, found, positions),
        };
        if let Some((bundle, how)) = &by_path {
            if let Some((map, map_how)) = self.map_of(bundle) {
                return Choice::Map {
                    why: format!("{how}; its map: {map_how}"),
                    map,
                    bundle: Some(bundle.clone()),
                };
            }
        }
        if by_path.is_none() {
            if let Some((map, why)) = self.absent_bundle_map(file) {
                return Choice::Map {
                    map,
                    bundle: None,
                    why,
                };
            }
        }
        let found = by_path.as_ref().map(|(bundle, _)| bundle.as_path());
        let naming = self.given_naming(file, found);
        if !naming.is_empty() {
            return self.among(file, naming, positions, &format!("maps given name {name}"));
        }
        let named = if by_path.is_none() {
            // A path that names a package (`…/node_modules/some-lib/dist/index.js`) is that package's file: a
            // same-named file elsewhere (the root's own `dist/index.js`) is not it.
            let package = path_parts(file).and_then(|parts| {
                let at = parts
                    .iter()
                    .rposition(|p| crate::fs::walk::is_dependency_dir(p))?;
                let scoped = parts.get(at + 1)?.starts_with('@');
                Some(parts[at..(at + if scoped { 3 } else { 2 }).min(parts.len())].to_vec())
            });
            let mut named = self.place.named(name);
            if let Some(package) = package {
                named.retain(|p| {
                    let parts: Vec<String> = p
                        .components()
                        .map(|c| c.as_os_str().to_string_lossy().into_owned())
                        .collect();
                    parts
                        .windows(package.len())
                        .any(|w| w == package.as_slice())
                });
            }
            named
        } else {
            Vec::new()
        };
        let mut found = Vec::new();
        for bundle in named.iter().take(MAX_SAME_NAMED) {
            if let Some((map, how)) = self.map_of(bundle) {
                found.push(Candidate {
                    bundle: Some(bundle.clone()),
                    map,
                    how,
                });
            }
        }
        if !found.is_empty() {
            return self.among(
                file,
                found,
                positions,
                &format!("files named {name} under the roots"),
            );
        }
        if let [only] = self.asked.given {
            let here: Vec<PathBuf> = match &by_path {
                Some((bundle, _)) => vec![bundle.clone()],
                None => named.into_iter().take(MAX_SAME_NAMED).collect(),
            };
            return self.one_map_given(file, only, here);
        }
        let roots: Vec<String> = self
            .place
            .roots()
            .iter()
            .map(|r| self.place.shown(r))
            .collect();
        // The bundle is here and leads to no map, but its maps were shipped apart (an Electron renderer's
        // `file:///…/app.asar/…/x.js`, its maps in a folder of their own): `PATH.map` under a root, by the path's tails.
        if let Some((bundle, _)) = &by_path {
            if let Some((map, why)) = self.map_beside_tail(file, true) {
                return Choice::Map {
                    map,
                    bundle: Some(bundle.clone()),
                    why,
                };
            }
        }
        Choice::Unmapped {
            why: match by_path {
                Some((bundle, _)) => self.no_map(&bundle),
                None => format!(
                    "no bundle named {name} with a map under {} (give its map, or --root)",
                    roots.join(", ")
                ),
            },
        }
    }

    /// metro-symbolicate's rule, a single map given serves every frame, held to the frames it can be right for.
    /// `here`: the files the frame's path or name finds at hand, none of which leads to the map. A file at hand that
    /// is not the map's bundle is a file of its own (the user's script beside a library's bundle): never answered
    /// from that map. When the map's bundle is unknown, a file at hand is its bundle only if the map fits its text
    /// (the fit check, on the whole map). When no file is at hand (a device's bundle, a trace from elsewhere), the
    /// rule holds, unless the map is known to be another file's of the same trace (it names a file other frames
    /// name).
    fn one_map_given(
        &mut self,
        file: &str,
        only: &GivenMap<P::Map>,
        here: Vec<PathBuf>,
    ) -> Choice<P::Map> {
        let name = file_name_of(file);
        // A RAM bundle's module file (`js-modules/4.js`) or a segment (`seg-2.js`) is a generated file of the map
        // itself, when the map has Metro's offsets or segments (metro-symbolicate's `_legacyFormat`).
        let index = self.place.index(&only.map);
        if index.has_metro_files() && crate::map::metro::metro_file(file).is_some() {
            return Choice::Map {
                map: only.map.clone(),
                bundle: only.bundle.clone(),
                why: format!(
                    "{name} is a module or segment file of the RAM bundle the one map given describes (its \
                     x_facebook_offsets or x_facebook_segments)"
                ),
            };
        }
        let map_is_for = only
            .bundle
            .as_ref()
            .map(|b| self.place.shown(b))
            .or_else(|| only.names.first().cloned());
        if !here.is_empty() {
            return self.one_map_for_a_file_here(name, only, &here);
        }
        if let Some(other) = only
            .names
            .iter()
            .find(|n| n.as_str() != name && self.trace_files.contains(n.as_str()))
        {
            return Choice::Unmapped {
                why: format!(
                    "{file} is not at hand, and the one map given is {other}'s, another file of this trace: not \
                     mapped (give this file's map)"
                ),
            };
        }
        Choice::Map {
            map: only.map.clone(),
            bundle: only.bundle.clone(),
            why: format!(
                "no bundle named {name} is at hand; the one map given{} serves every such frame \
                 (metro-symbolicate's rule)",
                map_is_for.map_or(String::new(), |b| format!(" (for {b})"))
            ),
        }
    }

    /// Why a bundle found gives no map: its map is broken (and how), or it leads to none.
    fn no_map(&self, bundle: &Path) -> String {
        match self.place.map_error(bundle) {
            Some(error) => format!(
                "{} leads to a map that is broken, so its frames are not mapped: {error}",
                self.place.shown(bundle)
            ),
            None => format!(
                "{} leads to no map (give its map)",
                self.place.shown(bundle)
            ),
        }
    }

    /// Why the bundle the user chose gives no map: [`Resolver::no_map`]; and, when it is Hermes bytecode and the one
    /// map given is another file's, what its function offsets say against this file's (another compile's map).
    fn chosen_without_map(&mut self, bundle: &Path) -> String {
        let why = self.no_map(bundle);
        let [only] = self.asked.given else {
            return why;
        };
        let Some(own) = only.bundle.clone() else {
            return why;
        };
        let bytecode = self
            .place
            .text(bundle)
            .is_some_and(|t| is_hermes_bytecode((*t).as_ref()));
        if !bytecode {
            return why;
        }
        match self.fit_whole(&only.map, bundle) {
            Some(r) if r.bytecode.as_ref().is_some_and(|b| !b.fits()) => format!(
                "{why}; the one map given is {}'s, and not this file's: {}",
                self.place.shown(&own),
                r.message()
            ),
            _ => why,
        }
    }

    /// Why a Hermes bytecode file at hand is not answered from the one map given (`misfit`: what its fit check
    /// said).
    fn bytecode_without_map(&self, file: &Path, misfit: Option<&str>) -> String {
        match misfit {
            Some(why) => format!(
                "{} is Hermes bytecode with no map of its own, and the map given is not its: {why}",
                self.place.shown(file)
            ),
            None => format!(
                "{} is Hermes bytecode with no map of its own, and the map given is not its: if it is the \
                 packager's map of the JavaScript bundle, compose the packager's and the compiler's maps \
                 (react-native's compose-source-maps) and symbolicate with the composed map",
                self.place.shown(file)
            ),
        }
    }

    /// The fit check of `map` on the whole text of `bundle` (`None`: no text at hand, or not checkable).
    fn fit_whole(&mut self, map: &P::Map, bundle: &Path) -> Option<FitReport> {
        let id = self.place.debug_id(bundle);
        let text = self.place.text(bundle)?;
        check_fit(self.place.index(map), (*text).as_ref(), id.as_deref()).ok()
    }

    /// The one map given, for a frame whose file is here (`here`: the files its path or name finds, none leading to a
    /// map): that file is the map's bundle when it is a copy of the map's own bundle (the same bytes), or when the map
    /// fits its whole text, confirmed on at least [`MIN_SEGMENTS_TO_CONFIRM`] segments (or confirmed once shifted by
    /// whole lines: a banner, which the fit check then reports per frame), or, Hermes bytecode, when the map's
    /// function offsets are the file's function table (`bundle::hermes_bytecode`). Otherwise it is a file of its
    /// own, and the reason says which of these failed; but one bytecode file here, which no map of its own
    /// describes, is the file a map given without its bundle was given for: chosen with it, its frames are withheld
    /// by the fit check, which says why (another compile's map, a map of JavaScript) on the frames and on stderr.
    fn one_map_for_a_file_here(
        &mut self,
        name: &str,
        only: &GivenMap<P::Map>,
        here: &[PathBuf],
    ) -> Choice<P::Map> {
        let own_text: Option<Vec<u8>> = only
            .bundle
            .as_deref()
            .and_then(|b| self.place.text(b))
            .map(|t| (*t).as_ref().to_vec());
        let mut taken: Vec<(PathBuf, String)> = Vec::new();
        let (mut bytecode, mut thin, mut misfit) = (false, None, false);
        let (mut bytecode_misfit, mut bytecode_unchecked) = (None::<String>, None::<String>);
        for bundle in here {
            let text = self.place.text(bundle).map(|t| (*t).as_ref().to_vec());
            if let (Some(own), Some(text)) = (&own_text, &text) {
                if own == text {
                    taken.push((
                        bundle.clone(),
                        format!(
                            "{} is a copy of the map's bundle (the same bytes)",
                            self.place.shown(bundle)
                        ),
                    ));
                    continue;
                }
            }
            let is_bytecode = text.as_deref().is_some_and(is_hermes_bytecode);
            bytecode |= is_bytecode;
            match self.fit_whole(&only.map, bundle) {
                Some(r) if r.bytecode.is_some() => match &r.bytecode {
                    Some(b) if b.fits() => taken.push((
                        bundle.clone(),
                        format!(
                            "{} leads to no map; the one map given is its compile's ({} functions at the offsets \
                             of its x_hermes_function_offsets)",
                            self.place.shown(bundle),
                            b.functions
                        ),
                    )),
                    _ => {
                        misfit = true;
                        bytecode_misfit.get_or_insert_with(|| r.message());
                    }
                },
                Some(r) if r.verdict == Verdict::Unknown && is_bytecode => {
                    misfit = true;
                    if let Some(why) = &r.unknown_because {
                        bytecode_unchecked.get_or_insert_with(|| why.to_string());
                    }
                }
                Some(r) if r.shift_lines.is_some() => taken.push((
                    bundle.clone(),
                    format!(
                        "{} leads to no map; the one map given fits its whole text once shifted by whole lines",
                        self.place.shown(bundle)
                    ),
                )),
                Some(r)
                    if r.verdict == Verdict::Fits
                        && r.evidence.segments >= MIN_SEGMENTS_TO_CONFIRM =>
                {
                    taken.push((
                        bundle.clone(),
                        format!(
                            "{} leads to no map; the one map given fits its text ({} segments checked)",
                            self.place.shown(bundle),
                            r.evidence.segments
                        ),
                    ))
                }
                Some(r) if r.verdict == Verdict::Fits => thin = Some(r.evidence.segments),
                _ => misfit = true,
            }
        }
        if let [(bundle, why)] = &taken[..] {
            return Choice::Map {
                map: only.map.clone(),
                why: why.clone(),
                bundle: Some(bundle.clone()),
            };
        }
        let first = self.place.shown(&here[0]);
        if let ([bundle], true, Some(why), None) =
            (here, taken.is_empty(), &bytecode_misfit, &only.bundle)
        {
            return Choice::Map {
                map: only.map.clone(),
                bundle: Some(bundle.clone()),
                why: format!(
                    "{first} is Hermes bytecode with no map of its own, so the one map given is checked against it: \
                     {why}"
                ),
            };
        }
        if bytecode && taken.is_empty() {
            let why = match (&bytecode_misfit, &bytecode_unchecked) {
                (Some(why), _) => self.bytecode_without_map(&here[0], Some(why)),
                (None, Some(why)) => format!(
                    "{first} is Hermes bytecode with no map of its own, and the map given could not be checked \
                     against it ({why}): not mapped (if it is its map: --bundle {name}={first})"
                ),
                (None, None) => self.bytecode_without_map(&here[0], None),
            };
            return Choice::Unmapped { why };
        }
        let why = if taken.len() > 1 {
            format!(
                "{} files named {name} are here and the map given could be any of them: not mapped (choose one: \
                 --bundle {name}=PATH)",
                taken.len()
            )
        } else if let (Some(n), false) = (thin, misfit) {
            format!(
                "{first} is here and the map given fits its text, but on {n} segments only: too few to tell it is \
                 this file's map, so not mapped (if it is: --bundle {name}={first})"
            )
        } else if let Some(own) = &only.bundle {
            format!(
                "{first} is a file of its own, not the bundle of the map given (that is {}): a map is never read \
                 for another file (give this file's map, or --bundle {name}=PATH for its bundle)",
                self.place.shown(own)
            )
        } else {
            format!(
                "{first} is here, and the map given does not fit its text: not its bundle, so not mapped (give \
                 this file's map)"
            )
        };
        Choice::Unmapped { why }
    }

    /// The bundle a frame's path names, and how it was found.
    fn by_path(&mut self, file: &str, positions: &[GeneratedPosition]) -> PathFound {
        if file.starts_with("file:") {
            let local = url::Url::parse(file)
                .ok()
                .and_then(|u| u.to_file_path().ok())
                .filter(|p| self.place.is_file(p));
            if let Some(local) = local {
                return PathFound::One(local, format!("the file {file} names"));
            }
        }
        let roots = self.place.roots();
        let plain = file.split(['?', '#']).next().unwrap_or(file);
        if path_parts(file).is_none() {
            if let Some(root) = roots.iter().find(|r| self.place.is_file(&r.join(plain))) {
                let why = format!("the path {plain} under {}", self.place.shown(root));
                return PathFound::One(root.join(plain), why);
            }
            return PathFound::Nothing;
        }
        if Path::new(plain).is_absolute() && self.place.is_file(Path::new(plain)) {
            return PathFound::One(PathBuf::from(plain), format!("the path {plain}"));
        }
        // The path's tails under a root, longest first, before any search by name: the path tells same-named files
        // apart (`app:///b/test.min.js` is ROOT/b/test.min.js, not ROOT/a/test.min.js). Only a file that leads to a
        // map is taken here (a same-named source is not the bundle); the bare name is the search by name's.
        let what = if file.contains("://") {
            "the URL's path"
        } else {
            "the path's tail"
        };
        // The longest tail found: under every root that has it. Several roots holding the same path (two releases'
        // folders) are several candidates, which only evidence tells apart (`among`), never the roots' order.
        let mut found: Vec<(PathBuf, String)> = Vec::new();
        let mut found_tail: Option<String> = None;
        for (root, tail) in self.tails(file) {
            if !tail.contains('/') || found_tail.as_ref().is_some_and(|t| *t != tail) {
                continue;
            }
            let p = root.join(&tail);
            if !self.place.is_file(&p) {
                continue;
            }
            let Some((map, _)) = self.map_of(&p) else {
                continue;
            };
            // A tail is weaker than a path: a file whose text cannot hold the frames' positions (lines it does not
            // have, columns past its lines' ends) is another file that shares the tail.
            let impossible = self
                .text_evidence(&p, &map, positions)
                .is_some_and(|e| e == f64::NEG_INFINITY);
            if impossible || found.iter().any(|(q, _)| *q == p) {
                continue;
            }
            let why = format!("{what} {tail} under {}", self.place.shown(&root));
            found_tail = Some(tail);
            found.push((p, why));
        }
        match found.len() {
            0 => PathFound::Nothing,
            1 => {
                let (p, why) = found.pop().expect("one");
                PathFound::One(p, why)
            }
            _ => PathFound::Several(found),
        }
    }

    /// Where a frame's file may be under the roots, longest path first: a relative path as it is; an absolute path
    /// inside a root, relative to it; else every tail of its path ([`frame_path_parts`]: a URL's path, a path of
    /// another machine), down to its bare name.
    fn tails(&self, file: &str) -> Vec<(PathBuf, String)> {
        let plain = file.split(['?', '#']).next().unwrap_or(file);
        let roots = self.place.roots();
        let mut out = Vec::new();
        let Some(parts) = path_parts(file) else {
            return roots.into_iter().map(|r| (r, plain.to_string())).collect();
        };
        if Path::new(plain).is_absolute() {
            for root in &roots {
                let canonical = std::fs::canonicalize(root).unwrap_or_else(|_| root.clone());
                let inside = [root, &canonical]
                    .into_iter()
                    .find_map(|r| Path::new(plain).strip_prefix(r).ok())
                    .map(|inside| inside.to_string_lossy().into_owned());
                if let Some(inside) = inside {
                    out.push((root.clone(), inside));
                }
            }
        }
        // A package's folder names it: a tail never drops `node_modules/<pkg>` (`/ci/proj/node_modules/some-lib/dist/
        // index.js` is not the root's own `dist/index.js`).
        let last = parts
            .iter()
            .rposition(|p| crate::fs::walk::is_dependency_dir(p))
            .map_or(parts.len(), |i| i + 1);
        for k in 0..parts.len().min(last) {
            let tail = parts[k..].join("/");
            // Next.js serves `.next/static/…` as `/_next/static/…` (its `assetPrefix` aside): the URL's `_next/` is
            // the project's `.next/` folder (Next.js docs, "Project structure" and `output: 'export'`).
            let next = (parts[k] == "_next").then(|| format!(".next/{}", parts[k + 1..].join("/")));
            for tail in next.into_iter().chain([tail]) {
                for root in &roots {
                    if !out.iter().any(|(r, t)| r == root && *t == tail) {
                        out.push((root.clone(), tail.clone()));
                    }
                }
            }
        }
        out
    }

    /// Where the frame's path (or its URL's path) would be under a root, the bundle is absent, and `PATH.map` is
    /// there: that map, whose bundle is the frame's file (its text is not at hand, so its fit is not checked). Only
    /// when no map is given (a given map is the user's word for the frames it names).
    fn absent_bundle_map(&mut self, file: &str) -> Option<(P::Map, String)> {
        self.map_beside_tail(file, false)
    }

    /// [`Resolver::absent_bundle_map`]; with `bundle_here`, for a bundle found where the frame names it that leads to
    /// no map of its own.
    fn map_beside_tail(&mut self, file: &str, bundle_here: bool) -> Option<(P::Map, String)> {
        if !self.asked.given.is_empty() {
            return None;
        }
        // A `file:` URL is a path of this machine or another (an Electron renderer's `file:///…/app.asar/…/x.js`
        // with its maps shipped apart): its tails are tried like any path's, unless it names a file here.
        let here = match file.starts_with("file:") {
            true => url::Url::parse(file)
                .ok()
                .and_then(|u| u.to_file_path().ok()),
            false => Some(PathBuf::from(file.split(['?', '#']).next().unwrap_or(file))),
        };
        if !bundle_here && here.is_some_and(|p| self.place.is_file(&p)) {
            return None;
        }
        for (root, tail) in self.tails(file) {
            let bundle = root.join(&tail);
            let mut map = bundle.clone().into_os_string();
            map.push(".map");
            let map = PathBuf::from(map);
            if self.place.is_file(&bundle) || !self.place.is_file(&map) {
                continue;
            }
            // Never a file outside the root (a `..` in the frame's path, a symlink out).
            let inside = std::fs::canonicalize(&map)
                .ok()
                .zip(std::fs::canonicalize(&root).ok())
                .is_some_and(|(m, r)| m.starts_with(r));
            if !inside {
                continue;
            }
            if let Some(m) = self.place.map_file(&map) {
                let why = format!(
                    "no bundle at {} under {}, and {} beside where it would be",
                    tail,
                    self.place.shown(&root),
                    self.place.shown(&map)
                );
                return Some((m, why));
            }
        }
        None
    }

    /// The map of a bundle found on disk, and how.
    fn map_of(&mut self, bundle: &Path) -> Option<(P::Map, String)> {
        let given = self.asked.given;
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        // Only maps given have bundles to compare with (a pipeline's events give none: no path resolved per frame).
        if given.iter().any(|g| g.bundle.is_some()) {
            let this = canonical(bundle);
            if let Some(g) = given
                .iter()
                .find(|g| g.bundle.as_deref().map(canonical).as_ref() == Some(&this))
            {
                return Some((g.map.clone(), "the map given for it".into()));
            }
        }
        if given.is_empty() {
            return self
                .place
                .own_map(bundle)
                .map(|m| (m, "its sourceMappingURL or sidecar .map".into()));
        }
        let id = self.place.debug_id(bundle);
        let map_id = |g: &GivenMap<P::Map>| {
            self.place
                .index(&g.map)
                .debug_id
                .as_deref()
                .map(normalize_debug_id)
        };
        if let Some(id) = &id {
            if let Some(g) = given.iter().find(|g| map_id(g).as_ref() == Some(id)) {
                return Some((g.map.clone(), format!("its debugId {id} is a given map's")));
            }
        }
        let name = bundle
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // A given map whose bundle is known serves that bundle only (matched above): a file of the same name
        // elsewhere is another build's (`a/test.min.js` is not `b/test.min.js`, whose map was given).
        let naming: Vec<&GivenMap<P::Map>> = given
            .iter()
            .filter(|g| g.bundle.is_none() && g.names.contains(&name))
            .filter(|g| id.is_none() || map_id(g).is_none() || map_id(g) == id)
            .collect();
        let naming = if naming.len() > 1 {
            let bytecode = self
                .place
                .text(bundle)
                .is_some_and(|t| is_hermes_bytecode((*t).as_ref()));
            self.of_kind(naming, bytecode)
        } else {
            naming
        };
        if let [g] = naming[..] {
            return Some((
                g.map.clone(),
                "a map given names it (its file name or `file`)".into(),
            ));
        }
        self.place
            .own_map(bundle)
            .map(|m| (m, "its sourceMappingURL or sidecar .map".into()))
    }

    /// The given maps that name `file` (their file names, their `file`), as candidates: of a Hermes build's two, the
    /// one of the frames' kind (`of_kind`). `found`: the file the frame's path found, which leads to no map; a given map
    /// whose bundle is known to be another file (not a copy of it) is that file's, not a candidate (the path tells
    /// same-named files apart): the one map given is then judged against the file found (`one_map_given`).
    fn given_naming(&mut self, file: &str, found: Option<&Path>) -> Vec<Candidate<P::Map>> {
        let name = file_name_of(file);
        let given = self.asked.given;
        let mut naming: Vec<&GivenMap<P::Map>> = Vec::new();
        for g in given.iter().filter(|g| g.names.iter().any(|n| n == name)) {
            let another = match (found, &g.bundle) {
                (Some(found), Some(own)) => !self.same_file(found, own),
                _ => false,
            };
            if !another {
                naming.push(g);
            }
        }
        self.of_kind(naming, self.bytecode_files.contains(file))
            .into_iter()
            .map(|g| Candidate {
                bundle: g.bundle.clone(),
                map: g.map.clone(),
                how: "a map given names it (its file name or `file`)".into(),
            })
            .collect()
    }

    /// Whether `a` and `b` are one file, or copies of one (the same bytes).
    fn same_file(&mut self, a: &Path, b: &Path) -> bool {
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        if canonical(a) == canonical(b) {
            return true;
        }
        let a = self.place.text(a).map(|t| (*t).as_ref().to_vec());
        match (a, self.place.text(b)) {
            (Some(a), Some(b)) => a == (*b).as_ref(),
            _ => false,
        }
    }

    /// Given maps naming one file, of a Hermes build: hermesc's map (`x_hermes_function_offsets`; its one source is
    /// the JavaScript bundle) and Metro's map of that bundle (Gradle names them `NAME.compiler.map` and
    /// `NAME.packager.map`, `locate::bundle_names_of_map`). The bytecode's frames are hermesc's map's, whose answers
    /// lead on to Metro's (a chain, `SessionPlace::next_map`); frames of the JavaScript bundle are Metro's map's.
    /// `bytecode`: the file is Hermes bytecode (its text, or its frames' form). Maps all of one kind are kept.
    fn of_kind<'g>(
        &self,
        maps: Vec<&'g GivenMap<P::Map>>,
        bytecode: bool,
    ) -> Vec<&'g GivenMap<P::Map>> {
        let hermes =
            |g: &GivenMap<P::Map>| self.place.index(&g.map).x_hermes_function_offsets.is_some();
        if maps.iter().all(|g| hermes(g)) || !maps.iter().any(|g| hermes(g)) {
            return maps;
        }
        maps.into_iter().filter(|g| hermes(g) == bytecode).collect()
    }

    /// One of several candidates for `file`, or ambiguous.
    fn among(
        &mut self,
        file: &str,
        candidates: Vec<Candidate<P::Map>>,
        positions: &[GeneratedPosition],
        found: &str,
    ) -> Choice<P::Map> {
        let (candidates, found) = match self.agreeing(file, candidates, found) {
            Ok(agreeing) => agreeing,
            Err(refuted) => return refuted,
        };
        let found = &found;
        let mut distinct: Vec<Candidate<P::Map>> = Vec::new();
        let mut copies = 0;
        for c in candidates {
            if distinct.iter().any(|d| self.same_build(d, &c)) {
                copies += 1;
            } else {
                distinct.push(c);
            }
        }
        let chosen = |c: Candidate<P::Map>, why: String| Choice::Map {
            why: format!("{why}; its map: {}", c.how),
            map: c.map,
            bundle: c.bundle,
        };
        if distinct.len() == 1 {
            let c = distinct.pop().expect("one candidate");
            // The only candidate still has to be able to hold the frames' positions: if its text has no such lines
            // or columns, the frames are another file's.
            // Only a text at hand says so (a map alone, without its bundle, is the user's word for the file).
            let impossible = c
                .bundle
                .as_deref()
                .and_then(|b| self.text_evidence(b, &c.map, positions))
                .is_some_and(|e| e == f64::NEG_INFINITY);
            if !positions.is_empty() && impossible {
                return Choice::Unmapped {
                    why: format!(
                        "{found}: {}, but its text cannot hold the frames' positions (lines it does not have, columns \
                         past its lines' ends): another file, not mapped",
                        self.label(&c)
                    ),
                };
            }
            let why = if copies > 0 {
                format!(
                    "{found}: {} copies of one build (the same map and text), the nearest",
                    copies + 1
                )
            } else {
                format!("{found}: {}", self.label(&c))
            };
            return chosen(c, why);
        }
        let ids = self.asked.debug_ids;
        if !ids.is_empty() {
            let by_id: Vec<usize> = (0..distinct.len())
                .filter(|&i| {
                    let id = self
                        .place
                        .index(&distinct[i].map)
                        .debug_id
                        .as_deref()
                        .map(normalize_debug_id);
                    id.is_some_and(|id| ids.contains(&id))
                })
                .collect();
            if by_id.len() == 1 {
                let c = distinct.swap_remove(by_id[0]);
                let why = format!("{found}; the report's debug ID is {}'s", self.label(&c));
                return chosen(c, why);
            }
            if !by_id.is_empty() {
                let mut kept = Vec::new();
                for (i, c) in distinct.into_iter().enumerate() {
                    if by_id.contains(&i) {
                        kept.push(c);
                    }
                }
                distinct = kept;
            }
        }
        let scores: Vec<f64> = distinct
            .iter()
            .map(|c| self.evidence(c, positions))
            .collect();
        let mut order: Vec<usize> = (0..scores.len()).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        let (best, next) = (scores[order[0]], scores[order[1]]);
        let possible = scores.iter().filter(|s| **s > f64::NEG_INFINITY).count();
        // The others cannot hold the positions (lines they do not have, columns past their lines' ends): as if this
        // were the only bundle of that name (whose map the fit check then judges, as any other's).
        if possible == 1 && !positions.is_empty() {
            let c = distinct.swap_remove(order[0]);
            let why = format!(
                "{found}; only {} can hold the frames' positions (the other {} have no such lines or columns)",
                self.label(&c),
                scores.len() - 1
            );
            return chosen(c, why);
        }
        if !positions.is_empty() && best >= DECISIVE && best - next >= DECISIVE {
            let c = distinct.swap_remove(order[0]);
            let why = format!(
                "{found}; the frames' {} position{} fit {}'s text, odds e^{:.0} to one over the next candidate's",
                positions.len(),
                if positions.len() == 1 { "" } else { "s" },
                self.label(&c),
                (best - next).min(99.0),
            );
            return chosen(c, why);
        }
        let names: Vec<String> = distinct.iter().map(|c| self.label(c)).collect();
        let bundles: Vec<PathBuf> = distinct.iter().filter_map(|c| c.bundle.clone()).collect();
        self.ambiguous.push(AmbiguousFile {
            file: file.to_string(),
            candidates: bundles,
        });
        let undecided = if possible == 0 && !positions.is_empty() {
            "none of them can hold the frames' positions (another build?)"
        } else {
            "neither a debug ID nor the frames' positions tell them apart"
        };
        Choice::Ambiguous {
            why: format!(
                "{} bundles could be {file} ({}), and {undecided}: not mapped; choose one (--bundle {name}=PATH)",
                distinct.len(),
                names.join(", "),
                name = file_name_of(file),
            ),
        }
    }

    /// The candidates the report does not contradict (its debug ID or its copy of the file's lines: the others are not
    /// the file that ran), with `found` saying how many were ruled out; `Err` when it contradicts every one.
    #[allow(clippy::type_complexity)]
    fn agreeing(
        &mut self,
        file: &str,
        candidates: Vec<Candidate<P::Map>>,
        found: &str,
    ) -> Result<(Vec<Candidate<P::Map>>, String), Choice<P::Map>> {
        let mut refuted = Vec::new();
        let mut agreeing = Vec::new();
        for c in candidates {
            match self.disagreement(file, &c.map, c.bundle.as_deref()) {
                Some(why) => refuted.push(format!("{}: {why}", self.label(&c))),
                None => agreeing.push(c),
            }
        }
        if agreeing.is_empty() {
            return Err(Choice::Unmapped {
                why: format!(
                    "{found}, but the report contradicts every one ({}): {ANOTHER_BUILD}, not mapped",
                    refuted.join("; ")
                ),
            });
        }
        let found = match refuted.len() {
            0 => found.to_string(),
            n => format!(
                "{found} ({n} ruled out by the report: {})",
                refuted.join("; ")
            ),
        };
        Ok((agreeing, found))
    }

    /// The same path under several roots: each a candidate, told apart by evidence ([`Resolver::among`]).
    fn among_paths(
        &mut self,
        file: &str,
        found: Vec<(PathBuf, String)>,
        positions: &[GeneratedPosition],
    ) -> Choice<P::Map> {
        let what = format!("{} of the roots hold {file}'s path", found.len());
        let mut candidates = Vec::new();
        for (bundle, how) in found {
            if let Some((map, map_how)) = self.map_of(&bundle) {
                candidates.push(Candidate {
                    bundle: Some(bundle),
                    map,
                    how: format!("{map_how} ({how})"),
                });
            }
        }
        self.among(file, candidates, positions, &what)
    }

    /// How the report contradicts `map` (and `bundle`, its text) as the build of `file`, if it does: the report's
    /// debug ID for the file differs from the map's (or the bundle's `//# debugId=`), or a line the report copied
    /// from the file is not that line of the bundle's text. `None`: no contradiction (or nothing to compare).
    fn disagreement(&mut self, file: &str, map: &P::Map, bundle: Option<&Path>) -> Option<String> {
        let reported = self.asked.reported.get(file)?;
        if let Some(id) = &reported.debug_id {
            let map_id = self
                .place
                .index(map)
                .debug_id
                .as_deref()
                .map(normalize_debug_id);
            let bundle_id = match (&map_id, bundle) {
                (None, Some(b)) => self.place.debug_id(b),
                _ => None,
            };
            if let Some(other) = map_id.or(bundle_id).filter(|other| other != id) {
                return Some(format!(
                    "the report's debug ID for {file} is {id}, the map's is {other}"
                ));
            }
        }
        let bundle = bundle?;
        if reported.lines.is_empty() {
            return None;
        }
        let text = self.place.text(bundle)?;
        let (line, copy) = lines_disagree((*text).as_ref(), &reported.lines)?;
        Some(format!(
            "the report's copy of line {} of {file} ({}) is not that line of {}",
            line + 1,
            quoted(&copy, 60),
            self.place.shown(bundle)
        ))
    }

    /// A candidate as messages name it.
    fn label(&self, c: &Candidate<P::Map>) -> String {
        c.bundle
            .as_ref()
            .map_or("a given map".into(), |b| self.place.shown(b))
    }

    /// How well `bundle`'s text (when at hand) fits the frames' positions on `map` ([`frames_evidence`]), its lines
    /// read through the index the place keeps for it.
    fn text_evidence(
        &mut self,
        bundle: &Path,
        map: &P::Map,
        positions: &[GeneratedPosition],
    ) -> Option<f64> {
        let text = self.place.text(bundle)?;
        let bytes = (*text).as_ref();
        let lines = self.place.line_index(bundle, bytes);
        Some(frames_evidence(
            self.place.index(map),
            bytes,
            lines.as_deref(),
            positions,
        ))
    }

    /// How well a candidate's text fits the frames' positions ([`frames_evidence`]); a map without a text at hand
    /// only rules itself out where a position falls on a line it does not map.
    fn evidence(&mut self, c: &Candidate<P::Map>, positions: &[GeneratedPosition]) -> f64 {
        if let Some(e) = c
            .bundle
            .as_deref()
            .and_then(|b| self.text_evidence(b, &c.map, positions))
        {
            return e;
        }
        let index = self.place.index(&c.map);
        let maps_line = |p: &GeneratedPosition| matches!(index.lookup(*p, Bias::GreatestLowerBound), Ok(Some(h)) if h.generated.line == p.line && h.original.is_some());
        if positions.iter().all(maps_line) {
            0.0
        } else {
            f64::NEG_INFINITY
        }
    }

    /// Whether two candidates are one build: the same loaded map, or maps with the same mappings and sources over
    /// the same text (a build copied to two folders answers every frame alike).
    fn same_build(&mut self, a: &Candidate<P::Map>, b: &Candidate<P::Map>) -> bool {
        if self.place.same_map(&a.map, &b.map) {
            return a.bundle == b.bundle
                || a.bundle.is_none()
                || b.bundle.is_none()
                || self.same_text(a, b);
        }
        let (x, y) = (self.place.index(&a.map), self.place.index(&b.map));
        let same_map = x.sections().len() == y.sections().len()
            && (0..x.sections().len()).all(|s| x.section_mappings(s) == y.section_mappings(s))
            && x.sources().len() == y.sources().len()
            && x.sources()
                .iter()
                .zip(y.sources())
                .all(|(s, t)| s.url == t.url);
        same_map && self.same_text(a, b)
    }

    fn same_text(&mut self, a: &Candidate<P::Map>, b: &Candidate<P::Map>) -> bool {
        match (a.bundle.as_deref(), b.bundle.as_deref()) {
            (Some(x), Some(y)) => match (self.place.text(x), self.place.text(y)) {
                (Some(x), Some(y)) => (*x).as_ref() == (*y).as_ref(),
                _ => false,
            },
            _ => false,
        }
    }
}

/// The first of `lines` (0-based line, the reporter's copy of it) that is not that line of `text`, if any. A copy
/// cut by the reporter (Sentry's `{snip}`, around the column for long lines) agrees when each part between the cuts,
/// trimmed, is in the line (`@sentry/node` 7's `'{snip}` read as `{snip}`); an uncut copy when it equals the line, but for white space at the ends (a reporter may
/// trim them) — or is in it, since some cut without a mark (Bugsnag's long lines). A copy that is empty once trimmed
/// says nothing.
pub fn lines_disagree(text: &[u8], lines: &[(u32, String)]) -> Option<(u32, String)> {
    let mut sorted: Vec<&(u32, String)> = lines.iter().collect();
    sorted.sort_by_key(|l| l.0);
    let (mut at, mut line_no) = (0usize, 0u32);
    for (line, copy) in sorted {
        if copy.trim().is_empty() {
            continue;
        }
        while line_no < *line {
            match memchr::memchr(b'\n', &text[at..]) {
                Some(i) => {
                    at += i + 1;
                    line_no += 1;
                }
                None => return Some((*line, copy.clone())),
            }
        }
        let end = memchr::memchr(b'\n', &text[at..]).map_or(text.len(), |i| at + i);
        let here = &text[at..end];
        let here = here.strip_suffix(b"\r").unwrap_or(here);
        // `@sentry/node` 7 marks a cut on the left with `'{snip} ` (sentry-javascript 7.x, `snipLine` in
        // `packages/utils/src/string.ts`: `newLine = "'{snip} " + newLine`), a quote that is not the line's.
        let agrees = copy
            .replace("'{snip}", "{snip}")
            .split("{snip}")
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .all(|part| memchr::memmem::find(here, part.as_bytes()).is_some());
        if !agrees {
            return Some((*line, copy.clone()));
        }
    }
    None
}

/// `s` in backquotes, cut to about `max` characters.
fn quoted(s: &str, max: usize) -> String {
    let s = s.trim();
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("`{}…`", &s[..i]),
        None => format!("`{s}`"),
    }
}

#[cfg(test)]
mod tests;
