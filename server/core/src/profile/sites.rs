//! The distinct places a profile's frames stand at, as stack frames to resolve: a profile repeats a function's
//! position in every call path that reaches it (160K frames, a few thousand places), so each place is looked up and
//! named once, by whatever resolves stack frames (the CLI's and the server's), and the answers go back to frames.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::summary::FrameOrigin;
use super::{FrameKind, Profile, ProfileFormat};
use crate::trace::stack::{FrameFormat, Precision, StackFrame, StackLine};
use crate::trace::symbolicate::OriginalFrame;
use crate::GeneratedPosition;

/// One place: a script and a position in it (or a bytecode address), with the function name the profile gives.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Site {
    /// The script, as the profile names it (`Code::url`).
    pub url: Option<Arc<str>>,
    /// The position, 0-based: a frame's own, or where its function starts.
    pub position: GeneratedPosition,
    /// A Hermes bytecode address (`Code::bytecode`).
    pub bytecode: bool,
    /// The function's name as the profile gives it (`Code::function`).
    pub function: Option<Arc<str>>,
}

impl Site {
    /// As a stack frame: bytecode addresses name no file, so the first map given serves them, as for Hermes crash
    /// reports; a V8 or Hermes source frame names its script.
    pub fn stack_frame(&self) -> StackFrame {
        let raw = self.function.as_deref().unwrap_or_default().to_string();
        StackFrame {
            frame_span: 0..raw.len(),
            precision: Precision::Column,
            in_eval: false,
            as_written: None,
            raw,
            format: if self.bytecode {
                FrameFormat::HermesBytecode
            } else {
                FrameFormat::V8
            },
            function: self.function.as_deref().map(str::to_string),
            is_async: false,
            is_constructor: false,
            file: self.url.as_deref().map(str::to_string),
            written: None,
            generated: Some(self.position),
            native: false,
            function_span: None,
            location_span: None,
        }
    }
}

/// Each frame's places: its own, and where its function starts when that is elsewhere.
pub struct Sites {
    /// Each distinct place once.
    pub sites: Vec<Site>,
    /// The distinct `(own, function start)` pairs of places, as indexes into `sites`: what a frame is, as far as
    /// mapping it goes.
    pub pairs: Vec<(usize, Option<usize>)>,
    /// By frame: an index into `pairs`; `None` for engine frames and frames without a position.
    pub by_frame: Vec<Option<u32>>,
}

impl Sites {
    /// The places of `profile`'s JavaScript frames that have a position, each once, and each frame's pair of them.
    pub fn of(profile: &Profile) -> Sites {
        let mut sites: Vec<Site> = Vec::new();
        let mut index: FxHashMap<Site, usize> = FxHashMap::default();
        // Frames repeat a code at a place: (code, position) finds its site without hashing the strings.
        let mut by_code: FxHashMap<(u32, GeneratedPosition), usize> = FxHashMap::default();
        let mut pairs = Vec::new();
        let mut pair_index: FxHashMap<(usize, Option<usize>), u32> = FxHashMap::default();
        let mut intern = |code_index: u32, position: GeneratedPosition| -> usize {
            *by_code.entry((code_index, position)).or_insert_with(|| {
                let code = &profile.codes[code_index as usize];
                let site = Site {
                    url: code.url.clone(),
                    position,
                    bytecode: code.bytecode,
                    function: code.function.clone(),
                };
                if let Some(&i) = index.get(&site) {
                    return i;
                }
                sites.push(site.clone());
                index.insert(site, sites.len() - 1);
                sites.len() - 1
            })
        };
        let by_frame = profile
            .frames
            .iter()
            .map(|f| {
                let js = profile.codes[f.code as usize].kind == FrameKind::JavaScript;
                let position = f.position.filter(|_| js)?;
                let own = intern(f.code, position);
                let start = f
                    .function_start
                    .filter(|s| *s != position)
                    .map(|s| intern(f.code, s));
                Some(*pair_index.entry((own, start)).or_insert_with(|| {
                    pairs.push((own, start));
                    pairs.len() as u32 - 1
                }))
            })
            .collect();
        Sites {
            sites,
            pairs,
            by_frame,
        }
    }

