//! Which map a document uses: the document is a map itself; or its `sourceMappingURL` (path, `file:` or `data:`
//! URL) in the last lines — from the open document's rope, or from the file's tail on disk when it was never
//! opened; or a sidecar `BUNDLE.map`; or a `maps` setting (glob of bundles → map path).

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ropey::Rope;
use sourcemap_core::bundle::locate::{
    find_bundle_map, find_source_mapping_url, looks_like_map, BundleMapRef, NoBundleMap,
};

use crate::lsp::maps::document_lines::DocumentLines;
use crate::lsp::maps::map_key::MapKey;
use crate::lsp::settings::{Settings, SettingsMap};

/// How many bytes of a never-opened bundle's end are read to find its comment (a longer `data:` URL line makes
/// the whole file be read).
const TAIL_BYTES: u64 = 64 * 1024;
/// How many trailing lines of an open document are searched.
const TAIL_LINES: usize = 8;

/// Where the `sourceMappingURL` value sits in the bundle (0-based line, UTF-16 columns), for diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UrlSpan {
    pub line: u32,
    pub start: u32,
    pub end: u32,
}

#[derive(Debug, Clone)]
pub struct BundleMap {
    pub key: MapKey,
    /// The map's bytes when it is inline.
    pub inline: Option<Arc<Vec<u8>>>,
    pub span: Option<UrlSpan>,
    /// How the map was found, for people: "sourceMappingURL", "data: URL", "sidecar", "maps setting", "itself".
    pub found_by: &'static str,
}

/// The tail of a bundle, with the line number of its first line.
struct Tail {
    text: Vec<u8>,
    first_line: u32,
    complete: bool,
}

/// The tail of an open document's text (its rope, or the text it was opened with: `DocumentLines`).
fn tail_of_lines(lines: &DocumentLines) -> Tail {
    match lines {
        DocumentLines::Rope(rope) => tail_of_rope(rope),
        DocumentLines::Lent(text, index) => {
            let count = index.starts().len() - 1;
            let first = count.saturating_sub(TAIL_LINES);
            let start = (index.starts()[first] as usize).min(text.len());
            Tail {
                text: text.as_bytes()[start..].to_vec(),
                first_line: first as u32,
                complete: true,
            }
        }
    }
}

fn tail_of_rope(rope: &Rope) -> Tail {
    let lines = rope.len_lines();
    let first = lines.saturating_sub(TAIL_LINES);
    let start = rope.line_to_byte(first);
    let mut text = Vec::with_capacity(rope.len_bytes() - start);
    for chunk in rope.byte_slice(start..).chunks() {
        text.extend_from_slice(chunk.as_bytes());
    }
    Tail {
        text,
        first_line: first as u32,
        complete: true,
    }
}

/// The last `window` bytes of the bundle at `path` (all of it when it is shorter).
fn tail_of_file(path: &Path, window: u64) -> std::io::Result<Tail> {
    let (text, complete) = sourcemap_core::internal::fs::files::read_tail(path, window)?;
    // Line numbers are unknown in a partial tail; the caller reads the whole file when it needs them.
    Ok(Tail {
        text,
        first_line: 0,
        complete,
    })
}

fn span_in(tail: &Tail, offset: usize, len: usize) -> Option<UrlSpan> {
    if !tail.complete {
        return None;
    }
    let before = &tail.text[..offset];
    let line = tail.first_line + before.iter().filter(|&&b| b == b'\n').count() as u32;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let start = String::from_utf8_lossy(&before[line_start..])
        .encode_utf16()
        .count() as u32;
    let value = String::from_utf8_lossy(&tail.text[offset..offset + len])
        .encode_utf16()
        .count() as u32;
    Some(UrlSpan {
        line,
        start,
        end: start + value,
    })
}

/// When the partial `tail` of the bundle at `path` starts inside a `sourceMappingURL=data:` comment line: that
/// line's length. Scans back for the line's start without holding it, so a huge inline map costs no memory.
fn cut_inline_map_line(path: &Path, tail: &Tail) -> std::io::Result<Option<u64>> {
    let (mut f, meta) = sourcemap_core::internal::fs::files::open_regular(path)?;
    let tail_start = meta.len().saturating_sub(tail.text.len() as u64);
    let mut chunk = vec![0; TAIL_BYTES as usize];
    let mut end = tail_start;
    let line_start = loop {
        if end == 0 {
            break 0;
        }
        let start = end.saturating_sub(TAIL_BYTES);
        let buf = &mut chunk[..(end - start) as usize];
        f.seek(SeekFrom::Start(start))?;
        f.read_exact(buf)?;
        if let Some(i) = memchr::memrchr(b'\n', buf) {
            break start + i as u64 + 1;
        }
        end = start;
    };
    let mut head = [0u8; 64];
    f.seek(SeekFrom::Start(line_start))?;
    let n = f.read(&mut head)?;
    let head = String::from_utf8_lossy(&head[..n]);
    let comment = head.trim_start();
    let is_inline_map = ["//#", "//@"].iter().any(|p| {
        comment
            .strip_prefix(p)
            .is_some_and(|c| c.trim_start().starts_with("sourceMappingURL=data:"))
    });
    let line_end = tail_start + memchr::memchr(b'\n', &tail.text).unwrap_or(tail.text.len()) as u64;
    Ok(is_inline_map.then_some(line_end - line_start))
}

