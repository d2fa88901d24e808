//! Whether a map fits its bundle (`sourcemap_core::bundle::fit`), in the server: one report per bundle text, cached in the
//! map's entry by what it was computed from (the document version, or the file's stamp), like the code scopes.
//!
//! Diagnostics compute it in the background when a bundle is opened or changes (`diagnostics::publish`); a hover
//! before that report is known checks near its position (`fit_for_frames`), so no answer is unchecked. Symbolicate
//! requests and stack links
//! compute it when missing (they run on the blocking pool): a frame is never answered from a part of a map that
//! does not fit. A symbolicate request reads a large map near its frames only (`fit_for_frames`); that report is
//! remembered only when it is the whole check's (any misfit is), so diagnostics never show a partial one.

use std::path::Path;
use std::sync::Arc;

use sourcemap_core::bundle::fit::{
    check_fit_lined, check_fit_near_lined, Checked, FitReport, NEAR_AFTER_BYTES,
};
use sourcemap_core::bundle::locate::find_debug_id;
use sourcemap_core::session::Fit;
use sourcemap_core::{GeneratedPosition, SourceMapIndex};

use crate::lsp::maps::loaded_map::LoadedMap;
use crate::lsp::workspace::code_scopes::bundle_text;
use crate::lsp::workspace::snapshot::Snapshot;

/// The report for the map's bundle as it is now (`of`: that bundle, see `bundle_text`), if it was computed already
/// (never computes).
pub fn known_fit(b: &Snapshot<'_>, m: &LoadedMap, of: Option<&Path>) -> Option<Arc<FitReport>> {
    let bundle = bundle_text(b, m, of)?;
    m.fits.get(&bundle.key)?
}

/// The report for the map's bundle as it is now, computed when missing. Blocks: call on the blocking pool.
pub fn fit_now(b: &Snapshot<'_>, m: &LoadedMap, of: Option<&Path>) -> Option<Arc<FitReport>> {
    let bundle = bundle_text(b, m, of)?;
    let key = bundle.key.clone();
    m.fits.get_or_compute(key, || {
        let (text, lines) = bundle.read_lined()?;
        let debug_id = find_debug_id(text.as_bytes());
        let report = check_fit_lined(&m.index, text.as_bytes(), lines.as_deref(), debug_id).ok();
        drop(lines);
        // The text (a copy of a large document, or the file) and the check's line table were transient: glibc
        // kept them (the editor benchmark's steady memory went from 2.53 to 4.03 × `mappings` without this).
        if text.len() >= crate::lsp::maps::heap::TRIM_AFTER_BYTES {
            drop(text);
            crate::lsp::maps::heap::release_free_memory();
        }
        report
    })
}

/// The report for the frames at `frames` of the map's bundle, with the bundle: the whole one when known, else
/// `check_fit_near` (the same verdicts, reading a large map near the frames only), remembered when it read the
/// whole map. Blocks.
pub fn fit_for_frames(
    b: &Snapshot<'_>,
    m: &LoadedMap,
    of: Option<&Path>,
    frames: &[GeneratedPosition],
) -> Option<Fit> {
    let bundle = bundle_text(b, m, of)?;
    let path = bundle.path.clone();
    let fit = |report| {
        Some(Fit {
            bundle: path,
            report,
        })
    };
    if let Some(known) = m.fits.get(&bundle.key) {
        return fit(known?);
    }
    let key = bundle.key.clone();
    let (text, lines) = bundle.read_lined()?;
    let report = check_fit_near_lined(
        &m.index,
        text.as_bytes(),
        lines.as_deref(),
        find_debug_id(text.as_bytes()),
        frames,
        NEAR_AFTER_BYTES,
    )
    .ok()?;
    drop(lines);
    if text.len() >= crate::lsp::maps::heap::TRIM_AFTER_BYTES {
        drop(text);
        crate::lsp::maps::heap::release_free_memory();
    }
    if report.checked == Checked::Whole {
        return fit(m.fits.get_or_compute(key, || Some(report))?);
    }
    fit(Arc::new(report))
}

/// The reason an answer at `p` is withheld, when the map does not fit its bundle there (the core's one rule and
/// message, `FitReport::withheld`).
pub fn withheld(
    report: Option<&FitReport>,
    index: &SourceMapIndex,
    p: GeneratedPosition,
) -> Option<String> {
    report?.withheld_answer(p, || {
        let hit = index.answer_at(p).ok().flatten()?;
        hit.original.map(|o| o.source)
    })
}
