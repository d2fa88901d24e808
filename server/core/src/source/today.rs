//! Where the code at a position of the build's copy of a source (`sourcesContent`) is in the file as it is today.
//!
//! A crash comes from a release, and the developer's file has moved on since. Both texts are at hand, so a line diff
//! of the two (patience, by `similar`: it anchors on lines that occur once in each, so an edit elsewhere does not
//! pair a `}` with another `}`) says where each unchanged line went, which lines were rewritten and which were
//! deleted. Only an unchanged line carries a position into today's file, column included (the line's text is the
//! same); a rewritten or deleted line has no place there: the caller answers with the build's copy and says where
//! the code around it is now.
//!
//! Lines are compared whole, without their terminators (`\n` or `\r\n`): a checkout with Windows line endings holds
//! the same code. A diff that would run past [`DIFF_DEADLINE`] (a pathological pair) is cut short by `similar`,
//! which then reports the rest as rewritten: fewer lines carried, never a wrong one.

use std::time::{Duration, Instant};

use similar::{capture_diff_deadline, Algorithm, DiffOp};

/// The longest a diff may run (a 10,000-line source edited in a few places takes well under a millisecond).
pub const DIFF_DEADLINE: Duration = Duration::from_millis(250);

/// The share of the build's worded lines that must be kept for today's text to count as an edit of it: a file
/// rewritten more than that is another file as far as positions go (its answers come from the build's copy).
pub const MIN_KEPT_SHARE: f64 = 0.5;

/// What became of one line of the build's copy, by today's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineFate {
    /// The same text, at this line of today's file (0-based).
    Kept(u32),
    /// Rewritten: this line of today's file stands in its place, with other text.
    Changed(u32),
    /// Deleted: the code that followed it starts at this line of today's file.
    Deleted(u32),
}

/// What the caller says of a position carried into today's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Same line, same text.
    Unchanged,
    /// Same text, another line.
    Moved,
    /// The line was rewritten: the position is where the new text stands.
    Changed,
    /// The line is gone: the position is where the code after it starts.
    Deleted,
}

impl Status {
    /// Whether the position is the same code in today's file (only then may an editor open it there).
    pub fn is_same_code(self) -> bool {
        matches!(self, Status::Unchanged | Status::Moved)
    }
}

/// A position of the build's copy, in today's file (0-based line; the column is the build's, UTF-16 units).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TodayPosition {
    /// 0-based line in today's file.
    pub line: u32,
    /// The build's column, unchanged (UTF-16 units).
    pub column: u32,
    /// What became of the line.
    pub status: Status,
}

/// Every line of the build's copy with its fate in today's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceDrift {
    fates: Vec<LineFate>,
    today_lines: u32,
    /// The build's lines with a word in them (`is_edit_of_build` weighs the kept lines against these).
    worded_lines: usize,
}

fn lines(text: &str) -> Vec<&str> {
    text.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect()
}

impl SourceDrift {
    /// The diff of the build's copy against today's text.
    pub fn between(build: &str, today: &str) -> SourceDrift {
        let (old, new) = (lines(build), lines(today));
        let mut fates = vec![LineFate::Deleted(0); old.len()];
        let deadline = Instant::now() + DIFF_DEADLINE;
        let ops = capture_diff_deadline(
            Algorithm::Patience,
            &old,
            0..old.len(),
            &new,
            0..new.len(),
            Some(deadline),
        );
        let at = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
        for op in ops {
            match op {
                DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => {
                    // A lone equal line with no word in it (`}`, a blank line) between edits is no evidence that
                    // it is the same code: it counts as rewritten.
                    let lone = len == 1 && !old[old_index].chars().any(char::is_alphanumeric);
                    for k in 0..len {
                        fates[old_index + k] = if lone {
                            LineFate::Changed(at(new_index + k))
                        } else {
                            LineFate::Kept(at(new_index + k))
                        };
                    }
                }
                DiffOp::Delete {
                    old_index,
                    old_len,
                    new_index,
                } => {
                    for fate in &mut fates[old_index..old_index + old_len] {
                        *fate = LineFate::Deleted(at(new_index));
                    }
                }
                DiffOp::Insert { .. } => {}
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => {
                    for k in 0..old_len {
                        fates[old_index + k] = if k < new_len {
                            LineFate::Changed(at(new_index + k))
                        } else {
                            LineFate::Deleted(at(new_index + new_len))
                        };
                    }
                }
            }
        }
        SourceDrift {
            fates,
            today_lines: at(new.len()),
            worded_lines: old
                .iter()
                .filter(|l| l.chars().any(char::is_alphanumeric))
                .count(),
        }
    }

    /// What became of `line` (0-based) of the build's copy; `None` past its end.
    pub fn fate(&self, line: u32) -> Option<LineFate> {
        self.fates.get(line as usize).copied()
    }

    /// Where `line`:`column` of the build's copy is today; `None` past the copy's end.
    pub fn position(&self, line: u32, column: u32) -> Option<TodayPosition> {
        Some(match self.fate(line)? {
            LineFate::Kept(now) => TodayPosition {
                line: now,
                column,
                status: if now == line {
                    Status::Unchanged
                } else {
                    Status::Moved
                },
            },
            LineFate::Changed(now) => TodayPosition {
                line: now,
                column,
                status: Status::Changed,
            },
            LineFate::Deleted(now) => TodayPosition {
                line: now.min(self.today_lines.saturating_sub(1)),
                column: 0,
                status: Status::Deleted,
            },
        })
    }

