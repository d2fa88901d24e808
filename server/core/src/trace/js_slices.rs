//! Where to parse to name the function around a position, without parsing the whole file: the function bodies that
//! enclose the position, found by one lexical pass (no syntax tree), and in each the run of statements around it.
//!
//! Naming a frame needs the innermost function around its position and the syntax that names it (`var f =`,
//! `a.b =`, `key:`, the class of a method), all of which stand inside the statement that holds the function. A
//! function around the position lies wholly inside the body of every function that encloses it, and inside one run
//! of that body's statements between two of the body's own `;` (a `;` inside the function would be deeper in its
//! braces). So parsing such a run, or the whole body, finds the same functions inside it with the same names as
//! parsing the whole file (`js_scopes`). Levels are tried innermost first; a level whose text holds no function
//! around the position tells the next one out to be parsed, up to the file's top level.
//!
//! The lexical pass only chooses where to cut; it is never trusted to be right. A cut the parser does not read
//! without a single error (a regular expression taken for a division, JSX text, a statement that goes on after its
//! `;` as `if (a) b; else c` does) is not used, and the next level is tried, down to the whole file: so the answer is
//! the whole parse's answer, or the whole parse itself. Measured on real bundles (`tests/function_slices.rs`).
//!
//! Cost: one pass over the text up to the last position's enclosing bodies' ends, and a stack as deep as the code's
//! nesting; nothing per token is kept.

use std::ops::Range;

/// One enclosing level around a position: the statements of a function body (or of the file's top level) to parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Level {
    /// The statements between the body's last `;` before the position and its first `;` at or after it (inclusive);
    /// the body's start or end where there is none.
    pub statements: Range<usize>,
    /// The whole body, between its braces; the whole text at the top level.
    pub body: Range<usize>,
}

/// A bracket open at the point of the pass.
#[derive(Debug, Clone)]
struct Open {
    kind: OpenKind,
    /// Byte offset just past the opening character (a body's first byte).
    inner: usize,
    /// Just past the last `;` directly inside this bracket, or `inner`.
    after_last_semicolon: usize,
    /// Indexes in `pending` of the positions' levels waiting for this bracket's next `;`…
    waiting_semicolon: Vec<usize>,
    /// … and for its close.
    waiting_close: Vec<usize>,
    /// For `(`: whether the keyword before it makes it a statement's head (`if (`, `for (`…), so that a `{` after
    /// its `)` is that statement's block, not a function body, and a `/` after it starts a regular expression.
    head: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OpenKind {
    Paren,
    Bracket,
    /// A `{` after `=>` or after the `)` of a function's or method's parameters.
    FunctionBody,
    /// Any other `{`: a block, an object literal, a class body.
    Brace,
    /// `${` of a template literal: its `}` goes back into the template.
    Substitution,
}

/// The last significant token, for telling a `/` that divides from one that starts a regular expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prev {
    /// Start of text, an operator or punctuator after which an expression starts.
    Operator,
    /// An identifier, a number, a string, a template, a regular expression, `]`: a value; `/` divides.
    Value,
    /// A keyword after which an expression starts (`return`, `typeof`…).
    ExpressionKeyword,
    /// A keyword that heads a statement with a parenthesised part (`if`, `for`, `while`, `with`, `switch`, `catch`).
    HeadKeyword,
    /// `)`; `head` is whether it closed a statement head.
    CloseParen { head: bool },
    /// `}`.
    CloseBrace,
    /// `=>`.
    Arrow,
    /// A word not after a `.`, its bytes' range: a keyword or a value, told only when a token after it asks
    /// ([`Pass::prev`]); most words are followed by nothing that does.
    Word(usize, usize),
}

/// For each byte offset in `positions` (any order), its enclosing levels, innermost first, ending with the top level.
/// `None` when the pass cannot read the text (its brackets do not balance as it sees them): parse the whole file.
pub fn levels_around(text: &str, positions: &[usize]) -> Option<Vec<Vec<Level>>> {
    levels_around_from(text, 0, positions, &mut Vec::new())
}

/// [`levels_around`] with the pass started at `start`, just past a `;` of the top level (or 0): what the text holds
/// before it is not read. The offsets just past the top level's `;`s the pass meets, at least
/// [`BOUNDARY_SPACING`] apart, are added to `boundaries` (sorted), for later passes to start at the one before their
/// positions instead of at the text's start.
pub fn levels_around_from(
    text: &str,
    start: usize,
    positions: &[usize],
    boundaries: &mut Vec<usize>,
) -> Option<Vec<Vec<Level>>> {
    let mut kept = std::mem::take(boundaries);
    let levels = pass_from(text, start, positions, &mut kept);
    // Kept however the pass ended: a pass that could not read the text past a point still found those before it.
    kept.sort_unstable();
    kept.dedup();
    *boundaries = kept;
    levels
}

