//! Does a map describe this generated text? The fit check between a bundle and its map.
//!
//! A map made for another build (a stale map, a banner prepended after the map was written, the map of another
//! bundle) still answers every lookup, and every answer looks right. The text tells: bundlers put segments at token
//! starts, so in a map that fits, a segment lands where a token starts; in a map that does not, segments land at
//! random places of the text: inside identifiers, past the end of their line, on lines the text does not have.
//! Named segments whose token is their name (unmangled properties and globals) are evidence the other way.
//!
//! Each segment that has an original position is one observation, classed by where it lands ([`Landing`]). The
//! observations are read in generated order and weighed as a log-likelihood ratio of "this stretch of the map does
//! not fit" against "it fits" ([`Landing::weight`]); a CUSUM change detector turns them into the stretches that do
//! not fit ([`MisfitRegion`]): the first where the summed evidence of a run reaches [`DETECT`], ending where a run
//! of evidence of fit reaches it the other way. So a map whose last module moved is caught from that module on, and
//! the answers before it stay usable. 1-field segments (Metro ends each module with one, inside the module id) map
//! to nothing and are not observations.
//!
//! When the whole map misfits, whole-line shifts are tried on a sample of its first segments (a banner of N lines
//! prepended makes every segment N lines early); a shift that fits the sample is then checked on the whole map.
//! Failing that, two misreadings of columns, each of which must then fit every segment: columns counted in UTF-8
//! bytes (lightningcss 1.33, its issue #780: a segment after a non-ASCII character is 2 columns right per `—`), and
//! a line whose segments are all off by one number of columns (Bootstrap 5.3.9's map of its `bootstrap.min.css` is 3
//! short on line 5, where ` */` ends the banner before the stylesheet). Then what is wrong is known exactly (after a
//! line's first non-ASCII character; the shifted lines), and the rest of the map answers.
//!
//! `symbolicate` needs the verdict at a few frames, not the whole map's: [`check_fit_near`] reads the stretches of
//! the map around the frames (a run-up of some 600 segments before each, as many after, so that a stretch that stops
//! fitting at or before a frame is seen) and a fixed sample across the map (its head, its tail and 64 evenly spaced
//! stretches: what proves the map belongs; a stale map's edit shifts every segment after it, so its misfit reaches
//! the tail), each through a detector of its own, resuming at the map's checkpoints (which the
//! frames' lookups build anyway). When all of them clearly fit, the map fits; at the first sign of misfit anywhere
//! it runs the whole check, so every misfit verdict, region, shift and message is the whole check's. The CLI's
//! `symbolicate` and `profile` and the server's `sourcemap/symbolicate` use it; `validate`, the server's diagnostics
//! over an opened bundle (and the hovers and map info that reuse their report), and every other caller check the
//! whole map.
//!
//! The weights come from measurements on real builds (`fixtures/mapfit`, `tests/mapfit.rs` prints the rates): on
//! matching maps of esbuild, terser, webpack and Rollup almost no segment lands inside an identifier; swc writes a
//! few mid-identifier segments all through a correct map (see `MID_IDENTIFIER_IF_FIT`); on a map that does not fit,
//! about a third of the segments land inside identifiers of minified code.
//!
//! Hermes bytecode has no lines to land on (its map's columns are bytecode addresses on line 1, which every compile's
//! map has): it is judged by its function table instead, against the map's `x_hermes_function_offsets`
//! (`bundle::hermes_bytecode`, `judge_bytecode`); a map that is not the compile's misfits over the whole file.
//!
//! Lines end at `\n` (a `\r` before it belongs to the terminator). Columns are UTF-16 code units, as in the map.
//!
//! Cost: one pass over the text to find its lines (4 B a line), one pass over the segments; a non-ASCII line gets a
//! table of one byte offset per 32 UTF-16 units the first time a segment lands on it (each line at most once), so no
//! map, however hostile, makes the check more than linear in the sizes of the text and the map.

use std::borrow::Cow;

use crate::bundle::columns::{byte_with_table, line_starts, utf16_table, LineIndex};
use crate::bundle::fit_literals::{Inside, Literals};
use crate::bundle::hermes_bytecode::{judge_map, read_bytecode, BytecodeFit};
use crate::map::error::MapError;
use crate::map::index::{GeneratedPosition, SourceId, SourceMapIndex};
pub use crate::map::position::Shift;
use crate::trace::stack::normalize_debug_id;

/// Where a segment lands in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Landing {
    /// At a token boundary (the character before it or at it is not part of an identifier), within its line.
    TokenStart,
    /// At a token boundary, on a token equal to the segment's name.
    OnItsName,
    /// Between two characters of one identifier (or word: a comment's or a string's text is words too).
    MidIdentifier,
    /// At the end of its line: neither sign (some bundlers map the end of a line).
    LineEnd,
    /// Past the end of its line.
    PastLineEnd,
    /// Inside a number (where a mid-identifier landing would be counted), or past its line's end where a template
    /// literal goes on across that end (`fit_literals`): real producers put segments there in maps that fit
    /// (Turbopack in the module ids it puts for import paths, SWC in template literals holding raw newlines), so it
    /// is no sign either way. Inside a string or a comment stays evidence: a stale map's landings there are, as
    /// measured on the misfit corpus (`tests/mapfit.rs`: counting strings too missed a stale pair).
    InLiteral,
    /// On a line the text does not have.
    BeyondText,
}

/// Rate of mid-identifier segments in a map that fits. swc writes some all through correct maps (measured on the
/// round-trip bundles: up to ~2 % of segments); other bundlers almost never. Set above what swc does, so swc's maps
/// stay quiet.
const MID_IDENTIFIER_IF_FIT: f64 = 0.04;
/// Rate of mid-identifier segments where the map does not fit: segments at random places of minified code land
/// between two identifier characters about a third of the time (measured on the stale and foreign pairs).
const MID_IDENTIFIER_IF_MISFIT: f64 = 0.30;

/// ln(misfit rate / fit rate) of a mid-identifier landing, and ln((1 − misfit) / (1 − fit)) of a token start,
/// written out (a logarithm per segment was a fifth of the check; `weights_follow_the_rates` holds them to the rates).
const MID_IDENTIFIER_WEIGHT: f64 = 2.014_903_020_542_265;
const TOKEN_START_WEIGHT: f64 = -0.315_852_949_418_477_3;

