//! The editor at Metro scale: a dev build's bundle opened the way editors open it (`didOpen` with the whole text),
//! over stdio, against a cold `sourcemap-ls` process. Mirrors the table of issue 12: open → first hover, hover latency
//! over random positions (p50/p90/p99/max), the server's anonymous resident memory (peak and steady) as a ratio to
//! the map's `mappings` bytes, `symbolicate` whole process against metro-symbolicate, and `sourcemap/symbolicate` over
//! LSP on a 20,000-frame log against the CLI on the same log.
//!
//! The fixture (`fixtures/generated/metro-scale/`, generated when missing) is a Metro-shaped index map like the
//! others: 9,500 modules, ~7M segments, function maps, and `sourcesContent` (about 100 MB of map, a 50 MB bundle).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sourcemap_core::{GeneratedPosition, SourceMapIndex};
use sourcemap_fixtures::{metro, MetroParams};

use crate::{median, ms, positions, row, run_with_stdin, symbolicate_row, time, Args};

pub struct ScaleFixture {
    pub map: PathBuf,
    pub bundle: PathBuf,
}

pub fn ensure(args: &Args) -> ScaleFixture {
    let dir = args.out.join(if args.quick {
        "quick/metro-scale"
    } else {
        "metro-scale"
    });
    let fixture = ScaleFixture {
        map: dir.join("index.bundle.map"),
        bundle: dir.join("index.bundle"),
    };
    if !fixture.map.exists() {
        eprintln!("generating the Metro-scale fixture in {} …", dir.display());
        let params = MetroParams {
            seed: 2,
            modules: if args.quick { 300 } else { 9_500 },
            mean_segments: if args.quick { 200 } else { 735 },
            huge_modules: if args.quick { 1 } else { 4 },
            sources_content: true,
            facebook_sources: true,
        };
        let g = metro(&params);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&fixture.bundle, g.bundle.as_bytes()).unwrap();
        std::fs::write(&fixture.map, &g.index_map).unwrap();
    }
    fixture
}

/// A stdio LSP client that answers nothing back: it declares no capabilities, so the server asks nothing.
pub(crate) struct Lsp {
    child: Child,
    stdin: ChildStdin,
    out: BufReader<ChildStdout>,
    next_id: i64,
    cache: PathBuf,
    /// Whether a `textDocument/publishDiagnostics` went by: the server's background work on an opened bundle
    /// (validation, the fit check) is done.
    diagnosed: bool,
}

impl Lsp {
    /// `virtual_scheme`: the client opens `sourcemap-source:` documents (VS Code, Neovim); otherwise the server
    /// writes file copies of `sourcesContent`-only sources for it (Eglot, lsp-mode).
    pub(crate) fn start(bin: &Path, root: &Path, virtual_scheme: bool) -> Lsp {
        Lsp::start_with(bin, root, virtual_scheme, &[])
    }

    /// [`Lsp::start`] with more of the server's environment (`SOURCEMAP_LS_INDEX_CACHE`: a reload's warm index cache).
    pub(crate) fn start_with(
        bin: &Path,
        root: &Path,
        virtual_scheme: bool,
        env: &[(&str, &Path)],
    ) -> Lsp {
        // A fresh cache folder: file copies of sources (for a client without `sourcemapSourceScheme`) start cold.
        static SESSION: AtomicU64 = AtomicU64::new(0);
        let cache = std::env::temp_dir().join(format!(
            "sourcemap-bench-cache-{}-{}",
            std::process::id(),
            SESSION.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&cache);
        let mut child = Command::new(bin)
            .env("XDG_CACHE_HOME", &cache)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let out = BufReader::new(child.stdout.take().unwrap());
        let mut lsp = Lsp {
            child,
            stdin,
            out,
            next_id: 1,
            cache,
            diagnosed: false,
        };
        let root = format!("file://{}", std::fs::canonicalize(root).unwrap().display());
        lsp.request(
            "initialize",
            json!({"processId": null, "rootUri": root, "capabilities": {},
                   "initializationOptions": {"sourcemapSourceScheme": virtual_scheme}}),
        );
        lsp.send_bytes(&frame(
            &json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
        ));
        lsp
    }

    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    pub(crate) fn send_bytes(&mut self, b: &[u8]) {
        self.stdin.write_all(b).unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and waits for its answer (notifications and server requests in between are skipped).
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send_bytes(&frame(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        ));
        self.answer(id)
    }

    /// Sends a request without waiting: its id.
    pub(crate) fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send_bytes(&frame(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        ));
        id
    }

