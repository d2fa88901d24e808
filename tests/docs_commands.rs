//! The pages tell the truth about the program: every command that README.md and `docs/*.md` show is run, and what
//! they say it prints is compared with what it prints, so that no page drifts from the program.
//!
//! The conventions the pages follow (README.md and each page with commands say so at their top):
//! - A ```` ```console ```` block is run: each `$ COMMAND` line (a `\` at its end continues it on the next line) runs
//!   in bash from the repository root, with the `sourcemap-ls` just built first on `PATH` and nothing on stdin; the
//!   lines after it, up to the next `$` line, are what it prints, stdout and stderr together, compared line by line.
//!   A line `...` or `…` stands for any number of lines left out (machine-dependent or long output), a `…` inside a
//!   line for any text left out of that line. Trailing blank lines do not count. `$?` is the previous command's exit
//!   status (commands do not otherwise share a shell: a `cd` lasts for its own line). Lines starting with `#` before
//!   the first command, or after a blank line just before the next one, are comments.
//! - Any block whose first line is `# not run by the docs test: REASON` is not run; the reason is on the page.
//! - A block whose first line is `# run by the docs test for its exit status` runs as one bash script
//!   (`set -euo pipefail`) from the repository root, and must exit 0; its output is not compared.
//! - Every other ```` ```sh ```` (or `bash`, `shell`) block, and any block with a `$ ` line, is an error: a command
//!   shown must be run or say why not. Editor configuration (Lua, Elisp, TOML, JSON) is not a command.
//! - A ```` ```rust ```` block must be, verbatim, in an example of `server/core/examples/`; the README's is
//!   `lookup.rs`, which is compiled into this test and run, and must print what the README says it prints.
//!
//! Links between the pages are checked too: every relative link or image leads to a file, and every `#anchor` to a
//! heading of its page (GitHub's slugs). Needs node (the demo's crash is a real node run).

// The README's library example, compiled in as it is, so that it runs without a build of its own (cargo would build
// sourcemap-core once more for it, with other features: minutes). Its `main` becomes this crate's, which the test
// harness leaves to [`run_the_library_example_when_asked`]. Its fixture's path, from `CARGO_MANIFEST_DIR`, holds in
// this crate too: both crates are two folders below the repository root.
include!("../server/core/examples/lookup.rs");

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A block's first line that says it is not run (followed by the reason, which must not be empty).
const NOT_RUN: &str = "# not run by the docs test:";
/// A block's first line that says it is run as a script whose exit status alone is checked.
const EXIT_STATUS: &str = "# run by the docs test for its exit status";
/// The front page's budget: at most 15,000 bytes.
const README_MAX_BYTES: usize = 15_000;
/// Set in the environment of the child run of [`run_the_library_example_when_asked`].
const RUN_EXAMPLE: &str = "SOURCEMAP_DOCS_RUN_LIBRARY_EXAMPLE";

fn repo() -> PathBuf {
    std::fs::canonicalize(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap()
}

/// README.md, then `docs/*.md` in name order, then the library's own README (its Rust blocks are also its doctests):
/// (path relative to the repository, text).
fn pages() -> Vec<(String, String)> {
    let root = repo();
    let mut names = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    names.extend(docs);
    names.push("server/core/README.md".to_string());
    names
        .into_iter()
        .map(|n| {
            let text =
                std::fs::read_to_string(root.join(&n)).unwrap_or_else(|e| panic!("{n}: {e}"));
            (n, text)
        })
        .collect()
}

/// A fenced code block: its info string's first word, the line of its opening fence (1-based), and its lines.
struct Block {
    language: String,
    line: usize,
    lines: Vec<String>,
}

/// The fenced blocks of a Markdown page (fences of three or more backticks, indented or not, as in a list).
fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    // The open block, its fence and its indent.
    let mut open: Option<(Block, String, usize)> = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match &mut open {
            None => {
                if trimmed.starts_with("```") {
                    let info = trimmed.trim_start_matches('`');
                    let fence = trimmed[..trimmed.len() - info.len()].to_string();
                    let language = info.split_whitespace().next().unwrap_or("").to_string();
                    let block = Block {
                        language,
                        line: i + 1,
                        lines: Vec::new(),
                    };
                    open = Some((block, fence, indent));
                }
            }
            Some((_, fence, _)) if trimmed.trim_end() == fence.as_str() => {
                out.push(open.take().unwrap().0);
            }
            Some((block, _, fence_indent)) => {
                // A list item's block is indented as its fence is; its lines are read without that indent.
                block
                    .lines
                    .push(line[indent.min(*fence_indent)..].to_string());
            }
        }
    }
    assert!(open.is_none(), "a fenced block is not closed");
    out
}

