//! The core of sourcemap-ls: a compact, exact source-map index and what is built on it.
//!
//! Architecture invariant: this crate knows nothing about LSP, JSON-RPC or editors. It speaks in 0-based generated
//! lines and UTF-16 columns, byte offsets and plain structs; the `sourcemap-ls` crate converts at its edges.

pub mod code_frame;
pub mod compact;
pub mod error;
pub mod files;
pub mod function_map;
pub mod hermes;
pub mod index;
pub mod locate;
pub mod measure;
pub mod names;
pub mod parse;
pub mod position;
pub mod reverse;
pub mod scopes;
pub mod segment;
pub mod stack;
pub mod symbolicate;
pub mod vlq;

pub use compact::{Bias, Checkpoint, CompactMappings};
pub use error::{ErrorLocation, MapError, MapErrors, MappingsLocation};
pub use index::{
    GeneratedPosition, IndexOptions, MappingHit, OriginalPosition, Section, Source, SourceId,
    SourceMapIndex,
};
pub use position::OneBasedLine;
pub use reverse::{ReverseEntry, ReverseIndex};
