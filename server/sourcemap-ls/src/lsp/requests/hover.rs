//! `textDocument/hover` on a bundle: the original `source:line:column` (1-based, as in stack traces), the original
//! name, and a code frame of the original source. The range is the generated segment's span. No mapping: null.

use std::fmt::Write;
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

use crate::lsp::maps::loaded_map::LoadedMap;
use crate::lsp::protocol::errors::internal;
use crate::lsp::protocol::position::{to_generated, to_lsp, utf16_len};
use crate::lsp::workspace::code_scopes::WorkspaceCode;
use crate::lsp::workspace::map_fit::{fit_for_frames, known_fit, withheld};
use crate::lsp::workspace::snapshot::Snapshot;
use crate::lsp::workspace::todays_file::{local_source, LocalSource};
use sourcemap_core::source::today::{moved_by, Status, TodayPosition};

/// The code fence language for a source, by its extension.
fn fence_language(source: &str) -> &'static str {
    let path = source.split(['?', '#']).next().unwrap_or(source);
    match path.rsplit('.').next().unwrap_or("") {
        "ts" | "mts" | "cts" => "ts",
        "tsx" => "tsx",
        "jsx" => "jsx",
        "js" | "mjs" | "cjs" => "js",
        "css" => "css",
        "scss" => "scss",
        "vue" => "vue",
        "svelte" => "svelte",
        _ => "",
    }
}

pub async fn hover(b: &Snapshot<'_>, params: HoverParams) -> Result<Option<Hover>> {
    let uri = params.text_document_position_params.text_document.uri;
    // Positions cross between the client's count of today's text and the server's build text here
    // (`Snapshot::position_in_build`): the hover is the build's, where an edit since left it one.
    let asked = params.text_document_position_params.position;
    let position = match b.position_in_build(&uri, asked) {
        Ok(p) => p,
        Err(why) => return Ok(Some(no_answer(b, &why, asked))),
    };
    let mut hover = hover_at(b, &uri, position).await?;
    if let Some(h) = hover.as_mut() {
        h.range = h.range.and_then(|r| b.range_from_build(&uri, r));
    }
    Ok(hover)
}

/// The hover at `position` of the server's text of `uri`.
async fn hover_at(b: &Snapshot<'_>, uri: &Url, position: Position) -> Result<Option<Hover>> {
    let uri = uri.clone();
    let Ok(map) = b.map_of_bundle(&uri).await else {
        // A development bundle of webpack's eval devtools has no map: its modules carry their own.
        let hover = super::eval_module_hover::eval_module_hover(b, &uri, position);
        b.still_at(&uri)?;
        return Ok(hover);
    };
    if let Some(why) = past_line_end(b, &uri, position) {
        b.still_at(&uri)?;
        return Ok(Some(no_answer(b, &why, position)));
    }
    let index = &map.index;
    // A RAM bundle's module or a segment is placed where the map has it; the map a module lacks has no answer.
    let Ok(placed) = in_map(index, &uri, position) else {
        return Ok(None);
    };
    // Where the map does not fit this bundle, no answer: why. Judged by this version's report, or the check near the
    // position when none is known yet (`fit_at`): an answer never comes unchecked, nor from another text's verdict.
    let fit = placed
        .is_the_bundle()
        .then(|| fit_at(b, &map, &uri, position))
        .flatten();
    if let Some(why) = withheld(fit.as_deref(), index, to_generated(position)) {
        b.still_at(&uri)?;
        return Ok(Some(no_answer(b, &why, position)));
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
    // A file edited since the build is still that source's file: where the position is in it today is said below.
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
    let mut md = format!(
        "**`{}:{}:{}`**",
        shown.as_deref().unwrap_or(source),
        o.line + 1,
        o.column + 1
    );
    // The question a frame asks: which original function is this in (not the token's name, which follows).
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
    match function {
        Some(Enclosing {
            function: Some(f), ..
        }) => {
            let _ = write!(md, " in `{f}`");
        }
        Some(Enclosing {
            top_level: true, ..
        }) => md.push_str(" (top level)"),
        Some(_) => md.push_str(" (in an anonymous function)"),
        None => {}
    }
    if let Some(name) = o.name {
        let _ = write!(md, " — `{name}`");
    }
    if index.is_ignored(o.source) {
        md.push_str(" *(ignore-listed)*");
    }
    md.push('\n');
    if let Some(now) = today {
        md.push('\n');
        md.push_str(&since_the_build(
            shown.as_deref().unwrap_or(source),
            o.line,
            o.column,
            now,
        ));
        md.push('\n');
    }
    if let Some(path) = differing {
        let _ = write!(
            md,
            "\n*The local file `{}` differs from the map's copy of this source: the code below and go to \
             definition use the map's copy.*\n",
            path.display()
        );
    }
    if let Some(frame) = super::code_frame_at(b, &map, o.source, o.line, o.column).await {
        let _ = write!(md, "\n```{}\n{frame}```\n", fence_language(source));
    }
    let _ = write!(md, "\n*sourcemap-ls · {}", map_name(&map));
    if shown.is_some() {
        let _ = write!(md, " · source `{source}`");
    }
    md.push('*');

    let end = segment_end(b, &uri, index, &hit, &placed)?;
    b.still_at(&uri)?;
    let line = placed.document_line(hit.generated.line);
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
    Ok(Some(Hover {
        contents: HoverContents::Markup(contents),
        range: Some(Range::new(
            to_lsp(line, hit.generated.column),
            Position::new(line, end.max(hit.generated.column)),
        )),
    }))
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
    let rope = b.build_rope(uri)?;
    let line = position.line as usize;
    if line >= rope.len_lines() {
        return Some(format!(
            "line {} is past the end of the document ({} lines)",
            line + 1,
            rope.len_lines()
        ));
    }
    let text = rope.line(line);
    let mut end = text.len_chars();
    while end > 0
        && matches!(
            text.char(end - 1),
            '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{0b}' | '\u{0c}'
        )
    {
        end -= 1;
    }
    let len = text.char_to_utf16_cu(end);
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
        None => match b.build_rope(uri) {
            // The segment runs to the end of the line.
            Some(rope)
                if (placed.document_line(hit.generated.line) as usize) < rope.len_lines() =>
            {
                let line = rope
                    .line(placed.document_line(hit.generated.line) as usize)
                    .to_string();
                utf16_len(line.trim_end_matches(['\n', '\r']))
            }
            _ => hit.generated.column + 1,
        },
    })
}