fn pass_from(
    text: &str,
    start: usize,
    positions: &[usize],
    boundaries: &mut Vec<usize>,
) -> Option<Vec<Vec<Level>>> {
    let bytes = text.as_bytes();
    if positions.iter().any(|&p| p < start) {
        return None;
    }
    let mut order: Vec<usize> = (0..positions.len()).collect();
    order.sort_by_key(|&i| positions[i]);
    let mut top = plain(OpenKind::FunctionBody, 0);
    top.after_last_semicolon = start;
    let mut pass = Pass {
        bytes,
        at: start,
        boundaries,
        stack: vec![top],
        classes: Vec::new(),
        prev: Prev::Operator,
        prev_is_dot: false,
        in_template: false,
        pending: Vec::new(),
        unfinished: 0,
    };
    // A `#!` line is not code.
    if start == 0 && bytes.starts_with(b"#!") {
        pass.at = memchr::memchr(b'\n', bytes).unwrap_or(bytes.len());
    }
    let mut owners: Vec<Vec<usize>> = vec![Vec::new(); positions.len()];
    let mut next = 0;
    let mut next_stop = order.first().map_or(usize::MAX, |&i| positions[i]);
    loop {
        // Snapshots of the positions the pass has reached (a position inside a token is in the same brackets).
        while next_stop <= pass.at {
            owners[order[next]] = pass.place();
            next += 1;
            next_stop = order.get(next).map_or(usize::MAX, |&i| positions[i]);
        }
        // Done once every position is placed and each of its levels has its ends (the top level's body is the text).
        if next == order.len() && pass.unfinished == 0 {
            break;
        }
        if !pass.token(next_stop)? {
            break;
        }
    }
    if next < order.len() {
        return None;
    }
    let end = bytes.len();
    Some(
        owners
            .into_iter()
            .map(|levels| {
                levels
                    .into_iter()
                    .map(|w| {
                        let [s0, s1, b0, b1] = pass.pending[w];
                        let b1 = b1.min(end);
                        Level {
                            statements: s0..s1.min(b1),
                            body: b0..b1,
                        }
                    })
                    .collect()
            })
            .collect(),
    )
}

/// How far apart the top level's statement boundaries kept for later passes are, at least (a pass that starts at
/// one reads at most this much before its first position).
pub const BOUNDARY_SPACING: usize = 16 << 10;

/// The lexical pass's state.
struct Pass<'t, 'b> {
    bytes: &'t [u8],
    at: usize,
    /// Offsets just past top-level `;`s met, [`BOUNDARY_SPACING`] apart.
    boundaries: &'b mut Vec<usize>,
    stack: Vec<Open>,
    /// The stack depth at which each `class` seen waits for its body's `{` (`class A extends mixin(B) {` is a class
    /// body after a `)`, not a function's).
    classes: Vec<usize>,
    prev: Prev,
    prev_is_dot: bool,
    /// Inside a template literal's text.
    in_template: bool,
    /// Each level asked for: [statements start, statements end, body start, body end]; ends filled as the pass
    /// meets them (`usize::MAX` until then).
    pending: Vec<[usize; 4]>,
    /// How many ends are still missing: each level's statements' end, and (below the top level) its body's close.
    unfinished: usize,
}

impl Pass<'_, '_> {
    /// The last token's kind, a word's told now.
    fn prev(&self) -> Prev {
        match self.prev {
            Prev::Word(start, end) => keyword_kind(&self.bytes[start..end]),
            other => other,
        }
    }

    /// The levels of a position at the pass's point: each function body open, innermost first.
    fn place(&mut self) -> Vec<usize> {
        let mut levels = Vec::new();
        for (depth, open) in self.stack.iter_mut().enumerate().rev() {
            if open.kind == OpenKind::FunctionBody {
                let w = self.pending.len();
                open.waiting_semicolon.push(w);
                if depth > 0 {
                    open.waiting_close.push(w);
                }
                levels.push(w);
                self.pending.push([
                    open.after_last_semicolon,
                    usize::MAX,
                    open.inner,
                    usize::MAX,
                ]);
                self.unfinished += if depth == 0 { 1 } else { 2 };
            }
        }
        levels
    }

