//! The sources of answered frames as paths that open from the working directory (`OriginalFrame::path`), for
//! `symbolicate` and `symbolicate --ndjson` alike.

use std::path::{Path, PathBuf};

use sourcemap_core::session::files::FilesPlace;
use sourcemap_core::trace::symbolicate::SymbolicatedLine;

/// Each answered frame's source as the project file that opens from the working directory (`OriginalFrame::path`):
/// the file `FilesPlace::source_file` finds for it (the framework's naming understood — `webpack://_N_E/./lib/x.ts`,
/// `turbopack:///[project]/lib/x.ts`, Angular's workspace-relative names, a map kept apart from its build — inside
/// what the user gave, and the map's copy where a rule guesses), shown relative to the working directory (climbing
/// with `..` where they share a folder below the root), else absolute. Where the project has no such file, `path`
/// stays empty: the source is only the map's copy, and the map's own name is shown.
pub(super) fn openable_paths(out: &mut [SymbolicatedLine], place: &FilesPlace) {
    let Some(cwd) = canonical_working_dir() else {
        return;
    };
    for f in out.iter_mut().filter_map(SymbolicatedLine::frame_mut) {
        let (Some(m), Some(o)) = (f.map, f.original.as_mut()) else {
            continue;
        };
        let Some(map) = place.maps.get(m) else {
            continue;
        };
        let shown = {
            let known = map.openable.lock().unwrap_or_else(|e| e.into_inner());
            known.get(&o.source_id).cloned()
        };
        let shown = shown.unwrap_or_else(|| {
            let shown = place
                .source_file(m, o.source_id)
                .map(|file| from_dir(cwd, &file.path));
            (map.openable.lock().unwrap_or_else(|e| e.into_inner()))
                .insert(o.source_id, shown.clone());
            shown
        });
        o.path = shown;
    }
}

/// The working directory's real path, found once (it was a system call per event of a pipeline).
fn canonical_working_dir() -> Option<&'static Path> {
    static DIR: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let cwd = sourcemap_core::session::files::working_dir()?;
        Some(std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf()))
    })
    .as_deref()
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
