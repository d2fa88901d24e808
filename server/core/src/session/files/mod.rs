//! The place of files ([`FilesPlace`]): a symbolication session ([`crate::session`]) over the local disk. The maps
//! given (a bundle or a map each, opened lazily; a large index map cut down to the sections the frames need), the
//! bundles a frame names under a root, debug IDs, directories of maps, and maps a dev server serves (the caller's
//! fetcher); every map checked against its bundle ([`KnownMap::fit_near`]). The command line's `symbolicate` and
//! `profile` run their sessions here; what is worth telling the user on the way (a search that stopped early, a map
//! that could not be read) is kept in [`FilesPlace::take_notes`], never printed.

mod archives;
mod disk_memo;
mod kept_choices;
mod known_map;
mod opened_maps;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::bundle::eval_modules::{eval_modules, module_code, module_map, WEBPACK_INTERNAL};
use crate::bundle::fit::{check_fit, Shift};
use crate::bundle::locate::map_in_directory;
use crate::bundle::resolve::{Asked, BundleText, Choice, GivenMap, Hint, Place, Refusal, Served};
use crate::session::{
    symbolicate_lines, Code, DifferingFile, Fit, SessionOptions, SessionPlace, Symbolication,
};
use crate::source::project_file::{self, ProjectFile, SourceFolders};
use crate::source::today::SourceDrift;
use crate::trace::event_context::LinedText;
use crate::trace::function_name::{ScopeCache, TextIdentity};
use crate::trace::stack::{file_name_of, StackLine};
use crate::trace::symbolicate::{KeptFor, SymbolicatedLine};
use crate::{GeneratedPosition, IndexOptions, SourceId, SourceMapIndex};

pub use archives::{archive_member_of, archive_named_in, ArchiveStore};
pub use disk_memo::DiskMemo;
use disk_memo::KeptFit;
pub use known_map::{BundleFile, KnownMap, OpenMapError};
pub use opened_maps::{CacheStats, OpenedMaps};

/// Fetches the map of a bundle URL (`http://localhost:8081/index.bundle?…`): the caller's (the core opens no
/// connection); `Err` says why not.
pub type ServedMaps = Box<dyn Fn(&str) -> Result<Vec<u8>, FetchError> + Send + Sync>;

/// Why a map could not be fetched, in the fetcher's words (said as a note; the frame is then left to other rules).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FetchError(pub String);

/// An inline map (a `data:` URL) of a bundle found by name is decoded up to this size (the server's default
/// `maxMapBytes`).
const MAX_INLINE_MAP_BYTES: u64 = 1 << 30;

/// The local disk as a session's place: see the module documentation.
pub struct FilesPlace {
    /// The maps given first, then those discovered from frames: a session's maps index this.
    pub maps: Vec<Arc<KnownMap>>,
    /// How many of `maps` were given.
    given: usize,
    /// Where bundles and maps that frames name are looked for (shared by a pipeline's sessions).
    disk: Arc<DiskMemo>,
    /// The debug ID each file the input names has (a Sentry event's `debug_meta.images`), normalized.
    pub file_debug_ids: HashMap<String, String>,
    /// What the input says about the files its frames name (`TraceDocument::reported_files`): a bundle chosen for
    /// a file must agree with it.
    pub reported: HashMap<String, crate::trace::document::ReportedFile>,
    /// Maps served for bundle URLs, when the caller allows it and no map is given.
    served_maps: Option<ServedMaps>,
    /// What the user should hear about, in order (`take_notes`).
    notes: Vec<String>,
    /// Bundles chosen for files (`--bundle NAME=PATH`): by the file as printed, or its name.
    pub chosen: HashMap<String, PathBuf>,
    /// The debug IDs the input names (`debug_ids_in`).
    pub debug_ids: Vec<String>,
    /// The maps loaded for bundles found from frames, by the bundle's path.
    by_bundle: HashMap<PathBuf, Option<usize>>,
    /// Directories of maps given as MAP (their real paths): every frame is answered from `DIR/FILE.map` only.
    pub map_dirs: Vec<PathBuf>,
    /// The maps read from them, by real path (`None`: not a map).
    dir_maps: HashMap<PathBuf, Option<usize>>,
    /// Why the map a bundle leads to could not be read, by the bundle's real path.
    broken: HashMap<PathBuf, String>,
    /// The real paths of the given maps' bundles, for chains of maps (`next_map`): found once per `resolve` (a
    /// path per mapped frame was 3 ms of a profile), after the session's `serves` has said them.
    chain_bundles: OnceLock<Vec<Option<PathBuf>>>,
    /// What the user can do, in the caller's words ([`FilesPlace::say_hints`]; [`Hint::plain`] by default).
    hints: fn(&Hint) -> String,
}

