//! Jest moves the columns of line 1. jest-runtime runs every file as one line of wrapper and the file's code,
//! `({"Object.<anonymous>":function(module,exports,require,__dirname,__filename,jest){` + code
//! (`wrapCodeInModuleWrapper`, `constructModuleWrapperStart`), and passes `columnOffset: wrapperLength` to
//! `vm.Script` (`createScriptFromCode`, jest-runtime 29.7.0 `build/index.js`), an offset V8 adds to line 1's columns.
//! So a frame on line 1 of a file Jest ran (a one-line minified bundle) reports a column moved right by a constant
//! that depends on Jest's version and its injected parameters (measured: +102 with Jest 29.7.0 on esbuild's bundle of
//! `fixtures/traces/jest-columns`, whose node trace is the truth); later lines are not moved. Read as they are, such
//! frames give a plausible wrong place.
//!
//! The constant is not printed anywhere, so it is taken from the frames themselves: V8 reports a call at the start
//! of the token the bundler mapped (see `bundle::fit::frames_evidence`), so in the right place every frame of a file
//! lands exactly on a segment. The one shift under which all of a file's line-1 frames do (three at least), where
//! unshifted they do not, is Jest's; when no single shift does, those frames are not answered: on a dense minified
//! line several shifts fit a few frames, and a plausible wrong place is the worst answer.

use std::collections::HashMap;

use crate::map::index::{GeneratedPosition, SourceMapIndex};
use crate::map::metro::Space;
use crate::trace::stack::{Precision, StackLine};
use crate::trace::symbolicate::frame_space;
use crate::Bias;

/// The largest wrapper looked for: Jest's is 82 characters with its default parameters, plus its configured
/// `sandboxInjectedGlobals`.
pub const MAX_WRAPPER: u32 = 1024;

/// Whether `lines` are Jest's output: its summary (`Test Suites: `, `@jest/reporters` SummaryReporter), or a failed
/// test's header (`● suite › test`, jest-message-util `formatResultsErrors`) together with a frame in a test file
/// (`.test.`, `.spec.`, `__tests__/`: Jest's default `testMatch`). A `●` alone is not enough: systemd, linters and
/// other tools print that bullet. Colour codes are read past.
pub fn is_jest_output<'a>(lines: impl IntoIterator<Item = &'a str>) -> bool {
    let (mut summary, mut header, mut test_frame) = (false, false, false);
    for line in lines {
        let plain = crate::trace::ansi::strip(line).map(|s| s.text);
        let t = plain.as_deref().unwrap_or(line).trim_start();
        summary |= t.starts_with("Test Suites: ");
        header |= t.starts_with("● ");
        test_frame |= t.starts_with("at ")
            && [".test.", ".spec.", "__tests__/"]
                .iter()
                .any(|m| t.contains(m));
    }
    summary || (header && test_frame)
}

/// The shortest module wrapper Jest writes: `({"Object.<anonymous>":function(module,exports,require,__dirname,__filename){`
/// (77 characters, `injectGlobals: false`); a smaller shift is never Jest's.
pub const MIN_WRAPPER: u32 = 77;

/// How many line-1 frames of a file must single a shift out for it to be taken back.
pub const MIN_FRAMES: usize = 3;

/// What Jest's wrapper did to a file's line-1 frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineOneColumns {
    /// They land on segments as printed: nothing moved them (a file Jest's transform mapped, or line 1 is not code).
    AsPrinted,
    /// Every one lands on a segment once moved this many columns left, and no other shift does that.
    MovedBy(u32),
    /// Neither: where they are cannot be told.
    Unknown,
}

/// The shift of a file's line-1 frames (`columns`: 0-based UTF-16 columns as printed, on generated line 0 of `index`).
pub fn line_one_columns(index: &SourceMapIndex, columns: &[u32]) -> LineOneColumns {
    let exact = |column: u32| {
        let p = GeneratedPosition { line: 0, column };
        matches!(
            index.lookup(p, Bias::GreatestLowerBound),
            Ok(Some(hit)) if hit.generated == p && hit.original.is_some()
        )
    };
    if columns.iter().all(|&c| exact(c)) {
        return LineOneColumns::AsPrinted;
    }
    let lowest = columns.iter().copied().min().unwrap_or(0);
    // The same position printed by several failed tests is one piece of evidence, not several.
    let mut distinct = columns.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    let columns = &distinct[..];
    let mut found = None;
    for shift in MIN_WRAPPER..=MAX_WRAPPER.min(lowest) {
        if columns.iter().all(|&c| exact(c - shift)) {
            if found.is_some() {
                return LineOneColumns::Unknown;
            }
            found = Some(shift);
        }
    }
    match found {
        // A frame lands on some segment under many shifts by chance (a minified line has a segment every few
        // columns: three frames of esbuild's bundle land on segments under 7 shifts up to 211): only a shift that
        // three or more frames single out is taken.
        Some(shift) if columns.len() >= MIN_FRAMES => LineOneColumns::MovedBy(shift),
        _ => LineOneColumns::Unknown,
    }
}

