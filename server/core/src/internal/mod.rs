//! Not the library's API: the plumbing the command line and the language server share with the core (they are other
//! crates of this repository, so it is public), free to change in any release. The index's types are re-exported at
//! the crate root, which is where programs outside this repository take them from.
//!
//! - `map` — the index: the map read once and kept as its VLQ text plus checkpoints, looked up both ways.
//! - `json` — JSON read without building values.
//! - `fs` — files named by input: regular files only, read with a size bound, found nearest first.

pub mod budget;
pub mod fs;
pub mod json;
pub mod map;
