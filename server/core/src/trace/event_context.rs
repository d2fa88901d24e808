//! The source lines around a frame, as Sentry stores them in a processed event's frame: `context_line` (the frame's
//! line), `pre_context` and `post_context` (up to five lines before and after), each long line cut to about 140
//! bytes around the frame's column with `{snip}` where it was cut.
//!
//! The convention is Sentry's own, from symbolicator (`crates/symbolicator-service/src/source_context.rs`,
//! `get_context_lines` with `DEFAULT_CONTEXT_LINES = 5` and `trim_context_line`), which fills these fields for
//! JavaScript events (`crates/symbolicator-js/src/symbolication.rs`, `apply_source_context`): lines as Rust's
//! `str::lines` splits them (`\n`, `\r\n`); a line of at most 150 bytes kept whole; a longer one cut to a window that
//! starts 60 bytes before the column (at the line's start when that is within 5 bytes of it), 140 bytes long (to the
//! end when that is within 5 bytes), moved back to 140 bytes before the end when it reaches the end, each edge moved
//! down to a character boundary.

/// Lines of context on each side of the frame's line.
pub const CONTEXT_LINES: usize = 5;

/// The lines around `line` (0-based) of `source`, the frame's line cut around `column` (a byte offset in it, as
/// Sentry's column is used): `(pre_context, context_line, post_context)`; `None` when the source has no such line.
pub fn context_lines(source: &str, line: usize, column: usize) -> Option<Context> {
    let first = line.saturating_sub(CONTEXT_LINES);
    // Where line `first` starts: `\n`s counted a vector at a time (`str::lines` splits at `\n`, a `\r` before it
    // dropped), not the lines walked one by one.
    let start = match first {
        0 => 0,
        n => memchr::memchr_iter(b'\n', source.as_bytes()).nth(n - 1)? + 1,
    };
    context_from(&source[start..], line - first, column)
}

/// `(pre_context, context_line, post_context)`.
pub type Context = (Vec<String>, String, Vec<String>);

/// The context of the line `before` lines into `from`, which starts where the first line of context does.
fn context_from(from: &str, before: usize, column: usize) -> Option<Context> {
    let mut lines = from.lines();
    let pre = (&mut lines)
        .take(before)
        .map(|l| cut_around(l, column))
        .collect();
    let context = cut_around(lines.next()?, column);
    let post = lines
        .take(CONTEXT_LINES)
        .map(|l| cut_around(l, column))
        .collect();
    Some((pre, context, post))
}

/// A source's text with where each line starts: the context of a frame found without counting the lines before it.
/// A pipeline keeps these across events (finding line 3,000 of a 9 MB source by its newlines, per frame and per
/// event, was a third of its time).
#[derive(Debug)]
pub struct LinedText {
    text: String,
    /// The byte offset of each line's start after the first (`\n` + 1).
    starts: Vec<u32>,
    /// The lines around the positions asked most recently, written as JSON too ([`LinedText::context_json`]): a
    /// pipeline's warm events ask the same frames' lines again and again. At most [`KEPT_CONTEXTS`], so a text held
    /// in a cache's budget holds a bounded few KB more than it was counted at.
    contexts:
        std::sync::Mutex<std::collections::HashMap<(usize, usize), std::sync::Arc<ContextJson>>>,
}

/// How many positions' lines a text keeps written ([`LinedText::context_json`]).
const KEPT_CONTEXTS: usize = 64;

/// A frame's lines around it ([`Context`]) and the same three values as JSON texts, as an event writes them.
#[derive(Debug)]
pub struct ContextJson {
    /// `pre_context`, `context_line`, `post_context`.
    pub lines: Context,
    /// The three as JSON: an array of strings, a string, an array of strings.
    pub json: [String; 3],
}

impl LinedText {
    /// The text, its lines found once.
    pub fn new(text: String) -> LinedText {
        // Offsets fit in 32 bits: texts above 4 GiB are not read for context.
        let starts = memchr::memchr_iter(b'\n', text.as_bytes())
            .map(|i| (i + 1) as u32)
            .collect();
        LinedText {
            text,
            starts,
            contexts: Default::default(),
        }
    }

    /// The text with its lines' starts as found elsewhere (`starts`: the offset just past each `\n`, in order).
    pub fn with_starts(text: String, starts: Vec<u32>) -> LinedText {
        debug_assert!(
            memchr::memchr_iter(b'\n', text.as_bytes())
                .map(|i| (i + 1) as u32)
                .eq(starts.iter().copied()),
            "the starts given are the text's"
        );
        LinedText {
            text,
            starts,
            contexts: Default::default(),
        }
    }

    /// The whole text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Bytes held (for a cache's budget).
    pub fn bytes(&self) -> usize {
        self.text.len() + 4 * self.starts.len()
    }

    /// [`LinedText::context_lines`] with its JSON, made once for each of the positions asked most recently.
    pub fn context_json(&self, line: usize, column: usize) -> Option<std::sync::Arc<ContextJson>> {
        let mut kept = self.contexts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(known) = kept.get(&(line, column)) {
            return Some(known.clone());
        }
        let lines = self.context_lines(line, column)?;
        let json = [
            serde_json::to_string(&lines.0),
            serde_json::to_string(&lines.1),
            serde_json::to_string(&lines.2),
        ]
        .map(|j| j.expect("strings serialize"));
        let made = std::sync::Arc::new(ContextJson { json, lines });
        if kept.len() >= KEPT_CONTEXTS {
            kept.clear();
        }
        kept.insert((line, column), made.clone());
        Some(made)
    }