impl Landing {
    /// The log-likelihood ratio (natural log) of "does not fit" over "fits" that one such landing adds.
    pub fn weight(self) -> f64 {
        match self {
            Landing::MidIdentifier => MID_IDENTIFIER_WEIGHT,
            Landing::TokenStart => TOKEN_START_WEIGHT,
            // A token equal to the segment's name by chance, where the map does not fit, is rare (names of 3 or
            // more characters only, at a token start).
            Landing::OnItsName => -4.0,
            Landing::LineEnd | Landing::InLiteral => 0.0,
            // A map that fits never has these: strong, but not absolute (one odd segment does not condemn a map).
            Landing::PastLineEnd | Landing::BeyondText => 6.0,
        }
    }
}

/// Summed evidence (log-likelihood ratio, natural log) at which a stretch is said not to fit, and at which it is
/// said to fit again: e^25 to one.
pub const DETECT: f64 = 25.0;

/// Counts of each [`Landing`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Evidence {
    /// Segments observed (those with an original position).
    pub segments: u64,
    /// Landed at a token start ([`Landing::TokenStart`]).
    pub token_start: u64,
    /// Landed on a token equal to their name ([`Landing::OnItsName`]).
    pub on_its_name: u64,
    /// Landed inside an identifier ([`Landing::MidIdentifier`]).
    pub mid_identifier: u64,
    /// Landed at the end of their line ([`Landing::LineEnd`]).
    pub line_end: u64,
    /// Landed past the end of their line ([`Landing::PastLineEnd`]).
    pub past_line_end: u64,
    /// Landed inside a literal ([`Landing::InLiteral`]).
    pub in_literal: u64,
    /// Landed on a line the text does not have ([`Landing::BeyondText`]).
    pub beyond_text: u64,
    /// Named segments looked at (names of 3 or more characters at a token start).
    pub names_checked: u64,
}

impl Evidence {
    fn add(&mut self, landing: Landing) {
        self.segments += 1;
        match landing {
            Landing::TokenStart => self.token_start += 1,
            Landing::OnItsName => self.on_its_name += 1,
            Landing::MidIdentifier => self.mid_identifier += 1,
            Landing::LineEnd => self.line_end += 1,
            Landing::PastLineEnd => self.past_line_end += 1,
            Landing::InLiteral => self.in_literal += 1,
            Landing::BeyondText => self.beyond_text += 1,
        }
    }

    fn describe(&self) -> String {
        let mut parts = vec![format!(
            "{} of {} segments land inside identifiers",
            self.mid_identifier, self.segments
        )];
        if self.past_line_end > 0 {
            parts.push(format!("{} past the end of their line", self.past_line_end));
        }
        if self.in_literal > 0 {
            parts.push(format!(
                "{} inside numbers or template literals (no sign either way)",
                self.in_literal
            ));
        }
        if self.beyond_text > 0 {
            parts.push(format!(
                "{} on lines the bundle does not have",
                self.beyond_text
            ));
        }
        if self.names_checked > 0 {
            parts.push(format!(
                "{} of {} named segments on their name",
                self.on_its_name, self.names_checked
            ));
        }
        parts.join(", ")
    }
}

/// A stretch of the map, in generated order, that does not fit the text.
#[derive(Debug, Clone, PartialEq)]
pub struct MisfitRegion {
    /// The first segment of the stretch (0-based line, UTF-16 column).
    pub start: GeneratedPosition,
    /// The first segment where the map fits again; `None`: to the end of the map.
    pub end: Option<GeneratedPosition>,
    /// What the segments of the stretch showed.
    pub evidence: Evidence,
}

/// The verdict of [`check_fit`].
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

/// What [`check_fit`] found.
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
    /// What was read: every segment, or stretches near the frames and across the map ([`check_fit_near`]).
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
    first_checked: GeneratedPosition,
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
    /// Every segment ([`check_fit`]); also every report that is not [`Verdict::Fits`].
    Whole,
    /// The stretches around the frames and a fixed sample across the map, all of which fit ([`check_fit_near`]).
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

    fn new(verdict: Verdict) -> Self {
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

/// The generated text as lines, with UTF-16 columns turned into byte offsets.
struct Text<'a> {
    bytes: &'a [u8],
    /// Byte offset where each line starts; one more entry, the end of the text (+1), closes the last line. (4 B a
    /// line: texts are read up to 1 GB; `check_fit` refuses larger ones.)
    starts: std::borrow::Cow<'a, [u32]>,
    /// Per line: 0 not looked at, 1 ASCII, 2 not ASCII (its table is in `tables`).
    kind: Vec<u8>,
    /// The non-ASCII lines' tables, sorted by line: segments come in generated order, so the line asked is nearly
    /// always the last one here, where a hash map took a SipHash per segment (110 cold crash events, whole process,
    /// 4 runs in turn: 1.53–1.66 s with the hash map, 1.48–1.63 s with this; docs/PERFORMANCE.md).
    tables: Vec<(u32, Box<[u32]>)>,
    /// Line starts and tables built once for the text and shared (`kind` and `tables` are then unused).
    shared: Option<&'a LineIndex>,
}

