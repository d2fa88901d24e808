//! Which bundle, and so which map, each frame of a trace uses in the workspace: the core's one resolver
//! (`sourcemap_core::bundle::resolve`, the policy the CLI follows too) over the workspace (`Workspace`: the trace's
//! folder and the workspace folders as roots, open documents before the disk, maps from the `MapStore`). Frames
//! without a file use the map the caller says (`NoFileMap`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::lsp::protocol::guard::cancelled;
use serde::Serialize;
use sourcemap_core::bundle::resolve::{
    Asked, BundleText, GivenMap, Hint, Place, Refusal, Served, MAX_SAME_NAMED, SEARCH_DEPTH,
};
use sourcemap_core::internal::fs::walk::find_files_named;
use sourcemap_core::session::{symbolicate_lines_until, Code, Fit, SessionOptions, SessionPlace};
use sourcemap_core::trace::document::ReportedFile;
use sourcemap_core::trace::stack::{debug_ids_in, file_name_of, StackLine};
use sourcemap_core::trace::symbolicate::SymbolicatedLine;
use sourcemap_core::GeneratedPosition;
use sourcemap_core::SourceMapIndex;
use tower_lsp::lsp_types::Url;

use crate::lsp::maps::loaded_map::LoadedMap;
use crate::lsp::workspace::archived_maps::{archive_map, ArchivesFor, OpenedArchives};
use crate::lsp::workspace::code_scopes::WorkspaceCode;
use crate::lsp::workspace::map_fit::fit_for_frames;
use crate::lsp::workspace::snapshot::Snapshot;

#[derive(Debug, Clone, Serialize)]
pub struct Ambiguous {
    /// The file as the trace prints it.
    pub file: String,
    pub candidates: Vec<Url>,
}

/// A bundle read to judge whether it holds a frame's positions is at most this big.
const MAX_BUNDLE_BYTES: u64 = 1 << 30;

/// What a trace says beside its frames: the debug IDs printed in its text, and what an event says of the files its
/// frames name (`TraceDocument::reported_files`: their debug IDs, its copies of their lines), which a bundle chosen
/// for a file must agree with, as in the CLI.
pub struct TraceEvidence {
    pub debug_ids: Vec<String>,
    pub reported: HashMap<String, ReportedFile>,
}

impl TraceEvidence {
    /// A text that is no event (a log, a profile's places): its printed debug IDs only.
    pub fn of_text(text: &str) -> TraceEvidence {
        TraceEvidence::of_debug_ids(debug_ids_in(text))
    }

    /// A text's printed debug IDs, found before.
    pub fn of_debug_ids(debug_ids: Vec<String>) -> TraceEvidence {
        TraceEvidence {
            debug_ids,
            reported: HashMap::new(),
        }
    }
}

/// Symbolicates `lines` against the workspace's maps: the core's one session (`sourcemap_core::session`: resolve,
/// fit, name, withhold) over the workspace (`Workspace`). Each frame's `map` is an index into the returned maps.
/// Blocks (it reads files and loads maps): call on a worker that may block, as every request's handler here is.
/// `None` when the request was cancelled (`guard::cancelled`, asked between the session's steps): nothing to keep.
pub async fn symbolicate_in_workspace(
    b: &Snapshot<'_>,
    lines: &[StackLine],
    uri: Option<&Url>,
    evidence: &TraceEvidence,
    chosen: &HashMap<String, Url>,
    no_file: &NoFileMap,
    options: SessionOptions,
) -> Option<(Vec<SymbolicatedLine>, Vec<Arc<LoadedMap>>, Vec<Ambiguous>)> {
    let base = uri
        .and_then(|u| u.to_file_path().ok())
        .and_then(|p| p.parent().map(Path::to_path_buf));
    let chosen: HashMap<String, PathBuf> = chosen
        .iter()
        .filter_map(|(file, u)| Some((file.clone(), u.to_file_path().ok()?)))
        .collect();
    let (no_file_map, given) = match no_file {
        NoFileMap::OnlyLoaded => {
            let loaded = b.maps.loaded();
            ((loaded.len() == 1).then(|| loaded[0].clone()), Vec::new())
        }
        NoFileMap::Nothing => (None, Vec::new()),
        NoFileMap::Given(m) => (Some(m.clone()), vec![given_map(b, m)]),
    };
    let debug_ids = evidence.debug_ids.clone();
    let mut roots: Vec<PathBuf> = base.into_iter().collect();
    roots.extend(b.folders.iter().cloned());
    let mut place = Workspace {
        b,
        roots,
        handle: tokio::runtime::Handle::current(),
        archives: OpenedArchives::default(),
    };
    let asked = Asked {
        given: &given,
        chosen: &chosen,
        debug_ids: &debug_ids,
        no_file: no_file_map,
        reported: &evidence.reported,
    };
    let done = tokio::task::block_in_place(|| {
        symbolicate_lines_until(&mut place, lines.to_vec(), &asked, options, &cancelled)
    })?;
    let ambiguous = done
        .ambiguous
        .into_iter()
        .map(|a| Ambiguous {
            file: a.file,
            candidates: a
                .candidates
                .iter()
                .filter_map(|p| Url::from_file_path(p).ok())
                .collect(),
        })
        .collect();
    Some((done.lines, done.maps, ambiguous))
}

