//! `sourcemap-ls symbolicate [MAP ...] [--json] [flags] [< trace | --trace FILE]`: a stack trace in any common
//! format → original frames. Without MAP, each frame's map is found from its file: the file name (query string
//! dropped) is looked for under `--root` (default: the current directory), and that bundle's `sourceMappingURL` or
//! sidecar map is used. With MAPs, a frame uses the map whose bundle or `file` has the frame's file name (or the
//! same `debugId` as the frame's bundle); a single MAP serves every frame that is not obviously foreign. Maps are
//! opened lazily (a section is validated and indexed when a frame first touches it).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use serde_json::{json, Value};
use sourcemap_core::bundle::locate::{load_map, looks_like_map};
use sourcemap_core::bundle::resolve::AmbiguousFile;
use sourcemap_core::session::explain::{explain, explain_today, ExplainedMap};
use sourcemap_core::session::FrameToday;
use sourcemap_core::session::SessionOptions;
use sourcemap_core::trace::document::{EventOptions, TraceDocument};
use sourcemap_core::trace::input::{self, Encoding, TraceText};
use sourcemap_core::trace::stack::{PlainInput, Precision, StackLine};
use sourcemap_core::trace::symbolicate::{
    first_code_frame, render_frame, render_text, SymbolicatedFrame, SymbolicatedLine, TextOptions,
};
use sourcemap_core::GeneratedPosition;

use super::frame_maps::{run_session, serve_dev_server_maps, SessionAnswer};
use super::CliError;
use sourcemap_core::session::files::FilesPlace;
use sourcemap_core::session::files::{shown_path, KnownMap};

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
    /// The bundle a file of the trace is, when several under --root could be (repeatable): NAME is the file as the
    /// trace prints it, or its file name.
    #[arg(long = "bundle", value_name = "NAME=PATH", value_parser = parse_bundle_choice)]
    bundles: Vec<(String, PathBuf)>,
    /// The input is a Hermes crash report (`{"callstack":[{CJSModuleOffset|SegmentID, FunctionID, ByteCodeOffset,
    /// SourceURL} | {NativeCode: true}]}`), resolved through the first MAP's `x_hermes_function_offsets`.
    #[arg(long)]
    hermes_crash: bool,
    /// The input is a stream of events, one JSON document per line (Sentry or Bugsnag events, JSON log lines):
    /// each line is symbolicated alone, in input order, on `--jobs` threads; a line that is not JSON or holds no
    /// trace comes out as it came. Never buffered whole.
    #[arg(long)]
    ndjson: bool,
    /// With --ndjson: lines worked on at once (default: the machine's cores).
    #[arg(long, value_name = "N", requires = "ndjson")]
    jobs: Option<usize>,
    /// A folder of maps (and bundles), repeatable. Each frame's map is found by debug ID (the event's
    /// `debug_meta.images`, or a `//# debugId=` in the frame's bundle), else by the frame's URL path under DIR.
    #[arg(long = "maps", value_name = "DIR")]
    map_folders: Vec<PathBuf>,
    /// A folder of releases, repeatable: `DIR/<release>/` holds the maps and bundles of that release
    /// (`DIR/<release>/<dist>/` when the event gives a dist and that folder exists). An event's frames are looked
    /// for by path in its own release's folder only (Sentry's `release` and `dist`, Bugsnag's `app.version`); an
    /// event without a release in every release's folder (several builds of one file: told apart by evidence, else
    /// not mapped). Debug IDs are found across all of them.
    #[arg(long = "maps-by-release", value_name = "DIR")]
    release_folders: Vec<PathBuf>,
    /// With --ndjson: the opened maps kept, in MiB (default: a quarter of the machine's memory, at most 4 GiB).
    #[arg(long, value_name = "N", requires = "ndjson")]
    cache_mb: Option<u64>,
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
    /// Where a map fits its bundle only once shifted by whole lines (a banner prepended after the map was made) or
    /// by some columns on a line (text put at its start), look frames up shifted. Never done without this flag.
    #[arg(long)]
    apply_shift: bool,
}

