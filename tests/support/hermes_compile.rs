#![allow(dead_code)] // Each test binary uses a different part.
//! `fixtures/hermes-compile` built once however many test processes ask at the same time: `node make.mjs` under a
//! file lock (it skips its work when `dist/` came from the same inputs).

use std::path::{Path, PathBuf};

pub fn fixture() -> PathBuf {
    std::fs::canonicalize(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/hermes-compile"),
    )
    .unwrap()
}

#[path = "npm_fixture.rs"]
mod npm_fixture;

/// `fixtures/hermes-compile`, with `dist/` made (hermesc, hermes, Metro and metro-symbolicate make it).
pub fn built() -> PathBuf {
    npm_fixture::built(
        "hermes-compile",
        &["hermes-engine-cli", "metro-symbolicate"],
    )
}