/// How a block's first line says it is treated.
enum Marker<'a> {
    NotRun(&'a str),
    ExitStatus,
    None,
}

fn marker(block: &Block) -> Marker<'_> {
    match block.lines.first() {
        Some(first) if first.starts_with(NOT_RUN) => Marker::NotRun(first[NOT_RUN.len()..].trim()),
        Some(first) if first.trim_end() == EXIT_STATUS => Marker::ExitStatus,
        _ => Marker::None,
    }
}

/// One `$` command of a console block and the lines it is shown to print.
struct Shown {
    /// The line of the page the command is on (1-based).
    line: usize,
    command: String,
    expected: Vec<String>,
}

/// The commands of a console block (see the module comment for its rules).
fn commands(block: &Block) -> Vec<Shown> {
    let mut shown: Vec<Shown> = Vec::new();
    let mut lines = block.lines.iter().enumerate().peekable();
    while let Some((i, line)) = lines.next() {
        if let Some(command) = line.strip_prefix("$ ") {
            let mut command = command.to_string();
            while command.ends_with('\\') {
                command.pop();
                match lines.next() {
                    Some((_, more)) => {
                        command.push('\n');
                        command.push_str(more);
                    }
                    None => break,
                }
            }
            if let Some(previous) = shown.last_mut() {
                drop_comment_before_next_command(&mut previous.expected);
            }
            shown.push(Shown {
                line: block.line + 1 + i,
                command,
                expected: Vec::new(),
            });
        } else if let Some(current) = shown.last_mut() {
            current.expected.push(line.clone());
        } else {
            assert!(
                line.trim().is_empty() || line.starts_with('#'),
                "line {}: a console block's first lines before a `$` command must be comments: {line}",
                block.line + 1 + i
            );
        }
    }
    for s in &mut shown {
        trim_trailing_blank(&mut s.expected);
    }
    shown
}

/// Removes, from the end of a command's shown output, a comment paragraph that introduces the next command: lines
/// starting with `#` after the last blank line.
fn drop_comment_before_next_command(expected: &mut Vec<String>) {
    trim_trailing_blank(expected);
    let paragraph = expected
        .iter()
        .rposition(|l| l.trim().is_empty())
        .map_or(0, |i| i + 1);
    if paragraph < expected.len() && expected[paragraph..].iter().all(|l| l.starts_with('#')) {
        expected.truncate(paragraph);
    }
    trim_trailing_blank(expected);
}

fn trim_trailing_blank(lines: &mut Vec<String>) {
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
}

/// Whether `line` is a shown line that stands for any number of lines.
fn is_elision(line: &str) -> bool {
    matches!(line.trim(), "..." | "…")
}

