//! Sentry's engine on a stream of events, for `sourcemap-bench --pipeline` to measure beside `symbolicate --ndjson`
//! (issue 46). Built only with the `sentry` feature: `cargo build --release -p sourcemap-bench --features sentry
//! --bin sentry-engine` (it compiles swc, which the rest of the workspace does not need).
//!
//! `sentry-engine --maps DIR [--jobs N] [--cache-mb N] < events.ndjson > events.ndjson`
//!
//! What symbolicator does per JavaScript event once it has the files (`crates/symbolicator-js/src/symbolication.rs`,
//! `symbolicate_js_frame`), without its HTTP service and its artifact lookup:
//! - a frame's bundle is found by its `abs_path`'s URL path under DIR, its map by the bundle's last
//!   `//# sourceMappingURL=` (as symbolicator reads it from the minified file);
//! - one `SourceMapCache` per bundle + map (`SourceMapCacheWriter::new(bundle, map)`, which parses the bundle with
//!   swc for its scopes), kept in memory and shared by every event and every thread, least recently used dropped
//!   first when `--cache-mb` is given (symbolicator's in-memory cache; its disk cache is not modelled, as
//!   `symbolicate --ndjson` has none), built once however many threads want it;
//! - each frame looked up at `(lineno - 1, colno - 1)`; its `function` is the token's scope name, `<anonymous>` for an
//!   anonymous scope, the minified name when the position has no scope, then replaced by the caller's token name
//!   when it is `<anonymous>`, `__webpack_require__` or `__webpack_modules__` (`get_function_for_token`, "caller
//!   naming"), repeated property names folded (`fold_function_name`);
//! - `abs_path`, `filename`, `lineno`, `colno` (1-based), `data.symbolicated`, and the context lines from the
//!   map's `sourcesContent` (symbolicator's `get_context_lines` rule; the function is our core's, which is held to
//!   symbolicator's own test cases); the frames as sent kept in `raw_stacktrace`.
//!
//! Every line is read before the work starts (the input is a few MB); output keeps input order. A line that is not a
//! JSON object passes through.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use clap::Parser;
use serde_json::{json, Value};
use sourcemap_core::trace::event_context::context_lines;
use symbolic_sourcemapcache::{
    ScopeLookupResult, SourceMapCache, SourceMapCacheWriter, SourcePosition,
};

#[derive(Parser)]
struct Args {
    /// The folder of bundles and maps (a frame's URL path is looked up under it).
    #[arg(long)]
    maps: PathBuf,
    /// Threads working on events at once (default: every core).
    #[arg(long)]
    jobs: Option<usize>,
    /// Memory for built caches, in MiB (default: unbounded).
    #[arg(long)]
    cache_mb: Option<usize>,
}

/// A built cache, or why there is none.
type Built = Result<Arc<Vec<u8>>, String>;

/// The in-memory cache: bundle path → its built cache, least recently used dropped first past the budget.
struct Caches {
    dir: PathBuf,
    budget: Option<usize>,
    state: Mutex<CacheState>,
}

#[derive(Default)]
struct CacheState {
    /// Bundle → its cell (built once, whoever asks first), when it was last used, and its size once built (0
    /// before: a cache being built is never the one dropped).
    entries: HashMap<PathBuf, (Arc<OnceLock<Built>>, u64, usize)>,
    tick: u64,
    bytes: usize,
}

impl Caches {
    fn get(&self, bundle: &Path) -> Built {
        let cell = {
            let mut s = self.state.lock().unwrap();
            s.tick += 1;
            let tick = s.tick;
            let entry = s
                .entries
                .entry(bundle.to_path_buf())
                .or_insert_with(|| (Arc::default(), tick, 0));
            entry.1 = tick;
            entry.0.clone()
        };
        let mut built_now = false;
        let built = cell
            .get_or_init(|| {
                built_now = true;
                build(bundle)
            })
            .clone();
        if built_now {
            let size = built.as_ref().map_or(0, |b| b.len());
            let mut s = self.state.lock().unwrap();
            if let Some(entry) = s
                .entries
                .get_mut(bundle)
                .filter(|e| Arc::ptr_eq(&e.0, &cell))
            {
                entry.2 = size;
                s.bytes += size;
            }
            if let Some(budget) = self.budget {
                // Least recently used first, the one just built last.
                while s.bytes > budget {
                    let oldest = s
                        .entries
                        .iter()
                        .filter(|(k, e)| e.2 > 0 && k.as_path() != bundle)
                        .min_by_key(|(_, e)| e.1)
                        .map(|(k, _)| k.clone());
                    let Some(oldest) = oldest else { break };
                    let (_, _, freed) = s.entries.remove(&oldest).unwrap();
                    s.bytes -= freed;
                }
            }
        }
        built
    }
}

