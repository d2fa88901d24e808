//! Symbolicated frames as text: each frame in its engine's shape, original locations, code frames.

use super::{FunctionNameSource, OriginalFrame, SymbolicatedFrame, SymbolicatedLine};
use crate::trace::code_frame::code_frame;
use crate::trace::spelled_names::BUILTIN_RECEIVERS;
use crate::trace::stack::{FrameFormat, Precision};
use std::fmt::Write;

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
pub(super) fn render_frame_alone(f: &SymbolicatedFrame, options: TextOptions) -> String {
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
pub(super) fn render_located(
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
pub(super) fn in_v8_shape(frame_function: Option<&str>, name: &str) -> String {
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
