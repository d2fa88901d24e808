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

/// Folders no walk enters: dependencies, Rust's build output, hidden folders (`.git`, caches) — but for the hidden
/// folders frameworks build into: Next.js writes its whole build to `.next/` (`.next/static/…`, served as
/// `/_next/static/…`, and `.next/server/…`: Next.js docs, "Project structure", and `distDir`'s default `.next` in
/// `next/dist/server/config-shared.js`), and a Next.js user has nothing else.
pub fn skipped_dir(name: &str) -> bool {
    is_dependency_dir(name) || name == "target" || (name.starts_with('.') && !is_build_dir(name))
}

/// Hidden folders that hold a framework's build (see [`skipped_dir`]).
pub fn is_build_dir(name: &str) -> bool {
    name == ".next"
}

/// Folders of installed dependencies: searched for a bundle by name only when none is found outside them (a
/// library's own bundle, `node_modules/marked/lib/marked.umd.js`, is named by its frames).
pub fn is_dependency_dir(name: &str) -> bool {
    matches!(name, "node_modules" | "bower_components")
}

/// Folders a search by name reads at most: a root as wide as `/` or a home folder is not walked to its end (the
/// search notes that it stopped; `--root` narrows it).
pub const MAX_FOLDERS: usize = 20_000;

/// One entry met by [`walk`].
pub struct WalkEntry<'a> {
    /// The entry's path: the root joined with the names down to it.
    pub path: &'a Path,
    /// A regular file, or a symlink to one.
    pub is_file: bool,
}

/// Calls `visit` with every entry under `root` (files and folders) in folders at most `max_depth` below it, until
/// `visit` breaks.
pub fn walk(
    root: &Path,
    max_depth: usize,
    visit: impl FnMut(WalkEntry<'_>) -> ControlFlow<()>,
) -> ControlFlow<()> {
    walk_entering(root, max_depth, |name| !skipped_dir(name), visit).0
}

/// [`walk`], entering the folders `enter` accepts (by name), reading at most [`MAX_FOLDERS`] folders; also says
/// whether it stopped there.
pub fn walk_entering(
    root: &Path,
    max_depth: usize,
    enter: impl Fn(&str) -> bool,
    mut visit: impl FnMut(WalkEntry<'_>) -> ControlFlow<()>,
) -> (ControlFlow<()>, bool) {
    let mut queue = VecDeque::from([(root.to_path_buf(), 0)]);
    let mut folders = 0;
    while let Some((dir, depth)) = queue.pop_front() {
        folders += 1;
        if folders > MAX_FOLDERS {
            return (ControlFlow::Continue(()), true);
        }
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
            if visit(WalkEntry {
                path: &path,
                is_file,
            })
            .is_break()
            {
                return (ControlFlow::Break(()), false);
            }
            if kind.is_dir() && depth < max_depth && enter(&name.to_string_lossy()) {
                queue.push_back((path, depth + 1));
            }
        }
    }
    (ControlFlow::Continue(()), false)
}

/// Up to `limit` files named `name` under `root`, nearest first, at most `max_depth` folders down: outside dependency
/// folders, else inside them.
pub fn find_files_named(root: &Path, name: &str, max_depth: usize, limit: usize) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dependencies in [false, true] {
        let enter = |dir: &str| {
            !(dir == "target" || dir.starts_with('.') || (!dependencies && is_dependency_dir(dir)))
        };
        let _ = walk_entering(root, max_depth, enter, |e| {
            let wanted = e.is_file && e.path.file_name().is_some_and(|n| n == name);
            if wanted && (!dependencies || in_dependency_dir(root, e.path)) {
                out.push(e.path.to_path_buf());
                if out.len() >= limit {
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        });
        if !out.is_empty() {
            break;
        }
    }
    out
}

/// Whether `path` lies in a dependency folder below `root`.
fn in_dependency_dir(root: &Path, path: &Path) -> bool {
    path.strip_prefix(root).is_ok_and(|rel| {
        rel.components()
            .any(|c| is_dependency_dir(&c.as_os_str().to_string_lossy()))
    })
}

/// The files under `root` by name, each name's nearest first, at most `max_depth` folders down and at most `limit`
/// files in all: one walk for the many names a profile's or a trace's scripts give (a walk per name was 4 s for a
/// profile naming 93 scripts, run in this repository).
pub struct FilesByName {
    by_name: std::collections::HashMap<std::ffi::OsString, Vec<PathBuf>>,
    truncated: bool,
    took: std::time::Duration,
}

impl FilesByName {
    /// The files outside dependency folders.
    pub fn new(root: &Path, max_depth: usize, limit: usize) -> Self {
        Self::build(root, max_depth, limit, false)
    }

    /// The files inside dependency folders (`node_modules`), for names not found outside them.
    pub fn in_dependencies(root: &Path, max_depth: usize, limit: usize) -> Self {
        Self::build(root, max_depth, limit, true)
    }

    fn build(root: &Path, max_depth: usize, limit: usize, dependencies: bool) -> Self {
        let mut by_name: std::collections::HashMap<std::ffi::OsString, Vec<PathBuf>> =
            Default::default();
        let mut count = 0;
        let started = std::time::Instant::now();
        let enter = |dir: &str| {
            !(dir == "target" || dir.starts_with('.') || (!dependencies && is_dependency_dir(dir)))
        };
        let (_, truncated) = walk_entering(root, max_depth, enter, |e| {
            if e.is_file && (!dependencies || in_dependency_dir(root, e.path)) {
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
        FilesByName {
            by_name,
            truncated: truncated || count >= limit,
            took: started.elapsed(),
        }
    }

    /// Whether the walk stopped before the end of the tree ([`MAX_FOLDERS`], or the files' limit).
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// How long the walk took.
    pub fn took(&self) -> std::time::Duration {
        self.took
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
        // A name found only inside a dependency folder is found there (a library's own bundle), by both.
        std::fs::write(d.join("node_modules/x/lib.min.js"), "").unwrap();
        assert_eq!(
            find_files_named(d, "lib.min.js", 6, 9),
            [d.join("node_modules/x/lib.min.js")]
        );
        assert!(index.named("lib.min.js").is_empty());
        let deps = FilesByName::in_dependencies(d, 6, 100);
        assert_eq!(
            deps.named("lib.min.js"),
            [d.join("node_modules/x/lib.min.js")]
        );
        assert!(deps.named("app.js") == [d.join("node_modules/x/app.js")]);
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
