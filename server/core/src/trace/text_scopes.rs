//! One text's function scopes as far as the positions asked of it need: [`TextScopes`]. A text of
//! [`PARSE_IN_PARTS_FROM`] bytes or more is parsed only in the parts around the positions (`js_slices`), a shorter one
//! whole. What is parsed is kept, so a later position inside a part already read is answered without the text.
//!
//! Why parts: a whole parse's syntax tree is ~15 times its text in memory (a 22 MB one-line bundle: ~300 MB at its
//! peak, `docs/PERFORMANCE.md`, "Function names in parts"), and its time grows with the text, while a frame's
//! function is in a few kilobytes of it. Why whole below the threshold: there one parse serves every frame, and costs
//! less than parts for many positions (the same section's figures).

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use crate::trace::js_scopes::{
    may_be_typescript, offsets_of, positions_from, Dialect, FunctionScopes, TextPosition,
};
use crate::trace::js_slices::levels_around_from;
use crate::trace::sfc_scripts::is_component;

/// Texts at least this long are parsed in parts; shorter ones whole.
///
/// 1 MiB until issue 46: a crash pipeline's event meets each bundle and source once (its cold scenario), and a whole
/// parse of a 300 KB bundle and of `lodash.js` for the dozen frames of one trace was half of the event's time. On the
/// round-trip corpus's 110 events, each with a bundle of its own (`symbolicate --ndjson --jobs 1`, 4 runs each):
/// 1.53–1.85 s with 1 MiB, 1.35–1.47 s with 64 KiB, and 1.45–1.50 s parsing in parts only when at most 16 or 32
/// positions are asked at once; the output byte-identical. A real trace's frames cluster in a few functions, which
/// one part answers together; 50 positions spread at random cost 1.2–2.5× a whole parse ("Function names in parts",
/// docs/PERFORMANCE.md). Thresholds below 64 KiB were not measured.
pub const PARSE_IN_PARTS_FROM: usize = 64 << 10;

/// A table of function scopes, or `None` when the text could not be read or parsed.
pub type Parsed = Option<Arc<FunctionScopes>>;

/// See the module documentation. A table given for a position answers [`FunctionScopes::innermost`] at that position
/// as the whole text's table would; at other positions it may not.
#[derive(Debug, Default)]
pub struct TextScopes {
    /// The whole text's table, once parsed.
    whole: Option<Parsed>,
    /// Parts read without an error.
    parts: Vec<Part>,
    /// Ranges that did not read without an error.
    unreadable: Vec<(usize, usize)>,
    /// Offsets just past top-level `;`s, 16 KiB apart or more: a later pass starts at the last one before its
    /// positions (`js_slices::levels_around_from`), not at the text's start.
    boundaries: Vec<usize>,
    /// Some boundaries' positions (sorted): positions and offsets are converted from the last one before them.
    anchors: Vec<(usize, TextPosition)>,
    answers: HashMap<TextPosition, Parsed>,
}

/// A run of statements parsed alone.
#[derive(Debug)]
struct Part {
    range: (usize, usize),
    start: TextPosition,
    end: TextPosition,
    /// A run of the text's top-level statements: a position inside it that no function of it holds is top-level code.
    top: bool,
    table: Arc<FunctionScopes>,
}

impl Part {
    /// The part's table when it answers `p`: `p` inside it and a function of it around `p` (or none, at the top
    /// level). See `js_slices` for why that is the whole text's answer.
    fn answers(&self, p: TextPosition) -> Option<&Arc<FunctionScopes>> {
        (self.start <= p && p < self.end && (self.top || self.table.innermost(p).is_some()))
            .then_some(&self.table)
    }
}

impl TextScopes {
    /// The scopes of a text not read yet.
    pub fn new() -> TextScopes {
        TextScopes::default()
    }

    /// The table answering `at`, when it is known without the text: asked before, inside a part already read, or
    /// the whole text parsed.
    pub fn known(&self, at: TextPosition) -> Option<Parsed> {
        if let Some(answer) = self.answers.get(&at) {
            return Some(answer.clone());
        }
        if let Some(table) = self.parts.iter().find_map(|part| part.answers(at)) {
            return Some(Some(table.clone()));
        }
        self.whole.clone()
    }

