//! One file per request.

pub mod composition;
pub mod definition;
pub mod diagnostics;
pub mod document_link;
pub mod document_place;
pub mod document_symbol;
pub mod eval_module_hover;
pub mod generated_positions;
pub mod hover;
pub mod map_info;
pub mod original_position;
pub mod profile;
pub mod source_content;
pub mod symbolicate;

use std::collections::HashMap;
use std::sync::Arc;

use sourcemap_core::source::today::TodayPosition;
use sourcemap_core::{OriginalPosition, SourceId};
use tower_lsp::lsp_types::{Location, Position, Range, Url};

use serde::Deserialize;
use tower_lsp::lsp_types::TextDocumentIdentifier;

use crate::answers::OpenAt;
use crate::lsp::maps::loaded_map::LoadedMap;
use crate::lsp::maps::{source_copies, sources};
use crate::lsp::workspace::snapshot::Snapshot;
use crate::lsp::workspace::todays_file::{local_source, LocalSource};
use std::sync::atomic::Ordering;

/// The parameters of a custom request about a whole document: `{textDocument: {uri}}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentParams {
    pub text_document: TextDocumentIdentifier,
}

/// Where an original position is for the editor (see [`SourceUris::place`]).
pub fn original_location(
    b: &Snapshot<'_>,
    map: &LoadedMap,
    o: &OriginalPosition<'_>,
) -> Option<Location> {
    SourceUris::new(b)
        .place(map, o.source, o.line, o.column)
        .location
        .map(to_location)
}

/// Where an answer opens, as an LSP location (an empty range at its position).
pub fn to_location(at: OpenAt) -> Location {
    let p = Position::new(at.line, at.column);
    Location::new(at.uri, Range::new(p, p))
}

/// The source's local file when it resolves to one (its text the build's copy), else its copy.
pub fn source_uri(b: &Snapshot<'_>, map: &LoadedMap, id: SourceId) -> Option<Url> {
    if let Some(path) = b.resolve_source(map, id) {
        return Url::from_file_path(path).ok();
    }
    copy_uri(b, map, id)
}

/// The map's own copy of a source (`sourcesContent`): a `sourcemap-source:` virtual document for a client that opens
/// them, else a read-only file copy.
fn copy_uri(b: &Snapshot<'_>, map: &LoadedMap, id: SourceId) -> Option<Url> {
    let url = map.index.source(id).url.as_deref();
    if !map.index.source(id).has_content() {
        return None;
    }
    if b.virtual_scheme.load(Ordering::Relaxed) {
        return Some(sources::virtual_uri(&map.key.to_uri_string(), id.0, url));
    }
    // A client that opens only `file:` locations: a read-only copy of the map's text.
    let copy = tokio::task::block_in_place(|| {
        let text = map.source_text(id)?;
        source_copies::materialize(
            &source_copies::cache_dir(),
            &map.key.to_uri_string(),
            &sources::display_path(url, id.0),
            &text,
        )
    })?;
    Url::from_file_path(copy).ok()
}

/// A position of the build placed for the editor.
pub struct Placed {
    pub location: Option<OpenAt>,
    /// Where the position is in today's file, when the file differs from the build's copy.
    pub today: Option<TodayPosition>,
}

/// [`source_uri`] remembered per (map, source) for one request: a long log names the same sources thousands of
/// times, and each answer may stat candidates, hash a local file or write a copy.
pub struct SourceUris<'b> {
    b: &'b Snapshot<'b>,
    memo: HashMap<(*const LoadedMap, SourceId), Option<Url>>,
    names: HashMap<(*const LoadedMap, SourceId), Option<String>>,
    locals: HashMap<(*const LoadedMap, SourceId), Option<LocalSource>>,
    copies: HashMap<(*const LoadedMap, SourceId), Option<Url>>,
}

impl<'b> SourceUris<'b> {
    pub fn new(b: &'b Snapshot<'b>) -> Self {
        SourceUris {
            b,
            memo: HashMap::new(),
            names: HashMap::new(),
            locals: HashMap::new(),
            copies: HashMap::new(),
        }
    }

    pub fn get(&mut self, map: &LoadedMap, id: SourceId) -> Option<Url> {
        let b = self.b;
        self.memo
            .entry((map as *const LoadedMap, id))
            .or_insert_with(|| source_uri(b, map, id))
            .clone()
    }

