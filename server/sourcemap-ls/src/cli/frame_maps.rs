//! Which map each frame of a trace uses, and the frames looked up in it: the maps given (a bundle or a map each,
//! opened lazily; a large index map cut down to the sections the frames need), the bundles a frame names under
//! `--root`, debug IDs, a Metro dev server; every map checked against its bundle, and frames where it does not fit
//! withheld. `symbolicate` and `profile` both resolve their frames here.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use serde_json::{json, Value};
use sourcemap_core::bundle::fit::{check_fit, check_fit_near};
use sourcemap_core::bundle::locate::{
    bundle_leads_to_map, bundle_tail, find_debug_id, find_source_mapping_url, is_json_document,
    load_map, looks_like_map, map_in_directory, MapOrigin,
};
use sourcemap_core::bundle::resolve::{AmbiguousFile, Asked, GivenMap, Place, Text, SEARCH_DEPTH};
use sourcemap_core::fs::walk::FilesByName;
use sourcemap_core::session::{symbolicate_lines, Code, Fit, SessionOptions, SessionPlace};
use sourcemap_core::source::today::{SourceDrift, TodayPosition};
use sourcemap_core::trace::function_name::ScopeCache;
use sourcemap_core::trace::stack::{file_name_of, StackLine};
use sourcemap_core::trace::symbolicate::SymbolicatedLine;
use sourcemap_core::{GeneratedPosition, IndexOptions, SourceId, SourceMapIndex};

use super::validate::mismatch_problem;
use super::CliError;

/// The generated file of a map, not yet read.
pub(super) enum BundleFile {
    None,
    /// This file led to the map (its comment, its inline map).
    Known(PathBuf),
    /// Candidates (the map's name without `.map`, its `file`); the first whose `sourceMappingURL` or sidecar leads to
    /// `map` is the one.
    Guess {
        candidates: Vec<PathBuf>,
        map: PathBuf,
    },
}

impl BundleFile {
    /// The bundle's path and text, when there is one.
    pub(super) fn read(&self) -> Option<(PathBuf, Vec<u8>)> {
        let read = |p: &Path| sourcemap_core::fs::files::read_regular(p, MAX_GENERATED_BYTES).ok();
        self.find(read)
    }

    /// The bundle's path and its text mapped, not read (the fit check touches the lines of the sections a trace
    /// needs: reading a 42 MB bundle was a fifth of a 146-frame `symbolicate`, `sourcemap-bench --editor-only`).
    fn map(&self) -> Option<(PathBuf, memmap2::Mmap)> {
        self.find(|p| {
            let (file, meta) = sourcemap_core::fs::files::open_regular(p).ok()?;
            if meta.len() > MAX_GENERATED_BYTES {
                return None;
            }
            // SAFETY: as in `sparse_open`: a regular file, read while this command runs; a file truncated by another
            // process meanwhile would fault, as for any tool that maps its input.
            unsafe { memmap2::Mmap::map(&file) }.ok()
        })
    }

    /// `input` (the profile or trace being read) is not this map's bundle, whatever the naming says.
    pub(super) fn exclude(&mut self, input: &Path) {
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let input = canonical(input);
        match self {
            BundleFile::Known(p) if canonical(p) == input => *self = BundleFile::None,
            BundleFile::Guess { candidates, .. } => candidates.retain(|p| canonical(p) != input),
            _ => {}
        }
    }

    /// The bundle's path without reading it whole: a candidate is taken when its tail leads to the map.
    fn path(&self) -> Option<PathBuf> {
        match self {
            BundleFile::None => None,
            BundleFile::Known(p) => Some(p.clone()),
            BundleFile::Guess { candidates, map } => candidates
                .iter()
                .find(|p| bundle_tail(p).is_some_and(|tail| bundle_leads_to_map(p, &tail, map)))
                .cloned(),
        }
    }

