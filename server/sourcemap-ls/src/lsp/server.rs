//! The `Backend`: state shared by all handlers, the `LanguageServer` trait, and the helpers requests share.
//! Each request's logic lives in its own file under `requests/`.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use ropey::Rope;
use sourcemap_core::SourceId;
use tower_lsp::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp::lsp_types::*;
use tower_lsp::{Client, LanguageServer};

use super::bundles::{find_map, BundleMap, NoMap};
use super::discovery::{self, SourceCatalog, WorkspaceMaps};
use super::documents::Documents;
use super::guard::guarded;
use super::map_store::{LoadError, LoadedMap, MapKey, MapStore};
use super::settings::Settings;
use super::{diagnostics, requests};

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
    settings_epoch: Mutex<u64>,
}

/// A map's bytes and when they were fetched.
pub type FetchedMap = (std::time::Instant, Arc<Vec<u8>>);

/// Documents at least this large start loading their map before their rope is built (see `prefetch_map`).
const PREFETCH_MAP_AFTER_BYTES: usize = 8 << 20;

/// How long a map fetched from a dev server is reused before it is fetched again (the bundle changes on edit).
const DEV_MAP_TTL: std::time::Duration = std::time::Duration::from_secs(30);

/// Why a document has no usable map.
#[derive(Debug)]
pub enum MapProblem {
    NotAFile,
    NotABundle,
    NoMap(NoMap),
    Load {
        span: Option<super::bundles::UrlSpan>,
        key: MapKey,
        error: Arc<LoadError>,
    },
}

impl std::fmt::Display for MapProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MapProblem::NotAFile => f.write_str("not a file: URI"),
            MapProblem::NotABundle => f.write_str("this document is a source map, not a bundle"),
            MapProblem::NoMap(n) => f.write_str(&n.message),
            MapProblem::Load { error, .. } => write!(f, "{error}"),
        }
    }
}

pub fn internal(message: impl Into<String>) -> Error {
    Error {
        code: ErrorCode::InternalError,
        message: message.into().into(),
        data: None,
    }
}

/// LSP's `RequestFailed` (-32803): the request was valid but its answer would be wrong (a map that does not fit).
pub fn request_failed(message: impl Into<String>) -> Error {
    Error {
        code: ErrorCode::ServerError(-32803),
        message: message.into().into(),
        data: None,
    }
}

