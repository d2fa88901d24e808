//! `sourcemap/profile` `{textDocument:{uri}, by?: "function"|"file"|"package", top?, map?}` → where a CPU profile's
//! time went, by original function: `{format, samples, totalMs, positioned, mapped, warnings, needsMap,
//! functions:[{function, source, line, package, unmapped, selfMs, selfPercent, totalMs, totalPercent, location}]}`
//! (`line` 0-based, as LSP counts; `location` the original source, file or virtual document, at the function's
//! line). The rows are the core's `summarize`, as `sourcemap-ls profile --json` prints them, but for their shape:
//! the CLI's `functions[].line` is 1-based (as its text tables), it has `samples` and no `location`. Each distinct
//! frame place is resolved as `sourcemap/symbolicate` resolves a frame, against the workspace's maps.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use sourcemap_core::bundle::composition::{package_of, Packages};
use sourcemap_core::profile::sites::Sites;
use sourcemap_core::profile::summary::{ms, percent, summarize, GroupBy};
use sourcemap_core::session::SessionOptions;
use sourcemap_core::trace::symbolicate::{OriginalFrame, SymbolicatedLine};
use tower_lsp::jsonrpc::Result;

use crate::lsp::protocol::errors::request_cancelled;
use tower_lsp::lsp_types::{Location, Position, Range, TextDocumentIdentifier, Url};

use super::symbolicate::{symbolicate_in_workspace, TraceEvidence};
use super::SourceUris;
use crate::lsp::protocol::errors::invalid_params;
use crate::lsp::workspace::frame_bundles::NoFileMap;
use crate::lsp::workspace::snapshot::Snapshot;

/// A profile read from disk is at most this big (a recording of minutes is tens of MB).
const MAX_PROFILE_BYTES: u64 = 1 << 30;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Params {
    pub text_document: TextDocumentIdentifier,
    #[serde(default)]
    pub by: Option<String>,
    #[serde(default)]
    pub top: Option<usize>,
    /// The map (or bundle) of frames that name no file: a Hermes bytecode profile's Hermes map.
    #[serde(default)]
    pub map: Option<Url>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    pub function: Option<String>,
    pub source: Option<String>,
    pub line: Option<u32>,
    pub package: Option<String>,
    pub unmapped: bool,
    pub self_ms: f64,
    pub self_percent: f64,
    pub total_ms: f64,
    pub total_percent: f64,
    pub location: Option<Location>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    pub format: &'static str,
    pub samples: u64,
    pub total_ms: f64,
    /// Frames at bundle positions, and how many of them were mapped.
    pub positioned: usize,
    pub mapped: usize,
    pub warnings: Vec<String>,
    /// The profile has frames that name no file (Hermes bytecode addresses) and no `map` was given for them.
    pub needs_map: bool,
    pub functions: Vec<Row>,
}

/// The profile's bytes: the open document's text, else the file.
async fn profile_bytes(b: &Snapshot<'_>, uri: &Url) -> Result<Vec<u8>> {
    if let Some(rope) = b.rope(uri) {
        return Ok(tokio::task::block_in_place(|| {
            rope.to_string().into_bytes()
        }));
    }
    let path = uri
        .to_file_path()
        .map_err(|_| invalid_params("the profile must be a file: URI or an open document"))?;
    tokio::task::spawn_blocking(move || {
        sourcemap_core::internal::fs::files::read_regular(&path, MAX_PROFILE_BYTES)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))
    })
    .await
    .map_err(|e| invalid_params(e.to_string()))?
    .map_err(invalid_params)
}

