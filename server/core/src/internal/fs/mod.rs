//! Files: opening regular files only, reading them whole or in ranges with a size bound (`files`), and finding files
//! under roots nearest first (`walk`), and archives read in place (`archive`: `app.asar`, zips).

pub mod archive;
pub mod files;
pub mod walk;
