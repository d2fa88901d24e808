//! `sourcemap-ls lookup`: generated → original (default) or original → generated (`--reverse`), one JSON object per
//! line. Positions use mozilla/source-map's convention: 1-based line, 0-based UTF-16 column.

use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde::Serialize;
use sourcemap_core::trace::input;
use sourcemap_core::trace::stack::lines_of;
use sourcemap_core::{Bias, IndexOptions, SourceId, SourceMapIndex};

use super::one_based::OneBasedLine;

use super::{open_index, CliError};
use sourcemap_core::bundle::fit::{check_fit, is_hermes_bytecode, FitReport, Verdict};
use sourcemap_core::bundle::locate::{find_debug_id, looks_like_map};

#[derive(Clone, Copy, ValueEnum)]
pub enum BiasArg {
    /// Greatest lower bound: the closest mapping at or before the column, the first written where several start
    /// there (default).
    Glb,
    /// Least upper bound: the closest mapping at or after the column.
    Lub,
    /// Every generated position (`--reverse` only).
    All,
}

#[derive(Args)]
pub struct LookupArgs {
    /// A source map, or a bundle whose sourceMappingURL or sidecar .map leads to one.
    map: PathBuf,
    /// Positions as LINE:COLUMN (with --reverse, LINE alone means the whole line). Read from stdin when absent.
    positions: Vec<String>,
    #[arg(long, value_enum, default_value = "glb")]
    bias: BiasArg,
    /// Look up generated positions for this original source (its `sources` entry with `sourceRoot` applied).
    #[arg(long, value_name = "SOURCE")]
    reverse: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Forward<'a> {
    line: u32,
    column: u32,
    source: Option<&'a str>,
    original_line: Option<u32>,
    original_column: Option<u32>,
    name: Option<&'a str>,
    /// Why no answer is given though the map has one: the position is not in the bundle, or the map does not fit
    /// the bundle there (only when MAP is a bundle, whose text is then at hand).
    #[serde(skip_serializing_if = "Option::is_none")]
    problem: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Reverse<'a> {
    source: &'a str,
    original_line: u32,
    original_column: Option<u32>,
    line: Option<u32>,
    column: Option<u32>,
}

/// A query position; the column is optional only for `--reverse` whole-line queries.
struct Query {
    line: u32,
    column: Option<u32>,
}

fn parse_query(text: &str, allow_line_only: bool) -> Result<Query, CliError> {
    let t = text.trim();
    if allow_line_only && !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        let line: u32 = t
            .parse()
            .map_err(|_| CliError::Usage(format!("bad line {t:?}")))?;
        if line == 0 {
            return Err(CliError::Usage("lines are 1-based here; got line 0".into()));
        }
        return Ok(Query { line, column: None });
    }
    let p = OneBasedLine::parse(t).map_err(CliError::Usage)?;
    Ok(Query {
        line: p.line,
        column: Some(p.column),
    })
}

/// The two mistakes `lookup`'s arguments invite, each said as what to do (issue 57): a URL where a file goes (nothing
/// is fetched), and a position before the file.
fn said_plainly(args: &LookupArgs) -> Result<(), CliError> {
    let first = args.map.to_string_lossy();
    if let Some((scheme, _)) = first.split_once("://") {
        if !scheme.is_empty()
            && scheme
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-')
        {
            return Err(CliError::Usage(format!(
                "{first}: lookup reads a file and fetches nothing; download it first (curl -O {first}), then \
                 `sourcemap-ls lookup FILE LINE:COLUMN`"
            )));
        }
    }
    let is_position = |t: &str| {
        let mut parts = t.split(':');
        parts
            .next()
            .is_some_and(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()))
            && parts.all(|c| !c.is_empty() && c.bytes().all(|b| b.is_ascii_digit()))
    };
    if !args.map.exists() && is_position(&first) {
        let file = args
            .positions
            .iter()
            .find(|p| Path::new(p.as_str()).exists());
        return Err(CliError::Usage(match file {
            Some(file) => format!(
                "the file comes first, then the positions: `sourcemap-ls lookup {file} {first}`"
            ),
            None => format!(
                "{first} is a position, not a file: `sourcemap-ls lookup FILE LINE:COLUMN` (FILE a map, or a bundle \
                 that leads to one)"
            ),
        }));
    }
    Ok(())
}

