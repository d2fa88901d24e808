//! Symbolication: parsed stack frames → original frames, with the function each frame is in.
//!
//! Which map a frame uses is the caller's business (it may involve the file system or a dev server); this module
//! takes the map and does the lookups. The frame's function, best source first: Metro's function map
//! (`x_facebook_sources`), the ECMA-426 `scopes` field, a dart2js map's name at the frame, scope analysis of the
//! generated code, then of the original source (`function_name`), the frame's own name. Which one was used is
//! recorded. The `names` entry of the mapping at the frame is kept as `name` — it is the token executed there, usually
//! the callee — and never becomes the function, except in a map dart2js made, whose names are its members' (see
//! `enclosing_function`).

use serde::Serialize;

use crate::map::index::{GeneratedPosition, SourceId, SourceMapIndex};
use crate::map::metro::{metro_file, MetroPlaceError, Space};
use crate::trace::function_name::{CodeScopes, NoCode};
use crate::trace::js_scopes::TextPosition;
use crate::trace::spelled_names::as_spelled;
use crate::trace::stack::{Precision, StackFrame, StackLine};

mod kept;
mod line_level;
mod naming;
mod render;

pub(crate) use kept::key_text;
pub use kept::{KeptFor, KeptFrames};

pub use line_level::*;
pub use naming::*;
pub use render::*;

/// Where a frame's function name came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FunctionNameSource {
    /// Metro's `x_facebook_sources` function map.
    FunctionMap,
    /// The ECMA-426 `scopes` field.
    Scopes,
    /// dart2js's map: the `names` entry of the frame's own segment, which dart2js sets to the enclosing member.
    Dart2js,
    /// The function around the frame in the generated file, its name tokens looked up in the map.
    GeneratedScopes,
    /// The function around the original position in the original source.
    OriginalScopes,
    /// The name printed in the trace.
    Frame,
    /// An anonymous function called through a property, named by its caller's call site: the token the map names
    /// at the caller's position (`this.Et()` → `onInvalidate_`), as rust-sourcemap's `get_original_function_name`
    /// and Sentry's resolver before scopes name such frames.
    CallSite,
}

/// The original side of a frame. Positions are 0-based here; renderers convert.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginalFrame {
    /// The source, as the map's index numbers it.
    pub source_id: SourceId,
    /// The source's URL as the map gives it (`sourceRoot` applied); `None` for a `null` entry of `sources`.
    pub source: Option<String>,
    /// 0-based original line.
    pub line: u32,
    /// 0-based original column.
    pub column: u32,
    /// The `names` entry of the mapping at the frame: the token executed there (often the callee), not the frame's
    /// function.
    pub name: Option<String>,
    /// The function the frame is in; `None` with a `function_source` means known to be anonymous (a callback) or
    /// top-level code.
    pub function: Option<String>,
    /// Where `function` came from; `None` when nothing named it.
    pub function_source: Option<FunctionNameSource>,
    /// 0-based line where that function starts in the original source, when the original code's scopes named it
    /// (`OriginalScopes`): its head, where a frame inside it, or a Hermes bytecode address of its first statement,
    /// is not.
    pub function_line: Option<u32>,
    /// The code around the frame is a function its scopes know to be anonymous (`function` is then the name V8 made
    /// from the receiver, or the caller's call site's).
    pub anonymous: bool,
    /// The source as a path that opens from where the caller runs, where the map's string is not one already: a
    /// relative `sources` entry joined to its map's folder (`../src/errors.ts` of
    /// `node_modules/axios/dist/axios.min.js.map` is `node_modules/axios/src/errors.ts`). Set by the caller, which
    /// knows the map's folder and its own; text output shows it in place of `source`.
    pub path: Option<String>,
}

/// A frame and what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolicatedFrame {
    /// The frame as parsed.
    pub frame: StackFrame,
    /// The caller's identifier of the map used (see [`symbolicate`]).
    pub map: Option<usize>,
    /// Where the frame is in the original code; `None` when it stayed as it was (`unresolved` says why).
    pub original: Option<OriginalFrame>,
    /// The original source is ignore-listed (`ignoreList` / `x_google_ignoreList`).
    pub ignored: bool,
    /// Why the frame stayed as it was, when it did.
    pub unresolved: Option<String>,
}

// A trace has tens of lines: the size of the text variant does not matter.
/// A trace line after symbolication: a frame and what became of it, or text passed through.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SymbolicatedLine {
    /// A frame.
    Frame(SymbolicatedFrame),
    /// A line that holds no frame, passed through as it is.
    Text(String),
}