    /// A JSON document (a profile named `rec.cpuprofile` beside `rec.cpuprofile.map`) is never the bundle's text.
    fn find<T: AsRef<[u8]>>(&self, open: impl Fn(&Path) -> Option<T>) -> Option<(PathBuf, T)> {
        let code = |p: &Path| open(p).filter(|t| !is_json_document(t.as_ref()));
        match self {
            BundleFile::None => None,
            BundleFile::Known(p) => Some((p.clone(), code(p)?)),
            BundleFile::Guess { candidates, map } => candidates.iter().find_map(|p| {
                let text = code(p)?;
                bundle_leads_to_map(p, text.as_ref(), map).then(|| (p.clone(), text))
            }),
        }
    }
}

pub(super) struct KnownMap {
    pub(super) index: SourceMapIndex,
    /// Where the generated file the map describes may be (its function scopes name frames), read only when a frame
    /// needs it: a bundle that led to the map, or, for a map given by path, files that must lead back to it.
    pub(super) bundle: BundleFile,
    /// File names of the bundles this map serves.
    pub(super) names: Vec<String>,
    /// Directory its relative sources resolve against.
    pub(super) dir: PathBuf,
    /// How the map was found (for `--explain`).
    pub(super) found: String,
    /// The fit check against its bundle, once run: `None` when there is no bundle text to check.
    pub(super) fit: OnceLock<Option<Fit>>,
}

impl KnownMap {
    /// The fit check of the map against its bundle, run once: near `frames` when there are any (`check_fit_near`:
    /// the same verdicts, without reading a large map whole), else over the whole map.
    pub(super) fn fit_near(&self, frames: &[GeneratedPosition]) -> Option<&Fit> {
        self.fit
            .get_or_init(|| {
                let (path, text) = self.bundle.map()?;
                let id = find_debug_id(&text);
                let report = if frames.is_empty() {
                    check_fit(&self.index, &text, id)
                } else {
                    check_fit_near(&self.index, &text, id, frames)
                };
                Some(Fit {
                    bundle: path,
                    report: Arc::new(report.ok()?),
                })
            })
            .as_ref()
    }

    /// The fit check as run for the frames (`fit_near`), or over the whole map when it was not.
    pub(super) fn fit(&self) -> Option<&Fit> {
        self.fit_near(&[])
    }
}

/// Maps at least this big are cut down to the sections a trace needs when it is given first (see `load`).
const SPARSE_AFTER_BYTES: usize = 4 << 20;

pub(super) fn load(path: &Path) -> Result<KnownMap, CliError> {
    load_for(path, None)
}