impl FilesPlace {
    /// The maps given, and the folder under which the bundles frames name are looked for.
    pub fn new(given: Vec<KnownMap>, root: PathBuf) -> FilesPlace {
        FilesPlace::on(
            given.into_iter().map(Arc::new).collect(),
            Arc::new(DiskMemo::new(vec![root])),
        )
    }

    /// The maps given, on a disk shared with other sessions (a pipeline's: one place per event).
    pub fn on(given: Vec<Arc<KnownMap>>, disk: Arc<DiskMemo>) -> FilesPlace {
        FilesPlace {
            given: given.len(),
            maps: given,
            disk,
            file_debug_ids: HashMap::new(),
            reported: HashMap::new(),
            served_maps: None,
            notes: Vec::new(),
            chosen: HashMap::new(),
            debug_ids: Vec::new(),
            by_bundle: HashMap::new(),
            map_dirs: Vec::new(),
            dir_maps: HashMap::new(),
            broken: HashMap::new(),
            chain_bundles: OnceLock::new(),
            hints: Hint::plain,
        }
    }

    /// Says what the user can do in `words` (the command line: [`Hint::as_flags`]).
    pub fn say_hints(&mut self, words: fn(&Hint) -> String) {
        self.hints = words;
    }

    /// A directory of maps' map for `file` (metro-symbolicate's directory mode: `DIR/FILE.map`, `FILE` as the frame
    /// prints it, resolved against `DIR`), never a file outside `DIR`: the map's real path, symlinks and `..`
    /// resolved, must lie under `DIR`'s. A file with no map there stays unmapped (metro-symbolicate leaves it as
    /// printed too).
    fn map_in_map_dirs(&mut self, file: &str) -> Result<(usize, String), Refusal> {
        let rel = file.strip_prefix("file://").unwrap_or(file);
        for dir in self.map_dirs.clone() {
            let Some(real) = map_in_directory(&dir, file) else {
                continue;
            };
            let at = match self.dir_maps.get(&real) {
                Some(&known) => known,
                None => {
                    // A file that is no map is said once (as for MAP arguments) and leaves its frames unmapped.
                    let loaded = self.open_file(&real);
                    let at = loaded.map(|m| self.push(m));
                    self.dir_maps.insert(real.clone(), at);
                    at
                }
            };
            return at
                .map(|i| {
                    (
                        i,
                        format!(
                            "{} in the directory of maps {}",
                            shown_path(&real),
                            shown_path(&dir)
                        ),
                    )
                })
                .ok_or_else(|| {
                    Refusal(format!(
                        "{} is not a map sourcemap-ls reads",
                        real.display()
                    ))
                });
        }
        Err(Refusal(format!(
            "no {rel}.map in the directory of maps ({}), counting only files whose real path lies inside it: a \
             directory of maps answers from its own files only",
            self.map_dirs.iter().map(|d| shown_path(d)).collect::<Vec<_>>().join(", ")
        )))
    }

    /// Symbolicates `lines` here: the core's one session ([`symbolicate_lines`]) over the maps given, the bundles
    /// chosen and the debug IDs; frames that name no file (React Native's `name@L:C`, `LINE COLUMN`, Hermes crash
    /// reports) use the first map given (a Hermes map first, the maps after it continue the chain). The answer's
    /// frames (their `map`) and its `fits` name maps by their place in [`FilesPlace::maps`]; its `maps` lists those
    /// used. What the user should hear about is in [`FilesPlace::take_notes`].
    pub fn symbolicate(
        &mut self,
        lines: Vec<StackLine>,
        options: SessionOptions,
    ) -> Symbolication<usize> {
        let given = self.given_maps();
        let (chosen, debug_ids) = (self.chosen.clone(), self.debug_ids.clone());
        let reported = std::mem::take(&mut self.reported);
        let asked = Asked {
            given: &given,
            chosen: &chosen,
            debug_ids: &debug_ids,
            no_file: (self.given > 0).then_some(0),
            reported: &reported,
        };
        // The given maps' bundles may be told by this session (`serves`): found anew.
        self.chain_bundles = OnceLock::new();
        let mut done = symbolicate_lines(self, lines, &asked, options);
        for f in done
            .lines
            .iter_mut()
            .filter_map(SymbolicatedLine::frame_mut)
        {
            f.map = f.map.map(|i| done.maps[i]);
        }
        for (i, _) in &mut done.fits {
            *i = done.maps[*i];
        }
        done.fits.sort_by_key(|(i, _)| *i);
        done
    }

    /// The text of map `map`'s source `source`: its `sourcesContent`, else its file in the project
    /// ([`FilesPlace::source_file`]: never a file outside what the user gave).
    pub fn source_text(&self, map: usize, source: SourceId) -> Option<String> {
        let m = self.maps.get(map)?;
        if let Some(copy) = m.index.source_content(source) {
            return Some(copy.into_owned());
        }
        known_map::read_text(&self.source_file(map, source)?.path)
    }

