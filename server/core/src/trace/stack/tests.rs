use super::*;

/// Frame lines as node's `util.inspect` prints an error with own properties (` {`) and an AggregateError's
/// `[errors]` (`,`): read, the suffix kept after the frame (real node 20 output).
#[test]
fn node_inspect_suffixes() {
    for (line, file, suffix) in [
        (
            "    at node:internal/main/run_main_module:28:49 {",
            "node:internal/main/run_main_module",
            " {",
        ),
        (
            "    at async Lo (/app/dist/index.js:1:104364) {",
            "/app/dist/index.js",
            " {",
        ),
        (
            "        at agg (/tmp/inspect/t.js:4:50),",
            "/tmp/inspect/t.js",
            ",",
        ),
        ("      at inner (/tmp/t.js:1:30)", "/tmp/t.js", ""),
    ] {
        let StackLine::Frame(f) = parse_line(line, PlainInput::default()) else {
            panic!("{line}")
        };
        assert_eq!(f.file.as_deref(), Some(file), "{line}");
        assert_eq!(&f.raw[f.frame_span.end..], suffix, "{line}");
    }
    assert!(matches!(
        parse_line("  at least (see below) {", PlainInput::default()),
        StackLine::Text(_)
    ));
}

/// A frame inside free text is looked for near the line's end only ([`MAX_EMBEDDED_FRAME_BYTES`]): a minified
/// bundle's one long line, full of `at ` and `@`, is read once (documentLink on `babel.min.js` took 9 s), and a
/// frame a log prints after its prefix is still found.
#[test]
fn frames_in_long_lines_are_looked_for_near_their_end() {
    let noise = "var x=\"look at this\",y=b.c(d)+e@f.g;".repeat(40_000);
    match parse_line(
        &format!("{noise} at run (dist/app.js:1:2)"),
        PlainInput::default(),
    ) {
        StackLine::Frame(f) => assert_eq!(f.file.as_deref(), Some("dist/app.js")),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        parse_line(&noise, PlainInput::default()),
        StackLine::Text(_)
    ));
    let far = format!(
        "INFO at run (dist/app.js:1:2) {}",
        "x".repeat(MAX_EMBEDDED_FRAME_BYTES)
    );
    assert!(matches!(
        parse_line(&far, PlainInput::default()),
        StackLine::Text(_)
    ));
}

#[test]
fn debug_ids_in_reports() {
    let sentry = r#"{"debug_meta":{"images":[{"type":"sourcemap","code_file":"app:///main.js","debug_id":"85314830-023F-4CF1-A267-535F4E37BB17"}]}}"#;
    assert_eq!(debug_ids_in(sentry), ["85314830023f4cf1a267535f4e37bb17"]);
    assert_eq!(
        debug_ids_in("Error: x\n    at f (main.js:1:2)\ndebugId=85314830023f4cf1a267535f4e37bb17"),
        ["85314830023f4cf1a267535f4e37bb17"]
    );
    assert!(debug_ids_in("debugId=not-an-id at f (a.js:1:2)").is_empty());
    assert_eq!(
        normalize_debug_id("85314830-023F-4CF1-A267-535F4E37BB17"),
        "85314830023f4cf1a267535f4e37bb17"
    );
}

/// The keys found from their fifth letter are those found from their first: every spelling and case, at the text's
/// start, run together, and each key's ID in its key's order.
#[test]
fn debug_ids_are_found_wherever_a_key_starts() {
    let id = |n: u8| {
        format!(
            "{:032x}",
            u128::from(n) * 0x0101_0101_0101_0101_0101_0101_0101_0101
        )
    };
    let (a, b, c) = (id(1), id(2), id(3));
    let cases = [
        (format!("debug_id={a}"), vec![a.clone()]),
        (
            format!("DEBUG-ID: {a} debugId '{b}'"),
            vec![b.clone(), a.clone()],
        ),
        (
            format!("ddebug_id={a}gg debugdebugid={b}"),
            vec![a.clone(), b.clone()],
        ),
        (
            format!("debug-id={c} debug_id={a} debugid={b}"),
            vec![a.clone(), b.clone(), c.clone()],
        ),
        (format!("debuG_Id=\"{a}\" debug_id={a}"), vec![a.clone()]),
        ("debug debu g debug_id=".to_string(), vec![]),
    ];
    for (text, want) in cases {
        assert_eq!(debug_ids_in(&text), want, "{text}");
    }
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
    let f =
        frame("    at async run (http://localhost:8081/index.bundle?platform=ios&dev=true:12:3)");
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
        (FrameFormat::ReactNative, None, pos(1233, 56))
    );
    let f = frame("forEach@[native code]");
    assert!(f.native);
}

#[test]
fn react_native_frames() {
    // React Native's JavascriptException text: 1-based lines, 0-based columns (the module table).
    let f = frame("mapper@1:15664");
    assert_eq!(
        (f.format, f.generated),
        (FrameFormat::ReactNative, pos(0, 15664))
    );
    let f = frame("anonymous@1:131119");
    assert_eq!(f.generated, pos(0, 131119));
    assert!(frame("apply@-1").native);
    let f = frame("method_from_ram_bundle@199.js:18:13");
    assert_eq!(
        (f.format, f.file.as_deref(), f.generated),
        (FrameFormat::ReactNative, Some("199.js"), pos(17, 13))
    );
    let f = frame("method_from_segment@seg-1.js:9:18");
    assert_eq!(f.generated, pos(8, 18));
}

