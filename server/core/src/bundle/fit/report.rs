//! What the fit check says: the verdict, the stretches that do not fit, the shift that makes them fit, and the
//! report's messages.

use super::evidence::{Evidence, MisfitRegion};
use crate::bundle::hermes_bytecode::BytecodeFit;
use crate::map::index::{GeneratedPosition, SourceId};
use crate::map::position::Shift;
use std::borrow::Cow;

/// The verdict of [`check_fit`](super::check_fit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every stretch of the map fits the text (or the evidence is too thin to say otherwise).
    Fits,
    /// Some or all of the map does not fit (Hermes bytecode: the whole file, when the map's function offsets are
    /// not the file's).
    Misfit,
    /// Not checked: the generated file is not text (and not Hermes bytecode of a known version), or the map has no
    /// segment to check.
    Unknown,
}

/// What [`check_fit`](super::check_fit) found.
#[derive(Debug, Clone, PartialEq)]
pub struct FitReport {
    /// The verdict.
    pub verdict: Verdict,
    /// Every segment checked.
    pub evidence: Evidence,
    /// The stretches that do not fit, in order (empty when the map fits).
    pub regions: Vec<MisfitRegion>,
    /// Lines to add to every generated line of the map so that it fits, when the whole map fits so shifted (a
    /// banner of N lines prepended to the bundle: N).
    pub shift_lines: Option<i64>,
    /// Lines each of whose segments fit once moved by one number of columns, the whole map fitting so (text put at
    /// the start of a line after the map was made: a banner on a one-line bundle, Bootstrap 5.3's ` */` before its
    /// stylesheet). `regions` are then exactly those lines.
    pub column_shifts: Vec<ColumnShift>,
    /// The map counts generated columns in UTF-8 bytes where the format counts UTF-16 code units: every segment fits
    /// read so, not as UTF-16. Per line where that matters (it has a segment after its first non-ASCII character):
    /// the line and the UTF-16 column of that character. Up to it both counts agree; `regions` are exactly what
    /// follows it on each such line.
    pub byte_columns: Vec<(u32, u32)>,
    /// The bundle's `//# debugId=` and the map's `debugId`, when both are there and differ.
    pub debug_id_mismatch: Option<(String, String)>,
    /// Why the verdict is [`Verdict::Unknown`].
    pub unknown_because: Option<Cow<'static, str>>,
    /// How the map was judged against Hermes bytecode (`bundle::hermes_bytecode`: its `x_hermes_function_offsets`
    /// against the file's function table), when the generated file is bytecode: a misfit is the whole file's (one
    /// region from its start, no segment read).
    pub bytecode: Option<BytecodeFit>,
    /// Generated lines the map's segments reach (1 + the greatest line of a segment).
    pub map_lines: u32,
    /// Lines of the text.
    pub text_lines: u64,
    /// The bundle's `//# debugId=`, when it has one.
    pub bundle_debug_id: Option<String>,
    /// What was read: every segment, or stretches near the frames and across the map ([`check_fit_near`](super::check_fit_near)).
    pub checked: Checked,
    /// Where answers resume after stretches that do not fit: the line after the one where the last stretch ends,
    /// when every stretch ends and the map fits the text strongly after the last one (`resumes_after_stretches`).
    pub resumes_at: Option<GeneratedPosition>,
    /// The sources of the segments in the stretches that do not fit and in the unconfirmed run before each (sorted):
    /// an edit of one of them since the map was made moves its later answers even where its segments land well (the
    /// misfit corpus's stale `lines-in-fn`: two lines added in a function, the file's later lines answered 2 lines
    /// early), so answers in them stay withheld after `resumes_at`.
    pub misfit_sources: Vec<SourceId>,
    /// The first segment checked: a region starting there covers the map from its start.
    pub(super) first_checked: GeneratedPosition,
}

/// A line of the text whose segments all fit once moved by `columns` ([`FitReport::column_shifts`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnShift {
    /// The line (0-based), the map's and the text's alike.
    pub line: u32,
    /// Columns to add to each of the map's columns on the line (text put at its start: its length).
    pub columns: i64,
    /// What stands at the start of the line in the shift's place, when something was added (up to 40 characters).
    pub added: Option<String>,
}

/// The shift the fit check found.
impl Shift {
    /// The shift the fit check found, if any.
    pub fn of(report: &FitReport) -> Option<Shift> {
        if let Some(lines) = report.shift_lines {
            return Some(Shift {
                lines,
                columns: Vec::new(),
            });
        }
        (!report.column_shifts.is_empty()).then(|| Shift {
            lines: 0,
            columns: report
                .column_shifts
                .iter()
                .map(|s| (s.line, s.columns))
                .collect(),
        })
    }
}

/// How much of the map a [`FitReport`] read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checked {
    /// Every segment ([`check_fit`](super::check_fit)); also every report that is not [`Verdict::Fits`].
    Whole,
    /// The stretches around the frames and a fixed sample across the map, all of which fit ([`check_fit_near`](super::check_fit_near)).
    NearFrames {
        /// How many stretches were read (runs of checkpoints, overlapping ones merged).
        stretches: usize,
    },
}

