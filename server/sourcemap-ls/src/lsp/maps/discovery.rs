//! Maps known before their bundles are opened, so that Go to Generated Position works from any original file.
//!
//! The workspace folders are walked on the first request that needs it (never at start-up), and again after watched
//! files or the `maps` setting change. The walk finds every `*.map` file up to `maxMapBytes`, and every script whose
//! `sourceMappingURL` comment (read from its last [`TAIL_BYTES`]) or `maps` setting names a local map. Such a script
//! is linked to that map as its bundle. Dependency and hidden folders (`node_modules`, `target`, `.git`, …) are
//! skipped (`sourcemap_core::internal::fs::walk`), and the walk stops after [`MAX_ENTRIES`] entries, saying so.
//!
//! [`SourceCatalog`] remembers the sources' file names per map file and stamp. A map whose index was evicted, or
//! that lists no file of that name, is then not read again to learn it.

use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use sourcemap_core::bundle::locate::{find_source_mapping_url, resolve_map_url};
use sourcemap_core::internal::fs::walk;
use sourcemap_core::trace::stack::file_name_of;
use sourcemap_core::SourceMapIndex;

use crate::lsp::maps::sources::normalize;
use crate::lsp::settings::Settings;

/// How much of a script's end is read for its comment (the comment is on the last lines; a `data:` URL map is
/// inline and needs no discovery).
const TAIL_BYTES: u64 = 4096;
/// The walk stops after this many directory entries (a workspace with a vendored monorepo can hold millions).
pub const MAX_ENTRIES: usize = 200_000;
/// How many folders down the walk goes below each workspace folder.
const MAX_DEPTH: usize = 16;

/// What a walk of the workspace found.
#[derive(Debug, Default)]
pub struct WorkspaceMaps {
    /// Map files, each once, in walk order.
    pub maps: Vec<PathBuf>,
    /// (bundle, map) for every script whose comment or `maps` setting names a local map file.
    pub links: Vec<(PathBuf, PathBuf)>,
    /// The walk stopped at [`MAX_ENTRIES`].
    pub truncated: bool,
}

fn is_script(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e, "js" | "mjs" | "cjs" | "bundle" | "jsbundle"))
}

/// The `sourceMappingURL` of the script at `path`, as a local map file, from its last bytes.
fn map_named_by(path: &Path) -> Option<PathBuf> {
    let (tail, _) = sourcemap_core::internal::fs::files::read_tail(path, TAIL_BYTES).ok()?;
    let (url, _) = find_source_mapping_url(&tail)?;
    if url.starts_with("data:") {
        return None;
    }
    resolve_map_url(path, url)
        .map(|p| normalize(&p))
        .filter(|p| p.is_file())
}

/// Walks the workspace folders for maps and the bundles that name them.
pub fn walk(folders: &[PathBuf], settings: &Settings) -> WorkspaceMaps {
    let mut found = WorkspaceMaps::default();
    let mut maps_seen = HashSet::new();
    let mut entries = 0;
    for folder in folders {
        let walked = walk::walk(folder, MAX_DEPTH, |entry| {
            entries += 1;
            if entries > MAX_ENTRIES {
                found.truncated = true;
                return ControlFlow::Break(());
            }
            let path = entry.path;
            if !entry.is_file {
                return ControlFlow::Continue(());
            }
            if path.extension().is_some_and(|e| e == "map") {
                let small =
                    std::fs::metadata(path).is_ok_and(|m| m.len() <= settings.max_map_bytes);
                if small && maps_seen.insert(path.to_path_buf()) {
                    found.maps.push(path.to_path_buf());
                }
            } else if is_script(path) {
                let map = map_named_by(path).or_else(|| match settings.map_for(path, folders) {
                    Some(crate::lsp::settings::SettingsMap::File(p)) => {
                        Some(p).filter(|p| p.is_file())
                    }
                    _ => None,
                });
                if let Some(map) = map {
                    if maps_seen.insert(map.clone()) {
                        found.maps.push(map.clone());
                    }
                    found.links.push((path.to_path_buf(), map));
                }
            }
            ControlFlow::Continue(())
        });
        if walked.is_break() {
            break;
        }
    }
    found
}

