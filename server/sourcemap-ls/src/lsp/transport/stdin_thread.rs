//! Standard input read on a thread of its own.
//!
//! tokio's `stdin()` runs each read as a task on the blocking pool, and a read from a pipe returns at most what the
//! pipe holds (64 KiB on Linux). A 57 MB `didOpen` therefore took about 900 round trips between the runtime and the
//! pool: 389 ms of a first hover's 945 ms on the real Metro build (issue 44, docs/PERFORMANCE.md, "The first hover
//! on two cores"). Here one thread loops on `read` and hands each chunk to the runtime through an in-memory pipe,
//! which wakes the reader only when it was waiting.

use std::io::Read;

use tokio::io::{AsyncRead, AsyncWriteExt};

/// Chunks handed over at once, at most, and the in-memory pipe's capacity. A read from a pipe returns at most 64 KiB
/// on Linux; more only costs memory the editor benchmark counts (1 MiB here and in the pipe: +1 MB steady).
const CHUNK_BYTES: usize = 256 << 10;

/// Standard input as an `AsyncRead`, read by a thread named `stdin`; it ends when standard input does. Must be called
/// inside the runtime. Falls back to tokio's own reader when no thread can be started.
pub fn stdin() -> Box<dyn AsyncRead + Unpin + Send> {
    widen_pipe();
    let (mut to_runtime, from_thread) = tokio::io::duplex(CHUNK_BYTES);
    let runtime = tokio::runtime::Handle::current();
    let started = std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || {
            let mut input = std::io::stdin().lock();
            let mut chunk = vec![0u8; CHUNK_BYTES];
            loop {
                let n = match input.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                };
                if runtime.block_on(to_runtime.write_all(&chunk[..n])).is_err() {
                    break;
                }
            }
            // Dropping `to_runtime` ends the stream for the pump.
        });
    match started {
        Ok(_) => Box::new(from_thread),
        Err(_) => Box::new(tokio::io::stdin()),
    }
}

/// What a pipe on standard input is widened to ([`widen_pipe`]): Linux's default limit for an unprivileged process
/// (`/proc/sys/fs/pipe-max-size`).
const PIPE_BYTES: libc::c_int = 1 << 20;

/// Widens standard input's pipe, when it is one, from Linux's 64 KiB: the editor's writer then waits for the server
/// 16 times less often while a large `didOpen` passes (each wait a wake-up on both sides). Nothing changes if it
/// is not a pipe or the system refuses.
fn widen_pipe() {
    #[cfg(target_os = "linux")]
    // SAFETY: `fcntl(F_SETPIPE_SZ)` on descriptor 0 only resizes a pipe's buffer; it fails harmlessly otherwise.
    unsafe {
        libc::fcntl(0, libc::F_SETPIPE_SZ, PIPE_BYTES);
    }
}
