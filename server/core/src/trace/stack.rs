//! Stack-trace parsing: every common format, each with its position convention written down once.
//!
//! | format | shape | line | column |
//! |---|---|---|---|
//! | V8 (Node, Chrome), Hermes source frames | `    at fn (url:L:C)`, `    at url:L:C` | 1-based | 1-based |
//! | JSC / Safari, Firefox | `fn@url:L:C`, `global code@url:L:C`, `@url:L:C` | 1-based | 1-based |
//! | Hermes bytecode | `    at fn (address at url:1:OFFSET)` | the segment (1) | 0-based bytecode offset |
//! | React Native logcat | `fn@L:C` (no URL) | 1-based | 1-based |
//! | Metro `/symbolicate` JSON | `{"stack":[{file, lineNumber, column, methodName}]}` | 1-based | 0-based |
//! | plain (metro-symbolicate) | `LINE COLUMN` | `--input-line-start` (1) | `--input-column-start` (0) |
//!
//! Every frame's position is converted here to the index's convention (0-based line, 0-based column). Lines that are
//! not frames (the error message, `at <anonymous>`, blank lines) come back as text, unchanged.

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;
use serde::Deserialize;

use crate::map::index::GeneratedPosition;

/// Which format a frame was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameFormat {
    /// `at fn (url:L:C)`: V8, and Hermes when it has source positions.
    V8,
    /// `fn@url:L:C`: JavaScriptCore / Safari and Firefox.
    AtSign,
    /// `at fn (address at url:1:OFFSET)`: Hermes bytecode.
    HermesBytecode,
    /// `fn@L:C`: React Native's logcat form, no URL.
    Logcat,
    /// An element of Metro's `/symbolicate` JSON.
    MetroJson,
    /// `LINE COLUMN`.
    Plain,
}

/// One parsed frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackFrame {
    /// The input line as written (for JSON input, a compact rendering of the element).
    pub raw: String,
    pub format: FrameFormat,
    /// The function name as written (`Foo.bar`, `new Foo`, `<anonymous>`, `outer/<`), without `async `.
    pub function: Option<String>,
    pub is_async: bool,
    pub is_constructor: bool,
    /// The file or URL as written.
    pub file: Option<String>,
    /// Line and column as written in the trace.
    pub written: Option<(u32, u32)>,
    /// The generated position in the index's convention (0-based line and column).
    pub generated: Option<GeneratedPosition>,
    /// `(native)` and similar frames: no position to look up.
    pub native: bool,
    /// Byte range of the function name in `raw`, to rewrite it.
    pub function_span: Option<Range<usize>>,
    /// Byte range of `url:L:C` (or `L:C`) in `raw`, to rewrite it.
    pub location_span: Option<Range<usize>>,
}

/// An input line: a frame, or text passed through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StackLine {
    Frame(StackFrame),
    Text(String),
}

/// Offsets for plain `LINE COLUMN` input, as metro-symbolicate's `--input-line-start` / `--input-column-start`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlainInput {
    pub line_start: u32,
    pub column_start: u32,
}

impl Default for PlainInput {
    fn default() -> Self {
        PlainInput {
            line_start: 1,
            column_start: 0,
        }
    }
}

fn regex(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("valid regex"))
}

/// `url:L:C` at the end of `s`: (url, L, C, start of url in s).
fn split_location(s: &str) -> Option<(&str, u32, u32)> {
    let (rest, col) = s.rsplit_once(':')?;
    let (url, line) = rest.rsplit_once(':')?;
    let line: u32 = line.parse().ok()?;
    let col: u32 = col.parse().ok()?;
    Some((url, line, col))
}

fn one_based(line: u32, column: u32) -> Option<GeneratedPosition> {
    Some(GeneratedPosition {
        line: line.checked_sub(1)?,
        column: column.saturating_sub(1),
    })
}

fn span_of(line: &str, part: &str) -> Range<usize> {
    let start = part.as_ptr() as usize - line.as_ptr() as usize;
    start..start + part.len()
}

