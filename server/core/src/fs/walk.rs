//! The one walk of a folder tree for bundles and maps (a stack frame's bundle by file name, the workspace's maps
//! and the scripts naming them): breadth first, so the nearest match comes first; each folder's entries in name
//! order, so an answer never depends on the file system's order; dependency, build and hidden folders skipped (a
//! bundle a frame names, or a map the workspace owns, is not in them); symlinked folders not entered (no cycles),
//! symlinked files seen as the files they lead to.
//!
//! Hand-written rather than `walkdir` or `ignore`: both walk depth first, and the order here is part of the policy
//! (`bundle::resolve` takes the nearest same-named file first, and stops after `MAX_SAME_NAMED`); a depth-first
//! walk sorted afterwards would have to see the whole tree before the first answer.

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
        let mut entries: Vec<(std::ffi::OsString, std::fs::FileType)> = entries
            .flatten()
            .filter_map(|e| Some((e.file_name(), e.file_type().ok()?)))
            .collect();
        // By name within the folder: comparing whole paths component by component was a quarter of a walk.
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        for (name, kind) in entries {
            let path = dir.join(&name);
            let is_file = kind.is_file() || (kind.is_symlink() && path.is_file());
            visit(WalkEntry {
                path: &path,
                is_file,
            })?;
            if kind.is_dir() && depth < max_depth && !skipped_dir(&name.to_string_lossy()) {
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

/// The files under `root` by name, each name's nearest first, at most `max_depth` folders down and at most `limit`
/// files in all: one walk for the many names a profile's or a trace's scripts give (a walk per name was 4 s for a
/// profile naming 93 scripts, run in this repository).
pub struct FilesByName {
    by_name: std::collections::HashMap<std::ffi::OsString, Vec<PathBuf>>,
}

impl FilesByName {
    pub fn new(root: &Path, max_depth: usize, limit: usize) -> Self {
        let mut by_name: std::collections::HashMap<std::ffi::OsString, Vec<PathBuf>> =
            Default::default();
        let mut count = 0;
        let _ = walk(root, max_depth, |e| {
            if e.is_file {
                if let Some(name) = e.path.file_name() {
                    by_name
                        .entry(name.to_owned())
                        .or_default()
                        .push(e.path.to_path_buf());
                    count += 1;
                    if count >= limit {
                        return ControlFlow::Break(());
                    }
                }
            }
            ControlFlow::Continue(())
        });
        FilesByName { by_name }
    }

    /// The files named `name`, nearest first.
    pub fn named(&self, name: &str) -> &[PathBuf] {
        self.by_name
            .get(std::ffi::OsStr::new(name))
            .map_or(&[], Vec::as_slice)
    }
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
        // The index finds what the walk finds, in the same order.
        let index = FilesByName::new(d, 6, 100);
        assert_eq!(index.named("app.js"), find_files_named(d, "app.js", 6, 9));
        assert!(index.named("nope.js").is_empty());
        assert!(FilesByName::new(d, 6, 1).named("app.js").len() <= 1);
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
