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
use std::sync::OnceLock;

use regex::Regex;
use serde::Deserialize;

use crate::map::index::GeneratedPosition;
use crate::trace::ansi;

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

/// Where a frame's location text points: its file, line and column (or line only), in the trace's numbers.
struct Location {
    file: String,
    line: u32,
    /// `None`: the trace gives no column (`fn@URL:61`, a Firefox eval chain's call site).
    column: Option<u32>,
    /// The position is the call site of code made by `eval`.
    in_eval: bool,
}

/// Reads a location as engines write it: `URL:L:C`; `URL:L` (a line only: Firefox before 30, Safari 6, PhantomJS, Opera
/// 11, whose URL must name a script file, so that `host:port` is never a line); Firefox's eval chain `URL line 310 >
/// eval line 4 > eval:2:17`, whose call site is `URL` line 310 (SpiderMonkey's `FormatIntroducedFilename` writes
/// `"%s line %s > %s"`, `js/src/vm/JSScript.cpp`: the line of the eval call, no column; `:2:17` is inside the eval'd
/// code); and Safari's `safari-extension:(//ID/path.js:120:8)`, whose scheme is `safari-extension://`.
fn read_location(loc: &str) -> Option<Location> {
    let loc = loc.trim();
    if let Some(inner) = loc.find(":(//").filter(|_| loc.ends_with(')')) {
        let scheme = &loc[..inner];
        if !scheme.is_empty()
            && scheme
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        {
            return read_location(&format!("{scheme}://{}", &loc[inner + 4..loc.len() - 1]));
        }
    }
    static CHAIN: OnceLock<Regex> = OnceLock::new();
    if let Some(c) = regex(
        &CHAIN,
        r"^(\S.*?) line (\d+) > (?:eval|Function|Function\.prototype\.apply)\b",
    )
    .captures(loc)
    {
        return Some(Location {
            file: c[1].to_string(),
            line: c[2].parse().ok()?,
            column: None,
            in_eval: true,
        });
    }
    if let Some((url, l, c)) = split_location(loc) {
        return Some(Location {
            file: url.to_string(),
            line: l,
            column: Some(c),
            in_eval: false,
        });
    }
    let (url, l) = loc.rsplit_once(':')?;
    let l: u32 = l.parse().ok()?;
    // A line alone only after a script's path: `http://host:8080` and `v1.2:3` are not frames.
    let path = url.split_once("://").map_or(url, |(_, rest)| rest);
    let named = names_a_script(url) && (path.contains('/') || !url.contains("://"));
    (named && !url.is_empty() && !url.contains(char::is_whitespace)).then(|| Location {
        file: url.to_string(),
        line: l,
        column: None,
        in_eval: false,
    })
}

/// A frame's generated position from a location: lines and columns 1-based as written (the engines' own; see the
/// table), a line-only location at column 0 with [`Precision::Line`].
fn position_of(loc: &Location) -> (Option<(u32, u32)>, Option<GeneratedPosition>, Precision) {
    match loc.column {
        Some(c) => (
            Some((loc.line, c)),
            one_based(loc.line, c),
            Precision::Column,
        ),
        None => (
            Some((loc.line, 0)),
            loc.line
                .checked_sub(1)
                .map(|line| GeneratedPosition { line, column: 0 }),
            Precision::Line,
        ),
    }
}