/// `--bundle NAME=PATH`.
pub(super) fn parse_bundle_choice(s: &str) -> Result<(String, PathBuf), String> {
    match s.rsplit_once('=') {
        Some((name, path)) if !name.is_empty() && !path.is_empty() => {
            Ok((name.to_string(), PathBuf::from(path)))
        }
        _ => Err(format!("expected NAME=PATH (the file as the trace prints it, or its name, and the bundle), got {s:?}")),
    }
}

/// The files several bundles could be, as the server's `ambiguous`: `[{file, candidates}]`.
pub(super) fn ambiguous_json(ambiguous: &[AmbiguousFile]) -> Value {
    ambiguous
        .iter()
        .map(|a| json!({"file": a.file, "candidates": a.candidates.iter().map(|p| p.display().to_string()).collect::<Vec<_>>()}))
        .collect()
}

fn position_json(line0: u32, column0: u32) -> (u32, u32) {
    (line0 + 1, column0)
}

pub fn run(mut args: SymbolicateArgs) -> Result<(), CliError> {
    if args.ndjson {
        // An archive given that could not be read was said on stderr; the stream is answered from the rest and the
        // exit status says so, as without --ndjson.
        super::symbolicate_stream::run(super::symbolicate_stream::StreamArgs {
            maps: args.maps,
            map_dirs: args.map_folders,
            release_dirs: args.release_folders,
            root: args.root,
            jobs: args.jobs,
            cache_mb: args.cache_mb,
            plain: PlainInput {
                line_start: args.input_line_start,
                column_start: args.input_column_start,
            },
        })?;
        return input_status();
    }
    let TraceText { text, encoding, .. } = read_input(&mut args)?;
    // A Hermes crash report needs no flag: its shape is unmistakable (and read as text, it has no frame).
    if !args.hermes_crash && sourcemap_core::trace::hermes_crash::is_hermes_crash(&text) {
        args.hermes_crash = true;
    }
    let plain = PlainInput {
        line_start: args.input_line_start,
        column_start: args.input_column_start,
    };
    // The trace as found: text with any log prefixes, JSON log lines, a crash reporter's event.
    let document = TraceDocument::parse(&text, plain);
    let mut catalog = place_for(&mut args, &document, &text)?;
    let lines = if args.hermes_crash {
        let Some(first) = catalog.maps.first() else {
            return Err(CliError::Usage(
                "--hermes-crash needs the Hermes source map as the first MAP".into(),
            ));
        };
        if !first.index.has_metro_files() {
            // Said before anything else: a map without function offsets answers no crash frame.
            sourcemap_core::trace::hermes_crash::function_offsets(&first.index)
                .map_err(|e| CliError::Map(e.to_string()))?;
        }
        sourcemap_core::trace::hermes_crash::parse_hermes_crash(&text, &first.index)
            .map_err(|e| CliError::Usage(e.to_string()))?
    } else {
        document.lines.clone()
    };
    let SessionAnswer {
        mut out,
        chosen,
        printed,
        shifts,
        mismatched,
        problems,
        ambiguous,
        jest,
        today,
    } = run_session(
        &mut catalog,
        lines,
        // The sources whose file here is not the map's copy (a loader's compiled copy, an edit since the build):
        // every answer says so; where an edited file's code is now, the JSON answer and `--explain`.
        SessionOptions {
            apply_shift: args.apply_shift,
            today: true,
            function_lines: false,
            threads: None,
            call_order: document.call_order(),
        },
    );
    super::openable_paths::openable_paths(&mut out, &catalog);
    let explained = if args.explain {
        explanations(&out, &catalog, &chosen, &printed, &shifts, &jest, &today)
    } else {
        Vec::new()
    };
    let options = TextOptions {
        line_start: args.output_line_start,
        column_start: args.output_column_start,
        collapse_ignored: args.collapse_ignored,
    };
    say_what_was_not_understood(&text, &out);
    if !args.json {
        for (k, f) in frames_mut(&mut out).enumerate() {
            if mismatched.contains(&k) {
                f.frame.append_note(
                    "  [map-mismatch: not mapped, the map does not fit this bundle here]",
                );
            }
        }
        let as_found = !args.hermes_crash && !document.is_plain_text();
        // An event's frames get their sources' lines, as Sentry stores them.
        let source_text =
            |f: &SymbolicatedFrame| catalog.source_lines(f.map?, f.original.as_ref()?.source_id);
        let event = EventOptions {
            source_text: Some(&source_text),
            compact: false,
            kept: None,
        };
        let as_found = as_found.then_some((&document, &event));
        let mut answer = print_text(&out, as_found, &explained, options);
        // The last line's end as it came: none when the input had none.
        if !text.is_empty() && !text.ends_with('\n') && answer.ends_with('\n') {
            answer.pop();
        }
        write_out(&answer, encoding);
        say_map_copies_only(&out);
        say_local_files_differ(&out, &today);
        return input_status();
    }
    let notes = FrameNotes {
        explained: &explained,
        mismatched: &mismatched,
        today: &today,
    };
    print_json(&out, &catalog, &notes, &problems, &ambiguous, options);
    input_status()
}

