//! Choosing among candidates: the report's debug IDs and copies of lines, then the frames' positions in each text
//! (by odds of at least [`DECISIVE`]); two candidates of one build are one.

use super::{AmbiguousFile, Candidate, Choice, GivenMap, Hint, Place, Resolver, DECISIVE};
use crate::bundle::fit::frames_evidence;
use crate::map::index::GeneratedPosition;
use crate::trace::document::ANOTHER_BUILD;
use crate::trace::stack::{file_name_of, normalize_debug_id};
use crate::Bias;
use std::path::{Path, PathBuf};
use std::sync::Arc;

impl<P: Place> Resolver<'_, '_, P> {
    /// The given maps that name `file` (their file names, their `file`), as candidates: of a Hermes build's two, the
    /// one of the frames' kind (`of_kind`). `found`: the file the frame's path found, which leads to no map; a given map
    /// whose bundle is known to be another file (not a copy of it) is that file's, not a candidate (the path tells
    /// same-named files apart): the one map given is then judged against the file found (`one_map_given`).
    pub(super) fn given_naming(
        &mut self,
        file: &str,
        found: Option<&Path>,
    ) -> Vec<Candidate<P::Map>> {
        let name = file_name_of(file);
        let given = self.asked.given;
        let mut naming: Vec<&GivenMap<P::Map>> = Vec::new();
        for g in given.iter().filter(|g| g.names.iter().any(|n| n == name)) {
            let another = match (found, &g.bundle) {
                (Some(found), Some(own)) => !self.same_file(found, own),
                _ => false,
            };
            if !another {
                naming.push(g);
            }
        }
        self.of_kind(naming, self.bytecode_files.contains(file))
            .into_iter()
            .map(|g| Candidate {
                bundle: g.bundle.clone(),
                map: g.map.clone(),
                how: "a map given names it (its file name or `file`)".into(),
            })
            .collect()
    }

    /// Whether `a` and `b` are one file, or copies of one (the same bytes).
    fn same_file(&mut self, a: &Path, b: &Path) -> bool {
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        if canonical(a) == canonical(b) {
            return true;
        }
        let a = self.place.text(a).map(|t| (*t).as_ref().to_vec());
        match (a, self.place.text(b)) {
            (Some(a), Some(b)) => a == (*b).as_ref(),
            _ => false,
        }
    }