    /// The file of map `map`'s source `source` in the user's project (`source::project_file`: the framework's
    /// naming understood, every candidate inside the disk's containment, a guess taken only where the file is the
    /// map's copy), found once per map and source.
    pub fn source_file(&self, map: usize, source: SourceId) -> Option<ProjectFile> {
        let m = self.maps.get(map)?;
        let mut known = m.project_files.lock().unwrap_or_else(|e| e.into_inner());
        known
            .entry(source)
            .or_insert_with(|| {
                let name = m.index.source(source).url.as_deref()?;
                let access = self.disk.source_access();
                let bundle_dir = m.bundle_dir();
                let folders = SourceFolders {
                    map_dir: Some(&m.dir),
                    bundle_dir: bundle_dir.as_deref(),
                    projects: &access.projects,
                    overrides: &[],
                };
                let copy = m.index.source_content(source);
                project_file::find(name, &folders, &access.containment, |path| {
                    copy.as_deref().is_none_or(|copy| {
                        crate::fs::files::read_regular(path, MAX_COMPARED_BYTES)
                            .is_ok_and(|bytes| project_file::same_text(&bytes, copy))
                    })
                })
            })
            .clone()
    }

    /// [`FilesPlace::source_text`] with where its lines start, for an event's context lines. A text from a map's
    /// `sourcesContent` is kept across the sessions sharing this place's disk (by the map file as it is now); a
    /// source read from its own file is read again each time (it may have changed).
    pub fn source_lines(&self, map: usize, source: SourceId) -> Option<Arc<LinedText>> {
        let m = self.maps.get(map)?;
        let shared = (self.disk.texts.as_ref()).filter(|_| m.index.source(source).has_content());
        let Some(texts) = shared else {
            if let Some(copy) = m.source_copy_lined(source) {
                return Some(Arc::new(copy));
            }
            return Some(Arc::new(LinedText::new(self.source_text(map, source)?)));
        };
        let key = self.source_key(map, source)?;
        if let Some(kept) = texts.get(&key) {
            return Some(kept);
        }
        let lined = Arc::new(m.source_copy_lined(source)?);
        texts.insert(key, lined.clone(), lined.bytes());
        Some(lined)
    }

    /// The file the map states for `source` (its name as a path, relative to the map), inside what the user gave,
    /// whatever its text: where an edited source is today.
    fn stated_source_file(&self, map: usize, source: SourceId) -> Option<PathBuf> {
        let m = self.maps.get(map)?;
        let name = m.index.source(source).url.as_deref()?;
        let folders = SourceFolders {
            map_dir: Some(&m.dir),
            ..Default::default()
        };
        let access = self.disk.source_access();
        project_file::find(name, &folders, &access.containment, |_| false).map(|f| f.path)
    }

    /// A source's text across sessions: what it is, where the map carries it (each release's copy of a library is
    /// one text), else the map's file as it is now and the source's index.
    fn source_key(&self, map: usize, source: SourceId) -> Option<TextIdentity> {
        let m = self.maps.get(map)?;
        let by_content = (m.source_keys.lock().unwrap_or_else(|e| e.into_inner()))
            .entry(source)
            .or_insert_with(|| TextIdentity::of_content(&m.index, source))
            .clone();
        by_content.or_else(|| self.disk.text_key(m.file.as_deref()?, Some(source.0)))
    }

    /// Map `map`'s identity among frames' kept answers: its file and its generated text's, each as it is now (the
    /// function scopes that name frames are read from that text and from the map's sources, which are the map's own
    /// or files this generation of the store takes as they are). `None` for a map not known by a file, or whose
    /// bundle is not (a member of an archive, a guess that finds none): its answers are not kept.
    fn kept_identity(&self, map: usize) -> Option<Arc<[u8]>> {
        let m = &self.maps[map];
        m.kept_identity
            .get_or_init(|| {
                let map_file = self.disk.text_key(m.file.as_deref()?, None)?;
                let bundle = match &m.bundle {
                    BundleFile::None => None,
                    BundleFile::Known(p) => Some(self.disk.text_key(p, None)?),
                    BundleFile::Guess { .. } => {
                        Some(self.disk.text_key(&m.guessed_bundle()?, None)?)
                    }
                    BundleFile::InArchive(..) => return None,
                };
                Some(Arc::from(format!("{map_file:?}\0{bundle:?}").into_bytes()))
            })
            .clone()
    }

    /// The map file at `path` (canonical), or why not said once (a file that is no map leaves its frames unmapped).
    fn open_file(&mut self, path: &Path) -> Option<Arc<KnownMap>> {
        let mut why = None;
        let map = self.disk.open(path, || {
            KnownMap::open(path)
                .map_err(|e| why = Some(e.to_string()))
                .ok()
        });
        self.notes.extend(why);
        map
    }

