//! Original sources: where a map's source is in the user's project (`project_file`, which also keeps every read of a
//! source inside what the user gave), and where a position of the build's copy is in the file the developer has now
//! (`today`).

pub mod project_file;
pub mod today;