    /// Answers every position of `at` not known yet from `text` (named `name`, for its dialect); `None` for `text`
    /// when it cannot be read (every position is then answered `None`).
    pub fn answer(
        &mut self,
        text: Option<&str>,
        name: &str,
        dialect: Dialect,
        at: &[TextPosition],
    ) {
        self.answer_with(text, name, dialect, at, true);
    }

    /// Reads the parts around the positions of `at` in a text parsed in parts, and nothing else: a position only
    /// the whole text answers (past its line's end, or where no part reads) is left unknown, and a text parsed
    /// whole is not read. For reading ahead at positions that may turn out to be asked or not (`session`'s early
    /// read): a guess never costs a whole syntax tree.
    pub fn answer_parts(&mut self, text: &str, name: &str, dialect: Dialect, at: &[TextPosition]) {
        if text.len() >= PARSE_IN_PARTS_FROM && !is_component(name) {
            self.answer_with(Some(text), name, dialect, at, false);
        }
    }

    fn answer_with(
        &mut self,
        text: Option<&str>,
        name: &str,
        dialect: Dialect,
        at: &[TextPosition],
        whole_allowed: bool,
    ) {
        let mut wanted: Vec<TextPosition> = at
            .iter()
            .copied()
            .filter(|&p| self.known(p).is_none())
            .collect();
        if wanted.is_empty() {
            return;
        }
        wanted.sort_unstable();
        wanted.dedup();
        let Some(text) = text else {
            self.whole = Some(None);
            return;
        };
        // A component's scripts are read whole (`sfc_scripts`): its markup is no statement of theirs.
        let rest = if text.len() >= PARSE_IN_PARTS_FROM && !is_component(name) {
            self.in_parts(text, name, dialect, &wanted)
        } else {
            wanted
        };
        if !rest.is_empty() && whole_allowed {
            self.whole = Some(
                FunctionScopes::parse(text, name, dialect)
                    .ok()
                    .map(Arc::new),
            );
        }
    }

    /// The answer for `at` after [`TextScopes::answer`] was asked it.
    pub fn table(&self, at: TextPosition) -> Parsed {
        self.known(at).flatten()
    }

    /// Bytes held on the heap: the tables, and one entry per position answered.
    pub fn heap_bytes(&self) -> usize {
        let tables: usize = self
            .parts
            .iter()
            .map(|p| p.table.heap_bytes() + std::mem::size_of::<Part>())
            .sum();
        let whole = self
            .whole
            .as_ref()
            .and_then(|w| w.as_ref())
            .map_or(0, |w| w.heap_bytes());
        tables
            + whole
            + self.unreadable.capacity() * std::mem::size_of::<(usize, usize)>()
            + self.boundaries.capacity() * std::mem::size_of::<usize>()
            + self.anchors.capacity() * std::mem::size_of::<(usize, TextPosition)>()
            + self.answers.capacity() * (std::mem::size_of::<(TextPosition, Parsed)>() + 1)
    }

