//! The one walk of a folder tree for bundles and maps (a stack frame's bundle by file name, the workspace's maps
//! and the scripts naming them): breadth first, so the nearest match comes first; each folder's entries in name
//! order, so an answer never depends on the file system's order; dependency, build and hidden folders skipped (a
//! bundle a frame names, or a map the workspace owns, is not in them); symlinked folders not entered (no cycles),
//! symlinked files seen as the files they lead to.

use std::collections::VecDeque;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

/// Folders no walk enters: dependencies, Rust's build output, hidden folders (`.git`, caches).
pub fn skipped_dir(name: &str) -> bool {
    matches!(name, "node_modules" | "target" | "bower_components") || name.starts_with('.')
}

/// One entry met by [`walk`].
pub struct WalkEntry<'a> {
    pub path: &'a Path,
    /// A regular file, or a symlink to one.
    pub is_file: bool,
}

/// Calls `visit` with every entry under `root` (files and folders) in folders at most `max_depth` below it, until
/// `visit` breaks.
pub fn walk(
    root: &Path,
    max_depth: usize,
    mut visit: impl FnMut(WalkEntry<'_>) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let mut queue = VecDeque::from([(root.to_path_buf(), 0)]);
    while let Some((dir, depth)) = queue.pop_front() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<(PathBuf, std::fs::FileType)> = entries
            .flatten()
            .filter_map(|e| Some((e.path(), e.file_type().ok()?)))
            .collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        for (path, kind) in entries {
            let is_file = kind.is_file() || (kind.is_symlink() && path.is_file());
            visit(WalkEntry {
                path: &path,
                is_file,
            })?;
            let name = path.file_name().map(|n| n.to_string_lossy());
            if kind.is_dir() && depth < max_depth && !name.is_some_and(|n| skipped_dir(&n)) {
                queue.push_back((path, depth + 1));
            }
        }
    }
    ControlFlow::Continue(())
}

/// Up to `limit` files named `name` under `root`, nearest first, at most `max_depth` folders down.
pub fn find_files_named(root: &Path, name: &str, max_depth: usize, limit: usize) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let _ = walk(root, max_depth, |e| {
        if e.is_file && e.path.file_name().is_some_and(|n| n == name) {
            out.push(e.path.to_path_buf());
            if out.len() >= limit {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_files_by_name_nearest_first_outside_dependency_folders() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for p in ["node_modules/x", "a/b", ".cache", "z"] {
            std::fs::create_dir_all(d.join(p)).unwrap();
        }
        for p in [
            "node_modules/x/app.js",
            "a/b/app.js",
            ".cache/app.js",
            "z/app.js",
        ] {
            std::fs::write(d.join(p), "").unwrap();
        }
        assert_eq!(
            find_files_named(d, "app.js", 6, 9),
            [d.join("z/app.js"), d.join("a/b/app.js")]
        );
        assert_eq!(find_files_named(d, "app.js", 6, 1), [d.join("z/app.js")]);
        assert_eq!(find_files_named(d, "app.js", 0, 9), Vec::<PathBuf>::new());
        assert_eq!(find_files_named(d, "app.js", 1, 9), [d.join("z/app.js")]);
        assert!(find_files_named(d, "nope.js", 6, 9).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_folders_are_not_entered_and_symlinked_files_are_files() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("a")).unwrap();
        std::fs::write(d.join("a/app.js"), "").unwrap();
        std::os::unix::fs::symlink(d, d.join("a/loop")).unwrap();
        std::os::unix::fs::symlink(d.join("a/app.js"), d.join("linked.js")).unwrap();
        assert_eq!(find_files_named(d, "app.js", 64, 99), [d.join("a/app.js")]);
        assert_eq!(
            find_files_named(d, "linked.js", 1, 9),
            [d.join("linked.js")]
        );
    }
}
