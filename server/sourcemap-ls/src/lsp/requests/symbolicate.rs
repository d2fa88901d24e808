//! `sourcemap/symbolicate` `{text, uri?, bundles?}` → `{text, frames:[{raw, text, generated, original, ignored,
//! location}], ambiguous}`. A source that resolved to a file in a workspace folder is shown by its path there
//! (`original.source`; the map's string is `original.mapSource`).
//!
//! A stack trace in any common format, against the workspace's maps. Each frame's bundle is found from its file:
//! by path (relative to `uri`'s folder or a workspace folder, absolute, or a `file:` URL), else by file name among
//! the bundles the server knows and the files in the workspace folders, told apart when several share the name (see
//! `FileChoice::choose_bundle`); its map is then loaded like any other. Frames without a file use the only loaded
//! map, when there is exactly one.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sourcemap_core::locate::find_files_named;
use sourcemap_core::trace::stack::{
    debug_ids_in, file_name_of, is_foreign_file, normalize_debug_id, PlainInput, StackFrame,
    StackLine,
};
use sourcemap_core::trace::symbolicate::{
    render_frame, render_text, symbolicate, FunctionNameSource, SymbolicatedLine, TextOptions,
};
use sourcemap_core::{Bias, GeneratedPosition};
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{Location, Position, Range, Url};

use super::SourceUris;
use crate::lsp::code_scopes::WorkspaceCode;
use crate::lsp::map_fit::{fit_now, withheld};
use crate::lsp::map_store::LoadedMap;
use crate::lsp::server::Backend;
use sourcemap_core::trace::document::TraceDocument;

#[derive(Debug, Deserialize)]
pub struct Params {
    pub text: String,
    /// The document the text comes from: relative bundle paths resolve against its folder.
    #[serde(default)]
    pub uri: Option<Url>,
    /// The bundle chosen for a file that names several (an earlier answer's `ambiguous`): file as the trace prints
    /// it → bundle.
    #[serde(default)]
    pub bundles: HashMap<String, Url>,
}

#[derive(Debug, Serialize)]
pub struct Answer {
    pub text: String,
    pub frames: Vec<FrameAnswer>,
    /// Files that several bundles could be, told apart neither by debug ID nor by which map contains the frames'
    /// positions: their frames stay as printed until the client chooses (`bundles`).
    pub ambiguous: Vec<Ambiguous>,
}

/// One frame of the answer. Typed, and serialized straight to bytes by the handler (`large_results`): the answer to a
/// 20,000-frame log is never a tree of `serde_json::Value`s.
#[derive(Debug, Serialize)]
pub struct FrameAnswer {
    raw: String,
    text: String,
    generated: Option<GeneratedAt>,
    original: Option<OriginalAt>,
    ignored: bool,
    unresolved: Option<String>,
    location: Option<Location>,
}