    /// Reads one token (whitespace runs stop at `stop`); `Some(false)` at the end of the text, `None` where the text
    /// cannot be read.
    fn token(&mut self, stop: usize) -> Option<bool> {
        let bytes = self.bytes;
        if self.in_template {
            // Inside a template literal's text: up to its end or its next `${`.
            let (end, substitution) = template_text_end(bytes, self.at)?;
            self.at = end;
            self.in_template = false;
            self.prev_is_dot = false;
            if substitution {
                self.stack.push(plain(OpenKind::Substitution, end));
                self.prev = Prev::Operator;
            } else {
                self.prev = Prev::Value;
            }
            return Some(true);
        }
        let Some(&b) = bytes.get(self.at) else {
            return Some(false);
        };
        let at = self.at;
        let mut dot = false;
        match b {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => {
                // Indentation is most of an unminified bundle's bytes: a run at once, up to the next position.
                let mut i = at + 1;
                while i < stop && matches!(bytes.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
                    i += 1;
                }
                self.at = i;
                return Some(true);
            }
            b'/' if bytes.get(at + 1) == Some(&b'/') => {
                self.at = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
                return Some(true);
            }
            b'/' if bytes.get(at + 1) == Some(&b'*') => {
                self.at = memchr::memmem::find(&bytes[at + 2..], b"*/").map(|i| at + 2 + i + 2)?;
                return Some(true);
            }
            b'/' => self.slash(at)?,
            b'\'' | b'"' => {
                self.at = string_end(bytes, at)?;
                self.prev = Prev::Value;
            }
            b'`' => {
                self.at = at + 1;
                self.in_template = true;
            }
            b'(' | b'[' | b'{' => self.open(b),
            b')' | b']' | b'}' => self.close(b)?,
            b';' => self.semicolon(at)?,
            // `<<`, `<=`, `<<=`: one operator.
            b'<' if matches!(bytes.get(at + 1), Some(b'<' | b'=')) => {
                self.at = at + 2;
                self.prev = Prev::Operator;
            }
            // A `<` where an expression starts is JSX or a TypeScript type assertion or generic arrow, whose text
            // (`<p>a; b</p>`) the pass cannot read: such a text is parsed whole.
            b'<' if matches!(
                self.prev(),
                Prev::Operator
                    | Prev::ExpressionKeyword
                    | Prev::Arrow
                    | Prev::HeadKeyword
                    | Prev::CloseParen { head: true }
                    | Prev::CloseBrace
            ) =>
            {
                return None;
            }
            b'=' if bytes.get(at + 1) == Some(&b'>') => {
                self.at = at + 2;
                self.prev = Prev::Arrow;
            }
            // `a++ / 2` divides: a postfix operator leaves a value.
            b'+' | b'-' if bytes.get(at + 1) == Some(&b) && self.prev() == Prev::Value => {
                self.at = at + 2
            }
            b'0'..=b'9' => {
                self.at = number_end(bytes, at, at);
                self.prev = Prev::Value;
            }
            b'.' if bytes.get(at + 1).is_some_and(u8::is_ascii_digit) => {
                self.at = number_end(bytes, at, at + 1);
                self.prev = Prev::Value;
            }
            _ if is_word_byte(b) => {
                let mut i = at + 1;
                while bytes.get(i).is_some_and(|&c| is_word_byte(c)) {
                    i += 1;
                }
                self.at = i;
                // `a.if(` or `a?.return` is a property, not a keyword.
                self.prev = if self.prev_is_dot {
                    Prev::Value
                } else {
                    if &bytes[at..i] == b"class" {
                        self.classes.push(self.stack.len());
                    }
                    Prev::Word(at, i)
                };
            }
            _ => {
                dot = b == b'.';
                self.at = at + 1;
                self.prev = Prev::Operator;
            }
        }
        self.prev_is_dot = dot;
        Some(true)
    }

    /// A `/` at `at`: a regular expression where an expression starts, else a division.
    fn slash(&mut self, at: usize) -> Option<()> {
        // `await /re/` and `yield /re/` read as divisions in a part parsed outside its async function or
        // generator: such a text is parsed whole.
        if let Prev::Word(s, e) = self.prev {
            if matches!(&self.bytes[s..e], b"await" | b"yield") {
                return None;
            }
        }
        let regex = match self.prev() {
            Prev::Operator | Prev::ExpressionKeyword | Prev::Arrow | Prev::HeadKeyword => true,
            Prev::CloseParen { head } => head,
            // After a block's `}` a statement starts; an object literal divided by something is not code anyone
            // writes.
            Prev::CloseBrace => true,
            Prev::Value | Prev::Word(..) => false,
        };
        if regex {
            self.at = regex_end(self.bytes, at)?;
            self.prev = Prev::Value;
        } else {
            self.at = at + 1;
            self.prev = Prev::Operator;
        }
        Some(())
    }