/// Exit 1 (after answering what could be) when an input given could not be read (its line already said).
fn input_status() -> Result<(), CliError> {
    if super::frame_maps::UNREADABLE_INPUT.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(CliError::Quiet);
    }
    Ok(())
}

/// `--explain`'s lines per frame: its map and why, the lookup and the fit (`session::explain`), Jest's wrapper, today's
/// file.
fn explanations(
    out: &[SymbolicatedLine],
    catalog: &FilesPlace,
    chosen: &[(Option<usize>, String)],
    printed: &[Option<GeneratedPosition>],
    shifts: &[Option<sourcemap_core::bundle::fit::Shift>],
    jest: &[Option<String>],
    today: &[Option<FrameToday>],
) -> Vec<Vec<String>> {
    out.iter()
        .filter_map(SymbolicatedLine::frame)
        .enumerate()
        .map(|(k, f)| {
            let (choice, why) = &chosen[k];
            let map = choice.map(|i| {
                let m = &catalog.maps[i];
                ExplainedMap {
                    found: &m.found,
                    index: &m.index,
                    fit: m.fit(),
                    then: f
                        .map
                        .filter(|&j| j != i)
                        .map(|j| catalog.maps[j].found.as_str()),
                }
            });
            let mut lines = explain(f, why, map, printed[k], shifts[k].as_ref(), &|p| {
                shown_path(p)
            });
            lines.extend(jest[k].clone());
            lines.extend(today[k].as_ref().map(|t| explain_today(f, t)));
            lines
        })
        .collect()
}