    /// Answers `wanted` (sorted) from parts where it can; returns the positions none answers. Around each position,
    /// the parts `js_slices` finds, innermost first, until one holds a function around it; where none does, the top
    /// level's statements around it, which say it is top-level code.
    fn in_parts(
        &mut self,
        text: &str,
        name: &str,
        dialect: Dialect,
        wanted: &[TextPosition],
    ) -> Vec<TextPosition> {
        // TypeScript's types hold braces and `;`s the lexical pass does not tell from code (`class S<T extends { a:
        // A }> extends M(B) {`): a TypeScript text is parsed whole.
        if may_be_typescript(name, dialect) {
            return wanted.to_vec();
        }
        let first = wanted.first().copied().unwrap_or_default();
        let from = self
            .anchors
            .iter()
            .rev()
            .find(|a| a.1 <= first)
            .copied()
            .unwrap_or_default();
        let offsets = offsets_of(text, from, wanted);
        let mut rest = Vec::new();
        let mut placed: Vec<(TextPosition, usize)> = Vec::new();
        for (&p, o) in wanted.iter().zip(&offsets) {
            match o {
                Some(o) => placed.push((p, *o)),
                // Past its line's end: the whole text says what is there.
                None => rest.push(p),
            }
        }
        let at: Vec<usize> = placed.iter().map(|&(_, o)| o).collect();
        let first = at.iter().copied().min().unwrap_or(0);
        let start = self
            .boundaries
            .iter()
            .rev()
            .find(|&&b| b <= first)
            .copied()
            .unwrap_or(0);
        let levels = levels_around_from(text, start, &at, &mut self.boundaries).or_else(|| {
            // A pass that cannot read from a boundary may from the start.
            (start > 0)
                .then(|| levels_around_from(text, 0, &at, &mut self.boundaries))
                .flatten()
        });
        let Some(levels) = levels else {
            rest.extend(placed.iter().map(|&(p, _)| p));
            return rest;
        };
        // Every part's ends, placed in one pass over the text from the last anchor before them, and the boundaries
        // found beyond the last anchor, as anchors for later passes.
        let last_anchor = self.anchors.last().map(|a| a.0);
        let mut ends: Vec<usize> = levels
            .iter()
            .flatten()
            .flat_map(|l| {
                [
                    l.statements.start,
                    l.statements.end,
                    l.body.start,
                    l.body.end,
                ]
            })
            .chain(
                self.boundaries
                    .iter()
                    .copied()
                    .filter(|&b| last_anchor.is_none_or(|a| b > a)),
            )
            .collect();
        ends.sort_unstable();
        ends.dedup();
        let from = self
            .anchors
            .iter()
            .rev()
            .find(|a| a.0 <= ends.first().copied().unwrap_or(0))
            .copied()
            .unwrap_or_default();
        let end_positions = positions_from(text, from, &ends);
        for (&o, &p) in ends.iter().zip(&end_positions) {
            if last_anchor.is_none_or(|a| o > a) && self.boundaries.binary_search(&o).is_ok() {
                self.anchors.push((o, p));
            }
        }
        let position_of = |o: usize| end_positions[ends.binary_search(&o).unwrap_or(0)];
        for ((p, _), levels) in placed.iter().zip(&levels) {
            if self.known(*p).is_some() {
                continue;
            }
            let mut found = false;
            'levels: for (depth, level) in levels.iter().enumerate() {
                let top = depth + 1 == levels.len();
                let mut ranges = vec![level.statements.clone()];
                // The top level's whole body is the text: parsed whole, as without parts.
                if !top && level.body != level.statements {
                    ranges.push(level.body.clone());
                }
                for r in ranges {
                    let Some(part) = self.part(text, name, dialect, r, top, position_of) else {
                        continue;
                    };
                    // Read without error: it holds every function around `p` inside it, or there is none at this
                    // level. At the top level none means `p` is top-level code.
                    found = self.parts[part].answers(*p).is_some();
                    if found {
                        break 'levels;
                    }
                    continue 'levels;
                }
            }
            if found {
                self.answers.insert(*p, self.known(*p).flatten());
            } else {
                rest.push(*p);
            }
        }
        rest
    }

    /// The index of the part `r` in `self.parts`, parsed now if it was not; `None` when it does not read without an
    /// error.
    fn part(
        &mut self,
        text: &str,
        name: &str,
        dialect: Dialect,
        r: Range<usize>,
        top: bool,
        position_of: impl Fn(usize) -> TextPosition,
    ) -> Option<usize> {
        let key = (r.start, r.end);
        if let Some(i) = self.parts.iter().position(|p| p.range == key) {
            return Some(i);
        }
        if self.unreadable.contains(&key) {
            return None;
        }
        match FunctionScopes::parse_part(text, r.clone(), position_of(r.start), name, dialect) {
            Ok(table) => {
                self.parts.push(Part {
                    range: key,
                    start: position_of(r.start),
                    end: position_of(r.end),
                    top,
                    table: Arc::new(table),
                });
                Some(self.parts.len() - 1)
            }
            Err(_) => {
                self.unreadable.push(key);
                None
            }
        }
    }
}