/// Loads a map; with the trace's frames (`(file, position)`), a large index map given by path is opened as just the
/// sections holding them (`sparse_open`), and whole whenever that is not clean.
pub(super) fn load_for(
    path: &Path,
    positions: Option<&[(Option<String>, GeneratedPosition)]>,
) -> Result<KnownMap, CliError> {
    let options = IndexOptions {
        lazy: true,
        lazy_names: true,
    };
    let (origin, index) = match positions.and_then(|p| sparse_open(path, p, options)) {
        Some(index) => (MapOrigin::File(path.to_path_buf()), index),
        None => {
            let loaded = load_map(path)?;
            // Lazy: a trace touches a few sections of a map that may have thousands; a section that turns out
            // invalid makes its frames unresolved with the reason, while the JSON and every field are checked here.
            // The error names the file its offsets are in: the map, or the bundle whose inline map it is.
            let named = super::map_named(&loaded.origin);
            let index = SourceMapIndex::from_bytes_with(loaded.bytes, options)
                .map_err(|e| CliError::Map(format!("{named}: {e}")))?;
            (loaded.origin, index)
        }
    };
    let map_dir = match &origin {
        MapOrigin::File(p) => p.parent().unwrap_or(Path::new(".")).to_path_buf(),
        MapOrigin::DataUrl { bundle } => bundle.parent().unwrap_or(Path::new(".")).to_path_buf(),
    };
    let mut names = Vec::new();
    let own = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    match own.strip_suffix(".map") {
        Some(bundle) => names.push(bundle.to_string()),
        None => names.push(own.clone()),
    }
    if let Some(file) = &index.file {
        names.push(file_name_of(file).to_string());
    }
    let bundle = match &origin {
        MapOrigin::DataUrl { bundle } => BundleFile::Known(bundle.clone()),
        MapOrigin::File(map) if map != path => BundleFile::Known(path.to_path_buf()),
        MapOrigin::File(map) => BundleFile::Guess {
            candidates: own
                .strip_suffix(".map")
                .map(|b| map_dir.join(b))
                .into_iter()
                .chain(index.file.as_deref().map(|f| map_dir.join(f)))
                .collect(),
            map: map.clone(),
        },
    };
    let found = match &origin {
        MapOrigin::DataUrl { bundle } => {
            format!("inline in {} (a data: URL)", shown(bundle))
        }
        MapOrigin::File(map) if map != path => {
            let how = std::fs::read(path)
                .ok()
                .and_then(|t| find_source_mapping_url(&t).map(|(u, _)| u.to_string()))
                .map_or("its sidecar .map".to_string(), |u| {
                    format!("its sourceMappingURL={u}")
                });
            format!("{} (from {} by {how})", shown(map), shown(path))
        }
        MapOrigin::File(map) => shown(map),
    };
    Ok(KnownMap {
        bundle,
        index,
        names,
        dir: map_dir,
        found,
        fit: OnceLock::new(),
    })
}

/// Generated files and original sources above this size are not parsed for function names.
const MAX_GENERATED_BYTES: u64 = 256 << 20;

/// A large index map file opened as only the sections holding `positions`: the file is mapped, not read (reading
/// 100 MB was a third of a short trace's time), skimmed (`sourcemap_core::map::sparse`), and the sections kept are
/// parsed and validated in full. `None` (open it whole) for anything else: a small map, a bundle, a flat map, a map
/// the skim finds odd, or a kept section that is invalid (whose errors the whole open then reports where they are).
fn sparse_open(
    path: &Path,
    positions: &[(Option<String>, GeneratedPosition)],
    options: IndexOptions,
) -> Option<SourceMapIndex> {
    let (file, meta) = sourcemap_core::fs::files::open_regular(path).ok()?;
    if meta.len() < SPARSE_AFTER_BYTES as u64 {
        return None;
    }
    // SAFETY: the mapping is read only while the skim runs and dropped before anything else happens; a file
    // truncated by another process in those milliseconds would fault, as it would for any tool that maps its input
    // (ripgrep does the same). Only regular files get here.
    let mapped = unsafe { memmap2::Mmap::map(&file) }.ok()?;
    if !looks_like_map(&mapped[..mapped.len().min(64 << 10)]) {
        return None;
    }
    let frames: Vec<(Option<&str>, GeneratedPosition)> =
        positions.iter().map(|(f, p)| (f.as_deref(), *p)).collect();
    let doc = sourcemap_core::map::sparse::select_sections_for(&mapped, &frames)?;
    drop(mapped);
    let index = SourceMapIndex::from_bytes_with(doc, options).ok()?;
    // Built (and kept: the frames' lookups use them) and validated, every kept section.
    index.build_all().ok()?;
    Some(index)
}

/// The text of an original source: `sourcesContent`, else the file the source names (relative to the map).
pub(super) fn original_text(m: &KnownMap, source: SourceId) -> Option<String> {
    if let Some(content) = m.index.source_content(source) {
        return Some(content.into_owned());
    }
    read_text(&local_source(m, source)?)
}

/// The local file a source names: its URL relative to the map's folder (a `file://` URL or an absolute path as it is).
fn local_source(m: &KnownMap, source: SourceId) -> Option<PathBuf> {
    let url = m.index.source(source).url.as_deref()?;
    Some(m.dir.join(url.strip_prefix("file://").unwrap_or(url)))
}

