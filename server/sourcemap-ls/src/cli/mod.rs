//! Subcommands. Each reports a bad or unreadable map as exit 1 with the reasons on stderr, and a bad argument as
//! exit 2.

mod event_answers;
mod event_queue;
pub mod explore;
mod frame_maps;
pub mod lookup;
mod metro_inputs;
mod one_based;
mod openable_paths;
pub mod profile;
mod profile_args;
mod redis_queue;
pub mod stats;
pub mod symbolicate;
mod symbolicate_stream;
pub mod validate;
pub mod worker;

use std::path::Path;
use std::process::ExitCode;

use sourcemap_core::bundle::locate::{load_map, LoadMapError};
use sourcemap_core::{IndexOptions, MapErrors, SourceMapIndex};

/// Why a subcommand failed.
pub enum CliError {
    /// The map (or its bundle) is unreadable or invalid: exit 1.
    Map(String),
    /// A bad argument or input line: exit 2.
    Usage(String),
    /// Exit 1, the reasons already printed (as JSON on stdout).
    Quiet,
}

impl From<LoadMapError> for CliError {
    fn from(e: LoadMapError) -> Self {
        CliError::Map(e.to_string())
    }
}

impl From<sourcemap_core::session::files::OpenMapError> for CliError {
    fn from(e: sourcemap_core::session::files::OpenMapError) -> Self {
        CliError::Map(e.to_string())
    }
}

impl CliError {
    pub fn report(&self) {
        match self {
            CliError::Map(m) | CliError::Usage(m) => {
                for line in m.lines() {
                    eprintln!("sourcemap-ls: {line}");
                }
            }
            CliError::Quiet => {}
        }
    }

    pub fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Map(_) | CliError::Quiet => ExitCode::from(1),
            CliError::Usage(_) => ExitCode::from(2),
        }
    }
}

fn describe(named: &str, errors: &MapErrors) -> String {
    errors
        .0
        .iter()
        .map(|e| format!("{named}: {e}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The file a map's error offsets are in, as errors name it: the map file, or the bundle whose inline map it is
/// (never the bundle for a map file's offsets).
pub fn map_named(origin: &sourcemap_core::bundle::locate::MapOrigin) -> String {
    origin.named()
}

/// Reads MAP (a map, or a bundle that leads to one) and indexes it, fully validated.
pub fn open_index(path: &Path, options: IndexOptions) -> Result<SourceMapIndex, CliError> {
    let loaded = load_map(path)?;
    let named = map_named(&loaded.origin);
    SourceMapIndex::from_bytes_with(loaded.bytes, options)
        .map_err(|e| CliError::Map(describe(&named, &e)))
}