/// A V8-style line: `at fn (loc)` or `at loc`.
fn parse_v8(line: &str) -> Option<StackFrame> {
    static WITH_FN: OnceLock<Regex> = OnceLock::new();
    static BARE: OnceLock<Regex> = OnceLock::new();
    // The closing parenthesis may be missing (a line cut by a logger).
    let with_fn = regex(&WITH_FN, r"^\s*at (.+?) \((.*?)(\))?\s*$");
    let bare = regex(&BARE, r"^\s*at (?:async )?(\S.*?)\s*$");
    // Without its closing parenthesis, only a location makes the line a frame (not `at least (see below) it`).
    let with_fn_captures = with_fn
        .captures(line)
        .filter(|c| c.get(3).is_some() || read_location(&c[2]).is_some());
    if let Some(c) = with_fn_captures {
        let name = c.get(1).expect("group");
        let inner = c.get(2).expect("group");
        let (function, is_async, is_constructor) = split_function(name.as_str());
        let name_part = name
            .as_str()
            .trim_start_matches("async ")
            .trim_start_matches("new ");
        let function_span = Some(span_of(line, name_part));
        // `(async URL:L:C)`: an async frame with the word inside the parentheses.
        let text = inner.as_str();
        let (text, is_async) = match text.strip_prefix("async ") {
            Some(rest) => (rest, true),
            None => (text, is_async),
        };
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
            frame_span: 0..line.len(),
            precision: Precision::Column,
            in_eval: false,
            as_written: None,
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
        // Code made by `eval`: V8's `FormatEvalOrigin` (`src/objects/call-site-info.cc`) writes `eval at NAME (ORIGIN)`
        // (`<anonymous>` for a nameless caller), nested origins inside, the innermost one a position `URL:L:C` (1-based,
        // `info.line + 1`, `info.column + 1`), then `, <anonymous>:L:C` inside the eval'd code. The call site in the
        // bundle is the innermost origin. An origin without a position (webpack's `eval at f (webpack:///x.js?)`) leaves
        // the frame without one: never a file made of the chain's text.
        let loc = if let Some(origin) = text.strip_prefix("eval at ") {
            frame.in_eval = true;
            static EVAL: OnceLock<Regex> = OnceLock::new();
            static EVAL_BARE: OnceLock<Regex> = OnceLock::new();
            let in_parens = regex(&EVAL, r"\(([^()]*:\d+:\d+)\)");
            let bare_origin = regex(&EVAL_BARE, r"^([^\s(),]+:\d+:\d+)(?:,|$)");
            match in_parens
                .captures_iter(text)
                .last()
                .or_else(|| bare_origin.captures(origin))
            {
                Some(c) => c.get(1)?.as_str(),
                None => return Some(frame),
            }
        } else {
            text
        };
        // Chakra (Edge, IE) names eval'd code `eval code`: a position inside it is no position in a file.
        if loc.starts_with("eval code:") {
            frame.in_eval = true;
            return Some(frame);
        }
        // `(native)`, `(<anonymous>)`, `(index 0)` of `Promise.all`: a frame without a position.
        let Some(at) = read_location(loc) else {
            frame.native = !frame.in_eval;
            return Some(frame);
        };
        let (written, generated, precision) = position_of(&at);
        frame.file = Some(at.file);
        frame.written = written;
        frame.generated = generated;
        frame.precision = precision;
        frame.in_eval |= at.in_eval;
        frame.location_span = Some(span_of(line, loc));
        return Some(frame);
    }
    // Crashlytics (Android): `at .fn(address at index.android.bundle:1:C)`, no space before the parenthesis and the
    // (empty) class name's dot before the function.
    static CRASHLYTICS: OnceLock<Regex> = OnceLock::new();
    let crashlytics = regex(&CRASHLYTICS, r"^(\s*at )\.?([^\s()]*)\((.*:\d+:\d+)\)\s*$");
    if let Some(c) = crashlytics
        .captures(line)
        .filter(|c| !c[2].ends_with(':') && !c[2].contains('@'))
    {
        let name = c.get(2).expect("group");
        let inner = c.get(3).expect("group");
        // Re-read as the V8 frame it is, then point the spans back into this line.
        let v8 = format!("{}{} ({})", &c[1], name.as_str(), inner.as_str());
        let mut f = parse_v8(&v8)?;
        f.raw = line.to_string();
        f.function_span = (!name.as_str().is_empty()).then(|| name.range());
        let inner_in_v8 = c[1].len() + name.len() + 2;
        f.location_span = f
            .location_span
            .map(|l| l.start - inner_in_v8 + inner.start()..l.end - inner_in_v8 + inner.start());
        f.frame_span = 0..line.len();
        return Some(f);
    }
    let c = bare.captures(line)?;
    let loc = c.get(1)?.as_str();
    // `at fn@URL:L:C` (Safari's extension frames as some reporters print them) is an `@` frame after `at `.
    if loc
        .split_once('@')
        .is_some_and(|(name, _)| !name.contains('/') && !name.contains(':'))
    {
        return None;
    }
    let at = read_location(loc)?;
    let (written, generated, precision) = position_of(&at);
    Some(StackFrame {
        raw: line.to_string(),
        format: FrameFormat::V8,
        function: None,
        is_async: line.trim_start().starts_with("at async "),
        is_constructor: false,
        file: Some(at.file),
        written,
        generated,
        native: false,
        function_span: None,
        location_span: Some(span_of(line, loc)),
        frame_span: 0..line.len(),
        precision,
        in_eval: at.in_eval,
        as_written: None,
    })
}

