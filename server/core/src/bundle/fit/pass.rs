//! The whole pass over the map's segments (on two threads past a size), and where a misfit stretch resumes.

use super::evidence::MisfitRegion;
use super::evidence::{Detector, Evidence, Landing, MID_IDENTIFIER_IF_FIT};
use super::shift_search::SHIFT_SAMPLE;
use super::text::FitText;
use crate::bundle::columns::LineIndex;
use crate::bundle::fit_literals::{Inside, Literals};
use crate::map::error::MapError;
use crate::map::index::{GeneratedPosition, SourceId, SourceMapIndex};

/// One segment with an original position, as the decoding thread hands it to the checking one.
#[derive(Clone, Copy)]
pub(super) struct Observed {
    section: u32,
    at: GeneratedPosition,
    name: Option<u32>,
    source: SourceId,
}

/// The state of the pass over the segments.
pub(super) struct Pass<'a> {
    /// Read the names a lazy index left in the map file (see [`check_whole`]).
    pub(super) read_names: bool,
    /// Named segments at a token start whose name was left in the file, not read.
    pub(super) names_unread: u64,
    pub(super) lines: FitText<'a>,
    pub(super) literals: Literals,
    pub(super) detector: Detector,
    pub(super) evidence: Evidence,
    pub(super) sample: Vec<(GeneratedPosition, Option<Box<str>>)>,
    pub(super) first_checked: Option<GeneratedPosition>,
    pub(super) map_lines: u32,
}

impl Pass<'_> {
    fn observe(&mut self, index: &SourceMapIndex, o: Observed) {
        let p = o.at;
        self.first_checked.get_or_insert(p);
        self.map_lines = self.map_lines.max(p.line + 1);
        // The name is looked up only where it can count: a token start (a mid-identifier landing is one anyway).
        let mut name = None;
        let mut landing = self.lines.landing(p.line, p.column, None);
        // Inside a number, or past the end of a line inside a template literal: where producers put segments of maps
        // that fit (`Landing::InLiteral`).
        if matches!(landing, Landing::MidIdentifier | Landing::PastLineEnd) {
            let inside = self
                .lines
                .byte_asked(p.line, p.column, landing)
                .and_then(|q| self.literals.at(self.lines.bytes, q));
            let literal = match (landing, inside) {
                (Landing::MidIdentifier, Some(i)) => i == Inside::Number,
                (_, i) => i == Some(Inside::Template),
            };
            if literal {
                landing = Landing::InLiteral;
            }
        }
        if let (Landing::TokenStart, Some(n)) = (landing, o.name) {
            let section = o.section as usize;
            let read = if self.read_names {
                index.segment_name(section, n)
            } else {
                index.segment_name_if_loaded(section, n)
            };
            if read.is_none() && !index.segment_names_loaded(section) {
                self.names_unread += 1;
            }
            name = read.filter(|n| n.len() >= 3);
            if let Some(n) = name {
                self.evidence.names_checked += 1;
                landing = self.lines.landing(p.line, p.column, Some(n));
            }
        }
        self.evidence.add(landing);
        self.detector.note_source(o.source);
        self.detector.push(p, landing);
        if self.sample.len() < SHIFT_SAMPLE {
            self.sample.push((p, name.map(Box::from)));
        }
    }
}

/// Maps with at least this much VLQ are checked on two threads: one decodes (and validates) the segments, the
/// other classifies them and runs the detector. Measured on the benchmark's Metro index map (10M segments,
/// `sourcemap-bench --fit-only`): `validate BUNDLE MAP` took 1.68× `validate MAP` on one thread, 1.13× on two.
pub(super) const TWO_THREADS_AFTER_BYTES: usize = 4 << 20;
/// Segments handed from the decoding thread to the checking one at a time.
pub(super) const BATCH: usize = 8192;

