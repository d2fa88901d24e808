//! The `profile` command's arguments, and what every kind of input it reads shares: the maps and roots its frames
//! are resolved with (`catalog_of`), a position as a frame (`place`). `profile.rs` (profiles, heap snapshots) and
//! `metro_inputs.rs` (metro-symbolicate's other inputs) both stand on it.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use sourcemap_core::profile::sites::Site;
use sourcemap_core::trace::stack::StackLine;
use sourcemap_core::GeneratedPosition;

use super::CliError;
use sourcemap_core::session::files::FilesPlace;
use sourcemap_core::session::files::KnownMap;

#[derive(Clone, Copy, ValueEnum)]
pub enum By {
    Function,
    File,
    Package,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum To {
    /// A V8 `.cpuprofile` (what DevTools, speedscope and VS Code open).
    Cpuprofile,
}

#[derive(Args)]
pub struct ProfileArgs {
    /// The profile: a Hermes sampling profile (`.json`), a V8 `.cpuprofile`, or a Chrome trace; or a heap snapshot
    /// (`.heapsnapshot`, `.heaptimeline`), a Hermes coverage trace, or attribution JSON lines.
    pub(super) profile: PathBuf,
    /// Source maps (or bundles that lead to them); a Hermes bytecode profile uses the first. Without any, each
    /// frame's script URL leads to its bundle under --root.
    pub(super) maps: Vec<PathBuf>,
    /// Where to look for the bundles the profile's scripts name (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub(super) root: Option<PathBuf>,
    /// The bundle a script of the profile is, when several under --root could be (repeatable): NAME is the script
    /// URL as the profile writes it, or its file name.
    #[arg(long = "bundle", value_name = "NAME=PATH", value_parser = super::symbolicate::parse_bundle_choice)]
    pub(super) bundles: Vec<(String, PathBuf)>,
    /// One JSON object: `frames` (each frame's original position and function) and `functions` (the rows).
    #[arg(long)]
    pub(super) json: bool,
    /// How rows are grouped.
    #[arg(long, value_enum, default_value_t = By::Function)]
    pub(super) by: By,
    /// How many rows each table shows.
    #[arg(long, default_value_t = 20)]
    pub(super) top: usize,
    /// Write the profile with original function names and positions here (never over the input).
    #[arg(long, value_name = "FILE")]
    pub(super) out: Option<PathBuf>,
    /// With --out: write this format instead of the input's.
    #[arg(long, value_enum)]
    pub(super) to: Option<To>,
    #[command(flatten)]
    pub(super) bases: MetroBases,
}

/// metro-symbolicate's bases for the inputs and outputs that mirror its own (an attribution's `location`, a
/// profiler map's offsets, the `--json` of a coverage trace and an attribution); profiles and heap snapshots keep
/// their formats' own conventions (`profile/mod.rs`), as metro-symbolicate does for heap snapshots.
#[derive(Args, Clone, Copy)]
pub struct MetroBases {
    /// The number an attribution's `location.line` counts from.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub(super) input_line_start: u32,
    /// The number an attribution's `location.column` / `virtualOffset` and a profiler map's offsets count from.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub(super) input_column_start: u32,
    /// The number printed lines count from (coverage and attribution `--json`, profiler maps).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub(super) output_line_start: u32,
    /// The number printed columns count from (coverage and attribution `--json`, profiler maps).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub(super) output_column_start: u32,
}

/// The maps given on the command line, and `--root` (default: the current directory) for the bundles the input's
/// scripts name.
pub(super) fn catalog_of(args: &ProfileArgs) -> Result<FilesPlace, CliError> {
    let mut explicit = args
        .maps
        .iter()
        .map(|p| KnownMap::open(p))
        .collect::<Result<Vec<_>, _>>()?;
    // The profile is never the bundle of a map given for it (`rec.cpuprofile.map` beside `rec.cpuprofile`, as
    // Metro's tooling names them).
    for m in &mut explicit {
        m.bundle.exclude(&args.profile);
    }
    let root = super::frame_maps::root_dir(args.root.as_deref())?;
    let mut catalog = FilesPlace::new(explicit, root);
    catalog.say_hints(sourcemap_core::bundle::resolve::Hint::as_flags);
    catalog.chosen = args.bundles.iter().cloned().collect();
    Ok(catalog)
}

/// A position in a script as a frame to resolve (as a profile's places are).
pub(super) fn place(
    url: Option<&str>,
    position: GeneratedPosition,
    function: Option<&str>,
) -> StackLine {
    StackLine::Frame(
        Site {
            url: url.map(Into::into),
            position,
            bytecode: false,
            function: function.map(Into::into),
        }
        .stack_frame(),
    )
}
