//! The two other inputs metro-symbolicate takes besides stack traces, profiles and heap snapshots: a Hermes coverage
//! trace (`--hermes-coverage`: `{"executedFunctions": [{line, column, SourceURL}]}`) and a bytecode size attribution
//! (`--attribution`: JSON lines, each with a `location` `{filename?, line?, column?, virtualOffset?, bytecodeSize?}`),
//! read into positions to look up; the caller answers in metro-symbolicate's shapes.
//!
//! Positions, as metro-symbolicate 0.84 reads them (`Symbolication.js`; its lookups take a 1-based line and a 0-based
//! column, `getOriginalPositionDetailsFor` with the defaults `inputLineStart` 1, `inputColumnStart` 0):
//! - coverage: `line + inputLineStart`, `column + inputColumnStart` (`symbolicateHermesCoverageTrace`): `line` and
//!   `column` are 0-based;
//! - attribution: `line` (default `inputLineStart`: 1) as it is, 1-based; `column`, else `virtualOffset`, 0-based
//!   (`symbolicateAttribution`). A bytecode range (`virtualOffset` and `bytecodeSize`, no `column`) whose first
//!   address maps to no source is walked by metro-symbolicate column by column up to its end; this reader gives the
//!   range (`Attribution::range`) for the caller to do the same.
//!
//! Neither input could be recorded here (the npm Hermes CLI has no coverage profiler and no `hbc-attribute`): the
//! conventions above are metro-symbolicate's, not checked on an engine's output.
//!
//! Cost: coverage entries are 40 B each; attribution lines keep their parsed JSON (`serde_json::Value`) to write
//! back.

use serde::Deserialize;
use serde_json::Value;

use super::ProfileError;
use crate::GeneratedPosition;

/// Whether `bytes` are a Hermes coverage trace: an object with `executedFunctions`.
pub fn is_coverage(bytes: &[u8]) -> bool {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(1 << 16)]);
    let t = head.trim_start_matches('\u{feff}').trim_start();
    t.starts_with('{') && t.contains("\"executedFunctions\"")
}

/// Whether `bytes` are attribution JSON lines: the first non-empty line is an object with a `location` object.
pub fn is_attribution(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(1 << 20)];
    let mut lines = head.split(|&b| b == b'\n');
    let Some(first) = lines.find(|l| !l.iter().all(u8::is_ascii_whitespace)) else {
        return false;
    };
    // A line cut by the head is no attribution record (those are short); a one-line profile of 33 MB is not read as
    // one (parsing its first megabyte as a value was 12 ms of every run).
    let cut = first.as_ptr_range().end == head.as_ptr_range().end && head.len() < bytes.len();
    !cut && memchr::memmem::find(first, b"\"location\"").is_some()
        && serde_json::from_slice::<Value>(first).is_ok_and(|v| v["location"].is_object())
}

#[derive(Deserialize)]
struct RawCoverage {
    #[serde(rename = "executedFunctions", default)]
    executed_functions: Option<Vec<RawExecuted>>,
}

#[derive(Deserialize)]
struct RawExecuted {
    line: u64,
    column: u64,
    #[serde(rename = "SourceURL", default)]
    source_url: Option<String>,
}

/// One executed function of a coverage trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Executed {
    /// `SourceURL`, when it names one.
    pub url: Option<String>,
    /// 0-based, as written.
    pub position: GeneratedPosition,
}

fn clamp(n: u64) -> u32 {
    n.min(u64::from(u32::MAX)) as u32
}

/// The executed functions, in order (none when `executedFunctions` is absent, as metro-symbolicate answers `[]`).
pub fn read_coverage(bytes: &[u8]) -> Result<Vec<Executed>, ProfileError> {
    let raw: RawCoverage = serde_json::from_slice(bytes)
        .map_err(|e| ProfileError::json("Hermes coverage trace", e))?;
    Ok(raw
        .executed_functions
        .unwrap_or_default()
        .into_iter()
        .map(|e| Executed {
            url: e.source_url.filter(|u| !u.is_empty()),
            position: GeneratedPosition {
                line: clamp(e.line),
                column: clamp(e.column),
            },
        })
        .collect())
}

