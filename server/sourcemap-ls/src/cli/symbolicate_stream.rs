//! `sourcemap-ls symbolicate --ndjson [MAP ...] [--maps DIR ...] [--jobs N] [--cache-mb N]`: a stream of events,
//! one JSON document per line (Sentry or Bugsnag events, JSON log lines), symbolicated line by line on N threads,
//! in input order. Each line is the core's one session (`FilesPlace`, one per line) over a `DiskMemo` every line shares:
//! the folders of `--maps` (maps found by debug ID, then by the frame's URL path) and the opened maps (`OpenedMaps`,
//! `--cache-mb`). A line that is not JSON, or holds no trace, comes out as it came (counted, said on stderr once per
//! kind); nothing stops the run.
//!
//! Memory is bounded: at most `4 × N` lines are read ahead of the one being written, and the maps kept are within
//! the cache's budget (a map larger than the budget is opened for the line that needs it and dropped).

use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex, RwLock};

use sourcemap_core::session::files::{DiskMemo, FilesPlace, KnownMap, OpenedMaps};
use sourcemap_core::session::SessionOptions;
use sourcemap_core::trace::document::ANOTHER_BUILD;
use sourcemap_core::trace::document::{EventOptions, Keyed, TraceDocument};
use sourcemap_core::trace::stack::{debug_ids_in, PlainInput, StackLine};
use sourcemap_core::trace::symbolicate::{SymbolicatedFrame, SymbolicatedLine, TextOptions};

use super::event_answers::{EventAnswers, Note};
use super::CliError;

/// Lines read ahead per job, at most.
const AHEAD_PER_JOB: usize = 4;

/// What the stream needs from the command line.
pub(super) struct StreamArgs {
    pub(super) maps: Vec<PathBuf>,
    pub(super) map_dirs: Vec<PathBuf>,
    pub(super) release_dirs: Vec<PathBuf>,
    pub(super) root: Option<PathBuf>,
    pub(super) jobs: Option<usize>,
    pub(super) cache_mb: Option<u64>,
    pub(super) plain: PlainInput,
}

/// How a line came out.
pub(super) enum Outcome {
    /// Frames read and looked up (counted in the stream's counts).
    Symbolicated,
    NotJson,
    NoTrace,
}

/// What the run counts, for the last line on stderr.
#[derive(Default)]
struct Counts {
    lines: AtomicU64,
    symbolicated: AtomicU64,
    frames: AtomicU64,
    mapped: AtomicU64,
    not_json: AtomicU64,
    no_trace: AtomicU64,
}

/// The stream's shared state: the maps given, the disk, what was said.
pub(super) struct Stream {
    given: Vec<Arc<KnownMap>>,
    /// One generation of the store: the folders of `--maps`, the cache and the events' answers kept
    /// (`event_answers`), all made anew on SIGHUP.
    generation: RwLock<Generation>,
    map_dirs: Vec<PathBuf>,
    release_dirs: Vec<PathBuf>,
    root: Option<PathBuf>,
    budget: u64,
    /// Set by SIGHUP: the folders are scanned again before the next line.
    rescan: Arc<AtomicBool>,
    plain: PlainInput,
    counts: Counts,
    /// Notes said once each (a million events with the same missing map say it once).
    said: Mutex<HashSet<String>>,
}

pub(super) fn run(args: StreamArgs) -> Result<(), CliError> {
    let jobs = jobs_or_cores(args.jobs);
    let stream = Stream::open(&args)?;
    pump(&stream, jobs)?;
    let c = &stream.counts;
    let n = |a: &AtomicU64| a.load(Ordering::Relaxed);
    let stats = stream.cache().stats();
    eprintln!(
        "sourcemap-ls: {} lines: {} symbolicated ({} frames, {} mapped), {} passed through ({} not JSON, {} without \
         a trace); maps: {} opened, hit ratio {:.2}",
        n(&c.lines),
        n(&c.symbolicated),
        n(&c.frames),
        n(&c.mapped),
        n(&c.not_json) + n(&c.no_trace),
        n(&c.not_json),
        n(&c.no_trace),
        stats.misses,
        stats.hit_ratio()
    );
    Ok(())
}

