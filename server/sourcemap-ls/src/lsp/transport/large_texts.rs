//! Large document texts bypass tower-lsp's message buffer.
//!
//! tower-lsp reads stdin through one growing buffer that is never shrunk: after a 50 MB `didOpen` the server held
//! those 50 MB for the rest of its life, beside the document's rope. The messages are therefore read here first
//! (a pump between stdin and tower-lsp): a message of at least [`LARGE_MESSAGE_BYTES`] that is a `didOpen` or a
//! `didChange` has its texts taken out and kept in [`LARGE_TEXTS`] under a placeholder, and tower-lsp gets the
//! small message that is left. `did_open`/`did_change` take the texts back. Every other message, and any message
//! that is not what it claims, is passed on byte for byte; tower-lsp still does all framing errors.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::io::{AsyncRead, AsyncWrite};

/// Messages at least this large are looked into.
pub const LARGE_MESSAGE_BYTES: usize = 1 << 20;

/// Texts taken out of messages, by placeholder number.
pub static LARGE_TEXTS: LargeTexts = LargeTexts {
    next: AtomicU64::new(0),
    texts: Mutex::new(None),
};

/// A placeholder starts with a NUL, which no JSON document text sent by an editor starts with in practice; the
/// number after it must also be one that was stashed.
const PLACEHOLDER: &str = "\u{0}sourcemap-ls:large-text:";

pub struct LargeTexts {
    next: AtomicU64,
    texts: Mutex<Option<HashMap<u64, Taken>>>,
}

/// A text taken out of a message, with its line starts when they were found on the way (as
/// `sourcemap_core::bundle::columns::line_starts` gives them).
struct Taken {
    text: String,
    line_starts: Option<Vec<u32>>,
}

impl LargeTexts {
    fn stash(&self, text: String) -> String {
        let placeholder = self.reserve();
        self.fill(&placeholder, text, None);
        placeholder
    }

    /// A new placeholder, whose text is given later ([`LargeTexts::fill`], before the message is passed on).
    fn reserve(&self) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        format!("{PLACEHOLDER}{n}")
    }

    fn fill(&self, placeholder: &str, text: String, line_starts: Option<Vec<u32>>) {
        let Some(n) = placeholder
            .strip_prefix(PLACEHOLDER)
            .and_then(|n| n.parse::<u64>().ok())
        else {
            return;
        };
        self.texts
            .lock()
            .expect("large texts lock")
            .get_or_insert_with(HashMap::new)
            .insert(n, Taken { text, line_starts });
    }

    /// The text a placeholder stands for (taken: each is used once), or `None` when `text` is not a placeholder.
    pub fn take(&self, text: &str) -> Option<String> {
        self.take_with_line_starts(text).map(|(text, _)| text)
    }

    /// [`LargeTexts::take`], with the text's line starts when they were found while it was unescaped.
    pub fn take_with_line_starts(&self, text: &str) -> Option<(String, Option<Vec<u32>>)> {
        let n: u64 = text.strip_prefix(PLACEHOLDER)?.parse().ok()?;
        let taken = self
            .texts
            .lock()
            .expect("large texts lock")
            .as_mut()?
            .remove(&n)?;
        Some((taken.text, taken.line_starts))
    }
}

/// The parts of a `didOpen` or `didChange` that the pump reads; the texts stay raw JSON (one scan finds them).
#[derive(Deserialize)]
struct Notification<'a> {
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow)]
    params: Params<'a>,
}

#[derive(Deserialize)]
struct Params<'a> {
    #[serde(borrow, default, rename = "textDocument")]
    text_document: Option<WithText<'a>>,
    #[serde(borrow, default, rename = "contentChanges")]
    content_changes: Option<Vec<WithText<'a>>>,
}

#[derive(Deserialize)]
struct WithText<'a> {
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
}