pub fn run(args: LookupArgs) -> Result<(), CliError> {
    if args.reverse.is_none() && matches!(args.bias, BiasArg::All) {
        return Err(CliError::Usage("--bias all needs --reverse".into()));
    }
    said_plainly(&args)?;
    let index = open_index(&args.map, IndexOptions::default())?;
    let bundle = BundleText::of(&args.map, &index);
    // Answers name the source as the map does (its `sources` entry with `sourceRoot` applied).
    let reverse_source = match &args.reverse {
        Some(s) => {
            let id = find_source(&index, s)?;
            let url = index.source(id).url.as_deref().unwrap_or(s.as_str());
            Some((url, id))
        }
        None => None,
    };
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    // Each position stands alone: a bad one is said on stderr (which input line or argument) and the others are
    // answered; the exit code then says some failed.
    let mut failed = 0usize;
    let mut answer = |text: &str, what: &dyn Fn() -> String| -> Result<(), CliError> {
        // A byte that is not UTF-8 is named as U+FFFD in the error (it makes no position either way).
        let q = match parse_query(&input::lossy(text), reverse_source.is_some()) {
            Ok(q) => q,
            Err(CliError::Usage(m)) => {
                out.flush()
                    .map_err(|e| CliError::Usage(format!("writing stdout: {e}")))?;
                eprintln!("sourcemap-ls: {}: {m}", what());
                failed += 1;
                return Ok(());
            }
            Err(e) => return Err(e),
        };
        match reverse_source {
            None => forward(&index, bundle.as_ref(), &q, args.bias, &mut out),
            Some((name, id)) => reverse(&index, name, id, &q, args.bias, &mut out),
        }
    };
    let total = if args.positions.is_empty() {
        // Any bytes (`trace::input`): one line that is not UTF-8 is one bad line, not the end of the input.
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(|e| CliError::Usage(format!("reading stdin: {e}")))?;
        let text = input::decode(&bytes).text;
        let mut total = 0;
        for (n, line) in lines_of(&text).enumerate() {
            if !line.trim().is_empty() {
                total += 1;
                answer(line, &|| format!("stdin line {}", n + 1))?;
            }
        }
        total
    } else {
        for (n, p) in args.positions.iter().enumerate() {
            answer(p, &|| format!("position {} ({p:?})", n + 1))?;
        }
        args.positions.len()
    };
    out.flush()
        .map_err(|e| CliError::Usage(format!("writing stdout: {e}")))?;
    match failed {
        0 => Ok(()),
        n => Err(CliError::Usage(format!(
            "{n} of {total} positions could not be read (the others were answered)"
        ))),
    }
}

fn bias_of(b: BiasArg) -> Bias {
    match b {
        BiasArg::Lub => Bias::LeastUpperBound,
        _ => Bias::GreatestLowerBound,
    }
}

fn map_error(e: sourcemap_core::MapError) -> CliError {
    CliError::Map(e.to_string())
}

fn emit(out: &mut impl Write, value: &impl Serialize) -> Result<(), CliError> {
    serde_json::to_writer(&mut *out, value).map_err(|e| CliError::Usage(e.to_string()))?;
    out.write_all(b"\n")
        .map_err(|e| CliError::Usage(e.to_string()))
}

/// The bundle when MAP is one (its text is then the code the map describes): where its lines end, and whether the
/// map fits it (the fit check, once).
struct BundleText {
    text: Vec<u8>,
    line_starts: Vec<usize>,
    fit: Option<FitReport>,
    /// Each line's length in UTF-16 units, counted once (a one-line bundle is tens of megabytes).
    units: std::cell::RefCell<std::collections::HashMap<u32, usize>>,
}

impl BundleText {
    fn of(path: &std::path::Path, index: &SourceMapIndex) -> Option<BundleText> {
        let text = sourcemap_core::internal::fs::files::read_regular(path, 1 << 30).ok()?;
        // Hermes bytecode has no lines (its map's columns are offsets on line 1): nothing to check positions by.
        if looks_like_map(&text)
            || path.extension().is_some_and(|e| e == "map")
            || is_hermes_bytecode(&text)
            || text[..text.len().min(4096)].contains(&0)
        {
            return None;
        }
        let fit = check_fit(index, &text, find_debug_id(&text)).ok();
        if let Some(report) = fit.as_ref().filter(|r| r.verdict == Verdict::Misfit) {
            eprintln!(
                "sourcemap-ls: warning: {}: map-mismatch: {}",
                path.display(),
                report.message()
            );
        }
        let line_starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', &text).map(|i| i + 1))
            .collect();
        Some(BundleText {
            text,
            line_starts,
            fit,
            units: Default::default(),
        })
    }

