//! The sources of answered frames as paths that open from the working directory (`OriginalFrame::path`), for
//! `symbolicate` and `symbolicate --ndjson` alike.

use std::path::{Path, PathBuf};

use sourcemap_core::session::files::KnownMap;
use sourcemap_core::trace::symbolicate::SymbolicatedLine;

/// Each answered frame's source as a path that opens from the working directory (`OriginalFrame::path`): a relative
/// `sources` entry (no scheme, not absolute) joined to its map's folder, shown relative to the working directory
/// (climbing with `..` where they share a folder below the root), else absolute. Sources the map gives as absolute paths or URLs (`webpack://…`) are left as the map
/// writes them.
pub(super) fn openable_paths(out: &mut [SymbolicatedLine], maps: &[std::sync::Arc<KnownMap>]) {
    let Some(cwd) = sourcemap_core::session::files::working_dir() else {
        return;
    };
    for f in out.iter_mut().filter_map(SymbolicatedLine::frame_mut) {
        let (Some(m), Some(o)) = (f.map, f.original.as_mut()) else {
            continue;
        };
        let Some(source) = o.source.as_deref() else {
            continue;
        };
        if source.contains(':') || Path::new(source).is_absolute() || source.is_empty() {
            continue;
        }
        let Some(map) = maps.get(m) else { continue };
        let mut known = map.openable.lock().unwrap_or_else(|e| e.into_inner());
        let shown = known
            .entry(o.source_id)
            .or_insert_with(|| {
                // The map's folder as the system resolves it (a symlinked `dist/`, found once per map), then the
                // source's `..` taken lexically.
                let dir = map.resolved_dir()?;
                let shown = from_dir(cwd, &lexically_normal(&dir.join(source)));
                (shown != source).then_some(shown)
            })
            .clone();
        if shown.is_some() {
            o.path = shown;
        }
    }
}

/// `path` (absolute, normal) as it opens from `dir`: relative, climbing with `..` where they share a folder below
/// the root (`../src/app.js`), else absolute.
fn from_dir(dir: &Path, path: &Path) -> String {
    let (d, p): (Vec<_>, Vec<_>) = (dir.components().collect(), path.components().collect());
    let shared = d.iter().zip(&p).take_while(|(a, b)| a == b).count();
    if shared <= 1 {
        return path.display().to_string();
    }
    let mut out = PathBuf::new();
    for _ in shared..d.len() {
        out.push("..");
    }
    for c in &p[shared..] {
        out.push(c);
    }
    out.display().to_string()
}

/// `path` with `.` and `..` taken out without reading the disk (the source may not exist here).
fn lexically_normal(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                let up = matches!(
                    out.components().next_back(),
                    None | Some(Component::ParentDir)
                );
                if up || !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}