    /// The places as stack lines, in `sites` order.
    pub fn lines(&self) -> Vec<StackLine> {
        self.sites
            .iter()
            .map(|s| StackLine::Frame(s.stack_frame()))
            .collect()
    }

    /// The origin of each pair (in `pairs` order) from the answers for the places (`originals`, in `sites` order),
    /// its source shown as `shown` says and its package as `package` says (given the place). The function's line is where it starts when that maps
    /// into the same source.
    pub fn origins(
        &self,
        profile: &Profile,
        originals: &[Option<&OriginalFrame>],
        shown: impl Fn(usize, &OriginalFrame) -> String,
        package: impl Fn(usize, &OriginalFrame) -> String,
    ) -> Vec<Option<FrameOrigin>> {
        // A pair's first frame, for what the profile calls it.
        let mut first = vec![usize::MAX; self.pairs.len()];
        for (i, p) in self.by_frame.iter().enumerate() {
            if let Some(p) = p {
                let f = &mut first[*p as usize];
                *f = (*f).min(i);
            }
        }
        self.pairs
            .iter()
            .zip(first)
            .map(|(&(own, start), frame)| {
                let o = originals.get(own).copied().flatten()?;
                // The function's head: where the original code puts the function it was named from; else where
                // the profile says the function starts, mapped (Hermes bytecode: its first statement), when that is
                // in the same source; else the frame's own line.
                let line = o.function_line.unwrap_or_else(|| {
                    start
                        .and_then(|st| originals.get(st).copied().flatten())
                        .filter(|st| st.source_id == o.source_id)
                        .map_or(o.line, |st| st.line)
                });
                // Hermes names a script's top-level code `global` (it is no function of the program).
                let top_level = o.function.is_none()
                    && profile.format == ProfileFormat::Hermes
                    && (frame < profile.frames.len())
                    && profile.code(frame).function.as_deref() == Some("global");
                Some(FrameOrigin {
                    function: o.function.clone(),
                    top_level,
                    source: shown(own, o),
                    line,
                    package: package(own, o),
                })
            })
            .collect()
    }

    /// How many frames stand at a bundle position, and how many of those have an origin (`origins` by pair).
    pub fn counts(&self, origins: &[Option<FrameOrigin>]) -> (usize, usize) {
        let positioned = self.by_frame.iter().flatten().count();
        let mapped = self
            .by_frame
            .iter()
            .flatten()
            .filter(|&&p| origins.get(p as usize).is_some_and(Option::is_some))
            .count();
        (positioned, mapped)
    }

    /// A frame's own original (the answer for its own place).
    pub fn own<'a>(
        &self,
        originals: &[Option<&'a OriginalFrame>],
        frame: usize,
    ) -> Option<&'a OriginalFrame> {
        let pair = self.by_frame.get(frame).copied().flatten()?;
        let (own, _) = self.pairs[pair as usize];
        originals.get(own).copied().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::hermes;

    #[test]
    fn repeated_places_are_one_site() {
        let p = hermes::read(br#"{"samples":[],"stackFrames":{"1":{"name":"[root]","category":"root"},"2":{"funcVirtAddr":"10","offset":"3","name":"f","category":"JavaScript","parent":1},"3":{"funcVirtAddr":"20","offset":"0","name":"g","category":"JavaScript","parent":2},"4":{"funcVirtAddr":"10","offset":"3","name":"f","category":"JavaScript","parent":3}}}"#).unwrap();
        let s = Sites::of(&p);
        // f at 13 and its start 10, g at 20 (its own start).
        assert_eq!(s.sites.len(), 3);
        assert_eq!(s.by_frame[0], None);
        assert_eq!(s.by_frame[1], s.by_frame[3]);
        assert_eq!(s.pairs[s.by_frame[2].unwrap() as usize].1, None);
        assert!(
            matches!(&s.lines()[0], StackLine::Frame(f) if f.format == FrameFormat::HermesBytecode && f.file.is_none())
        );
    }
}