    /// `map` among this session's maps: its place in [`FilesPlace::maps`].
    fn push(&mut self, map: Arc<KnownMap>) -> usize {
        match self.maps.iter().position(|m| Arc::ptr_eq(m, &map)) {
            Some(i) => i,
            None => {
                self.maps.push(map);
                self.maps.len() - 1
            }
        }
    }

    /// The map the disk holds for the debug ID the input gives `file` (a Sentry event's `debug_meta.images`), with
    /// the bundle of the same ID as its bundle when there is one.
    /// The map of a frame's file inside an archive (`archives`): given with `--maps`, or found under a root by the
    /// archive's name when the frame's path runs through `NAME.asar/`. By the event's debug ID for the file first,
    /// then by path. [`Served::Refused`]: the file is an archive's member that leads to no map.
    fn archive_map(&mut self, file: &str) -> Served<usize> {
        let through = archives::archive_named_in(file);
        let mut notes = Vec::new();
        let archives = self
            .disk
            .archives_for(through.as_deref(), &mut notes, self.hints);
        self.notes.extend(notes);
        if archives.is_empty() {
            return Served::NotHere;
        }
        if let Some(id) = self.file_debug_ids.get(file).cloned() {
            for a in &archives {
                if let Some((map, bundle)) = a.by_debug_id(&id) {
                    let why = format!(
                        "the event's debug ID for {file} is {id}, in {}",
                        shown_path(a.path())
                    );
                    return self
                        .archive_member_map(a, &map, bundle.as_deref(), why)
                        .into();
                }
            }
        }
        for a in &archives {
            let Some((bundle, how)) = a.bundle_for(file) else {
                continue;
            };
            let Some((bytes, map)) = a.map_of(&bundle) else {
                return Served::Refused(Refusal(format!(
                    "{} in {} leads to no map the archive holds",
                    bundle,
                    shown_path(a.path())
                )));
            };
            let why = format!("{bundle} ({how}), its map {map}");
            return self
                .archive_map_bytes(a, bytes, &map, Some(&bundle), why)
                .into();
        }
        Served::NotHere
    }

    fn archive_member_map(
        &mut self,
        a: &Arc<ArchiveStore>,
        map: &str,
        bundle: Option<&str>,
        why: String,
    ) -> Result<(usize, String), Refusal> {
        let bytes = a
            .read(map)
            .ok_or_else(|| format!("{map} in {} cannot be read", shown_path(a.path())))?;
        self.archive_map_bytes(a, bytes, map, bundle, why)
    }

    /// A map read from an archive, opened as a map of the place (its bundle the archive's member, when known: its fit
    /// is checked against that text).
    fn archive_map_bytes(
        &mut self,
        a: &Arc<ArchiveStore>,
        bytes: Vec<u8>,
        map: &str,
        bundle: Option<&str>,
        why: String,
    ) -> Result<(usize, String), Refusal> {
        let map_path = a.member_path(map);
        let key = map_path.clone();
        if let Some(&Some(at)) = self.dir_maps.get(&key) {
            return Ok((at, why));
        }
        let index = SourceMapIndex::from_bytes_with(
            bytes,
            IndexOptions {
                lazy: true,
                lazy_names: true,
            },
        )
        .map_err(|e| format!("{}: {e}", shown_path(&map_path)))?;
        let bundle_file = bundle
            .and_then(|b| Some((a.member_path(b), a.read(b)?)))
            .map_or(BundleFile::None, |(p, text)| {
                BundleFile::InArchive(p, text.into())
            });
        let names = bundle
            .map(|b| vec![file_name_of(b).to_string()])
            .unwrap_or_default();
        let known = KnownMap {
            file: None,
            index,
            bundle: bundle_file,
            names,
            dir: map_path.parent().map(Path::to_path_buf).unwrap_or_default(),
            found: format!("{} in the archive {}", map, shown_path(a.path())),
            fit: OnceLock::new(),
            source_keys: Mutex::default(),
            openable: std::sync::Mutex::default(),
            project_files: std::sync::Mutex::default(),
            guessed_bundle: OnceLock::new(),
            kept_identity: OnceLock::new(),
        };
        let at = self.push(Arc::new(known));
        self.dir_maps.insert(key, Some(at));
        Ok((at, why))
    }

    fn by_files_debug_id(&mut self, file: &str) -> Option<(usize, String)> {
        let id = self.file_debug_ids.get(file)?.clone();
        let map = self.debug_id_map(&id)?;
        let why = format!("the event's debug ID for {file} is {id}");
        Some((self.push(map), why))
    }

    /// A bundle whose comment and sidecar lead to no map, by its `//# debugId=`: the disk's map of that ID.
    fn by_bundles_debug_id(&mut self, bundle: &Path) -> Option<Arc<KnownMap>> {
        let id = self.disk.bundle_debug_id(bundle)?;
        self.debug_id_map(&id)
    }