/// `SourceMapCacheWriter` over the bundle and the map its last `sourceMappingURL` names.
fn build(bundle: &Path) -> Built {
    let code = std::fs::read_to_string(bundle).map_err(|e| format!("{}: {e}", bundle.display()))?;
    let url = code
        .lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix("//# sourceMappingURL="))
        .ok_or_else(|| format!("{}: no sourceMappingURL", bundle.display()))?;
    let map_path = bundle.parent().unwrap_or(Path::new(".")).join(url.trim());
    let map =
        std::fs::read_to_string(&map_path).map_err(|e| format!("{}: {e}", map_path.display()))?;
    let writer = SourceMapCacheWriter::new(&code, &map).map_err(|e| e.to_string())?;
    let mut buffer = Vec::new();
    writer.serialize(&mut buffer).map_err(|e| e.to_string())?;
    Ok(Arc::new(buffer))
}

/// The bundle a frame's URL names under the folder: the URL's path, its query and fragment dropped.
fn bundle_of(dir: &Path, abs_path: &str) -> Option<PathBuf> {
    let rest = abs_path.split_once("://").map_or(abs_path, |(_, r)| r);
    let path = rest.split_once('/')?.1;
    let path = path.split(['?', '#']).next()?;
    Some(dir.join(path))
}

/// Symbolicator's choice among the token's scope, the caller's token name and the minified name.
fn function_for(minified: Option<&str>, scope_name: &str, caller_token: Option<&str>) -> String {
    const USELESS: [&str; 3] = ["<anonymous>", "__webpack_require__", "__webpack_modules__"];
    let chosen = if !USELESS.contains(&scope_name) {
        scope_name
    } else if let Some(name) = caller_token.filter(|n| !n.is_empty()) {
        name
    } else {
        minified.unwrap_or(scope_name)
    };
    fold(chosen)
}

/// Runs of one property name before the last part become `{name#count}`: `a.b.b.c` → `a.{b#2}.c`.
fn fold(name: &str) -> String {
    let Some((head, tail)) = name.rsplit_once('.') else {
        return name.to_string();
    };
    let mut out: Vec<String> = Vec::new();
    let mut run: Option<(&str, usize)> = None;
    let flush = |run: Option<(&str, usize)>, out: &mut Vec<String>| match run {
        Some((part, 1)) => out.push(part.to_string()),
        Some((part, n)) => out.push(format!("{{{part}#{n}}}")),
        None => {}
    };
    for part in head.split('.') {
        match run {
            Some((p, n)) if p == part => run = Some((p, n + 1)),
            _ => {
                flush(run, &mut out);
                run = Some((part, 1));
            }
        }
    }
    flush(run, &mut out);
    format!("{}.{tail}", out.join("."))
}