fn split_function(name: &str) -> (Option<String>, bool, bool) {
    let mut n = name.trim();
    let mut is_async = false;
    let mut is_new = false;
    if let Some(r) = n.strip_prefix("async ") {
        is_async = true;
        n = r;
    }
    if let Some(r) = n.strip_prefix("new ") {
        is_new = true;
        n = r;
    }
    ((!n.is_empty()).then(|| n.to_string()), is_async, is_new)
}

/// A V8-style line: `at fn (loc)` or `at loc`.
fn parse_v8(line: &str) -> Option<StackFrame> {
    static WITH_FN: OnceLock<Regex> = OnceLock::new();
    static BARE: OnceLock<Regex> = OnceLock::new();
    let with_fn = regex(&WITH_FN, r"^\s*at (.+?) \((.*)\)\s*$");
    let bare = regex(&BARE, r"^\s*at (?:async )?(\S.*?)\s*$");
    if let Some(c) = with_fn.captures(line) {
        let name = c.get(1).expect("group");
        let inner = c.get(2).expect("group");
        let (function, is_async, is_constructor) = split_function(name.as_str());
        let name_part = name
            .as_str()
            .trim_start_matches("async ")
            .trim_start_matches("new ");
        let function_span = Some(span_of(line, name_part));
        let text = inner.as_str();
        let mut frame = StackFrame {
            raw: line.to_string(),
            format: FrameFormat::V8,
            function,
            is_async,
            is_constructor,
            file: None,
            written: None,
            generated: None,
            native: false,
            function_span,
            location_span: None,
        };
        // Hermes bytecode: `address at url:1:OFFSET`.
        if let Some(loc) = text.strip_prefix("address at ") {
            let (url, l, c) = split_location(loc)?;
            frame.format = FrameFormat::HermesBytecode;
            frame.file = Some(url.to_string());
            frame.written = Some((l, c));
            // The offset is already 0-based and is the column on the segment's line (1 for a single segment).
            frame.generated = l
                .checked_sub(1)
                .map(|line| GeneratedPosition { line, column: c });
            frame.location_span = Some(span_of(line, loc));
            return Some(frame);
        }
        // `eval at fn (url:L:C), <anonymous>:L:C`: the eval call site is the position in the bundle.
        let loc = if text.starts_with("eval at ") {
            static EVAL: OnceLock<Regex> = OnceLock::new();
            let eval = regex(&EVAL, r"\(([^()]*:\d+:\d+)\)");
            eval.captures_iter(text).last()?.get(1)?.as_str()
        } else {
            text
        };
        // `(native)`, `(<anonymous>)`, `(index 0)` of `Promise.all`: a frame without a position.
        let Some((url, l, c)) = split_location(loc) else {
            frame.native = true;
            return Some(frame);
        };
        frame.file = Some(url.to_string());
        frame.written = Some((l, c));
        frame.generated = one_based(l, c);
        frame.location_span = Some(span_of(line, loc));
        return Some(frame);
    }
    let c = bare.captures(line)?;
    let loc = c.get(1)?.as_str();
    let (url, l, col) = split_location(loc)?;
    Some(StackFrame {
        raw: line.to_string(),
        format: FrameFormat::V8,
        function: None,
        is_async: line.trim_start().starts_with("at async "),
        is_constructor: false,
        file: Some(url.to_string()),
        written: Some((l, col)),
        generated: one_based(l, col),
        native: false,
        function_span: None,
        location_span: Some(span_of(line, loc)),
    })
}

