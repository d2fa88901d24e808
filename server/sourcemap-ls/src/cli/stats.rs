//! `sourcemap-ls stats`: the map's shape and what its index holds in memory, measured by the counting allocator.
//!
//! `indexBytes` = the `mappings` VLQ bytes (held, uncopied, in the file buffer) + the heap the checkpoints and line
//! tables took, measured as the growth of live heap while every section's index was built. `otherBytes` = everything
//! else the index holds (the rest of the file buffer: names, sources, contents; the owned names and sources; section
//! tables), measured as the growth of live heap while the file was read and parsed, minus the VLQ bytes.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use serde::Serialize;
use sourcemap_core::bundle::locate::load_map;
use sourcemap_core::{IndexOptions, SourceMapIndex};

use super::CliError;
use sourcemap_core::internal::map::measure::live_bytes;

#[derive(Args)]
pub struct StatsArgs {
    /// A source map, or a bundle whose sourceMappingURL or sidecar .map leads to one.
    map: PathBuf,
    /// One JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// What the language server would hold for this map once every section was queried: the map file's buffer
    /// after `sourcesContent` is shed, checkpoints, names and function maps decoded, and the default budget of the
    /// caches it keeps beside (the same figures as `sourcemap/mapInfo`'s `memory` and `caches`).
    #[arg(long)]
    memory: bool,
}

/// `--memory`: bytes the language server holds for the map (see `sourcemap/mapInfo`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Memory {
    /// The map file's buffer kept once `sourcesContent`, `names` and `x_facebook_sources` are shed to the file.
    buffer_bytes: usize,
    checkpoint_bytes: usize,
    names_bytes: usize,
    function_map_bytes: usize,
    /// The one budget of the server's caches (source texts, function scopes, diffs, verdicts) by default.
    cache_budget_bytes: u64,
    /// Live heap of this process at the end (the buffer, the index and what was decoded).
    live_heap_bytes: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Stats {
    sections: usize,
    sources: usize,
    names: usize,
    segments: u64,
    generated_lines: u64,
    checkpoints: usize,
    mappings_bytes: usize,
    index_bytes: usize,
    other_bytes: usize,
    /// indexBytes ÷ mappingsBytes.
    index_ratio: f64,
    build_millis: f64,
    /// A RAM bundle's map: how many modules `x_facebook_offsets` places.
    #[serde(skip_serializing_if = "Option::is_none")]
    ram_modules: Option<usize>,
    /// Metro's `x_facebook_segments`: the segment ids (sections, segments and lines above count the map's own file;
    /// sources and bytes count all).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[serde(rename = "metroSegments")]
    segments_ids: Vec<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    memory: Option<Memory>,
}

pub fn run(args: StatsArgs) -> Result<(), CliError> {
    let loaded = load_map(&args.map)?;
    let file_len = loaded.bytes.len();
    let before = live_bytes() - loaded.bytes.capacity();
    let started = Instant::now();
    let index = SourceMapIndex::from_bytes_with(
        loaded.bytes,
        IndexOptions {
            lazy: true,
            lazy_names: true,
        },
    )
    .map_err(|e| CliError::Map(format!("{}: {e}", args.map.display())))?;
    let parsed = live_bytes();
    index
        .build_all()
        .map_err(|e| CliError::Map(format!("{}: {e}", args.map.display())))?;
    let build_millis = started.elapsed().as_secs_f64() * 1000.0;
    let built = live_bytes();

    let mut segments = 0;
    let mut lines = 0u64;
    let mut checkpoints = 0;
    for i in 0..index.sections().len() {
        let c = index.compact(i).map_err(|e| CliError::Map(e.to_string()))?;
        segments += c.segment_count();
        lines = lines.max(u64::from(index.sections()[i].offset.line) + u64::from(c.line_count()));
        checkpoints += c.checkpoint_count();
    }
    let mappings_bytes = index.mappings_bytes();
    let index_bytes = mappings_bytes + (built - parsed);
    let stats = Stats {
        sections: index.sections().len(),
        sources: index.sources().len(),
        names: index.sections().iter().map(|s| s.names_len()).sum(),
        segments,
        generated_lines: lines,
        checkpoints,
        mappings_bytes,
        index_bytes,
        other_bytes: (parsed - before).saturating_sub(mappings_bytes),
        index_ratio: if mappings_bytes == 0 {
            0.0
        } else {
            round3(index_bytes as f64 / mappings_bytes as f64)
        },
        build_millis: round3(build_millis),
        ram_modules: index.is_ram_bundle().then(|| index.module_count()),
        segments_ids: index.segment_ids(),
        memory: None,
    };
    let mut stats = stats;
    if args.memory {
        stats.memory = Some(memory(&args.map, index)?);
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string(&stats).expect("stats serialize")
        );
    } else {
        println!("map:             {} ({file_len} bytes)", args.map.display());
        println!("sections:        {}", stats.sections);
        println!("sources:         {}", stats.sources);
        println!("names:           {}", stats.names);
        println!("segments:        {}", stats.segments);
        println!("generated lines: {}", stats.generated_lines);
        println!("mappings bytes:  {}", stats.mappings_bytes);
        println!(
            "index bytes:     {} ({:.3} × mappings; {} checkpoints)",
            stats.index_bytes, stats.index_ratio, stats.checkpoints
        );
        println!("other bytes:     {}", stats.other_bytes);
        if let Some(n) = stats.ram_modules {
            println!("RAM bundle:      {n} modules placed by x_facebook_offsets");
        }
        if !stats.segments_ids.is_empty() {
            println!(
                "segments:        {:?} (x_facebook_segments)",
                stats.segments_ids
            );
        }
        println!("build:           {:.2} ms", stats.build_millis);
        if let Some(m) = &stats.memory {
            println!("memory, as the language server holds it once every section was queried:");
            println!(
                "  buffer:        {} (contents shed to the file)",
                m.buffer_bytes
            );
            println!("  checkpoints:   {}", m.checkpoint_bytes);
            println!("  names:         {}", m.names_bytes);
            println!("  function maps: {}", m.function_map_bytes);
            println!(
                "  cache budget:  {} (source texts, function scopes, diffs, verdicts; default)",
                m.cache_budget_bytes
            );
            println!("  live heap:     {}", m.live_heap_bytes);
        }
    }
    Ok(())
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The index as the server keeps it: contents shed to the map file (when MAP is a file), every section built,
/// every function map decoded and every section's names read.
fn memory(map: &std::path::Path, mut index: SourceMapIndex) -> Result<Memory, CliError> {
    if map.extension().is_some_and(|e| e == "map") {
        index.shed_contents(map);
    }
    index.decode_all_lazy_parts();
    let decoded = index.decoded_heap();
    Ok(Memory {
        buffer_bytes: index.buffer().len(),
        checkpoint_bytes: index.checkpoint_heap_bytes(),
        names_bytes: decoded.names,
        function_map_bytes: decoded.function_maps,
        cache_budget_bytes: crate::lsp::DEFAULT_MAX_CACHE_BYTES,
        live_heap_bytes: live_bytes(),
    })
}
