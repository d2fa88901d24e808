// The crate README's third job, whole: a CPU profile's frames named by original function, and the time spent in
// each. `cargo run -p sourcemap-core --example profile` prints the three original functions of a recorded V8 profile
// of an esbuild bundle where most time was spent (fixtures/profiles). CI runs it.

use std::collections::HashMap;

use sourcemap_core::profile::sites::Sites;
use sourcemap_core::trace::function_name::ScopeCache;
use sourcemap_core::trace::symbolicate::symbolicate_frame_with;
use sourcemap_core::SourceMapIndex;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/profiles");
    let index = SourceMapIndex::from_bytes(std::fs::read(
        fixtures.join("dist/esbuild/inventory.js.map"),
    )?)?;
    // Hermes (`hermes -sample-profiling`), V8 `.cpuprofile` and Chrome traces are read alike.
    let profile = sourcemap_core::profile::read(&std::fs::read(
        fixtures.join("recordings/v8/esbuild.inventory.cpuprofile"),
    )?)?;
    // Function names come from code, as for a trace: the bundle's text and the sources' `sourcesContent`.
    let bundle = std::fs::read_to_string(fixtures.join("dist/esbuild/inventory.js"))?;
    let code = ScopeCache::new(
        |_map| Some(("inventory.js".to_string(), bundle.clone())),
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
    // A profile repeats a function's position in every call path: each distinct place is looked up once.
    let sites = Sites::of(&profile);
    let named: Vec<_> = sites
        .sites
        .iter()
        .map(|site| {
            // Only the bundle's own frames go to its map (node's files and the engine's frames stay unnamed).
            let ours = site
                .url
                .as_deref()
                .is_some_and(|u| u.ends_with("/inventory.js"));
            ours.then(|| symbolicate_frame_with(&index, 0, &site.stack_frame(), &code).original)
                .flatten()
        })
        .collect();
    // Self time (sampled as the leaf) per original function.
    let mut self_ms: HashMap<String, f64> = HashMap::new();
    for (frame, pair) in sites.by_frame.iter().enumerate() {
        let Some(pair) = pair else { continue };
        let (own, _function_start) = sites.pairs[*pair as usize];
        if let Some(original) = &named[own] {
            // Positions are 0-based in the index; printed 1-based, as editors and traces show them.
            let function = original.function.as_deref().unwrap_or("(anonymous)");
            let source = original.source.as_deref().unwrap_or("?");
            let key = format!("{function} ({source}:{})", original.line + 1);
            *self_ms.entry(key).or_default() += profile.self_us[frame] / 1000.0;
        }
    }
    let mut rows: Vec<_> = self_ms.into_iter().collect();
    rows.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    for (function, ms) in rows.iter().take(3) {
        println!("{ms:8.1} ms  {function}");
    }
    Ok(())
}