/// The message with `didOpen`'s text or each of `didChange`'s texts replaced by placeholders (the texts stashed);
/// `None` when it is neither (or not JSON), and then `body` is as it came. A `didOpen`'s text is unescaped in place,
/// in the message's own buffer (taken), after the rest of the message was copied out: a second buffer of its size
/// was most of the time this step took on a 57 MB bundle (its page faults).
fn take_texts(body: &mut Vec<u8>) -> Option<Vec<u8>> {
    if let Some(small) = take_one_text(body) {
        return Some(small);
    }
    let n: Notification<'_> = serde_json::from_slice(body).ok()?;
    let texts: Vec<&RawValue> = match n.method.as_ref() {
        "textDocument/didOpen" => vec![n.params.text_document?.text?],
        "textDocument/didChange" => n
            .params
            .content_changes?
            .into_iter()
            .filter_map(|c| c.text)
            .collect(),
        _ => return None,
    };
    let ranges: Vec<std::ops::Range<usize>> = texts
        .iter()
        .map(|raw| {
            let start = raw.get().as_ptr() as usize - body.as_ptr() as usize;
            start..start + raw.get().len()
        })
        .collect();
    // Each text must be a JSON string: anything else leaves the message as it was.
    if texts.iter().any(|raw| !raw.get().starts_with('"')) {
        return None;
    }
    let in_place = ranges.len() == 1;
    // The texts, unescaped (all but one in place), and where they were.
    let mut replaced = Vec::with_capacity(ranges.len());
    if !in_place {
        for (raw, range) in texts.iter().zip(&ranges) {
            let text = sourcemap_core::internal::json::literal::unescape(raw.get())?;
            replaced.push((range.clone(), Some(text)));
        }
    } else {
        replaced.push((ranges[0].clone(), None));
    }
    let mut out = Vec::with_capacity(1024);
    let mut at = 0;
    let mut placeholders = Vec::with_capacity(replaced.len());
    for (range, text) in replaced {
        out.extend_from_slice(&body[at..range.start]);
        let placeholder = match text {
            Some(text) => LARGE_TEXTS.stash(text),
            None => LARGE_TEXTS.reserve(),
        };
        out.extend_from_slice(serde_json::to_string(&placeholder).ok()?.as_bytes());
        placeholders.push(placeholder);
        at = range.end;
    }
    out.extend_from_slice(&body[at..]);
    if in_place {
        // serde_json read the literal whole (its escapes included), so it unescapes; were it ever not to, the
        // document would get an empty text and the log says why, where a wrong text would be worse.
        let text = sourcemap_core::internal::json::literal::unescape_in_place(
            std::mem::take(body),
            ranges[0].clone(),
        )
        .unwrap_or_else(|| {
            tracing::error!("a large didOpen's text did not unescape after it was read as JSON");
            String::new()
        });
        LARGE_TEXTS.fill(&placeholders[0], text, None);
    }
    Some(out)
}

