//! Finding a bundle's source map: the `sourceMappingURL` comment (a path, a `file:` URL or a `data:` URL), else the
//! sidecar `BUNDLE.map`. Also the `debugId` comment that pairs a bundle with its map.
//!
//! Conventions: the comment is `//# sourceMappingURL=URL` (or the old `//@`, or CSS's `/*# … */`) on one of the last
//! non-empty lines of the bundle; a relative URL is resolved against the bundle's directory, without its query or
//! fragment. Remote URLs are never fetched here.

use std::path::{Path, PathBuf};

use base64::Engine;

/// How many trailing non-empty lines may hold the comment (a `//# debugId=` line often follows it).
const TRAILING_LINES: usize = 5;

/// Where a map came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MapOrigin {
    /// A map file on disk.
    File(PathBuf),
    /// Inline in the bundle, as a `data:` URL.
    DataUrl {
        /// The bundle the map was inline in.
        bundle: PathBuf,
    },
}

impl MapOrigin {
    /// The file a map's offsets are in, as errors name it: the map, or `the inline map of BUNDLE`.
    pub fn named(&self) -> String {
        match self {
            MapOrigin::File(map) => map.display().to_string(),
            MapOrigin::DataUrl { bundle } => format!("the inline map of {}", bundle.display()),
        }
    }
}

/// A map's bytes and where they came from.
#[derive(Debug, Clone)]
pub struct MapBytes {
    /// The map file's bytes, or the decoded `data:` URL.
    pub bytes: Vec<u8>,
    /// Where they came from.
    pub origin: MapOrigin,
}

/// How much of a bundle's end is read for its trailing comments (`sourceMappingURL`, `debugId`): Metro and webpack
/// write them on the last lines, after at most a few kilobytes of other comments.
pub const TAIL_BYTES: u64 = 64 << 10;

/// The most of a bundle's end read to find where its trailing comments start: an inline `data:` map is one line as
/// long as the map's base64 (a third more than the map), and maps are read up to 512 MB.
pub const MAX_TAIL_BYTES: u64 = 768 << 20;

/// The end of the bundle at `path` that holds its trailing comments: its last [`TAIL_BYTES`], or more where the
/// comment lines start before them (an inline `data:` map in a bundle larger than the window: its line is read
/// whole, so the comment is found, not cut).
pub fn bundle_tail(path: &Path) -> Option<Vec<u8>> {
    let mut window = TAIL_BYTES;
    loop {
        let (tail, whole) = crate::fs::files::read_tail(path, window).ok()?;
        if whole || window >= MAX_TAIL_BYTES || !cuts_a_data_url(&tail) {
            return Some(tail);
        }
        window = (window * 8).min(MAX_TAIL_BYTES);
    }
}

/// Whether the window `tail` starts inside an inline `data:` map's line: no complete trailing line holds a
/// `sourceMappingURL`, and the cut line (one of the last [`TRAILING_LINES`]) is nothing but base64 where the window
/// starts (a minified bundle's code line has punctuation in any 64 KiB).
fn cuts_a_data_url(tail: &[u8]) -> bool {
    if find_source_mapping_url(tail)
        .is_some_and(|(_, at)| memchr::memrchr(b'\n', &tail[..at]).is_some())
    {
        return false;
    }
    let mut end = tail.len();
    let mut seen = 0;
    while seen < TRAILING_LINES && end > 0 {
        let Some(newline) = memchr::memrchr(b'\n', &tail[..end]) else {
            let cut = tail[..end].trim_ascii();
            return !cut.is_empty()
                && cut.iter().all(|&b| {
                    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'-' | b'_')
                });
        };
        if !tail[newline + 1..end].trim_ascii().is_empty() {
            seen += 1;
        }
        end = newline;
    }
    false
}

/// The value of the last `sourceMappingURL` comment and its byte offset in `text`.
pub fn find_source_mapping_url(text: &[u8]) -> Option<(&str, usize)> {
    find_trailing_comment(text, "sourceMappingURL=")
}