/// `--jobs`, or the machine's cores.
pub(super) fn jobs_or_cores(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

impl Stream {
    /// Frames read from events so far.
    pub(super) fn frames_done(&self) -> u64 {
        self.counts.frames.load(Ordering::Relaxed)
    }

    /// The maps given, the folders of `--maps` scanned, the cache of `--cache-mb`; SIGHUP watched.
    pub(super) fn open(args: &StreamArgs) -> Result<Stream, CliError> {
        let budget = args
            .cache_mb
            .map_or_else(default_cache_bytes, |mb| mb.saturating_mul(1 << 20));
        let given = args
            .maps
            .iter()
            .map(|p| KnownMap::open(p).map(Arc::new))
            .collect::<Result<Vec<_>, _>>()?;
        let rescan = Arc::new(AtomicBool::new(false));
        signal_hook::flag::register(signal_hook::consts::SIGHUP, rescan.clone())
            .map_err(|e| CliError::Usage(format!("cannot watch for SIGHUP: {e}")))?;
        let disk = Stream::scan(
            &args.map_dirs,
            &args.release_dirs,
            args.root.as_deref(),
            budget,
        )?;
        Ok(Stream {
            given,
            generation: RwLock::new(disk),
            map_dirs: args.map_dirs.clone(),
            release_dirs: args.release_dirs.clone(),
            root: args.root.clone(),
            budget,
            rescan,
            plain: args.plain,
            counts: Counts::default(),
            said: Mutex::new(HashSet::new()),
        })
    }

    fn scan(
        map_dirs: &[PathBuf],
        release_dirs: &[PathBuf],
        root: Option<&std::path::Path>,
        budget: u64,
    ) -> Result<Generation, CliError> {
        let cache = OpenedMaps::new(budget);
        let disk = super::frame_maps::disk_of(map_dirs, release_dirs, root, Some(cache.clone()))?;
        let answers = Arc::new(EventAnswers::new(cache.budget()));
        Ok((disk, cache, answers))
    }

    /// The folders scanned again, with a new cache (a map replaced under the same name is read anew), when SIGHUP
    /// asked for it since the last call. Lines in flight finish on the disk they started with.
    pub(super) fn rescan_if_asked(&self) {
        if !self.rescan.swap(false, Ordering::Relaxed) {
            return;
        }
        match Stream::scan(
            &self.map_dirs,
            &self.release_dirs,
            self.root.as_deref(),
            self.budget,
        ) {
            Ok(disk) => {
                *self.generation.write().expect("generation lock") = disk;
                eprintln!("sourcemap-ls: SIGHUP: the folders of maps scanned again");
            }
            Err(e) => {
                e.report();
                eprintln!("sourcemap-ls: SIGHUP: the folders as they were stay");
            }
        }
    }

    /// The cache the lines use now.
    pub(super) fn cache(&self) -> Arc<OpenedMaps> {
        self.generation.read().expect("generation lock").1.clone()
    }
}

/// The disk, the cache and the events' answers of one scan of the folders.
type Generation = (Arc<DiskMemo>, Arc<OpenedMaps>, Arc<EventAnswers>);

/// A quarter of the machine's memory, at most 4 GiB (1 GiB when it cannot be read).
fn default_cache_bytes() -> u64 {
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        let kb = m.lines().find_map(|l| l.strip_prefix("MemTotal:"))?;
        kb.trim().trim_end_matches("kB").trim().parse::<u64>().ok()
    });
    total.map_or(1 << 30, |kb| (kb * 1024 / 4).min(4 << 30))
}

/// Lines read at once, handed to a job together: one buffer, each line's end in it.
#[derive(Default)]
struct Lines {
    text: Vec<u8>,
    ends: Vec<usize>,
}

impl Lines {
    fn iter(&self) -> impl Iterator<Item = &[u8]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(s, &e)| &self.text[s..e])
    }
}

