//! Bundles and maps inside archives, read in place (`internal::fs::archive`): an Electron app's `app.asar` (given to
//! `--maps`, or found under a root when a frame's path runs through `NAME.asar/`) and Sentry's artifact bundles (the
//! zip `sentry-cli sourcemaps upload` assembles, given to `--maps`).
//!
//! A frame's file is found in an archive by its path through the archive (`…/resources/app.asar/out/main/index.js`
//! is the member `out/main/index.js` of `resources/app.asar`), else by the longest tail of its path or URL that names
//! a member — for an artifact bundle, a member's `url` in `manifest.json` (`~/assets/x.js`: `~` is any scheme and
//! host). A bundle's map is the manifest's `sourcemap` header, else its `sourceMappingURL` resolved inside the
//! archive, else `BUNDLE.map` beside it; by debug ID, the manifest's `debug-id` headers.
//!
//! The artifact bundle's manifest, as sentry-cli writes it (`src/utils/source_bundle.rs`) and symbolicator reads it
//! (`crates/symbolicator-js/src/bundle_index.rs`): `{"files": {"files/_/_/x.js": {"url": "~/x.js", "type":
//! "minified_source" | "source_map" | …, "headers": {"debug-id": "…", "sourcemap": "x.js.map"}}}, …}`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::bundle::locate::{decode_data_url, find_source_mapping_url};
use crate::bundle::resolve::frame_path_parts;
use crate::internal::fs::archive::{Archive, ArchiveError};
use crate::trace::stack::normalize_debug_id;

/// A member is read up to this size (the bundles' and maps' limit elsewhere).
const MAX_MEMBER_BYTES: u64 = 256 << 20;

/// An archive of bundles and maps.
#[derive(Debug)]
pub struct ArchiveStore {
    archive: Archive,
    /// Each member's address: its `url` path (artifact bundles: `~/assets/x.js` → `assets/x.js`), else its path.
    by_address: HashMap<String, String>,
    /// Members by file name, for a frame that gives a bare name.
    by_name: HashMap<String, Vec<String>>,
    /// The manifest's `sourcemap` header of a member, resolved to the map's member.
    maps: HashMap<String, String>,
    /// The manifest's `debug-id` headers: the map's member, and the bundle's.
    by_debug_id: HashMap<String, (Option<String>, Option<String>)>,
}