/// `fn@url:L:C`, `@url:L:C`, `global code@url:L:C`, or logcat `fn@L:C`.
fn parse_at_sign(line: &str) -> Option<StackFrame> {
    static AT: OnceLock<Regex> = OnceLock::new();
    let at = regex(&AT, r"^\s*([^@\s][^@]*?|)@(\S.*?)\s*$");
    let c = at.captures(line)?;
    let name = c.get(1)?;
    let loc = c.get(2)?.as_str();
    let function = (!name.as_str().is_empty()).then(|| name.as_str().to_string());
    let function_span = function.as_ref().map(|_| span_of(line, name.as_str()));
    // Logcat: `fn@L:C`.
    if let Some((l, col)) = loc.split_once(':') {
        if let (Ok(l), Ok(col)) = (l.parse::<u32>(), col.parse::<u32>()) {
            return Some(StackFrame {
                raw: line.to_string(),
                format: FrameFormat::Logcat,
                function,
                is_async: false,
                is_constructor: false,
                file: None,
                written: Some((l, col)),
                generated: one_based(l, col),
                native: false,
                function_span,
                location_span: Some(span_of(line, loc)),
            });
        }
    }
    if loc == "[native code]" {
        return Some(StackFrame {
            raw: line.to_string(),
            format: FrameFormat::AtSign,
            function,
            is_async: false,
            is_constructor: false,
            file: None,
            written: None,
            generated: None,
            native: true,
            function_span,
            location_span: None,
        });
    }
    let (url, l, col) = split_location(loc)?;
    Some(StackFrame {
        raw: line.to_string(),
        format: FrameFormat::AtSign,
        function,
        is_async: false,
        is_constructor: false,
        file: Some(url.to_string()),
        written: Some((l, col)),
        generated: one_based(l, col),
        native: false,
        function_span,
        location_span: Some(span_of(line, loc)),
    })
}

fn parse_plain(line: &str, plain: PlainInput) -> Option<StackFrame> {
    static PLAIN: OnceLock<Regex> = OnceLock::new();
    let re = regex(&PLAIN, r"^\s*(\d+)(?:\s+|:)(\d+)\s*$");
    let c = re.captures(line)?;
    let l: u32 = c.get(1)?.as_str().parse().ok()?;
    let col: u32 = c.get(2)?.as_str().parse().ok()?;
    let generated = l.checked_sub(plain.line_start).and_then(|line| {
        col.checked_sub(plain.column_start)
            .map(|column| GeneratedPosition { line, column })
    });
    let trimmed = line.trim();
    Some(StackFrame {
        raw: line.to_string(),
        format: FrameFormat::Plain,
        function: None,
        is_async: false,
        is_constructor: false,
        file: None,
        written: Some((l, col)),
        generated,
        native: false,
        function_span: None,
        location_span: Some(span_of(line, trimmed)),
    })
}

