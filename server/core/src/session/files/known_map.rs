//! A map the files place knows ([`super::FilesPlace`]): opened lazily from a path (a map, or a bundle that leads to
//! one; a large index map cut down to the sections a trace needs), with where its bundle may be, the names of the
//! bundles it serves, and its fit against that bundle, checked once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::shown_path;
use crate::bundle::fit::{check_fit, check_fit_near, check_fit_near_lined};
use crate::bundle::locate::{
    bundle_leads_to_map, bundle_names_of_map, bundle_tail, find_debug_id, find_source_mapping_url,
    is_json_document, load_map, looks_like_map, LoadMapError, MapOrigin,
};
use crate::session::Fit;
use crate::source::project_file::ProjectFile;
use crate::trace::event_context::LinedText;
use crate::trace::function_name::TextIdentity;
use crate::trace::stack::file_name_of;
use crate::{GeneratedPosition, IndexOptions, MapErrors, SourceId, SourceMapIndex};

/// Why a map given by path could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenMapError {
    /// The map (or the bundle's map) could not be found or read.
    #[error(transparent)]
    Load(#[from] LoadMapError),
    /// The map was read but is not one sourcemap-ls indexes: `named` is the file its offsets are in (the map, or
    /// the bundle whose inline map it is).
    #[error("{named}: {errors}")]
    Index {
        /// The map's file, or `the inline map of BUNDLE`.
        named: String,
        /// What is wrong, where.
        errors: MapErrors,
    },
}

/// The generated file of a map, not yet read.
pub enum BundleFile {
    /// No bundle is known (a map served by a dev server).
    None,
    /// This file led to the map (its comment, its inline map).
    Known(PathBuf),
    /// A member of an archive (`app.asar`, an artifact bundle), read in place: its path through the archive and its
    /// text.
    InArchive(PathBuf, Arc<[u8]>),
    /// Candidates (the map's name without `.map`, its `file`); the first whose `sourceMappingURL` or sidecar leads to
    /// `map` is the one.
    Guess {
        /// The files that may be the bundle, in the order they are tried.
        candidates: Vec<PathBuf>,
        /// The map they must lead to.
        map: PathBuf,
    },
}

impl BundleFile {
    /// The bundle's path and text, when there is one.
    pub fn read(&self) -> Option<(PathBuf, Vec<u8>)> {
        if let BundleFile::InArchive(p, text) = self {
            return Some((p.clone(), text.to_vec()));
        }
        let read = |p: &Path| crate::fs::files::read_regular(p, MAX_GENERATED_BYTES).ok();
        self.find(read)
    }

    /// The bundle's path and its text mapped, not read (the fit check touches the lines of the sections a trace
    /// needs: reading a 42 MB bundle was a fifth of a 146-frame `symbolicate`, `sourcemap-bench --editor-only`).
    fn map(&self) -> Option<(PathBuf, BundleBytes)> {
        if let BundleFile::InArchive(p, text) = self {
            return Some((p.clone(), BundleBytes::Held(text.clone())));
        }
        self.find(|p| {
            let (file, meta) = crate::fs::files::open_regular(p).ok()?;
            if meta.len() > MAX_GENERATED_BYTES {
                return None;
            }
            // SAFETY: as in `sparse_open`: a regular file, read while this command runs; a file truncated by another
            // process meanwhile would fault, as for any tool that maps its input.
            unsafe { memmap2::Mmap::map(&file) }
                .ok()
                .map(BundleBytes::Mapped)
        })
    }

    /// `input` (the profile or trace being read) is not this map's bundle, whatever the naming says.
    pub fn exclude(&mut self, input: &Path) {
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let input = canonical(input);
        match self {
            BundleFile::Known(p) if canonical(p) == input => *self = BundleFile::None,
            BundleFile::Guess { candidates, .. } => candidates.retain(|p| canonical(p) != input),
            _ => {}
        }
    }

    /// The bundle's path without reading it whole: a candidate is taken when its tail leads to the map.
    pub fn path(&self) -> Option<PathBuf> {
        match self {
            BundleFile::None => None,
            BundleFile::Known(p) | BundleFile::InArchive(p, _) => Some(p.clone()),
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
            BundleFile::None | BundleFile::InArchive(..) => None,
            BundleFile::Known(p) => Some((p.clone(), code(p)?)),
            BundleFile::Guess { candidates, map } => candidates.iter().find_map(|p| {
                let text = code(p)?;
                bundle_leads_to_map(p, text.as_ref(), map).then(|| (p.clone(), text))
            }),
        }
    }
}

/// A bundle's text: a file mapped, or an archive's member held.
enum BundleBytes {
    Mapped(memmap2::Mmap),
    Held(Arc<[u8]>),
}

impl std::ops::Deref for BundleBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            BundleBytes::Mapped(m) => m,
            BundleBytes::Held(h) => h,
        }
    }
}

