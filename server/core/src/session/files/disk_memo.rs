//! What the places of many sessions have found on disk, kept ([`DiskMemo`]): the folders bundles and maps are found
//! under, their files by name (walked once), the maps and bundles found there by debug ID (scanned once), paths
//! resolved, bundles' texts and tails, and the opened maps ([`OpenedMaps`]).
//!
//! Every field is a memo for one generation of the store: a file changed on disk is found again by the next
//! generation, not by this one. The command line's one session has its own; a pipeline's sessions, one per event,
//! share one.

use crate::source::project_file::Containment;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::archives::ArchiveStore;
use super::kept_choices::KeptChoices;
use super::opened_maps::OpenedMaps;
use super::{shown_path, KnownMap};
use crate::bundle::columns::LineIndex;
use crate::bundle::eval_modules::{eval_modules, has_eval_modules};
use crate::bundle::locate::{bundle_tail, find_debug_id};
use crate::bundle::resolve::Hint;
use crate::bundle::resolve::SEARCH_DEPTH;
use crate::fs::walk::FilesByName;
use crate::internal::budget::Lru;
use crate::session::Fit;
use crate::trace::document::Release;
use crate::trace::event_context::LinedText;
use crate::trace::function_name::{SharedScopes, TextIdentity};
use crate::trace::stack::normalize_debug_id;
use crate::trace::symbolicate::KeptFrames;

/// The largest script read when looking for eval'd modules (a development bundle of webpack's eval devtools holds
/// every module's code and map: tens of MB for a large app).
const MAX_EVAL_BUNDLE_BYTES: u64 = 256 << 20;

/// How many files under the roots are indexed by name, nearest first (a root that holds more is searched in part).
const MAX_INDEXED_FILES: usize = 500_000;

/// What a generation of the store found once, by key (see the fields that use it).
type Memo<K, V> = Arc<std::sync::Mutex<HashMap<K, V, foldhash::fast::RandomState>>>;

/// Where original sources may be read (every read inside `containment`), and the project folders their names are
/// tried under, best first (`source::project_file`).
#[derive(Debug, Clone, Default)]
pub struct SourceAccess {
    /// The folders every read of a source stays inside.
    pub containment: Containment,
    /// The caller's project folders.
    pub projects: Vec<PathBuf>,
}

impl SourceAccess {
    /// Reads inside `allowed`, names tried under `projects`.
    pub fn new(allowed: Vec<PathBuf>, projects: Vec<PathBuf>) -> SourceAccess {
        SourceAccess {
            containment: Containment::new(allowed),
            projects,
        }
    }
}

