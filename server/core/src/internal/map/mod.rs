//! The map index: a source map read once and kept as its VLQ text plus checkpoints, looked up both ways.
//!
//! Layers, bottom up: `vlq` (digits) → `segment` (segments and every validity rule) → `checkpoints` (where decoding
//! can resume, packed for a lookup's cache lines) → `compact` (a section's checkpoints and the generated → original
//! lookups) → `parse` (the JSON, located errors) → `index` (sections and sources) → `reverse`
//! (original → generated). `names` holds a map's `names`; `function_map` and `scopes` read the two fields that name
//! functions (Metro's `x_facebook_sources`, ECMA-426 `scopes`). `debug_id` is a debug ID's one spelling. `sparse` cuts an index map down to the sections some
//! positions need, for a short trace against a large map. `prefetch` is a cache hint for the lookup path. `index_cache` keeps large sections' checkpoints on disk between
//! runs.

pub mod checkpoints;
pub mod compact;
mod compact_build;
pub mod debug_id;
pub mod error;
pub(crate) mod fast_read;
pub mod function_map;
pub mod index;
pub mod index_cache;
pub mod measure;
pub mod metro;
pub mod names;
pub mod parse;
pub mod position;
pub(crate) mod prefetch;
pub(crate) mod raw;
pub mod reverse;
pub mod scopes;
pub mod segment;
pub mod sparse;
pub mod vlq;