/// Whether an actual line matches a shown one, where each `…` stands for any text.
fn line_matches(shown: &str, actual: &str) -> bool {
    let parts: Vec<&str> = shown.split('…').collect();
    if parts.len() == 1 {
        return shown == actual;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first)
        || actual.len() < first.len() + last.len()
        || !actual.ends_with(last)
    {
        return false;
    }
    // Leftmost matching of each middle part is enough when the only wildcard is "any text".
    let mut rest = &actual[first.len()..actual.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// Whether the actual lines match the shown ones, elisions included.
fn output_matches(shown: &[String], actual: &[&str]) -> bool {
    // can[i][j]: shown[i..] matches actual[j..].
    let (m, n) = (shown.len(), actual.len());
    let mut can = vec![vec![false; n + 1]; m + 1];
    can[m][n] = true;
    for i in (0..m).rev() {
        for j in (0..=n).rev() {
            can[i][j] = if is_elision(&shown[i]) {
                can[i + 1][j] || (j < n && can[i][j + 1])
            } else {
                j < n && line_matches(&shown[i], actual[j]) && can[i + 1][j + 1]
            };
        }
    }
    can[0][0]
}

/// Runs one shown command as the module comment says: bash, the repository root, the built binary first on `PATH`,
/// stdout and stderr in one pipe (in the order they were written), `$?` set to `status_before`.
fn run_command(command: &str, status_before: i32) -> (String, i32) {
    let bin = Path::new(env!("CARGO_BIN_EXE_sourcemap-ls"));
    let path = std::env::join_paths(std::iter::once(bin.parent().unwrap().to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let script = format!("exec 2>&1\n(exit {status_before})\n{command}");
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(repo())
        .env("PATH", path)
        .stdin(Stdio::null())
        .output()
        .expect("run bash");
    let status = out.status.code().unwrap_or(-1);
    (String::from_utf8_lossy(&out.stdout).into_owned(), status)
}

#[test]
fn console_blocks_print_what_the_pages_show() {
    let mut failures = String::new();
    let mut ran = 0;
    for (page, text) in pages() {
        for block in blocks(&text) {
            if block.language != "console" || !matches!(marker(&block), Marker::None) {
                continue;
            }
            let mut status = 0;
            for shown in commands(&block) {
                let (output, code) = run_command(&shown.command, status);
                status = code;
                ran += 1;
                let mut actual: Vec<&str> = output.lines().collect();
                while actual.last().is_some_and(|l| l.trim().is_empty()) {
                    actual.pop();
                }
                if !output_matches(&shown.expected, &actual) {
                    let _ = write!(
                        failures,
                        "\n{page}:{}: `{}` (exit {code}) printed\n{}\n-- where the page shows --\n{}\n",
                        shown.line,
                        shown.command,
                        actual.join("\n"),
                        shown.expected.join("\n")
                    );
                }
            }
        }
    }
    assert!(ran > 0, "no console block found");
    assert!(
        failures.is_empty(),
        "pages that drifted from the program:{failures}"
    );
}

#[test]
fn every_command_shown_is_run_or_says_why_not() {
    let mut failures = String::new();
    for (page, text) in pages() {
        for block in blocks(&text) {
            let shell = matches!(block.language.as_str(), "sh" | "bash" | "shell" | "zsh");
            let prompts = block.lines.iter().any(|l| l.starts_with("$ "));
            match marker(&block) {
                Marker::NotRun(reason) => {
                    if reason.is_empty() {
                        let _ = writeln!(
                            failures,
                            "{page}:{}: says it is not run, but not why",
                            block.line
                        );
                    }
                }
                Marker::ExitStatus => {
                    let script = format!("set -euo pipefail\n{}", block.lines[1..].join("\n"));
                    let (output, code) = run_command(&script, 0);
                    if code != 0 {
                        let _ = writeln!(failures, "{page}:{}: exit {code}:\n{output}", block.line);
                    }
                }
                Marker::None if block.language == "console" => {}
                Marker::None if shell || prompts => {
                    let _ = writeln!(
                        failures,
                        "{page}:{}: a ```{} block with commands that is neither a console block nor marked \
                         (`{NOT_RUN} REASON` or `{EXIT_STATUS}`)",
                        block.line, block.language
                    );
                }
                Marker::None => {}
            }
        }
    }
    assert!(failures.is_empty(), "{failures}");
}

/// A GitHub heading anchor: lower case; letters, digits, `-` and `_` kept, spaces made `-`, everything else dropped.
fn slug(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .flat_map(char::to_lowercase)
        .collect()
}

/// The anchors of a page's headings (outside code blocks), with GitHub's `-1`, `-2`… for repeated ones.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        let Some(heading) = line.strip_prefix('#').filter(|_| !in_code) else {
            continue;
        };
        let base = slug(heading.trim_start_matches('#').trim());
        let mut anchor = base.clone();
        let mut n = 0;
        while !seen.insert(anchor.clone()) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
    }
    seen
}

/// The targets of a page's inline links and images, `[text](target)`, with their lines, outside code blocks and
/// code spans.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_code = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        // Code spans first: `[x](y)` inside one is text.
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push((i + 1, after[..end].to_string()));
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn links_between_the_pages_lead_somewhere() {
    let root = repo();
    let mut failures = String::new();
    let mut checked = 0;
    for (page, text) in pages() {
        let dir = Path::new(&page).parent().unwrap().to_path_buf();
        for (line, target) in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (file, anchor) = match target.split_once('#') {
                Some((file, anchor)) => (file, Some(anchor)),
                None => (target.as_str(), None),
            };
            let path = if file.is_empty() {
                PathBuf::from(&page)
            } else {
                dir.join(file)
            };
            if !root.join(&path).exists() {
                let _ = writeln!(
                    failures,
                    "{page}:{line}: {target}: no file {}",
                    path.display()
                );
                continue;
            }
            if let Some(anchor) = anchor {
                let target_text = std::fs::read_to_string(root.join(&path)).unwrap_or_default();
                if !anchors(&target_text).contains(anchor) {
                    let _ = writeln!(
                        failures,
                        "{page}:{line}: {target}: no heading #{anchor} there"
                    );
                }
            }
        }
    }
    assert!(checked > 0, "no link found");
    assert!(failures.is_empty(), "broken links:\n{failures}");
}