    /// A `;` at `at`: a top-level boundary (every `BOUNDARY_SPACING` bytes at most), and the end of the statement
    /// run the parts waiting for it end at.
    fn semicolon(&mut self, at: usize) -> Option<()> {
        self.at = at + 1;
        if self.stack.len() == 1
            && self
                .boundaries
                .last()
                .is_none_or(|&b| at + 1 >= b + BOUNDARY_SPACING)
        {
            self.boundaries.push(at + 1);
        }
        let top = self.stack.last_mut()?;
        top.after_last_semicolon = at + 1;
        for w in top.waiting_semicolon.drain(..) {
            self.pending[w][1] = at + 1;
            self.unfinished -= 1;
        }
        self.prev = Prev::Operator;
        Some(())
    }

    fn open(&mut self, b: u8) {
        let inner = self.at + 1;
        let open = match b {
            b'(' => Open {
                head: self.prev() == Prev::HeadKeyword,
                ..plain(OpenKind::Paren, inner)
            },
            b'[' => plain(OpenKind::Bracket, inner),
            _ => {
                let class_body = self.classes.last() == Some(&self.stack.len());
                let kind = if class_body {
                    self.classes.pop();
                    OpenKind::Brace
                } else {
                    match self.prev {
                        Prev::Arrow | Prev::CloseParen { head: false } => OpenKind::FunctionBody,
                        _ => OpenKind::Brace,
                    }
                };
                plain(kind, inner)
            }
        };
        self.stack.push(open);
        self.at = inner;
        self.prev = Prev::Operator;
    }

    /// A closing bracket; `None` when it closes none, or another kind.
    fn close(&mut self, b: u8) -> Option<()> {
        let at = self.at;
        let open = self.stack.pop()?;
        if self.stack.is_empty() {
            return None;
        }
        let matches = matches!(
            (b, open.kind),
            (b')', OpenKind::Paren)
                | (b']', OpenKind::Bracket)
                | (
                    b'}',
                    OpenKind::FunctionBody | OpenKind::Brace | OpenKind::Substitution
                )
        );
        if !matches {
            return None;
        }
        for &w in &open.waiting_semicolon {
            self.pending[w][1] = at;
            self.unfinished -= 1;
        }
        for &w in &open.waiting_close {
            self.pending[w][3] = at;
            self.unfinished -= 1;
        }
        // A `class` whose body never came (inside these brackets) is not waited for.
        while self.classes.last().is_some_and(|&d| d > self.stack.len()) {
            self.classes.pop();
        }
        self.at = at + 1;
        self.prev = match b {
            b')' => Prev::CloseParen { head: open.head },
            b']' => Prev::Value,
            _ if open.kind == OpenKind::Substitution => {
                self.in_template = true;
                Prev::Value
            }
            _ => Prev::CloseBrace,
        };
        Some(())
    }
}

fn plain(kind: OpenKind, inner: usize) -> Open {
    Open {
        kind,
        inner,
        after_last_semicolon: inner,
        waiting_semicolon: Vec::new(),
        waiting_close: Vec::new(),
        head: false,
    }
}

/// Bytes of identifiers, keywords and private names (`#x`), unicode escapes (`\\u0061`) and any non-ASCII
/// character (an identifier's, or a space's: neither holds a bracket).
fn is_word_byte(b: u8) -> bool {
    const WORD: [bool; 256] = {
        let mut t = [false; 256];
        let mut i = 0;
        while i < 256 {
            let b = i as u8;
            t[i] = b.is_ascii_alphanumeric()
                || b == b'_'
                || b == b'$'
                || b == b'#'
                || b == b'\\'
                || b >= 0x80;
            i += 1;
        }
        t
    };
    WORD[b as usize]
}

fn keyword_kind(word: &[u8]) -> Prev {
    match word {
        b"if" | b"for" | b"while" | b"with" | b"switch" | b"catch" => Prev::HeadKeyword,
        b"return" | b"typeof" | b"instanceof" | b"in" | b"of" | b"new" | b"delete" | b"void"
        | b"throw" | b"case" | b"do" | b"else" | b"yield" | b"await" | b"extends" => {
            Prev::ExpressionKeyword
        }
        // `for await (…) {` is read as a function's body (`await` is not a head keyword): a loop's block holds
        // statements as a body does, so the names found in it are the same.
        _ => Prev::Value,
    }
}