/// The command line's place: the maps given (a large index map opened near the frames), `--root`, the bundles chosen,
/// directories of maps, the trace's debug IDs, the dev server when allowed.
fn place_for(
    args: &mut SymbolicateArgs,
    document: &TraceDocument,
    text: &str,
) -> Result<FilesPlace, CliError> {
    // The frames' positions, to open only the parts of a large index map they need: with one map (with several, a
    // frame's position may be followed into another map, where it means something else), and not for Hermes crash
    // reports, whose positions come from the map's function offsets.
    // (Not with --apply-shift: the sections a shifted frame needs are not the ones its printed position names.)
    // A directory given as MAP is metro-symbolicate's directory of maps: each frame's `DIR/FILE.map`.
    let (map_dirs, files): (Vec<PathBuf>, Vec<PathBuf>) =
        args.maps.drain(..).partition(|p| p.is_dir());
    args.maps = files;
    let map_dirs = map_dirs
        .iter()
        .map(|d| {
            std::fs::canonicalize(d).map_err(|e| CliError::Usage(format!("{}: {e}", d.display())))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let positions: Option<Vec<(Option<String>, GeneratedPosition)>> =
        (!args.hermes_crash && !args.apply_shift && args.maps.len() == 1).then(|| {
            document
                .lines
                .iter()
                .filter_map(StackLine::frame)
                .filter_map(|f| Some((f.file.clone(), f.generated?)))
                .collect()
        });
    let mut explicit = args
        .maps
        .iter()
        .map(|p| KnownMap::open_for(p, positions.as_deref()))
        .collect::<Result<Vec<_>, _>>()?;
    // The trace is never the bundle of a map given for it, whatever the naming says.
    if let Some(trace) = &args.trace {
        for m in &mut explicit {
            m.bundle.exclude(trace);
        }
    }
    let disk = super::frame_maps::disk_of(
        &args.map_folders,
        &args.release_folders,
        args.root.as_deref(),
        None,
    )?;
    // Original sources are read inside what this command line was given: the roots and stores (above), the working
    // folder, the folders of the maps and bundles it names, its directories of maps (`source::project_file`).
    let disk = super::frame_maps::with_command_line_folders(
        disk,
        args.maps.iter().chain(args.bundles.iter().map(|(_, p)| p)),
        &map_dirs,
    );
    let (disk, note) = disk.for_release(document.release().as_ref());
    if let Some(note) = note {
        eprintln!("sourcemap-ls: {note}");
    }
    let mut catalog = FilesPlace::on(explicit.into_iter().map(Arc::new).collect(), disk);
    catalog.say_hints(sourcemap_core::bundle::resolve::Hint::as_flags);
    catalog.file_debug_ids = document.debug_ids_by_file();
    catalog.reported = document.reported_files();
    if args.dev_server {
        serve_dev_server_maps(&mut catalog);
    }
    catalog.chosen = args.bundles.iter().cloned().collect();
    catalog.map_dirs = map_dirs;
    catalog.debug_ids = sourcemap_core::trace::stack::debug_ids_in(text);
    Ok(catalog)
}

/// The trace: metro-symbolicate's positional `MAP LINE [COLUMN]`, the last positional argument when it is not a
/// map, or stdin; its bytes read by `trace::input` (any encoding, never refused).
fn read_input(args: &mut SymbolicateArgs) -> Result<TraceText, CliError> {
    let positional = if args.trace.is_none() {
        take_positional(&mut args.maps)
    } else {
        None
    };
    // The last positional argument may be the trace itself.
    if args.trace.is_none() && positional.is_none() {
        if let Some(last) = args.maps.last() {
            // The first bytes tell a map (reading a 100 MB map whole here read it twice).
            let head = std::fs::File::open(last).and_then(|f| {
                let mut head = Vec::with_capacity(64 << 10);
                f.take(64 << 10).read_to_end(&mut head).map(|_| head)
            });
            // A crash reporter's event is JSON too: it names a `stacktrace` and none of a map's members.
            let is_event = |b: &[u8]| {
                let has = |key: &[u8]| memchr::memmem::find(b, key).is_some();
                has(b"\"stacktrace\"")
                    && !has(b"\"mappings\"")
                    && !has(b"\"sources\"")
                    && !has(b"\"sections\"")
            };
            let is_map = match &head {
                Ok(b) if is_event(b) => false,
                Ok(b) => looks_like_map(b) || load_map(last).is_ok(),
                Err(_) => load_map(last).is_ok(),
            };
            if !is_map && last.is_file() {
                args.trace = args.maps.pop();
            }
        }
    }
    let bytes = match (&args.trace, positional) {
        (_, Some(text)) => text.into_bytes(),
        (Some(p), None) => std::fs::read(p)
            .map_err(|e| CliError::Usage(format!("cannot read the trace {}: {e}", p.display())))?,
        (None, None) => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| CliError::Usage(format!("reading stdin: {e}")))?;
            bytes
        }
    };
    let named = args
        .trace
        .as_ref()
        .map_or("the input".to_string(), |p| p.display().to_string());
    let decoded = input::decode(&bytes);
    let utf16 = matches!(
        decoded.encoding,
        Encoding::Utf16Le { .. } | Encoding::Utf16Be { .. }
    );
    if let Some((what, hint)) = not_text(&bytes).filter(|_| !utf16) {
        return Err(CliError::Usage(format!(
            "{named} is {what}, not a stack trace or a map{hint}"
        )));
    }
    Ok(decoded)
}