    /// Whether today's text is an edit of the build's copy rather than another file at its path (an old checkout of
    /// something else, a decoy `index.js`): at least [`MIN_KEPT_SHARE`] of the build's lines with a word in them are
    /// kept. Only then may a position be carried into it.
    pub fn is_edit_of_build(&self) -> bool {
        let kept = self
            .fates
            .iter()
            .filter(|f| matches!(f, LineFate::Kept(_)))
            .count();
        kept as f64 >= MIN_KEPT_SHARE * self.worded_lines as f64
    }

    /// Whether today's text is the build's copy, line for line.
    pub fn is_unchanged(&self) -> bool {
        self.today_lines as usize == self.fates.len()
            && self
                .fates
                .iter()
                .enumerate()
                .all(|(i, f)| *f == LineFate::Kept(i as u32))
    }

    /// Bytes held: 8 a line of the build's copy.
    pub fn heap_bytes(&self) -> usize {
        self.fates.capacity() * std::mem::size_of::<LineFate>()
    }
}

/// How a position moved, in words: "2 lines added above", "3 lines removed above", "same line".
pub fn moved_by(build_line: u32, today_line: u32) -> String {
    let plural = |n: i64| if n == 1 { "" } else { "s" };
    match i64::from(today_line) - i64::from(build_line) {
        0 => "same line".to_string(),
        n if n > 0 => format!("{n} line{} added above", plural(n)),
        n => format!("{} line{} removed above", -n, plural(-n)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUILD: &str = "// orders\nfunction total(o) {\n  return o.price * o.qty;\n}\nfunction tax(t) {\n  return t * 0.2;\n}\nconst a = 1;\nconst b = 2;\nconst c = 3;\nexport { total, tax };\n";

    /// Every kind of edit a developer makes after a release, each line's fate checked.
    #[test]
    fn unchanged_lines_carry_their_column_and_edited_ones_do_not() {
        // A comment block added at the top, a helper inserted halfway, a line rewritten, three lines removed.
        let today = "/**\n * Orders.\n */\n// orders\nfunction total(o) {\n  return o.price * o.qty;\n}\nfunction helper() {}\nfunction tax(t) {\n  return t * 0.25;\n}\nexport { total, tax };\n";
        let d = SourceDrift::between(BUILD, today);
        // (build line, expected today)
        let cases = [
            (0, Some((3, Status::Moved))),
            (2, Some((5, Status::Moved))),
            (4, Some((8, Status::Moved))),
            (5, Some((9, Status::Changed))),
            // The `}` after the rewritten line: an equal line alone between edits, with no word to go by.
            (6, Some((10, Status::Changed))),
            (7, Some((11, Status::Deleted))),
            (9, Some((11, Status::Deleted))),
            (10, Some((11, Status::Moved))),
            (99, None),
        ];
        for (line, want) in cases {
            let got = d.position(line, 7).map(|p| (p.line, p.status));
            assert_eq!(got, want, "build line {line}");
        }
        // A carried position keeps its column; the texts at both places are the same.
        let p = d.position(2, 9).unwrap();
        let (b, t) = (lines(BUILD), lines(today));
        assert_eq!(&b[2][9..], &t[p.line as usize][p.column as usize..]);
        assert!(!d.is_unchanged());
    }

    #[test]
    fn the_same_text_with_other_line_endings_is_unchanged() {
        let d = SourceDrift::between(BUILD, &BUILD.replace('\n', "\r\n"));
        assert!(d.is_unchanged());
        assert_eq!(d.position(3, 1).unwrap().status, Status::Unchanged);
    }

    #[test]
    fn a_line_never_lands_on_other_code() {
        // Everything rewritten: nothing is carried as the same code.
        let today = BUILD
            .replace("o.", "order.")
            .replace("t ", "x ")
            .replace("const", "let");
        let d = SourceDrift::between(BUILD, &today);
        for line in 0..11 {
            let p = d.position(line, 0).unwrap();
            if p.status.is_same_code() {
                assert_eq!(lines(BUILD)[line as usize], lines(&today)[p.line as usize]);
            }
        }
    }

    #[test]
    fn another_file_at_the_path_is_not_an_edit_of_the_build() {
        let decoy = "// another project's orders\nimport x from 'y';\n}\nexport default x;\n";
        let d = SourceDrift::between(BUILD, decoy);
        assert!(!d.is_edit_of_build());
        // Its lone `}` is not carried either.
        for line in [3, 6] {
            assert!(
                !matches!(d.fate(line), Some(LineFate::Kept(_))),
                "{:?}",
                d.fate(line)
            );
        }
        assert!(
            SourceDrift::between(BUILD, &format!("// new first line\n{BUILD}")).is_edit_of_build()
        );
    }

    #[test]
    fn how_far_in_words() {
        assert_eq!(moved_by(4, 6), "2 lines added above");
        assert_eq!(moved_by(6, 5), "1 line removed above");
        assert_eq!(moved_by(3, 3), "same line");
    }
}
