//! `textDocument/documentLink` on one-line bundles, and a hover sent while it runs (issues 56 and 66): VS Code asks
//! for links when it opens a file. On `@babel/standalone`'s 3.2 MB `babel.min.js` the search for frames inside the
//! line re-read the rest of the line at every `at ` (9.2–9.9 s, issue 56); on its 7.26.0 build (2.93 MB, 316 `@`) the
//! `name@url:L:C` form re-read the line before every `@` (0.84 s, issue 66).
//!
//! The lines are real minified code, each as published or built, none repeated: `babel.min.js` of
//! `@babel/standalone` 7.26.0 and 7.28.5 (their long line), and the one-line bundle of 26 libraries
//! (`fixtures/one-line/make.mjs`, esbuild) cut to 2.9 MB and 10 MB and whole. Each line: `documentLink` alone
//! (median of `samples`), its time per MB and that figure ÷ the first line's (1.0 when the scan is linear; the
//! baseline is measured in the same run), and a hover on a small mapped bundle sent right after a `documentLink` of
//! the line, answered before it or after (the time from sending it). Needs `npm ci` in `fixtures/one-line`.
//!
//! Then cancellation (issue 67): on a fresh server per line, the server's CPU time for one `documentLink` run to its
//! end, against six sent one after another, each cancelled (`$/cancelRequest`) 50 ms after it was sent, and a hover
//! sent among them (the time from sending it to its answer). CPU time is the sum of the server's threads'
//! `/proc/PID/task/*/schedstat`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::editor::{uri_of, Lsp};

/// The longest line of a published file.
fn longest_line(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines()
        .max_by_key(|l| l.len())
        .map(|l| format!("{l}\n"))
}

/// The first `bytes` bytes of `line` (cut at a character boundary), a line of its own.
fn cut(line: &str, bytes: usize) -> String {
    let mut end = bytes.min(line.len());
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n", line[..end].trim_end_matches('\n'))
}

/// The real lines measured: (what it is, the line).
fn lines() -> Vec<(String, String)> {
    let modules = Path::new("fixtures/one-line/node_modules");
    let mut lines = Vec::new();
    for (label, package) in [
        ("`babel.min.js` 7.26.0", "babel-standalone-7.26"),
        ("`babel.min.js` 7.28.5", "@babel/standalone"),
    ] {
        match longest_line(&modules.join(package).join("babel.min.js")) {
            Some(line) => lines.push((label.to_string(), line)),
            None => println!("({label}: skipped, run `npm ci` in fixtures/one-line)"),
        }
    }
    let bundle: PathBuf = Path::new("target/bench-one-line").join("one-line.js");
    if !bundle.exists() {
        let _ = std::process::Command::new("node")
            .arg("fixtures/one-line/make.mjs")
            .arg("target/bench-one-line")
            .status();
    }
    match longest_line(&bundle) {
        Some(line) => {
            for mb in [2.9f64, 10.0] {
                let label = format!("the one-line bundle's first {mb} MB");
                lines.push((label, cut(&line, (mb * 1e6) as usize)));
            }
            lines.push(("the whole one-line bundle".to_string(), line));
        }
        None => {
            println!("(the one-line bundle: skipped, `node fixtures/one-line/make.mjs` failed)")
        }
    }
    lines
}

/// A temporary folder, removed when dropped.
struct Folder(std::path::PathBuf);