pub fn invalid_params(message: impl Into<String>) -> Error {
    Error {
        code: ErrorCode::InvalidParams,
        message: message.into().into(),
        data: None,
    }
}

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
            .progress("Finding source maps in the workspace", String::new());
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
        super::local_sources::file_is_source(map, id, &path).then_some(path)
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
        super::sources::resolve(
            url,
            map.key.dir(),
            &settings.path_overrides,
            &self.folders(),
            &roots,
        )
    }

    /// The map a loopback Metro dev server serves for a bundle URL (the caller checked the `devServer` setting).
    pub async fn dev_server_map(&self, bundle_url: &str, max_bytes: u64) -> Option<Arc<LoadedMap>> {
        let bytes = self
            .dev_server_bytes(bundle_url, max_bytes, crate::devserver::fetch_map)
            .await
            .map_err(|e| tracing::warn!("dev server: {e}"))
            .ok()?;
        let key = MapKey::inline(Path::new(bundle_url), &bytes);
        self.maps.load_inline(key, bytes).await.ok()
    }

    /// The map a loopback URL leads to (`fetch`: from a bundle URL, or a map URL), fetched again after
    /// [`DEV_MAP_TTL`].
    async fn dev_server_bytes(
        &self,
        url: &str,
        max_bytes: u64,
        fetch: fn(&str, u64) -> std::result::Result<Vec<u8>, String>,
    ) -> std::result::Result<Arc<Vec<u8>>, String> {
        let cached = self
            .dev_maps
            .lock()
            .expect("dev maps lock")
            .get(url)
            .filter(|(at, _)| at.elapsed() < DEV_MAP_TTL)
            .map(|(_, bytes)| bytes.clone());
        if let Some(bytes) = cached {
            return Ok(bytes);
        }
        let u = url.to_string();
        let fetched = tokio::task::spawn_blocking(move || fetch(&u, max_bytes))
            .await
            .map_err(|e| e.to_string())?;
        let bytes = Arc::new(fetched?);
        self.dev_maps
            .lock()
            .expect("dev maps lock")
            .insert(url.to_string(), (std::time::Instant::now(), bytes.clone()));
        Ok(bytes)
    }

    pub fn apply_settings(&self, settings: Settings) {
        // The `maps` setting links bundles to maps: the workspace's maps are found again.
        self.forget_workspace_maps();
        self.maps.set_max_total_bytes(settings.max_index_bytes);
        *self.settings.write().expect("settings lock") = settings;
    }

    pub fn settings(&self) -> Settings {
        self.settings.read().expect("settings lock").clone()
    }

    pub fn folders(&self) -> Vec<PathBuf> {
        self.folders.read().expect("folders lock").clone()
    }

    pub fn rope(&self, uri: &Url) -> Option<Rope> {
        self.docs
            .lock()
            .expect("documents lock")
            .get(uri)
            .map(|d| d.rope.clone())
    }

    /// Finds which map a document uses (no index built yet).
    pub async fn bundle_map(
        &self,
        uri: &Url,
    ) -> std::result::Result<(PathBuf, BundleMap), MapProblem> {
        let path = uri.to_file_path().map_err(|_| MapProblem::NotAFile)?;
        let rope = self.rope(uri);
        let settings = self.settings();
        let folders = self.folders();
        let p = path.clone();
        let found =
            tokio::task::spawn_blocking(move || find_map(&p, rope.as_ref(), &settings, &folders))
                .await
                .map_err(|e| {
                    MapProblem::NoMap(NoMap {
                        message: format!("finding the map failed: {e}"),
                        span: None,
                        settings_url: None,
                        not_found: false,
                        attached: false,
                        tried: Vec::new(),
                    })
                })?;
        match found {
            Ok(found) => Ok((path, found)),
            Err(NoMap {
                settings_url: Some(url),
                span,
                ..
            }) => {
                let settings = self.settings();
                let no_map = |message: String| {
                    MapProblem::NoMap(NoMap {
                        message,
                        span,
                        settings_url: None,
                        not_found: false,
                        attached: true,
                        tried: Vec::new(),
                    })
                };
                if !settings.dev_server {
                    return Err(no_map(format!(
                        "the sourcemap.maps setting names {url} for this bundle: fetching it needs sourcemap.devServer on"
                    )));
                }
                let bytes = self
                    .dev_server_bytes(
                        &url,
                        settings.max_map_bytes,
                        crate::devserver::fetch_map_url,
                    )
                    .await
                    .map_err(|e| no_map(format!("{url} (from the sourcemap.maps setting): {e}")))?;
                let found = BundleMap {
                    key: MapKey::inline(&path, &bytes),
                    inline: Some(bytes),
                    span: None,
                    found_by: "maps setting (URL)",
                };
                Ok((path, found))
            }
            Err(no_map) => Err(MapProblem::NoMap(no_map)),
        }
    }

    /// Starts loading the map of a large bundle being opened, found from the text's last lines, so that reading the
    /// map overlaps building the document's rope (for a 50 MB bundle: ~60 ms, its 100 MB map ~400 ms; two cores).
    /// Only a head start: requests still find the map from the stored document, and share this load.
    pub fn prefetch_map(self: &Arc<Self>, uri: &Url, text: &str) {
        let Ok(path) = uri.to_file_path() else {
            return;
        };
        // From the first line start in the last 64 KiB: the comment is on the last lines.
        let mut from = text.len().saturating_sub(64 << 10);
        while !text.is_char_boundary(from) {
            from += 1;
        }
        let from = text[from..].find('\n').map_or(from, |i| from + i + 1);
        let tail = Rope::from_str(&text[from..]);
        let b = self.clone();
        tokio::spawn(async move {
            let settings = b.settings();
            let folders = b.folders();
            let found = tokio::task::spawn_blocking(move || {
                find_map(&path, Some(&tail), &settings, &folders)
            })
            .await;
            if let Ok(Ok(found)) = found {
                if matches!(found.key, MapKey::File(_)) {
                    let _ = b.load(&found).await;
                }
            }
        });
    }

    /// The map of a bundle, for requests about positions in the bundle: a `.map` document itself has none (its
    /// positions are JSON text, not generated code).
    pub async fn map_of_bundle(
        &self,
        uri: &Url,
    ) -> std::result::Result<Arc<LoadedMap>, MapProblem> {
        let map = self.map_for(uri).await?;
        let own = uri.to_file_path().ok();
        if own.is_some() && map.key.file() == own.as_deref() {
            return Err(MapProblem::NotABundle);
        }
        Ok(map)
    }

    /// The current index of the document's map (built or rebuilt as needed); for a `.map` document, itself.
    pub async fn map_for(&self, uri: &Url) -> std::result::Result<Arc<LoadedMap>, MapProblem> {
        let (path, found) = self.bundle_map(uri).await?;
        if found.key.file() != Some(path.as_path()) {
            self.links
                .lock()
                .expect("links lock")
                .entry(found.key.clone())
                .or_default()
                .insert(path);
        }
        self.load(&found).await
    }

    pub async fn load(&self, found: &BundleMap) -> std::result::Result<Arc<LoadedMap>, MapProblem> {
        let result = match (&found.key, &found.inline) {
            (key @ MapKey::Inline { .. }, Some(bytes)) => {
                self.maps.load_inline(key.clone(), bytes.clone()).await
            }
            (MapKey::File(p), _) => self.maps.load_file(p, self.settings().max_map_bytes).await,
            (MapKey::Inline { .. }, None) => Err(Arc::new(LoadError::Unreadable(
                "inline map without bytes".into(),
            ))),
        };
        result.map_err(|error| MapProblem::Load {
            span: found.span,
            key: found.key.clone(),
            error,
        })
    }

    /// The index behind a map key from a virtual URI: a file is (re)loaded; an inline map must be loaded already.
    pub async fn map_by_key(&self, key: &MapKey) -> Result<Arc<LoadedMap>> {
        match key {
            MapKey::File(p) => self
                .maps
                .load_file(p, self.settings().max_map_bytes)
                .await
                .map_err(|e| internal(format!("{}: {e}", p.display()))),
            MapKey::Inline { .. } => self
                .maps
                .loaded()
                .into_iter()
                .find(|m| &m.key == key)
                .ok_or_else(|| {
                    internal("that inline map is no longer loaded; open its bundle again")
                }),
        }
    }

    /// Whether the server has seen bundles leading to `map` (then [`Self::bundles_of`] lists only those).
    pub fn linked_bundles(&self, map: &LoadedMap) -> bool {
        self.links
            .lock()
            .expect("links lock")
            .get(&map.key)
            .is_some_and(|set| !set.is_empty())
    }

    /// The bundles that use a map: those seen leading to it, else its `file` field, else the map path without
    /// `.map`.
    pub fn bundles_of(&self, map: &LoadedMap) -> Vec<PathBuf> {
        if let Some(set) = self.links.lock().expect("links lock").get(&map.key) {
            if !set.is_empty() {
                return set.iter().cloned().collect();
            }
        }
        if let MapKey::Inline { bundle, .. } = &map.key {
            return vec![bundle.clone()];
        }
        let Some(path) = map.key.file() else {
            return Vec::new();
        };
        let dir = path.parent().unwrap_or(Path::new("/"));
        if let Some(file) = &map.index.file {
            let p = dir.join(file);
            if p.is_file() {
                return vec![p];
            }
        }
        let s = path.to_string_lossy();
        s.strip_suffix(".map")
            .map(|b| vec![PathBuf::from(b)])
            .unwrap_or_default()
    }

    /// Recomputes diagnostics of every open document (after a map changed or settings changed).
    pub fn refresh_all_diagnostics(self: &Arc<Self>) {
        let uris: Vec<Url> = self
            .docs
            .lock()
            .expect("documents lock")
            .uris()
            .cloned()
            .collect();
        for uri in uris {
            let me = self.clone();
            tokio::spawn(async move { diagnostics::publish(&me, uri).await });
        }
    }
}