fn read_text(path: &Path) -> Option<String> {
    let bytes = sourcemap_core::fs::files::read_regular(path, MAX_GENERATED_BYTES).ok()?;
    String::from_utf8(bytes).ok()
}

pub(super) struct Catalog {
    /// The maps given on the command line first, then those discovered from frames.
    pub(super) maps: Vec<KnownMap>,
    pub(super) explicit: usize,
    pub(super) root: PathBuf,
    pub(super) dev_server: bool,
    /// Bundles chosen for files (`--bundle NAME=PATH`): by the file as printed, or its name.
    pub(super) chosen: HashMap<String, PathBuf>,
    /// The debug IDs the input names (`debug_ids_in`).
    pub(super) debug_ids: Vec<String>,
    /// The maps loaded for bundles found from frames, by the bundle's path.
    by_bundle: HashMap<PathBuf, Option<usize>>,
    /// The files under `root` by name, walked once when a frame first needs one; those inside dependency folders
    /// (`node_modules`) walked once when a name is not found outside them.
    files: OnceLock<FilesByName>,
    dependency_files: OnceLock<FilesByName>,
    /// Directories of maps given as MAP (their real paths): every frame is answered from `DIR/FILE.map` only.
    pub(super) map_dirs: Vec<PathBuf>,
    /// The maps read from them, by real path (`None`: not a map).
    dir_maps: HashMap<PathBuf, Option<usize>>,
    /// Why the map a bundle leads to could not be read, by the bundle's real path.
    broken: HashMap<PathBuf, String>,
    /// The real paths of the given maps' bundles, for chains of maps (`next_map`): found once per `resolve` (a
    /// path per mapped frame was 3 ms of a profile), after the session's `serves` has said them.
    chain_bundles: OnceLock<Vec<Option<PathBuf>>>,
}

impl Catalog {
    /// The maps given on the command line, and where the bundles frames name are looked for.
    pub(super) fn new(explicit: Vec<KnownMap>, root: PathBuf, dev_server: bool) -> Catalog {
        Catalog {
            explicit: explicit.len(),
            maps: explicit,
            root,
            dev_server,
            chosen: HashMap::new(),
            debug_ids: Vec::new(),
            by_bundle: HashMap::new(),
            files: OnceLock::new(),
            dependency_files: OnceLock::new(),
            map_dirs: Vec::new(),
            dir_maps: HashMap::new(),
            broken: HashMap::new(),
            chain_bundles: OnceLock::new(),
        }
    }

    /// A directory of maps' map for `file` (metro-symbolicate's directory mode: `DIR/FILE.map`, `FILE` as the frame
    /// prints it, resolved against `DIR`), never a file outside `DIR`: the map's real path, symlinks and `..`
    /// resolved, must lie under `DIR`'s. A file with no map there stays unmapped (metro-symbolicate leaves it as
    /// printed too).
    fn map_in_map_dirs(&mut self, file: &str) -> Result<(usize, String), String> {
        let rel = file.strip_prefix("file://").unwrap_or(file);
        for dir in self.map_dirs.clone() {
            let Some(real) = map_in_directory(&dir, file) else {
                continue;
            };
            let at = match self.dir_maps.get(&real) {
                Some(&known) => known,
                None => {
                    // A file that is no map is said once (as for MAP arguments) and leaves its frames unmapped.
                    let loaded = load_for(&real, None).map_err(|e| e.report()).ok();
                    let at = loaded.map(|m| {
                        self.maps.push(m);
                        self.maps.len() - 1
                    });
                    self.dir_maps.insert(real.clone(), at);
                    at
                }
            };
            return at
                .map(|i| {
                    (
                        i,
                        format!("{} in the directory of maps {}", shown(&real), shown(&dir)),
                    )
                })
                .ok_or_else(|| format!("{} is not a map sourcemap-ls reads", real.display()));
        }
        Err(format!(
            "no {rel}.map in the directory of maps ({}), counting only files whose real path lies inside it: a \
             directory of maps answers from its own files only",
            self.map_dirs.iter().map(|d| shown(d)).collect::<Vec<_>>().join(", ")
        ))
    }

