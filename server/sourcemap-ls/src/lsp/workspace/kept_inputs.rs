//! `KeptInputs`: what an answer kept across requests was made of, so that it is given again only while that holds
//! (`Snapshot::still_as`).

use std::sync::Weak;

use crate::lsp::maps::loaded_map::LoadedMap;

/// What an answer kept across requests read besides its document's version: the documents' generation, the
/// settings', folders' and files' (`Backend::changes`), the indexes the store held, and the maps the answer used.
/// It is given again only while all of these are unchanged, each map used is still its file's current index
/// (`MapStore::is_current`), and for [`KEPT_FOR`] at most: a kept answer is the answer a new request would make.
///
/// The time bound covers what no event reports: an original source file changed on disk outside the editor (the
/// watched files are maps and bundles) or created where the map's path leads. An answer kept for 2 s is one a
/// request that took 2 s would have given; VS Code's asks again come within that as the user scrolls or types.
#[derive(Debug, Clone)]
pub struct KeptInputs {
    pub(super) taken: std::time::Instant,
    pub(super) documents: u64,
    pub(super) changes: u64,
    pub(super) holding: Vec<usize>,
    pub(super) used: Vec<Weak<LoadedMap>>,
}

/// How long an answer is given again while nothing it read has changed ([`KeptInputs`]).
pub const KEPT_FOR: std::time::Duration = std::time::Duration::from_secs(2);