impl Folder {
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn run(bin: &Path, samples: usize) {
    let dir =
        Folder(std::env::temp_dir().join(format!("sourcemap-bench-links-{}", std::process::id())));
    std::fs::create_dir_all(dir.path()).unwrap();
    std::fs::write(
        dir.path().join("small.js"),
        "run();\n//# sourceMappingURL=small.js.map\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("small.js.map"),
        json!({"version": 3, "sources": ["small.ts"], "names": [], "mappings": "AAAA"}).to_string(),
    )
    .unwrap();
    println!(
        "\n### documentLink on real one-line bundles, and a hover sent while it runs (`--links-only`)\n"
    );
    println!(
        "| line | MB | `@` | `at ` | documentLink p50 | per MB | per MB ÷ the first line's | hover sent during documentLink: answered after |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut first_per_mb = None;
    for (i, (label, text)) in lines().into_iter().enumerate() {
        let mb = text.len() as f64 / 1e6;
        let path = dir.path().join(format!("line-{i}.js"));
        std::fs::write(&path, &text).unwrap();
        let mut lsp = Lsp::start(bin, dir.path(), true);
        let uri = uri_of(&path);
        lsp.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "javascript", "version": 1, "text": text}}),
        );
        let small = uri_of(&dir.path().join("small.js"));
        lsp.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": small, "languageId": "javascript", "version": 1,
                   "text": "run();\n//# sourceMappingURL=small.js.map\n"}}),
        );
        let links = json!({"textDocument": {"uri": uri}});
        let hover =
            json!({"textDocument": {"uri": small}, "position": {"line": 0, "character": 0}});
        lsp.request("textDocument/hover", hover.clone());
        // Each sample on a version of its own (an empty edit): the server finds a version's links once, and the
        // asks after the first are answered from it.
        let mut version = 1;
        let mut times: Vec<Duration> = (0..samples.max(1))
            .map(|_| {
                version += 1;
                lsp.notify(
                    "textDocument/didChange",
                    json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [
                        {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": ""}]}),
                );
                let t = Instant::now();
                lsp.request("textDocument/documentLink", links.clone());
                t.elapsed()
            })
            .collect();
        times.sort();
        let p50 = times[times.len() / 2];
        version += 1;
        lsp.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [
                {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": ""}]}),
        );
        let link_id = lsp.send_request("textDocument/documentLink", links.clone());
        let sent = Instant::now();
        let hover_id = lsp.send_request("textDocument/hover", hover.clone());
        let (mut hover_after, mut first) = (None, None);
        while hover_after.is_none() || first.is_none() {
            let v = lsp.next_answer();
            first.get_or_insert(v["id"].clone());
            if v["id"] == hover_id {
                hover_after = Some(sent.elapsed());
            } else {
                assert_eq!(v["id"], link_id);
            }
        }
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let per_mb = ms(p50) / mb;
        let baseline = *first_per_mb.get_or_insert(per_mb);
        println!(
            "| {label} | {mb:.2} | {} | {} | {:.1} ms | {:.1} ms | {:.2} | {:.1} ms ({}) |",
            text.matches('@').count(),
            text.matches("at ").count(),
            ms(p50),
            per_mb,
            per_mb / baseline,
            ms(hover_after.unwrap()),
            if first == Some(json!(hover_id)) {
                "before the links"
            } else {
                "after the links"
            }
        );
    }
    cancelled(bin, dir.path(), samples);
}

/// The CPU time the server's threads have run so far (`/proc/PID/task/*/schedstat`, nanoseconds).
fn cpu_of(pid: u32) -> Duration {
    let mut ns = 0u64;
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for t in tasks.flatten() {
            if let Ok(s) = std::fs::read_to_string(t.path().join("schedstat")) {
                ns += s
                    .split_whitespace()
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(0);
            }
        }
    }
    Duration::from_nanos(ns)
}

/// A fresh server with `text` open as `line.js` and `small.js` (a mapped bundle to hover) open beside it; a hover
/// answered first and the server left to go idle, so its start is not counted.
fn opened(bin: &Path, dir: &Path, text: &str) -> (Lsp, serde_json::Value, serde_json::Value) {
    let path = dir.join("line.js");
    std::fs::write(&path, text).unwrap();
    let mut lsp = Lsp::start(bin, dir, true);
    let uri = uri_of(&path);
    lsp.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "javascript", "version": 1, "text": text}}),
    );
    let small = uri_of(&dir.join("small.js"));
    lsp.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": small, "languageId": "javascript", "version": 1,
               "text": "run();\n//# sourceMappingURL=small.js.map\n"}}),
    );
    let hover = json!({"textDocument": {"uri": small}, "position": {"line": 0, "character": 0}});
    lsp.request("textDocument/hover", hover.clone());
    // Until the server is idle: what it does after an open (diagnostics, a trim) is not the requests' to count.
    let mut last = cpu_of(lsp.pid());
    loop {
        std::thread::sleep(Duration::from_millis(100));
        let now = cpu_of(lsp.pid());
        if now - last < Duration::from_micros(500) {
            break;
        }
        last = now;
    }
    (lsp, json!({"textDocument": {"uri": uri}}), hover)
}

