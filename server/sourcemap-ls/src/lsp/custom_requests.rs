//! The custom requests, one entry each: the method, the request's handler (in `requests/`), its parameters and its
//! answer.
//!
//! The macro writes the `Server` methods tower-lsp calls and registers them. Each runs on a task of its own behind
//! `guarded` (`on_own_task`: a panic becomes the request's error, a slow request holds no other), on the snapshot
//! taken as it starts (`Backend::snapshot`). A new request is its file plus a line here.

use tower_lsp::jsonrpc::Result;
use tower_lsp::lsp_types::{Location, TextDocumentPositionParams};
use tower_lsp::LspServiceBuilder;

use crate::lsp::protocol::guard::on_own_task;
use crate::lsp::requests::{
    composition, debug_panic, generated_positions, map_info, original_position, profile,
    source_content, symbolicate, DocumentParams,
};
use crate::lsp::server::Server;
use crate::lsp::transport::large_results::Stashed;

macro_rules! custom_requests {
    ($($method:literal => $name:ident($handler:path, $params:ty) -> $answer:ty;)*) => {
        impl Server {
            $(
                pub async fn $name(&self, params: $params) -> Result<$answer> {
                    let b = self.0.clone();
                    crate::lsp::server::released(
                        on_own_task($method, async move { $handler(&b.snapshot(), params).await }).await,
                    )
                }
            )*
        }

        /// Registers every custom request on the service being built.
        pub fn register(builder: LspServiceBuilder<Server>) -> LspServiceBuilder<Server> {
            builder $(.custom_method($method, Server::$name))*
        }
    };
}

custom_requests! {
    "sourcemap/originalPosition" => original_position(original_position::original_position, TextDocumentPositionParams)
        -> Option<original_position::Answer>;
    "sourcemap/generatedPositions" => generated_positions(generated_positions::generated_positions,
        TextDocumentPositionParams) -> Vec<Location>;
    "sourcemap/sourceContent" => source_content(source_content::source_content, source_content::Params)
        -> source_content::Answer;
    "sourcemap/symbolicate" => symbolicate(symbolicate::stashed, symbolicate::Params) -> Stashed;
    "sourcemap/mapInfo" => map_info(map_info::map_info, DocumentParams) -> Option<map_info::Answer>;
    "sourcemap/composition" => composition(composition::composition, DocumentParams)
        -> Option<composition::Answer>;
    "sourcemap/profile" => profile(profile::profile, profile::Params) -> profile::Answer;
    "sourcemap/debugPanic" => debug_panic(debug_panic, serde_json::Value) -> ();
}
