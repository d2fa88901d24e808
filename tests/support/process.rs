//! Running a command with text on its stdin and collecting its output (the CLI tests, the dev-server test and the
//! metro-symbolicate comparisons all need it).

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `cmd` with `stdin` as its input; stdout and stderr are captured.
pub fn output_with_stdin(cmd: &mut Command, stdin: &str) -> Output {
    output_with_bytes(cmd, stdin.as_bytes())
}

/// [`output_with_stdin`] with any bytes as the input (a trace that is not UTF-8, UTF-16).
pub fn output_with_bytes(cmd: &mut Command, stdin: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // A writer thread: a child that answers before reading all of its input cannot deadlock on a full pipe.
    let mut input = child.stdin.take().expect("piped stdin");
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || input.write_all(&bytes));
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer thread").expect("write stdin");
    out
}
