//! `sourcemap/symbolicate` `{text, uri?}` → `{text, frames:[{raw, text, generated, original, ignored, location}]}`:
//! a stack trace in any common format, against the workspace's maps. Each frame's map is found from its file: a
//! bundle already known to the server by that file name, else the file (a path relative to `uri`'s folder or a
//! workspace folder, a `file:` URL, or a URL whose file name is looked for in the workspace folders), whose map is
//! then loaded like any other. Frames without a file use the only loaded map, when there is exactly one.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sourcemap_core::locate::find_file_named;
use sourcemap_core::trace::stack::{
    file_name_of, is_foreign_file, parse_stack, PlainInput, StackFrame, StackLine,
};
use sourcemap_core::trace::symbolicate::{
    render_frame, render_text, symbolicate, SymbolicatedLine, TextOptions,
};
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{Location, Position, Range, Url};

use super::SourceUris;
use crate::lsp::code_scopes::WorkspaceCode;
use crate::lsp::map_store::LoadedMap;
use crate::lsp::server::Backend;

#[derive(Debug, Deserialize)]
pub struct Params {
    pub text: String,
    /// The document the text comes from: relative bundle paths resolve against its folder.
    #[serde(default)]
    pub uri: Option<Url>,
}

#[derive(Debug, Serialize)]
pub struct Answer {
    pub text: String,
    pub frames: Vec<Value>,
}

/// The bundle on disk a frame's file names.
fn bundle_path(file: &str, base: Option<&Path>, folders: &[PathBuf]) -> Option<PathBuf> {
    if file.starts_with("file:") {
        return Url::parse(file)
            .ok()?
            .to_file_path()
            .ok()
            .filter(|p| p.is_file());
    }
    if !file.contains("://") {
        let plain = file.split(['?', '#']).next().unwrap_or(file);
        let p = Path::new(plain);
        if p.is_absolute() && p.is_file() {
            return Some(p.to_path_buf());
        }
        for dir in base.into_iter().chain(folders.iter().map(PathBuf::as_path)) {
            let candidate = dir.join(plain);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    let name = file_name_of(file);
    folders.iter().find_map(|f| find_file_named(f, name, 5))
}

/// Chooses and loads the map of every frame (in order), caching by file name.
pub async fn maps_for_frames(
    b: &Backend,
    lines: &[StackLine],
    uri: Option<&Url>,
) -> Vec<Option<Arc<LoadedMap>>> {
    let base = uri
        .and_then(|u| u.to_file_path().ok())
        .and_then(|p| p.parent().map(Path::to_path_buf));
    let folders = b.folders();
    let mut by_name: HashMap<String, Option<Arc<LoadedMap>>> = HashMap::new();
    let mut out = Vec::new();
    for line in lines {
        let StackLine::Frame(frame) = line else {
            continue;
        };
        out.push(map_for_frame(b, frame, base.as_deref(), &folders, &mut by_name).await);
    }
    out
}

async fn map_for_frame(
    b: &Backend,
    frame: &StackFrame,
    base: Option<&Path>,
    folders: &[PathBuf],
    by_name: &mut HashMap<String, Option<Arc<LoadedMap>>>,
) -> Option<Arc<LoadedMap>> {
    if frame.native {
        return None;
    }
    let Some(file) = frame.file.as_deref() else {
        let loaded = b.maps.loaded();
        return (loaded.len() == 1).then(|| loaded[0].clone());
    };
    if is_foreign_file(file) {
        return None;
    }
    // A loopback Metro dev server, when the `devServer` setting allows it: its map, fetched and cached briefly.
    let settings = b.settings();
    if file.starts_with("http://") && settings.dev_server {
        if let Some(found) = by_name.get(file) {
            return found.clone();
        }
        let found = b.dev_server_map(file, settings.max_map_bytes).await;
        by_name.insert(file.to_string(), found.clone());
        return found;
    }
    let name = file_name_of(file).to_string();
    if let Some(found) = by_name.get(&name) {
        return found.clone();
    }
    // A bundle the server already knows by that name.
    let known = b.maps.loaded().into_iter().find(|m| {
        b.bundles_of(m)
            .iter()
            .any(|p| p.file_name().is_some_and(|f| f.to_string_lossy() == name))
    });
    let found = match known {
        Some(m) => Some(m),
        None => {
            let (file, base, folders) = (
                file.to_string(),
                base.map(Path::to_path_buf),
                folders.to_vec(),
            );
            let path =
                tokio::task::spawn_blocking(move || bundle_path(&file, base.as_deref(), &folders))
                    .await
                    .ok()
                    .flatten();
            match path.and_then(|p| Url::from_file_path(p).ok()) {
                Some(bundle) => b.map_for(&bundle).await.ok(),
                None => None,
            }
        }
    };
    by_name.insert(name, found.clone());
    found
}

/// Symbolicates parsed lines against the workspace's maps. Each frame's `map` is an index into the returned maps.
pub async fn symbolicate_in_workspace(
    b: &Backend,
    lines: &[StackLine],
    uri: Option<&Url>,
) -> (Vec<SymbolicatedLine>, Vec<Arc<LoadedMap>>) {
    let per_frame = maps_for_frames(b, lines, uri).await;
    let mut maps: Vec<Arc<LoadedMap>> = Vec::new();
    let ids: Vec<Option<usize>> = per_frame
        .iter()
        .map(|m| {
            let m = m.as_ref()?;
            Some(match maps.iter().position(|k| Arc::ptr_eq(k, m)) {
                Some(i) => i,
                None => {
                    maps.push(m.clone());
                    maps.len() - 1
                }
            })
        })
        .collect();
    let mut next = ids.iter();
    // Naming functions may read and parse bundles and sources: not on an async worker.
    let out = tokio::task::block_in_place(|| {
        symbolicate(
            lines,
            |_| Ok(next.next().copied().flatten().map(|i| (i, &maps[i].index))),
            |_| None,
            &WorkspaceCode { b, maps: &maps },
        )
    });
    (out, maps)
}

pub async fn run(b: &Backend, params: Params) -> Result<Answer> {
    let lines = parse_stack(&params.text, PlainInput::default());
    let (out, maps) = symbolicate_in_workspace(b, &lines, params.uri.as_ref()).await;
    let options = TextOptions::default();
    let mut uris = SourceUris::new(b);
    let frames = out
        .iter()
        .filter_map(|l| match l {
            SymbolicatedLine::Text(_) => None,
            SymbolicatedLine::Frame(f) => {
                let map = f.map.map(|i| &maps[i]);
                let location = match (map, &f.original) {
                    (Some(m), Some(o)) => uris.get(m, o.source_id).map(|uri| {
                        let p = Position::new(o.line, o.column);
                        Location::new(uri, Range::new(p, p))
                    }),
                    _ => None,
                };
                Some(json!({
                    "raw": f.frame.raw,
                    "text": render_frame(f, options),
                    "generated": f.frame.generated.map(|g| json!({"file": f.frame.file, "line": g.line, "character": g.column})),
                    "original": f.original.as_ref().map(|o| json!({
                        "source": o.source, "line": o.line, "character": o.column, "name": o.name,
                        "function": o.function, "functionSource": o.function_source,
                    })),
                    "ignored": f.ignored,
                    "unresolved": f.unresolved,
                    "location": location,
                }))
            }
        })
        .collect();
    Ok(Answer {
        text: render_text(&out, options),
        frames,
    })
}