/// The hover where the map does not fit the bundle: why there is no answer.
fn no_answer(b: &Snapshot<'_>, why: &str, position: Position) -> Hover {
    let value = format!("**No answer here** — {why}");
    let plain = b.plain_text_hover.load(Ordering::Relaxed);
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: if plain {
                MarkupKind::PlainText
            } else {
                MarkupKind::Markdown
            },
            value: if plain { plain_text(&value) } else { value },
        }),
        range: Some(Range::new(position, position)),
    }
}

/// Both places of a position whose file has been edited since the build (lines and columns 1-based, as the hover's
/// heading): where it was built, and where that code is in the file now, or what became of it.
fn since_the_build(source: &str, line: u32, column: u32, now: TodayPosition) -> String {
    let (l, c) = (line + 1, column + 1);
    let (nl, nc) = (now.line + 1, now.column + 1);
    match now.status {
        Status::Unchanged | Status::Moved => format!(
            "In the build: `{source}:{l}:{c}`; in your file now: `:{nl}:{nc}` ({}).",
            moved_by(line, now.line)
        ),
        Status::Changed => format!(
            "*Your file `{source}` has changed here since the build: line {l} was rewritten (it is line {nl} now). \
             The code below and go to definition use the build's copy.*"
        ),
        Status::Deleted => format!(
            "*Line {l} is gone from your file `{source}` since the build (the code after it starts at line {nl} now). \
             The code below and go to definition use the build's copy.*"
        ),
    }
}

/// The hover's markdown as plain text, same information: emphasis and code marks dropped, code fences removed
/// around their (kept) lines. The markdown is ours, so only the marks it uses are handled.
fn plain_text(md: &str) -> String {
    let mut out = String::new();
    let mut in_code = false;
    for line in md.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            // Source code: `*` and backticks are the program's own.
            out.push_str(line);
        } else {
            out.push_str(&line.replace("**", "").replace(['`', '*'], ""));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_keeps_the_information() {
        let md = "**`src/a.js:5:24`** in `parseOrder` — `map`\n\n```js\n> 5 | x.map(f => `${f * 2}`)\n```\n\n*sourcemap-ls · a.js.map*";
        assert_eq!(
            plain_text(md),
            "src/a.js:5:24 in parseOrder — map\n\n> 5 | x.map(f => `${f * 2}`)\n\nsourcemap-ls · a.js.map\n"
        );
    }

    #[test]
    fn fences_by_extension() {
        assert_eq!(fence_language("webpack:///./src/a.tsx?abc"), "tsx");
        assert_eq!(fence_language("/x/y.mjs"), "js");
        assert_eq!(fence_language("README"), "");
    }
}
