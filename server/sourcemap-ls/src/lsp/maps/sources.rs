//! Where an original source is, for the editor: a local file, or a virtual document served from `sourcesContent`.
//!
//! Resolution order for a source URL (the `sources` entry with `sourceRoot` applied):
//! 1. path overrides, js-debug style (`*` captures, `?:*` matches one path segment without capturing,
//!    `${workspaceFolder}` in the target): the user's first, then webpack defaults;
//! 2. `file:` URLs;
//! 3. absolute paths: as they are, else re-rooted: Metro writes build-machine paths, so successive suffixes of at
//!    least two components (`app/src/a.js`, then `src/a.js`; never the bare file name) are tried under each
//!    workspace folder;
//! 4. relative URLs, against the map's directory (ECMA-426).
//!
//! The first candidate that is an existing file wins, and then only if its content is the map's text for the source
//! where the map has it (`local_sources`). Otherwise the source is a `sourcemap-source:` virtual document.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use tower_lsp::lsp_types::Url;

/// js-debug's defaults for webpack, which writes `webpack://<namespace>/./src/x.js` relative to its context.
const DEFAULT_OVERRIDES: &[(&str, &str)] = &[
    ("webpack:///./~/*", "${workspaceFolder}/node_modules/*"),
    ("webpack:////*", "/*"),
    ("webpack://?:*/*", "${workspaceFolder}/*"),
];

pub const VIRTUAL_SCHEME: &str = "sourcemap-source";

/// Lexically removes `.` and `..` components.
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The regular expression of an override pattern, compiled once per pattern (symbolicating a long log resolves
/// thousands of sources; building the expressions dominated it). Shared behind an `Arc`: a cloned `Regex` gets a
/// pool of its own, and building a search cache on every call was then 3 % of a 20,000-frame log.
fn override_regex(pattern: &str) -> Option<Arc<regex::Regex>> {
    static COMPILED: Mutex<Option<HashMap<String, Option<Arc<regex::Regex>>>>> = Mutex::new(None);
    let mut compiled = COMPILED.lock().expect("override regex lock");
    let compiled = compiled.get_or_insert_with(HashMap::new);
    if let Some(re) = compiled.get(pattern) {
        return re.clone();
    }
    // Settings can change many times in a session; the table stays small.
    if compiled.len() > 256 {
        compiled.clear();
    }
    let re = compile_override(pattern).map(Arc::new);
    compiled.insert(pattern.to_string(), re.clone());
    re
}

fn compile_override(pattern: &str) -> Option<regex::Regex> {
    let mut re = String::from("^");
    let mut rest = pattern;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("?:*") {
            re.push_str("[^/]*");
            rest = r;
        } else if let Some(r) = rest.strip_prefix('*') {
            re.push_str("(.*)");
            rest = r;
        } else {
            let c = rest.chars().next().expect("non-empty");
            re.push_str(&regex::escape(&c.to_string()));
            rest = &rest[c.len_utf8()..];
        }
    }
    re.push('$');
    regex::Regex::new(&re).ok()
}

/// Applies one js-debug style override; empty when the pattern does not match.
fn apply_override(pattern: &str, target: &str, url: &str, folders: &[PathBuf]) -> Vec<String> {
    let Some(re) = override_regex(pattern) else {
        return Vec::new();
    };
    let Some(caps) = re.captures(url) else {
        return Vec::new();
    };
    let captured = caps.get(1).map_or("", |m| m.as_str());
    let substituted = target.replacen('*', captured, 1);
    if substituted.contains("${workspaceFolder}") {
        folders
            .iter()
            .map(|f| substituted.replace("${workspaceFolder}", &f.to_string_lossy()))
            .collect()
    } else {
        vec![substituted]
    }
}