/// Brackets, parentheses and quotes read so far in a function name, one character at a time (so an `@` inside
/// `handlers["@click"]` is not the frame's). Angle brackets are not counted: SpiderMonkey names closures `outer/<` and
/// `[2]</Bar/</<`. One pass answers "is this prefix balanced?" at every `@` of a line: asking [`balanced`] of each
/// prefix re-read the line before every `@` (0.84 s per documentLink on `@babel/standalone` 7.26.0's one-line
/// `babel.min.js`, 316 `@`; issue 66).
#[derive(Default)]
struct Balance {
    open: Vec<char>,
    quote: Option<char>,
    /// A closing bracket without its opening one: no longer prefix of this text is balanced.
    broken: bool,
}

impl Balance {
    fn push(&mut self, ch: char) {
        if self.broken {
            return;
        }
        if let Some(q) = self.quote {
            if ch == q {
                self.quote = None;
            }
            return;
        }
        match ch {
            '"' | '\'' | '`' => self.quote = Some(ch),
            '(' | '[' | '{' => self.open.push(ch),
            ')' | ']' | '}' => {
                let opening = match ch {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                if self.open.pop() != Some(opening) {
                    self.broken = true;
                }
            }
            _ => {}
        }
    }

    fn is_balanced(&self) -> bool {
        !self.broken && self.open.is_empty() && self.quote.is_none()
    }
}

/// Whether brackets, parentheses and quotes are balanced in a function name ([`Balance`]).
fn balanced(name: &str) -> bool {
    let mut balance = Balance::default();
    name.chars().for_each(|ch| balance.push(ch));
    balance.is_balanced()
}

/// A function name as an `@` frame or Presto writes it, made plain: arguments dropped (`bar(1)`, Firefox before 14;
/// `foo([arguments not available])`, Opera 11), `<anonymous function: run>` is `run` and `<anonymous function>`
/// none (Opera); names stay otherwise as written (`obj["@fn"]`, `test/<`).
fn plain_function_name(name: &str) -> Option<&str> {
    let mut n = name.trim();
    if n.ends_with(')') {
        if let Some(open) = n.find('(') {
            if balanced(&n[open..]) && open > 0 {
                n = &n[..open];
            } else if open == 0 {
                n = "";
            }
        }
    }
    if let Some(inner) = n
        .strip_prefix("<anonymous function")
        .and_then(|r| r.strip_suffix('>'))
    {
        n = inner.trim_start_matches(':').trim();
    }
    (!n.is_empty()).then_some(n)
}

/// `fn@url:L:C`, `@url:L:C`, `global code@url:L:C`, `fn@url:L` (a line only), or logcat `fn@L:C`. The frame's `@` is
/// the first after which the name is balanced (SpiderMonkey writes any name before it, `@` included:
/// `FormatSpiderMonkeyStackFrame`, `js/src/vm/SavedStacks.cpp`), and URLs may hold `@` too.
fn parse_at_sign(line: &str) -> Option<StackFrame> {
    let trimmed_start = line.len() - line.trim_start().len();
    let body = line.trim();
    let (name_text, loc) = {
        let mut balance = Balance::default();
        body.char_indices().find_map(|(i, ch)| {
            let found = ch == '@' && balance.is_balanced() && {
                let rest = &body[i + 1..];
                !rest.is_empty() && !rest.starts_with(char::is_whitespace)
            };
            balance.push(ch);
            found.then(|| (&body[..i], &body[i + 1..]))
        })?
    };
    let name_start = trimmed_start;
    // SpiderMonkey's async frames: `async*fn@…` (`asyncCause` and `*` before the name).
    let (cause, name_only) = match name_text.split_once('*') {
        Some((cause, rest)) if !cause.is_empty() && balanced(cause) => (true, rest),
        _ => (false, name_text),
    };
    // Names with spaces outside brackets are JavaScriptCore's own (`global code`, `module code`, `eval code`); any other
    // space is text before a frame (`INFO reload: render@…`), left to the search inside the line.
    let outside: String = {
        let mut depth = 0i32;
        name_only
            .chars()
            .filter(|&ch| {
                match ch {
                    '(' | '[' | '<' => depth += 1,
                    ')' | ']' | '>' => depth -= 1,
                    _ => {}
                }
                depth == 0
            })
            .collect()
    };
    if outside.contains(char::is_whitespace)
        && !["global code", "module code", "eval code"].contains(&name_only)
    {
        return None;
    }
    let function = plain_function_name(name_only).map(str::to_string);
    let name_in_line = &line[name_start + (name_text.len() - name_only.len())..][..name_only.len()];
    let function_span = function.as_ref().map(|_| span_of(line, name_in_line));
    let loc_in_line = &line[name_start + name_text.len() + 1..][..loc.len()];
    // The frame as written, its position and format set below.
    let frame =
        |format, file: Option<String>, written: Option<(u32, u32)>, generated, location_span| {
            StackFrame {
                raw: line.to_string(),
                format,
                function: function.clone(),
                is_async: cause,
                is_constructor: false,
                file,
                written,
                generated,
                native: written.is_none(),
                function_span: function_span.clone(),
                location_span,
                frame_span: 0..line.len(),
                precision: Precision::Column,
                in_eval: false,
                as_written: None,
            }
        };
    // React Native's columns are 0-based (see the table); its lines 1-based.
    let react_native = |l: u32, col: u32| {
        l.checked_sub(1)
            .map(|line| GeneratedPosition { line, column: col })
    };
    // React Native: `fn@L:C`, `fn@-1` (no line), `fn@N.js:L:C`.
    if loc == "-1" {
        return Some(frame(FrameFormat::ReactNative, None, None, None, None));
    }
    if let Some((l, col)) = loc.split_once(':') {
        if let (Ok(l), Ok(col)) = (l.parse::<u32>(), col.parse::<u32>()) {
            let at = Some(span_of(line, loc_in_line));
            return Some(frame(
                FrameFormat::ReactNative,
                None,
                Some((l, col)),
                react_native(l, col),
                at,
            ));
        }
    }
    if loc == "[native code]" {
        return Some(frame(FrameFormat::AtSign, None, None, None, None));
    }
    let location = read_location(loc)?;
    let at = Some(span_of(line, loc_in_line));
    // React Native names a RAM bundle's module or a segment (`199.js`, `seg-1.js`; `JSStackTrace.FILE_ID_PATTERN`);
    // its columns are React Native's (0-based).
    static RN_FILE: OnceLock<Regex> = OnceLock::new();
    if let (Some(col), true) = (
        location.column,
        regex(&RN_FILE, r"^(?:seg-\d+(?:_\d+)?|\d+)\.js$").is_match(&location.file),
    ) {
        let generated = react_native(location.line, col);
        return Some(frame(
            FrameFormat::ReactNative,
            Some(location.file),
            Some((location.line, col)),
            generated,
            at,
        ));
    }
    let (written, generated, precision) = position_of(&location);
    let mut f = frame(
        FrameFormat::AtSign,
        Some(location.file),
        written,
        generated,
        at,
    );
    f.precision = precision;
    f.in_eval = location.in_eval;
    Some(f)
}

/// JavaScriptCore's anonymous frame: a bare `URL:L:C` line, no `@` (`StackFrame::toString`, WebKit
/// `Source/JavaScriptCore/runtime/StackFrame.cpp`, writes `@` only after a function name; lines and columns 1-based).
/// Safari 7–12, Safari extensions' content scripts, React Native on JSC (`index.android.bundle:156:572`). The URL
/// must name a script; anything else on the line makes it text.
fn parse_bare_location(line: &str) -> Option<StackFrame> {
    let loc = line.trim();
    if loc.contains(char::is_whitespace) || loc.contains('@') {
        return None;
    }
    let at = read_location(loc)?;
    if at.column.is_none() || !names_a_script(&at.file) || at.in_eval {
        return None;
    }
    let (written, generated, precision) = position_of(&at);
    Some(StackFrame {
        raw: line.to_string(),
        format: FrameFormat::AtSign,
        function: None,
        is_async: false,
        is_constructor: false,
        file: Some(at.file),
        written,
        generated,
        native: false,
        function_span: None,
        location_span: Some(span_of(line, loc)),
        frame_span: 0..line.len(),
        precision,
        in_eval: false,
        as_written: None,
    })
}

/// Opera's Presto (Opera 8–12, its `stacktrace` and `message` properties): `Line 61 of linked script URL` (a line
/// only), `Line 9 of inline#2 script in URL: In function save` (a line of an inline script of the page: no position in
/// a file), `called from line 61, column 4 in save(n) in URL:` and `Error thrown at line 12, column 0 in <anonymous
/// function>(e) in URL:`. Presto's columns are 0-based: its traces write `column 0` (the Opera 12 trace in
/// `fixtures/traces/captured`); lines 1-based. There is no published engine source to cite; the captured traces of
/// error-stack-parser and Sentry's TraceKit are the evidence.
fn parse_presto(line: &str) -> Option<StackFrame> {
    static LINE_OF: OnceLock<Regex> = OnceLock::new();
    static CALLED: OnceLock<Regex> = OnceLock::new();
    let frame = |function: Option<&str>,
                 function_span,
                 file: &str,
                 written,
                 generated,
                 precision,
                 location_span| StackFrame {
        raw: line.to_string(),
        format: FrameFormat::Presto,
        function: function.map(str::to_string),
        is_async: false,
        is_constructor: false,
        file: Some(file.to_string()),
        written,
        generated,
        native: false,
        function_span,
        location_span,
        frame_span: 0..line.len(),
        precision,
        in_eval: false,
        as_written: None,
    };
    // `Line N of linked script URL` (a line of that file) or `Line N of inline#K script in URL` (a line of the page's
    // K-th inline script: no position in a file).
    if let Some(c) = regex(
        &LINE_OF,
        r"^\s*(?:\.\.\.\s+)?Line (\d+) of (linked script|inline#\d+ script in) (\S+?)(?:: In function (\S+))?\s*$",
    )
    .captures(line)
    {
        let l: u32 = c[1].parse().ok()?;
        let name = c.get(4);
        let linked = &c[2] == "linked script";
        return Some(frame(
            name.map(|n| n.as_str()),
            name.map(|n| n.range()),
            &c[3],
            Some((l, 0)),
            l.checked_sub(1)
                .map(|line| GeneratedPosition { line, column: 0 })
                .filter(|_| linked),
            Precision::Line,
            linked.then(|| c.get(1).map_or(0, |m| m.start())..c.get(3).map_or(0, |m| m.end())),
        ));
    }
    let c = regex(
        &CALLED,
        r"^\s*(?:called from|Error thrown at|Error initially occurred at) line (\d+), column (\d+) in (?:(.+?) in )?(\S+?):?\s*$",
    )
    .captures(line)?;
    let (l, col): (u32, u32) = (c[1].parse().ok()?, c[2].parse().ok()?);
    let name = c.get(3);
    let function = name.and_then(|n| plain_function_name(n.as_str()));
    Some(frame(
        function,
        name.filter(|_| function.is_some()).map(|n| n.range()),
        &c[4],
        Some((l, col)),
        l.checked_sub(1)
            .map(|line| GeneratedPosition { line, column: col }),
        Precision::Column,
        Some(c.get(1)?.start()..c.get(4)?.end()),
    ))
}

fn parse_plain(line: &str, plain: PlainInput) -> Option<StackFrame> {
    static PLAIN: OnceLock<Regex> = OnceLock::new();
    // `LINE COLUMN`, or metro-symbolicate's `N.js LINE COLUMN` / `seg-S_N.js LINE COLUMN`: a position in a RAM
    // bundle's module or a segment (`map/metro.rs`), as its positional form asks for one.
    let re = regex(
        &PLAIN,
        r"^\s*(?:((?:\d+|seg-\d+(?:_\d+)?)\.js)\s+)?(\d+)(?:\s+|:)(\d+)\s*$",
    );
    let c = re.captures(line)?;
    let file = c.get(1).map(|m| m.as_str().to_string());
    let l: u32 = c.get(2)?.as_str().parse().ok()?;
    let col: u32 = c.get(3)?.as_str().parse().ok()?;
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
        file,
        written: Some((l, col)),
        generated,
        native: false,
        function_span: None,
        location_span: Some(span_of(line, trimmed)),
        frame_span: 0..line.len(),
        precision: Precision::Column,
        in_eval: false,
        as_written: None,
    })
}