impl ArchiveStore {
    /// Opens the archive at `path`, reading its directory (and an artifact bundle's manifest).
    pub fn open(path: &Path) -> Result<ArchiveStore, ArchiveError> {
        let archive = Archive::open(path)?;
        let mut by_address: HashMap<String, String> = HashMap::new();
        let mut headers: Vec<ManifestEntry> = Vec::new();
        if archive.has("manifest.json") {
            let bad = |why: String| ArchiveError::Zip {
                path: path.display().to_string(),
                why: format!("its manifest.json {why}"),
            };
            let bytes = archive
                .read("manifest.json", 64 << 20)
                .map_err(|e| bad(format!("cannot be read: {e}")))?;
            let manifest: serde_json::Value =
                serde_json::from_slice(&bytes).map_err(|e| bad(format!("is not JSON: {e}")))?;
            let files = manifest
                .get("files")
                .and_then(|f| f.as_object())
                .ok_or_else(|| bad("has no \"files\" object".into()))?;
            for (member, info) in files {
                let url = info.get("url").and_then(|u| u.as_str());
                let Some(url) = url else {
                    return Err(bad(format!("gives no url for {member}")));
                };
                if !archive.has(member) {
                    return Err(bad(format!("names {member}, which the zip does not hold")));
                }
                let header = |key: &str| {
                    info.get("headers")
                        .and_then(|h| h.as_object())
                        .and_then(|h| h.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)))
                        .and_then(|(_, v)| v.as_str())
                        .map(str::to_string)
                };
                let is_map = info.get("type").and_then(|t| t.as_str()) == Some("source_map");
                let address = url_address(url);
                headers.push(ManifestEntry {
                    member: member.clone(),
                    address: address.clone(),
                    sourcemap: header("sourcemap"),
                    debug_id: header("debug-id"),
                    is_map,
                });
                by_address.insert(address, member.clone());
            }
        } else {
            for m in archive.members() {
                by_address.insert(m.to_string(), m.to_string());
            }
        }
        let mut maps = HashMap::new();
        let mut by_debug_id: HashMap<String, (Option<String>, Option<String>)> = HashMap::new();
        for ManifestEntry {
            member,
            address,
            sourcemap,
            debug_id,
            is_map,
        } in headers
        {
            if let Some(map) = sourcemap.and_then(|s| resolve_inside(&address, &s)) {
                if let Some(m) = by_address.get(&map) {
                    maps.insert(member.clone(), m.clone());
                }
            }
            if let Some(id) = debug_id {
                let entry = by_debug_id.entry(normalize_debug_id(&id)).or_default();
                if is_map {
                    entry.0 = Some(member);
                } else {
                    entry.1 = Some(member);
                }
            }
        }
        let mut by_name: HashMap<String, Vec<String>> = HashMap::new();
        for (address, member) in &by_address {
            let name = address.rsplit('/').next().unwrap_or(address);
            by_name
                .entry(name.to_string())
                .or_default()
                .push(member.clone());
        }
        Ok(ArchiveStore {
            archive,
            by_address,
            by_name,
            maps,
            by_debug_id,
        })
    }

    /// The archive's path.
    pub fn path(&self) -> &Path {
        self.archive.path()
    }

    /// A member as a path: the archive's path joined with it (how frames and messages name it).
    pub fn member_path(&self, member: &str) -> PathBuf {
        self.archive.path().join(member)
    }

    /// The member a frame's file names, and how it was found.
    pub fn bundle_for(&self, file: &str) -> Option<(String, String)> {
        let plain = file.split(['?', '#']).next().unwrap_or(file);
        let parts: Vec<String> = frame_path_parts(plain).unwrap_or_else(|| {
            plain
                .split('/')
                .filter(|p| !p.is_empty() && *p != ".")
                .map(str::to_string)
                .collect()
        });
        let name = self
            .archive
            .path()
            .file_name()?
            .to_string_lossy()
            .into_owned();
        // The path runs through the archive: the rest is the member.
        // (`NAME.asar.unpacked/x` is the member `x` marked unpacked: its map stays in the archive.)
        let unpacked = format!("{name}.unpacked");
        if let Some(i) = parts.iter().rposition(|p| *p == name || *p == unpacked) {
            let inner = parts[i + 1..].join("/");
            if self.archive.has(&inner) {
                return Some((inner, format!("its path through {name}")));
            }
        }
        // The longest tail that is a member's address; a bare name only when one member has it.
        for k in 0..parts.len() {
            let tail = parts[k..].join("/");
            if k + 1 == parts.len() {
                let named = self.by_name.get(&tail)?;
                return (named.len() == 1)
                    .then(|| (named[0].clone(), format!("its name {tail} in {name}")));
            }
            if let Some(m) = self.by_address.get(&tail) {
                return Some((m.clone(), format!("its path's tail {tail} in {name}")));
            }
        }
        None
    }

    /// The map of bundle `member`: its bytes and the member (or `data:` URL) they come from. `None` when the bundle
    /// leads to no map the archive holds.
    pub fn map_of(&self, member: &str) -> Option<(Vec<u8>, String)> {
        if let Some(map) = self.maps.get(member) {
            return Some((self.read(map)?, map.clone()));
        }
        let text = self.read(member)?;
        if let Some((url, _)) = find_source_mapping_url(&text) {
            if url.starts_with("data:") {
                return Some((decode_data_url(url).ok()?, format!("{member}'s inline map")));
            }
            let inner = resolve_inside(member, url)?;
            if self.archive.has(&inner) {
                return Some((self.read(&inner)?, inner));
            }
        }
        let beside = format!("{member}.map");
        self.archive
            .has(&beside)
            .then(|| Some((self.read(&beside)?, beside)))?
    }

    /// The map member with debug ID `id` (normalized), and the bundle member with it when the archive holds one.
    pub fn by_debug_id(&self, id: &str) -> Option<(String, Option<String>)> {
        let (map, bundle) = self.by_debug_id.get(id)?;
        Some((map.clone()?, bundle.clone()))
    }

    /// Member `member`'s bytes.
    pub fn read(&self, member: &str) -> Option<Vec<u8>> {
        self.archive.read(member, MAX_MEMBER_BYTES).ok()
    }
}