/// Candidate local paths for a source URL, best first.
pub fn candidates(
    url: &str,
    map_dir: Option<&Path>,
    overrides: &[(String, String)],
    folders: &[PathBuf],
) -> Vec<PathBuf> {
    let mut out = Vec::new();
    // Without a workspace folder, the map's directory stands in for `${workspaceFolder}`.
    let folders: Vec<PathBuf> = if folders.is_empty() {
        map_dir.map(Path::to_path_buf).into_iter().collect()
    } else {
        folders.to_vec()
    };
    let user = overrides.iter().map(|(p, t)| (p.as_str(), t.as_str()));
    for (pattern, target) in user.chain(DEFAULT_OVERRIDES.iter().copied()) {
        out.extend(
            apply_override(pattern, target, url, &folders)
                .into_iter()
                .map(|p| normalize(Path::new(&p))),
        );
    }
    if url.starts_with("file:") {
        if let Some(p) = Url::parse(url).ok().and_then(|u| u.to_file_path().ok()) {
            out.push(normalize(&p));
        }
    } else if url.starts_with('/') {
        let p = normalize(Path::new(url));
        out.push(p.clone());
        // Suffixes of at least two components: a bare file name (`index.js`) names too many files to be trusted.
        let parts: Vec<_> = p.components().skip(1).collect();
        for skip in 1..parts.len().saturating_sub(1) {
            let suffix: PathBuf = parts[skip..].iter().collect();
            for f in &folders {
                out.push(f.join(&suffix));
            }
        }
    } else if !url.contains("://") {
        if let Some(dir) = map_dir {
            out.push(normalize(&dir.join(url)));
        }
    }
    out
}

/// Whether `path` (an existing file) lies inside one of `roots`, symlinks resolved.
pub fn inside(path: &Path, roots: &[PathBuf]) -> bool {
    let Ok(real) = std::fs::canonicalize(path) else {
        return false;
    };
    roots
        .iter()
        .filter_map(|r| std::fs::canonicalize(r).ok())
        .any(|r| real.starts_with(r))
}

/// The existing local file for a source URL, if any, and only inside `allowed` roots: a map whose `sources` say
/// `../../../../etc/passwd` must not make the server read or point at that file.
pub fn resolve(
    url: &str,
    map_dir: Option<&Path>,
    overrides: &[(String, String)],
    folders: &[PathBuf],
    allowed: &[PathBuf],
) -> Option<PathBuf> {
    candidates(url, map_dir, overrides, folders)
        .into_iter()
        .find(|p| p.is_file() && inside(p, allowed))
}

/// A readable path for a virtual document: the URL without its scheme and leading `./` or `../`, so the editor shows
/// a sensible name and picks the language by extension.
pub fn display_path(url: Option<&str>, id: u32) -> String {
    let Some(url) = url else {
        return format!("/source-{id}.js");
    };
    let without_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let mut p = without_scheme.trim_start_matches('/');
    loop {
        if let Some(r) = p.strip_prefix("./") {
            p = r;
        } else if let Some(r) = p.strip_prefix("../") {
            p = r;
        } else {
            break;
        }
    }
    format!("/{p}")
}

/// `sourcemap-source:///<display path>?map=<map key>&source=<id>`.
pub fn virtual_uri(map_key: &str, source: u32, url: Option<&str>) -> Url {
    let path: String =
        percent_encoding::utf8_percent_encode(&display_path(url, source), PATH_SET).collect();
    let key: String = percent_encoding::utf8_percent_encode(map_key, QUERY_SET).collect();
    // `scheme:///path`: editors such as Neovim only take a buffer name for a URI when it has `://`.
    Url::parse(&format!(
        "{VIRTUAL_SCHEME}://{path}?map={key}&source={source}"
    ))
    .expect("valid URI")
}

/// The map key and source id of a `sourcemap-source:` URI, and its display path.
pub fn parse_virtual_uri(uri: &Url) -> Option<(String, u32, String)> {
    if uri.scheme() != VIRTUAL_SCHEME {
        return None;
    }
    let mut map = None;
    let mut source = None;
    for (k, v) in uri.query_pairs() {
        match &*k {
            "map" => map = Some(v.into_owned()),
            "source" => source = v.parse().ok(),
            _ => {}
        }
    }
    let path = percent_encoding::percent_decode_str(uri.path())
        .decode_utf8_lossy()
        .into_owned();
    Some((map?, source?, path))
}