impl<'a> Text<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        let starts = line_starts(bytes);
        let lines = starts.len() - 1;
        Text {
            bytes,
            starts: starts.into(),
            kind: vec![0; lines],
            tables: Vec::new(),
            shared: None,
        }
    }

    /// The text's lines as `index` (built from `bytes`) has them.
    fn shared(bytes: &'a [u8], index: &'a LineIndex) -> Self {
        Text {
            bytes,
            starts: index.starts().into(),
            kind: Vec::new(),
            tables: Vec::new(),
            shared: Some(index),
        }
    }

    fn line_count(&self) -> usize {
        self.starts.len() - 1
    }

    /// Line `n`'s bytes, without its terminator.
    fn line(&self, n: usize) -> &'a [u8] {
        let start = self.starts[n] as usize;
        let mut end = (self.starts[n + 1] as usize - 1).min(self.bytes.len());
        if end > start && self.bytes[end - 1] == b'\r' {
            end -= 1;
        }
        &self.bytes[start..end]
    }

    /// The byte of the text a segment at (line, UTF-16 column) landed on `landing` asks about: its own byte, or its
    /// line's end (the terminator) when it landed past it.
    fn byte_asked(&mut self, line: u32, column: u32, landing: Landing) -> Option<usize> {
        let n = line as usize;
        let end = self.starts[n + 1] as usize - 1;
        match landing {
            Landing::PastLineEnd => Some(end),
            _ => {
                let text = self.line(n);
                Some(self.starts[n] as usize + self.byte_of(n, text, column)?)
            }
        }
    }

    /// Where a segment at (line, UTF-16 column) lands.
    fn landing(&mut self, line: u32, column: u32, name: Option<&str>) -> Landing {
        self.landing_read(line, column, name, Columns::Utf16)
    }

    /// Where a segment at (line, column) lands, its column read as `columns` says.
    fn landing_read(
        &mut self,
        line: u32,
        column: u32,
        name: Option<&str>,
        columns: Columns,
    ) -> Landing {
        let n = line as usize;
        if n >= self.line_count() {
            return Landing::BeyondText;
        }
        let text = self.line(n);
        let byte = match columns {
            Columns::Utf16 => self.byte_of(n, text, column),
            // Inside a character's UTF-8 bytes it lands mid-word (`is_word`: every non-ASCII byte is).
            Columns::Utf8Bytes => ((column as usize) <= text.len()).then_some(column as usize),
        };
        let Some(byte) = byte else {
            return Landing::PastLineEnd;
        };
        if byte == text.len() {
            return Landing::LineEnd;
        }
        if byte > 0 && is_word(text[byte - 1]) && is_word(text[byte]) {
            return Landing::MidIdentifier;
        }
        match name {
            Some(name) if name.len() >= 3 && on_token(text, byte, name.as_bytes()) => {
                Landing::OnItsName
            }
            _ => Landing::TokenStart,
        }
    }

    /// The byte offset of UTF-16 `column` in line `n` (`text`); `None` past its end (`bundle::columns`).
    fn byte_of(&mut self, n: usize, text: &[u8], column: u32) -> Option<usize> {
        if let Some(index) = self.shared {
            return match index.table(n as u32) {
                None => ((column as usize) <= text.len()).then_some(column as usize),
                Some(table) => byte_with_table(text, table, column),
            };
        }
        if self.kind[n] == 0 {
            self.kind[n] = if text.is_ascii() { 1 } else { 2 };
            if self.kind[n] == 2 {
                let at = self
                    .tables
                    .partition_point(|(line, _)| (*line as usize) < n);
                self.tables.insert(at, (n as u32, utf16_table(text)));
            }
        }
        if self.kind[n] == 1 {
            return ((column as usize) <= text.len()).then_some(column as usize);
        }
        let table = match self.tables.last() {
            Some((line, table)) if *line as usize == n => table,
            _ => {
                let at = self
                    .tables
                    .binary_search_by_key(&(n as u32), |(line, _)| *line)
                    .expect("a non-ASCII line's table is built when it is first looked at");
                &self.tables[at].1
            }
        };
        byte_with_table(text, table, column)
    }
}

/// How a map's generated columns are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Columns {
    /// UTF-16 code units, as the format says (ECMA-426 §"Mappings": "the 0-based starting column of the line in the
    /// generated code", in UTF-16 code units, as every JS engine reports columns).
    Utf16,
    /// UTF-8 bytes: what some producers count after a non-ASCII character (`ByteColumns`).
    Utf8Bytes,
}

/// A byte of an identifier or a word: ASCII letters, digits, `_`, `$`, and any byte of a non-ASCII character
/// (identifiers may have them; strings and comments of a fitting map seldom hold a segment — SWC's extra segments
/// in strings it inlines are the known exception, still counted — and numbers and template literals are told
/// apart by `fit_literals`).
fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// Whether the token at `byte` of `text` is exactly `name`.
fn on_token(text: &[u8], byte: usize, name: &[u8]) -> bool {
    text[byte..].starts_with(name) && text.get(byte + name.len()).is_none_or(|&b| !is_word(b))
}

/// Evidence of fit (natural log) that confirms a stretch fits: about 19 segments at token starts in a row. A
/// stretch found not to fit is taken to start right after the last confirmed one (the divergence comes before the
/// first segment that shows it; after it, segments still land at token starts by chance two times in three).
const CONFIRM: f64 = 6.0;

/// The CUSUM detector over observations in generated order.
#[derive(Default)]
struct Detector {
    /// Evidence of fit since the last segment that spoke against it (while fitting), floored at 0.
    fit_run: f64,
    /// The first segment after the last confirmed stretch of fit (while fitting).
    unconfirmed: Option<GeneratedPosition>,
    /// Evidence of misfit of the current run (while fitting) or of fit (while in a region), floored at 0.
    run: f64,
    run_start: Option<GeneratedPosition>,
    run_evidence: Evidence,
    in_region: bool,
    regions: Vec<MisfitRegion>,
    /// Evidence of the open region so far.
    region_evidence: Evidence,
    /// Evidence since the last region ended (while fitting after one).
    since_last_region: Evidence,
    /// Sources of the segments since the last confirmed stretch of fit (while fitting), and of every region and the
    /// run before it ([`FitReport::misfit_sources`]); fed by [`Detector::note_source`] before each `push`.
    pending_sources: std::collections::HashSet<SourceId>,
    region_sources: std::collections::HashSet<SourceId>,
    last_source: Option<(SourceId, bool)>,
}

impl Detector {
    /// The source of the segment pushed next (consecutive segments of one source are noted once).
    fn note_source(&mut self, source: SourceId) {
        if self.last_source == Some((source, self.in_region)) {
            return;
        }
        self.last_source = Some((source, self.in_region));
        if self.in_region {
            self.region_sources.insert(source);
        } else {
            self.pending_sources.insert(source);
        }
    }

    fn push(&mut self, at: GeneratedPosition, landing: Landing) {
        if !self.in_region && !self.regions.is_empty() {
            self.since_last_region.add(landing);
        }
        let w = landing.weight();
        if !self.in_region {
            self.fit_run = (self.fit_run - w).max(0.0);
            if self.fit_run >= CONFIRM {
                self.fit_run = 0.0;
                self.unconfirmed = None;
                self.pending_sources.clear();
                self.last_source = None;
            } else {
                self.unconfirmed.get_or_insert(at);
            }
        }
        let w = if self.in_region { -w } else { w };
        if self.run + w <= 0.0 {
            self.run = 0.0;
            self.run_start = None;
            self.run_evidence = Evidence::default();
        } else {
            if self.run_start.is_none() {
                self.run_start = Some(at);
            }
            self.run += w;
            self.run_evidence.add(landing);
        }
        if self.in_region {
            self.region_evidence.add(landing);
        }
        if self.run >= DETECT {
            let mut start = self.run_start.take().unwrap_or(at);
            if !self.in_region {
                // From the first segment not confirmed to fit.
                start = self.unconfirmed.take().unwrap_or(start).min(start);
                self.fit_run = 0.0;
            }
            if self.in_region {
                // The region ends where the run of fit began.
                let open = self.regions.last_mut().expect("a region is open");
                open.end = Some(start);
                open.evidence = sub(self.region_evidence, self.run_evidence);
                self.since_last_region = self.run_evidence;
            } else {
                self.regions.push(MisfitRegion {
                    start,
                    end: None,
                    evidence: Evidence::default(),
                });
                self.region_sources.extend(self.pending_sources.drain());
                self.last_source = None;
                self.region_evidence = self.run_evidence;
            }
            self.in_region = !self.in_region;
            self.run = 0.0;
            self.run_evidence = Evidence::default();
        }
    }

