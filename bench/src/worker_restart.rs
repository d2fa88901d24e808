//! A pipeline worker started again after SIGKILL (issue 66): how long from its start to its first event's answer,
//! when its store's maps were indexed before, against the same restart with the index cache off, in the same run.
//! The store is the real Metro build (`target/bench-metro-real`: a 57 MB bundle, a 103 MB map with one 50.6 MB
//! section); the stream is a real `redis-server` on a loopback port. A first worker answers one event (the index
//! cache written), is killed with SIGKILL, a new event is added, and a new worker (the same consumer) is started:
//! the time runs from its spawn to its answer in the output stream.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::median;
use crate::pipeline::which;

#[path = "../../tests/support/redis_server.rs"]
mod redis_server;
use redis_server::Redis;

/// A Sentry event with two frames in the bundle (V8's 1-based lines and columns), each at a mapped position.
fn event(id: usize) -> String {
    serde_json::json!({
        "event_id": format!("{id:032x}"),
        "platform": "javascript",
        "exception": {"values": [{"type": "Error", "value": "restart", "stacktrace": {"frames": [
            {"abs_path": "http://localhost:8081/index.bundle", "filename": "index.bundle", "lineno": 1000,
             "colno": 11, "function": "a", "in_app": true},
            {"abs_path": "http://localhost:8081/index.bundle", "filename": "index.bundle", "lineno": 200000,
             "colno": 9, "function": "b", "in_app": true}
        ]}}]}
    })
    .to_string()
}

/// The stream of one restart, on a real `redis-server` (the tests' own, `tests/support/redis_server.rs`).
struct Stream {
    redis: Redis,
    c: redis::Connection,
}

impl Stream {
    fn start() -> Stream {
        let redis = Redis::start();
        let c = redis.connection();
        Stream { redis, c }
    }

    fn add(&mut self, event: &str) {
        redis::cmd("XADD")
            .arg("in")
            .arg("*")
            .arg("event")
            .arg(event)
            .query::<String>(&mut self.c)
            .unwrap();
    }

    fn answered(&mut self) -> usize {
        redis::cmd("XLEN")
            .arg("out")
            .query::<usize>(&mut self.c)
            .unwrap_or(0)
    }

    fn worker(&self, bin: &Path, store: &Path, index_cache: &Path) -> Child {
        Command::new(bin)
            .args([
                "worker",
                "--redis",
                &self.redis.url,
                "--stream",
                "in",
                "--group",
                "g",
            ])
            .args([
                "--consumer",
                "w0",
                "--output",
                "out",
                "--jobs",
                "1",
                "--maps",
            ])
            .arg(store)
            .env("SOURCEMAP_LS_INDEX_CACHE", index_cache)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the worker starts")
    }

    /// Waits until the output stream holds `n` entries; the time it took from `since`.
    fn wait_for(&mut self, n: usize, since: Instant) -> Duration {
        while self.answered() < n {
            assert!(since.elapsed().as_secs() < 120, "the worker did not answer");
            std::thread::sleep(Duration::from_millis(1));
        }
        since.elapsed()
    }
}

/// One restart: a worker answers an event and is killed; the time a new worker takes to answer the next one.
fn restart(bin: &Path, store: &Path, index_cache: &Path) -> Duration {
    let mut r = Stream::start();
    r.add(&event(1));
    let mut first = r.worker(bin, store, index_cache);
    r.wait_for(1, Instant::now());
    // Its acknowledgement follows the answer in the same batch.
    std::thread::sleep(Duration::from_millis(200));
    let _ = first.kill();
    let _ = first.wait();
    r.add(&event(2));
    let started = Instant::now();
    let mut second = r.worker(bin, store, index_cache);
    let took = r.wait_for(2, started);
    let _ = second.kill();
    let _ = second.wait();
    took
}

pub fn run(metro_real: &Path, bin: &Path, samples: usize) {
    println!("\n### A pipeline worker started again after SIGKILL: its first event (issue 66)\n");
    if which("redis-server").is_none() {
        println!("(skipped: `redis-server` is not installed: scripts/test-deps)");
        return;
    }
    if !metro_real.join("index.bundle.map").exists() {
        println!(
            "(skipped: no build at {}; `node fixtures/metro-scale/make.mjs`)",
            metro_real.display()
        );
        return;
    }
    let store = std::fs::canonicalize(metro_real).unwrap();
    let cache = std::env::temp_dir().join(format!(
        "sourcemap-bench-restart-index-{}",
        std::process::id()
    ));
    let n = samples.clamp(1, 5);
    let mut on = Vec::new();
    let mut off = Vec::new();
    for _ in 0..n {
        let _ = std::fs::remove_dir_all(&cache);
        on.push(restart(bin, &store, &cache));
        off.push(restart(bin, &store, Path::new("off")));
    }
    let _ = std::fs::remove_dir_all(&cache);
    let list = |v: &[Duration]| {
        v.iter()
            .map(|d| format!("{:.0}", d.as_secs_f64() * 1e3))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let (t_on, t_off) = (median(on.clone()), median(off.clone()));
    println!("The store: the real Metro build (`--maps {}`), events with two frames in its bundle; from the new worker's spawn to its answer in the output stream, medians of {n}.\n", metro_real.display());
    println!("| restarted worker | first event answered | ÷ cache off | goal |");
    println!("|---|---:|---:|---|");
    println!(
        "| index cache off (`SOURCEMAP_LS_INDEX_CACHE=off`; {} ms) | {:.0} ms | 1.00 | |",
        list(&off),
        ms(t_off)
    );
    println!(
        "| index cache written by the killed worker ({} ms) | {:.0} ms | {:.2} | ≤ 200 ms |",
        list(&on),
        ms(t_on),
        t_off.as_secs_f64() / t_on.as_secs_f64()
    );
}