impl FitReport {
    /// The first generated position from which the map stops fitting.
    pub fn first_bad(&self) -> Option<GeneratedPosition> {
        if self.debug_id_mismatch.is_some() && self.regions.is_empty() {
            return Some(GeneratedPosition::default());
        }
        self.regions.first().map(|r| r.start)
    }

    /// Whether an answer at `p` comes from the part of the map from which it stops fitting: every position from
    /// the first stretch that does not fit on, even where the text fits again after it. A map that stops fitting is
    /// another build's: where its segments land at token starts again (code after an edit), the original positions
    /// they carry may still be the other build's (measured: an edited module's later lines fit the text and answer
    /// lines that moved since).
    pub fn marks(&self, p: GeneratedPosition) -> bool {
        self.marks_answer(p, || None)
    }

    /// [`FitReport::marks`] for an answer whose source is known (`source`, asked only when it decides): after the
    /// stretches that do not fit, where the map fits the text again on later lines ([`FitReport::resumes_at`]), an
    /// answer in a source none of those stretches holds ([`FitReport::misfit_sources`]) is given.
    pub fn marks_answer(
        &self,
        p: GeneratedPosition,
        source: impl FnOnce() -> Option<SourceId>,
    ) -> bool {
        if self.verdict != Verdict::Misfit {
            return false;
        }
        if self.resumes_at.is_some_and(|r| p >= r)
            && self.shift_lines.is_none()
            && self.debug_id_mismatch.is_none()
            && self.column_shifts.is_empty()
            && self.byte_columns.is_empty()
            && source().is_some_and(|s| self.misfit_sources.binary_search(&s).is_err())
        {
            return false;
        }
        // What a column shift or byte columns leave wrong is known exactly: the rest of the map fits.
        if !self.column_shifts.is_empty() || !self.byte_columns.is_empty() {
            return self
                .regions
                .iter()
                .any(|r| r.start <= p && r.end.is_none_or(|end| p < end));
        }
        self.first_bad().is_some_and(|first| p >= first) || self.shift_lines.is_some()
    }

    /// Why an answer at `p` is withheld, when it is (`marks`): the one message every caller gives with the frame or
    /// hover it does not answer.
    pub fn withheld(&self, p: GeneratedPosition) -> Option<String> {
        self.withheld_answer(p, || None)
    }

    /// [`FitReport::withheld`] for an answer whose source is known ([`FitReport::marks_answer`]).
    pub fn withheld_answer(
        &self,
        p: GeneratedPosition,
        source: impl FnOnce() -> Option<SourceId>,
    ) -> Option<String> {
        self.marks_answer(p, source).then(|| {
            format!(
                "map-mismatch: the source map does not fit its bundle here, so its answer would most likely be another \
                 place: {}",
                self.message()
            )
        })
    }

