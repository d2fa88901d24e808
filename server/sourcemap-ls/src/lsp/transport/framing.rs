//! LSP base-protocol framing, for the pumps on either side of tower-lsp (`large_texts`, `large_results`).

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};

/// Copies LSP messages from `input` to `output` until `input` ends. `rewrite` sees each message's body and may give
/// the pieces of another body to send in its place (under its own `Content-Length`; the original body is freed
/// first, and `rewrite` may have taken it); otherwise (`None`: the body must be as it came) the message goes on byte
/// for byte, headers as they came. `peek` sees the first [`PEEK_BYTES`] of a longer body, with the body's length,
/// before the rest is read. What is not a message is passed on
/// for the reader at the other end to report.
pub async fn relay<F, P>(
    input: impl AsyncRead + Unpin,
    mut output: impl AsyncWrite + Unpin,
    mut rewrite: F,
    mut peek: P,
) where
    F: FnMut(&mut Vec<u8>) -> Option<Vec<Vec<u8>>>,
    P: FnMut(&[u8], usize),
{
    let mut input = BufReader::with_capacity(64 << 10, input);
    let mut headers = Vec::new();
    loop {
        let length = match read_headers(&mut input, &mut headers).await {
            Headers::Length(length) => length,
            Headers::End => {
                let _ = output.write_all(&headers).await;
                let _ = output.flush().await;
                return;
            }
            Headers::NoLength => {
                if output.write_all(&headers).await.is_err() {
                    return;
                }
                continue;
            }
        };
        let mut body = vec![0; length];
        let head = if length > PEEK_BYTES { PEEK_BYTES } else { 0 };
        let read = match input.read_exact(&mut body[..head]).await {
            Ok(_) => {
                if head > 0 {
                    peek(&body[..head], length);
                }
                input.read_exact(&mut body[head..]).await
            }
            Err(e) => Err(e),
        };
        if read.is_err() {
            let _ = output.write_all(&headers).await;
            let _ = output.write_all(&body).await;
            let _ = output.flush().await;
            return;
        }
        let written = match rewrite(&mut body) {
            Some(pieces) => {
                drop(body);
                let length: usize = pieces.iter().map(Vec::len).sum();
                let head = format!("Content-Length: {length}\r\n\r\n");
                let mut ok = output.write_all(head.as_bytes()).await.is_ok();
                for piece in &pieces {
                    ok = ok && output.write_all(piece).await.is_ok();
                }
                ok
            }
            None => {
                output.write_all(&headers).await.is_ok() && output.write_all(&body).await.is_ok()
            }
        };
        if !written || output.flush().await.is_err() {
            return;
        }
    }
}

/// How much of a long body `relay`'s `peek` sees first.
pub const PEEK_BYTES: usize = 64 << 10;

/// What came before a message's body.
enum Headers {
    /// The headers, up to and with the blank line, gave this body length.
    Length(usize),
    /// A blank line came without a usable `Content-Length`.
    NoLength,
    /// The input ended (or failed) first; `headers` holds what was read.
    End,
}

/// Reads the header lines of the next message into `headers` (cleared first), as they came.
async fn read_headers<R: AsyncRead + Unpin>(
    input: &mut BufReader<R>,
    headers: &mut Vec<u8>,
) -> Headers {
    headers.clear();
    let mut length: Option<usize> = None;
    loop {
        let start = headers.len();
        match input.read_until(b'\n', headers).await {
            Ok(0) | Err(_) => return Headers::End,
            Ok(_) => {}
        }
        let line = &headers[start..];
        let text = String::from_utf8_lossy(line);
        let text = text.trim_end();
        if text.is_empty() {
            return length.map_or(Headers::NoLength, Headers::Length);
        }
        if let Some((name, value)) = text.split_once(':') {
            if name.trim().eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().ok();
            }
        }
    }
}

/// A value as one LSP message (`Content-Length` header and body), for the pumps' tests.
#[cfg(test)]
pub fn frame(v: &serde_json::Value) -> Vec<u8> {
    let body = serde_json::to_vec(v).unwrap();
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend(body);
    out
}