    /// Whether a stretch that does not fit was seen (a region, open or closed).
    fn in_misfit_somewhere(&self) -> bool {
        self.in_region || !self.regions.is_empty()
    }

    fn finish(mut self) -> Vec<MisfitRegion> {
        if self.in_region {
            if let Some(open) = self.regions.last_mut() {
                open.evidence = self.region_evidence;
            }
        }
        self.regions
    }
}

fn sub(a: Evidence, b: Evidence) -> Evidence {
    Evidence {
        segments: a.segments - b.segments.min(a.segments),
        token_start: a.token_start.saturating_sub(b.token_start),
        on_its_name: a.on_its_name.saturating_sub(b.on_its_name),
        mid_identifier: a.mid_identifier.saturating_sub(b.mid_identifier),
        line_end: a.line_end.saturating_sub(b.line_end),
        past_line_end: a.past_line_end.saturating_sub(b.past_line_end),
        in_literal: a.in_literal.saturating_sub(b.in_literal),
        beyond_text: a.beyond_text.saturating_sub(b.beyond_text),
        names_checked: a.names_checked.saturating_sub(b.names_checked),
    }
}

/// Segments kept from the start of the map to try line shifts on.
const SHIFT_SAMPLE: usize = 4096;
/// Shifts tried: banners of up to this many lines, and as many lines removed.
const MAX_SHIFT_UP: i64 = 256;
const MAX_SHIFT_DOWN: i64 = 32;
/// The evidence of fit a shift must show on the sample (e^8 to one: some 25 segments at token starts).
const MIN_SHIFT_EVIDENCE: f64 = 8.0;

/// Whether `text` is Hermes bytecode: it starts with Hermes' magic number (`bundle::hermes_bytecode`).
pub use crate::bundle::hermes_bytecode::is_hermes_bytecode;

/// Whether `text` is not source text: Hermes bytecode or anything with NUL bytes in its head.
fn is_binary(text: &[u8]) -> bool {
    is_hermes_bytecode(text) || text[..text.len().min(4096)].contains(&0)
}

/// Checks that `index` describes `text`, the generated file it is for. `bundle_debug_id`: the bundle's
/// `//# debugId=`, when it has one.
pub fn check_fit(
    index: &SourceMapIndex,
    text: &[u8],
    bundle_debug_id: Option<&str>,
) -> Result<FitReport, MapError> {
    let report = match opening(index, text, bundle_debug_id) {
        Opening::Go(report) => report,
        Opening::Done(report) => return Ok(report),
    };
    check_whole(index, text, report)
}

/// What [`opening`] leaves: a report to go on with, or a final one.
enum Opening {
    Go(FitReport),
    Done(FitReport),
}

/// The checks that need no segment: the debug IDs, and a text that cannot be judged (too large, empty, bytecode, a
/// JSON document).
fn opening(index: &SourceMapIndex, text: &[u8], bundle_debug_id: Option<&str>) -> Opening {
    let mut report = FitReport::new(Verdict::Fits);
    report.bundle_debug_id = bundle_debug_id.map(str::to_string);
    if let (Some(bundle), Some(map)) = (bundle_debug_id, index.debug_id.as_deref()) {
        if normalize_debug_id(bundle) != normalize_debug_id(map) {
            report.verdict = Verdict::Misfit;
            report.debug_id_mismatch = Some((bundle.to_string(), map.to_string()));
        }
    }
    if text.len() >= u32::MAX as usize {
        report.verdict = Verdict::Unknown;
        report.unknown_because = Some("the generated file is larger than 4 GB: not checked".into());
        return Opening::Done(report);
    }
    // An empty file is no evidence against the map (Sentry's own React Native test uploads an empty bundle beside
    // its map): the map answers, and the fit is said to be unchecked.
    if text.trim_ascii().is_empty() {
        if report.verdict != Verdict::Misfit {
            report.verdict = Verdict::Unknown;
            report.unknown_because =
                Some("the generated file is empty: the map's fit could not be checked".into());
        }
        return Opening::Done(report);
    }
    if is_hermes_bytecode(text) {
        if report.verdict != Verdict::Misfit {
            judge_bytecode(index, text, &mut report);
        }
        return Opening::Done(report);
    }
    if is_binary(text) {
        if report.verdict != Verdict::Misfit {
            report.verdict = Verdict::Unknown;
            report.unknown_because = Some(
                "the generated file is binary, not text: its segments cannot be checked".into(),
            );
        }
        return Opening::Done(report);
    }
    if crate::bundle::locate::is_json_document(text) {
        if report.verdict != Verdict::Misfit {
            report.verdict = Verdict::Unknown;
            report.unknown_because = Some(
                "the file taken for the bundle is a JSON document (a profile, a report, a map), not code: not checked"
                    .into(),
            );
        }
        return Opening::Done(report);
    }
    Opening::Go(report)
}

/// Hermes bytecode has no lines to land segments on: its map's segments are at virtual offsets on line 1, which any
/// compile's map has. The map's `x_hermes_function_offsets` are judged against the file's function table instead
/// (`bundle::hermes_bytecode`): equal, the map fits; different (another compile's map, or a map of JavaScript), the
/// whole file misfits, as one region from its start, so that every frame in it is withheld with the reason. A file
/// of another bytecode version, or cut short, or a map whose offsets cannot be read: not checked, said why.
fn judge_bytecode(index: &SourceMapIndex, text: &[u8], report: &mut FitReport) {
    let judged = read_bytecode(text)
        .map_err(|e| format!("{e}: not checked"))
        .and_then(|bytecode| {
            judge_map(&bytecode, index).map_err(|e| {
                format!("the map's function offsets cannot be read ({e}): not checked")
            })
        });
    match judged {
        Ok(fit) if fit.fits() => report.bytecode = Some(fit),
        Ok(fit) => {
            report.verdict = Verdict::Misfit;
            report.regions = vec![MisfitRegion {
                start: report.first_checked,
                end: None,
                evidence: Evidence::default(),
            }];
            report.bytecode = Some(fit);
        }
        Err(why) => {
            report.verdict = Verdict::Unknown;
            report.unknown_because = Some(why.into());
        }
    }
}