/// The value of a trailing `//# debugId=` comment.
pub fn find_debug_id(text: &[u8]) -> Option<&str> {
    find_trailing_comment(text, "debugId=").map(|(v, _)| v)
}

fn find_trailing_comment<'a>(text: &'a [u8], key: &str) -> Option<(&'a str, usize)> {
    let mut end = text.len();
    let mut seen = 0;
    while seen < TRAILING_LINES && end > 0 {
        let start = memchr::memrchr(b'\n', &text[..end]).map_or(0, |i| i + 1);
        let line = &text[start..end];
        end = start.saturating_sub(1);
        let Ok(line_str) = std::str::from_utf8(line) else {
            seen += 1;
            continue;
        };
        let trimmed = line_str.trim();
        if trimmed.is_empty() {
            continue;
        }
        seen += 1;
        let body = trimmed
            .strip_prefix("//#")
            .or_else(|| trimmed.strip_prefix("//@"))
            .or_else(|| {
                trimmed
                    .strip_prefix("/*#")
                    .map(|b| b.trim_end_matches("*/"))
            })
            .or_else(|| {
                trimmed
                    .strip_prefix("/*@")
                    .map(|b| b.trim_end_matches("*/"))
            });
        let Some(body) = body else { continue };
        let body = body.trim_start();
        if let Some(value) = body.strip_prefix(key) {
            let value = value.split_whitespace().next().unwrap_or("");
            if value.is_empty() {
                continue;
            }
            let offset = start + (value.as_ptr() as usize - line_str.as_ptr() as usize);
            return Some((value, offset));
        }
    }
    None
}

/// Why a `data:` URL's payload could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DataUrlError {
    /// The URL does not start with `data:`.
    #[error("not a data: URL")]
    NotADataUrl,
    /// No `,` separates the media type from the payload.
    #[error("data: URL without ',' before its payload")]
    NoPayload,
    /// A `;base64` payload that is not base64 (with or without padding).
    #[error("invalid base64 in data: URL: {0}")]
    Base64(base64::DecodeError),
}

/// Why a map could not be loaded from a path (the map itself, or a bundle that leads to it).
#[derive(Debug, Clone, thiserror::Error)]
pub enum LoadMapError {
    /// The file could not be read.
    #[error("cannot read {}: {error}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::sync::Arc<std::io::Error>,
    },
    /// The path is a bundle, and no map of it was found.
    #[error("{0}")]
    NoMap(NoBundleMap),
}

impl LoadMapError {
    fn unreadable(path: &Path) -> impl FnOnce(std::io::Error) -> LoadMapError + '_ {
        move |error| LoadMapError::Unreadable {
            path: path.to_path_buf(),
            error: std::sync::Arc::new(error),
        }
    }
}

/// Decodes a `data:` URL's payload (`;base64` or percent-encoded). Any media type is accepted: tools write
/// `application/json`, `application/json;charset=utf-8`, `text/plain` and none at all.
pub fn decode_data_url(url: &str) -> Result<Vec<u8>, DataUrlError> {
    let rest = url.strip_prefix("data:").ok_or(DataUrlError::NotADataUrl)?;
    let (meta, data) = rest.split_once(',').ok_or(DataUrlError::NoPayload)?;
    if meta
        .split(';')
        .any(|p| p.trim().eq_ignore_ascii_case("base64"))
    {
        let cleaned: Vec<u8> = data.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        base64::engine::general_purpose::STANDARD
            .decode(&cleaned)
            .or_else(|_| base64::engine::general_purpose::STANDARD_NO_PAD.decode(&cleaned))
            .map_err(DataUrlError::Base64)
    } else {
        Ok(percent_encoding::percent_decode_str(data).collect())
    }
}

