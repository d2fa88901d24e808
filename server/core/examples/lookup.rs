// The README's library example, whole: open a source map and ask where a bundle position comes from.
// `cargo run -p sourcemap-core --example lookup` prints `../src/orders.js:5:24`. tests/docs_commands.rs checks that
// README.md shows this program as it is here, and runs it.

use sourcemap_core::{Bias, GeneratedPosition, SourceMapIndex};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The demo's minified bundle crashed at line 1, column 50 as node prints it (fixtures/demo/crash.txt).
    let demo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/demo");
    let index = SourceMapIndex::from_bytes(std::fs::read(demo.join("dist/app.min.js.map"))?)?;
    // The index counts as the format does: lines and columns from 0 (columns in UTF-16 code units).
    let crash = GeneratedPosition {
        line: 0,
        column: 49,
    };
    if let Some(original) = index.original_position(crash, Bias::GreatestLowerBound)? {
        // Printed as a stack trace prints it: line and column from 1.
        let source = original.source_url.unwrap_or("(no source)");
        println!("{source}:{}:{}", original.line + 1, original.column + 1);
    }
    Ok(())
}
