//! `sourcemap-ls explore BUNDLE MAP --json` against source-map-explorer 2.5.3 on real and hand-made bundles.
//!
//! For every bundle of [`bundles`], `node fixtures/composition/run-sme.mjs BUNDLE MAP --names` gives
//! source-map-explorer's result (its `--json` object, unwrapped, run with `--no-border-checks`, which only stops it
//! from failing on every map; `fixtures/composition/README.md` says why and how it computes each number) and `sourcemap-ls explore BUNDLE MAP --json` ours, in the same shape. Compared, to the byte:
//! `totalBytes`, `mappedBytes`, `unmappedBytes`, `eolBytes`, `sourceMapCommentBytes`, and the size of every entry of
//! `files` (an entry missing on one side counts as 0: source-map-explorer lists a source whose every span is empty
//! with size 0, and `[EOLs]` only when there are some).
//!
//! Source names: we print each entry of the map's `sources` with `sourceRoot` applied the ECMA-426 way;
//! source-map-explorer prints the name mozilla/source-map 0.7.6 gives it: the same text as a URL, normalised (`./`
//! and `x/..` resolved, `webpack:///./a` → `webpack:///a`, spaces and non-ASCII percent-encoded, an absolute URL
//! replacing `sourceRoot`), so two entries may get one name. The harness prints, per entry, our name and its name
//! (`sourceNames`, computed by that same library); our sizes are summed by its name before comparing. Nothing else
//! is renamed: with the default options, its stripping of a common path prefix never applies (README.md). The
//! special entries (`[unmapped]`, `[EOLs]`, `[sourceMappingURL]`, `[no source]`: bytes under 1-field segments,
//! counted as mapped) are compared as they are.
//!
//! Where source-map-explorer's rules are wrong ([`SME_WRONG`], with the reason; README.md shows each byte by byte)
//! its numbers are printed, not compared. On every bundle, ours must also keep our own rule ([`check_own_rule`]):
//! `totalBytes` is the file's length, every byte is counted once (mapped + unmapped + EOLs + comment = total, the
//! entries add up to their totals, nothing negative), EOLs are the `\n` and `\r\n` bytes; on the wrong ones, the
//! right sizes of [`OWN_EXPECTED`].
//!
//! Needs node and `npm ci` in `fixtures/composition` and `fixtures/roundtrip` (scripts/test-deps); runs
//! `node build.mjs` in `fixtures/roundtrip` first (it skips the build when `dist/` is up to date). Run with
//! `-- --nocapture` to see the table of both results.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use serde_json::Value;

#[path = "support/roundtrip_build.rs"]
mod roundtrip_build;

/// The bundlers and entries of the round-trip corpus (`fixtures/roundtrip/build.mjs`: every `.js`/`.mjs` of `src/`).
const ROUNDTRIP_BUNDLERS: &[&str] = &["esbuild", "terser", "swc", "webpack", "rollup"];

/// Hand-made bundles of `fixtures/composition/cases` (written by `make-cases.mjs`; README.md describes each).
const CASES: &[&str] = &[
    "multibyte",
    "crlf",
    "source-names",
    "comment-on-code-line",
    "block-comment",
    "inline-map-comment",
    "index-sections-share-a-line",
    "mixed-line-endings",
    "leading-blank-line",
    "trailing-whitespace",
    "two-comments",
    "split-surrogate",
    "comment-without-space",
    "comment-trailing-space",
    "invalid-utf8",
];

