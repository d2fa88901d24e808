//! Large answers bypass tower-lsp's JSON values.
//!
//! tower-lsp turns every result into a `serde_json::Value` tree, writes the tree as text, then drops it: for the
//! answer to a 20,000-frame log (~12 MB of JSON, some 600,000 values) that was 40 % of the request (`perf`). A
//! handler whose answer can be large serializes it once, to bytes, with [`stash`]; tower-lsp carries a short
//! placeholder string as the result, and [`pump`], between tower-lsp and stdout, writes the bytes in its place. Every
//! other message passes byte for byte.
//!
//! The placeholder holds a number drawn at random when the process starts, so no text a client sends (echoed in an
//! answer) can be taken for one; and it is replaced only where it is a response's whole `result`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{LazyLock, Mutex};

use serde::Serialize;
use tokio::io::{AsyncRead, AsyncWrite};

/// A result tower-lsp serializes as the placeholder string; the pump writes the stashed answer instead.
#[derive(Debug, Serialize)]
#[serde(transparent)]
pub struct Stashed(String);

/// Answers stashed and not yet written, by number. More than this waiting means some were dropped by tower-lsp
/// (a request cancelled after its handler returned): the oldest go.
const MAX_WAITING: usize = 64;

/// Messages from tower-lsp longer than this are never a placeholder response (~90 bytes and the request's id),
/// and are passed on without being looked into.
const MAX_PLACEHOLDER_MESSAGE: usize = 4096;

struct Stash {
    prefix: String,
    next: AtomicU64,
    waiting: Mutex<BTreeMap<u64, Vec<u8>>>,
}

static STASH: LazyLock<Stash> = LazyLock::new(|| {
    use std::hash::BuildHasher;
    // `RandomState` is keyed from the OS's random source once per process.
    let nonce = std::collections::hash_map::RandomState::new().hash_one(std::process::id());
    Stash {
        prefix: format!("\u{0}sourcemap-ls:result:{nonce:016x}:"),
        next: AtomicU64::new(0),
        waiting: Mutex::new(BTreeMap::new()),
    }
});

/// Serializes `answer` now and returns the placeholder to hand to tower-lsp in its place.
pub fn stash<T: Serialize>(answer: &T) -> serde_json::Result<Stashed> {
    let bytes = serde_json::to_vec(answer)?;
    let n = STASH.next.fetch_add(1, Ordering::Relaxed);
    let mut waiting = STASH.waiting.lock().expect("stash lock");
    waiting.insert(n, bytes);
    while waiting.len() > MAX_WAITING {
        waiting.pop_first();
    }
    Ok(Stashed(format!("{}{n}", STASH.prefix)))
}

/// The stashed answer a placeholder stands for (taken: each is written once).
fn take(placeholder: &str) -> Option<Vec<u8>> {
    let n: u64 = placeholder.strip_prefix(&STASH.prefix)?.parse().ok()?;
    STASH.waiting.lock().expect("stash lock").remove(&n)
}

/// `body` with its result placeholder replaced by the stashed answer, as (before, answer, after); `None` when the
/// message is not a response whose whole result is a placeholder.
fn splice(body: &[u8]) -> Option<(&[u8], Vec<u8>, &[u8])> {
    // The prefix after its NUL, which serde_json writes as `\u0000`.
    if body.len() > MAX_PLACEHOLDER_MESSAGE
        || memchr::memmem::find(body, &STASH.prefix.as_bytes()[1..]).is_none()
    {
        return None;
    }
    let message: serde_json::Value = serde_json::from_slice(body).ok()?;
    let placeholder = message.get("result")?.as_str()?;
    // The placeholder as tower-lsp's serde_json wrote it, found exactly once.
    let written = serde_json::to_string(placeholder).ok()?;
    let at = memchr::memmem::find(body, written.as_bytes())?;
    let end = at + written.len();
    if memchr::memmem::find(&body[end..], written.as_bytes()).is_some() {
        return None;
    }
    let answer = take(placeholder)?;
    Some((&body[..at], answer, &body[end..]))
}

/// Copies LSP messages from tower-lsp (`input`) to the client (`output`) until `input` ends, writing stashed
/// answers in place of their placeholders.
pub async fn pump(input: impl AsyncRead + Unpin, output: impl AsyncWrite + Unpin) {
    super::framing::relay(
        input,
        output,
        |body| {
            let (before, answer, after) = splice(body)?;
            Some(vec![before.to_vec(), answer, after.to_vec()])
        },
        |_, _| {},
    )
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsp::transport::framing::frame;
    use serde_json::{json, Value};

    /// The messages of an LSP byte stream.
    fn messages(mut bytes: &[u8]) -> Vec<Value> {
        let mut out = Vec::new();
        while !bytes.is_empty() {
            let head_end = bytes.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
            let length: usize = std::str::from_utf8(&bytes[16..head_end - 4])
                .unwrap()
                .parse()
                .unwrap();
            out.push(serde_json::from_slice(&bytes[head_end..head_end + length]).unwrap());
            bytes = &bytes[head_end + length..];
        }
        out
    }

    #[tokio::test]
    async fn stashed_answers_are_written_in_place_and_everything_else_passes_unchanged() {
        let answer = json!({"text": "a\u{0}b \"quoted\"", "frames": [{"line": 1}, {"line": 2}]});
        let placeholder = stash(&answer).unwrap();
        let placeholder = serde_json::to_value(&placeholder).unwrap();
        let second = serde_json::to_value(stash(&json!([1, 2])).unwrap()).unwrap();
        let long_id = "i".repeat(1000);
        // A client's text that looks like a placeholder (another nonce, or echoed inside an answer) is left alone.
        let lookalike = "\u{0}sourcemap-ls:result:0000000000000000:0";
        let echoed = json!({"jsonrpc": "2.0", "id": 3, "result": {"text": placeholder}});
        let mut input = frame(
            &json!({"jsonrpc": "2.0", "method": "window/logMessage", "params": {"type": 3, "message": "hi"}}),
        );
        input.extend(frame(
            &json!({"jsonrpc": "2.0", "id": 1, "result": placeholder}),
        ));
        input.extend(frame(
            &json!({"jsonrpc": "2.0", "id": 2, "result": lookalike}),
        ));
        input.extend(frame(&echoed));
        // A request id can be any string.
        input.extend(frame(
            &json!({"jsonrpc": "2.0", "id": long_id, "result": second}),
        ));
        let mut out = Vec::new();
        pump(&input[..], &mut out).await;
        let got = messages(&out);
        assert_eq!(got[0]["params"]["message"], "hi");
        assert_eq!(got[1], json!({"jsonrpc": "2.0", "id": 1, "result": answer}));
        assert_eq!(got[2]["result"], lookalike);
        assert_eq!(got[3], echoed);
        assert_eq!(
            got[4],
            json!({"jsonrpc": "2.0", "id": long_id, "result": [1, 2]})
        );
        // Written once: the same placeholder again is not an answer any more.
        assert!(take(placeholder.as_str().unwrap()).is_none());
    }
}