/// The archive a frame's path runs through, by name: `NAME.asar` for `…/NAME.asar/x` and `…/NAME.asar.unpacked/x`
/// (Electron's unpacked files keep their maps in the archive). The one rule the CLI and the language server use.
pub fn archive_named_in(file: &str) -> Option<String> {
    let plain = file.split(['?', '#']).next().unwrap_or(file);
    plain.split(['/', '\\']).find_map(|p| {
        let p = p.strip_suffix(".unpacked").unwrap_or(p);
        p.ends_with(".asar").then(|| p.to_string())
    })
}

/// A path through an archive on disk, split: the archive file (`…/app.asar`, a regular file) and the member's path
/// inside it (`out/main/index.js`). `None` when no ancestor of `path` is an archive file.
pub fn archive_member_of(path: &Path) -> Option<(PathBuf, String)> {
    let mut inner: Vec<String> = Vec::new();
    for a in path.ancestors() {
        let name = a.file_name()?.to_string_lossy();
        if (name.ends_with(".asar") || name.ends_with(".zip")) && a.is_file() {
            inner.reverse();
            return (!inner.is_empty()).then(|| (a.to_path_buf(), inner.join("/")));
        }
        inner.push(name.into_owned());
    }
    None
}

/// One file of an artifact bundle's manifest: its member, its address (`url` as a path), its `sourcemap` and
/// `debug-id` headers, whether it is a map.
struct ManifestEntry {
    member: String,
    address: String,
    sourcemap: Option<String>,
    debug_id: Option<String>,
    is_map: bool,
}

/// A manifest `url` as a path: `~/assets/x.js` and `https://host/assets/x.js` are `assets/x.js`.
fn url_address(url: &str) -> String {
    let path = match url.strip_prefix("~/") {
        Some(rest) => rest.to_string(),
        None => frame_path_parts(url).map_or_else(|| url.to_string(), |p| p.join("/")),
    };
    path.trim_start_matches('/').to_string()
}

/// `url` (a `sourceMappingURL` or a `sourcemap` header) resolved against member `from`'s folder inside the archive;
/// `None` when it climbs out of it or is another scheme's.
fn resolve_inside(from: &str, url: &str) -> Option<String> {
    if url.contains("://") {
        return Some(url_address(url));
    }
    let url = url.split(['?', '#']).next().unwrap_or(url);
    let mut parts: Vec<&str> = if url.starts_with('/') {
        Vec::new()
    } else {
        from.split('/').collect::<Vec<_>>()
    };
    if !url.starts_with('/') {
        parts.pop();
    }
    for p in url.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_map_references_resolve_inside_the_archive() {
        assert_eq!(url_address("~/assets/x.js"), "assets/x.js");
        assert_eq!(
            url_address("https://cdn.example.com/assets/x.js"),
            "assets/x.js"
        );
        assert_eq!(
            resolve_inside("assets/x.js", "x.js.map").as_deref(),
            Some("assets/x.js.map")
        );
        assert_eq!(
            resolve_inside("out/main/index.js", "../maps/index.js.map").as_deref(),
            Some("out/maps/index.js.map")
        );
        assert_eq!(resolve_inside("x.js", "../../etc/passwd"), None);
    }
}
