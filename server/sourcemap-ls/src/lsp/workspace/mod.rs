//! The server's state (`Backend`: documents, the map store, settings, workspace folders) and what is answered from
//! it for every request alike: which map a document uses, which bundle and map answer a frame (the core's one
//! resolver over the workspace), function scopes and the fit check of a map's bundle as it is now.

pub mod archived_maps;
pub mod backend;
pub mod code_scopes;
pub mod documents;
pub mod edit_log;
pub mod frame_bundles;
pub mod kept_inputs;
pub mod map_fit;
pub mod map_resolution;
pub mod snapshot;
pub mod todays_file;