#[test]
fn crashlytics_frames() {
    let line = "at .mapper(address at index.android.bundle:1:15664)";
    let f = frame(line);
    assert_eq!(
        (f.format, f.function.as_deref(), f.generated),
        (FrameFormat::HermesBytecode, Some("mapper"), pos(0, 15664))
    );
    assert_eq!(
        &line[f.location_span.clone().unwrap()],
        "index.android.bundle:1:15664"
    );
    assert_eq!(&line[f.function_span.clone().unwrap()], "mapper");
    let line = "1  ???  0x0 t + 1066 (main.jsbundle:1066:119:1066)";
    let f = frame(line);
    assert_eq!(
        (
            f.format,
            f.function.as_deref(),
            f.file.as_deref(),
            f.generated
        ),
        (
            FrameFormat::CrashlyticsIos,
            Some("t"),
            Some("main.jsbundle"),
            pos(1065, 118)
        )
    );
    assert_eq!(
        &line[f.location_span.clone().unwrap()],
        "main.jsbundle:1066:119"
    );
    assert!(frame("2  ???  0x0 apply + 0 ((native):0:0)").native);
}

#[test]
fn frames_behind_prefixes() {
    let bare = frame("    at e (dist/app.min.js:1:50)");
    for line in [
        "2026-12-01T07:00:00.123456789Z stderr F     at e (dist/app.min.js:1:50)",
        "2026-12-01T07:00:00.123456789Z     at e (dist/app.min.js:1:50)",
        "[2026-12-01 07:00:00.123]     at e (dist/app.min.js:1:50)",
        "12-01 07:00:00.123  4321  4377 E ReactNativeJS:     at e (dist/app.min.js:1:50)",
        "E/ReactNativeJS( 4321):     at e (dist/app.min.js:1:50)",
        ">     at e (dist/app.min.js:1:50)",
        "> > at e (dist/app.min.js:1:50)",
        "2026-12-01 07:00:00,123 ERROR [main] c.e.App - at e (dist/app.min.js:1:50)",
        "ERROR | at e (dist/app.min.js:1:50)",
    ] {
        let f = frame(line);
        assert_eq!(
            (f.function.as_deref(), f.file.as_deref(), f.generated),
            (Some("e"), Some("dist/app.min.js"), bare.generated),
            "{line}"
        );
        assert_eq!(
            &line[f.location_span.clone().unwrap()],
            "dist/app.min.js:1:50",
            "{line}"
        );
        assert!(
            line[f.frame_span.clone()]
                .trim_start()
                .starts_with("at e ("),
            "{line}"
        );
    }
    // logcat with React Native's frames.
    let f = frame("12-01 07:00:00.123  4321  4377 E AndroidRuntime: mapper@1:15664");
    assert_eq!(
        (f.format, f.generated),
        (FrameFormat::ReactNative, pos(0, 15664))
    );
    let f = frame("12-01 07:00:00.123  4321  4377 E ReactNativeJS:     at mapper (address at index.android.bundle:1:15664)");
    assert_eq!(
        (f.format, f.generated),
        (FrameFormat::HermesBytecode, pos(0, 15664))
    );
    let f = frame("fn@http://localhost/app.js:1:3 from the log");
    assert_eq!(f.generated, pos(0, 2));
    let f = frame("INFO reload: render@http://localhost:8081/index.bundle:4:5");
    assert_eq!(
        (f.function.as_deref(), f.generated),
        (Some("render"), pos(3, 4))
    );
}