/// Crashlytics' iOS line for a React Native frame: `1  ???  0x0 t + 1066 (main.jsbundle:1066:119:1066)`, the line
/// repeated after the column; `apply ((native):0:0)` has no position.
fn parse_crashlytics_ios(line: &str) -> Option<StackFrame> {
    static IOS: OnceLock<Regex> = OnceLock::new();
    let re = regex(
        &IOS,
        r"^\s*\d+\s+\S+\s+0x[0-9a-fA-F]+\s+(.+?) \+ \d+ \(((.*?):(\d+):(\d+))(?::\d+)?\)\s*$",
    );
    let c = re.captures(line)?;
    let name = c.get(1)?;
    let loc = c.get(2)?;
    let url = &c[3];
    let (l, col): (u32, u32) = (c[4].parse().ok()?, c[5].parse().ok()?);
    let native = url == "(native)" || l == 0;
    Some(StackFrame {
        raw: line.to_string(),
        format: FrameFormat::CrashlyticsIos,
        function: Some(name.as_str().to_string()),
        is_async: false,
        is_constructor: false,
        file: (!native).then(|| url.to_string()),
        written: (!native).then_some((l, col)),
        generated: if native { None } else { one_based(l, col) },
        native,
        function_span: Some(name.range()),
        location_span: (!native).then(|| loc.range()),
        frame_span: 0..line.len(),
        precision: Precision::Column,
        in_eval: false,
        as_written: None,
    })
}

