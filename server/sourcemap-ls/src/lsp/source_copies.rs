//! Read-only copies of `sourcesContent`-only sources, for clients that cannot open `sourcemap-source:` URIs.
//!
//! VS Code and the Neovim integration declare the scheme (`sourcemapSourceScheme` in `initializationOptions`, or
//! `capabilities.experimental.sourcemapSourceScheme`); every other client (Eglot opens only `file:` locations,
//! lsp-mode drops others) gets a `file:` location of a copy written under the cache directory:
//! `$XDG_CACHE_HOME/sourcemap-ls/sources/<xxh3 of the text>/<the source's path>`, so the editor names and highlights
//! it like the original. Copies are content-addressed (one per distinct text, whichever map it came from), written
//! read-only, and the folder is kept under [`MAX_CACHE_BYTES`] by removing the least recently written copies.
//!
//! Copies come only from the map's `sourcesContent`: nothing is read from disk to make them.

use std::path::{Path, PathBuf};

/// The most the copies may take on disk together.
pub const MAX_CACHE_BYTES: u64 = 256 << 20;

/// `$XDG_CACHE_HOME/sourcemap-ls/sources`, else `~/.cache/sourcemap-ls/sources`, else the system temp folder.
pub fn cache_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("sourcemap-ls").join("sources")
}

/// The source's path inside its copy's folder: the URL's path without scheme, `..`, `.` or a leading `/`, so the
/// copy keeps the original's file name and extension.
fn relative_path(display: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for part in display.split('/') {
        match part {
            "" | "." | ".." => {}
            p => out.push(p.replace(['\\', ':'], "_")),
        }
    }
    if out.as_os_str().is_empty() {
        out.push("source.js");
    }
    out
}

/// Writes (or finds) the copy of `text` for the source shown as `display` (a path such as `/src/a.js`), and returns
/// its path. `None` when the cache folder cannot be written.
pub fn materialize(dir: &Path, display: &str, text: &str) -> Option<PathBuf> {
    let hash = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(text.as_bytes()));
    let folder = dir.join(&hash);
    let path = folder.join(relative_path(display));
    if std::fs::metadata(&path).is_ok_and(|m| m.len() == text.len() as u64) {
        return Some(path);
    }
    std::fs::create_dir_all(path.parent()?).ok()?;
    // Written beside, then renamed: a reader never sees half a copy.
    let partial = folder.join(format!(".partial-{}", std::process::id()));
    std::fs::write(&partial, text).ok()?;
    let mut permissions = std::fs::metadata(&partial).ok()?.permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&partial, permissions).ok()?;
    std::fs::rename(&partial, &path).ok()?;
    if over_budget(dir, text.len() as u64) {
        let total = trim(dir, &hash);
        TALLY
            .lock()
            .expect("tally lock")
            .get_or_insert_with(Default::default)
            .insert(dir.to_path_buf(), total);
    }
    Some(path)
}

/// Bytes in each cache folder as this process last measured them, plus what it wrote since: the folder is walked
/// when first written to and when the tally passes the budget, not on every copy (a 20,000-frame trace writes
/// thousands of copies).
static TALLY: std::sync::Mutex<Option<std::collections::HashMap<PathBuf, u64>>> =
    std::sync::Mutex::new(None);

/// Adds `written` to the folder's tally; whether it is now over [`MAX_CACHE_BYTES`].
fn over_budget(dir: &Path, written: u64) -> bool {
    let mut tally = TALLY.lock().expect("tally lock");
    let tally = tally.get_or_insert_with(Default::default);
    let total = match tally.get_mut(dir) {
        Some(t) => {
            *t += written;
            *t
        }
        None => {
            // Walked once, with the copy just written already in it.
            let t = folder_bytes(dir);
            tally.insert(dir.to_path_buf(), t);
            t
        }
    };
    total > MAX_CACHE_BYTES
}

/// Removes the oldest copies until the folder holds at most [`MAX_CACHE_BYTES`] (never the one just written);
/// returns the bytes left.
fn trim(dir: &Path, keep: &str) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut folders: Vec<(std::time::SystemTime, u64, PathBuf)> = entries
        .flatten()
        .filter(|e| e.file_name() != keep)
        .filter_map(|e| {
            let meta = e.metadata().ok()?;
            Some((meta.modified().ok()?, folder_bytes(&e.path()), e.path()))
        })
        .collect();
    let kept = folder_bytes(&dir.join(keep));
    let mut total: u64 = kept + folders.iter().map(|f| f.1).sum::<u64>();
    folders.sort();
    for (_, bytes, path) in folders {
        if total <= MAX_CACHE_BYTES {
            break;
        }
        if std::fs::remove_dir_all(&path).is_ok() {
            total = total.saturating_sub(bytes);
        }
    }
    total
}

fn folder_bytes(p: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(p) else {
        return std::fs::symlink_metadata(p).map_or(0, |m| m.len());
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => folder_bytes(&e.path()),
            _ => e.metadata().map_or(0, |m| m.len()),
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_are_content_addressed_read_only_and_keep_the_file_name() {
        let dir = tempfile::tempdir().unwrap();
        let a = materialize(
            dir.path(),
            "/node_modules/react/index.js",
            "exports.x = 1;\n",
        )
        .unwrap();
        assert!(
            a.ends_with("node_modules/react/index.js"),
            "{}",
            a.display()
        );
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "exports.x = 1;\n");
        assert!(std::fs::metadata(&a).unwrap().permissions().readonly());
        // The same text again: the same file; another text: another folder.
        assert_eq!(
            materialize(
                dir.path(),
                "/node_modules/react/index.js",
                "exports.x = 1;\n"
            )
            .unwrap(),
            a
        );
        let b = materialize(
            dir.path(),
            "/node_modules/react/index.js",
            "exports.x = 2;\n",
        )
        .unwrap();
        assert_ne!(a, b);
        // `..` cannot climb out of the cache.
        let c = materialize(dir.path(), "/../../etc/x.js", "y").unwrap();
        assert!(c.starts_with(dir.path()), "{}", c.display());
    }

    #[test]
    fn the_cache_is_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let big = "x".repeat((MAX_CACHE_BYTES / 3) as usize + 1);
        let mut paths = Vec::new();
        for i in 0..4 {
            paths.push(materialize(dir.path(), "/a.js", &format!("{big}{i}")).unwrap());
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // Four copies of a third each do not fit: the oldest went, the newest stays.
        assert!(!paths[0].exists());
        assert!(paths[3].exists());
        assert!(folder_bytes(dir.path()) <= MAX_CACHE_BYTES);
    }
}