#[derive(Debug, Serialize)]
struct GeneratedAt {
    file: Option<String>,
    line: u32,
    character: u32,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct OriginalAt {
    source: Option<String>,
    line: u32,
    character: u32,
    name: Option<String>,
    function: Option<String>,
    function_source: Option<FunctionNameSource>,
    /// The map's `sources` string, where `source` shows the workspace path instead.
    map_source: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Ambiguous {
    /// The file as the trace prints it.
    pub file: String,
    pub candidates: Vec<Url>,
}

/// The map a frame uses, `Ok(None)` when it has none, or why it was not chosen.
type FrameMap = std::result::Result<Option<Arc<LoadedMap>>, String>;

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
        by_file: HashMap::new(),
        ambiguous: Vec::new(),
    };
    let mut out = Vec::with_capacity(frames.len());
    for frame in &frames {
        out.push(cx.map_for_frame(frame).await);
    }
    (out, cx.ambiguous)
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
            let loaded = b.maps.loaded();
            return Ok((loaded.len() == 1).then(|| loaded[0].clone()));
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

/// Symbolicates parsed lines against the workspace's maps. Each frame's `map` is an index into the returned maps.
pub async fn symbolicate_in_workspace(
    b: &Backend,
    lines: &[StackLine],
    uri: Option<&Url>,
    text: &str,
    chosen: &HashMap<String, Url>,
) -> (Vec<SymbolicatedLine>, Vec<Arc<LoadedMap>>, Vec<Ambiguous>) {
    let (per_frame, ambiguous) = maps_for_frames(b, lines, uri, text, chosen).await;
    let mut maps: Vec<Arc<LoadedMap>> = Vec::new();
    let ids: Vec<std::result::Result<Option<usize>, String>> = per_frame
        .iter()
        .map(|m| {
            let Some(m) = m.as_ref()? else {
                return Ok(None);
            };
            Ok(Some(match maps.iter().position(|k| Arc::ptr_eq(k, m)) {
                Some(i) => i,
                None => {
                    maps.push(m.clone());
                    maps.len() - 1
                }
            }))
        })
        .collect();
    let mut next = ids.into_iter();
    // Naming functions may read and parse bundles and sources: not on an async worker.
    let out = tokio::task::block_in_place(|| {
        symbolicate(
            lines,
            |_| {
                let id = next.next().unwrap_or(Ok(None))?;
                Ok(id.map(|i| (i, &maps[i].index)))
            },
            |_| None,
            &WorkspaceCode { b, maps: &maps },
        )
    });
    // Frames where their map does not fit its bundle are not answered: they stay as printed, with the reason.
    let mut out = out;
    tokio::task::block_in_place(|| {
        let mut fits: HashMap<usize, Option<Arc<sourcemap_core::fit::FitReport>>> = HashMap::new();
        for l in &mut out {
            let SymbolicatedLine::Frame(f) = l else {
                continue;
            };
            let (Some(i), Some(p)) = (f.map, f.frame.generated) else {
                continue;
            };
            let report = fits.entry(i).or_insert_with(|| fit_now(b, &maps[i], None));
            if let Some(why) = withheld(report.as_deref(), p) {
                f.original = None;
                f.ignored = false;
                f.unresolved = Some(why);
            }
        }
    });
    (out, maps, ambiguous)
}

/// `sourcemap/symbolicate`: the answer stashed for the output pump (a long log's answer is megabytes: written once,
/// not as a tree of values).
pub async fn stashed(
    b: &Backend,
    params: Params,
) -> Result<crate::lsp::transport::large_results::Stashed> {
    let answer = run(b, params).await?;
    tokio::task::block_in_place(|| crate::lsp::transport::large_results::stash(&answer)).map_err(
        |e| tower_lsp::jsonrpc::Error {
            code: tower_lsp::jsonrpc::ErrorCode::InternalError,
            message: format!("sourcemap/symbolicate: the answer could not be written: {e}").into(),
            data: None,
        },
    )
}

pub async fn run(b: &Backend, params: Params) -> Result<Answer> {
    // The trace as found: text with log prefixes, JSON log lines (symbolicated in place), a crash reporter's event.
    let document = TraceDocument::parse(&params.text, PlainInput::default());
    let lines = document.lines.clone();
    let (out, maps, ambiguous) = symbolicate_in_workspace(
        b,
        &lines,
        params.uri.as_ref(),
        &params.text,
        &params.bundles,
    )
    .await;
    let options = TextOptions::default();
    let mut uris = SourceUris::new(b);
    let mut out = out;
    // The map's `sources` string, by frame, where the text shows the workspace path instead.
    let mut map_sources: Vec<Option<String>> = Vec::new();
    for l in &mut out {
        let SymbolicatedLine::Frame(f) = l else {
            continue;
        };
        let shown = match (f.map.map(|i| &maps[i]), &mut f.original) {
            (Some(m), Some(o)) => uris
                .display(m, o.source_id)
                .and_then(|d| o.source.replace(d)),
            _ => None,
        };
        map_sources.push(shown);
    }
    let text = if document.is_plain_text() {
        render_text(&out, options)
    } else {
        document.render(&out, options)
    };
    let mut map_sources = map_sources.into_iter();
    let frames = out
        .into_iter()
        .filter_map(|l| match l {
            SymbolicatedLine::Text(_) => None,
            SymbolicatedLine::Frame(f) => {
                let rendered = render_frame(&f, options);
                let map = f.map.map(|i| &maps[i]);
                let location = match (map, &f.original) {
                    (Some(m), Some(o)) => uris.get(m, o.source_id).map(|uri| {
                        let p = Position::new(o.line, o.column);
                        Location::new(uri, Range::new(p, p))
                    }),
                    _ => None,
                };
                let map_source = map_sources.next().flatten();
                let generated = f.frame.generated.map(|g| GeneratedAt {
                    file: f.frame.file.clone(),
                    line: g.line,
                    character: g.column,
                });
                Some(FrameAnswer {
                    raw: f.frame.raw,
                    text: rendered,
                    generated,
                    original: f.original.map(|o| OriginalAt {
                        map_source: map_source.or_else(|| o.source.clone()),
                        source: o.source,
                        line: o.line,
                        character: o.column,
                        name: o.name,
                        function: o.function,
                        function_source: o.function_source,
                    }),
                    ignored: f.ignored,
                    unresolved: f.unresolved,
                    location,
                })
            }
        })
        .collect();
    Ok(Answer {
        text,
        frames,
        ambiguous,
    })
}
