//! What the server holds per map: its key (a file, or an inline map by bundle and hash), the index and what is
//! derived from it on demand (outline, code scopes, content checks, source texts, fit verdicts), and why a load
//! failed.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use sourcemap_core::{MapErrors, SourceMapIndex};

use super::outline::Module;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum MapKey {
    File(PathBuf),
    Inline { bundle: PathBuf, hash: u64 },
}

impl MapKey {
    pub fn inline(bundle: &Path, bytes: &[u8]) -> MapKey {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        bytes.hash(&mut h);
        MapKey::Inline {
            bundle: bundle.to_path_buf(),
            hash: h.finish(),
        }
    }

    /// A string form, used in virtual document URIs.
    pub fn to_uri_string(&self) -> String {
        match self {
            MapKey::File(p) => format!("file:{}", p.display()),
            MapKey::Inline { bundle, hash } => format!("inline:{hash:016x}:{}", bundle.display()),
        }
    }

    pub fn from_uri_string(s: &str) -> Option<MapKey> {
        if let Some(p) = s.strip_prefix("file:") {
            return Some(MapKey::File(PathBuf::from(p)));
        }
        let rest = s.strip_prefix("inline:")?;
        let (hash, bundle) = rest.split_once(':')?;
        Some(MapKey::Inline {
            bundle: PathBuf::from(bundle),
            hash: u64::from_str_radix(hash, 16).ok()?,
        })
    }

    /// The directory relative sources resolve against.
    pub fn dir(&self) -> Option<&Path> {
        match self {
            MapKey::File(p) => p.parent(),
            MapKey::Inline { bundle, .. } => bundle.parent(),
        }
    }

    pub fn file(&self) -> Option<&Path> {
        match self {
            MapKey::File(p) => Some(p),
            MapKey::Inline { .. } => None,
        }
    }
}

/// A built index and what the server keeps beside it.
#[derive(Debug)]
pub struct LoadedMap {
    pub key: MapKey,
    pub index: SourceMapIndex,
    /// Bundle outline, computed on first `documentSymbol`.
    pub outline: OnceLock<Vec<Module>>,
    /// Function scopes of its bundle and sources, parsed on first use (see `code_scopes`).
    pub code: super::code_scopes::CodeCache,
    /// Whether local files are the sources they are named after (see `local_sources`).
    pub content_checks: super::local_sources::ContentChecks,
    /// The last source texts used (see `source_texts`).
    pub texts: super::source_texts::SourceTexts,
    /// Whether the map fits its bundle, by the bundle text checked (see `map_fit`).
    pub fits: super::map_fit::FitCache,
}

impl LoadedMap {
    /// A map just indexed: nothing derived from it yet.
    pub(super) fn new(key: MapKey, index: SourceMapIndex) -> Self {
        LoadedMap {
            key,
            index,
            outline: OnceLock::new(),
            code: Default::default(),
            content_checks: Default::default(),
            texts: Default::default(),
            fits: Default::default(),
        }
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_through_uris() {
        for key in [
            MapKey::File(PathBuf::from("/w/a b/x.js.map")),
            MapKey::Inline {
                bundle: PathBuf::from("/w/y.js"),
                hash: 0xdead_beef,
            },
        ] {
            assert_eq!(MapKey::from_uri_string(&key.to_uri_string()), Some(key));
        }
    }
}
