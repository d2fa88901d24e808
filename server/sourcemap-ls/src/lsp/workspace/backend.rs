//! `Backend`: the state every handler shares (documents, the `MapStore`, settings, workspace folders, which bundles
//! use which map) and the helpers requests share about where sources live. Which map a document uses is
//! `map_resolution.rs`; the `LanguageServer` trait is `server.rs`.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use tower_lsp::lsp_types::Url;
use tower_lsp::Client;

use crate::lsp::maps::discovery::{SourceCatalog, WorkspaceMaps};
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
    /// Read by requests through their snapshot (`Backend::snapshot`), never piece by piece.
    pub(super) settings: RwLock<Arc<Settings>>,
    pub(super) folders: RwLock<Arc<Vec<PathBuf>>>,
    /// Map → the bundles known to use it (for reverse navigation and diagnostics).
    pub links: Mutex<HashMap<MapKey, BTreeSet<PathBuf>>>,
    /// Maps fetched from a loopback dev server, by bundle URL.
    pub dev_maps: Mutex<HashMap<String, FetchedMap>>,
    /// The workspace's maps and the bundles naming them, once a request needed them (`discovery`).
    pub(super) workspace_maps: tokio::sync::Mutex<Option<(u64, Arc<WorkspaceMaps>)>>,
    /// Bumped when files or settings change: a walk from an older generation is done again.
    pub(super) workspace_generation: std::sync::atomic::AtomicU64,
    /// Bumped when settings, folders or files change: what an answer kept across requests read besides documents
    /// and maps (`kept_inputs::KeptInputs`).
    pub(super) changes: std::sync::atomic::AtomicU64,
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
            settings: RwLock::new(Arc::default()),
            folders: RwLock::new(Arc::default()),
            links: Mutex::new(HashMap::new()),
            dev_maps: Mutex::new(HashMap::new()),
            workspace_maps: tokio::sync::Mutex::new(None),
            workspace_generation: std::sync::atomic::AtomicU64::new(0),
            changes: std::sync::atomic::AtomicU64::new(0),
            settings_epoch: Mutex::new(0),
            catalog: SourceCatalog::default(),
        }
    }

    /// Walk the workspace again on the next request that needs its maps.
    pub fn forget_workspace_maps(&self) {
        self.workspace_generation.fetch_add(1, Ordering::AcqRel);
        self.changes.fetch_add(1, Ordering::AcqRel);
    }

    pub fn apply_settings(&self, settings: Settings) {
        // The `maps` setting links bundles to maps: the workspace's maps are found again.
        self.forget_workspace_maps();
        self.maps.set_max_total_bytes(settings.max_index_bytes);
        self.maps.budget.set_limit(settings.max_cache_bytes);
        *self.settings.write().expect("settings lock") = Arc::new(settings);
        self.changes.fetch_add(1, Ordering::AcqRel);
    }

    /// A file was saved or changed on disk: answers kept across requests are made again.
    pub fn files_changed(&self) {
        self.changes.fetch_add(1, Ordering::AcqRel);
    }

    /// The settings and folders now, for work that is no request's (a map's prefetch while its bundle is opened).
    pub fn configuration(&self) -> (Arc<Settings>, Arc<Vec<PathBuf>>) {
        (
            self.settings.read().expect("settings lock").clone(),
            self.folders.read().expect("folders lock").clone(),
        )
    }

    /// The workspace folders the client gave at `initialize`.
    pub fn set_folders(&self, folders: Vec<PathBuf>) {
        *self.folders.write().expect("folders lock") = Arc::new(folders);
        self.changes.fetch_add(1, Ordering::AcqRel);
    }

    /// The version of the open document `uri` now (not a snapshot's): what `Snapshot::still_at` compares with.
    pub(super) fn live_version(&self, uri: &Url) -> Option<i32> {
        self.docs
            .lock()
            .expect("documents lock")
            .get(uri)
            .map(|d| d.version)
    }
}
