//! Original sources as they are today: where a position of the build's copy of a source is in the file the
//! developer has now (`today`).

pub mod today;
