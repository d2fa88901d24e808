//! `sourcemap-ls symbolicate [MAP ...] [--json] [flags] [< trace | --trace FILE]`: a stack trace in any common
//! format → original frames. Without MAP, each frame's map is found from its file: the file name (query string
//! dropped) is looked for under `--root` (default: the current directory), and that bundle's `sourceMappingURL` or
//! sidecar map is used. With MAPs, a frame uses the map whose bundle or `file` has the frame's file name (or the
//! same `debugId` as the frame's bundle); a single MAP serves every frame that is not obviously foreign. Maps are
//! opened lazily (a section is validated and indexed when a frame first touches it).

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::{json, Value};
use sourcemap_core::locate::{
    bundle_leads_to_map, find_debug_id, find_file_named, load_map, looks_like_map, MapOrigin,
};
use sourcemap_core::trace::function_name::{NoCode, ScopeCache};
use sourcemap_core::trace::stack::{
    file_name_of, is_foreign_file, parse_stack, PlainInput, StackFrame, StackLine,
};
use sourcemap_core::trace::symbolicate::{
    first_code_frame, names_from_code, render_frame, render_text, symbolicate, SymbolicatedLine,
    TextOptions,
};
use sourcemap_core::{GeneratedPosition, IndexOptions, SourceId, SourceMapIndex};

use super::CliError;

#[derive(Args)]
pub struct SymbolicateArgs {
    /// Source maps (or bundles that lead to them). The last argument is taken as the trace file when it is neither.
    maps: Vec<PathBuf>,
    /// Read the trace from this file instead of stdin.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// One JSON object: {"stack": [frame...], "codeFrame": ...}; lines 1-based, columns 0-based.
    #[arg(long)]
    json: bool,
    /// Fold runs of ignore-listed frames into one line (text output).
    #[arg(long)]
    collapse_ignored: bool,
    /// Where to look for bundles named by the frames (default: the current directory).
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// The input is a Hermes crash report (`{"callstack":[{CJSModuleOffset|SegmentID, FunctionID, ByteCodeOffset,
    /// SourceURL} | {NativeCode: true}]}`), resolved through the first MAP's `x_hermes_function_offsets`.
    #[arg(long)]
    hermes_crash: bool,
    /// Allow fetching maps from a Metro dev server on loopback (frames like `http://localhost:8081/index.bundle?…`
    /// read `…/index.map?…`); no other host is ever contacted.
    #[arg(long)]
    dev_server: bool,
    /// First line number of plain `LINE COLUMN` input (metro-symbolicate compatible).
    #[arg(long, default_value_t = 1)]
    input_line_start: u32,
    /// First column number of plain `LINE COLUMN` input.
    #[arg(long, default_value_t = 0)]
    input_column_start: u32,
    /// First line number in text output.
    #[arg(long, default_value_t = 1)]
    output_line_start: u32,
    /// First column number in text output (stack traces count from 1).
    #[arg(long, default_value_t = 1)]
    output_column_start: u32,
}

/// The generated file of a map, not yet read.
enum BundleText {
    None,
    /// This file led to the map (its comment, its inline map).
    Known(PathBuf),
    /// Candidates (the map's name without `.map`, its `file`); the first whose `sourceMappingURL` or sidecar leads to
    /// `map` is the one.
    Guess {
        candidates: Vec<PathBuf>,
        map: PathBuf,
    },
}

impl BundleText {
    /// The bundle's path and text, when there is one.
    fn read(&self) -> Option<(PathBuf, Vec<u8>)> {
        let read = |p: &Path| sourcemap_core::files::read_regular(p, MAX_GENERATED_BYTES).ok();
        match self {
            BundleText::None => None,
            BundleText::Known(p) => Some((p.clone(), read(p)?)),
            BundleText::Guess { candidates, map } => candidates.iter().find_map(|p| {
                let text = read(p)?;
                bundle_leads_to_map(p, &text, map).then(|| (p.clone(), text))
            }),
        }
    }
}

struct KnownMap {
    index: SourceMapIndex,
    /// Where the generated file the map describes may be (its function scopes name frames), read only when a frame
    /// needs it: a bundle that led to the map, or, for a map given by path, files that must lead back to it.
    bundle: BundleText,
    /// File names of the bundles this map serves.
    names: Vec<String>,
    debug_id: Option<String>,
    /// Directory its relative sources resolve against.
    dir: PathBuf,
}

/// Maps at least this big are cut down to the sections a trace needs when it is given first (see `load`).
const SPARSE_AFTER_BYTES: usize = 4 << 20;

fn load(path: &Path) -> Result<KnownMap, CliError> {
    load_for(path, None)
}

