//! Hover inside a module of webpack's eval devtools (`eval("…")` in a development bundle, which has no map of its
//! own): the position in the string is a position of the module's code (`sourcemap_core::bundle::eval_modules`), and
//! the module's inline map answers it, as node and the browser's devtools map frames of that module.

use tower_lsp::lsp_types::{Position, Url};

use sourcemap_core::bundle::eval_modules::{module_at, module_code, module_map};
use sourcemap_core::trace::code_frame::code_frame;
use sourcemap_core::{GeneratedPosition, IndexOptions, SourceMapIndex};

use crate::answers::hover::EvalModuleHover;
use crate::answers::LineSpan;
use crate::lsp::workspace::snapshot::Snapshot;

/// The hover at `position` of the open document `uri` when it falls inside an eval'd module's string; `None`
/// otherwise (not a document, no such module there, or the module has no map).
pub fn eval_module_hover(
    b: &Snapshot<'_>,
    uri: &Url,
    position: Position,
) -> Option<EvalModuleHover> {
    // The position is the build text's (`hover`).
    let line = b
        .build_lines(uri)?
        .line(position.line as usize)?
        .into_owned();
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
    Some(EvalModuleHover {
        source: o.source_url.unwrap_or("(unnamed source)").to_string(),
        line: o.line,
        column: o.column,
        name: o.name.map(str::to_string),
        code_frame: index
            .source_content(o.source)
            .and_then(|t| code_frame(&t, o.line, o.column)),
        module: module.source_url.to_string(),
        at: LineSpan::at(position.line, position.character),
    })
}