pub async fn profile(b: &Snapshot<'_>, params: Params) -> Result<Answer> {
    let uri = params.text_document.uri;
    let by = match params.by.as_deref() {
        None | Some("function") => GroupBy::Function,
        Some("file") => GroupBy::File,
        Some("package") => GroupBy::Package,
        Some(other) => {
            return Err(invalid_params(format!(
                "by: {other}; expected function, file or package"
            )))
        }
    };
    let bytes = profile_bytes(b, &uri).await?;
    // Reading a long recording and finding its places takes tens of milliseconds: not on an async worker.
    let (profile, sites, lines) = tokio::task::block_in_place(|| {
        let profile = sourcemap_core::profile::read(&bytes)?;
        let sites = Sites::of(&profile);
        let lines = sites.lines();
        Ok::<_, sourcemap_core::profile::ProfileError>((profile, sites, lines))
    })
    .map_err(|e| invalid_params(e.to_string()))?;
    drop(bytes);
    // Frames naming no file map only through the map the client names: no other loaded map is guessed.
    let no_file = match &params.map {
        Some(m) => NoFileMap::Given(
            b.map_for(m)
                .await
                .map_err(|e| invalid_params(format!("map {m}: {e}")))?,
        ),
        None => NoFileMap::Nothing,
    };
    let needs_map = params.map.is_none() && sites.sites.iter().any(|s| s.url.is_none());
    // Rows stand at their function's head (`function_lines`), also where a Metro function map named the function.
    let options = SessionOptions {
        function_lines: true,
        ..SessionOptions::default()
    };
    let (out, maps, _) = symbolicate_in_workspace(
        b,
        &lines,
        Some(&uri),
        &TraceEvidence::of_text(""),
        &HashMap::new(),
        &no_file,
        options,
    )
    .await
    .ok_or_else(request_cancelled)?;
    let answered: Vec<(Option<usize>, Option<&OriginalFrame>)> = out
        .iter()
        .map(|l| match l {
            SymbolicatedLine::Frame(f) => (f.map, f.original.as_ref()),
            SymbolicatedLine::Text(_) => (None, None),
        })
        .collect();
    let originals: Vec<Option<&OriginalFrame>> = answered.iter().map(|a| a.1).collect();
    let mut uris = SourceUris::new(b);
    // Sources shown by their workspace path where they resolve to a file there (as `sourcemap/symbolicate` does),
    // and where each (source, line) opens.
    let mut places: HashMap<(String, u32), Location> = HashMap::new();
    let mut shown_of: HashMap<usize, String> = HashMap::new();
    for (site, (map, o)) in answered.iter().enumerate() {
        let (Some(m), Some(o)) = (map.map(|i| &maps[i]), o) else {
            continue;
        };
        let shown = uris
            .display(m, o.source_id)
            .or_else(|| o.source.clone())
            .unwrap_or_else(|| "(unnamed source)".into());
        shown_of.insert(site, shown);
    }
    // Packages by each map's rule (`Packages`, as the composition view groups that map's sources).
    let packages: Vec<Packages> = maps.iter().map(|m| Packages::of_index(&m.index)).collect();
    let origins = sites.origins(
        &profile,
        &originals,
        |site, _| shown_of[&site].clone(),
        |site, o| {
            let source = o.source.as_deref().unwrap_or("(unnamed source)");
            match answered[site].0.and_then(|m| packages.get(m)) {
                Some(p) => p.of_source(source),
                None => package_of(source),
            }
        },
    );
    for (pair, origin) in origins.iter().enumerate() {
        let (Some(origin), (own, _)) = (origin, sites.pairs[pair]) else {
            continue;
        };
        let key = (origin.source.clone(), origin.line);
        if places.contains_key(&key) {
            continue;
        }
        let (Some(m), Some(o)) = (answered[own].0.map(|i| &maps[i]), answered[own].1) else {
            continue;
        };
        if let Some(uri) = uris.get(m, o.source_id) {
            let p = Position::new(origin.line, 0);
            places.insert(key, Location::new(uri, Range::new(p, p)));
        }
    }
    let rows = tokio::task::block_in_place(|| summarize(&profile, &sites.by_frame, &origins, by));
    let (positioned, mapped) = sites.counts(&origins);
    let total = profile.total_us;
    let functions = rows
        .into_iter()
        .take(params.top.unwrap_or(usize::MAX))
        .map(|r| Row {
            location: match (&r.source, r.line) {
                (Some(s), Some(l)) => places.get(&(s.clone(), l)).cloned(),
                _ => None,
            },
            function: r.function,
            source: r.source,
            line: r.line,
            package: r.package,
            unmapped: r.unmapped,
            self_ms: ms(r.self_us),
            self_percent: percent(r.self_us, total),
            total_ms: ms(r.total_us),
            total_percent: percent(r.total_us, total),
        })
        .collect();
    let mut warnings = profile.warnings;
    if needs_map {
        warnings.push(
            "frames at bytecode addresses name no file: give the profile's Hermes map (`map`) to map them".into(),
        );
    }
    Ok(Answer {
        format: profile.format.name(),
        samples: profile.samples,
        total_ms: ms(total),
        positioned,
        mapped,
        warnings,
        needs_map,
        functions,
    })
}