/// [`take_texts`] for a message with one text (a `didOpen`, or a `didChange` of one change) without a JSON reader
/// going over the text: on the real Metro build's 57 MB `didOpen`, serde's pass over the text to find its end was a
/// sixth of the time from the message's last byte to the first hover. The text is the value of the message's first
/// `"text"` key (editors write the text last or nearly: vscode-languageclient's `asTextDocumentItem`, and LSP's own
/// field order), found by its bytes, then unescaped in place by the core, which checks on the way that it is a
/// valid JSON string and finds its end (`literal::unescape_string_in_place`, with the text's line starts); then the
/// message with a placeholder in its place is read as JSON and must hold the placeholder where the text goes. When
/// both hold, the message is the one [`take_texts`] reads (a valid string swapped for another in a document that
/// reads as JSON). Otherwise `None`, and `body` is put back as a JSON document that reads the same (its text
/// escaped again: [`put_back`]) for the JSON reader to decide.
fn take_one_text(body: &mut Vec<u8>) -> Option<Vec<u8>> {
    use sourcemap_core::internal::json::literal::{unescape_string_in_place, Unescaped};
    let open = first_text_value(body)?;
    // Another method's text (the extension's `sourcemap/symbolicate`) is left alone, byte for byte.
    let method = method_of(&body[..open])?;
    if method != "textDocument/didOpen" && method != "textDocument/didChange" {
        return None;
    }
    let prefix = body[..open].to_vec();
    let mut starts = vec![0u32];
    let (len, close) = match unescape_string_in_place(body, open, Some(&mut starts)) {
        Unescaped::Text { len, close } => (len, close),
        Unescaped::Invalid { written, at } => {
            let rest = body[at..].to_vec();
            *body = put_back(&prefix, &body[..written], false, &rest);
            return None;
        }
    };
    let suffix = body[close + 1..].to_vec();
    body.truncate(len);
    let text = match String::from_utf8(std::mem::take(body)) {
        Ok(text) => text,
        Err(e) => {
            *body = put_back(&prefix, e.as_bytes(), true, &suffix);
            return None;
        }
    };
    let placeholder = LARGE_TEXTS.reserve();
    let quoted = serde_json::to_string(&placeholder).ok()?;
    let mut small = Vec::with_capacity(prefix.len() + quoted.len() + suffix.len());
    small.extend_from_slice(&prefix);
    small.extend_from_slice(quoted.as_bytes());
    small.extend_from_slice(&suffix);
    let placed =
        serde_json::from_slice::<Notification<'_>>(&small).is_ok_and(|n| match n.method.as_ref() {
            "textDocument/didOpen" => {
                n.params
                    .text_document
                    .and_then(|t| t.text)
                    .map(RawValue::get)
                    == Some(quoted.as_str())
            }
            "textDocument/didChange" => match n.params.content_changes.as_deref() {
                Some([change]) => change.text.map(RawValue::get) == Some(quoted.as_str()),
                _ => false,
            },
            _ => false,
        });
    if !placed {
        *body = put_back(&prefix, text.as_bytes(), true, &suffix);
        return None;
    }
    starts.push(len as u32 + 1);
    LARGE_TEXTS.fill(&placeholder, text, Some(starts));
    Some(small)
}

/// A message whose text was unescaped in place, as JSON again: `prefix`, the text escaped (`"`, `\` and control
/// characters; every other byte as it is, so that bytes that are not UTF-8 stay so), its closing quote when `closed`,
/// then `rest` (after the closing quote, or from where the text stopped being a valid string). It reads as the
/// message did, and is refused where that was.
fn put_back(prefix: &[u8], text: &[u8], closed: bool, rest: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(prefix.len() + text.len() + text.len() / 8 + rest.len() + 2);
    out.extend_from_slice(prefix);
    out.push(b'"');
    for &b in text {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0..0x20 => out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
            _ => out.push(b),
        }
    }
    if closed {
        out.push(b'"');
    }
    out.extend_from_slice(rest);
    out
}

/// Where the value of the first `"text"` key of a message starts, when it is a string. A `"text"` whose first quote is
/// not escaped and that a colon follows is a key: in valid JSON an unescaped quote opens or closes a string, and
/// closing one here would leave `text` bare.
fn first_text_value(body: &[u8]) -> Option<usize> {
    let at = memchr::memmem::find_iter(body, b"\"text\"").find(|&at| {
        let backslashes = body[..at].iter().rev().take_while(|&&b| b == b'\\').count();
        backslashes % 2 == 0
    })?;
    let skip = |from: usize| {
        from + body[from..]
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count()
    };
    let colon = skip(at + 6);
    (body.get(colon) == Some(&b':')).then_some(())?;
    let open = skip(colon + 1);
    (body.get(open) == Some(&b'"')).then_some(open)
}

/// Copies LSP messages from `input` to `output` until `input` ends, taking large texts out on the way.
pub async fn pump(input: impl AsyncRead + Unpin, output: impl AsyncWrite + Unpin) {
    super::framing::relay(
        input,
        output,
        |body| {
            let small = (body.len() >= LARGE_MESSAGE_BYTES).then(|| take_texts(body))??;
            Some(vec![small])
        },
        |head, length| {
            if length >= EARLY_OPEN_BYTES {
                if let (Some(open), Some(uri)) = (EARLY_OPEN.get(), opened_uri(head)) {
                    open(&uri);
                }
            }
        },
    )
    .await;
}

