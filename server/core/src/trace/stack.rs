//! Stack-trace parsing: every common format, each with its position convention written down once, with where the
//! convention comes from.
//!
//! | format | shape | line | column | established by |
//! |---|---|---|---|---|
//! | V8 (Node, Chrome), Hermes source frames | `    at fn (url:L:C)`, `    at url:L:C` | 1-based | 1-based | V8's `Error.stack`; the recorded traces in `fixtures/traces` (node, Hermes) against the map |
//! | JSC / Safari, Firefox | `fn@url:L:C`, `global code@url:L:C`, `@url:L:C` | 1-based | 1-based | the recorded JSC, SpiderMonkey and Firefox traces in `fixtures/traces` |
//! | Hermes bytecode | `    at fn (address at url:1:OFFSET)` | the segment (1) | 0-based bytecode offset | Hermes' `JSError` stack; metro-symbolicate looks the offset up as the column |
//! | React Native `JavascriptException` (logcat `AndroidRuntime`, `ReactNativeJS`) | `fn@L:C`, `fn@N.js:L:C`, `fn@seg-N.js:L:C`, `fn@-1` (no position) | 1-based | 0-based | `JSStackTrace.format` prints the frames of `parseErrorStack` unchanged; `parseErrorStack.js` subtracts 1 from V8/JSC columns and from Hermes `column1Based`, and keeps Hermes `virtualOffset0Based` (react-native `Libraries/Core/Devtools/parseErrorStack.js`, `ReactAndroid/…/util/JSStackTrace.kt`) |
//! | Crashlytics, Android (react-native-firebase) | `at .fn(address at index.android.bundle:1:C)`, `at .fn(file:L:C)` | as V8 | as V8 | react-native-firebase `handlers.ts` puts stacktrace-js's numbers (as the engine printed them) into a `StackTraceElement("", fn, file, -1)` |
//! | Crashlytics, iOS (react-native-firebase) | `N ??? 0x0 fn + L (main.jsbundle:L:C:L)`, `((native):0:0)` | 1-based | 1-based | the same `handlers.ts`, `FIRStackFrame stackFrameWithSymbol:file:line:` (metro #966: strip the trailing `:L`) |
//! | Metro `/symbolicate` JSON | `{"stack":[{file, lineNumber, column, methodName}]}` | 1-based | 0-based | Metro's `Server.js` symbolicate endpoint |
//! | plain (metro-symbolicate) | `LINE COLUMN` | `--input-line-start` (1) | `--input-column-start` (0) | metro-symbolicate's `Symbolication.js` defaults |
//! | V8 eval'd code | `at f (eval at g (url:L:C), <anonymous>:1:2)`, `eval at <anonymous> (url:L:C)` | the innermost origin's, 1-based | 1-based | V8 `FormatEvalOrigin` (`src/objects/call-site-info.cc`: `info.line + 1`, `info.column + 1`) |
//! | JSC anonymous frame | `url:L:C` alone on its line | 1-based | 1-based | WebKit `StackFrame::toString` (`Source/JavaScriptCore/runtime/StackFrame.cpp`) writes `@` only after a function name; columns `oneBasedInt()` |
//! | SpiderMonkey | `name@url:L:C`, the name may hold `@`; `async*name@…` | 1-based | 1-based | `FormatSpiderMonkeyStackFrame` (`js/src/vm/SavedStacks.cpp`, `getColumn().oneOriginValue()`); 1-based since Firefox 30 (bug 762556) |
//! | Firefox eval chain | `name@url line 310 > eval line 4 > eval:2:17` | the call site's (310) | none (line only) | `FormatIntroducedFilename` (`js/src/vm/JSScript.cpp`, `"%s line %s > %s"`) |
//! | line only | `name@url:61`, `at url:61`, `at name (url:61)` | 1-based | none: [`Precision::Line`] | SpiderMonkey before Firefox 30 (SM 17 `jsexn.cpp` writes `@`, `:`, the line), Safari 6, PhantomJS, Opera 11 |
//! | Opera Presto | `Line 61 of linked script url` (Opera 9.64's `stacktrace` may open with `...`: `  ...  Line 27 of linked script url`), `called from line 61, column 4 in save(n) in url:` | 1-based | 0-based | Presto's traces (`column 0` in `fixtures/traces/captured`); no engine source is published |
//! | Opera 11 creation site | `Error created at <anonymous function>@url:15` | 1-based | none | not a frame: where the error object was made, not a call; error-stack-parser's `parseOpera11` leaves it out of the frames (`!line.match(/^Error created at/)`), and so do we: the line stays text |
//! | Vitest's reporter | ` ❯ fn path:L:C`, ` ❯ path:L:C` | 1-based | 1-based | Vitest's `printStack` (`packages/vitest/src/node/printError.ts`) prints the method, line and column of the V8 frame `parseSingleV8Stack` read (`@vitest/utils`), numbers unchanged; the path relative to the project's root (Vitest 3.2.4 in `fixtures/traces/coloured`) |
//! | Chakra eval'd code | `at f (eval code:1:18)` | no position in a file | | Chakra names eval'd code `eval code` |
//!
//! Every frame's position is converted here to the index's convention (0-based line, 0-based column). Lines that are
//! not frames (the error message, `at <anonymous>`, blank lines) come back as text, unchanged.
//!
//! Traces as people find them: a line may carry a prefix before its frame, stripped when it is one of these (each
//! written down with its source), repeatedly:
//! - Kubernetes CRI logs: `2016-10-06T00:17:09.669794202Z stdout F ` (kubelet `pkg/kubelet/kuberuntime/logs/logs.go`,
//!   `parseCRILog`: an RFC 3339 time, `stdout`/`stderr`, `F` (full) or `P` (partial) tag);
//! - a leading RFC 3339 / ISO 8601 time (`docker logs -t`, most loggers), in brackets or not;
//! - Android logcat `threadtime` (the default: `MM-DD HH:MM:SS.mmm  PID  TID L TAG: `) and `brief` (`L/TAG( PID): `)
//!   (AOSP `system/logging/liblog/logprint.cpp`);
//! - `> ` quotes (mail, Markdown).
//!
//! A V8 frame line may end in what node's `util.inspect` writes after an error's stack (`lib/internal/util/inspect.js`,
//! `formatError` then `formatValue`): ` {` when the error has own properties (`[cause]`, `[errors]`, `code`, a
//! GraphQLError's fields) and `,` between the errors of an array (an AggregateError's `[errors]`). The frame is read
//! without it and it stays after the frame, as printed.
//!
//! Otherwise a V8 frame (`at …`) or a `fn@url:L:C` frame is looked for after any other prefix (a log4j layout's
//! `2026-12-01 07:00:00,123 ERROR [main] App - `): it must then parse as a whole frame whose URL names a script, so a
//! timestamp, a PID, `v1.2.3:4` or a URL with a port is never read as a position. Frames without a file
//! (`fn@L:C`, `LINE COLUMN`) are read only as a whole line (after a known prefix for `fn@L:C`).

