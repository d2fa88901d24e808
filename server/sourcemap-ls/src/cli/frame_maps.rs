//! Which map each frame of a trace uses, and the frames looked up in it, for the command line: the core's files place
//! (`sourcemap_core::session::files`: the maps given, the bundles a frame names under `--root`, debug IDs,
//! directories of maps, a Metro dev server) runs the session; what this module adds is the command line's: `--root`
//! checked, and what is said on stderr (the place's notes, files several bundles could be, maps that do not fit).
//! `symbolicate` and `profile` both resolve their frames here.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{json, Value};
use sourcemap_core::bundle::resolve::AmbiguousFile;
use sourcemap_core::session::files::{
    shown_path, ArchiveStore, DiskMemo, FilesPlace, KnownMap, OpenedMaps,
};
use sourcemap_core::session::FrameToday;
use sourcemap_core::session::{Fit, SessionOptions};
use sourcemap_core::trace::stack::{file_name_of, StackLine};
use sourcemap_core::trace::symbolicate::SymbolicatedLine;
use sourcemap_core::GeneratedPosition;

use super::validate::mismatch_problem;
use super::CliError;

/// Where bundles and maps are found: the folders of `--maps` (their maps by debug ID, scanned now), and `--root`
/// when given or when no folder is (default: the current directory); the notes of the scan said on stderr.
pub(super) fn disk_of(
    map_folders: &[PathBuf],
    by_release: &[PathBuf],
    root: Option<&Path>,
    cache: Option<Arc<OpenedMaps>>,
) -> Result<Arc<DiskMemo>, CliError> {
    let folders = |dirs: &[PathBuf], flag: &str| {
        dirs.iter()
            .map(|d| {
                std::fs::canonicalize(d)
                    .ok()
                    .filter(|d| d.is_dir())
                    .ok_or_else(|| {
                        CliError::Usage(format!("{flag} {}: no such folder", d.display()))
                    })
            })
            .collect::<Result<Vec<_>, _>>()
    };
    // An archive given to --maps (an Electron app's `app.asar`, a Sentry artifact bundle's zip) is a store read in
    // place; one that cannot be read is said in one line, and the rest is answered (the exit status says so).
    let (archive_files, map_folders): (Vec<PathBuf>, Vec<PathBuf>) =
        map_folders.iter().cloned().partition(|p| p.is_file());
    let mut archives = Vec::new();
    for a in &archive_files {
        match ArchiveStore::open(a) {
            Ok(store) => archives.push(Arc::new(store)),
            Err(e) => {
                eprintln!("sourcemap-ls: --maps {e}");
                UNREADABLE_INPUT.store(true, std::sync::atomic::Ordering::Relaxed);
            }
        }
    }
    let map_folders = &map_folders[..];
    let mut roots = folders(map_folders, "--maps")?;
    let by_release = folders(by_release, "--maps-by-release")?;
    if (roots.is_empty() && by_release.is_empty()) || root.is_some() {
        roots.push(root_dir(root)?);
    }
    // An archive is a store of its own: what lies beside it is not given (an upload folder holds other users' files),
    // except an asar's own `NAME.asar.unpacked/`, where Electron keeps the archive's unpacked members.
    let allowed: Vec<PathBuf> = archive_files
        .iter()
        .filter_map(|a| {
            let mut unpacked = std::fs::canonicalize(a).ok()?.into_os_string();
            unpacked.push(".unpacked");
            Some(PathBuf::from(unpacked)).filter(|u| u.is_dir())
        })
        .collect();
    let mut disk = DiskMemo::new(roots)
        .with_releases(by_release.clone())
        .with_archives(archives);
    if !allowed.is_empty() {
        disk = disk.with_source_folders(allowed, Vec::new());
    }
    if let Some(cache) = cache {
        disk = disk.with_cache(cache);
    }
    if map_folders.is_empty() && by_release.is_empty() {
        return Ok(Arc::new(disk));
    }
    let (disk, notes) = disk.with_debug_ids();
    for note in notes {
        eprintln!("sourcemap-ls: {note}");
    }
    Ok(Arc::new(disk))
}

/// `disk` reading original sources also under the folders an interactive command line names: the working folder
/// (also a project folder), each named map's or bundle's folder, and directories of maps. `--ndjson` and `worker`
/// never call this: a pipeline reads under its roots and stores only.
pub(super) fn with_command_line_folders<'a>(
    disk: Arc<DiskMemo>,
    named: impl Iterator<Item = &'a PathBuf>,
    map_dirs: &[PathBuf],
) -> Arc<DiskMemo> {
    let cwd = std::env::current_dir().ok();
    let mut allowed: Vec<PathBuf> = named
        .filter_map(|p| {
            std::fs::canonicalize(p)
                .ok()?
                .parent()
                .map(Path::to_path_buf)
        })
        .collect();
    allowed.extend(map_dirs.iter().cloned());
    allowed.extend(cwd.clone());
    // A disk already shared keeps reading under its roots only (the safe side).
    match Arc::try_unwrap(disk) {
        Ok(disk) => Arc::new(disk.with_source_folders(allowed, cwd.into_iter().collect())),
        Err(shared) => shared,
    }
}

