//! A log's links (`FrameLink`): each stack frame whose bundle the workspace knows, linked to its original place.
//! `lsp/requests/document_link.rs` finds them and renders them as LSP `DocumentLink`s.

use sourcemap_core::source::today::{moved_by, TodayPosition};
use sourcemap_core::trace::stack::Precision;
use url::Url;

use super::LineSpan;

/// One frame's link: where it is written in the document, where it leads, and what its tooltip says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameLink {
    /// The frame's `file:line:column` as written on its line.
    pub span: LineSpan,
    /// The original place, with the line and column in its fragment (VS Code opens `file:///x#L12,5` at line 12,
    /// column 5).
    pub target: Url,
    pub tooltip: String,
}

/// What a frame's link says: the original function, the source and position (1-based, as traces count), that a
/// line-only frame is answered at line level, and where the code is in today's file when it was edited since.
pub fn tooltip(
    function: Option<&str>,
    source: &str,
    (line, column): (u32, u32),
    precision: Precision,
    today: Option<TodayPosition>,
) -> String {
    let function = function.map(|f| format!("{f} — ")).unwrap_or_default();
    let said = match precision {
        Precision::Column => format!("{function}{source}:{}:{}", line + 1, column + 1),
        Precision::Line => format!(
            "{function}{source}:{} (line only: the trace gives no column)",
            line + 1
        ),
    };
    match today {
        Some(now) if now.status.is_same_code() => format!(
            "{said} — in your file now :{}:{} ({})",
            now.line + 1,
            now.column + 1,
            moved_by(line, now.line)
        ),
        Some(_) => format!("{said} — changed in your file since the build: opens the build's copy"),
        None => said,
    }
}

/// `uri` opened at a 0-based `line` and `column`: its fragment `L<line>,<column>`, 1-based.
pub fn at_line(mut uri: Url, line: u32, column: u32) -> Url {
    uri.set_fragment(Some(&format!("L{},{}", line + 1, column + 1)));
    uri
}

#[cfg(test)]
mod tests {
    use super::*;
    use sourcemap_core::source::today::Status;

    #[test]
    fn a_tooltip_says_the_function_the_place_and_what_changed() {
        assert_eq!(
            tooltip(
                Some("parseOrder"),
                "src/orders.js",
                (4, 23),
                Precision::Column,
                None
            ),
            "parseOrder — src/orders.js:5:24"
        );
        assert_eq!(
            tooltip(None, "src/orders.js", (4, 0), Precision::Line, None),
            "src/orders.js:5 (line only: the trace gives no column)"
        );
        let moved = TodayPosition {
            line: 6,
            column: 23,
            status: Status::Moved,
        };
        assert!(
            tooltip(None, "a.js", (4, 23), Precision::Column, Some(moved))
                .starts_with("a.js:5:24 — in your file now :7:24 (")
        );
        let changed = TodayPosition {
            status: Status::Changed,
            ..moved
        };
        assert_eq!(
            tooltip(None, "a.js", (4, 23), Precision::Column, Some(changed)),
            "a.js:5:24 — changed in your file since the build: opens the build's copy"
        );
        assert_eq!(
            at_line(Url::parse("file:///x/a.js").unwrap(), 11, 4).as_str(),
            "file:///x/a.js#L12,5"
        );
    }
}
