//! Which map an entry is: a map file, or a map inline in a bundle (by the bundle and a hash of the map's bytes).
//! The key is also written into virtual document URIs, and read back from them.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

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