/// Six `documentLink`s each cancelled 50 ms after sending against one run to its end, per line (issue 67).
pub fn cancelled(bin: &Path, dir: &Path, samples: usize) {
    println!("\n### documentLink cancelled (`--links-only`, issue 67)\n");
    println!(
        "| line | MB | one run to its end: CPU (median; least) | six cancelled 50 ms after sending: CPU (median; least) | ÷ one: medians (goal ≤ 1) | ÷ one: least | hover sent among them: answered after (goal ≤ 50 ms) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    for (label, text) in lines() {
        let mb = text.len() as f64 / 1e6;
        // A fresh server per sample; the medians of the samples (one run's CPU varies by a third from run to run).
        let (mut ones, mut sixes, mut hovers) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..samples.max(1) {
            let (mut lsp, links, hover) = opened(bin, dir, &text);
            let before = cpu_of(lsp.pid());
            // The same hover as among the six below, so both sides count one.
            let id = lsp.send_request("textDocument/documentLink", links.clone());
            let hover_id = lsp.send_request("textDocument/hover", hover.clone());
            let (a, b) = (lsp.next_answer(), lsp.next_answer());
            let mut ids = [a["id"].clone(), b["id"].clone()];
            ids.sort_by_key(|v| v.as_i64());
            let mut asked = [json!(id), json!(hover_id)];
            asked.sort_by_key(|v| v.as_i64());
            assert_eq!(ids, asked);
            // What the server does after its answer (freeing, a trim once requests pause) is counted, as below.
            std::thread::sleep(Duration::from_millis(300));
            let one = cpu_of(lsp.pid()) - before;
            drop(lsp);
            let (mut lsp, links, hover) = opened(bin, dir, &text);
            let before = cpu_of(lsp.pid());
            // The hover is sent right after the third `documentLink`, and read at once (answers to the links read on the
            // way are counted), so its time is its own.
            let mut answered = 0;
            let mut hover_after = None;
            for i in 0..6 {
                let id = lsp.send_request("textDocument/documentLink", links.clone());
                let sent = Instant::now();
                if i == 2 {
                    let hover_id = lsp.send_request("textDocument/hover", hover.clone());
                    loop {
                        let v = lsp.next_answer();
                        if v["id"] == hover_id {
                            hover_after = Some(sent.elapsed());
                            break;
                        }
                        answered += 1;
                    }
                }
                std::thread::sleep(Duration::from_millis(50).saturating_sub(sent.elapsed()));
                lsp.notify("$/cancelRequest", json!({"id": id}));
            }
            while answered < 6 {
                lsp.next_answer();
                answered += 1;
            }
            // Whatever a cancelled request still does after its answer is counted too.
            std::thread::sleep(Duration::from_millis(300));
            let six = cpu_of(lsp.pid()) - before;
            ones.push(one);
            sixes.push(six);
            hovers.push(hover_after.unwrap());
        }
        let median = |v: &mut Vec<Duration>| {
            v.sort();
            v[v.len() / 2]
        };
        if std::env::var_os("LINKS_BENCH_RAW").is_some() {
            eprintln!("{label}: one {ones:?} six {sixes:?}");
        }
        let (one, six, hover_after) = (median(&mut ones), median(&mut sixes), median(&mut hovers));
        // The least of each side: the run least disturbed by the machine, where what the five asks after the first
        // add shows.
        let (one_least, six_least) = (ones[0], sixes[0]);
        println!(
            "| {label} | {mb:.2} | {:.1} ms; {:.1} ms | {:.1} ms; {:.1} ms | {:.2} | {:.2} | {:.1} ms |",
            ms(one),
            ms(one_least),
            ms(six),
            ms(six_least),
            six.as_secs_f64() / one.as_secs_f64(),
            six_least.as_secs_f64() / one_least.as_secs_f64(),
            ms(hover_after)
        );
    }
}
