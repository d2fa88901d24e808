//! Bundles: which bundle a frame was recorded in, and which map answers it (`resolve`).

pub mod resolve;
