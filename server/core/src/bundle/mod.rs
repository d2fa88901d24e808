//! Bundles: which bundle a frame was recorded in, and which map answers it (`resolve`); a line's UTF-16 columns as
//! bytes (`columns`).

pub mod columns;
pub mod resolve;
