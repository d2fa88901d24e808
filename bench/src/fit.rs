//! The fit check's cost (issue 24): on each fixture, the check alone ÷ the validated open, and `validate BUNDLE MAP`
//! ÷ `validate MAP` as whole processes (the goal: ≤ 1.5× on the Metro index map); then hostile pairs, each check ÷
//! reading the pair as `validate` does (the map opened and validated, the text checked as UTF-8; serde_json into
//! `IgnoredAny` shown beside it): the goal is that no pair makes the check slower than reading it.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use sourcemap_core::bundle::fit::check_fit;
use sourcemap_core::SourceMapIndex;

use crate::{ms, ratio, row, time};

fn validate(bin: &Path, args: &[&Path]) -> bool {
    Command::new(bin)
        .arg("validate")
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

/// The rows of one fixture: `index` is its map opened and validated, which took `open`.
pub fn fixture_rows(
    bin: &Path,
    map: &Path,
    bundle_path: &Path,
    index: &SourceMapIndex,
    bundle: &str,
    open: Duration,
    samples: usize,
) {
    let mut verdict = None;
    let check = time(samples, || {
        let r = check_fit(index, bundle.as_bytes(), None).unwrap();
        verdict = Some(format!("{:?}, {} segments", r.verdict, r.evidence.segments));
    });
    row(
        &format!(
            "fit check of the bundle ({}) ÷ validated open",
            verdict.unwrap_or_default()
        ),
        &ms(check),
        &ms(open),
        &ratio(check, open),
    );
    let with = time(samples.min(3), || validate(bin, &[bundle_path, map]));
    let without = time(samples.min(3), || validate(bin, &[map]));
    row(
        "validate BUNDLE MAP (with the fit check) ÷ validate MAP, whole process (goal ≤ 1.5×)",
        &ms(with),
        &ms(without),
        &ratio(with, without),
    );
}

/// Reading the pair as `validate` does: the map opened and validated, the text checked as UTF-8.
fn read_pair(map: &[u8], text: &[u8]) -> usize {
    let index = SourceMapIndex::from_bytes(map.to_vec()).unwrap();
    index.mappings_bytes() + std::str::from_utf8(text).unwrap().len()
}

fn hostile_row(label: &str, map: &[u8], text: &[u8], samples: usize) {
    let index = SourceMapIndex::from_bytes(map.to_vec()).unwrap();
    let check = time(samples, || check_fit(&index, text, None).unwrap());
    let floor = time(samples, || read_pair(map, text));
    let json = time(samples, || {
        serde_json::from_slice::<serde::de::IgnoredAny>(map).unwrap();
        std::str::from_utf8(text).unwrap().len()
    });
    row(
        label,
        &ms(check),
        &format!("{} (serde IgnoredAny + UTF-8: {})", ms(floor), ms(json)),
        &ratio(check, floor),
    );
}

/// Hostile pairs: a million segments on one column; a 100 MB non-ASCII line with segments jumping back and forth
/// along it; a million one-character lines, each with a segment past its end.
pub fn hostile_rows(quick: bool, samples: usize) {
    let n = if quick { 100_000 } else { 1_000_000 };
    println!("\n### The fit check on hostile pairs (÷ reading the pair: the map opened and validated, the text checked as UTF-8)\n");
    println!("| pair | check | reading the pair | ratio |");
    println!("|---|---|---|---|");
    let map_of = |mappings: String| {
        serde_json::to_vec(&serde_json::json!({
            "version": 3, "sources": ["a.js"], "names": [], "mappings": mappings,
        }))
        .unwrap()
    };
    // Every segment at column 0 of line 0.
    let mut same = String::from("AAAA");
    same.push_str(&",AAAA".repeat(n - 1));
    hostile_row(
        &format!("{n} segments on one column"),
        &map_of(same),
        b"function f(){}\n",
        samples,
    );
    // One 100 MB line of two-byte characters; segments alternate between its start and its end.
    let units = if quick { 5_000_000 } else { 50_000_000 };
    let line = "é".repeat(units);
    let mut jumping = String::new();
    let mut column = 0i64;
    let mut vlq = Vec::new();
    for i in 0..n {
        let target = if i % 2 == 0 {
            (i as i64) % 1000
        } else {
            units as i64 - 1 - (i as i64 % 1000)
        };
        if i > 0 {
            jumping.push(',');
        }
        vlq.clear();
        sourcemap_core::internal::map::vlq::encode_signed(target - column, &mut vlq);
        jumping.push_str(std::str::from_utf8(&vlq).unwrap());
        jumping.push_str("AAA");
        column = target;
    }
    hostile_row(
        &format!(
            "{} MB line (non-ASCII), {n} segments jumping along it",
            line.len() >> 20
        ),
        &map_of(jumping),
        line.as_bytes(),
        samples,
    );
    // A million short lines, each with a segment past its end.
    let lines = "x\n".repeat(n);
    let past = vec!["EAAA"; n].join(";");
    hostile_row(
        &format!("{n} one-character lines, each segment past its end"),
        &map_of(past),
        lines.as_bytes(),
        samples,
    );
}
