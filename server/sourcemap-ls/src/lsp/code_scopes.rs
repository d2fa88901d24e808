//! Function scopes for naming frames and hovers (`sourcemap_core::trace::function_name`): the bundle a map describes
//! (its open document, else the file on disk that leads to the map) and the map's original sources
//! (`sourcesContent`, else the resolved local file).
//!
//! Each is parsed on first use and cached in the map's entry, keyed by what it was parsed from: a document version,
//! the file's stamp (path, inode, size, modification time: a hit reads nothing), or the map's own `sourcesContent`
//! (the entry is dropped with the map when the map changes). A changed bundle or source is parsed again. Callers run
//! on the blocking pool or inside `block_in_place`: reading and parsing block.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use sourcemap_core::locate::bundle_leads_to_map;
use sourcemap_core::trace::function_name::CodeScopes;
use sourcemap_core::trace::js_scopes::{Dialect, FunctionScopes};
use sourcemap_core::SourceId;
use tower_lsp::lsp_types::Url;

use super::loaded_map::{LoadedMap, MapKey};
use crate::lsp::backend::Backend;

/// Generated files and original sources above this size are not parsed for function names.
const MAX_PARSED_BYTES: u64 = 256 << 20;

/// How many parsed files one map keeps (least recently parsed dropped first is not worth tracking: the set is
/// cleared when full).
const MAX_CACHED: usize = 32;

/// What a cached table was parsed from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CodeKey {
    Document(Url, i32),
    GeneratedFile(FileStamp),
    SourcesContent(SourceId),
    SourceFile(SourceId, FileStamp),
}

/// Parsed tables of one map, by what they were parsed from (`None`: the text did not parse).
#[derive(Debug, Default)]
pub struct CodeCache(Mutex<HashMap<CodeKey, Option<Arc<FunctionScopes>>>>);

impl CodeCache {
    fn get_or_parse(
        &self,
        key: CodeKey,
        parse: impl FnOnce() -> Option<FunctionScopes>,
    ) -> Option<Arc<FunctionScopes>> {
        if let Some(hit) = self.0.lock().expect("code cache lock").get(&key) {
            return hit.clone();
        }
        // Parsed outside the lock: a second request for another file does not wait for this one.
        let parsed = parse().map(Arc::new);
        let mut cache = self.0.lock().expect("code cache lock");
        if cache.len() >= MAX_CACHED {
            cache.clear();
        }
        cache.insert(key, parsed.clone());
        parsed
    }
}

/// A file as it is now: path, device and inode, size, modification time. Read from the open descriptor, so the
/// text read on a miss is the file the stamp describes; a file rewritten in place with the same size within one
/// timestamp tick keeps its stamp (as for make and git).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FileStamp(PathBuf, u64, u64, u64, Option<std::time::SystemTime>);

/// The open file at `path` with its stamp: a hover asks for scopes without reading the file when they are cached.
fn stamped(path: &Path) -> Option<(std::fs::File, u64, FileStamp)> {
    let (file, meta) = sourcemap_core::files::open_regular(path).ok()?;
    #[cfg(unix)]
    let (dev, ino) = {
        use std::os::unix::fs::MetadataExt;
        (meta.dev(), meta.ino())
    };
    #[cfg(not(unix))]
    let (dev, ino) = (0, 0);
    let stamp = FileStamp(
        path.to_path_buf(),
        dev,
        ino,
        meta.len(),
        meta.modified().ok(),
    );
    Some((file, meta.len(), stamp))
}

fn read(file: std::fs::File, len: u64) -> Option<String> {
    let bytes = sourcemap_core::files::read_open(file, len, MAX_PARSED_BYTES).ok()?;
    String::from_utf8(bytes).ok()
}

/// [`CodeScopes`] over the maps of one request (identifiers are positions in `maps`).
pub struct WorkspaceCode<'a> {
    pub b: &'a Backend,
    pub maps: &'a [Arc<LoadedMap>],
}

