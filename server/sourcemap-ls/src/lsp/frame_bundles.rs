//! Which bundle, and so which map, each frame of a trace uses in the workspace: by path (relative to the trace's
//! folder or a workspace folder, absolute, or a `file:` URL), else by file name among the bundles the server knows
//! and the files in the workspace folders; same-named ones are told apart by debug ID, then by which one contains
//! the frames' positions (`FileChoice::choose_bundle`). Frames without a file use the map the caller says (`NoFileMap`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use sourcemap_core::trace::stack::{
    debug_ids_in, file_name_of, is_foreign_file, normalize_debug_id, StackFrame, StackLine,
};
use sourcemap_core::walk::find_files_named;
use sourcemap_core::{Bias, GeneratedPosition};
use tower_lsp::lsp_types::Url;

use super::backend::Backend;
use super::loaded_map::LoadedMap;

#[derive(Debug, Clone, Serialize)]
pub struct Ambiguous {
    /// The file as the trace prints it.
    pub file: String,
    pub candidates: Vec<Url>,
}

/// The map a frame uses, `Ok(None)` when it has none, or why it was not chosen.
pub type FrameMap = std::result::Result<Option<Arc<LoadedMap>>, String>;

/// How many same-named files the workspace search returns at most.
const MAX_SAME_NAMED: usize = 16;
/// A bundle read to check that it contains a frame's position is at most this big.
const MAX_BUNDLE_BYTES: u64 = 1 << 30;

/// The bundle on disk a frame's file names by its path: absolute, a `file:` URL, or relative to the trace's folder
/// or a workspace folder. `None` when only its file name can be searched for.
fn bundle_by_path(file: &str, base: Option<&Path>, folders: &[PathBuf]) -> Option<PathBuf> {
    if file.starts_with("file:") {
        return Url::parse(file)
            .ok()?
            .to_file_path()
            .ok()
            .filter(|p| p.is_file());
    }
    if file.contains("://") {
        return None;
    }
    let plain = file.split(['?', '#']).next().unwrap_or(file);
    let p = Path::new(plain);
    if p.is_absolute() {
        return p.is_file().then(|| p.to_path_buf());
    }
    base.into_iter()
        .chain(folders.iter().map(PathBuf::as_path))
        .map(|dir| dir.join(plain))
        .find(|c| c.is_file())
}

/// Whether every position is inside the bundle's text and on a line its map maps: an old build beside the new one
/// is usually shorter, or maps other lines.
fn contains_positions(bundle: &Path, map: &LoadedMap, positions: &[GeneratedPosition]) -> bool {
    let Ok(text) = sourcemap_core::files::read_regular(bundle, MAX_BUNDLE_BYTES) else {
        return false;
    };
    let mut lines: Vec<u32> = positions.iter().map(|p| p.line).collect();
    lines.sort_unstable();
    lines.dedup();
    let mut lengths = HashMap::new();
    let (mut line, mut start) = (0u32, 0usize);
    let mut wanted = lines.iter().peekable();
    for end in memchr::memchr_iter(b'\n', &text).chain([text.len()]) {
        if wanted.peek() == Some(&&line) {
            lengths.insert(line, end - start);
            wanted.next();
        }
        if wanted.peek().is_none() {
            break;
        }
        line += 1;
        start = end + 1;
    }
    positions.iter().all(|p| {
        lengths
            .get(&p.line)
            .is_some_and(|&len| p.column as usize <= len)
            && matches!(
                map.index.lookup(*p, Bias::GreatestLowerBound),
                Ok(Some(h)) if h.generated.line == p.line && h.original.is_some()
            )
    })
}

/// Chooses and loads the map of every frame, in order. Frames naming the same file share one choice.
pub async fn maps_for_frames(
    b: &Backend,
    lines: &[StackLine],
    uri: Option<&Url>,
    text: &str,
    chosen: &HashMap<String, Url>,
    no_file: &NoFileMap,
) -> (Vec<FrameMap>, Vec<Ambiguous>) {
    let base = uri
        .and_then(|u| u.to_file_path().ok())
        .and_then(|p| p.parent().map(Path::to_path_buf));
    let frames: Vec<&StackFrame> = lines
        .iter()
        .filter_map(|l| match l {
            StackLine::Frame(f) => Some(f),
            StackLine::Text(_) => None,
        })
        .collect();
    let mut cx = FileChoice {
        b,
        base,
        folders: b.folders(),
        frames: &frames,
        debug_ids: debug_ids_in(text),
        chosen,
        no_file,
        by_file: HashMap::new(),
        ambiguous: Vec::new(),
    };
    let mut out = Vec::with_capacity(frames.len());
    for frame in &frames {
        out.push(cx.map_for_frame(frame).await);
    }
    (out, cx.ambiguous)
}

/// The map of frames that name no file (React Native's `name@L:C`, Hermes bytecode addresses).
pub enum NoFileMap {
    /// The only map loaded, when there is exactly one (a trace pasted while its bundle is open).
    OnlyLoaded,
    /// The map the caller was given.
    Given(Arc<LoadedMap>),
    /// None: such frames stay unmapped (a profile of bytecode addresses must name its Hermes map: any other loaded
    /// map would answer, wrongly, and bytecode is not checked for fit).
    Nothing,
}

