//! Function scopes for naming frames and hovers (`sourcemap_core::trace::function_name`): the bundle a map describes
//! (its open document, else the file on disk that leads to the map) and the map's original sources
//! (`sourcesContent`, else the resolved local file).
//!
//! Each is parsed on first use and cached in the map's entry, keyed by what it was parsed from: a document version,
//! the file's stamp (path, inode, size, modification time: a hit reads nothing), or the map's own `sourcesContent`
//! (the entry is dropped with the map when the map changes). A changed bundle or source is parsed again. Callers run
//! on the blocking pool or inside `block_in_place`: reading and parsing block.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use sourcemap_core::bundle::columns::LineIndex;
use sourcemap_core::bundle::locate::bundle_leads_to_map;
use sourcemap_core::trace::function_name::CodeScopes;
use sourcemap_core::trace::js_scopes::{Dialect, FunctionScopes, TextPosition};
use sourcemap_core::trace::text_scopes::TextScopes;
use sourcemap_core::SourceId;
use tower_lsp::lsp_types::Url;

use crate::lsp::maps::loaded_map::LoadedMap;
use crate::lsp::maps::map_key::MapKey;
use crate::lsp::maps::memo::{FileStamp, MemoKey};
use crate::lsp::workspace::archived_maps::member_text;
use crate::lsp::workspace::snapshot::Snapshot;

/// Generated files and original sources above this size are not parsed for function names.
const MAX_PARSED_BYTES: u64 = 256 << 20;

fn read(file: std::fs::File, len: u64) -> Option<String> {
    let bytes = sourcemap_core::internal::fs::files::read_open(file, len, MAX_PARSED_BYTES).ok()?;
    String::from_utf8(bytes).ok()
}

/// [`CodeScopes`] over the maps of one request (identifiers are positions in `maps`).
pub struct WorkspaceCode<'a> {
    pub b: &'a Snapshot<'a>,
    pub maps: &'a [Arc<LoadedMap>],
}

/// The bundle a map describes, found but not read: what it is keyed by (its document version or file stamp) and how
/// to read its text (`None`: it does not lead to the map after all, or it cannot be read).
pub struct BundleText {
    pub key: MemoKey,
    pub path: PathBuf,
    read: Box<dyn FnOnce() -> Option<Arc<String>> + Send>,
    /// The text's lines, when the document's text is lent with them (`OpenedText`).
    lines: Option<Arc<LineIndex>>,
}

impl BundleText {
    /// The text, read (or copied from the document, or the text it was opened with while that is lent) now.
    pub fn read(self) -> Option<Arc<String>> {
        (self.read)()
    }

    /// [`BundleText::read`], with the text's lines when they are known already (the fit checks use them, and find
    /// them otherwise).
    pub fn read_lined(self) -> Option<(Arc<String>, Option<Arc<LineIndex>>)> {
        let lines = self.lines;
        let text = (self.read)()?;
        Some((text, lines))
    }
}

