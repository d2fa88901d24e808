//! Files: opening regular files only, reading them whole or in ranges with a size bound (`files`), and finding files
//! under roots nearest first (`walk`).

pub mod files;
pub mod walk;
