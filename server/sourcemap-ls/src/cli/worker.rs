//! `sourcemap-ls worker --redis URL --stream IN --group G --output OUT --maps DIR …`: a consumer in a Redis Streams
//! consumer group, so that any number of workers on any number of machines share one stream (Redis coordinates
//! them; nothing of ours does). Each entry's `event` is symbolicated as `symbolicate --ndjson` does it (the core's
//! one session per event, over one `DiskMemo` and one map cache), written to OUT with `source_id`, and only then
//! acknowledged. Delivery is at least once: an entry whose worker died is claimed by a living one and done again, so
//! OUT may hold an entry twice (`source_id` tells).
//!
//! An entry that is not an event (no `event` field, not a JSON object), or that was delivered more than
//! [`MAX_DELIVERIES`] times without being acknowledged, goes to the dead letters with `source_id` and `reason`, and
//! is acknowledged: never lost, never retried forever. SIGTERM (or SIGINT): no new entry is read, the batch in hand
//! is finished and acknowledged, and the worker exits 0. SIGHUP: the folders of maps are scanned again. Every 10 s a line on stderr says events/s, frames/s, the
//! cache's hit ratio and the group's pending entries.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use sourcemap_core::trace::stack::PlainInput;

use super::event_queue::{Delivery, EventQueue, Written};
use super::redis_queue::{RedisQueue, RedisStreams};
use super::symbolicate_stream::{jobs_or_cores, symbolicate_line, Outcome, Stream, StreamArgs};
use super::CliError;

/// Deliveries after which an entry is taken to fail every time (it went to a worker that died, or failed, each time).
pub const MAX_DELIVERIES: u64 = 3;

/// How often the worker says how it goes.
const REPORT_EVERY: Duration = Duration::from_secs(10);

#[derive(Args)]
pub struct WorkerArgs {
    /// The Redis server: `redis://HOST:PORT/DB`.
    #[arg(long, value_name = "URL")]
    redis: String,
    /// The stream of events to symbolicate (each entry's field `event`: the event's JSON).
    #[arg(long, value_name = "IN")]
    stream: String,
    /// The consumer group the workers share (created from the stream's start when it does not exist).
    #[arg(long, value_name = "G")]
    group: String,
    /// This worker's name in the group (default: HOST-PID).
    #[arg(long, value_name = "NAME")]
    consumer: Option<String>,
    /// The stream symbolicated events are added to (fields `event`, `source_id`).
    #[arg(long, value_name = "OUT")]
    output: String,
    /// The stream entries that are not events, or that failed 3 deliveries, go to (fields `source_id`, `reason`,
    /// `event` when there was one; default: IN:dead-letter).
    #[arg(long, value_name = "DL")]
    dead_letter: Option<String>,
    /// A folder of maps (and bundles), repeatable: maps by debug ID, then by the frame's URL path.
    #[arg(
        long = "maps",
        value_name = "DIR",
        required_unless_present = "release_folders"
    )]
    map_folders: Vec<PathBuf>,
    /// A folder of releases, repeatable: `DIR/<release>/` (or `DIR/<release>/<dist>/`) holds that release's maps and
    /// bundles; an event's frames are found by path in its release's folder only (see `symbolicate --help`).
    #[arg(long = "maps-by-release", value_name = "DIR")]
    release_folders: Vec<PathBuf>,
    /// Events worked on at once (default: the machine's cores).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// The opened maps kept, in MiB (default: a quarter of the machine's memory, at most 4 GiB).
    #[arg(long, value_name = "N")]
    cache_mb: Option<u64>,
    /// Entries pending with another consumer longer than this are claimed (its worker is taken to be dead).
    #[arg(long, value_name = "MS", default_value_t = 60_000)]
    claim_idle_ms: u64,
}

/// What a delivery becomes.
enum Done {
    Publish(Vec<u8>),
    DeadLetter(&'static str),
}

pub fn run(args: WorkerArgs) -> Result<(), CliError> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register(signal, stop.clone())
            .map_err(|e| CliError::Usage(format!("cannot watch for signals: {e}")))?;
    }
    let jobs = jobs_or_cores(args.jobs);
    let stream = Stream::open(&StreamArgs {
        maps: Vec::new(),
        map_dirs: args.map_folders.clone(),
        release_dirs: args.release_folders.clone(),
        root: None,
        jobs: Some(jobs),
        cache_mb: args.cache_mb,
        plain: PlainInput::default(),
    })?;
    let consumer = args.consumer.clone().unwrap_or_else(|| {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|h| h.trim().to_string())
            .unwrap_or_else(|_| "worker".into());
        format!("{host}-{}", std::process::id())
    });
    let mut queue = RedisQueue::open(RedisStreams {
        url: args.redis.clone(),
        dead_letter: args
            .dead_letter
            .clone()
            .unwrap_or_else(|| format!("{}:dead-letter", args.stream)),
        input: args.stream,
        group: args.group,
        consumer: consumer.clone(),
        output: args.output,
        claim_idle: Duration::from_millis(args.claim_idle_ms),
    })
    .map_err(CliError::Usage)?;
    eprintln!("sourcemap-ls: worker {consumer}: {jobs} jobs");
    let mut report = Report::new();
    while !stop.load(Ordering::Relaxed) {
        let batch = match queue.next(jobs * BATCH_PER_JOB, Duration::from_millis(500)) {
            Ok(batch) => batch,
            Err(e) => {
                eprintln!("sourcemap-ls: {e}; trying again in 1 s");
                std::thread::sleep(Duration::from_secs(1));
                continue;
            }
        };
        if !batch.is_empty() {
            let done = work(&stream, &batch, jobs);
            if let Err(e) = deliver(&mut queue, &batch, done, &mut report) {
                // Not acknowledged: the entries stay pending and are claimed again.
                eprintln!("sourcemap-ls: {e}");
            }
        }
        stream.rescan_if_asked();
        report.maybe_say(&stream, &stream.cache(), &mut queue);
    }
    eprintln!(
        "sourcemap-ls: worker {consumer}: stopped, {} events done, {} claimed from other workers, {} dead letters",
        report.events, report.claimed, report.dead
    );
    Ok(())
}

