//! The maps given for a file (`--map`, the client's maps) and the one map for a file here: which given map serves a
//! bundle, or a frame with no bundle at hand, and what is said when none does.

use super::{Choice, GivenMap, Hint, Place, Resolver, MIN_SEGMENTS_TO_CONFIRM};
use crate::bundle::fit::{check_fit, FitReport, Verdict};
use crate::bundle::hermes_bytecode::is_hermes_bytecode;
use crate::trace::stack::file_name_of;
use std::path::{Path, PathBuf};

impl<P: Place> Resolver<'_, '_, P> {
    /// metro-symbolicate's rule, a single map given serves every frame, held to the frames it can be right for.
    /// `here`: the files the frame's path or name finds at hand, none of which leads to the map. A file at hand that
    /// is not the map's bundle is a file of its own (the user's script beside a library's bundle): never answered
    /// from that map. When the map's bundle is unknown, a file at hand is its bundle only if the map fits its text
    /// (the fit check, on the whole map). When no file is at hand (a device's bundle, a trace from elsewhere), the
    /// rule holds, unless the map is known to be another file's of the same trace (it names a file other frames
    /// name).
    pub(super) fn one_map_given(
        &mut self,
        file: &str,
        only: &GivenMap<P::Map>,
        here: Vec<PathBuf>,
    ) -> Choice<P::Map> {
        let name = file_name_of(file);
        // A RAM bundle's module file (`js-modules/4.js`) or a segment (`seg-2.js`) is a generated file of the map
        // itself, when the map has Metro's offsets or segments (metro-symbolicate's `_legacyFormat`).
        let index = self.place.index(&only.map);
        if index.has_metro_files() && crate::map::metro::metro_file(file).is_some() {
            return Choice::Map {
                map: only.map.clone(),
                bundle: only.bundle.clone(),
                why: format!(
                    "{name} is a module or segment file of the RAM bundle the one map given describes (its \
                     x_facebook_offsets or x_facebook_segments)"
                ),
            };
        }
        let map_is_for = only
            .bundle
            .as_ref()
            .map(|b| self.place.shown(b))
            .or_else(|| only.names.first().cloned());
        if !here.is_empty() {
            return self.one_map_for_a_file_here(name, only, &here);
        }
        if let Some(other) = only
            .names
            .iter()
            .find(|n| n.as_str() != name && self.trace_files.contains(n.as_str()))
        {
            return Choice::Unmapped {
                why: format!(
                    "{file} is not at hand, and the one map given is {other}'s, another file of this trace: not \
                     mapped (give this file's map)"
                ),
            };
        }
        Choice::Map {
            map: only.map.clone(),
            bundle: only.bundle.clone(),
            why: format!(
                "no bundle named {name} is at hand; the one map given{} serves every such frame \
                 (metro-symbolicate's rule)",
                map_is_for.map_or(String::new(), |b| format!(" (for {b})"))
            ),
        }
    }

    /// Why a bundle found gives no map: its map is broken (and how), or it leads to none.
    pub(super) fn no_map(&self, bundle: &Path) -> String {
        match self.place.map_error(bundle) {
            Some(error) => format!(
                "{} leads to a map that is broken, so its frames are not mapped: {error}",
                self.place.shown(bundle)
            ),
            None => format!(
                "{} leads to no map (give its map)",
                self.place.shown(bundle)
            ),
        }
    }

    /// Why the bundle the user chose gives no map: [`Resolver::no_map`]; and, when it is Hermes bytecode and the one
    /// map given is another file's, what its function offsets say against this file's (another compile's map).
    pub(super) fn chosen_without_map(&mut self, bundle: &Path) -> String {
        let why = self.no_map(bundle);
        let [only] = self.asked.given else {
            return why;
        };
        let Some(own) = only.bundle.clone() else {
            return why;
        };
        let bytecode = self
            .place
            .text(bundle)
            .is_some_and(|t| is_hermes_bytecode((*t).as_ref()));
        if !bytecode {
            return why;
        }
        match self.fit_whole(&only.map, bundle) {
            Some(r) if r.bytecode.as_ref().is_some_and(|b| !b.fits()) => format!(
                "{why}; the one map given is {}'s, and not this file's: {}",
                self.place.shown(&own),
                r.message()
            ),
            _ => why,
        }
    }

    /// Why a Hermes bytecode file at hand is not answered from the one map given (`misfit`: what its fit check
    /// said).
    fn bytecode_without_map(&self, file: &Path, misfit: Option<&str>) -> String {
        match misfit {
            Some(why) => format!(
                "{} is Hermes bytecode with no map of its own, and the map given is not its: {why}",
                self.place.shown(file)
            ),
            None => format!(
                "{} is Hermes bytecode with no map of its own, and the map given is not its: if it is the \
                 packager's map of the JavaScript bundle, compose the packager's and the compiler's maps \
                 (react-native's compose-source-maps) and symbolicate with the composed map",
                self.place.shown(file)
            ),
        }
    }

    /// The fit check of `map` on the whole text of `bundle` (`None`: no text at hand, or not checkable).
    fn fit_whole(&mut self, map: &P::Map, bundle: &Path) -> Option<FitReport> {
        let id = self.place.debug_id(bundle);
        let text = self.place.text(bundle)?;
        check_fit(self.place.index(map), (*text).as_ref(), id.as_deref()).ok()
    }

