//! `textDocument/documentLink` on logs and other text: every stack frame whose file is a known (or findable)
//! bundle links its location to the original source, behind any log prefix (`stack.rs`). Frames without a file
//! (`LINE COLUMN`, React Native's `fn@L:C`) are too ambiguous in free text and are not linked.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use sourcemap_core::trace::stack::{debug_ids_in, parse_stack_until, PlainInput, StackLine};
use sourcemap_core::trace::symbolicate::SymbolicatedLine;
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{DocumentLink, DocumentLinkParams, Url};

use super::symbolicate::{symbolicate_in_workspace, TraceEvidence};
use super::SourceUris;
use crate::answers::links::{at_line, tooltip, FrameLink};
use crate::answers::LineSpan;
use crate::lsp::protocol::errors::{content_modified, request_cancelled};
use crate::lsp::protocol::guard::cancelled;
use crate::lsp::protocol::position::{span_to_lsp, utf16_len};
use crate::lsp::workspace::documents::{KeptLinks, LinkFrames};
use crate::lsp::workspace::frame_bundles::NoFileMap;
use crate::lsp::workspace::snapshot::Snapshot;

/// Larger documents are not scanned (a bundle or a huge log): links are a convenience, not worth the copy of the
/// text. The scan is linear in the text (frames inside a long line are looked for near its end only,
/// `trace::stack::MAX_EMBEDDED_FRAME_BYTES`): 7 ms a MB of one-line minified code (`sourcemap-bench --links-only`),
/// on a task of its own that holds no other request.
const MAX_TEXT_BYTES: usize = 32 << 20;

/// The text's frames that name a file and a location, each with its line; `None` once `superseded`.
fn link_frames(text: &str, superseded: &AtomicBool) -> Option<Arc<LinkFrames>> {
    let lines = parse_stack_until(text, PlainInput::default(), &|| {
        superseded.load(Ordering::Relaxed)
    })?;
    let frames = lines
        .into_iter()
        .enumerate()
        .filter_map(|(n, l)| match l {
            StackLine::Frame(f) if f.file.is_some() && f.location_span.is_some() => {
                Some((n as u32, StackLine::Frame(f)))
            }
            _ => None,
        })
        .collect();
    Some(Arc::new(LinkFrames {
        frames,
        debug_ids: debug_ids_in(text),
    }))
}

pub async fn document_link(
    b: &Snapshot<'_>,
    params: DocumentLinkParams,
) -> Result<Option<Vec<DocumentLink>>> {
    let uri = params.text_document.uri;
    let Some((rope, of_version)) = b.text_of_version(&uri) else {
        return Ok(None);
    };
    if rope.len_bytes() > MAX_TEXT_BYTES {
        return Ok(None);
    }
    // The version's last answer, while nothing it read has changed (`Snapshot::still_as`); else made here, once for
    // the asks of this version that come meanwhile (they wait for it).
    let mut kept = of_version.links.lock().await;
    if let Some(k) = kept.as_ref().filter(|k| b.still_as(&k.inputs)) {
        return Ok(Some(render(b, &uri, &k.links)));
    }
    // Parsed once per version, however many asks come at once (the others wait for it); given up when an edit
    // supersedes the version.
    let frames = tokio::task::block_in_place(|| {
        of_version
            .link_frames
            .get_or_init(|| link_frames(&rope.to_string(), &of_version.superseded))
            .clone()
    });
    let Some(found) = frames else {
        return Err(content_modified(
            "the document changed while its links were found",
        ));
    };
    if cancelled() {
        return Err(request_cancelled());
    }
    if found.frames.is_empty() {
        *kept = Some(KeptLinks {
            inputs: b.inputs_with(&[]),
            links: Vec::new(),
        });
        return Ok(Some(Vec::new()));
    }
    let frames = &found.frames;
    // The frames as the session reads them: two frames of lines apart stay apart (one empty line between), since a
    // frame's neighbour may name it (call sites: `trace::symbolicate`'s `name_by_call_sites`).
    let mut lines: Vec<StackLine> = Vec::with_capacity(frames.len() * 2);
    let mut line_nos: Vec<Option<u32>> = Vec::with_capacity(frames.len() * 2);
    for (n, frame) in frames.iter() {
        if line_nos
            .last()
            .is_some_and(|last| *last != n.checked_sub(1))
        {
            lines.push(StackLine::Text(String::new()));
            line_nos.push(None);
        }
        lines.push(frame.clone());
        line_nos.push(Some(*n));
    }
    // Frames whose file names several bundles get no link: a link must not guess.
    let (out, maps, _) = symbolicate_in_workspace(
        b,
        &lines,
        Some(&uri),
        &TraceEvidence::of_debug_ids(found.debug_ids.clone()),
        &Default::default(),
        &NoFileMap::OnlyLoaded,
        sourcemap_core::session::SessionOptions::default(),
    )
    .await
    .ok_or_else(request_cancelled)?;
    let mut links: Vec<FrameLink> = Vec::new();
    let mut uris = SourceUris::new(b);
    for (line_no, l) in line_nos.iter().zip(&out) {
        let Some(line_no) = *line_no else {
            continue;
        };
        let SymbolicatedLine::Frame(f) = l else {
            continue;
        };
        let (Some(o), Some(span), Some(id)) = (&f.original, &f.frame.location_span, f.map) else {
            continue;
        };
        let map = &maps[id];
        // Today's file at the line's place now when only that moved; the build's copy where the line changed.
        let placed = uris.place(map, o.source_id, o.line, o.column);
        let Some(location) = placed.location else {
            continue;
        };
        // In the document's own line (escape sequences inside a coloured frame included).
        let (raw, span) = f.frame.as_written_span(span.clone());
        links.push(FrameLink {
            span: LineSpan {
                line: line_no,
                start: utf16_len(&raw[..span.start]),
                end: utf16_len(&raw[..span.end]),
            },
            target: at_line(location.uri, location.line, location.column),
            tooltip: tooltip(
                o.function.as_deref(),
                o.source.as_deref().unwrap_or("?"),
                (o.line, o.column),
                f.frame.precision,
                placed.today,
            ),
        });
    }
    let answer = render(b, &uri, &links);
    *kept = Some(KeptLinks {
        inputs: b.inputs_with(&maps),
        links,
    });
    // Made for the next ask even when this one was cancelled meanwhile.
    if cancelled() {
        return Err(request_cancelled());
    }
    Ok(Some(answer))
}

/// The links as LSP's: each span counted as the client counts its text (`range_to_client`).
fn render(b: &Snapshot<'_>, uri: &Url, links: &[FrameLink]) -> Vec<DocumentLink> {
    links
        .iter()
        .map(|l| DocumentLink {
            range: b.range_to_client(uri, span_to_lsp(l.span)),
            target: Some(l.target.clone()),
            tooltip: Some(l.tooltip.clone()),
            data: None,
        })
        .collect()
}
