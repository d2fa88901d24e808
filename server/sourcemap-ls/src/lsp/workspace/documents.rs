//! Open documents, kept as ropes with incremental sync, each under its one key (`DocumentKey`).
//!
//! Edits are applied synchronously in the notification handler, before any `.await`, so that tower-lsp's concurrent
//! handlers can never see them out of order.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use ropey::Rope;
use sourcemap_core::bundle::columns::LineIndex;

use crate::lsp::maps::document_lines::DocumentLines;
use sourcemap_core::trace::stack::StackLine;
use tower_lsp::lsp_types::{Position, TextDocumentContentChangeEvent, Url};

use crate::lsp::workspace::edit_log::EditLog;

/// A document's state at one version. Kept behind an `Arc`: a request's snapshot (`snapshot.rs`) holds the one it
/// started on, and an edit that comes meanwhile changes a copy (`Arc::make_mut`; the ropes' nodes are shared).
#[derive(Debug, Clone)]
pub struct Document {
    pub rope: Rope,
    pub version: i32,
    /// The URI as the client spelled it at `didOpen`: what diagnostics are published under.
    pub uri: Url,
    /// Whether the text was changed since it was opened (`didChange`): it may then differ from the file on disk.
    pub edited: bool,
    /// The file starts with a byte-order mark that the client left out of the text it sent. VS Code and Neovim drop
    /// it (`'bomb'`), while maps count it as the first column of line 1 (sass's compressed output starts with one
    /// when it holds a non-ASCII character). The server's text ([`Document::text`]) has it back, so the server reads
    /// what the map describes; the client's columns on line 0 are then one less than the server's
    /// ([`Document::position_asked`], `Backend::range_to_client`).
    pub bom_dropped: bool,
    /// The text the document was opened with, or last replaced by as a whole: the build's text as far as the
    /// server knows, which its map describes (a rope: its unedited parts are shared with `rope`, not copied).
    pub build: Rope,
    /// The version `build` was at.
    pub build_version: i32,
    /// The edits from `build` to `rope`: how a position of today's text is carried back to it.
    pub edits: EditLog,
    /// What is worked out once per version of the text, for every request on it.
    pub of_version: Arc<OfVersion>,
    /// `build` as the client sent it, while the opening's diagnostics run (large documents only).
    pub opened_text: Arc<OpenedText>,
    /// A large opened text's rope, not built yet: `rope` and `build` are then empty and stand for it
    /// ([`Document::text`], [`Document::build_text`] build it; an edit puts it in their place).
    pending: Option<Arc<PendingRope>>,
}

/// The rope of a large text as it was opened, built on first use, not when the document is opened: on a reload of
/// the real Metro build the 57 MB rope was a third of the server's work before the first hover, and on two cores a
/// third of the wait. The first hover reads the lines it needs from the text as sent, with the line starts the
/// transport found ([`Document::build_lines`]); the opening's diagnostics build the rope once they are done, before
/// the text is let go (`server.rs`); anything that needs the rope earlier (an edit, a request that reads the whole
/// document) builds it then.
pub struct PendingRope {
    rope: OnceLock<Rope>,
    /// The text and its lines until the rope is built.
    text: std::sync::Mutex<Option<LentText>>,
    /// Whether the text's lines are the ones LSP counts: the line starts break at `\n` only, LSP (and ropey) at
    /// `\r\n`, `\n` and `\r`; a lone `\r` makes them differ (then the rope answers).
    lsp_lines: OnceLock<bool>,
}

impl std::fmt::Debug for PendingRope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingRope")
            .field("built", &self.rope.get().is_some())
            .finish()
    }
}

impl PendingRope {
    /// The rope, built now if it is not yet.
    fn get(&self) -> &Rope {
        self.rope.get_or_init(|| {
            // Taken: the text and its lines go with the last of the lent copies.
            let text = self.text.lock().unwrap_or_else(|e| e.into_inner()).take();
            let text = text.as_ref().map_or("", |(text, _)| text.as_str());
            tracing::debug!(bytes = text.len(), "rope built");
            Rope::from_str(text)
        })
    }