/// Whether `bytes` look like a source map rather than a bundle: JSON object after a BOM and `)]}'` line.
pub fn looks_like_map(bytes: &[u8]) -> bool {
    let start = crate::map::parse::document_start(bytes);
    bytes[start..]
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'{')
}

/// Whether `text` is a JSON document (an object or an array, and nothing after it) rather than code: a profile, a
/// crash report, a heap snapshot, a coverage trace or a map. Such a file is never the generated file a map
/// describes, even where the naming says so (Metro's tooling names a profile's map `rec.cpuprofile.map`, which makes
/// `rec.cpuprofile` its sidecar bundle): the fit check and the function names from code judge bundles' text only.
/// A bundle that starts with `{` or `[` is JavaScript that JSON does not parse (a block, an array expression followed
/// by a call), so only those two first characters cost a parse.
pub fn is_json_document(text: &[u8]) -> bool {
    let start = text
        .strip_prefix(b"\xEF\xBB\xBF".as_slice())
        .map_or(0, |_| 3);
    let first = text[start..].iter().find(|b| !b.is_ascii_whitespace());
    if !matches!(first, Some(b'{' | b'[')) {
        return false;
    }
    serde_json::from_slice::<serde::de::IgnoredAny>(&text[start..]).is_ok()
}

/// Resolves a `sourceMappingURL` value against the bundle's path. `Ok(None)` for URLs that are not local files.
pub fn resolve_map_url(bundle: &Path, url: &str) -> Option<PathBuf> {
    if url.starts_with("file:") {
        return url::Url::parse(url).ok()?.to_file_path().ok();
    }
    if url.contains("://") {
        return None;
    }
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let path = percent_encoding::percent_decode_str(path)
        .decode_utf8()
        .ok()?;
    let p = Path::new(&*path);
    Some(if p.is_absolute() {
        p.to_path_buf()
    } else {
        bundle.parent().unwrap_or(Path::new("")).join(p)
    })
}

/// Whether a bundle at `bundle` whose text is `text` leads to the map file `map`: its `sourceMappingURL` names that
/// file, or it has none and `map` is its sidecar (`BUNDLE.map`, `sidecars`). Only then is its text the code `map`
/// describes (an old build beside a new one is not).
pub fn bundle_leads_to_map(bundle: &Path, text: &[u8], map: &Path) -> bool {
    let same =
        |p: &Path| p == map || std::fs::canonicalize(p).ok() == std::fs::canonicalize(map).ok();
    match find_source_mapping_url(text) {
        Some((url, _)) => resolve_map_url(bundle, url).is_some_and(|p| same(&p)),
        None => {
            let sides = sidecars(bundle);
            let first = sides.iter().find(|p| p.is_file()).unwrap_or(&sides[0]);
            same(first)
        }
    }
}

/// Loads the map at `path`, or the map of the bundle at `path`.
pub fn load_map(path: &Path) -> Result<MapBytes, LoadMapError> {
    let bytes =
        crate::fs::files::read_regular(path, u64::MAX).map_err(LoadMapError::unreadable(path))?;
    // A `.map` file is a map whatever it holds: a broken one must be reported as a broken map.
    if looks_like_map(&bytes) || path.extension().is_some_and(|e| e == "map") {
        return Ok(MapBytes {
            bytes,
            origin: MapOrigin::File(path.to_path_buf()),
        });
    }
    load_map_for_bundle(path, &bytes)
}

/// Finds and loads the map of a bundle whose text is `bundle_text`.
pub fn load_map_for_bundle(bundle: &Path, bundle_text: &[u8]) -> Result<MapBytes, LoadMapError> {
    let found = find_bundle_map(bundle, bundle_text, u64::MAX).map_err(LoadMapError::NoMap)?;
    match found.map {
        BundleMapRef::Inline(bytes) => Ok(MapBytes {
            bytes,
            origin: MapOrigin::DataUrl {
                bundle: bundle.to_path_buf(),
            },
        }),
        BundleMapRef::File(p) => Ok(MapBytes {
            bytes: crate::fs::files::read_regular(&p, u64::MAX)
                .map_err(LoadMapError::unreadable(&p))?,
            origin: MapOrigin::File(p),
        }),
    }
}

