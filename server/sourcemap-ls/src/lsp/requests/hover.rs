//! `textDocument/hover` on a bundle: the original `source:line:column` (1-based, as in stack traces), the original
//! name, and a code frame of the original source. The range is the generated segment's span. No mapping: null.

use std::sync::atomic::Ordering;

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{
    Hover, HoverContents, HoverParams, MarkupContent, MarkupKind, Position, Range, Url,
};

use sourcemap_core::bundle::fit::FitReport;
use sourcemap_core::trace::function_name::CodeScopes;
use sourcemap_core::trace::symbolicate::{enclosing_function, Enclosing, OriginalCodeOnly};
use sourcemap_core::{MappingHit, SourceMapIndex};

use super::document_place::{in_map, InMap};

use crate::answers::hover::{plain_text, Function, HoverAnswer, OriginalHover};
use crate::answers::LineSpan;
use crate::lsp::maps::document_lines::DocumentLines;
use crate::lsp::maps::loaded_map::LoadedMap;
use crate::lsp::protocol::errors::internal;
use crate::lsp::protocol::position::{span_to_lsp, to_generated, utf16_len};
use crate::lsp::workspace::code_scopes::WorkspaceCode;
use crate::lsp::workspace::map_fit::{fit_for_frames, known_fit, withheld};
use crate::lsp::workspace::snapshot::Snapshot;
use crate::lsp::workspace::todays_file::{local_source, LocalSource};

pub async fn hover(b: &Snapshot<'_>, params: HoverParams) -> Result<Option<Hover>> {
    let uri = params.text_document_position_params.text_document.uri;
    // Positions cross between the client's count of today's text and the server's build text here
    // (`Snapshot::position_in_build`): the hover is the build's, where an edit since left it one.
    let asked = params.text_document_position_params.position;
    let answer = match b.position_in_build(&uri, asked) {
        Ok(position) => hover_answer(b, &uri, position).await?,
        Err(why) => {
            let answer = HoverAnswer::NoAnswer {
                why,
                at: LineSpan::at(asked.line, asked.character),
            };
            // Already the client's position: not carried from the build.
            return Ok(Some(render(b, &answer, Range::new(asked, asked))));
        }
    };
    b.still_at(&uri)?;
    Ok(answer.map(|answer| {
        let range = b.range_from_build(&uri, span_to_lsp(answer.span()));
        let mut hover = render(b, &answer, range.unwrap_or_default());
        hover.range = range;
        hover
    }))
}

/// The answer as the client reads it: markdown, or plain text when it asked for that.
fn render(b: &Snapshot<'_>, answer: &HoverAnswer, range: Range) -> Hover {
    let md = answer.markdown();
    let contents = if b.plain_text_hover.load(Ordering::Relaxed) {
        MarkupContent {
            kind: MarkupKind::PlainText,
            value: plain_text(&md),
        }
    } else {
        MarkupContent {
            kind: MarkupKind::Markdown,
            value: md,
        }
    };
    Hover {
        contents: HoverContents::Markup(contents),
        range: Some(range),
    }
}

/// The hover at `position` of the server's (build's) text of `uri`: what it answers, or why nothing; `None` where
/// there is nothing to say (no mapping, a module the map lacks, an invalid section, whose error is a diagnostic).
async fn hover_answer(
    b: &Snapshot<'_>,
    uri: &Url,
    position: Position,
) -> Result<Option<HoverAnswer>> {
    let no_answer = |why: String| {
        Ok(Some(HoverAnswer::NoAnswer {
            why,
            at: LineSpan::at(position.line, position.character),
        }))
    };
    let Ok(map) = b.map_of_bundle(uri).await else {
        // A development bundle of webpack's eval devtools has no map: its modules carry their own.
        return Ok(
            super::eval_module_hover::eval_module_hover(b, uri, position)
                .map(|e| HoverAnswer::EvalModule(Box::new(e))),
        );
    };
    if let Some(why) = past_line_end(b, uri, position) {
        return no_answer(why);
    }
    let index = &map.index;
    // A RAM bundle's module or a segment is placed where the map has it; the map a module lacks has no answer.
    let Ok(placed) = in_map(index, uri, position) else {
        return Ok(None);
    };
    // Where the map does not fit this bundle, no answer: why. Judged by this version's report, or the check near the
    // position when none is known yet (`fit_at`): an answer never comes unchecked, nor from another text's verdict.
    let fit = placed
        .is_the_bundle()
        .then(|| fit_at(b, &map, uri, position))
        .flatten();
    if let Some(why) = withheld(fit.as_deref(), index, to_generated(position)) {
        return no_answer(why);
    }
    // An invalid section has no answer; its error is published as a diagnostic.
    let Ok(Some(hit)) = placed.lookup(index) else {
        return Ok(None);
    };
    let Some(o) = hit.original else {
        return Ok(None);
    };
    let source = o.source_url.unwrap_or("(unnamed source)");
    // The local file the source's path leads to, checked once: when it is the source, its workspace path is shown
    // (the map's string goes to the footer); when its text differs from the map's copy, the hover says so.
    // A file edited since the build is still that source's file: where the position is in it today is said.
    let (shown, differing, today) =
        tokio::task::block_in_place(|| match local_source(b, &map, o.source) {
            Some(LocalSource::Build(p)) => (b.workspace_path(&p), None, None),
            Some(LocalSource::Edited(p, t)) => match t.drift.position(o.line, o.column) {
                Some(now) => (b.workspace_path(&p), None, Some(now)),
                None => (None, Some(p), None),
            },
            Some(LocalSource::Other(p)) => (None, Some(p), None),
            None => (None, None, None),
        });
    let maps = [map.clone()];
    let function = tokio::task::block_in_place(|| {
        let code = WorkspaceCode { b, maps: &maps };
        // A module's or a segment's text is not the bundle's: only the original code names its functions.
        let original_only = OriginalCodeOnly(&code);
        let code: &dyn CodeScopes = if placed.is_the_bundle() {
            &code
        } else {
            &original_only
        };
        enclosing_function(index, 0, hit.section, placed.at, &o, code)
    });
    let function = function.map(|e| match e {
        Enclosing {
            function: Some(f), ..
        } => Function::Named(f),
        Enclosing {
            top_level: true, ..
        } => Function::TopLevel,
        _ => Function::Anonymous,
    });
    let code_frame = super::code_frame_at(b, &map, o.source, o.line, o.column).await;
    let end = segment_end(b, uri, index, &hit, &placed)?;
    let line = placed.document_line(hit.generated.line);
    Ok(Some(HoverAnswer::Original(Box::new(OriginalHover {
        source: source.to_string(),
        shown,
        line: o.line,
        column: o.column,
        function,
        name: o.name.map(str::to_string),
        ignore_listed: index.is_ignored(o.source),
        today,
        differing,
        code_frame,
        map_name: map_name(&map),
        span: LineSpan {
            line,
            start: hit.generated.column,
            end: end.max(hit.generated.column),
        },
    }))))
}

