//! Which map a document uses and its current index: `bundle_map` (the `maps` setting, the bundle's comment, a
//! sidecar, a dev server for a URL in the setting), `load`, and the links between maps and the bundles seen using
//! them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ropey::Rope;
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::Url;

use crate::lsp::maps::bundles::{find_map, find_map_of_lines, BundleMap, NoMap};
use crate::lsp::maps::load_error::LoadError;
use crate::lsp::maps::loaded_map::LoadedMap;
use crate::lsp::maps::map_key::MapKey;
use crate::lsp::protocol::errors::internal;
use crate::lsp::workspace::backend::Backend;
use crate::lsp::workspace::documents::Document;
use crate::lsp::workspace::snapshot::Snapshot;

/// Documents at least this large start loading their map before their rope is built (see `prefetch_map`).
pub(crate) const PREFETCH_MAP_AFTER_BYTES: usize = 8 << 20;

/// How long a map fetched from a dev server is reused before it is fetched again (the bundle changes on edit).
const DEV_MAP_TTL: std::time::Duration = std::time::Duration::from_secs(30);

/// Why a document has no usable map.
#[derive(Debug)]
pub enum MapProblem {
    NotAFile,
    NotABundle,
    NoMap(NoMap),
    Load {
        span: Option<crate::lsp::maps::bundles::UrlSpan>,
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

impl Backend {
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
        self.prefetch_map_of(path, Some(Rope::from_str(&text[from..])));
    }

    /// [`Backend::prefetch_map`] from the bundle's file on disk, as soon as the transport has read the head of a large
    /// `didOpen` (`large_texts::EARLY_OPEN`): the map then loads while the rest of the message comes and its text
    /// is unescaped. A bundle edited since it was saved may name another map: then this one only loaded for nothing.
    pub fn prefetch_map_on_disk(self: &Arc<Self>, uri: &Url) {
        if let Ok(path) = uri.to_file_path() {
            self.prefetch_map_of(path, None);
        }
    }

    /// Loads the map `find_map` finds for the bundle at `path` (its last lines `tail`, else the file's).
    fn prefetch_map_of(self: &Arc<Self>, path: PathBuf, tail: Option<Rope>) {
        let b = self.clone();
        tokio::spawn(async move {
            // Not a snapshot: the bundle is not stored yet, and only the settings and folders are read.
            let (settings, folders) = b.configuration();
            let max_bytes = settings.max_map_bytes;
            let found = tokio::task::spawn_blocking(move || {
                find_map(&path, tail.as_ref(), &settings, &folders)
            })
            .await;
            if let Ok(Ok(found)) = found {
                if let MapKey::File(p) = &found.key {
                    // The large sections' checkpoints (read back from the index cache on a reload) and Metro's
                    // function maps too, while the document's text is still coming and being stored: the first
                    // hover otherwise builds them after (on the real Metro build, ~80 ms of a reload's first hover).
                    if let Ok(map) = b.maps.load_file(p, max_bytes).await {
                        let _ =
                            tokio::task::spawn_blocking(move || map.index.prepare_large_sections())
                                .await;
                    }
                }
            }
        });
    }
}

impl Snapshot<'_> {
    /// Finds which map a document uses (no index built yet).
    pub async fn bundle_map(
        &self,
        uri: &Url,
    ) -> std::result::Result<(PathBuf, BundleMap), MapProblem> {
        let path = uri.to_file_path().map_err(|_| MapProblem::NotAFile)?;
        // Its lines, without building a large document's rope on the way to its first hover (read off the async
        // threads: the first look at a large text's lines scans it once).
        let document = self.document(uri).cloned();
        let settings = self.settings.clone();
        let folders = self.folders.clone();
        let p = path.clone();
        let found = tokio::task::spawn_blocking(move || {
            let lines = document.as_ref().map(Document::text_lines);
            find_map_of_lines(&p, lines.as_ref(), &settings, &folders)
        })
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
                let settings = &self.settings;
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
            (MapKey::File(p), _) => self.maps.load_file(p, self.settings.max_map_bytes).await,
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
                .load_file(p, self.settings.max_map_bytes)
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
}

impl Backend {
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
}
