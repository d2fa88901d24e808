//! Load: 10,000 hover / originalPosition requests at a concurrency of 16 against the real server while the map is
//! rewritten (atomically, as bundlers' writers that rename do) and re-indexed in a loop. Every answer must be one of
//! the two versions' right answers: zero errors, zero wrong or missing answers. Prints p50/p99 latency (reported,
//! not asserted). Also: one map's indexing does not block requests about another.

#[path = "support/lsp_client.rs"]
mod lsp_client;

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use lsp_client::LspClient;
use serde_json::json;

const REQUESTS: usize = 10_000;
const CONCURRENCY: usize = 16;

#[test]
fn ten_thousand_requests_while_the_map_is_rewritten() {
    let demo = std::fs::canonicalize(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/demo/dist"),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("app.min.js");
    std::fs::copy(demo.join("app.min.js"), &bundle).unwrap();
    let v1 = std::fs::read_to_string(demo.join("app.min.js.map")).unwrap();
    let v2 = v1.replace("../src/orders.js", "../src/renamed.js");
    let map = dir.path().join("app.min.js.map");
    std::fs::write(&map, &v1).unwrap();

    let done = Arc::new(AtomicBool::new(false));
    let rewrites = Arc::new(AtomicUsize::new(0));
    let writer = {
        let (done, rewrites, map, dir) = (
            done.clone(),
            rewrites.clone(),
            map.clone(),
            dir.path().to_path_buf(),
        );
        std::thread::spawn(move || {
            let mut n = 0usize;
            while !done.load(Ordering::Relaxed) {
                let tmp = dir.join("app.min.js.map.tmp");
                std::fs::write(&tmp, if n.is_multiple_of(2) { &v2 } else { &v1 }).unwrap();
                std::fs::rename(&tmp, &map).unwrap();
                n += 1;
                rewrites.store(n, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(3));
            }
        })
    };

    let mut c = LspClient::start(&[("RUST_LOG", "warn")]);
    c.initialize(dir.path(), json!({}), false);
    let uri = url::Url::from_file_path(&bundle).unwrap().to_string();
    let params = json!({"textDocument": {"uri": uri}, "position": {"line": 0, "character": 49}});
    let mut sent_at: HashMap<i64, (Instant, &str)> = HashMap::new();
    let mut latencies = Vec::with_capacity(REQUESTS);
    let (mut sent, mut wrong) = (0usize, Vec::new());
    let started = Instant::now();
    while latencies.len() < REQUESTS {
        while sent < REQUESTS && sent_at.len() < CONCURRENCY {
            let method = if sent % 2 == 0 {
                "textDocument/hover"
            } else {
                "sourcemap/originalPosition"
            };
            let id = c.send_request(method, params.clone());
            sent_at.insert(id, (Instant::now(), method));
            sent += 1;
        }
        let r = c.next_response();
        let id = r["id"].as_i64().unwrap();
        let (at, method) = sent_at
            .remove(&id)
            .expect("a response to a request we sent");
        latencies.push(at.elapsed());
        let ok = match method {
            "textDocument/hover" => {
                let text = r["result"]["contents"]["value"]
                    .as_str()
                    .unwrap_or_default();
                text.contains("../src/orders.js:5:24") || text.contains("../src/renamed.js:5:24")
            }
            _ => {
                let o = &r["result"];
                (o["source"] == "../src/orders.js" || o["source"] == "../src/renamed.js")
                    && o["line"] == 4
                    && o["character"] == 23
            }
        };
        if !ok {
            wrong.push(r.to_string());
        }
    }
    let total = started.elapsed();
    done.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    latencies.sort();
    let p = |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)];
    println!(
        "{REQUESTS} requests, concurrency {CONCURRENCY}, {} map rewrites: {:.0} req/s, p50 {:?}, p99 {:?}, max {:?}",
        rewrites.load(Ordering::Relaxed),
        REQUESTS as f64 / total.as_secs_f64(),
        p(0.50),
        p(0.99),
        latencies.last().unwrap()
    );
    assert!(
        rewrites.load(Ordering::Relaxed) > 20,
        "the map must really change during the run"
    );
    assert!(
        wrong.is_empty(),
        "{} wrong or failed answers, first: {:?}",
        wrong.len(),
        wrong.first()
    );
    c.shutdown();
}

/// One map's indexing never holds up requests about another: a hover on a small bundle is answered while a large
/// map is still being read and indexed for another bundle.
#[test]
fn indexing_one_map_does_not_block_another() {
    let dir = tempfile::tempdir().unwrap();
    let g = sourcemap_fixtures::metro(&sourcemap_fixtures::MetroParams {
        seed: 9,
        modules: 6000,
        mean_segments: 600,
        huge_modules: 2,
        sources_content: true,
        facebook_sources: true,
    });
    std::fs::write(dir.path().join("big.js"), &g.bundle).unwrap();
    std::fs::write(dir.path().join("big.js.map"), &g.index_map).unwrap();
    let demo = std::fs::canonicalize(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/demo/dist"),
    )
    .unwrap();
    let mut c = LspClient::start(&[("RUST_LOG", "warn")]);
    c.initialize(dir.path(), json!({}), false);
    let big = url::Url::from_file_path(dir.path().join("big.js"))
        .unwrap()
        .to_string();
    let small = url::Url::from_file_path(demo.join("app.min.js"))
        .unwrap()
        .to_string();
    let big_id = c.send_request(
        "textDocument/hover",
        json!({"textDocument": {"uri": big}, "position": {"line": 100, "character": 10}}),
    );
    std::thread::sleep(Duration::from_millis(20));
    let small_id = c.send_request(
        "textDocument/hover",
        json!({"textDocument": {"uri": small}, "position": {"line": 0, "character": 49}}),
    );
    let first = c.next_response();
    let second = c.next_response();
    println!(
        "map of {} bytes: answers in order {} then {}",
        g.index_map.len(),
        first["id"],
        second["id"]
    );
    assert_eq!(
        first["id"], small_id,
        "the small bundle waited for the big map: {first}"
    );
    assert!(first["result"]["contents"]["value"]
        .as_str()
        .unwrap()
        .contains("orders.js:5:24"));
    assert_eq!(second["id"], big_id);
    assert!(second.get("error").is_none(), "{second}");
    c.shutdown();
}
