//! What the server answers, free of the protocol: plain values a handler in `lsp/requests/` makes from the snapshot
//! and renders to LSP in a few lines (rust-analyzer's `ide::HoverResult` beside its `to_proto`).
//!
//! Nothing here names tower-lsp or its LSP types (`tests/protocol_agrees.rs` checks it).
//! Positions are 0-based lines and UTF-16 columns of the build's text, as the core counts them.

pub mod hover;
pub mod links;

use url::Url;

/// Where an original position opens in the editor: a document (the source's local file, its file copy, or a
/// `sourcemap-source:` virtual document) at a 0-based line and UTF-16 column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenAt {
    pub uri: Url,
    pub line: u32,
    pub column: u32,
}

/// A stretch of one line of a document: 0-based line, UTF-16 columns `start..end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineSpan {
    pub line: u32,
    pub start: u32,
    pub end: u32,
}

impl LineSpan {
    /// The empty span at `line`:`column`.
    pub fn at(line: u32, column: u32) -> LineSpan {
        LineSpan {
            line,
            start: column,
            end: column,
        }
    }
}
