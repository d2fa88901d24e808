//! The JSON-RPC errors requests answer with.

use tower_lsp::jsonrpc::{Error, ErrorCode};

pub fn internal(message: impl Into<String>) -> Error {
    Error {
        code: ErrorCode::InternalError,
        message: message.into().into(),
        data: None,
    }
}

/// LSP's `RequestFailed` (-32803): the request was valid but its answer would be wrong (a map that does not fit).
pub fn request_failed(message: impl Into<String>) -> Error {
    Error {
        code: ErrorCode::ServerError(-32803),
        message: message.into().into(),
        data: None,
    }
}

pub fn invalid_params(message: impl Into<String>) -> Error {
    Error {
        code: ErrorCode::InvalidParams,
        message: message.into().into(),
        data: None,
    }
}

/// LSP's `ContentModified` (-32801): the document changed while the request ran, so its answer is stale; clients ask
/// again (VS Code drops it silently).
pub fn content_modified(message: impl Into<String>) -> Error {
    Error {
        code: ErrorCode::ServerError(-32801),
        message: message.into().into(),
        data: None,
    }
}

/// JSON-RPC's `RequestCancelled` (-32800): the client cancelled the request (`$/cancelRequest`); tower-lsp has answered
/// it so already, and this answer of the work given up is dropped.
pub fn request_cancelled() -> Error {
    Error::request_cancelled()
}