/// `didOpen` messages at least this large are told to [`EARLY_OPEN`] from their head (the server's threshold for
/// loading a bundle's map before its document is stored, `PREFETCH_MAP_AFTER_BYTES`).
pub const EARLY_OPEN_BYTES: usize = 8 << 20;

/// Told the URI of a large `didOpen` as soon as the head of its message is read (the server sets it: its map's
/// prefetch from the file on disk). A 57 MB message takes a quarter of a second to come in and be unescaped.
pub static EARLY_OPEN: std::sync::OnceLock<OnEarlyOpen> = std::sync::OnceLock::new();

/// What [`EARLY_OPEN`] holds: called with the URI as the message spells it.
pub type OnEarlyOpen = Box<dyn Fn(&str) + Send + Sync>;

/// The document URI of a `didOpen` from the head of its message, when the head has both the method and the URI
/// (editors write `uri` before `text`, in the order LSP lists `TextDocumentItem`'s fields). A `"uri"` followed by a
/// colon is a key: inside a JSON string that pattern cannot occur, as the quote before the colon would end it. A
/// wrong guess costs a map loaded for nothing; the document is served from its own text either way.
fn opened_uri(head: &[u8]) -> Option<String> {
    if method_of(head)? != "textDocument/didOpen" {
        return None;
    }
    string_member(head, "uri")
}

/// The message's method, when `head` (its beginning) holds it.
fn method_of(head: &[u8]) -> Option<String> {
    string_member(head, "method")
}