/// See the module documentation.
pub struct DiskMemo {
    /// Where bundles and maps that frames name are looked for, nearest first.
    pub(super) roots: Vec<PathBuf>,
    /// The files under the roots by name, walked once when a frame first needs one; those inside dependency folders
    /// (`node_modules`) walked once when a name is not found outside them.
    files: OnceLock<Vec<FilesByName>>,
    dependency_files: OnceLock<Vec<FilesByName>>,
    /// Maps by their `debugId`, and bundles by their `//# debugId=` (normalized), under the roots given to
    /// [`DiskMemo::with_debug_ids`].
    maps_by_id: Arc<HashMap<String, PathBuf>>,
    bundles_by_id: Arc<HashMap<String, PathBuf>>,
    /// Folders whose subfolders are releases (`--maps-by-release DIR`: `DIR/<release>/`, or `DIR/<release>/<dist>/`
    /// when the event gives a dist and that folder exists): an event of a release finds bundles by path only in its
    /// release's folder (and the roots), never in another release's.
    by_release: Vec<PathBuf>,
    /// The modules of webpack's eval devtools under the roots, by `sourceURL`: the bundles holding each, nearest
    /// first ([`DiskMemo::eval_bundles`]), found when a frame first names one.
    eval_modules: OnceLock<HashMap<String, Vec<PathBuf>>>,
    /// The disk of each release met so far ([`DiskMemo::for_release`]).
    releases: std::sync::Mutex<ReleaseDisks>,
    /// Paths as the system resolves them (`std::fs::canonicalize`), once per path in this generation of the store:
    /// a pipeline's warm events resolved the same bundles and maps again at every frame (88 `readlink` an event).
    canonical: Memo<PathBuf, PathBuf>,
    /// Per bundle (canonical), the key its map is kept under when it leads to one (`map_key_of_bundle`).
    bundle_maps: Memo<PathBuf, Option<PathBuf>>,
    /// Bundles' texts as mapped in this generation (`bundle_text`).
    bundle_texts: Memo<PathBuf, Option<Arc<memmap2::Mmap>>>,
    /// Whether each path asked is a regular file, in this generation (`is_file`).
    regular_files: Memo<PathBuf, bool>,
    /// Bundles' `//# debugId=` (normalized), read from their tails once in this generation (`bundle_debug_id`).
    bundle_ids: Memo<PathBuf, Option<String>>,
    /// Each text's key as first asked in this generation (`text_key`).
    text_keys: Memo<(PathBuf, Option<u32>), Option<TextIdentity>>,
    /// Where original sources may be read, and the project folders their names are tried under.
    pub(super) sources: Arc<SourceAccess>,
    /// Archives of bundles and maps given as stores (`--maps app.asar`, `--maps bundle.zip`).
    pub(super) archives: Arc<Vec<Arc<ArchiveStore>>>,
    /// Archives found under the roots by name when a frame's path runs through one (`…/app.asar/…`), once per name;
    /// why one could not be read, said once.
    found_archives: Memo<String, Vec<Arc<ArchiveStore>>>,
    /// Opened maps shared by every session, when there are several.
    pub(super) cache: Option<Arc<OpenedMaps>>,
    /// The function scopes of their texts, under the cache's budget.
    pub(super) scopes: Option<SharedScopes>,
    /// Sources' texts from maps' `sourcesContent`, unescaped and lined, under the cache's budget (a pipeline's
    /// events give context lines from the same few sources).
    pub(super) texts: Option<Arc<Lru<TextIdentity, Arc<LinedText>>>>,
    /// Bundles' line indexes (`bundle_lines`), under the cache's budget.
    pub(super) bundle_lines: Option<Arc<Lru<PathBuf, Arc<LineIndex>>>>,
    /// Fit verdicts by the map's and the bundle's files, counted in the cache's budget (pinned: see `KEPT_FITS`).
    pub(super) fits: Option<Arc<FitVerdicts>>,
    /// Frames' answers (lookup and naming) by the map, its texts and the frame, under the cache's budget: a
    /// pipeline's distinct events share their frames.
    pub(super) frames: Option<KeptFrames>,
    /// Files' choices kept (`KeptChoices`): distinct events name the same files with the same evidence.
    pub(super) choices: Option<KeptChoices>,
}

/// Each release's disk (`None`: events without a release) and the note said about it.
type ReleaseDisks = HashMap<Option<Release>, (Arc<DiskMemo>, Option<String>)>;

/// Fit verdicts by the map's file and the bundle's.
pub(super) type FitVerdicts = Lru<(TextIdentity, TextIdentity), KeptFit>;

/// What is kept of a map's fit against its bundle across sessions.
#[derive(Clone)]
pub(super) enum KeptFit {
    /// One session checked near its frames only (`KnownMap::fit_near_only`): the next checks the whole map.
    NearOnce,
    /// The whole check's verdict, for every later session.
    Whole(Option<Fit>),
}

impl DiskMemo {
    /// Bundles and maps looked for under `roots`, nearest first.
    pub fn new(roots: Vec<PathBuf>) -> DiskMemo {
        DiskMemo {
            sources: Arc::new(SourceAccess::new(roots.clone(), roots.clone())),
            archives: Arc::default(),
            found_archives: Arc::default(),
            roots,
            files: OnceLock::new(),
            dependency_files: OnceLock::new(),
            maps_by_id: Arc::default(),
            bundles_by_id: Arc::default(),
            by_release: Vec::new(),
            eval_modules: OnceLock::new(),
            releases: Default::default(),
            canonical: Arc::default(),
            text_keys: Arc::default(),
            bundle_maps: Arc::default(),
            bundle_texts: Arc::default(),
            regular_files: Arc::default(),
            bundle_ids: Arc::default(),
            cache: None,
            scopes: None,
            texts: None,
            bundle_lines: None,
            fits: None,
            frames: None,
            choices: None,
        }
    }

