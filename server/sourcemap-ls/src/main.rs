//! `sourcemap-ls`: the language server (no arguments, or `--stdio`) and the command line (`lookup`, `symbolicate`,
//! `validate`, `stats`, `explore`, `profile`) over the core.
//!
//! Exit codes: 0 success, 1 a map that is invalid or cannot be read, 2 a usage error.

// No function over 150 lines (the threshold is in clippy.toml): a longer one is split where it reads best.
#![warn(clippy::too_many_lines)]

mod answers;
mod cli;
mod devserver;
mod lsp;
mod treemap;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

// Counting every allocation costs nothing measurable (first hover, hover latency, symbolicate, validate: within
// noise of a build without it; docs/PERFORMANCE.md), so `stats` can count in every build.
#[global_allocator]
static GLOBAL: sourcemap_core::internal::map::measure::CountingAllocator =
    sourcemap_core::internal::map::measure::CountingAllocator;

#[derive(Parser)]
#[command(
    name = "sourcemap-ls",
    version = concat!(env!("CARGO_PKG_VERSION"), " (", env!("SOURCEMAP_LS_COMMIT"), ")"),
    about = "Source-map language server and command line",
    long_about = "Source-map language server and command line.\n\nWith no subcommand (or with --stdio) it speaks LSP on \
                  stdin/stdout; logs go to stderr (RUST_LOG=debug for more)."
)]
struct Args {
    /// Speak LSP over stdio (the default without a subcommand; vscode-languageclient passes it).
    #[arg(long)]
    stdio: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Original positions for generated LINE:COLUMN (1-based line, 0-based UTF-16 column), or with --reverse
    /// generated positions for an original SOURCE LINE:COLUMN. Positions come from the arguments or stdin.
    Lookup(cli::lookup::LookupArgs),
    /// Exit 0 when MAP is valid and fits its bundle (BUNDLE MAP, or a bundle alone: the map it leads to); else exit 1
    /// with the reasons on stderr (a map that does not fit its bundle: map-mismatch, with the evidence).
    Validate(cli::validate::ValidateArgs),
    /// Size and shape of MAP and of its index, measured with a counting allocator.
    Stats(cli::stats::StatsArgs),
    /// A stack trace (V8, JSC/Safari, Firefox, Hermes, React Native, Metro JSON, or `LINE COLUMN` lines) from stdin
    /// or --trace, mapped to original sources and function names.
    Symbolicate(cli::symbolicate::SymbolicateArgs),
    /// A consumer in a Redis Streams consumer group: each entry's `event` symbolicated (maps from --maps DIR, by
    /// debug ID, then URL path) and added to --output with `source_id`, then acknowledged; any number of workers on
    /// any number of machines share one stream. SIGTERM finishes the batch in hand and exits 0.
    Worker(cli::worker::WorkerArgs),
    /// A CPU profile of a bundle (Hermes sampling profile, V8 .cpuprofile, Chrome trace) in original functions: the
    /// top functions by self and total time; --json, --by file|package, --out FILE for the profile with original
    /// names (--to cpuprofile converts a Hermes profile). Also heap snapshots, Hermes coverage traces and
    /// attribution JSON lines, as metro-symbolicate reads them.
    Profile(cli::profile::ProfileArgs),
    /// What BUNDLE is made of: its bytes by original source and package (source-map-explorer's rules); --json for
    /// its JSON shape, --html FILE for a treemap page.
    Explore(cli::explore::ExploreArgs),
}

/// `tracing` to stderr (stdout carries the protocol), filtered by `RUST_LOG` (default `info`).
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
}

/// Command-line output closed early (`sourcemap-ls symbolicate … | head`) ends the process quietly with the
/// conventional SIGPIPE status, as other Unix tools do, instead of a panic in `println!`. Rust ignores SIGPIPE by
/// default; the command line restores the default action (the language server keeps Rust's, and sees write errors).
fn die_quietly_on_closed_output() {
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any thread exists; SIG_DFL is a valid disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    // Large sections' checkpoints kept on disk between runs, unless `SOURCEMAP_LS_INDEX_CACHE=off` (docs/cli.md, "The index cache").
    sourcemap_core::internal::map::index_cache::use_cache(
        sourcemap_core::internal::map::index_cache::IndexCache::from_env(),
    );
    if args.command.is_some() {
        die_quietly_on_closed_output();
    }
    let result = match args.command {
        Some(Command::Lookup(a)) => cli::lookup::run(a),
        Some(Command::Validate(a)) => cli::validate::run(a),
        Some(Command::Stats(a)) => cli::stats::run(a),
        Some(Command::Symbolicate(a)) => cli::symbolicate::run(a),
        Some(Command::Worker(a)) => cli::worker::run(a),
        Some(Command::Profile(a)) => cli::profile::run(a),
        Some(Command::Explore(a)) => cli::explore::run(a),
        None => {
            init_logging();
            return match lsp::run() {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("sourcemap-ls: {e}");
                    ExitCode::from(1)
                }
            };
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            e.report();
            e.exit_code()
        }
    }
}