/// The check over every segment, from the report [`opening`] began.
fn check_whole(
    index: &SourceMapIndex,
    text: &[u8],
    mut report: FitReport,
) -> Result<FitReport, MapError> {
    // A lazy index leaves its names in the map file, and a pass over every segment does not read them (they would
    // stay in memory: +55 MB on the editor benchmark's Metro bundle). But a name on its own token is evidence of fit
    // that can outweigh the rest: swc's maps of Next.js's server chunks put a few hundred segments inside minified
    // names all through a map that fits, and only their 455 unmangled names on their tokens keep the verdict "fits".
    // So a misfit seen without the names is checked again with them: the verdict never depends on how the index was
    // opened (`lazy_names`), and the names are read only when a misfit is in sight.
    let mut pass = observe_all(index, text, false)?;
    if pass.names_unread > 0 && pass.detector.in_misfit_somewhere() {
        pass = observe_all(index, text, true)?;
    }
    let Pass {
        mut lines,
        literals: _,
        read_names: _,
        names_unread: _,
        detector,
        evidence,
        sample,
        first_checked,
        map_lines,
    } = pass;
    report.evidence = evidence;
    let since_last_region = detector.since_last_region;
    let mut misfit_sources: Vec<SourceId> = detector.region_sources.iter().copied().collect();
    misfit_sources.sort_unstable();
    report.misfit_sources = misfit_sources;
    report.regions = detector.finish();
    report.resumes_at = resumes_after_stretches(&report.regions, since_last_region);
    report.map_lines = map_lines;
    report.text_lines = lines.line_count() as u64;
    let Some(first_checked) = first_checked else {
        if report.verdict != Verdict::Misfit {
            report.verdict = Verdict::Unknown;
            report.unknown_because = Some("the map has no segment that maps to a source".into());
        }
        return Ok(report);
    };
    report.first_checked = first_checked;
    if report.regions.is_empty() {
        return Ok(report);
    }
    report.verdict = Verdict::Misfit;
    // Only a whole-map shift is worth naming; it must fit every segment, so trying it is safe whatever the regions.
    if report.debug_id_mismatch.is_some() {
        return Ok(report);
    }
    report.shift_lines = find_shift(index, &mut lines, &sample, map_lines)?;
    if report.shift_lines.is_some() {
        return Ok(report);
    }
    // Then the two ways a map misreads columns, each of which must fit every segment.
    if !text.is_ascii() {
        if let Some((regions, byte_columns)) = find_byte_columns(index, &mut lines)? {
            report.regions = regions;
            report.byte_columns = byte_columns;
            return Ok(report);
        }
    }
    if let Some((regions, shifts)) = find_column_shifts(index, &mut lines, &report.regions)? {
        report.regions = regions;
        report.column_shifts = shifts;
    }
    Ok(report)
}

/// Maps with at least this much VLQ are checked near the frames by [`check_fit_near`]; the whole check of a smaller
/// one takes a few milliseconds (the same size as `TWO_THREADS_AFTER_BYTES`).
pub const NEAR_AFTER_BYTES: usize = 4 << 20;
/// Checkpoints of run-up read before a frame's (each stands for ≥ 128 B of VLQ, some 20 segments: about 600
/// segments, where the detector needs some 40 of a misfit to see it), and as many after it, so that a stretch that
/// stops fitting at or before the frame is seen whole enough to be detected.
const RUN_UP_CHECKPOINTS: usize = 32;
/// The sample across the map: this many stretches, evenly spaced over the checkpoints of a flat map (over the
/// sections of an index map, one at the start of each section chosen), each of this many checkpoints; and the
/// map's head and tail, as many checkpoints as a frame's run-up (a stale map's edit shifts every segment after it,
/// to the tail).
const SAMPLE_STRETCHES: usize = 64;
const SAMPLE_CHECKPOINTS: usize = 16;
/// Evidence of misfit (natural log) left open at the end of a stretch that is too much to call it fitting: the
/// whole check is run instead.
const UNDECIDED: f64 = 6.0;

/// [`check_fit`] for the frames at `frames` (global generated positions): the same report, read from the stretches
/// of the map around each frame and a fixed sample across it (the map's head and tail and `SAMPLE_STRETCHES` evenly
/// spaced stretches) when all of them fit, each through a detector of its own: no region, no landing past a line's end or
/// beyond the text, no run of misfit left open above `UNDECIDED`. Anything else (a misfit seen anywhere, a debug
/// ID mismatch, `rangeMappings`, a section that does not decode, a map under [`NEAR_AFTER_BYTES`]) and the whole
/// check runs: every report that is not [`Verdict::Fits`] is the whole check's, with its regions, messages and shift.
///
/// What it cannot see: a stretch that stops fitting and fits again, away from the sample and ending before a frame's
/// run-up (the whole check withholds the frames after it; this one answers them), or away from every frame and the
/// sample (the whole check says the map does not fit from there; this one that it fits). A stale build shifts every
/// segment after an edit (minified code by columns, unminified by lines), so its misfit reaches the frames after the
/// edit and the sample; `tests/mapfit.rs` holds the two to the same verdicts on every pair of the misfit corpus.
///
/// Cost: the checkpoints of the sections read (built once; lookups use them), and about
/// `(SAMPLE_STRETCHES × SAMPLE_CHECKPOINTS + (1 + frames) × 2 × RUN_UP_CHECKPOINTS) × 128 B` of VLQ decoded: some
/// 140 KB plus 8 KB a frame, whatever the map's size; plus the text's line starts (one `memchr` pass).
pub fn check_fit_near(
    index: &SourceMapIndex,
    text: &[u8],
    bundle_debug_id: Option<&str>,
    frames: &[GeneratedPosition],
) -> Result<FitReport, MapError> {
    check_fit_near_above(index, text, bundle_debug_id, frames, NEAR_AFTER_BYTES)
}

/// [`check_fit_near`] with the map size from which it reads near the frames (tests force it on small maps with 0).
pub fn check_fit_near_above(
    index: &SourceMapIndex,
    text: &[u8],
    bundle_debug_id: Option<&str>,
    frames: &[GeneratedPosition],
    min_map_bytes: usize,
) -> Result<FitReport, MapError> {
    check_fit_near_lined(index, text, None, bundle_debug_id, frames, min_map_bytes)
}