/// The map as the hover's footer names it: its file's name, or "inline map".
fn map_name(map: &LoadedMap) -> String {
    match map.key.file() {
        Some(p) => p.file_name().map_or_else(
            || p.display().to_string(),
            |f| f.to_string_lossy().into_owned(),
        ),
        None => "inline map".into(),
    }
}

/// The fit of `map` against the bundle `uri` that a hover at `position` is judged by: the known report, else the check
/// near `position`, now (`check_fit_near`: bounded whatever the map's size; the whole check on a map under 4 MiB of
/// `mappings`). A hover sent before the background check finished answered unchecked: on Bootstrap's published map,
/// 3 columns short on its one long line, the first hovers gave misplaced answers (`tests/css.rs`).
fn fit_at(
    b: &Snapshot<'_>,
    map: &LoadedMap,
    uri: &Url,
    position: Position,
) -> Option<std::sync::Arc<FitReport>> {
    let bundle = uri.to_file_path().ok();
    if let Some(known) = known_fit(b, map, bundle.as_deref()) {
        return Some(known);
    }
    tokio::task::block_in_place(|| {
        fit_for_frames(b, map, bundle.as_deref(), &[to_generated(position)])
    })
    .map(|f| f.report)
}

/// Why nothing is at `position` of an open document: it is past its line's end (an editor hovers only on text, so
/// this is a request about another version of the text, or a client's mistake). Lines are counted as LSP counts
/// them (`\n`, `\r\n`, `\r`); ropey's line breaks include those.
fn past_line_end(b: &Snapshot<'_>, uri: &Url, position: Position) -> Option<String> {
    let lines = b.build_lines(uri)?;
    let line = position.line as usize;
    if line >= lines.len_lines() {
        return Some(format!(
            "line {} is past the end of the document ({} lines)",
            line + 1,
            lines.len_lines()
        ));
    }
    let ends = [
        '\n', '\r', '\u{85}', '\u{2028}', '\u{2029}', '\u{0b}', '\u{0c}',
    ];
    let len = match &lines {
        // A line of a rope is read in place (a one-line bundle's line is the whole text).
        DocumentLines::Rope(rope) => {
            let text = rope.line(line);
            let mut end = text.len_chars();
            while end > 0 && ends.contains(&text.char(end - 1)) {
                end -= 1;
            }
            text.char_to_utf16_cu(end)
        }
        DocumentLines::Lent(..) => utf16_len(lines.line(line)?.trim_end_matches(ends)) as usize,
    };
    (position.character as usize > len).then(|| {
        format!(
            "column {} is past the end of line {} ({len} columns in this version of the document)",
            position.character + 1,
            line + 1
        )
    })
}

/// Where the hovered segment ends on its document line (UTF-16): the next segment, else the line's end.
fn segment_end(
    b: &Snapshot<'_>,
    uri: &Url,
    index: &SourceMapIndex,
    hit: &MappingHit<'_>,
    placed: &InMap,
) -> Result<u32> {
    let end = index
        .segment_end(hit)
        .map_err(|e| internal(e.to_string()))?;
    Ok(match end {
        Some(end) => end,
        // The segment runs to the end of the line.
        None => match b.build_lines(uri).and_then(|l| {
            Some(utf16_len(
                l.line(placed.document_line(hit.generated.line) as usize)?
                    .trim_end_matches(['\n', '\r']),
            ))
        }) {
            Some(end) => end,
            None => hit.generated.column + 1,
        },
    })
}
