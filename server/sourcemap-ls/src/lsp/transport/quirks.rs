//! The service edge: what real clients send, made acceptable to tower-lsp (see [`ClientQuirks`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use tower::Service;
use tower_lsp::jsonrpc::{self, Request, Response};

/// What every client sends, made acceptable to tower-lsp 0.20, and the process ended on `exit`.
///
/// - `shutdown` and `exit` with `"params": null` (Eglot, IntelliJ's LSP4IJ) or `{}` (lsp-mode) are read as without
///   params: tower-lsp answers those with -32602 "Unexpected params", after which Eglot never sends `exit`.
/// - `initialized` with `"params": null` is read as `{}` (tower-lsp would drop it, and with it file watching and
///   settings).
/// - A request (with an id) for an unknown `$/` method gets -32601, as the protocol says; tower-lsp treats every
///   `$/` message as a notification and never answers.
/// - tower-lsp stops serving on `exit` but keeps reading stdin until it closes; a client that keeps the pipe open
///   would wait for a process that never ends. `exit` ends the process: code 0 after `shutdown`, else 1.
///
/// Fixed here rather than by moving to the `tower-lsp-server` fork: these are the only defects clients hit, the fix
/// is a few lines at the edge where requests enter, and the rest of the server keeps tower-lsp's API.
pub struct ClientQuirks<S> {
    pub inner: S,
    pub shutdown_seen: Arc<AtomicBool>,
}

/// `params` that mean "none": absent, `null` or `{}`.
fn is_empty_params(params: Option<&serde_json::Value>) -> bool {
    match params {
        None | Some(serde_json::Value::Null) => true,
        Some(serde_json::Value::Object(o)) => o.is_empty(),
        _ => false,
    }
}

/// The request as tower-lsp accepts it (see [`ClientQuirks`]).
fn normalized(request: Request) -> Request {
    match request.method() {
        "shutdown" | "exit" if request.params().is_some() && is_empty_params(request.params()) => {
            let (method, id, _) = request.into_parts();
            let builder = Request::build(method);
            match id {
                Some(id) => builder.id(id).finish(),
                None => builder.finish(),
            }
        }
        "initialized" if matches!(request.params(), None | Some(serde_json::Value::Null)) => {
            let (method, id, _) = request.into_parts();
            let builder = Request::build(method).params(serde_json::json!({}));
            match id {
                Some(id) => builder.id(id).finish(),
                None => builder.finish(),
            }
        }
        _ => request,
    }
}

impl<S> Service<Request> for ClientQuirks<S>
where
    S: Service<Request, Response = Option<Response>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let request = normalized(request);
        match request.method() {
            "shutdown" => self.shutdown_seen.store(true, Ordering::SeqCst),
            "exit" => {
                let code = if self.shutdown_seen.load(Ordering::SeqCst) {
                    0
                } else {
                    1
                };
                tokio::spawn(async move {
                    // Let responses already queued reach the client.
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    std::process::exit(code);
                });
            }
            m if m.starts_with("$/") && m != "$/cancelRequest" => {
                if let Some(id) = request.id().cloned() {
                    let answer = Response::from_error(id, jsonrpc::Error::method_not_found());
                    return Box::pin(async move { Ok(Some(answer)) });
                }
            }
            _ => {}
        }
        Box::pin(self.inner.call(request))
    }
}