    /// The disk's map with debug ID `id`, opened, its bundle the disk's bundle of that ID.
    fn debug_id_map(&mut self, id: &str) -> Option<Arc<KnownMap>> {
        let disk = self.disk.clone();
        let (path, bundle) = disk.by_debug_id(id)?;
        let path = canonical(path);
        let bundle = bundle.map(Path::to_path_buf);
        // Opened as the disk's scan opens it (`DiskMemo::with_debug_ids`), when no cache kept it.
        self.disk.open(&path, || {
            let mut m = KnownMap::open(&path).ok()?;
            m.found = format!("{} (debug ID {id})", m.found);
            if let Some(b) = bundle {
                m.bundle = BundleFile::Known(b);
            }
            Some(m)
        })
    }

    /// The map of the eval'd module `file` names (webpack's eval devtools, `webpack-internal:///./src/x.ts`): the
    /// module's own inline map, in the bundle under the roots that holds the module (the one the user chose with
    /// `--bundle NAME=PATH`, else the only build that holds it: copies of one build count once). Its fit is checked
    /// against the module's code, which is at hand; several builds holding the module: not mapped, the candidates
    /// named, as for any file several bundles could be.
    fn eval_module_map(&mut self, file: &str) -> Result<(usize, String), Refusal> {
        let disk = self.disk.clone();
        let mut bundles: Vec<PathBuf> = disk.eval_bundles(file).to_vec();
        let chosen: Vec<PathBuf> = self.chosen.values().map(|p| canonical(p)).collect();
        if bundles.iter().any(|b| chosen.contains(&canonical(b))) {
            bundles.retain(|b| chosen.contains(&canonical(b)));
        }
        let mut builds: Vec<(PathBuf, String)> = Vec::new();
        for bundle in bundles {
            let Ok(text) = crate::fs::files::read_regular(&bundle, u64::MAX) else {
                continue;
            };
            let module = eval_modules(&text)
                .into_iter()
                .find(|m| m.source_url == file);
            let Some(code) = module.and_then(|m| module_code(&text, &m)) else {
                continue;
            };
            if !builds.iter().any(|(_, c)| *c == code) {
                builds.push((bundle, code));
            }
        }
        let (bundle, code) = match builds.len() {
            0 => {
                return Err(Refusal(format!(
                "no script under {} holds the eval'd module {file} (webpack's eval devtools): {}",
                self.disk
                    .roots
                    .iter()
                    .map(|r| shown_path(r))
                    .collect::<Vec<_>>()
                    .join(", "),
                (self.hints)(&Hint::GiveBuildFolder)
            )))
            }
            1 => builds.pop().expect("one build"),
            n => {
                let names: Vec<String> = builds.iter().map(|(b, _)| shown_path(b)).collect();
                let why = format!(
                    "{n} bundles hold the eval'd module {file} ({}), each with its own map: not mapped; {}",
                    names.join(", "),
                    (self.hints)(&Hint::ChooseBundle {
                        name: file_name_of(&names[0]).to_string()
                    })
                );
                self.notes.push(why.clone());
                return Err(Refusal(why));
            }
        };
        let Some(bytes) = module_map(&code) else {
            return Err(Refusal(format!(
                "the eval'd module {file} in {} has no map (webpack's devtool `eval`: use `eval-source-map` or \
                 `eval-cheap-module-source-map`)",
                shown_path(&bundle)
            )));
        };
        let options = IndexOptions {
            lazy: true,
            lazy_names: true,
        };
        let index = SourceMapIndex::from_bytes_with(bytes, options).map_err(|e| {
            format!(
                "the map of the eval'd module {file} in {}: {e}",
                shown_path(&bundle)
            )
        })?;
        // The module's code is at hand: its map is checked against it as any bundle's.
        let report = check_fit(&index, code.as_bytes(), None).ok();
        let found = format!(
            "inline in the eval'd module {file} of {}",
            shown_path(&bundle)
        );
        let map = KnownMap {
            file: Some(bundle.clone()),
            bundle: BundleFile::None,
            names: vec![file_name_of(file).to_string()],
            dir: bundle.parent().map(Path::to_path_buf).unwrap_or_default(),
            found: found.clone(),
            fit: OnceLock::from(report.map(|r| Fit {
                bundle: bundle.clone(),
                report: Arc::new(r),
            })),
            source_keys: Mutex::default(),
            openable: std::sync::Mutex::default(),
            project_files: std::sync::Mutex::default(),
            guessed_bundle: OnceLock::new(),
            kept_identity: OnceLock::new(),
            index,
        };
        Ok((self.push(Arc::new(map)), found))
    }

    /// Maps for bundle URLs (`http://…`) are fetched with `fetch` when no map is given (a Metro dev server's).
    pub fn serve_maps_from(&mut self, fetch: ServedMaps) {
        self.served_maps = Some(fetch);
    }