/// Set when an input given on the command line (an archive to `--maps`) could not be read: the command answers what
/// it can, then exits with status 1.
pub(super) static UNREADABLE_INPUT: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// A Metro dev server's maps for bundle URLs (`--dev-server`): loopback only.
pub(super) fn serve_dev_server_maps(catalog: &mut FilesPlace) {
    catalog.serve_maps_from(Box::new(|url| {
        crate::devserver::fetch_map(url, crate::lsp::DEFAULT_MAX_MAP_BYTES)
            .map_err(sourcemap_core::session::files::FetchError)
    }));
}

/// Where bundles named by frames are looked for: `--root`, which must be a folder (a typo would silently find
/// nothing), else the current directory.
pub(super) fn root_dir(given: Option<&Path>) -> Result<PathBuf, CliError> {
    match given {
        Some(r) if r.is_dir() => Ok(r.to_path_buf()),
        Some(r) => Err(CliError::Usage(format!(
            "--root {}: {}",
            r.display(),
            if r.exists() {
                "not a folder"
            } else {
                "no such folder"
            }
        ))),
        None => std::env::current_dir().map_err(|e| CliError::Usage(e.to_string())),
    }
}

/// The frames of a trace, looked up.
pub(super) struct SessionAnswer {
    /// The lines with each frame answered (or left with why not).
    pub(super) out: Vec<SymbolicatedLine>,
    /// Per frame: the map chosen (an index into `FilesPlace::maps`) and why.
    pub(super) chosen: Vec<(Option<usize>, String)>,
    /// Per frame: its position as printed, before any shift.
    pub(super) printed: Vec<Option<GeneratedPosition>>,
    /// Per frame: the shift applied to it (`--apply-shift`: whole lines, or a line's columns).
    pub(super) shifts: Vec<Option<sourcemap_core::bundle::fit::Shift>>,
    /// The frames (by number) withheld because the map does not fit its bundle there.
    pub(super) mismatched: Vec<usize>,
    /// One `map-mismatch` problem per misfit map used (also warned about on stderr).
    pub(super) problems: Vec<Value>,
    /// The files several bundles could be, with the candidates (also said on stderr).
    pub(super) ambiguous: Vec<AmbiguousFile>,
    /// Per frame: what was done about Jest's module wrapper on line 1 (`trace::jest`), for `--explain`.
    pub(super) jest: Vec<Option<String>>,
    /// Per frame (with `SessionOptions::today`): its source's local file when that is not the map's copy, and where
    /// the frame is in it now.
    pub(super) today: Vec<Option<FrameToday>>,
}

/// Symbolicates the lines where the catalog says: the core's one session (`sourcemap_core::session`) does the job;
/// what is said on stderr (files several bundles could be, maps that do not fit) and the frames' maps as indexes
/// into `FilesPlace::maps` are the CLI's.
pub(super) fn run_session(
    catalog: &mut FilesPlace,
    lines: Vec<StackLine>,
    options: SessionOptions,
) -> SessionAnswer {
    let apply_shift = options.apply_shift;
    let done = catalog.symbolicate(lines, options);
    for note in catalog.take_notes() {
        for line in note.lines() {
            eprintln!("sourcemap-ls: {line}");
        }
    }
    for a in &done.ambiguous {
        let shown: Vec<String> = a.candidates.iter().map(|p| shown_path(p)).collect();
        eprintln!(
            "sourcemap-ls: {} bundles could be {} ({}); its frames are not mapped. Choose one with --bundle {}=PATH",
            a.candidates.len(),
            a.file,
            shown.join(", "),
            file_name_of(&a.file)
        );
    }
    let fits: Vec<(usize, &Fit)> = done.fits.iter().map(|(i, fit)| (*i, fit)).collect();
    let problems = fit_problems(&catalog.maps, &fits, apply_shift);
    let chosen = done
        .choices
        .iter()
        .map(|c| (c.map().copied(), c.why().to_string()))
        .collect();
    SessionAnswer {
        out: done.lines,
        chosen,
        printed: done.printed,
        shifts: done.shifts,
        mismatched: done.withheld,
        problems,
        ambiguous: done.ambiguous,
        jest: done.jest,
        today: done.today,
    }
}

/// One `map-mismatch` problem per map used that does not fit its bundle, each also warned about on stderr.
fn fit_problems(maps: &[Arc<KnownMap>], fits: &[(usize, &Fit)], apply_shift: bool) -> Vec<Value> {
    let mut problems = Vec::new();
    for &(i, fit) in fits {
        let (bundle, report) = (&fit.bundle, &fit.report);
        if let Some(mut problem) = mismatch_problem(report) {
            let applied = match sourcemap_core::bundle::fit::Shift::of(report) {
                Some(shift) if apply_shift => format!(
                    " (--apply-shift: frames looked up shifted back by {})",
                    shift.describe()
                ),
                _ => String::new(),
            };
            eprintln!(
                "sourcemap-ls: warning: {}: map-mismatch: {}{applied}",
                bundle.display(),
                report.message()
            );
            problem["bundle"] = json!(bundle.display().to_string());
            problem["map"] = json!(maps[i].found);
            problems.push(problem);
        }
    }
    problems
}
