//! Stack traces: reading a trace's bytes in any encoding (`input`) and past terminal colours (`ansi`), parsing every
//! engine's format (`stack`), Jest's moved line-1 columns (`jest`), Hermes crash reports (`hermes_crash`), resolving frames
//! against maps (`symbolicate`)
//! and showing the original code around a frame (`code_frame`).

pub mod ansi;
pub mod code_frame;
pub mod document;
pub mod event_context;
mod event_conventions;
mod event_json;
pub mod function_name;
pub mod hermes_crash;
pub mod input;
pub mod jest;
pub mod js_scopes;
pub mod js_slices;
mod kept_objects;
pub mod sfc_scripts;
pub mod spelled_names;
pub mod stack;
pub mod symbolicate;
pub mod text_scopes;