/// Bundles (paths under `fixtures/`) on which source-map-explorer 2.5.3 (with source-map 0.7.6) is wrong, and why.
/// Not compared with it; [`OWN_EXPECTED`] gives the right sizes.
const SME_WRONG: &[(&str, &str)] = &[
    (
        "composition/cases/index-sections-share-a-line.js",
        "index map whose sections share a generated line other than the first: mozilla's \
         IndexedSourceMapConsumer.eachMapping compares the section-relative line of a mapping with the next \
         section's absolute line, so the first section's last mapping is not cut at the next section and runs to \
         the end of the line: `var b=2;` is counted for a.js and for b.js (a.js 16, mapped 24 of a 16-byte line)",
    ),
    (
        "composition/cases/mixed-line-endings.js",
        "\\r\\n and \\n in one file: it splits lines at \\r\\n only when the file has any, so `var b=2;\\nvar c=3;` \
         is one line (b.js 17, c.js 0) and the lone \\n is not an EOL (eolBytes 6, not 7)",
    ),
    (
        "composition/cases/leading-blank-line.js",
        "the file starts with an empty line: it trims the file before splitting lines, so every line moves up one \
         (line 2's mapping measures `var b=2;` for a.js, b.js gets nothing, `var a=1;` is unmapped)",
    ),
    (
        "composition/cases/trailing-whitespace.js",
        "the code's last line ends with spaces: the trim before splitting removes them from the line, so the last \
         mapping's span loses them (a.js 8, not 11; 3 bytes unmapped)",
    ),
    (
        "composition/cases/two-comments.js",
        "a stale `//# sourceMappingURL=` before the real one: it takes the first such comment as the comment \
         (33 bytes) and counts the last, real one (40 bytes) as unmapped",
    ),
    (
        "composition/cases/split-surrogate.js",
        "a mapping between the two UTF-16 units of 😀: each half is measured alone as a lone surrogate, 3 bytes \
         (U+FFFD) each, so the 4-byte character counts 6 and unmappedBytes is -2",
    ),
    (
        "composition/cases/comment-without-space.js",
        "`//#sourceMappingURL=…`: its regex wants a space or tab after `//#` (ECMA-426 allows none), so the \
         comment (48 bytes) is counted as unmapped and sourceMapCommentBytes is 0",
    ),
    (
        "composition/cases/comment-trailing-space.js",
        "spaces after the comment's URL: it trims them off the comment, so they are unmapped (comment 50, not 53)",
    ),
    (
        "composition/cases/invalid-utf8.js",
        "a byte that is not UTF-8 (0xFF): it decodes the file to a string first, so the byte becomes U+FFFD and is \
         measured as 3 bytes: totalBytes 54 for a 52-byte file, a.js 12 instead of 10",
    ),
];

/// The right sizes on the [`SME_WRONG`] bundles: `files` entries by our names, or a top-level field
/// (`mappedBytes`, …).
const OWN_EXPECTED: &[(&str, &[(&str, i64)])] = &[
    (
        "composition/cases/index-sections-share-a-line.js",
        &[
            ("a.js", 8),
            ("b.js", 8),
            ("[unmapped]", 9),
            ("[EOLs]", 3),
            ("[sourceMappingURL]", 55),
        ],
    ),
    (
        "composition/cases/mixed-line-endings.js",
        &[
            ("a.js", 8),
            ("b.js", 8),
            ("c.js", 8),
            ("[unmapped]", 0),
            ("[EOLs]", 7),
            ("[sourceMappingURL]", 46),
        ],
    ),
    (
        "composition/cases/leading-blank-line.js",
        &[
            ("a.js", 8),
            ("b.js", 8),
            ("[unmapped]", 0),
            ("[EOLs]", 4),
            ("[sourceMappingURL]", 46),
        ],
    ),
    (
        "composition/cases/trailing-whitespace.js",
        &[
            ("a.js", 11),
            ("[unmapped]", 0),
            ("[EOLs]", 2),
            ("[sourceMappingURL]", 47),
        ],
    ),
    (
        "composition/cases/two-comments.js",
        &[
            ("a.js", 8),
            ("b.js", 8),
            ("[unmapped]", 33),
            ("[EOLs]", 4),
            ("[sourceMappingURL]", 40),
        ],
    ),
    (
        // Which side of the split character gets its 4 bytes is ours to choose; all 13 bytes of the line are mapped.
        "composition/cases/split-surrogate.js",
        &[
            ("mappedBytes", 13),
            ("[unmapped]", 0),
            ("[EOLs]", 2),
            ("[sourceMappingURL]", 43),
        ],
    ),
    (
        "composition/cases/comment-without-space.js",
        &[
            ("a.js", 8),
            ("[unmapped]", 0),
            ("[EOLs]", 2),
            ("[sourceMappingURL]", 48),
        ],
    ),
    (
        "composition/cases/comment-trailing-space.js",
        &[
            ("a.js", 8),
            ("[unmapped]", 0),
            ("[EOLs]", 2),
            ("[sourceMappingURL]", 53),
        ],
    ),
    (
        "composition/cases/invalid-utf8.js",
        &[
            ("totalBytes", 52),
            ("a.js", 10),
            ("[unmapped]", 0),
            ("[EOLs]", 2),
            ("[sourceMappingURL]", 40),
        ],
    ),
];