/// Loads a map; with the trace's `positions`, a large index map given by path is opened as just the sections
/// holding them (`sparse_open`), and whole whenever that is not clean.
fn load_for(path: &Path, positions: Option<&[GeneratedPosition]>) -> Result<KnownMap, CliError> {
    let options = IndexOptions {
        lazy: true,
        lazy_names: true,
    };
    let (origin, index) = match positions.and_then(|p| sparse_open(path, p, options)) {
        Some(index) => (MapOrigin::File(path.to_path_buf()), index),
        None => {
            let loaded = load_map(path).map_err(CliError::Map)?;
            // Lazy: a trace touches a few sections of a map that may have thousands; a section that turns out
            // invalid makes its frames unresolved with the reason, while the JSON and every field are checked here.
            let index = SourceMapIndex::from_bytes_with(loaded.bytes, options)
                .map_err(|e| CliError::Map(format!("{}: {e}", path.display())))?;
            (loaded.origin, index)
        }
    };
    let map_dir = match &origin {
        MapOrigin::File(p) => p.parent().unwrap_or(Path::new(".")).to_path_buf(),
        MapOrigin::DataUrl { bundle } => bundle.parent().unwrap_or(Path::new(".")).to_path_buf(),
    };
    let mut names = Vec::new();
    let own = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    match own.strip_suffix(".map") {
        Some(bundle) => names.push(bundle.to_string()),
        None => names.push(own.clone()),
    }
    if let Some(file) = &index.file {
        names.push(file_name_of(file).to_string());
    }
    let bundle = match &origin {
        MapOrigin::DataUrl { bundle } => BundleText::Known(bundle.clone()),
        MapOrigin::File(map) if map != path => BundleText::Known(path.to_path_buf()),
        MapOrigin::File(map) => BundleText::Guess {
            candidates: own
                .strip_suffix(".map")
                .map(|b| map_dir.join(b))
                .into_iter()
                .chain(index.file.as_deref().map(|f| map_dir.join(f)))
                .collect(),
            map: map.clone(),
        },
    };
    Ok(KnownMap {
        bundle,
        debug_id: index.debug_id.clone(),
        index,
        names,
        dir: map_dir,
    })
}

/// Generated files and original sources above this size are not parsed for function names.
const MAX_GENERATED_BYTES: u64 = 256 << 20;

/// A large index map file opened as only the sections holding `positions`: the file is mapped, not read (reading
/// 100 MB was a third of a short trace's time), skimmed (`sourcemap_core::map::sparse`), and the sections kept are
/// parsed and validated in full. `None` (open it whole) for anything else: a small map, a bundle, a flat map, a map
/// the skim finds odd, or a kept section that is invalid (whose errors the whole open then reports where they are).
fn sparse_open(
    path: &Path,
    positions: &[GeneratedPosition],
    options: IndexOptions,
) -> Option<SourceMapIndex> {
    let (file, meta) = sourcemap_core::files::open_regular(path).ok()?;
    if meta.len() < SPARSE_AFTER_BYTES as u64 {
        return None;
    }
    // SAFETY: the mapping is read only while the skim runs and dropped before anything else happens; a file
    // truncated by another process in those milliseconds would fault, as it would for any tool that maps its input
    // (ripgrep does the same). Only regular files get here.
    let mapped = unsafe { memmap2::Mmap::map(&file) }.ok()?;
    if !looks_like_map(&mapped[..mapped.len().min(64 << 10)]) {
        return None;
    }
    let doc = sourcemap_core::map::sparse::select_sections(&mapped, positions)?;
    drop(mapped);
    let index = SourceMapIndex::from_bytes_with(doc, options).ok()?;
    // Built (and kept: the frames' lookups use them) and validated, every kept section.
    index.build_all().ok()?;
    Some(index)
}

/// The text of an original source: `sourcesContent`, else the file the source names (relative to the map).
fn original_text(m: &KnownMap, source: SourceId) -> Option<String> {
    if let Some(content) = m.index.source_content(source) {
        return Some(content.into_owned());
    }
    let url = m.index.source(source).url.as_deref()?;
    let path = url.strip_prefix("file://").unwrap_or(url);
    let bytes = sourcemap_core::files::read_regular(&m.dir.join(path), MAX_GENERATED_BYTES).ok()?;
    String::from_utf8(bytes).ok()
}

struct Catalog {
    /// The maps given on the command line first, then those discovered from frames.
    maps: Vec<KnownMap>,
    explicit: usize,
    by_name: HashMap<String, Option<usize>>,
    root: PathBuf,
    dev_server: bool,
}