/// In Jest's output (`is_jest_output` on its text lines), the line-1 frames of each map's own file moved back by the
/// shift they single out, or, where none is told, marked: per frame (in order), `Ok(columns taken back)` or
/// `Err(why it is not answered)`; `None` for the others and for any other output. `maps`: each frame's map (the
/// caller's identifier), `index` its index. The CLI and the server both call it before looking frames up.
pub fn take_back_line_one<'a>(
    lines: &mut [StackLine],
    maps: &[Option<usize>],
    index: impl Fn(usize) -> &'a SourceMapIndex,
) -> Vec<Option<Result<u32, &'static str>>> {
    let texts = lines.iter().filter_map(|l| match l {
        StackLine::Text(t) => Some(t.as_str()),
        StackLine::Frame(_) => None,
    });
    let mut frames: Vec<&mut crate::trace::stack::StackFrame> = Vec::new();
    let jest = is_jest_output(texts);
    for l in lines.iter_mut() {
        if let StackLine::Frame(f) = l {
            frames.push(f);
        }
    }
    let mut out = vec![None; frames.len()];
    if !jest {
        return out;
    }
    let mut by_map: HashMap<usize, Vec<usize>> = HashMap::new();
    for (k, f) in frames.iter().enumerate() {
        let (Some(&Some(m)), Some(p)) = (maps.get(k), f.generated) else {
            continue;
        };
        // A RAM bundle's module or a segment is another file than the map's own.
        let own_file = frame_space(index(m), f, p) == Ok((Space::Main, p));
        if p.line == 0 && f.precision == Precision::Column && !f.in_eval && own_file {
            by_map.entry(m).or_default().push(k);
        }
    }
    for (m, ks) in by_map {
        let columns: Vec<u32> = ks
            .iter()
            .filter_map(|&k| frames[k].generated.map(|g| g.column))
            .collect();
        match line_one_columns(index(m), &columns) {
            LineOneColumns::AsPrinted => {}
            LineOneColumns::MovedBy(shift) => {
                for &k in &ks {
                    if let Some(g) = frames[k].generated.as_mut() {
                        g.column -= shift;
                    }
                    out[k] = Some(Ok(shift));
                }
            }
            LineOneColumns::Unknown => {
                for &k in &ks {
                    out[k] = Some(Err(UNKNOWN_SHIFT));
                }
            }
        }
    }
    out
}

/// The frames [`take_back_line_one`] could not place (`shifts`, in the same order) stay as printed, with the reason.
pub fn withhold_unknown_shifts(
    out: &mut [crate::trace::symbolicate::SymbolicatedLine],
    shifts: &[Option<Result<u32, &'static str>>],
) {
    let frames = out
        .iter_mut()
        .filter_map(crate::trace::symbolicate::SymbolicatedLine::frame_mut);
    for (f, shift) in frames.zip(shifts) {
        if let Some(Err(why)) = shift {
            f.original = None;
            f.ignored = false;
            f.unresolved = Some((*why).to_string());
        }
    }
}

/// Why a line-1 frame of Jest's output is not answered, when no shift could be told.
pub const UNKNOWN_SHIFT: &str = "Jest moves the columns of a file's first line by its module wrapper (jest-runtime \
    passes columnOffset to vm.Script), and these frames do not tell by how much: not mapped (run the bundle so that \
    its code starts on line 2, a banner line, or give more frames of it)";

#[cfg(test)]
mod tests {
    use super::*;

    /// Segments at columns 10, 20, 35 and 50 of line 0, each to its own original line.
    fn index() -> SourceMapIndex {
        let map = r#"{"version":3,"sources":["a.js"],"names":[],"mappings":"UAAA,UACA,eACA,eACA"}"#;
        SourceMapIndex::from_bytes(map.as_bytes().to_vec()).unwrap()
    }

    #[test]
    fn the_one_shift_that_lands_every_frame_on_a_segment_is_taken_back() {
        let index = index();
        assert_eq!(
            line_one_columns(&index, &[10, 35]),
            LineOneColumns::AsPrinted
        );
        assert_eq!(
            line_one_columns(&index, &[112, 137, 152]),
            LineOneColumns::MovedBy(102)
        );
        // One position printed three times (three failed tests through one helper) is one frame's evidence.
        assert_eq!(
            line_one_columns(&index, &[140, 140, 140]),
            LineOneColumns::Unknown
        );
        // One frame lands on a segment under several shifts: not told; nor is a shift two frames alone single out.
        assert_eq!(line_one_columns(&index, &[140]), LineOneColumns::Unknown);
        assert_eq!(
            line_one_columns(&index, &[112, 137]),
            LineOneColumns::Unknown
        );
        // Two frames that no single shift lands: not told.
        assert_eq!(
            line_one_columns(&index, &[113, 137]),
            LineOneColumns::Unknown
        );
    }

    #[test]
    fn jest_output_is_known_by_its_summary_or_a_failed_tests_header() {
        assert!(is_jest_output([
            "  ● report",
            "      at p (dist/app.min.js:1:628)",
            "      at Object.<anonymous> (tests/report.test.cjs:5:3)"
        ]));
        assert!(is_jest_output(["Test Suites: 1 failed, 1 total"]));
        assert!(is_jest_output([
            "\u{1b}[1m\u{1b}[31m  \u{1b}[1m● \u{1b}[22m\u{1b}[1mreport\u{1b}[39m\u{1b}[22m",
            "      \u{1b}[2mat Object.<anonymous> (\u{1b}[22mtests/report.test.cjs\u{1b}[2m:5:3)\u{1b}[22m"
        ]));
        // A bullet alone is not Jest: systemd prints one before a node trace.
        assert!(!is_jest_output([
            "● demo.service - Demo app",
            "    at parseOrder (dist/app.min.js:1:50)"
        ]));
        assert!(!is_jest_output([
            "TypeError: x",
            "    at p (dist/app.min.js:1:526)"
        ]));
    }
}
