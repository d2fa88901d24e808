#![allow(dead_code)] // Each test binary uses a different part.
//! `fixtures/sdk-paths` built once however many test processes ask at the same time: `node make.mjs` under a file
//! lock (it skips its work when `dist/` came from the same inputs).

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn fixture() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/sdk-paths"))
        .unwrap()
}

/// `fixtures/sdk-paths`, with `dist/` and `cases.json` made.
pub fn built() -> PathBuf {
    let d = fixture();
    assert!(
        d.join("node_modules/@sentry/core").is_dir(),
        "run `npm ci` in fixtures/sdk-paths first (scripts/test-deps does)"
    );
    let lock =
        std::fs::File::create(std::env::temp_dir().join("sourcemap-ls-sdk-paths.lock")).unwrap();
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
