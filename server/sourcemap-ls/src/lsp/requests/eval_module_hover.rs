//! Hover inside a module of webpack's eval devtools (`eval("…")` in a development bundle, which has no map of its
//! own): the position in the string is a position of the module's code (`sourcemap_core::bundle::eval_modules`), and
//! the module's inline map answers it, as node and the browser's devtools map frames of that module.

use tower_lsp::lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind, Position, Range, Url};

use sourcemap_core::bundle::eval_modules::{module_at, module_code, module_map};
use sourcemap_core::trace::code_frame::code_frame;
use sourcemap_core::{GeneratedPosition, IndexOptions, SourceMapIndex};

use crate::lsp::workspace::snapshot::Snapshot;

/// The hover at `position` of the open document `uri` when it falls inside an eval'd module's string; `None`
/// otherwise (not a document, no such module there, or the module has no map).
pub fn eval_module_hover(b: &Snapshot<'_>, uri: &Url, position: Position) -> Option<Hover> {
    // The position is the build text's (`hover`).
    let rope = b.build_rope(uri)?;
    let line = rope.get_line(position.line as usize)?.to_string();
    let (module, at) = module_at(line.as_bytes(), position.character)?;
    let code = module_code(line.as_bytes(), &module)?;
    let bytes = module_map(&code)?;
    let options = IndexOptions {
        lazy: true,
        lazy_names: true,
    };
    let index = SourceMapIndex::from_bytes_with(bytes, options).ok()?;
    let p = GeneratedPosition {
        line: at.0,
        column: at.1,
    };
    let hit = index.answer_at(p).ok()??;
    // A lookup never leaves its line: a hit on another line is no answer (as for any bundle).
    let o = hit.original.filter(|_| hit.generated.line == p.line)?;
    let source = o.source_url.unwrap_or("(unnamed source)");
    let mut md = format!("**`{source}:{}:{}`**", o.line + 1, o.column + 1);
    if let Some(name) = o.name {
        md.push_str(&format!(" — `{name}`"));
    }
    md.push('\n');
    if let Some(frame) = index
        .source_content(o.source)
        .and_then(|t| code_frame(&t, o.line, o.column))
    {
        md.push_str(&format!("\n```\n{frame}```\n"));
    }
    md.push_str(&format!(
        "\n*sourcemap-ls · the eval'd module `{}`, its inline map (webpack's eval devtool)*",
        module.source_url
    ));
    let plain = b
        .plain_text_hover
        .load(std::sync::atomic::Ordering::Relaxed);
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: if plain {
                MarkupKind::PlainText
            } else {
                MarkupKind::Markdown
            },
            value: if plain {
                md.replace(['`', '*'], "")
            } else {
                md
            },
        }),
        range: Some(Range::new(position, position)),
    })
}