/// The bundle of `m`: `of` when given (a document the server found using this map, by its comment, sidecar or the
/// `maps` setting), else the bundles known for it; an open document first (as edited), else the file on disk. A
/// bundle seen leading to the map, or the map's inline owner, needs no second check; a guess (the map's `file`, or
/// its name without `.map`) must name the map itself.
pub fn bundle_text(b: &Snapshot<'_>, m: &LoadedMap, of: Option<&Path>) -> Option<BundleText> {
    let linked_only = b.linked_bundles(m);
    let trusted = of.is_some() || linked_only || matches!(m.key, MapKey::Inline { .. });
    let bundles = match of {
        Some(p) => vec![p.to_path_buf()],
        None => b.bundles_of(m),
    };
    for bundle in bundles {
        let Ok(uri) = Url::from_file_path(&bundle) else {
            continue;
        };
        let map = m.key.file().map(Path::to_path_buf);
        let leads = {
            let bundle = bundle.clone();
            move |text: &[u8]| {
                trusted
                    || map
                        .as_deref()
                        .is_some_and(|map| bundle_leads_to_map(&bundle, text, map))
            }
        };
        // An edited document is read as its build's text: the map describes that one (`edit_log`).
        if let Some(doc) = b.document(&uri).cloned() {
            // The text it was opened with, while lent (`OpenedText`): the build's text, as `change` ends the
            // lending when the build is replaced.
            let (lent, lines) = doc
                .opened_text
                .get_lined()
                .map_or((None, None), |(text, lines)| (Some(text), lines));
            // The text is materialised only when read: a hover on a 50 MB bundle must not copy it each time (nor
            // build its rope, while the lent text answers: `PendingRope`).
            return Some(BundleText {
                key: MemoKey::Document(uri, doc.build_version),
                path: bundle,
                lines,
                read: Box::new(move || {
                    debug_assert!(lent.as_ref().is_none_or(|t| doc.build_text() == t.as_str()));
                    let text = lent.unwrap_or_else(|| {
                        let rope = doc.build_text();
                        // One allocation of the final size: `Rope::to_string` grows a `String` by doubling, and
                        // the heap kept ~4 MB of the steps on a 42 MB bundle (the editor benchmark's steady memory).
                        let mut text = String::with_capacity(rope.len_bytes());
                        for chunk in rope.chunks() {
                            text.push_str(chunk);
                        }
                        Arc::new(text)
                    });
                    leads(text.as_bytes()).then_some(text)
                }),
            });
        }
        let Some((file, len, stamp)) = FileStamp::open(&bundle) else {
            // A bundle inside an archive (`app.asar`): the member's text.
            if let Some((stamp, read)) = member_text(&bundle) {
                return Some(BundleText {
                    key: MemoKey::GeneratedFile(stamp),
                    path: bundle,
                    lines: None,
                    read: Box::new(move || {
                        read().filter(|text| leads(text.as_bytes())).map(Arc::new)
                    }),
                });
            }
            continue;
        };
        return Some(BundleText {
            key: MemoKey::GeneratedFile(stamp),
            path: bundle,
            lines: None,
            read: Box::new(move || {
                let text = read(file, len)?;
                leads(text.as_bytes()).then(|| Arc::new(text))
            }),
        });
    }
    None
}

impl WorkspaceCode<'_> {
    /// The table answering `at` in the text `key` of `m`: known from what hovers and frames asked before (a part
    /// already read, or the whole text), else the text is read now (`read`) and parsed as far as `at` needs
    /// (`TextScopes`: a text of 1 MiB or more in parts, so that no hover builds a whole bundle's syntax tree and the
    /// budget can hold what is kept). A text that does not lead to this map reads as `None`: no scopes.
    fn scopes_at(
        &self,
        m: &LoadedMap,
        key: MemoKey,
        name: &str,
        dialect: Dialect,
        at: TextPosition,
        read: impl FnOnce() -> Option<Arc<String>>,
    ) -> Option<Arc<FunctionScopes>> {
        let entry = m
            .code
            .get_or_compute(key.clone(), || Some(Mutex::new(TextScopes::new())))?;
        let table = {
            let mut scopes = entry.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(known) = scopes.known(at) {
                return known;
            }
            let text = read();
            scopes.answer(text.as_deref().map(String::as_str), name, dialect, &[at]);
            scopes.table(at)
        };
        // Grown: counted again, at its size now.
        m.code.resize(key, &entry);
        table
    }

    fn generated_of(&self, m: &LoadedMap, at: TextPosition) -> Option<Arc<FunctionScopes>> {
        let bundle = bundle_text(self.b, m, None)?;
        let name = bundle.path.to_string_lossy().into_owned();
        let key = bundle.key.clone();
        self.scopes_at(m, key, &name, Dialect::Generated, at, || bundle.read())
    }

    fn original_of(
        &self,
        m: &LoadedMap,
        source: SourceId,
        at: TextPosition,
    ) -> Option<Arc<FunctionScopes>> {
        let url = m.index.source(source).url.as_deref().unwrap_or("source.js");
        if m.index.source(source).has_content() {
            let key = MemoKey::SourcesContent(source);
            return self.scopes_at(m, key, url, Dialect::Original, at, || {
                m.source_text(source).map(|t| Arc::new(t.to_string()))
            });
        }
        let path = self.b.resolve_source(m, source)?;
        let (file, len, stamp) = FileStamp::open(&path)?;
        let key = MemoKey::SourceFile(source, stamp);
        self.scopes_at(m, key, &path_name(&path), Dialect::Original, at, || {
            read(file, len).map(Arc::new)
        })
    }
}

fn path_name(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

impl CodeScopes for WorkspaceCode<'_> {
    fn generated(&self, map: usize, at: TextPosition) -> Option<Arc<FunctionScopes>> {
        self.generated_of(self.maps.get(map)?, at)
    }

    fn original(
        &self,
        map: usize,
        source: SourceId,
        at: TextPosition,
    ) -> Option<Arc<FunctionScopes>> {
        self.original_of(self.maps.get(map)?, source, at)
    }
}
