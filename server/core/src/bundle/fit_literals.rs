//! Whether a place in a JavaScript text is inside a literal (a string, a template literal's text, a regular
//! expression, a comment, a number): the fit check's way to tell a producer's segment inside a literal from a stale
//! map's landing inside an identifier.
//!
//! Real producers write segments inside literals of a map that fits: SWC (Next.js's webpack build) writes extra
//! segments inside string literals it inlines (`ac(t,"Data|View")`) and, in a template literal holding raw newlines,
//! segments past the ends of the literal's lines; Turbopack writes segments inside the module ids it puts in place
//! of import paths (`a.r(3212|0)`). A stale map lands anywhere, mostly inside identifiers, which stay evidence. So a
//! landing inside a literal says nothing either way (`fit::Landing::InLiteral`). Comments are told apart and stay
//! evidence: a banner prepended to a bundle is one.
//!
//! One forward scan, as far as asked and never twice: the fit check asks in generated order. A place asked before
//! the scan (a map's segments out of order) is answered "not in a literal" (the landing keeps its weight). The scan
//! is lexical and approximate — a `/` after `)` is a division, after other punctuation a regular expression, which
//! ends at its line's end at the latest — and only ever makes a landing neutral, never evidence of fit.

/// What a byte of the text is inside ([`Literals::at`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inside {
    Code,
    String,
    Template,
    Regex,
    Comment,
    Number,
}

/// The scanner's state at a byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Code,
    /// In a string quoted by this byte.
    Str(u8),
    /// In a template literal's text.
    Template,
    LineComment,
    BlockComment,
    /// In a regular expression (`true`: inside a `[…]` class).
    Regex(bool),
}

/// A forward scan of a text, answering what bytes are inside.
pub(crate) struct Literals {
    state: State,
    /// The next byte to scan.
    at: usize,
    /// For each template literal whose `${` is open: the brace depth at which its `}` resumes the template.
    templates: Vec<u32>,
    braces: u32,
    /// The last byte of code that was not white space (decides `/`: division or regular expression).
    last_code: u8,
    /// Where the current word (identifier or number) started, and whether it started with a digit.
    word: Option<(usize, bool)>,
}

impl Literals {
    pub(crate) fn new() -> Self {
        Literals {
            state: State::Code,
            at: 0,
            templates: Vec::new(),
            braces: 0,
            last_code: b';',
            word: None,
        }
    }

    /// What byte `q` of `text` is inside: a string, a template's text, a regular expression, a comment, a number
    /// (`a.r(32120)`), or other code. `q` on a line's terminator asks whether a literal (a template, a block comment)
    /// goes on across it. `None` for a byte before one asked earlier.
    pub(crate) fn at(&mut self, text: &[u8], q: usize) -> Option<Inside> {
        if q < self.at.saturating_sub(1) {
            return None;
        }
        while self.at <= q && self.at < text.len() {
            self.step(text);
        }
        // The state after byte `q`: in what `q` opened or continues.
        Some(match self.state {
            State::Code if self.word.is_some_and(|(_, digit)| digit) && q + 1 == self.at => {
                Inside::Number
            }
            State::Code => Inside::Code,
            State::Str(_) => Inside::String,
            State::Template => Inside::Template,
            State::Regex(_) => Inside::Regex,
            State::LineComment | State::BlockComment => Inside::Comment,
        })
    }

