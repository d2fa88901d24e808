//! An open document's text as lines, however the server holds it: a rope, or the text it was opened with and its
//! line starts while the rope is not built (a large bundle's first hover reads its lines so).

use std::sync::Arc;

use ropey::Rope;
use sourcemap_core::bundle::columns::LineIndex;

/// An open document's text as lines: its rope, or the text it was opened with and that text's lines while its rope
/// is not built (`documents::PendingRope`). Lines count as LSP counts them (`\n`, `\r\n`, `\r`) either way.
pub enum DocumentLines {
    Rope(Rope),
    Lent(Arc<String>, Arc<LineIndex>),
}

impl DocumentLines {
    /// How many lines (ropey's `len_lines`: one more than the line breaks).
    pub fn len_lines(&self) -> usize {
        match self {
            DocumentLines::Rope(rope) => rope.len_lines(),
            DocumentLines::Lent(_, lines) => lines.starts().len() - 1,
        }
    }

    /// Line `n` with its line break, when there is one.
    pub fn line(&self, n: usize) -> Option<std::borrow::Cow<'_, str>> {
        match self {
            DocumentLines::Rope(rope) => rope.get_line(n).map(|l| l.to_string().into()),
            DocumentLines::Lent(text, lines) => {
                let starts = lines.starts();
                let from = *starts.get(n)? as usize;
                let to = (*starts.get(n + 1)? as usize).min(text.len());
                Some(text.get(from..to)?.into())
            }
        }
    }
}