    /// Where `line`:`column` of source `id` (the build's position) opens: the local file when it is the build's copy;
    /// when it has changed since (on disk, or as an open document), that file at the line's place today if the line
    /// is unchanged there, else the build's copy at the build's position: never a line of today's file that holds
    /// other code. Without a local file, the build's copy.
    pub fn place(&mut self, map: &LoadedMap, id: SourceId, line: u32, column: u32) -> Placed {
        let b = self.b;
        let key = (map as *const LoadedMap, id);
        let local = self
            .locals
            .entry(key)
            .or_insert_with(|| tokio::task::block_in_place(|| local_source(b, map, id)))
            .clone();
        let at = |uri: Url, line: u32, column: u32| OpenAt { uri, line, column };
        let (today, now) = match local {
            Some(LocalSource::Build(path)) => {
                return Placed {
                    location: Url::from_file_path(path).ok().map(|u| at(u, line, column)),
                    today: None,
                }
            }
            Some(LocalSource::Edited(_, today)) => {
                let now = today.drift.position(line, column);
                (Some(today), now)
            }
            Some(LocalSource::Other(_)) | None => (None, None),
        };
        match (today, now) {
            (Some(today), Some(p)) if p.status.is_same_code() => Placed {
                location: Some(at(today.uri, p.line, p.column)),
                today: now,
            },
            _ => Placed {
                location: self
                    .copies
                    .entry(key)
                    .or_insert_with(|| copy_uri(b, map, id))
                    .clone()
                    .map(|u| at(u, line, column)),
                today: now,
            },
        }
    }

    /// [`Snapshot::display_source`], remembered the same way.
    pub fn display(&mut self, map: &LoadedMap, id: SourceId) -> Option<String> {
        let b = self.b;
        self.names
            .entry((map as *const LoadedMap, id))
            .or_insert_with(|| tokio::task::block_in_place(|| b.display_source(map, id)))
            .clone()
    }
}

/// The biggest original source file read from disk for a code frame.
const MAX_SOURCE_FILE_BYTES: u64 = 16 << 20;

/// The code frame around 0-based `line` and UTF-16 `column` of source `id`: from the map's content when it has it
/// (only the lines shown read: `LoadedMap::source_lines`), else from the source's file.
pub async fn code_frame_at(
    b: &Snapshot<'_>,
    map: &LoadedMap,
    id: SourceId,
    line: u32,
    column: u32,
) -> Option<String> {
    use sourcemap_core::trace::code_frame::{code_frame, code_frame_of_lines, frame_lines};
    if map.index.source(id).has_content() {
        let (first, last) = frame_lines(line);
        let lines = tokio::task::block_in_place(|| map.source_lines(id, first, last))?;
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        return code_frame_of_lines(&lines, first, line, column);
    }
    code_frame(&source_text(b, map, id).await?, line, column)
}

/// The source's text: `sourcesContent`, else the resolved local file (a regular file of at most
/// [`MAX_SOURCE_FILE_BYTES`], read on the blocking pool).
pub async fn source_text(b: &Snapshot<'_>, map: &LoadedMap, id: SourceId) -> Option<Arc<str>> {
    if map.index.source(id).has_content() {
        return tokio::task::block_in_place(|| map.source_text(id));
    }
    let path = b.resolve_source(map, id)?;
    let bytes = tokio::task::spawn_blocking(move || {
        sourcemap_core::internal::fs::files::read_regular(&path, MAX_SOURCE_FILE_BYTES)
    })
    .await
    .ok()?
    .ok()?;
    String::from_utf8(bytes).ok().map(Arc::from)
}

/// `sourcemap/debugPanic`, a test hook: only with `SOURCEMAP_LS_TEST_PANIC=1`, it panics inside a handler to prove
/// the server survives; otherwise it does not exist.
pub async fn debug_panic(_: &Snapshot<'_>, _: serde_json::Value) -> tower_lsp::jsonrpc::Result<()> {
    if std::env::var("SOURCEMAP_LS_TEST_PANIC").as_deref() == Ok("1") {
        panic!("deliberate panic for the test");
    }
    Err(tower_lsp::jsonrpc::Error::method_not_found())
}
