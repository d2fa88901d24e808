//! `sourcemap-ls validate`: exit 0 when the map is valid (warnings on stderr), else exit 1 with one located error
//! per line on stderr.

use std::path::PathBuf;

use clap::Args;
use sourcemap_core::IndexOptions;

use super::{open_index, CliError};

#[derive(Args)]
pub struct ValidateArgs {
    /// A source map, or a bundle whose sourceMappingURL or sidecar .map leads to one.
    map: PathBuf,
}

pub fn run(args: ValidateArgs) -> Result<(), CliError> {
    let index = open_index(&args.map, IndexOptions::default())?;
    for w in &index.warnings {
        eprintln!("sourcemap-ls: warning: {}: {w}", args.map.display());
    }
    Ok(())
}
