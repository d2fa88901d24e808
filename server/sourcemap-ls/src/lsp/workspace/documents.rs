//! Open documents, kept as ropes with incremental sync.
//!
//! Edits are applied synchronously in the notification handler, before any `.await`, so that tower-lsp's concurrent
//! handlers can never see them out of order.

use std::collections::HashMap;

use ropey::Rope;
use tower_lsp::lsp_types::{Position, TextDocumentContentChangeEvent, Url};

#[derive(Debug)]
pub struct Document {
    pub rope: Rope,
    pub version: i32,
}

#[derive(Debug, Default)]
pub struct Documents {
    docs: HashMap<Url, Document>,
}

/// The char index in `rope` of an LSP (UTF-16) position, clamped to the document.
pub fn char_index(rope: &Rope, p: Position) -> usize {
    let line = (p.line as usize).min(rope.len_lines().saturating_sub(1));
    let line_start = rope.line_to_char(line);
    let line_utf16_start = rope.char_to_utf16_cu(line_start);
    let line_len = rope.line(line).len_chars();
    let target = (line_utf16_start + p.character as usize).min(rope.len_utf16_cu());
    rope.utf16_cu_to_char(target).min(line_start + line_len)
}

impl Documents {
    pub fn open(&mut self, uri: Url, text: &str, version: i32) {
        self.docs.insert(
            uri,
            Document {
                rope: Rope::from_str(text),
                version,
            },
        );
    }

    pub fn close(&mut self, uri: &Url) {
        self.docs.remove(uri);
    }

    pub fn get(&self, uri: &Url) -> Option<&Document> {
        self.docs.get(uri)
    }

    pub fn uris(&self) -> impl Iterator<Item = &Url> {
        self.docs.keys()
    }

    pub fn change(
        &mut self,
        uri: &Url,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
    ) {
        let Some(doc) = self.docs.get_mut(uri) else {
            return;
        };
        for change in changes {
            match change.range {
                None => doc.rope = Rope::from_str(&change.text),
                Some(range) => {
                    let start = char_index(&doc.rope, range.start);
                    let end = char_index(&doc.rope, range.end).max(start);
                    doc.rope.remove(start..end);
                    doc.rope.insert(start, &change.text);
                }
            }
        }
        doc.version = version;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower_lsp::lsp_types::Range;

    #[test]
    fn incremental_edits_in_utf16() {
        let mut docs = Documents::default();
        let uri = Url::parse("file:///a.js").unwrap();
        docs.open(uri.clone(), "let s = '🎉';\nfoo();\n", 1);
        // Replace `foo` on line 1, and the emoji (2 UTF-16 units) on line 0.
        docs.change(
            &uri,
            2,
            vec![
                TextDocumentContentChangeEvent {
                    range: Some(Range::new(Position::new(1, 0), Position::new(1, 3))),
                    range_length: None,
                    text: "bar".into(),
                },
                TextDocumentContentChangeEvent {
                    range: Some(Range::new(Position::new(0, 9), Position::new(0, 11))),
                    range_length: None,
                    text: "x".into(),
                },
            ],
        );
        assert_eq!(
            docs.get(&uri).unwrap().rope.to_string(),
            "let s = 'x';\nbar();\n"
        );
        assert_eq!(docs.get(&uri).unwrap().version, 2);
    }
}
