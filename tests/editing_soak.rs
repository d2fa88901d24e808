//! Edits the server saw are never answered as if unseen (issue 65): a real minified bundle (esbuild's build of the
//! round-trip corpus's React scenarios, 87 lines, template literals holding line breaks) is edited 300 times through
//! a real stdio client — short comments inserted at line starts and inside lines, a line break typed, a few
//! characters deleted, each `didChange` a range as editors send — with 3 hovers after each edit. Every hover on a
//! character the build wrote answers exactly what the unedited bundle answered at that character; every hover on a
//! character an edit wrote says so and answers nothing. The test tracks each character's origin itself.

#[path = "support/lsp_client.rs"]
mod lsp_client;
#[path = "support/roundtrip_build.rs"]
mod roundtrip_build;

use lsp_client::LspClient;
use serde_json::{json, Value};

/// A character of the document today: where it was in the build's text, or `None` when an edit wrote it.
struct Tracked {
    text: Vec<char>,
    origin: Vec<Option<usize>>,
    /// Where each line starts (char index), by LSP's line breaks.
    lines: Vec<usize>,
}

impl Tracked {
    fn new(text: &str) -> Tracked {
        let text: Vec<char> = text.chars().collect();
        let origin = (0..text.len()).map(Some).collect();
        let mut t = Tracked {
            text,
            origin,
            lines: Vec::new(),
        };
        t.index_lines();
        t
    }

    fn index_lines(&mut self) {
        self.lines = vec![0];
        let mut i = 0;
        while i < self.text.len() {
            match self.text[i] {
                '\r' if self.text.get(i + 1) == Some(&'\n') => {
                    self.lines.push(i + 2);
                    i += 1;
                }
                '\r' | '\n' => self.lines.push(i + 1),
                _ => {}
            }
            i += 1;
        }
    }

    /// The LSP position of char index `i`.
    fn position(&self, i: usize) -> (u32, u32) {
        let line = self.lines.partition_point(|&s| s <= i) - 1;
        let column: usize = self.text[self.lines[line]..i]
            .iter()
            .map(|c| c.len_utf16())
            .sum();
        (line as u32, column as u32)
    }

    /// Replaces chars `a..b` with `inserted`, returning the edit as LSP sends it.
    fn edit(&mut self, a: usize, b: usize, inserted: &str) -> Value {
        let (start, end) = (self.position(a), self.position(b));
        let new: Vec<char> = inserted.chars().collect();
        self.text.splice(a..b, new.iter().copied());
        self.origin.splice(a..b, new.iter().map(|_| None));
        self.index_lines();
        json!({
            "range": {"start": {"line": start.0, "character": start.1},
                      "end": {"line": end.0, "character": end.1}},
            "text": inserted,
        })
    }
}

/// A small deterministic generator (the soak is the same run every time).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

fn hover_text(v: &Value) -> Option<String> {
    v["contents"]["value"].as_str().map(str::to_string)
}

#[test]
fn hundreds_of_edits_never_answer_another_place() {
    let root = roundtrip_build::built().join("esbuild");
    let bundle = root.join("react-scenarios.js");
    let original = std::fs::read_to_string(&bundle).unwrap();
    let mut c = LspClient::start(&[]);
    c.initialize(&root, json!({}), false);
    let uri = c.open(&bundle, "javascript");
    let hover = |c: &mut LspClient, (line, character): (u32, u32)| {
        c.result(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
        )
    };
    let mut doc = Tracked::new(&original);
    let mut rng = Lcg(0x5eed);
    // The unedited bundle's answer at 900 characters of the build (not line breaks), asked first.
    let mut asked: Vec<usize> = Vec::new();
    while asked.len() < 900 {
        let i = rng.below(doc.text.len());
        if !matches!(doc.text[i], '\n' | '\r') && !asked.contains(&i) {
            asked.push(i);
        }
    }
    let truth: std::collections::HashMap<usize, Option<String>> = asked
        .iter()
        .map(|&i| (i, hover_text(&hover(&mut c, doc.position(i)))))
        .collect();
    let answered_before = truth.values().filter(|t| t.is_some()).count();
    assert!(
        answered_before > 700,
        "{answered_before} of 900 answered unedited"
    );

    let (mut same, mut edited_said, mut wrong) = (0, 0, Vec::new());
    let mut version = 1;
    for k in 0..300 {
        let line = rng.below(doc.lines.len() - 1);
        let start = doc.lines[line];
        let change = match k % 5 {
            // A short comment at a line's start (the edit).
            0 | 1 => doc.edit(start, start, "/*e*/"),
            // Inside a line.
            2 => {
                let i = rng.below(doc.text.len());
                doc.edit(i, i, " /* note */ ")
            }
            // A line break typed.
            3 => {
                let i = rng.below(doc.text.len());
                doc.edit(i, i, "\n")
            }
            // A few characters deleted (not across a line break, as a backspace does).
            _ => {
                let i = rng.below(doc.text.len() - 4);
                let n = (0..3)
                    .take_while(|d| !matches!(doc.text[i + d], '\n' | '\r'))
                    .count();
                doc.edit(i, i + n, "")
            }
        };
        version += 1;
        c.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}),
        );
        for _ in 0..3 {
            // Mostly characters the build wrote (their answer is known), now and then one an edit wrote.
            let i = if rng.below(6) == 0 {
                let written: Vec<usize> = (0..doc.text.len())
                    .filter(|&j| doc.origin[j].is_none() && !matches!(doc.text[j], '\n' | '\r'))
                    .collect();
                if written.is_empty() {
                    continue;
                }
                written[rng.below(written.len())]
            } else {
                let Some(i) = (0..40).find_map(|_| {
                    let q = asked[rng.below(asked.len())];
                    doc.origin.iter().position(|o| *o == Some(q))
                }) else {
                    continue;
                };
                i
            };
            let got = hover_text(&hover(&mut c, doc.position(i)));
            match doc.origin[i] {
                Some(q) => {
                    if got == truth[&q] {
                        same += 1;
                    } else {
                        wrong.push(format!(
                            "edit {k}: at {:?} (built at {:?}): {got:?}, unedited {:?}",
                            doc.position(i),
                            Tracked::new(&original).position(q),
                            truth[&q]
                        ));
                    }
                }
                None => {
                    if got
                        .as_deref()
                        .is_some_and(|g| g.contains("written by an edit"))
                    {
                        edited_said += 1;
                    } else {
                        wrong.push(format!(
                            "edit {k}: at {:?}, text an edit wrote: {got:?}",
                            doc.position(i)
                        ));
                    }
                }
            }
        }
    }
    c.shutdown();
    println!("{same} hovers answered as the unedited bundle, {edited_said} on edited text said so");
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(same > 600 && edited_said > 50, "{same} {edited_said}");
}