    /// The next answer to one of our requests (notifications and server requests in between are skipped).
    pub(crate) fn next_answer(&mut self) -> Value {
        loop {
            let v = self.next_message();
            if v.get("id").is_some() && v.get("method").is_none() {
                return v;
            }
        }
    }

    /// Sends a notification.
    pub(crate) fn notify(&mut self, method: &str, params: Value) {
        self.send_bytes(&frame(
            &json!({"jsonrpc": "2.0", "method": method, "params": params}),
        ));
    }

    /// Waits until the server has published diagnostics (of the bundle opened: its background work is done).
    pub(crate) fn wait_diagnostics(&mut self) {
        while !self.diagnosed {
            // A request that is never answered would block; `answer` returns on its id, so ask for nothing and read.
            let _ = self.next_message();
        }
    }

    fn next_message(&mut self) -> Value {
        let mut len = 0usize;
        loop {
            let mut line = String::new();
            assert!(self.out.read_line(&mut line).unwrap() > 0, "server exited");
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(v) = line.strip_prefix("Content-Length: ") {
                len = v.parse().unwrap();
            }
        }
        let mut body = vec![0; len];
        self.out.read_exact(&mut body).unwrap();
        let v: Value = serde_json::from_slice(&body).unwrap();
        if v["method"] == "textDocument/publishDiagnostics" {
            self.diagnosed = true;
        }
        v
    }

    fn answer(&mut self, id: i64) -> Value {
        loop {
            let v = self.next_message();
            if v["id"] == id && v.get("method").is_none() {
                assert!(v.get("error").is_none(), "{v}");
                return v;
            }
        }
    }
}

impl Drop for Lsp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        SPENT_CACHES
            .lock()
            .unwrap()
            .push(std::mem::take(&mut self.cache));
    }
}

/// Cache folders of servers that ended, removed by [`remove_spent_caches`] once nothing is timed any more. Removed
/// at once, they made the next server's copies slow on this VM's ext4: a new inode is searched for past every inode
/// freed in the last seconds to minutes (`recently_deleted`: 72 % of the samples of a request that followed the removal
/// of another server's 6,700 copies), which measured the benchmark's own removals, not the server.
static SPENT_CACHES: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

pub(crate) fn remove_spent_caches() {
    for cache in SPENT_CACHES.lock().unwrap().drain(..) {
        let _ = std::fs::remove_dir_all(cache);
    }
}

pub(crate) fn frame(v: &Value) -> Vec<u8> {
    frame_body(serde_json::to_vec(v).unwrap())
}

fn frame_body(body: Vec<u8>) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(&body);
    out
}

/// A `didOpen` as VS Code writes it: its fields in the order vscode-languageclient's `asTextDocumentItem` gives them
/// (uri, languageId, version, text; `serde_json`'s own order is alphabetical, the text before the URI). The server
/// reads the URI from the head of a large message, before the text has come (`large_texts::EARLY_OPEN`).
pub(crate) fn did_open(uri: &str, language: &str, text: &str) -> Vec<u8> {
    let s = |v: &str| serde_json::to_string(v).unwrap();
    frame_body(
        format!(
            r#"{{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{{"textDocument":{{"uri":{},"languageId":{},"version":1,"text":{}}}}}}}"#,
            s(uri),
            s(language),
            s(text)
        )
        .into_bytes(),
    )
}

/// `RssAnon` of a process, in bytes (Linux).
pub(crate) fn rss_anon(pid: u32) -> Option<u64> {
    rss_of(pid, "RssAnon:")
}

/// File-backed resident memory (`RssFile`: mapped files, the binary), reported beside the anonymous memory.
pub(crate) fn rss_file(pid: u32) -> Option<u64> {
    rss_of(pid, "RssFile:")
}