    /// Opened maps kept in `cache`, and the function scopes and sources' texts of them under its budget, shared by
    /// the sessions that share this disk.
    pub fn with_cache(mut self, cache: Arc<OpenedMaps>) -> DiskMemo {
        self.scopes = Some(SharedScopes::new(cache.budget()));
        self.texts = Some(Lru::new("sourceTexts", cache.budget()));
        self.bundle_lines = Some(Lru::new("bundleLines", cache.budget()));
        self.fits = Some(Lru::pinned("fits", cache.budget()));
        self.frames = Some(KeptFrames::new(cache.budget()));
        self.choices = Some(KeptChoices::new(cache.budget()));
        self.cache = Some(cache);
        self
    }

    /// Every map (`*.map`) and every bundle with a `//# debugId=` under the roots, by
    /// debug ID: read once, now. Maps are opened to read their `debugId` and, with a cache, kept in it while it has
    /// room. Returns notes on what could not be read (a second map with an ID already seen is one).
    pub fn with_debug_ids(mut self) -> (DiskMemo, Vec<String>) {
        let mut notes = Vec::new();
        let mut files = Vec::new();
        // The one folder walk (nearest first, dependency, build and hidden folders skipped).
        for root in self.roots.iter().chain(&self.by_release) {
            let _ = crate::fs::walk::walk(root, SEARCH_DEPTH + 4, |e| {
                if e.is_file {
                    files.push(e.path.to_path_buf());
                }
                std::ops::ControlFlow::Continue(())
            });
        }
        // Bundles first, so that each map opened knows the bundle of its ID (its fit and its function names).
        let mut maps = Vec::new();
        for path in files {
            // Maps by their name: a JSON document that is not one (`package.json`) is never opened.
            if path.extension().is_some_and(|e| e == "map") {
                maps.push(path);
                continue;
            }
            let Some(tail) = bundle_tail(&path) else {
                continue;
            };
            if let Some(id) = find_debug_id(&tail) {
                Arc::make_mut(&mut self.bundles_by_id)
                    .entry(normalize_debug_id(id))
                    .or_insert(path);
            }
        }
        for path in maps {
            if !may_have_debug_id(&path) {
                continue;
            }
            let path = std::fs::canonicalize(&path).unwrap_or(path);
            let bundles = &self.bundles_by_id;
            let open = || {
                let mut m = KnownMap::open(&path).ok()?;
                if let Some(id) = m.index.debug_id.as_deref().map(normalize_debug_id) {
                    m.found = format!("{} (debug ID {id})", m.found);
                    if let Some(b) = bundles.get(&id) {
                        m.bundle = super::BundleFile::Known(b.clone());
                    }
                }
                Some(m)
            };
            let opened = match &self.cache {
                Some(cache) => cache.get_or_open(&path, open),
                None => open().map(Arc::new),
            };
            let Some(id) = opened.and_then(|m| m.index.debug_id.as_deref().map(normalize_debug_id))
            else {
                continue;
            };
            if let Some(first) = self.maps_by_id.get(&id) {
                notes.push(format!(
                    "note: {} has the debug ID of {} ({id}); the first is used",
                    shown_path(&path),
                    shown_path(first)
                ));
                continue;
            }
            Arc::make_mut(&mut self.maps_by_id).insert(id, path);
        }
        (self, notes)
    }

    /// Folders of maps by release (`DIR/<release>/`, see `by_release`), scanned for debug IDs with the roots by
    /// [`DiskMemo::with_debug_ids`] (call this first).
    pub fn with_releases(mut self, dirs: Vec<PathBuf>) -> DiskMemo {
        self.sources = Arc::new(SourceAccess {
            containment: self.sources.containment.with(dirs.iter().cloned()),
            projects: self.sources.projects.clone(),
        });
        self.by_release = dirs;
        self
    }

    /// Original sources may also be read under `allowed` (the command line's working folder, the folders of the
    /// maps and bundles it names), and names are tried under `projects` first (see `source::project_file`). A
    /// pipeline's disk reads under its roots and stores only: it is never given more.
    pub fn with_source_folders(
        mut self,
        allowed: Vec<PathBuf>,
        projects: Vec<PathBuf>,
    ) -> DiskMemo {
        let mut all = projects.clone();
        all.extend(self.sources.projects.iter().cloned());
        all.dedup();
        self.sources = Arc::new(SourceAccess {
            containment: self
                .sources
                .containment
                .with(allowed.into_iter().chain(projects)),
            projects: all,
        });
        self
    }

