//! Symbolication: parsed stack frames → original frames, with the best function name available.
//!
//! Which map a frame uses is the caller's business (it may involve the file system or a dev server); this module
//! takes the map and does the lookups. Function names, best source first: Metro's function map
//! (`x_facebook_sources`), the ECMA-426 `scopes` field, the original name of the mapping at the frame, the frame's
//! own name. Which one was used is recorded.

use std::fmt::Write;

use serde::Serialize;

use crate::map::compact::Bias;
use crate::map::index::{SourceId, SourceMapIndex};
use crate::trace::code_frame::code_frame;
use crate::trace::stack::{FrameFormat, StackFrame, StackLine};

/// Where a frame's function name came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FunctionNameSource {
    /// Metro's `x_facebook_sources` function map.
    FunctionMap,
    /// The ECMA-426 `scopes` field.
    Scopes,
    /// The `names` entry of the mapping at the frame.
    MappingName,
    /// The name printed in the trace.
    Frame,
}

/// The original side of a frame. Positions are 0-based here; renderers convert.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginalFrame {
    pub source_id: SourceId,
    pub source: Option<String>,
    pub line: u32,
    pub column: u32,
    /// The mapping's own name, if any.
    pub name: Option<String>,
    pub function: Option<String>,
    pub function_source: Option<FunctionNameSource>,
}

/// A frame and what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolicatedFrame {
    pub frame: StackFrame,
    /// The caller's identifier of the map used (see [`symbolicate`]).
    pub map: Option<usize>,
    pub original: Option<OriginalFrame>,
    /// The original source is ignore-listed (`ignoreList` / `x_google_ignoreList`).
    pub ignored: bool,
    /// Why the frame stayed as it was, when it did.
    pub unresolved: Option<String>,
}

// A trace has tens of lines: the size of the text variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SymbolicatedLine {
    Frame(SymbolicatedFrame),
    Text(String),
}

/// Looks one frame up in `index` (the map chosen for it).
pub fn symbolicate_frame(index: &SourceMapIndex, frame: &StackFrame) -> SymbolicatedFrame {
    let unresolved = |why: &str| SymbolicatedFrame {
        frame: frame.clone(),
        map: None,
        original: None,
        ignored: false,
        unresolved: Some(why.to_string()),
    };
    let Some(p) = frame.generated else {
        return unresolved(if frame.native {
            "native frame"
        } else {
            "no position"
        });
    };
    let hit = match index.lookup(p, Bias::GreatestLowerBound) {
        Ok(Some(hit)) => hit,
        Ok(None) => return unresolved("no mapping at this position"),
        Err(e) => return unresolved(&format!("invalid map: {e}")),
    };
    let Some(o) = hit.original else {
        return unresolved("no mapping at this position");
    };
    let mut function = None;
    let mut function_source = None;
    if let Ok(Some(name)) = index.facebook_function_name(hit.section, o.source, o.line, o.column) {
        function = Some(name.to_string());
        function_source = Some(FunctionNameSource::FunctionMap);
    }
    if function.is_none() {
        if let Some(name) = index.scopes_function_name(hit.section, p) {
            function = Some(name);
            function_source = Some(FunctionNameSource::Scopes);
        }
    }
    if function.is_none() {
        if let Some(name) = o.name {
            function = Some(name.to_string());
            function_source = Some(FunctionNameSource::MappingName);
        }
    }
    if function.is_none() {
        if let Some(name) = &frame.function {
            function = Some(name.clone());
            function_source = Some(FunctionNameSource::Frame);
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
        }),
        unresolved: None,
    }
}

/// How many maps a frame may pass through (a Hermes bytecode map, then the bundler's map, …).
const MAX_CHAIN: usize = 4;

