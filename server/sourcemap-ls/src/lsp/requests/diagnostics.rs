//! Diagnostics: an invalid or unreadable map is reported on the bundle (on its `sourceMappingURL`) and on the map
//! document when it is open, with the validation message and location. A bundle without any map gets a note that
//! says how to attach one (`no-source-map`); a script that does not look like a bundle gets nothing.

use std::path::Path;
use std::sync::Arc;

use tower_lsp::lsp_types::{Diagnostic, DiagnosticSeverity, NumberOrString, Position, Range, Url};

use crate::lsp::maps::bundles::looks_like_bundle;

use sourcemap_core::bundle::fit::{FitReport, Verdict};

use crate::lsp::maps::load_error::LoadError;
use crate::lsp::protocol::position::offset_to_position;
use crate::lsp::workspace::map_fit::fit_now;
use crate::lsp::workspace::map_resolution::MapProblem;
use crate::lsp::workspace::snapshot::Snapshot;

/// At most this many diagnostics per document: a broken map can have thousands of errors.
const MAX_DIAGNOSTICS: usize = 50;

fn diagnostic(range: Range, message: String) -> Diagnostic {
    Diagnostic {
        range,
        severity: Some(DiagnosticSeverity::ERROR),
        source: Some("sourcemap-ls".into()),
        message,
        ..Default::default()
    }
}

/// The code of diagnostics that attaching a map fixes (the VS Code extension offers Attach Source Map… on them).
const NO_SOURCE_MAP: &str = "no-source-map";

/// On a bundle that names no map and has none beside it: what to do, at its first character.
fn no_comment(path: &Path) -> Diagnostic {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Diagnostic {
        severity: Some(DiagnosticSeverity::INFORMATION),
        code: Some(NumberOrString::String(NO_SOURCE_MAP.into())),
        ..diagnostic(
            Range::default(),
            format!(
                "No source map for this bundle: it has no sourceMappingURL comment and there is no {name}.map beside \
                 it. Attach one (Source Map: Attach Source Map… in VS Code, or the sourcemap.maps setting)."
            ),
        )
    }
}

/// The code of a map that does not fit its bundle (`sourcemap_core::bundle::fit`).
pub const MAP_MISMATCH: &str = "map-mismatch";

/// On a bundle whose map does not fit it: at the first position where it stops fitting, with what to do.
fn map_mismatch(report: &FitReport) -> Option<Diagnostic> {
    if report.verdict != Verdict::Misfit {
        return None;
    }
    let at = match (report.shift_lines, report.first_bad()) {
        (None, Some(p)) => Position::new(p.line, p.column),
        _ => Position::new(0, 0),
    };
    let mut message = report.message();
    message.push_str(
        " Hover, go to original source and stack links do not answer where it does not fit. In VS Code, Source \
         Map: Attach Source Map… chooses another map.",
    );
    Some(Diagnostic {
        severity: Some(DiagnosticSeverity::WARNING),
        code: Some(NumberOrString::String(MAP_MISMATCH.into())),
        ..diagnostic(
            Range::new(at, Position::new(at.line, at.character + 1)),
            message,
        )
    })
}

/// Diagnostics for the map file itself, placed at each error's byte offset in the file.
async fn on_map_file(path: &Path, error: &LoadError, max_bytes: u64) -> Vec<Diagnostic> {
    // Offsets are into the file as indexed, so the text comes from disk (off the async workers).
    let p = path.to_path_buf();
    let text = tokio::task::spawn_blocking(move || {
        sourcemap_core::internal::fs::files::read_regular(&p, max_bytes).unwrap_or_default()
    })
    .await
    .unwrap_or_default();
    match error {
        LoadError::Invalid(errors) => errors
            .0
            .iter()
            .take(MAX_DIAGNOSTICS)
            .map(|e| {
                let start = e
                    .location
                    .file_offset
                    .map_or(Position::new(0, 0), |o| offset_to_position(&text, o));
                let end = e
                    .location
                    .file_offset
                    .map_or(start, |o| offset_to_position(&text, o + 1));
                diagnostic(Range::new(start, end), e.to_string())
            })
            .collect(),
        other => vec![diagnostic(Range::default(), other.to_string())],
    }
}

