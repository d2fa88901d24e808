//! The real captured traces other stack-trace parsers test themselves on (`fixtures/traces/captured`: 117 traces of
//! error-stack-parser, stacktrace-parser and Sentry's TraceKit, from Chrome, Firefox, Safari, IE/Edge, Opera 9–25,
//! PhantomJS, React Native and node), read by our trace parser and compared, frame by frame, on file, line and
//! column with what those suites expect (the digits as printed; a line-only frame has no column).
//!
//! A frame counts as read when a frame of ours has the same file, line and column (or is line-only where the suite
//! expects no column), in order. A frame of ours with a position that no suite frame has is invented. Where the
//! suites expect something the engine does not mean, we follow the engine, and the case is listed in `EXCEPTIONS`
//! with the reason; everything else must be read completely, with nothing invented.

use std::path::Path;

use serde_json::Value;
use sourcemap_core::trace::stack::{parse_stack, PlainInput, Precision, StackFrame, StackLine};

/// Cases (by name) where we read the trace differently from the suite, on purpose.
const EXCEPTIONS: &[(&str, &str)] = &[
    (
        "chromium :: should truncate frames that are over 1kb",
        "Sentry cuts file names over 1 kB; the frame's URL is real, and read whole",
    ),
    (
        "chromium :: should correctly parse with data uris",
        "Sentry hides a `data:` URL's code and drops its position; the frame's position in that script is real",
    ),
    (
        "misc :: should parse SecurityError",
        "Sentry drops its own `sentryWrapped` frame from the end; it is a frame of the trace",
    ),
    (
        "react :: should correctly parse Invariant Violation errors and use framesToPop to drop the invariant frame",
        "Sentry drops React's invariant frame (`framesToPop`, application logic); it is a frame of the trace",
    ),
    (
        "react :: should drop invariant frame for production errors if framesToPop is present",
        "as above: `framesToPop`",
    ),
    (
        "inline :: should handle webpack eval stacks",
        "the eval origin has no position (`webpack:///…createClassProxy.js?`): the suite's parser reports that URL with \
         no line; we report a frame in eval'd code without a position, never a file named after the chain",
    ),
];

fn cases() -> Vec<Value> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/traces/captured/cases.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// (file, line, column) of a positioned call frame of ours, as printed.
fn ours(f: &StackFrame) -> Option<(String, u64, Option<u64>)> {
    let (line, column) = f.written?;
    let column = (f.precision == Precision::Column).then_some(u64::from(column));
    Some((f.file.clone()?, u64::from(line), column))
}

/// (file, line, column) of an expected frame with a line. Chakra's (Edge, IE) `eval code` is not a file: a position
/// inside eval'd code is no position in any file (the suites report it as a file named `eval code`; we read such a
/// frame as in eval'd code without a position).
fn expected(e: &Value) -> Option<(String, u64, Option<u64>)> {
    let file = e["file"].as_str().filter(|f| *f != "eval code")?;
    Some((file.to_string(), e["line"].as_u64()?, e["column"].as_u64()))
}