/// The bundle a map describes, found but not read: what it is keyed by (its document version or file stamp) and how
/// to read its text (`None`: it does not lead to the map after all, or it cannot be read).
pub struct BundleText {
    pub key: CodeKey,
    pub path: PathBuf,
    read: Box<dyn FnOnce() -> Option<String> + Send>,
}

impl BundleText {
    /// The text, read (or copied from the document) now.
    pub fn read(self) -> Option<String> {
        (self.read)()
    }
}

/// The bundle of `m`: `of` when given (a document the server found using this map, by its comment, sidecar or the
/// `maps` setting), else the bundles known for it; an open document first (as edited), else the file on disk. A
/// bundle seen leading to the map, or the map's inline owner, needs no second check; a guess (the map's `file`, or
/// its name without `.map`) must name the map itself.
pub fn bundle_text(b: &Backend, m: &LoadedMap, of: Option<&Path>) -> Option<BundleText> {
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
        let open = b
            .docs
            .lock()
            .expect("documents lock")
            .get(&uri)
            .map(|d| (d.rope.clone(), d.version));
        if let Some((rope, version)) = open {
            // The text is materialised only when read: a hover on a 50 MB bundle must not copy it each time.
            return Some(BundleText {
                key: CodeKey::Document(uri, version),
                path: bundle,
                read: Box::new(move || {
                    // One allocation of the final size: `Rope::to_string` grows a `String` by doubling, and the
                    // heap kept ~4 MB of the steps on a 42 MB bundle (the editor benchmark's steady memory).
                    let mut text = String::with_capacity(rope.len_bytes());
                    for chunk in rope.chunks() {
                        text.push_str(chunk);
                    }
                    leads(text.as_bytes()).then_some(text)
                }),
            });
        }
        let Some((file, len, stamp)) = stamped(&bundle) else {
            continue;
        };
        return Some(BundleText {
            key: CodeKey::GeneratedFile(stamp),
            path: bundle,
            read: Box::new(move || {
                let text = read(file, len)?;
                leads(text.as_bytes()).then_some(text)
            }),
        });
    }
    None
}

impl WorkspaceCode<'_> {
    fn generated_of(&self, m: &LoadedMap) -> Option<Arc<FunctionScopes>> {
        // Parsed only on a miss; a text that does not lead to this map is remembered as having no scopes.
        let bundle = bundle_text(self.b, m, None)?;
        let name = bundle.path.to_string_lossy().into_owned();
        m.code.get_or_parse(bundle.key.clone(), || {
            let text = bundle.read()?;
            FunctionScopes::parse(&text, &name, Dialect::Generated).ok()
        })
    }

    fn original_of(&self, m: &LoadedMap, source: SourceId) -> Option<Arc<FunctionScopes>> {
        let url = m.index.source(source).url.as_deref().unwrap_or("source.js");
        if m.index.source(source).has_content() {
            return m.code.get_or_parse(CodeKey::SourcesContent(source), || {
                let text = super::source_texts::source_text(m, source)?;
                FunctionScopes::parse(&text, url, Dialect::Original).ok()
            });
        }
        let path = self.b.resolve_source(m, source)?;
        let (file, len, stamp) = stamped(&path)?;
        m.code.get_or_parse(CodeKey::SourceFile(source, stamp), || {
            let text = read(file, len)?;
            FunctionScopes::parse(&text, &path_name(&path), Dialect::Original).ok()
        })
    }
}

fn path_name(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

impl CodeScopes for WorkspaceCode<'_> {
    fn generated(&self, map: usize) -> Option<Arc<FunctionScopes>> {
        self.generated_of(self.maps.get(map)?)
    }

    fn original(&self, map: usize, source: SourceId) -> Option<Arc<FunctionScopes>> {
        self.original_of(self.maps.get(map)?, source)
    }
}