    /// One paragraph: what is wrong, the evidence, and what to do. Positions as the CLI prints them (1-based lines,
    /// 0-based columns).
    pub fn message(&self) -> String {
        let at = |p: GeneratedPosition| format!("{}:{}", p.line + 1, p.column);
        if let Some(bytecode) = &self.bytecode {
            return bytecode.message();
        }
        if let Some((bundle, map)) = &self.debug_id_mismatch {
            return format!(
                "the map is not this bundle's: the bundle's debug ID is {bundle}, the map's {map}. Use the map \
                 whose debugId is {bundle} (or rebuild both together)."
            );
        }
        if let Some(shift) = self.shift_lines {
            let how = if shift > 0 {
                format!(
                    "{shift} line{} added before the code after the map was made (a banner or license header?)",
                    if shift == 1 { " was" } else { "s were" }
                )
            } else {
                format!(
                    "{} line{} removed from the top of the bundle after the map was made",
                    -shift,
                    if shift == -1 { " was" } else { "s were" }
                )
            };
            return format!(
                "the map does not fit this bundle as it is, but fits every line once shifted by {shift:+} lines: \
                 {how}. Its answers are {} lines off. Make the map after the banner is added (or add the banner with \
                 the bundler's own banner option), or apply the shift explicitly (the CLI's --apply-shift).",
                shift.abs()
            );
        }
        if let Some(message) = self.column_shift_message() {
            return message;
        }
        if let Some(&(line, column)) = self.byte_columns.first() {
            let lines = match self.byte_columns.len() {
                1 => format!("line {}", line + 1),
                n => format!("{n} lines, the first {}", line + 1),
            };
            return format!(
                "the map counts this bundle's columns in UTF-8 bytes, where source maps count UTF-16 code units: \
                 every segment fits once its column is read as a byte offset, and those after a non-ASCII character \
                 do not fit as the format reads them. Up to a line's first non-ASCII character the two counts agree and answers are \
                 given; after it they would be off by the extra bytes (2 for `—`), so they are withheld ({lines}, \
                 from {}). The tool that made the map is at fault (known: lightningcss, its issue #780; Bun before \
                 its PR #32838): report it there, or keep non-ASCII characters out of the output (escaped).",
                at(GeneratedPosition {
                    line,
                    column: column + 1
                })
            );
        }
        let Some(first) = self.regions.first() else {
            return "the map fits the bundle".to_string();
        };
        let whole = first.start == self.first_checked && first.end.is_none();
        let span = if whole {
            "the map does not fit this bundle anywhere".to_string()
        } else {
            format!(
                "the map stops fitting this bundle at {}; answers before {} are unaffected, from there on they \
                 are withheld",
                at(first.start),
                at(first.start)
            )
        };
        let more = if self.regions.len() > 1 {
            format!(" ({} stretches in all)", self.regions.len())
        } else {
            String::new()
        };
        // Every stretch ends and the map fits the text again after the last: an edit since the map was made (whose
        // later answers are the old places, though their segments land well: the misfit corpus's stale statement
        // change) or a producer's glitch (swc's segments where it makes `x["a"]` into `x.a`, in Next.js's Turbopack
        // chunks). The landings cannot tell the two apart, so the message says both.
        let last_end = self.regions.last().and_then(|r| r.end);
        if let (false, Some(end)) = (
            whole,
            last_end.filter(|_| self.regions.iter().all(|r| r.end.is_some())),
        ) {
            return format!(
                "{span}{more}: {} there (a map that fits puts its segments at token starts), and it fits the text \
                 again from {}. Either the map was made before an edit there (a stale map, whose answers after an \
                 edit are the old places even where its segments land well) or the tool that made it put those \
                 segments wrongly (swc does where it rewrites `x[\"a\"]` into `x.a`): if the bundle and the map \
                 come from one build, the tool is at fault there; if not, rebuild so that they do.{}",
                first.evidence.describe(),
                at(end),
                self.resumes_at.map_or(String::new(), |r| format!(
                    " From line {} on, where the map fits again, answers in other files than the {} the stretch \
                     holds are given (an edit there would have moved them or made them not fit).",
                    r.line + 1,
                    self.misfit_sources.len()
                ))
            );
        }
        format!(
            "{span}{more}: {} there (a map that fits puts its segments at token starts). The map was most likely \
             made for another build of this file (a stale map, or another bundle's): rebuild so that the bundle and \
             its map come from the same build, or choose the map of this build.",
            first.evidence.describe()
        )
    }
}

impl FitReport {
    /// The message of [`FitReport::column_shifts`], when there are some.
    fn column_shift_message(&self) -> Option<String> {
        let first = self.column_shifts.first()?;
        let by = |s: &ColumnShift| {
            format!(
                "{:+} column{}",
                s.columns,
                if s.columns.abs() == 1 { "" } else { "s" }
            )
        };
        let lines = if self.column_shifts.len() == 1 {
            format!(
                "line {} once its columns are shifted by {}",
                first.line + 1,
                by(first)
            )
        } else {
            let each: Vec<String> = self
                .column_shifts
                .iter()
                .map(|s| format!("{} by {}", s.line + 1, by(s)))
                .collect();
            format!("lines {} once their columns are shifted", each.join(", "))
        };
        let how = match &first.added {
            Some(added) => format!(
                "`{added}` was put at the start of line {} after the map was made (a banner or a comment?)",
                first.line + 1
            ),
            None if first.columns > 0 => format!(
                "{} put at the start of line {} after the map was made",
                characters(first.columns),
                first.line + 1
            ),
            // A byte-order mark the map counts and an editor dropped is one such character (the server puts
            // it back; this says it where no one did).
            None => format!(
                "{} removed from the start of line {} after the map was made (a byte-order mark?)",
                characters(-first.columns),
                first.line + 1
            ),
        };
        Some(format!(
            "the map does not fit this bundle as it is, but fits every segment of {lines}: {how}. Its answers there \
             are {} off, so they are withheld; the other lines answer. Make the map after the text is \
             added (or add it with the producer's own banner option), or apply the shift explicitly (the CLI's \
             --apply-shift).",
            columns(first.columns.abs())
        ))
    }

    pub(super) fn new(verdict: Verdict) -> Self {
        FitReport {
            verdict,
            evidence: Evidence::default(),
            regions: Vec::new(),
            shift_lines: None,
            column_shifts: Vec::new(),
            byte_columns: Vec::new(),
            debug_id_mismatch: None,
            unknown_because: None,
            bytecode: None,
            map_lines: 0,
            text_lines: 0,
            bundle_debug_id: None,
            checked: Checked::Whole,
            resumes_at: None,
            misfit_sources: Vec::new(),
            first_checked: GeneratedPosition::default(),
        }
    }
}

/// "1 character was", "3 characters were".
fn characters(n: i64) -> String {
    match n {
        1 => "1 character was".to_string(),
        n => format!("{n} characters were"),
    }
}

/// "1 column", "3 columns".
fn columns(n: i64) -> String {
    match n {
        1 => "1 column".to_string(),
        n => format!("{n} columns"),
    }
}
