// The crate README's second job, whole: a stack trace as printed becomes original frames, named by the innermost
// original function around each (from the bundle's and the sources' code). `cargo run -p sourcemap-core --example
// symbolicate` prints the demo's crash with `../src/orders.js:5:24` and its function. CI runs it.

use sourcemap_core::trace::function_name::ScopeCache;
use sourcemap_core::trace::stack::{parse_stack, PlainInput};
use sourcemap_core::trace::symbolicate::{render_text, symbolicate, TextOptions};
use sourcemap_core::SourceMapIndex;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/demo");
    let index = SourceMapIndex::from_bytes(std::fs::read(demo.join("dist/app.min.js.map"))?)?;
    let bundle = std::fs::read_to_string(demo.join("dist/app.min.js"))?;
    // Any form the reader knows: V8, JSC/Safari, Firefox, Hermes, React Native, Metro's JSON, `LINE COLUMN` lines.
    let trace = std::fs::read_to_string(demo.join("crash.txt"))?;
    let lines = parse_stack(&trace, PlainInput::default());
    // Function names come from code: the bundle's text (map 0 here) and the sources' `sourcesContent`.
    let code = ScopeCache::new(
        |_map| Some(("app.min.js".to_string(), bundle.clone())),
        |_map, source| {
            let name = index
                .source(source)
                .url
                .as_deref()
                .unwrap_or("source.js")
                .to_string();
            Some((name, index.source_content(source)?.into_owned()))
        },
    );
    // Which map answers a frame: here the bundle's frames go to its map and every other frame (node's own files)
    // stays as printed. A frame sent to a map that is not its file's would get a confident wrong answer.
    let map_for = |frame: &sourcemap_core::trace::stack::StackFrame| {
        let ours = frame
            .file
            .as_deref()
            .is_some_and(|f| f.ends_with("dist/app.min.js"));
        Ok(ours.then_some((0, &index)))
    };
    let frames = symbolicate(&lines, map_for, |_, _| None, &code);
    print!("{}", render_text(&frames, TextOptions::default()));
    Ok(())
}
