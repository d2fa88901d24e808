//! `Snapshot`: what one request reads, taken once as it starts (`Backend::snapshot`) — the open documents, the
//! settings, the workspace folders — as rust-analyzer's `GlobalStateSnapshot` and ruff's `DocumentSnapshot`.
//!
//! A request reads the text, the version and the settings it started with, however many notifications come while it
//! runs; `still_at` is its last step, where an answer about a version edited meanwhile becomes `ContentModified`.
//! The stores (`MapStore`, the source caches) stay shared: what they keep is keyed by what it was made of (a map by
//! its file's stamp, a source by its map), so a snapshot reading them reads what its own inputs give.

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use ropey::Rope;
use sourcemap_core::SourceId;
use tower_lsp::lsp_types::{Position, Range, Url};

use crate::lsp::maps::discovery::{self, WorkspaceMaps};
use crate::lsp::maps::document_lines::DocumentLines;
use crate::lsp::maps::loaded_map::LoadedMap;
use crate::lsp::maps::map_key::MapKey;
use crate::lsp::settings::Settings;
use crate::lsp::workspace::backend::Backend;
use crate::lsp::workspace::documents::{Document, DocumentKey, DocumentsSnapshot, OfVersion};
use crate::lsp::workspace::kept_inputs::{KeptInputs, KEPT_FOR};

/// One request's view of the server: the documents, settings and folders as they were when it started, over the
/// shared stores (`Deref` to `Backend`).
pub struct Snapshot<'b> {
    pub(super) b: &'b Backend,
    /// What the snapshot was taken of, for answers kept across requests.
    pub(super) inputs: KeptInputs,
    pub(super) docs: DocumentsSnapshot,
    pub settings: Arc<Settings>,
    pub folders: Arc<Vec<PathBuf>>,
}

impl Backend {
    /// What a request reads, taken once as it starts (`Snapshot`): the open documents (one `Arc` clone), the
    /// settings and the workspace folders. The stores stay shared: what they keep is keyed by what it was made of.
    pub fn snapshot(&self) -> Snapshot<'_> {
        // Read before what they count, so a change while the snapshot is taken makes its kept answers stale.
        let changes = self.changes.load(Ordering::Acquire);
        let holding = self.maps.holding();
        let docs = self.docs.lock().expect("documents lock");
        Snapshot {
            b: self,
            inputs: KeptInputs {
                taken: std::time::Instant::now(),
                documents: docs.generation(),
                changes,
                holding,
                used: Vec::new(),
            },
            docs: docs.snapshot(),
            settings: self.settings.read().expect("settings lock").clone(),
            folders: self.folders.read().expect("folders lock").clone(),
        }
    }
}

impl Deref for Snapshot<'_> {
    type Target = Backend;
    fn deref(&self) -> &Backend {
        self.b
    }
}

impl Snapshot<'_> {
    /// What this snapshot was taken of, with the maps an answer made on it used: kept beside the answer.
    pub fn inputs_with(&self, used: &[Arc<LoadedMap>]) -> KeptInputs {
        KeptInputs {
            used: used.iter().map(Arc::downgrade).collect(),
            ..self.inputs.clone()
        }
    }

    /// Whether an answer made from `kept` is the answer this snapshot would make: nothing it read has changed.
    pub fn still_as(&self, kept: &KeptInputs) -> bool {
        let now = &self.inputs;
        kept.taken.elapsed() < KEPT_FOR
            && kept.documents == now.documents
            && kept.changes == now.changes
            && kept.holding == now.holding
            && kept
                .used
                .iter()
                .all(|m| m.upgrade().is_some_and(|m| self.maps.is_current(&m)))
    }

    /// The open document `uri` as this snapshot has it.
    pub fn document(&self, uri: &Url) -> Option<&Document> {
        self.docs.get(&DocumentKey::of(uri)).map(|d| &**d)
    }

    /// An open document's text and version (what a cache of its parse is keyed by).
    pub fn open_document(&self, uri: &Url) -> Option<(Rope, i32)> {
        self.document(uri).map(|d| (d.text(), d.version))
    }

    /// `Err(ContentModified)` when the document `uri` is no longer at this snapshot's version: an answer computed
    /// while an edit arrived belongs to neither text, and the client asks again. This is rust-analyzer's rule (a
    /// request runs on one snapshot; what an edit makes stale is cancelled).
    pub fn still_at(&self, uri: &Url) -> tower_lsp::jsonrpc::Result<()> {
        let asked = self.document(uri).map(|d| d.version);
        match asked == self.b.live_version(uri) {
            true => Ok(()),
            false => Err(crate::lsp::protocol::errors::content_modified(
                "the document changed while this request ran",
            )),
        }
    }

    /// An open document's text as the server reads it (`Document::text`: a byte-order mark the client dropped is
    /// put back, so positions in it are the map's; `position_in_build` and `range_to_client` cross to the client's),
    /// and what is worked out once for its version.
    pub fn text_of_version(&self, uri: &Url) -> Option<(Rope, Arc<OfVersion>)> {
        self.document(uri).map(|d| (d.text(), d.of_version.clone()))
    }

    /// An open document's text as the server reads it (see [`Snapshot::text_of_version`]).
    pub fn rope(&self, uri: &Url) -> Option<Rope> {
        self.document(uri).map(Document::text)
    }

    /// The build's text of an open document (`Document::build_text`: what it was opened with, or last replaced by
    /// as a whole, before the edits since): the text its map describes, which every answer from the map reads (fit,
    /// scopes, lines); positions cross with `position_in_build` and `range_from_build`.
    pub fn build_rope(&self, uri: &Url) -> Option<Rope> {
        self.document(uri).map(Document::build_text)
    }

    /// [`Snapshot::build_rope`] as lines, read from the text the document was opened with while its rope is not
    /// built (`PendingRope`).
    pub fn build_lines(&self, uri: &Url) -> Option<DocumentLines> {
        self.document(uri).map(Document::build_lines)
    }

    /// A position of an open document as its client counts it today, in the server's build text: carried back
    /// through the edits since (`edit_log`); `Err(why)` where an edit wrote the text (no place in the build).
    pub fn position_in_build(
        &self,
        uri: &Url,
        p: Position,
    ) -> std::result::Result<Position, String> {
        let Some(d) = self.document(uri) else {
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
        if let Some(d) = self.document(uri) {
            return Some(Range::new(
                d.position_from_build(r.start)?,
                d.position_from_build(r.end)?,
            ));
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
        let dropped = self
            .document(uri)
            .map(|d| d.bom_dropped)
            .unwrap_or_else(|| crate::lsp::workspace::documents::bom_dropped(uri, ""));
        let at = |p: Position| match (dropped, p.line) {
            (true, 0) => Position::new(0, p.character.saturating_sub(1)),
            _ => p,
        };
        Range::new(at(r.start), at(r.end))
    }

    /// Where the server may read original sources: the workspace folders and the `roots` setting; with neither, the
    /// map's own directory.
    pub fn allowed_roots(&self, map: &LoadedMap) -> Vec<PathBuf> {
        let mut roots = self.folders.to_vec();
        roots.extend(self.settings.roots.iter().map(PathBuf::from));
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
        self.folders.iter().find_map(|f| {
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
        let roots = self.allowed_roots(map);
        crate::lsp::maps::sources::resolve(
            url,
            map.key.dir(),
            &self.settings.path_overrides,
            &self.folders,
            &roots,
            |path| !map.index.source(id).has_content() || map.file_is_source(id, path),
        )
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
        let (folders, settings) = (self.folders.clone(), self.settings.clone());
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
}
