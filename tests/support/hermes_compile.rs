#![allow(dead_code)] // Each test binary uses a different part.
//! `fixtures/hermes-compile` built once however many test processes ask at the same time: `node make.mjs` under a
//! file lock (it skips its work when `dist/` came from the same inputs).

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn fixture() -> PathBuf {
    std::fs::canonicalize(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/hermes-compile"),
    )
    .unwrap()
}

/// `fixtures/hermes-compile`, with `dist/` made.
pub fn built() -> PathBuf {
    let d = fixture();
    assert!(
        d.join("node_modules/hermes-engine-cli").is_dir()
            && d.join("node_modules/metro-symbolicate").is_dir(),
        "run `npm ci` in fixtures/hermes-compile first (scripts/test-deps does): hermesc, hermes, Metro and \
         metro-symbolicate make its dist/"
    );
    let lock = std::fs::File::create(std::env::temp_dir().join("sourcemap-ls-hermes-compile.lock"))
        .unwrap();
    lock.lock().unwrap();
    let out = Command::new("node")
        .arg("make.mjs")
        .current_dir(&d)
        .output()
        .expect("node must be installed for this test (scripts/test-deps)");
    drop(lock);
    assert!(
        out.status.success(),
        "make.mjs: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    d
}