/// What a binary input is, and what to do with it: an archive of bundles and maps (`--maps ARCHIVE`), Hermes
/// bytecode, or any file with NUL bytes in its head (a trace is text: UTF-8, or UTF-16, whose NULs `input::decode`
/// tells apart).
fn not_text(bytes: &[u8]) -> Option<(&'static str, &'static str)> {
    let head = &bytes[..bytes.len().min(64 << 10)];
    let zip = head.starts_with(b"PK\x03\x04") || head.starts_with(b"SYSB");
    if !head.contains(&0) && !zip {
        return None;
    }
    let asar = head.len() >= 16 && head[..4] == 4u32.to_le_bytes();
    Some(if asar {
        (
            "an asar archive (an Electron app's app.asar)",
            ": give it to --maps to read its bundles and maps in place (`sourcemap-ls symbolicate --maps ARCHIVE < \
             trace`)",
        )
    } else if zip {
        (
            "a zip (a Sentry artifact bundle?)",
            ": give it to --maps to read its bundles and maps in place (`sourcemap-ls symbolicate --maps ZIP < trace`)",
        )
    } else if sourcemap_core::bundle::fit::is_hermes_bytecode(head) {
        (
            "Hermes bytecode",
            ": symbolicate a trace against its map (`sourcemap-ls symbolicate MAP < trace`)",
        )
    } else {
        ("a binary file (NUL bytes in its first 64 KiB)", "")
    })
}

/// Text output as bytes on stdout: bytes of the input that were not UTF-8 as they came (`input::to_bytes`), after
/// the UTF-8 byte-order mark when the input had one.
fn write_out(text: &str, encoding: Encoding) {
    let mut out = std::io::stdout().lock();
    let bom: &[u8] = if encoding == Encoding::Utf8Bom {
        b"\xEF\xBB\xBF"
    } else {
        b""
    };
    // A closed stdout (`| head`) ends the output, as `print!` would not quietly.
    let _ = out
        .write_all(bom)
        .and_then(|()| out.write_all(&input::to_bytes(text)))
        .and_then(|()| out.flush());
}

/// metro-symbolicate's positional form, `MAP LINE [COLUMN]` (its `symbolicate.js`: the column defaults to 0), taken
/// off the end of `maps`: one position, as the `LINE COLUMN` line it is then read as (`--input-line-start`,
/// `--input-column-start` apply). A number that names an existing file is a file.
fn take_positional(maps: &mut Vec<PathBuf>) -> Option<String> {
    let is_number = |p: &PathBuf| {
        let s = p.to_string_lossy();
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && !p.exists()
    };
    if maps.len() < 2 || !maps.last().is_some_and(is_number) {
        return None;
    }
    let last = maps.pop()?;
    let (line, column) = if maps.len() >= 2 && maps.last().is_some_and(is_number) {
        (maps.pop()?, last)
    } else {
        (last, PathBuf::from("0"))
    };
    // `MAP N.js LINE [COLUMN]`: a position in module N of a RAM bundle (or `seg-S_N.js`, `seg-S.js`).
    let module = |p: &PathBuf| {
        sourcemap_core::internal::map::metro::metro_file(&p.to_string_lossy()).is_some()
            && !p.exists()
    };
    let file = if maps.len() >= 2 && maps.last().is_some_and(module) {
        format!("{} ", maps.pop()?.display())
    } else {
        String::new()
    };
    Some(format!("{file}{} {}\n", line.display(), column.display()))
}

fn frames_mut(out: &mut [SymbolicatedLine]) -> impl Iterator<Item = &mut SymbolicatedFrame> {
    out.iter_mut().filter_map(SymbolicatedLine::frame_mut)
}

