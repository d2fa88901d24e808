//! Read-only copies of `sourcesContent`-only sources, for clients that cannot open `sourcemap-source:` URIs.
//!
//! VS Code and the Neovim integration declare the scheme (`sourcemapSourceScheme` in `initializationOptions`, or
//! `capabilities.experimental.sourcemapSourceScheme`); every other client (Eglot opens only `file:` locations,
//! lsp-mode drops others) gets a `file:` location of a copy written under the cache directory:
//! `$XDG_CACHE_HOME/sourcemap-ls/sources/m-<xxh3 of the map>/<the source's path>`, so the editor names and
//! highlights it like the original (see [`materialize`] for when a copy goes to a folder named by its text's hash
//! instead). Copies are written read-only, a file is used only when it holds the text asked for, and the folder is
//! kept under [`MAX_CACHE_BYTES`] by removing the least recently written copies.
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
///
/// `map` names the map the source comes from (any string; it is hashed). The copy goes first to that map's folder,
/// `m-<xxh3 of map>/<the source's path>`, where all of a map's sources share their directories: a 20,000-frame
/// trace over 6,700 sources then creates a few dozen directories, not one tree per source (`mkdir` was most of
/// the time). A file already there is used only when it holds exactly `text` (it is read and compared); when it
/// holds another text (an older build of the map, or two sources shown under one path) the copy goes to the
/// content-addressed folder `<xxh3 of text>/<the source's path>` instead. Either way the answer is a file with this
/// text, never another.
pub fn materialize(dir: &Path, map: &str, display: &str, text: &str) -> Option<PathBuf> {
    let relative = relative_path(display);
    let map_folder = format!("m-{:016x}", xxhash_rust::xxh3::xxh3_64(map.as_bytes()));
    let shared = dir.join(&map_folder).join(&relative);
    if let Some(path) = in_map_folder(dir, &map_folder, &shared, text) {
        return Some(path);
    }
    let hash = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(text.as_bytes()));
    let path = dir.join(&hash).join(&relative);
    // Same folder name, same length: the same text (the folder is named by its hash).
    if std::fs::metadata(&path).is_ok_and(|m| m.len() == text.len() as u64) {
        return Some(path);
    }
    write_new(dir, &hash, &path, text)
}

/// The copy at `path` in the map's `folder`, created in place with one `open` (read-only from the start) and one
/// write, or the file already there when it holds exactly `text`; `None` when the name holds another text or
/// cannot be written.
///
/// No partial name and link here, unlike [`write_new`]: a file in a map's folder is trusted only after its bytes
/// are compared, so one caught half-written by another process, or left short by a crash, is never taken for the
/// text; the caller then goes to the content-addressed folder. The answer is returned only once the write is
/// complete. A 20,000-frame log writes thousands of these: each saves a name created and removed in the folder.
fn in_map_folder(dir: &Path, folder: &str, path: &Path, text: &str) -> Option<PathBuf> {
    use std::io::Write;
    let created = match create_read_only(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(path.parent()?).ok()?;
            create_read_only(path)
        }
        other => other,
    };
    let mut file = match created {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return (std::fs::read(path).ok()? == text.as_bytes()).then(|| path.to_path_buf());
        }
        Err(_) => return None,
    };
    if file.write_all(text.as_bytes()).is_err() {
        drop(file);
        let _ = std::fs::remove_file(path);
        return None;
    }
    drop(file);
    #[cfg(not(unix))]
    set_read_only(path)?;
    tally_written(dir, folder, text.len() as u64);
    Some(path.to_path_buf())
}