/// Parses one line of a text trace.
pub fn parse_line(line: &str, plain: PlainInput) -> StackLine {
    let trimmed = line.trim_start();
    let frame = if trimmed.starts_with("at ") {
        parse_v8(line)
    } else if trimmed.contains('@') {
        parse_at_sign(line)
    } else {
        parse_plain(line, plain)
    };
    match frame {
        Some(f) => StackLine::Frame(f),
        None => StackLine::Text(line.to_string()),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MetroFrame {
    #[serde(default)]
    file: Option<String>,
    #[serde(default)]
    line_number: Option<u32>,
    #[serde(default)]
    column: Option<u32>,
    #[serde(default)]
    method_name: Option<String>,
}

#[derive(Deserialize)]
struct MetroRequest {
    stack: Vec<MetroFrame>,
}

/// Parses Metro's `/symbolicate` JSON (`{"stack": [...]}`) or a JSON array of such frames; `None` if the text is
/// not that.
pub fn parse_metro_json(text: &str) -> Option<Vec<StackLine>> {
    let t = text.trim();
    let frames: Vec<MetroFrame> = if t.starts_with('{') {
        serde_json::from_str::<MetroRequest>(t).ok()?.stack
    } else if t.starts_with('[') {
        serde_json::from_str(t).ok()?
    } else {
        return None;
    };
    Some(
        frames
            .into_iter()
            .map(|f| {
                let raw = serde_json::json!({
                    "file": f.file, "lineNumber": f.line_number, "column": f.column, "methodName": f.method_name,
                })
                .to_string();
                let generated = match (f.line_number, f.column) {
                    // Metro: 1-based line, 0-based column.
                    (Some(l), Some(c)) => l.checked_sub(1).map(|line| GeneratedPosition { line, column: c }),
                    _ => None,
                };
                StackLine::Frame(StackFrame {
                    raw,
                    format: FrameFormat::MetroJson,
                    function: f.method_name.filter(|m| !m.is_empty()),
                    is_async: false,
                    is_constructor: false,
                    file: f.file,
                    written: f.line_number.zip(f.column),
                    generated,
                    native: false,
                    function_span: None,
                    location_span: None,
                })
            })
            .collect(),
    )
}

/// Parses a whole trace: Metro JSON when it is that, else line by line.
pub fn parse_stack(text: &str, plain: PlainInput) -> Vec<StackLine> {
    if let Some(frames) = parse_metro_json(text) {
        return frames;
    }
    text.lines().map(|l| parse_line(l, plain)).collect()
}

/// Frames whose file no bundle map can describe: engine internals (`node:…`, `internal/…`, Hermes'
/// `InternalBytecode.js`) and placeholders (`native`, `<anonymous>`).
pub fn is_foreign_file(file: &str) -> bool {
    file.starts_with("node:")
        || file.starts_with("internal/")
        || file == "native"
        || file == "<anonymous>"
        || file_name_of(file) == "InternalBytecode.js"
}

/// The file name a frame's URL or path refers to: last path segment, query and fragment dropped
/// (`http://localhost:8081/index.bundle?platform=ios&dev=true` → `index.bundle`).
pub fn file_name_of(url: &str) -> &str {
    let no_query = url.split(['?', '#']).next().unwrap_or(url);
    no_query.rsplit(['/', '\\']).next().unwrap_or(no_query)
}

/// The debug IDs a report carries (`"debug_id": "…"` in a Sentry event, `debugId=…` printed by a tool), as 32
/// lowercase hex digits without dashes: they tell apart same-named bundles whose maps carry a `debugId`.
pub fn debug_ids_in(text: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    let mut out: Vec<String> = Vec::new();
    for key in ["debug_id", "debugid", "debug-id"] {
        for (at, _) in lower.match_indices(key) {
            let rest = &lower[at + key.len()..];
            let value = rest.trim_start_matches(['"', '\'', ':', '=', ' ']);
            let id: String = value
                .chars()
                .take_while(|c| c.is_ascii_hexdigit() || *c == '-')
                .filter(|c| *c != '-')
                .collect();
            if id.len() == 32 && !out.contains(&id) {
                out.push(id);
            }
        }
    }
    out
}

/// A debug ID in the form [`debug_ids_in`] gives (a map's `debugId`, a bundle's `//# debugId=`).
pub fn normalize_debug_id(id: &str) -> String {
    id.chars()
        .filter(|c| *c != '-')
        .collect::<String>()
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_ids_in_reports() {
        let sentry = r#"{"debug_meta":{"images":[{"type":"sourcemap","code_file":"app:///main.js","debug_id":"85314830-023F-4CF1-A267-535F4E37BB17"}]}}"#;
        assert_eq!(debug_ids_in(sentry), ["85314830023f4cf1a267535f4e37bb17"]);
        assert_eq!(
            debug_ids_in(
                "Error: x\n    at f (main.js:1:2)\ndebugId=85314830023f4cf1a267535f4e37bb17"
            ),
            ["85314830023f4cf1a267535f4e37bb17"]
        );
        assert!(debug_ids_in("debugId=not-an-id at f (a.js:1:2)").is_empty());
        assert_eq!(
            normalize_debug_id("85314830-023F-4CF1-A267-535F4E37BB17"),
            "85314830023f4cf1a267535f4e37bb17"
        );
    }

    fn frame(line: &str) -> StackFrame {
        match parse_line(line, PlainInput::default()) {
            StackLine::Frame(f) => f,
            StackLine::Text(t) => panic!("not a frame: {t}"),
        }
    }

    fn pos(line: u32, column: u32) -> Option<GeneratedPosition> {
        Some(GeneratedPosition { line, column })
    }

    #[test]
    fn v8_frames() {
        let f = frame("    at e (dist/app.min.js:1:50)");
        assert_eq!(
            (f.function.as_deref(), f.file.as_deref(), f.generated),
            (Some("e"), Some("dist/app.min.js"), pos(0, 49))
        );
        assert_eq!(
            &f.raw[f.location_span.clone().unwrap()],
            "dist/app.min.js:1:50"
        );
        assert_eq!(&f.raw[f.function_span.clone().unwrap()], "e");
        let f = frame("    at dist/app.min.js:1:371");
        assert_eq!((f.function, f.generated), (None, pos(0, 370)));
        let f = frame("    at async Promise.all (index 0)");
        assert!(f.native || f.generated.is_none());
        let f = frame(
            "    at async run (http://localhost:8081/index.bundle?platform=ios&dev=true:12:3)",
        );
        assert!(f.is_async);
        assert_eq!(
            (f.function.as_deref(), f.generated),
            (Some("run"), pos(11, 2))
        );
        assert_eq!(file_name_of(f.file.as_deref().unwrap()), "index.bundle");
        let f = frame("    at new Store (store.js:3:9)");
        assert!(f.is_constructor);
        assert_eq!(f.function.as_deref(), Some("Store"));
        let f = frame("    at Object.<anonymous> (dist/app.min.js:1:377)");
        assert_eq!(f.function.as_deref(), Some("Object.<anonymous>"));
        let f = frame("    at eval (eval at run (file:///w/app.js:4:10), <anonymous>:1:1)");
        assert_eq!(
            (f.file.as_deref(), f.generated),
            (Some("file:///w/app.js"), pos(3, 9))
        );
        let f = frame("    at Array.map (<anonymous>)");
        assert!(f.native);
        assert!(matches!(
            parse_line("    at <anonymous>", PlainInput::default()),
            StackLine::Text(_)
        ));
    }

    #[test]
    fn hermes_frames() {
        let f = frame("    at parseOrder (address at index.android.bundle:1:9377)");
        assert_eq!(f.format, FrameFormat::HermesBytecode);
        assert_eq!(f.generated, pos(0, 9377));
        let f = frame("    at forEach (native)");
        assert!(f.native);
        let f = frame("    at loadModule (InternalBytecode.js:1:2345)");
        assert_eq!(f.file.as_deref(), Some("InternalBytecode.js"));
    }

    #[test]
    fn at_sign_frames() {
        let f = frame("parseOrder@http://localhost:8081/app.js:1:50");
        assert_eq!(
            (f.format, f.function.as_deref(), f.generated),
            (FrameFormat::AtSign, Some("parseOrder"), pos(0, 49))
        );
        let f = frame("global code@http://localhost/app.js:1:371");
        assert_eq!(f.function.as_deref(), Some("global code"));
        let f = frame("@http://localhost/app.js:1:3");
        assert_eq!(f.function, None);
        let f = frame("outer/<@app.js:2:5");
        assert_eq!(f.function.as_deref(), Some("outer/<"));
        let f = frame("render@1234:56");
        assert_eq!(
            (f.format, f.file, f.generated),
            (FrameFormat::Logcat, None, pos(1233, 55))
        );
        let f = frame("forEach@[native code]");
        assert!(f.native);
    }

    #[test]
    fn plain_and_text_lines() {
        let f = frame("12 34");
        assert_eq!(f.generated, pos(11, 34));
        let custom = PlainInput {
            line_start: 0,
            column_start: 1,
        };
        match parse_line("12:34", custom) {
            StackLine::Frame(f) => assert_eq!(f.generated, pos(12, 33)),
            other => panic!("{other:?}"),
        }
        for text in [
            "TypeError: Cannot read properties of null (reading 'map')",
            "",
            "    at <anonymous>",
            "Node.js v20.20.2",
        ] {
            assert_eq!(
                parse_line(text, PlainInput::default()),
                StackLine::Text(text.to_string())
            );
        }
    }

    #[test]
    fn metro_json() {
        let lines = parse_stack(
            r#"{"stack":[{"file":"http://localhost:8081/index.bundle?platform=ios","lineNumber":10,"column":4,"methodName":"render"}]}"#,
            PlainInput::default(),
        );
        let StackLine::Frame(f) = &lines[0] else {
            panic!()
        };
        assert_eq!(
            (f.format, f.generated, f.function.as_deref()),
            (FrameFormat::MetroJson, pos(9, 4), Some("render"))
        );
        assert_eq!(
            parse_stack(r#"[{"lineNumber":1,"column":0}]"#, PlainInput::default()).len(),
            1
        );
    }
}