/// The answer as text: in the trace's own shape when it was JSON log lines or an event (`as_found`), else a line
/// per line, each frame followed by its `--explain` lines.
fn print_text(
    out: &[SymbolicatedLine],
    as_found: Option<(&TraceDocument, &EventOptions)>,
    explained: &[Vec<String>],
    options: TextOptions,
) -> String {
    if let Some((document, event)) = as_found {
        // JSON log lines and events come back in their own shape (valid JSON, frames written in).
        return document.render_with(out, options, event);
    }
    if explained.is_empty() {
        return render_text(out, options);
    }
    let mut text = String::new();
    let mut k = 0;
    for l in out {
        text.push_str(&render_text(std::slice::from_ref(l), options));
        if let SymbolicatedLine::Frame(f) = l {
            // Explanations end as the frame's line did (CRLF input stays CRLF).
            let end = if f.frame.raw.ends_with('\r') {
                "\r\n"
            } else {
                "\n"
            };
            for line in &explained[k] {
                text.push_str(&format!("      | {line}{end}"));
            }
            k += 1;
        }
    }
    text
}

/// What the JSON answer says per frame beside its position (by frame number).
struct FrameNotes<'a> {
    explained: &'a [Vec<String>],
    mismatched: &'a [usize],
    today: &'a [Option<FrameToday>],
}

/// The answer as `--json`: metro-symbolicate's `stack` and `codeFrame` (1-based lines, 0-based columns), with
/// what sourcemap-ls adds beside them.
fn print_json(
    out: &[SymbolicatedLine],
    catalog: &FilesPlace,
    notes: &FrameNotes,
    problems: &[Value],
    ambiguous: &[AmbiguousFile],
    options: TextOptions,
) {
    // The code frame's source: sourcesContent, else the file next to the map.
    let code_frame = first_code_frame(out, |f| {
        catalog.source_text(f.map?, f.original.as_ref()?.source_id)
    });
    let mut k = 0;
    let stack: Vec<Value> = out
        .iter()
        .filter_map(|l| match l {
            SymbolicatedLine::Text(_) => None,
            SymbolicatedLine::Frame(f) => {
                k += 1;
                let explain = notes.explained.get(k - 1);
                // Where the original position is in the local file today, 1-based like `original`.
                let today = notes.today[k - 1].as_ref();
                let current = today.and_then(|t| t.now).map(|now| {
                    let (line, column) = position_json(now.line, now.column);
                    json!({"line": line, "column": column, "status": now.status})
                });
                // The source's file here when its text is not the map's copy: the position is the copy's.
                let local_differs = today.map(|t| {
                    json!({"path": shown_path(&t.path), "edited": t.now.is_some()})
                });
                // A line-only frame has no column on either side (`"precision": "line"`).
                let line_only = f.frame.precision == Precision::Line;
                let generated = f.frame.generated.map(|g| {
                    let (line, column) = position_json(g.line, g.column);
                    let column = (!line_only).then_some(column);
                    json!({"file": f.frame.file, "line": line, "column": column})
                });
                let original = f.original.as_ref().map(|o| {
                    let (line, column) = position_json(o.line, o.column);
                    let column = (!line_only).then_some(column);
                    json!({
                        "source": o.source, "path": o.path, "line": line, "column": column, "name": o.name,
                        "function": o.function, "functionSource": o.function_source,
                    })
                });
                Some(json!({
                    "raw": f.frame.line_as_written(),
                    "generated": generated,
                    "original": original,
                    "ignored": f.ignored,
                    "text": render_frame(f, options),
                    "unresolved": f.unresolved,
                    "mapMismatch": notes.mismatched.contains(&(k - 1)),
                    "precision": if line_only { "line" } else { "column" },
                    "inEval": f.frame.in_eval,
                    "explain": explain,
                    "current": current,
                    "localDiffers": local_differs,
                }))
            }
        })
        .collect();
    let code_frame = code_frame.map(|(source, line, column, content)| {
        let (line, column) = position_json(line, column);
        json!({"fileName": source, "location": {"row": line, "column": column}, "content": content})
    });
    // JSON is Unicode: bytes of the input that were not UTF-8 are U+FFFD here.
    let answer = json!({"stack": stack, "codeFrame": code_frame, "problems": problems, "ambiguous": ambiguous_json(ambiguous)});
    println!("{}", input::lossy(&answer.to_string()));
}