/// The file names of each map's sources, by map file, valid while the file's size and time are unchanged.
#[derive(Default)]
pub struct SourceCatalog {
    entries: Mutex<HashMap<PathBuf, CatalogEntry>>,
}

struct CatalogEntry {
    len: u64,
    modified: Option<SystemTime>,
    names: HashSet<String>,
}

fn stamp(path: &Path) -> Option<(u64, Option<SystemTime>)> {
    let m = std::fs::metadata(path).ok()?;
    Some((m.len(), m.modified().ok()))
}

impl SourceCatalog {
    /// Whether the map file at `path` lists a source named `file_name`; `None` when unknown or out of date.
    pub fn lists(&self, path: &Path, file_name: &str) -> Option<bool> {
        let (len, modified) = stamp(path)?;
        let entries = self.entries.lock().expect("catalog lock");
        let e = entries.get(path)?;
        (e.len == len && e.modified == modified).then(|| e.names.contains(file_name))
    }

    /// Records the sources of a map loaded from `path`.
    pub fn record(&self, path: &Path, map: &SourceMapIndex) {
        let Some((len, modified)) = stamp(path) else {
            return;
        };
        let names = map
            .sources()
            .iter()
            .filter_map(|s| s.url.as_deref().map(|u| file_name_of(u).to_string()))
            .collect();
        self.entries.lock().expect("catalog lock").insert(
            path.to_path_buf(),
            CatalogEntry {
                len,
                modified,
                names,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_maps_and_the_bundles_that_name_them() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for sub in ["dist", "build/maps", "node_modules/lib", ".cache", "legacy"] {
            std::fs::create_dir_all(d.join(sub)).unwrap();
        }
        // A bundle whose comment names a map in another folder.
        std::fs::write(d.join("build/maps/app.js.map"), "{}").unwrap();
        std::fs::write(
            d.join("dist/app.js"),
            "x();\n//# sourceMappingURL=../build/maps/app.js.map\n",
        )
        .unwrap();
        // A sidecar map without a comment: found as a map, not linked.
        std::fs::write(d.join("dist/other.js"), "y();\n").unwrap();
        std::fs::write(d.join("dist/other.js.map"), "{}").unwrap();
        // A comment naming a missing map, a data: URL, dependencies and hidden folders: nothing.
        std::fs::write(d.join("dist/gone.js"), "//# sourceMappingURL=gone.js.map\n").unwrap();
        std::fs::write(d.join("dist/inline.js"), "//# sourceMappingURL=data:,{}\n").unwrap();
        std::fs::write(d.join("node_modules/lib/index.js.map"), "{}").unwrap();
        std::fs::write(d.join(".cache/x.js.map"), "{}").unwrap();
        // The `maps` setting links a bundle without a comment.
        std::fs::write(d.join("legacy/old.bundle"), "z();\n").unwrap();
        std::fs::write(d.join("legacy/old.map"), "{}").unwrap();
        let settings = Settings {
            maps: vec![("legacy/*.bundle".into(), "legacy/old.map".into())],
            ..Settings::default()
        };
        let found = walk(&[d.to_path_buf()], &settings);
        let mut maps: Vec<_> = found
            .maps
            .iter()
            .map(|p| p.strip_prefix(d).unwrap())
            .collect();
        maps.sort();
        assert_eq!(
            maps,
            [
                Path::new("build/maps/app.js.map"),
                Path::new("dist/other.js.map"),
                Path::new("legacy/old.map")
            ]
        );
        let mut links: Vec<_> = found
            .links
            .iter()
            .map(|(b, m)| (b.strip_prefix(d).unwrap(), m.clone()))
            .collect();
        links.sort();
        assert_eq!(
            links,
            [
                (Path::new("dist/app.js"), d.join("build/maps/app.js.map")),
                (Path::new("legacy/old.bundle"), d.join("legacy/old.map")),
            ]
        );
        assert!(!found.truncated);
    }
}