    /// The text and its lines, while the rope is not built and the lines are LSP's.
    fn lent(&self) -> Option<(Arc<String>, Arc<LineIndex>)> {
        if self.rope.get().is_some() {
            return None;
        }
        let (text, lines) = self
            .text
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()?;
        let lines = lines?;
        let lsp = *self.lsp_lines.get_or_init(|| {
            let b = text.as_bytes();
            memchr::memchr_iter(b'\r', b).all(|i| b.get(i + 1) == Some(&b'\n'))
        });
        lsp.then_some((text, lines))
    }
}

/// A large document's text as the client sent it at `didOpen`, lent to the requests that read the build's text whole
/// (the fit check, the function scopes: `code_scopes::bundle_text`) until the opening's diagnostics are done, so
/// that they need not copy it out of the rope. On the real Metro build that copy (57 MB, fresh pages) was a fifth of
/// the editor's first hover when the map was indexed before (docs/PERFORMANCE.md, "The editor's first hover on a
/// reload"). It then goes: the rope is the document, and the memory budget counts it once.
#[derive(Debug, Default)]
pub struct OpenedText(std::sync::Mutex<Option<LentText>>);

/// A lent text, and its lines when the transport found them while it unescaped the text (the fit checks read them
/// rather than find them again: `code_scopes::BundleText::read_lined`).
pub type LentText = (Arc<String>, Option<Arc<LineIndex>>);

impl OpenedText {
    /// A text lent with its lines, if any.
    fn lend(lent: Option<LentText>) -> OpenedText {
        OpenedText(std::sync::Mutex::new(lent))
    }

    /// The text, while it is lent.
    #[cfg(test)]
    pub fn get(&self) -> Option<Arc<String>> {
        self.get_lined().map(|(text, _)| text)
    }

    /// The text and its lines, while it is lent.
    pub fn get_lined(&self) -> Option<LentText> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Ends the lending (the text goes once the requests reading it are done); whether there was one.
    pub fn release(&self) -> bool {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .is_some()
    }
}

/// What requests work out from one version of a document's text, once, however many ask at the same time (VS Code
/// asks for links again and cancels the last ask as the user types or scrolls: six asks parse the text once).
#[derive(Debug, Default)]
pub struct OfVersion {
    /// What `documentLink` reads of the text (`None`: given up, the version was superseded).
    pub link_frames: OnceLock<Option<Arc<LinkFrames>>>,
    /// Set once the document has another version or is closed: work for this one stops.
    pub superseded: AtomicBool,
    /// `documentLink`'s last answer, with what it was made of: given again while those are unchanged (VS Code asks
    /// again, and cancels, as the user scrolls). Locked while an answer is made, so asks of one version make one.
    pub links: tokio::sync::Mutex<Option<KeptLinks>>,
}

/// An answer of `documentLink` and what it read besides the version's text (`Snapshot::inputs`).
#[derive(Debug)]
pub struct KeptLinks {
    pub inputs: crate::lsp::workspace::kept_inputs::KeptInputs,
    pub links: Vec<crate::answers::links::FrameLink>,
}

/// A text's frames that name a file and a location, each with its line, and the debug IDs printed in it. Each frame
/// holds its line's text (`StackFrame::raw`), so this is at most the size of the text, for as long as the version
/// lasts.
#[derive(Debug)]
pub struct LinkFrames {
    pub frames: Vec<(u32, StackLine)>,
    pub debug_ids: Vec<String>,
}

impl OfVersion {
    fn supersede(&self) {
        self.superseded.store(true, Ordering::Relaxed);
    }
}

/// U+FEFF, as UTF-8 at the start of a file.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Whether `path`'s file starts with a byte-order mark that `text` (what the client sent) does not.
pub fn bom_dropped(uri: &Url, text: &str) -> bool {
    if text.starts_with('\u{feff}') {
        return false;
    }
    let Ok(path) = uri.to_file_path() else {
        return false;
    };
    let mut head = [0u8; 3];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| head == BOM)
}

impl Document {
    /// The document's text as the server reads it: the client's, with a byte-order mark it dropped put back.
    pub fn text(&self) -> Rope {
        let mut rope = match &self.pending {
            Some(p) => p.get().clone(),
            None => self.rope.clone(),
        };
        if self.bom_dropped {
            rope.insert_char(0, '\u{feff}');
        }
        rope
    }