/// A note on stderr when the input looks like a trace but no frame could be read, or frames were read and none was
/// mapped: never a silent unchanged echo.
/// The sources printed under the map's own name because no file here is theirs (`openable_paths`): said once, so
/// that a printed place that does not open is known as the map's copy (`--json` gives its lines in the code frame).
fn say_map_copies_only(out: &[SymbolicatedLine]) {
    let mut names: Vec<&str> = out
        .iter()
        .filter_map(|l| match l {
            SymbolicatedLine::Frame(f) => f.original.as_ref(),
            _ => None,
        })
        .filter(|o| o.path.is_none())
        .filter_map(|o| o.source.as_deref())
        .collect();
    names.sort_unstable();
    names.dedup();
    if names.is_empty() {
        return;
    }
    const SHOWN: usize = 3;
    let more = match names.len().saturating_sub(SHOWN) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    eprintln!(
        "sourcemap-ls: note: no file here is {}{more}: printed as the map names {them}; the project folder \
         given with --root opens {them}, --json shows the map's copy",
        names[..names.len().min(SHOWN)].join(", "),
        them = if names.len() == 1 { "it" } else { "them" },
    );
}

/// The answered sources whose file here is not the map's copy, said once each: the line and column printed are the
/// copy's (a loader's compiled text under the source's name, or the file as it was built), not that file's.
fn say_local_files_differ(out: &[SymbolicatedLine], today: &[Option<FrameToday>]) {
    let mut said: Vec<&Path> = Vec::new();
    for (f, t) in out.iter().filter_map(SymbolicatedLine::frame).zip(today) {
        let (Some(t), Some(o)) = (t, f.original.as_ref()) else {
            continue;
        };
        if said.contains(&t.path.as_path()) {
            continue;
        }
        said.push(&t.path);
        let file = o.path.clone().unwrap_or_else(|| shown_path(&t.path));
        let how = if t.now.is_some() {
            "was edited since the build"
        } else {
            "holds other text (the map carries a compiled copy under its name, or it is another file)"
        };
        eprintln!(
            "sourcemap-ls: note: {file} {how}: the lines and columns printed for it are the map's copy's, not the \
             file's; --json shows the copy's code{}",
            if t.now.is_some() {
                ", --explain where each line is now"
            } else {
                ""
            }
        );
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_positional_form_is_taken_off_the_end() {
        let paths = |a: &[&str]| a.iter().map(PathBuf::from).collect::<Vec<_>>();
        // (arguments, the line read, the maps left)
        let cases: &[(&[&str], Option<&str>, &[&str])] = &[
            (&["a.map", "12", "34"], Some("12 34\n"), &["a.map"]),
            (&["a.map", "12"], Some("12 0\n"), &["a.map"]),
            (
                &["a.map", "b.map", "7", "0"],
                Some("7 0\n"),
                &["a.map", "b.map"],
            ),
            (&["a.map"], None, &["a.map"]),
            (&["a.map", "trace.txt"], None, &["a.map", "trace.txt"]),
            (&["a.map", "12x"], None, &["a.map", "12x"]),
            // metro-symbolicate's module form.
            (
                &["a.map", "12.js", "3", "4"],
                Some("12.js 3 4\n"),
                &["a.map"],
            ),
            (
                &["a.map", "seg-2_7.js", "3"],
                Some("seg-2_7.js 3 0\n"),
                &["a.map"],
            ),
            // A lone number is a map's name, not a position.
            (&["12"], None, &["12"]),
        ];
        for (args, line, left) in cases {
            let mut maps = paths(args);
            assert_eq!(take_positional(&mut maps).as_deref(), *line, "{args:?}");
            assert_eq!(maps, paths(left), "{args:?}");
        }
    }
}