/// The length of the known prefixes at the start of `line` (see the module documentation), stripped repeatedly.
fn known_prefix(line: &str) -> usize {
    static PREFIXES: OnceLock<Vec<Regex>> = OnceLock::new();
    let prefixes = PREFIXES.get_or_init(|| {
        [
            // Kubernetes CRI: TIME STREAM TAG (kubelet logs.go parseCRILog).
            r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}) (?:stdout|stderr) [FP] ",
            // An RFC 3339 / ISO 8601 time (docker logs -t; loggers), bracketed or not.
            r"^\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\]?\s+",
            // logcat threadtime: MM-DD HH:MM:SS.mmm PID TID LEVEL TAG: (logprint.cpp), the year optional.
            r"^(?:\d{4}-)?\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}\s+\d+\s+\d+ [VDIWEFSA] [^:]*?: ?",
            // logcat brief: LEVEL/TAG( PID): (logprint.cpp).
            r"^[VDIWEFSA]/[^(:]*\(\s*\d+\): ?",
            // Quotes.
            r"^[ \t]*>+ ?",
        ]
        .iter()
        .map(|p| Regex::new(p).expect("valid regex"))
        .collect()
    });
    let mut at = 0;
    'strip: for _ in 0..8 {
        for re in prefixes {
            if let Some(m) = re.find(&line[at..]) {
                if !m.is_empty() {
                    at += m.end();
                    continue 'strip;
                }
            }
        }
        break;
    }
    at
}