impl SymbolicatedLine {
    /// The frame, if this line is one (for `filter_map` over a trace's lines).
    pub fn frame(&self) -> Option<&SymbolicatedFrame> {
        match self {
            SymbolicatedLine::Frame(f) => Some(f),
            SymbolicatedLine::Text(_) => None,
        }
    }

    /// The frame, mutably, if this line is one.
    pub fn frame_mut(&mut self) -> Option<&mut SymbolicatedFrame> {
        match self {
            SymbolicatedLine::Frame(f) => Some(f),
            SymbolicatedLine::Text(_) => None,
        }
    }
}

/// Looks one frame up in `index` (the map chosen for it), with names from the maps and the frame only.
pub fn symbolicate_frame(index: &SourceMapIndex, frame: &StackFrame) -> SymbolicatedFrame {
    symbolicate_frame_with(index, 0, frame, &NoCode)
}

/// Looks one frame up in `index`, whose identifier for `code` is `map`.
pub fn symbolicate_frame_with(
    index: &SourceMapIndex,
    map: usize,
    frame: &StackFrame,
    code: &dyn CodeScopes,
) -> SymbolicatedFrame {
    let unresolved = |why: &str| SymbolicatedFrame {
        frame: frame.clone(),
        map: None,
        original: None,
        ignored: false,
        unresolved: Some(why.to_string()),
    };
    // A segment the map lacks is why a frame has no answer, whether or not it has a position.
    if let Some(Err(why)) = index
        .has_metro_files()
        .then(|| frame.file.as_deref().and_then(metro_file))
        .flatten()
        .map(|file| index.metro_space(file))
    {
        return unresolved(&why.to_string());
    }
    let Some(p) = frame.generated else {
        return unresolved(if frame.native {
            "native frame"
        } else if frame.in_eval {
            "ran inside code made by eval whose origin has no position in a file"
        } else {
            "no position"
        });
    };
    // A frame in one of a RAM bundle's modules or in a segment is placed in the map by its file's name.
    let (space, placed) = match frame_space(index, frame, p) {
        Ok(placed) => placed,
        Err(why) => return unresolved(&why.to_string()),
    };
    // The bundle's text is not the module's or the segment's: only the original code can name the function.
    let original_only = OriginalCodeOnly(code);
    let code: &dyn CodeScopes = if (space, placed) == (Space::Main, p) {
        code
    } else {
        &original_only
    };
    let p = placed;
    // A line-only frame is looked up at its line's first segment, when every segment of that line maps to one
    // original line; otherwise there is no column to go by.
    let p = match frame.precision {
        Precision::Column => p,
        Precision::Line => match line_level_in(index, space, p.line) {
            Ok(at) => at,
            Err(why) => return unresolved(&why.to_string()),
        },
    };
    let hit = match frame_segment_in(index, space, p) {
        Ok(Some(hit)) => hit,
        Ok(None) => return unresolved("no mapping at this position"),
        Err(e) => return unresolved(&format!("invalid map: {e}")),
    };
    let Some(o) = hit.original else {
        return unresolved("no mapping at this position");
    };
    let (mut function, mut function_source, mut function_line, anonymous) =
        frame_function(index, map, hit.section, p, &o, frame, code);
    // At line level the first segment may stand before the function the frame is in (its declaration's line): a
    // name the frame gives is kept rather than dropped for "top level".
    if frame.precision == Precision::Line && function.is_none() {
        if let Some(name) = &frame.function {
            (function, function_source, function_line) =
                (Some(name.clone()), Some(FunctionNameSource::Frame), None);
        }
    }
    SymbolicatedFrame {
        frame: frame.clone(),
        map: None,
        ignored: index.is_ignored(o.source),
        original: Some(OriginalFrame {
            source_id: o.source,
            source: o.source_url.map(str::to_string),
            line: o.line,
            column: o.column,
            name: o.name.map(str::to_string),
            function,
            function_source,
            function_line,
            anonymous,
            path: None,
        }),
        unresolved: None,
    }
}

/// Where a frame's position is in `index`: in the map's own generated file, or (a map with Metro's
/// `x_facebook_offsets` or `x_facebook_segments`, and a frame in `N.js`, `seg-S.js` or `seg-S_N.js`) where
/// `map/metro.rs` places it. `Err`: the map lacks that segment or module, and the frame has no answer.
pub fn frame_space(
    index: &SourceMapIndex,
    frame: &StackFrame,
    p: GeneratedPosition,
) -> Result<(Space, GeneratedPosition), MetroPlaceError> {
    let file = index
        .has_metro_files()
        .then(|| frame.file.as_deref().and_then(metro_file))
        .flatten();
    match file {
        Some(file) => index.metro_position(file, p),
        None => Ok((Space::Main, p)),
    }
}

