use super::*;

#[test]
fn json_lines_keep_their_bytes_but_the_frames() {
    let text = concat!(
        r#"{"level":50,"time":1,"err":{"type":"TypeError","message":"x","stack":"TypeError: x\n    at e (dist/app.min.js:1:50)\n    at Array.map (<anonymous>)"},"msg":"x"}"#,
        "\n",
        r#"{"log":"    at e (dist/app.min.js:1:50)\n","stream":"stderr","time":"2026-12-01T07:00:00.1Z"}"#,
        "\n",
        "plain    at e (dist/app.min.js:1:50)\n",
    );
    let doc = TraceDocument::parse(text, PlainInput::default());
    let frames = doc
        .lines
        .iter()
        .filter(|l| matches!(l, StackLine::Frame(f) if !f.native))
        .count();
    assert_eq!(frames, 3);
    // Unchanged lines come back byte for byte.
    let out: Vec<SymbolicatedLine> = doc
        .lines
        .iter()
        .map(|l| match l {
            StackLine::Text(t) => SymbolicatedLine::Text(t.clone()),
            StackLine::Frame(f) => {
                SymbolicatedLine::Frame(crate::trace::symbolicate::SymbolicatedFrame {
                    frame: f.clone(),
                    map: None,
                    original: None,
                    ignored: false,
                    unresolved: None,
                })
            }
        })
        .collect();
    assert_eq!(doc.render(&out, TextOptions::default()), text);
}

#[test]
fn keys_are_not_searched() {
    let text = r#"{"at e (dist/app.min.js:1:50)": 1}"#;
    let doc = TraceDocument::parse(text, PlainInput::default());
    assert!(doc.lines.is_empty());
}

/// What an event says about its files and its release: Sentry's `debug_meta` and context lines (lines before
/// and after placed around `lineno`), Bugsnag's `code` and `app.version`.
#[test]
fn reported_files_and_releases() {
    let sentry = r#"{"release":"shop@1.0.0","dist":"1","debug_meta":{"images":[{"type":"sourcemap","code_file":"app:///dist/app.js","debug_id":"85314830-023F-4CF1-A267-535F4E37BB17"}]},"exception":{"values":[{"stacktrace":{"frames":[
            {"filename":"app:///dist/app.js","lineno":3,"colno":5,"pre_context":["one","two"],"context_line":"three","post_context":["four"]},
            {"filename":"node:internal/x","lineno":1,"colno":1}]}}]}}"#;
    let doc = TraceDocument::parse(sentry, PlainInput::default());
    let files = doc.reported_files();
    let app = &files["app:///dist/app.js"];
    assert_eq!(
        app.debug_id.as_deref(),
        Some("85314830023f4cf1a267535f4e37bb17")
    );
    let lines: Vec<(u32, &str)> = app.lines.iter().map(|(l, t)| (*l, &**t)).collect();
    assert_eq!(lines, [(0, "one"), (1, "two"), (2, "three"), (3, "four")]);
    assert!(files["node:internal/x"].lines.is_empty());
    assert_eq!(
        doc.release(),
        Some(Release {
            name: "shop@1.0.0".into(),
            dist: Some("1".into())
        })
    );
    let bugsnag = r#"{"events":[{"app":{"version":"2.0.0"},"exceptions":[{"stacktrace":[{"file":"dist/app.js","lineNumber":2,"columnNumber":3,"method":"f","code":{"1":"a","2":"b"}}]}]}]}"#;
    let doc = TraceDocument::parse(bugsnag, PlainInput::default());
    let lines = &doc.reported_files()["dist/app.js"].lines;
    assert!(lines.contains(&(0, "a".into())) && lines.contains(&(1, "b".into())));
    assert_eq!(doc.release().map(|r| r.name), Some("2.0.0".into()));
    assert_eq!(
        TraceDocument::parse("Error\n    at f (a.js:1:2)\n", PlainInput::default()).release(),
        None
    );
}

/// `text` read as an event of the usual shape, as far as its answer key needs.
fn keyed_event(text: &str) -> EventText {
    match TraceDocument::read_keyed(text, PlainInput::default()) {
        Keyed::Event(event) => event,
        Keyed::Document(_) => panic!("not an event of the usual shape: {text}"),
    }
}

