//! LSP base-protocol framing, for the pumps on either side of tower-lsp (`large_texts`, `large_results`).

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// What came before a message's body.
pub enum Headers {
    /// The headers, up to and with the blank line, gave this body length.
    Length(usize),
    /// A blank line came without a usable `Content-Length`.
    NoLength,
    /// The input ended (or failed) first; `headers` holds what was read.
    End,
}

/// Reads the header lines of the next message into `headers` (cleared first), as they came.
pub async fn read_headers<R: AsyncRead + Unpin>(
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
