//! Reading a trace costs time in proportion to its text, whatever the text holds (issue 66): long lines built from
//! every frame form's punctuation (V8's `at `, SpiderMonkey/JSC's `@`, Presto's `Line N of`, Crashlytics' ` + N (`,
//! Vitest's `❯`, brackets and quotes that a function name balances, URLs, `:L:C`, log prefixes, terminal colours) are
//! parsed at two lengths, one 16 times the other, and the longer must not cost more than 6 times as much per MB.
//! Quadratic work (a prefix re-read before each `@`, as `@babel/standalone` 7.26.0's `babel.min.js` showed: 0.84 s a
//! documentLink) costs 16 times as much per MB here; linear work up to 3.2 times as much under CI's load (the regex
//! engine a long line gets is slower per byte than a short line's), hence the margin.
//!
//! This compares two runs of the same process a moment apart (the fastest of several each), not a time against a
//! fixed budget; the absolute figures are `sourcemap-bench --links-only`'s.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use sourcemap_core::trace::stack::{parse_stack, PlainInput};

/// Every frame form's punctuation and words (the table in `trace/stack.rs`).
const PIECES: &[&str] = &[
    "at ",
    " at ",
    "@",
    "fn@",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "\"",
    "'",
    "`",
    ":",
    ":12",
    ":3:4",
    "12",
    " ",
    "\t",
    "http://host/a.js",
    "file:///app/b.js:1:2",
    "webpack-internal:///./c.ts",
    "❯ ",
    "Line 3 of linked script ",
    "called from line 1, column 2 in ",
    " in ",
    " + 12 (",
    "0x0 ",
    "seg-1.js",
    "<anonymous>",
    "eval at ",
    " line 2 > eval",
    "*",
    "async*",
    "/<",
    "\\",
    "\u{1b}[31m",
    "\u{1b}[0m",
    "[native code]",
    "(native)",
    ",",
    " {",
    "> ",
    "-1",
    "global code",
    "x",
    "e.length",
];

/// How a long line may open: most minified bundles open a function or a bracket they close only at their end, so
/// every later prefix is unbalanced (a name's `@` is looked for after balanced text).
const OPENINGS: &[&str] = &["", "(", "{", "[", "\"", "'", "`", "!function(e){", "at f ("];

/// `opening`, then `unit` repeated to at least `bytes` bytes, one line.
fn line_of(opening: &str, unit: &str, bytes: usize) -> String {
    let mut line = String::with_capacity(bytes + unit.len());
    line.push_str(opening);
    while line.len() < bytes {
        line.push_str(unit);
    }
    line
}

/// The fastest of a few parses of `text`.
fn fastest_parse(text: &str) -> Duration {
    (0..5)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(parse_stack(text, PlainInput::default()));
            t.elapsed()
        })
        .min()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn time_per_mb_stays_flat_in_long_lines(
        opening in prop::sample::select(OPENINGS),
        pieces in prop::collection::vec(prop::sample::select(PIECES), 1..24),
    ) {
        let unit: String = pieces.concat();
        let (short, long) = (line_of(opening, &unit, 16 << 10), line_of(opening, &unit, 256 << 10));
        let per_byte = |text: &str| fastest_parse(text).as_secs_f64() / text.len() as f64;
        let (short_cost, long_cost) = (per_byte(&short), per_byte(&long));
        // A floor of 2 ns a byte keeps the timer's own noise on a fast line from counting.
        let floor = 2e-9;
        prop_assert!(
            long_cost <= 6.0 * short_cost.max(floor),
            "a line 16 times as long cost {:.1}× as much per byte (unit {unit:?})",
            long_cost / short_cost.max(floor)
        );
    }
}