#[test]
fn the_readme_is_a_front_page() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    assert!(
        readme.len() <= README_MAX_BYTES,
        "README.md is {} bytes; a front page stays within {README_MAX_BYTES}: move detail to docs/",
        readme.len()
    );
    // A newcomer's two commands, and the one CI runs (.ci/run), come first.
    let first_block = blocks(&readme).into_iter().next().expect("a first block");
    let commands: Vec<&str> = first_block
        .lines
        .iter()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.starts_with("./scripts/"))
        .collect();
    assert_eq!(commands, ["./scripts/demo", "./scripts/test"]);
}

/// The README's Rust example is `server/core/examples/lookup.rs` as it is (every Rust block of the pages must be in
/// an example), and it prints what the README says it prints.
#[test]
fn the_library_example_is_the_readmes_and_prints_what_it_says() {
    let examples = repo().join("server/core/examples");
    let example_texts: Vec<(String, String)> = std::fs::read_dir(&examples)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            (
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    for (page, text) in pages() {
        for block in blocks(&text).iter().filter(|b| b.language == "rust") {
            let code = block.lines.join("\n");
            assert!(
                example_texts.iter().any(|(_, t)| t.contains(&code)),
                "{page}:{}: this Rust block is in no example of server/core/examples (copy it there as it is)",
                block.line
            );
        }
    }
    // And the other way: each example is on the library's README, whole but its opening comment.
    let crate_readme = std::fs::read_to_string(repo().join("server/core/README.md")).unwrap();
    let crate_blocks: Vec<String> = blocks(&crate_readme)
        .iter()
        .filter(|b| b.language == "rust")
        .map(|b| b.lines.join("\n"))
        .collect();
    for (path, text) in &example_texts {
        let body: Vec<&str> = text
            .lines()
            .skip_while(|l| l.starts_with("//"))
            .skip_while(|l| l.is_empty())
            .collect();
        let body = body.join("\n");
        assert!(
            crate_blocks.iter().any(|b| b.trim_end() == body.trim_end()),
            "{path}: not on server/core/README.md as it is (its Rust blocks are the crate's doctests)"
        );
    }
    // The example's own output: this test binary runs again with only the test below, which then runs the example
    // (libtest keeps a test's prints to itself, so the example cannot be read from here).
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "run_the_library_example_when_asked",
            "--exact",
            "--nocapture",
            "--test-threads=1",
            "-q",
        ])
        .env(RUN_EXAMPLE, "1")
        .output()
        .expect("run this test binary again");
    assert!(
        out.status.success(),
        "the example failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    // What libtest prints before the test runs ("running 1 test") is not the example's.
    let printed = stdout
        .split_once("running 1 test\n")
        .map_or(stdout.as_str(), |(_, after)| after)
        .trim();
    // The README's words with their line breaks as spaces: a sentence may wrap anywhere.
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let readme = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        readme.contains(&format!("it prints `{printed}`")),
        "the example prints `{printed}`, which the README does not say (\"it prints `…`\")"
    );
}

/// Not a check of its own: the child run of [`the_library_example_is_the_readmes_and_prints_what_it_says`].
#[test]
fn run_the_library_example_when_asked() {
    if std::env::var_os(RUN_EXAMPLE).is_some() {
        main().expect("the example runs");
        std::io::stdout().flush().unwrap();
        // Before libtest prints its verdict on the same stdout.
        std::process::exit(0);
    }
}

/// The test's own reading rules, on made-up blocks.
#[test]
fn console_blocks_are_read_as_the_module_comment_says() {
    let page = "intro\n```console\n# a comment\n$ one\nout 1\n\n# about two\n$ two \\\n  --flag\nout 2\n\n```\n";
    let block = blocks(page).remove(0);
    let shown = commands(&block);
    assert_eq!(shown.len(), 2);
    assert_eq!((shown[0].line, shown[0].command.as_str()), (4, "one"));
    assert_eq!(shown[0].expected, ["out 1"]);
    assert_eq!(shown[1].command, "two \n  --flag");
    assert_eq!(shown[1].expected, ["out 2"]);
    let s = |v: &[&str]| v.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    assert!(output_matches(
        &s(&["a", "...", "d"]),
        &["a", "b", "c", "d"]
    ));
    assert!(output_matches(&s(&["a", "…", "b"]), &["a", "b"]));
    assert!(!output_matches(&s(&["a", "b"]), &["a", "c"]));
    assert!(output_matches(
        &s(&["x …/y: z…"]),
        &["x /abs/y: z and more"]
    ));
    assert!(!output_matches(&s(&["x …/y"]), &["x /abs/z"]));
    assert_eq!(
        slug("Does it fit? (`validate BUNDLE [MAP]`, `--explain`)"),
        "does-it-fit-validate-bundle-map---explain"
    );
}