/// The `LanguageServer` implementation holds an `Arc<Backend>` so handlers can spawn work that outlives them.
pub struct Server(pub Arc<Backend>);

impl Server {
    pub fn new(client: Client) -> Self {
        Server(Arc::new(Backend::new(client)))
    }
}

fn folders_of(params: &InitializeParams) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = params
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(|f| f.uri.to_file_path().ok())
        .collect();
    // `rootUri`, else the older `rootPath` (still the only root some clients send).
    #[allow(deprecated)]
    if out.is_empty() {
        let root = params
            .root_uri
            .as_ref()
            .and_then(|u| u.to_file_path().ok())
            .or_else(|| params.root_path.as_deref().map(PathBuf::from))
            .filter(|p| p.is_absolute());
        out.extend(root);
    }
    out
}

/// Whether the client said it opens `sourcemap-source:` URIs: `sourcemapSourceScheme: true` in its
/// `initializationOptions` or its `capabilities.experimental`.
fn opens_virtual_documents(params: &InitializeParams) -> bool {
    let said = |v: Option<&serde_json::Value>| {
        v.and_then(|v| v.get("sourcemapSourceScheme"))
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false)
    };
    said(params.initialization_options.as_ref()) || said(params.capabilities.experimental.as_ref())
}

/// Whether the client wants hover text as plain text: it lists `plaintext` and not `markdown` first, or lists
/// formats without `markdown` at all.
fn hover_wants_plain_text(params: &InitializeParams) -> bool {
    let formats = params
        .capabilities
        .text_document
        .as_ref()
        .and_then(|t| t.hover.as_ref())
        .and_then(|h| h.content_format.as_ref());
    match formats {
        Some(formats) => formats.first() == Some(&MarkupKind::PlainText),
        None => false,
    }
}