    /// Archives of bundles and maps given as stores (`--maps app.asar`, `--maps bundle.zip`), read in place. What
    /// lies beside an archive is not given with it (the caller allows an asar's `.unpacked` folder).
    pub fn with_archives(mut self, archives: Vec<Arc<ArchiveStore>>) -> DiskMemo {
        self.archives = Arc::new(archives);
        self
    }

    /// The archives given, and those named `name` under the roots (opened once; an unreadable one is said in
    /// `notes`, once).
    pub(super) fn archives_for(
        &self,
        name: Option<&str>,
        notes: &mut Vec<String>,
        hints: fn(&Hint) -> String,
    ) -> Vec<Arc<ArchiveStore>> {
        let mut out: Vec<Arc<ArchiveStore>> = self.archives.iter().cloned().collect();
        let Some(name) = name else {
            return out;
        };
        let known = self
            .found_archives
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
            .cloned();
        let found = known.unwrap_or_else(|| {
            let opened: Vec<Arc<ArchiveStore>> = self
                .named(name, notes, hints)
                .into_iter()
                .filter(|p| !self.archives.iter().any(|a| a.path() == p))
                .filter_map(|p| match ArchiveStore::open(&p) {
                    Ok(a) => Some(Arc::new(a)),
                    Err(e) => {
                        notes.push(e.to_string());
                        None
                    }
                })
                .collect();
            (self
                .found_archives
                .lock()
                .unwrap_or_else(|e| e.into_inner()))
            .insert(name.to_string(), opened.clone());
            opened
        });
        out.extend(found);
        out
    }

    /// Where original sources may be read (`source::project_file`).
    pub fn source_access(&self) -> &SourceAccess {
        &self.sources
    }

