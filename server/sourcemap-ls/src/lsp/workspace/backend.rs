//! `Backend`: the state every handler shares (documents, the `MapStore`, settings, workspace folders, which bundles
//! use which map) and the helpers requests share about where sources live. Which map a document uses is
//! `map_resolution.rs`; the `LanguageServer` trait is `server.rs`.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use ropey::Rope;
use sourcemap_core::SourceId;
use tower_lsp::lsp_types::{Position, Range, Url};
use tower_lsp::Client;

use crate::lsp::maps::discovery::{self, SourceCatalog, WorkspaceMaps};
use crate::lsp::maps::loaded_map::LoadedMap;
use crate::lsp::maps::map_key::MapKey;
use crate::lsp::maps::store::MapStore;
use crate::lsp::settings::Settings;
use crate::lsp::workspace::documents::Documents;

pub struct Backend {
    pub client: Client,
    /// The client reads hovers as plain text (its `hover.contentFormat` prefers `plaintext`).
    pub plain_text_hover: AtomicBool,
    /// The client opens `sourcemap-source:` URIs (it said so); others get `file:` copies (`source_copies`).
    pub virtual_scheme: AtomicBool,
    pub docs: Mutex<Documents>,
    pub maps: MapStore,
    pub settings: RwLock<Settings>,
    pub folders: RwLock<Vec<PathBuf>>,
    /// Map → the bundles known to use it (for reverse navigation and diagnostics).
    pub links: Mutex<HashMap<MapKey, BTreeSet<PathBuf>>>,
    /// Maps fetched from a loopback dev server, by bundle URL.
    pub dev_maps: Mutex<HashMap<String, FetchedMap>>,
    /// The workspace's maps and the bundles naming them, once a request needed them (`discovery`).
    workspace_maps: tokio::sync::Mutex<Option<(u64, Arc<WorkspaceMaps>)>>,
    /// Bumped when files or settings change: a walk from an older generation is done again.
    workspace_generation: std::sync::atomic::AtomicU64,
    /// The sources' file names of every map file read so far.
    pub catalog: SourceCatalog,
    /// Bumped by each `workspace/didChangeConfiguration`: a `workspace/configuration` answer to a request sent
    /// before it is older than what the notification brought, and is not applied. Held while settings are applied,
    /// so that the check and the change are one step.
    pub(crate) settings_epoch: Mutex<u64>,
}

/// A map's bytes and when they were fetched.
pub type FetchedMap = (std::time::Instant, Arc<Vec<u8>>);

impl Backend {
    pub fn new(client: Client) -> Self {
        Backend {
            client,
            plain_text_hover: AtomicBool::new(false),
            virtual_scheme: AtomicBool::new(false),
            docs: Mutex::new(Documents::default()),
            maps: MapStore::default(),
            settings: RwLock::new(Settings::default()),
            folders: RwLock::new(Vec::new()),
            links: Mutex::new(HashMap::new()),
            dev_maps: Mutex::new(HashMap::new()),
            workspace_maps: tokio::sync::Mutex::new(None),
            workspace_generation: std::sync::atomic::AtomicU64::new(0),
            settings_epoch: Mutex::new(0),
            catalog: SourceCatalog::default(),
        }
    }

    /// The maps in the workspace folders, walked for on first use (with progress) and remembered until files or
    /// settings change. Bundles found naming a map are linked to it, as if they had been opened.
    pub async fn workspace_maps(&self) -> Arc<WorkspaceMaps> {
        let mut state = self.workspace_maps.lock().await;
        let generation = self.workspace_generation.load(Ordering::Acquire);
        if let Some((g, found)) = &*state {
            if *g == generation {
                return found.clone();
            }
        }
        let (folders, settings) = (self.folders(), self.settings());
        let done = self
            .maps
            .progress
            .begin("Finding source maps in the workspace", String::new());
        let started = std::time::Instant::now();
        let found = tokio::task::spawn_blocking(move || discovery::walk(&folders, &settings))
            .await
            .unwrap_or_default();
        if let Some(done) = done {
            let _ = done.send(true);
        }
        tracing::info!(
            "found {} maps and {} bundles naming them in the workspace in {:?}{}",
            found.maps.len(),
            found.links.len(),
            started.elapsed(),
            if found.truncated {
                " (stopped early: too many files)"
            } else {
                ""
            }
        );
        {
            let mut links = self.links.lock().expect("links lock");
            for (bundle, map) in &found.links {
                links
                    .entry(MapKey::File(map.clone()))
                    .or_default()
                    .insert(bundle.clone());
            }
        }
        let found = Arc::new(found);
        *state = Some((generation, found.clone()));
        found
    }