impl Catalog {
    /// The bundle a frame's file names, on disk.
    fn bundle_path(&self, file: &str) -> Option<PathBuf> {
        if file.starts_with("file:") {
            return url::Url::parse(file)
                .ok()?
                .to_file_path()
                .ok()
                .filter(|p| p.is_file());
        }
        if !file.contains("://") {
            let p = self
                .root
                .join(file.split(['?', '#']).next().unwrap_or(file));
            if p.is_file() {
                return Some(p);
            }
        }
        find_file_named(&self.root, file_name_of(file), 6)
    }

    /// Which map (by position in `maps`) a frame uses.
    fn choose(&mut self, frame: &StackFrame) -> Option<usize> {
        if frame.native {
            return None;
        }
        // A Hermes crash frame is resolved against the first map, which its position was computed from.
        if frame.format == sourcemap_core::trace::stack::FrameFormat::HermesBytecode
            && frame.written.is_none()
        {
            return (self.explicit > 0 && frame.generated.is_some()).then_some(0);
        }
        let Some(file) = frame.file.as_deref() else {
            return (self.explicit == 1).then_some(0);
        };
        if is_foreign_file(file) {
            return None;
        }
        let name = file_name_of(file).to_string();
        if let Some(i) = self.maps[..self.explicit]
            .iter()
            .position(|m| m.names.contains(&name))
        {
            return Some(i);
        }
        if !self.by_name.contains_key(&name) {
            let found = self.discover(file);
            self.by_name.insert(name.clone(), found);
        }
        self.by_name[&name].or((self.explicit == 1).then_some(0))
    }

    /// The frame's bundle on disk: its `debugId` may pair it with a given map; without given maps, its own map; or,
    /// when allowed, the map a loopback Metro dev server serves beside the bundle URL.
    fn discover(&mut self, file: &str) -> Option<usize> {
        if self.dev_server && file.starts_with("http://") && self.explicit == 0 {
            let bytes = crate::devserver::fetch_map(file, crate::lsp::DEFAULT_MAX_MAP_BYTES)
                .map_err(|e| eprintln!("sourcemap-ls: {e}"))
                .ok()?;
            let index = SourceMapIndex::from_bytes_with(
                bytes,
                IndexOptions {
                    lazy: true,
                    lazy_names: true,
                },
            )
            .map_err(|e| eprintln!("sourcemap-ls: map of {file}: {e}"))
            .ok()?;
            self.maps.push(KnownMap {
                debug_id: index.debug_id.clone(),
                index,
                bundle: BundleText::None,
                names: vec![file_name_of(file).to_string()],
                dir: self.root.clone(),
            });
            return Some(self.maps.len() - 1);
        }
        let bundle = self.bundle_path(file)?;
        if self.explicit > 0 {
            let text = std::fs::read(&bundle).ok()?;
            let id = find_debug_id(&text)?.to_string();
            return self.maps[..self.explicit]
                .iter()
                .position(|m| m.debug_id.as_deref() == Some(&id));
        }
        let known = load(&bundle).ok()?;
        self.maps.push(known);
        Some(self.maps.len() - 1)
    }
}

fn position_json(line0: u32, column0: u32) -> (u32, u32) {
    (line0 + 1, column0)
}