fn rss_of(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Samples `RssAnon` every 2 ms until dropped; `peak` is the highest seen.
pub(crate) struct RssSampler {
    peak: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl RssSampler {
    pub(crate) fn start(pid: u32) -> RssSampler {
        let peak = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (p, s) = (peak.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                if let Some(r) = rss_anon(pid) {
                    p.fetch_max(r, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        });
        RssSampler {
            peak,
            stop,
            thread: Some(thread),
        }
    }
    pub(crate) fn peak(&self) -> u64 {
        self.peak.load(Ordering::Relaxed)
    }
}

impl Drop for RssSampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

pub(crate) fn mb(b: u64) -> String {
    format!("{:.1} MB", b as f64 / 1e6)
}

pub(crate) fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

pub(crate) fn uri_of(p: &Path) -> String {
    format!("file://{}", std::fs::canonicalize(p).unwrap().display())
}

pub(crate) fn hover_params(uri: &str, p: GeneratedPosition) -> Value {
    json!({"textDocument": {"uri": uri}, "position": {"line": p.line, "character": p.column}})
}

/// What a session does with the 20,000-frame log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LogUse {
    /// `sourcemap/symbolicate` with it.
    Symbolicate,
    /// Opens it as a document and asks for its links.
    Links,
}

/// One cold server: `didOpen` with the whole bundle → the first hover answered; then `hovers` random hovers; the
/// memory; and `sourcemap/symbolicate` of the log or its stack links (see [`LogUse`]).
struct Session {
    first_hover: Duration,
    latencies: Vec<Duration>,
    peak_anon: u64,
    steady_anon: u64,
    symbolicate: Option<Duration>,
    /// `textDocument/documentLink` on the same log opened as a document: its stack links.
    links: Option<Duration>,
}

fn session(
    bin: &Path,
    f: &ScaleFixture,
    text: &str,
    hovers: &[GeneratedPosition],
    log: Option<(&str, LogUse)>,
    virtual_scheme: bool,
) -> Session {
    let root = f.bundle.parent().unwrap();
    let mut lsp = Lsp::start(bin, root, virtual_scheme);
    let sampler = RssSampler::start(lsp.pid());
    let uri = uri_of(&f.bundle);
    // Serialised before the clock starts: the client's own cost is not the server's.
    let open = did_open(&uri, "javascript", text);
    let started = Instant::now();
    lsp.send_bytes(&open);
    drop(open);
    lsp.request("textDocument/hover", hover_params(&uri, hovers[0]));
    let first_hover = started.elapsed();
    let mut latencies = Vec::with_capacity(hovers.len());
    for &p in hovers {
        let t = Instant::now();
        lsp.request("textDocument/hover", hover_params(&uri, p));
        latencies.push(t.elapsed());
    }
    // Steady: after the server's background work on the bundle (validation, the fit check), then a pause.
    lsp.wait_diagnostics();
    std::thread::sleep(Duration::from_millis(300));
    let steady_anon = rss_anon(lsp.pid()).unwrap_or(0);
    let symbolicate = log.filter(|l| l.1 == LogUse::Symbolicate).map(|(log, _)| {
        let t = Instant::now();
        let r = lsp.request("sourcemap/symbolicate", json!({"text": log}));
        let elapsed = t.elapsed();
        let mapped = r["result"]["frames"]
            .as_array()
            .map_or(0, |f| f.iter().filter(|f| !f["original"].is_null()).count());
        assert!(mapped > 0, "no frame mapped over LSP");
        elapsed
    });
    let links = log.filter(|l| l.1 == LogUse::Links).map(|(log, _)| {
        // A log beside the bundle, opened as editors open it (no file needed on disk).
        let log_uri = format!("{}/crash.log", uri_of(root));
        let open = did_open(&log_uri, "log", log);
        let t = Instant::now();
        lsp.send_bytes(&open);
        let r = lsp.request(
            "textDocument/documentLink",
            json!({"textDocument": {"uri": log_uri}}),
        );
        let elapsed = t.elapsed();
        let linked = r["result"].as_array().map_or(0, Vec::len);
        assert!(linked > 0, "no stack link over LSP");
        elapsed
    });
    let peak_anon = sampler.peak().max(steady_anon);
    Session {
        first_hover,
        latencies,
        peak_anon,
        steady_anon,
        symbolicate,
        links,
    }
}

/// A trace of `n` frames at random positions of the bundle, as a React Native dev build prints them.
fn trace(bundle: &str, n: usize, seed: u64) -> String {
    let mut out = String::from("Error: boom\n");
    for (i, p) in positions(bundle, n, seed).iter().enumerate() {
        out.push_str(&format!(
            "    at f{i} (http://localhost:8081/index.bundle?platform=ios&dev=true:{}:{})\n",
            p.line + 1,
            p.column + 1
        ));
    }
    out
}

pub fn run(args: &Args, bin: &Path) {
    let f = ensure(args);
    let text = std::fs::read_to_string(&f.bundle).unwrap();
    let map_bytes = std::fs::metadata(&f.map).unwrap().len();
    let index = SourceMapIndex::from_bytes(std::fs::read(&f.map).unwrap()).unwrap();
    let mappings = index.mappings_bytes() as u64;
    let mut segments = 0u64;
    for i in 0..index.sections().len() {
        segments += index.compact(i).unwrap().segment_count();
    }
    let sections = index.sections().len();
    drop(index);
    println!("\n### The editor at Metro scale (`didOpen` with the whole text, stdio)\n");
    println!(
        "{sections} modules, {segments} segments, `mappings` {} ({:.2} B/segment), map {} with `sourcesContent`, \
         bundle {}\n",
        mb(mappings),
        mappings as f64 / segments as f64,
        mb(map_bytes),
        mb(text.len() as u64)
    );
    println!("| measure | sourcemap-ls | baseline | ratio | goal |");
    println!("|---|---|---|---|---|");

    let hovers = positions(&text, 200, 21);
    let log = trace(&text, 20_000, 22);
    let runs = args.samples.clamp(1, 3);
    // Each measure of the log on its own cold server (the first touch of a section builds it; the first copy of a
    // source writes it): VS Code-like and file-copy clients, `sourcemap/symbolicate` then stack links.
    let uses = [
        (LogUse::Symbolicate, true),
        (LogUse::Symbolicate, false),
        (LogUse::Links, true),
        (LogUse::Links, false),
    ];
    let sessions: Vec<Session> = (0..runs.max(uses.len()))
        .map(|i| {
            let (log_use, virtual_scheme) = match uses.get(i) {
                Some(&(u, v)) => (Some((log.as_str(), u)), v),
                None => (None, true),
            };
            session(bin, &f, &text, &hovers, log_use, virtual_scheme)
        })
        .collect();
    let runs = sessions.len();
    let first = median(sessions.iter().map(|s| s.first_hover).collect());
    println!(
        "| `didOpen` ({}) → first hover answered, cold server (median of {runs}) | {} | | | ≤ 0.6 s |",
        mb(text.len() as u64),
        ms(first)
    );
    let mut all: Vec<Duration> = sessions
        .iter()
        .flat_map(|s| s.latencies.iter().copied())
        .collect();
    all.sort();
    println!(
        "| hover latency, {} random positions × {runs} servers: p50 / p90 / p99 / max | {} / {} / {} / {} | | | p99 ≤ 20 ms |",
        hovers.len(),
        ms(percentile(&all, 0.5)),
        ms(percentile(&all, 0.9)),
        ms(percentile(&all, 0.99)),
        ms(*all.last().unwrap())
    );
    let peak = sessions.iter().map(|s| s.peak_anon).max().unwrap();
    let steady = median(
        sessions
            .iter()
            .map(|s| Duration::from_nanos(s.steady_anon))
            .collect(),
    )
    .as_nanos() as u64;
    let budget = text.len() as u64 + mappings * 3 / 2;
    println!(
        "| server anonymous memory, bundle open: steady ÷ `mappings` bytes (budget: bundle + 1.5 × mappings = {}) | {} | {} | {:.2} | ≤ {:.2} |",
        mb(budget),
        mb(steady),
        mb(mappings),
        steady as f64 / mappings as f64,
        budget as f64 / mappings as f64
    );
    println!(
        "| server anonymous memory, peak ÷ `mappings` bytes | {} | {} | {:.2} | |",
        mb(peak),
        mb(mappings),
        peak as f64 / mappings as f64
    );

    // symbolicate whole process: a 146-frame trace, vs metro-symbolicate.
    let short = trace(&text, 146, 23);
    symbolicate_row(
        bin,
        &f.map,
        &short,
        args.samples,
        "`symbolicate` 146 frames, whole process",
        " | ≥ 20×",
    );
    let map_arg = f.map.to_string_lossy().into_owned();

    // The 20K-frame log: LSP (map already loaded) vs the CLI (whole process, map read from disk).
    let cli = time(args.samples.min(3), || {
        run_with_stdin(Command::new(bin).args(["symbolicate", &map_arg]), &log)
    });
    for (s, &(_, virtual_scheme)) in sessions.iter().zip(&uses) {
        let client = if virtual_scheme {
            "a client with `sourcemap-source:` documents (VS Code)"
        } else {
            "a client without (a file copy per source, cold cache)"
        };
        if let Some(lsp) = s.symbolicate {
            row(
                &format!("`sourcemap/symbolicate` over LSP, 20,000-frame log, {client}, vs the CLI on the same log (whole process)"),
                &ms(lsp),
                &ms(cli),
                &format!("{:.2}× the CLI | ≤ 2×", lsp.as_secs_f64() / cli.as_secs_f64()),
            );
        }
        if let Some(links) = s.links {
            row(
                &format!("stack links (`didOpen` of the log → `documentLink` answered), {client}, vs the CLI"),
                &ms(links),
                &ms(cli),
                &format!("{:.2}× the CLI | ≤ 2×", links.as_secs_f64() / cli.as_secs_f64()),
            );
        }
    }
}
