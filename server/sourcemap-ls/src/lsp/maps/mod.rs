//! The maps the server holds and how it finds them: a map's key and load errors, the store of indexes (stamped,
//! reloaded when the file changes), what each loaded map keeps beside its index, which map a bundle names, the maps
//! of the workspace, and where a map's sources are on disk. Nothing here knows the server's state (`Backend`).

pub mod bundles;
pub mod discovery;
pub mod document_lines;
pub mod file_stamp;
pub mod heap;
pub mod load_error;
pub mod loaded_map;
pub mod local_sources;
pub mod map_key;
pub mod memo;
pub mod outline;
pub mod source_copies;
pub mod source_texts;
pub mod sources;
pub mod store;
