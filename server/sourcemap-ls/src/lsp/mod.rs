//! The language server over stdio (tower-lsp). Only this module knows LSP types; it converts at its edges and asks
//! `sourcemap-core` in plain positions.

mod bundles;
mod diagnostics;
mod documents;
mod guard;
mod map_store;
mod outline;
mod position;
mod requests;
mod server;
mod settings;
mod sources;

use tower_lsp::{LspService, Server as LspServer};

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
            .custom_method("sourcemap/debugPanic", server::Server::debug_panic)
            .finish();
        LspServer::new(tokio::io::stdin(), tokio::io::stdout(), socket)
            .serve(service)
            .await;
    });
    Ok(())
}
