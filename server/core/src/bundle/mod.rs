//! Bundles: finding a bundle's map (`locate`: comments, sidecars, debug IDs), whether a map fits its bundle
//! (`fit`; Hermes bytecode by its function table, `hermes_bytecode`), which bundle and map answer a frame
//! (`resolve`), what a bundle is made of (`composition`), a line's UTF-16 columns as bytes (`columns`, shared by the
//! fit check and composition), and the modules of webpack's eval devtools, each a generated file of its own inside a
//! bundle (`eval_modules`).

pub mod columns;
pub mod composition;
pub mod eval_modules;
pub mod fit;
mod fit_literals;
pub mod hermes_bytecode;
pub mod locate;
pub mod resolve;
