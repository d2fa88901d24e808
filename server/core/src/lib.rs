// The crate's documentation is its README, whose examples are doctests (and `examples/`, run by CI).
//
// Architecture invariant: this crate knows nothing about LSP, JSON-RPC or editors. It speaks in 0-based generated
// lines and UTF-16 columns, byte offsets and plain structs; the `sourcemap-ls` crate converts at its edges.
#![doc = include_str!("../README.md")]
// No function over 150 lines (the threshold is in clippy.toml): a longer one is split where it reads best.
#![warn(clippy::too_many_lines)]
// Every public item documented: the crate is a library others build on (docs and doctests run in CI).
#![warn(missing_docs)]

pub mod bundle;
pub mod internal;
pub mod profile;
pub mod session;
pub mod source;
pub mod trace;

// The plumbing keeps its short paths inside the crate.
pub(crate) use internal::{fs, json, map};

pub use map::compact::{Bias, Checkpoint, CompactMappings};
pub use map::error::{ErrorLocation, MapError, MapErrors, MappingsLocation};
pub use map::index::{
    content_fragment, content_from_file, content_line_starts, GeneratedPosition, IndexOptions,
    MappingHit, OriginalPosition, Section, Source, SourceContent, SourceId, SourceMapIndex,
};
pub use map::reverse::{ReverseEntry, ReverseIndex};