    /// The disk an event of `release` reads: bundles found by path under its release's folder (`DIR/<release>/<dist>/`
    /// when the event gives a dist and that folder exists, else `DIR/<release>/`) and then the roots — never under
    /// another release's folder. An event without a release looks under every release's folder, so same-named
    /// bundles of several releases are candidates that only evidence tells apart (`bundle::resolve`: the report's
    /// debug IDs and lines, the frames' positions), else the user is asked. Debug IDs, the map cache and everything
    /// kept under its budget are this disk's, shared. The note says when the release has no folder (its frames are
    /// then answered from the roots only, or not at all). Made once per release and kept (a generation of the store
    /// is one `DiskMemo`: SIGHUP makes a new one).
    pub fn for_release(
        self: &Arc<DiskMemo>,
        release: Option<&Release>,
    ) -> (Arc<DiskMemo>, Option<String>) {
        if self.by_release.is_empty() {
            return (self.clone(), None);
        }
        let key = release.cloned();
        let mut releases = self.releases.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(known) = releases.get(&key) {
            return known.clone();
        }
        let (folders, note) = match release {
            None => (self.by_release.clone(), None),
            Some(r) => {
                let folders: Vec<PathBuf> = self
                    .by_release
                    .iter()
                    .filter_map(|dir| release_folder(dir, r))
                    .collect();
                let note = folders.is_empty().then(|| {
                    format!(
                        "note: release {} has no folder under {} (its frames are not answered from another release's maps)",
                        r.name,
                        self.by_release
                            .iter()
                            .map(|d| shown_path(d))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                });
                (folders, note)
            }
        };
        let mut roots = folders;
        roots.extend(self.roots.iter().cloned());
        let disk = Arc::new(DiskMemo {
            roots,
            files: OnceLock::new(),
            dependency_files: OnceLock::new(),
            maps_by_id: self.maps_by_id.clone(),
            bundles_by_id: self.bundles_by_id.clone(),
            by_release: Vec::new(),
            eval_modules: OnceLock::new(),
            releases: Default::default(),
            canonical: self.canonical.clone(),
            text_keys: self.text_keys.clone(),
            bundle_maps: self.bundle_maps.clone(),
            regular_files: self.regular_files.clone(),
            bundle_ids: self.bundle_ids.clone(),
            bundle_texts: self.bundle_texts.clone(),
            sources: self.sources.clone(),
            archives: self.archives.clone(),
            found_archives: self.found_archives.clone(),
            cache: self.cache.clone(),
            scopes: self.scopes.clone(),
            texts: self.texts.clone(),
            bundle_lines: self.bundle_lines.clone(),
            fits: self.fits.clone(),
            frames: self.frames.clone(),
            choices: self.choices.clone(),
        });
        releases.insert(key, (disk.clone(), note.clone()));
        (disk, note)
    }

    /// Where this disk looks, as a choice's key writes it (`KeptChoices`): its roots and its releases' folders, each
    /// whole.
    pub(super) fn write_folders(&self, key: &mut Vec<u8>) {
        for folders in [&self.roots, &self.by_release] {
            key.extend_from_slice(&(folders.len() as u64).to_le_bytes());
            for f in folders {
                let bytes = f.as_os_str().as_encoded_bytes();
                key.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
                key.extend_from_slice(bytes);
            }
        }
    }

    /// The bundles under the roots holding the eval'd module named `source_url` (webpack's eval devtools:
    /// `webpack-internal:///./src/x.ts`), nearest first. The roots' scripts (`.js`, `.mjs`, `.cjs`; dependency,
    /// build-tool and hidden folders skipped, as every walk) are read once, the first time a frame names such a
    /// module: a frame names the module, never the bundle that holds it.
    pub(super) fn eval_bundles(&self, source_url: &str) -> &[PathBuf] {
        let index = self.eval_modules.get_or_init(|| {
            let mut index: HashMap<String, Vec<PathBuf>> = HashMap::new();
            for root in &self.roots {
                let _ = crate::fs::walk::walk(root, SEARCH_DEPTH + 4, |e| {
                    let script = e
                        .path
                        .extension()
                        .is_some_and(|x| x == "js" || x == "mjs" || x == "cjs");
                    if e.is_file && script {
                        let text = crate::fs::files::read_regular(e.path, MAX_EVAL_BUNDLE_BYTES);
                        if let Some(text) = text.ok().filter(|t| has_eval_modules(t)) {
                            for m in eval_modules(&text) {
                                let bundles = index.entry(m.source_url).or_default();
                                if !bundles.iter().any(|b| b == e.path) {
                                    bundles.push(e.path.to_path_buf());
                                }
                            }
                        }
                    }
                    std::ops::ControlFlow::Continue(())
                });
            }
            index
        });
        index.get(source_url).map_or(&[], Vec::as_slice)
    }

    /// `path` as the system resolves it (symlinks and `..`), or as it is when it cannot be: found once per path in
    /// this generation of the store (a new `DiskMemo` on SIGHUP), like the walk by name and the debug-ID scan.
    pub(super) fn canonical(&self, path: &Path) -> PathBuf {
        let mut known = self.canonical.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = known.get(path) {
            return c.clone();
        }
        let c = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        known.insert(path.to_path_buf(), c.clone());
        c
    }

    /// The key of the text at `path` (`source`: a map's source), found once in this generation of the store
    /// (`TextIdentity::of` reads the file's stamp and resolves its path: 14 system calls a text, at every warm event). A
    /// file changed in place is seen at the next generation (a new `DiskMemo`: `SIGHUP`), as the maps' folders are.
    pub(super) fn text_key(&self, path: &Path, source: Option<u32>) -> Option<TextIdentity> {
        let mut known = self.text_keys.lock().unwrap_or_else(|e| e.into_inner());
        known
            .entry((path.to_path_buf(), source))
            .or_insert_with(|| TextIdentity::of(path, source))
            .clone()
    }

    /// The key the map `bundle` (whose canonical path is `key`) leads to is kept under, when it leads to one (its
    /// `sourceMappingURL` or sidecar, read from its tail): the map file's canonical path, or for an inline map the
    /// bundle's. Found once in this generation: the tail's read and the map's path resolved were 20 system calls
    /// per warm event (issue 56).
    pub(super) fn map_key_of_bundle(&self, bundle: &Path, key: &Path) -> Option<PathBuf> {
        let mut known = self.bundle_maps.lock().unwrap_or_else(|e| e.into_inner());
        known
            .entry(key.to_path_buf())
            .or_insert_with(|| {
                let tail = bundle_tail(bundle)?;
                let found = crate::bundle::locate::find_bundle_map(
                    bundle,
                    &tail,
                    super::MAX_INLINE_MAP_BYTES,
                )
                .ok()?;
                Some(match &found.map {
                    crate::bundle::locate::BundleMapRef::File(map) => self.canonical(map),
                    crate::bundle::locate::BundleMapRef::Inline(_) => key.to_path_buf(),
                })
            })
            .clone()
    }

    /// Whether `path` is a regular file, asked of the system once in this generation: frames' paths are tried under
    /// each root at every event.
    pub(super) fn is_file(&self, path: &Path) -> bool {
        let mut known = self.regular_files.lock().unwrap_or_else(|e| e.into_inner());
        *known
            .entry(path.to_path_buf())
            .or_insert_with(|| path.is_file())
    }

    /// A bundle's `//# debugId=` (normalized), read from its tail once in this generation.
    pub(super) fn bundle_debug_id(&self, bundle: &Path) -> Option<String> {
        let mut known = self.bundle_ids.lock().unwrap_or_else(|e| e.into_inner());
        known
            .entry(bundle.to_path_buf())
            .or_insert_with(|| {
                let tail = bundle_tail(bundle)?;
                Some(crate::trace::stack::normalize_debug_id(find_debug_id(
                    &tail,
                )?))
            })
            .clone()
    }

    /// A bundle's text, mapped once in this generation (the resolver reads it to weigh what an event says of its
    /// bundle: an open, a stat and a map per event before). `None`: not a regular file, or larger than a bundle is.
    pub(super) fn bundle_text(&self, bundle: &Path) -> Option<Arc<memmap2::Mmap>> {
        let mut known = self.bundle_texts.lock().unwrap_or_else(|e| e.into_inner());
        known
            .entry(self.canonical(bundle))
            .or_insert_with(|| {
                let (file, meta) = crate::fs::files::open_regular(bundle).ok()?;
                if meta.len() > super::known_map::MAX_GENERATED_BYTES {
                    return None;
                }
                // SAFETY: as in `BundleFile::map`: a regular file, read while this generation lasts.
                unsafe { memmap2::Mmap::map(&file) }.ok().map(Arc::new)
            })
            .clone()
    }

    /// The line index of `bundle`'s text `text` (from [`DiskMemo::bundle_text`]), built once while the cache's budget
    /// keeps it; `None` without a cache.
    pub(super) fn bundle_lines(&self, bundle: &Path, text: &[u8]) -> Option<Arc<LineIndex>> {
        let kept = self.bundle_lines.as_ref()?;
        let key = self.canonical(bundle);
        if let Some(index) = kept.get(&key) {
            return Some(index);
        }
        let index = Arc::new(LineIndex::new(text));
        kept.insert(key, index.clone(), index.heap_bytes());
        Some(index)
    }

    /// The line index of `bundle` when one is kept (never built here).
    pub(super) fn bundle_lines_kept(&self, bundle: &Path) -> Option<Arc<LineIndex>> {
        self.bundle_lines.as_ref()?.get(&self.canonical(bundle))
    }

    /// The map with debug ID `id` (normalized), and the bundle with the same ID when the roots hold one.
    pub(super) fn by_debug_id(&self, id: &str) -> Option<(&Path, Option<&Path>)> {
        let map = self.maps_by_id.get(id)?;
        Some((map, self.bundles_by_id.get(id).map(PathBuf::as_path)))
    }

    /// How many maps were found by debug ID.
    pub fn maps_with_debug_ids(&self) -> usize {
        self.maps_by_id.len()
    }

    /// Files named `name` under the roots, nearest first (inside dependency folders only when none is outside);
    /// a note when the walk stopped early or took long, saying what to do in `hints`' words.
    pub(super) fn named(
        &self,
        name: &str,
        notes: &mut Vec<String>,
        hints: fn(&Hint) -> String,
    ) -> Vec<PathBuf> {
        let walked = |dependencies: bool, notes: &mut Vec<String>| {
            self.roots
                .iter()
                .map(|root| {
                    let files = if dependencies {
                        FilesByName::in_dependencies(root, SEARCH_DEPTH, MAX_INDEXED_FILES)
                    } else {
                        FilesByName::new(root, SEARCH_DEPTH, MAX_INDEXED_FILES)
                    };
                    noted(root, files, notes, hints)
                })
                .collect::<Vec<_>>()
        };
        let outside: Vec<PathBuf> = self
            .files
            .get_or_init(|| walked(false, notes))
            .iter()
            .flat_map(|f| f.named(name).iter().cloned())
            .collect();
        if !outside.is_empty() {
            return outside;
        }
        self.dependency_files
            .get_or_init(|| walked(true, notes))
            .iter()
            .flat_map(|f| f.named(name).iter().cloned())
            .collect()
    }

    /// The map at `path` (canonical), opened by `open`, through the cache when there is one.
    pub(super) fn open(
        &self,
        path: &Path,
        open: impl FnOnce() -> Option<KnownMap>,
    ) -> Option<Arc<KnownMap>> {
        match &self.cache {
            Some(cache) => cache.get_or_open(path, open),
            None => open().map(Arc::new),
        }
    }
}

/// A note when the search by name under `root` stopped before the end of the tree, or took long: the answer may lack
/// a bundle, and a narrower root shortens the search (in `hints`' words: the command line's `--root`).
fn noted(
    root: &Path,
    files: FilesByName,
    notes: &mut Vec<String>,
    hints: fn(&Hint) -> String,
) -> FilesByName {
    if files.truncated() {
        notes.push(format!(
            "note: the search for bundles by name under {} stopped after {} folders; {}",
            shown_path(root),
            crate::fs::walk::MAX_FOLDERS,
            hints(&Hint::SearchWhereBundlesAre)
        ));
    } else if files.took() > std::time::Duration::from_secs(1) {
        notes.push(format!(
            "note: the search for bundles by name under {} took {:.1} s; {}",
            shown_path(root),
            files.took().as_secs_f64(),
            hints(&Hint::NarrowTheSearch)
        ));
    }
    files
}

/// Whether the map at `path` holds the text `"debugId"` at all: a map without it has no debug ID (its `debugId` key
/// is that text, unless written with `\u` escapes, which no producer does), so only the others are opened. A folder
/// of releases holds thousands of maps, most without one; reading them for the text is a search at memory speed, an
/// open parses and indexes each.
fn may_have_debug_id(path: &Path) -> bool {
    let Ok((file, _)) = crate::fs::files::open_regular(path) else {
        return false;
    };
    // SAFETY: as in `BundleFile::map`: a regular file, read while this scan runs.
    let Ok(bytes) = (unsafe { memmap2::Mmap::map(&file) }) else {
        // A file that cannot be mapped (empty) is opened as before, to say what it is.
        return true;
    };
    // Both spellings of the member: `debugId` (ECMA-426's proposal) and `debug_id` (`sentry-cli sourcemaps inject`),
    // in one pass over the map (two searches read a map without either twice: 2 % of a cold pipeline's run).
    memchr::memmem::find_iter(&bytes, b"\"debug").any(|at| {
        let rest = &bytes[at + 6..];
        rest.starts_with(b"Id\"") || rest.starts_with(b"_id\"")
    })
}

/// The folder of `release` under `dir` (`dir/<release>/<dist>/` when the release gives a dist and that folder
/// exists, else `dir/<release>/`), when it exists. A name that cannot be one folder's is no release's folder: Sentry
/// refuses release names holding `/` or `\\`, or that are `.` or `..` (its docs, "Releases": naming).
fn release_folder(dir: &Path, release: &Release) -> Option<PathBuf> {
    let one_folder = |name: &str| {
        !(name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\']))
    };
    if !one_folder(&release.name) {
        return None;
    }
    let folder = dir.join(&release.name);
    if !folder.is_dir() {
        return None;
    }
    let dist = release
        .dist
        .as_deref()
        .filter(|d| one_folder(d))
        .map(|d| folder.join(d))
        .filter(|d| d.is_dir());
    Some(dist.unwrap_or(folder))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only a map that holds a debug ID member, by either spelling, is opened by the scan.
    #[test]
    fn maps_that_may_hold_a_debug_id() {
        let dir = tempfile::tempdir().unwrap();
        for (text, may) in [
            (
                r#"{"version":3,"debugId":"85314830-023f-4cf1-a267-535f4e37bb17"}"#,
                true,
            ),
            (
                r#"{"version":3,"debug_id":"85314830-023f-4cf1-a267-535f4e37bb17"}"#,
                true,
            ),
            (r#"{"version":3,"names":["debug"],"debugIdx":1}"#, false),
            (
                r#"{"version":3,"sources":["debug.js"],"x":"\"debug"}"#,
                false,
            ),
            (r#"{"version":3,"names":["\"debug"],"debugId":"x"}"#, true),
        ] {
            let path = dir.path().join("a.js.map");
            std::fs::write(&path, text).unwrap();
            assert_eq!(may_have_debug_id(&path), may, "{text}");
        }
    }
}