/// Code scopes of the original sources only: for a frame whose generated file is not the map's bundle text.
pub struct OriginalCodeOnly<'a>(pub &'a dyn CodeScopes);

impl CodeScopes for OriginalCodeOnly<'_> {
    fn generated(
        &self,
        _: usize,
        _: TextPosition,
    ) -> Option<std::sync::Arc<crate::trace::js_scopes::FunctionScopes>> {
        None
    }
    fn original(
        &self,
        map: usize,
        source: SourceId,
        at: TextPosition,
    ) -> Option<std::sync::Arc<crate::trace::js_scopes::FunctionScopes>> {
        self.0.original(map, source, at)
    }
}

/// The segment a frame's position maps by: the one rule for every answer ([`SourceMapIndex::answer_at`]).
pub fn frame_segment(
    index: &SourceMapIndex,
    p: GeneratedPosition,
) -> Result<Option<crate::map::index::MappingHit<'_>>, crate::MapError> {
    index.answer_at(p)
}

/// [`frame_segment`] in one generated file of the map (`map/metro.rs`).
pub fn frame_segment_in(
    index: &SourceMapIndex,
    space: Space,
    p: GeneratedPosition,
) -> Result<Option<crate::map::index::MappingHit<'_>>, crate::MapError> {
    index.answer_at_in(space, p)
}

/// How many maps a frame may pass through (a Hermes bytecode map, then the bundler's map, …).
const MAX_CHAIN: usize = 4;

/// Follows a resolved frame through further maps while its original source is itself a generated file that
/// `next_map` knows a map for (React Native without a composed map: Hermes' map leads to the bundle, whose map
/// leads to the sources). A better function name from an earlier step is kept over the frame's own name. Where a
/// further map maps the position to no source, the frame is not answered: the chain answers as the maps composed
/// would.
fn follow<'a>(
    mut f: SymbolicatedFrame,
    next_map: &mut impl FnMut(usize, &str) -> Option<(usize, &'a SourceMapIndex)>,
    code: &dyn CodeScopes,
) -> SymbolicatedFrame {
    for _ in 0..MAX_CHAIN {
        let Some(o) = &f.original else { break };
        let from = f.map.expect("a frame with an original has its map");
        let Some((id, index)) = o.source.as_deref().and_then(|s| next_map(from, s)) else {
            break;
        };
        if Some(id) == f.map {
            break;
        }
        let mut frame = f.frame.clone();
        frame.generated = Some(GeneratedPosition {
            line: o.line,
            column: o.column,
        });
        let next = symbolicate_frame_with(index, id, &frame, code);
        // Generated code its own map maps to no source (Metro's closing `__r(0)` call): not answered, as the
        // composed map would not answer it (metro-source-map's `composeSourceMaps` drops such segments).
        let Some(mut original) = next.original else {
            let source = o.source.as_deref().unwrap_or_default();
            return SymbolicatedFrame {
                frame: f.frame,
                map: Some(id),
                original: None,
                ignored: false,
                unresolved: Some(format!(
                    "the map leads to {source}:{}:{}, generated code whose own map (given too) maps it to no source{}",
                    o.line + 1,
                    o.column,
                    next.unresolved
                        .map(|why| format!(" ({why})"))
                        .unwrap_or_default()
                )),
            };
        };
        if matches!(
            original.function_source,
            Some(FunctionNameSource::Frame) | None
        ) && !matches!(o.function_source, Some(FunctionNameSource::Frame) | None)
        {
            original.function = o.function.clone();
            original.function_source = o.function_source;
        }
        f = SymbolicatedFrame {
            frame: f.frame,
            map: Some(id),
            original: Some(original),
            ignored: next.ignored,
            unresolved: None,
        };
    }
    f
}

/// Which map answers a frame: what `map_for` tells [`symbolicate`].
#[derive(Debug, Clone)]
pub enum FrameMap<'a> {
    /// This map, with the caller's identifier for it (recorded in [`SymbolicatedFrame::map`]).
    Map(usize, &'a SourceMapIndex),
    /// No map: the frame says there is no source map for its file (or that it is native).
    NoMap,
    /// No map, for this reason (the resolver's words): the frame's [`SymbolicatedFrame::unresolved`].
    Unmapped(String),
}

