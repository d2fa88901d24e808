//! `sourcemap/symbolicate` `{text, uri?, bundles?}` → `{text, frames:[{raw, text, generated, original, ignored,
//! location, current}], ambiguous}`. `current` (`{line, character, status: unchanged|moved|changed|deleted}`) is
//! where the original position is in the source's file today, when that file was edited since the build;
//! `location` opens it there only when the line is unchanged. A source that resolved to a file in a workspace folder is shown by its path there
//! (`original.source`; the map's string is `original.mapSource`).
//!
//! A stack trace in any common format, against the workspace's maps: each frame's map is chosen in
//! `frame_bundles.rs`, then loaded like any other.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use sourcemap_core::source::today::{Status, TodayPosition};
use sourcemap_core::trace::stack::{PlainInput, Precision};
use sourcemap_core::trace::symbolicate::{
    render_frame, render_text, FunctionNameSource, SymbolicatedLine, TextOptions,
};
use tower_lsp::jsonrpc::Result;

use crate::lsp::protocol::errors::request_cancelled;
use tower_lsp::lsp_types::{Location, Url};

use super::SourceUris;
pub use crate::lsp::workspace::frame_bundles::{symbolicate_in_workspace, TraceEvidence};
use crate::lsp::workspace::frame_bundles::{Ambiguous, NoFileMap};
use crate::lsp::workspace::snapshot::Snapshot;
use sourcemap_core::trace::document::TraceDocument;

#[derive(Debug, Deserialize)]
pub struct Params {
    pub text: String,
    /// The document the text comes from: relative bundle paths resolve against its folder.
    #[serde(default)]
    pub uri: Option<Url>,
    /// The bundle chosen for a file that names several (an earlier answer's `ambiguous`): file as the trace prints
    /// it → bundle.
    #[serde(default)]
    pub bundles: HashMap<String, Url>,
}

#[derive(Debug, Serialize)]
pub struct Answer {
    pub text: String,
    pub frames: Vec<FrameAnswer>,
    /// Files that several bundles could be, told apart neither by debug ID nor by which map contains the frames'
    /// positions: their frames stay as printed until the client chooses (`bundles`).
    pub ambiguous: Vec<Ambiguous>,
}

/// One frame of the answer. Typed, and serialized straight to bytes by the handler (`large_results`): the answer to a
/// 20,000-frame log is never a tree of `serde_json::Value`s.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FrameAnswer {
    raw: String,
    text: String,
    generated: Option<GeneratedAt>,
    original: Option<OriginalAt>,
    ignored: bool,
    unresolved: Option<String>,
    /// The original position to open: today's file at the line's place now when the file was edited since the build
    /// and the line was not; else the source's file, or the build's copy.
    location: Option<Location>,
    /// Where the original position is in today's file, when that differs from the build's copy (`original` stays the
    /// build's position: the crash's truth).
    current: Option<Current>,
    /// `"line"` for a line-only frame, answered at line level (its `character`s mean nothing); else `"column"`.
    precision: &'static str,
    /// The frame ran inside code made by eval (its position is the eval call site).
    in_eval: bool,
}

/// A position in today's file (0-based, UTF-16), and what became of its line since the build.
#[derive(Debug, Serialize)]
struct Current {
    line: u32,
    character: u32,
    status: Status,
}

impl From<TodayPosition> for Current {
    fn from(p: TodayPosition) -> Self {
        Current {
            line: p.line,
            character: p.column,
            status: p.status,
        }
    }
}

