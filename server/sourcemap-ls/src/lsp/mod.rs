//! The language server over stdio (tower-lsp). Only this module knows LSP types; it converts at its edges and asks
//! `sourcemap-core` in plain positions.

mod bundles;
mod code_scopes;
mod diagnostics;
mod documents;
mod guard;
mod local_sources;
mod map_store;
mod outline;
mod position;
mod requests;
mod server;
mod settings;
mod sources;

pub use settings::DEFAULT_MAX_MAP_BYTES;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use tower::Service;
use tower_lsp::jsonrpc::Request;
use tower_lsp::{LspService, Server as LspServer};

/// tower-lsp stops serving on `exit` but keeps reading stdin until it closes; a client that keeps the pipe open
/// would wait for a process that never ends. This wrapper ends the process on `exit`: code 0 after `shutdown`, else
/// 1, as the protocol says.
struct ExitOnExit<S> {
    inner: S,
    shutdown_seen: Arc<AtomicBool>,
}

impl<S: Service<Request>> Service<Request> for ExitOnExit<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
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
            _ => {}
        }
        self.inner.call(request)
    }
}

pub fn run() -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let (service, socket) = LspService::build(server::Server::new)
            .custom_method(
                "sourcemap/originalPosition",
                server::Server::original_position,
            )
            .custom_method(
                "sourcemap/generatedPositions",
                server::Server::generated_positions,
            )
            .custom_method("sourcemap/sourceContent", server::Server::source_content)
            .custom_method("sourcemap/symbolicate", server::Server::symbolicate)
            .custom_method("sourcemap/mapInfo", server::Server::map_info)
            .custom_method("sourcemap/debugPanic", server::Server::debug_panic)
            .finish();
        let service = ExitOnExit {
            inner: service,
            shutdown_seen: Arc::new(AtomicBool::new(false)),
        };
        LspServer::new(tokio::io::stdin(), tokio::io::stdout(), socket)
            .serve(service)
            .await;
    });
    // tokio's stdin reader sits in a blocking read that would keep a normal runtime drop waiting forever.
    runtime.shutdown_background();
    Ok(())
}