/// The map a bundle names, before any map file is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BundleMapRef {
    /// A regular file (it existed when looked for).
    File(PathBuf),
    /// The decoded bytes of an inline `data:` URL.
    Inline(Vec<u8>),
}

/// How a bundle's map was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FoundBy {
    /// The bundle's `sourceMappingURL` comment named a file.
    SourceMappingUrl,
    /// The bundle's `sourceMappingURL` comment held the map, as a `data:` URL.
    DataUrl,
    /// A file beside the bundle (`BUNDLE.map`, or a script's name with `.map` for its extension).
    Sidecar,
}

impl FoundBy {
    /// How it was found, as messages say it (`sourceMappingURL`, `data: URL`, `sidecar`).
    pub fn describe(self) -> &'static str {
        match self {
            FoundBy::SourceMappingUrl => "sourceMappingURL",
            FoundBy::DataUrl => "data: URL",
            FoundBy::Sidecar => "sidecar",
        }
    }
}

/// A bundle's map as [`find_bundle_map`] found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundMap {
    /// The map: a file, or the inline bytes.
    pub map: BundleMapRef,
    /// How it was found.
    pub found_by: FoundBy,
    /// Byte offset and length of the `sourceMappingURL` value in the text searched, when it named the map.
    pub url_at: Option<(usize, usize)>,
}

/// Why a bundle has no usable map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoBundleMap {
    /// The `data:` URL cannot be decoded.
    BadDataUrl {
        /// Why decoding failed.
        error: DataUrlError,
        /// Byte offset and length of the `sourceMappingURL` value in the text searched.
        url_at: (usize, usize),
    },
    /// The inline map is bigger than allowed.
    InlineTooBig {
        /// The decoded map's size.
        bytes: u64,
        /// The most allowed inline.
        limit: u64,
        /// Byte offset and length of the `sourceMappingURL` value in the text searched.
        url_at: (usize, usize),
    },
    /// Nothing usable at any of the places tried (each with why); `url_at` when a comment named one of them.
    NotFound {
        /// The bundle whose map was looked for.
        bundle: PathBuf,
        /// Each place tried, in order, with why it did not serve.
        tried: Vec<String>,
        /// Byte offset and length of the `sourceMappingURL` value in the text searched, when there was one.
        url_at: Option<(usize, usize)>,
    },
}

impl NoBundleMap {
    /// Where the `sourceMappingURL` value is, when the problem is about it.
    pub fn url_at(&self) -> Option<(usize, usize)> {
        match self {
            NoBundleMap::BadDataUrl { url_at, .. } | NoBundleMap::InlineTooBig { url_at, .. } => {
                Some(*url_at)
            }
            NoBundleMap::NotFound { url_at, .. } => *url_at,
        }
    }
}

impl std::fmt::Display for NoBundleMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoBundleMap::BadDataUrl { error, .. } => write!(f, "sourceMappingURL: {error}"),
            NoBundleMap::InlineTooBig { bytes, limit, .. } => {
                write!(
                    f,
                    "the inline map is {bytes} bytes, above the limit of {limit}"
                )
            }
            NoBundleMap::NotFound { bundle, tried, .. } => write!(
                f,
                "no source map found for {}: tried {}",
                bundle.display(),
                tried.join(", ")
            ),
        }
    }
}