/// Symbolicates parsed lines, asking `map_for` which index (if any) each frame uses, with an identifier of the
/// caller's choosing that is recorded in [`SymbolicatedFrame::map`]; `next_map` names the map of an original source
/// (of the map it names first) that is itself generated, to follow chains of maps (return `None` when there are none); `code` reads the
/// generated files and original sources that name functions (see `function_name`; [`NoCode`] for none).
pub fn symbolicate<'a>(
    lines: &[StackLine],
    map_for: impl FnMut(&StackFrame) -> FrameMap<'a>,
    next_map: impl FnMut(usize, &str) -> Option<(usize, &'a SourceMapIndex)>,
    code: &dyn CodeScopes,
) -> Vec<SymbolicatedLine> {
    symbolicate_in_order(lines, map_for, next_map, code, CallOrder::NewestFirst, None)
}

/// [`symbolicate`] for lines whose frames run as `order` says (a Sentry event's, oldest first), each frame's lookup
/// answered from `kept` when an earlier session made it (`kept.rs`).
pub fn symbolicate_in_order<'a>(
    lines: &[StackLine],
    mut map_for: impl FnMut(&StackFrame) -> FrameMap<'a>,
    mut next_map: impl FnMut(usize, &str) -> Option<(usize, &'a SourceMapIndex)>,
    code: &dyn CodeScopes,
    order: CallOrder,
    kept: Option<&KeptFor<'_>>,
) -> Vec<SymbolicatedLine> {
    // The maps the frames were answered from, by the caller's identifier: whose sources must spell the names shown.
    let used: std::cell::RefCell<Vec<(usize, &'a SourceMapIndex)>> = Default::default();
    let note = |id: usize, index: &'a SourceMapIndex| {
        let mut used = used.borrow_mut();
        if !used.iter().any(|(i, _)| *i == id) {
            used.push((id, index));
        }
    };
    let mut map_for = |f: &StackFrame| {
        let got = map_for(f);
        if let FrameMap::Map(id, index) = got {
            note(id, index);
        }
        got
    };
    let mut next_map = |id: usize, source: &str| {
        let got = next_map(id, source);
        if let Some((id, index)) = got {
            note(id, index);
        }
        got
    };
    let mut out: Vec<SymbolicatedLine> = lines
        .iter()
        .map(|l| match l {
            StackLine::Text(t) => SymbolicatedLine::Text(t.clone()),
            StackLine::Frame(f) => SymbolicatedLine::Frame(match map_for(f) {
                FrameMap::Map(id, index) => follow(
                    SymbolicatedFrame {
                        map: Some(id),
                        ..kept::symbolicate_frame_kept(index, id, f, code, kept)
                    },
                    &mut next_map,
                    code,
                ),
                FrameMap::NoMap => SymbolicatedFrame {
                    frame: f.clone(),
                    map: None,
                    original: None,
                    ignored: false,
                    unresolved: Some(if f.native {
                        "native frame".into()
                    } else {
                        "no source map for this frame's file".into()
                    }),
                },
                FrameMap::Unmapped(why) => SymbolicatedFrame {
                    frame: f.clone(),
                    map: None,
                    original: None,
                    ignored: false,
                    unresolved: Some(why),
                },
            }),
        })
        .collect();
    name_by_call_sites(&mut out, order);
    forget_unspelled_names(&mut out, &used.into_inner());
    out
}

/// The name the engine printed, shown only as far as the frame's original source spells it (`spelled_names`):
/// `X.onClick.f.<computed>` in a Vue template handler is the bundle's naming, not the user's; the frame is then said
/// anonymous (its scopes knew it), or unnamed. A source whose text the map does not carry keeps the name (nothing
/// to check it against; `functionSource` says where it came from).
fn forget_unspelled_names(out: &mut [SymbolicatedLine], used: &[(usize, &SourceMapIndex)]) {
    for f in out.iter_mut().filter_map(SymbolicatedLine::frame_mut) {
        let Some(index) = f
            .map
            .and_then(|m| used.iter().find(|(i, _)| *i == m))
            .map(|(_, index)| *index)
        else {
            continue;
        };
        let Some(o) = f.original.as_mut() else {
            continue;
        };
        // A call site's name is the map's `names` entry at the caller: an original name of the caller's source.
        let printed = o.function_source == Some(FunctionNameSource::Frame);
        let Some(name) = o.function.as_deref().filter(|_| printed) else {
            continue;
        };
        let Some(text) = index.source_content(o.source_id) else {
            continue;
        };
        o.function = as_spelled(&text, name);
        if o.function.is_none() {
            o.function_source = None;
        }
    }
}

#[cfg(test)]
mod tests;
