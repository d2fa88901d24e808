//! The other engines' forms: `name@url:L:C` (SpiderMonkey, JavaScriptCore), a bare location, Opera's Presto, a
//! plain `name (url:L:C)` and Crashlytics' iOS lines.

use super::location::{names_a_script, one_based, position_of, read_location, regex, span_of};
use super::v8::{balanced, plain_function_name, Balance};
use super::{FrameFormat, PlainInput, Precision, StackFrame};
use crate::map::index::GeneratedPosition;
use regex::Regex;
use std::sync::OnceLock;

/// `fn@url:L:C`, `@url:L:C`, `global code@url:L:C`, `fn@url:L` (a line only), or logcat `fn@L:C`. The frame's `@` is
/// the first after which the name is balanced (SpiderMonkey writes any name before it, `@` included:
/// `FormatSpiderMonkeyStackFrame`, `js/src/vm/SavedStacks.cpp`), and URLs may hold `@` too.
pub(super) fn parse_at_sign(line: &str) -> Option<StackFrame> {
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
pub(super) fn parse_bare_location(line: &str) -> Option<StackFrame> {
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
pub(super) fn parse_presto(line: &str) -> Option<StackFrame> {
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

pub(super) fn parse_plain(line: &str, plain: PlainInput) -> Option<StackFrame> {
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
pub(super) fn parse_crashlytics_ios(line: &str) -> Option<StackFrame> {
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
