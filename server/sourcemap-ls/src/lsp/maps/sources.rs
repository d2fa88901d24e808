//! Where an original source is, for the editor: a local file, or a virtual document served from `sourcesContent`.
//!
//! The local file is the core's one rule (`sourcemap_core::source::project_file`: the user's `pathOverrides`, then
//! webpack's and Turbopack's names, `file:` URLs, absolute and re-rooted paths, names relative to the map and to the
//! project), kept inside the allowed roots; a guess is taken only where the file is the map's copy. The path the map
//! states is judged afterwards by its text today (`local_sources`, `todays_file`). Otherwise the source is a
//! `sourcemap-source:` virtual document.

use std::path::{Path, PathBuf};

use sourcemap_core::source::project_file::{self, Containment, SourceFolders};
use tower_lsp::lsp_types::Url;

pub use sourcemap_core::source::project_file::normalize;

pub const VIRTUAL_SCHEME: &str = "sourcemap-source";

/// The existing local file for a source URL, if any, and only inside `allowed` roots: a map whose `sources` say
/// `../../../../etc/passwd` must not make the server read or point at that file. `same_text` judges a file that a
/// rule only guesses (it says true where the map carries no copy).
pub fn resolve(
    url: &str,
    map_dir: Option<&Path>,
    overrides: &[(String, String)],
    folders: &[PathBuf],
    allowed: &[PathBuf],
    same_text: impl FnMut(&Path) -> bool,
) -> Option<PathBuf> {
    // Without a workspace folder, the map's directory stands in for `${workspaceFolder}`.
    let projects: Vec<PathBuf> = if folders.is_empty() {
        map_dir.map(Path::to_path_buf).into_iter().collect()
    } else {
        folders.to_vec()
    };
    let source_folders = SourceFolders {
        map_dir,
        bundle_dir: None,
        projects: &projects,
        overrides,
    };
    project_file::find(
        url,
        &source_folders,
        &Containment::new(allowed.iter().cloned()),
        same_text,
    )
    .map(|f| f.spelled)
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
    fn files_outside_the_allowed_roots_are_never_resolved() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join("dist")).unwrap();
        std::fs::write(ws.join("inside.js"), "x").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "x").unwrap();
        let roots = vec![ws.clone()];
        let dist = ws.join("dist");
        assert!(resolve("../inside.js", Some(&dist), &[], &roots, &roots, |_| true).is_some());
        assert_eq!(
            resolve("../../secret.txt", Some(&dist), &[], &roots, &roots, |_| {
                true
            }),
            None
        );
        assert_eq!(
            resolve("/etc/passwd", Some(&dist), &[], &roots, &roots, |_| true),
            None
        );
        // A symlink inside the workspace pointing out of it is outside too.
        std::os::unix::fs::symlink(dir.path().join("secret.txt"), ws.join("link.txt")).unwrap();
        assert_eq!(
            resolve("../link.txt", Some(&dist), &[], &roots, &roots, |_| true),
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