#[test]
fn captured_traces_of_other_parsers_suites_are_read_as_their_engines_mean() {
    let cases = cases();
    assert_eq!(cases.len(), 117);
    let (mut complete, mut frames, mut read, mut invented) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let stack = case["stack"].as_str().unwrap();
        let lines = parse_stack(stack, PlainInput::default());
        let mine: Vec<(String, u64, Option<u64>)> = lines
            .iter()
            .filter_map(|l| match l {
                StackLine::Frame(f) => ours(f),
                StackLine::Text(_) => None,
            })
            .collect();
        let wanted: Vec<(String, u64, Option<u64>)> = case["expected"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(expected)
            .collect();
        // Frames of ours beyond the suite's are invented only where the suite asserts every frame and their count.
        let all = case["expected"].as_array().unwrap();
        let every_frame_asserted = all.iter().all(|e| !e.is_null())
            && case["expected_count"].as_u64() == Some(all.len() as u64);
        // In order: each wanted frame is found after the previous one.
        let mut at = 0;
        let mut missed = Vec::new();
        for w in &wanted {
            match mine[at..].iter().position(|m| m == w) {
                Some(k) => at += k + 1,
                None => missed.push(w.clone()),
            }
        }
        let extra: Vec<_> = if every_frame_asserted {
            mine.iter()
                .filter(|m| !wanted.contains(m))
                .cloned()
                .collect()
        } else {
            Vec::new()
        };
        frames += wanted.len();
        read += wanted.len() - missed.len();
        invented += extra.len();
        if missed.is_empty() && extra.is_empty() {
            complete += 1;
        } else if !EXCEPTIONS.iter().any(|(n, _)| *n == name) {
            failures.push(format!(
                "{name} ({}):\n  missed {missed:?}\n  invented {extra:?}\n  ours {mine:?}",
                case["origin"].as_str().unwrap()
            ));
        }
    }
    eprintln!(
        "captured traces: {complete} of {} read completely, {read} of {frames} frames, {invented} invented",
        cases.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The positions each form means, in the index's convention (0-based line and column).
#[test]
fn each_form_means_its_engines_position() {
    let frame = |text: &str| -> StackFrame {
        match parse_stack(text, PlainInput::default()).remove(0) {
            StackLine::Frame(f) => f,
            StackLine::Text(t) => panic!("not a frame: {t}"),
        }
    };
    let at = |f: &StackFrame| f.generated.map(|p| (p.line, p.column));
    // JavaScriptCore's anonymous frame: 1-based line and column.
    let f = frame("index.android.bundle:212:4093");
    assert_eq!(
        (f.file.as_deref(), at(&f)),
        (Some("index.android.bundle"), Some((211, 4092)))
    );
    let f = frame("safari-web-extension://46434E60/scripts/content-script.js:29:56027");
    assert_eq!(at(&f), Some((28, 56026)));
    // Firefox's eval chain: the call site, line only.
    let f = frame("render@https://cdn.example.com/app.js line 310 > eval line 4 > eval:2:17");
    assert_eq!(
        (
            f.file.as_deref(),
            at(&f),
            f.precision,
            f.in_eval,
            f.function.as_deref()
        ),
        (
            Some("https://cdn.example.com/app.js"),
            Some((309, 0)),
            Precision::Line,
            true,
            Some("render")
        )
    );
    // V8's eval origins: the innermost position; none when the origin has none.
    let f = frame("    at eval (eval at https://cdn.example.com/app.min.js:1:9120)");
    assert_eq!(
        (f.file.as_deref(), at(&f), f.in_eval),
        (
            Some("https://cdn.example.com/app.min.js"),
            Some((0, 9119)),
            true
        )
    );
    let f = frame("    at eval (eval at <anonymous> (https://cdn.example.com/app.min.js:1:9120), <anonymous>:1:1)");
    assert_eq!(at(&f), Some((0, 9119)));
    let f = frame("    at Proxy (eval at wrap (webpack:///./src/proxy.js?), <anonymous>:7:2)");
    assert_eq!(
        (f.file.as_deref(), at(&f), f.native, f.in_eval),
        (None, None, false, true)
    );
    // Names with `@` and parentheses; URLs with `@`.
    let f = frame(r#"handlers["@click"]@https://example.com/ui.js:40:12"#);
    assert_eq!(
        (f.function.as_deref(), f.file.as_deref(), at(&f)),
        (
            Some(r#"handlers["@click"]"#),
            Some("https://example.com/ui.js"),
            Some((39, 11))
        )
    );
    let f = frame("fn@https://example.com/@scope/pkg/index.js:1:2");
    assert_eq!(
        f.file.as_deref(),
        Some("https://example.com/@scope/pkg/index.js")
    );
    // Safari's own extension form keeps its scheme.
    let f = frame("at safari-extension:(//3284871F/2665fee0/topee-content.js:3313:26)");
    assert_eq!(
        f.file.as_deref(),
        Some("safari-extension://3284871F/2665fee0/topee-content.js")
    );
    // `(async URL:L:C)`.
    let f = frame("    at Object.callback (async http://localhost:5000/app.js:25:7)");
    assert_eq!((f.is_async, at(&f)), (true, Some((24, 6))));
    // Line-only frames: line level, never an invented column.
    for text in [
        "save(3)@https://example.com/js/app.js:61",
        "@https://example.com/js/app.js:61",
        "    at https://example.com/js/app.js:61",
        "    at save (https://example.com/js/app.js:61)",
        "  Line 61 of linked script https://example.com/js/app.js",
    ] {
        let f = frame(text);
        assert_eq!(
            (f.file.as_deref(), at(&f), f.precision),
            (
                Some("https://example.com/js/app.js"),
                Some((60, 0)),
                Precision::Line
            ),
            "{text}"
        );
    }
    // Presto: columns 0-based; an inline script's line is no position in a file.
    let f = frame("called from line 61, column 4 in save(n) in https://example.com/js/app.js:");
    assert_eq!(
        (f.function.as_deref(), at(&f)),
        (Some("save"), Some((60, 4)))
    );
    let f = frame("Error thrown at line 12, column 0 in <anonymous function>(e) in https://example.com/js/app.js:");
    assert_eq!((f.function.as_deref(), at(&f)), (None, Some((11, 0))));
    let f =
        frame("  Line 9 of inline#2 script in https://example.com/index.html: In function save");
    assert_eq!((f.function.as_deref(), at(&f)), (Some("save"), None));
    // Not frames: prose, versions, hosts with ports.
    for text in [
        "see app.js:12:3 for details",
        "v1.2:3",
        "    at http://localhost:8080",
        "Listening on localhost:8080",
        "README.md:12:3",
    ] {
        assert!(
            matches!(
                parse_stack(text, PlainInput::default())[0],
                StackLine::Text(_)
            ),
            "{text}"
        );
    }
}