    /// What [`context_lines`] gives for this text.
    pub fn context_lines(&self, line: usize, column: usize) -> Option<Context> {
        let first = line.saturating_sub(CONTEXT_LINES);
        let start = match first {
            0 => 0,
            n => *self.starts.get(n - 1)? as usize,
        };
        context_from(&self.text[start..], line - first, column)
    }
}

/// A line cut to about 140 bytes around `column` (see the module documentation).
fn cut_around(line: &str, column: usize) -> String {
    let len = line.len();
    if len <= 150 {
        return line.to_string();
    }
    let mut start = column.min(len).saturating_sub(60);
    if start < 5 {
        start = 0;
    }
    let mut end = (start + 140).min(len);
    if end > len.saturating_sub(5) {
        end = len;
    }
    if end == len {
        start = len.saturating_sub(140);
    }
    let (start, end) = (
        char_start_at_or_before(line, start),
        char_start_at_or_before(line, end),
    );
    let mut out = String::with_capacity(end - start + 14);
    if start > 0 {
        out.push_str("{snip} ");
    }
    out.push_str(&line[start..end]);
    if end < len {
        out.push_str(" {snip}");
    }
    out
}

/// The nearest character boundary at or before byte `i`.
fn char_start_at_or_before(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sentry's own examples (symbolicator's `source_context.rs` tests), read as data: the cut of a long line at
    /// several columns, and the lines around a line.
    #[test]
    fn lines_are_cut_as_sentry_cuts_them() {
        let long = "The public is more familiar with bad design than good design. It is, in effect, conditioned to \
                    prefer bad design, because that is what it lives with. The new becomes threatening, the old \
                    reassuring.";
        let cases: &[(&str, usize, &str)] = &[
            ("foo", 0, "foo"),
            (long, 0, "The public is more familiar with bad design than good design. It is, in effect, conditioned to prefer bad design, because that is what it li {snip}"),
            (long, 10, "The public is more familiar with bad design than good design. It is, in effect, conditioned to prefer bad design, because that is what it li {snip}"),
            (long, 66, "{snip} blic is more familiar with bad design than good design. It is, in effect, conditioned to prefer bad design, because that is what it lives wi {snip}"),
            (long, 190, "{snip} gn. It is, in effect, conditioned to prefer bad design, because that is what it lives with. The new becomes threatening, the old reassuring."),
            (long, 9999, "{snip} gn. It is, in effect, conditioned to prefer bad design, because that is what it lives with. The new becomes threatening, the old reassuring."),
        ];
        for (line, column, want) in cases {
            assert_eq!(cut_around(line, *column), *want, "column {column}");
        }
        let hearts = ".❤️🧡💛💚💙💜".repeat(10);
        assert_eq!(
            cut_around(&hearts, 70),
            "{snip} 🧡💛💚💙💜.❤️🧡💛💚💙💜.❤️🧡💛💚💙💜.❤️🧡💛💚💙💜.❤️🧡💛💚💙💜.❤️🧡💛 {snip}"
        );
    }

    /// The kept line starts give what counting the newlines gives, at every line, `\r\n` and a last line without
    /// a newline included.
    #[test]
    fn a_lined_text_gives_the_same_context() {
        let source: String = (1..=30)
            .map(|n| format!("line {n}{}", if n % 3 == 0 { "\r\n" } else { "\n" }))
            .collect::<String>()
            + "last";
        let lined = LinedText::new(source.clone());
        for line in 0..35 {
            assert_eq!(
                lined.context_lines(line, 2),
                context_lines(&source, line, 2),
                "line {line}"
            );
        }
        assert_eq!(lined.text(), source);
    }

    #[test]
    fn five_lines_each_side_where_there_are_five() {
        let source: String = (1..=20).map(|n| format!("line {n}\n")).collect();
        let (pre, line, post) = context_lines(&source, 9, 0).unwrap();
        assert_eq!(pre, ["line 5", "line 6", "line 7", "line 8", "line 9"]);
        assert_eq!(line, "line 10");
        assert_eq!(
            post,
            ["line 11", "line 12", "line 13", "line 14", "line 15"]
        );
        let (pre, line, post) = context_lines(&source, 1, 0).unwrap();
        assert_eq!(
            (pre, line),
            (vec!["line 1".to_string()], "line 2".to_string())
        );
        assert_eq!(post.len(), 5);
        let (_, line, post) = context_lines(&source, 19, 0).unwrap();
        assert_eq!((line.as_str(), post.len()), ("line 20", 0));
        assert!(
            context_lines(&source, 20, 0).is_none(),
            "past the last line"
        );
        let crlf = "a\r\nb\r\nc";
        assert_eq!(
            context_lines(crlf, 1, 0).unwrap(),
            (vec!["a".into()], "b".into(), vec!["c".into()])
        );
    }
}
