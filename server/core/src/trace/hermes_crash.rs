//! Hermes crash reports (metro-symbolicate's `--hermes-crash` input): frames given as a segment (`CJSModuleOffset`
//! or `SegmentID`), a function id and a bytecode offset within the function, resolved through the map's
//! `x_hermes_function_offsets` (per segment, the bytecode offset where each function starts). The generated position
//! is line = segment (0-based), column = function start + offset, exactly as metro-symbolicate computes it.

use std::collections::HashMap;
use std::sync::Arc;

use serde::Deserialize;

use crate::map::index::{GeneratedPosition, SourceMapIndex};
use crate::map::metro::{metro_file, Space};
use crate::trace::stack::{FrameFormat, Precision, StackFrame, StackLine};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct RawFrame {
    #[serde(default)]
    native_code: Option<bool>,
    #[serde(default, rename = "CJSModuleOffset")]
    cjs_module_offset: Option<u32>,
    #[serde(default, rename = "SegmentID")]
    segment_id: Option<u32>,
    #[serde(default, rename = "FunctionID")]
    function_id: Option<u32>,
    #[serde(default)]
    byte_code_offset: Option<u32>,
    #[serde(default, rename = "SourceURL")]
    source_url: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Crash {
    callstack: Vec<serde_json::Value>,
}

/// Why a Hermes crash report or the map's function offsets could not be read. The messages are the ones users see.
#[derive(Debug, Clone, thiserror::Error)]
pub enum HermesCrashError {
    /// The map has no `x_hermes_function_offsets`, which bytecode positions need.
    #[error("the map has no x_hermes_function_offsets (not a Hermes map?)")]
    NoFunctionOffsets,
    /// `x_hermes_function_offsets` is not an object of number arrays.
    #[error("x_hermes_function_offsets: {0}")]
    FunctionOffsets(Arc<serde_json::Error>),
    /// A key of `x_hermes_function_offsets` is not a segment number.
    #[error("x_hermes_function_offsets: segment {0:?} is not a number")]
    SegmentNotANumber(String),
    /// The text is not a JSON object with a `callstack` array.
    #[error("not a Hermes crash report: {0}")]
    NotACrashReport(Arc<serde_json::Error>),
    /// A `callstack` element is not a frame.
    #[error("callstack frame {raw}: {error}")]
    Frame {
        /// The element as JSON.
        raw: String,
        /// Why it is not a frame.
        error: Arc<serde_json::Error>,
    },
}

/// The map's `x_hermes_function_offsets`: segment → function id → bytecode offset of the function's start.
pub fn function_offsets(
    index: &SourceMapIndex,
) -> Result<HashMap<u32, Vec<u32>>, HermesCrashError> {
    function_offsets_in(index, Space::Main)
}

/// [`function_offsets`] of one generated file of the map: a segment's own map carries its own
/// (`x_facebook_segments`, `map/metro.rs`).
pub fn function_offsets_in(
    index: &SourceMapIndex,
    space: Space,
) -> Result<HashMap<u32, Vec<u32>>, HermesCrashError> {
    let range = index
        .hermes_function_offsets_in(space)
        .cloned()
        .ok_or(HermesCrashError::NoFunctionOffsets)?;
    let raw: HashMap<String, Vec<u32>> = serde_json::from_slice(&index.buffer()[range])
        .map_err(|e| HermesCrashError::FunctionOffsets(Arc::new(e)))?;
    raw.into_iter()
        .map(|(k, v)| {
            k.parse::<u32>()
                .map(|k| (k, v))
                .map_err(|_| HermesCrashError::SegmentNotANumber(k))
        })
        .collect()
}

/// Whether `text` is a Hermes crash report: a JSON object whose `callstack` is a non-empty array of frames, each a
/// `{NativeCode: true}` or carrying `FunctionID` and `ByteCodeOffset` (the shape Hermes writes; metro-symbolicate's
/// `--hermes-crash` input). Such text read as a plain trace has no frame, so this shape is unmistakable.
pub fn is_hermes_crash(text: &str) -> bool {
    let t = text.trim_start();
    if !t.starts_with('{') || !t.contains("\"callstack\"") {
        return false;
    }
    let Ok(crash) = serde_json::from_str::<Crash>(t) else {
        return false;
    };
    !crash.callstack.is_empty()
        && crash.callstack.iter().all(|f| {
            f.get("NativeCode").and_then(serde_json::Value::as_bool) == Some(true)
                || (f.get("FunctionID").is_some_and(serde_json::Value::is_u64)
                    && f.get("ByteCodeOffset")
                        .is_some_and(serde_json::Value::is_u64))
        })
}

/// Parses a crash report into frames whose generated positions come from the function offsets of `index`: of the
/// segment a frame's `SourceURL` names (`seg-S.js`, `seg-S_N.js`), as metro-symbolicate's
/// `symbolicateHermesMinidumpTrace` reads them, else of the map itself. A frame in a segment the map lacks keeps no
/// position here; looked up, its file says why (`symbolicate::frame_space`).
pub fn parse_hermes_crash(
    text: &str,
    index: &SourceMapIndex,
) -> Result<Vec<StackLine>, HermesCrashError> {
    let crash: Crash =
        serde_json::from_str(text).map_err(|e| HermesCrashError::NotACrashReport(Arc::new(e)))?;
    let mut by_space: HashMap<Space, Option<HashMap<u32, Vec<u32>>>> = HashMap::new();
    crash
        .callstack
        .into_iter()
        .map(|value| {
            let raw = value.to_string();
            let f: RawFrame =
                serde_json::from_value(value).map_err(|e| HermesCrashError::Frame {
                    raw: raw.clone(),
                    error: Arc::new(e),
                })?;
            let native = f.native_code == Some(true);
            let segment = f.cjs_module_offset.or(f.segment_id);
            let space = f
                .source_url
                .as_deref()
                .filter(|_| index.has_metro_files())
                .and_then(metro_file)
                .map_or(Ok(Space::Main), |file| index.metro_space(file));
            let offsets = match space {
                Ok(space) => by_space
                    .entry(space)
                    .or_insert_with(|| function_offsets_in(index, space).ok())
                    .as_ref(),
                Err(_) => None,
            };
            let generated = match (segment, f.function_id, f.byte_code_offset, offsets) {
                (Some(s), Some(fid), Some(off), Some(offsets)) if !native => offsets
                    .get(&s)
                    .and_then(|o| o.get(fid as usize))
                    .map(|start| GeneratedPosition {
                        line: s,
                        column: start.saturating_add(off),
                    }),
                _ => None,
            };
            Ok(StackLine::Frame(StackFrame {
                raw,
                format: FrameFormat::HermesBytecode,
                function: None,
                is_async: false,
                is_constructor: false,
                file: f.source_url,
                written: None,
                generated,
                native,
                function_span: None,
                location_span: None,
                frame_span: 0..0,
                precision: Precision::Column,
                in_eval: false,
                as_written: None,
            }))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_resolve_through_function_offsets() {
        let map = br#"{"version":3,"sources":["app.js"],"mappings":"AAAA","x_hermes_function_offsets":{"0":[0,15,235]}}"#;
        let index = SourceMapIndex::from_bytes(map.to_vec()).unwrap();
        let crash = r#"{"callstack":[{"CJSModuleOffset":0,"FunctionID":2,"ByteCodeOffset":13,"SourceURL":"app.hbc"},{"NativeCode":true},{"SegmentID":0,"FunctionID":9,"ByteCodeOffset":1}]}"#;
        let lines = parse_hermes_crash(crash, &index).unwrap();
        let frames: Vec<&StackFrame> = lines
            .iter()
            .map(|l| match l {
                StackLine::Frame(f) => f,
                StackLine::Text(_) => unreachable!(),
            })
            .collect();
        assert_eq!(
            frames[0].generated,
            Some(GeneratedPosition {
                line: 0,
                column: 248
            })
        );
        assert!(frames[1].native);
        assert_eq!(
            frames[2].generated, None,
            "an unknown function id has no position"
        );
        assert!(parse_hermes_crash("{}", &index).is_err());
    }
}