/// What choosing a frame's bundle needs, and the choices made so far.
struct FileChoice<'a> {
    b: &'a Backend,
    base: Option<PathBuf>,
    folders: Vec<PathBuf>,
    frames: &'a [&'a StackFrame],
    /// Debug IDs in the report (`debug_ids_in`).
    debug_ids: Vec<String>,
    chosen: &'a HashMap<String, Url>,
    no_file: &'a NoFileMap,
    by_file: HashMap<String, FrameMap>,
    ambiguous: Vec<Ambiguous>,
}

impl FileChoice<'_> {
    async fn map_for_frame(&mut self, frame: &StackFrame) -> FrameMap {
        if frame.native {
            return Ok(None);
        }
        let b = self.b;
        let Some(file) = frame.file.as_deref() else {
            return Ok(match self.no_file {
                NoFileMap::OnlyLoaded => {
                    let loaded = b.maps.loaded();
                    (loaded.len() == 1).then(|| loaded[0].clone())
                }
                NoFileMap::Given(m) => Some(m.clone()),
                NoFileMap::Nothing => None,
            });
        };
        if is_foreign_file(file) {
            return Ok(None);
        }
        if let Some(found) = self.by_file.get(file) {
            return found.clone();
        }
        let settings = b.settings();
        let found = if let Some(bundle) = self.chosen.get(file) {
            Ok(b.map_for(bundle).await.ok())
        } else if file.starts_with("http://") && settings.dev_server {
            // A loopback Metro dev server, when the `devServer` setting allows it: its map, fetched, cached briefly.
            Ok(b.dev_server_map(file, settings.max_map_bytes).await)
        } else {
            self.choose_bundle(file).await
        };
        self.by_file.insert(file.to_string(), found.clone());
        found
    }

    /// The bundle a frame's file is: by its path, else by its name among the bundles the server knows and the files
    /// in the workspace. Same-named candidates are told apart by the report's debug IDs, then by which map contains
    /// every position the trace gives in that file.
    async fn choose_bundle(&mut self, file: &str) -> FrameMap {
        let b = self.b;
        let (f, base, folders) = (file.to_string(), self.base.clone(), self.folders.clone());
        let by_path =
            tokio::task::spawn_blocking(move || bundle_by_path(&f, base.as_deref(), &folders))
                .await
                .ok()
                .flatten();
        if let Some(p) = by_path {
            return Ok(map_of_bundle(b, &p).await);
        }
        let name = file_name_of(file).to_string();
        let mut candidates: Vec<PathBuf> = b
            .maps
            .loaded()
            .iter()
            .flat_map(|m| b.bundles_of(m))
            .filter(|p| p.file_name().is_some_and(|f| f.to_string_lossy() == name))
            .collect();
        let (n, folders) = (name.clone(), self.folders.clone());
        candidates.extend(
            tokio::task::spawn_blocking(move || {
                folders
                    .iter()
                    .flat_map(|f| find_files_named(f, &n, 5, MAX_SAME_NAMED))
                    .collect::<Vec<_>>()
            })
            .await
            .unwrap_or_default(),
        );
        let mut seen = std::collections::HashSet::new();
        candidates.retain(|p| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())));
        let mut with_maps = Vec::new();
        for c in candidates {
            if let Some(m) = map_of_bundle(b, &c).await {
                with_maps.push((c, m));
            }
        }
        let one_map = |v: &[(PathBuf, Arc<LoadedMap>)]| v.iter().all(|(_, m)| m.key == v[0].1.key);
        if with_maps.is_empty() {
            return Ok(None);
        }
        if one_map(&with_maps) {
            return Ok(Some(with_maps[0].1.clone()));
        }
        let by_id: Vec<_> = with_maps
            .iter()
            .filter(|(_, m)| {
                m.index
                    .debug_id
                    .as_deref()
                    .is_some_and(|id| self.debug_ids.contains(&normalize_debug_id(id)))
            })
            .cloned()
            .collect();
        if !by_id.is_empty() {
            with_maps = by_id;
        }
        let positions: Vec<GeneratedPosition> = self
            .frames
            .iter()
            .filter(|f| f.file.as_deref() == Some(file))
            .filter_map(|f| f.generated)
            .collect();
        let candidates = with_maps.clone();
        let containing: Vec<_> = tokio::task::spawn_blocking(move || {
            candidates
                .into_iter()
                .filter(|(bundle, map)| contains_positions(bundle, map, &positions))
                .collect::<Vec<_>>()
        })
        .await
        .unwrap_or_default();
        if !containing.is_empty() {
            with_maps = containing;
        }
        if one_map(&with_maps) {
            return Ok(Some(with_maps[0].1.clone()));
        }
        let candidates: Vec<Url> = with_maps
            .iter()
            .filter_map(|(p, _)| Url::from_file_path(p).ok())
            .collect();
        let shown: Vec<String> = with_maps
            .iter()
            .map(|(p, _)| p.display().to_string())
            .collect();
        self.ambiguous.push(Ambiguous {
            file: file.to_string(),
            candidates,
        });
        Err(format!(
            "{} bundles are named {name} ({}): choose one",
            with_maps.len(),
            shown.join(", ")
        ))
    }
}

/// The map of the bundle at `path`, if it has one.
async fn map_of_bundle(b: &Backend, path: &Path) -> Option<Arc<LoadedMap>> {
    b.map_for(&Url::from_file_path(path).ok()?).await.ok()
}