    /// Given maps naming one file, of a Hermes build: hermesc's map (`x_hermes_function_offsets`; its one source is
    /// the JavaScript bundle) and Metro's map of that bundle (Gradle names them `NAME.compiler.map` and
    /// `NAME.packager.map`, `locate::bundle_names_of_map`). The bytecode's frames are hermesc's map's, whose answers
    /// lead on to Metro's (a chain, `SessionPlace::next_map`); frames of the JavaScript bundle are Metro's map's.
    /// `bytecode`: the file is Hermes bytecode (its text, or its frames' form). Maps all of one kind are kept.
    pub(super) fn of_kind<'g>(
        &self,
        maps: Vec<&'g GivenMap<P::Map>>,
        bytecode: bool,
    ) -> Vec<&'g GivenMap<P::Map>> {
        let hermes =
            |g: &GivenMap<P::Map>| self.place.index(&g.map).x_hermes_function_offsets.is_some();
        if maps.iter().all(|g| hermes(g)) || !maps.iter().any(|g| hermes(g)) {
            return maps;
        }
        maps.into_iter().filter(|g| hermes(g) == bytecode).collect()
    }

    /// One of several candidates for `file`, or ambiguous.
    pub(super) fn among(
        &mut self,
        file: &str,
        candidates: Vec<Candidate<P::Map>>,
        positions: &[GeneratedPosition],
        found: &str,
    ) -> Choice<P::Map> {
        let (candidates, found) = match self.agreeing(file, candidates, found) {
            Ok(agreeing) => agreeing,
            Err(refuted) => return refuted,
        };
        let found = &found;
        let mut distinct: Vec<Candidate<P::Map>> = Vec::new();
        let mut copies = 0;
        for c in candidates {
            if distinct.iter().any(|d| self.same_build(d, &c)) {
                copies += 1;
            } else {
                distinct.push(c);
            }
        }
        let chosen = |c: Candidate<P::Map>, why: String| Choice::Map {
            why: format!("{why}; its map: {}", c.how),
            map: c.map,
            bundle: c.bundle,
        };
        if distinct.len() == 1 {
            let c = distinct.pop().expect("one candidate");
            // The only candidate still has to be able to hold the frames' positions: if its text has no such lines
            // or columns, the frames are another file's.
            // Only a text at hand says so (a map alone, without its bundle, is the user's word for the file).
            let impossible = c
                .bundle
                .as_deref()
                .and_then(|b| self.text_evidence(b, &c.map, positions))
                .is_some_and(|e| e == f64::NEG_INFINITY);
            if !positions.is_empty() && impossible {
                return Choice::Unmapped {
                    why: format!(
                        "{found}: {}, but its text cannot hold the frames' positions (lines it does not have, columns \
                         past its lines' ends): another file, not mapped",
                        self.label(&c)
                    ),
                };
            }
            let why = if copies > 0 {
                format!(
                    "{found}: {} copies of one build (the same map and text), the nearest",
                    copies + 1
                )
            } else {
                format!("{found}: {}", self.label(&c))
            };
            return chosen(c, why);
        }
        let ids = self.asked.debug_ids;
        if !ids.is_empty() {
            let by_id: Vec<usize> = (0..distinct.len())
                .filter(|&i| {
                    let id = self
                        .place
                        .index(&distinct[i].map)
                        .debug_id
                        .as_deref()
                        .map(normalize_debug_id);
                    id.is_some_and(|id| ids.contains(&id))
                })
                .collect();
            if by_id.len() == 1 {
                let c = distinct.swap_remove(by_id[0]);
                let why = format!("{found}; the report's debug ID is {}'s", self.label(&c));
                return chosen(c, why);
            }
            if !by_id.is_empty() {
                let mut kept = Vec::new();
                for (i, c) in distinct.into_iter().enumerate() {
                    if by_id.contains(&i) {
                        kept.push(c);
                    }
                }
                distinct = kept;
            }
        }
        let scores: Vec<f64> = distinct
            .iter()
            .map(|c| self.evidence(c, positions))
            .collect();
        let mut order: Vec<usize> = (0..scores.len()).collect();
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
        let (best, next) = (scores[order[0]], scores[order[1]]);
        let possible = scores.iter().filter(|s| **s > f64::NEG_INFINITY).count();
        // The others cannot hold the positions (lines they do not have, columns past their lines' ends): as if this
        // were the only bundle of that name (whose map the fit check then judges, as any other's).
        if possible == 1 && !positions.is_empty() {
            let c = distinct.swap_remove(order[0]);
            let why = format!(
                "{found}; only {} can hold the frames' positions (the other {} have no such lines or columns)",
                self.label(&c),
                scores.len() - 1
            );
            return chosen(c, why);
        }
        if !positions.is_empty() && best >= DECISIVE && best - next >= DECISIVE {
            let c = distinct.swap_remove(order[0]);
            let why = format!(
                "{found}; the frames' {} position{} fit {}'s text, odds e^{:.0} to one over the next candidate's",
                positions.len(),
                if positions.len() == 1 { "" } else { "s" },
                self.label(&c),
                (best - next).min(99.0),
            );
            return chosen(c, why);
        }
        let names: Vec<String> = distinct.iter().map(|c| self.label(c)).collect();
        let bundles: Vec<PathBuf> = distinct.iter().filter_map(|c| c.bundle.clone()).collect();
        self.ambiguous.push(AmbiguousFile {
            file: file.to_string(),
            candidates: bundles,
        });
        let undecided = if possible == 0 && !positions.is_empty() {
            "none of them can hold the frames' positions (another build?)"
        } else {
            "neither a debug ID nor the frames' positions tell them apart"
        };
        Choice::Ambiguous {
            why: format!(
                "{} bundles could be {file} ({}), and {undecided}: not mapped; {}",
                distinct.len(),
                names.join(", "),
                self.place.hint(&Hint::ChooseBundle {
                    name: file_name_of(file).to_string()
                }),
            ),
        }
    }

    /// The candidates the report does not contradict (its debug ID or its copy of the file's lines: the others are not
    /// the file that ran), with `found` saying how many were ruled out; `Err` when it contradicts every one.
    #[allow(clippy::type_complexity)]
    fn agreeing(
        &mut self,
        file: &str,
        candidates: Vec<Candidate<P::Map>>,
        found: &str,
    ) -> Result<(Vec<Candidate<P::Map>>, String), Choice<P::Map>> {
        let mut refuted = Vec::new();
        let mut agreeing = Vec::new();
        for c in candidates {
            match self.disagreement(file, &c.map, c.bundle.as_deref()) {
                Some(why) => refuted.push(format!("{}: {why}", self.label(&c))),
                None => agreeing.push(c),
            }
        }
        if agreeing.is_empty() {
            return Err(Choice::Unmapped {
                why: format!(
                    "{found}, but the report contradicts every one ({}): {ANOTHER_BUILD}, not mapped",
                    refuted.join("; ")
                ),
            });
        }
        let found = match refuted.len() {
            0 => found.to_string(),
            n => format!(
                "{found} ({n} ruled out by the report: {})",
                refuted.join("; ")
            ),
        };
        Ok((agreeing, found))
    }

    /// The same path under several roots: each a candidate, told apart by evidence ([`Resolver::among`]).
    pub(super) fn among_paths(
        &mut self,
        file: &str,
        found: Vec<(PathBuf, String)>,
        positions: &[GeneratedPosition],
    ) -> Choice<P::Map> {
        let what = format!("{} of the roots hold {file}'s path", found.len());
        let mut candidates = Vec::new();
        for (bundle, how) in found {
            if let Some((map, map_how)) = self.map_of(&bundle) {
                candidates.push(Candidate {
                    bundle: Some(bundle),
                    map,
                    how: format!("{map_how} ({how})"),
                });
            }
        }
        self.among(file, candidates, positions, &what)
    }

    /// How the report contradicts `map` (and `bundle`, its text) as the build of `file`, if it does: the report's
    /// debug ID for the file differs from the map's (or the bundle's `//# debugId=`), or a line the report copied
    /// from the file is not that line of the bundle's text. `None`: no contradiction (or nothing to compare).
    pub(super) fn disagreement(
        &mut self,
        file: &str,
        map: &P::Map,
        bundle: Option<&Path>,
    ) -> Option<String> {
        let reported = self.asked.reported.get(file)?;
        if let Some(id) = &reported.debug_id {
            let map_id = self
                .place
                .index(map)
                .debug_id
                .as_deref()
                .map(normalize_debug_id);
            let bundle_id = match (&map_id, bundle) {
                (None, Some(b)) => self.place.debug_id(b),
                _ => None,
            };
            if let Some(other) = map_id.or(bundle_id).filter(|other| other != id) {
                return Some(format!(
                    "the report's debug ID for {file} is {id}, the map's is {other}"
                ));
            }
        }
        let bundle = bundle?;
        if reported.lines.is_empty() {
            return None;
        }
        let text = self.place.text(bundle)?;
        let (line, copy) = lines_disagree((*text).as_ref(), &reported.lines)?;
        Some(format!(
            "the report's copy of line {} of {file} ({}) is not that line of {}",
            line + 1,
            quoted(&copy, 60),
            self.place.shown(bundle)
        ))
    }

    /// A candidate as messages name it.
    fn label(&self, c: &Candidate<P::Map>) -> String {
        c.bundle
            .as_ref()
            .map_or("a given map".into(), |b| self.place.shown(b))
    }

    /// How well `bundle`'s text (when at hand) fits the frames' positions on `map` ([`frames_evidence`]), its lines
    /// read through the index the place keeps for it.
    pub(super) fn text_evidence(
        &mut self,
        bundle: &Path,
        map: &P::Map,
        positions: &[GeneratedPosition],
    ) -> Option<f64> {
        let text = self.place.text(bundle)?;
        let bytes = (*text).as_ref();
        let lines = self.place.line_index(bundle, bytes);
        Some(frames_evidence(
            self.place.index(map),
            bytes,
            lines.as_deref(),
            positions,
        ))
    }

    /// How well a candidate's text fits the frames' positions ([`frames_evidence`]); a map without a text at hand
    /// only rules itself out where a position falls on a line it does not map.
    fn evidence(&mut self, c: &Candidate<P::Map>, positions: &[GeneratedPosition]) -> f64 {
        if let Some(e) = c
            .bundle
            .as_deref()
            .and_then(|b| self.text_evidence(b, &c.map, positions))
        {
            return e;
        }
        let index = self.place.index(&c.map);
        let maps_line = |p: &GeneratedPosition| matches!(index.lookup(*p, Bias::GreatestLowerBound), Ok(Some(h)) if h.generated.line == p.line && h.original.is_some());
        if positions.iter().all(maps_line) {
            0.0
        } else {
            f64::NEG_INFINITY
        }
    }

    /// Whether two candidates are one build: the same loaded map, or maps with the same mappings and sources over
    /// the same text (a build copied to two folders answers every frame alike).
    fn same_build(&mut self, a: &Candidate<P::Map>, b: &Candidate<P::Map>) -> bool {
        if self.place.same_map(&a.map, &b.map) {
            return a.bundle == b.bundle
                || a.bundle.is_none()
                || b.bundle.is_none()
                || self.same_text(a, b);
        }
        let (x, y) = (self.place.index(&a.map), self.place.index(&b.map));
        let same_map = x.sections().len() == y.sections().len()
            && (0..x.sections().len()).all(|s| x.section_mappings(s) == y.section_mappings(s))
            && x.sources().len() == y.sources().len()
            && x.sources()
                .iter()
                .zip(y.sources())
                .all(|(s, t)| s.url == t.url);
        same_map && self.same_text(a, b)
    }

    fn same_text(&mut self, a: &Candidate<P::Map>, b: &Candidate<P::Map>) -> bool {
        match (a.bundle.as_deref(), b.bundle.as_deref()) {
            (Some(x), Some(y)) => match (self.place.text(x), self.place.text(y)) {
                (Some(x), Some(y)) => (*x).as_ref() == (*y).as_ref(),
                _ => false,
            },
            _ => false,
        }
    }
}

