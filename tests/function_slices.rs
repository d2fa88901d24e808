//! Naming a frame's function by parsing only the parts of a file around it (`trace::js_slices`, used for texts of
//! 1 MiB and more) gives the whole parse's answer, on every real bundle and original source at hand: the wild
//! corpus's published bundles (`fixtures/wild`), the round-trip corpus's five bundlers (`fixtures/roundtrip/dist`,
//! built here under the lock the other readers of `dist/` take), the names corpus (`fixtures/names`), and their maps' `sourcesContent`.
//! At each file's mapped positions (every segment's, up to a sample), the innermost function from the parts and from
//! the whole parse must be the same function with the same name tokens. The share answered by a part is printed.

use std::path::{Path, PathBuf};

use sourcemap_core::trace::js_scopes::{Dialect, FunctionScopes, TextPosition};
use sourcemap_core::trace::text_scopes::tables_around;
use sourcemap_core::{SourceId, SourceMapIndex};

#[path = "support/roundtrip_build.rs"]
mod roundtrip_build;

fn fixtures() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")).unwrap()
}

/// Bundles with their maps beside them (`X.js` + `X.js.map` or `X.map`) under `dir`, node_modules included.
fn bundles_under(dir: &Path, out: &mut Vec<(PathBuf, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            bundles_under(&p, out);
        } else if p.extension().is_some_and(|e| e == "js") {
            let beside = [
                PathBuf::from(format!("{}.map", p.display())),
                p.with_extension("map"),
            ];
            if let Some(map) = beside.into_iter().find(|m| m.is_file()) {
                out.push((p, map));
            }
        }
    }
}

/// What an answer says: the function's extent and its name parts' tokens and text.
fn described(table: &FunctionScopes, p: TextPosition) -> Option<String> {
    table.innermost(p).map(|f| {
        let parts: Vec<String> = f
            .parts
            .iter()
            .map(|part| format!("{:?}:{}", part.token, f.text(part)))
            .collect();
        format!(
            "{:?}-{:?} q{} [{}]",
            f.start,
            f.end,
            f.qualifier,
            parts.join(" ")
        )
    })
}

/// Up to `n` positions spread over `all` (sorted, deduplicated).
fn sample(mut all: Vec<TextPosition>, n: usize) -> Vec<TextPosition> {
    all.sort_unstable();
    all.dedup();
    let step = all.len().div_ceil(n).max(1);
    all.into_iter().step_by(step).collect()
}

struct Tally {
    positions: usize,
    by_parts: usize,
    files: usize,
}

/// Compares parts and whole at `at` of `text`; returns the differences.
fn compare(
    label: &str,
    text: &str,
    name: &str,
    dialect: Dialect,
    at: &[TextPosition],
    tally: &mut Tally,
) -> Vec<String> {
    let Ok(whole) = FunctionScopes::parse(text, name, dialect) else {
        return Vec::new();
    };
    tally.files += 1;
    let mut wrong = Vec::new();
    for (&p, (table, by_part)) in at.iter().zip(tables_around(text, name, dialect, at)) {
        tally.positions += 1;
        tally.by_parts += usize::from(by_part);
        let got = table.as_deref().map(|t| described(t, p));
        let want = Some(described(&whole, p));
        if got != want {
            wrong.push(format!("{label} at {p:?}: parts {got:?}, whole {want:?}"));
        }
    }
    wrong
}

#[test]
fn parts_answer_as_the_whole_parse_on_every_corpus() {
    let root = fixtures();
    roundtrip_build::built();
    let mut pairs = Vec::new();
    for dir in ["wild/node_modules", "roundtrip/dist", "names"] {
        bundles_under(&root.join(dir), &mut pairs);
    }
    assert!(
        pairs.len() >= 40,
        "the corpora are installed (scripts/test-deps): {} bundles found",
        pairs.len()
    );
    let mut tally = Tally {
        positions: 0,
        by_parts: 0,
        files: 0,
    };
    let mut wrong = Vec::new();
    for (bundle, map) in &pairs {
        let (Ok(text), Ok(bytes)) = (std::fs::read_to_string(bundle), std::fs::read(map)) else {
            continue;
        };
        let Ok(index) = SourceMapIndex::from_bytes(bytes) else {
            continue;
        };
        let mut generated = Vec::new();
        let mut original: Vec<Vec<TextPosition>> = vec![Vec::new(); index.sources().len()];
        let _ = index.for_each_segment(|h| {
            generated.push(TextPosition {
                line: h.generated.line,
                column: h.generated.column,
            });
            if let Some(o) = h.original {
                if let Some(v) = original.get_mut(o.source.0 as usize) {
                    v.push(TextPosition {
                        line: o.line,
                        column: o.column,
                    });
                }
            }
        });
        let label = bundle
            .strip_prefix(&root)
            .unwrap_or(bundle)
            .display()
            .to_string();
        wrong.extend(compare(
            &label,
            &text,
            &label,
            Dialect::Generated,
            &sample(generated, 400),
            &mut tally,
        ));
        for (i, at) in original.into_iter().enumerate() {
            let source = SourceId(i as u32);
            let (Some(content), Some(url)) = (
                index.source_content(source),
                index.source(source).url.as_deref(),
            ) else {
                continue;
            };
            if at.is_empty() {
                continue;
            }
            wrong.extend(compare(
                &format!("{label} → {url}"),
                &content,
                url,
                Dialect::Original,
                &sample(at, 100),
                &mut tally,
            ));
        }
    }
    println!(
        "{} files, {} positions: {} answered by a part ({:.1} %), the rest by the whole parse; {} differ",
        tally.files,
        tally.positions,
        tally.by_parts,
        100.0 * tally.by_parts as f64 / tally.positions.max(1) as f64,
        wrong.len()
    );
    assert!(
        tally.positions > 10_000,
        "too few positions compared: {}",
        tally.positions
    );
    assert!(
        wrong.is_empty(),
        "{} positions named differently from parts:\n{}",
        wrong.len(),
        wrong
            .iter()
            .take(30)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
