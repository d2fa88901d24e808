//! The LSP's edges: JSON-RPC errors, the panic guard around each handler, LSP ↔ core positions (UTF-16 columns),
//! and `$/progress`.

pub mod errors;
pub mod guard;
pub mod position;
pub mod progress;
