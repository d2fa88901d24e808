//! The stdio transport around tower-lsp: the base protocol's framing, shared by the two pumps, the pumps themselves
//! (large document texts taken out on the way in, large answers written in place on the way out), and the service
//! edge that accepts what real clients send. Standard input is read on a thread of its own (`stdin_thread`).

pub mod framing;
pub mod large_results;
pub mod large_texts;
pub mod quirks;
pub mod stdin_thread;