use std::ops::Range;

use crate::map::index::GeneratedPosition;
use crate::trace::ansi;

mod embedded;
mod location;
mod metro_json;
mod other_engines;
mod v8;

pub use embedded::*;
pub use metro_json::*;
use other_engines::*;
use v8::*;

/// Which format a frame was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameFormat {
    /// `at fn (url:L:C)`: V8, and Hermes when it has source positions.
    V8,
    /// `fn@url:L:C`: JavaScriptCore / Safari and Firefox.
    AtSign,
    /// `at fn (address at url:1:OFFSET)`: Hermes bytecode.
    HermesBytecode,
    /// `fn@L:C`: React Native's `JavascriptException` text (logcat, crash reporters), no URL.
    ReactNative,
    /// `N ??? 0x0 fn + L (file:L:C:L)`: Crashlytics' iOS rendering of a React Native frame.
    CrashlyticsIos,
    /// A frame of a crash reporter's event JSON (`document.rs`: Sentry, Bugsnag).
    Event,
    /// An element of Metro's `/symbolicate` JSON.
    MetroJson,
    /// `LINE COLUMN`.
    Plain,
    /// Opera's Presto (Opera 8–12): `Line N of linked script URL`, `called from line N, column C in fn(args) in URL:`.
    Presto,
    /// Vitest's reporter: ` ❯ fn path:L:C`.
    Vitest,
}

/// One parsed frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackFrame {
    /// The input line as written (for JSON input, a compact rendering of the element), but for terminal escape
    /// sequences inside the frame's text, which stand just after it (`as_written` has the line as it came).
    pub raw: String,
    /// The format the frame was written in.
    pub format: FrameFormat,
    /// The function name as written (`Foo.bar`, `new Foo`, `<anonymous>`, `outer/<`), without `async `.
    pub function: Option<String>,
    /// Marked async by the engine: V8's `async` (`at async fn (…)`, `at fn (async …)`), SpiderMonkey's `CAUSE*` before
    /// the name.
    pub is_async: bool,
    /// A constructor call: V8 wrote `new` before the function's name (`at new Foo (…)`).
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
    /// Byte range of the frame in `raw`: the line may carry a prefix (a timestamp, a logcat tag, a quote) before it
    /// and text after it, which stay as they are when the frame is rewritten.
    pub frame_span: Range<usize>,
    /// Whether the trace gives a column: line-only frames (Firefox before 30, Safari 6, PhantomJS, Opera's Presto,
    /// a Firefox eval chain's call site) are answered at line level, never at an invented column.
    pub precision: Precision,
    /// The frame ran inside code made by `eval` (or `new Function`): its position is the eval call site's, the
    /// innermost origin the engine reports that is a position in a file.
    pub in_eval: bool,
    /// The line as it came, when it differs from `raw`: terminal escape sequences inside the frame's text (`raw` has
    /// them moved to just after the frame, so a rewritten frame reads plainly and the terminal's state after it is
    /// as it was; see `parse_line`). A frame left unmapped is given back as this, byte for byte.
    pub as_written: Option<String>,
}

