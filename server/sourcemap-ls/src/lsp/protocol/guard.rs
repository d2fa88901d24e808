//! A panic inside one request becomes that request's error response; the server keeps serving.

use std::future::Future;
use std::panic::AssertUnwindSafe;

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
