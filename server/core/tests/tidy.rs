//! The house's rules that a reader of the tree can check, checked (after rust-analyzer's `xtask/src/tidy.rs`):
//! the core's layers import only downward, and no source file outgrows one concern's length.

use std::path::{Path, PathBuf};

/// The core's layers, bottom up (ARCHITECTURE.md: the core's code map and "Invariants"): a module may name its own layer's modules and the
/// layers below it, never one above. `map`, `json` and `fs` are the crate root's short names for `internal`'s
/// rooms, for the layers above it; `internal` itself names them by their whole path, so it never points at the root.
const LAYERS: &[(&str, u32)] = &[
    ("source", 1),
    ("internal", 2),
    ("trace", 3),
    ("bundle", 4),
    ("profile", 4),
    ("session", 5),
];

/// A file longer than this holds more than one concern (tests live in sibling files: `x/tests.rs`).
const MAX_LINES: usize = 1000;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn layer_of(top: &str) -> Option<u32> {
    LAYERS
        .iter()
        .find(|(name, _)| *name == top)
        .map(|&(_, l)| l)
}

/// The code of a file without its comments and its inline tests (a test may reach anywhere).
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .take_while(|(_, l)| l.trim() != "#[cfg(test)]")
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
}

#[test]
fn the_core_imports_only_downward() {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(
        files.len() > 50,
        "the core's sources are found: {}",
        files.len()
    );
    let mut upward = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&root).unwrap();
        let Some(own) = rel.iter().next().and_then(|c| c.to_str()) else {
            continue;
        };
        let Some(own_layer) = layer_of(own) else {
            continue; // lib.rs
        };
        if rel.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in code_lines(&text) {
            for (at, _) in line.match_indices("crate::") {
                let rest = &line[at + "crate::".len()..];
                let top: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                let points_at = match top.as_str() {
                    "map" | "json" | "fs" if own == "internal" => {
                        upward.push(format!(
                            "{}:{}: `crate::{top}` is the crate root's name for it: `crate::internal::{top}`",
                            rel.display(),
                            n + 1
                        ));
                        continue;
                    }
                    "map" | "json" | "fs" => "internal",
                    "" => continue,
                    // The crate root's re-exports of the index's types (`crate::Bias`): the ground floor.
                    t if t.starts_with(char::is_uppercase) => continue,
                    t => t,
                };
                let Some(layer) = layer_of(points_at) else {
                    continue;
                };
                if points_at != own && layer >= own_layer {
                    upward.push(format!(
                        "{}:{}: {own} (layer {own_layer}) names crate::{top} (layer {layer})",
                        rel.display(),
                        n + 1
                    ));
                }
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports running up or across the core's layers:\n{}",
        upward.join("\n")
    );
}

#[test]
fn no_source_file_outgrows_one_concern() {
    let mut files = Vec::new();
    for dir in ["src", "../sourcemap-ls/src"] {
        rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join(dir), &mut files);
    }
    assert!(files.len() > 100, "the sources are found: {}", files.len());
    let mut long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).unwrap().lines().count();
            (n > MAX_LINES).then(|| format!("{} ({n} lines)", f.display()))
        })
        .collect();
    long.sort();
    assert!(
        long.is_empty(),
        "files over {MAX_LINES} lines (split by concern; tests in a sibling `tests.rs`):\n{}",
        long.join("\n")
    );
}

/// ARCHITECTURE.md's first invariant: the core knows nothing of LSP (rust-analyzer's rule for `ide`).
#[test]
fn the_core_depends_on_no_protocol_crate() {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    assert!(manifest.contains("[dependencies]"), "the manifest is read");
    for protocol in ["tower-lsp", "lsp-types", "lsp-server"] {
        assert!(
            !manifest.contains(protocol),
            "sourcemap-core depends on {protocol}"
        );
    }
}

