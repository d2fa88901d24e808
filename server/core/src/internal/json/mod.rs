//! JSON read without building values: the string scanner (`scan`, 64 bytes at a time; also under `map::sparse`'s
//! skim), the strict pull reader over it (`reader`: valid maps, Hermes profiles), string literals read back from a
//! validated buffer (`literal`), and a top-level object's members in order through serde (`members`: the V8 profile
//! and heap snapshot readers, which write the document back).

pub mod literal;
pub(crate) mod members;
pub(crate) mod reader;
pub(crate) mod scan;