impl AsRef<[u8]> for BundleBytes {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

/// A map the place knows: given, found for a bundle, in a directory of maps, or served.
pub struct KnownMap {
    /// The map's file (an inline map's: its bundle); `None` for a map served over the network.
    pub file: Option<PathBuf>,
    /// The map, opened lazily.
    pub index: SourceMapIndex,
    /// Where the generated file the map describes may be (its function scopes name frames), read only when a frame
    /// needs it: a bundle that led to the map, or, for a map given by path, files that must lead back to it.
    pub bundle: BundleFile,
    /// File names of the bundles this map serves.
    pub names: Vec<String>,
    /// Directory its relative sources resolve against.
    pub dir: PathBuf,
    /// How the map was found (for `--explain`).
    pub found: String,
    /// The fit check against its bundle, once run: `None` when there is no bundle text to check.
    pub fit: OnceLock<Option<Fit>>,
    /// Each source's key across sessions as first asked (`FilesPlace::source_key`): a source's content is hashed
    /// once, not per event (hashing `lodash.js` per event was 15 % of a warm pipeline's time).
    pub source_keys: Mutex<HashMap<SourceId, Option<TextIdentity>>>,
    /// Each source's path as it opens from the working directory, once found (`openable_paths` in the CLI): the
    /// same for every frame of every event.
    pub openable: Mutex<HashMap<SourceId, Option<String>>>,
    /// Each source's file in the project, once found (`FilesPlace::source_file`).
    pub project_files: Mutex<HashMap<SourceId, Option<ProjectFile>>>,
    /// The guessed bundle's path once found ([`KnownMap::guessed_bundle`]): its candidates' tails are read once, not
    /// at every session that keys its fit by it.
    pub guessed_bundle: OnceLock<Option<PathBuf>>,
    /// The map's identity with its generated text among frames' kept answers (`FilesPlace::kept_frames`), once
    /// found: `None` when it cannot be named across sessions.
    pub kept_identity: OnceLock<Option<Arc<[u8]>>>,
}

impl KnownMap {
    /// The path of a bundle guessed from the map's name (`BundleFile::Guess`): the candidate that leads back to the
    /// map, found at the first call and kept.
    pub fn guessed_bundle(&self) -> Option<PathBuf> {
        match &self.bundle {
            BundleFile::Guess { .. } => self
                .guessed_bundle
                .get_or_init(|| self.bundle.path())
                .clone(),
            _ => None,
        }
    }

    /// The fit check of the map against its bundle, run once: near `frames` when there are any (`check_fit_near`:
    /// the same verdicts, without reading a large map whole), else over the whole map.
    pub fn fit_near(&self, frames: &[GeneratedPosition]) -> Option<&Fit> {
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
    pub fn fit(&self) -> Option<&Fit> {
        self.fit_near(&[])
    }

    /// The check near `frames` whatever the map's size, not kept: for the first session of a map kept across
    /// sessions (`FilesPlace::fit`), which checks the whole map once from its second session on. A crash pipeline
    /// meets most maps once (a release's first events): the 110 cold events with every source new took 1.38–1.49 s
    /// with the whole check at each map's first event, 1.30–1.35 s with this, the output the same (warm and churn
    /// unchanged). The near check's verdicts at the frames are the whole check's (`tests/mapfit.rs` holds them to it
    /// on every pair of its corpus, small maps included).
    /// `lines`: the bundle's line index when one is kept (the resolver's), read instead of finding its lines again.
    pub fn fit_near_only(
        &self,
        frames: &[GeneratedPosition],
        lines: Option<&crate::bundle::columns::LineIndex>,
    ) -> Option<Fit> {
        let (path, text) = self.bundle.map()?;
        let report =
            check_fit_near_lined(&self.index, &text, lines, find_debug_id(&text), frames, 0);
        Some(Fit {
            bundle: path,
            report: Arc::new(report.ok()?),
        })
    }
}

/// Maps at least this big are cut down to the sections a trace needs when it is given first (see [`KnownMap::open_for`]).
const SPARSE_AFTER_BYTES: usize = 4 << 20;

impl KnownMap {
    /// Opens the map at `path` (a map, or a bundle that leads to one by its comment, inline map or sidecar).
    pub fn open(path: &Path) -> Result<KnownMap, OpenMapError> {
        KnownMap::open_for(path, None)
    }

