//! Settings (section `sourcemap`), from `initializationOptions` and `workspace/configuration`.

use std::path::{Path, PathBuf};

use sourcemap_core::bundle::locate::map_in_directory;

use serde::Deserialize;

/// Default cap on a map's size: bigger maps are refused with a clear diagnostic instead of being read.
pub const DEFAULT_MAX_MAP_BYTES: u64 = 1 << 30;

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// js-debug style rewrites of `sources` entries: `{"webpack:///./*": "${workspaceFolder}/*"}`; tried before the
    /// built-in webpack defaults.
    pub path_overrides: Vec<(String, String)>,
    /// Glob of bundles → map path, for bundles without `sourceMappingURL` or sidecar map.
    pub maps: Vec<(String, String)>,
    pub max_map_bytes: u64,
    /// Allow fetching maps from a Metro dev server on loopback (off by default).
    pub dev_server: bool,
    /// Directories besides the workspace folders whose files may be read as original sources.
    pub roots: Vec<String>,
    /// Cap on the memory all cached indexes hold together; least recently used ones are evicted (0: default).
    pub max_index_bytes: u64,
    /// One budget for every cache kept beside the indexes (source texts, function scopes, diffs, verdicts); least
    /// recently used entries are evicted first (0: default, `budget::DEFAULT_MAX_CACHE_BYTES`).
    pub max_cache_bytes: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            path_overrides: Vec::new(),
            maps: Vec::new(),
            max_map_bytes: DEFAULT_MAX_MAP_BYTES,
            dev_server: false,
            roots: Vec::new(),
            max_index_bytes: 0,
            max_cache_bytes: 0,
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct RawSettings {
    path_overrides: serde_json::Map<String, serde_json::Value>,
    maps: serde_json::Map<String, serde_json::Value>,
    max_map_bytes: Option<u64>,
    dev_server: Option<bool>,
    roots: Vec<String>,
    max_index_bytes: Option<u64>,
    max_cache_bytes: Option<u64>,
}

impl Settings {
    /// Reads settings from a JSON value: either the `sourcemap` section itself or an object holding it.
    /// Unknown or mistyped fields fall back to defaults rather than failing the whole configuration.
    pub fn from_json(value: &serde_json::Value) -> Settings {
        let section = value.get("sourcemap").unwrap_or(value);
        let raw: RawSettings = serde_json::from_value(section.clone()).unwrap_or_default();
        let pairs = |m: serde_json::Map<String, serde_json::Value>| {
            m.into_iter()
                .filter_map(|(k, v)| v.as_str().map(|v| (k, v.to_string())))
                .collect()
        };
        Settings {
            path_overrides: pairs(raw.path_overrides),
            maps: pairs(raw.maps),
            max_map_bytes: raw.max_map_bytes.unwrap_or(DEFAULT_MAX_MAP_BYTES),
            dev_server: raw.dev_server.unwrap_or(false),
            roots: raw.roots,
            max_index_bytes: raw.max_index_bytes.unwrap_or(0),
            max_cache_bytes: raw.max_cache_bytes.unwrap_or(0),
        }
    }
}

/// What a `maps` setting entry names: a map file, or (with `devServer` on) a loopback URL to fetch it from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingsMap {
    File(PathBuf),
    Url(String),
}

/// A `maps` value naming a directory of maps (metro-symbolicate's `DIR` form): it ends with `/`.
fn is_map_directory(map: &str) -> bool {
    map.ends_with('/') && !map.contains("://")
}

/// A `maps` value naming an archive of bundles and maps (`app.asar`, a Sentry artifact bundle's zip), as
/// `symbolicate --maps ARCHIVE` takes one.
fn is_map_archive(map: &str) -> bool {
    !map.contains("://") && (map.ends_with(".asar") || map.ends_with(".zip"))
}

/// The map the `maps` setting gives the bundle at `path`: the first glob that matches its path relative to a
/// workspace folder (or its absolute path). A relative map path is relative to that folder (to the bundle's folder
/// for an absolute glob).
impl Settings {
    pub fn map_for(&self, path: &Path, folders: &[PathBuf]) -> Option<SettingsMap> {
        for (glob, map) in &self.maps {
            let Ok(matcher) = globset::Glob::new(glob).map(|g| g.compile_matcher()) else {
                continue;
            };
            if is_map_archive(map) {
                // For frames only (`map_archives_for`): a bundle in the workspace has its map beside it.
                continue;
            }
            if is_map_directory(map) {
                // A bundle at `rel` in a folder: `DIR/rel.map`, inside DIR only.
                let found = folders.iter().find_map(|f| {
                    let rel = path.strip_prefix(f).ok().filter(|r| matcher.is_match(r))?;
                    map_in_directory(&f.join(map), &rel.to_string_lossy())
                });
                if let Some(found) = found {
                    return Some(SettingsMap::File(found));
                }
                continue;
            }
            let is_url = map.starts_with("http://") || map.starts_with("https://");
            let relative = folders
                .iter()
                .filter_map(|f| path.strip_prefix(f).ok().map(|r| (f, r)));
            for (folder, rel) in relative {
                if matcher.is_match(rel) {
                    return Some(if is_url {
                        SettingsMap::Url(map.clone())
                    } else {
                        SettingsMap::File(folder.join(map))
                    });
                }
            }
            if matcher.is_match(path) {
                if is_url {
                    return Some(SettingsMap::Url(map.clone()));
                }
                let map = Path::new(map);
                return Some(SettingsMap::File(if map.is_absolute() {
                    map.to_path_buf()
                } else {
                    path.parent().unwrap_or(Path::new("/")).join(map)
                }));
            }
        }
        None
    }
}

