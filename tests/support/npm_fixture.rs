#![allow(dead_code)] // Each test binary uses a different part.
//! A fixture made by its own `make.mjs` from pinned npm packages (`fixtures/NAME`), built once however many test
//! processes ask at the same time: `node make.mjs` under a file lock (each skips its work when `dist/` came from the
//! same inputs). The one way every such fixture is made ready for a test.

use std::path::{Path, PathBuf};
use std::process::Command;

/// `fixtures/name`, with `npm ci` done (`installed`: packages under its `node_modules` that must be there; a clear
/// message names what to run when they are not) and `node make.mjs` run.
pub fn built(name: &str, installed: &[&str]) -> PathBuf {
    let d = std::fs::canonicalize(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures")
            .join(name),
    )
    .unwrap();
    for package in installed {
        assert!(
            d.join("node_modules").join(package).is_dir(),
            "run `npm ci` in fixtures/{name} first (scripts/test-deps does): {package} is missing"
        );
    }
    let lock =
        std::fs::File::create(std::env::temp_dir().join(format!("sourcemap-ls-{name}.lock")))
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
        "fixtures/{name}/make.mjs: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    d
}