/// Answers of a batch of lines: one buffer, written at once.
struct Answers {
    first: u64,
    lines: u64,
    text: Vec<u8>,
}

/// Reads stdin line by line, answers lines on `jobs` threads and writes them in input order.
///
/// A batch's lines come in one buffer and its answers go out in one. A buffer per line, allocated on one thread and
/// freed on another, and each answer copied again into the writer's buffer, had 5 % of a `perf` profile's samples
/// (`--jobs 1`, 2,000 distinct events); without them the run takes 1.3 % fewer instructions (`valgrind
/// --tool=callgrind`), its wall time the same within this machine's noise.
fn pump(stream: &Stream, jobs: usize) -> Result<(), CliError> {
    let ahead = jobs * AHEAD_PER_JOB;
    let (work_tx, work_rx) = mpsc::sync_channel::<(u64, Lines)>(ahead);
    let work_rx = Mutex::new(work_rx);
    let (done_tx, done_rx) = mpsc::channel::<Answers>();
    // A token per batch in flight: the writer gives one back per batch written.
    let (token_tx, token_rx) = mpsc::sync_channel::<()>(ahead);
    for _ in 0..ahead {
        token_tx.send(()).expect("tokens fit");
    }
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let (work_rx, done_tx) = (&work_rx, done_tx.clone());
            scope.spawn(move || loop {
                let next = work_rx.lock().expect("work lock").recv();
                let Ok((first, lines)) = next else { break };
                // Answers are about twice the size of the events (frames' context lines).
                let mut text = Vec::with_capacity(lines.text.len() * 2);
                for (line, seq) in lines.iter().zip(first..) {
                    answer_caught(stream, seq, line, &mut text);
                }
                let answers = Answers {
                    first,
                    lines: lines.ends.len() as u64,
                    text,
                };
                if done_tx.send(answers).is_err() {
                    break;
                }
            });
        }
        drop(done_tx);
        let writer = scope.spawn(move || write_in_order(done_rx, token_tx));
        // Our own buffer, whose content is visible (`buffer`): which lines are already here.
        let mut input = std::io::BufReader::with_capacity(1 << 16, std::io::stdin().lock());
        let mut seq = 0;
        'read: loop {
            if token_rx.recv().is_err() {
                break;
            }
            // A batch: the next line (waited for), then the lines already read in whole, so that a live stream's
            // line is answered as soon as it comes and a file's lines go to the jobs in batches (one hand-off per
            // line was a tenth of a warm event's time).
            let mut batch = Lines::default();
            loop {
                match read_line(&mut input, &mut batch.text) {
                    Ok(0) => break,
                    Ok(_) => batch.ends.push(batch.text.len()),
                    Err(e) => {
                        // What the failed read appended is no line.
                        batch.text.truncate(batch.ends.last().copied().unwrap_or(0));
                        eprintln!("sourcemap-ls: reading stdin: {e}");
                        break;
                    }
                }
                if batch.ends.len() == BATCH || memchr::memchr(b'\n', input.buffer()).is_none() {
                    break;
                }
            }
            if batch.ends.is_empty() {
                break 'read;
            }
            // After the read: a SIGHUP that came while it waited applies to these lines.
            stream.rescan_if_asked();
            let n = batch.ends.len() as u64;
            if work_tx.send((seq, batch)).is_err() {
                break;
            }
            seq += n;
        }
        drop(work_tx);
        writer.join().expect("the writer does not panic")
    })
}

/// `BufRead::read_until(b'\n')` with `memchr`'s search: std's byte search (a word at a time) and the look for a next
/// line in the buffer were 4 % of the instructions of 2,000 distinct events (`valgrind --tool=callgrind`).
fn read_line(input: &mut impl BufRead, into: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut read = 0;
    loop {
        let buffer = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let (done, used) = match memchr::memchr(b'\n', buffer) {
            Some(i) => (true, i + 1),
            None => (buffer.is_empty(), buffer.len()),
        };
        into.extend_from_slice(&buffer[..used]);
        input.consume(used);
        read += used;
        if done {
            return Ok(read);
        }
    }
}

