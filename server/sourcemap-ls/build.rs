//! Records the commit the binary is built from, for `--version`: `SOURCEMAP_LS_COMMIT` when the packaging sets it,
//! else `git rev-parse` of the checkout, else "unknown" (a crate built outside a git checkout).

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=SOURCEMAP_LS_COMMIT");
    let commit = std::env::var("SOURCEMAP_LS_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(|| {
            let out = Command::new("git")
                .args(["rev-parse", "--short=12", "HEAD"])
                .output()
                .ok()?;
            out.status
                .success()
                .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    // Rebuilt when HEAD moves (a commit, a checkout).
    if let Ok(out) = Command::new("git")
        .args(["rev-parse", "--git-dir"])
        .output()
    {
        let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if out.status.success() && !dir.is_empty() {
            println!("cargo:rerun-if-changed={dir}/HEAD");
            println!("cargo:rerun-if-changed={dir}/refs/heads");
        }
    }
    println!("cargo:rustc-env=SOURCEMAP_LS_COMMIT={commit}");
}