pub async fn publish(b: &Snapshot<'_>, uri: Url) {
    if b.document(&uri).is_none() {
        return;
    }
    let Ok(path) = uri.to_file_path() else { return };
    // Maps are opened lazily; validate every section now (off the async threads) so errors surface here. Valid
    // sections keep no checkpoints: a hover builds its own section's.
    let result = match b.map_for(&uri).await {
        Ok(map) => {
            let m = map.clone();
            let validated = tokio::task::spawn_blocking(move || {
                let result = m.index.validate_all();
                // Validating a large map built and dropped every section's checkpoints.
                if m.index.mappings_bytes() >= crate::lsp::maps::heap::TRIM_AFTER_BYTES {
                    crate::lsp::maps::heap::release_free_memory();
                }
                result
            });
            match validated.await {
                Ok(Err(errors)) => Err(MapProblem::Load {
                    span: b
                        .bundle_map(&uri)
                        .await
                        .ok()
                        .and_then(|(_, found)| found.span),
                    key: map.key.clone(),
                    error: Arc::new(LoadError::Invalid(errors)),
                }),
                _ => Ok(map),
            }
        }
        Err(e) => Err(e),
    };
    // The fit check's ranges are the build text's (what the map describes); every other range is today's text's
    // (the comment naming the map, the map's own file).
    let in_build = result.is_ok();
    let diagnostics = match result {
        // The fit check runs here, in the background of the open or edit (a hover only reads its result).
        Ok(map) => tokio::task::block_in_place(|| fit_now(b, &map, Some(&path)))
            .and_then(|report| map_mismatch(&report))
            .into_iter()
            .collect(),
        Err(MapProblem::NotAFile) | Err(MapProblem::NotABundle) => Vec::new(),
        Err(MapProblem::NoMap(n)) => match n.span {
            Some(s) => vec![Diagnostic {
                code: n
                    .not_found
                    .then(|| NumberOrString::String(NO_SOURCE_MAP.into())),
                ..diagnostic(
                    Range::new(Position::new(s.line, s.start), Position::new(s.line, s.end)),
                    n.message,
                )
            }],
            None if n.not_found && b.rope(&uri).is_some_and(|r| looks_like_bundle(&path, &r)) => {
                vec![no_comment(&path)]
            }
            // Attached through the `maps` setting, but unusable (a URL with `devServer` off, a fetch that failed).
            None if n.attached => vec![Diagnostic {
                severity: Some(DiagnosticSeverity::WARNING),
                code: Some(NumberOrString::String(NO_SOURCE_MAP.into())),
                ..diagnostic(Range::default(), n.message)
            }],
            None => Vec::new(),
        },
        Err(MapProblem::Load { span, key, error }) => {
            let map_path = key.file().map(Path::to_path_buf);
            if map_path.as_deref() == Some(path.as_path()) {
                on_map_file(&path, &error, b.settings.max_map_bytes).await
            } else {
                // Also on the map document, when it is open.
                if let Some(mp) = &map_path {
                    if let Ok(map_uri) = Url::from_file_path(mp) {
                        if b.document(&map_uri).is_some() {
                            let max_bytes = b.settings.max_map_bytes;
                            let diagnostics = on_map_file(mp, &error, max_bytes).await;
                            b.client
                                .publish_diagnostics(map_uri, diagnostics, None)
                                .await;
                        }
                    }
                }
                let range = span.map_or(Range::default(), |s| {
                    Range::new(Position::new(s.line, s.start), Position::new(s.line, s.end))
                });
                let prefix = map_path.map_or("inline source map".to_string(), |p| {
                    format!("source map {}", p.display())
                });
                match &*error {
                    LoadError::Invalid(errors) => errors
                        .0
                        .iter()
                        .take(MAX_DIAGNOSTICS)
                        .map(|e| diagnostic(range, format!("{prefix}: {e}")))
                        .collect(),
                    other => vec![diagnostic(range, format!("{prefix}: {other}"))],
                }
            }
        }
    };
    // Placed in the server's text: the fit check's, in the build text (what the map describes), where that is in
    // today's text (after the edits since; a range whose end an edit removed has no place there and is not shown);
    // and as the client counts it (one column less on line 0 after a byte-order mark it dropped).
    let diagnostics = diagnostics
        .into_iter()
        .filter_map(|d| {
            let range = if in_build {
                b.range_from_build(&uri, d.range)?
            } else {
                b.range_to_client(&uri, d.range)
            };
            Some(Diagnostic { range, ..d })
        })
        .collect();
    b.client.publish_diagnostics(uri, diagnostics, None).await;
}

/// Recomputes diagnostics of every open document (after a map changed or settings changed).
pub fn refresh_all(b: &Arc<crate::lsp::workspace::backend::Backend>) {
    let uris: Vec<Url> = b
        .docs
        .lock()
        .expect("documents lock")
        .uris()
        .cloned()
        .collect();
    for uri in uris {
        let b = b.clone();
        tokio::spawn(async move { publish(&b.snapshot(), uri).await });
    }
}
