//! `--explain`: how each frame's answer was reached, or why there is none, one line per step of the session (the
//! map chosen and why, the bundle text and debug IDs, the position looked up, the segment it lands on, the fit
//! check, the answer, today's file). Written once here: the CLI prints it, any front end may show it.

use std::path::Path;

use crate::bundle::fit::{Checked, FitReport, Shift, Verdict};
use crate::map::index::{GeneratedPosition, SourceMapIndex};
use crate::map::metro::{metro_file, Space};
use crate::session::{Fit, FrameToday};
use crate::source::today::{moved_by, Status};
use crate::trace::stack::{FrameFormat, Precision, StackFrame};
use crate::trace::symbolicate::{frame_segment_in, frame_space, SymbolicatedFrame};

/// The map a frame was answered from, as `--explain` tells it.
pub struct ExplainedMap<'a> {
    /// How the place found the map (a path and the rule: given, the bundle's comment, a directory of maps…).
    pub found: &'a str,
    /// The map's index.
    pub index: &'a SourceMapIndex,
    /// Its fit against its bundle, when it was checked.
    pub fit: Option<&'a Fit>,
    /// The map the answer was followed into, as found, when the map's source is itself generated and that map was
    /// given too (a chain: hermesc's map, then Metro's).
    pub then: Option<&'a str>,
}

/// How a frame's answer was reached, or why there is none: one line per step. `why` is the resolver's reason for
/// the frame's map (or for none), `printed` its position as printed, `shift` the lines it was moved by
/// (`--apply-shift`), `shown` how paths are written.
pub fn explain(
    f: &SymbolicatedFrame,
    why: &str,
    map: Option<ExplainedMap<'_>>,
    printed: Option<GeneratedPosition>,
    shift: Option<&Shift>,
    shown: &dyn Fn(&Path) -> String,
) -> Vec<String> {
    let at = |p: GeneratedPosition| format!("{}:{}", p.line + 1, p.column);
    let mut out = Vec::new();
    let Some(m) = map else {
        out.push(format!("no map: {why}"));
        return out;
    };
    out.push(format!("map: {} — chosen because {why}", m.found));
    let fit = m.fit;
    match fit {
        Some(Fit { bundle, report }) => {
            out.push(format!("bundle text: {}", shown(bundle)));
            out.push(explain_debug_ids(
                report.bundle_debug_id.as_deref(),
                m.index.debug_id.as_deref(),
            ));
        }
        None => out.push(
            "bundle text: not found (no file leads to this map), so the map's fit was not checked"
                .into(),
        ),
    }
    let Some(p) = printed else {
        out.push(format!(
            "no position: {}",
            f.unresolved.as_deref().unwrap_or("none printed")
        ));
        return out;
    };
    if f.frame.in_eval {
        out.push(
            "ran inside code made by eval: the position is the eval call site, the innermost origin the engine gives"
                .into(),
        );
    }
    if f.frame.precision == Precision::Line {
        out.push(
            "the trace gives a line only: answered at line level, where every segment of that generated line maps to \
             one original line"
                .into(),
        );
    }
    let mut lookup = p;
    if let Some(shift) = shift {
        lookup = shift.to_map(p).unwrap_or(lookup);
        out.push(format!(
            "shift applied (--apply-shift): {} looked up as {} ({})",
            at(p),
            at(lookup),
            shift.describe()
        ));
    }
    if f.frame.format == FrameFormat::HermesBytecode
        && m.index.x_hermes_function_offsets.is_none()
        && fit.is_some_and(|f| f.report.text_lines > 1)
    {
        out.push(
            "Hermes bytecode frame (an offset into the .hbc, on line 1) against the map of the JavaScript \
             bundle: compose the packager's and the compiler's maps (react-native's compose-source-maps) and \
             symbolicate with the composed map"
                .into(),
        );
    }
    out.push(explain_segment(m.index, &f.frame, lookup));
    if let Some(Fit { report, .. }) = fit {
        let source = m
            .index
            .answer_at(lookup)
            .ok()
            .flatten()
            .and_then(|h| h.original.map(|o| o.source));
        out.push(explain_fit(report, p, shift, source));
    }
    if let Some(why) = &f.unresolved {
        let why = if why.starts_with("map-mismatch") {
            "the map does not fit the bundle here"
        } else {
            why
        };
        out.push(format!("answer: none ({why})"));
    } else if let Some(o) = &f.original {
        if let Some(then) = m.then {
            out.push(format!(
                "the source it names is itself generated: followed into {then}, the map given for it (a chain of maps)"
            ));
        }
        out.push(format!(
            "answer: {}:{}:{}, function {} ({})",
            o.source.as_deref().unwrap_or("<no source>"),
            o.line + 1,
            o.column,
            o.function.as_deref().unwrap_or("unknown"),
            o.function_source
                .and_then(|s| serde_json::to_value(s).ok())
                .and_then(|v| v.as_str().map(|s| format!("from {s}")))
                .unwrap_or("no function found".into())
        ));
    }
    out
}

