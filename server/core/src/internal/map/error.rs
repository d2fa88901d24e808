//! Errors that say where and why.
//!
//! Every error carries an [`ErrorLocation`]: the JSON field path (`sections[3].map.mappings`), the section index for
//! index maps, and for `mappings` the byte offset inside the string, the generated line and the segment number. When
//! the map came from a file, `file_offset` is the byte offset in that file, so an editor can point at it.

use std::fmt;

/// Where in `mappings` a problem was found (all 0-based, relative to the section's own `mappings` string).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MappingsLocation {
    /// Byte offset inside the `mappings` string.
    pub byte: usize,
    /// Generated line (relative to the section) the segment is on.
    pub line: u32,
    /// Index of the segment within that line.
    pub segment: u32,
}

/// Where an error is: the JSON field, the section, the place in `mappings`, the byte in the file (see the module
/// documentation). Displayed with 1-based generated lines and segment numbers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErrorLocation {
    /// JSON path of the offending field, e.g. `sections[2].map.sources[4]`; empty for the document itself.
    pub path: String,
    /// Index of the section in an index map.
    pub section: Option<usize>,
    /// Position inside a `mappings` (or `rangeMappings`) string.
    pub mappings: Option<MappingsLocation>,
    /// Byte offset in the map file, when known.
    pub file_offset: Option<usize>,
}

impl fmt::Display for ErrorLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str("(document)")?;
        } else {
            f.write_str(&self.path)?;
        }
        if let Some(m) = &self.mappings {
            write!(
                f,
                " at byte {} (generated line {}, segment {})",
                m.byte,
                m.line + 1,
                m.segment + 1
            )?;
        }
        if let Some(off) = self.file_offset {
            write!(f, " [file offset {off}]")?;
        }
        Ok(())
    }
}

/// An invalid or unreadable source map, with where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{location}: {message}")]
pub struct MapError {
    /// Where the problem is.
    pub location: ErrorLocation,
    /// What the problem is.
    pub message: String,
}

impl MapError {
    /// An error at the JSON path `path`, with no section, `mappings` position or file offset (yet).
    pub fn at(path: impl Into<String>, message: impl Into<String>) -> Self {
        MapError {
            location: ErrorLocation {
                path: path.into(),
                ..ErrorLocation::default()
            },
            message: message.into(),
        }
    }

    /// The error with its section index set (`None`: not in an index map's section).
    pub fn in_section(mut self, section: Option<usize>) -> Self {
        self.location.section = section;
        self
    }

    /// The error with its byte offset in the map file set.
    pub fn with_file_offset(mut self, offset: Option<usize>) -> Self {
        self.location.file_offset = offset;
        self
    }
}

/// One or more errors; never empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapErrors(pub Vec<MapError>);

impl fmt::Display for MapErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for MapErrors {}

impl From<MapError> for MapErrors {
    fn from(e: MapError) -> Self {
        MapErrors(vec![e])
    }
}
