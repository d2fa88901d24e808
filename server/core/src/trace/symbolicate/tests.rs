use super::*;
use crate::trace::stack::{parse_stack, PlainInput};

/// A function map's name gets its function's line from the original code only where the code's innermost
/// function there is called so.
#[test]
fn function_map_names_take_their_line_from_code_that_agrees() {
    use crate::trace::js_scopes::{Dialect, FunctionScopes};
    use std::sync::Arc;
    struct Code(Arc<FunctionScopes>);
    impl CodeScopes for Code {
        fn generated(&self, _: usize, _: TextPosition) -> Option<Arc<FunctionScopes>> {
            None
        }
        fn original(&self, _: usize, _: SourceId, _: TextPosition) -> Option<Arc<FunctionScopes>> {
            Some(self.0.clone())
        }
    }
    let text = "const a = 1;\n\nfunction objectToString(value) {\n  return String(value);\n}\n";
    let code = Code(Arc::new(
        FunctionScopes::parse(text, "o.js", Dialect::Original).unwrap(),
    ));
    let frame = |function: &str, source: FunctionNameSource| {
        SymbolicatedLine::Frame(SymbolicatedFrame {
            frame: crate::profile::sites::Site {
                url: None,
                position: GeneratedPosition { line: 0, column: 9 },
                bytecode: true,
                function: None,
            }
            .stack_frame(),
            map: Some(0),
            original: Some(OriginalFrame {
                source_id: SourceId(0),
                source: Some("o.js".into()),
                line: 3,
                column: 2,
                name: None,
                function: Some(function.into()),
                function_source: Some(source),
                function_line: None,
                anonymous: false,
                path: None,
            }),
            ignored: false,
            unresolved: None,
        })
    };
    let mut out = vec![
        frame("objectToString", FunctionNameSource::FunctionMap),
        frame("Wrapper#objectToString", FunctionNameSource::FunctionMap),
        frame("somethingElse", FunctionNameSource::FunctionMap),
        frame("objectToString", FunctionNameSource::Frame),
    ];
    assert_eq!(
        function_line_sources(&out),
        [(0, SourceId(0), TextPosition { line: 3, column: 2 })]
    );
    add_function_lines(&mut out, &code);
    let lines: Vec<Option<u32>> = out
        .iter()
        .map(|l| match l {
            SymbolicatedLine::Frame(f) => f.original.as_ref().unwrap().function_line,
            SymbolicatedLine::Text(_) => None,
        })
        .collect();
    assert_eq!(lines, [Some(2), Some(2), None, None]);
}

fn demo_map() -> SourceMapIndex {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/demo/dist/app.min.js.map"
    );
    SourceMapIndex::from_bytes(std::fs::read(path).unwrap()).unwrap()
}

fn demo_trace() -> Vec<StackLine> {
    let trace = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/demo/crash.txt"
    ))
    .unwrap();
    parse_stack(&trace, PlainInput::default())
}

fn run(
    index: &SourceMapIndex,
    lines: &[StackLine],
    code: &dyn CodeScopes,
) -> Vec<SymbolicatedLine> {
    symbolicate(
        lines,
        |f| {
            if f.file.as_deref().is_some_and(|u| u.ends_with("app.min.js")) {
                FrameMap::Map(0, index)
            } else {
                FrameMap::NoMap
            }
        },
        |_, _| None,
        code,
    )
}

fn function_at(
    out: &[SymbolicatedLine],
    column: &str,
) -> (Option<String>, Option<FunctionNameSource>) {
    out.iter()
        .find_map(|l| match l {
            SymbolicatedLine::Frame(f) if f.frame.raw.contains(column) => f
                .original
                .as_ref()
                .map(|o| (o.function.clone(), o.function_source)),
            _ => None,
        })
        .unwrap()
}

