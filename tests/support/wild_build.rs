#![allow(dead_code)] // Each test binary uses a different part.
//! The wild corpus (`fixtures/wild`) made once, however many test binaries ask at the same time: `node make.mjs`
//! under a file lock (it skips its work when `dist/cases.json` is up to date).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

pub fn fixture() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/wild"))
        .unwrap()
}

/// `fixtures/wild/dist/cases.json`, made (or found up to date) by `node make.mjs`.
pub fn made() -> Value {
    let dir = fixture();
    assert!(
        dir.join("node_modules/@jridgewell/trace-mapping").is_dir(),
        "run `npm ci` in fixtures/wild (scripts/test-deps does)"
    );
    let lock = std::fs::File::create(std::env::temp_dir().join("sourcemap-ls-wild.lock")).unwrap();
    lock.lock().unwrap();
    let out = Command::new("node")
        .arg("make.mjs")
        .current_dir(&dir)
        .env_remove("NODE_OPTIONS")
        .output()
        .expect("node must be installed for this test (scripts/test-deps)");
    assert!(
        out.status.success(),
        "node make.mjs failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprint!("node make.mjs: {}", String::from_utf8_lossy(&out.stdout));
    drop(lock);
    serde_json::from_str(&std::fs::read_to_string(dir.join("dist/cases.json")).unwrap()).unwrap()
}