    /// Walk the workspace again on the next request that needs its maps.
    pub fn forget_workspace_maps(&self) {
        self.workspace_generation.fetch_add(1, Ordering::AcqRel);
    }

    /// Where the server may read original sources: the workspace folders and the `roots` setting; with neither, the
    /// map's own directory.
    pub fn allowed_roots(&self, map: &LoadedMap) -> Vec<PathBuf> {
        let mut roots = self.folders();
        roots.extend(self.settings().roots.iter().map(PathBuf::from));
        if roots.is_empty() {
            roots.extend(map.key.dir().map(Path::to_path_buf));
        }
        roots
    }

    /// The local file of source `id` of `map`: it exists inside the allowed roots, its path matches, and, where the
    /// map carries the source's text, its content equals it (`local_sources`). Never a file that merely shares a
    /// name.
    pub fn resolve_source(&self, map: &LoadedMap, id: SourceId) -> Option<PathBuf> {
        let path = self.source_path_candidate(map, id)?;
        map.file_is_source(id, &path).then_some(path)
    }

    /// How people should see a source's name: its path in the workspace folder when it resolved to a file there
    /// (`demo/src/orders.js`, not the map's `../../demo/src/orders.js` or a build machine's path); `None` otherwise
    /// (the map's own string is then the best name).
    pub fn display_source(&self, map: &LoadedMap, id: SourceId) -> Option<String> {
        self.workspace_path(&self.resolve_source(map, id)?)
    }

    /// `path` relative to the workspace folder holding it, with `/` separators.
    pub fn workspace_path(&self, path: &Path) -> Option<String> {
        self.folders().iter().find_map(|f| {
            let rel = path.strip_prefix(f).ok()?;
            let parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            Some(parts.join("/"))
        })
    }

    /// The local file a source's path leads to, before its content is compared with the map's.
    pub fn source_path_candidate(&self, map: &LoadedMap, id: SourceId) -> Option<PathBuf> {
        let url = map.index.source(id).url.as_deref()?;
        let settings = self.settings();
        let roots = self.allowed_roots(map);
        crate::lsp::maps::sources::resolve(
            url,
            map.key.dir(),
            &settings.path_overrides,
            &self.folders(),
            &roots,
            |path| !map.index.source(id).has_content() || map.file_is_source(id, path),
        )
    }

    pub fn apply_settings(&self, settings: Settings) {
        // The `maps` setting links bundles to maps: the workspace's maps are found again.
        self.forget_workspace_maps();
        self.maps.set_max_total_bytes(settings.max_index_bytes);
        self.maps.budget.set_limit(settings.max_cache_bytes);
        *self.settings.write().expect("settings lock") = settings;
    }

    pub fn settings(&self) -> Settings {
        self.settings.read().expect("settings lock").clone()
    }

    pub fn folders(&self) -> Vec<PathBuf> {
        self.folders.read().expect("folders lock").clone()
    }

    /// An open document's text and version (what a cache of its parse is keyed by).
    pub fn open_document(&self, uri: &Url) -> Option<(Rope, i32)> {
        self.docs
            .lock()
            .expect("documents lock")
            .get(uri)
            .map(|d| (d.text(), d.version))
    }

    /// An open document's version and whether it was edited since opened: what a request's answer belongs to.
    pub fn document_version(&self, uri: &Url) -> Option<(i32, bool)> {
        self.docs
            .lock()
            .expect("documents lock")
            .get(uri)
            .map(|d| (d.version, d.edited))
    }

