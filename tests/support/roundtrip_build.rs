#![allow(dead_code)] // Each test binary uses a different part.
//! The round-trip corpus (`fixtures/roundtrip`) built and run once, however many test binaries ask at the same time:
//! `node build.mjs` and `node run.mjs` under a file lock (each skips its work when its output is up to date).

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn fixture() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/roundtrip"))
        .unwrap()
}

fn node(dir: &Path, script: &str) {
    let out = Command::new("node")
        .arg(script)
        .current_dir(dir)
        .env_remove("NODE_OPTIONS")
        .output()
        .expect("node must be installed for this test (scripts/test-deps)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "node {script} failed:\n{stdout}\n{stderr}"
    );
    eprint!("node {script}: {stdout}");
}

/// `fixtures/roundtrip/dist`, built and run (`cases.json`).
pub fn built() -> PathBuf {
    let dir = fixture();
    assert!(
        dir.join("node_modules/esbuild").is_dir(),
        "run `npm ci` in fixtures/roundtrip (scripts/test-deps does)"
    );
    let lock =
        std::fs::File::create(std::env::temp_dir().join("sourcemap-ls-roundtrip.lock")).unwrap();
    lock.lock().unwrap();
    node(&dir, "build.mjs");
    node(&dir, "run.mjs");
    drop(lock);
    dir.join("dist")
}
