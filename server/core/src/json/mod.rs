//! JSON read without building values: the string scanner (`scan`, 64 bytes at a time), the pull reader over it
//! (`reader`: maps, Hermes profiles, index-map skims), and string literals read back from a validated buffer
//! (`literal`).

pub mod literal;
pub(crate) mod reader;
pub(crate) mod scan;