    /// `Err(ContentModified)` when the document `uri` is no longer at `version` (what it was when the request
    /// came): an answer computed while an edit arrived belongs to neither text, and the client asks again. This is
    /// rust-analyzer's rule (a request runs on one snapshot; what an edit makes stale is cancelled).
    pub fn still_at(
        &self,
        uri: &Url,
        version: Option<(i32, bool)>,
    ) -> tower_lsp::jsonrpc::Result<()> {
        let now = self.document_version(uri).map(|(v, _)| v);
        match version.map(|(v, _)| v) == now {
            true => Ok(()),
            false => Err(crate::lsp::protocol::errors::content_modified(
                "the document changed while this request ran",
            )),
        }
    }

    /// An open document's text as the server reads it (`Document::text`: a byte-order mark the client dropped is
    /// put back, so positions in it are the map's; `position_asked` and `range_to_client` cross to the client's).
    /// An open document's text (as [`Backend::rope`]) and what is worked out once for its version, under one lock.
    pub fn text_of_version(
        &self,
        uri: &Url,
    ) -> Option<(Rope, Arc<crate::lsp::workspace::documents::OfVersion>)> {
        self.docs
            .lock()
            .expect("documents lock")
            .get(uri)
            .map(|d| (d.text(), d.of_version.clone()))
    }

    pub fn rope(&self, uri: &Url) -> Option<Rope> {
        self.docs
            .lock()
            .expect("documents lock")
            .get(uri)
            .map(|d| d.text())
    }

    /// The build's text of an open document (`Document::build_text`: what it was opened with, or last replaced by as
    /// a whole, before the edits since) and its version: the text its map describes, which every answer from the map
    /// reads (fit, scopes, lines); positions cross with `position_in_build` and `range_from_build`.
    pub fn build_document(&self, uri: &Url) -> Option<(Rope, i32)> {
        self.docs
            .lock()
            .expect("documents lock")
            .get(uri)
            .map(|d| (d.build_text(), d.build_version))
    }

    /// [`Backend::build_document`]'s text.
    pub fn build_rope(&self, uri: &Url) -> Option<Rope> {
        self.build_document(uri).map(|(rope, _)| rope)
    }

    /// A position of an open document as its client counts it today, in the server's build text: carried back
    /// through the edits since (`edit_log`); `Err(why)` where an edit wrote the text (no place in the build).
    pub fn position_in_build(
        &self,
        uri: &Url,
        p: Position,
    ) -> std::result::Result<Position, String> {
        let docs = self.docs.lock().expect("documents lock");
        let Some(d) = docs.get(uri) else {
            return Ok(p);
        };
        d.position_in_build(p).ok_or_else(|| {
            format!(
                "line {}, column {} was written by an edit since the document was opened: the map describes the \
                 text before it, which has no place for it",
                p.line + 1,
                p.character + 1
            )
        })
    }

    /// A range of the server's build text, as the client counts it in today's text; `None` when an edit removed
    /// either end.
    pub fn range_from_build(&self, uri: &Url, r: Range) -> Option<Range> {
        {
            let docs = self.docs.lock().expect("documents lock");
            if let Some(d) = docs.get(uri) {
                return Some(Range::new(
                    d.position_from_build(r.start)?,
                    d.position_from_build(r.end)?,
                ));
            }
        }
        Some(self.range_to_client(uri, r))
    }

    /// A range of the server's text of `uri` (the file's), as its client counts it: on line 0 one column less after
    /// a byte-order mark the client dropped (`Document::bom_dropped`; the mark itself is the client's column 0). A
    /// file not open is counted as clients will once they open it: without a byte-order mark it starts with.
    pub fn range_to_client(&self, uri: &Url, r: Range) -> Range {
        if r.start.line > 0 && r.end.line > 0 {
            return r;
        }
        let dropped = {
            let docs = self.docs.lock().expect("documents lock");
            docs.get(uri).map(|d| d.bom_dropped)
        };
        let dropped =
            dropped.unwrap_or_else(|| crate::lsp::workspace::documents::bom_dropped(uri, ""));
        let at = |p: Position| match (dropped, p.line) {
            (true, 0) => Position::new(0, p.character.saturating_sub(1)),
            _ => p,
        };
        Range::new(at(r.start), at(r.end))
    }
}