const TOTALS: &[&str] = &[
    "totalBytes",
    "mappedBytes",
    "unmappedBytes",
    "eolBytes",
    "sourceMapCommentBytes",
];
const UNMAPPED: &str = "[unmapped]";
const EOLS: &str = "[EOLs]";
const COMMENT: &str = "[sourceMappingURL]";
const NO_SOURCE: &str = "[no source]";

fn fixtures() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")).unwrap()
}

fn node(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("node")
        .args(args)
        .current_dir(dir)
        .env_remove("NODE_OPTIONS")
        .output()
        .expect("node must be installed for this test (scripts/test-deps)")
}

/// (bundle, map) paths relative to `fixtures/`.
fn bundles(fixtures: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut entries: Vec<String> = std::fs::read_dir(fixtures.join("roundtrip/src"))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            let stem = name
                .strip_suffix(".mjs")
                .or_else(|| name.strip_suffix(".js"))?;
            Some(stem.to_string())
        })
        .collect();
    entries.sort();
    assert!(!entries.is_empty(), "no entries in fixtures/roundtrip/src");
    for bundler in ROUNDTRIP_BUNDLERS {
        for entry in &entries {
            let bundle = format!("roundtrip/dist/{bundler}/{entry}.js");
            out.push((bundle.clone(), format!("{bundle}.map")));
        }
    }
    for bundle in [
        "demo/dist/app.min.js",
        "lsp/esbuild/dist/out.js",
        "lsp/metro/index.bundle",
    ] {
        out.push((bundle.to_string(), format!("{bundle}.map")));
    }
    for case in CASES {
        let bundle = format!("composition/cases/{case}.js");
        out.push((bundle.clone(), format!("{bundle}.map")));
    }
    out
}

/// A result's numbers: the five totals and the `files` sizes.
#[derive(Debug, Default, Clone)]
struct Sizes {
    totals: BTreeMap<String, i64>,
    files: BTreeMap<String, i64>,
}

impl Sizes {
    fn parse(v: &Value, who: &str) -> Result<Sizes, String> {
        let mut s = Sizes::default();
        for t in TOTALS {
            let n = v[*t]
                .as_i64()
                .ok_or_else(|| format!("{who}: `{t}` is not an integer in {v}"))?;
            s.totals.insert(t.to_string(), n);
        }
        let files = v["files"]
            .as_object()
            .ok_or_else(|| format!("{who}: no `files` object"))?;
        for (name, f) in files {
            let n = f["size"]
                .as_i64()
                .ok_or_else(|| format!("{who}: files[{name:?}].size is not an integer"))?;
            s.files.insert(name.clone(), n);
        }
        Ok(s)
    }

    fn total(&self, name: &str) -> i64 {
        self.totals[name]
    }

    fn file(&self, name: &str) -> i64 {
        self.files.get(name).copied().unwrap_or(0)
    }
}

fn is_special(name: &str) -> bool {
    [UNMAPPED, EOLS, COMMENT, NO_SOURCE].contains(&name)
}

fn run_ours(fixtures: &Path, bundle: &str, map: &str) -> Result<Sizes, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_sourcemap-ls"))
        .args(["explore", bundle, map, "--json"])
        .current_dir(fixtures)
        .output()
        .expect("run sourcemap-ls");
    if !out.status.success() {
        return Err(format!(
            "`sourcemap-ls explore {bundle} {map} --json` failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let v: Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "`sourcemap-ls explore {bundle} {map} --json` printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })?;
    Sizes::parse(&v, "sourcemap-ls")
}

/// source-map-explorer's result and, per `sources` entry, (our name, its name).
fn run_sme(fixtures: &Path, bundle: &str, map: &str) -> SmeResult {
    let out = node(
        &fixtures.join("composition"),
        &[
            "run-sme.mjs",
            fixtures.join(bundle).to_str().unwrap(),
            fixtures.join(map).to_str().unwrap(),
            "--names",
        ],
    );
    let v: Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "run-sme.mjs {bundle}: no JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    if let Some(err) = v.get("error") {
        return Err(format!("source-map-explorer failed on {bundle}: {err}"));
    }
    let names = v["sourceNames"]
        .as_array()
        .ok_or("run-sme.mjs: no sourceNames")?
        .iter()
        .map(|p| {
            (
                p[0].as_str().map(str::to_string),
                p[1].as_str().unwrap().to_string(),
            )
        })
        .collect();
    Ok((Sizes::parse(&v, "source-map-explorer")?, names))
}

