//! Symbolication: parsed stack frames → original frames, with the function each frame is in.
//!
//! Which map a frame uses is the caller's business (it may involve the file system or a dev server); this module
//! takes the map and does the lookups. The frame's function, best source first: Metro's function map
//! (`x_facebook_sources`), the ECMA-426 `scopes` field, a dart2js map's name at the frame, scope analysis of the
//! generated code, then of the original source (`function_name`), the frame's own name. Which one was used is
//! recorded. The `names` entry of the mapping at the frame is kept as `name` — it is the token executed there, usually
//! the callee — and never becomes the function, except in a map dart2js made, whose names are its members' (see
//! `enclosing_function`).

use std::fmt::Write;

use serde::Serialize;

use crate::map::compact::Bias;
use crate::map::index::{GeneratedPosition, OriginalPosition, SourceId, SourceMapIndex};
use crate::map::metro::{metro_file, MetroPlaceError, Space};
use crate::trace::code_frame::code_frame;
use crate::trace::function_name::{
    function_by_scopes, CodeScopes, GeneratedCode, NoCode, ScopeOrigin,
};
use crate::trace::js_scopes::TextPosition;
use crate::trace::spelled_names::{as_spelled, BUILTIN_RECEIVERS};
use crate::trace::stack::{FrameFormat, Precision, StackFrame, StackLine};
use crate::MapError;

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

/// How many segments of a generated line a line-only frame looks at.
const LINE_LEVEL_SEGMENTS: usize = 4096;

/// Why a line-only frame (a trace that gives no column) has no answer. The messages are the ones users see.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineLevelError {
    /// The map could not be decoded on that line.
    #[error("invalid map: {0}")]
    InvalidMap(MapError),
    /// No segment of the line maps anywhere.
    #[error("the trace gives no column, and nothing on this line of the bundle is mapped")]
    Unmapped,
    /// The line's segments map to more than one original line, so the column would decide.
    #[error(
        "the trace gives no column, and line {} of the bundle maps to more than one original line{}: there is no \
         column to go by",
        line + 1,
        if *one_line_bundle { " (a one-line bundle)" } else { "" }
    )]
    ManyLines {
        /// The generated line (0-based).
        line: u32,
        /// Whether the bundle is one line (the line is 0 and nothing is mapped on a next one).
        one_line_bundle: bool,
    },
}

/// Where a line-only frame on generated `line` is answered: the line's first segment, when every segment of the line
/// (up to `LINE_LEVEL_SEGMENTS`) maps to the same original line of the same source, so that the column cannot change
/// the answer at line level. Otherwise (a minified line holding many original lines) the reason there is no answer.
pub fn line_level(index: &SourceMapIndex, line: u32) -> Result<GeneratedPosition, LineLevelError> {
    line_level_in(index, Space::Main, line)
}

