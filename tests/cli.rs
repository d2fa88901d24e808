//! End-to-end tests of the `sourcemap-ls` command line.