/// Every segment of `index` observed against `text`, in generated order.
pub(super) fn observe_all<'a>(
    index: &SourceMapIndex,
    text: &'a [u8],
    lines: Option<&'a LineIndex>,
    read_names: bool,
) -> Result<Pass<'a>, MapError> {
    let mut pass = Pass {
        read_names,
        names_unread: 0,
        lines: match lines {
            Some(lines) => FitText::shared(text, lines),
            None => FitText::new(text),
        },
        literals: Literals::new(),
        detector: Detector::default(),
        evidence: Evidence::default(),
        sample: Vec::new(),
        first_checked: None,
        map_lines: 0,
    };
    let sections = index.sections();
    let observed = |section: usize, seg: &crate::map::segment::Segment| {
        seg.original.and_then(|o| {
            Some(Observed {
                section: section as u32,
                at: sections[section].to_global(seg.line, seg.column),
                name: o.name,
                source: *sections[section].source_ids().get(o.source as usize)?,
            })
        })
    };
    if index.mappings_bytes() < TWO_THREADS_AFTER_BYTES {
        index.for_each_raw_segment_once(|section, seg| {
            if let Some(o) = observed(section, seg) {
                pass.observe(index, o);
            }
        })?;
        return Ok(pass);
    }
    let (to_check, batches) = std::sync::mpsc::sync_channel::<Vec<Observed>>(4);
    let (to_reuse, spent) = std::sync::mpsc::channel::<Vec<Observed>>();
    std::thread::scope(|scope| {
        let checker = scope.spawn(move || {
            for batch in batches {
                for &o in &batch {
                    pass.observe(index, o);
                }
                let _ = to_reuse.send(batch);
            }
            pass
        });
        let mut batch = Vec::with_capacity(BATCH);
        let decoded = index.for_each_raw_segment_once(|section, seg| {
            if let Some(o) = observed(section, seg) {
                batch.push(o);
                if batch.len() == BATCH {
                    let next = spent.try_recv().map_or_else(
                        |_| Vec::with_capacity(BATCH),
                        |mut v| {
                            v.clear();
                            v
                        },
                    );
                    // The checker ends only when this sender is dropped: sending cannot fail before.
                    let _ = to_check.send(std::mem::replace(&mut batch, next));
                }
            }
        });
        if !batch.is_empty() {
            let _ = to_check.send(batch);
        }
        drop(to_check);
        let pass = checker
            .join()
            .expect("the fit check's thread does not panic");
        decoded.map(|()| pass)
    })
}

/// Segments after the last stretch that does not fit, at least, for answers to resume after it
/// ([`FitReport::resumes_at`]).
pub(super) const RESUME_AFTER_SEGMENTS: u64 = 200;

/// [`FitReport::resumes_at`]: the start of the line after the one where the last stretch that does not fit ends,
/// when every stretch ends and the segments after the last one (at least [`RESUME_AFTER_SEGMENTS`]) land inside
/// identifiers no more often than in a map that fits (`MID_IDENTIFIER_IF_FIT`) and never past a line's end or beyond
/// the text. A map of another build or another bundle does not fit that long (a third of its landings are inside
/// identifiers: its stretches of fit are short, and its last one stays open). An edit since the map was made moves
/// what follows it on its line (the misfit corpus's stale statement change: its stretch ends on the line, and the
/// answers after it there are the old places, though their segments land well), and every later line when it adds
/// or removes lines, which then does not fit: later lines that fit were neither moved nor edited.
pub(super) fn resumes_after_stretches(
    regions: &[MisfitRegion],
    after: Evidence,
) -> Option<GeneratedPosition> {
    let end = regions.last()?.end?;
    if regions.iter().any(|r| r.end.is_none()) {
        return None;
    }
    let quiet = after.segments >= RESUME_AFTER_SEGMENTS
        && after.past_line_end == 0
        && after.beyond_text == 0
        && (after.mid_identifier as f64) <= MID_IDENTIFIER_IF_FIT * after.segments as f64;
    quiet.then_some(GeneratedPosition {
        line: end.line + 1,
        column: 0,
    })
}