    /// What the user should hear about since the last call, in order: a search by name that stopped early or took
    /// long, a map that could not be read (each frame it would have answered says so too), a dev server's error.
    pub fn take_notes(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notes)
    }

    /// The maps given, as the resolver takes them.
    fn given_maps(&self) -> Vec<GivenMap<usize>> {
        self.maps[..self.given]
            .iter()
            .enumerate()
            .map(|(i, m)| GivenMap {
                map: i,
                names: m.names.clone(),
                bundle: m.bundle.path(),
            })
            .collect()
    }
}

/// The disk under `--root`, for the one resolver (`crate::bundle::resolve`).
impl Place for FilesPlace {
    type Map = usize;

    fn roots(&self) -> Vec<PathBuf> {
        self.disk.roots.clone()
    }

    fn named(&mut self, name: &str) -> Vec<PathBuf> {
        self.disk.named(name, &mut self.notes, self.hints)
    }

    fn own_map(&mut self, bundle: &Path) -> Option<usize> {
        let key = self.disk.canonical(bundle);
        if let Some(&known) = self.by_bundle.get(&key) {
            return known;
        }
        // Only a file that leads to a map by its comment or sidecar (read from its tail) is opened as a bundle. Shared
        // maps are kept by the map file's path (the scan by debug ID keeps them so), an inline map by its bundle's.
        let leads = self.disk.map_key_of_bundle(bundle, &key);
        let cache_key = leads.clone().unwrap_or_else(|| key.clone());
        let roots = &self.disk.roots;
        let mut broken = None;
        let loaded = leads
            .is_some()
            .then(|| {
                self.disk.open(&cache_key, || match KnownMap::open(bundle) {
                    Ok(mut known) => {
                        let under: Vec<String> = roots.iter().map(|r| shown_path(r)).collect();
                        known.found = format!(
                            "{} (the bundle {} found under --root {})",
                            known.found,
                            shown_path(bundle),
                            under.join(", ")
                        );
                        Some(known)
                    }
                    Err(e) => {
                        broken = Some(e.to_string());
                        None
                    }
                })
            })
            .flatten()
            .or_else(|| self.by_bundles_debug_id(bundle));
        if let Some(why) = broken {
            self.broken.insert(key.clone(), why);
        }
        let loaded = loaded.map(|known| self.push(known));
        self.by_bundle.insert(key, loaded);
        loaded
    }

    fn choice_key(&self, file: &str) -> Option<(Vec<u8>, usize)> {
        self.choice_key_of(file)
    }

    fn kept_choice(&mut self, key: &[u8]) -> Option<Choice<usize>> {
        self.kept_choice_of(key)
    }

    fn keep_choice(&mut self, key: Vec<u8>, choice: &Choice<usize>, mark: usize) {
        self.keep_choice_of(key, choice, mark)
    }

    fn text(&mut self, bundle: &Path) -> Option<BundleText> {
        Some(Box::new(SharedText(self.disk.bundle_text(bundle)?)))
    }

    fn line_index(
        &mut self,
        bundle: &Path,
        text: &[u8],
    ) -> Option<Arc<crate::bundle::columns::LineIndex>> {
        self.disk.bundle_lines(bundle, text)
    }

    fn is_file(&self, path: &Path) -> bool {
        self.disk.is_file(path)
    }

    fn index<'a>(&'a self, map: &'a usize) -> &'a SourceMapIndex {
        &self.maps[*map].index
    }

    fn map_error(&self, bundle: &Path) -> Option<String> {
        let key = self.disk.canonical(bundle);
        self.broken.get(&key).cloned()
    }

    fn same_map(&self, a: &usize, b: &usize) -> bool {
        a == b
    }

    fn shown(&self, path: &Path) -> String {
        shown_path(path)
    }

    fn hint(&self, hint: &Hint) -> String {
        (self.hints)(hint)
    }

    fn map_file(&mut self, path: &Path) -> Option<usize> {
        let key = canonical(path);
        if let Some(&known) = self.dir_maps.get(&key) {
            return known;
        }
        let loaded = self.open_file(&key);
        let at = loaded.map(|m| self.push(m));
        self.dir_maps.insert(key, at);
        at
    }

    /// An eval'd module's map, an archive's, a directory of maps', the map of the file's debug ID, or a dev server's
    /// map for a bundle URL (when the caller fetches them, `serve_maps_from`, and no map is given).
    fn served(&mut self, file: &str) -> Served<usize> {
        if file.starts_with(WEBPACK_INTERNAL) {
            return self.eval_module_map(file).into();
        }
        match self.archive_map(file) {
            Served::NotHere => {}
            found => return found,
        }
        if !self.map_dirs.is_empty() {
            return self.map_in_map_dirs(file).into();
        }
        if let Some((map, how)) = self.by_files_debug_id(file) {
            return Served::Map(map, how);
        }
        match self.dev_server_map(file) {
            Some((map, how)) => Served::Map(map, how),
            None => Served::NotHere,
        }
    }
}