/// Entries taken at once per job: a batch costs two round trips to the queue besides its read (its outputs, its
/// acknowledgement), so a few per job made the queue, not the work, the cost; a batch is also what a worker killed
/// mid-way leaves for another to claim.
const BATCH_PER_JOB: usize = 16;

/// The batch symbolicated on `jobs` threads, in order.
fn work(stream: &Stream, batch: &[Delivery], jobs: usize) -> Vec<Done> {
    // An event the job fails on (a defect of ours) becomes a dead letter, never a stopped worker.
    let guarded = |d: &Delivery| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| one(stream, d)))
            .unwrap_or(Done::DeadLetter("an internal error while symbolicating it"))
    };
    if jobs <= 1 {
        return batch.iter().map(guarded).collect();
    }
    let chunk = batch.len().div_ceil(jobs).max(1);
    std::thread::scope(|scope| {
        let parts: Vec<_> = batch
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(guarded).collect::<Vec<_>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|p| p.join().expect("a job does not panic"))
            .collect()
    })
}

/// One delivery's fate.
fn one(stream: &Stream, d: &Delivery) -> Done {
    if d.deliveries > MAX_DELIVERIES {
        return Done::DeadLetter("delivered more than 3 times without being acknowledged");
    }
    let Some(event) = &d.event else {
        return Done::DeadLetter("the entry has no `event` field");
    };
    let body = event.trim_ascii();
    if !body.starts_with(b"{") {
        return Done::DeadLetter("the event is not a JSON object");
    }
    let mut out = Vec::new();
    match symbolicate_line(stream, 0, body, &mut out) {
        Outcome::Symbolicated => Done::Publish(out),
        Outcome::NotJson => Done::DeadLetter("the event is not JSON"),
        // An event without a stack trace is still an event: it goes on as it came.
        Outcome::NoTrace => Done::Publish(body.to_vec()),
    }
}

/// Outputs and dead letters written, then the batch acknowledged.
fn deliver(
    queue: &mut impl EventQueue,
    batch: &[Delivery],
    done: Vec<Done>,
    report: &mut Report,
) -> Result<(), String> {
    let written: Vec<Written<'_>> = batch
        .iter()
        .zip(&done)
        .map(|(d, done)| match done {
            Done::Publish(event) => Written::Event {
                source_id: &d.id,
                event,
            },
            Done::DeadLetter(reason) => Written::DeadLetter {
                source_id: &d.id,
                event: d.event.as_deref(),
                reason,
            },
        })
        .collect();
    queue.write(&written)?;
    report.dead += done
        .iter()
        .filter(|d| matches!(d, Done::DeadLetter(_)))
        .count() as u64;
    let ids: Vec<String> = batch.iter().map(|d| d.id.clone()).collect();
    queue.ack(&ids)?;
    report.events += batch.len() as u64;
    report.claimed += batch.iter().filter(|d| d.deliveries > 1).count() as u64;
    Ok(())
}

/// The periodic line.
struct Report {
    since: Instant,
    events: u64,
    dead: u64,
    claimed: u64,
    events_then: u64,
    frames_then: u64,
}

impl Report {
    fn new() -> Report {
        Report {
            since: Instant::now(),
            events: 0,
            dead: 0,
            claimed: 0,
            events_then: 0,
            frames_then: 0,
        }
    }

    fn maybe_say(
        &mut self,
        stream: &Stream,
        cache: &sourcemap_core::session::files::OpenedMaps,
        queue: &mut impl EventQueue,
    ) {
        let took = self.since.elapsed();
        if took < REPORT_EVERY {
            return;
        }
        let frames = stream.frames_done();
        let secs = took.as_secs_f64();
        let pending = queue
            .pending()
            .map_or_else(|e| format!("? ({e})"), |n| n.to_string());
        eprintln!(
            "sourcemap-ls: {:.1} events/s, {:.1} frames/s, cache hit ratio {:.2}, pending {pending} ({} events, {} \
             claimed from other workers, {} dead letters so far)",
            (self.events - self.events_then) as f64 / secs,
            (frames - self.frames_then) as f64 / secs,
            cache.stats().hit_ratio(),
            self.events,
            self.claimed,
            self.dead
        );
        self.since = Instant::now();
        self.events_then = self.events;
        self.frames_then = frames;
    }
}
