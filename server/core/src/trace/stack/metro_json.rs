//! Metro's `/symbolicate` request body (`{"stack": [{"file", "lineNumber", "column", "methodName"}]}`).

use super::{FrameFormat, Precision, StackFrame, StackLine};
use crate::map::index::GeneratedPosition;
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct MetroFrame {
    #[serde(default)]
    file: Option<String>,
    #[serde(default)]
    line_number: Option<u32>,
    #[serde(default)]
    column: Option<u32>,
    #[serde(default)]
    method_name: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct MetroRequest {
    stack: Vec<MetroFrame>,
}

/// Parses Metro's `/symbolicate` JSON (`{"stack": [...]}`) or a JSON array of such frames; `None` if the text is
/// not that.
pub fn parse_metro_json(text: &str) -> Option<Vec<StackLine>> {
    let t = text.trim();
    let frames: Vec<MetroFrame> = if t.starts_with('{') {
        serde_json::from_str::<MetroRequest>(t).ok()?.stack
    } else if t.starts_with('[') {
        serde_json::from_str(t).ok()?
    } else {
        return None;
    };
    Some(metro_lines(frames))
}

/// [`parse_metro_json`] of a JSON document already parsed: an object with a `stack`, or an array (anything else is
/// not Metro's, and is not read again).
pub fn parse_metro_value(value: &serde_json::Value) -> Option<Vec<StackLine>> {
    use serde::Deserialize;
    let frames: Vec<MetroFrame> = match value {
        serde_json::Value::Object(o) if o.contains_key("stack") => {
            MetroRequest::deserialize(value).ok()?.stack
        }
        serde_json::Value::Array(_) => Vec::<MetroFrame>::deserialize(value).ok()?,
        _ => return None,
    };
    Some(metro_lines(frames))
}

pub(super) fn metro_lines(frames: Vec<MetroFrame>) -> Vec<StackLine> {
    {
        frames
            .into_iter()
            .map(|f| {
                let raw = serde_json::json!({
                    "file": f.file, "lineNumber": f.line_number, "column": f.column, "methodName": f.method_name,
                })
                .to_string();
                let generated = match (f.line_number, f.column) {
                    // Metro: 1-based line, 0-based column.
                    (Some(l), Some(c)) => l.checked_sub(1).map(|line| GeneratedPosition { line, column: c }),
                    _ => None,
                };
                StackLine::Frame(StackFrame {
                    raw,
                    format: FrameFormat::MetroJson,
                    function: f.method_name.filter(|m| !m.is_empty()),
                    is_async: false,
                    is_constructor: false,
                    file: f.file,
                    written: f.line_number.zip(f.column),
                    generated,
                    native: false,
                    function_span: None,
                    location_span: None,
                    frame_span: 0..0,
                    precision: Precision::Column,
                    in_eval: false,
                    as_written: None,
                })
            })
            .collect()
    }
}
