//! What names a frame's function: the map's function maps and scopes, the original code, or the caller's call site
//! (the call order of the trace's engine), and the original function's first line.

use super::{FunctionNameSource, SymbolicatedFrame, SymbolicatedLine};
use crate::map::index::{GeneratedPosition, OriginalPosition, SourceId, SourceMapIndex};
use crate::trace::function_name::{function_by_scopes, CodeScopes, GeneratedCode, ScopeOrigin};
use crate::trace::js_scopes::TextPosition;
use crate::trace::spelled_names::BUILTIN_RECEIVERS;
use crate::trace::stack::StackFrame;

/// The frame's function by the precedence in the module documentation. In an anonymous function, the frame's own
/// name is kept when V8 made it at run time from the receiver (`Function.sortBy`, `Object.<anonymous>`: it has a
/// `.`), not when it is a bare name V8 inferred from the minified code around the function. Top-level code never
/// takes the frame's name (in a bundle it names the bundler's module wrapper: webpack's `129`).
pub(super) fn frame_function(
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
pub(super) fn name_by_call_sites(out: &mut [SymbolicatedLine], order: CallOrder) {
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
pub(super) fn call_site_name(
    callee: &SymbolicatedFrame,
    caller: &SymbolicatedFrame,
) -> Option<String> {
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
pub(super) fn is_identifier(name: &str) -> bool {
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
pub(super) fn section_names_from_code(
    index: &SourceMapIndex,
    section: usize,
    source: SourceId,
) -> bool {
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