/// Our `files` with each source under source-map-explorer's name for it (sizes of entries sharing a name added).
fn renamed(
    ours: &Sizes,
    names: &[(Option<String>, String)],
) -> Result<BTreeMap<String, i64>, String> {
    let mut by_entry: BTreeMap<&str, &str> = BTreeMap::new();
    for (entry, name) in names {
        if let Some(entry) = entry {
            if let Some(old) = by_entry.insert(entry, name) {
                if old != name {
                    return Err(format!(
                        "sources entry {entry:?} has two source-map-explorer names, {old:?} and {name:?}"
                    ));
                }
            }
        }
    }
    let mut out = BTreeMap::new();
    for (key, size) in &ours.files {
        let name = if is_special(key) {
            key.as_str()
        } else {
            by_entry.get(key.as_str()).copied().ok_or_else(|| {
                format!(
                    "our source {key:?} is no entry of the map's `sources` (sourceRoot applied)"
                )
            })?
        };
        *out.entry(name.to_string()).or_insert(0) += size;
    }
    Ok(out)
}

/// Differences between source-map-explorer's result and ours, ours renamed to its names.
fn compare(sme: &Sizes, names: &[(Option<String>, String)], ours: &Sizes) -> Vec<String> {
    let mut problems = Vec::new();
    for t in TOTALS {
        if sme.total(t) != ours.total(t) {
            problems.push(format!(
                "{t}: source-map-explorer {}, ours {}",
                sme.total(t),
                ours.total(t)
            ));
        }
    }
    let known: Vec<&str> = names.iter().map(|(_, n)| n.as_str()).collect();
    for name in sme.files.keys() {
        if !is_special(name) && !known.contains(&name.as_str()) {
            problems.push(format!(
                "source-map-explorer names a source {name:?} that is none of the map's sources as it names them \
                 (a renaming the harness does not know)"
            ));
        }
    }
    match renamed(ours, names) {
        Err(e) => problems.push(e),
        Ok(ours) => {
            let keys: std::collections::BTreeSet<&String> =
                sme.files.keys().chain(ours.keys()).collect();
            for key in keys {
                let (a, b) = (sme.file(key), ours.get(key).copied().unwrap_or(0));
                if a != b {
                    problems.push(format!("files[{key:?}]: source-map-explorer {a}, ours {b}"));
                }
            }
        }
    }
    problems
}

/// Our own rule, on any bundle: see the module comment.
fn check_own_rule(fixtures: &Path, bundle: &str, ours: &Sizes) -> Vec<String> {
    let mut problems = Vec::new();
    let text = std::fs::read(fixtures.join(bundle)).unwrap();
    let len = text.len() as i64;
    if ours.total("totalBytes") != len {
        problems.push(format!(
            "totalBytes {} is not the file's length {len}",
            ours.total("totalBytes")
        ));
    }
    let parts = ours.total("mappedBytes")
        + ours.total("unmappedBytes")
        + ours.total("eolBytes")
        + ours.total("sourceMapCommentBytes");
    if parts != ours.total("totalBytes") {
        problems.push(format!(
            "mapped + unmapped + EOLs + comment = {parts}, not totalBytes {}",
            ours.total("totalBytes")
        ));
    }
    for (name, n) in ours.totals.iter().chain(&ours.files) {
        if *n < 0 {
            problems.push(format!("{name} is negative: {n}"));
        }
    }
    let mapped: i64 = ours
        .files
        .iter()
        .filter(|(k, _)| ![UNMAPPED, EOLS, COMMENT].contains(&k.as_str()))
        .map(|(_, n)| n)
        .sum();
    if mapped != ours.total("mappedBytes") {
        problems.push(format!(
            "the sources' sizes add up to {mapped}, not mappedBytes {}",
            ours.total("mappedBytes")
        ));
    }
    for (key, total) in [
        (UNMAPPED, "unmappedBytes"),
        (EOLS, "eolBytes"),
        (COMMENT, "sourceMapCommentBytes"),
    ] {
        if ours.file(key) != ours.total(total) {
            problems.push(format!(
                "files[{key:?}] is {}, {total} is {}",
                ours.file(key),
                ours.total(total)
            ));
        }
    }
    let newlines = text.iter().filter(|&&b| b == b'\n').count() as i64;
    let crlf = text.windows(2).filter(|w| w == b"\r\n").count() as i64;
    if ours.total("eolBytes") != newlines + crlf {
        problems.push(format!(
            "eolBytes {} is not the bytes of the file's \\n and \\r\\n terminators ({})",
            ours.total("eolBytes"),
            newlines + crlf
        ));
    }
    if let Some((_, expected)) = OWN_EXPECTED.iter().find(|(b, _)| *b == bundle) {
        for (key, size) in *expected {
            let got = if TOTALS.contains(key) {
                ours.total(key)
            } else {
                ours.file(key)
            };
            if got != *size {
                problems.push(format!("{key}: {got}, should be {size}"));
            }
        }
    }
    problems
}

