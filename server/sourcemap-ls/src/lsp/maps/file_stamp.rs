//! A file's stamp (device, inode, size, modification time) and reading a file only if it did not change while it
//! was read: what keeps `MapStore` from answering from an index of a file that has since changed.

use std::fs::File;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::lsp::maps::load_error::LoadError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stamp {
    /// Device and inode: a file renamed into place is another file even with the same size and time.
    file_id: (u64, u64),
    pub(super) len: u64,
    modified: Option<SystemTime>,
}

impl Stamp {
    /// Whether a rewrite after `read_at` could still leave this stamp unchanged: the modification time is within
    /// the timestamp granularity of `read_at` (a kernel tick on ext4, 2 s on FAT, 1 s on some network mounts).
    pub(super) fn is_racy(&self, read_at: SystemTime) -> bool {
        match self.modified.and_then(|m| m.checked_add(RACY_WINDOW)) {
            Some(end) => end > read_at,
            None => true, // no time to trust
        }
    }
}

/// The coarsest file-system timestamp granularity the racy check allows for.
const RACY_WINDOW: Duration = Duration::from_secs(2);

pub(super) fn content_hash(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// How many times a request tries to read a map that keeps changing under it before it gives up.
pub(super) const MAX_ATTEMPTS: usize = 12;

pub(super) fn stamp_of(m: &std::fs::Metadata) -> Stamp {
    #[cfg(unix)]
    let file_id = {
        use std::os::unix::fs::MetadataExt;
        (m.dev(), m.ino())
    };
    #[cfg(not(unix))]
    let file_id = (0, 0);
    Stamp {
        file_id,
        len: m.len(),
        modified: m.modified().ok(),
    }
}

/// Reads an open map file, or `Changed` if it was modified in place while being read (retry rather than index a
/// mix of two versions).
pub(super) fn read_unchanged(
    path: &Path,
    file: File,
    expected: Stamp,
) -> Result<Vec<u8>, Arc<LoadError>> {
    let mut file = file;
    let bytes = sourcemap_core::internal::fs::files::read_whole(&file, expected.len)
        .and_then(|mut b| std::io::Read::read_to_end(&mut file, &mut b).map(|_| b))
        .map_err(|e| {
            Arc::new(LoadError::Unreadable(format!(
                "cannot read {}: {e}",
                path.display()
            )))
        })?;
    let after = file.metadata().ok().map(|m| stamp_of(&m));
    if after != Some(expected) || bytes.len() as u64 != expected.len {
        return Err(Arc::new(LoadError::Changed));
    }
    Ok(bytes)
}
