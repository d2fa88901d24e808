//! A session given up between its steps (`session::symbolicate_lines_until`): a stop asked at any of its checks
//! ends it with nothing, and a stop never asked for gives the session's whole answer. The language server's
//! cancelled requests stop here (`frame_bundles::symbolicate_in_workspace`).

use std::cell::Cell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use sourcemap_core::bundle::resolve::Asked;
use sourcemap_core::session::files::FilesPlace;
use sourcemap_core::session::{symbolicate_lines, symbolicate_lines_until, SessionOptions};
use sourcemap_core::trace::stack::{parse_stack, PlainInput};
use sourcemap_core::trace::symbolicate::SymbolicatedLine;

fn traces() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/traces")
}

#[test]
fn a_session_stops_at_each_of_its_checks_and_otherwise_answers_whole() {
    let text = std::fs::read_to_string(traces().join("v8-node.txt")).unwrap();
    let lines = parse_stack(&text, PlainInput::default());
    let (chosen, reported) = (HashMap::new(), HashMap::new());
    let asked = Asked {
        given: &[],
        chosen: &chosen,
        debug_ids: &[],
        no_file: None,
        reported: &reported,
    };
    let mut place = FilesPlace::new(Vec::new(), traces());
    let whole = symbolicate_lines(&mut place, lines.clone(), &asked, SessionOptions::default());
    let answered = whole
        .lines
        .iter()
        .filter(|l| matches!(l, SymbolicatedLine::Frame(f) if f.original.is_some()))
        .count();
    assert_eq!(answered, 4, "{:?}", whole.lines);

    // The session on a fresh place, counting the checks it asks; stopped at check `k` (none: never).
    let run = |k: Option<usize>| {
        let asks = Cell::new(0);
        let mut place = FilesPlace::new(Vec::new(), traces());
        let done = symbolicate_lines_until(
            &mut place,
            lines.clone(),
            &asked,
            SessionOptions::default(),
            &|| {
                asks.set(asks.get() + 1);
                Some(asks.get()) == k
            },
        );
        (done, asks.get())
    };
    let (never, checks) = run(None);
    assert_eq!(never.expect("never stopped").lines, whole.lines);
    assert!(checks >= 4, "{checks} checks");
    // Stopped at the k-th check: nothing, and no check asked after it.
    for k in 1..=checks {
        let (stopped, asks) = run(Some(k));
        assert!(stopped.is_none(), "check {k} of {checks}");
        assert_eq!(asks, k);
    }
}