impl FilesPlace {
    /// A loopback dev server's map for a bundle URL, when the caller fetches them and no map is given.
    fn dev_server_map(&mut self, file: &str) -> Option<(usize, String)> {
        let fetch = self.served_maps.as_ref()?;
        if !(file.starts_with("http://") && self.given == 0) {
            return None;
        }
        let bytes = match fetch(file) {
            Ok(bytes) => bytes,
            Err(e) => {
                self.notes.push(e.to_string());
                return None;
            }
        };
        let index = SourceMapIndex::from_bytes_with(
            bytes,
            IndexOptions {
                lazy: true,
                lazy_names: true,
            },
        )
        .map_err(|e| self.notes.push(format!("map of {file}: {e}")))
        .ok()?;
        let served = KnownMap {
            file: None,
            index,
            bundle: BundleFile::None,
            names: vec![file_name_of(file).to_string()],
            dir: self.disk.roots.first().cloned().unwrap_or_default(),
            found: format!("served by the Metro dev server for {file}"),
            fit: OnceLock::new(),
            source_keys: Mutex::default(),
            openable: std::sync::Mutex::default(),
            project_files: std::sync::Mutex::default(),
            guessed_bundle: OnceLock::new(),
            kept_identity: OnceLock::new(),
        };
        Some((
            self.push(Arc::new(served)),
            "fetched from the Metro dev server".into(),
        ))
    }
}

/// A path with its links resolved, when it exists (paths are compared so).
fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// A path as `--explain` shows it: relative to the current directory when it is below it.
pub fn shown_path(p: &Path) -> String {
    working_dir()
        .and_then(|cwd| p.strip_prefix(cwd).ok().map(|r| r.display().to_string()))
        .map(|r| if r.is_empty() { ".".to_string() } else { r })
        .unwrap_or_else(|| p.display().to_string())
}

/// A bundle's text mapped once for the generation ([`disk_memo::DiskMemo::bundle_text`]), handed to the resolver.
struct SharedText(Arc<memmap2::Mmap>);

impl AsRef<[u8]> for SharedText {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// The process's working directory, read once: paths are shown and joined from it at every event of a pipeline,
/// and a `getcwd` per frame was a system call per warm event (issue 56). Nothing here changes it.
pub fn working_dir() -> Option<&'static Path> {
    static DIR: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    DIR.get_or_init(|| std::env::current_dir().ok()).as_deref()
}

/// The biggest local file compared with a map's copy of a source.
const MAX_COMPARED_BYTES: u64 = 64 << 20;

/// What a fit verdict is counted at in the budget (an estimate: the report without its misfit regions, each of which
/// adds 256 bytes).
const FIT_BYTES: usize = 4 << 10;

/// Fit verdicts kept at most. They are pinned in the budget (counted, never evicted for other entries): a verdict
/// costs a whole read of its map, and a small budget that evicts maps, texts and scopes in turn would otherwise
/// evict the verdicts with them and check each map again at each event.
const KEPT_FITS: usize = 256;

/// The disk under `--root`, as the session reads it: bundles' and sources' texts, each map's fit (kept in its
/// `KnownMap`), chains into the maps given on the command line.
impl SessionPlace for FilesPlace {
    fn fit(&self, map: &usize, frames: &[GeneratedPosition]) -> Option<Fit> {
        // A map shared by many sessions is checked whole, once, from its second session on: its verdicts answer
        // every later session's frames. Its first session checks near its frames only (`fit_near_only`: a
        // pipeline meets most maps once). What is kept outlives the opened map in the cache (a map opened again,
        // the cache being smaller than the maps, is not checked again): kept by the map's and the bundle's files as
        // they are now. Kept per opened map instead, a 1 MiB cache checked near at every event: 1,100 events took
        // 11.1–11.3 s against 8.6–9.0 s.
        if self.disk.cache.is_some() {
            let m = &self.maps[*map];
            // A bundle guessed from the map's name (a map found in a store by the frame's URL) is the candidate that
            // leads back to the map: kept by that file as well, so its first session checks near its frames too
            // (it was checked whole: one event through `symbolicate --ndjson --maps target/bench-metro-real` took
            // 0.87 s, 0.31 s so).
            let bundle = match &m.bundle {
                BundleFile::Known(bundle) => Some(bundle.clone()),
                BundleFile::Guess { .. } => m.guessed_bundle(),
                _ => None,
            };
            let lines = bundle
                .as_deref()
                .and_then(|b| self.disk.bundle_lines_kept(b));
            let key = match (&m.file, bundle, &self.disk.fits) {
                (Some(file), Some(bundle), Some(_)) => {
                    (self.disk.text_key(file, None)).zip(self.disk.text_key(&bundle, None))
                }
                _ => None,
            };
            let Some((key, fits)) = key.zip(self.disk.fits.as_ref()) else {
                return m.fit().cloned();
            };
            match fits.get(&key) {
                Some(KeptFit::Whole(kept)) => return kept,
                None if !frames.is_empty() => {
                    fits.insert(key, KeptFit::NearOnce, 0);
                    if fits.len() > KEPT_FITS {
                        fits.drop_oldest();
                    }
                    return m.fit_near_only(frames, lines.as_deref());
                }
                _ => {}
            }
            let fit = m.fit().cloned();
            let regions = fit.as_ref().map_or(0, |f| f.report.regions.len());
            fits.insert(key, KeptFit::Whole(fit.clone()), FIT_BYTES + 256 * regions);
            if fits.len() > KEPT_FITS {
                fits.drop_oldest();
            }
            return fit;
        }
        self.maps[*map].fit_near(frames).cloned()
    }

