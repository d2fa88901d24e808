//! Settings (section `sourcemap`), from `initializationOptions` and `workspace/configuration`.

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
        }
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
}
