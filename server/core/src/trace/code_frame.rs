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

/// The frame around 0-based `line` and UTF-16 `column`; `None` when the line is not in `text`.
pub fn code_frame(text: &str, line: u32, column: u32) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let target = line as usize;
    if target >= lines.len() {
        return None;
    }
    let first = target.saturating_sub(CONTEXT);
    let last = (target + CONTEXT).min(lines.len() - 1);
    let width = (last + 1).to_string().len();
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate().take(last + 1).skip(first) {
        let mark = if i == target { '>' } else { ' ' };
        let row = format!("{mark} {:>width$} | {}", i + 1, l.trim_end());
        out.push_str(row.trim_end());
        out.push('\n');
        if i == target {
            // Tabs stay tabs so the caret lines up however the editor renders them.
            let pad: String = l
                .chars()
                .take(utf16_to_char_index(l, column))
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            let _ = writeln!(out, "  {:>width$} | {pad}^", "");
        }
    }
    Some(out)
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
}