    /// The maps given on the command line, as the resolver takes them.
    fn given(&self) -> Vec<GivenMap<usize>> {
        self.maps[..self.explicit]
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

/// Where bundles named by frames are looked for: `--root`, which must be a folder (a typo would silently find
/// nothing), else the current directory.
pub(super) fn root_dir(given: Option<&Path>) -> Result<PathBuf, CliError> {
    match given {
        Some(r) if r.is_dir() => Ok(r.to_path_buf()),
        Some(r) => Err(CliError::Usage(format!(
            "--root {}: {}",
            r.display(),
            if r.exists() {
                "not a folder"
            } else {
                "no such folder"
            }
        ))),
        None => std::env::current_dir().map_err(|e| CliError::Usage(e.to_string())),
    }
}

/// Says on stderr when the search by name under `root` stopped before the end of the tree, or took long: the
/// answer may lack a bundle, and `--root` narrows the search.
fn noted(root: &Path, files: FilesByName) -> FilesByName {
    if files.truncated() {
        eprintln!(
            "sourcemap-ls: note: the search for bundles by name under {} stopped after {} folders; give --root \
             to search where the bundles are",
            shown(root),
            sourcemap_core::fs::walk::MAX_FOLDERS
        );
    } else if files.took() > std::time::Duration::from_secs(1) {
        eprintln!(
            "sourcemap-ls: note: the search for bundles by name under {} took {:.1} s; --root narrows it",
            shown(root),
            files.took().as_secs_f64()
        );
    }
    files
}

/// The disk under `--root`, for the one resolver (`sourcemap_core::bundle::resolve`).
impl Place for Catalog {
    type Map = usize;

    fn roots(&self) -> Vec<PathBuf> {
        vec![self.root.clone()]
    }

    fn named(&mut self, name: &str) -> Vec<PathBuf> {
        let root = &self.root;
        let files = self.files.get_or_init(|| {
            noted(
                root,
                FilesByName::new(root, SEARCH_DEPTH, MAX_INDEXED_FILES),
            )
        });
        if !files.named(name).is_empty() {
            return files.named(name).to_vec();
        }
        self.dependency_files
            .get_or_init(|| {
                noted(
                    root,
                    FilesByName::in_dependencies(root, SEARCH_DEPTH, MAX_INDEXED_FILES),
                )
            })
            .named(name)
            .to_vec()
    }

    fn own_map(&mut self, bundle: &Path) -> Option<usize> {
        let key = std::fs::canonicalize(bundle).unwrap_or_else(|_| bundle.to_path_buf());
        if let Some(&known) = self.by_bundle.get(&key) {
            return known;
        }
        // Only a file that leads to a map by its comment or sidecar (read from its tail) is opened as a bundle.
        let leads = bundle_tail(bundle).is_some_and(|tail| {
            sourcemap_core::bundle::locate::find_bundle_map(
                bundle,
                &tail,
                crate::lsp::DEFAULT_MAX_MAP_BYTES,
            )
            .is_ok()
        });
        let loaded = match leads.then(|| load(bundle)) {
            Some(Ok(known)) => Some(known),
            Some(Err(e)) => {
                self.broken.insert(key.clone(), e.message());
                None
            }
            None => None,
        };
        let loaded = loaded.map(|mut known| {
            known.found = format!(
                "{} (the bundle {} found under --root {})",
                known.found,
                shown(bundle),
                shown(&self.root)
            );
            self.maps.push(known);
            self.maps.len() - 1
        });
        self.by_bundle.insert(key, loaded);
        loaded
    }

    fn text(&mut self, bundle: &Path) -> Option<Text> {
        let (file, meta) = sourcemap_core::fs::files::open_regular(bundle).ok()?;
        if meta.len() > MAX_GENERATED_BYTES {
            return None;
        }
        // SAFETY: as in `BundleFile::map`.
        let mapped = unsafe { memmap2::Mmap::map(&file) }.ok()?;
        Some(Box::new(mapped))
    }

    fn index<'a>(&'a self, map: &'a usize) -> &'a SourceMapIndex {
        &self.maps[*map].index
    }

    fn map_error(&self, bundle: &Path) -> Option<String> {
        let key = std::fs::canonicalize(bundle).unwrap_or_else(|_| bundle.to_path_buf());
        self.broken.get(&key).cloned()
    }

    fn same_map(&self, a: &usize, b: &usize) -> bool {
        a == b
    }

    fn shown(&self, path: &Path) -> String {
        shown(path)
    }

    fn map_file(&mut self, path: &Path) -> Option<usize> {
        let key = canonical(path);
        if let Some(&known) = self.dir_maps.get(&key) {
            return known;
        }
        let loaded = load_for(&key, None).map_err(|e| e.report()).ok();
        let at = loaded.map(|m| {
            self.maps.push(m);
            self.maps.len() - 1
        });
        self.dir_maps.insert(key, at);
        at
    }

    /// A loopback Metro dev server's map for a bundle URL, when `--dev-server` allows it and no map is given.
    fn served(&mut self, file: &str) -> Option<Result<(usize, String), String>> {
        if !self.map_dirs.is_empty() {
            return Some(self.map_in_map_dirs(file));
        }
        if !(self.dev_server && file.starts_with("http://") && self.explicit == 0) {
            return None;
        }
        let bytes = crate::devserver::fetch_map(file, crate::lsp::DEFAULT_MAX_MAP_BYTES)
            .map_err(|e| eprintln!("sourcemap-ls: {e}"))
            .ok()?;
        let index = SourceMapIndex::from_bytes_with(
            bytes,
            IndexOptions {
                lazy: true,
                lazy_names: true,
            },
        )
        .map_err(|e| eprintln!("sourcemap-ls: map of {file}: {e}"))
        .ok()?;
        self.maps.push(KnownMap {
            index,
            bundle: BundleFile::None,
            names: vec![file_name_of(file).to_string()],
            dir: self.root.clone(),
            found: format!("served by the Metro dev server for {file}"),
            fit: OnceLock::new(),
        });
        Some(Ok((
            self.maps.len() - 1,
            "fetched from the Metro dev server".into(),
        )))
    }
}

/// How many files under `--root` are indexed by name, nearest first (a root that holds more is searched in part).
const MAX_INDEXED_FILES: usize = 500_000;

/// A path with its links resolved, when it exists (paths are compared so).
fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// A path as `--explain` shows it: relative to the current directory when it is below it.
pub(super) fn shown(p: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| p.strip_prefix(cwd).ok().map(|r| r.display().to_string()))
        .map(|r| if r.is_empty() { ".".to_string() } else { r })
        .unwrap_or_else(|| p.display().to_string())
}

/// The frames of a trace, looked up.
pub(super) struct Resolution {
    /// The lines with each frame answered (or left with why not).
    pub(super) out: Vec<SymbolicatedLine>,
    /// Per frame: the map chosen (an index into `Catalog::maps`) and why.
    pub(super) chosen: Vec<(Option<usize>, String)>,
    /// Per frame: its position as printed, before any shift.
    pub(super) printed: Vec<Option<GeneratedPosition>>,
    /// Per frame: the whole-line shift applied to it (`--apply-shift`).
    pub(super) shifts: Vec<Option<i64>>,
    /// The frames (by number) withheld because the map does not fit its bundle there.
    pub(super) mismatched: Vec<usize>,
    /// One `map-mismatch` problem per misfit map used (also warned about on stderr).
    pub(super) problems: Vec<Value>,
    /// The files several bundles could be, with the candidates (also said on stderr).
    pub(super) ambiguous: Vec<AmbiguousFile>,
    /// Per frame: what was done about Jest's module wrapper on line 1 (`trace::jest`), for `--explain`.
    pub(super) jest: Vec<Option<String>>,
    /// Per frame (with `SessionOptions::today`): the local file edited since the build and where the frame is in it.
    pub(super) today: Vec<Option<(PathBuf, TodayPosition)>>,
}

/// Symbolicates the lines where the catalog says: the core's one session (`sourcemap_core::session`) does the job;
/// what is said on stderr (files several bundles could be, maps that do not fit) and the frames' maps as indexes
/// into `Catalog::maps` are the CLI's.
pub(super) fn resolve(
    catalog: &mut Catalog,
    lines: Vec<StackLine>,
    options: SessionOptions,
) -> Resolution {
    let given = catalog.given();
    let (chosen_bundles, debug_ids) = (catalog.chosen.clone(), catalog.debug_ids.clone());
    let asked = Asked {
        given: &given,
        chosen: &chosen_bundles,
        debug_ids: &debug_ids,
        // Frames that name no file (React Native's `name@L:C`, `LINE COLUMN`, Hermes crash reports): the first map
        // given (a Hermes map first, the maps after it continue the chain).
        no_file: (catalog.explicit > 0).then_some(0),
    };
    let apply_shift = options.apply_shift;
    catalog.chain_bundles = OnceLock::new();
    let done = symbolicate_lines(catalog, lines, &asked, options);
    for a in &done.ambiguous {
        let shown: Vec<String> = a.candidates.iter().map(|p| shown(p)).collect();
        eprintln!(
            "sourcemap-ls: {} bundles could be {} ({}); its frames are not mapped. Choose one with --bundle {}=PATH",
            a.candidates.len(),
            a.file,
            shown.join(", "),
            file_name_of(&a.file)
        );
    }
    // The session's maps are catalog indexes: frames point into the catalog again.
    let mut out = done.lines;
    for f in out.iter_mut().filter_map(SymbolicatedLine::frame_mut) {
        f.map = f.map.map(|i| done.maps[i]);
    }
    let mut fits: Vec<(usize, &Fit)> = done
        .fits
        .iter()
        .map(|(i, fit)| (done.maps[*i], fit))
        .collect();
    fits.sort_by_key(|(i, _)| *i);
    let problems = fit_problems(&catalog.maps, &fits, apply_shift);
    let chosen = done
        .choices
        .iter()
        .map(|c| (c.map().copied(), c.why().to_string()))
        .collect();
    Resolution {
        out,
        chosen,
        printed: done.printed,
        shifts: done.shifts,
        mismatched: done.withheld,
        problems,
        ambiguous: done.ambiguous,
        jest: done.jest,
        today: done.today,
    }
}

/// The disk under `--root`, as the session reads it: bundles' and sources' texts, each map's fit (kept in its
/// `KnownMap`), chains into the maps given on the command line.
impl SessionPlace for Catalog {
    fn fit(&self, map: &usize, frames: &[GeneratedPosition]) -> Option<Fit> {
        self.maps[*map].fit_near(frames).cloned()
    }

