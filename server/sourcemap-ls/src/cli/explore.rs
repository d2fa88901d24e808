//! `sourcemap-ls explore BUNDLE [MAP] [--json] [--html FILE]`: what a bundle is made of, by original source and
//! package (`sourcemap_core::bundle::composition`, source-map-explorer's rules).
//!
//! Text: packages largest first with their share and their largest files. `--json`: source-map-explorer's result
//! shape (`totalBytes`, `mappedBytes`, `unmappedBytes`, `eolBytes`, `sourceMapCommentBytes`, `files`), so tools
//! that read its output read ours. `--html FILE`: one self-contained page with a treemap (packages → files).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::{json, Map, Value};
use sourcemap_core::bundle::composition::{compose, source_names, Composition, Package};
use sourcemap_core::{IndexOptions, SourceId, SourceMapIndex};

use super::{open_index, CliError};

#[derive(Args)]
pub struct ExploreArgs {
    /// The generated file (bundle).
    bundle: PathBuf,
    /// Its source map (default: the one its `sourceMappingURL` or sidecar `.map` names).
    map: Option<PathBuf>,
    /// source-map-explorer's JSON result: {totalBytes, mappedBytes, unmappedBytes, eolBytes, sourceMapCommentBytes,
    /// files: {source: {size}}}.
    #[arg(long)]
    json: bool,
    /// Also write a self-contained HTML treemap (packages → files, sized by bytes) to FILE.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Files listed under each package in the text output.
    #[arg(long, default_value_t = 3)]
    top: usize,
}

/// The bundle's composition with each source's name (the map's `sources` entry, `sourceRoot` applied).
pub struct Explored {
    pub composition: Composition,
    pub names: Vec<String>,
}

pub fn explore(bundle: &Path, map: Option<&Path>) -> Result<Explored, CliError> {
    let text = std::fs::read(bundle)
        .map_err(|e| CliError::Usage(format!("cannot read {}: {e}", bundle.display())))?;
    let index: SourceMapIndex = open_index(
        map.unwrap_or(bundle),
        IndexOptions {
            lazy: true,
            lazy_names: true,
        },
    )?;
    let composition = compose(&index, &text)
        .map_err(|e| CliError::Map(format!("{}: {e}", map.unwrap_or(bundle).display())))?;
    let names = source_names(&index);
    Ok(Explored { composition, names })
}

/// source-map-explorer's result object.
pub fn to_json(e: &Explored) -> Value {
    let c = &e.composition;
    let mut files = Map::new();
    for (id, bytes) in c.sources_by_size() {
        let name = e.name(id);
        // Two sources with one URL (an index map's sections) add up, as they do in source-map-explorer.
        let size = files
            .get(name)
            .and_then(|v| v["size"].as_u64())
            .unwrap_or(0);
        files.insert(name.to_string(), json!({"size": size + bytes}));
    }
    for (key, bytes) in c.other_parts() {
        if bytes > 0 {
            files.insert(key.into(), json!({"size": bytes}));
        }
    }
    json!({
        "totalBytes": c.total_bytes,
        "mappedBytes": c.mapped_bytes,
        "unmappedBytes": c.unmapped_bytes,
        "eolBytes": c.eol_bytes,
        "sourceMapCommentBytes": c.source_map_comment_bytes,
        "files": files,
    })
}

impl Explored {
    fn packages(&self) -> Vec<Package> {
        self.composition
            .packages(|id| self.names[id.0 as usize].as_str())
    }

    fn name(&self, id: SourceId) -> &str {
        &self.names[id.0 as usize]
    }
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

fn text(e: &Explored, bundle: &Path, top: usize) -> String {
    let c = &e.composition;
    let mut out = format!(
        "{}: {} bytes, {} mapped to {} sources in {} packages\n\n",
        bundle.display(),
        c.total_bytes,
        c.mapped_bytes,
        c.sources_by_size().len(),
        e.packages().len()
    );
    let packages = e.packages();
    let width = packages
        .iter()
        .map(|p| p.name.len())
        .max()
        .unwrap_or(0)
        .max(20);
    for p in &packages {
        let _ = writeln!(
            out,
            "{:<width$} {:>10}  {:>5.1} %",
            p.name,
            p.bytes,
            percent(p.bytes, c.total_bytes)
        );
        for &(file, bytes) in p.files.iter().take(top) {
            let _ = writeln!(out, "    {} {bytes}", e.name(file));
        }
        if p.files.len() > top {
            let _ = writeln!(out, "    … {} more files", p.files.len() - top);
        }
    }
    for (label, bytes) in c.other_parts() {
        if bytes > 0 {
            let _ = writeln!(
                out,
                "{label:<width$} {bytes:>10}  {:>5.1} %",
                percent(bytes, c.total_bytes)
            );
        }
    }
    out
}

pub fn run(args: ExploreArgs) -> Result<(), CliError> {
    let e = explore(&args.bundle, args.map.as_deref())?;
    if let Some(path) = &args.html {
        let title = format!("{} — bundle composition", args.bundle.display());
        let page = crate::treemap::page(&crate::treemap::tree(&e.composition, &e.names), &title);
        std::fs::write(path, page)
            .map_err(|err| CliError::Usage(format!("cannot write {}: {err}", path.display())))?;
    }
    if args.json {
        println!("{}", to_json(&e));
    } else {
        print!("{}", text(&e, &args.bundle, args.top));
    }
    Ok(())
}