/// Finds the map of the bundle at `bundle` from `text`, the bundle's text or at least its last lines (offsets in
/// the answer are into `text`): the `sourceMappingURL` comment (a `data:` URL up to `max_inline_bytes` decoded, or a
/// local path that is a regular file), else the sidecar `BUNDLE.map`.
pub fn find_bundle_map(
    bundle: &Path,
    text: &[u8],
    max_inline_bytes: u64,
) -> Result<FoundMap, NoBundleMap> {
    let mut tried = Vec::new();
    let named = find_source_mapping_url(text);
    if named.is_none() {
        tried.push("a sourceMappingURL comment (none in the bundle's last lines)".to_string());
    }
    let url_at = named.map(|(url, at)| (at, url.len()));
    if let (Some((url, _)), Some(url_at)) = (named, url_at) {
        if url.starts_with("data:") {
            let bytes =
                decode_data_url(url).map_err(|error| NoBundleMap::BadDataUrl { error, url_at })?;
            if bytes.len() as u64 > max_inline_bytes {
                return Err(NoBundleMap::InlineTooBig {
                    bytes: bytes.len() as u64,
                    limit: max_inline_bytes,
                    url_at,
                });
            }
            return Ok(FoundMap {
                map: BundleMapRef::Inline(bytes),
                found_by: FoundBy::DataUrl,
                url_at: Some(url_at),
            });
        }
        match resolve_map_url(bundle, url) {
            Some(p) => match why_not_a_file(&p) {
                None => {
                    return Ok(FoundMap {
                        map: BundleMapRef::File(p),
                        found_by: FoundBy::SourceMappingUrl,
                        url_at: Some(url_at),
                    })
                }
                Some(why) => tried.push(format!("{} (from sourceMappingURL: {why})", p.display())),
            },
            None => tried.push(format!(
                "{url} (not a local file; remote maps are not fetched)"
            )),
        }
    }
    for side in sidecars(bundle) {
        match why_not_a_file(&side) {
            None => {
                return Ok(FoundMap {
                    map: BundleMapRef::File(side),
                    found_by: FoundBy::Sidecar,
                    url_at: None,
                })
            }
            Some(why) => tried.push(format!("{} ({why})", side.display())),
        }
    }
    Err(NoBundleMap::NotFound {
        bundle: bundle.to_path_buf(),
        tried,
        url_at,
    })
}

/// Where a bundle's map may sit beside it, in order: `BUNDLE.map` (every bundler's default), then, for a script,
/// its name with `.map` for its extension (`jquery.min.map` beside `jquery.min.js`: jQuery's builds since 1.9,
/// bytebuffer's, long's and protobuf.js 5's, none of which name their map in a comment).
fn sidecars(bundle: &Path) -> Vec<PathBuf> {
    let mut side = bundle.as_os_str().to_owned();
    side.push(".map");
    let mut out = vec![PathBuf::from(side)];
    if bundle
        .extension()
        .is_some_and(|e| matches!(e.to_str(), Some("js" | "cjs" | "mjs")))
    {
        out.push(bundle.with_extension("map"));
    }
    out
}

/// The file names a map's own file name gives the generated file it describes, first the plain one: `X.map`
/// describes `X`; and React Native's Gradle plugin names a Hermes build's two maps after the bundle both describe
/// (react-native `packages/gradle-plugin/react-native-gradle-plugin/src/main/kotlin/com/facebook/react/tasks/
/// BundleHermesCTask.kt`: `resolvePackagerSourceMapFile`, `resolveCompilerSourceMap`): `NAME.packager.map`, Metro's
/// map of the JavaScript bundle `NAME`, and `NAME.compiler.map`, hermesc's map of the bytecode, which replaces the
/// JavaScript under the name `NAME` (`bytecodeFile.moveTo(bundleFile)`; `fixtures/hermes-compile/README.md`). A name
/// without `.map` gives none.
pub fn bundle_names_of_map(map_file_name: &str) -> Vec<&str> {
    let Some(plain) = map_file_name.strip_suffix(".map") else {
        return Vec::new();
    };
    let gradle = [".packager", ".compiler"]
        .iter()
        .find_map(|kind| plain.strip_suffix(kind))
        .filter(|name| !name.is_empty());
    std::iter::once(plain).chain(gradle).collect()
}