    /// The one map given, for a frame whose file is here (`here`: the files its path or name finds, none leading to a
    /// map): that file is the map's bundle when it is a copy of the map's own bundle (the same bytes), or when the map
    /// fits its whole text, confirmed on at least [`MIN_SEGMENTS_TO_CONFIRM`] segments (or confirmed once shifted by
    /// whole lines: a banner, which the fit check then reports per frame), or, Hermes bytecode, when the map's
    /// function offsets are the file's function table (`bundle::hermes_bytecode`). Otherwise it is a file of its
    /// own, and the reason says which of these failed; but one bytecode file here, which no map of its own
    /// describes, is the file a map given without its bundle was given for: chosen with it, its frames are withheld
    /// by the fit check, which says why (another compile's map, a map of JavaScript) on the frames and on stderr.
    fn one_map_for_a_file_here(
        &mut self,
        name: &str,
        only: &GivenMap<P::Map>,
        here: &[PathBuf],
    ) -> Choice<P::Map> {
        let own_text: Option<Vec<u8>> = only
            .bundle
            .as_deref()
            .and_then(|b| self.place.text(b))
            .map(|t| (*t).as_ref().to_vec());
        let mut taken: Vec<(PathBuf, String)> = Vec::new();
        let (mut bytecode, mut thin, mut misfit) = (false, None, false);
        let (mut bytecode_misfit, mut bytecode_unchecked) = (None::<String>, None::<String>);
        for bundle in here {
            let text = self.place.text(bundle).map(|t| (*t).as_ref().to_vec());
            if let (Some(own), Some(text)) = (&own_text, &text) {
                if own == text {
                    taken.push((
                        bundle.clone(),
                        format!(
                            "{} is a copy of the map's bundle (the same bytes)",
                            self.place.shown(bundle)
                        ),
                    ));
                    continue;
                }
            }
            let is_bytecode = text.as_deref().is_some_and(is_hermes_bytecode);
            bytecode |= is_bytecode;
            match self.fit_whole(&only.map, bundle) {
                Some(r) if r.bytecode.is_some() => match &r.bytecode {
                    Some(b) if b.fits() => taken.push((
                        bundle.clone(),
                        format!(
                            "{} leads to no map; the one map given is its compile's ({} functions at the offsets \
                             of its x_hermes_function_offsets)",
                            self.place.shown(bundle),
                            b.functions
                        ),
                    )),
                    _ => {
                        misfit = true;
                        bytecode_misfit.get_or_insert_with(|| r.message());
                    }
                },
                Some(r) if r.verdict == Verdict::Unknown && is_bytecode => {
                    misfit = true;
                    if let Some(why) = &r.unknown_because {
                        bytecode_unchecked.get_or_insert_with(|| why.to_string());
                    }
                }
                Some(r) if r.shift_lines.is_some() => taken.push((
                    bundle.clone(),
                    format!(
                        "{} leads to no map; the one map given fits its whole text once shifted by whole lines",
                        self.place.shown(bundle)
                    ),
                )),
                Some(r)
                    if r.verdict == Verdict::Fits
                        && r.evidence.segments >= MIN_SEGMENTS_TO_CONFIRM =>
                {
                    taken.push((
                        bundle.clone(),
                        format!(
                            "{} leads to no map; the one map given fits its text ({} segments checked)",
                            self.place.shown(bundle),
                            r.evidence.segments
                        ),
                    ))
                }
                Some(r) if r.verdict == Verdict::Fits => thin = Some(r.evidence.segments),
                _ => misfit = true,
            }
        }
        if let [(bundle, why)] = &taken[..] {
            return Choice::Map {
                map: only.map.clone(),
                why: why.clone(),
                bundle: Some(bundle.clone()),
            };
        }
        let first = self.place.shown(&here[0]);
        if let ([bundle], true, Some(why), None) =
            (here, taken.is_empty(), &bytecode_misfit, &only.bundle)
        {
            return Choice::Map {
                map: only.map.clone(),
                bundle: Some(bundle.clone()),
                why: format!(
                    "{first} is Hermes bytecode with no map of its own, so the one map given is checked against it: \
                     {why}"
                ),
            };
        }
        if bytecode && taken.is_empty() {
            let why = match (&bytecode_misfit, &bytecode_unchecked) {
                (Some(why), _) => self.bytecode_without_map(&here[0], Some(why)),
                (None, Some(why)) => format!(
                    "{first} is Hermes bytecode with no map of its own, and the map given could not be checked \
                     against it ({why}): not mapped (if it is its map: {})",
                    self.place.hint(&Hint::ChooseThisBundle {
                        name: name.to_string(),
                        bundle: first.clone(),
                    })
                ),
                (None, None) => self.bytecode_without_map(&here[0], None),
            };
            return Choice::Unmapped { why };
        }
        let why = if taken.len() > 1 {
            format!(
                "{} files named {name} are here and the map given could be any of them: not mapped (choose one: {})",
                taken.len(),
                self.place.hint(&Hint::NameBundle {
                    name: name.to_string()
                })
            )
        } else if let (Some(n), false) = (thin, misfit) {
            format!(
                "{first} is here and the map given fits its text, but on {n} segments only: too few to tell it is \
                 this file's map, so not mapped (if it is: {})",
                self.place.hint(&Hint::ChooseThisBundle {
                    name: name.to_string(),
                    bundle: first.clone(),
                })
            )
        } else if let Some(own) = &only.bundle {
            format!(
                "{first} is a file of its own, not the bundle of the map given (that is {}): a map is never read \
                 for another file (give this file's map, or {} for its bundle)",
                self.place.shown(own),
                self.place.hint(&Hint::NameBundle {
                    name: name.to_string()
                })
            )
        } else {
            format!(
                "{first} is here, and the map given does not fit its text: not its bundle, so not mapped (give \
                 this file's map)"
            )
        };
        Choice::Unmapped { why }
    }
}