    fn code<'a>(
        &'a self,
        maps: &'a [usize],
        shift: Box<dyn Fn(usize) -> Shift + Send + Sync + 'a>,
    ) -> Code<'a> {
        let known = &self.maps;
        let cache = ScopeCache::new(
            move |i| {
                let (path, bytes) = known[maps[i]].bundle.read()?;
                Some((path.display().to_string(), String::from_utf8(bytes).ok()?))
            },
            move |i, source| {
                let m = &known[maps[i]];
                let name = m.index.source(source).url.as_deref()?.to_string();
                // The text the event's context lines read too: unescaped once, kept across sessions.
                Some((name, self.source_lines(maps[i], source)?))
            },
        )
        // A shifted frame's function is found in the bundle's text as shifted as its position.
        .with_generated_shift(shift);
        // Sessions sharing a disk share what they parsed: a text by its file as it is now.
        let Some(shared) = self.disk.scopes.as_ref() else {
            return Box::new(cache);
        };
        Box::new(cache.sharing(
            shared,
            move |i| self.disk.text_key(&known[maps[i]].bundle.path()?, None),
            move |i, source| self.source_key(maps[i], source),
        ))
    }

    fn kept_frames<'a>(&'a self, maps: &'a [usize]) -> Option<KeptFor<'a>> {
        let frames = self.disk.frames.as_ref()?;
        Some(KeptFor {
            frames,
            maps: maps.iter().map(|&i| self.kept_identity(i)).collect(),
        })
    }

    /// A chain of maps (a Hermes map's source `app.js`, whose own map was given too) is followed into maps given on
    /// the command line only, never into one found for another frame's bundle: into the map that names the source's
    /// file and, when its bundle is known, whose bundle is the file the source resolves to.
    fn next_map(&self, &from: &usize, source: &str) -> Option<usize> {
        let maps = &self.maps;
        let name = file_name_of(source);
        let mut named = (0..self.given)
            .filter(|&i| i != from && maps[i].names.iter().any(|n| n == name))
            .peekable();
        // Resolved only when some given map names the source (a path per mapped frame was 3 ms of a profile).
        named.peek()?;
        let resolved = canonical(
            &maps[from]
                .dir
                .join(source.strip_prefix("file://").unwrap_or(source)),
        );
        let bundles = self.chain_bundles.get_or_init(|| {
            maps[..self.given]
                .iter()
                .map(|m| m.bundle.path().map(|p| canonical(&p)))
                .collect()
        });
        named.find(|&i| bundles[i].as_ref().is_none_or(|b| *b == resolved))
    }

    /// A map given without its bundle serves the bundle it was chosen for: that text is the one checked for fit.
    fn serves(&mut self, &map: &usize, bundle: &Path) {
        // A map shared with other sessions (a pipeline's cache) has its bundle already, or keeps none.
        if let Some(m) = Arc::get_mut(&mut self.maps[map]) {
            if m.bundle.path().is_none() {
                m.bundle = BundleFile::Known(bundle.to_path_buf());
            }
        }
    }

    /// The source's file in the project, diffed with the map's copy: the file shown for it (`source_file`, by
    /// whichever rule found it), else where the path the map states leads (a guess needs the build's text, which
    /// an edited file no longer is), inside what the user gave.
    fn todays_source(&self, &map: &usize, source: SourceId) -> Option<DifferingFile> {
        let m = &self.maps[map];
        let build = m.index.source_content(source)?;
        let path = match self.source_file(map, source) {
            Some(file) => file.path,
            None => self.stated_source_file(map, source)?,
        };
        let bytes = crate::fs::files::read_regular(&path, MAX_COMPARED_BYTES).ok()?;
        if project_file::same_text(&bytes, &build) {
            return None;
        }
        let today = std::str::from_utf8(&bytes).ok();
        let drift = today.map(|today| SourceDrift::between(&build, today));
        if drift.as_ref().is_some_and(SourceDrift::is_unchanged) {
            return None;
        }
        Some(DifferingFile {
            path,
            drift: drift.filter(SourceDrift::is_edit_of_build).map(Arc::new),
        })
    }
}
