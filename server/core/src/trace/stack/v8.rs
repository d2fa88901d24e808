//! V8's frame form (`at name (url:L:C)`, `at url:L:C`, eval origins), and the balance of brackets and quotes every
//! form's name is read with in one pass.

use super::location::{position_of, read_location, regex, span_of, split_function, split_location};
use super::{FrameFormat, Precision, StackFrame};
use crate::map::index::GeneratedPosition;
use regex::Regex;
use std::sync::OnceLock;

/// A V8-style line: `at fn (loc)` or `at loc`.
pub(super) fn parse_v8(line: &str) -> Option<StackFrame> {
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
pub(super) struct Balance {
    open: Vec<char>,
    quote: Option<char>,
    /// A closing bracket without its opening one: no longer prefix of this text is balanced.
    broken: bool,
}

impl Balance {
    pub(super) fn push(&mut self, ch: char) {
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

    pub(super) fn is_balanced(&self) -> bool {
        !self.broken && self.open.is_empty() && self.quote.is_none()
    }
}

/// Whether brackets, parentheses and quotes are balanced in a function name ([`Balance`]).
pub(super) fn balanced(name: &str) -> bool {
    let mut balance = Balance::default();
    name.chars().for_each(|ch| balance.push(ch));
    balance.is_balanced()
}

/// A function name as an `@` frame or Presto writes it, made plain: arguments dropped (`bar(1)`, Firefox before 14;
/// `foo([arguments not available])`, Opera 11), `<anonymous function: run>` is `run` and `<anonymous function>`
/// none (Opera); names stay otherwise as written (`obj["@fn"]`, `test/<`).
pub(super) fn plain_function_name(name: &str) -> Option<&str> {
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