pub fn run(mut args: SymbolicateArgs) -> Result<(), CliError> {
    // The last positional argument may be the trace itself.
    if args.trace.is_none() {
        if let Some(last) = args.maps.last() {
            // The first bytes tell a map (reading a 100 MB map whole here read it twice).
            let head = std::fs::File::open(last).and_then(|f| {
                let mut head = Vec::with_capacity(64 << 10);
                f.take(64 << 10).read_to_end(&mut head).map(|_| head)
            });
            let is_map = head.is_ok_and(|b| looks_like_map(&b)) || load_map(last).is_ok();
            if !is_map && last.is_file() {
                args.trace = args.maps.pop();
            }
        }
    }
    let mut text = String::new();
    match &args.trace {
        Some(p) => {
            text = std::fs::read_to_string(p).map_err(|e| {
                CliError::Usage(format!("cannot read the trace {}: {e}", p.display()))
            })?
        }
        None => {
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| CliError::Usage(format!("reading stdin: {e}")))?;
        }
    }
    let plain = PlainInput {
        line_start: args.input_line_start,
        column_start: args.input_column_start,
    };
    // The frames' positions, to open only the parts of a large index map they need: with one map (with several, a
    // frame's position may be followed into another map, where it means something else), and not for Hermes crash
    // reports, whose positions come from the map's function offsets.
    let positions: Option<Vec<GeneratedPosition>> = (!args.hermes_crash && args.maps.len() == 1)
        .then(|| {
            parse_stack(&text, plain)
                .iter()
                .filter_map(|l| match l {
                    StackLine::Frame(f) => f.generated,
                    StackLine::Text(_) => None,
                })
                .collect()
        });
    let explicit = args
        .maps
        .iter()
        .map(|p| load_for(p, positions.as_deref()))
        .collect::<Result<Vec<_>, _>>()?;
    let root = match &args.root {
        Some(r) => r.clone(),
        None => std::env::current_dir().map_err(|e| CliError::Usage(e.to_string()))?,
    };
    let mut catalog = Catalog {
        explicit: explicit.len(),
        maps: explicit,
        by_name: HashMap::new(),
        root,
        dev_server: args.dev_server,
    };
    let lines = if args.hermes_crash {
        let Some(first) = catalog.maps.first() else {
            return Err(CliError::Usage(
                "--hermes-crash needs the Hermes source map as the first MAP".into(),
            ));
        };
        let offsets =
            sourcemap_core::trace::hermes::function_offsets(&first.index).map_err(CliError::Map)?;
        sourcemap_core::trace::hermes::parse_hermes_crash(&text, &offsets)
            .map_err(CliError::Usage)?
    } else {
        parse_stack(&text, plain)
    };
    // Choosing may load maps (the catalog grows), so choose for every frame first, then look up.
    let choices: Vec<Option<usize>> = lines
        .iter()
        .filter_map(|l| match l {
            StackLine::Frame(f) => Some(catalog.choose(f)),
            StackLine::Text(_) => None,
        })
        .collect();
    let maps = &catalog.maps;
    let code = ScopeCache::new(
        |i| {
            let (path, bytes) = maps[i].bundle.read()?;
            Some((path.display().to_string(), String::from_utf8(bytes).ok()?))
        },
        |i, source| {
            let name = maps[i].index.source(source).url.as_deref()?.to_string();
            Some((name, original_text(&maps[i], source)?))
        },
    );
    // The positions first (cheap), to learn which bundles and sources name the frames' functions; those are parsed
    // in parallel, then the frames are named.
    let chain = |source: &str| {
        let name = file_name_of(source);
        maps.iter()
            .position(|m| m.names.iter().any(|n| n == name))
            .map(|i| (i, &maps[i].index))
    };
    let mut next = choices.iter();
    let positions = symbolicate(
        &lines,
        |_| Ok(next.next().copied().flatten().map(|i| (i, &maps[i].index))),
        chain,
        &NoCode,
    );
    let (mut generated, mut originals) = (Vec::new(), Vec::new());
    for l in &positions {
        if let SymbolicatedLine::Frame(f) = l {
            if let (Some(m), Some(o), Some(p)) = (f.map, &f.original, f.frame.generated) {
                // Metro maps with function maps name frames without code: nothing is read for them.
                if names_from_code(&maps[m].index, p) {
                    generated.push(m);
                    originals.push((m, o.source_id));
                }
            }
        }
    }
    code.prefetch(&generated, &originals);
    let mut next = choices.iter();
    let out = symbolicate(
        &lines,
        |_| Ok(next.next().copied().flatten().map(|i| (i, &maps[i].index))),
        // A Hermes map leads to `app.js`; when `app.js.map` was given too, follow it.
        chain,
        &code,
    );
    let options = TextOptions {
        line_start: args.output_line_start,
        column_start: args.output_column_start,
        collapse_ignored: args.collapse_ignored,
    };
    if !args.json {
        print!("{}", render_text(&out, options));
        return Ok(());
    }
    // The code frame's source: sourcesContent, else the file next to the map.
    let code_frame = first_code_frame(&out, |f| {
        original_text(&maps[f.map?], f.original.as_ref()?.source_id)
    });
    let stack: Vec<Value> = out
        .iter()
        .filter_map(|l| match l {
            SymbolicatedLine::Text(_) => None,
            SymbolicatedLine::Frame(f) => {
                let generated = f.frame.generated.map(|g| {
                    let (line, column) = position_json(g.line, g.column);
                    json!({"file": f.frame.file, "line": line, "column": column})
                });
                let original = f.original.as_ref().map(|o| {
                    let (line, column) = position_json(o.line, o.column);
                    json!({
                        "source": o.source, "line": line, "column": column, "name": o.name,
                        "function": o.function, "functionSource": o.function_source,
                    })
                });
                Some(json!({
                    "raw": f.frame.raw,
                    "generated": generated,
                    "original": original,
                    "ignored": f.ignored,
                    "text": render_frame(f, options),
                    "unresolved": f.unresolved,
                }))
            }
        })
        .collect();
    let code_frame = code_frame.map(|(source, line, column, content)| {
        let (line, column) = position_json(line, column);
        json!({"fileName": source, "location": {"row": line, "column": column}, "content": content})
    });
    println!("{}", json!({"stack": stack, "codeFrame": code_frame}));
    Ok(())
}