type SmeResult = Result<(Sizes, Vec<(Option<String>, String)>), String>;
type BothResults = (SmeResult, Result<Sizes, String>);

/// Both tools on every bundle, a few bundles at a time; results in the bundles' order.
fn run_all(fixtures: &Path, bundles: Vec<(String, String)>) -> Vec<(String, BothResults)> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<BothResults>>> =
        Mutex::new(bundles.iter().map(|_| None).collect());
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(8);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some((bundle, map)) = bundles.get(i) else {
                    break;
                };
                let sme = run_sme(fixtures, bundle, map);
                let ours = run_ours(fixtures, bundle, map);
                results.lock().unwrap()[i] = Some((sme, ours));
            });
        }
    });
    bundles
        .into_iter()
        .zip(results.into_inner().unwrap())
        .map(|((bundle, _), r)| (bundle, r.unwrap()))
        .collect()
}

fn row(table: &mut String, bundle: &str, who: &str, s: &Sizes) {
    let _ = writeln!(
        table,
        "| {bundle} | {who} | {} | {} | {} | {} | {} | {} | {} |",
        s.total("totalBytes"),
        s.total("mappedBytes"),
        s.total("unmappedBytes"),
        s.total("eolBytes"),
        s.total("sourceMapCommentBytes"),
        s.file(NO_SOURCE),
        s.files.keys().filter(|k| !is_special(k)).count()
    );
}

#[test]
fn explore_matches_source_map_explorer() {
    let fixtures = fixtures();
    assert!(
        fixtures
            .join("composition/node_modules/source-map-explorer")
            .is_dir(),
        "run `npm ci` in fixtures/composition (scripts/test-deps does)"
    );
    assert!(
        fixtures.join("roundtrip/node_modules/esbuild").is_dir(),
        "run `npm ci` in fixtures/roundtrip (scripts/test-deps does)"
    );
    // Built under the lock every test binary that reads dist/ takes: a build of its own raced the others' and read a
    // file another build had just removed.
    roundtrip_build::built();
    for (bundle, _) in SME_WRONG {
        assert!(
            OWN_EXPECTED.iter().any(|(b, _)| b == bundle),
            "{bundle} is in SME_WRONG without OWN_EXPECTED sizes"
        );
    }

    let mut table = String::from(
        "| bundle | by | total | mapped | unmapped | EOLs | comment | [no source] | sources |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut failures = Vec::new();
    let mut compared = 0;
    for (bundle, (sme, ours)) in run_all(&fixtures, bundles(&fixtures)) {
        let wrong = SME_WRONG
            .iter()
            .find(|(b, _)| *b == bundle)
            .map(|(_, why)| *why);
        if let Ok((s, _)) = &sme {
            row(&mut table, &bundle, "source-map-explorer", s);
        }
        let ours = match ours {
            Ok(o) => o,
            Err(e) => {
                failures.push(format!("{bundle}: {e}"));
                continue;
            }
        };
        row(&mut table, &bundle, "sourcemap-ls", &ours);
        let mut problems = check_own_rule(&fixtures, &bundle, &ours);
        match (wrong, sme) {
            (Some(why), sme) => {
                eprintln!("{bundle}: not compared, source-map-explorer is wrong here: {why}");
                if let Ok((s, names)) = sme {
                    for d in compare(&s, &names, &ours) {
                        eprintln!("  {d}");
                    }
                }
            }
            (None, Err(e)) => problems.push(e),
            (None, Ok((s, names))) => {
                compared += 1;
                problems.extend(compare(&s, &names, &ours));
            }
        }
        for p in problems {
            failures.push(format!("{bundle}: {p}"));
        }
    }
    eprintln!("\n{table}");
    eprintln!(
        "{compared} bundles compared with source-map-explorer, {} checked on our own rule only",
        SME_WRONG.len()
    );
    assert!(
        failures.is_empty(),
        "{} problem(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