fn frame(frame: &mut Value, caches: &Caches, caller_token: &mut Option<String>) {
    let caller = caller_token.take();
    let Some(abs_path) = frame["abs_path"].as_str() else {
        return;
    };
    let (Some(line), Some(column)) = (frame["lineno"].as_u64(), frame["colno"].as_u64()) else {
        return;
    };
    if line == 0 || column == 0 {
        return;
    }
    let Some(bundle) = bundle_of(&caches.dir, abs_path) else {
        return;
    };
    let Ok(buffer) = caches.get(&bundle) else {
        return;
    };
    let Ok(cache) = SourceMapCache::parse(&buffer) else {
        return;
    };
    let Some(token) = cache.lookup(SourcePosition::new(line as u32 - 1, column as u32 - 1)) else {
        return;
    };
    *caller_token = token.name().map(str::to_string);
    let minified = frame["function"].as_str().map(str::to_string);
    let scope_name = match token.scope() {
        ScopeLookupResult::NamedScope(name) => name.to_string(),
        ScopeLookupResult::AnonymousScope => "<anonymous>".to_string(),
        ScopeLookupResult::Unknown => minified.clone().unwrap_or("<unknown>".to_string()),
    };
    let function = function_for(minified.as_deref(), &scope_name, caller.as_deref());
    let object = frame.as_object_mut().unwrap();
    object.insert("function".into(), json!(function));
    if let Some(file) = token.file_name() {
        object.insert("abs_path".into(), json!(file));
    }
    object.insert("lineno".into(), json!(token.line() + 1));
    object.insert("colno".into(), json!(token.column() + 1));
    object.insert("data".into(), json!({"symbolicated": true}));
    if let Some(file) = token.file() {
        if let Some(name) = file.name() {
            object.insert("filename".into(), json!(name));
        }
        if let Some((pre, context, post)) = file.source().and_then(|source| {
            context_lines(source, token.line() as usize, token.column() as usize)
        }) {
            object.insert("pre_context".into(), json!(pre));
            object.insert("context_line".into(), json!(context));
            object.insert("post_context".into(), json!(post));
        }
    }
}

fn event(line: &str, caches: &Caches) -> String {
    let Ok(mut event) = serde_json::from_str::<Value>(line) else {
        return line.to_string();
    };
    let Some(values) = event
        .pointer_mut("/exception/values")
        .and_then(Value::as_array_mut)
    else {
        return line.to_string();
    };
    for exception in values {
        let Some(frames) = exception
            .pointer_mut("/stacktrace/frames")
            .and_then(Value::as_array_mut)
        else {
            continue;
        };
        let raw = Value::Array(frames.clone());
        let mut caller_token = None;
        for f in frames.iter_mut() {
            frame(f, caches, &mut caller_token);
        }
        exception
            .as_object_mut()
            .unwrap()
            .insert("raw_stacktrace".into(), json!({ "frames": raw }));
    }
    event.to_string()
}

fn main() {
    let args = Args::parse();
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let caches = Caches {
        dir: args.maps,
        budget: args.cache_mb.map(|mb| mb << 20),
        state: Mutex::default(),
    };
    let lines: Vec<String> = std::io::stdin()
        .lock()
        .lines()
        .map_while(Result::ok)
        .collect();
    let out: Vec<OnceLock<String>> = (0..lines.len()).map(|_| OnceLock::new()).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(line) = lines.get(i) else { break };
                let _ = out[i].set(event(line, &caches));
            });
        }
    });
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    for line in &out {
        let _ = writeln!(stdout, "{}", line.get().map_or("", String::as_str));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Symbolicator's own examples of the rules (`get_function_for_token`, `fold_function_name` tests).
    #[test]
    fn names_follow_symbolicators_rules() {
        assert_eq!(function_for(Some("original"), "lookedup", None), "lookedup");
        assert_eq!(
            function_for(None, "__webpack_require__", Some("previous_name")),
            "previous_name"
        );
        assert_eq!(
            function_for(None, "__webpack_require__", None),
            "__webpack_require__"
        );
        assert_eq!(
            function_for(Some("original"), "__webpack_require__", None),
            "original"
        );
        for (name, folded) in [
            ("foo", "foo"),
            ("foo.foo", "foo.foo"),
            ("foo.foo.foo", "{foo#2}.foo"),
            ("bar.foo.foo", "bar.foo.foo"),
            ("bar.foo.foo.foo", "bar.{foo#2}.foo"),
            ("bar.foo.foo.onError", "bar.{foo#2}.onError"),
            ("bar.bar.bar.foo.foo.onError", "{bar#3}.{foo#2}.onError"),
            ("bar.foo.foo.bar.bar.onError", "bar.{foo#2}.{bar#2}.onError"),
        ] {
            assert_eq!(fold(name), folded, "{name}");
        }
    }
}