/// For each position of `at`, the table that answers it and whether a part answered it (else the whole text was
/// parsed): what [`TextScopes`] does for a text of [`PARSE_IN_PARTS_FROM`] bytes or more, for any text, asked a few
/// positions at a time in the text's order (as hovers ask: later passes start at the boundaries earlier ones found).
/// For tests and tools that compare the parts' answers with the whole parse's.
pub fn tables_around(
    text: &str,
    name: &str,
    dialect: Dialect,
    at: &[TextPosition],
) -> Vec<(Parsed, bool)> {
    let mut scopes = TextScopes::new();
    let mut wanted = at.to_vec();
    wanted.sort_unstable();
    wanted.dedup();
    let mut rest = Vec::new();
    for batch in wanted.chunks(16) {
        rest.extend(scopes.in_parts(text, name, dialect, batch));
    }
    if !rest.is_empty() {
        scopes.answer(Some(text), name, dialect, &rest);
    }
    let whole = scopes.whole.clone().flatten();
    at.iter()
        .map(|&p| {
            let table = scopes.table(p);
            let by_part = match (&table, &whole) {
                (Some(t), Some(w)) => !Arc::ptr_eq(t, w),
                (Some(_), None) => true,
                (None, _) => false,
            };
            (table, by_part)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The answer at `$0` (a function's written name and start, or top level) from parts and from the whole parse.
    fn both(code: &str, file: &str, dialect: Dialect) -> (Option<String>, Option<String>) {
        let at = code.find("$0").unwrap();
        let text = code.replacen("$0", "", 1);
        let p = positions_from(&text, (0, TextPosition::default()), &[at])[0];
        let describe = |t: &FunctionScopes| {
            t.innermost(p)
                .map(|f| format!("{:?} at {:?}", f.written_name(), f.start))
        };
        let whole = FunctionScopes::parse(&text, file, dialect).unwrap();
        let (table, _) = tables_around(&text, file, dialect, &[p]).remove(0);
        (table.as_deref().and_then(describe), describe(&whole))
    }

    /// Reading ahead (`answer_parts`) answers what a part answers, never parses the whole text for a position only
    /// it answers (left unknown, for `answer` to settle), and does not read a text parsed whole.
    #[test]
    fn reading_ahead_reads_parts_only() {
        let mut text = String::new();
        let mut line = 0u32;
        while text.len() < PARSE_IN_PARTS_FROM + 1000 {
            text.push_str(&format!("function f{line}() {{ return {line}; }}\n"));
            line += 1;
        }
        let inside = TextPosition {
            line: 7,
            column: 18,
        };
        // Past the text's end: only the whole text says what is there.
        let past = TextPosition {
            line: line + 5,
            column: 0,
        };
        let mut scopes = TextScopes::new();
        scopes.answer_parts(&text, "a.js", Dialect::Generated, &[inside, past]);
        let named = |t: Parsed| t.and_then(|t| t.innermost(inside).and_then(|f| f.written_name()));
        assert_eq!(named(scopes.known(inside).unwrap()).as_deref(), Some("f7"));
        assert!(scopes.known(past).is_none(), "no whole parse for a guess");
        assert!(scopes.whole.is_none());
        scopes.answer(Some(&text), "a.js", Dialect::Generated, &[past]);
        assert!(scopes.known(past).is_some());
        let mut small = TextScopes::new();
        small.answer_parts("function g() {}", "a.js", Dialect::Generated, &[inside]);
        assert!(small.known(inside).is_none());
    }

    #[test]
    fn texts_the_pass_cannot_read_are_answered_as_the_whole_parse_does() {
        let cases = [
            // A `;` in JSX text is no statement boundary.
            (
                "function A(){ return <div><p>x; b = function(){ c$0 }; d</p></div>; }",
                "a.jsx",
                Dialect::Original,
            ),
            (
                "function A(){ return <div><p>x; b = function(){ c$0 }; d</p></div>; }",
                "a.js",
                Dialect::Original,
            ),
            // A TypeScript class whose type parameters hold an object type.
            (
                "class Store<S extends { a: number }> extends Mixin(Base) {\n  count = 0;\n  reset = () => { this.count$0 = 0; };\n}",
                "s.ts",
                Dialect::Original,
            ),
            // `await /re/` inside an async function.
            (
                "async function g(){ q = await /x, r = function(){ $0 }/g.test(s) ? 1 : 2; }",
                "g.js",
                Dialect::Generated,
            ),
            // A class body after a call in `extends`.
            (
                "var K = class extends f(B) { x = 1; m = function(){ $0 }; };",
                "k.js",
                Dialect::Generated,
            ),
            // A statement that goes on after its `;`.
            (
                "function h(a){ if (a) b = function(){}; else c = function(){ $0 }; }",
                "h.js",
                Dialect::Generated,
            ),
        ];
        for (code, file, dialect) in cases {
            let (parts, whole) = both(code, file, dialect);
            assert_eq!(parts, whole, "{file}: {code}");
        }
    }
}
