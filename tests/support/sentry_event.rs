//! The round-trip corpus's bundled crashes as Sentry events, as a browser SDK sends them: the same events for the
//! pipeline's end-to-end test (`tests/pipeline.rs`) and its benchmark (`sourcemap-bench --pipeline`).

use serde_json::{json, Value};

/// A V8 frame line, `at [NAME (]FILE:LINE:COLUMN[)]`: (name, file, line, column), V8's 1-based line and column.
pub fn v8_frame(line: &str) -> Option<(Option<&str>, &str, u32, u32)> {
    let l = line.trim().strip_prefix("at ")?;
    let (function, location) = match l.rsplit_once(" (") {
        Some((f, loc)) => (Some(f), loc.strip_suffix(')')?),
        None => (None, l),
    };
    let (rest, column) = location.rsplit_once(':')?;
    let (file, line) = rest.rsplit_once(':')?;
    Some((function, file, line.parse().ok()?, column.parse().ok()?))
}

/// Event `id`: the trace's frames in files under `prefix` (oldest first, as Sentry orders them; 1-based lines and
/// columns as V8 prints them), each bundle named by its URL under `host`; the trace's first line gives the
/// exception's type and value. Frames in other files (node's own) are left out, as a browser has none.
pub fn sentry_event(id: usize, trace: &str, prefix: &str, host: &str) -> Value {
    let mut frames: Vec<Value> = trace
        .lines()
        .filter_map(v8_frame)
        .filter_map(|(function, file, line, column)| {
            let file = file.strip_prefix(prefix)?;
            Some(json!({
                "abs_path": format!("{host}/{file}"),
                "filename": format!("~/{file}"),
                "lineno": line,
                "colno": column,
                "function": function,
                "in_app": true,
            }))
        })
        .collect();
    frames.reverse();
    let (kind, message) = trace
        .lines()
        .next()
        .and_then(|l| l.split_once(": "))
        .unwrap_or(("Error", ""));
    json!({
        "event_id": format!("{id:032x}"),
        "platform": "javascript",
        "exception": {"values": [{"type": kind, "value": message, "stacktrace": {"frames": frames}}]},
    })
}