    fn step(&mut self, text: &[u8]) {
        let i = self.at;
        let b = text[i];
        let next = text.get(i + 1).copied();
        self.at += 1;
        match self.state {
            State::Code => self.code(b, next, i, text),
            State::Str(quote) => {
                if b == b'\\' {
                    self.at += 1;
                } else if b == quote || b == b'\n' {
                    self.state = State::Code;
                    self.last_code = b'"';
                }
            }
            State::Template => {
                if b == b'\\' {
                    self.at += 1;
                } else if b == b'`' {
                    self.state = State::Code;
                    self.last_code = b'"';
                } else if b == b'$' && next == Some(b'{') {
                    self.at += 1;
                    self.templates.push(self.braces);
                    self.braces += 1;
                    self.state = State::Code;
                    self.last_code = b'{';
                }
            }
            State::LineComment => {
                if b == b'\n' {
                    self.state = State::Code;
                }
            }
            State::BlockComment => {
                if b == b'*' && next == Some(b'/') {
                    self.at += 1;
                    self.state = State::Code;
                }
            }
            State::Regex(class) => match b {
                b'\\' => self.at += 1,
                b'\n' => self.state = State::Code,
                b'[' => self.state = State::Regex(true),
                b']' if class => self.state = State::Regex(false),
                b'/' if !class => {
                    self.state = State::Code;
                    self.last_code = b'"';
                }
                _ => {}
            },
        }
    }

    fn code(&mut self, b: u8, next: Option<u8>, i: usize, text: &[u8]) {
        let is_word = b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80;
        if is_word {
            if self.word.is_none() {
                self.word = Some((i, b.is_ascii_digit()));
            }
            self.last_code = b'a';
            return;
        }
        // A number's `.`, or its exponent's sign, keeps it a number (`1.5`, `1e-3`).
        if let Some((start, true)) = self.word {
            let exponent =
                i > start && matches!(b, b'+' | b'-') && matches!(text[i - 1], b'e' | b'E');
            if b == b'.' || exponent {
                return;
            }
        }
        self.word = None;
        match b {
            b'"' | b'\'' => self.state = State::Str(b),
            b'`' => self.state = State::Template,
            b'/' if next == Some(b'/') => self.state = State::LineComment,
            b'/' if next == Some(b'*') => {
                self.at += 1;
                self.state = State::BlockComment;
            }
            b'/' if !matches!(self.last_code, b'a' | b')' | b']' | b'}' | b'"') => {
                self.state = State::Regex(false)
            }
            b'{' => self.braces += 1,
            b'}' => {
                self.braces = self.braces.saturating_sub(1);
                if self.templates.last() == Some(&self.braces) {
                    self.templates.pop();
                    self.state = State::Template;
                }
            }
            _ => {}
        }
        if !b.is_ascii_whitespace() {
            self.last_code = b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each `|` marks a place; what each is inside, in order.
    fn answers(marked: &str) -> Vec<Inside> {
        let mut text = Vec::new();
        let mut places = Vec::new();
        for b in marked.bytes() {
            if b == b'|' {
                places.push(text.len());
            } else {
                text.push(b);
            }
        }
        let mut l = Literals::new();
        places.iter().map(|&q| l.at(&text, q).unwrap()).collect()
    }

    #[test]
    fn strings_templates_numbers_comments_and_regexes_are_told() {
        use Inside::*;
        assert_eq!(
            answers(r#"ac(t,"Da|ta|View"),b|f=1"#),
            [String, String, Code]
        );
        assert_eq!(answers("a.r(3|212|0),f=a.r|(1)"), [Number, Number, Code]);
        assert_eq!(
            answers("x=`one\ntw|o ${a|+`in|ner`} th|ree\n`;y|=2"),
            [Template, Code, Template, Template, Code]
        );
        // A line's end: a template or block comment goes on across it, a string or line comment does not.
        assert_eq!(
            answers("x=`a|\nb`;/*c|\nd*/'e|\n//f|\ng"),
            [Template, Comment, Code, Code]
        );
        assert_eq!(
            answers("/* c|om\nme|nt */ a|b // l|ine\nc|d"),
            [Comment, Comment, Code, Comment, Code]
        );
        assert_eq!(
            answers("x=/a|b[/]c/g.test(s|);y=a/b|/c"),
            [Regex, Code, Code]
        );
        assert_eq!(answers("n=1.5|e-3+ab|c"), [Number, Code]);
        // Asked out of order: not known.
        let mut l = Literals::new();
        assert_eq!(l.at(b"'abcdef'", 5), Some(String));
        assert_eq!(l.at(b"'abcdef'", 1), None);
    }
}
