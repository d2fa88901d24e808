//! What both ways of writing an event back share (`document.rs`'s whole `Value`, `event_json`'s own text): which
//! reporter it is from, how a refused frame is marked, and how a processed frame's `abs_path` is made. The
//! conventions themselves are `document.rs`'s module table.

/// Which crash reporter an event is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// A Sentry event: frames in `exception.values[].stacktrace.frames[]`.
    Sentry,
    /// A Bugsnag payload: frames in `events[].exceptions[].stacktrace[]`.
    Bugsnag,
}

/// The words every refusal of a frame by its report's evidence ends with (`bundle::resolve`): the file that ran is
/// not the bundle found. An event written back marks such frames (`write_back`).
pub const ANOTHER_BUILD: &str = "the file that ran is another build";

/// `source` (a map's `sources` entry) resolved against the URL of the minified file `base`, as symbolicator writes a
/// processed frame's `abs_path` (`join_paths(source_file_base, filename)`): `https://cdn.example.com/static/app.js` and
/// `../src/a.js` give `https://cdn.example.com/src/a.js`, `app:///dist/app.js` and `../../src/a.js`
/// `app:///src/a.js` (`..` stops at the root), `/srv/app/dist/app.js` and `../src/a.js` `/srv/app/src/a.js`; a
/// source that is itself a URL or an absolute path stays as it is.
pub(crate) fn joined_to_url(base: &str, source: &str) -> Option<String> {
    if source.contains("://") {
        return Some(source.to_string());
    }
    if let Ok(url) = url::Url::parse(base) {
        if url.cannot_be_a_base() {
            return None;
        }
        return Some(url.join(source).ok()?.to_string());
    }
    // An absolute path (node's frames without `rewriteFrames`): the source's path from the file's folder, `..` taken.
    if !base.starts_with('/') || source.starts_with('/') {
        return source.starts_with('/').then(|| source.to_string());
    }
    let mut parts: Vec<&str> = base.split('/').collect();
    parts.pop();
    for part in source.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.len() > 1 {
                    parts.pop();
                }
            }
            _ => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A processed frame's `abs_path`, as symbolicator joins the source to the minified file's URL.
    #[test]
    fn abs_paths_as_symbolicator_joins_them() {
        for (base, source, joined) in [
            (
                "https://cdn.example.com/static/app.js",
                "../src/a.js",
                Some("https://cdn.example.com/src/a.js"),
            ),
            (
                "app:///dist/app.js",
                "../../../../src/v1/cart.js",
                Some("app:///src/v1/cart.js"),
            ),
            (
                "http://localhost/static/app.js",
                "webpack://app/./src/a.ts",
                Some("webpack://app/./src/a.ts"),
            ),
            (
                "/srv/app/dist/app.js",
                "../src/a.js",
                Some("/srv/app/src/a.js"),
            ),
            ("/srv/app/dist/app.js", "../../../../../x.js", Some("/x.js")),
            ("/srv/app/dist/app.js", "/abs/a.js", Some("/abs/a.js")),
            ("dist/app.js", "../src/a.js", None),
        ] {
            assert_eq!(
                joined_to_url(base, source).as_deref(),
                joined,
                "{base} + {source}"
            );
        }
    }
}