/// Why no map was found; `span` is set when the bundle names a map that cannot be used.
#[derive(Debug, Clone)]
pub struct NoMap {
    pub message: String,
    pub span: Option<UrlSpan>,
    /// The `maps` setting names a URL for this bundle: the caller fetches it (see `Snapshot::bundle_map`).
    pub settings_url: Option<String>,
    /// Nothing names a map, or what does is not there: attaching one (the `maps` setting) is the fix.
    pub not_found: bool,
    /// The `maps` setting names a map for this bundle that cannot be used (`message` says why).
    pub attached: bool,
    /// The places looked at, in order, each with why it was not used (for Show Map Info).
    pub tried: Vec<String>,
}

/// How many leading bytes of a document [`looks_like_bundle`] reads.
const SNIFF_BYTES: usize = 64 * 1024;

/// Whether a script without a map is worth telling that it has none: a bundle or minified build output, not a
/// source file someone edits. By name (`.bundle`, `.jsbundle`, `.min.js`, `*.bundle.js`, under `dist/` or `build/`),
/// by a bundler's runtime (`__d(` of Metro, `__webpack_require__`, `System.register`), or by minified lines.
pub fn looks_like_bundle(path: &Path, rope: &Rope) -> bool {
    let script = path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        matches!(
            e.to_ascii_lowercase().as_str(),
            "js" | "mjs" | "cjs" | "bundle" | "jsbundle"
        )
    });
    if !script {
        return false;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    if [
        ".bundle",
        ".jsbundle",
        ".min.js",
        ".min.mjs",
        ".min.cjs",
        ".bundle.js",
    ]
    .iter()
    .any(|s| name.ends_with(s))
    {
        return true;
    }
    let build_output = path.parent().is_some_and(|dir| {
        dir.components().any(|c| {
            matches!(
                c.as_os_str().to_str(),
                Some("dist" | "build" | "out" | "bundles" | "release")
            )
        })
    });
    if build_output {
        return true;
    }
    let head_end = rope.len_bytes().min(SNIFF_BYTES);
    let head: String = rope
        .byte_slice(..rope.char_to_byte(rope.byte_to_char(head_end)))
        .to_string();
    let runtime = [
        "__d(function",
        "__webpack_require__",
        "System.register(",
        "__r(",
    ]
    .iter()
    .any(|m| head.contains(m));
    // Minified: a line of the head longer than any hand-written one.
    runtime || head.lines().any(|l| l.len() > 1000)
}

/// Finds the map of the document at `path` (open as `rope`, or read from disk).
pub fn find_map(
    path: &Path,
    rope: Option<&Rope>,
    settings: &Settings,
    folders: &[PathBuf],
) -> Result<BundleMap, NoMap> {
    let lines = rope.map(|r| DocumentLines::Rope(r.clone()));
    find_map_of_lines(path, lines.as_ref(), settings, folders)
}