/// Why `path` cannot be a map file, or `None` when it is a regular file (symlinks followed).
fn why_not_a_file(path: &Path) -> Option<String> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => None,
        Ok(m) if m.is_dir() => Some("a directory".into()),
        Ok(_) => Some("not a regular file".into()),
        Err(e) => Some(e.to_string()),
    }
}

/// The path segments of a frame's file as a path to look for under a root, when its form says where it was and not
/// here: a URL of any scheme with a path, decoded (`http(s)://`, and the forms Sentry's SDKs and runtimes write:
/// `app:///index.android.bundle` by React Native and Electron, `capacitor://localhost/main.js`,
/// `webpack-internal:///./src/app.js`), Sentry's release-relative `~/static/app.js` (its artifact names: `~` is any
/// host), an absolute path of another machine or a container (`/usr/src/app/dist/main.js`), or a Windows path
/// (`C:\build\dist\app.js`), or a `file:` URL of another machine (Node's ESM, Electron). `.` segments dropped, `..`
/// taken back; `None` for a relative path (it is tried under the roots as it is).
pub fn frame_path_parts(file: &str) -> Option<Vec<String>> {
    let plain = |p: &str| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for part in p.split(['/', '\\']) {
            match part {
                "" | "." => {}
                ".." => {
                    out.pop();
                }
                _ => out.push(part.to_string()),
            }
        }
        out
    };
    if let Some(rest) = file.strip_prefix("~/") {
        return Some(plain(rest.split(['?', '#']).next().unwrap_or(rest)));
    }
    let windows = file.len() > 2
        && file.as_bytes()[0].is_ascii_alphabetic()
        && file.as_bytes()[1] == b':'
        && matches!(file.as_bytes()[2], b'\\' | b'/');
    if windows {
        return Some(plain(&file[3..]));
    }
    if let Some(unc) = file.strip_prefix("\\\\") {
        // \\server\share\dir\app.js: the server and share are not folders of the build.
        return Some(plain(unc).into_iter().skip(2).collect());
    }
    if file.starts_with('/') {
        return Some(plain(file.split(['?', '#']).next().unwrap_or(file)));
    }
    if !file.contains("://") {
        return None;
    }
    let url = url::Url::parse(file).ok()?;
    let decoded: Vec<String> = url
        .path_segments()?
        .map(|p| {
            percent_encoding::percent_decode_str(p)
                .decode_utf8_lossy()
                .into_owned()
        })
        .collect();
    let mut parts = plain(&decoded.join("/"));
    // `file:///C:/build/app.js`: the drive is no folder of the build.
    if url.scheme() == "file"
        && parts
            .first()
            .is_some_and(|d| d.len() == 2 && d.ends_with(':'))
    {
        parts.remove(0);
    }
    Some(parts)
}