/// A frame parsed from `line[at..]` (whole: to the end of the line), its spans moved into `line`.
fn frame_at(
    line: &str,
    at: usize,
    parse: impl Fn(&str) -> Option<StackFrame>,
) -> Option<StackFrame> {
    let mut f = parse(&line[at..])?;
    let shift = |r: Range<usize>| r.start + at..r.end + at;
    f.function_span = f.function_span.map(shift);
    f.location_span = f.location_span.map(shift);
    f.frame_span = shift(f.frame_span);
    f.raw = line.to_string();
    Some(f)
}

/// Whether a URL found inside free text names a script (a path, or a script's extension), not a host and port or a
/// version.
fn names_a_script(url: &str) -> bool {
    let name = file_name_of(url);
    url.contains('/')
        || url.contains('\\')
        || [
            ".js",
            ".mjs",
            ".cjs",
            ".jsx",
            ".ts",
            ".tsx",
            ".bundle",
            ".jsbundle",
            ".hbc",
        ]
        .iter()
        .any(|ext| name.ends_with(ext))
}

/// The longest frame looked for inside free text (after an unknown prefix), URL included: a V8 frame there runs to
/// the line's end, so only an `at ` this near the end can start one, and a `fn@url:L:C` word is no longer. Without
/// the bound every `at ` and every word with an `@` of a minified bundle's one long line was parsed to the line's
/// end: `textDocument/documentLink` took 9.2–9.9 s on `@babel/standalone`'s 3.2 MB `babel.min.js` (issue 56).
pub const MAX_EMBEDDED_FRAME_BYTES: usize = 8 << 10;