    /// The build's text (`build`) as the server reads it: with a byte-order mark the client dropped put back.
    pub fn build_text(&self) -> Rope {
        let mut rope = match &self.pending {
            Some(p) => p.get().clone(),
            None => self.build.clone(),
        };
        if self.bom_dropped {
            rope.insert_char(0, '\u{feff}');
        }
        rope
    }

    /// The build's text as lines, without building a pending rope when the lines of the text it was opened with
    /// answer (see [`PendingRope`]).
    pub fn build_lines(&self) -> DocumentLines {
        match self.pending.as_ref().and_then(|p| p.lent()) {
            Some((text, lines)) => DocumentLines::Lent(text, lines),
            None => DocumentLines::Rope(self.build_text()),
        }
    }

    /// Today's text as lines, without building a pending rope (an edit builds it: today's text is then the
    /// rope's).
    pub fn text_lines(&self) -> DocumentLines {
        match self.pending.as_ref().and_then(|p| p.lent()) {
            Some((text, lines)) => DocumentLines::Lent(text, lines),
            None => DocumentLines::Rope(self.text()),
        }
    }

    /// Builds a pending rope now (the opening's diagnostics, once done, before the text is let go).
    pub fn build_rope_now(&self) {
        if let Some(p) = &self.pending {
            p.get();
        }
    }

    /// Puts a pending rope in `rope` and `build`, before an edit.
    fn materialize(&mut self) {
        if let Some(p) = self.pending.take() {
            let rope = p.get().clone();
            self.build = rope.clone();
            self.rope = rope;
        }
    }

    /// A position of today's text as the client counts it, in the server's build text (`build_text`): carried back
    /// through the edits since (`EditLog`), or `None` where an edit wrote the text.
    pub fn position_in_build(&self, p: Position) -> Option<Position> {
        Some(self.position_asked(self.edits.carry_back(p)?))
    }

    /// A position of the server's build text, where it is in today's text as the client counts it; `None` where an
    /// edit removed it.
    pub fn position_from_build(&self, p: Position) -> Option<Position> {
        let p = match (self.bom_dropped, p.line) {
            (true, 0) => Position::new(0, p.character.saturating_sub(1)),
            _ => p,
        };
        self.edits.carry_forward(p)
    }

    /// A position as the client counts it, in the server's text.
    pub fn position_asked(&self, p: Position) -> Position {
        match (self.bom_dropped, p.line) {
            (true, 0) => Position::new(0, p.character + 1),
            _ => p,
        }
    }
}

/// The one identity of a document, however a URI spells it: every path of the server (open, change, close, fit
/// checks, diagnostics, hovers, definitions, custom requests) finds a document by it.
///
/// Clients spell one file several ways: VS Code percent-encodes `@` (`file:///p/%40babel/standalone/babel.min.js`,
/// its `vscode-uri` encodes every character outside `[A-Za-z0-9-._~/]` in a path) and writes a Windows drive as
/// `file:///c%3A/Users/…`, lowercased; `Url::from_file_path`, which the server uses for files it found itself,
/// writes `@` and `:` as they are and keeps the drive's case. A `file:` URI's key is its path, percent-decoded
/// (`Url::to_file_path`), with a drive letter lowercased (Windows paths are case-insensitive there, and VS Code
/// lowercases it); any other URI's key is its text percent-decoded.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DocumentKey(String);

impl DocumentKey {
    pub fn of(uri: &Url) -> DocumentKey {
        if uri.scheme() == "file" {
            if let Ok(path) = uri.to_file_path() {
                let mut key = format!("file:{}", path.to_string_lossy());
                lowercase_drive(&mut key);
                return DocumentKey(key);
            }
        }
        let text = uri.as_str();
        let decoded = percent_encoding::percent_decode_str(text).decode_utf8_lossy();
        DocumentKey(decoded.into_owned())
    }
}