/// How precisely a frame gives its position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// A line and a column.
    Column,
    /// A line only: the generated position's column is 0 and means nothing.
    Line,
}

/// An input line: a frame, or text passed through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StackLine {
    /// A frame.
    Frame(StackFrame),
    /// A line that holds no frame, passed through as it is.
    Text(String),
}

impl StackFrame {
    /// The line exactly as it came.
    pub fn line_as_written(&self) -> &str {
        self.as_written.as_deref().unwrap_or(&self.raw)
    }

    /// The line as it came (`as_written`, else `raw`) and where `span`, a range of `raw` inside the frame, is in it:
    /// what a document's link must cover when escape sequences were inside the frame.
    pub fn as_written_span(&self, span: Range<usize>) -> (&str, Range<usize>) {
        let Some(line) = &self.as_written else {
            return (&self.raw, span);
        };
        let body = line.strip_suffix('\r').unwrap_or(line);
        let (Some(s), true) = (ansi::strip(body), span.start >= self.frame_span.start) else {
            return (line, span);
        };
        // Up to the frame both lines are the same bytes; inside it `raw` has the clean text.
        let before: usize = s
            .sequences
            .iter()
            .filter(|r| r.end <= self.frame_span.start)
            .map(|r| r.len())
            .sum();
        let clean_start = self.frame_span.start - before;
        let clean = span.start - self.frame_span.start + clean_start
            ..span.end - self.frame_span.start + clean_start;
        (line, s.line_range(clean, body.len()))
    }

    /// Appends `note` to the frame's line (before a CRLF line's `\r`), to `raw` and to the line as written.
    pub fn append_note(&mut self, note: &str) {
        for text in std::iter::once(&mut self.raw).chain(self.as_written.as_mut()) {
            let end = text.strip_suffix('\r').map_or(text.len(), str::len);
            text.insert_str(end, note);
        }
    }
}

impl StackLine {
    /// The frame, if this line is one (for `filter_map` over a trace's lines).
    pub fn frame(&self) -> Option<&StackFrame> {
        match self {
            StackLine::Frame(f) => Some(f),
            StackLine::Text(_) => None,
        }
    }

    /// The frame, mutably, if this line is one.
    pub fn frame_mut(&mut self) -> Option<&mut StackFrame> {
        match self {
            StackLine::Frame(f) => Some(f),
            StackLine::Text(_) => None,
        }
    }
}

/// Offsets for plain `LINE COLUMN` input, as metro-symbolicate's `--input-line-start` / `--input-column-start`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlainInput {
    /// The number the input gives the first line (default 1): its line `line_start` is generated line 0.
    pub line_start: u32,
    /// The number the input gives the first column (default 0): its column `column_start` is generated column 0.
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

/// Parses one line of a text trace: a frame (after a known prefix, or inside other text), or text.
///
/// The line is read without what is not its text: a final `\r` (CRLF input) and terminal escape sequences
/// ([`ansi`]). A line that holds no frame comes back as it came. A frame's `raw` is the line with the escape
/// sequences that were inside the frame's own text moved to just after it, so that a rewritten frame reads plainly
/// while every other byte of the line (prefix, suffix, line end, the sequences before and after the frame) stays as
/// it came and the terminal's colour state after the frame is the same; [`StackFrame::as_written`] keeps the line
/// as it came for a frame left unmapped.
pub fn parse_line(line: &str, plain: PlainInput) -> StackLine {
    let body = line.strip_suffix('\r').unwrap_or(line);
    let Some(stripped) = ansi::strip(body) else {
        return match parse_clean_line(body, plain) {
            Some(mut f) => {
                f.raw = line.to_string();
                StackLine::Frame(f)
            }
            None => StackLine::Text(line.to_string()),
        };
    };
    let Some(mut f) = parse_clean_line(&stripped.text, plain) else {
        return StackLine::Text(line.to_string());
    };
    let frame = f.frame_span.clone();
    let span = stripped.line_range(frame.clone(), body.len());
    let inside: String = stripped
        .sequences
        .iter()
        .filter(|r| r.start >= span.start && r.end <= span.end)
        .map(|r| &body[r.clone()])
        .collect();
    let raw = format!(
        "{}{}{inside}{}",
        &line[..span.start],
        &stripped.text[frame.clone()],
        &line[span.end..]
    );
    // Spans inside the frame move with it; the parsers never give one outside it.
    let moved = |r: Range<usize>| {
        (r.start >= frame.start && r.end <= frame.end)
            .then(|| r.start - frame.start + span.start..r.end - frame.start + span.start)
    };
    f.function_span = f.function_span.and_then(moved);
    f.location_span = f.location_span.and_then(moved);
    f.frame_span = span.start..span.start + frame.len();
    f.as_written = (raw != line).then(|| line.to_string());
    f.raw = raw;
    StackLine::Frame(f)
}

