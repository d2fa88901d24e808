//! The index cache on disk (issue 66; `server/core/src/internal/map/index_cache.rs`), through the real binary: a map
//! whose `mappings` are large enough to be kept is looked up with the cache off, then with a fresh cache folder (the
//! file is written), again (the file is read, not rewritten), and after the file was truncated, corrupted, or
//! replaced by another map's file (each refused and rebuilt). Every answer is byte for byte the answer without the
//! cache; `off` writes nothing.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use sourcemap_core::internal::map::vlq::encode_signed;

/// A flat map of `lines` lines over three sources with names, its `mappings` over 1 MiB (the cache's floor).
fn big_map(lines: usize, salt: i64) -> String {
    let mut text = Vec::new();
    let (mut src, mut oline, mut ocol, mut name) = (0i64, 0i64, 0i64, 0i64);
    for l in 0..lines {
        if l > 0 {
            text.push(b';');
        }
        for s in 0..12 {
            if s > 0 {
                text.push(b',');
            }
            let step = 3 + ((l as i64 * 7 + s * 13 + salt) % 11);
            encode_signed(step, &mut text);
            let to_src = (l as i64 / 50 + salt) % 3;
            encode_signed(to_src - src, &mut text);
            src = to_src;
            let to_line = l as i64 / 2;
            encode_signed(to_line - oline, &mut text);
            oline = to_line;
            let to_col = s * 4;
            encode_signed(to_col - ocol, &mut text);
            ocol = to_col;
            if s % 4 == 1 {
                let to_name = (l as i64 + s) % 3;
                encode_signed(to_name - name, &mut text);
                name = to_name;
            }
        }
    }
    serde_json::json!({
        "version": 3,
        "sources": ["a.js", "b.js", "c.js"],
        "names": ["alpha", "beta", "gamma"],
        "mappings": String::from_utf8(text).unwrap(),
    })
    .to_string()
}

fn lookup(map: &Path, cache: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
        .env("SOURCEMAP_LS_INDEX_CACHE", cache)
        .arg("lookup")
        .arg(map)
        .args(["1:0", "2:20", "5000:33", "29999:100", "30000:0", "123:4"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn kept(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "sidx"));
    files
}

#[test]
fn a_kept_index_answers_as_a_fresh_one_and_a_bad_file_is_rebuilt() {
    let tmp = tempfile::tempdir().unwrap();
    let map = tmp.path().join("big.js.map");
    let text = big_map(30_000, 0);
    let mappings = serde_json::from_str::<serde_json::Value>(&text).unwrap()["mappings"]
        .as_str()
        .unwrap()
        .len();
    assert!(
        mappings > 1 << 20,
        "the mappings are kept: {mappings} bytes"
    );
    std::fs::write(&map, &text).unwrap();
    let cache = tmp.path().join("cache");
    let cache_arg = cache.to_str().unwrap();

    let reference = lookup(&map, "off");
    assert!(reference.contains("\"source\":\"a.js\""), "{reference}");
    assert!(!cache.exists(), "off writes nothing");

    // First run: written.
    assert_eq!(lookup(&map, cache_arg), reference);
    let files = kept(&cache);
    assert_eq!(files.len(), 1, "{files:?}");
    let file = files[0].clone();
    let genuine = std::fs::read(&file).unwrap();
    let inode = std::fs::metadata(&file).unwrap().ino();

    // Second run: read, not written again (the same file, touched).
    assert_eq!(lookup(&map, cache_arg), reference);
    assert_eq!(
        std::fs::metadata(&file).unwrap().ino(),
        inode,
        "a hit is not rewritten"
    );

    // Truncated, corrupt, foreign: refused, rebuilt (written anew, the genuine bytes), the answers unchanged.
    let other_map = tmp.path().join("other.js.map");
    std::fs::write(&other_map, big_map(30_000, 1)).unwrap();
    let other_cache = tmp.path().join("other-cache");
    lookup(&other_map, other_cache.to_str().unwrap());
    let foreign = std::fs::read(&kept(&other_cache)[0]).unwrap();
    let mut flipped = genuine.clone();
    let at = flipped.len() - 100;
    flipped[at] ^= 0x10;
    for (what, bad) in [
        ("truncated", genuine[..genuine.len() / 2].to_vec()),
        ("corrupt", flipped),
        ("foreign", foreign),
        ("empty", Vec::new()),
    ] {
        std::fs::write(&file, &bad).unwrap();
        let before = std::fs::metadata(&file).unwrap().ino();
        assert_eq!(lookup(&map, cache_arg), reference, "{what}");
        assert_eq!(std::fs::read(&file).unwrap(), genuine, "{what}: rebuilt");
        assert_ne!(
            std::fs::metadata(&file).unwrap().ino(),
            before,
            "{what}: written anew"
        );
    }
    assert_eq!(kept(&cache).len(), 1);
}