#[test]
fn the_demo_crash_symbolicates_with_original_function_names() {
    let index = demo_map();
    let bundle = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/demo/dist/app.min.js"
    );
    let code = crate::trace::function_name::ScopeCache::new(
        |_| Some(("app.min.js".into(), std::fs::read_to_string(bundle).ok()?)),
        |_, source| {
            Some((
                "src.js".into(),
                demo_map().source_content(source)?.into_owned(),
            ))
        },
    );
    let out = run(&index, &demo_trace(), &code);
    let text = render_text(&out, TextOptions::default());
    // The mapping at the crash is `map` (the callee); the frame is in `parseOrder` (minified `e`).
    assert!(
        text.contains("    at parseOrder (../src/orders.js:5:24)"),
        "{text}"
    );
    assert!(
        text.contains("    at main (../src/index.js:12:22)"),
        "{text}"
    );
    assert!(text.contains("TypeError: Cannot read properties of null (reading 'map')"));
    assert!(
        text.contains("    at Array.map (<anonymous>)"),
        "native frames pass through: {text}"
    );
    assert!(
        text.contains("    at Module._compile (node:internal/modules/cjs/loader"),
        "{text}"
    );
    assert_eq!(
        function_at(&out, "1:311"),
        (
            Some("main".into()),
            Some(FunctionNameSource::OriginalScopes)
        )
    );
    // The module's top-level code runs in esbuild's IIFE: that arrow is not an original function (its first
    // segment is not the frame's source's), so the original source decides: top level, no function.
    assert_eq!(
        function_at(&out, "1:371"),
        (None, Some(FunctionNameSource::OriginalScopes))
    );
    // Without the original sources, the bundle's own scopes name it through the map (`d` → `main`).
    let generated_only = crate::trace::function_name::ScopeCache::new(
        |_| Some(("app.min.js".into(), std::fs::read_to_string(bundle).ok()?)),
        |_, _| None::<(String, String)>,
    );
    let out = run(&index, &demo_trace(), &generated_only);
    assert_eq!(
        function_at(&out, "1:311"),
        (
            Some("main".into()),
            Some(FunctionNameSource::GeneratedScopes)
        )
    );
    assert_eq!(
        function_at(&out, "1:50"),
        (
            Some("parseOrder".into()),
            Some(FunctionNameSource::GeneratedScopes)
        )
    );
}

/// Without code to name it, the frame's printed name would be the only name: `e`, the bundle's minified name,
/// which the source does not spell, is not shown as an original name (`spelled_names`).
#[test]
fn without_code_a_minified_printed_name_is_not_shown() {
    let index = demo_map();
    let out = run(&index, &demo_trace(), &NoCode);
    let SymbolicatedLine::Frame(f) = out
        .iter()
        .find(|l| matches!(l, SymbolicatedLine::Frame(f) if f.frame.raw.contains("1:50")))
        .unwrap()
    else {
        unreachable!()
    };
    let o = f.original.as_ref().unwrap();
    assert_eq!((o.function.as_deref(), o.function_source), (None, None));
}

#[test]
fn original_names_keep_the_frames_v8_shape() {
    for (written, name, shown) in [
        (Some("Object.positive"), "positive", "Object.positive"),
        (
            Some("Object.nonEmpty"),
            "checkNonEmpty",
            "Object.checkNonEmpty [as nonEmpty]",
        ),
        (
            Some("Function.Fg [as mapValues]"),
            "mapValues",
            "Function.mapValues",
        ),
        (
            Some("Object.a [as nonEmpty]"),
            "checkNonEmpty",
            "Object.checkNonEmpty [as nonEmpty]",
        ),
        (
            Some("e.value [as value]"),
            "LazyWrapper.lazyValue",
            "LazyWrapper.lazyValue [as value]",
        ),
        (
            Some("Ke.traverse"),
            "Object3D.traverse",
            "Object3D.traverse",
        ),
        // A receiver that may be a minified class is left out.
        (Some("t.total"), "total", "total"),
        (Some("e [as sortBy]"), "sortBy", "sortBy"),
        (None, "main", "main"),
    ] {
        assert_eq!(in_v8_shape(written, name), shown, "{written:?}");
    }
}

#[test]
fn collapse_ignored_runs() {
    let frame = |line: &str, ignored| {
        SymbolicatedLine::Frame(SymbolicatedFrame {
            frame: match crate::trace::stack::parse_line(line, PlainInput::default()) {
                StackLine::Frame(f) => f,
                _ => unreachable!(),
            },
            map: None,
            original: None,
            ignored,
            unresolved: None,
        })
    };
    let options = TextOptions {
        collapse_ignored: true,
        ..TextOptions::default()
    };
    let f = |ignored| frame("    at x (a.js:1:1)", ignored);
    let lines = vec![
        f(false),
        f(true),
        f(true),
        SymbolicatedLine::Text("end".into()),
    ];
    assert_eq!(
        render_text(&lines, options),
        "    at x (a.js:1:1)\n    ... 2 ignore-listed frames\nend\n"
    );
    // In CRLF input the folded line ends as the frames' lines did.
    let crlf = |ignored| frame("    at x (a.js:1:1)\r", ignored);
    assert_eq!(
        render_text(&[crlf(false), crlf(true), crlf(true)], options),
        "    at x (a.js:1:1)\r\n    ... 2 ignore-listed frames\r\n"
    );
}
