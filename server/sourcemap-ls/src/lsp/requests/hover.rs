//! `textDocument/hover` on a bundle: the original `source:line:column` (1-based, as in stack traces), the original
//! name, and a code frame of the original source. The range is the generated segment's span. No mapping: null.

use std::fmt::Write;

use sourcemap_core::Bias;
use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{
    Hover, HoverContents, HoverParams, MarkupContent, MarkupKind, Position, Range,
};

use super::source_text;
use crate::lsp::position::{to_generated, to_lsp, utf16_len, utf16_to_char_index};
use crate::lsp::server::{internal, Backend};

/// Lines of context above and below the target line in the code frame.
const CONTEXT: usize = 2;

fn fence_language(source: &str) -> &'static str {
    let ext = source.rsplit('.').next().unwrap_or("");
    match ext.split(['?', '#']).next().unwrap_or("") {
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

/// A code frame: a few lines around `line` (0-based), the target marked with `>` and a caret under `column`.
pub fn code_frame(text: &str, line: u32, column: u32) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let target = line as usize;
    if target >= lines.len() {
        return None;
    }
    let first = target.saturating_sub(CONTEXT);
    let last = (target + CONTEXT).min(lines.len() - 1);
    let width = (last + 1).to_string().len();
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate().take(last + 1).skip(first) {
        let mark = if i == target { '>' } else { ' ' };
        let row = format!("{mark} {:>width$} | {}", i + 1, l.trim_end());
        out.push_str(row.trim_end());
        out.push('\n');
        if i == target {
            let pad: String = l
                .chars()
                .take(utf16_to_char_index(l, column))
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            let _ = writeln!(out, "  {:>width$} | {pad}^", "");
        }
    }
    Some(out)
}

pub async fn hover(b: &Backend, params: HoverParams) -> Result<Option<Hover>> {
    let uri = params.text_document_position_params.text_document.uri;
    let position = params.text_document_position_params.position;
    let Ok(map) = b.map_of_bundle(&uri).await else {
        return Ok(None);
    };
    let index = &map.index;
    let Some(hit) = index
        .lookup(to_generated(position), Bias::GreatestLowerBound)
        .map_err(|e| internal(e.to_string()))?
    else {
        return Ok(None);
    };
    let Some(o) = hit.original else {
        return Ok(None);
    };
    let source = o.source_url.unwrap_or("(unnamed source)");
    let mut md = format!("**`{source}:{}:{}`**", o.line + 1, o.column + 1);
    if let Some(name) = o.name {
        let _ = write!(md, " — `{name}`");
    }
    if index.is_ignored(o.source) {
        md.push_str(" *(ignore-listed)*");
    }
    md.push('\n');
    if let Some(frame) =
        source_text(b, &map, o.source).and_then(|t| code_frame(&t, o.line, o.column))
    {
        let _ = write!(md, "\n```{}\n{frame}```\n", fence_language(source));
    }
    let map_name = match map.key.file() {
        Some(p) => p.file_name().map_or_else(
            || p.display().to_string(),
            |f| f.to_string_lossy().into_owned(),
        ),
        None => "inline map".into(),
    };
    let _ = write!(md, "\n*sourcemap-ls · {map_name}*");

    let end = match index
        .segment_end(&hit)
        .map_err(|e| internal(e.to_string()))?
    {
        Some(end) => end,
        None => match b.rope(&uri) {
            // The segment runs to the end of the line.
            Some(rope) if (hit.generated.line as usize) < rope.len_lines() => {
                let line = rope.line(hit.generated.line as usize).to_string();
                utf16_len(line.trim_end_matches(['\n', '\r']))
            }
            _ => hit.generated.column + 1,
        },
    };
    Ok(Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: md,
        }),
        range: Some(Range::new(
            to_lsp(hit.generated.line, hit.generated.column),
            Position::new(hit.generated.line, end.max(hit.generated.column)),
        )),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_frames_mark_the_line_and_column() {
        let text = "a\n\nconst x = 1;\nd\ne\nf\n";
        assert_eq!(
            code_frame(text, 2, 6).unwrap(),
            "  1 | a\n  2 |\n> 3 | const x = 1;\n    |       ^\n  4 | d\n  5 | e\n"
        );
        // The caret counts UTF-16 units: the emoji is two.
        let frame = code_frame("s = '🎉'; go()", 0, 10).unwrap();
        assert!(frame.ends_with("|          ^\n"), "{frame}");
        assert_eq!(code_frame(text, 99, 0), None);
    }
}
