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

use crate::map::index::{GeneratedPosition, SourceMapIndex};
use crate::trace::document::{ReportedFile, ANOTHER_BUILD};
use crate::trace::stack::{
    file_name_of, is_foreign_file, normalize_debug_id, FrameFormat, Precision, StackFrame,
};

mod by_path;
mod candidates;
mod given;
mod kept;

pub use candidates::*;

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
pub type BundleText = Box<dyn AsRef<[u8]>>;

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
    fn text(&mut self, bundle: &Path) -> Option<BundleText>;
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
    /// server's for a URL (when allowed), a directory of maps' `FILE.map`. [`Served::Refused`]: the place answers for
    /// that file and has no map for it (a directory of maps without `FILE.map`), so the frame stays unmapped and no
    /// other rule is tried.
    fn served(&mut self, _file: &str) -> Served<Self::Map> {
        Served::NotHere
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
    /// What the user can do, in this place's words ([`Hint::plain`] unless the place has its own).
    fn hint(&self, hint: &Hint) -> String {
        hint.plain()
    }
    /// The place's part of the key of a file's choice kept for later sessions (`resolve/kept.rs`): what besides the
    /// resolver's evidence the choice is made from (the roots, what the input says of the file), and a count of what
    /// choosing has said so far (notes, maps that could not be read). `None`: the place keeps no choice.
    fn choice_key(&self, _file: &str) -> Option<(Vec<u8>, usize)> {
        None
    }
    /// The choice an earlier session made from the same `key`, made this place's (its map among this session's).
    fn kept_choice(&mut self, _key: &[u8]) -> Option<Choice<Self::Map>> {
        None
    }
    /// Keeps `choice`, made from `key`, for later sessions, when the place can give it back whole: nothing was said
    /// since `mark`, and its map is one the place finds again as choosing it did.
    fn keep_choice(&mut self, _key: Vec<u8>, _choice: &Choice<Self::Map>, _mark: usize) {}
    /// The bundle's trailing `//# debugId=`.
    fn debug_id(&mut self, bundle: &Path) -> Option<String> {
        let tail = crate::bundle::locate::bundle_tail(bundle)?;
        crate::bundle::locate::find_debug_id(&tail).map(normalize_debug_id)
    }
}

/// What the user can do about a frame the policy did not answer, or did by their word: the place says it in its own
/// terms ([`Place::hint`]: the CLI names its flags, the server its settings and choices), so the policy's reasons name
/// no front end's.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Hint {
    /// No bundle of the frame's name leads to a map: give its map, or where to look.
    GiveMapOrRoot,
    /// Several bundles could be the file `name`: choose one.
    ChooseBundle {
        /// The file's name as the frame prints it.
        name: String,
    },
    /// A bundle the user chose for the file.
    ChosenBundle,
    /// No script found holds an eval'd module: give the folder of the development build.
    GiveBuildFolder,
    /// The one candidate `bundle` may be the file `name`, and the evidence cannot say: the user can say so.
    ChooseThisBundle {
        /// The file's name as the frame prints it.
        name: String,
        /// The candidate, as the place shows it.
        bundle: String,
    },
    /// Say which bundle is the file `name`.
    NameBundle {
        /// The file's name as the frame prints it.
        name: String,
    },
    /// A search for bundles by name stopped early: give the folder where the bundles are.
    SearchWhereBundlesAre,
    /// A search for bundles by name took long: a narrower folder makes it shorter.
    NarrowTheSearch,
}

impl Hint {
    /// The words of a place that has none of its own: neither flags nor settings.
    pub fn plain(&self) -> String {
        match self {
            Hint::GiveMapOrRoot => "give its map, or a folder that holds it".into(),
            Hint::ChooseBundle { name } => format!("choose which bundle is {name}"),
            Hint::ChosenBundle => "the bundle chosen for it".into(),
            Hint::GiveBuildFolder => "give the folder of the development build".into(),
            Hint::ChooseThisBundle { name, bundle } => format!("choose {bundle} as {name}"),
            Hint::NameBundle { name } => format!("say which bundle is {name}"),
            Hint::SearchWhereBundlesAre => "give the folder where the bundles are".into(),
            Hint::NarrowTheSearch => "the folder of the bundles narrows it".into(),
        }
    }

    /// The command line's words: its flags.
    pub fn as_flags(&self) -> String {
        match self {
            Hint::GiveMapOrRoot => "give its map, or --root".into(),
            Hint::ChooseBundle { name } => format!("choose one (--bundle {name}=PATH)"),
            Hint::ChosenBundle => "--bundle".into(),
            Hint::GiveBuildFolder => "give --root the folder of the development build".into(),
            Hint::ChooseThisBundle { name, bundle } => format!("--bundle {name}={bundle}"),
            Hint::NameBundle { name } => format!("--bundle {name}=PATH"),
            Hint::SearchWhereBundlesAre => "give --root to search where the bundles are".into(),
            Hint::NarrowTheSearch => "--root narrows it".into(),
        }
    }
}

/// What a place holds for a file exactly as a frame names it ([`Place::served`]).
#[derive(Debug)]
pub enum Served<M> {
    /// Its map for the file, and how it was found (for `--explain`).
    Map(M, String),
    /// The place answers for the file and has no map for it: the frame stays unmapped, and no other rule is tried.
    Refused(Refusal),
    /// The place holds nothing for the file: the other rules decide.
    NotHere,
}

/// Why a place that answers for a file has no map for it (the words the frame's `unresolved` shows).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal(pub String);

impl From<String> for Refusal {
    fn from(why: String) -> Self {
        Refusal(why)
    }
}

impl<M> From<Result<(M, String), Refusal>> for Served<M> {
    fn from(found: Result<(M, String), Refusal>) -> Self {
        match found {
            Ok((map, how)) => Served::Map(map, how),
            Err(why) => Served::Refused(why),
        }
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
        // Another session's choice from the same evidence, when the place keeps them.
        let kept = kept::choice_key(self, file, positions);
        if let Some(choice) = kept
            .as_ref()
            .and_then(|(key, _)| self.place.kept_choice(key))
        {
            self.by_file.insert(file.to_string(), choice.clone());
            return choice;
        }
        let ambiguous = self.ambiguous.len();
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
        // A choice that found several files to ask about is this session's to say.
        if let Some((key, mark)) = kept.filter(|_| self.ambiguous.len() == ambiguous) {
            self.place.keep_choice(key, &choice, mark);
        }
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
                    format!(
                        "the one map given (bound to it by {})",
                        self.place.hint(&Hint::ChosenBundle)
                    ),
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
            Served::Map(map, why) => {
                return Choice::Map {
                    map,
                    bundle: None,
                    why,
                }
            }
            Served::Refused(Refusal(why)) => return Choice::Unmapped { why },
            Served::NotHere => {}
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
                    "no bundle named {name} with a map under {} ({})",
                    roots.join(", "),
                    self.place.hint(&Hint::GiveMapOrRoot)
                ),
            },
        }
    }
}

#[cfg(test)]
mod tests;
