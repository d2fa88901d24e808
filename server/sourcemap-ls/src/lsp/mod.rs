//! The language server over stdio (tower-lsp). Only this module knows LSP types; it converts at its edges and asks
//! `sourcemap-core` in plain positions.

mod custom_requests;
mod maps;
mod protocol;
mod requests;
mod server;
mod settings;
mod transport;
mod workspace;

pub use settings::DEFAULT_MAX_MAP_BYTES;
pub use sourcemap_core::internal::budget::DEFAULT_MAX_CACHE_BYTES;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use tower_lsp::{LspService, Server as LspServer};

use transport::quirks::ClientQuirks;

pub fn run() -> std::io::Result<()> {
    maps::heap::limit_arenas();
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
        tokio::spawn(transport::large_texts::pump(
            transport::stdin_thread::stdin(),
            to_server,
        ));
        let (from_server, to_pump) = tokio::io::duplex(256 << 10);
        let out = tokio::spawn(transport::large_results::pump(to_pump, tokio::io::stdout()));
        LspServer::new(from_pump, from_server, socket)
            .serve(service)
            .await;
        // The server's end of the pipe went with it: the pump writes what is left, then ends.
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), out).await;
    });
    // The stdin thread (or tokio's stdin reader) sits in a blocking read that would keep a normal runtime drop
    // waiting forever.
    runtime.shutdown_background();
    Ok(())
}