/// One line of an attribution.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribution {
    /// The line's object, written back with `location` replaced.
    pub object: Value,
    /// `location.filename`.
    pub file: Option<String>,
    /// 0-based; `None` when the location has neither `column` nor `virtualOffset` (metro-symbolicate then looks up
    /// `NaN` and finds nothing).
    pub position: Option<GeneratedPosition>,
    /// A bytecode range, `[virtualOffset, virtualOffset + bytecodeSize)`, when the location has no `column`.
    pub range: Option<(u32, u32)>,
}

fn number(v: &Value) -> Option<u64> {
    // metro-symbolicate takes `Number(x)`: numbers and numeric strings.
    match v {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The attribution's lines, in order; empty lines are skipped (metro-symbolicate's line splitter would fail on
/// them). `line_start` and `column_start` are the bases of `location.line` and `location.column` /
/// `virtualOffset` (metro-symbolicate's `--input-line-start`, default 1, and `--input-column-start`, default 0;
/// a location without a line is on the first line).
pub fn read_attribution(
    bytes: &[u8],
    line_start: u32,
    column_start: u32,
) -> Result<Vec<Attribution>, ProfileError> {
    let (line_start, column_start) = (u64::from(line_start), u64::from(column_start));
    let mut out = Vec::new();
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let object: Value = serde_json::from_slice(line)
            .map_err(|e| ProfileError::new(format!("attribution line {}: not JSON: {e}", n + 1)))?;
        let loc = &object["location"];
        if !loc.is_object() {
            return Err(ProfileError::new(format!(
                "attribution line {}: no `location` object",
                n + 1
            )));
        }
        let line_1 = if loc["line"].is_null() {
            Some(line_start)
        } else {
            number(&loc["line"])
        };
        let column = if loc["column"].is_null() {
            number(&loc["virtualOffset"])
        } else {
            number(&loc["column"])
        };
        let range = match (
            loc["column"].is_null(),
            number(&loc["virtualOffset"]),
            number(&loc["bytecodeSize"]),
        ) {
            (true, Some(start), Some(size)) if start >= column_start => Some((
                clamp(start - column_start),
                clamp(start + size - column_start),
            )),
            _ => None,
        };
        let position = match (line_1, column) {
            (Some(l), Some(c)) if l >= line_start && c >= column_start => Some(GeneratedPosition {
                line: clamp(l - line_start),
                column: clamp(c - column_start),
            }),
            _ => None,
        };
        out.push(Attribution {
            file: loc["filename"].as_str().map(str::to_string),
            object,
            position,
            range,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coverage_positions_are_zero_based() {
        let text = br#"{"executedFunctions":[{"line":0,"column":15,"SourceURL":"app.js"},{"line":2,"column":0}]}"#;
        assert!(is_coverage(text));
        let c = read_coverage(text).unwrap();
        assert_eq!(c[0].url.as_deref(), Some("app.js"));
        assert_eq!(
            c[0].position,
            GeneratedPosition {
                line: 0,
                column: 15
            }
        );
        assert_eq!(c[1].position, GeneratedPosition { line: 2, column: 0 });
    }

    #[test]
    fn attribution_lines_are_one_based() {
        let text = b"{\"location\":{\"line\":3,\"column\":4}}\n{\"location\":{\"virtualOffset\":\"10\",\"bytecodeSize\":5}}\n";
        assert!(is_attribution(text));
        let a = read_attribution(text, 1, 0).unwrap();
        let b = read_attribution(text, 0, 1).unwrap();
        assert_eq!(
            b[0].position,
            Some(GeneratedPosition { line: 3, column: 3 })
        );
        assert_eq!(b[1].range, Some((9, 14)));
        assert_eq!(
            a[0].position,
            Some(GeneratedPosition { line: 2, column: 4 })
        );
        assert_eq!(a[0].range, None);
        assert_eq!(
            a[1].position,
            Some(GeneratedPosition {
                line: 0,
                column: 10
            })
        );
        assert_eq!(a[1].range, Some((10, 15)));
    }
}