/// A frame after an unknown prefix: `at …` after a space (or `:`), or a `fn@url:L:C` word; it must name a script.
fn embedded_frame(line: &str, from: usize) -> Option<StackFrame> {
    let mut window = line
        .len()
        .saturating_sub(MAX_EMBEDDED_FRAME_BYTES)
        .max(from);
    while !line.is_char_boundary(window) {
        window += 1;
    }
    let text = &line[from..];
    let bytes = text.as_bytes();
    let near_end = window - from;
    // Each `at ` is read to the line's end, so a window dense with them cost its length times their number (18 µs a
    // byte on a 16 KiB line of ` at …`, `tests/scan_linear.rs`). A V8 frame ends the line with `)` or a location's
    // digit, or holds Firefox's `X line N > eval` chain ([`parse_v8`], [`read_location`]): without one of those no
    // `at ` of the line starts a frame.
    let tail = line.trim_end();
    let may_end_a_v8_frame = tail.ends_with(')')
        || tail.ends_with(|c: char| c.is_ascii_digit())
        || line[window..].contains(" line ");
    let candidates = if may_end_a_v8_frame {
        text[near_end..].match_indices("at ").collect()
    } else {
        Vec::new()
    };
    for (i, _) in candidates {
        let i = near_end + i;
        if i > 0 && !matches!(bytes[i - 1], b' ' | b'\t' | b':' | b'|' | b']') {
            continue;
        }
        if let Some(f) = frame_at(line, from + i, parse_v8) {
            if f.native || f.file.as_deref().is_some_and(names_a_script) {
                return Some(f);
            }
        }
    }
    let mut start = 0;
    for word in text.split_inclusive([' ', '\t']) {
        let w = word.trim_end();
        if w.len() > 2 && w.len() <= MAX_EMBEDDED_FRAME_BYTES && w.contains('@') {
            if let Some(f) = frame_at(&line[..from + start + w.len()], from + start, parse_at_sign)
            {
                if f.format == FrameFormat::AtSign && f.file.as_deref().is_some_and(names_a_script)
                {
                    let mut f = f;
                    f.raw = line.to_string();
                    return Some(f);
                }
            }
        }
        start += word.len();
    }
    None
}