/// [`check_fit_near_above`] reading the text's lines from `lines` when its index is kept beside it (a pipeline's
/// resolver built it for the same bundle: its line starts are not found again, 57 MB of them on the Metro-scale
/// build).
pub fn check_fit_near_lined(
    index: &SourceMapIndex,
    text: &[u8],
    lines: Option<&LineIndex>,
    bundle_debug_id: Option<&str>,
    frames: &[GeneratedPosition],
    min_map_bytes: usize,
) -> Result<FitReport, MapError> {
    // An index of another text is not this one's.
    let lines = lines.filter(|l| l.starts().last().copied() == Some(text.len() as u32 + 1));
    let report = match opening(index, text, bundle_debug_id) {
        Opening::Go(report) => report,
        Opening::Done(report) => return Ok(report),
    };
    if index.mappings_bytes() < min_map_bytes
        || frames.is_empty()
        || report.verdict != Verdict::Fits
        || index.has_range_mappings()
    {
        return check_whole(index, text, report);
    }
    match read_near(index, text, lines, frames) {
        Some(near) => {
            let mut report = report;
            report.evidence = near.evidence;
            report.map_lines = near.map_lines;
            report.text_lines = near.text_lines;
            report.first_checked = near.first_checked;
            report.checked = Checked::NearFrames {
                stretches: near.stretches,
            };
            Ok(report)
        }
        None => check_whole(index, text, report),
    }
}

/// What [`read_near`] saw, when every stretch fits.
struct Near {
    evidence: Evidence,
    stretches: usize,
    map_lines: u32,
    text_lines: u64,
    first_checked: GeneratedPosition,
}

/// The stretches around `frames` and the sample, read; `None` when one does not clearly fit (or cannot be read, or
/// no segment maps to a source: the whole check says why).
fn read_near(
    index: &SourceMapIndex,
    text: &[u8],
    shared: Option<&LineIndex>,
    frames: &[GeneratedPosition],
) -> Option<Near> {
    let sections = index.sections();
    let in_bundle = index.bundle_file_sections();
    if in_bundle.is_empty() {
        return None;
    }
    // Per section, checkpoint ranges [from, to) to read (`None`: from the section's first segment; `usize::MAX`:
    // to its end).
    let mut ranges: Vec<(usize, Option<usize>, usize)> = Vec::new();
    let count = |section: usize| index.compact(section).map(|c| c.checkpoint_count()).ok();
    // The head, and the sample.
    if in_bundle.len() <= 1 {
        let section = in_bundle.start;
        let n = count(section)?;
        ranges.push((section, None, RUN_UP_CHECKPOINTS));
        for k in 1..SAMPLE_STRETCHES {
            let from = n * k / SAMPLE_STRETCHES;
            ranges.push((section, Some(from), from + SAMPLE_CHECKPOINTS));
        }
        // The tail: an edit shifts every segment after it to the end of the map.
        ranges.push((section, n.checked_sub(RUN_UP_CHECKPOINTS + 1), usize::MAX));
    } else {
        let n = in_bundle.len();
        for k in 0..SAMPLE_STRETCHES.min(n) {
            let section = in_bundle.start + n * k / SAMPLE_STRETCHES.min(n);
            count(section)?;
            let to = if k == 0 {
                RUN_UP_CHECKPOINTS
            } else {
                SAMPLE_CHECKPOINTS
            };
            ranges.push((section, None, to));
        }
        let last = in_bundle.end - 1;
        let n = count(last)?;
        ranges.push((last, n.checked_sub(RUN_UP_CHECKPOINTS + 1), usize::MAX));
    }
    // Around each frame.
    for &p in frames {
        let Some(section) = index.section_at(p).filter(|s| in_bundle.contains(s)) else {
            continue;
        };
        let compact = index.compact(section).ok()?;
        let offset = sections[section].offset;
        let line = p.line - offset.line;
        let column = if line == 0 {
            p.column.saturating_sub(offset.column)
        } else {
            p.column
        };
        let at = compact.checkpoint_at_or_before(line, column);
        let from = at.and_then(|k| k.checked_sub(RUN_UP_CHECKPOINTS));
        let to = at.map_or(0, |k| k + 1) + RUN_UP_CHECKPOINTS;
        ranges.push((section, from, to));
    }
    // Overlapping ranges of a section read once.
    ranges.sort_by_key(|&(section, from, to)| (section, from.map_or(0, |f| f + 1), to));
    let mut merged: Vec<(usize, Option<usize>, usize)> = Vec::new();
    for r in ranges {
        match merged.last_mut() {
            Some(last) if last.0 == r.0 && r.1.map_or(0, |f| f + 1) <= last.2.saturating_add(1) => {
                last.2 = last.2.max(r.2);
            }
            _ => merged.push(r),
        }
    }
    let mut lines = match shared {
        Some(index) => Text::shared(text, index),
        None => Text::new(text),
    };
    let mut evidence = Evidence::default();
    let (mut map_lines, mut first_checked) = (0u32, None);
    for &(section, from, to) in &merged {
        let compact = index.compact(section).ok()?;
        let end = (to < compact.checkpoint_count()).then(|| compact.checkpoint_offset(to));
        let mut detector = Detector::default();
        let mut clean = true;
        let read = index.for_each_raw_segment_from(section, from, |seg| {
            if end.is_some_and(|end| seg.offset >= end) {
                return false;
            }
            let Some(o) = seg.original else {
                return true;
            };
            let p = sections[section].to_global(seg.line, seg.column);
            // (Only a misfit's message reads it, and a misfit is the whole check's: the first segment read.)
            first_checked = Some(first_checked.map_or(p, |f: GeneratedPosition| f.min(p)));
            map_lines = map_lines.max(p.line + 1);
            let mut landing = lines.landing(p.line, p.column, None);
            if let (Landing::TokenStart, Some(n)) = (landing, o.name) {
                let name = index
                    .segment_name_if_loaded(section, n)
                    .filter(|n| n.len() >= 3);
                if let Some(n) = name {
                    evidence.names_checked += 1;
                    landing = lines.landing(p.line, p.column, Some(n));
                }
            }
            if matches!(landing, Landing::PastLineEnd | Landing::BeyondText) {
                clean = false;
                return false;
            }
            evidence.add(landing);
            detector.push(p, landing);
            true
        });
        if read.is_err() || !clean || detector.in_region || detector.run >= UNDECIDED {
            return None;
        }
        if !detector.finish().is_empty() {
            return None;
        }
    }
    Some(Near {
        evidence,
        stretches: merged.len(),
        map_lines,
        text_lines: lines.line_count() as u64,
        first_checked: first_checked?,
    })
}

