//! `sourcemap-ls symbolicate [MAP ...] [--json] [flags] [< trace | --trace FILE]`: a stack trace in any common
//! format → original frames. Without MAP, each frame's map is found from its file: the file name (query string
//! dropped) is looked for under `--root` (default: the current directory), and that bundle's `sourceMappingURL` or
//! sidecar map is used. With MAPs, a frame uses the map whose bundle or `file` has the frame's file name (or the
//! same `debugId` as the frame's bundle); a single MAP serves every frame that is not obviously foreign. Maps are
//! opened lazily (a section is validated and indexed when a frame first touches it).

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use clap::Args;
use serde_json::{json, Value};
use sourcemap_core::fit::Verdict;
use sourcemap_core::fit::{check_fit, FitReport};
use sourcemap_core::locate::{
    bundle_leads_to_map, find_debug_id, find_source_mapping_url, load_map, looks_like_map,
    MapOrigin,
};
use sourcemap_core::trace::document::TraceDocument;
use sourcemap_core::trace::function_name::{NoCode, ScopeCache};
use sourcemap_core::trace::stack::{
    file_name_of, is_foreign_file, PlainInput, StackFrame, StackLine,
};
use sourcemap_core::trace::symbolicate::{
    first_code_frame, frame_segment, names_from_code, render_frame, render_text, symbolicate,
    SymbolicatedFrame, SymbolicatedLine, TextOptions,
};
use sourcemap_core::walk::find_files_named;

