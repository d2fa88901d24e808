//! Running a command with text on its stdin and collecting its output (the CLI tests, the dev-server test and the
//! metro-symbolicate comparisons all need it).

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `cmd` with `stdin` as its input (text, or any bytes); stdout and stderr are captured.
pub fn output_with_stdin(cmd: &mut Command, stdin: impl AsRef<[u8]>) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // A writer thread: a child that answers before reading all of its input cannot deadlock on a full pipe.
    let mut input = child.stdin.take().expect("piped stdin");
    let bytes = stdin.as_ref().to_vec();
    let writer = std::thread::spawn(move || input.write_all(&bytes));
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer thread").expect("write stdin");
    out
}
