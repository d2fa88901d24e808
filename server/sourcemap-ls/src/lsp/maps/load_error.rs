//! Why a map could not be loaded: what diagnostics and requests tell the user.

use sourcemap_core::MapErrors;

#[derive(Debug)]
pub enum LoadError {
    Unreadable(String),
    TooBig {
        bytes: u64,
        limit: u64,
    },
    Invalid(MapErrors),
    /// The file changed while it was read: retried, never answered from.
    Changed,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Unreadable(m) => f.write_str(m),
            LoadError::TooBig { bytes, limit } => {
                write!(
                    f,
                    "the map is {bytes} bytes, above the limit sourcemap.maxMapBytes = {limit}"
                )
            }
            LoadError::Invalid(e) => write!(f, "{e}"),
            LoadError::Changed => f.write_str("the map kept changing while it was read"),
        }
    }
}
