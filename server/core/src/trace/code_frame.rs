//! A code frame: a few lines of original source around a position, the target line marked with `>` and a caret
//! under the column (UTF-16 units, as source-map columns are). Used by hovers and by symbolication's `codeFrame`.

use std::fmt::Write;

/// Lines of context above and below the target line.
pub const CONTEXT: usize = 2;

/// The char index in `s` of UTF-16 column `column` (clamped to the line).
fn utf16_to_char_index(s: &str, column: u32) -> usize {
    let mut units = 0u32;
    for (i, c) in s.chars().enumerate() {
        if units >= column {
            return i;
        }
        units += c.len_utf16() as u32;
    }
    s.chars().count()
}

/// The most characters of a line a frame shows: a longer line (a minified dependency's original is one line of
/// hundreds of KB; three's shader strings run for KBs) is cut to this window around the column, `…` where cut, so
/// that a hover fits on a screen (a 339,403-character hover before, issue 57). Sentry cuts context lines to 140
/// bytes around the column the same way (`event_context.rs`).
pub const MAX_LINE_CHARS: usize = 160;

/// The frame around 0-based `line` and UTF-16 `column`; `None` when the line is not in `text`. A line longer than
/// [`MAX_LINE_CHARS`] is cut to a window of that many characters around the column (the same for every line).
pub fn code_frame(text: &str, line: u32, column: u32) -> Option<String> {
    // Only the lines shown are collected (a 9 MB source has 200,000 lines; a hover shows five).
    let (first, _) = frame_lines(line);
    let lines: Vec<&str> = text
        .lines()
        .skip(first as usize)
        .take(2 * CONTEXT + 1)
        .collect();
    code_frame_of_lines(&lines, first, line, column)
}

/// The lines a frame around 0-based `line` shows: `first..=last`.
pub fn frame_lines(line: u32) -> (u32, u32) {
    (
        line.saturating_sub(CONTEXT as u32),
        line.saturating_add(CONTEXT as u32),
    )
}

/// [`code_frame`] from the text's lines `first..` (`lines[0]` is line `first`; at least up to [`frame_lines`]'s last,
/// or to the text's end).
pub fn code_frame_of_lines(lines: &[&str], first: u32, line: u32, column: u32) -> Option<String> {
    // Indexes into `lines`; `base + i + 1` is the 1-based line number shown.
    let base = first as usize;
    let target = line.checked_sub(first)? as usize;
    if target >= lines.len() {
        return None;
    }
    let first = target.saturating_sub(CONTEXT);
    let last = (target + CONTEXT).min(lines.len() - 1);
    let width = (base + last + 1).to_string().len();
    let at = utf16_to_char_index(lines[target], column);
    // The window's first character: the column in its middle, when the lines are longer than it.
    let longest = lines[first..=last]
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0);
    let from = if longest > MAX_LINE_CHARS {
        at.saturating_sub(MAX_LINE_CHARS / 2)
    } else {
        0
    };
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate().take(last + 1).skip(first) {
        let mark = if i == target { '>' } else { ' ' };
        let (shown, cut_before) = window(l.trim_end(), from);
        let row = format!("{mark} {:>width$} | {shown}", base + i + 1);
        out.push_str(row.trim_end());
        out.push('\n');
        if i == target {
            // Tabs stay tabs so the caret lines up however the editor renders them.
            let pad: String = std::iter::repeat_n(' ', usize::from(cut_before))
                .chain(l.chars().skip(from).take(at.saturating_sub(from)).map(|c| {
                    if c == '\t' {
                        '\t'
                    } else {
                        ' '
                    }
                }))
                .collect();
            let _ = writeln!(out, "  {:>width$} | {pad}^", "");
        }
    }
    Some(out)
}

/// `line`'s characters from `from`, at most [`MAX_LINE_CHARS`] of them, with `…` where it was cut, when it is longer
/// than that (a shorter line is shown whole); whether it was cut before.
fn window(line: &str, from: usize) -> (String, bool) {
    if line.chars().nth(MAX_LINE_CHARS).is_none() {
        return (line.to_string(), false);
    }
    let mut chars = line.chars().skip(from);
    let kept: String = chars.by_ref().take(MAX_LINE_CHARS).collect();
    let (before, after) = (from > 0 && !line.is_empty(), chars.next().is_some());
    let mut shown = String::with_capacity(kept.len() + 6);
    if before {
        shown.push('…');
    }
    shown.push_str(&kept);
    if after {
        shown.push('…');
    }
    (shown, before)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_the_line_and_column() {
        let text = "a\n\nconst x = 1;\nd\ne\nf\n";
        assert_eq!(
            code_frame(text, 2, 6).unwrap(),
            "  1 | a\n  2 |\n> 3 | const x = 1;\n    |       ^\n  4 | d\n  5 | e\n"
        );
        // The caret counts UTF-16 units: the emoji is two.
        let frame = code_frame("s = '🎉'; go()", 0, 10).unwrap();
        assert!(frame.ends_with("|          ^\n"), "{frame}");
        assert_eq!(code_frame(text, 99, 0), None);
    }

    /// A minified original (one 275 KB line): the frame shows a window around the column, the caret under it.
    #[test]
    fn long_lines_are_cut_around_the_column() {
        let long: String = (0..30_000).map(|i| format!("f{i}();")).collect();
        let text = format!("// head\n{long}\nx();\n");
        let column = long.find("f20000()").unwrap() as u32;
        let frame = code_frame(&text, 1, column).unwrap();
        assert!(frame.len() < 1_000, "{} bytes", frame.len());
        let target = frame.lines().nth(1).unwrap();
        assert!(
            target.starts_with("> 2 | …") && target.ends_with('…'),
            "{target}"
        );
        let caret = frame.lines().nth(2).unwrap();
        let under = caret.chars().position(|c| c == '^').unwrap();
        let pointed: String = target.chars().skip(under).take(8).collect();
        assert_eq!(pointed, "f20000()", "{frame}");
        assert!(frame.starts_with("  1 | // head\n"), "{frame}");
        // Short lines are shown whole.
        assert_eq!(
            code_frame("ab\ncd\n", 1, 1).unwrap(),
            "  1 | ab\n> 2 | cd\n    |  ^\n"
        );
    }
}