#[tower_lsp::async_trait]
impl LanguageServer for Server {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let b = &self.0;
        *b.folders.write().expect("folders lock") = folders_of(&params);
        b.plain_text_hover
            .store(hover_wants_plain_text(&params), Ordering::Relaxed);
        b.virtual_scheme
            .store(opens_virtual_documents(&params), Ordering::Relaxed);
        if let Some(options) = &params.initialization_options {
            b.apply_settings(Settings::from_json(options));
        }
        let progress = params
            .capabilities
            .window
            .as_ref()
            .and_then(|w| w.work_done_progress)
            .unwrap_or(false);
        b.maps.set_client(b.client.clone(), progress);
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                // Source-map columns are UTF-16 code units: the one encoding every client supports.
                position_encoding: Some(PositionEncodingKind::UTF16),
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::INCREMENTAL),
                        save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                        ..Default::default()
                    },
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                definition_provider: Some(OneOf::Left(true)),
                document_symbol_provider: Some(OneOf::Left(true)),
                document_link_provider: Some(DocumentLinkOptions {
                    resolve_provider: Some(false),
                    work_done_progress_options: Default::default(),
                }),
                ..Default::default()
            },
            server_info: Some(ServerInfo {
                name: "sourcemap-ls".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        let b = self.0.clone();
        // Client requests are awaited in spawned tasks: awaiting them in a handler can deadlock.
        tokio::spawn(async move {
            let watchers = ["**/*.map", "**/*.{js,mjs,cjs,bundle,jsbundle}"]
                .into_iter()
                .map(|g| FileSystemWatcher {
                    glob_pattern: GlobPattern::String(g.into()),
                    kind: None,
                })
                .collect();
            let registration = Registration {
                id: "sourcemap-ls/watch".into(),
                method: "workspace/didChangeWatchedFiles".into(),
                register_options: serde_json::to_value(DidChangeWatchedFilesRegistrationOptions {
                    watchers,
                })
                .ok(),
            };
            if let Err(e) = b.client.register_capability(vec![registration]).await {
                tracing::info!("client did not accept file watching: {e}");
            }
            pull_configuration(&b).await;
        });
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        tracing::debug!("didOpen");
        let mut d = params.text_document;
        if let Some(text) = super::transport::large_texts::LARGE_TEXTS.take(&d.text) {
            d.text = text;
        }
        if d.text.len() >= PREFETCH_MAP_AFTER_BYTES {
            self.0.prefetch_map(&d.uri, &d.text);
        }
        self.0
            .docs
            .lock()
            .expect("documents lock")
            .open(d.uri.clone(), &d.text, d.version);
        tracing::debug!("didOpen: document stored");
        if d.text.len() >= super::heap::TRIM_AFTER_BYTES {
            drop(d.text);
            tokio::task::spawn_blocking(super::heap::release_free_memory);
        }
        let b = self.0.clone();
        tokio::spawn(async move { diagnostics::publish(&b, d.uri).await });
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        // Applied before any await, so edits keep their order.
        let uri = params.text_document.uri;
        let mut changes = params.content_changes;
        for c in &mut changes {
            if let Some(text) = super::transport::large_texts::LARGE_TEXTS.take(&c.text) {
                c.text = text;
            }
        }
        self.0.docs.lock().expect("documents lock").change(
            &uri,
            params.text_document.version,
            changes,
        );
        // An edit may change the `sourceMappingURL`: diagnostics follow the text.
        let b = self.0.clone();
        tokio::spawn(async move { diagnostics::publish(&b, uri).await });
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        let b = self.0.clone();
        tokio::spawn(async move {
            if let Ok(path) = params.text_document.uri.to_file_path() {
                b.maps.invalidate(&path);
            }
            b.refresh_all_diagnostics();
        });
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        self.0.docs.lock().expect("documents lock").close(&uri);
        let b = self.0.clone();
        tokio::spawn(async move { b.client.publish_diagnostics(uri, Vec::new(), None).await });
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        self.0.forget_workspace_maps();
        for change in &params.changes {
            if let Ok(path) = change.uri.to_file_path() {
                self.0.maps.invalidate(&path);
            }
        }
        self.0.refresh_all_diagnostics();
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        {
            let mut epoch = self.0.settings_epoch.lock().expect("settings epoch lock");
            *epoch += 1;
            if params.settings.get("sourcemap").is_some() {
                self.0.apply_settings(Settings::from_json(&params.settings));
            }
        }
        let b = self.0.clone();
        tokio::spawn(async move {
            pull_configuration(&b).await;
            b.refresh_all_diagnostics();
        });
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        guarded("hover", requests::hover::hover(&self.0, params)).await
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        guarded(
            "definition",
            requests::definition::definition(&self.0, params),
        )
        .await
    }

    async fn document_link(&self, params: DocumentLinkParams) -> Result<Option<Vec<DocumentLink>>> {
        guarded(
            "documentLink",
            requests::document_link::document_link(&self.0, params),
        )
        .await
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        guarded(
            "documentSymbol",
            requests::document_symbol::document_symbol(&self.0, params),
        )
        .await
    }
}

/// Pulls the `sourcemap` section with `workspace/configuration` (when the client supports it).
///
/// An answer is applied only if no `didChangeConfiguration` came while it was awaited: under load the task could
/// otherwise apply an answer given before the change after the change itself (seen in CI: a dropped path override
/// came back).
async fn pull_configuration(b: &Backend) {
    let items = vec![ConfigurationItem {
        scope_uri: None,
        section: Some("sourcemap".into()),
    }];
    let asked_at = *b.settings_epoch.lock().expect("settings epoch lock");
    match b.client.configuration(items).await {
        Ok(values) => {
            let epoch = b.settings_epoch.lock().expect("settings epoch lock");
            if let Some(v) = values
                .first()
                .filter(|v| *epoch == asked_at && !v.is_null())
            {
                b.apply_settings(Settings::from_json(v));
            }
        }
        Err(e) => tracing::debug!("workspace/configuration: {e}"),
    }
}