/// `file:/c:/…` or `file:c:\…` (a Windows drive, as `to_file_path` gives it on unix or on Windows): the letter
/// lowercased.
fn lowercase_drive(key: &mut String) {
    let rest = &key.as_bytes()["file:".len()..];
    let at = "file:".len() + usize::from(rest.first() == Some(&b'/'));
    let b = key.as_bytes();
    if b.len() > at + 1 && b[at].is_ascii_alphabetic() && b[at + 1] == b':' {
        key[at..at + 1].make_ascii_lowercase();
    }
}

/// The open documents. The table is shared with the snapshots taken of it ([`Documents::snapshot`]: one `Arc` clone
/// under the lock); a notification changes its own copy.
#[derive(Debug, Default)]
pub struct Documents {
    docs: Arc<HashMap<DocumentKey, Arc<Document>>>,
    /// Bumped by every open, change and close: what an answer kept across requests read of the documents.
    generation: u64,
}

/// The open documents as they were when a request started: what it reads, whatever edits come meanwhile.
pub type DocumentsSnapshot = Arc<HashMap<DocumentKey, Arc<Document>>>;

/// The char index in `rope` of an LSP (UTF-16) position, clamped to the document.
pub fn char_index(rope: &Rope, p: Position) -> usize {
    let line = (p.line as usize).min(rope.len_lines().saturating_sub(1));
    let line_start = rope.line_to_char(line);
    let line_utf16_start = rope.char_to_utf16_cu(line_start);
    let line_len = rope.line(line).len_chars();
    let target = (line_utf16_start + p.character as usize).min(rope.len_utf16_cu());
    rope.utf16_cu_to_char(target).min(line_start + line_len)
}

/// The LSP position of char index `i` of `rope` (lines as LSP breaks them: ropey's `cr_lines`; UTF-16 columns).
fn position_at(rope: &Rope, i: usize) -> Position {
    let line = rope.char_to_line(i);
    let column = rope.char_to_utf16_cu(i) - rope.char_to_utf16_cu(rope.line_to_char(line));
    Position::new(line as u32, column as u32)
}

impl Documents {
    /// Opens a document; `bom_dropped`: see [`Document::bom_dropped`] (found by [`bom_dropped`], outside the lock).
    /// `rope` is built by the caller before it takes the lock: a 57 MB bundle's rope takes tens of milliseconds, which
    /// every request's snapshot (and the map's prefetch) would otherwise wait for. `text`: the same text as sent, to
    /// lend ([`OpenedText`]; not with `bom_dropped`, where the build's text is not the one sent).
    pub fn open(
        &mut self,
        uri: Url,
        rope: Option<Rope>,
        text: Option<String>,
        lines: Option<LineIndex>,
        version: i32,
        bom_dropped: bool,
    ) {
        debug_assert!(!(bom_dropped && text.is_some()));
        let lent: Option<LentText> = text.map(|t| (Arc::new(t), lines.map(Arc::new)));
        // No rope given: a lent text's, built on first use.
        let pending = match (&rope, &lent) {
            (None, Some(lent)) => Some(Arc::new(PendingRope {
                rope: OnceLock::new(),
                text: std::sync::Mutex::new(Some(lent.clone())),
                lsp_lines: OnceLock::new(),
            })),
            _ => None,
        };
        let rope = rope.unwrap_or_default();
        // One rope: the build's text shares its nodes (a clone), never a second copy of a large bundle.
        self.generation += 1;
        let old = Arc::make_mut(&mut self.docs).insert(
            DocumentKey::of(&uri),
            Arc::new(Document {
                build: rope.clone(),
                rope,
                version,
                uri,
                edited: false,
                bom_dropped,
                build_version: version,
                edits: EditLog::default(),
                of_version: Arc::default(),
                opened_text: Arc::new(OpenedText::lend(lent)),
                pending,
            }),
        );
        if let Some(old) = old {
            old.of_version.supersede();
        }
    }

    pub fn close(&mut self, uri: &Url) {
        self.generation += 1;
        if let Some(doc) = Arc::make_mut(&mut self.docs).remove(&DocumentKey::of(uri)) {
            doc.of_version.supersede();
        }
    }

    pub fn get(&self, uri: &Url) -> Option<&Document> {
        self.docs.get(&DocumentKey::of(uri)).map(|d| &**d)
    }