/// [`find_map`] of a document open as `lines` (its rope, or the text it was opened with while its rope is not
/// built), or read from disk.
pub fn find_map_of_lines(
    path: &Path,
    rope: Option<&DocumentLines>,
    settings: &Settings,
    folders: &[PathBuf],
) -> Result<BundleMap, NoMap> {
    let fail = |message: String, span: Option<UrlSpan>| NoMap {
        message,
        span,
        settings_url: None,
        not_found: false,
        attached: false,
        tried: Vec::new(),
    };
    let tail = match rope {
        Some(r) => tail_of_lines(r),
        None => tail_of_file(path, TAIL_BYTES)
            .map_err(|e| fail(format!("cannot read {}: {e}", path.display()), None))?,
    };
    // A `.map` file is a map whatever its tail looks like (a large one's last 64 KiB are mid-`mappings`); an open
    // document of another name is one when its text says so.
    if path.extension().is_some_and(|e| e == "map")
        || (rope.is_some() && looks_like_map(&tail.text))
    {
        return Ok(BundleMap {
            key: MapKey::File(path.to_path_buf()),
            inline: None,
            span: None,
            found_by: "itself",
        });
    }
    let mut tail = tail;
    // A partial tail whose last lines are very long may have cut a `data:` URL line: read as much as the longest
    // inline map allowed (base64 is 4/3 of the bytes), not the whole bundle.
    if !tail.complete
        && find_source_mapping_url(&tail.text).is_none()
        && memchr::memchr_iter(b'\n', &tail.text).count() < TAIL_LINES
    {
        let window = (settings.max_map_bytes / 3)
            .saturating_mul(4)
            .saturating_add(TAIL_BYTES);
        tail = tail_of_file(path, window)
            .map_err(|e| fail(format!("cannot read {}: {e}", path.display()), None))?;
        if !tail.complete && find_source_mapping_url(&tail.text).is_none() {
            let cut = cut_inline_map_line(path, &tail)
                .map_err(|e| fail(format!("cannot read {}: {e}", path.display()), None))?;
            if let Some(line_bytes) = cut {
                return Err(fail(
                    format!(
                        "the inline map is about {} bytes, above the limit sourcemap.maxMapBytes = {}",
                        line_bytes / 4 * 3,
                        settings.max_map_bytes
                    ),
                    None,
                ));
            }
        }
    }
    let fail_at = |message: String, url_at: Option<(usize, usize)>| {
        // A diagnostic needs a place; a partial tail has no line numbers (only never-opened bundles read one).
        let span = url_at.map(|(at, len)| {
            span_in(&tail, at, len).unwrap_or(UrlSpan {
                line: 0,
                start: 0,
                end: 0,
            })
        });
        fail(message, span)
    };
    // A map named for this bundle in the `maps` setting is an explicit choice (Attach Source Map…, also the way out
    // of a map that does not fit): it is used before the bundle's own comment or sidecar.
    let found = match settings.map_for(path, folders) {
        Some(SettingsMap::File(p)) => {
            return Ok(BundleMap {
                key: MapKey::File(p),
                inline: None,
                span: None,
                found_by: "maps setting",
            })
        }
        Some(SettingsMap::Url(url)) => {
            return Err(NoMap {
                settings_url: Some(url.clone()),
                ..fail(format!("the maps setting names {url}"), None)
            })
        }
        None => find_bundle_map(path, &tail.text, settings.max_map_bytes),
    };
    match found {
        Ok(found) => Ok(BundleMap {
            key: match &found.map {
                BundleMapRef::File(p) => MapKey::File(p.clone()),
                BundleMapRef::Inline(bytes) => MapKey::inline(path, bytes),
            },
            span: found.url_at.and_then(|(at, len)| span_in(&tail, at, len)),
            found_by: found.found_by.describe(),
            inline: match found.map {
                BundleMapRef::Inline(bytes) => Some(Arc::new(bytes)),
                BundleMapRef::File(_) => None,
            },
        }),
        Err(NoBundleMap::InlineTooBig {
            bytes,
            limit,
            url_at,
        }) => Err(fail_at(
            format!(
                "the inline map is {bytes} bytes, above the limit sourcemap.maxMapBytes = {limit}"
            ),
            Some(url_at),
        )),
        Err(e) => {
            let mut no_map = fail_at(e.to_string(), e.url_at());
            if let NoBundleMap::NotFound { tried, .. } = e {
                no_map.not_found = true;
                no_map.tried.push(if settings.maps.is_empty() {
                    "the sourcemap.maps setting (it has no entries)".to_string()
                } else {
                    format!(
                        "the sourcemap.maps setting (none of its {} entries matches this bundle)",
                        settings.maps.len()
                    )
                });
                no_map.tried.extend(tried);
            }
            Err(no_map)
        }
    }
}