    /// Why the bundle holds no code at `p` (0-based line, UTF-16 column), when it does not: a line it lacks, or a
    /// column past its line's end (the end itself is a position: a frame may point just after the last token).
    fn not_there(&self, p: sourcemap_core::GeneratedPosition) -> Option<String> {
        let Some(&start) = self.line_starts.get(p.line as usize) else {
            return Some(format!(
                "line {} is past the end of the bundle ({} lines)",
                p.line + 1,
                self.line_starts.len()
            ));
        };
        let end = self
            .line_starts
            .get(p.line as usize + 1)
            .map_or(self.text.len(), |&e| e - 1);
        let units = *self.units.borrow_mut().entry(p.line).or_insert_with(|| {
            let line = &self.text[start..end];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.is_ascii() {
                line.len()
            } else {
                String::from_utf8_lossy(line).encode_utf16().count()
            }
        });
        (p.column as usize > units).then(|| {
            format!(
                "column {} is past the end of line {} ({units} columns)",
                p.column,
                p.line + 1
            )
        })
    }
}

fn forward(
    index: &SourceMapIndex,
    bundle: Option<&BundleText>,
    q: &Query,
    bias: BiasArg,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let column = q.column.unwrap_or(0);
    let p = OneBasedLine {
        line: q.line,
        column,
    }
    .to_zero_based()
    .expect("parse_query rejects line 0");
    let problem = bundle.and_then(|b| {
        b.not_there(p).or_else(|| {
            b.fit.as_ref().and_then(|f| {
                f.withheld_answer(p, || {
                    let hit = index.answer_at(p).ok().flatten()?;
                    hit.original.map(|o| o.source)
                })
            })
        })
    });
    let original = if problem.is_some() {
        None
    } else {
        match bias {
            // The one rule of every answer at a position: the first segment written at a tie.
            BiasArg::Glb => index.answer_at(p).map(|hit| hit.and_then(|h| h.original)),
            _ => index.original_position(p, bias_of(bias)),
        }
        .map_err(map_error)?
    };
    emit(
        out,
        &Forward {
            line: q.line,
            column,
            source: original.and_then(|o| o.source_url),
            original_line: original.map(|o| o.line + 1),
            original_column: original.map(|o| o.column),
            name: original.and_then(|o| o.name),
            problem,
        },
    )
}

fn reverse(
    index: &SourceMapIndex,
    source: &str,
    id: SourceId,
    q: &Query,
    bias: BiasArg,
    out: &mut impl Write,
) -> Result<(), CliError> {
    let r = index.reverse(id).map_err(map_error)?;
    let line0 = q.line - 1;
    let mut record = |g: Option<(u32, u32)>| {
        let g = g.map(|(l, c)| OneBasedLine::from_zero_based(l, c));
        emit(
            out,
            &Reverse {
                source,
                original_line: q.line,
                original_column: q.column,
                line: g.map(|p| p.line),
                column: g.map(|p| p.column),
            },
        )
    };
    match bias {
        BiasArg::All => {
            for e in r.all_generated_positions(line0, q.column) {
                record(Some((e.generated.line, e.generated.column)))?;
            }
            Ok(())
        }
        b => {
            let found = r.generated_position(line0, q.column.unwrap_or(0), bias_of(b));
            record(found.map(|e| (e.generated.line, e.generated.column)))
        }
    }
}

/// The source named on the command line: its exact URL, else the one source whose URL ends with `/NAME`.
fn find_source(index: &SourceMapIndex, name: &str) -> Result<SourceId, CliError> {
    if let Some(id) = index.source_id(name) {
        return Ok(id);
    }
    let suffix = format!("/{}", name.trim_start_matches("./"));
    let matches: Vec<SourceId> = index
        .sources()
        .iter()
        .enumerate()
        .filter(|(_, s)| s.url.as_deref().is_some_and(|u| u.ends_with(&suffix)))
        .map(|(i, _)| SourceId(i as u32))
        .collect();
    match matches.as_slice() {
        [one] => Ok(*one),
        [] => Err(CliError::Usage(format!(
            "source {name:?} is not in the map"
        ))),
        _ => Err(CliError::Usage(format!(
            "source {name:?} is ambiguous: it ends {} sources; give the full entry",
            matches.len()
        ))),
    }
}