    /// The documents as they are now, for a request to read while notifications go on changing them.
    pub fn snapshot(&self) -> DocumentsSnapshot {
        self.docs.clone()
    }

    /// Bumped by every open, change and close.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The open documents' URIs, as their clients spelled them.
    pub fn uris(&self) -> impl Iterator<Item = &Url> {
        self.docs.values().map(|d| &d.uri)
    }

    pub fn change(
        &mut self,
        uri: &Url,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
    ) {
        let Some(doc) = Arc::make_mut(&mut self.docs).get_mut(&DocumentKey::of(uri)) else {
            return;
        };
        let doc = Arc::make_mut(doc);
        doc.materialize();
        self.generation += 1;
        doc.edited = true;
        doc.of_version.supersede();
        doc.of_version = Arc::default();
        let mut replaced = false;
        for change in changes {
            let whole = change.range.is_none_or(|r| {
                r.start == Position::new(0, 0)
                    && char_index(&doc.rope, r.end) == doc.rope.len_chars()
            });
            match change.range {
                // The whole text replaced (a reload from disk after a rebuild; VS Code sends it as one edit of the
                // whole range): a new build's text, whose positions owe nothing to the old one's.
                _ if whole => {
                    doc.rope = Rope::from_str(&change.text);
                    replaced = true;
                    doc.edits.clear();
                }
                None => unreachable!("a change without a range replaces the whole text"),
                Some(range) => {
                    let start = char_index(&doc.rope, range.start);
                    let end = char_index(&doc.rope, range.end).max(start);
                    let (from, to) = (position_at(&doc.rope, start), position_at(&doc.rope, end));
                    doc.rope.remove(start..end);
                    doc.rope.insert(start, &change.text);
                    doc.edits.record(from, to, &change.text);
                }
            }
        }
        doc.version = version;
        if replaced {
            doc.build = doc.rope.clone();
            doc.build_version = version;
            doc.opened_text = Arc::default();
        }
        // Edited back to the build's text (undone): its positions are the build's again.
        if !doc.edits.is_empty()
            && doc.rope.len_bytes() == doc.build.len_bytes()
            && doc.rope == doc.build
        {
            doc.edits.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower_lsp::lsp_types::Range;

    /// One document however its URI is spelled: VS Code's `%40`, `%20` and `c%3A`, and `Url::from_file_path`'s.
    #[test]
    fn one_key_for_every_spelling_of_a_uri() {
        let same = [
            (
                "file:///w/node_modules/%40babel/standalone/babel.min.js",
                "file:///w/node_modules/@babel/standalone/babel.min.js",
            ),
            ("file:///w/my%20app/dist/a.js", "file:///w/my app/dist/a.js"),
            (
                "file:///c%3A/Users/me/dist/a.js",
                "file:///C:/Users/me/dist/a.js",
            ),
            (
                "file:///c%3A/Users/me/dist/a.js",
                "file:///c:/Users/me/dist/a.js",
            ),
            ("file:///w/%61.js", "file:///w/a.js"),
            (
                "sourcemap-source:/m/%40scope/x.ts",
                "sourcemap-source:/m/@scope/x.ts",
            ),
        ];
        for (a, b) in same {
            let (a, b) = (Url::parse(a).unwrap(), Url::parse(b).unwrap());
            assert_eq!(DocumentKey::of(&a), DocumentKey::of(&b), "{a} {b}");
        }
        let different = [
            ("file:///w/a.js", "file:///w/A.js"),
            ("file:///w/%40a.js", "file:///w/a.js"),
            ("file:///w/a.js", "untitled:/w/a.js"),
        ];
        for (a, b) in different {
            let (a, b) = (Url::parse(a).unwrap(), Url::parse(b).unwrap());
            assert_ne!(DocumentKey::of(&a), DocumentKey::of(&b), "{a} {b}");
        }
        // Opened under VS Code's spelling, found and changed under the other; published under the client's.
        let mut docs = Documents::default();
        let vscode = Url::parse("file:///w/%40babel/standalone/babel.min.js").unwrap();
        let found = Url::from_file_path("/w/@babel/standalone/babel.min.js").unwrap();
        docs.open(
            vscode.clone(),
            Some(Rope::from_str("a")),
            None,
            None,
            1,
            false,
        );
        docs.change(
            &found,
            2,
            vec![TextDocumentContentChangeEvent {
                range: None,
                range_length: None,
                text: "b".into(),
            }],
        );
        let doc = docs.get(&found).unwrap();
        assert_eq!(
            (doc.rope.to_string().as_str(), doc.version, doc.edited),
            ("b", 2, true)
        );
        assert_eq!(docs.uris().collect::<Vec<_>>(), [&vscode]);
        docs.close(&found);
        assert!(docs.get(&vscode).is_none());
    }

    #[test]
    fn the_opened_text_is_lent_while_it_is_the_build_s() {
        let mut docs = Documents::default();
        let uri = Url::parse("file:///a.js").unwrap();
        let text = "one\ntwo\n";
        docs.open(
            uri.clone(),
            Some(Rope::from_str(text)),
            Some(text.into()),
            None,
            1,
            false,
        );
        let lent = |docs: &Documents| docs.get(&uri).unwrap().opened_text.get();
        assert_eq!(lent(&docs).as_deref().map(String::as_str), Some(text));
        // An edit leaves the build's text as it was: still lent.
        let edit = |range: Option<Range>, text: &str| TextDocumentContentChangeEvent {
            range,
            range_length: None,
            text: text.into(),
        };
        let one = Range::new(Position::new(0, 0), Position::new(0, 3));
        docs.change(&uri, 2, vec![edit(Some(one), "ONE")]);
        assert_eq!(lent(&docs).as_deref().map(String::as_str), Some(text));
        // A snapshot taken before the whole text is replaced keeps lending the text it was opened with.
        let before = docs.snapshot();
        docs.change(&uri, 3, vec![edit(None, "new\n")]);
        assert_eq!(lent(&docs), None);
        let was = before.get(&DocumentKey::of(&uri)).unwrap();
        assert_eq!(
            was.opened_text.get().as_deref().map(String::as_str),
            Some(text)
        );
        // Released once (the opening's diagnostics are done).
        assert!(was.opened_text.release());
        assert!(!was.opened_text.release());
        assert_eq!(was.opened_text.get(), None);
    }

    /// A large text opened without its rope: its lines read from the text as LSP counts them, the rope built when
    /// something needs it (the same text), and an edit applied to it.
    #[test]
    fn a_pending_rope_reads_as_the_rope_until_it_is_built() {
        let lines_of = |l: &DocumentLines| -> (usize, Vec<String>) {
            let n = l.len_lines();
            (
                n,
                (0..=n)
                    .filter_map(|i| l.line(i).map(|t| t.into_owned()))
                    .collect(),
            )
        };
        for text in [
            "one\ntwo\n",
            "a\r\nb\r\n\nlast",
            "é 🎉\n\u{2028}x\n",
            "",
            "lone\rcarriage\n",
        ] {
            let mut docs = Documents::default();
            let uri = Url::parse("file:///big.js").unwrap();
            let starts = sourcemap_core::bundle::columns::line_starts(text.as_bytes());
            let lines = LineIndex::from_line_starts(text.as_bytes(), starts);
            docs.open(uri.clone(), None, Some(text.into()), Some(lines), 1, false);
            let doc = docs.get(&uri).unwrap().clone();
            let want = DocumentLines::Rope(Rope::from_str(text));
            // Read from the text while no rope is built, but where a lone `\r` breaks a line (ropey's, LSP's).
            let lent = doc.build_lines();
            assert_eq!(
                matches!(lent, DocumentLines::Lent(..)),
                !text.contains("e\rc"),
                "{text:?}"
            );
            assert_eq!(lines_of(&lent), lines_of(&want), "{text:?}");
            assert_eq!(lines_of(&doc.text_lines()), lines_of(&want), "{text:?}");
            // Built on first use: the text's rope, and then the lines are the rope's.
            assert_eq!(doc.build_text(), Rope::from_str(text));
            assert!(matches!(doc.build_lines(), DocumentLines::Rope(_)));
            // An edit applies to the rope (into an empty text, an edit at its start replaces it whole).
            if text.is_empty() {
                continue;
            }
            let end = Position::new(0, 0);
            docs.change(
                &uri,
                2,
                vec![TextDocumentContentChangeEvent {
                    range: Some(Range::new(end, end)),
                    range_length: None,
                    text: "// ".into(),
                }],
            );
            let now = docs.get(&uri).unwrap();
            assert_eq!(now.text().to_string(), format!("// {text}"));
            assert_eq!(now.build_text().to_string(), text);
            // An edit before anything built the rope builds it first.
            let other = Url::parse("file:///other.js").unwrap();
            docs.open(other.clone(), None, Some(text.into()), None, 1, false);
            docs.change(
                &other,
                2,
                vec![TextDocumentContentChangeEvent {
                    range: Some(Range::new(end, end)),
                    range_length: None,
                    text: "x".into(),
                }],
            );
            let other = docs.get(&other).unwrap();
            assert_eq!(other.text().to_string(), format!("x{text}"));
            assert_eq!(other.build_text().to_string(), text);
        }
    }

    #[test]
    fn incremental_edits_in_utf16() {
        let mut docs = Documents::default();
        let uri = Url::parse("file:///a.js").unwrap();
        docs.open(
            uri.clone(),
            Some(Rope::from_str("let s = '🎉';\nfoo();\n")),
            None,
            None,
            1,
            false,
        );
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

    /// What was worked out for a version serves only that version: an edit or a close supersedes it (its work stops),
    /// and the next version starts with nothing worked out.
    #[test]
    fn work_on_a_version_ends_with_the_version() {
        let uri = Url::parse("file:///w/log.txt").unwrap();
        let mut docs = Documents::default();
        docs.open(
            uri.clone(),
            Some(Rope::from_str("at f (a.js:1:2)\n")),
            None,
            None,
            1,
            false,
        );
        let first = docs.get(&uri).unwrap().of_version.clone();
        let _ = first.link_frames.set(None);
        docs.change(
            &uri,
            2,
            vec![TextDocumentContentChangeEvent {
                range: Some(Range::new(Position::new(0, 0), Position::new(0, 0))),
                range_length: None,
                text: "x".into(),
            }],
        );
        assert!(first.superseded.load(Ordering::Relaxed));
        let second = docs.get(&uri).unwrap().of_version.clone();
        assert!(!second.superseded.load(Ordering::Relaxed));
        assert!(second.link_frames.get().is_none());
        docs.open(
            uri.clone(),
            Some(Rope::from_str("again\n")),
            None,
            None,
            3,
            false,
        );
        assert!(second.superseded.load(Ordering::Relaxed));
        let third = docs.get(&uri).unwrap().of_version.clone();
        docs.close(&uri);
        assert!(third.superseded.load(Ordering::Relaxed));
    }

    /// A snapshot keeps the documents as they were when it was taken: an edit, an open or a close that comes while
    /// a request runs changes the table's own copy, and the snapshot's version is what `still_at` compares.
    #[test]
    fn a_snapshot_keeps_the_version_it_was_taken_at() {
        let uri = Url::parse("file:///w/log.txt").unwrap();
        let other = Url::parse("file:///w/other.txt").unwrap();
        let mut docs = Documents::default();
        docs.open(
            uri.clone(),
            Some(Rope::from_str("one\n")),
            None,
            None,
            1,
            false,
        );
        let before = docs.snapshot();
        docs.change(
            &uri,
            2,
            vec![TextDocumentContentChangeEvent {
                range: Some(Range::new(Position::new(0, 0), Position::new(0, 3))),
                range_length: None,
                text: "two".into(),
            }],
        );
        docs.open(
            other.clone(),
            Some(Rope::from_str("x")),
            None,
            None,
            1,
            false,
        );
        let was = &before[&DocumentKey::of(&uri)];
        assert_eq!((was.rope.to_string().as_str(), was.version), ("one\n", 1));
        assert!(was.of_version.superseded.load(Ordering::Relaxed));
        assert!(!before.contains_key(&DocumentKey::of(&other)));
        let now = docs.get(&uri).unwrap();
        assert_eq!((now.rope.to_string().as_str(), now.version), ("two\n", 2));
        docs.close(&uri);
        assert!(before.contains_key(&DocumentKey::of(&uri)));
    }
}