/// One segment with an original position, as the decoding thread hands it to the checking one.
#[derive(Clone, Copy)]
struct Observed {
    section: u32,
    at: GeneratedPosition,
    name: Option<u32>,
    source: SourceId,
}

/// The state of the pass over the segments.
struct Pass<'a> {
    /// Read the names a lazy index left in the map file (see [`check_whole`]).
    read_names: bool,
    /// Named segments at a token start whose name was left in the file, not read.
    names_unread: u64,
    lines: Text<'a>,
    literals: Literals,
    detector: Detector,
    evidence: Evidence,
    sample: Vec<(GeneratedPosition, Option<Box<str>>)>,
    first_checked: Option<GeneratedPosition>,
    map_lines: u32,
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
const TWO_THREADS_AFTER_BYTES: usize = 4 << 20;
/// Segments handed from the decoding thread to the checking one at a time.
const BATCH: usize = 8192;

/// Every segment of `index` observed against `text`, in generated order.
fn observe_all<'a>(
    index: &SourceMapIndex,
    text: &'a [u8],
    read_names: bool,
) -> Result<Pass<'a>, MapError> {
    let mut pass = Pass {
        read_names,
        names_unread: 0,
        lines: Text::new(text),
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
const RESUME_AFTER_SEGMENTS: u64 = 200;

/// [`FitReport::resumes_at`]: the start of the line after the one where the last stretch that does not fit ends,
/// when every stretch ends and the segments after the last one (at least [`RESUME_AFTER_SEGMENTS`]) land inside
/// identifiers no more often than in a map that fits (`MID_IDENTIFIER_IF_FIT`) and never past a line's end or beyond
/// the text. A map of another build or another bundle does not fit that long (a third of its landings are inside
/// identifiers: its stretches of fit are short, and its last one stays open). An edit since the map was made moves
/// what follows it on its line (the misfit corpus's stale statement change: its stretch ends on the line, and the
/// answers after it there are the old places, though their segments land well), and every later line when it adds
/// or removes lines, which then does not fit: later lines that fit were neither moved nor edited.
fn resumes_after_stretches(regions: &[MisfitRegion], after: Evidence) -> Option<GeneratedPosition> {
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

/// A whole-line shift under which the sample fits, confirmed on the whole map.
fn find_shift(
    index: &SourceMapIndex,
    lines: &mut Text<'_>,
    sample: &[(GeneratedPosition, Option<Box<str>>)],
    map_lines: u32,
) -> Result<Option<i64>, MapError> {
    let text_lines = lines.line_count() as i64;
    // The difference in line counts first: a banner of N lines makes the text N lines longer than the map.
    let likely = text_lines - i64::from(map_lines);
    let candidates = std::iter::once(likely)
        .chain(1..=MAX_SHIFT_UP)
        .chain((1..=MAX_SHIFT_DOWN).map(|k| -k))
        .filter(|&k| k != 0);
    let shifted = |lines: &mut Text<'_>, shift: i64, p: GeneratedPosition, name: Option<&str>| {
        let line = i64::from(p.line) + shift;
        if line < 0 {
            Landing::BeyondText
        } else {
            lines.landing(line.min(i64::from(u32::MAX)) as u32, p.column, name)
        }
    };
    // Every candidate on the sample; the one with the most evidence of fit, if it shows some, is checked on the
    // whole map. (A small map cannot show e^25 of fit: the best candidate is taken when it is clearly the best.)
    let mut tried = std::collections::HashSet::new();
    let mut best: Option<(f64, i64)> = None;
    for shift in candidates {
        if !tried.insert(shift) {
            continue;
        }
        let mut detector = Detector::default();
        let mut sum = 0.0;
        for (p, name) in sample {
            let landing = shifted(lines, shift, *p, name.as_deref());
            sum += landing.weight();
            detector.push(*p, landing);
        }
        if detector.finish().is_empty() && best.is_none_or(|(b, _)| sum < b) {
            best = Some((sum, shift));
        }
    }
    let Some((sum, shift)) = best else {
        return Ok(None);
    };
    if sum > -MIN_SHIFT_EVIDENCE {
        return Ok(None);
    }
    let mut detector = Detector::default();
    index.for_each_segment_once(|hit| {
        if let Some(o) = hit.original {
            detector.push(hit.generated, shifted(lines, shift, hit.generated, o.name));
        }
    })?;
    if detector.finish().is_empty() {
        return Ok(Some(shift));
    }
    Ok(None)
}

/// Whether the map counts columns in UTF-8 bytes: every segment fits with its column read as a byte offset, and
/// the segments after a line's first non-ASCII character (the only ones the two readings place apart) show it. The
/// stretches that would be wrong read as UTF-16 (from each such line's first non-ASCII character to its end), and
/// per line the UTF-16 column of that character.
type ByteColumns = (Vec<MisfitRegion>, Vec<(u32, u32)>);

fn find_byte_columns(
    index: &SourceMapIndex,
    lines: &mut Text<'_>,
) -> Result<Option<ByteColumns>, MapError> {
    let mut detector = Detector::default();
    let mut regions: Vec<MisfitRegion> = Vec::new();
    let mut wide: Vec<(u32, u32)> = Vec::new();
    // The first non-ASCII byte of the line the segments are on (segments come in generated order).
    let mut line_wide: Option<(u32, Option<usize>)> = None;
    let mut after = 0.0;
    index.for_each_segment_once(|hit| {
        let Some(o) = hit.original else {
            return;
        };
        let p = hit.generated;
        let landing = lines.landing_read(p.line, p.column, o.name, Columns::Utf8Bytes);
        detector.push(p, landing);
        if line_wide.is_none_or(|(line, _)| line != p.line) {
            let first = ((p.line as usize) < lines.line_count())
                .then(|| lines.line(p.line as usize).iter().position(|&b| b >= 0x80))
                .flatten();
            line_wide = Some((p.line, first));
        }
        let Some((_, Some(first))) = line_wide else {
            return;
        };
        if p.column as usize <= first {
            return;
        }
        after += landing.weight();
        match regions.last_mut() {
            Some(r) if r.start.line == p.line => r.evidence.add(landing),
            _ => {
                let mut evidence = Evidence::default();
                evidence.add(landing);
                // All ASCII before it: its byte offset is its UTF-16 column.
                wide.push((p.line, first as u32));
                regions.push(MisfitRegion {
                    start: GeneratedPosition {
                        line: p.line,
                        column: first as u32 + 1,
                    },
                    end: Some(GeneratedPosition {
                        line: p.line + 1,
                        column: 0,
                    }),
                    evidence,
                });
            }
        }
    })?;
    let fits = detector.finish().is_empty() && after <= -MIN_SHIFT_EVIDENCE;
    Ok(fits.then_some((regions, wide)))
}

/// Columns a line's segments may be moved by: text of up to this many characters put at its start, and as many
/// removed as `MAX_COLUMN_SHIFT_DOWN`.
const MAX_COLUMN_SHIFT_UP: i64 = 256;
const MAX_COLUMN_SHIFT_DOWN: i64 = 64;
/// Column shifts are tried when the stretches that do not fit cover at most this many lines with segments.
const MAX_COLUMN_SHIFT_LINES: usize = 16;

type ColumnShifts = (Vec<MisfitRegion>, Vec<ColumnShift>);

/// Per line the stretches that do not fit cover, the column shift under which its segments fit (none when they fit
/// as they are), each the best on a sample of the line's segments with evidence of fit, then confirmed together on
/// the whole map: what stays wrong is exactly the shifted lines.
fn find_column_shifts(
    index: &SourceMapIndex,
    lines: &mut Text<'_>,
    regions: &[MisfitRegion],
) -> Result<Option<ColumnShifts>, MapError> {
    if regions.len() > MAX_COLUMN_SHIFT_LINES {
        return Ok(None);
    }
    let covered = |line: u32| {
        regions
            .iter()
            .any(|r| r.start.line <= line && r.end.is_none_or(|end| line <= end.line))
    };
    type Sample = Vec<(GeneratedPosition, Option<Box<str>>)>;
    let mut samples: std::collections::BTreeMap<u32, Sample> = Default::default();
    let mut too_many = false;
    index.for_each_segment_once(|hit| {
        let (Some(o), p) = (hit.original, hit.generated) else {
            return;
        };
        if too_many || !covered(p.line) {
            return;
        }
        let sample = samples.entry(p.line).or_default();
        if sample.len() < SHIFT_SAMPLE {
            sample.push((p, o.name.map(Box::from)));
        }
        too_many = samples.len() > MAX_COLUMN_SHIFT_LINES;
    })?;
    if too_many {
        return Ok(None);
    }
    let shifted = |lines: &mut Text<'_>, shift: i64, p: GeneratedPosition, name: Option<&str>| {
        match u32::try_from(i64::from(p.column) + shift) {
            Ok(column) => lines.landing(p.line, column, name),
            Err(_) => Landing::PastLineEnd,
        }
    };
    let candidates = || (0..=MAX_COLUMN_SHIFT_UP).chain((1..=MAX_COLUMN_SHIFT_DOWN).map(|k| -k));
    let mut shifts: Vec<(u32, i64)> = Vec::new();
    for (&line, sample) in &samples {
        let mut best: Option<(f64, i64)> = None;
        for shift in candidates() {
            let mut detector = Detector::default();
            let mut sum = 0.0;
            for (p, name) in sample {
                let landing = shifted(lines, shift, *p, name.as_deref());
                sum += landing.weight();
                detector.push(*p, landing);
            }
            if detector.finish().is_empty() && best.is_none_or(|(b, _)| sum < b) {
                best = Some((sum, shift));
            }
        }
        match best {
            Some((_, 0)) => {}
            Some((sum, shift)) if sum <= -MIN_SHIFT_EVIDENCE => shifts.push((line, shift)),
            _ => return Ok(None),
        }
    }
    if shifts.is_empty() {
        return Ok(None);
    }
    let shift_of = |line: u32| {
        shifts
            .binary_search_by_key(&line, |&(l, _)| l)
            .map_or(0, |k| shifts[k].1)
    };
    let mut detector = Detector::default();
    let mut evidence: Vec<Evidence> = vec![Evidence::default(); shifts.len()];
    index.for_each_segment_once(|hit| {
        if let Some(o) = hit.original {
            let p = hit.generated;
            detector.push(p, shifted(lines, shift_of(p.line), p, o.name));
            if let Ok(k) = shifts.binary_search_by_key(&p.line, |&(l, _)| l) {
                evidence[k].add(lines.landing(p.line, p.column, o.name));
            }
        }
    })?;
    if !detector.finish().is_empty() {
        return Ok(None);
    }
    let regions = shifts
        .iter()
        .zip(evidence)
        .map(|(&(line, _), evidence)| MisfitRegion {
            start: GeneratedPosition { line, column: 0 },
            end: Some(GeneratedPosition {
                line: line + 1,
                column: 0,
            }),
            evidence,
        })
        .collect();
    let shifts = shifts
        .into_iter()
        .map(|(line, columns)| ColumnShift {
            line,
            columns,
            added: added_text(lines, line, columns),
        })
        .collect();
    Ok(Some((regions, shifts)))
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

/// The first `columns` characters of `line` (what a column shift says was put there), when they are few and
/// printable.
fn added_text(lines: &Text<'_>, line: u32, columns: i64) -> Option<String> {
    if !(1..=40).contains(&columns) || line as usize >= lines.line_count() {
        return None;
    }
    let text = String::from_utf8_lossy(lines.line(line as usize));
    let mut units = 0;
    let added: String = text
        .chars()
        .take_while(|c| {
            units += c.len_utf16() as i64;
            units <= columns
        })
        .collect();
    (added.encode_utf16().count() as i64 == columns && !added.chars().any(char::is_control))
        .then_some(added)
}

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
        Some(index) => Text::shared(text, index),
        None => Text::new(text),
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
const FRAME_EXACT_IF_RIGHT: f64 = 0.7;
/// Rate of frames inside an identifier in their own bundle: none of the round-trip corpus's 1,987.
const FRAME_MID_IDENTIFIER_IF_RIGHT: f64 = 0.01;

/// The chance that a random column of the section holding `p` is a segment start: its segments over its text's
/// characters (bytes, which for minified code are nearly all ASCII), kept within [0.02, 0.6] so that one odd
/// section cannot decide alone.
fn segment_density(index: &SourceMapIndex, lines: &Text<'_>, p: GeneratedPosition) -> f64 {
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

#[cfg(test)]
mod tests;