/// Vitest's frame line (see the table): ` ❯ fn path:L:C` or ` ❯ path:L:C`, a script's path.
fn parse_vitest(line: &str) -> Option<StackFrame> {
    static VITEST: OnceLock<Regex> = OnceLock::new();
    let c = regex(&VITEST, r"^\s*❯ (?:(\S.*?) )?(\S+:\d+:\d+)\s*$").captures(line)?;
    let loc = c.get(2)?;
    let at = read_location(loc.as_str()).filter(|l| names_a_script(&l.file) && !l.in_eval)?;
    let name = c.get(1);
    let (function, is_async, is_constructor) =
        name.map_or((None, false, false), |n| split_function(n.as_str()));
    let (written, generated, precision) = position_of(&at);
    Some(StackFrame {
        raw: line.to_string(),
        format: FrameFormat::Vitest,
        function,
        is_async,
        is_constructor,
        file: Some(at.file),
        written,
        generated,
        native: false,
        function_span: name.map(|n| n.range()),
        location_span: Some(loc.range()),
        frame_span: 0..line.len(),
        precision,
        in_eval: false,
        as_written: None,
    })
}

/// Where node's `util.inspect` suffix of a frame line starts (` {`, or `,`; see the module documentation), when the
/// line ends with one after a frame's end (`)` or a location's digit).
fn inspect_suffix(line: &str) -> Option<usize> {
    let body = line.trim_end();
    let cut = body
        .strip_suffix(" {")
        .or_else(|| body.strip_suffix(','))?
        .trim_end();
    cut.ends_with(|c: char| c == ')' || c.is_ascii_digit())
        .then_some(cut.len())
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
    Some(metro_lines(frames))
}

/// [`parse_metro_json`] of a JSON document already parsed: an object with a `stack`, or an array (anything else is
/// not Metro's, and is not read again).
pub fn parse_metro_value(value: &serde_json::Value) -> Option<Vec<StackLine>> {
    use serde::Deserialize;
    let frames: Vec<MetroFrame> = match value {
        serde_json::Value::Object(o) if o.contains_key("stack") => {
            MetroRequest::deserialize(value).ok()?.stack
        }
        serde_json::Value::Array(_) => Vec::<MetroFrame>::deserialize(value).ok()?,
        _ => return None,
    };
    Some(metro_lines(frames))
}

fn metro_lines(frames: Vec<MetroFrame>) -> Vec<StackLine> {
    {
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
                    frame_span: 0..0,
                    precision: Precision::Column,
                    in_eval: false,
                    as_written: None,
                })
            })
            .collect()
    }
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
    if let Some(frames) = parse_metro_json(text) {
        return frames;
    }
    lines_of(text).map(|l| parse_line(l, plain)).collect()
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
    // The IDs after each key, in the keys' order: each key in any case, found in one pass over the `d`s of the text
    // (no lowercased copy of a whole event).
    let mut found: [Vec<String>; 3] = Default::default();
    for at in memchr::memchr2_iter(b'd', b'D', bytes) {
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