#[test]
fn lines_that_look_like_frames_and_are_not() {
    for text in [
        "12-01 07:00:00.123",
        "12-01 07:00:00.123  4321  4377 I ReactNativeJS: Running \"App\" with {\"rootTag\":1}",
        "PID 4321",
        "listening on v1.2.3:4",
        "connected to postgres@10.0.0.1:5432",
        "see http://localhost:8081/status:200",
        "2026-12-01T07:00:00Z stdout F 10 20",
        "E/AndroidRuntime( 4321): 12 34",
        "look at this (tea:1:2)",
        "meet me at 10:30",
    ] {
        assert_eq!(
            parse_line(text, PlainInput::default()),
            StackLine::Text(text.to_string()),
            "{text}"
        );
    }
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

/// Lines of `fixtures/traces/coloured` (node, Jest and Vitest under `FORCE_COLOR=1` in a pty) as they came.
#[test]
fn coloured_frames_and_line_ends() {
    let cases = [
            (
                "    at p \x1b[90m(/app/\x1b[39mdist/app.min.js:2:526\x1b[90m)\x1b[39m\r",
                "    at p (/app/dist/app.min.js:2:526)\x1b[90m\x1b[39m\x1b[90m\x1b[39m\r",
                Some("p"),
                "/app/dist/app.min.js",
            ),
            (
                "\x1b[2m      \x1b[2mat p (\x1b[22m\x1b[2mdist/app.min.js\x1b[2m:2:526)\x1b[22m\x1b[2m\x1b[22m\r",
                "\x1b[2m      at p (dist/app.min.js:2:526)\x1b[2m\x1b[22m\x1b[2m\x1b[2m\x1b[22m\x1b[2m\x1b[22m\r",
                Some("p"),
                "dist/app.min.js",
            ),
            (
                "\x1b[90m \x1b[2m❯\x1b[22m p dist/app.min.js:\x1b[2m2:526\x1b[22m\x1b[39m\r",
                "\x1b[90m ❯ p dist/app.min.js:2:526\x1b[2m\x1b[22m\x1b[2m\x1b[22m\x1b[39m\r",
                Some("p"),
                "dist/app.min.js",
            ),
        ];
    for (line, raw, function, file) in cases {
        let StackLine::Frame(f) = parse_line(line, PlainInput::default()) else {
            panic!("not a frame: {line:?}")
        };
        assert_eq!(
            (f.function.as_deref(), f.file.as_deref(), f.generated),
            (function, Some(file), pos(1, 525)),
            "{line:?}"
        );
        // The frame's text without its escape sequences, moved just after it; the line as it came kept.
        assert_eq!(f.raw, raw);
        assert_eq!(f.as_written.as_deref(), Some(line));
        assert_eq!(
            &f.raw[f.location_span.clone().unwrap()],
            format!("{file}:2:526")
        );
        // Where the location is in the line as it came (a document link's range).
        let (written, at) = f.as_written_span(f.location_span.clone().unwrap());
        let stripped = crate::trace::ansi::strip(&written[at]).map(|s| s.text);
        assert_eq!(stripped.as_deref(), Some(format!("{file}:2:526").as_str()));
    }
    // A frame with no escape sequences inside keeps the line as it came, `\r` included.
    let StackLine::Frame(f) = parse_line(
        "\x1b[90m    at Module._compile (node:internal/modules/cjs/loader:1521:14)\x1b[39m\r",
        PlainInput::default(),
    ) else {
        panic!()
    };
    assert_eq!(
        (f.as_written, f.raw.as_str()),
        (
            None,
            "\x1b[90m    at Module._compile (node:internal/modules/cjs/loader:1521:14)\x1b[39m\r"
        )
    );
    // Text lines come back as they came; Vitest's file line is not a frame.
    for line in [
            "\x1b[31m\x1b[1mTypeError\x1b[22m: Cannot read properties of null (reading 'map')\x1b[39m\r",
            " \x1b[31m❯\x1b[39m tests/report.test.cjs \x1b[2m(\x1b[22m\x1b[2m1 test\x1b[22m\x1b[2m | \x1b[22m\x1b[31m1 failed\x1b[39m\x1b[2m)\x1b[22m\x1b[32m 4\x1b[2mms\x1b[22m\x1b[39m\r",
        ] {
            assert_eq!(
                parse_line(line, PlainInput::default()),
                StackLine::Text(line.to_string())
            );
        }
    // CRLF: every line keeps its `\r`, a final newline makes no empty line.
    let lines: Vec<&str> = lines_of("a\r\n\r\nb\n").collect();
    assert_eq!(lines, ["a\r", "\r", "b"]);
    assert_eq!(lines_of("").count(), 0);
}

/// Opera's lines as error-stack-parser captured them (`fixtures/traces/captured/upstream`).
#[test]
fn opera_9_64_elided_lines_and_opera_11_creation_site() {
    let upstream = include_str!(
        "../../../../../fixtures/traces/captured/upstream/error-stack-parser-captured-errors.js"
    );
    let elided = "  ...  Line 27 of linked script http://path/to/file.js";
    assert!(upstream.contains(elided));
    let f = frame(elided);
    assert_eq!(
        (f.format, f.file.as_deref(), f.generated, f.precision),
        (
            FrameFormat::Presto,
            Some("http://path/to/file.js"),
            pos(26, 0),
            Precision::Line
        )
    );
    let created = "Error created at <anonymous function>@http://path/to/file.js:15";
    assert!(upstream.contains(created));
    // Not a frame (error-stack-parser's `parseOpera11` skips it): the line comes back as text.
    assert_eq!(
        parse_line(created, PlainInput::default()),
        StackLine::Text(created.to_string())
    );
    assert!(frame("<anonymous function>@http://path/to/file.js:15")
        .file
        .is_some());
}

/// A parse asked to stop gives up before its next line, and one never asked gives `parse_stack`'s lines.
#[test]
fn a_parse_stops_when_asked() {
    let text = "Error\n    at f (a.js:1:2)\n    at g (b.js:3:4)\n";
    assert_eq!(
        parse_stack_until(text, PlainInput::default(), &|| false),
        Some(parse_stack(text, PlainInput::default()))
    );
    let asked = std::cell::Cell::new(0);
    let stopped = parse_stack_until(text, PlainInput::default(), &|| {
        asked.set(asked.get() + 1);
        asked.get() > 2
    });
    assert_eq!(stopped, None);
    assert_eq!(asked.get(), 3);
}