/// Writes `text` read-only at `path` in the content-addressed `folder` (named by the text's hash) unless a file is
/// already there; returns `path` when it then holds `text`.
fn write_new(dir: &Path, folder: &str, path: &Path, text: &str) -> Option<PathBuf> {
    use std::io::Write;
    std::fs::create_dir_all(path.parent()?).ok()?;
    // Written beside, then linked into place: this folder is trusted by name and length (its name is the text's
    // hash), so a reader must never see half a copy; and a file another process put there meanwhile is never
    // replaced (`hard_link` fails when the name exists).
    let partial = dir.join(folder).join(format!(
        ".partial-{}-{}",
        std::process::id(),
        PARTIALS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let written = create_read_only(&partial)
        .and_then(|mut file| file.write_all(text.as_bytes()))
        .is_ok();
    #[cfg(not(unix))]
    let written = written && set_read_only(&partial).is_some();
    if !written {
        let _ = std::fs::remove_file(&partial);
        return None;
    }
    match std::fs::hard_link(&partial, path) {
        Ok(()) => {
            let _ = std::fs::remove_file(&partial);
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let _ = std::fs::remove_file(&partial);
            return (std::fs::read(path).ok()? == text.as_bytes()).then(|| path.to_path_buf());
        }
        // A file system without hard links: a rename, which may replace a file written meanwhile by another
        // process; in this folder that file holds the same text.
        Err(_) => {
            if std::fs::rename(&partial, path).is_err() {
                let _ = std::fs::remove_file(&partial);
                return None;
            }
        }
    }
    tally_written(dir, folder, text.len() as u64);
    Some(path.to_path_buf())
}

/// Distinguishes the partial files of one process's threads.
static PARTIALS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Creates `path` for writing, read-only from the start where the platform allows (one `open` instead of a write,
/// a `stat` and a `chmod`); fails when the name exists.
fn create_read_only(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o444);
    options.open(path)
}

#[cfg(not(unix))]
fn set_read_only(path: &Path) -> Option<()> {
    let mut permissions = std::fs::metadata(path).ok()?.permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(path, permissions).ok()
}

/// Counts a copy just written into `folder`, and trims the cache when it is over [`MAX_CACHE_BYTES`].
fn tally_written(dir: &Path, folder: &str, bytes: u64) {
    if over_budget(dir, bytes) {
        let total = trim(dir, folder);
        TALLY
            .lock()
            .expect("tally lock")
            .get_or_insert_with(Default::default)
            .insert(dir.to_path_buf(), total);
    }
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
    fn copies_keep_the_path_are_read_only_and_hold_exactly_their_text() {
        let dir = tempfile::tempdir().unwrap();
        let map = "file:///app/dist/main.js.map";
        let a = materialize(
            dir.path(),
            map,
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
        // A map's sources share their directories.
        let sibling = materialize(dir.path(), map, "/node_modules/react/jsx.js", "j").unwrap();
        assert_eq!(sibling.parent(), a.parent());
        // The same text again: the same file.
        assert_eq!(
            materialize(
                dir.path(),
                map,
                "/node_modules/react/index.js",
                "exports.x = 1;\n"
            )
            .unwrap(),
            a
        );
        // Another text under the same path (a rebuilt map, or two sources shown alike): another file, never the
        // first one, and the first is left as it was.
        let b = materialize(
            dir.path(),
            map,
            "/node_modules/react/index.js",
            "exports.x = 2;\n",
        )
        .unwrap();
        assert_ne!(a, b);
        assert!(b.ends_with("node_modules/react/index.js"));
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "exports.x = 2;\n");
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "exports.x = 1;\n");
        // Same length, other text: still told apart (the map's folder is checked by content, not by size).
        let c = materialize(
            dir.path(),
            map,
            "/node_modules/react/index.js",
            "exports.x = 3;\n",
        )
        .unwrap();
        assert_eq!(std::fs::read_to_string(&c).unwrap(), "exports.x = 3;\n");
        // No partial file is left behind.
        let mut partials = 0;
        let _ = sourcemap_core::internal::fs::walk::walk(dir.path(), 64, |e| {
            partials += e
                .path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(".partial"))
                as usize;
            std::ops::ControlFlow::Continue(())
        });
        assert_eq!(partials, 0);
        // `..` cannot climb out of the cache.
        let d = materialize(dir.path(), map, "/../../etc/x.js", "y").unwrap();
        assert!(d.starts_with(dir.path()), "{}", d.display());
    }

    #[test]
    fn a_copy_left_short_is_never_taken_for_the_text() {
        let dir = tempfile::tempdir().unwrap();
        let map = "file:///app/dist/main.js.map";
        let a = materialize(dir.path(), map, "/src/a.js", "let a = 1;\n").unwrap();
        // What a crash in the middle of the write, or another process still writing, leaves under that name.
        std::fs::remove_file(&a).unwrap();
        std::fs::write(&a, "let a").unwrap();
        let b = materialize(dir.path(), map, "/src/a.js", "let a = 1;\n").unwrap();
        assert_ne!(a, b);
        assert!(b.ends_with("src/a.js"), "{}", b.display());
        assert_eq!(std::fs::read_to_string(&b).unwrap(), "let a = 1;\n");
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "let a");
    }

    #[test]
    fn the_cache_is_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let big = "x".repeat((MAX_CACHE_BYTES / 3) as usize + 1);
        let mut paths = Vec::new();
        for i in 0..4 {
            let map = format!("map-{i}");
            paths.push(materialize(dir.path(), &map, "/a.js", &format!("{big}{i}")).unwrap());
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // Four copies of a third each do not fit: the oldest went, the newest stays.
        assert!(!paths[0].exists());
        assert!(paths[3].exists());
        assert!(folder_bytes(dir.path()) <= MAX_CACHE_BYTES);
    }
}