/// The first string value of a `"key"` followed by a colon in `head`.
fn string_member(head: &[u8], key: &str) -> Option<String> {
    let after_colon = |at: usize| -> Option<usize> {
        let rest = &head[at..];
        let colon = rest.iter().position(|b| !b.is_ascii_whitespace())?;
        (rest[colon] == b':').then_some(at + colon + 1)
    };
    let string_at = |at: usize| -> Option<String> {
        let start = at + head[at..].iter().position(|b| !b.is_ascii_whitespace())?;
        let mut de = serde_json::Deserializer::from_slice(&head[start..]);
        String::deserialize(&mut de).ok()
    };
    let quoted = format!("\"{key}\"");
    memchr::memmem::find_iter(head, quoted.as_bytes())
        .find_map(|at| after_colon(at + quoted.len()).and_then(string_at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsp::transport::framing::frame;
    use serde_json::Value;

    #[test]
    fn a_large_didopen_s_uri_is_read_from_its_head() {
        // As VS Code writes it (vscode-languageclient's `asTextDocumentItem`: uri, languageId, version, text).
        let uri = "file:///w/dist/a%20\u{e9}.js";
        let message = format!(
            r#"{{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{{"textDocument":{{"uri":{},"languageId":"javascript","version":1,"text":{}}}}}}}"#,
            serde_json::to_string(uri).unwrap(),
            serde_json::to_string(&"x\n\"uri\":".repeat(100)).unwrap()
        );
        assert!(serde_json::from_str::<serde_json::Value>(&message).is_ok());
        let message = message.as_bytes();
        assert_eq!(opened_uri(message).as_deref(), Some(uri));
        // A head cut inside the text: the URI came before it.
        assert_eq!(
            opened_uri(&message[..message.len() - 50]).as_deref(),
            Some(uri)
        );
        // A text quoting `"uri":` or the method is not read as the message's.
        let spaced = br#"{ "method" : "textDocument/didOpen", "params": {"textDocument": {"uri" : "file:///b.js", "text": "x"}}}"#;
        assert_eq!(opened_uri(spaced).as_deref(), Some("file:///b.js"));
        let text_first = br#"{"method":"textDocument/didOpen","params":{"textDocument":{"text":"\"uri\": \"file:///evil.js\"","uri":"file:///a.js"}}}"#;
        assert_eq!(opened_uri(text_first).as_deref(), Some("file:///a.js"));
        let cut = &text_first[..60];
        assert_eq!(opened_uri(cut), None);
        // Another method, a head without its method or URI: none.
        let change = br#"{"method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a.js"}}}"#;
        assert_eq!(opened_uri(change), None);
        assert_eq!(
            opened_uri(br#"{"params":{"textDocument":{"uri":"file:///a.js""#),
            None
        );
        assert_eq!(
            opened_uri(br#"{"method":"textDocument/didOpen","params":{"textDocument":{"text":"#),
            None
        );
    }

    #[test]
    fn one_text_is_taken_without_a_json_reader_only_where_the_text_goes() {
        let text = "a\n\"text\": \"é\\𝄞\u{1}\r\n".repeat(50);
        let quoted = serde_json::to_string(&text).unwrap();
        let taken = |message: &str| {
            let mut body = message.as_bytes().to_vec();
            let small = take_one_text(&mut body)?;
            let v: Value = serde_json::from_slice(&small).unwrap();
            let placeholder = v["params"]["textDocument"]["text"]
                .as_str()
                .or(v["params"]["contentChanges"][0]["text"].as_str())
                .unwrap()
                .to_string();
            let (text, starts) = LARGE_TEXTS.take_with_line_starts(&placeholder).unwrap();
            assert_eq!(
                starts,
                Some(sourcemap_core::bundle::columns::line_starts(
                    text.as_bytes()
                ))
            );
            Some(text)
        };
        // As VS Code writes a didOpen (the text last), and as serde_json does (keys in order: the text second); a
        // didChange of one change; a key that ends in `"text` (an escaped quote: not a "text" key).
        for message in [
            format!(
                r#"{{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{{"textDocument":{{"uri":"file:///a.js","languageId":"javascript","version":1,"text":{quoted}}}}}}}"#
            ),
            format!(
                r#"{{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{{"textDocument":{{"languageId":"javascript","text" : {quoted},"uri":"file:///a.js","version":1}}}}}}"#
            ),
            format!(
                r#"{{"method":"textDocument/didChange","params":{{"textDocument":{{"uri":"file:///a.js","version":2}},"contentChanges":[{{"text":{quoted}}}]}}}}"#
            ),
            format!(
                r#"{{"method":"textDocument/didOpen","params":{{"textDocument":{{"x\"text":"y","uri":"file:///a.js","text":{quoted}}}}}}}"#
            ),
        ] {
            assert_eq!(taken(&message).as_deref(), Some(text.as_str()), "{message}");
        }
        // Left to the JSON reader, the message as it came: a "text" key before the document's, two changes, another
        // method, a literal that is not valid JSON, a text that is not a string.
        for message in [
            format!(r#"{{"method":"textDocument/didOpen","params":{{"meta":{{"text":"x"}},"textDocument":{{"uri":"file:///a.js","text":{quoted}}}}}}}"#),
            format!(r#"{{"method":"textDocument/didChange","params":{{"contentChanges":[{{"text":{quoted}}},{{"text":"y"}}]}}}}"#),
            format!(r#"{{"method":"sourcemap/symbolicate","params":{{"text":{quoted}}}}}"#),
            r#"{"method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.js","text":"a\qb"}}}"#.to_string(),
            r#"{"method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.js","text":12}}}"#.to_string(),
            // A raw control character, an unterminated text.
            format!(r#"{{"method":"textDocument/didOpen","params":{{"textDocument":{{"uri":"file:///a.js","text":"a{}b"}}}}}}"#, '\u{1}'),
            format!(r#"{{"method":"textDocument/didOpen","params":{{"textDocument":{{"uri":"file:///a.js","text":{quoted}"#)[..150].to_string(),
        ] {
            // Put back as a message that reads as it did (its text escaped again), or is refused as it was.
            let mut body = message.clone().into_bytes();
            assert_eq!(take_one_text(&mut body), None, "{message}");
            match serde_json::from_str::<Value>(&message) {
                Ok(want) => assert_eq!(serde_json::from_slice::<Value>(&body).unwrap(), want),
                Err(_) => assert!(serde_json::from_slice::<Value>(&body).is_err(), "{message}"),
            }
        }
        // Bytes that are not UTF-8 in the text stay so: refused by the JSON reader as they were.
        let mut message =
            br#"{"method":"textDocument/didOpen","params":{"textDocument":{"text":"a\n"#.to_vec();
        message.extend_from_slice(b"\xff\xfe\"}}}");
        let mut body = message.clone();
        assert_eq!(take_one_text(&mut body), None);
        assert!(serde_json::from_slice::<Value>(&message).is_err());
        assert!(serde_json::from_slice::<Value>(&body).is_err());
        assert_eq!(take_texts(&mut body), None);
        // The first of those still has its text taken, by the JSON reader.
        let mut body = format!(r#"{{"method":"textDocument/didOpen","params":{{"meta":{{"text":"x"}},"textDocument":{{"uri":"file:///a.js","text":{quoted}}}}}}}"#).into_bytes();
        let small: Value = serde_json::from_slice(&take_texts(&mut body).unwrap()).unwrap();
        assert_eq!(small["params"]["meta"]["text"], "x");
        let placeholder = small["params"]["textDocument"]["text"].as_str().unwrap();
        assert_eq!(
            LARGE_TEXTS.take(placeholder).as_deref(),
            Some(text.as_str())
        );
    }

    #[tokio::test]
    async fn large_texts_are_taken_out_and_everything_else_passes_unchanged() {
        // Every kind of escape, and characters of every UTF-8 length: unescaped in place (a `didOpen`) and into
        // texts of their own (a `didChange` of two texts).
        let big = "x\n\"é\\/\u{1}\t𝄞✓\r\n".repeat(LARGE_MESSAGE_BYTES / 10);
        let small = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": {}});
        let open = serde_json::json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": "file:///a.js", "languageId": "javascript", "version": 1, "text": big}}});
        let other_big = serde_json::json!({"jsonrpc": "2.0", "method": "sourcemap/symbolicate", "params": {"text": big}});
        let mut input = frame(&small);
        input.extend(b"garbage without a length\r\n\r\n");
        input.extend(frame(&open));
        input.extend(frame(&other_big));
        let mut out = Vec::new();
        pump(&input[..], &mut out).await;

        let small_frame = frame(&small);
        assert_eq!(&out[..small_frame.len()], &small_frame[..]);
        let rest = &out[small_frame.len()..];
        assert!(rest.starts_with(b"garbage without a length\r\n\r\n"));
        let rest = &rest[b"garbage without a length\r\n\r\n".len()..];
        // The didOpen, now small, with a placeholder that gives the text back once.
        let head_end = rest.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
        let length: usize = std::str::from_utf8(&rest[16..head_end - 4])
            .unwrap()
            .parse()
            .unwrap();
        let message: Value = serde_json::from_slice(&rest[head_end..head_end + length]).unwrap();
        assert!(length < 1000, "{length}");
        let placeholder = message["params"]["textDocument"]["text"].as_str().unwrap();
        assert_eq!(message["params"]["textDocument"]["uri"], "file:///a.js");
        assert_eq!(LARGE_TEXTS.take(placeholder).as_deref(), Some(big.as_str()));
        assert_eq!(LARGE_TEXTS.take(placeholder), None);
        assert_eq!(LARGE_TEXTS.take("an ordinary text"), None);
        // A large message of another method: unchanged.
        assert_eq!(&rest[head_end + length..], &frame(&other_big)[..]);

        let change = serde_json::json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": "file:///a.js", "version": 2},
            "contentChanges": [{"text": big}, {"range": {"start": {"line": 0, "character": 0},
                "end": {"line": 0, "character": 1}}, "text": "y\u{2028}"}]}});
        let mut out = Vec::new();
        pump(&frame(&change)[..], &mut out).await;
        let head_end = out.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
        let message: Value = serde_json::from_slice(&out[head_end..]).unwrap();
        let texts: Vec<String> = message["params"]["contentChanges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| LARGE_TEXTS.take(c["text"].as_str().unwrap()).unwrap())
            .collect();
        assert_eq!(texts, [big.as_str(), "y\u{2028}"]);
        assert_eq!(
            message["params"]["contentChanges"][1]["range"]["end"]["character"],
            1
        );
    }
}