use super::validate::mismatch_problem;
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
    /// After each frame, how its answer was reached or why there is none: the bundle and map chosen and why, debug
    /// IDs, the segment the position lands on, the fit check's verdict.
    #[arg(long)]
    explain: bool,
    /// Where a map fits its bundle only once shifted by whole lines (a banner prepended after the map was made),
    /// look frames up shifted. Never done without this flag.
    #[arg(long)]
    apply_shift: bool,
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
        self.find(read)
    }

    /// The bundle's path and its text mapped, not read (the fit check touches the lines of the sections a trace
    /// needs: reading a 42 MB bundle was a fifth of a 146-frame `symbolicate`, `sourcemap-bench --editor-only`).
    fn map(&self) -> Option<(PathBuf, memmap2::Mmap)> {
        self.find(|p| {
            let (file, meta) = sourcemap_core::files::open_regular(p).ok()?;
            if meta.len() > MAX_GENERATED_BYTES {
                return None;
            }
            // SAFETY: as in `sparse_open`: a regular file, read while this command runs; a file truncated by another
            // process meanwhile would fault, as for any tool that maps its input.
            unsafe { memmap2::Mmap::map(&file) }.ok()
        })
    }

    fn find<T: AsRef<[u8]>>(&self, open: impl Fn(&Path) -> Option<T>) -> Option<(PathBuf, T)> {
        match self {
            BundleText::None => None,
            BundleText::Known(p) => Some((p.clone(), open(p)?)),
            BundleText::Guess { candidates, map } => candidates.iter().find_map(|p| {
                let text = open(p)?;
                bundle_leads_to_map(p, text.as_ref(), map).then(|| (p.clone(), text))
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
    /// How the map was found (for `--explain`).
    found: String,
    /// The fit check against its bundle, once run: `None` when there is no bundle text to check.
    fit: OnceLock<Option<(PathBuf, FitReport)>>,
}

impl KnownMap {
    /// The fit check of the map against its bundle (run once).
    fn fit(&self) -> Option<&(PathBuf, FitReport)> {
        self.fit
            .get_or_init(|| {
                let (path, text) = self.bundle.map()?;
                let report = check_fit(&self.index, &text, find_debug_id(&text)).ok()?;
                Some((path, report))
            })
            .as_ref()
    }
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
    let found = match &origin {
        MapOrigin::DataUrl { bundle } => {
            format!("inline in {} (a data: URL)", shown(bundle))
        }
        MapOrigin::File(map) if map != path => {
            let how = std::fs::read(path)
                .ok()
                .and_then(|t| find_source_mapping_url(&t).map(|(u, _)| u.to_string()))
                .map_or("its sidecar .map".to_string(), |u| {
                    format!("its sourceMappingURL={u}")
                });
            format!("{} (from {} by {how})", shown(map), shown(path))
        }
        MapOrigin::File(map) => shown(map),
    };
    Ok(KnownMap {
        bundle,
        debug_id: index.debug_id.clone(),
        index,
        names,
        dir: map_dir,
        found,
        fit: OnceLock::new(),
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
    by_name: HashMap<String, Option<(usize, String)>>,
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
        find_files_named(&self.root, file_name_of(file), 6, 1).pop()
    }

    /// Which map (by position in `maps`) a frame uses, and why (for `--explain`).
    fn choose(&mut self, frame: &StackFrame) -> (Option<usize>, String) {
        if frame.native {
            return (None, "a native frame: no position in any bundle".into());
        }
        // A Hermes crash frame is resolved against the first map, which its position was computed from.
        if frame.format == sourcemap_core::trace::stack::FrameFormat::HermesBytecode
            && frame.written.is_none()
        {
            let chosen = (self.explicit > 0 && frame.generated.is_some()).then_some(0);
            return (
                chosen,
                "a Hermes crash report frame: the first map given".into(),
            );
        }
        // React Native's `name@L:C` and plain `LINE COLUMN` name no file: the first map given (a Hermes map first, the
        // maps after it continue the chain, as for `--hermes-crash`).
        let Some(file) = frame.file.as_deref() else {
            let chosen = (self.explicit > 0).then_some(0);
            return (
                chosen,
                "the frame names no file: the first map given".into(),
            );
        };
        if is_foreign_file(file) {
            return (
                None,
                format!("{file} is not a bundle (an engine's or node's own file)"),
            );
        }
        let name = file_name_of(file).to_string();
        if let Some(i) = self.maps[..self.explicit]
            .iter()
            .position(|m| m.names.contains(&name))
        {
            return (
                Some(i),
                format!("a map given names the bundle {name} (its file name or `file`)"),
            );
        }
        if !self.by_name.contains_key(&name) {
            let found = self.discover(file);
            self.by_name.insert(name.clone(), found);
        }
        match self.by_name[&name].clone() {
            Some((i, why)) => (Some(i), why),
            None if self.explicit == 1 => (
                Some(0),
                format!("no map names {name}; the one map given serves every frame"),
            ),
            None => (
                None,
                format!(
                    "no bundle named {name} under {} with a map (give its map, or --root)",
                    self.root.display()
                ),
            ),
        }
    }

    /// The frame's bundle on disk: its `debugId` may pair it with a given map; without given maps, its own map; or,
    /// when allowed, the map a loopback Metro dev server serves beside the bundle URL.
    fn discover(&mut self, file: &str) -> Option<(usize, String)> {
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
                found: format!("served by the Metro dev server for {file}"),
                fit: OnceLock::new(),
            });
            return Some((
                self.maps.len() - 1,
                "fetched from the Metro dev server".into(),
            ));
        }
        let bundle = self.bundle_path(file)?;
        if self.explicit > 0 {
            let text = std::fs::read(&bundle).ok()?;
            let id = find_debug_id(&text)?.to_string();
            let i = self.maps[..self.explicit]
                .iter()
                .position(|m| m.debug_id.as_deref() == Some(&id))?;
            return Some((
                i,
                format!("{} has debugId {id}, as this map does", shown(&bundle)),
            ));
        }
        let known = load(&bundle).ok()?;
        self.maps.push(known);
        Some((
            self.maps.len() - 1,
            format!(
                "the bundle {} found under --root {}",
                shown(&bundle),
                shown(&self.root)
            ),
        ))
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
    // (Not with --apply-shift: the sections a shifted frame needs are not the ones its printed position names.)
    let positions: Option<Vec<GeneratedPosition>> =
        (!args.hermes_crash && !args.apply_shift && args.maps.len() == 1).then(|| {
            TraceDocument::parse(&text, plain)
                .lines
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
    // The trace as found: text with any log prefixes, JSON log lines, a crash reporter's event.
    let document = TraceDocument::parse(&text, plain);
    let mut lines = if args.hermes_crash {
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
        document.lines.clone()
    };
    // Choosing may load maps (the catalog grows), so choose for every frame first, then look up.
    let chosen: Vec<(Option<usize>, String)> = lines
        .iter()
        .filter_map(|l| match l {
            StackLine::Frame(f) => Some(catalog.choose(f)),
            StackLine::Text(_) => None,
        })
        .collect();
    let choices: Vec<Option<usize>> = chosen.iter().map(|c| c.0).collect();
    let maps = &catalog.maps;
    // Every map used is checked against its bundle before anything is answered from it.
    let mut used: Vec<usize> = choices.iter().flatten().copied().collect();
    used.sort_unstable();
    used.dedup();
    let mut problems = Vec::new();
    for &i in &used {
        let Some((bundle, report)) = maps[i].fit() else {
            continue;
        };
        if let Some(mut problem) = mismatch_problem(report) {
            let applied = match report.shift_lines {
                Some(n) if args.apply_shift => {
                    format!(" (--apply-shift: frames looked up {n} lines up)")
                }
                _ => String::new(),
            };
            eprintln!(
                "sourcemap-ls: warning: {}: map-mismatch: {}{applied}",
                bundle.display(),
                report.message()
            );
            problem["bundle"] = json!(bundle.display().to_string());
            problem["map"] = json!(maps[i].found);
            problems.push(problem);
        }
    }
    // A shift is applied only when asked for.
    let shift_of = |choice: Option<usize>| {
        choice
            .and_then(|i| maps[i].fit())
            .and_then(|(_, r)| r.shift_lines)
            .filter(|_| args.apply_shift)
    };
    let printed: Vec<Option<GeneratedPosition>> = lines
        .iter()
        .filter_map(|l| match l {
            StackLine::Frame(f) => Some(f.generated),
            StackLine::Text(_) => None,
        })
        .collect();
    if args.apply_shift {
        let mut k = 0;
        for l in lines.iter_mut() {
            if let StackLine::Frame(f) = l {
                if let (Some(shift), Some(g)) = (shift_of(choices[k]), f.generated.as_mut()) {
                    g.line = (i64::from(g.line) - shift).max(0) as u32;
                }
                k += 1;
            }
        }
    }
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
    let mut out = symbolicate(
        &lines,
        |_| Ok(next.next().copied().flatten().map(|i| (i, &maps[i].index))),
        // A Hermes map leads to `app.js`; when `app.js.map` was given too, follow it.
        chain,
        &code,
    );
    // Frames at positions where the map does not fit its bundle are not answered (the map's answer there is most
    // likely another place): they stay as printed, with the reason.
    let mut mismatched = Vec::new();
    let mut explained = Vec::new();
    let mut k = 0;
    for l in out.iter_mut() {
        let SymbolicatedLine::Frame(f) = l else {
            continue;
        };
        let choice = choices[k];
        let fit = choice.and_then(|i| maps[i].fit());
        let shifted = shift_of(choice).is_some();
        let misfit = match (fit, printed[k]) {
            (Some((bundle, report)), Some(p)) if !shifted && report.marks(p) => Some(format!(
                "map-mismatch: the map does not fit {} at this position; not mapped (sourcemap-ls validate {} says why)",
                bundle.display(),
                bundle.display()
            )),
            _ => None,
        };
        if let Some(why) = misfit {
            f.original = None;
            f.ignored = false;
            f.unresolved = Some(why);
            mismatched.push(k);
        }
        if args.explain {
            explained.push(explain(f, &chosen[k], maps, printed[k], shift_of(choice)));
        }
        k += 1;
    }
    let options = TextOptions {
        line_start: args.output_line_start,
        column_start: args.output_column_start,
        collapse_ignored: args.collapse_ignored,
    };
    say_what_was_not_understood(&text, &out);
    if !args.json {
        let mut k = 0;
        for l in out.iter_mut() {
            if let SymbolicatedLine::Frame(f) = l {
                if mismatched.contains(&k) {
                    f.frame.raw.push_str(
                        "  [map-mismatch: not mapped, the map does not fit this bundle here]",
                    );
                }
                k += 1;
            }
        }
        if !args.hermes_crash && !document.is_plain_text() {
            // JSON log lines and events come back in their own shape (valid JSON, frames written in).
            print!("{}", document.render(&out, options));
            return Ok(());
        }
        if !args.explain {
            print!("{}", render_text(&out, options));
            return Ok(());
        }
        let mut k = 0;
        for l in &out {
            print!("{}", render_text(std::slice::from_ref(l), options));
            if let SymbolicatedLine::Frame(_) = l {
                for line in &explained[k] {
                    println!("      | {line}");
                }
                k += 1;
            }
        }
        return Ok(());
    }
    // The code frame's source: sourcesContent, else the file next to the map.
    let code_frame = first_code_frame(&out, |f| {
        original_text(&maps[f.map?], f.original.as_ref()?.source_id)
    });
    let mut k = 0;
    let stack: Vec<Value> = out
        .iter()
        .filter_map(|l| match l {
            SymbolicatedLine::Text(_) => None,
            SymbolicatedLine::Frame(f) => {
                k += 1;
                let explain = explained.get(k - 1);
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
                    "mapMismatch": mismatched.contains(&(k - 1)),
                    "explain": explain,
                }))
            }
        })
        .collect();
    let code_frame = code_frame.map(|(source, line, column, content)| {
        let (line, column) = position_json(line, column);
        json!({"fileName": source, "location": {"row": line, "column": column}, "content": content})
    });
    println!(
        "{}",
        json!({"stack": stack, "codeFrame": code_frame, "problems": problems})
    );
    Ok(())
}

/// A note on stderr when the input looks like a trace but no frame could be read, or frames were read and none was
/// mapped: never a silent unchanged echo.
fn say_what_was_not_understood(text: &str, out: &[SymbolicatedLine]) {
    let frames: Vec<&SymbolicatedFrame> = out
        .iter()
        .filter_map(|l| match l {
            SymbolicatedLine::Frame(f) if !f.frame.native => Some(f),
            _ => None,
        })
        .collect();
    if frames.is_empty() {
        static TRACE_LIKE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
        let re = TRACE_LIKE.get_or_init(|| {
            regex::Regex::new(r#"(\bat\s.*:\d+:\d+|@\S*:?\d+:\d+|stack(?:_?trace)?\b"?\s*[:=])"#)
                .expect("valid regex")
        });
        if re.is_match(text) {
            eprintln!(
                "sourcemap-ls: note: the input looks like a stack trace, but no frame in it could be read (formats: \
                 V8, JSC/Firefox, Hermes, React Native, Crashlytics, Metro JSON, Sentry and Bugsnag events, JSON log \
                 lines; see `sourcemap-ls symbolicate --help`)"
            );
        }
        return;
    }
    if frames.iter().all(|f| f.original.is_none()) {
        let mut files: Vec<&str> = frames
            .iter()
            .filter_map(|f| f.frame.file.as_deref())
            .collect();
        files.sort_unstable();
        files.dedup();
        eprintln!(
            "sourcemap-ls: note: {} frame{} read, none mapped ({}{}); --explain says why per frame",
            frames.len(),
            if frames.len() == 1 { "" } else { "s" },
            if files.is_empty() {
                "they name no file: give the map".to_string()
            } else {
                format!(
                    "files: {}",
                    files.iter().take(5).copied().collect::<Vec<_>>().join(", ")
                )
            },
            if files.len() > 5 { ", …" } else { "" }
        );
    }
}

/// A path as `--explain` shows it: relative to the current directory when it is below it.
fn shown(p: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| p.strip_prefix(cwd).ok().map(|r| r.display().to_string()))
        .map(|r| if r.is_empty() { ".".to_string() } else { r })
        .unwrap_or_else(|| p.display().to_string())
}

/// How a frame's answer was reached, or why there is none: one line per step.
fn explain(
    f: &SymbolicatedFrame,
    chosen: &(Option<usize>, String),
    maps: &[KnownMap],
    printed: Option<GeneratedPosition>,
    shift: Option<i64>,
) -> Vec<String> {
    let at = |p: GeneratedPosition| format!("{}:{}", p.line + 1, p.column);
    let mut out = Vec::new();
    let (choice, why) = chosen;
    let Some(i) = *choice else {
        out.push(format!("no map: {why}"));
        return out;
    };
    let m = &maps[i];
    out.push(format!("map: {} — chosen because {why}", m.found));
    let fit = m.fit();
    match fit {
        Some((bundle, report)) => {
            out.push(format!("bundle text: {}", shown(bundle)));
            out.push(match (&report.bundle_debug_id, &m.debug_id) {
                (Some(b), Some(mid)) if b.eq_ignore_ascii_case(mid) => {
                    format!("debug IDs agree: {b}")
                }
                (Some(b), Some(mid)) => {
                    format!("debug IDs DIFFER: the bundle's {b}, the map's {mid}")
                }
                (Some(b), None) => format!("debug ID: the bundle has {b}, the map none"),
                (None, Some(mid)) => format!("debug ID: the map has {mid}, the bundle none"),
                (None, None) => "debug IDs: neither has one".into(),
            });
        }
        None => out.push(
            "bundle text: not found (no file leads to this map), so the map's fit was not checked"
                .into(),
        ),
    }
    let Some(p) = printed else {
        out.push(format!(
            "no position: {}",
            f.unresolved.as_deref().unwrap_or("none printed")
        ));
        return out;
    };
    let mut lookup = p;
    if let Some(n) = shift {
        lookup.line = (i64::from(p.line) - n).max(0) as u32;
        out.push(format!(
            "shift applied (--apply-shift): {} looked up as {} ({n:+} lines)",
            at(p),
            at(lookup)
        ));
    }
    if f.frame.format == sourcemap_core::trace::stack::FrameFormat::HermesBytecode
        && m.index.x_hermes_function_offsets.is_none()
        && fit.is_some_and(|(_, r)| r.text_lines > 1)
    {
        out.push(
            "Hermes bytecode frame (an offset into the .hbc, on line 1) against the map of the JavaScript \
             bundle: compose the packager's and the compiler's maps (react-native's compose-source-maps) and \
             symbolicate with the composed map"
                .into(),
        );
    }
    match frame_segment(&m.index, lookup) {
        Ok(Some(hit)) => {
            let exact = if hit.generated == lookup {
                "lands on a segment".to_string()
            } else {
                format!(
                    "lands {} columns after the segment at {}",
                    lookup.column - hit.generated.column,
                    at(hit.generated)
                )
            };
            match hit.original {
                Some(o) => out.push(format!(
                    "position {} {exact}, which the map says is {}:{}:{}{}",
                    at(lookup),
                    o.source_url.unwrap_or("<no source>"),
                    o.line + 1,
                    o.column,
                    o.name.map(|n| format!(" (name {n})")).unwrap_or_default()
                )),
                None => out.push(format!(
                    "position {} {exact} that maps to nothing (a 1-field segment)",
                    at(lookup)
                )),
            }
        }
        Ok(None) => out.push(format!(
            "position {}: no segment at or before it on its line",
            at(lookup)
        )),
        Err(e) => out.push(format!(
            "position {}: the map is invalid there: {e}",
            at(lookup)
        )),
    }
    if let Some((_, report)) = fit {
        let e = &report.evidence;
        out.push(match report.verdict {
            Verdict::Fits => format!(
                "fit: the map fits its bundle ({} segments checked, {} inside identifiers)",
                e.segments, e.mid_identifier
            ),
            Verdict::Unknown => format!(
                "fit: not checked: {}",
                report.unknown_because.unwrap_or("no evidence")
            ),
            Verdict::Misfit if shift.is_some() => format!(
                "fit: the map fits only shifted by {:+} lines (applied)",
                report.shift_lines.unwrap_or(0)
            ),
            Verdict::Misfit if report.marks(p) => {
                let e = report.regions.first().map(|r| r.evidence).unwrap_or(report.evidence);
                let mut s = match (report.shift_lines, &report.debug_id_mismatch) {
                    (_, Some(_)) => "fit: the debug IDs differ, so this frame is not mapped".to_string(),
                    (Some(n), None) => format!(
                        "fit: the map fits only shifted by {n:+} lines (a banner?), so this frame is not mapped \
                         (--apply-shift maps it shifted)"
                    ),
                    (None, None) => format!(
                        "fit: the map stops fitting this bundle at {} ({} of {} segments from there land inside \
                         identifiers), so this frame is not mapped",
                        report.first_bad().map(at).unwrap_or_default(),
                        e.mid_identifier,
                        e.segments
                    ),
                };
                if u64::from(report.map_lines) > report.text_lines.saturating_mul(2) + 10 {
                    s.push_str(&format!(
                        "; the map describes {} lines, the bundle has {}: a development build's map for a \
                         production bundle?",
                        report.map_lines, report.text_lines
                    ));
                }
                s
            }
            Verdict::Misfit => format!(
                "fit: this position is before the part of the map that does not fit (from {}): answered",
                report.first_bad().map(at).unwrap_or_default()
            ),
        });
    }
    if let Some(why) = &f.unresolved {
        let why = if why.starts_with("map-mismatch") {
            "the map does not fit the bundle here"
        } else {
            why
        };
        out.push(format!("answer: none ({why})"));
    } else if let Some(o) = &f.original {
        out.push(format!(
            "answer: {}:{}:{}, function {} ({})",
            o.source.as_deref().unwrap_or("<no source>"),
            o.line + 1,
            o.column,
            o.function.as_deref().unwrap_or("unknown"),
            o.function_source
                .and_then(|s| serde_json::to_value(s).ok())
                .and_then(|v| v.as_str().map(|s| format!("from {s}")))
                .unwrap_or("no function found".into())
        ));
    }
    out
}