/// Where `lookup` lands among the map's segments, and what that segment says; for a frame in a RAM bundle's module
/// or a segment, first where the map places its file.
fn explain_segment(
    index: &SourceMapIndex,
    frame: &StackFrame,
    lookup: GeneratedPosition,
) -> String {
    let at = |p: GeneratedPosition| format!("{}:{}", p.line + 1, p.column);
    let (space, placed) = match frame_space(index, frame, lookup) {
        Ok(placed) => placed,
        Err(why) => return format!("position {}: {why}", at(lookup)),
    };
    let file = frame.file.as_deref().unwrap_or("");
    // The module's source, as Metro's x_metro_module_paths names it.
    let path = metro_file(file)
        .and_then(|f| index.module_path(f))
        .map(|p| format!(" ({p})"))
        .unwrap_or_default();
    let moved = match space {
        Space::Main if placed == lookup => String::new(),
        Space::Main => format!(
            "{file} is a module of this RAM bundle{path} starting on the map's line {} (x_facebook_offsets): ",
            placed.line - lookup.line + 1
        ),
        Space::Segment(_) if placed == lookup => {
            format!("{file} is a segment: looked up in its own map (x_facebook_segments): ")
        }
        Space::Segment(_) => format!(
            "{file} is a module of a segment{path}: looked up in the segment's map, from its line {} (x_facebook_offsets): ",
            placed.line - lookup.line + 1
        ),
    };
    let lookup = placed;
    moved
        + &match frame_segment_in(index, space, lookup) {
            Ok(Some(hit)) => {
                let exact = if hit.generated == lookup {
                    "lands on a segment".to_string()
                } else {
                    format!(
                        "lands {} columns after the segment at {}",
                        lookup.column - hit.generated.column,
                        at(hit.generated)
                    )
                };
                match hit.original {
                    Some(o) => format!(
                        "position {} {exact}, which the map says is {}:{}:{}{}",
                        at(lookup),
                        o.source_url.unwrap_or("<no source>"),
                        o.line + 1,
                        o.column,
                        o.name.map(|n| format!(" (name {n})")).unwrap_or_default()
                    ),
                    None => format!(
                        "position {} {exact} that maps to nothing (a 1-field segment)",
                        at(lookup)
                    ),
                }
            }
            Ok(None) => format!(
                "position {}: no segment at or before it on its line",
                at(lookup)
            ),
            Err(e) => format!("position {}: the map is invalid there: {e}", at(lookup)),
        }
}

