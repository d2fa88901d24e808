//! The edits a document went through since the text its map describes (the text it was opened with, or last
//! replaced by as a whole): every `didChange` range, so that a position of today's text is carried back to that
//! text exactly, or known to be in text the edits wrote.
//!
//! A map describes the build's text. An edited bundle's positions after an edit on the same line have moved: a hover
//! there looked up the moved column in the unmoved map and answered another place (an editing soak on a real
//! minified bundle: 3 of 900 hovers, inside a template literal the fit check cannot judge). The server sees every
//! edit, so no heuristic is needed: a position after an edit is carried back by what the edit inserted and removed,
//! and a position inside text an edit wrote has no place in the build at all. Positions are the client's (LSP:
//! lines broken at `\n`, `\r\n`, `\r`; UTF-16 columns).

use tower_lsp::lsp_types::Position;

/// One edit: `start..old_end` of the text before it became `start..new_end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edit {
    pub start: Position,
    pub old_end: Position,
    pub new_end: Position,
}

/// The edits since the build's text, oldest first.
#[derive(Debug, Clone, Default)]
pub struct EditLog {
    edits: Vec<Edit>,
}

impl EditLog {
    /// Whether the text is still the build's.
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// Forgets every edit: the text is the build's again (or a new build's).
    pub fn clear(&mut self) {
        self.edits.clear();
    }

    /// Records that `start..old_end` was replaced by `inserted`.
    pub fn record(&mut self, start: Position, old_end: Position, inserted: &str) {
        let new_end = end_of(start, inserted);
        if old_end == start && new_end == start {
            return;
        }
        self.edits.push(Edit {
            start,
            old_end,
            new_end,
        });
    }

    /// Where `p` of today's text is in the build's text; `None` inside text an edit wrote.
    pub fn carry_back(&self, p: Position) -> Option<Position> {
        self.edits
            .iter()
            .rev()
            .try_fold(p, |p, e| carried(p, e.start, e.new_end, e.old_end))
    }

    /// Where `p` of the build's text is today; `None` inside text an edit removed.
    pub fn carry_forward(&self, p: Position) -> Option<Position> {
        self.edits
            .iter()
            .try_fold(p, |p, e| carried(p, e.start, e.old_end, e.new_end))
    }
}

/// `p` across one edit that turned `start..from_end` into `start..to_end`: unchanged before it, moved after it,
/// `None` inside it.
fn carried(p: Position, start: Position, from_end: Position, to_end: Position) -> Option<Position> {
    if p < start {
        return Some(p);
    }
    if p < from_end {
        return None;
    }
    Some(if p.line == from_end.line {
        Position::new(
            to_end.line,
            to_end.character + (p.character - from_end.character),
        )
    } else {
        Position::new(p.line - from_end.line + to_end.line, p.character)
    })
}

/// Where `text` inserted at `start` ends (LSP's line breaks; UTF-16 columns).
fn end_of(start: Position, text: &str) -> Position {
    let mut line = start.line;
    let mut column = start.character;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                line += 1;
                column = 0;
            }
            '\n' => {
                line += 1;
                column = 0;
            }
            c => column += c.len_utf16() as u32,
        }
    }
    Position::new(line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every position of a text edited several ways is carried back to the same character of the original, or
    /// known to be written by an edit; checked character by character against the texts themselves.
    #[test]
    fn positions_are_carried_through_edits_to_the_same_character() {
        let original = "let a = `x\ny`;\r\nfoo(1, 2);\nbar('🎉');\n";
        // (start, end, inserted), each in the text as it is then.
        let edits = [
            ((0, 0), (0, 0), "/*c*/"),
            ((2, 4), (2, 6), "'é'"),
            ((1, 3), (2, 0), ""),
            ((0, 9), (0, 9), "\nz\r\n"),
            ((3, 0), (3, 0), "// note\n"),
        ];
        let mut text: Vec<char> = original.chars().collect();
        // Each character's origin: its index in the original, or None when an edit wrote it.
        let mut origin: Vec<Option<usize>> = (0..text.len()).map(Some).collect();
        let mut log = EditLog::default();
        for ((sl, sc), (el, ec), inserted) in edits {
            let (start, end) = (Position::new(sl, sc), Position::new(el, ec));
            let (a, b) = (index_of(&text, start), index_of(&text, end));
            let new: Vec<char> = inserted.chars().collect();
            text.splice(a..b, new.iter().copied());
            origin.splice(a..b, new.iter().map(|_| None));
            log.record(start, end, inserted);
        }
        let original: Vec<char> = original.chars().collect();
        let mut carried = 0;
        for (i, from) in origin.iter().enumerate() {
            // The `\n` of a `\r\n` has no position of its own (LSP: one line break).
            if text[i] == '\n' && i > 0 && text[i - 1] == '\r' {
                continue;
            }
            let p = position_of(&text, i);
            match (log.carry_back(p), from) {
                (Some(q), Some(j)) => {
                    assert_eq!(index_of(&original, q), *j, "{p:?} → {q:?}");
                    assert_eq!(log.carry_forward(q), Some(p), "{q:?} back");
                    carried += 1;
                }
                (None, None) => {}
                (got, want) => panic!("{p:?}: {got:?}, the character came from {want:?}"),
            }
        }
        assert!(carried > 20);
    }

    /// The index of `p` in `text` (LSP lines and UTF-16 columns).
    fn index_of(text: &[char], p: Position) -> usize {
        // Not between a `\r` and its `\n`: the position after a line break is the next line's start.
        let inside_crlf = |i: usize| i > 0 && text.get(i) == Some(&'\n') && text[i - 1] == '\r';
        (0..=text.len())
            .find(|&i| !inside_crlf(i) && position_of(text, i) == p)
            .unwrap()
    }

    fn position_of(text: &[char], i: usize) -> Position {
        let before: String = text[..i].iter().collect();
        end_of(Position::new(0, 0), &before)
    }
}
