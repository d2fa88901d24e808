//! `textDocument/documentLink` on one-line bundles, and a hover sent while it runs (issue 56): VS Code asks for
//! links when it opens a file, and on `@babel/standalone`'s 3.2 MB `babel.min.js` the search for frames inside the
//! line re-read the rest of the line at every `at ` (9.2–9.9 s), while a hover sent meanwhile waited behind it.
//!
//! The lines are real minified code: terser's own `dist/bundle.min.js` (from `fixtures/roundtrip`'s `node_modules`)
//! joined into one line and repeated to 2.9 MB and 10 MB. Each size: `documentLink` alone (median of `samples`), its
//! time per MB (linear when the two sizes agree), and a hover on a small mapped bundle sent right after a
//! `documentLink` of the line, answered before it or after (the time from sending it).

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::editor::{uri_of, Lsp};

/// The one-line text of `bytes` bytes made of terser's minified bundle.
fn one_line(bytes: usize) -> String {
    let terser = Path::new("fixtures/roundtrip/node_modules/terser/dist/bundle.min.js");
    let code = std::fs::read_to_string(terser)
        .unwrap_or_else(|_| panic!("{}: run npm ci in fixtures/roundtrip", terser.display()));
    let code = code.replace('\n', ";");
    let mut line = String::with_capacity(bytes + code.len());
    while line.len() < bytes {
        line.push_str(&code);
    }
    line.truncate(bytes);
    while !line.is_char_boundary(line.len()) {
        line.pop();
    }
    line.push('\n');
    line
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
        "\n### documentLink on one-line bundles, and a hover sent while it runs (`--links-only`)\n"
    );
    println!(
        "| line | documentLink p50 | per MB | hover sent during documentLink: answered after |"
    );
    println!("|---|---:|---:|---:|");
    for mb in [2.9f64, 10.0] {
        let bytes = (mb * 1_000_000.0) as usize;
        let path = dir.path().join(format!("line-{bytes}.js"));
        let text = one_line(bytes);
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
        let mut times: Vec<Duration> = (0..samples.max(1))
            .map(|_| {
                let t = Instant::now();
                lsp.request("textDocument/documentLink", links.clone());
                t.elapsed()
            })
            .collect();
        times.sort();
        let p50 = times[times.len() / 2];
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
        println!(
            "| {mb} MB | {:.1} ms | {:.1} ms | {:.1} ms ({}) |",
            ms(p50),
            ms(p50) / mb,
            ms(hover_after.unwrap()),
            if first == Some(json!(hover_id)) {
                "before the links"
            } else {
                "after the links"
            }
        );
    }
}