/// The first of `lines` (0-based line, the reporter's copy of it) that is not that line of `text`, if any. A copy
/// cut by the reporter (Sentry's `{snip}`, around the column for long lines) agrees when each part between the cuts,
/// trimmed, is in the line (`@sentry/node` 7's `'{snip}` read as `{snip}`); an uncut copy when it equals the line, but for white space at the ends (a reporter may
/// trim them) — or is in it, since some cut without a mark (Bugsnag's long lines). A copy that is empty once trimmed
/// says nothing.
pub fn lines_disagree(text: &[u8], lines: &[(u32, Arc<str>)]) -> Option<(u32, String)> {
    let mut sorted: Vec<&(u32, Arc<str>)> = lines.iter().collect();
    sorted.sort_by_key(|l| l.0);
    let (mut at, mut line_no) = (0usize, 0u32);
    for (line, copy) in sorted {
        if copy.trim().is_empty() {
            continue;
        }
        while line_no < *line {
            match memchr::memchr(b'\n', &text[at..]) {
                Some(i) => {
                    at += i + 1;
                    line_no += 1;
                }
                None => return Some((*line, copy.to_string())),
            }
        }
        let end = memchr::memchr(b'\n', &text[at..]).map_or(text.len(), |i| at + i);
        let here = &text[at..end];
        let here = here.strip_suffix(b"\r").unwrap_or(here);
        // `@sentry/node` 7 marks a cut on the left with `'{snip} ` (sentry-javascript 7.x, `snipLine` in
        // `packages/utils/src/string.ts`: `newLine = "'{snip} " + newLine`), a quote that is not the line's.
        let agrees = copy
            .replace("'{snip}", "{snip}")
            .split("{snip}")
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .all(|part| memchr::memmem::find(here, part.as_bytes()).is_some());
        if !agrees {
            return Some((*line, copy.to_string()));
        }
    }
    None
}

/// `s` in backquotes, cut to about `max` characters.
pub(super) fn quoted(s: &str, max: usize) -> String {
    let s = s.trim();
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("`{}…`", &s[..i]),
        None => format!("`{s}`"),
    }
}
