//! The language server over stdio (tower-lsp). Only this module knows LSP types; it converts at its edges and asks
//! `sourcemap-core` in plain positions.

mod bundles;
mod code_scopes;
mod custom_requests;
mod diagnostics;
mod discovery;
mod documents;
mod framing;
mod guard;
mod heap;
mod large_results;
mod large_texts;
mod local_sources;
mod map_fit;
mod map_store;
mod outline;
mod position;
mod requests;
mod server;
mod settings;
mod source_copies;
mod source_texts;
mod sources;

pub use settings::DEFAULT_MAX_MAP_BYTES;

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use tower::Service;
use tower_lsp::jsonrpc::{self, Request, Response};
use tower_lsp::{LspService, Server as LspServer};

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
struct ClientQuirks<S> {
    inner: S,
    shutdown_seen: Arc<AtomicBool>,
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

pub fn run() -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let (service, socket) =
            custom_requests::register(LspService::build(server::Server::new)).finish();
        let service = ClientQuirks {
            inner: service,
            shutdown_seen: Arc::new(AtomicBool::new(false)),
        };
        // Messages pass through `large_texts::pump`, which keeps large document texts out of tower-lsp's buffer,
        // and go out through `large_results::pump`, which writes large answers tower-lsp only carries placeholders of.
        let (to_server, from_pump) = tokio::io::duplex(256 << 10);
        tokio::spawn(large_texts::pump(tokio::io::stdin(), to_server));
        let (from_server, to_pump) = tokio::io::duplex(256 << 10);
        let out = tokio::spawn(large_results::pump(to_pump, tokio::io::stdout()));
        LspServer::new(from_pump, from_server, socket)
            .serve(service)
            .await;
        // The server's end of the pipe went with it: the pump writes what is left, then ends.
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), out).await;
    });
    // tokio's stdin reader sits in a blocking read that would keep a normal runtime drop waiting forever.
    runtime.shutdown_background();
    Ok(())
}
