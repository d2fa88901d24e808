//! What a segment's landing says: each [`Landing`] weighed as a log-likelihood ratio of misfit against fit (the
//! weights measured on `fixtures/mapfit`), summed into [`Evidence`], and the CUSUM detector that turns a run of it
//! into stretches that do not fit.

use crate::map::index::{GeneratedPosition, SourceId};

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
pub(super) const MID_IDENTIFIER_IF_FIT: f64 = 0.04;
/// Rate of mid-identifier segments where the map does not fit: segments at random places of minified code land
/// between two identifier characters about a third of the time (measured on the stale and foreign pairs).
pub(super) const MID_IDENTIFIER_IF_MISFIT: f64 = 0.30;

/// ln(misfit rate / fit rate) of a mid-identifier landing, and ln((1 − misfit) / (1 − fit)) of a token start,
/// written out (a logarithm per segment was a fifth of the check; `weights_follow_the_rates` holds them to the rates).
pub(super) const MID_IDENTIFIER_WEIGHT: f64 = 2.014_903_020_542_265;
pub(super) const TOKEN_START_WEIGHT: f64 = -0.315_852_949_418_477_3;

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
    pub(super) fn add(&mut self, landing: Landing) {
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

    pub(super) fn describe(&self) -> String {
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

/// A byte of an identifier or a word: ASCII letters, digits, `_`, `$`, and any byte of a non-ASCII character
/// (identifiers may have them; strings and comments of a fitting map seldom hold a segment — SWC's extra segments
/// in strings it inlines are the known exception, still counted — and numbers and template literals are told
/// apart by `fit_literals`).
pub(super) fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// Whether the token at `byte` of `text` is exactly `name`.
pub(super) fn on_token(text: &[u8], byte: usize, name: &[u8]) -> bool {
    text[byte..].starts_with(name) && text.get(byte + name.len()).is_none_or(|&b| !is_word(b))
}

/// Evidence of fit (natural log) that confirms a stretch fits: about 19 segments at token starts in a row. A
/// stretch found not to fit is taken to start right after the last confirmed one (the divergence comes before the
/// first segment that shows it; after it, segments still land at token starts by chance two times in three).
pub(super) const CONFIRM: f64 = 6.0;

/// The CUSUM detector over observations in generated order.
#[derive(Default)]
pub(super) struct Detector {
    /// Evidence of fit since the last segment that spoke against it (while fitting), floored at 0.
    fit_run: f64,
    /// The first segment after the last confirmed stretch of fit (while fitting).
    unconfirmed: Option<GeneratedPosition>,
    /// Evidence of misfit of the current run (while fitting) or of fit (while in a region), floored at 0.
    pub(super) run: f64,
    run_start: Option<GeneratedPosition>,
    run_evidence: Evidence,
    pub(super) in_region: bool,
    regions: Vec<MisfitRegion>,
    /// Evidence of the open region so far.
    region_evidence: Evidence,
    /// Evidence since the last region ended (while fitting after one).
    pub(super) since_last_region: Evidence,
    /// Sources of the segments since the last confirmed stretch of fit (while fitting), and of every region and the
    /// run before it ([`FitReport::misfit_sources`]); fed by [`Detector::note_source`] before each `push`.
    pending_sources: std::collections::HashSet<SourceId>,
    pub(super) region_sources: std::collections::HashSet<SourceId>,
    last_source: Option<(SourceId, bool)>,
}

impl Detector {
    /// The source of the segment pushed next (consecutive segments of one source are noted once).
    pub(super) fn note_source(&mut self, source: SourceId) {
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

    pub(super) fn push(&mut self, at: GeneratedPosition, landing: Landing) {
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
    pub(super) fn in_misfit_somewhere(&self) -> bool {
        self.in_region || !self.regions.is_empty()
    }

    pub(super) fn finish(mut self) -> Vec<MisfitRegion> {
        if self.in_region {
            if let Some(open) = self.regions.last_mut() {
                open.evidence = self.region_evidence;
            }
        }
        self.regions
    }
}

pub(super) fn sub(a: Evidence, b: Evidence) -> Evidence {
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