/// [`parse_line`] on a line without escape sequences or line end.
fn parse_clean_line(line: &str, plain: PlainInput) -> Option<StackFrame> {
    let at = known_prefix(line);
    let message = &line[at..];
    let trimmed = message.trim_start();
    // Opera 11's creation site (see the table) is no frame: the line stays text.
    if trimmed.starts_with("Error created at ") {
        return None;
    }
    let whole = |m: &str| {
        if trimmed.starts_with("❯ ") {
            parse_vitest(m)
        } else if trimmed.starts_with("at ") {
            parse_v8(m)
                .or_else(|| parse_v8(&m[..inspect_suffix(m)?]).filter(|f| f.written.is_some()))
        } else if let Some(f) = parse_crashlytics_ios(m) {
            Some(f)
        } else if let Some(f) = parse_presto(m) {
            Some(f)
        } else if trimmed.contains('@') {
            parse_at_sign(m)
        } else if let Some(f) = parse_bare_location(m) {
            Some(f)
        } else if at == 0 {
            // `LINE COLUMN` only as a whole line: after a prefix, two numbers are a timestamp's or a PID's.
            parse_plain(m, plain)
        } else {
            None
        }
    };
    frame_at(line, at, whole).or_else(|| embedded_frame(line, at))
}

/// The lines of a text split at `\n` only, so a CRLF line keeps its `\r` (read past by [`parse_line`], written back
/// as it came); no empty line after a final newline.
pub fn lines_of(text: &str) -> impl Iterator<Item = &str> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    (!text.is_empty())
        .then(|| body.split('\n'))
        .into_iter()
        .flatten()
}

/// Parses a whole trace: Metro JSON when it is that, else line by line.
pub fn parse_stack(text: &str, plain: PlainInput) -> Vec<StackLine> {
    parse_stack_until(text, plain, &|| false).expect("never stopped")
}

/// [`parse_stack`], given up (`None`) once `stop` says so: it is asked before each line, so a long log stops within
/// a line of being asked (one line's scan is linear in its length: 7 ms a MB of one-line minified code).
pub fn parse_stack_until(
    text: &str,
    plain: PlainInput,
    stop: &dyn Fn() -> bool,
) -> Option<Vec<StackLine>> {
    if let Some(frames) = parse_metro_json(text) {
        return Some(frames);
    }
    let mut out = Vec::new();
    for l in lines_of(text) {
        if stop() {
            return None;
        }
        out.push(parse_line(l, plain));
    }
    Some(out)
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
    let bytes = text.as_bytes();
    const KEYS: [&[u8]; 3] = [b"debug_id", b"debugid", b"debug-id"];
    // The IDs after each key, in the keys' order: each key in any case, found in one pass over the `g`s of the text,
    // each key's fifth letter (no lowercased copy of a whole event; an event has 2.6 times as many `d`s as `g`s).
    let mut found: [Vec<String>; 3] = Default::default();
    for g in memchr::memchr2_iter(b'g', b'G', bytes) {
        let Some(at) = g.checked_sub(4) else {
            continue;
        };
        let Some(k) = KEYS.iter().position(|key| {
            bytes
                .get(at..at + key.len())
                .is_some_and(|w| w.eq_ignore_ascii_case(key))
        }) else {
            continue;
        };
        let rest = &text[at + KEYS[k].len()..];
        let value = rest.trim_start_matches(['"', '\'', ':', '=', ' ']);
        let id: String = value
            .chars()
            .take_while(|c| c.is_ascii_hexdigit() || *c == '-')
            .filter(|c| *c != '-')
            .map(|c| c.to_ascii_lowercase())
            .collect();
        if id.len() == 32 {
            found[k].push(id);
        }
    }
    let mut out: Vec<String> = Vec::new();
    for id in found.into_iter().flatten() {
        if !out.contains(&id) {
            out.push(id);
        }
    }
    out
}

/// A debug ID in the form [`debug_ids_in`] gives (a map's `debugId`, a bundle's `//# debugId=`): defined beside the
/// map's reader, which compares a map's two spellings of it.
pub use crate::map::debug_id::normalize_debug_id;

#[cfg(test)]
mod tests;