/// Follows a resolved frame through further maps while its original source is itself a generated file that
/// `next_map` knows a map for (React Native without a composed map: Hermes' map leads to the bundle, whose map
/// leads to the sources). A better function name from an earlier step is kept over the frame's own name.
fn follow<'a>(
    mut f: SymbolicatedFrame,
    next_map: &mut impl FnMut(&str) -> Option<(usize, &'a SourceMapIndex)>,
) -> SymbolicatedFrame {
    for _ in 0..MAX_CHAIN {
        let Some(o) = &f.original else { break };
        let Some((id, index)) = o.source.as_deref().and_then(&mut *next_map) else {
            break;
        };
        if Some(id) == f.map {
            break;
        }
        let mut frame = f.frame.clone();
        frame.generated = Some(crate::map::index::GeneratedPosition {
            line: o.line,
            column: o.column,
        });
        let next = symbolicate_frame(index, &frame);
        let Some(mut original) = next.original else {
            break;
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
/// that is itself generated, to follow chains of maps (return `None` when there are none).
pub fn symbolicate<'a>(
    lines: &[StackLine],
    mut map_for: impl FnMut(&StackFrame) -> Result<Option<(usize, &'a SourceMapIndex)>, String>,
    mut next_map: impl FnMut(&str) -> Option<(usize, &'a SourceMapIndex)>,
) -> Vec<SymbolicatedLine> {
    lines
        .iter()
        .map(|l| match l {
            StackLine::Text(t) => SymbolicatedLine::Text(t.clone()),
            StackLine::Frame(f) => SymbolicatedLine::Frame(match map_for(f) {
                Ok(Some((id, index))) => follow(
                    SymbolicatedFrame {
                        map: Some(id),
                        ..symbolicate_frame(index, f)
                    },
                    &mut next_map,
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
        .collect()
}

/// Output numbering for text, as metro-symbolicate's `--output-line-start` / `--output-column-start`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextOptions {
    /// Lines and columns in rewritten frames are shown from these bases (stack traces: 1 and 1).
    pub line_start: u32,
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

/// The frame rewritten in its own shape: original function, source and line:column.
pub fn render_frame(f: &SymbolicatedFrame, options: TextOptions) -> String {
    let Some(o) = &f.original else {
        return f.frame.raw.clone();
    };
    let location = format!(
        "{}:{}:{}",
        o.source.as_deref().unwrap_or("<unknown source>"),
        o.line + options.line_start,
        o.column + options.column_start
    );
    let function = o.function.as_deref();
    let raw = &f.frame.raw;
    match (f.frame.format, &f.frame.location_span) {
        (FrameFormat::V8 | FrameFormat::HermesBytecode, Some(loc)) => {
            let indent: String = raw.chars().take_while(|c| c.is_whitespace()).collect();
            let prefix = match (f.frame.is_async, f.frame.is_constructor) {
                (true, _) => "async ",
                (false, true) => "new ",
                _ => "",
            };
            // A Hermes bytecode location is replaced entirely, `address at` included.
            let _ = loc;
            match function {
                Some(name) => format!("{indent}at {prefix}{name} ({location})"),
                None => format!("{indent}at {prefix}{location}"),
            }
        }
        (FrameFormat::AtSign | FrameFormat::Logcat, Some(_)) => {
            let indent: String = raw.chars().take_while(|c| c.is_whitespace()).collect();
            format!("{indent}{}@{location}", function.unwrap_or(""))
        }
        _ => format!("    at {} ({location})", function.unwrap_or("<unknown>")),
    }
}

/// The whole trace as text, frames rewritten, other lines unchanged.
pub fn render_text(lines: &[SymbolicatedLine], options: TextOptions) -> String {
    let mut out = String::new();
    let mut folded = 0usize;
    let flush = |out: &mut String, folded: &mut usize| {
        if *folded > 0 {
            let _ = writeln!(
                out,
                "    ... {} ignore-listed frame{}",
                folded,
                if *folded == 1 { "" } else { "s" }
            );
            *folded = 0;
        }
    };
    for l in lines {
        match l {
            SymbolicatedLine::Frame(f) if options.collapse_ignored && f.ignored => folded += 1,
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
mod tests {
    use super::*;
    use crate::trace::stack::{parse_stack, PlainInput};

    fn demo_map() -> SourceMapIndex {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/demo/dist/app.min.js.map"
        );
        SourceMapIndex::from_bytes(std::fs::read(path).unwrap()).unwrap()
    }

    #[test]
    fn the_demo_crash_symbolicates() {
        let trace = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/demo/crash.txt"
        ))
        .unwrap();
        let index = demo_map();
        let lines = parse_stack(&trace, PlainInput::default());
        let out = symbolicate(
            &lines,
            |f| {
                Ok(f.file
                    .as_deref()
                    .is_some_and(|u| u.ends_with("app.min.js"))
                    .then_some((0, &index)))
            },
            |_| None,
        );
        let text = render_text(&out, TextOptions::default());
        assert!(text.contains("    at e (../src/orders.js:5:24)"), "{text}");
        assert!(text.contains("TypeError: Cannot read properties of null (reading 'map')"));
        assert!(
            text.contains("    at Array.map (<anonymous>)"),
            "native frames pass through: {text}"
        );
        assert!(
            text.contains("    at Module._compile (node:internal/modules/cjs/loader"),
            "{text}"
        );
        let main = out
            .iter()
            .find_map(|l| match l {
                SymbolicatedLine::Frame(f) if f.frame.raw.contains("1:371") => f.original.clone(),
                _ => None,
            })
            .unwrap();
        assert_eq!(
            (main.function.as_deref(), main.function_source),
            (Some("main"), Some(FunctionNameSource::MappingName))
        );
    }

    #[test]
    fn collapse_ignored_runs() {
        let f = |ignored| {
            SymbolicatedLine::Frame(SymbolicatedFrame {
                frame: match crate::trace::stack::parse_line(
                    "    at x (a.js:1:1)",
                    PlainInput::default(),
                ) {
                    StackLine::Frame(f) => f,
                    _ => unreachable!(),
                },
                map: None,
                original: None,
                ignored,
                unresolved: None,
            })
        };
        let lines = vec![
            f(false),
            f(true),
            f(true),
            SymbolicatedLine::Text("end".into()),
        ];
        let text = render_text(
            &lines,
            TextOptions {
                collapse_ignored: true,
                ..TextOptions::default()
            },
        );
        assert_eq!(
            text,
            "    at x (a.js:1:1)\n    ... 2 ignore-listed frames\nend\n"
        );
    }
}
