//! Evidence about frames themselves: how likely a frame's position is right, from the segments around it.

use super::evidence::{Landing, MID_IDENTIFIER_IF_MISFIT};
use super::is_binary;
use super::text::FitText;
use crate::bundle::columns::LineIndex;
use crate::map::index::{GeneratedPosition, SourceMapIndex};

/// How strongly a few frame positions say that `text` (with its map `index`) is the bundle they were recorded in,
/// against their being positions of another build that land here at random: a log-likelihood ratio (natural log),
/// `f64::NEG_INFINITY` when a position cannot be in this text (past its line's end, on a line it does not have).
///
/// The same evidence as the fit check, for frames instead of segments: an engine reports a call at the start of a
/// token (V8: the callee's name or `new`; JSC and SpiderMonkey likewise), and the bundler mapped that token, so in
/// the right bundle a frame lands at a token start on a segment of its own. A position of another build lands inside
/// an identifier about a third of the time (`MID_IDENTIFIER_IF_MISFIT`) and exactly on a segment start only as
/// often as segments start there (the density of the section's segments over its text). Measured on the round-trip
/// corpus (`fixtures/roundtrip`, the `exact` of each reference frame): 1,835 of 1,987 bundled frames start exactly on
/// a segment in their own bundle (swc, the lowest, 264 of 365).
///
/// Bytecode is no evidence either way (0).
pub fn frames_evidence(
    index: &SourceMapIndex,
    text: &[u8],
    lines: Option<&LineIndex>,
    positions: &[GeneratedPosition],
) -> f64 {
    if is_binary(text)
        || crate::bundle::locate::is_json_document(text)
        || text.trim_ascii().is_empty()
    {
        return 0.0;
    }
    // `lines`, when given, is `text`'s index kept beside it; else made here.
    let mut lines = match lines {
        Some(index) => FitText::shared(text, index),
        None => FitText::new(text),
    };
    let mut score = 0.0;
    for &p in positions {
        let landing = lines.landing(p.line, p.column, None);
        score += match landing {
            Landing::PastLineEnd | Landing::BeyondText => return f64::NEG_INFINITY,
            // (`landing` never says `InLiteral`: only the pass over a map's segments asks `fit_literals`.)
            Landing::LineEnd | Landing::InLiteral => 0.0,
            Landing::MidIdentifier => {
                (FRAME_MID_IDENTIFIER_IF_RIGHT / MID_IDENTIFIER_IF_MISFIT).ln()
            }
            Landing::TokenStart | Landing::OnItsName => {
                let exact = matches!(
                    index.lookup(p, crate::Bias::GreatestLowerBound),
                    Ok(Some(h)) if h.generated == p && h.original.is_some()
                );
                let density = segment_density(index, &lines, p);
                if exact {
                    (FRAME_EXACT_IF_RIGHT / density).ln()
                } else {
                    let random = (1.0 - MID_IDENTIFIER_IF_MISFIT - density).max(0.05);
                    ((1.0 - FRAME_EXACT_IF_RIGHT - FRAME_MID_IDENTIFIER_IF_RIGHT) / random).ln()
                }
            }
        };
    }
    score
}

/// Rate of frames exactly on a segment start in their own bundle, set below the lowest bundler's (swc: 72 %).
pub(super) const FRAME_EXACT_IF_RIGHT: f64 = 0.7;
/// Rate of frames inside an identifier in their own bundle: none of the round-trip corpus's 1,987.
pub(super) const FRAME_MID_IDENTIFIER_IF_RIGHT: f64 = 0.01;

/// The chance that a random column of the section holding `p` is a segment start: its segments over its text's
/// characters (bytes, which for minified code are nearly all ASCII), kept within [0.02, 0.6] so that one odd
/// section cannot decide alone.
pub(super) fn segment_density(
    index: &SourceMapIndex,
    lines: &FitText<'_>,
    p: GeneratedPosition,
) -> f64 {
    let Some(section) = index.section_at(p) else {
        return 0.6;
    };
    let Ok(compact) = index.compact(section) else {
        return 0.6;
    };
    let first = index.sections()[section].offset.line as usize;
    let last = (first + compact.line_count().max(1) as usize).min(lines.line_count());
    let chars = lines.starts[last].saturating_sub(lines.starts[first.min(last)]) as f64;
    (compact.segment_count() as f64 / chars.max(1.0)).clamp(0.02, 0.6)
}
