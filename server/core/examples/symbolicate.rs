// The crate README's second job, whole: a stack trace as printed becomes original frames, named by the innermost
// original function around each (from the bundle's and the sources' code). `cargo run -p sourcemap-core --example
// symbolicate` prints the demo's crash with `../src/orders.js:5:24` and its function. CI runs it.

use sourcemap_core::session::files::FilesPlace;
use sourcemap_core::session::SessionOptions;
use sourcemap_core::trace::stack::{parse_stack, PlainInput};
use sourcemap_core::trace::symbolicate::{render_text, TextOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/demo");
    // Any form the reader knows: V8, JSC/Safari, Firefox, Hermes, React Native, Metro's JSON, `LINE COLUMN` lines.
    let trace = std::fs::read_to_string(demo.join("crash.txt"))?;
    let lines = parse_stack(&trace, PlainInput::default());
    // Where the files are: no map given (`KnownMap::open` gives one), bundles found by the names the frames print
    // under the demo's folder, each leading to its map by its `sourceMappingURL` comment. Every map is checked
    // against its bundle before it answers; node's own frames stay as printed.
    let mut place = FilesPlace::new(Vec::new(), demo);
    let answer = place.symbolicate(lines, SessionOptions::default());
    print!("{}", render_text(&answer.lines, TextOptions::default()));
    // What the user should hear about: a map that could not be read, a search that stopped early.
    for note in place.take_notes() {
        eprintln!("{note}");
    }
    Ok(())
}