#[derive(Debug, Serialize)]
struct GeneratedAt {
    file: Option<String>,
    line: u32,
    character: u32,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct OriginalAt {
    source: Option<String>,
    line: u32,
    character: u32,
    name: Option<String>,
    function: Option<String>,
    function_source: Option<FunctionNameSource>,
    /// The map's `sources` string, where `source` shows the workspace path instead.
    map_source: Option<String>,
}

/// `sourcemap/symbolicate`: the answer stashed for the output pump (a long log's answer is megabytes: written once,
/// not as a tree of values).
pub async fn stashed(
    b: &Snapshot<'_>,
    params: Params,
) -> Result<crate::lsp::transport::large_results::Stashed> {
    let answer = run(b, params).await?;
    tokio::task::block_in_place(|| crate::lsp::transport::large_results::stash(&answer)).map_err(
        |e| tower_lsp::jsonrpc::Error {
            code: tower_lsp::jsonrpc::ErrorCode::InternalError,
            message: format!("sourcemap/symbolicate: the answer could not be written: {e}").into(),
            data: None,
        },
    )
}

pub async fn run(b: &Snapshot<'_>, params: Params) -> Result<Answer> {
    // The trace as found: text with log prefixes, JSON log lines (symbolicated in place), a crash reporter's event.
    let document = TraceDocument::parse(&params.text, PlainInput::default());
    let lines = document.lines.clone();
    let evidence = TraceEvidence {
        debug_ids: sourcemap_core::trace::stack::debug_ids_in(&params.text),
        reported: document.reported_files(),
    };
    let (out, maps, ambiguous) = symbolicate_in_workspace(
        b,
        &lines,
        params.uri.as_ref(),
        &evidence,
        &params.bundles,
        &NoFileMap::OnlyLoaded,
        sourcemap_core::session::SessionOptions {
            call_order: document.call_order(),
            ..Default::default()
        },
    )
    .await
    .ok_or_else(request_cancelled)?;
    let options = TextOptions::default();
    let mut uris = SourceUris::new(b);
    let mut out = out;
    // The map's `sources` string, by frame, where the text shows the workspace path instead.
    let mut map_sources: Vec<Option<String>> = Vec::new();
    for l in &mut out {
        let SymbolicatedLine::Frame(f) = l else {
            continue;
        };
        let shown = match (f.map.map(|i| &maps[i]), &mut f.original) {
            (Some(m), Some(o)) => uris
                .display(m, o.source_id)
                .and_then(|d| o.source.replace(d)),
            _ => None,
        };
        map_sources.push(shown);
    }
    let text = if document.is_plain_text() {
        render_text(&out, options)
    } else {
        document.render(&out, options)
    };
    let mut map_sources = map_sources.into_iter();
    let frames = out
        .into_iter()
        .filter_map(|l| match l {
            SymbolicatedLine::Text(_) => None,
            SymbolicatedLine::Frame(f) => {
                let rendered = render_frame(&f, options);
                let map = f.map.map(|i| &maps[i]);
                let (location, current) = match (map, &f.original) {
                    (Some(m), Some(o)) => {
                        let placed = uris.place(m, o.source_id, o.line, o.column);
                        (
                            placed.location.map(super::to_location),
                            placed.today.map(Current::from),
                        )
                    }
                    _ => (None, None),
                };
                let map_source = map_sources.next().flatten();
                let generated = f.frame.generated.map(|g| GeneratedAt {
                    file: f.frame.file.clone(),
                    line: g.line,
                    character: g.column,
                });
                let precision = match f.frame.precision {
                    Precision::Column => "column",
                    Precision::Line => "line",
                };
                Some(FrameAnswer {
                    precision,
                    in_eval: f.frame.in_eval,
                    raw: f.frame.line_as_written().to_string(),
                    text: rendered,
                    generated,
                    original: f.original.map(|o| OriginalAt {
                        map_source: map_source.or_else(|| o.source.clone()),
                        source: o.source,
                        line: o.line,
                        character: o.column,
                        name: o.name,
                        function: o.function,
                        function_source: o.function_source,
                    }),
                    ignored: f.ignored,
                    unresolved: f.unresolved,
                    location,
                    current,
                })
            }
        })
        .collect();
    Ok(Answer {
        text,
        frames,
        ambiguous,
    })
}
