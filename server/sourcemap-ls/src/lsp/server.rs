//! `Server`: the `LanguageServer` trait — lifecycle, document sync, watched files, configuration — over the shared
//! `Backend` (`backend.rs`). Each request's logic lives in its own file under `requests/`.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::*;
use tower_lsp::{Client, LanguageServer};

use crate::lsp::protocol::guard::on_own_task;
use crate::lsp::requests::{self, diagnostics};
use crate::lsp::settings::Settings;
use crate::lsp::workspace::backend::Backend;
use crate::lsp::workspace::map_resolution::PREFETCH_MAP_AFTER_BYTES;

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
        b.set_folders(folders_of(&params));
        // Weak: the transport outlives the service, which must not be kept alive by it.
        let early = Arc::downgrade(b);
        let _ = crate::lsp::transport::large_texts::EARLY_OPEN.set(Box::new(move |uri| {
            if let (Some(b), Ok(uri)) = (early.upgrade(), Url::parse(uri)) {
                b.prefetch_map_on_disk(&uri);
            }
        }));
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
        b.maps.progress.set_client(b.client.clone(), progress);
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
            let watchers = ["**/*.map", "**/*.{js,mjs,cjs,bundle,jsbundle,css}"]
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
        /// Texts lent to the first readers of the build ([`crate::lsp::workspace::documents::OpenedText`]).
        const LEND_OPENED_TEXT_BYTES: usize = 1 << 20;
        tracing::debug!("didOpen");
        let mut d = params.text_document;
        let mut line_starts = None;
        if let Some((text, starts)) =
            crate::lsp::transport::large_texts::LARGE_TEXTS.take_with_line_starts(&d.text)
        {
            d.text = text;
            line_starts = starts;
        }
        if d.text.len() >= PREFETCH_MAP_AFTER_BYTES {
            self.0.prefetch_map(&d.uri, &d.text);
        }
        let bom_dropped = crate::lsp::workspace::documents::bom_dropped(&d.uri, &d.text);
        // A large text is lent to the requests reading the build whole until the diagnostics below are done
        // (`OpenedText`), and its rope is built then, or when first needed (`PendingRope`); a small one costs nothing
        // to copy from the rope.
        let lent = (d.text.len() >= LEND_OPENED_TEXT_BYTES && !bom_dropped)
            .then(|| std::mem::take(&mut d.text));
        let rope = lent.is_none().then(|| ropey::Rope::from_str(&d.text));
        // Its lines, found by the transport while it unescaped the text, go with it to the fit checks.
        let lines = lent.as_ref().zip(line_starts).map(|(text, starts)| {
            sourcemap_core::bundle::columns::LineIndex::from_line_starts(text.as_bytes(), starts)
        });
        self.0.docs.lock().expect("documents lock").open(
            d.uri.clone(),
            rope,
            lent,
            lines,
            d.version,
            bom_dropped,
        );
        tracing::debug!("didOpen: document stored");
        if d.text.len() >= crate::lsp::maps::heap::TRIM_AFTER_BYTES {
            drop(d.text);
            tokio::task::spawn_blocking(crate::lsp::maps::heap::release_free_memory);
        }
        let b = self.0.clone();
        tokio::spawn(async move {
            let snapshot = b.snapshot();
            diagnostics::publish(&snapshot, d.uri.clone()).await;
            // The rope, if nothing needed it yet, before the text it is built from goes.
            if let Some(doc) = snapshot.document(&d.uri).cloned() {
                let _ = tokio::task::spawn_blocking(move || doc.build_rope_now()).await;
            }
            if snapshot
                .document(&d.uri)
                .is_some_and(|doc| doc.opened_text.release())
            {
                drop(snapshot);
                tokio::task::spawn_blocking(crate::lsp::maps::heap::release_free_memory);
            }
        });
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        // Applied before any await, so edits keep their order.
        let uri = params.text_document.uri;
        let mut changes = params.content_changes;
        for c in &mut changes {
            if let Some(text) = crate::lsp::transport::large_texts::LARGE_TEXTS.take(&c.text) {
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
        tokio::spawn(async move { diagnostics::publish(&b.snapshot(), uri).await });
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        let b = self.0.clone();
        tokio::spawn(async move {
            if let Ok(path) = params.text_document.uri.to_file_path() {
                b.maps.invalidate(&path);
            }
            b.files_changed();
            diagnostics::refresh_all(&b);
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
        diagnostics::refresh_all(&self.0);
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
            diagnostics::refresh_all(&b);
        });
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let b = self.0.clone();
        released(
            on_own_task("hover", async move {
                requests::hover::hover(&b.snapshot(), params).await
            })
            .await,
        )
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        let b = self.0.clone();
        released(
            on_own_task("definition", async move {
                requests::definition::definition(&b.snapshot(), params).await
            })
            .await,
        )
    }

    async fn document_link(&self, params: DocumentLinkParams) -> Result<Option<Vec<DocumentLink>>> {
        let b = self.0.clone();
        released(
            on_own_task("documentLink", async move {
                requests::document_link::document_link(&b.snapshot(), params).await
            })
            .await,
        )
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        let b = self.0.clone();
        released(
            on_own_task("documentSymbol", async move {
                requests::document_symbol::document_symbol(&b.snapshot(), params).await
            })
            .await,
        )
    }
}

/// A request's answer; once requests pause, what they freed is given back to the system when that is much
/// (`heap::after_request`).
pub(crate) fn released<T>(answer: T) -> T {
    crate::lsp::maps::heap::after_request();
    answer
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