/// metro-symbolicate's directory of maps (`Symbolication.js`, `DirectorySymbolicationContext`): the map of the file a
/// frame prints as `file` is `DIR/FILE.map`, `FILE` resolved against `dir`, and never a file outside `dir`: its real
/// path (symlinks and `..` resolved) must lie under `dir`'s (metro-symbolicate checks the path only, so a symlink
/// leads it out). A file printed as a URL or another machine's path (`https://host/assets/x.js`, `app:///out/x.js`,
/// `file:///…/app.asar/out/x.js`: maps kept apart from a web or Electron build) is looked for by the tails of its path,
/// longest first (`DIR/assets/x.js.map`, then `DIR/x.js.map`), as the roots look for an absent bundle's map
/// (`bundle::resolve`). `None`: no such map inside `dir`.
pub fn map_in_directory(dir: &Path, file: &str) -> Option<PathBuf> {
    let inside = |rel: &str| {
        let mut candidate = dir.join(rel).into_os_string();
        candidate.push(".map");
        let real = std::fs::canonicalize(&candidate).ok()?;
        let dir = std::fs::canonicalize(dir).ok()?;
        (real.starts_with(&dir) && real.is_file()).then_some(real)
    };
    let plain = file.split(['?', '#']).next().unwrap_or(file);
    if !plain.contains("://") {
        if let Some(found) = inside(plain.strip_prefix("file://").unwrap_or(plain)) {
            return Some(found);
        }
    }
    let parts = frame_path_parts(file)?;
    (0..parts.len()).find_map(|k| inside(&parts[k..].join("/")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_maps_name_names_its_bundle_and_gradles_two_maps_name_theirs() {
        assert_eq!(bundle_names_of_map("app.js.map"), ["app.js"]);
        assert_eq!(
            bundle_names_of_map("index.android.bundle.packager.map"),
            ["index.android.bundle.packager", "index.android.bundle"]
        );
        assert_eq!(
            bundle_names_of_map("index.android.bundle.compiler.map"),
            ["index.android.bundle.compiler", "index.android.bundle"]
        );
        assert_eq!(bundle_names_of_map(".compiler.map"), [".compiler"]);
        assert!(bundle_names_of_map("app.js").is_empty());
    }

    #[test]
    fn json_documents_are_not_code() {
        for json in [
            &b"{\"samples\":[],\"stackFrames\":{}}"[..],
            b"  [1, 2]\n",
            b"\xEF\xBB\xBF{\"nodes\":[]}",
        ] {
            assert!(
                is_json_document(json),
                "{:?}",
                String::from_utf8_lossy(json)
            );
        }
        for code in [
            &b"{ let a = 1; }\n//# sourceMappingURL=a.js.map"[..],
            b"[1, 2].forEach(f)",
            b"(()=>{})()",
            b"",
        ] {
            assert!(
                !is_json_document(code),
                "{:?}",
                String::from_utf8_lossy(code)
            );
        }
    }

    #[test]
    fn finds_the_comment_in_the_last_lines() {
        let text = b"var a=1;\n//# sourceMappingURL=app.js.map\n//# debugId=85314830-023f-4cf1-a267-535f4e37bb17\n\n";
        assert_eq!(
            find_source_mapping_url(text).map(|(u, _)| u),
            Some("app.js.map")
        );
        assert_eq!(
            find_debug_id(text),
            Some("85314830-023f-4cf1-a267-535f4e37bb17")
        );
        let (_, at) = find_source_mapping_url(text).unwrap();
        assert_eq!(&text[at..at + 10], b"app.js.map");
        assert_eq!(
            find_source_mapping_url(b"x\n//@ sourceMappingURL=old.map").map(|(u, _)| u),
            Some("old.map")
        );
        assert_eq!(
            find_source_mapping_url(b"a{}\n/*# sourceMappingURL=s.css.map */").map(|(u, _)| u),
            Some("s.css.map")
        );
        assert_eq!(find_source_mapping_url(b"var sourceMappingURL=1;"), None);
    }

    #[test]
    fn data_urls() {
        let json = br#"{"version":3}"#;
        let b64 = base64::engine::general_purpose::STANDARD.encode(json);
        for prefix in [
            "data:application/json;base64,",
            "data:application/json;charset=utf-8;base64,",
            "data:application/json;charset:utf-8;base64,",
        ] {
            assert_eq!(decode_data_url(&format!("{prefix}{b64}")).unwrap(), json);
        }
        assert_eq!(
            decode_data_url("data:application/json,%7B%7D").unwrap(),
            b"{}"
        );
        assert!(decode_data_url("data:application/json;base64,!!!").is_err());
    }

    #[test]
    fn a_directory_of_maps_answers_a_url_by_its_paths_tails_inside_it_only() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("sourcemaps");
        std::fs::create_dir_all(dir.join("assets")).unwrap();
        std::fs::write(dir.join("assets/x.js.map"), "{}").unwrap();
        std::fs::write(dir.join("x.js.map"), "{}").unwrap();
        std::fs::write(tmp.path().join("y.js.map"), "{}").unwrap();
        let real = |p: &str| std::fs::canonicalize(dir.join(p)).unwrap();
        // The longest tail first; a bare name as metro-symbolicate spells it.
        for (file, want) in [
            (
                "https://cdn.example.com/static/assets/x.js?v=2",
                Some("assets/x.js.map"),
            ),
            ("app:///assets/x.js", Some("assets/x.js.map")),
            (
                "file:///opt/App/resources/app.asar/out/x.js",
                Some("x.js.map"),
            ),
            ("x.js", Some("x.js.map")),
            ("https://cdn.example.com/../y.js", None),
            ("../y.js", None),
        ] {
            assert_eq!(map_in_directory(&dir, file), want.map(real), "{file}");
        }
    }

    #[test]
    fn finds_a_bundles_map_by_comment_data_url_or_sidecar() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let bundle = d.join("app.js");
        std::fs::write(d.join("named.map"), "{}").unwrap();
        let text = b"x\n//# sourceMappingURL=named.map\n";
        let found = find_bundle_map(&bundle, text, u64::MAX).unwrap();
        assert_eq!(found.map, BundleMapRef::File(d.join("named.map")));
        assert_eq!(found.found_by, FoundBy::SourceMappingUrl);
        assert_eq!(found.url_at, Some((23, 9)));

        let inline = b"x\n//# sourceMappingURL=data:application/json,%7B%7D";
        let found = find_bundle_map(&bundle, inline, 2).unwrap();
        assert_eq!(found.map, BundleMapRef::Inline(b"{}".to_vec()));
        assert_eq!(found.found_by, FoundBy::DataUrl);
        assert!(matches!(
            find_bundle_map(&bundle, inline, 1),
            Err(NoBundleMap::InlineTooBig {
                bytes: 2,
                limit: 1,
                url_at: (23, _)
            })
        ));
        let bad = find_bundle_map(&bundle, b"//# sourceMappingURL=data:;base64,!!", 9).unwrap_err();
        assert!(matches!(bad, NoBundleMap::BadDataUrl { .. }), "{bad:?}");
        assert!(
            bad.to_string()
                .starts_with("sourceMappingURL: invalid base64"),
            "{bad}"
        );

        // A named map that is missing or a directory falls back to the sidecar, and the message says what was tried.
        std::fs::create_dir(d.join("dir.map")).unwrap();
        let e = find_bundle_map(&bundle, b"//# sourceMappingURL=dir.map", 9).unwrap_err();
        assert_eq!(e.url_at(), Some((21, 7)));
        let message = e.to_string();
        assert!(
            message.contains("dir.map (from sourceMappingURL: a directory)")
                && message.contains("app.js.map (No such file"),
            "{message}"
        );
        let e = find_bundle_map(&bundle, b"//# sourceMappingURL=https://cdn/x.map", 9).unwrap_err();
        assert!(e.to_string().contains("remote maps are not fetched"), "{e}");
        std::fs::write(d.join("app.js.map"), "{}").unwrap();
        let found = find_bundle_map(&bundle, b"//# sourceMappingURL=dir.map", 9).unwrap();
        assert_eq!(found.map, BundleMapRef::File(d.join("app.js.map")));
        assert_eq!((found.found_by, found.url_at), (FoundBy::Sidecar, None));
    }

    #[test]
    fn resolves_relative_to_the_bundle() {
        let b = Path::new("/w/dist/app.js");
        assert_eq!(
            resolve_map_url(b, "app.js.map?v=3"),
            Some(PathBuf::from("/w/dist/app.js.map"))
        );
        assert_eq!(
            resolve_map_url(b, "/abs/x.map"),
            Some(PathBuf::from("/abs/x.map"))
        );
        assert_eq!(
            resolve_map_url(b, "file:///abs/my%20x.map"),
            Some(PathBuf::from("/abs/my x.map"))
        );
        assert_eq!(resolve_map_url(b, "https://cdn/x.map"), None);
    }
}