/// Lines handed to a job at once, at most.
const BATCH: usize = 16;

/// [`answer_line`] appended to `out`, a line the job fails on (a defect of ours) coming out as it came: the run goes
/// on, in order.
fn answer_caught(stream: &Stream, seq: u64, line: &[u8], out: &mut Vec<u8>) {
    let before = out.len();
    let answered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        answer_line(stream, seq, line, out)
    }));
    if answered.is_err() {
        say_once(
            stream,
            &format!(
                "line {}: an internal error; the line passes through unchanged",
                seq + 1
            ),
        );
        out.truncate(before);
        out.extend_from_slice(line);
    }
}

/// Writes answers as their turn comes, each batch's in one write; a token goes back for each batch.
fn write_in_order(
    done: mpsc::Receiver<Answers>,
    tokens: mpsc::SyncSender<()>,
) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    let mut waiting: BTreeMap<u64, Answers> = BTreeMap::new();
    let mut next = 0;
    for answers in done {
        waiting.insert(answers.first, answers);
        while let Some(answers) = waiting.remove(&next) {
            // A closed stdout (`| head`) ends the run.
            if out.write_all(&answers.text).is_err() {
                return Ok(());
            }
            next += answers.lines;
            let _ = tokens.send(());
        }
        if waiting.is_empty() {
            let _ = out.flush();
        }
    }
    out.flush()
        .map_err(|e| CliError::Usage(format!("writing stdout: {e}")))
}

/// One line's answer appended to `out`: the line symbolicated in its own shape, or the line as it came.
fn answer_line(stream: &Stream, seq: u64, line: &[u8], out: &mut Vec<u8>) {
    let c = &stream.counts;
    c.lines.fetch_add(1, Ordering::Relaxed);
    let (body, end) = split_line_end(line);
    match symbolicate_line(stream, seq, body, out) {
        Outcome::Symbolicated => {
            c.symbolicated.fetch_add(1, Ordering::Relaxed);
            out.extend_from_slice(end);
        }
        Outcome::NotJson => {
            c.not_json.fetch_add(1, Ordering::Relaxed);
            say_once(
                stream,
                "note: lines that are not JSON pass through unchanged",
            );
            out.extend_from_slice(line);
        }
        Outcome::NoTrace => {
            c.no_trace.fetch_add(1, Ordering::Relaxed);
            say_once(
                stream,
                "note: JSON lines without a stack trace pass through unchanged",
            );
            out.extend_from_slice(line);
        }
    }
}

/// A line without its end (`\n` or `\r\n`), and the end.
fn split_line_end(line: &[u8]) -> (&[u8], &[u8]) {
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    let body = body.strip_suffix(b"\r").unwrap_or(body);
    (body, &line[body.len()..])
}

