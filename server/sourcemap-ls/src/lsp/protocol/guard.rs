//! A panic inside one request becomes that request's error response; the server keeps serving.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use futures::FutureExt;
use tower_lsp::jsonrpc::Result;

use crate::lsp::protocol::errors::internal;

pub async fn guarded<T>(name: &str, fut: impl Future<Output = Result<T>>) -> Result<T> {
    match AssertUnwindSafe(fut).catch_unwind().await {
        Ok(result) => result,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            tracing::error!(request = name, "handler panicked: {what}");
            Err(internal(format!(
                "{name} failed on a bug in sourcemap-ls ({what}); the server keeps running"
            )))
        }
    }
}

tokio::task_local! {
    /// The running request's cancellation: set when the client cancels it (tower-lsp drops its future).
    static CANCELLED: Arc<AtomicBool>;
}

/// Whether the request this runs for was cancelled (`$/cancelRequest`). The work a handler does on the thread
/// (`block_in_place`) is not stopped by the task's abort, which only takes effect at its next `.await`: a handler
/// asks this between its steps, and gives up. False outside a request.
pub fn cancelled() -> bool {
    CANCELLED
        .try_with(|c| c.load(Ordering::Relaxed))
        .unwrap_or(false)
}

/// Runs a request's handler on a task of its own, `guarded`, and waits for it.
///
/// tower-lsp polls every request's future from its one serving task (`buffer_unordered`): a handler that works on
/// the thread (`block_in_place`: a fit check, a parse, a document link over a long line) held every other request
/// until it finished — a hover sent during a 9 s `documentLink` waited 9 s, and VS Code cancelled it (issue 56). On a
/// task of its own, a handler blocks only its own worker thread; the others are answered meanwhile. A request the
/// client cancels (`$/cancelRequest`: tower-lsp drops its future) aborts the task at its next `.await`, and sets its
/// [`cancelled`] flag for the work in between.
pub async fn on_own_task<T, F>(name: &'static str, fut: F) -> Result<T>
where
    T: Send + 'static,
    F: Future<Output = Result<T>> + Send + 'static,
{
    struct AbortOnDrop<T>(tokio::task::JoinHandle<T>, Arc<AtomicBool>);
    impl<T> Drop for AbortOnDrop<T> {
        fn drop(&mut self) {
            self.1.store(true, Ordering::Relaxed);
            self.0.abort();
        }
    }
    let flag = Arc::new(AtomicBool::new(false));
    let mut task = AbortOnDrop(
        tokio::spawn(CANCELLED.scope(flag.clone(), guarded(name, fut))),
        flag,
    );
    match (&mut task.0).await {
        Ok(answer) => answer,
        Err(e) => Err(internal(format!("{name} did not finish: {e}"))),
    }
}
