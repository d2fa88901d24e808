//! `sourcemap-ls symbolicate [MAP ...] [--json] [flags] [< trace | --trace FILE]`: a stack trace in any common
//! format → original frames. Without MAP, each frame's map is found from its file: the file name (query string
//! dropped) is looked for under `--root` (default: the current directory), and that bundle's `sourceMappingURL` or
//! sidecar map is used. With MAPs, a frame uses the map whose bundle or `file` has the frame's file name (or the
//! same `debugId` as the frame's bundle); a single MAP serves every frame that is not obviously foreign. Maps are
//! opened lazily (a section is validated and indexed when a frame first touches it).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::{json, Value};
use sourcemap_core::bundle::fit::{Checked, FitReport, Verdict};
use sourcemap_core::bundle::locate::{load_map, looks_like_map};
use sourcemap_core::bundle::resolve::AmbiguousFile;
use sourcemap_core::map::metro::{metro_file, Space};
use sourcemap_core::session::Fit;
use sourcemap_core::source::today::{moved_by, Status, TodayPosition};
use sourcemap_core::trace::document::TraceDocument;
use sourcemap_core::trace::input::{self, Encoding, TraceText};
use sourcemap_core::trace::stack::{PlainInput, Precision, StackFrame, StackLine};
use sourcemap_core::trace::symbolicate::{
    first_code_frame, frame_segment_in, frame_space, render_frame, render_text, SymbolicatedFrame,
    SymbolicatedLine, TextOptions,
};
use sourcemap_core::{GeneratedPosition, SourceMapIndex};

use super::frame_maps::{
    frames_today, load_for, original_text, resolve, shown, Catalog, FunctionLines, KnownMap,
    Resolution,
};
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
    /// The bundle a file of the trace is, when several under --root could be (repeatable): NAME is the file as the
    /// trace prints it, or its file name.
    #[arg(long = "bundle", value_name = "NAME=PATH", value_parser = parse_bundle_choice)]
    bundles: Vec<(String, PathBuf)>,
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
        .map(|p| load_for(p, positions.as_deref()))
        .collect::<Result<Vec<_>, _>>()?;
    // The trace is never the bundle of a map given for it, whatever the naming says.
    if let Some(trace) = &args.trace {
        for m in &mut explicit {
            m.bundle.exclude(trace);
        }
    }
    let root = super::frame_maps::root_dir(args.root.as_deref())?;
    let mut catalog = Catalog::new(explicit, root, args.dev_server);
    catalog.chosen = args.bundles.iter().cloned().collect();
    catalog.map_dirs = map_dirs;
    catalog.debug_ids = sourcemap_core::trace::stack::debug_ids_in(&text);
    let lines = if args.hermes_crash {
        let Some(first) = catalog.maps.first() else {
            return Err(CliError::Usage(
                "--hermes-crash needs the Hermes source map as the first MAP".into(),
            ));
        };
        if !first.index.has_metro_files() {
            // Said before anything else: a map without function offsets answers no crash frame.
            sourcemap_core::trace::hermes_crash::function_offsets(&first.index)
                .map_err(CliError::Map)?;
        }
        sourcemap_core::trace::hermes_crash::parse_hermes_crash(&text, &first.index)
            .map_err(CliError::Usage)?
    } else {
        document.lines.clone()
    };
    let Resolution {
        mut out,
        chosen,
        printed,
        shifts,
        mismatched,
        problems,
        ambiguous,
        jest,
    } = resolve(
        &mut catalog,
        lines,
        args.apply_shift,
        FunctionLines::NotWanted,
    );
    openable_paths(&mut out, &catalog.maps);
    // The build's position is the answer (the crash's truth); where the source's file was edited since, where that
    // code is now goes beside it.
    // Only the JSON answer and `--explain` say it: plain text reads no local file for it.
    let today = if args.json || args.explain {
        frames_today(&out, &catalog.maps)
    } else {
        Vec::new()
    };
    let explained: Vec<Vec<String>> = if args.explain {
        out.iter()
            .filter_map(SymbolicatedLine::frame)
            .enumerate()
            .map(|(k, f)| {
                let mut lines = explain(f, &chosen[k], &catalog.maps, printed[k], shifts[k]);
                lines.extend(jest[k].clone());
                lines.extend(
                    today[k]
                        .as_ref()
                        .map(|(path, now)| explain_today(f, path, *now)),
                );
                lines
            })
            .collect()
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
        let mut answer = print_text(&out, as_found.then_some(&document), &explained, options);
        // The last line's end as it came: none when the input had none.
        if !text.is_empty() && !text.ends_with('\n') && answer.ends_with('\n') {
            answer.pop();
        }
        write_out(&answer, encoding);
        return Ok(());
    }
    let notes = FrameNotes {
        explained: &explained,
        mismatched: &mismatched,
        today: &today,
    };
    print_json(&out, &catalog, &notes, &problems, &ambiguous, options);
    Ok(())
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
            let is_map = head.is_ok_and(|b| looks_like_map(&b)) || load_map(last).is_ok();
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
    Ok(input::decode(&bytes))
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
        sourcemap_core::map::metro::metro_file(&p.to_string_lossy()).is_some() && !p.exists()
    };
    let file = if maps.len() >= 2 && maps.last().is_some_and(module) {
        format!("{} ", maps.pop()?.display())
    } else {
        String::new()
    };
    Some(format!("{file}{} {}\n", line.display(), column.display()))
}