/// An event's answer key holds what its answers are made of, and nothing else: events that differ only in their
/// own members (id, time, breadcrumbs, the stack's other members) share it; one that differs in its release,
/// dist, debug images, a frame, a frame's exception or what the caller adds does not.
#[test]
fn an_events_answer_key_holds_what_its_answers_are_made_of() {
    let event = |top: &str, frames: &str| {
        format!(
            r#"{{{top}"exception":{{"values":[{{"type":"E","stacktrace":{{"frames":[{frames}]}}}}]}}}}"#
        )
    };
    let frames =
        r#"{"filename":"a.js","lineno":1,"colno":5},{"filename":"a.js","lineno":2,"colno":3}"#;
    let key = |text: &str, more: &str| keyed_event(text).answer_key(&[more]);
    let first = key(&event(r#""release":"r","event_id":"1","#, frames), "");
    for same in [
        event(r#""release":"r","event_id":"2","breadcrumbs":[1],"#, frames),
        event(r#""event_id":"3","release":"r","#, frames),
    ] {
        assert_eq!(key(&same, ""), first, "{same}");
    }
    let two_exceptions = r#"{"release":"r","exception":{"values":[{"stacktrace":{"frames":[{"filename":"a.js","lineno":1,"colno":5}]}},{"stacktrace":{"frames":[{"filename":"a.js","lineno":2,"colno":3}]}}]}}"#;
    for (other, more) in [
        (event(r#""release":"s","#, frames), ""),
        (event(r#""release":"r","dist":"1","#, frames), ""),
        (
            event(
                r#""release":"r","debug_meta":{"images":[{"type":"sourcemap","code_file":"a.js","debug_id":"x"}]},"#,
                frames,
            ),
            "",
        ),
        (
            event(
                r#""release":"r","#,
                &frames.replace("\"colno\":3", "\"colno\":4"),
            ),
            "",
        ),
        (event(r#""release":"r","#, frames), "a debug ID"),
        (two_exceptions.to_string(), ""),
    ] {
        assert_ne!(key(&other, more), first, "{other} {more}");
    }
}

/// An event of the usual shape is written back in its own text (`event_json`); any event can be written back
/// from its whole `Value`. Both give the same JSON, whatever each frame became; and what the answers wrote into
/// one event, spliced into another with its key, is that event's own rendering.
#[test]
fn both_ways_of_writing_an_event_give_the_same_json() {
    use crate::trace::symbolicate::{OriginalFrame, SymbolicatedFrame};
    let events = [
            r#"{"release":"r","exception":{"values":[{"type":"E","stacktrace":{"frames":[{"filename":"app:///dist/a.js","lineno":1,"colno":5,"function":"x","context_line":"min","pre_context":["p"],"data":{"k":1}},{"abs_path":"/srv/dist/a.js","lineno":2,"colno":3},{"filename":"node:internal/x","lineno":1,"colno":1}],"frames_omitted":null}},{"stacktrace":{"frames":[{"filename":"b.js","lineno":1,"colno":1,"data":"odd"}]},"raw_stacktrace":{"frames":[]}},{"type":"NoStack"}]},"extra":{"é":"\u00e9"}}"#,
            r#"{"exception":{"values":[{"stacktrace":{"frames":[{"filename":"app:///dist/a.js","lineno":1,"colno":5}]}}]}}"#,
            // Pretty-printed (a file given to `symbolicate`): written back on one line all the same.
            "{\n  \"exception\": {\"values\": [\n    {\"stacktrace\": {\"frames\": [{\"filename\": \"app:///dist/a.js\", \"lineno\": 1, \"colno\": 5}]}}\n  ]}\n}",
            r#"{"apiKey":"k","events":[{"app":{"version":"2"},"exceptions":[{"stacktrace":[{"file":"dist/a.js","lineNumber":1,"columnNumber":5,"method":"x","code":{"1":"min"}},{"file":"dist/a.js","lineNumber":9,"columnNumber":1}]}]}]}"#,
        ];
    for text in events {
        let doc = TraceDocument::parse(text, PlainInput::default());
        assert!(matches!(doc.shape, Shape::EventText(_)), "{text}");
        // Frames answered in turn: mapped (a name, none), refused as another build, left as they were.
        let out: Vec<SymbolicatedLine> = doc
            .lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let StackLine::Frame(f) = l else { panic!() };
                let original = (i % 4 < 2).then(|| OriginalFrame {
                    source_id: crate::map::index::SourceId(0),
                    source: Some("../src/a.ts".into()),
                    line: 9,
                    column: i as u32,
                    name: None,
                    function: (i % 4 == 0).then(|| "named".into()),
                    function_source: None,
                    function_line: None,
                    anonymous: false,
                    path: None,
                });
                SymbolicatedLine::Frame(SymbolicatedFrame {
                    frame: f.clone(),
                    map: Some(0),
                    original,
                    ignored: false,
                    unresolved: (i % 4 == 2).then(|| format!("dist/a.js: {ANOTHER_BUILD}")),
                })
            })
            .collect();
        let source = Arc::new(LinedText::new(
            "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\nl11\n".into(),
        ));
        let read = |_: &SymbolicatedFrame| Some(source.clone());
        for (source_text, compact) in [
            (None, true),
            (Some(&read as SourceText), true),
            (Some(&read as SourceText), false),
        ] {
            let options = EventOptions {
                source_text,
                compact,
                kept: None,
            };
            let spliced = doc.render_with(&out, TextOptions::default(), &options);
            // The same crash again (a member of its own first): the first one's written frames, spliced into its
            // text, are its own rendering, byte for byte.
            let again = format!("{{\"seen_again\":1,{}", &text[1..]);
            let (first, written) = TraceDocument::parse(text, PlainInput::default())
                .into_rendered_keeping(&out, TextOptions::default(), &options);
            assert_eq!(first, spliced);
            let read = keyed_event(&again);
            assert_eq!(read.answer_key(&[]), keyed_event(text).answer_key(&[]));
            assert_eq!(
                read.rendered(&written.unwrap(), &options),
                TraceDocument::parse(&again, PlainInput::default()).render_with(
                    &out,
                    TextOptions::default(),
                    &options
                ),
                "{again}"
            );
            let value: Value = serde_json::from_str(text).unwrap();
            let (kind, frames) = event_frames(&value).unwrap();
            let whole = render_event(kind, value, &frames, &out, &options);
            assert_eq!(spliced.lines().count() == 1, compact, "{spliced}");
            assert_eq!(
                serde_json::from_str::<Value>(&spliced).unwrap(),
                serde_json::from_str::<Value>(&whole).unwrap(),
                "{spliced}\n{whole}"
            );
        }
    }
}

#[test]
fn events() {
    let sentry = r#"{"exception":{"values":[{"type":"TypeError","stacktrace":{"frames":[
            {"abs_path":"app:///main.js","filename":"main.js","lineno":1,"colno":50,"function":"e"}]}}]}}"#;
    let doc = TraceDocument::parse(sentry, PlainInput::default());
    assert_eq!(doc.event_kind(), Some(EventKind::Sentry));
    let StackLine::Frame(f) = &doc.lines[0] else {
        panic!()
    };
    assert_eq!(
        (f.file.as_deref(), f.generated),
        (
            Some("app:///main.js"),
            Some(GeneratedPosition {
                line: 0,
                column: 49
            })
        )
    );
    let bugsnag = r#"{"apiKey":"x","events":[{"exceptions":[{"errorClass":"TypeError","stacktrace":[
            {"file":"dist/app.min.js","lineNumber":1,"columnNumber":50,"method":"e"}]}]}]}"#;
    let doc = TraceDocument::parse(bugsnag, PlainInput::default());
    assert_eq!(doc.event_kind(), Some(EventKind::Bugsnag));
    let StackLine::Frame(f) = &doc.lines[0] else {
        panic!()
    };
    assert_eq!(
        (f.function.as_deref(), f.generated),
        (
            Some("e"),
            Some(GeneratedPosition {
                line: 0,
                column: 49
            })
        )
    );
}