impl Settings {
    /// The directories of maps the `maps` setting names (values ending in `/`, relative to the first workspace
    /// folder), whose glob matches the frame's file as printed: a trace's frame is answered from `DIR/FILE.map` of
    /// the first, as `symbolicate DIR` answers it.
    pub fn map_directories_for(&self, file: &str, folders: &[PathBuf]) -> Vec<PathBuf> {
        self.maps_for_frame(file, folders, is_map_directory)
    }

    /// The archives the `maps` setting names (values ending in `.asar` or `.zip`, relative to the first workspace
    /// folder) whose glob matches the frame's file as printed: read as `symbolicate --maps ARCHIVE` reads them.
    pub fn map_archives_for(&self, file: &str, folders: &[PathBuf]) -> Vec<PathBuf> {
        self.maps_for_frame(file, folders, is_map_archive)
    }

    fn maps_for_frame(
        &self,
        file: &str,
        folders: &[PathBuf],
        kind: fn(&str) -> bool,
    ) -> Vec<PathBuf> {
        let base = folders.first().cloned().unwrap_or_default();
        self.maps
            .iter()
            .filter(|(_, map)| kind(map))
            .filter(|(glob, _)| {
                globset::Glob::new(glob)
                    .map(|g| g.compile_matcher().is_match(file))
                    .unwrap_or(false)
            })
            .map(|(_, map)| base.join(map))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_section_or_its_parent() {
        let v = serde_json::json!({"sourcemap": {"pathOverrides": {"webpack:///*": "/w/*"}, "maxMapBytes": 10}});
        let s = Settings::from_json(&v);
        assert_eq!(
            s.path_overrides,
            vec![("webpack:///*".to_string(), "/w/*".to_string())]
        );
        assert_eq!(s.max_map_bytes, 10);
        let s = Settings::from_json(&serde_json::json!({"maps": {"dist/*.js": "maps/app.map"}}));
        assert_eq!(s.maps.len(), 1);
        assert_eq!(
            Settings::from_json(&serde_json::json!(null)).max_map_bytes,
            DEFAULT_MAX_MAP_BYTES
        );
    }

    #[test]
    fn a_directory_of_maps_answers_from_inside_it_only() {
        let dir = tempfile::tempdir().unwrap();
        let ws = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(ws.join("maps/dist")).unwrap();
        std::fs::write(ws.join("maps/dist/app.js.map"), "{}").unwrap();
        std::fs::write(ws.join("secret.js.map"), "{}").unwrap();
        let settings = Settings {
            maps: vec![("**".into(), "maps/".into())],
            ..Settings::default()
        };
        let folders = [ws.clone()];
        assert_eq!(
            settings.map_for(&ws.join("dist/app.js"), &folders),
            Some(SettingsMap::File(ws.join("maps/dist/app.js.map")))
        );
        assert_eq!(settings.map_for(&ws.join("dist/other.js"), &folders), None);
        // A frame's file as printed: under the directory only, never `..` out of it.
        let dirs = settings.map_directories_for("dist/app.js", &folders);
        assert_eq!(dirs, vec![ws.join("maps/")]);
        let found = |file: &str| dirs.iter().find_map(|d| map_in_directory(d, file));
        assert_eq!(found("dist/app.js"), Some(ws.join("maps/dist/app.js.map")));
        assert_eq!(found("../secret.js"), None);
    }

    #[test]
    fn attached_entries_match_exactly_one_bundle() {
        // What the VS Code extension's Attach Source Map… writes: glob characters escaped as one-character classes.
        let folder = PathBuf::from("/ws");
        let settings = Settings {
            maps: vec![
                ("out/[[]id[]]/a[*].js".into(), "maps/a.map".into()),
                (
                    "index.bundle".into(),
                    "http://localhost:8081/index.map".into(),
                ),
            ],
            ..Settings::default()
        };
        let found = |p: &str| settings.map_for(Path::new(p), std::slice::from_ref(&folder));
        assert_eq!(
            found("/ws/out/[id]/a*.js"),
            Some(SettingsMap::File(PathBuf::from("/ws/maps/a.map")))
        );
        assert_eq!(found("/ws/out/x/ab.js"), None);
        assert_eq!(
            found("/ws/index.bundle"),
            Some(SettingsMap::Url("http://localhost:8081/index.map".into()))
        );
    }
}