/// The bundle's `sourceMappingURL` as written (a `data:` URL cut after its media type), for people: where the
/// map came from is `BundleMap::found_by`; this is only what the comment says.
pub fn comment_url(path: &Path, rope: Option<&Rope>) -> Option<String> {
    let tail = match rope {
        Some(r) => tail_of_rope(r),
        None => tail_of_file(path, TAIL_BYTES).ok()?,
    };
    let (url, _) = find_source_mapping_url(&tail.text)?;
    if !url.starts_with("data:") {
        return Some(url.to_string());
    }
    let head: String = url
        .split(',')
        .next()
        .unwrap_or(url)
        .chars()
        .take(60)
        .collect();
    Some(format!("{head},… (inline map, {} chars)", url.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_maps_by_comment_sidecar_and_setting() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("a.js.map"), "{}").unwrap();
        std::fs::write(d.join("a.js"), "x\n//# sourceMappingURL=a.js.map\n").unwrap();
        let m = find_map(&d.join("a.js"), None, &Settings::default(), &[]).unwrap();
        assert_eq!(m.key, MapKey::File(d.join("a.js.map")));
        assert_eq!(
            m.span,
            Some(UrlSpan {
                line: 1,
                start: 21,
                end: 29
            })
        );

        std::fs::write(d.join("b.js"), "x\n").unwrap();
        std::fs::write(d.join("b.js.map"), "{}").unwrap();
        assert_eq!(
            find_map(&d.join("b.js"), None, &Settings::default(), &[])
                .unwrap()
                .key,
            MapKey::File(d.join("b.js.map"))
        );

        std::fs::write(d.join("c.bundle"), "x\n").unwrap();
        let settings = Settings {
            maps: vec![("*.bundle".into(), "maps/c.map".into())],
            ..Settings::default()
        };
        let m = find_map(&d.join("c.bundle"), None, &settings, &[d.to_path_buf()]).unwrap();
        assert_eq!(m.key, MapKey::File(d.join("maps/c.map")));
        let err = find_map(&d.join("c.bundle"), None, &Settings::default(), &[]).unwrap_err();
        assert!(err.not_found && err.span.is_none(), "{err:?}");
    }

    #[test]
    fn bundles_are_told_from_sources() {
        let rope = |s: &str| Rope::from_str(s);
        let plain = rope("export function add(a, b) {\n  return a + b;\n}\n");
        assert!(!looks_like_bundle(Path::new("/w/src/math.js"), &plain));
        for name in [
            "/w/app.bundle",
            "/w/ios/main.jsbundle",
            "/w/lib/x.min.js",
            "/w/dist/main.js",
            "/w/build/static/js/main.js",
        ] {
            assert!(looks_like_bundle(Path::new(name), &plain), "{name}");
        }
        let metro = rope("var __BUNDLE_START_TIME__=this.nativePerformanceNow?nativePerformanceNow():Date.now();\n__d(function(g,r){},0);\n");
        assert!(looks_like_bundle(Path::new("/w/main.js"), &metro));
        let minified = rope(&format!("!function(){{{}}}();\n", "a+=1;".repeat(400)));
        assert!(looks_like_bundle(Path::new("/w/main.js"), &minified));
        // A log with long lines is not a script.
        assert!(!looks_like_bundle(
            Path::new("/w/dist/crash.log"),
            &minified
        ));
    }

    #[test]
    fn reads_the_open_text_and_long_tails() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("x.map"), "{}").unwrap();
        // The open document says something else than the disk.
        std::fs::write(d.join("e.js"), "y\n").unwrap();
        let rope = Rope::from_str("y\n//# sourceMappingURL=x.map");
        assert_eq!(
            find_map(&d.join("e.js"), Some(&rope), &Settings::default(), &[])
                .unwrap()
                .key,
            MapKey::File(d.join("x.map"))
        );
        // A big bundle: the comment is found in the tail (its line number is only known for open documents).
        let mut big = "a;\n".repeat(50_000);
        big.push_str("//# sourceMappingURL=x.map\n");
        std::fs::write(d.join("big.js"), &big).unwrap();
        let m = find_map(&d.join("big.js"), None, &Settings::default(), &[]).unwrap();
        assert_eq!(m.key, MapKey::File(d.join("x.map")));
        let m = find_map(
            &d.join("big.js"),
            Some(&Rope::from_str(&big)),
            &Settings::default(),
            &[],
        )
        .unwrap();
        assert_eq!(m.span.unwrap().line, 50_000);
        // A data: URL longer than the tail window.
        use base64::Engine;
        let map = format!(
            r#"{{"version":3,"sources":["s.js"],"names":[],"mappings":"AAAA","x":"{}"}}"#,
            "z".repeat(100_000)
        );
        let b64 = base64::engine::general_purpose::STANDARD.encode(&map);
        std::fs::write(
            d.join("inline.js"),
            format!("a;\n//# sourceMappingURL=data:application/json;base64,{b64}\n"),
        )
        .unwrap();
        let m = find_map(&d.join("inline.js"), None, &Settings::default(), &[]).unwrap();
        assert_eq!(m.inline.unwrap().len(), map.len());
        let small = Settings {
            max_map_bytes: 1000,
            ..Settings::default()
        };
        let err = find_map(&d.join("inline.js"), None, &small, &[]).unwrap_err();
        assert!(err.message.contains("maxMapBytes"), "{}", err.message);
    }
}