/// Whether a virtual document's path still names this source (after a map is rebuilt, ids may move).
pub fn virtual_path_matches(path: &str, url: Option<&str>, id: u32) -> bool {
    display_path(url, id) == path
}

const PATH_SET: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'?')
    .add(b'#')
    .add(b'%')
    .add(b'"');
const QUERY_SET: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'/')
    .remove(b'.')
    .remove(b'-')
    .remove(b'_');

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn webpack_defaults_and_overrides() {
        let ws = vec![PathBuf::from("/ws")];
        let c = candidates("webpack:///./src/a.js", None, &[], &ws);
        assert!(c.contains(&PathBuf::from("/ws/src/a.js")), "{c:?}");
        let c = candidates("webpack://app/./src/a.js", None, &[], &ws);
        assert!(c.contains(&PathBuf::from("/ws/src/a.js")), "{c:?}");
        let c = candidates("webpack:///./~/lodash/x.js", None, &[], &ws);
        assert_eq!(c[0], PathBuf::from("/ws/node_modules/lodash/x.js"));
        let user = vec![("meteor://app/*".to_string(), "/srv/*".to_string())];
        assert_eq!(
            candidates("meteor://app/b.js", None, &user, &ws)[0],
            PathBuf::from("/srv/b.js")
        );
    }

    #[test]
    fn relative_absolute_and_build_machine_paths() {
        let ws = vec![PathBuf::from("/ws")];
        let c = candidates("../src/a.js", Some(Path::new("/ws/dist")), &[], &ws);
        assert_eq!(c, vec![PathBuf::from("/ws/src/a.js")]);
        let c = candidates("../src/a.js", Some(Path::new("/ws/dist")), &[], &ws);
        assert_eq!(c, vec![PathBuf::from("/ws/src/a.js")]);
        let c = candidates("/home/ci/build/app/src/a.js", None, &[], &ws);
        assert_eq!(c[0], PathBuf::from("/home/ci/build/app/src/a.js"));
        assert!(c.contains(&PathBuf::from("/ws/src/a.js")));
        assert!(c.contains(&PathBuf::from("/ws/app/src/a.js")));
        // Never the bare file name: `/ws/a.js` would be any `a.js`.
        assert!(!c.contains(&PathBuf::from("/ws/a.js")), "{c:?}");
        assert_eq!(
            candidates("file:///x/y.ts", None, &[], &ws),
            vec![PathBuf::from("/x/y.ts")]
        );
    }

    #[test]
    fn files_outside_the_allowed_roots_are_never_resolved() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join("dist")).unwrap();
        std::fs::write(ws.join("inside.js"), "x").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "x").unwrap();
        let roots = vec![ws.clone()];
        let dist = ws.join("dist");
        assert!(resolve("../inside.js", Some(&dist), &[], &roots, &roots).is_some());
        assert_eq!(
            resolve("../../secret.txt", Some(&dist), &[], &roots, &roots),
            None
        );
        assert_eq!(
            resolve("/etc/passwd", Some(&dist), &[], &roots, &roots),
            None
        );
        // A symlink inside the workspace pointing out of it is outside too.
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), ws.join("link.txt")).unwrap();
        assert_eq!(
            resolve("../link.txt", Some(&dist), &[], &roots, &roots),
            None
        );
    }

    #[test]
    fn virtual_uris_round_trip() {
        let uri = virtual_uri(
            "file:/w/dist/app.js.map",
            2,
            Some("webpack:///./src/sécret file.ts"),
        );
        assert_eq!(uri.scheme(), VIRTUAL_SCHEME);
        let (map, id, path) = parse_virtual_uri(&uri).unwrap();
        assert_eq!(
            (map.as_str(), id, path.as_str()),
            ("file:/w/dist/app.js.map", 2, "/src/sécret file.ts")
        );
        assert!(virtual_path_matches(
            &path,
            Some("webpack:///./src/sécret file.ts"),
            2
        ));
        assert!(!virtual_path_matches(&path, Some("other.ts"), 2));
    }
}