/// [`line_level`] in one generated file of the map (`map/metro.rs`).
pub fn line_level_in(
    index: &SourceMapIndex,
    space: Space,
    line: u32,
) -> Result<GeneratedPosition, LineLevelError> {
    let mut first = None;
    let mut places: Vec<(SourceId, u32)> = Vec::new();
    let mut column = 0;
    for _ in 0..LINE_LEVEL_SEGMENTS {
        let hit = match index.lookup_in(
            space,
            GeneratedPosition { line, column },
            Bias::LeastUpperBound,
        ) {
            Ok(Some(hit)) if hit.generated.line == line => hit,
            Ok(_) => break,
            Err(e) => return Err(LineLevelError::InvalidMap(e)),
        };
        if let Some(o) = hit.original {
            first.get_or_insert(hit.generated);
            if !places.contains(&(o.source, o.line)) {
                places.push((o.source, o.line));
                if places.len() > 1 {
                    break;
                }
            }
        }
        column = hit.generated.column + 1;
    }
    match (first, places.len()) {
        (Some(at), 1) => Ok(at),
        (None, _) => Err(LineLevelError::Unmapped),
        _ => Err(LineLevelError::ManyLines {
            line,
            one_line_bundle: line == 0
                && index
                    .lookup_in(
                        space,
                        GeneratedPosition { line: 1, column: 0 },
                        Bias::LeastUpperBound,
                    )
                    .ok()
                    .flatten()
                    .is_none(),
        }),
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

/// The frame's function by the precedence in the module documentation. In an anonymous function, the frame's own
/// name is kept when V8 made it at run time from the receiver (`Function.sortBy`, `Object.<anonymous>`: it has a
/// `.`), not when it is a bare name V8 inferred from the minified code around the function. Top-level code never
/// takes the frame's name (in a bundle it names the bundler's module wrapper: webpack's `129`).
fn frame_function(
    index: &SourceMapIndex,
    map: usize,
    section: usize,
    p: GeneratedPosition,
    o: &OriginalPosition<'_>,
    frame: &StackFrame,
    code: &dyn CodeScopes,
) -> (
    Option<String>,
    Option<FunctionNameSource>,
    Option<u32>,
    bool,
) {
    let own = frame.function.as_deref();
    match enclosing_function(index, map, section, p, o, code) {
        Some(Enclosing {
            function: Some(name),
            source,
            function_line,
            ..
        }) => (Some(name), Some(source), function_line, false),
        Some(Enclosing {
            function: None,
            source,
            top_level,
            function_line,
        }) => match own {
            Some(name) if !top_level && name.contains('.') => (
                Some(name.to_string()),
                Some(FunctionNameSource::Frame),
                None,
                true,
            ),
            _ => (None, Some(source), function_line, !top_level),
        },
        None => match own {
            Some(name) => (
                Some(name.to_string()),
                Some(FunctionNameSource::Frame),
                None,
                false,
            ),
            None => (None, None, None, false),
        },
    }
}

/// Which way a trace's frames run: whose caller is the next frame, or the one before.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CallOrder {
    /// The frame that threw first, each caller after its callee: every printed trace, Bugsnag's `stacktrace`, JSON
    /// logs' stacks.
    #[default]
    NewestFirst,
    /// The outermost caller first, the frame that threw last: Sentry's `stacktrace.frames` ("ordered from the outermost
    /// caller to the innermost", Sentry's developer docs, "Stack Trace Interface").
    OldestFirst,
}

/// Anonymous functions called through a property, named by their callers' call sites (see [`call_site_name`]): a
/// frame's caller is the next frame or the one before, as `order` says.
fn name_by_call_sites(out: &mut [SymbolicatedLine], order: CallOrder) {
    for k in 1..out.len() {
        let (before, after) = out.split_at_mut(k);
        let (Some(SymbolicatedLine::Frame(a)), Some(SymbolicatedLine::Frame(b))) =
            (before.last_mut(), after.first_mut())
        else {
            continue;
        };
        let (callee, caller) = match order {
            CallOrder::NewestFirst => (a, &*b),
            CallOrder::OldestFirst => (b, &*a),
        };
        if let Some(name) = call_site_name(callee, caller) {
            let o = callee.original.as_mut().expect("named frames are mapped");
            o.function = Some(name);
            o.function_source = Some(FunctionNameSource::CallSite);
        }
    }
}

/// The name of an anonymous function that V8 printed as `Receiver.property` (the property of the receiver it was
/// found under: in a minified bundle a mangled one, `ue.Et`), from the frame below it, its caller, in the same map:
/// the caller's position is the call's property token (`this.Et()`), whose segment names the original property
/// (`onInvalidate_`). The class is the caller's (without `.prototype`) when the caller is a method of the same printed receiver that its
/// scopes named `Class.method` (`oe.X` → `Reaction.runReaction_`, so `oe.Et` → `Reaction.onInvalidate_`). V8's own
/// receiver names (`Object.<anonymous>`, a built-in's method) and aliases stay as printed: an engine, not a call
/// site, may have called those (a Proxy trap, an array callback).
fn call_site_name(callee: &SymbolicatedFrame, caller: &SymbolicatedFrame) -> Option<String> {
    let o = callee.original.as_ref()?;
    if !o.anonymous || o.function_source != Some(FunctionNameSource::Frame) {
        return None;
    }
    let printed = callee.frame.function.as_deref()?;
    let (receiver, property) = printed.split_once('.')?;
    if printed.contains(' ') || property.contains('<') || BUILTIN_RECEIVERS.contains(&receiver) {
        return None;
    }
    if callee.map.is_none() || caller.map != callee.map {
        return None;
    }
    let c = caller.original.as_ref()?;
    let name = c.name.as_deref().filter(|n| is_identifier(n))?;
    let class = caller
        .frame
        .function
        .as_deref()
        .and_then(|f| f.split_once('.'))
        .filter(|(r, _)| *r == receiver)
        .and_then(|_| c.function.as_deref()?.rsplit_once('.'))
        // An ES5 class's method (`Observable.prototype._trySubscribe`): the receiver is an instance, as V8 prints it.
        .map(|(class, _)| class.strip_suffix(".prototype").unwrap_or(class));
    Some(match class {
        Some(class) => format!("{class}.{name}"),
        None => name.to_string(),
    })
}

/// A JavaScript identifier as names in maps are (ASCII letters, digits, `_`, `$`, not starting with a digit; any
/// non-ASCII character).
fn is_identifier(name: &str) -> bool {
    name.chars().next().is_some_and(|c| !c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$' || !c.is_ascii())
}

/// The original function around a position, as far as the map and the code tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enclosing {
    /// `None`: an anonymous function, or top-level code.
    pub function: Option<String>,
    /// Where the name came from.
    pub source: FunctionNameSource,
    /// In no function at all.
    pub top_level: bool,
    /// 0-based line of the function's start in the original source, when its original code told.
    pub function_line: Option<u32>,
}

/// Whether naming the function at generated position `p` of `index`, mapping into `source`, would read code (the
/// bundle, the sources): its section has no Metro function map for that source and no `scopes`. Callers that fetch
/// code ahead of time ask this first.
pub fn names_from_code(index: &SourceMapIndex, p: GeneratedPosition, source: SourceId) -> bool {
    index
        .section_at(p)
        .is_some_and(|i| section_names_from_code(index, i, source))
}

/// [`names_from_code`] for a section already found.
fn section_names_from_code(index: &SourceMapIndex, section: usize, source: SourceId) -> bool {
    index.section_scopes_absent(section) && !index.has_function_map(section, source)
}

/// The original function around generated position `p` (in `section`, mapping to `o`) of the map `map`, with
/// where that was learned. `None` when nothing tells.
pub fn enclosing_function(
    index: &SourceMapIndex,
    map: usize,
    section: usize,
    p: GeneratedPosition,
    o: &OriginalPosition<'_>,
    code: &dyn CodeScopes,
) -> Option<Enclosing> {
    let named = |name: String, source| Enclosing {
        function: Some(name),
        source,
        top_level: false,
        function_line: None,
    };
    if let Ok(Some(name)) = index.facebook_function_name(section, o.source, o.line, o.column) {
        return Some(named(name.to_string(), FunctionNameSource::FunctionMap));
    }
    if let Some(name) = index.scopes_function_name(section, p) {
        return Some(named(name, FunctionNameSource::Scopes));
    }
    // dart2js names every segment after the Dart member its code is in (`main`, `_RootZone.runUnary`,
    // `Future.<anonymous function>`), not after the token there: an async function's body runs in a generated
    // closure (`var $async$be=A.dv(function(a,b){…})` for `main`, which V8 prints as an anonymous frame) whose
    // segments still carry `main`. Dart's own tool names a frame by its segment's name
    // alone: `source_map_stack_trace`'s `mapStackTrace` (dart-lang/tools,
    // `pkgs/source_map_stack_trace/lib/source_map_stack_trace.dart`) gives each frame `span.isIdentifier ? span.text
    // : frame.member` for minified output. A segment without a name says nothing, and the code is asked.
    if index.section_is_dart2js(section) {
        if let Some(name) = o.name {
            return Some(named(name.to_string(), FunctionNameSource::Dart2js));
        }
    }
    // A source with a function map, or a section with `scopes`, that does not cover the position is not parsed for
    // more.
    if !section_names_from_code(index, section, o.source) {
        return None;
    }
    // The frame's position in the generated text (shifted as that text is) and in the original source.
    let shift = code.generated_shift(map);
    let generated = shift.to_text(p).and_then(|t| {
        code.generated(
            map,
            TextPosition {
                line: t.line,
                column: t.column,
            },
        )
    });
    let original_at = TextPosition {
        line: o.line,
        column: o.column,
    };
    let original = code.original(map, o.source, original_at);
    let generated = generated.as_deref().map(|scopes| GeneratedCode {
        scopes,
        shift: &shift,
    });
    let answer = function_by_scopes(index, p, o, generated, original.as_deref())?;
    // An answer from the original code is its innermost function around the position (`function_by_scopes`).
    let function_line = match (&answer.origin, answer.top_level, original.as_deref()) {
        (ScopeOrigin::Original, false, Some(scopes)) => {
            scopes.innermost(original_at).map(|f| f.start.line)
        }
        _ => None,
    };
    Some(Enclosing {
        function_line,
        function: answer.function,
        source: match answer.origin {
            ScopeOrigin::Generated => FunctionNameSource::GeneratedScopes,
            ScopeOrigin::Original => FunctionNameSource::OriginalScopes,
        },
        top_level: answer.top_level,
    })
}

/// The sources whose code [`add_function_lines`] would read for `out`, as `(map, source, position)`: frames a Metro
/// function map named, whose function's line is not known. A caller that parses code ahead of time asks this first.
pub fn function_line_sources(out: &[SymbolicatedLine]) -> Vec<(usize, SourceId, TextPosition)> {
    let mut wanted: Vec<(usize, SourceId, TextPosition)> = out
        .iter()
        .filter_map(|l| match l {
            SymbolicatedLine::Frame(f) => {
                let o = f.original.as_ref()?;
                (o.function_line.is_none()
                    && o.function.is_some()
                    && o.function_source == Some(FunctionNameSource::FunctionMap))
                .then_some((
                    f.map?,
                    o.source_id,
                    TextPosition {
                        line: o.line,
                        column: o.column,
                    },
                ))
            }
            SymbolicatedLine::Text(_) => None,
        })
        .collect();
    wanted.sort_unstable_by_key(|&(m, s, p)| (m, s.0, p));
    wanted.dedup();
    wanted
}

/// Gives frames a Metro function map named the line where their function starts, from the original code (`code`):
/// a function map names a range, and a profile's row stands at its function's head. Only where the innermost
/// function the code has around the frame is called as the function map says (the last part of each name: `snapshot`
/// of `Inventory#snapshot`); anywhere else the line stays unknown.
pub fn add_function_lines(out: &mut [SymbolicatedLine], code: &dyn CodeScopes) {
    let last_part =
        |n: &str| -> String { n.rsplit(['#', '.', ' ']).next().unwrap_or(n).to_string() };
    for l in out.iter_mut() {
        let SymbolicatedLine::Frame(f) = l else {
            continue;
        };
        let Some(map) = f.map else { continue };
        let Some(o) = f.original.as_mut() else {
            continue;
        };
        let Some(name) = o.function.as_deref() else {
            continue;
        };
        if o.function_line.is_some() || o.function_source != Some(FunctionNameSource::FunctionMap) {
            continue;
        }
        let position = TextPosition {
            line: o.line,
            column: o.column,
        };
        let Some(scopes) = code.original(map, o.source_id, position) else {
            continue;
        };
        let Some(at) = scopes.innermost(position) else {
            continue;
        };
        if at
            .written_name()
            .is_some_and(|w| last_part(&w) == last_part(name))
        {
            o.function_line = Some(at.start.line);
        }
    }
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

/// Symbolicates parsed lines, asking `map_for` which index (if any) each frame uses, with an identifier of the
/// caller's choosing that is recorded in [`SymbolicatedFrame::map`]; `next_map` names the map of an original source
/// (of the map it names first) that is itself generated, to follow chains of maps (return `None` when there are none); `code` reads the
/// generated files and original sources that name functions (see `function_name`; [`NoCode`] for none).
pub fn symbolicate<'a>(
    lines: &[StackLine],
    map_for: impl FnMut(&StackFrame) -> Result<Option<(usize, &'a SourceMapIndex)>, String>,
    next_map: impl FnMut(usize, &str) -> Option<(usize, &'a SourceMapIndex)>,
    code: &dyn CodeScopes,
) -> Vec<SymbolicatedLine> {
    symbolicate_in_order(lines, map_for, next_map, code, CallOrder::NewestFirst)
}

/// [`symbolicate`] for lines whose frames run as `order` says (a Sentry event's, oldest first).
pub fn symbolicate_in_order<'a>(
    lines: &[StackLine],
    mut map_for: impl FnMut(&StackFrame) -> Result<Option<(usize, &'a SourceMapIndex)>, String>,
    mut next_map: impl FnMut(usize, &str) -> Option<(usize, &'a SourceMapIndex)>,
    code: &dyn CodeScopes,
    order: CallOrder,
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
        if let Ok(Some((id, index))) = got {
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
                Ok(Some((id, index))) => follow(
                    SymbolicatedFrame {
                        map: Some(id),
                        ..symbolicate_frame_with(index, id, f, code)
                    },
                    &mut next_map,
                    code,
                ),
                Ok(None) => SymbolicatedFrame {
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
                Err(why) => SymbolicatedFrame {
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

/// Output numbering for text, as metro-symbolicate's `--output-line-start` / `--output-column-start`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextOptions {
    /// Lines and columns in rewritten frames are shown from these bases (stack traces: 1 and 1).
    pub line_start: u32,
    /// The base columns are shown from (see `line_start`).
    pub column_start: u32,
    /// Fold runs of ignore-listed frames into one line.
    pub collapse_ignored: bool,
}

impl Default for TextOptions {
    fn default() -> Self {
        TextOptions {
            line_start: 1,
            column_start: 1,
            collapse_ignored: false,
        }
    }
}

/// The frame rewritten in its own shape: original function, source and line:column. What the frame's line carries
/// before and after the frame (a log prefix, a logcat tag, a quote) stays as it is.
pub fn render_frame(f: &SymbolicatedFrame, options: TextOptions) -> String {
    let raw = &f.frame.raw;
    let span = &f.frame.frame_span;
    if f.original.is_none() {
        // Unmapped: the line as it came (escape sequences where they were).
        return f.frame.line_as_written().to_string();
    }
    if span.is_empty() {
        return render_frame_alone(f, options);
    }
    format!(
        "{}{}{}",
        &raw[..span.start],
        render_frame_alone(f, options),
        &raw[span.end..]
    )
}

/// The frame's own text rewritten (from its `frame_span` of the line; a frame from JSON has none).
fn render_frame_alone(f: &SymbolicatedFrame, options: TextOptions) -> String {
    let span = f.frame.frame_span.clone();
    let raw = if span.is_empty() {
        f.frame.raw.as_str()
    } else {
        &f.frame.raw[span.clone()]
    };
    let Some(o) = &f.original else {
        return raw.to_string();
    };
    let source = o
        .path
        .as_deref()
        .or(o.source.as_deref())
        .unwrap_or("<unknown source>");
    // A line-only frame is answered at line level: no column is shown, and the frame says so.
    let location = match f.frame.precision {
        Precision::Column => format!(
            "{source}:{}:{}",
            o.line + options.line_start,
            o.column + options.column_start
        ),
        Precision::Line => format!("{source}:{}", o.line + options.line_start),
    };
    let rendered = render_located(f, o, &location, raw, span);
    match f.frame.precision {
        Precision::Column => rendered,
        Precision::Line => format!("{rendered} {LINE_ONLY_MARK}"),
    }
}

/// What a line-level answer carries in text: the trace gave no column, so neither does the answer.
pub const LINE_ONLY_MARK: &str = "[line only: the trace gives no column]";

/// The frame's text with its original `location` written in, in the frame's own shape.
fn render_located(
    f: &SymbolicatedFrame,
    o: &OriginalFrame,
    location: &str,
    raw: &str,
    span: std::ops::Range<usize>,
) -> String {
    let function = match (&o.function, o.function_source) {
        (Some(name), _) => Some(name.as_str()),
        // Known to be anonymous: V8's own word for it (`Object.<anonymous>`) stays, a minified name does not.
        (None, Some(_)) => f
            .frame
            .function
            .as_deref()
            .filter(|n| n.ends_with("<anonymous>")),
        (None, None) => None,
    };
    let indent: String = raw.chars().take_while(|c| c.is_whitespace()).collect();
    // Code made by eval: the frame's own function and its position in the eval'd code stay as printed; only the
    // innermost origin (`eval at NAME (URL:L:C)`, the call to eval in the bundle, which is what was looked up) is
    // rewritten: `at n.root (eval at Template._compile (src/environment.js:565:24), <anonymous>:18:3)`.
    if let (true, FrameFormat::V8, Some(loc)) =
        (f.frame.in_eval, f.frame.format, &f.frame.location_span)
    {
        let frame_start = if span.is_empty() { 0 } else { span.start };
        if let (Some(start), Some(end)) = (
            loc.start.checked_sub(frame_start),
            loc.end.checked_sub(frame_start),
        ) {
            if end <= raw.len() && raw.is_char_boundary(start) && raw.is_char_boundary(end) {
                let (before, after) = (&raw[..start], &raw[end..]);
                let before = match (before.rfind("eval at "), function) {
                    (Some(at), Some(name)) => {
                        let caller = &before[at + "eval at ".len()..];
                        let kept = caller.rfind(" (").map_or("", |p| &caller[p..]);
                        format!("{}eval at {name}{kept}", &before[..at])
                    }
                    _ => before.to_string(),
                };
                return format!("{before}{location}{after}");
            }
        }
    }
    match (f.frame.format, &f.frame.location_span) {
        (FrameFormat::V8 | FrameFormat::HermesBytecode, Some(_)) => {
            let prefix = match (f.frame.is_async, f.frame.is_constructor) {
                (true, _) => "async ",
                (false, true) => "new ",
                _ => "",
            };
            // A Hermes bytecode location is replaced entirely, `address at` included.
            match function {
                Some(name) if o.function_source == Some(FunctionNameSource::Frame) => {
                    format!("{indent}at {prefix}{name} ({location})")
                }
                Some(name) => {
                    let name = in_v8_shape(f.frame.function.as_deref(), name);
                    format!("{indent}at {prefix}{name} ({location})")
                }
                None => format!("{indent}at {prefix}{location}"),
            }
        }
        (FrameFormat::Vitest, Some(_)) => match function {
            Some(name) => format!("{indent}❯ {name} {location}"),
            None => format!("{indent}❯ {location}"),
        },
        (FrameFormat::AtSign | FrameFormat::ReactNative, Some(_)) => {
            format!("{indent}{}@{location}", function.unwrap_or(""))
        }
        // Crashlytics' iOS line keeps its number and address columns; the rest becomes the original frame.
        (FrameFormat::CrashlyticsIos, Some(_)) => {
            let head = f
                .frame
                .function_span
                .as_ref()
                .map_or(raw, |s| &f.frame.raw[span.start..s.start]);
            format!("{head}{} ({location})", function.unwrap_or("<unknown>"))
        }
        _ => format!("    at {} ({location})", function.unwrap_or("<unknown>")),
    }
}

/// The original `name` in the shape V8 gave the frame's own `Receiver.method [as alias]`: a built-in receiver type
/// stays (`Object.positive`), and so does the alias (the property the function was called through) unless the name
/// already ends with it. A receiver that is not built in may be a minified class: it is left out.
fn in_v8_shape(frame_function: Option<&str>, name: &str) -> String {
    let Some(written) = frame_function else {
        return name.to_string();
    };
    let (call, alias) = match written
        .strip_suffix(']')
        .and_then(|w| w.rsplit_once(" [as "))
    {
        Some((call, alias)) => (call, Some(alias)),
        None => (written, None),
    };
    let mut out = String::new();
    let mut alias = alias;
    if let Some((receiver, method)) = call.split_once('.') {
        if !name.contains('.') && BUILTIN_RECEIVERS.contains(&receiver) {
            out.push_str(receiver);
            out.push('.');
            // `Object.nonEmpty` where the bundle's function lost its own name: V8 printed the property it was
            // called through, which the original run prints as the alias of its own name.
            alias = alias.or(Some(method));
        }
    }
    out.push_str(name);
    if let Some(alias) = alias {
        let last = name.rsplit('.').next().unwrap_or(name);
        if last != alias {
            out.push_str(" [as ");
            out.push_str(alias);
            out.push(']');
        }
    }
    out
}

/// The whole trace as text, frames rewritten, other lines unchanged.
pub fn render_text(lines: &[SymbolicatedLine], options: TextOptions) -> String {
    let mut out = String::new();
    // How many frames are folded, and whether the last one's line ended in CRLF (the folded line ends as it did).
    let mut folded = (0usize, false);
    let flush = |out: &mut String, folded: &mut (usize, bool)| {
        if folded.0 > 0 {
            let _ = writeln!(
                out,
                "    ... {} ignore-listed frame{}{}",
                folded.0,
                if folded.0 == 1 { "" } else { "s" },
                if folded.1 { "\r" } else { "" }
            );
            *folded = (0, false);
        }
    };
    for l in lines {
        match l {
            SymbolicatedLine::Frame(f) if options.collapse_ignored && f.ignored => {
                folded = (folded.0 + 1, f.frame.line_as_written().ends_with('\r'));
            }
            SymbolicatedLine::Frame(f) => {
                flush(&mut out, &mut folded);
                out.push_str(&render_frame(f, options));
                out.push('\n');
            }
            SymbolicatedLine::Text(t) => {
                flush(&mut out, &mut folded);
                out.push_str(t);
                out.push('\n');
            }
        }
    }
    flush(&mut out, &mut folded);
    out
}

/// A Metro-style code frame around the first resolved frame that is not ignore-listed, read with `source_text`.
pub fn first_code_frame(
    lines: &[SymbolicatedLine],
    mut source_text: impl FnMut(&SymbolicatedFrame) -> Option<String>,
) -> Option<(String, u32, u32, String)> {
    lines.iter().find_map(|l| match l {
        SymbolicatedLine::Frame(f) if !f.ignored => {
            let o = f.original.as_ref()?;
            let text = source_text(f)?;
            let content = code_frame(&text, o.line, o.column)?;
            Some((
                o.source.clone().unwrap_or_default(),
                o.line,
                o.column,
                content,
            ))
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests;