    fn code<'a>(
        &'a self,
        maps: &'a [usize],
        shift: Box<dyn Fn(usize) -> i64 + Send + Sync + 'a>,
    ) -> Code<'a> {
        let known = &self.maps;
        Box::new(
            ScopeCache::new(
                move |i| {
                    let (path, bytes) = known[maps[i]].bundle.read()?;
                    Some((path.display().to_string(), String::from_utf8(bytes).ok()?))
                },
                move |i, source| {
                    let m = &known[maps[i]];
                    let name = m.index.source(source).url.as_deref()?.to_string();
                    Some((name, original_text(m, source)?))
                },
            )
            // A shifted frame's function is found in the bundle's text as shifted as its position.
            .with_generated_shift(shift),
        )
    }

    /// A chain of maps (a Hermes map's source `app.js`, whose own map was given too) is followed into maps given on
    /// the command line only, never into one found for another frame's bundle: into the map that names the source's
    /// file and, when its bundle is known, whose bundle is the file the source resolves to.
    fn next_map(&self, &from: &usize, source: &str) -> Option<usize> {
        let maps = &self.maps;
        let name = file_name_of(source);
        let mut named = (0..self.explicit)
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
            maps[..self.explicit]
                .iter()
                .map(|m| m.bundle.path().map(|p| canonical(&p)))
                .collect()
        });
        named.find(|&i| bundles[i].as_ref().is_none_or(|b| *b == resolved))
    }

    /// A map given without its bundle serves the bundle it was chosen for: that text is the one checked for fit.
    fn serves(&mut self, &map: &usize, bundle: &Path) {
        let m = &mut self.maps[map];
        if m.bundle.path().is_none() {
            m.bundle = BundleFile::Known(bundle.to_path_buf());
        }
    }

    /// The source's file under the map's folder, diffed with the map's copy.
    fn todays_source(&self, &map: &usize, source: SourceId) -> Option<(PathBuf, Arc<SourceDrift>)> {
        let m = &self.maps[map];
        let build = m.index.source_content(source)?;
        let path = local_source(m, source)?;
        let today = read_text(&path)?;
        let drift = SourceDrift::between(&build, &today);
        (!drift.is_unchanged() && drift.is_edit_of_build()).then(|| (path, Arc::new(drift)))
    }
}