/// Past a string literal starting at `at` (its quote); `None` when it does not end on its line.
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let quote = bytes[at];
    let mut i = at + 1;
    loop {
        match *bytes.get(i)? {
            b'\\' => {
                // A line continuation's `\r\n` is two bytes.
                i += if bytes.get(i + 1) == Some(&b'\r') && bytes.get(i + 2) == Some(&b'\n') {
                    3
                } else {
                    2
                };
            }
            b'\n' | b'\r' => return None,
            c if c == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
}

/// From inside a template literal's text at `at`: past its closing backtick (`false`), or past a `${` (`true`).
fn template_text_end(bytes: &[u8], mut at: usize) -> Option<(usize, bool)> {
    loop {
        match *bytes.get(at)? {
            b'\\' => at += 2,
            b'`' => return Some((at + 1, false)),
            b'$' if bytes.get(at + 1) == Some(&b'{') => return Some((at + 2, true)),
            _ => at += 1,
        }
    }
}

/// Past a regular expression literal starting at `at` (its `/`), flags included.
fn regex_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    let mut class = false;
    loop {
        match *bytes.get(i)? {
            b'\\' => i += 2,
            b'\n' | b'\r' => return None,
            b'[' => {
                class = true;
                i += 1;
            }
            b']' => {
                class = false;
                i += 1;
            }
            b'/' if !class => {
                i += 1;
                while bytes.get(i).is_some_and(|&c| is_word_byte(c)) {
                    i += 1;
                }
                return Some(i);
            }
            _ => i += 1,
        }
    }
}

/// Past a number that starts at `start`, read from `at`: digits, letters (`0x1F`, `1e5`, `10n`), `.`, `_`, and an
/// exponent's sign.
fn number_end(bytes: &[u8], start: usize, mut at: usize) -> usize {
    let hex = matches!(bytes.get(start..start + 2), Some(b"0x" | b"0X"));
    while let Some(&c) = bytes.get(at) {
        let exponent_sign =
            (c == b'+' || c == b'-') && !hex && matches!(bytes.get(at - 1), Some(b'e' | b'E'));
        if c.is_ascii_alphanumeric() || c == b'.' || c == b'_' || exponent_sign {
            at += 1;
        } else {
            break;
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `$0` marks the position; returns its levels' statements and bodies as text.
    fn levels(code: &str) -> Vec<(String, String)> {
        let at = code.find("$0").unwrap();
        let text = code.replacen("$0", "", 1);
        let found = levels_around(&text, &[at]).expect("the pass reads the text");
        found[0]
            .iter()
            .map(|l| {
                (
                    text[l.statements.clone()].to_string(),
                    text[l.body.clone()].to_string(),
                )
            })
            .collect()
    }

    #[test]
    fn a_position_is_in_its_function_bodies_then_the_top_level() {
        let got = levels("var a=1;function f(x){var y=2;g($0x);return y}f(1);");
        assert_eq!(
            got,
            [
                ("g(x);".to_string(), "var y=2;g(x);return y".to_string()),
                (
                    "function f(x){var y=2;g(x);return y}f(1);".to_string(),
                    "var a=1;function f(x){var y=2;g(x);return y}f(1);".to_string()
                ),
            ]
        );
    }

    #[test]
    fn arrows_and_methods_have_bodies_blocks_and_objects_do_not() {
        let got = levels("x={m(a){if(a){for(;;){let o={k:()=>{$0z()}}}}}}");
        let bodies: Vec<&str> = got.iter().map(|(_, b)| b.as_str()).collect();
        assert_eq!(
            bodies,
            [
                "z()",
                "if(a){for(;;){let o={k:()=>{z()}}}}",
                "x={m(a){if(a){for(;;){let o={k:()=>{z()}}}}}}"
            ]
        );
    }

    #[test]
    fn strings_templates_comments_and_regular_expressions_hide_their_brackets() {
        let got = levels(
            "function f(){var s='}{',t=`}${ {a:'{'}.a }{`,r=/[/}]{/g;/*}*/// }\n return function(){$0}}",
        );
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].1, "");
        assert!(got[1].1.ends_with("return function(){}"));
    }

    #[test]
    fn a_division_is_not_a_regular_expression() {
        // `a/b/c`: two divisions; `)/2`; `]/2`; after `if(…)` a `/` starts a regular expression.
        let got = levels("function f(a,b,c){x=a/b/c+(a)/2+[1][0]/2;if(a)/}/.test(b);$0}");
        assert_eq!(got.len(), 2);
    }

    #[test]
    fn unbalanced_text_is_not_read() {
        assert_eq!(levels_around("function f(){)", &[0]), None);
        assert_eq!(levels_around("a=']", &[0]), None);
    }
}