/// Each answered frame's source as a path that opens from the working directory (`OriginalFrame::path`): a relative
/// `sources` entry (no scheme, not absolute) joined to its map's folder, shown relative to the working directory
/// (climbing with `..` where they share a folder below the root), else absolute. Sources the map gives as absolute paths or URLs (`webpack://…`) are left as the map
/// writes them.
fn openable_paths(out: &mut [SymbolicatedLine], maps: &[KnownMap]) {
    for f in frames_mut(out) {
        let (Some(m), Some(o)) = (f.map, f.original.as_mut()) else {
            continue;
        };
        let Some(source) = o.source.as_deref() else {
            continue;
        };
        if source.contains(':') || Path::new(source).is_absolute() || source.is_empty() {
            continue;
        }
        let Some(map) = maps.get(m) else { continue };
        let Ok(cwd) = std::env::current_dir() else {
            continue;
        };
        // The map's folder as the system resolves it (a symlinked `dist/`), then the source's `..` taken lexically.
        let dir = std::fs::canonicalize(cwd.join(&map.dir)).unwrap_or_else(|_| cwd.join(&map.dir));
        let joined = lexically_normal(&dir.join(source));
        let shown = from_dir(&cwd, &joined);
        if shown != source {
            o.path = Some(shown);
        }
    }
}

/// `path` (absolute, normal) as it opens from `dir`: relative, climbing with `..` where they share a folder below
/// the root (`../src/app.js`), else absolute.
fn from_dir(dir: &Path, path: &Path) -> String {
    let (d, p): (Vec<_>, Vec<_>) = (dir.components().collect(), path.components().collect());
    let shared = d.iter().zip(&p).take_while(|(a, b)| a == b).count();
    if shared <= 1 {
        return path.display().to_string();
    }
    let mut out = PathBuf::new();
    for _ in shared..d.len() {
        out.push("..");
    }
    for c in &p[shared..] {
        out.push(c);
    }
    out.display().to_string()
}

