//! `lookup`'s positions: a 1-based line and a 0-based column, as mozilla/source-map counts them (its
//! `originalPositionFor` takes `{ line: 1-based, column: 0-based }`). Inside the index every position is 0-based line,
//! 0-based UTF-16 column (ECMA-426, tc39 tests, LSP). The other conventions live with their readers: a stack trace's
//! in `trace::stack`, metro-symbolicate's `--input-*-start` flags in `cli::symbolicate`; outputs that count from 1
//! add 1 where they are printed.

use sourcemap_core::GeneratedPosition;

/// A position with a 1-based line and a 0-based column (mozilla/source-map, `sourcemap-ls lookup`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OneBasedLine {
    pub line: u32,
    pub column: u32,
}

impl OneBasedLine {
    /// `None` for line 0, which does not exist in this convention.
    pub fn to_zero_based(self) -> Option<GeneratedPosition> {
        Some(GeneratedPosition {
            line: self.line.checked_sub(1)?,
            column: self.column,
        })
    }

    pub fn from_zero_based(line: u32, column: u32) -> Self {
        OneBasedLine {
            line: line + 1,
            column,
        }
    }

    /// Parses `LINE:COLUMN` or `LINE COLUMN`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let (l, c) = text
            .split_once(':')
            .or_else(|| text.split_once(char::is_whitespace))
            .ok_or_else(|| format!("expected LINE:COLUMN, got {text:?}"))?;
        let line: u32 = l
            .trim()
            .parse()
            .map_err(|_| format!("bad line {l:?} in {text:?}"))?;
        let column: u32 = c
            .trim()
            .parse()
            .map_err(|_| format!("bad column {c:?} in {text:?}"))?;
        if line == 0 {
            return Err(format!("lines are 1-based here; got line 0 in {text:?}"));
        }
        Ok(OneBasedLine { line, column })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_forms() {
        assert_eq!(
            OneBasedLine::parse("3:0"),
            Ok(OneBasedLine { line: 3, column: 0 })
        );
        assert_eq!(
            OneBasedLine::parse(" 3  7 "),
            Ok(OneBasedLine { line: 3, column: 7 })
        );
        assert!(OneBasedLine::parse("0:1").is_err());
        assert!(OneBasedLine::parse("1:-1").is_err());
        assert!(OneBasedLine::parse("x").is_err());
        assert_eq!(
            OneBasedLine { line: 3, column: 7 }.to_zero_based(),
            Some(GeneratedPosition { line: 2, column: 7 })
        );
    }
}