/// A map the client names (`sourcemap/profile`'s `map`), as a map given on the command line is: it serves frames
/// that name no file, frames naming its bundle, and every frame when no bundle of their name has a map.
fn given_map(b: &Snapshot<'_>, m: &Arc<LoadedMap>) -> GivenMap<Arc<LoadedMap>> {
    let mut names: Vec<String> = b
        .bundles_of(m)
        .iter()
        .filter_map(|p| Some(p.file_name()?.to_string_lossy().into_owned()))
        .collect();
    if let Some(own) = m.key.file().and_then(|p| p.file_name()) {
        let own = own.to_string_lossy();
        let by_name = sourcemap_core::bundle::locate::bundle_names_of_map(&own);
        if by_name.is_empty() {
            names.push(own.to_string());
        }
        names.extend(by_name.iter().map(|n| n.to_string()));
    }
    if let Some(file) = &m.index.file {
        names.push(file_name_of(file).to_string());
    }
    GivenMap {
        map: m.clone(),
        names,
        bundle: b.bundles_of(m).into_iter().next(),
    }
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

/// The workspace as the resolver sees it: the trace's folder and the workspace folders, open documents before the
/// disk, maps loaded through the `MapStore` (stamped, shared with every other request).
struct Workspace<'a> {
    b: &'a Snapshot<'a>,
    roots: Vec<PathBuf>,
    handle: tokio::runtime::Handle,
    archives: OpenedArchives,
}