/// Errors in the core are types a caller can match on, not strings (symbolic's `#[non_exhaustive]` error kinds):
/// no `Result<_, String>` outside tests.
#[test]
fn no_string_errors_in_the_core() {
    let root = src();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut found = Vec::new();
    for file in &files {
        if file.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        for (n, line) in code_lines(&text) {
            if let Some(at) = line.find("Result<") {
                if line[at..].contains(", String>") {
                    found.push(format!(
                        "{}:{}: {}",
                        file.strip_prefix(&root).unwrap().display(),
                        n + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(found.is_empty(), "string errors:\n{}", found.join("\n"));
}

/// ARCHITECTURE.md keeps one sentence a line (a sentence may wrap; a new one starts a line), so a change reads as the
/// sentences it changes. A sentence ends at `.`, `!` or `?` (closing quotes or brackets after it) before a space and
/// a capital, a code span or an opening bracket; not inside a code span, and not after `e.g.`, `i.e.`, `vs.`, `cf.` or
/// a one-character word.
#[test]
fn the_architecture_has_one_sentence_a_line() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ARCHITECTURE.md");
    let text = std::fs::read_to_string(path).unwrap();
    let mut in_code = false;
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code || line.starts_with('#') || line.trim_start().starts_with('|') {
            continue;
        }
        let b = line.as_bytes();
        let mut ticks = 0;
        for i in 0..b.len() {
            if b[i] == b'`' {
                ticks += 1;
            }
            if ticks % 2 == 1 || !matches!(b[i], b'.' | b'!' | b'?') {
                continue;
            }
            let mut j = i + 1;
            while j < b.len() && matches!(b[j], b'"' | b'\'' | b')' | b'*') {
                j += 1;
            }
            if j + 1 >= b.len() || b[j] != b' ' {
                continue;
            }
            let next = b[j + 1];
            if !(next.is_ascii_uppercase()
                || matches!(next, b'`' | b'*' | b'(' | b'[' | b'_' | b'"'))
            {
                continue;
            }
            let word = line[..=i]
                .rsplit(' ')
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            if ["e.g.", "i.e.", "vs.", "cf."]
                .iter()
                .any(|a| word.ends_with(a))
                || word.trim_end_matches('.').chars().count() <= 1
            {
                continue;
            }
            found.push(format!("line {}: {line}", n + 1));
            break;
        }
    }
    assert!(
        found.is_empty(),
        "two sentences on a line:\n{}",
        found.join("\n")
    );
}

/// A module of the core names what it uses: no `use super::*` outside tests (a file split by concern imports its
/// parent's items and its siblings' by name, so each room says what it depends on).
#[test]
fn the_core_imports_by_name() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut found = Vec::new();
    for f in files.iter().filter(|f| !f.ends_with("tests.rs")) {
        let text = std::fs::read_to_string(f).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        if code.lines().any(|l| l.trim() == "use super::*;") {
            found.push(f.display().to_string());
        }
    }
    assert!(found.is_empty(), "`use super::*` in {found:?}");
}

/// Whether `code` names the sibling module `n`: `super::n::…`, or `n::…` inside a `use super::{…}`.
fn names_sibling(code: &str, n: &str) -> bool {
    if code.contains(&format!("super::{n}::")) {
        return true;
    }
    code.split("use super::{").skip(1).any(|group| {
        let group = group.split("};").next().unwrap_or("");
        group
            .split(|c: char| c == ',' || c == '{' || c.is_whitespace())
            .any(|part| part.starts_with(&format!("{n}::")))
    })
}

/// No two rooms of a split file tie each other in a circle: in each folder of files split by concern (`fit/`,
/// `stack/`, …), the siblings one file names (`use super::sibling::…`) lead nowhere back to it, so each room can be
/// read from the ones it names.
#[test]
fn the_core_s_split_rooms_import_in_no_circle() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut by_dir: std::collections::BTreeMap<PathBuf, Vec<PathBuf>> = Default::default();
    for f in files
        .iter()
        .filter(|f| !f.ends_with("tests.rs") && !f.ends_with("mod.rs"))
    {
        by_dir
            .entry(f.parent().unwrap().to_path_buf())
            .or_default()
            .push(f.clone());
    }
    let mut circles = Vec::new();
    for (dir, siblings) in &by_dir {
        let stem = |p: &Path| p.file_stem().unwrap().to_string_lossy().into_owned();
        let names: Vec<String> = siblings.iter().map(|p| stem(p)).collect();
        let ties: Vec<Vec<usize>> = siblings
            .iter()
            .map(|f| {
                let text = std::fs::read_to_string(f).unwrap();
                let code = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
                names
                    .iter()
                    .enumerate()
                    .filter(|(_, n)| **n != stem(f) && names_sibling(&code, n))
                    .map(|(i, _)| i)
                    .collect()
            })
            .collect();
        // A circle is a tie back to a file on the walk's path (depth first, each file once).
        fn walk(
            at: usize,
            ties: &[Vec<usize>],
            state: &mut [u8],
            path: &mut Vec<usize>,
        ) -> Option<Vec<usize>> {
            state[at] = 1;
            path.push(at);
            for &next in &ties[at] {
                if state[next] == 1 {
                    let from = path.iter().position(|&p| p == next).unwrap();
                    return Some(path[from..].to_vec());
                }
                if state[next] == 0 {
                    if let Some(c) = walk(next, ties, state, path) {
                        return Some(c);
                    }
                }
            }
            path.pop();
            state[at] = 2;
            None
        }
        let mut state = vec![0u8; names.len()];
        for start in 0..names.len() {
            if state[start] == 0 {
                if let Some(c) = walk(start, &ties, &mut state, &mut Vec::new()) {
                    let c: Vec<&str> = c.iter().map(|&i| names[i].as_str()).collect();
                    circles.push(format!("{}: {}", dir.display(), c.join(" → ")));
                }
            }
        }
    }
    assert!(
        circles.is_empty(),
        "rooms that import each other:\n{}",
        circles.join("\n")
    );
}