    /// Opens a map; with the trace's frames (`(file, position)`), a large index map given by path is opened as just
    /// the sections holding them (`sparse_open`), and whole whenever that is not clean.
    pub fn open_for(
        path: &Path,
        positions: Option<&[(Option<String>, GeneratedPosition)]>,
    ) -> Result<KnownMap, OpenMapError> {
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
                let index =
                    SourceMapIndex::from_bytes_with(loaded.bytes, options).map_err(|errors| {
                        OpenMapError::Index {
                            named: loaded.origin.named(),
                            errors,
                        }
                    })?;
                (loaded.origin, index)
            }
        };
        let map_dir = match &origin {
            MapOrigin::File(p) => p.parent().unwrap_or(Path::new(".")).to_path_buf(),
            MapOrigin::DataUrl { bundle } => {
                bundle.parent().unwrap_or(Path::new(".")).to_path_buf()
            }
        };
        let own = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        // `app.js.map` is app.js's; Gradle's `NAME.packager.map` and `NAME.compiler.map` are NAME's too.
        let by_name = bundle_names_of_map(&own);
        let mut names: Vec<String> = by_name.iter().map(|n| n.to_string()).collect();
        if names.is_empty() {
            names.push(own.clone());
        }
        if let Some(file) = &index.file {
            names.push(file_name_of(file).to_string());
        }
        let bundle = match &origin {
            MapOrigin::DataUrl { bundle } => BundleFile::Known(bundle.clone()),
            MapOrigin::File(map) if map != path => BundleFile::Known(path.to_path_buf()),
            MapOrigin::File(map) => BundleFile::Guess {
                candidates: by_name
                    .iter()
                    .map(|b| map_dir.join(b))
                    .chain(index.file.as_deref().map(|f| map_dir.join(f)))
                    .collect(),
                map: map.clone(),
            },
        };
        let found = match &origin {
            MapOrigin::DataUrl { bundle } => {
                format!("inline in {} (a data: URL)", shown_path(bundle))
            }
            MapOrigin::File(map) if map != path => {
                let how = std::fs::read(path)
                    .ok()
                    .and_then(|t| find_source_mapping_url(&t).map(|(u, _)| u.to_string()))
                    .map_or("its sidecar .map".to_string(), |u| {
                        format!("its sourceMappingURL={u}")
                    });
                format!("{} (from {} by {how})", shown_path(map), shown_path(path))
            }
            MapOrigin::File(map) => shown_path(map),
        };
        let file = Some(match &origin {
            MapOrigin::File(map) => map.clone(),
            MapOrigin::DataUrl { bundle } => bundle.clone(),
        });
        Ok(KnownMap {
            file,
            bundle,
            index,
            names,
            dir: map_dir,
            found,
            fit: OnceLock::new(),
            source_keys: Mutex::default(),
            openable: Mutex::default(),
            project_files: Mutex::default(),
            guessed_bundle: OnceLock::new(),
            kept_identity: OnceLock::new(),
        })
    }

    /// The map's copy of a source (`sourcesContent`) with its lines found as it is unescaped; `None` when the map
    /// carries none (its file in the project is `FilesPlace::source_file`'s, never read from here: every read of a
    /// source goes through the place's containment).
    pub fn source_copy_lined(&self, source: SourceId) -> Option<LinedText> {
        let (text, starts) = self.index.source_content_lined(source)?;
        Some(LinedText::with_starts(text, starts))
    }

    /// The folder of the bundle this map serves, when it is known and is not the map's own folder (a map kept apart
    /// from its build: its relative `sources` were written from there).
    pub fn bundle_dir(&self) -> Option<PathBuf> {
        let dir = self.bundle.path()?.parent()?.to_path_buf();
        (dir != self.dir).then_some(dir)
    }
}

/// Generated files and original sources above this size are not parsed for function names.
pub(super) const MAX_GENERATED_BYTES: u64 = 256 << 20;

/// A large index map file opened as only the sections holding `positions`: the file is mapped, not read (reading
/// 100 MB was a third of a short trace's time), skimmed (`crate::map::sparse`), and the sections kept are
/// parsed and validated in full. `None` (open it whole) for anything else: a small map, a bundle, a flat map, a map
/// the skim finds odd, or a kept section that is invalid (whose errors the whole open then reports where they are).
fn sparse_open(
    path: &Path,
    positions: &[(Option<String>, GeneratedPosition)],
    options: IndexOptions,
) -> Option<SourceMapIndex> {
    let (file, meta) = crate::fs::files::open_regular(path).ok()?;
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
    let doc = crate::map::sparse::select_sections_for(&mapped, &frames)?;
    drop(mapped);
    let index = SourceMapIndex::from_bytes_with(doc, options).ok()?;
    // Built (and kept: the frames' lookups use them) and validated, every kept section.
    index.build_all().ok()?;
    Some(index)
}

/// A file's text, when it is UTF-8 and not too large to parse.
pub(super) fn read_text(path: &Path) -> Option<String> {
    let bytes = crate::fs::files::read_regular(path, MAX_GENERATED_BYTES).ok()?;
    String::from_utf8(bytes).ok()
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

    /// The check near frames only is the near check whatever the map's size; its frames' verdicts are the whole
    /// check's.
    #[test]
    fn the_check_near_frames_only_is_near_and_agrees_with_the_whole() {
        let dist = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/demo/dist");
        let map = KnownMap::open(&dist.join("app.min.js.map")).unwrap();
        let frame = GeneratedPosition {
            line: 0,
            column: 49,
        };
        let near = map
            .fit_near_only(&[frame], None)
            .expect("the bundle is beside the map");
        assert!(matches!(
            near.report.checked,
            crate::bundle::fit::Checked::NearFrames { .. }
        ));
        let whole = map.fit().unwrap();
        assert_eq!(whole.report.checked, crate::bundle::fit::Checked::Whole);
        assert_eq!(near.report.verdict, whole.report.verdict);
        assert_eq!(near.report.withheld(frame), whole.report.withheld(frame));
    }
}