/// What the fit check says of the map's bundle at `p` (the printed position).
fn explain_fit(
    report: &FitReport,
    p: GeneratedPosition,
    shift: Option<&Shift>,
    source: Option<crate::SourceId>,
) -> String {
    let at = |p: GeneratedPosition| format!("{}:{}", p.line + 1, p.column);
    let e = &report.evidence;
    if let Some(bytecode) = &report.bytecode {
        return if bytecode.fits() {
            format!("fit: {}", bytecode.message())
        } else {
            format!(
                "fit: not this bytecode's map, so this frame is not mapped: {}",
                bytecode.message()
            )
        };
    }
    match report.verdict {
        Verdict::Fits => match report.checked {
            Checked::Whole => format!(
                "fit: the map fits its bundle ({} segments checked, {} inside identifiers)",
                e.segments, e.mid_identifier
            ),
            Checked::NearFrames { stretches } => format!(
                "fit: the map fits its bundle around the frames and across a sample ({} segments checked in {} \
                 stretches, {} inside identifiers)",
                e.segments, stretches, e.mid_identifier
            ),
        },
        Verdict::Unknown => format!(
            "fit: not checked: {}",
            report.unknown_because.as_deref().unwrap_or("no evidence")
        ),
        Verdict::Misfit if shift.is_some() => format!(
            "fit: the map fits only shifted by {} (applied)",
            shift.map(Shift::describe).unwrap_or_default()
        ),
        Verdict::Misfit if report.marks_answer(p, || source) => {
            let e = report.regions.first().map(|r| r.evidence).unwrap_or(report.evidence);
            let mut s = match (Shift::of(report), &report.debug_id_mismatch) {
                (_, Some(_)) => "fit: the debug IDs differ, so this frame is not mapped".to_string(),
                (Some(shift), None) => format!(
                    "fit: the map fits only shifted by {} (a banner?), so this frame is not mapped \
                     (--apply-shift maps it shifted)",
                    shift.describe()
                ),
                (None, None) => format!(
                    "fit: the map stops fitting this bundle at {} ({} of {} segments from there land inside \
                     identifiers), so this frame is not mapped",
                    report.first_bad().map(at).unwrap_or_default(),
                    e.mid_identifier,
                    e.segments
                ),
            };
            if u64::from(report.map_lines) > report.text_lines.saturating_mul(2) + 10 {
                s.push_str(&format!(
                    "; the map describes {} lines, the bundle has {}: a development build's map for a \
                     production bundle?",
                    report.map_lines, report.text_lines
                ));
            }
            s
        }
        Verdict::Misfit if report.resumes_at.is_some_and(|r| p >= r) => format!(
            "fit: this position is after the stretches that do not fit (from {}), on a line from which the map fits \
             again ({}), in a source they do not hold: answered",
            report.first_bad().map(at).unwrap_or_default(),
            report.resumes_at.map(at).unwrap_or_default()
        ),
        Verdict::Misfit => format!(
            "fit: this position is before the part of the map that does not fit (from {}): answered",
            report.first_bad().map(at).unwrap_or_default()
        ),
    }
}

/// The bundle's and the map's debug IDs, compared.
fn explain_debug_ids(bundle: Option<&str>, map: Option<&str>) -> String {
    match (bundle, map) {
        (Some(b), Some(mid)) if b.eq_ignore_ascii_case(mid) => {
            format!("debug IDs agree: {b}")
        }
        (Some(b), Some(mid)) => {
            format!("debug IDs DIFFER: the bundle's {b}, the map's {mid}")
        }
        (Some(b), None) => format!("debug ID: the bundle has {b}, the map none"),
        (None, Some(mid)) => format!("debug ID: the map has {mid}, the bundle none"),
        (None, None) => "debug IDs: neither has one".into(),
    }
}

/// `--explain`'s line on the frame's source file here when it is not the map's copy: where the code is now in an
/// edit of the build's copy, or that the file holds other text.
pub fn explain_today(f: &SymbolicatedFrame, today: &FrameToday) -> String {
    let build_line = f.original.as_ref().map_or(0, |o| o.line);
    let file = today.path.display();
    let Some(now) = today.now else {
        return format!(
            "your file ({file}) is not the map's copy of this source (other text: a compiled copy under its name, or \
             another file): the answer is the copy's position"
        );
    };
    match now.status {
        Status::Unchanged | Status::Moved => format!(
            "your file now ({file}, edited since the build): this code is at {}:{} ({}); the answer is the build's position",
            now.line + 1,
            now.column,
            moved_by(build_line, now.line)
        ),
        Status::Changed => format!(
            "your file now ({file}, edited since the build): line {} was rewritten (line {} now); the answer is the \
             build's position",
            build_line + 1,
            now.line + 1
        ),
        Status::Deleted => format!(
            "your file now ({file}, edited since the build): line {} is gone (the code after it is at line {}); the \
             answer is the build's position",
            build_line + 1,
            now.line + 1
        ),
    }
}