/// One event (a line without its end) symbolicated alone, in its own shape on one line, appended to `out` (nothing
/// appended beside `NotJson` and `NoTrace`). `seq` is its place in the input (notes name it). An event whose answers
/// this generation already has (`event_answers`) is written with them.
pub(super) fn symbolicate_line(
    stream: &Stream,
    seq: u64,
    body: &[u8],
    out: &mut Vec<u8>,
) -> Outcome {
    let Ok(text) = std::str::from_utf8(body) else {
        return Outcome::NotJson;
    };
    let (disk, _, answers) = stream.generation.read().expect("generation lock").clone();
    let debug_ids = debug_ids_in(text);
    // An event of the usual shape: its key, and the answers kept for it.
    let (mut document, key) = match TraceDocument::read_keyed(text, stream.plain) {
        Keyed::Event(e) => {
            let key = e.answer_key(&[debug_ids.join(",").as_str()]);
            if let Some(a) = answers.get(&key) {
                for note in &a.notes {
                    say_once(stream, &note.text(seq + 1));
                }
                stream.counts.frames.fetch_add(a.frames, Ordering::Relaxed);
                stream.counts.mapped.fetch_add(a.mapped, Ordering::Relaxed);
                e.rendered_in(&a.written, &COMPACT, out);
                return Outcome::Symbolicated;
            }
            (TraceDocument::of_keyed(e, text, stream.plain), Some(key))
        }
        Keyed::Document(document) => (document, None),
    };
    // A document read as an event, Metro's JSON or a JSON line was JSON already; only one read as text is checked
    // (a line of text is no event, whatever frames it holds).
    if document.is_plain_text() && serde_json::from_str::<serde::de::IgnoredAny>(text).is_err() {
        return Outcome::NotJson;
    }
    let frames = document
        .lines
        .iter()
        .filter(|l| matches!(l, StackLine::Frame(f) if !f.native))
        .count() as u64;
    if frames == 0 {
        return Outcome::NoTrace;
    }
    let mut notes = Vec::new();
    // The event's release chooses the folder its bundles are found in (`--maps-by-release`).
    let (disk, note) = disk.for_release(document.release().as_ref());
    notes.extend(note.map(Note::Plain));
    let mut place = FilesPlace::on(stream.given.clone(), disk);
    place.say_hints(sourcemap_core::bundle::resolve::Hint::as_flags);
    place.debug_ids = debug_ids;
    place.file_debug_ids = document.debug_ids_by_file();
    place.reported = document.reported_files();
    // The events are the parallelism (`--jobs`): each session works on its own thread only.
    let one_thread = SessionOptions {
        threads: Some(1),
        call_order: document.call_order(),
        ..SessionOptions::default()
    };
    // Rendering reads the answer's lines, not the document's: they move into the session.
    let mut answer = place.symbolicate(std::mem::take(&mut document.lines), one_thread);
    super::openable_paths::openable_paths(&mut answer.lines, &place);
    notes.extend(place.take_notes().into_iter().map(Note::Plain));
    // Frames the event's own evidence refused (its debug ID, its copy of the bundle's lines).
    for f in answer.lines.iter().filter_map(SymbolicatedLine::frame) {
        if let Some(why) = f
            .unresolved
            .as_deref()
            .filter(|w| w.contains(ANOTHER_BUILD))
        {
            notes.push(Note::Refused {
                file: f.frame.file.as_deref().unwrap_or("?").to_string(),
                why: why.to_string(),
            });
        }
    }
    for a in &answer.ambiguous {
        notes.push(Note::Ambiguous {
            candidates: a.candidates.len(),
            file: a.file.clone(),
        });
    }
    for note in &notes {
        say_once(stream, &note.text(seq + 1));
    }
    let mapped = answer
        .lines
        .iter()
        .filter_map(SymbolicatedLine::frame)
        .filter(|f| f.original.is_some())
        .count() as u64;
    stream.counts.frames.fetch_add(frames, Ordering::Relaxed);
    stream.counts.mapped.fetch_add(mapped, Ordering::Relaxed);
    let source_text =
        |f: &SymbolicatedFrame| place.source_lines(f.map?, f.original.as_ref()?.source_id);
    let event = EventOptions {
        source_text: Some(&source_text),
        kept: Some(answers.objects()),
        ..COMPACT
    };
    let written =
        document.into_rendered_keeping_in(&answer.lines, TextOptions::default(), &event, out);
    if let (Some(key), Some(written)) = (key, written) {
        answers.keep(key, written, (frames, mapped), notes);
    }
    Outcome::Symbolicated
}

/// Events are written on one line (a line of NDJSON).
const COMPACT: EventOptions<'static> = EventOptions {
    source_text: None,
    compact: true,
    kept: None,
};

/// A note on stderr, the first time it is made.
fn say_once(stream: &Stream, note: &str) {
    if stream
        .said
        .lock()
        .expect("said lock")
        .insert(note.to_string())
    {
        for line in note.lines() {
            eprintln!("sourcemap-ls: {line}");
        }
    }
}