/// One `map-mismatch` problem per map used that does not fit its bundle, each also warned about on stderr.
fn fit_problems(maps: &[KnownMap], fits: &[(usize, &Fit)], apply_shift: bool) -> Vec<Value> {
    let mut problems = Vec::new();
    for &(i, fit) in fits {
        let (bundle, report) = (&fit.bundle, &fit.report);
        if let Some(mut problem) = mismatch_problem(report) {
            let applied = match report.shift_lines {
                Some(n) if apply_shift => {
                    format!(" (--apply-shift: frames looked up {n} lines up)")
                }
                _ => String::new(),
            };
            eprintln!(
                "sourcemap-ls: warning: {}: map-mismatch: {}{applied}",
                bundle.display(),
                report.message()
            );
            problem["bundle"] = json!(bundle.display().to_string());
            problem["map"] = json!(maps[i].found);
            problems.push(problem);
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A map's guessed bundle is one that leads to the map (its comment names it, or it has none and the map is its
    /// sidecar); a JSON document never is; the input being read never is.
    #[test]
    fn a_guessed_bundle_is_one_that_leads_to_the_map() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let file = |name: &str, text: &str| {
            std::fs::write(d.join(name), text).unwrap();
            d.join(name)
        };
        let map = file("app.js.map", "{}");
        // (the candidate's name, its text, whether it is the bundle)
        let cases = [
            ("app.js", "f();\n//# sourceMappingURL=app.js.map\n", true),
            ("app.js", "f();\n", true),
            ("app.js", "f();\n//# sourceMappingURL=other.js.map\n", false),
            ("app.js", "{\"nodes\":[],\"samples\":[]}", false),
        ];
        for (name, text, is_bundle) in cases {
            let candidate = file(name, text);
            let guess = BundleFile::Guess {
                candidates: vec![candidate.clone()],
                map: map.clone(),
            };
            let read = guess.read().map(|(p, _)| p);
            assert_eq!(read.is_some(), is_bundle, "{text:?}");
            if is_bundle {
                assert_eq!(read, Some(candidate.clone()));
            }
        }
        let mut known = BundleFile::Known(d.join("app.js"));
        known.exclude(&d.join("./app.js"));
        assert!(
            known.path().is_none(),
            "the input is never its map's bundle"
        );
    }
}