impl Place for Workspace<'_> {
    type Map = Arc<LoadedMap>;

    fn roots(&self) -> Vec<PathBuf> {
        self.roots.clone()
    }

    /// Bundles of that name the server knows (the loaded maps' bundles), then files in the workspace folders.
    fn named(&mut self, name: &str) -> Vec<PathBuf> {
        let b = self.b;
        let mut found: Vec<PathBuf> = b
            .maps
            .loaded()
            .iter()
            .flat_map(|m| b.bundles_of(m))
            .filter(|p| p.file_name().is_some_and(|f| f.to_string_lossy() == name))
            .collect();
        for folder in b.folders.iter() {
            found.extend(find_files_named(folder, name, SEARCH_DEPTH, MAX_SAME_NAMED));
        }
        let mut seen = std::collections::HashSet::new();
        found.retain(|p| seen.insert(std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())));
        found
    }

    fn own_map(&mut self, bundle: &Path) -> Option<Arc<LoadedMap>> {
        let uri = Url::from_file_path(bundle).ok()?;
        self.handle.block_on(self.b.map_for(&uri)).ok()
    }

    fn map_file(&mut self, path: &Path) -> Option<Arc<LoadedMap>> {
        let max = self.b.settings.max_map_bytes;
        self.handle.block_on(self.b.maps.load_file(path, max)).ok()
    }

    /// The open document's text, else the file's.
    fn text(&mut self, bundle: &Path) -> Option<BundleText> {
        let uri = Url::from_file_path(bundle).ok()?;
        if let Some(rope) = self.b.rope(&uri) {
            let mut text = String::with_capacity(rope.len_bytes());
            for chunk in rope.chunks() {
                text.push_str(chunk);
            }
            return Some(Box::new(text.into_bytes()));
        }
        let bytes =
            sourcemap_core::internal::fs::files::read_regular(bundle, MAX_BUNDLE_BYTES).ok()?;
        Some(Box::new(bytes))
    }

    fn index<'m>(&'m self, map: &'m Arc<LoadedMap>) -> &'m SourceMapIndex {
        &map.index
    }

    fn same_map(&self, a: &Arc<LoadedMap>, b: &Arc<LoadedMap>) -> bool {
        Arc::ptr_eq(a, b) || a.key == b.key
    }

    /// The editor's words: its settings and its choices, never the command line's flags.
    fn hint(&self, hint: &Hint) -> String {
        match hint {
            Hint::GiveMapOrRoot => {
                "name its map in the `maps` setting, or its folder in `roots`".into()
            }
            Hint::ChooseBundle { name } => {
                format!("choose which bundle is {name} (the Symbolicate commands ask)")
            }
            Hint::ChosenBundle => "the bundle chosen in the editor".into(),
            Hint::GiveBuildFolder => "open the folder of the development build".into(),
            Hint::ChooseThisBundle { name, bundle } => {
                format!("choose {bundle} as {name} (the Symbolicate commands ask)")
            }
            Hint::NameBundle { name } => {
                format!("name the bundle of {name} in the `maps` setting")
            }
            other => other.plain(),
        }
    }

    /// What the `maps` setting names for the frame's file: an archive (`archived_maps`), a directory of maps
    /// (`DIR/FILE.map`, inside DIR only, as `symbolicate DIR`); else the `app.asar` the frame's path runs through,
    /// found in the workspace; else a loopback Metro dev server's map for a bundle URL, when `devServer` allows it.
    fn served(&mut self, file: &str) -> Served<Arc<LoadedMap>> {
        let (b, handle) = (self.b, &self.handle);
        match archive_map(b, handle, &mut self.archives, file, ArchivesFor::Named) {
            Served::NotHere => {}
            found => return found,
        }
        let settings = &self.b.settings;
        let dirs = settings.map_directories_for(file, &self.b.folders);
        if !dirs.is_empty() {
            let found = dirs
                .iter()
                .find_map(|d| sourcemap_core::bundle::locate::map_in_directory(d, file));
            return match found {
                Some(map) => match self.map_file(&map) {
                    Some(loaded) => Served::Map(
                        loaded,
                        format!("{} in the directory of maps the `maps` setting names", map.display()),
                    ),
                    None => Served::Refused(Refusal(format!(
                        "{} is not a map sourcemap-ls reads",
                        map.display()
                    ))),
                },
                None => Served::Refused(Refusal(format!(
                    "no {file}.map in the directories of maps the `maps` setting names ({}), counting only \
                     files whose real path lies inside them",
                    dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
                ))),
            };
        }
        match archive_map(b, handle, &mut self.archives, file, ArchivesFor::OnItsPath) {
            Served::NotHere => {}
            found => return found,
        }
        if !(file.starts_with("http://") && settings.dev_server) {
            return Served::NotHere;
        }
        match self
            .handle
            .block_on(self.b.dev_server_map(file, settings.max_map_bytes))
        {
            Some(map) => Served::Map(map, "fetched from the Metro dev server".into()),
            None => Served::NotHere,
        }
    }
}

/// The workspace as the session reads it: each map's fit kept in its entry (`map_fit`), function scopes in the
/// server's cache (`code_scopes`). No shift is applied in the editor, and no chain of maps followed.
impl SessionPlace for Workspace<'_> {
    fn fit(&self, map: &Arc<LoadedMap>, frames: &[GeneratedPosition]) -> Option<Fit> {
        fit_for_frames(self.b, map, None, frames)
    }

    fn code<'a>(
        &'a self,
        maps: &'a [Arc<LoadedMap>],
        _shift: Box<dyn Fn(usize) -> sourcemap_core::bundle::fit::Shift + Send + Sync + 'a>,
    ) -> Code<'a> {
        Box::new(WorkspaceCode { b: self.b, maps })
    }
}