/// `path` with `.` and `..` taken out without reading the disk (the source may not exist here).
fn lexically_normal(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                let up = matches!(
                    out.components().next_back(),
                    None | Some(Component::ParentDir)
                );
                if up || !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

fn frames_mut(out: &mut [SymbolicatedLine]) -> impl Iterator<Item = &mut SymbolicatedFrame> {
    out.iter_mut().filter_map(SymbolicatedLine::frame_mut)
}

/// The answer as text: in the trace's own shape when it was JSON log lines or an event (`as_found`), else a line
/// per line, each frame followed by its `--explain` lines.
fn print_text(
    out: &[SymbolicatedLine],
    as_found: Option<&TraceDocument>,
    explained: &[Vec<String>],
    options: TextOptions,
) -> String {
    if let Some(document) = as_found {
        // JSON log lines and events come back in their own shape (valid JSON, frames written in).
        return document.render(out, options);
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
    today: &'a [Option<(PathBuf, TodayPosition)>],
}

/// `--explain`'s line on a source edited since the build: where the code is in the local file now, or what became of
/// its line.
fn explain_today(f: &SymbolicatedFrame, path: &Path, now: TodayPosition) -> String {
    let build_line = f.original.as_ref().map_or(0, |o| o.line);
    let file = path.display();
    match now.status {
        Status::Unchanged | Status::Moved => format!(
            "your file now ({file}, edited since the build): this code is at {}:{} ({}); the answer is the build's position",
            now.line + 1,
            now.column,
            moved_by(build_line, now.line)
        ),
        Status::Changed => format!(
            "your file now ({file}, edited since the build): line {} was rewritten (line {} now); the answer is the \
             build's position",
            build_line + 1,
            now.line + 1
        ),
        Status::Deleted => format!(
            "your file now ({file}, edited since the build): line {} is gone (the code after it is at line {}); the \
             answer is the build's position",
            build_line + 1,
            now.line + 1
        ),
    }
}

/// The answer as `--json`: metro-symbolicate's `stack` and `codeFrame` (1-based lines, 0-based columns), with
/// what sourcemap-ls adds beside them.
fn print_json(
    out: &[SymbolicatedLine],
    catalog: &Catalog,
    notes: &FrameNotes,
    problems: &[Value],
    ambiguous: &[AmbiguousFile],
    options: TextOptions,
) {
    // The code frame's source: sourcesContent, else the file next to the map.
    let code_frame = first_code_frame(out, |f| {
        original_text(&catalog.maps[f.map?], f.original.as_ref()?.source_id)
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
                let current = notes.today[k - 1].as_ref().map(|(_, now)| {
                    let (line, column) = position_json(now.line, now.column);
                    json!({"line": line, "column": column, "status": now.status})
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
                    "createdAt": f.frame.created_at,
                    "explain": explain,
                    "current": current,
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
        Some(Fit { bundle, report }) => {
            out.push(format!("bundle text: {}", shown(bundle)));
            out.push(explain_debug_ids(
                report.bundle_debug_id.as_deref(),
                m.debug_id.as_deref(),
            ));
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
    if f.frame.in_eval {
        out.push(
            "ran inside code made by eval: the position is the eval call site, the innermost origin the engine gives"
                .into(),
        );
    }
    if f.frame.precision == Precision::Line {
        out.push(
            "the trace gives a line only: answered at line level, where every segment of that generated line maps to \
             one original line"
                .into(),
        );
    }
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
        && fit.is_some_and(|f| f.report.text_lines > 1)
    {
        out.push(
            "Hermes bytecode frame (an offset into the .hbc, on line 1) against the map of the JavaScript \
             bundle: compose the packager's and the compiler's maps (react-native's compose-source-maps) and \
             symbolicate with the composed map"
                .into(),
        );
    }
    out.push(explain_segment(&m.index, &f.frame, lookup));
    if let Some(Fit { report, .. }) = fit {
        out.push(explain_fit(report, p, shift));
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

/// Where `lookup` lands among the map's segments, and what that segment says; for a frame in a RAM bundle's module
/// or a segment, first where the map places its file.
fn explain_segment(
    index: &SourceMapIndex,
    frame: &StackFrame,
    lookup: GeneratedPosition,
) -> String {
    let at = |p: GeneratedPosition| format!("{}:{}", p.line + 1, p.column);
    let (space, placed) = match frame_space(index, frame, lookup) {
        Ok(placed) => placed,
        Err(why) => return format!("position {}: {why}", at(lookup)),
    };
    let file = frame.file.as_deref().unwrap_or("");
    // The module's source, as Metro's x_metro_module_paths names it.
    let path = metro_file(file)
        .and_then(|f| index.module_path(f))
        .map(|p| format!(" ({p})"))
        .unwrap_or_default();
    let moved = match space {
        Space::Main if placed == lookup => String::new(),
        Space::Main => format!(
            "{file} is a module of this RAM bundle{path} starting on the map's line {} (x_facebook_offsets): ",
            placed.line - lookup.line + 1
        ),
        Space::Segment(_) if placed == lookup => {
            format!("{file} is a segment: looked up in its own map (x_facebook_segments): ")
        }
        Space::Segment(_) => format!(
            "{file} is a module of a segment{path}: looked up in the segment's map, from its line {} (x_facebook_offsets): ",
            placed.line - lookup.line + 1
        ),
    };
    let lookup = placed;
    moved
        + &match frame_segment_in(index, space, lookup) {
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
                    Some(o) => format!(
                        "position {} {exact}, which the map says is {}:{}:{}{}",
                        at(lookup),
                        o.source_url.unwrap_or("<no source>"),
                        o.line + 1,
                        o.column,
                        o.name.map(|n| format!(" (name {n})")).unwrap_or_default()
                    ),
                    None => format!(
                        "position {} {exact} that maps to nothing (a 1-field segment)",
                        at(lookup)
                    ),
                }
            }
            Ok(None) => format!(
                "position {}: no segment at or before it on its line",
                at(lookup)
            ),
            Err(e) => format!("position {}: the map is invalid there: {e}", at(lookup)),
        }
}

/// What the fit check says of the map's bundle at `p` (the printed position).
fn explain_fit(report: &FitReport, p: GeneratedPosition, shift: Option<i64>) -> String {
    let at = |p: GeneratedPosition| format!("{}:{}", p.line + 1, p.column);
    let e = &report.evidence;
    match report.verdict {
        Verdict::Fits => match report.checked {
            Checked::Whole => format!(
                "fit: the map fits its bundle ({} segments checked, {} inside identifiers)",
                e.segments, e.mid_identifier
            ),
            Checked::NearFrames { stretches } => format!(
                "fit: the map fits its bundle around the frames and across a sample ({} segments checked in {} \
                 stretches, {} inside identifiers)",
                e.segments, stretches, e.mid_identifier
            ),
        },
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
    }
}

/// The bundle's and the map's debug IDs, compared.
fn explain_debug_ids(bundle: Option<&str>, map: Option<&str>) -> String {
    match (bundle, map) {
        (Some(b), Some(mid)) if b.eq_ignore_ascii_case(mid) => {
            format!("debug IDs agree: {b}")
        }
        (Some(b), Some(mid)) => {
            format!("debug IDs DIFFER: the bundle's {b}, the map's {mid}")
        }
        (Some(b), None) => format!("debug ID: the bundle has {b}, the map none"),
        (None, Some(mid)) => format!("debug ID: the map has {mid}, the bundle none"),
        (None, None) => "debug IDs: neither has one".into(),
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
